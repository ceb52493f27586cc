"""Elementwise powers and exponentials that give the same bits on every processor.

NumPy computes ``**``, ``exp`` and ``log`` of float arrays with kernels chosen at run time for
the processor: with AVX-512 (NumPy 2.4 on x86-64) they come from a vector library whose results
differ from the C library's in the last bit for about one value in twenty, so a generator that
drew prices or times with them would give another instance, and other schedules, on another
machine. These functions call the C library (Python's ``math``) one value at a time instead:
the same bits wherever the C library is the same. Cost: about 0.1 microseconds per value, for
the few hundred values a generator draws at a time.
"""

from __future__ import annotations

import math

import numpy as np


def _pow(base: float, exponent: float) -> float:
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


_POWER = np.frompyfunc(_pow, 2, 1)
_EXP = np.frompyfunc(_exp, 1, 1)


def power(base, exponent) -> np.ndarray:
    """``base ** exponent`` elementwise (arrays or numbers, broadcast), as floats."""
    return np.asarray(_POWER(base, exponent), dtype=float)


def exp(x) -> np.ndarray:
    """``e ** x`` elementwise, as floats."""
    return np.asarray(_EXP(x), dtype=float)
