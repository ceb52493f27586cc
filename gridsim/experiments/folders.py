"""Results folders as a whole: merge shards into one folder, describe what a folder holds.

Consumes result stores (:mod:`gridsim.experiments.store`); produces a merged store whose
tables are those a single run of all the cells would give (``gridsim merge``), and a plain
text account of a folder: per point, the cells done and missing, the scenario and every
invocation with its command line and time (``gridsim status``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from gridsim.experiments import cells as cell_sets
from gridsim.experiments.manifests import format_versions, manifest_versions, version_changes
from gridsim.experiments.store import (
    MANIFEST,
    FolderStore,
    StoreError,
    chunk_path,
    combined_sources,
    committed_chunks,
    damaged_files,
    done_cells,
    is_store,
    planned_cells,
    read_manifest,
    table_names,
)


def store_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of a result store; StoreError naming the folder otherwise."""
    folder = Path(folder)
    if not folder.is_dir():
        raise StoreError(f"{folder}: {'not a folder' if folder.exists() else 'no such folder'}")
    manifest = read_manifest(folder)
    if manifest is None:
        raise StoreError(f"{folder}: not a gridsim results folder (no {MANIFEST})")
    if not is_store(manifest):
        raise StoreError(f"{folder}: results of an earlier gridsim layout (one file per table); "
                         "rerun the scenario to get a resumable store")  # fmt: skip
    return manifest


def merge(folders: list[Path], out: Path, command: str) -> dict[str, Any]:
    """Copy the chunks of ``folders`` (one experiment, disjoint cells) into ``out``.

    Returns the merged manifest. Raises StoreError when the folders are different
    experiments, share a cell, or ``out`` is not empty; on any failure (a full disk) ``out``
    is left as it was.
    """
    folders = [Path(folder) for folder in folders]
    manifests = [store_manifest(folder) for folder in folders]
    resolved = {folder.resolve() for folder in folders}
    if Path(out).resolve() in resolved:
        raise StoreError(f"{out}: is one of the folders merged; merge into a new folder")
    if Path(out).exists() and not Path(out).is_dir():
        raise StoreError(f"{out}: exists and is not a folder; merge into a new folder")
    if Path(out).exists() and any(Path(out).iterdir()):
        raise StoreError(f"{out}: exists and is not empty; merge into a new folder")
    sources = combined_sources(folders, manifests)
    for folder in folders:
        damaged = damaged_files(folder, committed_chunks(folder))
        if damaged:
            path, why = damaged[0]
            more = f" (and {len(damaged) - 1} more)" if len(damaged) > 1 else ""
            raise StoreError(f"{path}: {why}{more}; nothing merged (running the scenario into "
                             f"{folder} again recomputes its cells)")  # fmt: skip
    fresh = {k: v for k, v in manifests[0].items() if k not in ("history", "done", "planned")}
    created = not Path(out).exists()
    store = FolderStore.open(Path(out), fresh)
    try:
        _merge_into(store, folders, manifests, sources, command)
    except BaseException:  # a full disk: nothing merged, rather than a part of it
        store.close()
        _empty(Path(out), created)
        raise
    store.close()
    return store.manifest


def _merge_into(store: FolderStore, folders: list[Path], manifests: list[dict[str, Any]],
                sources: list, command: str) -> None:  # fmt: skip
    """Copy the chunks into the merged store, then write its summaries and manifest."""
    import pyarrow as pa

    from gridsim.experiments.kinds import KINDS
    from gridsim.experiments.runner import derived_tables, summarise_points
    from gridsim.experiments.store import add_planned, now, replacing, write_atomically, write_csv

    history: list[dict[str, Any]] = []
    for folder, manifest in zip(folders, manifests, strict=True):
        add_planned(store.manifest, planned_cells(manifest))
        history += [{**entry, "folder": str(folder)} for entry in manifest.get("history", [])]
    names = list(dict.fromkeys(n for folder in folders for n in table_names(folder)))
    for folder, chunk in sources:
        for name in sorted(names, key=lambda n: n == "runs"):  # runs last, as a run does
            source = chunk_path(folder, name, chunk)
            if source.exists():
                target = chunk_path(store.path, name, chunk)
                target.parent.mkdir(parents=True, exist_ok=True)
                with replacing(target) as temporary:
                    shutil.copyfile(source, temporary)
    store._done = done_cells(store.path)
    history.sort(key=lambda entry: str(entry.get("started", "")))
    history.append({"command": command, "started": now(), "finished": now(),
                    "status": "complete", "merged": [str(f) for f in folders]})  # fmt: skip
    module = KINDS[store.manifest["kind"]].load()
    runs = store.table("runs")
    axes = tuple(store.manifest.get("axes", []))
    write_csv(summarise_points(module, runs, axes), store.path / "summary.csv")
    baseline = store.manifest.get("scenario_resolved", {}).get("baseline")
    for name, table in derived_tables(module, runs, axes, baseline).items():
        write_atomically(pa.Table.from_pandas(table, preserve_index=False),
                         store.path / f"{name}.parquet")  # fmt: skip
    completed = done_cells(store.path)
    store.manifest.update(
        history=history,
        command=command,
        status="complete",
        error=None,
        replications_requested=max(
            (len(r) for r in planned_cells(store.manifest).values()), default=0
        ),
        replications_completed=min(
            (len(completed.get(p["point"], ())) for p in store.manifest["points"]),
            default=0,
        ),
    )
    store.write_manifest()


def _empty(folder: Path, created: bool) -> None:
    """Remove what a failed merge wrote: ``folder`` itself if the merge created it."""
    if created:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for entry in folder.iterdir():  # it was empty before
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def describe(folder: Path) -> str:
    """``gridsim status``: the experiment, cells per point, and the run history."""
    folder = Path(folder)
    manifest = store_manifest(folder)
    done = done_cells(folder)
    planned = planned_cells(manifest)
    policies = manifest.get("scenario_resolved", {}).get("policies") or []
    latest = manifest_versions(manifest)
    lines = [
        f"{folder}: scenario {manifest['scenario']!r} ({manifest['kind']}), "
        f"seed {manifest['seed']}, gridsim {manifest['gridsim_version']}, "
        f"scenario hash {manifest['scenario_hash'][:12]}",
        f"versions: {format_versions(latest)}",
        f"policies per cell: {len(policies) or 'see the scenario'}; a cell is one replication "
        "of one point",
        "",
    ]
    axes = manifest.get("axes", [])
    header = ["point", *axes, "done", "missing"]
    rows = []
    total_done = total_missing = 0
    for point in manifest["points"]:
        index = point["point"]
        has = done.get(index, set())
        missing = planned.get(index, set()) - has
        total_done += len(has)
        total_missing += len(missing)
        missing_text = f"{len(missing)} ({cell_sets.describe(missing)})" if missing else "0"
        rows.append([str(index), *(_value(point.get(a)) for a in axes),
                     f"{len(has)} ({cell_sets.describe(has)})", missing_text])  # fmt: skip
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    for cells in [header, *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    state = "complete" if not total_missing else f"{total_missing} cells missing"
    lines += ["", f"cells: {total_done} done, {state}"]
    damaged = damaged_files(folder, committed_chunks(folder))
    if damaged:
        lines.append(f"damaged files ({len(damaged)}; running the scenario into this folder "
                     "again recomputes their cells):")  # fmt: skip
        lines += [f"  {path}: {why}" for path, why in damaged]
    lines += ["", "history:"]
    for entry in manifest.get("history", []):
        what = entry.get("status") or "did not finish (killed?)"
        counts = ""
        if "cells_run" in entry:
            counts = f", {entry['cells_run']} cells run, {entry.get('cells_skipped', 0)} skipped"
        where = f" [{entry['folder']}]" if entry.get("folder") else ""
        other = version_changes(entry.get("dependencies") or {}, latest)
        versions = f"; other versions (then -> now): {', '.join(other)}" if other else ""
        lines.append(f"  {entry.get('started', '?')}  {entry.get('command', '?')}  "
                     f"-> {what}{counts}{where}{versions}")  # fmt: skip
    return "\n".join(lines)


def _value(value: Any) -> str:
    return "null" if value is None else str(value)
