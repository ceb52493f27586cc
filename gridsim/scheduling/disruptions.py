"""Conservative backfilling told of faults as they happen: blocked nodes, kills, resubmissions.

Consumes what :class:`~gridsim.scheduling.backfilling.ConservativeBackfilling` consumes, plus
the disruptions the engine reveals (:mod:`gridsim.sim.fault_engine`): a node unavailable over
an interval (failed, or taken by a local task that overran or was never announced), a running
job killed by a failure, a killed job submitted again. Produces, like the base planner, the
reservations that are new or moved by job id, and a log of every move (:class:`Move`). Pure
planning code: no clock, no SimPy.

Rules (docs/model.md, "Faults"):

* **Blocked interval.** The nodes' interval is taken out of the profile. Queued reservations
  that overlap it on one of those nodes are released and planned again in priority order by
  the policy's own criterion, from the time the block is revealed; every other reservation
  stays where it is. A block by local load also stops a job overrunning into it (as known
  local load does).
* **Kill.** The job leaves its nodes at the kill; the rest of its window goes back to the
  profile. The lost node-time is accounted by the engine.
* **Resubmission.** ``keep_priority``: the job is planned in the profile as it stands, like a
  new arrival, so no reservation moves; it keeps its original arrival and so its place in the
  priority order of later re-planning. ``head``: every queued reservation is taken out, the
  job is planned first, then the queue in priority order, each keeping its window if that is
  still free (otherwise planned again: a move caused by the resubmission).
* **Compression after a kill** (optional): the queue is re-planned as after an early finish;
  a reservation only moves earlier.

The guarantee that survives faults: a queued reservation moves later only when a revealed
unavailability (a failure's down time, a local overrun, an unannounced local task, or another
job's overrun) overlaps it on one of its nodes, or, with ``resubmit: head``, when a resubmitted
job is planned before it. Every move is logged with that cause.

Cost: one window search per collided reservation and per resubmission; compression one per
queued job.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from gridsim.model import TIME_TOLERANCE, Job, Node, Priority, Window
from gridsim.scheduling.backfilling import ConservativeBackfilling

Resubmit = Literal["keep_priority", "head"]
#: Why a reservation moved.
Cause = Literal[
    "failure", "local_overrun", "local_unannounced", "job_overrun", "resubmission", "compression"
]
#: Causes that come with a blocked interval on some nodes.
LOCAL_CAUSES = frozenset({"local_overrun", "local_unannounced"})


@dataclass(frozen=True, slots=True)
class Move:
    """A queued reservation moved by re-planning.

    Attributes:
        time: when the move was decided (time units).
        job_id: the job whose reservation moved.
        cause: why (see :data:`Cause`).
        old, new: the reservation before and after.
        blocked_nodes, blocked_from, blocked_until: the unavailability (or, for a
            resubmission, the resubmitted job's window) that forced the move; for a
            compression, empty and NaN.
    """

    time: float
    job_id: int
    cause: Cause
    old: Window
    new: Window
    blocked_nodes: tuple[int, ...]
    blocked_from: float
    blocked_until: float

    @property
    def later(self) -> bool:
        return self.new.start > self.old.start + TIME_TOLERANCE


def overlaps(window: Window, nodes: Collection[int], start: float, end: float) -> bool:
    """The window holds one of ``nodes`` during part of ``[start, end)``."""
    return (
        window.start < end - TIME_TOLERANCE
        and window.finish > start + TIME_TOLERANCE
        and any(node in nodes for node in window.nodes)
    )


class DisruptedBackfilling(ConservativeBackfilling):
    """Conservative backfilling that re-plans around faults (see the module docstring).

    ``nodes``, ``busy``, ``criterion`` and ``priority`` are those of
    :class:`ConservativeBackfilling`.

    Args:
        resubmit: ``keep_priority`` or ``head`` (how a killed job is planned again).

    Attributes:
        moves: every reservation move, in the order they were decided.
    """

    def __init__(
        self,
        nodes: Sequence[Node],
        busy: Sequence[Iterable[tuple[float, float]]],
        criterion,
        priority: Priority = "fcfs",
        resubmit: Resubmit = "keep_priority",
    ) -> None:
        super().__init__(nodes, busy, criterion, priority)
        self.resubmit_mode = resubmit
        self.moves: list[Move] = []
        self._advanced_to = float("-inf")

    def _advance(self, now: float) -> None:
        # Faults bring several planner calls at one instant; the profile forgets the past once.
        if now > self._advanced_to:
            self._advanced_to = now
            super()._advance(now)

    # -- disruptions ---------------------------------------------------------------------

    def block(
        self, nodes: Sequence[int], start: float, end: float, now: float, cause: Cause
    ) -> dict[int, Window]:
        """``[start, end)`` of ``nodes`` is unavailable (revealed at ``now``).

        Returns:
            The queued jobs whose reservation moved, by job id.
        """
        self._advance(now)
        colliding = [
            job_id
            for job_id, window in self.reservations.items()
            if overlaps(window, nodes, start, end)
        ]
        self._release_windows(self.reservations[job_id] for job_id in colliding)
        # Patching the slot table costs less than building it again at the next search.
        self.profile.occupy_updating_table((node_id, start, end) for node_id in nodes)
        if cause in LOCAL_CAUSES:
            for node_id in nodes:
                bisect.insort(self.busy[node_id], (start, end))
        blocked = (tuple(nodes), start, end)
        return self._replan(colliding, now, cause, blocked)

    def kill(self, job_id: int, now: float) -> Window:
        """The running job stops at ``now``; the rest of its window goes back to the profile."""
        self._advance(now)
        window = self.running.pop(job_id)
        planned_end = self.busy_until.pop(job_id)
        if now < planned_end - TIME_TOLERANCE:
            self.profile.release_updating_table((i, now, planned_end) for i in window.nodes)
        return window

    def resubmit(self, job: Job, now: float) -> dict[int, Window]:
        """Plan a killed job again (``resubmit`` mode); the windows new or moved, by job id."""
        self._advance(now)
        if self.resubmit_mode == "keep_priority":
            window = self._search(job, now)
            self.profile.reserve(window)
            self.reservations[job.id] = window
            return {job.id: window}
        queued = sorted(self.reservations, key=lambda i: self.key(self.jobs[i]))
        old = {job_id: self.reservations.pop(job_id) for job_id in queued}
        self._release_windows(old.values())
        window = self._search(job, now)
        self.profile.reserve(window)
        self.reservations[job.id] = window
        changes = {job.id: window}
        blocked = (window.nodes, window.start, window.finish)
        for job_id in queued:
            kept = old[job_id]
            if all(self.profile.is_free(i, kept.start, kept.finish) for i in kept.nodes):
                self.profile.reserve(kept)
                self.reservations[job_id] = kept
                continue
            self.reservations[job_id] = kept  # out of the profile already, as _replan wants
            changes.update(self._replan([job_id], now, "resubmission", blocked))
        return changes

    def overrun(self, job_id: int, now: float, end: float) -> tuple[float, dict[int, Window]]:
        """As the base planner; the moves are logged with the overrun's interval."""
        before = dict(self.reservations)
        planned_end = self.busy_until[job_id]
        nodes = self.running[job_id].nodes
        end, moved = super().overrun(job_id, now, end)
        for other, window in moved.items():
            self.moves.append(
                Move(now, other, "job_overrun", before[other], window, nodes, planned_end, end)
            )
        return end, moved

    def compress(self, now: float) -> dict[int, Window]:
        """As the base planner; the moves (all earlier) are logged."""
        before = dict(self.reservations)
        moved = super().compress(now)
        nan = float("nan")
        for job_id, window in moved.items():
            old = before[job_id]
            self.moves.append(Move(now, job_id, "compression", old, window, (), nan, nan))
        return moved

    # -- internals -----------------------------------------------------------------------

    def _release_windows(self, windows: Iterable[Window]) -> None:
        """Give reserved windows back to the profile, patching its slot table."""
        self.profile.release_updating_table(
            (node_id, window.start, window.finish) for window in windows for node_id in window.nodes
        )

    def _search(self, job: Job, now: float) -> Window:
        window = self.criterion.search(self.profile, job.request(now))
        if window is None:  # an infinite horizon always has room; kept for finite ones
            raise RuntimeError(f"job {job.id} needs a window and none fits")
        return window

    def _replan(
        self,
        job_ids: Iterable[int],
        now: float,
        cause: Cause,
        blocked: tuple[tuple[int, ...], float, float],
    ) -> dict[int, Window]:
        """Plan the reservations of ``job_ids`` (out of the profile, still in
        ``reservations``) again in priority order; log the ones that changed."""
        moved = {}
        for job_id in sorted(job_ids, key=lambda i: self.key(self.jobs[i])):
            old = self.reservations[job_id]
            new = self._search(self.jobs[job_id], now)
            self.profile.reserve(new)
            self.reservations[job_id] = new
            if new.start > old.start + TIME_TOLERANCE:
                self.delays[job_id] = self.delays.get(job_id, 0.0) + new.start - old.start
            if (new.start, new.runtime, new.nodes) != (old.start, old.runtime, old.nodes):
                self.moves.append(Move(now, job_id, cause, old, new, *blocked))
            moved[job_id] = new
        return moved
