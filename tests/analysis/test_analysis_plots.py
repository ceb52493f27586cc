"""Every figure of gridsim.analysis.plots, drawn from a small real run.

Set GRIDSIM_DOC_IMAGES=1 to write them to docs/images/ (the examples docs/analysis.md shows).
"""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_runs import batch_run, cloud_run, jobflow_run, window_search_run
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from scipy import stats

import gridsim
from gridsim.analysis import plots
from gridsim.analysis.results import select_run

DOC_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


def _t_interval(values) -> float:
    """The 95% half-width of the mean, from scipy (independent of gridsim's own table)."""
    values = np.asarray(values, dtype=float)
    return float(stats.t.ppf(0.975, len(values) - 1) * stats.sem(values))


def _bars(axes) -> list[tuple[float, float, int]]:
    """Every Gantt bar as (start, end, row), rows counted from the bottom."""
    found = []
    for collection in axes.collections:
        for path in collection.get_paths():
            box = path.get_extents()
            found.append((box.x0, box.x1, round((box.y0 + box.y1) / 2)))
    return sorted(found)


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
    # one bar per task, from its start to its end, on its node's row
    rows = {int(t.get_text().split(" ")[0]): i for i, t in enumerate(axes.get_yticklabels())}
    expected = sorted((t.start, t.end, rows[t.node]) for t in tasks.itertuples())
    # (a bar's end is start + (end - start): equal to the end up to rounding)
    np.testing.assert_allclose(np.array(_bars(axes)), np.array(expected), rtol=1e-12)
    assert axes.get_xlabel() == "time (time units)"
    legend = ["local load"] if (tasks["kind"] == "local_load").any() else []
    assert [t.get_text() for t in axes.get_legend().get_texts()] == [*legend, "job (id on bar)"]
    _save(figure, "gantt.png", tmp_path)
    window = plots.plot_gantt(tasks, window=(50.0, 150.0))
    assert window.axes[0].get_xlim() == (50.0, 150.0)
    shown = tasks[(tasks["end"] > 50.0) & (tasks["start"] < 150.0)]
    assert 0 < len(_bars(window.axes[0])) == len(shown) < len(tasks)


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
    policies = list(dict.fromkeys(runs["policy"]))
    assert [t.get_text() for t in axes.get_xticklabels()] == policies
    # bar heights are the policies' mean Q, whiskers their 95% intervals
    (bars,) = [c for c in axes.containers if isinstance(c, BarContainer)]
    q = [runs.loc[runs["policy"] == policy, "Q"] for policy in policies]
    assert [bar.get_height() for bar in bars] == pytest.approx([v.mean() for v in q])
    whiskers = bars.errorbar.lines[2][0].get_segments()
    assert [w[1][1] - w[0][1] for w in whiskers] == pytest.approx([2 * _t_interval(v) for v in q])
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
    # each point: the mean over replications of 100 (BFfinish - policy) / BFfinish, per size
    table = runs.pivot_table(index=["queue_size", "replication"], columns="policy",
                             values="mean_finish")  # fmt: skip
    baseline = table["BFfinish"]
    lines = {container.get_label(): container.lines[0] for container in axes.containers}
    assert list(lines) == ["BFstart", "BFshort", "PAST", "CoP"]
    for policy, line in lines.items():
        means = (100 * (baseline - table[policy]) / baseline).groupby(level="queue_size").mean()
        assert np.asarray(line.get_ydata(), float) == pytest.approx(means.to_numpy())
        assert np.round(np.asarray(line.get_xdata(), float)).tolist() == means.index.tolist()
    _save(figure, "advantage.png", tmp_path)


def test_samples_over_time_of_a_cloud_run(tmp_path):
    progress = gridsim.load_results(cloud_run()).progress
    figure = plots.plot_samples_over_time(progress)
    top, bottom = figure.axes
    assert top.get_ylabel() == "samples completed (millions)" and bottom.get_xlabel() == "time (h)"
    # one line per policy and replication: samples (millions) and pilots against hours
    runs = list(progress.groupby(["policy", "replication"], sort=False))
    assert len(top.get_lines()) == len(bottom.get_lines()) == len(runs)
    drawn = sorted((tuple(line.get_xdata()), tuple(line.get_ydata())) for line in top.get_lines())
    expected = sorted((tuple(part["time_s"] / 3600), tuple(part["samples_completed"] / 1e6))
                      for _, part in runs)  # fmt: skip
    assert drawn == expected
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
