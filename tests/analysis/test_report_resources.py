"""The report's section on cores, memory and GPUs: there for replays on nodes that declare
them, with numbers that agree with the runs table, and absent for processor-only runs (the
report of a processor-only replay is checked for it in test_schedule_figures.py)."""

import numpy as np
import pytest
from analysis_runs import (
    gpu_replay_run,
    heterogeneous_replay_run,
    memory_replay_run,
)

import gridsim
from gridsim.analysis.report import write_report
from gridsim.analysis.report_resources import resource_runs, wait_by_class_table
from gridsim.experiments.kinds import declaration

FIGURES = ("resource-utilisation", "stranded-cores", "wait-by-resource-class")


def test_resource_runs_get_the_section_its_tables_and_figures(tmp_path):
    write_report([gpu_replay_run()], tmp_path, explore=False)
    markdown = (tmp_path / "report.md").read_text()
    page = (tmp_path / "report.html").read_text()
    assert "### Cores, memory and GPUs" in markdown and "Cores, memory and GPUs" in page
    assert "stranded cores (time-average)" in markdown and "| resource class |" in markdown
    for name in FIGURES:
        file = f"swf-replay-{name}.png"
        assert (tmp_path / file).stat().st_size > 5000
        assert f"({file})" in markdown and f'src="{file}"' in page


def test_processor_only_runs_get_no_resource_section():
    source = heterogeneous_replay_run()  # node classes declaring no cores, memory or GPUs
    assert resource_runs(gridsim.load_results(source), declaration("swf_replay"), "x") is None
    assert declaration("swf_replay").node_capacity({"platform": {}}) is None


def test_the_waits_by_resource_class_agree_with_the_runs_table():
    results = gridsim.load_results(memory_replay_run())
    data = resource_runs(results, declaration("swf_replay"), "swf-replay")
    assert data is not None
    table = wait_by_class_table(data)
    runs = results.runs.set_index("policy")
    for row in table.to_dict("records"):
        jobs = data.jobs[row["policy"]]
        assert row["jobs"] == (jobs.resource_class == row["resource class"]).sum()
        expected = runs.loc[row["policy"], f"mean_wait_{row['resource class']}"]
        assert row["mean wait (s)"] == pytest.approx(expected)
    assert set(table["resource class"]) <= {"gpu", "memory", "cpu"} and len(table) > 0


def test_the_utilisation_over_time_averages_to_the_runs_tables_utilisation():
    """The time series and the runs table's figure are the same amount-seconds."""
    from gridsim.analysis.resource_metrics import resource_timeline

    results = gridsim.load_results(gpu_replay_run())
    data = resource_runs(results, declaration("swf_replay"), "swf-replay")
    for policy, jobs in data.jobs.items():
        timeline = resource_timeline(jobs, data.nodes.capacity, data.nodes.memory_tracked)
        span = jobs.finish_time.max() - jobs.submit_time.min()
        widths = np.diff(np.r_[timeline.time, timeline.time.iloc[-1]])
        run = results.runs[results.runs.policy == policy].iloc[0]
        for kind in ("cores", "memory_mb", "gpus"):
            area = float((timeline[f"utilisation_{kind}"] * widths).sum())
            assert area / span == pytest.approx(run[f"utilisation_{kind}"])
        stranded = float((timeline.stranded_cores * widths).sum()) / span
        assert stranded == pytest.approx(run.stranded_cores)
