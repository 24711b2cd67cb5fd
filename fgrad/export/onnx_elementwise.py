"""ONNX export rules of the elementwise and bitwise primitives (fgrad/primitives/elementwise.py, bitwise.py)
and of constants: f16 in f32, integer arithmetic in int64 and wrapped back, special functions in f64."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from onnx import TensorProto

from fgrad.export.onnx import dtype_of, onnx_rules
from fgrad.ir import constant_p
from fgrad.primitives import (
    abs_p, acosh_p, add_p, asinh_p, astype_p, atan2_p, atanh_p, bitwise_and_p, bitwise_not_p, bitwise_or_p,
    bitwise_xor_p, cbrt_p, ceil_p, clz_p, cos_p, cosh_p, div_p, eq_p, erf_p, exp2_p, exp_p, expm1_p, floor_p, ge_p,
    gelu_p, gt_p, integer_pow_p, iota_p, isinf_p, isnan_p, le_p, log1p_p, log2_p, log_p, logaddexp_p, logical_and_p,
    logical_not_p, logical_or_p, lt_p, maximum_p, minimum_p, mul_p, ne_p, neg_p, population_count_p, pow_p, relu_p,
    rem_p, round_p, rsqrt_p, shift_left_p, shift_right_arithmetic_p, shift_right_logical_p, sigmoid_p, sign_p,
    silu_p, sin_p, sinh_p, sqrt_p, stop_gradient_p, sub_p, tan_p, tanh_p, where_p,
)
from fgrad.primitives.elementwise import GELU_A, GELU_C

F16, F32, F64 = TensorProto.FLOAT16, TensorProto.FLOAT, TensorProto.DOUBLE
I64, BOOL = TensorProto.INT64, TensorProto.BOOL
I32, U32, U64 = TensorProto.INT32, TensorProto.UINT32, TensorProto.UINT64


def _cast(emit: Any, name: str, to: int) -> str:
    return emit.op("Cast", [name], to=to)


def _computed(emit: Any, node: Any, inputs: list[str], fn: Callable[..., str]) -> str:
    """`fn` over the operands in the node's computing dtype: f32 for f16, int64 for integers (so
    that results wrap when cast back), the node's own otherwise; the result cast to the node's."""
    out = dtype_of(node)
    kind = node.spec.dtype.kind
    wide = F32 if out == F16 else I64 if kind in "iu" else out
    y = fn(*(_cast(emit, x, wide) if wide != out else x for x in inputs))
    return _cast(emit, y, out) if wide != out else y


def _like(emit: Any, value: Any, node: Any) -> str:
    """A scalar constant in the dtype `_computed` computes the node in."""
    kind = node.spec.dtype.kind
    dtype = np.float32 if node.spec.dtype.np == np.float16 else np.int64 if kind in "iu" else node.spec.dtype.np
    return emit.const(value, dtype)


def _expand(emit: Any, name: str, shape: tuple[int, ...]) -> str:
    return emit.op("Expand", [name, emit.const(np.array(shape, np.int64))])


# constant: the array, or one element expanded where all are equal.
def _constant(emit: Any, node: Any, inputs: list[str], *, value: Any) -> str:
    array = value.array
    if array.dtype != node.spec.dtype.np:  # a bfloat16 constant held in an f32 (onnx._held)
        array = array.astype(node.spec.dtype.np)
    if array.size > 1 and not any(array.strides):
        return _expand(emit, emit.const(array.reshape(-1)[:1].reshape(()), array.dtype), array.shape)
    return emit.const(np.array(array), array.dtype)  # a copy in C order that keeps a 0-d shape


onnx_rules.register(constant_p, _constant)


# iota: the count along `axis`, expanded to `shape`, in the dtype the node is computed in (onnx._held).
def _iota(emit: Any, node: Any, inputs: list[str], *, shape: tuple[int, ...], axis: int, dtype: Any) -> str:
    count = np.arange(shape[axis], dtype=node.spec.dtype.np)
    count = count.reshape([-1 if i == axis else 1 for i in range(len(shape))])
    return _expand(emit, emit.const(count), shape)


onnx_rules.register(iota_p, _iota)


def _unary(op_type: str) -> Callable[..., str]:
    return lambda emit, node, inputs: _computed(emit, node, inputs, lambda x: emit.op(op_type, [x]))


def _binary(op_type: str) -> Callable[..., str]:
    return lambda emit, node, inputs: _computed(emit, node, inputs, lambda x, y: emit.op(op_type, [x, y]))


# add, sub, mul: integers in int64, wrapping when cast back; bools (add and mul of bools) as or / and.
for primitive, op_type, logic in ((add_p, "Add", "Or"), (sub_p, "Sub", None), (mul_p, "Mul", "And")):
    onnx_rules.register(primitive, lambda emit, node, inputs, op_type=op_type, logic=logic: (
        emit.op(logic, inputs) if node.spec.dtype.kind == "b" else _binary(op_type)(emit, node, inputs)))


# div: floats divide; integers truncate toward zero, x / 0 is -1 (the largest u32), INT_MIN / -1 wraps.
def _div(emit: Any, node: Any, inputs: list[str]) -> str:
    def integer(x: str, y: str) -> str:
        zero = emit.op("Equal", [y, emit.const(0, np.int64)])
        q = emit.op("Div", [x, emit.op("Where", [zero, emit.const(1, np.int64), y])])
        return emit.op("Where", [zero, emit.const(-1, np.int64), q])

    is_int = node.spec.dtype.kind in "iu"
    return _computed(emit, node, inputs, integer if is_int else lambda x, y: emit.op("Div", [x, y]))


onnx_rules.register(div_p, _div)


# rem: C's fmod (x's sign; NaN for y = 0 on floats, x for y = 0 on integers).
def _rem(emit: Any, node: Any, inputs: list[str]) -> str:
    def integer(x: str, y: str) -> str:
        zero = emit.op("Equal", [y, emit.const(0, np.int64)])
        r = emit.op("Mod", [x, emit.op("Where", [zero, emit.const(1, np.int64), y])], fmod=1)
        return emit.op("Where", [zero, x, r])

    is_int = node.spec.dtype.kind in "iu"
    return _computed(emit, node, inputs, integer if is_int else lambda x, y: emit.op("Mod", [x, y], fmod=1))


onnx_rules.register(rem_p, _rem)

# neg and abs: integers in int64, wrapping back (-INT_MIN and |INT_MIN| are INT_MIN; -x of a u32 is 2^32 - x).
onnx_rules.register(neg_p, _unary("Neg"))
onnx_rules.register(abs_p, _unary("Abs"))

# Float functions with an ONNX operator of the same meaning.
for primitive, op_type in ((exp_p, "Exp"), (log_p, "Log"), (sqrt_p, "Sqrt"), (tanh_p, "Tanh"), (sigmoid_p, "Sigmoid"),
                           (sin_p, "Sin"), (cos_p, "Cos"), (floor_p, "Floor"), (ceil_p, "Ceil"), (round_p, "Round"),
                           (erf_p, "Erf")):
    onnx_rules.register(primitive, _unary(op_type))

# tan (sin / cos), log2, exp2 and pow: computed in float64 and rounded once (so log2 and exp2 are
# exact at integers; onnxruntime's Pow is C's pow, which pow's impl follows).
def _in_f64(fn: Callable[..., str]) -> Callable[..., str]:
    def rule(emit: Any, node: Any, inputs: list[str]) -> str:
        return _cast(emit, fn(emit, *(_cast(emit, x, F64) for x in inputs)), dtype_of(node))

    return rule


onnx_rules.register(tan_p, _in_f64(lambda emit, x: emit.op("Div", [emit.op("Sin", [x]), emit.op("Cos", [x])])))
onnx_rules.register(log2_p, _in_f64(lambda emit, x: emit.op("Div", [emit.op("Log", [x]), emit.const(np.log(2.0))])))
onnx_rules.register(exp2_p, _in_f64(lambda emit, x: emit.op("Pow", [emit.const(2.0), x])))
onnx_rules.register(pow_p, _in_f64(lambda emit, x, y: emit.op("Pow", [x, y])))

# rsqrt: 1 / sqrt(x).
onnx_rules.register(rsqrt_p, lambda emit, node, inputs: _computed(
    emit, node, inputs, lambda x: emit.op("Reciprocal", [emit.op("Sqrt", [x])])))


# relu: 0 where x < 0, else x (NaN stays NaN).
def _relu(emit: Any, node: Any, inputs: list[str]) -> str:
    return _computed(emit, node, inputs, lambda x: emit.op(
        "Where", [emit.op("Less", [x, _like(emit, 0, node)]), _like(emit, 0, node), x]))


onnx_rules.register(relu_p, _relu)

# silu: x sigmoid(x).
onnx_rules.register(silu_p, lambda emit, node, inputs: _computed(
    emit, node, inputs, lambda x: emit.op("Mul", [x, emit.op("Sigmoid", [x])])))


# gelu, tanh approximation: x/2 (1 + tanh(c (x + a x^3))).
def _gelu(emit: Any, node: Any, inputs: list[str]) -> str:
    def gelu(x: str) -> str:
        cube = emit.op("Mul", [x, emit.op("Mul", [x, x])])
        cubic = emit.op("Add", [x, emit.op("Mul", [_like(emit, GELU_A, node), cube])])
        inner = emit.op("Mul", [_like(emit, GELU_C, node), cubic])
        half_x = emit.op("Mul", [_like(emit, 0.5, node), x])
        return emit.op("Mul", [half_x, emit.op("Add", [_like(emit, 1, node), emit.op("Tanh", [inner])])])

    return _computed(emit, node, inputs, gelu)


onnx_rules.register(gelu_p, _gelu)


# sign: -1 or 1, and x itself at 0 and NaN (-0 stays -0).
def _sign(emit: Any, node: Any, inputs: list[str]) -> str:
    def sign(x: str) -> str:
        zero = _like(emit, 0, node)
        negative = emit.op("Where", [emit.op("Less", [x, zero]), _like(emit, -1, node), x])
        return emit.op("Where", [emit.op("Greater", [x, zero]), _like(emit, 1, node), negative])

    return _computed(emit, node, inputs, sign)


onnx_rules.register(sign_p, _sign)


# integer_pow: repeated squaring (1 / x^|n| for n < 0); integers wrap at each product.
def _integer_pow(emit: Any, node: Any, inputs: list[str], *, n: int) -> str:
    out, is_int = dtype_of(node), node.spec.dtype.kind in "iu"

    def times(a: str, b: str) -> str:
        product = emit.op("Mul", [a, b])
        return _cast(emit, _cast(emit, product, out), I64) if is_int else product

    def power(x: str) -> str:
        result, base, e = None, x, abs(n)
        while e:
            if e & 1:
                result = base if result is None else times(result, base)
            e >>= 1
            if e:
                base = times(base, base)
        one = _expand(emit, _like(emit, 1, node), node.spec.shape)
        return one if result is None else emit.op("Div", [one, result]) if n < 0 else result

    return _computed(emit, node, inputs, power)


onnx_rules.register(integer_pow_p, _integer_pow)


# maximum / minimum: NaN wins (floats by where); bools as or / and; integers by Max / Min in int64.
def _choose(op_type: str, test: str, logic: str) -> Callable[..., str]:
    def rule(emit: Any, node: Any, inputs: list[str]) -> str:
        kind = node.spec.dtype.kind
        if kind == "b":
            return emit.op(logic, inputs)
        if kind in "iu":
            return _binary(op_type)(emit, node, inputs)

        def choose(x: str, y: str) -> str:
            keep_x = emit.op("Or", [emit.op(test, [x, y]), emit.op("IsNaN", [x])])
            return emit.op("Where", [keep_x, x, y])

        return _computed(emit, node, inputs, choose)

    return rule


onnx_rules.register(maximum_p, _choose("Max", "GreaterOrEqual", "Or"))
onnx_rules.register(minimum_p, _choose("Min", "LessOrEqual", "And"))


# Comparisons: the operands in float64 (every fgrad dtype converts exactly; the rule does not see
# the operands' dtype); ne is not eq (true beside a NaN).
def _comparison(op_type: str, negate: bool = False) -> Callable[..., str]:
    def rule(emit: Any, node: Any, inputs: list[str]) -> str:
        result = emit.op(op_type, [_cast(emit, x, F64) for x in inputs])
        return emit.op("Not", [result]) if negate else result

    return rule


for primitive, op_type in ((eq_p, "Equal"), (lt_p, "Less"), (le_p, "LessOrEqual"), (gt_p, "Greater"),
                           (ge_p, "GreaterOrEqual")):
    onnx_rules.register(primitive, _comparison(op_type))
onnx_rules.register(ne_p, _comparison("Equal", negate=True))
onnx_rules.register(logical_and_p, lambda emit, node, inputs: emit.op("And", inputs))
onnx_rules.register(logical_or_p, lambda emit, node, inputs: emit.op("Or", inputs))
onnx_rules.register(logical_not_p, lambda emit, node, inputs: emit.op("Not", inputs))

# isnan / isinf: of the operand in float32 (f16 widened exactly).
onnx_rules.register(isnan_p, lambda emit, node, inputs: emit.op("IsNaN", [_cast(emit, inputs[0], F32)]))
onnx_rules.register(isinf_p, lambda emit, node, inputs: emit.op("IsInf", [_cast(emit, inputs[0], F32)]))


def _negative(emit: Any, v: str, one: str, zero: str) -> str:
    """Whether the float v is below zero or is -0 (whose reciprocal is -inf)."""
    reciprocal = emit.op("Div", [one, v])
    return emit.op("Less", [emit.op("Where", [emit.op("Equal", [v, zero]), reciprocal, v]), zero])


# where: x where cond holds, else y (computed in the node's wide dtype where ONNX lacks a kernel).
# onnxruntime's Where gives +0 for a chosen -0: a float's magnitude is chosen, then its sign.
def _where(emit: Any, node: Any, inputs: list[str]) -> str:
    cond, x, y = inputs

    def where(a: str, b: str) -> str:
        chosen = emit.op("Where", [cond, a, b])
        if node.spec.dtype.kind != "f":
            return chosen
        one, zero = _like(emit, 1, node), _like(emit, 0, node)
        sign = emit.op("Where", [cond, *(emit.op("Where", [_negative(emit, v, one, zero), emit.op("Neg", [one]), one])
                                        for v in (a, b))])
        return emit.op("Mul", [emit.op("Abs", [chosen]), sign])

    return _computed(emit, node, [x, y], where)


onnx_rules.register(where_p, _where)

# stop_gradient: the value itself.
onnx_rules.register(stop_gradient_p, lambda emit, node, inputs: emit.op("Identity", inputs))


# astype: a float to an integer is NaN -> 0 and clipped to the integer's range first (fgrad's
# `convert`); integers wrap, floats round (to inf past f16's range), anything nonzero is true.
def _astype(emit: Any, node: Any, inputs: list[str], *, dtype: Any) -> str:
    source, x = emit.specs[inputs[0]].dtype, inputs[0]
    if dtype.is_int and source.is_float:
        info = np.iinfo(dtype.np)
        wide = _cast(emit, x, F64)
        wide = emit.op("Where", [emit.op("IsNaN", [wide]), emit.const(0.0, np.float64), wide])
        x = emit.op("Clip", [wide, emit.const(float(info.min), np.float64), emit.const(float(info.max), np.float64)])
    return _cast(emit, x, dtype_of(node))


onnx_rules.register(astype_p, _astype)


# bitwise_and, bitwise_or, bitwise_xor, bitwise_not: ONNX's operators on the node's dtype.
for primitive, op_type in ((bitwise_and_p, "BitwiseAnd"), (bitwise_or_p, "BitwiseOr"), (bitwise_xor_p, "BitwiseXor"),
                           (bitwise_not_p, "BitwiseNot")):
    onnx_rules.register(primitive, lambda emit, node, inputs, op_type=op_type: emit.op(op_type, inputs))


# Shifts (see fgrad/primitives/bitwise.py): the count read as u32; x's bits shifted as u64 (left, and
# logical right of the zero-extended u32), 0 for counts from 32 up; the arithmetic shift of a
# negative x is ~(~x >> s) on its i32 bits, the count clipped to 31.
def _bits(emit: Any, x: str) -> str:
    """The u32 bits of an integer as a nonnegative int64 (so that / 2^k shifts right)."""
    return _cast(emit, _cast(emit, x, U32), I64)


def _count(emit: Any, s: str) -> tuple[str, str]:
    """The count clipped to 31 (as u64), and whether it was 32 or more."""
    count = _bits(emit, s)
    clipped = _cast(emit, emit.op("Min", [count, emit.const(31, np.int64)]), U64)
    return clipped, emit.op("GreaterOrEqual", [count, emit.const(32, np.int64)])


def _shift(direction: str) -> Callable[..., str]:
    def rule(emit: Any, node: Any, inputs: list[str]) -> str:
        count, past = _count(emit, inputs[1])
        bits = emit.op("BitShift", [_cast(emit, _cast(emit, inputs[0], U32), U64), count], direction=direction)
        bits = emit.op("Where", [past, emit.const(0, np.int64), _cast(emit, _cast(emit, bits, U32), I64)])
        return _cast(emit, bits, dtype_of(node))

    return rule


onnx_rules.register(shift_left_p, _shift("LEFT"))
onnx_rules.register(shift_right_logical_p, _shift("RIGHT"))


def _shift_right_arithmetic(emit: Any, node: Any, inputs: list[str]) -> str:
    count, _ = _count(emit, inputs[1])
    x = _cast(emit, inputs[0], I32)
    negative = emit.op("Less", [x, emit.const(0, np.int32)])
    magnitude = _cast(emit, _cast(emit, emit.op("Where", [negative, emit.op("BitwiseNot", [x]), x]), U32), U64)
    bits = _cast(emit, _cast(emit, emit.op("BitShift", [magnitude, count], direction="RIGHT"), U32), I32)
    return _cast(emit, emit.op("Where", [negative, emit.op("BitwiseNot", [bits]), bits]), dtype_of(node))


onnx_rules.register(shift_right_arithmetic_p, _shift_right_arithmetic)


# population_count: the bits summed pairwise, by nibbles, then by bytes (a multiply by 0x01010101).
def _population_count(emit: Any, node: Any, inputs: list[str]) -> str:
    def c(value: int) -> str:
        return emit.const(value, np.int64)

    def masked(v: str, shift: int, mask: int) -> str:
        return emit.op("BitwiseAnd", [emit.op("Div", [v, c(1 << shift)]) if shift else v, c(mask)])

    v = _bits(emit, inputs[0])
    v = emit.op("Sub", [v, masked(v, 1, 0x55555555)])
    v = emit.op("Add", [masked(v, 0, 0x33333333), masked(v, 2, 0x33333333)])
    v = masked(emit.op("Add", [v, emit.op("Div", [v, c(16)])]), 0, 0x0F0F0F0F)
    v = emit.op("Div", [masked(emit.op("Mul", [v, c(0x01010101)]), 0, 0xFFFFFFFF), c(1 << 24)])
    return _cast(emit, v, dtype_of(node))


onnx_rules.register(population_count_p, _population_count)


# clz: 32 less the bit length, found by halving the bits searched (16, 8, 4, 2, 1) and the last bit.
def _clz(emit: Any, node: Any, inputs: list[str]) -> str:
    v, length = _bits(emit, inputs[0]), emit.const(0, np.int64)
    for shift in (16, 8, 4, 2, 1):
        high = emit.op("GreaterOrEqual", [v, emit.const(1 << shift, np.int64)])
        v = emit.op("Where", [high, emit.op("Div", [v, emit.const(1 << shift, np.int64)]), v])
        step = emit.op("Where", [high, emit.const(shift, np.int64), emit.const(0, np.int64)])
        length = emit.op("Add", [length, step])
    return _cast(emit, emit.op("Sub", [emit.const(32, np.int64), emit.op("Add", [length, v])]), dtype_of(node))


onnx_rules.register(clz_p, _clz)


# Float functions computed in float64 and rounded once, by cancellation-free formulas: a short
# Taylor series near 0 where the plain formula cancels (its error there far below f32's).
def _series(emit: Any, x: str, plain: str, coefficients: tuple[float, ...], near: float) -> str:
    """Where |x| < near, x (c0 + c1 x^2 + c2 x^4 ...) (odd series) or plain's value elsewhere."""
    square, total = emit.op("Mul", [x, x]), emit.const(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        total = emit.op("Add", [emit.const(c), emit.op("Mul", [total, square])])
    small = emit.op("Less", [emit.op("Abs", [x]), emit.const(near)])
    return emit.op("Where", [small, emit.op("Mul", [x, total]), plain])


def _log1p(emit: Any, x: str) -> str:
    """log(1 + x); x - x^2/2 + x^3/3 - x^4/4 near 0 (an odd series in x and one in x^2 combined)."""
    square = emit.op("Mul", [x, x])
    odd = emit.op("Mul", [x, emit.op("Add", [emit.const(1.0), emit.op("Mul", [square, emit.const(1 / 3)])])])
    even = emit.op("Mul", [square, emit.op("Add", [emit.const(0.5), emit.op("Mul", [square, emit.const(0.25)])])])
    small = emit.op("Less", [emit.op("Abs", [x]), emit.const(1e-4)])
    plain = emit.op("Log", [emit.op("Add", [emit.const(1.0), x])])
    return emit.op("Where", [small, emit.op("Sub", [odd, even]), plain])


def _expm1(emit: Any, x: str) -> str:
    square = emit.op("Mul", [x, x])
    odd = emit.op("Mul", [x, emit.op("Add", [emit.const(1.0), emit.op("Mul", [square, emit.const(1 / 6)])])])
    even = emit.op("Mul", [square, emit.op("Add", [emit.const(0.5), emit.op("Mul", [square, emit.const(1 / 24)])])])
    small = emit.op("Less", [emit.op("Abs", [x]), emit.const(1e-4)])
    plain = emit.op("Sub", [emit.op("Exp", [x]), emit.const(1.0)])
    return emit.op("Where", [small, emit.op("Add", [odd, even]), plain])


def _sinh(emit: Any, x: str) -> str:
    exps = emit.op("Exp", [x]), emit.op("Exp", [emit.op("Neg", [x])])
    plain = emit.op("Mul", [emit.const(0.5), emit.op("Sub", list(exps))])
    return _series(emit, x, plain, (1.0, 1 / 6, 1 / 120), 1e-3)


def _cosh(emit: Any, x: str) -> str:
    exps = emit.op("Exp", [x]), emit.op("Exp", [emit.op("Neg", [x])])
    return emit.op("Mul", [emit.const(0.5), emit.op("Add", list(exps))])


def _asinh(emit: Any, x: str) -> str:
    """sign(x) log(|x| + sqrt(x^2 + 1)) (x^2 cannot overflow f64 for an f32 x)."""
    a = emit.op("Abs", [x])
    root = emit.op("Sqrt", [emit.op("Add", [emit.op("Mul", [a, a]), emit.const(1.0)])])
    plain = emit.op("Log", [emit.op("Add", [a, root])])
    plain = emit.op("Where", [emit.op("Less", [x, emit.const(0.0)]), emit.op("Neg", [plain]), plain])
    return _series(emit, x, plain, (1.0, -1 / 6, 3 / 40), 1e-3)


def _acosh(emit: Any, x: str) -> str:
    """log1p((x - 1) + sqrt(x^2 - 1)) (x^2 - 1 exact in f64 for an f32 x)."""
    root = emit.op("Sqrt", [emit.op("Sub", [emit.op("Mul", [x, x]), emit.const(1.0)])])
    return _log1p(emit, emit.op("Add", [emit.op("Sub", [x, emit.const(1.0)]), root]))


def _atanh(emit: Any, x: str) -> str:
    """log1p(2x / (1 - x)) / 2."""
    ratio = emit.op("Div", [emit.op("Add", [x, x]), emit.op("Sub", [emit.const(1.0), x])])
    return emit.op("Mul", [emit.const(0.5), _log1p(emit, ratio)])


def _cbrt(emit: Any, x: str) -> str:
    """sign(x) |x|^(1/3)."""
    root = emit.op("Pow", [emit.op("Abs", [x]), emit.const(1 / 3)])
    return emit.op("Where", [emit.op("Less", [x, emit.const(0.0)]), emit.op("Neg", [root]), root])


def _logaddexp(emit: Any, x: str, y: str) -> str:
    """max + log1p(exp(-|x - y|)); x + log 2 where x == y (both infinite alike included)."""
    larger = emit.op("Where", [emit.op("Greater", [x, y]), x, y])
    rest = _log1p(emit, emit.op("Exp", [emit.op("Neg", [emit.op("Abs", [emit.op("Sub", [x, y])])])]))
    return emit.op("Where", [emit.op("Equal", [x, y]), emit.op("Add", [x, emit.const(np.log(2.0))]),
                             emit.op("Add", [larger, rest])])


def _atan2(emit: Any, y: str, x: str) -> str:
    """atan(q) of q = min(|x|, |y|) / max(|x|, |y|) (1 for two infinities, 0 for two zeros) by three
    half-angle steps and the series sum (-q^2)^k / (2k + 1) q to q^17, then put in its quadrant by the comparison of |y| and |x|,
    x's sign and y's (a signed zero's sign read from 1 / 0)."""
    ax, ay = emit.op("Abs", [x]), emit.op("Abs", [y])
    low, high = emit.op("Min", [ax, ay]), emit.op("Max", [ax, ay])
    q = emit.op("Div", [low, emit.op("Where", [emit.op("Equal", [high, emit.const(0.0)]), emit.const(1.0), high])])
    q = emit.op("Where", [emit.op("IsInf", [low]), emit.const(1.0), q])
    for _ in range(3):
        root = emit.op("Sqrt", [emit.op("Add", [emit.const(1.0), emit.op("Mul", [q, q])])])
        q = emit.op("Div", [q, emit.op("Add", [emit.const(1.0), root])])
    square, total = emit.op("Mul", [q, q]), emit.const(1 / 17)
    for k in range(7, -1, -1):
        total = emit.op("Add", [emit.const(1 / (2 * k + 1)), emit.op("Mul", [total, emit.op("Neg", [square])])])
    angle = emit.op("Mul", [emit.const(8.0), emit.op("Mul", [q, total])])
    angle = emit.op("Where", [emit.op("Greater", [ay, ax]), emit.op("Sub", [emit.const(np.pi / 2), angle]), angle])

    one, zero = emit.const(1.0), emit.const(0.0)

    angle = emit.op("Where", [_negative(emit, x, one, zero), emit.op("Sub", [emit.const(np.pi), angle]), angle])
    return emit.op("Mul", [angle, _sign_of(emit, y)])


def _sign_of(emit: Any, v: str) -> str:
    """-1.0 where the float64 v is negative or -0, else 1.0 (onnxruntime's Where drops -0's sign:
    a signed result is its magnitude times this)."""
    one, zero = emit.const(1.0), emit.const(0.0)
    return emit.op("Where", [_negative(emit, v, one, zero), emit.const(-1.0), one])


def _signed(fn: Callable[..., str]) -> Callable[..., str]:
    """fn, whose result has its operand's sign (and -0 at -0), with that sign restored."""
    return lambda emit, x: emit.op("Mul", [emit.op("Abs", [fn(emit, x)]), _sign_of(emit, x)])


for primitive, fn in ((atan2_p, _atan2), (log1p_p, _signed(_log1p)), (expm1_p, _signed(_expm1)), (sinh_p, _signed(_sinh)),
                      (cosh_p, _cosh), (asinh_p, _signed(_asinh)), (acosh_p, _acosh), (atanh_p, _signed(_atanh)),
                      (cbrt_p, _signed(_cbrt)), (logaddexp_p, _logaddexp)):
    onnx_rules.register(primitive, _in_f64(fn))
