"""Where a node-level conservative replay spends its time: counts per event.

Run on demand (not in the tests):

    python benchmarks/measure_node_replay.py [--log FILE] [--jobs 2000] [--policy BFfinish]
        [--plan reference|gridsim]

Replays the first ``--jobs`` jobs of a log (default: the bundled KTH-SP2 excerpt) on 60% of
its processors as reference nodes and 40% as nodes 1.5x faster at twice the price (KTH-SP2:
60 + 40), under conservative backfilling with ``--policy``, with the reference planner
(``tests/reference_node_planners.py``) or gridsim's, and prints: the processor time in window
searches and elsewhere (the machine may be shared: processor time depends less on the load
than wall time), searches per submission and per early finish, queue length and profile
slots at compressions, the compression searches that moved nothing, and the profile
operations (releases and reservations of windows).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from reference_node_planners import build_planner as reference_planner  # noqa: E402

from gridsim.experiments.swf_replay_nodes import node_level_instance  # noqa: E402
from gridsim.scheduling.queue_policies import build_planner  # noqa: E402
from gridsim.selection.registry import build_criterion  # noqa: E402
from gridsim.sim.engine import Engine  # noqa: E402
from gridsim.workloads.platform import LogPlatformConfig, NodeClass, log_platform  # noqa: E402
from gridsim.workloads.swf import bundled_swf, read_swf  # noqa: E402


class CountingCriterion:
    """A criterion that counts and times its searches, and whether they were in a compression."""

    def __init__(self, criterion) -> None:
        self.criterion = criterion
        self.searches = {"submission": 0, "compression": 0}
        self.seconds = 0.0
        self.phase = "submission"

    def search(self, profile, request):
        self.searches[self.phase] += 1
        began = time.process_time()
        window = self.criterion.search(profile, request)
        self.seconds += time.process_time() - began
        return window


def instrument(planner, criterion: CountingCriterion) -> dict:
    """Wrap the planner's ``finish`` and its profile's operations with counters."""
    stats = {"compressions": 0, "queue": [], "slots": [], "moved": 0, "reserve": 0, "release": 0}
    finish, profile = planner.finish, planner.profile
    reserve, release_window = profile.reserve, profile.release_window

    def counted_finish(job_id, now):
        criterion.phase = "compression"
        queue, slots = len(planner.reservations), sum(map(len, profile._free))
        searches = criterion.searches["compression"]
        moved = finish(job_id, now)
        criterion.phase = "submission"
        if criterion.searches["compression"] > searches or moved:
            stats["compressions"] += 1
            stats["queue"].append(queue)
            stats["slots"].append(slots)
            stats["moved"] += len(moved)
        return moved

    def counted_reserve(window):
        stats["reserve"] += 1
        reserve(window)

    def counted_release(window):
        stats["release"] += 1
        release_window(window)

    planner.finish = counted_finish
    profile.reserve, profile.release_window = counted_reserve, counted_release
    return stats


def two_classes(processors: int) -> LogPlatformConfig:
    """60% reference nodes and 40% 1.5x faster at twice the price, one node per processor
    (KTH-SP2: 60 + 40, HPC2N: 144 + 96, as in the whole-log scenarios)."""
    fast = round(0.4 * processors)
    return LogPlatformConfig(
        node_classes=[NodeClass(count=processors - fast, performance=1.0, price=1.0),
                      NodeClass(count=fast, performance=1.5, price=2.0)],
    )  # fmt: skip


def load() -> str:
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=None, help="default: the bundled excerpt")
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--policy", default="BFfinish")
    parser.add_argument("--plan", choices=["reference", "gridsim"], default="reference")
    options = parser.parse_args()
    log = read_swf(options.log or bundled_swf())
    platform = log_platform(log.machine_processors, two_classes(log.machine_processors))
    instance = node_level_instance(log.jobs.iloc[: options.jobs].reset_index(drop=True), platform)
    criterion = CountingCriterion(build_criterion(options.policy))
    build = reference_planner if options.plan == "reference" else build_planner
    planner = build("conservative", instance.nodes, instance.busy, criterion)
    planner.skip_tests = True  # the counting wrapper searches with a built-in criterion
    stats = instrument(planner, criterion)
    print(load(), flush=True)
    began, cpu = time.perf_counter(), time.process_time()
    trace = Engine(instance, planner).run()
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
    jobs = len(instance.jobs)
    early = sum(1 for r in trace.job_records() if r["runtime"] < r["planned_runtime"] - 1e-9)
    searches = criterion.searches
    print(f"{options.plan} planner, {options.policy}, {jobs} jobs of {options.log or 'KTH-SP2'}")
    print(f"  replay {cpu:.1f} s processor time ({elapsed:.1f} s wall), of which window searches"
          f" {criterion.seconds:.1f} s; {load()}")  # fmt: skip
    passes = stats["compressions"]
    print(f"  searches: {searches['submission']} at submissions, {searches['compression']} in"
          f" compressions ({early} early finishes, {passes} with a search)")  # fmt: skip
    if stats["queue"]:
        print(f"  queue at a compression: mean {statistics.mean(stats['queue']):.1f}, "
              f"max {max(stats['queue'])}; profile slots: mean "
              f"{statistics.mean(stats['slots']):.0f}, max {max(stats['slots'])}")  # fmt: skip
    nothing = searches["compression"] - stats["moved"]
    print(f"  compression searches that moved nothing: {nothing} of {searches['compression']}"
          f" ({stats['moved']} moves)")  # fmt: skip
    print(f"  profile operations: {stats['reserve']} window reservations, "
          f"{stats['release']} window releases")  # fmt: skip


if __name__ == "__main__":
    main()
