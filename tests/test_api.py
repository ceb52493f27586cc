"""The Python API: gridsim.load_scenario, validate and run give what the command gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

import gridsim
from gridsim.cli import main
from gridsim.experiments.cells import CellsError
from gridsim.experiments.executors import ExecutorError
from gridsim.experiments.kinds import KINDS
from gridsim.plugins import PluginError

ROOT = Path(__file__).resolve().parents[1]
TINY = {
    "name": "tiny",
    "kind": "window_search",
    "seed": 4,
    "replications": 3,
    "environment": {"nodes": 10, "horizon": 300},
    "request": {"n": 2, "volume": 100, "budget": 500},
    "policies": ["FirstFit", "MaxQ"],
}


def without_wall_clock(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=[c for c in table.columns if c.startswith("search_time_s")])


def test_every_kind_s_scenario_class_is_exported_and_in_the_scenario_type():
    classes = {kind.scenario_class: kind.scenario_model() for kind in KINDS.values()}
    for name, model in classes.items():
        assert getattr(gridsim, name) is model and name in gridsim.__all__
    assert set(gridsim.Scenario.__args__) == set(classes.values())
    for name in gridsim.__all__:
        assert getattr(gridsim, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'rnu'"):
        gridsim.rnu  # noqa: B018


def test_run_of_a_mapping_in_memory_gives_the_tables_gridsim_run_writes(tmp_path):
    results = gridsim.run(TINY, jobs=1, progress=False)
    assert repr(results) == (
        "Results(kind='window_search', name='tiny', points=1, policies=['FirstFit', 'MaxQ'], "
        "replications=3, tables={'runs': 6, 'paired': 1})"
    )
    assert results.metadata[0]["folder"] is None and results.metadata[0]["seed"] == 4
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY))
    command = CliRunner().invoke(main, ["run", str(path), "-j", "1", "-q", "-o", tmp_path / "o"])
    assert command.exit_code == 0, command.output
    on_disk = gridsim.load_results(tmp_path / "o")
    pd.testing.assert_frame_equal(without_wall_clock(results.runs),
                                  without_wall_clock(on_disk.runs))  # fmt: skip
    assert results.metadata[0]["scenario_hash"] == on_disk.metadata[0]["scenario_hash"]
    pd.testing.assert_frame_equal(
        without_wall_clock(results.summary()), without_wall_clock(on_disk.summary())
    )


def test_run_with_out_writes_the_folder_gridsim_run_writes_and_resumes_it(tmp_path, caplog):
    out = tmp_path / "out"
    first = gridsim.run(ROOT / "scenarios" / "window-search.yaml", replications=2, jobs=1,
                        out=out, progress=False)  # fmt: skip
    assert first.metadata[0]["folder"] == str(out)
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "metadata.json", "paired.parquet", "runs", "summary.csv",
    ]  # fmt: skip
    with caplog.at_level("INFO", logger="gridsim"):
        more = gridsim.run(ROOT / "scenarios" / "window-search.yaml", replications=range(0, 3),
                           jobs=1, out=str(out), progress=False)  # fmt: skip
    assert "2 of 3 cells (point, replication) already done" in caplog.text
    assert sorted(set(more.runs["replication"])) == [0, 1, 2]
    history = json.loads((out / "metadata.json").read_text())["history"]
    assert [entry["cells_run"] for entry in history] == [2, 1]
    assert history[0]["command"].startswith("gridsim.run() from ")


def test_python_minus_c_runs_a_mapping():
    code = f"import gridsim; print(gridsim.run({TINY!r}, jobs=1).summary()['runs'].tolist())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[3, 3]\n"
    assert done.stderr == ""  # no progress bar when stderr is not a terminal


def test_load_scenario_reads_a_path_text_or_mapping_with_overrides():
    from_path = gridsim.load_scenario(ROOT / "scenarios" / "window-search.yaml")
    text = (ROOT / "scenarios" / "window-search.yaml").read_text()
    assert gridsim.load_scenario(text) == from_path
    assert isinstance(from_path, gridsim.WindowSearchScenario)
    changed = gridsim.load_scenario(TINY, overrides={"seed": 9, "environment.nodes": 12})
    assert (changed.seed, changed.environment.nodes, changed.environment.horizon) == (9, 12, 300)


def test_validate_gives_every_point_of_a_grid_and_load_scenario_refuses_it():
    path = ROOT / "scenarios" / "static-queue-over-load.yaml"
    experiment = gridsim.validate(path, overrides={"queue_sizes": [10, 20]})
    assert isinstance(experiment, gridsim.Experiment)
    assert experiment.axes == ("environment.local_load.max_utilisation", "queue_size")
    assert len(experiment.points) == 3 * 2
    assert experiment.overrides == ("queue_sizes=[10, 20]",)
    with pytest.raises(gridsim.UserError, match=r"is a grid \(sweep: or zip:\)"):
        gridsim.load_scenario(path)


def test_a_bad_scenario_raises_user_error_with_the_line_the_command_prints(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**TINY, "request": {**TINY["request"], "n": -1}}))
    command = CliRunner().invoke(main, ["validate", str(path)])
    assert command.exit_code == 2
    for call in (gridsim.validate, gridsim.load_scenario, gridsim.run):
        with pytest.raises(gridsim.UserError) as raised:
            call(path)
        assert command.stderr == f"gridsim: error: {raised.value}\n"
    with pytest.raises(gridsim.UserError, match=r"^scenario 'tiny': --set request.n=0: request.n"):
        gridsim.run(TINY, overrides={"request.n": 0})
    with pytest.raises(gridsim.UserError, match=r"^scenario 'tiny': --set kind=batch: kind can"):
        gridsim.validate(TINY, overrides={"kind": "batch"})


def test_a_scenario_object_is_validated_again_before_it_runs():
    scenario = gridsim.load_scenario(TINY)
    broken = scenario.model_copy(update={"replications": 0})  # pydantic does not check this
    with pytest.raises(gridsim.UserError, match=r"^scenario 'tiny': replications: .*got 0"):
        gridsim.run(broken)
    again = gridsim.validate(scenario)
    assert (
        again.scenario == scenario
        and again.scenario_hash() == gridsim.validate(TINY).scenario_hash()
    )


def test_bad_run_arguments_are_refused_before_anything_runs(tmp_path):
    for replications, message in ((0, "expected a count N >= 1"), (range(3, 1), "A:B")):
        with pytest.raises(CellsError, match=message):
            gridsim.run(TINY, replications=replications, out=tmp_path / "o")
    with pytest.raises(ExecutorError, match=r"^jobs=0: expected at least 1"):
        gridsim.run(TINY, jobs=0, out=tmp_path / "o")
    with pytest.raises(ExecutorError, match=r"^--cluster 'nowhere'"):
        gridsim.run(TINY, cluster="nowhere", out=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_a_run_that_fails_raises_its_error_saying_what_is_kept(tmp_path):
    crashing = {**TINY, "policies": ["FirstFit", "plugin_samples:Crashing"]}
    with pytest.raises(PluginError) as in_memory:
        gridsim.run(crashing, jobs=1)
    assert in_memory.value.__notes__ == [
        "the run stopped; 0 replications finished, lost with the run (no folder)"
    ]
    with pytest.raises(PluginError) as in_folder:
        gridsim.run(crashing, jobs=1, out=tmp_path / "o")
    assert in_folder.value.__notes__ == [f"the run stopped; 0 replications finished, kept in "
                                         f"{tmp_path / 'o'}"]  # fmt: skip
    assert json.loads((tmp_path / "o" / "metadata.json").read_text())["status"] == "failed"
