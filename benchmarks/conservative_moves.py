"""Moves and processor time of conservative compression passes, by queue length (run on demand).

    python benchmarks/conservative_moves.py [--log FILE] [--prefix 50000]

Replays the log under conservative backfilling, recording at every compression pass (one per
early completion) the queue length, the queued jobs searched, the jobs moved earlier and the
processor time of the pass. Prints the passes grouped by queue length: per pass, the mean
queue, searches, moves and time, and the moves, searches and time per queued job. If the moves
per queued job stay the same fraction whatever the queue's length, the moves a pass must make
grow in proportion to the queue, and so does the work of a pass (docs/swf.md, "Why the
remaining growth is the schedule's"). Then it replays the first ``--prefix`` jobs alone, as
``bench_swf_replay.py`` does, and prints for both replays the processor time per job, split
into the passes and the rest, the moves per job, and the largest cost per move at which a
planner that made only the moves (no look at a job that stays) would keep the whole log's cost
per job within 1.5x of the prefix's.
"""

from __future__ import annotations

import argparse
import time
from itertools import pairwise
from pathlib import Path

import numpy as np

from gridsim.scheduling.log_schedulers import Conservative
from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import read_swf

#: Queue lengths at a pass, grouped in roughly geometric classes.
CLASSES = (0, 4, 16, 64, 256, 1024, 10**9)


def recorded_passes(jobs, machine: int) -> tuple[np.ndarray, float]:
    """(now, queue, searches, moves, processor seconds, queued jobs behind the last move) of
    every compression pass, and the processor time of the whole replay (the last column is
    counted outside the timed pass, and the recording's own time is left out of the replay's)."""
    passes: list[tuple[float, int, int, int, float, int]] = []
    overhead = [0.0]  # processor time of the recording itself, left out of the replay's

    class Recording(Conservative):
        def compress(self, now):
            queue, scans, moves = len(self.queue), self.compression_scans, self.compression_moves
            recording = time.process_time()
            before = list(self.queue.items())
            began = time.process_time()
            super().compress(now)
            spent = time.process_time() - began
            searched = self.compression_scans - scans
            # queued jobs behind the last one that moved: what a rule stopping the pass
            # after its last move could leave unexamined
            after = queue
            for position in range(queue - 1, -1, -1):
                job, reserved = before[position]
                if self.queue[job] != reserved:
                    after = queue - 1 - position
                    break
            moved = self.compression_moves - moves
            passes.append((now, queue, searched, moved, spent, after))
            overhead[0] += time.process_time() - recording - spent

    began = time.process_time()
    replay_log(jobs, machine, Recording, record_nodes=False)
    return np.array(passes), time.process_time() - began - overhead[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--log", type=Path, default=Path("/work/shared/data/swf/HPC2N-2002-2.1-cln.swf.gz")
    )
    parser.add_argument("--prefix", type=int, default=50_000)
    options = parser.parse_args()
    log = read_swf(options.log)
    passes, whole_cpu = recorded_passes(log.jobs, log.machine_processors)
    _, queue, searched, moved, spent, behind = passes.T
    print(f"{options.log.name}: {len(log.jobs)} jobs, {len(passes)} compression passes")
    print(
        "queue at pass   passes  queue  searches  moves  us/pass"
        "  moves/queued  searches/queued  us per queued job  behind the last move"
    )
    for low, high in pairwise(CLASSES):
        chosen = (queue >= low) & (queue < high)
        if not chosen.any():
            continue
        looked = queue[chosen].sum()
        label = f"{low}-{high - 1}" if high < 10**9 else f"{low}+"
        print(
            f"{label:<14}{chosen.sum():>8d}{queue[chosen].mean():>7.0f}"
            f"{searched[chosen].mean():>10.1f}{moved[chosen].mean():>7.1f}"
            f"{1e6 * spent[chosen].mean():>9.0f}"
            f"{moved[chosen].sum() / max(looked, 1):>14.3f}"
            f"{searched[chosen].sum() / max(looked, 1):>17.3f}"
            f"{1e6 * spent[chosen].sum() / max(looked, 1):>19.2f}"
            f"{behind[chosen].sum() / max(looked, 1):>22.3f}"
        )
    prefix_jobs = log.jobs.iloc[: options.prefix]
    prefix, prefix_cpu = recorded_passes(prefix_jobs, log.machine_processors)
    per_job = {}
    for label, tally, cpu, jobs in (
        (f"first {len(prefix_jobs)} jobs", prefix, prefix_cpu, len(prefix_jobs)),
        ("whole log", passes, whole_cpu, len(log.jobs)),
    ):
        _, queued, searches, moves, seconds, _ = tally.T
        per_job[label] = (1e6 * (cpu - seconds.sum()) / jobs, moves.sum() / jobs)
        print(
            f"{label}: per job {1e6 * cpu / jobs:.1f} us ({1e6 * seconds.sum() / jobs:.1f} us of"
            f" passes, {per_job[label][0]:.1f} us of the rest); {queued.sum() / jobs:.1f} queued"
            f" jobs at passes, {searches.sum() / jobs:.2f} searches, {moves.sum() / jobs:.2f} moves"
        )
    (rest_prefix, moves_prefix), (rest_whole, moves_whole) = per_job.values()
    most = (1.5 * rest_prefix - rest_whole) / (moves_whole - 1.5 * moves_prefix)
    print(
        f"growth {whole_cpu / len(log.jobs) / (prefix_cpu / len(prefix_jobs)):.2f}x; moves only,"
        f" 1.5x needs at most {most:.2f}"
        f" us per move (the passes now spend {1e6 * spent.sum() / moved.sum():.2f} us per move)"
    )


if __name__ == "__main__":
    main()
