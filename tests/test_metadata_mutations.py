"""A results folder whose metadata.json was edited (a key dropped or renamed, a value of
another type, a number out of range): the commands that read it work or refuse it in one
line naming the file, never with a traceback, and leave the folder as it was."""

from __future__ import annotations

import contextlib
import copy
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from bad_inputs import JOB_FLOW, checksums
from click.testing import CliRunner
from document_mutations import mutate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridsim.cli import main


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A job-flow results folder (made once)."""
    folder = tmp_path_factory.mktemp("metadata")
    with contextlib.chdir(folder):
        Path("flow.yaml").write_text(JOB_FLOW)
        result = CliRunner().invoke(main, ["run", "flow.yaml", "-q", "-j", "1", "-o", "flow"])
        assert result.exit_code == 0, result.output
    return folder / "flow"


COMMANDS = {
    "status": ["status", "flow"],
    "export": ["export", "flow", "--format", "swf", "--policy", "BFstart", "-o", "out.swf"],
}


@settings(max_examples=40, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data(), command=st.sampled_from(sorted(COMMANDS)))
def test_a_command_on_an_edited_metadata_json_works_or_names_it_in_one_line(made, data, command):
    manifest = json.loads((made / "metadata.json").read_text())
    edited = copy.deepcopy(manifest)
    done = mutate(data.draw, edited)
    with tempfile.TemporaryDirectory() as base, contextlib.chdir(base):
        shutil.copytree(made, "flow")
        Path("flow/metadata.json").write_text(json.dumps(edited))
        before = checksums(Path("flow"))
        result = CliRunner().invoke(main, COMMANDS[command])
        assert result.exit_code in (0, 2), (done, result.output, result.exception)
        assert "Traceback" not in result.output, done
        if result.exit_code == 2:
            lines = result.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("gridsim: error: flow"), (
                done, result.stderr,
            )  # fmt: skip
        assert checksums(Path("flow")) == before, done
