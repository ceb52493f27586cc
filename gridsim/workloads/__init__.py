"""Workloads: real logs in every format gridsim reads (SWF, Slurm accounting dumps, Batsim
JSON, Parquet jobs tables), published workload models, and the machines logs ran on
(docs/swf.md, docs/workloads.md).

The names below are imported on first use: a command that reads an SWF log does not pay
for the models, the writers or pandas before it needs them (start-up, docs/swf.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Each public name -> the module that defines it.
_HOMES = {
    "LublinParameters": "lublin", "lublin_jobs": "lublin",
    "SwfMapping": "mapping", "apply_mapping": "mapping",
    "LogPlatform": "platform", "LogPlatformConfig": "platform", "NodeClass": "platform",
    "log_platform": "platform",
    "read_records": "readers", "read_workload": "readers",
    "ReadReport": "records", "Records": "records", "WorkloadFormatError": "records",
    "WorkloadLog": "records",
    "SwfFormatError": "swf", "SwfHeader": "swf", "SwfLog": "swf", "SwfReadReport": "swf",
    "bundled_swf": "swf", "read_swf": "swf",
    "write_swf": "swf_writer",
    "tsafrir_estimates": "tsafrir",
}  # fmt: skip
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


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value
