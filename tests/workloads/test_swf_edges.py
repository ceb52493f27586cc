"""The SWF reader at its edges: 0 and 1 at every test of a positive value (processors, run
time, requested time: 0 is not positive, 1 is), a job exactly as large as the machine,
comments after a job's fields, the column types, the report's text and the error a worker
sends back; the largest values a replay keeps exact, compressions other than gzip and binary
files, each named."""

import bz2
import gzip
import lzma
import pickle

import numpy as np
import pytest
from swf_helpers import EXCERPTS, job, write_log

from gridsim.workloads import swf
from gridsim.workloads.swf import SwfFormatError, SwfHeader, SwfMapping, read_swf


def test_zero_processors_fall_back_to_the_other_field_and_one_is_kept(tmp_path):
    path = write_log(
        tmp_path / "a.swf",
        [
            job(1, 0, 10, 4, 20, requested_processors=0),  # 0 requested: the 4 allocated
            job(2, 0, 10, 4, 20, requested_processors=1),  # 1 requested: kept
            job(3, 0, 10, 1, 20, requested_processors=-1),  # unknown: the 1 allocated
            job(4, 0, 10, 0, 20, requested_processors=-1),  # 0 allocated: nothing to use
        ],
    )
    log = read_swf(path)
    assert list(log.jobs.job_id) == [1, 2, 3]
    assert list(log.jobs.processors) == [4, 1, 1]
    assert log.report.repaired["processors_from_allocated"] == 2
    assert log.report.dropped["non_positive_processors"] == 1


def test_a_run_time_of_one_second_counts_and_zero_does_not(tmp_path):
    path = write_log(
        tmp_path / "a.swf",
        [
            job(1, 0, 1, 2, 20, status=5),  # cancelled after running 1 s: kept
            job(2, 0, 0, 2, 20, status=5),  # cancelled, never ran: dropped as such
            job(3, 0, 1, 2, 20),  # 1 s: kept
        ],
    )
    log = read_swf(path)
    assert list(log.jobs.job_id) == [1, 3]
    assert log.report.dropped["cancelled_before_start"] == 1
    assert log.report.dropped["non_positive_run_time"] == 0


def test_a_requested_time_of_zero_is_missing_and_one_second_is_an_estimate(tmp_path):
    path = write_log(tmp_path / "a.swf", [job(1, 0, 10, 2, 0), job(2, 0, 10, 2, 1)])
    log = read_swf(path, SwfMapping(estimate_fallback_factor=3.0))
    assert list(log.jobs.estimate) == [30.0, 1.0]
    assert list(log.jobs.duration) == [10.0, 1.0]  # job 2 is killed at its 1 s estimate
    assert log.report.repaired["estimate_from_run_time"] == 1


def test_a_run_time_equal_to_the_estimate_is_not_an_overrun(tmp_path):
    log = read_swf(write_log(tmp_path / "a.swf", [job(1, 0, 20, 2, 20), job(2, 0, 21, 2, 20)]))
    assert list(log.jobs.killed) == [False, True]
    assert log.report.repaired["run_time_capped_at_estimate"] == 1


def test_a_job_exactly_as_large_as_the_machine_is_neither_dropped_nor_clipped(tmp_path):
    path = write_log(tmp_path / "a.swf", [job(1, 0, 10, 8, 20), job(2, 0, 10, 9, 20)])
    clipped = read_swf(path, SwfMapping(larger_than_machine="clip"))
    assert list(clipped.jobs.processors) == [8, 8]
    assert clipped.report.repaired["processors_clipped_to_machine"] == 1
    dropped = read_swf(path)
    assert list(dropped.jobs.job_id) == [1] and dropped.report.dropped["larger_than_machine"] == 1


def test_a_comment_after_a_job_s_fields_is_ignored_whatever_it_holds(tmp_path):
    """Also on the line-by-line path, taken when some other line is malformed."""
    lines = [job(1, 0, 10, 2, 20) + " ; first; second ; 3 4", "1 2 3", job(2, 0, 10, 2, 20)]
    log = read_swf(write_log(tmp_path / "a.swf", lines), SwfMapping(on_malformed="skip"))
    assert list(log.jobs.job_id) == [1, 2] and log.report.malformed_lines == 1


def test_job_ids_are_plain_integers_and_other_integer_fields_nullable(tmp_path):
    log = read_swf(write_log(tmp_path / "a.swf", [job(1, 0, 10, 2, 20), job(2, 0, 10, 2, 20)]))
    assert log.jobs["job_id"].dtype == np.int64 and log.jobs["processors"].dtype == np.int64
    assert str(log.jobs["queue_id"].dtype) == "Int64" and log.jobs["queue_id"].isna().all()
    assert log.jobs["user_id"].tolist() == [1, 1]


def test_the_report_summary_has_one_line_per_reason(tmp_path):
    path = write_log(tmp_path / "a.swf",
                     [job(1, 0, 10, 2, 20), job(2, 0, 0, 2, 20), job(3, 0, 10, 2, -1)])  # fmt: skip
    report = read_swf(path).report
    assert (report.source, report.lines_read, report.comment_lines) == (str(path), 4, 1)
    assert report.summary().split("\n") == [
        f"{path}: swf workload, 4 lines, 3 job records, 0 malformed skipped, 2 jobs kept, "
        "1 dropped",
        "  dropped non_positive_run_time: 1",
        "  repaired estimate_from_run_time: 1",
    ]


def test_a_damaged_gzip_file_is_named_without_a_line(tmp_path):
    path = tmp_path / "a.swf.gz"
    path.write_bytes(gzip.compress(job(1, 0, 10, 2, 20).encode())[:-6])
    with pytest.raises(SwfFormatError, match=rf"^{path}: damaged gzip file \(") as error:
        read_swf(path)
    assert (error.value.source, error.value.line_number) == (str(path), None)
    assert error.value.problem.startswith("damaged gzip file (")


def test_a_format_error_sent_back_from_a_worker_is_the_same_error():
    error = SwfFormatError("log.swf", 7, "expected 18 fields, found 3")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is SwfFormatError and str(copy) == str(error)
    assert (copy.source, copy.line_number, copy.problem) == (
        "log.swf", 7, "expected 18 fields, found 3"
    )  # fmt: skip


def test_a_log_without_job_lines_counts_none(tmp_path):
    report = read_swf(write_log(tmp_path / "a.swf", [])).report
    assert (report.job_lines, report.jobs_kept, report.comment_lines) == (0, 0, 1)


def test_a_well_formed_log_is_read_in_one_vectorised_pass(monkeypatch):
    """The line-by-line walk is only for logs with a malformed line (docs/swf.md, cost)."""

    def walked(*args):
        raise AssertionError("a well-formed log was read line by line")

    expected = {path: read_swf(path).jobs for path in EXCERPTS}
    monkeypatch.setattr(swf, "_parse_line_by_line", walked)
    for path, jobs in expected.items():
        assert read_swf(path).jobs.equals(jobs)


def test_a_header_value_that_should_be_a_number_is_named(tmp_path):
    path = write_log(tmp_path / "a.swf", [job(1, 0, 10, 2, 20)], header="; MaxProcs: many\n")
    with pytest.raises(SwfFormatError) as error:
        read_swf(path)
    assert str(error.value) == f"{path}: header MaxProcs should be a number, got 'many'"
    assert (error.value.source, error.value.line_number) == (str(path), None)


def test_header_lines_indented_empty_or_continued():
    """Comment lines as a file holds them: indented before or after the ``;``, a key without
    a value, a note continued on lines without a key (joined by newlines)."""
    header = SwfHeader.from_comments([
        "  ; MaxProcs: 100", "; Empty:", ";Note: first", ";second", "   ;   third",
        "; Blank:", "; alone",
    ])  # fmt: skip
    assert header.entries == (
        ("MaxProcs", "100"), ("Empty", ""), ("Note", "first\nsecond\nthird"), ("Blank", "alone"),
    )  # fmt: skip


def test_bytes_that_are_not_utf8_are_replaced_not_refused(tmp_path):
    path = tmp_path / "a.swf"
    path.write_bytes(b"; Note: caf\xe9 au lait\n" + job(1, 0, 10, 2, 20).encode() + b"\n")
    log = read_swf(path)
    assert log.header.notes == ("caf\ufffd au lait",) and list(log.jobs.job_id) == [1]


@pytest.mark.parametrize(
    ("field", "largest", "beyond"),
    [("submit_time", 2**32, 2**32 + 1), ("run_time", 2**32, 2**33),
     ("user_id", 2**53, 2**54), ("used_memory", 2**53, 2**54)],
)  # fmt: skip
def test_a_value_beyond_what_a_replay_keeps_exactly_is_a_malformed_line(
    tmp_path, field, largest, beyond
):
    number = swf.SWF_COLUMNS.index(field) + 1
    lines = [job(1, 0, 10, 2, 20), job(2, 5, 10, 2, 20, **{field: largest})]
    assert len(read_swf(write_log(tmp_path / "a.swf", lines)).jobs) == 2  # at the limit: read
    lines.append(job(3, 6, 10, 2, 20, **{field: beyond}))
    path = write_log(tmp_path / "b.swf", lines)
    with pytest.raises(SwfFormatError, match=rf"^{path}, line 4: field {number} \({field}\) "
                                             rf"is {beyond}, beyond 2\*\*"):  # fmt: skip
        read_swf(path)
    report = read_swf(path, SwfMapping(on_malformed="skip")).report
    assert (report.malformed_lines, report.jobs_kept) == (1, 2)


@pytest.mark.parametrize(
    ("compress", "name"),
    [(bz2.compress, "bzip2"), (lzma.compress, "xz"),
     (lambda data: b"\x28\xb5\x2f\xfd" + data, "zstd"), (lambda data: b"PK\x03\x04" + data, "zip")],
)  # fmt: skip
def test_a_log_compressed_another_way_than_gzip_is_named_whatever_its_suffix(
    tmp_path, compress, name
):
    path = tmp_path / "a.swf.gz"
    path.write_bytes(compress(job(1, 0, 10, 2, 20).encode()))
    with pytest.raises(SwfFormatError, match=rf"^{path}: compressed with {name}, which gridsim "):
        read_swf(path)
    path.write_bytes(gzip.compress(compress(job(1, 0, 10, 2, 20).encode())))  # inside gzip too
    with pytest.raises(SwfFormatError, match=rf"^{path}: compressed with {name}, "):
        read_swf(path)


def test_a_binary_file_is_named_as_binary(tmp_path):
    path = tmp_path / "a.swf"
    path.write_bytes(b"; MaxProcs: 8\n" + job(1, 0, 10, 2, 20).encode() + b"\x00\n")
    with pytest.raises(SwfFormatError, match=rf"^{path}: a binary file \(it holds NUL bytes\)"):
        read_swf(path)
