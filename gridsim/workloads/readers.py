"""One entry point for every workload format: the file's content says which reader reads it.

Consumes a path (and optionally the format's name, which overrides what the content shows,
and an :class:`~gridsim.workloads.mapping.SwfMapping`); produces the records
(:func:`read_records`) or the mapped jobs (:func:`read_workload`) from whichever reader the
format names. The readers share one small contract: a function from a path (and a few
keyword options) to :class:`~gridsim.workloads.records.Records`, listed in :data:`READERS`;
a new format is one module and one line there.

* ``swf``, comment (``;``) or number lines: :func:`gridsim.workloads.swf.read_swf_records`;
* ``slurm``, a ``|``-separated header line: :func:`gridsim.workloads.slurm.read_slurm_records`;
* ``batsim``, a JSON object: :func:`gridsim.workloads.batsim.read_batsim_records`;
* ``parquet``, Parquet's magic bytes:
  :func:`gridsim.workloads.jobs_table.read_jobs_table_records`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gridsim.workloads.mapping import SwfMapping, apply_mapping
from gridsim.workloads.records import Records, WorkloadLog
from gridsim.workloads.sources import FORMATS, sniff_format


def _swf(path: Path, *, on_malformed: str, time_zone: str) -> Records:
    from gridsim.workloads.swf import read_swf_records

    return read_swf_records(path, on_malformed)


def _slurm(path: Path, *, on_malformed: str, time_zone: str) -> Records:
    from gridsim.workloads.slurm import read_slurm_records

    return read_slurm_records(path, time_zone)


def _batsim(path: Path, *, on_malformed: str, time_zone: str) -> Records:
    from gridsim.workloads.batsim import read_batsim_records

    return read_batsim_records(path)


def _parquet(path: Path, *, on_malformed: str, time_zone: str) -> Records:
    from gridsim.workloads.jobs_table import read_jobs_table_records

    return read_jobs_table_records(path)


#: Format name -> reader (a path and keyword options to records).
READERS: dict[str, Callable[..., Records]] = {
    "swf": _swf,
    "slurm": _slurm,
    "batsim": _batsim,
    "parquet": _parquet,
}
assert tuple(READERS) == FORMATS


def read_records(
    path: str | Path,
    format: str | None = None,
    *,
    on_malformed: str = "error",
    time_zone: str = "UTC",
) -> Records:
    """The records of a workload file of any format (recognised by content unless
    ``format`` names it). ``on_malformed`` applies to SWF lines; ``time_zone`` to the local
    times of a Slurm dump."""
    path = Path(path)
    chosen = format or sniff_format(path)
    if chosen not in READERS:
        raise ValueError(f"unknown workload format {chosen!r}; expected one of {list(READERS)}")
    return READERS[chosen](path, on_malformed=on_malformed, time_zone=time_zone)


def read_workload(
    path: str | Path,
    mapping: SwfMapping | None = None,
    format: str | None = None,
    *,
    time_zone: str = "UTC",
) -> WorkloadLog:
    """The jobs of a workload file of any format, under ``mapping`` (see
    :func:`gridsim.workloads.swf.read_swf` for the columns)."""
    mapping = mapping or SwfMapping()
    read = read_records(path, format, on_malformed=mapping.on_malformed, time_zone=time_zone)
    return apply_mapping(read, mapping)
