"""What a results folder's ``metadata.json`` must hold before gridsim reads or resumes it.

Consumes the parsed manifest of a results folder (written by
:func:`gridsim.experiments.runner.new_manifest` and the store); produces the same manifest,
or a one-line :class:`~gridsim.experiments.store.StoreError` naming the file and the field a
hand edit (or a damaged copy) made unusable. Checked here, once, so that ``report``,
``gantt``, ``export``, ``merge``, ``status`` and a resumed ``run`` all fail the same way
instead of on whichever key they read first.

Two kinds of check: the types of the fields gridsim reads (:class:`Manifest`), and, for
result stores, that the recorded experiment is the one its hash was computed from (the
``identity`` hashes to ``scenario_hash``; ``scenario_resolved`` is the identity's first
point). Folders of the earlier layout (one file per table) need only a known ``kind``.

Also the versions a manifest records (:func:`installed_versions`): the same scenario and seed
give the same tables bit for bit only with the same Python and dependencies, so every run
records them, ``gridsim status`` shows them, and a run resumed with others says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import platform
import re
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

#: Fields every result store's manifest has (the earlier layout may lack them).
STORE_FIELDS = ("scenario", "seed", "scenario_hash", "gridsim_version", "axes", "points")

Count = Annotated[StrictInt, Field(ge=0)]
#: Replications per point: point number (as text) -> ``[[first, last], ...]``.
CellRanges = dict[StrictStr, list[tuple[Count, Count]]]


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class PointEntry(_Loose):
    """One point of the grid: its number and the swept values."""

    point: Count


class Manifest(_Loose):
    """The fields of ``metadata.json`` gridsim reads, with their types (others are kept)."""

    kind: StrictStr
    store_format: StrictInt | None = None
    jobs_schema: Annotated[StrictInt, Field(ge=1)] | None = None
    scenario: StrictStr | None = None
    seed: Count | None = None
    scenario_hash: StrictStr | None = None
    gridsim_version: StrictStr | None = None
    axes: list[StrictStr] = []
    points: list[PointEntry] = []
    scenario_text: StrictStr | None = None
    scenario_resolved: dict[str, Any] = {}
    identity: dict[str, Any] | None = None
    planned: CellRanges = {}
    done: CellRanges = {}
    dependencies: dict[StrictStr, StrictStr] = {}
    history: list[dict[str, Any]] = []
    status: StrictStr | None = None
    error: StrictStr | None = None
    command: StrictStr | None = None
    replications_requested: Count | None = None
    replications_completed: Count | None = None
    tables: list[StrictStr] = []
    rejections: list[dict[str, Any]] = []


def check_manifest(path: Path, manifest: Any, integrity: bool = True) -> dict[str, Any]:
    """``manifest`` (read from ``path``) if gridsim can use it; StoreError naming the field
    otherwise. ``integrity=False`` skips the identity checks (a resumed run rewrites those
    fields from the scenario it runs)."""
    from gridsim.config import format_validation_error
    from gridsim.experiments.kinds import KINDS
    from gridsim.experiments.store import STORE_FORMAT, StoreError

    def fail(what: str) -> StoreError:
        return StoreError(f"{path}: {what}")

    if not isinstance(manifest, dict):
        raise fail(f"expected a JSON object, got {type(manifest).__name__}")
    try:
        read = Manifest.model_validate(manifest)
    except ValidationError as error:
        raise fail(format_validation_error(error, Manifest)) from None
    if read.kind not in KINDS:
        raise fail(f"kind: {read.kind!r} is not a scenario kind (one of {', '.join(KINDS)})")
    from gridsim.sim.trace import JOBS_SCHEMA

    if read.jobs_schema is not None and read.jobs_schema > JOBS_SCHEMA:
        raise fail(f"jobs_schema: {read.jobs_schema} is newer than this gridsim reads "
                   f"({JOBS_SCHEMA}); read it with the gridsim that wrote it")  # fmt: skip
    if read.store_format is None:
        if (Path(path).parent / "runs").is_dir():  # chunk tables: the store layout
            raise fail("store_format: missing (required in a results folder)")
        return manifest
    if read.store_format != STORE_FORMAT:
        raise fail(f"store_format: {read.store_format} is not one this gridsim reads "
                   f"({STORE_FORMAT})")  # fmt: skip
    missing = [name for name in STORE_FIELDS if name not in manifest]
    if missing:
        raise fail(f"{missing[0]}: missing (required in a results folder)")
    _check_cells(read, fail)
    if integrity:
        _check_identity(manifest, fail)
    return manifest


def _check_cells(read: Manifest, fail) -> None:
    for index, point in enumerate(read.points):
        if point.point != index:
            raise fail(f"points.{index}.point: expected {index}, got {point.point}")
    for field in ("planned", "done"):
        for point, ranges in getattr(read, field).items():
            if not point.isdigit() or int(point) >= len(read.points):
                raise fail(f"{field}: {point!r} is not a point of this experiment "
                           f"(0 to {len(read.points) - 1})")  # fmt: skip
            for first, last in ranges:
                if first > last:
                    raise fail(f"{field}.{point}: the range [{first}, {last}] is reversed")


def _check_identity(manifest: dict[str, Any], fail) -> None:
    """The experiment recorded is the one ``scenario_hash`` names (no field edited)."""
    from gridsim.experiments.grid import NOT_IDENTITY
    from gridsim.experiments.store import first_difference

    identity = manifest.get("identity")
    if identity is None:  # written before identities were recorded
        return
    text = json.dumps(identity, sort_keys=True, default=str)
    if hashlib.sha256(text.encode()).hexdigest() != manifest["scenario_hash"]:
        raise fail("identity: does not match scenario_hash (edited by hand?); run the "
                   "scenario into a new folder")  # fmt: skip
    for field in ("kind", "axes"):
        if identity.get(field) != manifest.get(field):
            recorded = json.dumps(identity.get(field))
            raise fail(f"{field}: {json.dumps(manifest.get(field))} differs from the "
                       f"experiment's ({recorded}, identity.{field})")  # fmt: skip
    points = identity.get("points") or []
    if len(points) != len(manifest["points"]):
        raise fail(f"points: {len(manifest['points'])} points, the experiment has "
                   f"{len(points)} (identity.points)")  # fmt: skip
    resolved = manifest.get("scenario_resolved")
    if resolved and points:
        shown = {k: v for k, v in resolved.items() if k not in NOT_IDENTITY}
        shown = json.loads(json.dumps(shown, sort_keys=True, default=str))
        difference = first_difference(points[0], shown, "in the experiment", "here")
        if difference:
            raise fail(f"scenario_resolved.{difference} (edited by hand?)")
    name = (points[0] if points else {}).get("name")
    if name is not None and manifest["scenario"] != name:
        raise fail(f"scenario: {manifest['scenario']!r}, but the experiment is named {name!r}")


# ---- versions -----------------------------------------------------------------------------

#: Recorded besides gridsim's own requirements when installed (the ``dev`` extra).
OPTIONAL_VERSIONS = ("scipy",)
#: What manifests written before ``dependencies`` recorded, at their top level.
EARLIER_VERSION_FIELDS = ("python", "numpy")


def installed_versions() -> dict[str, str]:
    """The Python version and the installed version of every requirement of gridsim (and of
    :data:`OPTIONAL_VERSIONS` present), by distribution name."""
    try:
        requirements = metadata.requires("gridsim-sched") or []
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        requirements = []
    names = [re.split(r"[\s\[<>=!~;]", line, maxsplit=1)[0] for line in requirements
             if "extra ==" not in line]  # fmt: skip
    versions = {"python": platform.python_version()}
    for name in sorted({*names, *OPTIONAL_VERSIONS}, key=str.lower):
        with contextlib.suppress(metadata.PackageNotFoundError):  # an optional one missing
            versions[name] = metadata.version(name)
    return versions


def manifest_versions(manifest: dict[str, Any]) -> dict[str, str]:
    """The versions of a folder's latest run: its ``dependencies``, or for a manifest written
    before that field, the Python and NumPy versions it recorded."""
    if manifest.get("dependencies"):
        return dict(manifest["dependencies"])
    return {name: str(manifest[name]) for name in EARLIER_VERSION_FIELDS if manifest.get(name)}


def version_changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """``name old -> new`` for each package both record at different versions."""
    return [f"{name} {before[name]} -> {after[name]}" for name in before
            if name in after and before[name] != after[name]]  # fmt: skip


def format_versions(versions: dict[str, str]) -> str:
    return ", ".join(f"{name} {version}" for name, version in versions.items()) or "not recorded"


def resumed_with_other_versions(manifest: dict[str, Any], now: dict[str, str]) -> str | None:
    """How the versions of a folder's earlier runs (each history entry's, or for a folder
    written before entries recorded them, its top-level Python and NumPy) differ from
    ``now``, as ``name old -> new, ...``; None if they do not."""
    earlier = [entry["dependencies"] for entry in manifest.get("history") or []
               if entry.get("dependencies")]  # fmt: skip
    if not earlier:
        earlier = [{name: str(manifest[name]) for name in EARLIER_VERSION_FIELDS
                    if manifest.get(name)}]  # fmt: skip
    changes = dict.fromkeys(c for versions in earlier for c in version_changes(versions, now))
    return ", ".join(changes) or None
