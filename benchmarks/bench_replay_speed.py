"""Replay speed: jobs per second of the compiled core and of the Python planners (on demand).

    nice python benchmarks/bench_replay_speed.py [--logs DIR] [--only KTH-SP2 HPC2N ...]
        [--algorithms fcfs easy conservative] [--repeat 3] [--python-repeat 1]
        [--copies 5] [--process-repeat 3] [--node-logs KTH-SP2 HPC2N] [--node-jobs 0]
        [--node-policies BFfinish CoP] [--node-repeat 1]

For each archive log (and the million-job log: HPC2N repeated ``--copies`` times, as
``bench_million_jobs.py`` builds it), under FCFS, EASY and conservative backfilling (requested
processors, kill at the estimate, node ids not recorded), in one process:

* the compiled replay (``replay_log`` with the scheduler's name) ``--repeat`` times and the
  Python planners (the scheduler classes of ``gridsim.scheduling.log_schedulers``)
  ``--python-repeat`` times, interleaved; medians of processor time (ratios) and wall time;
* whether every start time and first reservation is the same on both paths;
* the process's maximum resident set size after each log.

Then the whole process, ``gridsim run swf-replay`` of whole KTH-SP2 under conservative
backfilling writing its results (compiled, and with ``GRIDSIM_PURE_PYTHON=1``), and the time
from the process's start to its first replayed job on the bundled excerpt (medians of
``--process-repeat``; processor time of the child, and wall time, which on a loaded machine
counts the wait for a core too).

Node-level replays (``--node-logs``; ``--node-jobs N``: the first N jobs, 0: the whole log):
KTH-SP2 on 60 reference and 40 faster nodes, HPC2N on 144 + 96 (the machines of
``scenarios/swf-replay-kth-nodes.yaml`` and ``swf-replay-hpc2n-nodes.yaml``), conservative
backfilling under each of ``--node-policies``, the planners run on the log's jobs: with the
compiled node-level core (the window search of BFstart, BFfinish, CoP and PAST, the
profile's table patches, the re-planning test) and with ``GRIDSIM_PURE_PYTHON=1``,
interleaved (``--node-repeat`` times each), processor times, the ratio, and whether every
job's start, finish, nodes, first promise, delay and cost are the same.

pyss, a Python 2 program, is run beside gridsim by ``bench_pyss.py`` (given a pyss checkout
and a Python 2).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gridsim.core.optional import PURE_PYTHON_ENV
from gridsim.core.replay import compiled
from gridsim.core.search import compiled as compiled_search
from gridsim.scheduling.log_schedulers import ALGORITHMS, SCHEDULERS
from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import read_swf

LOGS = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.1-cln.swf.gz",
    "million": "HPC2N-2002-2.1-cln.swf.gz",  # repeated --copies times
}
DAY = 86400.0

#: Run in a child: the time when the first replay starts (the replay itself is not run), and
#: whether pandas was imported by then.
FIRST_JOB = """
import sys, time
import gridsim.sim.log_replay as replay
def first(*args, **kwargs):
    print(time.time(), "pandas" in sys.modules, flush=True)
    raise SystemExit(0)
replay.replay_log = first
from gridsim.cli import main
main(["run", "swf-replay", "-q", "-o", sys.argv[1]])
"""


def timed(function, *args, **kwargs):
    """(result, wall s, processor s) of one call."""
    gc.collect()
    began, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - began, time.process_time() - cpu


def repeated_log(jobs, copies: int):
    """HPC2N ``copies`` times one after another, a day apart (as bench_million_jobs.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_million_jobs import repeated_log as repeat

    return repeat(jobs, copies, DAY)


def bench_log(name: str, jobs, machine: int, options: argparse.Namespace) -> None:
    print(f"{name}: {len(jobs):,} jobs, {machine} processors", flush=True)
    for algorithm in options.algorithms:
        fast_runs, python_runs = [], []
        for k in range(max(options.repeat, options.python_repeat)):  # interleaved
            if k < options.repeat:
                fast_runs.append(timed(replay_log, jobs, machine, algorithm, record_nodes=False))
            if k < options.python_repeat:
                python_runs.append(
                    timed(replay_log, jobs, machine, SCHEDULERS[algorithm], record_nodes=False)
                )
        cpu = statistics.median(run[2] for run in fast_runs)
        wall = statistics.median(run[1] for run in fast_runs)
        line = (
            f"  {algorithm:>12}: compiled {cpu:.3f} s processor ({wall:.3f} s wall),"
            f" {len(jobs) / cpu:,.0f} jobs/s"
        )
        if python_runs:
            python_cpu = statistics.median(run[2] for run in python_runs)
            fast, slow = fast_runs[0][0], python_runs[0][0]
            same = np.array_equal(fast.start_time, slow.start_time) and np.array_equal(
                fast.first_reservation, slow.first_reservation, equal_nan=True
            )
            line += (
                f"; Python {python_cpu:.2f} s, {len(jobs) / python_cpu:,.0f} jobs/s;"
                f" ratio {python_cpu / cpu:.1f}; every start time identical: {same}"
            )
        print(line, flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"  process max RSS so far: {rss:.0f} MB", flush=True)


NODE_CLASSES = {"KTH-SP2": (60, 40), "HPC2N": (144, 96)}  # reference and 1.5x faster nodes


def bench_node_level(name: str, log, options: argparse.Namespace) -> None:
    """Node-level conservative replays, the compiled core against the Python path."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from node_replay_cases import schedule

    from gridsim.experiments.swf_replay_nodes import node_level_instance
    from gridsim.selection.registry import build_criterion
    from gridsim.workloads.platform import LogPlatformConfig, NodeClass, log_platform

    reference, fast = NODE_CLASSES[name]
    classes = LogPlatformConfig(node_classes=[NodeClass(count=reference, performance=1.0,
        price=1.0), NodeClass(count=fast, performance=1.5, price=2.0)])  # fmt: skip
    jobs = log.jobs if not options.node_jobs else log.jobs.iloc[: options.node_jobs]
    instance = node_level_instance(jobs.reset_index(drop=True), log_platform(None, classes))
    print(f"{name} node level: {len(jobs):,} jobs on {reference} + {fast} nodes", flush=True)
    for policy in options.node_policies:
        criterion = build_criterion(policy)
        runs: dict[str, list] = {"0": [], "1": []}
        for _ in range(options.node_repeat):
            for switch in ("1", "0"):  # Python first: it never runs on caches the other warmed
                os.environ[PURE_PYTHON_ENV] = switch
                runs[switch].append(timed(schedule, instance, criterion, "conservative"))
        os.environ.pop(PURE_PYTHON_ENV)
        cpu = {k: statistics.median(run[2] for run in v) for k, v in runs.items()}
        wall = statistics.median(run[1] for run in runs["0"])
        same = runs["0"][0][0].equals(runs["1"][0][0])
        print(
            f"  {policy:>12}: compiled {cpu['0']:.1f} s processor ({wall:.1f} s wall),"
            f" {len(jobs) / cpu['0']:,.0f} jobs/s; Python {cpu['1']:.1f} s,"
            f" {len(jobs) / cpu['1']:,.0f} jobs/s; ratio {cpu['1'] / cpu['0']:.2f};"
            f" every job's schedule identical: {same}",
            flush=True,
        )


def child_run(arguments: list[str], environment: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, processor s, stdout) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.time()
    done = subprocess.run(arguments, env=environment, capture_output=True, text=True, check=True)
    wall = time.time() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.stdout


def bench_processes(logs: Path, repeat: int) -> None:
    kth = str(logs / LOGS["KTH-SP2"])
    with tempfile.TemporaryDirectory() as scratch:
        for label, switch in (("compiled", "0"), ("Python", "1")):
            environment = {**os.environ, PURE_PYTHON_ENV: switch}
            runs = []
            for k in range(repeat):
                command = [
                    sys.executable, "-c", "from gridsim.cli import main; main()",
                    "run", "swf-replay", "--log", kth,
                    "--set", "schedulers=[conservative]", "--set", "record_nodes=false",
                    "-q", "-o", f"{scratch}/{label}{k}",
                ]  # fmt: skip
                runs.append(child_run(command, environment))
            print(
                f"whole process, gridsim run swf-replay of KTH-SP2 (conservative), {label}:"
                f" {statistics.median(r[0] for r in runs):.2f} s wall,"
                f" {statistics.median(r[1] for r in runs):.2f} s processor",
                flush=True,
            )
        first = []
        for k in range(repeat):
            began = time.time()
            _, cpu, out = child_run(
                [sys.executable, "-c", FIRST_JOB, f"{scratch}/first{k}"], dict(os.environ)
            )
            stamp, pandas = out.split()
            first.append((float(stamp) - began, cpu, pandas == "True"))
        print(
            "start to first replayed job (bundled excerpt, gridsim run swf-replay):"
            f" {statistics.median(f[0] for f in first):.3f} s wall,"
            f" {statistics.median(f[1] for f in first):.3f} s processor (whole child);"
            f" pandas imported by then: {any(f[2] for f in first)}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=Path("/work/shared/data/swf"))
    parser.add_argument("--only", nargs="*", choices=list(LOGS), default=list(LOGS))
    parser.add_argument("--algorithms", nargs="*", choices=ALGORITHMS, default=list(ALGORITHMS))
    parser.add_argument("--repeat", type=int, default=3, help="runs of the compiled replay")
    parser.add_argument("--python-repeat", type=int, default=1, help="0: compiled only")
    parser.add_argument("--copies", type=int, default=5, help="HPC2N copies of the million log")
    parser.add_argument("--process-repeat", type=int, default=3, help="0: no process runs")
    parser.add_argument("--node-logs", nargs="*", choices=list(NODE_CLASSES), default=[])
    parser.add_argument("--node-policies", nargs="*", default=["BFfinish", "CoP"])
    parser.add_argument("--node-jobs", type=int, default=0, help="first N jobs; 0: whole log")
    parser.add_argument("--node-repeat", type=int, default=1)
    options = parser.parse_args()
    if compiled() is None:
        raise SystemExit(f"the compiled core is not available (or {PURE_PYTHON_ENV} is set)")
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)
    for name in options.only:
        log = read_swf(options.logs / LOGS[name])
        jobs = repeated_log(log.jobs, options.copies) if name == "million" else log.jobs
        bench_log(name, jobs, log.machine_processors, options)
    if options.node_logs and compiled_search() is None:
        raise SystemExit("the compiled window search is not available")
    for name in options.node_logs:
        bench_node_level(name, read_swf(options.logs / LOGS[name]), options)
    if options.process_repeat:
        bench_processes(options.logs, options.process_repeat)
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)


if __name__ == "__main__":
    main()
