"""The geometric distribution (trials to the first success, p each), as `jax.scipy.stats.geom`."""

from __future__ import annotations

import math

from fgrad.numpy import add, exp, less_equal, log, negative, subtract, where
from fgrad.scipy.special import xlog1py
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log mass, (x - 1) log(1 - p) + log(p), x = k - loc; -inf for x <= 0."""
    k, p, loc = inexact(k, p, loc)
    x = subtract(k, loc)
    log_probs = add(xlog1py(subtract(x, 1.0), negative(p)), log(p))
    return where(less_equal(x, 0.0), -math.inf, log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The mass, exp(logpmf)."""
    return exp(logpmf(k, p, loc))


name_errors_after(globals(), __all__, qualifier="geom.")
del name_errors_after  # not part of the namespace
