"""Free processors over time on a homogeneous machine: the classical availability profile.

Consumes reservations and releases of a processor count over ``[start, end)`` (seconds);
produces earliest fits: the earliest time at which ``processors`` stay free for ``duration``.
This is the processor-count formulation of backfilling [MF01]: on a machine of identical
nodes, a job fits wherever enough processors are free over its whole reservation, whichever
they are, so node identities can be chosen at the actual start (any free nodes).

The profile is a step function in two parallel Python lists, sorted breakpoint times and the
free count on ``[times[i], times[i+1])``; the last step lasts for ever. Two neighbouring steps
never hold the same count: every range update merges them, so a released reservation leaves
no breakpoint behind and the profile holds at most two steps per running or queued job.
Steps that ended before the current time are dropped (:meth:`forget_before`).

Why merged steps: without merging, every move of compression left its old breakpoints in
place until time passed them, and scans walked them all: on HPC2N the profile averaged 981
steps at a compression and reached 37,595, for queues of at most 2,436 jobs; merged, it
averages 46 (docs/swf.md, "Conservative backfilling at archive scale"). Merging changes no
answer: runs of enough free processors begin and end only where the count changes.

Why Python lists rather than NumPy arrays: with merged steps a scan walks about a dozen
steps and a reservation covers about twenty, where a NumPy call's fixed cost (about a
microsecond) is more than the whole Python loop; ``bisect`` and ``list.insert`` are C calls.

Cost: ``add`` is O(log S) plus O(steps covered) plus an O(S) memory move per breakpoint
inserted or merged; ``earliest_fit`` and ``earliest_move`` are O(log S) plus O(steps
scanned); :meth:`fits_before` is O(log S) after an O(S) running maximum, rebuilt (in C) only
after a change; S the number of steps.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate


class CountingProfile:
    """Free processors of a machine of ``processors`` identical nodes, from time ``now`` on.

    Args:
        processors: the machine size.
        now: the left edge of the profile (s).
    """

    def __init__(self, processors: int, now: float = 0.0) -> None:
        if processors <= 0:
            raise ValueError(f"expected a positive machine size, got {processors}")
        self.processors = processors
        self._times: list[float] = [now]
        self._free: list[int] = [processors]
        # running maximum of _free, valid for its first _valid entries (extended on demand)
        self._most_free: list[int] = []
        self._valid = 0
        self.scans = 0  # searches made by compress (jobs that passed the cheap test)

    def __len__(self) -> int:
        return len(self._times)

    def steps(self) -> list[tuple[float, int]]:
        """The step function as ``(start time, free processors)`` pairs (for tests, displays)."""
        return list(zip(self._times, self._free, strict=True))

    def _step_at(self, time: float) -> int:
        """Index of the step holding ``time`` (0 before the profile's left edge).

        Most questions are about the present, which the first step holds once the past is
        forgotten: one comparison answers them without a search.
        """
        times = self._times
        if len(times) < 2 or times[1] > time:
            return 0
        return bisect_right(times, time) - 1

    def forget_before(self, now: float) -> None:
        """Drop the steps that ended at or before ``now``; the profile then starts at ``now``."""
        i = self._step_at(now)
        if i > 0:
            del self._times[:i], self._free[:i]
            self._valid = 0
        if self._times[0] < now:
            self._times[0] = now

    def add(self, start: float, end: float, processors: int) -> None:
        """Occupy ``processors`` (release if negative) over ``[start, end)``.

        Raises:
            ValueError: the profile would have fewer than 0 or more than the machine free.
        """
        if end <= start:
            return
        times, free = self._times, self._free
        if start < times[0]:
            raise ValueError(f"[{start}, {end}) starts before the profile ({times[0]})")
        i = bisect_right(times, start) - 1  # the step holding start
        if i + 1 == len(times) or times[i + 1] >= end:  # [start, end) inside step i
            count = free[i] - processors
            if count < 0:
                raise ValueError(f"over-committed: {processors} processors on [{start}, {end})")
            if count > self.processors:
                raise ValueError(f"released more than was held on [{start}, {end})")
            # A range ending where the step ends with the next step's new count, or starting
            # where it starts with the previous step's, only moves one breakpoint: the free
            # counts (and their running maximum) stay as they are.
            ends_step = i + 1 < len(times) and times[i + 1] == end
            if times[i] < start and ends_step and free[i + 1] == count:
                times[i + 1] = start
                return
            joins_previous = i > 0 and free[i - 1] == count and end != math.inf
            if times[i] == start and not ends_step and joins_previous:
                times[i] = end
                return
        # the general case, written out (this is the inner loop of compression): split the
        # steps at start and end, change the counts between, merge equal neighbours
        if times[i] != start:
            i += 1
            times.insert(i, start)
            free.insert(i, free[i - 1])
        if end == math.inf:
            j = len(times)
        else:
            j = bisect_left(times, end, i)
            if j == len(times) or times[j] != end:
                times.insert(j, end)
                free.insert(j, free[j - 1])
        covered = [count - processors for count in free[i:j]]
        if min(covered) < 0:
            raise ValueError(f"over-committed: {processors} processors on [{start}, {end})")
        if max(covered) > self.processors:
            raise ValueError(f"released more than was held on [{start}, {end})")
        free[i:j] = covered
        if j < len(free) and free[j] == free[j - 1]:  # the later one first: no index moves
            del times[j], free[j]
        if i > 0 and free[i] == free[i - 1]:
            del times[i], free[i]
        if i < self._valid:  # steps before i neither changed nor moved
            self._valid = i

    def release(self, start: float, end: float, processors: int) -> None:
        """Free ``processors`` over ``[start, end)`` (undo an :meth:`add`)."""
        self.add(start, end, -processors)

    def move(self, reserved: float, start: float, duration: float, processors: int) -> None:
        """Move a reservation of ``processors`` from ``[reserved, reserved + duration)`` to
        ``[start, start + duration)``, ``start < reserved``.

        The same profile as a release and an add, but where the two overlap only their ends
        change: in a queue shifting earlier, most moves are short, so the ranges updated are
        a few steps instead of two whole reservations.
        """
        if start + duration <= reserved:
            self.release(reserved, reserved + duration, processors)
            self.add(start, start + duration, processors)
        else:
            self.add(start, reserved, processors)
            self.release(start + duration, reserved + duration, processors)

    def fits_before(self, time: float, processors: int) -> bool:
        """Whether some instant of ``[left edge, time]`` has ``processors`` free."""
        i = bisect_right(self._times, time)
        if i == 0:
            return False
        most_free, valid = self._most_free, self._valid
        if i > valid:
            before = most_free[valid - 1] if valid else 0
            most_free[valid:] = accumulate(self._free[valid:i], max, initial=before)
            del most_free[valid]  # the initial value
            self._valid = i
        return most_free[i - 1] >= processors

    def may_move(self, processors: int, duration: float, reserved: float) -> bool:
        """Whether a job holding ``[reserved, reserved + duration)`` may start earlier.

        A move either is a run of ``processors`` free reaching the reservation (the step just
        before it has them free) or holds the whole task before it (some instant of
        ``[left edge, reserved - duration]`` has them free: the run's start). ``False`` means
        :meth:`earliest_move` finds nothing; ``True`` that it must look. O(log S).
        """
        just_before = self._free[max(bisect_left(self._times, reserved) - 1, 0)]
        return just_before >= processors or self.fits_before(reserved - duration, processors)

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
        times, free = self._times, self._free
        count = len(times)
        i = self._step_at(now)
        while True:
            while i < count and free[i] < processors:
                i += 1
            if i == count:
                return None  # only if the last step is short: a reservation lasting for ever
            start = times[i] if times[i] > now else now
            if start >= before:
                return None
            i += 1
            while i < count and free[i] >= processors:
                i += 1
            # the run lasts to times[i]; a step-by-step scan returns at the first step end
            # far enough, which is the same start (step ends only grow)
            if i == count or times[i] - start >= duration:
                return start

    def earliest_move(
        self, now: float, processors: int, duration: float, reserved: float
    ) -> float | None:
        """Where a job holding ``[reserved, reserved + duration)`` could start earlier.

        The earliest ``t`` in ``[now, reserved)`` at which ``processors`` stay free for
        ``duration`` once the job's own reservation is freed, or ``None``; the profile is
        not changed (a job that cannot move costs no release and re-reservation).

        A start ``t < reserved`` needs ``processors`` free on ``[t, reserved)`` only as far as
        the task reaches; from ``reserved`` on, the job's own processors cover the rest of it
        (``t + duration < reserved + duration``). So the scan stops at ``reserved``: a run of
        enough free processors that reaches it is a move. (Where merging removed the
        breakpoint at ``reserved``, the step holding it has the same count on both sides.)
        """
        if reserved <= now:
            return None
        times, free = self._times, self._free
        stop = bisect_left(times, reserved)  # the steps before it
        # Without a run reaching the reservation, a move must fit whole before it, so it
        # starts by ``reserved - duration``.
        latest = reserved if free[stop - 1] >= processors else reserved - duration
        if latest < now:
            return None
        i = self._step_at(now)
        while True:
            while i < stop and free[i] < processors:
                i += 1
            if i == stop:
                return None
            run_start = times[i]
            if run_start > latest:
                return None
            start = run_start if run_start > now else now
            i += 1
            while i < stop and free[i] >= processors:
                i += 1
            if i == stop or times[i] - start >= duration:
                return start

    def compress(
        self,
        now: float,
        queue: dict[int, float],
        processors: Sequence[int],
        duration: Sequence[float],
    ) -> list[tuple[int, float]]:
        """One compression pass over ``queue`` (job -> reservation, in priority order).

        Every job whose :meth:`earliest_move` finds a start is moved there
        (:meth:`move`) before the next job is looked at, exactly as the loop
        ``may_move``, ``earliest_move``, ``move`` per job; returns the ``(job, new start)``
        moves in order (``queue`` itself is not changed). The profile's left edge must be
        ``now``.

        Why one method: on a long queue this loop is most of a replay's time, and method
        calls cost more than the work of a check (a comparison and a bisection) or of a
        short move. Two shortcuts give the same answers as the plain calls:

        * the scan for the first step with enough free processors bisects the running
          maximum (non-decreasing) instead of walking the steps before it;
        * jobs of the same processors and duration (a user's series of identical jobs) do
          not walk the same runs again: once a scan has found every run of ``p`` free
          processors ending by a time ``T`` shorter than ``e``, a later job of the same
          ``(p, e)`` whose reservation is after ``T`` starts its scan at ``T`` (those runs
          end before its reservation, so they are too short for it too, and its latest
          start, if earlier, is before the next run anyway). Taking processors never
          lengthens a run, so only a move that frees processors at or before ``T`` (its
          old place, from ``max(new end, old start)``) forgets ``T``.
        """
        times, free, most_free = self._times, self._free, self._most_free
        moves: list[tuple[int, float]] = []
        # (processors, duration) -> a time T: every run of that many free processors ending
        # by T is shorter than the duration (see the docstring)
        too_short: dict[tuple[int, float], float] = {}
        for job, reserved in queue.items():
            if reserved <= now:
                continue
            p = processors[job]
            stop = bisect_left(times, reserved)  # the steps before the reservation
            if free[stop - 1] >= p:
                latest = reserved  # a run reaches the reservation
                need = stop
            else:
                latest = reserved - duration[job]  # the task must fit whole before it
                need = bisect_right(times, latest)
                if need == 0:
                    continue
            valid = self._valid
            if need > valid:  # extend the running maximum over the steps asked about
                before = most_free[valid - 1] if valid else 0
                most_free[valid:] = accumulate(free[valid:need], max, initial=before)
                del most_free[valid]
                self._valid = valid = need
            if most_free[need - 1] < p:
                continue  # no step before `latest` has enough free: cannot move
            self.scans += 1
            e = duration[job]
            i = bisect_left(most_free, p, 0, need)  # the first step with enough free
            key = (p, e)
            known = too_short.get(key)
            if known is not None and known < reserved:
                i = max(i, bisect_right(times, known) - 1)  # a step with fewer than p free
            last_end = None
            while True:
                while i < stop and free[i] < p:
                    i += 1
                if i == stop:
                    break
                run_start = times[i]
                if run_start > latest:
                    break
                start = run_start if run_start > now else now
                i += 1
                while i < stop and free[i] >= p:
                    i += 1
                if i == stop or times[i] - start >= e:
                    self.move(reserved, start, e, p)
                    moves.append((job, start))
                    released = start + e if start + e > reserved else reserved
                    for other in [k for k, end in too_short.items() if end >= released]:
                        del too_short[other]
                    break
                last_end = times[i]
            if last_end is not None and (known is None or last_end > known):
                too_short[key] = last_end
        return moves
