"""Read workload logs in the Standard Workload Format (SWF) into a pandas job table.

Consumes: a path to an SWF file, plain text or gzip (recognised by its magic bytes; bzip2,
xz and other compressions are named and refused), such as the cleaned logs of the Parallel
Workloads Archive [PWA], and an `SwfMapping` that says how SWF fields become the simulator's
job attributes (processors, estimate, duration, which jobs to drop). Produces: an `SwfLog`
holding the jobs `DataFrame`, the parsed `SwfHeader` and an `SwfReadReport` counting what
was read, dropped and repaired, per reason.

The columns, the mapping and the report are documented in docs/swf.md.

Cost: O(lines). Parsing is vectorised (`numpy.loadtxt` on the whole text); only when that
fails does the reader walk the lines one by one, to name the malformed line or to skip it.
"""

from __future__ import annotations

import gzip
import io
import re
import warnings
import zlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, PositiveFloat, PositiveInt, model_validator

# The 18 SWF fields in file order: (column name, "int" or "float").
SWF_FIELDS: tuple[tuple[str, str], ...] = (
    ("job_id", "int"),
    ("submit_time", "float"),  # s since the log's UnixStartTime
    ("wait_time", "float"),  # s
    ("run_time", "float"),  # s
    ("allocated_processors", "int"),
    ("average_cpu_time", "float"),  # s
    ("used_memory", "float"),  # KB per processor
    ("requested_processors", "int"),
    ("requested_time", "float"),  # s (the user's estimate)
    ("requested_memory", "float"),  # KB per processor
    ("status", "int"),  # 0 failed, 1 completed, 5 cancelled, 2-4 partial
    ("user_id", "int"),
    ("group_id", "int"),
    ("executable_id", "int"),
    ("queue_id", "int"),
    ("partition_id", "int"),
    ("preceding_job_id", "int"),
    ("think_time", "float"),  # s
)
SWF_COLUMNS: tuple[str, ...] = tuple(name for name, _ in SWF_FIELDS)
DERIVED_COLUMNS: tuple[str, ...] = (
    "processors",
    "estimate",
    "duration",
    "killed",
    "start_time",
    "finish_time",
)
STATUS_CANCELLED = 5
UNKNOWN = -1
KTH_SP2_FIRST2000 = "kth-sp2-first2000.swf.gz"

# The order in which drop rules are tried; a job is counted under the first rule it meets.
DROP_REASONS: tuple[str, ...] = (
    "unknown_submit_time",
    "cancelled_before_start",
    "non_positive_run_time",
    "non_positive_processors",
    "larger_than_machine",
)
_HEADER_ENTRY = re.compile(r"^\s*;\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?:\s+(.*?))?\s*$")
_COMMENT_LINE = re.compile(r"^[ \t]*;(.*?)\r?$", re.MULTILINE)
_GZIP_MAGIC = b"\x1f\x8b"
#: Compressions recognised by their magic bytes but not read: (magic, name, how to undo it).
_UNREAD_COMPRESSIONS = (
    (b"BZh", "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip", "7z x"),
    (b"\x1f\x9d", "compress (.Z)", "uncompress"),
)
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
_MALFORMED_KEPT = 10  # how many malformed lines the report lists


class SwfFormatError(ValueError):
    """An SWF file that cannot be read; the message names the file and the line (None: the
    file as a whole, e.g. a truncated gzip stream)."""

    def __init__(self, source: str, line_number: int | None, problem: str):
        where = source if line_number is None else f"{source}, line {line_number}"
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.line_number = line_number
        self.problem = problem

    def __reduce__(self):  # rebuilt from its three fields when sent back from a worker
        return (type(self), (self.source, self.line_number, self.problem))


class SwfMapping(BaseModel):
    """How SWF fields become job attributes, and which jobs are kept.

    Attributes:
        processors: which field gives a job's processor count: "requested" (field 8, the
            default: it is what the scheduler saw at submission and is known for every job
            of the bundled logs, whereas "allocated", field 5, is missing for cancelled jobs
            and reflects the original machine's allocation granularity, e.g. whole 8-way
            nodes on SDSC-BLUE) or "allocated" (field 5, as pyss and Alea do).
        processors_fallback: use the other processor field when the chosen one is unknown
            or not positive (counted as a repair).
        estimate_fallback: when the requested time (field 9) is unknown or not positive,
            "run_time" sets the estimate to `estimate_fallback_factor` x run time; "fixed"
            sets it to `estimate_fallback_seconds`.
        estimate_fallback_factor: factor on the run time for the "run_time" fallback.
        estimate_fallback_seconds: the fixed estimate (s) for the "fixed" fallback.
        on_overrun: a job whose run time exceeds its estimate is killed at the estimate
            ("kill", as production batch systems do: duration = estimate, killed = True) or
            runs to completion ("run": duration = run time).
        drop_cancelled_before_start: drop jobs with status 5 (cancelled) and no positive run
            time: they never ran.
        larger_than_machine: jobs asking for more processors than the machine has are
            dropped ("drop") or clipped to the machine size ("clip", a repair).
        machine_processors: the machine size; by default the header's MaxProcs, falling back
            to MaxNodes. Without either, no job is too large.
        on_malformed: a malformed line raises `SwfFormatError` ("error") or is skipped and
            counted ("skip").
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    processors: Literal["requested", "allocated"] = "requested"
    processors_fallback: bool = True
    estimate_fallback: Literal["run_time", "fixed"] = "run_time"
    estimate_fallback_factor: PositiveFloat = 1.0
    estimate_fallback_seconds: PositiveFloat | None = None
    on_overrun: Literal["kill", "run"] = "kill"
    drop_cancelled_before_start: bool = True
    larger_than_machine: Literal["drop", "clip"] = "drop"
    machine_processors: PositiveInt | None = None
    on_malformed: Literal["error", "skip"] = "error"

    @model_validator(mode="after")
    def _fixed_fallback_has_seconds(self) -> SwfMapping:
        if self.estimate_fallback == "fixed" and self.estimate_fallback_seconds is None:
            raise ValueError('estimate_fallback "fixed" needs estimate_fallback_seconds')
        return self


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


@dataclass(frozen=True)
class SwfReadReport:
    """What `read_swf` did: lines read, jobs kept, dropped and repaired, with reasons.

    `dropped` and `repaired` map a reason to a job count; every drop reason of
    `DROP_REASONS` is present (zero if unused). A job is dropped for the first reason it
    meets in that order; a kept job can have several repairs.
    """

    source: str
    lines_read: int
    comment_lines: int
    job_lines: int
    malformed_lines: int
    jobs_kept: int
    machine_processors: int | None
    dropped: dict[str, int] = field(default_factory=dict)
    repaired: dict[str, int] = field(default_factory=dict)
    first_malformed: tuple[tuple[int, str], ...] = ()

    @property
    def jobs_dropped(self) -> int:
        return sum(self.dropped.values())

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [
            f"{self.source}: {self.lines_read} lines, {self.job_lines} job lines, "
            f"{self.malformed_lines} malformed skipped, {self.jobs_kept} jobs kept, "
            f"{self.jobs_dropped} dropped",
        ]
        lines += [f"  dropped {reason}: {n}" for reason, n in self.dropped.items() if n]
        lines += [f"  repaired {reason}: {n}" for reason, n in self.repaired.items() if n]
        return "\n".join(lines)


@dataclass(frozen=True)
class SwfLog:
    """A read SWF log: the jobs table, the header and the read report."""

    jobs: pd.DataFrame
    header: SwfHeader
    report: SwfReadReport

    @property
    def machine_processors(self) -> int | None:
        return self.report.machine_processors


def bundled_swf(name: str = KTH_SP2_FIRST2000) -> Path:
    """Path of an SWF excerpt shipped in `gridsim/data` (default: KTH-SP2's first 2000 jobs)."""
    return Path(str(resources.files("gridsim") / "data" / name))


def read_swf(path: str | Path, mapping: SwfMapping | None = None) -> SwfLog:
    """Read an SWF file (plain or gzip) into a jobs table.

    Args:
        path: the file; gzip is recognised by its magic bytes, whatever the suffix.
        mapping: how fields map to job attributes and which jobs to drop; defaults to
            `SwfMapping()`.

    Returns:
        An `SwfLog`. Its `jobs` has the 18 SWF columns (times in s; SWF's `-1` becomes NaN in
        float columns and <NA> in the nullable-integer columns, `job_id` is int64), then the
        derived columns `processors` (int64), `estimate` (s), `duration` (s, the time the
        job holds its processors in a replay), `killed` (bool), `start_time` and
        `finish_time` (s, the original schedule: submit + wait, + run time). Rows keep file
        order; the index is 0..n-1.

    Raises:
        SwfFormatError: a malformed line (wrong field count, text or a non-integer in a
            numeric field, a time beyond `MAX_TIME` or another value beyond `MAX_VALUE`),
            unless `mapping.on_malformed == "skip"`; a damaged gzip file, a file compressed
            another way, or a binary file.
    """
    mapping = mapping or SwfMapping()
    source = str(path)
    text = _read_text(Path(path))
    comments = _COMMENT_LINE.findall(text)
    header = SwfHeader.from_comments(comments)
    values = _parse_fast(text)
    malformed: list[tuple[int, str]] = []
    if values is None:
        values, malformed = _parse_line_by_line(text, source, mapping.on_malformed)
    try:
        machine = mapping.machine_processors or header.machine_processors
    except ValueError as error:  # a header entry that should be a number
        raise SwfFormatError(source, None, str(error)) from None
    jobs, dropped, repaired = _map_jobs(values, mapping, machine)
    report = SwfReadReport(
        source=source,
        lines_read=len(text.splitlines()),
        comment_lines=len(comments),
        job_lines=len(values) + len(malformed),
        malformed_lines=len(malformed),
        jobs_kept=len(jobs),
        machine_processors=machine,
        dropped=dropped,
        repaired=repaired,
        first_malformed=tuple(malformed[:_MALFORMED_KEPT]),
    )
    return SwfLog(jobs=jobs, header=header, report=report)


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as error:
            raise SwfFormatError(str(path), None, f"damaged gzip file ({error})") from None
    for magic, compression, undo in _UNREAD_COMPRESSIONS:
        if raw.startswith(magic):
            raise SwfFormatError(str(path), None, f"compressed with {compression}, which gridsim "
                                 f"does not read; decompress it ({undo}) or compress it with "
                                 "gzip")  # fmt: skip
    if b"\x00" in raw:
        raise SwfFormatError(str(path), None, "a binary file (it holds NUL bytes), not SWF text")
    return raw.decode("utf-8", errors="replace")


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
    text: str, source: str, on_malformed: str
) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """The slow path: parse each line, raising on (or collecting) malformed ones."""
    rows: list[list[float]] = []
    malformed: list[tuple[int, str]] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split(";", 1)[0].split()
        if not tokens:
            continue
        problem = _line_problem(tokens)
        if problem is None:
            rows.append([float(token) for token in tokens])
        elif on_malformed == "error":
            raise SwfFormatError(source, line_number, problem)
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


def _swf_frame(values: np.ndarray) -> pd.DataFrame:
    """The 18 SWF columns with -1 turned into NaN / <NA>."""
    columns: dict[str, object] = {}
    for j, (name, kind) in enumerate(SWF_FIELDS):
        column = values[:, j]
        unknown = column == UNKNOWN
        if name == "job_id":
            columns[name] = column.astype(np.int64)
        elif kind == "int":
            integers = np.where(unknown, 0, column).astype(np.int64)
            columns[name] = pd.arrays.IntegerArray(integers, unknown)
        else:
            columns[name] = np.where(unknown, np.nan, column)
    return pd.DataFrame(columns)


def _map_jobs(
    values: np.ndarray, mapping: SwfMapping, machine: int | None
) -> tuple[pd.DataFrame, dict[str, int], dict[str, int]]:
    """Apply the mapping: derived columns, drops and repairs, each counted."""
    frame = _swf_frame(values)
    requested = frame["requested_processors"].to_numpy(dtype=np.float64, na_value=np.nan)
    allocated = frame["allocated_processors"].to_numpy(dtype=np.float64, na_value=np.nan)
    status = frame["status"].to_numpy(dtype=np.float64, na_value=np.nan)
    submit = frame["submit_time"].to_numpy()
    run_time = frame["run_time"].to_numpy()
    requested_time = frame["requested_time"].to_numpy()

    chosen, other = (requested, allocated)
    if mapping.processors == "allocated":
        chosen, other = (allocated, requested)
    use_other = mapping.processors_fallback & ~(chosen > 0) & (other > 0)
    processors = np.where(use_other, other, chosen)

    rules = {
        "unknown_submit_time": np.isnan(submit),
        "cancelled_before_start": mapping.drop_cancelled_before_start
        & (status == STATUS_CANCELLED)
        & ~(run_time > 0),
        "non_positive_run_time": ~(run_time > 0),
        "non_positive_processors": ~(processors > 0),
        "larger_than_machine": (mapping.larger_than_machine == "drop")
        & (machine is not None)
        & (processors > (machine or 0)),
    }
    keep = np.ones(len(frame), dtype=bool)
    dropped: dict[str, int] = {}
    for reason in DROP_REASONS:
        hit = keep & rules[reason]
        dropped[reason] = int(hit.sum())
        keep &= ~hit

    other_name = "allocated" if mapping.processors == "requested" else "requested"
    clip = keep & (machine is not None) & (processors > (machine or 0))
    processors = np.where(clip, machine or 0, processors)
    missing_estimate = ~(requested_time > 0)
    if mapping.estimate_fallback == "fixed":
        fallback = np.full(len(frame), mapping.estimate_fallback_seconds, dtype=np.float64)
    else:
        fallback = mapping.estimate_fallback_factor * run_time
    estimate = np.where(missing_estimate, fallback, requested_time)
    overrun = run_time > estimate
    killed = overrun & (mapping.on_overrun == "kill")
    duration = np.where(killed, estimate, run_time)
    repaired = {
        f"processors_from_{other_name}": int((keep & use_other).sum()),
        "processors_clipped_to_machine": int(clip.sum()),
        f"estimate_from_{mapping.estimate_fallback}": int((keep & missing_estimate).sum()),
        "run_time_capped_at_estimate": int((keep & killed).sum()),
    }

    start_time = submit + frame["wait_time"].to_numpy()
    frame["processors"] = np.where(keep, processors, 0).astype(np.int64)
    frame["estimate"] = estimate
    frame["duration"] = duration
    frame["killed"] = killed
    frame["start_time"] = start_time
    frame["finish_time"] = start_time + run_time
    jobs = frame.loc[keep].reset_index(drop=True)
    return jobs, dropped, repaired
