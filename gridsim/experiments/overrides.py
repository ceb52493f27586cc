"""Scenario overrides: ``--set path=value`` (and ``overrides={path: value}`` in Python).

Consumes a scenario document and overrides, each a dotted field path (the paths of
``sweep:``, :mod:`gridsim.experiments.grid`: list elements by index or ``*``) and a value;
produces the document with each value set, in order, before the scenario is validated. The
file's defaults are filled in first, as for a sweep, so a path into a section the file leaves
out changes that one field and the section keeps the kind's other defaults. A scenario made
invalid by an override fails validation like any other, its message prefixed with the
overrides (``--set environment.nodes=0: environment.nodes: Input should be greater than 0``).

Unlike a sweep, an override may set ``seed``, ``replications`` and ``name``: it changes the
experiment, not one point of it. ``kind`` (it picks the schema) and the grid sections
themselves cannot be set, nor a path the scenario also sweeps (the sweep would overwrite it).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from gridsim.config import ScenarioError, ScenarioLoader, read_yaml

#: Top-level fields an override cannot set, and why.
NOT_SETTABLE = {
    "kind": "it picks the scenario's schema; write another scenario",
    "sweep": "the grid is written in the scenario file",
    "zip": "the grid is written in the scenario file",
}


@dataclass(frozen=True)
class Override:
    """One field set from outside the file: its dotted ``path``, the ``value``, and ``text``,
    the override as given (``seed=3``), which names it in errors and in the run history."""

    path: str
    value: Any
    text: str

    @property
    def keys(self) -> list[str]:
        return self.path.split(".")


def parse_override(item: str) -> Override:
    """``PATH=VALUE`` from the command line, the value read as YAML (``seed=3`` is a number,
    ``policies=[MaxQ, MinCost]`` a list, ``arrivals.span=null`` none)."""
    path, separator, value = item.partition("=")
    if not separator or not path.strip():
        raise ScenarioError(f"--set {item}: expected PATH=VALUE, e.g. environment.nodes=32")
    try:
        parsed = yaml.load(value, Loader=ScenarioLoader)  # a SafeLoader
    except (yaml.YAMLError, ScenarioError):
        raise ScenarioError(f"--set {item}: the value is not valid YAML") from None
    return _checked(Override(path.strip(), parsed, item))


def overrides_of(given: Mapping[str, Any] | Iterable[str] | None) -> tuple[Override, ...]:
    """Overrides from a mapping ``{path: value}`` (Python) or ``PATH=VALUE`` texts (the
    command line)."""
    if given is None:
        return ()
    if isinstance(given, Mapping):
        values = {str(path): plain(value) for path, value in given.items()}
        return tuple(_checked(Override(path, value, f"{path}={_text(value)}"))
                     for path, value in values.items())  # fmt: skip
    return tuple(parse_override(item) for item in ([given] if isinstance(given, str) else given))


def read_scenario(source: Any, overrides: tuple[Override, ...] = ()) -> tuple[Any, dict, str]:
    """The scenario model of ``source``'s kind, its document with ``overrides`` applied, and
    the YAML text as given."""
    from gridsim.experiments.kinds import scenario_model

    document, text = read_yaml(source)
    model = scenario_model(document.get("kind"))
    if overrides:
        document = apply_overrides(model, document, overrides)
    return model, document, text


def apply_overrides(model: Any, document: dict[str, Any],
                    overrides: tuple[Override, ...]) -> dict[str, Any]:  # fmt: skip
    """``document`` with its defaults filled in (when it is valid without the overrides)
    and every override set, in order; the grid sections are kept as written."""
    from gridsim.experiments.grid import _resolved, set_path

    grid = {key: document[key] for key in ("sweep", "zip") if key in document}
    changed = _resolved(model, {k: v for k, v in document.items() if k not in grid})
    for override in overrides:
        set_path(changed, override.keys, override.value, where=f"--set {override.text}")
    return {**changed, **grid}


def check_not_swept(overrides: tuple[Override, ...], axes: Iterable[str]) -> None:
    """ScenarioError for an override that a swept path would overwrite at every point."""
    swept = [axis.split(".") for axis in axes]
    for override in overrides:
        for keys in swept:
            if override.keys[: len(keys)] == keys:
                raise ScenarioError(f"--set {override.text}: {'.'.join(keys)} is swept by the "
                                    "scenario; change the sweep instead")  # fmt: skip


@contextlib.contextmanager
def named_by(overrides: tuple[Override, ...]) -> Iterator[None]:
    """Prefix a ScenarioError raised inside with the overrides (validation errors of a
    scenario they changed)."""
    try:
        yield
    except ScenarioError as error:
        if not overrides:
            raise
        shown = " ".join(f"--set {override.text}" for override in overrides)
        raise ScenarioError(f"{shown}: {error}") from None


def _checked(override: Override) -> Override:
    keys = override.keys
    if not all(keys):
        raise ScenarioError(f"--set {override.text}: {override.path!r} is not a dotted field "
                            "path")  # fmt: skip
    if keys[0] in NOT_SETTABLE:
        raise ScenarioError(f"--set {override.text}: {keys[0]} cannot be set: "
                            f"{NOT_SETTABLE[keys[0]]}")  # fmt: skip
    return override


def plain(value: Any) -> Any:
    """Python data as YAML holds it: tuples as lists, NumPy scalars as Python numbers."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    import numpy as np

    return value.item() if isinstance(value, np.generic) else value


def _text(value: Any) -> str:
    """A value as ``--set`` would take it (YAML in flow style: ``3``, ``x``, ``[10, 20]``)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=math.inf).strip()
    return text.removesuffix("...").strip()  # the end of a document holding a plain scalar
