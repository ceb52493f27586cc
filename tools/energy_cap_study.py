"""The table of docs/energy.md's capped job-flow study, from a results folder.

    gridsim run energy-capped-flow -o results/energy-capped-flow
    python tools/energy_cap_study.py results/energy-capped-flow

Per cap and policy, means over the replications: mean wait (s), per job energy (kWh),
electricity cost and carbon (kg), jobs rejected over the cap, and the peak busy power drawn
(kW, the largest over the replications, from the jobs table's nodes and the tasks' node
performance) next to the cap's highest and lowest values.
"""

from __future__ import annotations

import json
import sys

import pandas as pd
import yaml

from gridsim.analysis.results import load_results
from gridsim.bundled_scenarios import FOLDER
from gridsim.sim.trace import node_ids


def peak_watts(jobs: pd.DataFrame, watts: dict[int, float]) -> float:
    """The largest busy power drawn at any instant (a job ending at ``t`` stops before one
    starting at ``t``)."""
    ran = jobs[jobs.final_state == "finished"]
    draw = [sum(watts[i] for i in node_ids(nodes)) for nodes in ran.allocated_resources]
    events = sorted([(t, 1, w) for t, w in zip(ran.start_time, draw, strict=True)]
                    + [(t, 0, -w) for t, w in zip(ran.finish_time, draw, strict=True)])  # fmt: skip
    level, peak = 0.0, 0.0
    for _, _, change in events:
        level += change
        peak = max(peak, level)
    return peak


def study_table(folder: str) -> pd.DataFrame:
    results = load_results(folder)
    scenario = yaml.safe_load((FOLDER / "energy-capped-flow.yaml").read_text())
    power = scenario["environment"]["power"]
    jobs, tasks, runs = results.jobs, results.tasks, results.runs
    rows = []
    for (cap, policy), group in jobs.groupby(["environment.power_cap", "policy"], sort=False):
        peaks = []
        for replication, one in group.groupby("replication"):
            mine = tasks[(tasks["environment.power_cap"] == cap) & (tasks.policy == policy)
                         & (tasks.replication == replication)]  # fmt: skip
            watts = {int(n): power["busy_watts"] + power["busy_watts_per_performance"] * p
                     for n, p in zip(mine.node, mine.performance, strict=True)}  # fmt: skip
            peaks.append(peak_watts(one, watts))
        finished = group[group.final_state == "finished"]
        cap_values = json.loads(cap) if isinstance(cap, str) else cap
        values = ([cap_values["value"]] if "value" in cap_values
                  else [v for _, v in cap_values["steps"]])  # fmt: skip
        run = runs[(runs["environment.power_cap"] == cap) & (runs.policy == policy)]
        rows.append({
            "cap": cap, "policy": policy,
            "mean wait (s)": finished.wait_time.mean(),
            "energy per job (kWh)": finished.energy_kwh.mean(),
            "electricity per job": finished.electricity_cost.mean(),
            "carbon per job (kg)": finished.carbon_kg.mean(),
            "peak drawn (kW)": max(peaks) / 1000,
            "cap (kW)": "/".join(f"{v / 1000:g}" for v in sorted(set(values))),
            "rejected over the cap": run.get("jobs_rejected_over_power_cap",
                                             pd.Series([0])).sum(),
        })  # fmt: skip
    return pd.DataFrame(rows)


if __name__ == "__main__":
    table = study_table(sys.argv[1])
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
