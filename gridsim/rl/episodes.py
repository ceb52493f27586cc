"""Episodes: N consecutive jobs of a log, or of a workload model's flow, at a seeded start.

Consumes an ``swf_replay`` scenario (:class:`~gridsim.experiments.swf_replay.SwfReplayScenario`:
a log of any format gridsim reads, or ``workload: {model: lublin}``, its mapping and its
platform); produces :class:`Episode` objects, each the jobs table of N consecutive jobs in
arrival order with the machine they run on.

The pool of jobs is read (or, for a model, drawn from the scenario's seed) once, when the
source is built: every episode is a slice of it, so episodes of one source come from one
flow, as RLScheduler's do from one trace. Where the slice starts is drawn from the
``numpy.random.Generator`` the environment's ``reset(seed=...)`` gives, so a seed names an
episode. The machine is empty when an episode begins (no job of the log before the slice is
running). ``jobflow`` scenarios are the sources of :mod:`gridsim.rl.jobflow_episodes`
(one replication's flow per episode); :func:`episode_source` picks by kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gridsim.model import Priority
from gridsim.rl.jobflow_episodes import JobFlowSource
from gridsim.workloads.platform import LogPlatform

#: Columns of an episode's jobs (seconds; the log's mapping applied).
EPISODE_COLUMNS = ("job_id", "user_id", "submit_time", "processors", "estimate", "duration",
                   "killed")  # fmt: skip


@dataclass(frozen=True)
class Episode:
    """One episode's jobs and machine.

    Attributes:
        jobs: N jobs in arrival order (submit time, then job id), :data:`EPISODE_COLUMNS`;
            times as in the log (not shifted), so a replay of the same rows is comparable.
        platform: the nodes (one per processor of the log's machine, or the node classes).
        first_job: the slice's first position in the source's pool.
    """

    jobs: pd.DataFrame
    platform: LogPlatform
    first_job: int

    @property
    def machine_processors(self) -> int:
        return len(self.platform)

    def instance(self):
        """The jobs on the platform's nodes as a job-flow instance (job ``i`` is row ``i``)."""
        from gridsim.experiments.swf_replay_nodes import node_level_instance

        return node_level_instance(self.jobs, self.platform)

    @property
    def job_ids(self) -> np.ndarray:
        """The log's job ids by engine id (row)."""
        return self.jobs.job_id.to_numpy()


class EpisodeSource:
    """Slices of ``episode_jobs`` consecutive jobs of a scenario's workload.

    Args:
        scenario: an ``swf_replay`` scenario (a path, YAML text, mapping or the validated
            object).
        episode_jobs: N, the jobs of an episode.

    Raises:
        gridsim.errors.UserError: the scenario is invalid or not a log replay.
        ValueError: the workload has fewer than ``episode_jobs`` jobs.
    """

    #: The order the node-level planner takes simultaneous submissions in.
    priority: Priority = "fcfs"

    def __init__(self, scenario: Any, episode_jobs: int = 256) -> None:
        from gridsim.api import load_scenario
        from gridsim.experiments.swf_replay import SwfReplayScenario, load_log, machine_nodes
        from gridsim.experiments.swf_replay_tables import at_machine_speed
        from gridsim.workloads.platform import log_platform

        if not hasattr(scenario, "kind"):
            scenario = load_scenario(scenario)
        if not isinstance(scenario, SwfReplayScenario):
            raise ValueError(
                f"learning environments replay logs or workload models (kind: swf_replay) "
                f"or job flows (kind: jobflow), got a scenario of kind {scenario.kind}"
            )
        if episode_jobs <= 0:
            raise ValueError(f"expected a positive episode_jobs, got {episode_jobs}")
        log = load_log(scenario)
        machine_nodes(scenario, log)  # a clear error when the log gives no machine size
        self.scenario = scenario
        self.platform = log_platform(log.machine_processors, scenario.platform)
        jobs = log.jobs.sort_values(["submit_time", "job_id"], kind="stable")
        jobs = jobs.loc[:, list(EPISODE_COLUMNS)].reset_index(drop=True)
        if self.homogeneous:
            jobs = at_machine_speed(jobs, self.platform)
        if len(jobs) < episode_jobs:
            raise ValueError(
                f"{scenario.name}: the workload has {len(jobs)} jobs, fewer than an episode's "
                f"{episode_jobs} (episode_jobs)"
            )
        self.pool = jobs
        self.episode_jobs = episode_jobs

    @property
    def policy(self) -> str | dict:
        """The resource-selection criterion that places jobs (the scenario's ``policy``)."""
        return self.scenario.policy

    @property
    def slowdown_threshold(self) -> float:
        """The bounded slowdown's floor the scenario names (s)."""
        return self.scenario.bounded_slowdown_threshold

    @property
    def homogeneous(self) -> bool:
        """Every node the same performance and price (the processor-count schedulers apply)."""
        return self.platform.homogeneous

    @property
    def starts(self) -> int:
        """How many different episodes there are (first positions)."""
        return len(self.pool) - self.episode_jobs + 1

    def episode(self, first_job: int) -> Episode:
        """The episode starting at pool position ``first_job``."""
        if not 0 <= first_job < self.starts:
            raise ValueError(f"expected a first job in [0, {self.starts}), got {first_job}")
        jobs = self.pool.iloc[first_job : first_job + self.episode_jobs].reset_index(drop=True)
        return Episode(jobs, self.platform, first_job)

    def sample(self, rng: np.random.Generator) -> Episode:
        """An episode at a start drawn uniformly from ``rng``."""
        return self.episode(int(rng.integers(self.starts)))

    def for_reset(self, rng: np.random.Generator, options: dict[str, Any] | None) -> Episode:
        """The episode an environment's ``reset`` asks for: at ``options["first_job"]`` if
        given, else at a start drawn from ``rng`` (the environment's, seeded by ``seed``)."""
        if options and "first_job" in options:
            return self.episode(int(options["first_job"]))
        return self.sample(rng)


def episode_source(scenario: Any, episode_jobs: int) -> EpisodeSource | JobFlowSource:
    """``scenario`` itself if it is already a source, else the source built from it: a
    job flow's replications (:mod:`gridsim.rl.jobflow_episodes`; ``episode_jobs`` does not
    apply, its queue size says how many jobs) or slices of a log."""
    from gridsim.api import load_scenario
    from gridsim.experiments.jobflow import JobFlowScenario

    if isinstance(scenario, EpisodeSource | JobFlowSource):
        return scenario
    if not hasattr(scenario, "kind"):
        scenario = load_scenario(scenario)
    if isinstance(scenario, JobFlowScenario):
        return JobFlowSource(scenario)
    return EpisodeSource(scenario, episode_jobs)
