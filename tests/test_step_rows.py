"""The rows of a batch of steps (gridsim.selection.steps.Step) against their definitions.

Each sigma's first row with enough members, found block by block, is the first such row a
plain scan finds; a step restricted to some rows keeps its batch's members; missing members
are marked -1; and the record of what the step bounds skipped is a running average.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from search_steps import all_steps

import gridsim.selection.steps as steps
from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.registry import build_criterion
from gridsim.selection.steps import BoundingRecord
from gridsim.workloads.environment import EnvironmentSpec, generate_environment


def first_complete_by_scan(step, count):
    """Per sigma, in row order, its first row with at least ``count`` members."""
    enough = step.member.sum(axis=1) >= count
    first = {}
    for row, sigma in enumerate(step.sigma.tolist()):
        if enough[row] and sigma not in first:
            first[sigma] = row
    return sorted(first.values())


def check_first_complete_rows(step, count, block):
    saved = steps._FIRST_BLOCK
    steps._FIRST_BLOCK = block
    try:
        found = step.first_complete_rows(count)
    finally:
        steps._FIRST_BLOCK = saved
    assert found.tolist() == first_complete_by_scan(step, count)
    assert found.dtype == np.int64


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 5), st.sampled_from([1, 2, 3, 8]), st.booleans())
def test_each_sigma_s_first_complete_row_is_the_first_a_scan_finds(seed, count, block, reverse):
    profile, request = random_instance(seed)
    step = all_steps(profile, request, reverse)
    if step is not None:
        check_first_complete_rows(step, count, block)


@pytest.mark.parametrize("block", [1, 2, 8])
def test_first_complete_rows_over_hundreds_of_rows_per_sigma(block):
    profile = generate_environment(EnvironmentSpec(), np.random.default_rng(3)).profile()
    step = all_steps(profile, Request(n=7, volume=800, budget=644, min_performance=1))
    assert np.bincount(step.sigma).max() > 100  # so the blocks grow several times
    for count in (1, 6, 30, 60):
        check_first_complete_rows(step, count, block)


def test_a_step_restricted_to_some_rows_keeps_the_batch_s_members():
    profile, request = random_instance(5)
    step = all_steps(profile, request)
    finish = step.start + step.runtime
    skipped = finish == finish.min()  # the rows that set the batch's least finish
    kept = step.skip(skipped)
    assert kept._least_finish == step._least_finish
    assert kept._least_finish < (kept.start + kept.runtime).min() * (1 - 1e-15)
    count = request.n - 1
    picks, total, _ = kept.cheapest(count)
    whole = step.cheapest(count)
    np.testing.assert_array_equal(picks, whole[0][~skipped])
    np.testing.assert_array_equal(total, whole[1][~skipped])


def test_missing_members_are_marked_minus_one():
    profile, request = random_instance(5)
    step = all_steps(profile, request)
    count = int(step.member.sum(axis=1).max()) + 2  # more than any row has
    picks, total, ok = step.cheapest(count)  # from the member matrix, built above
    have = step.member.sum(axis=1)
    for row in range(len(picks)):
        assert (picks[row, have[row] :] == -1).all()
        assert (picks[row, : have[row]] >= 0).all()
    assert np.isinf(total).all() and not ok.any()


def test_the_bounds_record_averages_each_share_with_the_ones_before():
    record = BoundingRecord()
    record.record(int, 0.9)
    record.record(int, 0.0)  # 0.45: below WORTH
    record.record(int, 0.5)  # 0.475: still below, though this batch alone was not
    wanted = [record.wanted(int) for _ in range(record.PROBE_EVERY)]
    assert wanted == [False] * (record.PROBE_EVERY - 1) + [True]
    record.record(int, 0.6)  # 0.5375
    assert record.wanted(int)
    record.record(float, record.WORTH)  # exactly worth it
    assert all(record.wanted(float) for _ in range(record.PROBE_EVERY))


def test_of_equal_windows_in_different_batches_the_earliest_start_wins():
    """MaxQLite on whole-number values: windows of value 5 whose slowest node has performance 2
    start at 0 and at 60, on sigmas evaluated in different batches; the one at 0 is chosen."""
    performance = [4.0, 4.0, 4.0, 2.0, 4.0, 2.0]
    q = [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]
    nodes = [Node(i, p, p / 10, q[i]) for i, p in enumerate(performance)]
    busy = [[(36.0, 55.0)], [(5.0, 17.0)], [(59.0, 68.0)], [(6.0, 34.0)], [(41.0, 77.0)],
            [(40.0, 60.0)]]  # fmt: skip
    window = build_criterion("MaxQLite").search(
        Profile(nodes, busy, 0.0, 200.0), Request(n=3, volume=80.0)
    )
    slowest = min(performance[i] for i in window.nodes)
    assert (window.criterion_value, slowest, window.start) == (5.0, 2.0, 0.0)
