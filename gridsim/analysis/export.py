"""Export a job-flow trace to other tools' formats: SWF and Batsim's ``jobs.csv``.

Consumes the ``jobs`` table of one simulation of a jobflow run (:mod:`gridsim.sim.trace`;
select it with :func:`gridsim.analysis.results.select_run`); produces a Standard Workload
Format file through :func:`gridsim.workloads.swf_writer.write_swf` (read back by
:func:`gridsim.workloads.swf.read_swf`), or a CSV with the columns Batsim writes in its
``_jobs.csv`` output, which evalys reads.

Mapping (times in simulation time units, written as seconds):

* SWF: job number = ``job_id + 1`` (SWF counts from 1), submit = ``arrival``, wait = ``wait``,
  run time = ``runtime``, allocated and requested processors = ``n``, requested time =
  ``planned_runtime`` (the window's length, what the scheduler planned with; the run time
  itself where the two differ only by floating-point rounding), status 1
  (finished) or 0 (killed); jobs that never ran (rejected, unfinished) get status 5 and
  unknown times, so ``read_swf`` drops them as cancelled before start.
* Batsim: one row per job, ``final_state`` COMPLETED_SUCCESSFULLY, COMPLETED_KILLED, REJECTED
  or SUBMITTED/RUNNING (still queued or running at the end), ``allocated_resources`` the node
  ids as Batsim intervals (``"0-3 5"``), ``consumed_energy`` -1 (no energy model),
  ``metadata`` the job's cost.

Cost: O(jobs).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.workloads.swf_writer import write_swf

BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "consumed_energy",
    "allocated_resources", "metadata",
)  # fmt: skip
TRACE_COLUMNS = ("job_id", "arrival", "start", "finish", "wait", "runtime", "planned_runtime",
                 "n", "nodes", "cost", "final_state")  # fmt: skip
_BATSIM_STATES = {
    "finished": "COMPLETED_SUCCESSFULLY",
    "killed": "COMPLETED_KILLED",
    "rejected": "REJECTED",
}


def _checked(jobs: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in TRACE_COLUMNS if c not in jobs.columns]
    if missing:
        raise ValueError(f"a jobflow jobs table needs columns {missing}")
    for column in ("run", "policy", "replication", "queue_size"):
        if column in jobs.columns and jobs[column].nunique() > 1:
            raise ValueError(f"the jobs of several runs were given: select one {column}")
    return jobs.sort_values(["arrival", "job_id"], kind="stable")


def swf_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """The trace in the SWF column names :func:`write_swf` understands (mapping above)."""
    jobs = _checked(jobs)
    ran = jobs["final_state"].isin(["finished", "killed"]).to_numpy()
    status = np.where(jobs["final_state"] == "finished", 1,
                      np.where(jobs["final_state"] == "killed", 0, 5))  # fmt: skip
    return pd.DataFrame({
        "job_id": jobs["job_id"].to_numpy() + 1,
        "submit_time": jobs["arrival"].to_numpy(dtype=float),
        "wait_time": np.where(ran, jobs["wait"], np.nan),
        "run_time": np.where(ran, jobs["runtime"], np.nan),
        "allocated_processors": np.where(ran, jobs["n"], np.nan),
        "requested_processors": jobs["n"].to_numpy(dtype=float),
        "requested_time": _requested_time(jobs),
        "status": status,
    })  # fmt: skip


def _requested_time(jobs: pd.DataFrame) -> np.ndarray:
    """The planned runtime, or the run time where the two differ only by rounding (the
    engine's end minus start), so a reader does not see an overrun that did not happen."""
    planned = jobs["planned_runtime"].to_numpy(dtype=float)
    actual = jobs["runtime"].to_numpy(dtype=float)
    return np.where(np.isclose(actual, planned, rtol=1e-9, atol=0.0), actual, planned)


def write_jobs_swf(
    jobs: pd.DataFrame, path: str | Path, *, nodes: int | None = None, note: str | None = None
) -> None:
    """Write one simulation's jobs as an SWF file (``nodes`` becomes MaxProcs)."""
    write_swf(swf_table(jobs), path, computer="gridsim simulation", max_processors=nodes,
              note=note)  # fmt: skip


def resource_intervals(nodes: str | list[int]) -> str:
    """Node ids as Batsim's interval set: ``"0 1 2 3 5"`` -> ``"0-3 5"``."""
    ids = sorted({int(i) for i in (nodes.split() if isinstance(nodes, str) else nodes)})
    parts: list[str] = []
    start = previous = None
    for node in [*ids, None]:
        if node is not None and previous is not None and node == previous + 1:
            previous = node
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = node
    return " ".join(parts)


def batsim_table(jobs: pd.DataFrame, workload_name: str = "gridsim") -> pd.DataFrame:
    """The trace as Batsim's ``jobs.csv`` rows (columns :data:`BATSIM_COLUMNS`)."""
    jobs = _checked(jobs)
    requested = _requested_time(jobs)
    rows = []
    for index, job in enumerate(jobs.itertuples(index=False)):
        started = not math.isnan(job.start)
        state = _BATSIM_STATES.get(job.final_state, "RUNNING" if started else "SUBMITTED")
        turnaround = job.finish - job.arrival
        rows.append({
            "job_id": int(job.job_id),
            "workload_name": workload_name,
            "profile": "",
            "submission_time": job.arrival,
            "requested_number_of_resources": int(job.n),
            "requested_time": requested[index],
            "success": int(job.final_state == "finished"),
            "final_state": state,
            "starting_time": job.start,
            "execution_time": job.runtime,
            "finish_time": job.finish,
            "waiting_time": job.wait,
            "turnaround_time": turnaround,
            "stretch": turnaround / job.runtime if job.runtime > 0 else math.nan,
            "consumed_energy": -1.0,
            "allocated_resources": resource_intervals(job.nodes) if job.nodes else "",
            "metadata": "" if math.isnan(job.cost) else f"cost={job.cost:.6g}",
        })  # fmt: skip
    return pd.DataFrame(rows, columns=list(BATSIM_COLUMNS))


def write_jobs_batsim(jobs: pd.DataFrame, path: str | Path, workload_name: str = "gridsim") -> None:
    """Write one simulation's jobs as a Batsim ``jobs.csv`` file."""
    batsim_table(jobs, workload_name).to_csv(path, index=False)
