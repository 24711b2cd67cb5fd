"""The Gaussian kernel density estimator, as `jax.scipy.stats.gaussian_kde`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from fgrad import random
from fgrad.errors import InputError, ShapeError
from fgrad.numpy import (
    add, atleast_1d, atleast_2d, cov, diag, divide, dot, exp, expand_dims, full, isscalar, log, moveaxis, multiply,
    ndim, negative, power, prod, reshape, sqrt, square, squeeze, subtract, sum, take, zeros,
)
from fgrad.numpy.linalg import cholesky, inv, solve
from fgrad.scipy.special import logsumexp, ndtr
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact
from fgrad.trace import user_site
from fgrad.tree_util import register_pytree_node

__all__ = ["gaussian_kde"]

_FIELDS = ("neff", "dataset", "weights", "covariance", "inv_cov")


@dataclasses.dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """A Gaussian kernel density estimate of `dataset` ((n,) or (d, n): n points of d dimensions),
    as `jax.scipy.stats.gaussian_kde`: the points weighted by `weights` (uniform if None), each
    the centre of a normal of the data's weighted covariance times factor^2, the factor given by
    `bw_method` ('scott', the default: neff^(-1/(d+4)); 'silverman': (neff (d+2)/4)^(-1/(d+4));
    a scalar; or a callable of the estimator). A pytree (its arrays the leaves), so it passes
    through fg.jit, vmap and grad."""

    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset: ArrayLike, bw_method: str | ArrayLike | Callable[[Any], Any] | None = None,
                 weights: ArrayLike | None = None) -> None:
        dataset = atleast_2d(dataset)
        if not math.prod(dataset.shape) > 1:
            raise ShapeError(f"gaussian_kde: `dataset` should have more than one element, got shape "
                             f"{tuple(dataset.shape)}", user_site())
        d, n = dataset.shape
        if weights is not None:
            dataset, weights = inexact(dataset, weights)
            weights = atleast_1d(weights)
            if ndim(weights) != 1 or weights.shape[0] != n:
                raise ShapeError(f"gaussian_kde: `weights` should be one-dimensional of length n = {n}, got shape "
                                 f"{tuple(weights.shape)}", user_site())
            weights = divide(weights, sum(weights))
        else:
            (dataset,) = inexact(dataset)
            weights = full(n, 1.0 / n, dtype=dataset.dtype)
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", divide(1.0, sum(square(weights))))
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = power(divide(multiply(neff, d + 2), 4.0), -1.0 / (d + 4))
        elif isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise InputError(f"gaussian_kde: `bw_method` should be 'scott', 'silverman', a scalar or a callable, "
                             f"got {bw_method!r}", user_site())
        data_covariance = atleast_2d(cov(dataset, rowvar=True, bias=False, aweights=weights))
        factor2 = square(factor)
        self._set("covariance", multiply(data_covariance, factor2))
        self._set("inv_cov", divide(inv(data_covariance), factor2))

    def _set(self, name: str, value: Any) -> Any:
        object.__setattr__(self, name, value)  # frozen: set once, while being built
        return value

    def tree_flatten(self) -> tuple[tuple[Any, ...], None]:
        """The pytree's children: neff, dataset, weights, covariance and inv_cov; no static data."""
        return tuple(getattr(self, name) for name in _FIELDS), None

    @classmethod
    def tree_unflatten(cls, aux_data: None, children: Any) -> gaussian_kde:
        """The estimator of the children `tree_flatten` gives (without computing anything)."""
        kde = cls.__new__(cls)
        for name, value in zip(_FIELDS, children):
            kde._set(name, value)
        return kde

    @property
    def d(self) -> int:
        """The number of dimensions."""
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        """The number of data points."""
        return self.dataset.shape[1]

    def evaluate(self, points: ArrayLike) -> Array:
        """The density at `points` ((d, m), or (m,) for d = 1, or (d,) for one point)."""
        return _kernel_sum(False, self, self._points("evaluate", points))

    def __call__(self, points: ArrayLike) -> Array:
        """The density at `points`, as `evaluate`."""
        return self.evaluate(points)

    def pdf(self, x: ArrayLike) -> Array:
        """The density at `x`, as `evaluate`."""
        return self.evaluate(x)

    def logpdf(self, x: ArrayLike) -> Array:
        """The log density at `x`: a logsumexp over the data points, accurate far in the tails."""
        return _kernel_sum(True, self, self._points("logpdf", x))

    def integrate_gaussian(self, mean: ArrayLike, cov: ArrayLike) -> Array:
        """The integral of the density times the normal density N(mean, cov)."""
        mean = atleast_1d(squeeze(mean))
        cov = atleast_2d(cov)
        if tuple(mean.shape) != (self.d,) or tuple(cov.shape) != (self.d, self.d):
            raise ShapeError(f"gaussian_kde.integrate_gaussian: mean {tuple(mean.shape)} and cov "
                             f"{tuple(cov.shape)} do not have the dataset's dimension {self.d}", user_site())
        total = add(self.covariance, cov)
        return _convolve(total, _norm(total, self.d), self.dataset, self.weights, mean)

    def integrate_box_1d(self, low: ArrayLike, high: ArrayLike) -> Array:
        """The integral of a one-dimensional density from `low` to `high` (scalars)."""
        if self.d != 1:
            raise ShapeError(f"gaussian_kde.integrate_box_1d: only one-dimensional densities, this one has "
                             f"d = {self.d}", user_site())
        if ndim(low) != 0 or ndim(high) != 0:
            raise ShapeError("gaussian_kde.integrate_box_1d: the limits of integration must be scalars", user_site())
        sigma = squeeze(sqrt(self.covariance))
        low = squeeze(divide(subtract(low, self.dataset), sigma))
        high = squeeze(divide(subtract(high, self.dataset), sigma))
        return sum(multiply(self.weights, subtract(ndtr(high), ndtr(low))))

    def integrate_kde(self, other: gaussian_kde) -> Array:
        """The integral of the product of this density and `other`'s."""
        if other.d != self.d:
            raise ShapeError(f"gaussian_kde.integrate_kde: the estimators' dimensions differ ({self.d} and "
                             f"{other.d})", user_site())
        total = add(self.covariance, other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        # every point of the smaller dataset a mean, at once: (d, n_small, n_large) differences
        diff = subtract(expand_dims(large.dataset, 1), expand_dims(small.dataset, 2))
        alpha = moveaxis(solve(total, moveaxis(diff, 0, -2)), -2, 0)
        kernel = exp(multiply(-0.5, sum(multiply(diff, alpha), axis=0)))
        per_point = multiply(_norm(total, self.d), sum(multiply(kernel, large.weights), axis=1))
        return sum(multiply(per_point, small.weights))

    def resample(self, key: ArrayLike, shape: tuple[int, ...] = ()) -> Array:
        """Samples of the density, shape (d,) + `shape`: a data point drawn by its weight (with
        `fg.random.choice`), plus a normal of the kernel's covariance."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = random.multivariate_normal(eps_key, zeros(self.d, self.covariance.dtype), self.covariance,
                                         shape=shape, dtype=self.dataset.dtype)
        # NOTE: JAX transposes eps whole (.T), the same as this for a shape of at most one axis
        return add(take(self.dataset, ind, axis=1), moveaxis(eps, -1, 0))

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Array:
        """Not provided (as in JAX): only integrate_box_1d."""
        raise InputError("gaussian_kde.integrate_box: only 1-D box integrations are supported (as in JAX); use "
                         "integrate_box_1d", user_site())

    def set_bandwidth(self, bw_method: Any = None) -> None:
        """Not provided (as in JAX): the bandwidth is fixed when the estimator is built."""
        raise InputError("gaussian_kde.set_bandwidth: changing the bandwidth is not supported (as in JAX); build a "
                         "new gaussian_kde", user_site())

    def _points(self, name: str, points: ArrayLike) -> Array:
        points = atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return reshape(points, (self.d, 1))
            raise ShapeError(f"gaussian_kde.{name}: points have dimension {d}, the dataset has dimension "
                             f"{self.d}", user_site())
        return points


def _norm(covariance: Array, d: int) -> Array:
    """1 / sqrt(det(2 pi covariance)), through the Cholesky factor's diagonal."""
    return divide(1.0, multiply(math.sqrt(2 * math.pi) ** d, prod(diag(cholesky(covariance)))))


def _convolve(covariance: Array, norm: Array, target: Array, weights: Array, mean: Array) -> Array:
    """norm * sum of weights * exp(-(t - mean)' covariance^-1 (t - mean) / 2) over target's columns t."""
    diff = subtract(target, expand_dims(mean, 1))
    arg = multiply(0.5, sum(multiply(diff, solve(covariance, diff)), axis=0))
    return multiply(norm, sum(multiply(exp(negative(arg)), weights)))


def _kernel_sum(in_log: bool, kde: gaussian_kde, xi: Array) -> Array:
    """The weighted sum (log: logsumexp) of the kernels at each column of `xi`, in whitened
    coordinates (the data and the points times the Cholesky factor of the inverse covariance)."""
    points, weights, xi, precision = inexact(kde.dataset, kde.weights, xi, kde.inv_cov)
    d = points.shape[0]
    whitening = cholesky(precision)
    points, xi = dot(points.T, whitening), dot(xi.T, whitening)
    log_norm = subtract(sum(log(diag(whitening))), 0.5 * d * math.log(2 * math.pi))
    arg = subtract(log_norm, multiply(0.5, sum(square(subtract(expand_dims(points, 0), expand_dims(xi, 1))), -1)))
    if in_log:
        return logsumexp(add(log(weights), arg), axis=1)
    return sum(multiply(weights, exp(arg)), axis=1)


register_pytree_node(gaussian_kde, gaussian_kde.tree_flatten, gaussian_kde.tree_unflatten)
