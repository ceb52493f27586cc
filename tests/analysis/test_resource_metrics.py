"""The per-resource time series against a brute-force computation at every instant.

Random jobs tables on random nodes of cores, memory and GPUs (integer times, so starts and ends
coincide often; zero-length jobs and jobs that never ran included): at every instant where
something changes, and between every two of them, the brute force sums what every job holds
at that instant (a job holds its amounts from its start, included, to its end, excluded) and
recomputes each node's stranded cores from its capacity alone; the step functions of
:func:`resource_timeline` must give the same numbers there.
"""

import numpy as np
import pandas as pd
import pytest

from gridsim.analysis.resource_metrics import resource_summary, resource_timeline, stranded_cores
from gridsim.resources import RESOURCE_KINDS, capacity_matrix
from gridsim.sim.trace import allocation_text


def random_table(rng: np.random.Generator, capacity: np.ndarray, count: int) -> pd.DataFrame:
    """Jobs holding random amounts on random distinct nodes, from integer starts to ends."""
    rows = []
    for job in range(count):
        nodes = sorted(rng.choice(len(capacity), int(rng.integers(1, 3)), replace=False).tolist())
        amounts = [[int(rng.integers(0, c + 1)) for c in capacity[n]] for n in nodes]
        start = float(rng.integers(0, 20))
        ran = rng.random() > 0.1
        finish = start + float(rng.integers(0, 6))
        rows.append({
            "job_id": job, "submit_time": start - float(rng.integers(0, 4)),
            "start_time": start if ran else np.nan, "finish_time": finish if ran else np.nan,
            "run_time": finish - start if ran else np.nan,
            "allocation": allocation_text(nodes, amounts) if ran else "",
        })  # fmt: skip
    return pd.DataFrame(rows)


def brute_force(table: pd.DataFrame, capacity: np.ndarray, memory_tracked: bool, at: float):
    """(amounts in use per kind, stranded cores) at instant ``at``, from every job."""
    used = np.zeros_like(capacity)
    for row in table.itertuples():
        if not np.isnan(row.start_time) and row.start_time <= at < row.finish_time:
            for part in row.allocation.split():
                node, _, amounts = part.partition(":")
                used[int(node)] += [int(a) for a in amounts.split("/")]
    if not memory_tracked:
        used[:, 1] = 0
    stranded = 0
    for node, (cores, memory, gpus) in enumerate(capacity):
        free = capacity[node] - used[node]
        memory_gone = memory_tracked and free[1] < memory / cores
        if memory_gone or (gpus > 0 and free[2] == 0):
            stranded += free[0]
    return used.sum(axis=0), stranded


def value_at(timeline: pd.DataFrame, column: str, at: float) -> float:
    """A step function's value at ``at`` (0 before its first instant)."""
    row = np.searchsorted(timeline.time.to_numpy(), at, side="right") - 1
    return 0.0 if row < 0 else float(timeline[column].iloc[row])


@pytest.mark.parametrize("memory_tracked", [True, False])
def test_the_timeline_matches_a_brute_force_computation_at_every_instant(memory_tracked):
    rng = np.random.default_rng([29, memory_tracked])
    for _ in range(40):
        count = int(rng.integers(2, 5))
        capacity = capacity_matrix(rng.integers(1, 5, count), 512 * rng.integers(1, 5, count),
                                   rng.integers(0, 3, count))  # fmt: skip
        table = random_table(rng, capacity, int(rng.integers(1, 12)))
        timeline = resource_timeline(table, capacity, memory_tracked)
        assert timeline.time.is_monotonic_increasing and timeline.time.is_unique
        instants = np.unique(np.r_[table.start_time.dropna(), table.finish_time.dropna()])
        for at in np.r_[instants, instants + 0.5, instants.min() - 1 if len(instants) else 0]:
            used, stranded = brute_force(table, capacity, memory_tracked, at)
            for column, kind in enumerate(RESOURCE_KINDS):
                assert value_at(timeline, kind, at) == used[column], (kind, at)
                share = value_at(timeline, f"utilisation_{kind}", at)
                total = capacity[:, column].sum()
                if (kind == "memory_mb" and not memory_tracked) or total == 0:
                    assert np.isnan(share) or at < timeline.time.iloc[0]
                else:
                    assert share == pytest.approx(used[column] / total)
            assert value_at(timeline, "stranded_cores", at) == stranded, at
        if len(instants) > 1:  # the runs table's stranded core-seconds: the same integral
            widths = np.diff(instants)
            brute = sum(brute_force(table, capacity, memory_tracked, t)[1] * w
                        for t, w in zip(instants[:-1], widths, strict=True))  # fmt: skip
            assert stranded_cores(table, capacity, memory_tracked) == pytest.approx(brute)


def test_a_table_where_nothing_ran_has_an_empty_timeline():
    capacity = capacity_matrix([2], [1024], [1])
    table = pd.DataFrame({"job_id": [0], "submit_time": [0.0], "start_time": [np.nan],
                          "finish_time": [np.nan], "run_time": [np.nan], "allocation": [""],
                          "wait_time": [np.nan], "resource_class": ["cpu"],
                          "cores": [0], "memory_mb": [0], "gpus": [0]})  # fmt: skip
    assert resource_timeline(table, capacity, True).empty
    assert np.isnan(resource_summary(table, capacity, True)["stranded_cores"])
