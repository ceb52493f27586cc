"""Backfill selection (as RLBackfilling): the head of the queue is reserved as EASY does, and
the agent picks which waiting job, if any, backfills.

Consumes an episode (:mod:`gridsim.rl.episodes`) and actions; produces observations, rewards
and the episode's schedule, on gridsim's EASY scheduler
(:class:`~gridsim.scheduling.log_schedulers.Easy`).

At every instant jobs start in priority order (arrival) while they fit, as in EASY. The first
that does not fit is the head; it is reserved at EASY's shadow time (when enough running jobs
end by their estimates). The agent is asked while some job behind the head may backfill by
EASY's rule: its processors are free now and it either ends, by its estimate, by the shadow
time or needs no more than the processors the head leaves spare then. The rows are the
first K such candidates in priority order; action ``i < K`` starts the i-th (it must be in
``info["action_mask"]``), action ``K`` backfills nothing more at this instant. So no choice
ever delays the head's reservation, and a policy that always takes row 0 is EASY, whatever
K: its start times are exactly those of ``gridsim run`` (tests/rl/test_equivalence.py,
tests/rl/test_random_workloads.py). An action outside the mask backfills nothing
(``info["invalid_action"]``).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

import numpy as np
from gymnasium import spaces

from gridsim.rl.features import BACKFILL_FEATURES, JOB_FEATURES, job_rows, raw_jobs, squash
from gridsim.rl.queue_env import QueueEnv


class BackfillSelectionEnv(QueueEnv):
    """Pick the job to backfill around the reserved head (see the module docstring); takes
    :class:`~gridsim.rl.queue_env.QueueEnv`'s arguments."""

    def __init__(self, scenario: Any, **options: Any) -> None:
        super().__init__(scenario, **options)
        columns = len(JOB_FEATURES) + len(BACKFILL_FEATURES)
        self.observation_space = spaces.Box(0.0, 1.0, (self.slots, columns), np.float32)
        self.action_space = spaces.Discrete(self.slots + 1)
        self._passed = False  # the agent chose to backfill nothing more at this instant
        self._invalid = False
        self._behind: list[int] = []
        self._eligible = np.zeros(self.slots + 1, dtype=np.int8)
        self._shadow = self._extra = 0.0

    def _decision_pending(self) -> bool:
        if self._passed:
            return False
        loop = self._loop()
        loop.start_in_order()  # EASY's first part
        if not loop.queue or loop.free_now == 0:
            return False
        self._shadow, extra = loop.head_reservation()
        self._extra = float(extra)
        self._behind = list(islice(self._candidates(), self.slots))
        self._eligible[:] = 0
        self._eligible[: len(self._behind)] = 1
        self._eligible[self.slots] = 1
        return bool(self._behind)

    def _candidates(self) -> Iterator[int]:
        """The jobs behind the head that EASY's rule lets backfill now, in priority order."""
        loop = self._loop()
        room = self._shadow - loop.now
        for job in islice(loop.queue, 1, None):
            p = loop.processors[job]
            if p <= loop.free_now and (room >= loop.estimate[job] or p <= self._extra):
                yield job

    def _between_decisions(self) -> None:
        self._passed = False

    def _act(self, action: int) -> None:
        loop = self._loop()
        if loop.done:
            return  # no choice arose in this episode: it ends at its first step
        self._invalid = not (0 <= action <= self.slots and self._eligible[action])
        if self._invalid or action == self.slots:
            self._passed = True
            return
        loop.start(self._behind[action])  # the next decision re-reads EASY's shadow and spare

    def _observe(self) -> np.ndarray:
        loop = self._loop()
        if loop.done:
            self._behind = []
        self._raw = raw_jobs(
            self._behind, self.slots, loop.now, loop.submit, loop.estimate, loop.processors
        )
        rows = job_rows(self._raw, self.slots, loop.machine, loop.free_now,
                        len(loop.queue), self.time_scale, len(BACKFILL_FEATURES))  # fmt: skip
        count = len(self._behind)
        if count:
            room = self._shadow - loop.now
            base = len(JOB_FEATURES)
            rows[:count, base] = self._raw["estimate"][:count] <= room
            rows[:count, base + 1] = self._raw["processors"][:count] <= self._extra
            rows[:count, base + 2] = squash(np.float64(room), self.time_scale)
        return rows

    def _info(self) -> dict[str, Any]:
        loop = self._loop()
        mask = self._eligible.copy()
        if loop.done:
            mask[: self.slots] = 0
        mask[self.slots] = 1  # backfilling nothing is always allowed
        return {"action_mask": mask, "jobs": self._raw, "now": loop.now,
                "free_processors": loop.free_now, "shadow_time": self._shadow,
                "spare_processors": self._extra, "invalid_action": self._invalid}  # fmt: skip
