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

import numpy as np
import pandas as pd
import pytest
import yaml
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


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """The explorer of EASY on 60 jobs of three resource classes (GPU jobs, memory-heavy
    jobs, plain cores) on four nodes of 8 cores, 16 GiB and 2 GPUs, and those jobs."""
    from gridsim.workloads.jobs_table import write_jobs_table
    from gridsim.workloads.records import Records, records_frame
    from gridsim.workloads.swf import SwfHeader

    folder = tmp_path_factory.mktemp("mixed")
    count, shape = 60, np.arange(60) % 3  # gpu, memory, cpu in turn
    columns = {
        "job_id": np.arange(1, count + 1), "submit_time": np.arange(count) * 40.0,
        "run_time": 300.0 + 50 * (np.arange(count) % 7), "requested_time": np.full(count, 900.0),
        "requested_processors": np.full(count, 2), "user_id": np.arange(count) % 4 + 1,
        "status": np.ones(count, dtype=int), "wait_time": np.zeros(count),
        "nodes": np.ones(count, dtype=int), "cores_per_node": np.full(count, 2),
        "requested_memory_per_node_mb": np.where(shape == 1, 12288.0, 1024.0),
        "gpus_per_node": np.where(shape == 0, 1, 0),
    }  # fmt: skip
    log = Records(records_frame(columns, count), SwfHeader((("MaxProcs", "32"),)), "mixed",
                  "jobs_table", count)  # fmt: skip
    write_jobs_table(log, folder / "mixed.parquet")
    document = {"name": "mixed", "kind": "swf_replay", "seed": 1, "progress": False,
                "schedulers": ["easy"], "workload": {"path": str(folder / "mixed.parquet")},
                "platform": {"node_classes": [{"count": 4, "cores": 8, "memory_mb": 16384,
                                               "gpus": 2}]}}  # fmt: skip
    scenario, text = load_scenario(yaml.safe_dump(document))
    run_experiment(scenario, text, replications=1, jobs=1, out_dir=folder / "results",
                   progress=False)  # fmt: skip
    results = gridsim.load_results(folder / "results")
    page = folder / "easy.html"
    write_explorer(results, page, policy="easy", selection={"replication": 0})
    return page, results.jobs


def _model(driver, name: str, expression: str):
    return driver.execute_script(
        f"const m = Bokeh.documents[0].get_model_by_name('{name}'); return {expression}"
    )


def test_jobs_are_coloured_and_filtered_by_resource_class(driver, mixed):
    page, jobs = mixed
    chromium.open_explorer(driver, page)
    assert sorted(set(jobs.resource_class)) == ["cpu", "gpu", "memory"]
    colours = "e.gantt.renderers.map(r => r.data_source.data.colour).find(c => c !== undefined)"
    codes = "Array.from(" + colours + ")"
    by_job = chromium.explorer(driver, codes)
    _model(driver, "gridsim-colour", "m.value = 'resource class'")
    rows = chromium.explorer(driver, "Array.from(e.gantt.renderers.map(r => r.data_source.data"
                                     ".row).find(c => c !== undefined))")  # fmt: skip
    drawn = jobs[jobs.start_time.notna()].reset_index(drop=True)
    expected = [12 + ("gpu", "memory", "cpu").index(drawn.resource_class[r]) for r in rows]
    assert chromium.explorer(driver, codes) == expected != by_job
    _model(driver, "gridsim-colour", "m.value = 'job'")
    assert chromium.explorer(driver, codes) == by_job
    _model(driver, "gridsim-classes", "m.active = [0]")  # GPU jobs only
    shown = driver.execute_script(
        "const f = [...Bokeh.documents[0].all_models].find(m => m.type == 'BooleanFilter');"
        "return Array.from(f.booleans)")  # fmt: skip
    assert shown == [drawn.resource_class[r] == "gpu" for r in rows] and 0 < sum(shown) < len(rows)
    job_id = int(drawn[drawn.resource_class == "memory"].job_id.iloc[0])  # hidden now
    row = chromium.explorer(driver, f"e.rowOf({job_id})")
    chromium.move_to(driver, *chromium.explorer(driver, f"e.point({row})"))
    assert chromium.explorer(driver, "e.hovered") != job_id
    _model(driver, "gridsim-classes", "m.active = [1]")  # memory jobs only: one per node
    chromium.move_to(driver, *chromium.explorer(driver, f"e.point({row})"))
    assert chromium.explorer(driver, "e.hovered") == job_id
    tooltip = _model(driver, "gridsim-tooltip", "m.text")
    assert "held 2 cores, 12 GiB, 0 GPUs (memory)" in tooltip


def test_the_resource_panel_shows_every_resource_s_share_in_use(driver, mixed):
    from gridsim.analysis.resource_metrics import resource_timeline
    from gridsim.resources import capacity_matrix

    page, jobs = mixed
    chromium.open_explorer(driver, page)
    figures = driver.execute_script(
        "return [...Bokeh.documents[0].all_models].filter(m => m.type == 'Figure').length"
    )
    assert figures == 4  # the Gantt chart, busy, waiting and the resource panel
    legend = driver.execute_script(
        "return [...Bokeh.documents[0].all_models].filter(m => m.type == 'LegendItem')"
        ".map(i => i.label.value)")  # fmt: skip
    assert legend == ["cores", "memory", "GPUs", "cores stranded"]
    series = driver.execute_script(  # the step functions the panel bins (t, v per line)
        "return [...Bokeh.documents[0].all_models].filter(m => m.type == 'ColumnDataSource'"
        " && m.data.area !== undefined).map(s => [Array.from(s.data.t), Array.from(s.data.v)])"
    )
    capacity = capacity_matrix([8] * 4, [16384] * 4, [2] * 4)
    timeline = resource_timeline(jobs, capacity, True)
    gpus = [t for t in series if t[1] == pytest.approx(list(timeline.utilisation_gpus))]
    assert len(series) == 6 and gpus and max(gpus[0][1]) > 0


def test_jobs_are_coloured_by_their_carbon_on_request(driver, tmp_path):
    """A job flow with a power model and a carbon profile: every rectangle's colour climbs
    with its job's carbon, the least and the most take the ramp's ends, a colour bar names
    what it shows and the tooltip gives the job's carbon."""
    scenario = {
        "name": "carbon", "kind": "jobflow", "seed": 3, "replications": 1,
        "environment": {"nodes": 8, "performance": {"low": 1, "high": 4},
                        "local_load": {"max_utilisation": 0.1},
                        "power": {"idle_watts": 50, "busy_watts": 120,
                                  "busy_watts_per_performance": 40},
                        "carbon_intensity": {"profile": "daily",
                                             "steps": [[0, 300], [0.03, 120]]}},
        "jobs": {"n": [1, 4]}, "queue_sizes": [20], "policies": ["CoP"],
    }  # fmt: skip
    results = gridsim.run(scenario, out=tmp_path / "results", progress=False)
    page = tmp_path / "carbon.html"
    write_explorer(results, page, policy="CoP", selection={"replication": 0},
                   colour_by="carbon_kg")  # fmt: skip
    chromium.open_explorer(driver, page)
    assert chromium.drawn_share(driver) > 0.05
    data = "e.gantt.renderers.map(r => r.data_source.data).find(d => d.by_value !== undefined)"
    codes = chromium.explorer(driver, f"Array.from(({data}).colour)")
    rows = chromium.explorer(driver, f"Array.from(({data}).row)")
    drawn = results.jobs[results.jobs.start_time.notna()].reset_index(drop=True)
    carbon = drawn.carbon_kg.to_numpy()[rows]
    first = 12 + 3  # after the jobs' own colours and the resource classes'
    assert min(codes) == first and max(codes) == first + 63
    order = np.argsort(carbon, kind="stable")
    assert all(np.diff(np.array(codes)[order]) >= 0)  # more carbon, never a lower colour
    assert _model(driver, "gridsim-colour-bar", "m.title") == "carbon per job (kg CO2)"
    job_id = _largest(drawn)
    row = chromium.explorer(driver, f"e.rowOf({job_id})")
    chromium.move_to(driver, *chromium.explorer(driver, f"e.point({row})"))
    value = float(drawn.set_index("job_id").carbon_kg[job_id])
    assert f"carbon (kg CO2) {value:.4g}" in _model(driver, "gridsim-tooltip", "m.text")
