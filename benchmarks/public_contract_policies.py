"""BFfinish and conservative backfilling written as plugins, through the public contracts only
(benchmarks/bench_plugins.py names them ``public_contract_policies:<Class>``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridsim.scheduling.backfilling import ConservativeBackfilling
from gridsim.selection.criteria import WindowCriterion
from gridsim.selection.placement import InSlotOrder


@dataclass(frozen=True)
class EarliestFinish(InSlotOrder, WindowCriterion):
    """BFfinish: the earliest finish, slots taken in slot order."""

    def value(self, start, runtime):
        return -(np.asarray(start, dtype=float) + runtime)


class Conservative(ConservativeBackfilling):
    """Conservative backfilling, unchanged: what the scheduler guard costs."""
