"""The lines of a Slurm accounting dump: its header, its blocks of lines, each block's job
lines parsed into numbers.

Consumes a byte stream of ``sacct --parsable2`` output (:mod:`gridsim.workloads.slurm`
opens it); produces the header's column names, and per block of a few megabytes of lines a
table of the job lines' fields as numbers and names (:class:`DumpLines`), step lines counted
and left unparsed. Arrow's CSV reader splits the lines (LF, CRLF or CR alone; a line of
blanks is no job); a field not of its form, or a line without the header's field count, is a
:class:`~gridsim.workloads.records.WorkloadFormatError` naming the file and the line.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from gridsim.workloads import slurm_fields as fields
from gridsim.workloads.records import WorkloadFormatError

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


def read_header(stream, source: str) -> tuple[list[str], int, io.BufferedReader]:
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
                f"--allocations --parsable2 --format {SACCT_FORMAT} (docs/workloads.md)",
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


class DumpLines:
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


def empty_jobs(header: list[str]) -> pd.DataFrame:
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

    def parsed(self, name: str, parse: Callable[[Any], Any], form: str) -> np.ndarray | None:
        """The column ``name`` through ``parse`` (one of :mod:`slurm_fields`' parsers), its
        first bad value named as not ``form``; None if the dump has no such column."""
        if not self.has(name):
            return None
        result = parse(self.batch.column(name))
        self.fail(name, result.bad, form)
        return result.values

    def number(self, name: str) -> np.ndarray | None:
        return self.parsed(name, fields.numbers, "a number")

    def times(self, name: str, time_zone: str) -> np.ndarray | None:
        return self.parsed(name, lambda column: fields.times(column, time_zone),
                           "a time (epoch seconds or YYYY-MM-DDTHH:MM:SS)")  # fmt: skip

    def duration(self, name: str, minutes_alone: bool) -> np.ndarray | None:
        return self.parsed(name, lambda column: fields.durations(column, minutes_alone),
                           "a duration ([D-]HH:MM:SS, MM:SS, minutes, UNLIMITED)")  # fmt: skip

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


def either(*candidates: np.ndarray | None) -> np.ndarray:
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
    limit = either(check.duration("Timelimit", True), minutes(check.number("TimelimitRaw")))
    elapsed = nan
    if not check.has("End"):  # End - Start is the run time; Elapsed only stands in for it
        elapsed = either(check.duration("Elapsed", False), check.number("ElapsedRaw"), nan)
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
        "end": either(check.times("End", time_zone), nan),
        "elapsed": elapsed,
        "limit": limit if len(limit) else nan,
        "status": fields.state_status(batch.column("State")),
        "allocated": either(check.number("AllocCPUS"), check.number("NCPUS"),
                             alloc.cpus if alloc else None, nan),
        "requested": either(check.number("ReqCPUS"), req.cpus if req else None, nan),
        "nodes": either(check.number("AllocNodes"), check.number("NNodes"),
                         alloc.nodes if alloc else None, nan),
        "requested_nodes": either(check.number("ReqNodes"), req.nodes if req else None, nan),
        "gpus": either(alloc.gpus if alloc else None, req.gpus if req else None, nan),
        "memory_mib": either(req.memory_mib if req else None, nan),
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


def minutes(values: np.ndarray | None) -> np.ndarray | None:
    return None if values is None else values * 60
