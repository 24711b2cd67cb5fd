"""The negative binomial distribution (failures before the n-th success, p each), as
`jax.scipy.stats.nbinom`."""

from __future__ import annotations

import math

from fgrad.numpy import add, exp, less, subtract, where
from fgrad.scipy.special import gammaln, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log mass, log((y + n - 1) choose y) + n log(p) + y log(1 - p), y = k - loc; -inf
    below loc."""
    k, n, p, loc = inexact(k, n, p, loc)
    y = subtract(k, loc)
    comb = subtract(subtract(gammaln(add(y, n)), gammaln(n)), gammaln(add(y, 1.0)))
    log_linear = add(xlogy(n, p), xlogy(y, subtract(1.0, p)))
    return where(less(k, loc), -math.inf, add(comb, log_linear))


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The mass, exp(logpmf)."""
    return exp(logpmf(k, n, p, loc))


name_errors_after(globals(), __all__, qualifier="nbinom.")
del name_errors_after  # not part of the namespace
