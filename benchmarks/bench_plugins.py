"""What running a policy as a plugin costs: guarded plugins against the same built-ins.

    .venv/bin/python benchmarks/bench_plugins.py [--jobs 200] [--repeat 5] [--repeat-exact 41]

(about 15 minutes).

The 200-job, 32-node flow of TY20 Table 2 (bench_jobflow.py's instance), with exact runtimes
and with runtimes U[0.5, 1] of the estimate (early finishes: the queue is re-planned after
each, so many more searches and guarded windows). Each pair runs the same code once as a
built-in and once named ``public_contract_policies:<Class>`` (loaded, checked and guarded as a
scenario's plugin would be):

* criterion: BFfinish written on the public contract (``InSlotOrder`` + ``WindowCriterion``)
  against the built-in BFfinish, under conservative backfilling; every window is checked
  against the profile (gridsim.selection.guard);
* scheduler: a plugin subclass of ConservativeBackfilling against the built-in, both with
  BFfinish; every announced window is checked against the guard's occupation
  (gridsim.scheduling.guard);
* both: the two plugins together.

Variants alternate within each repetition, so a change in the machine's load touches all of
them, and their order rotates from one repetition to the next, so none always runs first
(after a garbage collection, each); the median over repetitions is reported, and the ratio of
the medians. Times are the process's CPU time: on a machine shared with other work the
wall-clock time of a 30-second run wanders by ten percent from one repetition to the next
(its ratio is printed too). The exact flow
takes a third of a second, so it gets more repetitions (``--repeat-exact``): on a shared
machine single runs that short wander by several percent. Every pair must give the same job
records, else the script stops.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_jobflow import instance

from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import simulate

PLUGIN_CRITERION = "public_contract_policies:EarliestFinish"
PLUGIN_SCHEDULER = "public_contract_policies:Conservative"
#: (name, criterion, scheduler) of each variant; "built-in" is the baseline of the others.
VARIANTS = [
    ("built-in", "BFfinish", "conservative"),
    ("criterion", PLUGIN_CRITERION, "conservative"),
    ("scheduler", "BFfinish", PLUGIN_SCHEDULER),
    ("both", PLUGIN_CRITERION, PLUGIN_SCHEDULER),
]


def with_early_finishes(flow, seed: int):
    """The flow with runtime factors U[0.5, 1] (jobs end before their estimate)."""
    factors = np.random.default_rng(seed).uniform(0.5, 1.0, len(flow.jobs))
    jobs = tuple(
        replace(job, runtime_factor=float(f)) for job, f in zip(flow.jobs, factors, strict=True)
    )
    return replace(flow, jobs=jobs)


def run(flow, criterion: str, scheduler: str) -> tuple[float, float, list[dict]]:
    """CPU and wall-clock seconds of one simulation, and its job records."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    trace = simulate(flow, build_criterion(criterion), "fcfs", scheduler)
    return time.process_time() - cpu, time.perf_counter() - wall, trace.job_records()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repeat-exact", type=int, default=41)
    parser.add_argument("--seed", type=int, default=2020)
    args = parser.parse_args()
    flows = {  # name: (flow, repetitions)
        "exact runtimes": (instance(args.jobs, args.seed), args.repeat_exact),
        "runtimes U[0.5, 1]": (
            with_early_finishes(instance(args.jobs, args.seed), args.seed),
            args.repeat,
        ),
    }
    print(
        f"{args.jobs} jobs, 32 nodes, medians of alternating repetitions; CPU seconds of the "
        "process (wall-clock ratio too: it wanders with the machine's other work)"
    )
    print(f"{'flow':<20}{'repetitions':>12}  {'plugin':<11}{'built-in s':>11}{'plugin s':>10}"
          f"{'ratio':>8}{'wall ratio':>12}")  # fmt: skip
    for flow_name, (flow, repeat) in flows.items():
        if repeat < 1:
            continue
        times: dict[str, list[float]] = {name: [] for name, _, _ in VARIANTS}
        walls: dict[str, list[float]] = {name: [] for name, _, _ in VARIANTS}
        records: dict[str, list[dict]] = {}
        for repetition in range(repeat):
            shift = repetition % len(VARIANTS)
            for name, criterion, scheduler in VARIANTS[shift:] + VARIANTS[:shift]:
                cpu, wall, records[name] = run(flow, criterion, scheduler)
                times[name].append(cpu)
                walls[name].append(wall)
        for name, _, _ in VARIANTS[1:]:
            if records[name] != records["built-in"]:
                raise SystemExit(f"{flow_name}, {name}: the plugin's schedule differs")
        base = statistics.median(times["built-in"])
        base_wall = statistics.median(walls["built-in"])
        for name, _, _ in VARIANTS[1:]:
            plugin = statistics.median(times[name])
            wall = statistics.median(walls[name]) / base_wall
            print(f"{flow_name:<20}{repeat:>12}  {name:<11}{base:>11.3f}{plugin:>10.3f}"
                  f"{plugin / base:>8.3f}{wall:>12.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
