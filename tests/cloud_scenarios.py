"""Small hand-built cloud scenarios shared by the cloud and analysis tests (a plain module with
a unique name, so it cannot clash with other folders' conftest files)."""

from __future__ import annotations

from typing import Any

from gridsim.experiments.cloud import CloudScenario


def small_scenario_document(**overrides: Any) -> dict[str, Any]:
    """Two providers, 12 pilots, 300 000 samples: runs in a few milliseconds."""
    document: dict[str, Any] = {
        "name": "small-cloud",
        "kind": "cloud",
        "seed": 7,
        "replications": 2,
        "policies": [
            {"name": "EqualChunks", "samples_per_task": 6000},
            {"name": "DyTSS", "L": 1500, "M": 18000},
        ],
        "application": {"total_samples": 300_000},
        "framework": {"max_pilots": 12},
        "providers": [
            {
                "name": "fast",
                "advertised": {"max_vms": 8, "performance_w": 2000, "bandwidth_mb_s": 0.25},
                "capacity": [{"time_s": 0, "vms": 6}],
                "performance_w": {"low": 1500, "high": 2000},
            },
            {
                "name": "slow",
                "advertised": {"max_vms": 8, "performance_w": 1500, "bandwidth_mb_s": 0.25},
                "capacity": [{"time_s": 0, "vms": 8}],
                "performance_w": {"low": 1000, "high": 1200},
                "bandwidth_mb_s": 0.5,
            },
        ],
    }
    document.update(overrides)
    return document


def small_scenario() -> CloudScenario:
    """The validated small scenario, without noise or failures."""
    return CloudScenario.model_validate(small_scenario_document())
