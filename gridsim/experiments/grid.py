"""Parameter grids: one scenario file, many complete scenarios (its points).

Consumes a scenario document (YAML mapping) that may hold a ``sweep:`` section -- dotted field
paths mapped to lists of values, crossed as a Cartesian product -- and a ``zip:`` section --
lists of equal length that vary together (one mapping, or a list of mappings for several
groups). Produces an :class:`Experiment`: the points in order, each a scenario of its kind
validated in full before anything runs, so a bad point fails at once, named by its path and
value (``sweep: environment.nodes=-3: environment.nodes: must be greater than 0``).

A kind may declare list fields that are sweeps already (``GRID_SHORTHANDS`` in its module, e.g.
job flows' ``queue_sizes: [50, 100]`` is ``sweep: {queue_size: [50, 100]}``): the list becomes
an axis named by the singular, and each point holds a one-element list. Old scenarios keep
working, and the swept value is one more point column.

Points are ordered as written: ``sweep:`` axes first (the first varies slowest), then ``zip:``
groups, then shorthand axes. Each point's values become columns (named by the path) in every
result table; an axis's values are made one column type (integers among floats become floats,
a mixture of text and numbers becomes text) so that tables of different points concatenate.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gridsim.config import ScenarioError

if TYPE_CHECKING:
    from gridsim.experiments.overrides import Override

#: Fields that belong to the experiment as a whole, not to a point.
NOT_SWEEPABLE = {
    "name": "it names the experiment",
    "kind": "one experiment has one kind",
    "seed": "it picks the random numbers of every point (use --seed)",
    "replications": "every point runs the same replications (use --replications)",
    "sweep": "it is the grid itself",
    "zip": "it is the grid itself",
}
#: Most points of one grid: each is validated and recorded before anything runs (90,000
#: points of a window search took 46 s and 630 MB to validate); more is a typo.
MAX_POINTS = 100_000
#: Fields left out of the scenario's identity (they change no number in any table).
NOT_IDENTITY = ("seed", "replications", "description")


@dataclass(frozen=True)
class Axis:
    """Paths that vary together (one for a ``sweep:`` entry, several for a ``zip:`` group)
    and their steps, each a mapping ``{path: value}``."""

    paths: tuple[str, ...]
    steps: tuple[dict[str, Any], ...]

    @classmethod
    def single(cls, path: str, values: Sequence[Any]) -> Axis:
        return cls((path,), tuple({path: value} for value in values))


@dataclass(frozen=True)
class Point:
    """One complete scenario of a grid: its index, its swept values, the validated scenario."""

    index: int
    values: dict[str, Any]
    scenario: Any

    def label(self) -> str:
        """``path=value, ...`` (``(single point)`` when nothing is swept)."""
        if not self.values:
            return "(single point)"
        return ", ".join(f"{path}={_text(value)}" for path, value in self.values.items())


@dataclass(frozen=True)
class Experiment:
    """A scenario file expanded into its points, with what every point shares.

    Attributes:
        text: the YAML as given (recorded beside the results).
        axes: swept paths in column order.
        points: the grid's points in order; one point with no values when nothing is swept.
        overrides: the ``--set PATH=VALUE`` applied to the file, as given.
    """

    name: str
    kind: str
    seed: int
    replications: int
    text: str
    axes: tuple[str, ...]
    points: tuple[Point, ...]
    overrides: tuple[str, ...] = ()

    @property
    def scenario(self) -> Any:
        """The first point's scenario (for what all points share: kind, policies, baseline)."""
        return self.points[0].scenario

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same experiment: every point's resolved scenario, less the
        seed, the replication count and the description."""
        return {
            "kind": self.kind,
            "axes": list(self.axes),
            "points": [canonical_scenario(point.scenario) for point in self.points],
        }

    def scenario_hash(self) -> str:
        """SHA-256 of :meth:`identity` as canonical JSON."""
        text = json.dumps(self.identity(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def columns(self, point: Point) -> list[tuple[str, Any, str]]:
        """``point``'s table columns: (path, value, pandas dtype), one dtype per axis so that
        every chunk's tables have the same column types."""
        columns = []
        for path in self.axes:
            values, dtype = column_of([p.values[path] for p in self.points])
            columns.append((path, values[point.index], dtype))
        return columns


def canonical_scenario(scenario: Any) -> dict[str, Any]:
    """A scenario's resolved fields (defaults filled in) less those outside its identity."""
    dumped = scenario.model_dump(exclude=set(NOT_IDENTITY))
    return json.loads(json.dumps(dumped, sort_keys=True, default=str))


def load_experiment(source: Any, overrides: tuple[Override, ...] = ()) -> Experiment:
    """The experiment of a scenario file (a path or YAML text), every point validated;
    ``overrides`` (``--set``, :mod:`gridsim.experiments.overrides`) are set first."""
    from gridsim.experiments.kinds import KINDS
    from gridsim.experiments.overrides import check_not_swept, named_by, read_scenario

    model, document, text = read_scenario(source, overrides)
    shorthands = getattr(KINDS[document["kind"]].load(), "GRID_SHORTHANDS", {})
    base, axes = parse_grid(document, shorthands)
    check_not_swept(overrides, (path for axis in axes for path in axis.paths))
    base = _resolved(model, base) if axes else base
    points = []
    with named_by(overrides):
        for index, values in enumerate(expand(axes)):
            point_document = copy.deepcopy(base)
            for path, value in values.items():
                if path in shorthands:
                    point_document[shorthands[path]] = [value]
                else:
                    set_path(point_document, path.split("."), value, where=f"sweep: {path}")
            scenario = _validate_point(model, point_document, values)
            points.append(Point(index, values, scenario))
    _check_distinct(points)
    return _experiment(points, axes, text, tuple(override.text for override in overrides))


def experiment_of(scenario: Any, text: str) -> Experiment:
    """The experiment of one validated scenario object (its shorthand lists expanded)."""
    from gridsim.experiments.kinds import kind_module

    shorthands = getattr(kind_module(scenario), "GRID_SHORTHANDS", {})
    axes = [
        Axis.single(axis, getattr(scenario, field))
        for axis, field in shorthands.items()
        if len(getattr(scenario, field)) > 1
    ]
    points = [
        Point(index, values,
              scenario.model_copy(update={shorthands[a]: [v] for a, v in values.items()}))
        for index, values in enumerate(expand(axes))
    ]  # fmt: skip
    return _experiment(points, axes, text)


def _experiment(points: list[Point], axes: Sequence[Axis], text: str,
                overrides: tuple[str, ...] = ()) -> Experiment:  # fmt: skip
    first = points[0].scenario
    return Experiment(
        name=first.name,
        kind=first.kind,
        seed=first.seed,
        replications=first.replications,
        text=text,
        axes=tuple(path for axis in axes for path in axis.paths),
        points=tuple(points),
        overrides=overrides,
    )


def parse_grid(
    document: dict[str, Any], shorthands: dict[str, str] | None = None
) -> tuple[dict[str, Any], list[Axis]]:
    """The document without its grid sections, and the grid's axes.

    The kind's shorthand lists (``{axis: field}``, e.g. ``{"queue_size": "queue_sizes"}``)
    become axes named by the singular; a point sets the field to a one-element list.
    """
    base = {k: v for k, v in document.items() if k not in ("sweep", "zip")}
    axes: list[Axis] = []
    sweep = document.get("sweep") or {}
    if not isinstance(sweep, dict):
        raise ScenarioError("sweep: expected a mapping of field paths to lists of values")
    for path, values in sweep.items():
        axes.append(Axis.single(_checked_path(path, "sweep"), _values(values, f"sweep: {path}")))
    groups = document.get("zip") or []
    groups = [groups] if isinstance(groups, dict) else groups
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise ScenarioError("zip: expected a mapping of field paths to lists of equal length")
    for group in groups:
        axes.append(_zip_axis(group))
    for axis, field in (shorthands or {}).items():
        if isinstance(base.get(field), list) and len(base[field]) > 1:
            if any({axis, field} & set(existing.paths) for existing in axes):
                raise ScenarioError(f"{field}: also swept; give the values in one place")
            axes.append(Axis.single(axis, base[field]))
    seen: set[str] = set()
    for axis in axes:
        repeated = set(axis.paths) & seen
        if repeated:
            raise ScenarioError(f"sweep: {sorted(repeated)[0]} is swept twice")
        seen |= set(axis.paths)
    count = math.prod(len(axis.steps) for axis in axes)
    if count > MAX_POINTS:
        sizes = " x ".join(str(len(axis.steps)) for axis in axes)
        raise ScenarioError(f"sweep: {count:,} points ({sizes}); at most {MAX_POINTS:,} in one "
                            "experiment")  # fmt: skip
    return base, axes


def expand(axes: Sequence[Axis]) -> list[dict[str, Any]]:
    """The Cartesian product of the axes as ``{path: value}`` mappings (zip groups spread)."""
    points = []
    for combination in itertools.product(*(axis.steps for axis in axes)):
        values: dict[str, Any] = {}
        for step in combination:
            values.update(step)
        points.append(values)
    return points


def set_path(document: Any, keys: list[str], value: Any, where: str) -> None:
    """Set ``value`` at a dotted path of a YAML document, creating missing sections; a list
    index may be a number or ``*`` (every element)."""
    node = document
    for position, key in enumerate(keys[:-1]):
        if key == "*" and isinstance(node, list):
            for element in node:
                set_path(element, keys[position + 1 :], value, where)
            return
        node = _child(node, key, where)
    last = keys[-1]
    if isinstance(node, list):
        node[_index(node, last, where)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise ScenarioError(f"{where}: {'.'.join(keys[:-1])} is not a section")


def column_of(values: list[Any]) -> tuple[list[Any], str]:
    """Values of one axis as one column type, and its pandas dtype: bools, integers, floats
    (integers among floats become floats) or text (anything else, as compact JSON). ``None``
    stays missing; an axis with a missing value gets a nullable dtype."""
    present = [v for v in values if v is not None]
    missing = len(present) < len(values)
    if present and all(isinstance(v, bool) for v in present):
        return values, "boolean" if missing else "bool"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return values, "Int64" if missing else "int64"
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return [float("nan") if v is None else float(v) for v in values], "float64"
    text = [v if isinstance(v, str) or v is None else _text(v) for v in values]
    return text, "string" if missing else "object"


# ---- helpers -------------------------------------------------------------------------------


def _zip_axis(group: dict[str, Any]) -> Axis:
    lists = {
        _checked_path(path, "zip"): _values(values, f"zip: {path}")
        for path, values in group.items()
    }
    if not lists:
        raise ScenarioError("zip: an empty group; give field paths with lists of values")
    lengths = {path: len(values) for path, values in lists.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{path} has {n}" for path, n in lengths.items())
        raise ScenarioError(f"zip: lists must have equal lengths ({detail})")
    steps = tuple(
        dict(zip(lists, combination, strict=True))
        for combination in zip(*lists.values(), strict=True)
    )
    return Axis(tuple(lists), steps)


def _checked_path(path: Any, section: str) -> str:
    if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
        raise ScenarioError(f"{section}: {path!r} is not a dotted field path")
    head = path.split(".")[0]
    if head in NOT_SWEEPABLE:
        raise ScenarioError(f"{section}: {path} cannot be swept: {NOT_SWEEPABLE[head]}")
    return path


def _values(values: Any, where: str) -> tuple[Any, ...]:
    if not isinstance(values, list) or not values:
        raise ScenarioError(f"{where}: expected a non-empty list of values, got {values!r}")
    return tuple(values)


def _resolved(model: Any, document: dict[str, Any]) -> dict[str, Any]:
    """The document with every default filled in, when it is valid without the grid: a path
    into a section the file leaves out then changes that one field, not the section's other
    defaults (a kind's default environment is not a bare ``EnvironmentConfig()``)."""
    from gridsim.config import validate
    from gridsim.experiments.overrides import plain

    try:
        # plain(): frozen sections (providers, node_classes) dump as tuples, which a path
        # cannot enter; as lists, their elements can be set
        resolved = plain(validate(model, document).model_dump())
        validate(model, resolved)
    except ScenarioError:
        return document
    return resolved


def _validate_point(model: Any, document: dict[str, Any], values: dict[str, Any]) -> Any:
    from gridsim.config import validate
    from gridsim.experiments.feasibility import check_feasible

    try:
        scenario = validate(model, document)
        check_feasible(scenario)
        return scenario
    except ScenarioError as error:
        if not values:
            raise
        named = ", ".join(f"{path}={_text(value)}" for path, value in values.items())
        raise ScenarioError(f"sweep point {named}: {error}") from None


def _check_distinct(points: list[Point]) -> None:
    seen: dict[str, Point] = {}
    for point in points:
        key = json.dumps(canonical_scenario(point.scenario), sort_keys=True)
        if key in seen:
            raise ScenarioError(
                f"sweep: points {seen[key].label()} and {point.label()} are the same scenario "
                "(a value repeated in a list?)"
            )
        seen[key] = point


def _child(node: Any, key: str, where: str) -> Any:
    if isinstance(node, list):
        return node[_index(node, key, where)]
    if not isinstance(node, dict):
        raise ScenarioError(f"{where}: {key} is inside a value that is not a section")
    child = node.setdefault(key, {})
    if child is None:
        child = node[key] = {}
    if not isinstance(child, dict | list):
        raise ScenarioError(f"{where}: {key} is not a section")
    return child


def _index(node: list, key: str, where: str) -> int:
    try:
        index = int(key)
        node[index]
    except (ValueError, IndexError):
        raise ScenarioError(
            f"{where}: {key!r} is not an index of a list of {len(node)} items"
        ) from None
    return index


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), default=str)
