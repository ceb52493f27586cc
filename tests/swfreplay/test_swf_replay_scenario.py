"""The swf_replay scenario kind, its YAML example and `gridsim run --log`."""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from gridsim.analysis.jobflow_metrics import jobflow_summary
from gridsim.analysis.results import load_table
from gridsim.cli import main
from gridsim.config import ScenarioError
from gridsim.experiments import swf_replay
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.kinds import load_scenario

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLE = REPOSITORY / "scenarios" / "swf-replay.yaml"
EXCERPTS = REPOSITORY / "tests" / "data" / "swf"
KTH_300 = EXCERPTS / "KTH-SP2-1996-2.1-cln-first300.swf"


def scenario(**changes):
    document = yaml.safe_load(EXAMPLE.read_text())
    document["progress"] = False
    for key, value in changes.items():
        document[key] = value
    return load_scenario(yaml.safe_dump(document))[0]


def run(model):
    return swf_replay.run_replication(model, 0, np.random.SeedSequence(0))


def test_the_example_replays_the_bundled_log_under_three_schedulers():
    model = scenario(workload={"max_jobs": 400})
    assert model.workload.source().name == "kth-sp2-first2000.swf.gz"
    tables = run(model)
    runs = tables["runs"]
    assert runs.policy.tolist() == ["fcfs", "easy", "conservative"]
    assert (runs.jobs == 400).all()
    assert (runs.peak_processors <= 100).all()
    # backfilling helps on this log: both backfilling schedulers wait less than FCFS
    wait = dict(zip(runs.policy, runs.mean_wait_time, strict=True))
    assert wait["easy"] < wait["fcfs"] and wait["conservative"] < wait["fcfs"]
    jobs = tables["jobs"]
    assert len(jobs) == 3 * 400
    assert set(tables["users"].policy) == {"fcfs", "easy", "conservative"}
    conservative = jobs[jobs.scheduler == "conservative"]
    assert (conservative.start_time <= conservative.first_reservation).all()
    assert jobs.allocated_resources.str.len().min() > 0
    # the run row is the metrics module's summary of the jobs table
    summary = jobflow_summary(conservative, 100)
    row = runs[runs.policy == "conservative"].iloc[0]
    assert row.mean_bounded_slowdown == pytest.approx(summary.mean_bounded_slowdown)
    assert row.utilisation == pytest.approx(summary.utilisation)


def test_the_summary_has_one_row_per_scheduler():
    tables = run(scenario(workload={"max_jobs": 50}, schedulers=["easy", "conservative"]))
    summary = swf_replay.summarise(tables["runs"])
    assert summary.policy.tolist() == ["easy", "conservative"]
    assert set(swf_replay.DISPLAY_METRICS) <= {c.removesuffix("_mean") for c in summary}


def test_the_bounded_slowdown_threshold_is_configurable():
    small = run(scenario(workload={"max_jobs": 200}, schedulers=["fcfs"]))["runs"]
    large = run(scenario(workload={"max_jobs": 200}, schedulers=["fcfs"],
                         bounded_slowdown_threshold=3600.0))["runs"]  # fmt: skip
    assert large.mean_bounded_slowdown[0] < small.mean_bounded_slowdown[0]


def test_differing_node_classes_run_every_scheduler_on_the_node_level_engine():
    model = scenario(
        workload={"path": str(KTH_300), "max_jobs": 80},
        platform={"node_classes": [{"count": 60, "performance": 1.0, "price": 1.0},
                                   {"count": 40, "performance": 2.0, "price": 3.0}]},
        schedulers=["fcfs", "easy", "conservative"],
        policy="BFfinish",
    )  # fmt: skip
    tables = run(model)
    runs = tables["runs"]
    assert runs.policy.tolist() == ["fcfs/BFfinish", "easy/BFfinish", "conservative/BFfinish"]
    assert (runs.jobs == 80).all() and (runs.peak_processors <= 100).all()
    jobs = tables["jobs"]
    assert len(jobs) == 3 * 80
    assert (jobs.start_time >= jobs.submit_time).all()
    assert (jobs.run_time <= jobs.requested_time + 1e-6).all()  # faster nodes never run longer
    conservative = jobs[jobs.scheduler == "conservative"]
    assert (conservative.start_time <= conservative.first_reservation + 1e-6).all()
    assert jobs[jobs.scheduler != "conservative"].first_reservation.isna().all()
    fcfs = jobs[jobs.scheduler == "fcfs"].sort_values(["submit_time", "job_id"])
    assert (fcfs.start_time.diff().dropna() >= 0).all()  # FCFS: starts in arrival order
    # backfilling helps here too
    wait = dict(zip(runs.scheduler, runs.mean_wait_time, strict=True))
    assert wait["easy"] < wait["fcfs"] and wait["conservative"] < wait["fcfs"]


def test_a_uniformly_faster_machine_scales_every_time():
    model = scenario(workload={"path": str(KTH_300)}, schedulers=["easy"],
                     platform={"node_classes": [{"count": 100, "performance": 2.0}]})  # fmt: skip
    jobs = run(model)["jobs"]
    log = swf_replay.load_log(model).jobs
    assert np.allclose(jobs.run_time, log.duration / 2)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"schedulers": ["easy", "easy"]}, "schedulers: expected distinct schedulers"),
        ({"schedulers": ["sjf"]}, "schedulers.0: Input should be 'fcfs', 'easy'"),
        ({"workload": {"path": "/no/such.swf"}}, "workload.path: no such log file"),
        ({"workload": {"mapping": {"on_overun": "kill"}}}, "workload.mapping.on_overun: unknown"),
        ({"policy": "BFstrat"}, "policy: .*BFstart"),
        ({"bounded_slowdown_threshold": 0}, "bounded_slowdown_threshold: .*greater than 0"),
    ],
)
def test_scenario_errors_name_the_field(changes, message):
    with pytest.raises(ScenarioError, match=message):
        scenario(**changes)


def test_a_log_without_a_machine_size_is_refused_saying_how_to_give_one(tmp_path):
    headerless = tmp_path / "headerless.swf"
    lines = [line for line in KTH_300.read_text().splitlines() if not line.startswith(";")]
    headerless.write_text("; MaxProcs: 0\n" + "\n".join(lines[:50]) + "\n")
    document = yaml.safe_load(EXAMPLE.read_text())
    document["workload"] = {"path": str(headerless)}
    with pytest.raises(
        ScenarioError,
        match=r"^workload.path: .*headerless.swf gives no machine "
        r"size .*workload.mapping.machine_processors.*platform.node_classes$",
    ):
        load_experiment(yaml.safe_dump(document))
    model = load_scenario(yaml.safe_dump(document))[0]  # not checked for feasibility
    with pytest.raises(ScenarioError, match="gives no machine size"):
        run(model)  # the same line from a replication, not a bug
    for given in ({"workload": {"path": str(headerless), "mapping": {"machine_processors": 100}}},
                  {"platform": {"node_classes": [{"count": 100}]}}):  # fmt: skip
        runs = run(load_experiment(yaml.safe_dump({**document, **given})).scenario)["runs"]
        assert set(runs["jobs"]) == {50}


def run_on_kth_300(tmp_path: Path, scenario: dict):
    """``gridsim run`` of ``scenario`` (written to a file) with ``--log`` the 300-job KTH
    excerpt; the CLI's result (exit code checked) and the results folder."""
    path, out = tmp_path / "replay.yaml", tmp_path / "out"
    path.write_text(yaml.safe_dump(scenario))
    result = CliRunner().invoke(
        main, ["run", str(path), "-j", "1", "-q", "-o", str(out), "--log", str(KTH_300)]
    )
    assert result.exit_code == 0, result.output
    return result, out


def test_gridsim_run_replays_the_log_given_by_log(tmp_path):
    example = yaml.safe_load(EXAMPLE.read_text())
    example["workload"]["max_jobs"] = 100
    result, out = run_on_kth_300(tmp_path, example)
    assert result.output.splitlines()[0].split()[:3] == ["policy", "runs", "mean_wait_time"]
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["scenario_resolved"]["workload"]["path"] == str(KTH_300)
    assert metadata["scenario_text"].startswith("# workload.path set by --log")
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "jobs", "metadata.json", "paired.parquet", "runs", "summary.csv", "users",
    ]  # fmt: skip
    jobs = load_table(out, "jobs")
    assert jobs.job_id.nunique() == 100


def test_log_is_refused_for_other_kinds():
    result = CliRunner().invoke(main, ["run", str(REPOSITORY / "scenarios" / "window-search.yaml"),
                                       "--log", str(KTH_300)])  # fmt: skip
    assert result.exit_code == 2
    assert "--log applies to swf_replay scenarios" in result.output


def test_node_level_replays_report_cost_and_move_a_progress_bar_to_the_last_submission(
    monkeypatch,
):
    import io

    from tqdm import tqdm

    bars = []

    def visible_bar(*args, **kwargs):
        kwargs.update(disable=False, file=io.StringIO())
        bars.append(tqdm(*args, **kwargs))
        return bars[-1]

    monkeypatch.setattr("tqdm.tqdm", visible_bar)
    monkeypatch.setattr("gridsim.experiments.swf_replay_tables.is_terminal", lambda stream: True)
    document = yaml.safe_load(
        (REPOSITORY / "scenarios" / "swf-replay-heterogeneous.yaml").read_text()
    )
    document.update(schedulers=["conservative"], workload={"max_jobs": 60})
    model = load_scenario(yaml.safe_dump(document))[0]
    tables = run(model)
    assert len(bars) == 1 and bars[0].n == bars[0].total > 0
    jobs = tables["jobs"]
    assert tables["runs"].total_cost.iloc[0] == pytest.approx(jobs.cost.sum())
    # a job's cost: the time it held its nodes times their prices (60 at 1, 40 at 2 per s)
    held = jobs.finish_time - jobs.start_time
    assert (jobs.cost >= held * jobs.processors - 1e-6).all()
    assert (jobs.cost <= 2 * held * jobs.processors + 1e-6).all()


def test_a_sweep_over_policy_prints_the_policy_column_once(tmp_path):
    nodes = yaml.safe_load((REPOSITORY / "scenarios" / "swf-replay-kth-nodes.yaml").read_text())
    nodes["workload"]["max_jobs"] = 30
    nodes["sweep"] = {"policy": ["BFfinish", "CoP"]}
    result, _ = run_on_kth_300(tmp_path, nodes)
    header, *rows = result.output.split("\n\n")[0].splitlines()
    assert header.split()[:2] == ["policy", "runs"]
    assert [row.split()[:2] for row in rows] == [
        ["conservative/BFfinish", "1"], ["conservative/CoP", "1"],
    ]  # fmt: skip
