"""Results folders as data: every table a run wrote, as pandas DataFrames.

Consumes one or more folders written by :func:`gridsim.experiments.runner.run_experiment`
(``<table>.parquet`` files beside ``metadata.json``, layout in docs/results.md); produces a
:class:`Results` holding each table and the folders' metadata. Several folders are combined
into one comparison: their tables are concatenated and a ``run`` column names the folder each
row came from (``replication`` alone would then no longer identify an instance).

Cost: reading the Parquet files; nothing is recomputed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

#: Tables every kind may write, given their own attribute (others go in ``extra``).
NAMED_TABLES = ("runs", "jobs", "tasks", "progress", "paired")


@dataclass
class Results:
    """The tables of one or several results folders.

    Attributes:
        runs: one row per replication and policy (and queue size or goal); always present.
        jobs, tasks, progress, paired: the kind's other tables, empty when not written.
        extra: any other table, by name.
        metadata: the ``metadata.json`` of each folder, in the order given, each with a
            ``folder`` entry (the path) and a ``run`` entry (the name used in the ``run``
            column when several folders were combined).
    """

    runs: pd.DataFrame
    jobs: pd.DataFrame = field(default_factory=pd.DataFrame)
    tasks: pd.DataFrame = field(default_factory=pd.DataFrame)
    progress: pd.DataFrame = field(default_factory=pd.DataFrame)
    paired: pd.DataFrame = field(default_factory=pd.DataFrame)
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)
    metadata: list[dict[str, Any]] = field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        """The scenario kinds of the folders, without repeats (normally one)."""
        return list(dict.fromkeys(str(m.get("kind")) for m in self.metadata))

    @property
    def kind(self) -> str:
        """The one scenario kind of these results; ValueError if folders of several kinds
        were combined."""
        kinds = self.kinds
        if len(kinds) != 1:
            raise ValueError(f"results mix scenario kinds {kinds}")
        return kinds[0]

    def table(self, name: str) -> pd.DataFrame:
        """A table by name (empty when the folders did not write it)."""
        if name in NAMED_TABLES:
            return getattr(self, name)
        return self.extra.get(name, pd.DataFrame())

    @property
    def policies(self) -> list[str]:
        """Policies in the order the scenario lists them (first = baseline of comparisons)."""
        return list(dict.fromkeys(self.runs["policy"])) if "policy" in self.runs else []


def load_results(*folders: str | Path) -> Results:
    """Read results folders written by ``gridsim run``.

    Args:
        folders: one or more results folders; with several, rows get a ``run`` column
            holding the folder's name (made unique with ``-2``, ``-3``, ... if two folders
            share a name) and ``paired`` tables are dropped (their baselines may differ;
            recompute with :func:`gridsim.analysis.stats.paired_comparison`).

    Raises:
        FileNotFoundError: a folder without ``metadata.json`` or ``runs.parquet``.
    """
    if not folders:
        raise ValueError("load_results needs at least one results folder")
    paths = [Path(folder) for folder in folders]
    names = _unique_names(paths)
    tables: dict[str, list[pd.DataFrame]] = {}
    metadata = []
    for path, name in zip(paths, names, strict=True):
        meta_path = path / "metadata.json"
        if not meta_path.exists() or not (path / "runs.parquet").exists():
            raise FileNotFoundError(
                f"{path}: not a gridsim results folder (expected metadata.json and runs.parquet)"
            )
        metadata.append({**json.loads(meta_path.read_text()), "folder": str(path), "run": name})
        for file in sorted(path.glob("*.parquet")):
            table = pd.read_parquet(file)
            if len(paths) > 1:
                table.insert(0, "run", name)
            tables.setdefault(file.stem, []).append(table)
    if len(paths) > 1:
        tables.pop("paired", None)
    combined = {name: pd.concat(parts, ignore_index=True) for name, parts in tables.items()}
    named = {name: combined.pop(name) for name in NAMED_TABLES if name in combined}
    return Results(**named, extra=combined, metadata=metadata)


def _unique_names(paths: list[Path]) -> list[str]:
    names: list[str] = []
    for path in paths:
        base = path.resolve().name or str(path)
        name, number = base, 1
        while name in names:
            number += 1
            name = f"{base}-{number}"
        names.append(name)
    return names


def select_run(
    table: pd.DataFrame,
    policy: str | None = None,
    replication: int | None = None,
    queue_size: int | None = None,
    run: str | None = None,
    what: str = "rows",
) -> pd.DataFrame:
    """The rows of one simulation (a ``jobs`` or ``tasks`` table of one run).

    Filters on each given value; a column the table lacks is ignored. Raises ValueError
    naming the value that matches nothing (``what`` names the rows: "tasks", "jobs"), or
    the choices when several runs still match.
    """
    chosen = table
    for column, value in (("run", run), ("policy", policy), ("replication", replication),
                          ("queue_size", queue_size)):  # fmt: skip
        if value is None or column not in chosen.columns:
            continue
        chosen = chosen[chosen[column] == value]
        if chosen.empty:
            raise ValueError(f"no {what} with {column} = {value!r}")
    for column in ("run", "policy", "replication", "queue_size"):
        if column in chosen.columns and chosen[column].nunique() > 1:
            values = sorted(chosen[column].unique().tolist())
            raise ValueError(f"several runs match: choose --{column.replace('_', '-')} {values}")
    return chosen
