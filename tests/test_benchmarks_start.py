"""Every benchmark script still imports and parses its arguments (they run on demand only)."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py"))


def test_there_are_benchmarks():
    assert len(BENCHMARKS) >= 5


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.name)
def test_benchmark_starts(script):
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "--pyss DIR is required"),
        (["--pyss", "."], "no pyss here"),
    ],
)
def test_pyss_benchmark_says_what_is_missing(arguments, message):
    """Without a pyss checkout the comparison stops with one line, before any work."""
    script = BENCHMARKS[0].parent / "bench_pyss.py"
    done = subprocess.run(
        [sys.executable, str(script), *arguments], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_pyss_benchmark_needs_python2(tmp_path):
    for name in ("schedulers/conservative_scheduler.py", "base/prototype.py"):
        (tmp_path / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / name).write_text("")
    script = BENCHMARKS[0].parent / "bench_pyss.py"
    command = [sys.executable, str(script), "--pyss", str(tmp_path), "--python2", "no-such-py2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "bench_pyss.py: --python2 no-such-py2: no such interpreter (pyss needs Python 2.7)"
    )
