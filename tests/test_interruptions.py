"""A run killed or interrupted keeps its finished chunks, leaves no worker behind, and resumes
into the tables of an uninterrupted run; on a local Dask cluster too, where a worker that dies
mid-run costs nothing but time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas.testing as pdt
import pytest

import gridsim
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.runner import run_experiment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

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
GRIDSIM = [sys.executable, "-c", "from gridsim.cli import main; main()"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tables of one uninterrupted run in this process."""
    folder = tmp_path_factory.mktemp("reference") / "out"
    run_experiment(load_experiment(SCENARIO), jobs=1, out_dir=folder, progress=False)
    return without_wall_clock(folder)


def without_wall_clock(folder: Path) -> dict:
    results = gridsim.load_results(folder)
    return {name: results.table(name).drop(columns="sim_time_s", errors="ignore")
            for name in ("runs", "jobs", "tasks")}  # fmt: skip


def start(tmp_path: Path, out: Path, *executor: str) -> subprocess.Popen:
    """``gridsim run`` in its own process group, on two local processes unless ``executor``
    names others (``--cluster local:2``)."""
    source = tmp_path / "s.yaml"
    source.write_text(SCENARIO)
    return subprocess.Popen(
        [*GRIDSIM, "run", str(source), *(executor or ("-j", "2")), "-q", "-o", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def wait_for_chunks(process: subprocess.Popen, out: Path, count: int) -> None:
    deadline = time.monotonic() + 120
    while len(list(out.glob("runs/point=*/rep-*.parquet"))) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no chunk finished in time"
        time.sleep(0.05)


def children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def dask_workers(pid: int) -> list[int]:
    """The worker processes a local Dask cluster of process ``pid`` started (not the
    multiprocessing resource tracker)."""
    return [child for child in children(pid)
            if "spawn_main" in Path(f"/proc/{child}/cmdline").read_text()]  # fmt: skip


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def start_on_local_dask(tmp_path: Path, out: Path) -> tuple[subprocess.Popen, list[int]]:
    """A run on ``--cluster local:2`` once its first chunk is stored, and its two workers."""
    pytest.importorskip("distributed")
    process = start(tmp_path, out, "--cluster", "local:2")
    wait_for_chunks(process, out, 1)
    workers = dask_workers(process.pid)
    assert len(workers) == 2
    return process, workers


def assert_all_exit(pids: list[int] | set[int], message: str) -> None:
    """Every process in ``pids`` exits within 5 seconds."""
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if alive(pid)], message


def assert_tables_equal(out: Path, reference: dict) -> None:
    for name, table in without_wall_clock(out).items():
        pdt.assert_frame_equal(table, reference[name])


def resume(tmp_path: Path, out: Path) -> str:
    process = start(tmp_path, out)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    return stderr


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_sigkill_loses_only_chunks_in_flight_kills_the_workers_and_resumes(reference, tmp_path):
    for attempt in range(3):  # a run may finish before the kill (see interrupt_twice)
        out = tmp_path / f"out-{attempt}"
        process = start(tmp_path, out)
        wait_for_chunks(process, out, 2)
        workers = children(process.pid)
        os.kill(process.pid, signal.SIGKILL)
        if process.wait(timeout=10) == -signal.SIGKILL:
            break
    else:
        pytest.fail("every run of three attempts finished before it was killed")
    assert workers, "the run has worker processes"
    assert_all_exit(workers, "a worker outlived its parent")
    kept = len(list(out.glob("runs/point=*/rep-*.parquet")))
    assert kept >= 2
    stderr = resume(tmp_path, out)
    assert "already done, running the" in stderr
    assert_tables_equal(out, reference)


def interrupt_twice(tmp_path: Path, out: Path) -> bool:
    """Start the run and press Ctrl-C after a chunk is stored, twice; False if a run ended
    before its Ctrl-C arrived (on a loaded machine the run, in a process group of its own,
    may get the cores while this test waits for one)."""
    for already in (1, 0):
        process = start(tmp_path, out)
        before = len(list(out.glob("runs/point=*/rep-*.parquet")))
        wait_for_chunks(process, out, before + 1 + already)
        interrupted = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole group
        _, stderr = process.communicate(timeout=30)
        elapsed = time.monotonic() - interrupted
        if process.returncode == 0 and "interrupted" not in stderr:
            return False
        assert process.returncode == 130, stderr
        assert elapsed < 2.0, f"Ctrl-C took {elapsed:.2f} s"
        assert "interrupted; finished chunks are kept" in stderr
        assert "Traceback" not in stderr
    return True


def test_ctrl_c_twice_returns_within_two_seconds_each_time_and_the_run_resumes(reference, tmp_path):
    for attempt in range(3):
        out = tmp_path / f"out-{attempt}"
        if interrupt_twice(tmp_path, out):
            break
    else:
        pytest.fail("every run of three attempts finished before its Ctrl-C arrived")
    assert "already done, running the" in resume(tmp_path, out)
    assert_tables_equal(out, reference)
    history = [e["status"] for e in gridsim.load_results(out).metadata[0]["history"]]
    assert history == ["interrupted", "interrupted", "complete"]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
@pytest.mark.slow  # a Dask cluster start and a resume: 20-40 s
def test_ctrl_c_on_a_local_dask_cluster_returns_within_two_seconds_quietly_and_resumes(
    reference, tmp_path
):
    out = tmp_path / "out"
    process, workers = start_on_local_dask(tmp_path, out)
    interrupted = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the workers get it too
    _, stderr = process.communicate(timeout=30)
    elapsed = time.monotonic() - interrupted
    assert process.returncode == 130, stderr
    assert elapsed < 2.0, f"Ctrl-C took {elapsed:.2f} s"
    assert "interrupted; finished chunks are kept" in stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert_all_exit(workers, "a Dask worker outlived the run")
    assert "already done, running the" in resume(tmp_path, out)
    assert_tables_equal(out, reference)


@pytest.mark.slow  # two Dask worker starts and a restart: about 40 s on a loaded machine
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_a_dask_worker_killed_mid_run_costs_only_time_and_each_cell_is_stored_once(
    reference, tmp_path
):
    out = tmp_path / "out"
    process, workers = start_on_local_dask(tmp_path, out)
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert not alive(workers[0])
    assert_tables_equal(out, reference)
    history = [e["status"] for e in gridsim.load_results(out).metadata[0]["history"]]
    assert history == ["complete"]


WORKER_CUT_OFF_MID_RESULT = """\
import os, struct, sys, time
from pathlib import Path
from gridsim.experiments.executors import ProcessExecutor

def send_half_a_result(marker):
    # As a worker terminated while sending its chunk's tables: a message's length, a tenth of
    # its bytes, then nothing.
    frame = sys._getframe()
    while "result_queue" not in frame.f_locals:
        frame = frame.f_back
    os.write(frame.f_locals["result_queue"]._writer.fileno(), struct.pack("!i", 1000) + bytes(100))
    Path(marker).touch()
    time.sleep(60)

if __name__ == "__main__":
    marker = Path(sys.argv[1])
    executor = ProcessExecutor(1)
    executor.submit(send_half_a_result, str(marker))
    while not marker.exists():
        time.sleep(0.01)
    time.sleep(0.2)  # the pool's manager thread is now waiting for the other 900 bytes
    executor.stop()
"""


def test_a_worker_stopped_while_sending_its_result_does_not_hold_the_exit(tmp_path):
    """Ctrl-C can land while a worker sends a chunk's tables; the command still ends at once."""
    script = tmp_path / "cut_off.py"
    script.write_text(WORKER_CUT_OFF_MID_RESULT)
    process = subprocess.run([sys.executable, str(script), str(tmp_path / "sending")],
                             capture_output=True, text=True, timeout=30)  # fmt: skip
    assert process.returncode == 0, process.stderr
