"""Job-flow scenarios as episode sources: one replication's flow (nodes, local load, jobs) per
episode, row 0 of resource selection is the kind's own run, the queue environments refuse."""

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from schedule_checker import schedule_problems  # noqa: E402

import gridsim.rl  # noqa: E402, F401 - registers the environments
from gridsim.api import load_scenario  # noqa: E402
from gridsim.experiments import jobflow  # noqa: E402
from gridsim.experiments.runner import replication_seed  # noqa: E402
from gridsim.rl.backfill_selection import BackfillSelectionEnv  # noqa: E402
from gridsim.rl.baselines import play  # noqa: E402
from gridsim.rl.job_selection import JobSelectionEnv  # noqa: E402
from gridsim.rl.resource_selection import ResourceSelectionEnv  # noqa: E402
from gridsim.sim.trace import node_ids  # noqa: E402

#: A small flow on 12 heterogeneous priced nodes with local load, runtimes off their
#: estimates both ways (early finishes re-plan, overruns run on), two queue sizes.
FLOW = {
    "name": "small-flow", "kind": "jobflow", "seed": 7, "replications": 2,
    "environment": {"nodes": 12, "performance": {"low": 1, "high": 4}, "horizon": 600,
                    "local_load": {"max_utilisation": 0.3}},
    "jobs": {"n": [1, 4], "volume": {"low": 20, "high": 300},
             "runtime_factor": {"low": 0.5, "high": 1.2}},
    "arrivals": {"model": "poisson", "utilisation": 0.9},
    "queue_sizes": [16, 24], "policies": ["MinCost", "BFfinish"], "priority": "sjf",
}  # fmt: skip
#: Arrival models and priorities the equivalence is checked under.
VARIANTS = {
    "poisson-sjf": {},
    "static-fcfs": {"arrivals": {"model": "static"}, "priority": "fcfs"},
    "makespan-fraction": {"arrivals": {"model": "static_makespan_fraction"},
                          "policies": ["BFfinish", "CoP"]},
}  # fmt: skip


def kind_run(scenario, replication):
    """The job-flow kind's own run of ``replication`` (every policy, every queue size)."""
    validated = load_scenario(scenario)
    seed = replication_seed(validated.seed, replication)
    return jobflow.run_replication(validated, replication, seed)["jobs"]


def test_gymnasium_s_checker_passes_on_a_job_flow():
    check_env(ResourceSelectionEnv(FLOW), skip_render_check=True)
    check_env(ResourceSelectionEnv(FLOW, reward="cost", reward_timing="step"),
              skip_render_check=True)  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
def test_row_zero_is_the_job_flow_s_own_run_of_its_first_policy(variant):
    scenario = {**FLOW, **VARIANTS[variant]}
    env = ResourceSelectionEnv(scenario)
    policy = env.labels[0]
    for replication in range(2):
        expected = kind_run(scenario, replication)
        for queue_size in FLOW["queue_sizes"]:
            options = {"replication": replication, "queue_size": queue_size}
            _, steps, schedule = play(env, lambda observation, info: 0, options=options)
            assert steps == queue_size
            mine = expected[(expected.policy == policy) & (expected.queue_size == queue_size)]
            mine = mine.set_index("job_id").loc[schedule.job_id]
            np.testing.assert_array_equal(schedule.start_time, mine.start_time)
            assert (schedule.allocated_resources.to_numpy() == mine.allocated_resources).all()
            np.testing.assert_array_equal(schedule.finish_time, mine.finish_time)


def test_the_episode_reward_is_the_kind_s_mean_bounded_slowdown_at_the_scenario_s_threshold():
    scenario = {**FLOW, "slowdown_threshold": 25.0}
    expected = kind_run(scenario, 0)
    expected = expected[(expected.policy == "MinCost") & (expected.queue_size == 16)]
    reward, _, _ = play(ResourceSelectionEnv(scenario), lambda o, i: 0,
                        options={"replication": 0})  # fmt: skip
    assert reward == pytest.approx(-expected.bounded_slowdown.mean(), rel=1e-12)


def test_an_episode_is_the_replication_s_instance_with_its_local_load():
    env = ResourceSelectionEnv(FLOW)
    env.reset(options={"replication": 1})
    flow = env.episode.flow
    assert len(flow.jobs) == FLOW["queue_sizes"][0]  # the first queue size by default
    assert any(flow.busy) and len({node.performance for node in flow.nodes}) > 1
    local = [t for t in env.loop.trace.task_records() if t["kind"] == "local_load"]
    assert len(local) == sum(len(intervals) for intervals in flow.busy)


def test_seeded_resets_give_identical_episodes_and_different_seeds_other_flows():
    def trajectory(seed):
        env = ResourceSelectionEnv(FLOW)
        observation, info = env.reset(seed=seed)
        observations, done = [observation], False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[-1])
            observation, _, done, _, info = env.step(action)
            observations.append(observation)
        return env.episode.replication, np.stack(observations), env.schedule()

    first, again, other = trajectory(5), trajectory(5), trajectory(6)
    assert first[0] == again[0] != other[0]
    assert first[1].tobytes() == again[1].tobytes()
    assert first[2].equals(again[2])


def test_random_valid_choices_keep_the_schedule_s_invariants_and_the_local_load():
    env = ResourceSelectionEnv(FLOW, candidates=("BFstart", "CoP", "MinStart"))
    rng = np.random.default_rng(0)
    for seed in range(3):
        _, _, jobs = play(env, lambda o, info: int(rng.choice(np.flatnonzero(info["action_mask"]))),
                          seed=seed)  # fmt: skip
        assert schedule_problems(jobs, 12, len(env.episode.flow.jobs)) == []
        tasks = env.loop.trace.task_records()
        local = [t for t in tasks if t["kind"] == "local_load"]
        for job in jobs.itertuples():
            for node in node_ids(job.allocated_resources):
                assert not any(t["node"] == node and t["start"] < job.finish_time - 1e-6
                               and job.start_time < t["end"] - 1e-6 for t in local)  # fmt: skip


@pytest.mark.parametrize("cls", [JobSelectionEnv, BackfillSelectionEnv])
def test_the_queue_environments_refuse_a_job_flow_in_one_line(cls):
    with pytest.raises(ValueError, match="a job flow's nodes differ") as error:
        cls(FLOW)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "change, field",
    [({"scheduler": "easy"}, "scheduler"),
     ({"faults": {"failures": {"rate": 0.001, "repair_mean": 10}}}, "faults")],
)  # fmt: skip
def test_what_the_environment_cannot_plan_is_refused_naming_the_field(change, field):
    with pytest.raises(ValueError, match=f"small-flow: {field}:"):
        ResourceSelectionEnv({**FLOW, **change})


def test_the_registered_id_takes_a_job_flow_scenario():
    env = gym.make("gridsim/ResourceSelection-v0", scenario=FLOW)
    _, info = env.reset(seed=1, options={"queue_size": 24})
    assert info["criteria"][0] == "MinCost" and len(env.unwrapped.episode.flow.jobs) == 24
