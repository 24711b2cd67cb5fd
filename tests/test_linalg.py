"""fg.numpy.linalg's factorizations and solvers (cholesky, solve, inv, det, slogdet) and fg.lax.linalg
(cholesky, lu, triangular_solve, lu_pivots_to_permutation) against jax.numpy.linalg and
jax.lax.linalg: values eagerly, traced through interpret and compiled to WGSL; gradients against
finite differences; forward mode against jax.jvp; vmap; the cases JAX answers with NaN or
infinities (not positive definite, singular); pivoting; the errors."""

from __future__ import annotations

import functools
import itertools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, same, table_params

LA, LL = fg.numpy.linalg, fg.lax.linalg
draws = Draws(23)
f32, i32 = draws.f32, draws.i32
# f32 factorizations of matrices with condition numbers up to ~100 agree with LAPACK's to a few ulps
# of the largest intermediate, not of each result
RTOL, ATOL = 1e-4, 1e-5
spd, general, triangular = draws.spd, draws.general, draws.triangular


S1, S3, S25 = spd(1, 1), spd(3, 3), spd(2, 5, 5)
G1, G3, G5, G25 = general(1, 1), general(3, 3), general(5, 5), general(2, 5, 5)
T3, T23 = triangular(3, 3), triangular(2, 3, 3)
SWAP = np.float32([[0, 1, 2], [1, 0, 0], [3, 1, 1]])  # a zero first pivot: LU must swap
SINGULAR = np.float32([[1, 2, 3], [2, 4, 6], [1, 1, 1]])
SINGULAR4 = np.float32([[1, 2, 3, 4], [2, 4, 6, 8], [1, 1, 1, 1], [0, 1, 0, 1]])
NOT_PD = np.float32([[1, 2], [2, 1]])
INTS = np.int32([[4, 2, 0], [2, 5, 1], [0, 1, 3]])  # positive definite

TABLE = [
    ("cholesky", LA.cholesky, jnp.linalg.cholesky, [(S1,), (S3,), (S25,), (INTS,)]),
    ("cholesky-upper", functools.partial(LA.cholesky, upper=True), functools.partial(jnp.linalg.cholesky, upper=True),
     [(S3,), (S25,)]),
    # only the lower triangle is read: the upper one holds garbage
    ("cholesky-lower-only", functools.partial(LA.cholesky, symmetrize_input=False),
     functools.partial(jnp.linalg.cholesky, symmetrize_input=False), [(np.tril(S3) + np.triu(T3, 1),)]),
    ("lax.cholesky", LL.cholesky, jax.lax.linalg.cholesky, [(S3,), (S25,)]),
    ("lu", LL.lu, jax.lax.linalg.lu, [(G1,), (G5,), (G25,), (SWAP,), (G25[:, :3, :],), (G25[:, :, :3],)]),
    ("lu_pivots_to_permutation", lambda p: LL.lu_pivots_to_permutation(p, 5),
     lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, 5), [(np.int32([[4, 3, 2, 3], [0, 2, 2, 4]]),)]),
    ("solve", LA.solve, jnp.linalg.solve,
     [(G1, f32(1)), (G5, f32(5)), (G25, f32(5)), (G25, f32(2, 5, 3)), (G3, f32(4, 1, 3, 2)), (SWAP, f32(3, 2)),
      (INTS, np.int32([1, 2, 3])), (G25, f32(5, 5))]),  # the last: matrices, with one axis fewer than a
    ("slogdet-qr", lambda a: LA.slogdet(a, method="qr"), lambda a: jnp.linalg.slogdet(a, method="qr"),
     [(G3,), (G5,), (G25,), (SWAP,), (-G5,), (INTS,)]),
    ("tensorinv", LA.tensorinv, jnp.linalg.tensorinv, [(general(6, 6).reshape(2, 3, 3, 2),)]),
    ("tensorinv-ind1", lambda a: LA.tensorinv(a, 1), lambda a: jnp.linalg.tensorinv(a, 1),
     [(general(6, 6).reshape(6, 2, 3),)]),
    ("tensorsolve", LA.tensorsolve, jnp.linalg.tensorsolve, [(general(6, 6).reshape(2, 3, 3, 2), f32(2, 3))]),
    ("tensorsolve-axes", lambda a, b: LA.tensorsolve(a, b, (0,)), lambda a, b: jnp.linalg.tensorsolve(a, b, (0,)),
     [(np.moveaxis(general(6, 6).reshape(2, 3, 6), -1, 0).copy(), f32(2, 3))]),
    ("inv", LA.inv, jnp.linalg.inv, [(G1,), (G3,), (G25,), (SWAP,), (INTS,)]),
    ("det", LA.det, jnp.linalg.det, [(G1,), (G25[:, :2, :2],), (G3,), (G5,), (G25,), (SWAP,), (INTS,)]),
    ("slogdet", LA.slogdet, jnp.linalg.slogdet, [(G1,), (G25[:, :2, :2],), (G3,), (G5,), (G25,), (SWAP,), (-G5,),
                                                 (INTS,)]),
]

# One row of each function compiled to WGSL on the local adapter (llvmpipe is slow: small matrices).
COMPILED = {"cholesky-0", "cholesky-2", "cholesky-upper-1", "lu-2", "lu-3", "lu-4", "solve-2", "solve-4", "inv-2",
            "det-4", "slogdet-4", "slogdet-qr-2", "lu_pivots_to_permutation-0"}


def eager_and_traced(ours, args, want, what, **tol):
    same(ours(*args), want, f"{what} eager", **tol)
    same(fg.interpret(fg.trace(ours, *args), *args), want, f"{what} traced", **tol)


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_against_jax(ours, theirs, args, name):
    want = jax_call(theirs, *args)
    eager_and_traced(ours, args, want, name, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ours, theirs, args, name",
                         [p for p in table_params(TABLE) if p.id in COMPILED])
def test_compiled(ours, theirs, args, name):
    same(fg.jit(ours)(*args), jax_call(theirs, *args), f"{name} jit", rtol=RTOL, atol=ATOL)


FLAGS = list(itertools.product([False, True], repeat=4))  # left_side, lower, transpose_a, unit_diagonal


@pytest.mark.parametrize("left_side, lower, transpose_a, unit_diagonal", FLAGS,
                         ids=["".join(k for k, on in zip(("left", "lower", "trans", "unit"), f) if on) or "none"
                              for f in FLAGS])
def test_triangular_solve(left_side, lower, transpose_a, unit_diagonal):
    kw = dict(left_side=left_side, lower=lower, transpose_a=transpose_a, unit_diagonal=unit_diagonal)
    b = f32(2, 3, 4) if left_side else f32(2, 4, 3)
    ours = functools.partial(LL.triangular_solve, **kw)
    want = jax_call(functools.partial(jax.lax.linalg.triangular_solve, **kw), T23, b)
    eager_and_traced(ours, (T23, b), want, f"triangular_solve {kw}", rtol=RTOL, atol=ATOL)
    vector = b[..., 0] if left_side else b[..., 0, :]  # one axis fewer than a: a vector per matrix
    want = jax_call(functools.partial(jax.lax.linalg.triangular_solve, **kw), T23, vector)
    same(ours(T23, vector), want, f"triangular_solve vector {kw}", rtol=RTOL, atol=ATOL)
    fg.check_grads(ours, (T23, b))


def test_triangular_solve_compiled():
    kw = dict(left_side=False, lower=False, transpose_a=True)
    b = f32(2, 4, 3)
    got = fg.jit(functools.partial(LL.triangular_solve, **kw))(T23, b)
    same(got, jax_call(functools.partial(jax.lax.linalg.triangular_solve, **kw), T23, b), "jit", rtol=RTOL, atol=ATOL)


def test_factors_reconstruct():
    lu, pivots, perm = LL.lu(G25)
    lower = np.tril(lu, -1) + np.eye(5, dtype=np.float32)
    np.testing.assert_allclose(lower @ np.triu(lu), np.take_along_axis(G25, perm[..., None], axis=-2), atol=1e-5)
    np.testing.assert_array_equal(LL.lu_pivots_to_permutation(pivots, 5), perm)
    factor = LA.cholesky(S25)
    np.testing.assert_allclose(factor @ np.swapaxes(factor, -1, -2), S25, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Derivatives
# ---------------------------------------------------------------------------

GRADS = [
    ("cholesky", LA.cholesky, (S25,)),
    ("cholesky-upper-lower-only", lambda a: LA.cholesky(a, upper=True, symmetrize_input=False), (S3,)),
    ("lu", lambda a: LL.lu(a)[0], (G25,)),
    ("lu-wide", lambda a: LL.lu(a)[0], (G25[:, :3, :],)),
    ("lu-tall", lambda a: LL.lu(a)[0], (G25[:, :, :3],)),
    ("lu-swap", lambda a: LL.lu(a)[0], (SWAP,)),
    ("solve-vector", LA.solve, (G25, f32(5))),
    ("solve-broadcast", LA.solve, (G3, f32(2, 3, 2))),
    ("inv", LA.inv, (G25,)),
    ("det-1", LA.det, (G1,)),
    ("det-3", LA.det, (G3,)),
    ("det-5", LA.det, (G25,)),
    ("slogdet-2", lambda a: LA.slogdet(a).logabsdet, (G25[:, :2, :2],)),
    ("slogdet-5", lambda a: LA.slogdet(a), (G25,)),
]


@pytest.mark.parametrize("fn, args", [pytest.param(f, a, id=n) for n, f, a in GRADS])
def test_grad(fn, args):
    fg.check_grads(fn, args)


@pytest.mark.parametrize("fn, args", [
    pytest.param(LA.cholesky, (S3,), id="cholesky"),
    pytest.param(LA.solve, (G3, f32(3, 2)), id="solve"),
    pytest.param(LA.det, (G5,), id="det"),
])
def test_second_order(fn, args):
    fg.check_grads(fn, args, order=2)


JVPS = [
    ("cholesky", LA.cholesky, jnp.linalg.cholesky, (S25,)),
    ("lu", lambda a: LL.lu(a)[0], lambda a: jax.lax.linalg.lu(a)[0], (G25,)),
    ("triangular_solve", functools.partial(LL.triangular_solve, left_side=True, lower=True),
     functools.partial(jax.lax.linalg.triangular_solve, left_side=True, lower=True), (T23, f32(2, 3, 2))),
    ("solve", LA.solve, jnp.linalg.solve, (G25, f32(2, 5, 2))),
    ("inv", LA.inv, jnp.linalg.inv, (G25,)),
    ("det", LA.det, jnp.linalg.det, (G25,)),
    ("slogdet", LA.slogdet, jnp.linalg.slogdet, (G25,)),
]


@pytest.mark.parametrize("ours, theirs, args", [pytest.param(o, t, a, id=n) for n, o, t, a in JVPS])
def test_jvp(ours, theirs, args):
    tangents = tuple(f32(*np.shape(a)) for a in args)
    if ours is LA.cholesky:  # a symmetric direction: cholesky symmetrizes its input
        tangents = tuple(t + np.swapaxes(t, -1, -2) for t in tangents)
    got = fg.jvp(ours, args, tangents)
    want = jax_call(lambda *a: jax.jvp(theirs, a[:len(args)], a[len(args):]), *args, *tangents)
    same(got, want, "jvp", rtol=RTOL, atol=ATOL)


def test_grad_compiled_matches_jax():
    def loss(a, b):
        return (LA.slogdet(a).logabsdet.sum() + (LA.solve(a, b) ** 2).sum()
                + LA.cholesky(a @ a.T + 5.0 * np.eye(5, dtype=np.float32)).sum())

    def theirs(a, b):
        return (jnp.linalg.slogdet(a).logabsdet.sum() + (jnp.linalg.solve(a, b) ** 2).sum()
                + jnp.linalg.cholesky(a @ a.T + 5.0 * jnp.eye(5)).sum())

    b = f32(5, 2)
    same(fg.jit(fg.grad(loss, argnums=(0, 1)))(G5, b), jax_call(jax.grad(theirs, argnums=(0, 1)), G5, b, jit=True),
         "jit grad", rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ours, theirs, args", [
    pytest.param(LA.cholesky, jnp.linalg.cholesky, (S25,), id="cholesky"),
    pytest.param(LL.lu, jax.lax.linalg.lu, (G25,), id="lu"),
    pytest.param(LA.solve, jnp.linalg.solve, (G25, f32(2, 5)), id="solve"),
    pytest.param(LA.inv, jnp.linalg.inv, (G25,), id="inv"),
    pytest.param(LA.slogdet, jnp.linalg.slogdet, (G25,), id="slogdet"),
    pytest.param(LA.det, jnp.linalg.det, (G25,), id="det"),
])
def test_vmap(ours, theirs, args):
    same(fg.vmap(ours)(*args), jax_call(jax.vmap(theirs), *args), "vmap", rtol=RTOL, atol=ATOL)


def test_vmap_of_grad():
    got = fg.vmap(fg.grad(lambda a: LA.det(a)))(G25)
    same(got, jax_call(jax.vmap(jax.grad(jnp.linalg.det)), G25), "vmap(grad(det))", rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------------
# NaN, infinities, empty matrices
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ours, theirs, args", [
    pytest.param(LA.cholesky, jnp.linalg.cholesky, (NOT_PD,), id="cholesky-not-pd"),
    pytest.param(LA.cholesky, jnp.linalg.cholesky, (np.stack([NOT_PD, spd(2, 2)]),), id="cholesky-one-of-two"),
    pytest.param(LL.lu, jax.lax.linalg.lu, (SINGULAR,), id="lu-singular"),
    pytest.param(LL.lu, jax.lax.linalg.lu, (np.float32([[0, 0, 1], [0, 0, 2], [1, 2, 3]]),), id="lu-zero-pivot"),
    pytest.param(LA.solve, jnp.linalg.solve, (np.float32([[1, 2], [2, 4]]), np.float32([1, 1])), id="solve-singular"),
    pytest.param(LA.inv, jnp.linalg.inv, (SINGULAR,), id="inv-singular"),
    pytest.param(LA.det, jnp.linalg.det, (SINGULAR4,), id="det-singular"),
    pytest.param(LA.slogdet, jnp.linalg.slogdet, (SINGULAR4,), id="slogdet-singular"),
    pytest.param(LA.det, jnp.linalg.det, (np.ones((2, 0, 0), np.float32),), id="det-empty"),
    pytest.param(LA.slogdet, jnp.linalg.slogdet, (np.ones((0, 0), np.float32),), id="slogdet-empty"),
    pytest.param(LA.inv, jnp.linalg.inv, (np.ones((0, 0), np.float32),), id="inv-empty"),
    pytest.param(LA.cholesky, jnp.linalg.cholesky, (np.ones((0, 0), np.float32),), id="cholesky-empty"),
])
def test_special(ours, theirs, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's division by zero, as the oracle's
        eager_and_traced(ours, args, jax_call(theirs, *args), "special")


@pytest.mark.parametrize("ours, args", [
    pytest.param(LA.cholesky, (np.stack([NOT_PD, spd(2, 2)]),), id="cholesky-not-pd"),
    pytest.param(LA.slogdet, (SINGULAR4,), id="slogdet-singular"),
])
def test_special_compiled(ours, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = fg.interpret(fg.trace(ours, *args), *args)
    same(fg.jit(ours)(*args), want, "special jit", oracle="interpret")


def test_solve_singular_compiled_is_not_finite():
    x = np.asarray(fg.jit(LA.inv)(SINGULAR))
    assert not np.isfinite(x).all(), x


def test_export_to_jax():
    def fn(a, b):
        return LA.solve(a, b), LA.slogdet(a), LA.cholesky(a @ a.T + 5.0 * np.eye(5, dtype=np.float32)), LL.lu(a)

    def theirs(a, b):
        return (jnp.linalg.solve(a, b), jnp.linalg.slogdet(a), jnp.linalg.cholesky(a @ a.T + 5.0 * jnp.eye(5)),
                tuple(jax.lax.linalg.lu(a)))

    b = f32(5, 2)
    same(jax.jit(fg.export.to_jax(fn))(G5, b), jax_call(theirs, G5, b, jit=True), "to_jax", rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

F16 = np.eye(3, dtype=np.float16)
ERRORS = [
    (lambda: LA.cholesky(f32(2, 3)), fg.ShapeError, r"cholesky: a must be square matrices .* \(2, 3\)"),
    (lambda: LA.cholesky(f32(3)), fg.ShapeError, r"cholesky: a needs matrices .* got \(3,\)"),
    (lambda: LA.cholesky(S3, upper=1), fg.TraceError, r"cholesky: upper must be True or False"),
    (lambda: LA.cholesky(F16), fg.DTypeError, r"cholesky: dtype f16 is not supported"),
    (lambda: LL.cholesky(INTS, symmetrize_input=False), fg.DTypeError, r"cholesky: operand 0 has dtype i32"),
    (lambda: LL.lu(f32(3)), fg.ShapeError, r"lu: x needs matrices .*\(\.\.\., m, n\), got \(3,\)"),
    (lambda: LL.lu(INTS), fg.DTypeError, r"lu: operand 0 has dtype i32; jax.lax.linalg takes floats"),
    (lambda: LL.triangular_solve(f32(2, 3), f32(2, 2), left_side=True), fg.ShapeError,
     r"triangular_solve: a must be square matrices .* \(2, 3\)"),
    (lambda: LL.triangular_solve(T3, f32(4, 2), left_side=True), fg.ShapeError,
     r"triangular_solve: incompatible shapes \(3, 3\) and \(4, 2\)"),
    (lambda: LL.triangular_solve(T23, f32(3, 3, 2), left_side=True), fg.ShapeError,
     r"triangular_solve: incompatible shapes \(2, 3, 3\) and \(3, 3, 2\).*leading axes \(2,\)"),
    (lambda: LL.triangular_solve(T3, INTS, left_side=True), fg.DTypeError, r"triangular_solve: operand 1 has dtype i32"),
    (lambda: LL.triangular_solve(T3, f32(3, 3), left_side="yes"), fg.TraceError,
     r"triangular_solve: left_side must be True or False"),
    (lambda: LA.solve(f32(3), f32(3)), fg.ShapeError, r"solve: a needs matrices in its last two axes"),
    (lambda: LA.solve(G3, f32(4)), fg.ShapeError, r"solve: b \(4,\) must be \(m,\) with m = 3"),
    (lambda: LA.solve(G3, f32(5, 3)), fg.ShapeError, r"solve: b \(5, 3\) must be \(\.\.\., m, k\) with m = 3"),
    (lambda: LA.solve(np.stack([G3, G3]), f32(2, 3)), fg.ShapeError,
     r"solve: b \(2, 3\) is a batch of vectors \(\.\.\., m\) for a \(2, 3, 3\)"),
    (lambda: LA.solve(np.stack([G3, G3]), f32(3, 3, 1)), fg.ShapeError, r"solve: the leading axes .* do not broadcast"),
    (lambda: LA.solve(G3, 1.0), fg.ShapeError, r"solve: b must be a vector .* got a scalar"),
    (lambda: LA.inv(f32(2, 3)), fg.ShapeError, r"inv: a must be square matrices .* \(2, 3\)"),
    (lambda: LA.det(f32(2, 3)), fg.ShapeError, r"det: a must be square matrices .* \(2, 3\)"),
    (lambda: LA.det(F16), fg.DTypeError, r"det: dtype f16 is not supported"),
    (lambda: LA.slogdet(f32(2, 3)), fg.ShapeError, r"slogdet: a must be square matrices .* \(2, 3\)"),
    (lambda: LA.slogdet(G3, method="svd"), fg.ShapeError, r"slogdet: method 'svd' is not supported"),
    (lambda: LA.tensorinv(G3, ind=0), fg.ShapeError, r"tensorinv: ind must be a positive integer, got 0"),
    (lambda: LA.tensorinv(f32(2, 3), 1), fg.ShapeError, r"tensorinv: the product of the first ind=1 axes of \(2, 3\)"),
    (lambda: LA.tensorsolve(f32(2, 3, 6), f32(3, 2)), fg.ShapeError, r"tensorsolve: a \(2, 3, 6\) must begin with"),
    (lambda: LL.lu_pivots_to_permutation(np.int32([[1, 2]]), 1), fg.ShapeError,
     r"lu_pivots_to_permutation: pivots must have a last axis of at most permutation_size=1"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[f"error-{k}" for k in range(len(ERRORS))])
def test_errors(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert "test_linalg.py:" in str(info.value), f"no user site in {info.value}"


def test_errors_inside_a_trace_name_the_users_line():
    with pytest.raises(fg.ShapeError, match=r"solve: b \(4,\) must be .* at test_linalg.py:\d+"):
        fg.trace(lambda a, b: LA.solve(a, b), G3, f32(4))
