"""The report's figures: which to draw for a kind's results, and what each one shows.

Consumes :class:`~gridsim.analysis.results.Results` and the kind's declaration
(:class:`~gridsim.experiments.kinds.KindDeclaration`); produces :class:`Drawn` figures (file
name, matplotlib Figure, caption). :func:`run_figures` draws the figures every kind with
policies gets (comparison bars, advantage curves over swept fields); :data:`FIGURES` holds
the schedule figures a kind lists in its declaration's ``figures``, each drawn from one run
per policy -- the first replication at the grid's first point (and smallest queue size),
which every caption names. The functions drawing them are public
(:mod:`gridsim.analysis.plots`, :mod:`gridsim.analysis.schedule_plots`), for notebooks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gridsim.analysis import energy_plots, plots, schedule_plots
from gridsim.analysis.jobflow_metrics import ran
from gridsim.analysis.results import Results
from gridsim.analysis.stats import comparison_keys
from gridsim.analysis.timelines import tasks_of_jobs
from gridsim.experiments.kinds import KindDeclaration

#: Jobs around the longest wait shown in a log replay's Gantt chart (on each side).
GANTT_NEIGHBOURS = 60


@dataclass(frozen=True)
class Drawn:
    """A figure to write as ``name``, with its caption."""

    name: str
    figure: Figure
    caption: str


@dataclass(frozen=True)
class Schedules:
    """One run per policy, the schedule figures' data."""

    jobs: dict[str, pd.DataFrame]
    tasks: dict[str, pd.DataFrame]
    progress: pd.DataFrame
    described: str
    declaration: KindDeclaration
    origin: float | None
    machine: int | None
    prefix: str
    scenario: dict[str, Any] = field(default_factory=dict)

    @property
    def time_unit(self) -> str:
        return self.declaration.time_unit


def run_selection(results: Results) -> dict[str, Any]:
    """The run every schedule figure draws: the first replication, the first value of every
    swept field but the policy, the smallest queue size, the first folder."""
    runs = results.runs
    chosen: dict[str, Any] = {"replication": int(runs["replication"].min())}
    if "run" in runs.columns:
        chosen["run"] = str(runs["run"].iloc[0])
    if "queue_size" in runs.columns:
        chosen["queue_size"] = int(runs["queue_size"].min())
    for axis in results.axes:
        if axis in runs.columns and axis not in ("policy", "queue_size"):
            chosen[axis] = runs[axis].iloc[0]
    return chosen


def describe_selection(chosen: dict[str, Any]) -> str:
    return ", ".join(f"{key} {value}" for key, value in chosen.items())


def schedules(results: Results, declaration: KindDeclaration, prefix: str) -> Schedules:
    """The jobs (and tasks) of :func:`run_selection`'s run, per policy in scenario order."""
    chosen = run_selection(results)
    scenario = results.metadata[0].get("scenario_resolved", {})
    jobs, tasks = {}, {}
    for policy in results.policies:
        for table, into in ((results.jobs, jobs), (results.tasks, tasks)):
            if not table.empty and "policy" in table.columns:
                picked = _rows(table, {**chosen, "policy": policy})
                if not picked.empty:
                    into[policy] = picked
    progress = results.progress
    if not progress.empty:
        progress = progress[progress["replication"] == chosen["replication"]]
    described = f"scenario {results.metadata[0].get('scenario')}, {describe_selection(chosen)}"
    return Schedules(jobs, tasks, progress, described, declaration,
                     declaration.time_origin(scenario),
                     declaration.machine_size(scenario, results.runs), prefix,
                     scenario)  # fmt: skip


def _rows(table: pd.DataFrame, chosen: dict[str, Any]) -> pd.DataFrame:
    for column, value in chosen.items():
        if column in table.columns:
            table = table[table[column].isna() if pd.isna(value) else table[column] == value]
    return table


def run_figures(
    results: Results, runs: pd.DataFrame, declaration: KindDeclaration, baseline: str,
    prefix: str,
) -> list[Drawn]:  # fmt: skip
    """Comparison bars of the declared metrics and advantage curves over swept fields."""
    drawn = []
    replications = int(runs["replication"].nunique())
    for metric in declaration.bar_metrics:
        if metric in runs.columns and runs[metric].notna().any():
            label = plots.metric_label(metric, declaration.labels)
            figure = plots.plot_comparison(runs, metric, ylabel=label)
            drawn.append(Drawn(f"{prefix}-{metric}.png", figure,
                               f"{label} per policy: mean over {_count(replications)} with "
                               "its 95% interval"))  # fmt: skip
    if "run" in runs.columns or declaration.advantage_metric is None:
        return drawn
    metric, axes = declaration.advantage_metric, results.axes or None
    for over in advantage_fields(runs, axes):
        name = (f"{prefix}-advantage.png" if over == "queue_size"
                else f"{prefix}-advantage-{over.replace('.', '-')}.png")  # fmt: skip
        drawn.append(Drawn(name, plots.plot_advantage(runs, baseline, metric, over, axes=axes),
                           f"{metric} advantage over {baseline} by {over} (paired on the "
                           f"same instances, {_count(replications)})"))  # fmt: skip
    return drawn


def _count(replications: int) -> str:
    return f"{replications} replication{'' if replications == 1 else 's'}"


def advantage_fields(runs: pd.DataFrame, axes: list[str] | None) -> list[str]:
    """Swept numeric fields with several values: one advantage figure over each."""
    fields = comparison_keys(runs, axes)
    return [
        f for f in fields
        if f not in ("run", "goal", "policy") and pd.api.types.is_numeric_dtype(runs[f])
        and runs[f].dropna().nunique() > 1
    ]  # fmt: skip


def _gantt(data: Schedules, baseline: str) -> list[Drawn]:
    """The baseline's Gantt chart: a job flow's whole run with its local load, a log
    replay's nodes around the job that waited longest."""
    if baseline in data.tasks:
        tasks = data.tasks[baseline]
        return [Drawn(f"{data.prefix}-gantt.png", plots.plot_gantt(tasks, title=baseline),
                      f"Gantt chart of {baseline}: {data.described}")]  # fmt: skip
    jobs = data.jobs.get(baseline)
    if jobs is None or (jobs["allocated_resources"].fillna("") == "").all():
        return []
    window, longest = longest_wait_window(jobs)
    tasks = tasks_of_jobs(jobs)
    figure = plots.plot_gantt(tasks, title=f"{baseline}, around job {longest}", window=window,
                              time_unit=data.time_unit, origin=data.origin,
                              label_jobs=True)  # fmt: skip
    return [Drawn(f"{data.prefix}-gantt.png", figure,
                  f"Gantt chart of {baseline} ({data.described}) from "
                  f"{window[0]:.0f} to {window[1]:.0f} {data.time_unit}: the "
                  f"{2 * GANTT_NEIGHBOURS} job starts around the start of job {longest}, "
                  "which waited longest (gridsim gantt --from/--to draws any window, "
                  "gridsim explore the whole schedule)")]  # fmt: skip


def longest_wait_window(jobs: pd.DataFrame) -> tuple[tuple[float, float], int]:
    """The time window holding :data:`GANTT_NEIGHBOURS` job starts on each side of the start
    of the job that waited longest, and that job's id."""
    done = jobs[ran(jobs)]
    longest = done.loc[done["wait_time"].idxmax()]
    starts = np.sort(done["start_time"].to_numpy(dtype=float))
    at = int(np.searchsorted(starts, longest["start_time"]))
    low = starts[max(0, at - GANTT_NEIGHBOURS)]
    high = starts[min(len(starts) - 1, at + GANTT_NEIGHBOURS)]
    return (float(low), float(max(high, longest["finish_time"]))), int(longest["job_id"])


def _timeline(kind: str) -> Callable[[Schedules, str], list[Drawn]]:
    def draw(data: Schedules, baseline: str) -> list[Drawn]:
        if not data.jobs:
            return []
        if kind == "utilisation":
            figure = schedule_plots.plot_utilisation(data.jobs, data.machine, data.time_unit,
                                                     data.origin)  # fmt: skip
            what = "share of the machine's processors in use"
        else:
            figure = schedule_plots.plot_queue_length(data.jobs, data.time_unit, data.origin)
            what = "jobs waiting"
        return [Drawn(f"{data.prefix}-{kind.replace('_', '-')}.png", figure,
                      f"{what} over time, one line per policy: {data.described}")]  # fmt: skip

    return draw


def _cdf(column: str, label: str) -> Callable[[Schedules, str], list[Drawn]]:
    def draw(data: Schedules, baseline: str) -> list[Drawn]:
        if not data.jobs:
            return []
        unit = label.format(unit=data.time_unit)
        figure = schedule_plots.plot_cdf(data.jobs, column, unit)
        caption = f"distribution of {unit} over the jobs that ran: {data.described}"
        return [Drawn(f"{data.prefix}-{column.replace('_', '-')}-cdf.png", figure, caption)]

    return draw


def _breakdown(by: str) -> Callable[[Schedules, str], list[Drawn]]:
    def draw(data: Schedules, baseline: str) -> list[Drawn]:
        if not data.jobs:
            return []
        if by == "user":
            first = next(iter(data.jobs.values()))
            if not (first["user_id"] >= 0).any():
                return []
            figure = schedule_plots.plot_wait_by_user(data.jobs, data.time_unit)
        else:
            figure = schedule_plots.plot_wait_by_size(data.jobs, data.time_unit)
        return [Drawn(f"{data.prefix}-wait-by-{by}.png", figure,
                      f"mean wait by {by}: {data.described}")]  # fmt: skip

    return draw


def _samples(data: Schedules, baseline: str) -> list[Drawn]:
    if data.progress.empty:
        return []
    return [Drawn(f"{data.prefix}-samples-over-time.png",
                  plots.plot_samples_over_time(data.progress),
                  f"samples completed and pilots over time: {data.described}")]  # fmt: skip


def _energy(data: Schedules, baseline: str) -> list[Drawn]:
    """Busy power over time, and electricity cost and carbon over time with their signals,
    for a run with a power model (docs/energy.md)."""
    runs = {policy: jobs for policy, jobs in data.jobs.items() if "energy_kwh" in jobs}
    if not runs:
        return []
    drawn = [Drawn(f"{data.prefix}-power.png",
                   energy_plots.plot_busy_power(runs, data.time_unit,
                                                cap=energy_plots.scenario_cap(data.scenario)),
                   f"busy power of the running jobs over time: {data.described}")]  # fmt: skip
    signals = energy_plots.scenario_signals(data.scenario)
    if signals is not None:
        figure = energy_plots.plot_signal_rates(runs, *signals, data.time_unit)
        caption = (
            "electricity cost and carbon per hour of the running jobs, the price and "
            f"the carbon intensity behind them: {data.described}"
        )
        drawn.append(Drawn(f"{data.prefix}-electricity-carbon.png", figure, caption))
    return drawn


#: Schedule figures a kind may declare, by name.
FIGURES: dict[str, Callable[[Schedules, str], list[Drawn]]] = {
    "gantt": _gantt,
    "utilisation": _timeline("utilisation"),
    "queue_length": _timeline("queue_length"),
    "wait_cdf": _cdf("wait_time", "wait ({unit})"),
    "slowdown_cdf": _cdf("bounded_slowdown", "bounded slowdown (ratio)"),
    "wait_by_size": _breakdown("size"),
    "wait_by_user": _breakdown("user"),
    "samples_over_time": _samples,
    "energy": _energy,
}


def schedule_figures(
    results: Results, declaration: KindDeclaration, baseline: str, prefix: str
) -> list[Drawn]:
    """The schedule figures the kind declares, drawn from one run per policy."""
    data = schedules(results, declaration, prefix)
    return [drawn for name in declaration.figures for drawn in FIGURES[name](data, baseline)]


__all__ = ["FIGURES", "Drawn", "run_figures", "run_selection", "schedule_figures"]
