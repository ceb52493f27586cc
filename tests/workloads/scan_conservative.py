"""Conservative backfilling as gridsim planned it on a processor count until the indexed queue.

Consumes and produces what :class:`gridsim.scheduling.log_schedulers.Conservative` does (it is
a drop-in scheduler for :func:`gridsim.sim.log_replay.replay_log`). Kept unchanged as the
reference of the identity tests (every start time of every full log equal) and as the
baseline of ``benchmarks/bench_swf_replay.py``: the same rules, planned the plain way.

* The profile is a step function in two NumPy arrays whose breakpoints are never merged:
  a released reservation leaves its two breakpoints behind until time passes them.
* Compression looks at every queued job in priority order; a job is rejected from a running
  maximum of the free counts before its reservation, otherwise one vectorised scan of the
  steps before its reservation finds whether it can start earlier.

Cost per early finish: O(queue x log S) Python steps plus one O(S) scan per job that passes
the cheap test, S the number of steps (which grows with every move, see docs/swf.md).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np


class ScanProfile:
    """Free processors of a machine of ``processors`` identical nodes, from time ``now`` on.

    Args:
        processors: the machine size.
        now: the left edge of the profile (s).
    """

    def __init__(self, processors: int, now: float = 0.0) -> None:
        if processors <= 0:
            raise ValueError(f"expected a positive machine size, got {processors}")
        self.processors = processors
        capacity = 64
        self._times = np.empty(capacity, dtype=np.float64)
        self._free = np.empty(capacity, dtype=np.int64)
        self._times[0], self._free[0] = now, processors
        self._count = 1
        # running maximum of the free counts, valid for indices below `_valid` (rebuilt lazily)
        self._prefix_max = np.empty(capacity, dtype=np.int64)
        self._valid = 0

    def __len__(self) -> int:
        return self._count

    def steps(self) -> list[tuple[float, int]]:
        """The step function as ``(start time, free processors)`` pairs (for tests, displays)."""
        count = self._count
        return list(zip(self._times[:count].tolist(), self._free[:count].tolist(), strict=True))

    def _step_at(self, time: float) -> int:
        """Index of the step holding ``time`` (0 before the profile's left edge).

        Most questions are about the present, which the first step holds once the past is
        forgotten: one comparison answers them without a search.
        """
        count = self._count
        if count < 2 or self._times[1] > time:
            return 0
        return int(self._times[:count].searchsorted(time, "right")) - 1

    def forget_before(self, now: float) -> None:
        """Drop the steps that ended at or before ``now``; the profile then starts at ``now``."""
        count = self._count
        i = self._step_at(now)
        if i > 0:
            kept = count - i
            self._times[:kept] = self._times[i:count]
            self._free[:kept] = self._free[i:count]
            self._count = kept
            self._valid = 0
        if self._times[0] < now:
            self._times[0] = now

    def _breakpoint(self, time: float) -> int:
        """Index of the step starting at ``time``, splitting a step if needed."""
        count = self._count
        i = self._step_at(time)
        if self._times[i] == time:
            return i
        if count == len(self._times):
            self._grow()
        i += 1
        times, free = self._times, self._free
        times[i + 1 : count + 1] = times[i:count]
        free[i : count + 1] = free[i - 1 : count]  # the split step's count, then the shift
        times[i] = time
        self._count = count + 1
        return i

    def _grow(self) -> None:
        """Double the capacity of the arrays (amortised O(1) per breakpoint)."""
        capacity = 2 * len(self._times)
        for name in ("_times", "_free", "_prefix_max"):
            old = getattr(self, name)
            new = np.empty(capacity, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def add(self, start: float, end: float, processors: int) -> None:
        """Occupy ``processors`` (release if negative) over ``[start, end)``.

        Raises:
            ValueError: the profile would have fewer than 0 or more than the machine free.
        """
        if end <= start:
            return
        if start < self._times[0]:
            raise ValueError(f"[{start}, {end}) starts before the profile ({self._times[0]})")
        first = self._breakpoint(start)
        last = self._breakpoint(end) if end != math.inf else self._count
        covered = self._free[first:last]
        covered -= processors
        if processors > 0 and covered.min() < 0:
            raise ValueError(f"over-committed: {processors} processors on [{start}, {end})")
        if processors < 0 and covered.max() > self.processors:
            raise ValueError(f"released more than was held on [{start}, {end})")
        # steps before `first` neither changed nor moved
        self._valid = min(self._valid, first)

    def release(self, start: float, end: float, processors: int) -> None:
        """Free ``processors`` over ``[start, end)`` (undo an :meth:`add`)."""
        self.add(start, end, -processors)

    def max_free_before(self, time: float) -> int:
        """The most processors free at any instant of ``[left edge, time)`` (0 if empty).

        A job of ``p`` processors cannot start before ``time`` if this is below ``p``: the
        cheap test that lets compression skip jobs that cannot move earlier.
        """
        return self._max_free(int(self._times[: self._count].searchsorted(time, "left")))

    def _max_free(self, stop: int) -> int:
        """The most processors free on the steps before index ``stop`` (0 if none)."""
        if stop == 0:
            return 0
        valid = self._valid
        if stop > valid:
            prefix = self._prefix_max
            np.maximum.accumulate(self._free[valid:stop], out=prefix[valid:stop])
            if valid > 0:
                np.maximum(prefix[valid:stop], prefix[valid - 1], out=prefix[valid:stop])
            self._valid = stop
        return int(self._prefix_max[stop - 1])

    def _next_at_least(self, i: int, stop: int, processors: int) -> int:
        """First step in ``[i, stop)`` with at least ``processors`` free, or ``stop``."""
        if i >= stop:
            return stop
        window = self._free[i:stop] >= processors
        k = int(window.argmax())
        return i + k if window[k] else stop

    def _next_below(self, i: int, stop: int, processors: int) -> int:
        """First step in ``[i, stop)`` with fewer than ``processors`` free, or ``stop``."""
        if i >= stop:
            return stop
        window = self._free[i:stop] < processors
        k = int(window.argmax())
        return i + k if window[k] else stop

    def earliest_fit(
        self, now: float, processors: int, duration: float, before: float = math.inf
    ) -> float | None:
        """Earliest time ``t >= now`` with ``processors`` free over ``[t, t + duration)``.

        Args:
            before: only starts strictly earlier than this count (compression asks whether a
                job can move earlier than its reservation); ``None`` if there is none.

        Raises:
            ValueError: more processors than the machine (it would never fit).
        """
        if processors > self.processors:
            raise ValueError(
                f"a job of {processors} processors never fits a machine of {self.processors}"
            )
        count, times = self._count, self._times
        i = self._step_at(now)
        while i < count:
            run = self._next_at_least(i, count, processors)
            if run == count:
                return None  # only if the last step is short: a reservation lasting for ever
            start = max(float(times[run]), now)
            if start >= before:
                return None
            i = self._next_below(run + 1, count, processors)
            # the run lasts to times[i]; the scan once step by step returned at the first
            # step end far enough, which is the same start (step ends only grow)
            if i == count or float(times[i]) - start >= duration:
                return start
        return None

    def earliest_move(
        self, now: float, processors: int, duration: float, reserved: float
    ) -> float | None:
        """Where a job holding ``[reserved, reserved + duration)`` could start earlier.

        The earliest ``t`` in ``[now, reserved)`` at which ``processors`` stay free for
        ``duration`` once the job's own reservation is freed, or ``None``; the profile is
        not changed (a job that cannot move costs no release and re-reservation). A job with
        no instant before its reservation with ``processors`` free is rejected in O(1) from a
        cached prefix maximum, without a scan: compression checks every queued job this way.

        A start ``t < reserved`` needs ``processors`` free on ``[t, reserved)`` only as far as
        the task reaches; from ``reserved`` on, the job's own processors cover the rest of it
        (``t + duration < reserved + duration``). So the scan stops at ``reserved``: a run of
        enough free processors that reaches it is a move.
        """
        times = self._times
        stop = int(times[: self._count].searchsorted(reserved, "left"))  # the steps before it
        if self._max_free(stop) < processors:
            return None
        # Without a run reaching the reservation, a move must fit whole before it, so it
        # starts by ``reserved - duration``.
        reaches = self._free[stop - 1] >= processors
        latest = reserved if reaches else reserved - duration
        if latest < now:
            return None
        i = self._step_at(now)
        while i < stop:
            run = self._next_at_least(i, stop, processors)
            if run == stop:
                return None
            run_start = float(times[run])
            if run_start > latest:
                return None
            start = run_start if run_start > now else now
            i = self._next_below(run + 1, stop, processors)
            if i == stop or float(times[i]) - start >= duration:
                return start
        return None


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

    def complete(self, now: float, finished: Sequence[int], early: bool) -> None:
        """``finished`` jobs ended at ``now``; ``early``: one ended before its estimate."""
        for job in finished:
            del self.planned_end[job]
            self.free_now += self.processors[job]

    def submit(self, now: float, arrived: Sequence[int]) -> None:
        for job in arrived:
            self.queue[job] = math.nan

    def _start(self, job: int, now: float) -> None:
        del self.queue[job]
        self.planned_end[job] = now + self.estimate[job]
        self.free_now -= self.processors[job]


class ScanConservative(_QueueScheduler):
    """Conservative backfilling with compression [MF01, Sec. 2]: every job holds a reservation.

    Attributes:
        first_reservation: per job position, the reservation given on arrival (s).
        compression_checks, compression_moves: how many queued jobs compression looked at
            and moved earlier.
    """

    def __init__(
        self, machine: int, processors: Sequence[int], estimate: Sequence[float], now: float
    ) -> None:
        super().__init__(machine, processors, estimate, now)
        self.profile = ScanProfile(machine, now)
        self.first_reservation: dict[int, float] = {}
        self._starts: list[tuple[float, int]] = []  # heap of (reservation, job); stale ok
        self.compression_checks = self.compression_moves = 0

    def counters(self) -> dict[str, int]:
        return {
            "compression_checks": self.compression_checks,
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
        profile, processors, estimate = self.profile, self.processors, self.estimate
        queue = self.queue
        for job, reserved in queue.items():
            self.compression_checks += 1
            p = processors[job]
            if reserved <= now:
                continue
            e = estimate[job]
            new = profile.earliest_move(now, p, e, reserved)
            if new is None:
                continue
            profile.release(reserved, reserved + e, p)
            profile.add(new, new + e, p)
            queue[job] = new  # same key: the dict's order (priority) is unchanged
            heapq.heappush(self._starts, (new, job))
            self.compression_moves += 1

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
            self._start(job, now)
            started.append(job)
        return started
