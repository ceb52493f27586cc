"""The machine a workload log ran on, as nodes with performance and price.

Consumes: the log's machine size (MaxProcs, e.g. `read_swf(...).machine_processors`) and,
optionally, a `LogPlatformConfig` of node classes (count, performance, price) to ask "what if
this machine were heterogeneous and priced?". Produces: a `LogPlatform`, plain arrays of node
id, performance and price, and job volumes (`job_volume`).

By default each of the log's processors is one node of performance 1 and price 1 per
second: the log's run times are then the tasks' durations unchanged. A job's volume is its
run time on the log's machine times the reference performance (the performance of that
machine's nodes, 1 by default); on a node of performance p it runs volume / p seconds.

Cost: O(nodes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)

from gridsim.energy.config import PowerConfig, SignalConfig
from gridsim.energy.model import EnergyModel, energy_model
from gridsim.energy.signals import Signal
from gridsim.resources import CORES, NodeMode, capacity_matrix

if TYPE_CHECKING:
    import pandas as pd

#: Memory of a node that declares none: more than any job asks for (memory is not tracked).
UNTRACKED_MEMORY_MB = 2**62


class NodeClass(BaseModel):
    """`count` identical nodes of `performance` (work units per s) and `price` (money per s),
    with `cores`, `memory_mb` (MiB; None: not tracked) and `gpus`, and prices per core-hour,
    GiB-hour and GPU-hour of what a job holds (docs/resources.md); optionally their `power`
    and the `electricity_price` and `carbon_intensity` of their site (None: the platform's;
    docs/energy.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: PositiveInt
    performance: PositiveFloat = 1.0
    price: NonNegativeFloat = 1.0
    cores: PositiveInt = 1
    memory_mb: PositiveInt | None = None
    gpus: NonNegativeInt = 0
    price_per_core_hour: NonNegativeFloat = 0.0
    price_per_gib_hour: NonNegativeFloat = 0.0
    price_per_gpu_hour: NonNegativeFloat = 0.0
    power: PowerConfig | None = None
    electricity_price: SignalConfig | None = None
    carbon_intensity: SignalConfig | None = None

    @property
    def has_resources(self) -> bool:
        """Whether the class says more than one processor per node."""
        return self.cores > 1 or self.memory_mb is not None or self.gpus > 0


class LogPlatformConfig(BaseModel):
    """Node classes replacing the log's homogeneous machine.

    Attributes:
        node_classes: the classes, in node-id order; none means the log's machine as is.
        reference_performance: the performance of the log's original nodes (work units per
            s), which converts run times into volumes.
        node_mode: with cores, memory or GPUs, whether jobs share nodes ("shared", Slurm's
            cons_tres) or take whole nodes ("exclusive").
        default_memory_per_core_mb: memory a job whose log gives none asks for per core
            (None: none).
        processors_as: what a job's processor count asks for: "cores" (one each) or "gpus"
            (one GPU each, with ``cores_per_gpu`` cores and their memory, on any nodes).
        cores_per_gpu: cores a GPU of a job asks for with it (``processors_as: gpus``).
        gpus_per_task: with ``processors_as: gpus``, a job's GPUs in tasks of at most this
            many, one task per node (a job of g GPUs: ceil(g / gpus_per_task) tasks of equal
            GPUs, rounded up), as the window-search policies place a job's tasks; None: GPUs
            one by one, on any nodes.
        resource_planning: on nodes of one performance, plan cores, memory and GPUs on the
            multi-resource profile ("profile") or place one task per node with the
            scenario's window-search policy on the nodes able to hold it ("one_task_per_node",
            as on nodes of different performance).
        power: the nodes' power model where a class gives none (None: energy not modelled).
        electricity_price, carbon_intensity: signals where a class gives none (None: 0).
        power_cap: a cap on the total busy power of running jobs (watts; a constant or a
            signal as ``electricity_price``), planned on the multi-resource profile (None: no
            cap; docs/energy.md, "A power cap").
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_classes: tuple[NodeClass, ...] = ()
    reference_performance: PositiveFloat = 1.0
    node_mode: NodeMode = "shared"
    default_memory_per_core_mb: PositiveInt | None = None
    processors_as: Literal["cores", "gpus"] = "cores"
    cores_per_gpu: PositiveInt = 1
    gpus_per_task: PositiveInt | None = None
    resource_planning: Literal["profile", "one_task_per_node"] = "profile"
    power: PowerConfig | None = None
    electricity_price: SignalConfig | None = None
    carbon_intensity: SignalConfig | None = None
    power_cap: SignalConfig | None = None

    @model_validator(mode="after")
    def _power_where_signals(self) -> LogPlatformConfig:
        classes = self.node_classes
        powered = [self.power is not None or c.power is not None for c in classes]
        if classes and any(powered) and not all(powered):
            raise ValueError("power: give it for every node class or on the platform, "
                             "or for none")  # fmt: skip
        signals = [name for name in ("electricity_price", "carbon_intensity")
                   if getattr(self, name) is not None
                   or any(getattr(c, name) is not None for c in classes)]  # fmt: skip
        if signals and not has_power(self):
            raise ValueError(f"{signals[0]}: a signal needs a power model; give power: "
                             "{idle_watts: W, busy_watts: W}")  # fmt: skip
        if self.power_cap is not None and not has_power(self):
            raise ValueError("power_cap: a cap on busy power needs a power model; give power: "
                             "{idle_watts: W, busy_watts: W}")  # fmt: skip
        return self

    @field_validator("node_classes")
    @classmethod
    def _memory_everywhere_or_nowhere(cls, value: tuple[NodeClass, ...]) -> tuple[NodeClass, ...]:
        if len({node_class.memory_mb is None for node_class in value}) > 1:
            raise ValueError("give memory_mb for every class or for none")
        return value

    @model_validator(mode="after")
    def _tasks_of_gpus(self) -> LogPlatformConfig:
        if self.gpus_per_task is not None and self.processors_as != "gpus":
            raise ValueError("gpus_per_task splits GPUs into tasks: it needs processors_as: gpus")
        return self


@dataclass(frozen=True)
class LogPlatform:
    """Nodes as parallel read-only arrays: node_id (0..n-1), performance, price; with
    resources, ``capacity`` (nodes x kinds of :mod:`gridsim.resources`) and ``resource_price``
    (nodes x kinds, money per unit and second)."""

    node_id: np.ndarray
    performance: np.ndarray
    price: np.ndarray
    reference_performance: float = 1.0
    capacity: np.ndarray | None = None
    resource_price: np.ndarray | None = None
    node_mode: NodeMode = "shared"
    memory_tracked: bool = False
    energy: EnergyModel | None = None
    power_cap: Signal | None = None

    def __len__(self) -> int:
        return len(self.node_id)

    @property
    def cores(self) -> int:
        """Cores of all nodes (one per node without resources)."""
        return len(self) if self.capacity is None else int(self.capacity[:, CORES].sum())

    @property
    def one_speed(self) -> bool:
        """Every node of the same performance."""
        return len(set(self.performance.tolist())) == 1

    @property
    def homogeneous(self) -> bool:
        """Every node of the same performance and price: the processor-count schedulers
        replay such a machine exactly."""
        return len(set(zip(self.performance.tolist(), self.price.tolist(), strict=True))) == 1

    def to_frame(self) -> pd.DataFrame:
        """One row per node: node_id, performance, price (and cores, memory_mb, gpus)."""
        import pandas as pd

        frame = pd.DataFrame(
            {"node_id": self.node_id, "performance": self.performance, "price": self.price}
        )
        if self.capacity is not None:
            frame["cores"], frame["memory_mb"], frame["gpus"] = self.capacity.T
        return frame


def _read_only(values: np.ndarray) -> np.ndarray:
    values.setflags(write=False)
    return values


def log_platform(
    machine_processors: int | None, config: LogPlatformConfig | None = None
) -> LogPlatform:
    """The nodes for replaying a log.

    Args:
        machine_processors: the log's machine size (one node per processor); needed unless
            `config` gives node classes.
        config: node classes; with none, `machine_processors` nodes of performance 1, price 1.

    Raises:
        ValueError: no node classes and no positive machine size.
    """
    config = config or LogPlatformConfig()
    classes = config.node_classes
    if not classes:
        if machine_processors is None or machine_processors <= 0:
            raise ValueError(
                "expected a positive machine size (the log's MaxProcs) or node classes, "
                f"got {machine_processors}"
            )
        classes = (NodeClass(count=machine_processors),)
    counts = [node_class.count for node_class in classes]
    capacity = resource_price = None
    memory_tracked = any(c.memory_mb is not None for c in classes)
    # A capped replay runs the resource planners, which need capacities (one core a node).
    if any(c.has_resources for c in classes) or config.power_cap is not None:
        memory = [c.memory_mb or UNTRACKED_MEMORY_MB for c in classes]
        per_class = ([c.cores for c in classes], memory, [c.gpus for c in classes])
        capacity = capacity_matrix(*(np.repeat(values, counts) for values in per_class))
        per_hour = [(c.price_per_core_hour, c.price_per_gib_hour / 1024, c.price_per_gpu_hour)
                    for c in classes]  # fmt: skip
        resource_price = _read_only(np.repeat(np.array(per_hour) / 3600, counts, axis=0))
    performance = _read_only(np.repeat([c.performance for c in classes], counts))
    return LogPlatform(
        node_id=_read_only(np.arange(sum(counts), dtype=np.int64)),
        performance=performance,
        price=_read_only(np.repeat([c.price for c in classes], counts)),
        reference_performance=config.reference_performance,
        capacity=capacity,
        resource_price=resource_price,
        node_mode=config.node_mode,
        memory_tracked=memory_tracked,
        energy=_energy(config, classes, counts, performance),
        power_cap=None if config.power_cap is None else config.power_cap.signal(),
    )


def has_power(config: LogPlatformConfig) -> bool:
    """Whether the platform's nodes have a power model (energy is then accounted)."""
    return config.power is not None or any(c.power is not None for c in config.node_classes)


def _energy(config: LogPlatformConfig, classes, counts, performance) -> EnergyModel | None:
    """The nodes' energy model: each class's power and signals, else the platform's."""
    if any((c.power or config.power) is None for c in classes):
        return None

    def per_node(name: str) -> list:
        return [s for c, k in zip(classes, counts, strict=True)
                for s in [getattr(c, name) or getattr(config, name)] * k]  # fmt: skip

    return energy_model(per_node("power"), performance, per_node("electricity_price"),
                        per_node("carbon_intensity"))  # fmt: skip


def job_volume(run_time: np.ndarray | pd.Series, reference_performance: float = 1.0):
    """Volume (work units) = run time (s) on the log's machine x reference performance."""
    if reference_performance <= 0:
        raise ValueError(f"expected a positive reference performance, got {reference_performance}")
    return run_time * reference_performance
