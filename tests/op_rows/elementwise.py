"""Op-table rows: elementwise.

References are float64 NumPy (exact to the last bit of an f32 result), except where jax.numpy's
semantics are not NumPy's: integer division by zero and INT_MIN // -1 (XLA's), whose expected
values are jax.numpy's own, written out. Rows named `grid` check the accuracy of the WGSL
formulas over their whole range, with the tolerance they keep on llvmpipe (a few f32 ulp, given in
each); rows named `special` check NaN, infinities, signed zeros and the domains' edges. Both feed
constants through `held` so that no float input reaches the finite-difference check.
"""

from __future__ import annotations

import math

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, Rand, rounded  # noqa: F401

inf, nan = np.inf, np.nan


def held(m, values):
    """The constant `values` as where(m, values, 0) for an all-true bool input m: computed by the
    graph (on the device, too), with no float input to differentiate."""
    return fg.where(m, values, 0)


def ones(values: np.ndarray) -> np.ndarray:
    return np.ones(np.shape(values), bool)


def on(fn, *values: np.ndarray) -> tuple:
    """(function of the all-true mask, its argument) for a row computing fn on constants."""
    return (lambda m: fn(*(held(m, v) for v in values))), (ones(values[0]),)


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def nonzero_divisors(*shape: int) -> Rand:
    return Rand(shape, "nonzero", 0.5, 3.0)


erf_ref = np.vectorize(math.erf)
erfc_ref = np.vectorize(math.erfc)


def erfinv_ref(x: np.ndarray) -> np.ndarray:
    """erfinv by bisection in float64: on erf(y) = |x| below 1/2, on erfc(y) = 1 - |x| (exact) above."""
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    lo, hi = np.zeros_like(a), np.full_like(a, 6.0)
    erf, erfc = np.vectorize(math.erf), np.vectorize(math.erfc)
    for _ in range(64):
        mid = (lo + hi) / 2
        low = np.where(a < 0.5, erf(mid) < a, erfc(mid) > 1 - a)
        lo, hi = np.where(low, mid, lo), np.where(low, hi, mid)
    y = np.where(a < 1e-8, a * (math.sqrt(math.pi) / 2), (lo + hi) / 2)  # the series' first term, tiny |x|
    return np.copysign(np.where(a < 1, y, np.where(a == 1, inf, nan)), x)


def lgamma_ref(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| by math.lgamma in float64; +inf at 0, at the negative integers and at -inf."""
    x = np.asarray(x, np.float64)
    pole = (x <= 0) & (np.floor(x) == x)
    out = np.vectorize(math.lgamma, otypes=[np.float64])(np.where(pole | np.isnan(x), 1.0, x))
    return np.where(pole, inf, np.where(np.isnan(x), nan, out))


DIGAMMA_TERMS = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760)  # B_2k / 2k
ZETA_TERMS = (1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000)  # B_2j / (2j)!


def _psi(v: float) -> float:
    if v == 0:
        return -inf
    if math.isnan(v) or v == -inf or (v < 0 and v == math.floor(v)):
        return nan
    if v == inf:
        return inf
    if v < 0:  # the reflection, pi v reduced exactly
        return _psi(1 - v) - math.pi / math.tan(math.pi * (v - round(v)))
    steps = []
    while v < 20:
        steps.append(-1 / v)
        v += 1
    u = 1 / (v * v)
    return math.fsum([math.log(v), -0.5 / v, *(-t * u ** (k + 1) for k, t in enumerate(DIGAMMA_TERMS)), *steps])


def digamma_ref(x: np.ndarray) -> np.ndarray:
    """psi in float64, element by element: the recurrence psi(v) = psi(v + 1) - 1/v up to 20, then the
    asymptotic series, summed by fsum; below 0 psi(1 - v) - pi cot(pi v). -inf at +-0, NaN at the
    negative integers and -inf."""
    return np.vectorize(_psi, otypes=[np.float64])(np.asarray(x, np.float64))


def _polygamma(m: int, v: float) -> float:
    if math.isnan(v) or v == -inf:
        return nan
    if v == inf:
        return 0.0
    if v <= 0 and v == math.floor(v):
        return inf if m % 2 else nan
    s, terms = m + 1, []
    while v < 30:  # below 0 too, with no reflection: the series holds for every v off the poles
        terms.append(v**-s)
        v += 1
    terms += [v ** (1 - s) / (s - 1), v**-s / 2]
    terms += [c * math.prod(range(s, s + 2 * j + 1)) * v ** (-s - 2 * j - 1) for j, c in enumerate(ZETA_TERMS)]
    return (-1) ** (m + 1) * math.factorial(m) * math.fsum(terms)


def polygamma_ref(m: int):
    """psi^(m) in float64, element by element: (-1)^(m+1) m! zeta(m + 1, x), whose terms (x + k)^-(m+1)
    are summed up to x + k >= 30 (so for |x| of a few tens at most), then its Euler-Maclaurin tail."""
    return lambda x: np.vectorize(lambda v: _polygamma(m, v), otypes=[np.float64])(np.asarray(x, np.float64))


def trigamma(x):
    """psi'(x), digamma's derivative: polygamma has no public function."""
    return fg.grad(lambda v: fg.sum(fg.lax.digamma(v)))(x)


def tetragamma(x):
    """psi''(x), trigamma's derivative."""
    return fg.grad(lambda v: fg.sum(trigamma(v)))(x)


def around(v: float, n: int) -> np.ndarray:
    """The 2n + 1 f32 values nearest the positive v, consecutive."""
    return (np.float32(v).view(np.int32) + np.arange(-n, n + 1, dtype=np.int32)).view(np.float32)


def exact(fn):
    """The reference `fn` of the constants `values`, in float64, rounded once to f32 (past f32's
    range: inf, as an f32 function gives)."""

    def ref(*values: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*(np.asarray(v, np.float64) for v in values)))
            return out.astype(np.float32) if out.dtype.kind == "f" else out

    return ref


def on_exact(fn, ref, *values: np.ndarray) -> tuple:
    """The row's function, argument and reference for fn on the constants `values`."""
    return (*on(fn, *values), lambda m: exact(ref)(*values))


# Values at the edges of the domains: NaN, infinities, signed zeros, +-1, halves, tiny and huge.
SPECIAL = f32(nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-8, 3.0, 0.999, 1.5, 100.0, -100.0, 1e30)
HALVES = f32(-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997, -0.49999997, 8388607.5, 1e30)
# Pairs at the edges of atan2, logaddexp, copysign, hypot and isclose.
PAIR_A = f32(0.0, -0.0, 0.0, -0.0, 1.0, inf, inf, -inf, 1.0, nan, -inf, 1.0, -1.0, inf, 0.0, -2.0)
PAIR_B = f32(0.0, 0.0, -0.0, -0.0, 0.0, inf, -inf, 1.0, nan, 1.0, -inf, inf, -inf, 5.0, -3.0, -0.0)
# Grids for the accuracy of each formula, over its branches and their joins.
RNG = np.random.default_rng(11)
TINY = np.geomspace(1e-30, 1.0, 31)
LOG1P_GRID = np.concatenate([np.linspace(-0.999, 3, 201), TINY, -TINY[:-2], [10, 1e3, 1e6, 1e30]]).astype(np.float32)
EXPM1_GRID = np.concatenate([np.linspace(-5, 5, 201), TINY, -TINY]).astype(np.float32)
EXP2_GRID = np.linspace(-126, 127, 201).astype(np.float32)
POW_X = np.geomspace(1e-3, 1e3, 400).astype(np.float32)
POW_Y = np.random.default_rng(12).uniform(-5, 5, 400).astype(np.float32)
EXP_GRID = np.concatenate([np.linspace(-87, 88.7, 401), TINY, -TINY]).astype(np.float32)  # results normal numbers
HYPERBOLIC_GRID = np.concatenate([np.linspace(-10, 10, 201), TINY, -TINY, [88.0, -89.0]]).astype(np.float32)
ASINH_GRID = np.concatenate([np.linspace(-10, 10, 201), TINY, -np.geomspace(1e-20, 1e30, 51), [4095.0, 4097.0]])
ASINH_GRID = ASINH_GRID.astype(np.float32)
ACOSH_GRID = np.concatenate([1 + TINY, np.linspace(1, 10, 101), np.geomspace(10, 1e30, 31), [4095.0, 4097.0]])
ACOSH_GRID = ACOSH_GRID.astype(np.float32)
ATANH_GRID = np.concatenate([np.linspace(-0.999, 0.999, 201), TINY[:-1], -TINY[:-1], 1 - 2.0**-np.arange(2, 24)])
ATANH_GRID = ATANH_GRID.astype(np.float32)
ATAN2_Y = np.concatenate([RNG.normal(size=150) * 10.0 ** RNG.integers(-6, 6, 150), np.sin(np.linspace(-3.1, 3.1, 50))])
ATAN2_X = np.concatenate([RNG.normal(size=150) * 10.0 ** RNG.integers(-6, 6, 150), np.cos(np.linspace(-3.1, 3.1, 50))])
ATAN2_Y, ATAN2_X = ATAN2_Y.astype(np.float32), ATAN2_X.astype(np.float32)
ERFC_GRID = np.concatenate([np.linspace(-4, 4, 161), TINY, -TINY]).astype(np.float32)
ERFC_TAIL = np.linspace(4, 9, 51).astype(np.float32)
ERF_INV_GRID = np.concatenate([np.linspace(-0.9999, 0.9999, 201), TINY, -TINY[:-1],
                               1 - 2.0**-np.arange(2, 25), -1 + 2.0**-np.arange(2, 25)]).astype(np.float32)
CBRT_GRID = np.concatenate([np.geomspace(1e-30, 1e30, 61), -np.geomspace(1e-30, 1e30, 61), [8.0, -27.0]])
CBRT_GRID = CBRT_GRID.astype(np.float32)
LOGADDEXP_X = (RNG.normal(size=200) * 10.0 ** RNG.integers(-3, 3, 200)).astype(np.float32)
LOGADDEXP_Y = (RNG.normal(size=200) * 10.0 ** RNG.integers(-3, 3, 200)).astype(np.float32)
# fmod of quotients up to 2^220, whose remainder a float quotient gets wrong by whole multiples of y
# (no subnormal divisors: llvmpipe flushes them).
FMOD_X = (RNG.normal(size=100) * 10.0 ** RNG.integers(-5, 38, 100)).astype(np.float32)
FMOD_Y = (RNG.uniform(1, 10, 100) * RNG.choice([-1, 1], 100) * 10.0 ** RNG.integers(-30, 5, 100)).astype(np.float32)
# Near the poles of tan: pi/2 and 7 pi/2, a few ulp either side.
NEAR_HALF_PI = np.concatenate([np.float32(np.pi / 2) + np.arange(-20, 20, dtype=np.float32) * np.float32(1.2e-7),
                               np.float32(3.5 * np.pi) + np.arange(-20, 20, dtype=np.float32) * np.float32(4.8e-7)])
NEAR_HALF_PI = NEAR_HALF_PI.astype(np.float32)
TAN_GRID = np.concatenate([np.linspace(-10, 10, 401), TINY, -TINY, [-1e4, 12345.678]]).astype(np.float32)
# sin and cos up to |x| = 1e5 (their reduction's exact range; see sine_f32), tiny arguments, and a few
# ulp either side of zeros of sin and cos.
NEAR_ZEROS = np.concatenate([np.float32(c) + np.arange(-20, 20, dtype=np.float32) * np.float32(step) for c, step in
                             ((np.pi, 2.4e-7), (10 * np.pi, 1.9e-6), (np.pi / 2, 1.2e-7), (99.5 * np.pi, 3.1e-5))])
SINE_GRID = np.concatenate([np.linspace(-10, 10, 401), TINY, -TINY, np.linspace(-1e5, 1e5, 201), [12345.678],
                            NEAR_ZEROS]).astype(np.float32)
LOG2_GRID = np.concatenate([np.geomspace(1e-30, 1e30, 121), np.linspace(0.5, 2, 151), 1 + TINY[:-3],
                            1 - TINY[:-3]]).astype(np.float32)

# lgamma, digamma and polygamma: grids on both sides of 0, between the poles and up to the overflow of
# lgamma past 4.1e36; the f32 values about the roots of lgamma at 1 and 2 and of digamma at 1.4616...;
# poles, infinities, NaN, tiny and huge values.
GAMMA_GRID = np.concatenate([np.linspace(0.01, 12, 240), np.geomspace(12, 3e36, 40), TINY[:-1],
                             -np.linspace(0.01, 11.99, 240), -np.geomspace(12, 8e6, 20)]).astype(np.float32)
GAMMA_SPECIAL = f32(nan, inf, -inf, 0.0, -0.0, -1.0, -2.0, -7.0, -1e30, 1e30, 3e38, 4e36, 5e36, 0.5, -0.25, -1.5,
                    1e-30, -1e-30, 3.0, 100.0, -100.5, -8388607.5, -4.5e6)
NEAR_ONE_AND_TWO = np.concatenate([around(1.0, 20), around(2.0, 20), 1 + np.linspace(-0.01, 0.01, 41),
                                   2 + np.linspace(-0.01, 0.01, 41)]).astype(np.float32)
NEAR_DIGAMMA_ROOT = np.concatenate([around(1.4616321, 40), 1.4616321 + np.linspace(-0.01, 0.01, 41), f32(1.0, 2.0)])
NEAR_DIGAMMA_ROOT = NEAR_DIGAMMA_ROOT.astype(np.float32)
POLYGAMMA_GRID = np.concatenate([np.linspace(0.05, 25, 100), -np.linspace(0.03, 9.97, 100), TINY[20:]])
POLYGAMMA_GRID = POLYGAMMA_GRID.astype(np.float32)
POLYGAMMA_SPECIAL = f32(nan, inf, -inf, 0.0, -0.0, -1.0, -3.0, 1e4, 1e-15, -1e-15, 0.5, -0.25)

# Integer division at XLA's edges: zero divisors, INT_MIN / -1; and their jax.numpy results.
INT_A = np.array([7, -7, 7, -7, 5, -5, 0, -2**31, -2**31, 2**31 - 1, -2**31, 6], np.int32)
INT_B = np.array([2, 2, -2, -2, 0, 0, 0, -1, 1, -1, 0, -4], np.int32)
UINT_A = np.array([7, 5, 0, 2**32 - 1, 9, 2**31], np.uint32)
UINT_B = np.array([2, 0, 0, 3, 3, 2**32 - 1], np.uint32)
JAX_FLOOR_DIVIDE_INT = np.array([3, -4, -4, 3, -2, -2, -1, -2**31, -2**31, -2**31 + 1, -2, -2], np.int32)
JAX_REMAINDER_INT = np.array([1, 1, -1, -1, 0, 0, 0, 0, 0, 0, 0, -2], np.int32)
JAX_FMOD_INT = np.array([1, -1, 1, -1, 0, 0, 0, 0, 0, 0, 0, 2], np.int32)
JAX_LAX_REM_INT = np.array([1, -1, 1, -1, 5, -5, 0, 0, 0, 0, -2**31, 2], np.int32)
JAX_FLOOR_DIVIDE_UINT = np.array([3, 2**32 - 1, 2**32 - 1, 1431655765, 3, 0], np.uint32)
JAX_REMAINDER_UINT = np.array([1, 0, 0, 0, 0, 2**31], np.uint32)
JAX_LAX_REM_UINT = np.array([1, 5, 0, 0, 0, 2**31], np.uint32)
# Float division at its edges (NumPy's values but for signed zeros, which the comparison ignores).
FLOAT_A = f32(7, -7, 7, -7, 5, 0, -5, inf, 1, -0.0, 0.0, 1, -1, 1, nan, 5.5, 1e10, -3.5, 1e-30, 3e38)
FLOAT_B = f32(2, 2, -2, -2, 0, 0, 0, 2, inf, 3, -3, -inf, inf, -inf, 1, 0.5, 3, 0.5, 0.7, 1e-30)
POWERS_OF_TWO = 2.0 ** np.arange(-20, 21, dtype=np.float32)
DIVISORS = np.array([-3, -2, -1, 1, 2, 3, 4, -5], np.int32)


ODD_FUNCTIONS = (fg.sign, fg.floor, fg.ceil, fg.round, fg.trunc, fg.log1p, fg.expm1, fg.sin, fg.tan, fg.tanh, fg.sinh,
                 fg.erf, fg.arcsinh, fg.arctanh, fg.arcsin, fg.arctan, fg.erfinv, fg.cbrt, lambda z: fg.fmod(z, 3.0),
                 lambda z: fg.copysign(1.0, z), lambda z: fg.arctan2(z, 1.0))


def f64(x):
    return np.asarray(x, np.float64)


OP_ROWS: tuple[Case, ...] = (  # every new primitive's rows (value, WGSL, VJP)
    # rounding: zero derivatives; halves to even
    Case("floor", "f32", fg.floor, (F(2, 3, lo=-4, hi=4),), np.floor),
    Case("floor", "special", *on_exact(fg.floor, np.floor, SPECIAL)),
    Case("ceil", "f32", fg.ceil, (F(2, 3, lo=-4, hi=4),), np.ceil),
    Case("ceil", "special", *on_exact(fg.ceil, np.ceil, SPECIAL)),
    Case("round", "f32", fg.round, (F(3, 2, lo=-4, hi=4),), np.round),
    Case("round", "halves-to-even", *on_exact(fg.round, np.round, HALVES)),
    Case("sign", "f32", fg.sign, (F(2, 3),), np.sign),
    Case("sign", "i32", fg.sign, (I(7),), np.sign),
    Case("sign", "special", *on_exact(fg.sign, np.sign, SPECIAL)),
    Case("signbit", "special", *on_exact(fg.signbit, np.signbit, SPECIAL)),
    Case("copysign", "f32", fg.copysign, (F(2, 3), F(2, 3)), np.copysign),
    Case("copysign", "special", *on_exact(fg.copysign, np.copysign, PAIR_A, PAIR_B)),
    Case("copysign", "i32", fg.copysign, (I(4), I(4)), np.copysign),
    # the sign of zero through the odd functions (allclose cannot see it): -0 stays -0, +0 stays +0
    Case("signbit", "odd-functions-keep-the-sign-of-zero",
         *on(lambda z: fg.stack([fg.signbit(f(z)) for f in ODD_FUNCTIONS]), f32(-0.0, 0.0, 0.5)),
         lambda m: np.tile([True, False, False], (len(ODD_FUNCTIONS), 1))),
    # exponentials and logarithms
    Case("log1p", "f32", fg.log1p, (F(2, 3, lo=-0.5, hi=3),), np.log1p),
    Case("log1p", "i32", fg.log1p, (I(4, lo=0, hi=5),), np.log1p),
    Case("log1p", "grid", *on_exact(fg.log1p, np.log1p, LOG1P_GRID), rtol=3e-7, atol=0.0),  # 2 ulp
    Case("log1p", "special", *on_exact(fg.log1p, np.log1p, SPECIAL), rtol=3e-7, atol=0.0),
    Case("expm1", "f32", fg.expm1, (F(3, 2, lo=-3, hi=3),), np.expm1),
    Case("expm1", "grid", *on_exact(fg.expm1, np.expm1, EXPM1_GRID), rtol=5e-7, atol=0.0),  # 4 ulp
    Case("expm1", "special", *on_exact(fg.expm1, np.expm1, SPECIAL), rtol=3e-7, atol=0.0),
    Case("log2", "f32", fg.log2, (P(2, 3),), np.log2),
    Case("log2", "i32", fg.log2, (I(4, lo=1, hi=9),), np.log2),
    Case("log2", "grid", *on_exact(fg.log2, np.log2, LOG2_GRID), rtol=3e-7, atol=0.0),
    Case("log2", "powers-of-two", *on_exact(fg.log2, np.log2, POWERS_OF_TWO), rtol=0.0, atol=0.0),
    Case("log2", "special", *on_exact(fg.log2, np.log2, SPECIAL), rtol=3e-7, atol=0.0),
    Case("exp2", "f32", fg.exp2, (F(2, 3, lo=-4, hi=4),), np.exp2),
    Case("exp2", "i32", fg.exp2, (I(5, lo=-10, hi=10),), np.exp2),
    Case("exp2", "grid", *on_exact(fg.exp2, np.exp2, EXP2_GRID), rtol=3e-7, atol=0.0),  # 3 ulp
    Case("exp2", "special", *on_exact(fg.exp2, np.exp2, SPECIAL), rtol=3e-7, atol=0.0),
    # hyperbolic functions and their inverses
    Case("sinh", "f32", fg.sinh, (F(2, 3, lo=-3, hi=3),), np.sinh),
    # beyond |x| = 1, the adapter's exp: 28 ulp at |x| = 88 on llvmpipe, whose exp loses |x| / 3 ulp
    Case("sinh", "grid", *on_exact(fg.sinh, np.sinh, HYPERBOLIC_GRID), rtol=3e-6, atol=0.0),
    Case("sinh", "special", *on_exact(fg.sinh, np.sinh, SPECIAL), rtol=3e-7, atol=0.0),
    Case("cosh", "f32", fg.cosh, (F(3, 2, lo=-3, hi=3),), np.cosh),
    Case("cosh", "grid", *on_exact(fg.cosh, np.cosh, HYPERBOLIC_GRID), rtol=3e-6, atol=0.0),
    Case("cosh", "special", *on_exact(fg.cosh, np.cosh, SPECIAL), rtol=3e-7, atol=0.0),
    Case("asinh", "f32", fg.arcsinh, (F(2, 3, lo=-4, hi=4),), np.arcsinh),
    Case("asinh", "grid", *on_exact(fg.arcsinh, np.arcsinh, ASINH_GRID), rtol=4e-7, atol=0.0),
    Case("asinh", "special", *on_exact(fg.arcsinh, np.arcsinh, SPECIAL), rtol=3e-7, atol=0.0),
    Case("acosh", "f32", fg.arccosh, (F(2, 3, lo=1.5, hi=5),), np.arccosh),
    Case("acosh", "grid", *on_exact(fg.arccosh, np.arccosh, ACOSH_GRID), rtol=4e-7, atol=0.0),
    Case("acosh", "special", *on_exact(fg.arccosh, np.arccosh, SPECIAL), rtol=3e-7, atol=0.0),
    Case("atanh", "f32", fg.arctanh, (F(2, 3, lo=-0.8, hi=0.8),), np.arctanh),
    Case("atanh", "grid", *on_exact(fg.arctanh, np.arctanh, ATANH_GRID), rtol=4e-7, atol=0.0),
    Case("atanh", "special", *on_exact(fg.arctanh, np.arctanh, SPECIAL), rtol=3e-7, atol=0.0),
    # tan: to full relative precision near the poles (within 1.5 ulp)
    Case("tan", "f32", fg.tan, (F(2, 3, lo=-1.5, hi=1.5),), np.tan),
    Case("tan", "grid", *on_exact(fg.tan, np.tan, TAN_GRID), rtol=3e-7, atol=0.0),
    Case("tan", "near-half-pi", *on_exact(fg.tan, np.tan, NEAR_HALF_PI), rtol=3e-7, atol=0.0),
    Case("tan", "special", *on_exact(fg.tan, np.tan, SPECIAL[:-1]), rtol=3e-7, atol=0.0),  # not 1e30 (see tan_f32)
    # exp to full relative precision at large |x| (WGSL's, exp2(x log2(e)), is 60 ulp off at 80)
    Case("exp", "grid", *on_exact(fg.exp, np.exp, EXP_GRID), rtol=4e-7, atol=0.0),  # (XLA's CPU exp: 2.6 ulp at 88.7)
    # (not at -100: e^-100 is subnormal, which GPUs flush to 0)
    Case("exp", "special", *on_exact(fg.exp, np.exp, SPECIAL[SPECIAL != -100.0]), rtol=3e-7, atol=0.0),
    # pow within 6 ulp for |y| <= 5 (WGSL's, exp2(y log2(x)), 42 ulp off there)
    Case("pow", "grid", *on_exact(fg.pow, np.power, POW_X, POW_Y), rtol=8e-7, atol=0.0),
    # sin, cos, tanh and log: to full relative precision near their zeros (WGSL's are absolutely accurate)
    Case("sin", "grid", *on_exact(fg.sin, np.sin, SINE_GRID), rtol=3e-7, atol=0.0),
    Case("sin", "special", *on_exact(fg.sin, np.sin, SPECIAL[:-1]), rtol=3e-7, atol=0.0),  # not 1e30 (see sine_f32)
    Case("cos", "grid", *on_exact(fg.cos, np.cos, SINE_GRID), rtol=3e-7, atol=0.0),
    Case("cos", "special", *on_exact(fg.cos, np.cos, SPECIAL[:-1]), rtol=3e-7, atol=0.0),
    Case("tanh", "grid", *on_exact(fg.tanh, np.tanh, HYPERBOLIC_GRID), rtol=3e-7, atol=0.0),
    Case("tanh", "special", *on_exact(fg.tanh, np.tanh, SPECIAL), rtol=3e-7, atol=0.0),
    Case("log", "grid", *on_exact(fg.log, np.log, LOG2_GRID), rtol=3e-7, atol=0.0),
    Case("log", "special", *on_exact(fg.log, np.log, SPECIAL), rtol=3e-7, atol=0.0),
    # atan2, in all four quadrants; C's values at zeros and infinities
    Case("atan2", "f32", fg.arctan2, (F(2, 3), NZ(2, 3)), np.arctan2),
    Case("atan2", "bcast", fg.arctan2, (NZ(3, 1), F(4)), np.arctan2),
    Case("atan2", "grid", *on_exact(fg.arctan2, np.arctan2, ATAN2_Y, ATAN2_X),
         rtol=3e-7, atol=0.0),  # 2 ulp
    Case("atan2", "special", *on_exact(fg.arctan2, np.arctan2, PAIR_A, PAIR_B),
         rtol=1e-7, atol=0.0),
    # erfc, erf_inv
    Case("erfc", "f32", fg.erfc, (F(3, 4, lo=-3, hi=3),), erfc_ref),
    Case("erfc", "i32", fg.erfc, (I(5),), erfc_ref),
    # the rounding of x^2 (as in XLA) and the adapter's exp of -x^2: 12 ulp up to 4, 62 ulp at 9
    Case("erfc", "grid", *on_exact(fg.erfc, erfc_ref, ERFC_GRID), rtol=1.5e-6, atol=0.0),
    Case("erfc", "tail", *on_exact(fg.erfc, erfc_ref, ERFC_TAIL), rtol=8e-6, atol=0.0),
    Case("erfc", "special", *on_exact(fg.erfc, erfc_ref, SPECIAL), rtol=1e-6, atol=0.0),
    Case("erf_inv", "f32", fg.erfinv, (F(2, 3, lo=-0.9, hi=0.9),), erfinv_ref),
    Case("erf_inv", "grid", *on_exact(fg.erfinv, erfinv_ref, ERF_INV_GRID), rtol=4e-7, atol=0.0),  # 2 ulp
    Case("erf_inv", "special", *on_exact(fg.erfinv, erfinv_ref, SPECIAL), rtol=3e-7, atol=0.0),
    Case("erf_inv", "lax", fg.lax.erf_inv, (F(4, lo=-0.5, hi=0.5),), erfinv_ref),
    # cbrt, logaddexp
    Case("cbrt", "f32", fg.cbrt, (NZ(2, 3),), np.cbrt),
    Case("cbrt", "grid", *on_exact(fg.cbrt, np.cbrt, CBRT_GRID), rtol=3e-7, atol=0.0),
    Case("cbrt", "special", *on_exact(fg.cbrt, np.cbrt, SPECIAL), rtol=3e-7, atol=0.0),
    Case("logaddexp", "f32", fg.logaddexp, (F(2, 3), F(2, 3)), np.logaddexp),
    Case("logaddexp", "bcast-python", lambda x: fg.logaddexp(x, 0.5), (F(2, 3, lo=-30, hi=30),),
         lambda x: np.logaddexp(x, 0.5)),
    Case("logaddexp", "i32", fg.logaddexp, (I(4), I(4)), np.logaddexp),
    # atol: where the result nears 0, max(x, y) and log1p(e^-|x - y|) cancel (as in NumPy's f32)
    Case("logaddexp", "grid", *on_exact(fg.logaddexp, np.logaddexp, LOGADDEXP_X, LOGADDEXP_Y), rtol=3e-7,
         atol=1e-7),
    Case("logaddexp", "special", *on_exact(fg.logaddexp, np.logaddexp, PAIR_A, PAIR_B), rtol=3e-7, atol=0.0),
    # rem (lax.rem): C's fmod, exactly; XLA's integer remainder
    Case("rem", "f32", fg.lax.rem, (F(2, 3, lo=-5, hi=5), nonzero_divisors(2, 3)), np.fmod),
    Case("rem", "bcast", fg.lax.rem, (F(3, 4, lo=-9, hi=9), nonzero_divisors(4)), np.fmod),
    Case("rem", "i32", fg.lax.rem, (I(2, 4, lo=-20, hi=20), DIVISORS[:4]), np.fmod),
    Case("rem", "exact", *on(fg.lax.rem, FMOD_X, FMOD_Y), lambda m: np.fmod(FMOD_X, FMOD_Y), rtol=0.0, atol=0.0),
    Case("rem", "special", *on_exact(fg.lax.rem, np.fmod, FLOAT_A, FLOAT_B),
         rtol=0.0, atol=0.0),
    Case("rem", "i32-edges", fg.lax.rem, (INT_A, INT_B), lambda a, b: JAX_LAX_REM_INT),
    # div on integers: truncated, XLA's x / 0 = -1 (jax.numpy's floor_divide builds on it)
    Case("div", "floor_divide-i32", fg.floor_divide, (I(2, 4, lo=-20, hi=20), DIVISORS[:4]), np.floor_divide),
    Case("div", "floor_divide-i32-edges", fg.floor_divide, (INT_A, INT_B), lambda a, b: JAX_FLOOR_DIVIDE_INT),
    # lgamma, digamma and polygamma (the derivatives of digamma): smooth rows on both sides of 0
    Case("lgamma", "f32", fg.lax.lgamma, (f32(-2.7, -1.3, -0.6, 0.3, 0.9, 1.7, 3.2, 9.5),), lgamma_ref),
    # atol for XLA's lgamma (the JAX export), 2.6e-6 off near the roots (1, 2, -2.46, ...); the WGSL is within 2.4
    # ulp above 0, 1.6e-7 below (API rows: near-roots, negative). XLA's lgamma(3) is 3.4e-7 off.
    Case("lgamma", "grid", *on_exact(fg.lax.lgamma, lgamma_ref, GAMMA_GRID), rtol=4e-7, atol=3e-6),
    Case("lgamma", "special", *on_exact(fg.lax.lgamma, lgamma_ref, GAMMA_SPECIAL), rtol=4e-7, atol=0.0),
    Case("digamma", "f32", fg.lax.digamma, (f32(-2.7, -1.3, -0.6, 0.3, 0.9, 1.7, 3.2, 9.5),), digamma_ref),
    # atol for XLA's digamma, 8.4e-7 off on [1, 2] and near its roots below 0; the WGSL is within 2.8 ulp above 0
    # and 3.2e-7 below, where psi(x) = psi(1 - x) - pi cot(pi x) cancels (API rows: near-root, negative)
    Case("digamma", "grid", *on_exact(fg.lax.digamma, digamma_ref, GAMMA_GRID), rtol=4e-7, atol=1e-6),
    Case("digamma", "special", *on_exact(fg.lax.digamma, digamma_ref, GAMMA_SPECIAL), rtol=3e-7, atol=0.0),
    Case("polygamma", "trigamma", trigamma, (f32(-2.7, -1.3, -0.6, 0.3, 0.9, 1.7, 3.2, 9.5),), polygamma_ref(1)),
    # the WGSL within 3.6e-7 on both grids; the JAX export (lax.polygamma above 0) within 4.4e-7 and 6e-7
    Case("polygamma", "trigamma-grid", *on_exact(trigamma, polygamma_ref(1), POLYGAMMA_GRID), rtol=5e-7, atol=0.0),
    Case("polygamma", "trigamma-special", *on_exact(trigamma, polygamma_ref(1), POLYGAMMA_SPECIAL), rtol=2e-7,
         atol=0.0),
    Case("polygamma", "tetragamma-grid", *on_exact(tetragamma, polygamma_ref(2), POLYGAMMA_GRID), rtol=7e-7,
         atol=0.0),
    Case("polygamma", "tetragamma-special", *on_exact(tetragamma, polygamma_ref(2), POLYGAMMA_SPECIAL), rtol=4e-7,
         atol=0.0),
)

API_ROWS: tuple[Case, ...] = (  # composites and argument forms of the public functions
    # rounding: trunc, decimals, integers as they are
    Case("floor", "trunc", fg.trunc, (F(2, 3, lo=-4, hi=4),), np.trunc),
    Case("floor", "trunc-special", *on_exact(fg.trunc, np.trunc, SPECIAL)),
    Case("round", "decimals", lambda x: fg.round(x, 2), (F(2, 3, lo=-4, hi=4),), lambda x: np.round(x, 2), atol=1e-6),
    Case("round", "decimals-negative", lambda x: fg.round(x, -1), (F(2, 3, lo=-400, hi=400),),
         lambda x: np.round(x, -1)),
    Case("input", "floor-i32-as-it-is", fg.floor, (I(4),), lambda x: x),
    Case("input", "round-i32-as-it-is", lambda x: fg.round(x, 3), (I(4),), lambda x: x),
    # logarithms in other bases, tangent, inverse trigonometric functions
    Case("log", "log10", fg.log10, (P(2, 3),), np.log10),
    Case("atan2", "arctan", fg.arctan, (F(2, 3, lo=-5, hi=5),), np.arctan),
    Case("atan2", "arctan-special", *on_exact(fg.arctan, np.arctan, SPECIAL), rtol=3e-7, atol=0.0),
    Case("atan2", "arcsin", fg.arcsin, (F(2, 3, lo=-0.95, hi=0.95),), np.arcsin),
    Case("atan2", "arcsin-special", *on_exact(fg.arcsin, np.arcsin, SPECIAL), rtol=3e-7, atol=0.0),
    Case("atan2", "arccos", fg.arccos, (F(2, 3, lo=-0.95, hi=0.95),), np.arccos),
    Case("atan2", "arccos-special", *on_exact(fg.arccos, np.arccos, SPECIAL), rtol=3e-7, atol=0.0),
    Case("atan2", "arctan2-i32-f32", fg.arctan2, (I(4), F(4)), np.arctan2),
    Case("mul", "deg2rad", fg.deg2rad, (F(2, 3, lo=-360, hi=360),), np.deg2rad),
    Case("mul", "rad2deg", fg.rad2deg, (F(2, 3),), np.rad2deg),
    Case("sqrt", "hypot", fg.hypot, (F(2, 3), NZ(2, 3)), np.hypot),
    Case("sqrt", "hypot-special", *on_exact(fg.hypot, np.hypot, PAIR_A, PAIR_B)),
    Case("sin", "sinc", fg.sinc, (F(2, 3, lo=-3, hi=3),), np.sinc),
    Case("sin", "sinc-at-zero", fg.sinc, (f32(0.0, 1e-3, -0.02, 0.5),), np.sinc),  # derivatives at 0 too
    Case("integer_pow", "square", fg.square, (F(2, 3),), np.square),
    Case("integer_pow", "square-bool", fg.square, (B(4),), lambda x: np.square(x.astype(np.int32))),
    Case("integer_pow", "reciprocal", fg.reciprocal, (NZ(2, 3),), np.reciprocal),
    Case("integer_pow", "reciprocal-i32", fg.reciprocal, (np.array([1, -2, 4], np.int32),), lambda x: 1.0 / x),
    Case("rem", "power-i32-i32", fg.power, (I(6, lo=-3, hi=3), np.array([0, 1, 2, 3, 5, 63], np.int32)),
         lambda x, y: np.power(x, y).astype(np.int32)),  # wrapping
    Case("logaddexp", "logaddexp2", fg.logaddexp2, (F(2, 3), F(2, 3)), np.logaddexp2),
    # comparisons
    Case("le", "isclose", lambda a, b: fg.isclose(a, b, rtol=0.5), (F(2, 3), F(2, 3)),
         lambda a, b: np.isclose(a, b, rtol=0.5)),
    Case("le", "isclose-special", *on(fg.isclose, PAIR_A, PAIR_B), lambda m: np.isclose(PAIR_A, PAIR_B)),
    Case("le", "isclose-equal-nan", *on(lambda a, b: fg.isclose(a, b, equal_nan=True), PAIR_A, PAIR_B),
         lambda m: np.isclose(PAIR_A, PAIR_B, equal_nan=True)),
    Case("ne", "logical_xor", fg.logical_xor, (B(2, 3), B(3)), np.logical_xor),
    Case("ne", "logical_xor-numbers", fg.logical_xor, (I(5, lo=-1, hi=1), Fi(5, lo=0, hi=1)), np.logical_xor),
    # as jax.numpy, the logical functions read numbers as x != 0 (NaN is true)
    Case("logical_not", "numbers", *on_exact(fg.logical_not, np.logical_not, SPECIAL)),
    Case("logical_and", "numbers", *on_exact(fg.logical_and, np.logical_and, PAIR_A, PAIR_B)),
    Case("logical_or", "numbers", fg.logical_or, (I(5, lo=-1, hi=1), Fi(5, lo=0, hi=1)), np.logical_or),
    Case("isnan", "nan_to_num", *on(fg.nan_to_num, SPECIAL), lambda m: np.nan_to_num(SPECIAL)),  # f32's largest
    Case("isnan", "nan_to_num-values", *on(lambda x: fg.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0), SPECIAL),
         lambda m: np.nan_to_num(f64(SPECIAL), nan=-1.0, posinf=9.0, neginf=-9.0)),
    Case("isinf", "isposinf", *on_exact(fg.isposinf, np.isposinf, SPECIAL)),
    Case("isinf", "isneginf", *on_exact(fg.isneginf, np.isneginf, SPECIAL)),
    # floor_divide, remainder, fmod, divmod: Python's signs
    Case("rem", "floor_divide-f32", fg.floor_divide, (F(2, 3, lo=-9, hi=9), nonzero_divisors(3)), np.floor_divide),
    Case("rem", "floor_divide-special", *on_exact(fg.floor_divide, np.floor_divide, FLOAT_A, FLOAT_B)),
    Case("rem", "remainder-f32", fg.remainder, (F(2, 3, lo=-9, hi=9), nonzero_divisors(2, 3)), np.remainder),
    Case("rem", "remainder-special", *on_exact(fg.remainder, np.remainder, FLOAT_A, FLOAT_B)),
    Case("rem", "mod-python-int", lambda x: fg.mod(x, 3), (F(2, 3, lo=-9, hi=9),), lambda x: np.mod(x, 3)),
    Case("rem", "remainder-i32", fg.remainder, (I(2, 4, lo=-20, hi=20), DIVISORS[4:]), np.remainder),
    Case("rem", "remainder-i32-edges", fg.remainder, (INT_A, INT_B), lambda a, b: JAX_REMAINDER_INT),
    Case("rem", "fmod-f32", fg.fmod, (F(2, 3, lo=-9, hi=9), nonzero_divisors(2, 3)), np.fmod),
    Case("rem", "fmod-i32-edges", fg.fmod, (INT_A, INT_B), lambda a, b: JAX_FMOD_INT),
    Case("rem", "divmod-f32", lambda a, b: fg.stack(fg.divmod(a, b)), (F(2, 3, lo=-9, hi=9), nonzero_divisors(3)),
         lambda a, b: np.stack(np.divmod(a, b))),
    Case("rem", "divmod-i32", lambda a, b: fg.stack(fg.divmod(a, b)), (I(2, 4, lo=-20, hi=20), DIVISORS[:4]),
         lambda a, b: np.stack(np.divmod(a, b))),
    Case("div", "floor_divide-bool", fg.floor_divide, (B(4), np.ones(4, bool)), lambda a, b: a.astype(np.int32)),
    Case("div", "floor_divide-python-int", lambda x: fg.floor_divide(x, -3), (I(5, lo=-9, hi=9),),
         lambda x: np.floor_divide(x, -3)),
    # clip: None bounds, keyword bounds, promotion by the bounds
    Case("maximum", "clip-min-keyword", lambda x: fg.clip(x, min=-0.5), (F(2, 3),), lambda x: np.maximum(x, -0.5)),
    Case("minimum", "clip-max-keyword", lambda x: fg.clip(x, max=0.5), (F(2, 3),), lambda x: np.minimum(x, 0.5)),
    Case("minimum", "clip-i32-float-bounds", lambda x: fg.clip(x, 0.5, 1.5), (I(5),), lambda x: np.clip(x, 0.5, 1.5)),
    Case("input", "clip-no-bounds", fg.clip, (F(2, 3),), lambda x: x),
    # jax.nn's activations
    Case("logaddexp", "softplus", fg.nn.softplus, (F(2, 3, lo=-30, hi=30),), lambda x: np.logaddexp(x, 0)),
    Case("logaddexp", "softplus-at-0", fg.nn.softplus, (f32(0.0, -1.0, 20.0),), lambda x: np.logaddexp(x, 0)),
    Case("logaddexp", "log_sigmoid", fg.nn.log_sigmoid, (F(2, 3, lo=-30, hi=30),), lambda x: -np.logaddexp(-x, 0)),
    Case("tanh", "mish", fg.nn.mish, (F(2, 3, lo=-6, hi=6),), lambda x: x * np.tanh(np.logaddexp(x, 0))),
    Case("expm1", "elu", fg.nn.elu, (F(2, 3, lo=-4, hi=4),), lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    Case("expm1", "elu-alpha", lambda x: fg.nn.elu(x, 0.3), (F(2, 3, lo=-4, hi=4),),
         lambda x: np.where(x > 0, x, 0.3 * np.expm1(np.minimum(x, 0)))),
    Case("expm1", "selu", fg.nn.selu, (F(2, 3, lo=-4, hi=4),),
         lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(np.minimum(x, 0)))),
    Case("expm1", "celu", lambda x: fg.nn.celu(x, 0.5), (F(2, 3, lo=-4, hi=4),),
         lambda x: np.maximum(x, 0) + 0.5 * np.expm1(np.minimum(x, 0) / 0.5)),
    Case("custom_jvp_call", "log1mexp", fg.nn.log1mexp, (F(2, 3, lo=0.05, hi=5),), lambda x: np.log1p(-np.exp(-x))),
    Case("relu", "relu6", fg.nn.relu6, (F(2, 4, lo=-3, hi=9),), lambda x: np.clip(x, 0, 6)),
    Case("relu", "hard_sigmoid", fg.nn.hard_sigmoid, (F(2, 4, lo=-5, hi=5),), lambda x: np.clip(x + 3, 0, 6) / 6),
    Case("relu", "hard_silu", fg.nn.hard_silu, (F(2, 4, lo=-5, hi=5),), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    Case("where", "hard_tanh", fg.nn.hard_tanh, (F(2, 4),), lambda x: np.clip(x, -1, 1)),
    Case("where", "leaky_relu", fg.nn.leaky_relu, (F(2, 3),), lambda x: np.where(x >= 0, x, 0.01 * x)),
    Case("where", "leaky_relu-slope", lambda x: fg.nn.leaky_relu(x, 0.2), (F(2, 3),),
         lambda x: np.where(x >= 0, x, 0.2 * x)),
    Case("where", "sparse_plus", fg.nn.sparse_plus, (F(2, 4),),
         lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    Case("maximum", "sparse_sigmoid", fg.nn.sparse_sigmoid, (F(2, 4),), lambda x: np.clip(x + 1, 0, 2) / 2),
    Case("sqrt", "squareplus", fg.nn.squareplus, (F(2, 3),), lambda x: (x + np.sqrt(x * x + 4)) / 2),
    Case("div", "soft_sign", fg.nn.soft_sign, (F(2, 3),), lambda x: x / (np.abs(x) + 1)),
    Case("silu", "swish", fg.nn.swish, (F(2, 3),), lambda x: x / (1 + np.exp(-x))),
    Case("sigmoid", "glu", fg.nn.glu, (F(2, 6),), lambda x: x[:, :3] / (1 + np.exp(-x[:, 3:]))),
    Case("sigmoid", "glu-axis-0", lambda x: fg.nn.glu(x, axis=0), (F(4, 3),), lambda x: x[:2] / (1 + np.exp(-x[2:]))),
    Case("rsqrt", "standardize", fg.nn.standardize, (F(3, 5),),
         lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5), rtol=1e-4),
    Case("rsqrt", "standardize-stable-axes", lambda x: fg.nn.standardize(x, (0, 2), algorithm="stable"), (F(2, 3, 4),),
         lambda x: (x - x.mean((0, 2), keepdims=True)) / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5)),
    Case("rsqrt", "standardize-given", lambda x, m, v: fg.nn.standardize(x, mean=m, variance=v, epsilon=0.1),
         (F(2, 3), F(3), P(3)), lambda x, m, v: (x - m) / np.sqrt(v + 0.1)),
    Case("erfc", "gelu-exact-tail", lambda x: fg.nn.gelu(x, approximate=False), (F(3, 4, lo=-12, hi=-4),),
         lambda x: x * erfc_ref(-x / np.sqrt(2)) / 2, rtol=3e-5, atol=0.0),
    # lax.lgamma and lax.digamma to the WGSL's accuracy, which the op rows' tolerances (XLA's, for the export)
    # hide: relatively near the roots of lgamma at 1 and 2 (within 1.3 ulp; XLA's lgamma(1) is 4.8e-7) and of
    # digamma at 1.4616... (1.7 ulp), absolutely below 0, where the reflection cancels near the roots
    # (1.6e-7 and 3.2e-7, within 1.5 ulp of lgamma(1 - x) and psi(1 - x))
    Case("lgamma", "near-roots", *on_exact(fg.lax.lgamma, lgamma_ref, NEAR_ONE_AND_TWO), rtol=2e-7, atol=0.0),
    Case("lgamma", "negative", *on_exact(fg.lax.lgamma, lgamma_ref, GAMMA_GRID[GAMMA_GRID < 0]), rtol=3e-7,
         atol=2e-7),
    Case("digamma", "near-root", *on_exact(fg.lax.digamma, digamma_ref, NEAR_DIGAMMA_ROOT), rtol=2e-7, atol=0.0),
    Case("digamma", "negative", *on_exact(fg.lax.digamma, digamma_ref, GAMMA_GRID[GAMMA_GRID < 0]), rtol=3e-7,
         atol=4e-7),
)

F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("floor", "f16", fg.floor, (H(2, 3, lo=-4, hi=4),), np.floor),
    Case("ceil", "f16", fg.ceil, (H(2, 3, lo=-4, hi=4),), np.ceil),
    Case("round", "f16", lambda x: fg.round(fg.multiply(x, 0.5)), (Hi(2, 3, lo=-8, hi=8),), lambda x: np.round(x / 2)),
    Case("round", "f16-decimals", lambda x: fg.round(x, 1), (H(5),), rounded(lambda x: np.round(x, 1)), **F16),
    Case("sign", "f16", fg.sign, (H(2, 3),), np.sign),
    Case("signbit", "f16", lambda m: fg.signbit(held(m, SPECIAL.astype(np.float16))), (ones(SPECIAL),),
         lambda m: np.signbit(SPECIAL)),
    Case("copysign", "f16", lambda m: fg.copysign(held(m, PAIR_A.astype(np.float16)), held(m, PAIR_B.astype(np.float16))),
         (ones(PAIR_A),), lambda m: np.copysign(PAIR_A.astype(np.float16), PAIR_B.astype(np.float16))),
    Case("log1p", "f16", fg.log1p, (H(2, 3, lo=-0.5, hi=3),), rounded(np.log1p), **F16),
    Case("expm1", "f16", fg.expm1, (H(2, 3, lo=-3, hi=3),), rounded(np.expm1), **F16),
    Case("exp2", "f16", fg.exp2, (H(2, 3, lo=-4, hi=4),), rounded(np.exp2), **F16),
    Case("sinh", "f16", fg.sinh, (H(2, 3, lo=-3, hi=3),), rounded(np.sinh), **F16),
    Case("cosh", "f16", fg.cosh, (H(2, 3, lo=-3, hi=3),), rounded(np.cosh), **F16),
    Case("asinh", "f16", fg.arcsinh, (H(2, 3, lo=-4, hi=4),), rounded(np.arcsinh), **F16),
    Case("acosh", "f16", fg.arccosh, (H(2, 3, lo=1.5, hi=5),), rounded(np.arccosh), **F16),
    Case("atanh", "f16", fg.arctanh, (H(2, 3, lo=-0.8, hi=0.8),), rounded(np.arctanh), **F16),
    Case("atan2", "f16", fg.arctan2, (H(2, 3), H(2, 3, lo=0.5, hi=2)), rounded(np.arctan2), **F16),
    Case("erfc", "f16", fg.erfc, (H(2, 3, lo=-3, hi=3),), rounded(erfc_ref), **F16),
    Case("erf_inv", "f16", fg.erfinv, (H(2, 3, lo=-0.9, hi=0.9),), rounded(erfinv_ref), **F16),
    Case("cbrt", "f16", fg.cbrt, (H(2, 3, lo=0.5, hi=3),), rounded(np.cbrt), **F16),
    Case("logaddexp", "f16", fg.logaddexp, (H(2, 3), H(2, 3)), rounded(np.logaddexp), **F16),
    Case("rem", "f16", fg.lax.rem, (H(2, 3, lo=-5, hi=5), H(2, 3, lo=0.5, hi=2)), rounded(np.fmod), **F16),
    Case("rem", "f16-remainder", fg.remainder, (H(2, 3, lo=-5, hi=5), H(3, lo=0.5, hi=2)), rounded(np.remainder),
         **F16),
    Case("tan", "f16", fg.tan, (H(2, 3, lo=-1.4, hi=1.4),), rounded(np.tan), **F16),
    Case("log2", "f16", fg.log2, (PH(2, 3),), rounded(np.log2), **F16),
    Case("atan2", "f16-arcsin", fg.arcsin, (H(2, 3, lo=-0.9, hi=0.9),), rounded(np.arcsin), rtol=6e-3, atol=1e-3),
    Case("lgamma", "f16", fg.lax.lgamma, (H(2, 3, lo=-3, hi=5),), rounded(lgamma_ref), **F16),
    Case("digamma", "f16", fg.lax.digamma, (H(2, 3, lo=-3, hi=5),), rounded(digamma_ref), **F16),
    Case("polygamma", "f16", trigamma, (H(2, 3, lo=0.5, hi=5),), rounded(polygamma_ref(1)), **F16),
)

U32_ROWS: tuple[Case, ...] = (  # u32 rows of integer primitives
    Case("sign", "u32", fg.sign, (U(6),), np.sign),
    Case("rem", "u32", fg.lax.rem, (U(2, 3, hi=100), U(3, lo=1, hi=9)), np.fmod),
    Case("rem", "u32-edges", fg.lax.rem, (UINT_A, UINT_B), lambda a, b: JAX_LAX_REM_UINT),
    Case("rem", "u32-remainder-edges", fg.remainder, (UINT_A, UINT_B), lambda a, b: JAX_REMAINDER_UINT),
    Case("div", "u32-floor_divide", fg.floor_divide, (U(2, 3, hi=100), U(3, lo=1, hi=9)), np.floor_divide),
    Case("div", "u32-floor_divide-edges", fg.floor_divide, (UINT_A, UINT_B), lambda a, b: JAX_FLOOR_DIVIDE_UINT),
)
