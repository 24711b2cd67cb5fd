"""The beta-binomial distribution, as `jax.scipy.stats.betabinom`."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, equal, exp, floor, greater, less, less_equal, log1p, logical_and, logical_or, negative, subtract, where,
)
from fgrad.scipy.special import betaln
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log mass, -log1p(n) - betaln(n - y + 1, y + 1) + betaln(y + a, n - y + b) - betaln(a, b),
    y = floor(k) - loc; -inf outside the support, NaN unless n >= 0 and a, b > 0."""
    k, n, a, b, loc = inexact(k, n, a, b, loc)
    y = subtract(floor(k), loc)
    combiln = negative(add(log1p(n), betaln(add(subtract(n, y), 1.0), add(y, 1.0))))
    log_probs = add(combiln, subtract(betaln(add(y, a), add(subtract(n, y), b)), betaln(a, b)))
    log_probs = where(logical_and(equal(y, 0.0), equal(n, 0.0)), 0.0, log_probs)
    outside = logical_or(logical_or(less(y, negative(loc)), greater(y, n)), less_equal(add(y, a), 0.0))
    log_probs = where(outside, -math.inf, log_probs)
    return where(logical_or(logical_or(less(n, 0.0), less_equal(a, 0.0)), less_equal(b, 0.0)), math.nan, log_probs)


def pmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The mass, exp(logpmf)."""
    return exp(logpmf(k, n, a, b, loc))


name_errors_after(globals(), __all__, qualifier="betabinom.")
del name_errors_after  # not part of the namespace
