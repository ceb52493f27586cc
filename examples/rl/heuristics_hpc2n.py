"""The heuristic baselines on HPC2N episodes of 256 jobs, next to RLScheduler's table.

    nice python examples/rl/heuristics_hpc2n.py [--log HPC2N-2002-2.1-cln.swf.gz]
        [--episodes 200] [--episode-jobs 256] [--on-overrun kill] [--out examples/rl/output]

Every heuristic (FCFS, WFP3, UNICEP, SJF, F1) acts through ``JobSelectionEnv`` on the same
``--episodes`` episodes (starts drawn from seeds 0, 1, ...), without backfilling and with
EASY backfilling around the chosen job; gridsim's EASY replay of the same jobs is added.
Prints the mean bounded slowdown (threshold 10 s) with its 95% interval and the median per
heuristic, beside the values published by RLScheduler (Zhang et al., SC20, Table V, as its
repository's README lists them), and writes ``hpc2n_<episode jobs>_<on overrun>.csv`` (one row
per episode, mode and heuristic) to ``--out``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.analysis.stats import mean_interval
from gridsim.rl.baselines import HeuristicPolicy, play, replay_episode, schedule_metrics
from gridsim.rl.episodes import EpisodeSource
from gridsim.rl.job_selection import JobSelectionEnv

HPC2N = Path("/work/shared/data/swf/HPC2N-2002-2.1-cln.swf.gz")
#: RLScheduler's published HPC2N bounded slowdowns (SC20, Table V).
PUBLISHED = {
    "none": {"fcfs": 297.18, "wfp3": 426.99, "unicep": 609.77, "sjf": 157.71, "f1": 118.01},
    "easy": {"fcfs": 127.38, "wfp3": 97.39, "unicep": 175.12, "sjf": 122.04, "f1": 71.95},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, default=HPC2N)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--episode-jobs", type=int, default=256)
    parser.add_argument(
        "--on-overrun",
        choices=["kill", "run"],
        default="kill",
        help="a job running past its estimate: killed at it (gridsim's "
        "default) or run to its end (as RLScheduler's simulator does)",
    )
    parser.add_argument("--out", type=Path, default=Path("examples/rl/output"))
    args = parser.parse_args()

    workload = {"path": str(args.log), "mapping": {"on_overrun": args.on_overrun}}
    scenario = {"name": "hpc2n", "kind": "swf_replay", "workload": workload, "progress": False}
    source = EpisodeSource(scenario, args.episode_jobs)
    machine = len(source.platform)
    firsts = [source.sample(np.random.default_rng(seed)).first_job for seed in range(args.episodes)]
    rows = []
    for backfill in ("none", "easy"):
        env = JobSelectionEnv(source, backfill=backfill)
        for name in PUBLISHED[backfill]:
            policy = HeuristicPolicy(name)
            for first in firsts:
                schedule = play(env, policy, options={"first_job": first})[2]
                slowdown = schedule_metrics(schedule, machine).mean_bounded_slowdown
                rows.append({"backfill": backfill, "policy": name, "first_job": first,
                             "mean_bounded_slowdown": slowdown})  # fmt: skip
    for first in firsts:
        schedule = replay_episode(source.episode(first), "easy")
        rows.append({"backfill": "easy", "policy": "easy (gridsim replay)", "first_job": first,
                     "mean_bounded_slowdown": schedule_metrics(schedule, machine)
                     .mean_bounded_slowdown})  # fmt: skip
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / f"hpc2n_{args.episode_jobs}_{args.on_overrun}.csv", index=False)
    print(f"{args.log.name}: {machine} processors, {args.episodes} episodes of "
          f"{args.episode_jobs} jobs")  # fmt: skip
    print("| backfilling | heuristic | mean (95% interval) | median | published |")
    print("|---|---|---|---|---|")
    for (backfill, policy), part in table.groupby(["backfill", "policy"], sort=False):
        mean, half, _ = mean_interval(part.mean_bounded_slowdown)
        published = PUBLISHED[backfill].get(policy, float("nan"))
        print(f"| {backfill} | {policy} | {mean:.1f} ± {half:.1f} | "
              f"{part.mean_bounded_slowdown.median():.1f} | {published:g} |")  # fmt: skip


if __name__ == "__main__":
    main()
