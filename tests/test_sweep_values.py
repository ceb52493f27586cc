"""What a grid means: every path of a ``zip:`` group and every list element a ``*`` path reaches
holds, in the resolved scenario of every point, the value written for it; other fields keep
the file's values. Checked on lists of two or more elements, the cloud scenario's seven
providers included (a list the defaults filled in before the grid once turned into a tuple
no path could enter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gridsim.cli import main
from gridsim.experiments.grid import load_experiment

ROOT = Path(__file__).resolve().parents[1]
CLOUD = (ROOT / "scenarios" / "cloud-federation-dytss.yaml").read_text()
NODE_CLASSES = (ROOT / "scenarios" / "swf-replay-heterogeneous.yaml").read_text()
WINDOW_SEARCH = """\
name: grid
kind: window_search
seed: 3
replications: 2
environment: {nodes: 10, horizon: 300}
request: {n: 3, volume: 200, budget: 300}
policies: [FirstFit, MinCost]
"""


def reached(document: Any, path: str) -> list[tuple[str, Any]]:
    """``(concrete path, value)`` of every field ``path`` names in a dumped scenario (``*``:
    every element of a list)."""
    found = [("", document)]
    for key in path.split("."):
        deeper = []
        for where, node in found:
            if key == "*":
                deeper += [(f"{where}.{i}", item) for i, item in enumerate(node)]
            elif isinstance(node, list | tuple):
                deeper.append((f"{where}.{key}", node[int(key)]))
            else:
                deeper.append((f"{where}.{key}", node[key]))
        found = deeper
    return [(where.lstrip("."), value) for where, value in found]


def plain(value: Any) -> Any:
    """A dumped value as YAML would give it (frozen sections dump lists as tuples)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def assert_points_hold(experiment, expected: list[dict[str, Any]], elements: int = 0) -> None:
    """Point ``i`` holds ``expected[i]`` (path -> value) at every field each path reaches, and
    names those values as its own; ``elements``: how many fields each ``*`` path must reach."""
    assert [point.values for point in experiment.points] == expected
    for point, values in zip(experiment.points, expected, strict=True):
        document = point.scenario.model_dump()
        for path, value in values.items():
            fields = reached(document, path)
            if "*" in path:
                assert len(fields) == elements, path
            for where, held in fields:
                assert plain(held) == value, f"point {point.index}: {where}"


def test_every_path_of_a_zip_group_gets_its_own_list_in_the_order_written():
    # Paths neither in sorted nor reverse-sorted order, with values of one type, so that
    # values given to the wrong path would still make a valid scenario.
    grid = WINDOW_SEARCH + (
        "zip:\n"
        "  - request.volume: [100, 150, 180]\n"
        "    environment.horizon: [400, 500, 600]\n"
        "    request.budget: [700, 800, 900]\n"
        "  - environment.nodes: [10, 12]\n"
        "    request.n: [2, 3]\n"
    )
    expected = [
        {"request.volume": volume, "environment.horizon": horizon, "request.budget": budget,
         "environment.nodes": nodes, "request.n": n}
        for volume, horizon, budget in [(100, 400, 700), (150, 500, 800), (180, 600, 900)]
        for nodes, n in [(10, 2), (12, 3)]
    ]  # fmt: skip
    assert_points_hold(load_experiment(grid), expected)


def test_a_star_path_sets_every_element_of_the_cloud_providers():
    grid = load_experiment(CLOUD + "sweep:\n  providers.*.vm_failure_rate_per_h: [0, 0.3]\n")
    assert_points_hold(grid, [{"providers.*.vm_failure_rate_per_h": v} for v in (0, 0.3)], 7)
    written = yaml.safe_load(CLOUD)["providers"]
    for point in grid.points:  # the providers' other fields are the file's
        rates = [p.task_failure_rate_per_h for p in point.scenario.providers]
        assert rates == [provider["task_failure_rate_per_h"] for provider in written]


def test_an_index_path_sets_that_provider_only():
    grid = load_experiment(CLOUD + "sweep:\n  providers.1.execution_slowdown: [1.0, 2.0]\n")
    written = yaml.safe_load(CLOUD)["providers"]
    for point, value in zip(grid.points, (1.0, 2.0), strict=True):
        slowdowns = [p.execution_slowdown for p in point.scenario.providers]
        assert slowdowns[1] == value
        assert slowdowns[:1] + slowdowns[2:] == [
            provider.get("execution_slowdown", 1.0) for i, provider in enumerate(written) if i != 1
        ]


def test_star_paths_in_a_zip_group_reach_every_node_class():
    grid = load_experiment(
        NODE_CLASSES + "zip:\n  platform.node_classes.*.price: [1.5, 3.0]\n"
        "  platform.node_classes.*.performance: [1.25, 2.0]\n"
    )
    expected = [{"platform.node_classes.*.price": price,
                 "platform.node_classes.*.performance": performance}
                for price, performance in [(1.5, 1.25), (3.0, 2.0)]]  # fmt: skip
    assert_points_hold(grid, expected, elements=2)
    assert [[c.count for c in p.scenario.platform.node_classes] for p in grid.points] == [
        [60, 40],
        [60, 40],
    ]


@pytest.mark.parametrize(
    ("path", "values"),
    [  # the ablations of docs/reproducing.md ("What moves DyTSS's gain"), as sweeps
        ("providers.*.task_failure_rate_per_h", [0, 0.2]),
        ("providers.*.vm_start_failure_probability", [0, 0.1]),
        ("providers.*.performance_w", [{"low": 1500, "high": 1500}, {"low": 1000, "high": 2000}]),
        ("providers.*.bandwidth_mb_s", [0.25, 5]),
        ("providers.0.capacity", [[{"time_s": 0, "vms": 10}], [{"time_s": 0, "vms": 20}]]),
    ],
)
def test_the_documented_provider_sweeps_validate_and_hold_their_values(path, values):
    text = CLOUD + yaml.safe_dump({"sweep": {path: values}})
    expected = [{path: value} for value in values]
    assert_points_hold(load_experiment(text), expected, elements=7)


def test_gridsim_validate_accepts_a_sweep_into_the_providers(tmp_path):
    scenario = tmp_path / "cloud.yaml"
    scenario.write_text(CLOUD + "sweep:\n  providers.*.execution_slowdown: [1, 1.5]\n")
    result = CliRunner().invoke(main, ["validate", str(scenario)])
    assert result.exit_code == 0, result.output
    assert "point 1: providers.*.execution_slowdown=1.5" in result.output
