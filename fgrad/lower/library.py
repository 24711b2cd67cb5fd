"""WGSL functions and conversions that several lowering rules share.

WGSL's max and min return the other operand where one is NaN, and a shader
compiler may fold `x != x` to false; NumPy's maximum and max return NaN. So
NaN and infinity are tested on the bit pattern, which no float rewrite
touches. A rule asks the kernel writer for a function by name (`w.function`),
which emits it once per module.

Special functions (exp, tanh, erf, pow, ...) are written once, for f32, and
computed in each float dtype's `wide` dtype (f32 for f16, as XLA computes
them on GPUs): `widened` converts the operands and rounds the result back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.ir import DType
from fgrad.lower.wgsl import literal

IS_NAN = "fn is_nan(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;\n}"
IS_INF = "fn is_inf(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;\n}"
FLOAT_TESTS = {"is_nan": IS_NAN, "is_inf": IS_INF}

# x^y as C's pow: |x|^y for |x| in (0, inf) from `pow_positive_f32`, and selects give every special
# case (WGSL's pow is undefined for x < 0 and at 0: llvmpipe gives 0^-1 = 0).
POWER_F32 = """fn power_f32(x: f32, y: f32) -> f32 {
    let ax = abs(x);
    let inf = bitcast<f32>(0x7f800000u);
    let integral = floor(y) == y;
    let odd = integral & (floor(y * 0.5f) != y * 0.5f);
    let edge = select(0.0f, inf, (ax == 0.0f) == (y < 0.0f));
    var r = select(pow_positive_f32(ax, y), edge, (ax == 0.0f) | (ax == inf));
    r = select(r, -r, odd & (bitcast<u32>(x) >= 0x80000000u));
    r = select(r, bitcast<f32>(0x7fc00000u), is_nan(x) | is_nan(y) | ((x < 0.0f) & (ax != inf) & !integral));
    return select(r, 1.0f, (y == 0.0f) | (x == 1.0f) | ((ax == 1.0f) & (abs(y) == inf)));
}"""


def float_test(w: Any, which: str, dtype: DType) -> str:
    """The name of the WGSL function testing a value of the float `dtype` for NaN (`which` =
    "is_nan") or infinity ("is_inf"): on the bits of the value as f32 (widening is exact)."""
    name = w.function(which, FLOAT_TESTS[which])
    if dtype.row.compute == "f32":
        return name
    return w.function(f"{which}_{dtype}", f"fn {which}_{dtype}(x: {dtype.row.compute}) -> bool {{\n"
                                          f"    return {name}(f32(x));\n}}")


def widened(w: Any, dtype: DType, compute: Callable[..., str], *values: str) -> str:
    """`compute(*values)`, WGSL over values of `dtype.wide` (f32), for values of the float `dtype`:
    the operands are converted to the wide dtype and the result rounded back once."""
    wide = dtype.wide
    return cast(w, compute(*(w.let(cast(w, v, dtype, wide)) for v in values)), wide, dtype)


def _float_to_int(w: Any, target: DType) -> str:
    """The name of the WGSL function converting an f32 to the integer `target` as XLA's convert:
    truncating toward zero, saturating at the target's range, NaN giving 0. The clamp's upper
    bound is the largest f32 below the range's end (2^31, 2^32); NaN is read off the bits."""
    info, f32 = np.iinfo(target.np), DType.f32
    end = info.max + 1
    top = float(np.nextafter(np.float32(end), np.float32(0)))
    name = f"f32_to_{target}"
    return w.function(name, f"""fn {name}(x: f32) -> {target.row.compute} {{
    let r = select({target.row.compute}(clamp(x, {w.literal(info.min, f32)}, {w.literal(top, f32)})), \
{w.literal(info.max, target)}, x >= {w.literal(end, f32)});
    return select(r, {w.literal(0, target)}, {float_test(w, "is_nan", f32)}(x));
}}""")


def cast(w: Any, value: str, source: DType, target: DType) -> str:
    """WGSL converting `value` from `source` to `target` by astype's rules (XLA's convert): float
    -> integer truncates toward zero and saturates, NaN giving 0; integer -> integer keeps the
    bits (wraps); integer -> float rounds; -> bool is != 0. Conversions between integers and
    floats go through f32, which holds every value a narrower float does; a float is nonzero
    where a bit besides the sign is set."""
    if source is target:
        return value
    if target is DType.bool and source.is_float:  # NOTE: on the bits: a GPU took NaN != 0.0 for false
        return f"((bitcast<u32>({cast(w, value, source, DType.f32)}) << 1u) != 0u)"
    if target is DType.bool:
        return f"({value} != {w.literal(0, source)})"
    if source is DType.bool:
        return f"select({w.literal(0, target)}, {w.literal(1, target)}, {value})"
    if source.is_float == target.is_float:
        return f"{target.row.compute}({value})"
    if target.is_int:
        return f"{_float_to_int(w, target)}({cast(w, value, source, DType.f32)})"
    return cast(w, f"f32({value})", DType.f32, target)


def pick(w: Any, which: str, dtype: DType) -> Callable[[str, str], str]:
    """WGSL for the larger (`which` = "max") or smaller ("min") of two values of `dtype`, as
    NumPy's maximum / minimum: NaN wins on floats (where either operand is NaN their sum is);
    on bool they are `or` / `and`."""
    if dtype is DType.bool:
        return lambda a, b: f"({a} {'||' if which == 'max' else '&&'} {b})"
    if not dtype.is_float:
        return lambda a, b: f"{which}({a}, {b})"
    is_nan, t = float_test(w, "is_nan", dtype), dtype.row.compute
    name = w.function(f"{which}_{dtype}", f"fn {which}_{dtype}(a: {t}, b: {t}) -> {t} {{\n"
                                          f"    return select({which}(a, b), a + b, {is_nan}(a) | {is_nan}(b));\n}}")
    return lambda a, b: f"{name}({a}, {b})"


# ---------------------------------------------------------------------------
# Special functions, written once for f32 (`widened` serves narrower floats)
# ---------------------------------------------------------------------------
# Each is a least-squares fit (relative error, Chebyshev nodes, float64) on a range where no
# operand rounds away the result's leading digits, with the WGSL builtin outside it. WGSL's
# log is only absolutely accurate (2^-21) on [0.5, 2], its inverse trigonometric functions
# are far off on llvmpipe (thousands of ulp), and a shader compiler may reassociate float
# arithmetic, folding the corrections of compensated sums ((1 + x) - 1 is x on llvmpipe),
# so none is relied on. The errors given are on llvmpipe, against float64.

INF, NEG_INF, NAN = "bitcast<f32>(0x7f800000u)", "bitcast<f32>(0xff800000u)", "bitcast<f32>(0x7fc00000u)"


def horner(coefficients: Sequence[float], u: str) -> str:
    """WGSL for the polynomial with f32 `coefficients` (lowest degree first) at `u`, by Horner's rule."""
    text = literal(coefficients[-1], DType.f32)
    for c in reversed(coefficients[:-1]):
        text = f"({text} * {u} + {literal(c, DType.f32)})"
    return text


def with_sign_of(magnitude: str, x: str) -> str:
    """WGSL for the f32 `magnitude` (sign bit clear) with the sign bit of `x`: -0 stays -0."""
    return f"bitcast<f32>(bitcast<u32>({magnitude}) | (bitcast<u32>({x}) & 0x80000000u))"


# log1p(x) = 2 atanh(s), s = x / (2 + x), for 1 + x in [0.5, 2]: s (2 + z P(z)), z = s^2 <= 1/9,
# needs no rounded 1 + x (`log1p_near_f32`); outside, log(1 + x), where that rounding is below the
# result's ulp. Within 2.6 ulp.
LOG1P_P = (0.6666666865348816, 0.3999970853328705, 0.2859227657318115, 0.21707777678966522, 0.232188880443573)
LOG1P_NEAR_F32 = f"""fn log1p_near_f32(x: f32) -> f32 {{
    let s = x / (2.0f + x);
    let z = s * s;
    return s * (2.0f + z * {horner(LOG1P_P, "z")});
}}"""
LOG1P_F32 = f"""fn log1p_f32(x: f32) -> f32 {{
    let r = select(log_f32(1.0f + x), log1p_near_f32(x), (x >= -0.5f) & (x <= 1.0f));
    return select(select(r, {NEG_INF}, x == -1.0f), {NAN}, (x < -1.0f) | is_nan(x));
}}"""

# v 2^k for an integral k, as two powers of two built from their bits, one after the other: 2^s, s
# = k clamped to the normal exponents, then 2^(k - s), 1 unless 2^k or the result is not a normal
# number (k - s clamped too, where the result overflows or vanishes whatever it is).
SCALED_F32 = """fn scaled_f32(v: f32, k: f32) -> f32 {
    let s = clamp(k, -126.0f, 127.0f);
    return v * bitcast<f32>(u32(i32(s) + 127i) << 23u) *
        bitcast<f32>(u32(i32(clamp(k - s, -126.0f, 127.0f)) + 127i) << 23u);
}"""

# exp(x) = 2^n e^r, n = round(x / log(2)), r = x - n log(2) with log(2) in two parts, the first's
# product exact (|r| <= 0.35): e^r = 1 + r + r^2 P(r), times 2^n (`scaled_f32`). WGSL's,
# exp2(x log2(e)), rounds x log2(e): 60 ulp off at |x| = 80 on llvmpipe and an H200. Within 1.3
# ulp. x is clamped to [-104, 89] first, where e^x rounds to 0 and overflows to inf (so do the
# infinities); NaN stays.
EXP_P = (0.5, 0.1666666567325592, 0.041666239500045776, 0.008333438076078892, 0.0013948323903605342,
         0.00019825759227387607)
EXP_F32 = f"""fn exp_f32(x: f32) -> f32 {{
    let c = clamp(x, -104.0f, 89.0f);
    let n = round(c * 1.442695f);
    let r = (c - n * 0.693359375f) - n * -0.00021219444f;
    return select(scaled_f32(1.0f + r + r * r * {horner(EXP_P, "r")}, n), x, is_nan(x));
}}"""

# expm1(x) = x + x^2 P(x) for |x| <= 1, exp(x) - 1 beyond (no cancellation left); +-0 stay.
# Within 1.4 ulp of the polynomial, exp's error beyond.
EXPM1_P = (0.5, 0.1666666716337204, 0.04166673496365547, 0.008333304896950722, 0.0013885467778891325,
           0.00019845114729832858, 2.535378916945774e-05, 2.765986437225365e-06)
EXPM1_F32 = f"""fn expm1_f32(x: f32) -> f32 {{
    let r = select(exp_f32(x) - 1.0f, x + x * x * {horner(EXPM1_P, "x")}, abs(x) <= 1.0f);
    return select(r, x, (x == 0.0f) | is_nan(x));
}}"""

# atan2(y, x): t = min/max of |x| and |y| in [0, 1], reduced to |t| <= tan(pi/8) by
# atan(t) = pi/4 + atan((lo - hi) / (lo + hi)) (lo - hi is exact there); atan(t) = t + t z P(z).
# Then the octant from |y| > |x| and the signs, read off the bits so that -0 counts as
# negative, as C's atan2: atan2(+-0, -0) = +-pi. Within 2 ulp.
ATAN_P = (-0.3333333134651184, 0.19999536871910095, -0.1426384299993515, 0.1074269562959671, -0.06448931992053986)
ATAN2_F32 = f"""fn atan2_f32(y: f32, x: f32) -> f32 {{
    let ax = abs(x);
    let ay = abs(y);
    let hi = max(ax, ay);
    let lo = min(ax, ay);
    let mid = lo > 0.41421356f * hi;
    let t = select(select(lo / hi, (lo - hi) / (lo + hi), mid), 0.0f, hi == 0.0f);
    let z = t * t;
    var r = select(0.0f, 0.7853982f, mid) + (t + t * z * {horner(ATAN_P, "z")});
    r = select(r, 0.7853982f, lo == {INF});
    r = select(r, 1.5707964f - r, ay > ax);
    r = select(r, 3.1415927f - r, bitcast<u32>(x) >= 0x80000000u);
    r = select(r, -r, bitcast<u32>(y) >= 0x80000000u);
    return select(r, {NAN}, is_nan(x) | is_nan(y));
}}"""

# erfinv: Giles' single-precision approximation ("Approximating the erfinv function", GPU
# Computing Gems, 2011; XLA's): w = -log(1 - x^2), a polynomial in w - 2.5 below 5 and in
# sqrt(w) - 3 above, times x. 1 - x^2 is taken through log1p below |x| = 1/sqrt(2) and as
# the exact factor 1 - |x| times 1 + |x| above. Within 4 ulp.
ERF_INV_CENTRAL = (1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087, -4.39150654e-06,
                   -3.5233877e-06, 3.43273939e-07, 2.81022636e-08)
ERF_INV_TAIL = (2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844,
                0.00134934322, 0.000100950558, -0.000200214257)
ERF_INV_F32 = f"""fn erf_inv_f32(x: f32) -> f32 {{
    let a = abs(x);
    let w = select(-log_f32((1.0f - a) * (1.0f + a)), -log1p_f32(-x * x), a < 0.70710677f);
    let central = w < 5.0f;
    let u = select(sqrt(w) - 3.0f, w - 2.5f, central);
    let p = select({horner(ERF_INV_TAIL, "u")}, {horner(ERF_INV_CENTRAL, "u")}, central);
    return select(select(p * x, x * {INF}, a == 1.0f), {NAN}, (a > 1.0f) | is_nan(x));
}}"""

# fmod(x, y) (C's, lax.rem's on floats), exactly: (mx 2^(ex - ey)) mod my on the integer
# significands, eight bits of the exponent difference at a time (my < 2^24, so r << 8 fits a
# u32), scaled back by 2^(ey - 150) in two exact steps; the sign of x. A quotient rounded in
# floats (x - trunc(x / y) y) is wrong by whole multiples of y once x / y passes 2^24.
FMOD_F32 = f"""fn fmod_f32(x: f32, y: f32) -> f32 {{
    let bx = bitcast<u32>(x) & 0x7fffffffu;
    let by = bitcast<u32>(y) & 0x7fffffffu;
    let ey = max(i32(by >> 23u), 1i);
    let mx = select(bx & 0x7fffffu, (bx & 0x7fffffu) | 0x800000u, bx >= 0x800000u);
    let my = max(select(by & 0x7fffffu, (by & 0x7fffffu) | 0x800000u, by >= 0x800000u), 1u);
    var r = mx % my;
    var d = max(i32(bx >> 23u), 1i) - ey;
    loop {{
        if (d <= 0i) {{
            break;
        }}
        let s = min(d, 8i);
        r = (r << u32(s)) % my;
        d -= s;
    }}
    let v = f32(r) * exp2(f32(ey - 127i)) * 1.1920928955078125e-07f;
    let m = select({with_sign_of("v", "x")}, x, bx < by);
    return select(m, {NAN}, (bx >= 0x7f800000u) | (by > 0x7f800000u) | (by == 0u));
}}"""

# x - k pi/2 for k = round(x 2/pi), pi/2 in four parts, the first three of 8 bits, so that each of their
# products with k is exact up to |k| = 2^16 (|x| = 1e5) and each difference is exact where it cancels:
# the reduction keeps x's precision near the zeros and poles of sin, cos and tan. (Three parts, the
# second of 11 bits, lost all of it near sin's zeros past |x| = 1e4; with the second and third taken
# by fma, llvmpipe came out hundreds of ulp off at |x| = 100.)
def _reduced(x: str) -> str:
    return f"""let k = round({x} * 0.63661975f);
    let r = ((({x} - k * 1.5703125f) - k * 0.0004825592041015625f) - k * 1.2665987014770508e-06f) -
        k * 9.92093629470503e-10f;
    let z = r * r;"""


# tan(x): tan(r) = r + r z P(z) (z = r^2, |r| <= pi/4), and -1 / tan(r) for odd k. Within 1.5 ulp.
# Past 1e5 (no reduction in f32 is exact there) sin(x) / cos(x), as accurate as the adapter's. +-0 stay.
TAN_P = (0.3333333432674408, 0.13333235681056976, 0.053993694484233856, 0.021626314148306847, 0.0099464887753129,
         0.001206965884193778, 0.0038319865707308054)
TAN_F32 = f"""fn tan_f32(x: f32) -> f32 {{
    {_reduced("x")}
    let t = r + r * z * {horner(TAN_P, "z")};
    let v = select(t, -1.0f / t, fract(0.5f * k) != 0.0f);
    return select(select(select(v, sin(x) / cos(x), abs(x) > 1e5f), x, x == 0.0f), {NAN}, is_inf(x));
}}"""

# sin(x + q pi/2) for q = 0 (sin) or 1 (cos): sin(r) = r + r z P(z) or cos(r) = 1 - z/2 + z^2 Q(z) by
# the quadrant k + q, its sign. GPUs' sin and cos are only absolutely accurate, and less so as x
# grows (on an H200: 2% off near sin's zeros, 1e-3 at |x| = 1e4). Within 2.4 ulp up to |x| = 1e5 on
# llvmpipe, the adapter's past it. sin keeps +-0 (`sin_f32`).
SIN_P = (-0.1666666716337204, 0.008333329111337662, -0.00019839320157188922, 2.7181986297364347e-06)
COS_P = (0.0416666679084301, -0.0013888883404433727, 2.479949216649402e-05, -2.7208204755879706e-07)
SINE_F32 = f"""fn sine_f32(x: f32, q: i32) -> f32 {{
    {_reduced("x")}
    let quadrant = (i32(k) + q) & 3i;
    let s = r + r * z * {horner(SIN_P, "z")};
    let c = 1.0f - 0.5f * z + z * z * {horner(COS_P, "z")};
    let v = select(s, c, (quadrant & 1i) == 1i);
    let far = select(sin(x), cos(x), q == 1i);
    return select(select(select(v, -v, quadrant >= 2i), far, abs(x) > 1e5f), {NAN}, is_inf(x));
}}"""
SIN_F32 = "fn sin_f32(x: f32) -> f32 {\n    return select(sine_f32(x, 0i), x, x == 0.0f);\n}"
COS_F32 = "fn cos_f32(x: f32) -> f32 {\n    return sine_f32(x, 1i);\n}"

# tanh(x) = x + x z P(z) (z = x^2) for |x| <= 0.625, the adapter's beyond, where no cancellation is
# left (llvmpipe's, (e^2x - 1) / (e^2x + 1), lost every digit of tanh(1e-7)); NaN and +-0 stay. Within
# 1 ulp of the polynomial.
TANH_P = (-0.3333333134651184, 0.1333320587873459, -0.05394670367240906, 0.021700501441955566,
          -0.008177093230187893, 0.002142803743481636)
TANH_F32 = f"""fn tanh_f32(x: f32) -> f32 {{
    let z = x * x;
    let r = select(tanh(clamp(x, -15.0f, 15.0f)), x + x * z * {horner(TANH_P, "z")}, abs(x) <= 0.625f);
    return select(r, x, is_nan(x) | (x == 0.0f));
}}"""

# log(x) and log2(x) from x = m 2^e, m in [1/sqrt(2), sqrt(2)) read off the bits (subnormals scaled
# by 2^23 first): e and log(m) = log1p(m - 1) (m - 1 exact, in log1p's near range), no cancellation
# near 1 (WGSL's log is only absolutely accurate: 850 ulp off near 1 on an H200), and log2 exact at
# powers of two (WGSL's is not: 2^-20 gave -19.999998 on an H100). log(2) e in two parts, the
# first's product exact. Within 2 ulp.
LOG_PARTS_F32 = """fn log_parts_f32(x: f32) -> vec2<f32> {
    let subnormal = x < 1.1754944e-38f;
    let bits = bitcast<u32>(select(x, x * 8388608.0f, subnormal));
    let high = (bits & 0x7fffffu) > 0x3504f3u;
    let m = bitcast<f32>((bits & 0x7fffffu) | select(0x3f800000u, 0x3f000000u, high));
    let e = i32(bits >> 23u) - select(127i, 126i, high) - select(0i, 23i, subnormal);
    return vec2<f32>(f32(e), log1p_near_f32(m - 1.0f));
}"""


def _logarithm(name: str, of_parts: str) -> str:
    """The WGSL function `name`: `of_parts` over log_parts_f32's e and log(m) (`p`); +inf, 0, and
    negative or NaN x as C's."""
    return f"""fn {name}(x: f32) -> f32 {{
    let p = log_parts_f32(x);
    let r = {of_parts};
    return select(select(select(r, {INF}, x == {INF}), {NEG_INF}, x == 0.0f), {NAN}, (x < 0.0f) | is_nan(x));
}}"""


LOG_F32 = _logarithm("log_f32", "p.x * 0.693359375f + (p.x * -0.00021219444f + p.y)")
LOG2_F32 = _logarithm("log2_f32", "p.x + p.y * 1.442695f")

# x^y for x in (0, inf) as 2^t, t = y log2(x) = y e + y log2(m) (log_parts_f32): y e exactly, as y's
# top 12 bits and the rest, each times e (8 bits), so that t's integral part comes off exact; then
# 2^k 2^g, g in [-1/2, 1/2] (WGSL's exp2, within 3 ulp there), times 2^k by `scaled_f32`. WGSL's
# pow, exp2(y log2(x)), rounds t: 65 ulp off for 0.0012^4.4 on an H200. The error grows with
# |y log2(m)| <= |y| / 2 instead (log(m)'s 2.6 ulp times y): on llvmpipe within 6 ulp for |y| <= 5
# (WGSL's: 42), 95 at |y| = 100 (180). Past 2^128 inf, below 2^-151 zero, and the limits for infinite
# y (x = 1 is power_f32's).
POW_POSITIVE_F32 = f"""fn pow_positive_f32(x: f32, y: f32) -> f32 {{
    let p = log_parts_f32(x);
    let yh = bitcast<f32>(bitcast<u32>(y) & 0xfffff000u);
    let a = yh * p.x;
    let n = round(a);
    let f = ((a - n) + (y - yh) * p.x) + y * (p.y * 1.442695f);
    let k = n + round(f);
    let g = f - round(f);
    let v = scaled_f32(exp2(g), k);
    let far = select(0.0f, {INF}, (k > 128.0f) | ((abs(y) == {INF}) &
        ((x > 1.0f) == (y > 0.0f))));
    return select(v, far, (k > 128.0f) | (k < -151.0f) | (abs(y) == {INF}));
}}"""

# log(e^x + e^y) = max(x, y) + log1p(e^-|x - y|), which neither overflows nor loses the smaller
# term; where x - y is NaN (a NaN, or two infinities of one sign) it is x + y: NaN, inf or -inf.
LOG_ADD_EXP_F32 = """fn log_add_exp_f32(x: f32, y: f32) -> f32 {
    let d = x - y;
    return select(max(x, y) + log1p_f32(exp_f32(-abs(d))), x + y, is_nan(d));
}"""

# Bernoulli numbers B_2, B_4, ..., B_18: the coefficients of the asymptotic series of lgamma, digamma
# and the Hurwitz zeta function.
BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798)

# sin(pi t) for |t| <= 1/2: t P(t^2), a fit (within 2 ulp). The reflection formulas of lgamma, digamma
# and polygamma take it at r = x - round(x), which is exact: the rounding of pi x would be all of
# sin(pi x) near their poles.
SINPI_P = (3.1415927410125732, -5.167715072631836, 2.550145149230957, -0.5986353158950806, 0.07824674993753433)
SINPI_F32 = f"""fn sinpi_f32(t: f32) -> f32 {{
    let z = t * t;
    return t * {horner(SINPI_P, "z")};
}}"""

# lgamma(1 + y) for y >= -1/2 (`y` exact, so that 1 + y is never rounded): on [-1/2, 1/2) and [1/2,
# 3/2), s P(s) for s = y and y - 1 (exact), P fits of lgamma(1 + s) / s and lgamma(2 + s) / s,
# relatively accurate at the roots y = 0 and 1 (XLA's Lanczos sum is 5e-7 off there); up to 7, the
# recurrence lgamma(1 + y) = lgamma(y) + log(y) down to [1/2, 3/2), as the log of the product of the
# steps; from 7, Stirling's series (y + 1/2) (log(y) - 1) + (log(2 pi) + 1) / 2 + 1/(12 y) - 1/(360 y^3)
# + 1/(1260 y^5), which overflows from 4.1e36 as lgamma does.
LGAMMA_NEAR_1 = (-0.5772156715393066, 0.8224669098854065, -0.40068519115448, 0.2705939710140228,
                 -0.20739856362342834, 0.16914638876914978, -0.14375907182693481, 0.1309613734483719,
                 -0.11526881158351898, 0.06591259688138962, -0.06409715861082077, 0.17879322171211243,
                 -0.15850330889225006)
LGAMMA_NEAR_2 = (0.42278432846069336, 0.32246702909469604, -0.06735190004110336, 0.020581359043717384,
                 -0.007391972001641989, 0.002880700398236513, -0.0011537885293364525, 0.0005664451164193451,
                 -0.00031235627830028534)
STIRLING = tuple(b / (2 * k * (2 * k - 1)) for k, b in enumerate(BERNOULLI[:3], 1))
LGAMMA_1P_F32 = f"""fn lgamma_1p_f32(y: f32) -> f32 {{
    var z = y;
    var p = 1.0f;
    for (var k = 0i; k < 6i; k++) {{
        let down = z >= 1.5f;
        p = select(p, p * z, down);
        z = select(z, z - 1.0f, down);
    }}
    let near_1 = z < 0.5f;
    let s = select(z - 1.0f, z, near_1);
    let far = y >= 7.0f;
    let l = log_f32(select(p, y, far));
    let near = s * select({horner(LGAMMA_NEAR_2, "s")},
        {horner(LGAMMA_NEAR_1, "s")}, near_1) + l;
    let t = 1.0f / y;
    let u = t * t;
    return select(near, (y + 0.5f) * (l - 1.0f) + ({literal(0.5 * math.log(2 * math.pi) + 0.5, DType.f32)} +
        t * {horner(STIRLING, "u")}), far);
}}"""

# lgamma(x) = log|Gamma(x)|: lgamma(1 + (x - 1)) from 1/2 up, lgamma(1 + x) - log(x) on (0, 1/2), and
# below 0 the reflection log(pi / |sin(pi x)|) - lgamma(1 + -x): x - 1 and -x are exact, as 1 - x is
# not. +inf at 0, the negative integers (every f32 below -2^23) and +-inf; NaN stays.
LGAMMA_F32 = f"""fn lgamma_f32(x: f32) -> f32 {{
    let r = x - round(x);
    let negative = x < 0.0f;
    let g = lgamma_1p_f32(select(select(x, x - 1.0f, x >= 0.5f), -x, negative));
    let l = log_f32(select(x, 3.1415927f / abs(sinpi_f32(r)), negative));
    let v = select(g - select(0.0f, l, x < 0.5f), l - g, negative);
    return select(select(v, {INF}, ((x <= 0.0f) & (r == 0.0f)) | is_inf(x)), x, is_nan(x));
}}"""

# digamma(1 + y) for y >= 0 (`y` exact, so that 1 + y is never rounded). On [0, 1), psi(1 + a) + t P(t)
# for t = y - a, a the f32 nearest the root 0.4616... (exact where it matters), psi(1 + a) (-1.2e-8)
# rounded and P a fit: relatively accurate at the root, where the recurrence cancels. (Not the
# compensated (y - a) - (the root - a): llvmpipe folds its two constants into one.) Up to 5, the
# recurrence psi(1 + y) = psi(y) + 1 / y down to [0, 1); from 5, the asymptotic series log(y) + 1/(2y) -
# 1/(12 y^2) + 1/(120 y^4) - 1/(252 y^6) + 1/(240 y^8).
DIGAMMA_ROOT = (0.4616321325302124, -1.203605215494008e-08)  # a and psi(1 + a)
DIGAMMA_NEAR_ROOT = (0.9676722884178162, -0.44276320934295654, 0.25849705934524536, -0.16393931210041046,
                     0.10788798332214355, -0.07229597866535187, 0.04820582643151283, -0.032094523310661316,
                     0.024815412238240242, -0.020346742123365402, 0.009106055833399296)
DIGAMMA_SERIES = tuple(b / (2 * k) for k, b in enumerate(BERNOULLI[:4], 1))
DIGAMMA_1P_F32 = f"""fn digamma_1p_f32(y: f32) -> f32 {{
    var z = y;
    var s = 0.0f;
    for (var k = 0i; k < 4i; k++) {{
        let down = z >= 1.0f;
        s = select(s, s + 1.0f / z, down);
        z = select(z, z - 1.0f, down);
    }}
    let a = z - {literal(DIGAMMA_ROOT[0], DType.f32)};
    let near = ({literal(DIGAMMA_ROOT[1], DType.f32)} + a * {horner(DIGAMMA_NEAR_ROOT, "a")}) + s;
    let t = 1.0f / y;
    let u = t * t;
    return select(near, log_f32(y) + 0.5f * t - u * {horner(DIGAMMA_SERIES, "u")}, y >= 5.0f);
}}"""

# digamma(x) = Gamma'(x) / Gamma(x): psi(1 + (x - 1)) from 1 up, psi(1 + x) - 1 / x on (0, 1), and
# below 0 the reflection psi(1 + -x) - pi cot(pi x), cot(pi x) = sin(pi (1/2 - |r|)) / sin(pi r) for
# r = x - round(x) (exact; 1/2 - |r| too from |r| = 1/4 up, below rounded by 2^-26 at most, where cos
# is flat). -inf at +-0 (lax.digamma's from jax 0.11 on; NaN before), NaN at the negative integers and
# at -inf; +inf at +inf.
DIGAMMA_F32 = f"""fn digamma_f32(x: f32) -> f32 {{
    let r = x - round(x);
    let negative = x < 0.0f;
    let d = digamma_1p_f32(select(select(x, x - 1.0f, x >= 1.0f), -x, negative));
    let shift = select(select(0.0f, -1.0f / x, x < 1.0f), -3.1415927f * sinpi_f32(0.5f - abs(r)) / sinpi_f32(r),
        negative);
    let undefined = (negative & ((r == 0.0f) | is_inf(x))) | is_nan(x);
    let v = select(select(d + shift, x, is_inf(x)), {literal(-math.inf, DType.f32)}, x == 0.0f);
    return select(v, {NAN}, undefined);
}}"""

# The functions above by name, with the ones each calls.
FUNCTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "is_nan": (IS_NAN, ()),
    "is_inf": (IS_INF, ()),
    "log1p_near_f32": (LOG1P_NEAR_F32, ()),
    "log1p_f32": (LOG1P_F32, ("is_nan", "log_f32", "log1p_near_f32")),
    "scaled_f32": (SCALED_F32, ()),
    "exp_f32": (EXP_F32, ("is_nan", "scaled_f32")),
    "expm1_f32": (EXPM1_F32, ("is_nan", "exp_f32")),
    "atan2_f32": (ATAN2_F32, ("is_nan",)),
    "erf_inv_f32": (ERF_INV_F32, ("is_nan", "log1p_f32", "log_f32")),
    "fmod_f32": (FMOD_F32, ()),
    "tan_f32": (TAN_F32, ("is_inf",)),
    "sine_f32": (SINE_F32, ("is_inf",)),
    "sin_f32": (SIN_F32, ("sine_f32",)),
    "cos_f32": (COS_F32, ("sine_f32",)),
    "tanh_f32": (TANH_F32, ("is_nan",)),
    "log_parts_f32": (LOG_PARTS_F32, ("log1p_near_f32",)),
    "log_f32": (LOG_F32, ("is_nan", "log_parts_f32")),
    "log2_f32": (LOG2_F32, ("is_nan", "log_parts_f32")),
    "pow_positive_f32": (POW_POSITIVE_F32, ("log_parts_f32", "scaled_f32")),
    "power_f32": (POWER_F32, ("is_nan", "pow_positive_f32")),
    "log_add_exp_f32": (LOG_ADD_EXP_F32, ("is_nan", "exp_f32", "log1p_f32")),
    "sinpi_f32": (SINPI_F32, ()),
    "lgamma_1p_f32": (LGAMMA_1P_F32, ("log_f32",)),
    "lgamma_f32": (LGAMMA_F32, ("is_inf", "is_nan", "lgamma_1p_f32", "log_f32", "sinpi_f32")),
    "digamma_1p_f32": (DIGAMMA_1P_F32, ("log_f32",)),
    "digamma_f32": (DIGAMMA_F32, ("digamma_1p_f32", "is_inf", "is_nan", "sinpi_f32")),
}


def function(w: Any, name: str) -> str:
    """Declare the library function `name` (and those it calls) in the kernel `w` writes; returns
    the name to call it by."""
    text, calls = FUNCTIONS[name]
    for called in calls:
        function(w, called)
    return w.function(name, text)


def zeta_tail(s: int, terms: int, precision: float) -> tuple[int, tuple[float, ...]]:
    """The Euler-Maclaurin tail of the Hurwitz zeta function zeta(s, y) = sum over k >= 0 of (y + k)^-s
    for an integer s >= 2: zeta(s, y) ~ y^(1-s) (1/(s-1) + 1/(2y) + sum over j of c_j y^-2j), with
    c_j = B_2j / (2j)! s (s+1) ... (s+2j-2) for j = 1..`terms`. Returns the c_j, and the least n >= 1
    from which the first term left out is below `precision` relative to zeta's first, 1/(s-1) y^(1-s)."""

    def c(j: int) -> float:
        return BERNOULLI[j - 1] / math.factorial(2 * j) * math.prod(range(s, s + 2 * j - 1))

    n = 1
    while abs(c(terms + 1)) * (s - 1) >= precision * n ** (2 * terms + 2):
        n += 1
    return n, tuple(c(j) for j in range(1, terms + 1))


def cot_derivative(m: int) -> tuple[int, ...]:
    """The coefficients (lowest degree first) of the polynomial Q with d^m/du^m cot(u) = Q(cot(u)): Q is
    c for m = 0, and each derivative maps Q to -(1 + c^2) Q'(c)."""
    q: tuple[int, ...] = (0, 1)
    for _ in range(m):
        d = [k * a for k, a in enumerate(q)][1:]
        q = tuple(-a - b for a, b in zip([*d, 0, 0], [0, 0, *d]))
    return q


def polygamma(w: Any, m: int) -> str:
    """Declare `polygamma<m>_f32`, the polygamma function psi^(m)(x) of the static order m >= 1, in the
    kernel `w` writes; returns its name.

    From 0 up, (-1)^(m+1) m! zeta(m + 1, x): the terms (x + k)^-(m+1) summed up to x + k >= n, then the
    tail (`zeta_tail`, four terms; n grows with m), all of one sign. Below 0, the reflection psi^(m)(x) =
    -m! zeta(m + 1, 1 - x) - pi^(m+1) Q(cot(pi x)) (`cot_derivative`), cot from r = x - round(x) (exact)
    as in digamma_f32; for even m the two terms cancel near the half-integers. At 0 and the negative
    integers +inf for odd m, NaN for even m (the two sides' limits differ in sign there); 0 at +inf, NaN
    at -inf. On llvmpipe, for m <= 3: within 6 ulp from 0 up, 11 below (Q(c) takes c's error m + 1 times)."""
    name, s, f32 = f"polygamma{m}_f32", m + 1, DType.f32
    n, tail = zeta_tail(s, 4, 2.0**-26)
    q = cot_derivative(m)
    odd = m % 2 == 1  # Q is even for odd m, odd for even m: a polynomial in c^2, times c for even m
    reflection = horner(q[0::2], "cc") if odd else f"{horner(q[1::2], 'cc')} * c"
    for called in ("is_inf", "is_nan", "sinpi_f32"):
        function(w, called)
    return w.function(name, f"""fn {name}(x: f32) -> f32 {{
    let negative = x < 0.0f;
    var y = select(x, 1.0f - x, negative);
    var sum = 0.0f;
    for (var k = 0i; k < {n}i; k++) {{
        let p = 1.0f / y;
        let low = y < {literal(n, f32)};
        sum = select(sum, sum + {" * ".join(["p"] * s)}, low);
        y = select(y, y + 1.0f, low);
    }}
    let t = 1.0f / y;
    let u = t * t;
    let zeta = sum + {" * ".join(["t"] * (s - 1))} *
        ({literal(1 / (s - 1), f32)} + t * (0.5f + t * {horner(tail, "u")}));
    let r = x - round(x);
    let c = sinpi_f32(0.5f - abs(r)) / sinpi_f32(r);
    let cc = c * c;
    let v = select({literal((-1) ** (m + 1) * math.factorial(m), f32)} * zeta,
        {literal(-math.factorial(m), f32)} * zeta - {literal(math.pi ** (m + 1), f32)} * {reflection}, negative);
    let far = select({NAN}, 0.0f, x > 0.0f);
    let pole = select(v, {INF if odd else NAN}, (x <= 0.0f) & (r == 0.0f));
    return select(select(pole, far, is_inf(x)), x, is_nan(x));  // infinities last: -inf - round(-inf) is NaN
}}""")
