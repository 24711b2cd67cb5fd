"""`jax.numpy.linalg` as `fg.numpy.linalg`: norms and the products and views the array API puts
here (matmul, outer, tensordot, vecdot, matrix_transpose, trace, diagonal, cross, matrix_power,
multi_dot), and the factorizations and solvers built on `fg.lax.linalg` (cholesky, solve, inv,
tensorinv, tensorsolve, det, slogdet, qr, eigh, eigvalsh, svd, svdvals, pinv, matrix_rank,
lstsq, cond), all composites of fgrad's functions.

The factorizations are loops (`scan`) over the rows or columns of f32 matrices, or sweeps of
Jacobi rotations, with JAX's derivative rules attached (fgrad/lax/linalg.py). The general
eigendecomposition (eig, eigvals) is not here.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from fgrad.errors import ShapeError, TraceError
from fgrad.ir import DType
from fgrad.trace import Tensor, user_site
from fgrad.numpy import products, shapes
from fgrad.numpy.promotion import ArrayLike, _as_dtype, _brief, _dtype, _float_dtype, _shape, asarray
from fgrad.numpy.shapes import broadcast_to, matrix_transpose
from fgrad.numpy.creation import eye, ones as fnp_ones
from fgrad.numpy.elementwise import (abs, astype, divide, greater, greater_equal, isnan, less, log as fnp_log,
                                     logical_and, logical_not, multiply, not_equal, power, sign as fnp_sign, sqrt,
                                     where as _where)
from fgrad.numpy.reductions import any as _any, max as _max, min as _min, sum as _sum

__all__ = [  # the names of jax.numpy.linalg that fgrad has (fg.numpy.linalg.*; not re-exported by fgrad)
    "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond", "cross", "det", "diagonal", "eigh",
    "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
    "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv",
    "tensorsolve", "trace", "vecdot", "vector_norm",
]


def _axis_list(name: str, axis: Any, ndim: int) -> tuple[int, ...]:
    """`axis` (an int or a tuple) normalised for `ndim` axes, in the order given (a matrix norm's
    row axis first)."""
    given = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in given:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not -ndim <= a < ndim:
            raise ShapeError(f"{name}: axis {a!r} is out of range for {ndim} axes", user_site())
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{name}: repeated axis in {tuple(given)}", user_site())
    return tuple(out)


def vector_norm(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Tensor | np.ndarray:
    """The vector `ord`-norm of x over `axis` (all of x flattened if None), as
    `jnp.linalg.vector_norm`: 2 sqrt(sum(x^2)), inf max|x|, -inf min|x|, 0 the count of nonzero
    entries, 1 sum|x|, any other p sum(|x|^p)^(1/p). As in JAX, its gradient at 0 is NaN for
    ord 2 and the p-norms."""
    shape = _shape(x)
    axes = None if axis is None else _axis_list("vector_norm", axis, len(shape))
    if isinstance(ord, str) or not (ord is None or isinstance(ord, (int, float, np.integer, np.floating))):
        raise ShapeError(f"vector_norm: invalid ord {_brief(ord)} for a vector norm" +
                         (f"; use fg.inf for {ord!r}" if ord in ("inf", "-inf") else ""), user_site())
    if ord is None or ord == 2:
        return sqrt(_sum(multiply(x, x), axis=axes, keepdims=keepdims))
    if ord == math.inf:
        return _max(abs(x), axis=axes, keepdims=keepdims, initial=0)
    if ord == -math.inf:
        return _min(abs(x), axis=axes, keepdims=keepdims)
    if ord == 0:
        return _sum(not_equal(x, 0), axis=axes, keepdims=keepdims, dtype=_float_dtype(_dtype(x)))
    if ord == 1:
        return _sum(abs(x), axis=axes, keepdims=keepdims)
    magnitude = abs(asarray(x, _float_dtype(_dtype(x))))
    return power(_sum(power(magnitude, float(ord)), axis=axes, keepdims=keepdims), 1.0 / float(ord))


def norm(x: ArrayLike, ord: int | float | str | None = None, axis: int | tuple[int, ...] | None = None,
         keepdims: bool = False) -> Tensor | np.ndarray:
    """A vector or matrix norm, as `jnp.linalg.norm` (integers converted to f32): over one axis a
    vector norm (`vector_norm`'s ords), over two a matrix norm: 'fro' (None) sqrt(sum(x^2)), 1 /
    -1 the largest / smallest column sum of |x|, inf / -inf the largest / smallest row sum, 2 / -2
    the largest / smallest singular value, 'nuc' their sum (`svdvals`). With axis=None: ord None
    is the 2-norm of all of x; otherwise x must be 1-D or 2-D."""
    x = asarray(x)
    x = asarray(x, _float_dtype(_dtype(x)))
    ndim = len(_shape(x))
    if axis is None:
        if ord is None:
            return sqrt(_sum(multiply(x, x), keepdims=keepdims))
        axis = tuple(range(ndim))
    axes = _axis_list("norm", axis, ndim)
    if len(axes) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axes, keepdims=keepdims)
    if len(axes) != 2:
        raise ShapeError(f"norm: {len(axes)} axes {axes} of {_shape(x)}: give one axis for a vector norm or two "
                         "for a matrix norm", user_site())
    row, col = axes
    if ord is None or ord in ("fro", "f"):
        return sqrt(_sum(multiply(x, x), axis=axes, keepdims=keepdims))
    if ord in ("nuc", 2, -2):
        s = svdvals(shapes.moveaxis(x, axes, (-2, -1)))
        y = _max(s, axis=-1, initial=0) if ord == 2 else _min(s, axis=-1) if ord == -2 else _sum(s, axis=-1)
        return shapes.expand_dims(y, axes) if keepdims else y
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise ShapeError(f"norm: invalid ord {_brief(ord)} for a matrix norm", user_site())
    summed, kept = (row, col) if ord in (1, -1) else (col, row)  # column sums for 1, row sums for inf
    if not keepdims and kept > summed:
        kept -= 1
    sums = _sum(abs(x), axis=summed, keepdims=keepdims)
    return _max(sums, axis=kept, keepdims=keepdims, initial=0) if ord > 0 else _min(sums, axis=kept, keepdims=keepdims)


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: str | int | float = "fro") -> Tensor | np.ndarray:
    """The matrix `ord`-norm of the last two axes, as `jnp.linalg.matrix_norm` ('fro', 'nuc', 1,
    -1, 2, -2, inf, -inf; `norm`'s rules)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def matmul(x1: ArrayLike, x2: ArrayLike, /, *, precision: Any = None,
           preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """`fg.matmul`, as `jnp.linalg.matmul`; `preferred_element_type` sets the dtype the operands
    are multiplied and summed in."""
    if preferred_element_type is None:
        return products.matmul(x1, x2)
    dt = _as_dtype(preferred_element_type, "matmul")
    return products.matmul(asarray(x1, dt), asarray(x2, dt))


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """The outer product of two 1-D vectors, as `jnp.linalg.outer` (which, unlike `fg.outer`,
    does not flatten)."""
    if len(_shape(x1)) != 1 or len(_shape(x2)) != 1:
        raise ShapeError(f"outer: the operands must be 1-D, got {_shape(x1)} and {_shape(x2)}; fg.outer flattens",
                         user_site())
    return products.outer(x1, x2)


def tensordot(x1: ArrayLike, x2: ArrayLike, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2,
              precision: Any = None, preferred_element_type: Any = None, out_sharding: Any = None
              ) -> Tensor | np.ndarray:
    """`fg.tensordot`, as `jnp.linalg.tensordot` (axes by keyword)."""
    return products.tensordot(x1, x2, axes, preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """`fg.vecdot`, as `jnp.linalg.vecdot`."""
    return products.vecdot(x1, x2, axis=axis, preferred_element_type=preferred_element_type)


def trace(x: ArrayLike, /, *, offset: int = 0, dtype: Any = None) -> Tensor | np.ndarray:
    """The sums of diagonal `offset` of the matrices in the last two axes, as `jnp.linalg.trace`."""
    return shapes.trace(x, offset, -2, -1, dtype)


def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Tensor | np.ndarray:
    """Diagonal `offset` of the matrices in the last two axes, as `jnp.linalg.diagonal`."""
    return shapes.diagonal(x, offset, -2, -1)


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Tensor | np.ndarray:
    """The cross product of the 3-vectors along `axis`, the other axes broadcast, as
    `jnp.linalg.cross` (fg.cross also takes 2-vectors)."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise ShapeError(f"cross: axis must be a single integer, got {axis!r}", user_site())
    for x in (x1, x2):
        shape = _shape(x)
        if not shape or not -len(shape) <= axis < len(shape) or shape[axis] != 3:
            raise ShapeError(f"cross: both operands must hold 3-vectors along axis {axis}, got {_shape(x1)} and "
                             f"{_shape(x2)}", user_site())
    return products.cross(x1, x2, axis=axis)


def matrix_power(a: ArrayLike, n: int) -> Tensor | np.ndarray:
    """The square matrices of the last two axes to the integer power n, by repeated squaring, as
    `jnp.linalg.matrix_power`: a negative n raises `inv(a)` to -n."""
    x = asarray(a)
    shape = _shape(x)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(f"matrix_power: needs square matrices in the last two axes, got {shape}", user_site())
    try:
        n = operator.index(n)
    except TypeError:
        raise TraceError(f"matrix_power: the exponent must be a static integer, got {_brief(n)}", user_site()) from None
    if n < 0:
        x, n = inv(x), -n
    if n == 0:
        return broadcast_to(eye(shape[-1], dtype=_dtype(x)), shape)
    result, power_of_x = None, x
    while n:
        n, bit = divmod(n, 2)
        if bit:
            result = power_of_x if result is None else products.matmul(result, power_of_x)
        if n:
            power_of_x = products.matmul(power_of_x, power_of_x)
    return result


def multi_dot(arrays: Sequence[ArrayLike], *, precision: Any = None) -> Tensor | np.ndarray:
    """The product of a chain of matrices (the first and last may be vectors), as
    `jnp.linalg.multi_dot`: one einsum, contracted in the cheapest greedy order."""
    if not isinstance(arrays, (list, tuple)) or len(arrays) < 2:
        raise ShapeError(f"multi_dot: needs a sequence of at least two arrays, got {_brief(arrays)}", user_site())
    ranks = [len(_shape(a)) for a in arrays]
    if not (ranks[0] in (1, 2) and ranks[-1] in (1, 2) and all(r == 2 for r in ranks[1:-1])):
        raise ShapeError(f"multi_dot: the first and last arrays must be 1-D or 2-D and the others 2-D, got "
                         f"{[_shape(a) for a in arrays]}", user_site())
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if len(arrays) + 1 > len(letters):
        raise ShapeError(f"multi_dot: at most {len(letters) - 1} arrays", user_site())
    terms = [letters[k:k + 2] for k in range(len(arrays))]
    terms[0] = terms[0] if ranks[0] == 2 else terms[0][1]
    terms[-1] = terms[-1] if ranks[-1] == 2 else terms[-1][0]
    out = (letters[0] if ranks[0] == 2 else "") + (letters[len(arrays)] if ranks[-1] == 2 else "")
    return products.einsum(",".join(terms) + "->" + out, *arrays)


# ---------------------------------------------------------------------------
# Factorizations and solvers (fgrad.lax.linalg holds the loops and their derivative rules; it
# imports fgrad.numpy, so it is read at call time)
# ---------------------------------------------------------------------------


class SlogdetResult(NamedTuple):
    """slogdet's result, as `jnp.linalg.SlogdetResult`."""
    sign: Any
    logabsdet: Any


def _lax_linalg() -> Any:
    from fgrad.lax import linalg
    return linalg


def cholesky(a: ArrayLike, *, upper: bool = False, symmetrize_input: bool = True) -> Tensor | np.ndarray:
    """The Cholesky factor of symmetric positive-definite matrices (..., n, n), as
    `jnp.linalg.cholesky`: lower L with a = L @ L^T, or upper U = L^T with `upper`; NaN in the
    factor's triangle where a matrix is not positive definite. Integers are converted to f32.

    Args:
        upper: return the upper factor U (a = U^T @ U).
        symmetrize_input: factor (a + a^T) / 2 (both triangles read, the better gradient); else
            only a's lower triangle is read.
    """
    lax_linalg = _lax_linalg()
    lax_linalg._matrices("cholesky", a, "a")
    if not isinstance(upper, (bool, np.bool_)):
        raise TraceError(f"cholesky: upper must be True or False, got {_brief(upper)}", user_site())
    a, = lax_linalg._float_operands("cholesky", a, promote=True)
    factor = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return matrix_transpose(factor) if upper else factor


def _right_hand_side(name: str, a: ArrayLike, b: ArrayLike, *,
                     vectors_deprecated: bool = False) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray, bool]:
    """(a, b, vector) for solving a x = b, b read as `jnp.linalg.solve` reads it: one vector (m,),
    solved against every matrix of a, or matrices (..., m, k) whose leading axes broadcast with
    a's. Both come back promoted together to a float dtype and broadcast to the same leading axes,
    b as matrices (a vector as one column). A b with one axis fewer than a and m last was a batch
    of vectors before JAX 0.5: refused where it cannot be read as matrices, and with
    `vectors_deprecated` (jax.scipy.linalg's triangular, Cholesky and LU solvers, which still read
    it as vectors, with a FutureWarning) wherever it has that shape.

    a must already be checked to hold square matrices (..., m, m)."""
    a_shape, b_shape = _shape(a), _shape(b)
    m = a_shape[-1]
    if not b_shape:
        raise ShapeError(f"{name}: b must be a vector (m,) or matrices (..., m, k), got a scalar, with a {a_shape}",
                         user_site())
    if (len(b_shape) > 1 and len(a_shape) == len(b_shape) + 1 and b_shape[-1] == m
            and (vectors_deprecated or b_shape[-2] != m)):
        raise ShapeError(f"{name}: b {b_shape} is a batch of vectors (..., m) for a {a_shape}, which JAX no longer "
                         "reads as vectors: b is a vector (m,) or matrices (..., m, k); for a batch of vectors use "
                         f"{name}(a, b[..., None])[..., 0]", user_site())
    if b_shape[-1 if len(b_shape) == 1 else -2] != m:
        want = "(m,)" if len(b_shape) == 1 else "(..., m, k)"
        raise ShapeError(f"{name}: b {b_shape} must be {want} with m = {m}, the size of a {a_shape}", user_site())
    a, b = _lax_linalg()._float_operands(name, a, b, promote=True)
    vector = len(b_shape) == 1
    if vector:
        b = b[:, None]
    try:
        batch = shapes.broadcast_shapes(a_shape[:-2], _shape(b)[:-2])
    except ShapeError:
        raise ShapeError(f"{name}: the leading axes of a {a_shape} and b {b_shape} do not broadcast",
                         user_site()) from None
    return broadcast_to(a, (*batch, m, m)), broadcast_to(b, (*batch, *_shape(b)[-2:])), vector


def solve(a: ArrayLike, b: ArrayLike) -> Tensor | np.ndarray:
    """x with a @ x = b, as `jnp.linalg.solve`, by LU with partial pivoting; infinities or NaNs
    where a is singular. Integers are converted to f32.

    Args:
        a: square matrices (..., m, m).
        b: one vector (m,), solved against every matrix of a (result (..., m)); or matrices
            (..., m, n), whose leading axes broadcast with a's (result (..., m, n)).
    """
    lax_linalg = _lax_linalg()
    lax_linalg._matrices("solve", a, "a")
    a, b, vector = _right_hand_side("solve", a, b)
    x = lax_linalg._solve(a, b)
    return x[..., 0] if vector else x


def inv(a: ArrayLike) -> Tensor | np.ndarray:
    """The inverses of square matrices (..., n, n), as `jnp.linalg.inv`: solve(a, I); infinities
    or NaNs where a matrix is singular. Integers are converted to f32."""
    shape = _lax_linalg()._matrices("inv", a, "a")
    return solve(a, broadcast_to(eye(shape[-1], dtype=_dtype(a)), shape))


def tensorinv(a: ArrayLike, ind: int = 2) -> Tensor | np.ndarray:
    """The inverse of a read as a matrix whose rows are its first `ind` axes and whose columns
    the rest (their sizes' products equal), as `jnp.linalg.tensorinv`: shape
    a.shape[ind:] + a.shape[:ind], so that tensordot(tensorinv(a), a, ind) is the identity."""
    if isinstance(ind, bool) or not isinstance(ind, (int, np.integer)) or ind <= 0:
        raise ShapeError(f"tensorinv: ind must be a positive integer, got {_brief(ind)}", user_site())
    shape = _shape(asarray(a))
    rows, columns = shape[:ind], shape[ind:]
    if math.prod(rows) != math.prod(columns) or not columns:
        raise ShapeError(f"tensorinv: the product of the first ind={ind} axes of {shape} must equal that of the "
                         "others", user_site())
    return shapes.reshape(inv(shapes.reshape(a, (math.prod(rows), math.prod(columns)))), (*columns, *rows))


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: Sequence[int] | None = None) -> Tensor | np.ndarray:
    """x with tensordot(a, x, x.ndim) = b, as `jnp.linalg.tensorsolve`: a's first b.ndim axes
    are b's shape, the rest x's (their sizes' products equal); `axes` of a are moved to the end
    first."""
    a, b = asarray(a), asarray(b)
    if axes is not None:  # moved last in their order, as NumPy's
        moved = _axis_list("tensorsolve", axes, len(_shape(a)))
        a = shapes.transpose(a, [k for k in range(len(_shape(a))) if k not in moved] + list(moved))
    a_shape, b_shape = _shape(a), _shape(b)
    out_shape = a_shape[len(b_shape):]
    if a_shape[:len(b_shape)] != b_shape or math.prod(b_shape) != math.prod(out_shape):
        raise ShapeError(f"tensorsolve: a {a_shape} must begin with b's shape {b_shape}, and the product of the rest "
                         "must equal b's size", user_site())
    n = math.prod(b_shape)
    return shapes.reshape(solve(shapes.reshape(a, (n, n)), shapes.reshape(b, (n,))), out_shape)


def _checked_square(name: str, a: ArrayLike) -> tuple[Tensor | np.ndarray, int]:
    lax_linalg = _lax_linalg()
    shape = lax_linalg._matrices(name, a, "a")
    return lax_linalg._float_operands(name, a, promote=True)[0], shape[-1]


def det(a: ArrayLike) -> Tensor | np.ndarray:
    """The determinants of square matrices (..., n, n), as `jnp.linalg.det`: written out for n <= 3,
    else sign * exp(logabsdet) of `slogdet`, with gradient det * inv(a)^T. Integers are converted
    to f32."""
    a, n = _checked_square("det", a)
    if n == 0:
        return fnp_ones(_shape(a)[:-2])
    e = [[a[..., i, j] for j in range(n)] for i in range(n)] if n <= 3 else None
    if n == 1:
        return e[0][0]
    if n == 2:
        return e[0][0] * e[1][1] - e[0][1] * e[1][0]
    if n == 3:  # JAX's order of terms
        return (e[0][0] * e[1][1] * e[2][2] + e[0][1] * e[1][2] * e[2][0] + e[0][2] * e[1][0] * e[2][1]
                - e[0][2] * e[1][1] * e[2][0] - e[0][0] * e[1][2] * e[2][1] - e[0][1] * e[1][0] * e[2][2])
    return _lax_linalg()._det(a)


def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """The sign and the natural log of the absolute value of the determinants of square matrices
    (..., n, n), as `jnp.linalg.slogdet`: `SlogdetResult(sign, logabsdet)`, each a.shape[:-2];
    sign 0 and logabsdet -inf for a singular matrix. Written out for n <= 2, else from the LU
    factorization (method None or 'lu') or the Householder QR (method 'qr'). Integers are
    converted to f32."""
    if method not in (None, "lu", "qr"):
        raise ShapeError(f"slogdet: method {_brief(method)} is not supported: use None or 'lu' (the LU "
                         "factorization) or 'qr'", user_site())
    a, n = _checked_square("slogdet", a)
    if n == 0:
        batch = _shape(a)[:-2]
        return SlogdetResult(fnp_ones(batch), multiply(fnp_ones(batch), 0.0))
    if n <= 2:
        d = a[..., 0, 0] if n == 1 else a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
        return SlogdetResult(fnp_sign(d), fnp_log(abs(d)))
    lax_linalg = _lax_linalg()
    return SlogdetResult(*(lax_linalg._slogdet_qr if method == "qr" else lax_linalg._slogdet)(a))


# ---------------------------------------------------------------------------
# Orthogonal and spectral decompositions (fgrad.lax.linalg: Householder QR, Jacobi eigh and svd)
# ---------------------------------------------------------------------------


class QRResult(NamedTuple):
    """qr's result, as `jnp.linalg.QRResult`."""
    Q: Any
    R: Any


class EighResult(NamedTuple):
    """eigh's result, as `jnp.linalg.EighResult`."""
    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    """svd's result, as `jnp.linalg.SVDResult`."""
    U: Any
    S: Any
    Vh: Any


def _float_matrices(name: str, a: ArrayLike, square: bool = False) -> Tensor | np.ndarray:
    """a checked to hold matrices in its last two axes, promoted to f32 as jax.numpy promotes."""
    lax_linalg = _lax_linalg()
    lax_linalg._matrices(name, a, "a", square=square)
    return lax_linalg._float_operands(name, a, promote=True)[0]


def qr(a: ArrayLike, mode: str = "reduced") -> QRResult | Tensor | np.ndarray:
    """The QR decomposition a = Q @ R of matrices (..., m, n) by Householder reflections, as
    `jnp.linalg.qr`, with LAPACK's signs (see `fg.lax.linalg.qr`). Integers are converted to f32.

    Args:
        mode: 'reduced' (Q (..., m, k), R (..., k, n), k = min(m, n)), 'complete' (Q (..., m, m),
            R (..., m, n)), 'r' (R (..., k, n) alone) or 'raw' (LAPACK's packed reflectors,
            transposed, (..., n, m), and their taus (..., k)).
    """
    if mode not in ("reduced", "complete", "r", "raw", "full"):
        raise ShapeError(f"qr: unsupported mode {_brief(mode)}: use 'reduced', 'complete', 'r' or 'raw'", user_site())
    a = _float_matrices("qr", a)
    lax_linalg = _lax_linalg()
    if mode == "raw":
        packed, taus = lax_linalg._geqrf(a)
        return QRResult(matrix_transpose(packed), taus)
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def _uplo(name: str, UPLO: str | None) -> bool:
    if UPLO not in (None, "L", "U"):
        raise ShapeError(f"{name}: UPLO must be one of None, 'L', or 'U', got {_brief(UPLO)}", user_site())
    return UPLO != "U"


def eigh(a: ArrayLike, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """The eigenvalues and eigenvectors of real symmetric matrices (..., n, n), as
    `jnp.linalg.eigh`, by cyclic Jacobi rotations: `EighResult(eigenvalues (..., n) ascending,
    eigenvectors (..., n, n))`, column i the unit eigenvector of eigenvalue i (its sign
    arbitrary). Integers are converted to f32.

    Args:
        UPLO: with symmetrize_input=False, the triangle read: 'L' (None) or 'U'.
        symmetrize_input: decompose (a + a^T) / 2, reading both triangles (the better gradient).
    """
    lower = _uplo("eigh", UPLO)
    a = _float_matrices("eigh", a, square=True)
    v, w = _lax_linalg().eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a: ArrayLike, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Tensor | np.ndarray:
    """The eigenvalues of real symmetric matrices (..., n, n), ascending, as `jnp.linalg.eigvalsh`
    (`eigh`'s arguments)."""
    lower = _uplo("eigvalsh", UPLO)
    a = _float_matrices("eigvalsh", a, square=True)
    return _lax_linalg().eigh(a, lower=lower, symmetrize_input=symmetrize_input)[1]


def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: tuple[int, int] | None = None) -> SVDResult | Tensor | np.ndarray:
    """The singular value decomposition a = U @ diag(S) @ Vh of matrices (..., m, n), as
    `jnp.linalg.svd`, by one-sided Jacobi rotations: `SVDResult(U, S, Vh)`, S (..., k) descending,
    k = min(m, n); or S alone without `compute_uv`. The vectors' signs are arbitrary. Integers are
    converted to f32.

    Args:
        full_matrices: U (..., m, m) and Vh (..., n, n); else (..., m, k) and (..., k, n).
        compute_uv: return the vectors too.
        hermitian: a is symmetric: S = |eigenvalues| of `eigh` (of (a + a^T) / 2), sorted
            descending, U its eigenvectors and Vh = (U * sign(eigenvalues))^T.
        subset_by_index: None or (0, k).
    """
    name = "svd"
    lax_linalg = _lax_linalg()
    for flag, value in (("full_matrices", full_matrices), ("compute_uv", compute_uv), ("hermitian", hermitian)):
        lax_linalg._flag(name, flag, value)
    a = _float_matrices(name, a, square=bool(hermitian))
    if not hermitian:
        out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv, subset_by_index=subset_by_index)
        return SVDResult(*out) if compute_uv else out
    vectors, values = lax_linalg.eigh(a, subset_by_index=subset_by_index)
    s = abs(values)
    order = lax_linalg._sorting(s, descending=True)
    s, u = lax_linalg._sorted(s, vectors, order)
    if not compute_uv:
        return s
    sign = products.matmul(order, fnp_sign(values)[..., None])[..., 0]
    return SVDResult(u, s, matrix_transpose(multiply(u, sign[..., None, :])))


def svdvals(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The singular values of matrices (..., m, n), descending, as `jnp.linalg.svdvals`."""
    return svd(x, compute_uv=False)


def _pinv_loop(a: Tensor | np.ndarray, rtol: Any, hermitian: bool) -> Tensor | np.ndarray:
    m, n = _shape(a)[-2:]
    if m == 0 or n == 0:
        return multiply(fnp_ones((*_shape(a)[:-2], n, m)), 0.0)
    if rtol is None:
        rtol = 10.0 * max(m, n) * float(np.finfo(np.float32).eps)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    rtol = asarray(rtol, _dtype(a))
    cutoff = multiply(shapes.expand_dims(rtol, -1), s[..., 0:1])
    s = _where(greater(s, cutoff), s, np.inf)
    return products.matmul(matrix_transpose(vh), divide(matrix_transpose(u), s[..., None]))


def _pinv_rule() -> Any:
    """`_pinv_loop` with JAX's derivative (Golub and Pereyra), made on first use: fgrad.transforms
    imports fgrad.numpy."""
    global _pinv
    if _pinv is None:
        from fgrad.transforms.custom import custom_jvp

        @functools.partial(custom_jvp, nondiff_argnums=(1, 2))
        def pinv_(a: Any, rtol: Any, hermitian: bool) -> Any:
            return _pinv_loop(a, rtol, hermitian)

        @pinv_.defjvp
        def pinv_jvp(rtol: Any, hermitian: bool, primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
            (a,), (da,) = primals, tangents
            p = pinv_(a, rtol, hermitian)
            if hermitian:  # svd(..., hermitian=True) symmetrizes its input
                a, da = divide(a + matrix_transpose(a), 2.0), divide(da + matrix_transpose(da), 2.0)
            mm, t = products.matmul, matrix_transpose
            if _shape(a)[-2] >= _shape(a)[-1]:
                s = mm(mm(p, t(p)), t(da))
                r = mm(mm(t(da), t(p)), p)
                return p, -mm(mm(p, da), p) + s - mm(mm(s, a), p) + r - mm(mm(p, a), r)
            s = mm(p, mm(t(p), t(da)))
            r = mm(t(da), mm(t(p), p))
            return p, -mm(p, mm(da, p)) + s - mm(s, mm(a, p)) + r - mm(p, mm(a, r))

        _pinv = pinv_
    return _pinv


_pinv: Any = None


def pinv(a: ArrayLike, rtol: ArrayLike | None = None, hermitian: bool = False, *,
         rcond: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The Moore-Penrose pseudo-inverses (..., n, m) of matrices (..., m, n), as `jnp.linalg.pinv`,
    from the SVD: singular values at or below rtol times the largest count as zero.

    Args:
        rtol: the cutoff, a scalar or a.shape[:-2]; default 10 * max(m, n) * eps (JAX's, not
            NumPy's 1e-15).
        hermitian: a is symmetric (the SVD by `eigh`).
        rcond: rtol's older name; give at most one.
    """
    if rcond is not None:
        if rtol is not None:
            raise ShapeError("pinv: only one of rtol and rcond may be specified", user_site())
        rtol = rcond
    a = _float_matrices("pinv", a, square=bool(hermitian))
    return _pinv_rule()(a, rtol, bool(hermitian))


def matrix_rank(M: ArrayLike, rtol: ArrayLike | None = None, *, hermitian: bool = False,
                tol: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The ranks of matrices (..., m, n), i32 (...,), as `jnp.linalg.matrix_rank`: the number of
    singular values above rtol, by default max(S) * max(m, n) * eps. As JAX does, a given rtol
    (or its older name tol) is compared with the singular values as it is, not scaled by the
    largest. A vector or scalar has rank 1 if any entry is nonzero."""
    if tol is not None:
        if rtol is not None:
            raise ShapeError("matrix_rank: only one of tol or rtol may be specified", user_site())
        rtol = tol
    M = asarray(M)
    if len(_shape(M)) < 2:
        return astype(_any(not_equal(M, 0)), DType.i32)
    s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        rtol = multiply(_max(s, axis=-1), float(max(_shape(M)[-2:])) * float(np.finfo(np.float32).eps))
    return _sum(greater(s, shapes.expand_dims(asarray(rtol, _dtype(s)), -1)), axis=-1, dtype=DType.i32)


def lstsq(a: ArrayLike, b: ArrayLike, rcond: float | None = None, *,
          numpy_resid: bool = False) -> tuple[Any, Any, Any, Any]:
    """The least-squares solution of a @ x = b, as `jnp.linalg.lstsq`, from the thin SVD of a:
    `(x, resid, rank, s)`.

    Args:
        a: a matrix (m, n).
        b: (m,) or (m, k).
        rcond: singular values below rcond times the largest count as zero (default
            eps * max(m, n); a negative rcond means eps).
        numpy_resid: as NumPy, resid is empty when rank < n or m <= n (known only eagerly);
            otherwise resid is |b - a x|^2 per column of b, (k,) (or (1,) for a vector b, as JAX's).
    Returns:
        x (n,) or (n, k); resid; rank, an i32 scalar; s, the singular values (min(m, n),).
    """
    name = "lstsq"
    a_shape, b_shape = _shape(a), _shape(b)
    if len(a_shape) != 2:
        raise ShapeError(f"{name}: a must be a matrix (m, n), got shape {a_shape}", user_site())
    if len(b_shape) not in (1, 2) or b_shape[0] != a_shape[0]:
        raise ShapeError(f"{name}: b must be (m,) or (m, k) with m = {a_shape[0]}, the rows of a {a_shape}, got "
                         f"{b_shape}", user_site())
    lax_linalg = _lax_linalg()
    lax_linalg._matrices(name, a, "a", square=False)
    a, b = lax_linalg._float_operands(name, a, b, promote=True)
    vector = len(b_shape) == 1
    if vector:
        b = b[:, None]
    m, n = a_shape
    eps = float(np.finfo(np.float32).eps)
    if m == 0 or n == 0:
        s = multiply(fnp_ones((0,)), 0.0)
        rank = asarray(0, DType.i32)
        x = multiply(fnp_ones((n, _shape(b)[1])), 0.0)
    else:
        rcond = eps * max(m, n) if rcond is None else _where(less(rcond, 0), eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = logical_and(greater(s, 0), greater_equal(s, multiply(rcond, s[0])))
        rank = _sum(mask, dtype=DType.i32)
        s_inv = _where(mask, divide(1.0, _where(mask, s, 1.0)), 0.0)[:, None]
        x = products.matmul(matrix_transpose(vt), multiply(s_inv, products.matmul(matrix_transpose(u), b)))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = multiply(fnp_ones((0,)), 0.0)
    else:
        r = b - products.matmul(a, x)
        resid = _sum(multiply(r, r), axis=0)
    return (x[:, 0] if vector else x), resid, rank, s


def cond(x: ArrayLike, p: Any = None) -> Tensor | np.ndarray:
    """The condition numbers of matrices (..., m, n), as `jnp.linalg.cond`: norm(x, p) *
    norm(inv(x), p); for p None or 2 (and -2) the ratio of the largest and smallest singular
    values. For other p x must be square, and a NaN that x does not hold becomes inf."""
    name = "cond"
    shape = _shape(x)
    if len(shape) < 2:
        raise ShapeError(f"{name}: x must be at least 2-D, (..., m, n), got shape {shape}", user_site())
    if shape[-1] == 0 or shape[-2] == 0:
        raise ShapeError(f"{name}: x must not be empty, got shape {shape}", user_site())
    if p is None or p == 2:
        s = svdvals(x)
        return divide(s[..., 0], s[..., -1])
    if p == -2:
        s = svdvals(x)
        r = divide(s[..., -1], s[..., 0])
    else:
        if shape[-1] != shape[-2]:
            raise ShapeError(f"{name}: for p={p!r}, x must be square, got shape {shape}", user_site())
        r = multiply(norm(x, ord=p, axis=(-2, -1)), norm(inv(x), ord=p, axis=(-2, -1)))
    x_nan = _any(isnan(asarray(x)), axis=(-2, -1))
    return _where(logical_and(isnan(r), logical_not(x_nan)), np.inf, r)
