"""The Poisson distribution of mean mu, as `jax.scipy.stats.poisson`."""

from __future__ import annotations

import math

import numpy as np

from fgrad.numpy import (
    add, asarray, broadcast_arrays, ceil, divide, equal, exp, floor, less, log, logical_or, multiply,
    not_equal, reshape, round, sqrt, subtract, sum, where, zeros_like,
)
from fgrad.numpy.promotion import _dtype
from fgrad.scipy.special import entr, gammaincc, gammaln, xlogy
from fgrad.errors import name_errors_after
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


def logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log mass, x log(mu) - gammaln(x + 1) - mu, x = k - loc; -inf below loc and at
    non-integer k."""
    k, mu, loc = inexact(k, mu, loc)
    x = subtract(k, loc)
    log_probs = subtract(subtract(xlogy(x, mu), gammaln(add(x, 1.0))), mu)
    return where(logical_or(less(x, 0.0), not_equal(round(k), k)), -math.inf, log_probs)


def pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The mass, exp(logpmf)."""
    return exp(logpmf(k, mu, loc))


def cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """P(K <= k) = gammaincc(floor(k - loc + 1), mu); 0 below loc."""
    k, mu, loc = inexact(k, mu, loc)
    x = subtract(k, loc)
    return where(less(x, 0.0), 0.0, gammaincc(floor(add(x, 1.0)), mu))


def _entropy_by_sum(mu: Array, terms: int, bound: Array) -> Array:
    """-sum over k < min(terms, bound) of pmf(k) log pmf(k)."""
    shape = (terms,) + (1,) * len(np.shape(mu))
    k = reshape(asarray(np.arange(terms), _dtype(mu)), shape)
    probs = where(less(k, bound), pmf(k, mu, 0.0), 0.0)
    return sum(entr(probs), axis=0)


def entropy(mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The entropy: the sum of -pmf log pmf (35 terms for mu < 10, 250 for mu < 100), else
    log(2 pi e mu) / 2 - 1 / (12 mu); 0 at mu = 0. loc moves nothing."""
    mu, loc = inexact(mu, loc)
    small = _entropy_by_sum(mu, 35, ceil(add(mu, 20.0)))
    medium = _entropy_by_sum(mu, 250, ceil(add(add(mu, multiply(10.0, sqrt(mu))), 20.0)))
    large = subtract(multiply(0.5, log(multiply(2 * math.pi * math.e, mu))), divide(1.0, multiply(12.0, mu)))
    value = where(equal(mu, 0.0), zeros_like(mu), where(less(mu, 10.0), small, where(less(mu, 100.0), medium, large)))
    return broadcast_arrays(value, loc)[0]


name_errors_after(globals(), __all__, qualifier="poisson.")
del name_errors_after  # not part of the namespace
