"""Valid scenarios, mutated (a key dropped or renamed, a value of another type, a number out
of range): ``gridsim validate`` accepts the result or refuses it in one line, never with a
traceback."""

from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridsim.cli import main

REPOSITORY = Path(__file__).resolve().parents[1]
DOCUMENTS = {
    path.name: yaml.safe_load(path.read_text())
    for path in sorted((REPOSITORY / "scenarios").glob("*.yaml"))
}
DOCUMENTS["quickstart.yaml"] = yaml.safe_load(
    resources.files("gridsim").joinpath("data/quickstart.yaml").read_text()
)
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


@st.composite
def mutated_scenarios(draw) -> tuple[str, str]:
    """A repository scenario with one to three mutations; its YAML text and what was done."""
    name = draw(st.sampled_from(sorted(DOCUMENTS)))
    document = copy.deepcopy(DOCUMENTS[name])
    done = [name]
    for _ in range(draw(st.integers(1, 3))):
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
    return yaml.safe_dump(document, sort_keys=False), "; ".join(done)


@settings(max_examples=60, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(mutated_scenarios())
def test_validate_of_a_mutated_scenario_exits_0_or_2_in_one_line(tmp_path, case):
    text, mutations = case
    path = tmp_path / "mutated.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code in (0, 2), (mutations, result.output, result.exception)
    assert "Traceback" not in result.output, mutations
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"gridsim: error: {path}: "), (
            mutations, result.stderr,
        )  # fmt: skip
