"""Job-flow episodes: one replication's flow of a ``jobflow`` scenario, as the kind builds it.

Consumes a ``jobflow`` scenario (:class:`~gridsim.experiments.jobflow.JobFlowScenario`: job
flows on heterogeneous priced nodes with local load); produces :class:`JobFlowEpisode`
objects, each the :class:`~gridsim.sim.engine.Instance` of one replication and queue size:
nodes, local load, jobs, runtime factors and arrival times, drawn by the kind's own
``generate_instance`` and ``with_arrivals`` from the seed ``gridsim run`` gives that
replication (``SeedSequence(seed, spawn_key=(replication, queue_size))``). Replication ``r``
of an episode is therefore the instance every policy of ``gridsim run`` meets in replication
``r``. ``reset`` draws the replication from the environment's generator (any of 2**31, so
training sees fresh flows), or takes ``options={"replication": r}``.

A job flow has no processor-count queue (its nodes differ), so only the resource-selection
environment takes these episodes; faults and planners other than conservative backfilling
are refused, as the environment's engine plans by conservative backfilling without faults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gridsim.sim.engine import Instance

#: Replications a reset draws from (any index names a flow; ``gridsim run`` uses 0..R-1).
REPLICATIONS = 2**31


@dataclass(frozen=True)
class JobFlowEpisode:
    """One replication's flow.

    Attributes:
        flow: nodes, local load and jobs (arrival times set), as the job-flow kind draws them.
        replication: the replication index (its seed is the kind's for that replication).
        queue_size: the jobs of the flow.
    """

    flow: Instance
    replication: int
    queue_size: int

    def instance(self) -> Instance:
        return self.flow

    @property
    def job_ids(self) -> np.ndarray:
        """The jobs' own ids by engine id (a job flow's ids are its engine ids)."""
        return np.arange(len(self.flow.jobs))


class JobFlowSource:
    """The flows of a ``jobflow`` scenario, one per replication and queue size.

    Args:
        scenario: the validated scenario.

    Raises:
        ValueError: the scenario has faults or names a planner other than conservative
            backfilling (one line saying why).
    """

    #: A job flow's nodes differ: the processor-count (queue) environments do not apply.
    homogeneous = False

    def __init__(self, scenario: Any) -> None:
        if scenario.faults.enabled:
            raise ValueError(f"{scenario.name}: faults: the resource-selection environment "
                             "plans without faults; set faults.enabled: false")  # fmt: skip
        if scenario.scheduler != "conservative":
            raise ValueError(
                f"{scenario.name}: scheduler: the resource-selection environment plans by "
                f"conservative backfilling, not {scenario.scheduler!r}"
            )
        self.scenario = scenario
        self.priority = scenario.priority
        #: Row 0 of the resource-selection environment: the scenario's first policy.
        self.policy = scenario.policies[0]
        #: The bounded slowdown's floor of the kind's metrics (time units).
        self.slowdown_threshold = scenario.slowdown_threshold

    def episode(self, replication: int, queue_size: int | None = None) -> JobFlowEpisode:
        """Replication ``replication``'s flow of ``queue_size`` jobs (default: the scenario's
        first queue size)."""
        from gridsim.experiments.jobflow import generate_instance, with_arrivals

        sizes = self.scenario.queue_sizes
        size = sizes[0] if queue_size is None else int(queue_size)
        if size not in sizes:
            raise ValueError(f"expected a queue size among {sizes}, got {size}")
        if not 0 <= replication < REPLICATIONS:
            raise ValueError(f"expected a replication in [0, {REPLICATIONS}), got {replication}")
        seed = np.random.SeedSequence(self.scenario.seed, spawn_key=(replication, size))
        instance, draws = generate_instance(self.scenario, size, np.random.default_rng(seed))
        flow = with_arrivals(self.scenario, instance, draws)
        return JobFlowEpisode(flow, replication, size)

    def for_reset(self, rng: np.random.Generator, options: dict[str, Any] | None) -> JobFlowEpisode:
        """The episode ``reset`` asks for: ``options["replication"]`` (and
        ``options["queue_size"]``) if given, else a replication drawn from ``rng``."""
        options = options or {}
        replication = options.get("replication")
        if replication is None:
            replication = rng.integers(REPLICATIONS)
        return self.episode(int(replication), options.get("queue_size"))
