"""The scenarios shipped in the package: ``gridsim scenarios`` lists them, ``gridsim run`` and
``validate`` take their names, ``gridsim init`` copies one, ``reproduce`` finds its own."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from gridsim.analysis.results import load_table
from gridsim.bundled_scenarios import FOLDER, bundled, summary
from gridsim.cli import main
from gridsim.reproduce import load_catalogue

REPOSITORY = Path(__file__).resolve().parents[1]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_the_scenarios_folder_of_a_clone_holds_the_packaged_files():
    shipped = {path.name: path.read_bytes() for path in FOLDER.glob("*.yaml")}
    assert len(shipped) >= 12
    assert {path.name: path.read_bytes() for path in (REPOSITORY / "scenarios").glob("*.yaml")
            } == shipped  # fmt: skip


def test_scenarios_lists_every_bundled_file_once_with_its_kind_and_description():
    result = invoke("scenarios")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    files = sorted(FOLDER.glob("*.yaml"))
    assert len(lines) == len(files) + 1  # and the quick-start, first
    assert lines[0].split()[0] == "quickstart"
    for line, path in zip(lines[1:], files, strict=True):
        document = yaml.safe_load(path.read_text())
        name, kind, description = line.split(maxsplit=2)
        assert (name, kind, description) == (path.stem, document["kind"], document["description"])


def test_a_scenario_without_description_is_described_by_its_first_comment_line():
    text = "# Two nodes, one policy: the smallest example.\n# More.\nname: x\nkind: batch\n"
    assert summary(text) == ("batch", "Two nodes, one policy: the smallest example.")
    assert summary("name: x\nkind: cloud\n") == ("cloud", "")


def test_run_takes_a_bundled_name_and_gives_what_its_file_gives(tmp_path):
    by_name = invoke("run", "window-search", "-r", "2", "-j", "1", "-q", "-o", tmp_path / "a")
    by_path = invoke("run", FOLDER / "window-search.yaml", "-r", "2", "-j", "1", "-q",
                     "-o", tmp_path / "b")  # fmt: skip
    assert by_name.exit_code == by_path.exit_code == 0, by_name.output + by_path.output
    runs = [load_table(tmp_path / side, "runs").drop(columns="search_time_s") for side in "ab"]
    assert len(runs[0]) == 2 * 10  # two replications of ten policies
    pd.testing.assert_frame_equal(*runs)


def test_a_file_of_that_name_comes_before_the_bundled_scenario(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (FOLDER / "window-search.yaml").read_text().replace("name: window-search", "name: mine")
    Path("window-search.yaml").write_text(text)
    assert "scenario 'mine'" in invoke("validate", "window-search.yaml").stdout
    assert "scenario 'window-search'" in invoke("validate", "window-search").stdout


@pytest.mark.parametrize(("argument", "says"), [
    ("windowsearch", "no such file, nor a bundled scenario; did you mean 'window-search'?"),
    ("scenarios/window-search.yaml", "the bundled scenario 'window-search' is run by name: "
                                     "gridsim run window-search"),
    ("nothing-like-it", "no such file, nor a bundled scenario (bundled: quickstart, "),
])  # fmt: skip
def test_an_unknown_name_is_one_line_listing_the_bundled_ones(tmp_path, monkeypatch, argument,
                                                                says):  # fmt: skip
    monkeypatch.chdir(tmp_path)
    line = one_error_line(invoke("run", argument, "-o", "out"))
    assert line.startswith(f"gridsim: error: {argument}: ") and says in line, line
    assert all(name in line for name in bundled())
    assert not Path("out").exists()


def test_init_copies_a_bundled_scenario_to_edit_and_never_overwrites(tmp_path):
    folder = tmp_path / "new" / "place"
    result = invoke("init", "dependability", folder)
    assert result.exit_code == 0, result.output
    copy = folder / "dependability.yaml"
    assert copy.read_bytes() == (FOLDER / "dependability.yaml").read_bytes()
    assert f"gridsim run {copy}" in result.stdout
    copy.write_text("edited")
    line = one_error_line(invoke("init", "dependability.yaml", folder))
    assert line == (f"gridsim: error: {copy}: exists; gridsim init does not overwrite (remove "
                    "it, or name another folder)")  # fmt: skip
    assert copy.read_text() == "edited"


def test_init_copies_into_the_current_folder_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert invoke("init", "quickstart").exit_code == 0
    assert yaml.safe_load(Path("quickstart.yaml").read_text())["name"] == "quickstart"


def test_init_refuses_an_unknown_name_and_a_file_for_a_folder(tmp_path):
    line = one_error_line(invoke("init", "depndability", tmp_path))
    assert "depndability: not a bundled scenario; did you mean 'dependability'?" in line
    afile = tmp_path / "afile"
    afile.write_text("")
    line = one_error_line(invoke("init", "quickstart", afile))
    assert line == f"gridsim: error: {afile}: exists and is not a folder; name a folder to copy " \
                   "into"  # fmt: skip
    assert list(tmp_path.iterdir()) == [afile]


def test_every_figure_runs_a_bundled_scenario():
    for figure in load_catalogue().figures:
        if figure.scenario:
            assert figure.scenario_path().parent == FOLDER
            assert figure.scenario_path().stem in bundled(), figure.id
