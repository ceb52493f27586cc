"""Interrupt ``gridsim run -j 2`` over and over: Ctrl-C must end it at once, SIGKILL and a
resume must give the tables of an uninterrupted run.

The rare races of stopping worker processes (a worker stopped halfway through sending its
tables once held the exit for ever, one Ctrl-C in about 56) show only over many tries; the
tests in tests/test_interruptions.py try a few times. Usage::

    python tools/interrupt_loop.py --signal INT --trials 100    # Ctrl-C twice per trial
    python tools/interrupt_loop.py --signal KILL --trials 25    # SIGKILL, resume, compare

A run that does not end within 15 s of its Ctrl-C is a hang: its threads' stacks are
printed (``faulthandler``) and the loop stops with exit status 1.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCENARIO = """\
name: interrupted
kind: jobflow
seed: 8
replications: 16
environment: {nodes: 12}
jobs: {n: [1, 4], volume: {low: 50, high: 400}}
queue_sizes: [8, 16]
policies: [BFstart, BFfinish, CoP]
"""
GRIDSIM = [sys.executable, "-c", "import faulthandler, signal; faulthandler.register("
           "signal.SIGUSR1, all_threads=True); from gridsim.cli import main; main()"]  # fmt: skip


def start(scenario: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen([*GRIDSIM, "run", str(scenario), "-j", "2", "-q", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip


def wait_for_chunks(process: subprocess.Popen, out: Path, count: int) -> None:
    while len(list(out.glob("runs/point=*/rep-*.parquet"))) < count and process.poll() is None:
        time.sleep(0.05)


def interrupt(scenario: Path, out: Path, already: int) -> float | None:
    """Ctrl-C after one more chunk is stored; seconds to exit, None if the run had ended."""
    process = start(scenario, out)
    wait_for_chunks(process, out, len(list(out.glob("runs/point=*/rep-*.parquet"))) + 1 + already)
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGUSR1)
        time.sleep(1)
        process.kill()
        print("HANG after Ctrl-C; the run's threads:\n" + process.communicate()[1][-8000:])
        raise SystemExit(1) from None
    if process.returncode == 0:
        return None
    assert process.returncode == 130, stderr
    return time.monotonic() - sent


def kill_and_resume(scenario: Path, out: Path, reference: dict) -> str:
    """SIGKILL after two stored chunks, resume, compare with ``reference``."""
    import pandas.testing as pdt

    process = start(scenario, out)
    wait_for_chunks(process, out, 2)
    os.kill(process.pid, signal.SIGKILL)
    code = process.wait()
    subprocess.run([*GRIDSIM, "run", str(scenario), "-j", "2", "-q", "-o", str(out)], check=True,
                   capture_output=True)  # fmt: skip
    for name, table in tables(out).items():
        pdt.assert_frame_equal(table, reference[name])
    return f"exit {code}, resumed, tables equal"


def tables(folder: Path) -> dict:
    import gridsim

    results = gridsim.load_results(folder)
    return {name: results.table(name).drop(columns="sim_time_s", errors="ignore")
            for name in ("runs", "jobs", "tasks")}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--signal", choices=["INT", "KILL"], default="INT")
    parser.add_argument("--trials", type=int, default=50)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gridsim-interrupts-"))
    scenario = work / "s.yaml"
    scenario.write_text(SCENARIO)
    reference = None
    if args.signal == "KILL":
        from gridsim.experiments.grid import load_experiment
        from gridsim.experiments.runner import run_experiment

        run_experiment(load_experiment(SCENARIO), jobs=1, out_dir=work / "ref", progress=False)
        reference = tables(work / "ref")
    for trial in range(args.trials):
        out = work / f"out-{trial}"
        if reference is not None:
            print(trial, kill_and_resume(scenario, out, reference), flush=True)
        else:
            seconds = [interrupt(scenario, out, already) for already in (1, 0)]
            print(trial, " ".join("ended first" if s is None else f"{s:.2f} s" for s in seconds),
                  flush=True)  # fmt: skip
        shutil.rmtree(out)
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
