"""gridsim's node-level planners give every job the schedule of the frozen reference.

The reference (``tests/reference_node_planners.py``) is the straightforward planning the fast
path replaced: every queued job searched again at every event, the profile never forgetting
the past. Same start, finish, nodes, first promise, delay and cost for every job, to the
last bit.
"""

import pandas as pd
import pytest
from node_replay_cases import kth_flow, random_flow, schedule

from gridsim.selection.registry import build_criterion

SCHEDULERS = ["conservative", "easy", "fcfs"]
CRITERIA = ["BFfinish", "CoP"]


def assert_same_schedule(instance, criterion, scheduler, priority="fcfs"):
    fast = schedule(instance, criterion, scheduler, priority)
    reference = schedule(instance, criterion, scheduler, priority, reference=True)
    pd.testing.assert_frame_equal(fast, reference, check_exact=True)
    return fast


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("name", CRITERIA)
@pytest.mark.parametrize("seed", range(4))
def test_random_heterogeneous_flows(seed, name, scheduler):
    instance = random_flow(seed)
    fast = assert_same_schedule(instance, build_criterion(name), scheduler)
    assert (fast.final_state != "unfinished").all()


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("name", ["BFstart", "PAST", "MinCost"])
def test_random_flows_under_other_criteria_and_sjf(name, scheduler):
    for seed in (100, 101):
        assert_same_schedule(random_flow(seed), build_criterion(name), scheduler, "sjf")


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("name", CRITERIA)
def test_kth_prefix(name, scheduler):
    fast = assert_same_schedule(kth_flow(100), build_criterion(name), scheduler)
    assert (fast.final_state == "finished").all()


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 60))
@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("name", CRITERIA)
def test_more_random_flows(seed, name, scheduler):
    assert_same_schedule(random_flow(seed), build_criterion(name), scheduler)


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("name", CRITERIA)
def test_longer_kth_prefix(name, scheduler):
    assert_same_schedule(kth_flow(600), build_criterion(name), scheduler)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_plugin_criteria_are_searched_as_before(scheduler):
    # A plugin's windows are not assumed to last one volume over the slowest node, so the
    # planners search for it wherever the reference did.
    for name in ("plugin_samples:EarliestFinish", "plugin_samples:PlacementRules"):
        criterion = build_criterion(name)
        assert_same_schedule(random_flow(200), criterion, scheduler)
