"""A strict checker of SWF files: what a tool expecting the archive's format may assume.

Stricter than `read_swf` on purpose: it accepts no fractional number, no field count other
than 18, no header key outside the archive's definition, and it checks that the header
describes the file (MaxJobs, MaxRecords, MaxProcs, StartTime and EndTime) and that the
schedule never runs more processors than MaxProcs at once.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

from gridsim.workloads.swf import SWF_COLUMNS
from gridsim.workloads.swf_writer import HEADER_KEYS

_INTEGER = re.compile(r"^-?\d+$")
_HEADER = re.compile(r"^; ([A-Za-z]+): (.*)$")
_CONTINUATION = re.compile(r"^;\s+\S")
_INTEGER_KEYS = ("MaxJobs", "MaxRecords", "UnixStartTime", "TimeZone", "MaxNodes", "MaxProcs",
                 "MaxRuntime", "MaxMemory", "MaxQueues", "MaxPartitions")  # fmt: skip
# Smallest value of each field other than -1 (unknown).
_MINIMUM = {
    "job_id": 1, "submit_time": 0, "wait_time": 0, "run_time": 0, "allocated_processors": 0,
    "average_cpu_time": 0, "used_memory": 0, "requested_processors": 1, "requested_time": 0,
    "requested_memory": 0, "status": 0, "user_id": 1, "group_id": 1, "executable_id": 1,
    "queue_id": 0, "partition_id": 1, "preceding_job_id": 1, "think_time": 0,
}  # fmt: skip


def check_swf(path: Path) -> list[str]:
    """Every way the file departs from the archive's SWF; empty when it conforms."""
    problems: list[str] = []
    header: dict[str, list[str]] = {}
    rows: list[list[int]] = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.startswith(";"):
            match = _HEADER.match(line)
            if match and match.group(1) in HEADER_KEYS:
                header.setdefault(match.group(1), []).append(match.group(2))
            elif not _CONTINUATION.match(line):
                problems.append(f"line {number}: not a header entry: {line!r}")
            continue
        tokens = line.split()
        if len(tokens) != 18:
            problems.append(f"line {number}: {len(tokens)} fields, not 18")
        elif not all(_INTEGER.match(token) for token in tokens):
            problems.append(f"line {number}: a field is not an integer: {line!r}")
        else:
            rows.append([int(token) for token in tokens])
    if not rows:
        return [*problems, "no job line"]
    jobs = dict(zip(SWF_COLUMNS, np.array(rows).T, strict=True))
    problems += _field_problems(jobs)
    problems += _header_problems(header, jobs)
    return problems


def _field_problems(jobs: dict[str, np.ndarray]) -> list[str]:
    problems = []
    for name, low in _MINIMUM.items():
        bad = (jobs[name] != -1) & (jobs[name] < low)
        if bad.any():
            problems.append(f"{name}: {int(bad.sum())} values below {low} (other than -1)")
    if (np.diff(jobs["job_id"]) <= 0).any():
        problems.append("job numbers do not increase")
    if (np.diff(jobs["submit_time"]) < 0).any():
        problems.append("jobs are not in submission order")
    if not np.isin(jobs["status"], [-1, 0, 1, 2, 3, 4, 5]).all():
        problems.append("status outside -1, 0..5")
    preceding = jobs["preceding_job_id"]
    earlier = np.isin(preceding, jobs["job_id"]) & (preceding < jobs["job_id"])
    if ((preceding != -1) & ~earlier).any():
        problems.append("a preceding job is not an earlier job of the file")
    return problems


def _header_problems(header: dict[str, list[str]], jobs: dict[str, np.ndarray]) -> list[str]:
    problems = []
    for key in ("Version", "Computer", "MaxJobs", "MaxRecords", "MaxProcs", "Preemption",
                "UnixStartTime", "StartTime", "EndTime"):  # fmt: skip
        if key not in header:
            problems.append(f"header lacks {key}")
    for key in _INTEGER_KEYS:
        if any(not _INTEGER.match(value.split()[0]) for value in header.get(key, [])):
            problems.append(f"header {key} is not an integer: {header[key]}")
    if problems:
        return problems
    count = len(jobs["job_id"])
    for key in ("MaxJobs", "MaxRecords"):
        if int(header[key][0]) != count:
            problems.append(f"{key} {header[key][0]} but {count} job lines")
    machine = int(header["MaxProcs"][0])
    for name in ("allocated_processors", "requested_processors"):
        if (jobs[name] > machine).any():
            problems.append(f"{name} above MaxProcs {machine}")
    if _peak_processors(jobs) > machine:
        problems.append(f"{_peak_processors(jobs)} processors in use at once, MaxProcs {machine}")
    zone = ZoneInfo(header["TimeZoneString"][0]) if "TimeZoneString" in header else UTC
    origin = int(header["UnixStartTime"][0])
    ran = (jobs["wait_time"] != -1) & (jobs["run_time"] != -1)
    ends = jobs["submit_time"] + np.where(ran, jobs["wait_time"] + jobs["run_time"], 0)
    for key, moment in (("StartTime", origin), ("EndTime", origin + int(ends.max()))):
        expected = datetime.fromtimestamp(moment, tz=zone).strftime("%a %b %e %H:%M:%S %Z %Y")
        if header[key][0].split() != expected.split():
            problems.append(f"{key} {header[key][0]!r}, expected {expected!r}")
    return problems


def _peak_processors(jobs: dict[str, np.ndarray]) -> int:
    """Most processors held at once; a job ending at t frees its processors for one at t."""
    ran = (jobs["wait_time"] != -1) & (jobs["run_time"] > 0) & (jobs["allocated_processors"] > 0)
    start = jobs["submit_time"][ran] + jobs["wait_time"][ran]
    end = start + jobs["run_time"][ran]
    size = jobs["allocated_processors"][ran]
    times = np.concatenate([end, start])
    change = np.concatenate([-size, size])
    order = np.lexsort((change, times))
    return int(np.cumsum(change[order]).max()) if len(times) else 0
