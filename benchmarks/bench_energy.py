"""The energy study with and without its power model and signals, same run.

Run on demand (not in the tests):

    nice python benchmarks/bench_energy.py [--repeat 3] [--jobs 300] [--kth-jobs 0]
                                           [--only capped|node-cap]

Contenders, interleaved repetition by repetition, processor time (medians of ``--repeat``):

* the bundled study (``energy-tariff-carbon``, one replication) per policy, as shipped
  (power, day/night tariff, carbon profile) and with ``power``, ``electricity_price`` and
  ``carbon_intensity`` removed. For BFfinish and CoP the difference is the accounting; for
  MinCost it is also the search (with power, MinCost buys electricity at the hour's price
  and runs the exact search over time of ``selection/signal_search.py``); MinCarbon has no
  signal-free version and is timed against BFfinish without signals;
* KTH-SP2 (``--kth-jobs``, 0: the whole log) replayed on its homogeneous machine under
  EASY with and without a power model and the two signals: the accounting of a whole log;
* the capped study (``energy-capped-flow``, one replication) per policy under its two
  binding caps, with and without the tariff and the carbon profile (the power model and the
  cap kept: a cap needs them); MinCarbon against BFfinish without signals, as above. And,
  with signals, each policy under the 5 kW cap against the same run without a cap: what
  planning under the cap costs;
* the bundled first 300 jobs of KTH-SP2 on ``swf-replay-kth-nodes``'s 60 reference and 40
  faster nodes (200 W and 330 W busy) under BFfinish, a node-level replay per scheduler,
  without a cap against a constant 15 kW cap that binds.

Prints each ratio to its signal-free contender; the target is at most 1.5x.
"""

from __future__ import annotations

import argparse
import copy
import gc
import os
import statistics
import time
from pathlib import Path

import numpy as np

from gridsim.api import load_scenario
from gridsim.bundled_scenarios import bundled

KTH = Path("/work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz")
ENERGY_FIELDS = ("power", "electricity_price", "carbon_intensity")


def cpu_time(function, *args) -> float:
    gc.collect()
    began = time.process_time()
    function(*args)
    return time.process_time() - began


def study(document: dict, policy, energy: bool, jobs: int):
    document = copy.deepcopy(document)
    document.update(policies=[policy], replications=1, queue_sizes=[jobs])
    if not energy:
        for name in ENERGY_FIELDS:
            document["environment"].pop(name, None)
    return load_scenario(document)


def capped(document: dict, policy, signals: bool, cap, jobs: int):
    document = copy.deepcopy(document)
    document.pop("sweep")
    document.update(policies=[policy], replications=1, queue_sizes=[jobs])
    document["environment"]["power_cap"] = cap
    if not signals:
        for name in ENERGY_FIELDS[1:]:
            document["environment"].pop(name, None)
    return load_scenario(document)


def capped_pairs(jobs: int) -> dict:
    """The capped study's contenders (module docstring), by label."""
    import yaml

    document = yaml.safe_load(bundled()["energy-capped-flow"].read_text())
    day_night, constant, free = document["sweep"]["environment.power_cap"]
    pairs = {}
    for cap_name, cap in (("5 kW", constant), ("day/night", day_night)):
        for name in ("BFfinish", "CoP", "MinCost"):
            pairs[f"capped {cap_name} {name}"] = (
                capped(document, name, False, cap, jobs),
                capped(document, name, True, cap, jobs),
            )
        pairs[f"capped {cap_name} MinCarbon (vs BFfinish without)"] = (
            pairs[f"capped {cap_name} BFfinish"][0],
            capped(document, "MinCarbon", True, cap, jobs),
        )
    for name in ("BFfinish", "CoP", "MinCost", "MinCarbon"):
        pairs[f"cap 5 kW vs none, {name}"] = (
            capped(document, name, True, free, jobs),
            capped(document, name, True, constant, jobs),
        )
    return pairs


def node_cap_pairs(jobs: int) -> dict:
    """The node-level replay without and under a cap, per scheduler (module docstring)."""
    import yaml

    document = yaml.safe_load(bundled()["swf-replay-kth-nodes"].read_text())
    document.pop("sweep")
    document["workload"]["max_jobs"] = jobs
    document.update(policy="BFfinish", progress=False, record_nodes=True)
    fast, reference = (
        document["platform"]["node_classes"][0],
        document["platform"]["node_classes"][1],
    )
    fast["power"] = {"idle_watts": 90, "busy_watts": 200}
    reference["power"] = {"idle_watts": 100, "busy_watts": 330}
    pairs = {}
    for scheduler in ("fcfs", "easy", "conservative"):
        runs = []
        for cap in (None, {"value": 15000}):
            one = copy.deepcopy(document)
            one["schedulers"] = [scheduler]
            one["platform"]["power_cap"] = cap
            runs.append(load_scenario(one))
        pairs[f"node-level {scheduler}, 15 kW cap vs none"] = tuple(runs)
    return pairs


def kth(energy: bool, jobs: int):
    document = {
        "name": "kth-energy", "kind": "swf_replay", "progress": False, "schedulers": ["easy"],
        "workload": {"path": str(KTH), "max_jobs": jobs or None},
    }  # fmt: skip
    if energy:
        document["platform"] = {
            "power": {"idle_watts": 90, "busy_watts": 210},
            "electricity_price": {"profile": "daily", "steps": [[0, 0.12], [7, 0.3], [23, 0.12]]},
            "carbon_intensity": {"profile": "daily", "steps": [[0, 320], [10, 180], [16, 300]]},
        }
    return load_scenario(document)


def run(scenario) -> None:
    module = __import__(f"gridsim.experiments.{scenario.kind}", fromlist=["run_replication"])
    module.run_replication(scenario, 0, np.random.SeedSequence(scenario.seed, spawn_key=(0,)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--kth-jobs", type=int, default=0, help="0: the whole log")
    parser.add_argument(
        "--only",
        choices=["capped", "node-cap"],
        help="only the capped study, or only the node-level capped replays",
    )
    options = parser.parse_args()
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)
    if options.only == "capped":
        compare(capped_pairs(options.jobs), options.repeat)
        return
    if options.only == "node-cap":
        compare(node_cap_pairs(options.jobs), options.repeat)
        return
    import yaml

    document = yaml.safe_load(bundled()["energy-tariff-carbon"].read_text())
    pairs = {
        f"study {name}": (study(document, name, False, options.jobs),
                          study(document, name, True, options.jobs))
        for name in ("BFfinish", "CoP", "MinCost")
    }  # fmt: skip
    pairs["study MinCarbon (vs BFfinish without)"] = (
        pairs["study BFfinish"][0], study(document, "MinCarbon", True, options.jobs))  # fmt: skip
    pairs["KTH-SP2 easy"] = (kth(False, options.kth_jobs), kth(True, options.kth_jobs))
    pairs.update(capped_pairs(options.jobs))
    pairs.update(node_cap_pairs(options.jobs))
    compare(pairs, options.repeat)


def compare(pairs: dict, repeat: int) -> None:
    """Time each pair, interleaved, and print the ratio of their median processor times."""
    for label, (without, with_signals) in pairs.items():
        times: dict[str, list[float]] = {"without": [], "with": []}
        for _ in range(repeat):
            times["without"].append(cpu_time(run, without))
            times["with"].append(cpu_time(run, with_signals))
        base, measured = (statistics.median(times[k]) for k in ("without", "with"))
        print(f"  {label:48s} without {base:7.2f} s  with {measured:7.2f} s  "
              f"{measured / base:5.2f}x", flush=True)  # fmt: skip
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)


if __name__ == "__main__":
    main()
