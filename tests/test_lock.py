"""requirements/lock.txt, the exact versions CI installs, pins every requirement of gridsim
and of the extras CI installs, each within pyproject.toml's bounds: a requirement added or a
bound moved without refreshing the lock (``bash .ci/lock``) fails here, not silently in CI."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
#: The extras .ci/run installs.
CI_EXTRAS = ("dev", "docs")


def pinned(path: Path) -> dict[str, Version]:
    lines = [line.strip() for line in path.read_text().splitlines()]
    pins = [line.split("==") for line in lines if line and not line.startswith("#")]
    assert all(len(pin) == 2 for pin in pins), "every line of the lock is NAME==VERSION"
    return {canonicalize_name(name): Version(version) for name, version in pins}


def test_the_lock_pins_every_requirement_ci_installs_within_its_bounds():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    needed = project["dependencies"] + [
        line for extra in CI_EXTRAS for line in project["optional-dependencies"][extra]
    ]
    lock = pinned(ROOT / "requirements" / "lock.txt")
    for line in needed:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{requirement.name} is not in requirements/lock.txt"
        assert requirement.specifier.contains(lock[name], prereleases=True), (line, lock[name])


def test_the_citation_check_s_lock_pins_cffconvert():
    assert "cffconvert" in pinned(ROOT / "requirements" / "cffconvert-lock.txt")
