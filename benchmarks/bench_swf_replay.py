"""Full replays of archive logs under conservative backfilling with user estimates.

Run on demand (not in the tests):

    python benchmarks/bench_swf_replay.py [--logs DIR] [--only KTH-SP2 ...] [--repeat 3]
        [--baseline-jobs N] [--reference-jobs N] [--prefix-jobs 50000] [--trace-memory]

For each log (default mapping: requested processors, kill at the estimate; node ids not
recorded), in one process and one run:

* gridsim's replay of the whole log (median of ``--repeat`` runs, wall and processor time),
  its work counters and the process's maximum resident set size;
* the baseline, the replay as it was before merged profile steps and skipped compression
  checks (``tests/workloads/scan_conservative.py``), on the whole log (or its first
  ``--baseline-jobs``): the speed-up ratio, and whether every start time and every first
  reservation is identical;
* the obviously-correct reference of ``tests/workloads/reference_backfilling.py`` on the first
  ``--reference-jobs`` jobs (start times compared);
* gridsim's replay of the first ``--prefix-jobs`` jobs: cost per job of the whole log over
  the cost per job of the prefix (1 if the cost grows linearly with the log).

The load average of the machine is printed before and after: absolute times are only
comparable under the same load, ratios are measured in the same run.

Targets: KTH-SP2 at least 3x faster than the baseline, HPC2N under 20 s, SDSC-BLUE under 15 s,
HPC2N's cost per job within 1.5x of its first 50,000 jobs', memory under 1 GB.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "workloads"))

from reference_backfilling import conservative_backfilling  # noqa: E402
from scan_conservative import ScanConservative  # noqa: E402

from gridsim.sim.log_replay import replay_log  # noqa: E402
from gridsim.workloads.swf import read_swf  # noqa: E402

LOGS = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.1-cln.swf.gz",
}


def timed(function, *args, **kwargs):
    """(result, wall seconds, processor seconds) of one call."""
    gc.collect()
    began, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - began, time.process_time() - cpu


def load() -> str:
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def bench(path: Path, options: argparse.Namespace) -> None:
    log = read_swf(path)
    jobs, machine = log.jobs, log.machine_processors
    runs = [
        timed(replay_log, jobs, machine, "conservative", record_nodes=False)
        for _ in range(options.repeat)
    ]
    replay = runs[0][0]
    wall = statistics.median(run[1] for run in runs)
    cpu = statistics.median(run[2] for run in runs)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"  jobs: {len(jobs)}, processors: {machine}")
    print(f"  gridsim: {wall:.2f} s wall, {cpu:.2f} s processor (median of {len(runs)})")
    print(f"  jobs per second: {len(jobs) / wall:,.0f}; counters: {replay.counters}")
    print(f"  process max RSS so far: {rss:.0f} MB", flush=True)
    if options.trace_memory:  # tracemalloc slows pure Python several times: a separate run
        tracemalloc.start()
        replay_log(jobs, machine, "conservative", record_nodes=False)
        print(f"  traced peak: {tracemalloc.get_traced_memory()[1] / 2**20:.0f} MB")
        tracemalloc.stop()

    baseline_jobs = options.baseline_jobs or len(jobs)
    subset = jobs.iloc[:baseline_jobs]
    fast, fast_wall, fast_cpu = (replay, wall, cpu) if baseline_jobs >= len(jobs) else timed(
        replay_log, subset, machine, "conservative", record_nodes=False
    )  # fmt: skip
    base, base_wall, base_cpu = timed(
        replay_log, subset, machine, ScanConservative, record_nodes=False
    )
    same_starts = np.array_equal(base.start_time, fast.start_time)
    same_first = np.array_equal(base.first_reservation, fast.first_reservation)
    print(
        f"  baseline on {len(subset)} jobs: {base_wall:.2f} s wall, {base_cpu:.2f} s processor;"
        f" ratio {base_wall / fast_wall:.2f} (wall), {base_cpu / fast_cpu:.2f} (processor)"
    )
    print(f"  every start time identical: {same_starts}; every first reservation: {same_first}")
    print(f"  baseline counters: {base.counters}", flush=True)

    prefix = jobs.iloc[: options.reference_jobs]
    reference, reference_wall, _ = timed(conservative_backfilling, prefix, machine)
    fast, fast_wall, _ = timed(replay_log, prefix, machine, "conservative", record_nodes=False)
    agree = dict(zip(prefix.job_id.tolist(), fast.start_time.tolist(), strict=True))
    print(
        f"  reference on {len(prefix)} jobs: {reference_wall:.2f} s, gridsim {fast_wall:.3f} s;"
        f" start times agree: {agree == reference.start_time}"
    )

    if options.prefix_jobs < len(jobs):
        prefix = jobs.iloc[: options.prefix_jobs]
        _, prefix_wall, prefix_cpu = timed(
            replay_log, prefix, machine, "conservative", record_nodes=False
        )
        growth = (cpu / len(jobs)) / (prefix_cpu / len(prefix))
        print(
            f"  first {len(prefix)} jobs: {prefix_wall:.2f} s ({1e6 * prefix_cpu / len(prefix):.0f}"
            f" us per job), whole log {1e6 * cpu / len(jobs):.0f} us per job: {growth:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=Path("/work/shared/data/swf"))
    parser.add_argument("--only", nargs="*", choices=sorted(LOGS), default=sorted(LOGS))
    parser.add_argument("--repeat", type=int, default=3, help="runs of gridsim's replay")
    parser.add_argument("--baseline-jobs", type=int, default=0, help="0: the whole log")
    parser.add_argument("--reference-jobs", type=int, default=5000)
    parser.add_argument("--prefix-jobs", type=int, default=50000)
    parser.add_argument("--trace-memory", action="store_true", help="one more run, traced")
    options = parser.parse_args()
    print(load(), flush=True)
    for name in [n for n in LOGS if n in options.only]:
        print(f"{name} ({options.logs / LOGS[name]})", flush=True)
        bench(options.logs / LOGS[name], options)
        print(f"  {load()}", flush=True)


if __name__ == "__main__":
    main()
