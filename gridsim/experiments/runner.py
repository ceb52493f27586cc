"""Replications of a scenario, in parallel, written to a results folder that describes itself.

Consumes a validated scenario; produces the concatenated result tables (``runs`` and whatever
else the kind returns) and writes them as Parquet beside ``metadata.json`` (scenario text, seed,
replications, gridsim version, command line). Replication ``r`` always draws from
``SeedSequence(seed, spawn_key=(r,))``: its instance does not depend on how many replications
run, on ``--jobs``, or on the order they finish, so the same scenario and seed give the same
numbers bit for bit (only wall-clock columns such as ``search_time_s`` differ).

If a replication fails or the run is interrupted, the finished replications are still written
and ``metadata.json`` records the status and the error.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

import gridsim
from gridsim.analysis.stats import paired_comparison
from gridsim.experiments.kinds import kind_module


def replication_seed(seed: int, replication: int) -> np.random.SeedSequence:
    """The seed of one replication: a child of the scenario seed, fixed by its index."""
    return np.random.SeedSequence(seed, spawn_key=(replication,))


@dataclass
class ExperimentResult:
    """Tables of a finished (or partly finished) experiment and where they were written."""

    tables: dict[str, pd.DataFrame]
    summary: pd.DataFrame
    status: str = "complete"
    error: str | None = None
    out_dir: Path | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def _one_replication(args: tuple[Any, int, int]) -> dict[str, pd.DataFrame]:
    scenario, replication, seed = args
    module = kind_module(scenario)
    return module.run_replication(scenario, replication, replication_seed(seed, replication))


def run_experiment(
    scenario: Any,
    scenario_text: str,
    *,
    replications: int | None = None,
    seed: int | None = None,
    jobs: int | None = None,
    out_dir: Path | None = None,
    command: str | None = None,
    progress: bool = True,
    executor_factory: Callable[[int], Executor] | None = None,
) -> ExperimentResult:
    """Run ``replications`` replications of ``scenario`` and write the results.

    Args:
        replications, seed: override the scenario's values.
        jobs: worker processes (default: all cores); 1 runs in this process.
        out_dir: where to write; nothing is written when None.
        executor_factory: builds the executor for ``jobs`` workers (a cluster engine's
            ``concurrent.futures`` executor fits here); default a local process pool.
    """
    replications = scenario.replications if replications is None else replications
    seed = scenario.seed if seed is None else seed
    jobs = jobs or os.cpu_count() or 1
    tasks = [(scenario, r, seed) for r in range(replications)]
    collected: list[dict[str, pd.DataFrame]] = []
    status, error = "complete", None
    bar = tqdm(total=replications, desc=scenario.name, unit="rep", disable=not progress)
    try:
        for tables in _map(tasks, jobs, executor_factory):
            collected.append(tables)
            bar.update()
    except KeyboardInterrupt:
        status, error = "interrupted", "interrupted by the user"
    except Exception as exc:  # keep what finished; the error goes in the metadata
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    finally:
        bar.close()
    tables = _concat(collected)
    module = kind_module(scenario)
    summary = module.summarise(tables["runs"]) if "runs" in tables else pd.DataFrame()
    paired_metric = getattr(module, "PAIRED_METRIC", None)
    if paired_metric and "runs" in tables and tables["runs"]["policy"].nunique() > 1:
        baseline = str(tables["runs"]["policy"].iloc[0])
        tables["paired"] = paired_comparison(tables["runs"], paired_metric, baseline)
    metadata = {
        "scenario": scenario.name,
        "kind": scenario.kind,
        "seed": seed,
        "replications_requested": replications,
        "replications_completed": len(collected),
        "status": status,
        "error": error,
        "gridsim_version": gridsim.__version__,
        "git_commit": _git_commit(),
        "command": command or " ".join(sys.argv),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scenario_text": scenario_text,
        "scenario_resolved": scenario.model_dump(mode="json"),
        "tables": sorted(tables),
    }
    result = ExperimentResult(tables, summary, status, error, out_dir, metadata)
    if out_dir is not None:
        write_results(result, out_dir)
    return result


def write_results(result: ExperimentResult, out_dir: Path) -> None:
    """Each table as ``<name>.parquet``, the summary as CSV, and ``metadata.json``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, table in result.tables.items():
        table.to_parquet(out_dir / f"{name}.parquet", index=False)
    result.summary.to_csv(out_dir / "summary.csv", index=False)
    (out_dir / "metadata.json").write_text(json.dumps(result.metadata, indent=2) + "\n")


def _map(tasks: list, jobs: int, executor_factory) -> Iterable[dict[str, pd.DataFrame]]:
    if jobs == 1 or len(tasks) <= 1:
        yield from map(_one_replication, tasks)
        return
    factory = executor_factory or (lambda workers: ProcessPoolExecutor(max_workers=workers))
    chunk = max(1, len(tasks) // (jobs * 8))
    with factory(jobs) as executor:
        yield from executor.map(_one_replication, tasks, chunksize=chunk)


def _concat(collected: list[dict[str, pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    names: list[str] = []
    for tables in collected:
        names.extend(name for name in tables if name not in names)
    return {
        name: pd.concat([t[name] for t in collected if name in t], ignore_index=True)
        for name in names
    }


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
