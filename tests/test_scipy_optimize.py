"""fg.scipy.optimize.minimize against jax.scipy.optimize.minimize: BFGS and L-BFGS take JAX's steps
(every field of the result: the point, the value and gradient, the inverse Hessian, the status and
the counts) on smooth, badly scaled and data-fitting objectives, with each option; a convex
quadratic's minimum reached; compiled (the nested while loops on the device) and batched; the
refusals."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.scipy.optimize import minimize as theirs

import fgrad as fg
from jax_oracle import jax_call, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

minimize = fg.scipy.optimize.minimize
LBFGS = "l-bfgs-experimental-do-not-rely-on-this"
rng = np.random.default_rng(0)


def rosenbrock(x, xnp):
    return xnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def quartic(x, a, xnp):
    return xnp.sum(a * (x - 1.0) ** 2) + 0.1 * xnp.sum(x ** 4) + xnp.sum(xnp.sin(x))


def logistic(w, features, labels, xnp):
    margins = labels * (features @ w)
    return xnp.mean(xnp.logaddexp(0.0, -margins)) + 0.01 * xnp.sum(w * w)


def quadratic(x, a, b, xnp):
    return 0.5 * x @ (a @ x) - b @ x


def steep(x, xnp):  # from far away, a first step that overshoots: the zoom's interpolations at work
    return xnp.sum(xnp.exp(2.0 * x) - 3.0 * x) + 5.0 * xnp.sum(x ** 2) ** 2


def centered(x, a, c, xnp):  # its minimum, 0, at c: decreases stay far above f32's rounding of the value
    d = x - c
    return 0.5 * d @ (a @ d)


FEATURES = rng.normal(size=(20, 3)).astype(np.float32)
LABELS = np.sign(FEATURES @ np.float32([1.0, -2.0, 0.5]) + rng.normal(size=20).astype(np.float32)).astype(np.float32)
M = rng.normal(size=(5, 5)).astype(np.float32)
SPD = (M @ M.T + 5 * np.eye(5)).astype(np.float32)
OBJECTIVES = {
    "rosenbrock": (rosenbrock, np.float32([-1.2, 1.0, 0.5, -0.3]), ()),
    "quartic": (quartic, np.float32([-1.2, 1.0, 0.5, -0.3, 2.0]), (np.float32([1, 2, 3, 4, 5]),)),
    "logistic": (logistic, np.zeros(3, np.float32), (FEATURES, LABELS)),
    "quadratic": (quadratic, np.zeros(5, np.float32), (SPD, rng.normal(size=5).astype(np.float32))),
    "steep": (steep, np.float32([3.0, 3.0, -2.0]), ()),
}
# Searches in f32 agree with JAX's step for step while their decreases are well above rounding;
# near a minimum, where a line search compares values a few ulps apart, which one stops first is
# down to rounding: so the step-by-step comparisons stop after a few iterations (or evaluations)
# and the runs to the end compare where they arrive.
OPTIONS = {
    "BFGS": [{"maxiter": 1}, {"maxiter": 3}, {"maxiter": 3, "gtol": 1e-3, "norm": 2},
             {"maxiter": 3, "line_search_maxiter": 1}],
    LBFGS: [{"maxiter": 1}, {"maxiter": 3}, {"maxiter": 3, "maxcor": 1}, {"maxfun": 5}, {"maxgrad": 4},
            {"maxiter": 3, "ftol": 1e-2}, {"maxiter": 3, "maxls": 1}],
}
CASES = [pytest.param(name, method, options, id=f"{name}-{method[:6]}-{k}")
         for name in OBJECTIVES for method, sets in OPTIONS.items() for k, options in enumerate(sets)]


def both(name, method, options, x0=None):
    """(ours, JAX's) results for objective `name`."""
    fun, start, args = OBJECTIVES[name]
    x0 = start if x0 is None else x0
    ours = minimize(lambda x, *a: fun(x, *a, fg.numpy), x0, args, method=method, options=options)
    want = jax_call(lambda x0, *a: theirs(lambda x, *a: fun(x, *a, jnp), x0, a, method=method, options=options),
                    x0, *args)
    return ours, want


def assert_same_search(ours, want, what):
    """The same steps: status and counts exactly, values to f32 rounding."""
    assert type(ours).__name__ == "OptimizeResults" and ours._fields == want._fields
    for field in ("success", "status", "nfev", "njev", "nit"):
        same(np.asarray(getattr(ours, field)), np.asarray(getattr(want, field)), f"{what} {field}",
             oracle="jax.scipy.optimize")
    assert (ours.hess_inv is None) == (want.hess_inv is None), f"{what} hess_inv"
    for field in ("x", "fun", "jac") + (() if want.hess_inv is None else ("hess_inv",)):
        same(np.asarray(getattr(ours, field)), np.asarray(getattr(want, field)), f"{what} {field}", 1e-4, 1e-5,
             oracle="jax.scipy.optimize")


@pytest.mark.parametrize("name, method, options", CASES)
def test_takes_jax_s_steps(name, method, options):
    ours, want = both(name, method, options)
    assert_same_search(ours, want, f"{name} {method} {options}")


@pytest.mark.parametrize("method", ["BFGS", LBFGS])
@pytest.mark.parametrize("name", ["quartic", "logistic", "quadratic"])
def test_arrives_where_jax_does(name, method):
    ours, want = both(name, method, None)
    assert int(ours.nit) > 3
    same(np.asarray(ours.x), np.asarray(want.x), f"{name} {method} x", 1e-4, 1e-4, oracle="jax.scipy.optimize")
    same(np.asarray(ours.fun), np.asarray(want.fun), f"{name} {method} fun", 1e-6, 1e-7, oracle="jax.scipy.optimize")


@pytest.mark.parametrize("method", ["BFGS", "bfgs", LBFGS])
def test_reaches_a_convex_quadratic_s_minimum(method):
    _, x0, (a, c) = OBJECTIVES["quadratic"]
    found = minimize(lambda x: centered(x, a, c, fg.numpy), x0, method=method, options={"gtol": 1e-4})
    assert bool(found.success) and int(found.status) == 0
    np.testing.assert_allclose(np.asarray(found.x), c, rtol=1e-4, atol=1e-5)
    assert np.abs(np.asarray(found.jac)).max() < 1e-4
    if method != LBFGS:  # BFGS's estimate of the inverse Hessian approaches a's inverse
        np.testing.assert_allclose(np.asarray(found.hess_inv), np.linalg.inv(a), atol=2e-2)


@pytest.mark.parametrize("method", ["BFGS", LBFGS])
def test_compiled_and_batched(method):
    fun, x0, (a,) = OBJECTIVES["quartic"]

    def solve(x0, a, maxiter):
        return minimize(lambda x: fun(x, a, fg.numpy), x0, method=method, options={"maxiter": maxiter})

    compiled = fg.jit(solve, static_argnums=2)
    for maxiter in (3, 200):
        got = fg.tree_util.tree_map(np.asarray, compiled(x0, a, maxiter))
        if maxiter == 3:
            assert_same_search(got, solve(x0, a, maxiter), f"{method} compiled")
        else:
            want = solve(x0, a, maxiter)
            same(got.x, np.asarray(want.x), f"{method} compiled to the end", 1e-4, 1e-4)
    starts = np.stack([x0, -x0, np.zeros_like(x0)])
    batched = fg.vmap(solve, in_axes=(0, None, None))(starts, a, 3)
    want = jax_call(jax.vmap(lambda x0, a: theirs(lambda x: fun(x, a, jnp), x0, method=method,
                                                  options={"maxiter": 3}), (0, None)), starts, a)
    assert_same_search(batched, want, f"{method} batched")


def test_integer_start_is_f32():
    fun, _, args = OBJECTIVES["quartic"]
    options = {"maxiter": 3}
    ours = minimize(lambda x, a: fun(x, a, fg.numpy), np.int32([0, 1, 2, 0, -1]), args, method="BFGS",
                    options=options)
    assert np.asarray(ours.x).dtype == np.float32
    assert_same_search(ours, both("quartic", "BFGS", options, np.float32([0, 1, 2, 0, -1]))[1], "int start")


def test_refusals():
    square = lambda x: fg.numpy.sum(x * x)  # noqa: E731
    x0 = np.ones(3, np.float32)
    with pytest.raises(fg.InputError, match="minimize: args must be a tuple, got"):
        minimize(lambda x, a: square(x) * a, x0, 2.0, method="BFGS")
    with pytest.raises(fg.InputError, match="minimize: method 'newton' is not recognized: use 'BFGS'"):
        minimize(square, x0, method="newton")
    with pytest.raises(fg.InputError, match="minimize: BFGS has no option 'maxcor'; its options are maxiter"):
        minimize(square, x0, method="BFGS", options={"maxcor": 3})
    with pytest.raises(fg.ShapeError, match=r"minimize: x0 must be a 1-d array, got shape \(3, 1\)"):
        minimize(square, x0[:, None], method="BFGS")
    with pytest.raises(fg.DTypeError, match="minimize: x0 must be a float array, got bool"):
        minimize(square, x0 > 0, method="BFGS")
    with pytest.raises(fg.ShapeError, match=r"minimize: value_and_grad: the function must return a scalar, got "
                                            r"f32\[3\].* at test_scipy_optimize.py:\d+"):
        minimize(lambda x: x * x, x0, method="BFGS")
    with pytest.raises(fg.InputError, match="minimize: fun must be callable"):
        minimize(3.0, x0, method="BFGS")
    with pytest.raises(fg.InputError, match="minimize: options must be a dict of the method's settings, got"):
        minimize(square, x0, method="BFGS", options=[("maxiter", 3)])
    for options, match in (({"maxiter": "a"}, "option maxiter must be an integer or None, got 'a'"),
                           ({"gtol": "x"}, "option gtol must be a real number, got 'x'"),
                           ({"maxls": 1.5}, "option maxls must be an integer, got 1.5"),
                           ({"maxcor": 0}, "option maxcor must be an integer of at least 1, got 0")):
        with pytest.raises(fg.InputError, match=f"minimize: {match} at .*test_scipy_optimize"):
            minimize(square, x0, method=LBFGS, options=options)
