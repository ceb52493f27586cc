"""The per-resource time series of a whole log against the processor-count one, same run.

Run on demand (not in the tests):

    nice python benchmarks/bench_resource_timeline.py [--log PATH] [--repeat 5]

Replays the log (default HPC2N, 202,876 jobs) under EASY on its processor count, then gives
each job an ``allocation`` as on the log's dual-processor nodes (processor p on node p // 2,
one core and 400 MiB per processor; nodes of 2 cores and 2 GiB) and times, interleaved,
processor time, medians of ``--repeat``:

* ``processors in use``: :func:`gridsim.analysis.timelines.processors_in_use`, the step
  function the report's processor utilisation figure draws (the baseline);
* ``resource timeline``: :func:`gridsim.analysis.resource_metrics.resource_timeline`, every
  kind's use and the stranded cores, from the allocation text.

Prints both, their ratio and the load average before and after.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from collections import Counter
from pathlib import Path

from gridsim.analysis.resource_metrics import resource_timeline
from gridsim.analysis.timelines import processors_in_use
from gridsim.experiments.runner import replication_seed
from gridsim.experiments.swf_replay import SwfReplayScenario, run_replication
from gridsim.resources import capacity_matrix
from gridsim.sim.trace import node_ids

HPC2N = Path("/work/shared/data/swf/HPC2N-2002-2.1-cln.swf.gz")
MEMORY_PER_CORE = 400


def cpu_time(function, *args) -> float:
    gc.collect()
    began = time.process_time()
    function(*args)
    return time.process_time() - began


def allocation(nodes_text: str) -> str:
    per_node = Counter(processor // 2 for processor in node_ids(nodes_text))
    return " ".join(f"{node}:{cores}/{MEMORY_PER_CORE * cores}/0"
                    for node, cores in sorted(per_node.items()))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=HPC2N)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()), flush=True)
    scenario = SwfReplayScenario.model_validate(
        {"name": "bench", "kind": "swf_replay", "seed": 1, "progress": False,
         "schedulers": ["easy"], "workload": {"path": str(options.log)}})  # fmt: skip
    jobs = run_replication(scenario, 0, replication_seed(1, 0))["jobs"]
    jobs["allocation"] = [allocation(text) for text in jobs.allocated_resources.fillna("")]
    machine = int(jobs.attrs.get("machine_processors", 0)) or int(
        max(max(node_ids(t), default=0) for t in jobs.allocated_resources.fillna("")) + 1
    )
    nodes = (machine + 1) // 2
    capacity = capacity_matrix([2] * nodes, [2048] * nodes, [0] * nodes)
    print(f"{len(jobs):,} jobs, {sum(len(t.split()) for t in jobs.allocation):,} allocation "
          f"entries on {nodes} nodes", flush=True)  # fmt: skip
    times: dict[str, list[float]] = {"processors in use": [], "resource timeline": []}
    for _ in range(options.repeat):
        times["processors in use"].append(cpu_time(processors_in_use, jobs))
        times["resource timeline"].append(cpu_time(resource_timeline, jobs, capacity, True))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"{name}: {value:.3f} s")
    ratio = medians["resource timeline"] / medians["processors in use"]
    print(f"ratio: {ratio:.1f}x")
    print("load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
