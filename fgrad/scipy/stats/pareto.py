"""The Pareto distribution of shape b, as `jax.scipy.stats.pareto`: support x >= loc + scale."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, divide, exp, greater, isnan, less, log, log1p, logical_or, multiply, negative, power, subtract, where,
)
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, log(b / scale) - (b + 1) log z, z = (x - loc) / scale; -inf below
    loc + scale."""
    x, b, loc, scale = inexact(x, b, loc, scale)
    z = divide(subtract(x, loc), scale)
    log_probs = negative(add(log(divide(scale, b)), multiply(add(b, 1.0), log(z))))
    return where(less(x, add(loc, scale)), -math.inf, log_probs)


def pdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, b, loc, scale))


def cdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = 1 - z^-b; 0 below loc + scale."""
    x, b, loc, scale = inexact(x, b, loc, scale)
    z = divide(subtract(x, loc), scale)
    return where(less(x, add(loc, scale)), 0.0, subtract(1.0, power(z, negative(b))))


def logcdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X <= x) = log1p(-z^-b); -inf below loc + scale."""
    x, b, loc, scale = inexact(x, b, loc, scale)
    z = divide(subtract(x, loc), scale)
    return where(less(x, add(loc, scale)), -math.inf, log1p(negative(power(z, negative(b)))))


def logsf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X > x) = -b log z; 0 below loc + scale."""
    x, b, loc, scale = inexact(x, b, loc, scale)
    z = divide(subtract(x, loc), scale)
    return where(less(x, add(loc, scale)), 0.0, negative(multiply(b, log(z))))


def sf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = exp(logsf)."""
    return exp(logsf(x, b, loc, scale))


def ppf(q: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, loc + scale (1 - q)^(-1/b); NaN outside [0, 1]."""
    q, b, loc, scale = inexact(q, b, loc, scale)
    value = add(loc, multiply(scale, power(subtract(1.0, q), negative(divide(1.0, b)))))
    return where(logical_or(logical_or(isnan(q), less(q, 0.0)), greater(q, 1.0)), math.nan, value)


name_errors_after(globals(), __all__, qualifier="pareto.")
del name_errors_after  # not part of the namespace
