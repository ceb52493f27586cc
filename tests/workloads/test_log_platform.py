"""The log's machine as nodes: homogeneous by default, or priced node classes."""

import numpy as np
import pydantic
import pytest

from gridsim.workloads.platform import (
    LogPlatformConfig,
    NodeClass,
    job_volume,
    log_platform,
)
from gridsim.workloads.swf import bundled_swf, read_swf


def test_by_default_each_processor_of_the_log_is_a_node_of_performance_and_price_one():
    log = read_swf(bundled_swf())
    platform = log_platform(log.machine_processors)
    assert len(platform) == 100
    assert list(platform.node_id) == list(range(100))
    assert (platform.performance == 1).all() and (platform.price == 1).all()
    assert list(platform.to_frame().columns) == ["node_id", "performance", "price"]


def test_node_classes_give_a_heterogeneous_priced_machine_in_class_order():
    config = LogPlatformConfig(
        node_classes=[NodeClass(count=2, performance=2.0, price=3.0), NodeClass(count=1)],
        reference_performance=1.5,
    )
    platform = log_platform(100, config)
    assert list(platform.node_id) == [0, 1, 2]
    assert list(platform.performance) == [2.0, 2.0, 1.0]
    assert list(platform.price) == [3.0, 3.0, 1.0]
    assert platform.reference_performance == 1.5
    with pytest.raises(ValueError, match="read-only"):
        platform.price[0] = 0.0


def test_job_volume_is_run_time_times_reference_performance():
    assert list(job_volume(np.array([10.0, 4.0]), reference_performance=1.5)) == [15.0, 6.0]
    with pytest.raises(ValueError, match="positive reference performance"):
        job_volume(np.array([1.0]), 0)


def test_invalid_platforms_are_rejected_with_the_reason():
    with pytest.raises(ValueError, match=r"positive machine size .* got None"):
        log_platform(None)
    with pytest.raises(pydantic.ValidationError, match="count"):
        NodeClass(count=0)
    with pytest.raises(pydantic.ValidationError, match="performance"):
        NodeClass(count=1, performance=-2)
    with pytest.raises(pydantic.ValidationError, match="node_clases"):
        LogPlatformConfig(node_clases=[])
