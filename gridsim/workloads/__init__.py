"""Workloads: real logs in every format gridsim reads (SWF, Slurm accounting dumps, Batsim
JSON, Parquet jobs tables), published workload models, and the machines logs ran on
(docs/swf.md, docs/workloads.md)."""

from gridsim.workloads.lublin import LublinParameters, lublin_jobs
from gridsim.workloads.mapping import SwfMapping, apply_mapping
from gridsim.workloads.platform import LogPlatform, LogPlatformConfig, NodeClass, log_platform
from gridsim.workloads.readers import read_records, read_workload
from gridsim.workloads.records import ReadReport, Records, WorkloadFormatError, WorkloadLog
from gridsim.workloads.swf import (
    SwfFormatError,
    SwfHeader,
    SwfLog,
    SwfReadReport,
    bundled_swf,
    read_swf,
)
from gridsim.workloads.swf_writer import write_swf
from gridsim.workloads.tsafrir import tsafrir_estimates

__all__ = [
    "LogPlatform",
    "LogPlatformConfig",
    "LublinParameters",
    "NodeClass",
    "ReadReport",
    "Records",
    "SwfFormatError",
    "SwfHeader",
    "SwfLog",
    "SwfMapping",
    "SwfReadReport",
    "WorkloadFormatError",
    "WorkloadLog",
    "apply_mapping",
    "bundled_swf",
    "log_platform",
    "lublin_jobs",
    "read_records",
    "read_swf",
    "read_workload",
    "tsafrir_estimates",
    "write_swf",
]
