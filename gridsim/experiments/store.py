"""The result store: a results folder that grows chunk by chunk and can be resumed.

Consumes the tables of finished chunks (replications ``first..last`` of one point, every
policy); produces a folder that is a partitioned Parquet dataset per table plus a manifest::

    DIR/metadata.json                           the manifest (below)
    DIR/<table>/point=<p>/rep-<first>-<last>.parquet   one file per table and chunk
    DIR/summary.csv, DIR/paired.parquet         derived from the whole store after each run

Every file is written under a temporary name and renamed, so it is whole or absent; a chunk's
``runs`` file is renamed last, so a chunk is done exactly when its ``runs`` file exists (other
files of a chunk without one are leftovers of a killed run, removed when the folder is next
opened). Tables are read back in (point, replication) order, whatever order chunks finished
in, so any split of the work gives the same tables.

The manifest (``metadata.json``) holds the scenario's canonical hash, its text and resolved
form, the seed, the gridsim version, the points, the replications planned and done per point,
and the history of every invocation (command line, times, cells run and skipped, status).
A folder holds one experiment: opening it for another scenario, seed or gridsim version fails
with a :class:`StoreError` naming the difference, unless it is overwritten. A lock file keeps
two runs from writing into one folder at once.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from gridsim.experiments.cells import Chunk, from_ranges, ranges

#: Version of the folder layout written here; folders without it are of the earlier
#: one-file-per-table layout (read by load_results, never resumed).
STORE_FORMAT = 1
MANIFEST = "metadata.json"
LOCK = ".lock"
#: Tables derived from the whole store, rewritten after each run (not chunk tables).
DERIVED = ("summary.csv", "paired.parquet")
_CHUNK_FILE = re.compile(r"^rep-(\d+)-(\d+)\.parquet$")


class StoreError(ValueError):
    """A results folder cannot be used as asked; the one-line message names the folder."""


class SchemaDriftError(ValueError):
    """A chunk's table cannot join the rows already stored without changing what they mean
    (a new column, text in a numeric column, 2.5 in an integer column)."""


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


# ---- reading ---------------------------------------------------------------------------------


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest, or None when it has none."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise StoreError(f"{folder}: unreadable {MANIFEST}: {error}") from None


def is_store(manifest: dict[str, Any] | None) -> bool:
    return bool(manifest) and manifest.get("store_format") == STORE_FORMAT  # type: ignore[union-attr]


def committed_chunks(folder: Path) -> list[Chunk]:
    """The chunks whose ``runs`` file exists, in (point, first replication) order."""
    return sorted(_chunk_files(Path(folder) / "runs"), key=lambda c: (c.point, c.first))


def table_names(folder: Path) -> list[str]:
    """Names of the chunk tables in a store folder (``runs`` first)."""
    names = [p.name for p in Path(folder).iterdir() if p.is_dir() and _is_table_dir(p)]
    return sorted(names, key=lambda name: (name != "runs", name))


def read_table(sources: Iterable[tuple[Path, Chunk]], name: str) -> pd.DataFrame:
    """Table ``name`` of the given chunks, concatenated in the order given.

    Chunk files without rows are skipped unless every file is empty (their column types come
    from no value); chunk files missing for a table (a kind that wrote no such table for
    that chunk) are skipped.
    """
    tables, empty = [], None
    for folder, chunk in sources:
        path = chunk_path(folder, name, chunk)
        if not path.exists():
            continue
        table = pq.read_table(path)
        if table.num_rows:
            tables.append(table)
        elif empty is None:
            empty = table
    if not tables:
        return empty.to_pandas() if empty is not None else pd.DataFrame()
    schema = tables[0].schema
    conformed = [t if t.schema.equals(schema) else _conform(t, schema) for t in tables]
    return pa.concat_tables(conformed).to_pandas()


def chunk_path(folder: Path, name: str, chunk: Chunk) -> Path:
    return Path(folder) / name / f"point={chunk.point}" / f"{chunk.file_stem}.parquet"


def done_cells(folder: Path) -> dict[int, set[int]]:
    """Replications done per point, from the committed chunks."""
    done: dict[int, set[int]] = {}
    for chunk in committed_chunks(folder):
        done.setdefault(chunk.point, set()).update(chunk.replications)
    return done


# ---- the store of one run ---------------------------------------------------------------------


class MemoryStore:
    """Chunks kept in memory (a run without a results folder)."""

    path: Path | None = None

    def __init__(self) -> None:
        self.chunks: dict[Chunk, dict[str, pd.DataFrame]] = {}

    def done(self) -> dict[int, set[int]]:
        done: dict[int, set[int]] = {}
        for chunk in self.chunks:
            done.setdefault(chunk.point, set()).update(chunk.replications)
        return done

    def add(self, chunk: Chunk, tables: dict[str, pd.DataFrame]) -> None:
        self.chunks[chunk] = tables

    def table_names(self) -> list[str]:
        names: list[str] = []
        for tables in self.chunks.values():
            names.extend(n for n in tables if n not in names)
        return names

    def table(self, name: str) -> pd.DataFrame:
        ordered = sorted(self.chunks, key=lambda c: (c.point, c.first))
        parts = [self.chunks[c][name] for c in ordered if name in self.chunks[c]]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


class FolderStore:
    """A results folder opened for one run: locked, checked against the experiment, cleaned
    of leftovers of killed runs; chunks are added as they finish."""

    def __init__(self, path: Path, manifest: dict[str, Any], lock: Any) -> None:
        self.path = path
        self.manifest = manifest
        self._lock = lock
        self._schemas: dict[str, pa.Schema] = {}
        self._done = done_cells(path)

    @classmethod
    def open(cls, path: Path, manifest: dict[str, Any], overwrite: bool = False) -> FolderStore:
        """Open ``path`` for the experiment described by ``manifest`` (a fresh manifest
        without history); StoreError if it holds another experiment and not ``overwrite``."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise StoreError(f"{path}: exists and is not a folder")
        path.mkdir(parents=True, exist_ok=True)
        lock = acquire_lock(path)
        try:
            existing = read_manifest(path)
            if existing is not None and overwrite:
                clear(path)
                existing = None
            if existing is not None:
                difference = experiment_difference(existing, manifest, "in the folder", "asked")
                if difference:
                    raise StoreError(
                        f"{path}: holds another experiment ({difference}); "
                        "use --overwrite to replace it, or another folder"
                    )
                manifest = {**existing, **_fresh_fields(manifest)}
            elif any(_is_table_dir(p) for p in path.iterdir() if p.is_dir()):
                raise StoreError(f"{path}: holds result tables but no {MANIFEST}; "
                                 "use --overwrite to replace them, or another folder")  # fmt: skip
            remove_leftovers(path)
            store = cls(path, manifest, lock)
        except BaseException:
            release_lock(lock)
            raise
        return store

    def done(self) -> dict[int, set[int]]:
        return {point: set(reps) for point, reps in self._done.items()}

    def add(self, chunk: Chunk, tables: dict[str, pd.DataFrame]) -> None:
        """Write the chunk's tables (``runs`` last); SchemaDriftError, nothing written, if a
        table does not fit the rows already stored."""
        arrow = {}
        for name, frame in tables.items():
            table = pa.Table.from_pandas(frame, preserve_index=False)
            schema = self._schema(name)
            if schema is not None and table.num_rows:
                try:
                    table = _conform(table, schema)
                except (SchemaDriftError, pa.ArrowException) as exc:
                    raise SchemaDriftError(
                        f"{name}: point {chunk.point} replications {chunk.first}-{chunk.last} "
                        f"cannot be stored: {exc}"
                    ) from exc
            elif table.num_rows:
                self._schemas[name] = table.schema
            arrow[name] = table
        for name in sorted(arrow, key=lambda n: n == "runs"):
            write_atomically(arrow[name], chunk_path(self.path, name, chunk))
        self._done.setdefault(chunk.point, set()).update(chunk.replications)

    def table_names(self) -> list[str]:
        return table_names(self.path)

    def table(self, name: str) -> pd.DataFrame:
        return read_table(((self.path, c) for c in committed_chunks(self.path)), name)

    def write_manifest(self) -> None:
        self.manifest["done"] = {str(p): ranges(r) for p, r in sorted(self._done.items())}
        write_json(self.path / MANIFEST, self.manifest)

    def close(self) -> None:
        release_lock(self._lock)
        self._lock = None

    def _schema(self, name: str) -> pa.Schema | None:
        if name not in self._schemas:
            for chunk in committed_chunks(self.path):
                path = chunk_path(self.path, name, chunk)
                if path.exists() and pq.read_metadata(path).num_rows:
                    self._schemas[name] = pq.read_schema(path)
                    break
        return self._schemas.get(name)


# ---- manifests --------------------------------------------------------------------------------


def experiment_difference(
    stored: dict[str, Any], wanted: dict[str, Any], there: str = "there", here: str = "here"
) -> str | None:
    """What makes two manifests different experiments, in a few words (None if the same);
    ``there`` and ``here`` name the two sides."""
    if not is_store(stored):
        return "results of an earlier gridsim layout"
    if stored.get("gridsim_version") != wanted.get("gridsim_version"):
        return (f"gridsim {stored.get('gridsim_version')} {there}, "
                f"{wanted.get('gridsim_version')} {here}")  # fmt: skip
    if stored.get("seed") != wanted.get("seed"):
        return f"seed {stored.get('seed')} {there}, {wanted.get('seed')} {here}"
    if stored.get("scenario_hash") != wanted.get("scenario_hash"):
        where = first_difference(stored.get("identity"), wanted.get("identity"), there, here)
        name = stored.get("scenario")
        return f"scenario {name!r}, {where}" if where else f"scenario {name!r}"
    return None


def first_difference(
    old: Any, new: Any, there: str = "there", here: str = "here", path: str = ""
) -> str | None:
    """The first path where two JSON-like values differ, as ``path: old there, new here``."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            found = first_difference(old.get(key), new.get(key), there, here,
                                     f"{path}.{key}".lstrip("."))  # fmt: skip
            if found:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            found = first_difference(a, b, there, here, f"{path}.{index}".lstrip("."))
            if found:
                return found
        return None
    if old != new:
        shown = path.removeprefix("points.0.") if path.startswith("points.0.") else path
        return f"{shown or 'the scenario'}: {_short(old)} {there}, {_short(new)} {here}"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _fresh_fields(manifest: dict[str, Any]) -> dict[str, Any]:
    """Fields a resumed run refreshes (the rest, history above all, is kept)."""
    keep = ("history", "done", "planned")
    return {k: v for k, v in manifest.items() if k not in keep}


def write_json(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    temporary.write_text(json.dumps(data, indent=2, default=str) + "\n")
    os.replace(temporary, path)


def write_atomically(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, temporary)
    os.replace(temporary, path)


def planned_cells(manifest: dict[str, Any]) -> dict[int, set[int]]:
    return {int(p): from_ranges(r) for p, r in (manifest.get("planned") or {}).items()}


def add_planned(manifest: dict[str, Any], planned: dict[int, set[int]]) -> None:
    merged = planned_cells(manifest)
    for point, replications in planned.items():
        merged.setdefault(point, set()).update(replications)
    manifest["planned"] = {str(p): ranges(r) for p, r in sorted(merged.items())}


# ---- housekeeping -----------------------------------------------------------------------------


def remove_leftovers(folder: Path) -> None:
    """Temporary files and chunk files of chunks that never got their ``runs`` file."""
    done = set(committed_chunks(folder))
    for table_dir in (p for p in folder.iterdir() if p.is_dir() and _is_table_dir(p)):
        for point_dir in table_dir.iterdir():
            for file in point_dir.iterdir():
                temporary = file.name.startswith(".") and ".tmp-" in file.name
                chunk = _parse_chunk(point_dir, file)  # None: not a chunk file, not ours
                orphan = table_dir.name != "runs" and chunk is not None and chunk not in done
                if temporary or orphan:
                    file.unlink()
    for file in folder.glob(".*.tmp-*"):
        file.unlink()


def clear(folder: Path) -> None:
    """Remove what gridsim wrote in ``folder`` (and nothing else)."""
    for entry in folder.iterdir():
        if entry.is_dir() and _is_table_dir(entry):
            shutil.rmtree(entry)
        elif entry.name in (MANIFEST, *DERIVED) or (entry.suffix == ".parquet" and entry.is_file()):
            entry.unlink()


def acquire_lock(folder: Path) -> Any:
    """An exclusive lock on ``folder/.lock`` (released when the process ends, even killed);
    StoreError if another run holds it."""
    try:
        import fcntl
    except ImportError:  # no advisory locks on this platform: run unguarded
        return None
    handle = open(folder / LOCK, "a+")  # noqa: SIM115 (held until release_lock)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise StoreError(f"{folder}: another gridsim run is writing here ({holder}); "
                         "wait for it or choose another folder") from None  # fmt: skip
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}")
    handle.flush()
    return handle


def release_lock(handle: Any) -> None:
    if handle is not None:
        with contextlib.suppress(OSError):
            handle.truncate(0)
        handle.close()


def _is_table_dir(path: Path) -> bool:
    return any(child.name.startswith("point=") for child in path.iterdir())


def _chunk_files(table_dir: Path) -> Iterator[Chunk]:
    if not table_dir.is_dir():
        return
    for point_dir in table_dir.iterdir():
        if point_dir.name.startswith("point="):
            for file in point_dir.iterdir():
                chunk = _parse_chunk(point_dir, file)
                if chunk is not None:
                    yield chunk


def _parse_chunk(point_dir: Path, file: Path) -> Chunk | None:
    match = _CHUNK_FILE.match(file.name)
    if not match or not point_dir.name.startswith("point="):
        return None
    return Chunk(int(point_dir.name.removeprefix("point=")), int(match[1]), int(match[2]))


# ---- schemas ----------------------------------------------------------------------------------


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with the columns and types of the rows already stored.

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
            raise SchemaDriftError(f"column {name!r} is {target} in the store, {column.type} here")
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


# ---- several folders of one experiment --------------------------------------------------------


def combined_sources(
    folders: list[Path], manifests: list[dict[str, Any]]
) -> list[tuple[Path, Chunk]]:
    """The chunks of several folders of one experiment (shards), in (point, replication)
    order; StoreError if they are different experiments or hold a cell twice."""
    first = manifests[0]
    resolved = [Path(folder).resolve() for folder in folders]
    for index, folder in enumerate(resolved):
        if folder in resolved[:index]:
            raise StoreError(f"{folders[index]}: given twice")
    for folder, manifest in zip(folders[1:], manifests[1:], strict=True):
        difference = experiment_difference(manifest, first, f"in {folder}", f"in {folders[0]}")
        if difference:
            raise StoreError(f"{folder} and {folders[0]} are different experiments "
                             f"({difference})")  # fmt: skip
    owner: dict[tuple[int, int], Path] = {}
    sources = []
    for folder in folders:
        for chunk in committed_chunks(folder):
            for replication in chunk.replications:
                other = owner.setdefault((chunk.point, replication), folder)
                if other != folder:
                    raise StoreError(
                        f"{other} and {folder} overlap: both hold point {chunk.point} "
                        f"replication {replication} (shards must not share cells)"
                    )
            sources.append((folder, chunk))
    return sorted(sources, key=lambda source: (source[1].point, source[1].first))
