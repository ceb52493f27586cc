"""Student's t 0.975 quantile without SciPy (gridsim.analysis.stats.student_t_quantile_975),
to the accuracy its construction gives: the table to 30 degrees of freedom is rounded to 9
decimals (relative 2.5e-10 at quantiles above 2), and the Cornish-Fisher expansion beyond
stops at the v^-4 term, so it is off by about the next term, 0.38 / v^5."""

from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats

from gridsim.analysis.stats import student_t_quantile_975


@pytest.mark.parametrize("df", range(1, 31))
def test_the_table_is_scipy_s_quantile_to_nine_decimals(df):
    assert student_t_quantile_975(df) == pytest.approx(stats.t.ppf(0.975, df), abs=5e-10)


def test_beyond_the_table_the_expansion_is_off_by_at_most_its_next_term():
    for df in range(31, 401):
        exact = stats.t.ppf(0.975, df)
        assert abs(student_t_quantile_975(df) / exact - 1) <= 0.4 / df**5, df


def test_the_expansion_s_remainder_is_the_v5_term_of_cornish_fisher_s_series():
    """What the expansion leaves out is the series' next term, g5(z) / v^5 (Fisher and Cornish,
    1960), up to less than 1 / v^6 (the term after it is -0.63 / v^6 at z = 1.96) and two units
    in the last place of the two floats compared. Every coefficient of the four terms matters
    at this accuracy: raising any of them by 1 moves the quantile further, at some df (lowering
    945 or 92160 by 1 is partly hidden by the v^-6 term)."""
    z = NormalDist().inv_cdf(0.975)
    g5 = (27 * z**11 + 339 * z**9 + 930 * z**7 - 1782 * z**5 - 765 * z**3 + 17955 * z) / 368640
    for df in range(31, 301):
        remainder = student_t_quantile_975(df) - stats.t.ppf(0.975, df)
        assert abs(remainder + g5 / df**5) <= 1 / df**6 + 2 * np.spacing(2.0), df


def test_no_degrees_of_freedom_is_an_error():
    with pytest.raises(ValueError, match="at least 1 degree of freedom, got 0"):
        student_t_quantile_975(0)
