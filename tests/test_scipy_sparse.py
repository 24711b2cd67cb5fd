"""`fg.scipy.sparse.linalg`'s iterative solvers against `jax.scipy.sparse.linalg`'s: the same
iterations, so the same solutions to rounding; matrices and functions as A, preconditioners,
pytrees, compiled, and implicit gradients."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.sparse.linalg as jax_sparse
import numpy as np
import pytest

import fgrad as fg

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

RNG = np.random.default_rng(0)
Q = RNG.normal(size=(5, 5)).astype(np.float32)
SPD = (Q @ Q.T + 5 * np.eye(5)).astype(np.float32)  # for cg
GENERAL = (RNG.normal(size=(5, 5)) + 4 * np.eye(5)).astype(np.float32)  # for bicgstab
B = RNG.normal(size=5).astype(np.float32)
SOLVERS = {"cg": SPD, "bicgstab": GENERAL}


def close(got, want, rtol=1e-5, atol=1e-6):
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_solutions_as_jax(name):
    ours, theirs, A = getattr(fg.scipy.sparse.linalg, name), getattr(jax_sparse, name), SOLVERS[name]
    x, info = ours(A, B)
    assert info is None
    close(x, theirs(A, B)[0])
    np.testing.assert_allclose(A @ np.asarray(x), B, atol=1e-5)
    close(ours(lambda v: A @ v, B, tol=1e-3)[0], theirs(lambda v: A @ v, B, tol=1e-3)[0])
    diagonal = np.diag(1 / np.diag(A)).astype(np.float32)
    close(ours(A, B, M=diagonal)[0], theirs(A, B, M=diagonal)[0])
    close(ours(A, B, x0=B, maxiter=2)[0], theirs(A, B, x0=B, maxiter=2)[0], rtol=1e-4)
    close(fg.jit(lambda a, b: ours(a, b)[0])(A, B).numpy(), theirs(A, B)[0])


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_pytrees_and_implicit_gradients_as_jax(name):
    ours, theirs, A = getattr(fg.scipy.sparse.linalg, name), getattr(jax_sparse, name), SOLVERS[name]

    def split(lib, v):
        return {"head": v[:2], "tail": v[2:]}

    def operator(lib):
        return lambda t: split(lib, A @ lib.concatenate([t["head"], t["tail"]]))

    close(ours(operator(fg), split(fg, B))[0], theirs(operator(jnp), split(jnp, B))[0])
    got = fg.grad(lambda b, a: fg.sum(ours(a, b)[0] ** 2), argnums=(0, 1))(B, A)
    want = jax.grad(lambda b, a: jnp.sum(theirs(a, b)[0] ** 2), argnums=(0, 1))(B, A)
    close(got, want, rtol=1e-4, atol=1e-6)


def test_misuse_is_named():
    sparse = fg.scipy.sparse.linalg
    with pytest.raises(fg.ShapeError, match=r"cg: the linear operator A must be a square matrix .* \(5, 4\)"):
        sparse.cg(SPD[:, :4], B)
    with pytest.raises(fg.InputError, match="bicgstab: the preconditioner M must be a matrix or a function"):
        sparse.bicgstab(GENERAL, B, M="jacobi")
    with pytest.raises(fg.ShapeError, match="cg: x0 must have b's structure and shapes"):
        sparse.cg(SPD, B, x0=B[:4])


@pytest.mark.parametrize("method", ["batched", "incremental"])
def test_gmres_as_jax(method):
    A = GENERAL
    diagonal = np.diag(1 / np.diag(A)).astype(np.float32)
    for options in ({}, {"restart": 2}, {"restart": 3, "tol": 1e-3}, {"M": diagonal}, {"restart": 2, "maxiter": 1},
                    {"x0": B}):
        x, info = fg.scipy.sparse.linalg.gmres(A, B, solve_method=method, **options)
        want, jax_info = jax_sparse.gmres(A, B, solve_method=method, **options)
        close(x, want)
        assert int(info) == int(jax_info) == 0
    got = fg.grad(lambda b, a: fg.sum(fg.scipy.sparse.linalg.gmres(a, b, solve_method=method)[0] ** 2),
                  argnums=(0, 1))(B, A)
    want = jax.grad(lambda b, a: jnp.sum(jax_sparse.gmres(a, b, solve_method=method)[0] ** 2), argnums=(0, 1))(B, A)
    close(got, want, rtol=1e-4, atol=1e-6)
    compiled = fg.jit(lambda a, b: fg.scipy.sparse.linalg.gmres(a, b, solve_method=method, restart=3)[0])(A, B)
    close(compiled.numpy(), jax_sparse.gmres(A, B, solve_method=method, restart=3)[0])
    tree = {"head": B[:2], "tail": B[2:]}
    x, _ = fg.scipy.sparse.linalg.gmres(
        lambda t: {"head": (A @ fg.concatenate([t["head"], t["tail"]]))[:2],
                   "tail": (A @ fg.concatenate([t["head"], t["tail"]]))[2:]}, tree, solve_method=method)
    whole = jax_sparse.gmres(A, B, solve_method=method)[0]
    close(x, {"head": whole[:2], "tail": whole[2:]}, rtol=1e-4, atol=1e-5)
    with pytest.raises(fg.InputError, match="gmres: solve_method must be 'batched' or 'incremental'"):
        fg.scipy.sparse.linalg.gmres(A, B, solve_method="qr")
