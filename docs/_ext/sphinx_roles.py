"""Griffe extension for the documentation site: Sphinx cross-reference roles in docstrings
(``:func:`gridsim.x.f```, ``:class:`~gridsim.model.Node```) become mkdocstrings
cross-references, so they render as links, and one that names nothing fails the strict
build. A leading ``~`` shows only the last name, as in Sphinx; a leading ``.`` is relative to
the docstring's object (``:mod:`.catalogue``` in a package's docstring). A name that is not a
full path is looked up as Python would from the docstring's object (its class, its module and
the module's imports), then among the members of the module's classes.

The site leaves out private objects (``filters: ["!^_"]``), so a reference to one that exists
is shown as code without a link; a private name that exists nowhere still fails the build.

Roles are rewritten once the whole package is loaded (``on_package``), so a reference to a
module loaded after the docstring's own resolves like any other."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any

import griffe

_ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc|obj):`(~?)([\w.]+)`")


def _find(collection, path: str) -> str | None:
    """The path of the documented object ``path`` names (through imports), if any."""
    try:
        found = collection[path]
    except (KeyError, ValueError):
        return None
    try:
        return found.final_target.path if found.is_alias else found.path
    except griffe.AliasResolutionError:
        return None


def _resolve(obj: griffe.Object, target: str) -> tuple[str, bool]:
    """(the full path ``target`` names from ``obj``, whether that object exists)."""
    collection = obj.modules_collection
    head, _, rest = target.removeprefix(".").partition(".")
    scope: griffe.Object | None = obj
    while scope is not None:  # the object, its class, its module, ...
        found = _find(collection, f"{scope.path}.{head}")
        if found is not None:
            path = f"{found}.{rest}" if rest else found
            return path, _find(collection, path) is not None
        scope = scope.parent
    if _find(collection, target) is not None:
        return target, True
    for member in obj.module.members.values():  # a method or attribute named alone
        if not member.is_alias and member.is_class and not rest and head in member.members:
            return f"{member.path}.{head}", True
    return target, False  # unresolved: autorefs names it and the strict build fails


def _private(path: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in path.split("."))


def _documented(obj: griffe.Object) -> Iterator[griffe.Object]:
    """``obj`` and every object defined in it (imported names are documented where defined)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _documented(member)


class SphinxRoles(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _documented(pkg):
            if obj.docstring is not None and ":`" in obj.docstring.value:
                obj.docstring.value = _ROLE.sub(partial(_link, obj), obj.docstring.value)


def _link(obj: griffe.Object, match: re.Match[str]) -> str:
    """The Markdown of one role found in ``obj``'s docstring."""
    short, target = match.groups()
    path, exists = _resolve(obj, target)
    shown = target.rsplit(".", 1)[-1] if short else target.removeprefix(".")
    if exists and _private(path):
        return f"`{shown}`"  # left out of the site: nothing to link to
    return f"[`{shown}`][{path}]"
