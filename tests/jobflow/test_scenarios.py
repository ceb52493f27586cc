"""The job-flow scenarios load, run, and produce the documented tables; stats and gantt work."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from matplotlib.figure import Figure

from gridsim.analysis.jobflow_stats import relative_advantage
from gridsim.analysis.plots import plot_gantt as gantt
from gridsim.analysis.results import load_table, select_run
from gridsim.cli import main
from gridsim.config import ScenarioError
from gridsim.experiments.jobflow import run_replication
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import replication_seed, run_experiment

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("coordinated-placement-*.yaml"))


def small(path: Path, sizes=(6, 9)):
    scenario, text = load_scenario(path)
    return scenario.model_copy(update={"queue_sizes": list(sizes)}), text


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_paper_scenarios_load_and_run_a_small_replication(path):
    scenario, _ = small(path)
    tables = run_replication(scenario, 0, replication_seed(scenario.seed, 0))
    assert set(tables) == {"runs", "jobs", "tasks"}
    for table in tables.values():
        assert {"queue_size", "policy", "replication"} <= set(table.columns)
    runs = tables["runs"]
    assert len(runs) == 2 * len(scenario.policies)
    assert (runs["jobs_not_finished"] == 0).all()
    base = runs[runs["policy"] == "BFfinish"]
    assert (base["finish_advantage_pct"] == 0).all()


def test_every_policy_sees_the_same_instance():
    scenario, _ = small(SCENARIOS[0], sizes=(8,))
    jobs = run_replication(scenario, 3, replication_seed(1, 3))["jobs"]
    per_policy = jobs.groupby("policy")[["processors", "volume", "submit_time"]].apply(
        lambda part: tuple(map(tuple, part.to_numpy()))
    )
    assert per_policy.nunique() == 1


def test_arrivals_spread_over_half_the_static_makespan():
    scenario, _ = small(ROOT / "scenarios/coordinated-placement-arrivals.yaml", sizes=(20,))
    tables = run_replication(scenario, 0, replication_seed(scenario.seed, 0))
    static, _ = small(ROOT / "scenarios/coordinated-placement-static.yaml", sizes=(20,))
    static = static.model_copy(update={"seed": scenario.seed})
    reference = run_replication(static, 0, replication_seed(scenario.seed, 0))["runs"]
    makespan = reference.set_index("policy").loc["BFfinish", "makespan"]
    arrivals = tables["jobs"]["submit_time"]
    assert 0 < arrivals.max() <= makespan / 2 and arrivals.nunique() > 1


def test_discrete_time_rounds_arrivals_and_runtimes_up_to_whole_units():
    scenario, _ = small(ROOT / "scenarios/coordinated-placement-arrivals.yaml", sizes=(12,))
    discrete = scenario.model_copy(update={"time_quantum": 1.0})
    seed = replication_seed(scenario.seed, 0)
    continuous, whole = (run_replication(s, 0, seed)["jobs"] for s in (scenario, discrete))
    assert (continuous["submit_time"] % 1 != 0).any()
    for column in ("submit_time", "start_time", "run_time"):
        assert (whole[column] % 1 == 0).all(), column


def test_misspelt_arrival_model_is_an_error_naming_the_field():
    text = (SCENARIOS[1]).read_text().replace("model: static}", "model: statik}")
    with pytest.raises(ScenarioError, match=r"arrivals\.model"):
        load_scenario(text)


def test_baseline_must_be_a_policy():
    text = SCENARIOS[1].read_text().replace("baseline: BFfinish", "baseline: MinCost")
    with pytest.raises(ScenarioError, match=r"^baseline: 'MinCost' is not one of the policies"):
        load_scenario(text)


def test_relative_advantage_is_paired_per_replication():
    runs = pd.DataFrame({
        "queue_size": [5] * 4, "replication": [0, 0, 1, 1],
        "policy": ["A", "B"] * 2, "mean_finish": [100.0, 99.0, 200.0, 190.0],
    })  # fmt: skip
    table = relative_advantage(runs, baseline="A").set_index("policy")
    assert table.loc["B", "advantage_pct"] == pytest.approx(3.0)
    assert table.loc["A", "advantage_pct"] == 0


def test_run_then_gantt_from_the_command_line(tmp_path):
    scenario, text = small(SCENARIOS[1], sizes=(7,))
    run_experiment(scenario, text, replications=1, jobs=1, out_dir=tmp_path / "r",
                   progress=False)  # fmt: skip
    tasks = load_table(tmp_path / "r", "tasks")
    figure = gantt(select_run(tasks, "CoP", 0, 7))
    assert isinstance(figure, Figure)
    result = CliRunner().invoke(
        main, ["gantt", str(tmp_path / "r"), "--policy", "CoP", "-o", str(tmp_path / "g.png")]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "g.png").stat().st_size > 1000
    result = CliRunner().invoke(
        main, ["gantt", str(tmp_path / "r"), "--policy", "CoQ", "-o", str(tmp_path / "x.png")]
    )
    assert result.exit_code == 2 and "no tasks with policy = 'CoQ'" in result.output


def test_nodes_are_sorted_by_performance_in_the_gantt_chart():
    tasks = pd.DataFrame({
        "job_id": [0, 1, -1], "node": [0, 1, 2], "performance": [5.0, 1.0, 9.0],
        "start": [0.0, 0.0, 2.0], "end": [1.0, 2.0, 3.0], "kind": ["job", "job", "local_load"],
    })  # fmt: skip
    labels = [t.get_text() for t in gantt(tasks).axes[0].get_yticklabels()]
    assert labels == ["1 (p=1)", "0 (p=5)", "2 (p=9)"]
    assert np.isfinite(tasks["end"]).all()
