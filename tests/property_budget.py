"""Hypothesis profiles and the example counts property tests ask for.

``ci`` (the default, and what ``CI=true`` runs): derandomised -- examples come from a hash of
the test, so every run tries the same ones -- with no example database (nothing carried over
from earlier runs) and no deadline (a shared 2-core machine makes timings wander).
``thorough``: random examples, ten times the counts, failures kept in ``.hypothesis/`` and
replayed first on the next run. Pick one with ``HYPOTHESIS_PROFILE=thorough`` (or pytest's
``--hypothesis-profile thorough``).

A test that sets its own count writes ``settings(max_examples=examples(40))``: 40 under
``ci``, 400 under ``thorough``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: Example counts per profile, relative to the count a test asks for under ``ci``.
SCALE = {"ci": 1, "thorough": 10}
#: Examples for a property test that sets no count of its own (hypothesis's default is 100).
DEFAULT_EXAMPLES = 100

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=DEFAULT_EXAMPLES,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    derandomize=False,
    deadline=None,
    max_examples=DEFAULT_EXAMPLES * SCALE["thorough"],
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def profile_name() -> str:
    """``HYPOTHESIS_PROFILE`` when set (it must name a profile), ``ci`` otherwise."""
    name = os.environ.get("HYPOTHESIS_PROFILE", "").strip() or "ci"
    if name not in SCALE:
        known = ", ".join(sorted(SCALE))
        raise ValueError(f"HYPOTHESIS_PROFILE: expected one of {known}, got {name!r}")
    return name


def load_profile() -> None:
    settings.load_profile(profile_name())


def examples(count: int) -> int:
    """``count`` examples under ``ci``, scaled for the profile in use."""
    return count * SCALE[profile_name()]
