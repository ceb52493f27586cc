"""The availability profile: busy intervals carve free slots; windows are reserved and released."""

from __future__ import annotations

import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.model import Node, Slot, Window
from gridsim.profile import FORGET_MARGIN, Profile

NODES = (
    Node(0, performance=2.0, price=0.2, q=1.0),
    Node(1, performance=5.0, price=0.6, q=7.0),
    Node(2, performance=3.0, price=0.3, q=4.0),
)


def window(start, runtime, nodes):
    return Window(start=start, runtime=runtime, nodes=tuple(nodes), slots=(), cost=0.0)


def test_busy_intervals_carve_the_horizon_into_free_slots():
    profile = Profile(NODES, [[(10, 20), (50, 60)], [], [(0, 30)]], 0.0, 100.0)
    assert profile.free_intervals(0) == [(0.0, 10), (20, 50), (60, 100.0)]
    assert profile.free_intervals(1) == [(0.0, 100.0)]
    assert profile.free_intervals(2) == [(30, 100.0)]


def test_overlapping_busy_intervals_stay_one_busy_stretch():
    profile = Profile(NODES[:1], [[(10, 30), (20, 40)]], 0.0, 100.0)
    assert profile.free_intervals(0) == [(0.0, 10), (40, 100.0)]


def test_a_node_may_be_free_to_an_infinite_horizon():
    profile = Profile(NODES[:1], [[(5, 8)]])
    assert profile.free_intervals(0) == [(0.0, 5), (8, float("inf"))]


def test_node_ids_out_of_order_are_rejected():
    with pytest.raises(ValueError, match=r"^node ids must be 0\.\.N-1 in order$"):
        Profile([NODES[1], NODES[0]])


def test_slot_table_is_sorted_by_start_then_node_and_carries_node_attributes():
    profile = Profile(NODES, [[(10, 20)], [(0, 10)], [(0, 10), (40, 45)]], 0.0, 100.0)
    table = profile.slot_table()
    rows = list(zip(table.start.tolist(), table.node.tolist(), table.end.tolist(), strict=True))
    assert rows == [
        (0.0, 0, 10.0),
        (10.0, 1, 100.0),
        (10.0, 2, 40.0),
        (20.0, 0, 100.0),
        (45.0, 2, 100.0),
    ]
    assert table.performance.tolist() == [2.0, 5.0, 3.0, 2.0, 3.0]
    assert table.price.tolist() == [0.2, 0.6, 0.3, 0.2, 0.3]
    assert table.q.tolist() == [1.0, 7.0, 4.0, 1.0, 4.0]
    assert table.length.tolist() == [10.0, 90.0, 30.0, 80.0, 55.0]
    assert len(table) == 5
    assert profile.slots() == [
        Slot(0, 0.0, 10.0),
        Slot(1, 10.0, 100.0),
        Slot(2, 10.0, 40.0),
        Slot(0, 20.0, 100.0),
        Slot(2, 45.0, 100.0),
    ]


def test_reserving_a_window_splits_the_slots_it_lands_in():
    profile = Profile(NODES, None, 0.0, 100.0)
    profile.reserve(window(30.0, 20.0, [0, 2]))
    assert profile.free_intervals(0) == [(0.0, 30.0), (50.0, 100.0)]
    assert profile.free_intervals(1) == [(0.0, 100.0)]
    assert profile.free_intervals(2) == [(0.0, 30.0), (50.0, 100.0)]
    # The cached slot table follows the change.
    assert sorted(
        zip(profile.slot_table().node.tolist(), profile.slot_table().start.tolist(), strict=True)
    ) == [(0, 0.0), (0, 50.0), (1, 0.0), (2, 0.0), (2, 50.0)]


def test_reserving_at_a_slot_edge_leaves_no_empty_slot():
    profile = Profile(NODES[:1], None, 0.0, 100.0)
    profile.reserve(window(0.0, 40.0, [0]))
    assert profile.free_intervals(0) == [(40.0, 100.0)]


def test_reserving_over_a_busy_interval_raises_and_changes_nothing():
    profile = Profile(NODES, [[(40, 60)], [], []], 0.0, 100.0)
    before = [profile.free_intervals(i) for i in range(3)]
    with pytest.raises(ValueError, match="node 0 is not free"):
        profile.reserve(window(30.0, 20.0, [1, 0]))
    assert [profile.free_intervals(i) for i in range(3)] == before


def test_reserving_two_overlapping_windows_raises_on_the_second():
    profile = Profile(NODES, None, 0.0, 100.0)
    profile.reserve(window(10.0, 20.0, [1]))
    with pytest.raises(ValueError, match="node 1"):
        profile.reserve(window(25.0, 10.0, [1]))


def test_release_merges_the_interval_back_with_its_neighbours():
    profile = Profile(NODES, None, 0.0, 100.0)
    reserved = window(30.0, 20.0, [0, 1])
    profile.reserve(reserved)
    profile.release_window(reserved)
    assert profile.free_intervals(0) == [(0.0, 100.0)]
    assert profile.free_intervals(1) == [(0.0, 100.0)]
    assert [s.node for s in profile.slots()] == [0, 1, 2]


def test_releasing_part_of_a_busy_interval_merges_only_with_the_side_it_touches():
    profile = Profile(NODES[:1], [[(20, 60)]], 0.0, 100.0)
    profile.release(0, 20.0, 30.0)
    assert profile.free_intervals(0) == [(0.0, 30.0), (60, 100.0)]
    profile.release(0, 40.0, 50.0)
    assert profile.free_intervals(0) == [(0.0, 30.0), (40.0, 50.0), (60, 100.0)]


@settings(max_examples=examples(60), deadline=None)
@given(
    busy=st.lists(
        st.tuples(st.floats(0, 90, allow_nan=False), st.floats(1, 20, allow_nan=False)),
        max_size=5,
    ),
    data=st.data(),
)
def test_reserve_then_release_restores_the_free_intervals(busy, data):
    intervals = [(start, start + length) for start, length in busy]
    profile = Profile(NODES[:1], [intervals], 0.0, 100.0)
    before = profile.free_intervals(0)
    if not before:
        return
    slot_start, slot_end = data.draw(st.sampled_from(before))
    start = data.draw(st.floats(slot_start, slot_end, allow_nan=False))
    finish = data.draw(st.floats(start, slot_end, allow_nan=False))
    if finish - start <= 1e-6:
        return
    reserved = window(start, finish - start, [0])
    profile.reserve(reserved)
    assert not profile.is_free(0, start, reserved.finish)
    profile.release_window(reserved)
    after = profile.free_intervals(0)
    assert len(after) == len(before)
    for (a0, b0), (a1, b1) in zip(before, after, strict=True):
        assert a1 == pytest.approx(a0, abs=1e-6) and b1 == pytest.approx(b0, abs=1e-6)


def test_is_free_holds_only_inside_one_free_interval():
    profile = Profile(NODES[:1], [[(40, 60)]], 0.0, 100.0)
    assert profile.is_free(0, 0.0, 40.0)
    assert profile.is_free(0, 60.0, 100.0)
    assert not profile.is_free(0, 30.0, 41.0)
    assert not profile.is_free(0, 50.0, 55.0)
    assert not profile.is_free(0, 30.0, 70.0)
    assert not profile.is_free(0, 90.0, 101.0)


def test_enclosing_slot_is_the_free_interval_around_a_task():
    profile = Profile(NODES, [[(40, 60)], [], []], 0.0, 100.0)
    assert profile.enclosing_slot(0, 65.0, 80.0) == Slot(0, 60.0, 100.0)
    assert profile.enclosing_slot(0, 0.0, 40.0) == Slot(0, 0.0, 40.0)
    with pytest.raises(ValueError, match="node 0 is not free"):
        profile.enclosing_slot(0, 35.0, 45.0)


def test_with_enclosing_slots_replaces_the_window_slots_in_node_order():
    profile = Profile(NODES, [[(0, 10)], [(70, 80)], [(5, 15), (50, 52)]], 0.0, 100.0)
    found = Window(20.0, 25.0, (0, 1, 2), slots=(), cost=3.0)
    placed = profile.with_enclosing_slots(found)
    assert placed.slots == (Slot(0, 10, 100.0), Slot(1, 0.0, 70), Slot(2, 15, 50))
    assert placed.left_distances() == (10.0, 20.0, 5.0)
    assert placed.right_distances() == (55.0, 25.0, 5.0)
    assert placed.distance_to_nearest() == pytest.approx((10 + 20 + 5) / 3)
    assert placed.distance_to_farthest() == pytest.approx((55 + 25 + 5) / 3)
    assert (placed.start, placed.runtime, placed.nodes, placed.cost) == (20.0, 25.0, (0, 1, 2), 3.0)


def test_a_copy_changes_independently_of_its_original():
    original = Profile(NODES, [[(40, 60)], [], []], 0.0, 100.0)
    table_before = original.slot_table()
    clone = original.copy()
    clone.reserve(window(0.0, 30.0, [0, 1]))
    assert original.free_intervals(0) == [(0.0, 40), (60, 100.0)]
    assert original.free_intervals(1) == [(0.0, 100.0)]
    assert clone.free_intervals(1) == [(30.0, 100.0)]
    assert np.array_equal(original.slot_table().start, table_before.start)
    assert len(clone.slot_table()) == len(original.slot_table())
    assert clone.slot_table().start.tolist() != original.slot_table().start.tolist()
    original.reserve(window(70.0, 10.0, [2]))
    assert clone.free_intervals(2) == [(0.0, 100.0)]
    assert (clone.horizon_start, clone.horizon_end) == (0.0, 100.0)


def assert_table_equals_rebuilt(profile):
    """The (patched or filtered) cached slot table equals one built from the free intervals."""
    got = profile.slot_table()
    rebuilt = profile.copy()
    rebuilt._table = None
    expected = rebuilt.slot_table()
    for column in ("node", "start", "end", "performance", "price", "q"):
        assert np.array_equal(getattr(got, column), getattr(expected, column))
        assert getattr(got, column).dtype == getattr(expected, column).dtype, column


@pytest.mark.parametrize("pure_python", ["0", "1"], ids=["compiled", "python"])
@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_patched_and_forgetting_tables_equal_rebuilt_ones(pure_python, data):
    # The patches run compiled (gridsim/core/_slot_table.c) where the extension is built.
    with mock.patch.dict(os.environ, {"GRIDSIM_PURE_PYTHON": pure_python}):
        patch_forget_and_compare(data)


def patch_forget_and_compare(data):
    profile = Profile(NODES, [[(10, 20)], [(5, 8)], []])
    profile.slot_table()
    now = 0.0
    reserved = []
    for _ in range(data.draw(st.integers(1, 12))):
        action = data.draw(st.sampled_from(["reserve", "release", "forget"]))
        if action == "reserve":
            slot = data.draw(st.sampled_from(profile.slots()))
            start = max(slot.start, now)
            runtime = min(data.draw(st.floats(0.5, 20)), (slot.end - start) / 2)
            if runtime > 0.1:
                reserved.append(window(start, runtime, [slot.node]))
                profile.reserve(reserved[-1])
        elif action == "release" and reserved:
            profile.release_window(reserved.pop(data.draw(st.integers(0, len(reserved) - 1))))
        else:
            now += data.draw(st.floats(0, 15))
            profile.forget_before(now)
            reserved = [w for w in reserved if w.start >= now]
        assert_table_equals_rebuilt(profile)
    assert all(b >= now - 1e-6 for i in range(3) for _, b in profile.free_intervals(i))


def test_forget_before_keeps_intervals_that_end_at_the_present():
    profile = Profile(NODES[:1], [[(10, 20), (30, 40)]], 0.0, 100.0)
    profile.forget_before(20.0)
    assert profile.free_intervals(0) == [(20, 30), (40, 100.0)]
    profile.forget_before(30.0)
    assert profile.free_intervals(0) == [(20, 30), (40, 100.0)]  # (20, 30) ends at the present
    profile.forget_before(31.0)
    assert profile.free_intervals(0) == [(40, 100.0)]


def test_a_node_whose_last_free_slot_is_taken_leaves_the_patched_table_as_rebuilt():
    profile = Profile(NODES, [[(10, 100)], [], [(0, 100)]], 0.0, 100.0)
    profile.slot_table()
    profile.reserve(window(0.0, 10.0, [0]))  # node 0's only slot: nothing left of it
    assert profile.free_intervals(0) == []
    assert_table_equals_rebuilt(profile)
    assert profile.slot_table().node.tolist() == [1]
    profile.release_updating_table([(0, 0.0, 10.0)])
    assert_table_equals_rebuilt(profile)


def test_forgetting_every_slot_of_a_node_and_forgetting_again():
    profile = Profile(NODES[:2], [[(10, 100)], []], 0.0, 100.0)
    profile.slot_table()
    profile.forget_before(50.0)
    assert profile.free_intervals(0) == [] and profile.free_intervals(1) == [(0.0, 100.0)]
    profile.forget_before(60.0)
    assert profile.free_intervals(0) == []
    assert_table_equals_rebuilt(profile)


def test_occupying_or_releasing_an_empty_interval_changes_nothing():
    profile = Profile(NODES[:1], [[(40, 60)]], 0.0, 100.0)
    profile.occupy(0, 20.0, 20.0)
    profile.release(0, 50.0, 50.0)
    assert profile.free_intervals(0) == [(0.0, 40), (60, 100.0)]


def test_a_piece_no_longer_than_the_minimum_slot_is_not_left_free():
    profile = Profile(NODES[:1], [[]], 0.0, 1.0)
    profile.occupy(0, 1e-9, 0.5)  # [0, 1e-9): exactly MIN_SLOT_LENGTH
    assert profile.free_intervals(0) == [(0.5, 1.0)]
    profile.occupy(0, 0.5 + 2e-9, 1.0)
    assert profile.free_intervals(0) == [(0.5, 0.5 + 2e-9)]


def test_a_slot_table_is_floats_and_node_ids_whatever_numbers_it_was_given():
    """Whole numbers in the nodes and the busy intervals still give float columns."""
    profile = Profile([Node(0, 2, 1, 3)], [[(10, 20)]], 0, 100)
    assert (profile.horizon_start, profile.horizon_end) == (0, 100)
    table = profile.slot_table()
    assert table.node.dtype == np.int64
    for column in ("start", "end", "performance", "price", "q"):
        assert getattr(table, column).dtype == np.float64, column
    assert table.start.tolist() == [0.0, 20.0] and table.performance.tolist() == [2.0, 2.0]


def test_a_profile_without_free_slots_has_an_empty_table_of_the_same_types():
    table = Profile(NODES[:2], [[(0, 100)], [(0, 100)]], 0.0, 100.0).slot_table()
    assert len(table) == 0
    assert table.node.dtype == np.int64
    for column in ("node", "start", "end", "performance", "price", "q"):
        assert len(getattr(table, column)) == 0, column


def test_an_interval_ending_exactly_the_margin_before_the_present_is_kept():
    """``forget_before(t)`` keeps what ends within FORGET_MARGIN of t, the edge included."""
    edge = 20.0 - FORGET_MARGIN
    profile = Profile(NODES[:1], [[(5, 10), (edge, 50)]], 0.0, 100.0)
    profile.slot_table()
    profile.forget_before(20.0)
    assert profile.free_intervals(0) == [(10, edge), (50, 100.0)]
    assert_table_equals_rebuilt(profile)


def test_a_piece_of_the_minimum_slot_after_a_task_is_not_left_free():
    profile = Profile(NODES[:1], [[]], 0.0, 2e-9)
    profile.occupy(0, 0.0, 1e-9)  # [1e-9, 2e-9): exactly MIN_SLOT_LENGTH
    assert profile.free_intervals(0) == []


def test_a_release_merges_across_a_gap_of_the_minimum_slot():
    before = Profile(NODES[:1], [[(1e-9, 100)]], -1.0, 100.0)  # free [-1, 1e-9)
    before.release(0, 2e-9, 5.0)
    assert before.free_intervals(0) == [(-1.0, 5.0)]
    after = Profile(NODES[:1], [[(-1.0, 2e-9)]], -1.0, 100.0)  # free [2e-9, 100)
    after.release(0, -0.5, 1e-9)
    assert after.free_intervals(0) == [(-0.5, 100.0)]
