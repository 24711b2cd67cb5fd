"""Bitwise primitives: and, or, xor, not, shifts, bit counts, and bit casts between dtypes of one width.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py). They take integer operands (i32, u32); bools
have the logical primitives (fgrad/primitives/elementwise.py). None has a derivative.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import DTypeError
from fgrad.ir import DType, Spec, declare
from fgrad.lower.kinds import ELEMENTWISE, register_lowering
from fgrad.transforms.autodiff import nondiff, vjp_rules
from fgrad.transforms.batching import batch_rules, elementwise_batching
from fgrad.transforms.forward import jvp_rules, nondiff_jvp
from fgrad.transforms.passes import uniform_constant

from fgrad.primitives.abstract_eval import INTEGER, binary, unary

__all__ = [  # re-exported by fgrad.primitives
    "bitcast_convert_type_p", "bitwise_and_p", "bitwise_not_p", "bitwise_or_p", "bitwise_xor_p", "clz_p",
    "population_count_p", "shift_left_p", "shift_right_arithmetic_p", "shift_right_logical_p",
]


def _width(dtype: Any) -> int:
    """The bits of an integer dtype's values (8 for an i8, which a kernel holds in an i32)."""
    return np.dtype(dtype).itemsize * 8


def _unsigned(x: np.ndarray) -> np.ndarray:
    """The bits of an integer array as the unsigned integers of its width (NumPy's cast of a
    negative int keeps its bits)."""
    x = np.asarray(x)
    return x.astype(f"u{x.dtype.itemsize}")


def _mask(dtype: DType, x: str) -> str:
    """WGSL: the bits of the integer `x` of `dtype` as a u32, the bits above its width cleared (an
    i8 is held sign-extended in an i32, a u8 zero-extended in a u32)."""
    width = _width(dtype.np)
    if dtype.kind == "u":
        return x
    return f"bitcast<u32>({x})" if width == 32 else f"(bitcast<u32>({x}) & {(1 << width) - 1:#x}u)"


def _sign_extended(x: str, width: int) -> str:
    """WGSL: the low `width` bits of the 32-bit integer `x` as an i32, the bits above them its sign."""
    return f"bitcast<i32>({x})" if width == 32 else f"((bitcast<i32>({x}) << {32 - width}u) >> {32 - width}u)"


# bitwise_and, bitwise_or, bitwise_xor: on the bits of two integers of one dtype.
bitwise_and_p = declare("bitwise_and", binary("bitwise_and", INTEGER), np.bitwise_and)
vjp_rules.register(bitwise_and_p, nondiff)
jvp_rules.register(bitwise_and_p, nondiff_jvp)
batch_rules.register(bitwise_and_p, elementwise_batching(bitwise_and_p))
register_lowering(bitwise_and_p, ELEMENTWISE, "({0} & {1})")
bitwise_or_p = declare("bitwise_or", binary("bitwise_or", INTEGER), np.bitwise_or)
vjp_rules.register(bitwise_or_p, nondiff)
jvp_rules.register(bitwise_or_p, nondiff_jvp)
batch_rules.register(bitwise_or_p, elementwise_batching(bitwise_or_p))
register_lowering(bitwise_or_p, ELEMENTWISE, "({0} | {1})")
bitwise_xor_p = declare("bitwise_xor", binary("bitwise_xor", INTEGER), np.bitwise_xor)
vjp_rules.register(bitwise_xor_p, nondiff)
jvp_rules.register(bitwise_xor_p, nondiff_jvp)
batch_rules.register(bitwise_xor_p, elementwise_batching(bitwise_xor_p))
register_lowering(bitwise_xor_p, ELEMENTWISE, "({0} ^ {1})")

# bitwise_not: every bit flipped (-x - 1 on i32).
bitwise_not_p = declare("bitwise_not", unary("bitwise_not", INTEGER), np.invert)
vjp_rules.register(bitwise_not_p, nondiff)
jvp_rules.register(bitwise_not_p, nondiff_jvp)
batch_rules.register(bitwise_not_p, elementwise_batching(bitwise_not_p))
register_lowering(bitwise_not_p, ELEMENTWISE, "(~{0})")


# Shifts, as XLA's (so jax.lax's): the count, of x's dtype, is read as unsigned, so a negative
# one is past the width; a count from the width up (32 for an i32, 8 for an i8) gives 0 for the
# left and the logical right shift, and fills with the sign bit for the arithmetic one. The logical
# shift works on the bits as unsigned, the arithmetic one as signed, whatever x's dtype. WGSL
# takes a u32 count and shifts by it modulo 32 (a constant count from 32 up does not compile): a
# count known while tracing is written as a literal, any other is tested. A narrower integer,
# held in 32 bits, is shifted there with its bits above the width cleared (a logical shift) or
# filled with its sign (an arithmetic one), the result wrapped back to the width.
def _shift_impl(shift: Callable[[np.ndarray, np.ndarray], np.ndarray], kind: str,
                past: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def impl(x: np.ndarray, s: np.ndarray) -> np.ndarray:
        width = _width(x.dtype)
        on = np.dtype(f"{kind}{width // 8}")
        count = _unsigned(s)
        bits = shift(np.asarray(x).astype(on), np.minimum(count, width - 1).astype(on))
        if past == "zero":
            bits = np.where(count >= width, on.type(0), bits)
        return bits.astype(x.dtype)

    return impl


def _shift_wgsl(op: str, kind: str | None, past: str) -> Callable[..., str]:
    """`x op s` on the bits of x as unsigned (`kind` "u") or signed ("i") integers, or as x's own
    dtype (None). Counts from the width up give 0 (`past` = "zero"), or shift by the width less one
    ("sign")."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        dtype = w.spec(i).dtype
        width = _width(dtype.np)
        x = w.operand(i, 0, coords)
        on = dtype if kind is None or kind == dtype.kind else DType.u32 if kind == "u" else DType.i32
        if on is not dtype:
            x = _mask(dtype, x) if kind == "u" else _sign_extended(x, width)
        zero = w.literal(0, on)
        known = uniform_constant(w.nodes, w.nodes[i].inputs[1])
        if known is not None:
            count = int(known) % 2**width
            out = zero if count >= width and past == "zero" else f"({x} {op} {min(count, width - 1)}u)"
        else:
            count = w.operand(i, 1, coords)
            count = w.let(count if dtype.kind == "u" else f"u32({count})")
            out = (f"select({x} {op} {count}, {zero}, {count} >= {width}u)" if past == "zero"
                   else f"({x} {op} min({count}, {width - 1}u))")
        return out if on is dtype else f"bitcast<{dtype.row.compute}>({out})"

    return wgsl


shift_left_p = declare("shift_left", binary("shift_left", INTEGER), _shift_impl(np.left_shift, "u", "zero"))
vjp_rules.register(shift_left_p, nondiff)
jvp_rules.register(shift_left_p, nondiff_jvp)
batch_rules.register(shift_left_p, elementwise_batching(shift_left_p))
register_lowering(shift_left_p, ELEMENTWISE, _shift_wgsl("<<", None, "zero"))
shift_right_logical_p = declare("shift_right_logical", binary("shift_right_logical", INTEGER),
                                _shift_impl(np.right_shift, "u", "zero"))
vjp_rules.register(shift_right_logical_p, nondiff)
jvp_rules.register(shift_right_logical_p, nondiff_jvp)
batch_rules.register(shift_right_logical_p, elementwise_batching(shift_right_logical_p))
register_lowering(shift_right_logical_p, ELEMENTWISE, _shift_wgsl(">>", "u", "zero"))
shift_right_arithmetic_p = declare("shift_right_arithmetic", binary("shift_right_arithmetic", INTEGER),
                                   _shift_impl(np.right_shift, "i", "sign"))
vjp_rules.register(shift_right_arithmetic_p, nondiff)
jvp_rules.register(shift_right_arithmetic_p, nondiff_jvp)
batch_rules.register(shift_right_arithmetic_p, elementwise_batching(shift_right_arithmetic_p))
register_lowering(shift_right_arithmetic_p, ELEMENTWISE, _shift_wgsl(">>", "i", "sign"))


def _count_wgsl(count: str, ones: bool) -> Callable[..., str]:
    """WGSL's `count` (countOneBits, countLeadingZeros) of an integer; of a narrower one, of its own
    bits (the leading zeros less those of the bits above its width)."""

    def wgsl(w: Any, i: int, c: Sequence[str]) -> str:
        dtype, x = w.spec(i).dtype, w.operand(i, 0, c)
        width = _width(dtype.np)
        if width == 32:
            return f"{count}({x})"
        return f"{dtype.row.compute}({count}({_mask(dtype, x)}){'' if ones else f' - {32 - width}u'})"

    return wgsl


# population_count: the number of bits set (of the two's complement bits for signed integers, as lax's).
population_count_p = declare("population_count", unary("population_count", INTEGER),
                             lambda x: np.bitwise_count(_unsigned(x)).astype(x.dtype))
vjp_rules.register(population_count_p, nondiff)
jvp_rules.register(population_count_p, nondiff_jvp)
batch_rules.register(population_count_p, elementwise_batching(population_count_p))
register_lowering(population_count_p, ELEMENTWISE, _count_wgsl("countOneBits", ones=True))


# clz: the number of leading zero bits of the dtype's width (32 for an i32 0, 8 for an i8 0).
# frexp's exponent of an unsigned value is its bit length.
def _clz_impl(x: np.ndarray) -> np.ndarray:
    return (_width(x.dtype) - np.frexp(_unsigned(x).astype(np.float64))[1]).astype(x.dtype)


clz_p = declare("clz", unary("clz", INTEGER), _clz_impl)
vjp_rules.register(clz_p, nondiff)
jvp_rules.register(clz_p, nondiff_jvp)
batch_rules.register(clz_p, elementwise_batching(clz_p))
register_lowering(clz_p, ELEMENTWISE, _count_wgsl("countLeadingZeros", ones=False))


# bitcast_convert_type: the bits of x read as `new_dtype`, of the same width: f32, i32 and u32;
# f16, bf16, i16 and u16; i8 and u8 (bool has no bits to give). A kernel moves the bits through a
# u32 holding them in its low bits (TO_BITS, FROM_BITS: a bfloat16 is an f32's upper half; an f16's
# pass through WGSL's f16 packing, as naga bit casts no vector of f16).
BIT_CASTS = ((DType.f32, DType.i32, DType.u32), (DType.f16, DType.bf16, DType.i16, DType.u16), (DType.i8, DType.u8))
TO_BITS = {DType.f32: "bitcast<u32>({0})", DType.f16: "pack2x16float(vec2<f32>(f32({0}), 0.0f))",
           DType.bf16: "(bitcast<u32>({0}) >> 16u)", **{d: _mask(d, "{0}") for d in DType if d.is_int}}
FROM_BITS = {DType.f32: "bitcast<f32>({0})", DType.f16: "f16(unpack2x16float({0}).x)",
             DType.bf16: "bitcast<f32>({0} << 16u)",
             **{d: "{0}" if d.kind == "u" else _sign_extended("{0}", _width(d.np)) for d in DType if d.is_int}}


def _bitcast_rule(x: Spec, *, new_dtype: DType) -> Spec:
    if not any(x.dtype in group and new_dtype in group for group in BIT_CASTS):
        groups = "; ".join(", ".join(map(str, group)) for group in BIT_CASTS)
        raise DTypeError(f"bitcast_convert_type: cannot read the bits of {x} as {new_dtype}: fgrad bit casts between "
                         f"dtypes of one width ({groups}), not JAX's casts between widths")
    return Spec(x.shape, new_dtype)


def _bitcast_impl(x: np.ndarray, *, new_dtype: DType) -> np.ndarray:
    # In interpret's float64 mode a float arrives as float64: its bits are those of its own dtype's
    # value, which the spec's dtype of the same width as new_dtype names.
    width = new_dtype.itemsize
    own = x.dtype if x.dtype.itemsize == width else next(d for g in BIT_CASTS for d in g
                                                          if d.itemsize == width and d.kind == x.dtype.kind).np
    return x.astype(own).view(new_dtype.np)  # astype copies: contiguous, so viewable


def _bitcast_wgsl(w: Any, i: int, c: Sequence[str]) -> str:
    have, want = w.spec(w.nodes[i].inputs[0]).dtype, w.spec(i).dtype
    x = w.operand(i, 0, c)
    if have.itemsize == want.itemsize == 4:  # f32, i32 and u32: one bitcast
        return f"bitcast<{want.row.compute}>({x})"
    return FROM_BITS[want].format(w.let(TO_BITS[have].format(x)))


bitcast_convert_type_p = declare("bitcast_convert_type", _bitcast_rule, _bitcast_impl, bits=True)
vjp_rules.register(bitcast_convert_type_p, nondiff)
jvp_rules.register(bitcast_convert_type_p, nondiff_jvp)
batch_rules.register(bitcast_convert_type_p, elementwise_batching(bitcast_convert_type_p))
register_lowering(bitcast_convert_type_p, ELEMENTWISE, _bitcast_wgsl)
