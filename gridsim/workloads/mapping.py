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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, PositiveFloat, PositiveInt, model_validator

from gridsim.workloads.records import (
    MALFORMED_KEPT,
    STATUS_CANCELLED,
    ReadReport,
    Records,
    WorkloadFormatError,
    WorkloadLog,
)

if TYPE_CHECKING:
    import pandas as pd

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
    jobs, dropped, repaired = map_jobs(read, mapping, machine)
    report = ReadReport(
        source=read.source,
        lines_read=read.lines_read,
        comment_lines=read.comment_lines,
        job_lines=len(read) + len(read.malformed),
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
    return WorkloadLog(table=jobs, header=read.header, report=report)


@dataclass(frozen=True)
class MappedJobs:
    """The jobs of a mapping before they are a table: the records, which of them are kept,
    and the derived columns (one value per record). A replay reads its columns; the table
    (:meth:`frame`, pandas) is built when the results are."""

    read: Records
    keep: np.ndarray
    derived: dict[str, np.ndarray]

    def __len__(self) -> int:
        return int(self.keep.sum())

    def column(self, name: str) -> np.ndarray:
        values = self.derived[name] if name in self.derived else self.read.column(name)
        return values[self.keep]

    def frame(self) -> pd.DataFrame:
        """The jobs table: the kept records with the derived columns, in file order."""
        frame = self.read.records
        if frame is self.read.table:  # a reader's table: not changed in place
            frame = frame.copy()
        for name in DERIVED_COLUMNS:
            frame[name] = self.derived[name]
        return frame.loc[self.keep].reset_index(drop=True)


def map_jobs(
    read: Records, mapping: SwfMapping, machine: int | None
) -> tuple[MappedJobs, dict[str, int], dict[str, int]]:
    """Apply the mapping: derived columns, drops and repairs, each counted."""
    requested = read.column("requested_processors")
    allocated = read.column("allocated_processors")
    status = read.column("status")
    submit = read.column("submit_time")
    run_time = read.column("run_time")
    requested_time = read.column("requested_time")

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
    keep = np.ones(len(read), dtype=bool)
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
        fallback = np.full(len(read), mapping.estimate_fallback_seconds, dtype=np.float64)
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

    start_time = submit + read.column("wait_time")
    derived = {
        "processors": np.where(keep, processors, 0).astype(np.int64),
        "estimate": estimate,
        "duration": duration,
        "killed": killed,
        "start_time": start_time,
        "finish_time": start_time + run_time,
    }
    return MappedJobs(read, keep, derived), dropped, repaired
