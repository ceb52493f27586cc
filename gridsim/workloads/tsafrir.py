"""The Tsafrir-Etsion-Feitelson model of user run-time estimates [TEF05].

Consumes the run times of a flow (any log or model), the machine's largest allowed estimate
and a ``numpy.random.Generator``; produces one estimate per job (:func:`tsafrir_estimates`),
each at least the job's run time, whose distribution is the model's: users pick from few
values, the 20 most popular ("the head") take 89% of the jobs, the largest allowed estimate
is the most popular of them, and the other values ("the tail") thin out by a power law.
The steps and every constant are those of the model's reference implementation
(``est_model.cc`` and ``est_model.hh``, published with the paper in the Parallel Workloads
Archive); docs/model.md lists them with their source.

1. **How many distinct estimates** (bins): a piecewise-linear function of the number of
   jobs through (0, 0), (20, 10), (200, 20), (1000, 35), (10^4, 90), (7x10^4, 340),
   (2.5x10^5, 565), constant beyond.
2. **The head's values**: the largest estimate, the 15 values common to all four traces
   the model was fitted on (5, 10, 15, 20, 30 min; 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h) that
   are below it, and "round" values (multiples of 200, 100, 50, 10, 5, 2, 1 h, 20, 10, 5
   min counted down from the largest) until there are 20.
3. **The head's sizes** (% of jobs) by popularity rank x = 2..20:
   14.0491 e^(-0.177531 x) + 0.462513; rank 1 takes 89% less their sum (or the share of
   the largest estimate given by the user, the others scaled to keep the head at 89%).
4. **Which value has which rank**: the largest is rank 1; the others take ranks from the
   table of the four traces' rank of their n-th value (a pool grown row by row, a rank due
   by the table's bound taken first, otherwise the better of two random picks).
5. **The tail**: bins - 20 values at t(x) = (a - 1) x / (a - x) times the largest estimate
   (x = i / tail bins, a = 1 + 12.1039 bins^-0.6026), on whole minutes moved by +-30, 20,
   10 s if taken; sizes 795.6 r^-2.267 for ranks r = 21.., scaled to the other 11%; values
   and sizes matched at random.
6. **Jobs per value**: round(percent x jobs), at least 1, evened out to the number of jobs.
7. **Assignment**: jobs by run time, longest first, each takes an estimate drawn uniformly
   among those not yet taken that are at least its run time.

A run time above the largest estimate is given the largest estimate (the job is killed at
it in a replay, as the reference truncates such run times). Cost: O(jobs log jobs).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

MINUTE, HOUR = 60, 3600
TOP = 20  # the head: the most popular estimates
HEAD_SHARE = 89.0  # % of jobs using a head estimate [est_model.hh: binsiz_head_sum]
HEAD_SIZE = (14.0491, -0.177531, 0.462513)  # a e^(b x) + c [binsiz_head_params]
TAIL_SIZE = (795.6, -2.267)  # a x^b [binsiz_tail_params]
TAIL_TIME = (12.1039, -0.6026)  # a = 1 + p K^q [bintim_param]
#: (jobs, distinct estimates) points of the linear model of the bin count [BINUM_LINEAR].
BIN_COUNT = ((0, 0), (20, 10), (200, 20), (1000, 35), (10_000, 90), (70_000, 340),
             (250_000, 565))  # fmt: skip
#: Estimates among the top 20 of all four traces [EST_JOINT].
JOINT = tuple(m * MINUTE for m in (5, 15, 10, 20, 30)) + tuple(
    h * HOUR for h in (1, 2, 3, 4, 5, 6, 8, 10, 12, 18)
)
#: Steps of the "round" estimates completing the head [EST_ROUND].
ROUND = tuple(h * HOUR for h in (200, 100, 50, 10, 5, 2, 1)) + tuple(
    m * MINUTE for m in (20, 10, 5)
)
#: Popularity rank of the n-th smallest head estimate (row 0: the largest) in the four
#: traces (SDSC, CTC, KTH, BLUE) [TIMRNK_TO_POPRNK].
TIME_RANK_TO_POPULARITY = (
    (3, 1, 1, 1), (1, 3, 4, 6), (4, 4, 10, 5), (17, 2, 14, 3), (13, 12, 20, 7),
    (7, 9, 2, 2), (8, 8, 3, 18), (18, 18, 7, 19), (2, 6, 12, 4), (6, 7, 6, 11),
    (16, 11, 19, 20), (10, 20, 5, 9), (5, 16, 18, 10), (15, 5, 16, 14), (14, 14, 9, 13),
    (19, 13, 17, 16), (11, 10, 15, 15), (12, 15, 13, 17), (9, 17, 8, 8), (20, 19, 11, 12),
)  # fmt: skip
_TAIL_OFFSETS = (0, 30, -30, 20, -20, 10, -10)


def bin_count(jobs: int) -> int:
    """How many distinct estimates ``jobs`` jobs use (step 1)."""
    for (x0, y0), (x1, y1) in itertools.pairwise(BIN_COUNT):
        if jobs <= x1:
            return y0 + round((jobs - x0) * (y1 - y0) / (x1 - x0))
    return BIN_COUNT[-1][1]


def head_times(largest: int) -> list[int]:
    """The head's estimates (step 2): the largest first, the others ascending."""
    if largest < HOUR:
        raise ValueError(f"the largest estimate must be at least an hour, got {largest} s")
    times = [largest] + [t for t in JOINT if t < largest]
    for step in ROUND:
        start = largest // step * step
        t = start
        while t > 0 and len(times) < TOP:
            if t not in times:
                times.append(t)
            t -= step
    return [largest, *sorted(times[1:])]


def head_sizes(count: int, largest_share: float | None) -> list[float]:
    """The head's sizes (%, step 3), by popularity rank."""
    a, b, c = HEAD_SIZE
    others = [a * math.exp(b * rank) + c for rank in range(2, count + 1)]
    if largest_share is None:
        return [HEAD_SHARE - sum(others), *others]
    scale = (HEAD_SHARE - largest_share) / sum(others)
    return [largest_share, *(size * scale for size in others)]


def popularity_ranks(rng: np.random.Generator, count: int) -> list[int]:
    """The popularity rank of each head estimate by time rank (step 4; row 0 the largest).
    A head of fewer than 20 values (a largest estimate of a few hours) takes only ranks up
    to its size (the reference would index past its sizes there)."""
    bound: dict[int, int] = {}  # rank -> the last time rank it holds in any trace
    for row in range(TOP - 1, -1, -1):
        for rank in TIME_RANK_TO_POPULARITY[row]:
            bound.setdefault(rank, row)
    chosen: list[int] = []
    pool: list[int] = []
    for row in range(count):
        pool += [r for r in TIME_RANK_TO_POPULARITY[row] if r not in chosen and r <= count]
        rng.shuffle(pool)  # the reference shuffles the pool at every row
        if row == 0:
            rank = 1
        else:
            due = [r for r in range(1, count + 1) if bound[r] <= row and r not in chosen]
            if due:
                rank = due[0]
            elif not pool:  # a short head: the smallest rank not taken
                rank = min(set(range(1, count + 1)) - set(chosen))
            else:
                picks = rng.integers(0, len(pool), 2)
                rank = min(pool[int(picks[0])], pool[int(picks[1])])
        chosen.append(rank)
        pool = [r for r in pool if r != rank]
    return chosen


def tail_times(largest: int, count: int, taken: set[int]) -> list[int]:
    """The tail's estimates (step 5), ascending; a value that collides with one taken and
    with every offset is left out."""
    a = 1 + TAIL_TIME[0] * (count + len(taken)) ** TAIL_TIME[1]
    times: list[int] = []
    used = set(taken)
    for i in range(1, count + 1):
        x = i / count
        seconds = int(round(((a - 1) * x / (a - x)) * largest / MINUTE) * MINUTE)
        for offset in _TAIL_OFFSETS:
            candidate = seconds + offset
            if candidate not in used and 0 < candidate < largest:
                times.append(candidate)
                used.add(candidate)
                break
    return sorted(times)


def estimate_distribution(
    rng: np.random.Generator, jobs: int, largest: int, largest_share: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The model's estimates and how many jobs take each (steps 1-6), by estimate."""
    bins = bin_count(jobs)
    head = head_times(largest)
    sizes = sorted(head_sizes(len(head), largest_share), reverse=True)
    if largest_share is not None:  # the user's share stays the largest estimate's
        sizes.remove(largest_share)
        sizes.insert(0, largest_share)
    ranks = popularity_ranks(rng, len(head))
    percent = {time: sizes[rank - 1] for time, rank in zip(head, ranks, strict=True)}
    tail = tail_times(largest, max(0, bins - len(head)), set(head))
    if tail:
        weights = [TAIL_SIZE[0] * rank ** TAIL_SIZE[1] for rank in range(TOP + 1, TOP + 1 +
                                                                            len(tail))]  # fmt: skip
        scale = (100.0 - HEAD_SHARE) / sum(weights)
        shuffled_times = rng.permutation(tail)
        shuffled_sizes = rng.permutation(np.array(weights) * scale)
        percent.update(zip(shuffled_times.tolist(), shuffled_sizes.tolist(), strict=True))
    times = np.array(sorted(percent))
    counts = np.array([max(1, round(percent[t] * jobs / 100)) for t in times])
    fixed = len(times) - 1 if largest_share is not None else None  # the user's: kept
    return times, _even_out(counts, jobs, fixed)


def _even_out(counts: np.ndarray, jobs: int, fixed: int | None = None) -> np.ndarray:
    """Counts changed to sum to ``jobs``: the difference spread over the largest bins (but
    ``fixed``, the user's), proportionally, then one by one (the reference's
    ``adjust_njobs``)."""
    counts = counts.copy()
    difference = jobs - int(counts.sum())
    for attempt in ("proportional", "one", "to_one", "to_zero"):
        if difference == 0:
            break
        sign = 1 if difference > 0 else -1
        left = abs(difference)
        adjustable = counts.sum() - (counts[fixed] if fixed is not None else 0)
        fraction = left / max(adjustable, 1)
        for index in np.argsort(-counts, kind="stable"):
            if counts[index] == 0 or left == 0 or index == fixed:
                continue
            change = {"proportional": math.ceil(fraction * counts[index]), "one": 1,
                      "to_one": counts[index] - 1, "to_zero": counts[index]}[attempt]  # fmt: skip
            if sign < 0:
                change = min(change, counts[index] - (0 if attempt == "to_zero" else 1))
            change = min(change, left)
            counts[index] += sign * change
            left -= change
        difference = sign * left
    return counts


def tsafrir_estimates(
    rng: np.random.Generator,
    run_times: np.ndarray,
    largest: int | None = None,
    largest_share: float | None = None,
) -> np.ndarray:
    """An estimate (s) for each job of ``run_times`` (module docstring).

    Args:
        rng: the draws (the ranks of the head, the tail's matching, the assignment).
        run_times: s, one per job, in any order; the estimates come back in that order.
        largest: the largest estimate the machine allows (s, at least an hour); default:
            the longest run time rounded up to a whole hour.
        largest_share: % of the jobs using the largest estimate, if known (the model's
            most useful hint [TEF05]); default: the model's head rank 1.

    Raises:
        ValueError: a largest estimate under an hour, or too many long jobs for the model's
            estimates (fewer estimates at least as long as the run times than such jobs:
            give a larger ``largest`` or ``largest_share``).
    """
    run_times = np.asarray(run_times, dtype=np.float64)
    if largest is None:
        longest = float(np.nanmax(run_times)) if len(run_times) else 0.0
        largest = max(HOUR, math.ceil(longest / HOUR) * HOUR)
    times, counts = estimate_distribution(rng, len(run_times), largest, largest_share)
    estimates = np.repeat(times, counts)[::-1].astype(np.float64)  # longest first
    needed = np.minimum(np.nan_to_num(run_times, nan=0.0), largest)
    order = np.argsort(-needed, kind="stable")
    wanted = needed[order]
    if (wanted > estimates).any():
        short = int((wanted > estimates).sum())
        raise ValueError(f"the model's estimates cannot cover {short} jobs' run times (too "
                         f"many jobs near the largest estimate, {largest} s); give a larger "
                         "largest estimate or the share of jobs using it")  # fmt: skip
    assigned = np.empty(len(order))
    high = 0
    count = len(order)
    for j in range(count):  # estimates[j:] hold the untaken ones, largest first
        high = max(high, j)
        while high < count - 1 and wanted[j] <= estimates[high + 1]:
            high += 1
        k = int(rng.integers(j, high + 1))
        assigned[j] = estimates[k]
        estimates[k] = estimates[j]
    result = np.empty(len(order))
    result[order] = assigned
    return result
