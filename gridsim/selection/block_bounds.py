"""Upper bounds of a Lite criterion's value over blocks of steps, before their members are found.

Consumes the steps of a batch of candidate slowest slots ``sigma`` (:class:`~gridsim.selection.
steps.Step`) and the criterion's slot bound; produces, per step, an upper bound of the value the
step can have. The search skips the steps whose bound is below the best window it already holds
(:class:`~gridsim.selection.steps.CheapestRows`): they cannot be chosen, and finding their
cheapest members is most of a Lite search's time. (Where the bounds skip few steps they cost
more than they save: :class:`~gridsim.selection.steps.BoundingRecord`.)

A Lite criterion scores ``sigma`` and each step's ``n - 1`` cheapest members [TY19, Sec. 4.2].
Take a block of consecutive steps of one ``sigma`` (starts ``t_first`` to ``t_last``, all
of the same runtime ``T``). Every step of the block has among its members the slots listed by
the block's first step and free until its last finish (the set ``D``: the member conditions
are thresholds, and the first step's listing and last finish are the strictest), so a step's
``n - 1`` cheapest members are no dearer than the ``(n - 1)``-th cheapest slot of ``D``. They
are also among the slots listed by the block's last step and free until its first finish (the
most any step of the block can use). So every step's members are in ``K``: the slots of the
second set no dearer than that slot of ``D`` -- usually about ``n`` slots, against the 100 or
so a sigma's bound over all its joinable slots allows. The block's value is at most sigma's slot
bound over ``[t_first, t_last]`` plus the ``n - 1`` largest slot bounds over the same starts
among ``K``. "Dearer" is by price rank (price, then list order), the order the members are
taken in, so the sets are exact (integer bit operations); only the value bound is a float sum,
widened by :func:`margin`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gridsim.selection.steps import Step

#: Steps per block. Smaller blocks give tighter bounds (fewer steps evaluated) but more blocks
#: to bound, each costing about as much as evaluating two or three steps; with 8 the Lite
#: searches on the 100-node environment skip 79-85% of the steps of the batches they bound.
BLOCK = 8

#: ``(slot indices, runtime, lo, hi) -> upper bound of z`` over starts in ``[lo, hi]``.
SlotBound = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

#: Fewer steps than this are evaluated without bounds: bounding them would cost more.
MIN_STEPS = 1024

_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


def step_bounds(step: Step, count: int, slot_bound: SlotBound) -> np.ndarray | None:
    """(rows,) an upper bound of each step's value: sigma and its ``count`` cheapest members.

    ``+inf`` where no bound is computed (a block whose ``D`` has fewer than ``count`` slots);
    None for fewer than :data:`MIN_STEPS` steps. Rows are grouped by sigma, in step order, as
    :func:`~gridsim.selection.steps.steps_of` makes them.
    """
    rows = len(step.sigma)
    if rows < MIN_STEPS:
        return None
    first, last, block_of_row = _blocks(step.sigma)
    blocks = len(first)
    slots, sets = step.slots, step.slots.member_sets
    finish = step.start + step.runtime  # as the members are found (Step.cheapest)
    sigma = step.sigma[first]
    # D (listed by the first step, free until the last finish) and the slots any step of the
    # block can use (listed by the last step, free until the first finish), in one call.
    both = sets.members(
        np.concatenate((step.step[first], step.step[last])),
        np.concatenate((finish[last], finish[first])),
        np.concatenate((sigma, sigma)),
        np.tile(slots.performance[sigma], 2),
    )
    both &= sets.free_from(step._least_finish)
    joiners = both[blocks:] & _through_cheapest(both[:blocks], count)
    bound = np.full(blocks, np.inf)
    bounded = np.flatnonzero(np.bitwise_count(both[:blocks]).sum(axis=1) >= count)
    if len(bounded) == 0:
        return bound[block_of_row]
    first, last, sigma = first[bounded], last[bounded], sigma[bounded]
    block, rank, position = _set_bits(joiners[bounded])
    # Sigma's own bound and its joiners' in one call: sigmas first, then the (block, slot) pairs.
    slot = np.concatenate((sigma, sets.by_rank[rank]))
    owner = np.concatenate((np.arange(len(bounded)), block))
    lo, hi = step.start[first][owner], step.start[last][owner]
    z = np.broadcast_to(slot_bound(slot, step.runtime[first][owner], lo, hi), slot.shape)
    own, pair = z[: len(bounded)], z[len(bounded) :]
    # The ``count`` largest pair bounds of each block (every block has at least ``count``),
    # from a (blocks, most pairs) matrix, minus the bounds partitioned (smallest first).
    minus = np.full((len(bounded), int(position.max()) + 1), np.inf)
    minus[block, position] = -pair
    minus.partition(count - 1, axis=1)
    total = own - minus[:, :count].sum(axis=1)
    bound[bounded] = total + margin(total, np.abs(hi).max(), count + 1)
    return bound[block_of_row]


def margin(total: np.ndarray, time_scale: float, terms: int) -> np.ndarray:
    """Widening of a bound summed from ``terms`` slot bounds, far above the rounding of the
    sums and of slot values computed from times of magnitude ``time_scale``."""
    return 1e-9 * (np.abs(total) + 1.0 + terms * time_scale)


def _blocks(sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First and last row of each block (up to :data:`BLOCK` rows of one sigma), and each
    row's block."""
    new_sigma = np.concatenate(([True], sigma[1:] != sigma[:-1]))
    sigma_first = np.flatnonzero(new_sigma)
    within = np.arange(len(sigma)) - sigma_first[np.cumsum(new_sigma) - 1]
    new_block = new_sigma | (within % BLOCK == 0)
    first = np.flatnonzero(new_block)
    last = np.concatenate((first[1:], [len(sigma)])) - 1
    return first, last, np.cumsum(new_block) - 1


def _through_cheapest(members: np.ndarray, count: int) -> np.ndarray:
    """(rows, words) bitsets of the price ranks up to each row's ``count``-th member (all
    ranks where a row has fewer)."""
    per_word = np.bitwise_count(members).astype(np.int64)
    before = np.cumsum(per_word, axis=1) - per_word  # members in the row's earlier words
    # The word holding the count-th member: clear its count - before - 1 lowest members.
    holding = (before < count) & (before + per_word >= count)
    row, word = np.nonzero(holding)
    value = members[row, word]
    clear = count - 1 - before[row, word]
    for k in range(count - 1):
        value = np.where(clear > k, value & (value - np.uint64(1)), value)
    mask = np.where(before + per_word < count, _ALL, np.uint64(0))  # wholly before it
    mask[row, word] = ((value & -value) << np.uint64(1)) - np.uint64(1)  # 0 - 1: every bit
    return mask


def _set_bits(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, bit index, the bit's place among its row's set bits) of every set bit of each
    row (few bits: one pass per bit of the fullest word)."""
    words = bits.shape[1]
    per_word = np.bitwise_count(bits).astype(np.int64)
    before = (np.cumsum(per_word, axis=1) - per_word).ravel()  # the row's bits in earlier words
    word = np.flatnonzero(per_word)
    value, place = bits.ravel()[word], before[word]
    row, first_bit = np.divmod(word, words)
    first_bit *= 64
    found: list[tuple[np.ndarray, ...]] = []
    while len(value):
        lowest = value & -value
        found.append((row, first_bit + np.bitwise_count(lowest - np.uint64(1)), place))
        value ^= lowest
        more = value != 0
        value, row, first_bit, place = value[more], row[more], first_bit[more], place[more] + 1
    if not found:
        return (np.empty(0, dtype=np.int64),) * 3
    row, index, place = (np.concatenate(column) for column in zip(*found, strict=True))
    return row, index.astype(np.int64), place
