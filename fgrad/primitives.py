"""The primitives: one block each, holding all of it.

A block declares the primitive (name, abstract evaluation, NumPy
implementation: what `interpret` runs) and registers, next to it, its rule in
each interpretation's table: reverse mode (`vjp_rules`, fgrad/transforms/autodiff.py),
algebraic identities (`simplify_rules`, fgrad/transforms/passes.py) and the WGSL
lowering (`lowerings`: kernel kind and WGSL, fgrad/lower/kinds.py). Primitives
are strict: elementwise ones take operands of one shape and one dtype. The
public functions (fgrad/numpy.py) promote, broadcast and validate, then bind
primitives, so every broadcast and cast is a visible node in the graph.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import Const, DType, Node, Spec, constant_p, declare, input_p
from fgrad.lower.kinds import ELEMENTWISE, NORMALIZATION, REDUCTION, SOURCE, VIEW, Contraction, Reduction, View, register_lowering
from fgrad.lower.rewrites import rewrite_rules, split_long_matmul, split_long_reduction, split_wide_concatenate
from fgrad.lower.library import IS_INF, IS_NAN, POWER_F32, cast, pick
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import nondiff, vjp_rules
from fgrad.transforms.passes import simplify_rules, uniform_constant, uniform_through

# ---------------------------------------------------------------------------
# Rule helpers
# ---------------------------------------------------------------------------

FLOAT = (DType.f32,)
NUMERIC = (DType.f32, DType.i32)
ANY = (DType.f32, DType.i32, DType.bool)
BOOL = (DType.bool,)


def _check_dtypes(name: str, allowed: tuple[DType, ...], *specs: Spec) -> None:
    bad = [s for s in specs if s.dtype not in allowed]
    if bad:
        kinds = "/".join(map(str, allowed))
        raise DTypeError(f"{name}: expected {kinds} operands, got {', '.join(map(str, specs))}")


def elementwise(name: str, arity: int, allowed: tuple[DType, ...], out: DType | None = None) -> Callable[..., Spec]:
    """Rule of an elementwise op of `arity` operands: one shape, one dtype among `allowed`."""

    def rule(*specs: Spec) -> Spec:
        if len(specs) != arity:
            raise TypeError(f"{name}: takes {arity} operands, got {len(specs)}")
        _check_dtypes(name, allowed, *specs)
        if len({s.shape for s in specs}) > 1:
            raise ShapeError(f"{name}: operand shapes differ: {', '.join(str(s.shape) for s in specs)}")
        if len({s.dtype for s in specs}) > 1:
            raise DTypeError(f"{name}: operand dtypes differ: {', '.join(map(str, specs))}")
        return Spec(specs[0].shape, out or specs[0].dtype)

    return rule


def unary(name: str, allowed: tuple[DType, ...]) -> Callable[..., Spec]:
    return elementwise(name, 1, allowed)


def binary(name: str, allowed: tuple[DType, ...], out: DType | None = None) -> Callable[..., Spec]:
    return elementwise(name, 2, allowed, out)


def _check_axes(name: str, x: Spec, axes: tuple[int, ...]) -> None:
    if list(axes) != sorted(set(axes)) or any(not 0 <= a < x.ndim for a in axes):
        raise ShapeError(f"{name}: axes {axes} must be sorted, unique and within 0..{x.ndim - 1} for {x.shape}")


def reduction(name: str, allowed: tuple[DType, ...]) -> Callable[..., Spec]:
    """Rule of a reduction over `axes` (sorted, unique, non-negative)."""

    def rule(x: Spec, *, axes: tuple[int, ...]) -> Spec:
        _check_dtypes(name, allowed, x)
        _check_axes(name, x, axes)
        return Spec(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)

    return rule


def along_axis(name: str) -> Callable[..., Spec]:
    """Rule of a float op normalising along one axis (softmax, log_softmax)."""

    def rule(x: Spec, *, axis: int) -> Spec:
        _check_dtypes(name, FLOAT, x)
        _check_axes(name, x, (axis,))
        return x

    return rule


def _stable_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _stable_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _same_last_axis(node: Node, x: Spec) -> str | None:
    """A view whose last axis walks its operand's last axis (or whole runs of it)."""
    keeps = x.ndim > 0 and node.spec.ndim > 0 and x.shape[-1] % node.spec.shape[-1] == 0 and x.shape[-1] != 1
    return "same" if keeps else None


def _squeezed(shape: tuple[int, ...]) -> list[int]:
    return [d for d in shape if d != 1]


# ---------------------------------------------------------------------------
# Primitives: one block each
# ---------------------------------------------------------------------------
# A VJP rule is `vjp(g, ans, *inputs, **params) -> one cotangent (or None)
# per input`, written with the public functions (fnp) so that it can be
# differentiated again. A simplify rule is `simplify(node, nodes) -> an
# existing node id, a replacement Node, or None` (fgrad/transforms/passes.py).
# A lowering is a kernel kind and a WGSL rule (fgrad/lower/kinds.py).

def _identity_if(side: int, unit: float) -> Callable[[Node, Sequence[Node]], int | None]:
    """Simplify rule: `x op unit` is x; `side` is which operand may be the unit (0, 1, or -1 for both)."""

    def rule(node: Node, nodes: Sequence[Node]) -> int | None:
        for k in ((0, 1) if side == -1 else (side,)):
            if uniform_constant(nodes, node.inputs[k]) == unit and nodes[node.inputs[1 - k]].spec == node.spec:
                return node.inputs[1 - k]
        return None

    return rule


# input: a graph argument; interpret and the runtime supply its value. constant: an array
# baked into the graph (numbers and arrays closed over). Both are declared with the IR;
# in WGSL a constant whose elements are all equal is a literal, others are buffers.
vjp_rules.register(input_p, nondiff)
vjp_rules.register(constant_p, nondiff)
register_lowering(input_p, SOURCE, None)
register_lowering(constant_p, SOURCE, lambda w, i, c: w.literal(uniform_constant(w.nodes, i), w.spec(i).dtype))


# iota: integers counting along `axis` of `shape` (arange, masks).
def _iota_rule(*, shape: tuple[int, ...], axis: int, dtype: DType) -> Spec:
    out = Spec(shape, dtype)
    _check_dtypes("iota", NUMERIC, out)
    _check_axes("iota", out, (axis,))
    return out


def _iota_impl(*, shape: tuple[int, ...], axis: int, dtype: DType) -> np.ndarray:
    count = np.arange(shape[axis], dtype=dtype.np).reshape([-1 if i == axis else 1 for i in range(len(shape))])
    return np.broadcast_to(count, shape)


iota_p = declare("iota", _iota_rule, _iota_impl)
vjp_rules.register(iota_p, nondiff)
register_lowering(iota_p, VIEW, lambda w, i, c: cast(w, c[w.nodes[i].attrs["axis"]], DType.i32, w.spec(i).dtype))

# neg: d(-x) = -dx; -(-x) is x.
neg_p = declare("neg", unary("neg", NUMERIC), np.negative)
vjp_rules.register(neg_p, lambda g, ans, x: (fnp.neg(g),))
simplify_rules.register(neg_p, lambda node, nodes: nodes[node.inputs[0]].inputs[0] if nodes[node.inputs[0]].op == "neg" else None)
register_lowering(neg_p, ELEMENTWISE, "(-{0})")

# abs: d|x| = sign(x) dx, taken as +1 at 0 (and -1 at NaN): JAX's select(x >= 0, g, -g).
abs_p = declare("abs", unary("abs", NUMERIC), np.abs)
vjp_rules.register(abs_p, lambda g, ans, x: (fnp.where(x >= 0, g, fnp.neg(g)),))
register_lowering(abs_p, ELEMENTWISE, "abs({0})")

# exp: d exp(x) = exp(x) dx, reusing the output.
exp_p = declare("exp", unary("exp", FLOAT), np.exp)
vjp_rules.register(exp_p, lambda g, ans, x: (g * ans,))
register_lowering(exp_p, ELEMENTWISE, "exp({0})")

# log: d log(x) = dx / x.
log_p = declare("log", unary("log", FLOAT), np.log)
vjp_rules.register(log_p, lambda g, ans, x: (g / x,))
register_lowering(log_p, ELEMENTWISE, "log({0})")

# sqrt: d sqrt(x) = dx / (2 sqrt(x)).
sqrt_p = declare("sqrt", unary("sqrt", FLOAT), np.sqrt)
vjp_rules.register(sqrt_p, lambda g, ans, x: (g / (ans * 2.0),))
register_lowering(sqrt_p, ELEMENTWISE, "sqrt({0})")

# rsqrt: d x^(-1/2) = -1/2 x^(-3/2) dx = -1/2 rsqrt(x) / x dx.
rsqrt_p = declare("rsqrt", unary("rsqrt", FLOAT), lambda x: 1 / np.sqrt(x))
vjp_rules.register(rsqrt_p, lambda g, ans, x: (g * ans / x * -0.5,))
register_lowering(rsqrt_p, ELEMENTWISE, "inverseSqrt({0})")

# sin and cos: d sin(x) = cos(x) dx, d cos(x) = -sin(x) dx (schedules, positional codes).
sin_p = declare("sin", unary("sin", FLOAT), np.sin)
vjp_rules.register(sin_p, lambda g, ans, x: (g * fnp.cos(x),))
register_lowering(sin_p, ELEMENTWISE, "sin({0})")
cos_p = declare("cos", unary("cos", FLOAT), np.cos)
vjp_rules.register(cos_p, lambda g, ans, x: (fnp.neg(g * fnp.sin(x)),))
register_lowering(cos_p, ELEMENTWISE, "cos({0})")

# tanh: d tanh(x) = (1 - tanh(x)^2) dx.
# NOTE: the clamp keeps tanh's exponentials finite on every backend; it would turn NaN
# into -15, so NaN is passed through on its own.
def _tanh_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x = w.operand(i, 0, coords)
    return f"select(tanh(clamp({x}, -15.0f, 15.0f)), {x}, {w.function('is_nan', IS_NAN)}({x}))"


tanh_p = declare("tanh", unary("tanh", FLOAT), np.tanh)
vjp_rules.register(tanh_p, lambda g, ans, x: (g * (1.0 - ans * ans),))
register_lowering(tanh_p, ELEMENTWISE, _tanh_wgsl)

# sigmoid: s(x) = (tanh(x/2) + 1) / 2 (no exp overflow); ds = s (1 - s) dx.
sigmoid_p = declare("sigmoid", unary("sigmoid", FLOAT), lambda x: 0.5 * (np.tanh(0.5 * x) + 1))
vjp_rules.register(sigmoid_p, lambda g, ans, x: (g * ans * (1.0 - ans),))
register_lowering(sigmoid_p, ELEMENTWISE, "(1.0f / (1.0f + exp(-{0})))")

# relu: max(x, 0) (NaN stays NaN); derivative 1 where x > 0, else 0.
relu_p = declare("relu", unary("relu", NUMERIC), lambda x: np.maximum(x, 0))
vjp_rules.register(relu_p, lambda g, ans, x: (fnp.where(x > 0, g, 0.0),))
register_lowering(relu_p, ELEMENTWISE, lambda w, i, c: pick(w, "max", w.spec(i).dtype)(w.operand(i, 0, c), w.literal(0, w.spec(i).dtype)))

# silu: x s(x); d = s (1 + x (1 - s)) dx.
def _silu_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    s = fnp.sigmoid(x)
    return (g * s * (1.0 + x * (1.0 - s)),)


silu_p = declare("silu", unary("silu", FLOAT), lambda x: x * 0.5 * (np.tanh(0.5 * x) + 1))
vjp_rules.register(silu_p, _silu_vjp)
register_lowering(silu_p, ELEMENTWISE, "({0} / (1.0f + exp(-{0})))")

# gelu, tanh approximation (jax.nn.gelu's default, GPT-2's):
# gelu(x) = x/2 (1 + t), t = tanh(c (x + a x^3)), c = sqrt(2/pi), a = 0.044715;
# d gelu = (1/2 (1 + t) + x/2 (1 - t^2) c (1 + 3 a x^2)) dx.
GELU_C, GELU_A = math.sqrt(2 / math.pi), 0.044715


def _gelu_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    t = fnp.tanh((x + x * x * x * GELU_A) * GELU_C)
    return (g * ((1.0 + t) * 0.5 + x * 0.5 * (1.0 - t * t) * GELU_C * (1.0 + x * x * (3 * GELU_A))),)


gelu_p = declare("gelu", unary("gelu", FLOAT), lambda x: 0.5 * x * (1 + np.tanh(GELU_C * (x + GELU_A * x**3))))
vjp_rules.register(gelu_p, _gelu_vjp)
register_lowering(gelu_p, ELEMENTWISE, f"(0.5f * {{0}} * (1.0f + tanh(clamp({GELU_C!r}f * ({{0}} + {GELU_A!r}f * {{0}} * {{0}} * {{0}}), -15.0f, 15.0f))))")

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
    x = w.let(w.operand(i, 0, coords))
    a = w.let(f"min(abs({x}), 4.0f)")
    u = w.let(f"{a} * {a}")
    small = f"{a} + {a} * {_horner(w, ERF_R, u)}"
    large = f"1.0f - exp(-{u}) * {_horner(w, ERF_Q, w.let(f'1.0f / {a}'))}"
    r = w.let(f"select({large}, {small}, {a} < 1.0f)")
    return f"select(select({r}, -{r}, {x} < 0.0f), {x}, is_nan({x}))"  # NaN stays NaN


erf_p = declare("erf", unary("erf", FLOAT), _erf_impl)
vjp_rules.register(erf_p, lambda g, ans, x: (g * fnp.exp(fnp.neg(x * x)) * (2 / math.sqrt(math.pi)),))
register_lowering(erf_p, ELEMENTWISE, _erf_wgsl)

# logical_not: bool -> bool, no derivative.
logical_not_p = declare("logical_not", unary("logical_not", BOOL), np.logical_not)
vjp_rules.register(logical_not_p, nondiff)
register_lowering(logical_not_p, ELEMENTWISE, "(!{0})")


# isnan and isinf: f32 -> bool, no derivative. Read off the bits: a shader compiler may fold
# `x != x` or `abs(x) == inf` away under its float rewrites.
def _float_test(name: str) -> Callable[..., Spec]:
    def rule(x: Spec) -> Spec:
        _check_dtypes(name, FLOAT, x)
        return Spec(x.shape, DType.bool)

    return rule


isnan_p = declare("isnan", _float_test("isnan"), np.isnan)
vjp_rules.register(isnan_p, nondiff)
register_lowering(isnan_p, ELEMENTWISE, lambda w, i, c: f"{w.function('is_nan', IS_NAN)}({w.operand(i, 0, c)})")
isinf_p = declare("isinf", _float_test("isinf"), np.isinf)
vjp_rules.register(isinf_p, nondiff)
register_lowering(isinf_p, ELEMENTWISE, lambda w, i, c: f"{w.function('is_inf', IS_INF)}({w.operand(i, 0, c)})")


# integer_pow: x ** n for a static integer n (exact for negative x, unlike pow);
# d x^n = n x^(n-1) dx; x^1 is x.
def _integer_pow_rule(x: Spec, *, n: int) -> Spec:
    _check_dtypes("integer_pow", NUMERIC, x)
    if x.dtype is DType.i32 and n < 0:
        raise DTypeError(f"integer_pow: negative power {n} of an i32 operand {x}; cast to f32 first")
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
simplify_rules.register(integer_pow_p, lambda node, nodes: node.inputs[0] if node.attrs["n"] == 1 else None)
register_lowering(integer_pow_p, ELEMENTWISE, _integer_pow_wgsl)

# add: d(x + y) = dx + dy; x + 0 is x.
add_p = declare("add", binary("add", NUMERIC), np.add)
vjp_rules.register(add_p, lambda g, ans, x, y: (g, g))
simplify_rules.register(add_p, _identity_if(-1, 0))
register_lowering(add_p, ELEMENTWISE, "({0} + {1})")

# sub: d(x - y) = dx - dy; x - 0 is x.
sub_p = declare("sub", binary("sub", NUMERIC), np.subtract)
vjp_rules.register(sub_p, lambda g, ans, x, y: (g, fnp.neg(g)))
simplify_rules.register(sub_p, _identity_if(1, 0))
register_lowering(sub_p, ELEMENTWISE, "({0} - {1})")

# mul: d(x y) = y dx + x dy; x * 1 is x.
mul_p = declare("mul", binary("mul", NUMERIC), np.multiply)
vjp_rules.register(mul_p, lambda g, ans, x, y: (g * y, g * x))
simplify_rules.register(mul_p, _identity_if(-1, 1))
register_lowering(mul_p, ELEMENTWISE, "({0} * {1})")

# div: d(x / y) = dx / y - (x / y) dy / y; x / 1 is x.
div_p = declare("div", binary("div", FLOAT), np.divide)
vjp_rules.register(div_p, lambda g, ans, x, y: (g / y, fnp.neg(g * ans / y)))
simplify_rules.register(div_p, _identity_if(1, 1))
register_lowering(div_p, ELEMENTWISE, "({0} / {1})")


# pow: x^y as C's pow (NumPy's, JAX's): x^0 and 1^y are 1 even for NaN; a negative base
# takes integral exponents (odd ones keep its sign, -0 included) and gives NaN for others;
# 0 and inf follow the limits (0^-0.7 = inf, (-inf)^0.3 = inf, (-1)^inf = 1).
# d = y x^(y-1) dx + log(x) x^y dy, as JAX: log taken as 0 at x = 0, and dx = 0 where y = 0.
def _pow_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    return g * fnp.where(y == 0.0, 0.0, y * fnp.pow(x, y - 1.0)), g * ans * fnp.log(fnp.where(x == 0.0, 1.0, x))


def _pow_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    w.function("is_nan", IS_NAN)
    return f"{w.function('power_f32', POWER_F32)}({w.operand(i, 0, coords)}, {w.operand(i, 1, coords)})"


pow_p = declare("pow", binary("pow", FLOAT), np.power)
vjp_rules.register(pow_p, _pow_vjp)
register_lowering(pow_p, ELEMENTWISE, _pow_wgsl)


# maximum / minimum: NaN wins, as in NumPy; on bools they are or / and. Each operand's
# cotangent is g times its share: 1 where it equals the result, 1/2 on a tie, 0 elsewhere;
# where the result is NaN neither equals it. As JAX, a product, so an infinite or NaN g
# gives NaN to the operand that was not chosen too.
def _choose_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    x_hit, y_hit = fnp.equal(x, ans), fnp.equal(y, ans)
    return g * fnp.where(x_hit, fnp.where(y_hit, 0.5, 1.0), 0.0), g * fnp.where(y_hit, fnp.where(x_hit, 0.5, 1.0), 0.0)


def _pick_wgsl(which: str) -> Callable[..., str]:
    return lambda w, i, c: pick(w, which, w.spec(i).dtype)(w.operand(i, 0, c), w.operand(i, 1, c))


maximum_p = declare("maximum", binary("maximum", ANY), np.maximum)
vjp_rules.register(maximum_p, _choose_vjp)
register_lowering(maximum_p, ELEMENTWISE, _pick_wgsl("max"))
minimum_p = declare("minimum", binary("minimum", ANY), np.minimum)
vjp_rules.register(minimum_p, _choose_vjp)
register_lowering(minimum_p, ELEMENTWISE, _pick_wgsl("min"))

# Comparisons and logic: bool results, no derivative.
eq_p = declare("eq", binary("eq", ANY, DType.bool), np.equal)
vjp_rules.register(eq_p, nondiff)
register_lowering(eq_p, ELEMENTWISE, "({0} == {1})")
ne_p = declare("ne", binary("ne", ANY, DType.bool), np.not_equal)
vjp_rules.register(ne_p, nondiff)
register_lowering(ne_p, ELEMENTWISE, "({0} != {1})")
lt_p = declare("lt", binary("lt", NUMERIC, DType.bool), np.less)
vjp_rules.register(lt_p, nondiff)
register_lowering(lt_p, ELEMENTWISE, "({0} < {1})")
le_p = declare("le", binary("le", NUMERIC, DType.bool), np.less_equal)
vjp_rules.register(le_p, nondiff)
register_lowering(le_p, ELEMENTWISE, "({0} <= {1})")
gt_p = declare("gt", binary("gt", NUMERIC, DType.bool), np.greater)
vjp_rules.register(gt_p, nondiff)
register_lowering(gt_p, ELEMENTWISE, "({0} > {1})")
ge_p = declare("ge", binary("ge", NUMERIC, DType.bool), np.greater_equal)
vjp_rules.register(ge_p, nondiff)
register_lowering(ge_p, ELEMENTWISE, "({0} >= {1})")
logical_and_p = declare("logical_and", binary("logical_and", BOOL), np.logical_and)
vjp_rules.register(logical_and_p, nondiff)
register_lowering(logical_and_p, ELEMENTWISE, "({0} && {1})")
logical_or_p = declare("logical_or", binary("logical_or", BOOL), np.logical_or)
vjp_rules.register(logical_or_p, nondiff)
register_lowering(logical_or_p, ELEMENTWISE, "({0} || {1})")


# where: x where cond holds, else y; the cotangent is routed the same way.
def _where_rule(cond: Spec, x: Spec, y: Spec) -> Spec:
    _check_dtypes("where", BOOL, cond)
    return elementwise("where", 3, ANY)(Spec(cond.shape, x.dtype), x, y)


where_p = declare("where", _where_rule, np.where)
vjp_rules.register(where_p, lambda g, ans, c, x, y: (None, fnp.where(c, g, 0.0), fnp.where(c, 0.0, g)))
register_lowering(where_p, ELEMENTWISE, "select({2}, {1}, {0})")

# astype: convert dtype. float -> int truncates toward zero and saturates, NaN giving 0
# (XLA's convert, so jnp's astype; NumPy's cast leaves NaN and out-of-range values
# undefined, and a shader compiler may fold the round trip f32(i32(x)) into trunc(x)); -> bool
# is x != 0. Only float -> float carries a derivative, and fgrad has one float type.
def convert(x: np.ndarray, dtype: DType) -> np.ndarray:
    """`x` as `dtype` by astype's rules (constants convert here too)."""
    x = np.asarray(x)
    if dtype is DType.i32 and x.dtype.kind == "f":
        x = np.where(np.isnan(x), 0.0, np.clip(x.astype(np.float64), -(2.0**31), 2.0**31 - 1))
    return x.astype(dtype.np)


def _astype_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    return cast(w, w.operand(i, 0, coords), w.spec(w.nodes[i].inputs[0]).dtype, w.spec(i).dtype)


astype_p = declare("astype", lambda x, *, dtype: Spec(x.shape, dtype), lambda x, *, dtype: convert(x, dtype))
vjp_rules.register(astype_p, nondiff)
register_lowering(astype_p, ELEMENTWISE, _astype_wgsl)

# stop_gradient: identity whose derivative is zero.
stop_gradient_p = declare("stop_gradient", lambda x: x, lambda x: x)
vjp_rules.register(stop_gradient_p, nondiff)
register_lowering(stop_gradient_p, ELEMENTWISE, "{0}")


# sum over sorted, unique axes (keepdims is a reshape in the public function);
# the cotangent is broadcast back over the summed axes.
def _unreduce(g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    return fnp.broadcast_to(fnp.reshape(g, tuple(1 if i in axes else d for i, d in enumerate(shape))), shape)


def _folds_axes(node: Node, x: Spec) -> int:
    return math.prod(x.shape[a] for a in node.attrs["axes"])


def _folds_axis(node: Node, x: Spec) -> int:
    return x.shape[node.attrs["axis"]]


def _reduce_wgsl(combine: Callable[[Any, DType], Callable[[str, str], str]],
                 init: Callable[[DType], float | int | bool]) -> Callable[..., str]:
    """A fold over the reduced axes (a loop, or a workgroup's shared effort: w.reduce decides),
    combining two values of the dtype by `combine(w, dtype)`, from `init(dtype)`."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        node = w.nodes[i]
        x, axes = w.spec(node.inputs[0]), node.attrs["axes"]
        reduced = [x.shape[a] for a in axes]

        def at(r: str) -> str:
            inner, outer = iter(w.unravel(r, reduced)), iter(coords)
            return w.value(node.inputs[0], [next(inner) if d in axes else next(outer) for d in range(x.ndim)])

        return w.reduce(math.prod(reduced), at, combine(w, x.dtype), w.literal(init(x.dtype), x.dtype), x.dtype)

    return wgsl


sum_p = declare("sum", reduction("sum", NUMERIC), lambda x, *, axes: np.sum(x, axis=axes))
vjp_rules.register(sum_p, lambda g, ans, x, *, axes: (_unreduce(g, x.shape, axes),))
register_lowering(sum_p, REDUCTION, _reduce_wgsl(lambda w, dtype: lambda acc, v: f"{acc} + {v}", lambda dtype: 0))
rewrite_rules.register(sum_p, split_long_reduction)


# max / min over axes: NaN wins, as in NumPy; on bools they are any / all. The cotangent
# goes to the elements equal to the result; ties share it evenly. That equality needs the
# very values the reduction folded (`selects`: fgrad/lower/fusion.py keeps one computation).
def _pick_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axes: tuple[int, ...]) -> tuple[Tensor]:
    hit = fnp.astype(fnp.equal(x, _unreduce(ans, x.shape, axes)), DType.f32)
    count = fnp.sum(hit, axes)
    return (hit * _unreduce(g / count, x.shape, axes),)


def _pick_reduce_wgsl(which: str) -> Callable[..., str]:
    start = -math.inf if which == "max" else math.inf  # a literal clamps it to the i32 range
    return _reduce_wgsl(lambda w, dtype: pick(w, which, dtype), lambda dtype: which == "min" if dtype is DType.bool else start)


max_p = declare("max", reduction("max", ANY), lambda x, *, axes: np.max(x, axis=axes))
vjp_rules.register(max_p, _pick_vjp)
register_lowering(max_p, Reduction(selects=True), _pick_reduce_wgsl("max"))
rewrite_rules.register(max_p, split_long_reduction)
min_p = declare("min", reduction("min", ANY), lambda x, *, axes: np.min(x, axis=axes))
vjp_rules.register(min_p, _pick_vjp)
register_lowering(min_p, Reduction(selects=True), _pick_reduce_wgsl("min"))
rewrite_rules.register(min_p, split_long_reduction)

# softmax along one axis, computed stably; d = s (g - sum(g s)).
def _softmax_wgsl(log: bool) -> Callable[..., str]:
    """Max and sum of exponentials along the axis (once per row), then this element's share."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        x, axis = w.nodes[i].inputs[0], w.nodes[i].attrs["axis"]
        n, row = w.spec(x).shape[axis], tuple(c for d, c in enumerate(coords) if d != axis)

        def at(r: str) -> str:
            return w.value(x, [r if d == axis else c for d, c in enumerate(coords)])

        m = w.once(("row max", i, row), lambda: w.reduce(
            n, at, lambda a, v: f"max({a}, {v})", w.literal(-math.inf, DType.f32), DType.f32))
        total = w.once(("row sum", i, row), lambda: w.reduce(
            n, lambda r: f"exp({at(r)} - {m})", lambda a, v: f"{a} + {v}", "0.0f", DType.f32))
        v = w.value(x, coords)
        return f"{v} - {m} - log({total})" if log else f"exp({v} - {m}) / {total}"

    return wgsl


softmax_p = declare("softmax", along_axis("softmax"), _stable_softmax)
vjp_rules.register(softmax_p, lambda g, ans, x, *, axis: (ans * (g - fnp.sum(g * ans, axis, keepdims=True)),))
register_lowering(softmax_p, NORMALIZATION, _softmax_wgsl(log=False))

# log_softmax along one axis; d = g - softmax(x) sum(g) = g - exp(ans) sum(g).
log_softmax_p = declare("log_softmax", along_axis("log_softmax"), _stable_log_softmax)
vjp_rules.register(log_softmax_p, lambda g, ans, x, *, axis: (g - fnp.exp(ans) * fnp.sum(g, axis, keepdims=True),))
register_lowering(log_softmax_p, NORMALIZATION, _softmax_wgsl(log=True))


# reshape: same elements in row-major order, new shape; reshape of a reshape is one reshape.
def _reshape_rule(x: Spec, *, shape: tuple[int, ...]) -> Spec:
    if math.prod(shape) != x.size:
        raise ShapeError(f"reshape: cannot reshape {x.shape} into {shape}")
    return Spec(shape, x.dtype)


def _reshape_simplify(node: Node, nodes: Sequence[Node]) -> int | Node | None:
    x = nodes[node.inputs[0]]
    if x.spec == node.spec:
        return node.inputs[0]
    if x.op == "reshape":
        return Node("reshape", x.inputs, node.params, node.spec, node.site)
    return None


reshape_p = declare("reshape", _reshape_rule, lambda x, *, shape: np.reshape(x, shape))
vjp_rules.register(reshape_p, lambda g, ans, x, *, shape: (fnp.reshape(g, x.shape),))
simplify_rules.register(reshape_p, _reshape_simplify)
uniform_through.add(reshape_p.name)
register_lowering(reshape_p, View(last_axis=_same_last_axis, keeps_rows=lambda node, x, width: _squeezed(node.spec.shape) == _squeezed(x.shape)),
                  lambda w, i, c: w.operand(i, 0, w.unravel(w.ravel(c, w.spec(i).shape), w.spec(w.nodes[i].inputs[0]).shape)))


# transpose: out.shape[i] = x.shape[perm[i]]; the cotangent goes back by the
# inverse permutation; a transpose of a transpose is one (or none).
def _transpose_rule(x: Spec, *, perm: tuple[int, ...]) -> Spec:
    if sorted(perm) != list(range(x.ndim)):
        raise ShapeError(f"transpose: axes {perm} are not a permutation of 0..{x.ndim - 1} for {x.shape}")
    return Spec(tuple(x.shape[p] for p in perm), x.dtype)


def _transpose_simplify(node: Node, nodes: Sequence[Node]) -> int | Node | None:
    x, perm = nodes[node.inputs[0]], node.attrs["perm"]
    if perm == tuple(range(len(perm))):
        return node.inputs[0]
    if x.op == "transpose":
        inner = x.attrs["perm"]
        return Node("transpose", x.inputs, (("perm", tuple(inner[p] for p in perm)),), node.spec, node.site)
    return None


def _transpose_last_axis(node: Node, x: Spec) -> str:
    perm = node.attrs["perm"]
    if perm[-1] == x.ndim - 1:
        return "same"
    return "swapped" if x.ndim >= 2 and perm[-2:] == (x.ndim - 1, x.ndim - 2) else "scattered"


def _transpose_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    inner = [""] * len(coords)
    for d, p in enumerate(w.nodes[i].attrs["perm"]):
        inner[p] = coords[d]
    return w.operand(i, 0, inner)


transpose_p = declare("transpose", _transpose_rule, lambda x, *, perm: np.transpose(x, perm))
vjp_rules.register(transpose_p, lambda g, ans, x, *, perm: (fnp.transpose(g, tuple(np.argsort(perm).tolist())),))
simplify_rules.register(transpose_p, _transpose_simplify)
register_lowering(transpose_p, View(last_axis=_transpose_last_axis), _transpose_wgsl)


# broadcast_to: NumPy broadcasting to `shape` (leading dims added, size-1 dims
# stretched); the cotangent is summed over every stretched or added dim.
def _broadcast_to_rule(x: Spec, *, shape: tuple[int, ...]) -> Spec:
    lead = len(shape) - x.ndim
    if lead < 0 or any(d not in (1, s) for d, s in zip(x.shape, shape[lead:])):
        raise ShapeError(f"broadcast_to: cannot broadcast {x.shape} to {shape}")
    return Spec(shape, x.dtype)


def _broadcast_to_vjp(g: Tensor, ans: Tensor, x: Tensor, *, shape: tuple[int, ...]) -> tuple[Tensor]:
    lead = len(shape) - x.ndim
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(x.shape) if d == 1 and shape[lead + i] != 1)
    return (fnp.reshape(fnp.sum(g, axes), x.shape),)


def _broadcast_keeps_rows(node: Node, x: Spec, width: int) -> bool:
    """Broadcasting one value per row back along the row's last axis."""
    shape = node.spec.shape
    return bool(shape) and shape[-1] == width and x.shape == (*shape[:-1], 1)


def _broadcast_to_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x = w.spec(w.nodes[i].inputs[0])
    lead = len(coords) - x.ndim
    return w.operand(i, 0, [coords[lead + d] if n != 1 else "0i" for d, n in enumerate(x.shape)])


broadcast_to_p = declare("broadcast_to", _broadcast_to_rule, lambda x, *, shape: np.broadcast_to(x, shape))
vjp_rules.register(broadcast_to_p, _broadcast_to_vjp)
simplify_rules.register(broadcast_to_p, lambda node, nodes: node.inputs[0] if nodes[node.inputs[0]].spec == node.spec else None)
register_lowering(broadcast_to_p, View(last_axis=_same_last_axis, keeps_rows=_broadcast_keeps_rows), _broadcast_to_wgsl)
uniform_through.add(broadcast_to_p.name)


# slice: x[start:stop:step] on every axis; steps >= 1, results non-empty. Its
# VJP pads the cotangent back: low = start, interior = step - 1.
def _slice_rule(x: Spec, *, starts: tuple[int, ...], stops: tuple[int, ...], steps: tuple[int, ...]) -> Spec:
    if not len(starts) == len(stops) == len(steps) == x.ndim:
        raise ShapeError(f"slice: {len(starts)} starts for {x.shape}")
    out = []
    for n, a, b, s in zip(x.shape, starts, stops, steps):
        if not (s >= 1 and 0 <= a < b <= n):
            raise ShapeError(f"slice: [{a}:{b}:{s}] is not a non-empty forward slice of a dimension of size {n} in {x.shape}")
        out.append(len(range(a, b, s)))
    return Spec(tuple(out), x.dtype)


def _slice_impl(x: np.ndarray, *, starts: tuple[int, ...], stops: tuple[int, ...], steps: tuple[int, ...]) -> np.ndarray:
    return x[tuple(builtins.slice(a, b, s) for a, b, s in zip(starts, stops, steps))]


def _slice_vjp(g: Tensor, ans: Tensor, x: Tensor, *, starts, stops, steps) -> tuple[Tensor]:
    widths = tuple((a, n - 1 - (a + (m - 1) * s), s - 1) for n, m, a, s in zip(x.shape, g.shape, starts, steps))
    return (bind(pad_p, g, widths=widths, value=0.0),)


def _slice_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    attrs = w.nodes[i].attrs
    inner = []
    for c, a, s in zip(coords, attrs["starts"], attrs["steps"]):
        scaled = c if s == 1 else f"{c} * {s}i"
        inner.append(c if (a, s) == (0, 1) else w.let(f"{a}i + {scaled}" if a else scaled))
    return w.operand(i, 0, inner)


slice_p = declare("slice", _slice_rule, _slice_impl)
vjp_rules.register(slice_p, _slice_vjp)
register_lowering(slice_p, View(last_axis=_same_last_axis), _slice_wgsl)


# pad: constant padding by (low, high, interior) >= 0 on every axis; `interior`
# values go between neighbours, so pad undoes a strided slice. Its VJP slices
# the cotangent back out.
def _pad_rule(x: Spec, *, widths: tuple[tuple[int, int, int], ...], value: Hashable) -> Spec:
    if len(widths) != x.ndim or any(len(w) != 3 or builtins.min(w) < 0 for w in widths):
        raise ShapeError(f"pad: widths {widths} must be one non-negative (low, high, interior) triple per axis of {x.shape}")
    return Spec(tuple(lo + n + (n - 1) * mid + hi for n, (lo, hi, mid) in zip(x.shape, widths)), x.dtype)


def _padded_region(shape: tuple[int, ...], widths: tuple[tuple[int, int, int], ...]) -> dict[str, tuple[int, ...]]:
    """Slice params picking the original elements out of a padded array."""
    return dict(starts=tuple(lo for lo, _, _ in widths),
                stops=tuple(lo + (n - 1) * (mid + 1) + 1 for n, (lo, _, mid) in zip(shape, widths)),
                steps=tuple(mid + 1 for _, _, mid in widths))


def _pad_impl(x: np.ndarray, *, widths: tuple[tuple[int, int, int], ...], value: Hashable) -> np.ndarray:
    out = np.full(_pad_rule(Spec(x.shape, DType.of(x.dtype)), widths=widths, value=value).shape, value, x.dtype)
    region = _padded_region(x.shape, widths)
    out[tuple(builtins.slice(*k) for k in zip(region["starts"], region["stops"], region["steps"]))] = x
    return out


def _pad_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The fill value unless the coordinates land on an original element (loads stay in range)."""
    node = w.nodes[i]
    shape, inside, inner = w.spec(node.inputs[0]).shape, [], []
    for c, n, (lo, hi, mid) in zip(coords, shape, node.attrs["widths"]):
        if lo == hi == mid == 0:
            inner.append(c)
            continue
        t = w.let(f"{c} - {lo}i") if lo else c
        q = w.let(f"{t} / {mid + 1}i") if mid else t
        inside += [f"{t} >= 0i", f"{q} < {n}i"] + ([f"{t} % {mid + 1}i == 0i"] if mid else [])
        inner.append(w.let(f"clamp({q}, 0i, {n - 1}i)"))
    v = w.operand(i, 0, inner)
    return f"select({w.literal(node.attrs['value'], node.spec.dtype)}, {v}, {' && '.join(inside)})"


pad_p = declare("pad", _pad_rule, _pad_impl)
vjp_rules.register(pad_p, lambda g, ans, x, *, widths, value: (bind(slice_p, g, **_padded_region(x.shape, widths)),))
register_lowering(pad_p, VIEW, _pad_wgsl)


# concatenate: join operands of one rank and dtype along `axis`; the VJP slices
# each operand's part out of the cotangent.
def _concatenate_rule(*xs: Spec, axis: int) -> Spec:
    _check_dtypes("concatenate", (xs[0].dtype,), *xs)
    _check_axes("concatenate", xs[0], (axis,))
    rest = {x.shape[:axis] + x.shape[axis + 1:] for x in xs}
    if len({x.ndim for x in xs}) > 1 or len(rest) > 1:
        raise ShapeError(f"concatenate: shapes {', '.join(str(x.shape) for x in xs)} differ outside axis {axis}")
    shape = list(xs[0].shape)
    shape[axis] = builtins.sum(x.shape[axis] for x in xs)
    return Spec(tuple(shape), xs[0].dtype)


def _concatenate_vjp(g: Tensor, ans: Tensor, *xs: Tensor, axis: int) -> tuple[Tensor, ...]:
    offsets = np.cumsum([0] + [x.shape[axis] for x in xs]).tolist()
    return tuple(
        bind(slice_p, g, starts=tuple(a if i == axis else 0 for i in range(g.ndim)),
             stops=tuple(b if i == axis else d for i, d in enumerate(g.shape)), steps=(1,) * g.ndim)
        for a, b in zip(offsets, offsets[1:]))


def _concatenate_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """Each operand's value (at clamped coordinates), chosen by where the axis coordinate falls."""
    node = w.nodes[i]
    axis = node.attrs["axis"]
    c, result, start = coords[axis], None, 0
    for j in node.inputs:
        n = w.spec(j).shape[axis]
        inner = list(coords)
        inner[axis] = w.let(f"clamp({c} - {start}i, 0i, {n - 1}i)")
        v = w.value(j, inner)
        result = v if result is None else f"select({result}, {v}, {c} >= {start}i)"
        start += n
    return result


concatenate_p = declare("concatenate", _concatenate_rule, lambda *xs, axis: np.concatenate(xs, axis=axis))
vjp_rules.register(concatenate_p, _concatenate_vjp)
register_lowering(concatenate_p, VIEW, _concatenate_wgsl)
rewrite_rules.register(concatenate_p, split_wide_concatenate)


# matmul: (*batch, m, k) @ (*batch, k, n); operands of equal rank >= 2 whose
# batch dims are equal or 1 (a size-1 batch dim broadcasts without a copy).
# d(a @ b) = g @ b^T for a and a^T @ g for b, summed over the batch dims
# that the operand broadcast.
def _matmul_rule(a: Spec, b: Spec) -> Spec:
    _check_dtypes("matmul", NUMERIC, a, b)
    if a.dtype != b.dtype:
        raise DTypeError(f"matmul: operand dtypes differ: {a} @ {b}")
    if a.ndim != b.ndim or a.ndim < 2:
        raise ShapeError(f"matmul: operands must have equal rank >= 2, got {a.shape} @ {b.shape}")
    if a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"matmul: inner dimensions differ: {a.shape} @ {b.shape}")
    if any(x != y and 1 not in (x, y) for x, y in zip(a.shape[:-2], b.shape[:-2])):
        raise ShapeError(f"matmul: batch dimensions {a.shape[:-2]} and {b.shape[:-2]} do not broadcast")
    batch = tuple(builtins.max(x, y) for x, y in zip(a.shape[:-2], b.shape[:-2]))
    return Spec(batch + (a.shape[-2], b.shape[-1]), a.dtype)


def _matrix_transpose(x: Tensor) -> Tensor:
    return fnp.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _sum_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum the batch dims that `shape` has as 1 but `x` does not."""
    axes = tuple(i for i, (d, s) in enumerate(zip(x.shape[:-2], shape[:-2])) if d != s)
    return fnp.reshape(fnp.sum(x, axes), shape) if axes else x


def _matmul_vjp(g: Tensor, ans: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    # A weight b (batch dims all 1) against a batch of a: db = a^T g over all rows at once.
    shared_b = b.ndim > 2 and all(d == 1 for d in b.shape[:-2])
    db = (fnp.reshape(bind(matmul_p, _matrix_transpose(fnp.reshape(a, (-1, a.shape[-1]))), fnp.reshape(g, (-1, g.shape[-1]))),
                  b.shape) if shared_b else _sum_to(bind(matmul_p, _matrix_transpose(a), g), b.shape))
    return _sum_to(bind(matmul_p, g, _matrix_transpose(b)), a.shape), db


def _matmul_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """One output element: a dot product over k (an operand's size-1 batch dims read index 0)."""
    a, b = w.nodes[i].inputs
    sa, sb, dtype = w.spec(a).shape, w.spec(b).shape, w.spec(i).dtype
    batch = coords[:-2]
    acc = w.var(w.literal(0, dtype), dtype)
    with w.loop(sa[-1]) as k:
        va = w.value(a, [c if d != 1 else "0i" for c, d in zip(batch, sa[:-2])] + [coords[-2], k])
        vb = w.value(b, [c if d != 1 else "0i" for c, d in zip(batch, sb[:-2])] + [k, coords[-1]])
        w.line(f"{acc} = {acc} + {va} * {vb};")
    return acc


matmul_p = declare("matmul", _matmul_rule, np.matmul)
vjp_rules.register(matmul_p, _matmul_vjp)
register_lowering(matmul_p, Contraction(lambda node, a, b: a.shape[-1], tiled=True), _matmul_wgsl)
rewrite_rules.register(matmul_p, split_long_matmul)


# take: gather along `axis`; out = x.shape[:axis] + indices.shape + x.shape[axis+1:].
# Indices are used as they are (the public functions wrap negative ones), and
# one outside [0, n) follows `mode`, as in jax.lax.gather: "clip" clamps it into
# range, "fill" reads `fill_value` (a 0-d Const). The VJP is the transposed
# scatter-add: with "clip" the cotangent goes to the row that was read; with
# "fill" a filled entry read no row and its cotangent is dropped.
def _take_rule(x: Spec, indices: Spec, *, axis: int, mode: str, fill_value: Const | None) -> Spec:
    _check_dtypes("take", (DType.i32,), indices)
    _check_axes("take", x, (axis,))
    fill = None if fill_value is None else Spec(fill_value.shape, fill_value.dtype)
    if (mode, fill) not in (("clip", None), ("fill", Spec((), x.dtype))):
        raise ShapeError(f"take: mode {mode!r} with fill_value {fill} for {x}: use 'clip' with none or 'fill' "
                         f"with a {x.dtype} scalar")
    return Spec(x.shape[:axis] + indices.shape + x.shape[axis + 1:], x.dtype)


def _take_impl(x: np.ndarray, indices: np.ndarray, *, axis: int, mode: str, fill_value: Const | None) -> np.ndarray:
    n = x.shape[axis]
    out = np.take(x, np.clip(indices, 0, n - 1), axis=axis)
    if mode == "clip":
        return out
    inside = ((indices >= 0) & (indices < n)).reshape(indices.shape + (1,) * (x.ndim - axis - 1))
    return np.where(inside, out, fill_value.array)


def _take_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The entry at the clamped index (loads stay in range); with "fill", the fill value unless in range."""
    node = w.nodes[i]
    x, idx = node.inputs
    axis, k, n = node.attrs["axis"], w.spec(idx).ndim, w.spec(x).shape[node.attrs["axis"]]
    at = w.let(w.value(idx, coords[axis: axis + k]))
    v = w.value(x, list(coords[:axis]) + [w.let(f"clamp({at}, 0i, {n - 1}i)")] + list(coords[axis + k:]))
    if node.attrs["mode"] == "clip":
        return v
    fill = w.literal(node.attrs["fill_value"].array.item(), node.spec.dtype)
    return f"select({fill}, {v}, {at} >= 0i && {at} < {n}i)"


# A small table's gradient (an embedding's) is one_hot(indices)^T @ g: a matmul,
# far faster on a GPU than a scatter; a large one scatter-adds.
ONE_HOT_GRADIENT_LIMIT = 1 << 24  # elements of the one-hot matrix


def _take_vjp(g: Tensor, ans: Tensor, x: Tensor, idx: Tensor, *, axis: int, mode: str,
              fill_value: Const | None) -> tuple[Tensor, None]:
    n, count = x.shape[axis], idx.size
    if n * count > ONE_HOT_GRADIENT_LIMIT:
        return bind(scatter_add_p, g, idx, axis=axis, size=n, mode="clip" if mode == "clip" else "drop"), None
    if mode == "clip":
        idx = fnp.clip(idx, 0, n - 1)
    else:  # one_hot rows of filled entries are zero; their cotangent (NaN, say) must not reach 0 * g either
        inside = fnp.logical_and(idx >= 0, idx < n)
        g = fnp.where(fnp.reshape(inside, (1,) * axis + idx.shape + (1,) * (g.ndim - axis - idx.ndim)), g, 0.0)
    moved = fnp.transpose(g, tuple(range(axis, axis + idx.ndim)) + tuple(range(axis)) +
                      tuple(range(axis + idx.ndim, g.ndim))) if axis else g
    rest = moved.shape[idx.ndim:]
    picked = fnp.one_hot(fnp.reshape(idx, (count,)), n)  # (count, n)
    grad = fnp.reshape(fnp.transpose(picked) @ fnp.reshape(moved, (count, math.prod(rest))), (n, *rest))
    return (fnp.transpose(grad, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, grad.ndim))) if axis else grad), None


take_p = declare("take", _take_rule, _take_impl)
vjp_rules.register(take_p, _take_vjp)
register_lowering(take_p, VIEW, _take_wgsl)


# scatter_add: the transpose of take: out has `size` entries along `axis`, and
# update slice j is added at row indices[j]. An index outside [0, size) follows
# `mode`, as in jax.lax.scatter_add: "clip" clamps it into range, "drop" drops
# its update. The VJP is the matching take (a dropped update's cotangent is 0).
def _scatter_add_rule(updates: Spec, indices: Spec, *, axis: int, size: int, mode: str) -> Spec:
    _check_dtypes("scatter_add", (DType.i32,), indices)
    _check_dtypes("scatter_add", NUMERIC, updates)
    if not (0 <= axis <= updates.ndim - indices.ndim and updates.shape[axis: axis + indices.ndim] == indices.shape
            and size >= 1):
        raise ShapeError(f"scatter_add: updates {updates.shape} do not hold indices {indices.shape} at axis {axis}")
    if mode not in ("clip", "drop"):
        raise ShapeError(f"scatter_add: mode {mode!r} is not 'clip' or 'drop'")
    return Spec(updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:], updates.dtype)


def _scatter_add_impl(updates: np.ndarray, indices: np.ndarray, *, axis: int, size: int, mode: str) -> np.ndarray:
    out = np.zeros(updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:], updates.dtype)
    lead = (builtins.slice(None),) * axis
    if mode == "clip":
        np.add.at(out, lead + (np.clip(indices, 0, size - 1),), updates)
    else:
        inside = (indices >= 0) & (indices < size)
        np.add.at(out, lead + (indices[inside],), updates[lead + (inside,)])
    return out


def _scatter_add_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The sum of the update slices whose index is this row: a fold over all indices
    (an index out of range matches no row, so "drop" needs no test of its own)."""
    u, idx = w.nodes[i].inputs
    attrs, dtype = w.nodes[i].attrs, w.spec(i).dtype
    axis, size, mode = attrs["axis"], attrs["size"], attrs["mode"]
    ishape = w.spec(idx).shape
    zero = w.literal(0, dtype)

    def at(r: str) -> str:
        where = w.unravel(r, ishape)
        row, v = w.value(idx, where), w.value(u, list(coords[:axis]) + where + list(coords[axis + 1:]))
        return f"select({zero}, {v}, {f'clamp({row}, 0i, {size - 1}i)' if mode == 'clip' else row} == {coords[axis]})"

    return w.reduce(math.prod(ishape), at, lambda acc, v: f"{acc} + {v}", zero, dtype)


def _scatter_add_vjp(g: Tensor, ans: Tensor, u: Tensor, idx: Tensor, *, axis: int, size: int,
                     mode: str) -> tuple[Tensor, None]:
    if mode == "clip":
        return bind(take_p, g, idx, axis=axis, mode="clip", fill_value=None), None
    return bind(take_p, g, idx, axis=axis, mode="fill", fill_value=Const.of(0, g.dtype)), None


scatter_add_p = declare("scatter_add", _scatter_add_rule, _scatter_add_impl)
vjp_rules.register(scatter_add_p, _scatter_add_vjp)
register_lowering(scatter_add_p, Contraction(lambda node, u, idx: idx.size), _scatter_add_wgsl)


