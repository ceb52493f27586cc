"""The job record every workload reader produces, whatever the format it reads.

Consumes nothing; defines what the readers (:mod:`~gridsim.workloads.swf`,
:mod:`~gridsim.workloads.slurm`, :mod:`~gridsim.workloads.batsim`,
:mod:`~gridsim.workloads.jobs_table`) produce: a *records* table, one row per job as the file
describes it (nothing dropped yet), with

* the 18 fields of the Standard Workload Format (:data:`SWF_FIELDS`), the lingua franca of
  workload logs: times in seconds from the log's start, processors, the user's estimate,
  status, user and group numbers; unknown values are NaN or <NA>;
* :data:`RECORD_FIELDS`, what richer formats add: nodes x cores, memory and GPUs per node,
  user, group and partition names, exit status, the job's id as its format wrote it.

:mod:`~gridsim.workloads.mapping` then turns records into the jobs a replay schedules
(processors, estimate, duration, which jobs to drop); a replay reads processors only, the
other resources wait in the records for the schedulers that will use them. The columns are
documented in docs/workloads.md; a test keeps that page and :data:`RECORD_FIELDS` in step.

Also here: :class:`WorkloadFormatError`, the one error every reader raises (file and line),
and :class:`ReadReport`, what a read did (lines, jobs, what was dropped, folded or repaired).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from gridsim.workloads.swf import SwfHeader

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
#: What formats richer than SWF say of a job: (column, pandas dtype, meaning). NA where the
#: format does not say (an SWF log says none of them).
RECORD_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("source_job_id", "string", "the job's id as its file wrote it (Slurm 123_4, 123+1)"),
    ("nodes", "Int64", "nodes the job ran on (or asked for, if it never ran)"),
    ("cores_per_node", "Int64", "processors per node: processors / nodes when whole"),
    ("requested_memory_per_node_mb", "float64", "memory asked for per node, MiB"),
    ("gpus_per_node", "Int64", "GPUs per node"),
    ("user", "string", "user name"),
    ("group", "string", "group (account) name"),
    ("partition", "string", "partition or queue name"),
    ("exit_status", "Int64", "exit code; 128 + signal for a job ended by a signal"),
)
RECORD_COLUMNS: tuple[str, ...] = tuple(name for name, _, _ in RECORD_FIELDS)
UNKNOWN = -1
#: Job statuses of SWF field 11 (0 is failed).
STATUS_COMPLETED, STATUS_CANCELLED = 1, 5
#: How many malformed lines a report lists.
MALFORMED_KEPT = 10


class WorkloadFormatError(ValueError):
    """A workload file that cannot be read; the message names the file and the line (None:
    the file as a whole, e.g. a truncated gzip stream)."""

    def __init__(self, source: str, line_number: int | None, problem: str):
        where = source if line_number is None else f"{source}, line {line_number}"
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.line_number = line_number
        self.problem = problem

    def __reduce__(self):  # rebuilt from its three fields when sent back from a worker
        return (type(self), (self.source, self.line_number, self.problem))


@dataclass(frozen=True)
class ReadReport:
    """What reading a workload did: lines read, jobs kept, dropped, folded and repaired.

    `dropped` and `repaired` map a reason to a job count; every drop reason of
    :data:`~gridsim.workloads.mapping.DROP_REASONS` is present (zero if unused). A job is
    dropped for the first reason it meets in that order; a kept job can have several
    repairs. `folded` counts records that are parts of a job rather than jobs (Slurm job
    steps, the components of a heterogeneous job). `notes` say where numbers the file does
    not state came from (a machine size seen in the node lists).
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
    format: str = "swf"
    folded: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def jobs_dropped(self) -> int:
        return sum(self.dropped.values())

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [
            f"{self.source}: {self.format} workload, {self.lines_read} lines, "
            f"{self.job_lines} job records, {self.malformed_lines} malformed skipped, "
            f"{self.jobs_kept} jobs kept, {self.jobs_dropped} dropped",
        ]
        lines += [f"  folded {reason}: {n}" for reason, n in self.folded.items() if n]
        lines += [f"  dropped {reason}: {n}" for reason, n in self.dropped.items() if n]
        lines += [f"  repaired {reason}: {n}" for reason, n in self.repaired.items() if n]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


@dataclass(frozen=True)
class Records:
    """What a reader gives before the mapping: the records table (:func:`records_frame`
    columns, file order), the header (an SWF header, or one a reader made from what its
    format states: machine size, start time) and what the reading itself counted.

    ``table`` is the records table, or, from the SWF reader, the (n, 18) array of the
    log's fields (-1 unknown) that :attr:`records` turns into it: a replay reads the columns
    it needs (:meth:`column`) and starts before pandas is imported (start-up, docs/swf.md).
    """

    table: pd.DataFrame | np.ndarray
    header: SwfHeader
    source: str
    format: str
    lines_read: int
    comment_lines: int = 0
    malformed: tuple[tuple[int, str], ...] = ()
    folded: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def records(self) -> pd.DataFrame:
        """The records table (built anew from an SWF array at each call: not kept twice)."""
        if isinstance(self.table, np.ndarray):
            return add_unknown_record_fields(swf_frame(self.table))
        return self.table

    def __len__(self) -> int:
        return len(self.table)

    def column(self, name: str) -> np.ndarray:
        """One column as NumPy: a nullable one (SWF integer fields) as floats, NaN where
        unknown; ``job_id`` as integers."""
        if not isinstance(self.table, np.ndarray):
            return frame_column(self.table, name)
        values = self.table[:, SWF_COLUMNS.index(name)]
        if name == "job_id":
            return values.astype(np.int64)
        return np.where(values == UNKNOWN, np.nan, values)

    def head(self, count: int) -> Records:
        """The first ``count`` records (in file order)."""
        if isinstance(self.table, np.ndarray):
            return dataclasses.replace(self, table=self.table[:count])
        return dataclasses.replace(self, table=self.table.iloc[:count].reset_index(drop=True))


class JobColumns(Protocol):
    """The jobs of a log before they are a table (:class:`gridsim.workloads.mapping.MappedJobs`)."""

    def __len__(self) -> int: ...
    def column(self, name: str) -> np.ndarray: ...
    def frame(self) -> pd.DataFrame: ...


@dataclass(frozen=True)
class WorkloadLog:
    """A read workload: the jobs table (records after the mapping), the header and the
    read report.

    ``table`` is the jobs table, or the mapping's columns that :attr:`jobs` turns into it
    on first use; :meth:`column` reads one without building the table (a replay's inputs).
    """

    table: pd.DataFrame | JobColumns
    header: SwfHeader
    report: ReadReport

    @property
    def jobs(self) -> pd.DataFrame:
        """The jobs table (built on first use, then kept)."""
        if hasattr(self.table, "frame"):
            object.__setattr__(self, "table", self.table.frame())  # once; frozen otherwise
        return self.table  # type: ignore[return-value]

    def column(self, name: str) -> np.ndarray:
        """A column of the jobs as :meth:`Records.column` gives it (the mapping's columns,
        ``processors``, ``estimate``..., in their own types), without building the table."""
        if hasattr(self.table, "frame"):
            return self.table.column(name)  # type: ignore[union-attr]
        return frame_column(self.table, name)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.table)

    @property
    def machine_processors(self) -> int | None:
        return self.report.machine_processors


def frame_column(frame: pd.DataFrame, name: str) -> np.ndarray:
    """A table's column as :meth:`Records.column` gives it: a nullable one as floats."""
    column = frame[name]
    if isinstance(column.dtype, np.dtype):
        return column.to_numpy()
    return column.to_numpy(dtype=np.float64, na_value=np.nan)


def swf_frame(values: np.ndarray) -> pd.DataFrame:
    """The 18 SWF columns of an (n, 18) array, -1 turned into NaN / <NA>."""
    import pandas as pd

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


def records_frame(columns: dict[str, object], rows: int) -> pd.DataFrame:
    """A records table of ``rows`` rows: the given columns (SWF and :data:`RECORD_FIELDS`
    names, in any order), every other one unknown, in the schema's order and types."""
    import pandas as pd
    import pyarrow as pa

    unknown_names = set(columns) - set(SWF_COLUMNS) - set(RECORD_COLUMNS)
    if unknown_names:
        raise ValueError(f"not record columns: {sorted(unknown_names)}")
    frame: dict[str, object] = {}
    for name, kind in SWF_FIELDS:
        given = columns.get(name)
        if name == "job_id":
            frame[name] = np.asarray(given, dtype=np.int64)
        elif kind == "int":
            frame[name] = _nullable_integers(given, rows)
        else:
            frame[name] = (np.full(rows, np.nan) if given is None
                           else pd.to_numeric(pd.Series(given)).to_numpy(np.float64))  # fmt: skip
    for name, dtype, _ in RECORD_FIELDS:
        given = columns.get(name)
        if dtype == "Int64":
            frame[name] = _nullable_integers(given, rows)
        elif dtype == "string":
            frame[name] = pd.array(pa.nulls(rows, pa.string()) if given is None else given,
                                   dtype="string")  # fmt: skip
        else:
            frame[name] = np.full(rows, np.nan) if given is None else np.asarray(given, float)
    return pd.DataFrame(frame)


def _nullable_integers(values: object, rows: int) -> pd.arrays.IntegerArray:
    """Integers with <NA> where unknown (None, NaN or -1)."""
    import pandas as pd

    if values is None:
        return pd.arrays.IntegerArray(np.zeros(rows, np.int64), np.ones(rows, bool))
    floats = pd.to_numeric(pd.Series(values)).to_numpy(np.float64, na_value=np.nan)
    unknown = np.isnan(floats) | (floats == UNKNOWN)
    return pd.arrays.IntegerArray(np.where(unknown, 0, floats).astype(np.int64), unknown)


def add_unknown_record_fields(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (the SWF columns) with every :data:`RECORD_FIELDS` column, unknown."""
    import pandas as pd
    import pyarrow as pa

    rows = len(frame)
    for name, dtype, _ in RECORD_FIELDS:
        if dtype == "Int64":
            frame[name] = _nullable_integers(None, rows)
        elif dtype == "string":
            frame[name] = pd.array(pa.nulls(rows, pa.string()), dtype="string")
        else:
            frame[name] = np.full(rows, np.nan)
    return frame
