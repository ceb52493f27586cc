"""Published against gridsim: the comparison table of a figure and its verdicts.

Consumes a figure and gridsim's measured rows; produces a DataFrame (one row per published
number) and its plain-text rendering. Verdicts:

* ``within 5%``: gridsim's value is within 5% of the published one (of the nearer end of a
  published range), and the relation below, if the row has one, holds;
* ``relation holds``: the value is further off, but the published relation holds: the
  paired difference against the baseline (or the row's ``versus``) has the paper's sign with
  a 95% interval that excludes zero, or includes zero where the paper's numbers are equal
  within ``equal_within``; for ``at_most`` claims, the value's size is within the bound;
* ``not reproduced``: otherwise, in particular whenever the relation fails.
"""

from __future__ import annotations

import math

import pandas as pd

from gridsim.reproduce.catalogue import Figure, Row
from gridsim.reproduce.measure import Measured

WITHIN = 0.05


def published_difference(figure: Figure, row: Row) -> float:
    """The paper's own relative difference (%) of a table cell against its baseline cell."""
    if row.kind != "mean" or not figure.baseline or row.policy == figure.baseline:
        return math.nan
    for other in figure.rows:
        if (other.kind, other.policy) == ("mean", figure.baseline) and (
            other.selector() == row.selector() and other.metric == row.metric
        ):
            return 100 * (_number(row.published) / _number(other.published) - 1)
    return math.nan


def relation_holds(figure: Figure, row: Row, measured: Measured) -> bool | None:
    """Whether the relation the paper states holds in gridsim; None if the row has none."""
    if row.claim == "at_most":
        return abs(measured.value) <= _number(row.published)
    if row.kind == "relative":
        return _same_sign(_number(row.published), measured.value, measured.ci95, 0.0)
    if row.kind == "crossing":
        return math.isfinite(measured.value) and measured.value > 0
    expected = published_difference(figure, row)
    if math.isnan(expected):
        return None
    return _same_sign(
        expected, measured.difference, measured.difference_ci95, 100 * figure.equal_within
    )


def _same_sign(expected: float, value: float, half: float, tolerance: float) -> bool:
    if math.isnan(value):
        return False
    half = 0.0 if math.isnan(half) else half
    if abs(expected) <= tolerance:
        return value - half <= tolerance and value + half >= -tolerance
    return value - half > 0 if expected > 0 else value + half < 0


def within(published: float | tuple[float, float], value: float) -> bool:
    low, high = published if isinstance(published, tuple) else (published, published)
    if low == high == 0:
        return abs(value) <= 1e-9
    return low - WITHIN * abs(low) <= value <= high + WITHIN * abs(high)


def verdict(figure: Figure, row: Row, measured: Measured) -> str:
    relation = relation_holds(figure, row, measured)
    if relation is False:
        return "not reproduced"
    if row.claim == "at_most":
        return "relation holds"
    if within(row.published, measured.value):
        return "within 5%"
    return "relation holds" if relation else "not reproduced"


def comparison_table(figure: Figure, measured: list[Measured]) -> pd.DataFrame:
    rows = []
    for row, value in zip(figure.rows, measured, strict=True):
        rows.append({
            "figure": figure.id,
            "row": row.name,
            "published": _published_text(row),
            "gridsim": value.value,
            "gridsim_ci95": value.ci95,
            "difference_pct": value.difference,
            "difference_ci95": value.difference_ci95,
            "published_difference_pct": published_difference(figure, row),
            "verdict": verdict(figure, row, value),
        })  # fmt: skip
    return pd.DataFrame(rows)


def format_table(figure: Figure, table: pd.DataFrame, replications: int | None) -> str:
    """The comparison as aligned text, with a title line naming the paper and the count."""
    count = "" if not replications else f", {replications} replications"
    paper = f" (paper: {figure.replications.paper})" if figure.replications.paper else ""
    title = f"{figure.id}: [{figure.cite}] {figure.source}, {figure.title}{count}{paper}"
    versus = f"vs {figure.baseline}, %" if figure.baseline else ""
    header = ["row", "published", "gridsim ± 95%"] + ([versus, "paper %"] if versus else [])
    lines = [[*header, "verdict"]]
    for _, r in table.iterrows():
        cells = [r["row"], r["published"], _interval(r["gridsim"], r["gridsim_ci95"])]
        if versus:
            cells += [
                _interval(r["difference_pct"], r["difference_ci95"]),
                _number_text(r["published_difference_pct"], signed=True),
            ]
        lines.append([*cells, r["verdict"]])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    body = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join([title, *body])


def _interval(mean: float, half: float) -> str:
    if math.isnan(mean):
        return "-"
    text = _number_text(mean, signed=False)
    return text if math.isnan(half) or half < 1e-9 else f"{text} ± {_number_text(half)}"


def _number_text(value: float, signed: bool = False) -> str:
    if math.isnan(value):
        return ""
    text = f"{value:.4g}" if abs(value) < 1e6 else f"{value:.3e}"
    return f"+{text}" if signed and value > 0 else text


def _published_text(row: Row) -> str:
    if isinstance(row.published, tuple):
        return f"{row.published[0]:g} to {row.published[1]:g}"
    prefix = "at most " if row.claim == "at_most" else ""
    return f"{prefix}{row.published:g}"


def _number(published: float | tuple[float, float]) -> float:
    return sum(published) / 2 if isinstance(published, tuple) else published
