"""The ``gridsim`` command: run, validate, and one-line errors for bad scenarios."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
from importlib import resources
from pathlib import Path

import click
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

import gridsim
from gridsim.analysis.results import load_table
from gridsim.cli import main

REPOSITORY = Path(__file__).resolve().parents[1]
GRIDSIM = Path(sys.executable).with_name("gridsim")
SCENARIO_FILES = sorted((REPOSITORY / "scenarios").glob("**/*.yaml"))


def quickstart() -> dict:
    return yaml.safe_load(resources.files("gridsim").joinpath("data/quickstart.yaml").read_text())


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_run_of_the_quickstart_prints_one_row_per_policy_and_writes_results(tmp_path):
    out = tmp_path / "results"
    completed = subprocess.run(
        [GRIDSIM, "run", "-r", "3", "-j", "1", "-q", "-o", out],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0].split()[:3] == ["policy", "runs", "found"]
    policies = quickstart()["policies"]
    for policy, line in zip(policies, lines[1:], strict=False):
        assert line.split()[:2] == [policy, "3"]
    assert f"results: {out}  (3 replications)" in completed.stdout
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "metadata.json", "paired.parquet", "runs", "summary.csv",
    ]  # fmt: skip
    runs = load_table(out, "runs")
    assert len(runs) == 3 * len(policies)
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["command"].startswith("gridsim run -r 3 -j 1 -q -o ")
    assert metadata["replications_completed"] == 3
    assert metadata["seed"] == quickstart()["seed"]


def test_validate_accepts_the_embedded_quickstart():
    result = invoke("validate", "quickstart")
    assert result.exit_code == 0, result.output
    assert "valid window_search scenario 'quickstart'" in result.stdout
    assert f"{len(quickstart()['policies'])} policies" in result.stdout


def test_validate_accepts_every_scenario_in_the_repository():
    for path in SCENARIO_FILES:
        result = invoke("validate", path)
        assert result.exit_code == 0, (path, result.output)
        document = yaml.safe_load(Path(path).read_text())
        assert f"valid {document['kind']} scenario '{document['name']}'" in result.stdout


def test_validate_names_the_schedulers_a_log_replay_compares():
    result = invoke("validate", str(REPOSITORY / "scenarios" / "swf-replay-heterogeneous.yaml"))
    assert result.exit_code == 0, result.output
    assert "schedulers fcfs, easy, conservative under BFfinish" in result.stdout


GOOD = {
    "name": "bad-input",
    "kind": "window_search",
    "environment": {"nodes": 10, "horizon": 300},
    "request": {"n": 2, "volume": 100, "budget": 500},
    "policies": ["FirstFit"],
}


def with_changes(*changes):
    document = json.loads(json.dumps(GOOD))
    for change in changes:
        change(document)
    return yaml.safe_dump(document)


BAD_SCENARIOS = {
    "malformed YAML": ("name: x\nkind: [window_search\n", r"malformed YAML at line \d+"),
    "unknown criterion": (
        with_changes(lambda d: d.update(policies=["FirstFit", "MaxQQ"])),
        r"policies: policy 1: unknown criterion 'MaxQQ'; did you mean 'MaxQ'\?",
    ),
    "negative n": (
        with_changes(lambda d: d["request"].update(n=-3)),
        r"request\.n: .*greater than 0 \(got -3\)",
    ),
    "missing request volume": (
        with_changes(lambda d: d["request"].pop("volume")),
        r"request\.volume: missing \(required\)",
    ),
    "unknown top-level key": (
        with_changes(lambda d: d.update(polices=["FirstFit"])),
        r"polices: unknown field",
    ),
    "unknown kind": (
        with_changes(lambda d: d.update(kind="window_serch")),
        r"kind: expected one of .*window_search.*got 'window_serch'",
    ),
    "unknown criterion parameter": (
        with_changes(lambda d: d.update(policies=[{"name": "MultipleBest", "goal": "MaxQ"}])),
        r"policies: policy 0: criterion MultipleBest has no parameter 'goal'",
    ),
}


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("case", BAD_SCENARIOS)
def test_a_bad_scenario_is_one_line_naming_the_field_and_exit_code_two(case, command, tmp_path):
    text, message = BAD_SCENARIOS[case]
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    options = ["-q", "-o", tmp_path / "out"] if command == "run" else []
    result = invoke(command, path, *options)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"gridsim: error: {path}: ")
    assert re.search(message, lines[0]), lines[0]
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_a_missing_file_is_one_line_and_exit_code_two(tmp_path):
    missing = tmp_path / "nowhere.yaml"
    result = invoke("validate", missing)
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(
        f"gridsim: error: {missing}: no such file, nor a bundled scenario (bundled: quickstart, "
    )


def test_the_installed_command_prints_no_traceback_for_a_bad_scenario(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(BAD_SCENARIOS["unknown criterion"][0])
    completed = subprocess.run(
        [GRIDSIM, "validate", path], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert len(completed.stderr.strip().splitlines()) == 1
    assert "did you mean 'MaxQ'" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_a_request_wider_than_the_environment_is_refused_before_running(tmp_path):
    path = tmp_path / "too-many-nodes.yaml"
    path.write_text(with_changes(lambda d: d["request"].update(n=11)))
    result = invoke("run", path, "-r", 2, "-j", 1, "-q", "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr == (
        f"gridsim: error: {path}: request.n: 11 nodes requested, but environment.nodes is 10\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_request_no_drawn_environment_satisfies_runs_and_counts_unfound_windows(tmp_path):
    path = tmp_path / "all-fast-nodes.yaml"
    path.write_text(
        with_changes(  # ten nodes of ten, all at least 9.5 fast: possible, never drawn
            lambda d: d["request"].update(n=10, min_performance=9.5),
            lambda d: d.update(policies=["FirstFit", "MaxQ", "DEP"]),
        )
    )
    out = tmp_path / "out"
    result = invoke("run", path, "-r", 2, "-j", 1, "-q", "-o", out)
    assert result.exit_code == 0, result.output
    runs = load_table(out, "runs")
    assert len(runs) == 2 * 3
    assert not runs["found"].any()
    assert runs["start"].isna().all() and runs["cost"].isna().all()
    for policy in ("FirstFit", "MaxQ", "DEP"):
        assert f"  {policy}: 2 of 2 replications without a window: " in result.stdout
    metadata = json.loads((out / "metadata.json").read_text())
    assert [(r["policy"], r["count"], r["of"]) for r in metadata["rejections"]] == [
        ("FirstFit", 2, 2), ("MaxQ", 2, 2), ("DEP", 2, 2)
    ]  # fmt: skip


def test_policies_lists_every_registered_criterion():
    from gridsim.selection.registry import CRITERIA

    result = invoke("policies")
    assert result.exit_code == 0
    built_in = result.stdout.split("\n\n")[0]  # installed plugins and schedulers follow
    assert [line.split()[0] for line in built_in.splitlines()] == list(CRITERIA)


def test_validate_json_is_one_object_saying_what_the_scenario_runs(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(with_changes() + "sweep:\n  request.n: [2, 3]\n")
    result = invoke("validate", path, "--json", "--set", "replications=4")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "scenario": str(path), "name": "bad-input", "kind": "window_search", "seed": 0,
        "replications": 4, "policies": ["FirstFit"], "schedulers": [], "axes": ["request.n"],
        "points": [{"point": 0, "values": {"request.n": 2}},
                   {"point": 1, "values": {"request.n": 3}}],
        "runs": 8, "overrides": ["replications=4"],
    }  # fmt: skip


def test_run_json_is_the_summary_as_records_and_the_folder(tmp_path):
    out = tmp_path / "out"
    result = invoke("run", "-r", 3, "-j", 1, "-o", out, "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert (record["folder"], record["status"], record["kind"]) == (str(out), "complete",
                                                                    "window_search")  # fmt: skip
    assert (record["cells_run"], record["replications_completed"]) == (3, 3)
    assert record["summary"] == gridsim.load_results(out).summary().to_dict("records")
    assert len(record["summary"]) == len(pd.read_csv(out / "summary.csv"))
    assert [row["policy"] for row in record["summary"]] == quickstart()["policies"]


def test_status_json_counts_cells_per_point_and_keeps_the_history(tmp_path):
    out = tmp_path / "out"
    assert invoke("run", "-r", 2, "-j", 1, "-q", "-o", out, "--set", "seed=7").exit_code == 0
    result = invoke("status", out, "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["points"] == [{"point": 0, "values": {}, "done": 2, "missing": 0,
                                 "done_ranges": [[0, 1]], "missing_ranges": []}]  # fmt: skip
    assert (record["seed"], record["cells_done"], record["cells_missing"]) == (7, 2, 0)
    assert record["history"][0]["overrides"] == ["seed=7"]
    assert record["damaged"] == []


FLOW = """\
name: flow
kind: jobflow
replications: 2
environment: {nodes: 8}
jobs: {n: [1, 4]}
queue_sizes: [6]
policies: [BFstart, BFfinish]
"""


def flow_folder(tmp_path: Path) -> Path:
    path = tmp_path / "flow.yaml"
    path.write_text(FLOW)
    assert invoke("run", path, "-j", 1, "-q", "-o", tmp_path / "flow").exit_code == 0
    return tmp_path / "flow"


def test_quiet_commands_print_nothing_but_do_their_work(tmp_path):
    flow = flow_folder(tmp_path)
    commands = {
        "validate": (["validate", "quickstart"], None),
        "merge": (["merge", flow, "-o", tmp_path / "merged"], tmp_path / "merged"),
        "gantt": (["gantt", flow, "--policy", "BFstart", "-o", tmp_path / "g.png"],
                  tmp_path / "g.png"),
        "report": (["report", flow, "-o", tmp_path / "report"], tmp_path / "report"),
        "export": (["export", flow, "--format", "swf", "--policy", "BFstart", "-o",
                    tmp_path / "t.swf"], tmp_path / "t.swf"),
    }  # fmt: skip
    for name, (args, written) in commands.items():
        result = invoke(*args, "-q")
        assert result.exit_code == 0, (name, result.output)
        assert result.output == "", name
        assert written is None or written.exists(), name
    assert invoke("validate", "quickstart").stdout  # without -q it says what it runs


def test_every_command_s_help_ends_with_examples_its_parser_accepts():
    from gridsim.cli_options import EXAMPLES

    assert set(EXAMPLES) == {"gridsim", *main.list_commands(click.Context(main))}
    for name, lines in EXAMPLES.items():
        help_text = invoke(*([] if name == "gridsim" else [name]), "--help").stdout
        assert "  Examples:\n" + "".join(f"    {line}\n" for line in lines) in help_text, name
        for line in lines:
            args = shlex.split(line.split("|")[0], comments=True)
            if args[0] != "gridsim":  # the shell completion line
                continue
            assert name == "gridsim" or args[1] == name, line
            run, rest = (
                (main.get_command(click.Context(main), args[1]), args[2:])
                if args[1:]
                else (main, [])
            )
            if isinstance(run, click.Group):  # a command of a group: its own parser
                run, rest = run.commands[rest[0]], rest[1:]
            parser = run.make_parser(click.Context(run, info_name=run.name))
            _, extra, _ = parser.parse_args(rest)
            assert extra == [], line


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_scripts_are_produced_and_complete_commands(shell):
    script = subprocess.run([GRIDSIM], env={**os.environ, "_GRIDSIM_COMPLETE": f"{shell}_source"},
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert script.returncode == 0 and script.stderr == ""
    assert "_GRIDSIM_COMPLETE" in script.stdout and "_gridsim_completion" in script.stdout
    if shell == "bash":
        words = {"_GRIDSIM_COMPLETE": "bash_complete", "COMP_WORDS": "gridsim st",
                 "COMP_CWORD": "1"}  # fmt: skip
        completed = subprocess.run([GRIDSIM], env={**os.environ, **words}, capture_output=True,
                                   text=True, timeout=60, check=False)  # fmt: skip
        assert completed.stdout.split() == ["plain,status"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_the_bar_is_drawn_on_a_terminal_and_absent_from_a_redirected_log(tmp_path):
    import fcntl
    import pty
    import struct
    import termios

    terminal, other = pty.openpty()
    fcntl.ioctl(other, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns
    drawn = subprocess.run([GRIDSIM, "run", "-r", "2", "-j", "1", "-o", tmp_path / "a"],
                           stdout=subprocess.DEVNULL, stderr=other, timeout=120,
                           check=False)  # fmt: skip
    os.close(other)
    bar = b""
    with contextlib.suppress(OSError):  # EIO once everything written is read
        while chunk := os.read(terminal, 65536):
            bar += chunk
    os.close(terminal)
    assert drawn.returncode == 0 and b"\r" in bar and b"2/2" in bar
    logged = invoke("run", "-r", 2, "-j", 1, "-o", tmp_path / "b")  # stderr is not a terminal
    assert logged.exit_code == 0 and logged.stderr == ""
    forced = invoke("run", "-r", 2, "-j", 1, "-o", tmp_path / "c", "--progress")
    assert re.fullmatch(r"quickstart: 2/2 rep \(100%\) in 00:0\d, ETA 00:00, this process\n",
                        forced.stderr)  # fmt: skip
    hidden = invoke("run", "-r", 2, "-j", 1, "-o", tmp_path / "d", "--progress", "-q")
    assert hidden.exit_code == 0 and hidden.stderr == ""
