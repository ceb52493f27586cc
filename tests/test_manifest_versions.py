"""The versions a results folder records (Python and gridsim's dependencies): written by every
run, shown by ``gridsim status``, and a run resumed with other versions says so in one line
without stopping; manifests written before they were recorded still load."""

from __future__ import annotations

import json
import platform
from importlib import metadata

import numpy as np
import pytest

from gridsim.experiments.folders import describe
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.manifests import (
    installed_versions,
    resumed_with_other_versions,
    version_changes,
)
from gridsim.experiments.runner import run_experiment

SCENARIO = """\
name: tiny
kind: window_search
seed: 3
replications: 2
environment: {nodes: 8, horizon: 300}
request: {n: 2, volume: 100, budget: 500}
policies: [FirstFit, MinCost]
"""


def run(folder, replications=2):
    """Run the tiny scenario into ``folder``; the notes it said."""
    said: list[str] = []
    model, text = load_scenario(SCENARIO)
    result = run_experiment(model, text, replications=replications, jobs=1, out_dir=folder,
                            progress=False, say=said.append)  # fmt: skip
    assert result.status == "complete"
    return said


def edit_manifest(folder, change) -> None:
    path = folder / "metadata.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def test_the_versions_are_python_s_and_those_of_every_requirement_of_gridsim():
    versions = installed_versions()
    assert next(iter(versions.items())) == ("python", platform.python_version())
    for name in ("simpy", "numpy", "pandas", "matplotlib", "pyyaml", "pydantic", "click",
                 "tqdm", "pyarrow"):  # fmt: skip
        assert versions[name] == metadata.version(name), name
    assert versions["numpy"] == np.__version__
    assert versions["scipy"] == metadata.version("scipy")  # installed with the dev extra
    assert not {"pytest", "ruff", "mkdocs"} & set(versions)  # tools, not what computes


def test_every_run_records_its_versions_in_the_manifest_and_its_history_entry(tmp_path):
    run(tmp_path)
    manifest = json.loads((tmp_path / "metadata.json").read_text())
    assert manifest["dependencies"] == installed_versions()
    assert manifest["history"][0]["dependencies"] == installed_versions()


def test_status_shows_the_versions(tmp_path):
    run(tmp_path)
    lines = describe(tmp_path).splitlines()
    assert lines[1] == "versions: " + ", ".join(f"{k} {v}" for k, v in installed_versions().items())


def test_a_run_resumed_with_other_versions_warns_in_one_line_and_runs(tmp_path):
    run(tmp_path, replications=1)
    assert run(tmp_path, replications=1) == [
        f"{tmp_path}: 1 of 1 cells (point, replication) already done, running the 0 missing"
    ]  # same versions: nothing more said

    def older(manifest):
        manifest["history"][0]["dependencies"]["numpy"] = "1.26.0"
        manifest["history"][1]["dependencies"]["pandas"] = "2.1.0"

    edit_manifest(tmp_path, older)
    said = run(tmp_path, replications=2)
    numpy, pandas = np.__version__, metadata.version("pandas")
    assert said[1] == (f"{tmp_path}: warning: its cells were computed with other versions "
                       f"(numpy 1.26.0 -> {numpy}, pandas 2.1.0 -> {pandas}); the cells run now "
                       "may not match them bit for bit")  # fmt: skip
    manifest = json.loads((tmp_path / "metadata.json").read_text())
    assert manifest["replications_completed"] == 2
    status = describe(tmp_path)
    assert f"other versions (then -> now): numpy 1.26.0 -> {numpy}" in status
    assert f"other versions (then -> now): pandas 2.1.0 -> {pandas}" in status
    assert status.count("other versions") == 2  # the run just made used the latest


def test_a_folder_without_cells_done_is_resumed_without_a_warning(tmp_path):
    run(tmp_path, replications=1)

    def nothing_done(manifest):
        manifest["history"][0]["dependencies"]["numpy"] = "1.26.0"

    edit_manifest(tmp_path, nothing_done)
    for path in (tmp_path / "runs").rglob("*.parquet"):
        path.unlink()  # the cells' tables gone: nothing computed with the old versions is left
    assert not any("warning" in line for line in run(tmp_path, replications=1))


def test_a_manifest_written_before_dependencies_loads_and_its_python_and_numpy_are_compared(
    tmp_path,
):
    run(tmp_path, replications=1)

    def earlier_layout(manifest):
        del manifest["dependencies"]
        del manifest["history"][0]["dependencies"]
        manifest["python"], manifest["numpy"] = "3.11.0", "1.26.0"

    edit_manifest(tmp_path, earlier_layout)
    assert describe(tmp_path).splitlines()[1] == "versions: python 3.11.0, numpy 1.26.0"
    said = run(tmp_path, replications=1)
    assert f"python 3.11.0 -> {platform.python_version()}" in said[-1]
    assert f"numpy 1.26.0 -> {np.__version__}" in said[-1]


@pytest.mark.parametrize(("before", "after", "changes"), [
    ({"numpy": "2.0"}, {"numpy": "2.0"}, []),
    ({"numpy": "2.0", "scipy": "1.1"}, {"numpy": "2.1"}, ["numpy 2.0 -> 2.1"]),
    ({}, {"numpy": "2.1"}, []),
])  # fmt: skip
def test_only_packages_recorded_on_both_sides_are_compared(before, after, changes):
    assert version_changes(before, after) == changes


def test_nothing_to_compare_is_no_change():
    assert resumed_with_other_versions({"history": []}, {"numpy": "2.0"}) is None
