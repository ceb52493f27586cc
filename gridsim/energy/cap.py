"""A cap on the total busy power, as the multi-resource planners track it.

Consumes the nodes' :class:`~gridsim.energy.model.EnergyModel` and the cap's
:class:`~gridsim.energy.signals.Signal` (watts, ``platform.power_cap``); produces a
:class:`~gridsim.scheduling.resource_profile.PowerLimit`: per node the busy milliwatts a job
there draws, and the cap's steps over the replay's span.

Whole milliwatts: holding and releasing a job then add up exactly, with no float dust. Node
watts are rounded up and the cap down, so a plan within the rounded numbers is within the
real ones. A time-varying cap is laid out from the first submission to ``horizon`` (the
replay takes the last submission plus the longest estimate); after it the cap's lowest value
holds, a safe stand-in should a schedule run longer. Every job must fit under that lowest
value (the replay drops and counts those that do not), so every job can start in the end.
"""

from __future__ import annotations

import math

import numpy as np

from gridsim.energy.model import EnergyModel
from gridsim.energy.signals import Signal
from gridsim.scheduling.resource_profile import PowerLimit

MILLIWATTS_PER_WATT = 1000


def power_limit(model: EnergyModel, cap: Signal, start: float, horizon: float) -> PowerLimit:
    """The cap as the planners' profile takes it, from ``start`` to ``horizon`` (s)."""
    node_mw = np.ceil(np.asarray(model.busy_watts) * MILLIWATTS_PER_WATT).astype(np.int64)
    if cap.is_constant:
        return PowerLimit(node_mw, (start,), (_milliwatts(cap.values[0]),))
    times = [start] + [float(t) for t in _breakpoints(cap, start, horizon)]
    values = [_milliwatts(v) for v in cap.at(np.array(times)).tolist()]
    times.append(horizon)
    values.append(_milliwatts(cap.values.min()))
    return PowerLimit(node_mw, tuple(times), tuple(values))


def _milliwatts(watts: float) -> int:
    return math.floor(float(watts) * MILLIWATTS_PER_WATT)


def _breakpoints(cap: Signal, start: float, horizon: float) -> np.ndarray:
    """The cap's breakpoints strictly inside ``(start, horizon)``."""
    if not cap.repeat:
        inside = cap.times[:-1]
    else:
        first = math.floor((start - cap.times[0]) / cap.period)
        last = math.ceil((horizon - cap.times[0]) / cap.period)
        shifts = np.arange(first, last + 1)[:, None] * cap.period
        inside = (cap.times[None, :-1] + shifts).ravel()
    return inside[(inside > start) & (inside < horizon)]
