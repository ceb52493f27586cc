"""The ``workload:`` section of a scenario: a log of any format, or a published model's
flow, with the estimates of the estimate model if named; and the records it gives.

Consumes the section as a scenario writes it; produces validated, frozen sections
(:class:`WorkloadConfig`, :class:`ModelWorkloadConfig`, either of them as :data:`Workload`)
and their :class:`~gridsim.workloads.records.Records` (:func:`workload_records`), which the
kinds map and replay. A log's path is checked when the scenario is (a folder, a device or a
FIFO is named as such); its content is read when the kind reads it.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Discriminator, Field, Tag, field_validator

from gridsim.config import ScenarioError, Strict
from gridsim.workloads.mapping import SwfMapping
from gridsim.workloads.models import LublinModel, TsafrirEstimates, model_records, with_estimates
from gridsim.workloads.readers import read_records
from gridsim.workloads.records import Records
from gridsim.workloads.sources import FORMATS
from gridsim.workloads.swf import bundled_swf


class WorkloadConfig(Strict):
    """The log: ``path`` (none: the bundled KTH-SP2 first 2000 jobs) in any format gridsim
    reads, recognised by content unless ``format`` names it; ``time_zone`` of a Slurm
    dump's local times; estimates from a model instead of the log's (``estimates``)."""

    path: str | None = None
    format: Literal[FORMATS] | None = None  # type: ignore[valid-type]
    time_zone: str = "UTC"
    mapping: SwfMapping = SwfMapping()
    max_jobs: int | None = Field(None, ge=1)
    estimates: TsafrirEstimates | None = None

    @field_validator("path")
    @classmethod
    def _exists(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).expanduser().is_file():
            raise ValueError(not_a_log(Path(value).expanduser(), value))
        return value

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r} (an IANA name such as "
                             "Europe/Stockholm, or UTC)") from None  # fmt: skip
        return value

    def source(self) -> Path:
        return Path(self.path).expanduser() if self.path else bundled_swf()


class ModelWorkloadConfig(LublinModel):
    """A flow of a published model (:class:`~gridsim.workloads.models.LublinModel`), with
    the mapping and estimates a log's section has."""

    mapping: SwfMapping = SwfMapping()
    estimates: TsafrirEstimates | None = None


def _workload_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "[model]" if "model" in value else "[log]"
    return "[model]" if isinstance(value, LublinModel) else "[log]"


#: ``workload:``: a log, or (with ``model:``) a model's flow.
Workload = Annotated[
    Annotated[WorkloadConfig, Tag("[log]")] | Annotated[ModelWorkloadConfig, Tag("[model]")],
    Discriminator(_workload_kind),
]


def not_a_log(path: Path, given: str) -> str:
    """Why ``path``, which is not a regular file, cannot be read as a log (a device or a FIFO
    would never end, or block, before the first job)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return f"no such log file: {given}"
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
             (stat.S_ISSOCK, "a socket"))  # fmt: skip
    what = next((name for test, name in kinds if test(mode)), "a special file")
    return f"{given} is {what}, not a log file"


def workload_records(workload: WorkloadConfig | ModelWorkloadConfig,
                     rng: np.random.Generator) -> Records:  # fmt: skip
    """The records of the section: its log, cut to ``max_jobs`` (the first jobs in file
    order), or its model's flow drawn from ``rng``; estimates from the estimate model, if
    named, drawn from ``rng`` after the flow."""
    if isinstance(workload, ModelWorkloadConfig):
        read = model_records(workload, rng)
    else:
        read = read_records(workload.source(), workload.format,
                            on_malformed=workload.mapping.on_malformed,
                            time_zone=workload.time_zone)  # fmt: skip
        if workload.max_jobs is not None:
            read = read.head(workload.max_jobs)
    if workload.estimates is not None:
        try:
            read = with_estimates(read, workload.estimates, rng)
        except ValueError as error:
            raise ScenarioError(f"workload.estimates: {error}") from None
    return read
