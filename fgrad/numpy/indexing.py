"""Gathers, scatters and index arrays: take, take_along_axis, scatter_add, put_along_axis, roll,
dynamic slices, one_hot, causal_mask; `x[key]` and JAX's indexed updates `x.at[key]`."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: unravel_index and compress call other families at call time
from fgrad.errors import TRACER_INDEX, DTypeError, InputError, ShapeError, TraceError
from fgrad.ir import Const, Dim, DType
from fgrad.primitives import (
    dynamic_slice_p, dynamic_update_slice_p, iota_p, pad_p, rev_p, scatter_add_p, scatter_p, slice_p, take_p,
)
from fgrad.trace import Tensor, bind, spec_of, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _PYTHON_DTYPE, _arith_dtype, _as_dtype, _axes, _bool_flag, _broadcast_shapes, _brief, _dtype,
    _one_axis, _shape, _static_scalar, asarray, result_dtype,
)
from fgrad.numpy.shapes import (
    _no_out, _operands, _shape_arg, _static_int, broadcast_to, concatenate, expand_dims, reshape, transpose,
)
from fgrad.numpy.creation import arange
from fgrad.numpy.elementwise import (
    add, astype, clip, divide, equal, greater_equal, less, logical_and, maximum, minimum, multiply, neg, pow,
    remainder, subtract, where,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "causal_mask", "dynamic_slice", "dynamic_update_slice", "getitem", "one_hot", "put_along_axis", "roll",
    "scatter_add", "take", "take_along_axis",
    "choose", "compress", "diag_indices", "diag_indices_from", "extract", "ravel_multi_index", "select",
    "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from", "unravel_index",
    "fill_diagonal", "mask_indices", "place", "put",
]

NOT_IN_PLACE = ("{name}: fgrad arrays are immutable, so it cannot update `{arg}` in place; pass inplace=False to get "
             "the updated array, as jax.numpy asks")


def take(a: ArrayLike, indices: ArrayLike, axis: int | None = None, out: None = None, mode: str | None = None,
         unique_indices: bool = False, indices_are_sorted: bool = False,
         fill_value: float | int | bool | None = None) -> Tensor | np.ndarray:
    """Gather entries along `axis` (of the flattened `a` if None), as `jnp.take` (whose argument
    order this is; `unique_indices` and `indices_are_sorted`, hints to XLA, are accepted and ignored).

    With the default mode, indices known while tracing (ints, lists, NumPy
    arrays) are checked: they must lie in [-n, n), negative ones counting from
    the end. Traced indices cannot be checked (a GPU cannot raise) and follow
    `mode`, as in JAX, and so do constants where `mode` is given:

    - "fill" (the default): an index in [-n, 0) counts from the end; any other
      index outside [0, n) gives `fill_value`, by default NaN for floats, the
      least i32 for i32, the largest u32 for u32 and True for bool. Those
      entries get no gradient.
    - "clip": indices are clamped into [0, n - 1] (a negative one reads entry
      0, as NumPy's mode="clip"), constants too; the gradient goes to the entry read.
    """
    _no_out("take", out)
    x = asarray(a)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _one_axis("take", x, axis)
    checked, mode = mode is None, "fill" if mode is None else mode
    if mode not in ("fill", "clip"):
        raise TraceError(f"take: mode {mode!r} is not supported; use 'fill' (the default) or 'clip'", user_site())
    fill = _fill_value("take", fill_value, _dtype(x)) if mode == "fill" else None
    traced = isinstance(indices, Tensor) or isinstance(_shape(x)[axis], Dim)
    indices = _indices("take", indices, axis, _shape(x), normalize=mode == "fill", checked=checked)
    _from_empty("take", _shape(x), axis, _shape(indices))
    if checked and not traced:  # constants were checked to lie in range: nothing to fill
        mode, fill = "clip", None
    return bind(take_p, x, indices, axis=axis, mode=mode, fill_value=fill)


def _from_empty(name: str, shape: tuple[int | Dim, ...], axis: int, selected: tuple[int | Dim, ...]) -> None:
    """Refuse, as jnp.take does, a non-empty selection from an empty axis: no entry to read."""
    if shape[axis] == 0 and 0 not in selected:
        raise ShapeError(f"{name}: cannot take {selected} entries from the empty axis {axis} of {shape}, as jnp.take "
                         "refuses", user_site())


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


def _indices(name: str, indices: ArrayLike, axis: int, shape: tuple[int | Dim, ...], normalize: bool,
             checked: bool = True) -> Tensor | np.ndarray:
    """Indices into axis `axis` of `shape`: traced ones as they are (i32 or u32), constants as
    i32. With `normalize`, negative indices (constant or traced) count from the end, and
    constants are checked against the axis unless not `checked` (JAX's indexed updates
    take them as they come)."""
    n = shape[axis]
    _dtype(indices)  # refuses ragged lists, strings and None, naming the function
    if isinstance(n, Dim) and not isinstance(indices, Tensor):  # checked against the maximum only: as if traced
        arr = np.asarray(indices)
        if arr.dtype.kind not in "iu":
            raise DTypeError(f"{name}: indices must be integers, got {arr.dtype}", user_site())
        bad = arr[(arr < -n.max) | (arr >= n.max)]
        if normalize and checked and bad.size:
            raise ShapeError(f"{name}: index {bad.flat[0]} is out of bounds for axis {axis} of {shape} at every size "
                             f"of the symbol {n}, 1..{n.max}", user_site())
        indices = asarray(indices, DType.i32)
    if isinstance(indices, Tensor):
        if not indices.dtype.is_int:
            raise DTypeError(f"{name}: indices must be integers (i32 or u32), got {indices.spec}", user_site())
        signed = indices.dtype.kind == "i"  # u32 indices are never negative
        return where(less(indices, 0), add(indices, n), indices) if normalize and signed else indices
    arr = np.asarray(indices)
    if arr.dtype.kind not in "iu":
        raise DTypeError(f"{name}: indices must be integers, got {arr.dtype}", user_site())
    if normalize:
        bad = arr[(arr < -n) | (arr >= n)]
        if checked and bad.size:
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
    """A window's shape in `shape`: one size in 0..n per axis."""
    if not isinstance(sizes, (tuple, list)) or not all(isinstance(k, (int, np.integer, Dim)) and not isinstance(
            k, (bool, np.bool_)) for k in sizes):
        raise ShapeError(f"{name}: {what} must be a tuple of integers, got {_brief(sizes)}", user_site())
    symbolic = next((n for n in (*shape, *sizes) if isinstance(n, Dim)), None)
    if symbolic is not None:  # an update's shape is symbolic where the operand's is: name the symbol, not a type
        raise ShapeError(f"{name}: a window of {tuple(sizes)} in {shape}, with the symbol {symbolic}: windows are "
                         "taken of fixed sizes in fixed axes only; gather rows of a symbolic axis with fg.take",
                         user_site())
    sizes = tuple(int(k) for k in sizes)
    if len(sizes) != len(shape) or not all(0 <= k <= n for k, n in zip(sizes, shape)):
        raise ShapeError(f"{name}: {what} {sizes} does not fit in {shape}: one size in 0..n per axis", user_site())
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
            signed = i.dtype.kind == "i"  # an unsigned start past n clamps as n does, which fits i32
            starts.append(where(less(i, 0), add(i, n), i) if signed else astype(minimum(i, n), DType.i32))
        elif type(i) is int or np.ndim(i) == 0 and np.asarray(i).dtype.kind in "iu":
            # a Python int of any size too (NumPy holds one past i64 as an object); held within
            # [0, n], where it clamps alike
            starts.append(asarray(builtins.min(builtins.max(int(i) + n if i < 0 else int(i), 0), n), DType.i32))
        else:
            raise DTypeError(f"{name}: start index {_brief(i)} is not an integer scalar", user_site())
    return starts


def _count(name: str, what: str, value: Any) -> int:
    """A size argument: a non-negative Python or NumPy integer (not a bool, not a float)."""
    if isinstance(value, Tensor):
        raise TraceError(TRACER_INDEX.format(what=f"{name}: {what}", spec=value.spec), user_site())
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 0:
        raise ShapeError(f"{name}: {what} must be a non-negative integer, got {_brief(value)}", user_site())
    return int(value)


def one_hot(x: ArrayLike, num_classes: int, *, dtype: str | DType | None = None, axis: int = -1) -> Tensor | np.ndarray:
    """One-hot encoding of labels along a new axis `axis` of the result, as `jax.nn.one_hot`:
    1 where the label equals the class (float labels too, as JAX's), so a label outside
    [0, num_classes), a negative one included, gives zeros. dtype: f32 by default."""
    num_classes = _count("one_hot", "num_classes", num_classes)
    if _dtype(x) is DType.bool:
        raise DTypeError(f"one_hot: labels must be numbers, got {spec_of(asarray(x))} (as jax.nn.one_hot)", user_site())
    x = asarray(x)
    ndim = len(_shape(x))
    if not isinstance(axis, (int, np.integer)):
        raise ShapeError(f"one_hot: axis must be a single integer, got {_brief(axis)}", user_site())
    (axis,) = _axes("one_hot", _shape(x), axis, ndim + 1)
    classes = reshape(arange(num_classes), (num_classes,) + (1,) * (ndim - axis))
    return asarray(equal(expand_dims(x, axis), classes), DType.f32 if dtype is None else _as_dtype(dtype, "one_hot"))


def causal_mask(n: int | Dim) -> Tensor | np.ndarray:
    """(n, n) bool mask that is True where key position j <= query position i (may attend);
    n may be a symbol."""
    n = n if isinstance(n, Dim) else _count("causal_mask", "n", n)
    rows = bind(iota_p, shape=(n, n), axis=0, dtype=DType.i32)
    cols = bind(iota_p, shape=(n, n), axis=1, dtype=DType.i32)
    return greater_equal(rows, cols)


# -- indexing ----------------------------------------------------------------


@dataclass(frozen=True)
class _Key:
    """`x[key]` taken apart by NumPy's rules.

    The basic part is a view of x: the axes `rev` read backwards, then a forward slice of every
    axis (`starts`, `stops`, `steps`; a static int keeps its one entry), then the axes `dropped`
    (those of the static ints) left out. The advanced part, `arrays`, pairs axes of x with index
    arrays, broadcast together to `batch`, whose axes NumPy puts first (`front`) when a slice,
    None or ... separates the advanced indices (ints among them), else where the first of them
    stands. `shape` is x[key]'s; `bare` the same without the axes that None adds.
    """

    rev: tuple[int, ...]
    starts: tuple[int, ...]
    stops: tuple[int | Dim, ...]
    steps: tuple[int, ...]
    dropped: tuple[int, ...]
    arrays: tuple[tuple[int, Any], ...]
    batch: tuple[int | Dim, ...]
    front: bool
    shape: tuple[int | Dim, ...]
    bare: tuple[int | Dim, ...]

    def whole(self, shape: tuple[int | Dim, ...]) -> bool:
        """Whether the slice of the basic part keeps every entry of `shape`."""
        return (self.starts, self.stops, self.steps) == ((0,) * len(shape), shape, (1,) * len(shape))

    def sliced(self) -> tuple[int | Dim, ...]:
        """The shape of the basic part before its int axes are dropped."""
        return tuple(b if isinstance(b, Dim) else len(range(a, b, s)) for a, b, s in zip(self.starts, self.stops,
                                                                                          self.steps))

    def view_axis(self, axis: int) -> int:
        """Where axis `axis` of x is in the basic part."""
        return axis - builtins.sum(d < axis for d in self.dropped)


NONCONCRETE_MASK = (
    "{name}: the boolean mask {spec} indexing {shape} is traced: how many entries it selects, so "
    "the shape of the result, is unknown while tracing (as JAX's NonConcreteBooleanIndexError). "
    "Keep the shape instead: fg.where(mask, x, 0), fg.sum(fg.where(mask, x, 0)) for a sum over the "
    "selection; or index with a concrete NumPy mask"
)


def _parse(name: str, shape: tuple[int | Dim, ...], key: Any, checked: bool = True, wrap: bool = True) -> _Key:
    """Take `key` apart for an array of `shape` (see _Key), checking it as NumPy does. An int out
    of range is an error where `checked`, else (JAX's indexed updates) an index like any other,
    left to the caller's mode; with `wrap`, negative ints count from the end."""
    key = [_index_of(name, k, shape) for k in (key if isinstance(key, tuple) else (key,))]
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise ShapeError(f"{name}: more than one ... in an index of {shape}", user_site())
    used = builtins.sum(_mask_ndim(k) or (k is not None and k is not Ellipsis) for k in key)
    if used > len(shape):
        raise ShapeError(f"{name}: too many indices for {shape}: {used} given", user_site())
    fill = [builtins.slice(None)] * (len(shape) - used)
    key = key[: ellipses[0]] + fill + key[ellipses[0] + 1:] if ellipses else key + fill
    rev, starts, stops, steps, dropped, arrays = [], [], [], [], [], []
    parts: list[tuple[str, tuple[int | Dim, ...]]] = []  # per key entry: its kind and the axes it gives
    dim = 0
    for k in key:
        if k is None:
            parts.append(("new", (1,)))
            continue
        if _mask_ndim(k):  # a concrete mask: the positions of its True entries
            if shape[dim: dim + k.ndim] != k.shape:
                raise ShapeError(f"{name}: boolean mask of shape {k.shape} does not match axes {dim}.."
                                 f"{dim + k.ndim - 1} of {shape}", user_site())
            for j, chosen in enumerate(np.nonzero(k)):
                arrays.append((dim + j, chosen))
                starts.append(0), stops.append(shape[dim + j]), steps.append(1)
            parts.append(("advanced", ()))
            dim += k.ndim
            continue
        n = shape[dim]
        if isinstance(k, builtins.slice):
            backwards, a, b, s = _slice_of(name, k, dim, shape)
            if backwards:
                rev.append(dim)
            starts.append(a), stops.append(b), steps.append(s)
            parts.append(("slice", (b if isinstance(b, Dim) else len(range(a, b, s)),)))
        elif isinstance(k, int) and not isinstance(n, Dim) and (-n <= k < n and (wrap or k >= 0) or checked):
            if not -n <= k < n:
                raise ShapeError(f"{name}: index {k} is out of bounds for axis {dim} with size {n} of {shape}",
                                 user_site())
            starts.append(k % n), stops.append(k % n + 1), steps.append(1), dropped.append(dim)
            parts.append(("int", ()))
        else:  # an index array, or an int that cannot be checked while tracing (on a symbolic axis) or is not
            arrays.append((dim, k))
            starts.append(0), stops.append(n), steps.append(1)
            parts.append(("advanced", ()))
        dim += 1
    batch = _broadcast_shapes(*(_shape(k) for _, k in arrays)) if arrays else ()
    if batch is None:
        shapes = " ".join(str(_shape(k)) for _, k in arrays)
        raise ShapeError(f"{name}: shape mismatch: index arrays of shapes {shapes} indexing {shape} do not broadcast "
                         "together", user_site())
    # Beside an index array ints are advanced indices too; NumPy puts the batch axes first
    # unless all advanced indices stand together.
    advanced = [p for p, (kind, _) in enumerate(parts) if kind == "advanced" or kind == "int" and arrays]
    front = bool(arrays) and advanced[-1] - advanced[0] != len(advanced) - 1

    def placed(new_axes: bool) -> tuple[int | Dim, ...]:
        out, done = list(batch) if front else [], front
        for p, (kind, axes) in enumerate(parts):
            if p in advanced and not done:
                out += batch
                done = True
            elif kind == "slice" or kind == "new" and new_axes:
                out += axes
        return tuple(out)

    return _Key(tuple(rev), tuple(starts), tuple(stops), tuple(steps), tuple(dropped), tuple(arrays),
                tuple(batch), front, placed(True), placed(False))


def _index_of(name: str, k: Any, shape: tuple[int | Dim, ...]) -> Any:
    """One entry of an index, as _parse reads it: None, ..., a slice, a Python int, an integer
    Tensor, or a NumPy array (integer, or a bool mask) for a list, tuple or array."""
    if k is None or k is Ellipsis or isinstance(k, builtins.slice):
        return k
    if isinstance(k, Tensor):
        if k.dtype is DType.bool:
            raise ShapeError(NONCONCRETE_MASK.format(name=name, spec=k.spec, shape=shape), user_site())
        if not k.dtype.is_int:
            raise DTypeError(f"{name}: index arrays must be integers (or concrete bool masks), got {k.spec} "
                             f"indexing {shape}", user_site())
        return k
    if isinstance(k, (bool, np.bool_)):
        raise ShapeError(f"{name}: the bool index {k!r} for {shape} is not supported; add an axis with None",
                         user_site())
    if isinstance(k, (int, np.integer)):
        return int(k)
    if not isinstance(k, (list, tuple, np.ndarray)) and not hasattr(k, "__array__"):  # an fg.Array is concrete
        raise ShapeError(f"{name}: unsupported index {_brief(k)} for {shape}: use ints, slices, None, ..., integer "
                         "arrays or concrete bool masks", user_site())
    _dtype(k)  # refuses ragged lists, strings and None, naming the function
    arr = np.asarray(k)
    if arr.size == 0 and not isinstance(k, np.ndarray):  # [] is a float array to NumPy, but an index to it
        arr = arr.astype(np.int32)
    if arr.dtype.kind not in "biu":
        raise DTypeError(f"{name}: index arrays must be integers (or bool masks), got {arr.dtype} indexing {shape}",
                         user_site())
    if arr.ndim == 0:  # as NumPy: a 0-d integer array is an int, a 0-d bool one a bool
        return _index_of(name, arr.item(), shape)
    return arr


def _mask_ndim(k: Any) -> int:
    """The number of axes a concrete bool mask indexes (0 for any other index)."""
    return k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 0


def _slice_of(name: str, k: slice, dim: int, shape: tuple[int | Dim, ...]) -> tuple[bool, int, int | Dim, int]:
    """A slice of axis `dim` of `shape` as a forward one, of the axis reversed where the step is
    negative: (reversed, start, stop, step)."""
    n = shape[dim]
    traced = [b for b in (k.start, k.stop, k.step) if isinstance(b, Tensor)]
    if traced:
        raise TraceError(TRACER_INDEX.format(what=f"{name}: a slice bound on axis {dim} of {shape}",
                                             spec=traced[0].spec), user_site())
    bad = [b for b in (k.start, k.stop, k.step) if b is not None and not hasattr(b, "__index__")]
    if any(isinstance(b, Dim) for b in bad):
        raise ShapeError(f"{name}: slice bound {bad[0]} on axis {dim} of {shape} is a symbol: a slice has a fixed "
                         f"size; take the first {bad[0]} entries with fg.take(x, fg.arange({bad[0]}), axis={dim})",
                         user_site())
    if bad:
        raise ShapeError(f"{name}: slice bound {bad[0]!r} on axis {dim} of {shape} is not an integer", user_site())
    if k.step is not None and k.step == 0:
        raise ShapeError(f"{name}: slice step cannot be 0, on axis {dim} of {shape}", user_site())
    if isinstance(n, Dim):  # a symbolic axis is kept whole, or reversed whole
        if k.start is not None and k.start not in (0, -1) or k.stop is not None:
            raise ShapeError(f"{name}: slice {k.start}:{k.stop}:{k.step} of the symbolic axis {n} of {shape}: a "
                             "symbolic axis is sliced only whole (or reversed whole, ::-1); pick entries of it with an "
                             "int or fg.take", user_site())
        backwards = k.step is not None and k.step < 0
        if k.step not in (None, 1, -1) or k.start == (0 if backwards else -1):
            raise ShapeError(f"{name}: slice {k.start}:{k.stop}:{k.step} of the symbolic axis {n} of {shape}: a "
                             "symbolic axis is sliced only whole (or reversed whole, ::-1)", user_site())
        return backwards, 0, n, 1
    a, b, s = k.indices(n)
    length = len(range(a, b, s))
    if length == 0:  # every empty slice selects the same: nothing
        return False, 0, 0, 1
    if s > 0:
        return False, a, b, s
    a, s = n - 1 - a, -s  # the same entries, read forward along the reversed axis
    return True, a, a + (length - 1) * s + 1, s


def _view(x: Tensor | np.ndarray, key: _Key) -> Tensor | np.ndarray:
    """The basic part of `key` on `x`: reversed, sliced, its int axes dropped (views only)."""
    shape = _shape(x)
    if key.rev:
        x = bind(rev_p, x, axes=key.rev)
    if not key.whole(shape):
        x = bind(slice_p, x, starts=key.starts, stops=key.stops, steps=key.steps)
    return reshape(x, tuple(d for k, d in enumerate(key.sliced()) if k not in key.dropped))


@dataclass(frozen=True)
class _Merged:
    """The advanced part of a key as one index array into one axis of a view of the basic
    part: `view` (its advanced axes moved together where need be, and merged into axis
    `axis`), the `index` into that axis, the permutation `perm` that moved them (or None), and
    the view's shape before the merge."""

    view: Tensor | np.ndarray
    index: Tensor | np.ndarray
    axis: int
    perm: tuple[int, ...] | None
    unmerged: tuple[int | Dim, ...]


def _merged(name: str, view: Tensor | np.ndarray, key: _Key, indices: Sequence[Tensor | np.ndarray],
            clamp: bool) -> _Merged:
    """One index of the advanced indices (each counted from the end already): the linear index
    into their axes merged, each clamped into its axis where `clamp`, else -1 where any is out of
    range (which gathers fill and scatters drop)."""
    axes = [key.view_axis(a) for a, _ in key.arrays]
    shape = _shape(view)
    if len(axes) == 1:
        return _Merged(view, indices[0], axes[0], None, shape)
    perm = None
    if axes != list(range(axes[0], axes[0] + len(axes))):  # separated: NumPy puts them first
        perm = tuple(axes) + tuple(d for d in range(len(shape)) if d not in axes)
        view, axes = transpose(view, perm), list(range(len(axes)))
        shape = _shape(view)
    q, sizes = axes[0], shape[axes[0]: axes[0] + len(axes)]
    symbolic = next((d for d in sizes if isinstance(d, Dim)), None)
    if symbolic is not None:
        raise ShapeError(f"{name}: index arrays on several axes of {_shape(view)} where one is the symbol {symbolic}: "
                         "fgrad gathers along several axes through one index into them merged, which a symbol "
                         "cannot join; index the symbolic axis on its own (x[i][:, j])", user_site())
    total, inside, stride = None, None, 1
    for index, n in reversed(list(zip(indices, sizes))):
        signed = _dtype(index).kind == "i"
        if clamp:
            index = clip(index, 0 if signed else None, n - 1)
        else:
            fits = less(index, n)
            fits = logical_and(greater_equal(index, 0), fits) if signed else fits
            inside = fits if inside is None else logical_and(fits, inside)
        term = multiply(astype(index, DType.i32), stride)
        total, stride = term if total is None else add(term, total), stride * n
    if not clamp:
        total = where(inside, total, -1)
    merged = reshape(view, shape[:q] + (stride,) + shape[q + len(sizes):])
    return _Merged(merged, broadcast_to(total, key.batch), q, perm, shape)


def _gather(name: str, x: Tensor | np.ndarray, key: _Key, indices: Sequence[Tensor | np.ndarray], mode: str,
            fill: Const | None) -> Tensor | np.ndarray:
    """x[key] for index arrays already counted from the end: views, then one take, whose
    out-of-range indices follow take's `mode` ("clip" or "fill" with `fill`)."""
    out = _view(x, key)
    if key.arrays:
        m = _merged(name, out, key, indices, clamp=mode == "clip")
        _from_empty(name, _shape(m.view), m.axis, _shape(m.index))
        out = bind(take_p, m.view, m.index, axis=m.axis, mode=mode, fill_value=fill)
        if key.front and m.axis:
            nb, nd = len(key.batch), len(_shape(out))
            out = transpose(out, tuple(range(m.axis, m.axis + nb)) + tuple(range(m.axis)) +
                            tuple(range(m.axis + nb, nd)))
    return reshape(out, key.shape)


def getitem(x: ArrayLike, key: Any) -> Tensor | np.ndarray:
    """x[key], as NumPy indexes: ints, slices (negative steps too), None, ..., integer arrays
    (lists, tuples, NumPy arrays, traced Tensors; several broadcast together) and concrete bool
    masks, the advanced indices placed as NumPy places them.

    Static ints and index arrays are checked against the axis (negative ones count from the
    end), as in NumPy. A traced index array cannot be checked: as in JAX, an index in [-n, 0)
    counts from the end and any other index outside [0, n) is clamped into range; the gradient
    goes to the entry read. A traced bool mask would give a shape known only at run time, and
    is refused (use fg.where). Slice bounds must be static: a window at a traced start i is
    x[i + fg.arange(k)], or `dynamic_slice`, which clamps it into range.
    """
    x = asarray(x)
    shape = _shape(x)
    key = _parse("getitem", shape, key)
    indices = [_indices("getitem", k, axis, shape, normalize=True) for axis, k in key.arrays]
    return _gather("getitem", x, key, indices, "clip", None)


# JAX's modes of indexed reads and updates (jax.lax.GatherScatterMode), as take's and scatter's.
_GATHER_MODES = {None: "clip", "promise_in_bounds": "clip", "clip": "clip", "fill": "fill", "drop": "fill"}
_SCATTER_MODES = {None: "drop", "promise_in_bounds": "drop", "drop": "drop", "fill": "drop", "clip": "clip"}


def _mode(name: str, mode: Any, modes: dict[Any, str]) -> str:
    if mode not in modes:
        raise TraceError(f"{name}: mode {mode!r} is not supported; use one of 'promise_in_bounds', 'clip', 'drop' or "
                         "'fill'", user_site())
    return modes[mode]


def _get(name: str, x: ArrayLike, key: Any, mode: str, fill_value: Any, wrap: bool) -> Tensor | np.ndarray:
    """x[key] with out-of-range indices, constant ones too, following `mode` (take's "clip" or
    "fill")."""
    x = asarray(x)
    shape = _shape(x)
    key = _parse(name, shape, key, checked=False, wrap=wrap)
    indices = [_indices(name, k, axis, shape, normalize=wrap, checked=False) for axis, k in key.arrays]
    fill = _fill_value(name, fill_value, _dtype(x)) if mode == "fill" else None
    return _gather(name, x, key, indices, mode, fill)


def _update(name: str, x: ArrayLike, key: Any, values: ArrayLike, combine: str, mode: Any,
            wrap: bool) -> Tensor | np.ndarray:
    """x with x[key] combined with `values` (converted to x's dtype and broadcast to x[key]'s
    shape, as JAX's updates): views and an elementwise select for a basic key, one scatter
    for index arrays."""
    x = asarray(x)
    shape, dtype = _shape(x), _dtype(x)
    scatter_mode = _mode(name, mode, _SCATTER_MODES)
    if dtype is DType.bool and combine in ("add", "mul"):
        raise DTypeError(f"{name}: bool arrays ({spec_of(x)}) have no arithmetic updates, as in JAX; use set, min "
                         "or max, or astype('i32') first", user_site())
    key = _parse(name, shape, key, checked=False, wrap=wrap)
    values = asarray(values, dtype)
    if _broadcast_shapes(_shape(values), key.shape) != key.shape:
        raise ShapeError(f"{name}: values of shape {_shape(values)} do not broadcast to the shape {key.shape} that "
                         f"the index selects from {shape}", user_site())
    values = reshape(broadcast_to(values, key.shape), key.bare)
    view = _view(x, key)
    if key.arrays:
        indices = [_indices(name, k, axis, shape, normalize=wrap, checked=False) for axis, k in key.arrays]
        new = _scatter_view(name, view, key, indices, values, scatter_mode, combine)
    else:
        new = values if combine == "set" else {"add": add, "mul": multiply, "min": minimum, "max": maximum}[combine](
            view, values)
    return _write_back(x, key, new)


def _scatter_view(name: str, view: Tensor | np.ndarray, key: _Key, indices: Sequence[Tensor | np.ndarray],
                  updates: Tensor | np.ndarray, mode: str, combine: str) -> Tensor | np.ndarray:
    """The basic part `view` with the updates (laid out as view[advanced part]) combined in."""
    m = _merged(name, view, key, indices, clamp=mode == "clip")
    if key.front and m.axis:  # the updates hold the batch axes first; the scatter wants them at its axis
        nb, nd = len(key.batch), len(_shape(updates))
        updates = transpose(updates, tuple(range(nb, nb + m.axis)) + tuple(range(nb)) + tuple(range(nb + m.axis, nd)))
    out = reshape(bind(scatter_p, m.view, updates, m.index, axis=m.axis, mode=mode, combine=combine), m.unmerged)
    return out if m.perm is None else transpose(out, tuple(np.argsort(m.perm).tolist()))


def _write_back(x: Tensor | np.ndarray, key: _Key, new: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """`x` with the basic part of `key` replaced by `new`: padded back into place (a slice's
    VJP), selected where the slice reads, reversed back."""
    shape, sliced = _shape(x), key.sliced()
    new = reshape(new, sliced)
    if key.whole(shape):
        return bind(rev_p, new, axes=key.rev) if key.rev else new
    widths = tuple((0, 0, 0) if isinstance(n, Dim) else (a, n - 1 - (a + (m - 1) * s), s - 1) if m else (a, n - a, 0)
                   for n, m, a, s in zip(shape, sliced, key.starts, key.steps))
    new = bind(pad_p, new, widths=widths, value=0)
    inside = bind(pad_p, broadcast_to(asarray(True), sliced), widths=widths, value=False)
    if key.rev:
        new, inside = bind(rev_p, new, axes=key.rev), bind(rev_p, inside, axes=key.rev)
    return where(inside, new, x)


class _IndexUpdateHelper:
    """`x.at`: JAX's functional indexed updates, `x.at[key].set(values)` and the like (see
    _IndexUpdateRef), each returning a new value; fgrad values are immutable, as JAX arrays."""

    __slots__ = ("array",)

    def __init__(self, array: ArrayLike):
        self.array = array

    def __getitem__(self, key: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, key)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({_brief(self.array)})"


class _IndexUpdateRef:
    """`x.at[key]`: `get` reads x[key]; `set`, `add`, `subtract`, `multiply` (`mul`), `divide`,
    `power`, `min` and `max` return x with x[key] updated, as `x[key] = values`, `x[key] +=
    values`, ... would (JAX's `.at`). Any index `x[key]` takes works; values are converted to
    x's dtype and broadcast to x[key]'s shape.

    Repeated indices combine: add accumulates, multiply multiplies, min and max take the
    extreme, divide and power use the product of the row's values; with set, the last of them
    in index order wins (JAX leaves which one unspecified). Out-of-range indices follow `mode`,
    as JAX's: for updates "drop" (the default, also "fill" and "promise_in_bounds") drops them
    and "clip" clamps them; for get "fill" (or "drop") reads `fill_value` (NaN for floats, as
    take) and the default clamps. Negative indices count from the end unless
    `wrap_negative_indices` is False. `indices_are_sorted` and `unique_indices`, hints to XLA,
    are accepted and ignored.
    """

    __slots__ = ("array", "index")

    def __init__(self, array: ArrayLike, index: Any):
        self.array, self.index = array, index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({_brief(self.array)}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: str | None = None,
            fill_value: Any = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x[key]; out-of-range indices, constant ones too, follow `mode` (by default clamped, as
        a traced index of x[key] is)."""
        return _get("at.get", self.array, self.index, _mode("at.get", mode, _GATHER_MODES), fill_value,
                    wrap_negative_indices)

    def set(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] = values."""
        return _update("at.set", self.array, self.index, values, "set", mode, wrap_negative_indices)

    def add(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] += values."""
        return _update("at.add", self.array, self.index, values, "add", mode, wrap_negative_indices)

    def subtract(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                 mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] -= values (the negated values added: a - b is a + -b exactly)."""
        values = neg(asarray(values, _dtype(self.array)))
        return _update("at.subtract", self.array, self.index, values, "add", mode, wrap_negative_indices)

    def multiply(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                 mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] *= values."""
        return _update("at.multiply", self.array, self.index, values, "mul", mode, wrap_negative_indices)

    mul = multiply

    def divide(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
               mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] /= values, as JAX: x divided by ones with the values multiplied in (so an
        integer x gives floats)."""
        return divide(self.array, _update("at.divide", _ones_like(self.array), self.index, values, "mul", mode,
                                          wrap_negative_indices))

    def power(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
              mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] **= values, as JAX: x to the power of ones with the values multiplied in."""
        return pow(self.array, _update("at.power", _ones_like(self.array), self.index, values, "mul", mode,
                                       wrap_negative_indices))

    def min(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] = minimum(x[key], values)."""
        return _update("at.min", self.array, self.index, values, "min", mode, wrap_negative_indices)

    def max(self, values: ArrayLike, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, wrap_negative_indices: bool = True) -> Tensor | np.ndarray:
        """x with x[key] = maximum(x[key], values)."""
        return _update("at.max", self.array, self.index, values, "max", mode, wrap_negative_indices)


def _ones_like(x: ArrayLike) -> Tensor | np.ndarray:
    return broadcast_to(asarray(1, _dtype(x)), _shape(x))


def _along_axis(name: str, arr: Tensor | np.ndarray, indices: ArrayLike, axis: int) -> tuple[Any, ...]:
    """The index that reads `arr` along `axis` at `indices` (of arr's rank, the other axes
    broadcasting against arr's): `indices` on that axis, the other axes counted by aranges."""
    shape = _shape(arr)
    dtype = _dtype(indices)
    if not dtype.is_int:
        raise DTypeError(f"{name}: indices must be integers, got {dtype}", user_site())
    ishape = _shape(indices)
    if len(ishape) != len(shape):
        raise ShapeError(f"{name}: indices {ishape} and arr {shape} must have the same number of axes", user_site())
    if _broadcast_shapes(shape[:axis] + shape[axis + 1:], ishape[:axis] + ishape[axis + 1:]) is None:
        raise ShapeError(f"{name}: indices {ishape} do not broadcast against arr {shape} outside axis {axis}",
                         user_site())
    counts = [reshape(arange(n), tuple(n if k == d else 1 for k in range(len(shape)))) for d, n in enumerate(shape)]
    return tuple(indices if d == axis else counts[d] for d in range(len(shape)))


def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None = -1, mode: str | None = None,
                    fill_value: Any = None, *, wrap_negative_indices: bool | None = True) -> Tensor | np.ndarray:
    """The entries of `arr` at `indices` along `axis`, as `jnp.take_along_axis`: `indices` has
    arr's rank, its other axes broadcasting against arr's; with axis None, arr is flattened and
    indices are 1-D. An index in [-n, 0) counts from the end where `wrap_negative_indices` (True
    by default, as JAX's from 0.11; None is JAX 0.10's default: wrap unless mode is
    "promise_in_bounds"); others out of range follow `mode`: "fill" (the default) reads
    `fill_value` (NaN for floats, as take), "clip" (or "promise_in_bounds") clamps."""
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    arr = asarray(arr)
    if axis is None:
        if len(_shape(indices)) != 1:
            raise ShapeError(f"take_along_axis: indices must be 1-D with axis=None, got {_shape(indices)}", user_site())
        arr, axis = reshape(arr, (-1,)), 0
    axis = _one_axis("take_along_axis", arr, axis)
    mode = _mode("take_along_axis", "fill" if mode is None else mode, _GATHER_MODES)
    wrap = _bool_flag("take_along_axis", "wrap_negative_indices", wrap_negative_indices)
    return _get("take_along_axis", arr, _along_axis("take_along_axis", arr, indices, axis), mode, fill_value, wrap)


def put_along_axis(arr: ArrayLike, indices: ArrayLike, values: ArrayLike, axis: int | None, inplace: bool = True,
                   *, mode: str | None = None) -> Tensor | np.ndarray:
    """`arr` with `values` written at `indices` along `axis` (read as in take_along_axis), as
    `jnp.put_along_axis`, which also requires inplace=False. Out-of-range indices follow
    `mode` as in x.at[...].set: dropped by default; of repeated ones the last value wins."""
    if inplace:
        raise TraceError("put_along_axis: fgrad values are immutable, as JAX arrays: pass inplace=False to get the "
                         "updated array", user_site())
    arr = asarray(arr)
    shape = _shape(arr)
    if axis is None:
        if len(_shape(indices)) != 1:
            raise ShapeError(f"put_along_axis: indices must be 1-D with axis=None, got {_shape(indices)}", user_site())
        return reshape(put_along_axis(reshape(arr, (-1,)), indices, values, 0, False, mode=mode), shape)
    axis = _one_axis("put_along_axis", arr, axis)
    return _update("put_along_axis", arr, _along_axis("put_along_axis", arr, indices, axis), values, "set", mode, True)


def roll(a: ArrayLike, shift: ArrayLike | Sequence[int],
         axis: int | Sequence[int] | None = None) -> Tensor | np.ndarray:
    """`a` with its entries shifted `shift` places along `axis`, those pushed off the end coming
    back at the start, as `jnp.roll`; axis None rolls the flattened array. Several shifts and
    axes broadcast together; shifts along one axis named twice add up. A static shift joins two
    slices; a traced one (an integer scalar or 1-D Tensor) reads a window of `a` joined to itself,
    as JAX's."""
    a = asarray(a)
    shape = _shape(a)
    if axis is None:
        return reshape(roll(reshape(a, (-1,)), shift, 0), shape)
    if isinstance(shift, Tensor):
        if not shift.dtype.is_int or shift.ndim > 1:
            raise DTypeError(f"roll: shift must be an integer scalar or 1-D array, got {shift.spec}", user_site())
        shifts = [shift] if shift.ndim == 0 else [getitem(shift, k) for k in range(shift.shape[0])]
    else:
        _dtype(shift)  # refuses ragged lists, strings and None, naming the function
        given = np.atleast_1d(np.asarray(shift))
        if given.dtype.kind not in "iu" or given.ndim > 1:
            raise DTypeError(f"roll: shift must be an integer or a sequence of integers, got {_brief(shift)}",
                             user_site())
        shifts = [int(k) for k in given]
    axes = [_one_axis("roll", a, k) for k in np.atleast_1d(np.asarray(axis)).tolist()]
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ShapeError(f"roll: {len(shifts)} shifts for {len(axes)} axes", user_site())
    for s, k in zip(shifts * (len(axes) if len(shifts) == 1 else 1), axes * (len(shifts) if len(axes) == 1 else 1)):
        n = shape[k]
        if n == 0:  # an empty axis: nothing to move
            continue
        if isinstance(s, Tensor):  # the window at n - (s mod n) of a joined to itself
            starts = [0] * len(shape)
            starts[k] = subtract(n, remainder(astype(s, DType.i32), n))
            a = dynamic_slice(concatenate([a, a], k), starts, shape)
        elif s % n:
            a = concatenate([_slice_axis(a, k, n - s % n, n), _slice_axis(a, k, 0, n - s % n)], k)
    return a


def _slice_axis(x: Tensor | np.ndarray, axis: int, start: int, stop: int) -> Tensor | np.ndarray:
    shape = _shape(x)
    return bind(slice_p, x, starts=tuple(start if k == axis else 0 for k in range(len(shape))),
                stops=tuple(stop if k == axis else d for k, d in enumerate(shape)), steps=(1,) * len(shape))


# -- index arithmetic, static index sets, choosing among values ------------------------------------


def unravel_index(indices: ArrayLike, shape: Sequence[int]) -> tuple[Tensor | np.ndarray, ...]:
    """The coordinates of flat `indices` in an array of `shape`, one array per axis, as
    `jnp.unravel_index`: an index in [-size, 0) counts from the end, others out of range clamp."""
    dims = _shape_arg("unravel_index", shape)
    if not all(isinstance(d, int) and d >= 1 for d in dims):
        raise ShapeError(f"unravel_index: shape must be a tuple of positive integers, got {_brief(shape)}",
                         user_site())
    rest = asarray(indices)
    if not _dtype(rest).is_int:
        raise DTypeError(f"unravel_index: indices must be integers, got {_dtype(rest)}", user_site())
    out: list[Any] = [0] * len(dims)
    for k in reversed(range(len(dims))):
        out[k] = remainder(rest, int(dims[k]))
        rest = fnp.floor_divide(rest, int(dims[k]))
    past = greater_equal(rest, 1)
    before = less(rest, -1) if _dtype(rest).kind == "i" else asarray(False)
    return tuple(where(past, int(d) - 1, where(before, 0, i)) for d, i in zip(dims, out))


def ravel_multi_index(multi_index: Sequence[ArrayLike], dims: Sequence[int], mode: str = "raise",
                      order: str = "C", *, dtype: str | DType | None = None) -> Tensor | np.ndarray:
    """The flat indices of the coordinates `multi_index` in an array of shape `dims`, as
    `jnp.ravel_multi_index`: mode 'raise' checks them (they must be concrete), 'wrap' wraps,
    'clip' clamps; `order` 'C' (row-major) or 'F'."""
    multi_index = _operands("ravel_multi_index", multi_index)
    dims = _shape_arg("ravel_multi_index", dims)
    if len(multi_index) != len(dims):
        raise ShapeError(f"ravel_multi_index: {len(multi_index)} index arrays for {len(dims)} dims", user_site())
    if mode not in ("raise", "wrap", "clip") or order not in ("C", "F"):
        raise ShapeError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip' and order 'C' or 'F', got "
                         f"{mode!r}, {order!r}", user_site())
    dt = DType.i32 if dtype is None else _as_dtype(dtype, "ravel_multi_index")
    sizes = [_count("ravel_multi_index", "dims", d) for d in dims]
    for i, d in zip(multi_index, sizes):
        if not _dtype(i).is_int:
            raise DTypeError(f"ravel_multi_index: indices must be integers, got {_dtype(i)}", user_site())
        if mode == "raise":
            if isinstance(i, Tensor):
                raise TraceError(TRACER_INDEX.format(what="ravel_multi_index: mode='raise' index", spec=i.spec) +
                                 "; use mode='wrap' or mode='clip'", user_site())
            if np.any((np.asarray(i) < 0) | (np.asarray(i) >= d)):
                raise ShapeError(f"ravel_multi_index: an index of {np.asarray(i).tolist()} is out of range for "
                                 f"dims {tuple(sizes)}", user_site())
    index = [asarray(i) for i in multi_index]
    index = [remainder(i, d) if mode == "wrap" else clip(i, 0, d - 1) for i, d in zip(index, sizes)]
    axes = range(len(sizes)) if order == "F" else reversed(range(len(sizes)))
    flat, stride = None, 1
    for k in axes:
        term = multiply(astype(index[k], dt), stride)
        flat = term if flat is None else add(flat, term)
        stride *= sizes[k]
    return flat


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The row and column indices of the upper triangle from diagonal k of an (n, m) matrix,
    as `jnp.triu_indices` (static: NumPy i32 arrays)."""
    return tuple(i.astype(np.int32) for i in np.triu_indices(*_tri_arguments("triu_indices", n, k, m)))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The row and column indices of the lower triangle up to diagonal k of an (n, m) matrix,
    as `jnp.tril_indices` (static: NumPy i32 arrays)."""
    return tuple(i.astype(np.int32) for i in np.tril_indices(*_tri_arguments("tril_indices", n, k, m)))


def _tri_arguments(name: str, n: Any, k: Any, m: Any) -> tuple[int, int, int | None]:
    return (_static_int(name, "n", n, 0), _static_int(name, "k", k),
            None if m is None else _static_int(name, "m", m, 0))


def diag_indices(n: int, ndim: int = 2) -> tuple[np.ndarray, ...]:
    """The indices of the main diagonal of an n x ... x n array of `ndim` axes, as
    `jnp.diag_indices` (static: NumPy i32 arrays)."""
    n, ndim = _static_int("diag_indices", "n", n, 0), _static_int("diag_indices", "ndim", ndim, 0)
    return tuple(i.astype(np.int32) for i in np.diag_indices(n, ndim))


def _matrix_shape(name: str, arr: Any) -> tuple[int, ...]:
    shape = _shape(arr)
    if len(shape) != 2:
        raise ShapeError(f"{name}: needs a 2-D array, got {shape}", user_site())
    return shape


def triu_indices_from(arr: Any, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`triu_indices` for the shape of the 2-D `arr`."""
    n, m = _matrix_shape("triu_indices_from", arr)
    return triu_indices(n, k, m)


def tril_indices_from(arr: Any, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`tril_indices` for the shape of the 2-D `arr`."""
    n, m = _matrix_shape("tril_indices_from", arr)
    return tril_indices(n, k, m)


def diag_indices_from(arr: Any) -> tuple[np.ndarray, ...]:
    """`diag_indices` for `arr`, whose axes must all be of one size."""
    shape = _shape(arr)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ShapeError(f"diag_indices_from: needs at least 2 axes of one size, got {shape}", user_site())
    return diag_indices(shape[0], len(shape))


def select(condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike], default: ArrayLike = 0
           ) -> Tensor | np.ndarray:
    """Elementwise, the choice of the first condition that holds (`default` where none does),
    everything broadcast, as `jnp.select`: a chain of where. Either list may be an array (its
    entries along axis 0); a condition not bool holds where it is nonzero."""
    condlist, choicelist = _operands("select", condlist), _operands("select", choicelist)
    if len(condlist) != len(choicelist) or not condlist:
        raise ShapeError(f"select: needs as many conditions as choices, at least one, got {len(condlist)} and "
                         f"{len(choicelist)}", user_site())
    condlist = [astype(c, DType.bool) for c in condlist]  # nonzero holds, as jnp.select takes them
    dt = result_dtype(default, *choicelist)
    out = asarray(default, dt)
    for c, v in zip(reversed(condlist), reversed(choicelist)):
        out = where(c, asarray(v, dt), out)
    return out


def choose(a: ArrayLike, choices: Sequence[ArrayLike], out: None = None, mode: str = "raise") -> Tensor | np.ndarray:
    """Elementwise, choices[a] (a, the choices broadcast), as `jnp.choose`: mode 'raise' checks a
    (it must be concrete), 'wrap' wraps it, 'clip' clamps it."""
    if out is not None:
        raise TraceError("choose: out= is not supported (fgrad values are immutable, as JAX's)", user_site())
    if mode not in ("raise", "wrap", "clip"):
        raise ShapeError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}", user_site())
    if not _dtype(a).is_int:
        raise DTypeError(f"choose: a must be integers, got {_dtype(a)}", user_site())
    count = len(choices)
    if mode == "raise":
        if isinstance(a, Tensor):
            raise TraceError(TRACER_INDEX.format(what="choose: mode='raise' index", spec=a.spec) +
                             "; use mode='wrap' or mode='clip'", user_site())
        if np.any((np.asarray(a) < 0) | (np.asarray(a) >= count)):
            raise ShapeError(f"choose: an entry of a is outside 0..{count - 1}", user_site())
    index = asarray(a)
    index = remainder(index, count) if mode == "wrap" else clip(index, 0, count - 1)
    shape = _broadcast_shapes(_shape(index), *(_shape(c) for c in choices))
    if shape is None:
        raise ShapeError(f"choose: cannot broadcast a {_shape(index)} with the choices "
                         f"{', '.join(str(_shape(c)) for c in choices)}", user_site())
    dt = result_dtype(*choices)
    picked = broadcast_to(asarray(choices[-1], dt), shape)
    for k in reversed(range(count - 1)):
        picked = where(equal(index, k), asarray(choices[k], dt), picked)
    return picked


def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None, *, size: int | None = None,
             fill_value: ArrayLike = 0, out: None = None) -> Tensor | np.ndarray:
    """The slices of `a` along `axis` (of a flattened if None) where the 1-D `condition` holds,
    as `jnp.compress`. A concrete condition needs no size; a traced one needs `size` (the first
    `size` slices, padded with `fill_value`)."""
    if out is not None:
        raise TraceError("compress: out= is not supported (fgrad values are immutable, as JAX's)", user_site())
    if len(_shape(condition)) != 1:
        raise ShapeError(f"compress: condition must be 1-D, got {_shape(condition)}", user_site())
    x = asarray(a)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _one_axis("compress", x, axis)
    n = _shape(x)[axis]
    kept = _shape(condition)[0]
    if size is None:
        if isinstance(condition, Tensor):
            raise TraceError(f"compress: the number of slices kept depends on the values of a traced "
                             f"{condition.spec}: pass size=, as jax.numpy requires under jit", user_site())
        mask = np.asarray(condition).astype(bool)
        if mask[n:].any():
            raise ShapeError(f"compress: condition holds past the {n} entries of axis {axis}", user_site())
        return take(x, np.flatnonzero(mask[:n]).astype(np.int32), axis=axis)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= n:
        raise ShapeError(f"compress: size must be a static integer in 1..{n} (axis {axis} of {_shape(x)}), got "
                         f"{_brief(size)}", user_site())
    mask = astype(condition, DType.bool)
    mask = mask[:n] if kept > n else mask
    got = take(x, fnp.nonzero(mask, size=size)[0], axis=axis)
    valid = less(arange(size), fnp.sum(astype(mask, DType.i32)))
    shape = [1] * len(_shape(got))
    shape[axis] = size
    return where(reshape(valid, tuple(shape)), got, asarray(fill_value, _dtype(x)))


def extract(condition: ArrayLike, arr: ArrayLike, *, size: int | None = None, fill_value: ArrayLike = 0
            ) -> Tensor | np.ndarray:
    """The entries of `arr` where `condition` holds, both flattened, as `jnp.extract`; `size`
    and `fill_value` as in `compress`."""
    return compress(fnp.ravel(condition), fnp.ravel(arr), size=size, fill_value=fill_value)


# -- NumPy's in-place updates, as jax.numpy's functional ones (inplace=False) ------------------------


def _not_in_place(name: str, inplace: Any, arg: str) -> None:
    if inplace is not False:
        raise InputError(NOT_IN_PLACE.format(name=name, arg=arg), user_site())


def _flat_set(name: str, x: Tensor | np.ndarray, index: ArrayLike, values: ArrayLike) -> Tensor | np.ndarray:
    """x with its flat entries at `index` (i32, in range or dropped) set to `values`, each index
    taking the next of `values` in turn (cycled, as NumPy's)."""
    flat, count = fnp.ravel(x), _shape(index)[0]
    values = fnp.resize(fnp.ravel(asarray(values, _dtype(x))), count)
    return reshape(_update(name, flat, (index,), values, "set", "drop", True), _shape(x))


def put(a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *, inplace: bool = True
        ) -> Tensor | np.ndarray:
    """`a` with its entries at the flat indices `ind` set to `v` (cycled over them), as
    `jnp.put(..., inplace=False)`: by default a negative index counts from the end and indices
    beyond either end take the first or last entry (JAX's unravel_index clamps); `mode="clip"`
    clamps without counting from the end, `mode="wrap"` wraps around. Repeated indices: the last
    wins."""
    _not_in_place("put", inplace, "a")
    x = asarray(a)
    index = fnp.ravel(asarray(ind))
    if _dtype(index).kind not in "iu":
        raise DTypeError(f"put: ind must be integers, got {_dtype(index).name}", user_site())
    index = astype(index, DType.i32)
    size = math.prod(_shape(x))
    if mode not in (None, "clip", "wrap"):
        raise ShapeError(f"put: mode must be None, 'clip' or 'wrap' ('raise' needs values known before running), "
                         f"got {_brief(mode)}", user_site())
    if not size or not _shape(index)[0] or not math.prod(_shape(v)):
        return x
    if mode is None:
        index = where(less(index, 0), add(index, size), index)
    index = remainder(index, size) if mode == "wrap" else clip(index, 0, size - 1)
    return _flat_set("put", x, index, v)


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> Tensor | np.ndarray:
    """`arr` with the entries where `mask` holds (in row-major order) set to `vals` in turn
    (cycled), as `jnp.place(..., inplace=False)`; a traced mask works (its entries are counted
    at run time)."""
    _not_in_place("place", inplace, "arr")
    x = asarray(arr)
    size = math.prod(_shape(x))
    if math.prod(_shape(mask)) != size:
        raise ShapeError(f"place: arr {_shape(x)} and mask {_shape(mask)} must be of one size", user_site())
    if not math.prod(_shape(vals)):
        raise ShapeError("place: vals is empty; there are no values to place", user_site())
    if not size:
        return x
    index = fnp.nonzero(fnp.ravel(asarray(mask, DType.bool)), size=size, fill_value=size)[0]  # past the end: dropped
    return _flat_set("place", x, index, vals)


def fill_diagonal(a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True) -> Tensor | np.ndarray:
    """`a` (2-D, or with all its axes of one size) with its main diagonal set to `val` (a scalar,
    or values cycled along the diagonal), as `jnp.fill_diagonal(..., inplace=False)`."""
    _not_in_place("fill_diagonal", inplace, "a")
    if wrap is not False:
        raise InputError(f"fill_diagonal: wrap={wrap!r} is not supported, as in jax.numpy; use wrap=False",
                         user_site())
    x = asarray(a)
    shape = _shape(x)
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise ShapeError(f"fill_diagonal: needs a 2-D array or one with all axes of one size, got {shape}",
                         user_site())
    n = builtins.min(shape)
    flat = sum(i * math.prod(shape[k + 1:]) for k, i in enumerate(diag_indices(n, len(shape))))
    return _flat_set("fill_diagonal", x, asarray(flat.astype(np.int32)), val)


def mask_indices(n: int, mask_func: Any, k: int = 0, *, size: int | None = None
                 ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """The (row, column) indices where `mask_func(ones((n, n)), k)` (such as `fg.triu`) is
    nonzero, as `jnp.mask_indices`; `size` as nonzero's."""
    n = _static_int("mask_indices", "n", n, 0)
    if not callable(mask_func):
        raise TraceError(f"mask_indices: mask_func must be a function such as fg.triu, got {_brief(mask_func)}",
                         user_site())
    rows, cols = fnp.nonzero(mask_func(fnp.ones((n, n)), k), size=size)
    return rows, cols
