"""Read a Slurm accounting dump (``sacct --parsable2``) into job records.

Consumes: a ``|``-separated dump with a header row, columns in any order (plain or gzip), as
``sacct --allusers --parsable2 --format ...`` prints it (the columns used, and the command
that gives them, are in docs/workloads.md). Produces
:class:`~gridsim.workloads.records.Records`: one record per job, in submission order,
numbered 1..n (``source_job_id`` keeps Slurm's id), times in seconds from the first
submission (the header's UnixStartTime), and what the dump says of processors, nodes,
memory, GPUs, user, group, partition, state and exit code (:data:`RECORD_FIELDS`).

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

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from gridsim.workloads import slurm_fields as fields
from gridsim.workloads.records import Records, WorkloadFormatError, records_frame
from gridsim.workloads.sources import gzip_errors, open_bytes

#: Columns read (sacct's names; the header may spell them in any case). A dump needs
#: JobID, Submit, State, a run time (Start and End, or Elapsed) and a processor count.
COLUMNS = (
    "JobID", "JobIDRaw", "User", "Group", "Account", "Partition", "Submit", "Start", "End",
    "Elapsed", "ElapsedRaw", "Timelimit", "TimelimitRaw", "State", "ExitCode", "AllocCPUS",
    "NCPUS", "ReqCPUS", "NNodes", "AllocNodes", "ReqNodes", "AllocTRES", "ReqTRES", "ReqMem",
    "NodeList",
)  # fmt: skip
#: Each need, and the columns that meet it (any one of them).
NEEDS = {
    "a job id": ("JobID",),
    "a submit time": ("Submit",),
    "a state": ("State",),
    "a start time": ("Start",),
    "an end time or elapsed time": ("End", "Elapsed", "ElapsedRaw"),
    "a processor count": ("AllocCPUS", "NCPUS", "ReqCPUS", "AllocTRES", "ReqTRES"),
}
#: The sacct command docs/workloads.md gives (the columns gridsim reads).
SACCT_FORMAT = ("JobID,JobIDRaw,User,Group,Account,Partition,Submit,Start,End,Elapsed,"
                "Timelimit,State,ExitCode,AllocCPUS,ReqCPUS,NNodes,ReqNodes,AllocTRES,ReqTRES,"
                "ReqMem,NodeList")  # fmt: skip


def read_slurm_records(path: str | Path, time_zone: str = "UTC") -> Records:
    """The job records of a sacct dump (module docstring); ISO times are local times of
    ``time_zone`` (an IANA name; epoch times need none)."""
    source = str(path)
    with open_bytes(Path(path)) as stream, gzip_errors(source):
        header, header_line, rest = _header(stream, source)
        dump = _Dump(source, header, header_line)
        for batch in dump.batches(rest):
            dump.read(batch, time_zone)
    jobs = pd.concat(dump.parts, ignore_index=True) if dump.parts else _empty(header)
    jobs, components = _fold_heterogeneous(jobs)
    return _records(jobs, dump.node_lists, source, time_zone, dump.lines_read, dump.steps,
                    components)  # fmt: skip


def _header(stream, source: str) -> tuple[list[str], int, io.BufferedReader]:
    """The canonical column names of the first non-blank line, its line number, and the rest
    of the stream (line ends may be LF, CRLF or CR alone)."""
    data = b""
    while True:
        chunk = stream.read(1 << 16)
        data += chunk
        text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
        lines = re.split(r"\r\n|\r|\n", text)
        filled = [i for i, line in enumerate(lines[:-1]) if line.strip()]
        if filled or not chunk:
            break
    if not filled and not lines[-1].strip():
        raise WorkloadFormatError(source, None, "empty: no sacct header line (JobID|...)")
    number = filled[0] + 1 if filled else len(lines)
    text = lines[number - 1].strip()
    ends = list(re.finditer(rb"\r\n|\r|\n", data))
    rest = data[ends[number - 1].end() :] if len(ends) >= number else b""
    remaining = io.BufferedReader(_Prefixed(rest, stream), buffer_size=1 << 16)
    canonical = {name.lower(): name for name in COLUMNS}
    names = [canonical.get(name.strip().lower(), name.strip()) for name in text.split("|")]
    repeated = sorted({name for name in names if names.count(name) > 1 and name})
    if repeated:
        raise WorkloadFormatError(source, number, f"column {repeated[0]} given twice")
    for need, alternatives in NEEDS.items():
        if not any(name in names for name in alternatives):
            given = " or ".join(alternatives)
            raise WorkloadFormatError(
                source, number, f"missing column {given} ({need}); dump with sacct "
                f"--parsable2 --format {SACCT_FORMAT} (docs/workloads.md)",
            )  # fmt: skip
    return names, number, remaining


class _Prefixed(io.RawIOBase):
    """``prefix`` and then the rest of ``stream``, as one stream."""

    def __init__(self, prefix: bytes, stream) -> None:
        self.prefix, self.stream = prefix, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.prefix:
            count = min(len(buffer), len(self.prefix))
            buffer[:count] = self.prefix[:count]
            self.prefix = self.prefix[count:]
            return count
        data = self.stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class _Dump:
    """What reading the dump's lines gathers: the job lines' parsed fields (a table per
    block), the node lists, the steps folded, and which lines were blank (to name lines)."""

    def __init__(self, source: str, header: list[str], header_line: int):
        self.source, self.header, self.first_line = source, header, header_line + 1
        self.parts: list[pd.DataFrame] = []
        self.node_lists: set[str] = set()
        self.steps = 0
        self.rows = 0  # rows read so far (blank lines are rows too)
        self.skipped: list[int] = []  # lines of white space only, which Arrow skips
        self.bad_row: tuple[int | None, int] | None = None
        self.lines_read = header_line

    def batches(self, stream):
        """Arrow record batches of the lines after the header, every column as text."""
        names = [name if name in COLUMNS else f"unused {i}" for i, name in enumerate(self.header)]
        used = used_columns(names)
        options = (
            pacsv.ReadOptions(column_names=names, block_size=1 << 22, use_threads=False),
            pacsv.ParseOptions(delimiter="|", quote_char=False, ignore_empty_lines=False,
                               invalid_row_handler=self._invalid_row),
            pacsv.ConvertOptions(column_types=dict.fromkeys(used, pa.string()),
                                 include_columns=used, strings_can_be_null=False),
        )  # fmt: skip
        if not stream.peek(1):  # the header alone: no job line
            return
        try:
            reader = pacsv.open_csv(stream, *options)
            for batch in reader:
                self._raise_on_bad_row()
                yield batch
        except pa.ArrowInvalid as error:
            self._raise_on_bad_row()
            raise WorkloadFormatError(self.source, None, f"not a readable sacct dump ({error})"
                                      ) from None  # fmt: skip
        self._raise_on_bad_row()

    def _invalid_row(self, row) -> str:
        line = None if row.number is None else self.first_line - 1 + row.number
        if row.text.strip():
            if self.bad_row is None:
                self.bad_row = (line, row.actual_columns)
            return "error"
        if line is not None:
            self.skipped.append(line)
        return "skip"

    def _raise_on_bad_row(self) -> None:
        if self.bad_row is not None:
            line, found = self.bad_row
            raise WorkloadFormatError(self.source, line, f"expected {len(self.header)} fields "
                                      f"(the header's), found {found}")  # fmt: skip

    def line_of(self, row: int) -> int:
        """The file line of the dump's ``row``-th row (0-based, blank lines counted)."""
        line = self.first_line + row
        for skipped in self.skipped:
            if skipped <= line:
                line += 1
        return line

    def read(self, batch: pa.RecordBatch, time_zone: str) -> None:
        """Parse one block: steps counted, job lines parsed, node lists kept."""
        job_id = fields.strip(batch.column("JobID"))
        is_step = pc.match_substring(job_id, ".").to_numpy(zero_copy_only=False)
        blank = pc.equal(job_id, "").to_numpy(zero_copy_only=False)
        self.steps += int(is_step.sum())
        keep = ~is_step & ~blank
        rows = np.flatnonzero(keep) + self.rows
        self.rows += batch.num_rows
        self.lines_read = self.line_of(self.rows - 1) if self.rows else self.lines_read
        jobs = batch.filter(pa.array(keep))
        if "NodeList" in jobs.schema.names:
            self.node_lists.update(pc.unique(jobs.column("NodeList")).to_pylist())
        self.parts.append(_parse(jobs, lambda i: self.line_of(int(rows[i])), self.source,
                                 time_zone))  # fmt: skip


def used_columns(names: list[str]) -> list[str]:
    """The columns read: those of :data:`COLUMNS` the dump has, less those another one
    makes unneeded (Elapsed when there is an End, Account when there is a Group...)."""
    unneeded = {"JobIDRaw"}
    for column, instead in (("End", ("Elapsed", "ElapsedRaw")), ("Group", ("Account",)),
                            ("AllocCPUS", ("NCPUS",)), ("Timelimit", ("TimelimitRaw",)),
                            ("Elapsed", ("ElapsedRaw",)), ("AllocNodes", ("NNodes",))):  # fmt: skip
        if column in names:
            unneeded.update(instead)
    return [name for name in names if name in COLUMNS and name not in unneeded]


def _empty(header: list[str]) -> pd.DataFrame:
    names = used_columns(header)
    empty = pa.RecordBatch.from_pydict({name: pa.array([], pa.string()) for name in names})
    return _parse(empty, lambda i: 0, "")


class _Checked:
    """Parses the columns of one block, raising a WorkloadFormatError at the first bad
    value (with its file line)."""

    def __init__(self, batch: pa.RecordBatch, line_of, source: str):
        self.batch, self.line_of, self.source = batch, line_of, source

    def has(self, name: str) -> bool:
        return name in self.batch.schema.names

    def fail(self, name: str, bad: np.ndarray, form: str) -> None:
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            value = self.batch.column(name)[row].as_py().strip()
            raise WorkloadFormatError(self.source, self.line_of(row),
                                      f"{name} is not {form}: {value!r}")  # fmt: skip

    def number(self, name: str) -> np.ndarray | None:
        if not self.has(name):
            return None
        parsed = fields.numbers(self.batch.column(name))
        self.fail(name, parsed.bad, "a number")
        return parsed.values

    def times(self, name: str, time_zone: str) -> np.ndarray | None:
        if not self.has(name):
            return None
        parsed = fields.times(self.batch.column(name), time_zone)
        self.fail(name, parsed.bad, "a time (epoch seconds or YYYY-MM-DDTHH:MM:SS)")
        return parsed.values

    def duration(self, name: str, minutes_alone: bool) -> np.ndarray | None:
        if not self.has(name):
            return None
        parsed = fields.durations(self.batch.column(name), minutes_alone)
        self.fail(name, parsed.bad, "a duration ([D-]HH:MM:SS, MM:SS, minutes, UNLIMITED)")
        return parsed.values

    def fail_in(self, name: str, bad: np.ndarray, rows: np.ndarray, form: str) -> None:
        """:meth:`fail` for values parsed from the ``rows`` (a mask) of the column only."""
        whole = np.zeros(len(rows), bool)
        whole[rows] = bad
        self.fail(name, whole, form)

    def tres(self, name: str, same_as: fields.Tres | None = None,
             same_column: str = "") -> fields.Tres | None:  # fmt: skip
        """A TRES column; where it equals ``same_column`` (parsed as ``same_as``), that
        column's values are taken rather than parsed again."""
        if not self.has(name):
            return None
        form = "a TRES list (cpu=4,mem=16G,node=1,gres/gpu=2)"
        column = self.batch.column(name)
        if same_as is None:
            parsed = fields.tres(column)
            self.fail(name, parsed.bad, form)
            return parsed
        differs = pc.not_equal(column, self.batch.column(same_column))
        rows = differs.to_numpy(zero_copy_only=False)
        parsed = fields.tres(pc.filter(column, differs))
        self.fail_in(name, parsed.bad, rows, form)
        values = {}
        for part in ("cpus", "memory_mib", "nodes", "gpus"):
            values[part] = getattr(same_as, part).copy()
            values[part][rows] = getattr(parsed, part)
        return fields.Tres(**values, bad=np.zeros(len(rows), bool))

    def text(self, name: str) -> pa.Array | None:
        """A column of names, stripped, null where empty."""
        if not self.has(name):
            return None
        text = fields.strip(self.batch.column(name))
        return pc.if_else(pc.equal(text, ""), None, text)


def _either(*candidates: np.ndarray | None) -> np.ndarray:
    """The first candidate's values, each NaN filled from the next candidates."""
    present = [c for c in candidates if c is not None]
    result = np.array(present[0], dtype=np.float64) if present else np.array([])
    for other in present[1:]:
        result = np.where(np.isnan(result), other, result)
    return result


def _parse(batch: pa.RecordBatch, line_of, source: str, time_zone: str = "UTC") -> pd.DataFrame:
    """One block's job lines as numbers (epoch times, totals) and strings."""
    rows = batch.num_rows
    nan = np.full(rows, np.nan)
    check = _Checked(batch, line_of, source)
    alloc = check.tres("AllocTRES")
    req = check.tres("ReqTRES", same_as=alloc, same_column="AllocTRES")
    limit = _either(check.duration("Timelimit", True), _minutes(check.number("TimelimitRaw")))
    elapsed = nan
    if not check.has("End"):  # End - Start is the run time; Elapsed only stands in for it
        elapsed = _either(check.duration("Elapsed", False), check.number("ElapsedRaw"), nan)
    exit_status = nan
    if check.has("ExitCode"):
        codes = fields.exit_codes(batch.column("ExitCode"))
        check.fail("ExitCode", codes.bad, "an exit code (code:signal)")
        exit_status = codes.values
    memory, memory_per_cpu = nan, np.zeros(rows, bool)
    needed = np.isnan(req.memory_mib) if req else np.ones(rows, bool)
    if check.has("ReqMem") and needed.any():  # ReqTRES's mem, where it has one, says it
        memory, memory_per_cpu = np.full(rows, np.nan), np.zeros(rows, bool)
        subset = pa.array(needed)
        requests, per_cpu = fields.memory_requests(pc.filter(batch.column("ReqMem"), subset))
        check.fail_in("ReqMem", requests.bad, needed, "a memory size (4000M, 16Gn, 2Gc)")
        memory[needed], memory_per_cpu[needed] = requests.values, per_cpu
    group = check.text("Group") if check.has("Group") else check.text("Account")
    return pd.DataFrame({
        "source_job_id": _strings(fields.strip(batch.column("JobID"))),
        "submit": check.times("Submit", time_zone),
        "start": check.times("Start", time_zone),
        "end": _either(check.times("End", time_zone), nan),
        "elapsed": elapsed,
        "limit": limit if len(limit) else nan,
        "status": fields.state_status(batch.column("State")),
        "allocated": _either(check.number("AllocCPUS"), check.number("NCPUS"),
                             alloc.cpus if alloc else None, nan),
        "requested": _either(check.number("ReqCPUS"), req.cpus if req else None, nan),
        "nodes": _either(check.number("AllocNodes"), check.number("NNodes"),
                         alloc.nodes if alloc else None, nan),
        "requested_nodes": _either(check.number("ReqNodes"), req.nodes if req else None, nan),
        "gpus": _either(alloc.gpus if alloc else None, req.gpus if req else None, nan),
        "memory_mib": _either(req.memory_mib if req else None, nan),
        "memory_request_mib": memory,
        "memory_request_per_cpu": memory_per_cpu,
        "exit_status": exit_status,
        "user": _strings(check.text("User")),
        "group": _strings(group),
        "partition": _strings(check.text("Partition")),
    })  # fmt: skip


def _strings(array: pa.Array | None) -> pd.Series | None:
    """Arrow text as a pandas string column (None stays None: no such column)."""
    return None if array is None else pd.Series(array.to_pandas(), dtype="string")


def _minutes(values: np.ndarray | None) -> np.ndarray | None:
    return None if values is None else values * 60


def _fold_heterogeneous(jobs: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Components ``123+k`` folded into one job ``123`` (module docstring); how many
    components were folded into another."""
    if not jobs["source_job_id"].str.contains("+", regex=False).any():
        return jobs.assign(mixed_nodes=False), 0
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
    nodes = _either(jobs["nodes"].to_numpy(), jobs["requested_nodes"].to_numpy())
    processors = np.where(jobs["allocated"] > 0, jobs["allocated"], jobs["requested"])
    uniform = ~jobs["mixed_nodes"].to_numpy(bool)  # a heterogeneous job's nodes differ
    cores = np.where(uniform, _per_node(processors, nodes), np.nan)
    memory_per_node = np.where(uniform, _either(
        _per_node(jobs["memory_mib"].to_numpy(), _either(jobs["requested_nodes"], nodes), False),
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
        "source_job_id": jobs["source_job_id"].to_numpy(object),
        "nodes": nodes,
        "cores_per_node": cores,
        "requested_memory_per_node_mb": memory_per_node,
        "gpus_per_node": np.where(uniform, _per_node(jobs["gpus"].to_numpy(), nodes), np.nan),
        "user": jobs["user"].to_numpy(object),
        "group": jobs["group"].to_numpy(object),
        "partition": jobs["partition"].to_numpy(object),
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
    return Records(records=records_frame(columns, len(jobs)), header=SwfHeader(tuple(entries)),
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
