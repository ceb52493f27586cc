"""Gantt charts of one simulated job flow.

Consumes a ``tasks`` table (:mod:`gridsim.sim.trace`; columns ``job_id``, ``node``,
``performance``, ``start``, ``end``, ``kind``), optionally with ``policy``, ``replication`` and
``queue_size`` columns to select one run; produces a matplotlib Figure (never shown or saved
here). Nodes are on the y axis sorted by performance (fastest on top), local load is grey and
jobs are coloured by id.
"""

from __future__ import annotations

import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

COLUMNS = ("job_id", "node", "performance", "start", "end", "kind")


def select_run(
    tasks: pd.DataFrame,
    policy: str | None = None,
    replication: int | None = None,
    queue_size: int | None = None,
) -> pd.DataFrame:
    """The tasks of one run; raises ValueError naming what is missing or ambiguous."""
    missing = [c for c in COLUMNS if c not in tasks.columns]
    if missing:
        raise ValueError(f"tasks table lacks columns {missing}")
    chosen = tasks
    for column, value in (("policy", policy), ("replication", replication),
                          ("queue_size", queue_size)):  # fmt: skip
        if value is None or column not in chosen.columns:
            continue
        chosen = chosen[chosen[column] == value]
        if chosen.empty:
            raise ValueError(f"no tasks with {column} = {value!r}")
    for column in ("policy", "replication", "queue_size"):
        if column in chosen.columns and chosen[column].nunique() > 1:
            values = sorted(chosen[column].unique().tolist())
            raise ValueError(f"several runs match: choose --{column.replace('_', '-')} {values}")
    return chosen


def gantt(tasks: pd.DataFrame, title: str = "", time_unit: str = "time units") -> Figure:
    """A Gantt chart of one run's tasks (see the module docstring)."""
    nodes = (
        tasks[["node", "performance"]].drop_duplicates("node").sort_values("performance")
    )
    row = {int(node): i for i, node in enumerate(nodes["node"])}
    figure = Figure(figsize=(11, max(3.0, 0.25 * len(row) + 1.5)))
    axes = figure.add_subplot()
    colours = colormaps["tab20"]
    for task in tasks.itertuples():
        y = row[int(task.node)]
        if task.kind == "local_load":
            colour, label = "0.6", None
        else:
            colour, label = colours(int(task.job_id) % 20), str(int(task.job_id))
        axes.broken_barh([(task.start, task.end - task.start)], (y - 0.4, 0.8),
                         facecolors=colour, edgecolors="black", linewidth=0.3)  # fmt: skip
        if label and len(tasks) <= 400:
            axes.text(task.start + (task.end - task.start) / 2, y, label, ha="center",
                      va="center", fontsize=5)  # fmt: skip
    axes.set_yticks(list(row.values()))
    axes.set_yticklabels(
        [f"{node} (p={p:.3g})" for node, p in zip(nodes["node"], nodes["performance"],
                                                    strict=True)]
    )
    axes.set_ylabel("node (performance)")
    axes.set_xlabel(f"time ({time_unit})")
    axes.set_xlim(left=0)
    axes.set_title(title)
    figure.tight_layout()
    return figure
