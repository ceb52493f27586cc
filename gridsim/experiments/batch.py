"""Scenario kind ``batch``: the batch-cycle experiment of [TYTB11, Sec. 5].

Consumes a validated ``BatchScenario`` and one ``SeedSequence`` per replication (one cycle);
produces pandas tables: ``runs`` (one row per policy and goal) and ``jobs`` (the alternative
chosen for each job). ``summarise`` turns the runs of many cycles into the paper's comparison.

Every policy of a cycle sees the same slot list and the same batch (common random numbers). A
cycle is counted, as in the paper, only when every job has an alternative under every policy.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, field_validator, model_validator

from gridsim.analysis.jobflow_metrics import job_metrics
from gridsim.analysis.stats import mean_interval
from gridsim.experiments import feasibility
from gridsim.experiments.kinds import JobsOfSchema1, KindDeclaration
from gridsim.experiments.rejections import Count
from gridsim.scheduling.batch.cycle import find_alternatives
from gridsim.scheduling.batch.optimise import (
    Combination,
    budget_limit,
    minimise_cost,
    minimise_time,
    time_limit,
)
from gridsim.scheduling.batch.search import SEARCHES
from gridsim.scheduling.batch.window import BatchJob, RoughWindow
from gridsim.sim.trace import in_schema_order, interval_set
from gridsim.workloads.batch_generators import (
    BatchParameters,
    SlotListParameters,
    generate_batch,
    generate_slot_list,
)

Goal = Literal["time", "cost"]
#: What a run can fail to do, counted under the summary (:mod:`gridsim.experiments.rejections`).
REJECTIONS = (
    Count("jobs_without_alternative", "jobs", "jobs without an alternative",
          "no slots meet the job's size, minimum performance and price cap"),
    Count("feasible", None, "cycles without a choice",
          "a job had no alternative, or no combination met the goal's limit"),
)  # fmt: skip


def comparable_cycles(runs: pd.DataFrame) -> pd.DataFrame:
    """The cycles the paper counts -- every job has an alternative under every policy --
    with ``comparable``: every policy met the goal's limit in that cycle, so totals are
    compared there (docs/batch.md)."""
    keys = [*(["run"] if "run" in runs.columns else []), "replication"]
    runs = runs[runs.groupby(keys)["all_jobs_served"].transform("all")].copy()
    runs["comparable"] = runs.groupby([*keys, "goal"])["feasible"].transform("all")
    return runs


#: What the report and the commands read of this kind (:class:`KindDeclaration`).
DECLARATION = KindDeclaration(
    report_metrics=("total_time", "total_cost", "alternatives_per_job"),
    paired_metrics=("total_time", "total_cost"),
    bar_metrics=("total_time", "total_cost"),
    labels={
        "total_time": "total batch time (time units)",
        "total_cost": "total cost (money)",
        "alternatives_per_job": "alternatives per job",
    },
    check_feasible=feasibility.check_batch,
    comparable_runs=comparable_cycles,
    jobs_of_schema_1=JobsOfSchema1(
        {
            "job": "job_id",
            "requested_nodes": "processors",
            "runtime": "requested_time",
            "start": "start_time",
            "time": "run_time",
        }
    ),
)


def _positive_range(value: tuple[float, float]) -> tuple[float, float]:
    """Field check of a [low, high] range whose numbers must be positive."""
    if value[0] <= 0:
        raise ValueError(f"expected positive numbers, got {value}")
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="after")
    def _ranges_are_ordered(self) -> _Section:
        for name, value in self:
            if isinstance(value, tuple) and len(value) == 2 and value[0] > value[1]:
                raise ValueError(f"{name}: expected [low, high] with low <= high, got {value}")
        return self


class SlotListSection(_Section):
    """``slots:`` of the scenario: the slot-list generator (defaults of the paper)."""

    count: tuple[PositiveInt, PositiveInt] = (120, 150)
    length: tuple[float, float] = Field((50.0, 300.0))
    performance: tuple[float, float] = (1.0, 3.0)
    same_start_probability: float = Field(0.4, ge=0.0, le=1.0)
    gap: tuple[float, float] = (0.0, 10.0)
    price_spread: tuple[float, float] = (0.75, 1.25)
    price_base: float = Field(1.7, gt=0.0)

    _positive = field_validator("length", "performance", "price_spread")(_positive_range)

    def parameters(self) -> SlotListParameters:
        return SlotListParameters(**self.model_dump())


class JobBatchSection(_Section):
    """``jobs:`` of the scenario: the job-batch generator (defaults of the paper and ours)."""

    count: tuple[PositiveInt, PositiveInt] = (3, 7)
    nodes: tuple[PositiveInt, PositiveInt] = (1, 6)
    runtime: tuple[float, float] = (50.0, 150.0)
    min_performance: tuple[float, float] = (1.0, 2.0)
    price_markup: tuple[float, float] = (1.0, 1.25)
    #: What ``runtime`` is (docs/model.md, "Batch job length"): the time on a node of the
    #: minimum performance, or the job's work.
    length: Literal["time", "work"] = "time"

    _positive = field_validator("runtime", "min_performance", "price_markup")(_positive_range)

    def parameters(self, price_base: float) -> BatchParameters:
        return BatchParameters(**self.model_dump(), price_base=price_base)


class PolicySpec(BaseModel):
    """One entry of ``policies:``: a window search by name (``ALP`` or ``AMP``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str

    @field_validator("name")
    @classmethod
    def _known(cls, name: str) -> str:
        if name not in SEARCHES:
            close = difflib.get_close_matches(name.upper(), SEARCHES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown batch policy {name!r} (known: {sorted(SEARCHES)}){hint}")
        return name


class BatchScenario(BaseModel):
    """A whole scenario document of kind ``batch``; see docs/batch.md for the schema."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    kind: Literal["batch"]
    description: str = ""
    seed: int
    replications: PositiveInt
    policies: tuple[PolicySpec, ...] = Field(min_length=1)
    goals: tuple[Goal, ...] = Field(("time", "cost"), min_length=1)
    slots: SlotListSection = SlotListSection()
    jobs: JobBatchSection = JobBatchSection()
    #: What ``total_time`` and ``total_cost`` hold: the batch's sums ``T(s)`` and ``C(s)``,
    #: or their means per job of the batch (docs/model.md, "Batch totals").
    totals: Literal["batch", "per_job"] = "batch"


def run_replication(
    scenario: BatchScenario, replication: int, seed: np.random.SeedSequence
) -> dict[str, pd.DataFrame]:
    """One scheduling cycle: every policy and goal on the same slot list and batch.

    Args:
        scenario: the validated scenario.
        replication: index of the cycle, copied into every row.
        seed: this cycle's seed; it is not consumed (children are derived from its spawn key),
            so the same seed gives the same numbers bit for bit.

    Returns:
        ``"runs"``: one row per policy and goal; ``"jobs"``: one row per policy, goal and job.
    """
    slot_rng, batch_rng = (
        np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k)))
        for k in range(2)
    )
    profile = generate_slot_list(slot_rng, scenario.slots.parameters())
    jobs = generate_batch(batch_rng, scenario.jobs.parameters(scenario.slots.price_base))
    slot_count = len(profile.slot_table())
    found = {
        policy.name: find_alternatives(profile, jobs, SEARCHES[policy.name])
        for policy in scenario.policies
    }
    counted = all(all(alternatives) for alternatives in found.values())
    common = {"scenario": scenario.name, "replication": replication}
    runs, job_rows = [], []
    per = len(jobs) if scenario.totals == "per_job" else 1
    for policy, alternatives in found.items():
        for goal in scenario.goals:
            limits, chosen = _optimise(alternatives, goal)
            runs.append(
                {
                    **common,
                    "policy": policy,
                    "goal": goal,
                    "slots": slot_count,
                    "jobs": len(jobs),
                    "jobs_served": sum(1 for windows in alternatives if windows),
                    "jobs_without_alternative": sum(1 for windows in alternatives if not windows),
                    "all_jobs_served": all(alternatives),
                    "counted": counted,
                    "alternatives": sum(len(windows) for windows in alternatives),
                    "alternatives_per_job": sum(map(len, alternatives)) / len(jobs),
                    "time_limit": limits[0],
                    "budget_limit": limits[1],
                    "feasible": chosen is not None,
                    "total_time": np.nan if chosen is None else chosen.total_time / per,
                    "total_cost": np.nan if chosen is None else chosen.total_cost / per,
                }
            )
            job_rows.extend(_job_rows(common, policy, goal, jobs, alternatives, chosen))
    jobs_table = in_schema_order(job_metrics(pd.DataFrame(job_rows)))
    return {"runs": pd.DataFrame(runs), "jobs": jobs_table}


def _optimise(
    alternatives: list[list[RoughWindow]], goal: Goal
) -> tuple[tuple[float, float], Combination | None]:
    """``(T*, B*)`` and the optimal combination for ``goal``; NaN/None where undefined."""
    if not all(alternatives):
        return (np.nan, np.nan), None
    pairs = [[(window.cost, window.time) for window in windows] for windows in alternatives]
    limit_time = time_limit(pairs)
    limit_budget = budget_limit(pairs, limit_time)
    limits = (limit_time, np.nan if limit_budget is None else limit_budget)
    if goal == "cost":
        return limits, minimise_cost(pairs, limit_time)
    if limit_budget is None:
        return limits, None
    return limits, minimise_time(pairs, limit_budget)


def _job_rows(
    common: dict[str, object],
    policy: str,
    goal: Goal,
    jobs: Sequence[BatchJob],
    alternatives: list[list[RoughWindow]],
    chosen: Combination | None,
) -> list[dict[str, object]]:
    rows = []
    for index, (job, windows) in enumerate(zip(jobs, alternatives, strict=True)):
        window = None if chosen is None else windows[chosen.choice[index]]
        start = np.nan if window is None else window.start
        run_time = np.nan if window is None else window.time
        rows.append(
            {
                **common,
                "policy": policy,
                "goal": goal,
                # the jobs table of every kind (gridsim.sim.trace.JOB_COLUMNS); the whole
                # batch is submitted when the cycle starts, at time 0
                "job_id": index,
                "user_id": -1,
                "submit_time": 0.0,
                "start_time": start,
                "finish_time": start + run_time,
                "run_time": run_time,
                "requested_time": job.runtime,
                "processors": job.n,
                "allocated_resources": "" if window is None else interval_set(window.nodes),
                "cost": np.nan if window is None else window.cost,
                "final_state": "rejected" if window is None else "finished",
                "reason": ""
                if window is not None
                else ("no alternative" if not windows else "no combination meets the goal"),
                "first_reservation": start,
                "min_performance": job.min_performance,
                "price_cap": job.price_cap,
                "alternatives": len(windows),
                "chosen": -1 if chosen is None else chosen.choice[index],
            }
        )
    return rows


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Per scenario, policy and goal: means and 95% CI half-widths over the counted cycles.

    A cycle (scenario, replication) counts when every job has an alternative under every
    policy. Means of ``total_time`` and ``total_cost`` are over the counted cycles in which
    every policy met the goal's limit (``T*``/``B*`` reached by some combination), so the
    policies are compared on the same cycles. ``alternatives_per_job_pooled`` is the
    paper's measure: all alternatives found over all jobs of the counted cycles.
    """
    runs = runs.reset_index(drop=True)
    served = runs.groupby(["scenario", "replication"])["all_jobs_served"].transform("all")
    counted = runs[served].copy()
    # Totals are compared on the same cycles: those whose limit every policy could meet.
    counted["comparable"] = counted.groupby(["scenario", "replication", "goal"])[
        "feasible"
    ].transform("all")
    rows = []
    for (scenario, policy, goal), group in counted.groupby(["scenario", "policy", "goal"]):
        feasible = group[group["comparable"]]
        row: dict[str, object] = {
            "scenario": scenario,
            "policy": policy,
            "goal": goal,
            "cycles": len(group),
            "feasible_cycles": len(feasible),
            "alternatives_per_job_pooled": group["alternatives"].sum() / group["jobs"].sum(),
        }
        for column, source in (
            ("total_time", feasible),
            ("total_cost", feasible),
            ("alternatives_per_job", group),
            ("jobs", group),
        ):
            mean, half, _count = mean_interval(source[column].to_numpy(dtype=float))
            row[f"{column}_mean"] = mean
            row[f"{column}_ci95"] = half
        rows.append(row)
    return pd.DataFrame(rows)
