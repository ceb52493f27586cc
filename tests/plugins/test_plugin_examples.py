"""The examples of examples/ run end to end: the single-file plugin from its folder, and the
example package installed (its pyproject's entry points, as a temporary dist-info)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from temporary_dist import install_entry_points

from gridsim.analysis.results import load_results
from gridsim.cli import main
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLES = REPOSITORY / "examples"
PACKAGE = EXAMPLES / "gridsim-example-plugins"
GRIDSIM = Path(sys.executable).with_name("gridsim")


@pytest.fixture
def example_package(tmp_path, monkeypatch):
    """The example package as pip would install it: importable, its entry points declared."""
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    install_entry_points(tmp_path / "site", project["name"], project["entry-points"], monkeypatch)
    monkeypatch.syspath_prepend(str(PACKAGE))
    return project["entry-points"]


def quick_run(path: Path, replications: int = 2):
    """The scenario with 2 replications of 30 jobs (the files ask for minutes of runs)."""
    scenario, text = load_scenario(path)
    scenario = scenario.model_copy(update={"queue_sizes": [30]})
    result = run_experiment(scenario, text, replications=replications, jobs=2, progress=False)
    assert result.status == "complete", result.error
    return result.tables


def test_the_single_file_example_runs_from_its_folder_next_to_the_built_ins(tmp_path):
    folder = EXAMPLES / "single-file"
    command = [GRIDSIM, "validate", "compare.yaml"]
    validated = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
    assert validated.returncode == 0, validated.stderr
    # The same scenario with 30 jobs instead of 100, run from the example's folder.
    quick = tmp_path / "compare.yaml"
    quick.write_text((folder / "compare.yaml").read_text().replace("[100]", "[30]"))
    completed = subprocess.run(
        [GRIDSIM, "run", quick, "-r", "2", "-j", "2", "-q", "-o", tmp_path / "out"],
        cwd=folder, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert "WeightedFinish(runtime_weight=0.5)" in completed.stdout
    jobs = load_results(tmp_path / "out").jobs
    assert set(jobs.policy) == {
        "BFfinish", "BFstart", "CoP", "WeightedFinish", "WeightedFinish(runtime_weight=0.5)"
    }  # fmt: skip

    def schedule(policy):  # with runtime_weight 1 the plugin is BFfinish
        return jobs[jobs.policy == policy].drop(columns="policy").reset_index(drop=True)

    pd.testing.assert_frame_equal(schedule("WeightedFinish"), schedule("BFfinish"))


def test_the_example_package_lists_its_plugins(example_package):
    listing = CliRunner().invoke(main, ["policies"]).stdout
    for group in example_package.values():
        for name, target in group.items():
            assert f"[{target}]" in listing
            assert any(line.startswith(f"{name} ") for line in listing.splitlines())


def test_the_example_criterion_runs_from_its_scenario(example_package):
    runs = quick_run(PACKAGE / "scenarios" / "reliable-finish.yaml")["runs"]
    assert set(runs.policy) == {
        "BFfinish", "CoP", "ReliableFinish", "ReliableFinish(reliability_weight=20)"
    }  # fmt: skip
    assert runs.finish_advantage_pct.notna().all()


def test_the_example_scheduler_runs_on_the_instances_of_its_reference(example_package):
    scenarios = PACKAGE / "scenarios"
    plugin = quick_run(scenarios / "smallest-area-easy.yaml")["jobs"]
    reference = quick_run(scenarios / "easy.yaml")["jobs"]
    same_instance = [
        "replication",
        "queue_size",
        "policy",
        "job_id",
        "submit_time",
        "processors",
        "volume",
    ]
    pd.testing.assert_frame_equal(plugin[same_instance], reference[same_instance])
    assert not plugin.start_time.equals(
        reference.start_time
    )  # the queue order changed the schedule
