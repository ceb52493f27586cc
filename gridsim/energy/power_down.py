"""Idle nodes powered down: a node's idle intervals split into its power states.

Consumes a run's idle intervals (node, start, end, and whether the interval runs to the end
of the run's span) and the model's :class:`~gridsim.energy.model.PowerDown`; produces the
intervals of each state (idle, switching, off) with the watts drawn in each.

The rule (docs/model.md, "Idle nodes powered down"), Batsim's energy states under a timeout
shutdown: a node idle for ``timeout`` starts switching off; it is switched on again
``switch_on_seconds`` before its next task starts, so it is on in time. A gap too short for
the timeout and both transitions is spent idle. A gap that runs to the span's end has no next
task: the node switches off after the timeout and stays off (a transition cut by the span's
end counts up to it). This is accounting on the executed schedule: it assumes every next
start is known a switch-on time ahead (docs/energy.md says what that means).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: State codes of :class:`PowerStates`.
IDLE, SWITCHING, OFF = 0, 1, 2


@dataclass(frozen=True)
class PowerStates:
    """Intervals of one state each (arrays of one length)."""

    node: np.ndarray
    start: np.ndarray
    end: np.ndarray
    watts: np.ndarray
    state: np.ndarray
    #: Per idle interval given, whether the node switched off in it.
    switched_off: np.ndarray


def power_states(model, node, start, end, open_end) -> PowerStates:
    """The states of idle intervals ``[start, end]`` of ``node`` (``open_end``: the interval
    runs to the span's end, no task follows)."""
    down = model.power_down
    node = np.asarray(node, dtype=np.int64)
    start, end = np.asarray(start, float), np.asarray(end, float)
    open_end = np.asarray(open_end, dtype=bool)
    timeout, off_s, on_s = down.timeout[node], down.off_seconds[node], down.on_seconds[node]
    length = end - start
    with np.errstate(invalid="ignore"):  # an infinite timeout: never
        sleeps = np.isfinite(timeout) & np.where(
            open_end, length > timeout, length >= timeout + off_s + on_s
        )
    # Each interval as five pieces: idle, switching off, off, switching on, and (for a gap
    # that does not sleep) idle throughout; pieces of zero length are dropped.
    idle_until = np.where(sleeps, start + np.where(sleeps, timeout, 0.0), end)
    off_from = np.minimum(idle_until + np.where(sleeps, off_s, 0.0), end)
    on_from = np.where(sleeps & ~open_end, end - on_s, end)
    on_from = np.maximum(on_from, off_from)
    pieces = [
        (start, idle_until, model.idle_watts[node], IDLE),
        (idle_until, off_from, down.off_switch_watts[node], SWITCHING),
        (off_from, on_from, down.off_watts[node], OFF),
        (on_from, end, down.on_switch_watts[node], SWITCHING),
    ]
    parts = []
    for begin, finish, watts, state in pieces:
        keep = finish > begin
        parts.append((node[keep], begin[keep], finish[keep], watts[keep],
                      np.full(int(keep.sum()), state)))  # fmt: skip
    columns = [np.concatenate(column) for column in zip(*parts, strict=True)]
    return PowerStates(*columns, switched_off=sleeps)
