"""One baseline everywhere (console, paired tables, report, figures); reports of empty or
partial results; trace commands on kinds they do not read say which kinds they do."""

from __future__ import annotations

import json

import pytest
from analysis_runs import batch_run, cloud_run, jobflow_run, replay_run, window_search_run
from click.testing import CliRunner

from gridsim.analysis.report import write_report
from gridsim.analysis.results import load_results
from gridsim.analysis.stats import baseline_policy
from gridsim.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_baseline_is_the_scenarios_when_it_names_a_policy_else_the_first():
    assert baseline_policy("BFfinish", ["BFstart", "BFfinish"]) == "BFfinish"
    assert baseline_policy(None, ["BFstart", "BFfinish"]) == "BFstart"
    assert baseline_policy("absent", ["BFstart", "BFfinish"]) == "BFstart"
    assert baseline_policy(None, []) is None


def test_the_report_pairs_a_job_flow_against_its_baseline_as_the_run_does(tmp_path):
    folder = jobflow_run()  # policies BFstart, BFfinish, ...; baseline: BFfinish
    results = load_results(folder)
    assert results.policies[0] == "BFstart" and results.baseline == "BFfinish"
    runs = results.runs
    assert (runs.loc[runs["policy"] == "BFfinish", "finish_advantage_pct"] == 0).all()
    write_report([folder], tmp_path, explore=False)
    markdown = (tmp_path / "report.md").read_text()
    assert "### Paired differences against BFfinish" in markdown
    assert "mean_finish advantage over BFfinish by queue_size" in markdown
    assert "Gantt chart of BFfinish: " in markdown
    point = markdown.split("#### queue_size 8\n")[1].split("####")[0]  # one group per point
    paired_rows = [line for line in point.splitlines() if line.startswith("| mean_finish")]
    assert paired_rows and all(" | BFfinish | " in line for line in paired_rows)


@pytest.mark.parametrize("policies", ["[CoP, BFstart]", "[BFstart, BFfinish]"])
def test_a_job_flow_that_names_no_baseline_is_compared_with_its_first_policy(tmp_path, policies):
    scenario = tmp_path / "flow.yaml"
    text = "name: flow\nkind: jobflow\nreplications: 2\nenvironment: {nodes: 8}\n"
    scenario.write_text(text + f"jobs: {{n: [1, 4]}}\nqueue_sizes: [6]\npolicies: {policies}\n")
    first = policies.strip("[]").split(", ")[0]
    result = invoke("run", scenario, "-q", "-j", 1, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    results = load_results(tmp_path / "out")
    assert results.baseline == first
    runs = results.runs
    assert (runs.loc[runs["policy"] == first, "finish_advantage_pct"] == 0).all()
    assert (runs.loc[runs["policy"] != first, "finish_advantage_pct"] != 0).any()
    write_report([tmp_path / "out"], tmp_path / "report", explore=False)
    assert f"### Paired differences against {first}" in (tmp_path / "report/report.md").read_text()


def test_the_paired_table_of_a_run_and_its_report_share_the_baseline(tmp_path):
    folder = cloud_run()  # no baseline field: the first policy
    results = load_results(folder)
    assert set(results.paired["baseline"]) == {results.policies[0]} == {results.baseline}
    write_report([folder], tmp_path, explore=False)
    assert f"Paired differences against {results.baseline}" in (tmp_path / "report.md").read_text()


def test_a_report_of_a_run_that_finished_nothing_says_so(tmp_path):
    empty = tmp_path / "empty"  # a run stopped before its first replication: no runs table
    empty.mkdir()
    (empty / "metadata.json").write_text(json.dumps({
        "scenario": "stopped", "kind": "jobflow", "status": "interrupted",
        "error": "interrupted by the user",
    }))  # fmt: skip
    result = invoke("report", empty, jobflow_run(), "-o", tmp_path / "report", "--no-explore")
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert (f"`{empty}`: no replication finished (status interrupted: interrupted by the "
            "user).") in markdown  # fmt: skip
    assert "## jobflow: coordinated-placement-static" in markdown


def test_a_report_of_batch_cycles_none_of_which_counts_names_what_was_not_done(tmp_path):
    text = (
        "name: capped\nkind: batch\nseed: 1\nreplications: 3\n"
        "policies: [{name: ALP}, {name: AMP}]\njobs: {price_markup: [0.75, 0.8]}\n"
    )
    (tmp_path / "capped.yaml").write_text(text)
    result = invoke("run", tmp_path / "capped.yaml", "-q", "-j", 1, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "no summary: no run gave a result to average" in result.stdout
    result = invoke("report", tmp_path / "out", "-o", tmp_path / "report")
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "### Not done" in markdown
    assert "ALP, goal time: " in markdown and " jobs without an alternative: " in markdown
    assert markdown.rstrip().endswith("No run can be compared (a job without an alternative, "
                                      "or no combination meeting the goal's limit, in every "
                                      "cycle).")  # fmt: skip


@pytest.mark.parametrize(
    ("command", "make", "message"),
    [
        (["export", "--format", "swf", "--policy", "MaxQ"], window_search_run,
         "export reads the results of jobflow and swf_replay scenarios, not window_search"),
        (["export", "--format", "batsim", "--policy", "ALP"], batch_run,
         "export reads the results of jobflow and swf_replay scenarios, not batch"),
        (["export", "--format", "swf", "--policy", "DyTSS"], cloud_run,
         "export reads the results of jobflow and swf_replay scenarios, not cloud"),
        (["gantt", "--policy", "ALP"], batch_run,
         "gantt reads the results of jobflow and swf_replay scenarios, not batch"),
        (["gantt", "--policy", "DyTSS"], cloud_run,
         "gantt reads the results of jobflow and swf_replay scenarios, not cloud"),
        (["explore", "--policy", "MaxQ"], window_search_run,
         "explore reads the results of jobflow and swf_replay scenarios, not window_search"),
    ],
)  # fmt: skip
def test_a_trace_command_names_the_kinds_it_reads(command, make, message, tmp_path):
    suffix = {"gantt": ".png", "explore": ".html"}.get(command[0], ".out")
    folder = make()
    before = sorted(p.name for p in folder.rglob("*"))
    result = invoke(command[0], folder, *command[1:], "-o", tmp_path / f"x{suffix}")
    assert result.exit_code == 2
    assert result.stderr == f"gridsim: error: {folder}: {message}\n"
    assert sorted(p.name for p in folder.rglob("*")) == before
    assert not (tmp_path / f"x{suffix}").exists()


def test_export_of_a_log_replay_writes_its_jobs(tmp_path):
    result = invoke("export", replay_run(), "--format", "swf", "--policy", "easy", "-o",
                    tmp_path / "easy.swf")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "easy.swf").read_text().startswith(";")
