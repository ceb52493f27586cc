"""The tests that stand in for window searches: never "no" where a search would find one."""

import numpy as np
import pytest

from gridsim.model import Node, Request, Window
from gridsim.profile import Profile
from gridsim.scheduling.backfilling import TIME_TOLERANCE, earlier
from gridsim.scheduling.earlier_windows import may_move_earlier, may_start_at
from gridsim.selection.criteria import build_criterion


def random_profile(rng) -> Profile:
    """Two or three node classes, busy intervals everywhere: many gaps and tails."""
    performances = rng.choice([1.0, 1.5, 2.0, 3.0], size=int(rng.integers(2, 4)), replace=False)
    nodes = [float(p) for p in performances for _ in range(int(rng.integers(2, 5)))]
    busy = []
    for _ in nodes:
        starts = np.sort(rng.uniform(0, 200, size=int(rng.integers(0, 4))))
        busy.append([(float(a), float(a + rng.uniform(2, 40))) for a in starts])
    return Profile([Node(i, p, p) for i, p in enumerate(nodes)], busy)


def earliest_windows(profile: Profile, n: int, volume: float, lo: float):
    """Brute force: per slowest performance, the first start of ``n`` nodes that fast free
    for ``volume / p`` (the earliest window of each runtime)."""
    found = []
    for p in sorted({node.performance for node in profile.nodes}):
        runtime = volume / p
        nodes = [node.id for node in profile.nodes if node.performance >= p]
        starts = sorted({max(a, lo) for i in nodes for a, _ in profile.free_intervals(i)})
        for t in starts:
            free = [i for i in nodes if profile.is_free(i, t, t + runtime)]
            if len(free) >= n:
                found.append(Window(t, runtime, tuple(free[:n]), (), 0.0))
                break
    return found


def answers_checked(seed: int) -> list[bool]:
    """``may_move_earlier``'s answers on a random profile, each checked by brute force: no
    earlier window of any runtime class where it says no."""
    rng = np.random.default_rng(seed)
    profile = random_profile(rng)
    performance = np.array([node.performance for node in profile.nodes])
    criterion = build_criterion(str(rng.choice(["BFfinish", "CoP", "BFstart", "MinCost"])))
    answers = []
    for _ in range(6):
        n = int(rng.integers(1, len(profile.nodes) // 2 + 1))
        request = Request(n, float(rng.uniform(5, 60)), earliest_start=float(rng.uniform(0, 80)))
        old = criterion.search(profile, request)
        profile.reserve(old)
        lo = request.earliest_start + float(rng.choice([0.0, rng.uniform(0, 20)]))
        table = profile.slot_table()
        answer = may_move_earlier(table, performance, n, 0.0, lo, old, TIME_TOLERANCE)
        released = profile.copy()
        released.release_window(old)
        volume = old.runtime * min(performance[list(old.nodes)])
        better = [w for w in earliest_windows(released, n, volume, lo) if earlier(w, old)]
        if not answer:
            assert not better, (old, better)
        answers.append(answer)
    return answers


@pytest.mark.parametrize("seed", range(40))
def test_no_means_no_earlier_window_exists(seed):
    answers_checked(seed)


def test_the_test_says_no_often_enough_to_matter():
    answers = [answer for seed in range(40, 60) for answer in answers_checked(seed)]
    assert 0.2 < answers.count(False) / len(answers) < 0.95


@pytest.mark.parametrize("seed", range(30))
def test_no_window_starts_now_when_may_start_at_says_no(seed):
    rng = np.random.default_rng(100 + seed)
    profile = random_profile(rng)
    criterion = build_criterion("BFfinish")
    now = float(rng.uniform(0, 150))
    head = criterion.search(profile, Request(2, 30.0, earliest_start=now + 5))
    profile.reserve(head)
    for _ in range(5):
        n = int(rng.integers(1, len(profile.nodes) // 2 + 1))
        volume = float(rng.uniform(5, 60))
        answer = may_start_at(
            profile.slot_table(), n, volume, 0.0, now, TIME_TOLERANCE, released=head
        )
        without_head = profile.copy()
        without_head.release_window(head)
        window = criterion.search(without_head, Request(n, volume, earliest_start=now))
        if window is not None and window.start <= now + TIME_TOLERANCE:
            assert answer
