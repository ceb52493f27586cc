"""KTH-SP2 replayed with memory per node against the processor-count replay, same run.

Run on demand (not in the tests):

    python benchmarks/bench_resource_replay.py [--log PATH] [--repeat 3] [--jobs N]
        [--python-repeat 1] [--memory-per-core 100] [--schedulers fcfs easy conservative]

Four replays of the same jobs per scheduler, interleaved repetition by repetition, processor
time (medians of ``--repeat``; the Python planners ``--python-repeat`` times, 0 to leave
them out):

* ``processors``: the compiled processor-count replay (:func:`gridsim.sim.log_replay.replay_log`,
  the fast path every processor-only log takes): the baseline of the ratios;
* ``resource planners``: every job a processor count, planned by the compiled multi-resource
  planners on 100 one-core nodes (the price of named nodes);
* ``memory per node``: the compiled multi-resource planners on 100 one-core nodes, 50 of
  128 MiB and 50 of 256 MiB, every processor asking for ``--memory-per-core`` MiB (KTH-SP2's
  log gives no memory);
* ``memory per node, Python``: the same replay with the Python planners
  (``GRIDSIM_PURE_PYTHON=1``), and whether its schedule is the compiled one's (start times,
  first reservations, allocations).

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

import numpy as np

from gridsim.core.optional import PURE_PYTHON_ENV
from gridsim.core.replay import compiled
from gridsim.resources import ResourceRequest, capacity_matrix
from gridsim.sim.log_replay import replay_log, replay_resources
from gridsim.workloads.swf import read_swf

KTH = Path("/work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz")
BASE = "processors"
PYTHON = "memory per node, Python"


def timed(function, *args, **kwargs):
    """(result, processor s) of one call."""
    gc.collect()
    began = time.process_time()
    result = function(*args, **kwargs)
    return result, time.process_time() - began


def in_python(function, *args, **kwargs):
    """``function`` with the compiled core switched off."""
    os.environ[PURE_PYTHON_ENV] = "1"
    try:
        return function(*args, **kwargs)
    finally:
        del os.environ[PURE_PYTHON_ENV]


def same_schedule(a, b) -> bool:
    return (
        np.array_equal(a.replay.start_time, b.replay.start_time)
        and np.array_equal(a.replay.first_reservation, b.replay.first_reservation, equal_nan=True)
        and a.allocation == b.allocation
        and a.replay.counters == b.replay.counters
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=KTH)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python-repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=0, help="0: the whole log")
    parser.add_argument("--memory-per-core", type=int, default=100, help="MiB")
    parser.add_argument("--schedulers", nargs="*", default=["fcfs", "easy", "conservative"])
    options = parser.parse_args()
    if compiled() is None:
        raise SystemExit("the compiled core is not available (or GRIDSIM_PURE_PYTHON is set)")
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
    contenders = {
        BASE: lambda s: replay_log(jobs, machine, s, record_nodes=False),
        "resource planners": lambda s: replay_resources(jobs, plain, ones, "shared", s),
        "memory per node": lambda s: replay_resources(jobs, with_memory, memory, "shared", s),
        PYTHON: lambda s: in_python(replay_resources, jobs, with_memory, memory, "shared", s),
    }
    print(f"{options.log.name}: {len(jobs)} jobs, {machine} processors", flush=True)
    for scheduler in options.schedulers:
        runs: dict[str, list] = {name: [] for name in contenders}
        for k in range(max(options.repeat, options.python_repeat)):  # interleaved
            for name, replay in contenders.items():
                if k < (options.python_repeat if name == PYTHON else options.repeat):
                    runs[name].append(timed(replay, scheduler))
        base = statistics.median(run[1] for run in runs[BASE])
        for name, values in runs.items():
            if not values:
                continue
            median = statistics.median(run[1] for run in values)
            line = f"  {scheduler:12s} {name:24s} {median:8.3f} s processor {median / base:8.1f}x"
            if name == PYTHON:
                same = same_schedule(values[0][0], runs["memory per node"][0][0])
                line += f"  (same schedule as compiled: {same})"
            print(line, flush=True)
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)


if __name__ == "__main__":
    main()
