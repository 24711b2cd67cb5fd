"""jax.lax's gather and scatter operators with XLA's dimension numbers (`GatherDimensionNumbers`,
`ScatterDimensionNumbers`, `GatherScatterMode`): gather, scatter, scatter_add, scatter_sub,
scatter_mul, scatter_min, scatter_max, scatter_apply and index_take.

Each is written with fgrad's indexing: every operand axis gets an index array of the result's (or
the updates') shape, a window's start plus its offset, and one advanced index `x[i0, i1, ...]`
gathers, or one flat indexed update `.at[flat]` scatters, so they trace, differentiate (a gather's
VJP is a scatter-add), batch and compile like the rest. Out-of-bounds windows follow `mode` as in
XLA: clamped whole into range (`clip`, and a gather's `promise_in_bounds`), or filled with
`fill_value` (a gather's `fill`) or dropped whole (a scatter's default).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError, TraceError, name_errors_after
from fgrad.ir import DType
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _shape, asarray
from fgrad.trace import Tensor, user_site
from fgrad.numpy.indexing import _IndexUpdateRef, getitem
from fgrad.lax.shapes import _dims, _ints

__all__ = [
    "GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers", "gather", "index_take", "scatter",
    "scatter_add", "scatter_apply", "scatter_max", "scatter_min", "scatter_mul", "scatter_sub",
]

Value = Tensor | np.ndarray


class GatherDimensionNumbers(NamedTuple):
    """How the axes of a gather's operand, start indices and result relate (XLA's, with the index
    vector always the last axis of the start indices)."""
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How the axes of a scatter's operand, indices and updates relate (XLA's, with the index
    vector always the last axis of the indices)."""
    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """Out-of-bounds windows: CLIP clamps them whole into range; FILL_OR_DROP fills a gathered one
    with the fill value and drops a scattered one; PROMISE_IN_BOUNDS clamps a gather and drops a
    scatter, as XLA does."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        if isinstance(s, GatherScatterMode):
            return s
        modes = {"clip": GatherScatterMode.CLIP, None: GatherScatterMode.FILL_OR_DROP,
                 "fill": GatherScatterMode.FILL_OR_DROP, "drop": GatherScatterMode.FILL_OR_DROP,
                 "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS}
        if not isinstance(s, (str, type(None))) or s not in modes:
            raise ShapeError(f"unknown gather or scatter mode {_brief(s)}; use 'clip', 'fill', 'drop' or "
                             "'promise_in_bounds'", user_site())
        return modes[s]


class _Windows(NamedTuple):
    """Per operand axis, the index of each element of the result (or of the updates), as arrays
    of its shape, and where a window reaches out of bounds."""
    shape: tuple[int, ...]
    indices: tuple[Value, ...]
    out_of_bounds: Value


def _windows(shape: tuple[int, ...], idx: Value, out_rank: int, window_at: dict[int, int],
             sizes: Sequence[int], index_map: Sequence[int], batching: Sequence[tuple[int, int]],
             clamp: bool) -> _Windows:
    """The index arrays of the operand's axes for a result of rank `out_rank` whose window axes are
    `window_at` (operand axis -> result axis) and whose other axes are the batch axes of `idx`
    (its axes but the last) in order: each operand axis's window start (from idx's index vector
    through `index_map`, or a batch position through `batching`, else 0), clamped so that the
    window of `sizes` fits where `clamp`, plus its offset along its result axis."""
    batch_axes = [p for p in range(out_rank) if p not in window_at.values()]
    batch_shape = _shape(idx)[:-1]
    out_shape = [1] * out_rank
    for p, n in zip(batch_axes, batch_shape):
        out_shape[p] = n
    for d, p in window_at.items():
        out_shape[p] = sizes[d]

    def at_batch(v: Value) -> Value:  # a value of batch_shape placed on the result's batch axes
        lifted = [1] * out_rank
        for p, n in zip(batch_axes, batch_shape):
            lifted[p] = n
        return fnp.reshape(v, tuple(lifted))

    starts: dict[int, Value] = {}
    for k, d in enumerate(index_map):
        starts[d] = fnp.astype(idx[..., k], DType.i32)
    for operand_axis, index_axis in batching:
        starts[operand_axis] = fnp.broadcast_to(fnp.expand_dims(
            fnp.arange(batch_shape[index_axis], dtype=DType.i32),
            tuple(a for a in range(len(batch_shape)) if a != index_axis)), batch_shape)
    out_of_bounds = fnp.zeros(batch_shape, DType.bool)
    indices = []
    for d, n in enumerate(shape):
        start = starts.get(d)
        if start is not None:
            last = n - sizes[d]
            out_of_bounds = fnp.logical_or(out_of_bounds, fnp.logical_or(start < 0, start > last))
            start = fnp.clip(start, 0, max(last, 0)) if clamp else start
            start = at_batch(start)
        index = start if start is not None else fnp.zeros((), DType.i32)
        if d in window_at:
            offsets = [1] * out_rank
            offsets[window_at[d]] = sizes[d]
            index = fnp.add(index, fnp.reshape(fnp.arange(sizes[d], dtype=DType.i32), tuple(offsets)))
        indices.append(fnp.broadcast_to(index, tuple(out_shape)))
    return _Windows(tuple(out_shape), tuple(indices), at_batch(out_of_bounds))


def _indices(name: str, x: Value, indices: ArrayLike) -> Value:
    idx = asarray(indices)
    if _dtype(idx).kind not in "iu":
        raise DTypeError(f"{name}: indices must be integers, got {_dtype(idx).name}", user_site())
    if not _shape(idx):
        raise ShapeError(f"{name}: indices need an index vector as their last axis (add a trailing axis of size 1 "
                         "for scalar indices), got a 0-d value", user_site())
    return idx


def _batching(name: str, operand_dims: tuple[int, ...], index_dims: tuple[int, ...], index_rank: int
              ) -> list[tuple[int, int]]:
    if len(operand_dims) != len(index_dims):
        raise ShapeError(f"{name}: operand batching dims {operand_dims} and indices batching dims {index_dims} must "
                         "pair up", user_site())
    if any(not 0 <= a < index_rank - 1 for a in index_dims):
        raise ShapeError(f"{name}: indices batching dims {index_dims} must be batch axes of the indices (not the "
                         f"index vector, axis {index_rank - 1})", user_site())
    return list(zip(operand_dims, index_dims))


def gather(operand: ArrayLike, start_indices: ArrayLike, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: str | GatherScatterMode | None = None, fill_value: Any = None) -> Value:
    """Slices of `operand` of `slice_sizes` starting where the index vectors (the last axis of
    `start_indices`) say, as `jax.lax.gather` with XLA's dimension numbers. By default
    ('promise_in_bounds', as JAX's) and with 'clip', a window reaching out of bounds is clamped
    whole into range;
    with 'fill' (or 'drop') it is `fill_value` throughout (NaN for floats, the least i32, the
    largest u32, True)."""
    name = "gather"
    x = asarray(operand)
    idx = _indices(name, x, start_indices)
    shape, ishape = _shape(x), _shape(idx)
    dn = GatherDimensionNumbers(*dimension_numbers)
    sizes = _ints(name, "slice_sizes", slice_sizes)
    collapsed = _dims(name, "collapsed_slice_dims", dn.collapsed_slice_dims, len(shape))
    index_map = _dims(name, "start_index_map", dn.start_index_map, len(shape))
    operand_batching = _dims(name, "operand_batching_dims", dn.operand_batching_dims, len(shape))
    batching = _batching(name, operand_batching, _ints(name, "start_indices_batching_dims",
                                                       dn.start_indices_batching_dims), len(ishape))
    if len(sizes) != len(shape) or any(not 0 <= s <= n for s, n in zip(sizes, shape)):
        raise ShapeError(f"{name}: slice_sizes {sizes} must give one size per axis of the operand {shape}, each at "
                         "most the axis's", user_site())
    if len(index_map) != ishape[-1]:
        raise ShapeError(f"{name}: start_index_map {index_map} must name one operand axis per entry of the index "
                         f"vector (the last axis of start_indices {ishape})", user_site())
    if any(sizes[d] != 1 for d in (*collapsed, *operand_batching)):
        raise ShapeError(f"{name}: collapsed and batching axes {collapsed + operand_batching} must have slice size 1, "
                         f"got slice_sizes {sizes}", user_site())
    window_dims = [d for d in range(len(shape)) if d not in collapsed and d not in operand_batching]
    out_rank = len(ishape) - 1 + len(window_dims)
    offset_dims = _dims(name, "offset_dims", dn.offset_dims, out_rank)
    if list(offset_dims) != sorted(offset_dims) or len(offset_dims) != len(window_dims):
        raise ShapeError(f"{name}: offset_dims {offset_dims} must be {len(window_dims)} ascending axes of the result, "
                         f"one per operand axis neither collapsed nor batching", user_site())
    parsed = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    windows = _windows(shape, idx, out_rank, dict(zip(window_dims, offset_dims)), sizes, index_map, batching,
                       clamp=True)
    if not math.prod(shape):  # nothing to gather from: every window is out of bounds
        return fnp.full(windows.shape, _fill(x, fill_value), _dtype(x))
    out = getitem(x, windows.indices) if shape else fnp.broadcast_to(x, windows.shape)
    if parsed is GatherScatterMode.FILL_OR_DROP:
        out = fnp.where(windows.out_of_bounds, asarray(_fill(x, fill_value), _dtype(x)), out)
    return out


def _fill(x: Value, fill_value: Any) -> Any:
    if fill_value is not None:
        return fill_value
    dtype = _dtype(x)
    return {DType.bool: True, DType.u32: np.iinfo(np.uint32).max, DType.i32: np.iinfo(np.int32).min}.get(dtype,
                                                                                                       np.nan)


def _scatter(name: str, operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
             dimension_numbers: ScatterDimensionNumbers, mode: str | GatherScatterMode | None,
             combine: Callable[[Any, Value], Value]) -> Value:
    """operand with `updates` combined in (`combine(ref, values)` on an `.at` of the flattened
    operand at the windows' elements) at the windows the indices start."""
    x = asarray(operand)
    idx = _indices(name, x, scatter_indices)
    shape, ishape = _shape(x), _shape(idx)
    u = asarray(updates, _dtype(x))
    ushape = _shape(u)
    dn = ScatterDimensionNumbers(*dimension_numbers)
    window_dims = _dims(name, "update_window_dims", dn.update_window_dims, len(ushape))
    inserted = _dims(name, "inserted_window_dims", dn.inserted_window_dims, len(shape))
    index_map = _dims(name, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims, len(shape))
    operand_batching = _dims(name, "operand_batching_dims", dn.operand_batching_dims, len(shape))
    batching = _batching(name, operand_batching, _ints(name, "scatter_indices_batching_dims",
                                                       dn.scatter_indices_batching_dims), len(ishape))
    if len(index_map) != ishape[-1]:
        raise ShapeError(f"{name}: scatter_dims_to_operand_dims {index_map} must name one operand axis per entry of "
                         f"the index vector (the last axis of scatter_indices {ishape})", user_site())
    operand_windows = [d for d in range(len(shape)) if d not in inserted and d not in operand_batching]
    if list(window_dims) != sorted(window_dims) or len(window_dims) != len(operand_windows):
        raise ShapeError(f"{name}: update_window_dims {window_dims} must be {len(operand_windows)} ascending axes of "
                         f"the updates {ushape}, one per operand axis neither inserted nor batching", user_site())
    scatter_axes = [p for p in range(len(ushape)) if p not in window_dims]
    if [ushape[p] for p in scatter_axes] != list(ishape[:-1]):
        raise ShapeError(f"{name}: the updates' scatter axes {tuple(ushape[p] for p in scatter_axes)} must be the "
                         f"indices' batch axes {ishape[:-1]} (updates {ushape}, indices {ishape})", user_site())
    sizes = [1] * len(shape)
    for d, p in zip(operand_windows, window_dims):
        sizes[d] = ushape[p]
        if sizes[d] > shape[d]:
            raise ShapeError(f"{name}: the update window {ushape} is larger than the operand {shape} along its axis "
                             f"{d}", user_site())
    parsed = GatherScatterMode.from_any(mode)
    windows = _windows(shape, idx, len(ushape), dict(zip(operand_windows, window_dims)), sizes, index_map,
                       batching, clamp=parsed is GatherScatterMode.CLIP)
    if not math.prod(shape) or not math.prod(ushape):
        return x
    size = math.prod(shape)
    flat = fnp.zeros((), DType.i32)
    for d, index in enumerate(windows.indices):
        flat = fnp.add(fnp.multiply(flat, shape[d]), index)
    if parsed is not GatherScatterMode.CLIP:  # a window out of bounds is dropped whole
        flat = fnp.where(windows.out_of_bounds, size, flat)
    flat = fnp.ravel(flat)
    return fnp.reshape(combine(_IndexUpdateRef(fnp.ravel(x), flat), fnp.ravel(u)), shape)


def _scatter_op(name: str, update: str, doc: str) -> Callable[..., Value]:
    """jax.lax's scatter `name`: the indexed update `update` (`.at[...].set`, `.add`, ...) of the
    flattened operand at the windows' elements."""
    def op(operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
           dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
           unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Value:
        return _scatter(name, operand, scatter_indices, updates, dimension_numbers, mode,
                        lambda ref, values: getattr(ref, update)(values, mode="drop"))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


scatter = _scatter_op("scatter", "set", """`operand` with the windows of `updates` written where the index
    vectors say, as `jax.lax.scatter`; of updates to one element, the last (in the updates' order)
    wins. A window out of bounds is dropped (clamped into range with 'clip').""")
scatter_add = _scatter_op("scatter_add", "add", "`scatter`, adding the updates (repeated indices accumulate), as "
                          "`jax.lax.scatter_add`.")
scatter_sub = _scatter_op("scatter_sub", "subtract", "`scatter`, subtracting the updates, as `jax.lax.scatter_sub`.")
scatter_mul = _scatter_op("scatter_mul", "multiply", "`scatter`, multiplying by the updates, as "
                          "`jax.lax.scatter_mul`.")
scatter_min = _scatter_op("scatter_min", "min", "`scatter`, keeping the least of the operand and the updates, as "
                          "`jax.lax.scatter_min`.")
scatter_max = _scatter_op("scatter_max", "max", "`scatter`, keeping the greatest of the operand and the updates, "
                          "as `jax.lax.scatter_max`.")


def scatter_apply(operand: ArrayLike, scatter_indices: ArrayLike, func: Callable[[Value], Value],
                  dimension_numbers: ScatterDimensionNumbers, *, update_shape: Sequence[int] = (),
                  indices_are_sorted: bool = False, unique_indices: bool = False,
                  mode: str | GatherScatterMode | None = None) -> Value:
    """`operand` with `func` (elementwise) applied to the elements the windows of `update_shape`
    cover, as `jax.lax.scatter_apply`; an element covered several times takes `func` once (XLA
    applies it once per cover)."""
    if not callable(func):
        raise TraceError(f"scatter_apply: func must be a function, got {_brief(func)}", user_site())
    x = asarray(operand)
    hits = _scatter("scatter_apply", fnp.zeros(_shape(x), DType.bool), scatter_indices,
                    fnp.ones(_ints("scatter_apply", "update_shape", update_shape), DType.bool), dimension_numbers,
                    mode, lambda ref, v: ref.set(v, mode="drop"))
    return fnp.where(hits, asarray(func(x), _dtype(x)), x)


def index_take(src: ArrayLike, idxs: Sequence[ArrayLike], axes: Sequence[int]) -> Value:
    """`src` at the index arrays `idxs` (one per axis in `axes`, taken modulo the axis's size) along
    those axes, whole along the others, as `jax.lax.index_take`."""
    x = asarray(src)
    shape = _shape(x)
    axes = _dims("index_take", "axes", axes, len(shape))
    if not isinstance(idxs, (tuple, list)) or len(idxs) != len(axes):
        raise ShapeError(f"index_take: needs one index array per axis of {axes}, got {_brief(idxs)}", user_site())
    indices = fnp.stack([fnp.remainder(asarray(i), shape[a]) for i, a in zip(idxs, axes)], axis=1)
    sizes = [1 if a in axes else n for a, n in enumerate(shape)]
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, len(shape) - len(axes) + 1)), collapsed_slice_dims=axes,
                                start_index_map=axes)
    return gather(x, indices, dn, sizes)


name_errors_after(globals(), [n for n in __all__ if n[0].islower()])
del name_errors_after  # not part of the namespace
