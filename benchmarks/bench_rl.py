"""Steps per second of the learning environments, against the plain replay of the same jobs.

Run on demand (not in the tests):

    nice python benchmarks/bench_rl.py [--episodes 20] [--episode-jobs 256] [--repeat 5]
        [--resource-episodes 2]

On Lublin-256 (``gridsim.rl.LUBLIN_256``: 10,000 jobs of the Lublin-Feitelson model for 256
processors, exact estimates), the same ``--episodes`` episodes (seeds 0, 1, ...) for every
contender, in one process, contenders interleaved within each of ``--repeat`` repetitions:

* ``replay``: gridsim's EASY replay of each episode's jobs (``replay_log``, the loop
  ``gridsim run`` uses), no agent: the baseline;
* ``job selection, row 0``: ``JobSelectionEnv`` (EASY backfilling) stepped with action 0
  (FCFS, the same schedule as the replay), so the cost measured is the environment's:
  observations, masks, infos, rewards;
* ``job selection, F1``: the same with the F1 heuristic choosing (its scoring included);
* ``job selection without backfilling, row 0``: ``backfill="none"``, one step per job (FCFS);
* ``backfill selection, row 0 (EASY)``: ``BackfillSelectionEnv`` taking the first job EASY's
  rule allows (EASY's schedule again);
* with ``--resource-episodes N``: ``ResourceSelectionEnv`` on ``LUBLIN_256_NODES`` (256
  nodes of two classes, five candidate criteria), row 0, N episodes of 32 jobs.

Printed per contender: median processor time per repetition, steps, steps per second of
processor time, and the time per job against the replay's (ratios of processor times
measured in the same run). The load average is printed before and after: the machine is
shared. Target: at least 10,000 job-selection steps per second on one core.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time

import numpy as np


def load() -> str:
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def first_allowed(observation, info) -> int:
    return int(np.flatnonzero(info["action_mask"])[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--episode-jobs", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--resource-episodes", type=int, default=0)
    args = parser.parse_args()

    from gridsim.rl import LUBLIN_256, LUBLIN_256_NODES
    from gridsim.rl.backfill_selection import BackfillSelectionEnv
    from gridsim.rl.baselines import HeuristicPolicy, play, replay_episode
    from gridsim.rl.episodes import EpisodeSource
    from gridsim.rl.job_selection import JobSelectionEnv
    from gridsim.rl.resource_selection import ResourceSelectionEnv

    print(load())
    source = EpisodeSource(LUBLIN_256, args.episode_jobs)
    job_env, backfill_env = JobSelectionEnv(source), BackfillSelectionEnv(source)
    no_backfill_env = JobSelectionEnv(source, backfill="none")
    seeds = range(args.episodes)
    episodes = [source.sample(np.random.default_rng(seed)) for seed in seeds]

    def replay() -> int:
        for episode in episodes:
            replay_episode(episode, "easy")
        return len(episodes) * args.episode_jobs

    def episodes_of(env, policy, seeds=seeds):
        def run() -> int:
            return sum(play(env, policy, seed=seed)[1] for seed in seeds)

        return run

    contenders = {
        "replay (jobs)": replay,
        "job selection, row 0": episodes_of(job_env, lambda observation, info: 0),
        "job selection, F1": episodes_of(job_env, HeuristicPolicy("f1")),
        "job selection without backfilling, row 0": episodes_of(
            no_backfill_env, lambda observation, info: 0
        ),
        "backfill selection, row 0 (EASY)": episodes_of(backfill_env, first_allowed),
    }
    if args.resource_episodes:
        nodes = ResourceSelectionEnv(EpisodeSource(LUBLIN_256_NODES, 32))
        contenders["resource selection, row 0 (32 jobs)"] = episodes_of(
            nodes, lambda observation, info: 0, range(args.resource_episodes)
        )
    times: dict[str, list[float]] = {name: [] for name in contenders}
    steps: dict[str, int] = {}
    for _ in range(args.repeat):
        for name, contender in contenders.items():
            gc.collect()
            began = time.process_time()
            steps[name] = contender()
            times[name].append(time.process_time() - began)
    baseline = statistics.median(times["replay (jobs)"]) / (len(episodes) * args.episode_jobs)
    print(f"{args.episodes} Lublin-256 episodes of {args.episode_jobs} jobs, "
          f"{args.repeat} repetitions, medians of processor time")  # fmt: skip
    print(f"{'contender':42} {'cpu s':>8} {'steps':>7} {'steps/s':>9} {'per job / replay':>17}")
    for name, measured in times.items():
        cpu = statistics.median(measured)
        jobs = (args.resource_episodes * 32 if name.startswith("resource")
                else len(episodes) * args.episode_jobs)  # fmt: skip
        print(f"{name:42} {cpu:8.3f} {steps[name]:7d} {steps[name] / cpu:9.0f} "
              f"{cpu / jobs / baseline:17.1f}")  # fmt: skip
    print(load())


if __name__ == "__main__":
    main()
