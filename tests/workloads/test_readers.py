"""One entry point for every format: the content says which reader reads a file, whatever
its name; ``format`` overrides; a byte-order mark, CRLF or CR line ends and trailing blanks
read as the same log; content that is no workload is named."""

from __future__ import annotations

import gzip
import shutil

import numpy as np
import pandas as pd
import pytest
from workload_fixtures import BATSIM, SACCT

from gridsim.workloads.convert import convert
from gridsim.workloads.readers import read_records, read_workload
from gridsim.workloads.records import WorkloadFormatError
from gridsim.workloads.sources import sniff_format
from gridsim.workloads.swf import bundled_swf


@pytest.fixture(scope="module")
def kth_parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("parquet") / "kth.parquet"
    convert(bundled_swf(), path)
    return path


@pytest.mark.parametrize("compress", [False, True])
def test_each_format_is_recognised_by_content_whatever_the_name(tmp_path, kth_parquet, compress):
    for source, expected in ((bundled_swf(), "swf"), (SACCT, "slurm"), (BATSIM, "batsim"),
                             (kth_parquet, "parquet")):  # fmt: skip
        data = source.read_bytes()
        if source.suffix == ".gz":
            data = gzip.decompress(data)
        if compress and expected != "parquet":
            data = gzip.compress(data)
        misnamed = tmp_path / f"{expected}.log"
        misnamed.write_bytes(data)
        assert sniff_format(misnamed) == expected
        assert read_records(misnamed).format == expected


def test_a_named_format_overrides_the_content(tmp_path):
    path = tmp_path / "dump.txt"
    shutil.copy(SACCT, path)
    with pytest.raises(WorkloadFormatError, match=r"dump.txt, line 1: expected 18 fields, found 1"):
        read_records(path, "swf")


@pytest.mark.parametrize("source", [SACCT, BATSIM, bundled_swf()], ids=["slurm", "batsim", "swf"])
def test_a_bom_crlf_cr_and_trailing_blanks_read_as_the_same_log(tmp_path, source):
    text = source.read_bytes()
    if source.suffix == ".gz":
        text = gzip.decompress(text)
    plain = read_records(source).records
    for name, variant in (("bom", b"\xef\xbb\xbf" + text), ("crlf", text.replace(b"\n", b"\r\n")),
                          ("cr", text.replace(b"\n", b"\r")),
                          ("blanks", text.replace(b"\n", b"  \t\n") + b"\n \n")):  # fmt: skip
        if source == SACCT and name == "blanks":  # a sacct field may end in blanks: lines only
            variant = text + b"\n\n  \n"
        path = tmp_path / f"{name}{source.suffix}"
        path.write_bytes(variant)
        pd.testing.assert_frame_equal(read_records(path).records, plain, check_exact=True,
                                      obj=name)  # fmt: skip


def test_content_that_is_no_workload_is_named(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Dear admin,\nhere is the log you asked for.\n")
    with pytest.raises(
        WorkloadFormatError,
        match=r"notes.txt, line 1: not a workload format "
        r"gridsim recognises: 'Dear admin,'",
    ):
        read_records(path)


def test_every_reader_gives_the_same_jobs_for_the_same_log(tmp_path, kth_parquet):
    swf = read_workload(bundled_swf())
    batsim = tmp_path / "kth.json"
    convert(bundled_swf(), batsim, extra_data=True)
    for path in (kth_parquet, batsim):
        other = read_workload(path)
        pd.testing.assert_frame_equal(
            other.jobs.drop(columns="source_job_id"),
            swf.jobs.drop(columns="source_job_id"),
            check_exact=True,
        )
        assert other.machine_processors == swf.machine_processors == 100


@pytest.mark.parametrize("allocated", [False, True])
def test_a_log_s_columns_are_its_tables_columns_before_any_table_is_built(tmp_path, allocated):
    """What a replay reads without pandas (Records.column, WorkloadLog.column) is what the
    tables built later hold, column for column, drops and repairs included."""
    from gridsim.workloads.mapping import DERIVED_COLUMNS, SwfMapping, apply_mapping
    from gridsim.workloads.records import SWF_COLUMNS, frame_column
    from gridsim.workloads.swf import bundled_swf, read_swf_records

    with gzip.open(bundled_swf(), "rt") as log_file:
        lines = log_file.read().splitlines()[:400]
    edits = [  # SWF field (from 0) -> value, one job each: every drop and repair rule
        {1: "-1"},  # unknown submit time: dropped
        {3: "-1", 10: "5"},  # cancelled before it started: dropped
        {3: "0"},  # no run time: dropped
        {4: "-1", 7: "-1"},  # no processor count: dropped
        {4: "500", 7: "500"},  # wider than the machine: dropped, or clipped
        {7: "-1"},  # processors from the other field
        {8: "-1"},  # estimate from the run time
        {8: "10"},  # run time capped at the estimate
        {11: "-1"},  # unknown user
    ]
    for k, edit in enumerate(edits):
        fields = lines[100 + 7 * k].split()
        for field, value in edit.items():
            fields[field] = value
        lines[100 + 7 * k] = " ".join(fields)
    (tmp_path / "edited.swf").write_text("\n".join(lines) + "\n")
    read = read_swf_records(tmp_path / "edited.swf")
    assert isinstance(read.table, np.ndarray)
    records = read.records
    for name in SWF_COLUMNS:
        np.testing.assert_array_equal(read.column(name), frame_column(records, name))
    mapping = SwfMapping(processors="allocated", larger_than_machine="clip") if allocated else None
    log = apply_mapping(read, mapping)
    columns = {name: log.column(name) for name in (*SWF_COLUMNS, *DERIVED_COLUMNS)}
    jobs = log.jobs  # the table, built now
    assert 0 < len(jobs) == len(log) < len(read)
    for name, values in columns.items():
        np.testing.assert_array_equal(values, frame_column(jobs, name), err_msg=name)
        np.testing.assert_array_equal(log.column(name), values, err_msg=name)
