"""`jax.scipy.sparse.linalg`'s iterative solvers of A x = b: `cg` (A symmetric positive definite),
`bicgstab` and `gmres` (any A), where A is a matrix or a function computing A x, and b, x and x0
may be pytrees. Each iterates in a `while_loop` (on the device when compiled) until the residual's norm
is at most max(tol |b|, atol), or for `maxiter` steps (10 n by default), as JAX's and SciPy's; and
each is differentiated implicitly (`fg.lax.custom_linear_solve`: the cotangent of b is one more
solve), not through its iterations. `info` is None (gmres: 0, or -1 for a solution that is not a
number), as JAX's."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import InputError, ShapeError
from fgrad.lax import custom_linear_solve
from fgrad.numpy.promotion import _shape
from fgrad.pytree import flatten, tree_map
from fgrad.trace import user_site
from fgrad.flatten_util import ravel_pytree
from fgrad.scipy.linalg import solve_triangular
from fgrad.transforms.control_flow import fori_loop, while_loop

__all__ = ["bicgstab", "cg", "gmres"]


def _dot(x: Any, y: Any) -> Any:
    """The dot product of two pytrees of one structure: the sum over their leaves."""
    return sum(fnp.sum(a * b) for a, b in zip(flatten(x)[0], flatten(y)[0]))


def _axpy(a: Any, x: Any, y: Any) -> Any:
    """a x + y, leaf by leaf."""
    return tree_map(lambda u, v: a * u + v, x, y)


def _sub(x: Any, y: Any) -> Any:
    return tree_map(operator.sub, x, y)


def _operator(A: Any, who: str, what: str, site: str | None) -> Callable[[Any], Any]:
    """A x as a function: A itself, or its product with a square matrix."""
    if callable(A):
        return A
    if hasattr(A, "shape") and hasattr(A, "dtype") or isinstance(A, (list, tuple, np.ndarray)):
        shape = _shape(A)
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ShapeError(f"{who}: the {what} must be a square matrix or a function, got shape {shape}", site)
        matrix = fnp.asarray(A)
        return lambda x: fnp.matmul(matrix, x)
    raise InputError(f"{who}: the {what} must be a matrix or a function computing its product, got a "
                     f"{type(A).__name__}", site)


def _problem(who: str, A: Any, b: Any, x0: Any, M: Any, site: str | None
             ) -> tuple[Callable[[Any], Any], Callable[[Any], Any], Any, Any, int]:
    """A and M as functions, b and x0 (zeros by default) as fgrad values of one structure, and the
    number of unknowns."""
    matvec = _operator(A, who, "linear operator A", site)
    precondition = (lambda x: x) if M is None else _operator(M, who, "preconditioner M", site)
    b = tree_map(fnp.asarray, b)
    x0 = tree_map(fnp.zeros_like, b) if x0 is None else tree_map(fnp.asarray, x0)
    (bl, bt), (xl, xt) = flatten(b), flatten(x0)
    if bt != xt or [_shape(v) for v in bl] != [_shape(v) for v in xl]:
        raise ShapeError(f"{who}: x0 must have b's structure and shapes: {xt} {[_shape(v) for v in xl]} against "
                         f"{bt} {[_shape(v) for v in bl]}", site)
    return matvec, precondition, b, x0, sum(int(np.prod(_shape(v))) for v in bl)


def _iterated(who: str, solver: Callable[..., Any], A: Any, b: Any, x0: Any, tol: float, atol: float,
              maxiter: int | None, M: Any, symmetric: bool) -> tuple[Any, None]:
    matvec, precondition, b, x0, size = _problem(who, A, b, x0, M, user_site())
    steps = 10 * size if maxiter is None else maxiter

    def solve(matvec: Callable[[Any], Any], rhs: Any) -> Any:
        limit2 = fnp.maximum(tol * tol * _dot(rhs, rhs), atol * atol)
        return solver(matvec, rhs, x0, limit2, steps, precondition)

    return custom_linear_solve(matvec, b, solve, transpose_solve=solve, symmetric=symmetric), None


def _cg(A: Callable[[Any], Any], b: Any, x0: Any, limit2: Any, steps: int, M: Callable[[Any], Any]) -> Any:
    """Preconditioned conjugate gradients: search directions conjugate under A, each step the
    exact minimizer along its direction."""
    r0 = _sub(b, A(x0))
    z0 = M(r0)

    def going(state: Any) -> Any:
        _, r, gamma, _, k = state
        return (_dot(r, r) > limit2) & (k < steps)

    def step(state: Any) -> Any:
        x, r, gamma, p, k = state
        ap = A(p)
        alpha = gamma / _dot(p, ap)
        x, r = _axpy(alpha, p, x), _axpy(-alpha, ap, r)
        z = M(r)
        new_gamma = _dot(r, z)
        return x, r, new_gamma, _axpy(new_gamma / gamma, p, z), k + 1

    return while_loop(going, step, (x0, r0, _dot(r0, z0), z0, fnp.asarray(0)))[0]


def _bicgstab(A: Callable[[Any], Any], b: Any, x0: Any, limit2: Any, steps: int, M: Callable[[Any], Any]) -> Any:
    """Preconditioned BiCGSTAB (van der Vorst 1992): a BiCG step smoothed by a one-step residual
    minimization; it stops early where the half step converges, or on a breakdown (a zero rho,
    alpha or omega), as JAX's."""
    r0 = _sub(b, A(x0))
    one = fnp.asarray(1.0, fnp.result_type(*flatten(b)[0]))

    def going(state: Any) -> Any:
        r, k = state[1], state[-1]
        return (_dot(r, r) > limit2) & (k < steps) & (k >= 0)

    def step(state: Any) -> Any:
        x, r, rhat, alpha, omega, rho, p, q, k = state
        new_rho = _dot(rhat, r)
        beta = new_rho / rho * alpha / omega
        p = tree_map(lambda r_, p_, q_: r_ + beta * (p_ - omega * q_), r, p, q)
        phat = M(p)
        q = A(phat)
        alpha = new_rho / _dot(rhat, q)
        s = _axpy(-alpha, q, r)
        converged = _dot(s, s) < limit2
        shat = M(s)
        t = A(shat)
        omega = _dot(t, s) / _dot(t, t)
        half = _axpy(alpha, phat, x)
        x = tree_map(lambda h, sh: fnp.where(converged, h, h + omega * sh), half, shat)
        r = tree_map(lambda s_, t_: fnp.where(converged, s_, s_ - omega * t_), s, t)
        k = fnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = fnp.where(new_rho == 0, -10, k)
        return x, r, rhat, alpha, omega, new_rho, p, q, k

    return while_loop(going, step, (x0, r0, r0, one, one, one, r0, r0, fnp.asarray(0)))[0]


def cg(A: Any, b: Any, x0: Any = None, *, tol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
       M: Any = None) -> tuple[Any, None]:
    """Solve A x = b by conjugate gradients, A symmetric positive definite (a matrix, or a function
    computing A x), as `jax.scipy.sparse.linalg.cg`; `M` approximates A's inverse (a
    preconditioner). Returns (x, None)."""
    return _iterated("cg", _cg, A, b, x0, tol, atol, maxiter, M, symmetric=True)


def bicgstab(A: Any, b: Any, x0: Any = None, *, tol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
             M: Any = None) -> tuple[Any, None]:
    """Solve A x = b by BiCGSTAB, for any invertible A (a matrix, or a function computing A x), as
    `jax.scipy.sparse.linalg.bicgstab`; `M` a preconditioner. Returns (x, None)."""
    return _iterated("bicgstab", _bicgstab, A, b, x0, tol, atol, maxiter, M, symmetric=False)


# -- GMRES -------------------------------------------------------------------------------------------


def _normalized(v: Any, floor: Any = None) -> tuple[Any, Any]:
    """v / |v| and |v|, or zeros and 0 where |v| is at most `floor` (the dtype's epsilon by default)."""
    norm = fnp.linalg.norm(v)
    big = norm > (np.finfo(np.float32).eps if floor is None else floor)
    return fnp.where(big, v / fnp.where(big, norm, 1.0), 0.0), fnp.where(big, norm, 0.0)


def _arnoldi(k: Any, A: Callable[[Any], Any], M: Callable[[Any], Any], V: Any, H: Any) -> tuple[Any, Any, Any]:
    """Step k of the Arnoldi process on the basis V (n, restart + 1): M A V[:, k] made orthogonal to
    the basis by classical Gram-Schmidt (once more where the first pass lost more than half of
    it), stored as column k + 1; its overlaps and norm as row k of H (restart, restart + 1), the
    Hessenberg matrix transposed. A new vector below epsilon |M A v| is a breakdown: zeros."""
    w = M(A(V[:, k]))
    _, first_norm = _normalized(w)
    h = fnp.matmul(w, V)
    w = w - fnp.matmul(V, h)
    _, norm = _normalized(w)
    again = norm < first_norm / np.sqrt(2.0)
    extra = fnp.where(again, fnp.matmul(w, V), 0.0)
    w, h = w - fnp.matmul(V, extra), h + extra
    unit, norm = _normalized(w, np.finfo(np.float32).eps * first_norm)
    V = V.at[:, k + 1].set(unit)
    H = H.at[k, :].set(h.at[k + 1].set(norm))
    return V, H, norm == 0.0


def _givens(a: Any, b: Any) -> tuple[Any, Any]:
    """The rotation (c, s) taking (a, b) to (r, 0)."""
    swap = fnp.abs(a) < fnp.abs(b)
    t = -fnp.where(swap, a, b) / fnp.where(swap, b, fnp.where(a == 0.0, 1.0, a))
    r = 1.0 / fnp.sqrt(1.0 + t * t)
    zero = b == 0.0
    return fnp.where(zero, 1.0, fnp.where(swap, r * t, r)), fnp.where(zero, 0.0, fnp.where(swap, r, r * t))


def _rotated(v: Any, i: Any, c: Any, s: Any) -> Any:
    x, y = v[i], v[i + 1]
    return v.at[i].set(c * x - s * y).at[i + 1].set(s * x + c * y)


def _restart_incremental(A: Callable[[Any], Any], M: Callable[[Any], Any], b: Any, x0: Any, unit: Any, norm: Any,
                         ptol: Any, restart: int) -> tuple[Any, Any, Any]:
    """One restart, QR-factorizing the Hessenberg matrix by Givens rotations as it grows: the
    residual's norm is known each step, so the restart ends once it is below `ptol`."""
    n = unit.shape[0]
    V = fnp.zeros((n, restart + 1), unit.dtype).at[:, 0].set(unit)
    R = fnp.eye(restart, restart + 1, dtype=unit.dtype)
    rotations = fnp.zeros((restart, 2), unit.dtype)
    beta = fnp.zeros((restart + 1,), unit.dtype).at[0].set(norm)

    def going(state: Any) -> Any:
        return (state[0] < restart) & (state[1] > ptol)

    def step(state: Any) -> Any:
        k, _, V, R, beta, rotations = state
        V, H, _ = _arnoldi(k, A, M, V, R)
        row = fori_loop(0, k, lambda i, r: _rotated(r, i, rotations[i, 0], rotations[i, 1]), H[k, :])
        c, s = _givens(row[k], row[k + 1])
        rotations = rotations.at[k, :].set(fnp.stack([c, s]))
        R = R.at[k, :].set(_rotated(row, k, c, s))
        beta = _rotated(beta, k, c, s)
        return k + 1, fnp.abs(beta[k + 1]), V, R, beta, rotations

    _, _, V, R, beta, _ = while_loop(going, step, (fnp.asarray(0), norm, V, R, beta, rotations))
    y = solve_triangular(R[:, :-1].T, beta[:-1], lower=False)
    return _restarted(A, M, b, x0 + fnp.matmul(V[:, :-1], y))


def _restart_batched(A: Callable[[Any], Any], M: Callable[[Any], Any], b: Any, x0: Any, unit: Any, norm: Any,
                     ptol: Any, restart: int) -> tuple[Any, Any, Any]:
    """One restart: the whole Krylov basis (until a breakdown), then the least-squares problem
    H y = |r| e1 by its normal equations."""
    n = unit.shape[0]
    V = fnp.zeros((n, restart + 1), unit.dtype).at[:, 0].set(unit)
    H = fnp.eye(restart, restart + 1, dtype=unit.dtype)

    def going(state: Any) -> Any:
        return (state[3] < restart) & ~state[2]

    def step(state: Any) -> Any:
        V, H, _, k = state
        V, H, breakdown = _arnoldi(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = while_loop(going, step, (V, H, fnp.asarray(False), fnp.asarray(0)))
    beta = fnp.zeros((restart + 1,), unit.dtype).at[0].set(norm)
    y = fnp.linalg.solve(fnp.matmul(H, H.T), fnp.matmul(H, beta))
    return _restarted(A, M, b, x0 + fnp.matmul(V[:, :-1], y))


def _restarted(A: Callable[[Any], Any], M: Callable[[Any], Any], b: Any, x: Any) -> tuple[Any, Any, Any]:
    unit, norm = _normalized(M(b - A(x)))
    return x, unit, norm


def gmres(A: Any, b: Any, x0: Any = None, *, tol: float = 1e-5, atol: float = 0.0, restart: int = 20,
          maxiter: int | None = None, M: Any = None, solve_method: str = "batched") -> tuple[Any, Any]:
    """Solve A x = b by restarted GMRES, for any invertible A (a matrix, or a function computing
    A x), as `jax.scipy.sparse.linalg.gmres`: each restart finds the x0 + (Krylov subspace of
    dimension `restart`) with the least residual, `maxiter` restarts at most (10 n by default).
    `solve_method` "batched" solves each restart's least squares at its end, "incremental" keeps
    its QR factorization by Givens rotations and may end a restart early. `M` is a preconditioner
    (the residual minimized is M's). Returns (x, info): info is 0, or -1 where x is not a number."""
    site = user_site()
    if solve_method not in ("batched", "incremental"):
        raise InputError(f"gmres: solve_method must be 'batched' or 'incremental', got {solve_method!r}", site)
    matvec, precondition, b, x0, size = _problem("gmres", A, b, x0, M, site)
    steps = 10 * size if maxiter is None else maxiter
    dimension = min(restart, size)
    b_norm = fnp.sqrt(_dot(b, b))
    limit = fnp.maximum(tol * b_norm, atol)
    mb = precondition(b)
    ptol = fnp.sqrt(_dot(mb, mb)) * fnp.minimum(1.0, limit / b_norm)
    restart_once = _restart_batched if solve_method == "batched" else _restart_incremental

    def solve(matvec: Callable[[Any], Any], rhs: Any) -> Any:
        flat_rhs, unravel = ravel_pytree(rhs)
        flat_x0 = ravel_pytree(x0)[0]

        def flat(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
            return lambda v: ravel_pytree(f(unravel(v)))[0]

        A_, M_ = flat(matvec), flat(precondition)
        x, unit, norm = _restarted(A_, M_, flat_rhs, flat_x0)

        def going(state: Any) -> Any:
            return (state[1] < steps) & (state[3] > limit)

        def step(state: Any) -> Any:
            x, k, unit, norm = state
            x, unit, norm = restart_once(A_, M_, flat_rhs, x, unit, norm, ptol, dimension)
            return x, k + 1, unit, norm

        return unravel(while_loop(going, step, (x, fnp.asarray(0), unit, norm))[0])

    x = custom_linear_solve(matvec, b, solve, transpose_solve=solve)
    return x, fnp.where(fnp.isnan(fnp.sqrt(_dot(x, x))), -1, 0)
