"""The criteria selectable by name: the built-in ones, MultipleBest over them, and plugins.

Sits above every search: consumes the criteria modules (:mod:`~gridsim.selection.criteria`,
:mod:`~gridsim.selection.placement`) and installed plugins (:mod:`gridsim.plugins`); produces a
criterion from a scenario's name or mapping (:func:`build_criterion`), the ``policies`` field of
scenarios, and the listings of ``gridsim policies``.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import AfterValidator, Field

from gridsim.model import Request, Window
from gridsim.plugins import (
    GROUPS,
    PluginLoadError,
    check_contract,
    check_frozen_dataclass,
    find_class,
    installed,
    plugin_name,
)
from gridsim.profile import Profile
from gridsim.selection import criteria, energy_criteria, placement
from gridsim.selection.criteria import (
    Criterion,
    FirstFit,
    FirstFitReading,
    SlotCriterion,
    WindowCriterion,
    check_first_fit,
    parameter_label,
)
from gridsim.selection.guard import GuardedCriterion
from gridsim.selection.ties import first_tied

# -- MultipleBest -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MultipleBest(Criterion):
    """Non-intersecting FirstFit alternatives, then the best by ``target`` [TY18, Sec. 4.2].

    Alternatives are found one after another, each reserved in a copy of the profile so the
    next cannot overlap it, until FirstFit finds no more; ``max_alternatives`` caps the count.
    """

    name: ClassVar[str] = "MultipleBest"
    summary: ClassVar[str] = "FirstFit alternatives that do not intersect, best by a target"
    target: str = "MaxQ"
    max_alternatives: int = 1000
    first_fit: FirstFitReading = "earliest_start"
    energy: Any = field(default=None, compare=False, repr=False,
                        metadata=energy_criteria.BOUND)  # fmt: skip

    def __post_init__(self) -> None:
        if self.target not in CRITERIA or self.target == "MultipleBest":
            raise ValueError(f"target must name a criterion, got {self.target!r}")
        if self.max_alternatives < 1:
            raise ValueError("max_alternatives must be at least 1")
        check_first_fit(self.first_fit)

    @property
    def label(self) -> str:
        extra = ""
        if self.max_alternatives != 1000:
            extra = f", max_alternatives={self.max_alternatives}"
        if self.first_fit != "earliest_start":
            extra += f", first_fit={self.first_fit}"
        return f"MultipleBest(target={self.target}{extra})"

    def alternatives(self, profile: Profile, request: Request) -> list[Window]:
        scratch = profile.copy()
        first_fit = FirstFit(self.first_fit)
        found: list[Window] = []
        while len(found) < self.max_alternatives:
            window = first_fit.search(scratch, request)
            if window is None:
                break
            found.append(window)
            scratch.reserve(window)
        return found

    @property
    def needs_power(self) -> bool:
        """Whether the target reads the power model (MinEnergy, MinCarbon: bound to it by
        ``bind_energy`` and handed on to the target)."""
        return energy_criteria.needs_energy(build_criterion(self.target))

    def _target(self) -> Criterion:
        target = build_criterion(self.target)
        return energy_criteria.bind_energy(target, self.energy) if self.needs_power else target

    def search(self, profile, request):
        target = self._target()
        # Alternatives were cut from a profile holding the earlier ones; each is one choice
        # for the job alone, so it is scored by its slots (neighbour distances) in the real
        # profile, the ones the chosen window reports.
        alternatives = [
            profile.with_enclosing_slots(w) for w in self.alternatives(profile, request)
        ]
        if not alternatives:
            return None
        scores = np.array([target.score(window, profile.nodes) for window in alternatives])
        # Ties (docs/model.md, "Ties"): the first alternative found among the best.
        chosen = first_tied(scores)
        return replace(alternatives[chosen], criterion_value=float(scores[chosen]))

    def score(self, window, nodes):
        return self._target().score(window, nodes)


#: Every built-in criterion by name, in the order ``gridsim policies`` lists them.
CRITERIA: dict[str, type[Criterion]] = {
    cls.name: cls
    for cls in (
        criteria.FirstFit,
        criteria.MinStart,
        criteria.MinFinish,
        criteria.MinRuntime,
        criteria.MinCost,
        criteria.MaxQ,
        criteria.MaxQLite,
        criteria.DEP,
        criteria.DEPLite,
        criteria.COORD,
        criteria.COORDLite,
        MultipleBest,
        placement.BFstart,
        placement.BFfinish,
        placement.BFshort,
        placement.PAST,
        placement.CoP,
        *energy_criteria.ENERGY_CRITERIA,
    )
}


class CriterionError(ValueError):
    """A criterion name or parameter in a scenario is wrong."""


def build_criterion(
    spec: str | Mapping[str, Any], readings: Mapping[str, Any] | None = None
) -> Criterion:
    """A criterion from a name or a mapping ``{name: ..., <parameter>: ...}``.

    The name is a registered criterion's, a plugin's ``package.module:Class`` or the name of
    an installed ``gridsim.criteria`` entry point (:mod:`gridsim.plugins`); a plugin comes
    back wrapped in a :class:`~gridsim.selection.guard.GuardedCriterion`. ``readings`` are a
    scenario's choices for every built-in criterion that has such a parameter (FirstFit's and
    MultipleBest's ``first_fit``), unless ``spec`` sets it.
    """
    if isinstance(spec, str):
        spec = {"name": spec}
    params = dict(spec)
    if "name" not in params:
        example = "{name: MultipleBest, target: MaxQ}"
        raise CriterionError(f"a criterion given as a mapping needs its name, e.g. {example}; "
                             f"got keys {sorted(params)}")  # fmt: skip
    name = params.pop("name", None)
    cls = CRITERIA.get(name) if isinstance(name, str) else None
    plugin = cls is None and isinstance(name, str) and _plugin_class(name)
    if plugin:
        cls = plugin
    if cls is None:
        known = [*CRITERIA, *installed(GROUPS["criterion"])]
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise CriterionError(f"unknown criterion {name!r}{hint} (see `gridsim policies`)")
    # Fields a kind binds (a scenario's power model, energy_criteria.BOUND) are no parameters.
    allowed = {f.name for f in fields(cls) if not f.metadata.get("bound")}
    if not plugin:
        params = {key: value for key, value in (readings or {}).items() if key in allowed} | params
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise CriterionError(
            f"criterion {name} has no parameter {unknown[0]!r} (allowed: {sorted(allowed)})"
        )
    try:
        criterion = cls(**params)
    except (TypeError, ValueError) as error:
        raise CriterionError(f"criterion {name}: {error}") from None
    if not plugin:
        return criterion
    shown = plugin_name(cls, name)
    label = (
        criterion.label if cls.label is not Criterion.label else parameter_label(shown, criterion)
    )
    return GuardedCriterion(criterion, shown, label, origin=name)  # type: ignore[return-value]


def _plugin_class(name: str) -> type[Criterion] | None:
    """The plugin class ``name`` refers to, checked against :data:`PLUGIN_CONTRACT`."""
    try:
        cls = find_class(name, GROUPS["criterion"])
        if cls is not None:
            check_contract(cls, PLUGIN_CONTRACT, "criterion", name)
            check_frozen_dataclass(cls, name)
    except PluginLoadError as error:
        raise CriterionError(str(error)) from None
    return cls


def check_policy_specs(specs: list[str | dict[str, Any]]) -> list[str | dict[str, Any]]:
    """A scenario's ``policies``: every entry builds a criterion, and no label repeats."""
    labels = set()
    for index, spec in enumerate(specs):
        try:
            label = build_criterion(spec).label
        except CriterionError as error:
            raise ValueError(f"policy {index}: {error}") from None
        if label in labels:
            raise ValueError(f"policy {index}: {label} is listed twice")
        labels.add(label)
    return specs


#: The ``policies`` field of scenarios whose policies are registered criteria.
PolicySpecs = Annotated[
    list[str | dict[str, Any]], Field(min_length=1), AfterValidator(check_policy_specs)
]


def describe_criteria() -> list[tuple[str, str]]:
    """(name, one-line description) of every registered criterion."""
    return [(name, cls.summary) for name, cls in CRITERIA.items()]


def describe_plugin_criteria() -> list[tuple[str, str]]:
    """(name, description or why it cannot be used) of every installed plugin criterion."""
    rows = []
    for name, entry_point in installed(GROUPS["criterion"]).items():
        try:
            cls = _plugin_class(name) if name not in CRITERIA else None
        except CriterionError as error:
            rows.append((name, f"unusable: {error}"))
            continue
        if cls is None:
            rows.append((name, f"hidden by the built-in {name}; name it as {entry_point.value}"))
        else:
            summary = cls.summary or (cls.__doc__ or "").strip().partition("\n")[0]
            rows.append((name, f"{summary} [{entry_point.value}]"))
    return rows


_SLOT = ("slot_start", "slot_end", "q", "cost")
#: What a plugin criterion must define, by the base it extends (:mod:`gridsim.plugins`).
PLUGIN_CONTRACT = (
    (WindowCriterion, {"value": ("start", "runtime")}),
    (
        SlotCriterion,
        {
            "slot_values": (*_SLOT, "start", "runtime", "performance="),
            "slot_value_bound": (*_SLOT, "runtime", "lo", "hi", "performance="),
        },
    ),
    (Criterion, {"search": ("profile", "request")}),
)
