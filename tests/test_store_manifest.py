"""The result store's manifests and housekeeping (gridsim.experiments.store), one function at a
time: how two experiments' difference is named, what a resumed run keeps of the folder's
manifest, what ``--overwrite`` removes, shards given twice, and how chunk tables are read
back (missing, empty, of different column types, in memory)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import gridsim
from gridsim.experiments import store as store_module
from gridsim.experiments.cells import Chunk
from gridsim.experiments.store import (
    MANIFEST,
    FolderStore,
    MemoryStore,
    SchemaDriftError,
    StoreError,
    clear,
    combined_sources,
    committed_chunks,
    experiment_difference,
    first_difference,
    is_store,
    read_manifest,
    read_table,
    table_names,
    write_json,
)


def test_a_difference_is_named_by_its_path_and_both_values():
    assert first_difference({"a": {"b": 1}}, {"a": {"b": 2}}) == "a.b: 1 there, 2 here"
    assert first_difference({"a": 1}, {"a": 2}, "in the folder", "asked") == (
        "a: 1 in the folder, 2 asked"
    )  # fmt: skip
    assert first_difference({"a": [1, 2]}, {"a": [1, 3]}) == "a.1: 2 there, 3 here"
    assert first_difference([1, 2], [1, 3]) == "1: 2 there, 3 here"
    assert first_difference({"X": 1}, {"X": 2}) == "X: 1 there, 2 here"  # keys shown whole
    assert first_difference({"Xa": [1]}, {"Xa": [2]}) == "Xa.0: 1 there, 2 here"
    assert first_difference({"a": 1, "b": 2}, {"a": 1, "b": 2}) is None


def test_a_key_only_one_side_has_is_a_difference():
    assert first_difference({"a": 1}, {"a": 1, "c": 2}) == "c: null there, 2 here"
    assert first_difference({"a": 1, "c": 2}, {"a": 1}) == "c: 2 there, null here"


def test_values_of_different_shapes_differ_as_a_whole():
    assert first_difference(1, 2) == "the scenario: 1 there, 2 here"
    assert first_difference({"a": 1}, [1]) == 'the scenario: {"a": 1} there, [1] here'
    assert first_difference([1, 2], [1, 2, 3]) == "the scenario: [1, 2] there, [1, 2, 3] here"
    assert first_difference({"a": [1]}, {"a": [1, 2]}) == "a: [1] there, [1, 2] here"


def test_the_first_point_s_fields_are_named_without_their_prefix():
    old, new = {"points": [{"x": 1}, {"x": 5}]}, {"points": [{"x": 2}, {"x": 5}]}
    assert first_difference(old, new) == "x: 1 there, 2 here"
    old, new = {"points": [{"x": 1}, {"x": 5}]}, {"points": [{"x": 1}, {"x": 6}]}
    assert first_difference(old, new) == "points.1.x: 5 there, 6 here"


def test_long_values_are_cut_to_forty_characters():
    forty = "a" * 38  # 40 characters once quoted
    assert first_difference(forty, "b") == f'the scenario: "{forty}" there, "b" here'
    long = "a" * 39
    assert first_difference(long, "b") == f'the scenario: "{"a" * 36}... there, "b" here'
    assert first_difference({"p": Path("x")}, {"p": Path("y")}) == 'p: "x" there, "y" here'


def manifest(**changes) -> dict:
    """A fresh manifest as the runner writes one (history and cells come later)."""
    return {"kind": "batch", "store_format": 1, "scenario": "s", "seed": 3, "scenario_hash": "h",
            "gridsim_version": gridsim.__version__, "identity": {"n": 2}, "axes": [],
            "points": [{"point": 0}], **changes}  # fmt: skip


def test_experiments_differ_by_layout_version_seed_or_scenario():
    assert experiment_difference(manifest(), manifest()) is None
    assert experiment_difference({"scenario": "s"}, manifest()) == (
        "results of an earlier gridsim layout"
    )  # fmt: skip
    assert experiment_difference(manifest(gridsim_version="0.0.1"), manifest(), "A", "B") == (
        f"gridsim 0.0.1 A, {gridsim.__version__} B"
    )  # fmt: skip
    assert experiment_difference(manifest(seed=4), manifest(), "A", "B") == "seed 4 A, 3 B"
    assert experiment_difference(manifest(seed=4), manifest()) == "seed 4 there, 3 here"
    changed = manifest(scenario_hash="g", identity={"n": 3})
    assert experiment_difference(changed, manifest(), "A", "B") == "scenario 's', n: 3 A, 2 B"
    assert experiment_difference(manifest(scenario_hash="g"), manifest()) == "scenario 's'"


def test_a_resumed_run_keeps_the_folder_s_history_and_cells_and_refreshes_the_rest(tmp_path):
    stored = manifest(command="gridsim run old", history=[{"command": "gridsim run old"}],
                      done={"0": [[0, 1]]}, planned={"0": [[0, 3]]})  # fmt: skip
    write_json(tmp_path / MANIFEST, stored)
    fresh = manifest(command="gridsim run new", history=[], done={}, planned={})
    store = FolderStore.open(tmp_path, fresh)
    store.close()
    assert store.manifest["history"] == [{"command": "gridsim run old"}]
    assert (store.manifest["done"], store.manifest["planned"]) == (
        {"0": [[0, 1]]}, {"0": [[0, 3]]}
    )  # fmt: skip
    assert store.manifest["command"] == "gridsim run new"


def test_clearing_a_folder_removes_what_gridsim_wrote_and_nothing_else(tmp_path):
    for name in (MANIFEST, "summary.csv", "paired.parquet", "jobs.parquet", "notes.txt"):
        (tmp_path / name).write_text("x")
    (tmp_path / "runs" / "point=0").mkdir(parents=True)
    (tmp_path / "runs" / "point=0" / "rep-0-1.parquet").write_text("x")
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.png").write_text("x")
    clear(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figures", "notes.txt"]
    assert read_manifest(tmp_path) is None


def test_a_folder_given_twice_is_named(tmp_path):
    folder = tmp_path / "shard"
    folder.mkdir()
    with pytest.raises(StoreError, match=rf"^{folder}: given twice$"):
        combined_sources([folder, tmp_path / "." / "shard"], [manifest(), manifest()])


def test_only_a_manifest_of_the_current_layout_is_a_store():
    assert is_store({"store_format": 1, "scenario": "s"})
    assert not is_store({"scenario": "s"}) and not is_store({"store_format": 0})
    assert not is_store({}) and not is_store(None)


def write_chunks(folder: Path, frames: dict[Chunk, dict[str, pd.DataFrame]]) -> FolderStore:
    store = FolderStore.open(folder, manifest())
    for chunk, tables in frames.items():
        store.add(chunk, tables)
    store.write_manifest()
    store.close()
    return store


def test_tables_are_listed_runs_first_then_by_name(tmp_path):
    row = pd.DataFrame({"x": [1]})
    write_chunks(tmp_path, {Chunk(0, 0, 0): {"tasks": row, "runs": row, "jobs": row}})
    assert table_names(tmp_path) == ["runs", "jobs", "tasks"]


def test_a_chunk_without_a_table_is_skipped_and_later_chunks_still_read(tmp_path):
    runs, jobs = pd.DataFrame({"x": [1.0]}), pd.DataFrame({"j": [7]})
    write_chunks(tmp_path, {Chunk(0, 0, 0): {"runs": runs},
                            Chunk(0, 1, 1): {"runs": runs, "jobs": jobs}})  # fmt: skip
    chunks = committed_chunks(tmp_path)
    assert read_table([(tmp_path, c) for c in chunks], "jobs")["j"].tolist() == [7]
    assert read_table([(tmp_path, c) for c in chunks], "absent").empty


def test_a_table_without_rows_in_any_chunk_keeps_its_columns(tmp_path):
    empty = pd.DataFrame(
        {"job_id": pd.Series([], dtype="int64"), "start": pd.Series([], dtype=float)}
    )
    runs = pd.DataFrame({"x": [1]})
    write_chunks(tmp_path, {Chunk(0, 0, 0): {"runs": runs, "jobs": empty},
                            Chunk(0, 1, 1): {"runs": runs, "jobs": empty}})  # fmt: skip
    jobs = read_table([(tmp_path, c) for c in committed_chunks(tmp_path)], "jobs")
    assert list(jobs.columns) == ["job_id", "start"] and len(jobs) == 0


def test_shards_stored_with_different_column_types_read_back_as_one_table(tmp_path):
    """One shard stored whole numbers, the other the same column with a gap (floats): read
    together, they give what concatenating them would."""
    write_chunks(tmp_path / "a", {Chunk(0, 0, 0): {"runs": pd.DataFrame({"x": [1, 2]})}})
    write_chunks(tmp_path / "b", {Chunk(0, 1, 1): {"runs": pd.DataFrame({"x": [3.0, None]})}})
    sources = [(tmp_path / "a", Chunk(0, 0, 0)), (tmp_path / "b", Chunk(0, 1, 1))]
    assert read_table(sources, "runs")["x"].tolist()[:3] == [1.0, 2.0, 3.0]
    assert read_table(sources, "runs")["x"].isna().tolist() == [False, False, False, True]


def test_a_stored_table_keeps_its_columns_not_its_index(tmp_path):
    frame = pd.DataFrame({"x": [1.0, 2.0]}, index=[5, 6])
    write_chunks(tmp_path, {Chunk(0, 0, 1): {"runs": frame}})
    table = read_table([(tmp_path, Chunk(0, 0, 1))], "runs")
    assert list(table.columns) == ["x"] and table.index.tolist() == [0, 1]


def test_a_run_in_memory_keeps_chunks_in_point_and_replication_order():
    store = MemoryStore()
    store.add(Chunk(1, 2, 2), {"runs": pd.DataFrame({"r": [12]})})
    store.add(Chunk(0, 2, 3), {"runs": pd.DataFrame({"r": [2, 3]}, index=[7, 8])})
    store.add(Chunk(0, 0, 1), {"runs": pd.DataFrame({"r": [0, 1]}), "jobs": pd.DataFrame()})
    assert store.done() == {1: {2}, 0: {0, 1, 2, 3}}
    runs = store.table("runs")
    assert runs["r"].tolist() == [0, 1, 2, 3, 12] and runs.index.tolist() == [0, 1, 2, 3, 4]
    assert store.table_names() == ["runs", "jobs"]
    assert store.table("absent").empty


def test_a_chunk_s_runs_file_is_written_last(tmp_path, monkeypatch):
    """A chunk is done exactly when its ``runs`` file exists (the module's docstring)."""
    written = []
    real = store_module.write_atomically

    def noting(table, path):
        written.append(path.parent.parent.name)
        real(table, path)

    monkeypatch.setattr(store_module, "write_atomically", noting)
    row = pd.DataFrame({"x": [1]})
    write_chunks(tmp_path, {Chunk(0, 0, 3): {"runs": row, "tasks": row, "jobs": row}})
    assert written[-1] == "runs" and sorted(written) == ["jobs", "runs", "tasks"]
    assert committed_chunks(tmp_path) == [Chunk(0, 0, 3)]


def test_a_reopened_folder_refuses_a_chunk_that_does_not_fit_the_stored_rows(tmp_path):
    write_chunks(tmp_path, {Chunk(0, 0, 0): {"runs": pd.DataFrame({"x": [1.0]})}})
    store = FolderStore.open(tmp_path, manifest())
    try:
        with pytest.raises(SchemaDriftError) as error:
            store.add(Chunk(0, 1, 2), {"runs": pd.DataFrame({"x": [2.0], "y": [3.0]})})
    finally:
        store.close()
    assert str(error.value) == (
        "runs: point 0 replications 1-2 cannot be stored: new columns ['y']"
    )  # fmt: skip
    assert committed_chunks(tmp_path) == [Chunk(0, 0, 0)]


def test_a_manifest_is_written_indented_with_anything_else_as_text(tmp_path):
    write_json(tmp_path / MANIFEST, {"a": 1, "path": Path("x") / "y"})
    assert (tmp_path / MANIFEST).read_text() == '{\n  "a": 1,\n  "path": "x/y"\n}\n'


def test_times_in_the_manifest_are_utc_to_the_second():
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", store_module.now())


def test_an_unreadable_manifest_is_named(tmp_path):
    (tmp_path / MANIFEST).write_text("{not json")
    message = rf"^{tmp_path / MANIFEST}: unreadable \(Expecting property name"
    with pytest.raises(StoreError, match=message):
        read_manifest(tmp_path)


def test_opening_a_folder_of_another_experiment_is_refused_unless_overwritten(tmp_path):
    write_json(tmp_path / MANIFEST, manifest(seed=4))
    with pytest.raises(StoreError) as error:
        FolderStore.open(tmp_path, manifest())
    assert str(error.value) == (
        f"{tmp_path}: holds another experiment (seed 4 in the folder, 3 asked); "
        "use --overwrite to replace it, or another folder"
    )  # fmt: skip
    FolderStore.open(tmp_path, manifest(), overwrite=True).close()
    assert read_manifest(tmp_path) is None  # cleared; the run writes its own


def test_a_folder_with_tables_but_no_manifest_is_refused(tmp_path):
    (tmp_path / "runs" / "point=0").mkdir(parents=True)
    with pytest.raises(StoreError) as error:
        FolderStore.open(tmp_path, manifest())
    assert str(error.value) == (
        f"{tmp_path}: holds result tables but no {MANIFEST}; "
        "use --overwrite to replace them, or another folder"
    )  # fmt: skip


def test_a_folder_is_made_with_its_parents_and_a_file_in_its_place_is_refused(tmp_path):
    store = FolderStore.open(tmp_path / "a" / "b", manifest())
    store.write_manifest()
    store.close()
    assert (tmp_path / "a" / "b" / MANIFEST).is_file()
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match=rf"^{tmp_path / 'file'}: exists and is not a folder$"):
        FolderStore.open(tmp_path / "file", manifest())


def test_a_folder_made_for_a_store_that_never_wrote_its_manifest_is_removed(tmp_path):
    FolderStore.open(tmp_path / "new", manifest()).close()  # its first write failed
    assert not (tmp_path / "new").exists()
    (tmp_path / "empty").mkdir()
    FolderStore.open(tmp_path / "empty", manifest()).close()  # not made by the store: kept
    assert (tmp_path / "empty").is_dir()


def test_leftovers_of_killed_runs_are_removed_and_nothing_else(tmp_path):
    row = pd.DataFrame({"x": [1]})
    write_chunks(tmp_path, {Chunk(0, 0, 1): {"runs": row, "jobs": row}})
    point = tmp_path / "jobs" / "point=0"
    (point / "rep-000002-000003.parquet").write_text("x")  # a chunk killed before its runs
    (point / ".rep-000004-000004.parquet.tmp-7").write_text("x")  # half written
    (point / ".keep").write_text("x")  # not gridsim's
    (tmp_path / f".{MANIFEST}.tmp-7").write_text("x")
    store_module.remove_leftovers(tmp_path)
    assert sorted(p.name for p in point.iterdir()) == [".keep", "rep-000000-000001.parquet"]
    assert [p.name for p in (tmp_path / "runs" / "point=0").iterdir()] == [
        "rep-000000-000001.parquet"
    ]  # fmt: skip
    assert not (tmp_path / f".{MANIFEST}.tmp-7").exists()


def test_conforming_a_chunk_accepts_only_what_concatenation_would_not_change():
    stored = pa.schema([("n", pa.int64()), ("x", pa.float64()), ("s", pa.string())])

    def conform(**columns):
        return store_module._conform(pa.table(columns), stored)

    table = conform(n=pa.array([1, None], pa.float64()), x=pa.array([1, 2], pa.int64()),
                    s=pa.array(["a", "b"], pa.large_string()))  # fmt: skip
    assert table.schema == stored and table["n"].to_pylist() == [1, None]
    assert conform(n=pa.array([1], pa.int64())).column("s").to_pylist() == [None]
    for columns, message in [
        ({"n": pa.array([2.0], pa.float64())}, "column 'n' is int64 in the store, double here"),
        ({"s": pa.array([1], pa.int64())}, "column 's' is string in the store, int64 here"),
        ({"x": pa.array(["1"], pa.string())}, "column 'x' is double in the store, string here"),
        ({"y": pa.array([1])}, "new columns ['y']"),
    ]:
        with pytest.raises(SchemaDriftError) as error:
            conform(**columns)
        assert str(error.value) == message


def test_a_closed_store_leaves_its_lock_file_empty_for_the_next_run(tmp_path):
    store = FolderStore.open(tmp_path, manifest())
    assert re.fullmatch(r"pid \d+", (tmp_path / ".lock").read_text())
    store.close()
    assert (tmp_path / ".lock").read_text() == ""
    FolderStore.open(tmp_path, manifest()).close()


def test_a_lock_held_before_its_holder_wrote_its_pid_is_named_another_process(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    with open(tmp_path / ".lock", "a+") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(StoreError) as error:
            FolderStore.open(tmp_path, manifest())
    assert str(error.value) == (
        f"{tmp_path}: another gridsim run is writing here (another process); "
        "wait for it or choose another folder"
    )  # fmt: skip


def test_a_manifest_whose_identity_was_edited_is_named_unless_the_check_is_skipped(tmp_path):
    """Readers check that the recorded experiment is the one its hash names; a resumed run
    (``integrity=False``) rewrites those fields, so it reads the manifest as it is."""
    edited = manifest(scenario_hash="0" * 64, identity={"n": 2})
    write_json(tmp_path / MANIFEST, edited)
    with pytest.raises(StoreError) as error:
        read_manifest(tmp_path)
    assert str(error.value) == (
        f"{tmp_path / MANIFEST}: identity: does not match scenario_hash (edited by hand?); "
        "run the scenario into a new folder"
    )  # fmt: skip
    assert read_manifest(tmp_path, integrity=False) == edited


def test_a_damaged_or_empty_chunk_file_is_named_with_what_is_wrong(tmp_path):
    row = pd.DataFrame({"x": [1]})
    write_chunks(tmp_path, {Chunk(0, 0, 0): {"runs": row}, Chunk(0, 1, 1): {"runs": row}})
    empty, cut = sorted((tmp_path / "runs" / "point=0").iterdir())
    empty.write_bytes(b"")
    cut.write_bytes(cut.read_bytes()[:20])
    for path, what in ((empty, "empty"), (cut, "not Parquet, or cut short")):
        with pytest.raises(StoreError) as error:
            store_module.read_parquet(path)
        assert str(error.value) == (
            f"{path}: damaged Parquet file ({what}); running the scenario into its results "
            "folder again recomputes its cells"
        )  # fmt: skip
    found = store_module.damaged_files(tmp_path, committed_chunks(tmp_path))
    assert found == [(empty, "damaged Parquet file (empty)"),
                     (cut, "damaged Parquet file (not Parquet, or cut short)")]  # fmt: skip


def test_a_folder_not_made_yet_has_no_damaged_files(tmp_path):
    assert store_module.damaged_files(tmp_path / "absent", [Chunk(0, 0, 0)]) == []


def test_a_chunk_with_several_damaged_files_is_dropped_once_and_whole(tmp_path):
    row = pd.DataFrame({"x": [1]})
    write_chunks(tmp_path, {Chunk(0, 0, 0): {"runs": row, "jobs": row, "tasks": row},
                            Chunk(0, 1, 1): {"runs": row, "jobs": row}})  # fmt: skip
    for name in ("jobs", "tasks"):
        (tmp_path / name / "point=0" / "rep-000000-000000.parquet").write_bytes(b"")
    store = FolderStore.open(tmp_path, manifest())
    store.close()
    assert [path.parent.parent.name for path, _ in store.damaged] == ["jobs", "tasks"]
    assert committed_chunks(tmp_path) == [Chunk(0, 1, 1)]
    assert store.done() == {0: {1}}
    assert not list(tmp_path.glob("*/point=0/rep-000000-000000.parquet"))


def test_closing_a_store_twice_is_harmless(tmp_path):
    store = FolderStore.open(tmp_path, manifest())
    store.close()
    store.close()
    FolderStore.open(tmp_path, manifest()).close()


def test_a_folder_of_other_files_is_named_by_its_first_three_files(tmp_path):
    for count, shown in ((3, "a, b, c"), (4, "a, b, c, ...")):
        folder = tmp_path / str(count)
        folder.mkdir()
        for name in "abcd"[:count]:
            (folder / name).write_text("x")
        (folder / ".hidden").write_text("x")
        with pytest.raises(StoreError) as error:
            FolderStore.open(folder, manifest())
        assert str(error.value) == (
            f"{folder}: not empty ({shown}) and not a results folder; name a new or empty folder"
        )  # fmt: skip
