"""Signals: the O(log n) integral equals a segment-by-segment sum, repeated and clipped."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.energy.config import SignalConfig
from gridsim.energy.signals import Signal


def value_at(times, values, repeat, t):
    """The signal's value at ``t``, read off its definition."""
    if repeat:
        t = times[0] + math.fmod(t - times[0], times[-1] - times[0])
        if t < times[0]:
            t += times[-1] - times[0]
    for k in range(len(values)):
        if t < times[k + 1]:
            return values[k]
    return values[-1]


def brute_integral(times, values, repeat, a, b):
    """Integral over [a, b] by splitting at every breakpoint inside it (and its repeats)."""
    points = {a, b}
    period = times[-1] - times[0]
    if repeat:
        first_cycle = math.floor((a - times[0]) / period) - 1
        last_cycle = math.floor((b - times[0]) / period) + 1
        for cycle in range(first_cycle, last_cycle + 1):
            points |= {t + cycle * period for t in times}
    else:
        points |= set(times)
    cuts = sorted(p for p in points if a <= p <= b)
    return sum((right - left) * value_at(times, values, repeat, (left + right) / 2)
               for left, right in itertools.pairwise(cuts))  # fmt: skip


signals = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 50), min_size=n, max_size=n),
        st.lists(st.integers(0, 20), min_size=n, max_size=n),
        st.integers(-100, 100),
        st.booleans(),
    )
)


@settings(max_examples=examples(200), deadline=None)
@given(signals, st.integers(-400, 400), st.integers(0, 600))
def test_integral_equals_the_sum_over_segments(signal, a, length):
    gaps, values, first, repeat = signal
    times = [float(first)]
    for gap in gaps:
        times.append(times[-1] + gap)
    exact = Signal(np.array(times), np.array(values, float), repeat=repeat)
    b = a + length
    expected = brute_integral(times, [float(v) for v in values], repeat, float(a), float(b))
    assert exact.integral(float(a), float(b)) == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_daily_profile_over_two_days():
    tariff = SignalConfig(profile="daily", steps=((0, 0.1), (7, 0.3), (22, 0.1))).signal()
    day = 0.1 * 7 + 0.3 * 15 + 0.1 * 2  # money per kWh x hours
    assert tariff.integral(0.0, 2 * 86400.0) / 3600 == pytest.approx(2 * day)
    assert tariff.integral(6 * 3600.0, 8 * 3600.0) / 3600 == pytest.approx(0.1 + 0.3)
    assert tariff.at(np.array([0.0, 7 * 3600.0, 86400.0 + 23 * 3600.0])).tolist() == [0.1, 0.3, 0.1]


def test_offset_moves_the_clock():
    tariff = SignalConfig(profile="daily", steps=((0, 1.0), (12, 2.0)), offset=12 * 3600).signal()
    assert tariff.at(0.0) == 2.0  # simulation time 0 is noon


def test_csv_clipped_and_repeated(tmp_path):
    path = tmp_path / "price.csv"
    path.write_text("time,value\n0,1\n10,3\n")
    clipped = SignalConfig(csv=str(path)).signal()
    assert clipped.integral(-5.0, 20.0) == pytest.approx(5 * 1 + 10 * 1 + 10 * 3)
    repeated = SignalConfig(csv=str(path), extend="repeat", period=20).signal()
    assert repeated.integral(0.0, 40.0) == pytest.approx(2 * (10 * 1 + 10 * 3))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "exactly one of value, csv or profile"),
        ({"value": 1.0, "profile": "daily"}, "exactly one"),
        ({"profile": "daily"}, "needs steps"),
        ({"profile": "daily", "steps": ((3, 1.0), (2, 1.0))}, "must increase"),
        ({"profile": "daily", "steps": ((25, 1.0),)}, "lie in [0, 24)"),
        ({"value": 1.0, "extend": "clip"}, "csv signal only"),
    ],
)
def test_bad_signal_fields(fields, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        SignalConfig(**fields)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("when,value\n0,1\n", "header line 'time,value'"),
        ("time,value\n0,1\n0,2\n", "line 3: time 0 does not increase"),
        ("time,value\n0,x\n", "line 2: expected two numbers"),
        ("time,value\n0,-1\n", "line 2: expected a finite time and a value >= 0"),
        ("time,value\n", "no rows"),
    ],
)
def test_bad_signal_csv(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        SignalConfig(csv=str(path))
