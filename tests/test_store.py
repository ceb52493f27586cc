"""The result store: resume, refusal, overwrite, lock, shards and their merge, status."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pandas.testing as pdt
import pytest
from click.testing import CliRunner

import gridsim
from gridsim.cli import main
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.runner import new_manifest, run_experiment
from gridsim.experiments.store import FolderStore, StoreError

SCENARIO = """\
name: stored
kind: window_search
seed: 4
replications: 6
environment:
  nodes: 10
  horizon: 300
  local_load: {max_utilisation: 0.3, tasks_per_node: [1, 3]}
request: {n: 3, volume: 200, budget: 300}
policies: [FirstFit, MinCost]
sweep:
  request.n: [2, 3]
"""
WALL_CLOCK = ["search_time_s"]


@pytest.fixture(scope="module")
def experiment():
    return load_experiment(SCENARIO)


@pytest.fixture(scope="module")
def single_run(experiment, tmp_path_factory):
    folder = tmp_path_factory.mktemp("single") / "out"
    run_experiment(experiment, jobs=1, out_dir=folder, progress=False)
    return folder


def tables(folder_or_folders) -> dict[str, pd.DataFrame]:
    folders = folder_or_folders if isinstance(folder_or_folders, list) else [folder_or_folders]
    results = gridsim.load_results(*folders)
    return {name: results.table(name).drop(columns=WALL_CLOCK, errors="ignore")
            for name in ("runs",)}  # fmt: skip


def assert_same_tables(folders, single) -> None:
    expected = tables(single)
    got = tables(folders)
    for name, table in expected.items():
        pdt.assert_frame_equal(got[name], table)


def checksums(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_rerun_resumes_running_only_the_missing_cells(experiment, single_run, tmp_path):
    first = run_experiment(experiment, replications=2, jobs=1, out_dir=tmp_path, progress=False)
    assert (first.cells_run, first.cells_skipped) == (4, 0)
    said = []
    second = run_experiment(experiment, jobs=1, out_dir=tmp_path, progress=False, say=said.append)
    assert (second.cells_run, second.cells_skipped) == (8, 4)
    assert said == [f"{tmp_path}: 4 of 12 cells (point, replication) already done, "
                    "running the 8 missing"]  # fmt: skip
    third = run_experiment(experiment, jobs=1, out_dir=tmp_path, progress=False)
    assert (third.cells_run, third.cells_skipped) == (0, 12)
    assert_same_tables(tmp_path, single_run)
    history = json.loads((tmp_path / "metadata.json").read_text())["history"]
    assert [entry["cells_run"] for entry in history] == [4, 8, 0]


def test_a_folder_of_another_seed_or_scenario_is_refused_and_left_unchanged(single_run, tmp_path):
    before = checksums(single_run)
    other = tmp_path / "other.yaml"
    other.write_text(SCENARIO.replace("volume: 200", "volume: 250"))
    for arguments, difference in [
        (["-s", 5], "seed 4 in the folder, 5 asked"),
        ([], "scenario 'stored', request.volume: 200.0 in the folder, 250.0 asked"),
    ]:
        source = other if not arguments else tmp_path / "same.yaml"
        if arguments:
            source.write_text(SCENARIO)
        result = invoke("run", source, "-q", "-j", 1, "-o", single_run, *arguments)
        assert result.exit_code == 2, result.output
        assert result.stderr == (f"gridsim: error: {single_run}: holds another experiment "
                                 f"({difference}); use --overwrite to replace it, or another "
                                 "folder\n")  # fmt: skip
        assert checksums(single_run) == before


def test_overwrite_replaces_another_experiment(tmp_path, experiment):
    run_experiment(experiment, replications=1, seed=9, jobs=1, out_dir=tmp_path, progress=False)
    (tmp_path / "notes.txt").write_text("mine")
    result = run_experiment(experiment, replications=1, jobs=1, out_dir=tmp_path,
                            overwrite=True, progress=False)  # fmt: skip
    manifest = json.loads((tmp_path / "metadata.json").read_text())
    assert manifest["seed"] == 4 and len(manifest["history"]) == 1
    assert result.cells_run == 2
    assert (tmp_path / "notes.txt").read_text() == "mine"  # only gridsim's files go


def test_two_runs_cannot_write_into_one_folder_at_once(tmp_path, experiment):
    store = FolderStore.open(tmp_path, new_manifest(experiment, 4))
    try:
        with pytest.raises(StoreError, match=r"another gridsim run is writing here \(pid \d+\)"):
            FolderStore.open(tmp_path, new_manifest(experiment, 4))
    finally:
        store.close()
    FolderStore.open(tmp_path, new_manifest(experiment, 4)).close()


def test_leftovers_of_a_killed_run_are_removed_and_rerun(tmp_path, experiment, single_run):
    run_experiment(experiment, replications=2, jobs=1, out_dir=tmp_path, progress=False)
    chunk = next((tmp_path / "runs/point=1").glob("rep-*.parquet"))
    chunk.unlink()  # killed between writing its other tables and its runs file
    (tmp_path / "runs/point=0/.rep-000005-000005.parquet.tmp-1").write_bytes(b"half")
    result = run_experiment(experiment, jobs=1, out_dir=tmp_path, progress=False)
    assert result.cells_skipped == 3  # one replication per chunk here
    assert not list(tmp_path.rglob("*.tmp-*"))
    assert_same_tables(tmp_path, single_run)


def test_a_damaged_chunk_is_named_by_readers_and_recomputed_by_a_resumed_run(
    tmp_path, experiment, single_run
):
    run_experiment(experiment, replications=3, jobs=1, out_dir=tmp_path, progress=False)
    damaged = sorted((tmp_path / "runs/point=1").glob("rep-*.parquet"))[1]
    damaged.write_bytes(damaged.read_bytes()[:50])  # a copy cut short
    before = checksums(tmp_path)
    for command in (["report", tmp_path, "-o", tmp_path.parent / "report"],
                    ["merge", tmp_path, "-o", tmp_path.parent / "merged"]):  # fmt: skip
        result = invoke(*command)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"gridsim: error: {damaged}: damaged Parquet file "
                                        "(not Parquet, or cut short)")  # fmt: skip
        assert checksums(tmp_path) == before
    assert not (tmp_path.parent / "merged").exists()
    status = invoke("status", tmp_path)
    assert f"  {damaged}: damaged Parquet file (not Parquet, or cut short)" in status.stdout
    said = []
    result = run_experiment(experiment, jobs=1, out_dir=tmp_path, progress=False,
                            say=said.append)  # fmt: skip
    assert said[0] == (f"{damaged}: damaged Parquet file (not Parquet, or cut short); its "
                       "cells run again")  # fmt: skip
    assert (result.cells_skipped, result.cells_run) == (5, 7)
    assert_same_tables(tmp_path, single_run)


def test_a_folder_of_other_files_is_not_written_into_even_with_overwrite(tmp_path, experiment):
    (tmp_path / "notes.txt").write_text("mine")
    for overwrite in (False, True):
        with pytest.raises(StoreError, match=r": not empty \(notes\.txt\) and not a results "
                           r"folder; name a new or empty folder$"):  # fmt: skip
            run_experiment(experiment, replications=1, jobs=1, out_dir=tmp_path,
                           overwrite=overwrite, progress=False)  # fmt: skip
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_replication_ranges_and_shards_merge_into_a_single_runs_tables(
    experiment, single_run, tmp_path
):
    source = tmp_path / "s.yaml"
    source.write_text(SCENARIO)
    for name, arguments in [("a", ["-r", "0:2"]), ("b", ["--shard", "2/3"]),
                            ("c", ["--shard", "3/3"])]:  # fmt: skip
        result = invoke("run", source, "-q", "-j", 1, "-o", tmp_path / name, *arguments)
        assert result.exit_code == 0, result.output
    folders = [tmp_path / "c", tmp_path / "a", tmp_path / "b"]
    assert_same_tables(folders, single_run)  # load_results combines the shards
    assert "run" not in gridsim.load_results(*folders).runs
    merged = invoke("merge", *folders, "-o", tmp_path / "merged")
    assert merged.exit_code == 0, merged.output
    assert merged.output == f"merged 3 folders into {tmp_path / 'merged'}: 12 cells\n"
    assert_same_tables(tmp_path / "merged", single_run)
    status = invoke("status", tmp_path / "merged")
    assert status.exit_code == 0
    assert "cells: 12 done, complete" in status.output
    assert "--shard 2/3" in status.output and "gridsim merge" in status.output


def test_overlapping_or_conflicting_shards_are_refused_with_a_reason(tmp_path):
    source = tmp_path / "s.yaml"
    source.write_text(SCENARIO)
    for name, arguments in [("a", ["-r", "0:3"]), ("b", ["-r", "2:4"]), ("c", ["-s", 7, "-r", 1])]:
        assert (
            invoke("run", source, "-q", "-j", 1, "-o", tmp_path / name, *arguments).exit_code == 0
        )
    a, b, c = (tmp_path / n for n in "abc")
    overlap = invoke("merge", a, b, "-o", tmp_path / "m")
    assert overlap.exit_code == 2
    assert overlap.stderr == (f"gridsim: error: {a} and {b} overlap: both hold point 0 "
                              "replication 2 (shards must not share cells)\n")  # fmt: skip
    conflict = invoke("merge", a, c, "-o", tmp_path / "m")
    assert conflict.stderr == (f"gridsim: error: {c} and {a} are different experiments "
                               f"(seed 7 in {c}, 4 in {a})\n")  # fmt: skip
    assert not (tmp_path / "m").exists()
    with pytest.raises(ValueError, match="overlap: both hold point 0 replication 2"):
        gridsim.load_results(a, b)


def test_status_shows_done_and_missing_cells_per_point(tmp_path, experiment):
    run_experiment(experiment, replications=range(1, 3), jobs=1, out_dir=tmp_path,
                   progress=False, command="gridsim run s.yaml -r 1:3")  # fmt: skip
    run_experiment(experiment, replications=range(5, 6), jobs=1, out_dir=tmp_path,
                   progress=False)  # fmt: skip
    lines = invoke("status", tmp_path).output.splitlines()
    assert lines[0].startswith(f"{tmp_path}: scenario 'stored' (window_search), seed 4, gridsim ")
    assert lines[1].startswith("versions: python ")
    assert lines[4].split() == ["point", "request.n", "done", "missing"]
    assert lines[5].split() == ["0", "2", "3", "(1-2,", "5)", "0"]
    assert "cells: 6 done, complete" in lines
    assert any("gridsim run s.yaml -r 1:3  -> complete, 4 cells run, 0 skipped" in line
               for line in lines)  # fmt: skip


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["run", "quickstart", "-r", "3:1"], "Invalid value for '--replications' / '-r': "),
        (["run", "quickstart", "--shard", "3/2"], "Invalid value for '--shard': "),
        (["run", "quickstart", "-r", "2", "--shard", "1/3"], "more shards than the 2"),
        (["run", "quickstart", "--cluster", "nowhere"], "expected local:N or a scheduler"),
        (["status", "nowhere"], "nowhere: no such folder"),
        (["merge", "nowhere", "-o", "x"], "nowhere: no such folder"),
    ],
)
def test_mistakes_in_the_new_options_are_one_line_with_exit_two(arguments, message, tmp_path):
    result = invoke(*arguments, "-o", tmp_path / "out") if arguments[0] == "run" else invoke(
        *arguments
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output
