"""gridsim's job-flow engine (:mod:`gridsim.sim.engine`), paused at every submission so that
an agent chooses each job's window.

Consumes an episode's :class:`~gridsim.sim.engine.Instance` (a log's jobs on the scenario's
node classes, or a job flow's nodes, local load and jobs), a resource-selection criterion
(the scenario's policy), the order simultaneous submissions are planned in (its priority)
and the candidate criteria; produces the engine's trace. The planner is gridsim's
conservative backfilling (:class:`~gridsim.scheduling.backfilling.ConservativeBackfilling`)
and the events are SimPy's, as in ``gridsim run``: the engine is stepped event by event
(``simpy.Environment.step``) and stops after a submission, whose jobs the planner receives
one at a time, in priority order, each with the window the agent chose (the planner plans a
submission of several jobs in that order too, so nothing else changes).

The agent's window is the job's reservation. When the queue is re-planned later (a job ends
before its estimate: compression), the planner re-searches queued jobs with the scenario's
policy and keeps a new window only if it is earlier, as conservative backfilling does for
every job.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from gridsim.model import Job, Priority, Window
from gridsim.scheduling.backfilling import ConservativeBackfilling
from gridsim.selection.criteria import Criterion
from gridsim.sim.engine import SUBMISSION, Engine, Instance


class ChosenWindow:
    """A criterion that returns the window it is given once, else searches as ``policy``."""

    def __init__(self, policy: Criterion) -> None:
        self.policy = policy
        self.label = policy.label
        self.window: Window | None = None

    def search(self, profile, request) -> Window | None:
        if self.window is not None:
            window, self.window = self.window, None
            return window
        return self.policy.search(profile, request)


class _Deferring:
    """The planner as the engine sees it: submissions wait in ``pending`` for the agent."""

    def __init__(self, planner: ConservativeBackfilling) -> None:
        self.planner = planner
        self.pending: list[Job] = []

    def submit(self, jobs, now: float):
        self.pending.extend(sorted(jobs, key=self.planner.key))
        return {}, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.planner, name)


class NodeLoop(Engine):
    """The engine over one episode, run to the next submission by :meth:`run_to_decision`."""

    def __init__(self, instance: Instance, policy: Criterion, priority: Priority = "fcfs") -> None:
        self.chosen = ChosenWindow(policy)
        planner = ConservativeBackfilling(instance.nodes, instance.busy, self.chosen, priority)
        planner.skip_tests = isinstance(policy, Criterion)  # its re-planning is a built-in's
        self.deferring = _Deferring(planner)
        super().__init__(instance, self.deferring)
        self.planner = planner
        for node_id, intervals in enumerate(instance.busy):  # local load, as Engine.run
            for start, end in intervals:
                self.trace.local_task(node_id, start, end)
        by_arrival = sorted(instance.jobs, key=lambda job: job.arrival)
        for arrival, group in itertools.groupby(by_arrival, key=lambda job: job.arrival):
            self._at(arrival, SUBMISSION, self._on_submit, tuple(group))
        self.placed = 0

    @property
    def now(self) -> float:
        return float(self.env.now)

    @property
    def pending(self) -> list[Job]:
        return self.deferring.pending

    def run_to_decision(self) -> bool:
        """Process events until a job awaits its window; False once every job is placed
        (the rest of the episode is then run to its end)."""
        env = self.env
        while not self.pending:
            if env.peek() == math.inf:
                self.trace.close(self.instance.jobs)
                return False
            env.step()
        return True

    def candidates(self, criteria: Sequence[Criterion]) -> list[Window | None]:
        """The window each criterion chooses for the next pending job, on the current plan."""
        job = self.pending[0]
        profile = self.planner.profile
        profile.forget_before(self.now)
        request = job.request(self.now)
        return [criterion.search(profile, request) for criterion in criteria]

    def place(self, window: Window | None) -> None:
        """Give the next pending job ``window`` (None: the policy's own search) and plan it."""
        job = self.pending.pop(0)
        self.chosen.window = window
        planned, rejected = self.planner.submit([job], self.now)
        for job in rejected:
            self.trace.rejected(job, "no window fits the request")
        self._plan_starts(planned)
        self.placed += 1

    def nodes_in_use(self) -> int:
        """Nodes running a job now."""
        now = self.now
        return sum(len(w.nodes) for w in self.planner.running.values() if w.start <= now)
