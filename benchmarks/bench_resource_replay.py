"""KTH-SP2 replayed with memory per node against the processor-count replay, same run.

Run on demand (not in the tests):

    python benchmarks/bench_resource_replay.py [--log PATH] [--repeat 3] [--jobs N]
        [--memory-per-core 100] [--schedulers fcfs easy conservative]

Three replays of the same jobs per scheduler, interleaved repetition by repetition, processor
time (medians of ``--repeat``):

* ``processors``: the processor-count replay of today (`gridsim.sim.log_replay.replay_log`,
  the fast path every processor-only log takes);
* ``processors on the resource planners``: every job a processor count, planned by the
  multi-resource planners on 100 one-core nodes (what the fast path saves);
* ``memory per node``: 100 one-core nodes, 50 of 128 MiB and 50 of 256 MiB, every processor
  asking for ``--memory-per-core`` MiB (KTH-SP2's log gives no memory).

Prints the ratios to the processor-count replay and the load average before and after
(absolute times are only comparable under the same load; ratios are measured in one run).
The target of the resource model: memory per node within 1.5x of the processor count.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from pathlib import Path

from gridsim.resources import ResourceRequest, capacity_matrix
from gridsim.sim.log_replay import replay_log, replay_resources
from gridsim.workloads.swf import read_swf

KTH = Path("/work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz")
NAMES = ("processors", "processors on the resource planners", "memory per node")


def cpu_time(function, *args, **kwargs) -> float:
    gc.collect()
    began = time.process_time()
    function(*args, **kwargs)
    return time.process_time() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=KTH)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=0, help="0: the whole log")
    parser.add_argument("--memory-per-core", type=int, default=100, help="MiB")
    parser.add_argument("--schedulers", nargs="*", default=["fcfs", "easy", "conservative"])
    options = parser.parse_args()
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)
    log = read_swf(options.log)
    jobs = log.jobs.iloc[: options.jobs] if options.jobs else log.jobs
    machine = log.machine_processors
    ones = capacity_matrix([1] * machine, [0] * machine, [0] * machine)
    half = machine // 2
    memory = capacity_matrix([1] * machine, [128] * half + [256] * (machine - half), [0] * machine)
    plain = [ResourceRequest(int(p), (1, 0, 0)) for p in jobs.processors]
    with_memory = [ResourceRequest(int(p), (1, options.memory_per_core, 0))
                   for p in jobs.processors]  # fmt: skip
    print(f"{options.log.name}: {len(jobs)} jobs, {machine} processors", flush=True)
    for scheduler in options.schedulers:
        times: dict[str, list[float]] = {name: [] for name in NAMES}
        for _ in range(options.repeat):
            times["processors"].append(
                cpu_time(replay_log, jobs, machine, scheduler, record_nodes=False)
            )
            times["processors on the resource planners"].append(
                cpu_time(replay_resources, jobs, plain, ones, "shared", scheduler)
            )
            times["memory per node"].append(
                cpu_time(replay_resources, jobs, with_memory, memory, "shared", scheduler)
            )
        base = statistics.median(times["processors"])
        for name, values in times.items():
            median = statistics.median(values)
            print(
                f"  {scheduler:12s} {name:38s} {median:8.2f} s processor  {median / base:7.1f}x",
                flush=True,
            )
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)


if __name__ == "__main__":
    main()
