"""Gather and scatter: take (whose VJP is a scatter-add) and scatter_add; windows at traced
starts: dynamic_slice and dynamic_update_slice.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import Const, Dim, DType, Spec, declare
from fgrad.lower.kinds import ELEMENTWISE, VIEW, Contraction, View, register_lowering
from fgrad.lower.library import cast
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import vjp_rules
from fgrad.transforms.passes import simplify_rules

from fgrad.primitives.abstract_eval import INTEGER, NUMERIC, check_axes, check_dtypes, same_last_axis

__all__ = [  # re-exported by fgrad.primitives
    "dynamic_slice_p", "dynamic_update_slice_p", "scatter_add_p", "take_p",
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
    return Spec(x.shape[:axis] + indices.shape + x.shape[axis + 1:], x.dtype)


def _take_impl(x: np.ndarray, indices: np.ndarray, *, axis: int, mode: str, fill_value: Const | None) -> np.ndarray:
    n = x.shape[axis]
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
    clamped = cast(w, f"clamp({at}, {w.literal(0, index)}, {_size_as(w, n, index, 1)})", index, DType.i32)
    v = w.value(x, list(coords[:axis]) + [w.let(clamped)] + list(coords[axis + k:]))
    if node.attrs["mode"] == "clip":
        return v
    fill = w.literal(node.attrs["fill_value"].array.item(), node.spec.dtype)
    return f"select({fill}, {v}, {at} >= {w.literal(0, index)} && {at} < {_size_as(w, n, index)})"


# A small table's gradient (an embedding's) is one_hot(indices)^T @ g: a matmul,
# far faster on a GPU than a scatter; a large one scatter-adds.
ONE_HOT_GRADIENT_LIMIT = 1 << 24  # elements of the one-hot matrix


def _take_vjp(g: Tensor, ans: Tensor, x: Tensor, idx: Tensor, *, axis: int, mode: str,
              fill_value: Const | None) -> tuple[Tensor, None]:
    n, count = x.shape[axis], idx.spec.max_size
    if isinstance(n, Dim) or x.spec.max_shape[axis] * count > ONE_HOT_GRADIENT_LIMIT:  # one_hot takes a fixed n
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


take_p = declare("take", _take_rule, _take_impl)
vjp_rules.register(take_p, _take_vjp)
register_lowering(take_p, VIEW, _take_wgsl)


# scatter_add: the transpose of take: out has `size` entries along `axis`, and
# update slice j is added at row indices[j]. An index outside [0, size) follows
# `mode`, as in jax.lax.scatter_add: "clip" clamps it into range, "drop" drops
# its update. The VJP is the matching take (a dropped update's cotangent is 0).
def _scatter_add_rule(updates: Spec, indices: Spec, *, axis: int, size: int | Dim, mode: str) -> Spec:
    check_dtypes("scatter_add", INTEGER, indices)
    check_dtypes("scatter_add", NUMERIC, updates)
    if not (0 <= axis <= updates.ndim - indices.ndim and updates.shape[axis: axis + indices.ndim] == indices.shape
            and (isinstance(size, Dim) or size >= 1)):
        raise ShapeError(f"scatter_add: updates {updates.shape} do not hold indices {indices.shape} at axis {axis}")
    if mode not in ("clip", "drop"):
        raise ShapeError(f"scatter_add: mode {mode!r} is not 'clip' or 'drop'")
    return Spec(updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:], updates.dtype)


def _scatter_add_impl(updates: np.ndarray, indices: np.ndarray, *, axis: int, size: int, mode: str) -> np.ndarray:
    out = np.zeros(updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:], updates.dtype)
    lead = (builtins.slice(None),) * axis
    if mode == "clip":
        np.add.at(out, lead + (np.clip(indices, 0, size - 1),), updates)
    else:
        inside = (indices >= 0) & (indices < size)
        np.add.at(out, lead + (indices[inside],), updates[lead + (inside,)])
    return out


def _scatter_add_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The sum of the update slices whose index is this row: a fold over all indices
    (an index out of range matches no row, so "drop" needs no test of its own)."""
    u, idx = w.nodes[i].inputs
    attrs, dtype = w.nodes[i].attrs, w.spec(i).dtype
    axis, size, mode = attrs["axis"], attrs["size"], attrs["mode"]
    ishape, index = w.spec(idx).shape, w.spec(idx).dtype
    zero = w.literal(0, dtype)

    def at(r: str) -> str:
        where = w.unravel(r, ishape)
        row, v = w.value(idx, where), w.value(u, list(coords[:axis]) + where + list(coords[axis + 1:]))
        if mode == "clip":
            row = f"clamp({row}, {w.literal(0, index)}, {_size_as(w, size, index, 1)})"
        return f"select({zero}, {v}, {cast(w, row, index, DType.i32)} == {coords[axis]})"

    return w.reduce(w.extent(ishape), at, lambda acc, v: f"{acc} + {v}", zero, dtype)


def _scatter_add_vjp(g: Tensor, ans: Tensor, u: Tensor, idx: Tensor, *, axis: int, size: int,
                     mode: str) -> tuple[Tensor, None]:
    if mode == "clip":
        return bind(take_p, g, idx, axis=axis, mode="clip", fill_value=None), None
    return bind(take_p, g, idx, axis=axis, mode="fill", fill_value=Const.of(0, g.dtype)), None


scatter_add_p = declare("scatter_add", _scatter_add_rule, _scatter_add_impl)
vjp_rules.register(scatter_add_p, _scatter_add_vjp)
register_lowering(scatter_add_p, Contraction(lambda node, u, idx: idx.size), _scatter_add_wgsl)


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
    if len(slice_sizes) != x.ndim or not all(1 <= k <= n for k, n in zip(slice_sizes, x.shape)):
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


dynamic_slice_p = declare("dynamic_slice", _dynamic_slice_rule,
                          lambda x, *starts, slice_sizes: x[_clamped(starts, x.shape, slice_sizes)])
vjp_rules.register(dynamic_slice_p, _dynamic_slice_vjp)
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
        inner.append(w.let(f"clamp({t}, 0i, {k - 1}i)"))
    return f"select({w.value(x, coords)}, {w.value(u, inner)}, {' && '.join(inside) or 'true'})"


def _dynamic_update_slice_vjp(g: Tensor, ans: Tensor, x: Tensor, update: Tensor,
                              *starts: Tensor) -> tuple[Tensor | None, ...]:
    zeros = fnp.broadcast_to(fnp.asarray(0, g.dtype), update.shape)
    return (bind(dynamic_update_slice_p, g, zeros, *starts),
            bind(dynamic_slice_p, g, *starts, slice_sizes=update.shape)) + (None,) * len(starts)


dynamic_update_slice_p = declare("dynamic_update_slice", _dynamic_update_slice_rule, _dynamic_update_slice_impl)
vjp_rules.register(dynamic_update_slice_p, _dynamic_update_slice_vjp)
simplify_rules.register(dynamic_update_slice_p,
                        lambda node, nodes: node.inputs[1] if nodes[node.inputs[1]].spec == node.spec else None)
register_lowering(dynamic_update_slice_p, ELEMENTWISE, _dynamic_update_slice_wgsl)
