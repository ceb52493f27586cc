"""Shards that share a cell are refused, however their chunks are cut: two folders holding
one replication of one point, in chunks of any sizes, never merge (``gridsim merge``) nor
combine (``load_results``); shards that share none give the tables of a single run."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas.testing as pdt
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

import gridsim
from gridsim.cli import main
from gridsim.experiments.cells import Chunk
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.runner import new_manifest, run_chunk, run_experiment
from gridsim.experiments.store import FolderStore, StoreError, chunk_path, combined_sources

SCENARIO = """\
name: shards
kind: window_search
seed: 4
replications: 6
environment: {nodes: 10, horizon: 300}
request: {n: 3, volume: 200, budget: 300}
policies: [FirstFit, MinCost]
sweep:
  request.n: [2, 3]
"""


@pytest.fixture(scope="module")
def experiment():
    return load_experiment(SCENARIO)


def shard(folder: Path, experiment, chunks: list[Chunk]) -> Path:
    """A results folder holding exactly ``chunks``, each computed as a run computes it."""
    store = FolderStore.open(folder, new_manifest(experiment, experiment.seed))
    try:
        for chunk in chunks:
            point = experiment.points[chunk.point]
            tables = run_chunk(point.scenario, chunk, experiment.seed, experiment.columns(point))
            store.add(chunk, tables)
        store.write_manifest()
    finally:
        store.close()
    return folder


def without_wall_clock(folder_or_folders):
    folders = folder_or_folders if isinstance(folder_or_folders, list) else [folder_or_folders]
    return gridsim.load_results(*folders).runs.drop(columns="search_time_s")


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        ([Chunk(0, 0, 3)], [Chunk(0, 3, 3)], "point 0 replication 3"),
        ([Chunk(1, 0, 1), Chunk(1, 2, 5)], [Chunk(1, 1, 2)], "point 1 replication 1"),
        ([Chunk(0, 0, 0), Chunk(1, 4, 5)], [Chunk(0, 1, 5), Chunk(1, 0, 4)],
         "point 1 replication 4"),
    ],
)  # fmt: skip
def test_shards_sharing_a_replication_in_differently_cut_chunks_are_refused(
    experiment, tmp_path, first, second, shared
):
    a = shard(tmp_path / "a", experiment, first)
    b = shard(tmp_path / "b", experiment, second)
    result = CliRunner().invoke(main, ["merge", str(a), str(b), "-o", str(tmp_path / "m")])
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"gridsim: error: {a} and {b} overlap: both hold {shared} "
                             "(shards must not share cells)\n")  # fmt: skip
    assert not (tmp_path / "m").exists()
    with pytest.raises(ValueError, match=f"overlap: both hold {shared} "):
        gridsim.load_results(a, b)


def test_shards_cut_differently_without_a_shared_cell_merge_into_a_single_runs_tables(
    experiment, tmp_path
):
    single = tmp_path / "single"
    run_experiment(experiment, jobs=1, out_dir=single, progress=False)
    a = shard(tmp_path / "a", experiment, [Chunk(0, 0, 2), Chunk(1, 0, 0), Chunk(1, 1, 5)])
    b = shard(tmp_path / "b", experiment, [Chunk(0, 3, 3), Chunk(0, 4, 5)])
    result = CliRunner().invoke(main, ["merge", str(b), str(a), "-o", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    expected = without_wall_clock(single)
    pdt.assert_frame_equal(without_wall_clock(tmp_path / "m"), expected)
    pdt.assert_frame_equal(without_wall_clock([a, b]), expected)


def cut(replications: set[int], sizes: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs of ``replications`` cut into chunks of the given sizes (cycled)."""
    ordered, chunks, start = sorted(replications), [], 0
    while start < len(ordered):
        size = sizes[len(chunks) % len(sizes)]
        part = ordered[start : start + size]
        first = part[0]
        run = [r for i, r in enumerate(part) if r == first + i]  # stop at a gap
        chunks.append((first, run[-1]))
        start += len(run)
    return chunks


cells = st.dictionaries(st.integers(0, 2), st.sets(st.integers(0, 11), min_size=1), max_size=3)
sizes = st.lists(st.integers(1, 5), min_size=1, max_size=4)


@settings(max_examples=examples(60))
@given(first=cells, second=cells, first_sizes=sizes, second_sizes=sizes)
def test_any_shared_cell_is_found_however_the_chunks_are_cut(
    first, second, first_sizes, second_sizes
):
    shared = sorted((p, r) for p in first for r in first[p] & second.get(p, set()))
    with tempfile.TemporaryDirectory() as base:
        folders = []
        for name, held, chunk_sizes in (("a", first, first_sizes), ("b", second, second_sizes)):
            folder = Path(base) / name
            folder.mkdir()
            for point, replications in held.items():
                for start, end in cut(replications, chunk_sizes):
                    path = chunk_path(folder, "runs", Chunk(point, start, end))
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.touch()  # which cells a folder holds is in its runs files' names
            folders.append(folder)
        manifest = json.loads('{"store_format": 1, "seed": 1, "scenario_hash": "h"}')
        if not shared:
            sources = combined_sources(folders, [manifest, manifest])
            held_cells = sorted((c.point, r) for _, c in sources for r in c.replications)
            assert held_cells == sorted(
                (p, r) for cells_of in (first, second) for p in cells_of for r in cells_of[p]
            )
            return
        with pytest.raises(StoreError, match=r"overlap: both hold point (\d+) replication (\d+)"):
            combined_sources(folders, [manifest, manifest])
