"""Lite searches with and without the step bounds that skip steps, in one process.

    python benchmarks/bench_step_bounds.py [--rounds 16] [--criteria MaxQLite,DEPLite,COORDLite]

The baseline is the search as it was before the bounds (gridsim/selection/block_bounds.py):
the same criterion with ``step_bounds`` returning None, so that every step of every visited
slowest slot is evaluated, with steps evaluated ahead up to 8 times the sigmas evaluated before
(now 16).
Both run over the 20 instances of ``bench_window_search.py`` in alternation (the order swapped
every round), so that both see the same load; separate processes differ by up to 10% on a
shared machine with the same code. Prints the medians of the rounds' processor-time medians,
their ratio, the steps evaluated by each, and checks that both find the same window, to the
last bit, on every instance.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import gridsim.selection.steps as steps
from gridsim.model import Request
from gridsim.selection.criteria import CRITERIA
from gridsim.workloads.environment import EnvironmentSpec, generate_environment

REQUEST = Request(n=7, volume=800, budget=644, min_performance=1)


#: Steps evaluated ahead (steps._AHEAD) by each version.
AHEAD = {"all steps": 8, "bounded": steps._AHEAD}


def without_bounds(cls: type) -> type:
    """The criterion evaluating every step (not registered)."""
    return type(cls.__name__, (cls,), {"step_bounds": lambda self, step, count: None})


def steps_evaluated(criterion, profiles, ahead: int) -> int:
    """Rows evaluated by the criterion over the profiles (counted at the row scoring)."""
    steps._AHEAD = ahead
    counted = [0]
    score = steps._score_cheapest

    def counting(step, count, row_values):
        counted[0] += len(step.start)
        return score(step, count, row_values)

    steps._score_cheapest = counting
    try:
        for profile in profiles:
            criterion.search(profile, REQUEST)
    finally:
        steps._score_cheapest = score
    return counted[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--criteria", default="MaxQLite,DEPLite,COORDLite")
    options = parser.parse_args()
    names = options.criteria.split(",")
    profiles = [
        generate_environment(EnvironmentSpec(), np.random.default_rng(seed)).profile()
        for seed in range(20)
    ]
    versions = {
        "all steps": {name: without_bounds(CRITERIA[name]) for name in names},
        "bounded": {name: CRITERIA[name] for name in names},
    }
    medians: dict[tuple[str, str], list[float]] = {(v, n): [] for v in versions for n in names}
    for round_ in range(options.rounds):
        order = list(versions) if round_ % 2 == 0 else list(versions)[::-1]
        for name in names:
            for version in order:
                steps._AHEAD = AHEAD[version]
                criterion = versions[version][name]()
                spent = []
                for profile in profiles:
                    began = time.process_time()
                    criterion.search(profile, REQUEST)
                    spent.append(time.process_time() - began)
                medians[(version, name)].append(statistics.median(spent))
    for name in names:
        before = statistics.median(medians[("all steps", name)])
        now = statistics.median(medians[("bounded", name)])
        windows = []
        for version in versions:
            steps._AHEAD = AHEAD[version]
            windows.append([versions[version][name]().search(p, REQUEST) for p in profiles])
        same = all(
            (a.start, a.runtime, a.nodes, a.slots, a.cost, a.criterion_value)
            == (b.start, b.runtime, b.nodes, b.slots, b.cost, b.criterion_value)
            for a, b in zip(*windows, strict=True)
        )
        rows = [steps_evaluated(versions[v][name](), profiles, AHEAD[v]) for v in versions]
        print(
            f"{name:<10} all steps {1e3 * before:.2f} ms  bounded {1e3 * now:.2f} ms"
            f"  all / bounded {before / now:.2f}  steps {rows[0]} / {rows[1]}"
            f"  same windows: {'yes' if same else 'NO'}"
        )


if __name__ == "__main__":
    main()
