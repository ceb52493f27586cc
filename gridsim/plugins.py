"""Policies from outside gridsim: ``module:Class`` references and installed entry points.

Consumes a name written in a scenario and the entry-point group of an extension point
(:data:`GROUPS`); produces the class it names, checked against that extension point's contract.
A name with a colon is a reference, ``"package.module:Class"``, imported from the environment
or from the working directory (put on ``sys.path`` as ``python -m`` does, so a single-file
plugin beside the scenario works); any other name is looked up among the entry points that
installed packages declare, e.g. in their ``pyproject.toml``::

    [project.entry-points."gridsim.criteria"]
    TightFinish = "gridsim_example_plugins.criteria:TightFinish"

Each extension point owns its contract (its base classes and the methods a plugin must write):
criteria in :mod:`gridsim.selection.criteria`, job-flow schedulers in
:mod:`gridsim.scheduling.queue_policies`; this module finds classes and checks them against a
contract table. Finding or checking fails with a :class:`PluginLoadError`, one line saying
what is wrong, which the scenario loader prefixes with the field; a plugin that misbehaves
while a simulation runs is stopped by the extension point's guard with a :class:`PluginError`
naming it (docs/extending.md).

Workers re-resolve plugins from the scenario's names (a scenario holds names, never classes),
so every process checks the same contract; they inherit ``sys.path`` from the parent.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import os
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

#: Entry-point group of each extension point.
GROUPS = {"criterion": "gridsim.criteria", "scheduler": "gridsim.schedulers"}

#: A contract: for each accepted base class, the methods a plugin must define and the
#: arguments (after ``self``) each is called with, a trailing ``=`` marking one passed by
#: keyword; most specific base first.
Contract = Sequence[tuple[type, Mapping[str, tuple[str, ...]]]]


class PluginLoadError(ValueError):
    """A plugin named in a scenario cannot be found, or its class breaks its contract."""


class PluginError(RuntimeError):
    """A plugin broke its contract while running (an infeasible result or an exception)."""


def is_reference(name: str) -> bool:
    """Whether ``name`` is a ``module:Class`` reference (built-in names have no colon)."""
    return ":" in name


def find_class(name: str, group: str) -> type | None:
    """The class ``name`` refers to: a reference or an entry point of ``group``; None if
    ``name`` is neither (an unknown built-in name, for the caller to report)."""
    if is_reference(name):
        return _as_class(load_reference(name), name)
    entry_point = installed(group).get(name)
    if entry_point is None:
        return None
    try:
        loaded = entry_point.load()
    except (Exception, SystemExit) as error:  # whatever the package's import raises
        raise PluginLoadError(
            f"entry point {name!r} ({entry_point.value}, group {group}) cannot be loaded: "
            f"{one_line(error)}"
        ) from None
    return _as_class(loaded, f"{name} ({entry_point.value})")


def installed(group: str) -> dict[str, metadata.EntryPoint]:
    """The entry points installed packages declare in ``group``, by name."""
    return {entry_point.name: entry_point for entry_point in metadata.entry_points(group=group)}


def load_reference(reference: str) -> Any:
    """The object ``"package.module:Attribute"`` names (``Attribute`` may be dotted)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute or ":" in attribute:
        raise PluginLoadError(f"expected 'package.module:Class', got {reference!r}")
    _working_directory_on_path()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise PluginLoadError(
                f"{reference}: no module named {error.name!r} (not installed, and no "
                f"{error.name.replace('.', '/')}.py in the working directory)"
            ) from None
        raise PluginLoadError(f"{reference}: importing it failed: {one_line(error)}") from None
    except (Exception, SystemExit) as error:  # a syntax error, a failing import, sys.exit
        raise PluginLoadError(f"{reference}: importing it failed: {one_line(error)}") from None
    found: Any = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            names = [n for n in dir(found) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise PluginLoadError(f"{reference}: {module_name} has no {part!r}{hint}")
        found = getattr(found, part)
    return found


def check_contract(cls: type, contract: Contract, what: str, shown: str) -> type:
    """``cls`` if it meets ``contract``; else a PluginLoadError naming what is missing.

    Checks: ``cls`` extends one of the contract's bases; every method that base asks for is
    defined by ``cls`` (not left to the base, whose version only raises
    NotImplementedError) and accepts the arguments the caller passes.
    """
    matching = [(base, methods) for base, methods in contract if issubclass(cls, base)]
    if not matching:
        bases = " or ".join(f"{b.__module__}.{b.__qualname__}" for b, _ in contract)
        raise PluginLoadError(f"{shown} is not a {what}: expected a subclass of {bases}")
    base, methods = matching[0]
    for method, arguments in methods.items():
        own = getattr(cls, method, None)
        if own is None or own is getattr(base, method, None):
            raise PluginLoadError(f"{shown} does not define {method}{_signature(arguments)}")
        try:
            positional = [a for a in arguments if not a.endswith("=")]
            keywords = {a[:-1]: None for a in arguments if a.endswith("=")}
            inspect.signature(own).bind(None, *positional, **keywords)
        except TypeError:
            raise PluginLoadError(
                f"{shown}.{method} must accept {_signature(arguments)}, "
                f"it takes {inspect.signature(own)}"
            ) from None
        except ValueError:  # no signature to read (a builtin): trust it
            pass
    return cls


def check_frozen_dataclass(cls: type, shown: str) -> None:
    """Parameters are dataclass fields, set once: the class must be ``@dataclass(frozen=True)``
    itself (a subclass without the decorator would silently drop its own fields)."""
    params = cls.__dict__.get("__dataclass_params__")
    if params is None or not dataclasses.is_dataclass(cls):
        raise PluginLoadError(f"{shown} must be decorated with @dataclass(frozen=True)")
    if not params.frozen:
        raise PluginLoadError(f"{shown} must be a frozen dataclass: @dataclass(frozen=True)")


def plugin_name(cls: type, written: str) -> str:
    """The name a plugin appears under in result tables: the entry point's name as written,
    or, for a reference, the class's own ``name`` attribute or else its class name."""
    if not is_reference(written):
        return written
    own = cls.__dict__.get("name")
    return own if isinstance(own, str) and own else cls.__name__


def _as_class(found: Any, shown: str) -> type:
    if not isinstance(found, type):
        raise PluginLoadError(f"{shown} names a value of type {type(found).__name__}, not a class")
    return found


def _signature(arguments: tuple[str, ...]) -> str:
    return f"({', '.join(a.removesuffix('=') for a in arguments)})"


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _working_directory_on_path() -> None:
    """Make modules in the working directory importable, as ``python -m`` does."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)
