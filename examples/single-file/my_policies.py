"""A criterion in one file: name it in a scenario as ``my_policies:WeightedFinish`` and run
gridsim from this folder (the working directory is searched for plugin modules).

``WeightedFinish`` chooses, like backfilling, the first slots in slot order at every step, and
scores a window by ``-(start + runtime_weight * runtime)``: ``runtime_weight: 1`` is BFfinish
(earliest finish), ``0`` is BFstart (earliest start), values between trade the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gridsim.selection.criteria import WindowCriterion
from gridsim.selection.placement import InSlotOrder


@dataclass(frozen=True)
class WeightedFinish(InSlotOrder, WindowCriterion):
    """Backfilling's window with the value ``-(start + runtime_weight * runtime)``."""

    summary: ClassVar[str] = "between earliest start (weight 0) and earliest finish (1)"
    runtime_weight: float = 1.0

    def value(self, start, runtime):
        return -(np.asarray(start, dtype=float) + self.runtime_weight * runtime)
