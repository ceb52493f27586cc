"""A disk that fills up while gridsim writes a results folder: one line naming the file that
could not be written (exit 2, not a bug), no temporary file left, every file already there
whole, and the same command resumes once there is room. The limit is a file size limit
(``ulimit -f``) on a ``gridsim`` process of its own; ``/dev/full`` is in the bad-input
battery."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from pathlib import Path

import pandas.testing as pdt
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import gridsim
from gridsim.cli import main

SCENARIO = """\
name: filling
kind: window_search
seed: 2
replications: 3
environment: {nodes: 10, horizon: 300}
request: {n: 2, volume: 100, budget: 500}
policies: [FirstFit, MaxQ]
"""
#: Bytes: nothing can be written; the manifest (about 3 kB) fits but a runs chunk (about
#: 7.6 kB) does not.
LIMITS = {"no file at all": 0, "the manifest only": 4096}


def limited_gridsim(folder: Path, limit: int, *args: str) -> subprocess.CompletedProcess:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [sys.executable, "-c", "from gridsim.cli import main; main()", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300,
                          preexec_fn=limited, check=False)  # fmt: skip


def temporary_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob(".*") if ".tmp-" in path.name]


def one_write_error(done: subprocess.CompletedProcess, folder: str) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert re.match(rf"^gridsim: error: {folder}/\S+: cannot write it: File too large", lines[0])
    return lines[0]


def runs_without_wall_clock(folder: Path):
    return gridsim.load_results(folder).runs.drop(columns="search_time_s")


@pytest.fixture(scope="module")
def unlimited(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("unlimited")
    (folder / "s.yaml").write_text(SCENARIO)
    result = CliRunner().invoke(main, ["run", str(folder / "s.yaml"), "-q", "-j", "1", "-o",
                                       str(folder / "out")])  # fmt: skip
    assert result.exit_code == 0, result.output
    return folder / "out"


@pytest.mark.parametrize("limit", LIMITS.values(), ids=LIMITS.keys())
def test_a_run_on_a_full_disk_names_the_file_keeps_what_is_whole_and_resumes(
    tmp_path, unlimited, limit
):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    done = limited_gridsim(tmp_path, limit, "run", "s.yaml", "-q", "-j", "1", "-o", "out")
    line = one_write_error(done, "out")
    out = tmp_path / "out"
    assert not temporary_files(tmp_path)
    if limit == 0:  # its first file could not be written: no empty folder is left
        assert line == "gridsim: error: out/metadata.json: cannot write it: File too large"
        assert not out.exists()
    else:
        json.loads((out / "metadata.json").read_text())  # whole
        for chunk in out.rglob("*.parquet"):
            pq.read_table(chunk)
    result = CliRunner().invoke(main, ["run", str(tmp_path / "s.yaml"), "-q", "-j", "1", "-o",
                                       str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    pdt.assert_frame_equal(runs_without_wall_clock(out), runs_without_wall_clock(unlimited))


def test_a_merge_on_a_full_disk_merges_nothing_and_can_be_run_again(tmp_path, unlimited):
    done = limited_gridsim(tmp_path, LIMITS["the manifest only"], "merge", str(unlimited), "-o",
                           "merged")  # fmt: skip
    one_write_error(done, "merged")
    assert not (tmp_path / "merged").exists()
    assert not temporary_files(tmp_path) and not temporary_files(unlimited)
    result = CliRunner().invoke(main, ["merge", str(unlimited), "-o", str(tmp_path / "merged")])
    assert result.exit_code == 0, result.output
    pdt.assert_frame_equal(runs_without_wall_clock(tmp_path / "merged"),
                           runs_without_wall_clock(unlimited))  # fmt: skip


def test_a_report_on_a_full_disk_names_the_file(tmp_path, unlimited):
    done = limited_gridsim(tmp_path, 1024, "report", str(unlimited), "-o", "report")
    line = one_write_error(done, "report")
    assert line.endswith(".png: cannot write it: File too large")  # figures come first
    assert not list((tmp_path / "report").iterdir())  # no part of a figure left
