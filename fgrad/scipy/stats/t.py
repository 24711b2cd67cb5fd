"""Student's t distribution with df degrees of freedom, as `jax.scipy.stats.t`."""

from __future__ import annotations

import math

from fgrad.numpy import add, divide, exp, log, log1p, multiply, negative, square, subtract
from fgrad.scipy.special import gammaln
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log density, gammaln((df + 1)/2) - gammaln(df/2) - log(pi df scale^2)/2
    - (df + 1)/2 log1p(z^2 / df), z = (x - loc) / scale."""
    x, df, loc, scale = inexact(x, df, loc, scale)
    z = divide(subtract(x, loc), scale)
    half_df = divide(df, 2.0)
    half_df1 = add(half_df, 0.5)
    normalizer = subtract(add(gammaln(half_df), divide(log(multiply(multiply(square(scale), math.pi), df)), 2.0)),
                          gammaln(half_df1))
    return negative(add(normalizer, multiply(half_df1, log1p(divide(square(z), df)))))


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, df, loc, scale))


name_errors_after(globals(), __all__, qualifier="t.")
del name_errors_after  # not part of the namespace
