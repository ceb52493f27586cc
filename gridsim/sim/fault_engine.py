"""Job-flow simulation with faults: the engine of :mod:`gridsim.sim.engine`, plus what goes wrong.

Consumes an :class:`~gridsim.sim.engine.Instance`, a
:class:`~gridsim.scheduling.disruptions.DisruptedBackfilling` planner and the instance's
:class:`Faults` (the built-in model: :class:`~gridsim.faults.draws.InstanceFaults`);
produces the same :class:`~gridsim.sim.trace.Trace`, with lost runs, outages and unplanned
local load in it.
The scheduler learns of every fault only when it happens:

* **Local overrun**: at a local task's announced end, the node stays busy for the drawn extra
  time (cut where the node's next announced local task begins).
* **Unannounced local task**: at its arrival, the node is busy for its length; if a grid task
  runs there, the local task waits for it to end (the owner's task does not kill it).
  Arrivals while the node is down are lost.
* **Node failure**: at the failure the node is down until its repair, and the scheduler is
  told both times (the repair time is announced with the failure, as an operator's estimate
  that holds). A job running on the node is killed: every one of its tasks stops and its
  node-time is lost; it is submitted again unless it has used up its retries (then
  ``failed``). Local tasks are not affected (the node is unavailable either way).

Each revealed interval is handed to the planner, which moves the reservations it hits.

Same-time order: completions, then faults, then starts, then submissions. A job that ends
at a failure's time has ended; a reservation that starts at a fault's time is moved first.

The fault streams are infinite; a stream stops being read once no job is left to arrive,
wait or run, so the simulation ends with its last job.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from gridsim.faults.config import ConsequencesConfig
from gridsim.model import Job, Priority, Window
from gridsim.scheduling.disruptions import Cause, DisruptedBackfilling
from gridsim.sim.engine import FAULT, Engine, Instance
from gridsim.sim.trace import Trace

Stream = Iterator[tuple[float, float]]


class Faults(Protocol):
    """What the engine asks of a fault model (:class:`~gridsim.faults.draws.InstanceFaults`
    is the built-in one): the same answers for every policy of an instance."""

    consequences: ConsequencesConfig
    local_extra: Sequence[Sequence[float]]

    def outages(self, node_id: int) -> Stream:
        """(down from, down until) of the node, in time order."""
        ...

    def unannounced(self, node_id: int) -> Stream:
        """(arrival, length) of the node's unannounced local tasks, in time order."""
        ...


class FaultEngine(Engine):
    """Executes a plan while faults happen (see the module docstring)."""

    scheduler: DisruptedBackfilling

    def __init__(self, instance: Instance, scheduler: DisruptedBackfilling, faults: Faults) -> None:
        super().__init__(instance, scheduler)
        self.faults = faults
        self._unsubmitted = len(instance.jobs)
        self._down_until = [float("-inf")] * len(instance.nodes)
        #: Per node, lengths of unannounced local tasks waiting for a grid task to end.
        self._waiting: list[list[float]] = [[] for _ in instance.nodes]
        #: Announced local tasks per node, sorted, as the draws index them (the planner's own
        #: list also gets the local load revealed later).
        self._announced = [sorted(intervals) for intervals in instance.busy]

    def run(self) -> Trace:
        for node_id, intervals in enumerate(self._announced):
            for index, (_, end) in enumerate(intervals):
                if self.faults.local_extra[node_id][index] > 0:
                    self._at(end, FAULT, self._on_local_overrun, (node_id, index))
            self._next(self._on_failure, node_id, self.faults.outages(node_id))
            self._next(self._on_unannounced, node_id, self.faults.unannounced(node_id))
        self.trace.moves = self.scheduler.moves
        return super().run()

    # -- handlers ----------------------------------------------------------------------------

    def _on_submit(self, jobs: tuple[Job, ...]) -> None:
        self._unsubmitted -= len(jobs)
        super()._on_submit(jobs)

    def _on_local_overrun(self, value: tuple[int, int]) -> None:
        node_id, index = value
        if not self._work_left():
            return
        announced = self._announced[node_id]
        start = announced[index][1]
        end = start + self.faults.local_extra[node_id][index]
        following = announced[index + 1 : index + 2]
        if following:
            end = min(end, following[0][0])
        if end > start:
            self._reveal(node_id, start, end, "local_overrun")

    def _on_unannounced(self, value: tuple[int, float, float, Stream]) -> None:
        node_id, _, length, stream = value
        if not self._work_left():
            return
        now = self.env.now
        if self._down_until[node_id] <= now:
            if self._occupant[node_id] is None:
                self._reveal(node_id, now, now + length, "local_unannounced")
            else:
                self._waiting[node_id].append(length)
        self._next(self._on_unannounced, node_id, stream)

    def _on_failure(self, value: tuple[int, float, float, Stream]) -> None:
        node_id, start, end, stream = value
        if not self._work_left():
            return
        now = self.env.now
        self._down_until[node_id] = end
        self._waiting[node_id].clear()  # the node is down: queued local tasks are gone
        self.trace.local_task(node_id, start, end, "down")
        killed = self._occupant[node_id]
        if killed is not None:
            window = self.scheduler.kill(killed, now)
            self._attempt[killed] += 1  # its pending completion is now stale
            for other in window.nodes:
                self._occupant[other] = None
            self.trace.lost(self.scheduler.jobs[killed], window, now)
            for other in window.nodes:
                if other != node_id:
                    self._start_waiting_local_tasks(other)
        moved = dict(self.scheduler.block((node_id,), start, end, now, "failure"))
        if killed is not None:
            moved.update(self._after_kill(killed))
        self._plan_starts(moved)
        self._next(self._on_failure, node_id, stream)

    def _on_complete(self, value: tuple[int, int, float, str | None]) -> None:
        job_id, attempt = value[0], value[1]
        if self._attempt[job_id] != attempt:
            return
        nodes = self.scheduler.running[job_id].nodes
        super()._on_complete(value)
        for node_id in nodes:
            self._start_waiting_local_tasks(node_id)

    # -- helpers -----------------------------------------------------------------------------

    def _after_kill(self, job_id: int) -> dict[int, Window]:
        """Resubmit the killed job (or fail it after its retries), then compress the queue."""
        consequences = self.faults.consequences
        job = self.scheduler.jobs[job_id]
        moved: dict[int, Window] = {}
        retries = self.trace.jobs[job_id]["retries"]
        if retries <= consequences.max_retries:
            moved.update(self.scheduler.resubmit(job, self.env.now))
        else:
            self.trace.failed(job, f"killed by node failures {retries} times")
        if consequences.compress:
            moved.update(self.scheduler.compress(self.env.now))
        return moved

    def _start_waiting_local_tasks(self, node_id: int) -> None:
        """The node's grid task has ended: the unannounced local tasks it held back begin."""
        now = self.env.now
        for length in self._waiting[node_id]:
            self._reveal(node_id, now, now + length, "local_unannounced")
        self._waiting[node_id].clear()

    def _reveal(self, node_id: int, start: float, end: float, cause: Cause) -> None:
        """Local load nobody planned for occupies the node: trace it, re-plan around it."""
        self.trace.local_task(node_id, start, end, cause)
        self._plan_starts(self.scheduler.block((node_id,), start, end, self.env.now, cause))

    def _next(self, handler, node_id: int, stream: Stream) -> None:
        """Schedule the stream's next event on the node, if it has one."""
        following = next(stream, None)
        if following is not None:
            self._at(following[0], FAULT, handler, (node_id, *following, stream))

    def _work_left(self) -> bool:
        """Some job has yet to arrive, is waiting for its start, or is running."""
        scheduler = self.scheduler
        return bool(self._unsubmitted or scheduler.reservations or scheduler.running)


def simulate_with_faults(
    instance: Instance, criterion, faults: Faults, priority: Priority = "fcfs"
) -> Trace:
    """One job flow under one criterion while ``faults`` happen: plan (conservative
    backfilling that re-plans around faults), execute, trace."""
    planner = DisruptedBackfilling(
        instance.nodes,
        instance.busy,
        criterion,
        priority,
        resubmit=faults.consequences.resubmit,
    )
    return FaultEngine(instance, planner, faults).run()
