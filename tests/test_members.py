"""The cheapest members of the steps, from bitsets, against their definition slot by slot."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples
from random_instances import random_instance
from search_steps import all_steps

from gridsim.model import Request
from gridsim.workloads.environment import EnvironmentSpec, generate_environment


def cheapest_by_definition(slots, step, row, count):
    """Members of the row (rule 3(c)v.B, sigma excluded, among the step's columns), by price
    then list order; the first ``count`` of them."""
    sigma, finish = step.sigma[row], step.start[row] + step.runtime[row]
    members = [
        i
        for i in range(len(slots))
        if i <= step.step[row]
        and slots.performance[i] >= slots.performance[sigma]
        and slots.end[i] >= finish
        and i != sigma
        and slots.end[i] >= (step.start + step.runtime).min() * (1 - 1e-15)
    ]
    return sorted(members, key=lambda i: (slots.price[i], i))[:count]


def check(profile, request, count):
    step = all_steps(profile, request)
    if step is None:
        return
    check_step(step.slots, step, count)
    # The same from the membership matrix, once a criterion has built it.
    step = all_steps(profile, request)
    assert step.member.shape[0] == len(step.start)
    check_step(step.slots, step, count)


def check_step(slots, step, count):
    picks, total, affordable = step.cheapest(count)
    for row in range(len(step.start)):
        expected = cheapest_by_definition(slots, step, row, count)
        assert picks[row].tolist() == expected + [-1] * (count - len(expected)), row
        complete = len(expected) == count
        assert np.isfinite(total[row]) == complete
        if complete:
            assert total[row] == step.runtime[row] * slots.price[expected].sum()
            assert affordable[row] == (total[row] <= step.budget_left[row])


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 10**6), count=st.integers(0, 9))
def test_cheapest_members_of_small_instances(seed, count):
    profile, request = random_instance(seed)
    check(profile, request, count)


def test_cheapest_members_of_a_100_node_instance_with_more_than_64_slots():
    profile = generate_environment(EnvironmentSpec(), np.random.default_rng(7)).profile()
    request = Request(n=7, volume=800, budget=644, min_performance=1)
    assert len(profile.slot_table()) > 4 * 64
    check(profile, request, 6)
