"""Plugins on a Dask cluster: every worker resolves them from their names and gives the tables
of the built-ins (skipped without Dask)."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from temporary_dist import install_entry_points

from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment

pytest.importorskip("distributed")

FLOW = {
    "name": "plugins-on-dask",
    "kind": "jobflow",
    "seed": 5,
    "replications": 4,
    "queue_sizes": [20],
    "jobs": {"runtime_factor": {"low": 0.5, "high": 1.2}},
    "baseline": "BFfinish",
}


def tables(cluster: str | None, **changes) -> dict[str, pd.DataFrame]:
    text = yaml.safe_dump({**FLOW, **changes})
    scenario, _ = load_scenario(text)
    options = {"cluster": cluster} if cluster else {"jobs": 1}
    result = run_experiment(scenario, text, progress=False, **options)
    assert result.status == "complete", result.error
    return {name: result.tables[name].drop(columns="sim_time_s", errors="ignore")
            for name in ("runs", "jobs")}  # fmt: skip


def test_plugins_by_reference_and_entry_point_give_the_built_ins_tables_on_dask(
    tmp_path, monkeypatch
):
    install_entry_points(
        tmp_path, "plugin_dask_dist",
        {"gridsim.schedulers": {"conservative-plugin": "plugin_samples:Conservative"}},
        monkeypatch,
    )  # fmt: skip
    built_in = tables(None, policies=["BFfinish", "CoP"])
    plugins = tables(
        "local:2",
        policies=["BFfinish", "plugin_samples:PlacementRules"],
        scheduler="conservative-plugin",
    )
    for name in ("runs", "jobs"):
        renamed = plugins[name].replace({"policy": {"PlacementRules": "CoP"}})
        pd.testing.assert_frame_equal(renamed, built_in[name], check_exact=True)
