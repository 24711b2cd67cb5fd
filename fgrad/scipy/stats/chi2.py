"""The chi-squared distribution with df degrees of freedom, as `jax.scipy.stats.chi2`."""

from __future__ import annotations

import math

from fgrad.numpy import add, clip, divide, exp, less, log, multiply, negative, subtract, where
from fgrad.scipy.special import gammainc, gammaincc, gammaln
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, (df/2 - 1) log y - y/2 - gammaln(df/2) - df log(2)/2 - log(scale),
    y = (x - loc) / scale; -inf below loc."""
    x, df, loc, scale = inexact(x, df, loc, scale)
    y = divide(subtract(x, loc), scale)
    half_df = divide(df, 2.0)
    kernel = subtract(multiply(subtract(half_df, 1.0), log(y)), divide(y, 2.0))
    constant = negative(add(gammaln(half_df), divide(multiply(math.log(2.0), df), 2.0)))
    return where(less(x, loc), -math.inf, add(subtract(constant, log(scale)), kernel))


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, df, loc, scale))


def _half_y(x: Array, loc: Array, scale: Array) -> Array:
    return clip(divide(subtract(x, loc), multiply(scale, 2.0)), 0.0, math.inf)


def cdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = gammainc(df / 2, y / 2), y = (x - loc) / scale clipped to [0, inf]."""
    x, df, loc, scale = inexact(x, df, loc, scale)
    return gammainc(divide(df, 2.0), _half_y(x, loc, scale))


def logcdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log(cdf)."""
    return log(cdf(x, df, loc, scale))


def sf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = gammaincc(df / 2, y / 2)."""
    x, df, loc, scale = inexact(x, df, loc, scale)
    return gammaincc(divide(df, 2.0), _half_y(x, loc, scale))


def logsf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log(sf)."""
    return log(sf(x, df, loc, scale))


name_errors_after(globals(), __all__, qualifier="chi2.")
del name_errors_after  # not part of the namespace
