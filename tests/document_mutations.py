"""Mutations of a valid document (a scenario, a results folder's metadata.json): a key
dropped or renamed, a value of another type, a number out of range. Shared by the property
tests that check gridsim refuses each in one line, never with a traceback."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

OTHER_TYPES = ["text", True, None, [], {}, [1, 2], {"x": 1}, 3, 2.5]
OUT_OF_RANGE = [-1, 0, -0.5, -1e9, 1e30, 2**63, 1e-300, float("nan"), float("inf")]


def places(node: Any, path: tuple = ()) -> list[tuple]:
    """Every key or list position of ``node``, as a path from the document's top."""
    found = []
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in children:
        found.append((*path, key))
        if isinstance(child, dict | list):
            found += places(child, (*path, key))
    return found


def parent(document: Any, path: tuple) -> Any:
    for key in path[:-1]:
        document = document[key]
    return document


def mutate(draw, document: Any, at_most: int = 3) -> list[str]:
    """Make one to ``at_most`` mutations of ``document`` in place; what was done."""
    done = []
    for _ in range(draw(st.integers(1, at_most))):
        targets = places(document)
        if not targets:
            break
        path = draw(st.sampled_from(targets))
        container, key = parent(document, path), path[-1]
        mutation = draw(st.sampled_from(["drop", "retype", "out of range", "rename"]))
        if mutation == "drop":
            del container[key]
        elif mutation == "retype":
            container[key] = copy.deepcopy(draw(st.sampled_from(OTHER_TYPES)))
        elif mutation == "out of range":
            container[key] = draw(st.sampled_from(OUT_OF_RANGE))
        elif isinstance(container, dict):
            typo = draw(st.sampled_from([key + "s", key[:-1], key.upper(), "_" + key]))
            container[typo] = container.pop(key)
        done.append(f"{mutation} {'.'.join(map(str, path))}")
    return done
