"""The generalized normal distribution of shape beta, as `jax.scipy.stats.gennorm` (no loc or
scale, as JAX's)."""

from __future__ import annotations

from fgrad.numpy import abs, add, divide, exp, log, multiply, power, sign, subtract
from fgrad.scipy.special import gammainc, gammaln
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The log density, log(beta / 2) - gammaln(1 / beta) - |x|^beta."""
    x, beta = inexact(x, beta)
    return subtract(subtract(log(multiply(0.5, beta)), gammaln(divide(1.0, beta))), power(abs(x), beta))


def pdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, beta))


def cdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """P(X <= x) = (1 + sign(x) gammainc(1 / beta, |x|^beta)) / 2."""
    x, beta = inexact(x, beta)
    return multiply(0.5, add(1.0, multiply(sign(x), gammainc(divide(1.0, beta), power(abs(x), beta)))))


name_errors_after(globals(), __all__, qualifier="gennorm.")
del name_errors_after  # not part of the namespace
