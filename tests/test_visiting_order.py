"""The visiting order of the window search, computed lazily, against computing every bound.

``VisitingOrder`` computes sigma bounds only as far as the search needs them (highest
ceiling first); these tests compute every bound at once, independently of it, and require
the same sigmas, in the same order, with the same bounds, and the same sigmas visited by a
whole search.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from search_steps import search_inputs

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection import window_search
from gridsim.selection.registry import build_criterion
from gridsim.selection.window_search import Joinable, VisitingOrder

#: The criteria with ceilings of their sigma bounds (their searches are lazy).
LAZY = ["CoP", "PAST", {"name": "CoP", "delta2": 3.0}]


def random_search_inputs(seed: int):
    profile, request = random_instance(seed)
    return profile, request, *search_inputs(profile, request)


def eager_order(slots, sigmas, runtime, request, criterion):
    """Every sigma's bound, then the visiting order's key (bound, faster, earlier, index)."""
    joinable = Joinable.of(slots, sigmas, runtime[sigmas], request)
    bounds = criterion.sigma_bounds(slots, sigmas, runtime[sigmas], request, joinable)
    keys = [
        (-bound, -slots.performance[sigma], slots.start[sigma], sigma)
        for sigma, bound in zip(sigmas.tolist(), bounds.tolist(), strict=True)
        if bound > -np.inf
    ]
    keys.sort()
    return np.array([key[3] for key in keys], dtype=np.int64), np.array([-key[0] for key in keys])


@pytest.mark.parametrize("spec", LAZY, ids=str)
@pytest.mark.parametrize("block", [1, 3, VisitingOrder.FIRST_BLOCK])
@settings(max_examples=examples(30))
@given(seed=st.integers(0, 10**6))
def test_each_prefix_of_the_lazy_order_is_the_eager_order(spec, block, seed):
    criterion = build_criterion(spec)
    _, request, slots, runtime, sigmas = random_search_inputs(seed)
    order_sigmas, order_bounds = eager_order(slots, sigmas, runtime, request, criterion)
    lazy = VisitingOrder(slots, sigmas, runtime, request, criterion)
    assert lazy.lazy
    lazy._block = block
    for end in range(1, len(order_sigmas) + 1):
        assert lazy.settle(end, None) >= end
        np.testing.assert_array_equal(lazy.sigmas[:end], order_sigmas[:end])
        np.testing.assert_array_equal(lazy.bounds[:end], order_bounds[:end])
    lazy.extend(len(sigmas))
    np.testing.assert_array_equal(lazy.sigmas, order_sigmas)
    np.testing.assert_array_equal(lazy.bounds, order_bounds)


@pytest.mark.parametrize("spec", LAZY, ids=str)
@settings(max_examples=examples(60))
@given(seed=st.integers(0, 10**6))
def test_every_ceiling_is_at_least_its_sigmas_bound(spec, seed):
    criterion = build_criterion(spec)
    _, request, slots, runtime, sigmas = random_search_inputs(seed)
    joinable = Joinable.of(slots, sigmas, runtime[sigmas], request)
    bounds = criterion.sigma_bounds(slots, sigmas, runtime[sigmas], request, joinable)
    ceilings = criterion.sigma_bound_ceilings(slots, sigmas, runtime[sigmas], request.n)
    assert ceilings.shape == bounds.shape
    assert not np.isnan(ceilings).any()
    assert (bounds <= ceilings).all()


def visited_by_search(monkeypatch, profile, request, criterion, lazy: bool):
    """The window found and the sigmas whose steps the search built, in order."""
    visited = []
    steps = window_search.steps_of

    def recording_steps(slots, sigmas, *args):
        visited.append(np.asarray(sigmas).copy())
        return steps(slots, sigmas, *args)

    computed = []
    bounds = type(criterion).sigma_bounds

    def counting_bounds(self, slots, sigmas, *args):
        computed.append(len(sigmas))
        return bounds(self, slots, sigmas, *args)

    with monkeypatch.context() as patch:
        patch.setattr(window_search, "steps_of", recording_steps)
        patch.setattr(type(criterion), "sigma_bounds", counting_bounds)
        patch.setattr(VisitingOrder, "FIRST_BLOCK", 1)
        if not lazy:
            patch.setattr(type(criterion), "sigma_bound_ceilings", lambda *args: None)
        # The Python search's visits (criterion.search may run the compiled one).
        window = window_search.find_window(profile.slot_table(), request, criterion)
    visited = np.concatenate(visited) if visited else np.empty(0, dtype=np.int64)
    return window, visited, sum(computed)


@pytest.mark.parametrize("spec", LAZY, ids=str)
def test_a_lazy_search_visits_the_sigmas_an_eager_one_visits(monkeypatch, spec):
    criterion = build_criterion(spec)
    fewer = 0
    for seed in range(60):
        profile, request, *_, sigmas = random_search_inputs(seed)
        lazy = visited_by_search(monkeypatch, profile, request, criterion, lazy=True)
        eager = visited_by_search(monkeypatch, profile, request, criterion, lazy=False)
        assert lazy[0] == eager[0], seed
        np.testing.assert_array_equal(lazy[1], eager[1], err_msg=f"seed {seed}")
        assert lazy[2] <= eager[2] == len(sigmas)
        fewer += lazy[2] < eager[2]
    # Not vacuous: on many instances the lazy search computed fewer bounds than all.
    assert fewer >= 10


@pytest.mark.parametrize("spec", ["MaxQ", "BFstart", "BFfinish"])
def test_a_search_among_equal_windows_stops_after_the_first_sigma(monkeypatch, spec):
    """Branch and bound: once a window is found, a sigma whose bound only equals it on the
    same group and start cannot beat it (the tie-break keeps the first), so the search ends.
    On identical idle nodes every sigma has the same bound and window (criteria whose bound
    is exact there): one sigma is visited.
    """
    nodes = tuple(Node(i, 2.0, 0.2, 1.0) for i in range(30))
    profile = Profile(nodes, [[] for _ in nodes], 0.0, 100.0)
    criterion = build_criterion(spec)
    window, visited, _ = visited_by_search(monkeypatch, profile, Request(3, 20.0), criterion, True)
    assert window is not None and (window.start, window.runtime) == (0.0, 10.0)
    assert len(visited) == 1
