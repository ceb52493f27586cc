"""Read workload logs in the Standard Workload Format (SWF) into a pandas job table.

Consumes: a path to an SWF file, plain text or gzip (recognised by its magic bytes; bzip2,
xz and other compressions are named and refused; a byte-order mark, CRLF line ends and
trailing blanks read as the same log), such as the cleaned logs of the Parallel Workloads
Archive [PWA], and an `SwfMapping` that says how fields become the simulator's job
attributes (processors, estimate, duration, which jobs to drop). Produces: the records of
:mod:`gridsim.workloads.records` (:func:`read_swf_records`) or, through the mapping, a
`WorkloadLog` holding the jobs `DataFrame`, the parsed `SwfHeader` and a `ReadReport`
counting what was read, dropped and repaired, per reason (:func:`read_swf`).

The columns, the mapping and the report are documented in docs/swf.md.

Cost: O(lines). The file is read a few megabytes of lines at a time, each chunk parsed in one
vectorised pass (`numpy.loadtxt`); only a chunk where that fails is walked line by line, to
name the malformed line or to skip it. The whole text is never held: memory is the parsed
numbers (18 floats a job) and the table.
"""

from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from gridsim.workloads.mapping import DERIVED_COLUMNS, DROP_REASONS, SwfMapping, apply_mapping
from gridsim.workloads.records import (
    STATUS_CANCELLED,
    SWF_COLUMNS,
    SWF_FIELDS,
    UNKNOWN,
    ReadReport,
    Records,
    WorkloadFormatError,
    WorkloadLog,
)
from gridsim.workloads.sources import open_text, text_chunks

__all__ = [
    "DERIVED_COLUMNS", "DROP_REASONS", "KTH_SP2_FIRST2000", "MAX_TIME", "MAX_VALUE",
    "STATUS_CANCELLED", "SWF_COLUMNS", "SWF_FIELDS", "TIME_FIELDS", "UNKNOWN", "SwfFormatError",
    "SwfHeader", "SwfLog", "SwfMapping", "SwfReadReport", "bundled_swf", "read_swf",
    "read_swf_records",
]  # fmt: skip

KTH_SP2_FIRST2000 = "kth-sp2-first2000.swf.gz"
_HEADER_ENTRY = re.compile(r"^\s*;\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?:\s+(.*?))?\s*$")
#: Fields holding seconds; the others hold counts, ids, codes and memory sizes.
TIME_FIELDS = frozenset(
    ("submit_time", "wait_time", "run_time", "average_cpu_time", "requested_time", "think_time")
)
#: Largest time a log may hold (s, 136 years): below 2**33 s a float64 time is kept to
#: 2**-20 s, finer than the microsecond a replay's start, finish and run times agree to.
MAX_TIME = 2**32
#: Largest value of any other field: integers beyond 2**53 are not exact in a float64.
MAX_VALUE = 2**53
_LIMITS = np.array([MAX_TIME if name in TIME_FIELDS else MAX_VALUE for name, _ in SWF_FIELDS])
_BEYOND = {
    True: "2**32 s (136 years; a replay keeps times to the microsecond)",
    False: "2**53 (larger integers are not exact)",
}  # for a time field, for another
#: The names these types had when SWF was the only format read.
SwfFormatError = WorkloadFormatError
SwfReadReport = ReadReport
SwfLog = WorkloadLog


@dataclass(frozen=True)
class SwfHeader:
    """The `; Key: value` comments of an SWF file, in file order, repeated keys kept.

    An indented comment line without a key continues the previous value (joined by a
    newline), as in the PWA's multi-line notes.
    """

    entries: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_comments(cls, comments: list[str]) -> SwfHeader:
        """Parse comment lines (with or without their leading `;`)."""
        entries: list[tuple[str, str]] = []
        for comment in comments:
            line = comment if comment.lstrip().startswith(";") else ";" + comment
            match = _HEADER_ENTRY.match(line)
            text = line.lstrip()[1:].strip()
            if match:
                entries.append((match.group(1), match.group(2) or ""))
            elif text and entries:
                key, value = entries[-1]
                entries[-1] = (key, f"{value}\n{text}" if value else text)
        return cls(tuple(entries))

    def values(self, key: str) -> tuple[str, ...]:
        """All values of `key` (case-insensitive), in file order."""
        return tuple(value for k, value in self.entries if k.lower() == key.lower())

    def integer(self, key: str) -> int | None:
        """The first value of `key` as an integer, or None if the key is absent."""
        values = self.values(key)
        if not values:
            return None
        try:
            return int(float(values[0].split()[0]))
        except (ValueError, IndexError):
            raise ValueError(f"header {key} should be a number, got {values[0]!r}") from None

    @property
    def max_procs(self) -> int | None:
        return self.integer("MaxProcs")

    @property
    def max_nodes(self) -> int | None:
        return self.integer("MaxNodes")

    @property
    def unix_start_time(self) -> int | None:
        return self.integer("UnixStartTime")

    @property
    def notes(self) -> tuple[str, ...]:
        return self.values("Note")

    @property
    def machine_processors(self) -> int | None:
        """MaxProcs, falling back to MaxNodes (None when neither is given or positive)."""
        for size in (self.max_procs, self.max_nodes):
            if size is not None and size > 0:
                return size
        return None


def bundled_swf(name: str = KTH_SP2_FIRST2000) -> Path:
    """Path of an SWF excerpt shipped in `gridsim/data` (default: KTH-SP2's first 2000 jobs)."""
    return Path(str(resources.files("gridsim") / "data" / name))


def read_swf(path: str | Path, mapping: SwfMapping | None = None) -> WorkloadLog:
    """Read an SWF file (plain or gzip) into a jobs table.

    Args:
        path: the file; gzip is recognised by its magic bytes, whatever the suffix.
        mapping: how fields map to job attributes and which jobs to drop; defaults to
            `SwfMapping()`.

    Returns:
        A `WorkloadLog`. Its `jobs` has the 18 SWF columns (times in s; SWF's `-1` becomes
        NaN in float columns and <NA> in the nullable-integer columns, `job_id` is int64),
        the record columns of :data:`~gridsim.workloads.records.RECORD_FIELDS` (unknown in
        an SWF log), then the derived columns `processors` (int64), `estimate` (s),
        `duration` (s, the time the job holds its processors in a replay), `killed` (bool),
        `start_time` and `finish_time` (s, the original schedule: submit + wait, + run
        time). Rows keep file order; the index is 0..n-1.

    Raises:
        WorkloadFormatError: a malformed line (wrong field count, text or a non-integer in a
            numeric field, a time beyond `MAX_TIME` or another value beyond `MAX_VALUE`),
            unless `mapping.on_malformed == "skip"`; a damaged gzip file, a file compressed
            another way, or a binary file.
    """
    mapping = mapping or SwfMapping()
    return apply_mapping(read_swf_records(path, mapping.on_malformed), mapping)


def read_swf_records(path: str | Path, on_malformed: str = "error") -> Records:
    """The records of an SWF file, read a chunk of lines at a time (see :func:`read_swf`)."""
    source = str(path)
    comments: list[str] = []
    blocks: list[np.ndarray] = []
    malformed: list[tuple[int, str]] = []
    lines_read = 0
    with open_text(Path(path)) as stream:
        for lines in text_chunks(stream, source):
            text = "".join(lines)
            comments += _comment_lines(lines)
            values = _parse_fast(text)
            if values is None:
                values, bad = _parse_line_by_line(lines, source, on_malformed, lines_read)
                malformed += bad
            blocks.append(values)
            lines_read += len(lines)
    values = np.concatenate(blocks) if blocks else np.empty((0, len(SWF_FIELDS)))
    return Records(table=values, header=SwfHeader.from_comments(comments), source=source,
                   format="swf", lines_read=lines_read, comment_lines=len(comments),
                   malformed=tuple(malformed))  # fmt: skip


def _comment_lines(lines: list[str]) -> list[str]:
    """What follows the ``;`` of every comment line (a line whose first non-blank is ``;``):
    a test for ``;`` per line first, as a regular expression over the whole text tried every
    position of it (9 ms of the 0.06 s read of KTH-SP2)."""
    comments = []
    for line in lines:
        if ";" in line and (body := line.lstrip(" \t")).startswith(";"):
            comments.append(body[1:].rstrip("\n").removesuffix("\r"))
    return comments


def _parse_fast(text: str) -> np.ndarray | None:
    """All job lines as an (n, 18) float array, or None if any line is not well formed."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            values = np.loadtxt(io.StringIO(text), comments=";", dtype=np.float64, ndmin=2)
    except ValueError:
        return None
    if values.size == 0:
        return np.empty((0, len(SWF_FIELDS)))
    if values.shape[1] != len(SWF_FIELDS) or not (np.abs(values) <= _LIMITS).all():
        return None  # NaN fails the comparison too
    integer_columns = [j for j, (_, kind) in enumerate(SWF_FIELDS) if kind == "int"]
    integers = values[:, integer_columns]
    if not (integers == np.round(integers)).all():
        return None
    return values


def _parse_line_by_line(
    lines: list[str], source: str, on_malformed: str, offset: int = 0
) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """The slow path: parse each line, raising on (or collecting) malformed ones; ``offset``
    is the number of lines before ``lines`` in the file."""
    rows: list[list[float]] = []
    malformed: list[tuple[int, str]] = []
    for line_number, line in enumerate(lines, start=offset + 1):
        tokens = line.split(";", 1)[0].split()
        if not tokens:
            continue
        problem = _line_problem(tokens)
        if problem is None:
            rows.append([float(token) for token in tokens])
        elif on_malformed == "error":
            raise WorkloadFormatError(source, line_number, problem)
        else:
            malformed.append((line_number, problem))
    values = np.array(rows, dtype=np.float64).reshape(-1, len(SWF_FIELDS))
    return values, malformed


def _line_problem(tokens: list[str]) -> str | None:
    if len(tokens) != len(SWF_FIELDS):
        return f"expected {len(SWF_FIELDS)} fields, found {len(tokens)}"
    for number, (token, (name, kind)) in enumerate(zip(tokens, SWF_FIELDS, strict=True), 1):
        try:
            value = float(token)
        except ValueError:
            return f"field {number} ({name}) is not a number: {token!r}"
        if not np.isfinite(value):
            return f"field {number} ({name}) is not a finite number: {token!r}"
        if abs(value) > _LIMITS[number - 1]:
            return f"field {number} ({name}) is {token}, beyond {_BEYOND[name in TIME_FIELDS]}"
        if kind == "int" and value != round(value):
            return f"field {number} ({name}) should be an integer, got {token!r}"
    return None
