"""fg.lax.linalg's qr, eigh and svd and fg.numpy.linalg's qr, eigh, eigvalsh, svd, svdvals, pinv,
matrix_rank, lstsq and cond against jax.lax.linalg and jax.numpy.linalg: values eagerly, traced
through interpret and compiled to WGSL. QR has LAPACK's signs and is compared as it is; the signs
of eigenvectors and singular vectors are arbitrary, so those are compared through what does not
depend on them (eigenvalues, reconstructions, |v| where eigenvalues are distinct, orthogonality).
Gradients against finite differences, forward mode against jax.jvp, vmap, degenerate matrices
(zero, rank-deficient, repeated eigenvalues) and the errors."""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, same, table_params

LA, LL = fg.numpy.linalg, fg.lax.linalg
draws = Draws(29)
f32 = draws.f32
RTOL, ATOL = 1e-4, 1e-5


def sym(*shape: int) -> np.ndarray:
    x = f32(*shape)
    return ((x + np.swapaxes(x, -1, -2)) / 2).astype(np.float32)


def mT(x):
    return x.mT if hasattr(x, "mT") else np.swapaxes(x, -1, -2)


A2, A5, A23, A243, A234 = f32(2, 2), f32(5, 5), f32(2, 3, 3), f32(2, 4, 3), f32(2, 3, 4)
S2, S4, S23 = sym(2, 2), sym(4, 4), sym(2, 3, 3)
INTS = np.int32([[2, 1, 0], [1, 3, 1], [0, 1, 4]])
ZERO = np.zeros((3, 3), np.float32)
RANK1 = np.float32([[1, 2, 3], [2, 4, 6], [-1, -2, -3], [0, 0, 0]])
REPEATED = np.float32([[2, 0, 0], [0, 2, 0], [0, 0, 5]])  # eigenvalue 2 twice (its vectors: any basis)


# What an eigendecomposition or SVD determines whatever the vectors' signs.
def eigh_invariants(out):
    w, v = out
    return w, (v * w[..., None, :]) @ mT(v), abs(v)


def lax_eigh_invariants(out):
    return eigh_invariants(out[::-1])


def svd_invariants(out):
    u, s, vh = out
    k = s.shape[-1]
    return s, (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], abs(u[..., :, :k]), abs(vh[..., :k, :])


def orthogonality(q):
    return mT(q) @ q


TABLE = [
    *[(f"qr-{mode}", functools.partial(LA.qr, mode=mode), functools.partial(jnp.linalg.qr, mode=mode),
       [(A5,), (A243,), (A234,), (INTS,)]) for mode in ("reduced", "complete", "r", "raw")],
    ("lax.qr", LL.qr, jax.lax.linalg.qr, [(A23,), (A243,), (A234,)]),
    ("lax.qr-thin", functools.partial(LL.qr, full_matrices=False),
     functools.partial(jax.lax.linalg.qr, full_matrices=False),
     [(A243,), (A234,)]),
    ("lax.qr-pivoting", functools.partial(LL.qr, pivoting=True), functools.partial(jax.lax.linalg.qr, pivoting=True),
     [(A243,), (A234,)]),
    ("lax.householder_product", lambda a: LL.householder_product(*(lambda r: (mT(r[0]), r[1]))(LA.qr(a, "raw"))),
     lambda a: jax.lax.linalg.householder_product(*(lambda r: (r[0].mT, r[1]))(jnp.linalg.qr(a, "raw"))),
     [(A243,)]),
    ("eigvalsh", LA.eigvalsh, jnp.linalg.eigvalsh, [(S2,), (S4,), (S23,), (INTS,)]),
    ("eigvalsh-upper", lambda a: LA.eigvalsh(a, "U", symmetrize_input=False),
     lambda a: jnp.linalg.eigvalsh(a, "U", symmetrize_input=False), [(A23,)]),
    ("eigh", lambda a: eigh_invariants(LA.eigh(a)), lambda a: eigh_invariants(jnp.linalg.eigh(a)),
     [(S2,), (S4,), (S23,), (A5,)]),
    ("lax.eigh-lower-only", lambda a: lax_eigh_invariants(LL.eigh(a, symmetrize_input=False)),
     lambda a: lax_eigh_invariants(jax.lax.linalg.eigh(a, symmetrize_input=False)), [(A23,)]),
    ("svdvals", LA.svdvals, jnp.linalg.svdvals, [(A2,), (A5,), (A243,), (A234,), (INTS,)]),
    ("svd", lambda a: svd_invariants(LA.svd(a)), lambda a: svd_invariants(jnp.linalg.svd(a)),
     [(A2,), (A5,), (A243,), (A234,)]),
    ("svd-thin", lambda a: svd_invariants(LA.svd(a, full_matrices=False)),
     lambda a: svd_invariants(jnp.linalg.svd(a, full_matrices=False)), [(A243,), (A234,)]),
    ("svd-hermitian", lambda a: svd_invariants(LA.svd(a, hermitian=True)),
     lambda a: svd_invariants(jnp.linalg.svd(a, hermitian=True)), [(S4,)]),
    ("lax.svd", lambda a: svd_invariants(LL.svd(a)), lambda a: svd_invariants(jax.lax.linalg.svd(a)), [(A243,)]),
    ("pinv", LA.pinv, jnp.linalg.pinv, [(A5,), (A243,), (A234,), (RANK1,)]),
    ("pinv-hermitian", functools.partial(LA.pinv, hermitian=True), functools.partial(jnp.linalg.pinv, hermitian=True),
     [(S4,)]),
    ("matrix_rank", LA.matrix_rank, jnp.linalg.matrix_rank, [(A243,), (RANK1,), (ZERO,), (np.float32([0, 1]),)]),
    ("lstsq", LA.lstsq, jnp.linalg.lstsq,
     [(A243[0], f32(4)), (A243[0], f32(4, 2)), (A234[0], f32(3)), (RANK1, f32(4))]),
    ("cond", lambda a: [LA.cond(a, p) for p in (None, 2, -2, 1, -1, np.inf, "fro")],
     lambda a: [jnp.linalg.cond(a, p) for p in (None, 2, -2, 1, -1, jnp.inf, "fro")], [(A5,), (A23,)]),
    ("norm-spectral", lambda a: [LA.norm(a, o, axis=(-2, -1)) for o in (2, -2, "nuc")],
     lambda a: [jnp.linalg.norm(a, o, axis=(-2, -1)) for o in (2, -2, "nuc")], [(A243,), (A234,)]),
]

# A few small rows compiled to WGSL on the local adapter (llvmpipe is slow).
COMPILED = {"qr-reduced-1", "qr-complete-2", "lax.qr-pivoting-0", "eigvalsh-2", "eigh-1", "svd-2", "svdvals-3",
            "pinv-1", "lstsq-1"}


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_against_jax(ours, theirs, args, name):
    want = jax_call(theirs, *args)
    same(ours(*args), want, f"{name} eager", rtol=RTOL, atol=ATOL)
    same(fg.interpret(fg.trace(ours, *args), *args), want, f"{name} traced", rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ours, theirs, args, name", [p for p in table_params(TABLE) if p.id in COMPILED])
def test_compiled(ours, theirs, args, name):
    same(fg.jit(ours)(*args), jax_call(theirs, *args), f"{name} jit", rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("fn, args", [
    pytest.param(lambda a: LA.qr(a, "complete").Q, (A243,), id="qr-complete"),
    pytest.param(lambda a: LA.qr(a).Q, (A234,), id="qr-wide"),
    pytest.param(lambda a: LA.eigh(a).eigenvectors, (S4,), id="eigh"),
    pytest.param(lambda a: LA.svd(a).U, (A243,), id="svd-U"),
    pytest.param(lambda a: mT(LA.svd(a).Vh), (A234,), id="svd-Vh"),
    pytest.param(lambda a: LA.svd(a).U, (RANK1,), id="svd-rank-deficient-U"),
    pytest.param(lambda a: LA.qr(a, "complete").Q, (RANK1,), id="qr-rank-deficient"),
    pytest.param(lambda a: mT(LA.svd(a).Vh), (RANK1,), id="svd-rank-deficient-Vh"),
    pytest.param(lambda a: LA.svd(a).U, (ZERO,), id="svd-zero"),
    pytest.param(lambda a: LA.eigh(a).eigenvectors, (REPEATED,), id="eigh-repeated"),
])
def test_orthogonal(fn, args):
    q = np.asarray(fn(*args))
    eye = np.broadcast_to(np.eye(q.shape[-1], dtype=np.float32), q.shape[:-2] + (q.shape[-1],) * 2)
    np.testing.assert_allclose(orthogonality(q), eye, atol=1e-6)


def test_qr_signs_are_lapacks():
    """r's diagonal has geqrf's signs (minus the sign of the entry each reflection starts from)."""
    for a in (A5, A243, A234, -A243):
        same(LA.qr(a).R, jax_call(lambda x: jnp.linalg.qr(x).R, a), "qr R", rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ours, theirs, args", [
    pytest.param(LA.eigvalsh, jnp.linalg.eigvalsh, (REPEATED,), id="eigvalsh-repeated"),
    pytest.param(LA.eigvalsh, jnp.linalg.eigvalsh, (ZERO,), id="eigvalsh-zero"),
    pytest.param(lambda a: eigh_invariants(LA.eigh(a))[:2], lambda a: eigh_invariants(jnp.linalg.eigh(a))[:2],
                 (REPEATED + np.float32([[0, 1, 0], [1, 0, 0], [0, 0, 0]]),), id="eigh-repeated"),
    pytest.param(LA.svdvals, jnp.linalg.svdvals, (ZERO,), id="svdvals-zero"),
    pytest.param(lambda a: svd_invariants(LA.svd(a))[:2], lambda a: svd_invariants(jnp.linalg.svd(a))[:2],
                 (RANK1,), id="svd-rank-deficient"),
    pytest.param(LA.pinv, jnp.linalg.pinv, (ZERO,), id="pinv-zero"),
    pytest.param(LA.qr, jnp.linalg.qr, (ZERO,), id="qr-zero"),
    # past the rank, Q's columns and R's rows are set by rounding (in LAPACK's too)
    pytest.param(lambda a: (lambda r: (r.Q @ r.R, r.R[0]))(LA.qr(a)), lambda a: (lambda r: (r.Q @ r.R, r.R[0]))(
        jnp.linalg.qr(a)), (RANK1,), id="qr-rank-deficient"),
    pytest.param(LA.svd, jnp.linalg.svd, (np.zeros((2, 0, 3), np.float32),), id="svd-empty"),
    pytest.param(LA.qr, jnp.linalg.qr, (np.zeros((0, 3), np.float32),), id="qr-empty"),
    pytest.param(LA.eigh, jnp.linalg.eigh, (np.zeros((0, 0), np.float32),), id="eigh-empty"),
    pytest.param(LA.pinv, jnp.linalg.pinv, (np.zeros((3, 0), np.float32),), id="pinv-empty"),
])
def test_degenerate(ours, theirs, args):
    want = jax_call(theirs, *args)
    same(ours(*args), want, "eager", rtol=RTOL, atol=ATOL)
    same(fg.interpret(fg.trace(ours, *args), *args), want, "traced", rtol=RTOL, atol=ATOL)


def test_degenerate_compiled():
    fn = lambda a: (LA.svdvals(a), LA.eigvalsh(a[:3]), LA.pinv(a))  # noqa: E731
    same(fg.jit(fn)(RANK1), jax_call(lambda a: (jnp.linalg.svdvals(a), jnp.linalg.eigvalsh(a[:3]),
                                                 jnp.linalg.pinv(a)), RANK1), "jit", rtol=RTOL, atol=ATOL)


def test_jacobi_reaches_f32_accuracy_at_n_64():
    a = sym(64, 64)
    w, v = np.linalg.eigh(a.astype(np.float64))
    got = LA.eigh(a)
    scale = np.abs(w).max()
    assert np.abs(got.eigenvalues - w).max() < 1e-6 * scale
    assert np.abs(orthogonality(got.eigenvectors.astype(np.float64)) - np.eye(64)).max() < 2e-6
    x = f32(64, 48)
    u, s, vh = LA.svd(x, full_matrices=False)
    s64 = np.linalg.svd(x.astype(np.float64), compute_uv=False)
    assert np.abs(s - s64).max() < 1e-6 * s64[0]
    assert np.abs((u * s) @ vh - x).max() < 2e-6 * s64[0]


# ---------------------------------------------------------------------------
# Derivatives (distinct eigenvalues and singular values; quantities that do not depend on signs)
# ---------------------------------------------------------------------------

def projector(v, i):
    return v[..., :, i, None] * v[..., None, :, i]


GRADS = [
    ("qr", lambda a: LA.qr(a), (A243,)),
    ("qr-complete", lambda a: LA.qr(a, "complete"), (A243,)),
    ("qr-wide", lambda a: LA.qr(a), (A234,)),
    ("qr-pivoting", lambda a: LL.qr(a, pivoting=True, full_matrices=False)[:2], (A243,)),
    ("eigvalsh", LA.eigvalsh, (S23,)),
    ("eigh-projector", lambda a: projector(LA.eigh(a).eigenvectors, 1), (S23,)),
    ("eigh-lower-only", lambda a: LL.eigh(a, symmetrize_input=False)[1], (A23,)),
    ("svdvals", LA.svdvals, (A243,)),
    ("svd-thin", lambda a: (lambda r: (r.S, projector(r.U, 0), projector(mT(r.Vh), 1)))(LA.svd(a, full_matrices=False)),
     (A243,)),
    ("svd-wide", lambda a: (lambda r: (r.S, projector(r.U, 1), projector(mT(r.Vh), 0)))(LA.svd(a, full_matrices=False)),
     (A234,)),
    ("svd-square", lambda a: (lambda r: (r.U * r.S[..., None, :]) @ r.Vh)(LA.svd(a)), (A23,)),
    ("pinv", LA.pinv, (A243,)),
    ("pinv-wide", LA.pinv, (A234,)),
    ("lstsq", lambda a, b: LA.lstsq(a, b)[0], (A243[0], f32(4, 2))),
    ("norm-spectral", lambda a: [LA.norm(a, o, axis=(-2, -1)) for o in (2, -2, "nuc")], (A243,)),
]


@pytest.mark.parametrize("fn, args", [pytest.param(f, a, id=n) for n, f, a in GRADS])
def test_grad(fn, args):
    fg.check_grads(fn, args)


def test_svd_full_matrices_gradient_of_the_thin_part():
    """With full_matrices (JAX raises NotImplementedError for rectangular a), what the thin
    decomposition determines still has its derivative."""
    fg.check_grads(lambda a: (lambda r: (r.S, projector(r.U, 0)))(LA.svd(a)), (A243,))


JVPS = [
    ("qr", LA.qr, jnp.linalg.qr, (A243,)),
    ("qr-complete", functools.partial(LA.qr, mode="complete"), functools.partial(jnp.linalg.qr, mode="complete"),
     (A243,)),
    ("qr-wide", LA.qr, jnp.linalg.qr, (A234,)),
    ("eigvalsh", LA.eigvalsh, jnp.linalg.eigvalsh, (S23,)),
    ("eigh", lambda a: eigh_invariants(LA.eigh(a))[:2], lambda a: eigh_invariants(jnp.linalg.eigh(a))[:2], (S23,)),
    ("svdvals", LA.svdvals, jnp.linalg.svdvals, (A234,)),
    ("svd", lambda a: svd_invariants(LA.svd(a, full_matrices=False))[:2],
     lambda a: svd_invariants(jnp.linalg.svd(a, full_matrices=False))[:2], (A243,)),
    ("pinv", LA.pinv, jnp.linalg.pinv, (A243,)),
]


@pytest.mark.parametrize("ours, theirs, args", [pytest.param(o, t, a, id=n) for n, o, t, a in JVPS])
def test_jvp(ours, theirs, args):
    tangents = tuple(f32(*np.shape(a)) for a in args)
    got = fg.jvp(ours, args, tangents)
    want = jax_call(lambda *a: jax.jvp(theirs, a[:len(args)], a[len(args):]), *args, *tangents)
    same(got, want, "jvp", rtol=RTOL, atol=ATOL)


def test_grad_compiled_matches_jax():
    def loss(a):
        return (LA.svdvals(a).sum() + (LA.qr(a).R ** 2).sum()
                + (LA.eigvalsh(a @ a.T) * np.float32([1, 2, 3, 4])).sum())

    def theirs(a):
        return (jnp.linalg.svdvals(a).sum() + (jnp.linalg.qr(a)[1] ** 2).sum()
                + (jnp.linalg.eigvalsh(a @ a.T) * jnp.float32([1, 2, 3, 4])).sum())

    same(fg.jit(fg.grad(loss))(A243[0]), jax_call(jax.grad(theirs), A243[0], jit=True), "jit grad",
         rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ours, theirs, args", [
    pytest.param(LA.qr, jnp.linalg.qr, (A243,), id="qr"),
    pytest.param(LA.eigvalsh, jnp.linalg.eigvalsh, (S23,), id="eigvalsh"),
    pytest.param(lambda a: svd_invariants(LA.svd(a)), lambda a: svd_invariants(jnp.linalg.svd(a)), (A234,), id="svd"),
    pytest.param(LA.pinv, jnp.linalg.pinv, (A243,), id="pinv"),
])
def test_vmap(ours, theirs, args):
    same(fg.vmap(ours)(*args), jax_call(jax.vmap(theirs), *args), "vmap", rtol=RTOL, atol=ATOL)


def test_vmap_of_grad():
    got = fg.vmap(fg.grad(lambda a: LA.svdvals(a)[0]))(A243)
    same(got, jax_call(jax.vmap(jax.grad(lambda a: jnp.linalg.svdvals(a)[0])), A243), "vmap(grad)",
         rtol=RTOL, atol=ATOL)


def test_export_to_jax():
    def fn(a):
        return LA.qr(a), LA.svdvals(a), LA.eigvalsh(a.T @ a), LA.pinv(a)

    def theirs(a):
        return jnp.linalg.qr(a), jnp.linalg.svdvals(a), jnp.linalg.eigvalsh(a.T @ a), jnp.linalg.pinv(a)

    same(jax.jit(fg.export.to_jax(fn))(A243[0]), jax_call(theirs, A243[0], jit=True), "to_jax", rtol=RTOL, atol=ATOL)


def test_repeated_eigenvalues_have_no_eigenvector_derivative():
    """As JAX's rule: 1 / (w_j - w_i) is infinite for repeated eigenvalues, so the eigenvectors'
    tangent is NaN; the eigenvalues' is finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, (dw, dv) = fg.jvp(lambda a: LA.eigh(a), (REPEATED,), (sym(3, 3),))
    assert np.isfinite(dw).all() and not np.isfinite(dv).all()


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

F16 = np.eye(3, dtype=np.float16)
ERRORS = [
    (lambda: LA.qr(f32(3)), fg.ShapeError, r"qr: a needs matrices .*\(\.\.\., m, n\), got \(3,\)"),
    (lambda: LA.qr(A5, mode="economic"), fg.ShapeError, r"qr: unsupported mode 'economic'"),
    (lambda: LA.qr(F16), fg.DTypeError, r"qr: dtype f16 is not supported"),
    (lambda: LL.qr(INTS), fg.DTypeError, r"qr: operand 0 has dtype i32; jax.lax.linalg takes floats"),
    (lambda: LL.qr(A5, pivoting=1), fg.TraceError, r"qr: pivoting must be True or False"),
    (lambda: LA.eigh(f32(2, 3)), fg.ShapeError, r"eigh: a must be square matrices .* \(2, 3\)"),
    (lambda: LA.eigh(S4, UPLO="X"), fg.ShapeError, r"eigh: UPLO must be one of None, 'L', or 'U'"),
    (lambda: LA.eigvalsh(f32(4)), fg.ShapeError, r"eigvalsh: a needs matrices"),
    (lambda: LL.eigh(S4, subset_by_index=(0, 2)), fg.ShapeError, r"eigh: subset_by_index=\(0, 2\) is not supported"),
    (lambda: LA.svd(f32(3)), fg.ShapeError, r"svd: a needs matrices .*\(3,\)"),
    (lambda: LA.svd(A243, hermitian=True), fg.ShapeError, r"svd: a must be square matrices .* \(2, 4, 3\)"),
    (lambda: LA.svd(A5, compute_uv="yes"), fg.TraceError, r"svd: compute_uv must be True or False"),
    (lambda: LA.svdvals(F16), fg.DTypeError, r"svd: dtype f16 is not supported"),
    (lambda: LA.pinv(A5, rtol=0.1, rcond=0.1), fg.ShapeError, r"pinv: only one of rtol and rcond"),
    (lambda: LA.matrix_rank(A5, rtol=0.1, tol=0.1), fg.ShapeError, r"matrix_rank: only one of tol or rtol"),
    (lambda: LA.lstsq(A243, f32(2, 4)), fg.ShapeError, r"lstsq: a must be a matrix \(m, n\), got shape \(2, 4, 3\)"),
    (lambda: LA.lstsq(A5, f32(4)), fg.ShapeError, r"lstsq: b must be \(m,\) or \(m, k\) with m = 5"),
    (lambda: LA.cond(f32(3)), fg.ShapeError, r"cond: x must be at least 2-D"),
    (lambda: LA.cond(A243, 1), fg.ShapeError, r"cond: for p=1, x must be square, got shape \(2, 4, 3\)"),
    (lambda: LL.householder_product(A234, f32(2, 3)), fg.ShapeError,
     r"householder_product: a must be \(\.\.\., m, n\)"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[f"error-{k}" for k in range(len(ERRORS))])
def test_errors(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert "test_linalg_spectral.py:" in str(info.value), f"no user site in {info.value}"


def test_errors_inside_a_trace_name_the_users_line():
    with pytest.raises(fg.ShapeError, match=r"eigh: a must be square .* at test_linalg_spectral.py:\d+"):
        fg.trace(lambda a: LA.eigh(a), f32(2, 3))
