"""Pilot-job federation in SimPy: consumes the federation's parameters (a ``cloud``
scenario), one self-scheduler policy and the replication's seeds; produces a
:class:`RunRecord` (per-task trace, progress of samples and pilots over time, makespan and
counters).

The moving parts, as in the GWpilot framework of [RRM, Sec. 3.1]:

* a **factory** that every ``factory_interval_s`` tops the pool up to ``max_pilots`` pilots,
  asking providers in order of their *advertised* free VMs; a provider refuses a request once
  its *real* capacity is reached, and the capacity changes over time (a drop kills the newest
  VMs);
* **pilots** that boot (start-up delay), enrol with the server, run a benchmark task that
  measures their performance and bandwidth, and then accept tasks until their VM dies;
* a **server** that asks the self-scheduler for work whenever something changes, matches the
  returned tasks to free pilots and accounts finished tasks (each successful execution updates
  the pilot's measured performance, a running mean with its benchmark).

A task's realised turnaround uses the model of :mod:`gridsim.cloud.turnaround` with the VM's
real performance and bandwidth: the scheduler's cycle phase (``t_si/2`` or ``U(0, t_si)``),
the pilot interval, the transfer, then the execution (log-normal noise; failure after an
exponential clock). Same-time events run in insertion order; a scheduling pass triggered at
time ``t`` runs after every event already queued for ``t``, so simultaneous completions and
enrolments are seen together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import simpy

from gridsim.cloud.config import DyTSSPolicy, EqualChunksPolicy, FederationParameters
from gridsim.cloud.providers import VirtualMachine, VirtualMachineSource, lognormal_unit_mean
from gridsim.cloud.selfscheduling import SchedulerState, SelfScheduler, build_self_scheduler
from gridsim.cloud.turnaround import execution_time, transfer_time, turnaround

__all__ = ["RunRecord", "simulate"]

OUTCOME_OK = "ok"
OUTCOME_TASK_FAILED = "task_failed"
OUTCOME_PILOT_LOST = "pilot_lost"


@dataclass
class _Pilot:
    pilot_id: int
    vm: VirtualMachine
    requested_s: float
    alive: bool = True
    enrolled: bool = False
    ready: bool = False
    task: _Task | None = None
    performance_estimate_w: float = 0.0
    bandwidth_estimate_mb_s: float = 0.0
    measurements: int = 0


@dataclass
class _Task:
    task_id: int
    pilot: _Pilot
    samples: int
    submit_s: float
    start_s: float
    execution_s: float
    predicted_s: float
    cancelled: bool = False


@dataclass
class RunRecord:
    """What one simulated run produced (plain lists, turned into tables by the caller).

    Attributes:
        tasks: one dict per task: task_id, provider, pilot_id, samples, submit_s, start_s,
            end_s, outcome, predicted_turnaround_s, execution_s.
        progress: ``(time_s, samples_completed, pilots_enrolled)`` after every change.
        makespan_s: time the last sample completed (the horizon if unfinished).
        finished: whether every sample was computed before the horizon.
        samples_requested: ``S`` at the start.
        samples_completed: samples successfully computed.
        vms_requested: accepted VM requests.
        vm_requests_refused: requests refused because the real capacity was reached.
        vm_start_failures: accepted VMs that never enrolled.
        pilots_enrolled_total: pilots that enrolled at least once.
        pilot_seconds: enrolled pilot time integrated up to the makespan.
    """

    tasks: list[dict] = field(default_factory=list)
    progress: list[tuple[float, int, int]] = field(default_factory=list)
    makespan_s: float = math.nan
    finished: bool = False
    samples_requested: int = 0
    samples_completed: int = 0
    vms_requested: int = 0
    vm_requests_refused: int = 0
    vm_start_failures: int = 0
    pilots_enrolled_total: int = 0
    pilot_seconds: float = 0.0


class _Federation:
    """State and event handlers of one run; see the module docstring."""

    def __init__(
        self,
        federation: FederationParameters,
        scheduler: SelfScheduler,
        source: VirtualMachineSource,
    ) -> None:
        self.env = simpy.Environment()
        self.framework = federation.framework
        self.noise = federation.noise
        self.application = federation.application.profile()
        self.intervals = federation.framework.intervals()
        self.scheduler = scheduler
        self.source = source
        self.providers = federation.providers
        self.capacity = [p.capacity[0].vms for p in self.providers]
        self.active = [0] * len(self.providers)
        self.pilots: dict[int, _Pilot] = {}
        self.pilots_by_provider: list[list[_Pilot]] = [[] for _ in self.providers]
        self.samples_unassigned = self.application.total_samples
        self.samples_completed = 0
        self.enrolled_now = 0
        self.record = RunRecord(samples_requested=self.application.total_samples)
        self.done = self.env.event()
        self._pass_pending = False
        self._next_task_id = 0
        self._last_change_s = 0.0

    # ----------------------------------------------------------------- bookkeeping
    def _note_progress(self) -> None:
        now = self.env.now
        self.record.pilot_seconds += (now - self._last_change_s) * self._previous_enrolled
        self._last_change_s = now
        self._previous_enrolled = self.enrolled_now
        self.record.progress.append((now, self.samples_completed, self.enrolled_now))

    def _at(self, delay: float, callback) -> None:
        event = self.env.timeout(delay)
        event.callbacks.append(lambda _event: callback())

    # ----------------------------------------------------------------- factory
    def _factory(self):
        while True:
            self._top_up()
            yield self.env.timeout(self.framework.factory_interval_s)

    def _top_up(self) -> None:
        deficit = self.framework.max_pilots - sum(self.active)
        refused: set[int] = set()
        while deficit > 0:
            candidates = [
                p
                for p, spec in enumerate(self.providers)
                if p not in refused and self.active[p] < spec.advertised.max_vms
            ]
            if not candidates:
                return
            provider = max(
                candidates, key=lambda p: self.providers[p].advertised.max_vms - self.active[p]
            )
            if self.active[provider] >= self.capacity[provider]:
                self.record.vm_requests_refused += 1
                refused.add(provider)
                continue
            self._request_vm(provider)
            deficit -= 1

    def _request_vm(self, provider: int) -> None:
        vm = self.source.next_vm(provider)
        pilot = _Pilot(pilot_id=len(self.pilots), vm=vm, requested_s=self.env.now)
        self.pilots[pilot.pilot_id] = pilot
        self.pilots_by_provider[provider].append(pilot)
        self.active[provider] += 1
        self.record.vms_requested += 1
        self._at(vm.startup_delay_s, lambda: self._boot_ends(pilot))

    def _capacity_changes(self, provider: int, vms: int) -> None:
        self.capacity[provider] = vms
        alive = [p for p in self.pilots_by_provider[provider] if p.alive]
        for pilot in sorted(alive, key=lambda p: -p.pilot_id)[: max(0, len(alive) - vms)]:
            self._vm_dies(pilot)

    # ----------------------------------------------------------------- pilots
    def _boot_ends(self, pilot: _Pilot) -> None:
        if not pilot.alive:
            return
        if pilot.vm.start_fails:
            self.record.vm_start_failures += 1
            pilot.alive = False
            self.active[pilot.vm.provider] -= 1
            return
        pilot.enrolled = True
        self.enrolled_now += 1
        self.record.pilots_enrolled_total += 1
        self._note_progress()
        self._at(self.framework.benchmark_duration_s, lambda: self._benchmark_ends(pilot))
        if math.isfinite(pilot.vm.lifetime_s):
            self._at(pilot.vm.lifetime_s, lambda: self._vm_dies(pilot))

    def _benchmark_ends(self, pilot: _Pilot) -> None:
        if not pilot.alive:
            return
        spec = self.providers[pilot.vm.provider]
        pilot.ready = True
        pilot.performance_estimate_w = pilot.vm.performance_w * pilot.vm.benchmark_factor
        pilot.bandwidth_estimate_mb_s = spec.bandwidth_mb_s
        pilot.measurements = 1
        self._request_pass()

    def _vm_dies(self, pilot: _Pilot) -> None:
        if not pilot.alive:
            return
        pilot.alive = False
        self.active[pilot.vm.provider] -= 1
        if pilot.enrolled:
            self.enrolled_now -= 1
            self._note_progress()
        task = pilot.task
        if task is not None:
            # The server notices a silent pilot one notification interval later.
            task.cancelled = True
            self._at(
                self.intervals.pilot_interval_s,
                lambda: self._task_fails(task, OUTCOME_PILOT_LOST),
            )

    # ----------------------------------------------------------------- server
    def _request_pass(self) -> None:
        if not self._pass_pending:
            self._pass_pending = True
            self._at(0.0, self._scheduling_pass)

    def _scheduling_pass(self) -> None:
        self._pass_pending = False
        if self.done.triggered or self.samples_unassigned <= 0:
            return
        ready = [p for p in self.pilots.values() if p.ready and p.alive]
        if not ready:
            return
        state = SchedulerState(
            time_s=self.env.now,
            pilot_ids=np.array([p.pilot_id for p in ready], dtype=np.int64),
            performance_w=np.array([p.performance_estimate_w for p in ready]),
            bandwidth_mb_s=np.array([p.bandwidth_estimate_mb_s for p in ready]),
            free=np.array([p.task is None for p in ready], dtype=bool),
            samples_unassigned=self.samples_unassigned,
            samples_not_completed=self.application.total_samples - self.samples_completed,
        )
        for pilot_id, samples in self.scheduler.assign(state):
            pilot = self.pilots[pilot_id]
            if pilot.task is not None or not pilot.ready or not pilot.alive:
                raise RuntimeError(f"self-scheduler assigned work to busy pilot {pilot_id}")
            if not 0 < samples <= self.samples_unassigned:
                raise RuntimeError(
                    f"self-scheduler assigned {samples} samples with "
                    f"{self.samples_unassigned} unassigned"
                )
            self._submit(pilot, samples)

    def _submit(self, pilot: _Pilot, samples: int) -> None:
        now = self.env.now
        spec = self.providers[pilot.vm.provider]
        draw = pilot.vm.draw_task()
        interval = self.intervals.scheduling_interval_s
        scheduling_wait = (
            draw.phase * interval if self.noise.random_scheduling_phase else (interval / 2.0)
        )
        start = now + scheduling_wait + self.intervals.pilot_interval_s
        real_performance = pilot.vm.performance_w / spec.execution_slowdown
        execution = execution_time(samples, real_performance, self.application)
        execution *= lognormal_unit_mean(draw.normal, self.noise.execution_cv)
        transfer = transfer_time(spec.bandwidth_mb_s, self.application)
        predicted = turnaround(
            samples,
            pilot.performance_estimate_w,
            pilot.bandwidth_estimate_mb_s,
            self.application,
            self.intervals,
        )
        task = _Task(
            task_id=self._next_task_id,
            pilot=pilot,
            samples=samples,
            submit_s=now,
            start_s=start,
            execution_s=execution,
            predicted_s=float(predicted),
        )
        self._next_task_id += 1
        pilot.task = task
        self.samples_unassigned -= samples
        failure_after = (
            draw.failure_clock / spec.task_failure_rate_per_h * 3600.0
            if spec.task_failure_rate_per_h > 0
            else math.inf
        )
        if failure_after < execution:
            self._at(start - now + transfer + failure_after, lambda: self._task_fails(task))
        else:
            self._at(start - now + transfer + execution, lambda: self._task_succeeds(task))

    def _trace(self, task: _Task, outcome: str) -> None:
        self.record.tasks.append(
            {
                "task_id": task.task_id,
                "provider": self.providers[task.pilot.vm.provider].name,
                "pilot_id": task.pilot.pilot_id,
                "samples": task.samples,
                "submit_s": task.submit_s,
                "start_s": task.start_s,
                "end_s": self.env.now,
                "outcome": outcome,
                "predicted_turnaround_s": task.predicted_s,
                "execution_s": task.execution_s if outcome == OUTCOME_OK else math.nan,
            }
        )

    def _task_succeeds(self, task: _Task) -> None:
        if task.cancelled or self.done.triggered:
            return
        pilot = task.pilot
        pilot.task = None
        self.samples_completed += task.samples
        self._trace(task, OUTCOME_OK)
        # Accounting: the measured performance is the running mean of the benchmark and of
        # every real execution of the application on this pilot.
        observed = float(execution_time(task.samples, 1.0, self.application)) / task.execution_s
        pilot.measurements += 1
        pilot.performance_estimate_w += (
            observed - pilot.performance_estimate_w
        ) / pilot.measurements
        self._note_progress()
        if self.samples_completed == self.application.total_samples:
            self.record.makespan_s = self.env.now
            self.record.finished = True
            self.done.succeed()
            return
        self._request_pass()

    def _task_fails(self, task: _Task, outcome: str = OUTCOME_TASK_FAILED) -> None:
        if self.done.triggered or (task.cancelled and outcome == OUTCOME_TASK_FAILED):
            return
        if task.pilot.task is task:
            task.pilot.task = None
        task.cancelled = True
        self.samples_unassigned += task.samples
        self._trace(task, outcome)
        self._request_pass()

    # ----------------------------------------------------------------- run
    def run(self) -> RunRecord:
        self._previous_enrolled = 0
        self.record.progress.append((0.0, 0, 0))
        for index, spec in enumerate(self.providers):
            for step in spec.capacity[1:]:
                self._at(
                    step.time_s,
                    lambda index=index, vms=step.vms: self._capacity_changes(index, vms),
                )
        self.env.process(self._factory())
        horizon = self.env.timeout(self.framework.horizon_s)
        self.env.run(until=simpy.AnyOf(self.env, [self.done, horizon]))
        if not self.record.finished:
            self.record.makespan_s = self.env.now
        self._note_progress()
        self.record.samples_completed = self.samples_completed
        return self.record


def simulate(
    federation: FederationParameters,
    policy: EqualChunksPolicy | DyTSSPolicy,
    instance_seed: np.random.SeedSequence,
    noise_seed: np.random.SeedSequence,
) -> RunRecord:
    """One run of ``policy`` on the instance drawn from the two seeds.

    Args:
        federation: the validated parameters (a ``CloudScenario``).
        policy: the self-scheduler to use.
        instance_seed: seeds the providers' VM streams (copied, never consumed).
        noise_seed: seeds the per-VM task noise (copied, never consumed).

    Returns:
        The run's trace and counters; equal seeds give identical records.
    """
    source = VirtualMachineSource(
        federation.providers,
        federation.noise.benchmark_cv,
        _copy(instance_seed),
        _copy(noise_seed),
    )
    scheduler = build_self_scheduler(
        policy,
        federation.application.profile(),
        federation.framework.intervals(),
        federation.framework.replan_interval_s,
    )
    return _Federation(federation, scheduler, source).run()


def _copy(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """A fresh SeedSequence with the same identity, so spawning never depends on history."""
    return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
