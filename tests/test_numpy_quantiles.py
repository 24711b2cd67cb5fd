"""jax.numpy's quantiles (quantile, percentile, their NaN-ignoring forms, median, nanmedian),
its numerical gradient, trapezoid and unwrap against jax.numpy itself: each table row runs
eagerly, traced (through interpret) and compiled (fg.jit, WGSL), on f32 and i32 inputs with
NaNs, and must give JAX's values, dtypes and shapes; gradients against jax.grad; the forms
fgrad refuses name the function and the user's line."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from fgrad.runtime import default_device
from jax_oracle import Draws, leaves, same, table_params

nan = np.nan
draws = Draws(11, ints=4)
rng, f32, i32 = draws.rng, draws.f32, draws.i32


X = f32(2, 3, 4)
XN = X.copy()
XN[0, 1, 2] = XN[1, 0, 0] = nan
XN[1, 2, :] = nan  # a row of NaN only
I = i32(2, 3, 4)
H = X.astype(np.float16)
Q = np.float32([0.0, 0.25, 0.5, 0.9, 1.0])
P = np.float32([0, 10, 50, 95, 100])
METHODS = ("linear", "lower", "higher", "midpoint", "nearest")

Y = f32(3, 5)
COORDS5 = np.cumsum(rng.uniform(0.2, 2.0, 5)).astype(np.float32)
COORDS3 = np.cumsum(rng.uniform(0.2, 2.0, 3)).astype(np.float32)
PHASE = np.cumsum(rng.uniform(-4.0, 4.0, (2, 7)), 1)
WRAPPED = np.angle(np.exp(1j * PHASE)).astype(np.float32)  # in (-pi, pi], jumping by 2 pi


def _quantile_row(name: str, axis, keepdims: bool, inputs: list) -> tuple:
    """A row calling `name` with every method, at the array of q's and one scalar q."""
    qs = (P, 37) if "percentile" in name else (Q, 0.3)

    def calls(fn):
        return lambda a: [fn(a, q, axis=axis, method=m, keepdims=keepdims) for m in METHODS for q in qs]

    return (f"{name}-{axis}-{keepdims}", calls(getattr(fg, name)), calls(getattr(jnp, name)), inputs)


TABLE = [
    *[_quantile_row(name, axis, keepdims, [(X,), (XN,), (I,)])
      for name in ("quantile", "nanquantile")
      for axis, keepdims in ((None, False), (1, True), ((0, 2), False), (-1, False), ((2, 0), True))],
    *[_quantile_row(name, axis, keepdims, [(XN,), (I,)])
      for name in ("percentile", "nanpercentile") for axis, keepdims in ((None, True), (0, False))],
    ("medians", lambda a: [fg.median(a, ax, keepdims=k) for ax in (None, 1, (0, 2)) for k in (False, True)]
     + [fg.nanmedian(a, ax, keepdims=k) for ax in (None, 1, (0, 2)) for k in (False, True)],
     lambda a: [jnp.median(a, ax, keepdims=k) for ax in (None, 1, (0, 2)) for k in (False, True)]
     + [jnp.nanmedian(a, ax, keepdims=k) for ax in (None, 1, (0, 2)) for k in (False, True)],
     [(X,), (XN,), (I,)]),
    # q traced: a Tensor, as any other argument
    ("quantile-traced-q", lambda a, q: [fg.quantile(a, q, axis=1), fg.nanquantile(a, q[2], method="nearest"),
                                        fg.nanpercentile(a, q * 100, axis=(0, 1), method="lower")],
     lambda a, q: [jnp.quantile(a, q, axis=1), jnp.nanquantile(a, q[2], method="nearest"),
                   jnp.nanpercentile(a, q * 100, axis=(0, 1), method="lower")], [(X, Q), (XN, Q)]),
    # the dtypes: a's float dtype; linear interpolates in q's (an f16 q rounds)
    ("quantile-f16", lambda a, q: [fg.quantile(a, 0.3), fg.quantile(a, q, axis=2, method="midpoint"),
                                   fg.quantile(a.astype(np.float32), q.astype(np.float16), axis=0),
                                   fg.nanpercentile(a, 50, method="higher")],
     lambda a, q: [jnp.quantile(a, 0.3), jnp.quantile(a, q, axis=2, method="midpoint"),
                   jnp.quantile(a.astype(np.float32), q.astype(np.float16), axis=0),
                   jnp.nanpercentile(a, 50, method="higher")], [(H, Q)]),
    ("gradient", lambda f: fg.gradient(f), lambda f: jnp.gradient(f), [(Y,), (I,), (Y[0],), (Y[:, :2],)]),
    ("gradient-spacing", lambda f: [fg.gradient(f, 0.5), fg.gradient(f, 2, 0.25), fg.gradient(f, axis=1),
                                    fg.gradient(f, 1.5, axis=(1, 0)), fg.gradient(f, axis=())],
     lambda f: [jnp.gradient(f, 0.5), jnp.gradient(f, 2, 0.25), jnp.gradient(f, axis=1),
                jnp.gradient(f, 1.5, axis=(1, 0)), jnp.gradient(f, axis=())], [(Y,), (I[0, :, :],)]),
    ("gradient-coordinates", lambda f, c3, c5: [fg.gradient(f, c3, c5), fg.gradient(f, c5, axis=-1),
                                                fg.gradient(f, c3[0], c5)],
     lambda f, c3, c5: [jnp.gradient(f, c3, c5), jnp.gradient(f, c5, axis=-1), jnp.gradient(f, c3[0], c5)],
     [(Y, COORDS3, COORDS5), (I[0], COORDS3, COORDS5[:4])]),
    ("trapezoid", lambda y: [fg.trapezoid(y), fg.trapezoid(y, dx=0.5, axis=0), fg.trapezoid(y, dx=3),
                             fg.trapezoid(y[:, :1]), fg.trapezoid(y[:, :2], dx=np.float32([2.0]))],
     lambda y: [jnp.trapezoid(y), jnp.trapezoid(y, dx=0.5, axis=0), jnp.trapezoid(y, dx=3),
                jnp.trapezoid(y[:, :1]), jnp.trapezoid(y[:, :2], dx=np.float32([2.0]))], [(Y,), (I[0],)]),
    ("trapezoid-x", lambda y, x3, x5: [fg.trapezoid(y, x5), fg.trapezoid(y, x3, axis=0),
                                       fg.trapezoid(y, y * y, axis=0), fg.trapezoid(y[:, :2], x5[:2])],
     lambda y, x3, x5: [jnp.trapezoid(y, x5), jnp.trapezoid(y, x3, axis=0), jnp.trapezoid(y, y * y, axis=0),
                        jnp.trapezoid(y[:, :2], x5[:2])], [(Y, COORDS3, COORDS5), (I[0, :, :], COORDS3, i32(4))]),
    ("unwrap", lambda p: [fg.unwrap(p), fg.unwrap(p, axis=0), fg.unwrap(p, discont=4.0), fg.unwrap(p * 9, period=30.0),
                          fg.unwrap(p[:, :1]), fg.unwrap(p[:, :0])],
     lambda p: [jnp.unwrap(p), jnp.unwrap(p, axis=0), jnp.unwrap(p, discont=4.0), jnp.unwrap(p * 9, period=30.0),
                jnp.unwrap(p[:, :1]), jnp.unwrap(p[:, :0])], [(WRAPPED,), (i32(3, 6),)]),
    ("unwrap-integer-period", lambda p: [fg.unwrap(p, period=6), fg.unwrap(p, period=7, discont=2)],
     lambda p: [jnp.unwrap(p, period=6), jnp.unwrap(p, period=7, discont=2)], [(i32(2, 8, lo=-9, hi=9),)]),
]



# jax 0.10 interpolates f32 entries at an f16 q in f16, jax 0.11 in f32: within an f16 rounding.
RTOL = {"quantile-f16": 2.0**-10}


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_matches_jax_numpy(ours, theirs, args, name):
    want = jax.jit(theirs)(*args)  # one compilation for the row's calls
    rtol = RTOL.get(name, 2e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's eager warnings on NaN, as JAX computes them
        same(ours(*args), want, f"{name} eager", rtol)
        same(fg.interpret(fg.trace(ours, *args), *args), want, f"{name} traced", rtol)
        if not any(a.dtype == np.float16 for a in args) or "shader-f16" in default_device().device.features:
            same(fg.jit(ours)(*args), want, f"{name} compiled", rtol)


def test_traced_q_outside_the_range_is_clamped_as_jax_s():
    q = np.float32([-0.5, 0.2, 1.5])
    for fn, jfn in ((fg.quantile, jnp.quantile), (fg.nanquantile, jnp.nanquantile)):
        graph = fg.trace(lambda a, q: fn(a, q, axis=1), XN, q)
        same(fg.interpret(graph, XN, q), jfn(XN, q, axis=1), fn.__name__)


W = np.float32([1.0, -2.0, 3.0])[:, None]
GRADIENTS = [  # (name, fgrad function, jax function, arguments, argnums): scalar functions
    *[(f"quantile-{m}", (lambda m: lambda a, q: fg.sum(fg.quantile(a, q, axis=0, method=m) * W))(m),
       (lambda m: lambda a, q: jnp.sum(jnp.quantile(a, q, axis=0, method=m) * W))(m), (X[0], Q[1:4]), (0, 1))
      for m in METHODS],
    *[(f"nanquantile-{m}", (lambda m: lambda a: fg.sum(fg.nanquantile(a, Q[1:4], axis=1, method=m)))(m),
       (lambda m: lambda a: jnp.sum(jnp.nanquantile(a, Q[1:4], axis=1, method=m)))(m), (XN[0],), 0)
      for m in METHODS],
    ("percentile", lambda a: fg.sum(fg.percentile(a, P[1:3], keepdims=True)),
     lambda a: jnp.sum(jnp.percentile(a, P[1:3], keepdims=True)), (X[0],), 0),
    ("quantile-nan", lambda a: fg.sum(fg.quantile(a, 0.3, axis=1)), lambda a: jnp.sum(jnp.quantile(a, 0.3, axis=1)),
     (XN[0],), 0),
    ("nanpercentile", lambda a: fg.nanpercentile(a, 40.0), lambda a: jnp.nanpercentile(a, 40.0), (XN[0],), 0),
    ("nanmedian", lambda a: fg.nanmedian(a), lambda a: jnp.nanmedian(a), (XN[0],), 0),
    ("trapezoid-x", lambda y, c: fg.trapezoid(y, c), lambda y, c: jnp.trapezoid(y, c), (Y[0], COORDS5), (0, 1)),
    ("trapezoid-dx", lambda y: fg.sum(fg.trapezoid(y, dx=0.5, axis=0) * Y[0]),
     lambda y: jnp.sum(jnp.trapezoid(y, dx=0.5, axis=0) * Y[0]), (Y,), 0),
    ("gradient", lambda f, c: fg.sum(fg.gradient(f, c) * Y[2]), lambda f, c: jnp.sum(jnp.gradient(f, c) * Y[2]),
     (Y[1], COORDS5), (0, 1)),
    ("unwrap", lambda p: fg.sum(fg.unwrap(p) * Y[0]), lambda p: jnp.sum(jnp.unwrap(p) * Y[0]), (WRAPPED[0, :5],), 0),
]


@pytest.mark.parametrize("ours, theirs, args, argnums", [pytest.param(*row[1:], id=row[0]) for row in GRADIENTS])
def test_gradients_are_jax_s(ours, theirs, args, argnums):
    got = fg.grad(ours, argnums=argnums)(*args)
    want = jax.grad(theirs, argnums=argnums)(*args)
    assert len(leaves(got)) == len(leaves(want))
    for g, w in zip(leaves(got), leaves(want)):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-5, atol=1e-6)


T = fg.dim("T", 8)


@pytest.mark.parametrize("call, error, match", [
    (lambda: fg.quantile(X, 0.5, method="inverted_cdf"), fg.ShapeError, r"quantile: method must be one of 'linear'"),
    (lambda: fg.nanpercentile(X, 50, method="closest"), fg.ShapeError, r"nanpercentile: method must be one of"),
    (lambda: fg.quantile(X, 1.5), fg.ShapeError, r"quantile: q must lie in \[0, 1\], got 1.5"),
    (lambda: fg.nanquantile(X, [-0.1, 0.5]), fg.ShapeError, r"nanquantile: q must lie in \[0, 1\]"),
    (lambda: fg.quantile(X, nan), fg.ShapeError, r"quantile: q must lie in \[0, 1\]"),
    (lambda: fg.percentile(X, np.float32([50, 101])), fg.ShapeError, r"percentile: q must lie in \[0, 100\]"),
    (lambda: fg.nanpercentile(X, -1), fg.ShapeError, r"nanpercentile: q must lie in \[0, 100\]"),
    (lambda: fg.quantile(X, 1), fg.DTypeError, r"quantile: q must be floats \(as in JAX\), got i32"),
    (lambda: fg.nanquantile(X, np.int32([0, 1])), fg.DTypeError, r"nanquantile: q must be floats"),
    (lambda: fg.quantile(X, np.full((2, 2), 0.5)), fg.ShapeError, r"quantile: q must be a scalar or 1-D, got"),
    (lambda: fg.quantile(X, 0.5, axis=(0, -3)), fg.ShapeError, r"quantile: repeated axis"),
    (lambda: fg.percentile(X, 50, axis=3), fg.ShapeError, r"percentile: axis 3 is out of range"),
    (lambda: fg.quantile(X, 0.5, overwrite_input=True), fg.TraceError, r"quantile: overwrite_input=True"),
    (lambda: fg.quantile(X, 0.5, weights=X), fg.TraceError, r"quantile: weights need method='inverted_cdf'"),
    (lambda: fg.percentile(X, 50, out=X), fg.InputError, r"percentile: out= is not supported"),
    (lambda: fg.nanmedian(np.zeros((0, 3), np.float32), 0), fg.ShapeError,
     r"nanmedian: the axes \(0,\) of \(0, 3\) hold no entries"),
    (lambda: fg.trace(lambda a: fg.quantile(a, 0.5, axis=0), fg.spec((T, 3))), fg.ShapeError,
     r"quantile: the reduced axes of \(T, 3\) hold the symbol T"),
    (lambda: fg.trace(lambda a: fg.nanmedian(a, axis=1), fg.spec((3, T))), fg.ShapeError,
     r"nanmedian: the reduced axes"),
    (lambda: fg.trace(lambda a, k: fg.quantile(a, 0.5, axis=k), X, np.int32(1)), fg.ShapeError,
     r"quantile: axis .* must be an integer"),
    (lambda: fg.gradient(Y, edge_order=2), fg.TraceError, r"gradient: edge_order=2 is not supported"),
    (lambda: fg.gradient(Y, 1.0, 2.0, 3.0), fg.TraceError, r"gradient: 3 spacing arguments for the 2 axes"),
    (lambda: fg.gradient(Y[:1]), fg.ShapeError, r"gradient: axis 0 of \(1, 5\) has fewer than 2 entries"),
    (lambda: fg.gradient(Y, COORDS3, COORDS3), fg.ShapeError, r"gradient: coordinates must be 1-D with the 5"),
    (lambda: fg.gradient(Y, axis=2), fg.ShapeError, r"gradient: axis 2 is out of range"),
    (lambda: fg.trace(lambda f: fg.gradient(f, axis=0), fg.spec((T, 3))), fg.ShapeError,
     r"gradient: the symbolic axis T"),
    (lambda: fg.trapezoid(Y, axis=2), fg.ShapeError, r"trapezoid: axis 2 is out of range"),
    (lambda: fg.trapezoid(Y[:0], axis=0), fg.ShapeError, r"trapezoid: y \(0, 5\) has no samples along axis 0"),
    (lambda: fg.unwrap(np.float32(1.0)), fg.ShapeError, r"unwrap: axis -1 is out of range"),
    (lambda: fg.unwrap(Y, axis=(0, 1)), fg.ShapeError, r"unwrap: axis must be a single integer"),
])
def test_refused_forms_name_the_function_and_the_line(call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert "test_numpy_quantiles.py:" in str(info.value)
