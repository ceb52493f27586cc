"""CI's strict documentation build (``.ci/docs``) fails on a broken reference: planted in a
copy of the checkout, each is named in the output and the script exits non-zero."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocs", reason="the docs extra is not installed")

#: (file, text appended to it, what the failed build must name)
PLANTED = [
    ("gridsim/model.py", '\n\ndef planted():\n    """:class:`gridsim.model.NoSuchNode`."""\n',
     "gridsim.model.NoSuchNode"),
    ("gridsim/model.py", '\n\ndef planted_private():\n    """:func:`_no_such_helper`."""\n',
     "_no_such_helper"),
    ("gridsim/selection/exact.py", '\n\ndef planted_member():\n    """:attr:`Step.no_such`."""\n',
     "Step.no_such"),
    ("docs/model.md", "\nSee [the missing page](no-such-page.md).\n", "no-such-page.md"),
]  # fmt: skip


def checkout_copy(target: Path) -> Path:
    """The files git tracks or would track here (work-tree contents), copied to ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, not yet in the index
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination, follow_symlinks=False)
    return target


def test_the_strict_build_fails_on_each_planted_broken_reference(tmp_path):
    copy = checkout_copy(tmp_path / "checkout")
    for name, text, _ in PLANTED:
        with (copy / name).open("a") as file:
            file.write(text)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    result = subprocess.run(["bash", ".ci/docs"], cwd=copy, capture_output=True, text=True,
                            timeout=600, env={**os.environ, "PATH": path})  # fmt: skip
    assert result.returncode != 0, result.stdout + result.stderr
    for _, _, named in PLANTED:
        assert named in result.stderr, (named, result.stderr)
