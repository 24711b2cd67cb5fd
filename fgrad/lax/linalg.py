"""`jax.lax.linalg` as `fg.lax.linalg`: cholesky, lu (partial pivoting), triangular_solve, qr
(Householder, optionally column-pivoted; householder_product for its packed form), eigh
and svd (Jacobi rotations), with JAX's names, arguments and results, and the helpers
`fg.numpy.linalg` builds solve, inv, det, slogdet, pinv, lstsq and the spectral norms on.

Each factorization is a `scan` with a static trip count over the rows or columns of the matrices,
or over the rounds of a fixed number of Jacobi sweeps (all leading axes batched in every step),
written with masks (`where` against an iota), sums and matmuls, so it runs eagerly, traces,
vmaps, exports to JAX and compiles to WGSL like any other fgrad function, with no primitive of
its own. QR gives LAPACK's signs; eigenvectors and singular vectors have arbitrary signs.

Derivatives are JAX's rules, not the loops': `cholesky`, `lu`, `qr`, `eigh`, `svd` and the
triangular solve carry a `custom_jvp` (forward mode runs the rule; reverse mode transposes it),
and the tangent maps in those rules solve through `_solve_lower_linear`, a `custom_vjp` whose
backward pass is the transposed triangular solve, so grad costs a few more solves rather than a
reverse scan that stacks every step's matrix.

Like JAX (on its CPU backend, LAPACK), a Cholesky factor of a matrix that is not positive definite
is NaN throughout its lower triangle; an LU factorization of a singular matrix leaves a zero
pivot's column unscaled; solving with a singular matrix gives infinities or NaNs. Only f32 is
factored: JAX's LAPACK kernels have no f16 either.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError, TraceError, name_errors_after
from fgrad.ir import Dim, DType
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _shape, asarray
from fgrad.trace import Tensor, user_site
from fgrad.transforms.control_flow import scan
from fgrad.transforms.custom import custom_jvp, custom_vjp

__all__ = ["cholesky", "eigh", "householder_product", "lu", "lu_pivots_to_permutation", "qr", "svd",
           "triangular_solve"]

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
# QR by Householder reflections
# ---------------------------------------------------------------------------


def _geqrf_loop(a: Value, pivoting: bool) -> tuple[Value, Value, Value]:
    """(packed, taus, jpvt) of a (..., m, n) as LAPACK's geqrf (geqp3 with `pivoting`): step j
    reflects column j's entries at and below the diagonal onto beta e_j with H = I - tau v v^T,
    v_j = 1, beta = -sign(a_jj) |x| (dlarfg's choice; no reflection, tau = 0, where the entries
    below the diagonal are already zero). `packed` holds R on and above the diagonal and the v's
    below it. With `pivoting`, step j first swaps column j with the column at or after it whose
    entries at and below row j have the largest norm (the first of equals); jpvt (..., n) i32 are
    the original columns in their new order."""
    shape = _shape(a)
    m, n = shape[-2:]
    rows, cols, index = fnp.arange(m)[:, None], fnp.arange(n), fnp.arange(m)

    def step(carry: tuple[Value, Value], j: Value) -> tuple[tuple[Value, Value], Value]:
        a, jpvt = carry
        if pivoting:
            norms = fnp.sum(fnp.where(rows >= j, a * a, 0.0), axis=-2)
            p = fnp.argmax(fnp.where(cols >= j, norms, -1.0), axis=-1)[..., None]
            col_j = fnp.sum(fnp.where(cols == j, a, 0.0), axis=-1)[..., :, None]
            col_p = fnp.sum(fnp.where(cols == p[..., None], a, 0.0), axis=-1)[..., :, None]
            a = fnp.where(cols == j, col_p, fnp.where(cols == p[..., None], col_j, a))
            at_j = fnp.sum(fnp.where(cols == j, jpvt, 0), axis=-1)[..., None]
            at_p = fnp.sum(fnp.where(cols == p, jpvt, 0), axis=-1)[..., None]
            jpvt = fnp.where(cols == j, at_p, fnp.where(cols == p, at_j, jpvt))
        col = fnp.sum(fnp.where(cols == j, a, 0.0), axis=-1)
        alpha = fnp.sum(fnp.where(index == j, col, 0.0), axis=-1)
        below = fnp.where(index > j, col, 0.0)
        xnorm = fnp.sqrt(fnp.sum(below * below, axis=-1))
        reflect = xnorm != 0
        beta = -fnp.copysign(fnp.sqrt(alpha * alpha + xnorm * xnorm), alpha)
        safe_beta = fnp.where(reflect, beta, 1.0)
        tau = fnp.where(reflect, (beta - alpha) / safe_beta, 0.0)
        v = fnp.where(index == j, 1.0, below / fnp.where(reflect, alpha - beta, 1.0)[..., None])
        w = fnp.matmul(v[..., None, :], a)[..., 0, :]  # v^T a
        a = a - tau[..., None, None] * v[..., :, None] * fnp.where(cols > j, w, 0.0)[..., None, :]
        diagonal = fnp.where(reflect, beta, alpha)[..., None, None]
        a = fnp.where(cols == j, fnp.where(rows == j, diagonal, fnp.where(rows > j, v[..., :, None], a)), a)
        return (a, jpvt), tau

    jpvt = fnp.broadcast_to(fnp.arange(n), (*shape[:-2], n))
    if min(m, n) == 0:
        return a, fnp.zeros((*shape[:-2], 0), _dtype(a)), jpvt
    (packed, jpvt), taus = scan(step, (a, jpvt), fnp.arange(min(m, n)))
    return packed, fnp.moveaxis(taus, 0, -1), jpvt


def _householder_product(packed: Value, taus: Value, width: int) -> Value:
    """The first `width` columns of H_0 H_1 ... H_(k-1), the reflectors whose v's lie below the
    diagonal of `packed` (..., m, >= k) and whose taus are (..., k): LAPACK's orgqr, applying them
    to the identity's columns from the last to the first."""
    m = _shape(packed)[-2]
    k = _shape(taus)[-1]
    cols, index = fnp.arange(_shape(packed)[-1]), fnp.arange(m)
    q = fnp.broadcast_to(fnp.eye(m, width, dtype=_dtype(packed)), (*_shape(packed)[:-2], m, width))

    def step(q: Value, reflector: tuple[Value, Value]) -> tuple[Value, None]:
        i, tau = reflector
        col = fnp.sum(fnp.where(cols == i, packed, 0.0), axis=-1)
        v = fnp.where(index == i, 1.0, fnp.where(index > i, col, 0.0))
        w = fnp.matmul(v[..., None, :], q)  # v^T q, (..., 1, width)
        return q - tau[..., None, None] * v[..., :, None] * w, None

    if k == 0:
        return q
    return scan(step, q, (fnp.arange(k)[::-1], fnp.moveaxis(taus, -1, 0)[::-1]))[0]


def _geqrf(a: ArrayLike) -> tuple[Value, Value]:
    """The Householder QR factorization of f32 matrices (..., m, n) in LAPACK's packed form, as
    JAX's internal geqrf (jnp.linalg.qr's mode 'raw'): `(a, taus)`, R on and above the diagonal
    of `a` and the reflectors' vectors (their leading 1 not stored) below it; taus
    (..., min(m, n))."""
    _matrices("qr", a, "a", square=False)
    a, = _float_operands("qr", a, promote=False)
    packed, taus, _ = _geqrf_loop(a, False)
    return packed, taus


def householder_product(a: ArrayLike, taus: ArrayLike) -> Value:
    """The product of the Householder reflectors packed below the diagonal of a (..., m, n),
    m >= n (jnp.linalg.qr's mode 'raw', transposed), with taus (..., k), k <= n, as
    `jax.lax.linalg.householder_product` (LAPACK's orgqr): the first n columns of Q, (..., m, n)."""
    name = "householder_product"
    shape, t_shape = _matrices(name, a, "a", square=False), _shape(taus)
    if shape[-2] < shape[-1] or len(t_shape) != len(shape) - 1 or t_shape[:-1] != shape[:-2] \
            or t_shape[-1] > shape[-1]:
        raise ShapeError(f"{name}: a must be (..., m, n) with m >= n and taus (..., k) with k <= n and a's leading "
                         f"axes, got {shape} and {t_shape}", user_site())
    a, taus = _float_operands(name, a, taus, promote=False)
    return _householder_product(a, taus, shape[-1])


def _qr_loop(x: Value, pivoting: bool, full_matrices: bool) -> tuple[Value, ...]:
    """(q, r, jpvt) of x (..., m, n): geqrf, then q from its reflectors (orgqr) and r the upper
    triangle, as JAX lowers its qr."""
    m, n = _shape(x)[-2:]
    k = m if full_matrices else min(m, n)
    packed, taus, jpvt = _geqrf_loop(x, pivoting)
    q = _householder_product(packed, taus, k)
    return q, fnp.triu(packed[..., :k, :]), jpvt


def _thin_qr_jvp(q: Value, r: Value, dx: Value) -> tuple[Value, Value]:
    """dq, dr of x = q r, x (..., m, n) with m >= n, q (..., m, n), r (..., n, n) (JAX's rule, after
    j-towns.github.io/papers/qr-derivative.pdf)."""
    dx_rinv = _t(_solve_lower_linear(_t(r), _t(dx)))  # dx r^-1
    qt_dx_rinv = fnp.matmul(_t(q), dx_rinv)
    lower = fnp.tril(qt_dx_rinv, -1)
    do = lower - _t(lower)  # skew-symmetric
    return fnp.matmul(q, do - qt_dx_rinv) + dx_rinv, fnp.matmul(qt_dx_rinv - do, r)


@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
def _qr(x: Value, pivoting: bool, full_matrices: bool) -> tuple[Value, ...]:
    return _qr_loop(x, pivoting, full_matrices)


@_qr.defjvp
def _qr_jvp(pivoting: bool, full_matrices: bool, primals: tuple[Value], tangents: tuple[Value]) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    q, r, jpvt = _qr(x, pivoting, full_matrices)
    m, n = _shape(x)[-2:]
    if pivoting:
        dx = fnp.take_along_axis(dx, fnp.broadcast_to(jpvt[..., None, :], _shape(dx)), axis=-1)
    if m < n:  # x = q [r1 r2]: r1 is the square case's, r2 = q^T x2
        dq, dr1 = _thin_qr_jvp(q, r[..., :, :m], dx[..., :, :m])
        dr = fnp.concatenate([dr1, fnp.matmul(_t(dq), x[..., :, m:]) + fnp.matmul(_t(q), dx[..., :, m:])], axis=-1)
    elif not full_matrices or m == n:
        dq, dr = _thin_qr_jvp(q, r, dx)
    else:  # q's last m - n columns (arXiv:2409.13374, eqs. 32-33)
        q_mn, q_mp = q[..., :, :n], q[..., :, n:]
        dq_mn, dr_nn = _thin_qr_jvp(q_mn, r[..., :n, :], dx)
        q_nn, q_pn = q_mn[..., :n, :], q_mn[..., n:, :]
        z_pn_t = _solve(_t(q_nn - fnp.eye(n, dtype=_dtype(x))), _t(q_pn))  # z = q_pn (q_nn - I)^-1
        z_pn = _t(z_pn_t)
        dq_pn, dq_nn = dq_mn[..., n:, :], dq_mn[..., :n, :]
        dq_mp = (fnp.matmul(dq_mn, z_pn_t)
                 - fnp.matmul(q_mn + fnp.matmul(q_mp, z_pn), _t(dq_pn - fnp.matmul(z_pn, dq_nn))))
        dq = fnp.concatenate([dq_mn, dq_mp], axis=-1)
        dr = fnp.concatenate([dr_nn, fnp.zeros((*_shape(dr_nn)[:-2], m - n, n), _dtype(x))], axis=-2)
    return (q, r, jpvt), (dq, dr, fnp.zeros_like(jpvt))


def qr(x: ArrayLike, *, pivoting: bool = False, full_matrices: bool = True,
       use_magma: bool | None = None) -> tuple[Value, Value] | tuple[Value, Value, Value]:
    """The QR decomposition x = q @ r by Householder reflections, as `jax.lax.linalg.qr`, with
    LAPACK's signs (geqrf then orgqr): r's diagonal entry j is minus the sign of the entry the
    reflection of step j started from.

    Args:
        x: f32 matrices (..., m, n).
        pivoting: column pivoting (geqp3): x[..., :, p] = q @ r with |r|'s diagonal non-increasing.
        full_matrices: q (..., m, m) and r (..., m, n); else q (..., m, k), r (..., k, n),
            k = min(m, n).
        use_magma: accepted, as JAX's (a GPU option); no effect.
    Returns:
        `(q, r)`, or `(q, r, p)` with `pivoting`, p (..., n) i32.
    """
    name = "qr"
    pivoting, full_matrices = _flag(name, "pivoting", pivoting), _flag(name, "full_matrices", full_matrices)
    _matrices(name, x, "x", square=False)
    x, = _float_operands(name, x, promote=False)
    q, r, p = _qr(x, pivoting, full_matrices)
    return (q, r, p) if pivoting else (q, r)


# ---------------------------------------------------------------------------
# Jacobi rotations: eigh and svd
# ---------------------------------------------------------------------------


def _jacobi_sweeps(n: int) -> int:
    """Cyclic Jacobi converges quadratically once the off-diagonal part is small: in f32 the
    off-diagonal norm reaches rounding level (~1e-7 of the matrix's norm) within
    ceil(log2 n) + 5 sweeps for random, clustered and graded (entries over 1e6) matrices up to
    n = 100; one sweep more for margin."""
    return math.ceil(math.log2(max(n, 2))) + 6


def _jacobi_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The (p, q) index pairs of every step of the Jacobi sweeps for n columns, as two i32 arrays
    (steps, N/2), N = n rounded up to even: the round-robin ordering, in which each of the N - 1
    rounds of a sweep pairs every index with another once and the N/2 rotations of a round touch
    disjoint rows and columns, so they are applied together. With n odd, the index n pairs with
    a different index each round and stands for none (its rotation is the identity)."""
    size = n + n % 2
    rounds = []
    for r in range(size - 1):
        pairs = [(size - 1, r)] + [((r + k) % (size - 1), (r - k) % (size - 1)) for k in range(1, size // 2)]
        rounds.append(sorted((min(a, b), max(a, b)) for a, b in pairs))
    table = np.array(rounds * _jacobi_sweeps(n), np.int32)
    return table[..., 0], table[..., 1]


def _one_hots(p: Value, q: Value, n: int) -> tuple[Value, Value]:
    """The rows of the identity at p and at q, (n/2, n) each (a zero row for the index n)."""
    index = fnp.arange(n)
    return fnp.astype(p[:, None] == index, DType.f32), fnp.astype(q[:, None] == index, DType.f32)


def _rotation(at_p: Value, at_q: Value, app: Value, aqq: Value, apq: Value) -> Value:
    """The orthogonal J (..., n, n) of one round of rotations: for each pair (p_k, q_k), J holds
    [[c, s], [-s, c]] in rows and columns (p_k, q_k), chosen so J^T [[app, apq], [apq, aqq]] J is
    diagonal (Golub and Van Loan's symmetric Schur decomposition, with t the smaller root, so the
    angle is at most pi/4); the identity where apq = 0."""
    zero = apq == 0
    tau = (aqq - app) / (2.0 * fnp.where(zero, 1.0, apq))
    sign = fnp.where(tau >= 0, 1.0, -1.0)
    large = fnp.abs(tau) > 1.0
    small, inverse = fnp.clip(tau, -1.0, 1.0), 1.0 / fnp.maximum(fnp.abs(tau), 1.0)  # no overflow of tau^2
    t = fnp.where(large, sign * inverse / (1.0 + fnp.sqrt(1.0 + inverse * inverse)),
                  sign / (fnp.abs(small) + fnp.sqrt(1.0 + small * small)))
    t = fnp.where(zero, 0.0, t)
    c = 1.0 / fnp.sqrt(1.0 + t * t)
    s = t * c

    def place(values: Value, rows: Value, cols: Value) -> Value:  # rows^T diag(values) cols
        return fnp.matmul(_t(rows), values[..., :, None] * cols)

    return place(c, at_p, at_p) + place(c, at_q, at_q) + place(s, at_p, at_q) - place(s, at_q, at_p)


def _reorthonormalized(v: Value) -> Value:
    """v (3 I - v^T v) / 2: the Newton step towards the orthogonal polar factor of a nearly
    orthogonal v, which squares its departure from orthogonality."""
    n = _shape(v)[-1]
    return fnp.matmul(v, 3.0 * fnp.eye(n, dtype=_dtype(v)) - fnp.matmul(_t(v), v)) / 2.0


def _sorting(keys: Value, descending: bool) -> Value:
    """The permutation matrix S (..., n, n) that sorts keys (..., n) stably (S @ keys sorted): S[r, i]
    is 1 where r is the rank of keys[i], the number of keys before it (smaller, or larger with
    `descending`, or equal and earlier). Sorting by a matmul with S keeps to masks and sums."""
    n = _shape(keys)[-1]
    mine, other = keys[..., :, None], keys[..., None, :]
    earlier = fnp.arange(n)[None, :] < fnp.arange(n)[:, None]
    before = fnp.logical_or(other > mine if descending else other < mine, fnp.logical_and(other == mine, earlier))
    rank = fnp.count_nonzero(before, axis=-1)
    return fnp.astype(rank[..., None, :] == fnp.arange(n)[:, None], _dtype(keys))


def _sorted(values: Value, vectors: Value, order: Value) -> tuple[Value, Value]:
    """values (..., n) and the columns of vectors (..., m, n) in the order of the permutation matrix."""
    return fnp.matmul(order, values[..., :, None])[..., 0], fnp.matmul(vectors, _t(order))


def _eigh_loop(a: Value) -> tuple[Value, Value]:
    """(v, w) of symmetric a (..., n, n) by cyclic Jacobi: each round applies n/2 disjoint
    rotations, a <- J^T a J and v <- v J, each zeroing one off-diagonal pair. The rounding of
    the rotations drifts v from orthogonal by ~sqrt(rounds) ulps (1e-5 at n = 64): one Newton step
    towards the polar factor takes it back to ~1 ulp, and w are then the Rayleigh quotients of
    the input (1e-5 of |a| becomes 3e-7 at n = 64), sorted ascending with v's columns."""
    n = _shape(a)[-1]
    v = fnp.broadcast_to(fnp.eye(n, dtype=_dtype(a)), _shape(a))
    if n >= 2:
        def step(carry: tuple[Value, Value], pair: tuple[Value, Value]) -> tuple[tuple[Value, Value], None]:
            a, v = carry
            at_p, at_q = _one_hots(*pair, n)
            ap, aq = fnp.matmul(a, _t(at_p)), fnp.matmul(a, _t(at_q))  # columns p and q, (..., n, n/2)
            app, aqq, apq = (fnp.sum(_t(at_p) * ap, axis=-2), fnp.sum(_t(at_q) * aq, axis=-2),
                             fnp.sum(_t(at_p) * aq, axis=-2))
            j = _rotation(at_p, at_q, app, aqq, apq)
            return (fnp.matmul(fnp.matmul(_t(j), a), j), fnp.matmul(v, j)), None

        v = _reorthonormalized(scan(step, (a, v), _jacobi_pairs(n))[0][1])
    w = fnp.sum(v * fnp.matmul(a, v), axis=-2)  # Rayleigh quotients v_i^T a v_i
    w, v = _sorted(w, v, _sorting(w, descending=False))
    return v, w


# dw = diag(v^T da v), dv = v (F * (v^T da v)) with F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it
# (JAX's rule: distinct eigenvalues; repeated ones give NaN, as in JAX).
@custom_jvp
def _eigh(a: Value) -> tuple[Value, Value]:
    return _eigh_loop(a)


@_eigh.defjvp
def _eigh_jvp(primals: tuple[Value], tangents: tuple[Value]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    v, w = _eigh(a)
    eye = fnp.eye(_shape(a)[-1], dtype=_dtype(a))
    f = 1.0 / (eye + w[..., None, :] - w[..., :, None]) - eye
    vt_da_v = fnp.matmul(fnp.matmul(_t(v), da), v)
    return (v, w), (fnp.matmul(v, f * vt_da_v), fnp.diagonal(vt_da_v, 0, -2, -1))


def _symmetric(name: str, x: Value, lower: bool, symmetrize_input: bool) -> Value:
    """x as the symmetric matrix it stands for: (x + x^T) / 2, or its `lower` (else upper) triangle
    mirrored."""
    if symmetrize_input:
        return (x + _t(x)) / 2.0
    if lower:
        return fnp.tril(x) + _t(fnp.tril(x, -1))
    return fnp.triu(x) + _t(fnp.triu(x, 1))


def eigh(x: ArrayLike, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index: tuple[int, int] | None = None) -> tuple[Value, Value]:
    """The eigendecomposition x = v diag(w) v^T of real symmetric matrices, as
    `jax.lax.linalg.eigh`, by cyclic Jacobi rotations (`_jacobi_sweeps` sweeps: 12 for n = 64).

    Args:
        x: f32 matrices (..., n, n).
        lower: with symmetrize_input=False, read only x's lower (else upper) triangle.
        symmetrize_input: decompose (x + x^T) / 2.
        sort_eigenvalues: accepted; the eigenvalues are always ascending (JAX's CPU kernel sorts
            too).
        subset_by_index: None or (0, n): all eigenvalues (as JAX on CPU).
    Returns:
        `(v, w)`: eigenvectors v (..., n, n), v[..., :, i] the unit vector of w[..., i]; eigenvalues
        w (..., n), ascending. The vectors' signs are arbitrary (not LAPACK's).
    """
    name = "eigh"
    lower, symmetrize_input = _flag(name, "lower", lower), _flag(name, "symmetrize_input", symmetrize_input)
    _flag(name, "sort_eigenvalues", sort_eigenvalues)
    shape = _matrices(name, x, "x")
    if subset_by_index is not None and tuple(subset_by_index) != (0, shape[-1]):
        raise ShapeError(f"{name}: subset_by_index={subset_by_index!r} is not supported (as on JAX's CPU and GPU "
                         f"backends): pass None or (0, {shape[-1]})", user_site())
    x, = _float_operands(name, x, promote=False)
    return _eigh(_symmetric(name, x, lower, symmetrize_input))


def _one_sided_jacobi(a: Value) -> tuple[Value, Value]:
    """(b, v) with b = a v (..., m, n) of mutually orthogonal columns and v orthogonal, by
    Hestenes' one-sided Jacobi: each rotation of a pair of columns is the two-sided one of their
    Gram matrix, [[|a_p|^2, a_p . a_q], [a_p . a_q, |a_q|^2]], which never forms a^T a (so small
    singular values keep their relative accuracy)."""
    n = _shape(a)[-1]
    v = fnp.broadcast_to(fnp.eye(n, dtype=_dtype(a)), (*_shape(a)[:-2], n, n))
    if n < 2:
        return a, v

    def step(carry: tuple[Value, Value], pair: tuple[Value, Value]) -> tuple[tuple[Value, Value], None]:
        b, v = carry
        at_p, at_q = _one_hots(*pair, n)
        bp, bq = fnp.matmul(b, _t(at_p)), fnp.matmul(b, _t(at_q))
        j = _rotation(at_p, at_q, fnp.sum(bp * bp, axis=-2), fnp.sum(bq * bq, axis=-2), fnp.sum(bp * bq, axis=-2))
        return (fnp.matmul(b, j), fnp.matmul(v, j)), None

    return scan(step, (a, v), _jacobi_pairs(n))[0]


def _svd_loop(a: Value, full_matrices: bool, compute_uv: bool) -> tuple[Value, ...]:
    """(s,) or (s, u, vt) of a (..., m, n): one-sided Jacobi on the columns of a (of a^T if wide),
    the column norms of b = a v sorted descending as s; u from the Householder QR of b (whose
    columns are orthogonal, so r is diagonal), its columns' signs flipped where r's diagonal is
    negative; the QR also completes u where columns of b are zero or with full_matrices."""
    m, n = _shape(a)[-2:]
    if m < n:
        out = _svd_loop(_t(a), full_matrices, compute_uv)
        return out if not compute_uv else (out[0], _t(out[2]), _t(out[1]))
    batch, dtype = _shape(a)[:-2], _dtype(a)
    if n == 0:
        s = fnp.zeros((*batch, 0), dtype)
        u = (fnp.broadcast_to(fnp.eye(m, dtype=dtype), (*batch, m, m)) if full_matrices
             else fnp.zeros((*batch, m, 0), dtype))
        return (s,) if not compute_uv else (s, u, fnp.zeros((*batch, 0, 0), dtype))
    v = _reorthonormalized(_one_sided_jacobi(a)[1])  # as in _eigh_loop
    b = fnp.matmul(a, v)
    s = fnp.sqrt(fnp.sum(b * b, axis=-2))
    order = _sorting(s, descending=True)
    s, v = _sorted(s, v, order)
    if not compute_uv:
        return (s,)
    b = fnp.matmul(b, _t(order))
    packed, taus, _ = _geqrf_loop(b, False)
    u = _householder_product(packed, taus, m if full_matrices else n)
    signs = fnp.where(fnp.diagonal(packed, 0, -2, -1) < 0, -1.0, 1.0)
    if full_matrices and m > n:
        signs = fnp.concatenate([signs, fnp.ones((*batch, m - n), dtype)], axis=-1)
    return s, u * signs[..., None, :], _t(v)


# JAX's rule, from the thin decomposition a = u diag(s) v^T: dS = u^T da v, ds = diag(dS); du and dv
# from F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, with the terms for the rest of the space when
# a is not square. With full_matrices and a not square (JAX raises NotImplementedError), the
# columns that complete u (rows that complete v^T) move as little as orthogonality allows:
# du_perp = -u (du^T u_perp).
@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
def _svd(a: Value, full_matrices: bool, compute_uv: bool) -> tuple[Value, ...]:
    return _svd_loop(a, full_matrices, compute_uv)


@_svd.defjvp
def _svd_jvp(full_matrices: bool, compute_uv: bool, primals: tuple[Value], tangents: tuple[Value]
             ) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    m, n = _shape(a)[-2:]
    k = min(m, n)
    out = _svd(a, full_matrices, compute_uv)
    s, u, vt = _svd(a, False, True) if not compute_uv else (out[0], out[1][..., :, :k], out[2][..., :k, :])
    v = _t(vt)
    ds_full = fnp.matmul(fnp.matmul(_t(u), da), v)
    ds = fnp.diagonal(ds_full, 0, -2, -1)
    if not compute_uv:
        return out, (ds,)
    row = s[..., None, :]
    eye = fnp.eye(k, dtype=_dtype(a))
    f = 1.0 / ((row + _t(row)) * (row - _t(row)) + eye) - eye
    s_zero = fnp.astype(s == 0, _dtype(a))
    s_inv = 1.0 / (s + s_zero) - s_zero
    du_dv_diagonal = 0.5 * (ds_full - _t(ds_full)) * (eye * s_inv[..., None, :])
    du = fnp.matmul(u, f * (row * ds_full + _t(row * ds_full)) + du_dv_diagonal)
    dv = fnp.matmul(v, f * (_t(row) * ds_full + _t(_t(row) * ds_full)))
    if m > n:
        da_v = fnp.matmul(da, v)
        du = du + (da_v - fnp.matmul(u, fnp.matmul(_t(u), da_v))) / row
    if n > m:
        dat_u = fnp.matmul(_t(da), u)
        dv = dv + (dat_u - fnp.matmul(v, fnp.matmul(vt, dat_u))) / row
    if full_matrices and m > n:
        u_perp = out[1][..., :, k:]
        du = fnp.concatenate([du, -fnp.matmul(u, fnp.matmul(_t(du), u_perp))], axis=-1)
    if full_matrices and n > m:
        v_perp = _t(out[2][..., k:, :])
        dv = fnp.concatenate([dv, -fnp.matmul(v, fnp.matmul(_t(dv), v_perp))], axis=-1)
    return out, (ds, du, _t(dv))


def svd(x: ArrayLike, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None, algorithm: Any = None) -> Value | tuple[Value, Value, Value]:
    """The singular value decomposition x = u diag(s) vh, as `jax.lax.linalg.svd`, by one-sided
    Jacobi rotations (`_jacobi_sweeps(min(m, n))` sweeps) and a Householder QR for u.

    Args:
        x: f32 matrices (..., m, n).
        full_matrices: u (..., m, m) and vh (..., n, n); else (..., m, k) and (..., k, n),
            k = min(m, n).
        compute_uv: return `(u, s, vh)`; else s alone.
        subset_by_index: None or (0, k): all singular values.
        algorithm: accepted, as JAX's; the algorithm is always Jacobi.
    Returns:
        s (..., k) descending, or `(u, s, vh)`. The vectors' signs are arbitrary (not LAPACK's).
    """
    name = "svd"
    full_matrices, compute_uv = _flag(name, "full_matrices", full_matrices), _flag(name, "compute_uv", compute_uv)
    shape = _matrices(name, x, "x", square=False)
    k = min(shape[-2:])
    if subset_by_index is not None and tuple(subset_by_index) != (0, k):
        raise ShapeError(f"{name}: subset_by_index={subset_by_index!r} is not supported: pass None or (0, {k})",
                         user_site())
    x, = _float_operands(name, x, promote=False)
    out = _svd(x, full_matrices, compute_uv)
    return (out[1], out[0], out[2]) if compute_uv else out[0]


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


@custom_jvp
def _slogdet_qr(a: Value) -> tuple[Value, Value]:
    """slogdet from the Householder QR (jnp.linalg.slogdet's method 'qr'): R's diagonal gives the
    magnitude and a sign, and each reflection made (tau != 0) flips the sign."""
    n = _shape(a)[-1]
    packed, taus = _geqrf(a)
    diag = fnp.diagonal(packed, 0, -2, -1)
    reflections = fnp.prod(fnp.where(taus[..., :n - 1] != 0, -1.0, 1.0), axis=-1)
    sign = fnp.prod(fnp.sign(diag), axis=-1) * reflections
    return fnp.astype(sign, _dtype(a)), fnp.sum(fnp.log(fnp.abs(diag)), axis=-1)


def _slogdet_rule(slogdet: Any) -> Any:
    def jvp(primals: tuple[Value], tangents: tuple[Value]) -> tuple[Any, Any]:
        (a,), (da,) = primals, tangents
        sign, logabsdet = slogdet(a)
        return (sign, logabsdet), (fnp.zeros_like(sign), fnp.trace(_solve(a, da), 0, -2, -1))
    return jvp


_slogdet.defjvp(_slogdet_rule(_slogdet))
_slogdet_qr.defjvp(_slogdet_rule(_slogdet_qr))


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
