"""The three environments as Gymnasium sees them, and the schedules random agents make."""

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from schedule_checker import schedule_problems  # noqa: E402

import gridsim.rl  # noqa: E402
from gridsim.rl.backfill_selection import BackfillSelectionEnv  # noqa: E402
from gridsim.rl.baselines import play, schedule_metrics  # noqa: E402
from gridsim.rl.episodes import EpisodeSource  # noqa: E402
from gridsim.rl.job_selection import JobSelectionEnv  # noqa: E402
from gridsim.rl.resource_selection import ResourceSelectionEnv  # noqa: E402

#: Every environment and mode: (source fixture, class, options).
MODES = {
    "job-easy": ("lublin_source", JobSelectionEnv, {}),
    "job-none": ("lublin_source", JobSelectionEnv, {"backfill": "none"}),
    "job-step-wait": ("kth_source", JobSelectionEnv, {"reward": "wait", "reward_timing": "step"}),
    "job-utilisation": ("kth_source", JobSelectionEnv, {"reward": "utilisation", "queue_slots": 4}),
    "backfill": ("kth_source", BackfillSelectionEnv, {}),
    "backfill-step-cost": ("lublin_source", BackfillSelectionEnv,
                           {"reward": "cost", "reward_timing": "step"}),
    "resource": ("nodes_source", ResourceSelectionEnv, {}),
    "resource-step": ("nodes_source", ResourceSelectionEnv,
                      {"reward_timing": "step", "candidates": ("MinCost", "CoP")}),
}  # fmt: skip


def build(mode, request):
    source, cls, options = MODES[mode]
    return cls(request.getfixturevalue(source), **options)


def random_valid(rng):
    def policy(observation, info):
        return int(rng.choice(np.flatnonzero(info["action_mask"])))

    return policy


@pytest.mark.parametrize("mode", MODES)
def test_gymnasium_s_checker_passes(mode, request):
    check_env(build(mode, request), skip_render_check=True)


@pytest.mark.parametrize("env_id", gridsim.rl.ENVIRONMENTS)
def test_the_registered_ids_make_the_environments_on_their_default_scenarios(env_id):
    env = gym.make(env_id, episode_jobs=8)
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    assert info["action_mask"].shape == (env.action_space.n,) and info["action_mask"].any()


@pytest.mark.parametrize("mode", ["job-easy", "backfill", "resource"])
def test_the_same_seed_and_actions_give_the_same_episode_bit_for_bit(mode, request):
    def trajectory(env, seed):
        rng = np.random.default_rng(7)
        observation, info = env.reset(seed=seed)
        observations, rewards, done = [observation], [], False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, done, _, info = env.step(action)
            observations.append(observation)
            rewards.append(reward)
        return np.stack(observations), rewards, env.episode.first_job

    first, second = trajectory(build(mode, request), 11), trajectory(build(mode, request), 11)
    assert first[0].tobytes() == second[0].tobytes() and first[1:] == second[1:]
    other = trajectory(build(mode, request), 12)
    assert other[2] != first[2]  # another seed, another slice of the workload


@pytest.mark.parametrize("mode", MODES)
def test_random_agents_make_schedules_that_keep_the_invariants(mode, request):
    env = build(mode, request)
    rng = np.random.default_rng(0)
    for seed in range(3):
        _, _, schedule = play(env, random_valid(rng), seed=seed)
        machine = env.source.platform.node_id.size
        assert schedule_problems(schedule, machine, env.source.episode_jobs) == []


def test_the_checker_sees_an_overfull_machine_and_a_double_booked_node(kth_source):
    env = JobSelectionEnv(kth_source)
    _, _, schedule = play(env, lambda observation, info: 0, seed=0)
    early = schedule.assign(start_time=schedule.submit_time)  # nobody waits
    assert any("processors in use" in p for p in schedule_problems(early, 100, 128))
    booked = schedule.assign(allocated_resources="0", processors=1)
    assert any("runs two jobs" in p for p in schedule_problems(booked, 100, 128))


@pytest.mark.parametrize("mode", ["job-easy", "backfill", "resource"])
def test_step_rewards_add_up_to_the_episode_s_mean_bounded_slowdown(mode, request):
    source, cls, options = MODES[mode]
    per_step = cls(request.getfixturevalue(source), **options, reward_timing="step")
    at_end = cls(request.getfixturevalue(source), **options)
    policy = random_valid(np.random.default_rng(1))
    total, steps, schedule = play(per_step, policy, seed=5)
    policy = random_valid(np.random.default_rng(1))
    end_total, end_steps, _ = play(at_end, policy, seed=5)
    assert steps == end_steps
    if mode != "resource":
        schedule = schedule.assign(run_time=schedule.duration)
    else:
        schedule = schedule.assign(duration=schedule.run_time)
    machine = per_step.source.platform.node_id.size
    expected = schedule_metrics(schedule, machine).mean_bounded_slowdown
    assert total == pytest.approx(-expected, rel=1e-12)
    assert end_total == pytest.approx(-expected, rel=1e-12)


def test_an_action_outside_the_mask_is_taken_as_the_first_job_and_flagged(kth_source):
    env = JobSelectionEnv(kth_source, queue_slots=64)
    _, info = env.reset(seed=2)
    empty = int(np.flatnonzero(info["action_mask"] == 0)[0])
    first = info["jobs"]["job"][0]
    env.step(empty)
    assert not np.isnan(env.loop.start_time[first])  # the first waiting job started
    _, _, _, _, info = env.step(empty)
    assert info["invalid_action"]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_environments_step_several_episodes_in_one_call(mode):
    envs = gym.make_vec("gridsim/JobSelection-v0", num_envs=2, vectorization_mode=mode,
                        episode_jobs=16)  # fmt: skip
    observations, infos = envs.reset(seed=4)
    assert observations.shape == (2, 32, 8) and infos["action_mask"].shape == (2, 32)
    finished = np.zeros(2, dtype=bool)
    for _ in range(200):
        observations, _, terminated, _, infos = envs.step(np.zeros(2, dtype=np.int64))
        finished |= terminated
    envs.close()
    assert finished.all()


def test_bad_options_say_what_is_wrong(kth_source, nodes_source):
    with pytest.raises(ValueError, match="backfill among"):
        JobSelectionEnv(kth_source, backfill="conservative")
    with pytest.raises(ValueError, match="reward among"):
        JobSelectionEnv(kth_source, reward="energy")
    with pytest.raises(ValueError, match="use timing='episode'"):
        JobSelectionEnv(kth_source, reward="utilisation", reward_timing="step")
    with pytest.raises(ValueError, match="resource-selection environment"):
        JobSelectionEnv(nodes_source)
    with pytest.raises(ValueError, match="fewer than an episode"):
        EpisodeSource({"name": "x", "kind": "swf_replay", "workload": {"max_jobs": 10}}, 20)
    with pytest.raises(ValueError, match="kind: swf_replay"):
        EpisodeSource("scenarios/window-search.yaml")
