"""The left-skewed Gumbel (minimum extreme value) distribution, as `jax.scipy.stats.gumbel_l`:
every function NaN unless scale > 0."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, divide, exp, expm1, greater, less, log, logical_and, multiply, negative, subtract, where,
)
from fgrad.scipy.special import xlog1py, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "ppf", "sf", "logsf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -log(scale) + z - e^z, z = (x - loc) / scale."""
    x, loc, scale = inexact(x, loc, scale)
    z = divide(subtract(x, loc), scale)
    value = add(xlogy(-1.0, scale), subtract(z, exp(z)))
    return where(greater(scale, 0.0), value, math.nan)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X <= x) = log(-expm1(-e^z))."""
    x, loc, scale = inexact(x, loc, scale)
    value = log(negative(expm1(negative(exp(divide(subtract(x, loc), scale))))))
    return where(greater(scale, 0.0), value, math.nan)


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = exp(logcdf)."""
    return exp(logcdf(x, loc, scale))


def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, loc + scale log(-log1p(-p)); NaN outside (0, 1)."""
    p, loc, scale = inexact(p, loc, scale)
    value = add(loc, multiply(scale, log(xlog1py(-1.0, negative(p)))))
    return where(logical_and(greater(p, 0.0), less(p, 1.0)), value, math.nan)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = exp(logsf)."""
    return exp(logsf(x, loc, scale))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X > x) = -e^z."""
    x, loc, scale = inexact(x, loc, scale)
    value = negative(exp(divide(subtract(x, loc), scale)))
    return where(greater(scale, 0.0), value, math.nan)


name_errors_after(globals(), __all__, qualifier="gumbel_l.")
del name_errors_after  # not part of the namespace
