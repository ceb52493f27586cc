"""Run a batch scenario end to end until the generic runner takes over: ``python -m``.

Consumes a scenario YAML of kind ``batch``; produces ``runs.csv``, ``jobs.csv``, ``summary.csv``
and ``scenario.yaml`` (the resolved scenario with the root seed) in an output folder, and prints
the summary. Replication ``r`` uses child ``r`` of ``SeedSequence(scenario.seed)``.

    python -m gridsim.scheduling.batch.reproduce scenarios/batch-alp-amp.yaml results/batch
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from gridsim import __version__
from gridsim.scheduling.batch.experiment import BatchScenario, run_replication, summarise


def _run(args: tuple[BatchScenario, int, np.random.SeedSequence]) -> dict[str, pd.DataFrame]:
    return run_replication(*args)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--replications", type=int, help="override the scenario's count")
    parser.add_argument("--workers", type=int, default=1)
    options = parser.parse_args(argv)
    document = yaml.safe_load(options.scenario.read_text())
    if options.replications is not None:
        document["replications"] = options.replications
    scenario = BatchScenario.model_validate(document)
    seeds = np.random.SeedSequence(scenario.seed).spawn(scenario.replications)
    tasks = [(scenario, r, seed) for r, seed in enumerate(seeds)]
    with ProcessPoolExecutor(options.workers) as pool:
        results = list(pool.map(_run, tasks, chunksize=50))
    options.output.mkdir(parents=True, exist_ok=True)
    resolved = {**scenario.model_dump(mode="json"), "gridsim_version": __version__}
    (options.output / "scenario.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False))
    tables = {key: pd.concat([result[key] for result in results]) for key in ("runs", "jobs")}
    for key, table in tables.items():
        table.to_csv(options.output / f"{key}.csv", index=False)
    summary = summarise(tables["runs"])
    summary.to_csv(options.output / "summary.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(summary.T.to_string())
    return summary


if __name__ == "__main__":
    main()
