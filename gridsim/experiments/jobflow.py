"""Scenario kind ``jobflow``: a job flow under conservative backfilling, one run per policy
[TY20, Sec. 4.2]; ``scheduler`` may name FCFS, EASY or a plugin planner instead.

Consumes a :class:`JobFlowScenario`; per replication and queue size it draws one instance
(nodes, local load, jobs, runtime factors, arrival draws) and simulates every policy on that
same instance (common random numbers). Produces three tables, each with ``queue_size``,
``policy`` and ``replication`` columns: ``runs`` (one row per simulation, metrics of
:mod:`gridsim.analysis.jobflow_stats`), ``jobs`` and ``tasks`` (the traces of
:mod:`gridsim.sim.trace`).

Arrival models: ``static`` (the whole queue at time 0), ``uniform`` (``U[0, span]``), ``list``
(given times), ``static_makespan_fraction``: ``U[0, fraction * M]`` where ``M`` is the
makespan of the reference policy on the same instance with a static queue -- our reading of
[TY20, Table 3] "arrivals over half of the makespan of the first experiment" -- and
``poisson``: a Poisson process at a ``rate`` or at the rate that offers a target
``utilisation`` of the environment (:func:`poisson_rate`; docs/jobflow.md); ``workload``: the
arrival times of the workload model.

Job source: ``jobs`` draws sizes and volumes uniformly [TY20]; ``workload: {model: lublin,
...}`` draws them from the Lublin-Feitelson model instead (:mod:`gridsim.workloads.lublin`):
sizes, and volumes = run time x ``reference_performance`` (the performance of the nodes the
model's run times are taken on), with the arrival times ``arrivals: {model: workload}`` uses.

Faults (``faults:``, :mod:`gridsim.faults`, off by default) are drawn once per instance from
their own seed, a child of the instance's, and every policy meets them; the reference run of
``static_makespan_fraction`` has none.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field, field_validator, model_validator

from gridsim.analysis import export
from gridsim.analysis.jobflow_metrics import job_metrics
from gridsim.analysis.jobflow_stats import RUN_METRICS, add_advantage, run_metrics
from gridsim.analysis.stats import baseline_policy, summarise_by
from gridsim.config import Range, ScenarioBase, Strict
from gridsim.energy.accounting import account_flow
from gridsim.energy.model import energy_metrics
from gridsim.experiments import feasibility
from gridsim.experiments.jobflow_power_cap import check_power_cap, flow_power_limit, over_cap_count
from gridsim.experiments.kinds import JobsOfSchema1, KindDeclaration
from gridsim.experiments.rejections import Count
from gridsim.experiments.window_search import EnvironmentConfig, LoadConfig
from gridsim.faults.config import FaultsConfig
from gridsim.faults.draws import draw_faults, instance_fault_seed
from gridsim.model import Job
from gridsim.scheduling.queue_policies import SchedulerSpec
from gridsim.selection.energy_criteria import bind_energy, power_needed
from gridsim.selection.registry import CriterionError, PolicySpecs, build_criterion
from gridsim.sim.engine import Instance, simulate
from gridsim.sim.fault_engine import simulate_with_faults
from gridsim.sim.trace import in_schema_order
from gridsim.workloads.environment import generate_environment
from gridsim.workloads.lublin import expected_work, lublin_jobs
from gridsim.workloads.models import LublinModel

METRICS = [*RUN_METRICS, "finish_advantage_pct", "sim_time_s"]
#: What a run can fail to do, counted under the summary (:mod:`gridsim.experiments.rejections`).
REJECTIONS = (
    Count("jobs_rejected_too_wide", "queue_size", "jobs rejected", "wider than the machine"),
    Count("jobs_rejected_no_window", "queue_size", "jobs rejected",
          "no window fits (too few nodes fast enough, or over budget)"),
    Count("jobs_rejected_over_power_cap", "queue_size", "jobs rejected",
          "their least-drawing nodes draw more than the power cap's lowest value"),
    Count("jobs_failed", "queue_size", "jobs failed",
          "killed by faults more often than the retry limit allows"),
)  # fmt: skip
#: Columns `gridsim run` prints (all of METRICS are in summary.csv).
DISPLAY_METRICS = ["mean_finish", "finish_advantage_pct", "makespan", "mean_wait",
                   "mean_bounded_slowdown", "mean_cost", "utilisation"]  # fmt: skip
#: Schedule figures of every run (:data:`gridsim.analysis.figures.FIGURES`).
SCHEDULE_FIGURES = ("gantt", "utilisation", "queue_length", "wait_cdf", "slowdown_cdf",
                    "wait_by_size", "energy")  # fmt: skip
#: What the report and the commands read of this kind (:class:`KindDeclaration`).
DECLARATION = KindDeclaration(
    report_metrics=(
        "mean_finish",
        "makespan",
        "mean_wait",
        "mean_response",
        "mean_bounded_slowdown",
        "utilisation",
        "mean_cost",
        "jobs_not_finished",
    ),
    paired_metrics=("mean_finish", "mean_wait", "mean_bounded_slowdown", "mean_cost"),
    bar_metrics=("mean_finish",),
    advantage_metric="mean_finish",
    labels={
        "mean_finish": "mean job finish time (time units)",
        "makespan": "makespan (time units)",
        "mean_wait": "mean wait (time units)",
        "mean_response": "mean response (time units)",
        "mean_slowdown": "mean slowdown (ratio)",
        "mean_bounded_slowdown": "mean bounded slowdown (ratio)",
        "mean_cost": "mean job cost (money)",
        "total_cost": "total cost (money)",
        "utilisation": "utilisation (fraction of free node-time)",
        "finish_advantage_pct": "finish-time advantage over baseline (%)",
        "jobs_not_finished": "jobs not finished",
    },
    figures=SCHEDULE_FIGURES,
    trace_commands=("gantt", "export", "explore"),
    machine_size=lambda scenario, runs: int(scenario["environment"]["nodes"]),
    check_feasible=feasibility.check_jobflow,
    jobs_of_schema_1=JobsOfSchema1(
        {
            "arrival": "submit_time",
            "start": "start_time",
            "finish": "finish_time",
            "runtime": "run_time",
            "planned_runtime": "requested_time",
            "n": "processors",
            "nodes": "allocated_resources",
            "first_promised_start": "first_reservation",
            "wait": "wait_time",
        },
        threshold_field="slowdown_threshold",
    ),
    swf_export=export.jobflow_swf,
)
#: ``queue_sizes: [50, 100]`` is the grid ``sweep: {queue_size: [50, 100]}``: each point of
#: an experiment holds one queue size (:mod:`gridsim.experiments.grid`).
GRID_SHORTHANDS = {"queue_size": "queue_sizes"}


class JobsConfig(Strict):
    """How jobs are drawn [TY20, Sec. 4.2]: ``n`` and ``volume`` uniform."""

    n: tuple[int, int] = (1, 8)
    volume: Range = Range(low=60, high=1200)
    budget: float = Field(math.inf, gt=0)
    min_performance: float = Field(0.0, ge=0)
    runtime_factor: Range = Range(low=1, high=1)

    @field_validator("n")
    @classmethod
    def _sizes(cls, value: tuple[int, int]) -> tuple[int, int]:
        if value[0] < 1 or value[1] < value[0]:
            raise ValueError(f"expected [low, high] with 1 <= low <= high, got {list(value)}")
        return value

    @field_validator("runtime_factor", "volume")
    @classmethod
    def _positive(cls, value: Range) -> Range:
        if value.low <= 0:
            raise ValueError(f"must be positive, got low={value.low}")
        return value


class ArrivalsConfig(Strict):
    """When jobs arrive (models in the module docstring).

    Attributes:
        rate: ``poisson``: arrivals per time unit.
        utilisation: ``poisson``, instead of ``rate``: the offered load, the share of the
            environment's processing capacity the arriving work asks for (above 1: overload).
    """

    model: Literal[
        "static", "uniform", "list", "static_makespan_fraction", "poisson", "workload"
    ] = "static"
    span: float | None = Field(None, gt=0)
    times: list[float] | None = None
    fraction: float = Field(0.5, gt=0)
    reference_policy: str = "BFfinish"
    rate: float | None = Field(None, gt=0)
    utilisation: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _complete(self) -> ArrivalsConfig:
        if self.model == "poisson" and (self.rate is None) == (self.utilisation is None):
            raise ValueError("model poisson needs either rate (jobs per time unit) or utilisation")
        if self.model != "poisson" and (self.rate is not None or self.utilisation is not None):
            raise ValueError(f"rate and utilisation apply to model poisson, not {self.model}")
        if self.model == "uniform" and self.span is None:
            raise ValueError("model uniform needs span (time units)")
        if self.model == "list" and not self.times:
            raise ValueError("model list needs times")
        if self.times and min(self.times) < 0:
            raise ValueError("arrival times must be >= 0")
        return self


class JobFlowWorkload(LublinModel):
    """``workload: {model: lublin, ...}``: jobs from the Lublin-Feitelson model (module
    docstring); ``jobs`` is not read (the queue size says how many), and
    ``reference_performance`` turns the model's run times (s) into volumes."""

    jobs: int = Field(1, ge=1)  # the queue sizes say how many
    reference_performance: float = Field(1.0, gt=0)

    @model_validator(mode="after")
    def _no_job_count(self) -> JobFlowWorkload:
        if "jobs" in self.model_fields_set:
            raise ValueError("jobs: a job flow draws as many jobs as its queue_sizes say")
        return self


def _default_environment() -> EnvironmentConfig:
    return EnvironmentConfig(
        nodes=32, performance=Range(low=2, high=16), local_load=LoadConfig(max_utilisation=0)
    )


class JobFlowScenario(ScenarioBase):
    kind: Literal["jobflow"]
    environment: EnvironmentConfig = Field(default_factory=_default_environment)
    jobs: JobsConfig = JobsConfig()
    arrivals: ArrivalsConfig = ArrivalsConfig()
    queue_sizes: list[int] = Field(min_length=1)
    priority: Literal["fcfs", "sjf"] = "fcfs"
    scheduler: SchedulerSpec = "conservative"
    policies: PolicySpecs
    #: The policy the others are compared with; none named: the first policy, as in every
    #: kind's ``paired`` table and report (:func:`gridsim.analysis.stats.baseline_policy`).
    baseline: str | None = None
    slowdown_threshold: float = Field(10.0, gt=0)
    faults: FaultsConfig = FaultsConfig()
    workload: JobFlowWorkload | None = None
    #: A discrete-time simulator's clock tick: runtimes and arrival times are rounded up to
    #: whole multiples of it; 0 keeps time continuous (docs/model.md, "Discrete time").
    time_quantum: float = Field(0.0, ge=0)

    @field_validator("environment")
    @classmethod
    def _edge(cls, value: EnvironmentConfig) -> EnvironmentConfig:
        if value.horizon_start_edge != "neighbour":
            raise ValueError("horizon_start_edge: job flows start at time 0 with idle nodes; "
                             "only 'neighbour' applies")  # fmt: skip
        return value

    @field_validator("queue_sizes")
    @classmethod
    def _sizes(cls, value: list[int]) -> list[int]:
        if min(value) < 1 or len(set(value)) != len(value):
            raise ValueError(f"expected distinct positive queue sizes, got {value}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> JobFlowScenario:
        labels = [c.label for c in self.criteria()]
        if self.baseline is not None and self.baseline not in labels:
            raise ValueError(f"baseline: {self.baseline!r} is not one of the policies {labels}")
        times = self.arrivals.times
        if self.arrivals.model == "list" and times and len(times) < max(self.queue_sizes):
            raise ValueError(f"arrivals.times has {len(times)} times, fewer than the queue")
        try:
            build_criterion(self.arrivals.reference_policy)
        except CriterionError as error:
            raise ValueError(f"arrivals.reference_policy: {error}") from None
        self.faults.check_nodes(self.environment.nodes)
        power_needed(self.criteria(), self.environment.power is not None, "environment.power")
        check_power_cap(self)
        if self.arrivals.model == "workload" and self.workload is None:
            raise ValueError("arrivals: model workload takes the arrival times of a workload "
                             "model; give workload: {model: lublin, ...}")  # fmt: skip
        if self.workload is not None and self.workload.machine_processors > self.environment.nodes:
            raise ValueError(f"workload.machine_processors: {self.workload.machine_processors} "
                             f"processors, more than the environment's {self.environment.nodes} "
                             "nodes (the model draws jobs up to its machine's size)")  # fmt: skip
        if self.faults.enabled and self.scheduler != "conservative":
            raise ValueError(
                f"scheduler {self.scheduler!r} does not take faults: only conservative "
                "backfilling re-plans around them (docs/model.md, Faults)"
            )
        return self

    def criteria(self):
        return [build_criterion(spec) for spec in self.policies]


def generate_instance(
    scenario: JobFlowScenario, queue_size: int, rng: np.random.Generator
) -> tuple[Instance, np.ndarray]:
    """Nodes, local load and ``queue_size`` jobs with static arrivals, plus arrival draws:
    U[0,1) draws scaled by the arrival model, or a workload model's arrival times. Draw
    order is fixed: environment, n, volume (or the workload model's jobs), runtime factor,
    arrival draws.
    """
    environment = generate_environment(scenario.environment.spec(), rng)
    spec = scenario.jobs
    if scenario.workload is None:
        sizes = rng.integers(spec.n[0], spec.n[1] + 1, size=queue_size)
        volumes = rng.uniform(*spec.volume.as_tuple(), size=queue_size)
    else:
        flow = lublin_jobs(rng, queue_size, scenario.workload.parameters())
        sizes = flow["processors"].to_numpy()
        volumes = flow["run_time"].to_numpy() * scenario.workload.reference_performance
    factors = rng.uniform(*spec.runtime_factor.as_tuple(), size=queue_size)
    draws = rng.uniform(0.0, 1.0, size=queue_size)
    if scenario.arrivals.model == "workload":
        draws = flow["submit_time"].to_numpy(np.float64)
    jobs = tuple(
        Job(i, 0.0, int(sizes[i]), float(volumes[i]), spec.budget, spec.min_performance,
            float(factors[i]), scenario.time_quantum)
        for i in range(queue_size)
    )  # fmt: skip
    return Instance(environment.nodes, environment.busy, jobs), draws


def with_arrivals(scenario: JobFlowScenario, instance: Instance, draws: np.ndarray) -> Instance:
    """The instance with arrival times from the scenario's arrival model."""
    arrivals = scenario.arrivals
    if arrivals.model == "static":
        return instance
    if arrivals.model == "list":
        times = np.asarray(arrivals.times[: len(instance.jobs)], dtype=float)
    elif arrivals.model == "workload":  # the model's own arrival times, from its time 0
        times = draws - draws.min()
    elif arrivals.model == "uniform":
        times = draws * arrivals.span
    elif arrivals.model == "poisson":  # exponential gaps by inversion of the same draws
        rate = arrivals.rate or poisson_rate(scenario, instance)
        times = np.cumsum(-np.log1p(-draws) / rate)
    else:
        static = simulate(instance, build_criterion(arrivals.reference_policy), scenario.priority)
        makespan = max(record["finish"] for record in static.job_records())
        times = draws * arrivals.fraction * makespan
    if scenario.time_quantum > 0:
        times = np.ceil(times / scenario.time_quantum) * scenario.time_quantum
    jobs = tuple(
        replace(job, arrival=float(t)) for job, t in zip(instance.jobs, times, strict=True)
    )
    return Instance(instance.nodes, instance.busy, jobs)


def poisson_rate(scenario: JobFlowScenario, instance: Instance) -> float:
    """Arrivals per time unit that offer ``arrivals.utilisation`` of the instance's capacity.

    ``rate = utilisation * capacity / E[work]``: a job's work is ``n * volume *
    runtime_factor`` (work units actually processed), its mean taken from the job
    distributions (with a workload model, the model's expected size x run time times the
    reference performance); the capacity is ``sum(p_i * free_i)`` (work units per time
    unit), with ``free_i`` the share of node ``i``'s horizon not taken by local load. Square
    windows run every task at its slowest node's speed, so the node-time jobs hold (the runs
    table's ``utilisation``) is above the offered load.
    """
    jobs = scenario.jobs
    mean_work = (
        (jobs.n[0] + jobs.n[1]) / 2
        * (jobs.volume.low + jobs.volume.high) / 2
        * (jobs.runtime_factor.low + jobs.runtime_factor.high) / 2
    )  # fmt: skip
    if scenario.workload is not None:  # sizes and volumes from the workload model
        mean_work = (expected_work(scenario.workload.parameters())
                     * scenario.workload.reference_performance
                     * (jobs.runtime_factor.low + jobs.runtime_factor.high) / 2)  # fmt: skip
    horizon = scenario.environment.horizon
    capacity = sum(
        node.performance * (1.0 - sum(end - start for start, end in busy) / horizon)
        for node, busy in zip(instance.nodes, instance.busy, strict=True)
    )
    return float(scenario.arrivals.utilisation) * capacity / mean_work


def run_replication(
    scenario: JobFlowScenario, replication: int, seed: np.random.SeedSequence
) -> dict[str, pd.DataFrame]:
    """Every policy on the instance of this replication, for every queue size."""
    runs, jobs, tasks, node_energy = [], [], [], []
    for queue_size in scenario.queue_sizes:
        child = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, queue_size))
        instance, draws = generate_instance(scenario, queue_size, np.random.default_rng(child))
        instance = with_arrivals(scenario, instance, draws)
        labels = dict(scenario=scenario.name, queue_size=queue_size, replication=replication)
        energy = scenario.environment.energy(instance.nodes)
        power = None
        if scenario.environment.power_cap is not None:
            assert energy is not None
            power = flow_power_limit(scenario, instance, energy)
        faults = None
        if scenario.faults.enabled:  # the same faults for every policy (docs/model.md)
            seed_of_faults = instance_fault_seed(child)
            faults = draw_faults(scenario.faults, instance.nodes, instance.busy, seed_of_faults)
        for criterion in scenario.criteria():
            criterion = bind_energy(criterion, energy)
            began = time.perf_counter()
            if faults is None:
                trace = simulate(instance, criterion, scenario.priority, scenario.scheduler, power)
            else:
                trace = simulate_with_faults(instance, criterion, faults, scenario.priority)
            elapsed = time.perf_counter() - began
            job_table = in_schema_order(
                job_metrics(trace.jobs_table(), scenario.slowdown_threshold)
            )
            task_table = task_frame(trace.task_records())
            metrics = run_metrics(job_table, task_table, len(instance.nodes))
            if energy is not None:
                job_table, task_table, totals, nodes = account_flow(job_table, task_table, energy)
                metrics.update(totals)
                if nodes is not None:
                    node_energy.append(nodes.assign(policy=criterion.label, **labels))
            if power is not None:  # counted apart from those no window fits
                over_cap = over_cap_count(job_table)
                metrics["jobs_rejected_no_window"] -= over_cap
                metrics["jobs_rejected_over_power_cap"] = over_cap
            runs.append({**labels, "policy": criterion.label, **metrics, "sim_time_s": elapsed})
            jobs.append(job_table.assign(policy=criterion.label, **labels))
            tasks.append(task_table.assign(policy=criterion.label, **labels))
    run_table = pd.DataFrame(runs)
    baseline = baseline_policy(scenario.baseline, list(dict.fromkeys(run_table["policy"])))
    run_table = add_advantage(run_table, str(baseline))
    tables = {
        "runs": run_table,
        "jobs": pd.concat(jobs, ignore_index=True),
        "tasks": pd.concat(tasks, ignore_index=True),
    }
    if node_energy:  # idle nodes power down: their states per node (docs/energy.md)
        tables["node_energy"] = pd.concat(node_energy, ignore_index=True)
    return tables


#: The tasks table's columns and types (also when a run has no task: every job rejected on
#: a machine without local load).
TASK_COLUMNS = {"job_id": "int64", "node": "int64", "performance": "float64",
                "start": "float64", "end": "float64", "kind": "str"}  # fmt: skip


def task_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """The tasks of one simulation as a table with :data:`TASK_COLUMNS`."""
    if records:
        return pd.DataFrame(records)
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in TASK_COLUMNS.items()})


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Per queue size and policy: mean and 95% CI of every metric."""
    return summarise_by(runs, ["queue_size", "policy"], [*METRICS, *energy_metrics(runs)])
