"""`jax.numpy.linalg` as `fg.numpy.linalg`: norms and the products and views the array API puts
here (matmul, outer, tensordot, vecdot, matrix_transpose, trace, diagonal, cross, matrix_power,
multi_dot), and the factorizations and solvers built on `fg.lax.linalg` (cholesky, solve, inv,
det, slogdet), all composites of fgrad's functions.

The factorizations are loops (`scan`) over the rows or columns of f32 matrices, with JAX's
derivative rules attached (fgrad/lax/linalg.py). The decompositions that need iterative
eigenvalue or orthogonal methods (svd, eigh, eig, qr, pinv, lstsq, matrix_rank) are not here, nor
the norms that need singular values (ord 2, -2, 'nuc' of a matrix), which are refused saying so.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from fgrad.errors import ShapeError, TraceError
from fgrad.trace import Tensor, user_site
from fgrad.numpy import products, shapes
from fgrad.numpy.promotion import ArrayLike, _as_dtype, _brief, _dtype, _float_dtype, _shape, asarray
from fgrad.numpy.shapes import broadcast_to, matrix_transpose
from fgrad.numpy.creation import eye, ones as fnp_ones
from fgrad.numpy.elementwise import abs, log as fnp_log, multiply, not_equal, power, sign as fnp_sign, sqrt
from fgrad.numpy.reductions import max as _max, min as _min, sum as _sum

__all__ = [  # the names of jax.numpy.linalg that fgrad has (fg.numpy.linalg.*; not re-exported by fgrad)
    "SlogdetResult", "cholesky", "cross", "det", "diagonal", "inv", "matmul", "matrix_norm", "matrix_power",
    "matrix_transpose", "multi_dot", "norm", "outer", "slogdet", "solve", "tensordot", "trace", "vecdot", "vector_norm",
]

NEEDS_SVD = ("norm: ord={ord!r} of a matrix is a function of its singular values, and fgrad has no SVD; "
             "ord 'fro', 1, -1, inf and -inf are sums and extremes of entries, which it has")


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
    -1 the largest / smallest column sum of |x|, inf / -inf the largest / smallest row sum. With
    axis=None: ord None is the 2-norm of all of x; otherwise x must be 1-D or 2-D. Matrix ords 2,
    -2 and 'nuc' need singular values, and are refused."""
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
        raise ShapeError(NEEDS_SVD.format(ord=ord), user_site())
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise ShapeError(f"norm: invalid ord {_brief(ord)} for a matrix norm", user_site())
    summed, kept = (row, col) if ord in (1, -1) else (col, row)  # column sums for 1, row sums for inf
    if not keepdims and kept > summed:
        kept -= 1
    sums = _sum(abs(x), axis=summed, keepdims=keepdims)
    return _max(sums, axis=kept, keepdims=keepdims, initial=0) if ord > 0 else _min(sums, axis=kept, keepdims=keepdims)


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: str | int | float = "fro") -> Tensor | np.ndarray:
    """The matrix `ord`-norm of the last two axes, as `jnp.linalg.matrix_norm` ('fro', 1, -1,
    inf, -inf; `norm`'s rules)."""
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
              precision: Any = None, preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """`fg.tensordot`, as `jnp.linalg.tensordot` (axes by keyword)."""
    return products.tensordot(x1, x2, axes, preferred_element_type=preferred_element_type)


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


def solve(a: ArrayLike, b: ArrayLike) -> Tensor | np.ndarray:
    """x with a @ x = b, as `jnp.linalg.solve`, by LU with partial pivoting; infinities or NaNs
    where a is singular. Integers are converted to f32.

    Args:
        a: square matrices (..., m, m).
        b: one vector (m,), solved against every matrix of a (result (..., m)); or matrices
            (..., m, n), whose leading axes broadcast with a's (result (..., m, n)).
    """
    lax_linalg = _lax_linalg()
    a_shape, b_shape = _shape(a), _shape(b)
    if len(a_shape) < 2:
        raise ShapeError(f"solve: a must be at least 2-D, (..., m, m), got {a_shape}", user_site())
    lax_linalg._matrices("solve", a, "a")
    if not b_shape:
        raise ShapeError(f"solve: b must be a vector (m,) or matrices (..., m, n), got a scalar, with a {a_shape}",
                         user_site())
    m = a_shape[-1]
    if (len(b_shape) > 1 and len(a_shape) == len(b_shape) + 1 and b_shape[-1] == m and b_shape[-2] != m):
        raise ShapeError(f"solve: invalid shapes {a_shape} and {b_shape}: b is a stack of matrices (..., m, n), "
                         "not of vectors (as since JAX 0.5); for a batch of vectors use "
                         "solve(a, b[..., None])[..., 0]", user_site())
    if b_shape[-1 if len(b_shape) == 1 else -2] != m:
        want = "(m,)" if len(b_shape) == 1 else "(..., m, n)"
        raise ShapeError(f"solve: b {b_shape} must be {want} with m = {m}, the size of a {a_shape}", user_site())
    a, b = lax_linalg._float_operands("solve", a, b, promote=True)
    vector = len(b_shape) == 1
    if vector:
        b = b[:, None]
    try:
        batch = shapes.broadcast_shapes(a_shape[:-2], _shape(b)[:-2])
    except ShapeError:
        raise ShapeError(f"solve: the leading axes of a {a_shape} and b {b_shape} do not broadcast",
                         user_site()) from None
    a = broadcast_to(a, (*batch, m, m))
    b = broadcast_to(b, (*batch, *_shape(b)[-2:]))
    x = lax_linalg._solve(a, b)
    return x[..., 0] if vector else x


def inv(a: ArrayLike) -> Tensor | np.ndarray:
    """The inverses of square matrices (..., n, n), as `jnp.linalg.inv`: solve(a, I); infinities
    or NaNs where a matrix is singular. Integers are converted to f32."""
    shape = _lax_linalg()._matrices("inv", a, "a")
    return solve(a, broadcast_to(eye(shape[-1], dtype=_dtype(a)), shape))


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
    factorization (method None or 'lu'; fgrad has no QR for 'qr'). Integers are converted to f32."""
    if method not in (None, "lu"):
        raise ShapeError(f"slogdet: method {_brief(method)} is not supported: fgrad computes it from the LU "
                         "factorization (method None or 'lu'); 'qr' needs a QR decomposition, which fgrad lacks",
                         user_site())
    a, n = _checked_square("slogdet", a)
    if n == 0:
        batch = _shape(a)[:-2]
        return SlogdetResult(fnp_ones(batch), multiply(fnp_ones(batch), 0.0))
    if n <= 2:
        d = a[..., 0, 0] if n == 1 else a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
        return SlogdetResult(fnp_sign(d), fnp_log(abs(d)))
    return SlogdetResult(*_lax_linalg()._slogdet(a))
