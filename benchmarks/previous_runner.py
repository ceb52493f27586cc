"""The runner before the result store (gridsim 0.2.0), kept as the baseline of
benchmarks/bench_sweep.py: replications streamed into one Parquet file per table.

Replications of a scenario, in parallel, written to a results folder that describes itself.

Consumes a validated scenario; produces the concatenated result tables (``runs`` and whatever
else the kind returns) and writes them as Parquet beside ``metadata.json`` (scenario text, seed,
replications, gridsim version, command line). Replication ``r`` always draws from
``SeedSequence(seed, spawn_key=(r,))``: its instance does not depend on how many replications
run, on ``--jobs``, or on the order they finish, so the same scenario and seed give the same
numbers bit for bit (only wall-clock columns such as ``search_time_s`` differ).

Given a folder, every table but ``runs`` is streamed to its Parquet file as replications
arrive (a row group per batch of about ``ROW_GROUP_ROWS`` rows), so memory does not grow with
the replications' per-job and per-task rows; only ``runs`` stays in memory for the summary.
Without a folder every table is kept in memory.

If a replication fails or the run is interrupted, the finished replications are still written
(the Parquet writers are closed on the way out, so the files stay valid) and ``metadata.json``
records the status and the error.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

import gridsim
from gridsim.analysis.stats import paired_comparison
from gridsim.experiments.kinds import kind_module

#: Tables kept in memory when writing to a folder (the summary and paired comparison need them).
IN_MEMORY = frozenset({"runs"})
#: Streamed rows (all tables together) gathered before they are written as row groups.
ROW_GROUP_ROWS = 250_000
#: Most replications a worker runs per task: a chunk's tables travel back (and sit in memory)
#: together, so a chunk growing with the replications would undo the streaming.
MAX_CHUNK = 8


class SchemaDriftError(ValueError):
    """A batch of replications cannot be appended to a streamed table without changing what
    the rows already written mean (a new column, text in a numeric column, 2.5 in an integer
    column)."""


def replication_seed(seed: int, replication: int) -> np.random.SeedSequence:
    """The seed of one replication: a child of the scenario seed, fixed by its index."""
    return np.random.SeedSequence(seed, spawn_key=(replication,))


class ResultTables(Mapping[str, pd.DataFrame]):
    """The tables of a run by name: those held in memory, and the streamed ones, read from
    their Parquet file on each access (a large sweep's ``jobs`` need not fit in memory)."""

    def __init__(self, frames: dict[str, pd.DataFrame], files: dict[str, Path] | None = None):
        self.frames = frames
        self.files = files or {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name in self.frames:
            return self.frames[name]
        return pd.read_parquet(self.files[name])

    def __iter__(self) -> Iterator[str]:
        return iter({**self.files, **self.frames})

    def __len__(self) -> int:
        return len(self.files.keys() | self.frames.keys())


@dataclass
class ExperimentResult:
    """Tables of a finished (or partly finished) experiment and where they were written."""

    tables: ResultTables
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
        replications: overrides the scenario's count.
        seed: overrides the scenario's seed.
        jobs: worker processes (default: all cores); 1 runs in this process.
        out_dir: where to write; nothing is written when None.
        executor_factory: builds the executor for ``jobs`` workers (a cluster engine's
            ``concurrent.futures`` executor fits here); default a local process pool.
    """
    replications = scenario.replications if replications is None else replications
    seed = scenario.seed if seed is None else seed
    jobs = jobs or os.cpu_count() or 1
    tasks = [(scenario, r, seed) for r in range(replications)]
    collector = _Collector(out_dir)
    status, error = "complete", None
    bar = tqdm(total=replications, desc=scenario.name, unit="rep", disable=not progress)
    try:
        try:
            for tables in _map(tasks, jobs, executor_factory):
                collector.add(tables)
                bar.update()
        finally:
            bar.close()
            collector.close()
    except KeyboardInterrupt:
        status, error = "interrupted", "interrupted by the user"
    except Exception as exc:  # keep what finished; the error goes in the metadata
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    frames = _concat(collector.kept)
    module = kind_module(scenario)
    summary = module.summarise(frames["runs"]) if "runs" in frames else pd.DataFrame()
    paired_metric = getattr(module, "PAIRED_METRIC", None)
    if paired_metric and "runs" in frames and frames["runs"]["policy"].nunique() > 1:
        baseline = str(frames["runs"]["policy"].iloc[0])
        frames["paired"] = paired_comparison(frames["runs"], paired_metric, baseline)
    tables = ResultTables(frames, collector.files)
    metadata = {
        "scenario": scenario.name,
        "kind": scenario.kind,
        "seed": seed,
        "replications_requested": replications,
        "replications_completed": len(collector.kept),
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
    """The in-memory tables as ``<name>.parquet``, the summary as CSV, and ``metadata.json``
    (streamed tables are already in their files)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, table in result.tables.frames.items():
        table.to_parquet(out_dir / f"{name}.parquet", index=False)
    result.summary.to_csv(out_dir / "summary.csv", index=False)
    (out_dir / "metadata.json").write_text(json.dumps(result.metadata, indent=2) + "\n")


class _Collector:
    """Gathers the replications' tables as they arrive, in replication order.

    Without a folder everything stays in memory (``kept``). With one, only the ``IN_MEMORY``
    tables do; the others are batched and appended to ``<name>.parquet``, all tables of a
    batch or none, so the files always hold the same replications as ``kept``.
    """

    def __init__(self, out_dir: Path | None) -> None:
        self.out_dir = out_dir
        self.kept: list[dict[str, pd.DataFrame]] = []
        self.files: dict[str, Path] = {}
        self._pending: list[dict[str, pd.DataFrame]] = []
        self._pending_rows = 0
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._empty: dict[str, pa.Table] = {}  # no rows yet: no schema to fix the file on
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)

    def add(self, tables: dict[str, pd.DataFrame]) -> None:
        if self.out_dir is None:
            self.kept.append(tables)
            return
        self._pending.append(tables)
        self._pending_rows += sum(len(t) for name, t in tables.items() if name not in IN_MEMORY)
        if self._pending_rows >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        """Append the pending replications; SchemaDriftError (nothing appended) if a table
        does not fit its file."""
        pending, self._pending, self._pending_rows = self._pending, [], 0
        if not pending:
            return
        first, last = len(self.kept), len(self.kept) + len(pending) - 1
        streamed = _concat([{n: t for n, t in p.items() if n not in IN_MEMORY} for p in pending])
        batch = {}
        for name, frame in streamed.items():
            writer = self._writers.get(name)
            try:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                batch[name] = table if writer is None else _conform(table, writer.schema)
            except (SchemaDriftError, pa.ArrowException) as exc:
                raise SchemaDriftError(
                    f"{name}.parquet: replications {first}-{last} cannot be written: {exc}"
                ) from exc
        for name, table in batch.items():
            if name not in self._writers and table.num_rows == 0:
                self._empty.setdefault(name, table)
            else:
                self._write(name, table)
        self.kept.extend({n: t for n, t in p.items() if n in IN_MEMORY} for p in pending)

    def close(self) -> None:
        """Write what is pending and close the files (valid Parquet whatever happened)."""
        try:
            self.flush()
            for name, table in self._empty.items():
                if name not in self._writers:
                    self._write(name, table)
        finally:
            for writer in self._writers.values():
                writer.close()

    def _write(self, name: str, table: pa.Table) -> None:
        if name not in self._writers:
            self.files[name] = self.out_dir / f"{name}.parquet"
            self._writers[name] = pq.ParquetWriter(self.files[name], table.schema)
        self._writers[name].write_table(table)


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with the columns and types of a file already written.

    Accepts what ``pd.concat`` of all replications would have unified without changing any
    value: a missing or all-null column (nulls), integers into a float column, floats with
    missing values into an integer column (read back as float, as concatenation gives),
    text of either width. Raises SchemaDriftError otherwise.
    """
    new = [name for name in table.column_names if name not in schema.names]
    if new:
        raise SchemaDriftError(f"new columns {new}")
    columns = []
    for name, target in zip(schema.names, schema.types, strict=True):
        if name not in table.column_names:
            columns.append(pa.nulls(len(table), target))
            continue
        column = table[name]
        if not _castable(column, target):
            raise SchemaDriftError(f"column {name!r} is {target} in the file, {column.type} here")
        columns.append(column.cast(target))  # safe: ArrowInvalid if a value would change
    return pa.Table.from_arrays(columns, schema=schema)


def _castable(column: pa.ChunkedArray, target: pa.DataType) -> bool:
    source, types = column.type, pa.types
    text = (types.is_string(source) or types.is_large_string(source)) and (
        types.is_string(target) or types.is_large_string(target)
    )
    return (
        source == target
        or types.is_null(source)
        or text
        or (types.is_integer(source) and types.is_floating(target))
        or (types.is_floating(source) and types.is_integer(target) and column.null_count > 0)
    )


def _map(tasks: list, jobs: int, executor_factory) -> Iterable[dict[str, pd.DataFrame]]:
    if jobs == 1 or len(tasks) <= 1:
        yield from map(_one_replication, tasks)
        return
    factory = executor_factory or (lambda workers: ProcessPoolExecutor(max_workers=workers))
    chunk = max(1, min(MAX_CHUNK, len(tasks) // (jobs * 8)))
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
