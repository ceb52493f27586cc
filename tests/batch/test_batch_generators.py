"""The generators of [TYTB11, Sec. 5]: ranges, neighbouring starts, price law."""

from __future__ import annotations

import numpy as np

from gridsim.workloads.batch_generators import (
    BatchParameters,
    SlotListParameters,
    generate_batch,
    generate_slot_list,
)


def test_the_slot_list_follows_the_papers_ranges():
    rng = np.random.default_rng(7)
    for _ in range(50):
        table = generate_slot_list(rng, SlotListParameters()).slot_table()
        assert 120 <= len(table) <= 150
        assert np.all((table.length >= 50) & (table.length <= 300))
        assert np.all((table.performance >= 1) & (table.performance <= 3))
        gaps = np.diff(table.start)
        assert np.all((gaps >= 0) & (gaps <= 10))
        nominal = 1.7**table.performance
        assert np.all((table.price >= 0.75 * nominal) & (table.price <= 1.25 * nominal))
        assert len(set(table.node.tolist())) == len(table)  # one node per slot


def test_about_four_in_ten_neighbouring_slots_start_together():
    rng = np.random.default_rng(8)
    gaps = np.concatenate(
        [
            np.diff(generate_slot_list(rng, SlotListParameters()).slot_table().start)
            for _ in range(40)
        ]
    )
    assert abs(np.mean(gaps == 0) - 0.4) < 0.03


def test_the_batch_follows_the_papers_ranges_and_our_price_cap():
    rng = np.random.default_rng(9)
    for _ in range(200):
        jobs = generate_batch(rng, BatchParameters())
        assert 3 <= len(jobs) <= 7
        for job in jobs:
            assert 1 <= job.n <= 6
            assert 50 <= job.runtime <= 150
            assert 1 <= job.min_performance <= 2
            markup = job.price_cap / 1.7**job.min_performance
            assert 1.0 <= markup <= 1.25


def test_the_same_generator_state_gives_the_same_instance():
    first = generate_slot_list(np.random.default_rng(3), SlotListParameters()).slot_table()
    second = generate_slot_list(np.random.default_rng(3), SlotListParameters()).slot_table()
    assert np.array_equal(first.start, second.start)
    assert np.array_equal(first.price, second.price)
