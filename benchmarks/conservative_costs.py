"""Processor time of conservative backfilling per part of a log, and the unit costs of a pass.

    python benchmarks/conservative_costs.py [--log FILE] [--parts 10]

Prints, per part of the log (equal spans of simulated time), the processor time per job of
one replay (read every 200 instants through ``replay_log``'s progress callback). Then it
snapshots the profile and queue at every compression pass of the last part and, on those
snapshots, times: the whole passes; the cheap test alone for every queued job (no search, no
move); the moves alone (recorded, then applied to fresh copies). The numbers of docs/swf.md,
"Where the remaining growth comes from". Run on demand (about a minute of processor time).
"""

from __future__ import annotations

import argparse
import time
from bisect import bisect_left, bisect_right
from itertools import accumulate
from pathlib import Path

import numpy as np

from gridsim.scheduling.counting_profile import CountingProfile
from gridsim.scheduling.log_schedulers import Conservative
from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import read_swf


def per_part(log, parts: int) -> float:
    """Print the processor time per job of each part; return where the last part begins."""
    submit = log.jobs.submit_time.to_numpy()
    begin, width = submit.min(), (submit.max() - submit.min()) / parts
    marks: list[tuple[float, float]] = []
    began = time.process_time()
    replay_log(
        log.jobs,
        log.machine_processors,
        "conservative",
        record_nodes=False,
        on_progress=lambda now: marks.append((now, time.process_time())),
        progress_every=200,
    )
    cuts = [began]
    for part in range(1, parts):
        cuts.append(next(cpu for now, cpu in marks if now >= begin + part * width))
    cuts.append(marks[-1][1])
    for part in range(parts):
        high = begin + (part + 1) * width if part < parts - 1 else np.inf
        jobs = int(((submit >= begin + part * width) & (submit < high)).sum())
        spent = cuts[part + 1] - cuts[part]
        print(f"part {part}: {jobs:7d} jobs {spent:7.2f} s {1e6 * spent / jobs:7.1f} us per job")
    print(f"whole log: {cuts[-1] - began:.2f} s processor time")
    return begin + (parts - 1) * width


def snapshots(log, since: float):
    """(now, times, free, queue) at every compression pass from ``since`` on."""
    taken = []

    class Snapshot(Conservative):
        def compress(self, now):
            if now >= since:
                profile = self.profile
                taken.append((now, list(profile._times), list(profile._free), dict(self.queue)))
            super().compress(now)

    replay_log(log.jobs, log.machine_processors, Snapshot, record_nodes=False)
    return taken


def profile_of(machine: int, times: list, free: list) -> CountingProfile:
    profile = CountingProfile(machine)
    profile._times, profile._free = list(times), list(free)
    return profile


def checks(profile: CountingProfile, now, queue, processors, estimate) -> None:
    """The cheap test of every queued job, as the pass makes it, without searches or moves."""
    times, free, most_free = profile._times, profile._free, profile._most_free
    for job, reserved in queue.items():
        if reserved <= now:
            continue
        stop = bisect_left(times, reserved)
        if free[stop - 1] >= processors[job]:
            need = stop
        else:
            need = bisect_right(times, reserved - estimate[job])
            if need == 0:
                continue
        if need > profile._valid:
            valid = profile._valid
            before = most_free[valid - 1] if valid else 0
            most_free[valid:] = accumulate(free[valid:need], max, initial=before)
            del most_free[valid]
            profile._valid = need


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--log", type=Path, default=Path("/work/shared/data/swf/HPC2N-2002-2.1-cln.swf.gz")
    )
    parser.add_argument("--parts", type=int, default=10)
    options = parser.parse_args()
    log = read_swf(options.log)
    last = per_part(log, options.parts)
    taken = snapshots(log, last)
    order = np.lexsort((log.jobs.job_id.to_numpy(), log.jobs.submit_time.to_numpy()))
    processors = log.jobs.processors.to_numpy()[order].tolist()
    estimate = log.jobs.estimate.to_numpy(dtype=np.float64)[order].tolist()
    machine = log.machine_processors
    began = time.process_time()
    for now, times, free, queue in taken:
        profile_of(machine, times, free).compress(now, queue, processors, estimate)
    passes = time.process_time() - began
    recorded, looked_at = [], 0
    for now, times, free, queue in taken:  # the moves of each pass, for timing them alone
        profile = profile_of(machine, times, free)
        moves = []
        plain_move = profile.move
        profile.move = lambda *move, moves=moves, plain_move=plain_move: (
            moves.append(move),
            plain_move(*move),
        )
        profile.compress(now, queue, processors, estimate)
        recorded.append(moves)
        looked_at += len(queue)
    began = time.process_time()
    for now, times, free, queue in taken:
        checks(profile_of(machine, times, free), now, queue, processors, estimate)
    checked = time.process_time() - began
    began = time.process_time()
    for (_, times, free, _), moves in zip(taken, recorded, strict=True):
        profile = profile_of(machine, times, free)
        for move in moves:
            profile.move(*move)
    moved = time.process_time() - began
    count = sum(len(moves) for moves in recorded)
    print(f"last part: {len(taken)} passes, {looked_at} queued jobs looked at, {count} moves")
    print(f"  passes {passes:.2f} s; checks alone {checked:.2f} s; moves alone {moved:.2f} s")


if __name__ == "__main__":
    main()
