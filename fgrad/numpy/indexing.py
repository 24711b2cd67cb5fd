"""Gathers, scatters and index arrays: take, scatter_add, dynamic slices, arange, one_hot,
causal_mask, and `x[key]`."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad.errors import TRACER_INDEX, DTypeError, ShapeError, TraceError
from fgrad.ir import I32, Const, Dim, DType
from fgrad.primitives import dynamic_slice_p, dynamic_update_slice_p, iota_p, scatter_add_p, slice_p, take_p
from fgrad.trace import Tensor, bind, spec_of, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _PYTHON_DTYPE, _arith_dtype, _as_dtype, _brief, _dtype, _one_axis, _shape,
    _static_scalar, asarray, result_dtype,
)
from fgrad.numpy.shapes import expand_dims, reshape, transpose
from fgrad.numpy.elementwise import add, astype, equal, greater_equal, less, minimum, multiply, where

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "arange", "causal_mask", "dynamic_slice", "dynamic_update_slice", "getitem", "one_hot", "scatter_add",
    "take",
]


def take(x: ArrayLike, indices: ArrayLike, axis: int | None = None, mode: str | None = None,
         fill_value: float | int | bool | None = None) -> Tensor | np.ndarray:
    """Gather entries along `axis` (of the flattened x if None), as `jnp.take`.

    Indices known while tracing (ints, lists, NumPy arrays) are checked: they
    must lie in [-n, n), negative ones counting from the end. Traced indices
    cannot be checked (a GPU cannot raise) and follow `mode`, as in JAX:

    - "fill" (the default): an index in [-n, 0) counts from the end; any other
      index outside [0, n) gives `fill_value`, by default NaN for floats, the
      least i32 for i32, the largest u32 for u32 and True for bool. Those
      entries get no gradient.
    - "clip": indices are clamped into [0, n - 1] (a negative one reads entry
      0, as NumPy's mode="clip"), constants too; the gradient goes to the entry read.
    """
    x = asarray(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _one_axis("take", x, axis)
    mode = "fill" if mode is None else mode
    if mode not in ("fill", "clip"):
        raise TraceError(f"take: mode {mode!r} is not supported; use 'fill' (the default) or 'clip'", user_site())
    fill = _fill_value("take", fill_value, _dtype(x)) if mode == "fill" else None
    traced = isinstance(indices, Tensor) or isinstance(_shape(x)[axis], Dim)
    indices = _indices("take", indices, axis, _shape(x), normalize=mode == "fill")
    if not traced:  # constants were checked to lie in range: nothing to fill
        mode, fill = "clip", None
    return bind(take_p, x, indices, axis=axis, mode=mode, fill_value=fill)


def _default_fill(dtype: DType) -> float | int | bool:
    """What out-of-range traced indices read in take's "fill" mode, as in JAX: NaN for floats,
    the least value of a signed integer dtype and the largest of an unsigned one, True for bool."""
    if dtype.is_float:
        return math.nan
    if dtype.is_int:
        info = np.iinfo(dtype.np)
        return int(info.min if info.min < 0 else info.max)
    return True


def _fill_value(name: str, value: Any, dtype: DType) -> Const:
    return _static_scalar(name, "fill_value", _default_fill(dtype) if value is None else value, dtype)


def scatter_add(updates: ArrayLike, indices: ArrayLike, size: int, axis: int = 0,
                mode: str | None = None) -> Tensor | np.ndarray:
    """The transpose of `take`: an array with `size` entries along `axis`, zero but
    for each update slice added at its index; repeated indices accumulate. In the
    default mode, `jnp.zeros(shape).at[(slice(None),) * axis + (indices,)].add(updates)`.

    `updates` has shape `out.shape[:axis] + indices.shape + out.shape[axis+1:]`.
    Indices known while tracing are checked as in `take`. Traced indices follow
    `mode`: "drop" (the default) lets an index in [-size, 0) count from the end
    and drops the updates of any other index outside [0, size); "clip" clamps
    indices into [0, size - 1], constants too.
    """
    updates = asarray(updates, _arith_dtype(updates))
    shape = _shape(updates)
    size = _count("scatter_add", "size", size)
    nd = len(_shape(indices))
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, (bool, np.bool_)):
        raise ShapeError(f"scatter_add: axis must be a single integer, got {_brief(axis)}", user_site())
    if not 0 <= axis <= len(shape) - nd:
        raise ShapeError(f"scatter_add: axis {axis} does not fit indices {_shape(indices)} in updates {shape}", user_site())
    mode = "drop" if mode is None else mode
    if mode not in ("drop", "clip"):
        raise TraceError(f"scatter_add: mode {mode!r} is not supported; use 'drop' (the default) or 'clip'",
                         user_site())
    out_shape = shape[:axis] + (int(size),) + shape[axis + nd:]
    indices = _indices("scatter_add", indices, axis, out_shape, normalize=mode == "drop")
    return bind(scatter_add_p, updates, indices, axis=axis, size=int(size), mode=mode)


def _indices(name: str, indices: ArrayLike, axis: int, shape: tuple[int, ...], normalize: bool) -> Tensor | np.ndarray:
    """Indices into axis `axis` of `shape`: traced ones as they are (i32 or u32), constants as
    i32. With `normalize`, constants are checked against the axis, and negative indices
    (constant or traced) count from the end."""
    n = shape[axis]
    _dtype(indices)  # refuses ragged lists, strings and None, naming the function
    if isinstance(n, Dim) and not isinstance(indices, Tensor):  # checked against the maximum only: as if traced
        arr = np.asarray(indices)
        if arr.dtype.kind not in "iu":
            raise DTypeError(f"{name}: indices must be integers, got {arr.dtype}", user_site())
        bad = arr[(arr < -n.max) | (arr >= n.max)]
        if normalize and bad.size:
            raise ShapeError(f"{name}: index {bad.flat[0]} is out of bounds for axis {axis} of {shape} at every size "
                             f"of the symbol {n}, 1..{n.max}", user_site())
        indices = asarray(indices, DType.i32)
    if isinstance(indices, Tensor):
        if not indices.dtype.is_int:
            raise DTypeError(f"{name}: indices must be integers (i32 or u32), got {indices.spec}", user_site())
        signed = indices.dtype.np.kind == "i"  # u32 indices are never negative
        return where(less(indices, 0), add(indices, n), indices) if normalize and signed else indices
    arr = np.asarray(indices)
    if arr.dtype.kind not in "iu":
        raise DTypeError(f"{name}: indices must be integers, got {arr.dtype}", user_site())
    if normalize:
        bad = arr[(arr < -n) | (arr >= n)]
        if bad.size:
            raise ShapeError(f"{name}: index {bad.flat[0]} is out of bounds for axis {axis} with size {n} of {shape}",
                             user_site())
        arr = np.where(arr < 0, arr + n, arr)
    return asarray(arr, DType.i32)


def dynamic_slice(operand: ArrayLike, start_indices: Any, slice_sizes: Sequence[int]) -> Tensor | np.ndarray:
    """The window of `slice_sizes` whose first corner is at `start_indices`, as
    `jax.lax.dynamic_slice`.

    `start_indices` holds one index per axis: ints, or i32 scalars that may be traced (as a
    sequence, or one 1-D i32 array). As in JAX, a negative start counts from the end, and
    then each start is clamped into [0, n - size], so that the window lies inside `operand`
    (a GPU cannot raise). The gradient goes to the window read.
    """
    x = asarray(operand)
    shape = _shape(x)
    sizes = _sizes("dynamic_slice", "slice_sizes", slice_sizes, shape)
    return bind(dynamic_slice_p, x, *_starts("dynamic_slice", start_indices, shape), slice_sizes=sizes)


def dynamic_update_slice(operand: ArrayLike, update: ArrayLike, start_indices: Any) -> Tensor | np.ndarray:
    """`operand` with the window of `update`'s shape at `start_indices` replaced by `update`,
    as `jax.lax.dynamic_update_slice`.

    `update` has operand's rank and dtype (a Python number takes operand's dtype, as JAX's
    weakly typed ones) and fits inside it. Start indices are read as in `dynamic_slice`: a
    negative one counts from the end, then each is clamped so that the window fits. The
    gradient goes to `update` through the window and to `operand` everywhere else.
    """
    x = asarray(operand)
    u = asarray(update, _dtype(x) if type(update) in _PYTHON_DTYPE else None)
    if _dtype(u) is not _dtype(x):
        raise DTypeError(f"dynamic_update_slice: update {spec_of(u)} and operand {spec_of(x)} dtypes differ; "
                         "convert one with astype", user_site())
    shape = _shape(x)
    _sizes("dynamic_update_slice", "update's shape", _shape(u), shape)
    return bind(dynamic_update_slice_p, x, u, *_starts("dynamic_update_slice", start_indices, shape))


def _sizes(name: str, what: str, sizes: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A window's shape in `shape`: one size in 1..n per axis."""
    if not isinstance(sizes, (tuple, list)) or not all(isinstance(k, (int, np.integer, Dim)) and not isinstance(
            k, (bool, np.bool_)) for k in sizes):
        raise ShapeError(f"{name}: {what} must be a tuple of integers, got {_brief(sizes)}", user_site())
    symbolic = next((n for n in (*shape, *sizes) if isinstance(n, Dim)), None)
    if symbolic is not None:  # an update's shape is symbolic where the operand's is: name the symbol, not a type
        raise ShapeError(f"{name}: a window of {tuple(sizes)} in {shape}, with the symbol {symbolic}: windows are "
                         "taken of fixed sizes in fixed axes only; gather rows of a symbolic axis with fg.take",
                         user_site())
    sizes = tuple(int(k) for k in sizes)
    if len(sizes) != len(shape) or not all(1 <= k <= n for k, n in zip(sizes, shape)):
        raise ShapeError(f"{name}: {what} {sizes} does not fit in {shape}: one size in 1..n per axis", user_site())
    return sizes


def _starts(name: str, start_indices: Any, shape: tuple[int, ...]) -> list[Tensor | np.ndarray]:
    """One i32 scalar start per axis of `shape`, a negative one counting from the end (JAX's
    dynamic slicing): from a sequence of ints and integer scalars, or a 1-D integer array.
    A u32 start is never negative."""
    if isinstance(start_indices, Tensor) and start_indices.ndim == 1:
        start_indices = [getitem(start_indices, k) for k in range(start_indices.shape[0])]
    elif not isinstance(start_indices, (tuple, list, Tensor)) and np.ndim(start_indices) == 1:  # fg.Array too
        start_indices = list(np.asarray(start_indices))
    if not isinstance(start_indices, (tuple, list)):
        raise ShapeError(f"{name}: start_indices must be a sequence of one index per axis of {shape}, got "
                         f"{_brief(start_indices)}", user_site())
    if len(start_indices) != len(shape):
        raise ShapeError(f"{name}: {len(start_indices)} start indices for the {len(shape)} axes of {shape}",
                         user_site())
    starts = []
    for i, n in zip(start_indices, shape):
        if isinstance(i, Tensor):
            if i.shape or not i.dtype.is_int:
                raise DTypeError(f"{name}: a start index must be an integer scalar, got a Tensor {i.spec}",
                                 user_site())
            signed = i.dtype.np.kind == "i"  # an unsigned start past n clamps as n does, which fits i32
            starts.append(where(less(i, 0), add(i, n), i) if signed else astype(minimum(i, n), DType.i32))
        elif type(i) is int or np.ndim(i) == 0 and np.asarray(i).dtype.kind in "iu":
            # a Python int of any size too (NumPy holds one past i64 as an object); held within
            # [0, n], where it clamps alike
            starts.append(asarray(builtins.min(builtins.max(int(i) + n if i < 0 else int(i), 0), n), DType.i32))
        else:
            raise DTypeError(f"{name}: start index {_brief(i)} is not an integer scalar", user_site())
    return starts


def _count(name: str, what: str, value: Any) -> int:
    """A size argument: a positive Python or NumPy integer (not a bool, not a float)."""
    if isinstance(value, Tensor):
        raise TraceError(TRACER_INDEX.format(what=f"{name}: {what}", spec=value.spec), user_site())
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 1:
        raise ShapeError(f"{name}: {what} must be a positive integer, got {_brief(value)}", user_site())
    return int(value)


def arange(start: int | float, stop: int | float | None = None, step: int | float = 1, dtype: str | DType | None = None) -> Tensor | np.ndarray:
    """Evenly spaced values in [start, stop), as in NumPy: i32 unless a bound is a float.
    `arange(T)` of a symbol T counts up to its value at call time."""
    if stop is None and isinstance(start, Dim):
        return asarray(bind(iota_p, shape=(start,), axis=0, dtype=DType.i32),
                       DType.i32 if dtype is None else _as_dtype(dtype, "arange"))
    if stop is None:
        start, stop = 0, start
    for bound in (start, stop, step):
        if isinstance(bound, Tensor):
            raise TraceError(TRACER_INDEX.format(what="arange: a bound", spec=bound.spec), user_site())
        if type(bound) not in _PYTHON_DTYPE and not isinstance(bound, (np.integer, np.floating)) \
                or not math.isfinite(bound):
            raise ShapeError(f"arange: start, stop and step must be finite static numbers, got start={start!r}, "
                             f"stop={stop!r}, step={step!r}", user_site())
    dt = _as_dtype(dtype, "arange") if dtype is not None else result_dtype(start, stop, step)
    count = math.ceil((stop - start) / step) if step else 0
    if count > I32.max:
        raise ShapeError(f"arange: {count} values (start={start}, stop={stop}, step={step}) do not fit i32 "
                         "indices", user_site())
    if count < 1:
        raise ShapeError(f"arange: empty range start={start}, stop={stop}, step={step}", user_site())
    # The count is of the result's dtype where iota has it (every numeric one), else i32.
    out = bind(iota_p, shape=(count,), axis=0, dtype=dt if dt.is_int or dt.is_float else DType.i32)
    if start == 0 and step == 1:
        return asarray(out, dt)
    return asarray(add(multiply(asarray(out, dt), step), start), dt)


def one_hot(x: ArrayLike, num_classes: int, dtype: str | DType = "f32") -> Tensor | np.ndarray:
    """One-hot encoding of integer labels along a new last axis, as `jax.nn.one_hot`:
    a label outside [0, num_classes), a negative one included, gives a row of zeros."""
    num_classes = _count("one_hot", "num_classes", num_classes)
    if not _dtype(x).is_int:
        raise DTypeError(f"one_hot: labels must be integers, got {spec_of(asarray(x))}", user_site())
    return asarray(equal(expand_dims(x, -1), arange(num_classes)), _as_dtype(dtype, "one_hot"))


def causal_mask(n: int | Dim) -> Tensor | np.ndarray:
    """(n, n) bool mask that is True where key position j <= query position i (may attend);
    n may be a symbol."""
    n = n if isinstance(n, Dim) else _count("causal_mask", "n", n)
    rows = bind(iota_p, shape=(n, n), axis=0, dtype=DType.i32)
    cols = bind(iota_p, shape=(n, n), axis=1, dtype=DType.i32)
    return greater_equal(rows, cols)


# -- indexing ----------------------------------------------------------------


def getitem(x: ArrayLike, key: Any) -> Tensor | np.ndarray:
    """x[key] for ints, slices (step >= 1), None, ... and one integer-array index.

    Static ints and index arrays are checked against the axis (negative ones
    count from the end), as in NumPy. A traced index array cannot be checked:
    as in JAX, an index in [-n, 0) counts from the end and any other index
    outside [0, n) is clamped into range; the gradient goes to the entry read.
    Slice bounds must be static: a window at a traced start i is x[i + fg.arange(k)], or
    `dynamic_slice`, which clamps it into range.
    """
    x = asarray(x)
    shape = _shape(x)
    key = list(key) if isinstance(key, tuple) else [key]
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise ShapeError(f"getitem: more than one ... in an index of {shape}", user_site())
    used = builtins.sum(k is not None and k is not Ellipsis for k in key)
    if used > len(shape):
        raise ShapeError(f"getitem: too many indices for {shape}: {used} given", user_site())
    fill = [builtins.slice(None)] * (len(shape) - used)
    key = key[: ellipses[0]] + fill + key[ellipses[0] + 1:] if ellipses else key + fill
    starts, stops, steps, out_shape, gather = [], [], [], [], None
    advanced = []  # key positions of ints and the integer array
    dim = 0
    for position, k in enumerate(key):
        if k is None:
            out_shape.append(1)
            continue
        n = shape[dim]
        if isinstance(n, Dim) and isinstance(k, builtins.slice):  # a symbolic axis is kept whole
            if (k.start, k.stop, k.step) not in ((None, None, None), (0, None, None), (None, None, 1), (0, None, 1)):
                raise ShapeError(f"getitem: slice {k.start}:{k.stop}:{k.step} of the symbolic axis {n} of {shape}: a "
                                 "symbolic axis is sliced only whole; pick entries of it with an int or fg.take",
                                 user_site())
            starts.append(0), stops.append(n), steps.append(1), out_shape.append(n)
        elif isinstance(k, builtins.slice):
            traced = [b for b in (k.start, k.stop, k.step) if isinstance(b, Tensor)]
            if traced:
                raise TraceError(TRACER_INDEX.format(what=f"getitem: a slice bound on axis {dim} of {shape}",
                                                     spec=traced[0].spec), user_site())
            bad = [b for b in (k.start, k.stop, k.step) if b is not None and not hasattr(b, "__index__")]
            if any(isinstance(b, Dim) for b in bad):
                raise ShapeError(f"getitem: slice bound {bad[0]} on axis {dim} of {shape} is a symbol: a slice has a "
                                 f"fixed size; take the first {bad[0]} entries with fg.take(x, fg.arange({bad[0]}), "
                                 f"axis={dim})", user_site())
            if bad:
                raise ShapeError(f"getitem: slice bound {bad[0]!r} on axis {dim} of {shape} is not an integer",
                                 user_site())
            if k.step is not None and k.step < 1:
                raise ShapeError(f"getitem: slice step must be >= 1, got {k.step} on axis {dim} of {shape}", user_site())
            a, b, s = k.indices(n)
            if len(range(a, b, s)) == 0:
                raise ShapeError(f"getitem: slice {a}:{b}:{s} of axis {dim} with size {n} is empty", user_site())
            starts.append(a), stops.append(b), steps.append(s), out_shape.append(len(range(a, b, s)))
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) and not isinstance(n, Dim):
            if not -n <= k < n:
                raise ShapeError(f"getitem: index {k} is out of bounds for axis {dim} with size {n} of {shape}", user_site())
            starts.append(int(k) % n), stops.append(int(k) % n + 1), steps.append(1)
            advanced.append(position)
        elif isinstance(k, (Tensor, list, np.ndarray)) and _dtype(k) is not DType.bool or isinstance(n, Dim) \
                and isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            # An int on a symbolic axis cannot be checked while tracing: it is gathered as a traced index is.
            if gather is not None:
                raise ShapeError(f"getitem: only one integer-array index is supported, in an index of {shape}", user_site())
            gather = (len(out_shape), _indices("getitem", k, dim, shape, normalize=True))
            starts.append(0), stops.append(n), steps.append(1), out_shape.append(n)
            advanced.append(position)
        else:
            raise ShapeError(
                f"getitem: unsupported index {k!r} for {shape}: use ints, slices, None, ... or one integer "
                "array (a boolean mask would need a data-dependent shape; use fg.where)", user_site())
        dim += 1
    if (starts, stops, steps) != ([0] * len(shape), list(shape), [1] * len(shape)):
        x = bind(slice_p, x, starts=tuple(starts), stops=tuple(stops), steps=tuple(steps))
    x = reshape(x, tuple(out_shape))
    if gather is None:
        return x
    axis, indices = gather
    x = bind(take_p, x, indices, axis=axis, mode="clip", fill_value=None)
    if advanced[-1] - advanced[0] == len(advanced) - 1:
        return x
    # NumPy puts the indexed axes first when a slice or None separates the
    # advanced indices (ints count as advanced beside an array).
    nd = len(_shape(indices))
    moved = tuple(range(axis, axis + nd))
    return transpose(x, moved + tuple(i for i in range(len(_shape(x))) if i not in moved))
