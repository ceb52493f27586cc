"""Two versions of a window-search criterion timed in alternation in one process.

Shared by ``bench_step_bounds.py`` and ``bench_distance_criteria.py``: separate processes
differ by up to 10% on a shared machine with the same code, so both versions run over the
same 20 instances of ``bench_window_search.py`` in one process, the order swapped every
round, and each gets the median over the rounds of its per-round processor-time median.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping

import numpy as np

from gridsim.model import Request
from gridsim.workloads.environment import EnvironmentSpec, generate_environment

#: The request of ``bench_window_search.py``'s 100-node instance.
REQUEST = Request(n=7, volume=800, budget=644, min_performance=1)


def reference_profiles(count: int = 20) -> list:
    """The availability profiles of ``bench_window_search.py``'s instances (seeds 0..count-1)."""
    return [
        generate_environment(EnvironmentSpec(), np.random.default_rng(seed)).profile()
        for seed in range(count)
    ]


def alternating_medians(
    versions: Mapping[str, Mapping[str, type]],
    names: list[str],
    profiles: list,
    rounds: int,
    prepare: Callable[[str], None] = lambda version: None,
) -> dict[tuple[str, str], float]:
    """``(version, criterion name) ->`` median seconds per search; ``prepare(version)`` runs
    before each version's searches (to set module state the version depends on)."""
    medians: dict[tuple[str, str], list[float]] = {(v, n): [] for v in versions for n in names}
    for round_ in range(rounds):
        order = list(versions) if round_ % 2 == 0 else list(versions)[::-1]
        for name in names:
            for version in order:
                prepare(version)
                criterion = versions[version][name]()
                spent = []
                for profile in profiles:
                    began = time.process_time()
                    criterion.search(profile, REQUEST)
                    spent.append(time.process_time() - began)
                medians[(version, name)].append(statistics.median(spent))
    return {key: statistics.median(values) for key, values in medians.items()}


def same_windows(first: list, second: list) -> bool:
    """Whether two lists of windows are equal to the last bit, instance by instance."""
    return all(
        (a.start, a.runtime, a.nodes, a.slots, a.cost, a.criterion_value)
        == (b.start, b.runtime, b.nodes, b.slots, b.cost, b.criterion_value)
        for a, b in zip(first, second, strict=True)
    )
