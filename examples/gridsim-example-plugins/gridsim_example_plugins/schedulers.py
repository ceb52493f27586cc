"""SmallestAreaEasy: EASY backfilling whose queue is ordered by area, smallest first.

The queue order of gridsim's EASY (``priority: fcfs`` or ``sjf``) is replaced by a job's area,
``n * volume`` (nodes times work per task), so small jobs are considered first, both for
starting now and for the head's reservation. Everything else (the head's reservation, the
backfilling test, the criterion choosing each window) is gridsim's EasyBackfilling.
"""

from __future__ import annotations

from gridsim.scheduling.queue_policies import EasyBackfilling


class SmallestAreaEasy(EasyBackfilling):
    """EASY backfilling, queue ordered by area, n * volume (then arrival, then id)."""

    def __init__(self, nodes, busy, criterion, priority="fcfs"):
        super().__init__(nodes, busy, criterion, priority)
        self.key = lambda job: (job.n * job.volume, job.arrival, job.id)
