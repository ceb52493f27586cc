"""Batsim JSON workloads: the hand-written workload of tests/data/workloads read as Batsim's
documentation defines its fields; profiles of other types named and refused; a written
workload read back as the same records; the streaming reader gives what one decode of the
whole file gives, whatever its buffer size."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from workload_fixtures import BATSIM

from gridsim.workloads import json_stream
from gridsim.workloads.batsim import read_batsim_records, write_batsim
from gridsim.workloads.readers import read_records
from gridsim.workloads.records import WorkloadFormatError
from gridsim.workloads.swf import bundled_swf


def test_the_hand_written_workload_reads_as_batsim_defines_its_fields():
    read = read_batsim_records(BATSIM)
    jobs = read.records
    assert list(jobs.job_id) == [1, 2, 3, 4]  # "1" and 2: integer ids are the job ids
    assert list(jobs.submit_time) == [0, 10.5, 20, 30]
    assert list(jobs.run_time) == [120, 3600.5, 3600.5, 20.25]  # delay and DelayProfile
    assert jobs.requested_time[0] == 600 and jobs.requested_time[2] == 100
    assert math.isnan(jobs.requested_time[1]) and math.isnan(jobs.requested_time[3])  # -1, none
    assert list(jobs.requested_processors) == list(jobs.allocated_processors) == [4, 16, 1, 8]
    assert read.header.max_procs == 16 and read.format == "batsim"
    assert jobs.user_id.isna().all()  # extra_data that is not gridsim's is left alone


def test_ids_that_are_not_numbers_are_kept_and_jobs_numbered(tmp_path):
    document = json.loads(BATSIM.read_text())
    for job, name in zip(document["jobs"], ["w0!a", "w0!b", "w1!c", "w1!d"], strict=True):
        job["id"] = name
    path = tmp_path / "named.json"
    path.write_text(json.dumps(document))
    jobs = read_records(path).records
    assert list(jobs.job_id) == [1, 2, 3, 4]
    assert list(jobs.source_job_id) == ["w0!a", "w0!b", "w1!c", "w1!d"]


def test_a_job_whose_profile_is_not_a_delay_is_refused_naming_the_profile(tmp_path):
    document = json.loads(BATSIM.read_text())
    document["jobs"][1]["profile"] = "unused"
    path = tmp_path / "parallel.json"
    path.write_text(json.dumps(document, indent=2))
    line = path.read_text().splitlines().index('    "unused": {') + 1
    with pytest.raises(
        WorkloadFormatError,
        match=rf", line {line}: profile 'unused' is of type "
        "'parallel_homogeneous'; gridsim replays delay",
    ):
        read_records(path)


@pytest.mark.parametrize(
    ("edit", "problem"),
    [(lambda d: d["jobs"][2].pop("res"), "a job without res"),
     (lambda d: d["jobs"][2].update(subtime=-5), "a job's subtime should be a time >= 0"),
     (lambda d: d["jobs"][2].update(res=2.5), "a job's res should be a positive integer"),
     (lambda d: d["jobs"][2].update(profile="nowhere"), "profile 'nowhere' is not among"),
     (lambda d: d["jobs"][2].update(id="1"), "job id '1' given twice")],
)  # fmt: skip
def test_a_bad_job_is_named_by_its_line(tmp_path, edit, problem):
    document = json.loads(BATSIM.read_text())
    edit(document)
    path = tmp_path / "bad.json"
    path.write_text('{\n "nb_res": 16,\n "jobs": [\n' + ",\n".join(
        json.dumps(job) for job in document["jobs"]) + '\n ],\n "profiles": ' + json.dumps(
        document["profiles"]) + "\n}\n")  # fmt: skip
    with pytest.raises(WorkloadFormatError, match=rf", line 6: {re.escape(problem)}"):
        read_records(path)


def test_a_truncated_file_is_named_at_the_line_where_it_stops(tmp_path):
    text = BATSIM.read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: text.index('"profiles"')])
    cut_line = path.read_text().count("\n") + 1
    with pytest.raises(WorkloadFormatError, match=rf", line {cut_line}: "):
        read_records(path)


def test_a_written_workload_reads_back_as_the_same_records(tmp_path):
    source = read_records(bundled_swf())
    path = tmp_path / "kth.json"
    left_out = write_batsim(source.records, path, machine_processors=100, extra_data=True)
    assert left_out == dict.fromkeys(left_out, 0)
    back = read_records(path)
    pd.testing.assert_frame_equal(back.records, source.records, check_exact=True)
    assert back.header.max_procs == 100
    plain = read_records(_written(source.records, tmp_path / "plain.json"))
    kept = ["job_id", "submit_time", "run_time", "requested_time", "requested_processors"]
    pd.testing.assert_frame_equal(plain.records[kept], source.records[kept], check_exact=True)
    assert plain.records.user_id.isna().all()  # without extra_data: what Batsim defines


def _written(records: pd.DataFrame, path):
    write_batsim(records, path, machine_processors=100)
    return path


def test_jobs_without_a_run_time_or_processors_are_left_out_and_counted(tmp_path):
    records = read_records(bundled_swf()).records.iloc[:5].copy()
    records.loc[1, "run_time"] = np.nan
    records.loc[2, "requested_processors"] = pd.NA
    records.loc[2, "allocated_processors"] = pd.NA
    left_out = write_batsim(records, tmp_path / "w.json", machine_processors=100)
    assert left_out == {"unknown_submit_time": 0, "unknown_run_time": 1, "no_processor_count": 1}
    assert len(read_records(tmp_path / "w.json").records) == 3


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_any_buffer_size_reads_what_one_decode_of_the_whole_file_gives(tmp_path, monkeypatch,
                                                                      chunk):  # fmt: skip
    records = read_records(bundled_swf()).records.iloc[:300]
    path = tmp_path / "w.json"
    write_batsim(records, path, machine_processors=100, extra_data=True)
    whole = json.loads(path.read_text())
    original = json_stream.JsonStream.__init__

    def small(self, stream, source, chunk_size=chunk):
        original(self, stream, source, chunk_size)

    monkeypatch.setattr(json_stream.JsonStream, "__init__", small)
    read = read_records(path).records
    assert list(read.submit_time) == [job["subtime"] for job in whole["jobs"]]
    assert list(read.job_id) == [int(job["id"]) for job in whole["jobs"]]
    pd.testing.assert_frame_equal(read, records.reset_index(drop=True), check_exact=True)
