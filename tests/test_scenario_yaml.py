"""Reading scenario YAML: exponent-form numbers, duplicate keys, strict numbers and booleans,
and misspelt keys named before the required keys they hide."""

from __future__ import annotations

import pytest

from gridsim.config import ScenarioError, read_yaml
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.kinds import load_scenario

WINDOW_SEARCH = """\
name: tiny
kind: window_search
environment: {nodes: 10, horizon: 300}
request: {n: 2, volume: 100, budget: 500}
policies: [FirstFit]
"""


def scenario(old: str, new: str) -> str:
    assert old in WINDOW_SEARCH
    return WINDOW_SEARCH.replace(old, new)


@pytest.mark.parametrize(
    ("written", "value"),
    [("1e3", 1000.0), ("1E3", 1000.0), ("1.5e-3", 0.0015), ("-2.5E+4", -25000.0),
     (".5e1", 5.0), ("1_000", 1000), ("1.0e+3", 1000.0), ("1000", 1000)],
)  # fmt: skip
def test_numbers_in_exponent_form_are_numbers(written, value):
    document, _ = read_yaml(f"a: {written}\nb: 2\n")
    assert document["a"] == value and type(document["a"]) is type(value)


def test_text_that_only_looks_like_a_number_stays_text():
    document, _ = read_yaml("a: 1e\nb: e3\nc: 1.2.3e4\nd: '1e3'\n")
    assert document == {"a": "1e", "b": "e3", "c": "1.2.3e4", "d": "1e3"}


def test_a_scenario_may_give_its_volume_in_exponent_form():
    loaded, _ = load_scenario(scenario("volume: 100", "volume: 1e2"))
    assert loaded.request.volume == 100.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: a\nkind: b\nname: c\n", "line 3: duplicate key 'name' (first given at line 1)"),
        ("outer:\n  x: 1\n  y: 2\n  x: 3\n", "line 4: duplicate key 'x' (first given at line 2)"),
        ("- {a: 1, a: 2}\n", "line 1: duplicate key 'a' (first given at line 1)"),
    ],
)
def test_a_key_given_twice_is_refused_naming_both_lines(text, message):
    with pytest.raises(ScenarioError) as raised:
        read_yaml(text)
    assert str(raised.value) == message


def test_keys_merged_in_may_be_overridden():
    document, _ = read_yaml("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 3\n")
    assert document["other"] == {"x": 3, "y": 2}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("nodes: 10", "nodes: true", "environment.nodes: expected a number, got true"),
        ("volume: 100", 'volume: "100"',
         "request.volume: expected a number, got '100' (write numbers without quotes)"),
        ("volume: 100", "volume: .inf", "request.volume: expected a finite number, got .inf"),
        ("budget: 500", "budget: .nan",
         "request.budget: Input should be greater than 0 (got .nan)"),
        ("n: 2", "n: [2]", "request.n: Input should be a valid integer (got [2])"),
    ],
)  # fmt: skip
def test_numbers_are_strict(old, new, message):
    with pytest.raises(ScenarioError) as raised:
        load_scenario(scenario(old, new))
    assert str(raised.value).startswith(message), str(raised.value)


@pytest.mark.parametrize(("written", "shown"), [("1", "1"), ("'yes'", "'yes'"), ("0.0", "0.0")])
def test_booleans_are_strict(written, shown):
    text = "name: replay\nkind: swf_replay\nschedulers: [fcfs]\nrecord_nodes: " + written
    with pytest.raises(ScenarioError) as raised:
        load_scenario(text + "\n")
    assert str(raised.value) == f"record_nodes: expected true or false, got {shown}"


def test_a_misspelt_key_is_named_before_the_required_key_it_hides():
    with pytest.raises(ScenarioError) as raised:
        load_scenario(scenario("budget: 500", "budjet: 500"))
    assert str(raised.value) == (
        "request.budjet: unknown field (misspelt, or not allowed here); did you mean "
        "'budget'? (and 1 more: request.budget)"
    )


def test_a_misspelt_key_in_a_list_of_sections_gets_a_suggestion():
    text = WINDOW_SEARCH + "sweep: {request.volume: [100, 200]}\n"
    text = text.replace("environment: {nodes: 10, horizon: 300}", "environment: {nodes: 10, "
                        "horizon: 300, local_load: {max_utilisaton: 0.1}}")  # fmt: skip
    with pytest.raises(ScenarioError, match=r"environment\.local_load\.max_utilisaton: unknown "
                       r"field .*did you mean 'max_utilisation'\?"):  # fmt: skip
        load_experiment(text)


@pytest.mark.parametrize("name", ["../../x", "/tmp/x", "a/b", "a\\\\b", ".", "..", " .. ", "a\\tb"])
def test_a_name_that_is_not_one_folder_inside_results_is_refused(name):
    with pytest.raises(ScenarioError, match=r"^name: .* cannot be the folder results/<name>; "):
        load_scenario(scenario("name: tiny", f'name: "{name}"'))


@pytest.mark.parametrize("name", ["tiny", "a.b", "...", "two words", "café-2"])
def test_a_name_that_is_one_folder_is_kept_as_written(name):
    assert load_scenario(scenario("name: tiny", f'name: "{name}"'))[0].name == name
