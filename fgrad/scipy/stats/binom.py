"""The binomial distribution of n trials with success probability p, as `jax.scipy.stats.binom`."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, equal, exp, greater_equal, less, logical_and, logical_or, negative, subtract, where,
)
from fgrad.scipy.special import gammaln, xlog1py, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log mass, log(n choose y) + y log(p) + (n - y) log(1 - p), y = k - loc; 0 where
    y = n = 0 or the linear terms vanish, -inf outside [loc, loc + n]."""
    k, n, p, loc = inexact(k, n, p, loc)
    y = subtract(k, loc)
    comb = subtract(gammaln(add(n, 1.0)), add(gammaln(add(y, 1.0)), gammaln(add(subtract(n, y), 1.0))))
    log_linear = add(xlogy(y, p), xlog1py(subtract(n, y), negative(p)))
    degenerate = logical_or(logical_and(equal(y, 0.0), equal(n, 0.0)), equal(log_linear, 0.0))
    log_probs = where(degenerate, 0.0, add(comb, log_linear))
    inside = logical_and(greater_equal(k, loc), less(k, add(add(loc, n), 1.0)))
    return where(inside, log_probs, -math.inf)


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The mass, exp(logpmf)."""
    return exp(logpmf(k, n, p, loc))


name_errors_after(globals(), __all__, qualifier="binom.")
del name_errors_after  # not part of the namespace
