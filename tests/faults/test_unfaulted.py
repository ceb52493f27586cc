"""Without faults, job flows give the same traces and metrics as before faults existed."""

import json

from unfaulted_runs import DIGESTS, digests


def test_job_flows_without_faults_are_bit_identical_to_the_recorded_digests():
    assert digests() == json.loads(DIGESTS.read_text())
