"""The Slurm reader on a dump hand-written from the sacct manual page
(tests/data/workloads/sacct-iso.txt): every job's record checked against what the page
says the fields mean; the same dump with epoch times and its columns in another order reads
the same; each field form of the manual parsed alone."""

from __future__ import annotations

import datetime as dt
import gzip
import math
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from workload_fixtures import SACCT, epoch_version

from gridsim.workloads import slurm_fields as fields
from gridsim.workloads.mapping import SwfMapping, apply_mapping
from gridsim.workloads.readers import read_records, read_workload
from gridsim.workloads.records import WorkloadFormatError
from gridsim.workloads.slurm import read_slurm_records


@pytest.fixture(scope="module")
def dump():
    return read_slurm_records(SACCT)


def test_every_job_of_the_hand_written_dump_reads_as_its_fields_say(dump):
    jobs = dump.records.set_index("source_job_id")
    # (id) -> submit (s from the first), wait, run time, processors, limit, status, nodes
    expected = {
        "1001": (0, 30, 3600, 64, 7200, 1, 2),
        "1002": (600, 600, 3600, 8, 3600, 0, 1),  # TIMEOUT: status 0
        "1003_1": (1800, 60, 600, 1, 1800, 1, 1),  # array task; limit 30:00 = 30 minutes
        "1003_2": (1800, 600, 1200, 1, 1800, 0, 1),
        "1003_[3-4%2]": (1800, None, None, 1, 1800, 5, 1),  # never started, cancelled
        "1006": (3600, 300, 1800, 36, 129600, 1, 2),  # two components; limit 1-12 = 36 h
        "1008": (6000, None, None, 16, None, None, 1),  # pending; Partition_Limit
        "1009": (6300, 60, None, 4, None, None, 1),  # running: no end yet; UNLIMITED
        "1010": (6600, None, None, 32, 7200, 5, 1),  # cancelled before it started
        "1011": (6900, 0, 600, 32, 300, 0, 1),  # limit "5" = 5 minutes; OUT_OF_MEMORY
        "1012": (7800, 120, 7200, 32, 14400, 1, 2),
        "1013": (8400, 0, 1800, 2, 2700, 1, 1),
    }
    assert list(jobs.index) == list(expected)  # submission order, steps folded
    assert list(dump.records.job_id) == list(range(1, 13))
    for name, (submit, wait, run, processors, limit, status, nodes) in expected.items():
        row = jobs.loc[name]
        assert row.submit_time == submit, name
        assert _same(row.wait_time, wait) and _same(row.run_time, run), name
        assert row.requested_processors == processors, name
        assert _same(row.requested_time, limit) and _same(row.status, status), name
        assert row.nodes == nodes, name


def _same(value, expected) -> bool:
    if expected is None:
        return value is pd.NA or (isinstance(value, float) and math.isnan(value))
    return value == expected


def test_resources_memory_gpus_names_and_exit_codes(dump):
    jobs = dump.records.set_index("source_job_id")
    mib = {"1001": 128_000, "1002": 64_000, "1003_1": 2048, "1008": 500, "1009": 8192,
           "1011": 1024**2, "1012": 262_144, "1013": 2000}  # fmt: skip
    for name, per_node in mib.items():  # ReqTRES mem / nodes; else ReqMem (per node)
        assert jobs.loc[name, "requested_memory_per_node_mb"] == per_node, name
    assert jobs.loc["1001", "cores_per_node"] == 32
    assert jobs.loc["1001", "requested_memory"] == 128_000 * 1024 / 32  # KB per processor
    assert jobs.loc["1002", "gpus_per_node"] == 4  # gres/gpu=4 on one node
    assert jobs.loc["1012", "gpus_per_node"] == 4  # only typed: gres/gpu:a100=8 on two nodes
    assert jobs.loc["1002", "exit_status"] == 128 + 15  # 0:15: ended by signal 15
    assert jobs.loc["1003_2", "exit_status"] == 1
    assert list(jobs.loc[["1001", "1002", "1003_1"], "user"]) == ["alice", "bob", "carol"]
    assert list(jobs.loc[["1001", "1002", "1010"], "user_id"]) == [1, 2, 1]  # first seen
    assert jobs.loc["1002", "group"] == "chem" and jobs.loc["1012", "partition"] == "gpu"
    assert list(jobs.loc[["1001", "1002", "1012"], "partition_id"]) == [1, 2, 2]


def test_a_heterogeneous_job_is_one_job_holding_both_components(dump):
    job = dump.records.set_index("source_job_id").loc["1006"]
    assert (job.allocated_processors, job.nodes) == (4 + 32, 2)
    assert (job.wait_time, job.run_time) == (300, 30 * 60)  # together; until the later end
    # 4 cores on one node and 32 on the other: no one per-node value
    assert job.cores_per_node is pd.NA and math.isnan(job.requested_memory_per_node_mb)
    assert dump.folded == {"job_steps": 9, "heterogeneous_components": 1}


def test_jobs_that_never_ran_are_dropped_and_counted_by_the_mapping():
    log = read_workload(SACCT)
    assert log.report.dropped["cancelled_before_start"] == 2  # 1003_[3-4%2] and 1010
    assert log.report.dropped["non_positive_run_time"] == 2  # pending 1008, running 1009
    assert log.report.jobs_kept == 8 and log.report.format == "slurm"
    assert log.report.repaired["run_time_capped_at_estimate"] == 1  # 1011: 600 s past 300


def test_the_machine_size_is_seen_in_the_node_lists_or_given(dump):
    # cn001-cn008, gpu01, gpu02: 10 hosts; the most processors on one node: 32 (1001, 1011)
    assert (dump.header.max_nodes, dump.header.max_procs) == (10, 320)
    assert "10 nodes in NodeList x 32 processors" in dump.notes[0]
    assert dump.header.unix_start_time == int(dt.datetime(2024, 3, 4, 8, tzinfo=dt.UTC).timestamp())
    given = apply_mapping(dump, SwfMapping(machine_processors=64))
    assert given.machine_processors == 64 and given.report.dropped["larger_than_machine"] == 0


def test_epoch_times_columns_in_any_order_and_case_read_the_same(dump, tmp_path):
    other = epoch_version(SACCT, tmp_path / "epoch.txt")
    read = read_slurm_records(other)
    pd.testing.assert_frame_equal(read.records, dump.records, check_exact=True)
    assert read.folded == dump.folded


def test_a_bom_crlf_trailing_blanks_and_gzip_read_as_the_same_dump(dump, tmp_path):
    text = SACCT.read_text()
    variant = "\ufeff" + text.replace("\n", "  \r\n") + "\r\n\r\n"
    path = tmp_path / "windows.txt"
    path.write_bytes(variant.encode())
    pd.testing.assert_frame_equal(read_records(path).records, dump.records, check_exact=True)
    packed = tmp_path / "dump.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    pd.testing.assert_frame_equal(read_records(packed).records, dump.records, check_exact=True)


def test_local_times_are_read_in_the_time_zone_given(tmp_path):
    header = "JobID|Submit|Start|End|State|AllocCPUS\n"
    # 2024-10-27 02:30 happens twice in Stockholm: read as the first (summer-time) instant
    lines = [
        "1|2024-10-27T01:00:00|2024-10-27T01:00:00|2024-10-27T02:30:00|COMPLETED|1\n",
        "2|2024-10-27T04:00:00|2024-10-27T04:00:00|2024-10-27T05:00:00|COMPLETED|1\n",
    ]
    path = tmp_path / "dst.txt"
    path.write_text(header + "".join(lines))
    utc = read_slurm_records(path).records
    local = read_slurm_records(path, "Europe/Stockholm").records
    assert list(utc.run_time) == [5400, 3600]
    assert list(local.run_time) == [5400, 3600]  # 01:00 CEST to 02:30 CEST
    assert list(local.submit_time) == [0, 3 * 3600 + 3600]  # 4:00 CET is 4 h after 1:00 CEST


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("45", 45 * 60), ("45:30", 45 * 60 + 30), ("01:02:03", 3723), ("2-00", 2 * 86400),
     ("2-03:04", 2 * 86400 + 3 * 3600 + 4 * 60), ("1-00:00:10", 86410), ("00:00:01.5", 1),
     ("UNLIMITED", None), ("Partition_Limit", None), ("INVALID", None), ("", None)],
)  # fmt: skip
def test_time_limits_in_every_form_sbatch_takes(text, seconds):
    parsed = fields.durations(pa.array([text]))
    assert _same(float(parsed.values[0]), seconds) and not parsed.bad[0]


def test_elapsed_times_are_hours_minutes_seconds_and_bad_forms_are_found():
    parsed = fields.durations(pa.array(["01:02:03", "5-00:00:00", "12", "1:2:3:4", "x"]),
                              minutes_alone=False)  # fmt: skip
    assert list(parsed.values[:3]) == [3723, 5 * 86400, 12]
    assert list(parsed.bad) == [False, False, False, True, True]


def test_trackable_resources_with_every_memory_unit_and_gpus():
    tres = fields.tres(pa.array([
        "billing=4,cpu=4,mem=1024K,node=1", "cpu=8,mem=2M,node=2", "cpu=1,mem=3G",
        "cpu=2,mem=1T,gres/gpu=2", "cpu=2,gres/gpu:a100=2,gres/gpu:v100=1", "",
        "cpu=four", "cpu=1,mem=12Q", "cpu",
    ]))  # fmt: skip
    assert list(tres.cpus[:5]) == [4, 8, 1, 2, 2]
    assert list(tres.memory_mib[:4]) == [1.0, 2.0, 3 * 1024, 1024**2]
    assert _same(tres.nodes[2], None) and list(tres.nodes[:2]) == [1, 2]
    assert list(tres.gpus[3:5]) == [2, 3]
    assert list(tres.bad) == [False] * 6 + [True] * 3


def test_node_lists_expand_as_slurm_hostlists():
    assert fields.expand_hostlist("cn[001-003,7],gpu1") == ["cn001", "cn002", "cn003", "cn7",
                                                            "gpu1"]  # fmt: skip
    assert fields.expand_hostlist("a[1-2]-ib") == ["a1-ib", "a2-ib"]
    assert fields.expand_hostlist("None assigned") == []
    with pytest.raises(ValueError, match="not a node list"):
        fields.expand_hostlist("cn[a-b]")


def test_states_become_swf_statuses():
    status = fields.state_status(
        pa.array(
            [
                "COMPLETED",
                "CANCELLED by 12",
                "TIMEOUT",
                "NODE_FAIL",
                "PENDING",
                "RUNNING",
                "REQUEUED",
            ]
        )
    )
    assert list(status[:4]) == [1, 5, 0, 0] and np.isnan(status[4:]).all()


@pytest.mark.parametrize(
    ("edit", "line", "problem"),
    [(lambda t: t.replace("2024-03-04T08:10:00", "2024-03-04 08:10"), 6,
      "Submit is not a time"),
     (lambda t: t.replace("|01:00:00|TIMEOUT", "|1h|TIMEOUT"), 6, "Timelimit is not a duration"),
     (lambda t: t.replace("gres/gpu=4,mem=64000M,node=1|billing", "gres/gpu=x,mem=64000M,"
                          "node=1|billing"), 6, "AllocTRES is not a TRES list"),
     (lambda t: t.replace("|0:15|8|8|", "|fifteen|8|8|"), 6, "ExitCode is not an exit code"),
     (lambda t: t.replace("|1|1|billing=1,cpu=1,mem=2G,node=1|billing=1,cpu=1,mem=2G,node=1|2Gc"
                          "|cn003\n1003_1.batch", "|1|1|billing=1|cn003\n1003_1.batch"), 9,
      "expected 21 fields (the header's), found 19")],
)  # fmt: skip
def test_a_bad_field_is_named_with_its_file_and_line(tmp_path, edit, line, problem):
    path = tmp_path / "bad.txt"
    path.write_text(edit(SACCT.read_text()))
    with pytest.raises(WorkloadFormatError, match=rf"^{path}, line {line}: {re.escape(problem)}"):
        read_records(path)


def test_a_dump_without_a_needed_column_names_it_and_the_sacct_command(tmp_path):
    path = tmp_path / "dump.txt"
    path.write_text("JobID|Submit|Start|End|AllocCPUS\n1|0|0|10|1\n")
    with pytest.raises(
        WorkloadFormatError,
        match=r", line 1: missing column State \(a state\);"
        r" dump with sacct --allocations --parsable2",
    ):
        read_records(path)
