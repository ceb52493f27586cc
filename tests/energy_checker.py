"""An independent energy checker: reads only a tasks (or jobs) table, the power model and the
signals' scenario fields, and recomputes every task's energy, electricity cost and carbon;
:func:`cap_problems` confirms from the jobs table that no instant draws more than a power cap.

It shares nothing with :mod:`gridsim.energy` beyond the configs: busy watts from the
performance column, and each signal integrated by walking its steps one by one (no running
sums, no binary search).
"""

from __future__ import annotations

import math

from resource_checker import node_ids

from gridsim.energy.config import PowerConfig, PowerDownConfig, SignalConfig

HOUR = 3600.0


def signal_integral(config: SignalConfig | None, start: float, end: float) -> float:
    """The integral of a constant or profile signal over [start, end], step by step."""
    if config is None:
        return 0.0
    if config.value is not None:
        return config.value * (end - start)
    span = {"daily": 24.0, "weekly": 168.0}[config.profile] * HOUR
    hours = [hour * HOUR for hour, _ in config.steps]
    values = [value for _, value in config.steps]
    total, t = 0.0, start
    while t < end:
        local = (t + config.offset) % span
        # The step holding `local` (before the first step hour: the last step, wrapped).
        k = max((i for i, h in enumerate(hours) if h <= local), default=len(hours) - 1)
        next_edge = hours[k + 1] if k + 1 < len(hours) else hours[0] + span
        if next_edge <= local:
            next_edge += span
        until = min(end, t + (next_edge - local))
        total += values[k] * (until - t)
        if until <= t:  # float dust at an edge: step past it
            until = math.nextafter(t, math.inf)
        t = until
    return total


def expected_task(
    power: PowerConfig,
    performance: float,
    start: float,
    end: float,
    price: SignalConfig | None,
    carbon: SignalConfig | None,
) -> dict[str, float]:
    watts = power.busy_watts + power.busy_watts_per_performance * performance
    return {
        "energy_kwh": watts * (end - start) / 3.6e6,
        "electricity_cost": watts * signal_integral(price, start, end) / 3.6e6,
        "carbon_kg": watts * signal_integral(carbon, start, end) / 3.6e9,
    }


def with_power(criterion, nodes):
    """``criterion`` seeing a power model and two signals on ``nodes`` when it needs one
    (the energy criteria; the others are returned as they are), for the tests that run every
    registered criterion."""
    import numpy as np

    from gridsim.energy.model import energy_model
    from gridsim.selection.energy_criteria import bind_energy, needs_energy

    if not needs_energy(criterion):
        return criterion
    power = PowerConfig(idle_watts=40.0, busy_watts=100.0, busy_watts_per_performance=25.0)
    price = SignalConfig(profile="daily", steps=((0, 0.1), (0.004, 0.4), (0.01, 0.2)))
    carbon = SignalConfig(profile="daily", steps=((0, 300), (0.006, 120)))
    count = len(nodes)
    performance = np.array([node.performance for node in nodes])
    model = energy_model([power] * count, performance, [price] * count, [carbon] * count)
    return bind_energy(criterion, model)


def signal_at(config: SignalConfig, time: float) -> float:
    """A constant or profile signal's value at ``time``, by walking its steps."""
    if config.value is not None:
        return config.value
    span = {"daily": 24.0, "weekly": 168.0}[config.profile] * HOUR
    local = (time + config.offset) % span
    steps = [(hour * HOUR, value) for hour, value in config.steps]
    earlier = [value for start, value in steps if start <= local]
    return earlier[-1] if earlier else steps[-1][1]


def cap_breakpoints(config: SignalConfig, start: float, end: float) -> list[float]:
    """The instants in ``[start, end]`` at which a profile cap may change."""
    if config.value is not None:
        return []
    span = {"daily": 24.0, "weekly": 168.0}[config.profile] * HOUR
    edges = []
    first = math.floor((start + config.offset) / span) - 1
    for cycle in range(first, math.ceil((end + config.offset) / span) + 1):
        for hour, _ in config.steps:
            at = cycle * span + hour * HOUR - config.offset
            if start <= at <= end:
                edges.append(at)
    return edges


def cap_problems(jobs, node_watts: dict[int, float], cap: SignalConfig) -> list[str]:
    """Every instant at which the jobs running draw more than the cap: from the jobs table
    alone (start_time, finish_time, allocated_resources), each job drawing the busy watts of
    every node it names; a job ending at an instant stops drawing before one starting then.
    The drawn power and the cap are both step functions, so their edges are all checked."""
    changes = []
    for job in jobs.itertuples():
        if job.start_time != job.start_time:  # NaN: never ran
            continue
        watts = sum(node_watts[node] for node in node_ids(job.allocated_resources))
        changes += [(job.start_time, 1, watts), (job.finish_time, 0, -watts)]
    if not changes:
        return []
    changes.sort(key=lambda change: (change[0], change[1]))
    edges = sorted({time for time, _, _ in changes}
                   | set(cap_breakpoints(cap, changes[0][0], changes[-1][0])))  # fmt: skip
    problems, drawn, k = [], 0.0, 0
    for time in edges:  # the power drawn on [time, next edge)
        while k < len(changes) and changes[k][0] <= time:
            drawn += changes[k][2]
            k += 1
        limit = signal_at(cap, time)
        if drawn > limit + 1e-6:
            problems.append(f"{drawn:g} W drawn at {time:g} over the cap of {limit:g} W")
    return problems


def node_states(
    busy: list[tuple[float, float]], span: tuple[float, float], down: PowerDownConfig
) -> tuple[list[tuple[str, float, float]], int]:
    """(state, start, end) of one node's idle time over ``span``, and its switch-offs, from
    the intervals any task holds it: a gap (clipped to the span) idles for ``idle_timeout``,
    switches off and is off until ``switch_on_seconds`` before the next task, if it is long
    enough for all of it; a gap running to the span's end needs no switch-on."""
    first, last = span
    free_from = first
    gaps = []
    for start, end in sorted(busy):
        if start >= last:  # after the span: the gap before it runs to the span's end
            break
        start, end = max(start, first), min(max(end, first), last)
        if start > free_from:
            gaps.append((free_from, start, False))
        free_from = max(free_from, end)
    if last > free_from:
        gaps.append((free_from, last, True))
    timeout, to_off, to_on = down.idle_timeout, down.switch_off_seconds, down.switch_on_seconds
    states, offs = [], 0
    for start, end, to_span_end in gaps:
        length = end - start
        if to_span_end and length > timeout:
            offs += 1
            states += [("idle", start, start + timeout),
                       ("switching_off", start + timeout, min(end, start + timeout + to_off)),
                       ("off", min(end, start + timeout + to_off), end)]  # fmt: skip
        elif not to_span_end and length >= timeout + to_off + to_on:
            offs += 1
            states += [("idle", start, start + timeout),
                       ("switching_off", start + timeout, start + timeout + to_off),
                       ("off", start + timeout + to_off, end - to_on),
                       ("switching_on", end - to_on, end)]  # fmt: skip
        else:
            states.append(("idle", start, end))
    return states, offs


def node_state_accounts(
    power: PowerConfig,
    states: list[tuple[str, float, float]],
    price: SignalConfig | None,
    carbon: SignalConfig | None,
) -> dict[str, float]:
    """kWh of each state of :func:`node_states`, their electricity cost and carbon."""
    down = power.power_down
    watts = {
        "idle": power.idle_watts,
        "off": down.off_watts,
        "switching_off": down.switch_off_watts,
        "switching_on": down.switch_on_watts,
    }
    column = {
        "idle": "idle_energy_kwh",
        "off": "off_energy_kwh",
        "switching_off": "switching_energy_kwh",
        "switching_on": "switching_energy_kwh",
    }
    out = dict.fromkeys(["idle_energy_kwh", "switching_energy_kwh", "off_energy_kwh",
                         "electricity_cost", "carbon_kg", "off_time"], 0.0)  # fmt: skip
    for state, start, end in states:
        out[column[state]] += watts[state] * (end - start) / 3.6e6
        out["electricity_cost"] += watts[state] * signal_integral(price, start, end) / 3.6e6
        out["carbon_kg"] += watts[state] * signal_integral(carbon, start, end) / 3.6e9
        if state == "off":
            out["off_time"] += end - start
    return out
