"""Digests of job-flow traces and run metrics, to show that code without faults is unchanged.

``python tests/unfaulted_runs.py`` rewrites ``tests/data/unfaulted_digests.json``; it
was run once on the code before fault modelling existed, and the test compares against it.
Only the columns that existed then are digested (new columns may be added beside them).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.config import validate
from gridsim.experiments.jobflow import JobFlowScenario, run_replication
from gridsim.experiments.runner import replication_seed
from gridsim.sim.trace import node_ids

DIGESTS = Path(__file__).resolve().parent / "data" / "unfaulted_digests.json"
#: The digests were recorded on the jobs table's first schema: today's columns are hashed
#: under those names and in that form (node ids space-separated), so that the digests pin
#: the schedules, not the table's names.
JOB_COLUMNS = ["job_id", "arrival", "first_promised_start", "start", "finish", "wait", "runtime",
               "planned_runtime", "n", "volume", "nodes", "cost", "delay", "final_state",
               "reason", "queue_size", "policy", "replication"]  # fmt: skip
SCHEMA_1_NAMES = {"submit_time": "arrival", "first_reservation": "first_promised_start",
                  "start_time": "start", "finish_time": "finish", "run_time": "runtime",
                  "requested_time": "planned_runtime", "processors": "n"}  # fmt: skip
TASK_COLUMNS = ["job_id", "node", "performance", "start", "end", "kind", "queue_size", "policy",
                "replication"]  # fmt: skip
RUN_COLUMNS = ["queue_size", "replication", "policy", "mean_finish", "makespan", "mean_wait",
               "mean_slowdown", "mean_bounded_slowdown", "total_cost", "mean_cost",
               "utilisation", "jobs_finished", "jobs_not_finished", "delayed_jobs",
               "finish_advantage_pct"]  # fmt: skip

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


def digest(table: pd.DataFrame, columns: list[str]) -> str:
    """SHA-256 of the columns' values, floats by their exact hexadecimal form."""
    lines = []
    for row in table[columns].itertuples(index=False):
        lines.append("|".join(v.hex() if isinstance(v, float) else str(v) for v in row))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def in_schema_1(jobs: pd.DataFrame) -> pd.DataFrame:
    """A jobs table in the columns the digests were recorded on."""
    old = jobs.rename(columns=SCHEMA_1_NAMES)
    return old.assign(wait=old["start"] - old["arrival"],
                      nodes=[" ".join(map(str, node_ids(text))) for text in
                             jobs["allocated_resources"]])  # fmt: skip


def digests() -> dict[str, dict[str, str]]:
    out = {}
    for name, document in SCENARIOS.items():
        scenario = validate(JobFlowScenario, document)
        for replication in range(2):
            tables = run_replication(
                scenario, replication, replication_seed(scenario.seed, replication)
            )
            runs = tables["runs"].astype(
                {"jobs_finished": np.int64, "jobs_not_finished": np.int64, "delayed_jobs": np.int64}
            )
            out[f"{name}/{replication}"] = {
                "jobs": digest(in_schema_1(tables["jobs"]), JOB_COLUMNS),
                "tasks": digest(tables["tasks"], TASK_COLUMNS),
                "runs": digest(runs, RUN_COLUMNS),
            }
    return out


if __name__ == "__main__":
    DIGESTS.write_text(json.dumps(digests(), indent=1) + "\n")
