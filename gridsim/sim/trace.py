"""What happened in one simulation: one flat record per job and per task, ready for pandas.

Consumes the engine's notifications; produces two tables. Column names follow Batsim's
``jobs.csv`` in spirit (snake_case, times in simulation time units, cost in money units):

``jobs``: ``job_id``, ``arrival``, ``first_promised_start`` (the reservation given on
submission; under EASY the first window the job was given), ``start``, ``finish``, ``wait``
(start - arrival), ``runtime`` (actual), ``planned_runtime`` (the window's), ``n``,
``volume``, ``nodes`` (space-separated ids), ``cost`` (actual runtime times the sum of the
nodes' prices), ``delay`` (how much later than promised re-planning -- under conservative
backfilling only for overruns of other jobs and faults -- made it start), ``final_state``
(``finished``, ``killed``, ``failed``, ``rejected`` or ``unfinished``) and ``reason`` (empty
when finished normally); then what faults did to it: ``retries`` (times it was killed by a
failure and submitted again), ``lost_work`` (node-time of its killed runs: the sum of its
``lost`` tasks), ``lost_cost`` (that node-time times the nodes' prices), ``cost_with_losses``
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
from typing import Any

from gridsim.model import Node, Window
from gridsim.scheduling.backfilling import Job

#: A start more than this much later than first promised counts as disturbed (time units):
#: float dust from re-planning is not a disturbance.
DISTURBANCE_TOLERANCE = 1e-6


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
