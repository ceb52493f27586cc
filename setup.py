"""The compiled planning core (gridsim/core, README "The compiled core").

Everything else is in pyproject.toml. The extension is optional: where it cannot be built
(no C compiler), the install goes on and gridsim uses the pure-Python planners.
"""

import sys

from setuptools import Extension, setup

# Replays must give the same doubles as the Python reference: no contraction of a * b + c
# into one fused operation (MSVC does not contract without /fp:fast).
flags = [] if sys.platform == "win32" else ["-ffp-contract=off"]

setup(
    ext_modules=[
        Extension(
            "gridsim.core._replay",
            sources=["gridsim/core/_replay.c", "gridsim/core/_profile.c"],
            depends=["gridsim/core/_profile.h"],
            extra_compile_args=flags,
            optional=True,
        ),
        Extension(
            "gridsim.core._search",
            ["gridsim/core/_search.c"],
            extra_compile_args=flags,
            optional=True,
        ),
    ]
)
