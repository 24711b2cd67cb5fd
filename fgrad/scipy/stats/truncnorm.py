"""The normal distribution truncated to [a, b] (in standard deviations from loc), as
`jax.scipy.stats.truncnorm`: NaN wherever a >= b."""

from __future__ import annotations

import math

from fgrad.numpy import (
    broadcast_arrays, divide, exp, full_like, greater, greater_equal, less, less_equal, log1p, logical_not,
    logical_or, logsumexp, negative, stack, subtract, where,
)
from fgrad.scipy.special import log_ndtr, ndtr
from fgrad.scipy.stats import norm
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact, select

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "logsf", "sf"]


def _log_diff(x: Array, y: Array) -> Array:
    """log(e^x - e^y)."""
    return logsumexp(stack([x, y]), b=stack([full_like(x, 1.0), full_like(y, -1.0)]), axis=0)


def _log_gauss_mass(a: Array, b: Array) -> Array:
    """log(ndtr(b) - ndtr(a)): from the left tail (the right one mirrored into it), or
    log1p(-ndtr(a) - ndtr(-b)) where the interval holds 0 and the mass nears 1."""
    a, b = broadcast_arrays(a, b)
    right = greater(a, 0.0)
    central = logical_not(logical_or(less_equal(b, 0.0), right))
    tail = _log_diff(log_ndtr(where(right, negative(a), b)), log_ndtr(where(right, negative(b), a)))
    return where(central, log1p(subtract(negative(ndtr(a)), ndtr(negative(b)))), tail)


def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, norm.logpdf(x, loc, scale) - log(ndtr(b) - ndtr(a)); -inf outside."""
    x, a, b, loc, scale = inexact(x, a, b, loc, scale)
    value = subtract(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = divide(subtract(x, loc), scale)
    value = where(logical_or(less(z, a), greater(z, b)), -math.inf, value)
    return where(greater_equal(a, b), math.nan, value)


def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, a, b, loc, scale))


def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X <= x): 0 from b, -inf to a, from log1p(-sf) where that is near 0 (no cancellation)."""
    x, a, b, loc, scale = inexact(x, a, b, loc, scale)
    x, a, b = broadcast_arrays(x, a, b)
    x = divide(subtract(x, loc), scale)
    mass = _log_gauss_mass(a, b)
    log_cdf = subtract(_log_gauss_mass(a, x), mass)
    log_sf = subtract(_log_gauss_mass(x, b), mass)
    value = select([greater_equal(x, b), less_equal(x, a), greater(log_cdf, -0.1), greater(x, a)],
                   [0.0, -math.inf, log1p(negative(exp(log_sf))), log_cdf], full_like(log_cdf, 0.0))
    return where(greater_equal(a, b), math.nan, value)


def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = exp(logcdf)."""
    return exp(logcdf(x, a, b, loc, scale))


def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X > x) = logcdf(-x, -b, -a, -loc, scale)."""
    x, a, b, loc, scale = inexact(x, a, b, loc, scale)
    return logcdf(negative(x), negative(b), negative(a), negative(loc), scale)


def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = exp(logsf)."""
    return exp(logsf(x, a, b, loc, scale))


name_errors_after(globals(), __all__, qualifier="truncnorm.")
del name_errors_after  # not part of the namespace
