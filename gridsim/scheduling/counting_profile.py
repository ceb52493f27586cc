"""Free processors over time on a homogeneous machine: the classical availability profile.

Consumes reservations and releases of a processor count over ``[start, end)`` (seconds);
produces earliest fits: the earliest time at which ``processors`` stay free for ``duration``.
This is the processor-count formulation of backfilling [MF01]: on a machine of identical
nodes, a job fits wherever enough processors are free over its whole reservation, whichever
they are, so node identities can be chosen at the actual start (any free nodes).

The profile is a step function kept as two parallel Python lists, sorted breakpoint times
and the free count on ``[times[i], times[i+1])``; the last step lasts for ever. Breakpoints
are found by bisection; the lists stay short (about two per queued or running job) because
steps that ended before the current time are dropped (:meth:`forget_before`).

Cost: ``add`` is O(log S + steps covered) plus a list insertion (a memmove); ``earliest_fit``
is O(log S + steps scanned), S the number of steps. ``max_free_before`` is O(log S) after an
O(S) prefix maximum rebuilt in C (``itertools.accumulate``) when the profile has changed.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
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
        self.times: list[float] = [now]
        self.free: list[int] = [processors]
        # running maximum of `free`, valid for indices below `_valid` (rebuilt lazily, in C)
        self._prefix_max: list[int] = []
        self._valid = 0

    def __len__(self) -> int:
        return len(self.times)

    def steps(self) -> list[tuple[float, int]]:
        """The step function as ``(start time, free processors)`` pairs (for tests, displays)."""
        return list(zip(self.times, self.free, strict=True))

    def forget_before(self, now: float) -> None:
        """Drop the steps that ended at or before ``now``; the profile then starts at ``now``."""
        i = bisect_right(self.times, now) - 1
        if i > 0:
            del self.times[:i], self.free[:i]
            self._valid = 0
        if self.times[0] < now:
            self.times[0] = now

    def _breakpoint(self, time: float) -> int:
        """Index of the step starting at ``time``, splitting a step if needed."""
        i = bisect_right(self.times, time) - 1
        if self.times[i] != time:
            i += 1
            self.times.insert(i, time)
            self.free.insert(i, self.free[i - 1])
        return i

    def add(self, start: float, end: float, processors: int) -> None:
        """Occupy ``processors`` (release if negative) over ``[start, end)``.

        Raises:
            ValueError: the profile would have fewer than 0 or more than the machine free.
        """
        if end <= start:
            return
        first = self._breakpoint(start)
        last = self._breakpoint(end) if end != math.inf else len(self.times)
        free = self.free
        for i in range(first, last):
            free[i] -= processors
        if processors > 0 and min(free[first:last]) < 0:
            raise ValueError(f"over-committed: {processors} processors on [{start}, {end})")
        if processors < 0 and max(free[first:last]) > self.processors:
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
        i = bisect_left(self.times, time)
        if i == 0:
            return 0
        valid = self._valid
        if i > valid:
            prefix = self._prefix_max
            del prefix[valid:]
            if valid == 0:
                prefix.extend(accumulate(self.free[:i], max))
            else:
                prefix.extend(accumulate(self.free[valid:i], max, initial=prefix[-1]))
                del prefix[valid]  # the initial value, repeated by accumulate
            self._valid = i
        return self._prefix_max[i - 1]

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
        times, free = self.times, self.free
        count = len(times)
        i = max(bisect_right(times, now) - 1, 0)
        start = None
        while i < count:
            if free[i] < processors:
                start = None
            else:
                if start is None:
                    start = times[i] if times[i] > now else now
                    if start >= before:
                        return None
                step_end = times[i + 1] if i + 1 < count else math.inf
                if step_end - start >= duration:
                    return start
            i += 1
        return None  # only with before <= the last step's start: the last step is the machine

    def earliest_move(self, now: float, processors: int, duration: float, reserved: float):
        """Where a job holding ``[reserved, reserved + duration)`` could start earlier.

        The earliest ``t`` in ``[now, reserved)`` at which ``processors`` stay free for
        ``duration`` once the job's own reservation is freed, or ``None``; the profile is
        not changed (a job that cannot move costs no release and re-reservation).

        A start ``t < reserved`` needs ``processors`` free on ``[t, reserved)`` only as far as
        the task reaches; from ``reserved`` on, the job's own processors cover the rest of it
        (``t + duration < reserved + duration``). So the scan stops at ``reserved``: a run of
        enough free processors that reaches it is a move.
        """
        times, free = self.times, self.free
        # Without a run reaching the reservation, a move must fit whole before it, so it
        # starts by ``reserved - duration``.
        reaches = free[bisect_left(times, reserved) - 1] >= processors
        latest = reserved if reaches else reserved - duration
        if latest < now:
            return None
        count = len(times)
        i = max(bisect_right(times, now) - 1, 0)
        start = None
        while i < count:
            time = times[i]
            if time >= reserved:
                return start
            if free[i] < processors:
                start = None
            else:
                if start is None:
                    if time > latest:
                        return None
                    start = time if time > now else now
                step_end = times[i + 1] if i + 1 < count else math.inf
                if step_end - start >= duration:
                    return start
            i += 1
        return start
