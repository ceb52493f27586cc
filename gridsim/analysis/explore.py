"""The schedule explorer: one run as a self-contained, interactive HTML page.

Consumes the jobs table of one run (:data:`gridsim.sim.trace.JOB_COLUMNS`: a job flow's or a
log replay's) and produces one HTML file that works offline -- Bokeh's JavaScript inlined,
the data embedded as binary arrays -- with a Gantt chart (nodes against time: one rectangle
per job and interval of its node set), the processors in use and the jobs waiting below it
on the same time axis, zoom (wheel, box) and pan, a tooltip per job (id, user, submit,
start, end, wait, processors, nodes, cost), a click that outlines the job and the jobs it
waited behind -- those that held one of its nodes while it waited, from its submission to
its start -- and a box to find a job by id (``gridsim explore``; the report links one page
per policy). On nodes with cores, memory and GPUs, jobs can be coloured and filtered by
resource class and a panel shows the share of every resource in use and of the cores
stranded (:mod:`gridsim.analysis.explore_resources`); with a power model, jobs can be
coloured by their energy, electricity cost or carbon (:mod:`gridsim.analysis.explore_energy`).

Why Bokeh: its canvas renderer draws the 70,000 rectangles of the whole KTH-SP2 log (28k
jobs) in about a second and pans them smoothly (WebGL on a GPU), it indexes glyphs
spatially so that hovering stays instant with hundreds of thousands of rectangles (HPC2N,
203k jobs), it decimates glyphs
while the view moves (level of detail), and a page with everything inlined is one call.
The interactions a scheduling researcher needs beyond Bokeh's tools are a few lines of
JavaScript (``gridsim/data/explore/explorer.js``).

Cost: O(jobs + intervals) to build; the page holds about 30 bytes per rectangle and 50 per
job.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gridsim.analysis import explore_energy, explore_resources
from gridsim.analysis.jobflow_metrics import ran
from gridsim.analysis.resource_metrics import has_resources
from gridsim.analysis.timelines import Steps, processors_in_use, queue_length
from gridsim.experiments.kinds import NodeCapacity

#: Colours of the jobs' rectangles (Okabe-Ito without black, and four lighter tints): a
#: job's colour is its id modulo their number, so neighbouring ids differ.
JOB_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
               "#999999", "#F5C872", "#9FD6F2", "#7FD4BD", "#E8A8CF")  # fmt: skip
#: Rectangles a view may hold before it shows the schedule as an image (level of detail):
#: a canvas redraws about 20,000 rectangles in 0.1 s in headless Chromium without a GPU.
DETAIL_RECTANGLES = 20_000
#: Columns of that image: instants over the whole schedule.
RASTER_BINS = 2400
#: Bins of the panels below the chart, over the view: about one per pixel.
PANEL_BINS = 1200
#: Final states as codes in the page (their names are in the page too).
STATES = ("finished", "killed", "failed", "rejected", "unfinished")


class ExploreError(ValueError):
    """A run the explorer cannot draw (no job ran, nodes not recorded)."""


@dataclass(frozen=True)
class Timeline:
    """How the page shows times: ``scale`` and ``offset`` turn the run's times into the axis'
    numbers (milliseconds since 1970 for dates), ``dates`` says which."""

    unit: str
    origin: float | None

    @property
    def dates(self) -> bool:
        return self.origin is not None

    def axis(self, times: np.ndarray) -> np.ndarray:
        times = np.asarray(times, dtype=np.float64)
        return (self.origin + times) * 1000.0 if self.origin is not None else times


def rectangles(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per job and interval of its node set: ``row`` (the job's position in
    ``jobs``), ``first`` and ``last`` node, ``start``, ``finish``."""
    rows = []
    for index, (text, start, finish) in enumerate(
        jobs[["allocated_resources", "start_time", "finish_time"]].itertuples(index=False)
    ):
        for part in str(text).split():
            first, _, last = part.partition("-")
            rows.append((index, int(first), int(last or first), start, finish))
    return pd.DataFrame(rows, columns=["row", "first", "last", "start", "finish"])


def _steps_source(steps: Steps, timeline: Timeline, scale: float = 1.0) -> dict[str, Any]:
    """A step function in axis units with the area under it up to each change, from which
    the page computes exact means over any bins (``gridsim/data/explore/view.js``)."""
    times, values = timeline.axis(steps.times), steps.values / scale
    area = np.concatenate([[0.0], np.cumsum(values[:-1] * np.diff(times))])
    return {"t": times, "v": values, "area": area}


def explorer_document(
    jobs: pd.DataFrame,
    title: str,
    timeline: Timeline,
    machine: int | None = None,
    backend: str = "canvas",
    unavailable: pd.DataFrame | None = None,
    node_capacity: NodeCapacity | None = None,
    colour_by: str | None = None,
) -> Any:
    """The Bokeh document of one run's explorer (see the module docstring).

    ``colour_by``: a jobs table's energy column (``energy_kwh``, ``electricity_cost``,
    ``carbon_kg``): the jobs are coloured by it on a logarithmic ramp, with its colour bar
    (ExploreError if the run has no such column).

    ``node_capacity``: the cores, memory and GPUs of a run's nodes: its jobs can then be coloured
    and filtered by resource class, and a panel shows every resource's share in use
    (:mod:`gridsim.analysis.explore_resources`).

    ``unavailable``: a job flow's local load and outages (tasks table rows: ``node``,
    ``start``, ``end``), drawn grey under the jobs.

    ``backend`` "canvas" or "webgl": where the browser has no GPU (headless Chromium with
    ``--disable-gpu``), WebGL runs in software, and a pan of the whole KTH-SP2 log took
    137 ms a frame against 34 ms on the canvas (docs/analysis.md), so canvas is the default.
    """
    from bokeh.document import Document
    from bokeh.layouts import column, row
    from bokeh.models import (
        BooleanFilter,
        BoxZoomTool,
        CDSView,
        ColumnDataSource,
        CustomJS,
        Div,
        HoverTool,
        LinearColorMapper,
        PanTool,
        ResetTool,
        TapTool,
        TextInput,
        WheelZoomTool,
    )
    from bokeh.plotting import figure

    done = jobs[ran(jobs) & (jobs["allocated_resources"].fillna("") != "")]
    if done.empty:
        raise ExploreError("no job of this run ran on recorded nodes (record_nodes: false "
                           "leaves a replay's nodes out)")  # fmt: skip
    done = done.reset_index(drop=True)
    if colour_by is not None and (problem := explore_energy.missing_message(done, colour_by)):
        raise ExploreError(problem)
    shapes = rectangles(done)
    nodes = int(shapes["last"].max()) + 1
    x_type = "datetime" if timeline.dates else "linear"
    # A fixed range, not Bokeh's data range, which would re-fit to the data whenever the
    # outlines of a clicked job change and undo a search's zoom.
    first, last = timeline.axis(np.array(_run_extent(jobs, done)))
    pad = 0.01 * (last - first) or 1.0
    tools = dict(pan=PanTool(), wheel=WheelZoomTool(), box=BoxZoomTool(), reset=ResetTool())
    gantt = figure(title=title, x_axis_type=x_type, height=560, sizing_mode="stretch_width",
                   tools=list(tools.values()), output_backend=backend,
                   x_range=(first - pad, last + pad), y_range=(-0.5, nodes - 0.5),
                   lod_threshold=1000)  # fmt: skip
    gantt.toolbar.active_scroll = tools["wheel"]
    gantt.yaxis.axis_label = "node"
    gantt.xaxis.axis_label = "date (UTC)" if timeline.dates else f"time ({timeline.unit})"
    ids = done["job_id"].to_numpy(dtype=np.int64)
    on_resources = node_capacity is not None and has_resources(done)
    quads = ColumnDataSource({
        "left": timeline.axis(shapes["start"].to_numpy()),
        "right": timeline.axis(shapes["finish"].to_numpy()),
        "bottom": (shapes["first"].to_numpy() - 0.45).astype(np.float32),
        "top": (shapes["last"].to_numpy() + 0.45).astype(np.float32),
        "row": shapes["row"].to_numpy(dtype=np.int32),
        "colour": (ids[shapes["row"].to_numpy()] % len(JOB_COLOURS)).astype(np.uint8),
    })  # fmt: skip
    palette = [*JOB_COLOURS, *explore_resources.CLASS_COLOURS]
    job_codes = ids % len(JOB_COLOURS)
    if colour_by is not None:  # the ramp after the other colours
        values = done[colour_by].to_numpy(dtype=np.float64)
        value_range = explore_energy.value_range(values)
        job_codes = len(palette) + explore_energy.ramp_codes(values, *value_range)
        palette += explore_energy.ramp()
        quads.data["colour"] = quads.data["by_value"] = job_codes[shapes["row"]].astype(np.uint8)
        gantt.add_layout(explore_energy.colour_bar(colour_by, *value_range), "right")
    mapper = LinearColorMapper(palette=palette, low=-0.5, high=len(palette) - 0.5)
    view = {}
    if on_resources:  # colour codes by job and by class, and a filter by class
        classes = explore_resources.class_codes(done)
        quads.data["by_job"] = (ids[shapes["row"]] % len(JOB_COLOURS)).astype(np.uint8)
        quads.data["by_class"] = (len(JOB_COLOURS) + classes[shapes["row"]]).astype(np.uint8)
        view_filter = BooleanFilter(booleans=[True] * len(shapes))
        view = {"view": CDSView(filter=view_filter)}
    if unavailable is not None and not unavailable.empty:
        gantt.quad(left=timeline.axis(unavailable["start"].to_numpy()),
                   right=timeline.axis(unavailable["end"].to_numpy()),
                   bottom=unavailable["node"].to_numpy() - 0.45,
                   top=unavailable["node"].to_numpy() + 0.45, fill_color="#BBBBBB",
                   hatch_pattern="/", hatch_color="#888888", line_color=None,
                   legend_label="local load, outages")  # fmt: skip
        gantt.legend.location = "top_left"
    boxes = gantt.quad(source=quads, left="left", right="right", bottom="bottom", top="top",
                       fill_color={"field": "colour", "transform": mapper},
                       line_color="#333333", line_width=0.3, line_alpha=0.6,
                       selection_fill_alpha=1.0, nonselection_fill_alpha=0.18,
                       nonselection_line_alpha=0.1, **view)  # fmt: skip
    # Level of detail: a view holding more rectangles than a canvas redraws at once shows
    # the schedule as an image (each node's job at each of RASTER_BINS instants) and the
    # panels as means over as many bins, instead of every rectangle and step.
    first_x, last_x = float(quads.data["left"].min()), float(quads.data["right"].max())
    image = schedule_image(shapes, job_codes, palette, nodes, timeline, (first_x, last_x))
    raster = gantt.image_rgba(image=[image], x=first_x, y=-0.5, dw=last_x - first_x, dh=nodes)
    outlines = ColumnDataSource({"left": [], "right": [], "bottom": [], "top": [], "colour": []})
    gantt.quad(source=outlines, left="left", right="right", bottom="bottom", top="top",
               fill_alpha=0, line_color="colour", line_width=2.5)  # fmt: skip
    job_source = ColumnDataSource(_job_columns(done, timeline))
    if colour_by is not None:
        job_source.data["value"] = done[colour_by].to_numpy(dtype=np.float64)
    controls = []
    if on_resources:
        job_source.data["resources"] = explore_resources.tooltip_lines(done)
        controls = explore_resources.class_controls(boxes, quads, view_filter, classes,
                                                    colour_by)  # fmt: skip
    tooltip = Div(text="", visible=False, styles={"position": "fixed", "z-index": "10"},
                  name="gridsim-tooltip")  # fmt: skip
    status = Div(text=_summary(done, jobs), name="gridsim-status")
    search = TextInput(title="find a job by id", placeholder="job id, then Enter",
                       width=200, name="gridsim-search")  # fmt: skip
    busy_scale = float(machine or 1)
    series = [
        ("busy (share)" if machine else "processors busy",
         [("", processors_in_use(done), busy_scale, "#0072B2")]),
        ("waiting (jobs)", [("", queue_length(jobs), 1.0, "#D55E00")]),
    ]  # fmt: skip
    if on_resources:
        shares = explore_resources.resource_series(done, node_capacity)
        series.append(("share in use", [(name, steps, 1.0, c) for name, steps, c in shares]))
    panels, lines = [], []
    edges = np.linspace(*_run_extent(jobs, done), PANEL_BINS + 1)
    for label, drawn in series:
        panel = figure(x_axis_type=x_type, height=150 if len(drawn) == 1 else 190,
                       sizing_mode="stretch_width", x_range=gantt.x_range,
                       tools=[PanTool(), WheelZoomTool(), ResetTool()],
                       output_backend=backend)  # fmt: skip
        for name, steps, scale, colour in drawn:
            line = ColumnDataSource({"x": timeline.axis(edges[:-1]),
                                     "y": steps.binned_means(edges) / scale})  # fmt: skip
            legend = {"legend_label": name} if name else {}
            panel.step(source=line, x="x", y="y", mode="after", color=colour, line_width=1.2,
                       **legend)  # fmt: skip
            lines.append((ColumnDataSource(_steps_source(steps, timeline, scale)), line))
        if len(drawn) > 1:
            panel.legend.location, panel.legend.orientation = "top_left", "horizontal"
            panel.legend.label_text_font_size = "8pt"
        panel.yaxis.axis_label = label
        panel.toolbar.active_scroll = panel.tools[1]
        panels.append(panel)
    boxes.visible = len(shapes) <= DETAIL_RECTANGLES
    raster.visible = not boxes.visible
    switch = CustomJS(args={"boxes": boxes, "raster": raster, "range": gantt.x_range,
                            "whole": last_x - first_x, "count": len(shapes),
                            "limit": DETAIL_RECTANGLES, "lines": lines, "bins": PANEL_BINS},
                      code=_script("view.js"))  # fmt: skip
    gantt.x_range.js_on_change("start", switch)
    gantt.x_range.js_on_change("end", switch)
    code = _script("explorer.js")
    arguments = dict(quads=quads, jobs=job_source, outlines=outlines, tooltip=tooltip,
                     gantt=gantt, status=status, search=search, boxes=boxes,
                     raster=raster)  # fmt: skip
    value_label = explore_energy.COLOURINGS.get(colour_by or "", "").replace(" per job", "")
    setup = CustomJS(args={**arguments, "dates": timeline.dates, "unit": timeline.unit,
                           "states": list(STATES), "value_label": value_label},
                     code=code)  # fmt: skip
    gantt.add_tools(HoverTool(renderers=[boxes], tooltips=None, callback=CustomJS(
        args={"setup": setup}, code="setup.execute(null, {hover: cb_data})")))  # fmt: skip
    gantt.add_tools(TapTool(renderers=[boxes], callback=CustomJS(
        args={"setup": setup}, code="setup.execute(null, {tap: cb_data})")))  # fmt: skip
    search.js_on_change("value", CustomJS(
        args={"setup": setup}, code="setup.execute(null, {search: cb_obj.value})"))  # fmt: skip
    document = Document()
    top = [row(search, status), *([row(*controls)] if controls else [])]
    document.add_root(column(*top, gantt, *panels, tooltip, sizing_mode="stretch_width"))
    ready = CustomJS(args={"setup": setup}, code="setup.execute(null, {ready: true})")
    document.js_on_event("document_ready", ready)
    return document


def _script(name: str) -> str:
    """The page's JavaScript of ``gridsim/data/explore/<name>``."""
    return (resources.files("gridsim") / "data" / "explore" / name).read_text()


def _run_extent(jobs: pd.DataFrame, done: pd.DataFrame) -> tuple[float, float]:
    """From the first submission to the last finish (the run's times)."""
    return float(jobs["submit_time"].min()), float(done["finish_time"].max())


def schedule_image(
    shapes: pd.DataFrame, job_codes: np.ndarray, palette: list[str], nodes: int,
    timeline: Timeline, extent: tuple[float, float], bins: int = RASTER_BINS,
) -> np.ndarray:  # fmt: skip
    """The schedule as an RGBA image, a row per node and a column per instant (the middles
    of ``bins`` equal bins over ``extent``, axis units): the colour of the job holding that
    node then (``palette[job_codes[row]]``), white where it is idle."""
    image = np.full((nodes, bins), 0xFFFFFFFF, dtype=np.uint32)
    rgba = np.array([_rgba(colour) for colour in palette], dtype=np.uint32)
    middles = extent[0] + (np.arange(bins) + 0.5) * (extent[1] - extent[0]) / bins
    left = np.searchsorted(middles, timeline.axis(shapes["start"].to_numpy()), side="left")
    right = np.searchsorted(middles, timeline.axis(shapes["finish"].to_numpy()), side="left")
    colours = rgba[job_codes[shapes["row"].to_numpy()]]
    nodes_of = zip(shapes["first"].to_numpy(), shapes["last"].to_numpy(), strict=True)
    for (first, last), begin, end, colour in zip(nodes_of, left, right, colours, strict=True):
        image[first : last + 1, begin:end] = colour
    return image


def _rgba(colour: str) -> int:
    """``#RRGGBB`` as the little-endian RGBA word an image holds (opaque)."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return red | green << 8 | blue << 16 | 0xFF << 24


def selection_value(jobs: pd.DataFrame, column: str) -> Any:
    """The one value of ``column`` in one run's rows (None when the table has none)."""
    return jobs[column].iloc[0].item() if column in jobs.columns else None


def _job_columns(done: pd.DataFrame, timeline: Timeline) -> dict[str, Any]:
    """What a tooltip and the search read of each job (times as the axis shows them)."""
    state = done["final_state"].map({s: i for i, s in enumerate(STATES)}).fillna(0)
    return {
        "job_id": done["job_id"].to_numpy(dtype=np.int64),
        "user_id": done["user_id"].fillna(-1).to_numpy(dtype=np.int32),  # a model: none
        "submit": timeline.axis(done["submit_time"].to_numpy()),
        "start": timeline.axis(done["start_time"].to_numpy()),
        "finish": timeline.axis(done["finish_time"].to_numpy()),
        "wait": done["wait_time"].to_numpy(dtype=np.float64),
        "processors": done["processors"].to_numpy(dtype=np.int32),
        "cost": done["cost"].to_numpy(dtype=np.float64),
        "state": state.to_numpy(dtype=np.uint8),
        "nodes": done["allocated_resources"].astype(str).tolist(),
    }


def _summary(done: pd.DataFrame, jobs: pd.DataFrame) -> str:
    hidden = len(jobs) - len(done)
    rest = f"; {hidden} jobs that never ran are not drawn" if hidden else ""
    return (f"<b>{len(done):,}</b> jobs drawn{rest}. Wheel: zoom; drag: pan; hover a job; "
            "click it to outline the jobs it waited behind.")  # fmt: skip


def write_explorer(
    results: Any,
    path: Path,
    policy: str | None = None,
    selection: dict[str, Any] | None = None,
    title: str | None = None,
    colour_by: str | None = None,
) -> int:
    """Write the explorer of one run of ``results`` (a
    :class:`~gridsim.analysis.results.Results`) to ``path``: the run of ``policy`` and the
    ``selection`` (column -> value: replication, queue size, swept values); returns the
    number of jobs drawn; ``colour_by``: an energy column to colour the jobs by. ValueError
    when the selection matches no job."""
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    from gridsim.analysis.results import select_run
    from gridsim.experiments.kinds import declaration

    chosen = dict(selection or {})
    jobs = select_run(results.jobs, policy=policy, replication=chosen.pop("replication", None),
                      queue_size=chosen.pop("queue_size", None), run=chosen.pop("run", None),
                      what="jobs", point=chosen)  # fmt: skip
    kind = declaration(results.kind)
    scenario = results.metadata[0].get("scenario_resolved", {})
    timeline = Timeline(kind.time_unit, kind.time_origin(scenario))
    name = title or f"{results.metadata[0].get('scenario')}: {policy or jobs['policy'].iloc[0]}"
    unavailable = None
    if not results.tasks.empty:  # a job flow: its local load and outages
        tasks = select_run(results.tasks, policy=jobs["policy"].iloc[0],
                           replication=int(jobs["replication"].iloc[0]),
                           queue_size=selection_value(jobs, "queue_size"), what="tasks",
                           point=dict((selection or {}).items()))  # fmt: skip
        unavailable = tasks[tasks["job_id"] < 0]
    layout = explorer_document(jobs, name, timeline, kind.machine_size(scenario, results.runs),
                               unavailable=unavailable,
                               node_capacity=kind.node_capacity(scenario),
                               colour_by=colour_by)  # fmt: skip
    page = file_html(layout, INLINE, title=f"gridsim explore: {name}")
    path.write_text(page, encoding="utf-8")
    return int(ran(jobs).sum())
