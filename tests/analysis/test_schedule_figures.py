"""The schedule figures' data (processors in use and jobs waiting over time, exact bin
means), the report's numbers formatted for their size, and a log replay's report: the
metrics with intervals, the paired differences grouped by point, and its figures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from analysis_runs import replay_run
from hypothesis import given
from hypothesis import strategies as st

from gridsim.analysis.report import write_report
from gridsim.analysis.report_render import format_mean, format_number
from gridsim.analysis.timelines import Steps, processors_in_use, queue_length

# Three jobs on 4 processors: 1 submitted at 0 runs [0, 10) on 2; 2 submitted at 1 waits
# until 10 and runs [10, 12) on 4; 3 is rejected; 4 submitted at 5 never starts.
JOBS = pd.DataFrame({
    "job_id": [1, 2, 3, 4], "submit_time": [0.0, 1.0, 2.0, 5.0],
    "start_time": [0.0, 10.0, np.nan, np.nan], "finish_time": [10.0, 12.0, np.nan, np.nan],
    "processors": [2, 4, 1, 1],
    "final_state": ["finished", "killed", "rejected", "unfinished"],
})  # fmt: skip


def test_processors_in_use_and_jobs_waiting_step_at_every_change():
    busy = processors_in_use(JOBS)
    assert busy.times.tolist() == [0.0, 10.0, 12.0] and busy.values.tolist() == [2, 4, 0]
    waiting = queue_length(JOBS)  # the rejected job never waits; job 4 waits to the end
    assert waiting.times.tolist() == [0.0, 1.0, 5.0, 10.0]
    assert waiting.values.tolist() == [0, 1, 2, 1]


def test_bin_means_are_the_exact_time_weighted_means():
    busy = processors_in_use(JOBS)
    means = busy.binned_means(np.array([-2.0, 0.0, 5.0, 11.0, 13.0]))
    assert means.tolist() == [0.0, 2.0, (5 * 2 + 1 * 4) / 6, (1 * 4 + 1 * 0) / 2]


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 30), st.integers(1, 8)),
                min_size=1, max_size=25),
       st.integers(1, 40))  # fmt: skip
def test_bin_means_hold_the_processor_time_of_the_jobs(jobs, bins):
    start = np.array([j[0] for j in jobs], dtype=float)
    table = pd.DataFrame({"submit_time": start, "start_time": start,
                          "finish_time": start + [j[1] for j in jobs],
                          "processors": [j[2] for j in jobs]})  # fmt: skip
    edges = np.linspace(0.0, 90.0, bins + 1)
    area = processors_in_use(table).binned_means(edges) * np.diff(edges)
    expected = float((table["processors"] * (table["finish_time"] - table["start_time"])).sum())
    assert math.isclose(area.sum(), expected, rel_tol=1e-12)


def test_a_step_function_without_changes_is_zero():
    assert Steps(np.array([]), np.array([])).binned_means(np.array([0.0, 1.0])).tolist() == [0]


@pytest.mark.parametrize(("mean", "half", "text"), [
    (934.0, 260.0, "930 ± 260"),
    (0.61549, 0.01234, "0.615 ± 0.012"),
    (1234567.0, 2345.0, "1,234,600 ± 2,300"),
    (36775.2, math.nan, "36,775"),
    (818.0, math.nan, "818"),
    (2.5e10, 1e8, "2.500e+10 ± 1e+08"),
    (math.nan, 1.0, "-"),
    (12.0, 0.0, "12 ± 0"),
])  # fmt: skip
def test_numbers_are_formatted_for_their_size(mean, half, text):
    assert format_mean(mean, half) == text


def test_whole_numbers_lose_no_digits_and_fractions_keep_four():
    assert [format_number(v) for v in (0.0, 3.0, 0.61549, 12.5, 1e-4)] == [
        "0", "3", "0.6155", "12.5", "1.000e-04"]  # fmt: skip


def test_the_report_of_a_log_replay_has_its_metrics_figures_and_explorer_pages(tmp_path):
    write_report([replay_run()], tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    html = (tmp_path / "report.html").read_text()
    assert "| policy | replications | mean wait (s) | mean response (s) |" in markdown
    assert "### Paired differences against easy" in markdown
    images = [line for line in markdown.splitlines() if line.startswith("![")]
    names = {line.split("](")[1].rstrip(")") for line in images}
    assert {"swf-replay-utilisation.png", "swf-replay-queue-length.png", "swf-replay-gantt.png",
            "swf-replay-wait-time-cdf.png", "swf-replay-bounded-slowdown-cdf.png",
            "swf-replay-wait-by-size.png", "swf-replay-wait-by-user.png"} <= names  # fmt: skip
    assert all((tmp_path / name).stat().st_size > 5000 for name in names)
    assert all("scenario swf-replay, replication 0" in line for line in images
               if "mean over" not in line)  # fmt: skip
    assert '<td class="number">' in html and "<figcaption>" in html and "<style>" in html
    assert "Cores, memory and GPUs" not in markdown  # processors only: no resource section
    assert not names & {"swf-replay-resource-utilisation.png", "swf-replay-stranded-cores.png"}
    for policy in ("easy", "conservative"):
        assert f'href="swf-replay-explore-{policy}.html"' in html
        assert (tmp_path / f"swf-replay-explore-{policy}.html").stat().st_size > 1e5


def test_a_sweep_s_paired_differences_are_one_collapsible_group_per_point(tmp_path):
    from analysis_runs import jobflow_run

    write_report([jobflow_run()], tmp_path, explore=False)
    html = (tmp_path / "report.html").read_text()
    assert html.count("<details open><summary>queue_size ") == 2
    assert "<summary>queue_size 8</summary>" in html and "<summary>queue_size 16</summary>" in html
    assert not list(tmp_path.glob("*.html"))[1:]  # report.html alone: no explorer pages
