"""fg.scipy.linalg against jax.scipy.linalg: values eagerly and traced, a few compiled to WGSL,
eigen- and singular vectors up to their signs, derivatives against finite differences and JAX's,
vmap, and the refusals naming the function and the caller's line."""

from __future__ import annotations

import functools

import jax
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import fgrad as fg
import fgrad.scipy.linalg as sla
from jax_oracle import Draws, jax_call, same, table_params

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

draws = Draws(41)
f32 = draws.f32
RTOL, ATOL = 1e-4, 1e-5  # f32 factorizations: a few ulps of the largest intermediate
spd, general, triangular = draws.spd, draws.general, draws.triangular


S4, S24 = spd(4, 4), spd(2, 4, 4)
G4, G24, G5 = general(4, 4), general(2, 4, 4), general(5, 5)
T4, T24 = triangular(4, 4), triangular(2, 4, 4)
B42, B242, B4 = f32(4, 2), f32(2, 4, 2), f32(4)
WIDE, TALL = f32(3, 5), f32(5, 3)
INTS = np.int32([[4, 2, 0], [2, 5, 1], [0, 1, 3]])  # positive definite
D6, E5 = f32(6), f32(5)
# expm of 0 and at 1-norms 0.34, 1.4, 2.1, 10, 21 and 68: Pade orders 3, 5, 7, then 1, 2 and 4 squarings
EXPM = np.stack([k * G4 for k in (0.0, 0.05, 0.2, 0.3, 1.5, 3.0, 10.0)]).astype(np.float32)
G3, S3, T3 = G4[:3, :3], spd(3, 3), T4[:3, :3]
LU4, PIV4 = sla.lu_factor(G4)


def lu_solve_with(trans):
    """lu_solve after lu_factor, ours and JAX's."""
    return (lambda a, b: sla.lu_solve(sla.lu_factor(a), b, trans=trans),
            lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b, trans=trans))


# Each row's argument sets are few and batched: every call of a JAX function at new shapes costs
# an XLA compilation.
TABLE = [
    # only the factor's triangle is read: the other holds garbage
    ("cholesky", sla.cholesky, jsl.cholesky, [(np.triu(S24) + np.tril(G24, -1),), (INTS,)]),
    ("cholesky-lower", functools.partial(sla.cholesky, lower=True), functools.partial(jsl.cholesky, lower=True),
     [(np.tril(S24) + np.triu(G24, 1),)]),
    ("cho_solve", lambda a, b: sla.cho_solve(sla.cho_factor(a), b), lambda a, b: jsl.cho_solve(jsl.cho_factor(a), b),
     [(S24, B242)]),
    ("cho_solve-lower", lambda a, b: sla.cho_solve(sla.cho_factor(a, lower=True), b),
     lambda a, b: jsl.cho_solve(jsl.cho_factor(a, lower=True), b), [(S24, B4)]),
    ("lu", sla.lu, jsl.lu, [(G4,)]),
    ("lu-permute_l", functools.partial(sla.lu, permute_l=True), functools.partial(jsl.lu, permute_l=True), [(TALL,)]),
    ("lu_factor", sla.lu_factor, jsl.lu_factor, [(WIDE,)]),
    ("lu_solve-0", *lu_solve_with(0), [(G24, B242)]),
    ("lu_solve-1", *lu_solve_with(1), [(G24, B4)]),
    ("lu_solve-2", *lu_solve_with(2), [(G4, B42)]),
    ("solve", sla.solve, jsl.solve, [(G24, B242), (INTS, np.int32([1, 2, 3]))]),
    ("solve-pos", functools.partial(sla.solve, assume_a="pos"), functools.partial(jsl.solve, assume_a="pos"),
     [(S24, f32(2, 4))]),  # vectors; matrices in test_jvp and test_compiled
    ("solve-pos-lower", functools.partial(sla.solve, assume_a="pos", lower=True),
     functools.partial(jsl.solve, assume_a="pos", lower=True), [(np.tril(S4) + np.triu(G4, 1), B42)]),
    ("solve_triangular", sla.solve_triangular, jsl.solve_triangular, [(T24, B242), (T4, B4)]),
    ("solve_triangular-flags", functools.partial(sla.solve_triangular, trans=1, lower=True, unit_diagonal=True),
     functools.partial(jsl.solve_triangular, trans=1, lower=True, unit_diagonal=True), [(T24, B242)]),
    ("solve_triangular-C", functools.partial(sla.solve_triangular, trans="C"),
     functools.partial(jsl.solve_triangular, trans="C"), [(T4, B42)]),
    ("inv", sla.inv, jsl.inv, [(G24,)]),
    ("det", sla.det, jsl.det, [(G24,)]),
    ("eigh_tridiagonal-i", functools.partial(sla.eigh_tridiagonal, eigvals_only=True, select="i", select_range=(1, 3)),
     functools.partial(jsl.eigh_tridiagonal, eigvals_only=True, select="i", select_range=(1, 3)), [(D6, E5)]),
    ("svd-values", functools.partial(sla.svd, compute_uv=False), functools.partial(jsl.svd, compute_uv=False),
     [(G24,)]),
    ("qr", sla.qr, jsl.qr, [(TALL,)]),
    ("qr-economic", functools.partial(sla.qr, mode="economic"), functools.partial(jsl.qr, mode="economic"), [(G24,)]),
    ("qr-r", functools.partial(sla.qr, mode="r"), functools.partial(jsl.qr, mode="r"), [(WIDE,)]),
    ("qr-pivoting", functools.partial(sla.qr, pivoting=True), functools.partial(jsl.qr, pivoting=True), [(TALL,)]),
    ("polar", sla.polar, jsl.polar, [(TALL,)]),
    ("polar-left", functools.partial(sla.polar, side="left"), functools.partial(jsl.polar, side="left"), [(WIDE,)]),
    ("polar-svd", functools.partial(sla.polar, method="svd"), functools.partial(jsl.polar, method="svd"), [(G24,)]),
    ("hessenberg", functools.partial(sla.hessenberg, calc_q=True), functools.partial(jsl.hessenberg, calc_q=True),
     [(G24,)]),
    ("hessenberg-h", sla.hessenberg, jsl.hessenberg, [(G5,)]),
    ("expm", sla.expm, jsl.expm, [(EXPM,)]),
    ("expm-upper", functools.partial(sla.expm, upper_triangular=True),
     functools.partial(jsl.expm, upper_triangular=True),
     [(np.triu(EXPM),)]),
    ("block_diag", sla.block_diag, jsl.block_diag, [(G4[:2, :3], np.int32([1, 2]), np.float32(5.0), f32(2, 1)), ()]),
    ("toeplitz", sla.toeplitz, jsl.toeplitz, [(np.int32([1, 2, 3]), np.int32([9, 4])), (f32(2, 3),)]),
    ("hilbert", lambda: sla.hilbert(5), lambda: jsl.hilbert(5), [()]),
    # the special matrices, leading axes batched where JAX batches them
    ("circulant", sla.circulant, jsl.circulant, [(f32(5),), (np.int32([[1, 2, 3], [4, 5, 6]]),)]),
    ("companion", sla.companion, jsl.companion, [(f32(5),), (f32(2, 4),), (np.int32([1, 2, 3]),)]),
    ("convolution_matrix", lambda a: sla.convolution_matrix(a, 3), lambda a: jsl.convolution_matrix(a, 3),
     [(f32(5),), (f32(2, 4),)]),
    ("convolution_matrix-same", lambda a: sla.convolution_matrix(a, 6, "same"),
     lambda a: jsl.convolution_matrix(a, 6, "same"), [(f32(4),), (f32(2, 7),)]),
    ("convolution_matrix-valid", lambda a: sla.convolution_matrix(a, 2, "valid"),
     lambda a: jsl.convolution_matrix(a, 2, "valid"), [(f32(5),)]),
    ("fiedler", sla.fiedler, jsl.fiedler, [(f32(5),), (np.int32([1, 5, 2]),)]),
    ("fiedler_companion", sla.fiedler_companion, jsl.fiedler_companion,
     [(f32(6),), (f32(2, 5),), (f32(2),), (f32(1),)]),
    ("hadamard", lambda: sla.hadamard(8), lambda: jsl.hadamard(8), [()]),
    ("hadamard-f32", lambda: sla.hadamard(4, np.float32), lambda: jsl.hadamard(4, np.float32), [()]),
    ("hankel", sla.hankel, jsl.hankel, [(f32(4),), (f32(3), f32(2, 5)), (np.int32([1, 2]), np.int32([7, 8, 9]))]),
    ("helmert", lambda: sla.helmert(5), lambda: jsl.helmert(5), [()]),
    ("helmert-full", lambda: sla.helmert(4, full=True), lambda: jsl.helmert(4, full=True), [()]),
    ("invhilbert", lambda: sla.invhilbert(4), lambda: jsl.invhilbert(4), [()]),
    ("pascal", lambda: sla.pascal(5), lambda: jsl.pascal(5), [()]),
    ("pascal-upper", lambda: sla.pascal(5, "upper"), lambda: jsl.pascal(5, "upper"), [()]),
    ("invpascal", lambda: sla.invpascal(5), lambda: jsl.invpascal(5), [()]),
    ("invpascal-lower", lambda: sla.invpascal(4, "lower"), lambda: jsl.invpascal(4, "lower"), [()]),
    ("leslie", sla.leslie, jsl.leslie, [(f32(4), f32(3)), (f32(2, 3), f32(2))]),
]

# inv and det are fg.numpy.linalg's, traced in test_linalg.py (det's LU rule takes seconds to trace).
EAGER_ONLY = {"inv", "det"}


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_against_jax(ours, theirs, args, name):
    want = jax_call(theirs, *args)
    same(ours(*args), want, f"{name} eager", RTOL, ATOL, oracle="jax.scipy.linalg")
    if name not in EAGER_ONLY:
        got = fg.interpret(fg.trace(ours, *args), *args)
        same(got, want, f"{name} traced", RTOL, ATOL, oracle="jax.scipy.linalg")


def test_compiled():
    """Several functions in one program compiled to WGSL on the local adapter (llvmpipe is slow);
    polar of square matrices runs the SVD's loop of two carried products of one shape."""
    def program(m, s, g, t, b):
        return (m.cholesky(s), m.cho_solve(m.cho_factor(s, lower=True), b), m.lu_solve(m.lu_factor(g), b, trans=1),
                m.solve(s, b, assume_a="pos"), m.solve_triangular(t, b, trans=1, lower=True, unit_diagonal=True),
                m.toeplitz(b[..., 0], g[0, 0]), m.expm(0.3 * g), m.polar(g, method="svd"))

    args = (S24, G24, T24, B242)
    got = fg.jit(functools.partial(program, sla))(*args)
    same(got, jax_call(functools.partial(program, jsl), *args, jit=True), "jit", RTOL, ATOL, oracle="jax.scipy.linalg")


def test_special_matrices_compiled():
    """The special matrices of traced vectors in one program through WGSL, against JAX's."""
    def program(m, a, b, c):
        return (m.circulant(a), m.companion(b), m.convolution_matrix(c, 4, "same"), m.fiedler(a),
                m.fiedler_companion(b), m.hankel(a, c), m.leslie(c, a[..., :2]), m.toeplitz(c, a))

    args = (f32(2, 3), f32(2, 5), f32(3))
    got = fg.jit(functools.partial(program, sla))(*args)
    same(got, jax_call(functools.partial(program, jsl), *args), "jit", RTOL, ATOL, oracle="jax.scipy.linalg")


def test_expm_needing_more_than_max_squarings_is_nan():
    """As JAX's: 40 G4 needs more than 2 squarings, G4 one."""
    got = sla.expm(np.stack([G4, 40.0 * G4]), max_squarings=2)
    same(got[0], sla.expm(G4), "expm within max_squarings", 0, 0, oracle="expm")
    assert np.isnan(got[1]).all(), got[1]


def test_expm_frechet_alone_and_cho_factor():
    a, e = 0.3 * G4, S4
    same(sla.expm_frechet(a, e, compute_expm=False), sla.expm_frechet(a, e)[1], "expm_frechet", 0, 0,
         oracle="expm_frechet")
    c, lower = sla.cho_factor(S4, lower=True)
    assert lower is True
    same(c, sla.cholesky(S4, lower=True), "cho_factor", 0, 0, oracle="cholesky")


def signs_fixed(vectors, *others):
    """vectors (..., n, k) with each column's largest entry made positive, and the rows of each
    of `others` (..., k, m) flipped with them (an SVD's vh), so decompositions compare whatever
    signs they chose."""
    vectors = np.asarray(vectors)
    biggest = np.take_along_axis(vectors, np.abs(vectors).argmax(-2)[..., None, :], axis=-2)
    flip = np.where(biggest < 0, -1.0, 1.0).astype(np.float32)
    return (vectors * flip, *(np.asarray(o) * np.swapaxes(flip, -1, -2) for o in others))


@pytest.mark.parametrize("ours, theirs, args", [
    pytest.param(sla.eigh, jsl.eigh, (S24,), id="eigh"),
])
def test_eigenvectors_up_to_sign(ours, theirs, args):
    (w, v), (want_w, want_v) = ours(*args), jax_call(theirs, *args)
    same(w, want_w, "eigenvalues", RTOL, ATOL)
    same(signs_fixed(v), signs_fixed(want_v), "eigenvectors", 1e-3, 1e-4)
    assert np.array_equal(sla.eigh(*args, eigvals_only=True), w)


def test_eigh_tridiagonal_vectors():
    """The eigenpairs of the tridiagonal matrix (JAX's own by inverse iteration are one more XLA
    program; its eigenvalues are compared in TABLE)."""
    w, v = sla.eigh_tridiagonal(D6, E5)
    tridiagonal = np.diag(D6) + np.diag(E5, 1) + np.diag(E5, -1)
    np.testing.assert_allclose(tridiagonal @ v, v * w, atol=2e-5)
    np.testing.assert_allclose(v.T @ v, np.eye(6), atol=2e-6)
    same(w, sla.eigh_tridiagonal(D6, E5, eigvals_only=True), "eigenvalues", 0, 0, oracle="eigvals_only")
    w1, v1 = sla.eigh_tridiagonal(D6, E5, select="i", select_range=(2, 4))
    same((w1, v1), (w[2:5], v[:, 2:5]), "select='i'", 0, 0, oracle="select='a'")


@pytest.mark.parametrize("a, full_matrices", [(G24, True), (TALL, False)], ids=["square", "tall"])
def test_singular_vectors_up_to_sign(a, full_matrices):
    u, s, vh = sla.svd(a, full_matrices=full_matrices)
    want_u, want_s, want_vh = jax_call(jsl.svd, a, full_matrices=full_matrices)
    same(s, want_s, "s", RTOL, ATOL)
    same(signs_fixed(u[..., :, :3], vh[..., :3, :]), signs_fixed(want_u[..., :, :3], want_vh[..., :3, :]), "u, vh",
         1e-3, 1e-4)


# ---------------------------------------------------------------------------
# Derivatives and vmap
# ---------------------------------------------------------------------------

GRADS = [
    ("expm", sla.expm, (0.3 * G3,)),
    ("expm-squared", sla.expm, (3.0 * G3,)),
    ("expm-upper", functools.partial(sla.expm, upper_triangular=True), (np.triu(G3),)),
    ("cholesky", sla.cholesky, (S3,)),
    ("cho_solve", lambda c, b: sla.cho_solve((c, True), b), (np.tril(T3), B42[:3])),
    ("solve_triangular", functools.partial(sla.solve_triangular, trans=1), (T24, B242)),
    ("lu_solve-1", lambda lu, b: sla.lu_solve((lu, PIV4), b, trans=1), (LU4, B42)),
    ("det", sla.det, (G3,)),
    ("lu", lambda a: sla.lu(a)[1:], (G3,)),
    ("hessenberg", functools.partial(sla.hessenberg, calc_q=True), (G4,)),
    ("toeplitz", sla.toeplitz, (B4, f32(3))),
    ("block_diag", sla.block_diag, (G4[:2], B4)),
    ("companion", sla.companion, (f32(2, 4),)),
    ("fiedler_companion", sla.fiedler_companion, (f32(5),)),
    ("hankel", sla.hankel, (f32(3), f32(4))),
    ("convolution_matrix", lambda a: sla.convolution_matrix(a, 4, "same"), (f32(3),)),
    ("leslie", sla.leslie, (f32(4), f32(3))),
]


@pytest.mark.parametrize("fn, args", [pytest.param(f, a, id=n) for n, f, a in GRADS])
def test_grad(fn, args):
    fg.check_grads(fn, args, rtol=1e-4, atol=1e-5)


def test_jvp():
    """expm (and expm_frechet, its jvp, as JAX's is), and solve with assume_a='pos' (its own rule,
    with a's whole tangent), against JAX's."""
    def ours(a, s, b):
        return sla.expm(a), sla.solve(s, b, assume_a="pos")

    def theirs(a, s, b):
        return jsl.expm(a), jsl.solve(s, b, assume_a="pos")

    args = (EXPM[:5], S24, B242)
    tangents = tuple(f32(*np.shape(a)) for a in args)
    want = jax_call(lambda *a: jax.jvp(theirs, a[:3], a[3:]), *args, *tangents, jit=True)
    # expm's squarings amplify f32 rounding: both are ~3e-5 of the largest entry from float64 SciPy's
    same(fg.jvp(ours, args, tangents), want, "jvp", 1e-3, 1e-4)
    same(sla.expm_frechet(args[0], tangents[0]), (want[0][0], want[1][0]), "expm_frechet", 1e-3, 1e-4)


def test_grad_compiled_matches_jax():
    shift = 4.0 * np.eye(3, dtype=np.float32)

    def loss(m, a, b):
        spd = a @ a.T + shift
        return ((m.solve_triangular(a + shift, b, lower=True) ** 2).sum() + m.det(a)
                + (m.cho_solve(m.cho_factor(spd), b) ** 2).sum())

    a, b = 0.5 * G3, B42[:3]
    want = jax_call(jax.grad(functools.partial(loss, jsl), argnums=(0, 1)), a, b, jit=True)
    same(fg.jit(fg.grad(functools.partial(loss, sla), argnums=(0, 1)))(a, b), want, "jit grad", RTOL, ATOL)


def test_vmap():
    def fn(m, a, c, t, b):
        return m.expm(a), m.cho_solve((c, True), b), m.solve_triangular(t, b[..., 0])

    args = (EXPM[:2], np.tril(T24), T24, B242)
    want = jax_call(jax.vmap(functools.partial(fn, jsl)), *args, jit=True)
    same(fg.vmap(functools.partial(fn, sla))(*args), want, "vmap", RTOL, ATOL)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

ERRORS = [
    (lambda: sla.cholesky(f32(2, 3)), fg.ShapeError, r"cholesky: a must be square matrices .* \(2, 3\)"),
    (lambda: sla.cholesky(S4, lower=1), fg.TraceError, r"cholesky: lower must be True or False"),
    (lambda: sla.cholesky(np.eye(3, dtype=np.float16)), fg.DTypeError, r"cholesky: dtype f16 is not supported"),
    (lambda: sla.cho_solve(S4, B4), fg.InputError, r"cho_solve: c_and_lower must be the pair \(c, lower\)"),
    (lambda: sla.cho_solve((S4, False), f32(3)), fg.ShapeError, r"cho_solve: b \(3,\) must be \(m,\) with m = 4"),
    (lambda: sla.cho_solve((S24, False), f32(2, 4)), fg.ShapeError,
     r"cho_solve: b \(2, 4\) is a batch of vectors"),
    (lambda: sla.cho_solve((S24, False), f32(3, 4, 1)), fg.ShapeError,
     r"cho_solve: the leading axes .* do not broadcast"),
    (lambda: sla.lu_solve((LU4, PIV4), B42, trans=3), fg.InputError, r"lu_solve: trans must be 0, 1, 2, got 3"),
    (lambda: sla.lu_solve((LU4, PIV4), B42, trans="T"), fg.InputError, r"lu_solve: trans must be 0, 1, 2, got 'T'"),
    (lambda: sla.lu_solve((LU4, PIV4[:3]), B42), fg.ShapeError, r"lu_solve: piv must be \(\.\.\., m\) = \(4,\)"),
    (lambda: sla.lu(f32(3)), fg.ShapeError, r"lu: a needs matrices"),
    (lambda: sla.solve(G4, B42, assume_a="banded"), fg.InputError, r"solve: assume_a must be one of"),
    (lambda: sla.solve(S4, f32(2, 3, 2), assume_a="pos"), fg.ShapeError,
     r"solve: with assume_a='pos', b must be .* got \(2, 3, 2\)"),
    (lambda: sla.solve(G4, f32(3)), fg.ShapeError, r"solve: b \(3,\) must be \(m,\) with m = 4"),
    (lambda: sla.solve_triangular(T4, B42, trans="X"), fg.InputError, r"solve_triangular: trans must be"),
    (lambda: sla.solve_triangular(f32(4, 3), B42), fg.ShapeError, r"solve_triangular: a must be square"),
    (lambda: sla.det(f32(2, 3)), fg.ShapeError, r"det: a must be square matrices"),
    (lambda: sla.eigh(S4, S4), fg.InputError, r"eigh: only b=None is supported"),
    (lambda: sla.eigh(S4, type=2), fg.InputError, r"eigh: only type=1 and eigvals=None"),
    (lambda: sla.eigh_tridiagonal(D6, E5[:3]), fg.ShapeError, r"eigh_tridiagonal: d must be a vector \(n,\) and e"),
    (lambda: sla.eigh_tridiagonal(D6, E5.astype(np.int32)), fg.DTypeError, r"eigh_tridiagonal: d and e must have one"),
    (lambda: sla.eigh_tridiagonal(D6, E5, select="v"), fg.InputError, r"eigh_tridiagonal: select must be 'a' or 'i'"),
    (lambda: sla.eigh_tridiagonal(D6, E5, select="i", select_range=(1.0, 2)), fg.InputError,
     r"eigh_tridiagonal: select_range must hold two static integers"),
    (lambda: sla.eigh_tridiagonal(D6, E5, select="i", select_range=(3, 6)), fg.InputError,
     r"eigh_tridiagonal: select_range \(3, 6\) must satisfy"),
    (lambda: sla.svd(f32(3)), fg.ShapeError, r"svd: a needs matrices"),
    (lambda: sla.qr(G4, mode="raw"), fg.InputError, r"qr: unsupported mode 'raw'"),
    (lambda: sla.polar(G4, side="up"), fg.InputError, r"polar: side must be 'right' or 'left'"),
    (lambda: sla.polar(WIDE), fg.InputError, r"polar: method='qdwh' takes m >= n with side='right'"),
    (lambda: sla.expm(f32(2, 3)), fg.ShapeError, r"expm: A must be square matrices"),
    (lambda: sla.expm(G4, max_squarings=-1), fg.TraceError, r"expm: max_squarings must be"),
    (lambda: sla.expm_frechet(G4, G5), fg.ShapeError, r"expm_frechet: A and E must have the same shape"),
    (lambda: sla.block_diag(G24), fg.ShapeError, r"block_diag: the arrays must have at most 2 dimensions"),
    (lambda: sla.toeplitz(f32(2, 3), f32(3, 4)), fg.ShapeError, r"toeplitz: the leading axes of c"),
    (lambda: sla.hessenberg(WIDE), fg.ShapeError, r"hessenberg: a must be square matrices .* \(3, 5\)"),
    (lambda: sla.hessenberg(G4, calc_q="yes"), fg.TraceError, r"hessenberg: calc_q must be True or False"),
    (lambda: sla.hilbert(2.5), fg.TraceError, r"hilbert: n must be a static non-negative integer"),
    (lambda: sla.companion(f32(1)), fg.ShapeError, r"companion: a needs at least 2 coefficients"),
    (lambda: sla.convolution_matrix(f32(3), 0), fg.ShapeError, r"convolution_matrix: n must be at least 1"),
    (lambda: sla.convolution_matrix(f32(3), 2, "middle"), fg.InputError, r"convolution_matrix: mode must be"),
    (lambda: sla.fiedler_companion(f32(0)), fg.ShapeError, r"fiedler_companion: a needs coefficients"),
    (lambda: sla.hadamard(6), fg.ShapeError, r"hadamard: n must be a positive power of 2, got 6"),
    (lambda: sla.hankel(np.float32(1.0)), fg.ShapeError, r"hankel: c must have at least one axis"),
    (lambda: sla.helmert(0), fg.ShapeError, r"helmert: n must be at least 1"),
    (lambda: sla.pascal(4, "diagonal"), fg.InputError, r"pascal: kind must be 'symmetric', 'lower' or 'upper'"),
    (lambda: sla.leslie(f32(4), f32(2)), fg.ShapeError, r"leslie: f needs at least 2 entries and s one fewer"),
    (lambda: sla.hankel(f32(2, 3), f32(3, 4)), fg.ShapeError,
     r"hankel: the leading axes of c \(2, 3\) and r \(3, 4\) do not broadcast"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[f"error-{k}" for k in range(len(ERRORS))])
def test_errors(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert "test_scipy_linalg.py:" in str(info.value), f"no user site in {info.value}"


def test_errors_inside_a_trace_name_the_users_line():
    with pytest.raises(fg.ShapeError, match=r"cho_solve: b \(3,\) must be .* at test_scipy_linalg.py:\d+"):
        fg.trace(lambda c, b: sla.cho_solve((c, True), b), S4, f32(3))
