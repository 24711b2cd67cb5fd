"""fg.custom_jvp and fg.custom_vjp: JAX's documented examples under grad, vjp, jvp, vmap and jit, nested;
pytree arguments, nondiff_argnums, closures; the errors a wrong rule gets. JAX, where installed, is
the oracle for the documented examples; otherwise the analytic derivatives are."""

from __future__ import annotations

import doctest
import functools
import math

import numpy as np
import pytest

import fgrad as fg
from fgrad.transforms import custom

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")


def close(got, want, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------
# JAX's documentation's functions
# ---------------------------------------------------------------------------


@fg.custom_jvp
def sin_times(x, y):
    return fg.sin(x) * y


@sin_times.defjvp
def _sin_times_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    primal_out = sin_times(x, y)
    return primal_out, fg.cos(x) * x_dot * y + fg.sin(x) * y_dot


@fg.custom_jvp
def log1pexp(x):
    return fg.log(1.0 + fg.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return log1pexp(x), x_dot * (1.0 - 1.0 / (1.0 + fg.exp(x)))


@fg.custom_vjp
def sin_times_vjp(x, y):
    return fg.sin(x) * y


def _sin_times_fwd(x, y):
    return sin_times_vjp(x, y), (fg.cos(x), fg.sin(x), y)


def _sin_times_bwd(res, g):
    cos_x, sin_x, y = res
    return cos_x * g * y, sin_x * g


sin_times_vjp.defvjp(_sin_times_fwd, _sin_times_bwd)


@functools.partial(fg.custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x


clip_gradient.defvjp(lambda lo, hi, x: (x, None), lambda lo, hi, _, g: (fg.clip(g, lo, hi),))

X, Y = np.float32(0.7), np.float32(-1.3)
XS = np.array([-2.0, -0.5, 0.3, 1.1], np.float32)


def test_custom_jvp_sin_times_through_every_transform():
    d_x, d_y = math.cos(X) * Y, math.sin(X)
    close(sin_times(X, Y), math.sin(X) * Y)
    out, tangent = fg.jvp(sin_times, (X, Y), (np.float32(1.0), np.float32(2.0)))
    close(out, math.sin(X) * Y)
    close(tangent, d_x + 2 * d_y)
    close(fg.grad(sin_times, argnums=(0, 1))(X, Y), (d_x, d_y))  # reverse mode transposes the rule
    close(fg.grad(fg.grad(sin_times))(X, Y), -math.sin(X) * Y)
    close(fg.jit(fg.grad(sin_times, argnums=(0, 1)))(X, Y), (d_x, d_y), rtol=1e-5)
    close(fg.vmap(fg.grad(sin_times), in_axes=(0, None))(XS, Y), np.cos(XS) * Y)
    close(fg.grad(lambda x: fg.jvp(sin_times, (x, Y), (np.float32(1.0), np.float32(0.0)))[1])(X), -math.sin(X) * Y)
    close(fg.hessian(lambda x: sin_times(x, Y))(X), -math.sin(X) * Y)
    close(fg.jacrev(sin_times)(XS, Y), np.diag(np.cos(XS) * Y))
    close(fg.jacfwd(sin_times)(XS, Y), np.diag(np.cos(XS) * Y))


def test_custom_jvp_rule_is_what_every_mode_uses():
    """A rule that is not the function's derivative shows which rule each mode ran: forward mode
    runs it, reverse mode transposes it, also after vmap and jit and nested."""
    @fg.custom_jvp
    def f(x):
        return fg.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), 3.0 * tangents[0]

    close(fg.jvp(f, (X,), (np.float32(1.0),))[1], 3.0)
    close(fg.grad(f)(X), 3.0)
    close(fg.grad(lambda x: f(x) * f(x))(X), 2 * math.sin(X) * 3.0)
    close(fg.vmap(fg.grad(f))(XS), np.full(4, 3.0))
    close(fg.jit(fg.vmap(fg.grad(f)))(XS), np.full(4, 3.0))
    close(fg.grad(lambda x: f(x) + f(x))(X), 6.0)  # one application, taken twice


def test_log1pexp_rule_fixes_the_nan_of_the_plain_composition():
    plain = lambda x: fg.log(1.0 + fg.exp(x))  # noqa: E731
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(fg.grad(plain)(np.float32(100.0)))
    close(fg.grad(log1pexp)(np.float32(100.0)), 1.0)
    close(fg.jit(fg.grad(log1pexp))(np.float32(100.0)), 1.0)
    xs = np.array([-100.0, -3.0, 0.0, 3.0, 100.0], np.float32)
    close(fg.vmap(fg.grad(log1pexp))(xs), 1.0 / (1.0 + np.exp(-xs.astype(np.float64))))
    close(fg.jit(fg.vmap(fg.grad(log1pexp)))(xs), 1.0 / (1.0 + np.exp(-xs.astype(np.float64))), rtol=1e-5)
    # The second derivative differentiates the rule (whose own derivative overflows at 100, in JAX too).
    inner = xs[1:4]
    s = 1.0 / (1.0 + np.exp(-inner.astype(np.float64)))
    close(fg.vmap(fg.grad(fg.grad(log1pexp)))(inner), s * (1 - s))


def test_defjvps_one_rule_per_argument():
    @fg.custom_jvp
    def f(x, y):
        return fg.sin(x) * y

    f.defjvps(lambda x_dot, out, x, y: fg.cos(x) * x_dot * y, lambda y_dot, out, x, y: fg.sin(x) * y_dot)
    close(fg.grad(f, argnums=(0, 1))(X, Y), (math.cos(X) * Y, math.sin(X)))
    close(fg.jvp(f, (X, Y), (np.float32(1.0), np.float32(1.0)))[1], math.cos(X) * Y + math.sin(X))

    @fg.custom_jvp
    def g(x, y):
        return x * y

    g.defjvps(None, lambda y_dot, out, x, y: 10.0 * y_dot)  # None: x has no part in the tangent
    close(fg.grad(g, argnums=(0, 1))(X, Y), (0.0, 10.0))


def test_custom_vjp_sin_times_through_reverse_mode_vmap_and_jit():
    d_x, d_y = math.cos(X) * Y, math.sin(X)
    close(sin_times_vjp(X, Y), math.sin(X) * Y)
    close(fg.grad(sin_times_vjp, argnums=(0, 1))(X, Y), (d_x, d_y))
    out, pullback = fg.vjp(sin_times_vjp, X, Y)
    close(out, math.sin(X) * Y)
    close(pullback(np.float32(2.0)), (2 * d_x, 2 * d_y))
    close(fg.jit(fg.grad(sin_times_vjp, argnums=(0, 1)))(X, Y), (d_x, d_y), rtol=1e-5)
    close(fg.vmap(fg.grad(sin_times_vjp), in_axes=(0, None))(XS, Y), np.cos(XS) * Y)
    # An unbatched argument's cotangent sums its examples'.
    close(fg.grad(lambda xs, y: fg.sum(fg.vmap(sin_times_vjp, in_axes=(0, None))(xs, y)), argnums=1)(XS, Y),
          np.sin(XS).sum())
    close(fg.jit(fg.vmap(fg.grad(sin_times_vjp, argnums=(0, 1)), in_axes=(0, None)))(XS, Y),
          (np.cos(XS) * Y, np.sin(XS)), rtol=1e-5)
    # Second order differentiates bwd: d/dx (cos(x) y) = -sin(x) y.
    close(fg.grad(fg.grad(sin_times_vjp))(X, Y), -math.sin(X) * Y)


def test_custom_vjp_bwd_is_what_reverse_mode_runs():
    @fg.custom_vjp
    def f(x):
        return fg.sin(x)

    f.defvjp(lambda x: (f(x), x), lambda x, g: (7.0 * g,))
    close(fg.grad(f)(X), 7.0)
    close(fg.grad(lambda x: f(x) + f(x))(X), 14.0)
    close(fg.vmap(fg.grad(f))(XS), np.full(4, 7.0))
    close(fg.jit(fg.grad(f))(X), 7.0)
    close(f(X), math.sin(X))  # on arrays, the function itself


def test_clip_gradient_docstring_example_runs():
    """The gradient-clipping example of fgrad/transforms/custom.py's docstring, run as a doctest."""
    failures, attempted = doctest.testmod(custom, raise_on_error=False, verbose=False)
    assert attempted >= 8 and failures == 0


def test_clip_gradient_clips_only_the_cotangent():
    def clip_sin(x):
        return fg.sin(clip_gradient(-0.75, 0.75, x))

    close(clip_sin(np.float32(0.1)), math.sin(0.1))
    close(fg.vmap(fg.grad(clip_sin))(XS), np.clip(np.cos(XS.astype(np.float64)), -0.75, 0.75))
    close(fg.jit(fg.grad(clip_sin))(np.float32(0.1)), 0.75)
    # The cotangent reaching the clip is clipped, then the chain rule goes on: 3 cos(0.3) x 0.75.
    close(fg.grad(lambda x: clip_gradient(-0.75, 0.75, fg.sin(x)) * 3.0)(np.float32(0.3)), math.cos(0.3) * 0.75)


@pytest.mark.parametrize("name", ["sin_times", "log1pexp", "sin_times_vjp", "clip_gradient"])
def test_against_jax(name):
    """The documented examples against JAX's own custom rules, value and gradient."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    @jax.custom_jvp
    def j_sin_times(x, y):
        return jnp.sin(x) * y

    j_sin_times.defjvps(lambda x_dot, out, x, y: jnp.cos(x) * x_dot * y, lambda y_dot, out, x, y: jnp.sin(x) * y_dot)

    @jax.custom_jvp
    def j_log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    j_log1pexp.defjvps(lambda t, ans, x: t * (1.0 - 1.0 / (1.0 + jnp.exp(x))))

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
    def j_clip(lo, hi, x):
        return x

    j_clip.defvjp(lambda lo, hi, x: (x, None), lambda lo, hi, _, g: (jnp.clip(g, lo, hi),))
    xs = np.array([-30.0, -2.0, 0.1, 0.9, 50.0], np.float32)
    ys = np.array([0.5, -1.5, 2.0, 1.0, -0.25], np.float32)
    pairs = {
        "sin_times": (lambda x, y: sin_times(x, y), lambda x, y: j_sin_times(x, y)),
        "log1pexp": (lambda x, y: log1pexp(x * y), lambda x, y: j_log1pexp(x * y)),
        "sin_times_vjp": (lambda x, y: sin_times_vjp(x, y), lambda x, y: j_sin_times(x, y)),
        "clip_gradient": (lambda x, y: clip_gradient(-0.5, 0.5, fg.sin(x) * y),
                          lambda x, y: j_clip(-0.5, 0.5, jnp.sin(x) * y)),
    }
    ours, theirs = pairs[name]
    for x, y in zip(xs, ys):
        close(ours(x, y), theirs(x, y), rtol=1e-6)
        close(fg.grad(ours, argnums=(0, 1))(x, y), jax.grad(theirs, argnums=(0, 1))(x, y), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Arguments: pytrees, nondiff_argnums, keywords, closures
# ---------------------------------------------------------------------------


def test_pytree_arguments_and_outputs_with_none_cotangents():
    @fg.custom_vjp
    def f(d, y):
        return {"s": d["a"] * y, "t": (d["b"] + y,)}

    def fwd(d, y):
        return f(d, y), {"a": d["a"], "y": y}

    def bwd(res, g):
        return {"a": g["s"] * res["y"], "b": None}, g["s"] * res["a"] + g["t"][0]

    f.defvjp(fwd, bwd)
    d = {"a": np.float32(2.0), "b": np.float32(3.0)}

    def loss(d, y):
        out = f(d, y)
        return out["s"] + 2.0 * out["t"][0]

    grads = fg.grad(loss, argnums=(0, 1))(d, np.float32(4.0))
    close(grads[0]["a"], 4.0)
    close(grads[0]["b"], 0.0)  # bwd's None: zeros, whatever the true derivative
    close(grads[1], 4.0)

    @fg.custom_vjp
    def h(d, y):
        return d["a"] * y

    h.defvjp(lambda d, y: (h(d, y), None), lambda res, g: (None, g))  # None for a whole argument
    grads = fg.grad(h, argnums=(0, 1))(d, np.float32(4.0))
    close([grads[0]["a"], grads[0]["b"], grads[1]], [0.0, 0.0, 1.0])


def test_pytree_custom_jvp():
    @fg.custom_jvp
    def f(p):
        return {"sum": p[0] + p[1], "prod": p[0] * p[1]}

    @f.defjvp
    def f_jvp(primals, tangents):
        (a, b), = primals
        (da, db), = tangents
        return f((a, b)), {"sum": da + db, "prod": da * b + a * db}

    grads = fg.grad(lambda p: f(p)["prod"] + 3.0 * f(p)["sum"])((X, Y))
    close(grads, (Y + 3.0, X + 3.0))
    out, tangent = fg.jvp(f, ((X, Y),), ((np.float32(1.0), np.float32(0.0)),))
    close(tangent["prod"], Y)


def test_nondiff_argnums_take_python_values():
    @functools.partial(fg.custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    app.defvjp(lambda f, x: (app(f, x), x), lambda f, x, g: (5.0 * fg.cos(x) * g,))
    close(fg.grad(lambda x: app(fg.sin, x))(X), 5.0 * math.cos(X))
    close(fg.vmap(fg.grad(lambda x: app(fg.tanh, x)))(XS), 5.0 * np.cos(XS))

    @functools.partial(fg.custom_jvp, nondiff_argnums=(0,))
    def app2(f, x):
        return f(x)

    @app2.defjvp
    def app2_jvp(f, primals, tangents):
        return app2(f, *primals), 2.0 * tangents[0]

    close(fg.jvp(lambda x: app2(fg.sin, x), (X,), (np.float32(1.0),))[1], 2.0)
    close(fg.grad(lambda x: app2(fg.sin, x))(X), 2.0)


def test_custom_jvp_nondiff_tensor_argument_has_no_derivative():
    """As JAX's: a Tensor at nondiff_argnums has its gradient stopped."""
    @functools.partial(fg.custom_jvp, nondiff_argnums=(1,))
    def scale(x, s):
        return x * s

    @scale.defjvp
    def scale_jvp(s, primals, tangents):
        return scale(primals[0], s), tangents[0] * s

    close(fg.grad(lambda x, s: scale(x, s), argnums=(0, 1))(X, Y), (Y, 0.0))


def test_keyword_arguments_are_placed_by_position():
    close(fg.grad(lambda x, y: sin_times(x, y=y))(X, Y), math.cos(X) * Y)
    close(fg.grad(lambda x, y: sin_times_vjp(y=y, x=x))(X, Y), math.cos(X) * Y)


def test_closures_over_outer_tensors_are_differentiated_through_the_function():
    def with_jvp(w, x):
        @fg.custom_jvp
        def f(x):
            return fg.sin(x) * w

        @f.defjvp
        def f_jvp(primals, tangents):
            return f(primals[0]), 10.0 * tangents[0]  # the rule: for x only

        return f(x)

    def with_vjp(w, x):
        @fg.custom_vjp
        def f(x):
            return fg.sin(x) * w

        f.defvjp(lambda x: (f(x), None), lambda res, g: (10.0 * g,))
        return f(x)

    for fn in (with_jvp, with_vjp):
        close(fg.grad(fn, argnums=(0, 1))(Y, X), (math.sin(X), 10.0))
        close(fg.vmap(fg.grad(fn, argnums=(0, 1)), in_axes=(None, 0))(Y, XS), (np.sin(XS), np.full(4, 10.0)))
        close(fg.jit(fg.grad(fn, argnums=(0, 1)))(Y, X), (math.sin(X), 10.0), rtol=1e-5)
    close(fg.jvp(lambda w: with_jvp(w, X), (Y,), (np.float32(1.0),))[1], math.sin(X))


# ---------------------------------------------------------------------------
# Graphs, lowering, the device
# ---------------------------------------------------------------------------


def test_transformed_graphs_typecheck_and_lower_to_the_plain_functions_kernels():
    def plain(x, y):
        return fg.sin(x) * y

    for fn in (sin_times, sin_times_vjp):
        for transform in (lambda f: f, lambda f: fg.grad(lambda x, y: fg.sum(f(x, y)), argnums=(0, 1)), fg.vmap,
                          lambda f: fg.vmap(fg.grad(f))):
            fg.typecheck(fg.simplify(fg.typecheck(fg.trace(transform(fn), XS, XS))))
        # The call is inlined: the same kernels as the plain function.
        kernels = [[k.wgsl for k in fg.jit(f).lower(XS, XS).kernels] for f in (fn, plain)]
        assert kernels[0] == kernels[1]


def test_compiled_on_the_device_matches_interpret():
    def loss(x, y):
        return fg.sum(sin_times(x, y) + sin_times_vjp(x * 2.0, y) + log1pexp(x * 30.0))

    grad = fg.grad(loss, argnums=(0, 1))
    want = fg.interpret(fg.trace(grad, XS, XS[::-1].copy()), XS, XS[::-1].copy())
    got = fg.jit(grad)(XS, XS[::-1].copy())
    for g, w in zip(got, want):
        close(g, w, rtol=1e-5, atol=1e-6)


def test_nn_log1mexp_has_jaxs_derivative():
    xs = np.array([0.0, 1e-6, 0.5, 3.0, 100.0], np.float32)
    want = 1.0 / np.expm1(xs.astype(np.float64))
    got = fg.vmap(fg.grad(fg.nn.log1mexp))(xs)
    assert got[0] == np.inf  # the composition's two branches give NaN here
    close(got[1:], want[1:], rtol=1e-6)
    close(fg.jit(fg.vmap(fg.grad(fg.nn.log1mexp)))(xs)[1:], want[1:], rtol=1e-5)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

HERE = "test_custom_rules.py"


def test_custom_vjp_under_forward_mode_is_an_error():
    for transform in (lambda f: fg.jvp(f, (X, Y), (np.float32(1.0), np.float32(0.0))),
                      lambda f: fg.jacfwd(f)(X, Y), lambda f: fg.linearize(f, X, Y)[1](X, Y)):
        with pytest.raises(fg.TraceError, match=f"custom_vjp: forward-mode differentiation .* not supported.*{HERE}"):
            transform(sin_times_vjp)


def test_calling_without_a_rule_is_an_error():
    @fg.custom_vjp
    def f(x):
        return x

    @fg.custom_jvp
    def g(x):
        return x

    with pytest.raises(fg.TraceError, match=rf"custom_vjp: no VJP rule defined for f: .*f.defvjp\(fwd, bwd\).*{HERE}"):
        f(X)
    with pytest.raises(fg.TraceError, match=f"custom_jvp: no JVP rule defined for g: .*@g.defjvp.*{HERE}"):
        fg.grad(g)(X)


def _with_bwd(bwd, fwd=None):
    @fg.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(fwd or (lambda x, y: (f(x, y), (x, y))), bwd)
    return f


@pytest.mark.parametrize("bwd, error, message", [
    (lambda res, g: g, fg.TraceError, "bwd rule of f must return a tuple with one cotangent per argument, got a"),
    (lambda res, g: (g,), fg.TraceError, "bwd rule of f must return a tuple of length 2, one cotangent per argument, "
                                         "got length 1"),
    (lambda res, g: (g, fg.ones(3)), fg.ShapeError, r"bwd rule of f must produce an output with the shapes and dtypes "
                                                    r"of the arguments, but at output\.1 it produced f32\[3\] for an "
                                                    r"argument f32\[\]"),
    (lambda res, g: (g, g.astype("f16")), fg.DTypeError, r"bwd rule of f must produce .* at output\.1 it produced "
                                                         r"f16\[\] for an argument f32\[\]"),
    (lambda res, g: (g, "zero"), fg.TraceError, r"bwd rule of f returned a str at output\.1, where the argument is "
                                                r"f32\[\]"),
])
def test_bwd_returning_the_wrong_structure_or_shape_is_named(bwd, error, message):
    f = _with_bwd(bwd)
    with pytest.raises(error, match=f"custom_vjp: the {message}.*{HERE}"):
        fg.grad(f)(X, Y)


def test_bwd_array_for_a_pytree_argument_is_named():
    @fg.custom_vjp
    def f(d):
        return d["a"] * d["b"]

    f.defvjp(lambda d: (f(d), d), lambda d, g: (g,))  # one array for the dict {a, b}
    with pytest.raises(fg.TraceError, match="bwd rule of f returned an array where the argument holds a pytree"):
        fg.grad(f)({"a": X, "b": Y})


def test_fwd_and_jvp_rules_returning_the_wrong_thing_are_named():
    f = _with_bwd(lambda res, g: (g, g), fwd=lambda x, y: x * y)
    with pytest.raises(fg.TraceError, match=f"custom_vjp: the fwd rule of f must return a pair .*{HERE}"):
        fg.grad(f)(X, Y)
    f = _with_bwd(lambda res, g: (g, g), fwd=lambda x, y: (fg.stack([x, y]), None))
    with pytest.raises(fg.ShapeError, match=r"the output of f's fwd rule has shape f32\[2\] at output"):
        fg.grad(f)(X, Y)

    @fg.custom_jvp
    def g(x):
        return x

    g.defjvp(lambda primals, tangents: (primals[0], fg.ones(2)))
    wrong = rf"custom_jvp: the tangent output of g's jvp rule has shape f32\[2\].*{HERE}"
    with pytest.raises(fg.ShapeError, match=wrong):
        fg.grad(g)(X)
    g.defjvp(lambda primals, tangents: primals[0])
    with pytest.raises(fg.TraceError, match="jvp rule of g must return a pair"):
        fg.jvp(g, (X,), (X,))


def test_custom_vjp_refuses_a_tensor_in_nondiff_argnums():
    @functools.partial(fg.custom_vjp, nondiff_argnums=(1,))
    def f(x, s):
        return x * s

    f.defvjp(lambda x, s: (f(x, s), None), lambda s, res, g: (g * s,))
    with pytest.raises(fg.TraceError, match="argument 1 of f is in nondiff_argnums but holds a traced Tensor"):
        fg.grad(f)(X, Y)


def test_nondiff_argnums_out_of_range_is_named():
    @functools.partial(fg.custom_jvp, nondiff_argnums=(3,))
    def f(x):
        return x

    f.defjvp(lambda *a: a)
    with pytest.raises(fg.InputError, match=r"nondiff_argnums \[3\] out of range for f called with 1 arguments"):
        fg.grad(f)(X)


def test_custom_gradient_is_jax_s():
    """fg.custom_gradient: the rule, closing over the forward pass's values, is the reverse mode,
    eager, compiled and batched, as jax.custom_gradient's; forward mode and a malformed result
    are errors."""
    import jax
    import jax.numpy as jnp
    from jax_oracle import jax_call

    def ours(x, y):
        z = fg.sin(x) * y
        return z, lambda g: (g * y * 10.0, g * z)

    def theirs(x, y):
        z = jnp.sin(x) * y
        return z, lambda g: (g * y * 10.0, g * z)

    x, y = np.float32([1.0, 2.0, -0.5]), np.float32([3.0, 4.0, 5.0])
    f = fg.custom_gradient(ours)
    want = jax_call(jax.grad(lambda x, y: jax.custom_gradient(theirs)(x, y).sum(), argnums=(0, 1)), x, y)
    loss = fg.grad(lambda x, y: fg.sum(f(x, y)), argnums=(0, 1))
    for got in (loss(x, y), fg.jit(loss)(x, y)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    np.testing.assert_allclose(f(x, y), np.sin(x) * y, rtol=1e-6)
    square = fg.custom_gradient(lambda x: (x * x, lambda g: (g * x,)))  # half the true gradient
    np.testing.assert_allclose(fg.vmap(fg.grad(square))(x), x, rtol=1e-6)
    with pytest.raises(fg.TraceError, match="forward-mode differentiation"):
        fg.jvp(square, (x,), (x,))
    with pytest.raises(fg.TraceError, match=r"custom_gradient: <lambda> must return \(output, rule\)"):
        fg.grad(lambda x: fg.sum(fg.custom_gradient(lambda x: x * 2)(x)))(x)


# ---------------------------------------------------------------------------
# custom_batching: custom_vmap and sequential_vmap, as JAX's
# ---------------------------------------------------------------------------


def _adds(lib):
    """JAX's documentation's example: x + y, whose batching rule multiplies instead."""
    @lib.custom_batching.custom_vmap
    def f(x, y):
        return x + y

    seen = []

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        seen.append((axis_size, list(in_batched)))
        return xs * ys, in_batched[0] or in_batched[1]

    return f, seen


def test_custom_vmap_runs_its_rule_under_vmap_as_jax():
    import jax

    xs, ys = np.arange(3, dtype=np.float32), np.arange(1, 4, dtype=np.float32)
    f, seen = _adds(fg)
    jf, jseen = _adds(jax)
    np.testing.assert_array_equal(f(xs, ys), xs + ys)
    two = np.float32(2.0)
    for in_axes, args in ((0, (xs, ys)), ((0, None), (xs, two)), ((None, 0), (two, ys))):
        want = np.asarray(jax.vmap(jf, in_axes=in_axes)(*args))
        for vmapped in (fg.vmap(f, in_axes=in_axes), fg.jit(fg.vmap(f, in_axes=in_axes))):
            np.testing.assert_array_equal(np.asarray(vmapped(*args)), want)
        assert seen[-1] == jseen[-1]
    np.testing.assert_allclose(fg.grad(lambda x: f(x, 2.0))(np.float32(1.0)), 1.0)  # the function's derivative


def test_custom_vmap_rule_may_leave_outputs_unbatched_and_call_the_function():
    @fg.custom_batching.custom_vmap
    def total(x):
        return fg.sum(x), x * 2.0

    @total.def_vmap
    def rule(axis_size, in_batched, xs):
        return (fg.sum(xs), total(xs)[1]), (False, True)  # one total for the whole batch

    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    for vmapped in (fg.vmap(total), fg.jit(fg.vmap(total))):
        s, d = vmapped(xs)
        np.testing.assert_array_equal(np.asarray(s), [15.0, 15.0])
        np.testing.assert_array_equal(np.asarray(d), xs * 2)


def test_custom_vmap_closing_over_a_batched_value_batches_the_function():
    def per_example(c):
        g = fg.custom_batching.custom_vmap(lambda x: x * c)  # the rule cannot see c, which is batched
        g.def_vmap(lambda n, b, xs: (xs * 100.0, True))
        return g(np.float32(2.0))

    for vmapped in (fg.vmap(per_example), fg.jit(fg.vmap(per_example))):
        np.testing.assert_array_equal(np.asarray(vmapped(np.arange(3, dtype=np.float32))), [0.0, 2.0, 4.0])


def test_sequential_vmap_loops_over_the_batch_as_jax(capsys):
    import jax

    def make(lib):
        @lib.custom_batching.sequential_vmap
        def f(x, y):
            lib.debug.print("{}", x)
            return x + y, x * y
        return f

    xs, ys = np.arange(3, dtype=np.int32), np.int32(5)
    want = jax.vmap(make(jax), in_axes=(0, None))(xs, ys)
    jax.effects_barrier()
    jax_lines = capsys.readouterr().out
    for vmapped in (fg.vmap(make(fg), in_axes=(0, None)), fg.jit(fg.vmap(make(fg), in_axes=(0, None)))):
        got = vmapped(xs, ys)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        assert capsys.readouterr().out == jax_lines == "0\n1\n2\n"


def test_custom_vmap_misuse_is_named():
    f = fg.custom_batching.custom_vmap(lambda x: x + 1.0)
    with pytest.raises(fg.TraceError, match="custom_vmap: no batching rule defined"):
        f(np.ones(2, np.float32))
    f.def_vmap(lambda n, b, xs: xs)
    with pytest.raises(fg.TraceError, match="must return a pair"):
        fg.vmap(f)(np.ones(2, np.float32))
    f.def_vmap(lambda n, b, xs: (xs[:1], True))
    with pytest.raises(fg.TraceError, match=r"returned output 0 as f32\[1\], where batched it is f32\[2\]"):
        fg.vmap(f)(np.ones(2, np.float32))
    f.def_vmap(lambda n, b, xs: ((xs, xs), True))
    with pytest.raises(fg.TraceError, match="returned outputs of structure"):
        fg.vmap(f)(np.ones(2, np.float32))
    with pytest.raises(fg.TraceError, match="def_vmap takes a function"):
        f.def_vmap(3)
