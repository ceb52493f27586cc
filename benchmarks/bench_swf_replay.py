"""Full replays of archive logs under conservative backfilling with user estimates.

Run on demand (not in the tests):

    python benchmarks/bench_swf_replay.py [--logs DIR] [--only KTH-SP2 ...] [--baseline-jobs N]
        [--no-trace-memory]

For each log: read it (default mapping: requested processors, kill at the estimate), replay
every job under conservative backfilling with compression (processor-count profile, node ids
not recorded), and report jobs per second and peak memory (tracemalloc peak of the replay,
and the process's maximum resident set size). In the same run, the obviously-correct
reference of ``tests/workloads/reference_backfilling.py`` replays the first N jobs of each
log as a baseline, and the fast replay is timed on the same prefix (start times compared),
so ratios are measured on this machine, not quoted.

Targets (issue 7; the fastest Python peer takes about 5 s, 275 s and over 900 s here):
KTH-SP2 under 2.5 s, SDSC-BLUE under 120 s, HPC2N under 300 s, memory under 1 GB.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "workloads"))

from reference_backfilling import conservative_backfilling  # noqa: E402

from gridsim.sim.log_replay import replay_log  # noqa: E402
from gridsim.workloads.swf import read_swf  # noqa: E402

LOGS = {
    "KTH-SP2": ("KTH-SP2-1996-2.1-cln.swf.gz", 2.5),
    "SDSC-BLUE": ("SDSC-BLUE-2000-4.2-cln.swf.gz", 120.0),
    "HPC2N": ("HPC2N-2002-2.1-cln.swf.gz", 300.0),
}


def timed(function, *args, **kwargs):
    gc.collect()
    began = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - began


def bench(name: str, path: Path, target: float, baseline_jobs: int, trace_memory: bool) -> dict:
    log = read_swf(path)
    jobs, machine = log.jobs, log.machine_processors
    prefix = jobs.iloc[:baseline_jobs]
    reference, reference_time = timed(conservative_backfilling, prefix, machine)
    fast, fast_prefix_time = timed(replay_log, prefix, machine, "conservative",
                                   record_nodes=False)  # fmt: skip
    same = dict(zip(prefix.job_id.tolist(), fast.start_time.tolist(), strict=True))
    agree = same == reference.start_time
    peak_bytes = float("nan")
    if trace_memory:  # tracemalloc slows pure Python several times: a separate replay
        tracemalloc.start()
        timed(replay_log, jobs, machine, "conservative", record_nodes=False)
        _, peak_bytes = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    cpu_began = time.process_time()
    replay, elapsed = timed(replay_log, jobs, machine, "conservative", record_nodes=False)
    cpu = time.process_time() - cpu_began
    row = {
        "log": name,
        "jobs": len(jobs),
        "processors": machine,
        "replay_s": elapsed,
        "replay_cpu_s": cpu,
        "jobs_per_s": len(jobs) / elapsed,
        "target_s": target,
        "within_target": elapsed < target,
        "traced_peak_mb": peak_bytes / 2**20,
        "baseline_jobs": len(prefix),
        "reference_prefix_s": reference_time,
        "fast_prefix_s": fast_prefix_time,
        "speedup_on_prefix": reference_time / fast_prefix_time,
        "prefix_starts_agree": agree,
        **replay.counters,
    }
    for key, value in row.items():
        print(f"  {key}: {value:.4g}" if isinstance(value, float) else f"  {key}: {value}")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=Path("/work/shared/data/swf"))
    parser.add_argument("--only", nargs="*", choices=sorted(LOGS), default=sorted(LOGS))
    parser.add_argument("--baseline-jobs", type=int, default=20000)
    parser.add_argument(
        "--no-trace-memory",
        action="store_true",
        help="skip the extra replay under tracemalloc (max RSS is still printed)",
    )
    args = parser.parse_args()
    for name in [n for n in LOGS if n in args.only]:
        file, target = LOGS[name]
        print(f"{name} ({args.logs / file})", flush=True)
        bench(name, args.logs / file, target, args.baseline_jobs, not args.no_trace_memory)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(f"  process max RSS so far: {rss:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
