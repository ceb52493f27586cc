"""The window search at the edges of its input: slots that just qualify or just do not.

The random instances of tests/test_window_search.py have many slots of general lengths, so a
search that dropped a node exactly as fast as the minimum, failed on a profile of one slot or
of no free slot, gave up on exactly ``n`` slots, or measured a slot's length against the task
with the tolerance on the wrong side would pass there; each case here pins one such edge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from random_instances import random_instance

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.placement import CoP
from gridsim.selection.registry import build_criterion

CRITERIA = ["FirstFit", "MinFinish", "MinCost", "MaxQ", "MaxQLite", "DEP", "CoP", "BFfinish"]


def idle(performances: list[float], horizon: float = 100.0) -> Profile:
    nodes = tuple(Node(i, p, p / 10, 1.0) for i, p in enumerate(performances))
    return Profile(nodes, [[] for _ in nodes], 0.0, horizon)


@pytest.mark.parametrize("name", CRITERIA)
def test_a_node_exactly_as_fast_as_the_minimum_is_eligible(name):
    profile = idle([2.0, 4.0])
    window = build_criterion(name).search(profile, Request(2, 20.0, min_performance=2.0))
    assert window is not None and window.nodes == (0, 1)
    assert window.runtime == 10.0  # the slowest node (performance 2) sets it
    slower = Request(2, 20.0, min_performance=2.5)
    assert build_criterion(name).search(profile, slower) is None


@pytest.mark.parametrize("name", CRITERIA)
def test_exactly_n_free_slots_give_a_window_on_all_of_them(name):
    window = build_criterion(name).search(idle([2.0, 4.0, 4.0]), Request(3, 20.0))
    assert window is not None
    assert (window.start, window.nodes) == (0.0, (0, 1, 2))


@pytest.mark.parametrize("name", CRITERIA)
def test_fewer_free_slots_than_nodes_requested_give_no_window(name):
    for budget in (float("inf"), 1000.0):
        assert build_criterion(name).search(idle([2.0, 4.0]), Request(3, 20.0, budget)) is None


@pytest.mark.parametrize("name", CRITERIA)
def test_a_profile_without_a_free_slot_gives_no_window(name):
    nodes = (Node(0, 2.0, 0.2), Node(1, 4.0, 0.4))
    profile = Profile(nodes, [[(0.0, 100.0)], [(0.0, 100.0)]], 0.0, 100.0)
    assert len(profile.slot_table()) == 0
    assert build_criterion(name).search(profile, Request(1, 20.0)) is None


@pytest.mark.parametrize("name", CRITERIA)
def test_one_free_slot_cut_by_the_earliest_start(name):
    window = build_criterion(name).search(idle([2.0]), Request(1, 20.0, earliest_start=5.0))
    assert window is not None
    assert (window.start, window.runtime, window.nodes) == (5.0, 10.0, (0,))


@pytest.mark.parametrize("name", CRITERIA)
def test_a_slot_that_rounding_makes_a_hair_shorter_than_the_task_still_holds_it(name):
    # The slot [8.3, 10.4): end - start rounds to 2.0999999999999996, under the task (volume
    # 2.1 on performance 1); yet a task starting at 8.3 ends at 8.3 + 2.1 == 10.4, the slot's
    # end, and 10.4 - 2.1 == 8.3: the slot holds it.
    start, end, task = 8.3, 10.4, 2.1
    assert end - start < task and start + task == end and end - task == start
    nodes = (Node(0, 1.0, 0.1, 1.0),)
    profile = Profile(nodes, [[(0.0, start), (end, 100.0)]], 0.0, 100.0)
    window = build_criterion(name).search(profile, Request(1, task))
    assert window is not None
    assert (window.start, window.finish) == (start, end)


@dataclass(frozen=True)
class CoPWithoutSomeCeilings(CoP):
    """CoP whose sigma-bound ceilings are NaN (unknown) for every other sigma."""

    def sigma_bound_ceilings(self, slots, sigmas, runtimes, n):
        ceilings = np.array(super().sigma_bound_ceilings(slots, sigmas, runtimes, n), dtype=float)
        ceilings[::2] = np.nan
        return ceilings


@pytest.mark.parametrize("seed", range(8))
def test_a_sigma_whose_ceiling_is_nan_is_still_visited(seed):
    """A ceiling that is NaN says nothing about the sigma's bound: the search must compute
    that bound (as for an infinite ceiling), not drop the sigma: same window as CoP."""
    profile, request = random_instance(seed)
    expected = CoP().search(profile, request)
    window = CoPWithoutSomeCeilings().search(profile, request)
    assert (window is None) == (expected is None)
    if window is not None:
        assert (window.start, window.nodes, window.criterion_value) == (
            expected.start, expected.nodes, expected.criterion_value
        )  # fmt: skip


@pytest.mark.parametrize("name", ["FirstFit", "MinFinish", "BFstart", "BFfinish", "CoP"])
def test_the_exact_fit_holds_with_many_performance_levels(name):
    """With more distinct performances than ``earliest.MAX_LEVELS`` the earliest-step bound
    takes one sweep for all sigmas; its slack must keep the exact fit of the slot [8.3, 10.4)
    (task 2.1 on performance 1) as a step. The nine faster nodes are free from 50 only, so
    every criterion of the earliest finish takes the exact fit."""
    start, end, task = 8.3, 10.4, 2.1
    nodes = tuple(Node(i, 1.0 + i, 0.1, 1.0) for i in range(10))
    busy = [[(0.0, start), (end, 100.0)]] + [[(0.0, 50.0)] for _ in nodes[1:]]
    profile = Profile(nodes, busy, 0.0, 100.0)
    window = build_criterion(name).search(profile, Request(1, task))
    assert window is not None and (window.start, window.nodes) == (start, (0,))
