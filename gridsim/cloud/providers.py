"""Cloud providers' real behaviour: consumes provider sections and seeds, produces the stream of
virtual machines each provider hands out (start-up delay, real performance, lifetime, benchmark
error) and each VM's task-noise generator.

The draws depend only on the provider and on how many VMs it has started before, never on the
self-scheduler, so every policy of a replication sees the same machines in the same order
(common random numbers). Task-level draws come from one generator per VM, consumed three numbers
per task, so the k-th task on a given VM sees the same scheduling phase, execution noise and
failure clock under every policy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gridsim.cloud.config import ProviderSection

__all__ = ["TaskDraw", "VirtualMachine", "VirtualMachineSource", "lognormal_unit_mean"]


def lognormal_unit_mean(normal: float, cv: float) -> float:
    """Map a standard normal draw to a log-normal factor of mean 1 and coefficient ``cv``."""
    if cv == 0:
        return 1.0
    sigma2 = math.log1p(cv * cv)
    return math.exp(math.sqrt(sigma2) * normal - sigma2 / 2.0)


@dataclass(frozen=True)
class TaskDraw:
    """The random numbers one task consumes: scheduling phase in ``[0, 1)``, a standard normal
    for execution noise, and an ``Exp(1)`` failure clock."""

    phase: float
    normal: float
    failure_clock: float


@dataclass
class VirtualMachine:
    """One VM (and the pilot inside it) as the provider will really deliver it.

    Attributes:
        provider: index of the provider.
        index: how many VMs this provider started before this one.
        start_fails: the request is accepted but the VM never enrols.
        startup_delay_s: from request to pilot enrolment.
        performance_w: what a benchmark on an idle host measures (before measurement error).
        lifetime_s: from enrolment to the VM's failure (``inf`` if it never fails).
        benchmark_factor: multiplicative error of the enrolment benchmark.
    """

    provider: int
    index: int
    start_fails: bool
    startup_delay_s: float
    performance_w: float
    lifetime_s: float
    benchmark_factor: float
    task_rng: np.random.Generator

    def draw_task(self) -> TaskDraw:
        """The next task's three random numbers (always three, to keep streams aligned)."""
        phase, normal, clock = (
            self.task_rng.random(),
            self.task_rng.standard_normal(),
            self.task_rng.standard_exponential(),
        )
        return TaskDraw(phase=float(phase), normal=float(normal), failure_clock=float(clock))


class VirtualMachineSource:
    """Hands out each provider's VMs in order, from per-provider random streams.

    Args:
        providers: the scenario's provider sections.
        benchmark_cv: coefficient of variation of the benchmark's measurement error.
        instance_seed: seeds the VM attributes (one child stream per provider).
        noise_seed: seeds the per-VM task generators (one child per provider, then per VM).
    """

    def __init__(
        self,
        providers: tuple[ProviderSection, ...],
        benchmark_cv: float,
        instance_seed: np.random.SeedSequence,
        noise_seed: np.random.SeedSequence,
    ) -> None:
        self._providers = providers
        self._benchmark_cv = benchmark_cv
        self._vm_rngs = [np.random.default_rng(s) for s in instance_seed.spawn(len(providers))]
        self._noise_seeds = noise_seed.spawn(len(providers))
        self._counts = [0] * len(providers)

    def next_vm(self, provider: int) -> VirtualMachine:
        """Draw the next VM of ``provider``."""
        spec = self._providers[provider]
        rng = self._vm_rngs[provider]
        start_fails = bool(rng.random() < spec.vm_start_failure_probability)
        startup = float(rng.uniform(spec.startup_delay_s.low, spec.startup_delay_s.high))
        performance = float(rng.uniform(spec.performance_w.low, spec.performance_w.high))
        clock = float(rng.standard_exponential())
        lifetime = (
            clock / spec.vm_failure_rate_per_h * 3600.0
            if spec.vm_failure_rate_per_h > 0
            else math.inf
        )
        benchmark = lognormal_unit_mean(float(rng.standard_normal()), self._benchmark_cv)
        index = self._counts[provider]
        self._counts[provider] += 1
        (task_seed,) = self._noise_seeds[provider].spawn(1)
        return VirtualMachine(
            provider=provider,
            index=index,
            start_fails=start_fails,
            startup_delay_s=startup,
            performance_w=performance,
            lifetime_s=lifetime,
            benchmark_factor=benchmark,
            task_rng=np.random.default_rng(task_seed),
        )
