"""The seed tree: replication ``r``'s instance is the one its documented spawn key gives.

Documented keys (docs/architecture.md, docs/jobflow.md, docs/batch.md, docs/cloud.md):
replication ``r`` draws from ``SeedSequence(seed, spawn_key=(r,))``; a job flow's queue size
``q`` from ``(r, q)``; a batch cycle's slot list from ``(r, 0)`` and its batch from ``(r, 1)``;
a cloud replication's instance from ``(r, 0)`` and its noise from ``(r, 1)``; an SWF replay
uses no random numbers. Each test rebuilds the instance from the key written out here, not
through gridsim's own seed helpers, and compares with what a run of replications 2 and 3 wrote.
"""

from functools import cache

import numpy as np
import pandas as pd
import pytest
from kind_scenarios import BY_KIND, scenario

from gridsim.cloud.simulation import simulate as simulate_cloud
from gridsim.experiments import jobflow
from gridsim.experiments.kinds import kind_module
from gridsim.experiments.runner import run_experiment
from gridsim.scheduling.batch.cycle import find_alternatives
from gridsim.scheduling.batch.search import SEARCHES
from gridsim.sim.engine import simulate as simulate_flow
from gridsim.workloads.batch_generators import generate_batch, generate_slot_list
from gridsim.workloads.environment import generate_environment

REPLICATIONS = range(2, 4)


def rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


@cache
def run(kind: str, seed: int | None = None):
    """Replications 2 and 3 of the kind's scenario, run once per test process."""
    model, text = scenario(kind) if seed is None else scenario(kind, seed=seed)
    tables = run_experiment(model, text, replications=REPLICATIONS, jobs=1, progress=False).tables
    return model, tables


def rows(table: pd.DataFrame, **where) -> pd.DataFrame:
    mask = np.logical_and.reduce([table[column] == value for column, value in where.items()])
    return table[mask].reset_index(drop=True)


def test_window_search_replication_r_searches_the_environment_of_key_r():
    model, tables = run("window_search")
    request = model.request.request()
    for r in REPLICATIONS:
        environment = generate_environment(model.environment.spec(), rng(model.seed, r))
        for criterion in model.criteria():
            window = criterion.search(environment.profile(), request)
            (row,) = rows(tables["runs"], replication=r, policy=criterion.label).itertuples()
            assert (row.start, row.cost, row.nodes) == (
                window.start, window.cost, " ".join(map(str, window.nodes))
            )  # fmt: skip


def test_jobflow_replication_r_queue_size_q_is_the_instance_of_key_r_q():
    model, tables = run("jobflow")
    for r in REPLICATIONS:
        for q in model.queue_sizes:
            instance, draws = jobflow.generate_instance(model, q, rng(model.seed, r, q))
            instance = jobflow.with_arrivals(model, instance, draws)
            for criterion in model.criteria():
                trace = simulate_flow(instance, criterion, model.priority)
                expected = trace.jobs_table()[
                    ["job_id", "submit_time", "start_time", "allocated_resources"]
                ]
                written = rows(tables["jobs"], replication=r, queue_size=q, policy=criterion.label)
                pd.testing.assert_frame_equal(written[expected.columns], expected)


def test_batch_cycle_r_draws_its_slot_list_from_key_r_0_and_its_batch_from_r_1():
    model, tables = run("batch")
    for r in REPLICATIONS:
        profile = generate_slot_list(rng(model.seed, r, 0), model.slots.parameters())
        jobs = generate_batch(rng(model.seed, r, 1), model.jobs.parameters(model.slots.price_base))
        for policy in model.policies:
            alternatives = find_alternatives(profile, jobs, SEARCHES[policy.name])
            written = rows(tables["jobs"], replication=r, policy=policy.name, goal="time")
            rebuilt = written.assign(
                processors=[job.n for job in jobs],
                requested_time=[job.runtime for job in jobs],
                price_cap=[job.price_cap for job in jobs],
                alternatives=[len(windows) for windows in alternatives],
            )
            pd.testing.assert_frame_equal(written, rebuilt)
            (run_row,) = rows(tables["runs"], replication=r, policy=policy.name, goal="time")[
                ["slots"]
            ].itertuples()
            assert run_row.slots == len(profile.slot_table())


def test_cloud_replication_r_draws_its_instance_from_key_r_0_and_its_noise_from_r_1():
    model, tables = run("cloud")
    for r in REPLICATIONS:
        for policy, label in zip(model.policies, tables["runs"]["policy"].unique(), strict=True):
            instance_seed, noise_seed = (
                np.random.SeedSequence(model.seed, spawn_key=(r, k)) for k in (0, 1)
            )
            record = simulate_cloud(model, policy, instance_seed, noise_seed)
            (row,) = rows(tables["runs"], replication=r, policy=label).itertuples()
            assert (row.makespan_s, row.tasks) == (record.makespan_s, len(record.tasks))
            written = rows(tables["tasks"], replication=r, policy=label)
            assert written["end_s"].tolist() == [task["end_s"] for task in record.tasks]


def test_an_swf_replay_is_the_same_at_every_replication_and_seed():
    _, tables = run("swf_replay")
    _, reseeded = run("swf_replay", seed=99)
    for name in ("runs", "jobs"):
        first, second = (rows(tables[name], replication=r) for r in REPLICATIONS)
        pd.testing.assert_frame_equal(
            first.drop(columns=["replication", *WALL_CLOCK], errors="ignore"),
            second.drop(columns=["replication", *WALL_CLOCK], errors="ignore"),
        )
        pd.testing.assert_frame_equal(
            tables[name].drop(columns=WALL_CLOCK, errors="ignore"),
            reseeded[name].drop(columns=WALL_CLOCK, errors="ignore"),
        )


@pytest.mark.parametrize("kind", sorted(BY_KIND))
def test_the_runner_hands_replication_r_the_seed_of_key_r(kind):
    """Second, independent check of the root key, for every kind: the kind's own
    ``run_replication`` given ``SeedSequence(seed, spawn_key=(r,))`` writes the same tables as
    the runner, and replications differ from each other (an SWF replay excepted)."""
    model, tables = run(kind)
    module = kind_module(model)
    by_replication = {}
    for r in REPLICATIONS:
        direct = module.run_replication(
            model, r, np.random.SeedSequence(model.seed, spawn_key=(r,))
        )
        for name, table in direct.items():
            written = rows(tables[name], replication=r)[table.columns]
            pd.testing.assert_frame_equal(
                written.drop(columns=WALL_CLOCK, errors="ignore"),
                table.drop(columns=WALL_CLOCK, errors="ignore"),
                check_dtype=False,
            )
        by_replication[r] = direct["runs"].drop(
            columns=["replication", *WALL_CLOCK], errors="ignore"
        )
    if kind != "swf_replay":
        assert not by_replication[2].equals(by_replication[3])


#: Columns that hold measured wall-clock time (differ from run to run).
WALL_CLOCK = ["search_time_s", "sim_time_s", "replay_time_s", "replay_cpu_s", "jobs_per_second"]
