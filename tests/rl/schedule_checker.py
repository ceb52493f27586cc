"""An independent checker of the schedules the learning environments make: it reads only
the jobs table an environment returns (submit, start, run time, processors, and node ids where
the table has them), never the environment's state."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gridsim.sim.trace import node_ids


def schedule_problems(jobs: pd.DataFrame, machine: int, episode_jobs: int) -> list[str]:
    """Every way ``jobs`` breaks a schedule's invariants; empty when it keeps them."""
    problems = []
    run_time = jobs["run_time"] if "run_time" in jobs else jobs["duration"]
    start = jobs.start_time.to_numpy(dtype=float)
    if len(jobs) != episode_jobs or jobs.job_id.duplicated().any():
        problems.append(f"{len(jobs)} rows for {episode_jobs} jobs, or a job twice")
    if np.isnan(start).any():
        problems.append(f"{int(np.isnan(start).sum())} jobs never started")
    if (start < jobs.submit_time.to_numpy() - 1e-9).any():
        problems.append("a job started before it was submitted")
    # processors in use never exceed the machine (ends before starts at one instant)
    finish = start + run_time.to_numpy(dtype=float)
    times = np.concatenate([finish, start])
    change = np.concatenate([-jobs.processors.to_numpy(), jobs.processors.to_numpy()])
    order = np.lexsort((change, times))
    if np.cumsum(change[order]).max() > machine:
        problems.append(f"more than {machine} processors in use at once")
    if "allocated_resources" in jobs and (jobs.allocated_resources != "").all():
        busy_until: dict[int, float] = {}
        for job in np.argsort(start, kind="stable"):
            nodes = node_ids(jobs.allocated_resources.iloc[job])
            if len(nodes) != jobs.processors.iloc[job] or len(set(nodes)) != len(nodes):
                problems.append(f"job {jobs.job_id.iloc[job]} holds {nodes}")
            for node in nodes:
                if busy_until.get(node, -np.inf) > start[job] + 1e-6:
                    problems.append(f"node {node} runs two jobs at {start[job]}")
                busy_until[node] = finish[job]
    return problems
