"""The Laplace (double exponential) distribution, as `jax.scipy.stats.laplace`."""

from __future__ import annotations

from fgrad.numpy import abs, add, divide, exp, less_equal, log, multiply, negative, subtract, where
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, -|x - loc| / scale - log(2 scale)."""
    x, loc, scale = inexact(x, loc, scale)
    return negative(add(divide(abs(subtract(x, loc)), scale), log(multiply(2.0, scale))))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """P(X <= x): e^z / 2 for z = (x - loc) / scale <= 0, else 1 - e^-z / 2."""
    x, loc, scale = inexact(x, loc, scale)
    z = divide(subtract(x, loc), scale)
    return where(less_equal(z, 0.0), multiply(0.5, exp(z)), subtract(1.0, multiply(0.5, exp(negative(z)))))


name_errors_after(globals(), __all__, qualifier="laplace.")
del name_errors_after  # not part of the namespace
