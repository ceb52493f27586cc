"""Policies compared on identical episodes: the learned, the heuristics and gridsim's replays.

Consumes a job- or backfill-selection environment, named policies (``(observation, info) ->
action``) and the episodes' first jobs; produces a runs table in the shape gridsim's paired
statistics read (:func:`gridsim.analysis.stats.paired_comparison`): one row per episode
(``replication``) and policy, with the episode's mean wait, mean bounded slowdown and
utilisation. ``replays`` adds gridsim's own schedules of the same jobs (``easy``,
``conservative``, ``fcfs``) as further policies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd

from gridsim.rl.baselines import play, replay_episode, schedule_metrics

METRICS = ("mean_wait_time", "mean_bounded_slowdown", "utilisation")


def compare_on_episodes(
    env,
    policies: Mapping[str, Callable],
    first_jobs: Sequence[int],
    replays: Iterable[str] = ("easy", "conservative"),
) -> pd.DataFrame:
    """Every policy and replay on the episodes starting at ``first_jobs``."""
    machine = env.source.platform.node_id.size
    threshold = env.reward.threshold
    rows = []
    for replication, first_job in enumerate(first_jobs):
        schedules = {}
        for name, policy in policies.items():
            schedules[name] = play(env, policy, options={"first_job": int(first_job)})[2]
        episode = env.source.episode(int(first_job))
        for algorithm in replays:
            schedules[f"{algorithm} (gridsim replay)"] = replay_episode(episode, algorithm)
        for name, schedule in schedules.items():
            summary = schedule_metrics(schedule, machine, threshold)
            rows.append({"replication": replication, "first_job": int(first_job),
                         "policy": name, **{m: float(summary[m]) for m in METRICS}})  # fmt: skip
    return pd.DataFrame(rows)
