"""Result tables read and built alike as pandas DataFrames or Arrow tables.

A log replay builds its tables as Arrow tables from NumPy columns and writes them without
importing pandas (importing it costs about as much as all the rest of a replay's process);
every other kind builds DataFrames. The statistics of a run (:mod:`gridsim.analysis.stats`,
:mod:`gridsim.experiments.rejections`) read either through the functions here and answer in
the type they were given.

The Arrow tables built here are what ``pyarrow.Table.from_pandas`` makes of the DataFrame the
same columns or rows would make (:func:`arrow_columns`, :func:`arrow_rows`): integers int64,
floats float64 with NaN as null, text large_string; so a folder's files, read back with
pandas, hold the same columns, dtypes and values either way. What they lack is pandas' own
schema metadata (pandas reads the same frame without it).
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

Table: TypeAlias = "pd.DataFrame | pa.Table"


def is_arrow(table: Any) -> bool:
    """Whether ``table`` is an Arrow table (else a DataFrame)."""
    return hasattr(table, "column_names")


def column_names(table: Table) -> list[str]:
    return list(table.column_names) if is_arrow(table) else [str(c) for c in table.columns]


def column(table: Table, name: str) -> np.ndarray:
    """One column as NumPy, as pandas gives it: missing values as NaN (integers then as
    floats), text as objects.

    An Arrow column is read through Python values (``to_numpy`` imports pandas): meant for
    the small tables a run is summarised from."""
    if not is_arrow(table):
        return table[name].to_numpy()
    import pyarrow as pa

    chunked = table[name]
    values = chunked.to_pylist()
    kind = chunked.type
    if pa.types.is_floating(kind) or (pa.types.is_integer(kind) and chunked.null_count):
        return np.array([math.nan if v is None else v for v in values], dtype=np.float64)
    if pa.types.is_integer(kind):
        return np.array(values, dtype=np.int64)
    if pa.types.is_boolean(kind) and not chunked.null_count:
        return np.array(values, dtype=bool)
    return np.array([math.nan if v is None else v for v in values], dtype=object)


def row_count(table: Table) -> int:
    return table.num_rows if is_arrow(table) else len(table)


def rows(table: Table) -> Iterator[dict[str, Any]]:
    """The rows as dicts of Python values (missing ones as NaN, as pandas gives them)."""
    names = column_names(table)
    columns = [column(table, name).tolist() for name in names]
    for values in zip(*columns, strict=True):
        yield dict(zip(names, values, strict=True))


def group_key(value: Any) -> Any:
    """A group key: every missing value (NaN, None) the same one, None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def key_values(table: Table, name: str) -> list[Any]:
    """A column's values as group keys, as ``groupby`` gives them: Python values, pandas'
    own missing value kept in a nullable column."""
    return table[name].tolist() if not is_arrow(table) else column(table, name).tolist()


def first_appearance(values: Iterable[Any]) -> list[Any]:
    """The distinct values in the order they first appear (missing ones as one, NaN)."""
    seen: dict[Any, Any] = {}
    for value in values:
        seen.setdefault(group_key(value), value)
    return list(seen.values())


def groups(table: Table, keys: Sequence[str]) -> list[tuple[tuple, np.ndarray]]:
    """The rows per distinct value of ``keys``, as ``groupby(keys, sort=False,
    dropna=False)`` gives them: groups in order of first appearance, each group's row
    positions in table order, missing keys a group of their own."""
    if not keys:
        return [((), np.arange(row_count(table)))]
    columns = [key_values(table, key) for key in keys]
    found: dict[tuple, tuple[tuple, list[int]]] = {}
    for position, values in enumerate(zip(*columns, strict=True)):
        entry = found.setdefault(tuple(map(group_key, values)), (values, []))
        entry[1].append(position)
    return [(values, np.asarray(positions)) for values, positions in found.values()]


def take(table: Table, positions: np.ndarray) -> Table:
    """The rows at ``positions``, in that order."""
    if is_arrow(table):  # positions as an Arrow array: NumPy ones would import pandas
        return table.take(arrow_array(np.asarray(positions, dtype=np.int64)))
    return table.iloc[positions]


def insert_column(table: Table, position: int, name: str, value: Any) -> Table:
    """``table`` with a column ``name`` at ``position`` holding ``value`` in every row
    (``DataFrame.insert``: a DataFrame is changed in place and returned)."""
    if is_arrow(table):
        return table.add_column(position, name, arrow_array(value, table.num_rows))
    table.insert(position, name, value)
    return table


def table_like(records: list[dict[str, Any]], like: Table) -> Table:
    """``records`` as a table of ``like``'s type: ``pd.DataFrame(records)`` or its Arrow
    equivalent (:func:`arrow_rows`)."""
    if is_arrow(like):
        return arrow_rows(records)
    import pandas as pd

    return pd.DataFrame(records)


# ---- building Arrow tables --------------------------------------------------------------------


def arrow_array(values: Any, rows: int | None = None) -> pa.Array:
    """One column as ``from_pandas`` converts it: NumPy numbers as they are (NaN as null),
    text as large_string; a scalar repeated ``rows`` times.

    Built from the arrays' buffers: ``pa.array`` asks pandas whether a NumPy array is one of
    its types, importing it."""
    import pyarrow as pa

    if np.ndim(values) == 0:
        assert rows is not None
        if isinstance(values, str):
            return _text([values] * rows)
        values = np.full(rows, values)
    array = np.asarray(values)
    if array.dtype.kind == "f":
        array = np.ascontiguousarray(array, dtype=np.float64)
        return _buffers(pa.float64(), array, ~np.isnan(array))
    if array.dtype.kind in "iu":
        return _buffers(pa.int64(), np.ascontiguousarray(array, dtype=np.int64))
    if array.dtype.kind == "b":
        return _buffers(pa.bool_(), np.packbits(array, bitorder="little"), length=len(array))
    return _text(array.tolist())


def _text(items: list[Any]) -> pa.Array:
    """Text (None or NaN where missing) as large_string; all nulls as a null column."""
    import pyarrow as pa

    kinds = set(map(type, items))
    present = None
    if not kinds <= {str}:
        present = np.array([isinstance(v, str) for v in items], dtype=bool)
        missing = [v for v, here in zip(items, present, strict=True) if not here]
        if any(v is not None and not _is_nan(v) for v in missing):
            raise TypeError(f"a column of text and other values: {items[:5]}")
        if not present.any():
            return pa.nulls(len(items))
        items = [v if here else "" for v, here in zip(items, present, strict=True)]
    text = "".join(items)
    if text.isascii():  # one character, one byte: the lengths are the strings'
        data, lengths = text.encode(), np.fromiter(map(len, items), np.int64, len(items))
    else:
        encoded = [v.encode() for v in items]
        data, lengths = b"".join(encoded), np.fromiter(map(len, encoded), np.int64, len(items))
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return _buffers(pa.large_string(), offsets, present, data=data, length=len(items))


def _buffers(kind: pa.DataType, values: np.ndarray, valid: np.ndarray | None = None,
             data: bytes | None = None, length: int | None = None) -> pa.Array:  # fmt: skip
    """An Arrow array on NumPy buffers: ``valid`` (per value) becomes the validity bitmap,
    ``data`` the bytes behind text offsets."""
    import pyarrow as pa

    length = len(values) if length is None else length
    nulls = 0 if valid is None else int(length - valid.sum())
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    buffers = [bitmap, pa.py_buffer(values)]
    if data is not None:
        buffers.append(pa.py_buffer(data))
    return pa.Array.from_buffers(kind, length, buffers, null_count=nulls)


def arrow_columns(columns: Mapping[str, Any]) -> pa.Table:
    """``pa.Table.from_pandas(pd.DataFrame(columns))``, without pandas: arrays and
    scalars (repeated, as ``DataFrame.assign`` does) by name, in order."""
    import pyarrow as pa

    rows = next((len(v) for v in columns.values() if np.ndim(v) > 0), 0)
    return pa.table({name: arrow_array(values, rows) for name, values in columns.items()})


def arrow_rows(records: list[dict[str, Any]]) -> pa.Table:
    """``pa.Table.from_pandas(pd.DataFrame(records))``, without pandas: columns in order
    of first appearance; integers int64 (float64 when a row lacks one), booleans bool,
    numbers float64, text large_string, NaN and absent values null."""
    import pyarrow as pa

    names = list(dict.fromkeys(name for record in records for name in record))
    table = {}
    for name in names:
        values = [record.get(name, math.nan) for record in records]  # absent: NaN
        present = [v for v in values if v is not None and not _is_nan(v)]
        whole = len(present) == len(values)
        if present and whole and all(isinstance(v, bool | np.bool_) for v in present):
            column = np.array(values, dtype=bool)
        elif present and whole and all(_is_integer(v) for v in present):
            column = np.array(values, dtype=np.int64)
        elif (present and all(_is_number(v) for v in present)) or (
            not present and not all(v is None for v in values)  # NaN only: pandas' floats
        ):
            column = np.array([math.nan if v is None else float(v) for v in values])
        else:
            column = np.array(values, dtype=object)
        table[name] = arrow_array(column)
    return pa.table(table)


def _is_nan(value: Any) -> bool:
    return isinstance(value, float | np.floating) and math.isnan(value)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def concat(tables: list[Table]) -> Table:
    """Tables one after the other (``pd.concat(..., ignore_index=True)``; Arrow tables stay
    Arrow, columns missing from some filled with nulls)."""
    if all(is_arrow(t) for t in tables):
        import pyarrow as pa

        return pa.concat_tables(tables, promote_options="default")
    import pandas as pd

    return pd.concat([to_pandas(t) for t in tables], ignore_index=True)


def to_arrow(table: Table) -> pa.Table:
    if is_arrow(table):
        return table
    import pyarrow as pa

    return pa.Table.from_pandas(table, preserve_index=False)


def to_pandas(table: Table) -> pd.DataFrame:
    return table.to_pandas() if is_arrow(table) else table


# ---- CSV ---------------------------------------------------------------------------------------


def csv_text(table: Table) -> str:
    """The table as ``DataFrame.to_csv(index=False)`` writes it: floats in their shortest
    form (NumPy's ``str``), missing values empty, text quoted only where needed."""
    if not is_arrow(table):
        return table.to_csv(index=False)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=os.linesep)
    names = column_names(table)
    writer.writerow(names)
    cells = [_csv_cells(column(table, name)) for name in names]
    writer.writerows(zip(*cells, strict=True))
    return out.getvalue()


def _csv_cells(values: np.ndarray) -> list[str]:
    if values.dtype.kind == "f":
        text = values.astype(str)
        text[np.isnan(values)] = ""
        return text.tolist()
    return ["" if v is None or v != v else str(v) for v in values.tolist()]
