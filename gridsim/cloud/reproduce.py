"""Reproduction of [RRM, Sec. 5]: consumes a cloud scenario file, produces the per-policy
summary, the paired makespan comparison of the first two policies, and (optionally) CSV tables
and figures in an output folder.

Run: ``python -m gridsim.cloud.reproduce scenarios/cloud-federation-dytss.yaml [--out DIR]``.
Replications run in a local process pool; replication ``r`` uses
``SeedSequence([scenario.seed, r])``, so results do not depend on the number of workers.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.cloud.config import CloudScenario, policy_label
from gridsim.cloud.experiment import (
    load_scenario,
    paired_makespan_ratio,
    run_replication,
    summarise,
)

__all__ = ["replication_seed", "run_all"]


def replication_seed(scenario: CloudScenario, replication: int) -> np.random.SeedSequence:
    """The seed of replication ``replication``: independent of how replications are run."""
    return np.random.SeedSequence([scenario.seed, replication])


def _one(args: tuple[CloudScenario, int]) -> dict[str, pd.DataFrame]:
    scenario, replication = args
    return run_replication(scenario, replication, replication_seed(scenario, replication))


def run_all(
    scenario: CloudScenario, replications: int | None = None, workers: int = 1
) -> dict[str, pd.DataFrame]:
    """Every replication of ``scenario``, tables concatenated."""
    count = scenario.replications if replications is None else replications
    jobs = [(scenario, r) for r in range(count)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_one, jobs))
    else:
        results = [_one(job) for job in jobs]
    return {
        name: pd.concat([result[name] for result in results], ignore_index=True)
        for name in ("runs", "tasks", "progress")
    }


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scenario", type=Path)
    parser.add_argument("--replications", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args(argv)
    scenario = load_scenario(options.scenario)
    tables = run_all(scenario, options.replications, options.workers)
    summary = summarise(tables["runs"])
    with pd.option_context("display.width", 200, "display.max_columns", 12):
        print(summary[["policy", "replications", "makespan_s_mean", "makespan_s_ci95",
                       "failed_tasks_mean", "mean_samples_per_task_mean",
                       "mean_pilots_mean"]].to_string(index=False))
    labels = [policy_label(p) for p in scenario.policies]
    if len(labels) >= 2:
        comparison = paired_makespan_ratio(tables["runs"], labels[0], labels[1])
        print(f"paired over {int(comparison['replications'])} replications: "
              f"{labels[0]} lasts {100 * comparison['baseline_longer_mean']:.2f}% "
              f"± {100 * comparison['baseline_longer_ci95']:.2f}% longer than {labels[1]} "
              f"(makespan reduction {100 * comparison['reduction_mean']:.2f}% "
              f"± {100 * comparison['reduction_ci95']:.2f}%, "
              f"{labels[1]} better in {100 * comparison['policy_better_share']:.0f}% of runs)")
    if options.out is not None:
        from gridsim.cloud.plots import plot_overhead, plot_production, plot_task_sizes

        options.out.mkdir(parents=True, exist_ok=True)
        (options.out / "scenario.json").write_text(scenario.model_dump_json(indent=2))
        tables["runs"].to_csv(options.out / "runs.csv", index=False)
        summary.to_csv(options.out / "summary.csv", index=False)
        first = tables["progress"]["replication"] == 0
        plot_overhead().savefig(options.out / "overhead.png", dpi=120)
        plot_production(tables["progress"][first]).savefig(options.out / "production.png",
                                                           dpi=120)
        plot_task_sizes(tables["tasks"][tables["tasks"]["replication"] == 0]).savefig(
            options.out / "task_sizes.png", dpi=120)
        if len(labels) >= 2:
            (options.out / "comparison.json").write_text(json.dumps(comparison, indent=2))


if __name__ == "__main__":
    main()
