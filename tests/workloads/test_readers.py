"""One entry point for every format: the content says which reader reads a file, whatever
its name; ``format`` overrides; a byte-order mark, CRLF or CR line ends and trailing blanks
read as the same log; content that is no workload is named."""

from __future__ import annotations

import gzip
import shutil

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
