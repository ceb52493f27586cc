"""Analysis over a sweep: advantages over any swept field, a report grouped by point."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import gridsim
from gridsim.analysis.jobflow_stats import relative_advantage
from gridsim.analysis.plots import plot_advantage
from gridsim.analysis.report import write_report
from gridsim.analysis.results import select_run
from gridsim.cli import main
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.runner import run_experiment

SWEEP = """\
name: flow-over-load
kind: jobflow
seed: 12
replications: 3
environment: {nodes: 8, horizon: 400, local_load: {max_utilisation: 0.0}}
jobs: {n: [1, 3], volume: {low: 20, high: 80}}
queue_sizes: [4, 8]
baseline: BFfinish
policies: [BFstart, BFfinish, CoP]
sweep:
  environment.local_load.max_utilisation: [0.0, 0.3]
"""
LOAD = "environment.local_load.max_utilisation"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "out"
    run_experiment(load_experiment(SWEEP), jobs=1, out_dir=out, progress=False)
    return out


def test_results_know_the_swept_fields_and_advantages_are_per_point(folder):
    results = gridsim.load_results(folder)
    assert results.axes == [LOAD, "queue_size"]
    curves = relative_advantage(results.runs, "BFfinish", axes=results.axes)
    assert len(curves) == 2 * 2 * 3  # loads x queue sizes x policies
    assert set(curves[LOAD]) == {0.0, 0.3}
    assert (curves["runs"] == 3).all()
    baseline = curves[curves["policy"] == "BFfinish"]["advantage_pct"]
    assert (baseline == 0).all()


def test_the_advantage_plot_draws_any_swept_field_with_a_panel_per_other_value(folder):
    runs = gridsim.load_results(folder).runs
    over_load = plot_advantage(runs, "BFfinish", over=LOAD)
    panels = [a for a in over_load.axes if a.get_visible()]
    assert [a.get_title() for a in panels] == ["queue_size 4", "queue_size 8"]
    assert panels[0].get_xlabel() == LOAD
    over_queue = plot_advantage(runs, "BFfinish", over="queue_size")
    assert [a.get_title() for a in over_queue.axes if a.get_visible()] == [
        "max_utilisation 0.0", "max_utilisation 0.3",
    ]  # fmt: skip


def test_the_report_groups_by_point_and_draws_an_advantage_over_each_swept_field(folder, tmp_path):
    path = write_report([folder], tmp_path, explore=False)
    text = path.read_text()
    assert f"| {LOAD} | queue_size | policy | replications |" in text
    assert (tmp_path / "jobflow-advantage.png").exists()
    assert (tmp_path / "jobflow-advantage-environment-local_load-max_utilisation.png").exists()


def test_one_run_of_a_sweep_is_chosen_by_its_point(folder, tmp_path):
    tasks = gridsim.load_results(folder).tasks
    with pytest.raises(ValueError, match=r"choose --point \(swept environment"):
        select_run(tasks, "CoP", 0, 4)
    chosen = select_run(tasks, "CoP", 0, point={LOAD: 0.3, "queue_size": 8})
    assert set(chosen[LOAD]) == {0.3} and set(chosen["queue_size"]) == {8}
    result = CliRunner().invoke(main, ["gantt", str(folder), "--policy", "CoP", "--point", "3",
                                       "-o", str(tmp_path / "g.png")])  # fmt: skip
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["gantt", str(folder), "--policy", "CoP", "--point", "9",
                                       "-o", str(tmp_path / "g.png")])  # fmt: skip
    assert result.exit_code == 2
    assert "--point 9: " in result.stderr and "has 4 points (0 to 3)" in result.stderr
