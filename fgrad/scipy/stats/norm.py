"""The normal distribution N(loc, scale^2), as `jax.scipy.stats.norm`."""

from __future__ import annotations

import math

from fgrad.numpy import add, divide, exp, log, multiply, negative, square, subtract
from fgrad.scipy.special import log_ndtr, ndtr, ndtri
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -(log(2 pi scale^2) + ((x - loc) / scale)^2) / 2."""
    x, loc, scale = inexact(x, loc, scale)
    scale2 = square(scale)
    return divide(add(log(multiply(2 * math.pi, scale2)), divide(square(subtract(x, loc)), scale2)), -2.0)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = ndtr((x - loc) / scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return ndtr(divide(subtract(x, loc), scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X <= x) = log_ndtr((x - loc) / scale), accurate in both tails."""
    x, loc, scale = inexact(x, loc, scale)
    return log_ndtr(divide(subtract(x, loc), scale))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = cdf(-x, -loc, scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return cdf(negative(x), negative(loc), scale)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X > x) = logcdf(-x, -loc, scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return logcdf(negative(x), negative(loc), scale)


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, ndtri(q) scale + loc: -inf at 0, +inf at 1, NaN outside [0, 1]."""
    q, loc, scale = inexact(q, loc, scale)
    return add(multiply(ndtri(q), scale), loc)


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse survival function, ppf(1 - q)."""
    q, loc, scale = inexact(q, loc, scale)
    return ppf(subtract(1.0, q), loc, scale)


name_errors_after(globals(), __all__, qualifier="norm.")
del name_errors_after  # not part of the namespace
