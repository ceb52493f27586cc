"""Workloads: real logs in the Standard Workload Format and the machines they ran on."""

from gridsim.workloads.platform import LogPlatform, LogPlatformConfig, NodeClass, log_platform
from gridsim.workloads.swf import (
    SwfFormatError,
    SwfHeader,
    SwfLog,
    SwfMapping,
    SwfReadReport,
    bundled_swf,
    read_swf,
)
from gridsim.workloads.swf_writer import write_swf

__all__ = [
    "LogPlatform",
    "LogPlatformConfig",
    "NodeClass",
    "SwfFormatError",
    "SwfHeader",
    "SwfLog",
    "SwfMapping",
    "SwfReadReport",
    "bundled_swf",
    "log_platform",
    "read_swf",
    "write_swf",
]
