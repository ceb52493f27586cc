"""A log replay's results folder holds exactly the recorded files (tests/swfreplay/replay_files.py):
the same Arrow types, the same columns, dtypes and values as pandas reads them, the same
summary text and manifest, however the run builds its tables."""

import json

import pandas as pd
import pytest
from replay_files import CASES, CLOCKS, RECORD, folder_record, run_case


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_run_writes_the_recorded_files(case, tmp_path):
    recorded = json.loads(RECORD.read_text())[case]
    found = json.loads(json.dumps(folder_record(run_case(case, tmp_path))))
    assert sorted(found) == sorted(recorded)
    for name in recorded:
        assert found[name] == recorded[name], name


def _gridsim(*arguments: str) -> None:
    from gridsim.cli import main

    try:
        main([*arguments])
    except SystemExit as stop:
        assert not stop.code, stop.code


def test_shards_merge_and_resume_read_the_tables_a_replay_writes(tmp_path):
    from gridsim.analysis.results import load_results

    common = ["swf-replay", "-q", "-j", "1", "--set", "workload.max_jobs=150"]
    _gridsim("run", *common, "-r", "3", "-o", str(tmp_path / "whole"))
    _gridsim("run", *common, "-r", "3", "--shard", "1/2", "-o", str(tmp_path / "a"))
    _gridsim("run", *common, "-r", "3", "--shard", "2/2", "-o", str(tmp_path / "b"))
    _gridsim("merge", "-q", str(tmp_path / "a"), str(tmp_path / "b"), "-o", str(tmp_path / "m"))
    _gridsim("run", *common, "-r", "1", "-o", str(tmp_path / "resumed"))
    _gridsim("run", *common, "-r", "3", "-o", str(tmp_path / "resumed"))  # two more cells
    whole = load_results(tmp_path / "whole")
    for other in ("m", "resumed"):
        found = load_results(tmp_path / other)
        for name in ("runs", "jobs", "users"):
            clocks = [c for c in whole.table(name).columns if c.startswith(CLOCKS)]
            pd.testing.assert_frame_equal(found.table(name).drop(columns=clocks),
                                          whole.table(name).drop(columns=clocks))  # fmt: skip


@pytest.mark.slow
def test_report_and_explore_read_the_tables_a_replay_writes(tmp_path):
    _gridsim("run", "swf-replay", "-q", "-j", "1", "--set", "workload.max_jobs=150", "-r", "2",
             "-o", str(tmp_path / "whole"))  # fmt: skip
    _gridsim("report", "-q", "--no-explore", str(tmp_path / "whole"), "-o",
             str(tmp_path / "report"))  # fmt: skip
    assert "conservative" in (tmp_path / "report" / "report.md").read_text()
    _gridsim("explore", "-q", str(tmp_path / "whole"), "-o", str(tmp_path / "explore.html"))
    assert (tmp_path / "explore.html").stat().st_size > 0
