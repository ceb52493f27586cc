"""Write a job-flow trace (an actual schedule) as a Standard Workload Format file.

Consumes: a jobs `DataFrame` named like `read_swf`'s output (the 18 SWF columns) or like a
simulation trace (`start_time`, `processors`, `estimate`, `killed`), and an optional source
header. Produces: an SWF file (gzip when the name ends in `.gz`) with a header giving Version,
Computer, MaxProcs, UnixStartTime and a Note naming the gridsim version. `read_swf` reads it
back to the same table (see tests/workloads/test_swf_writer.py).

Cost: O(jobs x 18) string formatting.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim import __version__
from gridsim.workloads.swf import SWF_FIELDS, UNKNOWN, SwfHeader

SWF_VERSION = "2.2"
_REPLACED_KEYS = ("Version", "Computer", "MaxProcs", "UnixStartTime")
# A column the trace lacks is taken from the first of these it has; else it is unknown (-1).
_ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "allocated_processors": ("processors",),
    "requested_processors": ("processors", "allocated_processors"),
    "requested_time": ("estimate",),
}


def write_swf(
    jobs: pd.DataFrame,
    path: str | Path,
    *,
    header: SwfHeader | None = None,
    computer: str | None = None,
    max_processors: int | None = None,
    unix_start_time: int | None = None,
    note: str | None = None,
) -> None:
    """Write `jobs` as an SWF file.

    Columns, in order of preference for each SWF field: the SWF column itself (for example
    `wait_time`); `wait_time` = `start_time` - `submit_time` when there is no `wait_time`;
    `allocated_processors` from `processors`; `requested_processors` from `processors`;
    `requested_time` from `estimate`; `status` = 0 for killed and 1 for other jobs when there
    is no `status` but a `killed` column. `job_id`, `submit_time` and `run_time` are required;
    any other missing field, NaN or <NA> is written as -1. Integral values are written as
    integers, others in the shortest form that reads back to the same float.

    Args:
        jobs: one row per job, in the order to write.
        path: output file; gzip if it ends in `.gz`.
        header: a source header whose entries are kept (Version, Computer, MaxProcs and
            UnixStartTime are replaced by the values below when those are given).
        computer: the Computer entry (default "gridsim simulation" without a header).
        max_processors: the MaxProcs entry (the machine size).
        unix_start_time: the UnixStartTime entry (s since 1970 at time 0 of the trace).
        note: an extra Note; a Note "written by gridsim <version>" is always added.
    """
    missing = [name for name in ("job_id", "submit_time", "run_time") if name not in jobs]
    if missing:
        raise ValueError(f"write_swf needs columns {missing}, got {list(jobs.columns)}")
    text = _header_text(header, computer, max_processors, unix_start_time, note)
    body = _body_text(jobs)
    path = Path(path)
    data = (text + body).encode("utf-8")
    if path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    path.write_bytes(data)


def _header_text(
    header: SwfHeader | None,
    computer: str | None,
    max_processors: int | None,
    unix_start_time: int | None,
    note: str | None,
) -> str:
    given = {
        "Version": SWF_VERSION,
        "Computer": computer or (None if header else "gridsim simulation"),
        "MaxProcs": None if max_processors is None else str(max_processors),
        "UnixStartTime": None if unix_start_time is None else str(unix_start_time),
    }
    entries = list(header.entries) if header else []
    for key, value in given.items():
        if value is None:
            continue
        positions = [i for i, (k, _) in enumerate(entries) if k == key]
        if positions:
            entries[positions[0]] = (key, value)
        else:
            entries.insert(_REPLACED_KEYS.index(key), (key, value))
    if note:
        entries.append(("Note", note))
    entries.append(("Note", f"written by gridsim {__version__}"))
    lines = []
    for key, value in entries:
        first, *rest = value.split("\n")
        lines.append(f"; {key}: {first}".rstrip())
        lines += [f";       {line}" for line in rest]
    return "\n".join(lines) + "\n"


def _field_values(jobs: pd.DataFrame, name: str) -> np.ndarray:
    """One SWF field as floats, NaN where unknown."""
    if name in jobs:
        column = jobs[name]
    elif name == "wait_time" and "start_time" in jobs:
        column = jobs["start_time"] - jobs["submit_time"]
    elif name == "status" and "killed" in jobs:
        column = pd.Series(np.where(jobs["killed"].to_numpy(dtype=bool), 0, 1))
    else:
        alternative = next((a for a in _ALTERNATIVES.get(name, ()) if a in jobs), None)
        if alternative is None:
            return np.full(len(jobs), np.nan)
        column = jobs[alternative]
    return pd.to_numeric(column).to_numpy(dtype=np.float64, na_value=np.nan)


def _formatted(values: np.ndarray, kind: str, name: str) -> np.ndarray:
    """Strings for one field: integers where integral, else the shortest float repr."""
    values = np.where(np.isnan(values), UNKNOWN, values)
    integral = (values == np.round(values)) & (np.abs(values) < 2**53)
    if kind == "int" and not integral.all():
        raise ValueError(f"column {name} should hold integers, got {values[~integral][0]!r}")
    strings = np.where(integral, values, 0).astype(np.int64).astype(str).astype(object)
    strings[~integral] = [repr(float(v)) for v in values[~integral]]
    return strings


def _body_text(jobs: pd.DataFrame) -> str:
    if len(jobs) == 0:
        return ""
    row_strings = None
    for name, kind in SWF_FIELDS:
        strings = _formatted(_field_values(jobs, name), kind, name)
        width = max(len(s) for s in strings)
        padded = np.char.rjust(strings.astype(str), width).astype(object)
        row_strings = padded if row_strings is None else row_strings + " " + padded
    return "\n".join(row_strings) + "\n"
