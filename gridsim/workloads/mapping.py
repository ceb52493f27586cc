"""From a reader's records to the jobs a replay schedules: sizes, estimates, drops, repairs.

Consumes :class:`~gridsim.workloads.records.Records` (any format) and an :class:`SwfMapping`
(the ``workload.mapping`` section of a scenario). Produces a
:class:`~gridsim.workloads.records.WorkloadLog`: the records that can be replayed, with the
derived columns :data:`DERIVED_COLUMNS`, and the read report counting what was dropped and
repaired, per reason. The same rules apply to every format, so a log read from SWF, from a
Slurm dump or from Batsim JSON becomes the same jobs (docs/swf.md, docs/workloads.md).

Cost: O(jobs), vectorised.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, PositiveFloat, PositiveInt, model_validator

from gridsim.workloads.records import (
    MALFORMED_KEPT,
    STATUS_CANCELLED,
    ReadReport,
    Records,
    WorkloadFormatError,
    WorkloadLog,
)

DERIVED_COLUMNS: tuple[str, ...] = (
    "processors",
    "estimate",
    "duration",
    "killed",
    "start_time",
    "finish_time",
)
# The order in which drop rules are tried; a job is counted under the first rule it meets.
DROP_REASONS: tuple[str, ...] = (
    "unknown_submit_time",
    "cancelled_before_start",
    "non_positive_run_time",
    "non_positive_processors",
    "larger_than_machine",
)


class SwfMapping(BaseModel):
    """How record fields become job attributes, and which jobs are kept (every format).

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
            to MaxNodes (a Slurm dump's is seen in its node lists). Without any, no job is too
            large.
        on_malformed: a malformed line raises `WorkloadFormatError` ("error") or is skipped
            and counted ("skip").
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


def apply_mapping(read: Records, mapping: SwfMapping | None = None) -> WorkloadLog:
    """The jobs of ``read`` under ``mapping`` (default ``SwfMapping()``), with the report."""
    mapping = mapping or SwfMapping()
    try:
        machine = mapping.machine_processors or read.header.machine_processors
    except ValueError as error:  # a header entry that should be a number
        raise WorkloadFormatError(read.source, None, str(error)) from None
    jobs, dropped, repaired = map_jobs(read.records, mapping, machine)
    report = ReadReport(
        source=read.source,
        lines_read=read.lines_read,
        comment_lines=read.comment_lines,
        job_lines=len(read.records) + len(read.malformed),
        malformed_lines=len(read.malformed),
        jobs_kept=len(jobs),
        machine_processors=machine,
        dropped=dropped,
        repaired=repaired,
        first_malformed=tuple(read.malformed[:MALFORMED_KEPT]),
        format=read.format,
        folded=dict(read.folded),
        notes=read.notes,
    )
    return WorkloadLog(jobs=jobs, header=read.header, report=report)


def _floats(frame: pd.DataFrame, name: str) -> np.ndarray:
    return frame[name].to_numpy(dtype=np.float64, na_value=np.nan)


def map_jobs(
    records: pd.DataFrame, mapping: SwfMapping, machine: int | None
) -> tuple[pd.DataFrame, dict[str, int], dict[str, int]]:
    """Apply the mapping: derived columns, drops and repairs, each counted."""
    frame = records.copy()
    requested = _floats(frame, "requested_processors")
    allocated = _floats(frame, "allocated_processors")
    status = _floats(frame, "status")
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
