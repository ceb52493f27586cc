"""Common random numbers: in a replication every policy of every kind runs on the same
instance (docs/architecture.md), so policy differences are not sampling noise.

Two independent checks. Order: a policy's results in a replication do not depend on which
policies run before it (listing the policies in reverse order changes no row). Sight: what
each policy was given is compared directly -- the profile every window search was asked to
search, a job flow's jobs and local load, the slot list and jobs of every batch search, the seeds
each cloud policy simulates with, an SWF replay's jobs.
"""

import crn_witness
import pandas as pd
import pytest
import yaml
from kind_scenarios import BY_KIND

from gridsim.experiments import batch as batch_experiment
from gridsim.experiments import cloud as cloud_experiment
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment

REPLICATIONS = range(2, 4)
#: Columns that hold measured wall-clock time (differ from run to run).
WALL_CLOCK = ["search_time_s", "sim_time_s", "replay_time_s", "replay_cpu_s", "jobs_per_second"]
#: Where each kind lists its policies, and the columns that identify a row of ``runs``.
POLICY_FIELD = {"swf_replay": "schedulers"}
ROW_KEYS = {"jobflow": ["replication", "queue_size", "policy"], "batch": ["replication", "policy",
            "goal"]}  # fmt: skip


def run(document: dict):
    model, text = load_scenario(yaml.safe_dump(document, sort_keys=False))
    return model, run_experiment(model, text, replications=REPLICATIONS, jobs=1,
                                 progress=False).tables  # fmt: skip


def by_row(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    table = table.drop(columns=WALL_CLOCK, errors="ignore")
    return table.sort_values(keys, kind="stable").reset_index(drop=True)


@pytest.mark.parametrize("kind", sorted(BY_KIND))
def test_reversing_the_policies_changes_no_policy_s_results(kind):
    document = yaml.safe_load(BY_KIND[kind])
    field = POLICY_FIELD.get(kind, "policies")
    reversed_document = {**document, field: document[field][::-1]}
    if kind == "jobflow":  # the advantage column is relative to the baseline: keep it
        reversed_document["baseline"] = document["baseline"]
    _, forward = run(document)
    _, backward = run(reversed_document)
    keys = ROW_KEYS.get(kind, ["replication", "policy"])
    pd.testing.assert_frame_equal(by_row(forward["runs"], keys), by_row(backward["runs"], keys))


def test_every_window_search_policy_searches_the_same_profile():
    document = yaml.safe_load(BY_KIND["window_search"])
    document["policies"] = [{"name": "crn_witness:Witness", "tag": tag} for tag in (1, 2, 3)]
    crn_witness.SEEN.clear()
    run(document)
    assert [tag for tag, _ in crn_witness.SEEN] == [1, 2, 3] * len(REPLICATIONS)
    per_replication = [crn_witness.SEEN[i : i + 3] for i in range(0, len(crn_witness.SEEN), 3)]
    digests = [{profile for _, profile in searches} for searches in per_replication]
    assert [len(seen) for seen in digests] == [1] * len(REPLICATIONS)  # one profile each
    assert digests[0] != digests[1]  # and another in the next replication


def test_every_jobflow_policy_gets_the_same_jobs_and_local_load():
    _, tables = run(yaml.safe_load(BY_KIND["jobflow"]))
    for (_, _), jobs in tables["jobs"].groupby(["replication", "queue_size"]):
        drawn = ["job_id", "submit_time", "processors", "volume"]
        instance = {policy: part[drawn].reset_index(drop=True)
                    for policy, part in jobs.groupby("policy")}  # fmt: skip
        first, *others = instance.values()
        for other in others:
            pd.testing.assert_frame_equal(first, other)
    local = tables["tasks"][tables["tasks"]["kind"] == "local_load"]
    for (_, _), tasks in local.groupby(["replication", "queue_size"]):
        load = [part[["node", "start", "end"]].reset_index(drop=True)
                for _, part in tasks.groupby("policy")]  # fmt: skip
        assert len(load) == 3 and len(load[0]) > 0
        for other in load[1:]:
            pd.testing.assert_frame_equal(load[0], other)


def test_every_batch_policy_gets_the_same_batch_and_slot_list(monkeypatch):
    searched = []
    find_alternatives = batch_experiment.find_alternatives

    def noting(profile, jobs, search):
        searched.append((crn_witness.digest(profile), jobs))
        return find_alternatives(profile, jobs, search)

    monkeypatch.setattr(batch_experiment, "find_alternatives", noting)
    _, tables = run(yaml.safe_load(BY_KIND["batch"]))
    assert len(searched) == 2 * len(REPLICATIONS)  # two policies per cycle
    for alp, amp in zip(searched[::2], searched[1::2], strict=True):
        assert alp == amp
    assert searched[0] != searched[2]
    batch = ["job_id", "processors", "requested_time", "min_performance", "price_cap"]
    for _, jobs in tables["jobs"].groupby("replication"):
        parts = [part[batch].reset_index(drop=True) for _, part in jobs.groupby(["policy", "goal"])]
        for other in parts[1:]:
            pd.testing.assert_frame_equal(parts[0], other)


def test_every_cloud_policy_simulates_with_the_same_seeds(monkeypatch):
    seen = []
    simulate = cloud_experiment.simulate

    def noting(scenario, policy, instance_seed, noise_seed):
        seen.append(tuple((s.entropy, s.spawn_key, s.n_children_spawned)
                          for s in (instance_seed, noise_seed)))  # fmt: skip
        return simulate(scenario, policy, instance_seed, noise_seed)

    monkeypatch.setattr(cloud_experiment, "simulate", noting)
    run(yaml.safe_load(BY_KIND["cloud"]))
    assert len(seen) == 2 * len(REPLICATIONS)
    assert seen[0] == seen[1] and seen[2] == seen[3] and seen[0] != seen[2]


def test_every_swf_scheduler_replays_the_same_jobs():
    _, tables = run(yaml.safe_load(BY_KIND["swf_replay"]))
    log = ["job_id", "user_id", "submit_time", "run_time", "requested_time", "processors"]
    parts = [part[log].reset_index(drop=True) for _, part in tables["jobs"].groupby("scheduler")]
    assert [len(part) for part in parts] == [60 * len(REPLICATIONS)] * 3
    for other in parts[1:]:
        pd.testing.assert_frame_equal(parts[0], other)
