"""ONNX export rules of the elementwise primitives (fgrad/primitives/elementwise.py) and of constants:
f16 special functions computed in f32, integer arithmetic in int64 and wrapped back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from onnx import TensorProto

from fgrad.export.onnx import dtype_of, onnx_rules
from fgrad.ir import constant_p
from fgrad.primitives import (
    abs_p, astype_p, exp2_p, log2_p, tan_p, add_p, ceil_p, cos_p, div_p, eq_p, erf_p, exp_p, floor_p, ge_p, gelu_p, gt_p, integer_pow_p, iota_p,
    isinf_p, isnan_p, le_p, log_p, logical_and_p, logical_not_p, logical_or_p, lt_p, maximum_p, minimum_p, mul_p,
    ne_p, neg_p, pow_p, relu_p, rem_p, round_p, rsqrt_p, sigmoid_p, sign_p, silu_p, sin_p, sqrt_p, stop_gradient_p, sub_p,
    tanh_p, where_p,
)
from fgrad.primitives.elementwise import GELU_A, GELU_C

F16, F32, F64, I64, BOOL = TensorProto.FLOAT16, TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64, TensorProto.BOOL


def _cast(emit: Any, name: str, to: int) -> str:
    return emit.op("Cast", [name], to=to)


def _computed(emit: Any, node: Any, inputs: list[str], fn: Callable[..., str]) -> str:
    """`fn` over the operands in the node's computing dtype: f32 for f16, int64 for integers (so
    that results wrap when cast back), the node's own otherwise; the result cast to the node's."""
    out = dtype_of(node)
    kind = node.spec.dtype.np.kind
    wide = F32 if out == F16 else I64 if kind in "iu" else out
    y = fn(*(_cast(emit, x, wide) if wide != out else x for x in inputs))
    return _cast(emit, y, out) if wide != out else y


def _like(emit: Any, value: Any, node: Any) -> str:
    """A scalar constant in the dtype `_computed` computes the node in."""
    kind = node.spec.dtype.np.kind
    return emit.const(value, np.float32 if node.spec.dtype.np == np.float16 else np.int64 if kind in "iu" else node.spec.dtype.np)


def _expand(emit: Any, name: str, shape: tuple[int, ...]) -> str:
    return emit.op("Expand", [name, emit.const(np.array(shape, np.int64))])


# constant: the array, or one element expanded where all are equal.
def _constant(emit: Any, node: Any, inputs: list[str], *, value: Any) -> str:
    array = value.array
    if array.size > 1 and not any(array.strides):
        return _expand(emit, emit.const(array.reshape(-1)[:1].reshape(()), array.dtype), array.shape)
    return emit.const(np.array(array), array.dtype)  # a copy in C order that keeps a 0-d shape


onnx_rules.register(constant_p, _constant)


# iota: the count along `axis`, expanded to `shape`.
def _iota(emit: Any, node: Any, inputs: list[str], *, shape: tuple[int, ...], axis: int, dtype: Any) -> str:
    count = np.arange(shape[axis], dtype=dtype.np).reshape([-1 if i == axis else 1 for i in range(len(shape))])
    return _expand(emit, emit.const(count), shape)


onnx_rules.register(iota_p, _iota)


def _unary(op_type: str) -> Callable[..., str]:
    return lambda emit, node, inputs: _computed(emit, node, inputs, lambda x: emit.op(op_type, [x]))


def _binary(op_type: str) -> Callable[..., str]:
    return lambda emit, node, inputs: _computed(emit, node, inputs, lambda x, y: emit.op(op_type, [x, y]))


# add, sub, mul: integers in int64, wrapping when cast back; bools (add and mul of bools) as or / and.
for primitive, op_type, logic in ((add_p, "Add", "Or"), (sub_p, "Sub", None), (mul_p, "Mul", "And")):
    onnx_rules.register(primitive, lambda emit, node, inputs, op_type=op_type, logic=logic: (
        emit.op(logic, inputs) if node.spec.dtype.np.kind == "b" else _binary(op_type)(emit, node, inputs)))


# div: floats divide; integers truncate toward zero, x / 0 is -1 (the largest u32), INT_MIN / -1 wraps.
def _div(emit: Any, node: Any, inputs: list[str]) -> str:
    def integer(x: str, y: str) -> str:
        zero = emit.op("Equal", [y, emit.const(0, np.int64)])
        q = emit.op("Div", [x, emit.op("Where", [zero, emit.const(1, np.int64), y])])
        return emit.op("Where", [zero, emit.const(-1, np.int64), q])

    is_int = node.spec.dtype.np.kind in "iu"
    return _computed(emit, node, inputs, integer if is_int else lambda x, y: emit.op("Div", [x, y]))


onnx_rules.register(div_p, _div)


# rem: C's fmod (x's sign; NaN for y = 0 on floats, x for y = 0 on integers).
def _rem(emit: Any, node: Any, inputs: list[str]) -> str:
    def integer(x: str, y: str) -> str:
        zero = emit.op("Equal", [y, emit.const(0, np.int64)])
        r = emit.op("Mod", [x, emit.op("Where", [zero, emit.const(1, np.int64), y])], fmod=1)
        return emit.op("Where", [zero, x, r])

    is_int = node.spec.dtype.np.kind in "iu"
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
        inner = emit.op("Mul", [_like(emit, GELU_C, node), emit.op("Add", [x, emit.op("Mul", [_like(emit, GELU_A, node), cube])])])
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
    out, is_int = dtype_of(node), node.spec.dtype.np.kind in "iu"

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
        kind = node.spec.dtype.np.kind
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


# where: x where cond holds, else y (computed in the node's wide dtype where ONNX lacks a kernel).
def _where(emit: Any, node: Any, inputs: list[str]) -> str:
    cond, x, y = inputs
    return _computed(emit, node, [x, y], lambda a, b: emit.op("Where", [cond, a, b]))


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
