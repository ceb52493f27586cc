"""Scenario kind ``window_search``: one job's window under each criterion [TY18; TY19].

Consumes a :class:`WindowSearchScenario`; per replication it draws one environment (nodes, local
load) and runs every policy on that same profile; produces a ``runs`` table with one row per
policy: found or not, start, runtime, finish, cost, Q, L_minSum, L_maxSum and search time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field, field_validator, model_validator

from gridsim.analysis.stats import summarise_by
from gridsim.config import Range, ScenarioBase, Strict
from gridsim.energy.config import PowerConfig, SignalConfig
from gridsim.energy.model import EnergyModel, energy_model
from gridsim.experiments import feasibility
from gridsim.experiments.kinds import KindDeclaration
from gridsim.experiments.rejections import Count
from gridsim.model import Node, Request, Window
from gridsim.selection.criteria import FirstFitReading
from gridsim.selection.energy_criteria import bind_energy, power_needed
from gridsim.selection.registry import PolicySpecs, build_criterion
from gridsim.workloads.environment import (
    EnvironmentSpec,
    LocalLoad,
    PriceModel,
    generate_environment,
)

METRICS = ["found", "start", "runtime", "finish", "cost", "Q", "L_minSum", "L_maxSum",
           "search_time_s"]  # fmt: skip
#: What a run can fail to do, counted under the summary (:mod:`gridsim.experiments.rejections`).
REJECTIONS = (
    Count("found", None, "replications without a window",
          "no window meets the request's size, budget and minimum performance there"),
)  # fmt: skip
#: Columns `gridsim run` prints (all of METRICS are in summary.csv).
DISPLAY_METRICS = ["found", "start", "finish", "cost", "Q", "L_minSum", "L_maxSum",
                   "search_time_s"]  # fmt: skip

#: What the report and the commands read of this kind (:class:`KindDeclaration`).
DECLARATION = KindDeclaration(
    report_metrics=("start", "finish", "cost", "Q", "L_minSum", "L_maxSum"),
    paired_metrics=("finish", "cost", "Q"),
    bar_metrics=("Q", "cost"),
    advantage_metric="cost",
    labels={
        "start": "window start (time units)",
        "finish": "window finish (time units)",
        "runtime": "window runtime (time units)",
        "cost": "window cost (money)",
        "Q": "Q, sum of node values",
        "L_minSum": "mean distance to nearest busy interval (time units)",
        "L_maxSum": "mean distance to farthest busy interval (time units)",
    },
    check_feasible=feasibility.check_window_search,
)


class PriceConfig(Strict):
    model: Literal["proportional", "exponential"] = "proportional"
    base: float = Field(0.11, gt=0)
    spread: float = Field(0.35, ge=0, lt=1)
    growth: float = Field(1.7, gt=0)


class LoadConfig(Strict):
    max_utilisation: float = Field(0.3, ge=0, lt=1)
    draws: int = Field(20, ge=1)
    tasks_per_node: tuple[int, int] = (1, 4)

    @field_validator("tasks_per_node")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        if value[0] < 0 or value[1] < value[0]:
            raise ValueError(f"expected [low, high] with 0 <= low <= high, got {list(value)}")
        return value


class EnvironmentConfig(Strict):
    nodes: int = Field(100, gt=0)
    performance: Range = Range(low=2, high=10)
    performance_step: float = Field(0.0, ge=0)
    horizon: float = Field(1200, gt=0)
    q: Range = Range(low=0, high=10)
    price: PriceConfig = PriceConfig()
    local_load: LoadConfig = LoadConfig()
    horizon_start_edge: Literal["neighbour", "none", "history"] = "neighbour"
    #: Energy (docs/energy.md): the nodes' power, with the names of a log platform's node
    #: classes; a signal needs a power model.
    power: PowerConfig | None = None
    electricity_price: SignalConfig | None = None
    carbon_intensity: SignalConfig | None = None
    #: A cap on the total busy power (watts; a constant or a signal), planned by the job
    #: flows' planners (docs/energy.md, "A power cap").
    power_cap: SignalConfig | None = None

    @field_validator("performance")
    @classmethod
    def _positive(cls, value: Range) -> Range:
        if value.low <= 0:
            raise ValueError(f"performance must be positive, got low={value.low}")
        return value

    @model_validator(mode="after")
    def _power_where_signals(self) -> EnvironmentConfig:
        for name in ("electricity_price", "carbon_intensity", "power_cap"):
            if getattr(self, name) is not None and self.power is None:
                what = "a cap on busy power" if name == "power_cap" else "a signal"
                raise ValueError(f"{name}: {what} needs a power model; give power: "
                                 "{idle_watts: W, busy_watts: W}")  # fmt: skip
        return self

    def energy(self, nodes: Sequence[Node]) -> EnergyModel | None:
        """The drawn nodes' energy model (None without a power model)."""
        if self.power is None:
            return None
        count = len(nodes)
        performance = np.array([node.performance for node in nodes])
        price, carbon = [self.electricity_price] * count, [self.carbon_intensity] * count
        return energy_model([self.power] * count, performance, price, carbon)

    def spec(self) -> EnvironmentSpec:
        return EnvironmentSpec(
            nodes=self.nodes,
            performance=self.performance.as_tuple(),
            performance_step=self.performance_step,
            horizon=self.horizon,
            q=self.q.as_tuple(),
            price=PriceModel(**self.price.model_dump()),
            local_load=LocalLoad(**self.local_load.model_dump()),
            horizon_start_edge=self.horizon_start_edge,
        )


class RequestConfig(Strict):
    n: int = Field(gt=0)
    volume: float = Field(gt=0)
    budget: float = Field(gt=0)
    min_performance: float = Field(0.0, ge=0)

    def request(self) -> Request:
        return Request(self.n, self.volume, self.budget, self.min_performance)


class WindowSearchScenario(ScenarioBase):
    kind: Literal["window_search"]
    environment: EnvironmentConfig = EnvironmentConfig()
    request: RequestConfig
    policies: PolicySpecs
    #: FirstFit's reading for FirstFit and MultipleBest (docs/model.md, "FirstFit"): the
    #: earliest start [TY18] or the first window the group scan finds [TY19].
    first_fit: FirstFitReading = "earliest_start"

    @model_validator(mode="after")
    def _power_for_policies(self) -> WindowSearchScenario:
        power_needed(self.criteria(), self.environment.power is not None, "environment.power")
        if self.environment.power_cap is not None:
            raise ValueError("environment.power_cap: a cap is planned by a job flow's planners "
                             "(kind: jobflow); a window search places one request")  # fmt: skip
        return self

    def criteria(self):
        readings = {"first_fit": self.first_fit}
        return [build_criterion(spec, readings) for spec in self.policies]


def run_replication(
    scenario: WindowSearchScenario, replication: int, seed: np.random.SeedSequence
) -> dict[str, pd.DataFrame]:
    """Every policy on the environment of this replication."""
    environment = generate_environment(scenario.environment.spec(), np.random.default_rng(seed))
    profile = environment.profile()
    request = scenario.request.request()
    energy = scenario.environment.energy(environment.nodes)
    rows = []
    for criterion in scenario.criteria():
        criterion = bind_energy(criterion, energy)
        began = time.perf_counter()
        window = criterion.search(profile, request)
        elapsed = time.perf_counter() - began
        rows.append(
            {
                "scenario": scenario.name,
                "replication": replication,
                "policy": criterion.label,
                **window_metrics(window, environment.nodes),
                "search_time_s": elapsed,
            }
        )
    return {"runs": pd.DataFrame(rows)}


def window_metrics(window: Window | None, nodes) -> dict[str, Any]:
    """The per-run columns of one window (NaN and ``found=False`` when there is none)."""
    if window is None:
        nan = float("nan")
        return dict(found=False, start=nan, runtime=nan, finish=nan, cost=nan, Q=nan,
                    L_minSum=nan, L_maxSum=nan, nodes="")  # fmt: skip
    return dict(
        found=True,
        start=window.start,
        runtime=window.runtime,
        finish=window.finish,
        cost=window.cost,
        Q=float(sum(nodes[i].q for i in window.nodes)),
        L_minSum=window.distance_to_nearest(),
        L_maxSum=window.distance_to_farthest(),
        nodes=" ".join(str(i) for i in window.nodes),
    )


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    return summarise_by(runs, "policy", METRICS)
