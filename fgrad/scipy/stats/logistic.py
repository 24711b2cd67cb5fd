"""The logistic distribution, as `jax.scipy.stats.logistic`."""

from __future__ import annotations

from fgrad.numpy import add, divide, exp, log, logaddexp, multiply, negative, subtract
from fgrad.scipy.special import expit, logit
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -2 logaddexp(z / 2, -z / 2) - log(scale), z = (x - loc) / scale."""
    x, loc, scale = inexact(x, loc, scale)
    half_z = divide(divide(subtract(x, loc), scale), 2.0)
    return subtract(multiply(-2.0, logaddexp(half_z, negative(half_z))), log(scale))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = expit((x - loc) / scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return expit(divide(subtract(x, loc), scale))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = expit(-(x - loc) / scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return expit(negative(divide(subtract(x, loc), scale)))


def ppf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, logit(x) scale + loc."""
    x, loc, scale = inexact(x, loc, scale)
    return add(multiply(logit(x), scale), loc)


def isf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse survival function, -logit(x) scale + loc."""
    x, loc, scale = inexact(x, loc, scale)
    return add(multiply(negative(logit(x)), scale), loc)


name_errors_after(globals(), __all__, qualifier="logistic.")
del name_errors_after  # not part of the namespace
