"""What ``gridsim validate --json``, ``gridsim status --json`` and ``gridsim run --json`` print.

Consumes an experiment (validate), a results folder (status) or a finished run (run);
produces one JSON object each, the whole of stdout, documented field by field in
docs/scripting.md. Numbers are exact (a float prints as Python's shortest repr); a missing
value (NaN) is ``null``. Fields may be added in later versions, never renamed or removed.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gridsim.analysis.tables import Table
    from gridsim.experiments.grid import Experiment
    from gridsim.experiments.runner import ExperimentResult


#: What ``status`` copies from the manifest: the experiment, and what ran it.
RECORDED = ("scenario", "kind", "seed", "scenario_hash", "gridsim_version", "git_commit",
            "python", "numpy")  # fmt: skip


def dumps(record: dict[str, Any]) -> str:
    """The record as indented JSON (no NaN or infinity: those are ``null``)."""
    return json.dumps(_plain(record), indent=2, allow_nan=False)


def validate_record(scenario: str, experiment: Experiment) -> dict[str, Any]:
    """What a scenario runs: its policies (or schedulers), points and runs."""
    model = experiment.scenario
    written = model.model_dump(mode="json")
    scheduler = written.get("scheduler")
    return {
        "scenario": scenario,
        "name": experiment.name,
        "kind": experiment.kind,
        "seed": experiment.seed,
        "replications": experiment.replications,
        "policies": written["policies"] if "policies" in written else [written["policy"]],
        "schedulers": written.get("schedulers") or ([scheduler] if scheduler else []),
        "axes": list(experiment.axes),
        "points": [{"point": p.index, "values": p.values} for p in experiment.points],
        "runs": len(experiment.points) * experiment.replications,
        "overrides": list(experiment.overrides),
    }


def status_record(folder: Path) -> dict[str, Any]:
    """What a results folder holds: cells done and missing per point, damaged files, and
    every invocation recorded."""
    from gridsim.experiments import cells
    from gridsim.experiments.folders import store_manifest
    from gridsim.experiments.store import (
        committed_chunks,
        damaged_files,
        done_cells,
        planned_cells,
    )

    manifest = store_manifest(folder)
    done, planned = done_cells(folder), planned_cells(manifest)
    points = []
    for point in manifest["points"]:
        index = point["point"]
        has = done.get(index, set())
        missing = planned.get(index, set()) - has
        points.append({
            "point": index,
            "values": {key: value for key, value in point.items() if key != "point"},
            "done": len(has),
            "missing": len(missing),
            "done_ranges": cells.ranges(has),
            "missing_ranges": cells.ranges(missing),
        })  # fmt: skip
    damaged = damaged_files(folder, committed_chunks(folder))
    return {
        "folder": str(folder),
        **{key: manifest.get(key) for key in RECORDED},
        "axes": manifest.get("axes", []),
        "points": points,
        "cells_done": sum(point["done"] for point in points),
        "cells_missing": sum(point["missing"] for point in points),
        "damaged": [{"file": str(path), "why": why} for path, why in damaged],
        "history": manifest.get("history", []),
    }


def run_record(experiment: Experiment, result: ExperimentResult) -> dict[str, Any]:
    """A run's outcome: where its tables are, its summary (as ``summary.csv``), the paired
    comparison and what the runs could not do."""
    paired = result.tables.frames.get("paired")
    metadata = result.metadata
    return {
        "folder": None if result.out_dir is None else str(result.out_dir),
        "status": result.status,
        "error": result.error,
        "scenario": experiment.name,
        "kind": experiment.kind,
        "seed": metadata.get("seed"),
        "axes": list(experiment.axes),
        "points": len(experiment.points),
        "replications_completed": metadata.get("replications_completed"),
        "cells_run": result.cells_run,
        "cells_skipped": result.cells_skipped,
        "overrides": list(experiment.overrides),
        "summary": records(result.summary),
        "paired": records(paired) if paired is not None else [],
        "rejections": metadata.get("rejections") or [],
    }


def records(frame: Table) -> list[dict[str, Any]]:
    """A table's rows (a DataFrame or an Arrow table) as JSON objects, column -> value."""
    from gridsim.analysis.tables import rows

    return list(rows(frame))


def _plain(value: Any) -> Any:
    """``value`` with NumPy scalars as Python numbers and NaN, infinity and pandas' missing
    values as None, recursively."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    import numpy as np

    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    pandas = sys.modules.get("pandas")  # none of its values exist unless it was imported
    if pandas is not None and (value is pandas.NA or value is pandas.NaT):
        return None
    return value
