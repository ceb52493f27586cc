"""The alternatives cycle: priority passes, slot subtraction, no shared processor time."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from batch_reference import reference_cycle
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.scheduling.batch import BatchJob, alp, amp, find_alternatives
from gridsim.workloads.batch_generators import (
    BatchParameters,
    SlotListParameters,
    generate_batch,
    generate_slot_list,
    slot_list_profile,
)


def one_slot(start, end, performance=1.0, price=1.0):
    return slot_list_profile(
        np.array([start], float), np.array([end], float), np.array([performance]), np.array([price])
    )


def test_a_job_gets_one_alternative_per_pass_until_the_slot_is_used_up():
    job = BatchJob(n=1, runtime=40, min_performance=1.0, price_cap=5)
    alternatives = find_alternatives(one_slot(0, 100), [job], alp)
    assert [(w.start, w.runtimes) for w in alternatives[0]] == [(0, (40.0,)), (40, (40.0,))]


def test_jobs_search_in_priority_order_on_the_slots_left_by_earlier_jobs():
    jobs = [
        BatchJob(n=1, runtime=30, min_performance=1.0, price_cap=5),
        BatchJob(n=1, runtime=50, min_performance=1.0, price_cap=5),
    ]
    alternatives = find_alternatives(one_slot(0, 100), jobs, amp)
    assert [[w.start for w in windows] for windows in alternatives] == [[0], [30]]


def test_the_callers_profile_is_left_unchanged():
    profile = one_slot(0, 100)
    find_alternatives(profile, [BatchJob(1, 40, 1.0, 5)], alp)
    assert profile.free_intervals(0) == [(0.0, 100.0)]


def random_cycle(seed, count=(3, 7)):
    rng = np.random.default_rng(seed)
    profile = generate_slot_list(rng, SlotListParameters(count=(20, 40)))
    jobs = generate_batch(rng, BatchParameters(count=count))
    return profile, jobs


@pytest.mark.parametrize("search", [alp, amp], ids=["ALP", "AMP"])
@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_alternatives_never_share_processor_time_and_meet_their_request(search, seed):
    profile, jobs = random_cycle(seed)
    alternatives = find_alternatives(profile, jobs, search)
    busy = {}
    for job, windows in zip(jobs, alternatives, strict=True):
        for window in windows:
            assert len(set(window.nodes)) == job.n
            tasks = zip(window.nodes, window.runtimes, window.slots, strict=True)
            for node, runtime, slot in tasks:
                performance = profile.nodes[node].performance
                price = profile.nodes[node].price
                assert performance >= job.min_performance
                assert runtime == job.runtime * job.min_performance / performance
                assert slot.node == node and slot.start <= window.start
                assert window.start + runtime <= slot.end
                assert profile.is_free(node, window.start, window.start + runtime)
                if search is alp:
                    assert price <= job.price_cap
                busy.setdefault(node, []).append((window.start, window.start + runtime))
            if search is amp:
                assert window.cost <= job.budget
    for intervals in busy.values():
        for (_, finish), (start, _) in itertools.pairwise(sorted(intervals)):
            assert finish <= start, "two alternatives share processor time"


@pytest.mark.parametrize("search", [alp, amp], ids=["ALP", "AMP"])
@pytest.mark.parametrize("seed", range(25))
def test_the_cycle_equals_the_papers_list_procedure(search, seed):
    rng = np.random.default_rng(seed)
    profile = generate_slot_list(rng, SlotListParameters())
    jobs = generate_batch(rng, BatchParameters())
    found = find_alternatives(profile, jobs, search)
    expected = reference_cycle(profile, jobs, price_capped=search is alp)
    assert [
        [(w.start, sorted(zip(w.nodes, w.runtimes, strict=True))) for w in windows]
        for windows in found
    ] == [[(start, [task[:2] for task in tasks]) for start, tasks in job] for job in expected]


@pytest.mark.parametrize("seed", range(5))
def test_patching_the_slot_table_equals_rebuilding_it(seed):
    profile, jobs = random_cycle(seed)
    patched = profile.copy()
    patched.slot_table()
    rebuilt = profile.copy()
    for windows in find_alternatives(profile, jobs, amp):
        for window in windows:
            tasks = [
                (node, window.start, window.start + runtime)
                for node, runtime in zip(window.nodes, window.runtimes, strict=True)
            ]
            patched.occupy_updating_table(tasks)
            for task in tasks:
                rebuilt.occupy(*task)
            expected, got = rebuilt.slot_table(), patched.slot_table()
            for column in ("node", "start", "end", "performance", "price", "q"):
                assert np.array_equal(getattr(got, column), getattr(expected, column))
