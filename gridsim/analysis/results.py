"""Results folders as data: every table a run wrote, as pandas DataFrames.

Consumes one or more folders written by :func:`gridsim.experiments.runner.run_experiment`
(a result store: one Parquet dataset per table beside the ``metadata.json`` manifest, or the
earlier layout of one ``<table>.parquet`` per table; docs/results.md); produces a
:class:`Results` holding each table and the folders' metadata.

Several folders of one experiment (same scenario, seed and gridsim version: shards, or runs
of separate replication ranges) are one experiment: their cells are combined into the tables
a single run gives (a cell held twice is refused). Folders of different experiments are
combined into one comparison: their tables are concatenated and a ``run`` column names the
folder each row came from (``replication`` alone would then no longer identify an instance).

Cost: reading the Parquet files; nothing is recomputed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gridsim.experiments.manifests import check_manifest

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
    def axes(self) -> list[str]:
        """The swept paths of the experiment (columns of every table), in grid order."""
        return list(dict.fromkeys(a for m in self.metadata for a in m.get("axes", [])))

    @property
    def policies(self) -> list[str]:
        """Policies in the order the scenario lists them."""
        return list(dict.fromkeys(self.runs["policy"])) if "policy" in self.runs else []

    @property
    def baseline(self) -> str | None:
        """The policy comparisons are made against: the scenario's ``baseline`` (job flows),
        else the first policy (:func:`gridsim.analysis.stats.baseline_policy`)."""
        from gridsim.analysis.stats import baseline_policy

        scenario = self.metadata[0].get("scenario_resolved", {}) if self.metadata else {}
        return baseline_policy(scenario.get("baseline"), self.policies)

    def summary(self) -> pd.DataFrame:
        """Per point and policy: ``runs``, ``<metric>_mean`` and ``<metric>_ci95`` (95%
        Student-t half-width), the table ``gridsim run`` prints and writes to
        ``summary.csv``; per folder (a ``run`` column) when different experiments were
        combined. ValueError if they are of several kinds."""
        from gridsim.experiments.kinds import KINDS
        from gridsim.experiments.runner import summarise_points

        keys = (["run"] if "run" in self.runs.columns else []) + self.axes
        return summarise_points(KINDS[self.kind].load(), self.runs, tuple(keys))

    def __repr__(self) -> str:
        """One line saying what the results hold (a notebook shows this for the object, so
        not the manifests)."""
        names = list(dict.fromkeys(str(m.get("scenario")) for m in self.metadata))
        keys = [column for column in ("run", *self.axes) if column in self.runs.columns]
        points = len(self.runs.drop_duplicates(keys)) if keys else int(not self.runs.empty)
        replications = self.runs["replication"].nunique() if "replication" in self.runs else 0
        tables = {name: len(self.table(name)) for name in (*NAMED_TABLES, *self.extra)
                  if not self.table(name).empty}  # fmt: skip
        return (f"Results(kind={_one_or_all(self.kinds)}, name={_one_or_all(names)}, "
                f"points={points}, policies={self.policies}, replications={replications}, "
                f"tables={tables})")  # fmt: skip


def _one_or_all(values: list[str]) -> str:
    return repr(values[0]) if len(values) == 1 else repr(values)


def load_results(*folders: str | Path) -> Results:
    """Read results folders written by ``gridsim run``.

    Args:
        folders: one or more results folders; with several, rows get a ``run`` column
            holding the folder's name (made unique with ``-2``, ``-3``, ... if two folders
            share a name) and ``paired`` tables are dropped (their baselines may differ;
            recompute with :func:`gridsim.analysis.stats.paired_comparison`).

    Raises:
        FileNotFoundError: a folder without ``metadata.json`` or a ``runs`` table.
        ValueError: folders of one experiment that hold a cell twice; a ``metadata.json``
            or table file that cannot be read (the message names the file and field).
    """
    from gridsim.experiments.store import StoreError, combined_sources, is_store

    if not folders:
        raise ValueError("load_results needs at least one results folder")
    paths = [Path(folder) for folder in folders]
    names = _unique_names(paths)
    manifests = [_manifest(path) for path in paths]
    metadata = [
        {**manifest, "folder": str(path), "run": name}
        for path, name, manifest in zip(paths, names, manifests, strict=True)
    ]
    if len(paths) > 1 and all(is_store(m) for m in manifests) and _one_experiment(manifests):
        try:
            sources = combined_sources(paths, manifests)
        except StoreError as error:
            raise ValueError(str(error)) from None
        return _results(_store_tables(paths, sources, manifests[0]), metadata)
    tables: dict[str, list[pd.DataFrame]] = {}
    for path, name, manifest in zip(paths, names, manifests, strict=True):
        for table_name, table in _folder_tables(path, manifest).items():
            if len(paths) > 1:
                table.insert(0, "run", name)
            tables.setdefault(table_name, []).append(table)
    if len(paths) > 1:
        tables.pop("paired", None)
    combined = {name: pd.concat(parts, ignore_index=True) for name, parts in tables.items()}
    return _results(combined, metadata)


def results_in_memory(tables: Mapping[str, pd.DataFrame], manifest: dict[str, Any]) -> Results:
    """The results of a run kept in memory (no folder): its tables and its manifest."""
    return _results(dict(tables), [{**manifest, "folder": None, "run": manifest.get("scenario")}])


def load_table(folder: str | Path, name: str) -> pd.DataFrame | None:
    """One table of one results folder (either layout), or None if the folder has none."""
    path = Path(folder)
    try:
        manifest = _manifest(path)
    except FileNotFoundError:
        return None
    from gridsim.experiments.store import committed_chunks, is_store, read_parquet, read_table

    if is_store(manifest) and (path / name).is_dir():
        table = read_table([(path, chunk) for chunk in committed_chunks(path)], name)
    elif (path / f"{name}.parquet").exists():
        table = read_parquet(path / f"{name}.parquet").to_pandas()
    else:
        return None
    return _current({name: table}, manifest)[name]


class ResultsError(ValueError):
    """A folder that cannot be read as gridsim results; the one-line message names it."""


def read_manifest(folder: Path) -> dict[str, Any]:
    """A results folder's ``metadata.json``; ResultsError if it is missing or unreadable."""
    path = folder / "metadata.json"
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise ResultsError(f"{folder}: not a gridsim results folder (no metadata.json)") from None
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: unreadable ({error})") from None
    return check_manifest(path, manifest)


def has_runs(folder: str | Path) -> bool:
    """Whether a results folder holds a runs table (a run stopped before its first
    replication finished has none)."""
    try:
        _manifest(Path(folder))
    except FileNotFoundError:
        return False
    return True


def _results(tables: dict[str, pd.DataFrame], metadata: list[dict[str, Any]]) -> Results:
    named = {name: tables.pop(name) for name in NAMED_TABLES if name in tables}
    return Results(**named, extra=tables, metadata=metadata)


def _manifest(path: Path) -> dict[str, Any]:
    from gridsim.experiments.store import is_store

    meta_path = path / "metadata.json"
    manifest = read_manifest(path) if meta_path.exists() else None
    has_runs = (path / "runs").is_dir() if is_store(manifest) else (path / "runs.parquet").exists()
    if manifest is None or not has_runs:
        raise FileNotFoundError(f"{path}: not a gridsim results folder "
                                "(expected metadata.json and a runs table)")  # fmt: skip
    return manifest


def _one_experiment(manifests: list[dict[str, Any]]) -> bool:
    keys = ("scenario_hash", "seed", "gridsim_version")
    return len({tuple(m.get(k) for k in keys) for m in manifests}) == 1


def _folder_tables(path: Path, manifest: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Every table of one folder (chunk tables, then derived ``<name>.parquet`` files)."""
    from gridsim.experiments.store import (
        committed_chunks,
        is_store,
        read_parquet,
        read_table,
        table_names,
    )

    tables = {}
    if is_store(manifest):
        sources = [(path, chunk) for chunk in committed_chunks(path)]
        tables = {name: read_table(sources, name) for name in table_names(path)}
    for file in sorted(path.glob("*.parquet")):
        tables.setdefault(file.stem, read_parquet(file).to_pandas())
    return _current(tables, manifest)


def _current(tables: dict[str, pd.DataFrame], manifest: dict[str, Any]) -> dict:
    """The tables with a jobs table of an earlier schema read as today's
    (:mod:`gridsim.analysis.legacy`)."""
    from gridsim.analysis.legacy import current_jobs

    if "jobs" in tables:
        tables["jobs"] = current_jobs(tables["jobs"], manifest)
    return tables


def _store_tables(paths: list[Path], sources: list, manifest: dict[str, Any]) -> dict:
    """The tables of several folders of one experiment, as one run would have written them
    (``paired`` recomputed over all cells)."""
    from gridsim.experiments.kinds import KINDS
    from gridsim.experiments.runner import derived_tables
    from gridsim.experiments.store import read_table, table_names

    names = list(dict.fromkeys(n for path in paths for n in table_names(path)))
    tables = {name: read_table(sources, name) for name in names}
    module = KINDS[manifest["kind"]].load()
    baseline = manifest.get("scenario_resolved", {}).get("baseline")
    tables.update(derived_tables(module, tables["runs"], tuple(manifest.get("axes", [])),
                                 baseline))  # fmt: skip
    return _current(tables, manifest)


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
    point: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The rows of one simulation (a ``jobs`` or ``tasks`` table of one run).

    Filters on each given value (``point``: swept field -> value, e.g. a point of
    ``Results.metadata[0]["points"]``); a column the table lacks is ignored. Raises
    ValueError naming the value that matches nothing (``what`` names the rows: "tasks",
    "jobs"), or the choices when several runs still match.
    """
    chosen = table
    given = [(c, v) for c, v in (("run", run), ("policy", policy), ("replication", replication),
                                 ("queue_size", queue_size)) if v is not None]  # fmt: skip
    for column, value in [*given, *(point or {}).items()]:
        if column not in chosen.columns:
            continue
        matching = chosen[chosen[column].isna() if value is None else chosen[column] == value]
        if matching.empty:
            present = ", ".join(map(str, pd.unique(chosen[column]))) or "none, the table is empty"
            raise ValueError(f"no {what} with {column} = {value!r} (present: {present})")
        chosen = matching
    for column in ("run", "policy", "replication", "queue_size"):
        if column in chosen.columns and chosen[column].nunique() > 1:
            values = sorted(chosen[column].unique().tolist())
            raise ValueError(f"several runs match: choose --{column.replace('_', '-')} {values}")
    for column in (c for c in chosen.columns if "." in str(c)):
        if chosen[column].nunique(dropna=False) > 1:
            values = chosen[column].drop_duplicates().tolist()
            raise ValueError(f"several runs match: choose --point (swept {column}: {values})")
    return chosen
