"""Verdicts that carry the magnitude: how far gridsim's number is from the published one.

Consumes a figure's row and gridsim's measured row; produces a :class:`Judgement`: the number
judged (the row's value, or for a paired claim the paired difference against the paper's own
difference), its ratio to the published one and one verdict (docs/reproducing.md, "Verdicts"):

* ``within the paper's precision``: inside the interval the printed number stands for (a
  printed "4" is [3.5, 4.5), "302.1" is [302.05, 302.15); a difference of two printed cells
  spans what their intervals allow; a published range is itself);
* ``within the paper's bound``: a claim "at most B" holds (the size is at most B);
* ``within 5%``: within 5% of the published number (of the nearer end of a range);
* ``relation holds, magnitude within 1.5x``: the paper's relation (the sign of a difference,
  a positive crossing time, a bound) holds and the magnitude is within a factor 1.5;
* ``relation holds, magnitude off by F x``: the relation holds, the magnitude is off by F;
* ``relation holds, equal within E%``: the paper's two numbers are equal within its figure's
  ``equal_within`` and gridsim's difference is that small too;
* ``not reproduced``: a value outside 5%, or a relation that fails;
* ``too few replications to judge``: the 95% interval reaches values of another verdict and
  its half-width exceeds the tolerance (5% of the published magnitude): more replications
  could change the verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from gridsim.reproduce.catalogue import Figure, Row
from gridsim.reproduce.measure import Measured

#: Relative tolerance of "within 5%" and of the replication check.
TOLERANCE = 0.05
#: A magnitude within this factor of the paper's is "within 1.5x".
FACTOR = 1.5
PRECISION = "within the paper's precision"
BOUND = "within the paper's bound"
WITHIN = "within 5%"
HOLDS = "relation holds, magnitude within 1.5x"
NOT_REPRODUCED = "not reproduced"
TOO_FEW = "too few replications to judge"

Kind = Literal["value", "relation", "equal", "at_most"]


@dataclass(frozen=True)
class Claim:
    """What a published number claims: a ``value``; a ``relation`` (a signed difference or a
    positive time, judged by sign and then magnitude); two numbers ``equal`` within
    ``equal_within`` (%); or a bound (``at_most``)."""

    kind: Kind
    low: float  # the published number, or the ends of a published range
    high: float
    precision: tuple[float, float]  # what the printed number stands for
    equal_within: float = 0.0

    @property
    def middle(self) -> float:
        return (self.low + self.high) / 2

    def nearer_end(self, x: float) -> float:
        return self.low if abs(x - self.low) <= abs(x - self.high) else self.high

    @property
    def tolerance(self) -> float:
        """The width below which an interval is narrow enough to judge."""
        if self.kind == "equal":
            return self.equal_within
        return TOLERANCE * min(abs(self.low), abs(self.high))


@dataclass(frozen=True)
class Judgement:
    """The verdict on one row, with the number judged and its published counterpart."""

    verdict: str
    judged: float
    judged_ci95: float
    published: float
    ratio: float


def judge(figure: Figure, row: Row, measured: Measured) -> Judgement:
    """The row's verdict (module docstring): paired claims on their paired difference."""
    claim, value, half = claim_of(figure, row, measured)
    half = 0.0 if math.isnan(half) else half
    verdict = _tier(claim, value)[1]
    if math.isinf(half) or (  # no runs to measure, or an interval too wide to decide
        half > claim.tolerance
        and len({_tier(claim, x)[0] for x in _spread(claim, value, half)}) > 1
    ):
        verdict = TOO_FEW
    # Inside a published range the ratio is 1; outside, it is taken to the nearer end.
    published = min(max(value, claim.low), claim.high) if math.isfinite(value) else claim.middle
    ratio = value / published if published else math.nan
    return Judgement(verdict, value, half, claim.middle, ratio)


def claim_of(figure: Figure, row: Row, measured: Measured) -> tuple[Claim, float, float]:
    """The row's claim and gridsim's number (with half-width) that answers it."""
    low, high = _ends(row.published)
    if row.claim == "at_most":
        return Claim("at_most", low, high, (low, high)), measured.value, measured.ci95
    if row.kind in ("relative", "crossing"):
        precision = (low, high) if low != high else _printed(low)
        return Claim("relation", low, high, precision), measured.value, measured.ci95
    baseline = _baseline_cell(figure, row)
    if baseline is None:
        precision = (low, high) if low != high else _printed(low)
        return Claim("value", low, high, precision), measured.value, measured.ci95
    cell, base = _number(row.published), _number(baseline.published)
    (a_low, a_high), (b_low, b_high) = _printed(cell), _printed(base)
    expected = 100 * (cell / base - 1)
    precision = (100 * (a_low / b_high - 1), 100 * (a_high / b_low - 1))
    equal = 100 * figure.equal_within
    kind: Kind = "equal" if abs(expected) <= equal else "relation"
    claim = Claim(kind, expected, expected, precision, equal)
    return claim, measured.difference, measured.difference_ci95


def published_difference(figure: Figure, row: Row) -> float:
    """The paper's own relative difference (%) of a table cell against its baseline cell."""
    baseline = _baseline_cell(figure, row)
    if baseline is None:
        return math.nan
    return 100 * (_number(row.published) / _number(baseline.published) - 1)


def _baseline_cell(figure: Figure, row: Row) -> Row | None:
    """The baseline's cell of the same table column, for a cell of another policy."""
    if row.kind != "mean" or not figure.baseline or row.policy == figure.baseline:
        return None
    for other in figure.rows:
        if (other.kind, other.policy) == ("mean", figure.baseline) and (
            other.selector() == row.selector() and other.metric == row.metric
        ):
            return other
    return None


def _spread(claim: Claim, value: float, half: float) -> np.ndarray:
    """Points of the interval ``value +- half``: a fine grid and every edge between verdicts
    that lies in it (the published ends, the precision's ends, zero, a bound's sign)."""
    edges = [claim.low, claim.high, *claim.precision, -claim.high, 0.0]
    inside = [x for x in edges if value - half <= x <= value + half]
    return np.concatenate((np.linspace(value - half, value + half, 101), inside))


def _tier(claim: Claim, x: float) -> tuple[int, str]:
    """The verdict for gridsim's number ``x`` and its rank (0 best)."""
    if math.isnan(x):
        return 5, NOT_REPRODUCED
    if claim.kind == "at_most":
        return (0, BOUND) if abs(x) <= claim.high else _magnitude(abs(x), claim.high)
    low, high = claim.precision
    if low <= x < high:
        return 0, PRECISION
    if claim.kind == "equal":
        if abs(x) <= claim.equal_within:
            return 2, f"relation holds, equal within {claim.equal_within:g}%"
        return 5, NOT_REPRODUCED
    end = claim.nearer_end(x)
    if claim.kind == "value":
        near = (
            claim.low - TOLERANCE * abs(claim.low) <= x <= claim.high + TOLERANCE * abs(claim.high)
        )
        return (1, WITHIN) if near else (5, NOT_REPRODUCED)
    if not math.isfinite(x) or x * end <= 0:  # the sign (or a finite crossing) fails
        return 5, NOT_REPRODUCED
    return _magnitude(abs(x), abs(end))


def _magnitude(size: float, expected: float) -> tuple[int, str]:
    if expected == 0:
        return (1, WITHIN) if size == 0 else (5, NOT_REPRODUCED)
    if size <= expected * (1 + TOLERANCE) and size >= expected * (1 - TOLERANCE):
        return 1, WITHIN
    factor = max(size / expected, expected / size) if size > 0 else math.inf
    if factor <= FACTOR:
        return 2, HOLDS
    return 3, f"relation holds, magnitude off by {factor:.3g}x"


def _ends(published: float | tuple[float, float]) -> tuple[float, float]:
    return published if isinstance(published, tuple) else (published, published)


def _printed(value: float) -> tuple[float, float]:
    """The interval a printed number stands for: half a unit of its last digit either side
    (the catalogue keeps the paper's digits: ``4`` is an int, ``302.1`` a float)."""
    text = repr(value)
    decimals = len(text.split(".")[1]) if "." in text and "e" not in text else 0
    half = 0.5 * 10.0**-decimals
    return value - half, value + half


def _number(published: float | tuple[float, float]) -> float:
    return sum(published) / 2 if isinstance(published, tuple) else published


#: The summary's classes of verdicts, in order.
CLASSES = ("within tolerance", "relation holds with magnitude", "magnitude off",
           "not reproduced", "too few replications")  # fmt: skip


def verdict_class(verdict: str) -> str:
    """The summary class of a verdict: within tolerance (the paper's precision or bound, or
    5%), relation holds with magnitude (within 1.5x, or equal), magnitude off, not
    reproduced, too few replications."""
    if verdict in (PRECISION, BOUND, WITHIN):
        return CLASSES[0]
    if verdict == HOLDS or verdict.startswith("relation holds, equal"):
        return CLASSES[1]
    if verdict.startswith("relation holds, magnitude off"):
        return CLASSES[2]
    return CLASSES[3] if verdict == NOT_REPRODUCED else CLASSES[4]


def summary_line(verdicts: list[str]) -> str:
    """``N published numbers: a within tolerance, b relation holds with magnitude, ...``."""
    counts = {name: 0 for name in CLASSES}
    for verdict in verdicts:
        counts[verdict_class(verdict)] += 1
    parts = ", ".join(f"{count} {name}" for name, count in counts.items())
    return f"{len(verdicts)} published numbers: {parts}"
