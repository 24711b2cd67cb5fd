"""The multinomial distribution of n trials over categories of probabilities p (the last axis),
as `jax.scipy.stats.multinomial`."""

from __future__ import annotations

import math

from fgrad.errors import DTypeError
from fgrad.numpy import add, asarray, equal, exp, subtract, sum, where
from fgrad.numpy.promotion import _dtype, result_dtype
from fgrad.scipy.special import gammaln, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact
from fgrad.trace import user_site

__all__ = ["logpmf", "pmf"]


def logpmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """The log mass, gammaln(n + 1) + sum of x log(p) - gammaln(x + 1) over the last axis, for
    integer counts x and n; -inf unless the counts (all of x, as JAX sums them) add up to n."""
    if not result_dtype(x, n).is_int:
        raise DTypeError(f"x and n must be of integer type; got x.dtype={_dtype(x).name}, n.dtype={_dtype(n).name}",
                         user_site())
    (p,) = inexact(p)
    x, n = asarray(x, _dtype(p)), asarray(n, _dtype(p))
    log_probs = add(gammaln(add(n, 1.0)), sum(subtract(xlogy(x, p), gammaln(add(x, 1.0))), axis=-1))
    return where(equal(sum(x), n), log_probs, -math.inf)


def pmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """The mass, exp(logpmf)."""
    return exp(logpmf(x, n, p))


name_errors_after(globals(), __all__, qualifier="multinomial.")
del name_errors_after  # not part of the namespace
