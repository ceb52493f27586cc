"""Conservative backfilling with SSA-based resource selection [TY20, Sec. 2.2 and 4.1].

Consumes nodes, their local load (known busy intervals), a criterion and the events the
simulator reports (submissions, starts, early finishes, overruns); produces reservations
(:class:`~gridsim.model.Window`) for every queued job. Pure planning code: no clock, no SimPy;
every method is told the current time.

Rules:

* Every queued job holds a reservation. A job is planned, when it is submitted, in the profile
  that already holds every earlier reservation, so it never delays one of them
  (``Request(earliest_start=max(arrival, now))``). Jobs submitted at the same time are planned
  in priority order: FCFS (arrival, then id) or SJF (volume, then arrival, then id).
* Early finish: the unused rest of the window is released and the queued (not yet started)
  jobs are re-planned in priority order (compression). A new window is taken only if it starts
  no later and finishes no later than the old one and is earlier in one of them; otherwise the
  old reservation is kept. So a job never starts later than first promised.
* Overrun: the job keeps its nodes until its real end (the simulator reveals it at the planned
  end). Queued reservations that collide with the extra time are re-planned in priority order
  in the remaining profile; how much later they start is recorded in :attr:`delays`. If the
  extra time runs into a node's local load, the job is stopped when that load begins
  (``final_state = "killed"``).

Cost: one window search per submission; an early finish searches only the queued jobs that
might get an earlier window, the others are ruled out by a sweep over the slot table
(:mod:`gridsim.scheduling.earlier_windows`, tens of microseconds against a search's
milliseconds). The profile forgets free intervals that ended before the present, so it holds
about one slot per node plus two per queued reservation however long the log. The result is
the plain re-planning's, job for job (``tests/nodereplay``; docs/swf.md, "Node-level replays
at log scale").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import ClassVar

import numpy as np

from gridsim.model import TIME_TOLERANCE, Job, Node, Priority, Request, Window
from gridsim.profile import Profile
from gridsim.scheduling.earlier_windows import may_move_earlier
from gridsim.scheduling.power_plan import OVER_CAP, CappedProfile, capped_search, fits_lowest_cap
from gridsim.scheduling.resource_profile import PowerLimit

#: The trace's reason for a job no window fits.
NO_WINDOW = "no window fits the request"


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
        power: a cap on the total busy power (None: none): the profile is then a
            :class:`~gridsim.scheduling.power_plan.CappedProfile` and every window comes
            from :func:`~gridsim.scheduling.power_plan.capped_search` (docs/model.md,
            "Power cap of the window-search planners").

    Attributes:
        skip_tests: whether cheap tests may stand in for window searches that could not
            change a reservation (built-in criteria; see
            :mod:`gridsim.scheduling.earlier_windows`).
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
        power: PowerLimit | None = None,
    ) -> None:
        self.nodes = tuple(nodes)
        self.busy = [sorted(intervals) for intervals in busy]
        if power is None:
            self.profile = Profile(self.nodes, self.busy, horizon_start, math.inf)
        else:
            self.profile = CappedProfile(self.nodes, self.busy, horizon_start, power)
        self._performance = np.array([node.performance for node in self.nodes], dtype=float)
        self.skip_tests = _searches_one_volume(criterion)
        self.criterion = criterion
        self.key = priority_key(priority)
        self.jobs: dict[int, Job] = {}
        self.reservations: dict[int, Window] = {}
        self.running: dict[int, Window] = {}
        self.busy_until: dict[int, float] = {}
        self.first_promised: dict[int, float] = {}
        self.delays: dict[int, float] = {}

    def search(self, request: Request, before: float = math.inf) -> Window | None:
        """The criterion's window for ``request`` in the profile (under the cap, if any).

        ``before``: the caller takes the window only if it starts no later (a re-planned
        job keeps its own otherwise); under a cap the search may then stop early and return
        None (:func:`~gridsim.scheduling.power_plan.capped_search`)."""
        if isinstance(self.profile, CappedProfile):
            return capped_search(self.criterion, self.profile, request, before)
        return self.criterion.search(self.profile, request)

    def over_power_cap(self, job: Job) -> bool:
        """Whether ``job`` can never start under the cap: its least-drawing eligible nodes
        draw more than the cap's lowest value (such jobs are rejected on submission)."""
        return isinstance(self.profile, CappedProfile) and not fits_lowest_cap(
            self.profile, job.request(0.0)
        )

    def rejection_reason(self, job: Job) -> str:
        """Why ``job`` was rejected, for the trace."""
        return OVER_CAP if self.over_power_cap(job) else NO_WINDOW

    def _advance(self, now: float) -> None:
        """Events come in time order: the profile forgets what ended before ``now``."""
        self.profile.forget_before(now)

    def start(self, job_id: int) -> Window:
        """The job's reservation begins: it leaves the queue."""
        window = self.reservations.pop(job_id)
        self.running[job_id] = window
        self.busy_until[job_id] = window.finish
        return window

    def _end_running(self, job_id: int, now: float) -> bool:
        """The job ended at ``now``: give back the unused rest of its window; True if any."""
        self._advance(now)
        window = self.running.pop(job_id)
        planned_end = self.busy_until.pop(job_id)
        if now >= planned_end - TIME_TOLERANCE:
            return False
        self.profile.release_updating_table((node_id, now, planned_end) for node_id in window.nodes)
        return True

    def _may_move_earlier(self, job: Job, old: Window, lo: float) -> bool:
        """False if no window for ``job`` from ``lo`` on can be earlier than its reserved
        ``old`` (:func:`~gridsim.scheduling.earlier_windows.may_move_earlier`); always True
        without :attr:`skip_tests` or in discrete time (the test reads a volume off the
        window's runtime, which rounding has lengthened)."""
        if not self.skip_tests or job.time_quantum > 0:
            return True
        return may_move_earlier(
            self.profile.slot_table(),
            self._performance,
            job.n,
            job.min_performance,
            max(job.arrival, lo),
            old,
            TIME_TOLERANCE,
        )

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

    #: A queued job's window never moves later, but for overruns: no job starts later than
    #: first promised (the guard of plugin schedulers checks it, gridsim.scheduling.guard).
    never_delays: ClassVar[bool] = True

    # -- events ----------------------------------------------------------------------------

    def submit(self, jobs: Iterable[Job], now: float) -> tuple[dict[int, Window], list[Job]]:
        """Plan newly arrived jobs in priority order.

        Returns:
            The new reservations by job id, and the jobs no window fits (rejected).
        """
        self._advance(now)
        planned: dict[int, Window] = {}
        rejected: list[Job] = []
        for job in sorted(jobs, key=self.key):
            window = None if self.over_power_cap(job) else self.search(job.request(now))
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
        self._advance(now)
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
            new = self.search(self.jobs[other].request(now))
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
            if not self._may_move_earlier(self.jobs[job_id], old, now):
                continue  # the search could only give a window that is not earlier
            self.profile.release_window(old)
            new = self.search(self.jobs[job_id].request(now), old.start + TIME_TOLERANCE)
            if new is not None and earlier(new, old):
                self.profile.reserve(new)
                self.reservations[job_id] = new
                moved[job_id] = new
            else:
                self.profile.reserve(old)
        return moved


def _searches_one_volume(criterion) -> bool:
    """Whether ``criterion`` is a built-in one: every window it gives a job lasts one volume
    (the job's, or a fixed share of it) over the slowest node's performance, which the tests
    that skip searches rely on. A plugin's (wrapped in a guard) is searched every time."""
    from gridsim.selection.criteria import Criterion

    return isinstance(criterion, Criterion)


def earlier(new: Window, old: Window) -> bool:
    """No later in start and finish, and strictly earlier in one of them."""
    no_later = new.start <= old.start + TIME_TOLERANCE and new.finish <= old.finish + TIME_TOLERANCE
    strictly = new.start < old.start - TIME_TOLERANCE or new.finish < old.finish - TIME_TOLERANCE
    return no_later and strictly
