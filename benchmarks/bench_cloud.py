"""Benchmark: a full Nagano run (2e7 samples, up to 200 pilots) of the shipped cloud scenario.

Run on demand (not part of the tests): ``python benchmarks/bench_cloud.py [--repeats 5]``.
Prints the median wall time of one simulated run per policy and the ratio of each policy to
the equal-chunks run measured in the same process (the baseline), plus the literal DyTSS
fixed-point loop (no cycle shortcut) as a straightforward reference for the planner alone.
The target is under 10 s per full run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from gridsim.cloud import dytss as dytss_module
from gridsim.cloud.config import policy_label
from gridsim.cloud.simulation import simulate
from gridsim.experiments.cloud import replication_seeds
from gridsim.experiments.kinds import load_scenario

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "cloud-federation-dytss.yaml"


def _literal_chunks(
    performance_w,
    bandwidth_mb_s,
    remaining_samples,
    minimum_chunk,
    maximum_chunk,
    application,
    intervals,
    max_iterations=100,
    fit_points=128,
):
    """Algorithm 1's inner loop run to the end, without the cycle shortcut."""
    base = dytss_module.turnaround(
        minimum_chunk, performance_w, bandwidth_mb_s, application, intervals
    )
    relative = base.min() / base
    chunks = np.full(len(performance_w), minimum_chunk, dtype=np.int64)
    for iteration in range(1, max_iterations + 1):
        times = dytss_module.turnaround(
            chunks, performance_w, bandwidth_mb_s, application, intervals
        )
        half = dytss_module.half_performance_length(times, chunks, remaining_samples, fit_points)
        new = np.minimum(
            maximum_chunk, np.floor(remaining_samples / (4 * half) * relative + minimum_chunk)
        )
        new = new.astype(np.int64)
        if np.array_equal(new, chunks):
            return chunks, iteration
        chunks = new
    return chunks, max_iterations


def _time(scenario, policy, seeds, repeats):
    times, makespans = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        record = simulate(scenario, policy, *seeds)
        times.append(time.perf_counter() - start)
        makespans.append(record.makespan_s)
    assert record.samples_completed == scenario.application.total_samples
    return statistics.median(times), makespans[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    scenario, _text = load_scenario(SCENARIO)
    seeds = replication_seeds(np.random.SeedSequence([scenario.seed, 0]))
    print(
        f"{scenario.application.total_samples:.0e} samples, up to "
        f"{scenario.framework.max_pilots} pilots, median of {options.repeats} runs"
    )
    baseline = None
    for policy in scenario.policies:
        median, makespan = _time(scenario, policy, seeds, options.repeats)
        baseline = median if baseline is None else baseline
        print(
            f"  {policy_label(policy):24s} {median:6.2f} s  ({median / baseline:4.2f}x "
            f"equal chunks)  simulated makespan {makespan / 3600:5.2f} h"
        )
    dytss = [p for p in scenario.policies if p.name == "DyTSS"]
    if dytss:
        fast = dytss_module.dytss_chunks
        dytss_module.dytss_chunks = _literal_chunks
        try:
            median, _ = _time(scenario, dytss[0], seeds, max(1, options.repeats // 2))
        finally:
            dytss_module.dytss_chunks = fast
        print(
            f"  {'DyTSS, literal loop':24s} {median:6.2f} s  ({median / baseline:4.2f}x "
            "equal chunks)  reference without the cycle shortcut"
        )


if __name__ == "__main__":
    main()
