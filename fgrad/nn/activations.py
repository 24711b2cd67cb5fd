"""Activation functions and the other functions of `jax.nn`.

Each is written with fgrad's public functions, as `jax.nn` writes them with `jax.numpy`'s, so
they fuse into the kernel of their neighbours and their derivatives come from the primitives'
rules; where JAX defines a derivative at a kink (relu6 at 0 and 6), the formula is chosen so
that the rules give it. Integer and bool inputs compute in f32.
"""

from __future__ import annotations

import math

import numpy as np

from fgrad.errors import ShapeError, TraceError
from fgrad.numpy import (
    abs, add, asarray, broadcast_to, clip, divide, exp, expm1, gelu, greater, greater_equal, less, less_equal,
    log, log1p, log_softmax, logaddexp, logsumexp, maximum, mean, minimum, multiply, neg, relu, rsqrt, sigmoid,
    silu, softmax, split, sqrt, square, subtract, sum, tanh, where,
)
from fgrad.numpy.promotion import ArrayLike, _axes, _dtype, _float_dtype, _one_axis, _shape
from fgrad.trace import Tensor, user_site
from fgrad.transforms.custom import custom_jvp

__all__ = [  # re-exported by fgrad.nn
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
    "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "mish", "relu", "relu6", "selu", "sigmoid",
    "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize",
    "swish", "tanh",
]

Array = Tensor | np.ndarray
swish = silu


def _float(x: ArrayLike) -> Array:
    return asarray(x, _float_dtype(_dtype(x)))


def identity(x: ArrayLike) -> Array:
    """x itself."""
    return asarray(x)


def softplus(x: ArrayLike) -> Array:
    """log(1 + e^x), as logaddexp(x, 0): no overflow, and 1/2 as its derivative at 0."""
    return logaddexp(x, 0.0)


def log_sigmoid(x: ArrayLike) -> Array:
    """log(sigmoid(x)) = -softplus(-x), finite in both tails."""
    return neg(softplus(neg(asarray(x))))


def sparse_plus(x: ArrayLike) -> Array:
    """0 below -1, x above 1, (x + 1)^2 / 4 between: a smooth relu."""
    x = _float(x)
    return where(less_equal(x, -1.0), 0.0, where(greater_equal(x, 1.0), x, multiply(square(add(x, 1.0)), 0.25)))


def sparse_sigmoid(x: ArrayLike) -> Array:
    """clip(x + 1, 0, 2) / 2: the derivative of sparse_plus."""
    return multiply(clip(add(x, 1.0), 0.0, 2.0), 0.5)


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """(x + sqrt(x^2 + b)) / 2: a smooth relu without exponentials."""
    x = asarray(x)
    return divide(add(x, sqrt(add(square(x), b))), 2.0)


def relu6(x: ArrayLike) -> Array:
    """min(max(x, 0), 6), with JAX's derivative: 1 strictly between 0 and 6, 0 at both kinks."""
    x = asarray(x)
    return where(greater_equal(x, 6.0), 6.0, relu(x))  # relu's derivative at 0 is 0; NaN stays NaN


def hard_sigmoid(x: ArrayLike) -> Array:
    """relu6(x + 3) / 6: a piecewise-linear sigmoid."""
    return divide(relu6(add(x, 3.0)), 6.0)


def hard_silu(x: ArrayLike) -> Array:
    """x hard_sigmoid(x)."""
    return multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def hard_tanh(x: ArrayLike) -> Array:
    """x clipped to [-1, 1] (-1 below, 1 above), as jax.nn's; integers stay integers."""
    x = asarray(x)
    return where(greater(x, 1), 1, where(less(x, -1), -1, x))


def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 1e-2) -> Array:
    """x where x >= 0, else negative_slope x."""
    x = asarray(x)
    return where(greater_equal(x, 0), x, multiply(negative_slope, x))


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """x where x > 0, else alpha (e^x - 1); the unused branch sees 0, so it never overflows."""
    x = asarray(x)
    positive = greater(x, 0)
    return where(positive, x, multiply(alpha, expm1(where(positive, 0.0, x))))


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """max(x, 0) + alpha (e^(min(x, 0) / alpha) - 1): elu made continuously differentiable in alpha."""
    return add(maximum(x, 0.0), multiply(alpha, expm1(divide(minimum(x, 0.0), alpha))))


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(x: ArrayLike) -> Array:
    """The scaled elu of self-normalizing networks: scale elu(x, alpha)."""
    return multiply(SELU_SCALE, elu(x, SELU_ALPHA))


def mish(x: ArrayLike) -> Array:
    """x tanh(softplus(x))."""
    x = _float(x)
    return multiply(x, tanh(softplus(x)))


def soft_sign(x: ArrayLike) -> Array:
    """x / (|x| + 1)."""
    x = asarray(x)
    return divide(x, add(abs(x), 1))


@custom_jvp
def log1mexp(x: ArrayLike) -> Array:
    """log(1 - e^-x) for x >= 0 (Maechler's two branches: log(-expm1(-x)) below log 2,
    log1p(-e^-x) above, each where the other loses digits). Its derivative is a custom rule, as
    JAX's: 1 / (e^x - 1), one expm1, and +inf at 0, where the branches' derivatives give NaN."""
    x = asarray(x)
    return where(less(x, math.log(2)), log(neg(expm1(neg(x)))), log1p(neg(exp(neg(x)))))


log1mexp.defjvps(lambda t, ans, x: divide(t, expm1(x)))


def glu(x: ArrayLike, axis: int = -1) -> Array:
    """The gated linear unit: the first half of x along `axis` times the sigmoid of the second."""
    x = asarray(x)
    shape = _shape(x)
    k = _one_axis("glu", x, axis)
    if shape[k] % 2:
        raise ShapeError(f"glu: axis {axis} of {shape} has odd length {shape[k]}; it must split in two halves",
                         user_site())
    a, b = split(x, 2, k)
    return multiply(a, sigmoid(b))


def standardize(x: ArrayLike, axis: int | tuple[int, ...] | None = -1, mean: ArrayLike | None = None,
                variance: ArrayLike | None = None, epsilon: ArrayLike = 1e-5, where: ArrayLike | None = None, *,
                algorithm: str = "fast") -> Array:
    """(x - mean) / sqrt(variance + epsilon) along `axis`, as `jax.nn.standardize`: the mean and
    variance (clipped at 0) of x over `axis` unless given; algorithm "fast" takes the variance as
    mean(x^2) - mean^2, "stable" as mean((x - mean)^2). `where` is not supported."""
    if where is not None:
        raise TraceError("standardize: where= is not supported; weight the values, or pass mean= and variance=",
                         user_site())
    if algorithm not in ("fast", "stable"):
        raise TraceError(f"standardize: unknown algorithm {algorithm!r}; expected 'fast' or 'stable'", user_site())
    x = asarray(x)
    if mean is None:
        mean = _mean(x, axis)
    if variance is None:
        if algorithm == "stable":
            variance = _mean(square(subtract(x, mean)), axis)
        else:  # one pass over x, as jax.nn's default; clipped where rounding makes it negative
            variance = clip(subtract(_mean(square(x), axis), square(mean)), 0)
    return multiply(subtract(x, mean), rsqrt(add(variance, epsilon)))


def logmeanexp(x: ArrayLike, axis: int | tuple[int, ...] | None = None, where: ArrayLike | None = None,
               keepdims: bool = False) -> Array:
    """log(mean(e^x)) over `axis`, as `jax.nn.logmeanexp`: logsumexp(x) - log(n), n the number of
    terms (those where the bool `where` holds; -inf - -inf = NaN where it holds for none)."""
    lse = logsumexp(x, axis, keepdims=keepdims, where=where)
    if where is None:  # a count of the shape alone, known on the host
        shape = _shape(x)
        count = math.prod(shape[k] for k in _axes("logmeanexp", shape, axis))
    else:
        count = sum(broadcast_to(asarray(where, _dtype(lse)), _shape(x)), axis, keepdims=keepdims)
    return subtract(lse, log(asarray(count, _dtype(lse))))


def _mean(x: Array, axis: int | tuple[int, ...] | None) -> Array:
    return mean(x, axis, keepdims=True)
