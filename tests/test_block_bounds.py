"""The Lite step bounds: never below a step's value, the same windows with and without them, and
their bit operations against the plain definitions."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import fields

import numpy as np
import pytest
import test_window_ties
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from search_steps import all_steps

import gridsim.selection.block_bounds as block_bounds
import gridsim.selection.criteria as criteria
import gridsim.selection.steps as steps
from gridsim.model import Request
from gridsim.selection.block_bounds import _set_bits, _through_cheapest
from gridsim.selection.registry import build_criterion
from gridsim.selection.steps import _score_cheapest
from gridsim.workloads.environment import EnvironmentSpec, generate_environment

LITE = [
    "MinCost",
    "MaxQLite",
    "DEPLite",
    "COORDLite",
    {"name": "DEPLite", "max_distance": 30.0},
    {"name": "COORDLite", "max_distance": 30.0},
]
BLOCKS = [1, 2, 3, block_bounds.BLOCK]


@contextmanager
def bounds_everywhere(block: int):
    """Bound every batch of steps, however few, in blocks of ``block`` steps."""
    saved = block_bounds.BLOCK, block_bounds.MIN_STEPS, steps.BOUNDING
    block_bounds.BLOCK, block_bounds.MIN_STEPS = block, 0
    steps.BOUNDING = steps.BoundingRecord()  # a record of its own, left as it was after
    steps.BOUNDING.WORTH = 0.0  # however few steps the bounds skip
    try:
        yield
    finally:
        block_bounds.BLOCK, block_bounds.MIN_STEPS, steps.BOUNDING = saved


def check_bounds(profile, request, spec) -> None:
    """Every step of every candidate slowest slot has a value no larger than its bound."""
    criterion = build_criterion(spec)
    count = request.n - 1
    step = all_steps(profile, request)
    if step is None or count == 0:
        return
    bounds = criterion.step_bounds(step, count)
    _, score, _, _ = _score_cheapest(step, count, criterion.row_values)
    above = np.flatnonzero(score > bounds)
    assert len(above) == 0, (score[above], bounds[above])


def without_bounds(spec):
    """The criterion evaluating every step."""
    criterion = build_criterion(spec)
    cls = type(criterion)
    plain = type(cls.__name__, (cls,), {"step_bounds": lambda self, step, count: None})
    return plain(**{f.name: getattr(criterion, f.name) for f in fields(criterion)})


def check_same_windows(profile, request, spec) -> None:
    bounded = build_criterion(spec).search(profile, request)
    plain = without_bounds(spec).search(profile, request)
    if plain is None:
        assert bounded is None
        return
    compared = ("start", "runtime", "nodes", "slots", "cost", "criterion_value")
    assert [getattr(bounded, f) for f in compared] == [getattr(plain, f) for f in compared]


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(LITE), st.sampled_from(BLOCKS))
def test_no_step_is_worth_more_than_its_bound_which_is_the_documented_sum(seed, spec, block):
    profile, request = random_instance(seed)
    with bounds_everywhere(block):
        check_bounds(profile, request, spec)
        check_against_reference(profile, request, spec)


@settings(max_examples=examples(60), deadline=None)
@given(test_window_ties.tied_instances(), st.sampled_from(LITE), st.sampled_from(BLOCKS))
def test_bounds_and_choices_with_many_equal_windows(instance, spec, block):
    profile, request = instance
    with bounds_everywhere(block):
        check_bounds(profile, request, spec)
        check_against_reference(profile, request, spec)
        check_same_windows(profile, request, spec)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(LITE), st.sampled_from(BLOCKS))
def test_skipping_steps_changes_no_window(seed, spec, block):
    profile, request = random_instance(seed)
    with bounds_everywhere(block):
        check_same_windows(profile, request, spec)


@pytest.mark.parametrize("spec", LITE)
def test_bounds_on_100_node_instances_with_more_than_64_slots(spec):
    request = Request(n=7, volume=800, budget=644, min_performance=1)
    for seed in (3, 11):
        profile = generate_environment(EnvironmentSpec(), np.random.default_rng(seed)).profile()
        check_bounds(profile, request, spec)
        with bounds_everywhere(2):
            check_bounds(profile, request, spec)
            check_same_windows(profile, request, spec)


words = st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=4)


@settings(max_examples=examples(100))
@given(st.lists(words, min_size=1, max_size=6), st.integers(1, 9), st.integers(0, 3))
def test_bit_operations_against_their_definitions(rows, count, sparse):
    width = max(len(row) for row in rows)
    bits = np.array([row + [0] * (width - len(row)) for row in rows], dtype=np.uint64)
    bits &= np.uint64((1 << 64) - 1 >> (16 * sparse))  # fewer set bits: counts near ``count``
    as_ints = [[int(word) for word in row] for row in bits]
    ranks = [[64 * w + b for w, word in enumerate(row) for b in range(64) if word >> b & 1]
             for row in as_ints]  # fmt: skip
    # The ranks up to the count-th set bit (every rank when a row has fewer).
    mask = _through_cheapest(bits, count)
    for row, row_ranks in zip(mask, ranks, strict=True):
        limit = row_ranks[count - 1] if len(row_ranks) >= count else 64 * width
        expected = [64 * w + b < limit + 1 for w in range(width) for b in range(64)]
        assert [bool(int(row[w]) >> b & 1) for w in range(width) for b in range(64)] == expected
    # Every set bit: its row, its index and its place among the row's set bits, in any order.
    row, index, place = _set_bits(bits)
    found = sorted(zip(row.tolist(), index.tolist(), place.tolist(), strict=True))
    expected = [(r, i, p) for r, row_ranks in enumerate(ranks) for p, i in enumerate(row_ranks)]
    assert found == expected


def test_bounds_that_skip_little_are_used_only_every_few_batches():
    record = steps.BoundingRecord()
    assert all(record.wanted(int) for _ in range(20))  # nothing recorded: bound
    record.record(int, 0.9)
    assert all(record.wanted(int) for _ in range(20))
    record.record(int, 0.0)  # the average falls to 0.45
    wanted = [record.wanted(int) for _ in range(3 * record.PROBE_EVERY)]
    assert wanted == ([False] * (record.PROBE_EVERY - 1) + [True]) * 3
    assert record.wanted(float)  # another criterion is not affected
    record.record(int, 1.0)
    assert all(record.wanted(int) for _ in range(20))


# -- the bounds against their definition -----------------------------------------------------


def reference_step_bounds(step, count, slot_bound):
    """The bound of each block of up to BLOCK rows of one sigma, a block at a time from the
    module's definition: sigma's slot bound over the block's starts plus the ``count``
    largest among ``K`` (the slots the last step lists, free until the first finish, no
    dearer by price rank than the ``count``-th cheapest of ``D``: the slots the first step
    lists, free until the last finish), widened by ``margin`` of ``count + 1`` terms."""
    slots = step.slots
    finish = step.start + step.runtime
    least = step._least_finish

    def listed(step_index, until, sigma):
        return [j for j in range(int(step_index) + 1)
                if slots.performance[j] >= slots.performance[sigma] and slots.end[j] >= until
                and slots.end[j] >= least and j != sigma]  # fmt: skip

    blocks, first = [], 0
    for row in range(1, len(step.sigma) + 1):
        if (row == len(step.sigma) or step.sigma[row] != step.sigma[first]
                or row - first == block_bounds.BLOCK):  # fmt: skip
            blocks.append((first, row - 1))
            first = row
    bounds = np.full(len(step.sigma), np.inf)
    totals = []
    for first, last in blocks:
        sigma = int(step.sigma[first])
        cheapest_first = sorted(listed(step.step[first], finish[last], sigma),
                                key=lambda j: (slots.price[j], j))  # fmt: skip
        if len(cheapest_first) < count:
            continue
        limit = cheapest_first[count - 1]
        usable = [j for j in listed(step.step[last], finish[first], sigma)
                  if (slots.price[j], j) <= (slots.price[limit], limit)]  # fmt: skip
        slot = np.array([sigma, *usable])
        each = np.full(len(slot), 1.0)
        z = np.broadcast_to(slot_bound(slot, step.runtime[first] * each,
                                       step.start[first] * each, step.start[last] * each),
                            slot.shape)  # fmt: skip
        totals.append((first, last, z[0] + sum(sorted(z[1:], reverse=True)[:count])))
    if totals:
        scale = max(abs(step.start[last]) for _, last, _ in totals)
        for first, last, total in totals:
            bounds[first : last + 1] = total + block_bounds.margin(total, scale, count + 1)
    return bounds


def bounds_and_reference(profile, request, spec):
    """The criterion's step bounds of every step, and the reference's of the same steps."""
    criterion = build_criterion(spec)
    count = request.n - 1
    step = all_steps(profile, request)
    if step is None or count == 0:
        return None, None
    given = []

    def recording(step, count, slot_bound):
        given.append(slot_bound)
        return block_bounds.step_bounds(step, count, slot_bound)

    criteria.step_bounds = recording  # the criteria call step_bounds by this name
    try:
        bounds = criterion.step_bounds(step, count)
    finally:
        criteria.step_bounds = block_bounds.step_bounds
    return bounds, reference_step_bounds(step, count, given[0])


def check_against_reference(profile, request, spec):
    bounds, expected = bounds_and_reference(profile, request, spec)
    if bounds is None:
        return
    np.testing.assert_allclose(bounds, expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize("spec", ["MinCost", "DEPLite"])
def test_step_bounds_are_the_documented_sums_over_more_than_64_slots(spec):
    request = Request(n=7, volume=800, budget=644, min_performance=1)
    profile = generate_environment(EnvironmentSpec(), np.random.default_rng(3)).profile()
    check_against_reference(profile, request, spec)


def test_steps_are_bounded_from_min_steps_rows_on():
    profile = generate_environment(EnvironmentSpec(), np.random.default_rng(3)).profile()
    request = Request(n=7, volume=800, budget=644, min_performance=1)
    step = all_steps(profile, request)
    criterion = build_criterion("MinCost")
    rows = len(step.sigma)
    saved = block_bounds.MIN_STEPS
    try:
        block_bounds.MIN_STEPS = rows
        assert criterion.step_bounds(step, request.n - 1) is not None
        block_bounds.MIN_STEPS = rows + 1
        assert criterion.step_bounds(step, request.n - 1) is None
    finally:
        block_bounds.MIN_STEPS = saved


def test_the_widening_is_a_billionth_of_the_magnitudes_summed():
    assert block_bounds.margin(np.array([0.0]), 0.0, 3)[0] == 1e-9
    assert block_bounds.margin(np.array([-50.0]), 10.0, 3)[0] == 1e-9 * (50.0 + 1.0 + 30.0)


def test_set_bits_of_empty_words_are_empty_integer_indices():
    row, index, place = _set_bits(np.zeros((2, 3), dtype=np.uint64))
    for column in (row, index, place):
        assert column.dtype == np.int64
        assert len(column) == 0
