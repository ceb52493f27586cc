"""The federation's rules on small hand-built federations (docs/cloud.md, model choices 2-5, 11
and 12): the factory, quotas, boots and deaths, the server's passes, and how each task is
realised from its VM's draws.

Providers here have constant start-up delays and performances, so the times are known by hand;
where a run draws (failures, noise), the test draws the same VMs from a
:class:`VirtualMachineSource` built from the same seeds (each provider's VMs come in request
order) and checks the run against them.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

import gridsim.cloud.simulation as simulation
from gridsim.cloud.config import EqualChunksPolicy
from gridsim.cloud.providers import VirtualMachineSource, lognormal_unit_mean
from gridsim.cloud.selfscheduling import SchedulerState
from gridsim.cloud.simulation import RunRecord, simulate
from gridsim.cloud.turnaround import turnaround
from gridsim.experiments.cloud import CloudScenario

C_EFF, S_EFF = 375.07, 156.26
T_SI, T_PI = 10.0, 30.0
TRANSFER_S = 0.5 / 0.25  # D / BW with the default data size and bandwidth
STARTUP_S, BENCHMARK_S, FACTORY_S = 100.0, 60.0, 60.0


def _provider(
    name: str,
    *,
    advertised: int = 10,
    capacity: tuple[tuple[float, int], ...] = ((0, 10),),
    performance: float = 1000.0,
    startup: float = STARTUP_S,
    **real: Any,
) -> dict[str, Any]:
    return {
        "name": name,
        "advertised": {"max_vms": advertised, "performance_w": 1000, "bandwidth_mb_s": 0.25},
        "capacity": [{"time_s": t, "vms": v} for t, v in capacity],
        "performance_w": {"low": performance, "high": performance},
        "startup_delay_s": {"low": startup, "high": startup},
        **real,
    }


def _federation(
    providers: list[dict[str, Any]],
    *,
    max_pilots: int,
    samples: int = 10**9,
    horizon_s: float = 570.0,
    noise: dict[str, Any] | None = None,
) -> CloudScenario:
    """Factory rounds at 0, 60, ...; the default horizon (570 s) leaves ten of them."""
    return CloudScenario.model_validate(
        {
            "name": "rules",
            "kind": "cloud",
            "seed": 0,
            "replications": 1,
            "policies": [{"name": "EqualChunks", "samples_per_task": 600}],
            "application": {"total_samples": samples},
            "framework": {"max_pilots": max_pilots, "horizon_s": horizon_s},
            "noise": noise or {},
            "providers": providers,
        }
    )


def _seeds() -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    instance, noise = np.random.SeedSequence(2026).spawn(2)
    return instance, noise


def _run(scenario: CloudScenario, chunk: int = 600) -> RunRecord:
    policy = EqualChunksPolicy(name="EqualChunks", samples_per_task=chunk)
    return simulate(scenario, policy, *_seeds())


def _vms(scenario: CloudScenario, provider: int, count: int) -> list:
    """The first ``count`` VMs ``provider`` hands out in a run seeded by :func:`_seeds`."""
    source = VirtualMachineSource(scenario.providers, scenario.noise.benchmark_cv, *_seeds())
    return [source.next_vm(provider) for _ in range(count)]


def _provider_of_pilot(record: RunRecord) -> dict[int, str]:
    return {task["pilot_id"]: task["provider"] for task in record.tasks}


def _effort(samples: int) -> float:
    return C_EFF + samples * S_EFF


# ----------------------------------------------------------------------------- the factory
def test_the_factory_keeps_max_pilots_vms_round_after_round():
    record = _run(_federation([_provider("only")], max_pilots=3))
    assert record.vms_requested == 3
    assert record.pilots_enrolled_total == 3
    assert record.vm_requests_refused == 0
    assert record.vm_start_failures == 0
    assert max(pilots for _, _, pilots in record.progress) == 3


def test_the_factory_asks_the_provider_with_the_most_advertised_free_vms():
    # Free VMs advertised: 6 and 3. Asking the one with more each time ends at 1 and 1:
    # five VMs from "many", two from "few", and the very first from "many".
    scenario = _federation(
        [_provider("many", advertised=6), _provider("few", advertised=3)], max_pilots=7
    )
    providers = _provider_of_pilot(_run(scenario))
    assert sorted(providers) == list(range(7))
    assert providers[0] == "many"
    assert sum(name == "many" for name in providers.values()) == 5


def test_a_provider_at_its_quota_refuses_and_is_skipped_until_the_next_round():
    # "liar" advertises 8 free VMs but really takes 1: in round one it gets a VM, then refuses;
    # "honest" then fills its 4. Every later round asks "liar" for the sixth pilot once and
    # gives up ("honest" advertises no free VM): ten rounds, ten refusals.
    scenario = _federation(
        [
            _provider("liar", advertised=8, capacity=((0, 1),)),
            _provider("honest", advertised=4, capacity=((0, 4),)),
        ],
        max_pilots=6,
    )
    record = _run(scenario)
    assert record.vms_requested == 5
    assert record.vm_requests_refused == 10
    assert _provider_of_pilot(record) == {
        0: "liar",
        1: "honest",
        2: "honest",
        3: "honest",
        4: "honest",
    }


def test_failed_starts_are_retried_every_round_until_the_quota_drops_to_zero():
    # "flaky" VMs never start (probability 0.999, checked below); "capped" takes 2 of the 4
    # pilots. Each round before flaky's quota drops to 0 (at 150 s: rounds 0, 60, 120) asks
    # "capped" once (refused) and "flaky" twice (accepted, then failing 20 s later); after it,
    # each round is refused by both: 2 + 2 * 3 VMs, 3 + 2 * 7 refusals.
    scenario = _federation(
        [
            _provider("capped", advertised=10, capacity=((0, 2),)),
            _provider(
                "flaky",
                advertised=5,
                capacity=((0, 5), (150, 0)),
                startup=20.0,
                vm_start_failure_probability=0.999,
            ),
        ],
        max_pilots=4,
    )
    assert all(vm.start_fails for vm in _vms(scenario, 1, 6))
    record = _run(scenario)
    assert record.vm_start_failures == 6
    assert record.vms_requested == 8
    assert record.vm_requests_refused == 17
    assert record.pilots_enrolled_total == 2


def test_every_accepted_vm_either_enrols_or_is_counted_as_a_start_failure():
    # Boots last 30 s and the horizon (1245 s) falls 45 s after the last round, so no VM is
    # still booting at the end.
    scenario = _federation(
        [_provider("half", startup=30.0, vm_start_failure_probability=0.5)],
        max_pilots=4,
        horizon_s=1245.0,
    )
    record = _run(scenario)
    failures = sum(vm.start_fails for vm in _vms(scenario, 0, record.vms_requested))
    assert failures >= 3
    assert record.vm_start_failures == failures
    assert record.vms_requested == record.pilots_enrolled_total + record.vm_start_failures
    # Failed starts are replaced until the pool is full, never beyond.
    assert record.pilots_enrolled_total == 4
    assert max(pilots for _, _, pilots in record.progress) == 4


# ----------------------------------------------------------------------------- quotas
def _quota_drop() -> CloudScenario:
    # Three pilots enrol at 100 s and take 6000-sample tasks (938 s) at 160 s; at 1000 s the
    # quota drops to one VM.
    return _federation(
        [_provider("shrinking", advertised=5, capacity=((0, 3), (1000, 1)))],
        max_pilots=3,
        horizon_s=1750.0,
    )


def test_a_quota_drop_kills_the_newest_vms_and_their_tasks_are_lost_one_pilot_interval_later():
    record = _run(_quota_drop(), chunk=6000)
    lost = [task for task in record.tasks if task["outcome"] == "pilot_lost"]
    assert sorted(task["pilot_id"] for task in lost) == [1, 2]
    assert [task["end_s"] for task in lost] == [1000.0 + T_PI] * 2
    assert all(math.isnan(task["execution_s"]) for task in lost)
    assert {task["pilot_id"] for task in record.tasks if task["outcome"] == "ok"} == {0}
    at_drop = [pilots for time, _, pilots in record.progress if time == 1000.0]
    assert at_drop == [2, 1]
    assert record.progress[-1][2] == 1
    # The dead VMs are not replaced: the quota is full, so rounds 1020 to 1740 are refused.
    assert record.vms_requested == 3
    assert record.vm_requests_refused == 13


def test_a_quota_rise_kills_no_one_and_the_next_round_fills_the_pool():
    scenario = _federation(
        [_provider("growing", advertised=5, capacity=((0, 2), (200, 4)))],
        max_pilots=4,
        horizon_s=1750.0,
    )
    record = _run(scenario, chunk=6000)
    assert record.vms_requested == 4
    assert record.vm_requests_refused == 4  # rounds 0, 60, 120 and 180
    assert all(task["outcome"] == "ok" for task in record.tasks)
    # The two new VMs are requested at 240 s and enrol at 340 s.
    assert [(time, pilots) for time, _, pilots in record.progress[1:5]] == [
        (100.0, 1),
        (100.0, 2),
        (340.0, 3),
        (340.0, 4),
    ]


def test_a_vm_dies_after_its_lifetime_from_enrolment_and_is_replaced_at_the_next_round():
    scenario = _federation(
        [_provider("mortal", vm_failure_rate_per_h=1.0)], max_pilots=3, horizon_s=3000.0
    )
    lifetimes = [vm.lifetime_s for vm in _vms(scenario, 0, 3)]
    first = int(np.argmin(lifetimes))
    death = STARTUP_S + lifetimes[first]
    assert STARTUP_S + BENCHMARK_S < death < 2000.0  # busy when it dies, within the run
    record = _run(scenario)
    drops = [
        (time, pilots)
        for (_, _, before), (time, _, pilots) in itertools.pairwise(record.progress)
        if pilots < before
    ]
    assert drops[0] == (pytest.approx(death, rel=1e-12), 2)
    (lost,) = [
        task
        for task in record.tasks
        if task["outcome"] == "pilot_lost" and task["pilot_id"] == first
    ]
    assert lost["end_s"] == pytest.approx(death + T_PI, rel=1e-12)
    replaced = math.ceil(death / FACTORY_S) * FACTORY_S + STARTUP_S
    after = [pilots for time, _, pilots in record.progress if time == replaced]
    assert after[0] == 3
    assert max(pilots for _, _, pilots in record.progress) == 3


# ----------------------------------------------------------------------------- progress
def test_progress_starts_empty_and_counts_enrolled_pilots_at_every_change():
    scenario = _federation([_provider("only")], max_pilots=2, samples=12_000, horizon_s=10**5)
    record = _run(scenario, chunk=6000)
    assert record.finished
    assert record.progress[:3] == [(0.0, 0, 0), (STARTUP_S, 0, 1), (STARTUP_S, 0, 2)]
    assert record.progress[-1] == (record.makespan_s, 12_000, 2)
    # Two pilots from their enrolment to the last sample.
    assert record.pilot_seconds == pytest.approx(2 * (record.makespan_s - STARTUP_S), rel=1e-12)


def test_pilot_seconds_integrate_the_progress_rows_through_deaths():
    record = _run(_quota_drop(), chunk=6000)
    times = np.array([time for time, _, _ in record.progress])
    pilots = np.array([count for _, _, count in record.progress])
    assert record.pilot_seconds == pytest.approx(np.sum(np.diff(times) * pilots[:-1]), rel=1e-12)
    # 3 pilots from 100 s to 1000 s, then 1 to the horizon.
    assert record.pilot_seconds == pytest.approx(3 * 900.0 + 750.0, rel=1e-12)


# ----------------------------------------------------------------------------- the server
def _spy_on_passes(monkeypatch) -> list[SchedulerState]:
    """Record every state the server hands the (real) self-scheduler."""
    states: list[SchedulerState] = []
    build = simulation.build_self_scheduler

    class Spy:
        def __init__(self, inner):
            self.inner = inner

        def assign(self, state):
            states.append(state)
            return self.inner.assign(state)

    monkeypatch.setattr(simulation, "build_self_scheduler", lambda *a: Spy(build(*a)))
    return states


def test_simultaneous_changes_are_planned_in_one_pass_with_samples_left(monkeypatch):
    states = _spy_on_passes(monkeypatch)
    # Two fast pilots and a slow one: the last chunks end at different times, so tasks end
    # while nothing is left to hand out.
    scenario = _federation(
        [_provider("fast", advertised=2, performance=2000.0), _provider("slow", advertised=2)],
        max_pilots=3,
        samples=9_000,
        horizon_s=10**5,
    )
    record = _run(scenario, chunk=1000)
    assert record.finished
    last_submit = max(task["submit_s"] for task in record.tasks)
    assert any(last_submit < task["end_s"] < record.makespan_s for task in record.tasks)
    times = [state.time_s for state in states]
    assert len(times) == len(set(times))
    # The three benchmarks end together and the first pass sees them all.
    assert times[0] == STARTUP_S + BENCHMARK_S
    np.testing.assert_array_equal(states[0].pilot_ids, [0, 1, 2])
    assert states[0].free.tolist() == [True, True, True]
    for state in states:
        completed = sum(task["samples"] for task in record.tasks if task["end_s"] <= state.time_s)
        assert state.samples_not_completed == 9_000 - completed
        assert state.samples_unassigned > 0


def test_a_pilot_gets_its_first_task_when_its_benchmark_ends():
    record = _run(_federation([_provider("only")], max_pilots=1), chunk=60)
    first = min(record.tasks, key=lambda task: task["task_id"])
    assert first["submit_s"] == STARTUP_S + BENCHMARK_S
    assert first["start_s"] == STARTUP_S + BENCHMARK_S + T_SI / 2 + T_PI


def test_a_last_chunk_of_one_sample_is_handed_out_and_computed():
    scenario = _federation([_provider("only")], max_pilots=1, samples=2_001, horizon_s=10**5)
    record = _run(scenario, chunk=1000)
    assert record.finished
    assert [task["samples"] for task in record.tasks] == [1000, 1000, 1]


def test_task_ids_count_submissions_from_zero_and_a_pilot_runs_one_task_at_a_time():
    record = _run(_federation([_provider("only")], max_pilots=3, horizon_s=2000.0), chunk=600)
    tasks = sorted(record.tasks, key=lambda task: task["task_id"])
    assert [task["task_id"] for task in tasks] == list(range(len(tasks)))
    assert len(tasks) > 10
    submits = [task["submit_s"] for task in tasks]
    assert submits == sorted(submits)
    for pilot in range(3):
        mine = [task for task in tasks if task["pilot_id"] == pilot]
        assert all(b["submit_s"] >= a["end_s"] for a, b in itertools.pairwise(mine))


def test_a_task_row_has_the_documented_fields():
    record = _run(_federation([_provider("only")], max_pilots=1), chunk=600)
    assert list(record.tasks[0]) == [
        "task_id",
        "provider",
        "pilot_id",
        "samples",
        "submit_s",
        "start_s",
        "end_s",
        "outcome",
        "predicted_turnaround_s",
        "execution_s",
    ]


def _scheduler_returning(monkeypatch, assignments) -> None:
    class Fixed:
        def assign(self, state):
            return assignments(state)

    monkeypatch.setattr(simulation, "build_self_scheduler", lambda *a: Fixed())


def test_work_for_a_busy_pilot_is_refused(monkeypatch):
    _scheduler_returning(monkeypatch, lambda state: [(0, 1), (0, 1)])
    with pytest.raises(RuntimeError, match=r"^self-scheduler assigned work to busy pilot 0$"):
        _run(_federation([_provider("only")], max_pilots=1))


def test_work_for_a_pilot_still_booting_is_refused(monkeypatch):
    _scheduler_returning(monkeypatch, lambda state: [(1, 1)])
    scenario = _federation(
        [
            _provider("quick", advertised=10, capacity=((0, 1),)),
            _provider("slow", advertised=5, startup=500.0),
        ],
        max_pilots=2,
    )
    with pytest.raises(RuntimeError, match=r"^self-scheduler assigned work to busy pilot 1$"):
        _run(scenario)


@pytest.mark.parametrize("samples", [0, 1001])
def test_chunks_outside_one_to_the_unassigned_samples_are_refused(monkeypatch, samples):
    _scheduler_returning(monkeypatch, lambda state: [(0, samples)])
    scenario = _federation([_provider("only")], max_pilots=1, samples=1000)
    with pytest.raises(
        RuntimeError, match=rf"^self-scheduler assigned {samples} samples with 1000 unassigned$"
    ):
        _run(scenario)


# ----------------------------------------------------------------------------- realisation
def test_tasks_realise_their_vm_s_draws_and_predictions_follow_the_running_mean(
    monkeypatch,
):
    """Model choices 2 and 5 on one pilot of an overbooked provider, with every noise on."""
    scenario = _federation(
        [_provider("overbooked", performance=1500.0, execution_slowdown=1.5)],
        max_pilots=1,
        samples=12_000,
        horizon_s=10**5,
        noise={"execution_cv": 0.2, "benchmark_cv": 0.1, "random_scheduling_phase": True},
    )
    record = _run(scenario, chunk=1000)
    assert record.finished
    (vm,) = _vms(scenario, 0, 1)
    application = scenario.application.profile()
    intervals = scenario.framework.intervals()
    measurements = [1500.0 * vm.benchmark_factor]
    tasks = sorted(record.tasks, key=lambda task: task["task_id"])
    assert len(tasks) == 12
    for task in tasks:
        draw = vm.draw_task()
        samples = task["samples"]
        assert task["start_s"] - task["submit_s"] == pytest.approx(
            draw.phase * T_SI + T_PI, rel=1e-12
        )
        execution = _effort(samples) / (1500.0 / 1.5) * lognormal_unit_mean(draw.normal, 0.2)
        assert task["execution_s"] == pytest.approx(execution, rel=1e-12)
        assert task["end_s"] - task["start_s"] == pytest.approx(TRANSFER_S + execution, rel=1e-12)
        estimate = float(np.mean(measurements))
        predicted = turnaround(samples, estimate, 0.25, application, intervals)
        assert task["predicted_turnaround_s"] == pytest.approx(predicted, rel=1e-12)
        measurements.append(_effort(samples) / task["execution_s"])


def test_a_task_fails_when_its_failure_clock_runs_out_before_its_execution():
    # 0.5 failures an hour against 3,125 s executions: some tasks fail, most succeed.
    scenario = _federation(
        [_provider("fragile", task_failure_rate_per_h=0.5)],
        max_pilots=1,
        samples=200_000,
        horizon_s=10**6,
    )
    record = _run(scenario, chunk=20_000)
    assert record.finished
    (vm,) = _vms(scenario, 0, 1)
    outcomes = []
    for task in sorted(record.tasks, key=lambda task: task["task_id"]):
        draw = vm.draw_task()
        execution = _effort(task["samples"]) / 1000.0
        failure_after = draw.failure_clock / 0.5 * 3600.0
        assert task["start_s"] == task["submit_s"] + T_SI / 2 + T_PI
        if failure_after < execution:
            assert task["outcome"] == "task_failed"
            assert math.isnan(task["execution_s"])
            assert task["end_s"] == pytest.approx(
                task["start_s"] + TRANSFER_S + failure_after, rel=1e-12
            )
        else:
            assert task["outcome"] == "ok"
            assert task["end_s"] == pytest.approx(
                task["start_s"] + TRANSFER_S + execution, rel=1e-12
            )
        outcomes.append(task["outcome"])
    assert 0 < outcomes.count("task_failed") < outcomes.count("ok")
    assert outcomes.count("ok") == 10  # the failed samples were handed out again


def test_sibling_seeds_give_different_runs_and_seeds_are_not_consumed():
    # Swapping the instance and noise seeds (two children of one root, told apart only by
    # their spawn keys) must change the VMs drawn.
    scenario = _federation(
        [_provider("varied", performance_w={"low": 1000, "high": 2000})],
        max_pilots=2,
        samples=20_000,
        horizon_s=10**5,
    )
    policy = EqualChunksPolicy(name="EqualChunks", samples_per_task=1000)
    instance, noise = np.random.SeedSequence(9).spawn(2)
    first = simulate(scenario, policy, instance, noise)
    assert simulate(scenario, policy, instance, noise).tasks == first.tasks
    swapped = simulate(scenario, policy, noise, instance)
    assert [t["execution_s"] for t in swapped.tasks] != [t["execution_s"] for t in first.tasks]
