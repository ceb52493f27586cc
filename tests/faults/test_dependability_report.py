"""The dependability study: its scenario is a sweep of plain fault fields, and its tables and
figure are computed from the runs as documented."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gridsim.analysis import dependability
from gridsim.analysis.results import load_table
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.runner import run_experiment

ROOT = Path(__file__).resolve().parents[2]
FAILURES, OVERRUNS = "faults.failures.rate", "faults.local_overruns.mean"

SMALL = """\
name: small-dependability
kind: jobflow
seed: 4
replications: 3
environment:
  nodes: 8
  performance: {low: 2, high: 10}
  horizon: 800
  local_load: {max_utilisation: 0.3}
jobs: {n: [1, 3], volume: {low: 60, high: 300}, runtime_factor: {low: 1, high: 1}}
arrivals: {model: poisson, utilisation: 0.6}
queue_sizes: [10]
policies: [BFfinish, FirstFit, {name: DEP, max_distance: 20}]
faults:
  local_overruns: {probability: 0.5, mean: 0}
  failures: {rate: 0, repair_mean: 20}
sweep:
  faults.failures.rate: [0, 0.003]
zip:
  faults.local_overruns.mean: [0, 1.0]
  jobs.runtime_factor.high: [1.0, 1.5]
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dependability") / "results"
    run_experiment(load_experiment(SMALL), jobs=1, progress=False, out_dir=folder)
    return folder


@pytest.fixture(scope="module")
def runs(folder):
    return load_table(folder, "runs")


def test_the_study_scenario_sweeps_plain_fault_fields():
    experiment = load_experiment(ROOT / "scenarios/dependability.yaml")
    assert experiment.axes[:2] == (FAILURES, OVERRUNS)
    assert len(experiment.points) == 9
    calm = experiment.points[0].scenario
    assert not calm.faults.enabled and calm.jobs.runtime_factor.high == 1.0
    labels = [c.label for c in experiment.scenario.criteria()]
    assert {"BFfinish", "CoP", "FirstFit", "MinFinish", "COORD"} <= set(labels)
    assert "DEP(max_distance=50)" in labels and "DEPLite(max_distance=50)" in labels


def test_paired_differences_are_taken_on_the_same_replications(runs):
    paired = dependability.paired_table(runs, "BFfinish", [FAILURES, OVERRUNS])
    row = paired[(paired["metric"] == "mean_finish") & (paired["policy"] == "FirstFit")
                 & (paired[FAILURES] == 0.003) & (paired[OVERRUNS] == 1.0)].iloc[0]  # fmt: skip
    level = runs[(runs[FAILURES] == 0.003) & (runs[OVERRUNS] == 1.0)]
    finish = level.pivot(index="replication", columns="policy", values="mean_finish")
    difference = finish["FirstFit"] - finish["BFfinish"]
    assert row["pairs"] == 3
    assert row["difference_mean"] == pytest.approx(difference.mean(), rel=1e-12)
    assert row["relative_mean"] == pytest.approx((finish["FirstFit"] / finish["BFfinish"]
                                                  - 1).mean(), rel=1e-12)  # fmt: skip


def test_without_faults_nothing_is_disturbed_or_lost(runs):
    calm = runs[(runs[FAILURES] == 0) & (runs[OVERRUNS] == 0)]
    assert (calm["disturbed_share"] == 0).all() and (calm["lost_work"] == 0).all()
    stormy = runs[(runs[FAILURES] > 0) & (runs[OVERRUNS] > 0)]
    assert (stormy["disturbed_share"] > 0).any() and (stormy["retries"] > 0).any()


def test_markdown_tables_have_a_row_per_level_and_a_column_per_policy(runs):
    axes = [FAILURES, OVERRUNS]
    paired = dependability.paired_table(runs, "BFfinish", axes)
    table = dependability.markdown_paired(paired, "disturbed_share", axes).splitlines()
    assert table[0] == f"| {FAILURES} | {OVERRUNS} | FirstFit | DEP(max_distance=20) |"
    assert len(table) == 2 + 4
    means = dependability.level_means(runs, axes)
    heaviest = dependability.markdown_means(means, {FAILURES: 0.003, OVERRUNS: 1.0})
    assert len(heaviest.splitlines()) == 2 + 3


def test_the_figure_has_a_panel_per_axis_and_a_line_per_policy(runs):
    figure = dependability.plot_disturbed_share(runs, [FAILURES, OVERRUNS])
    assert len(figure.axes) == 2
    for panel in figure.axes:
        assert len(panel.get_lines()) >= 3
        assert np.isfinite(np.asarray(panel.get_lines()[0].get_ydata(), dtype=float)).all()


def test_the_report_tool_fills_the_marked_part_of_the_page(folder, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n<!-- tables: begin -->\nold\n<!-- tables: end -->\n\nAfter.\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools/dependability_report.py"), str(folder),
         "--doc", str(page), "--figure", str(tmp_path / "figure.png")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert "old" not in text and text.endswith("<!-- tables: end -->\n\nAfter.\n")
    assert "**Disturbed share, difference against BFfinish**" in text
    assert (tmp_path / "figure.png").stat().st_size > 10_000
