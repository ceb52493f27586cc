"""Which replications to run: ranges, shards, sets of done cells and the chunks of work.

Consumes the command line's ``--replications`` (a count ``N`` or a range ``A:B``, replications
``A`` to ``B - 1`` as in a Python slice) and ``--shard I/K`` (the ``I``-th of ``K`` contiguous
slices of that range, ``1 <= I <= K``); produces, per point of an experiment, the sets of
replications planned and done, and the chunks a worker runs at once: up to ``max_size``
consecutive replications of one point.

A cell is one (point, replication): every policy of a replication runs on the same instance
(common random numbers), so a replication's policies are done together.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


class CellsError(ValueError):
    """A range or shard given on the command line is malformed; the message names it."""


@dataclass(frozen=True)
class Chunk:
    """Replications ``first`` to ``last`` (inclusive) of point ``point``: one task, one file
    per table."""

    point: int
    first: int
    last: int

    @property
    def replications(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    @property
    def file_stem(self) -> str:
        return f"rep-{self.first:06d}-{self.last:06d}"


def parse_replications(text: str) -> range:
    """``N`` (replications 0 to N - 1) or ``A:B`` (A to B - 1)."""
    first, separator, end = text.partition(":")
    try:
        if not separator:
            start, stop = 0, int(text)
            if stop < 1:
                raise ValueError
        else:
            start, stop = int(first), int(end)
    except ValueError:
        raise CellsError(
            f"--replications {text!r}: expected a count N >= 1 or a range A:B (0 <= A < B)"
        ) from None
    if start < 0 or stop <= start:
        raise CellsError(f"--replications {text!r}: expected a range A:B with 0 <= A < B")
    return _not_too_many(range(start, stop), text)


def _not_too_many(replications: range, text: str) -> range:
    from gridsim.config import MAX_REPLICATIONS

    if len(replications) > MAX_REPLICATIONS:
        raise CellsError(f"--replications {text!r}: {len(replications)} replications; at most "
                         f"{MAX_REPLICATIONS:,} in one run (split larger studies with A:B "
                         "ranges)")  # fmt: skip
    return replications


def parse_shard(text: str) -> tuple[int, int]:
    """``I/K``: shard ``I`` of ``K`` (1-based)."""
    index, separator, count = text.partition("/")
    try:
        shard, shards = int(index), int(count)
    except ValueError:
        shard = shards = 0
    if not separator or shards < 1 or not 1 <= shard <= shards:
        raise CellsError(f"--shard {text!r}: expected I/K with 1 <= I <= K, e.g. 1/4")
    return shard, shards


def shard_of(replications: range, shard: int, shards: int) -> range:
    """The ``shard``-th of ``shards`` contiguous, near-equal slices of ``replications``."""
    total = len(replications)
    if shards > total:
        raise CellsError(f"--shard {shard}/{shards}: more shards than the {total} replications")
    start = replications.start + (shard - 1) * total // shards
    stop = replications.start + shard * total // shards
    return range(start, stop)


def ranges(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted numbers as inclusive runs: ``[0, 1, 2, 5]`` -> ``[(0, 2), (5, 5)]``."""
    runs: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def from_ranges(runs: Iterable[Iterable[int]]) -> set[int]:
    """The inverse of :func:`ranges`."""
    numbers: set[int] = set()
    for first, last in runs:
        numbers.update(range(first, last + 1))
    return numbers


def describe(numbers: Iterable[int]) -> str:
    """``0-2, 5`` (``none`` when empty)."""
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges(numbers))
    return text or "none"


def plan_chunks(missing: dict[int, set[int]], max_size: int) -> Iterator[Chunk]:
    """Chunks of at most ``max_size`` consecutive missing replications, point by point."""
    for point in sorted(missing):
        for first, last in ranges(missing[point]):
            for start in range(first, last + 1, max_size):
                yield Chunk(point, start, min(last, start + max_size - 1))


def chunk_size(cells: int, workers: int, largest: int) -> int:
    """Replications per chunk: about eight chunks per worker, at most ``largest`` (a chunk's
    tables travel and sit in memory together)."""
    return max(1, min(largest, cells // (max(1, workers) * 8)))
