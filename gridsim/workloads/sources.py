"""Opening a workload file: compression, text encoding, and which format its content is.

Consumes a path; produces a byte stream (gzip undone, recognised by its magic bytes whatever
the file's name), a text stream (UTF-8, a byte-order mark dropped, CRLF and CR line ends read
as LF, undecodable bytes replaced) and the format the content shows (:func:`sniff_format`):
a Parquet jobs table by its magic bytes, Batsim JSON by its opening brace, a Slurm
``sacct --parsable2`` dump by its ``|``-separated header, SWF by comment or number lines.
Files compressed another way are named and refused, so are binary files (NUL bytes).

Nothing here holds a whole file: the readers take the streams a chunk at a time.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

from gridsim.workloads.records import WorkloadFormatError

#: The formats gridsim reads, by the name a scenario's ``workload.format`` gives.
FORMATS = ("swf", "slurm", "batsim", "parquet")
GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
#: Compressions recognised by their magic bytes but not read: (magic, name, how to undo it).
UNREAD_COMPRESSIONS = (
    (b"BZh", "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip", "7z x"),
    (b"\x1f\x9d", "compress (.Z)", "uncompress"),
)
#: How much of a file's start is looked at to tell its format.
SNIFF_BYTES = 65536
_SACCT_HEADER = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_]*(\|[A-Za-z0-9_]*)+\s*$")


def open_bytes(path: Path) -> BinaryIO:
    """The file's bytes, gzip undone; other compressions refused (the file is closed)."""
    raw = path.open("rb")
    try:
        head = raw.peek(8)[:8]
        stream = raw
        if head[:2] == GZIP_MAGIC:
            stream = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
            with gzip_errors(str(path)):
                head = stream.peek(8)[:8]
        for magic, compression, undo in UNREAD_COMPRESSIONS:
            if head.startswith(magic):
                raise WorkloadFormatError(
                    str(path), None, f"compressed with {compression}, which gridsim does not "
                    f"read; decompress it ({undo}) or compress it with gzip",
                )  # fmt: skip
        return stream
    except BaseException:
        raw.close()
        raise


@contextlib.contextmanager
def gzip_errors(source: str) -> Iterator[None]:
    """A damaged or truncated gzip stream, met while reading, as a WorkloadFormatError."""
    try:
        yield
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise WorkloadFormatError(source, None, f"damaged gzip file ({error})") from None


def open_text(path: Path) -> TextIO:
    """The file as text: gzip undone, UTF-8 (a BOM dropped, bad bytes replaced), line ends
    read as LF whatever they were (CRLF, CR)."""
    return io.TextIOWrapper(open_bytes(path), encoding="utf-8-sig", errors="replace",
                            newline=None)  # fmt: skip


def text_chunks(stream: TextIO, source: str, size: int = 1 << 22) -> Iterator[list[str]]:
    """The stream's lines, a list of about ``size`` characters at a time; a NUL character
    (a binary file) is refused."""
    while True:
        with gzip_errors(source):
            lines = stream.readlines(size)
        if not lines:
            return
        if any("\x00" in line for line in lines):
            raise WorkloadFormatError(source, None, "a binary file (it holds NUL bytes), not "
                                      "workload text")  # fmt: skip
        yield lines


def sniff_format(path: Path) -> str:
    """Which of :data:`FORMATS` the file's content is; a WorkloadFormatError if none."""
    with open_bytes(path) as stream, gzip_errors(str(path)):
        head = stream.read(SNIFF_BYTES)
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if b"\x00" in head:
        raise WorkloadFormatError(str(path), None, "a binary file (it holds NUL bytes), not "
                                  "workload text")  # fmt: skip
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return "batsim"
    first = next((line for line in stripped.splitlines() if line.strip()), "")
    if _SACCT_HEADER.match(first):
        return "slurm"
    if not first or first.lstrip().startswith(";") or _looks_numeric(first):
        return "swf"
    raise WorkloadFormatError(
        str(path), 1, f"not a workload format gridsim recognises: {first[:60]!r} starts no "
        "SWF log, sacct --parsable2 dump (a header line such as JobID|Submit|...), Batsim "
        "JSON workload or Parquet jobs table; name the format with workload.format",
    )  # fmt: skip


def _looks_numeric(line: str) -> bool:
    token = line.split(";", 1)[0].split()
    try:
        float(token[0])
    except (ValueError, IndexError):
        return False
    return True
