"""The gamma distribution of shape a, as `jax.scipy.stats.gamma`: support x >= loc."""

from __future__ import annotations

import math

from fgrad.numpy import add, clip, divide, exp, greater_equal, less, log, subtract, where
from fgrad.scipy.special import gammainc, gammaincc, gammaln, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, (a - 1) log y - y - gammaln(a) - log(scale), y = (x - loc) / scale;
    -inf below loc."""
    x, a, loc, scale = inexact(x, a, loc, scale)
    ok = greater_equal(x, loc)
    y = where(ok, divide(subtract(x, loc), scale), 1.0)
    log_probs = subtract(subtract(xlogy(subtract(a, 1.0), y), y), add(gammaln(a), log(scale)))
    return where(ok, log_probs, -math.inf)


def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, a, loc, scale))


def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = gammainc(a, y), y = (x - loc) / scale clipped to [0, inf]."""
    x, a, loc, scale = inexact(x, a, loc, scale)
    return gammainc(a, clip(divide(subtract(x, loc), scale), 0.0, math.inf))


def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log(cdf)."""
    return log(cdf(x, a, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = gammaincc(a, y), 1 below loc."""
    x, a, loc, scale = inexact(x, a, loc, scale)
    y = divide(subtract(x, loc), scale)
    return where(less(y, 0.0), 1.0, gammaincc(a, y))


def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log(sf)."""
    return log(sf(x, a, loc, scale))


name_errors_after(globals(), __all__, qualifier="gamma.")
del name_errors_after  # not part of the namespace
