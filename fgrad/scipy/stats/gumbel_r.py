"""The right-skewed Gumbel (maximum extreme value) distribution, as `jax.scipy.stats.gumbel_r`:
every function NaN unless scale > 0."""

from __future__ import annotations

import math

from fgrad.nn.activations import log1mexp
from fgrad.numpy import (
    add, divide, exp, greater, less, log, logical_and, multiply, negative, subtract, where,
)
from fgrad.scipy.special import xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "ppf", "sf", "logsf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -log(scale) - z - e^-z, z = (x - loc) / scale."""
    x, loc, scale = inexact(x, loc, scale)
    z = divide(subtract(x, loc), scale)
    value = add(xlogy(-1.0, scale), negative(add(z, exp(negative(z)))))
    return where(greater(scale, 0.0), value, math.nan)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X <= x) = -e^-z."""
    x, loc, scale = inexact(x, loc, scale)
    value = negative(exp(negative(divide(subtract(x, loc), scale))))
    return where(greater(scale, 0.0), value, math.nan)


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = exp(logcdf)."""
    return exp(logcdf(x, loc, scale))


def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, loc - scale log(-log p); NaN outside (0, 1)."""
    p, loc, scale = inexact(p, loc, scale)
    value = subtract(loc, multiply(scale, log(xlogy(-1.0, p))))
    return where(logical_and(greater(p, 0.0), less(p, 1.0)), value, math.nan)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = 1 - exp(-e^-z)."""
    x, loc, scale = inexact(x, loc, scale)
    value = subtract(1.0, exp(negative(exp(divide(subtract(loc, x), scale)))))
    return where(greater(scale, 0.0), value, math.nan)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X > x) = log1mexp(e^-z), accurate where sf is tiny."""
    x, loc, scale = inexact(x, loc, scale)
    value = log1mexp(exp(divide(subtract(loc, x), scale)))
    return where(greater(scale, 0.0), value, math.nan)


name_errors_after(globals(), __all__, qualifier="gumbel_r.")
del name_errors_after  # not part of the namespace
