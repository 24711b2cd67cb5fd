"""jax.lax's shape functions: dimension arguments are explicit tuples of non-negative axes (where
lax's are; `squeeze`, `expand_dims`, `collapse` and the `*_in_dim` functions take negative ones,
as lax's do), sizes are static, and operands of one op share one dtype."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import Dim, DType
from fgrad.trace import Tensor, user_site
from fgrad.numpy.indexing import getitem
from fgrad.numpy.promotion import ArrayLike, _as_dtype, _brief, _dtype, _shape, asarray
from fgrad.numpy.shapes import _shape_arg
from fgrad.lax.elementwise import _one_dtype

__all__ = [
    "broadcast", "broadcast_in_dim", "broadcast_like", "broadcast_shapes", "broadcast_to_rank", "broadcasted_iota",
    "collapse", "concatenate", "dtype", "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim", "empty", "expand_dims",
    "full", "full_like", "index_in_dim", "iota", "reshape", "rev", "slice", "slice_in_dim", "split", "squeeze",
    "stack", "tile", "transpose", "unstack",
]


def _is_int(k: Any) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _static(name: str, what: str, value: Any) -> int:
    if not _is_int(value):
        raise TraceError(f"{name}: {what} must be a static integer, got {_brief(value)}", user_site())
    return int(value)


def _ints(name: str, what: str, value: Any) -> tuple[int, ...]:
    """A dimension argument: a tuple, list or 1-D array of integers (not one integer, as in jax.lax)."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if not isinstance(value, (tuple, list)) or not all(_is_int(k) for k in value):
        raise ShapeError(f"{name}: {what} must be a tuple of integers, got {_brief(value)}", user_site())
    return tuple(int(k) for k in value)


def _dims(name: str, what: str, value: Any, ndim: int, negative: bool = False) -> tuple[int, ...]:
    """Distinct axes of `ndim` axes: 0..ndim-1, or from -ndim where `negative` (counted from the end)."""
    dims = _ints(name, what, value)
    low = -ndim if negative else 0
    if not all(low <= d < ndim for d in dims):
        raise ShapeError(f"{name}: {what} {dims} must be in {low}..{ndim - 1} for {ndim} axes", user_site())
    dims = tuple(d % ndim for d in dims) if ndim else dims
    if len(set(dims)) != len(dims):
        raise ShapeError(f"{name}: {what} {dims} repeat an axis", user_site())
    return dims


def _axis(name: str, axis: Any, ndim: int) -> int:
    """One axis, negative ones counted from the end."""
    return _dims(name, "axis", (_static(name, "axis", axis),), ndim, negative=True)[0]


def _fixed(name: str, size: int | Dim, what: str) -> int:
    if isinstance(size, Dim):
        raise ShapeError(f"{name}: {what} is the symbol {size}; this takes a fixed size", user_site())
    return size


# -- broadcasting -----------------------------------------------------------------------------------


def broadcast_in_dim(operand: ArrayLike, shape: Sequence[int], broadcast_dimensions: Sequence[int]
                     ) -> Tensor | np.ndarray:
    """`operand` broadcast to `shape`, its axis i becoming axis broadcast_dimensions[i] of the
    result (of size 1, or of the size there), as `jax.lax.broadcast_in_dim`."""
    x = asarray(operand)
    old, shape = _shape(x), _shape_arg("broadcast_in_dim", shape)
    dims = _dims("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions, len(shape))
    if len(dims) != len(old):
        raise ShapeError(f"broadcast_in_dim: broadcast_dimensions {dims} must name one axis of {shape} for each "
                         f"axis of the operand {old}", user_site())
    for d, n in zip(dims, old):
        if n != 1 and n != shape[d]:
            raise ShapeError(f"broadcast_in_dim: operand axis of size {n} cannot become axis {d} of {shape} "
                             f"(broadcast_dimensions {dims})", user_site())
    order = sorted(range(len(dims)), key=dims.__getitem__)
    x = fnp.transpose(x, order)
    sizes = iter(_shape(x))
    x = fnp.reshape(x, tuple(next(sizes) if k in dims else 1 for k in range(len(shape))))
    return fnp.broadcast_to(x, shape)


def broadcast(operand: ArrayLike, sizes: Sequence[int]) -> Tensor | np.ndarray:
    """`operand` broadcast with new leading axes of `sizes`, as `jax.lax.broadcast`."""
    x = asarray(operand)
    sizes = _shape_arg("broadcast", _ints("broadcast", "sizes", sizes))
    ndim = len(_shape(x))
    return broadcast_in_dim(x, sizes + _shape(x), tuple(range(len(sizes), len(sizes) + ndim)))


def broadcast_to_rank(x: ArrayLike, rank: int) -> Tensor | np.ndarray:
    """x with leading axes of size 1 up to `rank` axes (as it is if it has that many or more),
    as `jax.lax.broadcast_to_rank`."""
    x = asarray(x)
    rank = _static("broadcast_to_rank", "rank", rank)
    ndim = len(_shape(x))
    return x if rank <= ndim else fnp.reshape(x, (1,) * (rank - ndim) + _shape(x))


def iota(dtype: Any, size: int) -> Tensor | np.ndarray:
    """0, 1, ..., size - 1 of `dtype` (a number dtype), as `jax.lax.iota`."""
    dt = _as_dtype(dtype, "iota")
    if dt is DType.bool:
        raise DTypeError("iota: does not accept dtype bool; it takes integers and floats", user_site())
    size = size if isinstance(size, Dim) else _static("iota", "size", size)
    if not isinstance(size, Dim) and size < 0:
        raise ShapeError(f"iota: size must not be negative, got {size}", user_site())
    return fnp.arange(size, dtype=dt)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Tensor | np.ndarray:
    """An array of `shape` counting 0, 1, ... along `dimension`, as `jax.lax.broadcasted_iota`."""
    shape = _shape_arg("broadcasted_iota", shape)
    (dimension,) = _dims("broadcasted_iota", "dimension", (_static("broadcasted_iota", "dimension", dimension),),
                         len(shape))
    return broadcast_in_dim(iota(dtype, shape[dimension]), shape, (dimension,))


def full(shape: Sequence[int], fill_value: ArrayLike, dtype: Any = None) -> Tensor | np.ndarray:
    """An array of `shape` filled with the scalar `fill_value`, of `dtype` (else fill_value's),
    as `jax.lax.full`."""
    if _shape(fill_value):
        raise ShapeError(f"full: fill_value must be a scalar, got shape {_shape(fill_value)}", user_site())
    dt = _dtype(fill_value) if dtype is None else _as_dtype(dtype, "full")
    return fnp.broadcast_to(asarray(fill_value, dt), _shape_arg("full", shape))


def empty(shape: Sequence[int], dtype: Any, *, out_sharding: Any = None) -> Tensor | np.ndarray:
    """An array of `shape` and `dtype`, as `jax.lax.empty` (whose values are unspecified): zeros."""
    if out_sharding is not None:
        raise TraceError("empty: out_sharding is not supported (fgrad runs on one device); pass None", user_site())
    return full(shape, 0, _as_dtype(dtype, "empty"))


def dtype(x: Any) -> DType:
    """The dtype of a value or the dtype a type names, as `jax.lax.dtype` (x64 off: float64 is f32)."""
    return fnp.dtype(x)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape NumPy's rules broadcast `shapes` to, as `jax.lax.broadcast_shapes`."""
    return fnp.broadcast_shapes(*shapes)


def broadcast_like(arr: ArrayLike, like_arr: ArrayLike) -> Tensor | np.ndarray:
    """`arr` broadcast to the shape of `like_arr`, as `jax.lax.broadcast_like`."""
    return fnp.broadcast_to(arr, _shape(like_arr))


def full_like(x: ArrayLike, fill_value: ArrayLike, dtype: Any = None, shape: Sequence[int] | None = None
              ) -> Tensor | np.ndarray:
    """An array of x's shape (or `shape`) and dtype (or `dtype`) filled with the scalar
    `fill_value`, as `jax.lax.full_like`."""
    dt = _dtype(x) if dtype is None else _as_dtype(dtype, "full_like")
    return full(_shape(x) if shape is None else shape, fill_value, dt)


# -- moving axes ------------------------------------------------------------------------------------


def reshape(operand: ArrayLike, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None
            ) -> Tensor | np.ndarray:
    """`operand`, its axes first permuted by `dimensions` if given, read in row-major order into
    `new_sizes` (all given: no -1), as `jax.lax.reshape`."""
    x = asarray(operand)
    sizes = _shape_arg("reshape", new_sizes)
    if any(not isinstance(d, Dim) and d < 0 for d in sizes):
        raise ShapeError(f"reshape: new_sizes must not be negative (jax.lax takes no -1), got {sizes}", user_site())
    if dimensions is not None:
        x = transpose(x, dimensions)
    return fnp.reshape(x, sizes)


def transpose(operand: ArrayLike, permutation: Sequence[int]) -> Tensor | np.ndarray:
    """`operand` with axis permutation[i] as its axis i, as `jax.lax.transpose`."""
    x = asarray(operand)
    ndim = len(_shape(x))
    perm = _ints("transpose", "permutation", permutation)
    if sorted(perm) != list(range(ndim)):
        raise ShapeError(f"transpose: permutation {perm} is not a permutation of 0..{ndim - 1} for {_shape(x)}",
                         user_site())
    return fnp.transpose(x, perm)


def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Tensor | np.ndarray:
    """`operand` reversed along each axis of `dimensions`, as `jax.lax.rev`."""
    x = asarray(operand)
    dims = _dims("rev", "dimensions", dimensions, len(_shape(x)))
    return fnp.flip(x, dims) if dims else x


def squeeze(array: ArrayLike, dimensions: Sequence[int]) -> Tensor | np.ndarray:
    """`array` without the axes `dimensions`, each of size 1, as `jax.lax.squeeze`."""
    x = asarray(array)
    shape = _shape(x)
    dims = _dims("squeeze", "dimensions", dimensions, len(shape), negative=True)
    for d in dims:
        if shape[d] != 1:
            raise ShapeError(f"squeeze: axis {d} of {shape} has size {shape[d]}, not 1", user_site())
    return fnp.reshape(x, tuple(n for k, n in enumerate(shape) if k not in dims))


def expand_dims(array: ArrayLike, dimensions: Sequence[int]) -> Tensor | np.ndarray:
    """`array` with axes of size 1 at the positions `dimensions` of the result, as `jax.lax.expand_dims`."""
    x = asarray(array)
    shape = _shape(x)
    dims = _dims("expand_dims", "dimensions", dimensions, len(shape) + len(_ints("expand_dims", "dimensions",
                                                                                   dimensions)), negative=True)
    sizes = iter(shape)
    return fnp.reshape(x, tuple(1 if k in dims else next(sizes) for k in range(len(shape) + len(dims))))


def collapse(operand: ArrayLike, start_dimension: int, stop_dimension: int | None = None) -> Tensor | np.ndarray:
    """`operand` with axes start_dimension..stop_dimension - 1 (to the last if None) merged into
    one, as `jax.lax.collapse`; negative dimensions count from the end."""
    x = asarray(operand)
    shape = _shape(x)
    ndim = len(shape)
    start = _static("collapse", "start_dimension", start_dimension)
    stop = ndim if stop_dimension is None else _static("collapse", "stop_dimension", stop_dimension)
    start, stop = (d + ndim if d < 0 else d for d in (start, stop))
    if not 0 <= start <= stop <= ndim:
        raise ShapeError(f"collapse: dimensions {start_dimension}..{stop_dimension} do not fit {shape}", user_site())
    merged = [_fixed("collapse", n, f"axis {k} of {shape}") for k, n in enumerate(shape[start:stop], start)]
    return fnp.reshape(x, shape[:start] + (math.prod(merged),) + shape[stop:])


def tile(operand: ArrayLike, reps: Sequence[int]) -> Tensor | np.ndarray:
    """`operand` repeated reps[i] times along each axis i (one rep per axis), as `jax.lax.tile`."""
    x = asarray(operand)
    reps = _ints("tile", "reps", reps)
    if len(reps) != len(_shape(x)) or any(r < 0 for r in reps):
        raise ShapeError(f"tile: reps {reps} must be one non-negative count per axis of {_shape(x)}", user_site())
    return fnp.tile(x, reps)


# -- joining and slicing ----------------------------------------------------------------------------


def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Tensor | np.ndarray:
    """`operands` (one dtype, one rank, equal sizes off `dimension`) joined along `dimension`,
    as `jax.lax.concatenate`."""
    if not isinstance(operands, (tuple, list)) or not operands:
        raise ShapeError(f"concatenate: operands must be a non-empty sequence of arrays, got {_brief(operands)}",
                         user_site())
    dt = _one_dtype("concatenate", tuple(operands), "biuf")
    xs = [asarray(x, dt) for x in operands]
    shapes = [_shape(x) for x in xs]
    ndim = len(shapes[0])
    (dim,) = _dims("concatenate", "dimension", (_static("concatenate", "dimension", dimension),), ndim)
    if any(len(s) != ndim or s[:dim] + s[dim + 1:] != shapes[0][:dim] + shapes[0][dim + 1:] for s in shapes):
        raise ShapeError(f"concatenate: operands must share every size but dimension {dim}, got "
                         f"{', '.join(map(str, shapes))}", user_site())
    return fnp.concatenate(xs, dim)


def stack(operands: Sequence[ArrayLike], axis: int = 0) -> Tensor | np.ndarray:
    """`operands` (one dtype, one shape) joined along a new `axis`, as `jax.lax.stack`."""
    if not isinstance(operands, (tuple, list)) or not operands:
        raise ShapeError(f"stack: operands must be a non-empty sequence of arrays, got {_brief(operands)}",
                         user_site())
    dt = _one_dtype("stack", tuple(operands), "biuf")
    xs = [asarray(x, dt) for x in operands]
    if len({_shape(x) for x in xs}) != 1:
        raise ShapeError(f"stack: operands must share one shape, got {', '.join(str(_shape(x)) for x in xs)}",
                         user_site())
    axis = _axis("stack", axis, len(_shape(xs[0])) + 1)
    return concatenate([expand_dims(x, (axis,)) for x in xs], axis)


def unstack(x: ArrayLike, axis: int = 0) -> tuple[Tensor | np.ndarray, ...]:
    """The slices of x along `axis`, that axis removed, as `jax.lax.unstack`."""
    x = asarray(x)
    axis = _axis("unstack", axis, len(_shape(x)))
    n = _fixed("unstack", _shape(x)[axis], f"axis {axis}")
    return tuple(index_in_dim(x, k, axis, keepdims=False) for k in range(n))


def slice(operand: ArrayLike, start_indices: Sequence[int], limit_indices: Sequence[int],  # noqa: A001
          strides: Sequence[int] | None = None) -> Tensor | np.ndarray:
    """The entries start_indices[i] <= k < limit_indices[i], every strides[i]-th, along each axis,
    as `jax.lax.slice` (static bounds within the shape; no negative ones)."""
    x = asarray(operand)
    shape = _shape(x)
    starts = _ints("slice", "start_indices", start_indices)
    limits = _ints("slice", "limit_indices", limit_indices)
    steps = (1,) * len(shape) if strides is None else _ints("slice", "strides", strides)
    if not len(starts) == len(limits) == len(steps) == len(shape):
        raise ShapeError(f"slice: start_indices {starts}, limit_indices {limits} and strides {steps} must hold one "
                         f"entry per axis of {shape}", user_site())
    for k, (lo, hi, st, n) in enumerate(zip(starts, limits, steps, shape)):
        if not isinstance(n, Dim) and not 0 <= lo <= hi <= n or isinstance(n, Dim) and (lo, hi) != (0, n) or st < 1:
            raise ShapeError(f"slice: axis {k} of {shape}: bounds {lo}..{hi} with stride {st} must satisfy "
                             f"0 <= start <= limit <= {n} and stride >= 1", user_site())
    if all((lo, hi, st) == (0, n, 1) for lo, hi, st, n in zip(starts, limits, steps, shape)):
        return x
    return getitem(x, tuple(builtins.slice(lo, hi, st) for lo, hi, st in zip(starts, limits, steps)))


def slice_in_dim(operand: ArrayLike, start_index: int | None, limit_index: int | None, stride: int = 1,
                 axis: int = 0) -> Tensor | np.ndarray:
    """`slice` along one axis: None bounds are the axis's ends, negative ones count from its end,
    as `jax.lax.slice_in_dim`."""
    x = asarray(operand)
    shape = _shape(x)
    axis = _axis("slice_in_dim", axis, len(shape))
    n = shape[axis]
    bounds = []
    for what, value, default in (("start_index", start_index, 0), ("limit_index", limit_index, n)):
        value = default if value is None else _static("slice_in_dim", what, value)
        bounds.append(value + _fixed("slice_in_dim", n, f"axis {axis}") if value < 0 else value)
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = bounds[0], bounds[1], _static("slice_in_dim", "stride", stride)
    return slice(x, starts, limits, strides)


def index_in_dim(operand: ArrayLike, index: int, axis: int = 0, keepdims: bool = True) -> Tensor | np.ndarray:
    """The entry `index` (static; negative counts from the end) along `axis`, that axis kept with
    size 1 where `keepdims`, as `jax.lax.index_in_dim`."""
    x = asarray(operand)
    shape = _shape(x)
    axis = _axis("index_in_dim", axis, len(shape))
    n = _fixed("index_in_dim", shape[axis], f"axis {axis}")
    index = _static("index_in_dim", "index", index)
    if not -n <= index < n:
        raise ShapeError(f"index_in_dim: index {index} is out of bounds for axis {axis} of {shape}", user_site())
    out = slice_in_dim(x, index % n, index % n + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _start(name: str, index: Any, axis: int, n: int | Dim, allow_negative: bool) -> Any:
    """One dynamic start, as JAX reads it: where `allow_negative`, as it is (fgrad's dynamic slicing
    counts a negative start from the end); else a static negative one is an error and a traced or
    array one is clamped to 0 (XLA clamps it so), and u32 starts are never negative."""
    if allow_negative:
        return index
    if _is_int(index):
        if index < 0:
            raise ShapeError(f"{name}: start index {int(index)} is out of bounds for axis {axis} of size {n} with "
                             "allow_negative_indices=False", user_site())
        return index
    return index if _dtype(index) is DType.u32 else fnp.maximum(index, 0)


def _starts(name: str, start_indices: Any, shape: tuple[int | Dim, ...], allow_negative_indices: Any) -> Any:
    """The start indices of a dynamic slice or update, read as `_start` reads each: a sequence of them,
    or one 1-D integer array; `allow_negative_indices` one bool or one per axis."""
    allow = allow_negative_indices
    allow = [allow] * len(shape) if isinstance(allow, (bool, np.bool_)) else list(allow) \
        if isinstance(allow, (tuple, list)) and len(allow) == len(shape) else [None]
    if not all(isinstance(a, (bool, np.bool_)) for a in allow):
        raise TraceError(f"{name}: allow_negative_indices must be a bool or one per axis of {shape}, got "
                         f"{_brief(allow_negative_indices)}", user_site())
    if all(allow):
        return start_indices
    if isinstance(start_indices, (tuple, list)):
        if len(start_indices) != len(shape):  # fgrad.numpy's dynamic_slice names the mismatch
            return start_indices
        return [_start(name, i, k, n, a) for k, (i, n, a) in enumerate(zip(start_indices, shape, allow))]
    starts = asarray(start_indices)  # one 1-D array: each allowed axis's start above the clamp's lower bound
    if _dtype(starts) is not DType.i32:
        return starts
    return fnp.maximum(starts, np.where(allow, np.iinfo(np.int32).min, 0).astype(np.int32))


def dynamic_slice(operand: ArrayLike, start_indices: Any, slice_sizes: Sequence[int], *,
                  allow_negative_indices: bool | Sequence[bool] = True) -> Tensor | np.ndarray:
    """The window of `slice_sizes` whose first corner is at `start_indices` (ints, or i32 scalars
    that may be traced, or one 1-D i32 array), as `jax.lax.dynamic_slice`: a negative start counts
    from the end, then each start is clamped so that the window lies inside `operand`. With
    `allow_negative_indices` False (for every axis, or per axis), a static negative start is an
    error and a traced one is clamped to 0, as JAX's."""
    x = asarray(operand)
    starts = _starts("dynamic_slice", start_indices, _shape(x), allow_negative_indices)
    return fnp.dynamic_slice(x, starts, slice_sizes)


def dynamic_update_slice(operand: ArrayLike, update: ArrayLike, start_indices: Any, *,
                         allow_negative_indices: bool | Sequence[bool] = True) -> Tensor | np.ndarray:
    """`operand` with the window of `update`'s shape at `start_indices` replaced by `update`, as
    `jax.lax.dynamic_update_slice`; the starts are read as `dynamic_slice`'s."""
    x = asarray(operand)
    starts = _starts("dynamic_update_slice", start_indices, _shape(x), allow_negative_indices)
    return fnp.dynamic_update_slice(x, update, starts)


def _in_dim(name: str, shape: tuple[int | Dim, ...], axis: int, index: Any, allow_negative_indices: Any) -> Any:
    """The start indices of an `*_in_dim` function's window: `index` along `axis`, 0 along the others."""
    starts: list[Any] = [0] * len(shape)
    allow: list[Any] = [True] * len(shape)
    starts[axis], allow[axis] = index, allow_negative_indices
    return _starts(name, starts, shape, allow)


def dynamic_slice_in_dim(operand: ArrayLike, start_index: ArrayLike, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True) -> Tensor | np.ndarray:
    """`slice_size` entries from `start_index` (may be traced) along `axis`, as
    `jax.lax.dynamic_slice_in_dim`: a negative start counts from the end, then the start is
    clamped so that the window fits; with `allow_negative_indices` False, a static negative start is
    an error and a traced one is clamped to 0, as JAX's."""
    x = asarray(operand)
    shape = _shape(x)
    axis = _axis("dynamic_slice_in_dim", axis, len(shape))
    sizes = list(shape)
    sizes[axis] = _static("dynamic_slice_in_dim", "slice_size", slice_size)
    return fnp.dynamic_slice(x, _in_dim("dynamic_slice_in_dim", shape, axis, start_index, allow_negative_indices),
                             sizes)


def dynamic_index_in_dim(operand: ArrayLike, index: ArrayLike, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True) -> Tensor | np.ndarray:
    """The entry `index` (may be traced; clamped into range) along `axis`, kept as an axis of
    size 1 where `keepdims`, as `jax.lax.dynamic_index_in_dim`."""
    x = asarray(operand)
    axis = _axis("dynamic_index_in_dim", axis, len(_shape(x)))
    out = dynamic_slice_in_dim(x, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand: ArrayLike, update: ArrayLike, start_index: ArrayLike, axis: int, *,
                                allow_negative_indices: bool = True) -> Tensor | np.ndarray:
    """`operand` with `update` (its dtype and rank) written from `start_index` along `axis`, as
    `jax.lax.dynamic_update_slice_in_dim`; the start is read as `dynamic_slice_in_dim`'s."""
    x = asarray(operand)
    shape = _shape(x)
    axis = _axis("dynamic_update_slice_in_dim", axis, len(shape))
    starts = _in_dim("dynamic_update_slice_in_dim", shape, axis, start_index, allow_negative_indices)
    return fnp.dynamic_update_slice(x, update, starts)


def dynamic_update_index_in_dim(operand: ArrayLike, update: ArrayLike, index: ArrayLike, axis: int, *,
                                allow_negative_indices: bool = True) -> Tensor | np.ndarray:
    """`operand` with entry `index` along `axis` replaced by `update` (with or without that axis),
    as `jax.lax.dynamic_update_index_in_dim`."""
    x = asarray(operand)
    ndim = len(_shape(x))
    axis = _axis("dynamic_update_index_in_dim", axis, ndim)
    if len(_shape(update)) == ndim - 1:
        update = expand_dims(asarray(update, _dtype(x)) if type(update) in (bool, int, float) else update, (axis,))
    return dynamic_update_slice_in_dim(x, update, index, axis, allow_negative_indices=allow_negative_indices)


def split(operand: ArrayLike, sizes: Sequence[int], axis: int = 0) -> list[Tensor | np.ndarray]:
    """`operand` cut along `axis` into pieces of `sizes` (which add up to the axis), as `jax.lax.split`."""
    x = asarray(operand)
    shape = _shape(x)
    axis = _axis("split", axis, len(shape))
    sizes = _ints("split", "sizes", sizes)
    if any(s < 0 for s in sizes) or sum(sizes) != shape[axis]:
        raise ShapeError(f"split: sizes {sizes} must be non-negative and add up to axis {axis} of {shape}",
                         user_site())
    bounds = np.cumsum((0, *sizes)).tolist()
    return [slice_in_dim(x, lo, hi, 1, axis) for lo, hi in zip(bounds, bounds[1:])]
