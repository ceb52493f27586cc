"""CoP's cost terms and idle nodes powered down, against the same study without them.

Run on demand (not in the tests):

    nice python benchmarks/bench_cost_terms.py [--repeat 5] [--jobs 300]

Contenders, interleaved repetition by repetition, processor time (medians of ``--repeat``),
on one replication of the bundled ``energy-delay-tolerant`` study:

* CoP (the compiled search) against CoP on the Python path (``GRIDSIM_PURE_PYTHON=1``) and
  against CoP with each cost term (which runs the Python path): what the term costs beyond
  leaving the compiled kernels;
* BFfinish with and without a power-down block: the accounting of every node's power states.

Prints each contender's ratio to the first of its group.
"""

from __future__ import annotations

import argparse
import copy
import gc
import os
import statistics
import time

import numpy as np

from gridsim.api import load_scenario
from gridsim.bundled_scenarios import bundled
from gridsim.core.optional import PURE_PYTHON_ENV

POWER_DOWN = {"idle_timeout": 600, "off_watts": 10, "switch_off_seconds": 60,
              "switch_off_watts": 90, "switch_on_seconds": 300, "switch_on_watts": 150}  # fmt: skip


def cpu_time(scenario, python_path: bool) -> float:
    module = __import__(f"gridsim.experiments.{scenario.kind}", fromlist=["run_replication"])
    seed = np.random.SeedSequence(scenario.seed, spawn_key=(0,))
    if python_path:
        os.environ[PURE_PYTHON_ENV] = "1"
    gc.collect()
    began = time.process_time()
    try:
        module.run_replication(scenario, 0, seed)
    finally:
        os.environ.pop(PURE_PYTHON_ENV, None)
    return time.process_time() - began


def study(document: dict, policy, jobs: int, power_down: bool = False):
    document = copy.deepcopy(document)
    document.update(policies=[policy], replications=1, queue_sizes=[jobs])
    if power_down:
        document["environment"]["power"]["power_down"] = POWER_DOWN
    return load_scenario(document)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=300)
    options = parser.parse_args()
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)
    import yaml

    document = yaml.safe_load(bundled()["energy-delay-tolerant"].read_text())
    cop = study(document, "CoP", options.jobs)
    groups = {
        "CoP": [
            ("CoP, compiled", cop, False),
            ("CoP, Python path", cop, True),
            *((f"CoP({term}={weight:g})", study(document, {"name": "CoP", term: weight},
                                                options.jobs), False)
              for term, weight in (("price_weight", 1.0), ("energy_weight", 1e4),
                                   ("electricity_weight", 2e5), ("carbon_weight", 2e5))),
        ],
        "accounting": [
            ("BFfinish", study(document, "BFfinish", options.jobs), False),
            ("BFfinish, power down", study(document, "BFfinish", options.jobs, True), False),
        ],
    }  # fmt: skip
    for contenders in groups.values():
        times: list[list[float]] = [[] for _ in contenders]
        for _ in range(options.repeat):
            for k, (_label, scenario, python_path) in enumerate(contenders):
                times[k].append(cpu_time(scenario, python_path))
        medians = [statistics.median(t) for t in times]
        for (label, _, _), median in zip(contenders, medians, strict=True):
            print(f"  {label:36s} {median:7.3f} s  {median / medians[0]:5.2f}x", flush=True)
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)


if __name__ == "__main__":
    main()
