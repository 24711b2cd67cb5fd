"""`jax.nn.initializers`: factories of `init(key, shape, dtype=float32)` functions drawing with `fg.random`.

Each draws as JAX's does, from the same `fg.random` sampler with the same key, and scales in the
dtype as JAX's, so the uniform families (uniform, variance_scaling's "uniform", glorot_/he_/
lecun_uniform) give JAX's values bit for bit; the normal families pass through erf_inv and agree
to its rounding. Keys may be traced: an init runs eagerly on NumPy, traced, or compiled.
`orthogonal` and `delta_orthogonal` take `fg.random.orthogonal`'s matrices (a QR factorization of
a normal draw), JAX's to the factorization's rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from fgrad import random
from fgrad.errors import DTypeError, ShapeError, TraceError, name_errors_after
from fgrad.ir import DType
from fgrad.numpy import (
    asarray, concatenate, divide, full, moveaxis, multiply, ones as _ones, reshape, sqrt, zeros as _zeros,
)
from fgrad.numpy.promotion import ArrayLike, _as_dtype
from fgrad.numpy.shapes import _shape_arg
from fgrad.trace import Tensor, user_site

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal",
    "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]

Array = Tensor | np.ndarray
Axes = int | Sequence[int]
# The standard deviation of a unit normal truncated to (-2, 2): variance_scaling divides it out.
TRUNCATED_STD = .87962566103423978


@runtime_checkable
class Initializer(Protocol):
    """What the factories return: `init(key, shape, dtype=None, out_sharding=None) -> array`."""

    def __call__(self, key: ArrayLike, shape: Sequence[int], dtype: Any = None, out_sharding: Any = None) -> Array:
        raise NotImplementedError


def _named(name: str, init: Callable[..., Array]) -> Initializer:
    """`init`, its fgrad errors named after the factory that built it ("he_normal: normal: ...")."""
    init.__name__ = init.__qualname__ = name
    namespace = {name: init}
    name_errors_after(namespace, [name])
    return namespace[name]


def _arguments(name: str, shape: Any, dtype: Any, out_sharding: Any, floats: bool = True
               ) -> tuple[tuple[int, ...], DType]:
    """An init's shape and dtype (f32 where None; a float where `floats`)."""
    if out_sharding is not None:
        raise TraceError(f"{name}: out_sharding is not supported (fgrad runs on one device); pass None", user_site())
    dims = _shape_arg(name, shape)
    if any(not isinstance(d, int) or d < 0 for d in dims):
        raise ShapeError(f"{name}: shape {shape!r} must be non-negative integers", user_site())
    dt = DType.f32 if dtype is None else _as_dtype(dtype, name)
    if floats and not dt.is_float:
        raise DTypeError(f"{name}: initializes floats (f32 or f16), got dtype {dt}", user_site())
    return dims, dt


def zeros(key: ArrayLike, shape: Sequence[int], dtype: Any = None, out_sharding: Any = None) -> Array:
    """An array of zeros (f32 unless `dtype`); the key is ignored."""
    dims, dt = _arguments("zeros", shape, dtype, out_sharding, floats=False)
    return _zeros(dims, dt)


def ones(key: ArrayLike, shape: Sequence[int], dtype: Any = None, out_sharding: Any = None) -> Array:
    """An array of ones (f32 unless `dtype`); the key is ignored."""
    dims, dt = _arguments("ones", shape, dtype, out_sharding, floats=False)
    return _ones(dims, dt)


def constant(value: ArrayLike, dtype: Any = None) -> Initializer:
    """An initializer of arrays full of `value` (in `dtype`, by default the init's, f32 where None)."""
    def init(key: ArrayLike, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dims, dt = _arguments("constant", shape, dtype, out_sharding, floats=False)
        return full(dims, value, dt)

    return _named("constant", init)


def uniform(scale: ArrayLike = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer of floats uniform in [0, scale)."""
    def init(key: ArrayLike, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dims, dt = _arguments("uniform", shape, dtype, out_sharding)
        return multiply(random.uniform(key, dims, dt), asarray(scale, dt))

    return _named("uniform", init)


def normal(stddev: ArrayLike = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer of normal floats of mean 0 and standard deviation `stddev`."""
    def init(key: ArrayLike, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dims, dt = _arguments("normal", shape, dtype, out_sharding)
        return multiply(random.normal(key, dims, dt), asarray(stddev, dt))

    return _named("normal", init)


def truncated_normal(stddev: ArrayLike = 1e-2, dtype: Any = None, lower: ArrayLike = -2.0,
                     upper: ArrayLike = 2.0) -> Initializer:
    """An initializer of unit normal floats truncated to (lower, upper), then times `stddev`
    (the standard deviation before truncation: no correction, unlike variance_scaling's)."""
    def init(key: ArrayLike, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dims, dt = _arguments("truncated_normal", shape, dtype, out_sharding)
        return multiply(random.truncated_normal(key, lower, upper, dims, dt), asarray(stddev, dt))

    return _named("truncated_normal", init)


def _size(name: str, shape: tuple[int, ...], axes: Axes) -> int:
    try:
        return shape[axes] if isinstance(axes, int) else math.prod(shape[k] for k in axes)
    except (IndexError, TypeError):
        raise ShapeError(f"{name}: axes {axes!r} are not axes of the shape {shape}", user_site()) from None


def _fans(name: str, shape: tuple[int, ...], in_axis: Axes, out_axis: Axes, batch_axis: Axes) -> tuple[float, float]:
    """The effective input and output sizes of a dense or convolutional kernel, as JAX's: the axes
    in none of in_axis, out_axis and batch_axis form the receptive field, which multiplies both."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ShapeError(f"{name}: cannot tell the input and output sizes of a {len(shape)}-axis shape {shape} with "
                         "the default in_axis; give a shape of 2 or more axes, or in_axis", user_site())
    if 0 in shape:
        raise ShapeError(f"{name}: the shape {shape} has no elements; its fans would scale by 1/0", user_site())
    in_size, out_size = _size(name, shape, in_axis), _size(name, shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _size(name, shape, batch_axis)
    return in_size * receptive, out_size * receptive


MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def _variance_scaling(name: str, scale: ArrayLike, mode: str, distribution: str, in_axis: Axes, out_axis: Axes,
                      batch_axis: Axes, dtype: Any) -> Initializer:
    if mode not in MODES:
        raise TraceError(f"{name}: invalid mode {mode!r}; expected one of {', '.join(MODES)}", user_site())
    if distribution not in DISTRIBUTIONS:
        raise TraceError(f"{name}: invalid distribution {distribution!r}; expected one of "
                         f"{', '.join(DISTRIBUTIONS)}", user_site())

    def init(key: ArrayLike, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dims, dt = _arguments(name, shape, dtype, out_sharding)
        fan_in, fan_out = _fans(name, dims, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
        variance = asarray(scale / denominator, dt)  # in the dtype, then each step rounded in it, as JAX's
        if distribution == "truncated_normal":
            stddev = divide(sqrt(variance), asarray(TRUNCATED_STD, dt))
            return multiply(random.truncated_normal(key, -2, 2, dims, dt), stddev)
        if distribution == "normal":
            return multiply(random.normal(key, dims, dt), sqrt(variance))
        return multiply(random.uniform(key, dims, dt, -1), sqrt(multiply(3, variance)))

    return _named(name, init)


def variance_scaling(scale: ArrayLike, mode: Literal["fan_in", "fan_out", "fan_avg", "fan_geo_avg"],
                     distribution: Literal["truncated_normal", "normal", "uniform"], in_axis: Axes = -2,
                     out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """An initializer of standard deviation sqrt(scale / n), n the fan-in, fan-out, their mean or
    geometric mean by `mode`, drawn from a normal, a normal truncated at 2 standard deviations
    (its deviation corrected to sqrt(scale / n)), or a uniform in [-sqrt(3 scale / n), +...).
    Axes in none of in_axis, out_axis and batch_axis are a convolution's receptive field.
    A wrong mode or distribution is refused here, where JAX refuses it at the init's call."""
    return _variance_scaling("variance_scaling", scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)


def glorot_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
                   ) -> Initializer:
    """variance_scaling(1, "fan_avg", "uniform") (Glorot & Bengio 2010; also xavier_uniform)."""
    return _variance_scaling("glorot_uniform", 1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
                  ) -> Initializer:
    """variance_scaling(1, "fan_avg", "truncated_normal") (also xavier_normal)."""
    return _variance_scaling("glorot_normal", 1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis,
                             dtype)


def lecun_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
                  ) -> Initializer:
    """variance_scaling(1, "fan_in", "uniform")."""
    return _variance_scaling("lecun_uniform", 1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
                 ) -> Initializer:
    """variance_scaling(1, "fan_in", "truncated_normal")."""
    return _variance_scaling("lecun_normal", 1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(2, "fan_in", "uniform") (He et al. 2015; also kaiming_uniform)."""
    return _variance_scaling("he_uniform", 2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(2, "fan_in", "truncated_normal") (also kaiming_normal)."""
    return _variance_scaling("he_normal", 2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def _orthogonal(name: str, key: ArrayLike, dims: tuple[int, ...], dt: DType, scale: ArrayLike,
                column_axis: int) -> Array:
    if len(dims) < 2:
        raise ShapeError(f"{name}: needs a shape of at least 2 axes, got {dims}", user_site())
    if isinstance(column_axis, bool) or not isinstance(column_axis, (int, np.integer)) or \
            not -len(dims) <= column_axis < len(dims):
        raise ShapeError(f"{name}: column_axis {column_axis!r} is not an axis of {dims}", user_site())
    if 0 in dims:
        return _zeros(dims, dt)
    columns = dims[column_axis]
    rows = math.prod(dims) // columns
    q = random.orthogonal(key, rows, (), dt, columns)
    q = reshape(q, tuple(d for k, d in enumerate(dims) if k != column_axis % len(dims)) + (columns,))
    return multiply(asarray(scale, dt), moveaxis(q, -1, column_axis))


def orthogonal(scale: ArrayLike = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """An initializer of Haar-random orthogonal matrices times `scale`: the shape's `column_axis`
    holds the columns, the other axes flattened the rows; orthonormal columns (or rows, where
    there are fewer rows than columns)."""
    def init(key: ArrayLike, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dims, dt = _arguments("orthogonal", shape, dtype, out_sharding)
        return _orthogonal("orthogonal", key, dims, dt, scale, column_axis)

    return _named("orthogonal", init)


def delta_orthogonal(scale: ArrayLike = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """An initializer of convolution kernels (3 to 5 axes, the last two in and out channels, in
    <= out) that are an orthogonal matrix at the centre of the window and zero elsewhere (Xiao et
    al. 2018), as JAX's."""
    def init(key: ArrayLike, shape: Sequence[int], dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dims, dt = _arguments("delta_orthogonal", shape, dtype, out_sharding)
        if len(dims) not in (3, 4, 5):
            raise ShapeError(f"delta_orthogonal: needs a shape of 3, 4 or 5 axes, got {dims}", user_site())
        if dims[-1] < dims[-2]:
            raise ShapeError(f"delta_orthogonal: fan_in {dims[-2]} must be at most fan_out {dims[-1]} in {dims}",
                             user_site())
        matrix = _orthogonal("delta_orthogonal", key, dims[-2:], dt, scale, column_axis)
        window = dims[:-2]
        centre = int(np.ravel_multi_index([(k - 1) // 2 for k in window], window))
        zeros = _zeros((math.prod(window) - 1 - centre, *dims[-2:]), dt)
        taps = concatenate([_zeros((centre, *dims[-2:]), dt), reshape(matrix, (1, *dims[-2:])), zeros])
        return reshape(taps, dims)

    return _named("delta_orthogonal", init)


xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal

name_errors_after(globals(), [n for n in __all__ if n != "Initializer"])
