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

from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.ir import DType

IS_NAN = "fn is_nan(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;\n}"
IS_INF = "fn is_inf(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;\n}"
FLOAT_TESTS = {"is_nan": IS_NAN, "is_inf": IS_INF}

# x^y as C's pow. WGSL's pow is exp2(y log2(x)), undefined for x < 0 and at 0 (llvmpipe
# gives 0^-1 = 0): it serves |x| in (0, inf), and selects give every special case.
POWER_F32 = """fn power_f32(x: f32, y: f32) -> f32 {
    let ax = abs(x);
    let inf = bitcast<f32>(0x7f800000u);
    let integral = floor(y) == y;
    let odd = integral & (floor(y * 0.5f) != y * 0.5f);
    let edge = select(0.0f, inf, (ax == 0.0f) == (y < 0.0f));
    var r = select(pow(ax, y), edge, (ax == 0.0f) | (ax == inf));
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
