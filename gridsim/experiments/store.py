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
from typing import TYPE_CHECKING, Any

from gridsim.analysis.tables import Table, arrow_rows, concat, csv_text, to_arrow, to_pandas
from gridsim.experiments.cells import Chunk, from_ranges, ranges

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

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


def read_manifest(folder: Path, integrity: bool = True) -> dict[str, Any] | None:
    """The folder's manifest, or None when it has none; StoreError naming the file and
    field if it cannot be used (:func:`gridsim.experiments.manifests.check_manifest`)."""
    from gridsim.experiments.manifests import check_manifest

    path = Path(folder) / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise StoreError(f"{path}: unreadable ({error})") from None
    return check_manifest(path, manifest, integrity)


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
    return read_arrow_table(sources, name).to_pandas()


def read_arrow_table(sources: Iterable[tuple[Path, Chunk]], name: str) -> pa.Table:
    """:func:`read_table` as an Arrow table (no pandas needed; no columns if no file)."""
    import pyarrow as pa

    tables, empty = [], None
    for folder, chunk in sources:
        path = chunk_path(folder, name, chunk)
        if not path.exists():
            continue
        table = read_parquet(path)
        if table.num_rows:
            tables.append(table)
        elif empty is None:
            empty = table
    if not tables:
        return empty if empty is not None else pa.table({})
    schema = tables[0].schema
    conformed = [t if t.schema.equals(schema) else _conform(t, schema) for t in tables]
    return pa.concat_tables(conformed)


def read_parquet(path: Path) -> pa.Table:
    """The Parquet file at ``path``; StoreError naming it if it is damaged (cut short,
    overwritten, not Parquet)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:  # one file: ParquetFile reads it without loading pyarrow.dataset (start-up)
        with pq.ParquetFile(path) as parquet:
            return parquet.read()
    except (pa.ArrowException, OSError) as error:
        raise StoreError(f"{path}: {damage(error)}; running the scenario into its results "
                         "folder again recomputes its cells") from None  # fmt: skip


def damage(error: BaseException) -> str:
    """What is wrong with a Parquet file, from the error reading it (without its path)."""
    text = " ".join(str(error).split())
    text = re.sub(r"^Could not open Parquet input source '[^']*': ", "", text)
    text = text.replace("Parquet magic bytes not found in footer. Either the file is corrupted "
                        "or this is not a parquet file", "not Parquet, or cut short")  # fmt: skip
    text = text.replace("Parquet file size is 0 bytes", "empty")
    return f"damaged Parquet file ({text.rstrip('.')})"


def damaged_files(folder: Path, chunks: Iterable[Chunk]) -> list[tuple[Path, str]]:
    """The files of ``chunks`` whose Parquet footer cannot be read, with what is wrong.

    Cost: one footer read per file (damage inside a readable footer shows when the table is
    read, by :func:`read_parquet`).
    """
    names = table_names(folder) if Path(folder).is_dir() else []
    if not names:  # a new folder: no pyarrow needed yet
        return []
    import pyarrow as pa
    import pyarrow.parquet as pq

    found = []
    for chunk in chunks:
        for name in names:
            path = chunk_path(folder, name, chunk)
            if path.exists():
                try:
                    pq.read_metadata(path)
                except (pa.ArrowException, OSError) as error:
                    found.append((path, damage(error)))
    return found


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
    """Chunks kept in memory (a run without a results folder), with the run's metadata as a
    folder would hold it (``manifest``, written nowhere)."""

    path: Path | None = None

    def __init__(self, manifest: dict[str, Any] | None = None) -> None:
        self.chunks: dict[Chunk, dict[str, pd.DataFrame]] = {}
        self.manifest: dict[str, Any] = {} if manifest is None else manifest

    def write_manifest(self) -> None:
        """Nothing to write: the manifest is returned with the result."""

    def done(self) -> dict[int, set[int]]:
        done: dict[int, set[int]] = {}
        for chunk in self.chunks:
            done.setdefault(chunk.point, set()).update(chunk.replications)
        return done

    def add(self, chunk: Chunk, tables: dict[str, Table]) -> None:
        self.chunks[chunk] = tables

    def table_names(self) -> list[str]:
        names: list[str] = []
        for tables in self.chunks.values():
            names.extend(n for n in tables if n not in names)
        return names

    def table(self, name: str) -> pd.DataFrame:
        return to_pandas(self.stored_table(name))

    def stored_table(self, name: str) -> Table:
        """Table ``name`` as the kind built it (Arrow or pandas); no columns if none."""
        ordered = sorted(self.chunks, key=lambda c: (c.point, c.first))
        parts = [self.chunks[c][name] for c in ordered if name in self.chunks[c]]
        return concat(parts) if parts else arrow_rows([])


class FolderStore:
    """A results folder opened for one run: locked, checked against the experiment, cleaned
    of leftovers of killed runs; chunks are added as they finish."""

    def __init__(self, path: Path, manifest: dict[str, Any], lock: Any) -> None:
        self.path = path
        self.manifest = manifest
        self._lock = lock
        self._schemas: dict[str, pa.Schema] = {}
        self._done = done_cells(path)
        #: Damaged chunk files found on opening (their chunks were dropped, to run again).
        self.damaged: list[tuple[Path, str]] = []
        #: Whether opening the store created the folder.
        self.created = False

    @classmethod
    def open(cls, path: Path, manifest: dict[str, Any], overwrite: bool = False) -> FolderStore:
        """Open ``path`` for the experiment described by ``manifest`` (a fresh manifest
        without history); StoreError if it holds another experiment and not ``overwrite``."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise StoreError(f"{path}: exists and is not a folder")
        outer = enclosing_results_folder(path)
        if outer is not None:
            raise StoreError(f"{path}: is inside the results folder {os.path.relpath(outer)}; "
                             "name a folder outside it")  # fmt: skip
        gridsims = path.is_dir() and ((path / MANIFEST).exists() or any(
            _is_table_dir(p) for p in path.iterdir() if p.is_dir()
        ))  # fmt: skip
        if path.is_dir() and not gridsims:
            _check_no_other_files(path)
        created = not path.exists()
        path.mkdir(parents=True, exist_ok=True)
        lock = None
        try:
            lock = acquire_lock(path)
            if gridsims and overwrite:
                clear(path)
            elif gridsims:
                existing = read_manifest(path, integrity=False)
                if existing is None:
                    raise StoreError(f"{path}: holds result tables but no {MANIFEST}; use "
                                     "--overwrite to replace them, or another folder")  # fmt: skip
                difference = experiment_difference(existing, manifest, "in the folder", "asked")
                if difference:
                    raise StoreError(
                        f"{path}: holds another experiment ({difference}); "
                        "use --overwrite to replace it, or another folder"
                    )
                manifest = {**existing, **_fresh_fields(manifest)}
            remove_leftovers(path)
            damaged = drop_damaged_chunks(path)
            store = cls(path, manifest, lock)
            store.damaged = damaged
            store.created = created
        except BaseException:
            release_lock(lock)
            if created:
                _remove_unused(path)
            raise
        return store

    def done(self) -> dict[int, set[int]]:
        return {point: set(reps) for point, reps in self._done.items()}

    def add(self, chunk: Chunk, tables: dict[str, Table]) -> None:
        """Write the chunk's tables (``runs`` last); SchemaDriftError, nothing written, if a
        table does not fit the rows already stored."""
        import pyarrow as pa

        arrow = {}
        for name, frame in tables.items():
            table = to_arrow(frame)
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
        return self.stored_table(name).to_pandas()

    def stored_table(self, name: str) -> pa.Table:
        """Table ``name`` as the files hold it (Arrow); no columns if none."""
        return read_arrow_table(((self.path, c) for c in committed_chunks(self.path)), name)

    def write_manifest(self) -> None:
        self.manifest["done"] = {str(p): ranges(r) for p, r in sorted(self._done.items())}
        write_json(self.path / MANIFEST, self.manifest)

    def close(self) -> None:
        """Release the lock; a folder this run created and never wrote a manifest into (its
        first write failed) is removed, not left empty."""
        release_lock(self._lock)
        self._lock = None
        if self.created and not (self.path / MANIFEST).exists():
            _remove_unused(self.path)

    def _schema(self, name: str) -> pa.Schema | None:
        import pyarrow.parquet as pq

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
    if stored.get("jobs_schema", 1) != wanted.get("jobs_schema", 1):
        return (f"jobs table of schema {stored.get('jobs_schema', 1)} {there} (an earlier "
                f"gridsim), {wanted.get('jobs_schema', 1)} {here}")  # fmt: skip
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


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary file to write ``path`` as, renamed onto it once whole. When writing fails
    (a full disk, ``ulimit -f``) the temporary file is removed, ``path`` is left as it was,
    and the error names ``path`` (:func:`gridsim.errors.writing`)."""
    from gridsim.errors import writing

    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with writing(path):
            yield temporary
            os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_json(path: Path, data: dict[str, Any]) -> None:
    with replacing(path) as temporary:
        temporary.write_text(json.dumps(data, indent=2, default=str) + "\n")


def write_atomically(table: pa.Table, path: Path) -> None:
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as temporary:
        pq.write_table(table, temporary)


def write_csv(table: Table, path: Path) -> None:
    """``table`` as ``DataFrame.to_csv(index=False)`` writes it, Arrow tables too."""
    with replacing(path) as temporary:
        temporary.write_text(csv_text(table), newline="")


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
                temporary = _temporary(file)
                chunk = _parse_chunk(point_dir, file)  # None: not a chunk file, not ours
                orphan = table_dir.name != "runs" and chunk is not None and chunk not in done
                if temporary or orphan:
                    file.unlink()
    for file in folder.glob(".*.tmp-*"):
        file.unlink()


def enclosing_results_folder(path: Path, itself: bool = False) -> Path | None:
    """The results folder ``path`` lies in (or, with ``itself``, is), if any: a file written
    there could replace one of its tables or its metadata."""
    absolute = Path(path).absolute()
    for place in ([absolute] if itself else []) + list(absolute.parents):
        if (place / MANIFEST).is_file() and (
            (place / "runs").is_dir() or (place / "runs.parquet").is_file()
        ):
            return place
    return None


def _remove_unused(folder: Path) -> None:
    """Remove a folder that holds nothing but the lock (kept if anything else is there)."""
    with contextlib.suppress(OSError):
        (folder / LOCK).unlink(missing_ok=True)
        folder.rmdir()


def _check_no_other_files(folder: Path) -> None:
    """StoreError if ``folder`` (not a results folder) holds anything but hidden files (a
    lock, leftover temporaries, marks): results are not mixed into a folder of other files."""
    others = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise StoreError(f"{folder}: not empty ({shown}) and not a results folder; name a "
                         "new or empty folder")  # fmt: skip


def _temporary(path: Path) -> bool:
    """A file being written (or left by a killed run): renamed into place when whole."""
    return path.name.startswith(".") and ".tmp-" in path.name


def drop_damaged_chunks(folder: Path) -> list[tuple[Path, str]]:
    """Remove the chunks one of whose files is damaged (so that their cells run again);
    the damaged files and what was wrong with each."""
    damaged = damaged_files(folder, committed_chunks(folder))
    for path, _ in damaged:
        chunk = _parse_chunk(path.parent, path)
        if chunk is not None:
            chunk_path(folder, "runs", chunk).unlink(missing_ok=True)
    if damaged:
        remove_leftovers(folder)  # the other files of the dropped chunks
    return damaged


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
    with contextlib.suppress(OSError):  # unbuffered: a full disk shows at the first real write
        os.ftruncate(handle.fileno(), 0)
        os.write(handle.fileno(), f"pid {os.getpid()}".encode())
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
    import pyarrow as pa

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
    import pyarrow as pa

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
