"""Chunks on a Dask cluster give the tables of local processes (skipped without Dask)."""

from __future__ import annotations

import pandas.testing as pdt
import pytest

from gridsim.experiments.executors import (
    QUIET_LOCAL_CLUSTER,
    DaskExecutor,
    ExecutorError,
    open_executor,
)
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.runner import run_experiment

distributed = pytest.importorskip("distributed")

SCENARIO = """\
name: clustered
kind: window_search
seed: 21
replications: 6
environment:
  nodes: 10
  horizon: 300
  local_load: {max_utilisation: 0.3, tasks_per_node: [1, 3]}
request: {n: 3, volume: 200, budget: 300}
policies: [FirstFit, MinCost, MaxQ]
sweep:
  request.n: [2, 3]
"""


def runs(**options):
    result = run_experiment(load_experiment(SCENARIO), progress=False, **options)
    assert result.status == "complete", result.error
    return result.tables["runs"].drop(columns="search_time_s")


def test_a_local_dask_cluster_gives_the_tables_of_one_process_and_of_two(tmp_path):
    serial = runs(jobs=1)
    pdt.assert_frame_equal(runs(jobs=2), serial)
    pdt.assert_frame_equal(runs(cluster="local:2", out_dir=tmp_path / "dask"), serial)


def test_cluster_addresses_are_checked_with_one_line_errors():
    with pytest.raises(ExecutorError, match=r"expected local:N with N >= 1"):
        DaskExecutor("local:zero")
    with pytest.raises(ExecutorError, match=r"expected local:N or a scheduler address"):
        open_executor(None, "somewhere", 4)
    with pytest.raises(ExecutorError, match="cannot reach a Dask scheduler"):
        DaskExecutor("tcp://127.0.0.1:9", timeout_s=1)


def _setting(key: str):
    import dask

    return dask.config.get(key)


def test_a_local_cluster_runs_its_workers_with_dask_s_periodic_checks_quietened():
    executor = DaskExecutor("local:1")
    try:
        for key, value in QUIET_LOCAL_CLUSTER.items():
            assert set(executor._client.run(_setting, key).values()) == {value}, key
    finally:
        executor.stop()
    assert _setting("distributed.worker.profile.enabled") is True  # the caller's untouched
