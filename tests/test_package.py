"""The distribution a pip user gets: ``.ci/check_package`` builds the sdist from a clean copy
of the checkout and the wheel from it (a platform wheel holding the compiled core; built
without a C compiler, a pure ``py3-none-any`` one), installs it with
the lock's versions in a new virtual environment outside the checkout, and runs the
quick-start, ``gridsim scenarios``, ``gridsim run window-search -r 2``, ``gridsim reproduce
003-fig1 --quick``, ``gridsim init`` and ``gridsim.run`` on a dict (about a minute, with
network access to the package index)."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_installed_wheel_does_what_the_readme_promises_outside_the_checkout():
    result = subprocess.run(["bash", ".ci/check_package"], cwd=ROOT, capture_output=True,
                            text=True, timeout=1800)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the installed wheel runs the quick-start, the bundled scenarios by name" in (
        result.stdout
    )
    assert "a wheel built without a C compiler is pure" in result.stdout
