"""The multivariate normal distribution N(mean, cov) over x's last axis, as
`jax.scipy.stats.multivariate_normal`."""

from __future__ import annotations

import functools
import math

from fgrad.errors import InputError, ShapeError
from fgrad.lax.linalg import cholesky, triangular_solve
from fgrad.numpy import (
    add, diagonal, divide, einsum, exp, log, multiply, ndim, shape, square, subtract, sum, vectorize,
)
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact
from fgrad.trace import user_site

__all__ = ["logpdf", "pdf"]

_solve_lower = vectorize(functools.partial(triangular_solve, lower=True, transpose_a=True),
                         signature="(n,n),(n)->(n)")


def logpdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike, allow_singular: None = None) -> Array:
    """The log density, -|L^-1 (x - mean)|^2 / 2 - n log(2 pi) / 2 - sum of log diag(L), L the
    Cholesky factor of cov; a scalar cov means cov times the identity, a scalar mean one
    dimension."""
    if allow_singular is not None:
        raise InputError("allow_singular argument of multivariate_normal.logpdf is not supported (as in JAX)",
                         user_site())
    x, mean, cov = inexact(x, mean, cov)
    if ndim(mean) == 0:
        return subtract(divide(multiply(-0.5, square(subtract(x, mean))), cov),
                        multiply(0.5, add(math.log(2 * math.pi), log(cov))))
    n = shape(mean)[-1]
    y = subtract(x, mean)
    if ndim(cov) == 0:
        return subtract(divide(multiply(-0.5, einsum("...i,...i->...", y, y)), cov),
                        multiply(n / 2, add(math.log(2 * math.pi), log(cov))))
    if ndim(cov) < 2 or shape(cov)[-2:] != (n, n):
        raise ShapeError("multivariate_normal.logpdf got incompatible shapes", user_site())
    factor = cholesky(cov)
    y = _solve_lower(factor, y)
    return subtract(subtract(multiply(-0.5, einsum("...i,...i->...", y, y)), n / 2 * math.log(2 * math.pi)),
                    sum(log(diagonal(factor, axis1=-1, axis2=-2)), axis=-1))


def pdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, mean, cov))


name_errors_after(globals(), __all__, qualifier="multivariate_normal.")
del name_errors_after  # not part of the namespace
