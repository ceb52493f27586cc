"""The factories that build the additive and distance criteria, called inside the tests.

``MinCost``, ``MaxQ``, ``DEP``, ``COORD`` and their Lite forms are classes built by
``_additive`` and ``_distance`` (with bounds from ``_centred`` and ``_constant``) when
``gridsim.selection.criteria`` is imported. A test that only uses the imported classes checks
what the factories built once, at import; these tests call the factories again, into a copy
of the registry, and require the same classes: the same attributes, the same windows as the
imported criteria and as the plain reference of the paper's procedure, and slot-value bounds
that are never below a value they bound and, for the distance criteria, exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import ClassVar

import numpy as np
import pytest
from random_instances import random_instance
from reference_window_search import reference_search_all

from gridsim.selection import criteria
from gridsim.selection.criteria import SlotCriterion
from gridsim.selection.registry import CRITERIA

SEEDS = range(16)
ATTRIBUTES = ("name", "summary", "lite", "takes_cheapest", "batch_limit", "reads_q_and_cost")


def _min_cost_values(a, b, q, cost, t, T):
    return -np.broadcast_to(cost, np.broadcast_shapes(np.shape(cost), np.shape(t)))


def rebuilt() -> dict[str, type]:
    """Every factory-built criterion, built again (the registry keeps the imported ones)."""
    made = {
        "MinCost": criteria._additive(
            "MinCost", CRITERIA["MinCost"].summary, _min_cost_values,
            criteria._constant(lambda q, cost: -cost), lite=True,
        ),
        "MaxQ": criteria._additive(
            "MaxQ", CRITERIA["MaxQ"].summary, criteria._q_values,
            criteria._constant(lambda q, cost: q), lite=False,
        ),
        "MaxQLite": criteria._additive(
            "MaxQLite", CRITERIA["MaxQLite"].summary, criteria._q_values,
            criteria._constant(lambda q, cost: q), lite=True,
        ),
    }  # fmt: skip
    for name, nearest in (("DEP", True), ("COORD", False)):
        for lite in (False, True):
            full = name + ("Lite" if lite else "")
            made[full] = criteria._distance(full, CRITERIA[full].summary, nearest, lite)
    return made


@cache
def instance_and_reference(seed: int):
    profile, request = random_instance(seed)
    return profile, request, reference_search_all(profile, request)


def test_the_factories_build_the_imported_classes_again(monkeypatch):
    for name, cls in rebuilt().items():
        imported = CRITERIA[name]
        assert cls is not imported
        assert (cls.__name__, cls.__qualname__) == (name, name)
        for attribute in ATTRIBUTES:
            assert getattr(cls, attribute) == getattr(imported, attribute), (name, attribute)
        exact = name in ("MaxQ", "DEP", "COORD")
        assert (cls.lite, cls.takes_cheapest) == (not exact, not exact)
        assert cls.batch_limit == (8 if exact else criteria.Criterion.batch_limit)


@pytest.mark.parametrize("name", ["MinCost", "MaxQ", "MaxQLite", "DEP", "DEPLite", "COORD",
                                  "COORDLite"])  # fmt: skip
def test_rebuilt_criteria_find_the_reference_windows(monkeypatch, name):
    cls = rebuilt()[name]
    for seed in SEEDS:
        profile, request, reference = instance_and_reference(seed)
        window = cls().search(profile, request)
        expected = reference[name]
        assert (window is None) == (expected is None), seed
        if window is not None:
            assert window.criterion_value == pytest.approx(expected.value, rel=1e-9, abs=1e-9)
            assert cls().score(window, profile.nodes) == pytest.approx(
                window.criterion_value, rel=1e-9, abs=1e-9
            )


@pytest.mark.parametrize("name", ["DEP", "DEPLite", "COORD", "COORDLite"])
@pytest.mark.parametrize("cap", [3.0, 25.0])
def test_rebuilt_distance_criteria_with_a_cap_choose_the_imported_windows(monkeypatch, name, cap):
    cls = rebuilt()[name]
    for seed in SEEDS:
        profile, request, _ = instance_and_reference(seed)
        window = cls(max_distance=cap).search(profile, request)
        expected = CRITERIA[name](max_distance=cap).search(profile, request)
        assert (window is None) == (expected is None), seed
        if window is not None:
            assert (window.start, window.nodes, window.criterion_value) == (
                expected.start, expected.nodes, expected.criterion_value
            ), seed  # fmt: skip


def random_slots(seed: int, count: int = 400):
    """Slots (some open on one side, none on both), runtimes and ranges of starts that fit."""
    rng = np.random.default_rng(seed)
    slot_start = rng.uniform(0, 50, count)
    slot_end = slot_start + rng.uniform(5, 80, count)
    side = rng.random(count)  # open on the left, on the right, or closed
    slot_start[side < 0.15] = -np.inf
    slot_end[side > 0.85] = np.inf
    runtime = rng.uniform(1, 5, count)
    first = np.where(np.isinf(slot_start), rng.uniform(-20, 40, count), slot_start)
    last = np.where(np.isinf(slot_end), first + rng.uniform(0, 60, count), slot_end - runtime)
    lo = first + (last - first) * rng.uniform(0, 0.5, count)
    hi = lo + (last - lo) * rng.uniform(0, 1, count)
    return slot_start, slot_end, runtime, lo, hi


@pytest.mark.parametrize("name", ["DEP", "COORD"])
@pytest.mark.parametrize("cap", [np.inf, 4.0])
def test_rebuilt_distance_bounds_are_the_best_value_over_the_starts(monkeypatch, name, cap):
    """``_centred``: the bound over starts in ``[lo, hi]`` is never below the value at any
    of them, and (the value is unimodal in the start) it is the value at one of them: the
    centre clipped to the range, or an end of it for a slot open on one side."""
    criterion = rebuilt()[name](max_distance=cap)
    slot_start, slot_end, runtime, lo, hi = random_slots(7)
    bound = criterion.slot_value_bound(slot_start, slot_end, None, None, runtime, lo, hi)
    starts = lo[:, None] + (hi - lo)[:, None] * np.linspace(0, 1, 201)[None, :]
    values = criterion.slot_values(
        slot_start[:, None], slot_end[:, None], None, None, starts, runtime[:, None]
    )
    best = values.max(axis=1)
    assert (bound >= best - 1e-9).all()
    centre = np.clip((slot_start + slot_end - runtime) / 2, lo, hi)
    candidates = np.stack([lo, hi, centre], axis=1)
    at_candidates = criterion.slot_values(
        slot_start[:, None], slot_end[:, None], None, None, candidates, runtime[:, None]
    ).max(axis=1)
    np.testing.assert_array_equal(bound, at_candidates)


def test_rebuilt_constant_bounds_are_the_values(monkeypatch):
    made = rebuilt()
    rng = np.random.default_rng(3)
    q, cost = rng.uniform(0, 5, 50), rng.uniform(0, 9, 50)
    start = rng.uniform(0, 30, 50)
    for name in ("MinCost", "MaxQ", "MaxQLite"):
        criterion = made[name]()
        values = criterion.slot_values(None, None, q, cost, start, 2.0)
        bound = criterion.slot_value_bound(None, None, q, cost, 2.0, start, start + 5)
        np.testing.assert_array_equal(bound, values)
        np.testing.assert_array_equal(values, -cost if name == "MinCost" else q)


def test_a_slot_criterion_subclass_takes_the_cheapest_subset_exactly_when_lite():
    @dataclass(frozen=True)
    class Exact(SlotCriterion):
        lite: ClassVar[bool] = False

    @dataclass(frozen=True)
    class Lite(Exact):
        lite: ClassVar[bool] = True

    @dataclass(frozen=True)
    class LiteAgain(Lite):
        pass

    assert (Exact.takes_cheapest, Lite.takes_cheapest, LiteAgain.takes_cheapest) == (
        False, True, True
    )  # fmt: skip
