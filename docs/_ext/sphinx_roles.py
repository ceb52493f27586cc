"""Griffe extension for the documentation site: Sphinx cross-reference roles in docstrings
(``:func:`gridsim.x.f```, ``:class:`~gridsim.model.Node```) become mkdocstrings
cross-references, so they render as links, and one that names nothing fails the strict
build. A leading ``~`` shows only the last name, as in Sphinx. A name that is not a full
path is looked up as Python would from the docstring's object (its class, its module and
the module's imports), then among the members of the module's classes."""

from __future__ import annotations

import re
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


def _resolve(obj: griffe.Object, target: str) -> str:
    collection = obj.modules_collection
    head, _, rest = target.partition(".")
    scope: griffe.Object | None = obj
    while scope is not None:  # the object, its class, its module, ...
        found = _find(collection, f"{scope.path}.{head}")
        if found is not None:
            return f"{found}.{rest}" if rest else found
        scope = scope.parent
    if _find(collection, target) is not None:
        return target
    for member in obj.module.members.values():  # a method or attribute named alone
        if not member.is_alias and member.is_class and not rest and head in member.members:
            return f"{member.path}.{head}"
    return target  # unresolved: autorefs names it and the strict build fails


class SphinxRoles(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None or ":`" not in obj.docstring.value:
            return

        def link(match: re.Match[str]) -> str:
            short, target = match.groups()
            path = _resolve(obj, target)
            return f"[`{target.rsplit('.', 1)[-1] if short else target}`][{path}]"

        obj.docstring.value = _ROLE.sub(link, obj.docstring.value)
