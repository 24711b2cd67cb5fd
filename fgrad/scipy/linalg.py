"""`jax.scipy.linalg` as `fg.scipy.linalg`, for real (f32) matrices: the Cholesky, LU, QR,
symmetric eigen-, singular value, polar and Hessenberg decompositions and the solvers built on
them (cho_factor, cho_solve, cholesky, lu, lu_factor, lu_solve, solve, solve_triangular, inv,
det, eigh, eigh_tridiagonal, svd, qr, polar, hessenberg), the matrix exponential and its Frechet
derivative (expm, expm_frechet), and the constructors block_diag, toeplitz, hankel, circulant,
companion, fiedler, fiedler_companion, convolution_matrix, leslie, hadamard, helmert, hilbert,
invhilbert, pascal and invpascal.

Everything is written with `fg.lax.linalg` and `fg.numpy.linalg` (loops over rows and columns,
Jacobi sweeps, with JAX's derivative rules), so it traces, differentiates, vmaps and compiles to
WGSL; leading axes are batched wherever JAX batches them. Integer inputs are converted to f32, as
jax.numpy promotes them; f16 is refused (JAX's LAPACK kernels have none).

Not here: whatever has complex results (schur, rsf2csf, eig, sqrtm of a general matrix, dft, and
solve_sylvester, which JAX solves through the complex Schur form), funm, qr_multiply, and the
generalized eigenproblem (eigh with b), which JAX does not implement either.
polar's method 'qdwh' is computed from the SVD (the factors are unique for a matrix of full
rank). Eigenvectors and singular vectors have arbitrary signs, not LAPACK's.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, InputError, ShapeError, TraceError, name_errors_after
from fgrad.ir import DType
from fgrad.lax import lgamma, linalg as lax_linalg
from fgrad.lax.linalg import _flag, _float_operands, _matrices, _t
from fgrad.numpy import linalg as fnp_linalg
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _shape, asarray
from fgrad.scipy.special import comb
from fgrad.trace import Tensor, user_site
from fgrad.transforms.control_flow import scan
from fgrad.transforms.custom import custom_jvp
from fgrad.transforms.forward import jvp

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion", "convolution_matrix", "det", "eigh",
    "eigh_tridiagonal", "expm", "expm_frechet", "fiedler", "fiedler_companion", "hadamard", "hankel", "helmert",
    "hessenberg", "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve", "pascal",
    "polar", "qr", "solve", "solve_triangular", "svd", "toeplitz",
]

Array = Tensor | np.ndarray


def _square(name: str, a: ArrayLike, what: str = "a") -> tuple[Array, tuple[int, ...]]:
    """a checked to hold square matrices of static sizes, promoted to f32 as jax.numpy promotes."""
    shape = _matrices(name, a, what)
    return _float_operands(name, a, promote=True)[0], shape


def _trans(name: str, trans: Any, letters: bool) -> bool:
    """Whether `trans` (0, 1, 2, or with `letters` 'N', 'T', 'C') solves with a's transpose; 'C'
    (2), the conjugate transpose, is 'T' for real a."""
    allowed = (0, 1, 2, "N", "T", "C") if letters else (0, 1, 2)
    if isinstance(trans, bool) or trans not in allowed:
        raise InputError(f"{name}: trans must be {', '.join(map(repr, allowed))}, got {_brief(trans)}", user_site())
    return trans not in (0, "N")


# ---------------------------------------------------------------------------
# Cholesky
# ---------------------------------------------------------------------------


def cholesky(a: ArrayLike, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The Cholesky factor of symmetric positive-definite matrices (..., n, n), as
    `jax.scipy.linalg.cholesky`: upper U with a = U^T U by default, lower L with a = L L^T with
    `lower`; zeros in the other triangle, NaN in the factor's where a matrix is not positive
    definite.

    Args:
        a: the matrices; only the triangle of the factor is read (the upper one by default).
        lower: return (and read) the lower triangle.
        overwrite_a, check_finite: accepted, as JAX's; no effect.
    """
    lower = _flag("cholesky", "lower", lower)
    a, _ = _square("cholesky", a)
    factor = lax_linalg.cholesky(a if lower else _t(a), symmetrize_input=False)
    return factor if lower else _t(factor)


def cho_factor(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Array, bool]:
    """The Cholesky factorization of symmetric positive-definite matrices for `cho_solve`, as
    `jax.scipy.linalg.cho_factor`: `(c, lower)`, c the factor `cholesky(a, lower)` gives (its other
    triangle zero)."""
    return cholesky(a, lower=lower), bool(lower)


def _cho_solve(c: Array, b: Array, lower: bool) -> Array:
    """a^-1 b for a = L L^T, L = c if `lower` else c^T; c and b with the same leading axes."""
    solve = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower)
    return solve(c, solve(c, b, transpose_a=not lower), transpose_a=lower)


def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike, overwrite_b: bool = False,
              check_finite: bool = True) -> Array:
    """x with a @ x = b, from the Cholesky factorization `(c, lower)` of a (`cho_factor`), as
    `jax.scipy.linalg.cho_solve`: two triangular solves.

    Args:
        c_and_lower: the factor c (..., n, n), lower or upper, and which it is.
        b: one vector (n,), solved against every matrix; or matrices (..., n, k) whose leading axes
            broadcast with c's.
    """
    name = "cho_solve"
    if not isinstance(c_and_lower, (tuple, list)) or len(c_and_lower) != 2:
        raise InputError(f"{name}: c_and_lower must be the pair (c, lower) cho_factor returns, got "
                         f"{_brief(c_and_lower)}", user_site())
    c, lower = c_and_lower
    lower = _flag(name, "lower", lower)
    c, c_shape = _square(name, c, "c")
    c, b, vector = fnp_linalg._right_hand_side(name, c, b, vectors_deprecated=True)
    x = _cho_solve(c, b, lower)
    return x[..., 0] if vector else x


# ---------------------------------------------------------------------------
# LU
# ---------------------------------------------------------------------------


def lu_factor(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Array, Array]:
    """The LU factorization with partial pivoting of matrices (..., m, n) for `lu_solve`, as
    `jax.scipy.linalg.lu_factor`: `(lu, piv)`, U on and above the diagonal of lu and L's
    multipliers below it, piv (..., min(m, n)) i32 the row swapped with row i at step i."""
    _matrices("lu_factor", a, "a", square=False)
    a, = _float_operands("lu_factor", a, promote=True)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def lu_solve(lu_and_piv: tuple[ArrayLike, ArrayLike], b: ArrayLike, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Array:
    """x with a @ x = b (trans 0) or a^T @ x = b (1 or 2), from the LU
    factorization `(lu, piv)` of square a (`lu_factor`), as `jax.scipy.linalg.lu_solve`.

    Args:
        lu_and_piv: the packed factors (..., m, m) and the pivots (..., m).
        b: one vector (m,), or matrices (..., m, k) whose leading axes broadcast with lu's.
        trans: which system to solve.
    """
    name = "lu_solve"
    transpose = _trans(name, trans, letters=False)
    if not isinstance(lu_and_piv, (tuple, list)) or len(lu_and_piv) != 2:
        raise InputError(f"{name}: lu_and_piv must be the pair (lu, piv) lu_factor returns, got "
                         f"{_brief(lu_and_piv)}", user_site())
    lu_, pivots = lu_and_piv
    lu_, lu_shape = _square(name, lu_, "lu")
    m = lu_shape[-1]
    if _shape(pivots) != (*lu_shape[:-2], m):
        raise ShapeError(f"{name}: piv must be (..., m) = {(*lu_shape[:-2], m)} for lu {lu_shape}, got "
                         f"{_shape(pivots)}", user_site())
    lu_, b, vector = fnp_linalg._right_hand_side(name, lu_, b, vectors_deprecated=True)
    perm = lax_linalg.lu_pivots_to_permutation(pivots, m)
    perm = fnp.broadcast_to(perm, _shape(b)[:-2] + (m,))
    if not transpose:  # a = P^T L U
        x = lax_linalg._lu_solve(lu_, perm, b)
    else:  # a^T = U^T L^T P: solve with U^T, then L^T, then undo the row permutation
        y = lax_linalg.triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True)
        y = lax_linalg.triangular_solve(lu_, y, left_side=True, lower=True, transpose_a=True, unit_diagonal=True)
        x = fnp.matmul(_t(_permutation_matrix(perm, _dtype(lu_))), y)
    return x[..., 0] if vector else x


def _permutation_matrix(perm: Array, dtype: DType) -> Array:
    """P (..., m, m) with P @ x = x[perm]: P[i, j] = 1 where perm[i] = j."""
    m = _shape(perm)[-1]
    return fnp.astype(perm[..., :, None] == fnp.arange(m), dtype)


def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Array, Array] | tuple[Array, Array, Array]:
    """The LU decomposition with partial pivoting a = P @ L @ U of matrices (..., m, n), as
    `jax.scipy.linalg.lu`: `(p, l, u)`, p (..., m, m) a permutation matrix, l (..., m, k) unit lower
    triangular, u (..., k, n) upper triangular, k = min(m, n); with `permute_l`, `(p @ l, u)`.
    Leading axes are batched (JAX's takes one matrix)."""
    name = "lu"
    permute_l = _flag(name, "permute_l", permute_l)
    shape = _matrices(name, a, "a", square=False)
    a, = _float_operands(name, a, promote=True)
    packed, _, perm = lax_linalg.lu(a)
    m, n = shape[-2:]
    k = min(m, n)
    p = _t(_permutation_matrix(perm, _dtype(a)))
    lower = fnp.tril(packed, -1)[..., :, :k] + fnp.eye(m, k, dtype=_dtype(a))
    upper = fnp.triu(packed)[..., :k, :]
    return (fnp.matmul(p, lower), upper) if permute_l else (p, lower, upper)


# ---------------------------------------------------------------------------
# Solvers, inverse, determinant
# ---------------------------------------------------------------------------


# d(a^-1 b) = a^-1 (db - da x), solved with a's Cholesky factor (what jax.lax.custom_linear_solve
# gives jax.scipy.linalg.solve with assume_a='pos'): a's tangent is used whole, not symmetrized.
@functools.partial(custom_jvp, nondiff_argnums=(2,))
def _solve_positive(a: Array, b: Array, lower: bool) -> Array:
    return _cho_solve(cholesky(a, lower=lower), b, lower)


@_solve_positive.defjvp
def _solve_positive_jvp(lower: bool, primals: tuple[Array, Array], tangents: tuple[Array, Array]
                        ) -> tuple[Array, Array]:
    a, b = primals
    da, db = tangents
    factor = cholesky(a, lower=lower)
    x = _cho_solve(factor, b, lower)
    return x, _cho_solve(factor, db - fnp.matmul(da, x), lower)


def solve(a: ArrayLike, b: ArrayLike, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen") -> Array:
    """x with a @ x = b for square a (..., m, m), as `jax.scipy.linalg.solve`.

    Args:
        b: with assume_a 'gen', 'sym' or 'her', as `fg.numpy.linalg.solve` (LU with partial
            pivoting): a vector (m,) or matrices (..., m, k). With 'pos', vectors (..., m) when b
            has one axis fewer than a, else matrices (..., m, k), leading axes broadcast.
        lower: with 'pos', read a's lower (else upper) triangle.
        assume_a: 'gen', 'sym', 'her' (all solved by LU), or 'pos' (a positive definite: by
            Cholesky).
        overwrite_a, overwrite_b, debug, check_finite: accepted, as JAX's; no effect.
    """
    name = "solve"
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise InputError(f"{name}: assume_a must be one of 'gen', 'sym', 'her' or 'pos', got {_brief(assume_a)}",
                         user_site())
    if assume_a != "pos":
        return fnp_linalg.solve(a, b)
    lower = _flag(name, "lower", lower)
    a, a_shape = _square(name, a)
    b_shape = _shape(b)
    if len(b_shape) not in (len(a_shape) - 1, len(a_shape)) or b_shape[len(a_shape) - 2] != a_shape[-1]:
        raise ShapeError(f"{name}: with assume_a='pos', b must be (..., m) or (..., m, k) with m = {a_shape[-1]} and "
                         f"as many leading axes as a {a_shape}, got {b_shape}", user_site())
    vector = len(b_shape) == len(a_shape) - 1
    b, = _float_operands(name, b, promote=True)
    if vector:
        b = b[..., None]
    try:
        batch = fnp.broadcast_shapes(a_shape[:-2], _shape(b)[:-2])
    except ShapeError:
        raise ShapeError(f"{name}: the leading axes of a {a_shape} and b {b_shape} do not broadcast",
                         user_site()) from None
    m = a_shape[-1]
    a, b = fnp.broadcast_to(a, (*batch, m, m)), fnp.broadcast_to(b, (*batch, *_shape(b)[-2:]))
    x = _solve_positive(a, b, lower)
    return x[..., 0] if vector else x


def solve_triangular(a: ArrayLike, b: ArrayLike, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False, debug: Any = None,
                     check_finite: bool = True) -> Array:
    """x with op(a) @ x = b for triangular a (..., m, m), as `jax.scipy.linalg.solve_triangular`.

    Args:
        b: one vector (m,), or matrices (..., m, k) whose leading axes broadcast with a's.
        trans: op(a) = a (0 or 'N'), a^T (1 or 'T'), a^H = a^T (2 or 'C').
        lower: a is lower (else upper) triangular; only that triangle is read.
        unit_diagonal: take a's diagonal as ones, without reading it.
    """
    name = "solve_triangular"
    transpose = _trans(name, trans, letters=True)
    lower, unit_diagonal = _flag(name, "lower", lower), _flag(name, "unit_diagonal", unit_diagonal)
    a, a_shape = _square(name, a)
    a, b, vector = fnp_linalg._right_hand_side(name, a, b, vectors_deprecated=True)
    x = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose,
                                    unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The inverses of square matrices (..., n, n), as `jax.scipy.linalg.inv` (`fg.numpy.linalg.inv`)."""
    return fnp_linalg.inv(a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The determinants of square matrices (..., n, n), as `jax.scipy.linalg.det`
    (`fg.numpy.linalg.det`)."""
    return fnp_linalg.det(a)


# ---------------------------------------------------------------------------
# Symmetric eigenproblems, SVD, QR, polar
# ---------------------------------------------------------------------------


def eigh(a: ArrayLike, b: ArrayLike | None = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True, eigvals: None = None,
         type: int = 1, check_finite: bool = True) -> Array | tuple[Array, Array]:
    """The eigenvalues and eigenvectors of real symmetric matrices (..., n, n), as
    `jax.scipy.linalg.eigh` (which decomposes (a + a^T) / 2): `(w, v)`, w (..., n) ascending and
    v[..., :, i] the unit eigenvector of w[..., i] (its sign arbitrary); w alone with
    `eigvals_only`.

    Args:
        b, eigvals, type: only their defaults, None, None and 1, as in JAX (no generalized
            problem, no subset).
        lower: accepted, as JAX's (both triangles are read).
    """
    name = "eigh"
    if b is not None:
        raise InputError(f"{name}: only b=None is supported (as in JAX): the generalized problem is not implemented",
                         user_site())
    if type != 1 or eigvals is not None:
        raise InputError(f"{name}: only type=1 and eigvals=None are supported (as in JAX), got type={type!r}, "
                         f"eigvals={eigvals!r}", user_site())
    lower, eigvals_only = _flag(name, "lower", lower), _flag(name, "eigvals_only", eigvals_only)
    a, _ = _square(name, a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh_tridiagonal(d: ArrayLike, e: ArrayLike, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[int, int] | None = None, tol: float | None = None,
                     key: Any = None) -> Array | tuple[Array, Array]:
    """The eigenvalues (and eigenvectors) of the symmetric tridiagonal matrix with diagonal d (n,)
    and off-diagonal e (n - 1,), as `jax.scipy.linalg.eigh_tridiagonal`, from the Jacobi
    eigendecomposition of the matrix (JAX bisects; the eigenvalues agree).

    Args:
        d, e: f32 vectors, of one dtype (as in JAX).
        eigvals_only: return the eigenvalues alone, else `(w, v)`, v (n, k) unit eigenvectors in its
            columns (signs arbitrary).
        select: 'a' all eigenvalues, 'i' those of indices select_range[0] through select_range[1]
            (ascending order); not 'v' (as in JAX).
        tol, key: accepted, as JAX's; no effect.
    Returns:
        w (k,) ascending, or `(w, v)`.
    """
    name = "eigh_tridiagonal"
    eigvals_only = _flag(name, "eigvals_only", eigvals_only)
    d_shape, e_shape = _shape(d), _shape(e)
    if len(d_shape) != 1 or e_shape != (max(d_shape[0] - 1, 0),):
        raise ShapeError(f"{name}: d must be a vector (n,) and e (n - 1,), got {d_shape} and {e_shape}", user_site())
    if _dtype(d) is not _dtype(e):
        raise DTypeError(f"{name}: d and e must have one dtype, got {_dtype(d)} and {_dtype(e)}", user_site())
    if not _dtype(d).is_float:
        raise DTypeError(f"{name}: d and e must be floats (as in JAX), got {_dtype(d)}", user_site())
    n = d_shape[0]
    if select == "a":
        first, last = 0, n - 1
    elif select == "i":
        if select_range is None or len(select_range) != 2:
            raise InputError(f"{name}: for select='i', select_range must be (first, last), got "
                             f"{_brief(select_range)}", user_site())
        if not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in select_range):
            raise InputError(f"{name}: select_range must hold two static integers, got {_brief(select_range)}",
                             user_site())
        first, last = (int(k) for k in select_range)
        if not 0 <= first <= last < n:
            raise InputError(f"{name}: select_range {tuple(select_range)} must satisfy 0 <= first <= last < {n}",
                             user_site())
    else:
        raise InputError(f"{name}: select must be 'a' or 'i' (JAX implements no 'v'), got {_brief(select)}",
                         user_site())
    d, e = _float_operands(name, d, e, promote=False)
    v, w = lax_linalg.eigh(fnp.diag(d) + fnp.diag(e, 1) + fnp.diag(e, -1))
    w, v = w[first:last + 1], v[:, first:last + 1]
    return w if eigvals_only else (w, v)


def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Array | tuple[Array, Array, Array]:
    """The singular value decomposition a = u @ diag(s) @ vh of matrices (..., m, n), as
    `jax.scipy.linalg.svd` (`fg.lax.linalg.svd`, by Jacobi rotations): `(u, s, vh)`, s (..., k)
    descending, k = min(m, n), or s alone without `compute_uv`; the vectors' signs are arbitrary.

    Args:
        full_matrices: u (..., m, m) and vh (..., n, n); else (..., m, k) and (..., k, n).
        lapack_driver, overwrite_a, check_finite: accepted, as JAX's; no effect.
    """
    _matrices("svd", a, "a", square=False)
    a, = _float_operands("svd", a, promote=True)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def qr(a: ArrayLike, overwrite_a: bool = False, lwork: Any = None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True) -> tuple[Array, ...]:
    """The QR decomposition a = q @ r of matrices (..., m, n) by Householder reflections, with
    LAPACK's signs, as `jax.scipy.linalg.qr`.

    Args:
        mode: 'full' (q (..., m, m), r (..., m, n)), 'economic' (q (..., m, k), r (..., k, n),
            k = min(m, n)) or 'r' (the full r alone, as a 1-tuple `(r,)`).
        pivoting: column pivoting: a[..., :, p] = q @ r, and p (..., n) i32 is returned last.
    Returns:
        `(q, r)`, `(r,)`, or with `pivoting` `(q, r, p)`, `(r, p)`.
    """
    name = "qr"
    if mode not in ("full", "r", "economic"):
        raise InputError(f"{name}: unsupported mode {_brief(mode)}: use 'full', 'economic' or 'r'", user_site())
    pivoting = _flag(name, "pivoting", pivoting)
    _matrices(name, a, "a", square=False)
    a, = _float_operands(name, a, promote=True)
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")
    return (r, *p) if mode == "r" else (q, r, *p)


def polar(a: ArrayLike, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None) -> tuple[Array, Array]:
    """The polar decomposition of matrices (..., m, n), as `jax.scipy.linalg.polar`: a = u @ p
    (side 'right', p (..., n, n)) or a = p @ u ('left', p (..., m, m)), u (..., m, n) with
    orthonormal columns (rows if n > m) and p symmetric positive semidefinite, from the thin SVD
    a = w diag(s) vh: u = w @ vh, p = vh^T diag(s) vh or w diag(s) w^T.

    Args:
        side: 'right' or 'left'.
        method: 'svd' or 'qdwh'; both are computed from the SVD. As in JAX, 'qdwh' takes m >= n
            with side 'right' and m < n with side 'left'.
        eps, max_iterations: accepted, as JAX's (QDWH's stopping rules); no effect.
    """
    name = "polar"
    if side not in ("right", "left"):
        raise InputError(f"{name}: side must be 'right' or 'left', got {_brief(side)}", user_site())
    if method not in ("svd", "qdwh"):
        raise InputError(f"{name}: method must be 'svd' or 'qdwh', got {_brief(method)}", user_site())
    shape = _matrices(name, a, "a", square=False)
    m, n = shape[-2:]
    if method == "qdwh" and (m >= n) != (side == "right"):
        raise InputError(f"{name}: method='qdwh' takes m >= n with side='right' and m < n with side='left' (as in "
                         f"JAX), got shape {shape} with side={side!r}; use method='svd'", user_site())
    a, = _float_operands(name, a, promote=True)
    w, s, vh = lax_linalg.svd(a, full_matrices=False)
    u = fnp.matmul(w, vh)
    p = fnp.matmul(_t(vh) * s[..., None, :], vh) if side == "right" else fnp.matmul(w * s[..., None, :], _t(w))
    return u, p


def _hessenberg_loop(a: Array) -> tuple[Array, Array]:
    """(packed, taus) of a (..., n, n) as LAPACK's gehrd: step j reflects column j's entries below
    the subdiagonal onto it with H = I - tau v v^T (v_(j+1) = 1; dlarfg's choice of sign, as in
    the Householder QR of fg.lax.linalg; tau = 0 where they are already zero) and sets
    a <- H a H. `packed` holds the Hessenberg matrix on and above the subdiagonal and the v's below
    it; taus (..., n - 1)."""
    n = _shape(a)[-1]
    rows, cols, index = fnp.arange(n)[:, None], fnp.arange(n), fnp.arange(n)

    def step(a: Array, j: Array) -> tuple[Array, Array]:
        col = fnp.sum(fnp.where(cols == j, a, 0.0), axis=-1)
        alpha = fnp.sum(fnp.where(index == j + 1, col, 0.0), axis=-1)
        below = fnp.where(index > j + 1, col, 0.0)
        xnorm = fnp.sqrt(fnp.sum(below * below, axis=-1))
        reflect = xnorm != 0
        beta = -fnp.copysign(fnp.sqrt(alpha * alpha + xnorm * xnorm), alpha)
        tau = fnp.where(reflect, (beta - alpha) / fnp.where(reflect, beta, 1.0), 0.0)[..., None, None]
        v = fnp.where(index == j + 1, 1.0, below / fnp.where(reflect, alpha - beta, 1.0)[..., None])
        # H a on the columns after j (the v's of earlier steps, stored in theirs, stay), then (H a) H
        a = a - tau * v[..., :, None] * fnp.where(cols > j, fnp.matmul(v[..., None, :], a), 0.0)
        a = a - tau * fnp.matmul(a, v[..., :, None]) * v[..., None, :]
        subdiagonal = fnp.where(reflect, beta, alpha)[..., None, None]
        a = fnp.where(cols == j, fnp.where(rows == j + 1, subdiagonal, fnp.where(rows > j + 1, v[..., :, None], a)), a)
        return a, tau[..., 0, 0]

    packed, taus = scan(step, a, fnp.arange(n - 1))
    return packed, fnp.moveaxis(taus, 0, -1)


def hessenberg(a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Array | tuple[Array, Array]:
    """The Hessenberg form a = q @ h @ q^T of square matrices (..., n, n) by Householder
    reflections (LAPACK's gehrd and orghr, with their signs), as `jax.scipy.linalg.hessenberg`:
    h zero below its first subdiagonal, q orthogonal.

    Args:
        calc_q: return `(h, q)`, else h alone.
        overwrite_a, check_finite: accepted, as JAX's; no effect.
    """
    calc_q = _flag("hessenberg", "calc_q", calc_q)
    a, shape = _square("hessenberg", a)
    n = shape[-1]
    if n == 0:
        return (a, a) if calc_q else a
    if n == 1:
        return (a, fnp.ones_like(a)) if calc_q else a
    packed, taus = _hessenberg_loop(a)
    h = fnp.triu(packed, -1)
    if not calc_q:
        return h
    q = lax_linalg._householder_product(packed[..., 1:, :-1], taus, n - 1)  # the reflectors act on rows 1..n-1
    q = fnp.pad(q, [(0, 0)] * (len(shape) - 2) + [(1, 0), (1, 0)])
    return h, q + fnp.eye(n, dtype=_dtype(a)) * (fnp.arange(n) == 0)  # q[..., 0, 0] = 1


# ---------------------------------------------------------------------------
# The matrix exponential
# ---------------------------------------------------------------------------

# Pade approximants of orders 3, 5 and 7 (f32's choice in JAX, after Higham 2005): the
# coefficients b_0 .. b_m of p_m(x) = sum b_k x^k.
_PADE = {3: (120., 60., 12., 1.),
         5: (30240., 15120., 3360., 420., 30., 1.),
         7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.)}
_PADE_BOUNDS = (4.258730016922831e-001, 1.880152677804762e+000)  # |A|_1 up to which order 3, then 5, suffice
_MAX_NORM = 3.925724783138660  # order 7's bound: A is scaled by 2^-s to within it


def _pade_terms(a: Array, order: int, powers: dict[int, Array]) -> tuple[Array, Array]:
    """(U, V) of the order-`order` approximant: U the odd part a (b_1 I + b_3 a^2 + ...), V the even
    part b_0 I + b_2 a^2 + ..., from the shared even powers of a."""
    b = _PADE[order]
    odd = sum(b[k] * powers[k - 1] for k in range(1, order + 1, 2))
    even = sum(b[k] * powers[k] for k in range(0, order + 1, 2))
    return fnp.matmul(a, odd), even


def expm(A: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> Array:
    """The matrix exponential of square matrices (..., n, n), as `jax.scipy.linalg.expm`: scaling
    and squaring with the Pade approximant of order 3, 5 or 7 that |A|_1 calls for (JAX's f32
    choice), A scaled by 2^-s, s = max(0, floor(log2(|A|_1 / 3.93))), then squared s times.

    Args:
        upper_triangular: A is upper triangular (the approximant's quotient by a triangular solve).
        max_squarings: the most squarings; a matrix that needs more gives NaN, as in JAX.
    """
    name = "expm"
    upper_triangular = _flag(name, "upper_triangular", upper_triangular)
    if isinstance(max_squarings, bool) or not isinstance(max_squarings, (int, np.integer)) or max_squarings < 0:
        raise TraceError(f"{name}: max_squarings must be a static non-negative integer, got {_brief(max_squarings)}",
                         user_site())
    a, shape = _square(name, A, "A")
    n = shape[-1]
    # The scale and the order are piecewise constant in A: no derivative flows through them.
    norm = fnp.stop_gradient(fnp.max(fnp.sum(fnp.abs(a), axis=-2), axis=-1, initial=0.0))
    tiny = float(np.finfo(np.float32).tiny)  # log2 of 0 would be -inf, and 0 squarings all the same
    squarings = fnp.maximum(0.0, fnp.floor(fnp.log2(fnp.maximum(norm, tiny) / _MAX_NORM)))
    a = a / fnp.power(2.0, squarings)[..., None, None]
    eye = fnp.broadcast_to(fnp.eye(n, dtype=_dtype(a)), shape)
    a2 = fnp.matmul(a, a)
    a4 = fnp.matmul(a2, a2)
    powers = {0: eye, 2: a2, 4: a4, 6: fnp.matmul(a4, a2)}
    (u3, v3), (u5, v5), (u7, v7) = (_pade_terms(a, order, powers) for order in (3, 5, 7))
    below = [(norm < bound)[..., None, None] for bound in _PADE_BOUNDS]
    u = fnp.where(below[0], u3, fnp.where(below[1], u5, u7))
    v = fnp.where(below[0], v3, fnp.where(below[1], v5, v7))
    p, q = u + v, v - u  # exp(A) ~ q(A)^-1 p(A)
    r = solve_triangular(q, p) if upper_triangular else fnp_linalg.solve(q, p)
    if max_squarings:
        def square(r: Array, k: Array) -> tuple[Array, None]:
            return fnp.where((k < squarings)[..., None, None], fnp.matmul(r, r), r), None

        r = scan(square, r, fnp.arange(max_squarings, dtype=DType.f32))[0]
    return fnp.where((squarings > max_squarings)[..., None, None], np.float32(np.nan), r)


def expm_frechet(A: ArrayLike, E: ArrayLike, *, method: str | None = None,
                 compute_expm: bool = True) -> Array | tuple[Array, Array]:
    """The Frechet derivative of the matrix exponential at A (..., n, n) in the direction E (A's
    shape), as `jax.scipy.linalg.expm_frechet`: the forward derivative (jvp) of `expm`.

    Returns:
        `(expm(A), L(A, E))`, or L(A, E) alone without `compute_expm`.
    """
    name = "expm_frechet"
    compute_expm = _flag(name, "compute_expm", compute_expm)
    a_shape, e_shape = _matrices(name, A, "A"), _matrices(name, E, "E")
    if a_shape != e_shape:
        raise ShapeError(f"{name}: A and E must have the same shape, got {a_shape} and {e_shape}", user_site())
    a, e = _float_operands(name, A, E, promote=True)
    value, derivative = jvp(expm, (a,), (e,))
    return (value, derivative) if compute_expm else derivative


# ---------------------------------------------------------------------------
# Special matrices
# ---------------------------------------------------------------------------


def block_diag(*arrs: ArrayLike) -> Array:
    """The block-diagonal matrix with the given arrays (each at most 2-D; a scalar or a vector is
    one row) on its diagonal, zeros elsewhere, as `jax.scipy.linalg.block_diag`; the dtypes
    promote. No arrays give a (1, 0) matrix."""
    name = "block_diag"
    if not arrs:
        return fnp.zeros((1, 0))
    for k, x in enumerate(arrs):
        if len(_shape(x)) > 2:
            raise ShapeError(f"{name}: the arrays must have at most 2 dimensions, got shape {_shape(x)} at argument "
                             f"{k}", user_site())
    dtype = fnp.result_type(*arrs)
    blocks = [fnp.atleast_2d(asarray(x, dtype)) for x in arrs]
    total = sum(_shape(x)[1] for x in blocks)
    rows, start = [], 0
    for x in blocks:
        cols = _shape(x)[1]
        rows.append(fnp.pad(x, ((0, 0), (start, total - start - cols))))
        start += cols
    return fnp.concatenate(rows, axis=0)


def toeplitz(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Toeplitz matrix with first column c (m,) and first row r (n,) (r[0] is ignored; r = c
    when None): entry (i, j) is c[i - j] on and below the diagonal, r[j - i] above it, as
    `jax.scipy.linalg.toeplitz`. Leading axes of c and r broadcast into a batch of matrices
    (..., m, n); a scalar is a vector of one."""
    (c, r), batch = _vectors("toeplitz", ("c", c), ("r", c if r is None else r))
    m, n = _shape(c)[-1], _shape(r)[-1]
    if m == 0 or n == 0:
        return fnp.zeros((*batch, m, n), _dtype(c))
    elements = fnp.concatenate([fnp.flip(c, -1), r[..., 1:]], axis=-1)
    index = (m - 1) - np.arange(m)[:, None] + np.arange(n)  # elements[index[i, j]] is c[i - j] or r[j - i]
    return _gathered(elements, index)


def hilbert(n: int) -> Array:
    """The Hilbert matrix of order n, (n, n) f32 with entry (i, j) = 1 / (i + j + 1), as
    `jax.scipy.linalg.hilbert`."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise TraceError(f"hilbert: n must be a static non-negative integer, got {_brief(n)}", user_site())
    i = fnp.arange(n, dtype=DType.f32)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


def _order(name: str, n: Any, least: int = 0) -> int:
    """A matrix order: a static integer of at least `least`."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TraceError(f"{name}: n must be a static integer, got {_brief(n)}", user_site())
    if n < least:
        raise ShapeError(f"{name}: n must be at least {least}, got {n}", user_site())
    return int(n)


def _vectors(name: str, *named: tuple[str, ArrayLike], inexact: bool = False) -> tuple[list[Array], tuple[int, ...]]:
    """The (argument name, value) pairs' values as arrays of at least one axis in one dtype (a
    float one with `inexact`), broadcast to the batch their leading axes make, and that batch."""
    xs = [fnp.atleast_1d(asarray(x)) for _, x in named]
    dtype = fnp.result_type(*xs)
    dtype = DType.f32 if inexact and not dtype.is_float else dtype
    xs = [asarray(x, dtype) for x in xs]
    try:
        batch = fnp.broadcast_shapes(*(_shape(x)[:-1] for x in xs))
    except ShapeError:
        shapes = " and ".join(f"{what} {_shape(x)}" for (what, _), x in zip(named, xs))
        raise ShapeError(f"{name}: the leading axes of {shapes} do not broadcast", user_site()) from None
    return [fnp.broadcast_to(x, (*batch, _shape(x)[-1])) for x in xs], batch


def _gathered(v: Array, index: np.ndarray) -> Array:
    """v's last axis read at `index` (a static integer array): shape (..., *index.shape)."""
    return fnp.take(v, index.astype(np.int32), axis=-1)


def circulant(c: ArrayLike) -> Array:
    """The circulant matrix whose first column is c: entry (i, j) is c[(i - j) mod n], as
    `jax.scipy.linalg.circulant`; leading axes of c are a batch."""
    (c,), _ = _vectors("circulant", ("c", c))
    n = _shape(c)[-1]
    return _gathered(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % max(n, 1))


def companion(a: ArrayLike) -> Array:
    """The companion matrix of the polynomial with coefficients a (highest power first, at least
    2): first row -a[1:] / a[0], ones below the diagonal, as `jax.scipy.linalg.companion`."""
    (a,), batch = _vectors("companion", ("a", a), inexact=True)
    if _shape(a)[-1] < 2:
        raise ShapeError(f"companion: a needs at least 2 coefficients along its last axis, got {_shape(a)}",
                         user_site())
    m = _shape(a)[-1] - 1
    first = fnp.negative(fnp.divide(a[..., 1:], a[..., :1]))
    below = fnp.broadcast_to(fnp.eye(m, m, k=-1, dtype=_dtype(a))[1:], (*batch, m - 1, m))
    return fnp.concatenate([first[..., None, :], below], axis=-2)


def convolution_matrix(a: ArrayLike, n: int, mode: str = "full") -> Array:
    """The Toeplitz matrix whose product with a vector of length n is its convolution with a, as
    `jax.scipy.linalg.convolution_matrix`: mode 'full' (m + n - 1 rows), 'same' (max(m, n)) or
    'valid' (max(m, n) - min(m, n) + 1)."""
    n = _order("convolution_matrix", n, 1)
    if mode not in ("full", "valid", "same"):
        raise InputError(f"convolution_matrix: mode must be 'full', 'valid' or 'same', got {_brief(mode)}",
                         user_site())
    a = asarray(a)
    if not _shape(a) or _shape(a)[-1] < 1:
        raise ShapeError(f"convolution_matrix: a must have at least one entry along a last axis, got {_shape(a)}",
                         user_site())
    m = _shape(a)[-1]
    pad = [(0, 0)] * (len(_shape(a)) - 1) + [(0, n - 1)]
    az, raz = fnp.pad(a, pad), fnp.pad(fnp.flip(a, -1), pad)
    length = m + n - 1
    trim = {"full": (0, 0), "valid": (min(n, m) - 1,) * 2,
            "same": ((min(n, m) - 1) // 2, (min(n, m) - 1) - (min(n, m) - 1) // 2)}[mode]
    return toeplitz(az[..., trim[0]:length - trim[1]], raz[..., length - n - trim[0]:length - trim[0]])


def fiedler(a: ArrayLike) -> Array:
    """The symmetric Fiedler matrix |a[i] - a[j]|, as `jax.scipy.linalg.fiedler`."""
    a = fnp.atleast_1d(asarray(a))
    return fnp.abs(fnp.subtract(a[..., :, None], a[..., None, :]))


def fiedler_companion(a: ArrayLike) -> Array:
    """The Fiedler companion matrix of the polynomial with coefficients a (highest power first): a
    pentadiagonal matrix with a's companion's eigenvalues, as `jax.scipy.linalg.fiedler_companion`."""
    (a,), batch = _vectors("fiedler_companion", ("a", a), inexact=True)
    if _shape(a)[-1] == 0:
        raise ShapeError(f"fiedler_companion: a needs coefficients along its last axis, got {_shape(a)}", user_site())
    n = _shape(a)[-1] - 1
    if n == 0:
        return fnp.zeros((*batch, 0, 0), _dtype(a))
    a = fnp.divide(a, a[..., :1])
    if n == 1:
        return fnp.negative(a[..., 1:])[..., None]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even, (j == i + 2) & even,
                  (j == i - 1) & even & (i >= 2), (j == i - 2) & odd & (i >= 3)]
    negated = fnp.negative(a)
    choices = [negated[..., 1:2, None], 1.0, _gathered(negated, np.minimum(i + 2, n)), 1.0,
               _gathered(negated, np.minimum(i + 1, n)), 1.0]
    out = fnp.zeros((*batch, n, n), _dtype(a))
    for condition, choice in reversed(list(zip(conditions, choices))):  # the first that holds wins
        out = fnp.where(condition, choice, out)
    return out


def hadamard(n: int, dtype: Any = int) -> Array:
    """The Hadamard matrix of order n (a power of 2) by Sylvester's construction, entries +-1, as
    `jax.scipy.linalg.hadamard` (i32 by default)."""
    n = _order("hadamard", n, 1)
    if n & (n - 1):
        raise ShapeError(f"hadamard: n must be a positive power of 2, got {n}", user_site())
    h = np.ones((1, 1), np.int32)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return asarray(h, fnp.dtype(dtype))


def hankel(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Hankel matrix with first column c (m,) and last row r (n,) (r[0] is ignored; zeros
    when None): entry (i, j) is c[i + j] where i + j < m, else r[i + j - m + 1], as
    `jax.scipy.linalg.hankel`; leading axes of c and r broadcast into a batch."""
    for what, x in (("c", c), ("r", r)):
        if x is not None and not _shape(x):
            raise ShapeError(f"hankel: {what} must have at least one axis, got a scalar", user_site())
    (c, r), batch = _vectors("hankel", ("c", c), ("r", fnp.zeros_like(asarray(c)) if r is None else r))
    m, n = _shape(c)[-1], _shape(r)[-1]
    if m == 0 or n == 0:
        return fnp.zeros((*batch, m, n), _dtype(c))
    return _gathered(fnp.concatenate([c, r[..., 1:]], axis=-1), np.arange(m)[:, None] + np.arange(n)[None, :])


def helmert(n: int, full: bool = False) -> Array:
    """The Helmert matrix of order n, f32: rows orthonormal and orthogonal to the ones vector
    ((n - 1, n)), with `full` the row of 1 / sqrt(n) above them, as `jax.scipy.linalg.helmert`."""
    n = _order("helmert", n, 1)
    full = _flag("helmert", "full", full)
    i, j = np.arange(n - 1)[:, None], np.arange(n)[None, :]
    k = (i + 1).astype(np.float32)
    denominator = np.sqrt(k * (k + np.float32(1)))
    h = np.where(j <= i, np.float32(1) / denominator, np.where(j == i + 1, -k / denominator, np.float32(0)))
    if full:
        h = np.concatenate([np.full((1, n), np.float32(1) / np.sqrt(np.float32(n))), h])
    return asarray(h.astype(np.float32))


def _binomial(n: Array, k: Array) -> Array:
    """n choose k as e^(lgamma(n + 1) - lgamma(n - k + 1) - lgamma(k + 1)), as JAX's: 0 past n."""
    return fnp.exp(lgamma(n + 1.0) - lgamma(n - k + 1.0) - lgamma(k + 1.0))


def invhilbert(n: int) -> Array:
    """The inverse of the Hilbert matrix of order n, f32 (its integer entries grow fast: exact in
    f32 only for small n), as `jax.scipy.linalg.invhilbert`."""
    n = _order("invhilbert", n)
    a = fnp.arange(n, dtype=DType.f32)
    i, j = a[:, None], a[None, :]
    s = i + j
    return fnp.power(-1.0, s) * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1) * comb(s, i) ** 2


def _pascal_kind(name: str, kind: Any) -> str:
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise InputError(f"{name}: kind must be 'symmetric', 'lower' or 'upper', got {_brief(kind)}", user_site())
    return kind


def pascal(n: int, kind: str | None = None) -> Array:
    """The Pascal matrix of order n, f32: binomials i choose j ('lower'), their transpose
    ('upper') or the product of the two ('symmetric', the default), as `jax.scipy.linalg.pascal`."""
    kind = _pascal_kind("pascal", kind)
    a = fnp.arange(_order("pascal", n), dtype=DType.f32)
    lower = _binomial(a[:, None], a[None, :])
    return lower if kind == "lower" else _t(lower) if kind == "upper" else fnp.matmul(lower, _t(lower))


def invpascal(n: int, kind: str | None = None) -> Array:
    """The inverse of `pascal(n, kind)`, f32: (-1)^(i - j) (i choose j) below the diagonal for
    'lower', as `jax.scipy.linalg.invpascal`."""
    kind = _pascal_kind("invpascal", kind)
    a = fnp.arange(_order("invpascal", n), dtype=DType.f32)
    i, j = a[:, None], a[None, :]
    lower = fnp.power(-1.0, i - j) * _binomial(i, j)
    return lower if kind == "lower" else _t(lower) if kind == "upper" else fnp.matmul(_t(lower), lower)


def leslie(f: ArrayLike, s: ArrayLike) -> Array:
    """The Leslie matrix of a population model: fecundities f (n,) in the first row, survival
    rates s (n - 1,) below the diagonal, as `jax.scipy.linalg.leslie`."""
    (f, s), batch = _vectors("leslie", ("f", f), ("s", s))
    n = _shape(f)[-1]
    if n < 2 or _shape(s)[-1] != n - 1:
        raise ShapeError(f"leslie: f needs at least 2 entries and s one fewer along their last axes, got "
                         f"{_shape(f)} and {_shape(s)}", user_site())
    below = fnp.multiply(s[..., :, None], fnp.eye(n - 1, n, dtype=_dtype(s)))
    return fnp.concatenate([f[..., None, :], below], axis=-2)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
