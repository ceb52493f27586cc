"""Scenario files: YAML in, validated typed objects out, errors that name the field.

Consumes a YAML document (a path or text); produces the scenario object of its ``kind`` (see
:mod:`gridsim.experiments.kinds`). Validation happens once, here: unknown keys, wrong types and
out-of-range values become a :class:`ScenarioError` whose one-line message names the field's
path, e.g. ``environment.nodes: must be greater than 0 (got -3)``.

YAML 1.1 caveats (PyYAML): write ``1.0e3`` rather than ``1e3`` (read as text), quote ``"no"``
and ``"on"``; numbers given as text are still coerced by the schema where unambiguous.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class ScenarioError(ValueError):
    """A scenario cannot be read or is invalid; the message is meant for the user as is."""


class Strict(BaseModel):
    """Base of every scenario section: frozen, and unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Range(Strict):
    """A closed interval ``[low, high]`` for a uniform draw."""

    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.high < self.low:
            raise ValueError(f"high ({self.high}) is below low ({self.low})")
        return self

    def as_tuple(self) -> tuple[float, float]:
        return (self.low, self.high)


class ScenarioBase(Strict):
    """Fields every scenario has, whatever its kind."""

    name: str = Field(min_length=1)
    kind: str
    description: str = ""
    seed: int = Field(0, ge=0)
    replications: int = Field(1, ge=1)


def read_yaml(source: str | Path) -> tuple[dict[str, Any], str]:
    """The YAML mapping and its text, from a path or from YAML text."""
    text = _read_text(source)
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ScenarioError(f"malformed YAML{where}: {problem}") from None
    if not isinstance(document, dict):
        raise ScenarioError("a scenario must be a YAML mapping (key: value lines)")
    return document, text


def validate(model: type[BaseModel], document: dict[str, Any]) -> Any:
    """``model`` validated from ``document``; the first error becomes a ScenarioError."""
    try:
        return model.model_validate(document)
    except ValidationError as error:
        raise ScenarioError(format_validation_error(error)) from None


def format_validation_error(error: ValidationError) -> str:
    """One line: the path of the first bad field and what is wrong with it."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"]) or "(top level)"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field (misspelt, or not allowed here)"
    elif first["type"] == "missing":
        message = "missing (required)"
    elif (
        "input" in first
        and not isinstance(first["input"], dict | list)
        and str(first["input"]) not in message  # a message naming the input says enough
    ):
        message = f"{message} (got {first['input']!r})"
    message = message.removeprefix("Value error, ")
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{path}: {message}{more}"


def _read_text(source: str | Path) -> str:
    if isinstance(source, Path) or "\n" not in str(source):
        path = Path(source)
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ScenarioError(f"scenario file not found: {path}") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ScenarioError(f"cannot read {path}: {error}") from None
    return str(source)
