"""The tests that stand in for window searches: never "no" where a search would find one."""

import numpy as np
import pytest

from gridsim.core import search as compiled_search
from gridsim.model import TIME_TOLERANCE, Node, Request, Window
from gridsim.profile import Profile
from gridsim.scheduling.backfilling import earlier
from gridsim.scheduling.earlier_windows import may_move_earlier, may_start_at
from gridsim.selection.registry import build_criterion


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


def random_criterion(rng):
    """One of the criteria the filters apply to (gridsim's own, one volume per job)."""
    return build_criterion(str(rng.choice(["BFfinish", "CoP", "BFstart", "MinCost"])))


def random_request(rng, profile: Profile) -> Request:
    """A job of up to half the nodes, volume 5-60, earliest start 0-80."""
    n = int(rng.integers(1, len(profile.nodes) // 2 + 1))
    return Request(n, float(rng.uniform(5, 60)), earliest_start=float(rng.uniform(0, 80)))


def answers_checked(seed: int) -> list[bool]:
    """``may_move_earlier``'s answers on a random profile, each checked by brute force: no
    earlier window of any runtime class where it says no."""
    rng = np.random.default_rng(seed)
    profile = random_profile(rng)
    performance = np.array([node.performance for node in profile.nodes])
    criterion = random_criterion(rng)
    answers = []
    for _ in range(6):
        request = random_request(rng, profile)
        old = criterion.search(profile, request)
        profile.reserve(old)
        lo = request.earliest_start + float(rng.choice([0.0, rng.uniform(0, 20)]))
        table = profile.slot_table()
        answer = may_move_earlier(table, performance, request.n, 0.0, lo, old, TIME_TOLERANCE)
        released = profile.copy()
        released.release_window(old)
        volume = old.runtime * min(performance[list(old.nodes)])
        better = [w for w in earliest_windows(released, request.n, volume, lo) if earlier(w, old)]
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


def compiled_answers(monkeypatch, seed: int) -> set[bool]:
    """gridsim/core/_earlier_windows.c against this module's NumPy code, on tables with and
    without the reserved window's nodes touching, minimum performances and late starts: the
    compiled answers, each checked to be the NumPy code's."""
    if compiled_search.compiled() is None:
        pytest.skip("the compiled core is not built or is off")
    rng = np.random.default_rng(200 + seed)
    profile = random_profile(rng)
    performance = np.array([node.performance for node in profile.nodes])
    criterion = random_criterion(rng)
    answers = set()
    for _ in range(8):
        request = random_request(rng, profile)
        old = criterion.search(profile, request)
        profile.reserve(old)
        lo = request.earliest_start + float(rng.choice([0.0, rng.uniform(0, 40)]))
        n = int(rng.integers(1, len(profile.nodes) + 1))
        least = float(rng.choice([0.0, 1.5]))
        arguments = (profile.slot_table(), performance, n, least, lo, old, TIME_TOLERANCE)
        compiled = may_move_earlier(*arguments)
        with monkeypatch.context() as python_path:
            python_path.setenv("GRIDSIM_PURE_PYTHON", "1")
            assert may_move_earlier(*arguments) == compiled
        answers.add(compiled)
    return answers


@pytest.mark.parametrize("seed", range(20))
def test_the_compiled_test_answers_as_the_python_one(monkeypatch, seed):
    compiled_answers(monkeypatch, seed)


def test_the_compiled_test_is_compared_on_both_answers(monkeypatch):
    assert set().union(*(compiled_answers(monkeypatch, seed) for seed in range(4))) == {
        False,
        True,
    }


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


# -- where the tests are exact: they say no to exactly the jobs no search could move ---------


def one_class_profile(rng) -> Profile:
    """Identical nodes (every window of a job lasts the same) with busy intervals."""
    performance = float(rng.choice([1.0, 2.0]))
    count = int(rng.integers(3, 8))
    busy = []
    for _ in range(count):
        starts = np.sort(rng.uniform(0, 200, size=int(rng.integers(0, 4))))
        busy.append([(float(a), float(a + rng.uniform(2, 40))) for a in starts])
    return Profile([Node(i, performance, 1.0) for i in range(count)], busy)


def two_class_profile(rng) -> Profile:
    """Slow cheap and fast dear nodes (performance 1 and 2, price 1 and 4), busy intervals."""
    count = [int(rng.integers(2, 5)), int(rng.integers(2, 5))]
    nodes = [Node(i, 1.0, 1.0) if i < count[0] else Node(i, 2.0, 4.0) for i in range(sum(count))]
    busy = []
    for _ in nodes:
        starts = np.sort(rng.uniform(0, 200, size=int(rng.integers(0, 4))))
        busy.append([(float(a), float(a + rng.uniform(2, 40))) for a in starts])
    return Profile(nodes, busy)


def compared_with_search(profile: Profile, rng, same_start: bool) -> list[tuple[bool, bool]]:
    """(``may_move_earlier``'s answer, whether a window earlier than the reserved one exists)
    for jobs reserved one after another, after two of them gave back the end of their
    window (early finishes); ``same_start``: from the reserved start on (only a window
    starting with it on faster nodes can then be earlier)."""
    performance = np.array([node.performance for node in profile.nodes])
    criterion = random_criterion(rng)
    reserved = []
    for _ in range(8):
        request = random_request(rng, profile)
        window = criterion.search(profile, request)
        profile.reserve(window)
        reserved.append(window)
    for finished in rng.choice(len(reserved), size=2, replace=False):
        window = reserved[finished]
        cut = window.start + float(rng.uniform(0, 0.9)) * window.runtime
        for node in window.nodes:
            profile.release(node, cut, window.finish)
    pairs = []
    for index, old in enumerate(reserved):
        if index in finished_ones(reserved, profile):
            continue
        n = len(old.nodes)
        lo = old.start if same_start else float(rng.uniform(0, old.start))
        answer = may_move_earlier(profile.slot_table(), performance, n, 0.0, lo, old,
                                  TIME_TOLERANCE)  # fmt: skip
        released = profile.copy()
        released.release_window(old)
        volume = old.runtime * min(performance[list(old.nodes)])
        better = [w for w in earliest_windows(released, n, volume, lo) if earlier(w, old)]
        pairs.append((answer, bool(better)))
    return pairs


def finished_ones(reserved: list[Window], profile: Profile) -> set[int]:
    """The windows no longer wholly reserved (their end given back)."""
    return {i for i, window in enumerate(reserved)
            if any(profile.is_free(node, window.finish - 1e-3, window.finish)
                   for node in window.nodes)}  # fmt: skip


@pytest.mark.parametrize("seed", range(30))
def test_on_identical_nodes_no_is_said_exactly_when_no_earlier_window_exists(seed):
    rng = np.random.default_rng(300 + seed)
    for answer, exists in compared_with_search(one_class_profile(rng), rng, same_start=False):
        assert answer == exists


@pytest.mark.parametrize("seed", range(30))
def test_from_the_reserved_start_on_yes_is_said_exactly_when_faster_nodes_can_take_it(seed):
    rng = np.random.default_rng(400 + seed)
    for answer, exists in compared_with_search(two_class_profile(rng), rng, same_start=True):
        assert answer == exists


@pytest.mark.parametrize(
    "profile, seeds, same_start", [(one_class_profile, 300, False), (two_class_profile, 400, True)]
)
def test_the_exact_cases_include_both_answers(profile, seeds, same_start):
    answers = []
    for seed in range(seeds, seeds + 30):
        rng = np.random.default_rng(seed)
        answers += [answer for answer, _ in compared_with_search(profile(rng), rng, same_start)]
    assert answers.count(True) >= 20 and answers.count(False) >= 20


def free_for(profile: Profile, node: Node, time: float, volume: float) -> bool:
    return profile.is_free(node.id, time, time + volume / node.performance)


def may_start_at_checked(seed: int) -> list[bool]:
    """``may_start_at``'s answers on a random profile, each checked against its definition:
    without a released window, ``n`` eligible nodes each free over ``[time, time + volume /
    p]``; with one, its nodes free up to its start count as free from then on."""
    rng = np.random.default_rng(500 + seed)
    profile = random_profile(rng)
    head = build_criterion("BFfinish").search(profile, Request(2, 30.0, earliest_start=100.0))
    profile.reserve(head)
    released = profile.copy()
    released.release_window(head)
    answers = []
    for _ in range(8):
        n = int(rng.integers(1, len(profile.nodes) + 1))
        volume = float(rng.uniform(5, 60))
        floor = float(rng.choice([0.0, 1.5, 2.0]))
        time = float(rng.uniform(0, head.start))
        eligible = [node for node in profile.nodes if node.performance >= floor]
        free = sum(free_for(profile, node, time, volume) for node in eligible)
        answer = may_start_at(profile.slot_table(), n, volume, floor, time, TIME_TOLERANCE)
        assert answer == (free >= n)
        free_released = sum(
            free_for(released, node, time, volume)
            or (node.id in head.nodes and profile.is_free(node.id, time, head.start))
            for node in eligible
        )
        table = profile.slot_table()
        answer = may_start_at(table, n, volume, floor, time, TIME_TOLERANCE, released=head)
        assert answer == (free_released >= n)
        answers += [free >= n, answer]
    return answers


@pytest.mark.parametrize("seed", range(30))
def test_may_start_at_counts_exactly_the_nodes_free_long_enough(seed):
    may_start_at_checked(seed)


def test_may_start_at_is_checked_on_both_answers():
    answers = [answer for seed in range(30) for answer in may_start_at_checked(seed)]
    assert answers.count(True) >= 40 and answers.count(False) >= 40


# -- boundaries: a window that fits exactly is never ruled out -------------------------------


def reserved(profile: Profile, start: float, runtime: float, nodes: tuple[int, ...]) -> Window:
    window = Window(start, runtime, nodes, (), 0.0)
    profile.reserve(window)
    return window


def test_a_gap_exactly_as_long_as_the_job_before_its_window_is_not_ruled_out():
    # One node free over [2, 6) and reserved over [8, 12): the job (4 long) fits [2, 6)
    # exactly, also when it asks for nodes exactly as fast as this one.
    profile = Profile([Node(0, 1.0, 1.0)], [[(0.0, 2.0), (6.0, 8.0)]])
    old = reserved(profile, 8.0, 4.0, (0,))
    performance = np.array([1.0])
    for floor in (0.0, 1.0):
        assert may_move_earlier(profile.slot_table(), performance, 1, floor, 0.0, old,
                                TIME_TOLERANCE)  # fmt: skip
    assert not may_move_earlier(profile.slot_table(), performance, 1, 1.5, 0.0, old,
                                TIME_TOLERANCE)  # fmt: skip


def test_a_faster_node_free_exactly_from_the_start_for_exactly_the_job_is_not_ruled_out():
    # The job (volume 4) holds slow node 0 over [4, 8); fast node 1 (performance 2) is free
    # over exactly [4, 6): starting there too, the job finishes at 6, earlier.
    profile = Profile([Node(0, 1.0, 1.0), Node(1, 2.0, 1.0)],
                      [[(0.0, 4.0)], [(0.0, 4.0), (6.0, 10.0)]])  # fmt: skip
    old = reserved(profile, 4.0, 4.0, (0,))
    performance = np.array([1.0, 2.0])
    assert may_move_earlier(profile.slot_table(), performance, 1, 0.0, 4.0, old, TIME_TOLERANCE)
    profile.occupy(1, 5.0, 6.0)  # now [4, 5) only: too short
    assert not may_move_earlier(profile.slot_table(), performance, 1, 0.0, 4.0, old,
                                TIME_TOLERANCE)  # fmt: skip


def test_a_node_free_from_exactly_now_for_exactly_the_job_may_start_it_now():
    profile = Profile([Node(0, 1.0, 1.0)], [[(0.0, 3.0), (7.0, 9.0)]])  # free over [3, 7)
    assert may_start_at(profile.slot_table(), 1, 4.0, 0.0, 3.0, TIME_TOLERANCE)
    assert not may_start_at(profile.slot_table(), 1, 4.5, 0.0, 3.0, TIME_TOLERANCE)
    assert not may_start_at(profile.slot_table(), 1, 4.0, 0.0, 2.5, TIME_TOLERANCE)
