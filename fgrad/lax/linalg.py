"""`jax.lax.linalg` as `fg.lax.linalg`: cholesky, lu (partial pivoting) and triangular_solve, with
JAX's names, arguments and results, and the helpers `fg.numpy.linalg` builds solve, inv, det and
slogdet on.

Each factorization is a `scan` with a static trip count over the rows or columns of the matrices
(all leading axes batched in every step), written with masks (`where` against an iota), sums and
matmuls, so it runs eagerly, traces, vmaps, exports to JAX and compiles to WGSL like any other
fgrad function, with no primitive of its own.

Derivatives are JAX's rules, not the loops': `cholesky`, `lu` and the triangular solve carry a
`custom_jvp` (forward mode runs the rule; reverse mode transposes it), and the tangent maps in
those rules solve through `_solve_lower_linear`, a `custom_vjp` whose backward pass is the
transposed triangular solve, so grad costs a few more solves rather than a reverse scan that
stacks every step's matrix.

Like JAX (on its CPU backend, LAPACK), a Cholesky factor of a matrix that is not positive definite
is NaN throughout its lower triangle; an LU factorization of a singular matrix leaves a zero
pivot's column unscaled; solving with a singular matrix gives infinities or NaNs. Only f32 is
factored: JAX's LAPACK kernels have no f16 either.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError, TraceError, name_errors_after
from fgrad.ir import Dim, DType
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _shape, asarray
from fgrad.trace import Tensor, user_site
from fgrad.transforms.control_flow import scan
from fgrad.transforms.custom import custom_jvp, custom_vjp

__all__ = ["cholesky", "lu", "lu_pivots_to_permutation", "triangular_solve"]

Value = Tensor | np.ndarray


# ---------------------------------------------------------------------------
# Argument checks, shared with fgrad.numpy.linalg
# ---------------------------------------------------------------------------


def _matrices(name: str, x: ArrayLike, what: str = "", square: bool = True) -> tuple[int, ...]:
    """The shape of `x`, checked to hold (square) matrices of static sizes in its last two axes."""
    shape = _shape(x)
    label = f"{what} " if what else ""
    if len(shape) < 2:
        raise ShapeError(f"{name}: {label}needs matrices in its last two axes, shape "
                         f"{'(..., m, m)' if square else '(..., m, n)'}, got {shape}",
                         user_site())
    if isinstance(shape[-1], Dim) or isinstance(shape[-2], Dim):
        raise ShapeError(f"{name}: the matrix axes of {label}{shape} must have static sizes (the factorization "
                         "loops over them)", user_site())
    if square and shape[-1] != shape[-2]:
        raise ShapeError(f"{name}: {label}must be square matrices in its last two axes, got shape {shape}",
                         user_site())
    return shape


def _float_operands(name: str, *xs: ArrayLike, promote: bool) -> list[Value]:
    """`xs` as arrays of one float dtype: promoted as jax.numpy (integers to f32) with `promote`,
    else (jax.lax) they must already be floats of one dtype. f16 is refused, as JAX's LAPACK
    kernels refuse it."""
    dtypes = [_dtype(x) for x in xs]
    if promote:
        dt = fnp.result_type(*xs)
        dt = dt if dt.is_float else DType.f32
    else:
        for k, d in enumerate(dtypes):
            if not d.is_float:
                raise DTypeError(f"{name}: operand {k} has dtype {d}; jax.lax.linalg takes floats (convert with "
                                 "astype, or use fg.numpy.linalg, which promotes integers)", user_site())
        if len(set(dtypes)) > 1:
            raise DTypeError(f"{name}: the operands must share one dtype, got {', '.join(map(str, dtypes))}",
                             user_site())
        dt = dtypes[0]
    if dt is not DType.f32:
        raise DTypeError(f"{name}: dtype {dt} is not supported (as in JAX, whose LAPACK kernels have no half "
                         "precision); convert to f32", user_site())
    return [asarray(x, dt) for x in xs]


def _flag(name: str, flag: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TraceError(f"{name}: {flag} must be True or False, got {_brief(value)}", user_site())
    return bool(value)


def _t(x: Value) -> Value:
    return fnp.swapaxes(x, -1, -2)


def _reversed(x: Value) -> Value:
    """x with the order of its rows and columns reversed: P x P for the reversal P, which turns an
    upper-triangular matrix into a lower-triangular one."""
    return fnp.flip(x, (-2, -1))


# ---------------------------------------------------------------------------
# Triangular solves
# ---------------------------------------------------------------------------


def _forward_substitution(a: Value, b: Value) -> Value:
    """x with a @ x = b, for lower-triangular a (..., m, m) holding zeros above its diagonal and
    b (..., m, n) with a's leading axes: row i of x is (b_i - a_i @ x) / a_ii, where the rows of x
    not yet solved are still zero."""
    m = _shape(a)[-1]
    index = fnp.arange(m)[:, None]

    def step(x: Value, row: tuple[Value, ...]) -> tuple[Value, None]:
        i, a_i, a_ii, b_i = row
        x_i = (b_i - fnp.matmul(a_i[..., None, :], x)[..., 0, :]) / a_ii[..., None]
        return fnp.where(index == i, x_i[..., None, :], x), None

    rows = (fnp.arange(m), fnp.moveaxis(a, -2, 0), fnp.moveaxis(fnp.diagonal(a, 0, -2, -1), -1, 0),
            fnp.moveaxis(b, -2, 0))
    return scan(step, fnp.zeros_like(b), rows)[0]


def _back_substitution(a: Value, b: Value) -> Value:
    """x with a @ x = b for upper-triangular a: forward substitution with rows and columns reversed."""
    return fnp.flip(_forward_substitution(_reversed(a), fnp.flip(b, -2)), -2)


# The linear map b -> a^-1 b of a lower-triangular a, for the tangents of the rules below: its
# transpose is the solve with a^T, an upper-triangular (back) substitution; a's cotangent is
# -tril(a^-T g x^T).
@custom_vjp
def _solve_lower_linear(a: Value, b: Value) -> Value:
    return _forward_substitution(a, b)


def _solve_lower_linear_fwd(a: Value, b: Value) -> tuple[Value, tuple[Value, Value]]:
    x = _forward_substitution(a, b)
    return x, (a, x)


def _solve_lower_linear_bwd(residuals: tuple[Value, Value], g: Value) -> tuple[Value, Value]:
    a, x = residuals
    ct_b = _back_substitution(_t(a), g)
    return -fnp.tril(fnp.matmul(ct_b, _t(x))), ct_b


_solve_lower_linear.defvjp(_solve_lower_linear_fwd, _solve_lower_linear_bwd)


def _solve_upper_linear(a: Value, b: Value) -> Value:
    """a^-1 b for upper-triangular a, linear in b (reversed, a lower-triangular solve)."""
    return fnp.flip(_solve_lower_linear(_reversed(a), fnp.flip(b, -2)), -2)


# d(a^-1 b) = a^-1 (db - da x): a's tangent is zero above the diagonal, as a is.
@custom_jvp
def _solve_lower(a: Value, b: Value) -> Value:
    return _forward_substitution(a, b)


@_solve_lower.defjvp
def _solve_lower_jvp(primals: tuple[Value, Value], tangents: tuple[Value, Value]) -> tuple[Value, Value]:
    a, b = primals
    da, db = tangents
    x = _solve_lower(a, b)
    return x, _solve_lower_linear(a, db - fnp.matmul(da, x))


def triangular_solve(a: ArrayLike, b: ArrayLike, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False, unit_diagonal: bool = False) -> Value:
    """Solve op(a) @ x = b (`left_side`) or x @ op(a) = b for x, a triangular, as
    `jax.lax.linalg.triangular_solve`.

    Args:
        a: f32 matrices (..., m, m); only the triangle named by `lower` is read.
        b: (..., m, n) with `left_side`, else (..., n, m), with a's leading axes; or one vector per
            matrix, (..., m), when b has one axis fewer than a.
        left_side: which of the two equations to solve.
        lower: whether a is lower (else upper) triangular; the other triangle is ignored.
        transpose_a: op(a) = a^T.
        conjugate_a: conjugate a (no effect: fgrad's floats are real).
        unit_diagonal: take a's diagonal as ones, without reading it.
    Returns:
        x, with b's shape and dtype.
    """
    name = "triangular_solve"
    flags = {k: _flag(name, k, v) for k, v in (("left_side", left_side), ("lower", lower),
                                               ("transpose_a", transpose_a), ("conjugate_a", conjugate_a),
                                               ("unit_diagonal", unit_diagonal))}
    a_shape = _matrices(name, a, "a")
    b_shape = _shape(b)
    a, b = _float_operands(name, a, b, promote=False)
    vector = len(b_shape) == len(a_shape) - 1
    if vector:
        b = fnp.expand_dims(b, -1 if left_side else -2)
    shape = _shape(b)
    m = a_shape[-1]
    if len(shape) != len(a_shape) or shape[:-2] != a_shape[:-2] or shape[-2 if left_side else -1] != m:
        want = "(..., m, n)" if left_side else "(..., n, m)"
        raise ShapeError(f"{name}: incompatible shapes {a_shape} and {b_shape}: with left_side={flags['left_side']}, "
                         f"b must be {want} (or (..., m)) with a's leading axes {a_shape[:-2]} and m = {m}",
                         user_site())
    keep = fnp.tri(m, m, 0 if lower else -1, dtype=DType.bool)
    a = fnp.where(keep if lower else fnp.logical_not(keep), a, 0.0)
    if unit_diagonal:
        a = fnp.where(fnp.eye(m, dtype=DType.bool), 1.0, a)
    lower_now = lower != transpose_a  # the triangle op(a) has
    if transpose_a:
        a = _t(a)
    if not left_side:  # x op(a) = b  <=>  op(a)^T x^T = b^T
        a, b, lower_now = _t(a), _t(b), not lower_now
    x = _solve_lower(a, b) if lower_now else fnp.flip(_solve_lower(_reversed(a), fnp.flip(b, -2)), -2)
    if not left_side:
        x = _t(x)
    if vector:
        x = x[..., 0] if left_side else x[..., 0, :]
    return x


# ---------------------------------------------------------------------------
# Cholesky
# ---------------------------------------------------------------------------


def _cholesky_loop(a: Value) -> Value:
    """The lower Cholesky factor of symmetric a (..., n, n), column by column (right-looking: each
    step scales a column by the square root of its pivot and subtracts its outer product from the
    rest); NaN throughout the lower triangle where a pivot is not positive, as JAX's."""
    n = _shape(a)[-1]
    index, cols = fnp.arange(n), fnp.arange(n)

    def step(carry: tuple[Value, Value], k: Value) -> tuple[tuple[Value, Value], None]:
        a, ok = carry
        col = fnp.sum(fnp.where(cols == k, a, 0.0), axis=-1)
        pivot = fnp.sum(fnp.where(index == k, col, 0.0), axis=-1)
        ok = fnp.logical_and(ok, pivot > 0)
        root = fnp.sqrt(fnp.where(pivot > 0, pivot, 1.0))[..., None]
        below = fnp.where(index > k, col / root, 0.0)
        a = a - below[..., :, None] * below[..., None, :]
        a = fnp.where(cols == k, fnp.where(index == k, root, below)[..., :, None], a)
        return (a, ok), None

    a, ok = scan(step, (a, fnp.full(_shape(a)[:-2], True)), fnp.arange(n))[0]
    return fnp.tril(fnp.where(ok[..., None, None], a, np.float32(np.nan)))


# dL = L phi(L^-1 dA L^-T), phi taking the lower triangle with the diagonal halved (JAX's rule,
# from Murray, arXiv:1602.07527).
@custom_jvp
def _cholesky(a: Value) -> Value:
    return _cholesky_loop(a)


@_cholesky.defjvp
def _cholesky_jvp(primals: tuple[Value], tangents: tuple[Value]) -> tuple[Value, Value]:
    (a,), (da,) = primals, tangents
    factor = _cholesky(a)
    n = _shape(a)[-1]
    inner = _t(_solve_lower_linear(factor, _t(_solve_lower_linear(factor, da))))
    phi = fnp.tril(inner) * fnp.where(fnp.eye(n, dtype=DType.bool), np.float32(0.5), np.float32(1.0))
    return factor, fnp.matmul(factor, phi)


def cholesky(x: ArrayLike, *, symmetrize_input: bool = True) -> Value:
    """The lower Cholesky factor L (L @ L^T = x) of symmetric positive-definite matrices
    (..., n, n), as `jax.lax.linalg.cholesky`: zeros above the diagonal; NaN in the whole lower
    triangle of a matrix that is not positive definite.

    Args:
        x: the matrices (integers are converted to f32, as JAX's (x + x^T) / 2 does).
        symmetrize_input: factor (x + x^T) / 2 (both triangles read); else only x's lower
            triangle is read, the upper taken as its mirror.
    """
    name = "cholesky"
    symmetrize_input = _flag(name, "symmetrize_input", symmetrize_input)
    _matrices(name, x, "x")
    x, = _float_operands(name, x, promote=symmetrize_input)
    if symmetrize_input:
        x = (x + _t(x)) / 2.0
    else:
        x = fnp.tril(x) + _t(fnp.tril(x, -1))
    return _cholesky(x)


# ---------------------------------------------------------------------------
# LU with partial pivoting
# ---------------------------------------------------------------------------


def _lu_loop(a: Value) -> tuple[Value, Value, Value]:
    """(lu, pivots, permutation) of a (..., m, n) by Gaussian elimination with partial pivoting:
    step j swaps row j with the row at or below it whose entry in column j is largest in magnitude
    (the first of equals, as LAPACK's getrf), then eliminates below it. A zero pivot leaves its
    column unscaled (it is zero below the pivot), as getrf does."""
    shape = _shape(a)
    m, n = shape[-2:]
    rows, cols, index = fnp.arange(m)[:, None], fnp.arange(n), fnp.arange(m)

    def step(carry: tuple[Value, Value], j: Value) -> tuple[tuple[Value, Value], Value]:
        a, perm = carry
        col = fnp.sum(fnp.where(cols == j, a, 0.0), axis=-1)
        p = fnp.argmax(fnp.where(index >= j, fnp.abs(col), -1.0), axis=-1)
        at_p = rows == p[..., None, None]
        row_j = fnp.sum(fnp.where(rows == j, a, 0.0), axis=-2)
        row_p = fnp.sum(fnp.where(at_p, a, 0.0), axis=-2)
        a = fnp.where(rows == j, row_p[..., None, :], fnp.where(at_p, row_j[..., None, :], a))
        perm_j = fnp.sum(fnp.where(index == j, perm, 0), axis=-1)
        perm_p = fnp.sum(fnp.where(index == p[..., None], perm, 0), axis=-1)
        perm = fnp.where(index == j, perm_p[..., None], fnp.where(index == p[..., None], perm_j[..., None], perm))
        col = fnp.sum(fnp.where(cols == j, a, 0.0), axis=-1)  # column j, rows swapped
        pivot = fnp.sum(fnp.where(cols == j, row_p, 0.0), axis=-1)[..., None]
        factors = fnp.where(index > j, col / fnp.where(pivot == 0, 1.0, pivot), 0.0)
        a = a - factors[..., :, None] * fnp.where(cols > j, row_p, 0.0)[..., None, :]
        a = fnp.where(fnp.logical_and(cols == j, rows > j), factors[..., :, None], a)
        return (a, perm), p

    perm = fnp.broadcast_to(fnp.arange(m), (*shape[:-2], m))
    if min(m, n) == 0:  # nothing to eliminate (and no column to search)
        return a, fnp.zeros((*shape[:-2], 0), DType.i32), perm
    (lu, perm), pivots = scan(step, (a, perm), fnp.arange(min(m, n)))
    return lu, fnp.moveaxis(pivots, 0, -1), perm


def _unit_lower(lu: Value) -> Value:
    """L of a packed LU factorization of (..., m, n): its strict lower triangle with ones on the
    diagonal, as (..., m, m) (zero columns past min(m, n))."""
    m, n = _shape(lu)[-2:]
    k = min(m, n)
    strict = fnp.tril(lu[..., :, :k], -1)
    if m > k:
        strict = fnp.concatenate([strict, fnp.zeros((*_shape(lu)[:-1], m - k), _dtype(lu))], axis=-1)
    return strict + fnp.eye(m, dtype=_dtype(lu))


def _upper(lu: Value) -> Value:
    """U of a packed LU factorization of (..., m, n), as (..., n, n): the upper triangle of its
    first min(m, n) rows, then rows of the identity."""
    m, n = _shape(lu)[-2:]
    k = min(m, n)
    upper = fnp.triu(lu[..., :k, :])
    if n > k:
        upper = fnp.concatenate([upper, fnp.broadcast_to(fnp.eye(n, dtype=_dtype(lu))[k:], (*_shape(lu)[:-2], n - k, n))],
                                axis=-2)
    return upper


# With a[perm] = L U: inv(L) a'[perm] inv(U) = inv(L) L' + U' inv(U), a strictly lower plus an upper
# triangle, so L' = L tril(., -1) and U' = triu(.) U (JAX's rule, after De Hoog, Anderssen and Lukas).
@custom_jvp
def _lu(a: Value) -> tuple[Value, Value, Value]:
    return _lu_loop(a)


@_lu.defjvp
def _lu_jvp(primals: tuple[Value], tangents: tuple[Value]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    lu, pivots, perm = _lu(a)
    lower, upper = _unit_lower(lu), _upper(lu)
    inner = _solve_lower_linear(lower, _permuted_rows(da, perm))
    inner = _t(_solve_lower_linear(_t(upper), _t(inner)))  # inner @ inv(U)
    d_lu = fnp.matmul(lower, fnp.tril(inner, -1)) + fnp.matmul(fnp.triu(inner), upper)
    return (lu, pivots, perm), (d_lu, fnp.zeros_like(pivots), fnp.zeros_like(perm))


def _permuted_rows(x: Value, perm: Value) -> Value:
    """x[..., perm, :]: row i of the result is row perm[i] of x, for each matrix."""
    return fnp.take_along_axis(x, perm[..., :, None], axis=-2)


def lu(x: ArrayLike) -> tuple[Value, Value, Value]:
    """LU decomposition with partial pivoting, P x = L U, as `jax.lax.linalg.lu`.

    Args:
        x: f32 matrices (..., m, n), square or not.
    Returns:
        `(lu, pivots, permutation)`: `lu` (..., m, n) holds U in its upper triangle and L (unit
        diagonal, not stored) below it; `pivots` (..., min(m, n)) i32, row i was swapped with row
        pivots[i] at step i; `permutation` (..., m) i32, x[..., permutation, :] = L @ U.
    """
    _matrices("lu", x, "x", square=False)
    x, = _float_operands("lu", x, promote=False)
    return _lu(x)


def lu_pivots_to_permutation(pivots: ArrayLike, permutation_size: int) -> Value:
    """The permutation that the row swaps `pivots` (..., k) (row i with row pivots[i], in order)
    make of range(permutation_size), as `jax.lax.linalg.lu_pivots_to_permutation`: i32
    (..., permutation_size)."""
    name = "lu_pivots_to_permutation"
    shape = _shape(pivots)
    if isinstance(permutation_size, bool) or not isinstance(permutation_size, (int, np.integer)):
        raise TraceError(f"{name}: permutation_size must be a static integer, got {_brief(permutation_size)}",
                         user_site())
    if not shape or isinstance(shape[-1], Dim) or shape[-1] > permutation_size:
        raise ShapeError(f"{name}: pivots must have a last axis of at most permutation_size={permutation_size}, "
                         f"got shape {shape}", user_site())
    if _dtype(pivots) is not DType.i32:
        raise DTypeError(f"{name}: pivots must be i32, got {_dtype(pivots)}", user_site())
    m = int(permutation_size)
    index = fnp.arange(m)

    def step(perm: Value, swap: tuple[Value, Value]) -> tuple[Value, None]:
        i, p = swap
        at_i = fnp.sum(fnp.where(index == i, perm, 0), axis=-1)[..., None]
        at_p = fnp.sum(fnp.where(index == p[..., None], perm, 0), axis=-1)[..., None]
        return fnp.where(index == i, at_p, fnp.where(index == p[..., None], at_i, perm)), None

    pivots = asarray(pivots)
    start = fnp.broadcast_to(index, (*shape[:-1], m))
    return scan(step, start, (fnp.arange(shape[-1]), fnp.moveaxis(pivots, -1, 0)))[0]


# ---------------------------------------------------------------------------
# Solving with a factorization (for fgrad.numpy.linalg)
# ---------------------------------------------------------------------------


def _lu_solve(lu: Value, perm: Value, b: Value) -> Value:
    """a^-1 b from a's packed LU factors and permutation, for b (..., m, n) with their leading axes;
    linear in b."""
    x = _solve_lower_linear(_unit_lower(lu), _permuted_rows(b, perm))
    return _solve_upper_linear(fnp.triu(lu), x)


# d(a^-1 b) = a^-1 (db - da x), solved with the factors of a (jax.lax.custom_linear_solve's rule).
@custom_jvp
def _solve(a: Value, b: Value) -> Value:
    lu, _, perm = _lu(a)
    return _lu_solve(lu, perm, b)


@_solve.defjvp
def _solve_jvp(primals: tuple[Value, Value], tangents: tuple[Value, Value]) -> tuple[Value, Value]:
    a, b = primals
    da, db = tangents
    lu, _, perm = _lu(a)
    x = _lu_solve(lu, perm, b)
    return x, _lu_solve(lu, perm, db - fnp.matmul(da, x))


# d log|det a| = trace(a^-1 da); the sign is piecewise constant (JAX's rule).
@custom_jvp
def _slogdet(a: Value) -> tuple[Value, Value]:
    lu, pivots, _ = _lu(a)
    n = _shape(a)[-1]
    diag = fnp.diagonal(lu, 0, -2, -1)
    singular = fnp.any(diag == 0, axis=-1)
    swaps = fnp.count_nonzero(pivots != fnp.arange(n), axis=-1) + fnp.count_nonzero(diag < 0, axis=-1)
    sign = fnp.where(singular, 0.0, fnp.where(swaps % 2 == 1, -1.0, 1.0))
    logabsdet = fnp.where(singular, -np.inf, fnp.sum(fnp.log(fnp.abs(diag)), axis=-1))
    return fnp.astype(sign, _dtype(a)), logabsdet


@_slogdet.defjvp
def _slogdet_jvp(primals: tuple[Value], tangents: tuple[Value]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    sign, logabsdet = _slogdet(a)
    return (sign, logabsdet), (fnp.zeros_like(sign), fnp.trace(_solve(a, da), 0, -2, -1))


# d det a = det a * trace(a^-1 da).
@custom_jvp
def _det(a: Value) -> Value:
    sign, logabsdet = _slogdet(a)
    return sign * fnp.exp(logabsdet)


@_det.defjvp
def _det_jvp(primals: tuple[Value], tangents: tuple[Value]) -> tuple[Value, Value]:
    (a,), (da,) = primals, tangents
    det = _det(a)
    return det, det * fnp.trace(_solve(a, da), 0, -2, -1)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
