"""fg.linear_transpose against jax.linear_transpose: values of linear functions (loops, branches,
products, indexing, pytrees), the functions refused as not linear, and the cotangent checks."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
import fgrad.numpy as fnp
from tests.jax_oracle import Draws, same

D = Draws(7)
X, Y = D.f32(3), D.f32(2, 3)
M = D.f32(2, 3)

# (name, function over the numpy module and lax, primals, cotangent)
LINEAR = [
    ("scale", lambda np_, lax: lambda x: 3.0 * x - x / 2.0, (X,), D.f32(3)),
    ("affine", lambda np_, lax: lambda x: x + 1.0, (X,), D.f32(3)),
    ("two_args", lambda np_, lax: lambda x, y: x + 2.0 * y[0], (X, Y), D.f32(3)),
    ("matmul", lambda np_, lax: lambda y: np_.asarray(M) @ y.T, (Y,), D.f32(2, 2)),
    ("reductions", lambda np_, lax: lambda y: (np_.sum(y, axis=0), np_.cumsum(y, axis=1)), (Y,),
     (D.f32(3), D.f32(2, 3))),
    ("indexing", lambda np_, lax: lambda x: x[np_.asarray([2, 0, 0, 1])] + np_.flip(x)[1], (X,), D.f32(4)),
    ("shapes", lambda np_, lax: lambda y: np_.concatenate([y.reshape(6), np_.pad(y[:, 1], (1, 2))]), (Y,),
     D.f32(11)),
    ("scatter", lambda np_, lax: lambda x: np_.zeros(5).at[np_.asarray([0, 4, 0])].add(x), (X,), D.f32(5)),
    ("where_constant", lambda np_, lax: lambda x: np_.where(np_.asarray([True, False, True]), x, 0.0), (X,),
     D.f32(3)),
    ("scan", lambda np_, lax: lambda x: lax.scan(lambda c, a: (0.5 * c + a, 2.0 * c), 0.0, x), (X,),
     (np.float32(1.5), D.f32(3))),
    ("fori_loop", lambda np_, lax: lambda y: lax.fori_loop(0, 3, lambda i, c: c @ np_.asarray(M.T @ M), y), (Y,),
     D.f32(2, 3)),
    ("cond", lambda np_, lax: lambda x: lax.cond(x.shape[0] > 2, lambda v: 2.0 * v, lambda v: -v, x), (X,),
     D.f32(3)),
    ("kink-on-the-counter", lambda np_, lax: lambda y: lax.fori_loop(
        0, 3, lambda i, c: np_.where(i > 0, 2.0 * c, c), y), (Y,), D.f32(2, 3)),
    ("pytree", lambda np_, lax: lambda p: {"a": p["w"] * 2.0, "b": (p["v"].T,)}, ({"w": X, "v": Y},),
     {"a": D.f32(3), "b": (D.f32(3, 2),)}),
]


@pytest.mark.parametrize("name, make, primals, ct", LINEAR, ids=[row[0] for row in LINEAR])
def test_the_transpose_of_a_linear_function_is_jax_s(name, make, primals, ct):
    want = jax.linear_transpose(make(jnp, jax.lax), *primals)(jax.tree_util.tree_map(jnp.asarray, ct))
    got = fg.linear_transpose(make(fnp, fg.lax), *primals)(ct)
    assert isinstance(got, tuple) and len(got) == len(primals)
    same(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), name)


def test_the_transpose_is_the_adjoint():
    """<A x, c> = <x, A^T c> for a random linear map, to f32 rounding."""
    f = lambda y: fnp.tanh(fnp.asarray(M)) @ y.T + fnp.sum(y, axis=1, keepdims=True)  # noqa: E731
    c = D.f32(2, 2)
    (t,) = fg.linear_transpose(f, Y)(c)
    np.testing.assert_allclose(np.sum(np.asarray(f(Y)) * c), np.sum(np.asarray(t) * Y), rtol=1e-5)


def test_it_takes_shapes_and_works_in_jit_grad_and_vmap():
    t = fg.linear_transpose(lambda x: 3.0 * x, fg.ShapeDtypeStruct((3,), fnp.float32))
    c = D.f32(3)
    np.testing.assert_allclose(np.asarray(fg.jit(t)(c)[0]), 3.0 * c, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fg.vmap(t)(np.stack([c, 2 * c]))[0]), 3.0 * np.stack([c, 2 * c]),
                               rtol=1e-6)
    g = fg.grad(lambda c: fnp.sum(t(c)[0] ** 2))(c)
    np.testing.assert_allclose(np.asarray(g), 18.0 * c, rtol=1e-5)


def test_a_function_closing_over_a_traced_value_is_linear_in_its_arguments_only():
    @fg.jit
    def f(w, c):
        return fg.linear_transpose(lambda x: w * x + w, X)(c)[0]

    w, c = D.f32(3), D.f32(3)
    np.testing.assert_allclose(np.asarray(f(w, c)), w * c, rtol=1e-6)


NONLINEAR = [
    ("sin", lambda x: fnp.sin(x)),
    ("square", lambda x: x * x),
    ("reciprocal", lambda x: 2.0 / x),
    ("softmax", lambda x: fg.nn.softmax(x)),
    ("relu", lambda x: fnp.where(x > 0, x, 0.0)),
    ("stop_gradient", lambda x: fg.lax.stop_gradient(x) + x),
    ("scan", lambda x: fg.lax.scan(lambda c, a: (c * a, c), 1.0, x)[0]),
    ("fori_loop", lambda x: fg.lax.fori_loop(0, 2, lambda i, c: c * c, x)),
    # piecewise linear: a kink inside a primitive, or a comparison inside a body
    ("abs", lambda x: fnp.abs(x)),
    ("relu", lambda x: fg.nn.relu(x)),
    ("maximum", lambda x: fnp.maximum(x, 0.0)),
    ("max", lambda x: fnp.max(x)),
    ("sort", lambda x: fnp.sort(x)),
    ("cummax", lambda x: fg.lax.cummax(x)),
    ("clip", lambda x: fnp.clip(x, -1.0, 1.0)),
    ("scan-kink", lambda x: fg.lax.scan(lambda c, a: (c, fnp.where(a > 0, a, 0.0)), 0.0, x)[1]),
    ("checkpoint-kink", lambda x: fg.checkpoint(lambda v: fnp.where(v > 0, v, 0.0))(x)),
    ("cond-kink", lambda x: fg.lax.cond(x.shape[0] > 2, lambda v: fnp.abs(v), lambda v: v, x)),
    ("astype-int", lambda x: x.astype(fnp.int32).astype(fnp.float32)),
]


@pytest.mark.parametrize("name, f", NONLINEAR, ids=[row[0] for row in NONLINEAR])
def test_a_function_that_is_not_linear_is_refused_at_the_user_s_line(name, f):
    with pytest.raises(fg.TraceError, match=r"linear_transpose: the function is not linear.* at test_linear_transpose"):
        fg.linear_transpose(f, X)


def test_a_branch_that_is_not_linear_is_refused():
    @fg.jit
    def f(p, c):
        return fg.linear_transpose(lambda x: fg.lax.cond(p, lambda v: 2.0 * v, lambda v: v * v, x), X)(c)[0]

    with pytest.raises(fg.TraceError, match="not linear"):
        f(np.bool_(True), X)


def test_what_jax_refuses_is_refused():
    with pytest.raises(fg.DTypeError, match=r"float -> float functions, got \[f32\] -> \[i32\]"):
        fg.linear_transpose(lambda x: x.astype(fnp.int32), X)
    with pytest.raises(fg.TraceError, match="while_loop"):
        fg.linear_transpose(lambda x: fg.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, 2.0 * c[1]),
                                                        (0, x))[1], X)(X)
    with pytest.raises(fg.TraceError, match="expected a function"):
        fg.linear_transpose(3.0, X)


def test_the_cotangent_is_checked():
    t = fg.linear_transpose(lambda x: {"a": 2.0 * x}, X)
    with pytest.raises(fg.InputError, match=r"the cotangent has structure .* the function's output"):
        t(X)
    with pytest.raises(fg.ShapeError, match=r"cotangent.a is f32\[4\], the function's output there is f32\[3\]"):
        t({"a": D.f32(4)})
    with pytest.raises(fg.DTypeError, match=r"is i32\[3\]"):
        t({"a": np.arange(3, dtype=np.int32)})
    assert np.asarray(fg.linear_transpose(lambda x: fnp.sum(x), X)(1.0)[0]).tolist() == [1.0, 1.0, 1.0]
