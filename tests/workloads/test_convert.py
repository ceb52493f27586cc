"""Conversions: a log converted to another format and back replays to the same schedule
under EASY and conservative backfilling; each output says what it cannot hold; a failed
conversion leaves nothing behind."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from workload_fixtures import SACCT

from gridsim.sim.log_replay import replay_log
from gridsim.workloads.convert import ConversionError, convert
from gridsim.workloads.readers import read_records, read_workload
from gridsim.workloads.swf import bundled_swf


def _schedule(path, scheduler: str) -> tuple[np.ndarray, pd.DataFrame]:
    log = read_workload(path)
    replay = replay_log(log.jobs, log.machine_processors, scheduler)
    return replay.start_time, log.jobs


@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
def test_swf_to_batsim_and_back_replays_to_the_same_schedule(tmp_path, scheduler):
    batsim, back = tmp_path / "kth.json", tmp_path / "back.swf"
    convert(bundled_swf(), batsim)  # what Batsim defines, nothing more
    convert(batsim, back)
    start, jobs = _schedule(bundled_swf(), scheduler)
    start_back, jobs_back = _schedule(back, scheduler)
    assert np.array_equal(jobs.job_id, jobs_back.job_id) and len(jobs) == 2000
    assert np.array_equal(start, start_back)


@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
def test_a_slurm_dump_and_its_swf_conversion_replay_to_the_same_schedule(tmp_path, scheduler):
    swf = tmp_path / "cluster.swf"
    done = convert(SACCT, swf)
    start, jobs = _schedule(SACCT, scheduler)
    start_swf, jobs_swf = _schedule(swf, scheduler)
    assert len(jobs) == 8 and np.array_equal(jobs.job_id, jobs_swf.job_id)
    assert np.array_equal(start, start_swf)
    assert done.jobs_written == done.jobs_read == 12
    assert done.fields_dropped == ("source_job_id", "nodes", "cores_per_node", "gpus_per_node",
                                   "user", "group", "partition", "exit_status")  # fmt: skip


def test_parquet_keeps_every_field_and_batsim_says_what_it_drops(tmp_path):
    read = read_records(SACCT)
    table = convert(SACCT, tmp_path / "cluster.parquet")
    assert table.fields_dropped == () and table.jobs_written == 12
    pd.testing.assert_frame_equal(read_records(tmp_path / "cluster.parquet").records,
                                  read.records, check_exact=True)  # fmt: skip
    batsim = convert(SACCT, tmp_path / "cluster.json")
    assert batsim.left_out == {"unknown_submit_time": 0, "unknown_run_time": 4,
                               "no_processor_count": 0}  # fmt: skip
    assert "user" in batsim.fields_dropped and "requested_processors" not in batsim.fields_dropped
    kept = convert(SACCT, tmp_path / "kept.json", extra_data=True)
    assert kept.fields_dropped == ()
    again = read_records(tmp_path / "kept.json").records
    ran = read.records.run_time.notna().to_numpy()
    pd.testing.assert_frame_equal(again, read.records[ran].reset_index(drop=True),
                                  check_exact=True)  # fmt: skip
    assert "1 heterogeneous" not in batsim.summary() and "unknown run time: 4" in batsim.summary()


def test_a_conversion_that_fails_writes_nothing(tmp_path):
    swf = tmp_path / "no-size.swf"
    swf.write_text("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n")  # no MaxProcs
    with pytest.raises(ConversionError, match="gives no machine size, which Batsim's nb_res"):
        convert(swf, tmp_path / "out.json")
    assert convert(swf, tmp_path / "out.json", machine_processors=4).jobs_written == 1
    with pytest.raises(ConversionError, match="the name says no output format"):
        convert(swf, tmp_path / "out.csv")
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 4\n1 0 0 10 2\n")
    with pytest.raises(ValueError, match="line 2: expected 18 fields"):
        convert(bad, tmp_path / "never.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.swf", "no-size.swf", "out.json"]
