"""An independent checker of schedules on nodes with cores, memory and GPUs.

Reads only a run's jobs table (start_time, finish_time, processors, first_reservation and the
per-resource columns cores, memory_mb, gpus, allocation, allocated_resources) and the platform
(one row per node: node_id, cores, memory_mb, gpus; the node mode), never the planner's state.
Returns every problem found, empty when the schedule is sound:

* no node's cores, memory or GPUs are ever held beyond its capacity (a job's end frees its
  share before a start at the same instant takes it);
* exclusive nodes: a job holds the whole node, so no two jobs are ever on one node at once;
* a job holds at least the cores it asked for, and its totals and node set agree with its
  per-node allocation;
* conservative backfilling: no job starts later than first promised (replays have no faults,
  and a job running past its estimate is stopped there).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

KINDS = ("cores", "memory_mb", "gpus")


def _allocation(text: str) -> dict[int, np.ndarray]:
    held = {}
    for part in text.split():
        node, amounts = part.split(":")
        held[int(node)] = np.array([int(a) for a in amounts.split("/")], dtype=np.int64)
    return held


def node_ids(intervals: str) -> list[int]:
    """The node ids of an interval set, parsed here so the checkers share no code with gridsim."""
    ids = []
    for part in intervals.split():
        first, _, last = part.partition("-")
        ids += range(int(first), int(last or first) + 1)
    return ids


def schedule_problems(jobs: pd.DataFrame, platform: pd.DataFrame, mode: str,
                      conservative: bool) -> list[str]:  # fmt: skip
    capacity = {int(row.node_id): np.array([row.cores, row.memory_mb, row.gpus], dtype=np.int64)
                for row in platform.itertuples()}  # fmt: skip
    problems = []
    events: dict[int, list[tuple[float, int, np.ndarray, int]]] = {}
    for job in jobs.itertuples():
        if np.isnan(job.start_time):
            continue
        held = _allocation(job.allocation)
        if sorted(held) != node_ids(job.allocated_resources):
            problems.append(f"job {job.job_id}: allocation and node set differ")
        totals = sum(held.values(), np.zeros(3, dtype=np.int64))
        if list(totals) != [job.cores, job.memory_mb, job.gpus]:
            problems.append(f"job {job.job_id}: totals {list(totals)} against its columns")
        if job.cores < job.processors:
            problems.append(f"job {job.job_id}: holds {job.cores} cores of {job.processors}")
        if conservative and job.start_time > job.first_reservation:
            problems.append(f"job {job.job_id}: starts at {job.start_time}, promised "
                            f"{job.first_reservation}")  # fmt: skip
        for node, amounts in held.items():
            if node not in capacity:
                problems.append(f"job {job.job_id}: unknown node {node}")
                continue
            if mode == "exclusive" and (amounts != capacity[node]).any():
                problems.append(f"job {job.job_id}: part of exclusive node {node}")
            events.setdefault(node, []).append((job.start_time, 1, amounts, job.job_id))
            events.setdefault(node, []).append((job.finish_time, 0, -amounts, job.job_id))
    for node, changes in events.items():
        changes.sort(key=lambda change: (change[0], change[1]))  # ends before starts
        held = np.zeros(3, dtype=np.int64)
        jobs_on = 0
        for time, is_start, amounts, job_id in changes:
            held = held + amounts
            jobs_on += 1 if is_start else -1
            over = held > capacity[node]
            if over.any():
                kinds = [k for k, o in zip(KINDS, over, strict=True) if o]
                problems.append(f"node {node} over-committed in {kinds} at {time} (job {job_id})")
            if mode == "exclusive" and jobs_on > 1:
                problems.append(f"exclusive node {node} shared at {time} (job {job_id})")
    return problems
