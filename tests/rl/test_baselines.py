"""The heuristics pick what their formulas say, on jobs worked out by hand."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gridsim.rl.baselines import SCORES, HeuristicPolicy


def info(submit, wait, estimate, processors, mask=None):
    count = len(submit)
    return {
        "jobs": {"job": np.arange(count), "submit_time": np.array(submit, dtype=float),
                 "wait": np.array(wait, dtype=float), "estimate": np.array(estimate, dtype=float),
                 "processors": np.array(processors)},
        "action_mask": np.array(mask if mask is not None else [1] * count, dtype=np.int8),
    }  # fmt: skip


# three waiting jobs at time 1000: (submit, wait, estimate, processors)
#   row 0: 100, 900, 3600, 4  -> area 14400, wfp3 -(0.25)^3*4 = -0.0625, F1 = 4*3.556 + 870*2
#   row 1: 400, 600,  600, 32 -> area 19200, wfp3 -(1)^3*32 = -32
#   row 2: 700, 300,  100, 64 -> area  6400, wfp3 -(3)^3*64 = -1728
JOBS = info([100, 400, 700], [900, 600, 300], [3600, 600, 100], [4, 32, 64])
EXPECTED = {"fcfs": 0, "sjf": 2, "saf": 2, "wfp3": 2, "unicep": 2, "f1": 0}


@pytest.mark.parametrize("name", SCORES)
def test_each_heuristic_picks_the_lowest_score(name):
    assert HeuristicPolicy(name)(None, JOBS) == EXPECTED[name]


def test_unicep_divides_the_wait_by_log2_of_the_processors_times_the_estimate():
    # row 2: -300 / (6 * 100) = -0.5 beats row 1: -600 / (5 * 600) = -0.2 and row 0: -0.125
    scores = SCORES["unicep"](JOBS["jobs"])
    np.testing.assert_allclose(scores, [-900 / (2 * 3600), -600 / (5 * 600), -300 / (6 * 100)])
    # a waiting one-processor job comes first whatever its estimate
    single = info([100, 400], [900, 10], [3600, 10], [64, 1])
    assert HeuristicPolicy("unicep")(None, single) == 1


def test_only_allowed_rows_are_chosen_and_none_when_nothing_is_allowed():
    masked = info([100, 400, 700], [900, 600, 300], [3600, 600, 100], [4, 32, 64], [1, 1, 0])
    assert HeuristicPolicy("sjf")(None, masked) == 1
    # a backfill-selection mask: three rows and "none"; nothing allowed -> "none"
    nothing = info([100, 400, 700], [900, 600, 300], [3600, 600, 100], [4, 32, 64],
                   [0, 0, 0, 1])  # fmt: skip
    assert HeuristicPolicy("sjf")(None, nothing) == 3


def test_ties_go_to_the_earlier_row():
    tied = info([100, 400, 700], [900, 600, 300], [600, 600, 600], [4, 32, 64])
    assert HeuristicPolicy("sjf")(None, tied) == 0


def test_an_unknown_heuristic_is_refused():
    with pytest.raises(ValueError, match="heuristic among"):
        HeuristicPolicy("lifo")
