"""gridsim: discrete-event simulation of grid and cloud job scheduling.

The data flow is scenario -> instance -> schedule/simulation -> trace -> analysis; see
docs/architecture.md. ``load_results`` and ``Results`` (:mod:`gridsim.analysis.results`) are
imported on first use, so ``import gridsim`` does not import pandas.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0"

__all__ = ["Results", "__version__", "load_results"]

_LAZY = {"load_results": "gridsim.analysis.results", "Results": "gridsim.analysis.results"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gridsim' has no attribute {name!r}")
