"""The scenario fields of energy: a node's power model and the price and carbon signals.

Consumes the YAML sections ``power:`` (on a log platform's node classes and on a job flow's
environment: the same names in both), ``electricity_price:`` and ``carbon_intensity:``;
produces validated, frozen configs whose :meth:`SignalConfig.signal` gives the
:class:`~gridsim.energy.signals.Signal`. A CSV is read while the scenario is validated, so a
bad file is one line naming the field, the file and the row.

Units: power in watts; electricity price in money per kWh; carbon intensity in g CO2 per
kWh; times in seconds (a job flow's time unit is taken as one second for energy).
"""

from __future__ import annotations

import csv
import itertools
import math
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, NonNegativeFloat, PositiveFloat, model_validator

from gridsim.energy.signals import Signal

#: Seconds per hour: a profile's steps are given in hours of the day or week.
HOUR_S = 3600.0
PROFILE_HOURS = {"daily": 24.0, "weekly": 168.0}


class PowerDownConfig(BaseModel):
    """Idle nodes switched off after a timeout and on again in time for their next task:
    Batsim's energy model (a node is computing, idle, switching off, off or switching on)
    under a timeout shutdown policy (docs/model.md, "Idle nodes powered down").

    Times in seconds: ``idle_timeout`` idle before the node starts switching off,
    ``switch_off_seconds`` and ``switch_on_seconds`` the two transitions, drawing
    ``switch_off_watts`` and ``switch_on_watts``; off it draws ``off_watts``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    idle_timeout: NonNegativeFloat
    off_watts: NonNegativeFloat = 0.0
    switch_off_seconds: NonNegativeFloat = 0.0
    switch_off_watts: NonNegativeFloat = 0.0
    switch_on_seconds: NonNegativeFloat = 0.0
    switch_on_watts: NonNegativeFloat = 0.0

    @model_validator(mode="after")
    def _watts_of_each_transition(self) -> PowerDownConfig:
        for which in ("switch_off", "switch_on"):
            seconds = getattr(self, f"{which}_seconds")
            if seconds > 0 and f"{which}_watts" not in self.model_fields_set:
                raise ValueError(f"{which}_seconds ({seconds:g}) needs {which}_watts: what a "
                                 "node draws while it switches")  # fmt: skip
        return self


class PowerConfig(BaseModel):
    """A node draws ``idle_watts`` when no task holds it and ``busy_watts +
    busy_watts_per_performance x performance`` while one does (a faster node may draw more);
    with ``power_down`` an idle node switches off after a timeout."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    idle_watts: NonNegativeFloat
    busy_watts: NonNegativeFloat
    busy_watts_per_performance: NonNegativeFloat = 0.0
    power_down: PowerDownConfig | None = None

    @model_validator(mode="after")
    def _busy_at_least_idle(self) -> PowerConfig:
        if self.busy_watts < self.idle_watts:
            raise ValueError(
                f"busy_watts ({self.busy_watts}) is below idle_watts ({self.idle_watts}): "
                "a busy node draws at least its idle power"
            )
        if self.power_down is not None and self.power_down.off_watts > self.idle_watts:
            raise ValueError(f"power_down.off_watts ({self.power_down.off_watts:g}) is above "
                             f"idle_watts ({self.idle_watts:g}): switching off would cost "
                             "power")  # fmt: skip
        return self

    def busy_at(self, performance: np.ndarray) -> np.ndarray:
        """Busy watts of nodes of ``performance``."""
        return self.busy_watts + self.busy_watts_per_performance * np.asarray(performance, float)


class SignalConfig(BaseModel):
    """One of: ``value`` (constant), ``csv`` (rows ``time,value``, time in s, each value
    holding until the next row) or ``profile`` (``daily``/``weekly``) with ``steps`` of
    ``[hour, value]`` (hours from midnight, or from Monday 00:00).

    ``extend``: outside its rows a CSV repeats every ``period`` seconds from its first time
    (``repeat``) or holds its first and last values (``clip``, the default for a CSV); a
    profile always repeats. ``offset``: the signal's time at the simulation's time 0 (s; a
    log starting at 06:00 has offset 21600 against a daily profile).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: NonNegativeFloat | None = None
    csv: str | None = None
    profile: Literal["daily", "weekly"] | None = None
    steps: tuple[tuple[float, NonNegativeFloat], ...] = ()
    extend: Literal["repeat", "clip"] | None = None
    period: PositiveFloat | None = None
    offset: float = 0.0

    @model_validator(mode="after")
    def _one_source(self) -> SignalConfig:
        given = [name for name in ("value", "csv", "profile") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of value, csv or profile, got {given or 'none'}")
        if self.steps and self.profile is None:
            raise ValueError("steps belong to a profile: give profile: daily or weekly")
        if self.profile is not None:
            self._check_profile()
        if self.csv is not None:
            if self.extend == "repeat" and self.period is None:
                raise ValueError("extend: repeat needs the period (s) after which the rows repeat")
            self.signal()  # reads the file: its errors are the scenario's
        elif self.extend is not None or self.period is not None:
            raise ValueError("extend and period apply to a csv signal only")
        return self

    def _check_profile(self) -> None:
        hours = [hour for hour, _ in self.steps]
        span = PROFILE_HOURS[str(self.profile)]
        if not hours:
            raise ValueError(f"profile {self.profile} needs steps: [[hour, value], ...]")
        if any(not 0 <= hour < span for hour in hours):
            raise ValueError(f"steps: hours of a {self.profile} profile lie in [0, {span:g}), "
                             f"got {hours}")  # fmt: skip
        if any(b <= a for a, b in itertools.pairwise(hours)):
            raise ValueError(f"steps: hours must increase, got {hours}")

    def signal(self) -> Signal:
        """The signal on the simulation's clock."""
        if self.value is not None:
            return Signal.constant(self.value)
        if self.profile is not None:
            hours = np.array([hour for hour, _ in self.steps]) * HOUR_S
            period = PROFILE_HOURS[self.profile] * HOUR_S
            times = np.append(hours, hours[0] + period) - self.offset
            return Signal(times, np.array([value for _, value in self.steps]), repeat=True)
        times, values = read_signal_csv(Path(str(self.csv)).expanduser())
        repeat = self.extend == "repeat"
        if repeat:
            assert self.period is not None
            if self.period <= times[-1] - times[0]:
                raise ValueError(f"period ({self.period:g} s) is not longer than the rows' span "
                                 f"({times[-1] - times[0]:g} s) in {self.csv}")  # fmt: skip
            end = times[0] + self.period
        else:
            end = times[-1] + 1.0  # the last value holds anyway
        return Signal(np.append(times, end) - self.offset, values, repeat=repeat)


def read_signal_csv(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Times and values of a ``time,value`` CSV (a header line, then one row per step)."""
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot be read as a CSV ({error})") from None
    if not rows or [cell.strip() for cell in rows[0]] != ["time", "value"]:
        raise ValueError(f"{path}: expected the header line 'time,value'")
    times, values = [], []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        try:
            time, value = (float(cell) for cell in row)
        except ValueError:
            raise ValueError(f"{path} line {line}: expected two numbers 'time,value', "
                             f"got {','.join(row)!r}") from None  # fmt: skip
        if not (math.isfinite(time) and math.isfinite(value)) or value < 0:
            raise ValueError(f"{path} line {line}: expected a finite time and a value >= 0, "
                             f"got {','.join(row)!r}")  # fmt: skip
        if times and time <= times[-1]:
            raise ValueError(f"{path} line {line}: time {time:g} does not increase")
        times.append(time)
        values.append(value)
    if not times:
        raise ValueError(f"{path}: no rows after the header")
    return np.array(times), np.array(values)
