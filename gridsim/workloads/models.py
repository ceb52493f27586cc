"""Published workload models as job sources: the sections that name them, and the records
they give.

Consumes a scenario's ``workload: {model: lublin, ...}`` section (:class:`LublinModel`),
``estimates: {model: tsafrir, ...}`` (:class:`TsafrirEstimates`) and a
``numpy.random.Generator``; produces :class:`~gridsim.workloads.records.Records` like a
log's (:func:`model_records`), so a synthetic flow is read, mapped, described, converted
and replayed exactly as a log is, and estimates for any records (:func:`with_estimates`).
The models themselves are :mod:`~gridsim.workloads.lublin` and
:mod:`~gridsim.workloads.tsafrir`.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from gridsim.workloads.lublin import (
    REFERENCE_MACHINE,
    LublinParameters,
    expected_load,
    lublin_jobs,
    smallest_machine,
)
from gridsim.workloads.records import STATUS_COMPLETED, Records, records_frame
from gridsim.workloads.tsafrir import tsafrir_estimates

#: Most jobs a model section may ask for (the flow is held in memory, about 300 bytes a job).
MAX_MODEL_JOBS = 10_000_000


class LublinModel(BaseModel):
    """``workload: {model: lublin, ...}``: a flow of the Lublin-Feitelson model [LF03].

    Attributes:
        jobs: how many jobs.
        machine_processors: the machine the sizes are drawn for (the model's 128 by default;
            "Lublin-256" is 256 with ``job_classes: typeless``).
        job_classes: "batch_and_interactive" (two streams, the reference's default) or
            "typeless" (the whole-sample parameters).
        load: the offered load to aim at; every gap is scaled so that the model's expected
            load is this (:func:`~gridsim.workloads.lublin.expected_load`). Without it, the
            model's own arrivals (``arrival_scale``).
        arrival_scale: factor on every gap (instead of ``load``).
        start_hour: hour of the day the flow starts at.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: Literal["lublin"]
    jobs: PositiveInt = Field(10_000, le=MAX_MODEL_JOBS)
    machine_processors: PositiveInt = REFERENCE_MACHINE
    job_classes: Literal["batch_and_interactive", "typeless"] = "batch_and_interactive"
    load: float | None = Field(None, gt=0, le=100)
    arrival_scale: float = Field(1.0, gt=0, le=1e6)
    start_hour: int = Field(0, ge=0, le=23)

    @model_validator(mode="after")
    def _one_load_knob(self) -> LublinModel:
        if self.load is not None and self.arrival_scale != 1.0:
            raise ValueError("give load or arrival_scale, not both (load sets the scale)")
        fewest = smallest_machine(self.job_classes)
        if self.machine_processors < fewest:
            raise ValueError(
                f"machine_processors: the model's {self.job_classes} sizes need at least "
                f"{fewest} processors, got {self.machine_processors} (below it a median size "
                "falls under the smallest parallel size)"
            )
        return self

    def parameters(self) -> LublinParameters:
        """The model's parameters, the gaps scaled to the load asked for."""
        parameters = LublinParameters(
            machine_processors=self.machine_processors, job_classes=self.job_classes,
            arrival_scale=self.arrival_scale, start_hour=self.start_hour,
        )  # fmt: skip
        if self.load is not None:
            natural = expected_load(dataclasses.replace(parameters, arrival_scale=1.0))
            parameters = dataclasses.replace(parameters, arrival_scale=natural / self.load)
        return parameters


class TsafrirEstimates(BaseModel):
    """``estimates: {model: tsafrir, ...}``: users' estimates from the model of [TEF05],
    replacing the requested times of a log's or a model's jobs.

    Attributes:
        largest_estimate: the largest estimate the machine allows (s, at least an hour);
            default: the longest run time rounded up to a whole hour.
        largest_estimate_share: the share of jobs using it (0-0.89), if known; the
            model's hint that matters most [TEF05].
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: Literal["tsafrir"]
    largest_estimate: int | None = Field(None, ge=3600)
    largest_estimate_share: float | None = Field(None, gt=0, lt=0.89)


def model_records(model: LublinModel, rng: np.random.Generator) -> Records:
    """The records of one flow of ``model`` (SWF fields a log of the model would hold:
    submit, run time, processors, status completed, queue 0 interactive or 1 batch)."""
    from gridsim.workloads.swf import SwfHeader

    parameters = model.parameters()
    jobs = lublin_jobs(rng, model.jobs, parameters)
    count = len(jobs)
    columns = {
        "job_id": np.arange(1, count + 1),
        "submit_time": jobs["submit_time"].to_numpy(),
        "run_time": jobs["run_time"].to_numpy(),
        "allocated_processors": jobs["processors"].to_numpy(),
        "requested_processors": jobs["processors"].to_numpy(),
        "status": np.full(count, STATUS_COMPLETED),
        "queue_id": jobs["queue"].to_numpy(),
    }
    header = SwfHeader((
        ("Computer", f"Lublin-Feitelson model, {model.machine_processors} processors"),
        ("MaxJobs", str(count)),
        ("MaxProcs", str(model.machine_processors)),
        ("Queues", "0 interactive, 1 batch"),
        ("Note", f"{model.job_classes} parameters of m_lublin99.c, gaps x "
                 f"{parameters.arrival_scale:.6g}, start hour {model.start_hour}"),
    ))  # fmt: skip
    return Records(table=records_frame(columns, count), header=header,
                   source=f"lublin model ({count} jobs)", format="lublin",
                   lines_read=0)  # fmt: skip


def with_estimates(read: Records, estimates: TsafrirEstimates, rng: np.random.Generator) -> Records:
    """``read`` with requested times from the estimate model (jobs without a run time keep
    theirs, they are not replayed)."""
    records = read.records.copy()
    run_time = records["run_time"].to_numpy(np.float64)
    known = run_time >= 0
    share = estimates.largest_estimate_share
    drawn = tsafrir_estimates(rng, run_time[known], estimates.largest_estimate,
                              None if share is None else 100 * share)  # fmt: skip
    requested = records["requested_time"].to_numpy(np.float64).copy()
    requested[known] = drawn
    records["requested_time"] = requested
    note = ("Note", "requested times drawn from the Tsafrir-Etsion-Feitelson estimate model")
    header = dataclasses.replace(read.header, entries=(*read.header.entries, note))
    return dataclasses.replace(read, table=records, header=header)
