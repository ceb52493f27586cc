"""Cloud federation with pilot jobs: consumes a scenario of kind ``cloud``, produces per-task
traces, progress over time and makespans of self-schedulers (equal chunks, DyTSS).

After "A simple model to exploit reliable algorithms in cloud federations"; see docs/cloud.md.
The entry points are in :mod:`gridsim.cloud.experiment`.
"""

from gridsim.cloud.config import CloudScenario
from gridsim.cloud.experiment import run_replication, summarise

__all__ = ["CloudScenario", "run_replication", "summarise"]
