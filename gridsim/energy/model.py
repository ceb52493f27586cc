"""The power drawn by every node and the signals behind its cost and carbon.

Consumes per-node power configs and signals (:mod:`gridsim.energy.config`); produces an
:class:`EnergyModel`: per-node idle and busy watts as arrays and, per node, the index of its
price and carbon signals. Its methods give a task's energy, electricity cost and carbon
from the task's node, start and end: O(log n) per task in the signal's breakpoints.

A task's busy watts are known when it is planned (they depend on its node only), so a power
cap can later be one more resource a planner's profile tracks (docs/energy.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridsim.analysis.tables import Table, column_names
from gridsim.energy.config import PowerConfig, PowerDownConfig, SignalConfig
from gridsim.energy.signals import Signal

#: Watt-seconds (joules) per kWh.
JOULES_PER_KWH = 3.6e6
#: Grams per kilogram: carbon intensity is in g CO2 per kWh, carbon in kg.
GRAMS_PER_KG = 1000.0


#: The runs table's energy columns.
RUN_ENERGY_COLUMNS = ("energy_kwh", "busy_energy_kwh", "idle_energy_kwh", "electricity_cost",
                      "carbon_kg")  # fmt: skip
#: The runs table's columns a power-down block adds.
POWER_DOWN_RUN_COLUMNS = ("switching_energy_kwh", "off_energy_kwh", "switch_offs")


def energy_metrics(runs: Table) -> list[str]:
    """The runs table's energy columns it has (a run without a power model has none)."""
    names = column_names(runs)
    return [name for name in (*RUN_ENERGY_COLUMNS, *POWER_DOWN_RUN_COLUMNS) if name in names]


@dataclass(frozen=True)
class PowerDown:
    """Per node (arrays of one length), how an idle node switches off
    (:class:`~gridsim.energy.config.PowerDownConfig`); a node that never switches off has an
    infinite ``timeout``."""

    timeout: np.ndarray
    off_watts: np.ndarray
    off_seconds: np.ndarray
    off_switch_watts: np.ndarray
    on_seconds: np.ndarray
    on_switch_watts: np.ndarray

    @classmethod
    def of(cls, configs: Sequence[PowerDownConfig | None]) -> PowerDown:
        never = PowerDownConfig(idle_timeout=np.inf)
        rows = [never if c is None else c for c in configs]
        arrays = [
            np.array([getattr(row, name) for row in rows], dtype=np.float64)
            for name in ("idle_timeout", "off_watts", "switch_off_seconds", "switch_off_watts",
                         "switch_on_seconds", "switch_on_watts")
        ]  # fmt: skip
        for array in arrays:
            array.setflags(write=False)
        return cls(*arrays)


@dataclass(frozen=True)
class EnergyModel:
    """Per-node power and signals.

    Attributes:
        idle_watts, busy_watts: (nodes,) what each node draws idle and while a task holds it.
        price_signals, carbon_signals: the distinct signals (money per kWh, g CO2 per kWh).
        price_of_node, carbon_of_node: (nodes,) each node's signal index.
        power_down: how idle nodes switch off, or None (they stay idle).
    """

    idle_watts: np.ndarray
    busy_watts: np.ndarray
    price_signals: tuple[Signal, ...]
    price_of_node: np.ndarray
    carbon_signals: tuple[Signal, ...]
    carbon_of_node: np.ndarray
    power_down: PowerDown | None = None

    def __len__(self) -> int:
        return len(self.busy_watts)

    @property
    def uniform(self) -> bool:
        """Every node the same power and the same signals: a job's accounts then follow
        from its processor count, without its node ids."""
        return bool(
            self.power_down is None
            and len(self.price_signals) == 1
            and len(self.carbon_signals) == 1
            and np.all(self.busy_watts == self.busy_watts[0])
            and np.all(self.idle_watts == self.idle_watts[0])
        )

    def _signals(self, which: str) -> tuple[tuple[Signal, ...], np.ndarray, float]:
        """The ``price`` or ``carbon`` signals, each node's index among them, and what turns
        watts x the signal's integral into money or kg."""
        if which == "price":
            return self.price_signals, self.price_of_node, JOULES_PER_KWH
        return self.carbon_signals, self.carbon_of_node, JOULES_PER_KWH * GRAMS_PER_KG

    def busy_kwh(self, nodes, start, end) -> np.ndarray:
        """Energy of tasks on ``nodes`` over ``[start, end]`` (arrays of one length)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        return self.busy_watts[nodes] * (np.asarray(end) - np.asarray(start)) / JOULES_PER_KWH

    def weighted(self, which: str, nodes, start, end, watts) -> np.ndarray:
        """``watts x`` the integral of the ``which`` signal (``price`` or ``carbon``) of each
        node over ``[start, end]``: electricity cost (money) or carbon (kg)."""
        signals, of_node, scale = self._signals(which)
        nodes = np.asarray(nodes, dtype=np.int64)
        start, end = np.asarray(start, float), np.asarray(end, float)
        integral = np.zeros(len(nodes))
        index = of_node[nodes]
        for k, signal in enumerate(signals):
            mine = index == k
            if mine.any():
                integral[mine] = signal.integral(start[mine], end[mine])
        return np.asarray(watts, float) * integral / scale

    def task_accounts(self, nodes, start, end) -> dict[str, np.ndarray]:
        """Energy (kWh), electricity cost and carbon (kg) of busy tasks."""
        watts = self.busy_watts[np.asarray(nodes, dtype=np.int64)]
        return {
            "energy_kwh": self.busy_kwh(nodes, start, end),
            "electricity_cost": self.weighted("price", nodes, start, end, watts),
            "carbon_kg": self.weighted("carbon", nodes, start, end, watts),
        }

    def window_costs(self, which: str, nodes, start: float, runtime: float) -> np.ndarray:
        """Per node, what a task of ``runtime`` starting at ``start`` adds: ``energy``
        (kWh), ``price`` (money) or ``carbon`` (kg). Fixed numbers for a fixed start."""
        nodes = np.asarray(nodes, dtype=np.int64)
        begin = np.full(len(nodes), float(start))
        if which == "energy":  # the runtime itself, not (start + runtime) - start
            return self.busy_kwh(nodes, 0.0, runtime)
        return self.weighted(which, nodes, begin, begin + runtime, self.busy_watts[nodes])

    def task_quantity(self, which: str, nodes, start, runtime) -> np.ndarray:
        """What tasks on ``nodes`` from ``start`` for ``runtime`` add (arrays broadcast
        against each other): ``energy`` (kWh), ``price`` (electricity, money) or ``carbon``
        (kg). Each signal is integrated over the times' own shape (a search's matrix of
        steps x slots has one start and runtime per row), then spread over the nodes."""
        nodes = np.asarray(nodes, dtype=np.int64)
        start, runtime = np.broadcast_arrays(np.asarray(start, float), np.asarray(runtime, float))
        shape = np.broadcast_shapes(nodes.shape, start.shape)
        watts = np.broadcast_to(self.busy_watts[nodes], shape)
        if which == "energy":
            return watts * runtime / JOULES_PER_KWH
        signals, of_node, scale = self._signals(which)
        end = start + runtime
        if len(signals) == 1:
            integral = np.broadcast_to(signals[0].integral(start, end), shape)
        else:
            index = np.broadcast_to(of_node[nodes], shape)
            integral = np.empty(shape)
            for k, signal in enumerate(signals):
                mine = index == k
                integral[mine] = np.broadcast_to(signal.integral(start, end), shape)[mine]
        return watts * integral / scale

    def task_quantity_floor(self, which: str, nodes, runtime) -> np.ndarray:
        """Never above :meth:`task_quantity` at any start: the node's signal at its lowest
        value throughout the runtime, less a margin far above the integral's rounding (a
        bound for a search's pruning)."""
        nodes, runtime = np.broadcast_arrays(np.asarray(nodes, dtype=np.int64),
                                             np.asarray(runtime, float))  # fmt: skip
        watts = self.busy_watts[nodes]
        if which == "energy":
            return watts * runtime / JOULES_PER_KWH
        signals, of_node, scale = self._signals(which)
        lowest = np.array([float(signal.values.min()) for signal in signals])[of_node[nodes]]
        return watts * lowest * runtime / scale * (1.0 - 1e-12)


def _signal_index(configs: Sequence[SignalConfig | None]) -> tuple[tuple[Signal, ...], np.ndarray]:
    """Distinct signals of the configs (None: price or intensity 0) and each one's index."""
    distinct: dict[SignalConfig | None, int] = {}
    signals: list[Signal] = []
    index = []
    for config in configs:
        if config not in distinct:
            distinct[config] = len(signals)
            signals.append(Signal.constant(0.0) if config is None else config.signal())
        index.append(distinct[config])
    return tuple(signals), np.array(index, dtype=np.int64)


def energy_model(
    power: Sequence[PowerConfig],
    performance: np.ndarray,
    price: Sequence[SignalConfig | None],
    carbon: Sequence[SignalConfig | None],
) -> EnergyModel:
    """The model of nodes with one power config, price and carbon signal each (in node
    order; equal configs share one signal)."""
    performance = np.asarray(performance, dtype=np.float64)
    busy = np.array([p.busy_at(x) for p, x in zip(power, performance, strict=True)], float)
    idle = np.array([p.idle_watts for p in power], dtype=np.float64)
    price_signals, price_of_node = _signal_index(price)
    carbon_signals, carbon_of_node = _signal_index(carbon)
    for array in (busy, idle, price_of_node, carbon_of_node):
        array.setflags(write=False)
    down = [p.power_down for p in power]
    power_down = PowerDown.of(down) if any(d is not None for d in down) else None
    return EnergyModel(idle, busy, price_signals, price_of_node, carbon_signals, carbon_of_node,
                       power_down)  # fmt: skip
