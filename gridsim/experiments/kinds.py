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
from typing import TYPE_CHECKING, Any

from gridsim.config import ScenarioError, validate

if TYPE_CHECKING:
    from gridsim.experiments.overrides import Override


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


def load_scenario(source: Any, overrides: tuple[Override, ...] = ()) -> tuple[Any, str]:
    """The validated scenario and its YAML text, from a path or YAML text, with
    ``overrides`` (:mod:`gridsim.experiments.overrides`) set.

    A scenario with a ``sweep:`` or ``zip:`` grid is several scenarios: read it with
    :func:`gridsim.experiments.grid.load_experiment`.
    """
    from gridsim.experiments.overrides import named_by, read_scenario

    model, document, text = read_scenario(source, overrides)
    if "sweep" in document or "zip" in document:
        raise ScenarioError("this scenario is a grid (sweep: or zip:), several scenarios: "
                            "gridsim.validate gives its points, gridsim.run runs them")  # fmt: skip
    with named_by(overrides):
        return validate(model, document), text


def kind_module(scenario: Any) -> ModuleType:
    return KINDS[scenario.kind].load()
