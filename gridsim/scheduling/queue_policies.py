"""Node-level FCFS and EASY backfilling with the registry's resource selection.

Consumes what :class:`~gridsim.scheduling.backfilling.ConservativeBackfilling` consumes (nodes,
local load, a criterion, a priority) and the same events from the engine
(:mod:`gridsim.sim.engine`); produces, at every event, the windows that are new or moved, by
job id, with ``None`` for a job that lost its window. Pure planning code: no clock, no SimPy.
They exist so that FCFS and EASY can run where node identities matter (nodes that differ in
performance or price), with the window each job gets chosen by the criterion (BFstart,
BFfinish, CoP, ...) rather than by a processor count.

Both plan with the jobs' planned runtimes and learn the actual ones from the engine. One rule
is shared with conservative backfilling: a job that already holds a window keeps it when it is
re-planned, unless the criterion's new window is earlier (no later in start and finish, and
earlier in one) or the old window is no longer free (an overrun took it).

* :class:`FcfsReservations` (FCFS): every queued job holds a window, chosen by the criterion
  among those starting no earlier than the previous queued job's window (and the last
  started job's start), so jobs start in priority order. An early finish or an overrun
  re-plans the whole queue in that order.
* :class:`EasyBackfilling` (EASY, only the head holds a reservation): at every submission and
  completion the queued jobs' windows are released and the queue is walked in priority
  order. A job whose window (searched from now) starts now starts. The first job that
  cannot is the head and keeps a window. A later job starts now if the window the criterion
  chooses for it with the head's window reserved starts now; failing that, if the window it
  chooses without the head's window starts now and the head, re-planned around it, starts
  and finishes no later. Otherwise it waits with no window.

Why the second EASY test: a head window is a particular set of nodes, and the criterion may
put the head on nodes that are free now although others free up in time (BFstart takes slots
in start order). Testing later jobs only against that fixed set would refuse jobs that
classical EASY backfills on the head's "extra" processors. Re-planning the head around the
candidate makes the guarantee the head's start time, as in EASY. On identical nodes with the
earliest-start criterion (BFstart) the two tests together are exactly the classical rule, and
the start times equal those of :class:`~gridsim.scheduling.log_schedulers.Easy` (tested).

Cost per event: FCFS one window search per new job, and after an early finish or overrun one
per queued job that might get an earlier window (the others keep theirs after the test of
:mod:`gridsim.scheduling.earlier_windows`). EASY up to three searches per queued job that
might start now; a job is skipped without a search when fewer eligible nodes than it needs
are free now, or when no window of the volume its criterion searched it with can start now
even without the head's reservation.
"""

from __future__ import annotations

import difflib
import inspect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import AfterValidator

from gridsim.model import TIME_TOLERANCE, Job, Node, Priority, Request, Window
from gridsim.plugins import GROUPS, PluginLoadError, check_contract, find_class, installed
from gridsim.scheduling.backfilling import ConservativeBackfilling, ReservationPlanner, earlier
from gridsim.scheduling.earlier_windows import may_start_at
from gridsim.scheduling.guard import GuardedScheduler
from gridsim.scheduling.resource_profile import PowerLimit
from gridsim.selection.guard import GuardedCriterion

SchedulerName = Literal["fcfs", "easy", "conservative"]

#: Windows that changed at an event, by job id; ``None``: the job lost its window.
Changes = dict[int, Window | None]


class _QueuePlanner(ReservationPlanner):
    """Helpers of the re-planning planners: release the queue, keep or take windows."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._eligible: dict[float, list[Node]] = {}
        self._volumes: dict[int, float] = {}

    def _search(self, job: Job, request: Request, before: float = math.inf) -> Window | None:
        """The criterion's window for ``job``; notes the volume the criterion searched with
        (runtime times the slowest node's performance: BFshort shortens the job's own).
        ``before``: as :meth:`ReservationPlanner.search`."""
        window = self.search(request, before)
        if window is not None:
            slowest = min(self.nodes[i].performance for i in window.nodes)
            self._volumes[job.id] = window.runtime * slowest
        return window

    def _release_queue(self) -> dict[int, Window]:
        """Take every queued window out of the profile; returns them (the old plan)."""
        old, self.reservations = self.reservations, {}
        for window in old.values():
            self.profile.release_window(window)
        return old

    def _choose(
        self,
        job: Job,
        now: float,
        old: Window | None,
        floor: float = -math.inf,
        before: float = math.inf,
    ) -> Window | None:
        """The criterion's window for ``job`` starting no earlier than ``floor``, or ``old``
        if it is still free, starts no earlier than ``floor`` and the new one is not earlier.
        A free ``old`` that starts now is kept as it is: the job is as good as started.
        ``before``: the caller uses a new window only if it starts by then (under a cap the
        search may then stop early, :meth:`ReservationPlanner.search`).
        """
        request = job.request(now)
        if floor > request.earliest_start:
            request = replace(request, earliest_start=floor)
        if old is None or old.start < floor - TIME_TOLERANCE or not self.profile.holds(old):
            return self._search(job, request, before)
        if old.start <= now + TIME_TOLERANCE:
            return old  # the job is starting
        if not self._may_move_earlier(job, old, request.earliest_start):
            return old  # the search could only confirm it
        new = self._search(job, request, min(before, old.start + TIME_TOLERANCE))
        return new if new is not None and earlier(new, old) else old

    def _eligible_nodes(self, min_performance: float) -> list[Node]:
        """Nodes at least ``min_performance`` fast, fastest first (cached)."""
        if min_performance not in self._eligible:
            nodes = [node for node in self.nodes if node.performance >= min_performance]
            self._eligible[min_performance] = sorted(nodes, key=lambda n: -n.performance)
        return self._eligible[min_performance]

    def _feasible(self, job: Job, now: float) -> bool:
        """Some window fits the job (with no budget: it has enough eligible nodes, and
        under a power cap nodes that draw little enough)."""
        if self.over_power_cap(job):
            return False
        if math.isinf(job.budget) and job.nodes_allowed is None:
            return len(self._eligible_nodes(job.min_performance)) >= job.n
        return self._search(job, job.request(now)) is not None

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
        self._advance(now)
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
        self._advance(now)
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
            window = None if self.over_power_cap(job) else self._choose(job, now, None, floor)
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
        self._advance(now)
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
            if self.head is not None and previous is None and not self._may_start_now(job, now):
                continue  # neither search could give a window starting now
            # Behind a head only a window starting now is of use.
            before = math.inf if self.head is None else now + TIME_TOLERANCE
            window = self._choose(job, now, previous, before=before)
            if window is None and self.head is None:  # an infinite horizon: it fitted before
                raise RuntimeError(f"job {job.id} has no window although it fitted before")
            if window is not None and window.start <= now + TIME_TOLERANCE:
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
        window = self._search(job, job.request(now), now + TIME_TOLERANCE)
        if window is not None and window.start <= now + TIME_TOLERANCE:
            self.profile.reserve(window)
            moved = self._choose(head, now, head_window, before=head_window.start + TIME_TOLERANCE)
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

    def _may_start_now(self, job: Job, now: float) -> bool:
        """False if no window for ``job`` can start now, even without the head's reservation
        (:func:`~gridsim.scheduling.earlier_windows.may_start_at`); True until a search has
        shown the volume the criterion searches the job with."""
        volume = self._volumes.get(job.id)
        if volume is None or not self.skip_tests or job.time_quantum > 0:
            return True
        assert self.head is not None
        table = self.profile.slot_table()
        head = self.reservations[self.head]
        return may_start_at(
            table, job.n, volume, job.min_performance, now, TIME_TOLERANCE, released=head
        )

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


#: What a plugin scheduler must define (:mod:`gridsim.plugins`): the engine's
#: :class:`~gridsim.sim.engine.Scheduler` protocol on top of ``ReservationPlanner``.
PLUGIN_CONTRACT = (
    (
        ReservationPlanner,
        {"submit": ("jobs", "now"), "finish": ("job_id", "now"),
         "overrun": ("job_id", "now", "end")},
    ),
)  # fmt: skip


def build_planner(
    name: SchedulerName | str | Mapping[str, Any],
    nodes: Sequence[Node],
    busy: Sequence[Iterable[tuple[float, float]]],
    criterion,
    priority: Priority = "fcfs",
    power: PowerLimit | None = None,
):
    """The node-level planner ``name`` names: ``fcfs``, ``easy``, ``conservative``, or a
    plugin (``package.module:Class`` or a ``gridsim.schedulers`` entry point, optionally
    ``{name: ..., <parameter>: ...}``), which comes back guarded
    (:class:`~gridsim.scheduling.guard.GuardedScheduler`), as does any planner driving a plugin
    criterion. ``power``: a cap on the busy power, which the built-in planners plan under.
    """
    cls, params, origin = scheduler_class(name)
    if power is not None:
        if origin is not None:
            raise ValueError(f"scheduler {origin}: only the built-in planners plan under a "
                             "power cap")  # fmt: skip
        params["power"] = power
    planner = cls(nodes, busy, criterion, priority, **params)
    if origin is not None:
        return GuardedScheduler(planner, origin)
    if isinstance(criterion, GuardedCriterion):
        return GuardedScheduler(planner, criterion.origin, checked=False)
    return planner


def scheduler_class(
    spec: str | Mapping[str, Any],
) -> tuple[type[ReservationPlanner], dict[str, Any], str | None]:
    """The planner class ``spec`` names, its parameters, and the plugin's name as written
    (None for a built-in); ValueError with one line if it is unknown or breaks its contract."""
    params = {"name": spec} if isinstance(spec, str) else dict(spec)
    name = params.pop("name", None)
    built_in = isinstance(name, str) and name in PLANNERS
    if built_in and not params:
        return PLANNERS[name], params, None
    if built_in:
        raise ValueError(f"scheduler {name} takes no parameters, got {sorted(params)}")
    found = find_class(name, GROUPS["scheduler"]) if isinstance(name, str) else None
    if found is None:
        close = difflib.get_close_matches(str(name), [*PLANNERS, *installed(GROUPS["scheduler"])])
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise PluginLoadError(
            f"unknown scheduler {name!r}{hint}: expected one of {', '.join(PLANNERS)}, a "
            "'package.module:Class' or an installed gridsim.schedulers entry point"
        )
    check_contract(found, PLUGIN_CONTRACT, "scheduler", name)
    try:
        inspect.signature(found).bind(None, None, None, None, **params)
    except TypeError:
        raise PluginLoadError(
            f"scheduler {name} takes no parameter {sorted(params)[0]!r}; its constructor is "
            f"{found.__name__}{inspect.signature(found)}"
        ) from None
    return found, params, name


def describe_plugin_schedulers() -> list[tuple[str, str]]:
    """(name, class or why it cannot be used) of every installed plugin scheduler."""
    rows = []
    for name, entry_point in installed(GROUPS["scheduler"]).items():
        try:
            cls, _, origin = scheduler_class(name)
        except PluginLoadError as error:
            rows.append((name, f"unusable: {error}"))
            continue
        if origin is None:
            rows.append((name, f"hidden by the built-in {name}; name it as {entry_point.value}"))
        else:
            summary = (cls.__doc__ or "").strip().partition("\n")[0]
            rows.append((name, f"{summary} [{entry_point.value}]"))
    return rows


def check_scheduler_spec(spec: str | dict[str, Any]) -> str | dict[str, Any]:
    """A scenario's ``scheduler``: it names a built-in planner or a valid plugin."""
    try:
        scheduler_class(spec)
    except PluginLoadError as error:
        raise ValueError(str(error)) from None
    return spec


#: The ``scheduler`` field of job-flow scenarios: a built-in planner's name or a plugin.
SchedulerSpec = Annotated[str | dict[str, Any], AfterValidator(check_scheduler_spec)]
