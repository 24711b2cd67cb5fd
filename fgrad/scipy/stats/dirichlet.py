"""The Dirichlet distribution of concentrations alpha, over the first axis of x, as
`jax.scipy.stats.dirichlet`."""

from __future__ import annotations

import math

from fgrad.errors import ShapeError
from fgrad.numpy import (
    abs, all, concatenate, exp, greater, less, logical_and, ndim, reshape, shape, subtract, sum, where,
)
from fgrad.scipy.special import gammaln, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact
from fgrad.trace import user_site

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """The log density, sum of (alpha - 1) log x - (sum of gammaln(alpha) - gammaln(sum of alpha)),
    x's first axis holding the K components (or K - 1, the last then 1 - their sum); -inf off the
    simplex (a component <= 0, or a sum more than 1e-6 from 1)."""
    x, alpha = inexact(x, alpha)
    if ndim(alpha) != 1:
        raise ShapeError(f"`alpha` must be one-dimensional; got alpha.shape={shape(alpha)}", user_site())
    k = shape(alpha)[0]
    if ndim(x) == 0 or shape(x)[0] not in (k, k - 1):
        raise ShapeError("`x` must have either the same number of entries as `alpha` or one entry fewer; "
                         f"got x.shape={shape(x)}, alpha.shape={shape(alpha)}", user_site())
    if shape(x)[0] != k:
        x = concatenate([x, subtract(1.0, sum(x, axis=0, keepdims=True))], axis=0)
    normalizer = subtract(sum(gammaln(alpha)), gammaln(sum(alpha)))
    alpha = reshape(alpha, (k,) + (1,) * (ndim(x) - 1))
    log_probs = subtract(sum(xlogy(subtract(alpha, 1.0), x), axis=0), normalizer)
    on_simplex = logical_and(all(greater(x, 0.0), axis=0), less(abs(subtract(sum(x, axis=0), 1.0)), 1e-6))
    return where(on_simplex, log_probs, -math.inf)


def pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """The density, exp(logpdf)."""
    return exp(logpdf(x, alpha))


name_errors_after(globals(), __all__, qualifier="dirichlet.")
del name_errors_after  # not part of the namespace
