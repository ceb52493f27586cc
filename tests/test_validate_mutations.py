"""Valid scenarios, mutated (a key dropped or renamed, a value of another type, a number out
of range): ``gridsim validate`` accepts the result or refuses it in one line, never with a
traceback."""

from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path

import yaml
from click.testing import CliRunner
from document_mutations import mutate
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


@st.composite
def mutated_scenarios(draw) -> tuple[str, str]:
    """A repository scenario with one to three mutations; its YAML text and what was done."""
    name = draw(st.sampled_from(sorted(DOCUMENTS)))
    document = copy.deepcopy(DOCUMENTS[name])
    done = [name, *mutate(draw, document)]
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
