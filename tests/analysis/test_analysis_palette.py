"""One style per policy in every figure; neighbouring jobs of a Gantt chart look different."""

import itertools

import numpy as np
import pandas as pd
from analysis_runs import jobflow_run
from matplotlib.colors import to_hex

import gridsim
from gridsim.analysis import palette, plots
from gridsim.analysis.results import select_run
from gridsim.selection.registry import describe_criteria


def _bar_colours(figure) -> dict[str, str]:
    axes = figure.axes[0]
    handles, labels = axes.get_legend_handles_labels()
    return {label: to_hex(handle.patches[0].get_facecolor()) for handle, label in
            zip(handles, labels, strict=True)}  # fmt: skip


def _line_colours(figure) -> dict[str, str]:
    axes = figure.axes[0]
    handles, labels = axes.get_legend_handles_labels()
    return {label: to_hex(handle.lines[0].get_color()) for handle, label in
            zip(handles, labels, strict=True)}  # fmt: skip


def test_two_figures_give_a_policy_the_same_colour():
    runs = gridsim.load_results(jobflow_run()).runs
    bars = _bar_colours(plots.plot_comparison(runs, "mean_finish"))
    lines = _line_colours(plots.plot_advantage(runs, baseline="BFfinish"))
    assert set(lines) == set(bars) - {"BFfinish"}
    assert all(lines[policy] == bars[policy] for policy in lines)
    # A figure of two of the policies, in the other order, keeps their colours.
    some = runs[runs["policy"].isin(["CoP", "BFstart"])].iloc[::-1]
    again = _bar_colours(plots.plot_comparison(some, "mean_finish"))
    assert again == {"CoP": bars["CoP"], "BFstart": bars["BFstart"]}
    assert len(set(bars.values())) == len(bars)


def test_every_registered_criterion_and_scheduler_has_its_own_style():
    criteria = [name for name, _ in describe_criteria()]
    assert sorted(criteria) == sorted(palette.POLICY_ORDER)
    looks = {(s.colour, s.hatch) for s in map(palette.policy_style, criteria)}
    assert len(looks) == len(criteria)
    schedulers = [palette.policy_style(name).colour for name in ("fcfs", "easy", "conservative")]
    assert len(set(schedulers)) == 3
    assert palette.policy_style("easy/BFfinish") == palette.policy_style("easy")
    assert palette.policy_style("MultipleBest(target=MaxQ)") == palette.policy_style("MultipleBest")


def test_labels_that_would_look_alike_in_one_figure_are_told_apart():
    styles = palette.policy_styles(["DyTSS(L=1,M=2)", "DyTSS(L=2,M=4)", "EqualChunks(E=60)"])
    assert len({s.index for s in styles.values()}) == 3
    assert styles["DyTSS(L=1,M=2)"] == palette.policy_style("DyTSS")


def _bars(figure) -> list[tuple[float, float, float, str, str | None]]:
    """(row, start, end, colour, hatch) of every bar of a Gantt chart."""
    bars = []
    for collection in figure.axes[0].collections:
        for path in collection.get_paths():
            (x0, y0), (x1, y1) = path.vertices.min(axis=0), path.vertices.max(axis=0)
            colour = to_hex(collection.get_facecolor()[0])
            bars.append((round((y0 + y1) / 2), x0, x1, colour, collection.get_hatch()))
    return bars


def _neighbouring_bars_differ(figure) -> bool:
    """Next bars on a row, and bars of adjacent rows that overlap in time, look different
    unless they are the same job (its label is on both)."""
    bars = _bars(figure)
    # A label sits at its bar's middle; rounded, as a bar's ends come back from its path.
    labels = {(round(t.get_position()[1]), round(t.get_position()[0], 6)): t.get_text()
              for t in figure.axes[0].texts}  # fmt: skip
    job = {i: labels.get((row, round((x0 + x1) / 2, 6)))
           for i, (row, x0, x1, _, _) in enumerate(bars)}  # fmt: skip
    assert sum(label is not None for label in job.values()) == len(labels)  # every job bar
    for (i, a), (j, b) in itertools.combinations(enumerate(bars), 2):
        if job[i] is None or job[j] is None or job[i] == job[j]:
            continue
        same_row_next = a[0] == b[0] and not any(
            c[0] == a[0] and min(a[2], b[2]) <= c[1] < max(a[1], b[1]) for c in bars
        )
        stacked = abs(a[0] - b[0]) == 1 and a[1] <= b[2] and b[1] <= a[2]
        if (same_row_next or stacked) and a[3:] == b[3:]:
            return False
    return True


def test_a_gantt_chart_gives_neighbouring_jobs_different_looks_beyond_eight_jobs():
    tasks = select_run(gridsim.load_results(jobflow_run()).tasks, "CoP", 0, 16)
    assert tasks.loc[tasks["kind"] == "job", "job_id"].nunique() == 16
    assert _neighbouring_bars_differ(plots.plot_gantt(tasks))
    # Thirty jobs one after another on one node, beside one long job on the next node.
    row = pd.DataFrame({"job_id": range(30), "node": 0, "performance": 1.0, "kind": "job",
                        "start": np.arange(30.0), "end": np.arange(1.0, 31.0)})  # fmt: skip
    long = pd.DataFrame({"job_id": [30], "node": [1], "performance": [2.0], "start": [0.0],
                         "end": [30.0], "kind": ["job"]})  # fmt: skip
    figure = plots.plot_gantt(pd.concat([row, long], ignore_index=True))
    assert _neighbouring_bars_differ(figure)
    styles = palette.job_styles(pd.concat([row, long]), {0: 0, 1: 1})
    assert all(styles[j].index != styles[j + 1].index for j in range(29))
    assert all(styles[j].index != styles[30].index for j in range(30))
