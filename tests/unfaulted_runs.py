"""Records of job-flow traces and run metrics, to show that code without faults is unchanged.

``python tests/unfaulted_runs.py`` rewrites ``tests/data/unfaulted_flows.json``; the flows were
first recorded (as digests) on the code before fault modelling existed, and the test compares
against the record (tests/records.py): the jobs' windows, the tasks and the runs' counts
exactly, the times, costs and means to :data:`ULP_BOUND` units in the last place. Only the
columns that existed then are recorded (new columns may be added beside them).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.config import validate
from gridsim.experiments.jobflow import JobFlowScenario, run_replication
from gridsim.experiments.runner import replication_seed
from gridsim.sim.trace import node_ids

#: Recorded on the jobs table's first schema: today's columns are compared under those names and
#: in that form (node ids space-separated), so that the record pins the schedules, not the
#: table's names.
SCHEMA_1_NAMES = {"submit_time": "arrival", "first_reservation": "first_promised_start",
                  "start_time": "start", "finish_time": "finish", "run_time": "runtime",
                  "requested_time": "planned_runtime", "processors": "n"}  # fmt: skip
RECORD = Path(__file__).resolve().parent / "data" / "unfaulted_flows.json"
#: Per table, the columns of its choices (compared exactly: which job, which nodes, when it
#: starts, inputs such as arrivals) and of its values (compared to ULP_BOUND).
TABLES = {
    "jobs": (["queue_size", "policy", "replication", "job_id", "arrival", "n", "volume",
              "first_promised_start", "start", "nodes", "final_state", "reason"],
             ["finish", "wait", "runtime", "planned_runtime", "cost", "delay"]),
    "tasks": (["queue_size", "policy", "replication", "job_id", "node", "performance", "start",
               "kind"], ["end"]),
    "runs": (["queue_size", "replication", "policy", "jobs_finished", "jobs_not_finished",
              "delayed_jobs"],
             ["mean_finish", "makespan", "mean_wait", "mean_slowdown", "mean_bounded_slowdown",
              "total_cost", "mean_cost", "utilisation", "finish_advantage_pct"]),
}  # fmt: skip
#: Units in the last place a value may move by with the same choices: the values are sums and
#: means over at most 30 jobs of a run (a finish is a start plus a runtime, a cost a sum over
#: a window's nodes), which another order of addition moves by about one unit per term.
ULP_BOUND = 64

#: Small scenarios that exercise local load, overruns and early finishes, and arrivals.
SCENARIOS = {
    "loaded-overruns": dict(
        name="loaded-overruns", kind="jobflow", seed=5, queue_sizes=[12, 25],
        environment=dict(nodes=10, performance=dict(low=2, high=10), horizon=400,
                         local_load=dict(max_utilisation=0.3)),
        jobs=dict(n=[1, 4], runtime_factor=dict(low=0.6, high=1.4)),
        arrivals=dict(model="uniform", span=300),
        policies=["BFstart", "BFfinish", "BFshort", "PAST", "CoP"],
        baseline="BFfinish",  # the default when the digests were recorded
    ),
    "static-exact": dict(
        name="static-exact", kind="jobflow", seed=7, queue_sizes=[30],
        environment=dict(nodes=16, performance=dict(low=2, high=16), performance_step=1,
                         local_load=dict(max_utilisation=0.0)),
        policies=["BFfinish", "CoP", "FirstFit", "MinFinish"],
    ),
}  # fmt: skip


def table(frame: pd.DataFrame, name: str) -> dict:
    """A table's record: its choice and value columns and its rows (numbers as JSON numbers,
    read back bit for bit; NaN as None)."""
    choice, values = TABLES[name]
    rows = [[_plain(v) for v in row] for row in frame[choice + values].itertuples(index=False)]
    return {"choice": choice, "values": values, "rows": rows}


def in_schema_1(jobs: pd.DataFrame) -> pd.DataFrame:
    """A jobs table in the columns the record was made on."""
    old = jobs.rename(columns=SCHEMA_1_NAMES)
    return old.assign(wait=old["start"] - old["arrival"],
                      nodes=[" ".join(map(str, node_ids(text))) for text in
                             jobs["allocated_resources"]])  # fmt: skip


def _plain(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return value


def flows() -> dict[str, dict[str, dict]]:
    """{scenario/replication: {table: record}} with the current code."""
    out = {}
    for name, document in SCENARIOS.items():
        scenario = validate(JobFlowScenario, document)
        for replication in range(2):
            tables = run_replication(
                scenario, replication, replication_seed(scenario.seed, replication)
            )
            out[f"{name}/{replication}"] = {
                name: table(in_schema_1(tables[name]) if name == "jobs" else tables[name], name)
                for name in ("jobs", "tasks", "runs")
            }
    return out


if __name__ == "__main__":
    RECORD.write_text(json.dumps(flows(), separators=(",", ":")) + "\n")
