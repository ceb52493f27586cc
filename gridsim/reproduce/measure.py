"""gridsim's side of a published figure: run its scenario, then measure every row.

Consumes a :class:`~gridsim.reproduce.catalogue.Figure`, a replication count and optional
scenario overrides (``--set environment.performance_step=0``: the readings the papers leave
open are scenario parameters); produces one :class:`Measured` per row. Scenarios run through
:func:`gridsim.experiments.runner.run_experiment`, so the numbers are those ``gridsim run``
gives for the same scenario, seed and count, bit for bit.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.analysis.stats import mean_interval
from gridsim.config import ScenarioError
from gridsim.reproduce.catalogue import Figure, Row

NAN = math.nan


@dataclass(frozen=True)
class Measured:
    """gridsim's value of a row with its 95% half-width, and the paired relative difference
    (%) against the figure's baseline where there is one."""

    value: float
    ci95: float = NAN
    difference: float = NAN
    difference_ci95: float = NAN


@dataclass(frozen=True)
class Tables:
    """What one scenario run gave: its runs (and, for cloud runs, its progress) table."""

    runs: pd.DataFrame
    progress: pd.DataFrame | None


def run_figure_scenario(
    figure: Figure,
    replications: int,
    overrides: Sequence[str] = (),
    jobs: int | None = None,
    out_dir: Path | None = None,
    progress: bool | None = None,
    command: str | None = None,
    overwrite: bool = False,
) -> Tables:
    """Run the figure's scenario; the tables the rows are measured on.

    ``out_dir`` is an ordinary results folder: a reproduction that was stopped resumes from
    it, a folder of another scenario is refused unless ``overwrite``. The rows are measured on
    replications ``0..replications-1`` only, so a folder that holds more gives the same
    figures as a run of exactly ``replications``. Without ``out_dir`` the run still streams its
    per-job and per-task tables to a temporary folder (2000 job-flow replications hold millions
    of rows); only the tables the rows need are kept.
    """
    from gridsim.api import experiment_of_source
    from gridsim.experiments.runner import run_experiment

    path = figure.scenario_path()
    experiment = experiment_of_source(path, overrides, path.name)
    folder = contextlib.nullcontext(out_dir) if out_dir else tempfile.TemporaryDirectory()
    with folder as where:
        result = run_experiment(
            experiment,
            replications=replications,
            jobs=jobs,
            out_dir=Path(where),
            overwrite=overwrite,
            command=command,
            progress=progress,
        )
        if result.status == "interrupted":
            raise KeyboardInterrupt  # Ctrl-C: the command ends as interrupted; rerun resumes
        if result.status != "complete":
            failure = result.exception or RuntimeError(f"run {result.status}: {result.error}")
            failure.add_note(f"reproducing {figure.id} from {figure.scenario}")
            raise failure
        runs = derived_columns(experiment.kind, _first(result.tables["runs"], replications))
        return Tables(runs, _first(result.tables.get("progress"), replications))


def _first(table: pd.DataFrame | None, replications: int) -> pd.DataFrame | None:
    """The rows of replications ``0..replications-1`` (a resumed folder may hold more)."""
    if table is None or "replication" not in table.columns:
        return table
    return table[table["replication"] < replications].reset_index(drop=True)


def derived_columns(kind: str, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs the published numbers compare, with the columns they need that a kind's runs
    table does not hold (the kind's ``comparable_runs``, e.g. the batch cycles the paper
    counts, marked ``comparable`` where every policy met the goal's limit)."""
    from gridsim.experiments.kinds import declaration

    return declaration(kind).comparable_runs(runs)


def measure_row(figure: Figure, row: Row, tables: Tables | None) -> Measured:
    """gridsim's value for one published row."""
    if row.kind == "model":
        return _model_overhead(row)
    assert tables is not None
    runs = _selected(tables.runs, row)
    if runs.empty:  # e.g. no batch cycle counted yet: nothing to judge
        return Measured(NAN, math.inf)
    if row.kind == "mean":
        value, half, _ = mean_interval(_of(runs, row.policy)[row.metric])
        if figure.baseline and row.policy != figure.baseline:
            return Measured(value, half, *_paired_relative(runs, row, figure.baseline, "versus"))
        return Measured(value, half)
    if row.kind == "relative":
        return Measured(*_paired_relative(runs, row, row.versus, row.reference))
    if row.kind == "pooled":
        return Measured(*_ratio_of_sums(_of(runs, row.policy), row.metric, row.per))
    return Measured(*_crossing_hours(tables.progress, row))


def _selected(runs: pd.DataFrame, row: Row) -> pd.DataFrame:
    for column, value in row.selector().items():
        runs = runs[runs[column] == value]
    if "comparable" in runs.columns and row.metric in ("total_time", "total_cost"):
        runs = runs[runs["comparable"]]
    return runs


def _of(runs: pd.DataFrame, policy: str) -> pd.DataFrame:
    """The runs of ``policy``: its label, or the one label that adds a reading's parameters
    to it (``FirstFit`` is ``FirstFit(first_fit=first_found)`` under that reading)."""
    labels = [str(label) for label in runs["policy"].unique()]
    matches = [policy] if policy in labels else [x for x in labels if _extends(x, policy)]
    if len(matches) != 1:
        known = ", ".join(labels)
        raise ScenarioError(f"policy {policy!r} has no runs in this scenario (it has {known})")
    return runs[runs["policy"] == matches[0]]


def _extends(label: str, policy: str) -> bool:
    """Whether ``label`` names ``policy`` with more parameters set."""
    name, params = _parts(label)
    wanted_name, wanted = _parts(policy)
    return name == wanted_name and wanted < params


def _parts(label: str) -> tuple[str, frozenset[str]]:
    name, _, rest = label.partition("(")
    return name, frozenset(p.strip() for p in rest.rstrip(")").split(",") if p.strip())


def _paired_relative(runs: pd.DataFrame, row: Row, versus: str, reference: str):
    """Mean and half-width over replications of ``100 (policy - versus) / reference``."""
    mine, theirs = (_of(runs, policy)["policy"].iloc[0] for policy in (row.policy, versus))
    table = runs.pivot_table(index="replication", columns="policy", values=row.metric)
    pairs = table[[mine, theirs]].dropna()
    base = pairs[mine if reference == "policy" else theirs]
    relative = 100 * (pairs[mine] - pairs[theirs]) / base
    value, half, _ = mean_interval(relative.to_numpy())
    return value, half


def _ratio_of_sums(runs: pd.DataFrame, metric: str, per: str) -> tuple[float, float]:
    """``sum(metric) / sum(per)`` with a linearised 95% half-width."""
    numerator, denominator = runs[metric].to_numpy(float), runs[per].to_numpy(float)
    ratio = numerator.sum() / denominator.sum()
    residual = numerator - ratio * denominator
    _, half, _ = mean_interval(residual)
    return float(ratio), float(half / denominator.mean())


def _crossing_hours(progress: pd.DataFrame | None, row: Row) -> tuple[float, float]:
    """When ``policy``'s completed samples overtake ``versus``'s for good, in hours.

    Per replication, on the union of both production curves' change times: the first time
    after the last instant at which ``policy`` had completed fewer samples.
    """
    if progress is None:
        raise ScenarioError("a crossing row needs a cloud scenario (a progress table)")
    times = []
    for _, part in progress.groupby("replication"):
        mine, theirs = (part[part["policy"] == p] for p in (row.policy, row.versus))
        grid = np.union1d(mine["time_s"], theirs["time_s"])
        behind = _step(mine, grid) < _step(theirs, grid)
        if not behind.any():
            times.append(0.0)
        else:
            last = int(np.flatnonzero(behind)[-1])
            times.append(grid[last + 1] / 3600 if last + 1 < len(grid) else NAN)
    value, half, _ = mean_interval(times)
    return value, half


def _step(curve: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    """A production curve (samples completed after each change) read at ``grid`` times."""
    curve = curve.sort_values("time_s", kind="stable")
    position = np.searchsorted(curve["time_s"].to_numpy(), grid, side="right") - 1
    samples = curve["samples_completed"].to_numpy(float)
    return np.where(position >= 0, samples[np.maximum(position, 0)], 0.0)


def _model_overhead(row: Row) -> Measured:
    """[RRM] Fig. 1: the overhead share of eq. 3 at the paper's settings (t_si/2 = 5 s,
    t_pi = 30 s, D/BW = 2 s)."""
    from gridsim.cloud.turnaround import NAGANO, MiddlewareIntervals, overhead_fraction

    bandwidth = NAGANO.data_size_mb / 2.0  # D/BW = 2 s
    share = overhead_fraction(
        row.samples, row.performance_w, bandwidth, NAGANO, MiddlewareIntervals(10.0, 30.0)
    )
    return Measured(100 * float(share), 0.0)
