"""The uniform distribution on [loc, loc + scale], as `jax.scipy.stats.uniform`."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, divide, exp, greater, greater_equal, isnan, less, less_equal, log, logical_and, logical_or, multiply,
    negative, subtract, where, zeros_like,
)
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact, select

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -log(scale) on [loc, loc + scale], -inf outside."""
    x, loc, scale = inexact(x, loc, scale)
    outside = logical_or(greater(x, add(loc, scale)), less(x, loc))
    return where(outside, -math.inf, negative(log(scale)))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x): 0 below loc, 1 above loc + scale, (x - loc) / scale between (0 at NaN, as JAX's)."""
    x, loc, scale = inexact(x, loc, scale)
    hi = add(loc, scale)
    inside = logical_and(greater_equal(x, loc), less_equal(x, hi))
    return select([less(x, loc), greater(x, hi), inside], [0.0, 1.0, divide(subtract(x, loc), scale)],
                  zeros_like(add(x, hi)))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, loc + scale q; NaN outside [0, 1]."""
    q, loc, scale = inexact(q, loc, scale)
    outside = logical_or(logical_or(isnan(q), less(q, 0.0)), greater(q, 1.0))
    return where(outside, math.nan, add(loc, multiply(scale, q)))


name_errors_after(globals(), __all__, qualifier="uniform.")
del name_errors_after  # not part of the namespace
