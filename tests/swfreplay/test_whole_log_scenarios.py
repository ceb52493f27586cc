"""The whole-log node-level scenarios: their third policy gives a schedule of its own."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from gridsim.experiments import swf_replay
from gridsim.experiments.grid import load_experiment

REPOSITORY = Path(__file__).resolve().parents[2]
WHOLE_LOG_SCENARIOS = ["swf-replay-kth-nodes.yaml", "swf-replay-hpc2n-nodes.yaml"]
SCHEDULE = ["job_id", "start_time", "finish_time", "allocated_resources", "cost"]


def schedules(name: str, jobs: int, skip: str) -> dict[str, object]:
    """Each policy's schedule of the scenario's first ``jobs`` jobs (bundled KTH-SP2), all
    policies but ``skip`` (named with no schedule)."""
    document = yaml.safe_load((REPOSITORY / "scenarios" / name).read_text())
    document["workload"]["max_jobs"] = jobs
    document.update(progress=False, record_nodes=True)
    experiment = load_experiment(yaml.safe_dump(document))
    result = {}
    for point in experiment.points:
        if point.values["policy"] == skip:
            result[skip] = None
            continue
        tables = swf_replay.run_replication(point.scenario, 0, np.random.SeedSequence(0))
        result[point.values["policy"]] = tables["jobs"][SCHEDULE].reset_index(drop=True)
    return result


@pytest.mark.parametrize("name", WHOLE_LOG_SCENARIOS)
def test_the_ssa_criterion_schedules_some_job_differently_from_bffinish(name):
    # The third policy is there to be compared with BFfinish: a criterion that gave
    # BFfinish's schedule job for job would add a row of the same figures.
    by_policy = schedules(name, jobs=200, skip="CoP")
    assert set(by_policy) >= {"BFfinish", "CoP"} and len(by_policy) == 3
    (ssa,) = set(by_policy) - {"BFfinish", "CoP"}
    bffinish, other = by_policy["BFfinish"], by_policy[ssa]
    assert (bffinish.job_id == other.job_id).all()
    differs = (
        (bffinish.start_time != other.start_time)
        | (bffinish.finish_time != other.finish_time)
        | (bffinish.allocated_resources.astype(str) != other.allocated_resources.astype(str))
    )
    assert differs.sum() > 0
    assert other.cost.sum() != bffinish.cost.sum()
