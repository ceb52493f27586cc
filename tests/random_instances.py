"""Small random environments and requests shared by the window-search tests."""

from __future__ import annotations

import numpy as np

from gridsim.model import Node, Request, Window
from gridsim.profile import Profile
from gridsim.workloads.environment import (
    EnvironmentSpec,
    LocalLoad,
    PriceModel,
    generate_environment,
)


def random_instance(seed: int) -> tuple[Profile, Request]:
    """8-14 nodes over a 300-600 horizon with local load, and a 2-4 node request.

    The budget is sometimes unlimited and sometimes binds; some requests have a minimum
    performance or an earliest start.
    """
    rng = np.random.default_rng(seed)
    horizon = float(rng.uniform(300, 600))
    spec = EnvironmentSpec(
        nodes=int(rng.integers(8, 15)),
        performance=(2.0, 10.0),
        horizon=horizon,
        price=PriceModel(
            model=str(rng.choice(["proportional", "exponential"])), base=0.1, spread=0.3
        ),
        local_load=LocalLoad(max_utilisation=float(rng.uniform(0.2, 0.7)), tasks_per_node=(1, 4)),
    )
    environment = generate_environment(spec, rng)
    n = int(rng.integers(2, 5))
    volume = float(rng.uniform(0.03, 0.3)) * horizon * 6.0
    prices = np.array([node.price for node in environment.nodes])
    perfs = np.array([node.performance for node in environment.nodes])
    typical_task_cost = float(np.median(volume / perfs * prices))
    budget = (
        float("inf") if rng.random() < 0.3 else float(rng.uniform(0.7, 1.5)) * n * typical_task_cost
    )
    min_performance = 0.0 if rng.random() < 0.7 else float(rng.uniform(2, 6))
    earliest_start = 0.0 if rng.random() < 0.7 else float(rng.uniform(0, horizon / 3))
    request = Request(n, volume, budget, min_performance, earliest_start)
    return environment.profile(), request


def window_value(name: str, window: Window, nodes: tuple[Node, ...]) -> float:
    """A criterion's value of a finished window, computed from the window alone."""
    left = np.array(window.left_distances())
    right = np.array(window.right_distances())
    values = {
        "FirstFit": -window.start,
        "MinStart": -window.start,
        "MinFinish": -window.finish,
        "MinRuntime": -window.runtime,
        "MinCost": -sum(window.runtime * nodes[i].price for i in window.nodes),
        "MaxQ": sum(nodes[i].q for i in window.nodes),
        "DEP": float(np.minimum(left, right).sum()),
        "COORD": -float(np.maximum(left, right).sum()),
    }
    values["MaxQLite"], values["DEPLite"], values["COORDLite"] = (
        values["MaxQ"], values["DEP"], values["COORD"]
    )  # fmt: skip
    return float(values[name])
