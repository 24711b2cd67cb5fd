"""Op-table rows: indexing (rev, scatter; several index arrays, negative steps, masks, JAX's
`x.at[...]` updates, take_along_axis, put_along_axis, flip, rot90, roll, one_hot).

Rows whose function writes `x.at[...]` or `x[...]` use Tensor methods, which NumPy arrays lack:
they run traced only (eager=False). Index inputs of I(n, lo=-4, hi=3) index an axis of 4,
negative ones counting from the end, repeated ones likely."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, rounded  # noqa: F401

UFUNCS = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}


def updated(x, key, v, combine):
    """NumPy's `x[key] op= v`: repeated indices combine in index order (ufunc.at); with "set"
    the last of them wins."""
    y = x.copy()
    if combine == "set":
        y[key] = v
    else:
        UFUNCS[combine].at(y, key, v)
    return y


def dropped(x, i, v, combine):
    """x.at[i].op(v) along axis 0 in JAX's default mode: indices in [-n, 0) count from the end,
    the updates of others out of range are dropped."""
    n = x.shape[0]
    keep = (i >= -n) & (i < n)
    return updated(x, i[keep], v[keep], combine)


def clipped(x, i, v, combine):
    """x.at[i].op(v, mode="clip") along axis 0: negative indices count from the end, then all clamp."""
    n = x.shape[0]
    return updated(x, np.clip(np.where(i < 0, i + n, i), 0, n - 1), v, combine)


def filled(x, i, fill):
    """x.at[i].get(mode="fill") along axis 0."""
    n = x.shape[0]
    j = np.where(i < 0, i + n, i)
    inside = ((j >= 0) & (j < n)).reshape(i.shape + (1,) * (x.ndim - 1))
    return np.where(inside, x[np.clip(j, 0, n - 1)], fill).astype(x.dtype)


def along(arr, indices, axis, fill=np.nan):
    """jnp.take_along_axis: negative indices count from the end, others out of range read `fill`."""
    n = arr.shape[axis]
    j = np.where(indices < 0, indices + n, indices)
    picked = np.take_along_axis(arr, np.clip(j, 0, n - 1), axis)
    return np.where((j >= 0) & (j < n), picked, fill).astype(arr.dtype)


ROWS = np.array([-1, 0, 5, -5, 3, -4, 4], np.int32)  # in range, negative in [-4, 0), out of range both ways
MASK = np.array([True, False, True, True])
MASK_2D = np.array([[True, False, False], [False, True, True]])


OP_ROWS: tuple[Case, ...] = (
    # rev: flip, negative slice steps, rot90
    Case("rev", "flip-axis", lambda x: fg.flip(x, 1), (F(3, 4),), lambda x: np.flip(x, 1)),
    Case("rev", "flip-all", fg.flip, (I(2, 3, 2),), np.flip),
    Case("rev", "flip-tuple-negative", lambda x: fg.flip(x, (0, -1)), (F(2, 3, 4),), lambda x: np.flip(x, (0, -1))),
    Case("rev", "flip-bool", fg.flip, (B(3, 2),), np.flip),
    Case("rev", "getitem-reversed", lambda x: x[::-1], (F(5),), lambda x: x[::-1], eager=False),
    Case("rev", "getitem-negative-steps", lambda x: x[3:0:-2, ::-3], (F(5, 7),), lambda x: x[3:0:-2, ::-3],
         eager=False),
    Case("rev", "getitem-negative-step-int", lambda x: x[-2::-1, 1], (F(4, 3),), lambda x: x[-2::-1, 1], eager=False),
    Case("rev", "getitem-negative-step-and-array", lambda x: x[::-1, [2, 0]], (F(3, 4),), lambda x: x[::-1, [2, 0]],
         eager=False),
    Case("rev", "flip-twice", lambda x: fg.flip(fg.flip(x, 0) * 2.0, 0), (F(3, 2),), lambda x: x * 2),
    Case("rev", "symbolic-reversed", lambda x: x[::-1] * 2.0, (F(5, 3),), lambda x: x[::-1] * 2, eager=False,
         specs=(S(T, 3),)),
    Case("rev", "rot90", fg.rot90, (F(2, 3),), np.rot90),
    Case("rev", "rot90-k3-axes", lambda x: fg.rot90(x, 3, axes=(2, 1)), (I(2, 3, 4),),
         lambda x: np.rot90(x, 3, axes=(2, 1))),
    Case("rev", "rot90-k2", lambda x: fg.rot90(x, -2), (F(2, 3),), lambda x: np.rot90(x, -2)),
    # scatter: x.at[...] with index arrays (traced or constant, repeated, negative, out of range)
    Case("scatter", "at-add", lambda x, i, v: x.at[i].add(v), (F(4, 3), I(5, lo=-4, hi=3), F(5, 3)),
         lambda x, i, v: updated(x, i, v, "add"), eager=False),
    Case("scatter", "at-set", lambda x, i, v: x.at[i].set(v), (F(4, 3), I(6, lo=-4, hi=3), F(6, 3)),
         lambda x, i, v: updated(x, i, v, "set"), eager=False),
    Case("scatter", "at-set-repeated-constant", lambda x, v: x.at[np.array([1, 3, 1, -1, 1])].set(v),
         (F(4, 2), F(5, 2)), lambda x, v: updated(x, np.array([1, 3, 1, -1, 1]), v, "set"), eager=False),
    Case("scatter", "at-set-scalar-value", lambda x, i: x.at[i].set(7.0), (F(4, 3), I(2, lo=-4, hi=3)),
         lambda x, i: updated(x, i, 7.0, "set"), eager=False),
    Case("scatter", "at-mul", lambda x, i, v: x.at[i].multiply(v), (F(4, 3), I(5, lo=-4, hi=3), F(5, 3)),
         lambda x, i, v: updated(x, i, v, "mul"), eager=False),
    Case("scatter", "at-mul-a-zero-per-row", lambda x, v: x.at[np.array([0, 2, 0, 0])].mul(v),
         (F(4, 2), np.float32([[0, 1.5], [0, 0], [2, -1], [0.5, 0.75]])),
         lambda x, v: updated(x, np.array([0, 2, 0, 0]), v, "mul"), eager=False),
    Case("scatter", "at-mul-zeros", lambda x, i, v: x.at[i].mul(v),
         (Fi(4, 3), I(5, lo=-4, hi=3), Fi(5, 3, lo=-1, hi=1)),
         lambda x, i, v: updated(x, i, v, "mul"), eager=False),
    Case("scatter", "at-min", lambda x, i, v: x.at[i].min(v), (F(4, 3), I(5, lo=-4, hi=3), F(5, 3)),
         lambda x, i, v: updated(x, i, v, "min"), eager=False),
    Case("scatter", "at-max", lambda x, i, v: x.at[i].max(v), (F(4, 3), I(5, lo=-4, hi=3), F(5, 3)),
         lambda x, i, v: updated(x, i, v, "max"), eager=False),
    Case("scatter", "at-max-ties", lambda x, i, v: x.at[i].max(v), (Fi(4, 3), I(5, lo=-4, hi=3), Fi(5, 3)),
         lambda x, i, v: updated(x, i, v, "max"), eager=False),
    Case("scatter", "at-subtract", lambda x, i, v: x.at[i].subtract(v), (F(4, 3), I(5, lo=-4, hi=3), F(5, 3)),
         lambda x, i, v: updated(x, i, -v, "add"), eager=False),
    Case("scatter", "at-divide", lambda x, i, v: x.at[i].divide(v), (F(4, 3), I(5, lo=-4, hi=3), NZ(5, 3)),
         lambda x, i, v: x / updated(np.ones_like(x), i, v, "mul"), eager=False),
    Case("scatter", "at-divide-i32", lambda x, i: x.at[i].divide(2), (I(4, 2), I(3, lo=-4, hi=3)),
         lambda x, i: x / updated(np.ones_like(x), i, 2, "mul"), eager=False),
    Case("scatter", "at-power", lambda x, i, v: x.at[i].power(v), (P(4, 3), I(5, lo=-4, hi=3), F(5, 3)),
         lambda x, i, v: x ** updated(np.ones_like(x), i, v, "mul"), eager=False),
    Case("scatter", "at-add-2d-indices", lambda x, i, v: x.at[i].add(v), (F(4, 2), I(2, 3, lo=-4, hi=3), F(2, 3, 2)),
         lambda x, i, v: updated(x, i, v, "add"), eager=False),
    Case("scatter", "at-add-broadcast-values", lambda x, i, v: x.at[i].add(v), (F(4, 3), I(5, lo=-4, hi=3), F(3)),
         lambda x, i, v: updated(x, i, v, "add"), eager=False),
    Case("scatter", "at-set-axis-1", lambda x, i, v: x.at[:, i].set(v), (F(3, 4), I(2, lo=-4, hi=3), F(3, 2)),
         lambda x, i, v: updated(x, (slice(None), i), v, "set"), eager=False),
    Case("scatter", "at-set-two-arrays", lambda x, i, j, v: x.at[i, j].set(v),
         (F(4, 5), I(6, lo=-4, hi=3), I(6, lo=-5, hi=4), F(6)), lambda x, i, j, v: updated(x, (i, j), v, "set"),
         eager=False),
    Case("scatter", "at-add-broadcast-arrays", lambda x, i, j, v: x.at[i[:, None], j].add(v),
         (F(4, 5, 2), I(3, lo=-4, hi=3), I(2, lo=0, hi=4), F(3, 2, 2)),
         lambda x, i, j, v: updated(x, (i[:, None], j), v, "add"), eager=False),
    Case("scatter", "at-add-separated-arrays", lambda x, i, j, v: x.at[i, :, j].add(v),
         (F(4, 3, 5), I(2, lo=-4, hi=3), I(2, lo=0, hi=4), F(2, 3)),
         lambda x, i, j, v: updated(x, (i, slice(None), j), v, "add"), eager=False),
    Case("scatter", "at-max-int-slice-array", lambda x, i, v: x.at[1, 1:, i].max(v),
         (F(3, 4, 4), I(3, lo=-4, hi=3), F(3, 3)), lambda x, i, v: updated(x, (1, slice(1, None), i), v, "max"),
         eager=False),
    Case("scatter", "at-set-int-separated", lambda x, i, v: x.at[0, :, i].set(v),
         (F(2, 3, 4), I(2, lo=-4, hi=3), F(2, 3)),
         lambda x, i, v: updated(x, (0, slice(None), i), v, "set"), eager=False),
    Case("scatter", "at-add-mask", lambda x, v: x.at[MASK].add(v), (F(4, 2), F(3, 2)),
         lambda x, v: updated(x, MASK, v, "add"), eager=False),
    Case("scatter", "at-add-reversed-array", lambda x, i, v: x.at[::-1, i].add(v),
         (F(3, 4), I(3, lo=-4, hi=3), F(3, 3)),
         lambda x, i, v: updated(x, (slice(None, None, -1), i), v, "add"), eager=False),
    Case("scatter", "at-set-out-of-range-dropped", lambda x, i, v: x.at[i].set(v), (F(4, 2), ROWS, F(7, 2)),
         lambda x, i, v: dropped(x, i, v, "set"), eager=False),
    Case("scatter", "at-add-out-of-range-dropped", lambda x, i, v: x.at[i].add(v, mode="drop"),
         (F(4, 2), ROWS, F(7, 2)),
         lambda x, i, v: dropped(x, i, v, "add"), eager=False),
    Case("scatter", "at-add-out-of-range-clip", lambda x, i, v: x.at[i].add(v, mode="clip"), (F(4, 2), ROWS, F(7, 2)),
         lambda x, i, v: clipped(x, i, v, "add"), eager=False),
    Case("scatter", "at-set-out-of-range-clip", lambda x, i, v: x.at[i].set(v, mode="clip"), (F(4, 2), ROWS, F(7, 2)),
         lambda x, i, v: clipped(x, i, v, "set"), eager=False),
    Case("scatter", "at-min-two-arrays-out-of-range", lambda x, i, v: x.at[i, i[::-1]].min(v), (F(4, 4), ROWS, F(7)),
         lambda x, i, v: updated(x, (i[[1, 5]] % 4, i[::-1][[1, 5]] % 4), v[[1, 5]], "min"), eager=False),
    Case("scatter", "at-set-no-wrap", lambda x, i, v: x.at[i].set(v, wrap_negative_indices=False),
         (F(4, 2), ROWS, F(7, 2)), lambda x, i, v: updated(x, i[[1, 4]], v[[1, 4]], "set"), eager=False),
    Case("scatter", "at-set-constant-out-of-range", lambda x: x.at[np.array([7, 1])].set(-1.0), (F(3, 2),),
         lambda x: updated(x, 1, -1.0, "set"), eager=False),
    Case("scatter", "at-add-i32", lambda x, i, v: x.at[i].add(v), (I(4, 3), I(5, lo=-4, hi=3), I(5, 3)),
         lambda x, i, v: updated(x, i, v, "add"), eager=False),
    Case("scatter", "at-max-i32-float-values", lambda x, i: x.at[i].max(1.9), (I(4, 2), I(3, lo=-4, hi=3)),
         lambda x, i: updated(x, i, 1, "max"), eager=False),
    Case("scatter", "at-set-bool", lambda x, i, v: x.at[i].set(v), (B(4, 2), I(5, lo=-4, hi=3), B(5, 2)),
         lambda x, i, v: updated(x, i, v, "set"), eager=False),
    Case("scatter", "at-min-bool", lambda x, i, v: x.at[i].min(v), (B(4, 2), I(5, lo=-4, hi=3), B(5, 2)),
         lambda x, i, v: updated(x, i, v, "min"), eager=False),
    Case("scatter", "at-max-bool", lambda x, i, v: x.at[i].max(v), (B(4, 2), I(5, lo=-4, hi=3), B(5, 2)),
         lambda x, i, v: updated(x, i, v, "max"), eager=False),
    Case("scatter", "at-add-symbolic-axis", lambda x, i, v: x.at[i].add(v), (F(5, 3), I(4, lo=-5, hi=4), F(4, 3)),
         lambda x, i, v: updated(x, i, v, "add"), eager=False, specs=(S(T, 3), S(4, dtype="i32"), S(4, 3))),
    Case("scatter", "at-set-symbolic-updates", lambda x, i, v: x.at[i].set(v), (F(4, 3), I(5, lo=-4, hi=3), F(5, 3)),
         lambda x, i, v: updated(x, i, v, "set"), eager=False, specs=(S(4, 3), S(T, dtype="i32"), S(T, 3))),
    Case("scatter", "put_along_axis", lambda x, i, v: fg.put_along_axis(x, i, v, axis=1, inplace=False),
         (F(3, 4), I(3, 2, lo=-4, hi=3), F(3, 2)), lambda x, i, v: updated(
             x, (np.arange(3)[:, None], i), v, "set")),
    Case("scatter", "put_along_axis-broadcast", lambda x, i: fg.put_along_axis(x, i, -1.0, axis=0, inplace=False),
         (F(3, 4), I(1, 4, lo=-3, hi=2)), lambda x, i: updated(x, (i, np.arange(4)), -1.0, "set")),
    Case("scatter", "put_along_axis-flat", lambda x, i, v: fg.put_along_axis(x, i, v, axis=None, inplace=False),
         (F(2, 3), np.int32([5, 0, 9, -1, 5]), F(5)),
         lambda x, i, v: dropped(x.reshape(-1), i, v, "set").reshape(2, 3)),
)

API_ROWS: tuple[Case, ...] = (
    # getitem: several index arrays broadcast together (one take over the merged axes), tuples,
    # concrete masks, traced scalars
    Case("take", "getitem-two-arrays", lambda x, i, j: x[i, j], (F(4, 5), I(6, lo=-4, hi=3), I(6, lo=-5, hi=4)),
         lambda x, i, j: x[i, j], eager=False),
    Case("take", "getitem-rows-and-labels", lambda x, y: x[np.arange(6), y], (F(6, 5), I(6, lo=0, hi=4)),
         lambda x, y: x[np.arange(6), y], eager=False),
    Case("take", "getitem-broadcast-arrays", lambda x, i, j: x[i[:, None], :, j],
         (F(4, 2, 5), I(3, lo=-4, hi=3), I(2, lo=0, hi=4)), lambda x, i, j: x[i[:, None], :, j], eager=False),
    Case("take", "getitem-adjacent-arrays", lambda x, i, j: x[:, i, j],
         (F(2, 4, 5), I(2, 3, lo=-4, hi=3), I(3, lo=0, hi=4)),
         lambda x, i, j: x[:, i, j], eager=False),
    Case("take", "getitem-arrays-and-int", lambda x, i: x[i, 1, i], (F(4, 3, 4), I(3, lo=-4, hi=3)),
         lambda x, i: x[i, 1, i], eager=False),
    Case("take", "getitem-separated-by-none", lambda x, i, j: x[i, None, j],
         (F(4, 5), I(3, lo=-4, hi=3), I(3, lo=0, hi=4)),
         lambda x, i, j: x[i, None, j], eager=False),
    Case("take", "getitem-ellipsis-arrays", lambda x, i: x[..., i, i], (F(2, 4, 4), I(2, lo=-4, hi=3)),
         lambda x, i: x[..., i, i], eager=False),
    Case("take", "getitem-constant-arrays", lambda x: x[[0, -1, 2], [[1], [0]]], (F(3, 2),),
         lambda x: x[[0, -1, 2], [[1], [0]]], eager=False),
    Case("take", "getitem-tuple-index", lambda x: x[:, (0, 2)], (F(3, 4),), lambda x: x[:, (0, 2)], eager=False),
    Case("take", "getitem-tuple-of-tuples", lambda x: x[(0, 2), (1, 1)], (I(3, 4),), lambda x: x[(0, 2), (1, 1)],
         eager=False),
    Case("take", "getitem-mask", lambda x: x[MASK], (F(4, 3),), lambda x: x[MASK], eager=False),
    Case("take", "getitem-mask-2d", lambda x: x[:, MASK_2D], (F(2, 2, 3),), lambda x: x[:, MASK_2D], eager=False),
    Case("take", "getitem-mask-list", lambda x: x[[True, False, True]], (I(3, 2),), lambda x: x[[True, False, True]],
         eager=False),
    Case("take", "getitem-traced-scalars", lambda x, i, j: x[i, :, j], (F(4, 2, 3), I(lo=-4, hi=3), I(lo=0, hi=2)),
         lambda x, i, j: x[i, :, j], eager=False),
    Case("take", "getitem-u32-arrays", lambda x, i, j: x[i, j], (F(3, 4), U(5, hi=2), U(5, hi=3)),
         lambda x, i, j: x[i, j], eager=False),
    Case("take", "getitem-traced-out-of-range-pair", lambda x, i: x[i, i[::-1]], (F(4, 4), ROWS),
         lambda x, i: x[np.clip(np.where(i < 0, i + 4, i), 0, 3),
                        np.clip(np.where(i[::-1] < 0, i[::-1] + 4, i[::-1]), 0, 3)],
         eager=False),
    Case("take", "getitem-bool-values", lambda x, i, j: x[i, j], (B(3, 4), I(4, lo=-3, hi=2), I(4, lo=0, hi=3)),
         lambda x, i, j: x[i, j], eager=False),
    # x.at[...].get: modes
    Case("take", "at-get", lambda x, i: x.at[i].get(), (F(4, 2), ROWS),
         lambda x, i: x[np.clip(np.where(i < 0, i + 4, i), 0, 3)], eager=False),
    Case("take", "at-get-fill", lambda x, i: x.at[i].get(mode="fill"), (F(4, 2), ROWS),
         lambda x, i: filled(x, i, np.nan), eager=False),
    Case("take", "at-get-fill-value", lambda x, i: x.at[i, 1].get(mode="fill", fill_value=-1), (I(4, 2), ROWS),
         lambda x, i: filled(x, i, -1)[:, 1], eager=False),
    Case("take", "at-get-fill-two-arrays", lambda x, i: x.at[i, i[::-1]].get(mode="drop", fill_value=0.5),
         (F(4, 4), ROWS), lambda x, i: np.where(np.isin(np.arange(7), [1, 5]), x[i % 4, i[::-1] % 4], 0.5),
         eager=False),
    Case("take", "at-get-constant-out-of-range", lambda x: x.at[7].get(), (F(3, 2),), lambda x: x[2], eager=False),
    # take_along_axis: an index per entry of the other axes
    Case("take", "take_along_axis", lambda x, i: fg.take_along_axis(x, i, axis=1), (F(3, 4), I(3, 2, lo=-4, hi=3)),
         lambda x, i: np.take_along_axis(x, i, 1)),
    Case("take", "take_along_axis-default-axis", fg.take_along_axis, (F(2, 3, 4), I(2, 3, 1, lo=-4, hi=3)),
         lambda x, i: np.take_along_axis(x, i, -1)),
    Case("take", "take_along_axis-broadcast", lambda x, i: fg.take_along_axis(x, i, axis=0),
         (F(3, 1), I(2, 4, lo=0, hi=2)),
         lambda x, i: np.take_along_axis(np.broadcast_to(x, (3, 4)), i, 0)),
    Case("take", "take_along_axis-out-of-range", lambda x, i: fg.take_along_axis(x, i[:, None], axis=1),
         (F(7, 4), ROWS), lambda x, i: along(x, i[:, None], 1), eager=False),
    Case("take", "take_along_axis-clip", lambda x, i: fg.take_along_axis(x, i[:, None], axis=1, mode="clip"),
         (I(7, 4), ROWS), lambda x, i: np.take_along_axis(x, np.clip(np.where(i < 0, i + 4, i), 0, 3)[:, None], 1),
         eager=False),
    Case("take", "take_along_axis-flat", lambda x, i: fg.take_along_axis(x, i, axis=None), (F(2, 3), I(4, lo=-6, hi=5)),
         lambda x, i: np.take_along_axis(x.reshape(-1), i, 0)),
    Case("take", "take_along_axis-argmax", lambda x: fg.take_along_axis(x, fg.argmax(x, -1, keepdims=True), -1),
         (F(3, 5),), lambda x: np.max(x, -1, keepdims=True)),
    # x.at[...] without index arrays: an elementwise select of the slice padded back into place
    Case("where", "at-set-slice", lambda x, v: x.at[1:3].set(v), (F(4, 3), F(2, 3)),
         lambda x, v: updated(x, slice(1, 3), v, "set"), eager=False),
    Case("where", "at-add-int", lambda x: x.at[1, ::2].add(10.0), (F(3, 5),),
         lambda x: updated(x, (1, slice(None, None, 2)), 10.0, "add"), eager=False),
    Case("where", "at-mul-negative-steps", lambda x, v: x.at[::-2, 3:0:-2].mul(v), (F(5, 4), F(3, 2)),
         lambda x, v: updated(x, (slice(None, None, -2), slice(3, 0, -2)), v, "mul"), eager=False),
    Case("where", "at-min-none-ellipsis", lambda x, v: x.at[None, ..., 0].min(v), (F(2, 3), F(1, 2)),
         lambda x, v: np.minimum(x, np.pad(v.T, ((0, 0), (0, 2)), constant_values=np.inf)), eager=False),
    Case("scatter", "at-max-int-out-of-range", lambda x: x.at[5].max(1.0), (F(3, 2),), lambda x: x, eager=False),
    Case("rev", "at-set-reversed", lambda x, v: x.at[::-1].set(v), (F(4, 2), F(4, 2)), lambda x, v: v[::-1],
         eager=False),
    Case("pad", "at-subtract-int", lambda x: x.at[-1].subtract(1), (I(3, 2),), lambda x: updated(x, -1, -1, "add"),
         eager=False),
    # roll: two slices joined
    Case("concatenate", "roll", lambda x: fg.roll(x, 2, axis=1), (F(3, 5),), lambda x: np.roll(x, 2, axis=1)),
    Case("concatenate", "roll-negative-past-the-end", lambda x: fg.roll(x, -7, axis=0), (I(3, 2),),
         lambda x: np.roll(x, -7, axis=0)),
    Case("concatenate", "roll-flattened", lambda x: fg.roll(x, 4), (F(2, 3),), lambda x: np.roll(x, 4)),
    Case("concatenate", "roll-axes", lambda x: fg.roll(x, (1, -1), axis=(0, 1)), (F(3, 4),),
         lambda x: np.roll(x, (1, -1), axis=(0, 1))),
    Case("concatenate", "roll-one-shift-two-axes", lambda x: fg.roll(x, 1, axis=(1, 1)), (B(2, 3),),
         lambda x: np.roll(x, 2, axis=1)),
    Case("dynamic_slice", "roll-traced", lambda x, s: fg.roll(x, s, axis=1), (F(3, 5), I(lo=-12, hi=12)),
         lambda x, s: np.roll(x, s, axis=1)),
    Case("dynamic_slice", "roll-traced-flattened", fg.roll, (I(2, 3), np.int32(-7)), np.roll),
    Case("dynamic_slice", "roll-traced-shifts", lambda x, s: fg.roll(x, s, axis=(0, 1)), (F(3, 4), I(2, lo=-9, hi=9)),
         lambda x, s: np.roll(x, tuple(s), axis=(0, 1))),
    # one_hot: jax.nn's keywords
    Case("eq", "one_hot-axis", lambda y: fg.one_hot(y, 4, axis=0), (I(2, 3, lo=-1, hi=4),),
         lambda y: np.moveaxis((y[..., None] == np.arange(4)) * 1.0, -1, 0)),
    Case("eq", "one_hot-middle-axis-bool", lambda y: fg.one_hot(y, 3, dtype="bool", axis=-2), (I(2, 4, lo=0, hi=3),),
         lambda y: np.moveaxis(y[..., None] == np.arange(3), -1, -2)),
    Case("eq", "one_hot-float-labels", lambda y: fg.nn.one_hot(y, 3), (np.float32([1.0, 2.5, -1.0, 0.0]),),
         lambda y: (y[:, None] == np.arange(3)) * 1.0),
)

F16_ROWS: tuple[Case, ...] = (
    Case("rev", "f16", lambda x: fg.flip(x, 0), (H(3, 2),), lambda x: np.flip(x, 0)),
    Case("scatter", "f16-add", lambda x, i, v: x.at[i].add(v), (H(4, 2), I(5, lo=-4, hi=3), H(5, 2)),
         rounded(lambda x, i, v: updated(x, i, v, "add")), eager=False, **F16),
    Case("scatter", "f16-set", lambda x, i, v: x.at[i, 1].set(v), (H(4, 2), I(5, lo=-4, hi=3), H(5)),
         lambda x, i, v: updated(x, (i, 1), v, "set"), eager=False),
    Case("scatter", "f16-max", lambda x, i, v: x.at[i].max(v), (H(4, 2), I(5, lo=-4, hi=3), H(5, 2)),
         lambda x, i, v: updated(x, i, v, "max"), eager=False),
)

U32_ROWS: tuple[Case, ...] = (
    Case("rev", "u32", lambda x: x[::-1], (U(4),), lambda x: x[::-1], eager=False),
    Case("scatter", "u32-add", lambda x, i, v: x.at[i].add(v), (U(4, 2), I(5, lo=-4, hi=3), U(5, 2)),
         lambda x, i, v: updated(x, i, v, "add"), eager=False),
    Case("scatter", "u32-min", lambda x, i, v: x.at[i].min(v), (U(4, 2), I(5, lo=-4, hi=3), U(5, 2)),
         lambda x, i, v: updated(x, i, v, "min"), eager=False),
    Case("scatter", "u32-indices", lambda x, i, v: x.at[i].set(v),
         (F(4, 2), np.uint32([3, 0, 7, 2**32 - 1, 3]), F(5, 2)),
         lambda x, i, v: updated(x, np.array([0, 3]), v[[1, 4]], "set"), eager=False),
    Case("scatter", "u32-indices-clip", lambda x, i, v: x.at[i, i].add(v, mode="clip"),
         (I(4, 4), np.uint32([3, 0, 7, 2**32 - 1]), I(4)),
         lambda x, i, v: updated(x, (np.minimum(i, 3), np.minimum(i, 3)), v, "add"), eager=False),
)
