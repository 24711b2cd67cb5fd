"""Elementwise primitives: arithmetic, functions, comparisons and logic, where, astype, and the rules
of the IR's own input and constant primitives; with iota.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError
from fgrad.ir import DType, Node, Primitive, Spec, computed, constant_p, declare, input_p
from fgrad.lower.kinds import CONVERSION, ELEMENTWISE, SOURCE, VIEW, register_lowering
from fgrad.lower.library import (
    BERNOULLI, ERF_INV_CENTRAL, ERF_INV_TAIL, INF, IS_NAN, NAN, cast, cot_derivative, float_test, function, horner,
    pick, polygamma, widened, with_sign_of, zeta_tail,
)
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import nondiff, vjp_rules
from fgrad.transforms.batching import batch_rules, elementwise_batching, no_operands
from fgrad.transforms.forward import diagonal_jvp, jvp_rules, linear_jvp, multilinear_jvp, nondiff_jvp
from fgrad.transforms.passes import simplify_rules, uniform_constant

from fgrad.primitives.abstract_eval import (
    ANY, BOOL, FLOAT, NUMERIC, binary, check_axes, check_dtypes, computed_wide, elementwise, unary,
)

__all__ = [  # re-exported by fgrad.primitives
    "abs_p", "acosh_p", "add_p", "asinh_p", "astype_p", "atan2_p", "atanh_p", "cbrt_p", "ceil_p", "convert",
    "copysign_p", "cos_p", "cosh_p", "digamma_p", "div_p", "eq_p", "erf_inv_p", "erf_p", "erfc_p", "exp2_p", "exp_p",
    "expm1_p", "floor_p", "ge_p", "gelu_p", "gt_p", "integer_pow_p", "iota_p", "isinf_p", "isnan_p", "le_p", "lgamma_p",
    "log1p_p", "log2_p", "log_p", "logaddexp_p", "logical_and_p", "logical_not_p", "logical_or_p", "lt_p", "maximum_p",
    "minimum_p", "mul_p", "ne_p", "neg_p", "polygamma_p", "pow_p", "relu_p", "rem_p", "round_p", "rsqrt_p", "sigmoid_p",
    "sign_p", "signbit_p", "silu_p", "sin_p", "sinh_p", "sqrt_p", "stop_gradient_p", "sub_p", "tan_p", "tanh_p",
    "where_p",
]


def _identity_if(side: int, unit: float) -> Callable[[Node, Sequence[Node]], int | None]:
    """Simplify rule: `x op unit` is x; `side` is which operand may be the unit (0, 1, or -1 for both)."""

    def rule(node: Node, nodes: Sequence[Node]) -> int | None:
        for k in ((0, 1) if side == -1 else (side,)):
            if uniform_constant(nodes, node.inputs[k]) == unit and nodes[node.inputs[1 - k]].spec == node.spec:
                return node.inputs[1 - k]
        return None

    return rule


def _wide(template: str, *calls: str) -> Callable[..., str]:
    """The WGSL rule of a special function: `template` over the operands' values, written for
    f32 and computed in the node's `wide` dtype (`widened`: f16 in f32, rounded back once);
    `calls` names the library functions it calls (fgrad/lower/library.py)."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        for name in calls:
            function(w, name)
        operands = (w.operand(i, k, coords) for k in range(len(w.nodes[i].inputs)))
        return widened(w, w.spec(i).dtype, lambda *xs: template.format(*xs), *operands)

    return wgsl


# input: a graph argument; interpret and the runtime supply its value. constant: an array
# baked into the graph (numbers and arrays closed over). Both are declared with the IR;
# in WGSL a constant whose elements are all equal is a literal, others are buffers.
vjp_rules.register(input_p, nondiff)
jvp_rules.register(input_p, nondiff_jvp)
batch_rules.register(input_p, no_operands)
vjp_rules.register(constant_p, nondiff)
jvp_rules.register(constant_p, nondiff_jvp)
batch_rules.register(constant_p, no_operands)
register_lowering(input_p, SOURCE, None)
register_lowering(constant_p, SOURCE, lambda w, i, c: w.literal(uniform_constant(w.nodes, i), w.spec(i).dtype))


# iota: integers counting along `axis` of `shape` (arange, masks).
def _iota_rule(*, shape: tuple[int, ...], axis: int, dtype: DType) -> Spec:
    out = Spec(shape, dtype)
    check_dtypes("iota", NUMERIC, out)
    check_axes("iota", out, (axis,))
    return out


def _iota_impl(*, shape: tuple[int, ...], axis: int, dtype: DType) -> np.ndarray:
    count = np.arange(shape[axis], dtype=dtype.np).reshape([-1 if i == axis else 1 for i in range(len(shape))])
    return np.broadcast_to(count, shape)


iota_p = declare("iota", _iota_rule, _iota_impl)
vjp_rules.register(iota_p, nondiff)
jvp_rules.register(iota_p, nondiff_jvp)
batch_rules.register(iota_p, no_operands)
register_lowering(iota_p, VIEW, lambda w, i, c: cast(w, c[w.nodes[i].attrs["axis"]], DType.i32, w.spec(i).dtype))

# neg: d(-x) = -dx; -(-x) is x. WGSL negates no unsigned integer: 0 - x wraps as -x does.
def _neg_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x, dtype = w.operand(i, 0, coords), w.spec(i).dtype
    return f"({w.literal(0, dtype)} - {x})" if dtype.kind == "u" else f"(-{x})"


neg_p = declare("neg", unary("neg", NUMERIC), np.negative)
vjp_rules.register(neg_p, lambda g, ans, x: (fnp.neg(g),))
jvp_rules.register(neg_p, linear_jvp(neg_p))
batch_rules.register(neg_p, elementwise_batching(neg_p))
simplify_rules.register(neg_p, lambda node, nodes: nodes[node.inputs[0]].inputs[0] if nodes[node.inputs[0]].op == "neg" else None)
register_lowering(neg_p, ELEMENTWISE, _neg_wgsl)

# abs: d|x| = sign(x) dx, taken as +1 at 0 (and -1 at NaN): JAX's select(x >= 0, g, -g).
# |x| of an unsigned value is x, written so: WGSL's abs of a u32 is the identity too, but naga's
# GLSL output (llvmpipe through OpenGL) takes it as a signed abs, wrong from 2^31 up.
def _abs_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x = w.operand(i, 0, coords)
    return x if w.spec(i).dtype.kind == "u" else f"abs({x})"


def _abs_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (fnp.where(x >= 0, g, fnp.neg(g)),)


abs_p = declare("abs", unary("abs", NUMERIC), np.abs)
vjp_rules.register(abs_p, _abs_vjp)
jvp_rules.register(abs_p, diagonal_jvp(_abs_vjp))
batch_rules.register(abs_p, elementwise_batching(abs_p))
register_lowering(abs_p, ELEMENTWISE, _abs_wgsl)


# exp: d exp(x) = exp(x) dx, reusing the output.
def _exp_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * ans,)


exp_p = declare("exp", unary("exp", FLOAT), computed_wide(np.exp))
vjp_rules.register(exp_p, _exp_vjp)
jvp_rules.register(exp_p, diagonal_jvp(_exp_vjp))
batch_rules.register(exp_p, elementwise_batching(exp_p))
register_lowering(exp_p, ELEMENTWISE, _wide("exp_f32({0})", "exp_f32"))


# log: d log(x) = dx / x. From the exponent and a log1p of the significand (fgrad/lower/library.py),
# not WGSL's log, which is only absolutely accurate (850 ulp off near 1 on an H200).
def _log_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g / x,)


log_p = declare("log", unary("log", FLOAT), computed_wide(np.log))
vjp_rules.register(log_p, _log_vjp)
jvp_rules.register(log_p, diagonal_jvp(_log_vjp))
batch_rules.register(log_p, elementwise_batching(log_p))
register_lowering(log_p, ELEMENTWISE, _wide("log_f32({0})", "log_f32"))


# log2: d log2(x) = dx / (x log(2)). Exact at powers of two, as NumPy's (jax.numpy's log(x) /
# log(2) is 1 ulp off at 2^13), from the exponent and a log1p of the significand
# (fgrad/lower/library.py), not WGSL's log2, which is neither exact there nor relatively accurate
# near 1.
def _log2_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g / (x * math.log(2)),)


log2_p = declare("log2", unary("log2", FLOAT), computed_wide(np.log2))
vjp_rules.register(log2_p, _log2_vjp)
jvp_rules.register(log2_p, diagonal_jvp(_log2_vjp))
batch_rules.register(log2_p, elementwise_batching(log2_p))
register_lowering(log2_p, ELEMENTWISE, _wide("log2_f32({0})", "log2_f32"))


# log1p: log(1 + x), to full precision for small x; d log1p(x) = dx / (1 + x).
def _log1p_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g / (x + 1.0),)


log1p_p = declare("log1p", unary("log1p", FLOAT), computed_wide(np.log1p))
vjp_rules.register(log1p_p, _log1p_vjp)
jvp_rules.register(log1p_p, diagonal_jvp(_log1p_vjp))
batch_rules.register(log1p_p, elementwise_batching(log1p_p))
register_lowering(log1p_p, ELEMENTWISE, _wide("log1p_f32({0})", "log1p_f32"))


# expm1: e^x - 1, to full precision for small x; d expm1(x) = e^x dx = (expm1(x) + 1) dx.
def _expm1_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * (ans + 1.0),)


expm1_p = declare("expm1", unary("expm1", FLOAT), computed_wide(np.expm1))
vjp_rules.register(expm1_p, _expm1_vjp)
jvp_rules.register(expm1_p, diagonal_jvp(_expm1_vjp))
batch_rules.register(expm1_p, elementwise_batching(expm1_p))
register_lowering(expm1_p, ELEMENTWISE, _wide("expm1_f32({0})", "expm1_f32"))


# exp2: 2^x (WGSL's exp2, within 3 ulp on llvmpipe; e^(x log 2) would add x's rounding times
# x log 2); d 2^x = 2^x log(2) dx, reusing the output.
def _exp2_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * ans * math.log(2),)


exp2_p = declare("exp2", unary("exp2", FLOAT), computed_wide(np.exp2))
vjp_rules.register(exp2_p, _exp2_vjp)
jvp_rules.register(exp2_p, diagonal_jvp(_exp2_vjp))
batch_rules.register(exp2_p, elementwise_batching(exp2_p))
register_lowering(exp2_p, ELEMENTWISE, _wide("exp2({0})"))


# sqrt: d sqrt(x) = dx / (2 sqrt(x)).
def _sqrt_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g / (ans * 2.0),)


sqrt_p = declare("sqrt", unary("sqrt", FLOAT), computed_wide(np.sqrt))
vjp_rules.register(sqrt_p, _sqrt_vjp)
jvp_rules.register(sqrt_p, diagonal_jvp(_sqrt_vjp))
batch_rules.register(sqrt_p, elementwise_batching(sqrt_p))
register_lowering(sqrt_p, ELEMENTWISE, _wide("sqrt({0})"))


# rsqrt: d x^(-1/2) = -1/2 x^(-3/2) dx = -1/2 rsqrt(x) / x dx.
def _rsqrt_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * ans / x * -0.5,)


rsqrt_p = declare("rsqrt", unary("rsqrt", FLOAT), computed_wide(lambda x: 1 / np.sqrt(x)))
vjp_rules.register(rsqrt_p, _rsqrt_vjp)
jvp_rules.register(rsqrt_p, diagonal_jvp(_rsqrt_vjp))
batch_rules.register(rsqrt_p, elementwise_batching(rsqrt_p))
register_lowering(rsqrt_p, ELEMENTWISE, _wide("inverseSqrt({0})"))


# cbrt: the real cube root (negative for negative x); d cbrt(x) = dx / (3 cbrt(x)^2), reusing the
# output. WGSL: r = exp2(log2|x| / 3), then one Newton step r + (|x| / r^2 - r) / 3, which squares
# the estimate's relative error; 0, inf and NaN are passed through.
def _cbrt_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    is_nan = function(w, "is_nan")

    def cbrt(x: str) -> str:
        a = w.let(f"abs({x})")
        r = w.let(f"exp2(log2({a}) * 0.33333334f)")
        r = w.let(f"{r} + ({a} / ({r} * {r}) - {r}) * 0.33333334f")
        return f"select({with_sign_of(r, x)}, {x}, ({a} == 0.0f) | ({a} == {INF}) | {is_nan}({x}))"

    return widened(w, w.spec(i).dtype, cbrt, w.operand(i, 0, coords))


def _cbrt_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g / (ans * ans * 3.0),)


cbrt_p = declare("cbrt", unary("cbrt", FLOAT), computed_wide(np.cbrt))
vjp_rules.register(cbrt_p, _cbrt_vjp)
jvp_rules.register(cbrt_p, diagonal_jvp(_cbrt_vjp))
batch_rules.register(cbrt_p, elementwise_batching(cbrt_p))
register_lowering(cbrt_p, ELEMENTWISE, _cbrt_wgsl)


# sin and cos: d sin(x) = cos(x) dx, d cos(x) = -sin(x) dx (schedules, positional codes). x is
# reduced by pi/2 in three exact parts and fits of sin and cos on [-pi/4, pi/4] taken
# (fgrad/lower/library.py): GPUs' sin and cos are only absolutely accurate, and less so as x grows.
def _sin_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.cos(x),)


sin_p = declare("sin", unary("sin", FLOAT), computed_wide(np.sin))
vjp_rules.register(sin_p, _sin_vjp)
jvp_rules.register(sin_p, diagonal_jvp(_sin_vjp))
batch_rules.register(sin_p, elementwise_batching(sin_p))
register_lowering(sin_p, ELEMENTWISE, _wide("sin_f32({0})", "sin_f32"))


def _cos_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (fnp.neg(g * fnp.sin(x)),)


cos_p = declare("cos", unary("cos", FLOAT), computed_wide(np.cos))
vjp_rules.register(cos_p, _cos_vjp)
jvp_rules.register(cos_p, diagonal_jvp(_cos_vjp))
batch_rules.register(cos_p, elementwise_batching(cos_p))
register_lowering(cos_p, ELEMENTWISE, _wide("cos_f32({0})", "cos_f32"))


# tan: d tan(x) = (1 + tan(x)^2) dx, reusing the output. Not sin / cos: GPUs' cos is only
# absolutely accurate near its zeros (2% off near pi/2 on an H100), so fgrad/lower/library.py
# reduces x by pi/2 in three exact parts and takes a fit of tan on [-pi/4, pi/4].
def _tan_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * (1.0 + ans * ans),)


tan_p = declare("tan", unary("tan", FLOAT), computed_wide(np.tan))
vjp_rules.register(tan_p, _tan_vjp)
jvp_rules.register(tan_p, diagonal_jvp(_tan_vjp))
batch_rules.register(tan_p, elementwise_batching(tan_p))
register_lowering(tan_p, ELEMENTWISE, _wide("tan_f32({0})", "tan_f32"))


# atan2(x, y): the angle of the point (y, x) in (-pi, pi], C's atan2 (lax.atan2; jnp.arctan2
# takes the same order); d atan2 = (y dx - x dy) / (x^2 + y^2). WGSL's atan2 is thousands of ulp
# off on llvmpipe: fgrad/lower/library.py has one within 2 ulp, whose signed zeros and
# infinities are C's.
def _atan2_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    norm = x * x + y * y
    return g * y / norm, fnp.neg(g * x / norm)


atan2_p = declare("atan2", binary("atan2", FLOAT), computed_wide(np.arctan2))
vjp_rules.register(atan2_p, _atan2_vjp)
jvp_rules.register(atan2_p, diagonal_jvp(_atan2_vjp))
batch_rules.register(atan2_p, elementwise_batching(atan2_p))
register_lowering(atan2_p, ELEMENTWISE, _wide("atan2_f32({0}, {1})", "atan2_f32"))

# sinh and cosh: d sinh(x) = cosh(x) dx, d cosh(x) = sinh(x) dx. Beyond |x| = 1 both are
# e^|x| / 2 -+ e^-|x| / 2, and past 88, where e^|x| overflows before e^|x| / 2 does (at 89.4),
# e^|x| / 2 is e^(|x| - 88) (e^88 / 2), |x| - 88 exact; below 1, e^x - e^-x cancels and sinh is
# x + x z P(z), z = x^2 (a fit, within 0.8 ulp).
SINH_P = (0.1666666716337204, 0.008333339355885983, 0.0001983812398975715, 2.8061333523510257e-06)
HALF_EXP_88 = math.exp(88) / 2


def _exp_halves(w: Any, a: str) -> tuple[str, str]:
    """WGSL for e^a / 2 and e^-a / 2 (`a` >= 0)."""
    exp = function(w, "exp_f32")
    e = w.let(f"{exp}({a})")
    up = w.let(f"select(0.5f * {e}, {exp}({a} - 88.0f) * {w.literal(HALF_EXP_88, DType.f32)}, {a} > 88.0f)")
    return up, w.let(f"0.5f / {e}")


def _sinh_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    def sinh(x: str) -> str:
        a = w.let(f"abs({x})")
        z = w.let(f"{a} * {a}")
        up, down = _exp_halves(w, a)
        return with_sign_of(w.let(f"select({up} - {down}, {a} + {a} * {z} * {horner(SINH_P, z)}, {a} < 1.0f)"), x)

    return widened(w, w.spec(i).dtype, sinh, w.operand(i, 0, coords))


def _cosh_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    def cosh(x: str) -> str:
        up, down = _exp_halves(w, w.let(f"abs({x})"))
        return f"({up} + {down})"

    return widened(w, w.spec(i).dtype, cosh, w.operand(i, 0, coords))


def _sinh_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.cosh(x),)


sinh_p = declare("sinh", unary("sinh", FLOAT), computed_wide(np.sinh))
vjp_rules.register(sinh_p, _sinh_vjp)
jvp_rules.register(sinh_p, diagonal_jvp(_sinh_vjp))
batch_rules.register(sinh_p, elementwise_batching(sinh_p))
register_lowering(sinh_p, ELEMENTWISE, _sinh_wgsl)


def _cosh_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.sinh(x),)


cosh_p = declare("cosh", unary("cosh", FLOAT), computed_wide(np.cosh))
vjp_rules.register(cosh_p, _cosh_vjp)
jvp_rules.register(cosh_p, diagonal_jvp(_cosh_vjp))
batch_rules.register(cosh_p, elementwise_batching(cosh_p))
register_lowering(cosh_p, ELEMENTWISE, _cosh_wgsl)


# asinh, acosh and atanh through log1p (WGSL's lose small arguments and overflow on large ones):
# asinh(a) = log1p(a + a^2 / (1 + sqrt(1 + a^2))) for a = |x|, and log(a) + log(2) past 2^12,
# where a^2 nears overflow and the difference, 1 / (4 a^2), is below f32's precision;
# acosh(x) = log1p(t + sqrt(2t + t^2)) for t = x - 1, and log(x) + log(2) past 2^12;
# atanh(a) = log1p(2a / (1 - a)) / 2. Odd ones keep x's sign bit (-0 stays -0).
# d asinh = dx / sqrt(x^2 + 1), d acosh = dx / sqrt((x - 1)(x + 1)), d atanh = dx / ((1 - x)(1 + x)).
def _asinh_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    log1p = function(w, "log1p_f32")

    def asinh(x: str) -> str:
        a = w.let(f"abs({x})")
        near = f"{log1p}({a} + {a} * {a} / (1.0f + sqrt(1.0f + {a} * {a})))"
        return with_sign_of(w.let(f"select({near}, {function(w, 'log_f32')}({a}) + 0.6931472f, {a} > 4096.0f)"), x)

    return widened(w, w.spec(i).dtype, asinh, w.operand(i, 0, coords))


def _acosh_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    log1p = function(w, "log1p_f32")

    def acosh(x: str) -> str:
        t = w.let(f"{x} - 1.0f")
        far = f"{function(w, 'log_f32')}({x}) + 0.6931472f"
        r = f"select({log1p}({t} + sqrt(2.0f * {t} + {t} * {t})), {far}, {x} > 4096.0f)"
        return f"select({r}, {NAN}, {x} < 1.0f)"

    return widened(w, w.spec(i).dtype, acosh, w.operand(i, 0, coords))


def _atanh_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    log1p = function(w, "log1p_f32")

    def atanh(x: str) -> str:
        a = w.let(f"abs({x})")
        r = w.let(f"select(0.5f * {log1p}(2.0f * {a} / (1.0f - {a})), {INF}, {a} == 1.0f)")
        return f"select({with_sign_of(r, x)}, {NAN}, {a} > 1.0f)"

    return widened(w, w.spec(i).dtype, atanh, w.operand(i, 0, coords))


def _asinh_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.rsqrt(x * x + 1.0),)


asinh_p = declare("asinh", unary("asinh", FLOAT), computed_wide(np.arcsinh))
vjp_rules.register(asinh_p, _asinh_vjp)
jvp_rules.register(asinh_p, diagonal_jvp(_asinh_vjp))
batch_rules.register(asinh_p, elementwise_batching(asinh_p))
register_lowering(asinh_p, ELEMENTWISE, _asinh_wgsl)


def _acosh_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.rsqrt((x - 1.0) * (x + 1.0)),)


acosh_p = declare("acosh", unary("acosh", FLOAT), computed_wide(np.arccosh))
vjp_rules.register(acosh_p, _acosh_vjp)
jvp_rules.register(acosh_p, diagonal_jvp(_acosh_vjp))
batch_rules.register(acosh_p, elementwise_batching(acosh_p))
register_lowering(acosh_p, ELEMENTWISE, _acosh_wgsl)


def _atanh_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g / ((1.0 - x) * (1.0 + x)),)


atanh_p = declare("atanh", unary("atanh", FLOAT), computed_wide(np.arctanh))
vjp_rules.register(atanh_p, _atanh_vjp)
jvp_rules.register(atanh_p, diagonal_jvp(_atanh_vjp))
batch_rules.register(atanh_p, elementwise_batching(atanh_p))
register_lowering(atanh_p, ELEMENTWISE, _atanh_wgsl)

# tanh: d tanh(x) = (1 - tanh(x)^2) dx. A fit near 0, where llvmpipe's tanh, (e^2x - 1) / (e^2x + 1),
# cancels; WGSL's beyond, clamped to keep its exponentials finite on every backend (NaN passed
# through on its own): fgrad/lower/library.py.


def _tanh_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * (1.0 - ans * ans),)


tanh_p = declare("tanh", unary("tanh", FLOAT), computed_wide(np.tanh))
vjp_rules.register(tanh_p, _tanh_vjp)
jvp_rules.register(tanh_p, diagonal_jvp(_tanh_vjp))
batch_rules.register(tanh_p, elementwise_batching(tanh_p))
register_lowering(tanh_p, ELEMENTWISE, _wide("tanh_f32({0})", "tanh_f32"))

# sigmoid: s(x) = 1 / (1 + e^-x), as e^x / (1 + e^x) below 0 (no overflow, and no 1 + tanh(x/2)
# cancelling in the negative tail); ds = s (1 - s) dx.
def _sigmoid_impl(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _sigmoid_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * ans * (1.0 - ans),)


sigmoid_p = declare("sigmoid", unary("sigmoid", FLOAT), computed_wide(_sigmoid_impl))
vjp_rules.register(sigmoid_p, _sigmoid_vjp)
jvp_rules.register(sigmoid_p, diagonal_jvp(_sigmoid_vjp))
batch_rules.register(sigmoid_p, elementwise_batching(sigmoid_p))
register_lowering(sigmoid_p, ELEMENTWISE, _wide("(1.0f / (1.0f + exp_f32(-{0})))", "exp_f32"))


# relu: max(x, 0) (NaN stays NaN); derivative 1 where x > 0, else 0.
def _relu_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (fnp.where(x > 0, g, 0.0),)


relu_p = declare("relu", unary("relu", NUMERIC), lambda x: np.maximum(x, 0))
vjp_rules.register(relu_p, _relu_vjp)
jvp_rules.register(relu_p, diagonal_jvp(_relu_vjp))
batch_rules.register(relu_p, elementwise_batching(relu_p))
register_lowering(relu_p, ELEMENTWISE, lambda w, i, c: pick(w, "max", w.spec(i).dtype)(w.operand(i, 0, c), w.literal(0, w.spec(i).dtype)))

# floor, ceil and round (half to even, as NumPy's and jnp.round's; WGSL's round is too): float
# -> float, exact in every float dtype; their derivative is zero, as in JAX.
floor_p = declare("floor", unary("floor", FLOAT), np.floor)
vjp_rules.register(floor_p, nondiff)
jvp_rules.register(floor_p, nondiff_jvp)
batch_rules.register(floor_p, elementwise_batching(floor_p))
register_lowering(floor_p, ELEMENTWISE, "floor({0})")
ceil_p = declare("ceil", unary("ceil", FLOAT), np.ceil)
vjp_rules.register(ceil_p, nondiff)
jvp_rules.register(ceil_p, nondiff_jvp)
batch_rules.register(ceil_p, elementwise_batching(ceil_p))
register_lowering(ceil_p, ELEMENTWISE, "ceil({0})")
round_p = declare("round", unary("round", FLOAT), np.round)
vjp_rules.register(round_p, nondiff)
jvp_rules.register(round_p, nondiff_jvp)
batch_rules.register(round_p, elementwise_batching(round_p))
register_lowering(round_p, ELEMENTWISE, "round({0})")


# sign: -1, 0 or 1; NaN for NaN and -0 for -0, as lax.sign (WGSL's sign gives 0 for NaN on
# llvmpipe): selects that pass x itself through at 0 and NaN. 0 or 1 for unsigned integers.
# Its derivative is zero.
def _sign_impl(x: np.ndarray) -> np.ndarray:
    return np.where(x == 0, x, np.sign(x))  # NumPy's sign of -0.0 is +0.0


def _sign_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x, dtype = w.operand(i, 0, coords), w.spec(i).dtype
    zero, one = w.literal(0, dtype), w.literal(1, dtype)
    if dtype.kind == "u":
        return f"select({x}, {one}, {x} > {zero})"
    return f"select(select({x}, {w.literal(-1, dtype)}, {x} < {zero}), {one}, {x} > {zero})"


sign_p = declare("sign", unary("sign", NUMERIC), _sign_impl)
vjp_rules.register(sign_p, nondiff)
jvp_rules.register(sign_p, nondiff_jvp)
batch_rules.register(sign_p, elementwise_batching(sign_p))
register_lowering(sign_p, ELEMENTWISE, _sign_wgsl)


# silu: x s(x); d = s (1 + x (1 - s)) dx.
def _silu_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    s = fnp.sigmoid(x)
    return (g * s * (1.0 + x * (1.0 - s)),)


silu_p = declare("silu", unary("silu", FLOAT), computed_wide(lambda x: x * _sigmoid_impl(x)))
vjp_rules.register(silu_p, _silu_vjp)
jvp_rules.register(silu_p, diagonal_jvp(_silu_vjp))
batch_rules.register(silu_p, elementwise_batching(silu_p))
register_lowering(silu_p, ELEMENTWISE, _wide("({0} / (1.0f + exp_f32(-{0})))", "exp_f32"))

# gelu, tanh approximation (jax.nn.gelu's default, GPT-2's):
# gelu(x) = x/2 (1 + t), t = tanh(c (x + a x^3)), c = sqrt(2/pi), a = 0.044715;
# d gelu = (1/2 (1 + t) + x/2 (1 - t^2) c (1 + 3 a x^2)) dx.
GELU_C, GELU_A = math.sqrt(2 / math.pi), 0.044715


def _gelu_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    t = fnp.tanh((x + x * x * x * GELU_A) * GELU_C)
    return (g * ((1.0 + t) * 0.5 + x * 0.5 * (1.0 - t * t) * GELU_C * (1.0 + x * x * (3 * GELU_A))),)


gelu_p = declare("gelu", unary("gelu", FLOAT), computed_wide(lambda x: 0.5 * x * (1 + np.tanh(GELU_C * (x + GELU_A * x**3)))))
vjp_rules.register(gelu_p, _gelu_vjp)
jvp_rules.register(gelu_p, diagonal_jvp(_gelu_vjp))
batch_rules.register(gelu_p, elementwise_batching(gelu_p))
register_lowering(gelu_p, ELEMENTWISE, _wide(f"(0.5f * {{0}} * (1.0f + tanh(clamp({GELU_C!r}f * ({{0}} + {GELU_A!r}f * {{0}} * {{0}} * {{0}}), -15.0f, 15.0f))))"))

# erf: (2/sqrt(pi)) times the integral of exp(-t^2) over [0, x]; d erf = 2/sqrt(pi) exp(-x^2) dx.
# WGSL has no erf: for |x| < 1, erf(x) = x + x R(x^2); for 1 <= |x| <= 4,
# erf(x) = 1 - exp(-x^2) Q(1/|x|); beyond 4 it is +-1 in f32. R and Q are
# least-squares fits (relative error, Chebyshev nodes, float64) of erf(x)/x - 1
# and erfc(x) exp(x^2); evaluated in f32 they stay within 1.5 ulp of erf.
ERF_R = (0.12837917, -0.37612626, 0.112835854, -0.026853811, 0.0051883273, -0.000801019, 7.8538505e-05)
ERF_Q = (0.00025308836, 0.5593159, 0.04015903, -0.46466464, 0.4809338, -0.21906129, 0.004019979, 0.03800315,
         -0.0113754645)


def _erf_impl(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype)


def _horner(w: Any, coefficients: Sequence[float], u: str) -> str:
    acc = w.literal(coefficients[-1], DType.f32)
    for c in reversed(coefficients[:-1]):
        acc = w.let(f"{acc} * {u} + {w.literal(c, DType.f32)}")
    return acc


def _erf_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    w.function("is_nan", IS_NAN)

    def erf(x: str) -> str:
        a = w.let(f"min(abs({x}), 4.0f)")
        u = w.let(f"{a} * {a}")
        small = f"{a} + {a} * {_horner(w, ERF_R, u)}"
        large = f"1.0f - {function(w, 'exp_f32')}(-{u}) * {_horner(w, ERF_Q, w.let(f'1.0f / {a}'))}"
        r = w.let(f"select({large}, {small}, {a} < 1.0f)")
        return f"select({with_sign_of(r, x)}, {x}, is_nan({x}))"  # NaN stays NaN, -0 stays -0

    return widened(w, w.spec(i).dtype, erf, w.let(w.operand(i, 0, coords)))


def _erf_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.exp(fnp.neg(x * x)) * (2 / math.sqrt(math.pi)),)


erf_p = declare("erf", unary("erf", FLOAT), _erf_impl)
vjp_rules.register(erf_p, _erf_vjp)
jvp_rules.register(erf_p, diagonal_jvp(_erf_vjp))
batch_rules.register(erf_p, elementwise_batching(erf_p))
register_lowering(erf_p, ELEMENTWISE, _erf_wgsl)


# erfc: 1 - erf(x), to full relative precision in the tail, where 1 - erf(x) is 0 in f32
# (erfc(9) = 4e-37); d erfc = -2/sqrt(pi) exp(-x^2) dx. Below |x| = 0.5, 1 - (x + x R(x^2)) with
# erf's R; above, exp(-x^2) P(t) for t = 2 / (2 + |x|), P a fit of erfc(x) exp(x^2) on [0.5, 10]
# (within 5 ulp), and 2 minus that for negative x. The rounding of x^2 adds x^2 2^-24 relative
# error in the tail (as in XLA: 60 ulp at 9), and the adapter's exp its own.
ERFC_P = (3.848345841106493e-06, 0.2819766402244568, 0.2836802899837494, 0.23460249602794647, 0.2362295687198639,
          -0.1100582703948021, 0.4094441831111908, -0.6140424609184265, 0.3530077338218689, -0.07485286146402359)


def _erfc_impl(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erfc, otypes=[np.float64])(x).astype(x.dtype)


def _erfc_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    is_nan = function(w, "is_nan")

    def erfc(x: str) -> str:
        a = w.let(f"abs({x})")
        near = w.let(f"1.0f - ({x} + {x} * {horner(ERF_R, w.let(f'{x} * {x}'))})")
        tail = w.let(f"{function(w, 'exp_f32')}(-{a} * {a}) * {horner(ERFC_P, w.let(f'2.0f / (2.0f + {a})'))}")
        r = w.let(f"select(select({tail}, 2.0f - {tail}, {x} < 0.0f), {near}, {a} < 0.5f)")
        return f"select({r}, {x}, {is_nan}({x}))"

    return widened(w, w.spec(i).dtype, erfc, w.operand(i, 0, coords))


def _erfc_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.exp(fnp.neg(x * x)) * (-2 / math.sqrt(math.pi)),)


erfc_p = declare("erfc", unary("erfc", FLOAT), _erfc_impl)
vjp_rules.register(erfc_p, _erfc_vjp)
jvp_rules.register(erfc_p, diagonal_jvp(_erfc_vjp))
batch_rules.register(erfc_p, elementwise_batching(erfc_p))
register_lowering(erfc_p, ELEMENTWISE, _erfc_wgsl)


# erf_inv: the inverse of erf on (-1, 1), +-inf at +-1 and NaN beyond (lax.erf_inv); d erf_inv(x)
# = sqrt(pi)/2 exp(erf_inv(x)^2) dx, reusing the output. WGSL: Giles' approximation
# (fgrad/lower/library.py). The reference: Newton's method in float64 from that approximation,
# on erf(y) = |x|, or erfc(y) = 1 - |x| (exact in float64) from |x| = 1/2 up.
def _erf_inv_impl(x: np.ndarray) -> np.ndarray:
    erf, erfc = np.vectorize(math.erf, otypes=[np.float64]), np.vectorize(math.erfc, otypes=[np.float64])
    a = np.abs(x.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1 - a) * (1 + a))
        central, tail = np.polyval(ERF_INV_CENTRAL[::-1], w - 2.5), np.polyval(ERF_INV_TAIL[::-1], np.sqrt(w) - 3)
        y = np.where(w < 5, central, tail) * a
        inside = a < 1
        y = np.where(inside, y, 0.0)
        for _ in range(3):  # quadratic convergence from 2e-7
            miss = np.where(a < 0.5, a - erf(y), erfc(y) - (1 - a))
            y = y + miss * (math.sqrt(math.pi) / 2) * np.exp(y * y)
        y = np.where(inside, y, np.where(a == 1, np.inf, np.nan))
    return np.copysign(y, x).astype(x.dtype)


def _erf_inv_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * fnp.exp(ans * ans) * (math.sqrt(math.pi) / 2),)


erf_inv_p = declare("erf_inv", unary("erf_inv", FLOAT), _erf_inv_impl)
vjp_rules.register(erf_inv_p, _erf_inv_vjp)
jvp_rules.register(erf_inv_p, diagonal_jvp(_erf_inv_vjp))
batch_rules.register(erf_inv_p, elementwise_batching(erf_inv_p))
register_lowering(erf_inv_p, ELEMENTWISE, _wide("erf_inv_f32({0})", "erf_inv_f32"))

# logical_not: bool -> bool, no derivative.
logical_not_p = declare("logical_not", unary("logical_not", BOOL), np.logical_not)
vjp_rules.register(logical_not_p, nondiff)
jvp_rules.register(logical_not_p, nondiff_jvp)
batch_rules.register(logical_not_p, elementwise_batching(logical_not_p))
register_lowering(logical_not_p, ELEMENTWISE, "(!{0})")


# isnan and isinf: float -> bool, no derivative. Read off the bits: a shader compiler may fold
# `x != x` or `abs(x) == inf` away under its float rewrites.
def _float_test(name: str) -> Callable[..., Spec]:
    def rule(x: Spec) -> Spec:
        check_dtypes(name, FLOAT, x)
        return Spec(x.shape, DType.bool)

    return rule


isnan_p = declare("isnan", _float_test("isnan"), np.isnan)
vjp_rules.register(isnan_p, nondiff)
jvp_rules.register(isnan_p, nondiff_jvp)
batch_rules.register(isnan_p, elementwise_batching(isnan_p))
register_lowering(isnan_p, ELEMENTWISE, lambda w, i, c: f"{float_test(w, 'is_nan', w.spec(w.nodes[i].inputs[0]).dtype)}({w.operand(i, 0, c)})")
isinf_p = declare("isinf", _float_test("isinf"), np.isinf)
vjp_rules.register(isinf_p, nondiff)
jvp_rules.register(isinf_p, nondiff_jvp)
batch_rules.register(isinf_p, elementwise_batching(isinf_p))
register_lowering(isinf_p, ELEMENTWISE, lambda w, i, c: f"{float_test(w, 'is_inf', w.spec(w.nodes[i].inputs[0]).dtype)}({w.operand(i, 0, c)})")


# signbit: float -> bool, whether the sign bit is set (-0.0 and NaNs with the bit too);
# no derivative. Read off the bits of the value as f32 (widening keeps them).
def _signbit_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x = cast(w, w.operand(i, 0, coords), w.spec(w.nodes[i].inputs[0]).dtype, DType.f32)
    return f"(bitcast<u32>({x}) >= 0x80000000u)"


signbit_p = declare("signbit", _float_test("signbit"), np.signbit)
vjp_rules.register(signbit_p, nondiff)
jvp_rules.register(signbit_p, nondiff_jvp)
batch_rules.register(signbit_p, elementwise_batching(signbit_p))
register_lowering(signbit_p, ELEMENTWISE, _signbit_wgsl)


# copysign: |x| with y's sign bit, written on the bits: NVIDIA's compiler does not keep the sign of
# a constant 0 (no SPIR-V SignedZeroInfNanPreserve), so -|x| and |x| of a literal x = 0 are no
# values to select between. d/dx is +-1 (abs's derivative is 1 at -0 too, as JAX's); y has none.
def _copysign_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, None]:
    flip = fnp.logical_xor(fnp.logical_not(fnp.greater_equal(x, 0)), fnp.signbit(y))
    return fnp.where(flip, fnp.neg(g), g), None


def _copysign_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    def f32(x: str, y: str) -> str:
        return f"bitcast<f32>((bitcast<u32>({x}) & 0x7fffffffu) | (bitcast<u32>({y}) & 0x80000000u))"

    return widened(w, w.spec(i).dtype, f32, w.operand(i, 0, coords), w.operand(i, 1, coords))


copysign_p = declare("copysign", binary("copysign", FLOAT), np.copysign)
vjp_rules.register(copysign_p, _copysign_vjp)
jvp_rules.register(copysign_p, diagonal_jvp(_copysign_vjp))
batch_rules.register(copysign_p, elementwise_batching(copysign_p))
register_lowering(copysign_p, ELEMENTWISE, _copysign_wgsl)


# integer_pow: x ** n for a static integer n (exact for negative x, unlike pow);
# d x^n = n x^(n-1) dx; x^1 is x.
def _integer_pow_rule(x: Spec, *, n: int) -> Spec:
    check_dtypes("integer_pow", NUMERIC, x)
    if x.dtype.is_int and n < 0:
        raise DTypeError(f"integer_pow: negative power {n} of an integer operand {x}; cast to a float first")
    return x


def _integer_pow_vjp(g: Tensor, ans: Tensor, x: Tensor, *, n: int) -> tuple[Tensor]:
    return (g * 0.0 if n == 0 else g if n == 1 else g * (x ** (n - 1) * float(n)),)


def _integer_pow_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """x ** n by repeated squaring; 1 / x ** |n| for n < 0."""
    x, n, dtype = w.operand(i, 0, coords), w.nodes[i].attrs["n"], w.spec(i).dtype
    result, base, e = None, x, builtins.abs(n)
    while e:
        if e & 1:
            result = base if result is None else w.let(f"{result} * {base}")
        e >>= 1
        if e:
            base = w.let(f"{base} * {base}")
    one = w.literal(1, dtype)
    return one if result is None else f"{one} / {result}" if n < 0 else result


integer_pow_p = declare("integer_pow", _integer_pow_rule, lambda x, *, n: np.power(x, n))
vjp_rules.register(integer_pow_p, _integer_pow_vjp)
jvp_rules.register(integer_pow_p, diagonal_jvp(_integer_pow_vjp))
batch_rules.register(integer_pow_p, elementwise_batching(integer_pow_p))
simplify_rules.register(integer_pow_p, lambda node, nodes: node.inputs[0] if node.attrs["n"] == 1 else None)
register_lowering(integer_pow_p, ELEMENTWISE, _integer_pow_wgsl)

# NOTE: shader compilers may fold x * 0, 0 / x, x / inf, x - x, x + -x and 0 - x as if no value
# were infinite, NaN or -0 (Mesa's, on llvmpipe: x * 0 is 0 for an infinite x; NVIDIA's: x / x is
# 1 and x / inf 0 for every x), and take x / 0 as undefined (llvmpipe leaves the store out: the
# buffer keeps its old values), where they see the constant or the one x twice. The rules that
# see them (a constant operand, one operand twice) write IEEE's result without that operation.
def _nonfinite(w: Any, x: str) -> str:
    """WGSL that tests an f32 `x` for NaN or infinity (on its bits)."""
    return f"({float_test(w, 'is_nan', DType.f32)}({x}) | {float_test(w, 'is_inf', DType.f32)}({x}))"


def _constant_operand(w: Any, i: int, magnitude: float) -> tuple[int, bool] | None:
    """Which operand of float node i is a constant of `magnitude` (0 or inf), and whether it is
    negative (-0 counts as negative), if one is."""
    node = w.nodes[i]
    if node.spec.dtype.is_float:
        for k in (0, 1):
            c = uniform_constant(w.nodes, node.inputs[k])
            if c is not None and abs(c) == magnitude:
                return k, math.copysign(1.0, c) < 0
    return None


def _signed_zero(w: Any, i: int, x: str, negative: bool, undefined: Callable[[str], str]) -> str:
    """Node i, x times 0 or over inf: 0 with x's sign (flipped if `negative`), NaN where x is NaN
    or `undefined(x)` holds (WGSL over an f32 x)."""

    def f32(v: str) -> str:
        sign = f"(bitcast<u32>({v}) & 0x80000000u){' ^ 0x80000000u' if negative else ''}"
        return f"select(bitcast<f32>({sign}), {NAN}, {float_test(w, 'is_nan', DType.f32)}({v}) | ({undefined(v)}))"

    return widened(w, w.spec(i).dtype, f32, x)


def _less_itself(w: Any, i: int, x: str) -> str:
    """x - x: 0, NaN for an infinite or NaN x."""
    return widened(w, w.spec(i).dtype, lambda v: f"select(0.0f, {NAN}, {_nonfinite(w, v)})", x)


# add: d(x + y) = dx + dy; x + 0 is x.
add_p = declare("add", binary("add", NUMERIC), np.add)
vjp_rules.register(add_p, lambda g, ans, x, y: (g, g))
jvp_rules.register(add_p, linear_jvp(add_p))
batch_rules.register(add_p, elementwise_batching(add_p))
simplify_rules.register(add_p, _identity_if(-1, 0))


def _add_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x, y = w.operand(i, 0, coords), w.operand(i, 1, coords)
    node, nodes = w.nodes[i], w.nodes
    for k in (0, 1):  # x + -x, as x - x
        other = nodes[node.inputs[1 - k]]
        if node.spec.dtype.is_float and other.op == neg_p.name and other.inputs[0] == node.inputs[k]:
            return _less_itself(w, i, (x, y)[k])
    return f"({x} + {y})"


register_lowering(add_p, ELEMENTWISE, _add_wgsl)

# sub: d(x - y) = dx - dy; x - 0 is x.
sub_p = declare("sub", binary("sub", NUMERIC), np.subtract)
vjp_rules.register(sub_p, lambda g, ans, x, y: (g, fnp.neg(g)))
jvp_rules.register(sub_p, linear_jvp(sub_p))
batch_rules.register(sub_p, elementwise_batching(sub_p))
simplify_rules.register(sub_p, _identity_if(1, 0))


def _sub_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x, y = w.operand(i, 0, coords), w.operand(i, 1, coords)
    node = w.nodes[i]
    if node.spec.dtype.is_float and node.inputs[0] == node.inputs[1]:
        return _less_itself(w, i, x)
    if _constant_operand(w, i, 0.0) == (0, False):  # +0 - y: -y, but +0 for y = ±0
        return f"select(-{y}, {w.literal(0.0, node.spec.dtype)}, {y} == {w.literal(0.0, node.spec.dtype)})"
    return f"({x} - {y})"


register_lowering(sub_p, ELEMENTWISE, _sub_wgsl)

# mul: d(x y) = y dx + x dy; x * 1 is x.
mul_p = declare("mul", binary("mul", NUMERIC), np.multiply)
vjp_rules.register(mul_p, lambda g, ans, x, y: (g * y, g * x))
jvp_rules.register(mul_p, multilinear_jvp(mul_p))
batch_rules.register(mul_p, elementwise_batching(mul_p))
simplify_rules.register(mul_p, _identity_if(-1, 1))


def _mul_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    zero = _constant_operand(w, i, 0.0)
    if zero is not None:
        k, negative = zero
        return _signed_zero(w, i, w.operand(i, 1 - k, coords), negative,
                            lambda v: f"{float_test(w, 'is_inf', DType.f32)}({v})")
    return f"({w.operand(i, 0, coords)} * {w.operand(i, 1, coords)})"


register_lowering(mul_p, ELEMENTWISE, _mul_wgsl)

# div: d(x / y) = dx / y - (x / y) dy / y; x / 1 is x. Integers divide truncating toward zero, as
# XLA's (lax.div): x / 0 is -1 (all bits set: the largest u32) and INT_MIN / -1 wraps to INT_MIN.
# NOTE: signed integers divide as their magnitudes, in u32: WGSL's x / 0 is x, and naga's GLSL
# (llvmpipe through OpenGL) leaves / and % of negative operands undefined (9 % -3 gave 9).
def _truncated_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x / y truncated toward zero, on integers widened to int64 (y = 0 gives 0)."""
    x, y = x.astype(np.int64), y.astype(np.int64)
    safe = np.where(y == 0, 1, y)
    return np.where(y == 0, 0, np.abs(x) // np.abs(safe) * np.sign(x) * np.sign(safe))


def _div_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "f":
        return np.divide(x, y)
    return np.where(y == 0, -1, _truncated_div(x, y)).astype(x.dtype)  # -1 wraps to the largest u32


def _magnitudes(w: Any, x: str, y: str, dtype: DType) -> tuple[str, str]:
    """WGSL for |x| and |y| as u32 (|INT_MIN| = 2^31 included), |y| at least 1."""
    if dtype.kind == "u":
        return x, w.let(f"max({y}, 1u)")

    def magnitude(v: str) -> str:
        return f"select(bitcast<u32>({v}), 0u - bitcast<u32>({v}), {v} < 0i)"

    return w.let(magnitude(x)), w.let(f"max({magnitude(y)}, 1u)")


def _div_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x, y, dtype = w.operand(i, 0, coords), w.operand(i, 1, coords), w.spec(i).dtype
    if dtype.is_float:
        zero, infinite = _constant_operand(w, i, 0.0), _constant_operand(w, i, math.inf)
        if zero is not None and zero[0] == 1:  # x / ±0 is x * ±inf, for every x
            return f"({x} * {w.literal(-math.inf if zero[1] else math.inf, dtype)})"
        if zero is not None:  # ±0 / y: 0 with the quotient's sign, NaN for a 0 or NaN y
            return _signed_zero(w, i, y, zero[1], lambda v: f"{v} == 0.0f")
        if infinite is not None and infinite[0] == 1:  # x / ±inf: signed 0, NaN for an infinite or NaN x
            return _signed_zero(w, i, x, infinite[1], lambda v: f"{float_test(w, 'is_inf', DType.f32)}({v})")
        if w.nodes[i].inputs[0] == w.nodes[i].inputs[1]:  # x / x: 1, NaN for a 0, infinite or NaN x
            return widened(w, dtype, lambda v: f"select(1.0f, {NAN}, ({v} == 0.0f) | {_nonfinite(w, v)})", x)
        return f"({x} / {y})"
    ax, ay = _magnitudes(w, x, y, dtype)
    q = w.let(f"{ax} / {ay}")
    if dtype.kind == "i":
        q = w.let(f"select(bitcast<i32>({q}), 0i - bitcast<i32>({q}), ({x} < 0i) != ({y} < 0i))")
    return f"select({q}, {w.literal(-1 if dtype.kind == 'i' else 2**32 - 1, dtype)}, {y} == {w.literal(0, dtype)})"


def _div_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    return g / y, fnp.neg(g * ans / y)


div_p = declare("div", binary("div", NUMERIC), _div_impl)
vjp_rules.register(div_p, _div_vjp)
jvp_rules.register(div_p, diagonal_jvp(_div_vjp))
batch_rules.register(div_p, elementwise_batching(div_p))
simplify_rules.register(div_p, _identity_if(1, 1))
register_lowering(div_p, ELEMENTWISE, _div_wgsl)


# rem: the remainder of the division truncated toward zero, with x's sign (lax.rem): C's fmod on
# floats, exact (fgrad/lower/library.py), NaN for y = 0; on integers x rem 0 is x and
# INT_MIN rem -1 is 0, as XLA's. d rem = dx - trunc(x / y) dy (JAX's: sign(x / y) floor(|x / y|)).
def _rem_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.fmod(x, y)
    wide_x = x.astype(np.int64)
    return np.where(y == 0, wide_x, wide_x - _truncated_div(x, y) * y.astype(np.int64)).astype(x.dtype)


def _rem_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    q = x / y
    return g, fnp.neg(g * fnp.sign(q) * fnp.floor(fnp.abs(q)))


def _rem_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x, y, dtype = w.operand(i, 0, coords), w.operand(i, 1, coords), w.spec(i).dtype
    if dtype.is_float:
        return widened(w, dtype, lambda a, b: f"{function(w, 'fmod_f32')}({a}, {b})", x, y)
    ax, ay = _magnitudes(w, x, y, dtype)
    r = w.let(f"{ax} % {ay}")
    if dtype.kind == "i":
        r = w.let(f"select(bitcast<i32>({r}), 0i - bitcast<i32>({r}), {x} < 0i)")
    return f"select({r}, {x}, {y} == {w.literal(0, dtype)})"


rem_p = declare("rem", binary("rem", NUMERIC), _rem_impl)
vjp_rules.register(rem_p, _rem_vjp)
jvp_rules.register(rem_p, diagonal_jvp(_rem_vjp))
batch_rules.register(rem_p, elementwise_batching(rem_p))
register_lowering(rem_p, ELEMENTWISE, _rem_wgsl)


# pow: x^y as C's pow (NumPy's, JAX's): x^0 and 1^y are 1 even for NaN; a negative base
# takes integral exponents (odd ones keep its sign, -0 included) and gives NaN for others;
# 0 and inf follow the limits (0^-0.7 = inf, (-inf)^0.3 = inf, (-1)^inf = 1).
# d = y x^(y-1) dx + log(x) x^y dy, as JAX: log taken as 0 at x = 0, and dx = 0 where y = 0.
def _pow_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    return g * fnp.where(y == 0.0, 0.0, y * fnp.pow(x, y - 1.0)), g * ans * fnp.log(fnp.where(x == 0.0, 1.0, x))


def _pow_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    power = function(w, "power_f32")
    return widened(w, w.spec(i).dtype, lambda x, y: f"{power}({x}, {y})", w.operand(i, 0, coords), w.operand(i, 1, coords))


def _c_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C's pow (XLA's, JAX's). NumPy's float32 loops differ for the bases -inf and -0.0 with some
    exponents (they give sqrt's NaN and -0.0 for y = 0.5): there the sign survives only an odd
    integral exponent, as C's pow says."""
    out = np.power(x, y)
    even = np.mod(y, 2) != 1  # NaN exponents compare unequal too, and keep np.power's NaN
    inf_base, zero_base = np.isneginf(x) & even, (x == 0) & np.signbit(x) & even
    return np.where(inf_base & (y > 0), np.inf, np.where((inf_base & (y < 0)) | (zero_base & (y > 0)), 0.0, out))


pow_p = declare("pow", binary("pow", FLOAT), computed_wide(_c_pow))
vjp_rules.register(pow_p, _pow_vjp)
jvp_rules.register(pow_p, diagonal_jvp(_pow_vjp))
batch_rules.register(pow_p, elementwise_batching(pow_p))
register_lowering(pow_p, ELEMENTWISE, _pow_wgsl)


# logaddexp: log(e^x + e^y), by `log_add_exp_f32` (the library's: no overflow, the smaller term
# kept, NaN and infinities as NumPy's). d = e^(x - ans) dx + e^(y - ans) dy, +inf counted as 0 in
# both exponents (JAX's rule, so the derivatives at x = y = inf are 1). A primitive, so that both
# are 1/2 at x = y (softplus'(0)).
def _logaddexp_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    def finite(v: Tensor) -> Tensor:
        return fnp.where(v == math.inf, 0.0, v)

    return g * fnp.exp(finite(x) - finite(ans)), g * fnp.exp(finite(y) - finite(ans))


def _logaddexp_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    name = function(w, "log_add_exp_f32")
    return widened(w, w.spec(i).dtype, lambda x, y: f"{name}({x}, {y})", w.operand(i, 0, coords),
                   w.operand(i, 1, coords))


logaddexp_p = declare("logaddexp", binary("logaddexp", FLOAT), computed_wide(np.logaddexp))
vjp_rules.register(logaddexp_p, _logaddexp_vjp)
jvp_rules.register(logaddexp_p, diagonal_jvp(_logaddexp_vjp))
batch_rules.register(logaddexp_p, elementwise_batching(logaddexp_p))
register_lowering(logaddexp_p, ELEMENTWISE, _logaddexp_wgsl)


# maximum / minimum: NaN wins, as in NumPy; on bools they are or / and. Each operand's
# cotangent is g times its share: 1 where it equals the result, 1/2 on a tie, 0 elsewhere;
# where the result is NaN neither equals it. As JAX, a product, so an infinite or NaN g
# gives NaN to the operand that was not chosen too.
def _choose_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    x_hit, y_hit = fnp.equal(x, ans), fnp.equal(y, ans)

    def share(hit: Tensor, other: Tensor) -> Tensor:
        return fnp.astype(fnp.where(hit, fnp.where(other, 0.5, 1.0), 0.0), g.dtype)

    return g * share(x_hit, y_hit), g * share(y_hit, x_hit)


def _pick_wgsl(which: str) -> Callable[..., str]:
    return lambda w, i, c: pick(w, which, w.spec(i).dtype)(w.operand(i, 0, c), w.operand(i, 1, c))


maximum_p = declare("maximum", binary("maximum", ANY), np.maximum)
vjp_rules.register(maximum_p, _choose_vjp)
jvp_rules.register(maximum_p, diagonal_jvp(_choose_vjp))
batch_rules.register(maximum_p, elementwise_batching(maximum_p))
register_lowering(maximum_p, ELEMENTWISE, _pick_wgsl("max"))
minimum_p = declare("minimum", binary("minimum", ANY), np.minimum)
vjp_rules.register(minimum_p, _choose_vjp)
jvp_rules.register(minimum_p, diagonal_jvp(_choose_vjp))
batch_rules.register(minimum_p, elementwise_batching(minimum_p))
register_lowering(minimum_p, ELEMENTWISE, _pick_wgsl("min"))

# Comparisons and logic: bool results, no derivative.
def _comparison(name: str, allowed: tuple[DType, ...], impl: Callable[..., np.ndarray], wgsl: str) -> Primitive:
    primitive = declare(name, binary(name, allowed, DType.bool), impl)
    vjp_rules.register(primitive, nondiff)
    jvp_rules.register(primitive, nondiff_jvp)
    batch_rules.register(primitive, elementwise_batching(primitive))
    register_lowering(primitive, ELEMENTWISE, wgsl)
    return primitive


eq_p = _comparison("eq", ANY, np.equal, "({0} == {1})")
# ne of floats also tests for NaN on the bits: a GPU compiler that assumes finite values (WGSL
# allows it; the H100's does) compiles `!=` as an ordered comparison, false beside a NaN.
def _ne_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    a, b = w.operand(i, 0, coords), w.operand(i, 1, coords)
    dtype = w.spec(w.nodes[i].inputs[0]).dtype
    if not dtype.is_float:
        return f"({a} != {b})"
    is_nan = float_test(w, "is_nan", dtype)
    return f"(({a} != {b}) || {is_nan}({a}) || {is_nan}({b}))"


ne_p = _comparison("ne", ANY, np.not_equal, _ne_wgsl)
lt_p = _comparison("lt", NUMERIC, np.less, "({0} < {1})")
le_p = _comparison("le", NUMERIC, np.less_equal, "({0} <= {1})")
gt_p = _comparison("gt", NUMERIC, np.greater, "({0} > {1})")
ge_p = _comparison("ge", NUMERIC, np.greater_equal, "({0} >= {1})")
logical_and_p = _comparison("logical_and", BOOL, np.logical_and, "({0} && {1})")
logical_or_p = _comparison("logical_or", BOOL, np.logical_or, "({0} || {1})")


# where: x where cond holds, else y; the cotangent is routed the same way, and the tangent is where
# of the tangents (linear in x and y; the bool cond passes as it is).
def _where_rule(cond: Spec, x: Spec, y: Spec) -> Spec:
    check_dtypes("where", BOOL, cond)
    return elementwise("where", 3, ANY)(Spec(cond.shape, x.dtype), x, y)


where_p = declare("where", _where_rule, np.where)
vjp_rules.register(where_p, lambda g, ans, c, x, y: (None, fnp.where(c, g, 0.0), fnp.where(c, 0.0, g)))
jvp_rules.register(where_p, linear_jvp(where_p))
batch_rules.register(where_p, elementwise_batching(where_p))


def _where_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    c, x, y = (w.operand(i, k, coords) for k in range(3))
    node = w.nodes[i]
    constants = [uniform_constant(w.nodes, k) for k in node.inputs[1:]]
    negative_zero = any(v == 0 and math.copysign(1.0, v) < 0 for v in constants if v is not None)
    if not (node.spec.dtype.is_float and negative_zero):
        return f"select({y}, {x}, {c})"
    # NOTE: where a branch is the constant -0, a blend of the bits: Mesa's compiler (llvmpipe) makes
    # select(-0.0, 1.0, c), even a select of the bits, a bool-to-float conversion (+0). NVIDIA's takes
    # a module's float constants -0 and +0 as one whatever the form (tests/test_special_values.py).
    def blend(u: str, v: str) -> str:
        a, b = f"bitcast<u32>({u})", f"bitcast<u32>({v})"
        return f"bitcast<f32>({a} ^ (({a} ^ {b}) & (0u - u32({c}))))"

    return widened(w, node.spec.dtype, blend, y, x)


register_lowering(where_p, ELEMENTWISE, _where_wgsl)

# astype: convert dtype. float -> int truncates toward zero and saturates, NaN giving 0
# (XLA's convert, so jnp's astype; NumPy's cast leaves NaN and out-of-range values
# undefined, and a shader compiler may fold the round trip f32(i32(x)) into trunc(x));
# int -> int wraps; -> bool is x != 0. Only float -> float carries a derivative: the
# cotangent converted back, the tangent converted forward (linear: jvp never asks for an
# integer operand's tangent or an integer result's).
def convert(x: np.ndarray, dtype: DType) -> np.ndarray:
    """`x` as `dtype` by astype's rules (constants convert here too)."""
    x = np.asarray(x)
    if dtype.is_float and x.dtype == np.float64:  # interpret's float64 mode: every float computes in float64
        return x
    if x.dtype != dtype.np:  # a bfloat16 exactly as an f32, whose rules then apply
        x = computed(x)
    if dtype.is_int and x.dtype.kind == "f":
        info = np.iinfo(dtype.np)
        x = np.where(np.isnan(x), 0.0, np.clip(x.astype(np.float64), float(info.min), float(info.max)))
    with np.errstate(over="ignore"):  # floats too large for a narrower float become inf, as in XLA
        return x.astype(dtype.np)


def _astype_vjp(g: Tensor, ans: Tensor, x: Tensor, *, dtype: DType) -> tuple[Tensor | None]:
    return (fnp.astype(g, x.dtype) if x.dtype.is_float and dtype.is_float else None,)


def _astype_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    return cast(w, w.operand(i, 0, coords), w.spec(w.nodes[i].inputs[0]).dtype, w.spec(i).dtype)


astype_p = declare("astype", lambda x, *, dtype: Spec(x.shape, dtype), lambda x, *, dtype: convert(x, dtype))
vjp_rules.register(astype_p, _astype_vjp)
jvp_rules.register(astype_p, linear_jvp(astype_p))
batch_rules.register(astype_p, elementwise_batching(astype_p))
register_lowering(astype_p, CONVERSION, _astype_wgsl)

# stop_gradient: identity whose derivative is zero.
stop_gradient_p = declare("stop_gradient", lambda x: x, lambda x: x)
vjp_rules.register(stop_gradient_p, nondiff)
jvp_rules.register(stop_gradient_p, nondiff_jvp)
batch_rules.register(stop_gradient_p, elementwise_batching(stop_gradient_p))
register_lowering(stop_gradient_p, ELEMENTWISE, "{0}")


# lgamma: log|Gamma(x)| (lax.lgamma): +inf at 0, at the negative integers and at +-inf; d lgamma(x) =
# digamma(x) dx. WGSL: fgrad/lower/library.py, relatively accurate at the roots 1 and 2 (XLA's is 5e-7
# off there). The reference: math.lgamma in float64.
def _lgamma_impl(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    pole = (x <= 0) & (np.floor(x) == x)  # -inf too
    out = np.vectorize(math.lgamma, otypes=[np.float64])(np.where(pole | np.isnan(x), 1.0, x))
    return np.where(pole, np.inf, np.where(np.isnan(x), x, out))


def _lgamma_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * bind(digamma_p, x),)


lgamma_p = declare("lgamma", unary("lgamma", FLOAT), computed_wide(_lgamma_impl))
vjp_rules.register(lgamma_p, _lgamma_vjp)
jvp_rules.register(lgamma_p, diagonal_jvp(_lgamma_vjp))
batch_rules.register(lgamma_p, elementwise_batching(lgamma_p))
register_lowering(lgamma_p, ELEMENTWISE, _wide("lgamma_f32({0})", "lgamma_f32"))


# digamma: psi(x) = Gamma'(x) / Gamma(x) (lax.digamma): -inf at +-0 (jax 0.11's; jax 0.10 gave NaN),
# NaN at the negative integers and at -inf, +inf at +inf; d digamma(x) = polygamma(1, x) dx. WGSL: fgrad/lower/library.py. The reference,
# in float64: below 0 the reflection psi(1 - x) - pi cot(pi x), pi x reduced exactly (x - round(x));
# the recurrence psi(y) = psi(y + 1) - 1 / y up to 10, then the asymptotic series (to B_14).
def _digamma_impl(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        r = x - np.round(x)
        y = np.where(x < 0, 1 - x, x)
        shift = np.zeros_like(y)
        for _ in range(10):
            low = y < 10
            shift, y = shift - np.where(low, 1 / y, 0.0), np.where(low, y + 1, y)
        u = 1 / (y * y)
        series = np.polyval([b / (2 * k) for k, b in reversed(list(enumerate(BERNOULLI[:7], 1)))], u)
        psi = np.log(y) - 0.5 / y - u * series + shift
        psi = np.where(x < 0, psi - np.pi * np.cos(np.pi * r) / np.sin(np.pi * r), psi)
        return np.where(((x < 0) & (r == 0)) | np.isneginf(x), np.nan, np.where(x == 0, -np.inf, psi))


def _digamma_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    return (g * bind(polygamma_p, x, m=1),)


digamma_p = declare("digamma", unary("digamma", FLOAT), computed_wide(_digamma_impl))
vjp_rules.register(digamma_p, _digamma_vjp)
jvp_rules.register(digamma_p, diagonal_jvp(_digamma_vjp))
batch_rules.register(digamma_p, elementwise_batching(digamma_p))
register_lowering(digamma_p, ELEMENTWISE, _wide("digamma_f32({0})", "digamma_f32"))


# polygamma: psi^(m)(x), the m-th derivative of digamma, for a static order m >= 1 (lax.polygamma with
# an integer m); d polygamma(m, x) = polygamma(m + 1, x) dx. Not public: digamma's derivatives bind it,
# and one primitive for every m lets lgamma and digamma differentiate to any order. +inf at 0 and the
# negative integers for odd m, NaN for even m; 0 at +inf, NaN at -inf. WGSL: fgrad/lower/library.py.
# The reference, in float64: (-1)^(m+1) m! zeta(m + 1, x) from 0 up (`zeta_tail`, eight terms), and
# below the reflection -m! zeta(m + 1, 1 - x) - pi^(m+1) Q(cot(pi x)) (`cot_derivative`).
def _polygamma_impl(x: np.ndarray, m: int) -> np.ndarray:
    s, factorial = m + 1, math.factorial(m)
    n, tail = zeta_tail(s, 8, 2.0**-54)
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        r = x - np.round(x)
        y = np.where(x < 0, 1 - x, x)
        zeta = np.zeros_like(y)
        for _ in range(n):
            low = y < n
            zeta, y = zeta + np.where(low, y**-s, 0.0), np.where(low, y + 1, y)
        t = 1 / y
        zeta = zeta + t ** (s - 1) * (1 / (s - 1) + t * (0.5 + t * np.polyval(tail[::-1], t * t)))
        cot = np.cos(np.pi * r) / np.sin(np.pi * r)
        reflected = -factorial * zeta - np.pi ** (m + 1) * np.polyval(cot_derivative(m)[::-1], cot)
        psi = np.where(x < 0, reflected, (-1) ** (m + 1) * factorial * zeta)
        psi = np.where(np.isinf(x), np.where(x > 0, 0.0, np.nan), psi)
        return np.where((x <= 0) & (r == 0), np.inf if m % 2 else np.nan, psi)


def _polygamma_vjp(g: Tensor, ans: Tensor, x: Tensor, *, m: int) -> tuple[Tensor]:
    return (g * bind(polygamma_p, x, m=m + 1),)


def _polygamma_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    name = polygamma(w, w.nodes[i].attrs["m"])
    return widened(w, w.spec(i).dtype, lambda x: f"{name}({x})", w.operand(i, 0, coords))


polygamma_p = declare("polygamma", lambda x, *, m: unary("polygamma", FLOAT)(x),
                      lambda x, *, m: computed_wide(lambda v: _polygamma_impl(v, m))(x))
vjp_rules.register(polygamma_p, _polygamma_vjp)
jvp_rules.register(polygamma_p, diagonal_jvp(_polygamma_vjp))
batch_rules.register(polygamma_p, elementwise_batching(polygamma_p))
register_lowering(polygamma_p, ELEMENTWISE, _polygamma_wgsl)
