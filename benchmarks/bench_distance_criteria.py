"""Lite searches with the slot values as first written against today's, in one process.

    python benchmarks/bench_distance_criteria.py [--rounds 16] [--criteria DEPLite,COORDLite]

The previous forms, kept here as the baseline: the distance functions with their selections
everywhere (``np.isposinf``, two ``np.where`` per distance), ``q`` and the cost gathered for
the distance criteria (which read neither), and every row of a step valued, sigma in a call
of its own. Both run over the 20 instances of ``bench_window_search.py`` in alternation (the
order swapped every round), so that both see the same load; separate processes differ by up
to 10% on this machine with the same code. Prints the medians of the rounds' processor-time
medians and checks that both find the same window, to the last bit, on every instance.
"""

from __future__ import annotations

import argparse

import numpy as np
from paired_searches import REQUEST, alternating_medians, reference_profiles, same_windows

import gridsim.selection.criteria as criteria
from gridsim.selection.registry import CRITERIA


def previous_distances(slot_start, slot_end, start, runtime):
    open_end = np.isposinf(slot_end)
    right = np.where(open_end, np.inf, np.where(open_end, 0.0, slot_end) - (start + runtime))
    return start - slot_start, right


def previous_nearest(slot_start, slot_end, q, cost, start, runtime):
    return np.minimum(*previous_distances(slot_start, slot_end, start, runtime))


def previous_farthest(slot_start, slot_end, q, cost, start, runtime):
    left, right = previous_distances(slot_start, slot_end, start, runtime)
    farthest = np.where(np.isposinf(right), left, np.maximum(left, right))
    return -np.where(np.isinf(left), right, farthest)


def previous_centred(function):
    def bound(slot_start, slot_end, q, cost, runtime, lo, hi):
        centre = np.clip((slot_start + slot_end - runtime) / 2, lo, hi)
        value = function(slot_start, slot_end, q, cost, centre, runtime)
        edge = np.isneginf(slot_start) | np.isposinf(slot_end)
        if np.any(edge):
            ends = np.maximum(
                function(slot_start, slot_end, q, cost, lo, runtime),
                function(slot_start, slot_end, q, cost, hi, runtime),
            )
            value = np.where(edge, np.maximum(value, ends), value)
        return value

    return bound


def previous_row_values(self, step, picks, total):
    values = np.zeros(picks.shape)
    member = np.flatnonzero(picks.ravel() >= 0)
    row = member // picks.shape[1]
    slot = picks.ravel()[member]
    z = self._values_at(step, slot, step.start[row], step.runtime[row])
    values.ravel()[member] = np.broadcast_to(z, member.shape)
    sigma = self._values_at(step, step.sigma, step.start, step.runtime)
    return np.broadcast_to(sigma, step.start.shape) + values.sum(axis=1), None


def previous_classes() -> dict[str, type]:
    """The distance Lite criteria built with the previous functions."""
    saved = criteria._nearest, criteria._farthest, criteria._centred
    criteria._nearest, criteria._farthest = previous_nearest, previous_farthest
    criteria._centred = previous_centred
    try:
        built = {
            name: criteria._distance(name, "", nearest=name == "DEPLite", lite=True)
            for name in ("DEPLite", "COORDLite")
        }
    finally:
        criteria._nearest, criteria._farthest, criteria._centred = saved
    for cls in built.values():
        cls.reads_q_and_cost = True
        cls.row_values = previous_row_values
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--criteria", default="DEPLite,COORDLite")
    options = parser.parse_args()
    names = options.criteria.split(",")
    profiles = reference_profiles()
    versions = {"previous": previous_classes(), "today": CRITERIA}
    medians = alternating_medians(versions, names, profiles, options.rounds)
    for name in names:
        before, now = medians[("previous", name)], medians[("today", name)]
        same = same_windows(
            *([versions[v][name]().search(profile, REQUEST) for profile in profiles]
              for v in versions)
        )  # fmt: skip
        print(
            f"{name:<10} previous {1e3 * before:.2f} ms  today {1e3 * now:.2f} ms"
            f"  previous / today {before / now:.3f}  same windows: {'yes' if same else 'NO'}"
        )


if __name__ == "__main__":
    main()
