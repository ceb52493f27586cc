"""The explorer in a real browser: Debian's headless Chromium opens the explorer of the
bundled KTH-SP2 excerpt and of a job flow, draws every job, shows a job's tooltip on hover,
outlines the jobs it waited behind on a click, zooms with the wheel (the panels follow) and
finds a job by id.

Skipped, saying why, when no Chromium is installed -- except under CI (``CI`` set), where
``.ci/run`` installs it and a missing browser fails.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
import pytest
from analysis_runs import jobflow_run

import gridsim
from gridsim.analysis.explore import write_explorer
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment
from gridsim.sim.trace import node_ids

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import chromium  # noqa: E402


@pytest.fixture(scope="module")
def driver():
    reason = chromium.missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs a browser for the explorer tests: {reason}")
        pytest.skip(f"no browser for the explorer tests: {reason}")
    with chromium.browser() as opened:
        yield opened


@pytest.fixture(scope="module")
def kth(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """The explorer of EASY on the bundled first 2000 jobs of KTH-SP2, and those jobs."""
    folder = tmp_path_factory.mktemp("kth") / "results"
    scenario, text = load_scenario(ROOT / "scenarios" / "swf-replay.yaml")
    scenario = scenario.model_copy(update={"schedulers": ["easy"], "progress": False})
    run_experiment(scenario, text, replications=1, jobs=1, out_dir=folder, progress=False)
    results = gridsim.load_results(folder)
    page = folder.parent / "easy.html"
    write_explorer(results, page, policy="easy", selection={"replication": 0})
    return page, results.jobs


def _waited_behind(jobs: pd.DataFrame, job_id: int) -> set[int]:
    """The jobs that held one of the job's nodes while it waited: worked out from the jobs
    table, independently of the page's JavaScript."""
    job = jobs.set_index("job_id").loc[job_id]
    mine = set(node_ids(job["allocated_resources"]))
    return {
        int(other.job_id) for other in jobs.itertuples()
        if other.job_id != job_id and other.finish_time > job["submit_time"]
        and other.start_time < job["start_time"]
        and mine & set(node_ids(other.allocated_resources))
    }  # fmt: skip


def _largest(jobs: pd.DataFrame, waited: bool = False) -> int:
    """A job easy to point at: the largest rectangle (processors x run time), among the
    jobs that waited when ``waited``."""
    chosen = jobs[jobs["wait_time"] > 0] if waited else jobs
    single = chosen[~chosen["allocated_resources"].str.contains(" ")]  # one rectangle
    area = single["processors"] * single["run_time"]
    return int(single.loc[area.idxmax(), "job_id"])


def test_the_kth_excerpt_renders_every_job(driver, kth):
    page, jobs = kth
    seconds = chromium.open_explorer(driver, page)
    assert 0 < seconds < 30
    assert chromium.explorer(driver, "e.jobs") == len(jobs) == 2000
    assert chromium.explorer(driver, "e.quads") == sum(len(t.split()) for t in
                                                       jobs["allocated_resources"])  # fmt: skip
    assert chromium.drawn_share(driver) > 0.2  # the canvas holds the schedule, not a blank


def test_hovering_a_job_shows_its_tooltip(driver, kth):
    page, jobs = kth
    chromium.open_explorer(driver, page)
    job_id = _largest(jobs)
    row = chromium.explorer(driver, f"e.rowOf({job_id})")
    chromium.move_to(driver, *chromium.explorer(driver, f"e.point({row})"))
    assert chromium.explorer(driver, "e.hovered") == job_id
    text = driver.execute_script(
        "return Bokeh.documents[0].get_model_by_name('gridsim-tooltip').text"
    )
    job = jobs.set_index("job_id").loc[job_id]
    assert f"<b>job {job_id}</b> (user {job['user_id']}, finished)" in text
    assert f"{job['processors']} processors: nodes {job['allocated_resources']}" in text
    assert "submit 1996-" in text  # the log's dates, from its UnixStartTime


def test_clicking_a_job_outlines_the_jobs_it_waited_behind(driver, kth):
    page, jobs = kth
    chromium.open_explorer(driver, page)
    job_id = _largest(jobs, waited=True)
    row = chromium.explorer(driver, f"e.rowOf({job_id})")
    chromium.click_at(driver, *chromium.explorer(driver, f"e.point({row})"))
    assert chromium.explorer(driver, "e.selected") == job_id
    behind = set(chromium.explorer(driver, "e.behind"))
    assert behind == _waited_behind(jobs, job_id) and behind


def test_the_wheel_zooms_the_time_axis_and_the_panels_follow(driver, kth):
    page, _ = kth
    chromium.open_explorer(driver, page)
    before = chromium.explorer(driver, "e.range()")
    _x, y = chromium.explorer(driver, "e.point(0)")
    chromium.wheel(driver, 700, y, -400)
    after = chromium.explorer(driver, "e.range()")
    assert after[1] - after[0] < 0.9 * (before[1] - before[0])
    ranges = driver.execute_script(
        "return [...Bokeh.documents[0].all_models].filter(m => m.type == 'Figure')"
        ".map(f => [f.x_range.start, f.x_range.end])")  # fmt: skip
    assert len(ranges) == 3 and all(r == ranges[0] for r in ranges)


def test_the_search_box_finds_a_job_and_shows_its_time(driver, kth):
    page, jobs = kth
    chromium.open_explorer(driver, page)
    job_id = int(jobs["job_id"].iloc[1500])
    whole = chromium.explorer(driver, "e.range()")
    field = driver.execute_script(
        "const m = window.gridsimExplorer.search;"
        "return Bokeh.index.find_one(m).input_el")  # fmt: skip
    field.send_keys(f"{job_id}\n")
    assert chromium.explorer(driver, "e.selected") == job_id
    start, end = chromium.explorer(driver, "e.range()")
    submit, finish = chromium.explorer(driver, f"e.times(e.rowOf({job_id}))")
    assert start < submit < finish < end  # the view holds the job's life, zoomed in on it
    assert end - start < 0.5 * (whole[1] - whole[0])


def test_a_job_flow_explorer_renders_on_time_units(driver, tmp_path):
    results = gridsim.load_results(jobflow_run())
    page = tmp_path / "cop.html"
    drawn = write_explorer(results, page, policy="CoP", selection={"replication": 0,
                                                                    "queue_size": 16})  # fmt: skip
    chromium.open_explorer(driver, page)
    assert chromium.explorer(driver, "e.jobs") == drawn == 16
    assert chromium.drawn_share(driver) > 0.05
    job_id = _largest(results.jobs[(results.jobs["policy"] == "CoP")
                                   & (results.jobs["replication"] == 0)
                                   & (results.jobs["queue_size"] == 16)])  # fmt: skip
    row = chromium.explorer(driver, f"e.rowOf({job_id})")
    chromium.move_to(driver, *chromium.explorer(driver, f"e.point({row})"))
    text = driver.execute_script(
        "return Bokeh.documents[0].get_model_by_name('gridsim-tooltip').text"
    )
    assert f"<b>job {job_id}</b> (no user, finished)" in text and "time units" in text


def test_a_view_of_more_rectangles_than_the_limit_shows_the_image_until_zoomed_in(
    driver, kth, monkeypatch
):
    import gridsim.analysis.explore as explore

    page, _ = kth
    monkeypatch.setattr(explore, "DETAIL_RECTANGLES", 1000)  # the excerpt has 5,308
    coarse = page.with_name("coarse.html")
    results = gridsim.load_results(page.parent / "results")
    write_explorer(results, coarse, policy="easy", selection={"replication": 0})
    chromium.open_explorer(driver, coarse)
    shown = "[e.quadsShown(), e.rasterShown()]"
    assert chromium.explorer(driver, shown) == [False, True]
    assert chromium.drawn_share(driver) > 0.2  # the image holds the schedule
    _, y = chromium.explorer(driver, "e.point(0)")
    for _ in range(4):  # zoom in to a view holding fewer than 1,000 rectangles
        chromium.wheel(driver, 700, y, -600)
    assert chromium.explorer(driver, shown) == [True, False]
