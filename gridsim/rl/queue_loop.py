"""The replay loop of :mod:`gridsim.sim.log_replay`, paused wherever an agent decides.

Consumes an :class:`~gridsim.rl.episodes.Episode` and one of gridsim's processor-count
schedulers (:mod:`gridsim.scheduling.log_schedulers`: ``Fcfs``, ``Easy``); produces every
job's start time. The environments call :meth:`QueueLoop.advance` to move to the next instant
(completions, then arrivals, as the replay loop orders them) and start jobs through the
scheduler's own bookkeeping, so the schedule an agent makes is planned by the same code
``gridsim run`` replays with.

Why a loop of its own rather than :func:`~gridsim.sim.log_replay.replay_log`: that function
runs to the end of the log; an environment must stop between two instants and wait for an
action. The loop keeps ``replay_log``'s same-instant order ("together": every job ending at
an instant is handed over in one call), so an agent that always picks what FCFS or EASY
would pick gets exactly the replay's start times (tests/rl/test_equivalence.py).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from gridsim.rl.episodes import Episode
from gridsim.scheduling.log_schedulers import Easy, Fcfs, build_scheduler


class QueueLoop:
    """One episode on a homogeneous machine, advanced instant by instant.

    Job ``i`` is row ``i`` of the episode's jobs (arrival order, which is the schedulers'
    priority order).

    Attributes:
        now: the current instant (s).
        scheduler: the processor-count scheduler (its ``queue`` is the waiting jobs in
            priority order; ``free_now`` the processors free now).
        start_time: per job, its start (NaN while it waits or has not arrived).
        started: jobs started since :meth:`take_started` was last called, in start order.
    """

    def __init__(self, episode: Episode, algorithm: str = "easy") -> None:
        jobs = episode.jobs
        self.machine = episode.machine_processors
        self.submit = jobs.submit_time.to_numpy(dtype=np.float64).tolist()
        self.processors = jobs.processors.to_numpy(dtype=np.int64).tolist()
        self.estimate = jobs.estimate.to_numpy(dtype=np.float64).tolist()
        self.duration = jobs.duration.to_numpy(dtype=np.float64).tolist()
        self.count = len(self.submit)
        self.now = self.submit[0]
        self.scheduler: Fcfs | Easy = build_scheduler(
            algorithm,  # type: ignore[arg-type]
            self.machine,
            self.processors,
            self.estimate,
            self.now,
        )
        self.start_time = [math.nan] * self.count
        self.started: list[int] = []
        self._completions: list[tuple[float, int]] = []  # heap of (end, job)
        self._next_arrival = 0

    @property
    def queue(self) -> dict[int, float]:
        return self.scheduler.queue

    @property
    def free_now(self) -> int:
        return self.scheduler.free_now

    @property
    def done(self) -> bool:
        """Every job has started (what remains is completions, which need no decision)."""
        return self._next_arrival == self.count and not self.scheduler.queue

    def advance(self) -> bool:
        """Move to the next instant and hand its completions, then its arrivals, to the
        scheduler; False if nothing is left to happen."""
        completions, submit = self._completions, self.submit
        arrival = submit[self._next_arrival] if self._next_arrival < self.count else math.inf
        now = min(arrival, completions[0][0] if completions else math.inf)
        if now == math.inf:
            return False
        self.now = now
        finished = []
        while completions and completions[0][0] == now:
            finished.append(heapq.heappop(completions)[1])
        if finished:
            duration, estimate = self.duration, self.estimate
            early = any(duration[job] < estimate[job] for job in finished)
            self.scheduler.complete(now, finished, early)
        first = self._next_arrival
        while self._next_arrival < self.count and submit[self._next_arrival] == now:
            self._next_arrival += 1
        if self._next_arrival > first:
            self.scheduler.submit(now, range(first, self._next_arrival))
        return True

    def start(self, job: int) -> None:
        """Start the waiting ``job`` now (it must fit): the scheduler's own bookkeeping."""
        if self.processors[job] > self.scheduler.free_now:
            raise ValueError(f"job {job} needs {self.processors[job]} processors, "
                             f"{self.scheduler.free_now} are free")  # fmt: skip
        self.scheduler.start(job, self.now)
        self._record([job])

    def run_scheduler(self) -> None:
        """Let the scheduler start what its own rule starts now (EASY: in priority order
        while jobs fit, then backfilling around the head's reservation)."""
        self._record(self.scheduler.starts(self.now))

    def start_in_order(self) -> None:
        """Start waiting jobs in priority order while they fit (FCFS's rule, EASY's first
        part), on whichever scheduler runs the episode."""
        self._record(self.scheduler.start_in_order(self.now))

    def head_reservation(self) -> tuple[float, int]:
        """EASY's reservation of the head of the queue (which must not fit now): the shadow
        time, when enough running jobs end by their estimates, and the processors it leaves
        spare then."""
        scheduler = self.scheduler
        if not isinstance(scheduler, Easy):
            raise TypeError("only EASY reserves the head of the queue")
        return scheduler.shadow(self.processors[next(iter(scheduler.queue))])

    def promote(self, job: int) -> None:
        """Make ``job`` the head of the queue (the first in priority order); the others keep
        their order."""
        queue = self.scheduler.queue
        if next(iter(queue)) != job:
            reservation = queue.pop(job)
            self.scheduler.queue = {job: reservation, **queue}

    def _record(self, jobs: list[int]) -> None:
        now = self.now
        for job in jobs:
            self.start_time[job] = now
            heapq.heappush(self._completions, (now + self.duration[job], job))
        self.started.extend(jobs)

    def take_started(self) -> list[int]:
        """The jobs started since the last call (and forget them)."""
        started, self.started = self.started, []
        return started
