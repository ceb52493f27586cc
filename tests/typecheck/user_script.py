"""A user's script on gridsim's public API: load a scenario with an override, check it, run
it in memory and read the tables. tests/test_typecheck.py type-checks it with mypy, and runs
it."""

from __future__ import annotations

import gridsim
from gridsim import Results

SCENARIO = {
    "name": "from-a-script",
    "kind": "window_search",
    "replications": 2,
    "environment": {"nodes": 10, "horizon": 300},
    "request": {"n": 2, "volume": 100, "budget": 500},
    "policies": ["FirstFit", "MaxQ"],
}


def main() -> Results:
    scenario = gridsim.load_scenario(SCENARIO, overrides={"seed": 5, "environment.nodes": 12})
    assert isinstance(scenario, gridsim.WindowSearchScenario)
    nodes: int = scenario.environment.nodes
    experiment: gridsim.Experiment = gridsim.validate(scenario)
    runs = len(experiment.points) * experiment.replications
    results = gridsim.run(scenario, replications=range(0, 2), jobs=1, progress=False)
    print(f"{nodes} nodes, {runs} runs: {results!r}")
    print(results.summary()[["policy", "runs", "Q_mean", "Q_ci95"]])
    return results


if __name__ == "__main__":
    main()
