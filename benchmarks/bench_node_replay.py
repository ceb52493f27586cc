"""Node-level replays of KTH-SP2 on heterogeneous nodes against the reference planners.

Run on demand (not in the tests):

    python benchmarks/bench_node_replay.py [--jobs 2000] [--repeat 3] [--policies BFfinish]
        [--schedulers conservative] [--full] [--full-policies BFfinish CoP] [--log FILE]

On 60 reference nodes and 40 nodes 1.5x faster at twice the price (the machine of
``scenarios/swf-replay-heterogeneous.yaml``), in one process and one run:

* KTH-SP2's first ``--jobs`` jobs (the bundled excerpt) under each scheduler and policy, with
  gridsim's planners and with the reference (``tests/reference_node_planners.py``, the planning
  before the incremental replay), alternating, ``--repeat`` times each: median wall and
  processor times, the ratio reference / gridsim, and whether every job's schedule (start,
  finish, nodes, first promise, delay, cost) is identical;
* with ``--full``: the whole log (``--log``, default the archive's KTH-SP2) under
  conservative backfilling with each of ``--full-policies``, once: wall and processor time,
  cost per job against the first ``--jobs`` jobs' (median run above, or measured here), and
  the process's maximum resident set size.

The load average is printed before and after: the machine is shared, absolute times are
only comparable under the same load; ratios are measured in the same run.

Targets: conservative BFfinish on the first 2,000 jobs at least 10x faster than the
reference; the full KTH-SP2 log under 3 minutes each with BFfinish and CoP; cost per job on
the full log within 2x of the first 2,000 jobs'; memory under 1 GB.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from node_replay_cases import KTH_CLASSES, kth_flow, schedule  # noqa: E402

from gridsim.experiments.swf_replay_nodes import node_level_instance  # noqa: E402
from gridsim.selection.registry import build_criterion  # noqa: E402
from gridsim.workloads.platform import log_platform  # noqa: E402
from gridsim.workloads.swf import read_swf  # noqa: E402

KTH = Path("/work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz")


def timed(function, *args, **kwargs):
    """(result, wall seconds, processor seconds) of one call."""
    gc.collect()
    began, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - began, time.process_time() - cpu


def load() -> str:
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def compare(instance, scheduler: str, policy: str, repeat: int) -> tuple[float, float]:
    """Reference and gridsim alternating; prints medians and ratios; gridsim's median
    (wall, processor) seconds."""
    criterion = build_criterion(policy)
    runs = {"gridsim": [], "reference": []}
    results = {}
    for _ in range(repeat):
        for name in ("reference", "gridsim"):
            result, wall, cpu = timed(
                schedule, instance, criterion, scheduler, reference=name == "reference"
            )
            runs[name].append((wall, cpu))
            results[name] = result
    wall = {name: statistics.median(w for w, _ in times) for name, times in runs.items()}
    cpu = {name: statistics.median(c for _, c in times) for name, times in runs.items()}
    try:
        pd.testing.assert_frame_equal(results["gridsim"], results["reference"], check_exact=True)
        same = True
    except AssertionError:
        same = False
    print(
        f"  {scheduler:12} {policy:9} gridsim {wall['gridsim']:6.2f} s wall"
        f" {cpu['gridsim']:6.2f} s processor; reference {wall['reference']:6.2f} s wall"
        f" {cpu['reference']:6.2f} s processor; ratio {wall['reference'] / wall['gridsim']:5.1f}"
        f" (wall) {cpu['reference'] / cpu['gridsim']:5.1f} (processor);"
        f" every schedule identical: {same}",
        flush=True,
    )
    return wall["gridsim"], cpu["gridsim"]


def full_log(path: Path, policy: str, prefix_jobs: int, prefix_cpu: float | None) -> None:
    """The whole log once under conservative backfilling; cost per job against the prefix."""
    log = read_swf(path)
    platform = log_platform(log.machine_processors, KTH_CLASSES)
    instance = node_level_instance(log.jobs, platform)
    criterion = build_criterion(policy)
    if prefix_cpu is None:
        prefix = node_level_instance(log.jobs.iloc[:prefix_jobs], platform)
        _, _, prefix_cpu = timed(schedule, prefix, criterion, "conservative")
    result, wall, cpu = timed(schedule, instance, criterion, "conservative")
    jobs = len(instance.jobs)
    growth = (cpu / jobs) / (prefix_cpu / prefix_jobs)
    per_job, prefix_per_job = 1e3 * cpu / jobs, 1e3 * prefix_cpu / prefix_jobs
    finished = int((result.final_state == "finished").sum())
    print(
        f"  full log, conservative {policy}: {jobs} jobs ({finished} finished), {wall:.1f} s"
        f" wall, {cpu:.1f} s processor; {per_job:.2f} ms per job against {prefix_per_job:.2f}"
        f" on the first {prefix_jobs}: {growth:.2f}x; max RSS so far {rss_mb():.0f} MB",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--schedulers", nargs="*", default=["conservative"])
    parser.add_argument("--policies", nargs="*", default=["BFfinish"])
    parser.add_argument("--full", action="store_true", help="also replay the whole log")
    parser.add_argument("--full-policies", nargs="*", default=["BFfinish", "CoP"])
    parser.add_argument("--log", type=Path, default=KTH)
    options = parser.parse_args()
    print(load(), flush=True)
    instance = kth_flow(options.jobs)
    print(f"KTH-SP2, first {options.jobs} jobs (median of {options.repeat}, alternating)")
    measured = {}
    for scheduler in options.schedulers:
        for policy in options.policies:
            measured[scheduler, policy] = compare(instance, scheduler, policy, options.repeat)
    print(f"  max RSS so far {rss_mb():.0f} MB; {load()}", flush=True)
    if options.full:
        print(f"{options.log.name}, whole log")
        for policy in options.full_policies:
            prefix = measured.get(("conservative", policy))
            full_log(options.log, policy, options.jobs, None if prefix is None else prefix[1])
        print(f"  {load()}", flush=True)


if __name__ == "__main__":
    main()
