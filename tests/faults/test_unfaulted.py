"""Without faults, job flows give the same traces and metrics as before faults existed."""

import json

import pytest
from records import table_difference
from unfaulted_runs import RECORD, ULP_BOUND, flows

RECORDED = json.loads(RECORD.read_text())


@pytest.fixture(scope="module")
def current():
    return flows()


def test_job_flows_without_faults_make_the_recorded_choices_and_values(current):
    assert set(current) == set(RECORDED)
    # "flow/replication table: another choice ..." or "... values differ ... by N ulp".
    problems = [
        f"{flow} {name}: {problem}"
        for flow, tables in RECORDED.items()
        for name, recorded in tables.items()
        if (problem := table_difference(recorded, current[flow][name], ULP_BOUND)) is not None
    ]
    assert problems == []
