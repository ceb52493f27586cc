"""What the job-selection and backfill-selection environments share: episodes, the loop,
rewards and the ``info`` they return.

Consumes an :class:`~gridsim.rl.episodes.EpisodeSource` and the environment's options;
produces Gymnasium's ``reset`` and ``step`` results. The subclasses say when an agent is asked
(:meth:`QueueEnv._decision_pending`), what it sees (:meth:`QueueEnv._observe`) and what an
action does (:meth:`QueueEnv._act`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from gridsim.rl.episodes import Episode, EpisodeSource, episode_source
from gridsim.rl.jobflow_episodes import JobFlowSource
from gridsim.rl.queue_loop import QueueLoop
from gridsim.rl.rewards import Reward


class QueueEnv(gym.Env):
    """Base of the environments over the processor-count schedulers (a homogeneous machine).

    Args:
        scenario: an ``swf_replay`` scenario (path, YAML text, mapping or object) or an
            :class:`~gridsim.rl.episodes.EpisodeSource` built from one (a ``jobflow``
            scenario is refused: its nodes differ).
        episode_jobs: N, the jobs of an episode (ignored when ``scenario`` is a source).
        queue_slots: K, the waiting jobs shown (rows of the observation, choices).
        reward: a :data:`~gridsim.rl.rewards.REWARDS` name.
        reward_timing: ``"step"`` or ``"episode"``.
        bounded_slowdown_threshold: the bounded slowdown's floor (s); None: the scenario's
            ``bounded_slowdown_threshold``.
        time_scale: the time (s) squashed to 1/2 in observations.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    algorithm = "easy"

    def __init__(
        self,
        scenario: Any,
        *,
        episode_jobs: int = 256,
        queue_slots: int = 32,
        reward: str = "bounded_slowdown",
        reward_timing: str = "episode",
        bounded_slowdown_threshold: float | None = None,
        time_scale: float = 3600.0,
    ) -> None:
        if queue_slots <= 0:
            raise ValueError(f"expected a positive queue_slots, got {queue_slots}")
        if time_scale <= 0:
            raise ValueError(f"expected a positive time_scale, got {time_scale}")
        source = episode_source(scenario, episode_jobs)
        if isinstance(source, JobFlowSource):
            raise ValueError(
                f"{source.scenario.name}: the queue environments schedule a processor "
                "count on identical nodes, and a job flow's nodes differ in performance and "
                "price and carry local load; use gridsim/ResourceSelection-v0"
            )
        self.source: EpisodeSource = source
        if not self.source.homogeneous:
            raise ValueError(
                f"{self.source.scenario.name}: the queue environments schedule a processor "
                "count (identical nodes); nodes that differ in performance or price are the "
                "resource-selection environment's"
            )
        self.slots = queue_slots
        threshold = bounded_slowdown_threshold
        if threshold is None:
            threshold = self.source.slowdown_threshold
        self.reward = Reward(reward, reward_timing, threshold)  # type: ignore[arg-type]
        self.time_scale = time_scale
        self.price = float(self.source.platform.price[0])
        self.episode: Episode | None = None
        self.loop: QueueLoop | None = None

    # -- Gymnasium ------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new episode: at ``options["first_job"]`` if given, else at a start drawn from
        the environment's generator (seeded by ``seed``)."""
        super().reset(seed=seed)
        self.episode = self.source.for_reset(self.np_random, options)
        self.loop = QueueLoop(self.episode, self.algorithm)
        self._total = 0.0
        self.loop.advance()
        self._settle()
        return self._observe(), self._info()

    def step(self, action):
        loop = self._loop()
        self._act(int(action))
        self._settle()
        values = self._pay(loop.take_started())
        self._total += values
        jobs = loop.count
        reward = self.reward.step(values, jobs)
        terminated = loop.done
        if terminated:
            reward += self.reward.end(self._total, jobs, *self._usage())
        return self._observe(), float(reward), terminated, False, self._info()

    # -- what subclasses define ---------------------------------------------------------

    def _decision_pending(self) -> bool:
        """Whether the agent has a choice to make at the current instant."""
        raise NotImplementedError

    def _observe(self) -> np.ndarray:
        raise NotImplementedError

    def _act(self, action: int) -> None:
        raise NotImplementedError

    def _info(self) -> dict[str, Any]:
        raise NotImplementedError

    # -- shared -----------------------------------------------------------------------------

    def _loop(self) -> QueueLoop:
        if self.loop is None:
            raise RuntimeError("call reset() before step()")
        return self.loop

    def _settle(self) -> None:
        """Run the episode on until the agent has a choice or every job has started."""
        loop = self._loop()
        while not loop.done and not self._decision_pending():
            self._between_decisions()
            if not loop.advance():
                raise RuntimeError("jobs wait but nothing will happen")  # a planning bug

    def _between_decisions(self) -> None:
        """What happens at an instant where the agent is not asked (nothing by default)."""

    def _pay(self, started: list[int]) -> float:
        """Sum of the reward's per-job values over ``started``."""
        if self.reward.name == "utilisation":
            return 0.0
        loop, value, price = self._loop(), self.reward.job_value, self.price
        total = 0.0
        for job in started:
            run = loop.duration[job]
            total += value(loop.start_time[job] - loop.submit[job], run,
                           price * run * loop.processors[job])  # fmt: skip
        return total

    def _usage(self) -> tuple[float, float]:
        """Processor time used, and processors x (last finish - first submission)."""
        loop = self._loop()
        busy = sum(p * d for p, d in zip(loop.processors, loop.duration, strict=True))
        end = max(s + d for s, d in zip(loop.start_time, loop.duration, strict=True))
        return busy, loop.machine * (end - loop.submit[0])

    def schedule(self):
        """The episode's jobs table with the start times the agent's choices gave."""
        loop = self._loop()
        assert self.episode is not None
        jobs = self.episode.jobs.copy()
        jobs["start_time"] = loop.start_time
        return jobs
