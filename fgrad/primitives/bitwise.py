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

BITS = 32  # the width of every integer dtype fgrad has


def _unsigned(x: np.ndarray) -> np.ndarray:
    """The bits of an integer array as uint32 (NumPy's cast of a negative int32 keeps its bits)."""
    return np.asarray(x).astype(np.uint32)


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
# one is past the width; a count from 32 up gives 0 for the left and the logical right shift, and
# fills with the sign bit for the arithmetic one. The logical shift works on the bits as u32, the
# arithmetic one as i32, whatever x's dtype. WGSL takes a u32 count and shifts by it modulo 32
# (a constant count from 32 up does not compile): a count known while tracing is written as a
# literal, any other is tested.
def _shift_impl(shift: Callable[[np.ndarray, np.ndarray], np.ndarray], on: np.dtype,
                past: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def impl(x: np.ndarray, s: np.ndarray) -> np.ndarray:
        count = _unsigned(s)
        bits = shift(np.asarray(x).astype(on), np.minimum(count, BITS - 1).astype(on))
        if past == "zero":
            bits = np.where(count >= BITS, on.type(0), bits)
        return bits.astype(x.dtype)

    return impl


def _shift_wgsl(op: str, on: DType | None, past: str) -> Callable[..., str]:
    """`x op s` on the bits of x as `on` (x's own dtype where None). Counts from 32 up give 0
    (`past` = "zero"), or shift by 31 ("sign")."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        dtype = w.spec(i).dtype
        bits = on or dtype
        x = w.operand(i, 0, coords)
        x = x if bits is dtype else f"bitcast<{bits.row.compute}>({x})"
        zero = w.literal(0, bits)
        known = uniform_constant(w.nodes, w.nodes[i].inputs[1])
        if known is not None:
            count = int(known) % 2**BITS
            out = zero if count >= BITS and past == "zero" else f"({x} {op} {min(count, BITS - 1)}u)"
        else:
            count = w.operand(i, 1, coords)
            count = w.let(count if dtype is DType.u32 else f"u32({count})")
            out = (f"select({x} {op} {count}, {zero}, {count} >= {BITS}u)" if past == "zero"
                   else f"({x} {op} min({count}, {BITS - 1}u))")
        return out if bits is dtype else f"bitcast<{dtype.row.compute}>({out})"

    return wgsl


shift_left_p = declare("shift_left", binary("shift_left", INTEGER),
                       _shift_impl(np.left_shift, np.dtype(np.uint32), "zero"))
vjp_rules.register(shift_left_p, nondiff)
jvp_rules.register(shift_left_p, nondiff_jvp)
batch_rules.register(shift_left_p, elementwise_batching(shift_left_p))
register_lowering(shift_left_p, ELEMENTWISE, _shift_wgsl("<<", None, "zero"))
shift_right_logical_p = declare("shift_right_logical", binary("shift_right_logical", INTEGER),
                                _shift_impl(np.right_shift, np.dtype(np.uint32), "zero"))
vjp_rules.register(shift_right_logical_p, nondiff)
jvp_rules.register(shift_right_logical_p, nondiff_jvp)
batch_rules.register(shift_right_logical_p, elementwise_batching(shift_right_logical_p))
register_lowering(shift_right_logical_p, ELEMENTWISE, _shift_wgsl(">>", DType.u32, "zero"))
shift_right_arithmetic_p = declare("shift_right_arithmetic", binary("shift_right_arithmetic", INTEGER),
                                   _shift_impl(np.right_shift, np.dtype(np.int32), "sign"))
vjp_rules.register(shift_right_arithmetic_p, nondiff)
jvp_rules.register(shift_right_arithmetic_p, nondiff_jvp)
batch_rules.register(shift_right_arithmetic_p, elementwise_batching(shift_right_arithmetic_p))
register_lowering(shift_right_arithmetic_p, ELEMENTWISE, _shift_wgsl(">>", DType.i32, "sign"))

# population_count: the number of bits set (of the two's complement bits for i32, as lax's).
population_count_p = declare("population_count", unary("population_count", INTEGER),
                             lambda x: np.bitwise_count(_unsigned(x)).astype(x.dtype))
vjp_rules.register(population_count_p, nondiff)
jvp_rules.register(population_count_p, nondiff_jvp)
batch_rules.register(population_count_p, elementwise_batching(population_count_p))
register_lowering(population_count_p, ELEMENTWISE, "countOneBits({0})")


# clz: the number of leading zero bits (32 for 0). frexp's exponent of a u32 is its bit length.
def _clz_impl(x: np.ndarray) -> np.ndarray:
    return (BITS - np.frexp(_unsigned(x).astype(np.float64))[1]).astype(x.dtype)


clz_p = declare("clz", unary("clz", INTEGER), _clz_impl)
vjp_rules.register(clz_p, nondiff)
jvp_rules.register(clz_p, nondiff_jvp)
batch_rules.register(clz_p, elementwise_batching(clz_p))
register_lowering(clz_p, ELEMENTWISE, "countLeadingZeros({0})")


# bitcast_convert_type: the bits of x read as `new_dtype`, of the same width: f32, i32 and u32
# among themselves (f16 has no 16-bit integer in fgrad; bool has no bits to give).
BIT_CASTS = (DType.f32, DType.i32, DType.u32)


def _bitcast_rule(x: Spec, *, new_dtype: DType) -> Spec:
    if x.dtype not in BIT_CASTS or new_dtype not in BIT_CASTS:
        raise DTypeError(f"bitcast_convert_type: cannot read the bits of {x} as {new_dtype}: fgrad bit casts between "
                         "f32, i32 and u32 (not JAX's casts between widths: fgrad has no 16-bit integer for f16)")
    return Spec(x.shape, new_dtype)


def _bitcast_impl(x: np.ndarray, *, new_dtype: DType) -> np.ndarray:
    # In interpret's float64 mode an f32 value arrives as float64: its bits are those of the f32.
    return x.astype(DType.of(x.dtype).np).view(new_dtype.np)  # astype copies: contiguous, so viewable


bitcast_convert_type_p = declare("bitcast_convert_type", _bitcast_rule, _bitcast_impl)
vjp_rules.register(bitcast_convert_type_p, nondiff)
jvp_rules.register(bitcast_convert_type_p, nondiff_jvp)
batch_rules.register(bitcast_convert_type_p, elementwise_batching(bitcast_convert_type_p))
register_lowering(bitcast_convert_type_p, ELEMENTWISE,
                  lambda w, i, c: f"bitcast<{w.spec(i).dtype.row.compute}>({w.operand(i, 0, c)})")
