"""Op-table rows: the rest of the jax.numpy surface (fg.numpy.linalg's norms and products, the
elementwise, shape, reduction and index functions beyond the first hour, and searching:
searchsorted, nonzero, unique, bincount, histogram, partition, interp).

All of them are composites of existing primitives; each row names the primitive it builds on,
and NumPy is the reference."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, rounded  # noqa: F401

L = fg.numpy.linalg
nan, inf = np.nan, np.inf
# Sorted knots with a repeated one (a zero-width segment), for interp.
KNOTS = np.array([-1.5, -0.5, 0.0, 0.0, 1.0, 2.5], np.float32)
VALUES = np.array([1.0, -2.0, 0.5, 3.0, 2.0, -1.0], np.float32)
# NaNs, ties and signed zeros for the NaN-aware functions.
WITH_NAN = np.array([[1.0, nan, 3.0, -1.0], [nan, nan, nan, nan], [2.0, -5.0, 0.5, 4.0]], np.float32)
OTHER_NAN = np.array([[nan, 2.0, 3.0, -2.0], [1.0, nan, nan, 0.0], [2.0, -6.0, nan, 4.0]], np.float32)
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51], np.float32)
STEPS = np.array([-1.0, 0.0, -0.0, 2.0, nan], np.float32)
SORTED = np.array([-1.0, 0.0, 0.0, 1.5, 2.0, nan], np.float32)
REPEATS = np.array([3.0, 1.0, nan, 1.0, 2.0, nan, 3.0, -0.0, 0.0], np.float32)
# Zeros marked integer-valued (Fi), added to the constants above where their ties and NaNs would
# make finite differences jump: the value is checked, the (zero) gradient is not.
ZERO8, ZERO9 = Fi(8, lo=0, hi=0), Fi(9, lo=0, hi=0)
COUNTS = np.array([0, 3, 1, 1, 7, 0, 2, -1], np.int32)


def unique_ref(x: np.ndarray, size: int) -> np.ndarray:
    """jnp.unique(x, size=size): the sorted unique values (NaNs as one), padded with the smallest."""
    u = np.unique(x)
    return np.concatenate([u, np.full(max(size - u.size, 0), u[0])])[:size]


def nonzero_ref(x: np.ndarray, size: int, fill: int = 0) -> np.ndarray:
    """jnp.argwhere(x, size=size, fill_value=fill): the first `size` rows, padded with `fill`."""
    rows = np.argwhere(x)[:size]
    return np.concatenate([rows, np.full((size - len(rows), x.ndim), fill)]).astype(np.int32)


def histogram_ref(x: np.ndarray, bins: int, lo: float, hi: float) -> np.ndarray:
    return np.histogram(x, bins, range=(lo, hi))[0].astype(np.float64)


def partition_ref(x: np.ndarray, kth: int) -> np.ndarray:
    """jnp.partition's layout: the kth + 1 smallest ascending, then the rest descending."""
    s = np.sort(x, axis=-1)
    return np.concatenate([s[..., :kth + 1], s[..., kth + 1:][..., ::-1]], axis=-1)


def argpartition_values_ref(x: np.ndarray, kth: int) -> np.ndarray:
    """The values jnp.argpartition's indices pick, along the last axis: the kth + 1 smallest
    ascending, then the others in their order in x."""
    def row(v: np.ndarray) -> np.ndarray:
        bottom = np.argsort(v, kind="stable")[:kth + 1]
        return v[np.concatenate([bottom, np.setdiff1d(np.arange(v.size), bottom)])]
    return np.apply_along_axis(row, -1, x)


def insert_ref(x: np.ndarray) -> np.ndarray:
    return np.insert(x, [0, 2, 2, 4], np.array([7.0, 8.0, 9.0, 10.0]), axis=1)


OP_ROWS: tuple[Case, ...] = ()  # every new primitive's rows (value, WGSL, VJP)
API_ROWS: tuple[Case, ...] = (
    # fg.numpy.linalg: norms (sums, extremes and roots of |x|), products, views
    Case("sqrt", "linalg-norm", L.norm, (F(3, 4),), np.linalg.norm),
    Case("sqrt", "linalg-norm-keepdims", lambda x: L.norm(x, keepdims=True), (F(2, 3, 2),),
         lambda x: np.linalg.norm(x.ravel()).reshape(1, 1, 1)),
    Case("max", "linalg-norm-inf", lambda x: L.norm(x, inf, axis=-1), (F(3, 4),),
         lambda x: np.linalg.norm(x, inf, axis=-1)),
    Case("min", "linalg-norm-minus-inf", lambda x: L.norm(x, -inf, axis=0), (F(3, 4),),
         lambda x: np.linalg.norm(x, -inf, axis=0)),
    Case("sum", "linalg-norm-1", lambda x: L.norm(x, 1, axis=1), (F(3, 4),), lambda x: np.linalg.norm(x, 1, axis=1)),
    Case("ne", "linalg-norm-0", lambda x: L.norm(x, 0, axis=1), (I(3, 4),), lambda x: np.linalg.norm(x, 0, axis=1)),
    Case("pow", "linalg-norm-p", lambda x: L.norm(x, 3, axis=1), (F(2, 4),), lambda x: np.linalg.norm(x, 3, axis=1)),
    Case("pow", "linalg-norm-half", lambda x: L.norm(x, 0.5), (P(4),), lambda x: np.linalg.norm(x, 0.5)),
    Case("pow", "linalg-norm-negative-p", lambda x: L.norm(x, -2), (NZ(4),), lambda x: np.linalg.norm(x, -2)),
    Case("sqrt", "linalg-norm-fro", lambda x: L.norm(x, "fro", axis=(0, 2)), (F(2, 3, 2),),
         lambda x: np.linalg.norm(x, "fro", axis=(0, 2))),
    Case("max", "linalg-norm-matrix-1", lambda x: L.norm(x, 1), (F(3, 4),), lambda x: np.linalg.norm(x, 1)),
    Case("min", "linalg-norm-matrix-minus-1", lambda x: L.norm(x, -1, axis=(2, 1), keepdims=True), (F(2, 3, 4),),
         lambda x: np.linalg.norm(x, -1, axis=(2, 1), keepdims=True)),
    Case("max", "linalg-norm-matrix-inf", lambda x: L.norm(x, inf, axis=(1, 0)), (F(3, 4, 2),),
         lambda x: np.linalg.norm(x, inf, axis=(1, 0))),
    Case("min", "linalg-matrix_norm-minus-inf", lambda x: L.matrix_norm(x, ord=-inf), (F(2, 3, 4),),
         lambda x: np.linalg.matrix_norm(x, ord=-inf)),
    Case("sqrt", "linalg-matrix_norm", L.matrix_norm, (F(2, 3, 4),), np.linalg.matrix_norm),
    Case("sqrt", "linalg-vector_norm", lambda x: L.vector_norm(x, axis=(0, 2)), (F(2, 3, 4),),
         lambda x: np.linalg.vector_norm(x, axis=(0, 2))),
    Case("sum", "linalg-vector_norm-1-i32", lambda x: L.vector_norm(x, ord=1), (I(3, 4),),
         lambda x: np.sum(np.abs(x))),
    Case("matmul", "linalg-matrix_power", lambda x: L.matrix_power(x, 3), (F(2, 3, 3, lo=-1, hi=1),),
         lambda x: np.linalg.matrix_power(x, 3)),
    Case("eq", "linalg-matrix_power-0", lambda x: L.matrix_power(x, 0), (I(2, 2),),
         lambda x: np.linalg.matrix_power(x, 0)),
    Case("matmul", "linalg-multi_dot", lambda a, b, c: L.multi_dot([a, b, c]), (F(3), F(3, 4), F(4, 2)),
         lambda a, b, c: np.linalg.multi_dot([a, b, c])),
    Case("matmul", "linalg-matmul-preferred", lambda a, b: L.matmul(a, b, preferred_element_type=fg.float32),
         (I(2, 3), I(3, 2)), lambda a, b: (a @ b).astype(np.float64)),
    Case("mul", "linalg-outer", L.outer, (F(3), F(2)), np.outer),
    Case("matmul", "linalg-tensordot", lambda a, b: L.tensordot(a, b, axes=1), (F(2, 3), F(3, 2)),
         lambda a, b: np.tensordot(a, b, axes=1)),
    Case("matmul", "linalg-vecdot", lambda a, b: L.vecdot(a, b, axis=0), (F(3, 2), F(3, 1)),
         lambda a, b: np.sum(a * b, axis=0)),
    Case("sum", "linalg-trace", lambda x: L.trace(x, offset=1), (F(2, 3, 4),),
         lambda x: np.trace(x, 1, axis1=-2, axis2=-1)),
    Case("slice", "linalg-diagonal", lambda x: L.diagonal(x, offset=-1), (F(2, 3, 3),),
         lambda x: np.diagonal(x, -1, axis1=-2, axis2=-1)),
    Case("sub", "linalg-cross", lambda a, b: L.cross(a, b, axis=0), (F(3, 2), F(3, 1)),
         lambda a, b: np.cross(a, b, axis=0)),
    Case("transpose", "linalg-matrix_transpose", L.matrix_transpose, (F(2, 3, 4),), lambda x: np.swapaxes(x, -1, -2)),
    # products
    Case("matmul", "vecdot", fg.vecdot, (F(2, 3), F(3)), lambda a, b: np.sum(a * b, axis=-1)),
    Case("matmul", "vecdot-i32", fg.vecdot, (I(2, 3), I(2, 3)), lambda a, b: np.sum(a * b, axis=-1)),
    Case("matmul", "matvec", fg.matvec, (F(2, 3, 4), F(4)), lambda a, b: a @ b),
    Case("matmul", "vecmat", fg.vecmat, (F(3), F(2, 3, 4)), lambda a, b: a @ b),
    Case("mul", "kron", fg.kron, (F(2, 3), F(2)), np.kron),
    Case("mul", "kron-i32", fg.kron, (I(2), I(2, 2)), np.kron),
    Case("sub", "cross", fg.cross, (F(4, 3), F(3)), np.cross),
    Case("sub", "cross-2d-3d", fg.cross, (F(4, 2), F(4, 3)),
         lambda a, b: np.cross(np.concatenate([a, np.zeros((4, 1))], -1), b)),
    Case("sub", "cross-2d", fg.cross, (F(4, 2), F(2)),
         lambda a, b: a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]),
    Case("sub", "cross-axes", lambda a, b: fg.cross(a, b, axisa=0, axisb=1, axisc=0), (F(3, 2), F(2, 3)),
         lambda a, b: np.cross(a, b, axisa=0, axisb=1, axisc=0)),
    Case("matmul", "cov", fg.cov, (F(3, 5),), np.cov),
    Case("matmul", "cov-columns-ddof", lambda m, y: fg.cov(m, y, rowvar=False, ddof=0), (F(5, 2), F(5)),
         lambda m, y: np.cov(m, y, rowvar=False, ddof=0)),
    Case("matmul", "cov-weights", lambda m, a: fg.cov(m, fweights=np.int32([1, 2, 1, 3]), aweights=a),
         (F(2, 4), P(4)), lambda m, a: np.cov(m, fweights=[1, 2, 1, 3], aweights=a)),
    Case("matmul", "corrcoef", lambda x: fg.corrcoef(x)[0, 1:], (F(3, 6),), lambda x: np.corrcoef(x)[0, 1:]),
    # elementwise
    Case("where", "fmax", lambda x: fg.fmax(x, OTHER_NAN), (F(3, 4),), lambda x: np.fmax(x, OTHER_NAN)),
    Case("where", "fmax-f32", fg.fmax, (F(3, 4), F(4)), np.fmax),
    Case("where", "fmin", lambda x: fg.fmin(OTHER_NAN, x), (F(3, 4),), lambda x: np.fmin(OTHER_NAN, x)),
    Case("where", "fmin-i32", fg.fmin, (I(3), I(3)), np.fmin),
    Case("round", "rint", lambda x: fg.rint(fg.add(x, HALVES)), (ZERO8,), lambda x: np.rint(x + HALVES)),
    Case("pow", "float_power", fg.float_power, (P(3), F(3)), np.float_power),
    Case("pow", "float_power-i32", fg.float_power, (I(3, lo=1, hi=3), I(3, lo=0, hi=3)), np.float_power),
    Case("where", "heaviside", lambda x: fg.heaviside(x, 0.5), (STEPS,), lambda x: np.heaviside(x, 0.5),
         smooth=False),
    Case("exp2", "ldexp", fg.ldexp, (F(4), I(4, lo=-3, hi=3)), np.ldexp),
    Case("mul", "conj", lambda x: fg.multiply(fg.conj(x), 2.0), (F(3),), lambda x: np.conj(x) * 2),
    Case("mul", "real", lambda x: fg.multiply(fg.real(x), 2.0), (F(3),), lambda x: np.real(x) * 2),
    Case("broadcast_to", "imag", fg.imag, (F(2, 3),), np.imag),
    Case("broadcast_to", "isreal", fg.isreal, (F(2, 3),), np.isreal),
    Case("broadcast_to", "iscomplex", fg.iscomplex, (I(3),), np.iscomplex),
    Case("round", "around", lambda x: fg.around(x, 1), (F(4),), lambda x: np.around(x.astype(np.float32), 1)),
    Case("mul", "polyval", fg.polyval, (F(4), F(2, 3)), np.polyval),
    Case("mul", "polyval-i32", fg.polyval, (I(3), I(2)), np.polyval),
    # shapes
    Case("concatenate", "append", fg.append, (F(2, 3), F(2)), np.append),
    Case("concatenate", "append-axis", lambda a, b: fg.append(a, b, axis=1), (F(2, 3), F(2, 1)),
         lambda a, b: np.append(a, b, axis=1)),
    Case("take", "insert", lambda x: fg.insert(x, [0, 2, 2, -1], np.float32([7, 8, 9, 10]), axis=1), (F(2, 5),),
         insert_ref),
    Case("take", "insert-flat", lambda x, v: fg.insert(x, 2, v), (F(2, 2), F(3)), lambda x, v: np.insert(x, 2, v)),
    Case("take", "delete", lambda x: fg.delete(x, [0, 2], axis=1), (F(2, 4),), lambda x: np.delete(x, [0, 2], axis=1)),
    Case("take", "delete-slice", lambda x: fg.delete(x, slice(None, None, 2)), (I(2, 3),),
         lambda x: np.delete(x, slice(None, None, 2))),
    Case("rev", "fliplr", fg.fliplr, (F(2, 3),), np.fliplr),
    Case("rev", "flipud", fg.flipud, (F(3),), np.flipud),
    Case("concatenate", "block", lambda a, b, c, d: fg.block([[a, b], [c, d]]), (F(2, 2), F(2, 1), F(1, 2), F(1, 1)),
         lambda a, b, c, d: np.block([[a, b], [c, d]])),
    Case("slice", "resize", lambda x: fg.resize(x, (3, 3)), (F(2, 2),), lambda x: np.resize(x, (3, 3))),
    Case("broadcast_to", "broadcast_arrays", lambda a, b: fg.broadcast_arrays(a, b)[1], (F(2, 3), F(3)),
         lambda a, b: np.broadcast_arrays(a, b)[1]),
    Case("transpose", "permute_dims", lambda x: fg.permute_dims(x, (2, 0, 1)), (F(2, 3, 4),),
         lambda x: np.permute_dims(x, (2, 0, 1))),
    Case("concatenate", "concat-flat", lambda a, b: fg.concat([a, b], axis=None), (F(2, 2), F(3)),
         lambda a, b: np.concat([a, b], axis=None)),
    # reductions
    Case("argmax", "nanargmax", lambda x: fg.nanargmax(x, axis=1), (WITH_NAN,),
         lambda x: np.where(np.all(np.isnan(x), 1), -1, np.nanargmax(np.where(np.all(np.isnan(x), 1, keepdims=True),
                                                                               0, x), axis=1))),
    Case("argmin", "nanargmin", lambda x: fg.nanargmin(x, axis=0), (OTHER_NAN,), lambda x: np.nanargmin(x, axis=0)),
    Case("sub", "diff", fg.diff, (F(2, 5),), np.diff),
    Case("sub", "diff-n-axis-ends", lambda x: fg.diff(x, 2, axis=0, prepend=1.0, append=x[:1]), (F(3, 2),),
         lambda x: np.diff(x, 2, axis=0, prepend=1.0, append=x[:1])),
    Case("ne", "diff-bool", fg.diff, (B(5),), np.diff),
    Case("sub", "ediff1d", lambda x: fg.ediff1d(x, to_end=[1.0, 2.0], to_begin=-1.0), (F(2, 3),),
         lambda x: np.ediff1d(x, to_end=[1.0, 2.0], to_begin=-1.0)),
    Case("le", "allclose", lambda a, b: fg.allclose(a, fg.add(a, b), atol=0.1), (F(3), F(3, lo=-0.05, hi=0.05)),
         lambda a, b: np.allclose(a, a + b, atol=0.1)),
    Case("eq", "array_equal", lambda a: fg.array_equal(a, a, equal_nan=True), (WITH_NAN,),
         lambda a: np.array_equal(a, a, equal_nan=True)),
    Case("eq", "array_equiv", fg.array_equiv, (I(2, 3, lo=0, hi=1), I(3, lo=0, hi=1)), np.array_equiv),
    # searching
    Case("sum", "searchsorted", lambda v: fg.searchsorted(SORTED, v), (Fi(2, 4),),
         lambda v: np.searchsorted(SORTED, v)),
    Case("sum", "searchsorted-right-nan", lambda v: fg.searchsorted(SORTED, v, side="right"), (STEPS,),
         lambda v: np.searchsorted(SORTED, v, side="right")),
    Case("sum", "searchsorted-sorter", lambda a, v: fg.searchsorted(a, v, sorter=fg.argsort(a)), (F(5), F(3)),
         lambda a, v: np.searchsorted(a, v, sorter=np.argsort(a))),
    Case("sum", "digitize", lambda x: fg.digitize(x, np.float32([-1, 0, 1])), (Fi(5),),
         lambda x: np.digitize(x, [-1, 0, 1])),
    Case("sum", "digitize-falling-right", lambda x: fg.digitize(x, np.float32([1, 0, -1]), right=True), (Fi(5),),
         lambda x: np.digitize(x, [1, 0, -1], right=True)),
    Case("scatter_add", "nonzero", lambda x: fg.nonzero(x, size=4)[1], (I(3, 3, lo=-1, hi=1),),
         lambda x: nonzero_ref(x, 4)[:, 1]),
    Case("scatter_add", "argwhere", lambda x: fg.argwhere(x, size=5, fill_value=-1), (B(2, 3),),
         lambda x: nonzero_ref(x, 5, -1)),
    Case("scatter_add", "flatnonzero", lambda x: fg.flatnonzero(x, size=3), (Fi(2, 3, lo=0, hi=1),),
         lambda x: nonzero_ref(x.ravel(), 3)[:, 0]),
    Case("scatter_add", "where-one-argument", lambda x: fg.where(x, size=6)[0], (B(5),),
         lambda x: nonzero_ref(x, 6)[:, 0]),
    Case("argsort", "unique", lambda x: fg.unique(fg.add(x, REPEATS), size=7), (ZERO9,),
         lambda x: unique_ref(x + REPEATS, 7)),
    Case("argsort", "unique-f32", lambda x: fg.unique(x, size=3), (F(5),), lambda x: unique_ref(x, 3)),
    Case("argsort", "unique-counts", lambda x: fg.unique(x, size=6, return_counts=True)[1], (REPEATS,),
         lambda x: np.concatenate([np.unique(x, return_counts=True)[1], [0]])),
    Case("argsort", "unique-inverse", lambda x: fg.unique(x, size=4, return_inverse=True)[1], (I(2, 3, lo=0, hi=4),),
         lambda x: np.unique(x, return_inverse=True)[1]),
    Case("eq", "isin", fg.isin, (I(2, 3), I(2)), np.isin),
    Case("eq", "isin-invert", lambda a, b: fg.isin(a, b, invert=True), (Fi(4), Fi(3)),
         lambda a, b: np.isin(a, b, invert=True)),
    Case("scatter_add", "bincount", lambda x: fg.bincount(x, length=6), (COUNTS,),
         lambda x: np.bincount(np.clip(x, 0, None))[:6]),
    Case("scatter_add", "bincount-weights", lambda x, w: fg.bincount(x, w, length=4), (I(5, lo=0, hi=3), F(5)),
         lambda x, w: np.bincount(x, w, minlength=4)),
    Case("scatter_add", "histogram", lambda x: fg.histogram(x, 4, range=(-1.0, 1.0))[0], (F(10),),
         lambda x: histogram_ref(x, 4, -1.0, 1.0)),
    Case("scatter_add", "histogram-weights-density", lambda x, w: fg.histogram(x, np.float32([-2, 0, 0.5, 2]),
                                                                                weights=w, density=True)[0],
         (F(6), P(6)), lambda x, w: np.histogram(x, [-2, 0, 0.5, 2], weights=w, density=True)[0]),
    Case("iota", "histogram_bin_edges", lambda x: fg.histogram_bin_edges(x, 3, range=(-1.0, 2.0)), (F(4),),
         lambda x: np.histogram_bin_edges(x, 3, range=(-1.0, 2.0))),
    Case("argsort", "partition", lambda x: fg.partition(x, 2), (F(2, 5),), lambda x: partition_ref(x, 2)),
    Case("argsort", "argpartition", lambda x: fg.take_along_axis(x, fg.argpartition(x, 1, axis=0), axis=0),
         (F(4, 2),), lambda x: np.swapaxes(argpartition_values_ref(np.swapaxes(x, 0, 1), 1), 0, 1)),
    Case("take", "interp", lambda x: fg.interp(x, KNOTS, VALUES), (F(6),), lambda x: np.interp(x, KNOTS, VALUES)),
    Case("take", "interp-ends", lambda x, xp: fg.interp(x, xp, VALUES, left=-9.0, right=9.0),
         (F(6, lo=-3, hi=3), np.array([-1.5, -0.5, 0.1, 0.3, 1.0, 2.5], np.float32)),
         lambda x, xp: np.interp(x, xp, VALUES, left=-9.0, right=9.0)),
    Case("take", "interp-period", lambda x: fg.interp(x, KNOTS[1:], VALUES[1:], period=3.0), (F(5),),
         lambda x: np.interp(x, KNOTS[1:], VALUES[1:], period=3.0)),
    # indices, choosing
    Case("rem", "unravel_index", lambda i: fg.unravel_index(i, (3, 4))[1], (I(5, lo=0, hi=11),),
         lambda i: np.unravel_index(i, (3, 4))[1]),
    Case("mul", "ravel_multi_index", lambda i, j: fg.ravel_multi_index((i, j), (3, 4), mode="clip"),
         (I(4, lo=-1, hi=4), I(4, lo=-1, hi=4)),
         lambda i, j: np.ravel_multi_index((i, j), (3, 4), mode="clip")),
    Case("take", "triu_indices", lambda x: x[fg.triu_indices(3, 1)], (F(3, 3),), lambda x: x[np.triu_indices(3, 1)]),
    Case("take", "tril_indices_from", lambda x: x[fg.tril_indices_from(x)], (F(2, 3),),
         lambda x: x[np.tril_indices_from(x)]),
    Case("where", "select", lambda x: fg.select([fg.less(x, -1.0), fg.greater(x, 1.0)], [fg.neg(x), x], 0.5),
         (F(6),), lambda x: np.select([x < -1, x > 1], [-x, x], 0.5)),
    Case("where", "choose", lambda a, b, c: fg.choose(np.int32([0, 1, 2, 1]), [a, b, c]), (F(4), F(4), F()),
         lambda a, b, c: np.choose([0, 1, 2, 1], [a, b, c])),
    Case("where", "choose-wrap", lambda i, a, b: fg.choose(i, [a, b], mode="wrap"), (I(4), F(4), F(1)),
         lambda i, a, b: np.choose(i, [a, b], mode="wrap")),
    Case("take", "compress", lambda x: fg.compress(np.array([True, False, True]), x, axis=1), (F(2, 3),),
         lambda x: np.compress([True, False, True], x, axis=1)),
    Case("take", "compress-size", lambda c, x: fg.compress(c, x, size=3, fill_value=-1.0), (B(4), F(4)),
         lambda c, x: np.concatenate([x[c], -np.ones(3)])[:3]),
    Case("take", "extract-size", lambda c, x: fg.extract(fg.greater(c, 0.0), x, size=4), (F(2, 3), F(2, 3)),
         lambda c, x: np.concatenate([x[c > 0], np.zeros(4)])[:4]),
    # constants: array of traced values
    Case("concatenate", "array-of-tensors", lambda a, b: fg.array([[a, b], [b, 1.0]]), (F(), F()),
         lambda a, b: np.array([[a, b], [b, 1.0]])),
    Case("mul", "copy", lambda x: fg.multiply(fg.copy(x), 3.0), (F(2),), lambda x: x * 3),
)
F16_ROWS: tuple[Case, ...] = ()  # f16 rows of float primitives
U32_ROWS: tuple[Case, ...] = ()  # u32 rows of integer primitives
