"""What runs could not do, counted per policy: jobs rejected, windows not found, jobs dropped.

Consumes a kind's ``runs`` table and the counts its module declares (``REJECTIONS``, a tuple
of :class:`Count`); produces one row per policy (and grid point, queue size or goal) and
count that is not zero: how many, out of how many, and why. ``gridsim run`` prints them
under its summary and writes them to the results folder's ``metadata.json``
(``"rejections"``), so a scenario that runs but places nothing says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridsim.analysis.tables import Table, column, column_names, groups, row_count

#: Columns that tell runs apart besides the policy (a point's axes come first).
GROUP_COLUMNS = ("queue_size", "goal")


@dataclass(frozen=True)
class Count:
    """One thing a run can fail to do, read from the runs table.

    Attributes:
        column: a per-run count, or a boolean that is false when the run failed (counted in
            runs).
        of: the per-run total the count is out of; None for a boolean ``column`` (out of the
            runs).
        what: what is counted, e.g. "jobs rejected".
        why: the reason, e.g. "wider than the machine".
        same_for_every_policy: the count is a property of the instance (jobs dropped from a
            log), repeated in every policy's row: counted once, for "every policy".
    """

    column: str
    of: str | None
    what: str
    why: str
    same_for_every_policy: bool = False


def rejection_rows(counts: Sequence[Count], runs: Table, axes: Sequence[str] = ()
                   ) -> list[dict[str, Any]]:  # fmt: skip
    """The non-zero counts, summed per policy and group (see the module docstring)."""
    names = column_names(runs)
    if row_count(runs) == 0 or "policy" not in names:
        return []
    keys = [c for c in dict.fromkeys((*axes, "policy", *GROUP_COLUMNS)) if c in names]
    policy = column(runs, "policy")
    first_policy = np.flatnonzero(policy == policy[0])
    rows = []
    for count in counts:
        if count.column not in names:
            continue
        counted = column(runs, count.column)
        total = None if count.of is None else column(runs, count.of)
        for values, group in groups(runs, keys):
            if count.same_for_every_policy:
                group = np.intersect1d(group, first_policy)
                if not len(group):
                    continue
                values = tuple("every policy" if key == "policy" else value
                               for key, value in zip(keys, values, strict=True))  # fmt: skip
            if total is None:
                number, out_of = int((~counted[group].astype(bool)).sum()), len(group)
            else:
                number, out_of = _sum(counted[group]), _sum(total[group])
            if number:
                labels = dict(zip(keys, values, strict=True))
                rows.append({**_plain(labels), "count": number, "of": out_of,
                             "what": count.what, "why": count.why})  # fmt: skip
    return rows


def _sum(values: np.ndarray) -> int:
    """The sum of a count column (missing values left out, as pandas sums)."""
    return int(np.nansum(values.astype(float)))


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """numpy scalars as Python numbers (for JSON)."""
    return {key: value.item() if hasattr(value, "item") else value for key, value in values.items()}


def describe(row: dict[str, Any]) -> str:
    """One console line: ``BFstart, queue_size 500: 990 of 5000 jobs rejected: why``."""
    labels = [str(row["policy"])] + [
        f"{key} {value}"
        for key, value in row.items()
        if key not in ("policy", "count", "of", "what", "why")
    ]
    return f"{', '.join(labels)}: {row['count']} of {row['of']} {row['what']}: {row['why']}"
