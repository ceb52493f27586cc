"""Time one batch cycle of 7 jobs on 150 slots: alternatives (ALP, AMP) and the DP choices.

Run on demand (not a test): ``python benchmarks/bench_batch.py [--cycles 200]``. Prints median
milliseconds per cycle for gridsim's implementation and, as the baseline measured in the same
run, for the straightforward list-based reference kept in ``tests/batch/batch_reference.py``
(same DP), and their ratio. The target is under 50 ms per cycle.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from gridsim.scheduling.batch import (
    SEARCHES,
    budget_limit,
    find_alternatives,
    minimise_cost,
    minimise_time,
    time_limit,
)
from gridsim.workloads.batch_generators import (
    BatchParameters,
    SlotListParameters,
    generate_batch,
    generate_slot_list,
)

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "batch"))
from batch_reference import reference_cycle


def choose(pairs: list[list[tuple[float, float]]]) -> None:
    """Both goals of the paper: T*, B*, then min time under B* and min cost under T*."""
    if not all(pairs):
        return
    limit = time_limit(pairs)
    budget = budget_limit(pairs, limit)
    minimise_cost(pairs, limit)
    if budget is not None:
        minimise_time(pairs, budget)


def gridsim_policy(profile, jobs, name: str) -> int:
    alternatives = find_alternatives(profile, jobs, SEARCHES[name])
    choose([[(w.cost, w.time) for w in windows] for windows in alternatives])
    return sum(map(len, alternatives))


def gridsim_cycle(profile, jobs) -> int:
    return sum(gridsim_policy(profile, jobs, name) for name in SEARCHES)


def reference(profile, jobs) -> int:
    found = 0
    for price_capped in (True, False):
        alternatives = reference_cycle(profile, jobs, price_capped)
        pairs = [
            [(sum(task[2] for task in tasks), max(task[1] for task in tasks)) for _, tasks in job]
            for job in alternatives
        ]
        choose(pairs)
        found += sum(map(len, alternatives))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    rng = np.random.default_rng(options.seed)
    slots = SlotListParameters(count=(150, 150))
    batch = BatchParameters(count=(7, 7))
    instances = [
        (generate_slot_list(rng, slots), generate_batch(rng, batch)) for _ in range(options.cycles)
    ]
    runs = {
        "ALP only": lambda profile, jobs: gridsim_policy(profile, jobs, "ALP"),
        "AMP only": lambda profile, jobs: gridsim_policy(profile, jobs, "AMP"),
        "gridsim": gridsim_cycle,
        "reference": reference,
    }
    timings: dict[str, list[float]] = {name: [] for name in runs}
    for profile, jobs in instances:
        for name, run in runs.items():
            begin = time.perf_counter()
            run(profile, jobs)
            timings[name].append((time.perf_counter() - begin) * 1000)
    medians = {name: statistics.median(values) for name, values in timings.items()}
    print(f"{options.cycles} cycles of 7 jobs on 150 slots (alternatives + DP)")
    print("  gridsim and reference: ALP and AMP together, as the experiment runs them")
    for name, value in medians.items():
        worst = max(timings[name])
        print(f"  {name:9s} median {value:7.2f} ms  max {worst:7.2f} ms")
    print(f"  reference / gridsim = {medians['reference'] / medians['gridsim']:.2f}")


if __name__ == "__main__":
    main()
