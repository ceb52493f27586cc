"""Scenario kind ``swf_replay``: a real workload log replayed under FCFS, EASY and
conservative backfilling.

Consumes a :class:`SwfReplayScenario`: the workload (a log of any format gridsim reads --
SWF, a Slurm accounting dump, Batsim JSON, a Parquet jobs table, recognised by content -- or
the bundled KTH-SP2 excerpt, or a flow of a published model, ``workload: {model: lublin}``;
estimates optionally from the Tsafrir model, ``estimates: {model: tsafrir}``), how its
fields map to jobs (:class:`~gridsim.workloads.mapping.SwfMapping`), the machine (the log's
homogeneous machine, or node classes from :mod:`gridsim.workloads.platform`) and the
schedulers. Produces three tables, each with ``scheduler``, ``policy`` and ``replication``:
``runs`` (one row per scheduler: the metrics of :mod:`gridsim.analysis.jobflow_metrics`,
total cost, peak processors, machine size, replay time), ``jobs`` (one row per job: the
jobs table of every kind, :data:`gridsim.sim.trace.JOB_COLUMNS`) and ``users`` (the
metrics per user). A job's cost is the time it held its nodes times their prices (on the
log's machine, processors x run time x the price).

Which engine runs a replay:

* Homogeneous machine (every node the same performance and price): the processor-count
  schedulers of :mod:`gridsim.scheduling.log_schedulers` in the heap loop of
  :mod:`gridsim.sim.log_replay` -- FCFS, EASY and conservative backfilling, exactly the
  classical formulation [MF01]; node ids are given at the actual start.
* Node classes that differ: node identities matter, so the schedulers run on the node-level
  engine (:mod:`gridsim.sim.engine`, SimPy) -- conservative backfilling of
  :mod:`gridsim.scheduling.backfilling`, FCFS and EASY of
  :mod:`gridsim.scheduling.queue_policies` -- with the resource-selection ``policy`` of the
  registry (BFstart, CoP, ...) choosing every window.

A replay of a log is deterministic: replications repeat it. A model's flow, and estimates
drawn from a model, are drawn anew for every replication from its seed.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from gridsim.analysis.jobflow_metrics import (
    LABELS,
    job_metric_columns,
    schedule_summary,
    user_columns,
)
from gridsim.analysis.resource_metrics import LABELS as RESOURCE_LABELS
from gridsim.analysis.resource_metrics import resource_summary
from gridsim.analysis.stats import summarise_by
from gridsim.analysis.tables import Table, arrow_columns, arrow_rows, concat
from gridsim.config import ScenarioBase, ScenarioError
from gridsim.experiments import feasibility
from gridsim.experiments.kinds import JobsOfSchema1, KindDeclaration, NodeCapacity
from gridsim.experiments.rejections import Count
from gridsim.experiments.swf_replay_nodes import replay_node_level
from gridsim.experiments.swf_replay_resources import (
    check_platform,
    declares_resources,
    one_task_per_node,
    replay_on_resources,
    requests_of,
    uses_resource_planners,
)
from gridsim.experiments.swf_replay_tables import (
    ReplayedJobs,
    at_machine_speed,
    job_columns,
    log_columns,
    progress_callback,
)
from gridsim.scheduling.log_schedulers import ALGORITHMS
from gridsim.sim.log_replay import REQUIRED_COLUMNS, node_intervals, replay_log
from gridsim.sim.trace import schema_order
from gridsim.workloads.config import ModelWorkloadConfig, Workload, WorkloadConfig, workload_records
from gridsim.workloads.mapping import DROP_REASONS, apply_mapping
from gridsim.workloads.platform import LogPlatform, LogPlatformConfig, has_power, log_platform
from gridsim.workloads.records import WorkloadLog

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

SchedulerName = Literal["fcfs", "easy", "conservative"]
METRICS = [
    "jobs", "mean_wait_time", "mean_response_time", "mean_slowdown", "mean_bounded_slowdown",
    "utilisation", "makespan", "killed_jobs", "total_cost", "peak_processors", "replay_time_s",
    "replay_cpu_s",
]  # fmt: skip
#: Why jobs of a log are dropped on reading (:data:`~gridsim.workloads.swf.DROP_REASONS`).
DROP_WHY = {
    "unknown_submit_time": "unknown submit time",
    "cancelled_before_start": "cancelled before they started",
    "non_positive_run_time": "run time zero, negative or unknown (never started, or still "
    "running when the log ends)",
    "non_positive_processors": "no processor count",
    "larger_than_machine": "wider than the machine",
}
#: What a run can fail to do, counted under the summary (:mod:`gridsim.experiments.rejections`).
REJECTIONS = (
    Count("malformed_lines_skipped", "log_job_lines", "log lines skipped", "malformed",
          same_for_every_policy=True),
    *(Count(f"dropped_{reason}", "log_job_lines", "jobs dropped from the log", why,
            same_for_every_policy=True)
      for reason, why in DROP_WHY.items()),
    Count("dropped_never_fits", "log_job_lines", "jobs dropped from the log", "no set of "
          "nodes can hold their cores, memory or GPUs", same_for_every_policy=True),
)  # fmt: skip
#: Columns `gridsim run` prints (all of METRICS are in summary.csv).
DISPLAY_METRICS = [
    "mean_wait_time", "mean_response_time", "mean_slowdown", "mean_bounded_slowdown",
    "utilisation", "killed_jobs", "total_cost", "replay_time_s",
]  # fmt: skip


def machine_size(scenario: dict[str, Any], runs: pd.DataFrame) -> int | None:
    """The processors replayed on: the runs table's (None for folders written before it)."""
    if "machine_processors" in runs.columns and runs["machine_processors"].notna().any():
        return int(runs["machine_processors"].max())
    return None


def node_capacity(scenario: dict[str, Any]) -> NodeCapacity | None:
    """The cores, memory and GPUs of the node classes of a resolved scenario (None when they
    declare none: a processor count)."""
    section = LogPlatformConfig.model_validate(scenario.get("platform") or {})
    if not section.node_classes:
        return None
    platform = log_platform(None, section)
    if platform.capacity is None:
        return None
    return NodeCapacity(platform.capacity, platform.memory_tracked)


def _log_start(*args: Any, **kwargs: Any) -> Any:
    """:func:`gridsim.analysis.export.log_start`, imported when used (a replay needs none)."""
    from gridsim.analysis import export

    return export.log_start(*args, **kwargs)


def _replay_swf(*args: Any, **kwargs: Any) -> Any:
    """:func:`gridsim.analysis.export.replay_swf`, imported when used."""
    from gridsim.analysis import export

    return export.replay_swf(*args, **kwargs)


#: What the report and the commands read of this kind (:class:`KindDeclaration`).
DECLARATION = KindDeclaration(
    report_metrics=("mean_wait_time", "mean_response_time", "mean_bounded_slowdown",
                    "utilisation", "killed_jobs", "total_cost"),
    paired_metrics=("mean_wait_time", "mean_bounded_slowdown", "mean_response_time",
                    "total_cost"),
    bar_metrics=("mean_wait_time", "mean_bounded_slowdown"),
    labels={**LABELS, **RESOURCE_LABELS},
    figures=("gantt", "utilisation", "queue_length", "wait_cdf", "slowdown_cdf",
             "wait_by_size", "wait_by_user", "energy"),
    trace_commands=("gantt", "export", "explore"),
    time_unit="s",
    time_origin=_log_start,
    machine_size=machine_size,
    node_capacity=node_capacity,
    check_feasible=feasibility.check_swf_replay,
    jobs_of_schema_1=JobsOfSchema1({"estimate": "requested_time"},
                                   threshold_field="bounded_slowdown_threshold"),
    swf_export=_replay_swf,
    log_field="workload.path",
)  # fmt: skip


class SwfReplayScenario(ScenarioBase):
    kind: Literal["swf_replay"]
    workload: Workload = WorkloadConfig()
    platform: LogPlatformConfig = LogPlatformConfig()
    schedulers: list[SchedulerName] = Field(default=list(ALGORITHMS), min_length=1)
    policy: str | dict[str, Any] = "BFstart"
    bounded_slowdown_threshold: float = Field(10.0, gt=0)
    record_nodes: bool = True
    progress: bool = True

    @model_validator(mode="after")
    def _nodes_for_energy(self) -> SwfReplayScenario:
        if not self.record_nodes and has_power(self.platform):
            raise ValueError("record_nodes: energy is accounted on the nodes each job ran on; "
                             "a platform with power needs record_nodes: true")  # fmt: skip
        if self.policy != "BFstart":
            from gridsim.selection.energy_criteria import power_needed
            from gridsim.selection.registry import build_criterion

            power_needed([build_criterion(self.policy)], has_power(self.platform), "platform.power")
        return self

    @field_validator("schedulers")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError(f"expected distinct schedulers, got {value}")
        return value

    @field_validator("policy")
    @classmethod
    def _known(cls, value: str | dict[str, Any]) -> str | dict[str, Any]:
        if value == "BFstart":  # the default, a built-in: a replay need not load the registry
            return value
        from gridsim.selection.registry import CriterionError, build_criterion

        try:
            build_criterion(value)
        except CriterionError as error:
            raise ValueError(str(error)) from None
        return value


def load_log(scenario: SwfReplayScenario, seed: np.random.SeedSequence | None = None
             ) -> WorkloadLog:  # fmt: skip
    """The scenario's jobs (:func:`~gridsim.workloads.config.workload_records`) under its
    mapping; a model's flow and estimates are drawn from ``seed`` (default: replication
    0's)."""
    workload = scenario.workload
    validating = seed is None
    seed = seed or np.random.SeedSequence(scenario.seed, spawn_key=(0,))
    key = _log_key(scenario, seed)
    log = _last_log.pop(key, None)
    if log is None:
        log = apply_mapping(workload_records(workload, np.random.default_rng(seed)),
                            workload.mapping)  # fmt: skip
        _last_log.clear()
        if validating:
            _last_log[key] = log
    if len(log) == 0:
        report = log.report
        dropped = ", ".join(f"{count} {reason}" for reason, count in report.dropped.items()
                            if count)  # fmt: skip
        why = f", {report.jobs_dropped} dropped: {dropped}" if dropped else ""
        raise ValueError(f"{report.source}: no job to replay ({report.job_lines} job lines{why})")
    return log


#: The log the validation read (``check_feasible``, no seed given), kept for one use: the
#: run's first replication (the same seed) is served it instead of reading the file again.
_last_log: dict[tuple, WorkloadLog] = {}


def _log_key(scenario: SwfReplayScenario, seed: np.random.SeedSequence) -> tuple:
    """What a read depends on: the scenario, the seed, and the file as it is now."""
    path = getattr(scenario.workload, "path", None)
    stamp = None
    if path is not None and Path(path).is_file():
        status = Path(path).stat()
        stamp = (status.st_mtime_ns, status.st_size)
    return (scenario.model_dump_json(), seed.entropy, seed.spawn_key, stamp)


def machine_nodes(scenario: SwfReplayScenario, log: WorkloadLog) -> tuple[int, str]:
    """How many nodes the replay runs on, and the field that says so: the node classes, else
    the log's machine (``workload.mapping.machine_processors``, else its header's MaxProcs
    or MaxNodes). A ScenarioError saying how to give a size when none of them does."""
    classes = scenario.platform.node_classes
    if classes:
        return sum(node_class.count for node_class in classes), "platform.node_classes"
    if scenario.workload.mapping.machine_processors:
        return scenario.workload.mapping.machine_processors, "workload.mapping.machine_processors"
    if isinstance(scenario.workload, ModelWorkloadConfig):
        return scenario.workload.machine_processors, "workload.machine_processors"
    source = scenario.workload.source()
    if not log.machine_processors:
        raise ScenarioError(
            f"workload.path: {source} gives no machine size (no positive MaxProcs or MaxNodes "
            "header line, no node lists in a Slurm dump); give it as "
            "workload.mapping.machine_processors in the scenario "
            "(--set workload.mapping.machine_processors=N) or give platform.node_classes"
        )
    return log.machine_processors, f"workload.path: the machine size of {source.name}"


def replay_homogeneous(
    scenario: SwfReplayScenario, log: WorkloadLog, platform: LogPlatform, scheduler: SchedulerName
) -> ReplayedJobs:
    """One replay with the processor-count schedulers; its jobs table as columns, built
    from the log's columns (no pandas: docs/swf.md, start-up)."""
    jobs = at_machine_speed(log_columns(log), platform)
    with progress_callback(scenario, jobs, scheduler) as on_progress:
        replay = replay_log(
            {name: jobs[name] for name in REQUIRED_COLUMNS},
            len(platform),
            scheduler,  # type: ignore[arg-type]
            record_nodes=scenario.record_nodes,
            on_progress=on_progress,
        )
    table = job_columns(jobs, replay.start_time, replay.first_reservation)
    table["cost"] = table["run_time"] * table["processors"] * float(platform.price[0])
    if replay.nodes is not None:
        nodes = [node_intervals(nodes) for nodes in replay.nodes]
        table["allocated_resources"] = np.array(nodes, dtype=object)
    return ReplayedJobs(table, replay.peak_processors)


def replication_tables(
    scenario: SwfReplayScenario, replication: int, seed: np.random.SeedSequence
) -> dict[str, pa.Table]:
    """Every scheduler on the log: the whole data flow, top to bottom. The tables are Arrow
    tables built from NumPy columns: a replay's run imports no pandas (docs/swf.md)."""
    log = load_log(scenario, seed)
    machine_nodes(scenario, log)  # a ScenarioError, not a bug, when the log gives no size
    platform = log_platform(log.machine_processors, scenario.platform)
    requests = requests_of(scenario, log, platform)
    check_platform(scenario, log, platform, requests)
    on_resources = uses_resource_planners(platform, requests)
    on_profile = on_resources and not one_task_per_node(scenario, platform)
    machine = platform.cores
    runs, job_tables, user_tables, node_tables = [], [], [], []
    for scheduler in scenario.schedulers:
        began, cpu_began = time.perf_counter(), time.process_time()
        resource_metrics = {}
        if on_profile:
            assert requests is not None
            jobs = ReplayedJobs.of_table(
                replay_on_resources(scenario, log, platform, scheduler, requests)
            )
            policy = scheduler
        elif platform.homogeneous and not on_resources:
            jobs = replay_homogeneous(scenario, log, platform, scheduler)
            policy = scheduler
        else:
            from gridsim.selection.registry import build_criterion

            jobs = ReplayedJobs.of_table(
                replay_node_level(scenario, log, platform, scheduler, requests)
            )
            policy = f"{scheduler}/{build_criterion(scenario.policy).label}"
        elapsed = time.perf_counter() - began
        # Processor time too: on a shared machine the wall time depends on the load.
        cpu = time.process_time() - cpu_began
        threshold = scenario.bounded_slowdown_threshold
        labels = dict(scenario=scenario.name, scheduler=scheduler, policy=policy,
                      replication=replication)  # fmt: skip
        summary = schedule_summary(jobs.columns, machine, threshold)
        columns = {**jobs.columns, **job_metric_columns(jobs.columns, threshold)}
        speed = len(columns["job_id"]) / elapsed if elapsed > 0 else math.nan
        energy = {}
        if platform.energy is not None or (on_resources and declares_resources(scenario)):
            import pandas as pd  # energy and resource metrics are computed on tables

            table = pd.DataFrame(columns)
            if platform.energy is not None:
                from gridsim.energy.accounting import account_jobs

                table, energy, nodes = account_jobs(table, platform.energy)
                columns = {str(name): table[name].to_numpy() for name in table.columns}
                if nodes is not None:  # idle nodes power down: their states per node
                    node_tables.append(
                        arrow_columns(
                            {**{str(n): nodes[n].to_numpy() for n in nodes.columns}, **labels}
                        )
                    )
            if on_resources and declares_resources(scenario):
                resource_metrics = resource_summary(table, platform.capacity,
                                                    platform.memory_tracked)  # fmt: skip
                resource_metrics["dropped_never_fits"] = jobs.dropped_never_fits
        if platform.power_cap is not None:
            resource_metrics["dropped_over_power_cap"] = jobs.dropped_over_power_cap
        runs.append({**labels, **summary, "total_cost": float(np.nansum(columns["cost"])),
                     "peak_processors": jobs.peak_processors, "machine_processors": machine,
                     "replay_time_s": elapsed, "replay_cpu_s": cpu,
                     "jobs_per_second": speed, **read_counts(log), **resource_metrics,
                     **energy})  # fmt: skip
        job_tables.append(arrow_columns({**{n: columns[n] for n in schema_order(columns)},
                                         **labels}))  # fmt: skip
        users = user_columns(columns, machine, threshold)
        user_tables.append(arrow_columns({**users, **labels}))
    tables = {"runs": arrow_rows(runs), "jobs": concat(job_tables), "users": concat(user_tables)}
    if node_tables:
        tables["node_energy"] = concat(node_tables)
    return tables


def run_replication(
    scenario: SwfReplayScenario, replication: int, seed: np.random.SeedSequence
) -> dict[str, pd.DataFrame]:
    """:func:`replication_tables` as DataFrames."""
    return {name: table.to_pandas() for name, table in
            replication_tables(scenario, replication, seed).items()}  # fmt: skip


def read_counts(log: WorkloadLog) -> dict[str, int]:
    """What reading the log left out: job lines, malformed lines skipped, jobs dropped per
    reason (runs table columns, counted under the summary)."""
    report = log.report
    dropped = {f"dropped_{reason}": int(report.dropped.get(reason, 0)) for reason in DROP_REASONS}
    return {"log_job_lines": report.job_lines, "malformed_lines_skipped": report.malformed_lines,
            **dropped}  # fmt: skip


def summarise(runs: Table) -> Table:
    """Per scheduler: mean and 95% CI of every metric over replications."""
    from gridsim.energy.model import energy_metrics

    return summarise_by(runs, ["policy"], [*METRICS, *energy_metrics(runs)])
