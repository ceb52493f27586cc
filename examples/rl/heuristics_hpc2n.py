"""The heuristic baselines on HPC2N episodes of 256 jobs, next to RLScheduler's table.

    nice python examples/rl/heuristics_hpc2n.py [--log HPC2N-2002-2.1-cln.swf.gz]
        [--episodes 200] [--episode-jobs 256] [--on-overrun kill] [--out examples/rl/output]

Every heuristic (FCFS, WFP3, UNICEP, SJF, F1) acts through ``JobSelectionEnv`` on the same
``--episodes`` episodes (starts drawn from seeds 0, 1, ...), without backfilling and with
EASY backfilling around the chosen job, each choosing among all waiting jobs (as
RLScheduler's heuristics do; ``--queue-slots`` limits them to the first K); gridsim's EASY
replay of the same jobs is added. Prints the mean bounded slowdown (threshold 10 s) with its
95% interval and the median per heuristic, beside the values published by RLScheduler (Zhang
et al., SC20, Table V, as its repository's README lists them), and writes
``hpc2n_<episode jobs>_<on overrun>.csv`` (one row per episode, mode and heuristic) to
``--out``.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

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
    parser.add_argument(
        "--queue-slots",
        type=int,
        default=None,
        help="waiting jobs a heuristic chooses among (default: the whole "
        "episode, as RLScheduler's heuristics sort the whole queue)",
    )
    parser.add_argument("--out", type=Path, default=Path("examples/rl/output"))
    args = parser.parse_args()

    workload = {"path": str(args.log), "mapping": {"on_overrun": args.on_overrun}}
    scenario = {"name": "hpc2n", "kind": "swf_replay", "workload": workload, "progress": False}
    source = EpisodeSource(scenario, args.episode_jobs)
    machine = len(source.platform)
    firsts = [source.sample(np.random.default_rng(seed)).first_job for seed in range(args.episodes)]
    slowdowns: dict[tuple[str, str], list[float]] = {}  # (backfilling, policy) -> per episode
    for backfill in ("none", "easy"):
        env = JobSelectionEnv(source, backfill=backfill,
                              queue_slots=args.queue_slots or args.episode_jobs)  # fmt: skip
        for name in PUBLISHED[backfill]:
            heuristic = HeuristicPolicy(name)
            for first in firsts:
                schedule = play(env, heuristic, options={"first_job": first})[2]
                summary = schedule_metrics(schedule, machine)
                slowdowns.setdefault((backfill, name), []).append(summary.mean_bounded_slowdown)
    for first in firsts:
        summary = schedule_metrics(replay_episode(source.episode(first), "easy"), machine)
        slowdowns.setdefault(("easy", "easy (gridsim replay)"), []).append(
            summary.mean_bounded_slowdown)  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"hpc2n_{args.episode_jobs}_{args.on_overrun}.csv"
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["backfill", "policy", "first_job", "mean_bounded_slowdown"])
        for (backfill, policy), values in slowdowns.items():
            writer.writerows(zip([backfill] * len(firsts), [policy] * len(firsts), firsts,
                                 values, strict=True))  # fmt: skip
    print(f"{args.log.name}: {machine} processors, {args.episodes} episodes of "
          f"{args.episode_jobs} jobs")  # fmt: skip
    print("| backfilling | heuristic | mean (95% interval) | median | published |")
    print("|---|---|---|---|---|")
    for (backfill, policy), values in slowdowns.items():
        mean, half, _ = mean_interval(values)
        published = PUBLISHED[backfill].get(policy, float("nan"))
        print(f"| {backfill} | {policy} | {mean:.1f} ± {half:.1f} | "
              f"{np.median(values):.1f} | {published:g} |")  # fmt: skip


if __name__ == "__main__":
    main()
