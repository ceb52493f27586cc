"""Export one simulation's jobs to other tools' formats: SWF and Batsim's ``jobs.csv``.

Consumes the jobs table of one run (:data:`gridsim.sim.trace.JOB_COLUMNS`, the same for every
kind; select it with :func:`gridsim.analysis.results.select_run`) and produces a Standard
Workload Format file through :func:`gridsim.workloads.swf_writer.write_swf` (archive
conventions: integer seconds, rounding and header as that module states; read back by
:func:`gridsim.workloads.swf.read_swf`), or a CSV with the columns Batsim writes in its
``_jobs.csv`` output, which evalys reads. :func:`export_run` does either for a results folder
(``gridsim export``), with the SWF header its kind declares (``swf_export``:
:func:`jobflow_swf` or :func:`replay_swf`).

SWF mapping (times ``time_unit_s`` seconds per time unit): jobs in submission order (ties by
id); submit, wait, run time, allocated and requested processors = ``processors``, requested
time = ``requested_time`` (the run time itself where the two differ only by floating-point
rounding), status 1 (finished) or 0 (killed), queue and partition 1; jobs that never ran
(rejected, unfinished) get status 5 and unknown times, so ``read_swf`` drops them as
cancelled before start. A job flow's jobs are numbered from 1 in that order (SWF job numbers
increase through a file); a log replay keeps the log's job numbers, users and time base
(UnixStartTime).

Batsim: one row per job, ``final_state`` COMPLETED_SUCCESSFULLY, COMPLETED_KILLED, REJECTED
or SUBMITTED/RUNNING (still queued or running at the end), ``allocated_resources`` the
interval set as it is, ``consumed_energy`` -1 (no energy model), ``metadata`` the job's
cost.

Cost: O(jobs).
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gridsim import __version__
from gridsim.workloads.swf import SwfHeader, bundled_swf
from gridsim.workloads.swf_writer import write_swf

BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "consumed_energy",
    "allocated_resources", "metadata",
)  # fmt: skip
#: The jobs-table columns an export reads.
EXPORTED_COLUMNS = ("job_id", "user_id", "submit_time", "start_time", "finish_time",
                    "wait_time", "run_time", "requested_time", "processors",
                    "allocated_resources", "cost", "final_state")  # fmt: skip
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


@dataclass(frozen=True)
class SwfExport:
    """How a kind's jobs become an SWF file: its header, and whether jobs are renumbered
    from 1 (a job flow) or keep their numbers and users (a log)."""

    header: SwfHeader = field(default_factory=SwfHeader)
    fields: dict[str, object] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    renumber: bool = True


def _one_run(jobs: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in EXPORTED_COLUMNS if c not in jobs.columns]
    if missing:
        raise ValueError(f"a jobs table needs columns {missing}")
    for column in ("run", "policy", "replication", "queue_size", "goal"):
        if column in jobs.columns and jobs[column].nunique() > 1:
            raise ValueError(f"the jobs of several runs were given: select one {column}")
    return jobs.sort_values(["submit_time", "job_id"], kind="stable")


def swf_table(jobs: pd.DataFrame, time_unit_s: float = 1.0, renumber: bool = True) -> pd.DataFrame:
    """One run's jobs in the SWF column names :func:`write_swf` understands (mapping above)."""
    jobs = _one_run(jobs)
    ran = jobs["final_state"].isin(["finished", "killed"]).to_numpy()
    status = np.where(jobs["final_state"] == "finished", 1,
                      np.where(jobs["final_state"] == "killed", 0, 5))  # fmt: skip
    seconds = float(time_unit_s)
    with np.errstate(over="ignore"):  # too large for SWF: refused by the writer, by column
        table = pd.DataFrame({
            "job_id": np.arange(1, len(jobs) + 1) if renumber else jobs["job_id"].to_numpy(),
            "submit_time": jobs["submit_time"].to_numpy(dtype=float) * seconds,
            "wait_time": np.where(ran, jobs["wait_time"], np.nan) * seconds,
            "run_time": np.where(ran, jobs["run_time"], np.nan) * seconds,
            "allocated_processors": np.where(ran, jobs["processors"], np.nan),
            "requested_processors": jobs["processors"].to_numpy(dtype=float),
            "requested_time": _requested_time(jobs) * seconds,
            "status": status,
            "queue_id": 1,
            "partition_id": 1,
        })  # fmt: skip
    users = jobs["user_id"].to_numpy()
    if not renumber and (users >= 0).any():
        table["user_id"] = np.where(users >= 0, users, np.nan)
    return table


def _requested_time(jobs: pd.DataFrame) -> np.ndarray:
    """The requested time, or the run time where the two differ only by rounding (the
    engine's end minus start), so a reader does not see an overrun that did not happen."""
    planned = jobs["requested_time"].to_numpy(dtype=float)
    actual = jobs["run_time"].to_numpy(dtype=float)
    return np.where(np.isclose(actual, planned, rtol=1e-9, atol=0.0), actual, planned)


def jobflow_swf(scenario: dict[str, Any], time_unit_s: float = 1.0) -> SwfExport:
    """The SWF header of a job flow's export: its nodes (one processor each) give MaxNodes
    and MaxProcs, time 0 of the simulation is UnixStartTime 0 (UTC)."""
    nodes = int(scenario["environment"]["nodes"])
    fields: dict[str, object] = {
        "Computer": f"gridsim simulation: {nodes} heterogeneous nodes",
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
    return SwfExport(fields=fields, notes=(f"1 simulation time unit = {time_unit_s:g} s",))


def write_jobs_swf(
    jobs: pd.DataFrame,
    path: str | Path,
    *,
    nodes: int | None = None,
    time_unit_s: float = 1.0,
    note: str | None = None,
) -> None:
    """Write one job flow's jobs as an SWF file (:func:`jobflow_swf`'s header for ``nodes``)."""
    spec = jobflow_swf({"environment": {"nodes": nodes or 0}}, time_unit_s)
    fields = spec.fields if nodes else {**spec.fields, "Computer": "gridsim simulation",
                                        "MaxNodes": None, "MaxProcs": None}  # fmt: skip
    write_swf(swf_table(jobs, time_unit_s), path, fields=fields,
              notes=spec.notes + ((note,) if note else ()))  # fmt: skip


def batsim_table(
    jobs: pd.DataFrame, workload_name: str = "gridsim", time_unit_s: float = 1.0
) -> pd.DataFrame:
    """One run's jobs as Batsim's ``jobs.csv`` rows (columns :data:`BATSIM_COLUMNS`)."""
    jobs = _one_run(jobs)
    requested = _requested_time(jobs) * time_unit_s
    rows = []
    for index, job in enumerate(jobs.itertuples(index=False)):
        started = not math.isnan(job.start_time)
        state = _BATSIM_STATES.get(job.final_state, "RUNNING" if started else "SUBMITTED")
        times = (job.submit_time, job.start_time, job.finish_time)
        arrival, start, finish = (t * time_unit_s for t in times)
        runtime, turnaround = job.run_time * time_unit_s, finish - arrival
        rows.append({
            "job_id": int(job.job_id),
            "workload_name": workload_name,
            "profile": "",
            "submission_time": arrival,
            "requested_number_of_resources": int(job.processors),
            "requested_time": requested[index],
            "success": int(job.final_state == "finished"),
            "final_state": state,
            "starting_time": start,
            "execution_time": runtime,
            "finish_time": finish,
            "waiting_time": job.wait_time * time_unit_s,
            "turnaround_time": turnaround,
            "stretch": turnaround / runtime if runtime > 0 else math.nan,
            "consumed_energy": -1.0,
            "allocated_resources": job.allocated_resources or "",
            "metadata": "" if math.isnan(job.cost) else f"cost={job.cost:.6g}",
        })  # fmt: skip
    return pd.DataFrame(rows, columns=list(BATSIM_COLUMNS))


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
    "batsim"), for ``gridsim export``; ``run`` names the run (policy, replication) in a Note.
    A log's times are seconds already: ``time_unit_s`` applies to job flows."""
    from gridsim.experiments.kinds import declaration

    metadata = json.loads((folder / "metadata.json").read_text())
    scenario = metadata["scenario_resolved"]
    kind = declaration(metadata.get("kind", scenario.get("kind")))
    seconds = time_unit_s if kind.time_unit != "s" else 1.0
    if fmt == "batsim":
        write_jobs_batsim(jobs, output, metadata["scenario"], seconds)
        return
    if kind.swf_export is None:
        raise ValueError(f"{metadata.get('kind')} results have no SWF export")
    spec = kind.swf_export(scenario, seconds)
    label = f"scenario {metadata['scenario']}, {run}"
    write_swf(swf_table(jobs, seconds, spec.renumber), output, header=spec.header,
              fields=spec.fields, notes=(*spec.notes, label))  # fmt: skip


def replay_swf(scenario: dict[str, Any], time_unit_s: float = 1.0) -> SwfExport:
    """The SWF header of a log replay's export (:func:`replay_header`); jobs keep the log's
    numbers and users."""
    header, fields, notes = replay_header(scenario)
    return SwfExport(header, fields, notes, renumber=False)


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


def log_start(scenario: dict[str, Any]) -> float | None:
    """The Unix time of a replayed log's time 0 (its header's UnixStartTime), from the
    resolved scenario; None when the header has none, the log is no longer there, or the
    jobs come from a model (``workload: {model: ...}``, whose times start at 0)."""
    workload = scenario["workload"]
    if "model" in workload:
        return None
    path = workload["path"]
    try:
        header = read_header(Path(path).expanduser() if path else bundled_swf())
    except OSError:  # the log moved since the run: times stay seconds
        return None
    start = header.integer("UnixStartTime")
    return float(start) if start is not None else None


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
