"""`jax.scipy.optimize` as `fg.scipy.optimize`: `minimize` of a scalar function of a vector, by
BFGS or by L-BFGS, as JAX's.

Both methods follow Nocedal and Wright's Numerical Optimization (1999): BFGS is their algorithm
6.1, L-BFGS their algorithm 7.5 with the two-loop recursion over the last `maxcor` steps, and the
step length comes from the inexact line search of their algorithms 3.5 and 3.6 (strong Wolfe
conditions; steps doubled until a bracket is found, then zoomed by cubic, quadratic or
bisection interpolation). The choices where the book leaves room are JAX's, so that the two
libraries take the same steps: the first step's guess from the previous decrease, the zoom's
tolerances and its 30 iterations, the smallest step in f32, the status codes.

Everything is written with fgrad's functions inside `fg.lax.while_loop`s, so a minimization
traces into one graph: it runs eagerly, under `fg.jit` (the whole search compiled, its loops on
the device), and under `fg.vmap`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, InputError, ShapeError, name_errors_after
from fgrad.ir import DType
from fgrad.numpy.promotion import _brief, _dtype, _shape, asarray
from fgrad.trace import Tensor, user_site
from fgrad.transforms.autodiff import value_and_grad
from fgrad.transforms.control_flow import fori_loop, while_loop

__all__ = ["OptimizeResults", "minimize"]

Array = Tensor | np.ndarray


class OptimizeResults(NamedTuple):
    """What `minimize` found, as `jax.scipy.optimize.OptimizeResults`.

    Fields:
        x: the final point.
        success: whether the search converged (the gradient's norm under gtol) without a failed
            line search.
        status: 0 converged; BFGS: 1 maxiter reached, 2 + the line search's status (3 its zoom
            failed, 5 its maxiter reached) when it failed, -1 otherwise; L-BFGS: 1 maxiter,
            2 maxfun, 3 maxgrad reached, 4 the decrease fell under ftol, 5 the line search failed.
        fun: the function's value at x.
        jac: its gradient at x.
        hess_inv: BFGS's estimate of the inverse Hessian (None for L-BFGS).
        nfev, njev: how many times the function and its gradient were evaluated.
        nit: how many iterations ran.
    """
    x: Array
    success: Array
    status: Array
    fun: Array
    jac: Array
    hess_inv: Array | None
    nfev: Array
    njev: Array
    nit: Array


def minimize(fun: Callable[..., Any], x0: Any, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """The minimum of `fun(x, *args)` from `x0`, as `jax.scipy.optimize.minimize`.

    Args:
        fun: `(x, *args) -> scalar`, differentiable with fgrad (its gradient comes from `fg.grad`).
        x0: the starting point, a 1-d float array (integers start in f32).
        args: a tuple of further arguments to `fun`.
        method: "BFGS", or "l-bfgs-experimental-do-not-rely-on-this" (JAX's name for L-BFGS);
            either case.
        tol: accepted and unused, as in JAX: set `gtol` in `options`.
        options: the method's settings. BFGS: maxiter (200 * size), norm (inf), gtol (1e-5),
            line_search_maxiter (10). L-BFGS: maxiter, norm, maxcor (10), ftol (2.2e-9), gtol,
            maxfun, maxgrad, maxls (20); with none of maxiter, maxfun, maxgrad, maxiter is
            200 * size.
    Returns:
        An `OptimizeResults`.
    """
    if not isinstance(args, tuple):
        raise InputError(f"minimize: args must be a tuple, got {_brief(args)}", user_site())
    if not isinstance(method, str) or method.lower() not in _METHODS:
        raise InputError(f"minimize: method {_brief(method)} is not recognized: use 'BFGS' or "
                         "'l-bfgs-experimental-do-not-rely-on-this'", user_site())
    if not callable(fun):
        raise InputError(f"minimize: fun must be callable, got {_brief(fun)}", user_site())
    solve, kinds = _METHODS[method.lower()]
    if options is not None and not isinstance(options, Mapping):
        raise InputError(f"minimize: options must be a dict of the method's settings, got {_brief(options)}",
                         user_site())
    options = dict(options or {})
    unknown = sorted(set(options) - set(kinds), key=str)
    if unknown:
        raise InputError(f"minimize: {method} has no option {', '.join(map(repr, unknown))}; its options are "
                         f"{', '.join(kinds)}", user_site())
    for name, value in options.items():
        _check_option(name, value, kinds[name])
    return solve(lambda x: fun(x, *args), _start(x0), **options)


def _check_option(name: str, value: Any, kind: str) -> None:
    """An option's value of its kind: a count (an int, or a traced integer scalar; None for no
    limit where that is allowed: "limit"), the history's length (an int: it sizes arrays), a
    tolerance (a real number), or a norm's order (checked by the norm)."""
    integer = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    traced = isinstance(value, Tensor) and value.dtype.is_int and value.shape == ()
    if kind == "count" and not (integer or traced) or kind == "limit" and not (value is None or integer or traced):
        raise InputError(f"minimize: option {name} must be an integer{' or None' if kind == 'limit' else ''}, got "
                         f"{_brief(value)}", user_site())
    if kind == "history" and not (integer and value >= 1):
        raise InputError(f"minimize: option {name} must be an integer of at least 1, got {_brief(value)}", user_site())
    if kind == "tolerance" and (not isinstance(value, (int, float, np.integer, np.floating))
                                or isinstance(value, (bool, np.bool_))):
        raise InputError(f"minimize: option {name} must be a real number, got {_brief(value)}", user_site())


def _start(x0: Any) -> Array:
    """x0 as a 1-d float array."""
    shape, dt = _shape(x0), _dtype(x0)
    if len(shape) != 1:
        raise ShapeError(f"minimize: x0 must be a 1-d array, got shape {shape}; ravel it and reshape inside fun",
                         user_site())
    if dt is DType.bool:
        raise DTypeError("minimize: x0 must be a float array, got bool", user_site())
    return asarray(x0, dt if dt.is_float else DType.f32)


def _value_and_grad(f: Callable[[Array], Any], x: Array) -> tuple[Array, Array]:
    """f(x) in x's dtype, and its gradient (fg.value_and_grad refuses what is not a float scalar)."""
    value, grad = value_and_grad(f)(x)
    return fnp.astype(value, _dtype(x)), grad


def _counter(n: int) -> Array:
    return np.int32(n)


def _flag(b: bool) -> Array:
    return np.bool_(b)


def _choose(state: NamedTuple, mask: Array, **new: Any) -> NamedTuple:
    """`state` with each named field replaced by `new`'s value where `mask` holds."""
    return state._replace(**{k: fnp.where(mask, v, getattr(state, k)) for k, v in new.items()})


def _norm(g: Array, order: Any) -> Array:
    return fnp.linalg.norm(g, ord=order)


# ---------------------------------------------------------------------------
# The line search: strong Wolfe conditions (Nocedal and Wright, algorithms 3.5 and 3.6)
# ---------------------------------------------------------------------------

def _cubic_minimum(a: Array, fa: Array, fpa: Array, b: Array, fb: Array, c: Array, fc: Array) -> Array:
    """The minimizer of the cubic through (a, fa), (b, fb), (c, fc) with slope fpa at a (NaN where
    there is none: the zoom then rejects it)."""
    db, dc = b - a, c - a
    rb, rc = fb - fa - fpa * db, fc - fa - fpa * dc
    denom = (db * dc) ** 2 * (db - dc)
    cubic = (dc ** 2 * rb - db ** 2 * rc) / denom
    square = (-dc ** 3 * rb + db ** 3 * rc) / denom
    return a + (-square + fnp.sqrt(square * square - 3.0 * cubic * fpa)) / (3.0 * cubic)


def _quadratic_minimum(a: Array, fa: Array, fpa: Array, b: Array, fb: Array) -> Array:
    """The minimizer of the quadratic through (a, fa), (b, fb) with slope fpa at a."""
    db = b - a
    return a - fpa / (2.0 * ((fb - fa - fpa * db) / db ** 2))


class _Zoom(NamedTuple):
    done: Array
    failed: Array
    j: Array
    a_lo: Array
    phi_lo: Array
    dphi_lo: Array
    a_hi: Array
    phi_hi: Array
    dphi_hi: Array
    a_rec: Array  # the previous a_hi or a_lo: the cubic's third point
    phi_rec: Array
    a_star: Array
    phi_star: Array
    dphi_star: Array
    g_star: Array
    nfev: Array


def _zoom(phi_and_grad: Callable, sufficient: Callable, curvature: Callable, a_lo: Array, phi_lo: Array,
          dphi_lo: Array, a_hi: Array, phi_hi: Array, dphi_hi: Array, g_0: Array, skip: Array) -> _Zoom:
    """A step satisfying both Wolfe conditions inside the bracket [a_lo, a_hi] (algorithm 3.6):
    each trial point the cubic's minimizer, else the quadratic's, else the midpoint. Nothing
    runs where `skip` holds."""
    dt = _dtype(a_lo)
    state = _Zoom(done=_flag(False), failed=_flag(False), j=_counter(0), a_lo=a_lo, phi_lo=phi_lo,
                  dphi_lo=dphi_lo, a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.0,
                  phi_rec=(phi_lo + phi_hi) / 2.0, a_star=fnp.ones((), dt), phi_star=phi_lo, dphi_star=dphi_lo,
                  g_star=g_0, nfev=_counter(0))
    smallest = 1e-5  # an interval this narrow fails the search (JAX's bound for floats of 32 bits or fewer)

    def body(s: _Zoom) -> _Zoom:
        width = s.a_hi - s.a_lo
        lo, hi = fnp.minimum(s.a_hi, s.a_lo), fnp.maximum(s.a_hi, s.a_lo)
        s = s._replace(failed=s.failed | (width <= smallest))
        cubic = _cubic_minimum(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (cubic > lo + 0.2 * width) & (cubic < hi - 0.2 * width)
        quadratic = _quadratic_minimum(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quadratic = ~use_cubic & (quadratic > lo + 0.1 * width) & (quadratic < hi - 0.1 * width)
        a_j = fnp.where(use_cubic, cubic, fnp.where(use_quadratic, quadratic, (s.a_lo + s.a_hi) / 2.0))
        phi_j, dphi_j, g_j = phi_and_grad(a_j)
        s = s._replace(nfev=s.nfev + 1)

        to_hi = sufficient(a_j, phi_j) | (phi_j >= s.phi_lo)
        found = curvature(dphi_j) & ~to_hi
        to_lo = ~to_hi & ~found
        swap = (dphi_j * (s.a_hi - s.a_lo) >= 0.0) & to_lo
        s = _choose(s, to_hi, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _choose(s, found, a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
        s = s._replace(done=s.done | found)
        s = _choose(s, swap, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _choose(s, to_lo & ~swap, a_rec=s.a_lo, phi_rec=s.phi_lo)
        s = _choose(s, to_lo, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        return s._replace(j=s.j + 1, failed=s.failed | (s.j + 1 >= 30))

    return while_loop(lambda s: ~s.done & ~skip & ~s.failed, body, state)


class _Search(NamedTuple):
    done: Array
    failed: Array
    i: Array
    a_prev: Array
    phi_prev: Array
    dphi_prev: Array
    nfev: Array
    a_star: Array
    phi_star: Array
    dphi_star: Array
    g_star: Array


class _Step(NamedTuple):
    failed: Array
    nfev: Array
    a_k: Array
    f_k: Array
    g_k: Array
    status: Array  # 0 found, 1 the zoom failed, 3 maxiter reached


def _line_search(f: Callable[[Array], Any], xk: Array, pk: Array, fk: Array, gk: Array,
                 old_fk: Array | None, maxiter: int, c1: float = 1e-4, c2: float = 0.9) -> _Step:
    """A step length along the descent direction `pk` from `xk` (where f is `fk`, its gradient
    `gk`) satisfying the strong Wolfe conditions (algorithm 3.5): steps doubled from a first
    guess until they bracket one, which the zoom then finds."""
    dt = _dtype(xk)

    def phi_and_grad(t: Array) -> tuple[Array, Array, Array]:
        phi, g = _value_and_grad(f, xk + t * pk)
        return phi, fnp.dot(g, pk), g

    dphi_0 = fnp.dot(gk, pk)
    if old_fk is None:
        first = fnp.ones((), dt)
    else:  # the step that would repeat the last decrease on a quadratic, at most 1
        guess = 1.01 * 2.0 * (fk - old_fk) / dphi_0
        first = fnp.where(guess > 1.0, fnp.ones((), dt), guess)

    def sufficient(a: Array, phi: Array) -> Array:  # NOTE: true where the first (Armijo) condition fails
        return phi > fk + c1 * a * dphi_0

    def curvature(dphi: Array) -> Array:
        return fnp.abs(dphi) <= -c2 * dphi_0

    zero = fnp.zeros((), dt)
    state = _Search(done=_flag(False), failed=_flag(False), i=_counter(1), a_prev=zero, phi_prev=fk,
                    dphi_prev=dphi_0, nfev=_counter(0), a_star=zero, phi_star=fk, dphi_star=dphi_0, g_star=gk)

    def body(s: _Search) -> _Search:
        a_i = fnp.where(s.i == 1, first, s.a_prev * 2.0)
        phi_i, dphi_i, g_i = phi_and_grad(a_i)
        s = s._replace(nfev=s.nfev + 1)
        overshot = sufficient(a_i, phi_i) | ((phi_i >= s.phi_prev) & (s.i > 1))
        found = curvature(dphi_i) & ~overshot
        rising = (dphi_i >= 0.0) & ~overshot & ~found
        below = _zoom(phi_and_grad, sufficient, curvature, s.a_prev, s.phi_prev, s.dphi_prev, a_i, phi_i, dphi_i,
                      gk, ~overshot)
        above = _zoom(phi_and_grad, sufficient, curvature, a_i, phi_i, dphi_i, s.a_prev, s.phi_prev, s.dphi_prev,
                      gk, ~rising)
        s = s._replace(nfev=s.nfev + below.nfev + above.nfev)
        for mask, zoom in ((overshot, below), (rising, above)):
            s = _choose(s, mask, a_star=zoom.a_star, phi_star=zoom.phi_star, dphi_star=zoom.dphi_star,
                        g_star=zoom.g_star)
            s = s._replace(done=s.done | mask, failed=s.failed | (mask & zoom.failed))
        s = _choose(s, found, a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)
        s = s._replace(done=s.done | found)
        return s._replace(i=s.i + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i)

    s = while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)
    status = fnp.where(s.failed, np.int32(1), fnp.where(s.i > maxiter, np.int32(3), np.int32(0)))
    # a step under 1e-8 would leave a search in f32 (or f16) stuck where it is
    a_k = fnp.where(fnp.abs(s.a_star) < 1e-8, fnp.sign(s.a_star) * 1e-8, s.a_star)
    return _Step(failed=s.failed | ~s.done, nfev=s.nfev, a_k=a_k, f_k=s.phi_star, g_k=s.g_star, status=status)


# ---------------------------------------------------------------------------
# BFGS (algorithm 6.1)
# ---------------------------------------------------------------------------

class _BFGS(NamedTuple):
    converged: Array
    failed: Array
    k: Array
    nfev: Array
    x_k: Array
    f_k: Array
    g_k: Array
    H_k: Array  # the inverse Hessian's estimate
    old_f_k: Array
    status: Array  # the last line search's


def _bfgs(fun: Callable[[Array], Any], x0: Array, maxiter: int | None = None, norm: Any = np.inf,
          gtol: float = 1e-5, line_search_maxiter: int = 10) -> OptimizeResults:
    d = _shape(x0)[0]
    maxiter = d * 200 if maxiter is None else maxiter
    f_0, g_0 = _value_and_grad(fun, x0)
    eye = fnp.eye(d, dtype=_dtype(x0))
    state = _BFGS(converged=_norm(g_0, norm) < gtol, failed=_flag(False), k=_counter(0), nfev=_counter(1), x_k=x0,
                  f_k=f_0, g_k=g_0, H_k=eye, old_f_k=f_0 + fnp.linalg.norm(g_0) / 2.0, status=_counter(0))

    def body(s: _BFGS) -> _BFGS:
        p_k = -fnp.matmul(s.H_k, s.g_k)
        step = _line_search(fun, s.x_k, p_k, s.f_k, s.g_k, s.old_f_k, line_search_maxiter)
        s_k = step.a_k * p_k
        y_k = step.g_k - s.g_k
        rho = 1.0 / fnp.dot(y_k, s_k)
        w = eye - rho * fnp.outer(s_k, y_k)
        h = fnp.matmul(fnp.matmul(w, s.H_k), w.T) + rho * fnp.outer(s_k, s_k)
        return _BFGS(converged=_norm(step.g_k, norm) < gtol, failed=step.failed, k=s.k + 1, nfev=s.nfev + step.nfev,
                     x_k=s.x_k + s_k, f_k=step.f_k, g_k=step.g_k, H_k=fnp.where(fnp.isfinite(rho), h, s.H_k),
                     old_f_k=s.f_k, status=step.status)

    s = while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), body, state)
    status = fnp.where(s.converged, np.int32(0), fnp.where(s.k == maxiter, np.int32(1),
                                                            fnp.where(s.failed, 2 + s.status, np.int32(-1))))
    return OptimizeResults(x=s.x_k, success=s.converged & ~s.failed, status=status, fun=s.f_k, jac=s.g_k,
                           hess_inv=s.H_k, nfev=s.nfev, njev=s.nfev, nit=s.k)


# ---------------------------------------------------------------------------
# L-BFGS (algorithm 7.5)
# ---------------------------------------------------------------------------

class _LBFGS(NamedTuple):
    converged: Array
    failed: Array
    k: Array
    nfev: Array
    x_k: Array
    f_k: Array
    g_k: Array
    s_history: Array  # the last maxcor steps, oldest first
    y_history: Array  # and their changes of gradient
    rho_history: Array
    gamma: Array  # the initial inverse Hessian's scale
    status: Array


def _direction(s: _LBFGS) -> Array:
    """-H g by the two-loop recursion over the steps held so far (algorithm 7.4)."""
    m = _shape(s.rho_history)[0]
    held = fnp.minimum(s.k, m)

    def newest_first(j: Array, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        q, alphas = carry
        i = m - 1 - j
        alpha = s.rho_history[i] * fnp.dot(s.s_history[i], q)
        return q - alpha * s.y_history[i], alphas.at[i].set(alpha)

    q, alphas = fori_loop(0, held, newest_first, (-s.g_k, fnp.zeros_like(s.rho_history)))

    def oldest_first(j: Array, q: Array) -> Array:
        i = m - held + j
        beta = s.rho_history[i] * fnp.dot(s.y_history[i], q)
        return q + (alphas[i] - beta) * s.s_history[i]

    return fori_loop(0, held, oldest_first, s.gamma * q)


def _pushed(history: Array, new: Array) -> Array:
    """The history with its oldest entry dropped and `new` appended."""
    return fnp.concatenate([history[1:], fnp.expand_dims(new, 0)])


def _lbfgs(fun: Callable[[Array], Any], x0: Array, maxiter: int | None = None, norm: Any = np.inf, maxcor: int = 10,
           ftol: float = 2.220446049250313e-09, gtol: float = 1e-5, maxfun: int | None = None,
           maxgrad: int | None = None, maxls: int = 20) -> OptimizeResults:
    d, dt = _shape(x0)[0], _dtype(x0)
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200
    limits = [np.inf if n is None else n for n in (maxiter, maxfun, maxgrad)]
    f_0, g_0 = _value_and_grad(fun, x0)
    state = _LBFGS(converged=_flag(False), failed=_flag(False), k=_counter(0), nfev=_counter(1), x_k=x0, f_k=f_0,
                   g_k=g_0, s_history=fnp.zeros((maxcor, d), dt), y_history=fnp.zeros((maxcor, d), dt),
                   rho_history=fnp.zeros((maxcor,), dt), gamma=fnp.ones((), dt), status=_counter(0))

    def body(s: _LBFGS) -> _LBFGS:
        p_k = _direction(s)
        step = _line_search(fun, s.x_k, p_k, s.f_k, s.g_k, None, maxls)
        s_k = step.a_k * p_k
        y_k = step.g_k - s.g_k
        sy = fnp.dot(y_k, s_k)
        # the first reason that holds, in JAX's order of precedence
        status = np.int32(0)
        for code, stop in ((4, s.f_k - step.f_k < ftol), (3, s.nfev >= limits[2]), (2, s.nfev >= limits[1]),
                           (1, s.k >= limits[0]), (5, step.failed)):
            status = fnp.where(stop, np.int32(code), status)
        converged = _norm(step.g_k, norm) < gtol
        return _LBFGS(converged=converged, failed=(status > 0) & ~converged, k=s.k + 1, nfev=s.nfev + step.nfev,
                      x_k=s.x_k + s_k, f_k=step.f_k, g_k=step.g_k, s_history=_pushed(s.s_history, s_k),
                      y_history=_pushed(s.y_history, y_k), rho_history=_pushed(s.rho_history, 1.0 / sy),
                      gamma=sy / fnp.dot(y_k, y_k), status=fnp.where(converged, np.int32(0), status))

    s = while_loop(lambda s: ~s.converged & ~s.failed, body, state)
    return OptimizeResults(x=s.x_k, success=s.converged & ~s.failed, status=s.status, fun=s.f_k, jac=s.g_k,
                           hess_inv=None, nfev=s.nfev, njev=s.nfev, nit=s.k)


# Each method and its options' kinds (see _check_option).
_METHODS = {
    "bfgs": (_bfgs, {"maxiter": "limit", "norm": "norm", "gtol": "tolerance", "line_search_maxiter": "count"}),
    "l-bfgs-experimental-do-not-rely-on-this": (
        _lbfgs, {"maxiter": "limit", "norm": "norm", "maxcor": "history", "ftol": "tolerance", "gtol": "tolerance",
                 "maxfun": "limit", "maxgrad": "limit", "maxls": "count"}),
}


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
