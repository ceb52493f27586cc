"""A million-job log replayed under conservative backfilling and EASY (run on demand).

    python benchmarks/bench_million_jobs.py [--logs DIR] [--copies 5] [--gap-days 1]
        [--only conservative easy]

The log is HPC2N (202,876 jobs, 240 processors) repeated ``--copies`` times, each copy's
submit times shifted by the span of the log plus ``--gap-days`` and its job ids by the
largest id: five copies make 1,014,380 jobs over about 17 years. Repeating a real log keeps
its mix of sizes, estimates and busy months (the queue of HPC2N's last months reaches 2,400
jobs), which a parametric workload model would have to be fitted to; the copies differ
only where a queue left over from one copy meets the next. Each replay prints wall and
processor time, jobs per second, the cost per job against the first copy alone, and the
process's maximum resident set size (node ids not recorded).

Targets: conservative under 3 minutes, EASY under 20 s, max RSS under 1 GB.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import time
from pathlib import Path

import pandas as pd

from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import read_swf

DAY = 86400.0


def repeated_log(jobs: pd.DataFrame, copies: int, gap: float) -> pd.DataFrame:
    """``copies`` copies of ``jobs`` one after another: submit times shifted by the span of
    the log plus ``gap`` (s), job ids by the largest id, so priorities never tie."""
    span = float(jobs.submit_time.max() - jobs.submit_time.min()) + gap
    ids = int(jobs.job_id.max()) + 1
    columns = ["job_id", "submit_time", "processors", "estimate", "duration"]
    parts = [
        jobs[columns].assign(
            job_id=jobs.job_id + copy * ids, submit_time=jobs.submit_time + copy * span
        )
        for copy in range(copies)
    ]
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=Path("/work/shared/data/swf"))
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--gap-days", type=float, default=1.0)
    parser.add_argument(
        "--only", nargs="*", choices=["conservative", "easy"], default=["conservative", "easy"]
    )
    options = parser.parse_args()
    log = read_swf(options.logs / "HPC2N-2002-2.1-cln.swf.gz")
    single = log.jobs
    jobs = repeated_log(single, options.copies, options.gap_days * DAY)
    del log
    print(load())
    print(f"{len(jobs):,} jobs: HPC2N x {options.copies}, {log_days(jobs):,.0f} days", flush=True)
    for algorithm in options.only:
        costs = []
        for table in (single, jobs):
            gc.collect()
            began, cpu = time.perf_counter(), time.process_time()
            replay = replay_log(table, 240, algorithm, record_nodes=False)
            wall, cpu = time.perf_counter() - began, time.process_time() - cpu
            costs.append(cpu / len(table))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(
            f"{algorithm}: {wall:.1f} s wall, {cpu:.1f} s processor,"
            f" {len(jobs) / wall:,.0f} jobs/s;"
            f" per job {costs[1] / costs[0]:.2f}x one copy's; max RSS {rss:.0f} MB;"
            f" {replay.counters}",
            flush=True,
        )
    print(load())


def load() -> str:
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def log_days(jobs: pd.DataFrame) -> float:
    return float(jobs.submit_time.max() - jobs.submit_time.min()) / DAY


if __name__ == "__main__":
    main()
