"""Jobs tables of results folders written by an earlier gridsim, read as today's.

Consumes a jobs table as a folder stores it and the folder's manifest; produces the table in
the columns of :data:`gridsim.sim.trace.JOB_COLUMNS`. The manifest's ``jobs_schema`` says
which columns a folder holds (absent: 1, the schema before it was recorded); each kind
declares how its schema-1 columns read (:class:`~gridsim.experiments.kinds.JobsOfSchema1`):
renamed columns, node ids as an interval set, ``killed`` as ``final_state``, the per-job
metrics recomputed with the scenario's threshold. Nothing is written back: the folder stays
as its gridsim wrote it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gridsim.analysis.jobflow_metrics import BOUNDED_SLOWDOWN_THRESHOLD, job_metrics
from gridsim.sim.trace import JOBS_SCHEMA, in_schema_order, interval_set, node_ids

#: Columns schema 1 lacked, with the value they read as.
_MISSING = {"user_id": -1, "reason": "", "allocated_resources": "", "cost": np.nan,
            "first_reservation": np.nan, "final_state": "finished"}  # fmt: skip


def jobs_schema(manifest: dict[str, Any]) -> int:
    """The jobs schema a folder was written with (1 when its manifest does not say)."""
    return int(manifest.get("jobs_schema") or 1)


def current_jobs(jobs: pd.DataFrame, manifest: dict[str, Any]) -> pd.DataFrame:
    """``jobs`` of a folder with ``manifest`` in today's columns (unchanged if it has them)."""
    from gridsim.experiments.kinds import declaration

    if jobs_schema(manifest) >= JOBS_SCHEMA or jobs.empty:
        return jobs
    old = declaration(str(manifest.get("kind"))).jobs_of_schema_1
    if old is None:
        return jobs
    table = jobs.rename(columns=dict(old.renames))
    if "killed" in table.columns:
        killed = table.pop("killed").astype(bool)
        table["final_state"] = np.where(killed, "killed", "finished")
    if "allocated_resources" in table.columns:
        table["allocated_resources"] = [
            _interval_set(text) for text in table["allocated_resources"]
        ]
    for name, value in _MISSING.items():
        if name not in table.columns:
            table[name] = value
    if "finish_time" not in table.columns:  # batch cycles: the window's start and length
        table["finish_time"] = table["start_time"] + table["run_time"]
        table["submit_time"] = 0.0
        table["final_state"] = np.where(table["chosen"] >= 0, "finished", "rejected")
    scenario = manifest.get("scenario_resolved") or {}
    threshold = scenario.get(old.threshold_field or "", BOUNDED_SLOWDOWN_THRESHOLD)
    return in_schema_order(job_metrics(table.drop(columns=["wait_time"], errors="ignore"),
                                       float(threshold)))  # fmt: skip


def _interval_set(text: Any) -> str:
    """Node ids as stored by schema 1 (``"2 3 5"``, or already ``"0-3 5"``) as an interval set."""
    if not isinstance(text, str) or not text.strip():
        return ""
    return interval_set(node_ids(text))
