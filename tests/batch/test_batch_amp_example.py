"""The AMP search example of [TYTB11, Sec. 4]: six CPUs, seven local tasks, three jobs."""

from __future__ import annotations

from gridsim.model import Node
from gridsim.profile import Profile
from gridsim.scheduling.batch import BatchJob, alp, amp, find_alternatives

PRICES = {"cpu1": 3, "cpu2": 4, "cpu3": 2, "cpu4": 7, "cpu5": 7, "cpu6": 12}
LOCAL_TASKS = {  # p1..p7
    "cpu1": [(0, 150)],
    "cpu2": [(0, 230)],
    "cpu3": [(0, 450)],
    "cpu4": [(0, 100), (480, 560)],
    "cpu5": [(120, 560)],
    "cpu6": [(200, 300)],
}
CPUS = list(PRICES)


def environment() -> Profile:
    nodes = [Node(id=i, performance=1.0, price=PRICES[cpu]) for i, cpu in enumerate(CPUS)]
    return Profile(nodes, [LOCAL_TASKS[cpu] for cpu in CPUS], horizon_start=0, horizon_end=560)


def batch() -> list[BatchJob]:
    """The three jobs; the paper's window cost per time unit, divided by N, is the slot cap."""
    return [
        BatchJob(n=2, runtime=80, min_performance=1.0, price_cap=10 / 2),
        BatchJob(n=3, runtime=30, min_performance=1.0, price_cap=30 / 3),
        BatchJob(n=2, runtime=50, min_performance=1.0, price_cap=6 / 2),
    ]


def summary(alternatives):
    return [
        [(w.start, w.start + w.time, [CPUS[node] for node in w.nodes]) for w in windows]
        for windows in alternatives
    ]


def test_amp_finds_the_eight_alternatives_derived_from_the_text():
    """Expected alternatives, derived by hand from Sec. 4.

    The paper's Fig. 2-3 are not in our copy of the text, so the environment is rebuilt to fit
    every fact the text states: six CPUs with per-time prices (cpu6 costs 12), seven local
    tasks, all performances equal (rectangular windows), Job 1 (2 CPUs, 80, at most 10 per time
    for the window, so budget 800), Job 2 (3, 30, 30 per time, 900), Job 3 (2, 50, 6 per time,
    300), Job 1 first. Prices: cpu1 3, cpu2 4, cpu3 2, cpu4 7, cpu5 7, cpu6 12. Free slots:
    cpu5 [0,120), cpu6 [0,200), cpu4 [100,480), cpu1 [150,560), cpu2 [230,560),
    cpu6 [300,560), cpu3 [450,560) (seven slots; the figure has ten). Job 1's pairs within 10
    per time are those of cpu1 or cpu3 with any CPU but cpu6, and cpu1+cpu2; Job 3's pairs
    within 6 must contain cpu3 (cpu1+cpu3 = 5, cpu2+cpu3 = 6).

    Pass 1. Job 1: at 0 cpu5+cpu6 cost 19 per time; at 100 cpu5 cannot hold 80 any more and
    cpu4+cpu6 costs 19; at 150 cpu6 has expired and cpu1+cpu4 costs 10 <= 10: W1 = cpu1, cpu4
    [150, 230], as in the text, and every earlier window was too dear. Job 2: before 230 at
    most two slots hold 30 together; at 230 cpu1, cpu2, cpu4 (14 per time): W2 [230, 260], as
    in the text. Job 3: no pair within 6 before cpu3 frees at 450; cpu1+cpu3 (5): W3
    [450, 500], the span the text gives.
    Pass 2. Job 1: at 260 cpu1+cpu2 (7): W4 [260, 340]. Job 2: cpu4 [260,480) and
    cpu6 [300,560) wait for cpu1 at 340: cpu1+cpu4+cpu6 = 22 <= 30: W5 [340, 370], on cpu6.
    Job 3: at 500 cpu1+cpu3 (5): W6 [500, 550].
    Pass 3. Job 1: cpu2 [340,560) meets cpu1 [370,450) at 370 (7): W7 [370, 450]. Job 2:
    cpu4 [370,480), cpu6 [370,560) and cpu2 [450,560) at 450 (23): W8 [450, 480], on cpu6.
    Job 3: cpu3 has only [550, 560) left: none.
    Pass 4. Job 1: the slots of 80 or more are on cpu2, cpu4, cpu5, cpu6, whose pairs all cost
    more than 10: none. Job 2: no three slots hold 30 together any more: none. The search
    ends with eight alternatives, as the text counts, two of them on cpu6.
    """
    alternatives = find_alternatives(environment(), batch(), amp)
    assert summary(alternatives) == [
        [(150, 230, ["cpu1", "cpu4"]), (260, 340, ["cpu1", "cpu2"]), (370, 450, ["cpu1", "cpu2"])],
        [
            (230, 260, ["cpu1", "cpu2", "cpu4"]),
            (340, 370, ["cpu1", "cpu4", "cpu6"]),
            (450, 480, ["cpu2", "cpu4", "cpu6"]),
        ],
        [(450, 500, ["cpu1", "cpu3"]), (500, 550, ["cpu1", "cpu3"])],
    ]
    assert [w.cost / w.time for w in alternatives[1]] == [14, 22, 23]


def test_alp_never_considers_cpu6_for_job_2():
    """ALP caps each slot at 30 / 3 = 10 per time for Job 2, so cpu6 (12) is never taken."""
    alternatives = find_alternatives(environment(), batch(), alp)
    used = {CPUS[node] for windows in alternatives for w in windows for node in w.nodes}
    assert "cpu6" not in used
    assert sum(map(len, alternatives)) < 8
