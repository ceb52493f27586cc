"""Baselines that act through the environments' interface, and gridsim's own replays of the
same episodes.

Consumes an environment's ``info`` (the visible jobs' raw values and the action mask);
produces an action. A heuristic scores every job it may choose and takes the lowest score;
ties go to the earlier row (priority order, so FCFS breaks them). The scores are those of
RLScheduler's comparison (Zhang et al., SC20), with ``s`` the submit time, ``w`` the wait,
``r`` the requested time (the estimate) and ``n`` the processors, all in seconds and counts:

* ``fcfs``: ``s``; ``sjf``: ``r``; ``saf`` (smallest area first): ``r x n``;
* ``wfp3``: ``-(w / r)^3 x n`` (Tang et al., 2009);
* ``unicep``: ``-(w + 1e-15) / (log2(n + 1e-15) x r)`` (Tang et al., 2009), with
  RLScheduler's guards: a waiting one-processor job (``log2`` near 0) comes first, and one
  that has not waited scores about ``-0.69 / r``;
* ``f1``: ``log10(r) x n + 870 x log10(s)`` (Carastan-Santos and de Camargo, SC17, their
  best learned function), ``s`` in seconds since the log's start as in the SWF file, and
  ``r`` or ``s`` of 0 taken as 0.1 (RLScheduler's guard against ``log10(0)``).

In the backfill-selection environment a heuristic picks among the jobs EASY's rule allows, and
backfills nothing when none is allowed. :func:`replay_episode` gives gridsim's FCFS, EASY and
conservative backfilling schedules of the same episode (the replay ``gridsim run`` makes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from gridsim.rl.episodes import Episode

Score = Callable[[Mapping[str, np.ndarray]], np.ndarray]


def _unicep(jobs: Mapping[str, np.ndarray]) -> np.ndarray:
    processors = jobs["processors"].astype(np.float64)
    return -(jobs["wait"] + 1e-15) / (np.log2(processors + 1e-15) * jobs["estimate"])


def _f1(jobs: Mapping[str, np.ndarray]) -> np.ndarray:
    estimate = np.where(jobs["estimate"] > 0, jobs["estimate"], 0.1)
    submit = np.where(jobs["submit_time"] > 0, jobs["submit_time"], 0.1)
    return np.log10(estimate) * jobs["processors"] + 870 * np.log10(submit)


#: Heuristic name -> score (lowest first).
SCORES: dict[str, Score] = {
    "fcfs": lambda jobs: jobs["submit_time"],
    "sjf": lambda jobs: jobs["estimate"],
    "saf": lambda jobs: jobs["estimate"] * jobs["processors"],
    "wfp3": lambda jobs: -((jobs["wait"] / jobs["estimate"]) ** 3) * jobs["processors"],
    "unicep": _unicep,
    "f1": _f1,
}


class HeuristicPolicy:
    """A policy ``(observation, info) -> action`` choosing the lowest score of ``name``.

    In an environment whose last action means "none" (backfill selection), it takes the
    best allowed job, or "none" when no job is allowed.
    """

    def __init__(self, name: str) -> None:
        if name not in SCORES:
            raise ValueError(f"expected a heuristic among {list(SCORES)}, got {name!r}")
        self.name = name
        self._score = SCORES[name]

    def __call__(self, observation: np.ndarray, info: Mapping) -> int:
        jobs, mask = info["jobs"], info["action_mask"]
        allowed = mask[: len(jobs["job"])].astype(bool)
        if not allowed.any():
            return len(mask) - 1  # "none" (a queue environment always allows a job otherwise)
        with np.errstate(all="ignore"):  # empty rows hold zeros
            score = np.where(allowed, self._score(jobs), np.inf)
        score = np.nan_to_num(score, nan=np.inf, posinf=np.inf)
        best = np.flatnonzero(score == score.min())
        return int(best[0]) if len(best) else int(np.flatnonzero(allowed)[0])


def play(env, policy, *, seed: int | None = None, options: dict | None = None):
    """One episode of ``policy`` in ``env``; returns (total reward, steps, the schedule)."""
    observation, info = env.reset(seed=seed, options=options)
    total, steps, done = 0.0, 0, False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        total += reward
        steps += 1
        done = terminated or truncated
    return total, steps, env.schedule()


def replay_episode(episode: Episode, algorithm: str) -> pd.DataFrame:
    """The episode under gridsim's ``algorithm`` (``fcfs``, ``easy``, ``conservative``) as
    ``gridsim run`` replays it: its jobs with ``start_time``."""
    from gridsim.sim.log_replay import replay_log

    replay = replay_log(episode.jobs, episode.machine_processors, algorithm,  # type: ignore[arg-type]
                        record_nodes=False)  # fmt: skip
    return episode.jobs.assign(start_time=replay.start_time)


def schedule_metrics(schedule: pd.DataFrame, machine: int, threshold: float = 10.0):
    """Mean wait (s), mean bounded slowdown and utilisation of a schedule (jobs with
    ``start_time``), by :mod:`gridsim.analysis.jobflow_metrics`."""
    from gridsim.analysis.jobflow_metrics import jobflow_summary

    jobs = schedule.assign(finish_time=schedule.start_time + schedule.duration,
                           run_time=schedule.duration)  # fmt: skip
    return jobflow_summary(jobs, machine, threshold)
