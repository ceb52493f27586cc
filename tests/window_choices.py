"""Recorded window choices: every single-job criterion on a fixed set of instances.

``tests/data/window_choices.json`` holds, per instance and criterion, the window found: the
choice (start, and the nodes with their slots) and its values (runtime, cost, criterion
value), every float written as Python's ``repr``, which reads back bit for bit.
``test_window_choices.py`` checks that the search still makes exactly these choices, on this
machine and with NumPy's SIMD kernels turned off (the search must not depend on them).

A mismatch is one of two kinds (:func:`difference`): *another choice* (another start, node or
slot, or a window where none was found) always fails; *the same choice* whose values differ
in the last bits fails beyond :data:`ULP_BOUND` units in the last place.

Record again (only when a change of choices or values is intended and explained):
``python tests/window_choices.py --record``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from random_instances import random_instance
from records import ulp_distance

from gridsim.model import Request, Window
from gridsim.profile import Profile
from gridsim.selection.energy_criteria import ENERGY_CRITERIA_NAMES
from gridsim.selection.registry import CRITERIA, build_criterion
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
EDGES = ("neighbour", "none", "history")

#: Units in the last place a recorded value may move by with the same choice. The values are
#: sums of at most 9 slot values; another order of addition, or inputs a last bit off (another
#: C library's ``pow``), moves such a sum by at most about one unit per term. 16 covers that
#: and is far below the tie tolerance of the search (1e-12 of the value, at least 4500
#: units), so windows that a tie decided otherwise cannot pass as the same values.
ULP_BOUND = 16


def instances(cases: set[str] | None = None) -> list[tuple[str, Profile, Request]]:
    """(name, profile, request) of every recorded instance, in a fixed order (only those named
    in ``cases``, if given)."""
    found = [(f"random {seed}", *random_instance(seed)) for seed in SMALL_SEEDS
             if cases is None or f"random {seed}" in cases]  # fmt: skip
    for edge in EDGES:
        spec = EnvironmentSpec(horizon_start_edge=edge)
        for seed in LARGE_SEEDS:
            names = [f"100 nodes {edge} {seed} {label}" for label in LARGE_REQUESTS]
            if cases is not None and not cases.intersection(names):
                continue
            profile = generate_environment(spec, np.random.default_rng(seed)).profile()
            for name, request in zip(names, LARGE_REQUESTS.values(), strict=True):
                if cases is None or name in cases:
                    found.append((name, profile, request))
    return found


def criteria_for(case: str) -> list[str]:
    """Every criterion; MultipleBest (hundreds of searches each) on the small instances only."""
    # The energy criteria need a power model (tests/test_signal_criteria.py checks them).
    names = [name for name in CRITERIA if name not in ENERGY_CRITERIA_NAMES]
    return names if case.startswith("random") else [n for n in names if n != "MultipleBest"]


def record_of(window: Window | None) -> list | None:
    """``[start, [[node, slot start, slot end], ...], runtime, cost, criterion value]``."""
    if window is None:
        return None
    slots = [[s.node, s.start, s.end] for s in window.slots]
    return [window.start, slots, window.runtime, window.cost, float(window.criterion_value)]


def choices(cases: set[str] | None = None) -> dict[str, dict[str, list | None]]:
    """{instance: {criterion: record}} with the current search."""
    return {
        case: {
            name: record_of(build_criterion(name).search(profile, request))
            for name in criteria_for(case)
        }
        for case, profile, request in instances(cases)
    }


def difference(recorded: list | None, found: list | None) -> str | None:
    """What differs between a recorded window and the one found, or None if nothing beyond
    :data:`ULP_BOUND` does."""
    if recorded is None and found is None:
        return None
    if recorded is None or found is None or recorded[:2] != found[:2]:
        return f"another choice: {_shown(found)}, recorded {_shown(recorded)}"
    ulps = max(ulp_distance(a, b) for a, b in zip(recorded[2:], found[2:], strict=True))
    if ulps > ULP_BOUND:
        values = "runtime, cost, value"
        return (f"same choice, values differ in the last bits by {ulps} ulp: ({values}) "
                f"{found[2:]}, recorded {recorded[2:]}")  # fmt: skip
    return None


def differences(recorded: dict, found: dict, name: str) -> list[str]:
    """``instance: difference`` of every instance where criterion ``name`` differs."""
    return [
        f"{case}: {problem}"
        for case, windows in found.items()
        if name in windows
        and (problem := difference(recorded[case][name], windows[name])) is not None
    ]


def _shown(record: list | None) -> str:
    if record is None:
        return "no window"
    start, slots = record[:2]
    return f"start {start!r} on nodes {[s[0] for s in slots]} (slots {slots})"


def simd_features() -> dict[str, list[str]]:
    """NumPy's SIMD kernels: those it can dispatch to above its baseline, and those on."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as umath
    found = umath.__cpu_features__
    return {
        "dispatch": list(umath.__cpu_dispatch__),
        "on": [f for f in umath.__cpu_dispatch__ if found.get(f)],
    }


def without_simd() -> dict[str, str]:
    """This process's environment with every SIMD kernel NumPy could dispatch to on this
    machine turned off (``NPY_DISABLE_CPU_FEATURES``), whatever this process was started with."""
    env = {name: value for name, value in os.environ.items()
           if name != "NPY_DISABLE_CPU_FEATURES"}  # fmt: skip
    probe = "import json, window_choices as w; print(json.dumps(w.simd_features()))"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           env=env, cwd=Path(__file__).parent, check=True)  # fmt: skip
    env["NPY_DISABLE_CPU_FEATURES"] = " ".join(json.loads(found.stdout)["on"])
    return env


def write(record: dict) -> None:
    """The record as JSON, one window per line."""
    lines = []
    for case in sorted(record):
        windows = ",\n".join(
            f"{json.dumps(name)}: {json.dumps(record[case][name])}" for name in sorted(record[case])
        )
        lines.append(f"{json.dumps(case)}: {{\n{windows}\n}}")
    RECORD.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write the record anew")
    parser.add_argument("--cases", nargs="*", help="print these instances' windows as JSON")
    args = parser.parse_args(argv)
    if args.record:
        write(choices())
        print(f"recorded {RECORD}", file=sys.stderr)
    elif args.cases is not None:
        print(json.dumps({"simd": simd_features(), "windows": choices(set(args.cases))}))


if __name__ == "__main__":
    main(sys.argv[1:])
