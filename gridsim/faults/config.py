"""The ``faults`` section of a job-flow scenario: every fault a named parameter, off by default.

Consumes the YAML mapping under ``faults:``; produces a frozen :class:`FaultsConfig` that
:mod:`gridsim.faults.draws` turns into the faults of one instance. Every level is a plain
number (``local_overruns.probability``, ``local_overruns.mean``, ``failures.rate``,
``unannounced_local.rate``, ...), so a study over levels lists values of one field. The
defaults and why they are what they are: docs/model.md, "Faults".
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from gridsim.config import Range, Strict
from gridsim.faults.availability_trace import read_availability_trace

Distribution = Literal["exponential", "weibull"]


class LocalOverrunsConfig(Strict):
    """Local tasks that end later than announced; the scheduler learns it at the announced end.

    Attributes:
        probability: chance that one local task overruns (0: none do).
        distribution: of the extra time relative to the task's announced length.
        mean: mean extra time as a fraction of the task's length (0.5: half as long again).
        sigma: ``lognormal`` only: standard deviation of the extra time's logarithm.
    """

    probability: float = Field(0.0, ge=0, le=1)
    distribution: Literal["exponential", "lognormal"] = "exponential"
    mean: float = Field(0.5, ge=0)
    sigma: float = Field(1.0, gt=0)


class UnannouncedLocalConfig(Strict):
    """Local tasks nobody announced, arriving on each node as a Poisson process.

    Attributes:
        rate: arrivals per node per time unit (0: none).
        length: task length, uniform over ``[low, high]`` time units.
    """

    rate: float = Field(0.0, ge=0)
    length: Range = Range(low=10, high=100)

    @field_validator("length")
    @classmethod
    def _positive(cls, value: Range) -> Range:
        if value.low <= 0:
            raise ValueError(f"must be positive, got low={value.low}")
        return value


class NodeClassFailures(Strict):
    """Failure parameters of the nodes whose performance lies in ``performance``."""

    performance: Range
    rate: float = Field(ge=0)
    repair_mean: float = Field(gt=0)


class FailuresConfig(Strict):
    """Node failures: alternating up and down times per node, or a trace of real ones.

    Attributes:
        rate: failures per node per time unit up (1 / mean time to failure; 0: none).
        distribution: of the time to failure; ``weibull`` takes ``shape`` (1 is exponential).
        shape: Weibull shape of the time to failure (below 1: failures come in bursts).
        repair_mean: mean time to repair (time units).
        repair_distribution: of the time to repair; ``weibull`` takes ``repair_shape``.
        repair_shape: Weibull shape of the time to repair.
        classes: per node class (by performance), a rate and a repair mean that replace the
            ones above for those nodes (the first class that matches wins).
        trace: a CSV file of real down times (columns ``node``, ``down_from``,
            ``down_until``) replayed instead of drawn failures; ``rate`` must then be 0.
    """

    rate: float = Field(0.0, ge=0)
    distribution: Distribution = "exponential"
    shape: float = Field(1.0, gt=0)
    repair_mean: float = Field(50.0, gt=0)
    repair_distribution: Distribution = "exponential"
    repair_shape: float = Field(1.0, gt=0)
    classes: tuple[NodeClassFailures, ...] = ()
    trace: Path | None = None

    @field_validator("trace")
    @classmethod
    def _readable(cls, value: Path | None) -> Path | None:
        if value is not None:
            read_availability_trace(value)  # one clear error now, not in the middle of a run
        return value

    @model_validator(mode="after")
    def _one_source(self) -> FailuresConfig:
        if self.trace is not None and (self.rate > 0 or self.classes):
            raise ValueError("trace replays recorded failures: leave rate at 0 and no classes")
        return self

    @property
    def enabled(self) -> bool:
        return self.trace is not None or self.rate > 0 or any(c.rate > 0 for c in self.classes)


class ConsequencesConfig(Strict):
    """What a failure does to the jobs it hits.

    Attributes:
        resubmit: a killed job is planned again ``keep_priority`` (like a new arrival in the
            profile as it stands, so it delays no reservation, with its original place in the
            queue order for later re-planning) or at the ``head`` (planned before every queued
            job; their reservations that collide with it are planned again after it).
        max_retries: how many times one job may be killed and resubmitted; killed once more,
            it ends as ``failed``.
        compress: after a kill, re-plan the whole queue for earlier windows, as after an early
            finish (one window search per queued job and kill; off by default: the killed
            job, planned again at once, takes back what fits of the space it left).
    """

    resubmit: Literal["keep_priority", "head"] = "keep_priority"
    max_retries: int = Field(3, ge=0)
    compress: bool = False


class FaultsConfig(Strict):
    """Every fault model of a job flow, each off by default (docs/model.md, "Faults")."""

    local_overruns: LocalOverrunsConfig = LocalOverrunsConfig()
    unannounced_local: UnannouncedLocalConfig = UnannouncedLocalConfig()
    failures: FailuresConfig = FailuresConfig()
    consequences: ConsequencesConfig = ConsequencesConfig()

    def check_nodes(self, nodes: int) -> None:
        """A replayed trace names only nodes the environment has (ValueError otherwise)."""
        if self.failures.trace is None:
            return
        outages = read_availability_trace(self.failures.trace)
        if outages and max(outages) >= nodes:
            raise ValueError(
                f"faults.failures.trace: names node {max(outages)}, but environment.nodes is "
                f"{nodes} (nodes are numbered from 0)"
            )

    @property
    def enabled(self) -> bool:
        """Some fault can happen (otherwise the job flow runs exactly as without faults)."""
        overruns = self.local_overruns
        return (
            (overruns.probability > 0 and overruns.mean > 0)
            or self.unannounced_local.rate > 0
            or self.failures.enabled
        )
