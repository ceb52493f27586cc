"""The numbers a researcher checks before replaying a workload.

Consumes a :class:`~gridsim.workloads.records.WorkloadLog` (the jobs a replay would
schedule, after the mapping) and the machine size; produces a :class:`Description`: jobs
kept and dropped, the span, the offered load, arrivals per hour of day and day of week,
the distributions of job size and run time, how accurate the estimates are, and each
user's share. :func:`describe_text` prints it; :mod:`~gridsim.workloads.describe_page`
draws it.

Definitions (docs/workloads.md): the **span** runs from the first submission to the last;
the **offered load** is the processor-seconds the jobs hold in a replay (processors x
duration: the run time, cut at the estimate when the job is killed) over the machine's
processor-seconds during the span; **estimate accuracy** is run time / estimate per job
(1 is exact; jobs killed at their estimate count 1); hours and days are local times of
the log's ``TimeZoneString`` from its ``UnixStartTime`` (without a start time, hours are
counted from the log's time 0 and days are not known).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pandas as pd

from gridsim.workloads.records import WorkloadLog

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
TOP_USERS = 10


@dataclass(frozen=True)
class Description:
    """A workload's statistics (module docstring for the definitions)."""

    source: str
    format: str
    jobs: int
    jobs_dropped: dict[str, int]
    machine_processors: int | None
    span_s: float
    offered_load: float | None
    arrivals_per_hour: list[int]
    arrivals_per_weekday: list[int] | None
    local_times: str
    mean_interarrival_s: float
    interarrival_cv: float
    size: dict[str, float]
    run_time_s: dict[str, float]
    estimate: dict[str, float]
    users: int
    top_users: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _quantiles(values: np.ndarray) -> dict[str, float]:
    if len(values) == 0:
        return {}
    result = {"mean": float(values.mean()), "min": float(values.min()),
              "max": float(values.max())}  # fmt: skip
    for q in QUANTILES:
        result[f"p{round(q * 100)}"] = float(np.quantile(values, q))
    return result


def describe(log: WorkloadLog, machine_processors: int | None = None,
             time_zone: str | None = None) -> Description:  # fmt: skip
    """The statistics of ``log`` on a machine of ``machine_processors`` (default: the log's);
    ``time_zone`` overrides the header's for hours and days."""
    jobs = log.jobs
    machine = machine_processors or log.machine_processors
    submit = jobs["submit_time"].to_numpy(np.float64)
    processors = jobs["processors"].to_numpy(np.float64)
    duration = jobs["duration"].to_numpy(np.float64)
    span = float(submit.max() - submit.min()) if len(jobs) > 1 else 0.0
    load = None
    if machine and span > 0:
        load = float((processors * duration).sum() / (machine * span))
    hours, weekdays, local = _arrival_cycles(log, submit, time_zone)
    gaps = np.diff(np.sort(submit))
    mean_gap = float(gaps.mean()) if len(gaps) else math.nan
    cv = float(gaps.std() / mean_gap) if len(gaps) and mean_gap > 0 else math.nan
    power_of_two = (processors > 0) & (np.log2(np.maximum(processors, 1)) % 1 == 0)
    size = {**_quantiles(processors), "serial_share": float((processors == 1).mean()),
            "power_of_two_share": float(power_of_two.mean())}  # fmt: skip
    run_time = jobs["run_time"].to_numpy(np.float64)
    estimate = jobs["estimate"].to_numpy(np.float64)
    accuracy = np.minimum(run_time / estimate, 1.0)
    from_log = jobs["requested_time"].to_numpy(np.float64) > 0
    estimates = {"mean_accuracy": float(accuracy.mean()) if len(jobs) else math.nan,
                 "median_accuracy": float(np.median(accuracy)) if len(jobs) else math.nan,
                 "overrun_share": float((run_time > estimate).mean()) if len(jobs) else 0.0,
                 "from_log_share": float(from_log.mean()) if len(jobs) else 0.0,
                 "distinct_estimates": len(np.unique(estimate[from_log]))}  # fmt: skip
    users, top = _users(jobs, processors * duration)
    return Description(
        source=log.report.source, format=log.report.format, jobs=len(jobs),
        jobs_dropped={k: v for k, v in log.report.dropped.items() if v},
        machine_processors=machine, span_s=span, offered_load=load,
        arrivals_per_hour=hours, arrivals_per_weekday=weekdays, local_times=local,
        mean_interarrival_s=mean_gap, interarrival_cv=cv, size=size,
        run_time_s=_quantiles(run_time), estimate=estimates, users=users, top_users=top,
    )  # fmt: skip


def _arrival_cycles(log: WorkloadLog, submit: np.ndarray,
                    time_zone: str | None) -> tuple[list[int], list[int] | None, str]:  # fmt: skip
    """Arrivals per hour of the day and per day of the week, and what times they are."""
    try:
        origin = log.header.unix_start_time
    except ValueError:
        origin = None
    if origin is None:
        hours = np.floor(submit / 3600) % 24
        counts = np.bincount(hours.astype(int), minlength=24)
        return counts.tolist(), None, "hours from the log's time 0 (no UnixStartTime)"
    names = log.header.values("TimeZoneString")
    zone_name = time_zone or (names[0].strip() if names else "UTC")
    try:
        zone = ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        zone, zone_name = ZoneInfo("UTC"), "UTC"
    moments = pd.to_datetime(origin + submit, unit="s", utc=True).tz_convert(zone)
    hours = np.bincount(moments.hour.to_numpy(), minlength=24)
    weekdays = np.bincount(moments.day_of_week.to_numpy(), minlength=7)
    start = datetime.fromtimestamp(origin, tz=UTC).astimezone(zone)
    return hours.tolist(), weekdays.tolist(), f"{zone_name} (log starts {start:%Y-%m-%d %H:%M})"


def _users(jobs: pd.DataFrame, work: np.ndarray) -> tuple[int, list[dict[str, Any]]]:
    """How many users, and the top ones by jobs with their shares of jobs and of work."""
    user = jobs["user"].astype(object).where(jobs["user"].notna(), jobs["user_id"].astype(object))
    frame = pd.DataFrame({"user": user.astype(str).where(user.notna(), "unknown"),
                          "work": work})  # fmt: skip
    grouped = frame.groupby("user", sort=False).agg(jobs=("work", "size"), work=("work", "sum"))
    grouped = grouped.sort_values(["jobs", "work"], ascending=False, kind="stable")
    total_jobs, total_work = max(len(frame), 1), max(float(frame["work"].sum()), 1e-300)
    top = [{"user": name, "jobs": int(row.jobs), "job_share": row.jobs / total_jobs,
            "work_share": float(row.work) / total_work}
           for name, row in grouped.head(TOP_USERS).iterrows()]  # fmt: skip
    return len(grouped), top


def _seconds(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.3g} s"


def describe_text(d: Description) -> str:
    """The description as the console prints it."""
    dropped = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in d.jobs_dropped.items())
    load = "-" if d.offered_load is None else f"{d.offered_load:.3f}"
    lines = [
        f"{d.source} ({d.format})",
        f"  jobs: {d.jobs}" + (f" (dropped: {dropped})" if dropped else ""),
        f"  machine: {d.machine_processors or 'unknown'} processors; span "
        f"{_seconds(d.span_s)}; offered load {load}",
        f"  arrivals: mean gap {_seconds(d.mean_interarrival_s)}, CV {d.interarrival_cv:.2f}; "
        f"{d.local_times}",
        "  per hour: " + " ".join(str(n) for n in d.arrivals_per_hour),
    ]
    if d.arrivals_per_weekday is not None:
        lines.append("  per day: " + ", ".join(f"{day} {n}" for day, n in zip(
            DAYS, d.arrivals_per_weekday, strict=True)))  # fmt: skip
    s, r, e = d.size, d.run_time_s, d.estimate
    if s:
        lines.append(f"  size: mean {s['mean']:.3g}, median {s['p50']:g}, p90 {s['p90']:g}, "
                     f"max {s['max']:g}; serial {s['serial_share']:.1%}, power of two "
                     f"{s['power_of_two_share']:.1%}")  # fmt: skip
    if r:
        lines.append(f"  run time: mean {_seconds(r['mean'])}, median {_seconds(r['p50'])}, "
                     f"p90 {_seconds(r['p90'])}, max {_seconds(r['max'])}")  # fmt: skip
    lines.append(
        f"  estimates: {e['from_log_share']:.1%} from the log ({e['distinct_estimates']} "
        f"values); accuracy mean {e['mean_accuracy']:.3f}, median "
        f"{e['median_accuracy']:.3f}; {e['overrun_share']:.1%} run past theirs"
    )
    lines.append(f"  users: {d.users}; most jobs: " + ", ".join(
        f"{u['user']} {u['job_share']:.1%} of jobs, {u['work_share']:.1%} of work"
        for u in d.top_users[:3]))  # fmt: skip
    return "\n".join(lines)
