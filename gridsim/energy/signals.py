"""Electricity price and carbon intensity over time: piecewise-constant signals.

Consumes breakpoints and values (from a CSV of ``time,value`` rows, a daily or weekly profile
in the scenario, or one constant); produces a :class:`Signal` whose integral over any
``[a, b]`` is exact for the piecewise-constant function and costs O(log n): the running
integral at every breakpoint is kept, so ``integral(a, b) = F(b) - F(a)`` with ``F`` found
by one binary search per end.

Outside its breakpoints a signal either repeats with its period (``extend: repeat``, a day's
tariff over a year-long log) or holds its first value before and its last value after
(``extend: clip``). Running sums are sequential (``np.cumsum``), never pairwise, so the
same signal gives the same bits on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Signal:
    """``values[i]`` on ``[times[i], times[i + 1])``.

    Attributes:
        times: ``n + 1`` strictly increasing breakpoints (the last closes the last value).
        values: ``n`` values (money per kWh, or g CO2 per kWh).
        repeat: whether ``[times[0], times[n])`` repeats forever in both directions; else the
            first value holds before ``times[0]`` and the last one after ``times[n]``.
    """

    times: np.ndarray
    values: np.ndarray
    repeat: bool = False

    def __post_init__(self) -> None:
        times = np.asarray(self.times, dtype=np.float64)
        values = np.asarray(self.values, dtype=np.float64)
        if times.ndim != 1 or len(times) != len(values) + 1 or len(values) == 0:
            raise ValueError("expected n + 1 breakpoints for n >= 1 values")
        if not np.all(np.diff(times) > 0):
            raise ValueError("expected strictly increasing times")
        running = np.concatenate(([0.0], np.cumsum(values * np.diff(times))))
        for name, array in (("times", times), ("values", values), ("_running", running)):
            array.setflags(write=False)
            object.__setattr__(self, name, array)

    @classmethod
    def constant(cls, value: float) -> Signal:
        return cls(np.array([0.0, 1.0]), np.array([float(value)]))

    @property
    def is_constant(self) -> bool:
        return bool(np.all(self.values == self.values[0]))

    @property
    def period(self) -> float:
        return float(self.times[-1] - self.times[0])

    def running(self, at):
        """``F(at)``: the integral from ``times[0]`` to ``at`` (negative before it);
        ``at`` a number or an array."""
        at = np.asarray(at, dtype=np.float64)
        first, last = self.times[0], self.times[-1]
        whole = np.zeros_like(at)
        if self.repeat:
            cycles = np.floor((at - first) / self.period)
            whole = cycles * self._running[-1]
            at = at - cycles * self.period
            at = np.clip(at, first, last)  # float dust at a cycle's edge
        step = np.clip(np.searchsorted(self.times, at, side="right") - 1, 0, len(self.values) - 1)
        inside = self._running[step] + (at - self.times[step]) * self.values[step]
        if not self.repeat:
            before = (at - first) * self.values[0]
            after = self._running[-1] + (at - last) * self.values[-1]
            inside = np.where(at < first, before, np.where(at > last, after, inside))
        return whole + inside

    def integral(self, start, end):
        """The integral of the signal over ``[start, end]`` (value x time units)."""
        return self.running(end) - self.running(start)

    def at(self, when):
        """The signal's value at ``when`` (a number or an array)."""
        when = np.asarray(when, dtype=np.float64)
        if self.repeat:
            when = self.times[0] + np.mod(when - self.times[0], self.period)
        step = np.searchsorted(self.times, when, side="right") - 1
        return self.values[np.clip(step, 0, len(self.values) - 1)]
