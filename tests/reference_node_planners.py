"""The node-level planners as they were before the incremental replay: the reference.

A frozen copy of ``gridsim.profile.Profile`` (free intervals per node, never forgotten; the slot
table rebuilt after every release), ``gridsim.scheduling.backfilling`` (conservative
backfilling: every queued job searched again at every early finish) and
``gridsim.scheduling.queue_policies`` (FCFS and EASY on nodes), unchanged but for the imports.
The identity tests run it beside gridsim's planners on random heterogeneous workloads and on
KTH-SP2's first jobs and require the same start and the same nodes for every job;
``benchmarks/bench_node_replay.py`` measures gridsim's planners against it in the same run.

Use: ``Engine(instance, build_planner(name, nodes, busy, criterion, priority)).run()``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from gridsim.model import Job, Node, Priority, Slot, Window
from gridsim.profile import SlotTable

Changes = dict[int, Window | None]

#: Free intervals shorter than this are dropped when slots are split (float dust).
MIN_SLOT_LENGTH = 1e-9


class Profile:  # gridsim.profile.Profile
    """Free intervals per node over ``[horizon_start, horizon_end)``.

    Args:
        nodes: the environment's nodes; ``nodes[i].id`` must be ``i``.
        busy: per node, the busy intervals ``(start, end)`` known in advance (local load).
        horizon_start: the scheduling horizon's start.
        horizon_end: the scheduling horizon's end; it may be infinite.
    """

    def __init__(
        self,
        nodes: Sequence[Node],
        busy: Sequence[Iterable[tuple[float, float]]] | None = None,
        horizon_start: float = 0.0,
        horizon_end: float = float("inf"),
    ) -> None:
        if any(node.id != i for i, node in enumerate(nodes)):
            raise ValueError("node ids must be 0..N-1 in order")
        self.nodes = tuple(nodes)
        self.horizon_start = horizon_start
        self.horizon_end = horizon_end
        self._free: list[list[tuple[float, float]]] = [
            [(horizon_start, horizon_end)] for _ in nodes
        ]
        self._table: SlotTable | None = None
        for node_id, intervals in enumerate(busy or ()):
            for start, end in intervals:
                self.occupy(node_id, start, end)

    def copy(self) -> Profile:
        clone = Profile.__new__(Profile)
        clone.nodes = self.nodes
        clone.horizon_start = self.horizon_start
        clone.horizon_end = self.horizon_end
        clone._free = [list(intervals) for intervals in self._free]
        clone._table = self._table
        return clone

    # -- queries ---------------------------------------------------------------------------

    def free_intervals(self, node_id: int) -> list[tuple[float, float]]:
        return list(self._free[node_id])

    def slots(self) -> list[Slot]:
        """All free slots sorted by (start, node)."""
        table = self.slot_table()
        return [table.slot(i) for i in range(len(table))]

    def slot_table(self) -> SlotTable:
        """The slots as arrays sorted by (start, node); cached until the profile changes."""
        if self._table is None:
            self._table = self._build_table()
        return self._table

    def is_free(self, node_id: int, start: float, end: float) -> bool:
        intervals = self._free[node_id]
        i = bisect.bisect_right(intervals, (start, float("inf"))) - 1
        return i >= 0 and intervals[i][0] <= start and end <= intervals[i][1]

    def enclosing_slot(self, node_id: int, start: float, end: float) -> Slot:
        """The free slot of a node that contains ``[start, end)``."""
        intervals = self._free[node_id]
        i = bisect.bisect_right(intervals, (start, float("inf"))) - 1
        if i < 0 or not (intervals[i][0] <= start and end <= intervals[i][1]):
            raise ValueError(f"node {node_id} is not free over [{start}, {end})")
        return Slot(node_id, *intervals[i])

    def with_enclosing_slots(self, window: Window) -> Window:
        """The same window with its slots taken from this profile (for neighbour distances)."""
        slots = tuple(
            self.enclosing_slot(node_id, window.start, window.finish) for node_id in window.nodes
        )
        return replace(window, slots=slots)

    # -- changes ---------------------------------------------------------------------------

    def occupy(self, node_id: int, start: float, end: float) -> None:
        """Mark ``[start, end)`` of a node busy; parts already busy stay busy."""
        if end <= start:
            return
        kept: list[tuple[float, float]] = []
        for a, b in self._free[node_id]:
            if b <= start or a >= end:
                kept.append((a, b))
                continue
            if start - a > MIN_SLOT_LENGTH:
                kept.append((a, start))
            if b - end > MIN_SLOT_LENGTH:
                kept.append((end, b))
        self._free[node_id] = kept
        self._table = None

    def occupy_updating_table(self, intervals: Iterable[tuple[int, float, float]]) -> None:
        """``occupy`` each ``(node_id, start, end)``, then patch the cached slot table.

        Only the rows of the nodes touched change, so they are replaced and the rows re-sorted
        by (start, node): a few NumPy operations instead of the Python loop over every node of
        a full rebuild. The batch cycle subtracts hundreds of windows per cycle and needs the
        table after each one. The result equals ``slot_table()`` after plain ``occupy`` calls.
        """
        table = self._table
        touched = set()
        for node_id, start, end in intervals:
            self.occupy(node_id, start, end)
            touched.add(node_id)
        if table is None or not touched:
            return
        touched_ids = sorted(touched)
        is_touched = np.zeros(len(self.nodes), dtype=bool)
        is_touched[touched_ids] = True
        keep = ~is_touched[table.node]
        new_rows = [
            (node_id, a, b, self.nodes[node_id])
            for node_id in touched_ids
            for a, b in self._free[node_id]
        ]

        def merged(column: np.ndarray, values: list[float] | list[int], dtype: type) -> np.ndarray:
            return np.concatenate((column[keep], np.asarray(values, dtype=dtype)))

        node = merged(table.node, [row[0] for row in new_rows], np.int64)
        start = merged(table.start, [row[1] for row in new_rows], float)
        order = np.lexsort((node, start))
        self._table = SlotTable(
            node=node[order],
            start=start[order],
            end=merged(table.end, [row[2] for row in new_rows], float)[order],
            performance=merged(table.performance, [row[3].performance for row in new_rows], float)[
                order
            ],
            price=merged(table.price, [row[3].price for row in new_rows], float)[order],
            q=merged(table.q, [row[3].q for row in new_rows], float)[order],
        )

    def reserve(self, window: Window) -> None:
        """Take a window's tasks out of the free slots (slot subtraction).

        Raises:
            ValueError: a task does not fit inside one free slot of its node.
        """
        for node_id in window.nodes:
            if not self.is_free(node_id, window.start, window.finish):
                raise ValueError(
                    f"node {node_id} is not free over [{window.start}, {window.finish})"
                )
        self.occupy_updating_table(
            (node_id, window.start, window.finish) for node_id in window.nodes
        )

    def release(self, node_id: int, start: float, end: float) -> None:
        """Give ``[start, end)`` of a node back, merging it with touching free intervals."""
        if end <= start:
            return
        intervals = self._free[node_id]
        merged_start, merged_end = start, end
        kept = []
        for a, b in intervals:
            if b < merged_start - MIN_SLOT_LENGTH or a > merged_end + MIN_SLOT_LENGTH:
                kept.append((a, b))
            else:
                merged_start, merged_end = min(a, merged_start), max(b, merged_end)
        bisect.insort(kept, (merged_start, merged_end))
        self._free[node_id] = kept
        self._table = None

    def release_window(self, window: Window) -> None:
        for node_id in window.nodes:
            self.release(node_id, window.start, window.finish)

    # -- internals -------------------------------------------------------------------------

    def _build_table(self) -> SlotTable:
        node_ids, starts, ends = [], [], []
        for node_id, intervals in enumerate(self._free):
            for a, b in intervals:
                node_ids.append(node_id)
                starts.append(a)
                ends.append(b)
        node = np.asarray(node_ids, dtype=np.int64)
        start = np.asarray(starts, dtype=float)
        end = np.asarray(ends, dtype=float)
        order = np.lexsort((node, start))
        node, start, end = node[order], start[order], end[order]
        performance = np.array([n.performance for n in self.nodes], dtype=float)
        price = np.array([n.price for n in self.nodes], dtype=float)
        q = np.array([n.q for n in self.nodes], dtype=float)
        return SlotTable(
            node=node,
            start=start,
            end=end,
            performance=performance[node] if len(node) else performance[:0],
            price=price[node] if len(node) else price[:0],
            q=q[node] if len(node) else q[:0],
        )


#: Times closer than this are equal (float dust from repeated additions).
TIME_TOLERANCE = 1e-9


def priority_key(priority: Priority):
    """Sort key of jobs for a priority policy."""
    if priority == "fcfs":
        return lambda job: (job.arrival, job.id)
    if priority == "sjf":
        return lambda job: (job.volume, job.arrival, job.id)
    raise ValueError(f"priority must be 'fcfs' or 'sjf', got {priority!r}")


class ReservationPlanner:
    """What every node-level planner shares: the profile, the jobs and their windows.

    Subclasses (conservative backfilling here, FCFS and EASY in
    :mod:`gridsim.scheduling.queue_policies`) add ``submit``, ``finish`` and ``overrun``.

    Args:
        nodes: the environment's nodes (ids 0..N-1).
        busy: per node, the local-load busy intervals ``(start, end)``.
        criterion (Criterion): the resource-selection policy (anything with
            ``search(profile, request)``).
        priority: ``"fcfs"`` or ``"sjf"``.
        horizon_start: the simulation start (the left edge of every first slot).

    Attributes:
        reservations: queued jobs' windows, by job id.
        running: started jobs' windows, by job id.
        first_promised: the first window start each job was given.
        delays: per job, how much later than promised re-planning made it start.
    """

    def __init__(
        self,
        nodes: Sequence[Node],
        busy: Sequence[Iterable[tuple[float, float]]],
        criterion,
        priority: Priority = "fcfs",
        horizon_start: float = 0.0,
    ) -> None:
        self.nodes = tuple(nodes)
        self.busy = [sorted(intervals) for intervals in busy]
        self.profile = Profile(self.nodes, self.busy, horizon_start, math.inf)
        self.criterion = criterion
        self.key = priority_key(priority)
        self.jobs: dict[int, Job] = {}
        self.reservations: dict[int, Window] = {}
        self.running: dict[int, Window] = {}
        self.busy_until: dict[int, float] = {}
        self.first_promised: dict[int, float] = {}
        self.delays: dict[int, float] = {}

    def start(self, job_id: int) -> Window:
        """The job's reservation begins: it leaves the queue."""
        window = self.reservations.pop(job_id)
        self.running[job_id] = window
        self.busy_until[job_id] = window.finish
        return window

    def _end_running(self, job_id: int, now: float) -> bool:
        """The job ended at ``now``: give back the unused rest of its window; True if any."""
        window = self.running.pop(job_id)
        planned_end = self.busy_until.pop(job_id)
        if now >= planned_end - TIME_TOLERANCE:
            return False
        for node_id in window.nodes:
            self.profile.release(node_id, now, planned_end)
        return True

    def _overrun_end(self, job_id: int, end: float) -> float:
        """The end an overrunning job may run to: ``end``, or where local load begins."""
        window = self.running[job_id]
        planned_end = self.busy_until[job_id]
        for node_id in window.nodes:
            for load_start, load_end in self.busy[node_id]:
                if load_end > planned_end + TIME_TOLERANCE and load_start < end:
                    end = max(planned_end, min(end, load_start))
        self.busy_until[job_id] = end
        return end


class ConservativeBackfilling(ReservationPlanner):
    """Reservations of a job flow under one criterion (see the module docstring).

    Takes the arguments of :class:`ReservationPlanner`. ``first_promised`` is the reservation
    given on submission; ``delays`` counts only what overruns cost.
    """

    # -- events ----------------------------------------------------------------------------

    def submit(self, jobs: Iterable[Job], now: float) -> tuple[dict[int, Window], list[Job]]:
        """Plan newly arrived jobs in priority order.

        Returns:
            The new reservations by job id, and the jobs no window fits (rejected).
        """
        planned: dict[int, Window] = {}
        rejected: list[Job] = []
        for job in sorted(jobs, key=self.key):
            window = self.criterion.search(self.profile, job.request(now))
            if window is None:
                rejected.append(job)
                continue
            self.profile.reserve(window)
            self.jobs[job.id] = job
            self.reservations[job.id] = window
            self.first_promised[job.id] = window.start
            planned[job.id] = window
        return planned, rejected

    def finish(self, job_id: int, now: float) -> dict[int, Window]:
        """The job ended at ``now``; an early end releases its rest and compresses the queue.

        Returns:
            The queued jobs whose reservation moved (earlier), by job id.
        """
        if not self._end_running(job_id, now):
            return {}
        return self.compress(now)

    def overrun(self, job_id: int, now: float, end: float) -> tuple[float, dict[int, Window]]:
        """The job runs past its window until ``end`` (revealed at the planned end ``now``).

        Returns:
            The end the job may run to (earlier than ``end`` if it would run into local
            load) and the queued jobs whose reservation was moved, by job id.
        """
        window = self.running[job_id]
        planned_end = self.busy_until[job_id]
        end = self._overrun_end(job_id, end)
        nodes = set(window.nodes)
        colliding = [
            other
            for other, reserved in self.reservations.items()
            if nodes.intersection(reserved.nodes)
            and reserved.start < end - TIME_TOLERANCE
            and reserved.finish > planned_end + TIME_TOLERANCE
        ]
        for other in colliding:
            self.profile.release_window(self.reservations[other])
        for node_id in window.nodes:
            self.profile.occupy(node_id, planned_end, end)
        moved = {}
        for other in sorted(colliding, key=lambda i: self.key(self.jobs[i])):
            old = self.reservations[other]
            new = self.criterion.search(self.profile, self.jobs[other].request(now))
            if new is None:  # cannot happen with an infinite horizon; kept for finite ones
                raise RuntimeError(f"job {other} lost its reservation and no window fits")
            self.profile.reserve(new)
            self.reservations[other] = new
            self.delays[other] = self.delays.get(other, 0.0) + max(0.0, new.start - old.start)
            moved[other] = new
        return end, moved

    # -- planning ----------------------------------------------------------------------------

    def compress(self, now: float) -> dict[int, Window]:
        """Re-plan every queued job in priority order; keep a new window only if it is earlier."""
        moved = {}
        for job_id in sorted(self.reservations, key=lambda i: self.key(self.jobs[i])):
            old = self.reservations[job_id]
            self.profile.release_window(old)
            new = self.criterion.search(self.profile, self.jobs[job_id].request(now))
            if new is not None and earlier(new, old):
                self.profile.reserve(new)
                self.reservations[job_id] = new
                moved[job_id] = new
            else:
                self.profile.reserve(old)
        return moved


def earlier(new: Window, old: Window) -> bool:
    """No later in start and finish, and strictly earlier in one of them."""
    no_later = new.start <= old.start + TIME_TOLERANCE and new.finish <= old.finish + TIME_TOLERANCE
    strictly = new.start < old.start - TIME_TOLERANCE or new.finish < old.finish - TIME_TOLERANCE
    return no_later and strictly


class _QueuePlanner(ReservationPlanner):
    """Helpers of the re-planning planners: release the queue, keep or take windows."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._eligible: dict[float, list[Node]] = {}

    def _release_queue(self) -> dict[int, Window]:
        """Take every queued window out of the profile; returns them (the old plan)."""
        old, self.reservations = self.reservations, {}
        for window in old.values():
            self.profile.release_window(window)
        return old

    def _is_free(self, window: Window) -> bool:
        return all(self.profile.is_free(i, window.start, window.finish) for i in window.nodes)

    def _choose(
        self, job: Job, now: float, old: Window | None, floor: float = -math.inf
    ) -> Window | None:
        """The criterion's window for ``job`` starting no earlier than ``floor``, or ``old``
        if it is still free, starts no earlier than ``floor`` and the new one is not earlier.
        A free ``old`` that starts now is kept as it is: the job is as good as started.
        """
        request = job.request(now)
        if floor > request.earliest_start:
            request = replace(request, earliest_start=floor)
        if old is None or old.start < floor - TIME_TOLERANCE or not self._is_free(old):
            return self.criterion.search(self.profile, request)
        if old.start <= now + TIME_TOLERANCE or self._unbeatable(old, request.earliest_start, job):
            return old  # the search could only confirm it, or the job is starting
        new = self.criterion.search(self.profile, request)
        return new if new is not None and earlier(new, old) else old

    def _unbeatable(self, old: Window, lo: float, job: Job) -> bool:
        """No window for ``job`` from ``lo`` on can be earlier than ``old``: none can start
        before it (no instant of ``[lo, old.start)`` has ``n`` eligible nodes free), and none
        starting with it can be shorter (its slowest node is as fast as any eligible node).
        """
        eligible = self._eligible_nodes(job.min_performance)
        if min(self.nodes[i].performance for i in old.nodes) < eligible[0].performance:
            return False
        hi = old.start - TIME_TOLERANCE
        if hi <= lo:
            return True
        changes: list[tuple[float, int]] = []  # free count +1 / -1 at each time in [lo, hi)
        for node in eligible:
            for a, b in self.profile.free_intervals(node.id):
                if a < hi and b > lo:
                    changes.append((max(a, lo), 1))
                    if b < hi:
                        changes.append((b, -1))
        if len(changes) < job.n:
            return True
        free = 0
        for _, change in sorted(changes):  # ends (-1) before starts (+1) at one time
            free += change
            if free >= job.n:
                return False
        return True

    def _eligible_nodes(self, min_performance: float) -> list[Node]:
        """Nodes at least ``min_performance`` fast, fastest first (cached)."""
        if min_performance not in self._eligible:
            nodes = [node for node in self.nodes if node.performance >= min_performance]
            self._eligible[min_performance] = sorted(nodes, key=lambda n: -n.performance)
        return self._eligible[min_performance]

    def _feasible(self, job: Job, now: float) -> bool:
        """Some window fits the job (with no budget: it has enough eligible nodes)."""
        if math.isinf(job.budget):
            return len(self._eligible_nodes(job.min_performance)) >= job.n
        return self.criterion.search(self.profile, job.request(now)) is not None

    def _hold(self, job_id: int, window: Window, old: Window | None) -> None:
        """Reserve ``window`` for the job and record it."""
        self.profile.reserve(window)
        self._record(job_id, window, old)

    def _record(self, job_id: int, window: Window, old: Window | None) -> None:
        """The job holds ``window`` (already reserved): note a first promise, or a delay."""
        self.reservations[job_id] = window
        self.first_promised.setdefault(job_id, window.start)
        if old is not None and window.start > old.start + TIME_TOLERANCE:
            self.delays[job_id] = self.delays.get(job_id, 0.0) + window.start - old.start

    def _changes(self, old: dict[int, Window]) -> Changes:
        """Windows new or moved since ``old``, and ``None`` for those withdrawn."""
        changes: Changes = {}
        for job_id in old.keys() | self.reservations.keys():
            window = self.reservations.get(job_id)
            if window != old.get(job_id):
                changes[job_id] = window
        return changes

    def overrun(self, job_id: int, now: float, end: float) -> tuple[float, Changes]:
        """The job keeps its nodes until ``end`` (or local load); the queue is planned again."""
        planned_end = self.busy_until[job_id]
        end = self._overrun_end(job_id, end)
        old = self._release_queue()
        for node_id in self.running[job_id].nodes:
            self.profile.occupy(node_id, planned_end, end)
        return end, self._plan_queue(now, old)

    def _plan_queue(self, now: float, old: dict[int, Window]) -> Changes:
        """Plan the released queue again (``old``: its windows before); the changes."""
        raise NotImplementedError


class FcfsReservations(_QueuePlanner):
    """FCFS on nodes: every queued job holds a window, and windows start in priority order.

    Takes the arguments of :class:`~gridsim.scheduling.backfilling.ReservationPlanner`.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.last_start = -math.inf

    def submit(self, jobs: Iterable[Job], now: float) -> tuple[Changes, list[Job]]:
        """Plan newly arrived jobs after the queue (or re-plan it if one overtakes it)."""
        new = sorted(jobs, key=self.key)
        last = max(self.reservations, key=lambda i: self.key(self.jobs[i]), default=None)
        if new and last is not None and self.key(new[0]) < self.key(self.jobs[last]):
            # SJF: a new job overtakes queued ones, so the whole queue is planned again.
            rejected = [job for job in new if not self._feasible(job, now)]
            new = [job for job in new if job not in rejected]
            self.jobs.update((job.id, job) for job in new)
            return self._plan_queue(now, self._release_queue(), new), rejected
        floor = max([self.last_start, *(w.start for w in self.reservations.values())])
        planned: Changes = {}
        rejected = []
        for job in new:
            window = self._choose(job, now, None, floor)
            if window is None:
                rejected.append(job)
                continue
            self.jobs[job.id] = job
            self._hold(job.id, window, None)
            planned[job.id] = window
            floor = window.start
        return planned, rejected

    def start(self, job_id: int) -> Window:
        window = super().start(job_id)
        self.last_start = max(self.last_start, window.start)
        return window

    def finish(self, job_id: int, now: float) -> Changes:
        """An early end gives back the rest of the window and re-plans the queue."""
        if not self._end_running(job_id, now):
            return {}
        return self._plan_queue(now, self._release_queue())

    def _plan(self, job: Job, now: float, old: Window | None, floor: float) -> Window:
        """Reserve the job's window starting no earlier than ``floor`` (see ``_choose``)."""
        window = self._choose(job, now, old, floor)
        if window is None:  # cannot happen with an infinite horizon: it fitted before
            raise RuntimeError(f"job {job.id} lost its reservation and no window fits")
        self._hold(job.id, window, old)
        return window

    def _plan_queue(self, now: float, old: dict[int, Window], new: Sequence[Job] = ()) -> Changes:
        """Plan the queue (``old``'s jobs and ``new``) in priority order, in start order."""
        floor = self.last_start
        for job in sorted([*(self.jobs[i] for i in old), *new], key=self.key):
            floor = self._plan(job, now, old.get(job.id), floor).start
        return self._changes(old)


class EasyBackfilling(_QueuePlanner):
    """EASY on nodes: only the head of the queue holds a reservation (module docstring).

    Takes the arguments of :class:`~gridsim.scheduling.backfilling.ReservationPlanner`.

    Attributes:
        waiting: queued jobs by id (those starting now included until they start).
        head: the job holding the reservation, if any.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.waiting: dict[int, Job] = {}
        self.head: int | None = None

    def submit(self, jobs: Iterable[Job], now: float) -> tuple[Changes, list[Job]]:
        """Queue the new jobs (rejecting those no window fits) and walk the queue."""
        rejected = []
        for job in jobs:
            if not self._feasible(job, now):
                rejected.append(job)
                continue
            self.jobs[job.id] = job
            self.waiting[job.id] = job
        return self._plan_queue(now, self._release_queue()), rejected

    def start(self, job_id: int) -> Window:
        del self.waiting[job_id]
        if self.head == job_id:
            self.head = None
        return super().start(job_id)

    def finish(self, job_id: int, now: float) -> Changes:
        """Any completion (early or not) may let queued jobs start: walk the queue."""
        self._end_running(job_id, now)
        return self._plan_queue(now, self._release_queue())

    def _plan_queue(self, now: float, old: dict[int, Window]) -> Changes:
        """Start what can start now, reserve the head, backfill behind it (module docstring)."""
        free_now = self._free_at(now)
        self.head = None
        for job in sorted(self.waiting.values(), key=self.key):
            previous = old.get(job.id)
            if self.head is not None and _count_eligible(self.nodes, free_now, job) < job.n:
                continue  # no window can start now: skip the searches
            window = self._choose(job, now, previous)
            if window is None:  # cannot happen with an infinite horizon: it fitted before
                raise RuntimeError(f"job {job.id} has no window although it fitted before")
            if window.start <= now + TIME_TOLERANCE:
                self._hold(job.id, window, previous)
            elif self.head is None:
                self.head = job.id
                self._hold(job.id, window, previous)
                continue
            elif (window := self._around_head(job, now, previous)) is None:
                continue
            free_now.difference_update(window.nodes)
        return self._changes(old)

    def _around_head(self, job: Job, now: float, previous: Window | None) -> Window | None:
        """A window starting now for ``job`` that the head, re-planned, does not pay for.

        The criterion chooses ``job``'s window without the head's reservation; if it starts
        now, the head is re-planned around it and must start and finish no later. Returns
        the job's window (held, with the head's possibly moved one), or ``None`` (nothing
        changed).
        """
        assert self.head is not None
        head = self.jobs[self.head]
        head_window = self.reservations[head.id]
        self.profile.release_window(head_window)
        window = self.criterion.search(self.profile, job.request(now))
        if window is not None and window.start <= now + TIME_TOLERANCE:
            self.profile.reserve(window)
            moved = self._choose(head, now, head_window)
            if (
                moved is not None
                and moved.start <= head_window.start + TIME_TOLERANCE
                and moved.finish <= head_window.finish + TIME_TOLERANCE
            ):
                self._hold(head.id, moved, head_window)
                self._record(job.id, window, previous)
                return window
            self.profile.release_window(window)
        self.profile.reserve(head_window)
        return None

    def _free_at(self, now: float) -> set[int]:
        """Nodes free at the instant ``now`` (a window starting now can only use these)."""
        after = math.nextafter(now, math.inf)
        return {node.id for node in self.nodes if self.profile.is_free(node.id, now, after)}


def _count_eligible(nodes: Sequence[Node], free: set[int], job: Job) -> int:
    """How many of the ``free`` nodes are fast enough for ``job``."""
    if job.min_performance <= 0:
        return len(free)
    return sum(1 for i in free if nodes[i].performance >= job.min_performance)


PLANNERS: dict[str, type[ReservationPlanner]] = {
    "fcfs": FcfsReservations,
    "easy": EasyBackfilling,
    "conservative": ConservativeBackfilling,
}


def build_planner(
    name: str,
    nodes: Sequence[Node],
    busy: Sequence[Iterable[tuple[float, float]]],
    criterion,
    priority: Priority = "fcfs",
) -> ReservationPlanner:
    """The node-level planner called ``name`` (``fcfs``, ``easy`` or ``conservative``)."""
    if name not in PLANNERS:
        raise ValueError(f"expected a scheduler among {list(PLANNERS)}, got {name!r}")
    return PLANNERS[name](nodes, busy, criterion, priority)
