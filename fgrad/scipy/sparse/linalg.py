"""`jax.scipy.sparse.linalg`'s iterative solvers of A x = b: `cg` (A symmetric positive definite)
and `bicgstab` (any A), where A is a matrix or a function computing A x, and b, x and x0 may be
pytrees. Each iterates in a `while_loop` (on the device when compiled) until the residual's norm
is at most max(tol |b|, atol), or for `maxiter` steps (10 n by default), as JAX's and SciPy's; and
each is differentiated implicitly (`fg.lax.custom_linear_solve`: the cotangent of b is one more
solve), not through its iterations. `info` is None, as JAX's."""

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
from fgrad.transforms.control_flow import while_loop

__all__ = ["bicgstab", "cg"]


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


def _iterated(who: str, solver: Callable[..., Any], A: Any, b: Any, x0: Any, tol: float, atol: float,
              maxiter: int | None, M: Any, symmetric: bool) -> tuple[Any, None]:
    site = user_site()
    matvec = _operator(A, who, "linear operator A", site)
    precondition = (lambda x: x) if M is None else _operator(M, who, "preconditioner M", site)
    b = tree_map(fnp.asarray, b)
    x0 = tree_map(fnp.zeros_like, b) if x0 is None else tree_map(fnp.asarray, x0)
    (bl, bt), (xl, xt) = flatten(b), flatten(x0)
    if bt != xt or [_shape(v) for v in bl] != [_shape(v) for v in xl]:
        raise ShapeError(f"{who}: x0 must have b's structure and shapes: {xt} {[_shape(v) for v in xl]} against "
                         f"{bt} {[_shape(v) for v in bl]}", site)
    steps = 10 * sum(int(np.prod(_shape(v))) for v in bl) if maxiter is None else maxiter

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
