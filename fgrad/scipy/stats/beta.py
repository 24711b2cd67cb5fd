"""The beta distribution on [loc, loc + scale], as `jax.scipy.stats.beta`."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, clip, divide, exp, greater, less, less_equal, log, logical_or, negative, subtract, where,
)
from fgrad.scipy.special import betainc, betaln, xlog1py, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, (a - 1) log y + (b - 1) log(1 - y) - betaln(a, b) - log(scale),
    y = (x - loc) / scale; -inf outside [loc, loc + scale], NaN unless a, b, scale > 0."""
    x, a, b, loc, scale = inexact(x, a, b, loc, scale)
    y = divide(subtract(x, loc), scale)
    log_linear = add(xlogy(subtract(a, 1.0), y), xlog1py(subtract(b, 1.0), negative(y)))
    log_probs = subtract(subtract(log_linear, betaln(a, b)), log(scale))
    out = where(logical_or(greater(x, add(loc, scale)), less(x, loc)), -math.inf, log_probs)
    bad = logical_or(logical_or(less_equal(a, 0.0), less_equal(b, 0.0)), less_equal(scale, 0.0))
    return where(bad, math.nan, out)


def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, a, b, loc, scale))


def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = betainc(a, b, y), y = (x - loc) / scale clipped to [0, 1]."""
    x, a, b, loc, scale = inexact(x, a, b, loc, scale)
    return betainc(a, b, clip(divide(subtract(x, loc), scale), 0.0, 1.0))


def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log(cdf)."""
    return log(cdf(x, a, b, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = betainc(b, a, 1 - y), y clipped to [0, 1]."""
    x, a, b, loc, scale = inexact(x, a, b, loc, scale)
    return betainc(b, a, subtract(1.0, clip(divide(subtract(x, loc), scale), 0.0, 1.0)))


def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log(sf)."""
    return log(sf(x, a, b, loc, scale))


name_errors_after(globals(), __all__, qualifier="beta.")
del name_errors_after  # not part of the namespace
