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

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, NonNegativeFloat, PositiveFloat, PositiveInt


class NodeClass(BaseModel):
    """`count` identical nodes of `performance` (work units per s) and `price` (money per s)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: PositiveInt
    performance: PositiveFloat = 1.0
    price: NonNegativeFloat = 1.0


class LogPlatformConfig(BaseModel):
    """Node classes replacing the log's homogeneous machine.

    Attributes:
        node_classes: the classes, in node-id order; none means the log's machine as is.
        reference_performance: the performance of the log's original nodes (work units per
            s), which converts run times into volumes.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_classes: tuple[NodeClass, ...] = ()
    reference_performance: PositiveFloat = 1.0


@dataclass(frozen=True)
class LogPlatform:
    """Nodes as parallel read-only arrays: node_id (0..n-1), performance, price."""

    node_id: np.ndarray
    performance: np.ndarray
    price: np.ndarray
    reference_performance: float = 1.0

    def __len__(self) -> int:
        return len(self.node_id)

    def to_frame(self) -> pd.DataFrame:
        """One row per node: node_id, performance, price."""
        return pd.DataFrame(
            {"node_id": self.node_id, "performance": self.performance, "price": self.price}
        )


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
    return LogPlatform(
        node_id=_read_only(np.arange(sum(counts), dtype=np.int64)),
        performance=_read_only(np.repeat([c.performance for c in classes], counts)),
        price=_read_only(np.repeat([c.price for c in classes], counts)),
        reference_performance=config.reference_performance,
    )


def job_volume(run_time: np.ndarray | pd.Series, reference_performance: float = 1.0):
    """Volume (work units) = run time (s) on the log's machine x reference performance."""
    if reference_performance <= 0:
        raise ValueError(f"expected a positive reference performance, got {reference_performance}")
    return run_time * reference_performance
