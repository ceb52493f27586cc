"""gridsim's log replay against pyss, on the same machine and the same jobs (run on demand).

    nice python benchmarks/bench_pyss.py --pyss DIR [--python2 PATH] [--logs DIR]
        [--only KTH-SP2 SDSC-BLUE HPC2N] [--first N] [--algorithms conservative easy]
        [--repeat 3] [--process-repeat 3]

pyss is the Python 2 scheduling simulator of the Parallel Workloads Archive community
(``src/base``, ``src/schedulers``: conservative and EASY backfilling on SWF logs); it is not
part of gridsim and is never imported by it. ``--pyss DIR`` is a checkout of it (the
repository or its ``src`` folder), ``--python2 PATH`` a Python 2.7 interpreter (default:
``python2`` on the PATH). pyss runs with ``-O``, as its own notes advise: its asserts (one
scans the whole event heap at every insertion) are then skipped.

Both simulators replay the same jobs. pyss reads the SWF file itself and turns each line into
a job its own way (allocated processors clipped to the machine; estimate max(requested time,
run time, 1); run time max(min(requested time, run time), 1); a line with no run time, no
processors or no submit time becomes a one-second job); gridsim replays a jobs table built
from the same fields by the same rules (:func:`pyss_jobs`), so the work is identical and
every difference in start times comes from the two schedulers.

Per log and scheduler, ``--repeat`` rounds, each running in turn (interleaved):

* gridsim's compiled replay and its Python planners in this process (``replay_log``, jobs
  ending at one instant handed over separately, as pyss handles each completion as an event
  of its own; node ids not recorded): processor time of the call only;
* pyss in a child: a driver script (written by this benchmark into a temporary folder)
  parses the file with pyss's parser, then builds pyss's ``Simulator`` and runs it; it
  reports the processor time of the simulation (construction and ``run()``, parsing
  excluded and reported apart) from ``getrusage`` (Python 2 has no ``process_time``), and
  writes every job's start time for the comparison, after the timing.

The medians of the rounds give the ratios. Then the start times are compared job by job:
pyss against gridsim's compiled replay in both same-instant orders and, under conservative
backfilling, against the Python planner with pyss's compression rule (a pass after every
completion, :class:`CompressAtEveryCompletion`). docs/swf.md says where the two differ.

Whole processes (``--process-repeat`` rounds, interleaved; processor time of the child from
``getrusage``, wall time beside it): pyss's own command line (``run_simulator.py
--scheduler ConservativeScheduler``, which parses, simulates and prints its statistics) on
the decompressed log, and ``gridsim run swf-replay`` of the gzipped log under conservative
backfilling with pyss's processor convention (``workload.mapping.processors=allocated``,
``larger_than_machine=clip``), writing its results, and a ``python -c`` script that does what
pyss's command does (``read_swf``, ``replay_log``, print the mean wait).
"""

from __future__ import annotations

import argparse
import gc
import gzip
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd

from gridsim.core.replay import compiled
from gridsim.scheduling.log_schedulers import SCHEDULERS, Conservative
from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import read_swf_records

LOGS = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.1-cln.swf.gz",
}
PYSS_SCHEDULERS = {"conservative": "ConservativeScheduler", "easy": "EasyBackfillScheduler"}
PYSS_MODULES = {"conservative": "conservative_scheduler", "easy": "easy_scheduler"}

#: Python 2 driver, run as ``python2 -O driver.py SRC LOG PROCESSORS STARTS_OUT``.
DRIVER = """
import resource, sys
sys.path.insert(0, sys.argv[1])
from base.workload_parser import parse_lines
from base.prototype import _job_inputs_to_jobs
from schedulers.simulator import Simulator
from schedulers.{module} import {scheduler} as Scheduler

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

processors = int(sys.argv[3])
began = cpu()
with open(sys.argv[2]) as lines:
    jobs = list(_job_inputs_to_jobs(parse_lines(lines), processors))
parsed = cpu()
Simulator(jobs, processors, Scheduler(processors)).run()
done = cpu()
with open(sys.argv[4], "w") as out:
    out.write("".join("%d\\n" % job.start_to_run_at_time for job in jobs))
print("%r %r" % (parsed - began, done - parsed))
"""

#: A whole process doing what pyss's command does: read the log, replay, print the mean wait.
REPLAY_SCRIPT = """
import sys
from gridsim.sim.log_replay import replay_log
from gridsim.workloads.mapping import SwfMapping
from gridsim.workloads.swf import read_swf
log = read_swf(sys.argv[1], SwfMapping(processors="allocated", larger_than_machine="clip"))
replay = replay_log(log.jobs, log.machine_processors, "conservative", record_nodes=False)
print("mean wait", (replay.start_time - log.jobs.submit_time.to_numpy()).mean())
"""


class CompressAtEveryCompletion(Conservative):
    """pyss's rule: a compression pass after every completion, also at the estimate (a pass
    can move a job into space that later jobs left in the previous pass)."""

    def complete(self, now: float, finished: Sequence[int], early: bool) -> None:
        super().complete(now, finished, early)
        if not early:
            self.compress(now)


def fail(message: str) -> NoReturn:
    """One line on stderr, exit status 2 (a usage problem, nothing computed yet)."""
    print(f"bench_pyss.py: {message}", file=sys.stderr)
    raise SystemExit(2)


def pyss_source(directory: Path | None) -> Path:
    """The folder holding pyss's ``base`` and ``schedulers`` packages (DIR or DIR/src)."""
    if directory is None:
        fail("--pyss DIR is required: a checkout of pyss (e.g. github.com/dinesh121991/pyss)")
    for candidate in (directory, directory / "src"):
        if (candidate / "schedulers" / "conservative_scheduler.py").is_file() and (
            candidate / "base" / "prototype.py"
        ).is_file():
            return candidate
    fail(f"--pyss {directory}: no pyss here (expected schedulers/ and base/ in it or in src/)")


def python2_interpreter(name: str) -> str:
    """The Python 2 interpreter's path, checked to be Python 2."""
    path = shutil.which(name)
    if path is None:
        fail(f"--python2 {name}: no such interpreter (pyss needs Python 2.7)")
    probe = subprocess.run(
        [path, "-c", "import sys; print(sys.version_info[0])"], capture_output=True, text=True
    )
    if probe.returncode != 0 or probe.stdout.strip() != "2":
        fail(f"--python2 {name}: not a working Python 2 interpreter (pyss needs Python 2.7)")
    return str(path)


def pyss_jobs(path: Path) -> tuple[pd.DataFrame, int]:
    """The jobs pyss makes of an SWF log (its ``_job_input_to_job``), as a replay table.

    Returns the table in file order and the machine size (the header's MaxProcs, as
    ``--num-processors``)."""
    records = read_swf_records(path)
    machine = records.header.machine_processors
    if machine is None:
        fail(f"{path}: no MaxProcs or MaxNodes in the header")
    frame = records.records

    def field(name: str) -> np.ndarray:  # SWF's -1 back where the reader put NaN or <NA>
        return frame[name].astype("float64").fillna(-1.0).to_numpy()

    submit, run = field("submit_time"), np.trunc(field("run_time"))
    allocated, requested = field("allocated_processors"), field("requested_time")
    odd = (run <= 0) | (allocated <= 0) | (submit < 0)
    table = pd.DataFrame(
        {
            "job_id": frame["job_id"].to_numpy(dtype=np.int64),
            "submit_time": np.where(odd, np.maximum(submit, 1), submit),
            "processors": np.where(
                odd, np.maximum(allocated, 1), np.maximum(np.minimum(allocated, machine), 1)
            ).astype(np.int64),
            "estimate": np.where(odd, 1, np.maximum.reduce([requested, run, np.ones_like(run)])),
            "duration": np.where(odd, 1, np.maximum(np.minimum(requested, run), 1)),
        }
    )
    return table, machine


def cpu_call(function, *args, **kwargs):
    """(result, processor s) of one call in this process."""
    gc.collect()
    began = time.process_time()
    result = function(*args, **kwargs)
    return result, time.process_time() - began


def child(command: list[str], **kwargs) -> tuple[float, float, str]:
    """(processor s, wall s, stdout) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        raise SystemExit(f"bench_pyss.py: {command[:3]} failed: {tail[0]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, wall, done.stdout


def bench_log(name: str, plain: Path, options: argparse.Namespace, scratch: Path) -> None:
    jobs, machine = pyss_jobs(plain)
    print(f"{name}: {len(jobs):,} jobs, {machine} processors", flush=True)
    for algorithm in options.algorithms:
        driver = scratch / f"driver_{algorithm}.py"
        driver.write_text(
            DRIVER.format(module=PYSS_MODULES[algorithm], scheduler=PYSS_SCHEDULERS[algorithm])
        )
        starts = scratch / "pyss_starts.txt"
        fast, python, pyss, parse = [], [], [], []
        for _ in range(options.repeat):  # interleaved rounds
            replay, cpu = cpu_call(
                replay_log, jobs, machine, algorithm, record_nodes=False,
                completions_order="separately",
            )  # fmt: skip
            fast.append(cpu)
            python.append(
                cpu_call(
                    replay_log, jobs, machine, SCHEDULERS[algorithm], record_nodes=False,
                    completions_order="separately",
                )[1]
            )  # fmt: skip
            command = [options.python2, "-O", str(driver), str(options.source), str(plain),
                       str(machine), str(starts)]  # fmt: skip
            out = child(command)[2].split()
            parse.append(float(out[0]))
            pyss.append(float(out[1]))
        pyss_start = np.loadtxt(starts, dtype=np.float64, ndmin=1)
        together = replay_log(jobs, machine, algorithm, record_nodes=False).start_time
        agree = int(np.sum(pyss_start == replay.start_time))
        agree_together = int(np.sum(pyss_start == together))
        if algorithm == "conservative":
            every = replay_log(jobs, machine, CompressAtEveryCompletion, record_nodes=False,
                               completions_order="separately").start_time  # fmt: skip
            agree_together = f"{agree_together:,} (together), {np.sum(pyss_start == every):,}"
            agree_together += " (separately, a pass at every completion as pyss)"
        else:
            agree_together = f"{agree_together:,} (together)"
        fast_cpu, python_cpu, pyss_cpu = (statistics.median(x) for x in (fast, python, pyss))
        wait = float(np.mean(replay.start_time - jobs.submit_time))
        pyss_wait = float(np.mean(pyss_start - jobs.submit_time))
        print(
            f"  {algorithm:>12}, in-process processor time, medians of {options.repeat}:"
            f" pyss {pyss_cpu:.2f} s (parsing {statistics.median(parse):.2f} s apart),"
            f" gridsim compiled {fast_cpu:.3f} s, Python {python_cpu:.2f} s;"
            f" pyss / compiled {pyss_cpu / fast_cpu:.0f}x, pyss / Python"
            f" {pyss_cpu / python_cpu:.1f}x\n"
            f"  {'':>12}  start times equal to pyss's: {agree:,} of {len(jobs):,}"
            f" (completions separately), {agree_together}; mean wait"
            f" pyss {pyss_wait:,.0f} s, gridsim {wait:,.0f} s",
            flush=True,
        )


def bench_processes(options: argparse.Namespace, scratch: Path) -> None:
    gzipped = options.logs / LOGS["KTH-SP2"]
    plain = scratch / "KTH-SP2.swf"
    machine = pyss_jobs(plain)[1]
    pyss_command = [
        options.python2, "-O", "run_simulator.py", f"--num-processors={machine}",
        f"--input-file={plain}", "--scheduler=ConservativeScheduler",
    ]  # fmt: skip
    pyss_environment = {**os.environ, "PYTHONPATH": str(options.source)}
    pyss_runs, gridsim_runs, script_runs = [], [], []
    for k in range(options.process_repeat):
        pyss_runs.append(child(pyss_command, cwd=options.source, env=pyss_environment)[:2])
        script_runs.append(child([sys.executable, "-c", REPLAY_SCRIPT, str(gzipped)])[:2])
        gridsim_command = [
            sys.executable, "-c", "from gridsim.cli import main; main()",
            "run", "swf-replay", "--log", str(gzipped), "--set", "schedulers=[conservative]",
            "--set", "record_nodes=false", "--set", "workload.mapping.processors=allocated",
            "--set", "workload.mapping.larger_than_machine=clip",
            "-q", "-o", str(scratch / f"run{k}"),
        ]  # fmt: skip
        gridsim_runs.append(child(gridsim_command)[:2])
    print(f"whole process, KTH-SP2 conservative, medians of {options.process_repeat}:")
    pyss_cpu = statistics.median(run[0] for run in pyss_runs)
    for label, runs in (
        ("pyss run_simulator.py", pyss_runs),
        ("gridsim run swf-replay", gridsim_runs),
        ("python -c <read_swf, replay_log>", script_runs),
    ):
        cpu, wall = (statistics.median(run[k] for run in runs) for k in (0, 1))
        ratio = "" if runs is pyss_runs else f"; pyss / this {pyss_cpu / cpu:.1f}x"
        print(f"  {label:>32}: {cpu:.2f} s processor ({wall:.2f} s wall){ratio}", flush=True)


def decompress(source: Path, target: Path, first: int | None = None) -> Path:
    """The log as plain text (pyss reads nothing else): its header and its first ``first``
    jobs (all of them if None)."""
    with gzip.open(source, "rt") as packed, open(target, "w") as out:
        if first is None:
            shutil.copyfileobj(packed, out)
            return target
        jobs = 0
        for line in packed:
            if not line.lstrip().startswith(";") and line.strip():
                if jobs == first:
                    break
                jobs += 1
            out.write(line)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyss", type=Path, help="a checkout of pyss (the repository or src/)")
    parser.add_argument("--python2", default="python2", help="a Python 2.7 interpreter")
    parser.add_argument("--logs", type=Path, default=Path("/work/shared/data/swf"))
    parser.add_argument("--only", nargs="*", choices=list(LOGS), default=["KTH-SP2"])
    parser.add_argument(
        "--algorithms", nargs="*", choices=list(PYSS_SCHEDULERS), default=list(PYSS_SCHEDULERS)
    )
    parser.add_argument("--first", type=int, help="only the first N jobs of each log")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved in-process rounds")
    parser.add_argument("--process-repeat", type=int, default=3, help="0: no whole processes")
    options = parser.parse_args()
    options.source = pyss_source(options.pyss)
    options.python2 = python2_interpreter(options.python2)
    if compiled() is None:
        fail("the compiled core is not available (or GRIDSIM_PURE_PYTHON is set)")
    for name in options.only:
        if not (options.logs / LOGS[name]).is_file():
            fail(f"--logs {options.logs}: no {LOGS[name]} in it")
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        for name in options.only:
            plain = decompress(options.logs / LOGS[name], scratch / f"{name}.swf", options.first)
            bench_log(name, plain, options, scratch)
        if options.process_repeat:  # whole KTH-SP2
            decompress(options.logs / LOGS["KTH-SP2"], scratch / "KTH-SP2.swf")
            bench_processes(options, scratch)
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)


if __name__ == "__main__":
    main()
