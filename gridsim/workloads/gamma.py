"""The gamma distribution's CDF, and the mean of exp(G) for a truncated gamma G.

Consumes shapes, scales and points; produces probabilities and means in plain Python floats
(no SciPy, which gridsim does not depend on at run time). The regularised lower incomplete
gamma function P(a, x) is computed as numerical analysis texts give it: its series for
x < a + 1, the continued fraction (modified Lentz) of its complement otherwise, both to a
relative 1e-15 [Numerical Recipes, Sec. 6.2]; the tests compare it with SciPy.
"""

from __future__ import annotations

import math

_EPSILON = 1e-15
_ITERATIONS = 10_000
_TINY = 1e-300


def regularized_lower_gamma(a: float, x: float) -> float:
    """P(a, x) = gamma(a, x) / Gamma(a), for a > 0 and x >= 0."""
    if a <= 0:
        raise ValueError(f"expected a positive shape, got {a}")
    if x <= 0:
        return 0.0
    log_prefactor = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:  # the series converges fast here
        term = total = 1.0 / a
        denominator = a
        for _ in range(_ITERATIONS):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * _EPSILON:
                break
        return min(1.0, total * math.exp(log_prefactor))
    b = x + 1 - a  # the continued fraction of 1 - P
    c = 1 / _TINY
    d = 1 / b
    fraction = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        step = d * c
        fraction *= step
        if abs(step - 1) < _EPSILON:
            break
    return max(0.0, 1.0 - math.exp(log_prefactor) * fraction)


def gamma_cdf(x: float, shape: float, scale: float) -> float:
    """P(G <= x) for G ~ gamma(shape, scale) (mean shape x scale)."""
    return regularized_lower_gamma(shape, x / scale)


def truncated_exp_mean(shape: float, scale: float, most: float) -> float:
    """E[exp(G) | G <= most] for G ~ gamma(shape, scale), scale < 1.

    exp(x) times the gamma density is (1 - scale)**-shape times the density of gamma(shape,
    scale / (1 - scale)), so the mean is that factor times the ratio of the two CDFs at
    ``most``."""
    if not 0 < scale < 1:
        raise ValueError(f"E[exp(G)] is finite for a scale below 1 only, got {scale}")
    tilted = scale / (1 - scale)
    ratio = gamma_cdf(most, shape, tilted) / gamma_cdf(most, shape, scale)
    return (1 - scale) ** -shape * ratio
