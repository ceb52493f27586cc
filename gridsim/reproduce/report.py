"""Published against gridsim: the comparison table of a figure and its verdicts.

Consumes a figure and gridsim's measured rows; produces a DataFrame (one row per published
number) and its plain-text rendering. The verdicts and the number each judges come from
:mod:`.verdicts`; ``ratio`` is gridsim's judged number over the paper's (for a paired claim,
gridsim's paired difference over the paper's own difference).
"""

from __future__ import annotations

import math

import pandas as pd

from gridsim.reproduce.catalogue import Figure, Row
from gridsim.reproduce.measure import Measured
from gridsim.reproduce.verdicts import judge, published_difference


def verdict(figure: Figure, row: Row, measured: Measured) -> str:
    """The row's verdict (:mod:`.verdicts`)."""
    return judge(figure, row, measured).verdict


def comparison_table(figure: Figure, measured: list[Measured]) -> pd.DataFrame:
    rows = []
    for row, value in zip(figure.rows, measured, strict=True):
        judgement = judge(figure, row, value)
        rows.append({
            "figure": figure.id,
            "row": row.name,
            "published": _published_text(row),
            "gridsim": value.value,
            "gridsim_ci95": value.ci95,
            "difference_pct": value.difference,
            "difference_ci95": value.difference_ci95,
            "published_difference_pct": published_difference(figure, row),
            "ratio": judgement.ratio,
            "verdict": judgement.verdict,
        })  # fmt: skip
    return pd.DataFrame(rows)


def format_table(figure: Figure, table: pd.DataFrame, replications: int | None) -> str:
    """The comparison as aligned text, with a title line naming the paper and the count."""
    count = "" if not replications else f", {replications} replications"
    paper = f" (paper: {figure.replications.paper})" if figure.replications.paper else ""
    title = f"{figure.id}: [{figure.cite}] {figure.source}, {figure.title}{count}{paper}"
    versus = f"vs {figure.baseline}, %" if figure.baseline else ""
    header = ["row", "published", "gridsim ± 95%"] + ([versus, "paper %"] if versus else [])
    lines = [[*header, "ratio", "verdict"]]
    for _, r in table.iterrows():
        cells = [r["row"], r["published"], _interval(r["gridsim"], r["gridsim_ci95"])]
        if versus:
            cells += [
                _interval(r["difference_pct"], r["difference_ci95"]),
                _number_text(r["published_difference_pct"], signed=True),
            ]
        ratio = "" if math.isnan(r["ratio"]) else f"{r['ratio']:.3g}"
        lines.append([*cells, ratio, r["verdict"]])
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
