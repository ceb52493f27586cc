"""Scenario files: YAML in, validated typed objects out, errors that name the field.

Consumes a YAML document (a path or text); produces the scenario object of its ``kind`` (see
:mod:`gridsim.experiments.kinds`). Validation happens once, here: unknown keys, wrong types and
out-of-range values become a :class:`ScenarioError` whose one-line message names the field's
path, e.g. ``environment.nodes: must be greater than 0 (got -3)``. A misspelt key is named
before the required key it hides (``request.budjet: unknown field; did you mean 'budget'?``).

The YAML reader is PyYAML's safe loader (YAML 1.1) with two changes: numbers in exponent form
(``1e3``, ``2.5E-4``) are numbers, as in YAML 1.2, and a key given twice in one mapping is an
error naming both lines. Numbers and booleans are strict: ``nodes: true``, ``nodes: "10"`` and
``record_nodes: 1`` are errors rather than 1, 10 and true, and ``.inf`` and ``.nan`` are refused
wherever a number is expected. Quote ``"no"``, ``"on"`` and ``"yes"`` where text is meant.
"""

from __future__ import annotations

import difflib
import math
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)


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


#: Most replications one run plans: each is a cell the runner tracks (a million already take
#: hours for the fastest kind); more is a typo, refused before memory fills with the plan.
MAX_REPLICATIONS = 1_000_000


class ScenarioBase(Strict):
    """Fields every scenario has, whatever its kind."""

    name: str = Field(min_length=1)
    kind: str
    description: str = ""
    seed: int = Field(0, ge=0)
    replications: int = Field(1, ge=1, le=MAX_REPLICATIONS)

    @field_validator("name")
    @classmethod
    def _folder_name(cls, value: str) -> str:
        """The name is the results folder's (``results/<name>``): one folder, inside it."""
        separator = any(c in value for c in "/\\")
        if separator or value.strip() in (".", "..") or not value.isprintable():
            raise ValueError(
                f"{value!r} cannot be the folder results/<name>; give one "
                "folder name (no / or \\, no control character, not . or ..)"
            )
        return value


#: A number in exponent form, which YAML 1.1 reads as text unless it has a dot and a signed
#: exponent (``1.0e+3``); YAML 1.2 and most users read ``1e3`` as a thousand.
_EXPONENT_NUMBER = re.compile(
    r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$"
)


class ScenarioLoader(yaml.SafeLoader):
    """PyYAML's safe loader, reading exponent-form numbers as numbers and refusing a key
    given twice in one mapping (PyYAML keeps the last silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # keys merged in with << may be overridden: that is what << is for
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in first_line:
                    raise ScenarioError(f"line {line}: duplicate key {key!r} "
                                        f"(first given at line {first_line[key]})")  # fmt: skip
                first_line[key] = line
            except TypeError:  # an unhashable key: the constructor names it below
                break
        return super().construct_mapping(node, deep=deep)


ScenarioLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", _EXPONENT_NUMBER, list("-+.0123456789")
)


def read_yaml(source: str | Path) -> tuple[dict[str, Any], str]:
    """The YAML mapping and its text, from a path or from YAML text (read with
    :class:`ScenarioLoader`)."""
    text = _read_text(source)
    try:
        document = yaml.load(text, Loader=ScenarioLoader)  # a SafeLoader: no arbitrary objects
        size = _expanded_size(document, {})
    except RecursionError:
        raise ScenarioError("lists or mappings nested too deeply to read (hundreds of levels)"
                            ) from None  # fmt: skip
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        context, start = getattr(error, "context", None), getattr(error, "context_mark", None)
        if context and start and mark and start.line != mark.line:  # where the bad part began
            problem += f" ({context} at line {start.line + 1})"
        raise ScenarioError(f"malformed YAML{where}: {problem}") from None
    if document is None:
        raise ScenarioError("the file is empty; a scenario is a YAML mapping (key: value lines)")
    if not isinstance(document, dict):
        raise ScenarioError("a scenario must be a YAML mapping (key: value lines)")
    if size > MAX_VALUES:
        raise ScenarioError(f"aliases (*name) expand the scenario to {size:,} values; at most "
                            f"{MAX_VALUES:,} are read")  # fmt: skip
    return document, text


#: Most values (scalars, lists, mappings) a scenario may expand to once its aliases are
#: followed: an alias repeats a whole section, so nine levels of nine repeats are 387 million
#: values (every check after reading would walk them, for hours).
MAX_VALUES = 1_000_000


def _expanded_size(node: Any, seen: dict[int, int]) -> int:
    """How many values ``node`` holds with every alias followed (``seen``: sizes of the
    sections already counted, which aliases share)."""
    if not isinstance(node, dict | list):
        return 1
    if id(node) not in seen:
        children = node.items() if isinstance(node, dict) else enumerate(node)
        seen[id(node)] = 1 + sum(_expanded_size(child, seen) for _, child in children)
    return seen[id(node)]


def validate(model: type[BaseModel], document: dict[str, Any]) -> Any:
    """``model`` validated from ``document``; the first error becomes a ScenarioError, as does
    a boolean or text where a number is expected, a number where true/false is, and an
    infinite or NaN number (the schema alone would read them as 1, the number, or true)."""
    try:
        validated = model.model_validate(document)
    except ValidationError as error:
        raise ScenarioError(format_validation_error(error, model)) from None
    loose = next(_loose_scalars(document, validated), None)
    if loose is not None:
        raise ScenarioError(loose)
    return validated


def _loose_scalars(given: Any, read: Any, path: str = "", default: Any = None) -> Iterator[str]:
    """Messages for the scalars of ``given`` (the YAML) that the schema read as another type
    (``read``: the validated model), walking both together. A value equal to its field's
    default is left alone (an infinite default budget written back by a grid)."""
    if isinstance(given, dict) and isinstance(read, BaseModel):
        fields = type(read).model_fields
        for key, value in given.items():
            if key in fields:
                where = f"{path}.{key}" if path else str(key)
                yield from _loose_scalars(value, getattr(read, key), where, fields[key].default)
        return
    if isinstance(given, dict) and isinstance(read, dict):
        for key, value in given.items():
            if key in read:
                yield from _loose_scalars(value, read[key], f"{path}.{key}" if path else str(key))
        return
    if isinstance(given, list) and isinstance(read, list | tuple) and len(given) == len(read):
        for index, (value, value_read) in enumerate(zip(given, read, strict=True)):
            yield from _loose_scalars(value, value_read, f"{path}.{index}")
        return
    number_read = isinstance(read, int | float) and not isinstance(read, bool)
    where = path or "(top level)"
    if number_read and isinstance(given, bool | str):
        hint = " (write numbers without quotes)" if isinstance(given, str) else ""
        yield f"{where}: expected a number, got {_as_yaml(given)}{hint}"
    elif isinstance(read, bool) and not isinstance(given, bool):
        yield f"{where}: expected true or false, got {_as_yaml(given)}"
    elif number_read and isinstance(given, float) and not math.isfinite(given) and given != default:
        yield f"{where}: expected a finite number, got {_as_yaml(given)}"


def _as_yaml(value: Any) -> str:
    """A scalar as it would be written in the scenario (``true``, ``.inf``, ``'10'``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else ("-.inf" if value < 0 else ".inf")
    return repr(value)


def format_validation_error(error: ValidationError, model: type[BaseModel] | None = None) -> str:
    """One line: the path of the first bad field and what is wrong with it. Unknown keys come
    first (a misspelt key hides the required one it was meant to be), with the closest known
    key of ``model`` at that place."""
    errors = sorted(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
    first = errors[0]
    path = _path(first["loc"])
    message = first["msg"]
    if first["type"] in ("model_type", "dict_type", "model_attributes_type"):
        message = "expected a mapping (key: value lines)"
    elif first["type"] in ("list_type", "tuple_type"):
        message = "expected a list ([a, b] or - lines)"
    if first["type"] == "extra_forbidden":
        message = "unknown field (misspelt, or not allowed here)"
        location = tuple(part for part in first["loc"][:-1] if not _union_member(part))
        known = _field_names(model, location) if model else []
        close = difflib.get_close_matches(str(first["loc"][-1]), known, n=1)
        message += f"; did you mean {close[0]!r}?" if close else ""
    elif first["type"] == "missing":
        message = "missing (required)"
    elif "input" in first and _worth_showing(first["input"], first["type"], message):
        message = f"{message} (got {_as_yaml(first['input'])})"
    message = message.removeprefix("Value error, ")
    others = [other for other in dict.fromkeys(_path(e["loc"]) for e in errors[1:])
              if other != path]  # fmt: skip
    more = f" (and {len(others)} more: {', '.join(others[:3])}{', ...' * (len(others) > 3)})"
    where = "" if not first["loc"] else f"{path}: "  # a whole-scenario check names its fields
    return f"{where}{message}{more if others else ''}"


def _path(location: tuple[Any, ...]) -> str:
    """A pydantic error location as a YAML path, without the names of union members
    (``policies.0.str`` is ``policies.0``)."""
    parts = [str(part) for part in location if not _union_member(part)]
    return ".".join(parts) or "(top level)"


def _union_member(part: Any) -> bool:
    text = str(part)
    return "[" in text or text in ("str", "int", "float", "bool", "dict", "list", "tuple")


def _worth_showing(given: Any, error_type: str, message: str) -> bool:
    """Whether to quote the input of an error: a scalar the message does not already quote,
    or a short list or mapping where another type was expected (not a whole section a
    validator already described)."""
    if isinstance(given, str):
        return given not in message
    if not isinstance(given, dict | list):
        return True
    return error_type.endswith("_type") and len(repr(given)) <= 60


def _field_names(model: type[BaseModel], location: tuple[Any, ...]) -> list[str]:
    """The field names of the section of ``model`` at ``location`` (a pydantic error's
    ``loc`` less its last part); empty where that section is not a model."""
    current: Any = model
    for part in location:
        current = _model_in(current, None if isinstance(part, int) else str(part))
        if current is None:
            return []
    current = _model_in(current, None)
    return list(current.model_fields) if current is not None else []


def _model_in(annotation: Any, field: str | None) -> Any:
    """The model class reached from ``annotation`` through ``field`` (None: through list or
    optional wrappers only)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if field is None:
            return annotation
        info = annotation.model_fields.get(field)
        return info.annotation if info is not None else None
    if field is not None and (typing.get_origin(annotation) is None):
        return None
    for argument in typing.get_args(annotation):
        if argument is not type(None) and argument is not Ellipsis:
            found = _model_in(argument, field)
            if found is not None:
                return found
    return None


#: Largest scenario file read (bytes): scenarios are a few kB; a larger file is the wrong one
#: (a log, a device such as /dev/zero that never ends).
MAX_SCENARIO_BYTES = 10_000_000


def _read_text(source: str | Path) -> str:
    if isinstance(source, Path) or "\n" not in str(source):
        path = Path(source)
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_SCENARIO_BYTES + 1)
            if len(data) > MAX_SCENARIO_BYTES:
                raise ScenarioError(f"cannot read {path}: larger than {MAX_SCENARIO_BYTES:,} "
                                    "bytes; a scenario is a short YAML file")  # fmt: skip
            return data.decode("utf-8")
        except FileNotFoundError:
            raise ScenarioError(f"scenario file not found: {path}") from None
        except IsADirectoryError:
            raise ScenarioError(f"cannot read {path}: it is a folder") from None
        except UnicodeDecodeError as error:
            byte = f"byte {error.object[error.start]:#04x} at {error.start}"
            raise ScenarioError(f"cannot read {path}: not UTF-8 text ({byte})") from None
        except OSError as error:
            raise ScenarioError(f"cannot read {path}: {error.strerror or error}") from None
    return str(source)
