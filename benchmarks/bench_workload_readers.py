"""Reading speed and memory of each workload reader, against the SWF reader on the same jobs.

Run on demand (not in the tests):

    nice python benchmarks/bench_workload_readers.py [--logs DIR] [--repeat 5]
        [--sacct-lines 1000000] [--work DIR]

Inputs, prepared once (not timed): HPC2N's whole log converted to Batsim JSON, as Batsim
defines it and with every other field in ``extra_data`` (``gridsim convert``, with and
without ``--extra-data``); a synthetic ``sacct --parsable2`` dump of ``--sacct-lines`` lines
(each job a line and its ``batch`` and ``extern`` steps, the columns docs/workloads.md lists,
ISO times), another of as many lines without steps (``sacct -X``: a job a line), and their
jobs written as SWF. Each reading runs in a process of its own
(``read_records``), contenders interleaved (SWF, other, SWF, other...), ``--repeat`` times;
the figures are medians of the processes' CPU time (user + system) and their maximum
resident set size (Linux's ``VmHWM``), and the ratio is the other reader's CPU time per job
over the SWF reader's on the same jobs (target: at most 2). Times run from the reading
call's start to its end (the interpreter's start and the imports, the same for every reader,
are left out); the resident set is printed as the process's peak and as it was before
reading.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from gridsim.workloads.slurm import SACCT_FORMAT

READ = """
import json, sys, time
from gridsim.workloads.readers import read_records
def memory(key):  # MB, from the process's own counters (fresh since exec)
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith(key)) / 1024
imported = memory("VmRSS:")
began = time.process_time()
read = read_records(sys.argv[1])
cpu = time.process_time() - began
print(json.dumps({"jobs": len(read.records), "cpu": cpu, "rss_mb": memory("VmHWM:"),
                  "imported_mb": imported}))
"""
COLUMNS = "|".join(SACCT_FORMAT.split(","))


def _duration(seconds: int) -> str:
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    return (f"{days}-" if days else "") + f"{hours:02d}:{minutes:02d}:{seconds:02d}"


def synthetic_sacct(path: Path, lines: int, seed: int = 1, steps: bool = True) -> Path:
    """A sacct dump of about ``lines`` lines: jobs of 1-8 nodes of 32 cores on 800 nodes,
    each followed by its batch and extern steps (without ``steps``: as ``sacct -X`` prints
    them, the jobs alone)."""
    rng = np.random.default_rng(seed)
    jobs = lines // 3 if steps else lines
    start0 = dt.datetime(2024, 1, 1)
    submit = np.cumsum(rng.exponential(30, jobs))
    wait = rng.exponential(600, jobs).astype(int)
    run = np.maximum(1, rng.lognormal(7, 1.5, jobs).astype(int))
    nodes = rng.choice([1, 1, 1, 2, 4, 8], jobs)
    states = rng.choice(["COMPLETED"] * 8 + ["FAILED", "TIMEOUT"], jobs)

    def iso(seconds: float) -> str:
        return (start0 + dt.timedelta(seconds=int(seconds))).strftime("%Y-%m-%dT%H:%M:%S")

    with open(path, "w") as out:
        out.write(COLUMNS + "\n")
        for i in range(jobs):
            job, n = 1000 + i, int(nodes[i])
            cpus, first = 32 * n, (i % 100) * 8 + 1
            tres = f"billing={cpus},cpu={cpus},mem={128 * n}G,node={n}"
            node_list = f"cn[{first:04d}-{first + n - 1:04d}]" if n > 1 else f"cn{first:04d}"
            begin, end = submit[i] + wait[i], submit[i] + wait[i] + run[i]
            times = f"{iso(begin)}|{iso(end)}|{_duration(run[i])}"
            out.write(
                f"{job}|{job}|user{i % 200:03d}|grp{i % 20}|acct{i % 40}|batch|"
                f"{iso(submit[i])}|{times}|{_duration(max(2 * run[i], 60))}|{states[i]}|"
                f"0:0|{cpus}|{cpus}|{n}|{n}|{tres}|{tres}|{128 * n}Gn|{node_list}\n"
            )
            if not steps:
                continue
            out.write(
                f"{job}.batch|{job}.batch||||||{times}||{states[i]}|0:0|32||1||"
                f"cpu=32,mem=128G,node=1|||cn{first:04d}\n"
            )
            out.write(f"{job}.extern|{job}.extern||||||{times}||COMPLETED|0:0|{cpus}||{n}||"
                      f"{tres}|||{node_list}\n")  # fmt: skip
    return path


def measure(path: str) -> dict:
    """The processor time of reading ``path`` in a new process (from the call's start to its
    end: interpreter start and imports left out), its maximum resident set and its resident
    set before reading (MB, the process's own peak: ``VmHWM`` of Linux)."""
    done = subprocess.run([sys.executable, "-c", READ, path], capture_output=True, text=True,
                          check=True)  # fmt: skip
    return json.loads(done.stdout)


def compare(label: str, other: str, swf: str, repeat: int) -> None:
    runs: dict[str, list[dict]] = {"other": [], "swf": []}
    for _ in range(repeat):  # interleaved: both see the same load
        runs["swf"].append(measure(swf))
        runs["other"].append(measure(other))
    cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in runs.items()}
    rss = {k: statistics.median(r["rss_mb"] for r in v) for k, v in runs.items()}
    jobs = {k: v[0]["jobs"] for k, v in runs.items()}
    per_job = {k: cpu[k] / max(jobs[k], 1) * 1e6 for k in cpu}
    print(f"{label}: {jobs['other']} jobs ({os.path.getsize(other) / 1e6:.1f} MB)")
    imported = statistics.median(r["imported_mb"] for v in runs.values() for r in v)
    print(f"  reader : CPU {cpu['other']:.2f} s ({per_job['other']:.2f} us/job), max RSS "
          f"{rss['other']:.0f} MB ({imported:.0f} MB after the imports)")  # fmt: skip
    print(f"  SWF    : CPU {cpu['swf']:.2f} s ({per_job['swf']:.2f} us/job), max RSS "
          f"{rss['swf']:.0f} MB  ({jobs['swf']} jobs)")  # fmt: skip
    print(f"  ratio per job: {per_job['other'] / per_job['swf']:.2f}  (target <= 2)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=Path("/work/shared/data/swf"),
                        help="Folder holding HPC2N-2002-2.1-cln.swf.gz.")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sacct-lines", type=int, default=1_000_000)
    parser.add_argument(
        "--work", type=Path, help="Folder for the prepared inputs [a temporary one]."
    )
    args = parser.parse_args()
    from gridsim.workloads.convert import convert
    from gridsim.workloads.readers import read_records
    from gridsim.workloads.swf_writer import write_swf

    work = args.work or Path(tempfile.mkdtemp(prefix="gridsim-readers-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f}; inputs in {work}")
    hpc2n = args.logs / "HPC2N-2002-2.1-cln.swf.gz"
    plain, extra = work / "hpc2n.json", work / "hpc2n-extra.json"
    if not plain.exists():
        convert(hpc2n, plain)
        convert(hpc2n, extra, extra_data=True)
    dumps = {"sacct.txt": True, "sacct-allocations.txt": False}
    for name, steps in dumps.items():
        if not (work / name).exists():
            synthetic_sacct(work / name, args.sacct_lines, steps=steps)
            read = read_records(work / name)
            write_swf(read.records, work / f"{name}.swf", header=read.header)
    compare("HPC2N as Batsim JSON", str(plain), str(hpc2n), args.repeat)
    compare("HPC2N as Batsim JSON with extra_data", str(extra), str(hpc2n), args.repeat)
    for name, steps in dumps.items():
        with open(work / name) as text:
            lines = sum(1 for _ in text)
        what = "jobs and their batch and extern steps" if steps else "jobs alone (sacct -X)"
        compare(f"synthetic sacct dump, {lines} lines, {what}", str(work / name),
                str(work / f"{name}.swf"), args.repeat)  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
