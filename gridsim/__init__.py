"""gridsim: discrete-event simulation of grid and cloud job scheduling.

The data flow is scenario -> instance -> schedule/simulation -> trace -> analysis; see
docs/architecture.md. The Python API (docs/api.md): :func:`load_scenario`, :func:`validate`
and :func:`run` (:mod:`gridsim.api`), :func:`load_results` and :class:`Results`
(:mod:`gridsim.analysis.results`), and the scenario classes of the kinds. They are imported
on first use, so ``import gridsim`` does not import pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.2.0"

__all__ = [
    "BatchScenario",
    "CloudScenario",
    "Experiment",
    "JobFlowScenario",
    "Results",
    "Scenario",
    "SwfReplayScenario",
    "UserError",
    "WindowSearchScenario",
    "__version__",
    "load_results",
    "load_scenario",
    "run",
    "validate",
]

#: Where each exported name lives (imported when first used).
_LAZY = {
    "load_scenario": "gridsim.api",
    "validate": "gridsim.api",
    "run": "gridsim.api",
    "Scenario": "gridsim.api",
    "load_results": "gridsim.analysis.results",
    "Results": "gridsim.analysis.results",
    "Experiment": "gridsim.experiments.grid",
    "UserError": "gridsim.errors",
    "WindowSearchScenario": "gridsim.experiments.window_search",
    "JobFlowScenario": "gridsim.experiments.jobflow",
    "BatchScenario": "gridsim.experiments.batch",
    "CloudScenario": "gridsim.experiments.cloud",
    "SwfReplayScenario": "gridsim.experiments.swf_replay",
}

if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ imports on first use
    from gridsim.analysis.results import Results, load_results
    from gridsim.api import Scenario, load_scenario, run, validate
    from gridsim.errors import UserError
    from gridsim.experiments.batch import BatchScenario
    from gridsim.experiments.cloud import CloudScenario
    from gridsim.experiments.grid import Experiment
    from gridsim.experiments.jobflow import JobFlowScenario
    from gridsim.experiments.swf_replay import SwfReplayScenario
    from gridsim.experiments.window_search import WindowSearchScenario
else:  # hidden from type checkers, which would otherwise accept any name of the module

    def __getattr__(name: str):
        if name in _LAZY:
            import importlib

            return getattr(importlib.import_module(_LAZY[name]), name)
        raise AttributeError(f"module 'gridsim' has no attribute {name!r}")
