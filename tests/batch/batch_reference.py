"""A straightforward reference of the batch cycle, written from the paper's text alone.

It keeps the slot list as a Python list sorted by (start, node), checks the conditions of ALP
and AMP slot by slot, and subtracts windows by replacing a slot K with its remnants K1 and K2
at their sorted positions, as [TYTB11, Sec. 2] describes. The tests compare the package with
it; ``benchmarks/bench_batch.py`` uses it as the timing baseline.
"""

from __future__ import annotations

import bisect

from gridsim.profile import MIN_SLOT_LENGTH


def reference_slot_list(profile):
    """(start, node, end, performance, price) of every free slot, sorted by (start, node)."""
    nodes = profile.nodes
    return sorted(
        (start, node.id, end, node.performance, node.price)
        for node in nodes
        for start, end in profile.free_intervals(node.id)
    )


def reference_search(slots, job, price_capped):
    """(start, [(node, runtime, cost), ...] by node) of the window found, or None."""
    candidates = []
    for start, node, end, performance, price in slots:
        runtime = job.runtime * job.min_performance / performance
        if performance < job.min_performance or start + runtime > end:
            continue
        if price_capped and price > job.price_cap:
            continue
        candidates = [c for c in candidates if start + c[1] <= c[3]]
        candidates.append((node, runtime, price * runtime, end, len(candidates)))
        if len(candidates) < job.n:
            continue
        if price_capped:
            return start, sorted(c[:3] for c in candidates)
        cheapest = sorted(candidates, key=lambda c: c[2])[: job.n]
        if sum(c[2] for c in cheapest) <= job.budget:
            return start, sorted(c[:3] for c in cheapest)
    return None


def reference_subtract(slots, start, tasks):
    for node, runtime, _ in tasks:
        finish = start + runtime
        position = next(
            i for i, s in enumerate(slots) if s[1] == node and s[0] <= start and finish <= s[2]
        )
        k_start, _, k_end, performance, price = slots.pop(position)
        if start - k_start > MIN_SLOT_LENGTH:
            bisect.insort(slots, (k_start, node, start, performance, price))
        if k_end - finish > MIN_SLOT_LENGTH:
            bisect.insort(slots, (finish, node, k_end, performance, price))


def reference_cycle(profile, jobs, price_capped):
    """Alternatives per job as (start, tasks); every job is searched in every pass."""
    slots = reference_slot_list(profile)
    alternatives = [[] for _ in jobs]
    found_any = True
    while found_any:
        found_any = False
        for i, job in enumerate(jobs):
            window = reference_search(slots, job, price_capped)
            if window is None:
                continue
            found_any = True
            alternatives[i].append(window)
            reference_subtract(slots, *window)
    return alternatives
