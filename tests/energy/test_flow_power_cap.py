"""The job-flow planners under a power cap.

* The cap rule of :mod:`gridsim.scheduling.power_plan` against a brute force of the same
  rule on small random instances: windows from the paper's procedure over every start and
  every subset (tests/reference_window_search.py, MinCost), the watts drawn summed job by
  job at every instant, every later start tried in time order.
* Whole job flows under FCFS, EASY and conservative backfilling: no instant over the cap,
  by the independent checker (tests/energy_checker.py, reading only the jobs table, the
  node watts and the cap); reservations never move later; a cap that never binds changes
  nothing, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from energy_checker import cap_problems
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_flows import instances
from reference_window_search import reference_search

from gridsim.bundled_scenarios import FOLDER
from gridsim.energy.cap import power_limit
from gridsim.energy.config import PowerConfig, SignalConfig
from gridsim.energy.model import energy_model
from gridsim.experiments.jobflow import JobFlowScenario, run_replication
from gridsim.experiments.runner import replication_seed
from gridsim.model import Job, Node, Request
from gridsim.profile import Profile
from gridsim.scheduling.backfilling import NO_WINDOW, ReservationPlanner
from gridsim.scheduling.power_plan import OVER_CAP, CappedProfile, capped_search, least_draw_nodes
from gridsim.scheduling.resource_profile import PowerLimit
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Instance, simulate
from gridsim.sim.trace import in_schema_order

# -- the rule against brute force --------------------------------------------------------------


def _random_case(rng: np.random.Generator):
    """Nodes with continuous prices (no tied costs), integer watts, local load, a stepped cap."""
    count = int(rng.integers(3, 6))
    nodes = tuple(Node(i, float(rng.integers(1, 4)), float(rng.uniform(0.1, 2.0)))
                  for i in range(count))  # fmt: skip
    busy = []
    for _ in range(count):
        start = float(rng.uniform(0, 30))
        busy.append(((start, start + float(rng.uniform(2, 15))),) if rng.random() < 0.5 else ())
    watts = rng.integers(50, 200, size=count)
    times = [0.0, *sorted(rng.uniform(5, 60, size=int(rng.integers(0, 4))).tolist())]
    cap = [int(rng.integers(int(watts.min()) * 2, int(watts.sum()) + 1)) for _ in times]
    limit = PowerLimit(watts * 1000, tuple(times), tuple(c * 1000 for c in cap))
    return nodes, busy, limit


def _cap_at(limit: PowerLimit, time: float) -> int:
    k = max(i for i, t in enumerate(limit.times) if t <= time) if time >= limit.times[0] else 0
    return limit.cap_mw[k]


def _fits_brute(limit: PowerLimit, held, nodes, start: float, end: float) -> bool:
    """Whether ``nodes`` over ``[start, end)`` keep every instant within the cap: the watts
    of every held window summed at each edge inside the span."""
    draw = sum(int(limit.node_mw[i]) for i in nodes)
    edges = {start, *(t for t in limit.times if start < t < end)}
    edges |= {t for w in held for t in (w.start, w.finish) if start < t < end}
    for t in edges:
        planned = sum(sum(int(limit.node_mw[i]) for i in w.nodes)
                      for w in held if w.start <= t < w.finish)  # fmt: skip
        if planned + draw > _cap_at(limit, t):
            return False
    return True


def _reference_rule(nodes, busy, limit, held, request):
    """The rule, brute force: MinCost's window from every start and subset; if it does not
    fit, the next instant after its start at which a slot begins or the planned watts change
    (window edges, cap steps) becomes the earliest start; when nothing changes any more, the
    least-drawing eligible nodes."""
    profile = Profile(nodes, busy)
    for window in held:
        profile.reserve(window)
    changes = sorted({s.start for s in profile.slots()} | set(limit.times[1:])
                     | {t for w in held for t in (w.start, w.finish)})  # fmt: skip
    earliest = request.earliest_start
    while True:
        found = reference_search(profile, Request(request.n, request.volume,
                                                  earliest_start=earliest), "MinCost")  # fmt: skip
        if found is None:
            return None
        end = found.start + found.runtime
        if _fits_brute(limit, held, found.nodes, found.start, end):
            return found.start, found.nodes
        later = [t for t in changes if t > found.start]
        if not later:
            return "least draw", found.start
        earliest = later[0]


def test_the_cap_rule_equals_its_brute_force():
    rng = np.random.default_rng(30)
    criterion = build_criterion("MinCost")
    compared = deferred = 0
    for _ in range(200):
        nodes, busy, limit = _random_case(rng)
        profile = CappedProfile(nodes, busy, 0.0, limit)
        held = []
        for _ in range(4):
            request = Request(int(rng.integers(1, len(nodes) + 1)), float(rng.uniform(5, 30)),
                              earliest_start=float(rng.uniform(0, 20)))  # fmt: skip
            if sum(sorted(int(w) for w in limit.node_mw)[: request.n]) > min(limit.cap_mw):
                continue  # never fits the cap's lowest value: rejected before any search
            expected = _reference_rule(nodes, busy, limit, held, request)
            window = capped_search(criterion, profile, request)
            if expected is None:
                assert window is None
                continue
            assert window is not None
            if expected[0] == "least draw":
                assert window.start == pytest.approx(expected[1])
                assert list(window.nodes) == sorted(least_draw_nodes(profile, request))
            else:
                assert window.start == pytest.approx(expected[0], abs=1e-9)
                assert window.nodes == expected[1]
            deferred += not math.isclose(window.start, _uncapped_start(nodes, busy, held,
                                                                       request))  # fmt: skip
            assert _fits_brute(limit, held, window.nodes, window.start, window.finish)
            profile.reserve(window)
            held.append(window)
            compared += 1
    assert compared >= 400 and deferred >= 40  # the cap moved many windows


def _uncapped_start(nodes, busy, held, request) -> float:
    profile = Profile(nodes, busy)
    for window in held:
        profile.reserve(window)
    return build_criterion("MinCost").search(profile, request).start


def test_the_plan_refuses_a_window_over_the_cap():
    nodes = (Node(0, 1.0, 1.0), Node(1, 1.0, 1.0))
    limit = PowerLimit(np.array([100_000, 100_000]), (0.0,), (150_000,))
    profile = CappedProfile(nodes, [(), ()], 0.0, limit)
    first = capped_search(build_criterion("BFfinish"), profile, Request(1, 10.0))
    profile.reserve(first)
    second = capped_search(build_criterion("BFfinish"), profile, Request(1, 10.0))
    assert second.start == pytest.approx(first.finish)  # the other node waits for the watts
    with pytest.raises(ValueError, match="cap"):
        profile.reserve(type(first)(0.0, 10.0, (1 - first.nodes[0],), first.slots, 10.0))


# -- whole flows ----------------------------------------------------------------------------

POWER = PowerConfig(idle_watts=40, busy_watts=100, busy_watts_per_performance=50)
CAPS = [SignalConfig(value=700),
        SignalConfig(profile="daily", steps=((0, 900), (0.01, 520), (0.02, 760)))]  # fmt: skip


def _flow(rng: np.random.Generator) -> Instance:
    count = 8
    nodes = tuple(Node(i, float(rng.integers(1, 4)), float(rng.uniform(0.1, 1.0)))
                  for i in range(count))  # fmt: skip
    busy = tuple(((s, s + 20.0),) if rng.random() < 0.3 else ()
                 for s in rng.uniform(0, 100, size=count))  # fmt: skip
    arrivals = np.sort(rng.uniform(0, 150, size=20))
    jobs = tuple(Job(i, float(a), int(rng.integers(1, 5)), float(rng.uniform(20, 120)),
                     runtime_factor=float(rng.uniform(0.5, 1.0)))
                 for i, a in enumerate(arrivals))  # fmt: skip
    return Instance(nodes, busy, jobs)


def _run(instance, policy, scheduler, cap: SignalConfig | None):
    performance = np.array([node.performance for node in instance.nodes])
    count = len(instance.nodes)
    model = energy_model([POWER] * count, performance, [None] * count, [None] * count)
    power = None if cap is None else power_limit(model, cap.signal(), 0.0, 1e5)
    criterion = build_criterion(policy)
    jobs = in_schema_order(simulate(instance, criterion, "fcfs", scheduler, power).jobs_table())
    watts = {node.id: POWER.busy_watts + POWER.busy_watts_per_performance * node.performance
             for node in instance.nodes}  # fmt: skip
    return jobs, watts


@pytest.mark.parametrize("scheduler", ["conservative", "easy", "fcfs"])
@pytest.mark.parametrize("cap", CAPS, ids=["constant", "day-night"])
def test_random_capped_flows_never_exceed_the_cap(scheduler, cap):
    rng = np.random.default_rng([30, len(scheduler)])
    binding = 0
    for _ in range(2):
        instance = _flow(rng)
        for policy in ("BFfinish", "CoP"):
            jobs, watts = _run(instance, policy, scheduler, cap)
            assert cap_problems(jobs, watts, cap) == []
            lowest = min(v for _, v in cap.steps) if cap.steps else cap.value
            least = {job.id: sum(sorted(watts.values())[: job.n]) for job in instance.jobs}
            never = jobs.job_id.map(least) > lowest
            assert (jobs.final_state[~never] == "finished").all()
            assert (jobs.final_state[never] == "rejected").all()
            if scheduler == "conservative":  # compression never moves a job later
                ran = jobs[~never]
                assert (ran.start_time <= ran.first_reservation + 1e-9).all()
            free, _ = _run(instance, policy, scheduler, None)
            binding += cap_problems(free, watts, cap) != []
    assert binding >= 2  # without the cap the same flows draw more


@pytest.mark.parametrize("scheduler", ["conservative", "easy", "fcfs"])
def test_a_cap_that_never_binds_changes_nothing(scheduler):
    instance = _flow(np.random.default_rng(31))
    for policy in ("BFfinish", "CoP"):
        capped, _ = _run(instance, policy, scheduler, SignalConfig(value=1e6))
        free, _ = _run(instance, policy, scheduler, None)
        assert capped.equals(free)


@pytest.mark.parametrize("scheduler", ["conservative", "easy", "fcfs"])
def test_a_job_the_cap_never_lets_in_is_rejected_with_its_reason(scheduler):
    nodes = tuple(Node(i, 1.0, 1.0) for i in range(4))
    jobs = (Job(0, 0.0, 4, 10.0), Job(1, 0.0, 1, 10.0), Job(2, 0.0, 5, 10.0))
    instance = Instance(nodes, ((),) * 4, jobs)
    table, _ = _run(instance, "BFfinish", scheduler, SignalConfig(value=400))
    assert list(table.final_state) == ["rejected", "finished", "rejected"]
    assert table.reason.iloc[0] == OVER_CAP
    assert table.reason.iloc[2] == NO_WINDOW  # wider than the machine: not the cap's doing


# -- the study --------------------------------------------------------------------------------


def _study(queue_size: int | None, replications: int):
    """The bundled study's runs (``queue_size`` jobs of each replication, if given) and, per
    cap, its jobs and node watts."""
    document = yaml.safe_load((FOLDER / "energy-capped-flow.yaml").read_text())
    caps = document.pop("sweep")["environment.power_cap"]
    if queue_size is not None:
        document["queue_sizes"] = [queue_size]
    power = PowerConfig(**document["environment"]["power"])
    for cap in caps:
        document["environment"]["power_cap"] = cap
        scenario = JobFlowScenario.model_validate(document)
        for replication in range(replications):
            tables = run_replication(scenario, replication,
                                     replication_seed(scenario.seed, replication))  # fmt: skip
            yield SignalConfig(**cap), tables, power


def _check_study(queue_size: int | None, replications: int) -> None:
    binding = 0
    for cap, tables, power in _study(queue_size, replications):
        tasks = tables["tasks"]
        for policy, jobs in tables["jobs"].groupby("policy"):
            mine = tasks[(tasks.policy == policy) & (tasks.kind != "local_load")]
            watts = {int(n): float(power.busy_at(p))
                     for n, p in zip(mine.node, mine.performance, strict=True)}  # fmt: skip
            assert cap_problems(jobs, watts, cap) == []
            assert (jobs.final_state == "finished").all()  # every job fits every cap
            binding += cap_problems(jobs, watts, SignalConfig(value=4500)) != []
    assert binding  # the uncapped and night-time runs draw more than the day cap


def test_a_cut_down_study_never_exceeds_its_caps():
    _check_study(queue_size=80, replications=1)


@pytest.mark.slow
def test_the_whole_study_never_exceeds_its_caps():
    document = yaml.safe_load((FOLDER / "energy-capped-flow.yaml").read_text())
    _check_study(queue_size=None, replications=document["replications"])


@pytest.mark.parametrize("scheduler", ["conservative", "easy", "fcfs"])
def test_early_stops_give_the_schedules_of_the_whole_capped_search(scheduler, monkeypatch):
    """A planner that uses a window only if it starts by some time lets the capped search
    stop there (``before``); searching on instead changes no schedule."""
    instance = _flow(np.random.default_rng(33))
    stopped = [_run(instance, policy, scheduler, CAPS[1])[0] for policy in ("BFfinish", "CoP")]
    search = ReservationPlanner.search
    monkeypatch.setattr(ReservationPlanner, "search",
                        lambda self, request, before=math.inf: search(self, request))  # fmt: skip
    for policy, early in zip(("BFfinish", "CoP"), stopped, strict=True):
        assert _run(instance, policy, scheduler, CAPS[1])[0].equals(early)


@settings(max_examples=examples(40))
@given(
    instance=instances(deviations=True, early_only=True),
    scheduler=st.sampled_from(["conservative", "easy", "fcfs"]),
    cap=st.integers(300, 1400),
)
def test_no_flow_exceeds_its_cap(instance, scheduler, cap):
    """Property: random flows (early finishes included) under any built-in planner and a
    constant cap: no instant over it; every job runs unless the cap never lets it in."""
    jobs, watts = _run(instance, "BFfinish", scheduler, SignalConfig(value=cap))
    assert cap_problems(jobs, watts, SignalConfig(value=cap)) == []
    least = {job.id: sum(sorted(watts.values())[: job.n]) for job in instance.jobs}
    never = jobs.job_id.map(least) > cap
    assert (jobs.final_state[~never] == "finished").all()
    assert (jobs.final_state[never] == "rejected").all()


def test_a_flow_counts_the_jobs_the_cap_never_lets_in():
    document = {
        "name": "capped", "kind": "jobflow", "seed": 3, "queue_sizes": [40],
        "environment": {"nodes": 8, "performance": {"low": 1, "high": 2},
                        "local_load": {"max_utilisation": 0},
                        "power": {"idle_watts": 50, "busy_watts": 100},
                        "power_cap": {"value": 450}},
        "jobs": {"n": [1, 8]}, "arrivals": {"model": "uniform", "span": 2000},
        "policies": ["BFfinish"],
    }  # fmt: skip
    scenario = JobFlowScenario.model_validate(document)
    tables = run_replication(scenario, 0, replication_seed(3, 0))
    run = tables["runs"].iloc[0]
    wide = (tables["jobs"].processors > 4).sum()  # 5 nodes and more draw over 450 W
    assert run.jobs_rejected_over_power_cap == wide > 0
    assert run.jobs_rejected_no_window == 0
    assert run.jobs_finished == 40 - wide
