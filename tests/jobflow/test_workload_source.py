"""A job flow drawn from the Lublin-Feitelson model (``workload: {model: lublin}``): the
sizes, volumes and arrival times are the model's flow for the instance's seed."""

from __future__ import annotations

import numpy as np
import pytest

from gridsim.config import ScenarioError, validate
from gridsim.experiments.jobflow import JobFlowScenario, generate_instance, with_arrivals
from gridsim.workloads.environment import generate_environment
from gridsim.workloads.lublin import lublin_jobs

FLOW = {
    "name": "lublin-flow",
    "kind": "jobflow",
    "environment": {"nodes": 32, "performance": {"low": 2, "high": 4},
                    "local_load": {"max_utilisation": 0}},
    "workload": {"model": "lublin", "machine_processors": 32, "job_classes": "typeless",
                 "reference_performance": 3.0},
    "arrivals": {"model": "workload"},
    "queue_sizes": [40],
    "policies": ["BFstart"],
}  # fmt: skip


def test_jobs_and_arrivals_are_the_model_s_flow_drawn_after_the_environment():
    scenario = validate(JobFlowScenario, FLOW)
    instance, draws = generate_instance(scenario, 40, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    generate_environment(scenario.environment.spec(), rng)  # drawn first, as documented
    flow = lublin_jobs(rng, 40, scenario.workload.parameters())
    assert [job.n for job in instance.jobs] == list(flow.processors)
    assert [job.volume for job in instance.jobs] == list(flow.run_time * 3.0)
    arrived = with_arrivals(scenario, instance, draws)
    assert [job.arrival for job in arrived.jobs] == list(flow.submit_time - flow.submit_time[0])


@pytest.mark.parametrize(
    ("change", "field"),
    [({"workload": {"model": "lublin", "jobs": 5}}, "workload"),
     ({"workload": {"model": "lublin", "machine_processors": 64}}, "workload.machine_processors"),
     ({"workload": None}, "arrivals")],
)  # fmt: skip
def test_a_flow_section_that_cannot_be_drawn_is_named(change, field):
    with pytest.raises(ScenarioError, match=f"^{field}"):
        validate(JobFlowScenario, {**FLOW, **change})
