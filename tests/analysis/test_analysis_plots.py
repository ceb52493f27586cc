"""Every figure of gridsim.analysis.plots, drawn from a small real run.

Set GRIDSIM_DOC_IMAGES=1 to write them to docs/images/ (the examples docs/analysis.md shows).
"""

import os
from pathlib import Path

import pandas as pd
import pytest
from analysis_runs import batch_run, cloud_run, jobflow_run, window_search_run
from matplotlib.figure import Figure

import gridsim
from gridsim.analysis import plots
from gridsim.analysis.results import select_run

DOC_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


def _save(figure: Figure, name: str, tmp_path: Path) -> Path:
    folder = DOC_IMAGES if os.environ.get("GRIDSIM_DOC_IMAGES") else tmp_path
    path = folder / name
    figure.savefig(path, dpi=90)
    assert path.stat().st_size > 5000
    return path


def test_gantt_of_one_job_flow_with_nodes_by_performance_and_a_time_window(tmp_path):
    tasks = select_run(gridsim.load_results(jobflow_run()).tasks, "CoP", 0, 16)
    figure = plots.plot_gantt(tasks, title="CoP, 16 jobs, replication 0")
    axes = figure.axes[0]
    performances = [float(t.get_text().split("p=")[1].rstrip(")"))
                    for t in axes.get_yticklabels()]  # fmt: skip
    assert performances == sorted(performances)
    assert axes.get_xlabel() == "time (time units)"
    assert [t.get_text() for t in axes.get_legend().get_texts()] == [
        "local load",
        "job (id on bar)",
    ]
    _save(figure, "gantt.png", tmp_path)
    window = plots.plot_gantt(tasks, window=(50.0, 150.0))
    assert window.axes[0].get_xlim() == (50.0, 150.0)


def test_local_load_is_grey_in_the_gantt_chart():
    tasks = pd.DataFrame({
        "job_id": [0, -1], "node": [0, 1], "performance": [5.0, 1.0],
        "start": [0.0, 2.0], "end": [1.0, 3.0], "kind": ["job", "local_load"],
    })  # fmt: skip
    bars = plots.plot_gantt(tasks).axes[0].collections
    assert tuple(bars[1].get_facecolor()[0][:3]) == pytest.approx((0.75, 0.75, 0.75))


def test_comparison_bars_with_intervals_for_window_search_and_batch(tmp_path):
    runs = gridsim.load_results(window_search_run()).runs
    figure = plots.plot_comparison(runs, "Q")
    axes = figure.axes[0]
    assert axes.get_ylabel() == "Q, sum of node values"
    assert [t.get_text() for t in axes.get_xticklabels()] == list(dict.fromkeys(runs["policy"]))
    _save(figure, "comparison.png", tmp_path)
    batch = gridsim.load_results(batch_run()).runs
    figure = plots.plot_comparison(batch[batch["counted"]], "total_cost")
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["time", "cost"]


def test_relative_advantage_over_bffinish_against_queue_size(tmp_path):
    runs = gridsim.load_results(jobflow_run()).runs
    figure = plots.plot_advantage(runs, baseline="BFfinish")
    axes = figure.axes[0]
    assert axes.get_xlabel() == "queue size (jobs)"
    assert axes.get_ylabel() == "advantage over BFfinish (%)"
    assert [t.get_text() for t in axes.get_legend().get_texts()] == [
        "BFstart",
        "BFshort",
        "PAST",
        "CoP",
    ]
    _save(figure, "advantage.png", tmp_path)


def test_samples_over_time_of_a_cloud_run(tmp_path):
    progress = gridsim.load_results(cloud_run()).progress
    figure = plots.plot_samples_over_time(progress)
    top, bottom = figure.axes
    assert top.get_ylabel() == "samples completed (millions)" and bottom.get_xlabel() == "time (h)"
    _save(figure, "samples-over-time.png", tmp_path)


def test_a_plot_names_the_columns_it_lacks():
    with pytest.raises(ValueError, match=r"plot_advantage needs columns \['queue_size'\]"):
        plots.plot_advantage(pd.DataFrame({"policy": ["A"], "replication": [0],
                                           "mean_finish": [1.0]}), "A")  # fmt: skip
    with pytest.raises(ValueError, match=r"plot_gantt needs columns \['performance'"):
        plots.plot_gantt(pd.DataFrame({"job_id": [0], "node": [0]}))


def test_the_gantt_command_draws_a_time_window(tmp_path):
    from click.testing import CliRunner

    from gridsim.cli import main

    result = CliRunner().invoke(main, ["gantt", str(jobflow_run()), "--policy", "PAST",
                                       "--queue-size", "8", "--from", "10", "--to", "60",
                                       "-o", str(tmp_path / "g.png")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "g.png").stat().st_size > 5000
