"""Creating arrays: zeros, ones, full, eye, arange, linspace, ... (`jax.numpy`'s creation functions),
the windows (hanning, ...), and the index objects mgrid, ogrid, r_, c_, s_ and index_exp.

Inside a trace they are constants or count with iota, so no array is baked into the graph: a
value whose elements are all equal is one uniform constant (a literal in WGSL, never a buffer),
and eye, tri, arange and linspace are iota arithmetic. Outside a trace they return NumPy
arrays. A shape may hold symbols (fg.dim) inside a trace: `zeros((T, 4))` broadcasts one
element to it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad.errors import TRACER_INDEX, DTypeError, ShapeError, TraceError
from fgrad.ir import I32, Const, Dim, DType, Spec, constant_p
from fgrad.primitives import iota_p
from fgrad.trace import Tensor, bind, current_trace, host_array, user_site
from fgrad.transforms.batching import vmap
from fgrad.numpy.promotion import (
    ArrayLike, _as_dtype, _broadcast_shapes, _brief, _dtype, _float_dtype, _named_errors, _one_axis, _placed,
    _shape, _static_scalar, asarray, result_dtype,
)
from fgrad.numpy.shapes import (
    _shape_arg, _static_int, broadcast_to, concatenate, expand_dims, flip, meshgrid, reshape, stack, transpose,
)
from fgrad.numpy.elementwise import (
    absolute, add, astype, cos, divide, equal, floor, greater_equal, log, multiply, pow, sign as sign_of,
    subtract,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "arange", "empty", "eye", "full", "full_like", "geomspace", "identity", "indices", "linspace", "logspace",
    "ones", "ones_like", "tri", "zeros", "zeros_like",
    "bartlett", "blackman", "empty_like", "fromfunction", "hamming", "hanning", "vander",
    "c_", "index_exp", "mgrid", "ogrid", "r_", "s_",  # index objects: mgrid[0:5, 0:3]
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
        return host_array(np.full(shape, scalar.array), dtype.np)
    return bind(constant_p, value=Const.of(np.broadcast_to(scalar.array, shape), dtype))


# Every creation function takes jax.numpy's `device` (and, where JAX's does, `out_sharding`): see
# promotion._placed.


def zeros(shape: Any, dtype: DTypeLike = None, *, device: Any = None, out_sharding: Any = None
          ) -> Tensor | np.ndarray:
    """An array of zeros of `shape` (an int, or a tuple that may hold symbols); f32 by default."""
    out = _filled("zeros", _new_shape("zeros", shape), 0, _dtype_arg("zeros", dtype, DType.f32))
    return _placed("zeros", out, device, out_sharding)


def ones(shape: Any, dtype: DTypeLike = None, *, device: Any = None, out_sharding: Any = None
         ) -> Tensor | np.ndarray:
    """An array of ones of `shape`; f32 by default."""
    out = _filled("ones", _new_shape("ones", shape), 1, _dtype_arg("ones", dtype, DType.f32))
    return _placed("ones", out, device, out_sharding)


def empty(shape: Any, dtype: DTypeLike = None, *, device: Any = None, out_sharding: Any = None
          ) -> Tensor | np.ndarray:
    """As jnp.empty: arrays are immutable, so an 'uninitialised' array is zeros."""
    out = _filled("empty", _new_shape("empty", shape), 0, _dtype_arg("empty", dtype, DType.f32))
    return _placed("empty", out, device, out_sharding)


def full(shape: Any, fill_value: ArrayLike, dtype: DTypeLike = None, *, device: Any = None,
         out_sharding: Any = None) -> Tensor | np.ndarray:
    """`fill_value` broadcast to `shape`, in `dtype` (by default fill_value's: a Python int gives
    i32, a float f32). A static number is one uniform constant; an array or a traced value is
    broadcast."""
    out = _filled("full", _new_shape("full", shape), fill_value, _dtype_arg("full", dtype, _dtype(fill_value)))
    return _placed("full", out, device, out_sharding)


def _like(name: str, a: ArrayLike, dtype: DTypeLike, shape: Any) -> tuple[tuple[int | Dim, ...], DType]:
    return (_shape(a) if shape is None else _new_shape(name, shape)), _dtype_arg(name, dtype, _dtype(a))


def zeros_like(a: ArrayLike, dtype: DTypeLike = None, shape: Any = None, *, device: Any = None,
               out_sharding: Any = None) -> Tensor | np.ndarray:
    """Zeros of a's shape and dtype (or the `dtype` and `shape` given)."""
    shape, dt = _like("zeros_like", a, dtype, shape)
    return _placed("zeros_like", _filled("zeros_like", shape, 0, dt), device, out_sharding)


def ones_like(a: ArrayLike, dtype: DTypeLike = None, shape: Any = None, *, device: Any = None,
              out_sharding: Any = None) -> Tensor | np.ndarray:
    """Ones of a's shape and dtype (or the `dtype` and `shape` given)."""
    shape, dt = _like("ones_like", a, dtype, shape)
    return _placed("ones_like", _filled("ones_like", shape, 1, dt), device, out_sharding)


def full_like(a: ArrayLike, fill_value: ArrayLike, dtype: DTypeLike = None, shape: Any = None, *,
              device: Any = None, out_sharding: Any = None) -> Tensor | np.ndarray:
    """`fill_value` broadcast to a's shape, in a's dtype (or the `dtype` and `shape` given):
    full_like(ints, 7.5) is 7, as in jax.numpy."""
    shape, dt = _like("full_like", a, dtype, shape)
    return _placed("full_like", _filled("full_like", shape, fill_value, dt), device, out_sharding)


def empty_like(prototype: ArrayLike, dtype: DTypeLike = None, shape: Any = None, *, device: Any = None
               ) -> Tensor | np.ndarray:
    """As jnp.empty_like: arrays are immutable, so an 'uninitialised' array is zeros_like."""
    shape, dt = _like("empty_like", prototype, dtype, shape)
    return _placed("empty_like", _filled("empty_like", shape, 0, dt), device)


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
        dtype: DTypeLike = None, *, device: Any = None) -> Tensor | np.ndarray:
    """The (N, M) matrix with ones on diagonal k (above the main one for k > 0), zeros
    elsewhere; f32 by default. k may be traced; N and M may be symbols."""
    return _placed("eye", _eye("eye", N, M, k, dtype), device)


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
           dtype: DTypeLike = None, *, device: Any = None, out_sharding: Any = None) -> Tensor | np.ndarray:
    """Evenly spaced values in [start, stop), as `jnp.arange`: i32 unless a bound is a float
    (or `dtype` says otherwise); the values are start + step * iota, computed in the result's
    dtype (f32 for f16 with a step), so arange(0, 1, 0.1) is jnp's to the bit. The bounds are
    static numbers; `arange(T)` of a symbol T counts up to its value at call time."""
    return _placed("arange", _arange(start, stop, step, dtype), device, out_sharding)


def _arange(start: int | float | Dim, stop: int | float | Dim | None, step: int | float | None,
            dtype: DTypeLike) -> Tensor | np.ndarray:
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
             dtype: DTypeLike = None, axis: int = 0, *, device: Any = None) -> Any:
    """`num` evenly spaced values from start to stop (stop included where `endpoint`), as
    `jnp.linspace`: start * (1 - t) + stop * t for t = iota / div, which gives both ends
    exactly. start and stop may be arrays (and traced): they broadcast, and the values run
    along a new axis `axis`. Integer dtypes take the floor. With `retstep`, also the step
    (NaN for num = 1 with endpoint, as JAX)."""
    return _placed("linspace", _linspace(start, stop, num, endpoint, retstep, dtype, axis), device)


def _linspace(start: ArrayLike, stop: ArrayLike, num: int, endpoint: bool, retstep: bool, dtype: DTypeLike,
              axis: int) -> Any:
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


def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: DTypeLike = float, **kwargs: Any) -> Any:
    """`function` at every index of `shape`, as `jnp.fromfunction`: vmapped over one axis per
    argument, it sees scalar indices (of `dtype`, f32 by default) and returns a scalar, an array
    (trailing axes of the result) or a pytree of them. `kwargs` are passed to it unmapped."""
    if not callable(function):
        raise TraceError(f"fromfunction: function must be callable, got {_brief(function)}", user_site())
    shape = _new_shape("fromfunction", shape)
    dt = _dtype_arg("fromfunction", dtype, None)
    mapped = functools.partial(function, **kwargs)
    for axis in reversed(range(len(shape))):  # the innermost vmap maps the last argument
        mapped = vmap(mapped, in_axes=tuple(0 if k == axis else None for k in range(len(shape))))
    return mapped(*(arange(d, dtype=dt) for d in shape))


def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Tensor | np.ndarray:
    """The Vandermonde matrix of a 1-D x, as `jnp.vander`: column j holds x ** (N - 1 - j), or
    x ** j where `increasing`; N = len(x) columns by default, the powers in x's dtype."""
    x = asarray(x)
    shape, dt = _shape(x), _dtype(x)
    if len(shape) != 1:
        raise ShapeError(f"vander: x must be 1-D, got {shape}", user_site())
    if dt is DType.bool:
        raise DTypeError("vander: x is bool; powers take integer and float dtypes, as in jax.numpy", user_site())
    n = shape[0] if N is None else _static_int("vander", "N", N, low=0)
    powers = _iota(n, dt)
    return pow(reshape(x, (shape[0], 1)), reshape(powers if increasing else flip(powers), (1, n)))


# -- windows: f32 as jnp's, n = iota / (M - 1) --------------------------------------------------


def _window(name: str, M: int, taper: Callable[[Any, int], Tensor | np.ndarray]) -> Tensor | np.ndarray:
    """`taper(n, M - 1)` over n = 0 .. M - 1 in f32; windows of M <= 1 points are ones."""
    M = _static_int(name, "M", M, low=0)
    if M <= 1:
        return ones((M,), DType.f32)
    return taper(_iota(M, DType.f32), M - 1)


def _cosine(n: Any, turns: int, last: int) -> Tensor | np.ndarray:
    """cos(turns * pi * n / last), associated as jnp's windows compute it."""
    return cos(divide(multiply(turns * math.pi, n), last))


def hanning(M: int) -> Tensor | np.ndarray:
    """The Hann window of M points, 0.5 * (1 - cos(2 pi n / (M - 1))), as `jnp.hanning`."""
    return _window("hanning", M, lambda n, last: multiply(0.5, subtract(1, _cosine(n, 2, last))))


def hamming(M: int) -> Tensor | np.ndarray:
    """The Hamming window of M points, 0.54 - 0.46 cos(2 pi n / (M - 1)), as `jnp.hamming`."""
    return _window("hamming", M, lambda n, last: subtract(0.54, multiply(0.46, _cosine(n, 2, last))))


def blackman(M: int) -> Tensor | np.ndarray:
    """The Blackman window of M points, 0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1)),
    as `jnp.blackman`."""
    return _window("blackman", M, lambda n, last: add(subtract(0.42, multiply(0.5, _cosine(n, 2, last))),
                                                       multiply(0.08, _cosine(n, 4, last))))


def bartlett(M: int) -> Tensor | np.ndarray:
    """The triangular window of M points, 1 - |2n + 1 - M| / (M - 1), as `jnp.bartlett`."""
    return _window("bartlett", M, lambda n, last: subtract(1, divide(
        absolute(subtract(add(multiply(2, n), 1), last + 1)), last)))


# -- index objects: mgrid[0:5, 0:3], r_[x, 0:3], s_[1:, ::2] -------------------------------------


def _grid_1d(name: str, s: Any) -> Tensor | np.ndarray:
    """The values of a slice of mgrid, ogrid, r_ or c_: arange(start, stop, step), or, for a
    complex step such as 5j, linspace(start, stop, 5) (a count of values, stop included)."""
    if not isinstance(s, slice):
        raise ShapeError(f"{name}: expected slices such as {name}[0:5, 0:1:3j], got {_brief(s)}", user_site())
    for what in ("start", "stop", "step"):
        bound = getattr(s, what)
        if isinstance(bound, Tensor):
            raise TraceError(TRACER_INDEX.format(what=f"{name}: the slice {what}", spec=bound.spec), user_site())
    start, step = s.start or 0, s.step or 1
    if isinstance(step, (complex, np.complexfloating)):
        if s.stop is None:
            raise ShapeError(f"{name}: a complex step counts values from start to stop, so the slice needs a stop, "
                             f"got {s}", user_site())
        return linspace(start, s.stop, int(abs(step)))
    return arange(start, s.stop, step)


@dataclass(frozen=True, slots=True)
class _Grid:
    """mgrid and ogrid, as `jnp.mgrid` and `jnp.ogrid`: `grid[0:5, 0:3]` counts along one axis
    per slice (a complex step `0:1:5j` gives 5 values from 0 to 1), the axes promoted to one
    dtype; mgrid stacks the dense grids into one array, ogrid returns them sparse, in a list.
    One slice gives its 1-D values."""
    name: str
    sparse: bool

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
        with _named_errors(self.name):
            if not isinstance(key, tuple):
                return _grid_1d(self.name, key)
            axes = [_grid_1d(self.name, s) for s in key]
            dt = result_dtype(*axes) if axes else DType.i32
            grids = meshgrid(*(astype(a, dt) for a in axes), indexing="ij", sparse=self.sparse)
            if self.sparse:
                return grids
            return stack(grids) if grids else arange(0)


def _directive(name: str, directive: str, defaults: tuple[int, int, int, int]) -> tuple[int, ...]:
    """(axis, ndmin, trans1d, matrix) from r_'s or c_'s leading string: 'r' or 'c' (a 1-D
    result made a row or a column), or up to three comma-separated ints overriding the first of
    the defaults (fields past the third ignored, as JAX)."""
    if directive in ("r", "c"):
        return (*defaults[:3], "rc".index(directive))
    given: list[Any] = directive.split(",")
    fields = given + list(defaults[len(given):]) if len(given) < 4 else given[:3] + [defaults[3]]
    try:
        return tuple(int(f) for f in fields)
    except ValueError:
        raise ShapeError(f"{name}: could not understand the directive {directive!r}: expected 'r', 'c' or "
                         "'axis,ndmin,trans1d' of integers", user_site()) from None


@dataclass(frozen=True, slots=True)
class _AxisConcat:
    """r_ and c_, as `jnp.r_` and `jnp.c_`: the items (arrays, numbers, and slices read as
    mgrid reads them) promoted to one dtype, given at least `ndmin` axes (new ones in front,
    then, where `trans1d` is not -1, the item's own axes rolled to end at trans1d) and joined
    along `axis`. A leading string directive overrides these: 'axis,ndmin,trans1d', or 'r' /
    'c' to make a 1-D result a row / a column."""
    name: str
    axis: int
    ndmin: int
    trans1d: int

    def __getitem__(self, key: Any) -> Tensor | np.ndarray:
        with _named_errors(self.name):
            return self._join(key if isinstance(key, tuple) else (key,))

    def __len__(self) -> int:  # as jnp.r_ and np.r_
        return 0

    def _join(self, items: tuple[Any, ...]) -> Tensor | np.ndarray:
        axis, ndmin, trans1d, matrix = self.axis, self.ndmin, self.trans1d, -1
        if items and isinstance(items[0], str):
            axis, ndmin, trans1d, matrix = _directive(self.name, items[0], (axis, ndmin, trans1d, matrix))
            items = items[1:]
        if not items:
            raise ShapeError(f"{self.name}: needs at least one value to join", user_site())
        values, ranks = [], []
        for item in items:
            if isinstance(item, str):
                raise ShapeError(f"{self.name}: the string directive {item!r} must come first", user_site())
            values.append(_grid_1d(self.name, item) if isinstance(item, slice) else item)
            ranks.append(0 if isinstance(item, slice) else len(_shape(item)))  # NOTE: a slice counts as 0-d, as JAX
        dt = result_dtype(*values)  # before the reshapes, so Python numbers stay weak
        parts = []
        for value, rank in zip(values, ranks):
            part = asarray(value, dt)
            shape = _shape(part)
            part = reshape(part, (1,) * (ndmin - len(shape)) + shape) if len(shape) < ndmin else part
            if trans1d != -1 and ndmin > rank:
                shifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
                order = tuple(range(ndmin))
                part = transpose(part, order[shifts:] + order[:shifts])
            parts.append(part)
        out = concatenate(parts, axis)
        return expand_dims(out, matrix) if matrix != -1 and len(_shape(out)) == 1 else out


@dataclass(frozen=True, slots=True)
class _IndexExpression:
    """s_ and index_exp, as NumPy's (and jnp's): `s_[1:3, ::2]` is the index itself,
    (slice(1, 3, None), slice(None, None, 2)); index_exp always makes it a tuple."""
    maketuple: bool

    def __getitem__(self, item: Any) -> Any:
        return (item,) if self.maketuple and not isinstance(item, tuple) else item


mgrid = _Grid("mgrid", sparse=False)
ogrid = _Grid("ogrid", sparse=True)
r_ = _AxisConcat("r_", axis=0, ndmin=1, trans1d=-1)
c_ = _AxisConcat("c_", axis=-1, ndmin=2, trans1d=0)
s_ = _IndexExpression(maketuple=False)
index_exp = _IndexExpression(maketuple=True)
