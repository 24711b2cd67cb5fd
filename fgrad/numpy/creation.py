"""Creating arrays: zeros, ones, full, eye, arange, linspace, ... (`jax.numpy`'s creation functions).

Inside a trace they are constants or count with iota, so no array is baked into the graph: a
value whose elements are all equal is one uniform constant (a literal in WGSL, never a buffer),
and eye, tri, arange and linspace are iota arithmetic. Outside a trace they return NumPy
arrays. A shape may hold symbols (fg.dim) inside a trace: `zeros((T, 4))` broadcasts one
element to it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad.errors import TRACER_INDEX, DTypeError, ShapeError, TraceError
from fgrad.ir import I32, Const, Dim, DType, Spec, constant_p
from fgrad.primitives import iota_p
from fgrad.trace import Tensor, bind, current_trace, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _as_dtype, _broadcast_shapes, _brief, _dtype, _float_dtype, _one_axis, _shape, _static_scalar,
    asarray, result_dtype,
)
from fgrad.numpy.shapes import _shape_arg, _static_int, broadcast_to, concatenate, reshape, stack, transpose
from fgrad.numpy.elementwise import (
    add, astype, divide, equal, floor, greater_equal, log, multiply, pow, sign as sign_of, subtract,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "arange", "empty", "eye", "full", "full_like", "geomspace", "identity", "indices", "linspace", "logspace",
    "ones", "ones_like", "tri", "zeros", "zeros_like",
]

DTypeLike = str | DType | np.dtype | type | None


def _new_shape(name: str, shape: Any) -> tuple[int | Dim, ...]:
    """A shape to create: sizes >= 0 or symbols, these only inside a trace."""
    shape = _shape_arg(name, shape)
    for d in shape:
        if isinstance(d, Dim):
            if current_trace() is None:
                raise ShapeError(f"{name}: the symbol {d} in {shape} has a value only inside a traced function",
                                 user_site())
        elif d < 0:
            raise ShapeError(f"{name}: negative dimensions are not allowed: {shape}", user_site())
    try:
        Spec(shape, DType.f32)  # its checks (a count of elements kernels can index), before NumPy allocates
    except ShapeError as e:
        raise ShapeError(f"{name}: {e.message}", user_site()) from None
    return shape


def _size(name: str, what: str, value: Any) -> int | Dim:
    """A matrix size (eye's N, tri's M): an integer >= 0 or a symbol."""
    if isinstance(value, Dim):
        return _new_shape(name, (value,))[0]
    return _static_int(name, what, value, low=0)


def _dtype_arg(name: str, dtype: DTypeLike, default: DType | None) -> DType | None:
    return default if dtype is None else _as_dtype(dtype, name)


def _filled(name: str, shape: tuple[int | Dim, ...], value: Any, dtype: DType) -> Tensor | np.ndarray:
    """`shape` filled with `value` as `dtype`. A static number is one uniform constant (one
    element broadcast where the shape has symbols); an array or a traced value is broadcast."""
    if isinstance(value, (Tensor, Dim)) or len(_shape(value)) != 0:
        return broadcast_to(asarray(value, dtype), shape)
    scalar = _static_scalar(name, "fill_value", value, dtype)
    if any(isinstance(d, Dim) for d in shape):
        return broadcast_to(bind(constant_p, value=scalar), shape)
    if current_trace() is None:
        return np.full(shape, scalar.array, dtype.np)
    return bind(constant_p, value=Const.of(np.broadcast_to(scalar.array, shape), dtype))


def zeros(shape: Any, dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """An array of zeros of `shape` (an int, or a tuple that may hold symbols); f32 by default."""
    return _filled("zeros", _new_shape("zeros", shape), 0, _dtype_arg("zeros", dtype, DType.f32))


def ones(shape: Any, dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """An array of ones of `shape`; f32 by default."""
    return _filled("ones", _new_shape("ones", shape), 1, _dtype_arg("ones", dtype, DType.f32))


def empty(shape: Any, dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """As jnp.empty: arrays are immutable, so an 'uninitialised' array is zeros."""
    return _filled("empty", _new_shape("empty", shape), 0, _dtype_arg("empty", dtype, DType.f32))


def full(shape: Any, fill_value: ArrayLike, dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """`fill_value` broadcast to `shape`, in `dtype` (by default fill_value's: a Python int gives
    i32, a float f32). A static number is one uniform constant; an array or a traced value is
    broadcast."""
    return _filled("full", _new_shape("full", shape), fill_value, _dtype_arg("full", dtype, _dtype(fill_value)))


def _like(name: str, a: ArrayLike, dtype: DTypeLike, shape: Any) -> tuple[tuple[int | Dim, ...], DType]:
    return (_shape(a) if shape is None else _new_shape(name, shape)), _dtype_arg(name, dtype, _dtype(a))


def zeros_like(a: ArrayLike, dtype: DTypeLike = None, shape: Any = None) -> Tensor | np.ndarray:
    """Zeros of a's shape and dtype (or the `dtype` and `shape` given)."""
    shape, dt = _like("zeros_like", a, dtype, shape)
    return _filled("zeros_like", shape, 0, dt)


def ones_like(a: ArrayLike, dtype: DTypeLike = None, shape: Any = None) -> Tensor | np.ndarray:
    """Ones of a's shape and dtype (or the `dtype` and `shape` given)."""
    shape, dt = _like("ones_like", a, dtype, shape)
    return _filled("ones_like", shape, 1, dt)


def full_like(a: ArrayLike, fill_value: ArrayLike, dtype: DTypeLike = None, shape: Any = None) -> Tensor | np.ndarray:
    """`fill_value` broadcast to a's shape, in a's dtype (or the `dtype` and `shape` given):
    full_like(ints, 7.5) is 7, as in jax.numpy."""
    shape, dt = _like("full_like", a, dtype, shape)
    return _filled("full_like", shape, fill_value, dt)


def _offset(name: str, k: Any, n: int | Dim, m: int | Dim) -> Tensor | np.ndarray | int:
    """A diagonal offset: a static int (held within [-n, m], where every k beyond gives the
    same mask and i + k cannot overflow) or a traced integer scalar."""
    if isinstance(k, (Tensor, np.ndarray)):  # traced (or, eagerly, its value)
        if np.ndim(k) or not _dtype(k).is_int:
            raise DTypeError(f"{name}: k must be an integer scalar, got {_brief(k)}", user_site())
        return k
    k = _static_int(name, "k", k)
    lo, hi = (d.max if isinstance(d, Dim) else d for d in (n, m))
    return min(max(k, -lo), hi)


def _band(name: str, n: int | Dim, m: int | Dim, k: Any, compare: Any) -> Tensor | np.ndarray:
    """The (n, m) bool mask `compare(i + k, j)` over row i and column j, from iota."""
    rows = bind(iota_p, shape=(n, m), axis=0, dtype=DType.i32)
    cols = bind(iota_p, shape=(n, m), axis=1, dtype=DType.i32)
    k = _offset(name, k, n, m)
    return compare(rows if isinstance(k, int) and k == 0 else add(rows, k), cols)


def eye(N: int | Dim, M: int | Dim | None = None, k: int | ArrayLike = 0,
        dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """The (N, M) matrix with ones on diagonal k (above the main one for k > 0), zeros
    elsewhere; f32 by default. k may be traced; N and M may be symbols."""
    return _eye("eye", N, M, k, dtype)


def _eye(name: str, N: Any, M: Any, k: Any, dtype: DTypeLike) -> Tensor | np.ndarray:
    dt = _dtype_arg(name, dtype, DType.f32)
    n = _size(name, "N", N)
    m = n if M is None else _size(name, "M", M)
    return astype(_band(name, n, m, k, equal), dt)


def identity(n: int | Dim, dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """The (n, n) identity matrix; f32 by default."""
    return _eye("identity", n, None, 0, dtype)


def tri(N: int | Dim, M: int | Dim | None = None, k: int = 0, dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """The (N, M) matrix with ones on and below diagonal k, zeros above; f32 by default."""
    dt = _dtype_arg("tri", dtype, DType.f32)
    n = _size("tri", "N", N)
    m = n if M is None else _size("tri", "M", M)
    return astype(_band("tri", n, m, k, greater_equal), dt)


def _iota(count: int | Dim, dtype: DType, ndim: int = 1, axis: int = 0) -> Tensor | np.ndarray:
    """0, 1, ..., count - 1 along `axis` of `ndim` axes (the others of size 1)."""
    return bind(iota_p, shape=tuple(count if i == axis else 1 for i in range(ndim)), axis=axis, dtype=dtype)


def arange(start: int | float | Dim, stop: int | float | Dim | None = None, step: int | float | None = None,
           dtype: DTypeLike = None) -> Tensor | np.ndarray:
    """Evenly spaced values in [start, stop), as `jnp.arange`: i32 unless a bound is a float
    (or `dtype` says otherwise); the values are start + step * iota, computed in the result's
    dtype (f32 for f16 with a step), so arange(0, 1, 0.1) is jnp's to the bit. The bounds are
    static numbers; `arange(T)` of a symbol T counts up to its value at call time."""
    dt = _dtype_arg("arange", dtype, None)
    bounds = {"start": start, "stop": stop, "step": step}
    for what, bound in bounds.items():
        if isinstance(bound, Tensor):
            raise TraceError(TRACER_INDEX.format(what=f"arange: {what}", spec=bound.spec), user_site())
    counted = start if stop is None else stop if type(start) is int and start == 0 else None
    if isinstance(counted, Dim) and step in (None, 1):  # arange(T), arange(0, T): 0 .. T - 1
        return _iota(counted, dt or DType.i32)
    for what, bound in bounds.items():
        if isinstance(bound, Dim):
            raise ShapeError(f"arange: {what}={bound} is a symbol: fgrad counts up to a symbol only from 0 by 1, "
                             f"as arange({bound})", user_site())
        number = isinstance(bound, (int, float, np.integer, np.floating)) and not isinstance(bound, (bool, np.bool_))
        if bound is not None and not (number and math.isfinite(bound)):
            raise ShapeError(f"arange: start, stop and step must be finite static numbers, got start={start!r}, "
                             f"stop={stop!r}, step={step!r}", user_site())
    if start is None:
        raise ShapeError(f"arange: start must be a number, got None (stop={stop!r}, step={step!r})", user_site())
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ShapeError(f"arange: step must not be zero (start={start}, stop={stop})", user_site())
    count = math.ceil((stop - start) / (1 if step is None else step))
    if count > I32.max:
        raise ShapeError(f"arange: {count} values (start={start}, stop={stop}, step={step}) do not fit i32 indices",
                         user_site())
    count = max(count, 0)  # an empty range, as in NumPy
    dt = dt or result_dtype(*(b for b in (start, stop, step) if b is not None))
    if not (dt.is_int or dt.is_float):
        raise DTypeError(f"arange: cannot count in {dt}; iota takes integer and float dtypes", user_site())
    if step is not None:  # as JAX: start + step * iota, f16 computed in f32 and rounded once
        working = DType.f32 if dt is DType.f16 else dt
        scaled = multiply(asarray(step, working), _iota(count, working))
        return astype(add(asarray(start, working), scaled), dt)
    if start == 0:
        return _iota(count, dt)
    return add(asarray(start, dt), _iota(count, dt))


def linspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: DTypeLike = None, axis: int = 0) -> Any:
    """`num` evenly spaced values from start to stop (stop included where `endpoint`), as
    `jnp.linspace`: start * (1 - t) + stop * t for t = iota / div, which gives both ends
    exactly. start and stop may be arrays (and traced): they broadcast, and the values run
    along a new axis `axis`. Integer dtypes take the floor. With `retstep`, also the step
    (NaN for num = 1 with endpoint, as JAX)."""
    num = _static_int("linspace", "num", num, low=0)
    dt = _dtype_arg("linspace", dtype, _float_dtype(result_dtype(start, stop)))
    comp = _float_dtype(dt)
    start, stop = asarray(start, comp), asarray(stop, comp)
    bounds = _broadcast_shapes(_shape(start), _shape(stop))
    if bounds is None:
        raise ShapeError(f"linspace: start {_shape(start)} and stop {_shape(stop)} do not broadcast", user_site())
    ndim = len(bounds) + 1
    axis = _static_int("linspace", "axis", axis)
    if not -ndim <= axis < ndim:
        raise ShapeError(f"linspace: axis {axis} is out of range for {ndim} axes of the result", user_site())
    axis %= ndim
    with_axis = bounds[:axis] + (1,) + bounds[axis:]
    first = reshape(broadcast_to(start, bounds), with_axis)
    last = reshape(broadcast_to(stop, bounds), with_axis)
    div = num - 1 if endpoint else num
    if num > 1:
        delta = divide(subtract(stop, start), asarray(div, comp))
        t = divide(_iota(div, comp, ndim, axis), asarray(div, comp))
        out = add(multiply(first, subtract(1, t)), multiply(last, t))
        if endpoint:
            out = concatenate([out, last], axis)
    else:  # one value, start; or none (as JAX, its step NaN)
        delta = asarray(math.nan, comp) if endpoint or not num else subtract(stop, start)
        out = first if num else broadcast_to(first, (*bounds[:axis], 0, *bounds[axis:]))
    if dt.is_int:
        out = floor(out)
    out = astype(out, dt)
    return (out, delta) if retstep else out


def logspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, base: ArrayLike = 10.0,
             dtype: DTypeLike = None, axis: int = 0) -> Tensor | np.ndarray:
    """base ** linspace(start, stop, num), as `jnp.logspace`."""
    dt = _dtype_arg("logspace", dtype, _float_dtype(result_dtype(start, stop)))
    comp = _float_dtype(dt)
    exponents = linspace(asarray(start, comp), asarray(stop, comp), num, endpoint, axis=axis)
    return astype(pow(base, exponents), dt)


def geomspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, dtype: DTypeLike = None,
              axis: int = 0) -> Tensor | np.ndarray:
    """`num` values from start to stop in a geometric progression, as `jnp.geomspace`: start
    and stop of one sign, the progression taken on their magnitudes."""
    dt = _dtype_arg("geomspace", dtype, _float_dtype(result_dtype(start, stop)))
    comp = _float_dtype(dt)
    start, stop = asarray(start, comp), asarray(stop, comp)
    sign = sign_of(start)
    ten = log(asarray(10.0, comp))  # log10 as jnp's: log(x) / log(10)
    out = multiply(sign, logspace(divide(log(divide(start, sign)), ten), divide(log(divide(stop, sign)), ten), num,
                                  endpoint, 10.0, comp, 0))
    ndim = len(_shape(out))
    axis = _one_axis("geomspace", out, axis)
    if axis:
        out = transpose(out, (*range(1, axis + 1), 0, *range(axis + 1, ndim)))
    return astype(out, dt)


def indices(dimensions: Sequence[int], dtype: DTypeLike = None, sparse: bool = False) -> Any:
    """A grid of indices: out[i] counts along axis i of `dimensions`, stacked into one array of
    shape (len(dimensions), *dimensions), or with `sparse` a tuple of arrays of size 1 but
    along their own axis."""
    dt = _dtype_arg("indices", dtype, DType.i32)
    if not isinstance(dimensions, (tuple, list)):
        raise ShapeError(f"indices: dimensions must be a sequence of sizes, got {_brief(dimensions)}", user_site())
    if not dimensions:  # no axes to count along: no grids (an empty stack of them)
        return () if sparse else zeros((0,), dt)
    dims = _new_shape("indices", dimensions)
    grids = [astype(_iota(d, DType.i32, len(dims), i), dt) for i, d in enumerate(dims)]
    if sparse:
        return tuple(grids)
    return stack([broadcast_to(g, dims) for g in grids])
