"""``gridsim reproduce``: the published numbers, the comparison tables and their verdicts."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from click.testing import CliRunner

from gridsim.cli import main
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment
from gridsim.reproduce import find_figure, load_catalogue
from gridsim.reproduce.catalogue import Figure
from gridsim.reproduce.measure import Measured
from gridsim.reproduce.report import published_difference, verdict
from gridsim.reproduce.verdicts import judge, summary_line

VERDICT = (
    r"within the paper's (precision|bound)|within 5%|not reproduced|too few replications to "
    r"judge|relation holds, (magnitude within 1\.5x|magnitude off by [0-9.e+]+x|equal within .*%)"
)


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_every_figure_names_an_existing_scenario_and_unique_rows():
    figures = load_catalogue().figures
    ids = [figure.id for figure in figures]
    for wanted in ("003-fig1", "003-fig2", "000-table1", "002-table2", "002-table3",
                   "001-sec5", "004-fig1", "004-fig2", "004-fig3", "004-makespan"):  # fmt: skip
        assert wanted in ids
    for figure in figures:
        if figure.scenario:
            assert figure.scenario_path().exists(), figure.scenario
        names = [row.name for row in figure.rows]
        assert len(set(names)) == len(names), figure.id


def test_list_names_every_figure():
    result = invoke("reproduce", "--list")
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines()] == [
        figure.id for figure in load_catalogue().figures
    ]


def _table_lines(output: str, figure_id: str) -> list[list[str]]:
    block = output.split(f"{figure_id}: ")[1].split("\n\n")[0].splitlines()
    return [[cell.strip() for cell in line.split("  ") if cell.strip()] for line in block[1:]]


def test_two_figures_at_tiny_counts_print_and_write_one_table_each(tmp_path):
    out = tmp_path / "reproduced"
    for figure_id in ("002-table2", "000-table1"):
        result = invoke("reproduce", figure_id, "-r", 2, "-j", 1, "-q", "-o", out)
        assert result.exit_code == 0, result.output
        figure = find_figure(figure_id)
        lines = _table_lines(result.output, figure_id)
        header = lines[0]
        assert header[:3] == ["row", "published", "gridsim ± 95%"]
        assert header[-1] == "verdict"
        if figure.baseline:
            assert header[3:5] == [f"vs {figure.baseline}, %", "paper %"]
        assert len(lines) == 1 + len(figure.rows)
        assert header[-2:] == ["ratio", "verdict"]
        for line in lines[1:]:  # never a bare "relation holds": the magnitude is named
            assert re.fullmatch(VERDICT, line[-1].strip()), line
        table = pd.read_csv(out / f"{figure_id}.csv")
        assert list(table["row"]) == [row.name for row in figure.rows]
        assert table["gridsim"].notna().all()
        assert (out / f"{figure_id}.txt").read_text().startswith(f"{figure_id}: ")


def _checksums(folder):
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_out_folder_resumes_reuses_first_replications_and_refuses_another_scenario(tmp_path):
    out = tmp_path / "reproduced"
    args = ("reproduce", "000-table1", "-j", 1, "-q", "-o", out)
    small = invoke(*args, "-r", 2)
    assert small.exit_code == 0, small.output
    larger = invoke(*args, "-r", 3)
    assert larger.exit_code == 0, larger.output
    runs = out / "dependable-placement"
    history = __import__("json").loads((runs / "metadata.json").read_text())["history"]
    assert [entry["cells_run"] for entry in history] == [2, 1]  # the second run resumed
    again = invoke(*args, "-r", 2)  # the first two of the three replications
    assert again.exit_code == 0
    assert _table_lines(again.output, "000-table1") == _table_lines(small.output, "000-table1")

    before = _checksums(runs)
    other = invoke(*args, "-r", 2, "--set", "environment.horizon_start_edge=none")
    assert other.exit_code == 2 and "Traceback" not in other.output
    assert "--overwrite" in other.output
    assert _checksums(runs) == before
    replaced = invoke(*args, "-r", 2, "--set", "environment.horizon_start_edge=none",
                      "--overwrite")  # fmt: skip
    assert replaced.exit_code == 0, replaced.output


def test_a_reproduction_never_replaces_other_runs(tmp_path):
    scenario = find_figure("003-fig1").scenario_path()
    mine = tmp_path / "out" / "window-search"
    run = invoke("run", scenario, "-r", 2, "-j", 1, "-q", "-s", 5, "-o", mine)
    assert run.exit_code == 0, run.output
    before = {p: p.read_bytes() for p in mine.rglob("*") if p.is_file()}
    result = invoke("reproduce", "003-fig1", "-r", 2, "-j", 1, "-q", "-o", tmp_path / "out")
    assert result.exit_code == 2  # another seed: refused, nothing changed
    assert result.stderr.startswith(f"gridsim: error: {mine}: ")
    assert "--overwrite" in result.stderr and len(result.stderr.splitlines()) == 1
    assert {p: p.read_bytes() for p in mine.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("status, exit_code, line", [
    ("interrupted", 130, "gridsim: interrupted"),
    ("failed", 2, "gridsim: error: log.swf, line 3: expected 18 fields, got 6 "
                  "(reproducing 003-fig1 from window-search.yaml)"),
])  # fmt: skip
def test_a_reproduction_stopped_ends_as_its_run_did(status, exit_code, line, monkeypatch):
    from gridsim.experiments import runner
    from gridsim.workloads.swf import SwfFormatError

    error = SwfFormatError("log.swf", 3, "expected 18 fields, got 6")
    stopped = runner.ExperimentResult(tables={}, summary=pd.DataFrame(), status=status,
                                      exception=error)  # fmt: skip
    monkeypatch.setattr(runner, "run_experiment", lambda *args, **kwargs: stopped)
    result = invoke("reproduce", "003-fig1", "-r", 2, "-q")
    assert (result.exit_code, result.stderr.strip()) == (exit_code, line)  # after ^C's newline


def test_reproduce_gives_the_runner_s_numbers_for_the_same_count():
    figure = find_figure("000-table1")
    from gridsim.reproduce import reproduce

    table, _ = reproduce(figure, 2, jobs=1, progress=False)
    scenario, text = load_scenario(figure.scenario_path())
    runs = run_experiment(scenario, text, replications=2, jobs=1, progress=False).tables["runs"]
    cell = runs[runs["policy"] == "DEP"]["L_minSum"]
    assert table.set_index("row").loc["DEP L_minSum", "gridsim"] == cell.mean()


def test_set_overrides_a_scenario_field_and_bad_input_is_one_line():
    result = invoke("reproduce", "000-table1", "-r", 2, "-j", 1, "-q",
                    "--set", "environment.horizon_start_edge=none")  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = dict((line[0].strip(), line) for line in _table_lines(result.output, "000-table1"))
    # Without a neighbour at the horizon start FirstFit's tasks (all at 0) have their nearest
    # and farthest task on the right: the same distance.
    assert lines["FirstFit L_minSum"][2] == lines["FirstFit L_maxSum"][2]
    for args, message in (
        (["reproduce", "no-such-figure"], "unknown figure"),
        (["reproduce"], "name FIGUREs or --all"),
        (["reproduce", "000-table1", "--set", "environment.horizon_start_edge=far"],
         "environment.horizon_start_edge"),
        (["reproduce", "000-table1", "--set", "oops"], "--set oops: expected PATH=VALUE"),
    ):  # fmt: skip
        result = invoke(*args)
        assert result.exit_code == 2
        assert message in result.output and "Traceback" not in result.output


def _figure(**rows) -> Figure:
    cells = [
        {"queue_size": 50, "policy": "BFfinish", "metric": "mean_finish", "published": 300.0},
        {"queue_size": 50, "policy": "CoP", "metric": "mean_finish", "published": 297.0},
        {"queue_size": 50, "policy": "PAST", "metric": "mean_finish", "published": 300.1},
    ]
    return Figure.model_validate({
        "id": "x", "paper": "002", "cite": "TY20", "source": "Table 2", "title": "t",
        "replications": {"paper": 2000, "quick": 2}, "baseline": "BFfinish",
        "rows": cells, **rows,
    })  # fmt: skip


@pytest.mark.parametrize(
    ("row", "measured", "expected"),
    [
        # CoP printed 297.0 against BFfinish's 300.0: the paper's difference is -1.0%, and the
        # two printed cells allow -1.0333..-0.9667%. Judged on the paired difference:
        (1, Measured(250.0, 2.0, -1.0, 0.01), "within the paper's precision"),
        (1, Measured(298.0, 2.0, -1.04, 0.01), "within 5%"),  # outside the digits, within 5%
        (1, Measured(298.0, 2.0, -0.8, 0.01), "relation holds, magnitude within 1.5x"),
        (1, Measured(298.0, 2.0, -4.5, 0.01), "relation holds, magnitude off by 4.5x"),
        (1, Measured(298.0, 2.0, 0.5, 0.01), "not reproduced"),  # the sign fails
        # an interval that reaches another verdict and is wider than the tolerance (0.05)
        (1, Measured(298.0, 2.0, -0.1, 0.2), "too few replications to judge"),
        (1, Measured(298.0, 2.0, -1.0, 0.06), "too few replications to judge"),
        # PAST printed 300.1, equal to BFfinish within 0.1%: a difference that small holds
        (2, Measured(299.0, 2.0, 0.08, 0.01), "relation holds, equal within 0.1%"),
        (2, Measured(299.0, 2.0, 1.0, 0.2), "not reproduced"),
        # the baseline has no relation, only its value (printed 300.0: [299.95, 300.05))
        (0, Measured(300.04, 0.01), "within the paper's precision"),
        (0, Measured(310.0, 2.0), "within 5%"),
        (0, Measured(330.0, 2.0), "not reproduced"),
        (0, Measured(310.0, 16.0), "too few replications to judge"),  # 294-326 meets 315
        (0, Measured(400.0, 16.0), "not reproduced"),  # wide, but nowhere near
    ],
)
def test_verdicts(row, measured, expected):
    figure = _figure()
    assert verdict(figure, figure.rows[row], measured) == expected


def _row(**fields) -> Figure:
    return Figure.model_validate({
        "id": "x", "paper": "004", "cite": "RRM", "source": "Fig. 1", "title": "t",
        "replications": {"paper": 3, "quick": 2}, "rows": [fields],
    })  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "measured", "expected"),
    [
        # a printed "4" stands for [3.5, 4.5): 3.795 is the paper's 4 (and 5.1% below it)
        ({"kind": "model", "samples": 1, "performance_w": 1, "published": 4}, 3.795,
         "within the paper's precision"),
        ({"kind": "model", "samples": 1, "performance_w": 1, "published": 4.0}, 3.795,
         "not reproduced"),  # a printed "4.0" does not
        # a crossing time: its relation is "overtakes at all", then the magnitude
        ({"kind": "crossing", "policy": "a", "versus": "b", "published": 3.75}, 3.08,
         "relation holds, magnitude within 1.5x"),
        ({"kind": "crossing", "policy": "a", "versus": "b", "published": 3.75}, 1.5,
         "relation holds, magnitude off by 2.5x"),
        ({"kind": "crossing", "policy": "a", "versus": "b", "published": 3.75}, math.nan,
         "not reproduced"),
        # a published range is its own precision; outside it, the nearer end counts
        ({"kind": "relative", "policy": "a", "versus": "b", "metric": "m",
          "published": [8, 13]}, 10.0, "within the paper's precision"),
        ({"kind": "relative", "policy": "a", "versus": "b", "metric": "m",
          "published": [8, 13]}, 5.5, "relation holds, magnitude within 1.5x"),
        ({"kind": "relative", "policy": "a", "versus": "b", "metric": "m",
          "published": [8, 13]}, 13.5, "within 5%"),
        # a search time 7% above FirstFit's, measured 727% above: the sign alone is not enough
        ({"kind": "relative", "policy": "a", "versus": "b", "metric": "m", "published": 7},
         727.0, "relation holds, magnitude off by 104x"),
        # a bound: met, exceeded a little, exceeded far
        ({"kind": "relative", "policy": "a", "versus": "b", "metric": "m", "published": 0.25,
          "claim": "at_most"}, -0.2, "within the paper's bound"),
        ({"kind": "relative", "policy": "a", "versus": "b", "metric": "m", "published": 0.25,
          "claim": "at_most"}, -0.35, "relation holds, magnitude within 1.5x"),
        ({"kind": "relative", "policy": "a", "versus": "b", "metric": "m", "published": 0.25,
          "claim": "at_most"}, 1.0, "relation holds, magnitude off by 4x"),
    ],
)  # fmt: skip
def test_verdicts_of_single_numbers(fields, measured, expected):
    figure = _row(**fields)
    assert verdict(figure, figure.rows[0], Measured(measured, 0.0)) == expected


def test_a_judgement_states_the_judged_number_and_its_ratio():
    figure = _figure()
    judged = judge(figure, figure.rows[1], Measured(250.0, 2.0, -0.8, 0.1))
    assert (judged.judged, judged.judged_ci95) == (-0.8, 0.1)  # the paired difference
    assert judged.published == pytest.approx(-1.0)
    assert judged.ratio == pytest.approx(0.8)
    # no runs to measure (e.g. no batch cycle counted yet): nothing to judge
    assert verdict(figure, figure.rows[0], Measured(math.nan, math.inf)) == (
        "too few replications to judge"
    )


def test_published_difference_is_the_papers_own_relative_difference():
    figure = _figure()
    assert math.isnan(published_difference(figure, figure.rows[0]))
    assert published_difference(figure, figure.rows[1]) == pytest.approx(-1.0)


@pytest.mark.parametrize(("figure_id", "readings", "rows"), [
    ("000-table1", ["first_fit=first_found"],
     ["FirstFit L_minSum", "MultipleBest L_minSum", "MultipleBest L_maxSum"]),
    ("001-sec5", ["jobs.length=work", "totals=per_job", "jobs.price_markup=[1,1]"],
     ["time minimisation: ALP total time", "cost minimisation: AMP total cost"]),
])  # fmt: skip
def test_a_reading_is_compared_with_the_paper_through_set(figure_id, readings, rows):
    sets = [arg for reading in readings for arg in ("--set", reading)]
    result = invoke("reproduce", figure_id, "-r", 3, "-j", 1, "-q", *sets)
    assert result.exit_code == 0, result.output
    lines = {line[0]: line for line in _table_lines(result.output, figure_id)}
    for name in rows:  # the reading's policies are matched to the paper's rows
        assert re.fullmatch(VERDICT, lines[name][-1]), lines[name]


def test_the_summary_line_counts_each_class_of_verdict():
    verdicts = ["within the paper's precision", "within 5%", "within the paper's bound",
                "relation holds, magnitude within 1.5x", "relation holds, equal within 0.1%",
                "relation holds, magnitude off by 4.6x", "not reproduced",
                "too few replications to judge"]  # fmt: skip
    assert summary_line(verdicts) == (
        "8 published numbers: 3 within tolerance, 2 relation holds with magnitude, "
        "1 magnitude off, 1 not reproduced, 1 too few replications"
    )
    result = invoke("reproduce", "004-fig1")
    assert result.output.splitlines()[-1].startswith("2 published numbers: ")
