"""Export one simulation's job trace to other tools' formats: SWF and Batsim's ``jobs.csv``.

Consumes the ``jobs`` table of one run -- of a ``jobflow`` results folder
(:mod:`gridsim.sim.trace`) or of an ``swf_replay`` one (:mod:`gridsim.experiments.swf_replay`);
select it with :func:`gridsim.analysis.results.select_run` -- and produces a Standard Workload
Format file through :func:`gridsim.workloads.swf_writer.write_swf` (archive conventions:
integer seconds, rounding and header as that module states; read back by
:func:`gridsim.workloads.swf.read_swf`), or a CSV with the columns Batsim writes in its
``_jobs.csv`` output, which evalys reads. :func:`export_run` does either for a results folder
(``gridsim export``).

Mapping of a job flow (times in simulation time units, times ``time_unit_s`` seconds):

* SWF: jobs in submission order (ties by gridsim id), numbered from 1 in that order (SWF job
  numbers increase through the file); submit = ``arrival``, wait = ``wait``, run time =
  ``runtime``, allocated and requested processors = ``n``, requested time =
  ``planned_runtime`` (the window's length, what the scheduler planned with; the run time
  itself where the two differ only by floating-point rounding), status 1 (finished) or 0
  (killed), queue and partition 1 (gridsim has one of each); jobs that never ran (rejected,
  unfinished) get status 5 and unknown times, so ``read_swf`` drops them as cancelled before
  start.
* Batsim: one row per job, ``final_state`` COMPLETED_SUCCESSFULLY, COMPLETED_KILLED, REJECTED
  or SUBMITTED/RUNNING (still queued or running at the end), ``allocated_resources`` the node
  ids as Batsim intervals (``"0-3 5"``), ``consumed_energy`` -1 (no energy model),
  ``metadata`` the job's cost.

A log replay keeps the log's job numbers, users and time base (UnixStartTime); its jobs are
written with their replayed start and finish, estimate as requested time, status 0 for jobs
killed at their estimate.

Cost: O(jobs).
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gridsim import __version__
from gridsim.sim.log_replay import node_intervals
from gridsim.workloads.swf import SwfHeader, bundled_swf
from gridsim.workloads.swf_writer import write_swf

BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "consumed_energy",
    "allocated_resources", "metadata",
)  # fmt: skip
TRACE_COLUMNS = ("job_id", "arrival", "start", "finish", "wait", "runtime", "planned_runtime",
                 "n", "nodes", "cost", "final_state")  # fmt: skip
REPLAY_COLUMNS = ("job_id", "user_id", "submit_time", "start_time", "finish_time", "run_time",
                  "estimate", "processors", "killed")  # fmt: skip
#: Header entries of a replayed log that still hold for its replay on the log's own machine.
SOURCE_KEYS = ("Computer", "Installation", "Acknowledge", "Information", "UnixStartTime",
               "TimeZone", "TimeZoneString", "MaxNodes", "MaxProcs")  # fmt: skip
#: Those that still hold when node classes replace the machine: where the workload came from.
SOURCE_KEYS_OF_THE_WORKLOAD = ("Installation", "Acknowledge", "Information", "UnixStartTime",
                               "TimeZone", "TimeZoneString")  # fmt: skip
_BATSIM_STATES = {
    "finished": "COMPLETED_SUCCESSFULLY",
    "killed": "COMPLETED_KILLED",
    "failed": "COMPLETED_FAILED",
    "rejected": "REJECTED",
}


def _one_run(jobs: pd.DataFrame, required: tuple[str, ...], kind: str) -> pd.DataFrame:
    missing = [c for c in required if c not in jobs.columns]
    if missing:
        raise ValueError(f"a {kind} jobs table needs columns {missing}")
    for column in ("run", "policy", "replication", "queue_size"):
        if column in jobs.columns and jobs[column].nunique() > 1:
            raise ValueError(f"the jobs of several runs were given: select one {column}")
    return jobs


def _checked(jobs: pd.DataFrame) -> pd.DataFrame:
    jobs = _one_run(jobs, TRACE_COLUMNS, "jobflow")
    return jobs.sort_values(["arrival", "job_id"], kind="stable")


def swf_table(jobs: pd.DataFrame, time_unit_s: float = 1.0) -> pd.DataFrame:
    """A job-flow trace in the SWF column names :func:`write_swf` understands (mapping above)."""
    jobs = _checked(jobs)
    ran = jobs["final_state"].isin(["finished", "killed"]).to_numpy()
    status = np.where(jobs["final_state"] == "finished", 1,
                      np.where(jobs["final_state"] == "killed", 0, 5))  # fmt: skip
    seconds = float(time_unit_s)
    with np.errstate(over="ignore"):  # too large for SWF: refused by the writer, by column
        return _swf_columns(jobs, ran, status, seconds)


def _swf_columns(jobs: pd.DataFrame, ran: np.ndarray, status: np.ndarray,
                 seconds: float) -> pd.DataFrame:  # fmt: skip
    return pd.DataFrame({
        "job_id": np.arange(1, len(jobs) + 1),
        "submit_time": jobs["arrival"].to_numpy(dtype=float) * seconds,
        "wait_time": np.where(ran, jobs["wait"], np.nan) * seconds,
        "run_time": np.where(ran, jobs["runtime"], np.nan) * seconds,
        "allocated_processors": np.where(ran, jobs["n"], np.nan),
        "requested_processors": jobs["n"].to_numpy(dtype=float),
        "requested_time": _requested_time(jobs) * seconds,
        "status": status,
        "queue_id": 1,
        "partition_id": 1,
    })  # fmt: skip


def replay_swf_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """A log replay's jobs (one scheduler, one replication) in submission order, as
    :func:`write_swf` reads them: replayed start and finish, estimate as requested time."""
    jobs = _one_run(jobs, REPLAY_COLUMNS, "swf_replay")
    jobs = jobs.sort_values(["submit_time", "job_id"], kind="stable")
    table = jobs[list(REPLAY_COLUMNS)].reset_index(drop=True)
    return table.assign(queue_id=1, partition_id=1)


def _requested_time(jobs: pd.DataFrame) -> np.ndarray:
    """The planned runtime, or the run time where the two differ only by rounding (the
    engine's end minus start), so a reader does not see an overrun that did not happen."""
    planned = jobs["planned_runtime"].to_numpy(dtype=float)
    actual = jobs["runtime"].to_numpy(dtype=float)
    return np.where(np.isclose(actual, planned, rtol=1e-9, atol=0.0), actual, planned)


def write_jobs_swf(
    jobs: pd.DataFrame,
    path: str | Path,
    *,
    nodes: int | None = None,
    time_unit_s: float = 1.0,
    note: str | None = None,
) -> None:
    """Write one job flow's jobs as an SWF file: ``nodes`` (one processor each) gives
    MaxNodes and MaxProcs, time 0 of the simulation is UnixStartTime 0 (UTC)."""
    fields: dict[str, object] = {
        "Computer": "gridsim simulation" + (f": {nodes} heterogeneous nodes" if nodes else ""),
        "Conversion": f"gridsim {__version__}, export of a simulated schedule",
        "Preemption": "No",
        "UnixStartTime": 0,
        "TimeZoneString": "UTC",
        "MaxNodes": nodes,
        "MaxProcs": nodes,
        "AllowOveruse": "Yes",  # a job runs past its window unless local load stops it
        "MaxQueues": 1,
        "MaxPartitions": 1,
    }
    notes = (f"1 simulation time unit = {time_unit_s:g} s",) + ((note,) if note else ())
    write_swf(swf_table(jobs, time_unit_s), path, fields=fields, notes=notes)


def resource_intervals(nodes: str | list[int]) -> str:
    """Node ids as Batsim's interval set: ``"0 1 2 3 5"`` -> ``"0-3 5"``."""
    ids = nodes.split() if isinstance(nodes, str) else nodes
    return node_intervals(tuple(sorted({int(i) for i in ids})))


def batsim_table(
    jobs: pd.DataFrame, workload_name: str = "gridsim", time_unit_s: float = 1.0
) -> pd.DataFrame:
    """A job-flow trace as Batsim's ``jobs.csv`` rows (columns :data:`BATSIM_COLUMNS`)."""
    jobs = _checked(jobs)
    requested = _requested_time(jobs) * time_unit_s
    rows = []
    for index, job in enumerate(jobs.itertuples(index=False)):
        started = not math.isnan(job.start)
        state = _BATSIM_STATES.get(job.final_state, "RUNNING" if started else "SUBMITTED")
        arrival, start, finish = (t * time_unit_s for t in (job.arrival, job.start, job.finish))
        runtime, turnaround = job.runtime * time_unit_s, finish - arrival
        rows.append({
            "job_id": int(job.job_id),
            "workload_name": workload_name,
            "profile": "",
            "submission_time": arrival,
            "requested_number_of_resources": int(job.n),
            "requested_time": requested[index],
            "success": int(job.final_state == "finished"),
            "final_state": state,
            "starting_time": start,
            "execution_time": runtime,
            "finish_time": finish,
            "waiting_time": job.wait * time_unit_s,
            "turnaround_time": turnaround,
            "stretch": turnaround / runtime if runtime > 0 else math.nan,
            "consumed_energy": -1.0,
            "allocated_resources": resource_intervals(job.nodes) if job.nodes else "",
            "metadata": "" if math.isnan(job.cost) else f"cost={job.cost:.6g}",
        })  # fmt: skip
    return pd.DataFrame(rows, columns=list(BATSIM_COLUMNS))


def replay_trace(jobs: pd.DataFrame) -> pd.DataFrame:
    """A log replay's jobs in the job-flow trace columns (:data:`TRACE_COLUMNS`), for
    :func:`batsim_table`; the cost is NaN where the replay had no prices."""
    jobs = _one_run(jobs, REPLAY_COLUMNS, "swf_replay")
    resources = jobs.get("allocated_resources", pd.Series("", index=jobs.index)).fillna("")
    return pd.DataFrame({
        "job_id": jobs["job_id"], "arrival": jobs["submit_time"], "start": jobs["start_time"],
        "finish": jobs["finish_time"], "wait": jobs["start_time"] - jobs["submit_time"],
        "runtime": jobs["run_time"], "planned_runtime": jobs["estimate"],
        "n": jobs["processors"], "nodes": resources.map(_expand_intervals),
        "cost": jobs.get("cost", pd.Series(np.nan, index=jobs.index)),
        "final_state": np.where(jobs["killed"], "killed", "finished"),
    })  # fmt: skip


def _expand_intervals(text: str) -> str:
    """``"0-3 5"`` -> ``"0 1 2 3 5"``."""
    ids: list[int] = []
    for part in text.split():
        first, _, last = part.partition("-")
        ids += range(int(first), int(last or first) + 1)
    return " ".join(map(str, ids))


def write_jobs_batsim(
    jobs: pd.DataFrame, path: str | Path, workload_name: str = "gridsim", time_unit_s: float = 1.0
) -> None:
    """Write one simulation's jobs as a Batsim ``jobs.csv`` file."""
    batsim_table(jobs, workload_name, time_unit_s).to_csv(path, index=False)


def export_run(
    folder: Path,
    jobs: pd.DataFrame,
    fmt: str,
    output: Path,
    *,
    run: str,
    time_unit_s: float = 1.0,
) -> None:
    """Export one run of a results folder (``jobs`` already selected) as ``fmt`` ("swf" or
    "batsim"), for ``gridsim export``; ``run`` names the run (policy, replication) in a Note."""
    metadata = json.loads((folder / "metadata.json").read_text())
    scenario = metadata["scenario_resolved"]
    label = f"scenario {metadata['scenario']}, {run}"
    kind = metadata.get("kind", scenario.get("kind"))
    if kind == "swf_replay":
        if fmt == "batsim":
            write_jobs_batsim(replay_trace(jobs), output, workload_name=metadata["scenario"])
            return
        header, fields, notes = replay_header(scenario)
        write_swf(replay_swf_table(jobs), output, header=header, fields=fields,
                  notes=(*notes, label))  # fmt: skip
    elif kind == "jobflow":
        if fmt == "batsim":
            write_jobs_batsim(jobs, output, metadata["scenario"], time_unit_s)
            return
        nodes = int(scenario["environment"]["nodes"])
        write_jobs_swf(jobs, output, nodes=nodes, time_unit_s=time_unit_s, note=label)
    else:
        raise ValueError(f"export needs a jobflow or swf_replay results folder, not {kind!r}")


def replay_header(scenario: dict[str, Any]) -> tuple[SwfHeader, dict[str, object], tuple]:
    """The header of a replay's export: what still holds of the replayed log's header (its
    time base, where it came from, its machine unless node classes replace it), and what
    gridsim knows of the replay. A log that is no longer where the scenario says is named in
    a Note and its entries are left out."""
    workload, platform = scenario["workload"], scenario["platform"]
    source = Path(workload["path"]).expanduser() if workload["path"] else bundled_swf()
    first = f" (first {workload['max_jobs']} jobs)" if workload["max_jobs"] else ""
    notes = [f"replay of {source.name}{first}"]
    try:
        original = read_header(source)
    except OSError:
        original = SwfHeader()
        notes.append(f"{source} was not found: its header entries are missing")
    classes = platform["node_classes"]
    keys = SOURCE_KEYS if not classes else SOURCE_KEYS_OF_THE_WORKLOAD
    header = SwfHeader(tuple((k, v) for k, v in original.entries if k in keys))
    on_overrun = workload["mapping"]["on_overrun"]
    fields: dict[str, object] = {
        "Conversion": f"gridsim {__version__}, replay of a workload log",
        "Preemption": "No",
        "AllowOveruse": "No" if on_overrun == "kill" else "Yes",
        "MaxQueues": 1,
        "MaxPartitions": 1,
    }
    machine = workload["mapping"]["machine_processors"]
    if classes:
        total = sum(int(c["count"]) for c in classes)
        fields["Computer"] = "gridsim node classes: " + ", ".join(
            f"{c['count']} nodes of performance {c['performance']:g}, price {c['price']:g}"
            for c in classes
        )
        fields.update(MaxNodes=total, MaxProcs=total)
    elif machine is not None:
        fields["MaxProcs"] = machine
    return header, fields, tuple(notes)


def read_header(path: Path) -> SwfHeader:
    """The header of an SWF file (plain or gzip), reading only its leading comment lines."""
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    comments = []
    with opener(path, "rt", encoding="utf-8", errors="replace") as text:
        for line in text:
            if line.strip() and not line.lstrip().startswith(";"):
                break
            comments.append(line.rstrip("\n"))
    return SwfHeader.from_comments([c for c in comments if c.strip()])
