"""The SWF reader: fields, header, unknown values, gzip, the mapping and the read report."""

import gzip
import math
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pydantic
import pytest
from swf_helpers import DATA, EXCERPTS, job, swf_line, write_log

from gridsim.workloads.records import RECORD_COLUMNS
from gridsim.workloads.swf import (
    DROP_REASONS,
    SWF_COLUMNS,
    SwfFormatError,
    SwfHeader,
    SwfMapping,
    bundled_swf,
    read_swf,
)

KTH = DATA / "KTH-SP2-1996-2.1-cln-first300.swf"
SDSC = DATA / "SDSC-BLUE-2000-4.2-cln-first300.swf"


def test_first_kth_job_is_read_field_by_field():
    # "15 599850 192180 3477 4 -1 -1 4 53940 -1 1 12 12 -1 -1 -1 -1 -1"
    first = read_swf(KTH).jobs.iloc[0]
    assert (first.job_id, first.submit_time, first.wait_time, first.run_time) == (
        15,
        599850.0,
        192180.0,
        3477.0,
    )
    assert (first.allocated_processors, first.requested_processors) == (4, 4)
    assert (first.requested_time, first.status, first.user_id, first.group_id) == (
        53940.0,
        1,
        12,
        12,
    )
    assert math.isnan(first.average_cpu_time) and math.isnan(first.think_time)
    assert first.executable_id is pd.NA and first.preceding_job_id is pd.NA
    derived = (first.processors, first.estimate, first.duration, first.killed)
    assert derived == (4, 53940, 3477, False)
    assert (first.start_time, first.finish_time) == (599850 + 192180, 599850 + 192180 + 3477)


def test_kth_header_gives_machine_size_start_time_and_notes():
    log = read_swf(KTH)
    assert log.header.max_procs == 100 and log.machine_processors == 100
    assert log.header.unix_start_time == 843480031
    assert log.header.notes[0] == "uses the EASY scheduler"
    assert log.header.notes[1] == (
        "THIS IS A CLEANED VERSION OF THE LOG!\nThe filter used to produce it was\n"
        "job<=14 (14 jobs removed)"
    )
    # a continuation holding a URL is not mistaken for a "http:" key
    assert log.header.values("Information") == (
        "http://www.pdc.kth.se/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/",
    )


def test_header_falls_back_to_max_nodes_when_max_procs_is_absent():
    header = SwfHeader.from_comments(["; MaxNodes: 64", "; Note: a", "; Note: b"])
    assert header.max_procs is None and header.machine_processors == 64
    assert header.notes == ("a", "b")


def test_columns_are_the_18_fields_the_record_fields_then_the_derived_ones():
    jobs = read_swf(KTH).jobs
    assert tuple(jobs.columns[:18]) == SWF_COLUMNS
    assert tuple(jobs.columns[18:27]) == RECORD_COLUMNS
    assert jobs[list(RECORD_COLUMNS)].isna().all().all()  # an SWF log states none of them
    assert list(jobs.columns[27:]) == [
        "processors",
        "estimate",
        "duration",
        "killed",
        "start_time",
        "finish_time",
    ]
    assert len(jobs) == 300 and jobs.index.equals(pd.RangeIndex(300))


def test_minus_one_is_unknown_and_fractional_times_are_kept(tmp_path):
    path = write_log(tmp_path / "a.swf", [job(1, 10.25, 3.5, 2, 7.75, wait_time=-1, user_id=-1)])
    row = read_swf(path).jobs.iloc[0]
    assert (row.submit_time, row.run_time, row.requested_time) == (10.25, 3.5, 7.75)
    assert math.isnan(row.wait_time) and math.isnan(row.start_time)
    assert row.user_id is pd.NA


def test_gzip_is_recognised_by_magic_bytes_whatever_the_suffix(tmp_path):
    zipped_as_swf = tmp_path / "log.swf"
    zipped_as_swf.write_bytes(gzip.compress(KTH.read_bytes()))
    plain_as_gz = tmp_path / "log.swf.gz"
    shutil.copy(KTH, plain_as_gz)
    expected = read_swf(KTH).jobs
    pd.testing.assert_frame_equal(read_swf(zipped_as_swf).jobs, expected, check_exact=True)
    pd.testing.assert_frame_equal(read_swf(plain_as_gz).jobs, expected, check_exact=True)


def test_bundled_kth_excerpt_holds_its_first_2000_jobs():
    log = read_swf(bundled_swf())
    assert len(log.jobs) == 2000 and log.jobs.job_id.iloc[0] == 15
    assert log.report.jobs_dropped == 0 and log.machine_processors == 100


def test_sdsc_jobs_cancelled_before_starting_are_dropped_and_counted():
    # independent count from the raw text: status 5 and no positive run time
    rows = [line.split() for line in SDSC.read_text().splitlines() if not line.startswith(";")]
    cancelled = sum(1 for r in rows if r[10] == "5" and float(r[3]) <= 0)
    report = read_swf(SDSC).report
    assert cancelled == 19
    assert report.job_lines == 300 and report.jobs_kept == 300 - cancelled
    assert report.dropped == dict.fromkeys(DROP_REASONS, 0) | {"cancelled_before_start": 19}


def test_each_drop_rule_is_counted_under_the_first_reason_that_applies(tmp_path):
    path = write_log(
        tmp_path / "a.swf",
        [
            job(1, 0, 10, 2, 20),  # kept
            job(2, -1, 10, 2, 20),  # unknown submit time
            job(3, 5, -1, 2, 20, status=5),  # cancelled before start
            job(4, 5, 0, 2, 20),  # zero run time
            job(5, 5, 10, 0, 20),  # no processors (both fields 0)
            job(6, 5, 10, 9, 20),  # 9 > MaxProcs 8
            job(7, 5, 10, 2, 20, status=5),  # cancelled after starting: kept
        ],
    )
    log = read_swf(path)
    assert list(log.jobs.job_id) == [1, 7]
    assert log.report.dropped == {
        "unknown_submit_time": 1,
        "cancelled_before_start": 1,
        "non_positive_run_time": 1,
        "non_positive_processors": 1,
        "larger_than_machine": 1,
    }
    kept = read_swf(path, SwfMapping(drop_cancelled_before_start=False))
    assert kept.report.dropped["cancelled_before_start"] == 0
    assert kept.report.dropped["non_positive_run_time"] == 2


def test_too_large_jobs_can_be_clipped_to_the_machine_instead(tmp_path):
    path = write_log(tmp_path / "a.swf", [job(1, 0, 10, 9, 20), job(2, 0, 10, 3, 20)])
    log = read_swf(path, SwfMapping(larger_than_machine="clip"))
    assert list(log.jobs.processors) == [8, 3]
    assert log.report.repaired["processors_clipped_to_machine"] == 1
    assert read_swf(path, SwfMapping(machine_processors=16)).report.jobs_dropped == 0


def test_processors_come_from_requested_by_default_or_allocated_with_fallback(tmp_path):
    path = write_log(
        tmp_path / "a.swf",
        [
            swf_line(
                job_id=1,
                submit_time=0,
                run_time=5,
                allocated_processors=8,
                requested_processors=7,
                requested_time=9,
            ),
            swf_line(
                job_id=2,
                submit_time=0,
                run_time=5,
                allocated_processors=-1,
                requested_processors=3,
                requested_time=9,
            ),
        ],
    )
    by_request = read_swf(path)
    assert list(by_request.jobs.processors) == [7, 3]
    assert by_request.report.repaired["processors_from_allocated"] == 0
    by_allocation = read_swf(path, SwfMapping(processors="allocated"))
    assert list(by_allocation.jobs.processors) == [8, 3]
    assert by_allocation.report.repaired["processors_from_requested"] == 1
    strict = read_swf(path, SwfMapping(processors="allocated", processors_fallback=False))
    assert list(strict.jobs.job_id) == [1]
    assert strict.report.dropped["non_positive_processors"] == 1


def test_missing_estimate_falls_back_to_a_multiple_of_run_time_or_a_fixed_value(tmp_path):
    path = write_log(tmp_path / "a.swf", [job(1, 0, 100, 1, -1), job(2, 0, 100, 1, 300)])
    assert list(read_swf(path).jobs.estimate) == [100, 300]
    assert read_swf(path).report.repaired["estimate_from_run_time"] == 1
    doubled = read_swf(path, SwfMapping(estimate_fallback_factor=2.0))
    assert list(doubled.jobs.estimate) == [200, 300]
    fixed = read_swf(path, SwfMapping(estimate_fallback="fixed", estimate_fallback_seconds=60))
    assert list(fixed.jobs.estimate) == [60, 300]
    assert list(fixed.jobs.duration) == [60, 100] and list(fixed.jobs.killed) == [True, False]
    assert fixed.report.repaired["estimate_from_fixed"] == 1


def test_overrunning_jobs_are_killed_at_their_estimate_or_run_to_completion(tmp_path):
    path = write_log(tmp_path / "a.swf", [job(1, 0, 150, 1, 100), job(2, 0, 50, 1, 100)])
    killed = read_swf(path)
    assert list(killed.jobs.duration) == [100, 50] and list(killed.jobs.killed) == [True, False]
    assert list(killed.jobs.run_time) == [150, 50]  # the log's value is kept
    assert killed.report.repaired["run_time_capped_at_estimate"] == 1
    ran = read_swf(path, SwfMapping(on_overrun="run"))
    assert list(ran.jobs.duration) == [150, 50] and not ran.jobs.killed.any()
    assert ran.report.repaired["run_time_capped_at_estimate"] == 0


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        ("1 2 3", "expected 18 fields, found 3"),
        (swf_line(job_id=2, submit_time=0, run_time=5) + " 7", "expected 18 fields, found 19"),
        (
            swf_line(job_id=2, submit_time=0).replace(" -1 ", " abc ", 1),
            r"field 3 \(wait_time\) is not a number: 'abc'",
        ),
        (
            swf_line(job_id=2, submit_time=0, allocated_processors=2.5),
            r"field 5 \(allocated_processors\) should be an integer, got '2.5'",
        ),
        (
            swf_line(job_id=2, submit_time=0, run_time="nan"),
            r"field 4 \(run_time\) is not a finite number: 'nan'",
        ),
    ],
)
def test_a_malformed_line_is_named_by_file_and_line_number(tmp_path, bad_line, problem):
    path = write_log(tmp_path / "bad.swf", [job(1, 0, 10, 2, 20), bad_line, job(3, 0, 10, 2, 20)])
    with pytest.raises(SwfFormatError, match=rf"bad\.swf, line 3: {problem}$") as error:
        read_swf(path)
    assert isinstance(error.value, ValueError) and error.value.line_number == 3


def test_malformed_lines_can_be_skipped_and_counted(tmp_path):
    path = write_log(tmp_path / "bad.swf", [job(1, 0, 10, 2, 20), "1 2 3", job(3, 0, 10, 2, 20)])
    log = read_swf(path, SwfMapping(on_malformed="skip"))
    assert list(log.jobs.job_id) == [1, 3]
    assert (log.report.job_lines, log.report.malformed_lines) == (3, 1)
    assert log.report.first_malformed == ((3, "expected 18 fields, found 3"),)
    assert "1 malformed skipped" in log.report.summary()


def test_a_log_without_jobs_gives_an_empty_table(tmp_path):
    log = read_swf(write_log(tmp_path / "a.swf", []))
    assert len(log.jobs) == 0 and tuple(log.jobs.columns[:18]) == SWF_COLUMNS


def test_mapping_rejects_misspelt_keys_and_a_fixed_fallback_without_seconds():
    with pytest.raises(pydantic.ValidationError, match="procesors"):
        SwfMapping(procesors="allocated")
    with pytest.raises(pydantic.ValidationError, match="needs estimate_fallback_seconds"):
        SwfMapping(estimate_fallback="fixed")
    with pytest.raises(pydantic.ValidationError, match="on_overrun"):
        SwfMapping(on_overrun="ignore")


@pytest.mark.parametrize("path", EXCERPTS, ids=lambda p: p.name)
def test_every_excerpt_reads_cleanly(path):
    log = read_swf(path)
    assert log.report.malformed_lines == 0 and log.report.job_lines == 300
    jobs = log.jobs
    assert (jobs.processors > 0).all() and (jobs.duration > 0).all()
    assert (jobs.processors <= log.machine_processors).all()
    assert (jobs.duration <= jobs.estimate).all()
    assert np.all(np.diff(jobs.submit_time) >= 0)


FULL_LOG_DIR = Path(os.environ.get("GRIDSIM_SWF_DIR", "/work/shared/data/swf"))


@pytest.mark.slow
@pytest.mark.skipif(not FULL_LOG_DIR.is_dir(), reason="full PWA logs not available")
@pytest.mark.parametrize(
    "name",
    ["KTH-SP2-1996-2.1-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"],
)
def test_a_full_log_loads_in_a_few_seconds(name):
    started = time.perf_counter()
    log = read_swf(FULL_LOG_DIR / name)
    assert time.perf_counter() - started < 5.0
    assert log.report.malformed_lines == 0 and log.report.jobs_kept > 20_000


def test_windows_line_endings_read_the_same(tmp_path):
    crlf = tmp_path / "crlf.swf"
    crlf.write_bytes(KTH.read_bytes().replace(b"\n", b"\r\n"))
    plain, windows = read_swf(KTH), read_swf(crlf)
    pd.testing.assert_frame_equal(windows.jobs, plain.jobs, check_exact=True)
    assert windows.header == plain.header
