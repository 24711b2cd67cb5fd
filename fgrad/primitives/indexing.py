"""Gather and scatter: take (whose VJP is a scatter-add) and scatter_add.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import ShapeError
from fgrad.ir import Const, DType, Spec, declare
from fgrad.lower.kinds import VIEW, Contraction, register_lowering
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import vjp_rules

from fgrad.primitives.abstract_eval import NUMERIC, check_axes, check_dtypes


# take: gather along `axis`; out = x.shape[:axis] + indices.shape + x.shape[axis+1:].
# Indices are used as they are (the public functions wrap negative ones), and
# one outside [0, n) follows `mode`, as in jax.lax.gather: "clip" clamps it into
# range, "fill" reads `fill_value` (a 0-d Const). The VJP is the transposed
# scatter-add: with "clip" the cotangent goes to the row that was read; with
# "fill" a filled entry read no row and its cotangent is dropped.
def _take_rule(x: Spec, indices: Spec, *, axis: int, mode: str, fill_value: Const | None) -> Spec:
    check_dtypes("take", (DType.i32,), indices)
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


def _take_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The entry at the clamped index (loads stay in range); with "fill", the fill value unless in range."""
    node = w.nodes[i]
    x, idx = node.inputs
    axis, k, n = node.attrs["axis"], w.spec(idx).ndim, w.spec(x).shape[node.attrs["axis"]]
    at = w.let(w.value(idx, coords[axis: axis + k]))
    v = w.value(x, list(coords[:axis]) + [w.let(f"clamp({at}, 0i, {n - 1}i)")] + list(coords[axis + k:]))
    if node.attrs["mode"] == "clip":
        return v
    fill = w.literal(node.attrs["fill_value"].array.item(), node.spec.dtype)
    return f"select({fill}, {v}, {at} >= 0i && {at} < {n}i)"


# A small table's gradient (an embedding's) is one_hot(indices)^T @ g: a matmul,
# far faster on a GPU than a scatter; a large one scatter-adds.
ONE_HOT_GRADIENT_LIMIT = 1 << 24  # elements of the one-hot matrix


def _take_vjp(g: Tensor, ans: Tensor, x: Tensor, idx: Tensor, *, axis: int, mode: str,
              fill_value: Const | None) -> tuple[Tensor, None]:
    n, count = x.shape[axis], idx.size
    if n * count > ONE_HOT_GRADIENT_LIMIT:
        return bind(scatter_add_p, g, idx, axis=axis, size=n, mode="clip" if mode == "clip" else "drop"), None
    if mode == "clip":
        idx = fnp.clip(idx, 0, n - 1)
    else:  # one_hot rows of filled entries are zero; their cotangent (NaN, say) must not reach 0 * g either
        inside = fnp.logical_and(idx >= 0, idx < n)
        g = fnp.where(fnp.reshape(inside, (1,) * axis + idx.shape + (1,) * (g.ndim - axis - idx.ndim)), g, 0.0)
    moved = fnp.transpose(g, tuple(range(axis, axis + idx.ndim)) + tuple(range(axis)) +
                      tuple(range(axis + idx.ndim, g.ndim))) if axis else g
    rest = moved.shape[idx.ndim:]
    picked = fnp.one_hot(fnp.reshape(idx, (count,)), n)  # (count, n)
    grad = fnp.reshape(fnp.transpose(picked) @ fnp.reshape(moved, (count, math.prod(rest))), (n, *rest))
    return (fnp.transpose(grad, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, grad.ndim))) if axis else grad), None


take_p = declare("take", _take_rule, _take_impl)
vjp_rules.register(take_p, _take_vjp)
register_lowering(take_p, VIEW, _take_wgsl)


# scatter_add: the transpose of take: out has `size` entries along `axis`, and
# update slice j is added at row indices[j]. An index outside [0, size) follows
# `mode`, as in jax.lax.scatter_add: "clip" clamps it into range, "drop" drops
# its update. The VJP is the matching take (a dropped update's cotangent is 0).
def _scatter_add_rule(updates: Spec, indices: Spec, *, axis: int, size: int, mode: str) -> Spec:
    check_dtypes("scatter_add", (DType.i32,), indices)
    check_dtypes("scatter_add", NUMERIC, updates)
    if not (0 <= axis <= updates.ndim - indices.ndim and updates.shape[axis: axis + indices.ndim] == indices.shape
            and size >= 1):
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
    ishape = w.spec(idx).shape
    zero = w.literal(0, dtype)

    def at(r: str) -> str:
        where = w.unravel(r, ishape)
        row, v = w.value(idx, where), w.value(u, list(coords[:axis]) + where + list(coords[axis + 1:]))
        return f"select({zero}, {v}, {f'clamp({row}, 0i, {size - 1}i)' if mode == 'clip' else row} == {coords[axis]})"

    return w.reduce(math.prod(ishape), at, lambda acc, v: f"{acc} + {v}", zero, dtype)


def _scatter_add_vjp(g: Tensor, ans: Tensor, u: Tensor, idx: Tensor, *, axis: int, size: int,
                     mode: str) -> tuple[Tensor, None]:
    if mode == "clip":
        return bind(take_p, g, idx, axis=axis, mode="clip", fill_value=None), None
    return bind(take_p, g, idx, axis=axis, mode="fill", fill_value=Const.of(0, g.dtype)), None


scatter_add_p = declare("scatter_add", _scatter_add_rule, _scatter_add_impl)
vjp_rules.register(scatter_add_p, _scatter_add_vjp)
register_lowering(scatter_add_p, Contraction(lambda node, u, idx: idx.size), _scatter_add_wgsl)
