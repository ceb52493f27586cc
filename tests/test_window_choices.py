"""The window search makes exactly the choices recorded before its reorganisation.

See ``window_choices.py``: every single-job criterion on 150 small random instances and 54
instances of the 100-node environment, each window compared to the last bit.
"""

from __future__ import annotations

import json
from functools import cache

import pytest
from window_choices import RECORD, choices


@cache
def current() -> dict[str, dict[str, str]]:
    return choices()


RECORDED = json.loads(RECORD.read_text())


def test_the_record_covers_the_same_instances_and_criteria():
    assert {case: set(names) for case, names in current().items()} == {
        case: set(names) for case, names in RECORDED.items()
    }


@pytest.mark.parametrize("name", sorted({n for names in RECORDED.values() for n in names}))
def test_every_window_is_the_recorded_one(name):
    different = [
        case
        for case, names in RECORDED.items()
        if name in names and current()[case][name] != names[name]
    ]
    # Instances where the window differs in any field from the recorded choice.
    assert different == []
