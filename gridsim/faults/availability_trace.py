"""Recorded node down times, so real failure logs can be replayed.

Consumes a CSV file with a header and the columns ``node`` (0-based node index),
``down_from`` and ``down_until`` (time units, ``down_from < down_until``), one row per outage;
produces, per node, the outages sorted and merged where they overlap or touch. Errors name the
file, the line and what is wrong.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from gridsim.config import ScenarioError

COLUMNS = ("node", "down_from", "down_until")


def read_availability_trace(path: str | Path) -> dict[int, list[tuple[float, float]]]:
    """Outages per node from a CSV file (see the module docstring)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"cannot read availability trace {path}: {error.strerror}") from None
    rows = csv.DictReader(text.splitlines())
    if rows.fieldnames is None or set(COLUMNS) - set(rows.fieldnames):
        raise ScenarioError(
            f"{path}: expected the columns {', '.join(COLUMNS)}, got {rows.fieldnames}"
        )
    outages: dict[int, list[tuple[float, float]]] = {}
    for line, row in enumerate(rows, start=2):
        try:
            node = int(row["node"])
            start, end = float(row["down_from"]), float(row["down_until"])
        except (TypeError, ValueError):
            raise ScenarioError(f"{path}, line {line}: expected numbers, got {row}") from None
        if node < 0 or not (math.isfinite(start) and math.isfinite(end)) or end <= start:
            raise ScenarioError(
                f"{path}, line {line}: expected node >= 0 and down_from < down_until, got {row}"
            )
        outages.setdefault(node, []).append((start, end))
    return {node: merged(intervals) for node, intervals in sorted(outages.items())}


def merged(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Intervals sorted, with overlapping or touching ones joined."""
    out: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
