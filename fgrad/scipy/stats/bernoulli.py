"""The Bernoulli distribution of success probability p, as `jax.scipy.stats.bernoulli`."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, exp, greater, greater_equal, isnan, less, less_equal, logical_and, logical_or, negative, subtract, where,
    zeros_like,
)
from fgrad.scipy.special import xlog1py, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact, select

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log mass, x log(p) + (1 - x) log(1 - p), x = k - loc; -inf outside [0, 1]."""
    k, p, loc = inexact(k, p, loc)
    x = subtract(k, loc)
    log_probs = add(xlogy(x, p), xlog1py(subtract(1.0, x), negative(p)))
    return where(logical_or(less(x, 0.0), greater(x, 1.0)), -math.inf, log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The mass, exp(logpmf)."""
    return exp(logpmf(k, p, loc))


def _bad(x: Array, p: Array) -> Array:
    return logical_or(logical_or(isnan(x), isnan(p)), logical_or(less(p, 0.0), greater(p, 1.0)))


def cdf(k: ArrayLike, p: ArrayLike) -> Array:
    """P(K <= k): 0 below 0, 1 - p on [0, 1), 1 from 1; NaN for NaN and p outside [0, 1]."""
    k, p = inexact(k, p)
    return select([_bad(k, p), less(k, 0.0), logical_and(greater_equal(k, 0.0), less(k, 1.0)), greater_equal(k, 1.0)],
                  [math.nan, 0.0, subtract(1.0, p), 1.0], zeros_like(add(k, p)))


def ppf(q: ArrayLike, p: ArrayLike) -> Array:
    """The quantile function: 0 for q <= 1 - p, else 1; NaN for q or p outside [0, 1]."""
    q, p = inexact(q, p)
    bad = logical_or(_bad(q, p), logical_or(less(q, 0.0), greater(q, 1.0)))
    return where(bad, math.nan, where(less_equal(q, subtract(1.0, p)), 0.0, 1.0))


name_errors_after(globals(), __all__, qualifier="bernoulli.")
del name_errors_after  # not part of the namespace
