"""Window search speed on the 100-node environment of [TY18, Sec. 4.1] (run on demand).

Prints the median time per search of every criterion over the same instances (wall clock and
processor time: the processor time is less disturbed by other work on a shared machine), each
Lite criterion's time against its exact version's, and for the exact criteria (MaxQ, DEP, COORD)
the ratio of the straightforward implementation of the paper's loops
(``straightforward_window_search.py``, measured in the same run) to gridsim's search, with a
check that both find the same value.

    python benchmarks/bench_window_search.py [--instances 20] [--reference-instances 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from gridsim.model import Request
from gridsim.selection.registry import CRITERIA, build_criterion
from gridsim.workloads.environment import EnvironmentSpec, generate_environment

sys.path.insert(0, str(Path(__file__).resolve().parent))
from straightforward_window_search import straightforward_search

REQUEST = Request(n=7, volume=800, budget=644, min_performance=1)


def timed(function, *args):
    began = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - began


def timed_both(function, *args) -> tuple[float, float]:
    """(wall, processor) seconds of one call."""
    wall, processor = time.perf_counter(), time.process_time()
    function(*args)
    return time.perf_counter() - wall, time.process_time() - processor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--reference-instances", type=int, default=20)
    args = parser.parse_args()
    profiles = [
        generate_environment(EnvironmentSpec(), np.random.default_rng(seed)).profile()
        for seed in range(args.instances)
    ]
    print(f"{args.instances} instances, 100 nodes, n=7, V=800, C=644; ms per search\n")
    print(f"{'criterion':<28}{'median':>10}{'max':>10}{'cpu median':>12}")
    medians = {}
    for name in CRITERIA:
        criterion = build_criterion(name)
        wall, cpu = zip(*(timed_both(criterion.search, p, REQUEST) for p in profiles), strict=True)
        medians[name] = statistics.median(cpu)
        print(
            f"{criterion.label:<28}{1e3 * statistics.median(wall):>10.2f}"
            f"{1e3 * max(wall):>10.2f}{1e3 * medians[name]:>12.2f}"
        )
    print("\nLite against exact (processor-time medians): exact / Lite")
    for exact in ("MaxQ", "DEP", "COORD"):
        print(f"{exact + 'Lite':<10}{medians[exact] / medians[exact + 'Lite']:>8.2f}")
    print(f"\nexact search vs the straightforward loops ({args.reference_instances} instances)")
    print(f"{'criterion':<10}{'gridsim ms':>12}{'straightforward ms':>20}{'ratio':>8}{'same':>6}")
    for name in ("MaxQ", "DEP", "COORD"):
        criterion = build_criterion(name)
        fast, slow, same = [], [], True
        for profile in profiles[: args.reference_instances]:
            window, elapsed = timed(criterion.search, profile, REQUEST)
            reference, reference_elapsed = timed(straightforward_search, profile, REQUEST, name)
            fast.append(elapsed)
            slow.append(reference_elapsed)
            same &= abs(window.criterion_value - reference[0]) <= 1e-6 * max(1, abs(reference[0]))
        ratio = statistics.median(slow) / statistics.median(fast)
        print(
            f"{name:<10}{1e3 * statistics.median(fast):>12.1f}"
            f"{1e3 * statistics.median(slow):>20.0f}{ratio:>8.0f}{'yes' if same else 'NO':>6}"
        )


if __name__ == "__main__":
    main()
