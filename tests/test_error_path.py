"""How every ``gridsim`` command ends on an error: one line; exit 2 for the user's errors,
exit 1 and a traceback file for bugs."""

from __future__ import annotations

import pickle
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from gridsim.cli import main
from gridsim.errors import UserError, end_with, is_user_error
from gridsim.workloads.swf import SwfFormatError

REPOSITORY = Path(__file__).resolve().parents[1]
WINDOW_SEARCH = """\
name: tiny
kind: window_search
environment: {nodes: 10, horizon: 300}
request: {n: 2, volume: 100, budget: 500}
policies: [FirstFit]
"""


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rn"], r"^gridsim: error: gridsim: No such command 'rn'\. Did you mean 'run'\?"),
        (["run", "--seeds", "3"], r"^gridsim: error: gridsim run: No such option '--seeds'"),
        (["run", "-s", "-1"], r"^gridsim: error: gridsim run: Invalid value for '--seed'"),
        (["export", "."], r"^gridsim: error: gridsim export: Missing option '--format'"),
    ],
)
def test_an_option_click_refuses_is_one_line_naming_it_with_exit_code_two(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert re.search(message, one_error_line(result))


@pytest.mark.parametrize("args", [["run", "-j", 9], ["run", "--cluster", "local:9"],
                                  ["reproduce", "003-fig1", "-j", 9]])  # fmt: skip
def test_more_workers_than_four_per_core_are_refused_before_anything_starts(args, monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    result = invoke(*args)
    assert result.exit_code == 2
    option = "--jobs 9" if "-j" in args else "--cluster local:9"
    assert one_error_line(result) == (f"gridsim: error: {option}: 9 worker processes on 2 "
                                      "cores; at most 8 (4 per core) run here")  # fmt: skip


def test_an_unwritable_results_folder_is_a_user_error_naming_it(tmp_path):
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text(WINDOW_SEARCH)
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = invoke("run", scenario, "-q", "-j", 1, "-o", blocker / "out")
    assert result.exit_code == 2
    assert one_error_line(result) == f"gridsim: error: {blocker / 'out'}: Not a directory"


def test_a_bug_is_exit_code_one_and_one_line_naming_the_traceback_file(tmp_path, monkeypatch):
    import gridsim.experiments.window_search as window_search

    def broken(*args):
        raise TypeError("'int' object is not iterable")

    monkeypatch.setattr(window_search, "run_replication", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text(WINDOW_SEARCH)
    result = invoke("run", scenario, "-q", "-j", 1, "-o", tmp_path / "out")
    assert result.exit_code == 1
    line = one_error_line(result)
    match = re.fullmatch(
        r"gridsim: internal error \(a bug, please report it\): TypeError: 'int' object is not "
        r"iterable \(the run stopped; 0 replications finished, kept in .*\); traceback in (.*)",
        line,
    )
    assert match, line
    assert Path(match.group(1)).parent == tmp_path
    written = Path(match.group(1)).read_text()
    assert written.startswith("Traceback") and "in broken" in written


def test_a_log_a_worker_cannot_read_stops_the_run_with_its_line_named(tmp_path):
    log = tmp_path / "six.swf"
    log.write_text("; MaxProcs: 10\n1 0 10 100 4 -1\n")
    result = invoke("run", REPOSITORY / "scenarios" / "swf-replay.yaml", "--log", log, "-q",
                    "-j", 2, "-r", 2, "-o", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 2
    assert one_error_line(result).startswith(
        f"gridsim: error: {log}, line 2: expected 18 fields, found 6"
    )


def test_a_truncated_gzip_log_is_named_as_damaged(tmp_path):
    import gzip

    log = tmp_path / "cut.swf.gz"
    log.write_bytes(gzip.compress(b"; MaxProcs: 10\n" * 200)[:40])
    result = invoke("run", REPOSITORY / "scenarios" / "swf-replay.yaml", "--log", log, "-q",
                    "-j", 1, "-r", 1, "-o", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 2
    assert one_error_line(result).startswith(f"gridsim: error: {log}: damaged gzip file")


def test_an_unknown_image_format_is_refused_before_anything_is_read(tmp_path):
    result = invoke("gantt", tmp_path, "--policy", "CoP", "-o", tmp_path / "chart.xyz")
    assert result.exit_code == 2
    assert re.match(r"gridsim: error: --output .*chart\.xyz: unknown image format '\.xyz'; "
                    r"expected one of .*\.png", one_error_line(result))  # fmt: skip


def test_debug_before_any_command_prints_a_bugs_traceback(tmp_path, monkeypatch):
    import gridsim.cli

    def broken(*args, **kwargs):
        raise TypeError("a bug in validate")

    monkeypatch.setattr(gridsim.cli, "_load", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    quiet, loud = invoke("validate", "quickstart"), invoke("--debug", "validate", "quickstart")
    assert quiet.exit_code == loud.exit_code == 1
    assert "Traceback" not in quiet.stderr
    assert loud.stderr.startswith("Traceback (most recent call last):")
    assert "in broken" in loud.stderr
    for result in (quiet, loud):
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("gridsim: internal error (a bug, please report it): TypeError")


def test_user_errors_survive_the_trip_back_from_a_worker():
    for error in (SwfFormatError("log.swf", 3, "bad"), UserError("here", "wrong")):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error)


def test_only_listed_errors_and_files_count_as_the_users(capsys):
    assert is_user_error(FileNotFoundError(2, "No such file or directory", "x.yaml"))
    assert not is_user_error(OSError("no file named"))
    assert not is_user_error(ValueError("a bug"))
    assert end_with(KeyboardInterrupt()) == 130
    assert capsys.readouterr().err == "gridsim: interrupted\n"


def test_debug_prints_a_bugs_traceback_before_its_line(tmp_path, monkeypatch):
    import gridsim.experiments.window_search as window_search

    def broken(*args):
        raise TypeError("'int' object is not iterable")

    monkeypatch.setattr(window_search, "run_replication", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text(WINDOW_SEARCH)
    result = invoke("run", scenario, "-q", "-j", 1, "-o", tmp_path / "out", "--debug")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert "in broken" in result.stderr
    assert lines[-1].startswith("gridsim: internal error (a bug, please report it): TypeError")
