"""Op-table rows: bitwise."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, H, I, U, Case

# Values and shift counts at the edges: the sign bit, all ones, and counts of 0, 31, 32 and past
# it, negative ones (read as unsigned, so past the width), as jax.lax documents them.
X_EDGES = np.array([1, -8, 2**31 - 1, -2**31, 5, -1, 7, 3], np.int32)
COUNTS = np.array([0, 1, 31, 32, 33, -1, 100, 4], np.int32)
U_EDGES = X_EDGES.astype(np.uint32)
U_COUNTS = COUNTS.astype(np.uint32)
# f32 bit patterns: zeros of both signs, ones, the largest finite, infinities, NaN, a subnormal.
FLOAT_EDGES = np.array([0.0, -0.0, 1.0, -2.5, 3.4028235e38, np.inf, -np.inf, np.nan, 1e-40], np.float32)
BIT_PATTERNS = np.array([0, 1065353216, -1075838976, 2139095040, -8388608, 1, 0x00400000, -1], np.int32)


def _shift_ref(kind: str):
    """x shifted by s as jax.lax's shifts, on Python integers: the count read as u32; a left or
    logical right shift by 32 or more gives 0, an arithmetic one the sign."""

    def ref(x: np.ndarray, s: np.ndarray) -> np.ndarray:
        x, s = np.broadcast_arrays(x, s)
        out = []
        for v, c in zip(x.ravel().tolist(), s.ravel().tolist()):
            c %= 2**32
            bits = v % 2**32
            signed = bits - 2**32 if bits >= 2**31 else bits
            if kind == "left":
                r = (bits << c) % 2**32 if c < 32 else 0
            elif kind == "logical":
                r = bits >> c if c < 32 else 0
            else:
                r = (signed >> min(c, 31)) % 2**32
            out.append(r)
        return np.array(out, np.uint64).astype(np.uint32).astype(x.dtype).reshape(x.shape)

    return ref


def popcount_ref(x: np.ndarray) -> np.ndarray:
    return np.array([bin(v % 2**32).count("1") for v in x.ravel().tolist()], x.dtype).reshape(x.shape)


def clz_ref(x: np.ndarray) -> np.ndarray:
    return np.array([32 - (v % 2**32).bit_length() for v in x.ravel().tolist()], x.dtype).reshape(x.shape)


def bitcast_ref(dtype):
    # The reference's f32 inputs arrive as float64: their bits are those of the f32 values.
    return lambda x: (x.astype(np.float32) if x.dtype == np.float64 else x).view(dtype)


OP_ROWS: tuple[Case, ...] = (  # every new primitive's rows (value, WGSL, VJP)
    Case("bitwise_and", "i32", fg.bitwise_and, (I(3, 4, lo=-100, hi=100), I(4, lo=-100, hi=100)), np.bitwise_and),
    Case("bitwise_and", "edges", fg.bitwise_and, (X_EDGES, COUNTS), np.bitwise_and),
    Case("bitwise_and", "operator-python-int", lambda x: x & 0xF0, (I(5, lo=-300, hi=300),), lambda x: x & 0xF0,
         eager=False),
    Case("bitwise_or", "i32", fg.bitwise_or, (I(2, 3, lo=-50, hi=50), I(1, 3, lo=-50, hi=50)), np.bitwise_or),
    Case("bitwise_or", "operator-reflected", lambda x: 6 | x, (I(4),), lambda x: 6 | x, eager=False),
    Case("bitwise_xor", "i32", fg.bitwise_xor, (X_EDGES, COUNTS), np.bitwise_xor),
    Case("bitwise_xor", "operator-scalar", lambda x, y: x ^ y, (I(), I(3)), np.bitwise_xor, eager=False),
    Case("bitwise_not", "i32", fg.bitwise_not, (X_EDGES,), np.invert),
    Case("bitwise_not", "operator", lambda x: ~x, (I(2, 3),), np.invert, eager=False),
    Case("shift_left", "i32-edges", fg.left_shift, (X_EDGES, COUNTS), _shift_ref("left")),
    Case("shift_left", "operator-static-count", lambda x: x << 3, (X_EDGES,), lambda x: _shift_ref("left")(x, 3),
         eager=False),
    Case("shift_left", "static-count-past-width", lambda x: fg.left_shift(x, 40), (X_EDGES,), lambda x: x * 0),
    Case("shift_left", "bools-count-as-i32", fg.left_shift, (B(5), B(5)),
         lambda x, y: x.astype(np.int32) << y.astype(np.int32)),
    Case("shift_right_arithmetic", "i32-edges", fg.right_shift, (X_EDGES, COUNTS), _shift_ref("arithmetic")),
    Case("shift_right_arithmetic", "operator-static-count", lambda x: x >> 2, (X_EDGES,),
         lambda x: _shift_ref("arithmetic")(x, 2), eager=False),
    Case("shift_right_arithmetic", "static-negative-count", lambda x: fg.right_shift(x, -1), (X_EDGES,),
         lambda x: np.where(x < 0, -1, 0)),
    Case("shift_right_logical", "i32-edges", fg.lax.shift_right_logical, (X_EDGES, COUNTS), _shift_ref("logical")),
    Case("shift_right_logical", "i32-static-count", lambda x: fg.lax.shift_right_logical(x, 28), (X_EDGES,),
         lambda x: _shift_ref("logical")(x, 28)),
    Case("population_count", "i32", fg.lax.population_count, (X_EDGES,), popcount_ref),
    Case("clz", "i32", fg.lax.clz, (X_EDGES,), clz_ref),
    Case("bitcast_convert_type", "f32-to-i32", lambda x: fg.lax.bitcast_convert_type(x, "i32"), (FLOAT_EDGES,),
         bitcast_ref(np.int32)),
    Case("bitcast_convert_type", "scalar", lambda x: fg.lax.bitcast_convert_type(x, "u32"), (F(),),
         bitcast_ref(np.uint32)),
    Case("bitcast_convert_type", "i32-to-f32", lambda x: fg.lax.bitcast_convert_type(x, "f32"), (BIT_PATTERNS,),
         bitcast_ref(np.float32)),
)
API_ROWS: tuple[Case, ...] = (  # composites and argument forms of the public functions
    # On bools the bitwise functions and operators are the logical ones, as in NumPy.
    Case("logical_and", "bitwise_and-bools", fg.bitwise_and, (B(2, 3), B(3)), np.logical_and),
    Case("logical_or", "bitwise_or-bools", fg.bitwise_or, (B(4), B(4)), np.logical_or),
    Case("ne", "bitwise_xor-bools", fg.bitwise_xor, (B(3, 1), B(4)), np.logical_xor),
    Case("ne", "xor-operator-bools", lambda x, y: x ^ y, (B(4), B(4)), np.logical_xor, eager=False),
    Case("logical_not", "invert-bools", fg.invert, (B(5),), np.logical_not),
    Case("logical_not", "invert-operator-bools", lambda x: ~x, (B(5),), np.logical_not, eager=False),
    Case("bitwise_and", "bool-and-i32-promotes", fg.bitwise_and, (B(4), I(4)), lambda x, y: x.astype(np.int32) & y),
    Case("bitwise_not", "bitwise_invert", fg.bitwise_invert, (I(3),), np.invert),
    Case("shift_left", "bitwise_left_shift", fg.bitwise_left_shift, (I(3, lo=-9, hi=9), I(3, lo=0, hi=5)),
         np.left_shift),
    Case("shift_right_arithmetic", "bitwise_right_shift", fg.bitwise_right_shift,
         (I(3, lo=-99, hi=99), I(1, lo=0, hi=5)), np.right_shift),
    # |x|'s bits, as NumPy's, a uint8 as jax.numpy's.
    Case("population_count", "bitwise_count-i32", fg.bitwise_count, (X_EDGES,),
         lambda x: popcount_ref(np.abs(x.astype(np.int64))).astype(np.uint8)),
    Case("population_count", "bitwise_count-bool", fg.bitwise_count, (B(4),), lambda x: x.astype(np.uint8)),
    # The exponent field of an f32, fused with the bit cast.
    Case("bitcast_convert_type", "exponent-bits", lambda x: (fg.lax.bitcast_convert_type(x, "i32") >> 23) & 0xFF,
         (F(2, 3, lo=-1e6, hi=1e6),), lambda x: (x.astype(np.float32).view(np.int32) >> 23) & 0xFF, eager=False),
)
F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("bitcast_convert_type", "f16-bits", lambda x: fg.lax.bitcast_convert_type(x, "u16"), (H(2, 3),),
         lambda x: x.view(np.uint16)),
    Case("bitcast_convert_type", "bits-to-f16", lambda x: fg.lax.bitcast_convert_type(x, "f16"),
         (np.array([0x3C00, 0x7BFF, 0x8001, 0xFC00], np.uint16).view(np.int16).reshape(2, 2),),
         lambda x: x.view(np.float16)),
)
U32_ROWS: tuple[Case, ...] = (  # u32 rows of integer primitives
    Case("bitwise_and", "u32", fg.bitwise_and, (U(3, hi=2**32 - 1), U(3, hi=2**32 - 1)), np.bitwise_and),
    Case("bitwise_and", "u32-python-int", lambda x: fg.bitwise_and(x, 0xFFFF0000), (U(3, hi=2**32 - 1),),
         lambda x: x & np.uint32(0xFFFF0000)),
    Case("bitwise_or", "u32", fg.bitwise_or, (U(2, 3, hi=2**32 - 1), U(3, hi=2**32 - 1)), np.bitwise_or),
    Case("bitwise_or", "u32-i32-promotes", fg.bitwise_or, (U(3), I(3)), lambda x, y: x.astype(np.int32) | y),
    Case("bitwise_xor", "u32", fg.bitwise_xor, (U_EDGES, U_COUNTS), np.bitwise_xor),
    Case("bitwise_not", "u32", fg.bitwise_not, (U_EDGES,), np.invert),
    Case("shift_left", "u32-edges", fg.left_shift, (U_EDGES, U_COUNTS), _shift_ref("left")),
    Case("shift_right_logical", "right_shift-u32-edges", fg.right_shift, (U_EDGES, U_COUNTS), _shift_ref("logical")),
    Case("shift_right_logical", "u32-operator-static", lambda x: x >> 31, (U_EDGES,), lambda x: x >> 31, eager=False),
    Case("shift_right_arithmetic", "u32-edges", fg.lax.shift_right_arithmetic, (U_EDGES, U_COUNTS),
         _shift_ref("arithmetic")),
    Case("population_count", "u32", fg.lax.population_count, (U_EDGES,), popcount_ref),
    Case("clz", "u32", fg.lax.clz, (U_EDGES,), clz_ref),
    Case("bitcast_convert_type", "f32-to-u32", lambda x: fg.lax.bitcast_convert_type(x, "u32"), (FLOAT_EDGES,),
         bitcast_ref(np.uint32)),
    Case("bitcast_convert_type", "u32-to-f32", lambda x: fg.lax.bitcast_convert_type(x, fg.f32), (U_EDGES,),
         bitcast_ref(np.float32)),
    Case("bitcast_convert_type", "u32-to-i32", lambda x: fg.lax.bitcast_convert_type(x, "i32"), (U_EDGES,),
         bitcast_ref(np.int32)),
)
