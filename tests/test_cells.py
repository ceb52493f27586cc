"""Replication ranges, shards and chunks (gridsim.experiments.cells), value by value."""

import pytest

from gridsim.experiments.cells import (
    CellsError,
    Chunk,
    chunk_size,
    describe,
    parse_replications,
    parse_shard,
    plan_chunks,
    shard_of,
)


def test_replications_are_a_count_or_a_half_open_range():
    assert parse_replications("5") == range(5)
    assert parse_replications("2:7") == range(2, 7)
    assert parse_replications("0:1") == range(1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0", "--replications '0': expected a count N >= 1 or a range A:B (0 <= A < B)"),
        ("x", "--replications 'x': expected a count N >= 1 or a range A:B (0 <= A < B)"),
        ("1:x", "--replications '1:x': expected a count N >= 1 or a range A:B (0 <= A < B)"),
        ("3:3", "--replications '3:3': expected a range A:B with 0 <= A < B"),
        ("4:2", "--replications '4:2': expected a range A:B with 0 <= A < B"),
        ("-1:2", "--replications '-1:2': expected a range A:B with 0 <= A < B"),
    ],
)
def test_a_bad_replication_range_is_one_line_naming_it(text, message):
    with pytest.raises(CellsError) as error:
        parse_replications(text)
    assert str(error.value) == message


def test_shards_are_one_based_and_may_be_the_only_one():
    assert parse_shard("1/4") == (1, 4)
    assert parse_shard("4/4") == (4, 4)
    assert parse_shard("1/1") == (1, 1)


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "x/4", "1/x", "14", ""])
def test_a_bad_shard_is_one_line_naming_it(text):
    with pytest.raises(CellsError) as error:
        parse_shard(text)
    assert str(error.value) == f"--shard {text!r}: expected I/K with 1 <= I <= K, e.g. 1/4"


def test_shards_split_a_range_into_contiguous_near_equal_slices():
    slices = [shard_of(range(3, 13), i, 4) for i in range(1, 5)]
    assert slices == [range(3, 5), range(5, 8), range(8, 10), range(10, 13)]
    assert [shard_of(range(4), i, 4) for i in range(1, 5)] == [range(i, i + 1) for i in range(4)]
    with pytest.raises(CellsError, match="more shards than the 4 replications"):
        shard_of(range(4), 1, 5)


def test_described_runs_name_each_range_or_none():
    assert describe([5, 0, 1, 2, 7, 8]) == "0-2, 5, 7-8"
    assert describe([]) == "none"


def test_chunks_cover_the_missing_replications_in_runs_of_at_most_the_size():
    missing = {1: set(range(8)), 0: {3, 4, 9}}
    assert list(plan_chunks(missing, 4)) == [
        Chunk(0, 3, 4), Chunk(0, 9, 9), Chunk(1, 0, 3), Chunk(1, 4, 7),
    ]  # fmt: skip
    assert [c.size for c in plan_chunks({0: set(range(10))}, 4)] == [4, 4, 2]


def test_chunk_size_aims_at_eight_chunks_per_worker_within_limits():
    assert chunk_size(160, 1, 100) == 20
    assert chunk_size(160, 2, 100) == 10
    assert chunk_size(160, 0, 100) == 20  # no workers counts as one
    assert chunk_size(160, 1, 8) == 8
    assert chunk_size(3, 4, 8) == 1
