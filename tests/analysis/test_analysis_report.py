"""The report states paired comparisons that a hand computation confirms; it renders for
every scenario kind, as Markdown and HTML with its figures beside them."""

import json
import math

import pandas as pd
import pytest
from analysis_runs import batch_run, cloud_run, jobflow_run, window_search_run
from click.testing import CliRunner

from gridsim.analysis.report import write_report
from gridsim.analysis.stats import paired_against_baseline
from gridsim.cli import main

# Three replications of a window search, two policies: hand-made numbers.
FINISH = {"FirstFit": [100.0, 120.0, 90.0], "MinCost": [110.0, 125.0, 105.0]}


def _hand_folder(tmp_path):
    rows = [
        {"scenario": "hand", "replication": r, "policy": policy, "found": True,
         "start": 0.0, "finish": finish, "cost": 2 * finish, "Q": 1.0, "L_minSum": 0.0,
         "L_maxSum": 0.0, "runtime": finish}
        for policy, values in FINISH.items() for r, finish in enumerate(values)
    ]  # fmt: skip
    folder = tmp_path / "hand"
    folder.mkdir()
    pd.DataFrame(rows).to_parquet(folder / "runs.parquet")
    (folder / "metadata.json").write_text(json.dumps({
        "scenario": "hand", "kind": "window_search", "seed": 1, "replications_requested": 3,
        "replications_completed": 3, "status": "complete", "gridsim_version": "test",
        "git_commit": None,
    }))  # fmt: skip
    return folder


def test_the_paired_difference_in_the_report_matches_a_hand_computation(tmp_path):
    write_report([_hand_folder(tmp_path)], tmp_path / "out", explore=False)
    report = (tmp_path / "out" / "report.md").read_text()
    # differences MinCost - FirstFit: 10, 5, 15 -> mean 10, sd 5, t(0.975, 2) = 4.302653
    half = 4.302652730 * 5.0 / math.sqrt(3)
    line = next(x for x in report.splitlines() if x.startswith("| finish | MinCost | FirstFit"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[3] == "+10"
    low, high = (float(v) for v in cells[4].strip("[]").split(","))
    assert low == pytest.approx(10 - half, rel=1e-3) and high == pytest.approx(10 + half, rel=1e-3)
    assert cells[5] == "3"
    # the relative difference: mean of 110/100-1, 125/120-1, 105/90-1
    relative = 100 * (0.1 + 5 / 120 + 15 / 90) / 3
    assert cells[6].startswith(f"{relative:+.2f}%")
    # the cost metric is paired too (cost = 2 finish: twice the difference)
    assert "| cost | MinCost | FirstFit | +20 |" in report


def test_paired_against_baseline_defaults_to_the_first_policy():
    runs = pd.DataFrame({"replication": [0, 0, 1, 1], "policy": ["A", "B"] * 2,
                         "m": [1.0, 3.0, 2.0, 5.0]})  # fmt: skip
    table = paired_against_baseline(runs, ["m", "absent"])
    assert table[["policy", "baseline", "pairs", "difference_mean"]].to_dict("records") == [
        {"policy": "B", "baseline": "A", "pairs": 2, "difference_mean": 2.5}
    ]


@pytest.mark.parametrize(
    ("make", "figures"),
    [
        (jobflow_run, ["jobflow-mean_finish.png", "jobflow-advantage.png", "jobflow-gantt.png"]),
        (window_search_run, ["window-search-Q.png", "window-search-cost.png"]),
        (batch_run, ["batch-total_time.png", "batch-total_cost.png"]),
        (cloud_run, ["cloud-makespan_s.png", "cloud-samples-over-time.png"]),
    ],
    ids=["jobflow", "window_search", "batch", "cloud"],
)
def test_every_kind_gets_tables_and_figures(tmp_path, make, figures):
    write_report([make()], tmp_path, explore=False)
    markdown = (tmp_path / "report.md").read_text()
    page = (tmp_path / "report.html").read_text()
    assert "Means with 95% intervals" in markdown and "Paired differences against" in markdown
    for name in figures:
        assert (tmp_path / name).stat().st_size > 5000
        assert f"({name})" in markdown and f'src="{name}"' in page
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page


def test_the_report_command_combines_folders_and_writes_both_files(tmp_path):
    result = CliRunner().invoke(
        main,
        ["report", str(jobflow_run()), str(cloud_run()), "-o", str(tmp_path / "r"), "--no-explore"],
    )
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert "## jobflow: coordinated-placement-static" in markdown
    assert "## cloud: small-cloud" in markdown
    assert (tmp_path / "r" / "report.html").exists()


def test_the_report_command_refuses_a_folder_without_metadata(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert result.exit_code == 2 and "no metadata.json" in result.output
