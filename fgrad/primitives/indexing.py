"""Gather and scatter: take (whose VJP is a scatter-add), scatter_add, and scatter (JAX's indexed
updates, x.at[...]); windows at traced starts: dynamic_slice and dynamic_update_slice.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import builtins
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import Const, Dim, DType, Spec, declare
from fgrad.lower.kinds import VIEW, WINDOW, Contraction, View, register_lowering
from fgrad.lower.library import cast, pick
from fgrad.trace import Tensor, bind, spec_of
from fgrad.transforms.autodiff import vjp_rules
from fgrad.transforms.batching import batch_rules, batch_size, with_batch
from fgrad.transforms.forward import jvp_rules, linear_jvp
from fgrad.transforms.passes import simplify_rules

from fgrad.primitives.abstract_eval import ANY, INTEGER, NUMERIC, check_axes, check_dtypes, same_last_axis
from fgrad.primitives.elementwise import iota_p

__all__ = [  # re-exported by fgrad.primitives
    "dynamic_slice_p", "dynamic_update_slice_p", "scatter_add_p", "scatter_p", "take_p",
]


# take: gather along `axis`; out = x.shape[:axis] + indices.shape + x.shape[axis+1:].
# Indices are used as they are (the public functions wrap negative ones), and
# one outside [0, n) follows `mode`, as in jax.lax.gather: "clip" clamps it into
# range, "fill" reads `fill_value` (a 0-d Const). The VJP is the transposed
# scatter-add: with "clip" the cotangent goes to the row that was read; with
# "fill" a filled entry read no row and its cotangent is dropped.
def _take_rule(x: Spec, indices: Spec, *, axis: int, mode: str, fill_value: Const | None) -> Spec:
    check_dtypes("take", INTEGER, indices)
    check_axes("take", x, (axis,))
    fill = None if fill_value is None else Spec(fill_value.shape, fill_value.dtype)
    if (mode, fill) not in (("clip", None), ("fill", Spec((), x.dtype))):
        raise ShapeError(f"take: mode {mode!r} with fill_value {fill} for {x}: use 'clip' with none or 'fill' "
                         f"with a {x.dtype} scalar")
    if mode == "clip" and x.shape[axis] == 0 and 0 not in indices.shape:
        raise ShapeError(f"take: cannot clip indices {indices.shape} into the empty axis {axis} of {x.shape}")
    return Spec(x.shape[:axis] + indices.shape + x.shape[axis + 1:], x.dtype)


def _take_impl(x: np.ndarray, indices: np.ndarray, *, axis: int, mode: str, fill_value: Const | None) -> np.ndarray:
    n = x.shape[axis]
    if n == 0:  # nothing to read: every entry is filled (clipping takes no entry: the rule saw to it)
        return np.full(x.shape[:axis] + indices.shape + x.shape[axis + 1:], 0 if fill_value is None else
                       fill_value.array, x.dtype)
    out = np.take(x, np.clip(indices, 0, n - 1), axis=axis)
    if mode == "clip":
        return out
    inside = ((indices >= 0) & (indices < n)).reshape(indices.shape + (1,) * (x.ndim - axis - 1))
    return np.where(inside, out, fill_value.array)


def _size_as(w: Any, n: int | Dim, dtype: DType, less: int = 0) -> str:
    """WGSL of the size `n` (a symbol's value at call time) less `less`, as a value of the index `dtype`."""
    if isinstance(n, int):
        return w.literal(n - less, dtype)
    value = cast(w, w.size(n), DType.i32, dtype)
    return f"({value} - {w.literal(less, dtype)})" if less else value


def _take_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The entry at the clamped index (loads stay in range); with "fill", the fill value unless in range."""
    node = w.nodes[i]
    x, idx = node.inputs
    axis, k, n, index = node.attrs["axis"], w.spec(idx).ndim, w.spec(x).shape[node.attrs["axis"]], w.spec(idx).dtype
    at = w.let(w.value(idx, coords[axis: axis + k]))
    # An empty axis reads the one word of its buffer, which "fill" discards (no clamp into nothing).
    clamped = "0i" if n == 0 else w.let(cast(w, f"clamp({at}, {w.literal(0, index)}, {_size_as(w, n, index, 1)})",
                                              index, DType.i32))
    v = w.value(x, list(coords[:axis]) + [clamped] + list(coords[axis + k:]))
    if node.attrs["mode"] == "clip":
        return v
    fill = w.literal(node.attrs["fill_value"].array.item(), node.spec.dtype)
    return f"select({fill}, {v}, {at} >= {w.literal(0, index)} && {at} < {_size_as(w, n, index)})"


# A small table's gradient (an embedding's) is one_hot(indices)^T @ g: a matmul,
# far faster on a GPU than a scatter; a large one scatter-adds.
ONE_HOT_GRADIENT_LIMIT = 1 << 24  # elements of the one-hot matrix


def _take_vjp(g: Tensor, ans: Tensor, x: Tensor, idx: Tensor, *, axis: int, mode: str,
              fill_value: Const | None) -> tuple[Tensor, None]:
    n, count = x.shape[axis], spec_of(idx).max_size
    if isinstance(n, Dim) or spec_of(x).max_shape[axis] * count > ONE_HOT_GRADIENT_LIMIT:  # one_hot takes a fixed n
        return bind(scatter_add_p, g, idx, axis=axis, size=n, mode="clip" if mode == "clip" else "drop"), None
    if mode == "clip":
        idx = fnp.clip(idx, 0, n - 1)
    else:  # one_hot rows of filled entries are zero; their cotangent (NaN, say) must not reach 0 * g either
        inside = fnp.logical_and(idx >= 0, idx < n)
        g = fnp.where(fnp.reshape(inside, (1,) * axis + idx.shape + (1,) * (g.ndim - axis - idx.ndim)), g, 0.0)
    moved = fnp.transpose(g, tuple(range(axis, axis + idx.ndim)) + tuple(range(axis)) +
                      tuple(range(axis + idx.ndim, g.ndim))) if axis else g
    rest = moved.shape[idx.ndim:]
    picked = fnp.one_hot(fnp.reshape(idx, (-1,)), n, dtype=g.dtype)  # (count, n)
    grad = fnp.reshape(fnp.transpose(picked) @ fnp.reshape(moved, (-1, math.prod(rest))), (n, *rest))
    return (fnp.transpose(grad, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, grad.ndim))) if axis else grad), None


def _take_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, axis: int, mode: str,
              fill_value: Const | None) -> Any:
    # Linear in x; a filled entry is a constant, whose tangent is zero.
    zero = None if fill_value is None else Const.of(0, fill_value.dtype)
    return bind(take_p, tangents[0], primals[1], axis=axis, mode=mode, fill_value=zero)


def _iota(shape: tuple[int, ...], axis: int) -> Any:
    return bind(iota_p, shape=shape, axis=axis, dtype=DType.i32)


def _folded(idx: Any, n: int, clip: bool) -> Any:
    """Per-example indices `idx` (batch first) into an axis of `n` entries, made indices into the axis
    that folds the batch into it (`_fold`): example k's index i becomes k * n + i. An index outside
    [0, n) is clamped first where `clip`, else made -1, outside the folded axis too, so that it is
    filled or dropped as before rather than reaching another example's entries."""
    offset = fnp.multiply(_iota(tuple(idx.shape), 0), n)
    if clip:
        return fnp.add(offset, fnp.astype(fnp.clip(idx, 0, n - 1), DType.i32))
    inside = fnp.logical_and(fnp.greater_equal(idx, 0), fnp.less(idx, n))
    return fnp.where(inside, fnp.add(offset, fnp.astype(idx, DType.i32)), -1)


def _fold(x: Any, axis: int) -> Any:
    """`x` (batch first) with the batch folded into its axis `axis` (counted without the batch): moved
    next to it, then the two merged into one axis of batch * n entries, example k's at k * n."""
    moved = fnp.moveaxis(x, 0, axis)
    shape = tuple(moved.shape)
    return fnp.reshape(moved, (*shape[:axis], shape[axis] * shape[axis + 1], *shape[axis + 2:]))


def _unfold(x: Any, axis: int, size: int) -> Any:
    """The inverse of `_fold`: the batch of `size` split out of axis `axis` and moved back to the front."""
    shape = tuple(x.shape)
    return fnp.moveaxis(fnp.reshape(x, (*shape[:axis], size, shape[axis] // size, *shape[axis + 1:])), axis, 0)


def _take_batch(args: Sequence[Any], batched: Sequence[bool], *, axis: int, mode: str,
                fill_value: Const | None) -> Any:
    """One take: along the axis past the batch for shared indices; of the shared operand, the batch
    moved to the front, for per-example ones; for both batched, from the operand with the batch
    folded into the indexed axis, at indices offset into each example's part."""
    x, idx = args
    if not batched[1]:
        return bind(take_p, x, idx, axis=axis + 1, mode=mode, fill_value=fill_value)
    if not batched[0]:
        return fnp.moveaxis(bind(take_p, x, idx, axis=axis, mode=mode, fill_value=fill_value), axis, 0)
    size, n = x.shape[0], x.shape[axis + 1]
    if isinstance(n, Dim):
        # A symbolic axis is not folded: every example's indices read every example's operand,
        # (b, ..., b, *idx, ...), and each example keeps its own, the diagonal: b times the reads.
        every = fnp.moveaxis(bind(take_p, x, idx, axis=axis + 1, mode=mode, fill_value=fill_value), axis + 1, 1)
        return fnp.reshape(every, (size * size, *every.shape[2:]))[::size + 1]
    out = bind(take_p, _fold(x, axis), _folded(idx, n, mode == "clip"), axis=axis, mode=mode, fill_value=fill_value)
    return fnp.moveaxis(out, axis, 0)


take_p = declare("take", _take_rule, _take_impl)
vjp_rules.register(take_p, _take_vjp)
jvp_rules.register(take_p, _take_jvp)
batch_rules.register(take_p, _take_batch)
register_lowering(take_p, VIEW, _take_wgsl)


# scatter_add: the transpose of take: out has `size` entries along `axis`, and
# update slice j is added at row indices[j]. An index outside [0, size) follows
# `mode`, as in jax.lax.scatter_add: "clip" clamps it into range, "drop" drops
# its update. The VJP is the matching take (a dropped update's cotangent is 0).
def _scatter_add_rule(updates: Spec, indices: Spec, *, axis: int, size: int | Dim, mode: str) -> Spec:
    check_dtypes("scatter_add", NUMERIC, updates)
    return _check_scatter("scatter_add", updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:],
                          updates, indices, axis, mode)


def _check_scatter(name: str, shape: tuple[int | Dim, ...], updates: Spec, indices: Spec, axis: int,
                   mode: str) -> Spec:
    """The result of scattering `updates` along `axis` of `shape` at `indices`, checked."""
    check_dtypes(name, INTEGER, indices)
    size = shape[axis] if 0 <= axis < len(shape) else 0
    if not (0 <= axis <= updates.ndim - indices.ndim and updates.shape[axis: axis + indices.ndim] == indices.shape
            and updates.shape[:axis] + updates.shape[axis + indices.ndim:] == shape[:axis] + shape[axis + 1:]
            and (isinstance(size, Dim) or size >= 0)):
        raise ShapeError(f"{name}: updates {updates.shape} do not hold indices {indices.shape} at axis {axis} of "
                         f"{shape}")
    if mode not in ("clip", "drop"):
        raise ShapeError(f"{name}: mode {mode!r} is not 'clip' or 'drop'")
    return Spec(shape, updates.dtype)


def _scattered_rows(indices: np.ndarray, size: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Which update slices (positions in the flattened indices) land, and on which rows."""
    flat = indices.reshape(-1)
    if mode == "clip":
        return np.arange(flat.size), np.clip(flat, 0, size - 1)
    (kept,) = np.nonzero((flat >= 0) & (flat < size))
    return kept, flat[kept]


def _scatter_add_impl(updates: np.ndarray, indices: np.ndarray, *, axis: int, size: int, mode: str) -> np.ndarray:
    out = np.zeros(updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:], updates.dtype)
    return _scatter_impl(out, updates, indices, axis=axis, mode=mode, combine="add")


def _fold_updates(w: Any, u: int, idx: int, axis: int, size: int | Dim, mode: str, coords: Sequence[str],
                  combine: Callable[[str, str], str], start: str, dtype: DType) -> str:
    """The update slices whose index is this row folded by `combine` from `start`: a fold over
    all indices (an index out of range matches no row, so "drop" needs no test of its own)."""
    ishape, index = w.spec(idx).shape, w.spec(idx).dtype

    def at(r: str) -> str:
        where = w.unravel(r, ishape)
        row, v = w.value(idx, where), w.value(u, list(coords[:axis]) + where + list(coords[axis + 1:]))
        return f"select({start}, {v}, {_row_wgsl(w, row, index, size, mode)} == {coords[axis]})"

    return w.reduce(w.extent(ishape), at, combine, start, dtype)


def _row_wgsl(w: Any, row: str, index: DType, size: int | Dim, mode: str) -> str:
    """WGSL of the row, as an i32, that an update at index `row` (of the `index` dtype) goes to."""
    if mode == "clip":
        row = f"clamp({row}, {w.literal(0, index)}, {_size_as(w, size, index, 1)})"
    return cast(w, row, index, DType.i32)


def _scatter_add_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    u, idx = w.nodes[i].inputs
    attrs, dtype = w.nodes[i].attrs, w.spec(i).dtype
    return _fold_updates(w, u, idx, attrs["axis"], attrs["size"], attrs["mode"], coords,
                         lambda acc, v: f"{acc} + {v}", w.literal(0, dtype), dtype)


def _scatter_add_vjp(g: Tensor, ans: Tensor, u: Tensor, idx: Tensor, *, axis: int, size: int,
                     mode: str) -> tuple[Tensor, None]:
    return _gathered(g, idx, axis, mode), None


def _gathered(g: Tensor, idx: Tensor, axis: int, mode: str) -> Tensor:
    """The rows of `g` that scattered updates went to: the cotangent of the updates, 0 for a
    dropped one."""
    if mode == "clip":
        return bind(take_p, g, idx, axis=axis, mode="clip", fill_value=None)
    return bind(take_p, g, idx, axis=axis, mode="fill", fill_value=Const.of(0, DType.of(g.dtype)))


def _scatter_add_batch(args: Sequence[Any], batched: Sequence[bool], *, axis: int, size: int | Dim,
                       mode: str) -> Any:
    """One scatter_add: along the axis past the batch for shared indices; for per-example ones, into
    the result with the batch folded into the scattered axis (`_fold`), then unfolded."""
    u, idx = args
    if not batched[1]:
        return bind(scatter_add_p, u, idx, axis=axis + 1, size=size, mode=mode)
    count = idx.shape[0]
    u = with_batch(u, batched[0], count)
    if isinstance(size, Dim):
        # A symbolic axis is not folded: every example's updates go to every example's result,
        # (b, ..., b, *idx, ...), those of the other examples zeroed: b times the updates.
        own = (count, *(1,) * axis, count, *(1,) * (u.ndim - axis - 1))
        every = fnp.where(fnp.equal(_iota(own, 0), _iota(own, axis + 1)), fnp.moveaxis(u, 0, axis), 0)
        return bind(scatter_add_p, every, idx, axis=axis + 1, size=size, mode=mode)
    out = bind(scatter_add_p, fnp.moveaxis(u, 0, axis), _folded(idx, size, mode == "clip"), axis=axis,
               size=count * size, mode=mode)
    return _unfold(out, axis, count)


scatter_add_p = declare("scatter_add", _scatter_add_rule, _scatter_add_impl)
vjp_rules.register(scatter_add_p, _scatter_add_vjp)
jvp_rules.register(scatter_add_p, linear_jvp(scatter_add_p))
batch_rules.register(scatter_add_p, _scatter_add_batch)
register_lowering(scatter_add_p, Contraction(lambda node, u, idx: idx.size), _scatter_add_wgsl)


# scatter: `x` with update slice j combined into row indices[j] along `axis`, as JAX's
# x.at[...] updates (jax.lax.scatter, scatter_add, scatter_mul, scatter_min, scatter_max):
# `combine` is "set", "add", "mul", "min" or "max" (NaN wins, as in maximum). Several
# updates of one row combine in index order; with "set" the last of them wins (JAX leaves
# which one unspecified). Indices out of range follow `mode` as in scatter_add. Cotangents:
# "add": g to x, the rows of g to the updates; "set": g to x where no update landed, the
# rows of g to the updates that won; "mul": g times the product of the row's updates to x,
# g * x times the product of the row's other updates to each update (zeros included);
# "min"/"max": g to those equal to the result, ties sharing it evenly, as JAX's.
@dataclass(frozen=True)
class Combine:
    """How a scatter combines a row's updates: the NumPy ufunc (None for "set"), the dtypes it
    takes, its WGSL `wgsl(w, dtype)(a, b)` and the value it starts from, `start(dtype)`."""

    ufunc: np.ufunc | None
    dtypes: tuple[DType, ...]
    wgsl: Callable[[Any, DType], Callable[[str, str], str]] | None = None
    start: Callable[[DType], float | int | bool] | None = None


# min and max start from the infinities, which a literal clamps to an integer's range; on bools
# they are and / or.
COMBINES = {
    "set": Combine(None, ANY),
    "add": Combine(np.add, NUMERIC, lambda w, dtype: lambda a, b: f"{a} + {b}", lambda dtype: 0),
    "mul": Combine(np.multiply, NUMERIC, lambda w, dtype: lambda a, b: f"{a} * {b}", lambda dtype: 1),
    "min": Combine(np.minimum, ANY, lambda w, dtype: pick(w, "min", dtype),
                   lambda dtype: True if dtype is DType.bool else math.inf),
    "max": Combine(np.maximum, ANY, lambda w, dtype: pick(w, "max", dtype),
                   lambda dtype: False if dtype is DType.bool else -math.inf),
}


def _scatter_rule(x: Spec, updates: Spec, indices: Spec, *, axis: int, mode: str, combine: str) -> Spec:
    if combine not in COMBINES:
        raise ShapeError(f"scatter: combine {combine!r} is not one of {', '.join(COMBINES)}")
    check_dtypes(f"scatter ({combine})", COMBINES[combine].dtypes, x)
    if updates.dtype != x.dtype:
        raise DTypeError(f"scatter: updates {updates} and operand {x} dtypes differ")
    return _check_scatter("scatter", x.shape, updates, indices, axis, mode)


def _scatter_impl(x: np.ndarray, updates: np.ndarray, indices: np.ndarray, *, axis: int, mode: str,
                  combine: str) -> np.ndarray:
    lead = (builtins.slice(None),) * axis
    kept, rows = _scattered_rows(indices, x.shape[axis], mode)
    u = np.take(updates.reshape(x.shape[:axis] + (-1,) + x.shape[axis + 1:]), kept, axis=axis)
    out = np.array(x)
    ufunc = COMBINES[combine].ufunc
    if ufunc is not None:
        with np.errstate(invalid="ignore"):  # NaN wins min and max, quietly
            ufunc.at(out, lead + (rows,), u)  # in index order
        return out
    last = rows.size - 1 - np.unique(rows[::-1], return_index=True)[1]  # each row's last update
    out[lead + (rows[last],)] = np.take(u, last, axis=axis)
    return out


def _scatter_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    node = w.nodes[i]
    x, u, idx = node.inputs
    axis, mode, dtype = node.attrs["axis"], node.attrs["mode"], node.spec.dtype
    size = node.spec.shape[axis]
    old = w.value(x, coords)
    rule = COMBINES[node.attrs["combine"]]
    if rule.wgsl is not None:
        combine = rule.wgsl(w, dtype)
        return combine(old, _fold_updates(w, u, idx, axis, size, mode, coords, combine,
                                          w.literal(rule.start(dtype), dtype), dtype))
    # "set": the last update of this row (the largest index position that lands on it), if any
    ishape, index = w.spec(idx).shape, w.spec(idx).dtype

    def landed(r: str) -> str:
        return f"select(-1i, {r}, {_row_wgsl(w, w.value(idx, w.unravel(r, ishape)), index, size, mode)} == " \
               f"{coords[axis]})"

    last = w.reduce(w.extent(ishape), landed, lambda a, b: f"max({a}, {b})", "-1i", DType.i32)
    v = w.value(u, list(coords[:axis]) + w.unravel(f"max({last}, 0i)", ishape) + list(coords[axis + 1:]))
    return f"select({old}, {v}, {last} >= 0i)"


def _scatter_vjp(g: Tensor, ans: Tensor, x: Tensor, u: Tensor, idx: Tensor, *, axis: int, mode: str,
                 combine: str) -> tuple[Tensor, Tensor, None]:
    def scatter(operand: Tensor, updates: Tensor, how: str) -> Tensor:
        return bind(scatter_p, operand, updates, idx, axis=axis, mode=mode, combine=how)

    def spread(t: Tensor) -> Tensor:  # a value per index, broadcast along the updates' other axes
        return fnp.reshape(t, (1,) * axis + idx.shape + (1,) * (u.ndim - axis - idx.ndim))

    if combine == "add":
        return g, _gathered(g, idx, axis, mode), None
    if combine == "set":
        ids = fnp.asarray(0, DType.i32)  # each index's position, in row-major order
        for k, n in enumerate(idx.shape):
            ids = ids * n + bind(iota_p, shape=idx.shape, axis=k, dtype=DType.i32)
        winner = bind(scatter_p, _full(-1, DType.i32, (x.shape[axis],)), ids, idx, axis=0, mode=mode, combine="set")
        won = fnp.equal(bind(take_p, winner, idx, axis=0, mode="clip", fill_value=None), ids)
        return scatter(g, _full(0, g.dtype, u.shape), "set"), fnp.where(spread(won), _gathered(g, idx, axis, mode),
                                                                        0.0), None
    if combine == "mul":  # an update's cotangent is g * x times the product of the row's other updates
        zero = fnp.equal(u, 0.0)
        count = _gathered(scatter(_full(0, x.dtype, x.shape), fnp.astype(zero, x.dtype), "add"), idx, axis, mode)
        product = scatter(_full(1, x.dtype, x.shape), u, "mul")  # of all the row's updates
        rest = scatter(_full(1, x.dtype, x.shape), fnp.where(zero, 1.0, u), "mul")  # of its nonzero ones
        # Dividing the product by the update keeps the derivatives in the other updates (zero ones too).
        others = fnp.where(zero, fnp.where(fnp.equal(count, 1.0), _gathered(rest, idx, axis, mode), 0.0),
                           _gathered(product, idx, axis, mode) / fnp.where(zero, 1.0, u))
        return g * product, _gathered(g * x, idx, axis, mode) * others, None
    kept = fnp.astype(fnp.equal(x, ans), x.dtype)  # "min" / "max"
    won = fnp.astype(fnp.equal(u, _gathered(ans, idx, axis, mode)), x.dtype)
    share = g / fnp.maximum(kept + scatter(_full(0, x.dtype, x.shape), won, "add"), 1.0)
    return share * kept, _gathered(share, idx, axis, mode) * won, None


def _full(value: int, dtype: DType, shape: tuple[int | Dim, ...]) -> Tensor:
    return fnp.broadcast_to(fnp.asarray(value, dtype), shape)


def _scatter_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, axis: int, mode: str,
                 combine: str) -> Any:
    """"add" and "set" are linear in operand and updates together: the tangents scatter as the values
    do. For "mul", "min" and "max" each operand entry reaches its own result and each update its
    row's only, so the vjp rule given a cotangent of ones holds every Jacobian entry (min/max ties
    share the derivative as they share the cotangent there): the tangent is the operand's tangent
    times its entries plus the updates' tangents times theirs, added into their rows."""
    if combine in ("add", "set"):
        return linear_jvp(scatter_p)(primals, tangents, ans, axis=axis, mode=mode, combine=combine)
    (x, u, idx), (tx, tu, _) = primals, tangents
    dx, du, _ = _scatter_vjp(_full(1, x.dtype, x.shape), ans, x, u, idx, axis=axis, mode=mode, combine=combine)
    out = None if tx is None else tx * dx
    if tu is not None:
        term = bind(scatter_add_p, tu * du, idx, axis=axis, size=x.shape[axis], mode=mode)
        out = term if out is None else out + term
    return out


def _scatter_batch(args: Sequence[Any], batched: Sequence[bool], *, axis: int, mode: str, combine: str) -> Any:
    """One scatter: along the axis past the batch for shared indices; for per-example ones, into the
    operand with the batch folded into the scattered axis (`_fold`), then unfolded. Folding keeps
    each row's updates in their order, so "set" keeps its last one."""
    size = batch_size(args, batched)
    x, u, idx = with_batch(args[0], batched[0], size), with_batch(args[1], batched[1], size), args[2]
    if not batched[2]:
        return bind(scatter_p, x, u, idx, axis=axis + 1, mode=mode, combine=combine)
    n = x.shape[axis + 1]
    if isinstance(n, Dim):  # a symbolic axis is not folded: "add" is the operand plus a scatter_add
        if combine != "add":
            raise ShapeError(f"vmap of scatter ({combine}): per-example indices into the symbolic axis {n} of "
                             f"{x.shape[1:]}: the batch is folded into the scattered axis, which a symbolic one "
                             "cannot be; only 'add' is batched there")
        return fnp.add(x, _scatter_add_batch([u, idx], [True, True], axis=axis, size=n, mode=mode))
    out = bind(scatter_p, _fold(x, axis), fnp.moveaxis(u, 0, axis), _folded(idx, n, mode == "clip"), axis=axis,
               mode=mode, combine=combine)
    return _unfold(out, axis, size)


scatter_p = declare("scatter", _scatter_rule, _scatter_impl)
vjp_rules.register(scatter_p, _scatter_vjp)
jvp_rules.register(scatter_p, _scatter_jvp)
batch_rules.register(scatter_p, _scatter_batch)
register_lowering(scatter_p, Contraction(lambda node, x, u, idx: idx.size), _scatter_wgsl)


# dynamic_slice: the window of `slice_sizes` at start indices that are operands (one i32
# scalar per axis, traced or not), each clamped into [0, n - size] as XLA clamps it, so the
# window always fits (the public function first counts negative starts from the end, as
# jax.lax.dynamic_slice does). Its VJP writes the cotangent into zeros at the same window.
# A window the size of the operand is the operand.
def _check_starts(name: str, x: Spec, starts: Sequence[Spec]) -> None:
    if len(starts) != x.ndim:
        raise ShapeError(f"{name}: {len(starts)} start indices for the {x.ndim} axes of {x.shape}")
    if any(s != Spec((), DType.i32) for s in starts):
        raise DTypeError(f"{name}: start indices must be i32 scalars, got {', '.join(map(str, starts))}")


def _clamped(starts: Sequence[np.ndarray], shape: tuple[int, ...], sizes: tuple[int, ...]) -> tuple[slice, ...]:
    """The window of `sizes` in `shape` at `starts`, each clamped so that the window fits."""
    at = [builtins.min(builtins.max(int(s), 0), n - k) for s, n, k in zip(starts, shape, sizes)]
    return tuple(builtins.slice(a, a + k) for a, k in zip(at, sizes))


def _clamped_wgsl(w: Any, starts: Sequence[int], shape: tuple[int, ...], sizes: tuple[int, ...]) -> list[str]:
    """WGSL of each clamped start. Every start is read, even along an axis the window spans
    (where it is 0): a kernel must use every buffer it binds."""
    def clamped(j: int, most: int) -> str:
        return w.once(("clamped start", j, most), lambda: f"clamp({w.value(j, [])}, 0i, {most}i)")

    return [clamped(j, n - k) for j, n, k in zip(starts, shape, sizes)]


def _dynamic_slice_rule(x: Spec, *starts: Spec, slice_sizes: tuple[int, ...]) -> Spec:
    _check_starts("dynamic_slice", x, starts)
    if len(slice_sizes) != x.ndim or not all(0 <= k <= n for k, n in zip(slice_sizes, x.shape)):
        raise ShapeError(f"dynamic_slice: slice_sizes {slice_sizes} do not fit in {x.shape}")
    return Spec(tuple(slice_sizes), x.dtype)


def _dynamic_slice_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x, *starts = w.nodes[i].inputs
    at = _clamped_wgsl(w, starts, w.spec(x).shape, w.spec(i).shape)
    return w.value(x, [w.let(f"{a} + {c}") for c, a in zip(coords, at)])


def _dynamic_slice_vjp(g: Tensor, ans: Tensor, x: Tensor, *starts: Tensor,
                       slice_sizes: tuple[int, ...]) -> tuple[Tensor | None, ...]:
    zeros = fnp.broadcast_to(fnp.asarray(0, g.dtype), x.shape)
    return (bind(dynamic_update_slice_p, zeros, g, *starts),) + (None,) * len(starts)


def _batched_start(start: Any, batched: bool, n: int, k: int, ndim: int) -> Any:
    """A start clamped as the primitive clamps it for a window of `k` in `n`; a per-example one
    shaped (batch, 1, ...) to broadcast against coordinates of `ndim` axes past the batch."""
    start = fnp.clip(start, 0, n - k)
    return fnp.reshape(start, (start.shape[0], *(1,) * ndim)) if batched else start


def _dynamic_slice_batch(args: Sequence[Any], batched: Sequence[bool], *, slice_sizes: tuple[int, ...]) -> Any:
    """Shared starts: the window spans the batch axis. Per-example starts: one take from the flattened
    operand, of each window element's position in its example."""
    (x, *starts), (x_batched, *starts_batched) = args, batched
    if not any(starts_batched):
        zero = fnp.asarray(0, DType.i32)
        return bind(dynamic_slice_p, x, zero, *starts, slice_sizes=(x.shape[0], *slice_sizes))
    shape = tuple(x.shape[1:] if x_batched else x.shape)
    window = (batch_size(args, batched), *slice_sizes)
    terms, stride = [], 1  # the position's terms: the example's offset where x is batched, one per axis
    for k in reversed(range(len(shape))):
        start = _batched_start(starts[k], starts_batched[k], shape[k], slice_sizes[k], len(shape))
        terms.append(fnp.multiply(fnp.add(_iota(window, k + 1), start), stride))
        stride *= shape[k]
    if x_batched:
        terms.append(fnp.multiply(_iota(window, 0), stride))
    return bind(take_p, fnp.reshape(x, (-1,)), functools.reduce(fnp.add, terms), axis=0, mode="clip",
                fill_value=None)


dynamic_slice_p = declare("dynamic_slice", _dynamic_slice_rule,
                          lambda x, *starts, slice_sizes: x[_clamped(starts, x.shape, slice_sizes)])
vjp_rules.register(dynamic_slice_p, _dynamic_slice_vjp)
jvp_rules.register(dynamic_slice_p, linear_jvp(dynamic_slice_p))
batch_rules.register(dynamic_slice_p, _dynamic_slice_batch)
simplify_rules.register(dynamic_slice_p,
                        lambda node, nodes: node.inputs[0] if nodes[node.inputs[0]].spec == node.spec else None)
register_lowering(dynamic_slice_p, View(last_axis=same_last_axis), _dynamic_slice_wgsl)


# dynamic_update_slice: the operand with the window at the (clamped, as in dynamic_slice)
# starts replaced by `update`. Each result reads the operand at its own coordinates, so an
# update of a donated buffer is written in place (a KV cache). The cotangent goes to the
# update through the window and to the operand everywhere else. An update the size of the
# operand is the result.
def _dynamic_update_slice_rule(x: Spec, update: Spec, *starts: Spec) -> Spec:
    _check_starts("dynamic_update_slice", x, starts)
    if update.dtype != x.dtype:
        raise DTypeError(f"dynamic_update_slice: update {update} and operand {x} dtypes differ")
    if update.ndim != x.ndim or any(k > n for k, n in zip(update.shape, x.shape)):
        raise ShapeError(f"dynamic_update_slice: update {update.shape} does not fit in {x.shape}")
    return x


def _dynamic_update_slice_impl(x: np.ndarray, update: np.ndarray, *starts: np.ndarray) -> np.ndarray:
    out = np.array(x)
    out[_clamped(starts, x.shape, update.shape)] = update
    return out


def _dynamic_update_slice_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The update's value inside the window (read at clamped coordinates), the operand's outside."""
    x, u, *starts = w.nodes[i].inputs
    shape = w.spec(u).shape
    inner, inside = [], []
    for c, a, k in zip(coords, _clamped_wgsl(w, starts, w.spec(x).shape, shape), shape):
        t = w.let(f"{c} - {a}")
        inside.append(f"{t} >= 0i && {t} < {k}i")
        inner.append(w.clamped(t, k))
    return f"select({w.value(x, coords)}, {w.value(u, inner)}, {' && '.join(inside) or 'true'})"


def _dynamic_update_slice_vjp(g: Tensor, ans: Tensor, x: Tensor, update: Tensor,
                              *starts: Tensor) -> tuple[Tensor | None, ...]:
    zeros = fnp.broadcast_to(fnp.asarray(0, g.dtype), update.shape)
    return (bind(dynamic_update_slice_p, g, zeros, *starts),
            bind(dynamic_slice_p, g, *starts, slice_sizes=update.shape)) + (None,) * len(starts)


def _dynamic_update_slice_batch(args: Sequence[Any], batched: Sequence[bool]) -> Any:
    """Shared starts: the window spans the batch axis. Per-example starts: each result entry is the
    operand's, or inside its example's window the update's, read by one take from the flattened
    update (a gather: every entry reads one value, where a scatter would search every update)."""
    size = batch_size(args, batched)
    x, u, *starts = with_batch(args[0], batched[0], size), with_batch(args[1], batched[1], size), *args[2:]
    if not any(batched[2:]):
        return bind(dynamic_update_slice_p, x, u, fnp.asarray(0, DType.i32), *starts)
    shape, sizes = tuple(x.shape[1:]), tuple(u.shape[1:])
    if 0 in sizes:  # an empty window replaces nothing
        return x
    inside, terms, stride = [], [], 1  # per axis: in the window, and the term of the position in the update
    for k in reversed(range(len(shape))):
        start = _batched_start(starts[k], batched[2 + k], shape[k], sizes[k], len(shape))
        at = fnp.subtract(_iota(x.shape, k + 1), start)  # the coordinate in the window
        inside.append(fnp.logical_and(fnp.greater_equal(at, 0), fnp.less(at, sizes[k])))
        terms.append(fnp.multiply(fnp.clip(at, 0, sizes[k] - 1), stride))
        stride *= sizes[k]
    terms.append(fnp.multiply(_iota(x.shape, 0), stride))
    value = bind(take_p, fnp.reshape(u, (-1,)), functools.reduce(fnp.add, terms), axis=0, mode="clip",
                 fill_value=None)
    return fnp.where(functools.reduce(fnp.logical_and, inside), value, x)


dynamic_update_slice_p = declare("dynamic_update_slice", _dynamic_update_slice_rule, _dynamic_update_slice_impl)
vjp_rules.register(dynamic_update_slice_p, _dynamic_update_slice_vjp)
jvp_rules.register(dynamic_update_slice_p, linear_jvp(dynamic_update_slice_p))
batch_rules.register(dynamic_update_slice_p, _dynamic_update_slice_batch)
simplify_rules.register(dynamic_update_slice_p,
                        lambda node, nodes: node.inputs[1] if nodes[node.inputs[1]].spec == node.spec else None)
register_lowering(dynamic_update_slice_p, WINDOW, _dynamic_update_slice_wgsl)
