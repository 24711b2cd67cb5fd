"""WGSL functions and conversions that several lowering rules share.

WGSL's max and min return the other operand where one is NaN, and a shader
compiler may fold `x != x` to false; NumPy's maximum and max return NaN. So
NaN and infinity are tested on the bit pattern, which no float rewrite
touches. A rule asks the kernel writer for a function by name (`w.function`),
which emits it once per module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fgrad.ir import DType

IS_NAN = "fn is_nan(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;\n}"
IS_INF = "fn is_inf(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;\n}"

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

# float -> int truncates toward zero and saturates, NaN giving 0 (XLA's convert). The clamp's
# upper bound is the largest f32 below 2^31; NaN is read off the bits.
F32_TO_I32 = """fn f32_to_i32(x: f32) -> i32 {
    let r = select(i32(clamp(x, -2147483648.0f, 2147483520.0f)), 2147483647i, x >= 2147483648.0f);
    return select(r, 0i, is_nan(x));
}"""

# Conversions between dtypes, (from, to) -> a template, and the functions it calls.
CASTS: dict[tuple[DType, DType], tuple[str, dict[str, str]]] = {
    (DType.f32, DType.f32): ("{0}", {}), (DType.i32, DType.i32): ("{0}", {}), (DType.bool, DType.bool): ("{0}", {}),
    (DType.f32, DType.i32): ("f32_to_i32({0})", {"is_nan": IS_NAN, "f32_to_i32": F32_TO_I32}),
    (DType.f32, DType.bool): ("({0} != 0.0f)", {}),
    (DType.i32, DType.f32): ("f32({0})", {}), (DType.i32, DType.bool): ("({0} != 0i)", {}),
    (DType.bool, DType.f32): ("select(0.0f, 1.0f, {0})", {}), (DType.bool, DType.i32): ("select(0i, 1i, {0})", {}),
}


def cast(w: Any, value: str, source: DType, target: DType) -> str:
    """WGSL converting `value` from `source` to `target` by astype's rules (-> bool is != 0)."""
    template, functions = CASTS[source, target]
    for name, text in functions.items():
        w.function(name, text)
    return template.format(value)


def pick(w: Any, which: str, dtype: DType) -> Callable[[str, str], str]:
    """WGSL for the larger (`which` = "max") or smaller ("min") of two values of `dtype`, as
    NumPy's maximum / minimum: NaN wins on floats (where either operand is NaN their sum is);
    on bool they are `or` / `and`."""
    if dtype is DType.bool:
        return lambda a, b: f"({a} {'||' if which == 'max' else '&&'} {b})"
    if not dtype.is_float:
        return lambda a, b: f"{which}({a}, {b})"
    w.function("is_nan", IS_NAN)
    name = w.function(f"{which}_f32", f"fn {which}_f32(a: f32, b: f32) -> f32 {{\n"
                                      f"    return select({which}(a, b), a + b, is_nan(a) | is_nan(b));\n}}")
    return lambda a, b: f"{name}({a}, {b})"
