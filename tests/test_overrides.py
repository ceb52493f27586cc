"""--set PATH=VALUE: a field changed from the command line is the file edited, on the paths
and with the errors of sweep:, and the run history records it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from gridsim.cli import main
from gridsim.config import ScenarioError
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.overrides import overrides_of, parse_override

ROOT = Path(__file__).resolve().parents[1]
BASE = """\
name: grid
kind: window_search
seed: 3
replications: 2
environment:
  nodes: 10
  horizon: 300
request: {n: 3, volume: 200, budget: 300}
policies: [FirstFit, MinCost]
"""
#: A job flow that leaves out its environment: the kind's default one is not a bare section.
FLOW = "name: flow\nkind: jobflow\nqueue_sizes: [3]\npolicies: [BFstart, BFfinish]\n"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def with_set(text: str, *items: str):
    return load_experiment(text, overrides_of(items))


def test_values_are_read_as_yaml():
    assert [parse_override(item).value for item in (
        "seed=3", "environment.q.high=2.5", "arrivals.span=null", "policies=[MaxQ, MinCost]",
        "name='3'", "description=two words", "jobs.n={low: 1, high: 4}",
    )] == [3, 2.5, None, ["MaxQ", "MinCost"], "3", "two words", {"low": 1, "high": 4}]  # fmt: skip
    assert parse_override("environment.nodes = 20").path == "environment.nodes"


def test_a_set_field_is_the_file_edited_and_seed_and_replications_may_be_set():
    edited = load_experiment(BASE.replace("n: 3,", "n: 5,").replace("seed: 3", "seed: 8"))
    changed = with_set(BASE, "request.n=5", "seed=8", "replications=4")
    assert changed.scenario_hash() == edited.scenario_hash()
    assert (changed.seed, changed.replications) == (8, 4)
    assert changed.overrides == ("request.n=5", "seed=8", "replications=4")


def test_a_path_into_a_section_the_file_leaves_out_keeps_the_kind_s_defaults_as_a_sweep_does():
    changed = with_set(FLOW, "environment.nodes=12").scenario
    swept = load_experiment(FLOW + "sweep:\n  environment.nodes: [12]\n").scenario
    assert changed == swept
    assert changed.environment.nodes == 12 and changed.environment.performance.high == 16


def test_set_and_sweep_give_the_same_error_for_the_same_value():
    for path, value in (("request.n", "-1"), ("request.nn", "2"), ("environment.nodes.x", "1"),
                        ("environment.horizon", "soon")):  # fmt: skip
        with pytest.raises(ScenarioError) as swept:
            load_experiment(BASE + f"sweep:\n  {path}: [{value}]\n")
        with pytest.raises(ScenarioError) as changed:
            with_set(BASE, f"{path}={value}")
        tail = str(changed.value).removeprefix(f"--set {path}={value}: ")
        assert str(swept.value).endswith(f": {tail}"), (str(swept.value), str(changed.value))


def test_a_list_shorthand_set_becomes_the_grid_axis_it_is_in_a_file():
    static = ROOT / "scenarios" / "coordinated-placement-static.yaml"
    changed = with_set(static.read_text(), "queue_sizes=[8, 16]")
    assert changed.axes == ("queue_size",)
    assert [point.values for point in changed.points] == [{"queue_size": 8}, {"queue_size": 16}]


@pytest.mark.xfail(strict=True, reason="the resolved defaults hold lists as tuples, which the "
                   "grid's path setter does not enter (the sweep has the same bug)")  # fmt: skip
def test_a_path_into_a_list_element_is_set():
    replay = ROOT / "scenarios" / "swf-replay-heterogeneous.yaml"
    changed = with_set(replay.read_text(), "platform.node_classes.0.price=2.5").scenario
    assert changed.platform.node_classes[0].price == 2.5


def test_run_with_set_gives_the_numbers_of_the_edited_file_and_records_it(tmp_path):
    edited = tmp_path / "edited.yaml"
    edited.write_text(BASE.replace("n: 3,", "n: 4,"))
    original = tmp_path / "original.yaml"
    original.write_text(BASE)
    assert invoke("run", edited, "-j", 1, "-q", "-o", tmp_path / "a").exit_code == 0
    result = invoke("run", original, "-j", 1, "-q", "-o", tmp_path / "b", "--set", "request.n=4")
    assert result.exit_code == 0, result.output
    tables = [pd.read_parquet(tmp_path / name / "runs") for name in "ab"]
    pd.testing.assert_frame_equal(*(t.drop(columns="search_time_s") for t in tables))
    history = json.loads((tmp_path / "b" / "metadata.json").read_text())["history"]
    assert history[-1]["overrides"] == ["request.n=4"]
    assert history[-1]["command"].endswith("--set request.n=4")
    again = invoke("run", original, "-j", 1, "-q", "-o", tmp_path / "b")  # without the --set
    assert again.exit_code == 2 and "request.n" in again.stderr
