"""Contracts of the criteria that the searches against the reference do not reach.

Scores of finished windows (MultipleBest compares alternatives with them), the cheapest
subset taken step by step against the steps evaluated ahead, budgets met exactly, the
margin of the sigma-bound ceilings, MultipleBest's alternatives and ties, parameters at
their limits, labels and the listing of plugin criteria.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pytest
from random_instances import random_instance

from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection import criteria, registry
from gridsim.selection.candidates import Candidates
from gridsim.selection.energy_criteria import ENERGY_CRITERIA_NAMES
from gridsim.selection.registry import (
    CRITERIA,
    CriterionError,
    MultipleBest,
    build_criterion,
    check_policy_specs,
)
from gridsim.selection.window_search import Joinable

SEEDS = range(12)
CHEAPEST = ["FirstFit", "MinStart", "MinFinish", "MinRuntime", "MinCost", "MaxQLite",
            "DEPLite", "COORDLite"]  # fmt: skip


def idle(count: int, performance: float = 2.0, price: float = 0.25) -> Profile:
    nodes = tuple(Node(i, performance, price, 1.0) for i in range(count))
    return Profile(nodes, [[] for _ in nodes], 0.0, 100.0)


@pytest.mark.parametrize("name", CHEAPEST)
def test_the_cheapest_subset_chunk_by_chunk_gives_the_windows_evaluated_ahead(name):
    """Criteria that take the cheapest subset have their steps evaluated ahead in large
    batches; choosing chunk by chunk (``Criterion.choose``) must give the same windows."""
    cls = CRITERIA[name]
    chunk_by_chunk = dataclass(frozen=True)(
        type(f"{name}ByChunk", (cls,), {"__annotations__": {}, "takes_cheapest": False})
    )
    assert not chunk_by_chunk.takes_cheapest
    for seed in SEEDS:
        profile, request = random_instance(seed)
        expected = cls().search(profile, request)
        window = chunk_by_chunk().search(profile, request)
        assert (window is None) == (expected is None), seed
        if window is not None:
            assert (window.start, window.nodes, window.criterion_value) == (
                expected.start, expected.nodes, expected.criterion_value
            ), seed  # fmt: skip


# The energy criteria need a power model: tests/test_signal_criteria.py checks their scores.
@pytest.mark.parametrize("name", sorted(set(CRITERIA) - {"MultipleBest", *ENERGY_CRITERIA_NAMES}))
def test_the_score_of_a_found_window_is_its_criterion_value(name):
    criterion = build_criterion(name)
    found = 0
    for seed in SEEDS:
        profile, request = random_instance(seed)
        window = criterion.search(profile, request)
        if window is None:
            continue
        found += 1
        assert criterion.score(window, profile.nodes) == pytest.approx(
            window.criterion_value, rel=1e-9, abs=1e-9
        ), seed
    assert found >= 4


def test_window_level_scores_are_the_start_finish_and_runtime():
    profile, request = random_instance(1)
    window = build_criterion("FirstFit").search(profile, request)
    nodes = profile.nodes
    assert build_criterion("FirstFit").score(window, nodes) == -window.start
    assert build_criterion("MinFinish").score(window, nodes) == -window.finish
    assert build_criterion("MinRuntime").score(window, nodes) == -window.runtime
    assert build_criterion("MinCost").score(window, nodes) == pytest.approx(-window.cost)
    for target in ("MaxQ", "MinFinish", "MinCost"):
        assert MultipleBest(target).score(window, nodes) == build_criterion(target).score(
            window, nodes
        )


@pytest.mark.parametrize("name", ["MaxQLite", "DEPLite", "MinCost", "MaxQ", "FirstFit"])
def test_a_window_costing_exactly_the_budget_is_affordable(name):
    # Two nodes, task 20 / 2 = 10 long at 0.25 a unit: each costs 2.5, the window 5.0.
    profile = idle(2)
    window = build_criterion(name).search(profile, Request(2, 20.0, budget=5.0))
    assert window is not None and window.cost == 5.0
    assert window.criterion_value == build_criterion(name).score(window, profile.nodes)
    assert build_criterion(name).search(profile, Request(2, 20.0, budget=4.999)) is None


@pytest.mark.parametrize("spec", ["CoP", "PAST"])
@pytest.mark.parametrize("volume", [8.0, 40.0])
def test_sigma_bound_ceilings_stay_above_bounds_that_reach_them(spec, volume):
    """On slots exactly as long as the task every slot gets both adjacency bonuses (CoP: a
    tight fit on both sides), so a sigma's bound is the window bound itself; its ceiling must
    not fall below it, also where the window bound is under 1 in size (volume 8: 0.4)."""
    nodes = tuple(Node(i, 10.0, 1.0, 1.0) for i in range(3))
    task = volume / 10.0
    profile = Profile(nodes, [[(task, 100.0)] for _ in nodes], 0.0, 100.0)
    request = Request(len(nodes) - 1, volume)
    criterion = build_criterion(spec)
    slots = Candidates.from_table(profile.slot_table(), request)
    runtime = request.volume / slots.performance
    sigmas = np.arange(len(slots))
    joinable = Joinable.of(slots, sigmas, runtime[sigmas], request)
    bounds = criterion.sigma_bounds(slots, sigmas, runtime[sigmas], request, joinable)
    ceilings = criterion.sigma_bound_ceilings(slots, sigmas, runtime[sigmas], request.n)
    exact = criterion.window_value_bound(slots.start[sigmas], runtime[sigmas],
                                         slots.performance[sigmas], request.n)  # fmt: skip
    np.testing.assert_allclose(bounds, exact, rtol=1e-12)  # the bound reaches the ceiling
    assert (ceilings >= bounds).all() and (ceilings > exact).all()
    window = criterion.search(profile, request)
    assert window is not None and window.start == 0.0


def test_multiple_best_takes_at_most_max_alternatives():
    profile, request = idle(6), Request(2, 20.0)
    assert len(MultipleBest(max_alternatives=2).alternatives(profile, request)) == 2
    assert len(MultipleBest(max_alternatives=1).alternatives(profile, request)) == 1
    assert len(MultipleBest().alternatives(profile, request)) == 3 * 10  # 3 pairs x 10 starts


def test_multiple_best_keeps_the_first_of_equal_alternatives_with_its_value():
    profile, request = idle(6), Request(2, 20.0)
    first = MultipleBest().alternatives(profile, request)[0]
    window = MultipleBest("MaxQ").search(profile, request)
    assert (window.start, window.nodes) == (first.start, first.nodes)
    assert window.criterion_value == 2.0  # q = 1 on both nodes
    window = MultipleBest("MinFinish").search(profile, request)
    assert (window.start, window.nodes, window.criterion_value) == (0.0, first.nodes, -10.0)


def test_parameters_at_their_limits():
    assert MultipleBest(max_alternatives=1).max_alternatives == 1
    with pytest.raises(ValueError, match=r"^max_alternatives must be at least 1$"):
        MultipleBest(max_alternatives=0)
    assert build_criterion({"name": "DEP", "max_distance": 0.5}).max_distance == 0.5
    with pytest.raises(CriterionError, match="max_distance must be positive, got 0"):
        build_criterion({"name": "DEP", "max_distance": 0})


def test_a_label_lists_every_parameter_changed():
    spec = {"name": "CoP", "delta1": 2.0, "delta2": 0.5}
    assert build_criterion(spec).label == "CoP(delta1=2.0, delta2=0.5)"


def test_a_policy_listed_twice_is_refused_by_its_label():
    assert check_policy_specs(["MaxQ", "DEP"]) == ["MaxQ", "DEP"]
    with pytest.raises(ValueError, match=r"^policy 2: MaxQ is listed twice$"):
        check_policy_specs(["MaxQ", "DEP", {"name": "MaxQ"}])


@dataclass(frozen=True)
class _Documented(criteria.FirstFit):
    """First line of the docstring.

    More text.
    """

    name: ClassVar[str] = "Documented"
    summary: ClassVar[str] = ""


@dataclass(frozen=True)
class _Summarised(criteria.FirstFit):
    name: ClassVar[str] = "Summarised"
    summary: ClassVar[str] = "its own summary"


def test_plugin_criteria_are_listed_with_why_one_is_hidden_or_unusable(monkeypatch):
    entry = {name: SimpleNamespace(value=f"pkg:{name}") for name in
             ("Broken", "MaxQ", "Documented", "Summarised")}  # fmt: skip
    classes = {"Documented": _Documented, "Summarised": _Summarised}

    def plugin_class(name):
        if name == "Broken":
            raise CriterionError("Broken does not define value(start, runtime)")
        return classes[name]

    monkeypatch.setattr(registry, "installed", lambda group: entry)
    monkeypatch.setattr(registry, "_plugin_class", plugin_class)
    assert registry.describe_plugin_criteria() == [
        ("Broken", "unusable: Broken does not define value(start, runtime)"),
        ("MaxQ", "hidden by the built-in MaxQ; name it as pkg:MaxQ"),
        ("Documented", "First line of the docstring. [pkg:Documented]"),
        ("Summarised", "its own summary [pkg:Summarised]"),
    ]


def test_a_name_that_is_not_a_string_is_refused_as_unknown():
    for name in (["MaxQ"], {"MaxQ": 1}, 3):
        with pytest.raises(CriterionError, match=r"^unknown criterion"):
            build_criterion({"name": name})


@pytest.mark.parametrize("name", ["MaxQ", "DEP", "COORD", "MaxQLite", "MinCost", "CoP"])
def test_one_node_requests_skip_the_nodes_whose_task_breaks_the_budget(name):
    # Node 0 is fast but dear (task 10 at 1.0 a unit: 10), node 1 slow and cheap (20 at 0.1:
    # 2); a budget of 5 leaves node 1 only.
    nodes = (Node(0, 2.0, 1.0, 9.0), Node(1, 1.0, 0.1, 1.0))
    profile = Profile(nodes, [[], []], 0.0, 100.0)
    window = build_criterion(name).search(profile, Request(1, 20.0, budget=5.0))
    assert window is not None and window.nodes == (1,) and window.cost == pytest.approx(2.0)


def test_an_unknown_name_without_a_close_one_gets_no_hint():
    with pytest.raises(CriterionError) as raised:
        build_criterion({"name": 3})
    assert str(raised.value) == "unknown criterion 3 (see `gridsim policies`)"


@dataclass(frozen=True)
class LabelledPlugin(criteria.WindowCriterion):
    """A plugin criterion with a label of its own."""

    weight: float = 1.0

    def value(self, start, runtime):
        return -np.asarray(start, dtype=float)

    @property
    def label(self) -> str:
        return f"Labelled[{self.weight}]"


@dataclass(frozen=True)
class UnlabelledPlugin(LabelledPlugin):
    """A plugin criterion with the default label."""

    label = criteria.Criterion.label


def test_a_plugin_keeps_its_own_label_else_gets_one_from_its_parameters():
    labelled = build_criterion({"name": "test_criteria_contracts:LabelledPlugin", "weight": 2.0})
    assert labelled.label == "Labelled[2.0]"
    spec = {"name": "test_criteria_contracts:UnlabelledPlugin", "weight": 2.0}
    assert build_criterion(spec).label.endswith("(weight=2.0)")
