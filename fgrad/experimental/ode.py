"""`jax.experimental.ode.odeint`: an ODE's solution at given times, by the Dormand-Prince 5(4)
Runge-Kutta pair with an adaptive step (Dormand and Prince 1980; Hairer, Norsett and Wanner,
Solving ODEs I, II.4, for the first step and the step control), its values between steps from a
4th-order polynomial through each step, and its gradient by the adjoint method (Chen et al. 2018,
appendix C): the augmented system integrated backwards from each time to the one before.

Everything is fgrad functions in `while_loop`s and `scan`s, so `odeint` runs eagerly, compiled
(the adaptive loop on the device, its test read back each step) and batched; reverse mode is the
custom rule. The choices where the method leaves room are JAX's (the tableau, the error norm, the
step factors, the interpolation), so the two take the same steps up to rounding."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, InputError, ShapeError
from fgrad.flatten_util import ravel_pytree
from fgrad.numpy.promotion import _dtype
from fgrad.pytree import flatten, tree_map
from fgrad.trace import Tensor, user_site
from fgrad.transforms.autodiff import vjp
from fgrad.transforms.batching import vmap
from fgrad.transforms.control_flow import scan, while_loop
from fgrad.transforms.custom import closure_convert, custom_vjp

__all__ = ["odeint"]

# The Dormand-Prince tableau: stage times, stage weights, the 5th-order solution's weights and
# their difference from the embedded 4th-order one's (the error estimate).
STAGE_TIMES = np.array([1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
STAGE_WEIGHTS = np.array([
    [1 / 5, 0, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
])
SOLUTION = STAGE_WEIGHTS[-1]
ERROR = SOLUTION - np.array([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
# The solution at the step's middle, for the interpolating polynomial (Shampine 1986).
MIDDLE = np.array([6025192743 / 30085553152, 0, 51252292925 / 65400821598, -2691868925 / 45128329728,
                   187940372067 / 1594534317056, -1776094331 / 19743644256, 11237099 / 235043384]) / 2


def odeint(func: Callable[..., Any], y0: Any, t: Any, *args: Any, rtol: float = 1.4e-8, atol: float = 1.4e-8,
           mxstep: float = math.inf, hmax: float = math.inf) -> Any:
    """The solution of dy/dt = func(y, t, *args) from y(t[0]) = y0 at the times `t` (increasing),
    as `jax.experimental.ode.odeint`: y0 may be a pytree, and the result is y0's structure with a
    leading axis of len(t). `rtol` and `atol` bound each step's error, `mxstep` the steps between
    two times, `hmax` a step's length. Differentiable in y0, t and args (the adjoint method)."""
    site = user_site()
    for leaf in flatten(args)[0]:
        if not (isinstance(leaf, (Tensor, np.ndarray, np.generic, int, float, bool)) or hasattr(leaf, "__array__")):
            raise InputError(f"odeint: the args must be arrays or numbers (pytrees of them), got a "
                             f"{type(leaf).__name__}", site)
    if not callable(func):
        raise InputError(f"odeint: func must be a function, got a {type(func).__name__}", site)
    t = fnp.asarray(t)
    if not _dtype(t).is_float or t.ndim != 1:
        raise DTypeError(f"odeint: t must be a vector of floats, got {_dtype(t)} of shape {t.shape}", site)
    converted, consts = closure_convert(func, y0, t[0], *args)
    flat_y0, unravel = ravel_pytree(y0)

    def flat_func(y: Any, time: Any, *rest: Any) -> Any:
        dy = ravel_pytree(converted(unravel(y), time, *rest))[0]
        if dy.shape != y.shape:
            raise ShapeError(f"odeint: func must return y's structure and shapes ({y.shape[0]} values), returned "
                             f"{dy.shape[0]}", site)
        return dy

    ys = _odeint(flat_func, float(rtol), float(atol), mxstep, hmax, flat_y0, t, *args, *consts)
    return vmap(unravel)(ys)


def _first_step(func: Callable[..., Any], t0: Any, y0: Any, f0: Any, rtol: float, atol: float) -> Any:
    """Hairer's starting step for a method of order 4: from the sizes of y0, f0 and of the change
    of f over a small trial step."""
    scale = atol + fnp.abs(y0) * rtol
    d0, d1 = fnp.linalg.norm(y0 / scale), fnp.linalg.norm(f0 / scale)
    h0 = fnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = func(y0 + h0 * f0, t0 + h0)
    d2 = fnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = fnp.where((d1 <= 1e-15) & (d2 <= 1e-15), fnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / fnp.maximum(d1, d2)) ** (1.0 / 5.0))
    return fnp.minimum(100.0 * h0, h1)


def _step(func: Callable[..., Any], y: Any, f: Any, t: Any, dt: Any) -> tuple[Any, Any, Any, Any]:
    """One Dormand-Prince step: the new y, f at it (the last stage: first same as last), the
    error estimate, and the seven stage derivatives (7, n)."""
    stages = [f]
    for k in range(6):
        change = sum(float(w) * s for w, s in zip(STAGE_WEIGHTS[k], stages) if w != 0)
        stages.append(func(y + dt * change, t + dt * float(STAGE_TIMES[k])))
    k7 = fnp.stack(stages)
    new_y = y + dt * fnp.dot(SOLUTION.astype(np.float32), k7)
    return new_y, stages[-1], dt * fnp.dot(ERROR.astype(np.float32), k7), k7


def _polynomial(y: Any, new_y: Any, k7: Any, dt: Any) -> Any:
    """The coefficients (5, n), highest power first, of the 4th-order polynomial in the step's
    fraction through y, new_y, the middle solution and the derivatives at both ends."""
    middle = y + dt * fnp.dot(MIDDLE.astype(np.float32), k7)
    d0, d1 = dt * k7[0], dt * k7[-1]
    return fnp.stack([-2.0 * d0 + 2.0 * d1 - 8.0 * y - 8.0 * new_y + 16.0 * middle,
                      5.0 * d0 - 3.0 * d1 + 18.0 * y + 14.0 * new_y - 32.0 * middle,
                      -4.0 * d0 + d1 - 11.0 * y - 5.0 * new_y + 16.0 * middle, d0, y])


def _error_ratio(error: Any, rtol: float, atol: float, y: Any, new_y: Any) -> Any:
    tolerance = atol + rtol * fnp.maximum(fnp.abs(y), fnp.abs(new_y))
    return fnp.sqrt(fnp.mean((error / tolerance) ** 2))


def _next_step(dt: Any, ratio: Any) -> Any:
    """The step after one of error ratio `ratio`: scaled by 0.9 ratio^(-1/5), within [0.2, 10]
    (at least 1 after an accepted step), 10 where the error was zero."""
    least = fnp.where(ratio < 1.0, 1.0, 0.2)
    factor = fnp.minimum(10.0, fnp.maximum(0.9 * ratio ** (-1.0 / 5.0), least))
    return fnp.where(ratio == 0.0, dt * 10.0, dt * factor)


def _solve(func: Callable[..., Any], rtol: float, atol: float, mxstep: float, hmax: float, y0: Any, ts: Any,
           *args: Any) -> Any:
    """The solution (len(ts), n) of a flat system: the adaptive loop up to each time, then the
    last step's polynomial at that time."""
    def f(y: Any, t: Any) -> Any:
        return func(y, t, *args)

    def to_time(carry: Any, target: Any) -> tuple[Any, Any]:
        def going(state: Any) -> Any:
            i, _, _, t, dt, _, _ = state
            return (t < target) & (i < mxstep) & (dt > 0.0)

        def advance(state: Any) -> Any:
            i, y, fy, t, dt, last_t, poly = state
            new_y, new_f, error, k7 = _step(f, y, fy, t, dt)
            ratio = _error_ratio(error, rtol, atol, y, new_y)
            accepted = ratio <= 1.0
            new_dt = fnp.clip(_next_step(dt, ratio), 0.0, hmax)
            take = lambda new, old: fnp.where(accepted, new, old)  # noqa: E731
            return (i + 1, take(new_y, y), take(new_f, fy), take(t + dt, t), new_dt, take(t, last_t),
                    take(_polynomial(y, new_y, k7, dt), poly))

        _, y, fy, t, dt, last_t, poly = while_loop(going, advance, (fnp.asarray(0), *carry))
        fraction = (target - last_t) / (t - last_t)
        at = poly[0]
        for c in range(1, 5):
            at = at * fraction + poly[c]
        return (y, fy, t, dt, last_t, poly), at

    f0 = f(y0, ts[0])
    dt = fnp.clip(_first_step(f, ts[0], y0, f0, rtol, atol), 0.0, hmax)
    start = (y0, f0, ts[0], dt, ts[0], fnp.stack([y0] * 5))
    _, ys = scan(to_time, start, ts[1:])
    return fnp.concatenate([y0[None], ys])


def _solve_forward(func: Callable[..., Any], rtol: float, atol: float, mxstep: float, hmax: float, y0: Any, ts: Any,
                   *args: Any) -> tuple[Any, Any]:
    ys = _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _solve_backward(func: Callable[..., Any], rtol: float, atol: float, mxstep: float, hmax: float, residuals: Any,
                    g: Any) -> tuple[Any, ...]:
    """The adjoint method: from the last time to the first, the system augmented with the
    cotangents of y, of the start time and of args, integrated backwards (in negated time) to the
    time before, each time's cotangent added on the way; a time's own cotangent is f(y(t)) . g."""
    ys, ts, args = residuals

    def augmented(state: Any, minus_t: Any, *rest: Any) -> Any:
        y, y_bar = state[0], state[1]
        dy, pullback = vjp(lambda y_, t_, *a: func(y_, t_, *a), y, -minus_t, *rest)
        return (-dy, *pullback(y_bar))

    def back(carry: Any, i: Any) -> tuple[Any, Any]:
        y_bar, t0_bar, args_bar = carry
        t_bar = fnp.dot(func(ys[i], ts[i], *args), g[i])
        window = fnp.stack([-ts[i], -ts[i - 1]])
        _, y_bar, t0_bar, args_bar = odeint(augmented, (ys[i], y_bar, t0_bar - t_bar, args_bar), window, *args,
                                            rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_map(lambda v: v[1], (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    start = (g[-1], fnp.asarray(0.0), tree_map(fnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), ts_bar = scan(back, start, fnp.arange(ts.shape[0] - 1, 0, -1))
    return (y_bar, fnp.concatenate([t0_bar[None], ts_bar[::-1]]), *args_bar)


_odeint = custom_vjp(_solve, nondiff_argnums=(0, 1, 2, 3, 4))
_odeint.defvjp(_solve_forward, _solve_backward)
