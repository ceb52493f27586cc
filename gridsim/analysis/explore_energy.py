"""The explorer's colouring of jobs by their energy, electricity cost or carbon.

Consumes one run's jobs table with the energy columns a power model adds
(:data:`gridsim.energy.accounting.ENERGY_COLUMNS`) and the column asked for; produces what
:func:`gridsim.analysis.explore.explorer_document` adds to the page: each job's colour code
on a ramp (:func:`ramp`, after the jobs' own and the resource classes' colours in one
palette) and the colour bar that reads it.

The ramp is logarithmic: a job's energy is its processors times its run time times a few
hundred watts, so a log's jobs span several orders of magnitude and a linear ramp would paint
nearly all of them its lowest colour. A job of 0 (never drawn power, e.g. a zero-length run)
takes the lowest colour.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

#: What the explorer can colour jobs by, and the colour bar's title.
COLOURINGS = {
    "energy_kwh": "energy per job (kWh)",
    "electricity_cost": "electricity cost per job",
    "carbon_kg": "carbon per job (kg CO2)",
}
#: Viridis in 64 steps (every fourth of Bokeh's 256): dark is least, yellow most.
RAMP_STEPS = 64


def ramp() -> tuple[str, ...]:
    from bokeh.palettes import Viridis256

    return tuple(Viridis256[::4])


def value_range(values: np.ndarray) -> tuple[float, float]:
    """The ramp's ends: the least and largest positive value (one decade around a single
    value; 1 to 10 when no value is positive)."""
    positive = values[values > 0]
    if not len(positive):
        return 1.0, 10.0
    low, high = float(positive.min()), float(positive.max())
    return (low, high) if high > low else (low / 10**0.5, low * 10**0.5)


def ramp_codes(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Each value's step on the ramp (0 .. RAMP_STEPS - 1), logarithmically between
    ``low`` and ``high``; values at most 0 take step 0."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = (np.log(values) - np.log(low)) / (np.log(high) - np.log(low))
    share = np.where(values > 0, share, 0.0)
    return np.clip(np.floor(share * RAMP_STEPS), 0, RAMP_STEPS - 1).astype(np.uint8)


def missing_message(jobs: pd.DataFrame, column: str) -> str | None:
    """Why a run cannot be coloured by ``column`` (None: it can)."""
    if column not in COLOURINGS:
        return f"--colour-by {column}: not one of {', '.join(COLOURINGS)}"
    if column not in jobs.columns:
        return (f"--colour-by {column}: this run has no {column} column; its scenario gives "
                "no power model (docs/energy.md)")  # fmt: skip
    return None


def colour_bar(column: str, low: float, high: float) -> Any:
    """The colour bar of the ramp, titled with what it shows."""
    from bokeh.models import ColorBar, LogColorMapper

    mapper = LogColorMapper(palette=list(ramp()), low=low, high=high)
    return ColorBar(color_mapper=mapper, title=COLOURINGS[column], width=12,
                    name="gridsim-colour-bar")  # fmt: skip
