"""Floating-point parts (fabs, modf, frexp, nextafter, spacing), Bessel's i0 and the Kaiser window,
the polynomial helpers, and gcd / lcm against jax.numpy: each runs eagerly, traced (through
interpret) and, for the elementwise ones, compiled to WGSL by fg.jit, on special values. Where XLA
on CPU flushes subnormals to zero, subnormals are checked against NumPy (JAX's formulas unflushed)."""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from fgrad.runtime import default_device
from jax_oracle import jax_call, leaves, over_arrays, same

nan, inf = np.nan, np.inf
BIG = np.finfo(np.float32).max
TINY = np.finfo(np.float32).tiny  # the least normal f32
rng = np.random.default_rng(11)
same = functools.partial(same, oracle="the reference", atol=0.0, signed_zeros=True)

SPECIAL = np.float32([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.3, -0.7, 7.0, 1e30, -1e30, BIG, -BIG, TINY, -TINY, 2.0**-100,
                      inf, -inf, nan])
SUBNORMAL = np.float32([1e-45, -1e-45, 3e-39, -3e-39, 1.1754942e-38, 2.0**-130])
HALF = np.float16([0.0, -0.0, 1.0, -1.5, 3.0, 65504.0, -65504.0, 6e-8, -3e-5, 6.1e-5, inf, -inf, nan])
INTS = np.int32([0, 1, -1, 7, -12, 2**31 - 1, -(2**31)])


def three_ways(ours, args, want, what: str, compiled: bool, rtol: float = 2e-5) -> None:
    """`ours` eagerly, traced through interpret, and (where `compiled`) through fg.jit, against `want`."""
    traced, arrays = over_arrays(ours, args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's eager warnings on inf and NaN
        same(ours(*args), want, f"{what} eager", rtol)
        same(fg.interpret(fg.trace(traced, *arrays), *arrays), want, f"{what} traced", rtol)
        f16_runs = "shader-f16" in default_device().device.features  # llvmpipe lacks it
        if compiled and (f16_runs or not any(a.dtype == np.float16 for a in arrays)):
            got = fg.jit(traced)(*arrays)
            same(got, want if device_keeps_subnormals() else flushed(want, got), f"{what} compiled", rtol)


def flushed(want, got):
    """`want`, with a zero of its sign where it is subnormal and `got` is zero: a device that flushes
    subnormals flushes those its arithmetic makes (not those written bit by bit)."""
    def leaf(w, g):
        w, g = np.asarray(w), np.asarray(g)
        if w.dtype.kind != "f":
            return w
        return np.where((np.abs(w) < np.finfo(w.dtype).tiny) & (g == 0), np.copysign(np.zeros_like(w), w), w)

    return [leaf(w, g) for w, g in zip(leaves(want), leaves(got), strict=True)]


def device_keeps_subnormals() -> bool:
    """Whether compiled kernels keep subnormal f32s: Vulkan lets a device flush them (NVIDIA's do)."""
    return bool(np.asarray(fg.jit(lambda v: v * 2.0)(np.float32([1e-45])))[0] != 0)


def pairs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of `values`, as two flat arrays."""
    return np.repeat(values, len(values)), np.tile(values, len(values))


X_PAIRS = pairs(np.float32([0.0, -0.0, 1.0, -1.0, 1.5, TINY, -BIG, BIG, inf, -inf, nan]))
H_PAIRS = pairs(np.float16([0.0, -0.0, 1.0, -2.0, 6e-8, 65504.0, inf, nan]))
P1, P2 = np.float32([2.0, -3.0, 0.5, 1.0]), np.float32([1.5, 4.0])
IP1, IP2 = np.int32([1, -2, 3]), np.int32([[4, 5], [-1, 2]])[0]
G1 = np.int32([12, 18, 0, 0, -4, 7, 2**31 - 1, -(2**31 - 1), 1836311903, 35, -35, 1])
G2 = np.int32([18, 12, 5, 0, 6, -7, 2, 12, 1134903170, -14, -21, -(2**31 - 1)])
U1, U2 = np.uint32([2**32 - 1, 2971215073, 0, 12, 2**31]), np.uint32([3, 1836311903, 9, 0, 2**30])

# (name, fgrad function, jax.numpy function, argument sets, whether to compile the first set as well)
FIT_X = np.linspace(-0.6, 1.4, 12, dtype=np.float32)  # off-centre: no covariance of 0
FIT_Y = (0.3 * FIT_X ** 3 + 2 * FIT_X ** 2 - FIT_X + 0.5 + 0.01 * np.cos(7 * FIT_X)).astype(np.float32)
FIT_YS = np.stack([FIT_Y, np.exp(FIT_X)], 1).astype(np.float32)  # no coefficient near 0: compared relatively
FIT_W = (1.0 + 0.5 * np.cos(FIT_X)).astype(np.float32)

TABLE = [
    ("fabs", fg.fabs, jnp.fabs, [(SPECIAL,), (SUBNORMAL,), (INTS,), (np.array([True, False]),), (HALF,)], True),
    ("modf", fg.modf, jnp.modf, [(SPECIAL,), (INTS,), (HALF,), (2.75,)], True),
    ("frexp", fg.frexp, jnp.frexp, [(SPECIAL,), (INTS,), (HALF,), (np.float32(rng.uniform(-1e6, 1e6, 16)),)], True),
    ("nextafter", fg.nextafter, jnp.nextafter, [X_PAIRS, H_PAIRS, (INTS, np.int32(0)), (np.float32(2.0), 1)], True),
    ("spacing", fg.spacing, jnp.spacing, [(SPECIAL,), (HALF,), (INTS[:5],)], True),
    ("i0", fg.i0, jnp.i0, [(np.float32([0.0, -0.0, 1e-20, 0.5, -1.0, 3.9, 4.0, 4.1, -8.0, 20.0, 50.0, -88.0, nan, inf,
                                        -inf]),), (INTS[:5],), (np.array([True]),)], True),
    ("kaiser", lambda b: fg.kaiser(7, b), lambda b: jnp.kaiser(7, b), [(np.float32(6.5),)], True),
    ("kaiser-sizes", lambda b: [fg.kaiser(m, b) for m in (0, 1, 2, 5, 8)],
     lambda b: [jnp.kaiser(m, b) for m in (0, 1, 2, 5, 8)], [(np.float32(0.0),), (np.float32(6.5),), (3,)], False),
    ("kaiser-float-M", lambda: fg.kaiser(4.7, 2.0), lambda: jnp.kaiser(4.7, 2.0), [()], False),
    ("lcm", fg.lcm, jnp.lcm, [(G1, G2)], True),
    ("gcd-lcm", lambda a, b: [fg.gcd(a, b), fg.lcm(a, b)], lambda a, b: [jnp.gcd(a, b), jnp.lcm(a, b)],
     [(G1, G2), (U1, U2), (G1[:3, None], G2[:4]), (np.int32(24), 36), (U1, 6)], False),
    ("poly", fg.poly, jnp.poly, [(P1,), (IP1,), (np.float32(3.0),), (np.zeros(0, np.float32),),
                                 (np.float16([0.5, -1.0]),)], False),
    ("polyadd-polysub", lambda a, b: [fg.polyadd(a, b), fg.polyadd(b, a), fg.polysub(a, b), fg.polysub(b, a)],
     lambda a, b: [jnp.polyadd(a, b), jnp.polyadd(b, a), jnp.polysub(a, b), jnp.polysub(b, a)],
     [(P1, P2), (IP1, IP2), (P1, IP1), (np.int32([[5, 7, 9], [8, 6, 4]]), np.int32([2])), (P1, P1)], False),
    ("polymul", lambda a, b: [fg.polymul(a, b), fg.polymul(b, a)], lambda a, b: [jnp.polymul(a, b), jnp.polymul(b, a)],
     [(P1, P2), (IP1, IP2), (np.float32([0.0, 0.0, 2.0]), P2), (np.zeros(0, np.float32), P2)], False),
    ("polymul-trim", lambda a, b: fg.polymul(a, b, trim_leading_zeros=True),
     lambda a, b: jnp.polymul(a, b, trim_leading_zeros=True),
     [(np.float32([0.0, 0.0, 2.0, 1.0]), np.float32([0.0, 3.0])), (np.zeros(2, np.float32), P2)], False),
    ("polydiv", fg.polydiv, jnp.polydiv, [(P1, P2), (np.int32([5, 7, 9]), np.int32([4, 1])), (P2, P1), (P1, P1[:1])],
     False),
    ("polyder", lambda p: [fg.polyder(p), fg.polyder(p, 0), fg.polyder(p, 2), fg.polyder(p, m=4), fg.polyder(p, 6)],
     lambda p: [jnp.polyder(p), jnp.polyder(p, 0), jnp.polyder(p, 2), jnp.polyder(p, m=4), jnp.polyder(p, 6)],
     [(P1,), (IP1,), (np.float16([1.0, 2.0, 3.0, 4.0, 5.0]),)], False),
    ("polyint", lambda p, k: [fg.polyint(p), fg.polyint(p, 0), fg.polyint(p, 2, k), fg.polyint(p, 1, k[:1]),
                              fg.polyint(p, 3, 2)],
     lambda p, k: [jnp.polyint(p), jnp.polyint(p, 0), jnp.polyint(p, 2, k), jnp.polyint(p, 1, k[:1]),
                   jnp.polyint(p, 3, 2)], [(P1, np.float32([4.0, 5.0])), (IP1, np.int32([1, -1]))], False),
    # least squares through 12 points: one fit, two at once, weighted; with the residuals; with the covariance
    ("polyfit", lambda x, y: fg.polyfit(x, y, 2), lambda x, y: jnp.polyfit(x, y, 2), [(FIT_X, FIT_Y), (FIT_X, FIT_YS)],
     True),
    ("polyfit-weighted", lambda x, y, w: fg.polyfit(x, y, 3, w=w), lambda x, y, w: jnp.polyfit(x, y, 3, w=w),
     [(FIT_X, FIT_Y, FIT_W)], False),
    ("polyfit-full", lambda x, y: fg.polyfit(x, y, 1, full=True), lambda x, y: jnp.polyfit(x, y, 1, full=True),
     [(FIT_X, FIT_Y), (FIT_X, FIT_YS)], False),
    ("polyfit-cov", lambda x, y: fg.polyfit(x, y, 2, cov=True), lambda x, y: jnp.polyfit(x, y, 2, cov=True),
     [(FIT_X, FIT_Y), (FIT_X, FIT_YS)], False),
]
EAGER_ONLY = {"polymul-trim"}  # the result's length depends on the values: refused while tracing, as jit does


def _cases():
    for name, ours, theirs, arg_sets, compiled in TABLE:
        for k, args in enumerate(arg_sets):
            yield pytest.param(ours, theirs, args, name, compiled and k == 0, id=f"{name}-{k}")


@pytest.mark.parametrize("ours, theirs, args, name, compiled", list(_cases()))
def test_matches_jax_numpy(ours, theirs, args, name, compiled):
    want = jax_call(theirs, *args)
    if name in EAGER_ONLY:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            same(ours(*args), want, f"{name} eager")
        return
    three_ways(ours, args, want, name, compiled)


def test_polydiv_trims_its_remainder_as_jax_numpy():
    for u, v in [(np.float32([5.0, 7.0, 9.0]), np.float32([4.0, 1.0])), (np.float32([1.0, 3.0, 3.0, 1.0]),
                                                                       np.float32([1.0, 1.0]))]:
        same(fg.polydiv(u, v, trim_leading_zeros=True), jnp.polydiv(u, v, trim_leading_zeros=True), "polydiv trim")


def test_subnormals_as_jax_s_formulas_unflushed():
    """XLA on CPU flushes subnormal operands and results to zero (jnp.frexp(3e-39) is (0.5, -149));
    fgrad keeps them, as NumPy, whose values JAX's formulas give without the flush."""
    x = np.concatenate([SUBNORMAL, np.float32([2.0**-120, -(2.0**-110), TINY])])
    toward = np.float32([0.0, 1.0, -1.0, 0.0, inf, 0.0, 0.0, 1.0, 0.0])

    def ours(a, b):
        return [*fg.frexp(a), *fg.modf(a), fg.nextafter(a, b), fg.spacing(a)]

    want = [*np.frexp(x), *np.modf(x), np.nextafter(x, toward), np.spacing(x)]
    three_ways(ours, (x, toward), want, "subnormals", compiled=device_keeps_subnormals(), rtol=0.0)


def test_gcd_of_the_least_i32_is_numpy_s():
    """|-2^31| is 2^31 as a u32 (NumPy's answer; jax.numpy's loop on the negative |x| never ends)."""
    a, b = np.int32([-(2**31), -(2**31), -(2**31), 6]), np.int32([6, 0, -(2**31), -(2**31)])
    three_ways(lambda a, b: [fg.gcd(a, b), fg.lcm(a, b)], (a, b), [np.gcd(a, b), np.lcm(a, b)], "gcd i32 min",
               compiled=False)


# i0's largest error over the grid below, in ulps of the f32 nearest the float64 reference:
# measured 4.14 eagerly and 4.01 compiled (llvmpipe), jax.numpy's e^x i0e(x) 4.74 below 88.5.
I0_ULPS = 4.5


def test_i0_is_accurate_to_a_few_ulps_up_to_its_overflow():
    x = np.concatenate([np.linspace(-92.0, 92.0, 40001), np.linspace(3.9, 4.1, 2001),
                        np.linspace(0.0, 1e-3, 101)]).astype(np.float32)
    ref = np.i0(x.astype(np.float64))
    with np.errstate(over="ignore"):
        nearest = ref.astype(np.float32)
    finite = np.isfinite(nearest)  # i0 passes f32's largest value at 91.9 (jax.numpy's overflows from 88.7)
    assert finite[np.abs(x) <= 91.8].all() and not finite.all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results = {"eager": fg.i0(x), "compiled": fg.jit(fg.i0)(x)}
    for how, got in results.items():
        got = np.asarray(got)
        assert got.dtype == np.float32
        assert np.isinf(got[~finite]).all(), how
        err = np.abs(got[finite].astype(np.float64) - ref[finite]) / np.spacing(nearest[finite]).astype(np.float64)
        assert err.max() <= I0_ULPS, f"i0 {how}: {err.max():.2f} ulps at x = {x[finite][err.argmax()]}"


def i1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of order 1, i0's derivative, by its series in float64 (positive terms)."""
    x = np.asarray(x, np.float64)
    term, total = x / 2, x / 2
    for k in range(1, 200):
        term = term * (x / 2) ** 2 / (k * (k + 1))
        total = total + term
    return total


def test_i0_derivative_is_i1():
    """Against i1 itself, near 0 too (where JAX's derivative, e^x (i0e + i0e'), cancels to ~1e-4
    relative) and past jax.numpy's overflow at 88.7."""
    x = np.float32([0.0, 1e-6, -1e-3, 0.02, 0.7, -3.0, 3.9999, 4.0, 4.0001, 10.0, -33.0, 75.0, 89.5, 91.0])
    for how, grad in [("eager", fg.vmap(fg.grad(fg.i0))), ("compiled", fg.jit(fg.vmap(fg.grad(fg.i0))))]:
        np.testing.assert_allclose(np.asarray(grad(x), np.float64), i1(x), rtol=2e-6, atol=0, err_msg=how)


def test_i0_of_f16_rounds_its_f32_value():
    """f16 computes in f32 and rounds once (jax.numpy's e^x in f16 times i0e is 1 ulp off at x = 1)."""
    x = np.float16([0.0, -0.5, 1.0, 2.5, -7.0, 11.0, 12.0, inf, nan])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(fg.i0(x), np.i0(x.astype(np.float64)).astype(np.float16), "i0 f16", rtol=0.0)


def test_gradients_are_jax_s():
    def both(f, jf, points):
        points = np.float32(points)
        got, want = fg.vmap(fg.grad(f))(points), jax.vmap(jax.grad(jf))(points)
        np.testing.assert_allclose(np.float64(got), np.float64(want), rtol=2e-5, err_msg=f"at {points}")

    both(fg.i0, jnp.i0, [0.0, -0.0, 0.5, -2.0, 3.999, 4.0, 4.001, -6.0, 20.0, 50.0, -80.0, 88.0])
    both(lambda x: fg.modf(x)[0], lambda x: jnp.modf(x)[0], [0.0, 2.5, -2.5, 7.0])
    both(lambda x: fg.modf(x)[1], lambda x: jnp.modf(x)[1], [0.0, 2.5, -2.5])
    both(fg.fabs, jnp.fabs, [0.0, -0.0, 2.0, -3.5])
    both(lambda x: fg.frexp(x)[0], lambda x: jnp.frexp(x)[0], [3.0, -0.7, 0.0, 1e20])
    both(lambda b: fg.kaiser(6, b)[1], lambda b: jnp.kaiser(6, b)[1], [0.5, 3.0, 9.0])
    both(lambda x: fg.polyval(fg.poly(fg.stack([x, 2.0 * x])), 3.0),
         lambda x: jnp.polyval(jnp.poly(jnp.stack([x, 2.0 * x])), 3.0), [0.5, -1.0])


P3 = np.float32([1.0, 2.0, 3.0])


@pytest.mark.parametrize("call, error, match", [
    (lambda: fg.gcd(np.float32([1.0]), 2), fg.DTypeError, r"gcd: takes integer operands, got f32\[1\]"),
    (lambda: fg.lcm(np.array([True]), np.array([False])), fg.DTypeError, r"lcm: takes integer operands, got bool"),
    (lambda: fg.gcd(INTS[:2], INTS[:3]), fg.ShapeError, r"gcd: cannot broadcast \(2,\) with \(3,\)"),
    (lambda: fg.modf(P3, out=P3), fg.TraceError, r"modf: out= is not supported"),
    (lambda: fg.trace(lambda m: fg.kaiser(m, 1.0), np.int32(3)), fg.TraceError, r"kaiser: M must be a static"),
    (lambda: fg.kaiser(-1, 1.0), fg.ShapeError, r"kaiser: M must be non-negative, got -1"),
    (lambda: fg.poly(np.eye(2, dtype=np.float32)), fg.ShapeError, r"poly: the roots of a square matrix \(2, 2\)"),
    (lambda: fg.poly(np.ones((2, 3), np.float32)), fg.ShapeError, r"poly: the roots must be 1-d"),
    (lambda: fg.polyadd(np.float32(1), P3), fg.ShapeError, r"polyadd: coefficients must lie along a first axis"),
    (lambda: fg.polyadd(P3, np.ones((1, 3), np.float32)), fg.ShapeError,
     r"polyadd: cannot add coefficients of shape \(1, 3\) into the last entries of shape \(3,\)"),
    (lambda: fg.polyadd(np.ones((2, 3), np.float32), np.ones(2, np.float32)), fg.ShapeError,
     r"polyadd: add: cannot broadcast \(2, 3\) with \(2,\)"),
    (lambda: fg.polysub(np.array([True]), np.array([False])), fg.DTypeError, r"polysub: bool operands"),
    (lambda: fg.polyder(P3, -1), fg.ShapeError, r"polyder: the order m must be non-negative"),
    (lambda: fg.polyder(P3, 1.5), fg.TraceError, r"polyder: m must be an integer, got 1.5"),
    (lambda: fg.trace(lambda m: fg.polyder(P3, m), np.int32(1)), fg.TraceError, r"polyder: m must be a static"),
    (lambda: fg.polyint(P3, 2, np.float32([1, 2, 3])), fg.ShapeError, r"polyint: k must be a scalar or 1-d"),
    (lambda: fg.polyint(P3, -1), fg.ShapeError, r"polyint: the order m must be non-negative"),
    (lambda: fg.trace(lambda a: fg.polymul(a, P3, trim_leading_zeros=True), P3), fg.TraceError,
     r"polymul: trim_leading_zeros=True needs concrete coefficients.*traced f32\[3\]"),
    (lambda: fg.trace(lambda a: fg.polydiv(a, P3[:2], trim_leading_zeros=True), P3), fg.TraceError,
     r"polydiv: trim_leading_zeros=True needs concrete"),
    (lambda: fg.polydiv(P3, P3[:0]), fg.ShapeError, r"polydiv: the divisor v has no coefficients"),
    (lambda: fg.polyfit(P3, P3, -1), fg.ShapeError, r"polyfit: deg must be a non-negative integer, got -1"),
    (lambda: fg.polyfit(P3, P3[:2], 1), fg.ShapeError, r"polyfit: y must be \(n,\) or \(n, k\) with n = 3"),
    (lambda: fg.polyfit(P3, P3, 2, cov=True), fg.ShapeError, r"polyfit: scaling the covariance needs more points"),
])
def test_refused_forms_name_the_function_and_the_line(call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert "test_numpy_arithmetic.py:" in str(info.value)
