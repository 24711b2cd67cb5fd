"""The wrapped Cauchy distribution on [0, 2 pi], of shape c, as `jax.scipy.stats.wrapcauchy`."""

from __future__ import annotations

import math

from fgrad.numpy import (
    add, cos, exp, greater, greater_equal, less, less_equal, log, logical_and, multiply, square, subtract, where,
)
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, c: ArrayLike) -> Array:
    """The log density, log(1 - c^2) - log(2 pi) - log(1 + c^2 - 2 c cos x); -inf outside
    [0, 2 pi], NaN unless 0 < c < 1."""
    x, c = inexact(x, c)
    c2 = square(c)
    value = subtract(subtract(log(subtract(1.0, c2)), math.log(2 * math.pi)),
                     log(subtract(add(1.0, c2), multiply(multiply(2.0, c), cos(x)))))
    inside = logical_and(greater_equal(x, 0.0), less_equal(x, 2 * math.pi))
    return where(logical_and(greater(c, 0.0), less(c, 1.0)), where(inside, value, -math.inf), math.nan)


def pdf(x: ArrayLike, c: ArrayLike) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, c))


name_errors_after(globals(), __all__, qualifier="wrapcauchy.")
del name_errors_after  # not part of the namespace
