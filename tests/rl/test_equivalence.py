"""The environments drive gridsim's own planners: a policy that picks what FCFS, EASY or the
scenario's resource-selection policy would pick gets exactly their schedule."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gridsim.api import run
from gridsim.rl.backfill_selection import BackfillSelectionEnv
from gridsim.rl.baselines import HeuristicPolicy, play, replay_episode
from gridsim.rl.job_selection import JobSelectionEnv
from gridsim.rl.resource_selection import ResourceSelectionEnv
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import simulate

FCFS = HeuristicPolicy("fcfs")


def first_allowed(observation, info):
    return int(np.flatnonzero(info["action_mask"])[0])


@pytest.mark.parametrize("backfill, algorithm", [("easy", "easy"), ("none", "fcfs")])
@pytest.mark.parametrize("source", ["kth_source", "lublin_source"])
def test_fcfs_job_selection_gives_the_replay_s_start_times(source, backfill, algorithm, request):
    env = JobSelectionEnv(request.getfixturevalue(source), backfill=backfill)
    for seed in range(6):
        _, _, schedule = play(env, FCFS, seed=seed)
        replay = replay_episode(env.episode, algorithm)
        np.testing.assert_array_equal(schedule.start_time, replay.start_time)


@pytest.mark.parametrize("source", ["kth_source", "lublin_source"])
def test_backfilling_the_first_allowed_job_is_easy(source, request):
    env = BackfillSelectionEnv(request.getfixturevalue(source))
    choices = 0
    for seed in range(6):
        _, steps, schedule = play(env, first_allowed, seed=seed)
        np.testing.assert_array_equal(schedule.start_time,
                                      replay_episode(env.episode, "easy").start_time)  # fmt: skip
        choices += steps - 1
    assert choices > 20  # the agent was asked (an episode without a choice takes one step)


def test_row_zero_is_conservative_backfilling_under_the_scenario_s_policy(nodes_source):
    from gridsim.experiments.swf_replay_nodes import node_level_instance

    env = ResourceSelectionEnv(nodes_source)
    for seed in range(3):
        _, steps, schedule = play(env, lambda observation, info: 0, seed=seed)
        assert steps == nodes_source.episode_jobs
        instance = node_level_instance(env.episode.jobs, env.episode.platform)
        trace = simulate(instance, build_criterion("BFfinish"), scheduler="conservative")
        expected = trace.jobs_table()
        np.testing.assert_array_equal(schedule.start_time, expected.start_time)
        assert (schedule.allocated_resources == expected.allocated_resources).all()


def test_a_whole_flow_through_the_environment_is_gridsim_run_on_the_same_scenario():
    """The scenario run by ``gridsim run`` (the Python API) and the same jobs as one episode
    played by FCFS through the job-selection environment: the same start times, job by job."""
    scenario = {"name": "kth-300", "kind": "swf_replay", "workload": {"max_jobs": 300},
                "schedulers": ["fcfs", "easy"], "progress": False, "replications": 1}  # fmt: skip
    jobs = run(scenario, jobs=1).jobs
    for backfill, algorithm in (("easy", "easy"), ("none", "fcfs")):
        env = JobSelectionEnv(scenario, episode_jobs=300, backfill=backfill)
        _, _, schedule = play(env, FCFS, options={"first_job": 0})
        expected = jobs[jobs.scheduler == algorithm].set_index("job_id").start_time
        np.testing.assert_array_equal(schedule.start_time, expected.loc[schedule.job_id])
