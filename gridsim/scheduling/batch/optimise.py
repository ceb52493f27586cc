"""Choosing one alternative per job: the batch optimisation of [TYTB11, Sec. 2, eq. 1-3].

Consumes, per job, the cost and time of each of its alternatives; produces the chosen
alternative per job (a ``Combination``) and the limits ``T*`` (eq. 2) and ``B*`` (eq. 3).

The functional equation (1) is solved exactly on real-valued costs and times by a dynamic
programme over the jobs that keeps only Pareto-optimal partial sums: a partial combination is
dropped when another one has a constrained sum no larger and an objective no worse, because
every completion of the first is then matched by the same completion of the second (float
addition is monotone, so this holds bit for bit). Partial sums are added job by job from the
first, so totals equal those of a brute-force loop summing in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Per job, the (cost, time) of each of its alternatives.
Alternatives = Sequence[Sequence[tuple[float, float]]]


@dataclass(frozen=True, slots=True)
class Combination:
    """One alternative per job and the batch totals ``C(s)`` and ``T(s)``."""

    choice: tuple[int, ...]
    total_cost: float
    total_time: float


def time_limit(alternatives: Alternatives) -> float:
    """``T*`` of eq. 2: per job the mean time of its alternatives, floored, summed over jobs.

    The floor is taken of each job's mean (not of each term ``t/l``, which would cut up to
    ``l_i`` time units per job and leave no feasible combination); see docs/batch.md.
    """
    return float(sum(math.floor(sum(time for _, time in job) / len(job)) for job in alternatives))


def minimise_time(alternatives: Alternatives, budget: float) -> Combination | None:
    """Fastest combination with total cost at most ``budget``: min T(s) s.t. C(s) <= B*."""
    return _solve(alternatives, objective=1, constraint=0, limit=budget, maximise=False)


def minimise_cost(alternatives: Alternatives, time_limit: float) -> Combination | None:
    """Cheapest combination with total time at most ``time_limit``: min C(s) s.t. T(s) <= T*."""
    return _solve(alternatives, objective=0, constraint=1, limit=time_limit, maximise=False)


def maximise_cost(alternatives: Alternatives, time_limit: float) -> Combination | None:
    """Dearest combination with total time at most ``time_limit``: the owners' maximal income."""
    return _solve(alternatives, objective=0, constraint=1, limit=time_limit, maximise=True)


def budget_limit(alternatives: Alternatives, time_limit: float) -> float | None:
    """``B*`` of eq. 3: the maximal total cost under ``T*``; ``None`` if nothing meets ``T*``."""
    dearest = maximise_cost(alternatives, time_limit)
    return None if dearest is None else dearest.total_cost


def _solve(
    alternatives: Alternatives, objective: int, constraint: int, limit: float, maximise: bool
) -> Combination | None:
    """Pareto dynamic programme: optimise the sum of field ``objective`` (0 cost, 1 time)
    subject to the sum of field ``constraint`` being at most ``limit``.

    Cost: O(sum over jobs of F * l_i * log(F * l_i)) for a Pareto front of F partial sums.
    """
    if not alternatives or any(len(job) == 0 for job in alternatives):
        return None
    sign = -1.0 if maximise else 1.0
    constrained = np.zeros(1)
    value = np.zeros(1)
    parents: list[np.ndarray] = []
    choices: list[np.ndarray] = []
    for job in alternatives:
        pairs = np.asarray(job, dtype=float)
        new_constrained = (constrained[:, None] + pairs[None, :, constraint]).ravel()
        new_value = (value[:, None] + pairs[None, :, objective]).ravel()
        flat = np.flatnonzero(new_constrained <= limit)
        if len(flat) == 0:
            return None
        # Sort by constrained sum, then best objective first; keep a state only when its
        # objective beats every state with a smaller-or-equal constrained sum.
        order = flat[np.lexsort((sign * new_value[flat], new_constrained[flat]))]
        scores = sign * new_value[order]
        best_before = np.minimum.accumulate(np.concatenate(([np.inf], scores[:-1])))
        kept = order[scores < best_before]
        parent, choice = np.divmod(kept, len(job))
        parents.append(parent)
        choices.append(choice)
        constrained, value = new_constrained[kept], new_value[kept]
    state = int(np.argmin(sign * value))
    picked = []
    for parent, choice in zip(reversed(parents), reversed(choices), strict=True):
        picked.append(int(choice[state]))
        state = int(parent[state])
    picked.reverse()
    totals = (constrained, value) if constraint == 0 else (value, constrained)
    best = int(np.argmin(sign * value))
    return Combination(
        choice=tuple(picked),
        total_cost=float(totals[0][best]),
        total_time=float(totals[1][best]),
    )
