"""The optional cost term of the job-flow placement criteria (CoP, PAST; not in [TY20]).

Consumes a criterion's weights (``price_weight``, ``energy_weight``, ``electricity_weight``,
``carbon_weight``: time units per unit of each, as a placement value is a finish time), its
bound power model (:class:`~gridsim.energy.model.EnergyModel`) and the slots' values ``z``;
produces ``z`` less the weighted cost of each slot's task: node price x runtime, busy
energy, busy watts x the integral of the electricity price or of the carbon intensity over
the task. Every weight 0 (the default) leaves ``z`` as it is (docs/energy.md, "A cost term
for CoP and PAST").
"""

from __future__ import annotations

from typing import Any

#: The weights that read the power model and what each weighs
#: (:meth:`~gridsim.energy.model.EnergyModel.task_quantity`).
POWER_WEIGHTS = (("energy_weight", "energy"), ("electricity_weight", "price"),
                 ("carbon_weight", "carbon"))  # fmt: skip
#: Every weight of the term.
WEIGHTS = ("price_weight", *(name for name, _ in POWER_WEIGHTS))


def needs_power(criterion: Any) -> bool:
    """Whether the term reads the power model (bound by ``bind_energy``)."""
    return any(getattr(criterion, name) > 0 for name, _ in POWER_WEIGHTS)


def has_cost_term(criterion: Any) -> bool:
    return criterion.price_weight > 0 or needs_power(criterion)


def less_cost(criterion: Any, z, node, cost, start, runtime):
    """``z`` less the term of tasks on ``node`` costing ``cost`` from ``start`` for
    ``runtime``; ``start=None``: less the least the term can be at any start (a bound never
    below the value, as the search's skip tests need)."""
    if not has_cost_term(criterion):
        return z
    if criterion.price_weight > 0:
        z = z - criterion.price_weight * cost
    for name, which in POWER_WEIGHTS:
        weight = getattr(criterion, name)
        if weight > 0:
            model = criterion.energy
            if model is None:
                raise ValueError(f"{criterion.label} needs a power model (docs/energy.md)")
            if start is None:
                spent = model.task_quantity_floor(which, node, runtime)
            else:
                spent = model.task_quantity(which, node, start, runtime)
            z = z - weight * spent
    return z
