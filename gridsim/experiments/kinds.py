"""Scenario kinds: which module runs a scenario with ``kind: <name>``.

A kind module exposes its scenario model (a :class:`~gridsim.config.ScenarioBase` subclass),
``run_replication(scenario, replication, seed) -> dict[str, DataFrame]`` (every policy on the
same instance of that replication) and ``summarise(runs) -> DataFrame``. Modules are imported
on first use, so a kind's dependencies cost nothing to the others.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from gridsim.config import ScenarioError, read_yaml, validate


@dataclass(frozen=True)
class Kind:
    module: str
    scenario_class: str

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)

    def scenario_model(self) -> Any:
        return getattr(self.load(), self.scenario_class)


KINDS: dict[str, Kind] = {
    "window_search": Kind("gridsim.experiments.window_search", "WindowSearchScenario"),
    "jobflow": Kind("gridsim.experiments.jobflow", "JobFlowScenario"),
    "batch": Kind("gridsim.experiments.batch", "BatchScenario"),
    "cloud": Kind("gridsim.experiments.cloud", "CloudScenario"),
    "swf_replay": Kind("gridsim.experiments.swf_replay", "SwfReplayScenario"),
}


def scenario_model(kind_name: Any) -> Any:
    """The scenario model of a kind; ScenarioError naming the known kinds otherwise."""
    known = ", ".join(sorted(KINDS))
    if kind_name is None:
        raise ScenarioError(f"kind: missing (required): one of {known}")
    if not isinstance(kind_name, str) or kind_name not in KINDS:
        raise ScenarioError(f"kind: expected one of {known}, got {kind_name!r}")
    try:
        return KINDS[kind_name].scenario_model()
    except ImportError:
        raise ScenarioError(f"kind: {kind_name!r} is not available in this build") from None


def load_scenario(source: Any) -> tuple[Any, str]:
    """The validated scenario and its YAML text, from a path or YAML text.

    A scenario with a ``sweep:`` or ``zip:`` grid is several scenarios: read it with
    :func:`gridsim.experiments.grid.load_experiment`.
    """
    document, text = read_yaml(source)
    model = scenario_model(document.get("kind"))
    if "sweep" in document or "zip" in document:
        raise ScenarioError("this scenario is a grid (sweep: or zip:); read it with "
                            "gridsim.experiments.grid.load_experiment")  # fmt: skip
    return validate(model, document), text


def kind_module(scenario: Any) -> ModuleType:
    return KINDS[scenario.kind].load()
