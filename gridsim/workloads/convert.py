"""Convert a workload between formats, saying what the output cannot hold.

Consumes a workload file of any format gridsim reads (:mod:`~gridsim.workloads.readers`)
and an output path; produces the same records in SWF (``.swf``, ``.swf.gz``), Batsim JSON
(``.json``) or a Parquet jobs table (``.parquet``), chosen by the name unless given, and a
:class:`Conversion` report: jobs read and written, jobs left out (per reason) and the fields
whose values the output format has no place for. The output appears whole or not at all (it
is written under a temporary name, renamed when complete).

What each output keeps:

* **SWF**: the 18 fields, in whole seconds (the writer's rounding keeps every schedule's
  order); names become the numbers the records already hold (user_id, group_id,
  partition_id), nodes, cores per node, GPUs, exit codes and ids such as ``123_4`` are
  dropped; memory per node becomes memory per processor where cores per node are known.
* **Batsim**: id, submit time, walltime, processors and the run time (as a delay profile);
  with ``extra_data`` every other known field, as a JSON object in each job's
  ``extra_data``. Jobs without a run time or processor count cannot be written.
* **Parquet**: everything.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from gridsim.workloads.batsim import EXTRA_FIELDS, write_batsim
from gridsim.workloads.jobs_table import write_jobs_table
from gridsim.workloads.readers import read_records
from gridsim.workloads.records import RECORD_COLUMNS, Records
from gridsim.workloads.swf_writer import write_swf

#: Output format -> the file names that choose it.
OUTPUT_NAMES = {"swf": (".swf", ".swf.gz"), "batsim": (".json",), "parquet": (".parquet",)}
#: Record fields SWF has no column for (memory per node is kept per processor).
_NOT_IN_SWF = tuple(name for name in RECORD_COLUMNS if name != "requested_memory_per_node_mb")


class ConversionError(ValueError):
    """An output that cannot be written as asked (no format for its name, no machine size
    for Batsim's nb_res); the message names the option to give."""


@dataclass(frozen=True)
class Conversion:
    """What a conversion did."""

    source: str
    target: str
    input_format: str
    output_format: str
    jobs_read: int
    jobs_written: int
    left_out: dict[str, int] = field(default_factory=dict)
    fields_dropped: tuple[str, ...] = ()

    def summary(self) -> str:
        lines = [f"wrote {self.target} ({self.output_format}): {self.jobs_written} of "
                 f"{self.jobs_read} jobs of {self.source} ({self.input_format})"]  # fmt: skip
        lines += [f"  left out, {reason.replace('_', ' ')}: {n}"
                  for reason, n in self.left_out.items() if n]  # fmt: skip
        if self.fields_dropped:
            lines.append(f"  {self.output_format} has no place for: "
                         f"{', '.join(self.fields_dropped)}")  # fmt: skip
        return "\n".join(lines)


def output_format_of(path: Path, given: str | None = None) -> str:
    """The output format ``given``, or the one the file's name says."""
    if given is not None:
        if given not in OUTPUT_NAMES:
            raise ConversionError(f"unknown output format {given!r}; expected one of "
                                  f"{list(OUTPUT_NAMES)}")  # fmt: skip
        return given
    name = path.name.lower()
    for fmt, suffixes in OUTPUT_NAMES.items():
        if name.endswith(suffixes):
            return fmt
    known = ", ".join(s for suffixes in OUTPUT_NAMES.values() for s in suffixes)
    raise ConversionError(f"the name says no output format; end it in {known} or give --to")


def convert(
    source: str | Path,
    target: str | Path,
    *,
    input_format: str | None = None,
    output_format: str | None = None,
    time_zone: str = "UTC",
    machine_processors: int | None = None,
    extra_data: bool = False,
    skip_malformed: bool = False,
) -> Conversion:
    """Read ``source`` and write its records to ``target`` (module docstring)."""
    target = Path(target)
    chosen = output_format_of(target, output_format)
    read = read_records(source, input_format, time_zone=time_zone,
                        on_malformed="skip" if skip_malformed else "error")  # fmt: skip
    return write_records(read, target, chosen, machine_processors=machine_processors,
                         extra_data=extra_data)  # fmt: skip


def write_records(
    read: Records,
    target: Path,
    output_format: str,
    *,
    machine_processors: int | None = None,
    extra_data: bool = False,
) -> Conversion:
    """Write ``read`` as ``output_format`` to ``target`` (whole, or nothing)."""
    records = read.records
    left_out: dict[str, int] = {}
    dropped: tuple[str, ...] = ()
    machine = machine_processors or read.header.machine_processors
    temporary = target.with_name(f".tmp-{os.getpid()}-{target.name}")  # same suffix
    try:
        if output_format == "swf":
            fields = {"MaxProcs": machine} if machine_processors else {}
            write_swf(records, temporary, header=read.header, fields=fields)
            dropped = _known(records, _NOT_IN_SWF)
        elif output_format == "batsim":
            if not machine:
                raise ConversionError(f"{read.source} gives no machine size, which Batsim's "
                                      "nb_res needs; give --machine-processors")  # fmt: skip
            left_out = write_batsim(records, temporary, machine_processors=machine,
                                    description=f"converted from {Path(read.source).name} by "
                                    "gridsim", extra_data=extra_data)  # fmt: skip
            # res holds the requested processors (or the allocated ones, if none requested)
            held = {"requested_processors"} | ({"allocated_processors"} if _same_processors(
                records) else set())  # fmt: skip
            dropped = (
                ()
                if extra_data
                else tuple(name for name in _known(records, EXTRA_FIELDS) if name not in held)
            )
        else:
            write_jobs_table(read, temporary)
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
    return Conversion(source=read.source, target=str(target), input_format=read.format,
                      output_format=output_format, jobs_read=len(records),
                      jobs_written=len(records) - sum(left_out.values()), left_out=left_out,
                      fields_dropped=dropped)  # fmt: skip


def _known(records: pd.DataFrame, names: tuple[str, ...]) -> tuple[str, ...]:
    """The fields among ``names`` that hold a value for some job."""
    return tuple(name for name in names if np.any(records[name].notna().to_numpy()))


def _same_processors(records: pd.DataFrame) -> bool:
    """Whether no job's allocated processors differ from its requested ones."""
    allocated = records["allocated_processors"].to_numpy(np.float64, na_value=np.nan)
    requested = records["requested_processors"].to_numpy(np.float64, na_value=np.nan)
    return bool(np.all(np.isnan(allocated) | (allocated == requested)))
