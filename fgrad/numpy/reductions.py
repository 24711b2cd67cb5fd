"""Reductions over axes (sum, mean, max, min, argmax, argmin, logsumexp), softmax and cumsum."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fgrad.errors import ShapeError, TraceError
from fgrad.ir import Dim, DType, Primitive
from fgrad.primitives import argmax_p, argmin_p, cumsum_p, log_softmax_p, max_p, min_p, softmax_p, sum_p
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _arith_dtype, _as_dtype, _axes, _brief, _dtype, _float_dtype, _one_axis, _shape,
    asarray,
)
from fgrad.numpy.shapes import reshape
from fgrad.numpy.elementwise import (
    abs, add, astype, divide, equal, exp, less, log, multiply, not_equal, stop_gradient, subtract,
    where,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "argmax", "argmin", "cumsum", "log_softmax", "logsumexp", "max", "mean", "min", "softmax", "sum",
]


def _keepdims(out: Tensor | np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor | np.ndarray:
    return reshape(out, tuple(1 if i in axes else d for i, d in enumerate(shape)))


def sum(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Sum over `axis` (all axes if None). Bools are counted as i32."""
    x = asarray(x, _arith_dtype(x))
    axes = _axes("sum", _shape(x), axis)
    out = bind(sum_p, x, axes=axes) if axes else x
    return _keepdims(out, _shape(x), axes) if keepdims else out


def mean(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Mean over `axis` (all axes if None), in x's float dtype (f32 for integers and bools).
    As jnp.mean, it sums and divides in the dtype's `wide` one and rounds once (the mean of
    f16 values whose sum passes 65504 is still finite)."""
    dtype = _float_dtype(_dtype(x))
    x = asarray(x, dtype.wide)
    axes = _axes("mean", _shape(x), axis)
    sizes = [_shape(x)[a] for a in axes]
    scale = 1.0 / math.prod(d for d in sizes if not isinstance(d, Dim))
    symbols = [d for d in sizes if isinstance(d, Dim)]
    if symbols:  # their values are known at call time: the scale divides by them there
        for d in symbols:
            scale = divide(scale, d)
        scale = astype(scale, dtype.wide)
    return astype(multiply(sum(x, axes, keepdims), scale), dtype)


def max(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Maximum over `axis` (all axes if None); NaN wins; bools give bool (any)."""
    return _pick_reduce(max_p, x, axis, keepdims)


def min(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Minimum over `axis` (all axes if None); NaN wins; bools give bool (all)."""
    return _pick_reduce(min_p, x, axis, keepdims)


def _pick_reduce(op: Primitive, x: ArrayLike, axis: int | Sequence[int] | None, keepdims: bool) -> Tensor | np.ndarray:
    x = asarray(x)
    axes = _axes(op.name, _shape(x), axis)
    out = bind(op, x, axes=axes) if axes else x
    return _keepdims(out, _shape(x), axes) if keepdims else out


def argmax(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Index of the largest value along `axis` (of the flattened x if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy."""
    return _arg_extreme(argmax_p, x, axis, keepdims)


def argmin(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Index of the smallest value along `axis` (of the flattened x if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy."""
    return _arg_extreme(argmin_p, x, axis, keepdims)


def _flattened(name: str, x: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """x as one axis, for `axis=None`; a symbolic size cannot join others in one axis."""
    shape = _shape(x)
    symbols = [d for d in shape if isinstance(d, Dim)]
    if symbols and len(shape) > 1:
        raise ShapeError(f"{name}: axis=None flattens {shape}, which would need a product of the symbol "
                         f"{symbols[0]}; give an axis", user_site())
    return reshape(x, (-1,))


def _arg_extreme(op: Primitive, x: ArrayLike, axis: int | None, keepdims: bool) -> Tensor | np.ndarray:
    x = asarray(x, _arith_dtype(x))  # bools count as 0 and 1
    shape = _shape(x)
    if axis is None:
        flat = bind(op, _flattened(op.name, x), axes=(0,))
        return reshape(flat, (1,) * len(shape)) if keepdims else flat
    axes = (_one_axis(op.name, x, axis),)
    out = bind(op, x, axes=axes)
    return _keepdims(out, shape, axes) if keepdims else out


def softmax(x: ArrayLike, axis: int = -1) -> Tensor | np.ndarray:
    """exp(x) / sum(exp(x)) along `axis`, computed stably (the sum in x's `wide` dtype)."""
    x = asarray(x, _float_dtype(_dtype(x)))
    return bind(softmax_p, x, axis=_one_axis("softmax", x, axis))


def log_softmax(x: ArrayLike, axis: int = -1) -> Tensor | np.ndarray:
    """x - logsumexp(x) along `axis`, computed stably (the sum in x's `wide` dtype)."""
    x = asarray(x, _float_dtype(_dtype(x)))
    return bind(log_softmax_p, x, axis=_one_axis("log_softmax", x, axis))


def logsumexp(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """log(sum(exp(x))) over `axis`, shifted by the (gradient-free) max for stability, as
    `jax.nn.logsumexp`: -inf where every value is -inf (a fully masked row), +inf where one is
    +inf. Where every value is -inf the gradient is 0, not NaN (no value moves the result)."""
    x = asarray(x, _float_dtype(_dtype(x)))
    axes = _axes("logsumexp", _shape(x), axis)
    m = max(x, axes, keepdims=True)
    m = stop_gradient(where(less(abs(m), math.inf), m, 0.0))  # a shift by -inf or inf would give inf - inf
    total = sum(exp(subtract(x, m)), axes, keepdims=True)
    empty = equal(total, 0.0)  # log(0) = -inf, but its derivative 1/0 times exp(-inf) = 0 is NaN
    out = add(where(empty, -math.inf, log(where(empty, 1.0, total))), m)
    return out if keepdims else reshape(out, tuple(d for i, d in enumerate(_shape(x)) if i not in axes))


def cumsum(x: ArrayLike, axis: int | None = None, dtype: str | DType | None = None,
           reverse: bool = False) -> Tensor | np.ndarray:
    """Cumulative sum along `axis` (of the flattened x if None), as `jnp.cumsum`: bools count
    as i32, and `dtype` converts x first (with dtype bool, a running or, as bools add in
    NumPy and jax.numpy). With `reverse`, each entry sums from itself to the end of the axis,
    as `jax.lax.cumsum(..., reverse=True)`."""
    x = asarray(x, _arith_dtype(x) if dtype is None else _as_dtype(dtype, "cumsum"))
    if _dtype(x) is DType.bool:  # some value so far is True: the count so far is not 0
        return not_equal(cumsum(x, axis, DType.i32, reverse), 0)
    if not isinstance(reverse, (bool, np.bool_)):
        raise TraceError(f"cumsum: reverse must be True or False, got {_brief(reverse)}", user_site())
    if axis is None:
        x, axis = _flattened("cumsum", x), 0
    return bind(cumsum_p, x, axis=_one_axis("cumsum", x, axis), reverse=bool(reverse))


# -- shapes ------------------------------------------------------------------
