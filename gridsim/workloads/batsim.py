"""Read and write Batsim JSON workloads.

A Batsim workload (Batsim's documentation, "Workload") is one JSON object: ``nb_res`` (the
resources it was made for), ``jobs`` (each with ``id``, ``subtime`` in s, optional
``walltime`` in s, ``res`` resources and a ``profile`` name, optional ``extra_data``
string) and ``profiles`` (by name, each with a ``type``). gridsim replays rigid jobs that run
for a known time, so it reads the ``delay`` profile (``DelayProfile`` in Batsim's current
documentation): the job's run time is its ``delay``. A job whose profile is of another type
(parallel tasks, sequences, SMPI traces...) cannot be replayed without simulating the
platform; the reader names the profile and its type and refuses the file.

Reading (:func:`read_batsim_records`) consumes the file a value at a time
(:mod:`~gridsim.workloads.json_stream`) and produces
:class:`~gridsim.workloads.records.Records`: submit time, run time (the delay), requested
time (the walltime) and processors (``res``); ``nb_res`` is the header's MaxProcs. Writing
(:func:`write_batsim`) gives each distinct run time one delay profile and keeps the fields
Batsim has no place for in the job's ``extra_data`` (a JSON object as text, as Batsim's
documentation recommends), from which the reader takes them back: a table written and read
again is the same table (tests/workloads/test_batsim.py).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gridsim.workloads.json_stream import JsonStream
from gridsim.workloads.records import (
    RECORD_FIELDS,
    SWF_FIELDS,
    Records,
    WorkloadFormatError,
    records_frame,
)
from gridsim.workloads.sources import open_text

#: Profile types whose jobs run for a fixed time: the name of Batsim's released versions and
#: of its current documentation.
DELAY_TYPES = ("delay", "DelayProfile")
#: Record fields a job's own Batsim fields hold; every other known one goes in extra_data.
_OWN_FIELDS = ("job_id", "submit_time", "run_time", "requested_time")
EXTRA_FIELDS = tuple(name for name, _ in SWF_FIELDS if name not in _OWN_FIELDS) + tuple(
    name for name, _, _ in RECORD_FIELDS
)


class _JobLines:
    """The line on which each job of a workload starts, found on demand (an error names a
    job's line; the fast path does not keep them)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[int] | None = None

    def __getitem__(self, index: int) -> int:
        if self.lines is None:
            self.lines = []
            with open_text(self.path) as stream:
                reader = JsonStream(stream, str(self.path))
                for key, _ in reader.members():
                    if key != "jobs":
                        reader.value()
                        continue
                    for line in reader.elements():
                        self.lines.append(line)
                        reader.value()
        return self.lines[index]


class _Profiles:
    """The delay of each profile name, and the type of those that are not delays."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.delay: dict[str, float] = {}
        self.other: dict[str, str] = {}  # name -> type

    def read(self, reader: JsonStream, line: int) -> None:
        profiles = reader.value()
        if not isinstance(profiles, dict):
            raise WorkloadFormatError(reader.source, line, "profiles should be an object")
        for name, profile in profiles.items():
            if not isinstance(profile, dict) or "type" not in profile:
                raise self.fail(name, "should be an object with a type")
            kind = profile["type"]
            if kind not in DELAY_TYPES:
                self.other[name] = str(kind)
                continue
            delay = profile.get("delay")
            if not _is_number(delay) or not math.isfinite(delay) or delay < 0:
                raise self.fail(name, f"delay should be a number of seconds >= 0, got {delay!r}")
            self.delay[name] = float(delay)

    def fail(self, name: str, problem: str) -> WorkloadFormatError:
        """An error on profile ``name``, at its line (found by walking the file again)."""
        line = None
        with open_text(self.path) as stream:
            reader = JsonStream(stream, str(self.path))
            for key, _ in reader.members():
                if key != "profiles":
                    reader.value()
                    continue
                for profile, profile_line in reader.members():
                    reader.value()
                    if profile == name:
                        line = profile_line
                        break
                break
        return WorkloadFormatError(str(self.path), line, f"profile {name!r} {problem}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read_batsim_records(path: str | Path) -> Records:
    """The job records of a Batsim JSON workload (module docstring)."""
    from gridsim.workloads.swf import SwfHeader

    source = str(path)
    jobs = _Jobs(_JobLines(Path(path)), source)
    profiles = _Profiles(Path(path))
    nb_res = None
    with open_text(Path(path)) as stream:
        reader = JsonStream(stream, source)
        if reader.peek() != "{":
            raise reader.fail("a Batsim workload is a JSON object ({...})")
        for key, line in reader.members():
            if key == "jobs":
                for batch in reader.batches():
                    jobs.add(batch)
            elif key == "profiles":
                profiles.read(reader, line)
            elif key == "nb_res":
                nb_res = reader.value()
                if not isinstance(nb_res, int) or isinstance(nb_res, bool) or nb_res <= 0:
                    raise WorkloadFormatError(source, line, "nb_res should be a positive "
                                              f"integer, got {nb_res!r}")  # fmt: skip
            else:
                reader.value()  # description, command, date...: not read
        reader.end()
        lines_read = reader.line(len(reader.buffer))
    records = jobs.records(profiles)
    header = SwfHeader((("MaxProcs", str(nb_res)),) if nb_res is not None else ())
    return Records(table=records, header=header, source=source, format="batsim",
                   lines_read=lines_read)  # fmt: skip


class _Jobs:
    """The jobs' fields, taken from each batch of decoded jobs as it comes (the decoded
    objects are not kept: a job's fields hold less memory than its dictionary)."""

    def __init__(self, lines: _JobLines, source: str) -> None:
        self.lines, self.source = lines, source
        self.ids: list[str] = []
        self.profile_names: list[Any] = []
        self.numbers: dict[str, list[np.ndarray]] = {"subtime": [], "walltime": [], "res": []}
        self.extras: list[dict[str, np.ndarray]] = []

    def add(self, batch: list[Any]) -> None:
        offset = len(self.ids)
        for index, job in enumerate(batch):
            if type(job) is not dict:
                raise WorkloadFormatError(self.source, self.lines[offset + index],
                                          "a job should be a JSON object")  # fmt: skip
        fields = {name: _field(batch, self.lines, name, self.source, offset)
                  for name in ("id", "subtime", "res", "profile")}  # fmt: skip
        fields["walltime"] = [job.get("walltime", -1) for job in batch]
        for name, form in (("subtime", "a time >= 0 (s)"), ("res", "a positive integer"),
                           ("walltime", "a number of seconds (-1: none)")):  # fmt: skip
            self.numbers[name].append(_numbers(fields[name], self.lines, self.source, name,
                                               form, offset))  # fmt: skip
        self.ids += [v if type(v) is str else str(v) for v in fields["id"]]
        self.profile_names += fields["profile"]
        self.extras.append(_extra_fields([job.get("extra_data") for job in batch]))

    def records(self, profiles: _Profiles) -> pd.DataFrame:
        """The records table, the profiles' delays as run times."""
        ids = self.ids
        delays = _delays(self.profile_names, self.lines, profiles, self.source)
        if len(set(ids)) != len(ids):
            seen: set[str] = set()
            repeated = next(i for i, value in enumerate(ids) if value in seen or seen.add(value))
            raise WorkloadFormatError(self.source, self.lines[repeated], f"job id "
                                      f"{ids[repeated]!r} given twice")  # fmt: skip
        numeric = all(value.lstrip("-").isdigit() for value in ids)
        number = {name: np.concatenate(parts) if parts else np.empty(0)
                  for name, parts in self.numbers.items()}  # fmt: skip
        record: dict[str, Any] = {
            "job_id": np.asarray(ids, dtype=np.int64) if numeric else np.arange(1, len(ids) + 1),
            "submit_time": number["subtime"],
            "run_time": delays,
            "requested_time": np.where(number["walltime"] > 0, number["walltime"], np.nan),
            "requested_processors": number["res"],
            "allocated_processors": number["res"],
        }
        if not numeric:  # integer ids are the job ids; others are kept as written
            record["source_job_id"] = np.asarray(ids, dtype=object)
        present = {name for part in self.extras for name in part}
        for name in EXTRA_FIELDS:
            if name in present:
                record[name] = np.concatenate([part.get(name, np.full(len(part["_rows"]), None))
                                               for part in self.extras])  # fmt: skip
        return records_frame(record, len(ids))


def _field(jobs: list[dict[str, Any]], lines: _JobLines, name: str, source: str,
           offset: int) -> list[Any]:  # fmt: skip
    try:
        return [job[name] for job in jobs]
    except KeyError:
        index = next(i for i, job in enumerate(jobs) if name not in job)
        raise WorkloadFormatError(source, lines[offset + index], f"a job without {name}") from None


def _delays(names: list[Any], lines: _JobLines, profiles: _Profiles, source: str) -> np.ndarray:
    """The run time of each job: its profile's delay."""
    try:
        return np.fromiter((profiles.delay[name] for name in names), np.float64, len(names))
    except (KeyError, TypeError):
        pass
    for index, name in enumerate(names):
        if isinstance(name, str) and name in profiles.other:
            raise profiles.fail(
                name,
                f"is of type {profiles.other[name]!r}; gridsim replays "
                "delay profiles only (a job that runs for a known time)",
            )
        if not isinstance(name, str) or name not in profiles.delay:
            raise WorkloadFormatError(source, lines[index], f"profile {name!r} is not among the "
                                      "workload's profiles")  # fmt: skip
    raise AssertionError("unreachable")


def _extra_fields(texts: list[Any]) -> dict[str, np.ndarray]:
    """The record fields of a batch of jobs' extra_data (gridsim's: a JSON object as text),
    as object arrays (and ``_rows``: the batch's length); anything else in extra_data is the
    user's, and not read."""
    rows = {"_rows": np.empty(len(texts), dtype=object)}
    objects = [text if isinstance(text, str) and text.startswith("{") else "{}" for text in texts]
    if all(text == "{}" for text in objects):
        return rows
    try:
        decoded = json.loads("[" + ",".join(objects) + "]")
    except json.JSONDecodeError:
        decoded = [_decoded(text) for text in objects]
    decoded = [data if isinstance(data, dict) else {} for data in decoded]
    present = set().union(*decoded).intersection(EXTRA_FIELDS)
    return {**rows, **{name: np.array([data.get(name) for data in decoded], dtype=object)
                       for name in present}}  # fmt: skip


def _decoded(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return {}


def _numbers(values: list[Any], lines: _JobLines, source: str, name: str, form: str,
             offset: int) -> np.ndarray:  # fmt: skip
    """``values`` as floats, each checked to be of its field's form."""
    if set(map(type, values)) <= {int, float}:
        numbers = np.array(values, dtype=np.float64)
    else:  # text, true/false or null among them: each is NaN below
        numbers = np.fromiter((v if type(v) in (int, float) else np.nan for v in values),
                              np.float64, len(values))  # fmt: skip
    bad = ~np.isfinite(numbers)
    if name == "subtime":
        bad |= numbers < 0
    elif name == "res":
        bad |= (numbers != np.round(numbers)) | (numbers <= 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise WorkloadFormatError(source, lines[offset + first], f"a job's {name} should be "
                                  f"{form}, got {values[first]!r}")  # fmt: skip
    return numbers


def write_batsim(
    records: pd.DataFrame,
    path: str | Path,
    *,
    machine_processors: int,
    description: str = "",
    extra_data: bool = False,
) -> dict[str, int]:
    """Write ``records`` (the columns of :mod:`~gridsim.workloads.records`) as a Batsim
    workload; returns how many jobs were left out, per reason (Batsim needs a submit time,
    a run time and a processor count). ``res`` is the requested processors, else the
    allocated ones. With ``extra_data``, each job's other known fields (user, status,
    memory...) go in its ``extra_data`` as a JSON object, which :func:`read_batsim_records`
    reads back; without, the file holds what Batsim defines and nothing else."""
    submit = records["submit_time"].to_numpy(np.float64)
    run_time = records["run_time"].to_numpy(np.float64)
    requested = records["requested_processors"].to_numpy(np.float64, na_value=np.nan)
    allocated = records["allocated_processors"].to_numpy(np.float64, na_value=np.nan)
    res = np.where(requested > 0, requested, allocated)
    reasons = {
        "unknown_submit_time": np.isnan(submit) | (submit < 0),
        "unknown_run_time": ~(run_time >= 0),
        "no_processor_count": ~(res > 0),
    }
    keep = np.ones(len(records), bool)
    left_out = {}
    for reason, hit in reasons.items():
        left_out[reason] = int((keep & hit).sum())
        keep &= ~hit
    kept = records.loc[keep]
    walltime = kept["requested_time"].to_numpy(np.float64)
    profiles: dict[str, float] = {}
    lines = []
    extras = _extra_texts(kept) if extra_data else [""] * len(kept)
    for i, (job_id, time, delay, size, limit) in enumerate(zip(
        kept["job_id"], submit[keep], run_time[keep], res[keep], walltime, strict=True
    )):  # fmt: skip
        name = f"delay_{delay:g}" if delay == int(delay) else f"delay_{delay!r}"
        profiles.setdefault(name, float(delay))
        job = {"id": str(job_id), "subtime": float(time), "res": int(size), "profile": name}
        if limit > 0:
            job["walltime"] = float(limit)
        if extras[i]:
            job["extra_data"] = extras[i]
        lines.append(json.dumps(job, separators=(", ", ": ")))
    with open(path, "w", encoding="utf-8") as out:
        out.write(f'{{\n  "nb_res": {int(machine_processors)},\n')
        out.write(f'  "description": {json.dumps(description)},\n  "jobs": [\n    ')
        out.write(",\n    ".join(lines))
        out.write('\n  ],\n  "profiles": {\n    ')
        out.write(",\n    ".join(f'{json.dumps(name)}: {{"type": "delay", "delay": {delay!r}}}'
                                 for name, delay in profiles.items()))  # fmt: skip
        out.write("\n  }\n}\n")
    return left_out


def _extra_texts(records: pd.DataFrame) -> list[str]:
    """Per job, the known values of the fields Batsim has no place for, as JSON text."""
    known = {}
    for name in EXTRA_FIELDS:
        column = records[name]
        if column.notna().any():
            known[name] = column
    if not known:
        return [""] * len(records)
    frame = pd.DataFrame(known).astype(object)
    texts = []
    for row in frame.itertuples(index=False):
        values = {name: _plain(value) for name, value in zip(known, row, strict=True)
                  if not pd.isna(value)}  # fmt: skip
        texts.append(json.dumps(values, separators=(",", ":")) if values else "")
    return texts


def _plain(value: Any) -> Any:
    """A numpy or pandas scalar as a JSON-able Python value (integral floats as ints)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value == int(value):
        return int(value)
    return value
