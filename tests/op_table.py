"""The op table: rows of (primitive, function over the public API, inputs, NumPy reference).

Each row (`Case`, tests/op_case.py) names the primitive it covers, a function written with the
public fgrad API, seeded input makers and a NumPy reference. The table is data:
tests/test_ops.py checks every row through `interpret` and finite differences,
tests/test_lower.py through WGSL on the machine's adapter. The rows of the core ops are
here; the NumPy surface's families have a file each in tests/op_rows/.

References run on float64 copies of the f32 inputs, so they are independent
of fgrad's f32 arithmetic; the expected fgrad dtype is the reference's kind
mapped to fgrad's types (float -> f32, int -> i32, bool -> bool).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import fgrad as fg
from op_case import (  # noqa: F401  (re-exported for the tests)
    B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, Rand, f64, make, rounded, seed, trace,
)
from op_rows import FAMILIES

def sigmoid_ref(x):
    return 1 / (1 + np.exp(-x))


def gelu_ref(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


erf_ref = np.vectorize(math.erf)


def softmax_ref(x, axis=-1):
    e = np.exp(x)  # float64: no overflow for the inputs below, and no shift to share with fgrad
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_ref(x, axis=-1):
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))


def logsumexp_ref(x, axis=None, keepdims=False):
    return np.log(np.exp(x).sum(axis=axis, keepdims=keepdims))


def scatter_add_ref(updates, indices, size, axis=0):
    """Indices in [-size, 0) count from the end; updates at any other index outside [0, size) are dropped."""
    indices = np.where(indices < 0, indices + size, indices)
    out = np.zeros(updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:], updates.dtype)
    for j in np.ndindex(*indices.shape):
        lead = (slice(None),) * axis
        if 0 <= indices[j] < size:
            out[lead + (indices[j],)] += updates[lead + j]
    return out


def take_fill_ref(x, indices, fill):
    """jnp.take's default mode along axis 0: indices in [-n, 0) count from the end, others give `fill`."""
    n = x.shape[0]
    indices = np.where(indices < 0, indices + n, indices)
    inside = ((indices >= 0) & (indices < n)).reshape(indices.shape + (1,) * (x.ndim - 1))
    return np.where(inside, np.take(x, np.clip(indices, 0, n - 1), axis=0), fill).astype(x.dtype)


def reverse_cumsum(x, axis):
    return np.flip(np.cumsum(np.flip(x, axis), axis), axis)


def dynamic_slice_ref(x, starts, sizes):
    """jax.lax.dynamic_slice: a negative start counts from the end, then each is clamped so that the window fits."""
    at = [min(max(s + n if s < 0 else s, 0), n - k) for s, n, k in zip(starts, x.shape, sizes)]
    return x[tuple(slice(a, a + k) for a, k in zip(at, sizes))]


def dynamic_update_slice_ref(x, update, starts):
    at = [min(max(s + n if s < 0 else s, 0), n - k) for s, n, k in zip(starts, x.shape, update.shape)]
    out = x.copy()
    out[tuple(slice(a, a + k) for a, k in zip(at, update.shape))] = update
    return out


def truncate_ref(x):
    return np.trunc(x).astype(np.int32)


def as_i32(*xs):
    return [x.astype(np.int32) for x in xs]


# Constants closed over by traced functions (they become constant nodes).
C_F32 = np.array([[0.5, -1.0, 2.0, 0.25]], dtype=np.float32)
C_I32 = np.array([3, -1, 0], dtype=np.int32)
C_BOOL = np.array([True, False, True])
TRUNC = np.array([-2.7, -1.5, -0.5, -0.0, 0.0, 0.4, 1.5, 2.9], dtype=np.float32)
LABELS = np.array([0, 3, 4, -1, 5, 2], dtype=np.int32)  # -1 and 5 are out of range for 5 classes
# erf: near 0 (relative accuracy), both sides of the switch at |x| = 1, the tails, and past 4 (where it is +-1).
ERF_GRID = np.concatenate([np.linspace(-4.5, 4.5, 181), np.geomspace(1e-30, 1.0, 31), [-1e-6, 0.99999994, 1.0000001]])
ERF_GRID = ERF_GRID.astype(np.float32)
ERF_SPECIAL = np.array([np.inf, np.nan, 0.0, 1e-20, 0.75, 10.0], np.float32)
WITH_NAN = np.array([[1, np.nan, 3, np.nan], [5, 2, 9, 1], [-1, 4, -1, np.nan]], np.float32)
# Traced indices of a 4-row table: in range, negative in [-4, 0), and out of range both ways.
ROWS = np.array([-1, 0, 5, -5, 3, -4, 4], dtype=np.int32)
# Rows longer than a workgroup: ties of the largest and the smallest value in many invocations' shares
# of the row, a row with two NaNs, one with none, one with a NaN at its end.
LONG = np.tile(np.float32([1, 3, 3, -1, 0, -1]), (3, 50))
LONG[0, [200, 7]] = np.nan
LONG[2, -1] = np.nan


OP_CASES: tuple[Case, ...] = (
    # input / constant / iota
    Case("input", "identity", lambda x: x, (F(2, 3),), lambda x: x),
    Case("input", "scalar", lambda x: x, (F(),), lambda x: x),
    Case("input", "i32", lambda x: x, (I(4),), lambda x: x),
    Case("input", "bool", lambda x: x, (B(2, 1),), lambda x: x),
    Case("constant", "closed-f32", lambda x: fg.multiply(x, C_F32), (F(3, 4),), lambda x: x * C_F32),
    Case("constant", "only", lambda: fg.asarray(C_F32), (), lambda: C_F32),
    Case("constant", "python-float", lambda x: fg.add(x, 1.5), (F(2, 2),), lambda x: x + 1.5),
    Case("constant", "closed-i32", lambda x: fg.add(x, C_I32), (I(2, 3),), lambda x: x + C_I32),
    Case("constant", "closed-bool", lambda x: fg.logical_and(x, C_BOOL), (B(3),), lambda x: x & C_BOOL),
    Case("iota", "arange", lambda: fg.arange(5), (), lambda: np.arange(5)),
    Case("iota", "arange-plus-input", lambda x: fg.add(x, fg.arange(4)), (F(3, 4),), lambda x: x + np.arange(4)),
    Case("iota", "causal-mask", lambda: fg.causal_mask(4), (), lambda: np.tril(np.ones((4, 4), bool))),
    # dim_size: a symbol's value, read when the graph runs (here a mean over the symbolic axis)
    Case("dim_size", "mean-over-symbol", lambda x: fg.mean(x, 0), (F(5, 3),), lambda x: np.mean(x, 0),
         specs=(S(T, 3),)),
    # unary elementwise
    Case("neg", "f32", fg.neg, (F(2, 3),), np.negative),
    Case("neg", "scalar", fg.neg, (F(),), np.negative),
    Case("neg", "i32", fg.neg, (I(5),), np.negative),
    Case("neg", "operator", lambda x: -x, (F(1, 3),), np.negative, eager=False),
    Case("abs", "f32", fg.abs, (F(2, 3),), np.abs),
    Case("abs", "i32", fg.abs, (I(6),), np.abs),
    Case("abs", "operator", lambda x: abs(x), (F(4, 1),), np.abs, eager=False),
    Case("exp", "f32", fg.exp, (F(3, 1),), np.exp),
    Case("exp", "scalar", fg.exp, (F(),), np.exp),
    Case("exp", "i32", fg.exp, (I(4),), np.exp),
    Case("log", "f32", fg.log, (P(2, 3),), np.log),
    Case("log", "scalar", fg.log, (P(),), np.log),
    Case("sqrt", "f32", fg.sqrt, (P(1, 5),), np.sqrt),
    Case("sqrt", "i32", fg.sqrt, (I(4, lo=0, hi=9),), np.sqrt),
    Case("rsqrt", "f32", fg.rsqrt, (P(3, 2),), lambda x: 1 / np.sqrt(x)),
    Case("sin", "f32", fg.sin, (F(2, 3, lo=-4, hi=4),), np.sin),
    Case("sin", "scalar", fg.sin, (F(),), np.sin),
    Case("cos", "f32", fg.cos, (F(3, 2, lo=-4, hi=4),), np.cos),
    Case("cos", "i32", fg.cos, (I(4),), np.cos),
    Case("tanh", "f32", fg.tanh, (F(2, 4, lo=-4, hi=4),), np.tanh),
    Case("sigmoid", "f32", fg.sigmoid, (F(2, 5, lo=-10, hi=10),), sigmoid_ref),
    Case("sigmoid", "scalar", fg.sigmoid, (F(),), sigmoid_ref),
    Case("relu", "f32", fg.relu, (F(3, 3),), lambda x: np.maximum(x, 0)),
    Case("relu", "i32", fg.relu, (I(6),), lambda x: np.maximum(x, 0)),
    Case("silu", "f32", fg.silu, (F(2, 5, lo=-8, hi=8),), lambda x: x * sigmoid_ref(x)),
    Case("gelu", "f32", fg.gelu, (F(2, 5, lo=-4, hi=4),), gelu_ref),
    Case("erf", "f32", fg.erf, (F(3, 4, lo=-3, hi=3),), erf_ref),
    Case("erf", "grid", fg.erf, (ERF_GRID,), erf_ref, rtol=3e-7, atol=0.0),
    # A bool input keeps inf and NaN out of the finite-difference checks; the kernel still computes erf.
    Case("erf", "inf-nan", lambda m: fg.erf(fg.where(m, ERF_SPECIAL, -ERF_SPECIAL)), (B(6),),
         lambda m: erf_ref(np.where(m, ERF_SPECIAL, -ERF_SPECIAL)), rtol=3e-7, atol=0.0),
    Case("erf", "i32", fg.erf, (I(5),), erf_ref),
    # A bool input picks the special values, so finite differences never see them.
    Case("isnan", "special", lambda m: fg.isnan(fg.where(m, ERF_SPECIAL, -ERF_SPECIAL)), (B(6),),
         lambda m: np.isnan(np.where(m, ERF_SPECIAL, -ERF_SPECIAL))),
    Case("isinf", "special", lambda m: fg.isinf(fg.where(m, ERF_SPECIAL, -ERF_SPECIAL)), (B(6),),
         lambda m: np.isinf(np.where(m, ERF_SPECIAL, -ERF_SPECIAL))),
    Case("isinf", "isfinite", lambda m: fg.isfinite(fg.where(m, ERF_SPECIAL, -ERF_SPECIAL)), (B(6),),
         lambda m: np.isfinite(np.where(m, ERF_SPECIAL, -ERF_SPECIAL))),
    Case("logical_not", "bool", fg.logical_not, (B(2, 3),), np.logical_not),
    Case("logical_not", "operator", lambda x: ~x, (B(4),), np.logical_not, eager=False),
    # integer_pow: a static integral exponent, exact for negative bases
    Case("integer_pow", "square-negative", lambda x: x**2, (F(2, 3, lo=-3, hi=-0.5),), lambda x: x**2, eager=False),
    Case("integer_pow", "cube", lambda x: fg.pow(x, 3), (F(5),), lambda x: x**3),
    Case("integer_pow", "negative-exponent", lambda x: fg.pow(x, -2), (NZ(4),), lambda x: x**-2.0),
    Case("integer_pow", "zero-exponent", lambda x: fg.pow(x, 0), (F(3),), lambda x: x**0),
    Case("integer_pow", "i32", lambda x: fg.pow(x, 3), (I(5),), lambda x: x**3),
    Case("integer_pow", "float-exponent", lambda x: x**2.0, (F(3),), lambda x: x**2.0, eager=False),
    Case("integer_pow", "i32-float-exponent", lambda x: fg.pow(x, 2.0), (I(4),), lambda x: x**2.0),
    # binary arithmetic, with broadcasting and promotion
    Case("add", "f32", fg.add, (F(2, 3), F(2, 3)), np.add),
    Case("add", "bcast-3x1-1x4", fg.add, (F(3, 1), F(1, 4)), np.add),
    Case("add", "bcast-trailing", fg.add, (F(2, 3, 4), F(4)), np.add),
    Case("add", "scalar-array", fg.add, (F(), F(2, 3)), np.add),
    Case("add", "scalars", fg.add, (F(), F()), np.add),
    Case("add", "i32", fg.add, (I(3, 1), I(3)), np.add),
    Case("add", "i32-f32", fg.add, (I(2, 3), F(2, 3)), np.add),
    Case("add", "i32-python-int", lambda x: fg.add(x, 2), (I(4),), lambda x: x + 2),
    Case("add", "bool-int", fg.add, (B(3, 2), I(2)), np.add),
    Case("add", "operator-radd", lambda x: 1 + x, (F(3),), lambda x: 1 + x, eager=False),
    Case("sub", "f32", fg.subtract, (F(2, 3), F(2, 3)), np.subtract),
    Case("sub", "bcast", fg.subtract, (F(1, 4), F(3, 1)), np.subtract),
    Case("sub", "i32", fg.subtract, (I(2, 3), I(3)), np.subtract),
    Case("sub", "operator-rsub", lambda x: 2 - x, (F(4),), lambda x: 2 - x, eager=False),
    Case("mul", "f32", fg.multiply, (F(2, 3), F(2, 3)), np.multiply),
    Case("mul", "bcast", fg.multiply, (F(2, 1, 4), F(3, 1)), np.multiply),
    Case("mul", "i32-bool", fg.multiply, (I(4), B(4)), lambda a, b: a * b.astype(np.int32)),
    Case("mul", "operator", lambda x, y: x * y, (F(), F(3)), np.multiply, eager=False),
    Case("div", "f32", fg.divide, (F(2, 3), NZ(2, 3)), np.divide),
    Case("div", "bcast", fg.divide, (F(3, 1), NZ(1, 4)), np.divide),
    Case("div", "i32-i32", fg.divide, (I(5), I(5, lo=1, hi=4)), np.true_divide),
    Case("div", "operator-rtruediv", lambda x: 1 / x, (NZ(3),), lambda x: 1 / x, eager=False),
    Case("pow", "f32", fg.pow, (P(2, 3), F(2, 3)), np.power),
    Case("pow", "bcast", fg.pow, (P(3, 1), F(4)), np.power),
    Case("pow", "sqrt-exponent", lambda x: fg.pow(x, 0.5), (P(4),), lambda x: x**0.5),
    Case("pow", "two-to-the-x", lambda x: 2**x, (F(2, 3),), lambda x: 2.0**x, eager=False),
    Case("pow", "operator", lambda x, y: x**y, (P(3), F(3)), np.power, eager=False),
    Case("maximum", "ties", fg.maximum, (Fi(3, 4), Fi(3, 4)), np.maximum),
    Case("maximum", "bcast-scalar", lambda x: fg.maximum(x, 0.5), (F(2, 3),), lambda x: np.maximum(x, 0.5)),
    Case("maximum", "i32", fg.maximum, (I(3, 1), I(1, 2)), np.maximum),
    Case("minimum", "ties", fg.minimum, (Fi(3, 4), Fi(4)), np.minimum),
    Case("minimum", "i32", fg.minimum, (I(5), I(5)), np.minimum),
    # comparisons and logic
    Case("eq", "f32", fg.equal, (Fi(3, 4), Fi(3, 4)), np.equal),
    Case("eq", "i32-python", lambda x: fg.equal(x, 1), (I(6),), lambda x: x == 1),
    Case("eq", "bool", fg.equal, (B(4), B(4)), np.equal),
    Case("eq", "operator-mixed", lambda x, y: x == y, (I(3, 1), Fi(1, 3)), np.equal, eager=False),
    Case("ne", "f32", fg.not_equal, (Fi(2, 3), Fi(3)), np.not_equal),
    Case("ne", "bool-operator", lambda x, y: x != y, (B(5), B(5)), np.not_equal, eager=False),
    Case("lt", "f32", fg.less, (Fi(2, 3), Fi(2, 3)), np.less),
    Case("lt", "i32-f32", fg.less, (I(4), F(4)), np.less),
    Case("lt", "operator", lambda x: x < 0.5, (F(3, 2),), lambda x: x < 0.5, eager=False),
    Case("le", "ties", fg.less_equal, (Fi(3, 1), Fi(1, 3)), np.less_equal),
    Case("le", "operator", lambda x, y: x <= y, (I(4), I(4)), np.less_equal, eager=False),
    Case("gt", "f32", fg.greater, (Fi(2, 3), Fi(2, 3)), np.greater),
    Case("gt", "operator-scalar", lambda x, y: x > y, (F(), F(3)), np.greater, eager=False),
    Case("ge", "i32", fg.greater_equal, (I(2, 3), I(3)), np.greater_equal),
    Case("ge", "operator", lambda x: x >= 0, (Fi(5),), lambda x: x >= 0, eager=False),
    Case("logical_and", "bool", fg.logical_and, (B(2, 3), B(2, 3)), np.logical_and),
    Case("logical_and", "bcast-operator", lambda x, y: x & y, (B(3, 1), B(4)), np.logical_and, eager=False),
    Case("logical_or", "bool", fg.logical_or, (B(2, 3), B(1, 3)), np.logical_or),
    Case("logical_or", "operator", lambda x, y: x | y, (B(4), B(4)), np.logical_or, eager=False),
    Case("logical_or", "add-bool-bool", fg.add, (B(3, 2), B(3, 2)), np.add),  # NumPy's and jax.numpy's bool add: or
    Case("logical_and", "multiply-bool-bool", lambda a, b: a * b, (B(3, 2), B(2)), np.multiply, eager=False),
    # where, astype, stop_gradient
    Case("where", "bool", fg.where, (B(2, 3), F(2, 3), F(2, 3)), np.where),
    Case("where", "bcast", fg.where, (B(3, 1), F(1, 4), F()), np.where),
    Case("where", "python-scalar", lambda c, x: fg.where(c, x, 0.0), (B(4), F(4)), lambda c, x: np.where(c, x, 0.0)),
    Case("where", "f32-cond", fg.where, (Fi(2, 3), F(2, 3), F(3)), lambda c, x, y: np.where(c != 0, x, y)),
    Case("where", "i32-cond", fg.where, (I(5, lo=-1, hi=1), I(5), I(5)), lambda c, x, y: np.where(c != 0, x, y)),
    Case("astype", "f32-to-i32-truncates", lambda x: fg.astype(x, "i32"), (TRUNC,), truncate_ref),
    Case("astype", "f32-to-i32-random", lambda x: fg.astype(x, fg.i32), (F(3, 4, lo=-5, hi=5),), truncate_ref),
    Case("astype", "f32-to-bool", lambda x: fg.astype(x, "bool"), (Fi(3, 3, lo=-1, hi=1),), lambda x: x != 0),
    Case("astype", "f32-to-bool-fixed", lambda x: fg.astype(x, "bool"), (TRUNC,), lambda x: x != 0),
    Case("astype", "i32-to-f32", lambda x: fg.astype(x, "f32"), (I(4),), lambda x: x.astype(np.float64)),
    Case("astype", "bool-to-i32", lambda x: fg.astype(x, "i32"), (B(4),), lambda x: x.astype(np.int32)),
    Case("astype", "bool-to-f32", lambda x: fg.astype(x, "f32"), (B(2, 2),), lambda x: x.astype(np.float64)),
    Case("astype", "i32-to-bool-method", lambda x: x.astype("bool"), (I(5, lo=-1, hi=1),), lambda x: x != 0,
         eager=False),
    Case("stop_gradient", "f32", fg.stop_gradient, (F(2, 3),), lambda x: x),
    Case("stop_gradient", "i32", fg.stop_gradient, (I(3),), lambda x: x),
    # reductions
    Case("sum", "all", fg.sum, (F(2, 3, 4),), np.sum),
    Case("sum", "axis", lambda x: fg.sum(x, 1), (F(2, 3, 4),), lambda x: np.sum(x, 1)),
    Case("sum", "tuple", lambda x: fg.sum(x, (0, 2)), (F(2, 3, 4),), lambda x: np.sum(x, (0, 2))),
    Case("sum", "negative", lambda x: fg.sum(x, -1), (F(2, 3, 4),), lambda x: np.sum(x, -1)),
    Case("sum", "keepdims", lambda x: fg.sum(x, (-1, 0), keepdims=True), (F(2, 3, 4),),
         lambda x: np.sum(x, (-1, 0), keepdims=True)),
    Case("sum", "keepdims-all", lambda x: fg.sum(x, keepdims=True), (F(3, 2),), lambda x: np.sum(x, keepdims=True)),
    Case("sum", "size-1-axis", lambda x: fg.sum(x, 1), (F(3, 1),), lambda x: np.sum(x, 1)),
    Case("sum", "i32", lambda x: fg.sum(x, 0), (I(4, 3),), lambda x: np.sum(x, 0)),
    Case("sum", "bool-counts", fg.sum, (B(3, 4),), lambda x: np.sum(x)),
    Case("sum", "method", lambda x: x.sum(axis=0), (F(3, 2),), lambda x: x.sum(axis=0), eager=False),
    Case("max", "all", fg.max, (F(2, 3, 4),), np.max),
    Case("max", "axis", lambda x: fg.max(x, 0), (Fi(3, 4),), lambda x: np.max(x, 0)),
    Case("max", "tuple-keepdims", lambda x: fg.max(x, (0, -1), keepdims=True), (F(2, 3, 4),),
         lambda x: np.max(x, (0, -1), keepdims=True)),
    Case("max", "i32", lambda x: fg.max(x, -1), (I(3, 4),), lambda x: np.max(x, -1)),
    Case("min", "axis", lambda x: fg.min(x, 1), (F(3, 4),), lambda x: np.min(x, 1)),
    Case("min", "i32-all", fg.min, (I(2, 3),), np.min),
    Case("max", "method", lambda x: x.max(axis=1, keepdims=True), (F(2, 3),), lambda x: x.max(1, keepdims=True),
         eager=False),
    # argmax / argmin: the first extreme, NaN first of all; rows past a workgroup's width fold cooperatively
    Case("argmax", "axis", lambda x: fg.argmax(x, axis=1), (F(2, 5, 3),), lambda x: np.argmax(x, 1)),
    Case("argmax", "ties-first", lambda x: fg.argmax(x, axis=-1, keepdims=True), (Fi(4, 6, lo=0, hi=2),),
         lambda x: np.argmax(x, -1)[:, None]),
    Case("argmax", "flattened", fg.argmax, (Fi(3, 4, lo=0, hi=3),), np.argmax),
    Case("argmax", "flattened-keepdims", lambda x: fg.argmax(x, keepdims=True), (F(2, 3),),
         lambda x: np.argmax(x, keepdims=True)),
    Case("argmax", "scalar", fg.argmax, (F(),), np.argmax),
    Case("argmax", "bool", lambda x: fg.argmax(x, axis=0), (B(5, 3),), lambda x: np.argmax(x, 0)),
    Case("argmax", "i32", lambda x: fg.argmax(x, -1), (I(3, 4),), lambda x: np.argmax(x, -1)),
    Case("argmax", "nan-first", lambda x: fg.argmax(x, axis=-1), (WITH_NAN,), lambda x: np.argmax(x, -1)),
    Case("argmax", "long-rows", lambda x: fg.argmax(x, -1), (LONG,), lambda x: np.argmax(x, -1)),
    Case("argmax", "long-leading-axis", lambda x: fg.argmax(x, 0), (LONG.T,), lambda x: np.argmax(x, 0)),
    # Along the row, and broadcast back along it: the argmax joins its one-hot's kernel.
    Case("argmax", "one-hot-of-rows", lambda x: fg.one_hot(fg.argmax(x, -1), 6), (Fi(4, 6, lo=0, hi=2),),
         lambda x: np.eye(6)[np.argmax(x, -1)]),
    Case("argmax", "method", lambda x: x.argmax(axis=0), (I(4, 3),), lambda x: x.argmax(axis=0), eager=False),
    Case("argmin", "axis", lambda x: fg.argmin(x, axis=1), (Fi(3, 5, lo=0, hi=2),), lambda x: np.argmin(x, 1)),
    Case("argmin", "flattened-i32", fg.argmin, (I(2, 3, 2),), np.argmin),
    Case("argmin", "nan-first", lambda x: fg.argmin(x, axis=0), (WITH_NAN.T,), lambda x: np.argmin(x, 0)),
    Case("argmin", "long-rows", lambda x: fg.argmin(x, -1, keepdims=True), (LONG,),
         lambda x: np.argmin(x, -1, keepdims=True)),
    Case("argmin", "long-rows-i32", lambda x: fg.argmin(x, 1), (I(2, 200),), lambda x: np.argmin(x, 1)),
    Case("argmin", "method", lambda x: x.argmin(-1), (Fi(3, 4),), lambda x: x.argmin(-1), eager=False),
    # softmax / log_softmax
    Case("softmax", "last", fg.softmax, (F(2, 5),), softmax_ref),
    Case("softmax", "axis-0", lambda x: fg.softmax(x, 0), (F(3, 2, 2),), lambda x: softmax_ref(x, 0)),
    Case("softmax", "large", fg.softmax, (F(2, 5, lo=80, hi=120),), softmax_ref),  # exp(x) overflows f32
    Case("softmax", "size-1", fg.softmax, (F(3, 1),), softmax_ref),
    Case("softmax", "i32", fg.softmax, (I(2, 3),), softmax_ref),
    Case("log_softmax", "last", fg.log_softmax, (F(2, 5),), log_softmax_ref),
    Case("log_softmax", "axis-1", lambda x: fg.log_softmax(x, 1), (F(2, 3, 2),), lambda x: log_softmax_ref(x, 1)),
    Case("log_softmax", "large", fg.log_softmax, (F(3, 4, lo=80, hi=120),), log_softmax_ref),
    # cumsum: a loop over the prefix per result; rows past a workgroup's width are scanned by a workgroup
    # (integer-valued there, so that any order of the additions is exact)
    Case("cumsum", "flattened", fg.cumsum, (F(2, 3),), np.cumsum),
    Case("cumsum", "axis-0", lambda x: fg.cumsum(x, 0), (F(4, 3),), lambda x: np.cumsum(x, 0)),
    Case("cumsum", "negative-axis", lambda x: fg.cumsum(x, -1), (F(2, 3, 5),), lambda x: np.cumsum(x, -1)),
    Case("cumsum", "reverse", lambda x: fg.cumsum(x, 1, reverse=True), (F(3, 6),), lambda x: reverse_cumsum(x, 1)),
    Case("cumsum", "size-1-axis", lambda x: fg.cumsum(x, 1), (F(3, 1),), lambda x: np.cumsum(x, 1)),
    Case("cumsum", "scalar", fg.cumsum, (F(),), np.cumsum),
    Case("cumsum", "i32", lambda x: fg.cumsum(x, 0), (I(5, 2),), lambda x: np.cumsum(x, 0)),
    Case("cumsum", "bool-counts", lambda x: fg.cumsum(x, -1), (B(3, 4),), lambda x: np.cumsum(x, -1)),
    Case("cumsum", "dtype", lambda x: fg.cumsum(x, dtype="f32"), (I(6),), lambda x: np.cumsum(x, dtype=np.float64)),
    Case("cumsum", "dtype-bool-is-a-running-or", lambda x: fg.cumsum(x, 1, dtype="bool", reverse=True),
         (Fi(3, 5, lo=0, hi=1),), lambda x: reverse_cumsum(x != 0, 1).astype(bool)),
    Case("cumsum", "long-rows", lambda x: fg.cumsum(x, -1), (Fi(3, 300),), lambda x: np.cumsum(x, -1)),
    Case("cumsum", "long-rows-reverse", lambda x: fg.cumsum(x, -1, reverse=True), (Fi(2, 257),),
         lambda x: reverse_cumsum(x, -1)),
    Case("cumsum", "long-leading-axis", lambda x: fg.cumsum(x, 0, reverse=True), (I(200, 3),),
         lambda x: reverse_cumsum(x, 0)),
    Case("cumsum", "long-flattened-exp", lambda x: fg.cumsum(fg.exp(x)), (Fi(4, 40, lo=0, hi=1),),
         lambda x: np.cumsum(np.exp(x)), rtol=1e-6),
    Case("cumsum", "method", lambda x: x.cumsum(0), (F(3, 2),), lambda x: x.cumsum(0), eager=False),
    # shapes
    Case("reshape", "shape", lambda x: fg.reshape(x, (4, 3)), (F(2, 6),), lambda x: np.reshape(x, (4, 3))),
    Case("reshape", "minus-one", lambda x: fg.reshape(x, (-1, 2)), (F(2, 3, 2),), lambda x: np.reshape(x, (-1, 2))),
    Case("reshape", "flatten", lambda x: fg.reshape(x, -1), (I(3, 2),), lambda x: np.reshape(x, -1)),
    Case("reshape", "to-scalar", lambda x: fg.reshape(x, ()), (F(1, 1),), lambda x: np.reshape(x, ())),
    Case("reshape", "from-scalar", lambda x: fg.reshape(x, (1, 1)), (F(),), lambda x: np.reshape(x, (1, 1))),
    Case("reshape", "method-varargs", lambda x: x.reshape(3, -1), (B(2, 3),), lambda x: x.reshape(3, -1),
         eager=False),
    Case("transpose", "reverse", fg.transpose, (F(2, 3, 4),), np.transpose),
    Case("transpose", "perm", lambda x: fg.transpose(x, (1, 2, 0)), (I(2, 3, 4),),
         lambda x: np.transpose(x, (1, 2, 0))),
    Case("transpose", "negative-perm", lambda x: fg.transpose(x, (-1, 0, 1)), (F(2, 1, 3),),
         lambda x: np.transpose(x, (-1, 0, 1))),
    Case("transpose", "T", lambda x: x.T, (B(2, 3),), lambda x: x.T, eager=False),
    Case("broadcast_to", "3x1", lambda x: fg.broadcast_to(x, (2, 3, 4)), (F(3, 1),),
         lambda x: np.broadcast_to(x, (2, 3, 4))),
    Case("broadcast_to", "scalar", lambda x: fg.broadcast_to(x, (2, 3)), (I(),), lambda x: np.broadcast_to(x, (2, 3))),
    Case("broadcast_to", "bool", lambda x: fg.broadcast_to(x, (3, 4)), (B(4),), lambda x: np.broadcast_to(x, (3, 4))),
    Case("slice", "range", lambda x: x[1:3], (F(5),), lambda x: x[1:3], eager=False),
    Case("slice", "step", lambda x: x[::2, 1:4:2], (F(5, 4),), lambda x: x[::2, 1:4:2], eager=False),
    Case("slice", "negative-bounds", lambda x: x[-3:, :-1], (I(4, 3),), lambda x: x[-3:, :-1], eager=False),
    Case("pad", "int", lambda x: fg.pad(x, 1), (F(2, 3),), lambda x: np.pad(x, 1)),
    Case("pad", "pair", lambda x: fg.pad(x, (1, 2)), (F(2, 3),), lambda x: np.pad(x, (1, 2))),
    Case("pad", "per-axis", lambda x: fg.pad(x, ((0, 1), (2, 0)), constant_values=-1.5), (F(2, 3),),
         lambda x: np.pad(x, ((0, 1), (2, 0)), constant_values=-1.5)),
    Case("pad", "i32", lambda x: fg.pad(x, (2, 1), constant_values=7), (I(3),),
         lambda x: np.pad(x, (2, 1), constant_values=7)),
    Case("pad", "bool", lambda x: fg.pad(x, ((1, 0), (0, 1)), constant_values=True), (B(2, 2),),
         lambda x: np.pad(x, ((1, 0), (0, 1)), constant_values=True)),
    Case("concatenate", "axis-0", lambda x, y: fg.concatenate([x, y]), (F(2, 3), F(1, 3)),
         lambda x, y: np.concatenate([x, y])),
    Case("concatenate", "axis-neg", lambda x, y, z: fg.concatenate([x, y, z], axis=-1), (F(2, 1), F(2, 3), F(2, 2)),
         lambda x, y, z: np.concatenate([x, y, z], axis=-1)),
    Case("concatenate", "mixed-dtypes", lambda x, y: fg.concatenate([x, y], 1), (I(2, 2), F(2, 3)),
         lambda x, y: np.concatenate([x, y], 1)),
    Case("concatenate", "bool", lambda x, y: fg.concatenate([x, y]), (B(2), B(3)), lambda x, y: np.concatenate([x, y])),
    Case("concatenate", "stack", lambda x, y: fg.stack([x, y]), (F(2, 3), F(2, 3)), lambda x, y: np.stack([x, y])),
    Case("concatenate", "stack-last", lambda x, y: fg.stack([x, y], axis=-1), (I(3), I(3)),
         lambda x, y: np.stack([x, y], axis=-1)),
    # matmul and take
    Case("matmul", "2d", fg.matmul, (F(3, 4, lo=-1, hi=1), F(4, 5, lo=-1, hi=1)), np.matmul),
    Case("matmul", "batched", fg.matmul, (F(2, 3, 4, lo=-1, hi=1), F(2, 4, 5, lo=-1, hi=1)), np.matmul),
    Case("matmul", "batch-bcast", fg.matmul, (F(2, 1, 3, 4, lo=-1, hi=1), F(5, 4, 6, lo=-1, hi=1)), np.matmul),
    Case("matmul", "2d-3d", fg.matmul, (F(3, 4, lo=-1, hi=1), F(2, 4, 2, lo=-1, hi=1)), np.matmul),
    Case("matmul", "vec-mat", fg.matmul, (F(4, lo=-1, hi=1), F(4, 5, lo=-1, hi=1)), np.matmul),
    Case("matmul", "mat-vec", fg.matmul, (F(3, 4, lo=-1, hi=1), F(4, lo=-1, hi=1)), np.matmul),
    Case("matmul", "vec-vec", fg.matmul, (F(4, lo=-1, hi=1), F(4, lo=-1, hi=1)), np.matmul),
    Case("matmul", "vec-batched", fg.matmul, (F(4, lo=-1, hi=1), F(2, 4, 3, lo=-1, hi=1)), np.matmul),
    Case("matmul", "i32", fg.matmul, (I(2, 3), I(3, 2)), np.matmul),
    Case("matmul", "operator", lambda a, b: a @ b, (F(2, 3, lo=-1, hi=1), F(3, 2, lo=-1, hi=1)), np.matmul,
         eager=False),
    Case("matmul", "bool-bool", fg.matmul, (B(3, 5), B(5, 2)), np.matmul),  # an or of ands, as jax.numpy
    Case("take", "const-negative-axis-1", lambda x: fg.take(x, [2, -1, 0], axis=1), (F(3, 4),),
         lambda x: np.take(x, [2, -1, 0], axis=1)),
    Case("take", "const-scalar-index", lambda x: fg.take(x, -1, axis=0), (I(3, 2),), lambda x: np.take(x, -1, axis=0)),
    Case("take", "flat", fg.take, (F(3, 4), I(5, lo=0, hi=11)), np.take),
    Case("take", "traced-2d-indices", lambda x, i: fg.take(x, i, axis=-1), (F(2, 4), I(2, 3, lo=0, hi=3)),
         lambda x, i: np.take(x, i, axis=-1)),
    Case("take", "bool-values", lambda x, i: fg.take(x, i, axis=0), (B(4, 2), I(3, lo=0, hi=3)),
         lambda x, i: np.take(x, i, axis=0)),
    # Out-of-range traced indices (eagerly they are known, and so checked, but for mode="clip").
    # Fi: the NaN fill would make finite differences NaN; fill-value below checks the gradient.
    Case("take", "traced-out-of-range-fill", lambda x, i: fg.take(x, i, axis=0), (Fi(4, 2), ROWS),
         lambda x, i: take_fill_ref(x, i, np.nan), eager=False),
    Case("take", "traced-out-of-range-fill-i32", lambda x, i: fg.take(x, i, axis=1), (I(2, 4), ROWS),
         lambda x, i: take_fill_ref(x.T, i, -2**31).T, eager=False),
    Case("take", "traced-out-of-range-fill-value", lambda x, i: fg.take(x, i, axis=0, fill_value=-7.5), (F(4), ROWS),
         lambda x, i: take_fill_ref(x, i, -7.5), eager=False),
    Case("take", "traced-out-of-range-clip", lambda x, i: fg.take(x, i, axis=0, mode="clip"), (F(4, 3), ROWS),
         lambda x, i: np.take(x, i, axis=0, mode="clip")),
    # scatter_add: the transpose of take; repeated indices accumulate
    Case("scatter_add", "rows", lambda u, i: fg.scatter_add(u, i, 3), (F(5, 2), I(5, lo=0, hi=2)),
         lambda u, i: scatter_add_ref(u, i, 3)),
    Case("scatter_add", "axis-1", lambda u, i: fg.scatter_add(u, i, 4, axis=1), (F(2, 6, 3), I(6, lo=0, hi=3)),
         lambda u, i: scatter_add_ref(u, i, 4, axis=1)),
    Case("scatter_add", "2d-indices", lambda u, i: fg.scatter_add(u, i, 3), (F(2, 3), I(2, 3, lo=0, hi=2)),
         lambda u, i: scatter_add_ref(u, i, 3)),
    Case("scatter_add", "i32-const-negative", lambda u: fg.scatter_add(u, [0, -1, 0, 2], 4), (I(4, 2),),
         lambda u: scatter_add_ref(u, np.array([0, -1, 0, 2]), 4)),
    Case("scatter_add", "traced-out-of-range-drop", lambda u, i: fg.scatter_add(u, i, 4), (F(7, 2), ROWS),
         lambda u, i: scatter_add_ref(u, i, 4), eager=False),
    Case("scatter_add", "traced-out-of-range-clip", lambda u, i: fg.scatter_add(u, i, 4, axis=1, mode="clip"),
         (F(2, 7), ROWS), lambda u, i: scatter_add_ref(u, np.clip(i, 0, 3), 4, axis=1)),
    # dynamic_slice / dynamic_update_slice: starts (static, traced, or one traced array) count from the end
    # when negative and are clamped so that the window fits
    Case("dynamic_slice", "static-starts", lambda x: fg.dynamic_slice(x, (1, 2), (2, 2)), (F(4, 5),),
         lambda x: x[1:3, 2:4]),
    Case("dynamic_slice", "traced-starts", lambda x, i, j: fg.dynamic_slice(x, (i, j), (2, 3)),
         (F(4, 5), I(lo=0, hi=2), I(lo=0, hi=2)), lambda x, i, j: dynamic_slice_ref(x, (i, j), (2, 3))),
    Case("dynamic_slice", "traced-clamped", lambda x, i, j: fg.dynamic_slice(x, (i, j), (2, 3)),
         (F(4, 5), np.int32(3), np.int32(-7)), lambda x, i, j: dynamic_slice_ref(x, (i, j), (2, 3))),
    Case("dynamic_slice", "traced-negative", lambda x, i, j: fg.dynamic_slice(x, (i, j), (2, 2)),
         (F(4, 5), np.int32(-2), np.int32(-1)), lambda x, i, j: dynamic_slice_ref(x, (i, j), (2, 2))),
    Case("dynamic_slice", "traced-full-axis", lambda x, i, j: fg.dynamic_slice(x, (i, j), (2, 5)),
         (F(4, 5), np.int32(1), np.int32(4)), lambda x, i, j: dynamic_slice_ref(x, (i, j), (2, 5))),
    Case("dynamic_slice", "array-starts-full-axis", lambda x, s: fg.dynamic_slice(x, s, (1, 3, 2)),
         (I(2, 3, 4), np.int32([1, 5, -3])), lambda x, s: dynamic_slice_ref(x, s, (1, 3, 2))),
    Case("dynamic_slice", "u32-start", lambda x, i: fg.dynamic_slice(x, (i, 1), (2, 2)),
         (F(4, 5), np.uint32(2**32 - 1)), lambda x, i: dynamic_slice_ref(x, (i, 1), (2, 2))),
    Case("dynamic_slice", "bool-mixed-starts", lambda x, i: fg.dynamic_slice(x, (i, 1), (1, 2)),
         (B(3, 4), np.int32(9)), lambda x, i: dynamic_slice_ref(x, (i, 1), (1, 2))),
    Case("dynamic_update_slice", "static-starts", lambda x, u: fg.dynamic_update_slice(x, u, (1, 0)),
         (F(4, 3), F(2, 3)), lambda x, u: dynamic_update_slice_ref(x, u, (1, 0))),
    Case("dynamic_update_slice", "traced-clamped", lambda x, u, i, j: fg.dynamic_update_slice(x, u, (i, j)),
         (F(4, 5), F(2, 2), np.int32(3), np.int32(-1)), lambda x, u, i, j: dynamic_update_slice_ref(x, u, (i, j))),
    Case("dynamic_update_slice", "traced-starts", lambda x, u, i: fg.dynamic_update_slice(x, u, (0, i, 0)),
         (F(2, 5, 3), F(2, 2, 3), I(lo=-6, hi=6)), lambda x, u, i: dynamic_update_slice_ref(x, u, (0, i, 0))),
    Case("dynamic_update_slice", "traced-full-axis", lambda x, u, i, j: fg.dynamic_update_slice(x, u, (i, j)),
         (F(4, 3), F(2, 3), np.int32(-1), np.int32(2)), lambda x, u, i, j: dynamic_update_slice_ref(x, u, (i, j))),
    Case("dynamic_update_slice", "whole", lambda x, u: fg.dynamic_update_slice(x, u, (2,)), (I(3), I(3)),
         lambda x, u: u),
    Case("dynamic_update_slice", "bool", lambda x, u, i: fg.dynamic_update_slice(x, u, (i,)),
         (B(5), B(2), I(lo=-6, hi=6)), lambda x, u, i: dynamic_update_slice_ref(x, u, (i,))),
)


API_CASES: tuple[Case, ...] = (
    # getitem: ints, negative ints, steps, None, Ellipsis, one integer array
    Case("slice", "getitem-int", lambda x: x[1], (F(3, 4),), lambda x: x[1], eager=False),
    Case("slice", "getitem-negative-int", lambda x: x[-1, -2], (F(3, 4),), lambda x: x[-1, -2], eager=False),
    Case("slice", "getitem-none", lambda x: x[None, :, 0], (F(3, 4),), lambda x: x[None, :, 0], eager=False),
    Case("slice", "getitem-ellipsis", lambda x: x[..., 1:3], (F(2, 3, 4),), lambda x: x[..., 1:3], eager=False),
    Case("slice", "getitem-ellipsis-none", lambda x: x[1, ..., None, ::3], (F(2, 3, 4),),
         lambda x: x[1, ..., None, ::3], eager=False),
    Case("slice", "getitem-step-overrun", lambda x: x[1:100:2], (I(6),), lambda x: x[1:100:2], eager=False),
    Case("take", "getitem-list", lambda x: x[[0, 2, -1]], (F(3, 4),), lambda x: x[[0, 2, -1]], eager=False),
    Case("take", "getitem-array-axis-1", lambda x: x[:, np.array([1, 0, 1])], (F(3, 4),),
         lambda x: x[:, np.array([1, 0, 1])], eager=False),
    Case("take", "getitem-2d-array", lambda x: x[np.array([[0, 1], [2, 0]])], (F(3, 2),),
         lambda x: x[np.array([[0, 1], [2, 0]])], eager=False),
    Case("take", "getitem-adjacent-int-array", lambda x: x[:, [0, 1], 0], (F(3, 4, 5),),
         lambda x: x[:, [0, 1], 0], eager=False),
    # NumPy: an int and an array index separated by a slice put the indexed axis first.
    Case("take", "getitem-separated-int-array", lambda x: x[0, :, [0, 1]], (F(3, 4, 5),),
         lambda x: x[0, :, [0, 1]], eager=False),
    Case("take", "getitem-traced-index", lambda x, i: x[i], (F(3, 2), I(4, lo=0, hi=2)), lambda x, i: x[i],
         eager=False),
    Case("take", "getitem-traced-index-with-slice", lambda x, i: x[1:, i], (F(3, 4), I(2, 2, lo=0, hi=3)),
         lambda x, i: x[1:, i], eager=False),
    # JAX: a traced index in [-n, 0) counts from the end, others are clamped into range.
    Case("take", "getitem-traced-out-of-range", lambda x, i: x[i], (F(4, 3), ROWS),
         lambda x, i: x[np.clip(np.where(i < 0, i + 4, i), 0, 3)], eager=False),
    Case("take", "getitem-traced-out-of-range-axis-1", lambda x, i: x[:, i[2:]], (F(2, 4), ROWS),
         lambda x, i: x[:, np.clip(np.where(i[2:] < 0, i[2:] + 4, i[2:]), 0, 3)], eager=False),
    Case("erfc", "gelu-exact", lambda x: fg.gelu(x, approximate=False), (F(3, 4, lo=-4, hi=4),),
         lambda x: x * (1 + erf_ref(x / np.sqrt(2))) / 2),
    # expand_dims / squeeze
    Case("reshape", "expand_dims", lambda x: fg.expand_dims(x, 1), (F(2, 3),), lambda x: np.expand_dims(x, 1)),
    Case("reshape", "expand_dims-tuple", lambda x: fg.expand_dims(x, (0, -1)), (F(2, 3),),
         lambda x: np.expand_dims(x, (0, -1))),
    Case("reshape", "squeeze-all", fg.squeeze, (F(1, 3, 1),), np.squeeze),
    Case("reshape", "squeeze-axis", lambda x: fg.squeeze(x, -1), (F(1, 3, 1),), lambda x: np.squeeze(x, -1)),
    Case("reshape", "squeeze-method", lambda x: x.squeeze(0), (I(1, 3),), lambda x: x.squeeze(0), eager=False),
    # mean, min, logsumexp
    Case("sum", "mean-all", fg.mean, (F(2, 3, 4),), np.mean),
    Case("sum", "mean-axis", lambda x: fg.mean(x, -2), (F(2, 3, 4),), lambda x: np.mean(x, -2)),
    Case("sum", "mean-tuple-keepdims", lambda x: fg.mean(x, (0, 2), keepdims=True), (F(2, 3, 4),),
         lambda x: np.mean(x, (0, 2), keepdims=True)),
    Case("sum", "mean-i32", lambda x: fg.mean(x, 0), (I(4, 3),), lambda x: np.mean(x, 0)),
    Case("min", "tuple-keepdims", lambda x: fg.min(x, (1, 2), keepdims=True), (F(2, 3, 4),),
         lambda x: np.min(x, (1, 2), keepdims=True)),
    Case("min", "method", lambda x: x.min(-1), (Fi(3, 4),), lambda x: x.min(-1), eager=False),
    Case("max", "logsumexp-all", fg.logsumexp, (F(2, 3),), logsumexp_ref),
    Case("max", "logsumexp-axis", lambda x: fg.logsumexp(x, -1), (F(2, 3, 4, lo=80, hi=120),),
         lambda x: logsumexp_ref(x, -1)),
    Case("max", "logsumexp-tuple-keepdims", lambda x: fg.logsumexp(x, (0, 2), keepdims=True), (F(2, 3, 4),),
         lambda x: logsumexp_ref(x, (0, 2), keepdims=True)),
    # one_hot, arange, causal_mask, clip
    Case("iota", "one_hot-traced", lambda y: fg.one_hot(y, 5), (LABELS,), lambda y: (y[:, None] == np.arange(5)) * 1.0),
    Case("iota", "one_hot-2d-i32", lambda y: fg.one_hot(y, 3, dtype="i32"), (I(2, 2, lo=0, hi=2),),
         lambda y: (y[..., None] == np.arange(3)).astype(np.int32)),
    Case("iota", "arange-start-stop-step", lambda: fg.arange(2, 11, 3), (), lambda: np.arange(2, 11, 3)),
    Case("iota", "arange-negative-step", lambda: fg.arange(5, 0, -1), (), lambda: np.arange(5, 0, -1)),
    Case("iota", "arange-float", lambda: fg.arange(0.5, 3.0), (), lambda: np.arange(0.5, 3.0)),
    Case("iota", "arange-float-step", lambda: fg.arange(0, 1, 0.25), (), lambda: np.arange(0, 1, 0.25)),
    Case("iota", "arange-dtype", lambda: fg.arange(4, dtype="f32"), (), lambda: np.arange(4, dtype=np.float64)),
    Case("iota", "causal-mask-1", lambda: fg.causal_mask(1), (), lambda: np.tril(np.ones((1, 1), bool))),
    Case("minimum", "clip-f32", lambda x: fg.clip(x, -0.5, 1.0), (F(3, 4),), lambda x: np.clip(x, -0.5, 1.0)),
    Case("minimum", "clip-i32", lambda x: fg.clip(x, -1, 2), (I(6),), lambda x: np.clip(x, -1, 2)),
    Case("minimum", "clip-bcast-bounds", fg.clip, (F(3, 4), F(3, 1, lo=-2, hi=0), F(4)),
         lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)),
    # where: broadcasting all three, non-bool cond
    Case("where", "bcast-all", fg.where, (B(2, 1, 1), F(3, 1), I(4)), np.where),
    Case("where", "scalar-cond", fg.where, (B(), F(2), F(2)), np.where),
    Case("where", "f32-cond-scalars", lambda c: fg.where(c, 1, -1), (Fi(5, lo=-1, hi=1),),
         lambda c: np.where(c != 0, 1, -1)),
    # symbolic dimensions: traced over T (max 8), run at 5
    Case("dim_size", "symbol-as-number", lambda x: x / x.shape[0] + x.shape[0], (F(5, 3),), lambda x: x / 5 + 5,
         eager=False, specs=(S(T, 3),)),
    Case("add", "symbolic-bcast", fg.add, (F(5, 3), F(3)), np.add, specs=(S(T, 3), S(3))),
    Case("reshape", "symbolic-split", lambda x: fg.reshape(x, (x.shape[0], 2, 3)), (F(5, 6),),
         lambda x: x.reshape(5, 2, 3), specs=(S(T, 6),)),
    Case("reshape", "symbolic-merge-inferred", lambda x: fg.reshape(x, (-1, 6)), (F(5, 2, 3),),
         lambda x: x.reshape(5, 6), specs=(S(T, 2, 3),)),
    Case("transpose", "symbolic", lambda x: fg.transpose(x), (F(5, 3),), np.transpose, specs=(S(T, 3),)),
    Case("sum", "symbolic-axis", lambda x: fg.sum(x, 0), (F(5, 3),), lambda x: np.sum(x, 0), specs=(S(T, 3),)),
    Case("max", "symbolic-axis", lambda x: fg.max(x, 0), (F(5, 3),), lambda x: np.max(x, 0), specs=(S(T, 3),)),
    Case("softmax", "symbolic-axis", lambda x: fg.softmax(x, axis=0), (F(5, 3),), lambda x: softmax_ref(x, 0),
         specs=(S(T, 3),)),
    Case("softmax", "symbolic-rows", fg.softmax, (F(5, 3),), softmax_ref, specs=(S(T, 3),)),
    Case("matmul", "symbolic-rows", fg.matmul, (F(5, 4), F(4, 3)), np.matmul, specs=(S(T, 4), S(4, 3))),
    Case("matmul", "symbolic-inner", lambda a, b: fg.matmul(fg.transpose(a), b), (F(5, 4), F(5, 3)),
         lambda a, b: a.T @ b, specs=(S(T, 4), S(T, 3))),
    Case("matmul", "symbolic-batch", fg.matmul, (F(5, 2, 4), F(5, 4, 3)), np.matmul, specs=(S(T, 2, 4), S(T, 4, 3))),
    Case("concatenate", "symbolic-fixed-axis", lambda a, b: fg.concatenate([a, b], axis=1), (F(5, 2), F(5, 3)),
         lambda a, b: np.concatenate([a, b], axis=1), specs=(S(T, 2), S(T, 3))),
    Case("take", "symbolic-indices", lambda x, i: fg.take(x, i, axis=0), (F(4, 3), I(5, lo=0, hi=3)),
         lambda x, i: np.take(x, i, axis=0), specs=(S(4, 3), S(T, dtype="i32"))),
    Case("take", "symbolic-axis", lambda x, i: fg.take(x, i, axis=0), (F(5, 3), I(4, lo=-5, hi=4)),
         lambda x, i: np.take(x, i, axis=0), specs=(S(T, 3), S(4, dtype="i32"))),
    Case("take", "getitem-last-of-symbol", lambda x: x[-1], (F(5, 3),), lambda x: x[-1], eager=False,
         specs=(S(T, 3),)),
    Case("iota", "arange-symbol", lambda x: x + fg.arange(x.shape[0]), (F(5),), lambda x: x + np.arange(5),
         eager=False, specs=(S(T),)),
    Case("iota", "causal-mask-symbol", lambda x: fg.where(fg.causal_mask(x.shape[0]), x, 0.0), (F(5, 5),),
         lambda x: np.where(np.tril(np.ones((5, 5), bool)), x, 0.0), eager=False, specs=(S(T, T),)),
)


# ---------------------------------------------------------------------------
# The dtype rows: f16 and u32
# ---------------------------------------------------------------------------
# Every float primitive has an f16 row and every integer one a u32 row. An f16 row's reference
# is the exact value (in float64) rounded once to float16, so `F16` allows fgrad's own
# roundings between: each op rounds to f16 as in JAX, and sums, dot products and special
# functions are computed in f32 (the dtype's `wide` one) and rounded back. u32 rows are exact
# (wrapping as NumPy's and JAX's uint32).


def convert_ref(dtype: str) -> Callable[[np.ndarray], np.ndarray]:
    """astype's meaning, as XLA's convert (so jnp's): float -> integer truncates toward zero and
    saturates, NaN giving 0; integer -> integer wraps; anything -> bool is x != 0."""

    def f(x: np.ndarray) -> np.ndarray:
        target = np.dtype(dtype)
        if target.kind in "iu" and x.dtype.kind == "f":
            info = np.iinfo(target)
            x = np.where(np.isnan(x), 0, np.clip(np.trunc(x.astype(np.float64)), info.min, info.max))
        with np.errstate(over="ignore"):
            return x.astype(target)

    return f


# Conversions' edge cases: NaN, infinities, halves, values past i32, u32 and f16 ranges, f16's subnormals.
EDGES = np.array([np.nan, np.inf, -np.inf, -1.5, -0.5, 0.5, 2.5, 3e9, -3e9, 65504, 70000, 1e-8, 6e-8,
                  4294967040.0, 4294967296.0, -0.0], np.float32)
with np.errstate(over="ignore"):
    EDGES_F16 = EDGES.astype(np.float16)
INT_EDGES = np.array([-1, 2**31 - 1, -2**31, 70000, 65504, 2049, 16777216, 0], np.int32)
UINT_EDGES = np.array([2**32 - 1, 2**31, 70000, 65504, 2049, 16777216, 1, 0], np.uint32)
C_F16 = np.array([0.1, -65504.0, 6e-8], np.float16)  # an odd count: 6 bytes in a buffer of 8
H_SPECIAL = np.array([np.inf, np.nan, 0.0, 6e-8, 0.75, 10.0], np.float16)
H_WITH_NAN = WITH_NAN.astype(np.float16)
ONES_F16 = np.ones(4096, np.float16)  # summed in f16, 2048 + 1 would stay 2048

F16_CASES: tuple[Case, ...] = (
    Case("constant", "f16-python-float", lambda x: fg.add(x, 0.1), (H(2, 3),), rounded(lambda x: x + np.float16(0.1)),
         **F16),
    Case("constant", "closed-f16-odd", lambda x: fg.multiply(x, C_F16), (H(2, 3),), rounded(lambda x: x * C_F16), **F16),
    Case("iota", "arange-f16", lambda: fg.arange(5, dtype="f16"), (), lambda: np.arange(5, dtype=np.float16)),
    Case("neg", "f16", fg.neg, (H(2, 3),), np.negative),
    Case("abs", "f16", fg.abs, (H(5),), np.abs),
    Case("exp", "f16", fg.exp, (H(3, 4),), rounded(np.exp), **F16),
    Case("log", "f16", fg.log, (PH(2, 3),), rounded(np.log), **F16),
    Case("sqrt", "f16", fg.sqrt, (PH(5),), rounded(np.sqrt), **F16),
    Case("rsqrt", "f16", fg.rsqrt, (PH(5),), rounded(lambda x: 1 / np.sqrt(x)), **F16),
    Case("sin", "f16", fg.sin, (H(2, 3, lo=-4, hi=4),), rounded(np.sin), **F16),
    Case("cos", "f16", fg.cos, (H(2, 3, lo=-4, hi=4),), rounded(np.cos), **F16),
    Case("tanh", "f16", fg.tanh, (H(2, 4, lo=-8, hi=8),), rounded(np.tanh), **F16),
    Case("sigmoid", "f16", fg.sigmoid, (H(2, 5, lo=-12, hi=12),), rounded(sigmoid_ref), **F16),
    Case("relu", "f16", fg.relu, (H(3, 3),), lambda x: np.maximum(x, np.float16(0))),
    Case("silu", "f16", fg.silu, (H(2, 5, lo=-8, hi=8),), rounded(lambda x: x * sigmoid_ref(x)), **F16),
    Case("gelu", "f16", fg.gelu, (H(2, 5, lo=-4, hi=4),), rounded(gelu_ref), **F16),
    Case("erf", "f16", fg.erf, (H(3, 4, lo=-3, hi=3),), rounded(erf_ref), **F16),
    Case("erf", "f16-inf-nan", lambda m: fg.erf(fg.where(m, H_SPECIAL, -H_SPECIAL)), (B(6),),
         rounded(lambda m: erf_ref(np.where(m, H_SPECIAL, -H_SPECIAL))), **F16),
    Case("isnan", "f16-special", lambda m: fg.isnan(fg.where(m, H_SPECIAL, -H_SPECIAL)), (B(6),),
         lambda m: np.isnan(np.where(m, H_SPECIAL, -H_SPECIAL))),
    Case("isinf", "f16-special", lambda m: fg.isinf(fg.where(m, H_SPECIAL, -H_SPECIAL)), (B(6),),
         lambda m: np.isinf(np.where(m, H_SPECIAL, -H_SPECIAL))),
    Case("integer_pow", "f16-cube", lambda x: fg.pow(x, 3), (H(5),), rounded(lambda x: x**3), **F16),
    Case("integer_pow", "f16-negative-exponent", lambda x: x ** -2, (H(4, lo=0.5, hi=2),), rounded(lambda x: x**-2.0),
         eager=False, **F16),
    Case("add", "f16", fg.add, (H(2, 3), H(3)), rounded(np.add), **F16),
    Case("add", "f16-f32-promotes", fg.add, (H(2, 3), F(3)), np.add),  # f16 + f32 is f32, as in JAX
    Case("add", "f16-i32-promotes", fg.add, (H(2, 3), I(3)), rounded(np.add), **F16),  # i32 + f16 is f16
    Case("sub", "f16-python-int", lambda x: x - 3, (H(4),), rounded(lambda x: x - 3), eager=False, **F16),
    Case("mul", "f16", fg.multiply, (H(2, 3), H(2, 3)), rounded(np.multiply), **F16),
    Case("div", "f16", fg.divide, (H(2, 3), H(2, 3, lo=0.5, hi=2)), rounded(np.divide), **F16),
    Case("pow", "f16", fg.pow, (PH(2, 3), H(2, 3)), rounded(np.power), **F16),
    Case("maximum", "f16-ties-nan", fg.maximum, (Hi(3, 4), H_WITH_NAN), np.maximum),
    Case("minimum", "f16-scalar", lambda x: fg.minimum(x, 0.5), (H(2, 3),), lambda x: np.minimum(x, np.float16(0.5))),
    Case("eq", "f16", fg.equal, (Hi(3, 4), Hi(3, 4)), np.equal),
    Case("ne", "f16", fg.not_equal, (Hi(2, 3), Hi(3)), np.not_equal),
    Case("lt", "f16", fg.less, (H(4), H(4)), np.less),
    Case("lt", "f16-f32", fg.less, (H(4), F(4)), np.less),
    Case("le", "f16", fg.less_equal, (Hi(3, 1), Hi(1, 3)), np.less_equal),
    Case("gt", "f16", fg.greater, (Hi(2, 3), Hi(2, 3)), np.greater),
    Case("ge", "f16-python", lambda x: x >= 0.5, (H(5),), lambda x: x >= 0.5, eager=False),
    Case("where", "f16", lambda c, x: fg.where(c, x, -1.5), (B(2, 3), H(2, 3)), lambda c, x: np.where(c, x, np.float16(-1.5))),
    Case("stop_gradient", "f16", fg.stop_gradient, (H(2, 3),), lambda x: x),
    Case("sum", "f16-all", fg.sum, (H(2, 3, 4),), rounded(np.sum), **F16),
    Case("sum", "f16-axis", lambda x: fg.sum(x, 1), (H(3, 70, 2),), rounded(lambda x: np.sum(x, 1)), **F16),
    Case("sum", "f16-accumulates-in-f32", fg.sum, (ONES_F16,), lambda x: np.float16(4096)),
    Case("sum", "f16-long-leading-axis", lambda x: fg.sum(x, 0), (H(512, 3),), rounded(lambda x: np.sum(x, 0)),
         **F16),  # two passes, both in f32
    Case("sum", "f16-mean", lambda x: fg.mean(x, -1), (H(3, 5),), rounded(lambda x: np.mean(x, -1)), **F16),
    Case("max", "f16-nan", lambda x: fg.max(x, -1), (H_WITH_NAN,), lambda x: np.max(x, -1)),
    Case("min", "f16-all", fg.min, (H(2, 3),), np.min),
    Case("argmax", "f16-nan-first", lambda x: fg.argmax(x, axis=-1), (H_WITH_NAN,), lambda x: np.argmax(x, -1)),
    Case("argmin", "f16-long-rows", lambda x: fg.argmin(x, 1), (Hi(2, 300, lo=-50, hi=50),), lambda x: np.argmin(x, 1)),
    Case("cumsum", "f16", lambda x: fg.cumsum(x, 1), (H(2, 5),), rounded(lambda x: np.cumsum(x, 1)), **F16),
    Case("cumsum", "f16-accumulates-in-f32", fg.cumsum, (ONES_F16,), lambda x: np.arange(1, 4097).astype(np.float16)),
    Case("cumsum", "f16-reverse-long", lambda x: fg.cumsum(x, 1, reverse=True), (H(2, 300),),
         rounded(lambda x: reverse_cumsum(x, 1)), **F16),
    Case("dynamic_slice", "f16-traced", lambda x, i: fg.dynamic_slice(x, (i, 1), (2, 3)), (H(4, 5), np.int32(3)),
         lambda x, i: dynamic_slice_ref(x, (i, 1), (2, 3))),
    Case("dynamic_update_slice", "f16", lambda x, u, i: fg.dynamic_update_slice(x, u, (i, 2)),
         (H(3, 4), H(2, 2), np.int32(1)), lambda x, u, i: dynamic_update_slice_ref(x, u, (i, 2))),
    Case("softmax", "f16", fg.softmax, (H(2, 5, lo=-4, hi=4),), rounded(softmax_ref), **F16),
    Case("softmax", "f16-long-rows", fg.softmax, (H(2, 300),), rounded(softmax_ref), **F16),
    Case("log_softmax", "f16", fg.log_softmax, (H(2, 5, lo=-4, hi=4),), rounded(log_softmax_ref), **F16),
    Case("reshape", "f16", lambda x: fg.reshape(x, (3, 2)), (H(2, 3),), lambda x: x.reshape(3, 2)),
    Case("transpose", "f16", fg.transpose, (H(2, 3, 5),), np.transpose),
    Case("broadcast_to", "f16", lambda x: fg.broadcast_to(x, (3, 5)), (H(5),), lambda x: np.broadcast_to(x, (3, 5))),
    Case("slice", "f16-odd", lambda x: x[1::2], (H(7),), lambda x: x[1::2], eager=False),
    Case("pad", "f16", lambda x: fg.pad(x, (1, 2), constant_values=0.1), (H(3),),
         lambda x: np.pad(x, (1, 2), constant_values=np.float16(0.1))),
    Case("concatenate", "f16-odd", lambda x, y: fg.concatenate([x, y]), (H(3), H(2)), lambda x, y: np.concatenate([x, y])),
    Case("matmul", "f16", fg.matmul, (H(3, 64, lo=-1, hi=1), H(64, 5, lo=-1, hi=1)), rounded(np.matmul), **F16),
    Case("matmul", "f16-batched", fg.matmul, (H(2, 3, 4, lo=-1, hi=1), H(2, 4, 5, lo=-1, hi=1)), rounded(np.matmul),
         **F16),
    Case("take", "f16-traced-fill", lambda x, i: fg.take(x, i, axis=0), (Hi(4, 2), ROWS),
         lambda x, i: take_fill_ref(x, i, np.nan), eager=False),
    Case("scatter_add", "f16", lambda u, i: fg.scatter_add(u, i, 3), (H(5, 2), I(5, lo=0, hi=2)),
         rounded(lambda u, i: scatter_add_ref(u, i, 3)), **F16),
    Case("astype", "f32-to-f16", lambda x: fg.astype(x, "f16"), (EDGES,), convert_ref("float16")),
    Case("astype", "f16-to-f32", lambda x: fg.astype(x, "f32"), (EDGES_F16,), lambda x: x.astype(np.float64)),
    Case("astype", "f16-to-i32", lambda x: fg.astype(x, "i32"), (EDGES_F16,), convert_ref("int32")),
    Case("astype", "f16-to-u32", lambda x: fg.astype(x, "u32"), (EDGES_F16,), convert_ref("uint32")),
    Case("astype", "f16-to-bool", lambda x: fg.astype(x, "bool"), (EDGES_F16,), convert_ref("bool")),
    Case("astype", "i32-to-f16", lambda x: fg.astype(x, "f16"), (INT_EDGES,), convert_ref("float16")),
    Case("astype", "u32-to-f16", lambda x: fg.astype(x, "f16"), (UINT_EDGES,), convert_ref("float16")),
    Case("astype", "bool-to-f16", lambda x: fg.astype(x, "f16"), (B(5),), convert_ref("float16")),
    # Through f16 and back to f32: a float -> float astype carries the gradient (the VJP column checks it).
    Case("astype", "f16-chain-exp", lambda x: fg.astype(fg.exp(fg.astype(x, "f16")), "f32"), (F(2, 3),),
         lambda x: np.exp(x.astype(np.float16)).astype(np.float16).astype(np.float64), **F16),
    Case("softmax", "f16-chain", lambda x: fg.astype(fg.softmax(fg.astype(x, "f16")) * 2.0, "f32"), (F(2, 5),),
         lambda x: rounded(softmax_ref)(x.astype(np.float16)).astype(np.float64) * 2, **F16),
    Case("matmul", "f16-chain", lambda a, b: fg.astype(fg.astype(a, "f16") @ fg.astype(b, "f16"), "f32"),
         (F(3, 4, lo=-1, hi=1), F(4, 2, lo=-1, hi=1)),
         lambda a, b: rounded(np.matmul)(a.astype(np.float16), b.astype(np.float16)).astype(np.float64), **F16),
    Case("take", "f16-chain", lambda x, i: fg.astype(fg.take(fg.astype(x, "f16"), i, axis=0) * 3.0, "f32"),
         (F(4, 2), I(3, lo=0, hi=3)), lambda x, i: np.take(x.astype(np.float16), i, axis=0).astype(np.float64) * 3,
         **F16),
    Case("maximum", "f16-chain", lambda x, y: fg.astype(fg.maximum(fg.astype(x, "f16"), fg.astype(y, "f16")), "f32"),
         (F(2, 3), F(2, 3)), lambda x, y: np.maximum(x.astype(np.float16), y.astype(np.float16)).astype(np.float64)),
    Case("max", "f16-chain", lambda x: fg.astype(fg.max(fg.astype(x, "f16"), 1), "f32"), (F(2, 3),),
         lambda x: np.max(x.astype(np.float16), 1).astype(np.float64)),
)

U32_CASES: tuple[Case, ...] = (
    Case("input", "u32", lambda x: x, (U(4),), lambda x: x),
    Case("constant", "u32-python-int", lambda x: fg.add(x, 4_000_000_000), (U(3),),
         lambda x: x + np.uint32(4_000_000_000)),  # fits u32, not i32: wraps on overflow
    Case("constant", "u32-minus-one-wraps", lambda x: fg.add(x, -1), (U(3),), lambda x: x + np.uint32(2**32 - 1)),
    Case("iota", "arange-u32", lambda: fg.arange(2, 7, dtype="u32"), (), lambda: np.arange(2, 7, dtype=np.uint32)),
    Case("neg", "u32-wraps", fg.neg, (U(4),), np.negative),
    Case("abs", "u32", fg.abs, (U(4),), np.abs),
    Case("relu", "u32", fg.relu, (U(4),), lambda x: x),
    Case("integer_pow", "u32", lambda x: fg.pow(x, 3), (U(5, hi=2000),), lambda x: x**3),  # wraps past 2^32
    Case("add", "u32", fg.add, (U(2, 3), U(3)), np.add),
    Case("add", "u32-i32-promotes", fg.add, (U(2, 3), I(3)), lambda x, y: x.astype(np.int32) + y),  # i32, as in JAX
    Case("add", "u32-f16-promotes", fg.add, (U(3), H(3)), rounded(np.add), **F16),  # f16, as in JAX
    Case("sub", "u32-wraps", fg.subtract, (U(5), U(5)), np.subtract),
    Case("mul", "u32", fg.multiply, (U(2, 3, hi=100000), U(3, hi=100000)), np.multiply),
    Case("div", "u32", fg.divide, (U(4), U(4, lo=1)), np.true_divide),
    Case("maximum", "u32", fg.maximum, (U(3, 1), U(1, 2)), np.maximum),
    Case("minimum", "u32", fg.minimum, (U(5), U(5)), np.minimum),
    Case("eq", "u32", fg.equal, (U(4), U(4)), np.equal),
    Case("ne", "u32", fg.not_equal, (U(4), U(4)), np.not_equal),
    Case("lt", "u32-large", lambda x: x < 3_000_000_000, (UINT_EDGES,), lambda x: x < 3_000_000_000, eager=False),
    Case("le", "u32", fg.less_equal, (U(3), U(3)), np.less_equal),
    Case("gt", "u32", fg.greater, (U(3), U(3)), np.greater),
    Case("ge", "u32", fg.greater_equal, (U(3), U(3)), np.greater_equal),
    Case("where", "u32", fg.where, (B(4), U(4), U(4)), np.where),
    Case("stop_gradient", "u32", fg.stop_gradient, (U(3),), lambda x: x),
    Case("sum", "u32", lambda x: fg.sum(x, 0), (U(3, 4),), lambda x: np.sum(x, 0, dtype=np.uint32)),
    Case("sum", "u32-wraps", fg.sum, (UINT_EDGES,), lambda x: np.sum(x, dtype=np.uint32)),
    Case("argmax", "u32", lambda x: fg.argmax(x, -1), (UINT_EDGES.reshape(2, 4),), lambda x: np.argmax(x, -1)),
    Case("argmin", "u32", fg.argmin, (U(3, 4),), np.argmin),
    Case("cumsum", "u32-wraps", fg.cumsum, (UINT_EDGES,), lambda x: np.cumsum(x, dtype=np.uint32)),
    Case("dynamic_slice", "u32", lambda x, i: fg.dynamic_slice(x, (i,), (2,)), (U(5), np.int32(-1)),
         lambda x, i: dynamic_slice_ref(x, (i,), (2,))),
    Case("dynamic_update_slice", "u32", lambda x, u, i: fg.dynamic_update_slice(x, u, (i,)), (U(5), U(2), np.int32(2)),
         lambda x, u, i: dynamic_update_slice_ref(x, u, (i,))),
    Case("max", "u32", lambda x: fg.max(x, -1), (UINT_EDGES.reshape(2, 4),), lambda x: np.max(x, -1)),
    Case("min", "u32", fg.min, (U(2, 3, lo=1),), np.min),
    Case("reshape", "u32", lambda x: fg.reshape(x, -1), (U(2, 3),), lambda x: x.reshape(-1)),
    Case("transpose", "u32", fg.transpose, (U(2, 3),), np.transpose),
    Case("broadcast_to", "u32", lambda x: fg.broadcast_to(x, (2, 3)), (U(3),), lambda x: np.broadcast_to(x, (2, 3))),
    Case("slice", "u32", lambda x: x[1:], (U(4),), lambda x: x[1:], eager=False),
    Case("pad", "u32", lambda x: fg.pad(x, 1, constant_values=4_000_000_000), (U(3),),
         lambda x: np.pad(x, 1, constant_values=4_000_000_000)),
    Case("concatenate", "u32", lambda x, y: fg.concatenate([x, y], -1), (U(2, 3), U(2, 1)),
         lambda x, y: np.concatenate([x, y], -1)),
    Case("concatenate", "u32-i32-promotes", lambda x, y: fg.concatenate([x, y]), (U(3), I(2)),
         lambda x, y: np.concatenate([x.astype(np.int32), y])),
    Case("matmul", "u32", fg.matmul, (U(2, 3), U(3, 2)), lambda a, b: np.matmul(a, b, dtype=np.uint32)),
    Case("take", "u32-values-fill", lambda x, i: fg.take(x, i, axis=0), (U(4, 2), ROWS),
         lambda x, i: take_fill_ref(x, i, 2**32 - 1), eager=False),  # JAX's fill for unsigned: the largest
    Case("take", "u32-indices", lambda x, i: fg.take(x, i, axis=0), (Fi(4, 2), np.array([3, 0, 7, 2**32 - 1], np.uint32)),
         lambda x, i: take_fill_ref(x, np.where(i < 4, i, 99), np.nan), eager=False),
    Case("take", "u32-indices-getitem", lambda x, i: x[i], (F(4, 3), np.array([1, 9, 0], np.uint32)),
         lambda x, i: x[np.clip(i, 0, 3)], eager=False),
    Case("scatter_add", "u32-indices", lambda u, i: fg.scatter_add(u, i, 3), (F(4, 2), np.array([2, 0, 2**32 - 1, 2], np.uint32)),
         lambda u, i: scatter_add_ref(u, np.where(i < 3, i, 99).astype(np.int64), 3), eager=False),
    Case("scatter_add", "u32-updates", lambda u, i: fg.scatter_add(u, i, 3, mode="clip"), (U(4, 2), U(4, hi=5)),
         lambda u, i: scatter_add_ref(u, np.clip(i, 0, 2), 3)),
    Case("iota", "one_hot-u32-labels", lambda y: fg.one_hot(y, 4), (np.array([0, 3, 9, 2**32 - 1], np.uint32),),
         lambda y: (y[:, None] == np.arange(4)) * 1.0),
    Case("astype", "f32-to-u32", lambda x: fg.astype(x, "u32"), (EDGES,), convert_ref("uint32")),
    Case("astype", "f32-to-i32-edges", lambda x: fg.astype(x, "i32"), (EDGES,), convert_ref("int32")),
    Case("astype", "u32-to-i32-wraps", lambda x: fg.astype(x, "i32"), (UINT_EDGES,), convert_ref("int32")),
    Case("astype", "i32-to-u32-wraps", lambda x: fg.astype(x, "u32"), (INT_EDGES,), convert_ref("uint32")),
    Case("astype", "u32-to-f32", lambda x: fg.astype(x, "f32"), (UINT_EDGES,), convert_ref("float32")),
    Case("astype", "u32-to-bool", lambda x: fg.astype(x, "bool"), (UINT_EDGES,), convert_ref("bool")),
    Case("astype", "bool-to-u32", lambda x: fg.astype(x, "u32"), (B(5),), convert_ref("uint32")),
)

# The NumPy surface's families, one file each in tests/op_rows/.
OP_CASES += tuple(row for family in FAMILIES for row in family.OP_ROWS)
API_CASES += tuple(row for family in FAMILIES for row in family.API_ROWS)
F16_CASES += tuple(row for family in FAMILIES for row in family.F16_ROWS)
U32_CASES += tuple(row for family in FAMILIES for row in family.U32_ROWS)
DTYPE_CASES = F16_CASES + U32_CASES
