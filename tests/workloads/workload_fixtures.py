"""The hand-written workload fixtures (tests/data/workloads, README there) and variants of
them the tests build."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "workloads"
SACCT = DATA / "sacct-iso.txt"
BATSIM = DATA / "batsim-delay.json"
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def epoch_version(source: Path, target: Path) -> Path:
    """``source`` (a sacct dump with ISO UTC times) with epoch times, its columns reversed
    and its header in lower case: the same jobs as another sacct invocation prints them."""
    lines = source.read_text().splitlines()

    def epoch(match: re.Match) -> str:
        moment = dt.datetime.fromisoformat(match.group(0)).replace(tzinfo=dt.UTC)
        return str(int(moment.timestamp()))

    rows = [line.split("|")[::-1] for line in lines]
    rows[0] = [name.lower() for name in rows[0]]
    text = "\n".join(_ISO.sub(epoch, "|".join(row)) for row in rows) + "\n"
    target.write_text(text)
    return target
