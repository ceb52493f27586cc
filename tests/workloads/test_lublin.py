"""The Lublin-Feitelson model against the distributions its published parameters define:
job sizes (the two-stage uniform and its rounding, exactly), run times (the truncated
hyper-gamma), the daily cycle of arrivals, the mean gap and the offered load, each within
the sampling error of the sample drawn; "Lublin-256"; the gamma functions against SciPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from gridsim.workloads import lublin
from gridsim.workloads.gamma import regularized_lower_gamma, truncated_exp_mean
from gridsim.workloads.lublin import (
    BATCH,
    INTERACTIVE,
    TYPELESS,
    LublinParameters,
    bucket_weights,
    expected_load,
    expected_statistics,
    lublin_jobs,
    size_distribution,
)

SEED = 20031105  # the model's journal issue, November 2003


@pytest.mark.parametrize(
    ("a", "x"), [(0.5, 0.1), (4.2, 12.77), (8.17, 30.0), (312.0, 400.0), (639.1, 769.2),
                 (10.46, 26.7), (6.57, 5.0), (3.0, 0.0), (2.0, 1e-9)],
)  # fmt: skip
def test_the_regularised_incomplete_gamma_agrees_with_scipy(a, x):
    assert regularized_lower_gamma(a, x) == pytest.approx(special.gammainc(a, x), rel=1e-12,
                                                          abs=1e-15)  # fmt: skip


def test_the_truncated_mean_of_exp_agrees_with_numerical_integration():
    for shape, scale, most in ((10.46, 0.4871, 13.0), (4.2, 0.94, 12.0), (312.0, 0.03, 12.0)):
        density = stats.gamma(shape, scale=scale)
        integral, _ = integrate.quad(lambda x, d=density: math.exp(x) * d.pdf(x), 0, most,
                                     limit=400)  # fmt: skip
        assert truncated_exp_mean(shape, scale, most) == pytest.approx(
            integral / density.cdf(most), rel=1e-7)  # fmt: skip


def _chi_square_p(observed: np.ndarray, expected: np.ndarray) -> float:
    """The p-value of observed counts against expected shares (the rarest cells pooled until
    each expects at least 5)."""
    expected = expected / expected.sum() * observed.sum()
    order = np.argsort(expected)
    observed, expected = observed[order], expected[order]
    small = np.cumsum(expected) < 5
    pooled_o = np.append(observed[~small], observed[small].sum())
    pooled_e = np.append(expected[~small], expected[small].sum())
    keep = pooled_e > 0
    return float(stats.chisquare(pooled_o[keep], pooled_e[keep]).pvalue)


@pytest.mark.parametrize(
    ("classes", "machine"), [("batch_and_interactive", 128), ("typeless", 256), ("typeless", 100)]
)
def test_job_sizes_follow_the_two_stage_uniform_and_its_rounding(classes, machine):
    parameters = LublinParameters(machine_processors=machine, job_classes=classes)
    jobs = lublin_jobs(np.random.default_rng(SEED), 20_000, parameters)
    for queue, values in parameters.classes().items():
        sizes = jobs.processors[jobs.queue == queue].to_numpy()
        support, probability = size_distribution(values, machine)
        observed = np.array([(sizes == s).sum() for s in support])
        assert observed.sum() == len(sizes) and sizes.max() <= machine
        assert _chi_square_p(observed, probability) > 1e-3, (classes, queue)
        serial = (sizes == 1).mean()  # the serial share is SERIAL_PROB, within its error
        error = math.sqrt(values.serial * (1 - values.serial) / len(sizes))
        assert abs(serial - values.serial) < 4 * error


def test_lublin_256_moves_the_largest_and_median_sizes_with_the_machine():
    jobs = lublin_jobs(
        np.random.default_rng(SEED),
        20_000,
        LublinParameters(machine_processors=256, job_classes="typeless"),
    )
    parallel = jobs.processors[jobs.processors > 1].to_numpy()
    assert parallel.max() == 256
    # the second (upper) stage [UMED + 1, UHI + 1] = [5.5, 8] holds 1 - UPROB of the jobs
    # drawn; rounding moves sizes within half a power of two, not across 2**5.5 + 1/2
    upper = (np.log2(parallel) > 5.5).mean()
    share = 1 - TYPELESS.first_stage
    assert abs(upper - share) < 4 * math.sqrt(share * (1 - share) / len(parallel))


@pytest.mark.parametrize(
    "values", [TYPELESS, BATCH, INTERACTIVE], ids=["typeless", "batch", "interactive"]
)
def test_run_times_follow_the_truncated_hyper_gamma_of_their_size(values):
    rng = np.random.default_rng(SEED)
    sizes = lublin._sizes(rng, 20_000, values, 128)
    run_time = lublin._run_times(rng, sizes, values)
    assert run_time.min() >= 1 and run_time.max() <= math.exp(lublin.TOO_MUCH_TIME)
    edges = np.exp(np.arange(0, 13))  # bins [e^k, e^(k+1)) of the run time
    observed = np.histogram(run_time, bins=np.append(edges, np.inf))[0][:-1]
    share = np.clip(values.pa * sizes + values.pb, 0, 1)
    expected = np.zeros(len(edges) - 1)
    for p, count in zip(*np.unique(share, return_counts=True), strict=True):
        # floor(exp(g)) < e^k  <=>  g < log(ceil(e^k))
        cdf = p * stats.gamma(values.a1, scale=values.b1).cdf(np.log(np.ceil(edges)))
        cdf += (1 - p) * stats.gamma(values.a2, scale=values.b2).cdf(np.log(np.ceil(edges)))
        expected += count * np.diff(cdf / cdf[-1])
    assert _chi_square_p(observed, expected) > 1e-3


def _flows(parameters: LublinParameters, count: int, jobs: int):
    return [lublin_jobs(np.random.default_rng([SEED, i]), jobs, parameters)
            for i in range(count)]  # fmt: skip


def test_arrivals_follow_the_daily_cycle_of_the_gamma_weights():
    """The weights give each half hour's share of arrivals (with the reference's clock, which
    falls behind by half a second a job, the cycle drifts later: docs/model.md)."""
    parameters = LublinParameters(job_classes="typeless")
    weights = bucket_weights(TYPELESS) / lublin.BUCKETS
    shares = []
    for flow in _flows(parameters, 40, 5000):
        bucket = (flow.submit_time.to_numpy() // lublin.SECONDS_IN_BUCKET) % lublin.BUCKETS
        shares.append(np.bincount(bucket.astype(int), minlength=lublin.BUCKETS) / len(flow))
    shares = np.array(shares)  # flows are independent: their spread is the sampling error
    error = shares.std(axis=0, ddof=1) / math.sqrt(len(shares))
    assert (np.abs(shares.mean(axis=0) - weights) < 4.5 * error).all()
    assert weights.argmax() == 27  # the busiest half hour: 13:30-14:00
    drifting = _flows(LublinParameters(job_classes="typeless", arrival_clock="reference"), 1, 5000)
    lag = (drifting[0].submit_time - _flows(parameters, 1, 5000)[0].submit_time).iloc[-1]
    assert -2500 * 1.2 < lag < -2500 * 0.8  # about half a second behind for each job


@pytest.mark.parametrize("classes", ["typeless", "batch_and_interactive"])
def test_the_mean_gap_and_the_offered_load_are_the_model_s(classes):
    parameters = LublinParameters(job_classes=classes)
    gaps, loads = [], []
    for flow in _flows(parameters, 30, 8000):
        submit = flow.submit_time.to_numpy()
        gaps.append(np.diff(submit).mean())
        loads.append((flow.processors * flow.run_time).sum() / (128 * (submit[-1] - submit[0])))
    rates = [1 / truncated_exp_mean(v.arrival_shape * v.rush_to_all, v.arrival_scale,
                                    lublin.TOO_MUCH_ARRIVE_TIME)
             for v in parameters.classes().values()]  # fmt: skip
    for sample, model in ((gaps, 1 / sum(rates)), (loads, expected_load(parameters))):
        error = np.std(sample, ddof=1) / math.sqrt(len(sample))
        assert abs(np.mean(sample) - model) < 4 * error, (classes, np.mean(sample), model)


def test_the_expected_statistics_are_those_of_generated_flows():
    """The closed forms docs/workloads.md sets beside Lublin-256 (30 flows of 8,000 jobs)."""
    parameters = LublinParameters(machine_processors=256, job_classes="typeless")
    expected = expected_statistics(parameters)
    flows = _flows(parameters, 30, 8000)
    samples = {
        "serial_share": [(f.processors == 1).mean() for f in flows],
        "power_of_two_share": [((f.processors & (f.processors - 1)) == 0).mean() for f in flows],
        "mean_size": [f.processors.mean() for f in flows],
        "mean_run_time_s": [f.run_time.mean() for f in flows],
        "median_run_time_s": [f.run_time.median() for f in flows],
    }
    for name, sample in samples.items():
        error = np.std(sample, ddof=1) / math.sqrt(len(sample))
        assert abs(np.mean(sample) - expected[name]) < 4 * error + 1e-9, name


def test_a_load_asked_for_scales_every_gap_and_keeps_the_jobs():
    natural = LublinParameters(job_classes="typeless")
    scaled = LublinParameters(job_classes="typeless", arrival_scale=2.0)
    assert expected_load(scaled) == pytest.approx(expected_load(natural) / 2, rel=1e-12)
    a = lublin_jobs(np.random.default_rng(SEED), 2000, natural)
    b = lublin_jobs(np.random.default_rng(SEED), 2000, scaled)
    assert (a.processors == b.processors).all() and (a.run_time == b.run_time).all()
    assert 1.9 < b.submit_time.iloc[-1] / a.submit_time.iloc[-1] < 2.1  # whole seconds


def test_the_same_seed_draws_the_same_flow_bit_for_bit():
    parameters = LublinParameters()
    one = lublin_jobs(np.random.default_rng(7), 3000, parameters)
    assert one.equals(lublin_jobs(np.random.default_rng(7), 3000, parameters))
    assert not one.equals(lublin_jobs(np.random.default_rng(8), 3000, parameters))
    assert (np.diff(one.submit_time) >= 0).all() and set(one.queue) == {0, 1}


def test_the_gamma_cdf_weights_are_normalised_to_a_mean_of_one():
    for values in (TYPELESS, BATCH, INTERACTIVE):
        weights = bucket_weights(values)
        assert weights.mean() == pytest.approx(1.0) and (weights > 0).all()
        i = np.arange(lublin.CYCLIC_DAY_START, lublin.CYCLIC_DAY_START + lublin.BUCKETS)
        daily = stats.gamma(values.daily_shape, scale=values.daily_scale)
        raw = daily.cdf(i + 0.5) - daily.cdf(i - 0.5)
        assert np.allclose(np.roll(weights, -(lublin.CYCLIC_DAY_START - 1)), raw / raw.mean())
