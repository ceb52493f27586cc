"""Replay of a workload log on a homogeneous machine: a plain event loop over a heap.

Consumes the log's jobs (a DataFrame with job_id, submit_time, processors, estimate and
duration, in seconds; ``read_swf(...).jobs`` has them), the machine size and a scheduler name
of :mod:`gridsim.scheduling.log_schedulers`; produces a :class:`Replay`: every job's start
time, first reservation (conservative backfilling) and, if asked, the node ids it ran on.

Why not SimPy (the job-flow engine :mod:`gridsim.sim.engine` uses it): a replay of an archive
log is hundreds of thousands of jobs whose only events are arrivals, completions and
reservation starts; a SimPy event costs an object, a callback list and a closure, several
times the cost of a heap tuple, and the replay needs none of SimPy's processes.

Same-instant order: at one instant, completions come first, then arrivals (handed to the
scheduler together, in priority order), then starts, as SimPy's discipline in the job-flow
engine. By default every job ending at that instant is handed over in one call, so
conservative backfilling compresses the queue once with all their processors free, and EASY
plans once. Simulators that handle each completion as an event of its own compress (or plan)
after each one: the first job's processors alone may let a later, smaller job move into the
space the next completion would have opened for an earlier one. Both are correct
conservative backfilling and give the same waits on average, but not the same start times
(on KTH-SP2, 590 of 27,992 conservative and 539 EASY start times differ; docs/swf.md).
``completions_order="separately"`` reproduces the second order: the jobs ending at one
instant are handed over one at a time in priority order, each followed by the starts it
allows; arrivals are still handed over together, after them (for conservative backfilling
arrivals one at a time give the same reservations). FCFS gives the same starts either way.

Nodes: the machine's nodes are identical, so the scheduler counts processors and the loop
gives a starting job any free node ids (the most recently freed first, a stack). Processors
in use never exceed the machine: taking more nodes than are free raises
:class:`ReplayError` (a planning bug, never a user error).

Compiled: a built-in scheduler name replays through the compiled core
(:mod:`gridsim.core.replay`, the C translation of this loop and of the planners, with the
same start times); a scheduler class, ``GRIDSIM_PURE_PYTHON=1`` or a missing extension runs
the loop below. :func:`replay_log` is the one place that chooses.

Cost: O(events log events) for the loop, plus the scheduler's planning.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from gridsim.core.replay import compiled, replay_compiled, replay_resources_compiled
from gridsim.resources import CORES, NodeMode, ResourceRequest
from gridsim.scheduling.log_schedulers import (
    ALGORITHMS,
    Algorithm,
    SchedulerFactory,
    build_scheduler,
)
from gridsim.scheduling.resource_profile import Allocation, PowerLimit
from gridsim.scheduling.resource_schedulers import resource_scheduler_factory

if TYPE_CHECKING:
    import pandas as pd

REQUIRED_COLUMNS = ("job_id", "submit_time", "processors", "estimate", "duration")
CompletionsOrder = Literal["together", "separately"]
COMPLETIONS_ORDERS: tuple[CompletionsOrder, ...] = ("together", "separately")


class ReplayError(RuntimeError):
    """The executed schedule broke an invariant (a planning bug, never a user error)."""


@dataclass
class Replay:
    """What happened in one replay, per job in the order of the input table.

    Attributes:
        start_time: start of every job (s).
        first_reservation: reservation given on arrival (s); NaN unless conservative.
        nodes: per job, the node ids it ran on (sorted), or None if not recorded.
        peak_processors: the most processors in use at once.
        events: instants the loop processed.
        counters: the scheduler's work counters (conservative: compression passes,
            searches and moves).
    """

    start_time: np.ndarray
    first_reservation: np.ndarray
    nodes: list[tuple[int, ...]] | None
    peak_processors: int
    events: int
    counters: dict[str, int]


def replay_log(
    jobs: pd.DataFrame | Mapping[str, np.ndarray],
    machine_processors: int,
    algorithm: Algorithm | SchedulerFactory,
    *,
    record_nodes: bool = True,
    completions_order: CompletionsOrder = "together",
    on_progress: Callable[[float], None] | None = None,
    progress_every: int = 2000,
) -> Replay:
    """Replay ``jobs`` on ``machine_processors`` identical nodes under ``algorithm``.

    Args:
        jobs: one row per job (a DataFrame, or a mapping of column name to array);
            priority is arrival order (submit_time, then job_id).
        algorithm: a scheduler name, or a class built like them (``(machine, processors,
            estimates, now)``; tests and benchmarks replay reference implementations).
        record_nodes: keep every job's node ids (memory: one tuple per job).
        completions_order: jobs ending at the same instant are handed to the scheduler
            ``"together"`` (one compression pass, one EASY pass) or ``"separately"``, each
            followed by the starts it allows, in priority order (see the module docstring).
        on_progress: called with the simulated time every ``progress_every`` instants and at
            the end (a progress bar over simulated time).

    Raises:
        ValueError: a missing column, or a job larger than the machine.
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in jobs]
    if missing:
        raise ValueError(f"a replay needs columns {missing}, got {list(jobs)}")
    if completions_order not in COMPLETIONS_ORDERS:
        choices = list(COMPLETIONS_ORDERS)
        raise ValueError(f"expected completions_order among {choices}, got {completions_order!r}")
    column = {name: np.asarray(jobs[name]) for name in REQUIRED_COLUMNS}
    order = np.lexsort((column["job_id"], column["submit_time"]))
    arrays = {
        "submit": column["submit_time"].astype(np.float64)[order],
        "processors": column["processors"].astype(np.int64)[order],
        "estimate": column["estimate"].astype(np.float64)[order],
        "duration": column["duration"].astype(np.float64)[order],
    }
    together = completions_order == "together"
    module = compiled() if isinstance(algorithm, str) and algorithm in ALGORITHMS else None
    if module is not None:  # the one dispatch point to the compiled core
        try:
            start, first_reservation, peak, events, counters, nodes = replay_compiled(
                module,
                arrays,
                machine_processors,
                algorithm,  # type: ignore[arg-type]
                together=together,
                record_nodes=record_nodes,
                on_progress=on_progress,
                progress_every=progress_every,
            )
        except module.PlanningError as error:
            raise ReplayError(str(error)) from None
    else:
        start, first_reservation, peak, events, counters, nodes = _replay_python(
            arrays,
            machine_processors,
            algorithm,
            together=together,
            record_nodes=record_nodes,
            on_progress=on_progress,
            progress_every=progress_every,
        )
    count = len(order)
    if on_progress is not None and count:
        on_progress(max(float(arrays["submit"][-1]), 0.0))
    inverse = np.empty(count, dtype=np.int64)
    inverse[order] = np.arange(count)
    return Replay(
        start_time=start[inverse],
        first_reservation=first_reservation[inverse],
        nodes=[nodes[i] for i in inverse] if nodes is not None else None,
        peak_processors=peak,
        events=events,
        counters=counters,
    )


def _replay_python(
    arrays: dict[str, np.ndarray],
    machine_processors: int,
    algorithm: Algorithm | SchedulerFactory,
    *,
    together: bool,
    record_nodes: bool,
    on_progress: Callable[[float], None] | None,
    progress_every: int,
) -> tuple[np.ndarray, np.ndarray, int, int, dict[str, int], list[tuple[int, ...]] | None]:
    """The replay loop in Python: the reference of the compiled one, and the loop of
    scheduler classes. Jobs in priority order; returns what :func:`replay_compiled` does."""
    submit = arrays["submit"].tolist()
    processors = arrays["processors"].tolist()
    estimate = arrays["estimate"].tolist()
    duration = arrays["duration"].tolist()
    count = len(submit)
    first_time = submit[0] if count else 0.0
    if callable(algorithm):
        scheduler = algorithm(machine_processors, processors, estimate, first_time)
    else:
        scheduler = build_scheduler(algorithm, machine_processors, processors, estimate, first_time)

    start = [math.nan] * count
    nodes: list[tuple[int, ...]] | None = [()] * count if record_nodes else None
    free_nodes = list(range(machine_processors - 1, -1, -1))  # a stack: node 0 on top
    completions: list[tuple[float, int]] = []  # heap of (end, job)
    in_use = peak = events = 0
    next_arrival = 0
    starting: list[int] = []
    while next_arrival < count or completions or scheduler.queue:
        now = min(
            submit[next_arrival] if next_arrival < count else math.inf,
            completions[0][0] if completions else math.inf,
            scheduler.next_decision(),
        )
        if now == math.inf:
            raise ReplayError(f"{len(scheduler.queue)} jobs queued but nothing will happen")
        events += 1
        finished = []
        while completions and completions[0][0] == now:
            finished.append(heapq.heappop(completions)[1])
        # together: one call for all; separately: one call per job, each followed by starts
        groups = [finished] if together else [[job] for job in finished]
        for group in groups:
            early = False
            for job in group:
                early = early or duration[job] < estimate[job]
                in_use -= processors[job]
                if nodes is not None:
                    free_nodes.extend(nodes[job])
            scheduler.complete(now, group, early)
            if not together:
                starting.extend(scheduler.starts(now))
        first = next_arrival
        while next_arrival < count and submit[next_arrival] == now:
            next_arrival += 1
        if next_arrival > first:
            scheduler.submit(now, range(first, next_arrival))
        starting.extend(scheduler.starts(now))
        for job in starting:
            start[job] = now
            heapq.heappush(completions, (now + duration[job], job))
            in_use += processors[job]
            if nodes is not None:
                p = processors[job]
                if p > len(free_nodes):
                    raise ReplayError(f"job {job} needs {p} nodes at {now}, {len(free_nodes)} free")
                nodes[job] = tuple(sorted(free_nodes[-p:]))
                del free_nodes[-p:]
        starting.clear()
        if in_use > peak:
            peak = in_use
            if peak > machine_processors:
                raise ReplayError(f"{peak} processors in use at {now} on {machine_processors}")
        if on_progress is not None and events % progress_every == 0:
            on_progress(now)
    first_reservation = np.full(count, np.nan)
    reservations = getattr(scheduler, "first_reservation", None)
    if reservations is not None:
        first_reservation = np.array([reservations[j] for j in range(count)], dtype=np.float64)
    start_time = np.asarray(start, dtype=np.float64)
    return start_time, first_reservation, peak, events, scheduler.counters(), nodes


@dataclass
class ResourceReplay:
    """A replay on nodes with cores, memory and GPUs: the schedule and every job's units.

    Attributes:
        replay: start times, first reservations, counters (``nodes`` not recorded).
        allocation: per job (input order), its ``(node, units)`` pairs.
    """

    replay: Replay
    allocation: list[Allocation]


def replay_resources(
    jobs: pd.DataFrame,
    requests: Sequence[ResourceRequest],
    capacity: np.ndarray,
    mode: NodeMode,
    algorithm: Algorithm,
    *,
    power: PowerLimit | None = None,
    on_progress: Callable[[float], None] | None = None,
    progress_every: int = 2000,
) -> ResourceReplay:
    """Replay ``jobs`` (one request each, in the table's order) on nodes of ``capacity``
    (nodes x kinds) under the multi-resource ``algorithm``
    (:mod:`gridsim.scheduling.resource_schedulers`), in the loop of :func:`replay_log`.

    ``processors`` in the replay's counts are the cores each job asks for. Through the
    compiled core unless it is switched off or not built (the one place that chooses); the
    Python planners give the same schedule. ``power`` caps the busy power; only the Python
    planners plan a cap so far.
    """
    missing = [c for c in ("job_id", "submit_time", "estimate", "duration") if c not in jobs]
    if missing:
        raise ValueError(f"a replay needs columns {missing}, got {list(jobs.columns)}")
    order = np.lexsort((jobs.job_id.to_numpy(), jobs.submit_time.to_numpy()))
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.arange(len(order))
    in_priority_order = [requests[i] for i in order]
    # The compiled planners know no power cap yet: a capped replay runs the Python ones.
    module = compiled() if algorithm in ALGORITHMS and power is None else None
    if module is None:
        built: list = []
        factory = resource_scheduler_factory(algorithm, capacity, mode, in_priority_order, built,
                                             power)  # fmt: skip
        cores = [request.total[CORES] for request in requests]
        replay = replay_log(jobs.assign(processors=cores), int(capacity[:, CORES].sum()),
                            factory, record_nodes=False, on_progress=on_progress,
                            progress_every=progress_every)  # fmt: skip
        allocation = [built[0].allocation.get(position, ()) for position in range(len(order))]
        return ResourceReplay(replay, [allocation[i] for i in inverse])
    submit = jobs.submit_time.to_numpy(dtype=np.float64)[order]
    arrays = {
        "submit": submit,
        "estimate": jobs.estimate.to_numpy(dtype=np.float64)[order],
        "duration": jobs.duration.to_numpy(dtype=np.float64)[order],
    }
    try:
        start, first_reservation, peak, events, counters, allocation = replay_resources_compiled(
            module, arrays, in_priority_order, capacity, mode, algorithm,
            on_progress=on_progress, progress_every=progress_every,
        )  # fmt: skip
    except module.PlanningError as error:
        raise ReplayError(str(error)) from None
    if on_progress is not None and len(order):
        on_progress(max(float(submit[-1]), 0.0))
    replay = Replay(start[inverse], first_reservation[inverse], None, peak, events, counters)
    return ResourceReplay(replay, [allocation[i] for i in inverse])


def node_intervals(node_ids: tuple[int, ...]) -> str:
    """Batsim's ``allocated_resources`` text for sorted ids: ``(0, 1, 2, 3, 5)`` -> ``"0-3 5"``."""
    parts = []
    i = 0
    while i < len(node_ids):
        j = i
        while j + 1 < len(node_ids) and node_ids[j + 1] == node_ids[j] + 1:
            j += 1
        parts.append(str(node_ids[i]) if i == j else f"{node_ids[i]}-{node_ids[j]}")
        i = j + 1
    return " ".join(parts)
