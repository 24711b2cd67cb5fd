"""The exponential distribution, as `jax.scipy.stats.expon`: support x >= loc."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, divide, exp, expm1, greater, isnan, less, log, log1p, logical_or, multiply, negative, subtract, where,
    zeros_like,
)
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -(x - loc) / scale - log(scale); -inf below loc."""
    x, loc, scale = inexact(x, loc, scale)
    log_probs = negative(add(divide(subtract(x, loc), scale), log(scale)))
    return where(less(x, loc), -math.inf, log_probs)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = -expm1(-(x - loc) / scale); 0 below loc."""
    x, loc, scale = inexact(x, loc, scale)
    neg_z = divide(subtract(loc, x), scale)
    return where(less(x, loc), zeros_like(neg_z), negative(expm1(neg_z)))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log1p(-sf)."""
    return log1p(negative(sf(x, loc, scale)))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X > x) = -(x - loc) / scale; 0 below loc."""
    x, loc, scale = inexact(x, loc, scale)
    neg_z = divide(subtract(loc, x), scale)
    return where(less(x, loc), zeros_like(neg_z), neg_z)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = exp(logsf)."""
    return exp(logsf(x, loc, scale))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, loc - scale log1p(-q); NaN outside [0, 1]."""
    q, loc, scale = inexact(q, loc, scale)
    outside = logical_or(logical_or(isnan(q), less(q, 0.0)), greater(q, 1.0))
    return where(outside, math.nan, subtract(loc, multiply(scale, log1p(negative(q)))))


name_errors_after(globals(), __all__, qualifier="expon.")
del name_errors_after  # not part of the namespace
