"""Batch jobs and windows with a rough right edge [TYTB11, Sec. 2-3].

Consumes nothing but numbers; produces the two records the batch cycle passes around: a
``BatchJob`` (one resource request of the batch) and a ``RoughWindow`` (an alternative found for
it). On heterogeneous nodes the tasks of one window start together but a task on a faster node
finishes earlier, so the window's right edge is ragged.

[TYTB11] is "Resource Co-allocation Algorithms for Job Batch Scheduling in Dependable
Distributed Computing" (Toporkov, Yemelyanov, Toporkova, Bobchenkov).
"""

from __future__ import annotations

from dataclasses import dataclass

from gridsim.model import Slot


@dataclass(frozen=True, slots=True)
class BatchJob:
    """One job of a batch: ``n`` concurrent slots for a job of length ``runtime``.

    Attributes:
        n: number of nodes needed at the same time (``N``).
        runtime: time the job takes on a node of performance ``min_performance`` (``t``).
        min_performance: only nodes at least this fast are eligible (``P``); it is also the
            reference performance of ``runtime``.
        price_cap: the most a user pays per time unit of one slot (``C``); ALP compares each
            slot's price with it, AMP turns it into the window budget ``C * t * N``.
        length_is_work: ``runtime`` is the job's work (a task on performance ``p`` lasts
            ``t / p``) rather than its time on a node of ``min_performance`` (``t * P / p``);
            docs/model.md, "Batch job length".
    """

    n: int
    runtime: float
    min_performance: float
    price_cap: float
    length_is_work: bool = False

    @property
    def work(self) -> float:
        """Work per task: a task on a node of performance ``p`` lasts ``work / p``."""
        return self.runtime if self.length_is_work else self.runtime * self.min_performance

    @property
    def budget(self) -> float:
        """AMP's budget ``S = C * t * N`` for the whole window (money)."""
        return self.price_cap * self.runtime * self.n

    def task_runtime(self, performance: float) -> float:
        """Runtime of one task on a node of ``performance``: ``t * P / p``, or ``t / p`` when
        the length is work (time units)."""
        return self.work / performance


@dataclass(frozen=True, slots=True)
class RoughWindow:
    """Tasks on distinct nodes that start together at ``start`` and last their own runtimes.

    Attributes:
        start: common start time of all tasks.
        nodes: node of each task.
        runtimes: runtime of each task, in the order of ``nodes``.
        cost: total money of the window, ``sum(price_i * runtime_i)``.
        slots: the free slots the tasks were cut from, in the order of ``nodes``.
    """

    start: float
    nodes: tuple[int, ...]
    runtimes: tuple[float, ...]
    cost: float
    slots: tuple[Slot, ...]

    @property
    def time(self) -> float:
        """Execution time of the job: the runtime of its task on the slowest node."""
        return max(self.runtimes)

    @property
    def finishes(self) -> tuple[float, ...]:
        """Finish time of each task: the rough right edge."""
        return tuple(self.start + runtime for runtime in self.runtimes)

    @property
    def n(self) -> int:
        return len(self.nodes)
