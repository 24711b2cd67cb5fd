"""The von Mises distribution on the circle, of concentration kappa, as
`jax.scipy.stats.vonmises`."""

from __future__ import annotations

import math

from fgrad.numpy import cos, exp, greater, log, multiply, subtract, where
from fgrad.scipy.special import i0e
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """The log density, kappa (cos(x) - 1) - log(2 pi i0e(kappa)); NaN unless kappa > 0."""
    x, kappa = inexact(x, kappa)
    value = subtract(multiply(kappa, subtract(cos(x), 1.0)), log(multiply(2 * math.pi, i0e(kappa))))
    return where(greater(kappa, 0.0), value, math.nan)


def pdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, kappa))


name_errors_after(globals(), __all__, qualifier="vonmises.")
del name_errors_after  # not part of the namespace
