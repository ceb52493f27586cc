"""Where conservative backfilling spends its work on a log: the measurement in docs/swf.md.

    python benchmarks/measure_conservative.py [--log FILE] [--parts 10] [--plan baseline]

Replays the log under conservative backfilling with counting subclasses of the planner
(``--plan baseline``: the replay before merged steps, ``tests/workloads/scan_conservative.py``;
``--plan gridsim``: today's) and prints, per part of the log (equal spans of simulated
time): early completions (each runs one compression pass), queue length and profile steps at
those passes (mean, max), searches per early completion (calls of ``earliest_move``: in the
baseline every queued job, rejected from a running maximum or scanned; in gridsim only the
jobs that pass ``may_move``) and the steps between now and the reservation (the most a search
walks), moves per job, and the steps an arrival's earliest fit walked. Slow (the baseline
takes minutes on HPC2N); run on demand.
"""

from __future__ import annotations

import argparse
import sys
from bisect import bisect_left
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "workloads"))

from scan_conservative import ScanConservative, ScanProfile  # noqa: E402

from gridsim.scheduling.counting_profile import CountingProfile  # noqa: E402
from gridsim.scheduling.log_schedulers import Conservative  # noqa: E402
from gridsim.sim.log_replay import replay_log  # noqa: E402
from gridsim.workloads.swf import read_swf  # noqa: E402


def steps_before(profile, time: float) -> int:
    """How many steps of the profile start before ``time`` (both keep ``_times`` sorted)."""
    return bisect_left(profile._times, time, 0, len(profile))


def counting(planner: type, profile_class: type):
    """A subclass of ``planner`` whose profile and passes record their work in ``tally``."""
    tally: dict[str, list[float]] = defaultdict(list)

    class CountingProfileOf(profile_class):  # type: ignore[misc, valid-type]
        def earliest_move(self, now, processors, duration, reserved):
            tally["search_steps"].append(steps_before(self, reserved))
            return super().earliest_move(now, processors, duration, reserved)

        def compress(self, now, queue, processors, duration):
            """gridsim's pass as its plain loop (the same moves), so searches are counted."""
            moves = []
            for job, reserved in queue.items():
                p, e = processors[job], duration[job]
                if reserved > now and self.may_move(p, e, reserved):
                    self.scans += 1
                    new = self.earliest_move(now, p, e, reserved)
                    if new is not None:
                        self.move(reserved, new, e, p)
                        moves.append((job, new))
            return moves

        def earliest_fit(self, now, processors, duration, before=float("inf")):
            start = super().earliest_fit(now, processors, duration, before)
            tally["fit"].append((now, steps_before(self, start)))
            return start

    class Counting(planner):  # type: ignore[misc, valid-type]
        def __init__(self, machine, processors, estimate, now):
            super().__init__(machine, processors, estimate, now)
            self.profile = CountingProfileOf(machine, now)

        def compress(self, now):
            searches = len(tally["search_steps"])
            moves = self.compression_moves
            queue, steps = len(self.queue), len(self.profile)
            super().compress(now)
            searched = len(tally["search_steps"]) - searches
            tally["pass"].append((now, queue, steps, searched, self.compression_moves - moves))

    return Counting, tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--log", type=Path, default=Path("/work/shared/data/swf/HPC2N-2002-2.1-cln.swf.gz")
    )
    parser.add_argument("--parts", type=int, default=10)
    parser.add_argument("--plan", choices=["baseline", "gridsim"], default="baseline")
    options = parser.parse_args()
    log = read_swf(options.log)
    planner, profile_class = (
        (ScanConservative, ScanProfile)
        if options.plan == "baseline"
        else (Conservative, CountingProfile)
    )
    planner_class, tally = counting(planner, profile_class)
    replay = replay_log(log.jobs, log.machine_processors, planner_class, record_nodes=False)
    submit = log.jobs.submit_time.to_numpy()
    begin, end = float(submit.min()), float(submit.max())
    width = (end - begin) / options.parts
    passes, fits, searches = tally["pass"], tally["fit"], tally["search_steps"]
    print(f"{options.log.name}, {options.plan}: {len(log.jobs)} jobs, counters {replay.counters}")
    print(
        "part   day    jobs  completions  queue mean/max  steps mean/max  searches/compl"
        "  steps/search  moves/job  steps/fit"
    )
    search_index = 0
    for part in range(options.parts):
        low = begin + part * width
        high = begin + (part + 1) * width if part < options.parts - 1 else float("inf")
        jobs = int(((submit >= low) & (submit < high)).sum())
        part_passes = [p for p in passes if low <= p[0] < high]
        part_fits = [steps for now, steps in fits if low <= now < high]
        scanned = sum(p[3] for p in part_passes)
        walked = searches[search_index : search_index + scanned]
        search_index += scanned
        count = max(len(part_passes), 1)
        queue = [p[1] for p in part_passes] or [0]
        steps = [p[2] for p in part_passes] or [0]
        print(
            f"{part:4d} {low / 86400:5.0f} {jobs:7d} {len(part_passes):12d}"
            f"  {sum(queue) / count:9.0f}/{max(queue):<5d}"
            f" {sum(steps) / count:8.0f}/{max(steps):<6d}"
            f" {scanned / count:14.1f}  {sum(walked) / max(len(walked), 1):12.0f}"
            f"  {sum(p[4] for p in part_passes) / max(jobs, 1):9.2f}"
            f"  {sum(part_fits) / max(len(part_fits), 1):9.0f}"
        )
    walked = sum(searches)
    print(f"searches {len(searches)}, steps before their reservations {walked}")


if __name__ == "__main__":
    main()
