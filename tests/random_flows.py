"""Small random job flows (hypothesis strategies) shared by the job-flow and contract tests."""

from __future__ import annotations

from hypothesis import strategies as st

from gridsim.model import Job, Node
from gridsim.sim.engine import Instance


@st.composite
def instances(draw, deviations: bool, early_only: bool = False):
    """2-6 nodes with at most one local task each, 1-8 jobs (all at 0 or spread over 40);
    with ``deviations`` runtimes differ from the plan (``early_only``: never longer)."""
    n_nodes = draw(st.integers(2, 6))
    perf = draw(st.lists(st.floats(1, 8), min_size=n_nodes, max_size=n_nodes))
    nodes = tuple(Node(i, p, p / 10) for i, p in enumerate(perf))
    busy = []
    for _ in range(n_nodes):
        start = draw(st.floats(0, 30))
        length = draw(st.floats(0, 10))
        busy.append(((start, start + length),) if length > 0.5 else ())
    n_jobs = draw(st.integers(1, 8))
    static = draw(st.booleans())
    low, high = (0.5, 1.0) if early_only else (0.5, 1.6)
    jobs = tuple(
        Job(
            i,
            0.0 if static else draw(st.floats(0, 40)),
            draw(st.integers(1, n_nodes)),
            draw(st.floats(1, 60)),
            runtime_factor=draw(st.floats(low, high)) if deviations else 1.0,
        )
        for i in range(n_jobs)
    )
    return Instance(nodes, tuple(busy), jobs)
