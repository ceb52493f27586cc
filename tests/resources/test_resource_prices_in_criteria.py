"""Core-, GiB- and GPU-hour prices reach the window criteria: a slot's price for a request is
its node's price plus what the request's resources cost there (``Request.resource_price``)."""

from __future__ import annotations

import numpy as np
import pytest

from gridsim.experiments.swf_replay_resources import task_resource_price
from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.registry import build_criterion
from gridsim.workloads.platform import LogPlatformConfig, NodeClass, log_platform

#: Nodes 0-1: cheap nodes with dear GPUs; nodes 2-3: dearer nodes with GPUs for free.
NODES = tuple(Node(i, 1.0, price) for i, price in enumerate([1.0, 1.0, 1.5, 1.5]))


def test_min_cost_sees_the_price_of_the_gpus_a_task_holds():
    profile = Profile(NODES)
    plain = Request(n=2, volume=100.0)
    assert build_criterion("MinCost").search(profile, plain).nodes == (0, 1)
    with_gpus = Request(n=2, volume=100.0, resource_price=(1.0, 1.0, 0.0, 0.0))
    window = build_criterion("MinCost").search(profile, with_gpus)
    assert window.nodes == (2, 3)
    assert window.cost == pytest.approx(100 * (1.5 + 1.5))


def test_a_budget_counts_the_resource_prices():
    profile = Profile(NODES)
    request = Request(n=2, volume=100.0, budget=250.0, resource_price=(1.0, 1.0, 1.0, 1.0))
    assert build_criterion("MinCost").search(profile, request) is None  # 400 at least
    request = Request(n=2, volume=100.0, budget=400.0, resource_price=(1.0, 1.0, 1.0, 1.0))
    assert build_criterion("MinCost").search(profile, request).cost == pytest.approx(400.0)


@pytest.mark.parametrize("mode", ["shared", "exclusive"])
def test_a_task_is_priced_at_what_it_holds(mode):
    config = LogPlatformConfig(node_mode=mode, node_classes=(
        NodeClass(count=2, cores=8, memory_mb=8192, gpus=4, price_per_core_hour=3.6,
                  price_per_gib_hour=36.0, price_per_gpu_hour=360.0),
    ))  # fmt: skip
    platform = log_platform(None, config)
    prices = task_resource_price(platform, (2, 1024, 1))
    per_second = (2 * 0.001 + 1 * 0.01 + 1 * 0.1) if mode == "shared" else (
        8 * 0.001 + 8 * 0.01 + 4 * 0.1)  # fmt: skip
    assert prices == pytest.approx((per_second, per_second))
    free = log_platform(None, LogPlatformConfig(node_classes=(NodeClass(count=2, gpus=4),)))
    assert task_resource_price(free, (1, 0, 1)) is None
    assert np.isfinite(per_second)
