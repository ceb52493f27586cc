"""DyTSS (Algorithm 1) and equal chunks as planning functions, without a simulation."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.cloud.dytss import DyTSS, dytss_chunks, half_performance_length
from gridsim.cloud.selfscheduling import EqualChunks, SchedulerState
from gridsim.cloud.turnaround import NAGANO, MiddlewareIntervals, turnaround

INTERVALS = MiddlewareIntervals()


def test_identical_pilots_have_a_half_performance_length_of_half_their_number_long_term():
    turnarounds = np.full(40, 500.0)
    chunks = np.full(40, 6000)
    long_run = half_performance_length(turnarounds, chunks, 40 * 6000 * 1000, fit_points=10000)
    assert long_run == pytest.approx(20.0 * (1 - 1 / 1000), rel=1e-4)


def test_a_finite_horizon_of_m_waves_shortens_the_half_performance_length_to_n_2_1_minus_1_m():
    turnarounds = np.full(40, 500.0)
    chunks = np.full(40, 6000)
    ten_waves = half_performance_length(turnarounds, chunks, 40 * 6000 * 10, fit_points=4000)
    assert ten_waves == pytest.approx(20.0 * (1 - 1 / 10), rel=1e-3)


def test_fixed_point_on_identical_pilots_hands_out_the_remaining_samples_in_one_wave():
    # The self-consistent horizon is two turnarounds, so n_1/2 = N/4 and F = S/N (guided
    # self-scheduling); only M keeps early chunks smaller. See docs/cloud.md, "Model choices".
    # Exactly: the production is 0 tasks over the first turnaround and N over the second; the
    # least-squares line through its 128 midpoint samples (64 per step, offsets j + 1/2 from
    # the step) has intercept N (1/2 - 64 sum(j + 1/2) / (2 sum((j + 1/2)^2))), so n_1/2 is
    # N/4 to within 5e-5 and every chunk is floor(S / (4 n_1/2) + L), to the sample.
    pilots, samples, low = 50, 2_000_000, 10
    performance = np.full(pilots, 1500.0)
    bandwidth = np.full(pilots, 0.25)
    chunks, _ = dytss_chunks(performance, bandwidth, samples, low, 10**9, NAGANO, INTERVALS)
    offsets = np.arange(64) + 0.5
    half = pilots * (64 * offsets.sum() / (2 * (offsets**2).sum()) - 0.5)
    assert half == pytest.approx(pilots / 4, rel=2e-4)
    assert chunks.tolist() == [int(samples / (4 * half) + low)] * pilots  # 40002


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 10**6), pilots=st.integers(2, 40), remaining=st.integers(10**4, 10**7))
def test_converged_chunks_satisfy_algorithm_1_s_equation_with_a_separately_fitted_line(
    seed, pilots, remaining
):
    """At a fixed point, s_j = min(M, floor(F T(r_max, L) / T(r_j, L) + L)), F = S / (4 n_1/2),
    with n_1/2 read off a least-squares line (numpy.polyfit) through the same staircase."""
    rng = np.random.default_rng(seed)
    performance = rng.uniform(1000, 2000, pilots)
    bandwidth = rng.uniform(0.1, 1.0, pilots)
    low, high = 1000, 30000
    chunks, iterations = dytss_chunks(performance, bandwidth, remaining, low, high, NAGANO,
                                      INTERVALS)  # fmt: skip
    assume(iterations < 100)  # converged, not stopped in a cycle
    times = turnaround(chunks, performance, bandwidth, NAGANO, INTERVALS)
    horizon = max(remaining / np.sum(chunks / times), 2 * times.max())
    sample_times = (np.arange(128) + 0.5) * horizon / 128
    done = np.floor(sample_times[:, None] / times[None, :]).sum(axis=1)
    half = max(-np.polyfit(sample_times, done, 1)[1], 0.5)
    base = turnaround(low, performance, bandwidth, NAGANO, INTERVALS)
    raw = remaining / (4 * half) * base.min() / base + low
    # Two fits of the same points differ in the last bits: at an integer either floor is right.
    on_integer = np.abs(raw - np.round(raw)) < 1e-6
    expected = np.minimum(high, np.where(on_integer & (chunks == np.round(raw) - 1),
                                         np.round(raw) - 1, np.floor(raw)))  # fmt: skip
    np.testing.assert_array_equal(chunks, expected)


def test_chunks_stay_within_l_and_m_and_faster_pilots_get_more():
    rng = np.random.default_rng(0)
    performance = rng.uniform(1000, 2000, 100)
    bandwidth = np.full(100, 0.25)
    for remaining in (20_000_000, 2_000_000, 200_000, 1_000):
        chunks, _ = dytss_chunks(performance, bandwidth, remaining, 1500, 18000, NAGANO, INTERVALS)
        assert chunks.min() >= 1500 and chunks.max() <= 18000
        order = np.argsort(performance)
        assert np.all(np.diff(chunks[order]) >= 0)
    large, _ = dytss_chunks(performance, bandwidth, 20_000_000, 1500, 18000, NAGANO, INTERVALS)
    small, _ = dytss_chunks(performance, bandwidth, 100_000, 1500, 18000, NAGANO, INTERVALS)
    assert (large == 18000).all()
    assert small.max() < 2500


def _literal_dytss(performance, bandwidth, remaining, low, high, iterations=100, fit_points=128):
    """Algorithm 1's inner loop exactly as written, with no cycle shortcut; the chunks and
    the iteration that found them unchanged (``iterations`` if none did)."""
    base = turnaround(low, performance, bandwidth, NAGANO, INTERVALS)
    relative = base.min() / base
    chunks = np.full(len(performance), low, dtype=np.int64)
    for iteration in range(1, iterations + 1):
        times = turnaround(chunks, performance, bandwidth, NAGANO, INTERVALS)
        half = half_performance_length(times, chunks, remaining, fit_points)
        new = np.minimum(high, np.floor(remaining / (4 * half) * relative + low)).astype(np.int64)
        if np.array_equal(new, chunks):
            return chunks, iteration
        chunks = new
    return chunks, iterations


@settings(max_examples=examples(30), deadline=None)
@given(
    seed=st.integers(0, 10**6),
    pilots=st.integers(1, 60),
    remaining=st.integers(1, 5_000_000),
)
def test_cycle_shortcut_returns_what_the_literal_loop_returns(seed, pilots, remaining):
    rng = np.random.default_rng(seed)
    performance = rng.uniform(1000, 2000, pilots)
    bandwidth = rng.uniform(0.1, 1.0, pilots)
    fast, _ = dytss_chunks(performance, bandwidth, remaining, 1000, 30000, NAGANO, INTERVALS)
    np.testing.assert_array_equal(
        fast, _literal_dytss(performance, bandwidth, remaining, 1000, 30000)[0]
    )


@pytest.mark.parametrize("fit_points", [8, 128])
@pytest.mark.parametrize("max_iterations", [1, 2, 3, 5])
def test_a_short_loop_and_a_coarse_fit_give_what_the_literal_loop_gives(max_iterations, fit_points):
    """The loop's bound and the fit's resolution are the ones given, and the cycle shortcut
    lands where the literal loop stops, at every bound."""
    rng = np.random.default_rng(max_iterations * 1000 + fit_points)
    stopped = 0
    for _ in range(40):
        pilots = int(rng.integers(1, 30))
        performance = rng.uniform(1000, 2000, pilots)
        bandwidth = rng.uniform(0.1, 1.0, pilots)
        remaining = int(rng.integers(1000, 5_000_000))
        got = dytss_chunks(performance, bandwidth, remaining, 1000, 30000, NAGANO, INTERVALS,
                           max_iterations, fit_points)  # fmt: skip
        chunks, iterations = _literal_dytss(performance, bandwidth, remaining, 1000, 30000,
                                            max_iterations, fit_points)  # fmt: skip
        np.testing.assert_array_equal(got[0], chunks)
        assert got[1] == iterations
        stopped += iterations == max_iterations
    assert stopped > 0  # some runs end on the bound, not at a fixed point


def _state(free, unassigned, performance=None):
    count = len(free)
    return SchedulerState(
        time_s=0.0,
        pilot_ids=np.arange(count),
        performance_w=np.full(count, 1500.0) if performance is None else np.asarray(performance),
        bandwidth_mb_s=np.full(count, 0.25),
        free=np.asarray(free),
        samples_unassigned=unassigned,
        samples_not_completed=unassigned,
    )


def test_equal_chunks_serve_free_pilots_in_order_and_never_exceed_the_samples_left():
    scheduler = EqualChunks(samples_per_task=6000)
    assert scheduler.assign(_state([True, False, True, True], 14_000)) == [
        (0, 6000),
        (2, 6000),
        (3, 2000),
    ]
    assert scheduler.assign(_state([True], 0)) == []


def test_dytss_serves_the_fastest_free_pilot_first():
    scheduler = DyTSS(1000, 5000, NAGANO, INTERVALS)
    assignments = scheduler.assign(_state([True, True, False], 6000, [1000.0, 2000.0, 1500.0]))
    assert assignments[0][0] == 1
    assert sum(samples for _, samples in assignments) <= 6000


def test_literal_new_pilot_rule_rejects_pilots_slower_than_the_slowest_admitted():
    scheduler = DyTSS(1000, 5000, NAGANO, INTERVALS, new_pilot_rule="faster_than_slowest")
    scheduler.assign(_state([True], 10**6, [1500.0]))
    scheduler.assign(_state([True, True, True], 10**6, [1500.0, 1000.0, 1800.0]))
    assert scheduler.admitted == {0, 2}
    assert scheduler.rejected == {1}
