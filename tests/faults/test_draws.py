"""Fault draws: the same for every reader, coupled across levels, with the laws' means; the
``faults`` section and availability traces: errors that name the field."""

import math
from itertools import islice

import numpy as np
import pytest
from pydantic import ValidationError

from gridsim.config import ScenarioError
from gridsim.faults.availability_trace import read_availability_trace
from gridsim.faults.config import FaultsConfig
from gridsim.faults.draws import draw_faults
from gridsim.model import Node

NODES = tuple(Node(i, 2.0 + i, 1.0) for i in range(4))
BUSY = (((0.0, 10.0), (20.0, 40.0)), (), ((5.0, 6.0),), ((0.0, 100.0),))
SEED = np.random.SeedSequence(11, spawn_key=(3, 50))


def faults(**config):
    return draw_faults(FaultsConfig.model_validate(config), NODES, BUSY, SEED)


def test_streams_are_the_same_however_often_and_far_they_are_read():
    drawn = faults(failures=dict(rate=0.01), unannounced_local=dict(rate=0.02))
    assert list(islice(drawn.outages(2), 200)) == list(islice(drawn.outages(2), 200))
    assert list(islice(drawn.outages(2), 3)) == list(islice(drawn.outages(2), 200))[:3]
    assert list(islice(drawn.unannounced(1), 100)) == list(islice(drawn.unannounced(1), 100))
    assert list(islice(drawn.outages(0), 5)) != list(islice(drawn.outages(1), 5))


def test_a_higher_failure_rate_brings_the_same_failures_sooner():
    slow = list(islice(faults(failures=dict(rate=0.01, repair_mean=1.0)).outages(0), 50))
    fast = list(islice(faults(failures=dict(rate=0.02, repair_mean=1.0)).outages(0), 50))
    first_slow, first_fast = slow[0][0], fast[0][0]
    assert first_fast == pytest.approx(first_slow / 2, rel=1e-12)
    repairs = [b - a for a, b in slow], [b - a for a, b in fast]
    assert repairs[0] == pytest.approx(repairs[1], rel=1e-12)


def test_overruns_are_coupled_across_probability_and_magnitude():
    low = faults(local_overruns=dict(probability=0.3, mean=0.5)).local_extra
    high = faults(local_overruns=dict(probability=0.9, mean=1.0)).local_extra
    for node_low, node_high in zip(low, high, strict=True):
        for a, b in zip(node_low, node_high, strict=True):
            assert b == pytest.approx(2 * a, rel=1e-12) or (a == 0.0 and b >= 0.0)
    assert [len(extra) for extra in low] == [2, 0, 1, 1]


@pytest.mark.parametrize(
    ("failures", "mean_up", "mean_down"),
    [
        (dict(rate=0.02, repair_mean=5.0), 50.0, 5.0),
        (dict(rate=0.02, distribution="weibull", shape=0.7, repair_mean=5.0,
              repair_distribution="weibull", repair_shape=2.0), 50.0, 5.0),
    ],
)  # fmt: skip
def test_up_and_down_times_have_the_configured_means(failures, mean_up, mean_down):
    outages = list(islice(faults(failures=failures).outages(1), 40_000))
    starts = np.array([a for a, _ in outages])
    ends = np.array([b for _, b in outages])
    up = np.diff(np.concatenate(([0.0], starts))) - np.concatenate(([0.0], ends - starts))[:-1]
    down = ends - starts
    for sample, mean in ((up, mean_up), (down, mean_down)):
        standard_error = sample.std() / math.sqrt(len(sample))
        assert abs(sample.mean() - mean) < 4 * standard_error


def test_lognormal_overruns_have_the_configured_mean():
    busy = (tuple((10.0 * i, 10.0 * i + 1.0) for i in range(20_000)),)
    config = FaultsConfig.model_validate(
        dict(local_overruns=dict(probability=1.0, distribution="lognormal", mean=0.4, sigma=0.8))
    )
    extra = np.array(draw_faults(config, NODES[:1], busy, SEED).local_extra[0])
    assert abs(extra.mean() - 0.4) < 4 * extra.std() / math.sqrt(len(extra))


def test_node_classes_replace_the_rate_of_the_nodes_they_match():
    drawn = faults(failures=dict(rate=0.0, classes=[
        dict(performance=dict(low=4.5, high=10), rate=0.01, repair_mean=2.0)]))  # fmt: skip
    assert [next(drawn.outages(i), None) is None for i in range(4)] == [True, True, True, False]


def test_every_fault_is_off_by_default():
    assert not FaultsConfig().enabled
    assert not FaultsConfig.model_validate(
        dict(local_overruns=dict(probability=0.5, mean=0))
    ).enabled
    assert FaultsConfig.model_validate(dict(failures=dict(rate=0.001))).enabled


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (dict(failures=dict(rate=-1)), "failures.rate"),
        (dict(local_overruns=dict(probability=1.5)), "local_overruns.probability"),
        (dict(unannounced_local=dict(length=dict(low=0, high=3))), "must be positive"),
        (dict(consequences=dict(resubmit="tail")), "consequences.resubmit"),
        (dict(failures=dict(ratee=1)), "failures.ratee"),
    ],
)
def test_bad_fault_parameters_name_the_field(section, message):
    with pytest.raises(ValidationError, match=message.replace(".", r"\.")):
        FaultsConfig.model_validate(section)


def test_an_availability_trace_is_read_merged_and_checked(tmp_path):
    path = tmp_path / "outages.csv"
    path.write_text("node,down_from,down_until\n1,5,8\n0,1,2\n1,7,9\n1,20,21\n")
    assert read_availability_trace(path) == {0: [(1.0, 2.0)], 1: [(5.0, 9.0), (20.0, 21.0)]}
    path.write_text("node,down_from,down_until\n1,5,4\n")
    with pytest.raises(ScenarioError, match=r"line 2: expected node >= 0 and down_from < down"):
        read_availability_trace(path)
    path.write_text("node,start,end\n1,5,6\n")
    with pytest.raises(ScenarioError, match="expected the columns node, down_from, down_until"):
        read_availability_trace(path)
    with pytest.raises(ScenarioError, match="cannot read availability trace"):
        read_availability_trace(tmp_path / "missing.csv")


def test_a_trace_replays_its_outages_and_excludes_drawn_failures(tmp_path):
    path = tmp_path / "outages.csv"
    path.write_text("node,down_from,down_until\n2,5,8\n")
    drawn = faults(failures=dict(trace=str(path)))
    assert [list(drawn.outages(i)) for i in range(4)] == [[], [], [(5.0, 8.0)], []]
    with pytest.raises(ValidationError, match="leave rate at 0"):
        FaultsConfig.model_validate(dict(failures=dict(trace=str(path), rate=0.1)))
