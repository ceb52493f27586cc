"""Run an experiment: the missing cells of its points, in chunks, into a result store.

Consumes an :class:`~gridsim.experiments.grid.Experiment` (or one validated scenario), the
replications wanted (a count, a range, a shard of a range) and where to run them
(:mod:`gridsim.experiments.executors`); produces its result tables, written chunk by chunk to
a results folder (:mod:`gridsim.experiments.store`) or kept in memory without one.

Replication ``r`` of every point draws from ``SeedSequence(seed, spawn_key=(r,))``: its
instance depends neither on how many replications run, nor on ``--jobs``, the executor, the
shard or the order chunks finish, so the same experiment and seed give the same tables bit for
bit however the work is split, interrupted and resumed (only wall-clock columns such as
``search_time_s`` differ). Points share replication seeds (common random numbers across the
grid: at a given replication, two load levels see the same nodes).

On a folder of the same experiment and seed the run resumes: cells done are skipped. A chunk
that fails stops the run (status ``failed``), Ctrl-C stops it within a couple of seconds
(status ``interrupted``); either way every finished chunk is kept and the manifest records
the invocation.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import gridsim
from gridsim.analysis.tables import (
    Table,
    arrow_array,
    column,
    column_names,
    concat,
    first_appearance,
    groups,
    insert_column,
    is_arrow,
    key_values,
    row_count,
    table_like,
    take,
    to_arrow,
    to_pandas,
)
from gridsim.experiments import cells as cell_sets
from gridsim.experiments.cells import Chunk
from gridsim.experiments.executors import ChunkExecutor, open_executor
from gridsim.experiments.grid import Experiment, experiment_of
from gridsim.experiments.kinds import kind_module
from gridsim.experiments.manifests import installed_versions, resumed_with_other_versions
from gridsim.experiments.progress import progress_bar
from gridsim.experiments.rejections import rejection_rows
from gridsim.experiments.store import (
    STORE_FORMAT,
    FolderStore,
    MemoryStore,
    SchemaDriftError,
    add_planned,
    now,
    write_atomically,
    write_csv,
)

if TYPE_CHECKING:
    import pandas as pd

#: Most replications a worker runs per chunk: a chunk's tables travel back (and sit in memory)
#: together, so a chunk growing with the replications would undo the streaming.
MAX_CHUNK = 8
#: Chunks kept submitted per worker: enough to keep workers busy, few to cancel on Ctrl-C.
IN_FLIGHT_PER_WORKER = 2

__all__ = ["ExperimentResult", "SchemaDriftError", "replication_seed", "run_experiment"]


def replication_seed(seed: int, replication: int) -> np.random.SeedSequence:
    """The seed of one replication: a child of the scenario seed, fixed by its index."""
    return np.random.SeedSequence(seed, spawn_key=(replication,))


class ResultTables(Mapping[str, "pd.DataFrame"]):
    """The tables of a run by name: derived ones held in memory, chunk tables read from the
    store on each access (a large sweep's ``jobs`` need not fit in memory)."""

    def __init__(self, store: Any, derived: dict[str, Table]) -> None:
        self.store = store
        self.frames = derived
        self._names = [*store.table_names(), *derived]

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name in self.frames:
            return to_pandas(self.frames[name])
        if name not in self._names:
            raise KeyError(name)
        return self.store.table(name)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._names))

    def __len__(self) -> int:
        return len(dict.fromkeys(self._names))


@dataclass
class ExperimentResult:
    """Tables of a finished (or partly finished) experiment and where they were written.

    Attributes:
        cells_run: (point, replication) cells this invocation ran.
        cells_skipped: cells of the request already in the folder (resumed run).
        exception: what stopped a failed run (a worker's traceback chained to it).
    """

    tables: ResultTables
    summary: Table
    status: str = "complete"
    error: str | None = None
    out_dir: Path | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    cells_run: int = 0
    cells_skipped: int = 0
    exception: BaseException | None = None


def run_experiment(
    scenario: Any,
    scenario_text: str | None = None,
    *,
    replications: int | range | None = None,
    shard: tuple[int, int] | None = None,
    seed: int | None = None,
    jobs: int | None = None,
    cluster: str | None = None,
    out_dir: Path | None = None,
    overwrite: bool = False,
    command: str | None = None,
    progress: bool | None = None,
    say: Callable[[str], None] | None = None,
) -> ExperimentResult:
    """Run the missing cells of an experiment and return its tables.

    Args:
        scenario: an :class:`Experiment`, or one validated scenario (with ``scenario_text``).
        replications: a count (replications ``0..N-1``) or a range; default the scenario's.
        shard: ``(I, K)``: only the I-th of K contiguous slices of those replications.
        seed: overrides the scenario's seed.
        jobs: local worker processes (default: all cores); 1 runs in this process.
        cluster: a Dask cluster instead, ``local:N`` or ``tcp://HOST:PORT``.
        out_dir: the results folder (resumed if it holds this experiment); None: in memory.
        overwrite: replace a folder that holds another experiment.
        progress: show a progress bar; None: only when stderr is a terminal
            (:mod:`gridsim.experiments.progress`).
        say: receives one-line notes for the user (cells skipped on resume).

    Raises:
        StoreError: the folder holds another experiment, or another run is writing there.
        ExecutorError: the cluster cannot be reached or Dask is missing.
    """
    experiment = scenario if isinstance(scenario, Experiment) else experiment_of(
        scenario, scenario_text or ""
    )  # fmt: skip
    seed = experiment.seed if seed is None else seed
    wanted = replications if replications is not None else experiment.replications
    wanted = range(wanted) if isinstance(wanted, int) else wanted
    if shard is not None:
        wanted = cell_sets.shard_of(wanted, *shard)
    planned = {point.index: set(wanted) for point in experiment.points}
    manifest = new_manifest(experiment, seed)
    store: Any = MemoryStore(manifest) if out_dir is None else FolderStore.open(
        Path(out_dir), manifest, overwrite
    )  # fmt: skip
    try:
        return _run(experiment, seed, planned, store, wanted, shard, jobs, cluster, command,
                    progress, say)  # fmt: skip
    finally:
        if isinstance(store, FolderStore):
            store.close()


def _run(experiment, seed, planned, store, wanted, shard, jobs, cluster, command, progress,
         say) -> ExperimentResult:  # fmt: skip
    done = store.done()
    missing = {p: reps - done.get(p, set()) for p, reps in planned.items()}
    missing = {p: reps for p, reps in missing.items() if reps}
    skipped = sum(len(reps & done.get(p, set())) for p, reps in planned.items())
    to_run = sum(len(reps) for reps in missing.values())
    damaged = getattr(store, "damaged", [])
    if damaged and say:
        first, why = damaged[0]
        more = f" (and {len(damaged) - 1} more)" if len(damaged) > 1 else ""
        say(f"{first}: {why}{more}; its cells run again")
    if skipped and say:
        say(f"{store.path}: {skipped} of {skipped + to_run} cells (point, replication) already "
            f"done, running the {to_run} missing")  # fmt: skip
    versions = store.manifest["dependencies"]
    changed = resumed_with_other_versions(store.manifest, versions) if any(done.values()) else None
    if changed and say:
        say(f"{store.path}: warning: its cells were computed with other versions ({changed}); "
            "the cells run now may not match them bit for bit")  # fmt: skip
    entry = {
        "command": command or " ".join(sys.argv),
        "started": now(),
        "replications": f"{wanted.start}:{wanted.stop}",
        "shard": f"{shard[0]}/{shard[1]}" if shard else None,
        "cells_skipped": skipped,
        "dependencies": versions,
    }
    if experiment.overrides:
        entry["overrides"] = list(experiment.overrides)
    manifest = store.manifest  # a folder's holds its earlier invocations too
    add_planned(manifest, planned)
    manifest.setdefault("history", []).append(entry)
    store.write_manifest()
    status, error, ran, failure = "complete", None, 0, None
    if to_run:
        executor = None
        try:
            executor = open_executor(jobs, cluster, to_run)
            entry["executor"] = executor.description
            size = cell_sets.chunk_size(to_run, executor.workers, MAX_CHUNK)
            chunks = list(cell_sets.plan_chunks(missing, size))
            ran = _dispatch(experiment, seed, chunks, store, executor, progress, to_run)
        except _Stopped as stop:
            status, error, ran, failure = stop.status, stop.error, stop.ran, stop.__cause__
        finally:
            if executor is not None:
                executor.close()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main_thread() else None
    try:
        result = _finish(experiment, store, entry, status, error, ran, skipped)
        result.exception = failure
        return result
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


class _Stopped(Exception):
    def __init__(self, status: str, error: str, ran: int) -> None:
        super().__init__(error)
        self.status, self.error, self.ran = status, error, ran


def _dispatch(experiment: Experiment, seed: int, chunks: list[Chunk], store: Any,
              executor: ChunkExecutor, progress: bool | None, total: int) -> int:  # fmt: skip
    """Submit chunks (a few per worker at a time), store each as it finishes; the cells run.

    Finished chunks are stored in submission order, and every chunk that finished is stored
    before a failure or Ctrl-C stops the run.
    """
    bar = progress_bar(total, experiment.name, executor.description, progress)
    queue = iter(chunks)
    running: dict[Future, Chunk] = {}
    ran = 0

    def store_finished(futures) -> None:
        nonlocal ran
        for future in [f for f in running if f in futures]:  # submission order
            chunk = running.pop(future)
            store.add(chunk, future.result())
            ran += chunk.size
            bar.update(chunk.size)

    try:
        while True:
            while len(running) < executor.workers * IN_FLIGHT_PER_WORKER:
                chunk = next(queue, None)
                if chunk is None:
                    break
                point = experiment.points[chunk.point]
                future = executor.submit(run_chunk, point.scenario, chunk, seed,
                                         experiment.columns(point))  # fmt: skip
                running[future] = chunk
            if not running:
                return ran
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            store_finished(finished)
    except KeyboardInterrupt:
        executor.stop()
        _store_what_finished(store_finished, running)
        raise _Stopped("interrupted", "interrupted by the user", ran) from None
    except Exception as exc:  # keep what finished; the error goes in the manifest
        executor.stop()
        _store_what_finished(store_finished, running)
        raise _Stopped("failed", f"{type(exc).__name__}: {exc}", ran) from exc
    finally:
        bar.close()


def _store_what_finished(store_finished, running: dict[Future, Chunk]) -> None:
    """After a stop: store the chunks that had finished without error, up to the first that
    failed (the rest were cancelled or lost with their workers)."""
    succeeded = set()
    for future in running:
        if not future.done() or future.cancelled() or future.exception() is not None:
            break
        succeeded.add(future)
    with contextlib.suppress(Exception):  # the stop's own error is the one to report
        store_finished(succeeded)


def run_chunk(
    scenario: Any, chunk: Chunk, seed: int, columns: list[tuple[str, Any, str]]
) -> dict[str, Table]:
    """A chunk's replications of one point (runs in a worker): the kind's tables,
    concatenated, with the point's values as columns. A kind with ``replication_tables``
    gives Arrow tables (built without pandas), the others DataFrames."""
    module = kind_module(scenario)
    replicate = getattr(module, "replication_tables", module.run_replication)
    parts = [replicate(scenario, r, replication_seed(seed, r)) for r in chunk.replications]
    return {name: with_point_columns(table, columns) for name, table in _concat(parts).items()}


#: Point column types an Arrow table takes as they are; the others (nullable integers and
#: booleans, text) go through pandas, whose schema metadata says how they read back.
ARROW_POINT_TYPES = ("int64", "float64", "bool")


def with_point_columns(table: Table, columns: list[tuple[str, Any, str]]) -> Table:
    """``table`` with a column per swept path (after ``scenario`` when there is one); paths
    the kind already writes (``queue_size``) are left as the kind wrote them."""
    names = column_names(table)
    added = [(path, value, dtype) for path, value, dtype in columns if path not in names]
    if not added:
        return table
    position = names.index("scenario") + 1 if "scenario" in names else 0
    if is_arrow(table) and all(dtype in ARROW_POINT_TYPES for _, _, dtype in added):
        for offset, (path, value, dtype) in enumerate(added):
            values = np.full(table.num_rows, value, dtype=dtype)
            table = table.add_column(position + offset, path, arrow_array(values))
        return table
    import pandas as pd

    table = to_pandas(table).copy()
    for offset, (path, value, dtype) in enumerate(added):
        table.insert(position + offset, path, pd.Series([value] * len(table), dtype=dtype))
    return table


def _finish(experiment: Experiment, store: Any, entry: dict[str, Any], status: str,
            error: str | None, ran: int, skipped: int) -> ExperimentResult:  # fmt: skip
    module = kind_module(experiment.scenario)
    names = store.table_names()
    runs = store.stored_table("runs")
    if not _summarised_as_arrow(experiment, module):
        runs = to_pandas(runs)
    summary = summarise_points(module, runs, experiment.axes)
    derived = derived_tables(module, runs, experiment.axes,
                             getattr(experiment.scenario, "baseline", None))  # fmt: skip
    done = store.done()
    planned = {p.index for p in experiment.points}
    completed = min((len(done.get(p, ())) for p in planned), default=0)
    entry.update(finished=now(), status=status, error=error, cells_run=ran)
    manifest = store.manifest
    requested = max((len(r) for r in _planned(manifest).values()), default=0)
    manifest.update(
        status=status,
        error=error,
        command=entry["command"],
        replications_requested=requested,
        replications_completed=completed,
        tables=sorted({*names, *derived}),
        rejections=rejection_rows(getattr(module, "REJECTIONS", ()), runs, experiment.axes),
    )
    if isinstance(store, FolderStore):
        write_csv(summary, store.path / "summary.csv")
        (store.path / "paired.parquet").unlink(missing_ok=True)
        for name, table in derived.items():
            write_atomically(to_arrow(table), store.path / f"{name}.parquet")
        store.write_manifest()
    return ExperimentResult(ResultTables(store, derived), summary, status, error,
                            store.path, manifest, ran, skipped)  # fmt: skip


def _summarised_as_arrow(experiment: Experiment, module: Any) -> bool:
    """Whether the runs are summarised as Arrow tables, without pandas: for a kind that
    builds them (``replication_tables``) when every point column is one
    (:data:`ARROW_POINT_TYPES`); else as DataFrames."""
    point_types = {dtype for point in experiment.points for _, _, dtype in
                   experiment.columns(point)}  # fmt: skip
    return hasattr(module, "replication_tables") and point_types <= set(ARROW_POINT_TYPES)


def _planned(manifest: dict[str, Any]) -> dict[int, set[int]]:
    from gridsim.experiments.store import planned_cells

    return planned_cells(manifest)


def summarise_points(module: Any, runs: Table, axes: tuple[str, ...]) -> Table:
    """The kind's summary per point (point columns first, when not already there)."""
    if row_count(runs) == 0:
        return table_like([], runs)
    keys = [a for a in axes if a in column_names(runs)]
    if not keys:
        return module.summarise(runs)
    parts = []
    for values, positions in groups(runs, keys):
        summary = module.summarise(take(runs, positions))
        for offset, (key, value) in enumerate(zip(keys, values, strict=True)):
            if key not in column_names(summary):
                summary = insert_column(summary, offset, key, value)
        parts.append(summary)
    return concat(parts)


def derived_tables(
    module: Any, runs: Table, axes: tuple[str, ...], baseline: str | None = None
) -> dict[str, Any]:
    """``paired``: every policy against the scenario's ``baseline`` (else the first policy)
    on the kind's paired metric (the first of its declaration's ``paired_metrics``), per
    point."""
    from gridsim.analysis.stats import baseline_policy, comparison_keys, paired_comparison

    metrics = module.DECLARATION.paired_metrics
    if not metrics or row_count(runs) == 0 or len(first_appearance(key_values(runs, "policy"))) < 2:
        return {}
    metric = metrics[0]
    runs = module.DECLARATION.comparable_runs(runs)
    if "comparable" in column_names(runs):
        runs = take(runs, np.flatnonzero(column(runs, "comparable").astype(bool)))
    if row_count(runs) == 0:
        return {}
    # per point, and per goal of a batch cycle (comparison_keys): never averaged across them
    keys = [key for key in comparison_keys(runs, list(axes)) if key != "policy"]
    reference = baseline_policy(baseline, first_appearance(key_values(runs, "policy")))
    return {"paired": paired_comparison(runs, metric, str(reference), keys)}


def new_manifest(experiment: Experiment, seed: int) -> dict[str, Any]:
    """What a results folder records about the experiment (history and cells come later)."""
    from gridsim.sim.trace import JOBS_SCHEMA

    return {
        "store_format": STORE_FORMAT,
        "jobs_schema": JOBS_SCHEMA,
        "scenario": experiment.name,
        "kind": experiment.kind,
        "seed": seed,
        "scenario_hash": experiment.scenario_hash(),
        "gridsim_version": gridsim.__version__,
        "git_commit": _git_commit(),
        "dependencies": installed_versions(),
        "axes": list(experiment.axes),
        "points": [{"point": p.index, **p.values} for p in experiment.points],
        "scenario_text": experiment.text,
        "scenario_resolved": experiment.scenario.model_dump(mode="json"),
        "identity": experiment.identity(),
    }


def _concat(collected: list[dict[str, Table]]) -> dict[str, Table]:
    names: list[str] = []
    for tables in collected:
        names.extend(name for name in tables if name not in names)
    return {name: concat([t[name] for t in collected if name in t]) for name in names}


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    # In a repository without commits git prints "HEAD" and fails: no commit to record.
    return (out.stdout.strip() or None) if out.returncode == 0 else None
