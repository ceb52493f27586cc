"""The compiled modules are optional: each loads on first use, or its pure-Python twin runs.

They are built at install time when a C compiler is there (setup.py). Without them gridsim
gives the same results, slower, with one warning per module and process;
``GRIDSIM_PURE_PYTHON=1`` in the environment chooses the Python path silently.
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

#: Set to 1 (or any non-empty value but 0) to run the pure-Python planners and searches.
PURE_PYTHON_ENV = "GRIDSIM_PURE_PYTHON"


def pure_python_forced() -> bool:
    """Whether the environment asks for the pure-Python path."""
    return os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0")


class OptionalModule:
    """One compiled module: calling it gives the module, or None (forced off, or not built).

    Args:
        name: the module's import name.
        what: what it is, for the warning ("planning core").
        fallback: what runs instead, for the warning.
    """

    def __init__(self, name: str, what: str, fallback: str) -> None:
        self.name, self.what, self.fallback = name, what, fallback
        self.module: ModuleType | None = None
        self.warned = False

    def __call__(self) -> ModuleType | None:
        if pure_python_forced():
            return None
        if self.module is None:
            try:
                self.module = importlib.import_module(self.name)
            except ImportError as error:
                if not self.warned:
                    self.warned = True
                    warnings.warn(
                        f"gridsim's compiled {self.what} is not available ({error}); "
                        f"{self.fallback} (same results, slower). Reinstall with a C compiler "
                        f"to build it, or set {PURE_PYTHON_ENV}=1 to silence this.",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                return None
        return self.module
