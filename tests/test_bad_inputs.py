"""Every bad input in :mod:`bad_inputs` ends in one line naming what is wrong, exit code 2,
no traceback, and the results folders already there unchanged; docs/errors.md lists the
line each gets."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from bad_inputs import CASES, as_code, checksums, make_results, prepare, run_case

REPOSITORY = Path(__file__).resolve().parents[1]
ERRORS_PAGE = REPOSITORY / "docs" / "errors.md"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("results-made-once")
    make_results(folder)
    return folder / "results"


def test_the_battery_covers_every_kind_the_command_line_and_logs():
    groups = Counter(case.group for case in CASES)
    assert len(CASES) >= 50
    for group in ("scenario file", "window_search", "jobflow", "batch", "cloud", "swf_replay",
                  "SWF log", "Slurm dump", "Batsim workload", "workload commands",
                  "command line"):  # fmt: skip
        assert groups[group] >= 3, group
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_bad_input_is_one_line_naming_it_and_changes_no_results(case, results, tmp_path):
    prepare(case, results, tmp_path)
    before = checksums(tmp_path / "results")
    outcome = run_case(case, tmp_path)
    assert outcome.exit_code == case.exit_code, outcome.stderr
    assert "Traceback" not in outcome.stdout + outcome.stderr
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1, outcome.stderr
    assert lines[0].startswith("gridsim: error: "), lines[0]
    assert case.names in lines[0], lines[0]
    assert checksums(tmp_path / "results") == before
    assert not [name for name in case.absent if (tmp_path / name).exists()]
    assert not [path for path in tmp_path.rglob(".*") if ".tmp-" in path.name]
    assert as_code(lines[0]) in ERRORS_PAGE.read_text(), "run python tools/render_errors_doc.py"
