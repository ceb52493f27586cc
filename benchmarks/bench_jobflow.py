"""Time one 200-job, 32-node job flow per policy (paper TY20 Table 2 setting), run on demand.

    .venv/bin/python benchmarks/bench_jobflow.py [--jobs 200] [--repeat 3]

For every policy the same instance is simulated with the library's window search and with a
straightforward search written here (every candidate start times every candidate slowest
slot, then the best ``n - 1`` other slots by sorting; no bounds, no vectorised steps), and
the two schedules are checked to give the same mean finish time (ties may pick other nodes
of equal value, so only the mean is compared, to 1e-6).
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, replace

import numpy as np

from gridsim.model import Job, Node, Slot, Window
from gridsim.selection.criteria import _Additive
from gridsim.selection.registry import build_criterion
from gridsim.sim.engine import Instance, simulate

POLICIES = ["BFstart", "BFfinish", "BFshort", "PAST", "CoP"]


@dataclass(frozen=True)
class Straightforward:
    """The same criterion searched by plain enumeration (infinite budgets only)."""

    criterion: object

    def search(self, profile, request):
        volume_scale = getattr(self.criterion, "runtime_factor", 1.0)
        request = replace(request, volume=request.volume * volume_scale)
        table = profile.slot_table()
        eff = np.maximum(table.start, request.earliest_start)
        keep = table.end > eff
        node, slot_start, end = table.node[keep], table.start[keep], table.end[keep]
        perf, price, start = table.performance[keep], table.price[keep], eff[keep]
        best, best_key = None, None
        additive = isinstance(self.criterion, _Additive)
        for t in np.unique(start):
            for sigma in np.flatnonzero(start <= t):
                runtime = request.volume / perf[sigma]
                if end[sigma] < t + runtime:
                    continue
                ok = (perf >= perf[sigma]) & (start <= t) & (end >= t + runtime)
                ok[sigma] = False
                others = np.flatnonzero(ok)
                if len(others) < request.n - 1:
                    continue
                if additive:
                    z = self.criterion.slot_values(slot_start, end, 0, runtime * price, t,
                                                   runtime, perf)  # fmt: skip
                    picks = others[np.argsort(-z[others], kind="stable")[: request.n - 1]]
                    value = float(z[sigma] + z[picks].sum())
                else:
                    picks = others[: request.n - 1]
                    value = float(self.criterion.value(t, runtime))
                key = (value, perf[sigma], -t)
                if best_key is None or key > best_key:
                    chosen = sorted([sigma, *picks], key=lambda i: node[i])
                    best_key = key
                    best = Window(
                        start=float(t), runtime=float(runtime),
                        nodes=tuple(int(node[i]) for i in chosen),
                        slots=tuple(Slot(int(node[i]), float(slot_start[i]), float(end[i]))
                                    for i in chosen),
                        cost=float(runtime * price[chosen].sum()), criterion_value=value,
                    )  # fmt: skip
        return best


def instance(n_jobs: int, seed: int) -> Instance:
    rng = np.random.default_rng(seed)
    performance = rng.uniform(2, 16, 32)
    nodes = tuple(Node(i, float(p), 0.1 * float(p)) for i, p in enumerate(performance))
    jobs = tuple(
        Job(i, 0.0, int(rng.integers(1, 9)), float(rng.uniform(60, 1200))) for i in range(n_jobs)
    )
    return Instance(nodes, tuple(() for _ in nodes), jobs)


def timed(inst, criterion, repeat):
    times, trace = [], None
    for _ in range(repeat):
        began = time.perf_counter()
        trace = simulate(inst, criterion)
        times.append(time.perf_counter() - began)
    mean_finish = statistics.fmean(r["finish"] for r in trace.job_records())
    return min(times), mean_finish


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2020)
    args = parser.parse_args()
    inst = instance(args.jobs, args.seed)
    print(f"{args.jobs} jobs, 32 nodes, best of {args.repeat}")
    print(f"{'policy':<10}{'gridsim s':>11}{'straightforward s':>19}{'speed-up':>10}  same")
    for policy in POLICIES:
        criterion = build_criterion(policy)
        fast, finish = timed(inst, criterion, args.repeat)
        slow, reference = timed(inst, Straightforward(criterion), 1)
        same = abs(finish - reference) <= 1e-6 * max(1.0, abs(reference))
        print(f"{policy:<10}{fast:>11.3f}{slow:>19.3f}{slow / fast:>10.1f}  {same}")


if __name__ == "__main__":
    main()
