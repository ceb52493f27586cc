"""A log replay's results folder holds exactly the recorded files (tests/swfreplay/replay_files.py):
the same Arrow types, the same columns, dtypes and values as pandas reads them, the same
summary text and manifest, however the run builds its tables."""

import json

import pytest
from replay_files import CASES, RECORD, folder_record, run_case


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_run_writes_the_recorded_files(case, tmp_path):
    recorded = json.loads(RECORD.read_text())[case]
    found = json.loads(json.dumps(folder_record(run_case(case, tmp_path))))
    assert sorted(found) == sorted(recorded)
    for name in recorded:
        assert found[name] == recorded[name], name
