"""The SWF writer: what it writes, and that the reader reads it back unchanged."""

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples
from swf_helpers import EXCERPTS, swf_line, write_log

from gridsim import __version__
from gridsim.workloads.swf import SWF_FIELDS, SwfMapping, bundled_swf, read_swf
from gridsim.workloads.swf_writer import COMPUTED_KEYS, ROUNDING_NOTE, round_half_up, write_swf


@pytest.mark.parametrize("path", [*EXCERPTS, bundled_swf()], ids=lambda p: p.name)
def test_read_write_read_gives_the_same_jobs_and_keeps_the_header(tmp_path, path):
    first = read_swf(path)
    write_swf(first.jobs, tmp_path / "again.swf.gz", header=first.header)
    second = read_swf(tmp_path / "again.swf.gz")
    # Archive logs hold integer seconds except some average CPU times (HPC2N, SDSC-BLUE):
    # those are the only values the writer rounds.
    expected = first.jobs.assign(average_cpu_time=round_half_up(first.jobs.average_cpu_time))
    pd.testing.assert_frame_equal(second.jobs, expected, check_exact=True)
    kept = [entry for entry in first.header.entries if entry[0] not in COMPUTED_KEYS]
    written = [entry for entry in second.header.entries if entry[0] not in COMPUTED_KEYS]
    own_notes = [("Note", ROUNDING_NOTE), ("Note", f"written by gridsim {__version__}")]
    assert written == [*kept, *own_notes]
    assert (
        second.header.values("MaxJobs")
        == second.header.values("MaxRecords")
        == (str(len(first.jobs)),)
    )
    assert second.header.values("StartTime") == first.header.values("StartTime")


def test_a_schedule_is_written_in_integer_seconds_with_the_archive_header(tmp_path):
    trace = pd.DataFrame(
        {
            "job_id": [1, 2],
            "submit_time": [0.0, 5.0],
            "start_time": [0.0, 12.5],
            "run_time": [10.4, 4.0],
            "processors": [4, 16],
            "estimate": [20.0, 3.8],
            "user_id": [3, 7],
            "killed": [False, True],
        }
    )
    path = tmp_path / "trace.swf"
    fields = {"MaxProcs": 16, "UnixStartTime": 1000, "TimeZoneString": "UTC", "Computer": "x"}
    write_swf(trace, path, fields=fields, notes=("policy: EASY",))
    assert path.read_text() == (
        "; Version: 2.2\n"
        "; Computer: x\n"
        "; MaxJobs: 2\n"
        "; MaxRecords: 2\n"
        "; UnixStartTime: 1000\n"
        "; TimeZoneString: UTC\n"
        "; StartTime: Thu Jan  1 00:16:40 UTC 1970\n"
        "; EndTime: Thu Jan  1 00:16:57 UTC 1970\n"
        "; MaxProcs: 16\n"
        "; Note: policy: EASY\n"
        f"; Note: {ROUNDING_NOTE}\n"
        f"; Note: written by gridsim {__version__}\n"
        "1 0 0 10  4 -1 -1  4 20 -1 1 3 -1 -1 -1 -1 -1 -1\n"
        "2 5 8  4 16 -1 -1 16  4 -1 0 7 -1 -1 -1 -1 -1 -1\n"
    )
    back = read_swf(path)
    assert list(back.jobs.start_time) == [0.0, 13.0]  # 12.5 rounds up
    assert list(back.jobs.status) == [1, 0]
    assert back.machine_processors == 16 and back.header.unix_start_time == 1000


def test_rounding_keeps_a_run_within_its_request_and_a_late_one_beyond_it(tmp_path):
    # Job 1 runs 10.2 s of a 10.2 s request from 0.4: the rounded events give 11 s, so the
    # request is written as 11, not 10. Job 2 overran (5.6 s of a 5 s request): left alone.
    trace = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 1.0], "wait_time": [0.4, 0.0],
                          "run_time": [10.2, 5.6], "requested_time": [10.2, 5.0],
                          "processors": [1, 1]})  # fmt: skip
    write_swf(trace, tmp_path / "t.swf")
    back = read_swf(tmp_path / "t.swf", SwfMapping(on_overrun="run")).jobs
    assert list(back.run_time) == [11.0, 6.0] and list(back.requested_time) == [11.0, 5.0]


def test_an_unknown_header_key_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"not SWF header keys .*\['MaxCores'\]"):
        write_swf(read_swf(EXCERPTS[0]).jobs, tmp_path / "x.swf", fields={"MaxCores": 4})


def test_gzip_output_is_reproducible_byte_for_byte(tmp_path):
    jobs = read_swf(EXCERPTS[0]).jobs
    write_swf(jobs, tmp_path / "a.swf.gz")
    write_swf(jobs, tmp_path / "b.swf.gz")
    assert (tmp_path / "a.swf.gz").read_bytes() == (tmp_path / "b.swf.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.swf.gz").read_bytes()).startswith(b"; Version: 2.2")


def test_writer_names_missing_required_columns_and_non_integer_ids(tmp_path):
    with pytest.raises(ValueError, match=r"needs columns \['run_time'\]"):
        write_swf(pd.DataFrame({"job_id": [1], "submit_time": [0.0]}), tmp_path / "x.swf")
    bad = pd.DataFrame(
        {"job_id": [1], "submit_time": [0.0], "run_time": [1.0], "processors": [1.5]}
    )
    with pytest.raises(ValueError, match="allocated_processors should hold integers"):
        write_swf(bad, tmp_path / "x.swf")


# A generated job: each SWF field either unknown (-1) or a plausible value; times may be
# fractional, ids and counts are integers. Jobs are valid (positive size, a run time of at
# least 1 s so that it stays positive in whole seconds, at most 64 processors) so the reader
# keeps all of them.
_time = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)
_run_time = st.floats(min_value=1, max_value=1e7, allow_nan=False, allow_infinity=False)
_id = st.integers(min_value=0, max_value=10**6)


def _generated_value(name: str, kind: str):
    if name == "submit_time":
        return _time
    if name == "run_time":
        return _run_time
    if name in ("requested_processors", "allocated_processors"):
        return st.integers(min_value=1, max_value=64)
    if name == "status":
        return st.sampled_from([-1, 0, 1, 5])
    value = _id if kind == "int" else _time
    return st.one_of(st.just(-1), value)


_job = st.fixed_dictionaries(
    {name: _generated_value(name, kind) for name, kind in SWF_FIELDS if name != "job_id"}
)


def _events(jobs: pd.DataFrame) -> np.ndarray:
    """Submit, start and end of every job (NaN where the wait is unknown), one row each."""
    start = jobs.submit_time + jobs.wait_time
    return np.column_stack([jobs.submit_time, start, start + jobs.run_time])


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(jobs=st.lists(_job, min_size=1, max_size=20))
def test_generated_job_tables_are_written_in_whole_seconds_keeping_every_event_order(
    tmp_path, jobs
):
    lines = [swf_line(job_id=i + 1, **fields) for i, fields in enumerate(jobs)]
    path = write_log(tmp_path / "generated.swf", lines, header="; MaxProcs: 64\n")
    first = read_swf(path)
    assert first.report.jobs_kept == len(jobs)
    for name, _kind in SWF_FIELDS[1:]:
        written = np.array([fields[name] for fields in jobs], dtype=np.float64)
        read = first.jobs[name].to_numpy(dtype=np.float64, na_value=-1.0)
        read = np.where(np.isnan(read), -1.0, read)
        assert np.array_equal(read, written), name
    write_swf(first.jobs, tmp_path / "rewritten.swf", header=first.header)
    text = (tmp_path / "rewritten.swf").read_text()
    assert all(token.lstrip("-").isdigit() for line in text.splitlines()
               if not line.startswith(";") for token in line.split())  # fmt: skip
    second = read_swf(tmp_path / "rewritten.swf")
    assert second.report.jobs_kept == len(jobs)
    before, after = _events(first.jobs), _events(second.jobs)
    np.testing.assert_array_equal(np.isnan(before), np.isnan(after))
    known = ~np.isnan(before)
    assert (np.abs(after - before)[known] <= 0.5).all()  # each event to its nearest second
    a, b = before[known], after[known]  # every pair of events keeps its order
    assert not ((a[:, None] < a[None, :]) & (b[:, None] > b[None, :])).any()
    assert (np.abs(second.jobs.run_time - first.jobs.run_time) <= 1).all()
    within = first.jobs.run_time <= first.jobs.requested_time
    assert (second.jobs.run_time[within] <= second.jobs.requested_time[within]).all()
    integers = [name for name, kind in SWF_FIELDS if kind == "int"]
    pd.testing.assert_frame_equal(second.jobs[integers], first.jobs[integers])
    write_swf(second.jobs, tmp_path / "again.swf", header=second.header)
    assert (tmp_path / "again.swf").read_text() == text  # whole seconds are written as they are
