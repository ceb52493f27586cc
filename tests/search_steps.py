"""The window search's candidates and steps, built as ``find_window`` builds them, for tests
that check one stage of the search on its own (members, bounds, placement rules)."""

from __future__ import annotations

import numpy as np

from gridsim.model import Request
from gridsim.profile import Profile
from gridsim.selection.candidates import Candidates
from gridsim.selection.steps import Step, steps_of
from gridsim.selection.ties import Choice, Contenders


def search_inputs(profile: Profile, request: Request):
    """The candidate slots, each one's task runtime as the slowest, and the candidate
    slowest slots (those long enough for their own task)."""
    slots = Candidates.from_table(profile.slot_table(), request)
    runtime = request.volume / slots.performance
    sigmas = np.flatnonzero(slots.end - slots.start >= runtime * (1 - 1e-12))
    return slots, runtime, sigmas


def all_steps(profile: Profile, request: Request, reverse: bool = False) -> Step | None:
    """Every step of every candidate slowest slot, as one batch; ``reverse``: the sigmas in
    reverse list order (a batch need not start with the first slot: the search visits sigmas
    by bound)."""
    slots, runtime, sigmas = search_inputs(profile, request)
    return steps_of(slots, sigmas[::-1] if reverse else sigmas, runtime, request)


def best_offered(choose, contenders: Contenders | None = None) -> Choice | None:
    """The window the tie rule chooses among those ``choose(contenders)`` offers (to a new
    :class:`Contenders` unless one is given, e.g. holding an earlier window)."""
    contenders = Contenders() if contenders is None else contenders
    choose(contenders)
    return contenders.best()
