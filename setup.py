"""The compiled planning core (gridsim/core, README "The compiled core").

Everything else is in pyproject.toml. The extension is optional: where it cannot be built
(no C compiler), the install goes on and gridsim uses the pure-Python planners, and a wheel
built there is a pure one (``py3-none-any``), not one tagged for a platform it has no
compiled code for.
"""

import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel

# Replays must give the same doubles as the Python reference: no contraction of a * b + c
# into one fused operation (MSVC does not contract without /fp:fast).
flags = [] if sys.platform == "win32" else ["-ffp-contract=off"]
core = Extension(
    "gridsim.core._replay",
    sources=[
        "gridsim/core/_replay.c",
        "gridsim/core/_profile.c",
        "gridsim/core/_resource_replay.c",
        "gridsim/core/_resource_planners.c",
        "gridsim/core/_resource_profile.c",
    ],
    depends=[
        "gridsim/core/_profile.h",
        "gridsim/core/_heap.h",
        "gridsim/core/_bisect.h",
        "gridsim/core/_buffers.h",
        "gridsim/core/_resource_planners.h",
        "gridsim/core/_resource_profile.h",
    ],
    extra_compile_args=flags,
    optional=True,
)
# The node-level planning core: the whole window search for CoP and PAST, its inner loops,
# the profile's slot-table patches and the planners' test before re-planning a job.
search = Extension(
    "gridsim.core._search",
    sources=[
        "gridsim/core/_search.c",
        "gridsim/core/_window.c",
        "gridsim/core/_slot_table.c",
        "gridsim/core/_earlier_windows.c",
    ],
    depends=["gridsim/core/_placement.h", "gridsim/core/_tie_rule.h"],
    extra_compile_args=flags,
    optional=True,
)
extensions = [core, search]


class WheelTaggedByWhatItHolds(bdist_wheel):
    """A platform wheel only when a compiled module is in it: setuptools tags every wheel of
    a project with extensions for the platform, even when the optional builds failed."""

    def get_tag(self) -> tuple[str, str, str]:
        build_ext = self.get_finalized_command("build_ext")
        names = [Path(build_ext.get_ext_filename(ext.name)).name for ext in extensions]
        if not any(any(Path(self.bdist_dir).rglob(name)) for name in names):
            self.root_is_pure = True  # also the wheel's Root-Is-Purelib
        return super().get_tag()


setup(ext_modules=extensions, cmdclass={"bdist_wheel": WheelTaggedByWhatItHolds})
