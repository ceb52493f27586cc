"""Resource selection (gridsim's own): for every job, on arrival, the agent picks one of the
windows the candidate criteria propose, on heterogeneous priced nodes.

Consumes an ``swf_replay`` scenario with node classes (its ``policy`` is the first candidate
and the one re-planning uses), or a ``jobflow`` scenario (its first policy; an episode is one
replication's flow with its local load, :mod:`gridsim.rl.jobflow_episodes`), and actions;
produces observations (one row per candidate window, :data:`WINDOW_FEATURES`), rewards
(:mod:`gridsim.rl.rewards`) and the episode's jobs table. The engine and planner are
gridsim's (:mod:`gridsim.rl.node_loop`): a policy that always takes row 0 is ``gridsim
run``'s conservative backfilling under the scenario's policy, start for start and node for
node (tests/rl/test_equivalence.py); on a job flow, the kind's own run of that policy on the
same replication (tests/rl/test_jobflow.py).

An action on a row without a window (``info["action_mask"]`` 0) is taken as row 0
(``info["invalid_action"]``). With ``reward_timing="step"`` a job's value is paid when it is
placed, by its reserved window; the last step adds what the run changed (compression moves
reservations earlier, jobs end before their estimates), so the steps sum to the episode's
value.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces

from gridsim.rl.episodes import Episode, episode_source
from gridsim.rl.features import squash
from gridsim.rl.jobflow_episodes import JobFlowEpisode
from gridsim.rl.node_loop import NodeLoop
from gridsim.rl.rewards import Reward
from gridsim.selection.registry import build_criterion

#: The criteria proposing windows after the scenario's policy (duplicates dropped).
DEFAULT_CANDIDATES = ("BFstart", "BFfinish", "CoP", "MinCost", "MinStart")
#: The columns of the observation, one row per candidate window.
WINDOW_FEATURES = (
    "present",  # 1 if the criterion found a window
    "start",  # start - now, squashed
    "runtime",  # the window's runtime (its slowest node's), squashed
    "finish",  # finish - now, squashed
    "cost",  # the window's cost / the dearest candidate's
    "performance",  # the nodes' mean performance / the fastest node's
    "price",  # the nodes' mean price / the dearest node's
    "duplicate",  # 1 if an earlier row has the same window
    "processors",  # the job's processors / nodes (the same in every row)
    "estimate",  # the job's estimate on the reference node, squashed (every row)
    "queue_length",  # jobs holding a reservation q, as q / (q + 32) (every row)
    "free_nodes",  # nodes running no job now / nodes (every row)
)


class ResourceSelectionEnv(gym.Env):
    """Choose each job's window among the candidates' (see the module docstring).

    Args:
        scenario: an ``swf_replay`` scenario with node classes, a ``jobflow`` scenario, or a
            source built from one (:func:`~gridsim.rl.episodes.episode_source`).
        candidates: criterion specifications proposing windows after the scenario's policy.
        episode_jobs: N, the jobs of an episode (ignored when ``scenario`` is a source or a
            job flow, whose queue size says how many).
        reward: a :data:`~gridsim.rl.rewards.REWARDS` name.
        reward_timing: ``"step"`` or ``"episode"``.
        bounded_slowdown_threshold: the bounded slowdown's floor (s; a job flow's time
            units); None: the scenario's (``bounded_slowdown_threshold``, a job flow's
            ``slowdown_threshold``).
        time_scale: the time (s) squashed to 1/2 in observations.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        scenario: Any,
        *,
        candidates: tuple[str | dict, ...] = DEFAULT_CANDIDATES,
        episode_jobs: int = 64,
        reward: str = "bounded_slowdown",
        reward_timing: str = "episode",
        bounded_slowdown_threshold: float | None = None,
        time_scale: float = 3600.0,
    ) -> None:
        self.source = episode_source(scenario, episode_jobs)
        policy = build_criterion(self.source.policy)
        criteria = [policy]
        for spec in candidates:
            criterion = build_criterion(spec)
            if criterion not in criteria:
                criteria.append(criterion)
        self.policy, self.criteria = policy, criteria
        self.labels = [criterion.label for criterion in criteria]
        threshold = bounded_slowdown_threshold
        if threshold is None:
            threshold = self.source.slowdown_threshold
        self.reward = Reward(reward, reward_timing, threshold)  # type: ignore[arg-type]
        if time_scale <= 0:
            raise ValueError(f"expected a positive time_scale, got {time_scale}")
        self.time_scale = time_scale
        rows = len(criteria)
        self.observation_space = spaces.Box(0.0, 1.0, (rows, len(WINDOW_FEATURES)), np.float32)
        self.action_space = spaces.Discrete(rows)
        self.episode: Episode | JobFlowEpisode | None = None
        self.loop: NodeLoop | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.episode = self.source.for_reset(self.np_random, options)
        instance = self.episode.instance()
        self.loop = NodeLoop(instance, self.policy, self.source.priority)
        # the nodes' features, and their normalisers, are the episode's (a job flow's differ)
        self._performance = np.array([node.performance for node in instance.nodes])
        self._price = np.array([node.price for node in instance.nodes])
        self._fastest = float(self._performance.max())
        self._dearest = float(self._price.max()) or 1.0
        self._paid, self._invalid = 0.0, False
        self.loop.run_to_decision()
        return self._observe(), self._info()

    def step(self, action):
        loop = self._loop()
        action = int(action)
        self._invalid = not (0 <= action < len(self._windows) and self._windows[action])
        window = self._windows[0 if self._invalid else action]
        job = loop.pending[0]
        loop.place(window)
        paid = 0.0
        if window is not None and self.reward.name != "utilisation":
            run = window.runtime * job.runtime_factor
            paid = self.reward.job_value(window.start - job.arrival, run,
                                         window.cost * job.runtime_factor)  # fmt: skip
        self._paid += paid
        reward = self.reward.step(paid, len(loop.instance.jobs))
        terminated = not loop.run_to_decision()
        if terminated:
            reward += self._final_reward()
        return self._observe(), float(reward), terminated, False, self._info()

    def _loop(self) -> NodeLoop:
        if self.loop is None:
            raise RuntimeError("call reset() before step()")
        return self.loop

    def _final_reward(self) -> float:
        """The end-of-episode reward, or (per step) what the run changed of the paid one."""
        jobs = self.schedule()
        count = len(jobs)
        value = self.reward.job_value
        total = sum(value(s - a, r, c) for s, a, r, c in zip(
            jobs.start_time, jobs.submit_time, jobs.run_time, jobs.cost, strict=True))  # fmt: skip
        if self.reward.name == "utilisation" or self.reward.timing == "episode":
            span = float(jobs.finish_time.max() - jobs.submit_time.min())
            busy = float((jobs.processors * jobs.run_time).sum())
            return self.reward.end(total, count, busy, len(self._performance) * span)
        return -(total - self._paid) / count

    def _observe(self) -> np.ndarray:
        loop = self._loop()
        rows = np.zeros(self.observation_space.shape, dtype=np.float32)
        if not loop.pending:
            self._windows = [None] * len(self.criteria)
            return rows
        self._windows = windows = loop.candidates(self.criteria)
        job, now, nodes = loop.pending[0], loop.now, len(self._performance)
        performance, price = self._performance, self._price
        found = [w for w in windows if w is not None]
        dearest = max((w.cost for w in found), default=0.0) or 1.0
        queued = len(loop.planner.reservations)
        free = (nodes - loop.nodes_in_use()) / nodes
        for row, window in enumerate(windows):
            rows[row, 8:] = (job.n / nodes, squash(job.volume, self.time_scale),
                             queued / (queued + 32), free)  # fmt: skip
            if window is None:
                continue
            ids = list(window.nodes)
            rows[row, :8] = (
                1.0, squash(window.start - now, self.time_scale),
                squash(window.runtime, self.time_scale),
                squash(window.finish - now, self.time_scale), window.cost / dearest,
                performance[ids].mean() / self._fastest, price[ids].mean() / self._dearest,
                any(window == other for other in windows[:row]),
            )  # fmt: skip
        return rows

    def _info(self) -> dict[str, Any]:
        windows = self._windows
        mask = np.array([w is not None for w in windows], dtype=np.int8)

        def column(field: str) -> np.ndarray:  # 0 where no window was found
            return np.array([getattr(w, field) if w else 0.0 for w in windows])

        return {"action_mask": mask, "criteria": self.labels, "now": self._loop().now,
                "windows": {name: column(name) for name in ("start", "finish", "runtime",
                                                            "cost")},
                "invalid_action": self._invalid}  # fmt: skip

    def schedule(self) -> pd.DataFrame:
        """The episode's jobs table (:meth:`gridsim.sim.trace.Trace.jobs_table`), the log's
        job ids restored (a job flow's are its own)."""
        jobs = self._loop().trace.jobs_table()
        assert self.episode is not None
        return jobs.assign(job_id=self.episode.job_ids[jobs.job_id.to_numpy()])
