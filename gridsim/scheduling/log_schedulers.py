"""FCFS, EASY and conservative backfilling on a processor count, for replaying workload logs.

Consumes a log's jobs as parallel sequences in priority order (arrival order: submit time,
then job id) -- processors, estimate (s) -- and the events the replay loop reports at each
instant (completions, then arrivals); produces which jobs start now and, for conservative
backfilling, every queued job's reservation. Pure planning code: no clock, no SimPy, no I/O;
every method is told the current time. The replay loop is :mod:`gridsim.sim.log_replay`.

All three plan with the users' estimates; jobs run for min(run time, estimate) [MF01]
(Mu'alem and Feitelson, "Utilization, predictability, workloads, and user runtime estimates in
scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001):

* **FCFS**: jobs start in priority order while the next one fits; the first that does not
  fit blocks every later job.
* **EASY**: jobs start in priority order while they fit; the first that does not (the head)
  gets a reservation at the "shadow time" when enough running jobs will have ended (by their
  estimates); a later job starts now if it fits now and either ends (by its estimate) by the
  shadow time or uses only the "extra" processors the head leaves free at the shadow time.
  Only the head holds a reservation.
* **Conservative**: every job gets a reservation on arrival, at its earliest fit in the
  profile that holds all earlier reservations, so no later job ever delays it. When a job ends
  before its estimate, the queue is compressed in one pass in priority order: each job moves
  to its earliest fit if that is earlier (never later, as its own place is free again).

Same-time order: completions, then arrivals, then starts (:mod:`gridsim.sim.log_replay` also
offers completions one at a time). These are exactly the rules of the independent reference
in ``tests/workloads/reference_backfilling.py``; the tests compare start times job by job,
and the float expressions (``start + estimate``, ``step end - start >= duration``) are the
same so that ties break the same way.

Compression, plainly read [MF01]: for every queued job in priority order, remove its
reservation, find its earliest fit, and put it back there. Reorganised for speed
(:class:`Conservative`), with the same result:

* The search is only made where it can succeed. A job that moves to ``t < reserved`` needs
  its processors free on ``[t, min(t + estimate, reserved))`` (from ``reserved`` on, its own
  reservation covers it), so either the step just before its reservation has them free (a
  run reaching the reservation) or some instant of ``[now, reserved - estimate]`` has them
  free (the start of a run holding the whole task). Both are answered in O(log S) from the
  profile (:meth:`CountingProfile.may_move`); a job failing both cannot move, and the plain
  reading would put it back where it was.
* The search runs on the profile with the job's reservation in place
  (:meth:`CountingProfile.earliest_move`) and stops at the reservation, so a job that cannot
  move costs no release and re-reservation; one that moves changes only the ends of its
  reservation where the old and new places overlap (:meth:`CountingProfile.move`).
* The profile merges equal neighbouring steps, so it holds about two steps per running or
  queued job however many moves happened (see :mod:`gridsim.scheduling.counting_profile`).
* The pass is one method of the profile (:meth:`CountingProfile.compress`), the loop above
  with the calls written out: on a long queue the calls cost more than the checks.

Why identical: the earliest fit with the own reservation removed is earlier than
``reserved`` exactly when ``earliest_move`` finds a start, and it is the same start (the
same runs, scanned in the same order, with the same float comparisons); when it is not
earlier, the plain reading re-reserves the same place, leaving the profile as it was. The
merged profile is the same function of time. The previous implementation, which searched
every queued job and never merged steps, is kept as ``tests/workloads/scan_conservative.py``;
``tests/swfreplay`` and ``benchmarks/bench_swf_replay.py`` compare every start time with it
and with the reference.

Cost per event: FCFS O(started); EASY O(queue + running log running) when the head blocks;
conservative O(S) per arrival and, per early finish, O(queue log S) plus one scan of at most
S steps per job that passes the test (S: profile steps, at most about twice the running and
queued jobs). docs/swf.md measures where the time goes on the archive logs.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from typing import Literal

from gridsim.scheduling.counting_profile import CountingProfile

Algorithm = Literal["fcfs", "easy", "conservative"]
ALGORITHMS: tuple[Algorithm, ...] = ("fcfs", "easy", "conservative")


class _QueueScheduler:
    """Shared state: the queue (insertion-ordered dict: priority order) and running jobs."""

    def __init__(
        self, machine: int, processors: Sequence[int], estimate: Sequence[float], now: float
    ) -> None:
        if machine <= 0:
            raise ValueError(f"expected a positive machine size, got {machine}")
        too_large = [i for i, p in enumerate(processors) if p > machine or p <= 0]
        if too_large:
            i = too_large[0]
            raise ValueError(
                f"job at position {i} needs {processors[i]} processors; the machine has {machine}"
            )
        self.machine = machine
        self.processors = processors
        self.estimate = estimate
        self.free_now = machine
        self.queue: dict[int, float] = {}  # job -> reservation (nan if none)
        self.planned_end: dict[int, float] = {}  # running job -> start + estimate

    def next_decision(self) -> float:
        """The next time the scheduler itself wants to start a job (inf: only on events)."""
        return math.inf

    def counters(self) -> dict[str, int]:
        """Work counters of the planning (for benchmarks and docs/swf.md)."""
        return {}

    def complete(self, now: float, finished: Sequence[int], early: bool) -> None:
        """``finished`` jobs ended at ``now``; ``early``: one ended before its estimate."""
        for job in finished:
            del self.planned_end[job]
            self.free_now += self.processors[job]

    def submit(self, now: float, arrived: Sequence[int]) -> None:
        for job in arrived:
            self.queue[job] = math.nan

    def start(self, job: int, now: float) -> None:
        """Start the waiting ``job`` at ``now`` (the caller knows it fits)."""
        del self.queue[job]
        self.planned_end[job] = now + self.estimate[job]
        self.free_now -= self.processors[job]

    def start_in_order(self, now: float) -> list[int]:
        """Start waiting jobs in priority order while they fit (FCFS's rule, EASY's first
        part); the jobs started."""
        started = []
        for job in list(self.queue):
            if self.processors[job] > self.free_now:
                break
            self.start(job, now)
            started.append(job)
        return started


class Fcfs(_QueueScheduler):
    """First come, first served: no job overtakes the head of the queue."""

    def starts(self, now: float) -> list[int]:
        return self.start_in_order(now)


class Easy(_QueueScheduler):
    """EASY backfilling [MF01, Sec. 2]: only the head of the queue holds a reservation."""

    def starts(self, now: float) -> list[int]:
        processors, estimate = self.processors, self.estimate
        started = []
        shadow = extra = None
        for job in list(self.queue):
            if self.free_now == 0:
                break
            p = processors[job]
            if p > self.free_now:
                if shadow is None:  # the head: reserve at the shadow time
                    shadow, extra = self.shadow(p)
                continue
            if shadow is not None and not (shadow - now >= estimate[job] or p <= extra):
                continue
            if shadow is not None and not shadow - now >= estimate[job]:
                extra -= p  # runs past the shadow time: uses the head's spare processors
            self.start(job, now)
            started.append(job)
        return started

    def shadow(self, head_processors: int) -> tuple[float, int]:
        """When the head fits by the running jobs' estimates, and the processors it leaves."""
        free = self.free_now
        ends = sorted((end, job) for job, end in self.planned_end.items())
        i = 0
        while i < len(ends):
            time = ends[i][0]
            while i < len(ends) and ends[i][0] == time:
                free += self.processors[ends[i][1]]
                i += 1
            if free >= head_processors:
                return time, free - head_processors
        raise AssertionError("the head never fits although it is no larger than the machine")


class Conservative(_QueueScheduler):
    """Conservative backfilling with compression [MF01, Sec. 2]: every job holds a reservation.

    Attributes:
        first_reservation: per job position, the reservation given on arrival (s).
        compressions, compression_scans, compression_moves: compression passes, queued jobs
            whose earliest start was searched, and jobs moved earlier.
    """

    def __init__(
        self, machine: int, processors: Sequence[int], estimate: Sequence[float], now: float
    ) -> None:
        super().__init__(machine, processors, estimate, now)
        self.profile = CountingProfile(machine, now)
        self.first_reservation: dict[int, float] = {}
        self._starts: list[tuple[float, int]] = []  # heap of (reservation, job); stale ok
        self.compressions = self.compression_scans = self.compression_moves = 0

    def counters(self) -> dict[str, int]:
        return {
            "compressions": self.compressions,
            "compression_scans": self.compression_scans,
            "compression_moves": self.compression_moves,
        }

    def next_decision(self) -> float:
        starts = self._starts
        while starts and self.queue.get(starts[0][1]) != starts[0][0]:
            heapq.heappop(starts)  # a reservation that moved or already started
        return starts[0][0] if starts else math.inf

    def complete(self, now: float, finished: Sequence[int], early: bool) -> None:
        self.profile.forget_before(now)
        for job in finished:
            planned_end = self.planned_end[job]
            if now < planned_end:
                self.profile.release(now, planned_end, self.processors[job])
        super().complete(now, finished, early)
        if early:
            self.compress(now)

    def compress(self, now: float) -> None:
        """One pass in priority order; a job moves only to an earlier start."""
        self.compressions += 1
        profile = self.profile
        scans = profile.scans
        moves = profile.compress(now, self.queue, self.processors, self.estimate)
        self.compression_scans += profile.scans - scans
        self.compression_moves += len(moves)
        queue, starts = self.queue, self._starts
        if len(moves) > len(queue) // 4:  # rebuilding drops the stale entries too
            queue.update(moves)  # same keys: the dict's order (priority) is unchanged
            starts[:] = [(reserved, job) for job, reserved in queue.items()]
            heapq.heapify(starts)
        else:
            for job, new in moves:
                queue[job] = new
                heapq.heappush(starts, (new, job))

    def submit(self, now: float, arrived: Sequence[int]) -> None:
        profile = self.profile
        profile.forget_before(now)
        for job in arrived:
            p, e = self.processors[job], self.estimate[job]
            start = profile.earliest_fit(now, p, e)
            profile.add(start, start + e, p)
            self.queue[job] = self.first_reservation[job] = start
            heapq.heappush(self._starts, (start, job))

    def starts(self, now: float) -> list[int]:
        started = []
        while self.next_decision() == now:
            _, job = heapq.heappop(self._starts)
            self.start(job, now)
            started.append(job)
        return started


#: What builds a scheduler: ``(machine, processors, estimates, now)``, as the classes here.
SchedulerFactory = Callable[[int, Sequence[int], Sequence[float], float], "_QueueScheduler"]

SCHEDULERS: dict[str, type[_QueueScheduler]] = {
    "fcfs": Fcfs,
    "easy": Easy,
    "conservative": Conservative,
}


def build_scheduler(
    algorithm: Algorithm,
    machine: int,
    processors: Sequence[int],
    estimate: Sequence[float],
    now: float = 0.0,
) -> _QueueScheduler:
    """The scheduler named ``algorithm`` for a machine of ``machine`` processors."""
    if algorithm not in SCHEDULERS:
        raise ValueError(f"expected a scheduler among {list(SCHEDULERS)}, got {algorithm!r}")
    return SCHEDULERS[algorithm](machine, processors, estimate, now)
