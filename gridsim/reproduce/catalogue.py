"""The published numbers: one entry per figure or table of the source papers.

Consumes ``gridsim/data/published.yaml`` (the paper, the table and the row each number comes
from, and what gridsim measures to compare with it); produces validated :class:`Figure`
objects. The file's header explains the row kinds.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, model_validator

from gridsim.bundled_scenarios import FOLDER
from gridsim.config import ScenarioError, Strict, validate


class Replications(Strict):
    paper: int = Field(ge=0)
    quick: int = Field(ge=0)


class Row(Strict):
    """One published number and how gridsim measures it."""

    label: str = ""
    kind: Literal["mean", "relative", "pooled", "model", "crossing"] = "mean"
    policy: str = ""
    versus: str = ""
    reference: Literal["policy", "versus"] = "versus"
    metric: str = ""
    per: str = ""
    queue_size: int | None = None
    goal: str | None = None
    samples: float = 0.0
    performance_w: float = 0.0
    #: The paper's digits matter (a printed ``4`` stands for [3.5, 4.5)): an int stays one.
    published: int | float | tuple[float, float]
    claim: Literal["value", "at_most"] = "value"

    @model_validator(mode="after")
    def _complete(self) -> Row:
        needs = {"mean": ("policy", "metric"), "relative": ("policy", "versus", "metric"),
                 "pooled": ("policy", "metric", "per"), "model": ("samples", "performance_w"),
                 "crossing": ("policy", "versus")}[self.kind]  # fmt: skip
        missing = [name for name in needs if not getattr(self, name)]
        if missing:
            raise ValueError(f"a {self.kind} row needs {', '.join(missing)}")
        return self

    @property
    def name(self) -> str:
        """The row's label, or ``policy, N jobs`` for plain table cells."""
        if self.label:
            return self.label
        size = f", {self.queue_size} jobs" if self.queue_size is not None else ""
        return f"{self.policy}{size}"

    def selector(self) -> dict[str, object]:
        """The runs-table columns that pick this row's runs (besides the policy)."""
        chosen: dict[str, object] = {}
        if self.queue_size is not None:
            chosen["queue_size"] = self.queue_size
        if self.goal is not None:
            chosen["goal"] = self.goal
        return chosen


class Figure(Strict):
    """A published figure or table and the scenario that models its experiment."""

    id: str
    paper: str
    cite: str
    source: str
    title: str
    scenario: str = ""
    replications: Replications
    baseline: str = ""
    equal_within: float = Field(0.001, ge=0)
    rows: list[Row] = Field(min_length=1)

    def scenario_path(self) -> Path:
        """The figure's scenario among those bundled with gridsim."""
        return FOLDER / self.scenario


class Catalogue(Strict):
    figures: list[Figure]

    @model_validator(mode="after")
    def _unique(self) -> Catalogue:
        ids = [figure.id for figure in self.figures]
        if len(set(ids)) != len(ids):
            raise ValueError(f"figure ids repeat: {ids}")
        return self


@cache
def load_catalogue(text: str | None = None) -> Catalogue:
    """The published numbers (the packaged file unless ``text`` is given)."""
    if text is None:
        text = resources.files("gridsim").joinpath("data/published.yaml").read_text()
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ScenarioError(f"published.yaml: malformed YAML: {error}") from None
    return validate(Catalogue, document)


def find_figure(figure_id: str) -> Figure:
    """The figure with this id; ScenarioError naming the known ids otherwise."""
    figures = {figure.id: figure for figure in load_catalogue().figures}
    if figure_id not in figures:
        raise ScenarioError(f"unknown figure {figure_id!r}; known: {', '.join(figures)}")
    return figures[figure_id]
