"""Recorded results folders of log replays: what `gridsim run` of an ``swf_replay`` scenario
writes, file by file, as pandas reads it back.

``tests/data/replay_files.json`` holds, per case (a scenario run into a folder) and file:
the Arrow schema (types without metadata), the columns and dtypes pandas reads and a SHA-256
of every column's values (floats by their bits), and of ``metadata.json`` the fields that do
not change from run to run. Wall-clock columns (``replay_time_s``, ``replay_cpu_s``,
``jobs_per_second`` and their summaries) are recorded by name and type only.
``test_replay_files.py`` checks that a run writes exactly these files.

Record again (only when a change of the tables is intended and explained):
``python tests/swfreplay/replay_files.py --record``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import sys
from pathlib import Path

import numpy as np

from gridsim.cli import main as gridsim
from gridsim.workloads.swf import bundled_swf

RECORD = Path(__file__).resolve().parents[1] / "data" / "replay_files.json"
#: Columns measured on a wall clock or a processor clock: never the same twice.
CLOCKS = ("replay_time_s", "replay_cpu_s", "jobs_per_second")
#: Manifest fields that differ from run to run (times, paths, the command, versions).
VOLATILE = {"history", "command", "git_commit", "dependencies", "gridsim_version",
            "scenario_text", "scenario_hash", "identity", "scenario_resolved"}  # fmt: skip

SWEEP = """
name: replay-sweep
kind: swf_replay
workload: {path: LOG, max_jobs: 250}
schedulers: [easy, conservative]
sweep:
  bounded_slowdown_threshold: [10.0, 60.0]
"""

#: Axes of a type Arrow tables do not take as they are (text, integers with a missing value).
NULLABLE_SWEEP = """
name: replay-nullable-sweep
kind: swf_replay
workload: {path: LOG, max_jobs: 200}
schedulers: [fcfs, conservative]
sweep:
  workload.mapping.processors: [requested, allocated]
  workload.mapping.machine_processors: [64, null]
"""

#: case -> (scenario or None for the bundled one, gridsim run options).
CASES: dict[str, tuple[str | None, list[str]]] = {
    "pyss-convention": ("swf-replay", [
        "--set", "schedulers=[conservative]", "--set", "record_nodes=false",
        "--set", "workload.mapping.processors=allocated",
        "--set", "workload.mapping.larger_than_machine=clip", "--set", "workload.max_jobs=400"]),
    "three-schedulers": ("swf-replay", [
        "-r", "2", "--set", "workload.max_jobs=600",
        "--set", "workload.mapping.machine_processors=64"]),
    "sweep": (SWEEP, ["-r", "2"]),
    "nullable-sweep": (NULLABLE_SWEEP, []),
    # the other engines: nodes that differ, cores/memory/GPUs, a power model and cap
    "heterogeneous": ("swf-replay-heterogeneous", ["--set", "workload.max_jobs=120"]),
    "gpu-cluster": ("gpu-cluster", ["--set", "workload.jobs=120"]),
    "memory-bound": ("memory-bound", ["--set", "workload.max_jobs=150"]),
    "energy-power-cap": ("energy-power-cap", ["--set", "workload.max_jobs=120"]),
}  # fmt: skip


def run_case(name: str, folder: Path) -> Path:
    """Run case ``name`` into ``folder``/``name`` in this process; the results folder."""
    scenario, options = CASES[name]
    if scenario is not None and "\n" in scenario:
        path = folder / f"{name}.yaml"
        path.write_text(scenario.replace("LOG", str(bundled_swf())))
        scenario = str(path)
    out = folder / name
    try:
        gridsim([("run"), scenario, "-q", "-j", "1", *options, "-o", str(out)])
    except SystemExit as stop:
        assert not stop.code, stop.code
    return out


def _digest(values) -> str:
    """SHA-256 of a column as pandas reads it: floats and integers by their bytes, anything
    else by its text (missing values as ``<NA>``)."""
    array = np.asarray(values)
    if array.dtype.kind in "fiub":
        return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()
    text = "\x1f".join("<NA>" if value is None or value != value else str(value)
                       for value in array.tolist())  # fmt: skip
    return hashlib.sha256(text.encode()).hexdigest()


def _csv_text_digest(text: str) -> str:
    """SHA-256 of a CSV file's text as written (number formats too), clock columns left out."""
    rows = list(csv.reader(io.StringIO(text)))
    keep = [i for i, name in enumerate(rows[0]) if not name.startswith(CLOCKS)]
    kept = "\n".join(",".join(row[i] for i in keep) for row in rows)
    return hashlib.sha256(kept.encode()).hexdigest()


def _frame_record(frame) -> dict:
    return {
        "columns": [str(c) for c in frame.columns],
        "dtypes": [str(t) for t in frame.dtypes],
        "rows": len(frame),
        "values": {
            str(c): _digest(frame[c].to_numpy())
            for c in frame.columns
            if not str(c).startswith(CLOCKS)
        },
    }


def folder_record(folder: Path) -> dict:
    """What the folder holds, file by file (see the module docstring)."""
    import pandas as pd
    import pyarrow.parquet as pq

    record = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.suffix == ".parquet":
            schema = pq.read_schema(path).remove_metadata().to_string()
            record[name] = {"arrow": schema, **_frame_record(pd.read_parquet(path))}
        elif path.suffix == ".csv":
            text = path.read_text()
            record[name] = {
                **_frame_record(pd.read_csv(io.StringIO(text))),
                "text": _csv_text_digest(text),
            }
        elif path.name == "metadata.json":
            manifest = json.loads(path.read_text())
            record[name] = {k: v for k, v in manifest.items() if k not in VOLATILE}
            record[name]["keys"] = sorted(manifest)
            record[name]["history_keys"] = sorted(manifest["history"][-1])
    return record


def cases_record(folder: Path) -> dict:
    return {name: folder_record(run_case(name, folder)) for name in CASES}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write the record anew")
    args = parser.parse_args(argv)
    if args.record:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            record = cases_record(Path(folder))
        RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print(f"recorded {RECORD}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
