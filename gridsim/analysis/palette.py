"""One look per policy, shared by every figure and report; distinct looks for adjacent jobs.

Consumes policy labels (the ``policy`` column of a results table) or a Gantt chart's tasks;
produces :class:`Style` values (colour, hatch, line style, marker) for
:mod:`gridsim.analysis.plots` and :mod:`gridsim.cloud.plots`.

Colours are the eight of Okabe and Ito's palette, which stay distinguishable with the common
forms of colour blindness (ordered for white backgrounds: the pale yellow last). Eight colours
do not cover gridsim's policies, so a style is a colour *and* a tier: tier 0 plain (solid
bars, solid lines), tier 1 hatched ``//`` and dashed, tier 2 hatched ``..`` and dotted, 24
styles in all, and every style also has a marker.

A policy's style depends on its name only, never on which figure draws it or in which order,
so BFfinish looks the same in a comparison, an advantage curve and a report:

* The criteria of the registry have fixed, distinct styles (:data:`POLICY_ORDER`): the
  job-flow criteria first (plain colours), then the single-job ones.
* Schedulers of log replays (``fcfs``, ``easy``, ``conservative``; a replay label
  ``easy/BFfinish`` takes its scheduler's style), cloud policies and batch searches never
  share a figure with criteria or with each other, so they reuse the plain colours.
* A parameterised label takes the style of its name (``MultipleBest(target=MaxQ)`` that of
  MultipleBest); any other label a style chosen by a hash of its name (stable across runs
  and machines).
* Two labels of one figure that would look the same (two DyTSS variants, a user's policy
  that hashes onto a built-in's style) are told apart in that figure: the later one, in the
  figure's order, takes the next free style.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import pandas as pd

OKABE_ITO = (
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000",
)  # fmt: skip
#: Okabe-Ito reordered for lines, bars and markers on white: the pale yellow comes last.
COLOURS = (
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
)  # fmt: skip
HATCHES = (None, "//", "..")
LINE_STYLES = ("-", "--", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
STYLE_COUNT = len(COLOURS) * len(HATCHES)
#: Colours on which white text reads better than black.
DARK_COLOURS = frozenset({"#0072B2", "#D55E00", "#000000"})

#: Criteria in style order: job-flow criteria [TY20] first, then single-job [TY18, TY19],
#: then those of energy and time-varying prices (docs/energy.md).
POLICY_ORDER = (
    "BFstart", "BFfinish", "BFshort", "PAST", "CoP",
    "FirstFit", "MinStart", "MinFinish", "MinRuntime", "MinCost", "MaxQ", "MaxQLite",
    "MultipleBest", "DEP", "DEPLite", "COORD", "COORDLite",
    "MinEnergy", "MinCarbon", "MinCostOverTime",
)  # fmt: skip
#: Families that never share a figure with the criteria: plain colours again.
OTHER_FAMILIES = (("fcfs", "easy", "conservative"), ("EqualChunks", "DyTSS"), ("ALP", "AMP"))


@dataclass(frozen=True)
class Style:
    """How one policy (or one job of a Gantt chart) is drawn."""

    index: int
    colour: str
    hatch: str | None
    line_style: str
    marker: str

    @property
    def edge(self) -> str:
        """Edge and hatch colour of a bar: grey on the darkest colours, where black would
        hide the hatch."""
        return "0.6" if self.colour in DARK_COLOURS else "black"


def style(index: int) -> Style:
    """Style number ``index`` of the :data:`STYLE_COUNT` (colour first, then tier)."""
    index %= STYLE_COUNT
    tier, colour = divmod(index, len(COLOURS))
    return Style(index, COLOURS[colour], HATCHES[tier], LINE_STYLES[tier], MARKERS[colour])


_FIXED = {name: index for index, name in enumerate(POLICY_ORDER)}
for _family in OTHER_FAMILIES:
    _FIXED.update({name: index for index, name in enumerate(_family)})


def policy_index(label: str) -> int:
    """The style number of a policy label, from its name alone (rules in the module doc)."""
    name = label.split("/", 1)[0].split("(", 1)[0].strip()
    if name in _FIXED:
        return _FIXED[name]
    return zlib.crc32(name.encode("utf-8")) % STYLE_COUNT


def policy_style(label: str) -> Style:
    """The style of one policy label (see :func:`policy_styles` for a whole figure)."""
    return style(policy_index(label))


def policy_styles(labels: Iterable[str]) -> dict[str, Style]:
    """The styles of a figure's policies, in the figure's order: each its own style, except
    that a label whose style an earlier label took gets the next free one."""
    taken: set[int] = set()
    styles: dict[str, Style] = {}
    for label in dict.fromkeys(labels):
        index = policy_index(label)
        while index in taken and len(taken) < STYLE_COUNT:
            index = (index + 1) % STYLE_COUNT
        taken.add(index)
        styles[label] = style(index)
    return styles


def job_styles(tasks: pd.DataFrame, rows: dict[int, int]) -> dict[int, Style]:
    """A style per job of a Gantt chart such that neighbouring bars differ.

    Two jobs are neighbours when one's task is the next bar after the other's on a node, or
    their tasks overlap in time (ends touching included) on adjacent rows. Jobs are coloured
    greedily in order of first start, each taking a style no neighbour has: a plain colour
    while one is free, the least used so far (so colours spread over the chart), a hatched
    one otherwise. With at most :data:`STYLE_COUNT` - 1 neighbours a free style always
    exists (else the style least used by its neighbours is taken).

    Args:
        tasks: the chart's job tasks (``job_id``, ``node``, ``start``, ``end``).
        rows: node id -> row of the chart.

    Cost: O(tasks log tasks + pairs of overlapping tasks on adjacent rows).
    """
    neighbours: dict[int, set[int]] = {int(j): set() for j in tasks["job_id"].unique()}

    def link(a: int, b: int) -> None:
        if a != b:
            neighbours[a].add(b)
            neighbours[b].add(a)

    by_row: dict[int, pd.DataFrame] = {}
    for node, part in tasks.groupby("node"):
        part = part.sort_values("start")
        ids = part["job_id"].astype(int).to_numpy()
        for a, b in pairwise(ids):
            link(int(a), int(b))
        by_row[rows[int(node)]] = part
    for row, part in by_row.items():
        above = by_row.get(row + 1)
        if above is None:
            continue
        for job, start, end in part[["job_id", "start", "end"]].itertuples(index=False):
            touching = above[(above["start"] <= end) & (above["end"] >= start)]
            for other in touching["job_id"].astype(int):
                link(int(job), int(other))
    order = tasks.groupby("job_id")["start"].min().sort_values(kind="stable").index
    chosen: dict[int, int] = {}
    uses = np.zeros(STYLE_COUNT, dtype=int)
    for job in order.astype(int):
        used = [chosen[n] for n in neighbours[job] if n in chosen]
        free = [i for i in range(STYLE_COUNT) if i not in used]
        if free:  # plain colours before hatched ones, then the least used so far
            index = min(free, key=lambda i: (i // len(COLOURS), uses[i], i))
        else:
            index = int(np.argmin(np.bincount(used, minlength=STYLE_COUNT)))
        chosen[job] = index
        uses[index] += 1
    return {job: style(index) for job, index in chosen.items()}
