"""Same-instant order of the job-flow engine (gridsim.sim.engine, module docstring).

At one instant: completions (and overrun notices) first, then starts, then submissions. What
it means for a job: one arriving when another finishes early is planned in a profile that
already knows the early finish, so its *first* promised start is the finish instant. With
submissions first it would be promised the old reservation's end, then compressed forward:
the start would be the same and only ``first_promised_start`` would tell.
"""

from collections import defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridsim.model import Job, Node
from gridsim.scheduling.backfilling import ConservativeBackfilling
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Engine, Instance, simulate

ONE_NODE = (Node(0, 1.0, 1.0),)


def records(instance, policy="BFfinish", scheduler="conservative"):
    trace = simulate(instance, build_criterion(policy), scheduler=scheduler)
    return {r["job_id"]: r for r in trace.job_records()}


@pytest.mark.parametrize("scheduler", ["conservative", "fcfs", "easy"])
def test_a_job_arriving_at_an_early_finish_is_first_promised_that_instant(scheduler):
    # Job 0 holds [0, 10) but ends at 5; job 1 arrives at 5. The completion at 5 comes first,
    # so job 1's first (and only) promise is 5, not 10.
    jobs = (Job(0, 0.0, 1, 10.0, runtime_factor=0.5), Job(1, 5.0, 1, 2.0))
    by_id = records(Instance(ONE_NODE, ((),), jobs), scheduler=scheduler)
    assert by_id[0]["finish"] == 5.0
    assert (by_id[1]["first_promised_start"], by_id[1]["start"]) == (5.0, 5.0)


def test_a_job_arriving_at_an_early_finish_behind_a_queued_job_is_promised_from_it():
    # Job 0 runs [0, 10) but ends at 4; job 1 (queued behind it, volume 3) moves to [4, 7);
    # job 2 arrives at 4 and is promised 7 at once (job 1 starts at 4 before job 2 is planned).
    jobs = (Job(0, 0.0, 1, 10.0, runtime_factor=0.4), Job(1, 0.0, 1, 3.0), Job(2, 4.0, 1, 1.0))
    by_id = records(Instance(ONE_NODE, ((),), jobs))
    assert [(by_id[i]["first_promised_start"], by_id[i]["start"]) for i in range(3)] == [
        (0.0, 0.0),
        (10.0, 4.0),
        (7.0, 7.0),
    ]


class CallLog:
    """A planner that logs every call the engine makes as (kind, time, job ids), then
    delegates."""

    def __init__(self, planner):
        self._planner = planner
        self.calls: list[tuple[str, float, tuple[int, ...]]] = []

    def __getattr__(self, name):
        return getattr(self._planner, name)

    def submit(self, jobs, now):
        jobs = tuple(jobs)
        self.calls.append(("submit", now, tuple(job.id for job in jobs)))
        return self._planner.submit(jobs, now)

    def start(self, job_id):
        self.calls.append(("start", self._planner.reservations[job_id].start, (job_id,)))
        return self._planner.start(job_id)

    def finish(self, job_id, now):
        self.calls.append(("finish", now, (job_id,)))
        return self._planner.finish(job_id, now)

    def overrun(self, job_id, now, end):
        self.calls.append(("finish", now, (job_id,)))
        return self._planner.overrun(job_id, now, end)


#: Rank of the calls before a submission at one instant: completions, then starts.
PHASE = {"finish": 0, "start": 1}


@st.composite
def coinciding_flows(draw):
    """Small flows on whole-number times, so arrivals, finishes and starts often coincide."""
    nodes = tuple(Node(i, p, p) for i, p in enumerate(draw(st.lists(
        st.sampled_from([1.0, 2.0]), min_size=1, max_size=3))))  # fmt: skip
    jobs = tuple(
        Job(i, float(draw(st.integers(0, 6))), draw(st.integers(1, len(nodes))),
            float(draw(st.integers(1, 6))), runtime_factor=draw(st.sampled_from([0.5, 1.0])))
        for i in range(draw(st.integers(2, 7)))
    )  # fmt: skip
    return Instance(nodes, tuple(() for _ in nodes), jobs)


@given(coinciding_flows(), st.sampled_from(["BFstart", "BFfinish"]))
def test_at_every_instant_completions_come_before_starts_and_starts_before_submissions(
    instance, policy
):
    planner = CallLog(ConservativeBackfilling(instance.nodes, instance.busy,
                                              build_criterion(policy)))  # fmt: skip
    Engine(instance, planner).run()
    by_instant = defaultdict(list)
    for kind, time, ids in planner.calls:
        by_instant[time].append((kind, ids))
    for time, calls in by_instant.items():
        kinds = [kind for kind, _ in calls]
        assert kinds.count("submit") <= 1, (time, calls)  # simultaneous arrivals together
        cut = kinds.index("submit") if "submit" in kinds else len(kinds)
        before = [PHASE[kind] for kind in kinds[:cut]]
        assert before == sorted(before), (time, calls)  # completions, then starts
        # After the submission only jobs it planned to start at once may start.
        submitted = set(calls[cut][1]) if cut < len(calls) else set()
        assert all(kind == "start" and set(ids) <= submitted for kind, ids in calls[cut + 1 :])
