"""The SWF writer: what it writes, and that the reader reads it back unchanged."""

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from swf_helpers import EXCERPTS, swf_line, write_log

from gridsim import __version__
from gridsim.workloads.swf import SWF_FIELDS, bundled_swf, read_swf
from gridsim.workloads.swf_writer import write_swf


@pytest.mark.parametrize("path", [*EXCERPTS, bundled_swf()], ids=lambda p: p.name)
def test_read_write_read_gives_the_same_jobs_and_keeps_the_header(tmp_path, path):
    first = read_swf(path)
    write_swf(first.jobs, tmp_path / "again.swf.gz", header=first.header)
    second = read_swf(tmp_path / "again.swf.gz")
    pd.testing.assert_frame_equal(second.jobs, first.jobs, check_exact=True)
    assert second.header.entries[:-1] == first.header.entries
    assert second.header.entries[-1] == ("Note", f"written by gridsim {__version__}")


def test_a_simulated_trace_is_written_with_its_schedule_and_a_header(tmp_path):
    trace = pd.DataFrame(
        {
            "job_id": [1, 2],
            "submit_time": [0.0, 5.0],
            "start_time": [0.0, 12.5],
            "run_time": [10.0, 4.0],
            "processors": [4, 16],
            "estimate": [20.0, 4.0],
            "user_id": [3, 7],
            "killed": [False, True],
        }
    )
    path = tmp_path / "trace.swf"
    write_swf(trace, path, max_processors=16, unix_start_time=1000, note="policy: EASY")
    assert path.read_text() == (
        "; Version: 2.2\n"
        "; Computer: gridsim simulation\n"
        "; MaxProcs: 16\n"
        "; UnixStartTime: 1000\n"
        "; Note: policy: EASY\n"
        f"; Note: written by gridsim {__version__}\n"
        "1 0   0 10  4 -1 -1  4 20 -1 1 3 -1 -1 -1 -1 -1 -1\n"
        "2 5 7.5  4 16 -1 -1 16  4 -1 0 7 -1 -1 -1 -1 -1 -1\n"
    )
    back = read_swf(path)
    assert list(back.jobs.start_time) == [0.0, 12.5]
    assert list(back.jobs.status) == [1, 0]
    assert back.machine_processors == 16 and back.header.unix_start_time == 1000


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
# fractional, ids and counts are integers. Jobs are valid (positive size and run time, at most
# 64 processors) so the reader keeps all of them.
_time = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)
_positive_time = st.floats(min_value=1e-3, max_value=1e7, allow_nan=False, allow_infinity=False)
_id = st.integers(min_value=0, max_value=10**6)


def _generated_value(name: str, kind: str):
    if name == "submit_time":
        return _time
    if name == "run_time":
        return _positive_time
    if name in ("requested_processors", "allocated_processors"):
        return st.integers(min_value=1, max_value=64)
    if name == "status":
        return st.sampled_from([-1, 0, 1, 5])
    value = _id if kind == "int" else _time
    return st.one_of(st.just(-1), value)


_job = st.fixed_dictionaries(
    {name: _generated_value(name, kind) for name, kind in SWF_FIELDS if name != "job_id"}
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(jobs=st.lists(_job, min_size=1, max_size=20))
def test_generated_job_tables_survive_write_and_read(tmp_path, jobs):
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
    second = read_swf(tmp_path / "rewritten.swf")
    pd.testing.assert_frame_equal(second.jobs, first.jobs, check_exact=True)
