"""Student's t 0.975 quantile without SciPy (gridsim.analysis.stats.student_t_quantile_975),
to the accuracy its construction gives: the table to 30 degrees of freedom is rounded to 9
decimals (relative 2.5e-10 at quantiles above 2), and the Cornish-Fisher expansion beyond
stops at the v^-4 term, so it is off by about the next term, 0.38 / v^5."""

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


def test_no_degrees_of_freedom_is_an_error():
    with pytest.raises(ValueError, match="at least 1 degree of freedom, got 0"):
        student_t_quantile_975(0)
