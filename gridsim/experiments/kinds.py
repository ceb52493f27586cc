"""Scenario kinds: which module runs a scenario with ``kind: <name>``.

A kind module exposes its scenario model (a :class:`~gridsim.config.ScenarioBase` subclass),
``run_replication(scenario, replication, seed) -> dict[str, DataFrame]`` (every policy on the
same instance of that replication), ``summarise(runs) -> DataFrame`` and ``DECLARATION``, a
:class:`KindDeclaration` of what the commands and the analysis need to know of it (its
report metrics, paired metrics, figures, exports, feasibility check...). Every reader asks
the declaration (:func:`declaration`), so no table keyed by kind name lives elsewhere.
Modules are imported on first use, so a kind's dependencies cost nothing to the others.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from gridsim.config import ScenarioError, validate

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from gridsim.experiments.overrides import Override


def _same_runs(runs: pd.DataFrame) -> pd.DataFrame:
    return runs


def _no_origin(scenario: dict[str, Any]) -> float | None:
    return None


def _no_machine(scenario: dict[str, Any], runs: pd.DataFrame) -> int | None:
    return None


def _no_capacity(scenario: dict[str, Any]) -> NodeCapacity | None:
    return None


@dataclass(frozen=True)
class NodeCapacity:
    """The cores, memory and GPUs of every node (``capacity``: nodes x the kinds of
    :mod:`gridsim.resources`), and whether memory is planned at all."""

    capacity: np.ndarray
    memory_tracked: bool


@dataclass(frozen=True)
class JobsOfSchema1:
    """How a kind's jobs table of jobs schema 1 (results folders written before
    ``jobs_schema`` 2, :data:`gridsim.sim.trace.JOBS_SCHEMA`) reads as the current one."""

    #: Old column name -> new one.
    renames: Mapping[str, str]
    #: The scenario field holding the bounded-slowdown threshold (the metrics are recomputed).
    threshold_field: str | None = None


@dataclass(frozen=True)
class KindDeclaration:
    """What the commands and the analysis need to know of a kind, declared in its module.

    Attributes:
        report_metrics: the runs-table metrics of the report's means table.
        paired_metrics: compared policy by policy against the baseline in the report; the
            first is the one ``gridsim run`` pairs, prints and writes to ``paired``.
        bar_metrics: drawn as comparison bars.
        advantage_metric: drawn as the paired advantage curve over each swept field.
        labels: axis labels with units of the kind's metrics (docs/results.md).
        figures: the schedule figures of :data:`gridsim.analysis.figures.FIGURES` that apply
            (they read the jobs table, or the tasks or progress tables).
        trace_commands: which of ``gantt``, ``export``, ``explore`` read its results.
        time_unit: the unit of its times ("s" for logs).
        time_origin: the Unix time of time 0 for a resolved scenario (a log's
            UnixStartTime), so figures can show dates; None when times are not dates.
        machine_size: processors (nodes) of the machine of a resolved scenario and its runs
            table, for utilisation over time; None when unknown.
        node_capacity: the nodes' cores, memory and GPUs of a resolved scenario, for the
            per-resource figures; None when its nodes declare none.
        check_feasible: raises a ScenarioError naming the field when no replication of a
            scenario could give a result (:mod:`gridsim.experiments.feasibility`).
        comparable_runs: the runs that may be compared (batch cycles where every job was
            served) with the columns published figures need that the table lacks.
        jobs_of_schema_1: how its jobs table of an earlier gridsim reads (None: no jobs).
        swf_export: the SWF header of an export, from the resolved scenario
            (:mod:`gridsim.analysis.export`); None when SWF does not apply.
        log_field: the scenario field ``gridsim run --log`` sets (``section.field``: the
            workload log's path); None when the kind reads no log.
    """

    report_metrics: tuple[str, ...]
    paired_metrics: tuple[str, ...] = ()
    bar_metrics: tuple[str, ...] = ()
    advantage_metric: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    figures: tuple[str, ...] = ()
    trace_commands: tuple[str, ...] = ()
    time_unit: str = "time units"
    time_origin: Callable[[dict[str, Any]], float | None] = _no_origin
    machine_size: Callable[[dict[str, Any], pd.DataFrame], int | None] = _no_machine
    node_capacity: Callable[[dict[str, Any]], NodeCapacity | None] = _no_capacity
    check_feasible: Callable[[Any], None] | None = None
    comparable_runs: Callable[[pd.DataFrame], pd.DataFrame] = _same_runs
    jobs_of_schema_1: JobsOfSchema1 | None = None
    swf_export: Callable[..., Any] | None = None
    log_field: str | None = None


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


def declaration(kind_name: str) -> KindDeclaration:
    """The :class:`KindDeclaration` of a registered kind."""
    return KINDS[kind_name].load().DECLARATION


def kinds_with(command: str) -> list[str]:
    """The kinds whose results a trace command (``gantt``, ``export``, ``explore``) reads."""
    return [name for name in KINDS if command in declaration(name).trace_commands]
