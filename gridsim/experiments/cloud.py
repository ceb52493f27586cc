"""Scenario kind ``cloud``: self-schedulers on a federation of clouds through pilot jobs [RRM].

Consumes a validated :class:`CloudScenario` (its sections are the parameters of
:mod:`gridsim.cloud.config`) and a replication's ``SeedSequence``; produces pandas tables
(``runs``, ``tasks``, ``progress``) and their summary. ``run_replication`` runs every policy of
the scenario on the same random instance (common random numbers), ``summarise`` turns the
``runs`` rows of all replications into per-policy means with 95% confidence half-widths, and
``paired_makespan_ratio`` compares two policies replication by replication.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, field_validator

from gridsim.analysis.stats import confidence_half_width, summarise_by
from gridsim.cloud.config import (
    ApplicationSection,
    FrameworkSection,
    NoiseSection,
    PolicySpec,
    ProviderSection,
    policy_label,
)
from gridsim.cloud.simulation import OUTCOME_OK, RunRecord, simulate
from gridsim.experiments import feasibility
from gridsim.experiments.kinds import KindDeclaration
from gridsim.experiments.rejections import Count

__all__ = [
    "DECLARATION",
    "CloudScenario",
    "paired_makespan_ratio",
    "run_replication",
    "summarise",
]

_KEYS = ("scenario", "replication", "policy")

#: Columns `gridsim run` prints (the summary holds all of them).
DISPLAY_METRICS = ["makespan_s", "samples_completed", "tasks", "failed_tasks", "mean_pilots"]


def _with_pilot_hours(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs with ``k_samples_per_pilot_hour``, the unit of [RRM]'s throughput figures."""
    hourly = runs["throughput_samples_per_s"] * 3600 / 1000
    return runs.assign(k_samples_per_pilot_hour=hourly / runs["mean_pilots"])


#: What the report and the commands read of this kind (:class:`KindDeclaration`); `gridsim
#: run` compares every policy with the first on the makespan, replication by replication
#: ([RRM, Sec. 5.2] reports how much longer runs without DyTSS last).
DECLARATION = KindDeclaration(
    report_metrics=("makespan_s", "samples_completed", "failed_tasks", "mean_pilots"),
    paired_metrics=("makespan_s",),
    bar_metrics=("makespan_s",),
    advantage_metric="makespan_s",
    labels={
        "makespan_s": "makespan (s)",
        "mean_pilots": "mean pilots enrolled",
        "failed_tasks": "failed tasks",
        "samples_completed": "samples completed",
    },
    figures=("samples_over_time",),
    time_unit="s",
    check_feasible=feasibility.check_cloud,
    comparable_runs=_with_pilot_hours,
)
#: What a run can fail to do, counted under the summary (:mod:`gridsim.experiments.rejections`).
REJECTIONS = (
    Count("finished", None, "runs unfinished", "samples were left at framework.horizon_s"),
)


class CloudScenario(BaseModel):
    """A whole YAML document of kind ``cloud``; see docs/cloud.md for the schema."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    kind: Literal["cloud"]
    seed: Annotated[int, Field(ge=0)]
    replications: PositiveInt
    policies: tuple[PolicySpec, ...]
    application: ApplicationSection = ApplicationSection()
    framework: FrameworkSection = FrameworkSection()
    noise: NoiseSection = NoiseSection()
    providers: tuple[ProviderSection, ...]
    description: str = ""

    @field_validator("policies")
    @classmethod
    def _policies(cls, policies: tuple[PolicySpec, ...]) -> tuple[PolicySpec, ...]:
        if not policies:
            raise ValueError("expected at least one policy")
        labels = [policy_label(policy) for policy in policies]
        if len(set(labels)) != len(labels):
            raise ValueError(f"policies must be distinct, got {labels}")
        return policies

    @field_validator("providers")
    @classmethod
    def _providers(cls, providers: tuple[ProviderSection, ...]) -> tuple[ProviderSection, ...]:
        if not providers:
            raise ValueError("expected at least one provider")
        names = [provider.name for provider in providers]
        if len(set(names)) != len(names):
            raise ValueError(f"provider names must be unique, got {names}")
        return providers


def replication_seeds(
    seed: np.random.SeedSequence,
) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """The instance and noise seeds of a replication, identical for every policy.

    Spawning works on a copy, so calling this twice with the same ``seed`` gives the same pair.
    """
    base = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
    instance_seed, noise_seed = base.spawn(2)
    return instance_seed, noise_seed


def _run_row(scenario: CloudScenario, record: RunRecord) -> dict[str, object]:
    tasks = record.tasks
    failed = [t for t in tasks if t["outcome"] != OUTCOME_OK]
    completed = [t for t in tasks if t["outcome"] == OUTCOME_OK]
    makespan = record.makespan_s
    return {
        "makespan_s": makespan,
        "finished": record.finished,
        "samples_requested": record.samples_requested,
        "samples_completed": record.samples_completed,
        "tasks": len(tasks),
        "completed_tasks": len(completed),
        "failed_tasks": len(failed),
        "samples_lost_in_failures": int(sum(t["samples"] for t in failed)),
        "mean_samples_per_task": (
            float(np.mean([t["samples"] for t in completed])) if completed else np.nan
        ),
        "mean_pilots": record.pilot_seconds / makespan if makespan > 0 else np.nan,
        "pilots_enrolled_total": record.pilots_enrolled_total,
        "vms_requested": record.vms_requested,
        "vm_requests_refused": record.vm_requests_refused,
        "vm_start_failures": record.vm_start_failures,
        "throughput_samples_per_s": record.samples_completed / makespan if makespan > 0 else 0.0,
    }


def run_replication(
    scenario: CloudScenario, replication: int, seed: np.random.SeedSequence
) -> dict[str, pd.DataFrame]:
    """Run every policy of ``scenario`` on replication ``replication``'s random instance.

    Args:
        scenario: validated scenario of kind ``cloud``.
        replication: index stored in the tables.
        seed: this replication's seed; two child seeds (instance, noise) are spawned from a copy
            and shared by all policies, so differences between policies are not sampling noise
            of the instance.

    Returns:
        ``{"runs": one row per policy, "tasks": per-task trace, "progress": samples completed
        and pilots enrolled after every change}``; every row carries ``scenario``,
        ``replication`` and ``policy``. Same seed, same numbers, bit for bit.
    """
    instance_seed, noise_seed = replication_seeds(seed)
    runs, tasks, progress = [], [], []
    for policy in scenario.policies:
        label = policy_label(policy)
        keys = {"scenario": scenario.name, "replication": replication, "policy": label}
        record = simulate(scenario, policy, instance_seed, noise_seed)
        runs.append({**keys, **_run_row(scenario, record)})
        task_table = pd.DataFrame.from_records(record.tasks, columns=_TASK_COLUMNS)
        tasks.append(task_table.assign(**keys))
        progress_table = pd.DataFrame(
            record.progress, columns=["time_s", "samples_completed", "pilots"]
        )
        progress.append(progress_table.assign(**keys))
    return {
        "runs": pd.DataFrame(runs),
        "tasks": _keys_first(pd.concat(tasks, ignore_index=True)),
        "progress": _keys_first(pd.concat(progress, ignore_index=True)),
    }


_TASK_COLUMNS = [
    "task_id",
    "provider",
    "pilot_id",
    "samples",
    "submit_s",
    "start_s",
    "end_s",
    "outcome",
    "predicted_turnaround_s",
    "execution_s",
]


def _keys_first(table: pd.DataFrame) -> pd.DataFrame:
    return table[[*_KEYS, *[c for c in table.columns if c not in _KEYS]]]


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Per policy (and scenario): mean and 95% CI half-width of every numeric metric.

    Returns:
        One row per ``(scenario, policy)`` with ``runs`` (replications) and, for each numeric column
        ``x`` of ``runs`` (``makespan_s`` first), ``x_mean`` and ``x_ci95``.
    """
    metrics = [
        c
        for c in runs.columns
        if c not in _KEYS and pd.api.types.is_numeric_dtype(runs[c]) and runs[c].dtype != bool
    ]
    return summarise_by(runs, ["scenario", "policy"], metrics)


def paired_makespan_ratio(runs: pd.DataFrame, baseline: str, policy: str) -> dict[str, float]:
    """How much longer ``baseline`` lasts than ``policy``, paired over replications.

    [RRM, Sec. 5.2] reports that runs without DyTSS "would last 8-13% more"; this is
    ``makespan(baseline) / makespan(policy) - 1`` per replication, then its mean and 95% CI.
    Also returns the reduction ``1 - makespan(policy) / makespan(baseline)``.
    """
    table = runs.pivot_table(
        index=["scenario", "replication"], columns="policy", values="makespan_s"
    )
    longer = (table[baseline] / table[policy] - 1.0).to_numpy()
    shorter = (1.0 - table[policy] / table[baseline]).to_numpy()
    return {
        "replications": float(len(longer)),
        "baseline_longer_mean": float(np.mean(longer)),
        "baseline_longer_ci95": confidence_half_width(longer),
        "reduction_mean": float(np.mean(shorter)),
        "reduction_ci95": confidence_half_width(shorter),
        "policy_better_share": float(np.mean(shorter > 0)),
    }
