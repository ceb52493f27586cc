"""What faults cost in CPU time: a 200-job flow with faults against the same flow without.

Run on demand (not in the tests):

    python benchmarks/bench_faults.py [--jobs 200] [--repeat 5] [--replication 0]
        [--policies BFfinish CoP ...]

The flow is the dependability study's (``scenarios/dependability.yaml``: 32 nodes with local
load, Poisson arrivals at 60% utilisation) with ``--jobs`` jobs, at each of the study's fault
levels. For each level and policy the same instance (nodes, local load, jobs and their
runtime factors) is simulated with the level's faults and without any (the plain engine);
runs alternate, with faults then without, ``--repeat`` times, and the ratio of the medians of
processor time is reported, with the number of window searches the faults caused (a
reservation a fault moved or a killed job planned again: one search each). The
target is a ratio of at most 1.5. The machine's load average is printed before and after:
absolute times wander on a shared machine, ratios measured in one run are what count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from gridsim.experiments.grid import load_experiment
from gridsim.experiments.jobflow import generate_instance, with_arrivals
from gridsim.experiments.runner import replication_seed
from gridsim.faults.draws import draw_faults, instance_fault_seed
from gridsim.sim.engine import simulate
from gridsim.sim.fault_engine import simulate_with_faults

#: Moves only faults cause (job overruns and compressions happen without faults too).
FAULT_CAUSES = {"failure", "local_overrun", "local_unannounced", "resubmission"}
STUDY = Path(__file__).resolve().parents[1] / "scenarios" / "dependability.yaml"


def time_pair(instance, criterion, faults, priority, repeat):
    """Medians of CPU seconds without and with faults (runs alternate), and the window
    searches the faults caused (reservations they moved, and kills)."""
    plain, faulty = [], []
    for _ in range(repeat):
        began = time.process_time()
        trace = simulate_with_faults(instance, criterion, faults, priority)
        faulty.append(time.process_time() - began)
        began = time.process_time()
        simulate(instance, criterion, priority)
        plain.append(time.process_time() - began)
    kills = sum(job["retries"] for job in trace.job_records())
    replans = kills + sum(move.cause in FAULT_CAUSES for move in trace.moves)
    return statistics.median(plain), statistics.median(faulty), replans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200, help="jobs in the flow")
    parser.add_argument("--repeat", type=int, default=5, help="alternating runs per pair")
    parser.add_argument("--replication", type=int, default=0, help="which instance")
    parser.add_argument("--policies", nargs="+", help="policy labels (default: the study's)")
    args = parser.parse_args()
    experiment = load_experiment(STUDY)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{args.jobs} jobs, 32 nodes, median of {args.repeat} alternating runs (CPU s)")
    print(f"{'level':<14}{'policy':<26}{'no faults':>10}{'faults':>10}{'ratio':>8}"
          f"{'re-plans':>10}")  # fmt: skip
    ratios = []
    for point in experiment.points:
        scenario = point.scenario
        if not scenario.faults.enabled:
            continue
        seed = replication_seed(experiment.seed, args.replication)
        child = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, args.jobs))
        instance, draws = generate_instance(scenario, args.jobs, np.random.default_rng(child))
        instance = with_arrivals(scenario, instance, draws)
        faults = draw_faults(scenario.faults, instance.nodes, instance.busy,
                             instance_fault_seed(child))  # fmt: skip
        values = point.values
        level = f"{values['faults.failures.rate']}/{values['faults.local_overruns.mean']}"
        criteria = scenario.criteria()
        if args.policies:
            criteria = [c for c in criteria if c.label in args.policies]
        for criterion in criteria:
            plain, faulty, replans = time_pair(instance, criterion, faults, scenario.priority,
                                               args.repeat)  # fmt: skip
            ratios.append(faulty / plain)
            print(f"{level:<14}{criterion.label:<26}{plain:>10.3f}{faulty:>10.3f}"
                  f"{faulty / plain:>8.2f}{replans:>10}")  # fmt: skip
    print(
        f"ratio over all levels and policies: median {statistics.median(ratios):.2f}, "
        f"largest {max(ratios):.2f} (target: at most 1.5)"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(
        "(level: faults.failures.rate/faults.local_overruns.mean; re-plans: reservations "
        "moved and killed jobs planned again)"
    )


if __name__ == "__main__":
    main()
