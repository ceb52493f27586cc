"""Gantt charts of one simulated job flow: kept for older imports; the chart is
:func:`gridsim.analysis.plots.plot_gantt` and the run selection
:func:`gridsim.analysis.results.select_run`."""

from __future__ import annotations

from gridsim.analysis.plots import COLUMNS as _PLOT_COLUMNS
from gridsim.analysis.plots import plot_gantt as gantt
from gridsim.analysis.results import select_run

COLUMNS = _PLOT_COLUMNS["plot_gantt"]

__all__ = ["COLUMNS", "gantt", "select_run"]
