"""Poisson arrivals: the empirical rate and offered utilisation match the requested ones
within their sampling error, and the scenario says what is missing."""

import numpy as np
import pytest
from scipy import stats

from gridsim.config import ScenarioError
from gridsim.experiments.jobflow import generate_instance, with_arrivals
from gridsim.experiments.kinds import load_scenario

QUEUE = 400
SCENARIO = """
name: poisson
kind: jobflow
seed: 7
replications: 1
environment:
  nodes: 24
  performance: {low: 2, high: 16}
  horizon: 1000
  local_load: {max_utilisation: 0.3}
jobs: {n: [1, 8], volume: {low: 60, high: 1200}, runtime_factor: {low: 0.8, high: 1.2}}
arrivals: {model: poisson, %s}
queue_sizes: [%d]
policies: [BFfinish]
"""


def _flows(arrivals: str, replications: int = 6):
    """Per replication: arrival times, job work (n V runtime_factor), environment capacity
    (sum of p times the free share of the horizon), computed here from the instance."""
    scenario, _ = load_scenario(SCENARIO % (arrivals, QUEUE))
    for replication in range(replications):
        rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(replication,)))
        instance = with_arrivals(scenario, *generate_instance(scenario, QUEUE, rng))
        jobs = sorted(instance.jobs, key=lambda job: job.arrival)
        times = np.array([job.arrival for job in jobs])
        work = np.array([job.n * job.volume * job.runtime_factor for job in jobs])
        free = [1 - sum(end - start for start, end in busy) / 1000 for busy in instance.busy]
        capacity = sum(node.performance * f for node, f in zip(instance.nodes, free, strict=True))
        assert min(free) < 1  # there is local load to take off
        yield times, work, capacity


def test_a_poisson_flow_has_the_requested_rate_and_exponential_gaps():
    z_scores = []
    for times, _, _ in _flows("rate: 0.05"):
        gaps = np.diff(times, prepend=0.0)
        assert gaps.min() >= 0
        z_scores.append((gaps.mean() - 1 / 0.05) / (gaps.std(ddof=1) / np.sqrt(len(gaps))))
        assert stats.kstest(gaps, "expon", args=(0, 1 / 0.05)).pvalue > 0.001
    # Each replication within 4 standard errors; their mean within 4 of its own.
    assert np.abs(z_scores).max() < 4
    assert abs(np.mean(z_scores)) * np.sqrt(len(z_scores)) < 4


@pytest.mark.parametrize("target", [0.4, 0.9])
def test_a_poisson_flow_offers_the_requested_utilisation(target):
    z_scores = []
    for times, work, capacity in _flows(f"utilisation: {target}"):
        gaps = np.diff(times, prepend=0.0)
        load = work / capacity  # time units of the whole environment each job asks for
        offered = load.sum() / gaps.sum()  # ratio estimator of utilisation
        # Its standard error by the delta method for a ratio of means.
        error = np.std(load - offered * gaps, ddof=1) / (np.sqrt(len(gaps)) * gaps.mean())
        z_scores.append((offered - target) / error)
    assert np.abs(z_scores).max() < 4
    assert abs(np.mean(z_scores)) * np.sqrt(len(z_scores)) < 4


def test_a_poisson_arrival_model_needs_exactly_one_of_rate_and_utilisation():
    with pytest.raises(ScenarioError, match="model poisson needs either rate"):
        load_scenario(SCENARIO % ("rate: 0.1, utilisation: 0.5", 8))
    with pytest.raises(ScenarioError, match="model poisson needs either rate"):
        load_scenario(SCENARIO % ("span: 10", 8))
    with pytest.raises(ScenarioError, match="rate and utilisation apply to model poisson"):
        load_scenario((SCENARIO % ("rate: 0.1", 8)).replace("model: poisson", "model: static"))
