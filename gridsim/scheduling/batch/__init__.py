"""Batch scheduling cycles with ALP and AMP [TYTB11].

Consumes a slot list (``Profile``) and a batch of jobs; produces alternatives per job
(``cycle``) and one chosen alternative per job under a budget or a time limit (``optimise``).
Scenarios of kind ``batch`` run the published comparison through :mod:`gridsim.experiments.batch`.
"""

from gridsim.scheduling.batch.cycle import find_alternatives, subtract
from gridsim.scheduling.batch.optimise import (
    Combination,
    budget_limit,
    maximise_cost,
    minimise_cost,
    minimise_time,
    time_limit,
)
from gridsim.scheduling.batch.search import SEARCHES, alp, amp
from gridsim.scheduling.batch.window import BatchJob, RoughWindow

__all__ = [
    "SEARCHES",
    "BatchJob",
    "Combination",
    "RoughWindow",
    "alp",
    "amp",
    "budget_limit",
    "find_alternatives",
    "maximise_cost",
    "minimise_cost",
    "minimise_time",
    "subtract",
    "time_limit",
]
