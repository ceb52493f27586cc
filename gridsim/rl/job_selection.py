"""Job selection (as RLScheduler): at every decision the agent picks which of the first K
waiting jobs runs next.

Consumes an episode (:mod:`gridsim.rl.episodes`) and actions; produces observations
(:mod:`gridsim.rl.features`), rewards (:mod:`gridsim.rl.rewards`) and, at the end, the
episode's schedule. The machine is the log's (identical nodes), planned by gridsim's
processor-count schedulers (:mod:`gridsim.scheduling.log_schedulers`).

An action ``i`` makes the i-th visible waiting job (priority order: arrival) the head of the
queue. If its processors are free it starts now and the agent is asked again at the same
instant; if not, it waits for them, and with ``backfill="easy"`` gridsim's EASY scheduler
backfills the other waiting jobs around its reservation at every instant until it starts
(``backfill="none"``: nothing overtakes it). The agent is asked whenever jobs wait and no
chosen job is waiting for its processors. An action on an empty row (outside
``info["action_mask"]``) is taken as the first waiting job, and ``info["invalid_action"]`` says
so: a policy that always picks row 0 is FCFS, and with ``backfill="easy"`` its start times
are exactly those of ``gridsim run`` under EASY (tests/rl/test_equivalence.py).
"""

from __future__ import annotations

from itertools import islice
from typing import Any

import numpy as np
from gymnasium import spaces

from gridsim.rl.features import JOB_FEATURES, job_rows, raw_jobs
from gridsim.rl.queue_env import QueueEnv

BACKFILLS = ("easy", "none")


class JobSelectionEnv(QueueEnv):
    """Pick the next job among the first K waiting (see the module docstring).

    Args:
        backfill: ``"easy"`` (the other jobs backfill around a chosen job that waits) or
            ``"none"``; the other arguments are :class:`~gridsim.rl.queue_env.QueueEnv`'s.
    """

    def __init__(self, scenario: Any, *, backfill: str = "easy", **options: Any) -> None:
        if backfill not in BACKFILLS:
            raise ValueError(f"expected backfill among {list(BACKFILLS)}, got {backfill!r}")
        self.algorithm = "easy" if backfill == "easy" else "fcfs"
        super().__init__(scenario, **options)
        self.backfill = backfill
        self.observation_space = spaces.Box(0.0, 1.0, (self.slots, len(JOB_FEATURES)), np.float32)
        self.action_space = spaces.Discrete(self.slots)
        self._visible: list[int] = []
        self._invalid = False

    def _decision_pending(self) -> bool:
        return bool(self._loop().queue)

    def _observe(self) -> np.ndarray:
        loop = self._loop()
        self._visible = list(islice(loop.queue, self.slots))
        self._raw = raw_jobs(
            self._visible, self.slots, loop.now, loop.submit, loop.estimate, loop.processors
        )
        return job_rows(self._raw, self.slots, loop.machine, loop.free_now, len(loop.queue),
                        self.time_scale)  # fmt: skip

    def _info(self) -> dict[str, Any]:
        loop = self._loop()
        mask = np.zeros(self.slots, dtype=np.int8)
        mask[: len(self._visible)] = 1
        return {"action_mask": mask, "jobs": self._raw, "now": loop.now,
                "free_processors": loop.free_now, "invalid_action": self._invalid}  # fmt: skip

    def _act(self, action: int) -> None:
        loop = self._loop()
        self._invalid = not 0 <= action < len(self._visible)
        job = self._visible[0 if self._invalid else action]
        loop.promote(job)
        need = loop.processors[job]
        while need > loop.free_now:
            if self.backfill == "easy":
                loop.run_scheduler()  # the chosen job is the head: only backfilling starts
            if not loop.advance():
                raise RuntimeError(f"job {job} waits but nothing will happen")  # a bug
        loop.start(job)
