"""The explorer's view of cores, memory and GPUs, for runs on nodes that declare them.

Consumes one run's jobs table with the per-resource columns (docs/resources.md) and the
nodes' capacities (:class:`~gridsim.experiments.kinds.NodeCapacity`); produces what
:func:`gridsim.analysis.explore.explorer_document` adds to the page: each job's resource
class as a colour code of the rectangles (:data:`CLASS_COLOURS`, after the jobs' own
colours in one palette), the series of the per-resource panel (share of cores, memory and
GPUs in use and of cores stranded, :func:`gridsim.analysis.resource_metrics.resource_timeline`),
the text a tooltip adds, and the controls that colour the jobs by class and show only some
classes (a filter on the rectangles; the whole-schedule image of a view too wide for them
shows every job).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gridsim.analysis.resource_metrics import RESOURCE_CLASSES, resource_timeline
from gridsim.analysis.timelines import Steps
from gridsim.experiments.kinds import NodeCapacity

#: A colour per resource class (gpu, memory, cpu): Okabe-Ito vermillion, blue, bluish green.
CLASS_COLOURS = ("#D55E00", "#0072B2", "#009E73")
#: The per-resource panel's lines: timeline column, legend label, colour.
SERIES = (
    ("utilisation_cores", "cores", "#0072B2"),
    ("utilisation_memory_mb", "memory", "#009E73"),
    ("utilisation_gpus", "GPUs", "#D55E00"),
    ("stranded_share", "cores stranded", "#555555"),
)


def class_codes(done: pd.DataFrame) -> np.ndarray:
    """Each job's resource class as its index in :data:`RESOURCE_CLASSES`."""
    codes = {name: index for index, name in enumerate(RESOURCE_CLASSES)}
    return done["resource_class"].map(codes).fillna(len(RESOURCE_CLASSES) - 1).to_numpy(np.uint8)


def resource_series(done: pd.DataFrame, nodes: NodeCapacity) -> list[tuple[str, Steps, str]]:
    """The panel's step functions (label, steps, colour): the share of every kind the
    platform has in use, and of its cores stranded."""
    timeline = resource_timeline(done, nodes.capacity, nodes.memory_tracked)
    timeline["stranded_share"] = timeline["stranded_cores"] / nodes.capacity[:, 0].sum()
    times = timeline["time"].to_numpy(dtype=float)
    return [(label, Steps(times, timeline[column].to_numpy(dtype=float)), colour)
            for column, label, colour in SERIES
            if timeline[column].notna().all() and len(timeline)]  # fmt: skip


def tooltip_lines(done: pd.DataFrame) -> list[str]:
    """What a job held, for its tooltip: ``16 cores, 64 GiB, 4 GPUs (gpu)``."""
    gib = done["memory_mb"].to_numpy(dtype=float) / 1024
    return [f"{cores} cores, {memory:.4g} GiB, {gpus} GPUs ({name})"
            for cores, memory, gpus, name in zip(done["cores"], gib, done["gpus"],
                                                 done["resource_class"], strict=True)]  # fmt: skip


def class_controls(
    boxes: Any, quads: Any, view_filter: Any, classes: np.ndarray, colour_by: str | None = None
) -> list[Any]:
    """A choice of colour (by job, by resource class, and by the energy column the jobs are
    coloured by, if any) and a box per class to show or hide its jobs' rectangles, each
    changing the page at once."""
    from bokeh.models import CheckboxGroup, CustomJS, Div, Select

    options = ["job", "resource class", *([colour_by] if colour_by else [])]
    colour = Select(title="colour jobs by", options=options, value=colour_by or "job",
                    width=150, name="gridsim-colour")  # fmt: skip
    colour.js_on_change("value", CustomJS(args={"quads": quads}, code=_COLOUR))
    shown = CheckboxGroup(labels=list(RESOURCE_CLASSES), active=[0, 1, 2], inline=True,
                          name="gridsim-classes")  # fmt: skip
    shown.js_on_change("active", CustomJS(
        args={"filter": view_filter, "classes": classes, "quads": quads}, code=_SHOWN))  # fmt: skip
    keys = " ".join(f'<span style="color:{c}">&#9632;</span> {name}'
                    for name, c in zip(RESOURCE_CLASSES, CLASS_COLOURS, strict=True))  # fmt: skip
    return [colour, Div(text=f"resource classes shown: {keys}"), shown]


#: Swaps the rectangles' colour codes: the job's own, or its class's (after the jobs').
_COLOUR = """
const d = Object.assign({}, quads.data)
d.colour = this.value === "job" ? d.by_job : (this.value === "resource class" ? d.by_class
                                                                         : d.by_value)
quads.data = d
"""
#: Shows the rectangles of the jobs whose class is ticked (classes: per job row).
_SHOWN = """
const on = new Set(this.active)
const rows = quads.data.row
const keep = new Array(rows.length)
for (let i = 0; i < rows.length; i++) keep[i] = on.has(classes[rows[i]])
filter.booleans = keep
"""
