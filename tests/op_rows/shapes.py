"""Op-table rows: shapes (split, triangles, tile, repeat, axes, diagonals, trace, meshgrid, stacks, pad's
modes, lax.pad).

All of them are composites of views (slice, reshape, broadcast_to, transpose, pad, rev,
concatenate), of where with iota masks, or of take; each row names the primitive it builds on."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, rounded  # noqa: F401


def weighted(pieces):
    """The pieces of a split joined back, each scaled by its position (so every piece's gradient differs)."""
    return fg.concatenate([fg.multiply(p, k + 1.0) for k, p in enumerate(pieces)], axis=-1)


def weighted_ref(pieces):
    return np.concatenate([p * (k + 1.0) for k, p in enumerate(pieces)], axis=-1)


def lax_pad_ref(x, value, config):
    """jax.lax.pad in NumPy: interior padding, then low/high (negative ones crop)."""
    for axis, (lo, hi, mid) in enumerate(config):
        n = x.shape[axis]
        grown = np.full(x.shape[:axis] + (n + (n - 1) * mid,) + x.shape[axis + 1:], value, x.dtype)
        grown[(slice(None),) * axis + (slice(None, None, mid + 1),)] = x
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(grown, widths, constant_values=value)
        x = x[(slice(None),) * axis + (slice(max(-lo, 0), x.shape[axis] - max(-hi, 0)),)]
    return x


OP_ROWS: tuple[Case, ...] = ()  # every new primitive's rows (value, WGSL, VJP)
API_ROWS: tuple[Case, ...] = (
    # split and its kin: slices
    Case("slice", "split-sections", lambda x: weighted(fg.split(x, 3, axis=1)), (F(2, 6),),
         lambda x: weighted_ref(np.split(x, 3, axis=1))),
    Case("slice", "split-indices", lambda x: weighted(fg.split(x, [1, 3])), (F(5),),
         lambda x: weighted_ref(np.split(x, [1, 3]))),
    Case("slice", "split-numpy-indices-negative-axis", lambda x: fg.split(x, np.array([2]), axis=-2)[1], (I(3, 4, 2),),
         lambda x: np.split(x, [2], axis=-2)[1]),
    Case("slice", "array_split-uneven", lambda x: weighted(fg.array_split(x, 3)), (F(7),),
         lambda x: weighted_ref(np.array_split(x, 3))),
    Case("slice", "hsplit", lambda x: fg.hsplit(x, 2)[1], (F(3, 4),), lambda x: np.hsplit(x, 2)[1]),
    Case("slice", "hsplit-1d", lambda x: fg.hsplit(x, [1])[0], (F(3),), lambda x: np.hsplit(x, [1])[0]),
    Case("slice", "vsplit", lambda x: fg.vsplit(x, [2])[0], (B(3, 2),), lambda x: np.vsplit(x, [2])[0]),
    Case("slice", "dsplit", lambda x: fg.dsplit(x, 2)[0], (F(2, 1, 4),), lambda x: np.dsplit(x, 2)[0]),
    # tril, triu: where with an iota mask
    Case("where", "tril", fg.tril, (F(3, 4),), np.tril),
    Case("where", "tril-k", lambda x: fg.tril(x, 1), (F(2, 3, 3),), lambda x: np.tril(x, 1)),
    Case("where", "tril-k-past-the-matrix", lambda x: fg.tril(x, -5), (F(3, 2),), lambda x: np.tril(x, -5)),
    Case("where", "triu-negative-k", lambda x: fg.triu(x, -1), (F(4, 3),), lambda x: np.triu(x, -1)),
    Case("where", "triu-i32", lambda x: fg.triu(x, 1), (I(3, 3),), lambda x: np.triu(x, 1)),
    Case("where", "triu-bool", fg.triu, (B(2, 3),), np.triu),
    Case("where", "tril-symbolic", fg.tril, (F(5, 5),), np.tril, specs=(S(T, T),)),
    # tile, repeat: broadcast views, or a gather for counts per entry
    Case("broadcast_to", "tile-int", lambda x: fg.tile(x, 2), (F(3),), lambda x: np.tile(x, 2)),
    Case("broadcast_to", "tile-more-reps", lambda x: fg.tile(x, (2, 1, 3)), (F(2, 3),),
         lambda x: np.tile(x, (2, 1, 3))),
    Case("broadcast_to", "tile-fewer-reps", lambda x: fg.tile(x, (2,)), (I(2, 1, 2),), lambda x: np.tile(x, (2,))),
    Case("broadcast_to", "tile-symbolic-axis-kept", lambda x: fg.tile(x, (1, 2)), (F(5, 2),),
         lambda x: np.tile(x, (1, 2)), specs=(S(T, 2),)),
    Case("broadcast_to", "repeat-flattened", lambda x: fg.repeat(x, 2), (F(2, 3),), lambda x: np.repeat(x, 2)),
    Case("broadcast_to", "repeat-axis", lambda x: fg.repeat(x, 3, axis=-1), (F(2, 2),),
         lambda x: np.repeat(x, 3, axis=-1)),
    Case("take", "repeat-counts", lambda x: fg.repeat(x, np.array([1, 0, 2]), axis=0), (F(3, 2),),
         lambda x: np.repeat(x, [1, 0, 2], axis=0)),
    Case("take", "repeat-total-length-longer", lambda x: fg.repeat(x, [1, 2, 0], axis=0, total_repeat_length=5),
         (F(3, 2),), lambda x: x[[0, 1, 1, 2, 2]]),  # JAX fills with the last entry of the axis
    Case("take", "repeat-total-length-shorter", lambda x: fg.repeat(x, 2, axis=1, total_repeat_length=3),
         (I(2, 3),), lambda x: np.repeat(x, 2, axis=1)[:, :3]),
    Case("scatter_add", "repeat-traced-counts", lambda x, r: fg.repeat(x, r, axis=0, total_repeat_length=6),
         (F(4, 2), np.array([2, 0, 1, 2], np.int32)), lambda x, r: x[[0, 0, 2, 3, 3, 3]]),
    Case("scatter_add", "repeat-traced-counts-cut", lambda x, r: fg.repeat(x, r, total_repeat_length=3),
         (F(3), np.array([2, 2, 2], np.int32)), lambda x, r: np.repeat(x, 2)[:3]),
    # axes: transposes and reshapes
    Case("transpose", "swapaxes", lambda x: fg.swapaxes(x, 0, -1), (F(2, 3, 4),), lambda x: np.swapaxes(x, 0, -1)),
    Case("transpose", "moveaxis", lambda x: fg.moveaxis(x, 0, 2), (F(2, 3, 4),), lambda x: np.moveaxis(x, 0, 2)),
    Case("transpose", "moveaxis-several", lambda x: fg.moveaxis(x, (0, 1), (-1, 0)), (I(2, 3, 4),),
         lambda x: np.moveaxis(x, (0, 1), (-1, 0))),
    Case("reshape", "ravel", fg.ravel, (F(2, 3),), np.ravel),
    Case("transpose", "ravel-fortran", lambda x: fg.ravel(x, order="F"), (F(2, 3),), lambda x: np.ravel(x, order="F")),
    Case("reshape", "ravel-scalar", fg.ravel, (F(),), np.ravel),
    Case("reshape", "atleast_1d", fg.atleast_1d, (F(),), np.atleast_1d),
    Case("reshape", "atleast_2d", fg.atleast_2d, (F(3),), np.atleast_2d),
    Case("reshape", "atleast_3d-vector", fg.atleast_3d, (F(3),), np.atleast_3d),
    Case("reshape", "atleast_3d-matrix", fg.atleast_3d, (B(2, 3),), np.atleast_3d),
    Case("reshape", "atleast_2d-several", lambda x, y: fg.atleast_2d(x, y)[0], (F(), F(2)),
         lambda x, y: np.atleast_2d(x, y)[0]),
    # diagonals: a strided slice of the flattened planes; diag of a vector: a pad
    Case("slice", "diagonal", fg.diagonal, (F(3, 4),), np.diagonal),
    Case("slice", "diagonal-offset-axes", lambda x: fg.diagonal(x, 1, 0, 2), (F(2, 3, 4),),
         lambda x: np.diagonal(x, 1, 0, 2)),
    Case("slice", "diagonal-negative-offset-swapped", lambda x: fg.diagonal(x, -1, 2, 1), (I(2, 3, 4),),
         lambda x: np.diagonal(x, -1, 2, 1)),
    Case("slice", "diag-of-matrix", lambda x: fg.diag(x, -1), (F(3, 4),), lambda x: np.diag(x, -1)),
    Case("pad", "diag-of-vector", fg.diag, (F(3),), np.diag),
    Case("pad", "diag-above", lambda x: fg.diag(x, 2), (F(3),), lambda x: np.diag(x, 2)),
    Case("pad", "diag-below-bool", lambda x: fg.diag(x, -1), (B(2),), lambda x: np.diag(x, -1)),
    Case("sum", "trace", fg.numpy.trace, (F(3, 3),), np.trace),
    Case("sum", "trace-offset-axes", lambda x: fg.numpy.trace(x, 1, 1, 2), (F(2, 3, 4),),
         lambda x: np.trace(x, 1, 1, 2)),
    Case("sum", "trace-dtype", lambda x: fg.numpy.trace(x, dtype="i32"), (F(3, 2),),
         lambda x: np.trace(x.astype(np.int32))),
    Case("sum", "trace-bool-counts", fg.numpy.trace, (B(3, 3),), lambda x: np.trace(x).astype(np.int64)),
    # meshgrid: broadcasts
    Case("broadcast_to", "meshgrid-xy", lambda x, y, z: weighted(fg.meshgrid(x, y, z)), (F(2), F(3), F(4)),
         lambda x, y, z: weighted_ref(np.meshgrid(x, y, z))),
    Case("broadcast_to", "meshgrid-ij", lambda x, y: weighted(fg.meshgrid(x, y, indexing="ij")), (F(2), F(3)),
         lambda x, y: weighted_ref(np.meshgrid(x, y, indexing="ij"))),
    Case("reshape", "meshgrid-sparse", lambda x, y: fg.meshgrid(x, y, sparse=True)[0], (F(2), F(3)),
         lambda x, y: np.meshgrid(x, y, sparse=True)[0]),
    # stacks: concatenates of atleast_nd
    Case("concatenate", "hstack", lambda x, y: fg.hstack([x, y]), (F(2, 3), F(2, 1)), lambda x, y: np.hstack([x, y])),
    Case("concatenate", "hstack-1d-dtype", lambda x, y: fg.hstack((x, y), dtype="i32"), (F(2), I(3)),
         lambda x, y: np.hstack([x.astype(np.int32), y])),
    Case("concatenate", "vstack", lambda x, y: fg.vstack([x, y]), (F(3), F(2, 3)), lambda x, y: np.vstack([x, y])),
    Case("concatenate", "vstack-of-an-array", fg.vstack, (F(2, 3),), np.vstack),
    Case("concatenate", "dstack", lambda x, y: fg.dstack([x, y]), (F(3), F(3)), lambda x, y: np.dstack([x, y])),
    Case("concatenate", "column_stack", lambda x, y: fg.column_stack([x, y]), (F(3), F(3, 2)),
         lambda x, y: np.column_stack([x, y])),
    # pad's modes
    Case("rev", "pad-reflect", lambda x: fg.pad(x, (2, 1), "reflect"), (F(4),), lambda x: np.pad(x, (2, 1), "reflect")),
    Case("rev", "pad-reflect-wide", lambda x: fg.pad(x, ((6, 7), (1, 0)), "reflect"), (F(4, 2),),
         lambda x: np.pad(x, ((6, 7), (1, 0)), "reflect")),
    Case("rev", "pad-reflect-odd", lambda x: fg.pad(x, 3, "reflect", reflect_type="odd"), (F(4),),
         lambda x: np.pad(x, 3, "reflect", reflect_type="odd")),
    Case("rev", "pad-symmetric", lambda x: fg.pad(x, ((1, 2), (3, 3)), "symmetric"), (F(2, 3),),
         lambda x: np.pad(x, ((1, 2), (3, 3)), "symmetric")),
    Case("rev", "pad-symmetric-odd-wide", lambda x: fg.pad(x, 5, "symmetric", reflect_type="odd"), (F(3),),
         lambda x: np.pad(x, 5, "symmetric", reflect_type="odd")),
    Case("rev", "pad-reflect-i32", lambda x: fg.pad(x, 2, "reflect"), (I(3, 3),), lambda x: np.pad(x, 2, "reflect")),
    Case("concatenate", "pad-wrap", lambda x: fg.pad(x, ((4, 2), (3, 9)), "wrap"), (F(3, 4),),
         lambda x: np.pad(x, ((4, 2), (3, 9)), "wrap")),
    Case("broadcast_to", "pad-edge", lambda x: fg.pad(x, ((1, 2), (3, 0)), "edge"), (F(2, 3),),
         lambda x: np.pad(x, ((1, 2), (3, 0)), "edge")),
    Case("concatenate", "pad-edge-bool", lambda x: fg.pad(x, 1, mode="edge"), (B(2, 2),),
         lambda x: np.pad(x, 1, mode="edge")),
    Case("iota", "pad-linear_ramp", lambda x: fg.pad(x, 2, "linear_ramp", end_values=(5, -1)), (F(3, 4),),
         lambda x: np.pad(x, 2, "linear_ramp", end_values=(5, -1))),
    Case("max", "pad-maximum", lambda x: fg.pad(x, 1, "maximum"), (F(3, 4),), lambda x: np.pad(x, 1, "maximum")),
    Case("min", "pad-minimum-stat_length",
         lambda x: fg.pad(x, ((1, 2), (2, 1)), "minimum", stat_length=((1, 2), (3, 1))), (I(3, 4),),
         lambda x: np.pad(x, ((1, 2), (2, 1)), "minimum", stat_length=((1, 2), (3, 1)))),
    Case("sum", "pad-mean", lambda x: fg.pad(x, (1, 2), "mean"), (F(3, 4),), lambda x: np.pad(x, (1, 2), "mean")),
    Case("pad", "pad-empty", lambda x: fg.pad(x, 2, "empty"), (F(3),), lambda x: np.pad(x, 2)),
    Case("pad", "pad-constant-per-side", lambda x: fg.pad(x, ((1, 2), (3, 0)), constant_values=((1, 2), (3, 4))),
         (F(2, 3),), lambda x: np.pad(x, ((1, 2), (3, 0)), constant_values=((1, 2), (3, 4)))),
    Case("pad", "pad-constant-pair", lambda x: fg.pad(x, 2, "constant", constant_values=(1, 2)), (I(3),),
         lambda x: np.pad(x, 2, "constant", constant_values=(1, 2))),
    # lax.pad: interior padding, and negative low/high crop
    Case("pad", "lax-pad-interior", lambda x: fg.lax.pad(x, 0.0, [(1, 2, 1), (0, 0, 0)]), (F(3, 2),),
         lambda x: lax_pad_ref(x, 0.0, [(1, 2, 1), (0, 0, 0)])),
    Case("slice", "lax-pad-negative", lambda x: fg.lax.pad(x, -1.0, [(-1, 2, 1), (2, -3, 0)]), (F(4, 4),),
         lambda x: lax_pad_ref(x, -1.0, [(-1, 2, 1), (2, -3, 0)])),
    Case("slice", "lax-pad-crop-only", lambda x: fg.lax.pad(x, 0, [(-3, -2, 1)]), (I(4),),
         lambda x: lax_pad_ref(x, 0, [(-3, -2, 1)])),
)
F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("rev", "pad-reflect-f16", lambda x: fg.pad(x, 2, "symmetric"), (H(3),), lambda x: np.pad(x, 2, "symmetric")),
    Case("where", "tril-f16", fg.tril, (H(3, 3),), np.tril),
    Case("slice", "diagonal-f16", fg.diagonal, (H(2, 3),), np.diagonal),
)
U32_ROWS: tuple[Case, ...] = (  # u32 rows of integer primitives
    Case("rev", "pad-symmetric-u32", lambda x: fg.pad(x, (1, 3), "symmetric"), (U(3),),
         lambda x: np.pad(x, (1, 3), "symmetric")),
    Case("take", "repeat-counts-u32", lambda x: fg.repeat(x, [2, 1, 0]), (U(3),), lambda x: np.repeat(x, [2, 1, 0])),
)
