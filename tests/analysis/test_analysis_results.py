"""Results folders load as tables; several folders combine into one comparison."""

import json
import subprocess
import sys

import pandas as pd
import pytest
from analysis_runs import arrivals_run, cloud_run, jobflow_run

import gridsim
from gridsim.analysis.results import Results, select_run
from gridsim.analysis.stats import comparison_keys


def test_a_jobflow_folder_loads_with_runs_jobs_tasks_and_metadata():
    results = gridsim.load_results(jobflow_run())
    assert isinstance(results, Results)
    assert results.kind == "jobflow"
    assert results.policies == ["BFstart", "BFfinish", "BFshort", "PAST", "CoP"]
    assert len(results.runs) == 4 * 2 * 5  # replications x queue sizes x policies
    assert {"job_id", "submit_time", "start_time", "finish_time", "allocated_resources"} <= set(
        results.jobs.columns
    )
    assert {"node", "performance", "kind"} <= set(results.tasks.columns)
    assert results.progress.empty
    assert "run" not in results.runs.columns
    assert results.metadata[0]["scenario"] == "coordinated-placement-static"


def test_combined_folders_name_their_rows_and_are_paired_within_each_folder():
    results = gridsim.load_results(jobflow_run(), arrivals_run())
    assert list(dict.fromkeys(results.runs["run"])) == ["jobflow", "arrivals"]
    assert set(results.jobs["run"]) == {"jobflow", "arrivals"}
    assert [m["run"] for m in results.metadata] == ["jobflow", "arrivals"]
    # the same policies in both folders: instances are told apart by the folder too
    assert comparison_keys(results.runs) == ["run", "queue_size"]


def test_folders_with_disjoint_policies_pair_on_replication_across_folders():
    runs = pd.DataFrame(
        {
            "run": ["a", "a", "b", "b"],
            "replication": [0, 1, 0, 1],
            "policy": ["X", "X", "Y", "Y"],
            "m": [1.0, 2.0, 3.0, 4.0],
        }
    )
    assert comparison_keys(runs) == []


def test_two_folders_of_the_same_name_get_distinct_run_names(tmp_path):
    for parent in ("one", "two"):
        folder = tmp_path / parent / "same"
        folder.mkdir(parents=True)
        pd.DataFrame({"replication": [0], "policy": ["A"], "m": [1.0]}).to_parquet(
            folder / "runs.parquet"
        )
        (folder / "metadata.json").write_text(json.dumps({"kind": "window_search"}))
    results = gridsim.load_results(tmp_path / "one/same", tmp_path / "two/same")
    assert list(results.runs["run"]) == ["same", "same-2"]


def test_a_folder_that_is_not_a_results_folder_is_named_in_the_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a gridsim results folder"):
        gridsim.load_results(tmp_path)


def test_mixed_kinds_are_refused_where_one_kind_is_needed():
    results = gridsim.load_results(jobflow_run(), cloud_run())
    with pytest.raises(ValueError, match="mix scenario kinds"):
        _ = results.kind


def test_select_run_picks_one_simulation_or_names_the_choices():
    tasks = gridsim.load_results(jobflow_run()).tasks
    chosen = select_run(tasks, "CoP", 1, 8, what="tasks")
    assert set(chosen["policy"]) == {"CoP"} and set(chosen["queue_size"]) == {8}
    with pytest.raises(ValueError, match=r"choose --queue-size \[8, 16\]"):
        select_run(tasks, "CoP", 1)
    with pytest.raises(ValueError, match="no tasks with policy = 'CoQ'"):
        select_run(tasks, "CoQ", what="tasks")


def test_import_gridsim_does_not_import_pandas():
    code = "import sys, gridsim; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert out.stdout.strip() == "False"


def test_the_repr_of_results_is_one_line_of_what_they_hold():
    results = gridsim.load_results(jobflow_run())
    assert repr(results) == (
        "Results(kind='jobflow', name='coordinated-placement-static', points=2, "
        "policies=['BFstart', 'BFfinish', 'BFshort', 'PAST', 'CoP'], replications=4, "
        f"tables={{'runs': 40, 'jobs': {len(results.jobs)}, 'tasks': {len(results.tasks)}, "
        f"'paired': {len(results.paired)}}})"
    )
    combined = gridsim.load_results(jobflow_run(), arrivals_run())
    assert repr(combined).startswith(
        "Results(kind='jobflow', name=['coordinated-placement-static', "
        "'coordinated-placement-arrivals'], points=3, "
    )


def test_summary_is_the_summary_csv_the_run_wrote():
    folder = jobflow_run()
    written = pd.read_csv(folder / "summary.csv")
    summary = gridsim.load_results(folder).summary()
    pd.testing.assert_frame_equal(summary, written, check_dtype=False, rtol=1e-15)
    assert list(summary.columns[:3]) == ["queue_size", "policy", "runs"]


def test_summary_of_folders_of_two_experiments_is_per_folder():
    summary = gridsim.load_results(jobflow_run(), arrivals_run()).summary()
    assert list(summary.columns[:1]) == ["run"]
    assert summary.groupby("run", sort=False).size().to_dict() == {"jobflow": 10, "arrivals": 5}
