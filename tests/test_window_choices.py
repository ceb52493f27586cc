"""The window search makes exactly the recorded choices, here and without SIMD kernels.

See ``window_choices.py``: every single-job criterion on 150 small random instances and 54
instances of the 100-node environment, each window's choice compared exactly and its values
to :data:`window_choices.ULP_BOUND` units in the last place.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from records import ulp_distance
from window_choices import RECORD, choices, differences, without_simd

RECORDED = json.loads(RECORD.read_text())
NAMES = sorted({name for windows in RECORDED.values() for name in windows})
#: Instances rerun in a process whose NumPy runs without SIMD kernels: those where kernels
#: of other widths once made the search choose another window or other last bits (sums of
#: partitions in another order, powers from a vector library), and every tenth of the rest.
SIMD_CASES = sorted(
    {f"random {seed}" for seed in (13, 21, 41, 48, 52, 64, 70, 74, 77, 87, 127)}
    | {f"random {seed}" for seed in range(0, 150, 10)}
    | {f"100 nodes {edge} 5 paper" for edge in ("neighbour", "none", "history")}
    | {"100 nodes history 1 late, no budget", "100 nodes none 3 tight budget"}
)


@cache
def current() -> dict[str, dict[str, list | None]]:
    return choices()


def test_the_record_covers_the_same_instances_and_criteria():
    assert {case: set(names) for case, names in current().items()} == {
        case: set(names) for case, names in RECORDED.items()
    }


@pytest.mark.parametrize("name", NAMES)
def test_every_window_is_the_recorded_one(name):
    # "instance: another choice ..." or "instance: same choice, values differ ... by N ulp".
    assert differences(RECORDED, current(), name) == []


@cache
def windows_without_simd() -> dict:
    """The windows of :data:`SIMD_CASES` found by a process with every SIMD kernel NumPy
    could dispatch to turned off, and its kernels."""
    script = Path(__file__).resolve().parent / "window_choices.py"
    done = subprocess.run([sys.executable, str(script), "--cases", *SIMD_CASES],
                          capture_output=True, text=True, env=without_simd())  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_process_without_simd_kernels_runs_without_them():
    run = windows_without_simd()
    assert run["simd"]["on"] == []
    assert set(run["windows"]) == set(SIMD_CASES)


@pytest.mark.parametrize("name", NAMES)
def test_without_simd_kernels_every_window_is_the_recorded_one(name):
    assert differences(RECORDED, windows_without_simd()["windows"], name) == []


def test_units_in_the_last_place():
    assert ulp_distance(1.0, 1.0) == 0
    assert ulp_distance(0.0, -0.0) == 0
    assert ulp_distance(1.0, 1.0 + 2**-52) == 1
    assert ulp_distance(-(2**-1074), 2**-1074) == 2
    assert ulp_distance(1.0, 1.0 - 2**-53) == 1
