"""Recorded window choices: every single-job criterion on a fixed set of instances.

``tests/data/window_choices.json`` holds, per criterion and instance, a short hash of the whole
window found (start, runtime, nodes, slots, cost, criterion value, all to the last bit), recorded
with the window search as it was before the cheapest members came from bitsets and the steps of
cheapest-subset criteria were evaluated ahead (gridsim 23823c7). ``test_window_choices.py``
checks that the search still makes exactly these choices.

The instances have real-valued node performances, so no two nodes share a performance group and
the choices do not depend on how NumPy orders equal bounds (which can differ between machines).

Record again (only when a change of choices is intended and explained):
``python tests/window_choices.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from random_instances import random_instance

from gridsim.model import Request, Window
from gridsim.profile import Profile
from gridsim.selection.criteria import CRITERIA, build_criterion
from gridsim.workloads.environment import EnvironmentSpec, generate_environment

RECORD = Path(__file__).parent / "data" / "window_choices.json"
#: Instances of the 100-node environment [TY18, Sec. 4.1] and their requests.
LARGE_REQUESTS = {
    "paper": Request(n=7, volume=800, budget=644, min_performance=1),
    "late, no budget": Request(n=9, volume=700, min_performance=1, earliest_start=150),
    "tight budget": Request(n=4, volume=900, budget=300, min_performance=3),
}
SMALL_SEEDS = range(150)
LARGE_SEEDS = range(6)


def instances() -> list[tuple[str, Profile, Request]]:
    """(name, profile, request) of every recorded instance, in a fixed order."""
    cases = [(f"random {seed}", *random_instance(seed)) for seed in SMALL_SEEDS]
    for edge in ("neighbour", "none", "history"):
        spec = EnvironmentSpec(horizon_start_edge=edge)
        for seed in LARGE_SEEDS:
            profile = generate_environment(spec, np.random.default_rng(seed)).profile()
            for label, request in LARGE_REQUESTS.items():
                cases.append((f"100 nodes {edge} {seed} {label}", profile, request))
    return cases


def criteria_for(case: str) -> list[str]:
    """Every criterion; MultipleBest (hundreds of searches each) on the small instances only."""
    names = list(CRITERIA)
    return names if case.startswith("random") else [n for n in names if n != "MultipleBest"]


def fingerprint(window: Window | None) -> str:
    """A short hash of every field of the window, floats to the last bit."""
    if window is None:
        return "none"
    parts = [
        window.start.hex(),
        window.runtime.hex(),
        repr(window.nodes),
        repr([(s.node, s.start.hex(), s.end.hex()) for s in window.slots]),
        window.cost.hex(),
        float(window.criterion_value).hex(),
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]


def choices() -> dict[str, dict[str, str]]:
    """{instance: {criterion: fingerprint}} with the current search."""
    return {
        case: {
            name: fingerprint(build_criterion(name).search(profile, request))
            for name in criteria_for(case)
        }
        for case, profile, request in instances()
    }


if __name__ == "__main__":
    RECORD.write_text(json.dumps(choices(), indent=0, sort_keys=True) + "\n")
    print(f"recorded {RECORD}", file=sys.stderr)
