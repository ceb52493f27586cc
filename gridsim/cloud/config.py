"""Parameters of the federation model: the sections of a ``cloud`` scenario (application,
framework, noise, providers) and the self-scheduler policies, validated and frozen.

The scenario document that assembles them is ``CloudScenario`` of the ``cloud`` kind module
(:mod:`gridsim.experiments.cloud`); the simulation reads it as :class:`FederationParameters`.
Validation happens once, in these models; past them every part of ``gridsim.cloud`` reads
typed, frozen fields and never falls back on silent defaults for a misspelt key
(``extra="forbid"``). Numbers are coerced by pydantic, so ``2e7`` written as a YAML string
still loads.
"""

from __future__ import annotations

from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gridsim.cloud.turnaround import ApplicationProfile, MiddlewareIntervals

__all__ = [
    "ApplicationSection",
    "DyTSSPolicy",
    "EqualChunksPolicy",
    "FederationParameters",
    "FrameworkSection",
    "NoiseSection",
    "PolicySpec",
    "ProviderSection",
]

PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
PositiveInt = Annotated[int, Field(gt=0)]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Range(_Frozen):
    """A uniform range ``[low, high]``; ``low == high`` gives a constant."""

    low: NonNegativeFloat
    high: NonNegativeFloat

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.high < self.low:
            raise ValueError(f"expected low <= high, got low={self.low}, high={self.high}")
        return self


class ApplicationSection(_Frozen):
    """The application profile [RRM, Sec. 4.2.1, 5.1]; defaults are Nagano's."""

    total_samples: PositiveInt = 20_000_000
    constant_effort_w: NonNegativeFloat = 375.07
    sample_effort_w: PositiveFloat = 156.26
    data_size_mb: NonNegativeFloat = 0.5

    def profile(self) -> ApplicationProfile:
        """The plain profile used by the turnaround model."""
        return ApplicationProfile(
            total_samples=self.total_samples,
            constant_effort_w=self.constant_effort_w,
            sample_effort_w=self.sample_effort_w,
            data_size_mb=self.data_size_mb,
        )


class FrameworkSection(_Frozen):
    """Pilot framework settings (GWpilot-like) [RRM, Sec. 3.1-3.2, 5.1].

    Attributes:
        scheduling_interval_s: ``t_si``; tasks wait ``t_si/2`` on average for a match.
        pilot_interval_s: ``t_pi``, the pilot notification interval.
        max_pilots: the factory never keeps more pilots (booting or running) than this.
        factory_interval_s: how often the factory tops the pilot pool up.
        benchmark_duration_s: length of the characterisation task run on every new pilot.
        replan_interval_s: DyTSS recomputes its task list at most this often (its outer loop).
        horizon_s: a run that has not finished by then is stopped and reported unfinished.
    """

    scheduling_interval_s: PositiveFloat = 10.0
    pilot_interval_s: NonNegativeFloat = 30.0
    max_pilots: PositiveInt = 200
    factory_interval_s: PositiveFloat = 60.0
    benchmark_duration_s: NonNegativeFloat = 60.0
    replan_interval_s: NonNegativeFloat = 10.0
    horizon_s: PositiveFloat = 30 * 24 * 3600.0

    def intervals(self) -> MiddlewareIntervals:
        """The two intervals of eq. 2."""
        return MiddlewareIntervals(
            scheduling_interval_s=self.scheduling_interval_s,
            pilot_interval_s=self.pilot_interval_s,
        )


class NoiseSection(_Frozen):
    """Randomness of real executions around the model; all zero/false gives the model exactly.

    Attributes:
        execution_cv: coefficient of variation of a task's execution time (log-normal, mean 1).
        benchmark_cv: coefficient of variation of the benchmark's measurement error.
        random_scheduling_phase: a task waits ``U(0, t_si)`` for the scheduler's next cycle
            instead of exactly ``t_si/2``.
    """

    execution_cv: NonNegativeFloat = 0.0
    benchmark_cv: NonNegativeFloat = 0.0
    random_scheduling_phase: bool = False


class CapacityStep(_Frozen):
    """From ``time_s`` on, the provider really accepts at most ``vms`` virtual machines."""

    time_s: NonNegativeFloat
    vms: Annotated[int, Field(ge=0)]


class Advertised(_Frozen):
    """What the provider's information system claims; used by the factory only."""

    max_vms: PositiveInt
    performance_w: PositiveFloat
    bandwidth_mb_s: PositiveFloat


class ProviderSection(_Frozen):
    """One cloud provider: its advertisement and its real behaviour [RRM, Sec. 2, 4.2].

    Attributes:
        name: label used in traces.
        advertised: the information-system view (may be wrong).
        capacity: real VM quota as steps over time, sorted by time, first at time 0.
        performance_w: range of the real per-VM benchmark performance (whetstones).
        execution_slowdown: real tasks run this many times slower than the benchmark says
            (an overbooked host looks fine to a short benchmark, not to a long task).
        bandwidth_mb_s: real bandwidth.
        startup_delay_s: range of the delay from a VM request to its pilot enrolling.
        vm_start_failure_probability: a VM request fails (and is retried by the factory).
        vm_failure_rate_per_h: hazard of a running VM (and its pilot) dying.
        task_failure_rate_per_h: hazard of a task failing while it executes.
    """

    name: str
    advertised: Advertised
    capacity: tuple[CapacityStep, ...]
    performance_w: Range
    execution_slowdown: Annotated[float, Field(ge=1.0)] = 1.0
    bandwidth_mb_s: PositiveFloat = 0.25
    startup_delay_s: Range = Range(low=120.0, high=300.0)
    vm_start_failure_probability: Annotated[float, Field(ge=0, lt=1)] = 0.0
    vm_failure_rate_per_h: NonNegativeFloat = 0.0
    task_failure_rate_per_h: NonNegativeFloat = 0.0

    @field_validator("capacity")
    @classmethod
    def _capacity_steps(cls, steps: tuple[CapacityStep, ...]) -> tuple[CapacityStep, ...]:
        if not steps:
            raise ValueError("expected at least one capacity step")
        if steps[0].time_s != 0:
            raise ValueError(f"the first capacity step must be at time_s 0, got {steps[0].time_s}")
        times = [step.time_s for step in steps]
        if times != sorted(times):
            raise ValueError(f"capacity steps must be sorted by time_s, got {times}")
        return steps

    @model_validator(mode="after")
    def _positive_performance(self) -> ProviderSection:
        if self.performance_w.low <= 0:
            raise ValueError(f"expected a positive performance_w.low, got {self.performance_w.low}")
        return self


class EqualChunksPolicy(_Frozen):
    """Equal-sized tasks of ``samples_per_task`` samples (``E`` in [RRM, Sec. 5])."""

    name: Literal["EqualChunks"]
    samples_per_task: PositiveInt = 6000


class DyTSSPolicy(_Frozen):
    """Dynamic Trapezoid Self-Scheduling [RRM, Algorithm 1] with chunk limits ``L <= M``.

    Attributes:
        L: minimum chunk in samples.
        M: maximum chunk in samples.
        max_iterations: bound of the fixed-point loop (100 in the paper).
        new_pilot_rule: ``"all"`` admits every benchmarked pilot; ``"faster_than_slowest"``
            applies Algorithm 1's literal test ``T(r_min) > T(r)``.
        fit_points: time points sampling the production staircase for the linear fit.
        remaining_samples: what ``S`` counts when chunks are sized: ``"unassigned"`` (samples
            not yet handed out, as trapezoid self-scheduling does) or ``"not_completed"``
            (Algorithm 1's literal ``S``, which still counts samples running in tasks).
    """

    name: Literal["DyTSS"]
    L: PositiveInt = 1500
    M: PositiveInt = 30000
    max_iterations: PositiveInt = 100
    new_pilot_rule: Literal["all", "faster_than_slowest"] = "all"
    fit_points: Annotated[int, Field(ge=8)] = 128
    remaining_samples: Literal["unassigned", "not_completed"] = "unassigned"

    @model_validator(mode="after")
    def _limits(self) -> DyTSSPolicy:
        if self.M < self.L:
            raise ValueError(f"expected L <= M, got L={self.L}, M={self.M}")
        return self


PolicySpec = Annotated[EqualChunksPolicy | DyTSSPolicy, Field(discriminator="name")]


class FederationParameters(Protocol):
    """What the federation model simulates, as a scenario of kind ``cloud`` holds it."""

    @property
    def application(self) -> ApplicationSection: ...
    @property
    def framework(self) -> FrameworkSection: ...
    @property
    def noise(self) -> NoiseSection: ...
    @property
    def providers(self) -> tuple[ProviderSection, ...]: ...


def policy_label(policy: EqualChunksPolicy | DyTSSPolicy) -> str:
    """Short, unique name of a policy with its parameters, used in the ``policy`` column."""
    if isinstance(policy, EqualChunksPolicy):
        return f"EqualChunks(E={policy.samples_per_task})"
    options = [f"L={policy.L}", f"M={policy.M}"]
    defaults = DyTSSPolicy(name="DyTSS")
    for option in ("max_iterations", "fit_points", "new_pilot_rule", "remaining_samples"):
        if getattr(policy, option) != getattr(defaults, option):
            options.append(f"{option}={getattr(policy, option)}")
    return f"DyTSS({','.join(options)})"
