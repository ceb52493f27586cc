"""Rewards: what an agent is paid, per step or once at the end of an episode.

Consumes the jobs an environment started (their submit, start, run time, processors and
cost); produces a float. Every reward is the negative of a cost to minimise, or a quantity to
maximise, over the episode's N jobs:

* ``bounded_slowdown``: ``max((wait + run) / max(run, threshold), 1)`` per job (threshold 10 s
  as in RLScheduler and gridsim's job-flow metrics), averaged, negated;
* ``slowdown``: ``(wait + run) / run``, averaged, negated;
* ``wait``: the wait (s) averaged, negated (in hours, so values are of order one);
* ``cost``: the price paid (nodes' price x run time x processors), averaged, negated;
* ``utilisation``: processor time used over processors x (last finish - first submission):
  at the end of an episode only.

``timing="step"`` pays each job's share as it starts (``-metric / N``), so the step rewards
of an episode sum to the end-of-episode reward; ``timing="episode"`` pays 0 until the last
step. Per-job values are those of :mod:`gridsim.analysis.jobflow_metrics`, checked against
it in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RewardName = Literal["bounded_slowdown", "slowdown", "wait", "cost", "utilisation"]
REWARDS: tuple[RewardName, ...] = ("bounded_slowdown", "slowdown", "wait", "cost", "utilisation")
Timing = Literal["step", "episode"]
TIMINGS: tuple[Timing, ...] = ("step", "episode")
HOUR = 3600.0


@dataclass(frozen=True)
class Reward:
    """A reward of :data:`REWARDS`, paid per step or at the end (:data:`TIMINGS`).

    Attributes:
        threshold: the bounded slowdown's run-time floor (s).
    """

    name: RewardName = "bounded_slowdown"
    timing: Timing = "episode"
    threshold: float = 10.0

    def __post_init__(self) -> None:
        if self.name not in REWARDS:
            raise ValueError(f"expected a reward among {list(REWARDS)}, got {self.name!r}")
        if self.timing not in TIMINGS:
            raise ValueError(f"expected a timing among {list(TIMINGS)}, got {self.timing!r}")
        if self.name == "utilisation" and self.timing == "step":
            raise ValueError("utilisation is known only at the end of an episode: "
                             "use timing='episode'")  # fmt: skip
        if self.threshold <= 0:
            raise ValueError(f"expected a positive threshold, got {self.threshold}")

    def job_value(self, wait: float, run: float, cost: float) -> float:
        """The per-job quantity averaged (not for utilisation)."""
        if self.name == "bounded_slowdown":
            return max((wait + run) / max(run, self.threshold), 1.0)
        if self.name == "slowdown":
            return (wait + run) / run if run > 0 else 1.0
        if self.name == "wait":
            return wait / HOUR
        return cost

    def step(self, values: float, jobs: int) -> float:
        """The step's reward: ``values`` is the sum of :meth:`job_value` over the jobs started
        in the step, ``jobs`` the episode's N."""
        return -values / jobs if self.timing == "step" else 0.0

    def end(self, total: float, jobs: int, busy: float, capacity: float) -> float:
        """The reward added at the last step: ``total`` is the sum of :meth:`job_value` over
        the episode; ``busy`` the processor time used, ``capacity`` processors x span."""
        if self.name == "utilisation":
            return busy / capacity if capacity > 0 else 0.0
        return -total / jobs if self.timing == "episode" else 0.0
