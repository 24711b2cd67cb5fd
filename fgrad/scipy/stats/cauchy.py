"""The Cauchy distribution, as `jax.scipy.stats.cauchy`."""

from __future__ import annotations

import math

from fgrad.numpy import add, arctan, divide, exp, log, log1p, multiply, negative, square, subtract, tan
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -log(pi scale) - log1p(z^2), z = (x - loc) / scale."""
    x, loc, scale = inexact(x, loc, scale)
    z = divide(subtract(x, loc), scale)
    return negative(add(log(multiply(math.pi, scale)), log1p(square(z))))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x) = 1/2 + arctan((x - loc) / scale) / pi."""
    x, loc, scale = inexact(x, loc, scale)
    return add(0.5, multiply(1.0 / math.pi, arctan(divide(subtract(x, loc), scale))))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log(cdf)."""
    return log(cdf(x, loc, scale))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X > x) = cdf(-x, -loc, scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return cdf(negative(x), negative(loc), scale)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """log P(X > x) = logcdf(-x, -loc, scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return logcdf(negative(x), negative(loc), scale)


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function, tan(pi q - pi / 2) scale + loc."""
    q, loc, scale = inexact(q, loc, scale)
    return add(multiply(tan(subtract(multiply(math.pi, q), math.pi / 2)), scale), loc)


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse survival function, tan(pi / 2 - pi q) scale + loc."""
    q, loc, scale = inexact(q, loc, scale)
    return add(multiply(tan(subtract(math.pi / 2, multiply(math.pi, q))), scale), loc)


name_errors_after(globals(), __all__, qualifier="cauchy.")
del name_errors_after  # not part of the namespace
