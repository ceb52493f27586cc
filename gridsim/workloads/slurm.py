"""Read a Slurm accounting dump (``sacct --parsable2``) into job records.

Consumes: a ``|``-separated dump with a header row, columns in any order (plain or gzip), as
``sacct --allusers --parsable2 --format ...`` prints it (the columns used, and the command
that gives them, are in docs/workloads.md). Produces
:class:`~gridsim.workloads.records.Records`: one record per job, in submission order,
numbered 1..n (``source_job_id`` keeps Slurm's id), times in seconds from the first
submission (the header's UnixStartTime), and what the dump says of processors, nodes,
memory, GPUs, user, group, partition, state and exit code
(:data:`~gridsim.workloads.records.RECORD_FIELDS`).

What becomes a job:

* job steps (``123.batch``, ``123.extern``, ``123.0``) are parts of their job: counted as
  folded, not read as jobs;
* the tasks of an array job (``123_4``) are jobs of their own; a pending remainder
  (``123_[5-10]``) is one record that never ran;
* the components of a heterogeneous job (``123+0``, ``123+1``) start together: they are
  folded into one job holding all their processors, nodes, memory and GPUs;
* run time is End - Start (or Elapsed for a finished job when there is no End column); a
  job still pending or running when the dump was taken has none, and a job cancelled before
  it started has status 5 (cancelled) and none: the mapping drops and counts both.

Slurm states become SWF statuses (COMPLETED 1; FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY,
PREEMPTED... 0; CANCELLED 5). A dump does not state the machine's size; with a NodeList
column the header gets the nodes seen times the most processors any job had on one node
(a note says so), else the scenario gives it (``workload.mapping.machine_processors``).

Cost: O(lines). Arrow's CSV reader splits the dump a block of a few megabytes at a time;
step lines are dropped before any field of theirs is parsed, and the job lines' fields are
parsed a column at a time (:mod:`~gridsim.workloads.slurm_fields`), so the dump is never
held whole, nor as Python strings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.workloads import slurm_fields as fields
from gridsim.workloads.records import Records, records_frame
from gridsim.workloads.slurm_lines import (
    COLUMNS,
    NEEDS,
    SACCT_FORMAT,
    DumpLines,
    either,
    empty_jobs,
    read_header,
)
from gridsim.workloads.sources import gzip_errors, open_bytes

__all__ = ["COLUMNS", "NEEDS", "SACCT_FORMAT", "read_slurm_records"]


def read_slurm_records(path: str | Path, time_zone: str = "UTC") -> Records:
    """The job records of a sacct dump (module docstring); ISO times are local times of
    ``time_zone`` (an IANA name; epoch times need none)."""
    source = str(path)
    with open_bytes(Path(path)) as stream, gzip_errors(source):
        header, header_line, rest = read_header(stream, source)
        dump = DumpLines(source, header, header_line)
        for batch in dump.batches(rest):
            dump.read(batch, time_zone)
    jobs = pd.concat(dump.parts, ignore_index=True) if dump.parts else empty_jobs(header)
    dump.parts.clear()  # the blocks' tables, now in ``jobs``
    jobs, components = _fold_heterogeneous(jobs)
    return _records(jobs, dump.node_lists, source, time_zone, dump.lines_read, dump.steps,
                    components)  # fmt: skip


def _fold_heterogeneous(jobs: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Components ``123+k`` folded into one job ``123`` (module docstring); how many
    components were folded into another."""
    if not jobs["source_job_id"].str.contains("+", regex=False).any():
        jobs["mixed_nodes"] = False
        return jobs, 0
    component = jobs["source_job_id"].str.extract(r"^(.+)\+\d+$", expand=False)
    is_component = component.notna().to_numpy()
    parts = jobs[is_component].assign(source_job_id=component[is_component])
    with np.errstate(divide="ignore", invalid="ignore"):
        shapes = pd.DataFrame({"job": parts["source_job_id"],
                               "cores": parts["allocated"] / parts["nodes"],
                               "memory": parts["memory_mib"] / parts["requested_nodes"],
                               "gpus": parts["gpus"] / parts["nodes"]})  # fmt: skip
    # components whose nodes differ (4 cores on one, 32 on another) have no one per-node
    # value: the folded job's per-node fields stay unknown
    mixed = shapes.groupby("job", sort=False).nunique(dropna=False).max(axis=1) > 1
    totals = ["allocated", "requested", "nodes", "requested_nodes", "gpus", "memory_mib"]
    folded = parts.groupby("source_job_id", sort=False).agg(
        {**{name: "first" for name in parts.columns if name != "source_job_id"},
         "submit": "min", "start": "min", "end": "max", "elapsed": "max", "limit": "max",
         "exit_status": "max", **{name: lambda s: s.sum(min_count=1) for name in totals}},
    ).reset_index()  # fmt: skip
    folded["mixed_nodes"] = mixed.reindex(folded["source_job_id"]).to_numpy()
    merged = pd.concat([jobs[~is_component].assign(mixed_nodes=False),
                        folded[[*jobs.columns, "mixed_nodes"]]], ignore_index=True)  # fmt: skip
    return merged, int(is_component.sum()) - len(folded)


def _records(jobs: pd.DataFrame, node_lists: set[str], source: str, time_zone: str,
             lines_read: int, steps: int, components: int) -> Records:  # fmt: skip
    """The records table and header of the parsed jobs, in submission order."""
    from gridsim.workloads.swf import SwfHeader

    jobs = jobs.sort_values("submit", kind="stable", na_position="last").reset_index(drop=True)
    origin = float(np.floor(np.nanmin(jobs["submit"]))) if jobs["submit"].notna().any() else 0.0
    start, end, status = (jobs[name].to_numpy() for name in ("start", "end", "status"))
    finished = np.isin(status, (0, 1, 5))
    run_time = np.where(~np.isnan(end), end - start,
                        np.where(finished, jobs["elapsed"].to_numpy(), np.nan))  # fmt: skip
    nodes = either(jobs["nodes"].to_numpy(), jobs["requested_nodes"].to_numpy())
    processors = np.where(jobs["allocated"] > 0, jobs["allocated"], jobs["requested"])
    uniform = ~jobs["mixed_nodes"].to_numpy(bool)  # a heterogeneous job's nodes differ
    cores = np.where(uniform, _per_node(processors, nodes), np.nan)
    memory_per_node = np.where(uniform, either(
        _per_node(jobs["memory_mib"].to_numpy(), either(jobs["requested_nodes"], nodes), False),
        np.where(jobs["memory_request_per_cpu"], jobs["memory_request_mib"] * cores,
                 jobs["memory_request_mib"]),
    ), np.nan)  # fmt: skip
    users, _ = pd.factorize(jobs["user"])
    groups, _ = pd.factorize(jobs["group"])
    partitions, partition_names = pd.factorize(jobs["partition"])
    columns = {
        "job_id": np.arange(1, len(jobs) + 1),
        "submit_time": jobs["submit"].to_numpy() - origin,
        "wait_time": start - jobs["submit"].to_numpy(),
        "run_time": run_time,
        "allocated_processors": jobs["allocated"].to_numpy(),
        "requested_processors": jobs["requested"].to_numpy(),
        "requested_time": jobs["limit"].to_numpy(),
        "requested_memory": memory_per_node * 1024 / cores,
        "status": status,
        "user_id": np.where(users >= 0, users + 1, -1),
        "group_id": np.where(groups >= 0, groups + 1, -1),
        "partition_id": np.where(partitions >= 0, partitions + 1, -1),
        "source_job_id": jobs["source_job_id"].array,
        "nodes": nodes,
        "cores_per_node": cores,
        "requested_memory_per_node_mb": memory_per_node,
        "gpus_per_node": np.where(uniform, _per_node(jobs["gpus"].to_numpy(), nodes), np.nan),
        "user": jobs["user"].array,
        "group": jobs["group"].array,
        "partition": jobs["partition"].array,
        "exit_status": jobs["exit_status"].to_numpy(),
    }
    entries = [("UnixStartTime", str(int(origin))), ("TimeZoneString", time_zone)]
    entries += [("Partition", f"{number} {name}")
                for number, name in enumerate(partition_names, start=1)]  # fmt: skip
    notes: list[str] = []
    machine = _machine_seen(node_lists, processors, nodes)
    if machine is not None:
        hosts, per_node = machine
        entries += [("MaxNodes", str(hosts)), ("MaxProcs", str(hosts * per_node))]
        notes.append(f"machine size seen in the dump: {hosts} nodes in NodeList x {per_node} "
                     "processors (the most any job had on one node)")  # fmt: skip
    entries.append(("Note", "converted from a Slurm accounting dump (sacct) by gridsim"))
    folded = {"job_steps": steps, "heterogeneous_components": components}
    return Records(table=records_frame(columns, len(jobs)), header=SwfHeader(tuple(entries)),
                   source=source, format="slurm", lines_read=lines_read, folded=folded,
                   notes=tuple(notes))  # fmt: skip


def _per_node(total: np.ndarray, nodes: np.ndarray, whole: bool = True) -> np.ndarray:
    """``total`` / ``nodes`` where both are known and positive (with ``whole``, only where
    it divides evenly)."""
    total, nodes = np.asarray(total, float), np.asarray(nodes, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = total / nodes
    valid = (nodes > 0) & ~np.isnan(total)
    if whole:
        valid &= share == np.round(share)
    return np.where(valid, share, np.nan)


def _machine_seen(node_lists: set[str], processors: np.ndarray,
                  nodes: np.ndarray) -> tuple[int, int] | None:  # fmt: skip
    """Hosts named in the node lists, and the most processors any job had per node."""
    hosts: set[str] = set()
    for expression in node_lists:
        try:
            hosts.update(fields.expand_hostlist(expression))
        except ValueError:
            continue  # a node list gridsim cannot expand names no host it can count
    per_node = _per_node(processors, nodes, whole=False)
    if not hosts or np.isnan(per_node).all():
        return None
    return len(hosts), int(np.ceil(np.nanmax(per_node)))
