"""Write a job table as a Standard Workload Format file, following the archive's conventions.

Consumes: a jobs `DataFrame` named like `read_swf`'s output (the 18 SWF columns) or like a
schedule (`start_time`, `processors`, `estimate`, `killed`), and header fields. Produces: an
SWF file (gzip when the name ends in `.gz`) that `read_swf` reads back to the same jobs (see
tests/workloads/test_swf_writer.py) and that tools expecting archive logs can parse.

Conventions of the Parallel Workloads Archive [PWA] that the writer follows:

* Every field is an integer; times are whole seconds. **Rounding**: the events of a job --
  submission, start = submit + wait, end = start + run time -- are each rounded to the
  nearest second, halves up (``floor(t + 0.5)``), and the written wait and run time are the
  differences of the rounded events. Rounding is monotone, so events keep their order: a
  schedule in which no processor runs two jobs at once still has none, and a job that starts
  when another ends still does; each written wait or run time is within 1 s of the exact one.
  Other time and memory fields are rounded alone, halves up, except that a requested time is
  never written below the written run time of a job that did not exceed it (else a reader
  would see an overrun that did not happen).
* The header holds the archive's keys in the archive's order (:data:`HEADER_KEYS`). The
  writer always sets Version, MaxJobs and MaxRecords (the job lines written: one record per
  job), and StartTime and EndTime (the log's time 0 and its last event, written like
  ``date`` in the header's TimeZoneString, UTC if it has none) when UnixStartTime is known;
  it adds a Note on the rounding and one naming the gridsim version. Other keys come from a
  source header and from the ``fields`` given.

Cost: O(jobs x 18) string formatting.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pandas as pd

from gridsim import __version__
from gridsim.workloads.swf import SWF_FIELDS, UNKNOWN, SwfHeader

SWF_VERSION = "2.2"
#: The header keys of the archive's SWF definition, in the order archive logs write them.
HEADER_KEYS = (
    "Version", "Computer", "Installation", "Acknowledge", "Information", "Conversion",
    "MaxJobs", "MaxRecords", "Preemption", "UnixStartTime", "TimeZone", "TimeZoneString",
    "StartTime", "EndTime", "MaxNodes", "MaxProcs", "MaxRuntime", "MaxMemory", "AllowOveruse",
    "MaxQueues", "Queues", "Queue", "MaxPartitions", "Partitions", "Partition", "Note",
)  # fmt: skip
#: Keys the writer computes from what it writes; a source header's values are replaced.
COMPUTED_KEYS = ("Version", "MaxJobs", "MaxRecords", "StartTime", "EndTime")
ROUNDING_NOTE = (
    "times are whole seconds: submit, start and end rounded to the nearest second (halves "
    "up); wait and run time are their differences"
)
# A column the table lacks is taken from the first of these it has; else it is unknown (-1).
_ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "allocated_processors": ("processors",),
    "requested_processors": ("processors", "allocated_processors"),
    "requested_time": ("estimate",),
}
_EVENT_FIELDS = ("submit_time", "wait_time", "run_time")


def write_swf(
    jobs: pd.DataFrame,
    path: str | Path,
    *,
    header: SwfHeader | None = None,
    fields: Mapping[str, object] | None = None,
    notes: tuple[str, ...] = (),
) -> None:
    """Write `jobs` as an SWF file, one line per row, in the rows' order.

    Columns, in order of preference for each SWF field: the SWF column itself (for example
    `wait_time`); `wait_time` = `start_time` - `submit_time` when there is no `wait_time`;
    `allocated_processors` from `processors`; `requested_processors` from `processors`;
    `requested_time` from `estimate`; `status` = 0 for killed and 1 for other jobs when there
    is no `status` but a `killed` column. `job_id`, `submit_time` and `run_time` are required;
    any other missing field, NaN or <NA> is written as -1. Times are rounded as the module
    docstring says; an integer field holding a fraction is an error.

    Args:
        jobs: one row per job, in the order to write (the archive's: by submit time).
        path: output file; gzip if it ends in `.gz` (written without a timestamp, so the
            same table gives the same bytes).
        header: a source header; its entries are kept, except :data:`COMPUTED_KEYS` and the
            Notes this writer adds.
        fields: header keys to set (a value of None removes the key), e.g.
            ``{"Computer": "...", "MaxProcs": 100, "UnixStartTime": 0}``.
        notes: Notes added after the source header's; the rounding Note and
            "written by gridsim <version>" always follow.
    """
    missing = [name for name in ("job_id", "submit_time", "run_time") if name not in jobs]
    if missing:
        raise ValueError(f"write_swf needs columns {missing}, got {list(jobs.columns)}")
    with np.errstate(over="ignore", invalid="ignore"):  # infinities: refused just below
        values = swf_values(jobs)
    body = _body_text(values)  # first: it refuses values no SWF integer holds
    text = _header_text(header, fields or {}, notes, values) + body
    path = Path(path)
    data = text.encode("utf-8")
    if path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    path.write_bytes(data)


def round_half_up(values: np.ndarray) -> np.ndarray:
    """Nearest integer, halves up (NaN stays NaN): the writer's one rounding rule."""
    return np.floor(values + 0.5)


def swf_values(jobs: pd.DataFrame) -> dict[str, np.ndarray]:
    """The 18 fields as written: integral floats, NaN where unknown (written -1)."""
    raw = {name: _field_values(jobs, name) for name, _ in SWF_FIELDS}
    values: dict[str, np.ndarray] = {}
    for name, kind in SWF_FIELDS:
        column = raw[name]
        if kind == "int":
            fractional = ~np.isnan(column) & (column != np.round(column))
            if fractional.any():
                raise ValueError(
                    f"column {name} should hold integers, got {column[fractional][0]!r}"
                )
        elif name not in _EVENT_FIELDS:
            column = round_half_up(column)
        values[name] = column
    submit, wait, run = (raw[name] for name in _EVENT_FIELDS)
    start = submit + wait
    submit_s, start_s = round_half_up(submit), round_half_up(start)
    values["submit_time"] = submit_s
    values["wait_time"] = np.where(np.isnan(wait), np.nan, start_s - submit_s)
    values["run_time"] = np.where(
        np.isnan(start), round_half_up(run), round_half_up(start + run) - start_s
    )
    within_request = run <= raw["requested_time"]
    values["requested_time"] = np.where(
        within_request, np.fmax(values["requested_time"], values["run_time"]),
        values["requested_time"],
    )  # fmt: skip
    return values


def _field_values(jobs: pd.DataFrame, name: str) -> np.ndarray:
    """One SWF field as floats, NaN where unknown (-1 counts as unknown)."""
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
    values = pd.to_numeric(column).to_numpy(dtype=np.float64, na_value=np.nan)
    return np.where(values == UNKNOWN, np.nan, values)


def _body_text(values: dict[str, np.ndarray]) -> str:
    rows = len(values["job_id"])
    if rows == 0:
        return ""
    row_strings = None
    for name, _ in SWF_FIELDS:
        column = np.where(np.isnan(values[name]), UNKNOWN, values[name])
        if not (np.abs(column) < 2**53).all():
            raise ValueError(f"column {name} holds a value too large for an SWF integer")
        strings = column.astype(np.int64).astype(str)
        padded = np.char.rjust(strings, max(len(s) for s in strings)).astype(object)
        row_strings = padded if row_strings is None else row_strings + " " + padded
    return "\n".join(row_strings) + "\n"


def _header_text(
    header: SwfHeader | None,
    fields: Mapping[str, object],
    notes: tuple[str, ...],
    values: dict[str, np.ndarray],
) -> str:
    unknown = [key for key in fields if key not in HEADER_KEYS or key == "Note"]
    if unknown:
        raise ValueError(f"not SWF header keys (or Note, given as notes): {unknown}")
    entries = [entry for entry in (header.entries if header else ()) if not _own_note(entry)]
    for key, value in fields.items():
        _set(entries, key, None if value is None else str(value))
    jobs = str(len(values["job_id"]))
    computed = {"Version": SWF_VERSION, "MaxJobs": jobs, "MaxRecords": jobs}
    computed.update(_start_and_end(SwfHeader(tuple(entries)), values))
    for key in COMPUTED_KEYS:
        _set(entries, key, computed.get(key))
    entries += [("Note", note) for note in (*notes, ROUNDING_NOTE)]
    entries.append(("Note", f"written by gridsim {__version__}"))
    lines = []
    for key, value in entries:
        first, *rest = value.split("\n")
        lines.append(f"; {key}: {first}".rstrip())
        lines += [f";       {line}" for line in rest]
    return "\n".join(lines) + "\n"


def _own_note(entry: tuple[str, str]) -> bool:
    """A Note this writer adds (replaced, not repeated, when a written file is written again)."""
    key, value = entry
    return key == "Note" and (value == ROUNDING_NOTE or value.startswith("written by gridsim "))


def _set(entries: list[tuple[str, str]], key: str, value: str | None) -> None:
    """Give ``key`` one ``value`` in place (None: remove it); a new key goes after the last
    entry that comes before it in the archive's order, so a source header keeps its order."""
    positions = [i for i, (k, _) in enumerate(entries) if k == key]
    for i in reversed(positions[1:] if value is not None else positions):
        del entries[i]
    if value is None:
        return
    if positions:
        entries[positions[0]] = (key, value)
        return
    order = {name: index for index, name in enumerate(HEADER_KEYS)}
    earlier = [i for i, (k, _) in enumerate(entries) if order.get(k, order["Note"]) < order[key]]
    entries.insert(earlier[-1] + 1 if earlier else 0, (key, value))


def _start_and_end(header: SwfHeader, values: dict[str, np.ndarray]) -> dict[str, str]:
    """StartTime (UnixStartTime) and EndTime (its last submission or end) as ``date`` prints
    them, in the header's TimeZoneString (UTC when it has none or names an unknown zone)."""
    origin = header.unix_start_time
    if origin is None:
        return {}
    zone_names = header.values("TimeZoneString")
    try:
        zone = ZoneInfo(zone_names[0].strip()) if zone_names else UTC
    except (ZoneInfoNotFoundError, ValueError):
        zone = UTC
    ends = values["submit_time"] + values["wait_time"] + values["run_time"]  # NaN if unknown
    last = np.nanmax(np.concatenate([values["submit_time"], ends, [0.0]]))
    return {"StartTime": _date(origin, zone), "EndTime": _date(origin + int(last), zone)}


def _date(unix_time: int, zone) -> str:
    """``Mon Sep 23 14:00:31 CEST 1996``: the form of the archive's StartTime and EndTime."""
    try:
        moment = datetime.fromtimestamp(unix_time, tz=zone)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"time {unix_time} s after 1970 is beyond the dates an SWF header "
                         "shows (up to the year 9999)") from None  # fmt: skip
    return moment.strftime("%a %b ") + f"{moment.day:2d}" + moment.strftime(" %H:%M:%S %Z %Y")
