"""Read and write a jobs table as Parquet: every record field, losslessly.

The Parquet file holds the records table of :mod:`gridsim.workloads.records` (its columns
and types) and, in the file's key-value metadata under ``gridsim``, the header entries, the
format the records were first read from and the gridsim version. It is the format to keep a
converted log in: unlike SWF (integer seconds, numbers for names) and Batsim (no users, no
memory), it drops nothing; pandas, polars, DuckDB and R read it as is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from gridsim import __version__
from gridsim.workloads.records import (
    RECORD_COLUMNS,
    SWF_COLUMNS,
    Records,
    WorkloadFormatError,
    records_frame,
)

METADATA_KEY = b"gridsim"


def write_jobs_table(read: Records, path: str | Path) -> None:
    """Write the records and header of ``read`` as a Parquet file."""
    table = pa.Table.from_pandas(read.records, preserve_index=False)
    metadata = {
        "header": [list(entry) for entry in read.header.entries],
        "source_format": read.format,
        "gridsim_version": __version__,
    }
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), METADATA_KEY: json.dumps(metadata).encode()}
    )
    import pyarrow.parquet as pq  # on use: commands that read no Parquet start faster

    pq.write_table(table, path)


def read_jobs_table_records(path: str | Path) -> Records:
    """The records and header of a Parquet jobs table (:func:`write_jobs_table`); a Parquet
    file of other columns is refused, naming the columns it lacks."""
    from gridsim.workloads.swf import SwfHeader

    source = str(path)
    try:
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path)
        table = parquet.read()
    except (pa.ArrowException, OSError) as error:
        raise WorkloadFormatError(source, None, f"not a readable Parquet file ({error})") from None
    names = table.schema.names
    missing = [name for name in ("job_id", "submit_time", "run_time") if name not in names]
    if missing:
        raise WorkloadFormatError(source, None, f"a Parquet jobs table needs columns {missing} "
                                  "(gridsim convert writes them)")  # fmt: skip
    frame = table.to_pandas()
    known = [name for name in (*SWF_COLUMNS, *RECORD_COLUMNS) if name in frame]
    records = records_frame({name: frame[name] for name in known}, len(frame))
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    entries: tuple[tuple[str, str], ...] = ()
    if raw is not None:
        try:
            entries = tuple((str(k), str(v)) for k, v in json.loads(raw)["header"])
        except (ValueError, KeyError, TypeError):
            raise WorkloadFormatError(source, None, "damaged gridsim metadata") from None
    return Records(table=records, header=SwfHeader(entries), source=source, format="parquet",
                   lines_read=0)  # fmt: skip
