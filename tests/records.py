"""Golden records: what a test recorded against what the code gives now, and which kind of
difference it is.

A record keeps the *choices* (which window, which nodes, when) exactly and the *values* (costs,
criterion values, means) with every float bit (JSON numbers written with ``repr``, which reads
back bit for bit). A difference is "another choice" (always a failure) or "the same choice,
values differ in the last bits by N ulp" (a failure beyond the record's stated bound).
"""

from __future__ import annotations

import struct


def ulp_distance(a: float, b: float) -> int:
    """How many floats lie from ``a`` to ``b`` (0 for equal bits, and for 0.0 and -0.0)."""
    return abs(_ordered(a) - _ordered(b))


def _ordered(x: float) -> int:
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def table_difference(recorded: dict, found: dict, ulp_bound: int) -> str | None:
    """What differs between two records of a table, ``{"choice": [...], "values": [...],
    "rows": [[choice..., values...], ...]}``, or None if nothing beyond ``ulp_bound`` does."""
    width = len(recorded["choice"])
    if len(recorded["rows"]) != len(found["rows"]):
        return f"another choice: {len(found['rows'])} rows, recorded {len(recorded['rows'])}"
    worst = (0, "")
    for index, (old, new) in enumerate(zip(recorded["rows"], found["rows"], strict=True)):
        if old[:width] != new[:width]:
            return f"another choice in row {index}: {new[:width]}, recorded {old[:width]}"
        for name, a, b in zip(recorded["values"], old[width:], new[width:], strict=True):
            ulps = ulp_distance(a, b)
            if ulps > worst[0]:
                worst = (ulps, f"row {index} {name}: {b!r}, recorded {a!r}")
    if worst[0] > ulp_bound:
        return f"same choice, values differ in the last bits by {worst[0]} ulp ({worst[1]})"
    return None
