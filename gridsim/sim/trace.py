"""What happened in one simulation, and the jobs table every kind with jobs writes.

Consumes the engine's notifications; produces one flat record per job and per task, ready for
pandas. :meth:`Trace.jobs_table` turns the job records into the **jobs table** shared by every
kind that has jobs (job flows with or without faults, log replays on processor counts and on
node classes, batch cycles): the columns of :data:`JOB_COLUMNS`, in that order, then the
kind's own columns (documented in docs/results.md, "The jobs table"). Node sets are Batsim's
interval-set text (``"0-3 5"``, :func:`interval_set`); times are in the kind's time unit
(seconds for logs); the per-job metrics (wait, response, slowdowns) are added by
:func:`gridsim.analysis.jobflow_metrics.job_metrics`, the one home of their definitions.

The job records themselves (:meth:`Trace.job_records`) are the recorder's working copy, in
the engine's words: ``arrival``, ``first_promised_start`` (the reservation given on
submission; under EASY the first window the job was given), ``start``, ``finish``, ``wait``,
``runtime`` (actual), ``planned_runtime`` (the window's), ``n``, ``volume``, ``nodes``
(space-separated ids), ``cost`` (actual runtime times the sum of the nodes' prices),
``delay`` (how much later than promised re-planning -- under conservative backfilling only
for overruns of other jobs and faults -- made it start), ``final_state`` (``finished``,
``killed``, ``failed``, ``rejected`` or ``unfinished``) and ``reason`` (empty when finished
normally); then what faults did to it: ``retries`` (times it was killed by a failure and
submitted again), ``lost_work`` (node-time of its killed runs: the sum of its ``lost``
tasks), ``lost_cost`` (that node-time times the nodes' prices), ``cost_with_losses``
(``cost + lost_cost``) and ``disturbed`` (it started later than first promised, or was
killed at least once).

``tasks``: ``job_id`` (-1 for local load and outages), ``node``, ``performance`` (of the
node), ``start``, ``end``, ``kind``: one row per node a job or a local task occupies. Kinds:
``job`` (a run that ended), ``lost`` (a run a node failure killed), ``local_load`` (announced
local task), ``local_overrun`` (the time a local task ran past its announced end),
``local_unannounced`` (a local task nobody announced) and ``down`` (the node had failed).
Grid tasks (``job``, ``lost``) never overlap each other, local tasks or ``down``; local
tasks and ``down`` may overlap each other (the node is unavailable either way).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gridsim.model import Job, Node, Window
from gridsim.sim.log_replay import node_intervals

if TYPE_CHECKING:
    import pandas as pd

#: A start more than this much later than first promised counts as disturbed (time units):
#: float dust from re-planning is not a disturbance.
DISTURBANCE_TOLERANCE = 1e-6

#: Version of the jobs table's columns, recorded in every results folder's manifest
#: (``jobs_schema``): 1 was the job flows' ``arrival``/``start``/``n``/``nodes`` and the
#: replays' ``estimate``/``killed`` (read by :mod:`gridsim.analysis.legacy`), 2 is
#: :data:`JOB_COLUMNS`.
JOBS_SCHEMA = 2


@dataclass(frozen=True)
class JobColumn:
    """One column of the jobs table: its name, pandas dtype, unit and meaning."""

    name: str
    dtype: str
    unit: str
    meaning: str


#: The columns every kind with jobs writes, in this order (docs/results.md renders them).
#: Columns a kind adds come after them (a job flow's ``volume`` and fault columns, a batch
#: cycle's alternatives, and later per-resource requests and allocations).
JOB_COLUMNS: tuple[JobColumn, ...] = (
    JobColumn("job_id", "int64", "", "the job's number: the log's, or 0, 1, ... in queue order"),
    JobColumn("user_id", "int64", "", "who submitted it (the log's user number; -1 unknown)"),
    JobColumn("submit_time", "float64", "time", "when it was submitted"),
    JobColumn("start_time", "float64", "time", "when it started (NaN: it never did)"),
    JobColumn("finish_time", "float64", "time", "when it ended (NaN: it never ran)"),
    JobColumn("run_time", "float64", "time", "finish_time - start_time: how long it held "
              "its nodes (a killed job: until the kill)"),
    JobColumn("requested_time", "float64", "time", "what the scheduler planned with: the "
              "user's estimate (logs), the window's planned length (job flows)"),
    JobColumn("processors", "int64", "processors", "how many processors (nodes) it asked "
              "for and got"),
    JobColumn("allocated_resources", "str", "", "the node ids it ran on as an interval set, "
              "'0-3 5' (Batsim's notation; empty if it never ran or nodes were not recorded)"),
    JobColumn("cost", "float64", "money", "run_time times the sum of its nodes' prices"),
    JobColumn("final_state", "str", "", "finished, killed (stopped at its limit), failed "
              "(out of retries), rejected (never placed) or unfinished (still queued or "
              "running at the end)"),
    JobColumn("reason", "str", "", "why it is not finished; empty when it is"),
    JobColumn("first_reservation", "float64", "time", "the start promised on submission "
              "(conservative backfilling; the first window under EASY on nodes; NaN else)"),
    JobColumn("wait_time", "float64", "time", "start_time - submit_time"),
    JobColumn("response_time", "float64", "time", "finish_time - submit_time"),
    JobColumn("slowdown", "float64", "ratio", "response_time / run_time"),
    JobColumn("bounded_slowdown", "float64", "ratio", "max(1, response_time / "
              "max(run_time, threshold)), the threshold a scenario field (10 s by default)"),
)  # fmt: skip
JOB_COLUMN_NAMES = tuple(column.name for column in JOB_COLUMNS)
#: Columns a replay on nodes with cores, memory and GPUs adds after the run's labels
#: (docs/resources.md); ``processors`` is then the cores the job asked for.
RESOURCE_JOB_COLUMNS: tuple[JobColumn, ...] = (
    JobColumn("cores", "int64", "cores", "cores it held (exclusive nodes: all their cores)"),
    JobColumn("memory_mb", "int64", "MiB", "memory it held"),
    JobColumn("gpus", "int64", "GPUs", "GPUs it held"),
    JobColumn("resource_class", "str", "", "gpu (it held GPUs), memory (more memory per "
              "core than its nodes have per core) or cpu"),
    JobColumn("allocation", "str", "", "what it held per node, 'node:cores/memory_mb/gpus' "
              "separated by spaces ('0:16/65536/4 1:16/65536/4')"),
)  # fmt: skip
#: Columns a run with a power model adds at the end (docs/energy.md); its tasks table, when it
#: has one, the same per task (0 for local load and outages).
ENERGY_JOB_COLUMNS: tuple[JobColumn, ...] = (
    JobColumn("energy_kwh", "float64", "kWh", "busy power of its nodes times the time it held "
              "them (runs a failure killed included)"),
    JobColumn("electricity_cost", "float64", "money", "busy power times the integral of its "
              "nodes' electricity price over its runs"),
    JobColumn("carbon_kg", "float64", "kg CO2", "busy power times the integral of its nodes' "
              "carbon intensity over its runs"),
)  # fmt: skip
#: The per-job metrics :func:`~gridsim.analysis.jobflow_metrics.job_metrics` adds.
JOB_METRIC_COLUMNS = ("wait_time", "response_time", "slowdown", "bounded_slowdown")


def interval_set(ids: Iterable[int]) -> str:
    """Node ids as an interval set (Batsim's notation): ``[5, 0, 1, 2, 3]`` -> ``"0-3 5"``."""
    return node_intervals(tuple(sorted({int(i) for i in ids})))


def allocation_text(nodes: Sequence[int], amounts: Sequence[Sequence[int]]) -> str:
    """Per-node amounts as the ``allocation`` column's text: ``"0:16/65536/4 3:2/8192/0"``."""
    return " ".join(f"{node}:" + "/".join(str(int(a)) for a in amount)
                    for node, amount in zip(nodes, amounts, strict=True))  # fmt: skip


def allocation_amounts(text: str) -> dict[int, tuple[int, ...]]:
    """The ``allocation`` column's text back as node -> amounts."""
    held = {}
    for part in text.split():
        node, _, amounts = part.partition(":")
        held[int(node)] = tuple(int(a) for a in amounts.split("/"))
    return held


def in_schema_order(jobs: pd.DataFrame) -> pd.DataFrame:
    """``jobs`` with the columns of :data:`JOB_COLUMNS` first, in their order, then the rest."""
    return jobs[schema_order(jobs.columns)]


def schema_order(names: Iterable[str]) -> list[str]:
    """Column names with those of :data:`JOB_COLUMNS` first, in their order, then the rest."""
    names = list(names)
    first = [name for name in JOB_COLUMN_NAMES if name in names]
    return [*first, *(name for name in names if name not in first)]


def node_ids(intervals: str) -> list[int]:
    """The node ids of an interval set: ``"0-3 5"`` -> ``[0, 1, 2, 3, 5]``."""
    ids: list[int] = []
    for part in intervals.split():
        first, _, last = part.partition("-")
        ids += range(int(first), int(last or first) + 1)
    return ids


def node_runs(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per node each job of a jobs table held, from ``allocated_resources``: ``row``
    (the job's position in ``jobs``), ``job_id``, ``node``, ``start``, ``end``. Jobs without a
    start or an end, or whose nodes were not recorded, have none."""
    import numpy as np
    import pandas as pd

    held = jobs.start_time.notna().to_numpy() & jobs.finish_time.notna().to_numpy()
    positions = np.flatnonzero(held)
    ids = [node_ids(text) for text in jobs.allocated_resources.fillna("").to_numpy()[held]]
    row = np.repeat(positions, [len(nodes) for nodes in ids]).astype(np.int64)
    return pd.DataFrame({
        "row": row,
        "job_id": jobs.job_id.to_numpy()[row],
        "node": np.fromiter((n for nodes in ids for n in nodes), dtype=np.int64, count=len(row)),
        "start": jobs.start_time.to_numpy(float)[row],
        "end": jobs.finish_time.to_numpy(float)[row],
    })  # fmt: skip


class Trace:
    """Job and task records of one simulation run."""

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.nodes = tuple(nodes)
        self.jobs: dict[int, dict[str, Any]] = {}
        self.tasks: list[dict[str, Any]] = []
        #: Reservation moves, when the planner logs them
        #: (:class:`~gridsim.scheduling.disruptions.Move`).
        self.moves: list[Any] = []

    def local_task(self, node_id: int, start: float, end: float, kind: str = "local_load") -> None:
        """A local task, or an outage (``kind="down"``), on a node."""
        performance = self.nodes[node_id].performance
        self.tasks.append(dict(job_id=-1, node=node_id, performance=performance, start=start,
                               end=end, kind=kind))  # fmt: skip

    def submitted(self, job: Job) -> None:
        nan = math.nan
        self.jobs[job.id] = dict(
            job_id=job.id, arrival=job.arrival, first_promised_start=nan, start=nan,
            finish=nan, wait=nan, runtime=nan, planned_runtime=nan, n=job.n,
            volume=job.volume, nodes="", cost=nan, delay=0.0, final_state="unfinished",
            reason="still queued or running when the simulation ended", retries=0,
            lost_work=0.0, lost_cost=0.0, cost_with_losses=nan, disturbed=False,
        )  # fmt: skip

    def rejected(self, job: Job, reason: str) -> None:
        self.jobs[job.id].update(final_state="rejected", reason=reason)

    def started(self, job: Job, window: Window, first_promised: float) -> None:
        self.jobs[job.id].update(
            first_promised_start=first_promised,
            start=window.start,
            wait=window.start - job.arrival,
            planned_runtime=window.runtime,
            nodes=" ".join(str(i) for i in window.nodes),
        )

    def finished(
        self, job: Job, window: Window, end: float, delay: float, reason: str | None
    ) -> None:
        record = self.jobs[job.id]
        if record["final_state"] in ("finished", "killed"):
            raise RuntimeError(f"job {job.id} finished twice")
        runtime = end - window.start
        cost = runtime * sum(self.nodes[i].price for i in window.nodes)
        record.update(
            finish=end,
            runtime=runtime,
            cost=cost,
            delay=delay,
            final_state="killed" if reason else "finished",
            reason=reason or "",
            cost_with_losses=cost + record["lost_cost"],
        )
        self._job_tasks(job, window, end, "job")

    def lost(self, job: Job, window: Window, end: float) -> None:
        """A failure killed the job's run of ``window`` at ``end``: its node-time is lost."""
        record = self.jobs[job.id]
        held = end - window.start
        record["retries"] += 1
        record["lost_work"] += held * len(window.nodes)
        record["lost_cost"] += held * sum(self.nodes[i].price for i in window.nodes)
        self._job_tasks(job, window, end, "lost")

    def failed(self, job: Job, reason: str) -> None:
        self.jobs[job.id].update(final_state="failed", reason=reason)

    def _job_tasks(self, job: Job, window: Window, end: float, kind: str) -> None:
        for node_id in window.nodes:
            self.tasks.append(dict(job_id=job.id, node=node_id,
                                   performance=self.nodes[node_id].performance,
                                   start=window.start, end=end, kind=kind))  # fmt: skip

    def close(self, jobs: Iterable[Job]) -> None:
        """Every job of the flow has a record (a job never submitted would be a bug)."""
        missing = [job.id for job in jobs if job.id not in self.jobs]
        if missing:
            raise RuntimeError(f"jobs never submitted: {missing[:5]}")
        for record in self.jobs.values():
            late = record["start"] > record["first_promised_start"] + DISTURBANCE_TOLERANCE
            record["disturbed"] = bool(late or record["retries"] > 0)

    def job_records(self) -> list[dict[str, Any]]:
        return [self.jobs[job_id] for job_id in sorted(self.jobs)]

    def task_records(self) -> list[dict[str, Any]]:
        return list(self.tasks)

    def jobs_table(self) -> pd.DataFrame:
        """The jobs table (:data:`JOB_COLUMNS` without the per-job metrics, then ``volume``,
        ``delay``, ``retries``, ``lost_work``, ``lost_cost``, ``cost_with_losses`` and
        ``disturbed``), one row per job in id order."""
        import pandas as pd

        records = pd.DataFrame(self.job_records(), columns=list(_RECORD_COLUMNS))
        nodes = [interval_set(int(i) for i in text.split()) for text in records["nodes"]]
        table = pd.DataFrame({
            "job_id": records["job_id"].astype("int64"),
            "user_id": -1,
            "submit_time": records["arrival"].astype("float64"),
            "start_time": records["start"].astype("float64"),
            "finish_time": records["finish"].astype("float64"),
            "run_time": records["runtime"].astype("float64"),
            "requested_time": records["planned_runtime"].astype("float64"),
            "processors": records["n"].astype("int64"),
            "allocated_resources": pd.Series(nodes, dtype="object", index=records.index),
            "cost": records["cost"].astype("float64"),
            "final_state": records["final_state"],
            "reason": records["reason"],
            "first_reservation": records["first_promised_start"].astype("float64"),
        })  # fmt: skip
        extra = ["volume", "delay", "retries", "lost_work", "lost_cost", "cost_with_losses",
                 "disturbed"]  # fmt: skip
        return pd.concat([table, records[extra]], axis=1)


#: The keys of a job record, in order (a run without jobs still has these columns).
_RECORD_COLUMNS = (
    "job_id", "arrival", "first_promised_start", "start", "finish", "wait", "runtime",
    "planned_runtime", "n", "volume", "nodes", "cost", "delay", "final_state", "reason",
    "retries", "lost_work", "lost_cost", "cost_with_losses", "disturbed",
)  # fmt: skip
