"""The op registry and the public op functions.

Each primitive is one `Op` entry, registered in one block that holds all of
it: name, shape/dtype rule, NumPy implementation (the reference semantics
that `interpret` runs), and the room for its VJP rule and WGSL lowering.
Primitives are strict: elementwise ops take operands of one shape and one
dtype. The public functions below them follow NumPy / `jax.numpy`: they
promote dtypes, broadcast, normalise axes and validate, then `bind`
primitives, so every broadcast and cast is a visible node in the graph.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad.errors import IMMUTABLE, NUMPY_FUNCTION, TRACER_INDEX, DTypeError, ShapeError, TraceError
from fgrad.ir import I32, Const, DType, HasSpec, Node, Spec, fits_i32
from fgrad.trace import Tensor, bind, check_live, spec_of, user_call, user_site

ArrayLike = Any  # Tensor, NumPy array, or Python number


@dataclass(frozen=True)
class Op:
    """A primitive: everything fgrad knows about one op, in one place."""

    name: str
    rule: Callable[..., Spec]  # (*input specs, **params) -> output spec; raises ShapeError / DTypeError
    impl: Callable[..., np.ndarray]  # (*input arrays, **params) -> output array, with NumPy
    vjp: Callable[..., tuple[Any, ...]] | None = None  # reverse-mode rule, written with fgrad ops
    simplify: Callable[..., Any] | None = None  # algebraic identities (x * 1 -> x), see passes.py
    wgsl: str | Callable[..., str] | None = None  # WGSL: template over operand values, or (writer, id, coords) -> value
    fusion: str = "elementwise"  # how lowering groups it: source, view, elementwise, reduction, normalization,
    #                              contraction (fgrad/lower/fusion.py)
    folds: Callable[..., int] | None = None  # (node, input specs) -> values combined into each output
    selects: bool = False  # a reduction whose result is one of the values it folds, bit for bit (max, min)


OPS: dict[str, Op] = {}


def register(op: Op) -> Op:
    assert op.name not in OPS, f"op {op.name} registered twice"
    OPS[op.name] = op
    return op


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


# WGSL conversions between dtypes: float -> int as astype below, -> bool is != 0.
_CAST = {
    (DType.f32, DType.f32): "{0}", (DType.i32, DType.i32): "{0}", (DType.bool, DType.bool): "{0}",
    (DType.f32, DType.i32): "f32_to_i32({0})", (DType.f32, DType.bool): "({0} != 0.0f)",
    (DType.i32, DType.f32): "f32({0})", (DType.i32, DType.bool): "({0} != 0i)",
    (DType.bool, DType.f32): "select(0.0f, 1.0f, {0})", (DType.bool, DType.i32): "select(0i, 1i, {0})",
}


# WGSL's max and min return the other operand where one is NaN, and a shader compiler
# may fold `x != x` to false; NumPy's maximum and max return NaN. The NaN test reads the
# bits, which no float rewrite touches; where either operand is NaN their sum is NaN.
_IS_NAN = "fn is_nan(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;\n}"


def _pick(w: Any, which: str, dtype: DType) -> Callable[[str, str], str]:
    """WGSL for the larger (`which` = "max") or smaller ("min") of two values of `dtype`, as
    NumPy's maximum / minimum: NaN wins on f32; on bool they are `or` / `and`."""
    if dtype is DType.bool:
        return lambda a, b: f"({a} {'||' if which == 'max' else '&&'} {b})"
    if dtype is DType.i32:
        return lambda a, b: f"{which}({a}, {b})"
    w.function("is_nan", _IS_NAN)
    name = w.function(f"{which}_f32", f"fn {which}_f32(a: f32, b: f32) -> f32 {{\n"
                                      f"    return select({which}(a, b), a + b, is_nan(a) | is_nan(b));\n}}")
    return lambda a, b: f"{name}({a}, {b})"


def _stable_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _stable_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


# ---------------------------------------------------------------------------
# Primitives: one block each
# ---------------------------------------------------------------------------
# A VJP rule is `vjp(g, ans, *inputs, **params) -> one cotangent (or None)
# per input`, written with the public functions below so that it can be
# differentiated again. A simplify rule is `simplify(node, nodes) -> an
# existing node id, a replacement Node, or None` (see fgrad/passes.py).
# A WGSL rule gives the node's value at output coordinates (WGSL i32
# expressions, one per axis): a template over the operands' values there,
# or a function `wgsl(w, i, coords)` of the kernel writer w (fgrad/lower/wgsl.py).

def _nondiff(g: Any, ans: Any, *xs: Any, **params: Any) -> tuple[None, ...]:
    """VJP of an op with no derivative (bool or integer results, stop_gradient)."""
    return (None,) * len(xs)


def uniform_constant(nodes: Sequence[Node], i: int) -> float | int | bool | None:
    """The value of node `i` if it is a constant with all elements equal (seen through
    broadcasts and reshapes), else None."""
    while nodes[i].op in ("broadcast_to", "reshape"):
        i = nodes[i].inputs[0]
    if nodes[i].op != "constant":
        return None
    arr = nodes[i].attrs["value"].array
    return arr.flat[0].item() if (arr == arr.flat[0]).all() else None


def _identity_if(side: int, unit: float) -> Callable[[Node, Sequence[Node]], int | None]:
    """Simplify rule: `x op unit` is x; `side` is which operand may be the unit (0, 1, or -1 for both)."""

    def rule(node: Node, nodes: Sequence[Node]) -> int | None:
        for k in ((0, 1) if side == -1 else (side,)):
            if uniform_constant(nodes, node.inputs[k]) == unit and nodes[node.inputs[1 - k]].spec == node.spec:
                return node.inputs[1 - k]
        return None

    return rule


# input: a graph argument; interpret and the runtime supply its value.
def _input_impl(**_: Any) -> np.ndarray:
    raise AssertionError("input nodes take their value from the arguments")


input_p = register(Op("input", rule=lambda *, name, spec: spec, impl=_input_impl, fusion="source"))

# constant: an array baked into the graph (numbers and arrays closed over). In
# WGSL a constant whose elements are all equal is a literal; others are buffers.
constant_p = register(Op("constant", rule=lambda *, value: Spec(value.shape, value.dtype), impl=lambda *, value: value.array,
                         wgsl=lambda w, i, c: w.literal(uniform_constant(w.nodes, i), w.spec(i).dtype), fusion="source"))


# iota: integers counting along `axis` of `shape` (arange, masks).
def _iota_rule(*, shape: tuple[int, ...], axis: int, dtype: DType) -> Spec:
    out = Spec(shape, dtype)
    _check_dtypes("iota", NUMERIC, out)
    _check_axes("iota", out, (axis,))
    return out


def _iota_impl(*, shape: tuple[int, ...], axis: int, dtype: DType) -> np.ndarray:
    count = np.arange(shape[axis], dtype=dtype.np).reshape([-1 if i == axis else 1 for i in range(len(shape))])
    return np.broadcast_to(count, shape)


iota_p = register(Op("iota", rule=_iota_rule, impl=_iota_impl, fusion="view",
                    wgsl=lambda w, i, c: _CAST[DType.i32, w.spec(i).dtype].format(c[w.nodes[i].attrs["axis"]])))

# neg: d(-x) = -dx; -(-x) is x.
neg_p = register(Op(
    "neg", rule=unary("neg", NUMERIC), impl=np.negative,
    vjp=lambda g, ans, x: (neg(g),),
    simplify=lambda node, nodes: nodes[node.inputs[0]].inputs[0] if nodes[node.inputs[0]].op == "neg" else None, wgsl="(-{0})"))

# abs: d|x| = sign(x) dx, taken as +1 at 0 (and -1 at NaN): JAX's select(x >= 0, g, -g).
abs_p = register(Op("abs", rule=unary("abs", NUMERIC), impl=np.abs,
                    vjp=lambda g, ans, x: (where(x >= 0, g, neg(g)),), wgsl="abs({0})"))

# exp: d exp(x) = exp(x) dx, reusing the output.
exp_p = register(Op("exp", rule=unary("exp", FLOAT), impl=np.exp, vjp=lambda g, ans, x: (g * ans,), wgsl="exp({0})"))

# log: d log(x) = dx / x.
log_p = register(Op("log", rule=unary("log", FLOAT), impl=np.log, vjp=lambda g, ans, x: (g / x,), wgsl="log({0})"))

# sqrt: d sqrt(x) = dx / (2 sqrt(x)).
sqrt_p = register(Op("sqrt", rule=unary("sqrt", FLOAT), impl=np.sqrt, vjp=lambda g, ans, x: (g / (ans * 2.0),), wgsl="sqrt({0})"))

# rsqrt: d x^(-1/2) = -1/2 x^(-3/2) dx = -1/2 rsqrt(x) / x dx.
rsqrt_p = register(Op("rsqrt", rule=unary("rsqrt", FLOAT), impl=lambda x: 1 / np.sqrt(x),
                      vjp=lambda g, ans, x: (g * ans / x * -0.5,), wgsl="inverseSqrt({0})"))

# sin and cos: d sin(x) = cos(x) dx, d cos(x) = -sin(x) dx (schedules, positional codes).
sin_p = register(Op("sin", rule=unary("sin", FLOAT), impl=np.sin, vjp=lambda g, ans, x: (g * cos(x),), wgsl="sin({0})"))
cos_p = register(Op("cos", rule=unary("cos", FLOAT), impl=np.cos, vjp=lambda g, ans, x: (neg(g * sin(x)),), wgsl="cos({0})"))

# tanh: d tanh(x) = (1 - tanh(x)^2) dx.
# NOTE: the clamp keeps tanh's exponentials finite on every backend; it would turn NaN
# into -15, so NaN is passed through on its own.
def _tanh_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x = w.operand(i, 0, coords)
    return f"select(tanh(clamp({x}, -15.0f, 15.0f)), {x}, {w.function('is_nan', _IS_NAN)}({x}))"


tanh_p = register(Op("tanh", rule=unary("tanh", FLOAT), impl=np.tanh, vjp=lambda g, ans, x: (g * (1.0 - ans * ans),), wgsl=_tanh_wgsl))

# sigmoid: s(x) = (tanh(x/2) + 1) / 2 (no exp overflow); ds = s (1 - s) dx.
sigmoid_p = register(Op("sigmoid", rule=unary("sigmoid", FLOAT), impl=lambda x: 0.5 * (np.tanh(0.5 * x) + 1),
                        vjp=lambda g, ans, x: (g * ans * (1.0 - ans),), wgsl="(1.0f / (1.0f + exp(-{0})))"))

# relu: max(x, 0) (NaN stays NaN); derivative 1 where x > 0, else 0.
relu_p = register(Op("relu", rule=unary("relu", NUMERIC), impl=lambda x: np.maximum(x, 0),
                     vjp=lambda g, ans, x: (where(x > 0, g, 0.0),),
                     wgsl=lambda w, i, c: _pick(w, "max", w.spec(i).dtype)(w.operand(i, 0, c), w.literal(0, w.spec(i).dtype))))

# silu: x s(x); d = s (1 + x (1 - s)) dx.
def _silu_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    s = sigmoid(x)
    return (g * s * (1.0 + x * (1.0 - s)),)


silu_p = register(Op("silu", rule=unary("silu", FLOAT), impl=lambda x: x * 0.5 * (np.tanh(0.5 * x) + 1), vjp=_silu_vjp, wgsl="({0} / (1.0f + exp(-{0})))"))

# gelu, tanh approximation (jax.nn.gelu's default, GPT-2's):
# gelu(x) = x/2 (1 + t), t = tanh(c (x + a x^3)), c = sqrt(2/pi), a = 0.044715;
# d gelu = (1/2 (1 + t) + x/2 (1 - t^2) c (1 + 3 a x^2)) dx.
GELU_C, GELU_A = math.sqrt(2 / math.pi), 0.044715


def _gelu_vjp(g: Tensor, ans: Tensor, x: Tensor) -> tuple[Tensor]:
    t = tanh((x + x * x * x * GELU_A) * GELU_C)
    return (g * ((1.0 + t) * 0.5 + x * 0.5 * (1.0 - t * t) * GELU_C * (1.0 + x * x * (3 * GELU_A))),)


gelu_p = register(Op("gelu", rule=unary("gelu", FLOAT),
                     impl=lambda x: 0.5 * x * (1 + np.tanh(GELU_C * (x + GELU_A * x**3))), vjp=_gelu_vjp, wgsl=f"(0.5f * {{0}} * (1.0f + tanh(clamp({GELU_C!r}f * ({{0}} + {GELU_A!r}f * {{0}} * {{0}} * {{0}}), -15.0f, 15.0f))))"))

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
    w.function("is_nan", _IS_NAN)
    x = w.let(w.operand(i, 0, coords))
    a = w.let(f"min(abs({x}), 4.0f)")
    u = w.let(f"{a} * {a}")
    small = f"{a} + {a} * {_horner(w, ERF_R, u)}"
    large = f"1.0f - exp(-{u}) * {_horner(w, ERF_Q, w.let(f'1.0f / {a}'))}"
    r = w.let(f"select({large}, {small}, {a} < 1.0f)")
    return f"select(select({r}, -{r}, {x} < 0.0f), {x}, is_nan({x}))"  # NaN stays NaN


erf_p = register(Op("erf", rule=unary("erf", FLOAT), impl=_erf_impl,
                    vjp=lambda g, ans, x: (g * exp(neg(x * x)) * (2 / math.sqrt(math.pi)),), wgsl=_erf_wgsl))

# logical_not: bool -> bool, no derivative.
logical_not_p = register(Op("logical_not", rule=unary("logical_not", BOOL), impl=np.logical_not, vjp=_nondiff, wgsl="(!{0})"))


# isnan and isinf: f32 -> bool, no derivative. Read off the bits: a shader compiler may fold
# `x != x` or `abs(x) == inf` away under its float rewrites.
def _float_test(name: str) -> Callable[..., Spec]:
    def rule(x: Spec) -> Spec:
        _check_dtypes(name, FLOAT, x)
        return Spec(x.shape, DType.bool)

    return rule


_IS_INF = "fn is_inf(x: f32) -> bool {\n    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;\n}"
isnan_p = register(Op("isnan", rule=_float_test("isnan"), impl=np.isnan, vjp=_nondiff,
                      wgsl=lambda w, i, c: f"{w.function('is_nan', _IS_NAN)}({w.operand(i, 0, c)})"))
isinf_p = register(Op("isinf", rule=_float_test("isinf"), impl=np.isinf, vjp=_nondiff,
                      wgsl=lambda w, i, c: f"{w.function('is_inf', _IS_INF)}({w.operand(i, 0, c)})"))


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


integer_pow_p = register(Op(
    "integer_pow", rule=_integer_pow_rule, impl=lambda x, *, n: np.power(x, n), vjp=_integer_pow_vjp,
    simplify=lambda node, nodes: node.inputs[0] if node.attrs["n"] == 1 else None, wgsl=_integer_pow_wgsl))

# add: d(x + y) = dx + dy; x + 0 is x.
add_p = register(Op("add", rule=binary("add", NUMERIC), impl=np.add,
                    vjp=lambda g, ans, x, y: (g, g), simplify=_identity_if(-1, 0), wgsl="({0} + {1})"))

# sub: d(x - y) = dx - dy; x - 0 is x.
sub_p = register(Op("sub", rule=binary("sub", NUMERIC), impl=np.subtract,
                    vjp=lambda g, ans, x, y: (g, neg(g)), simplify=_identity_if(1, 0), wgsl="({0} - {1})"))

# mul: d(x y) = y dx + x dy; x * 1 is x.
mul_p = register(Op("mul", rule=binary("mul", NUMERIC), impl=np.multiply,
                    vjp=lambda g, ans, x, y: (g * y, g * x), simplify=_identity_if(-1, 1), wgsl="({0} * {1})"))

# div: d(x / y) = dx / y - (x / y) dy / y; x / 1 is x.
div_p = register(Op("div", rule=binary("div", FLOAT), impl=np.divide,
                    vjp=lambda g, ans, x, y: (g / y, neg(g * ans / y)), simplify=_identity_if(1, 1), wgsl="({0} / {1})"))


# pow: x^y as C's pow (NumPy's, JAX's): x^0 and 1^y are 1 even for NaN; a negative base
# takes integral exponents (odd ones keep its sign, -0 included) and gives NaN for others;
# 0 and inf follow the limits (0^-0.7 = inf, (-inf)^0.3 = inf, (-1)^inf = 1).
# d = y x^(y-1) dx + log(x) x^y dy, as JAX: log taken as 0 at x = 0, and dx = 0 where y = 0.
def _pow_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    return g * where(y == 0.0, 0.0, y * pow(x, y - 1.0)), g * ans * log(where(x == 0.0, 1.0, x))


# WGSL's pow is exp2(y log2(x)), undefined for x < 0 and at 0 (llvmpipe gives 0^-1 = 0):
# it serves |x| in (0, inf), and selects give every special case.
_POWER_F32 = """fn power_f32(x: f32, y: f32) -> f32 {
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


def _pow_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    w.function("is_nan", _IS_NAN)
    return f"{w.function('power_f32', _POWER_F32)}({w.operand(i, 0, coords)}, {w.operand(i, 1, coords)})"


pow_p = register(Op("pow", rule=binary("pow", FLOAT), impl=np.power, vjp=_pow_vjp, wgsl=_pow_wgsl))


# maximum / minimum: NaN wins, as in NumPy; on bools they are or / and. Each operand's
# cotangent is g times its share: 1 where it equals the result, 1/2 on a tie, 0 elsewhere;
# where the result is NaN neither equals it. As JAX, a product, so an infinite or NaN g
# gives NaN to the operand that was not chosen too.
def _choose_vjp(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    x_hit, y_hit = equal(x, ans), equal(y, ans)
    return g * where(x_hit, where(y_hit, 0.5, 1.0), 0.0), g * where(y_hit, where(x_hit, 0.5, 1.0), 0.0)


def _pick_wgsl(which: str) -> Callable[..., str]:
    return lambda w, i, c: _pick(w, which, w.spec(i).dtype)(w.operand(i, 0, c), w.operand(i, 1, c))


maximum_p = register(Op("maximum", rule=binary("maximum", ANY), impl=np.maximum, vjp=_choose_vjp, wgsl=_pick_wgsl("max")))
minimum_p = register(Op("minimum", rule=binary("minimum", ANY), impl=np.minimum, vjp=_choose_vjp, wgsl=_pick_wgsl("min")))

# Comparisons and logic: bool results, no derivative.
eq_p = register(Op("eq", rule=binary("eq", ANY, DType.bool), impl=np.equal, vjp=_nondiff, wgsl="({0} == {1})"))
ne_p = register(Op("ne", rule=binary("ne", ANY, DType.bool), impl=np.not_equal, vjp=_nondiff, wgsl="({0} != {1})"))
lt_p = register(Op("lt", rule=binary("lt", NUMERIC, DType.bool), impl=np.less, vjp=_nondiff, wgsl="({0} < {1})"))
le_p = register(Op("le", rule=binary("le", NUMERIC, DType.bool), impl=np.less_equal, vjp=_nondiff, wgsl="({0} <= {1})"))
gt_p = register(Op("gt", rule=binary("gt", NUMERIC, DType.bool), impl=np.greater, vjp=_nondiff, wgsl="({0} > {1})"))
ge_p = register(Op("ge", rule=binary("ge", NUMERIC, DType.bool), impl=np.greater_equal, vjp=_nondiff, wgsl="({0} >= {1})"))
logical_and_p = register(Op("logical_and", rule=binary("logical_and", BOOL), impl=np.logical_and, vjp=_nondiff, wgsl="({0} && {1})"))
logical_or_p = register(Op("logical_or", rule=binary("logical_or", BOOL), impl=np.logical_or, vjp=_nondiff, wgsl="({0} || {1})"))


# where: x where cond holds, else y; the cotangent is routed the same way.
def _where_rule(cond: Spec, x: Spec, y: Spec) -> Spec:
    _check_dtypes("where", BOOL, cond)
    return elementwise("where", 3, ANY)(Spec(cond.shape, x.dtype), x, y)


where_p = register(Op("where", rule=_where_rule, impl=np.where,
                      vjp=lambda g, ans, c, x, y: (None, where(c, g, 0.0), where(c, 0.0, g)), wgsl="select({2}, {1}, {0})"))

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


# The clamp's upper bound is the largest f32 below 2^31; NaN is read off the bits.
_F32_TO_I32 = """fn f32_to_i32(x: f32) -> i32 {
    let r = select(i32(clamp(x, -2147483648.0f, 2147483520.0f)), 2147483647i, x >= 2147483648.0f);
    return select(r, 0i, is_nan(x));
}"""
_CAST_FUNCTIONS = {(DType.f32, DType.i32): {"is_nan": _IS_NAN, "f32_to_i32": _F32_TO_I32}}


def _astype_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    cast = (w.spec(w.nodes[i].inputs[0]).dtype, w.spec(i).dtype)
    for name, text in _CAST_FUNCTIONS.get(cast, {}).items():
        w.function(name, text)
    return _CAST[cast].format(w.operand(i, 0, coords))


astype_p = register(Op("astype", rule=lambda x, *, dtype: Spec(x.shape, dtype), impl=lambda x, *, dtype: convert(x, dtype),
                       vjp=_nondiff, wgsl=_astype_wgsl))

# stop_gradient: identity whose derivative is zero.
stop_gradient_p = register(Op("stop_gradient", rule=lambda x: x, impl=lambda x: x, vjp=_nondiff, wgsl="{0}"))


# sum over sorted, unique axes (keepdims is a reshape in the public function);
# the cotangent is broadcast back over the summed axes.
def _unreduce(g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    return broadcast_to(reshape(g, tuple(1 if i in axes else d for i, d in enumerate(shape))), shape)


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


sum_p = register(Op("sum", rule=reduction("sum", NUMERIC), impl=lambda x, *, axes: np.sum(x, axis=axes),
                    vjp=lambda g, ans, x, *, axes: (_unreduce(g, x.shape, axes),), wgsl=_reduce_wgsl(lambda w, dtype: lambda acc, v: f"{acc} + {v}", lambda dtype: 0), fusion="reduction", folds=_folds_axes))


# max / min over axes: NaN wins, as in NumPy; on bools they are any / all. The cotangent
# goes to the elements equal to the result; ties share it evenly. That equality needs the
# very values the reduction folded (`selects`: fgrad/lower/fusion.py keeps one computation).
def _pick_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axes: tuple[int, ...]) -> tuple[Tensor]:
    hit = astype(equal(x, _unreduce(ans, x.shape, axes)), DType.f32)
    count = sum(hit, axes)
    return (hit * _unreduce(g / count, x.shape, axes),)


def _pick_reduce_wgsl(which: str) -> Callable[..., str]:
    start = -math.inf if which == "max" else math.inf  # a literal clamps it to the i32 range
    return _reduce_wgsl(lambda w, dtype: _pick(w, which, dtype), lambda dtype: which == "min" if dtype is DType.bool else start)


max_p = register(Op("max", rule=reduction("max", ANY), impl=lambda x, *, axes: np.max(x, axis=axes), vjp=_pick_vjp,
                    wgsl=_pick_reduce_wgsl("max"), fusion="reduction", folds=_folds_axes, selects=True))
min_p = register(Op("min", rule=reduction("min", ANY), impl=lambda x, *, axes: np.min(x, axis=axes), vjp=_pick_vjp,
                    wgsl=_pick_reduce_wgsl("min"), fusion="reduction", folds=_folds_axes, selects=True))

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


softmax_p = register(Op("softmax", rule=along_axis("softmax"), impl=_stable_softmax,
                        vjp=lambda g, ans, x, *, axis: (ans * (g - sum(g * ans, axis, keepdims=True)),), wgsl=_softmax_wgsl(log=False), fusion="normalization", folds=_folds_axis))

# log_softmax along one axis; d = g - softmax(x) sum(g) = g - exp(ans) sum(g).
log_softmax_p = register(Op("log_softmax", rule=along_axis("log_softmax"), impl=_stable_log_softmax,
                            vjp=lambda g, ans, x, *, axis: (g - exp(ans) * sum(g, axis, keepdims=True),), wgsl=_softmax_wgsl(log=True), fusion="normalization", folds=_folds_axis))


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


reshape_p = register(Op("reshape", rule=_reshape_rule, impl=lambda x, *, shape: np.reshape(x, shape),
                        vjp=lambda g, ans, x, *, shape: (reshape(g, x.shape),), simplify=_reshape_simplify, wgsl=lambda w, i, c: w.operand(i, 0, w.unravel(w.ravel(c, w.spec(i).shape), w.spec(w.nodes[i].inputs[0]).shape)), fusion="view"))


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


def _transpose_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    inner = [""] * len(coords)
    for d, p in enumerate(w.nodes[i].attrs["perm"]):
        inner[p] = coords[d]
    return w.operand(i, 0, inner)


transpose_p = register(Op("transpose", rule=_transpose_rule, impl=lambda x, *, perm: np.transpose(x, perm),
                          vjp=lambda g, ans, x, *, perm: (transpose(g, tuple(np.argsort(perm).tolist())),),
                          simplify=_transpose_simplify, wgsl=_transpose_wgsl, fusion="view"))


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
    return (reshape(sum(g, axes), x.shape),)


def _broadcast_to_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x = w.spec(w.nodes[i].inputs[0])
    lead = len(coords) - x.ndim
    return w.operand(i, 0, [coords[lead + d] if n != 1 else "0i" for d, n in enumerate(x.shape)])


broadcast_to_p = register(Op(
    "broadcast_to", rule=_broadcast_to_rule, impl=lambda x, *, shape: np.broadcast_to(x, shape), vjp=_broadcast_to_vjp,
    simplify=lambda node, nodes: node.inputs[0] if nodes[node.inputs[0]].spec == node.spec else None, wgsl=_broadcast_to_wgsl, fusion="view"))


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


slice_p = register(Op("slice", rule=_slice_rule, impl=_slice_impl, vjp=_slice_vjp, wgsl=_slice_wgsl, fusion="view"))


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


pad_p = register(Op("pad", rule=_pad_rule, impl=_pad_impl,
                    vjp=lambda g, ans, x, *, widths, value: (bind(slice_p, g, **_padded_region(x.shape, widths)),), wgsl=_pad_wgsl, fusion="view"))


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


concatenate_p = register(Op("concatenate", rule=_concatenate_rule, impl=lambda *xs, axis: np.concatenate(xs, axis=axis),
                            vjp=_concatenate_vjp, wgsl=_concatenate_wgsl, fusion="view"))


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
    return transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _sum_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum the batch dims that `shape` has as 1 but `x` does not."""
    axes = tuple(i for i, (d, s) in enumerate(zip(x.shape[:-2], shape[:-2])) if d != s)
    return reshape(sum(x, axes), shape) if axes else x


def _matmul_vjp(g: Tensor, ans: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    # A weight b (batch dims all 1) against a batch of a: db = a^T g over all rows at once.
    shared_b = b.ndim > 2 and all(d == 1 for d in b.shape[:-2])
    db = (reshape(bind(matmul_p, _matrix_transpose(reshape(a, (-1, a.shape[-1]))), reshape(g, (-1, g.shape[-1]))),
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


matmul_p = register(Op("matmul", rule=_matmul_rule, impl=np.matmul, vjp=_matmul_vjp, wgsl=_matmul_wgsl, fusion="contraction"))


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
        idx = clip(idx, 0, n - 1)
    else:  # one_hot rows of filled entries are zero; their cotangent (NaN, say) must not reach 0 * g either
        inside = logical_and(idx >= 0, idx < n)
        g = where(reshape(inside, (1,) * axis + idx.shape + (1,) * (g.ndim - axis - idx.ndim)), g, 0.0)
    moved = transpose(g, tuple(range(axis, axis + idx.ndim)) + tuple(range(axis)) +
                      tuple(range(axis + idx.ndim, g.ndim))) if axis else g
    rest = moved.shape[idx.ndim:]
    picked = one_hot(reshape(idx, (count,)), n)  # (count, n)
    grad = reshape(transpose(picked) @ reshape(moved, (count, math.prod(rest))), (n, *rest))
    return (transpose(grad, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, grad.ndim))) if axis else grad), None


take_p = register(Op("take", rule=_take_rule, impl=_take_impl, vjp=_take_vjp, wgsl=_take_wgsl, fusion="view"))


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


scatter_add_p = register(Op("scatter_add", rule=_scatter_add_rule, impl=_scatter_add_impl, vjp=_scatter_add_vjp,
                            wgsl=_scatter_add_wgsl, fusion="contraction", folds=lambda node, u, idx: idx.size))


# ---------------------------------------------------------------------------
# Public functions: NumPy-style promotion, broadcasting and validation
# ---------------------------------------------------------------------------

_RANK = {DType.bool: 0, DType.i32: 1, DType.f32: 2}
_PYTHON_DTYPE = {bool: DType.bool, int: DType.i32, float: DType.f32}


def _dtype(x: ArrayLike) -> DType:
    """fgrad dtype of a Tensor, array or Python number (float64 -> f32, int64 -> i32).

    Every public function reads its operands' dtypes here first, so a value fgrad
    has no dtype for (None, a string, a ragged list, float16, complex) is refused,
    naming the function called, even where the operand is converted to a given dtype.
    """
    if isinstance(x, HasSpec):
        return x.dtype
    if type(x) in _PYTHON_DTYPE:
        return _PYTHON_DTYPE[type(x)]
    try:
        dtype = np.asarray(x).dtype
    except (TypeError, ValueError) as e:
        raise DTypeError(f"{user_call()}: cannot make an array from a {type(x).__name__}: {e}", user_site()) from None
    if dtype.kind in "OUSV":  # objects, strings, bytes, records: not numbers
        raise DTypeError(f"{user_call()}: got a {type(x).__name__} ({_brief(x)}), expected an array or a number",
                         user_site())
    try:
        return DType.of(dtype)
    except DTypeError as e:
        raise DTypeError(f"{user_call()}: {e}", user_site()) from None


def _brief(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def result_dtype(*xs: ArrayLike) -> DType:
    """The dtype operands promote to: bool < i32 < f32."""
    return builtins.max((_dtype(x) for x in xs), key=_RANK.__getitem__)


def asarray(x: ArrayLike, dtype: str | DType | None = None) -> Tensor | np.ndarray:
    """`x` as an fgrad value: Tensors pass through (cast if `dtype` differs),
    numbers and arrays become constants (eagerly, arrays of fgrad's dtypes)."""
    have = _dtype(x)
    want = have if dtype is None else _as_dtype(dtype)
    if isinstance(x, Tensor):
        check_live(x)
        return x if x.dtype is want else bind(astype_p, x, dtype=want)
    if 0 in _shape(x):
        raise ShapeError(f"{user_call()}: got an empty array of shape {_shape(x)}; fgrad values have at least "
                         "one element", user_site())
    try:
        value = _host_constant(x, want)
    except OverflowError as e:
        raise DTypeError(f"{user_call()}: {e}, fgrad's integer type; use a float, or values that fit",
                         user_site()) from None
    return bind(constant_p, value=value)


def _host_constant(x: Any, dtype: DType) -> Const:
    """A number or array of the user's as a Const of `dtype`. Integers that do not fit an
    i32 raise OverflowError, as JAX does for Python ints, instead of wrapping."""
    arr = np.asarray(x)
    if dtype is DType.i32 and arr.dtype.kind in "iuO" and not fits_i32(arr):
        bad = arr.max() if arr.max() > I32.max else arr.min()
        raise OverflowError(f"the integer {bad} does not fit i32 ({I32.min}..{I32.max})")
    return Const.of(convert(arr, dtype), dtype)


def _as_dtype(dtype: str | DType, name: str = "asarray") -> DType:
    try:
        return DType.named(dtype)
    except DTypeError as e:
        raise DTypeError(f"{name}: {e}", user_site()) from None


def _shape(x: ArrayLike) -> tuple[int, ...]:
    return tuple(np.shape(x)) if not isinstance(x, Tensor) else x.shape


def _broadcast(name: str, *xs: Tensor | np.ndarray) -> list[Tensor | np.ndarray]:
    shapes = [_shape(x) for x in xs]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(f"{name}: cannot broadcast {' with '.join(map(str, shapes))}", user_site()) from None
    return [broadcast_to(x, shape) for x in xs]


def _elementwise(op: Op, *args: ArrayLike, dtype: DType | None = None) -> Tensor | np.ndarray:
    """Promote `args` to one dtype (`dtype` if given), broadcast them, bind `op`."""
    dt = dtype or result_dtype(*args)
    return bind(op, *_broadcast(op.name, *(asarray(a, dt) for a in args)))


def _arith_dtype(*args: ArrayLike) -> DType:
    # Arithmetic that has no bool form (sum, pow, relu) counts bools as integers, as jax.numpy.
    dt = result_dtype(*args)
    return DType.i32 if dt is DType.bool else dt


def _no_bool(name: str, *args: ArrayLike) -> None:
    """jax.numpy refuses bools where NumPy's bool arithmetic would be a trap (-b, b - c)."""
    if result_dtype(*args) is DType.bool:
        raise DTypeError(f"{name}: bool operands are not supported "
                         f"({', '.join(str(spec_of(asarray(a))) for a in args)}); use fg.logical_not / "
                         "fg.not_equal for logic, or astype('i32') for arithmetic", user_site())


def _no_keywords(name: str, keywords: dict[str, Any], takes: str = "only the value x") -> None:
    if keywords:
        raise TraceError(f"{name}: unexpected keyword argument {next(iter(keywords))!r}; "
                         f"fg.{name} takes {takes}", user_site())


def _unary(op: Op, dtype: Callable[[ArrayLike], DType], doc: str) -> Callable[..., Tensor | np.ndarray]:
    """The public function of an elementwise primitive: `op` on x converted to `dtype(x)`."""

    def fn(x: ArrayLike, **keywords: Any) -> Tensor | np.ndarray:
        _no_keywords(op.name, keywords)
        return bind(op, asarray(x, dtype(x)))

    fn.__name__ = fn.__qualname__ = op.name
    fn.__code__ = fn.__code__.replace(co_name=op.name)  # tracebacks and user_call() say `exp`, not `fn`
    fn.__doc__ = doc.format(op.name)
    return fn


def _float_unary(op: Op) -> Callable[..., Tensor | np.ndarray]:
    return _unary(op, lambda x: DType.f32, "Elementwise {}; integer and bool inputs are converted to f32.")


def _numeric_unary(op: Op) -> Callable[..., Tensor | np.ndarray]:
    return _unary(op, _arith_dtype, "Elementwise {} of an f32 or i32 value (bools count as i32).")


exp = _float_unary(exp_p)
log = _float_unary(log_p)
sqrt = _float_unary(sqrt_p)
rsqrt = _float_unary(rsqrt_p)
tanh = _float_unary(tanh_p)
sin = _float_unary(sin_p)
cos = _float_unary(cos_p)
sigmoid = _float_unary(sigmoid_p)
silu = _float_unary(silu_p)
erf = _float_unary(erf_p)
relu = _numeric_unary(relu_p)
_neg = _numeric_unary(neg_p)
_abs = _numeric_unary(abs_p)


def neg(x: ArrayLike, **keywords: Any) -> Tensor | np.ndarray:
    """Elementwise -x of an f32 or i32 value (bools are refused, as in jax.numpy)."""
    _no_bool("neg", x)
    return _neg(x, **keywords)


def abs(x: ArrayLike, **keywords: Any) -> Tensor | np.ndarray:
    """Elementwise |x| of an f32 or i32 value; a bool stays as it is, as in jax.numpy."""
    _no_keywords("abs", keywords)
    return asarray(x) if result_dtype(x) is DType.bool else _abs(x)


def gelu(x: ArrayLike, approximate: bool = True, **keywords: Any) -> Tensor | np.ndarray:
    """GELU, x P(X <= x) for a standard normal X, as `jax.nn.gelu`: with `approximate`
    (the default) the tanh form, else the exact x/2 (1 + erf(x / sqrt(2)))."""
    _no_keywords("gelu", keywords, takes="x and approximate")
    if not isinstance(approximate, (bool, np.bool_)):
        raise TraceError(f"gelu: approximate must be True or False, got {approximate!r}", user_site())
    x = asarray(x, DType.f32)
    return bind(gelu_p, x) if approximate else multiply(multiply(x, 0.5), add(erf(multiply(x, 1 / math.sqrt(2))), 1.0))


def isnan(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise test for NaN, as bool (False for integers and bools)."""
    return _float_test_public(isnan_p, x)


def isinf(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise test for +inf or -inf, as bool (False for integers and bools)."""
    return _float_test_public(isinf_p, x)


def isfinite(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise test for a value that is neither inf nor NaN, as bool."""
    return logical_not(logical_or(isnan(x), isinf(x)))


def _float_test_public(op: Op, x: ArrayLike) -> Tensor | np.ndarray:
    x = asarray(x)
    if _dtype(x) is not DType.f32:  # integers and bools are never NaN or inf
        return broadcast_to(asarray(False), _shape(x))
    return bind(op, x)


def logical_not(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise not of a bool value."""
    return bind(logical_not_p, asarray(x))


def add(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x + y with NumPy broadcasting and promotion (bool < i32 < f32); two bools give
    their logical or, as in NumPy and jax.numpy."""
    if result_dtype(x, y) is DType.bool:
        return logical_or(x, y)
    return _elementwise(add_p, x, y, dtype=_arith_dtype(x, y))


def subtract(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x - y with broadcasting and promotion (two bools are refused, as in jax.numpy)."""
    _no_bool("subtract", x, y)
    return _elementwise(sub_p, x, y, dtype=_arith_dtype(x, y))


def multiply(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x * y with broadcasting and promotion; two bools give their logical and."""
    if result_dtype(x, y) is DType.bool:
        return logical_and(x, y)
    return _elementwise(mul_p, x, y, dtype=_arith_dtype(x, y))


def divide(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """True division x / y; integer operands give f32, as in NumPy."""
    return _elementwise(div_p, x, y, dtype=DType.f32)


def maximum(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise maximum with broadcasting and promotion; NaN wins, bools give bool (or)."""
    return _elementwise(maximum_p, x, y)


def minimum(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise minimum with broadcasting and promotion; NaN wins, bools give bool (and)."""
    return _elementwise(minimum_p, x, y)


def _static_int(y: Any) -> int | None:
    """`y` as a Python int if it is an integral Python/NumPy number, else None."""
    if isinstance(y, (bool, np.bool_)):
        return None
    if isinstance(y, (int, np.integer)):
        return int(y)
    if isinstance(y, (float, np.floating)) and float(y).is_integer() and builtins.abs(y) <= 2**31:
        return int(y)
    return None


def pow(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x ** y. A static integral exponent becomes `integer_pow` (repeated multiplication);
    otherwise both operands are f32 and the result is C's (NumPy's, JAX's) pow for every
    x and y: a negative base takes integral exponents, NaN for others."""
    n = _static_int(y)
    if n is not None:
        dt = DType.f32 if isinstance(y, (float, np.floating)) else _arith_dtype(x)
        return bind(integer_pow_p, asarray(x, dt), n=n)
    return _elementwise(pow_p, x, y, dtype=DType.f32)


def equal(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x == y, elementwise, as bool."""
    return _elementwise(eq_p, x, y)


def not_equal(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x != y, elementwise, as bool."""
    return _elementwise(ne_p, x, y)


def less(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x < y, elementwise, as bool."""
    return _elementwise(lt_p, x, y, dtype=_arith_dtype(x, y))


def less_equal(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x <= y, elementwise, as bool."""
    return _elementwise(le_p, x, y, dtype=_arith_dtype(x, y))


def greater(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x > y, elementwise, as bool."""
    return _elementwise(gt_p, x, y, dtype=_arith_dtype(x, y))


def greater_equal(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x >= y, elementwise, as bool."""
    return _elementwise(ge_p, x, y, dtype=_arith_dtype(x, y))


def logical_and(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x and y, elementwise, on bool values."""
    return _elementwise(logical_and_p, x, y)


def logical_or(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x or y, elementwise, on bool values."""
    return _elementwise(logical_or_p, x, y)


def where(cond: ArrayLike, x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x where cond holds, else y; all three broadcast. A non-bool cond means cond != 0."""
    dt = result_dtype(x, y)
    return bind(where_p, *_broadcast("where", asarray(cond, DType.bool), asarray(x, dt), asarray(y, dt)))


def clip(x: ArrayLike, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor | np.ndarray:
    """minimum(maximum(x, min), max), as `jnp.clip`: a None bound is no bound; NaN stays NaN."""
    if min is not None:
        x = maximum(x, min)
    if max is not None:
        x = minimum(x, max)
    return asarray(x)


def astype(x: ArrayLike, dtype: str | DType) -> Tensor | np.ndarray:
    """Convert to `dtype`: f32 -> i32 truncates toward zero, anything -> bool is x != 0."""
    return asarray(x, _as_dtype(dtype, "astype"))


def stop_gradient(x: ArrayLike) -> Tensor | np.ndarray:
    """Identity whose gradient is zero."""
    return bind(stop_gradient_p, asarray(x))


# -- reductions --------------------------------------------------------------


def _axes(name: str, shape: tuple[int, ...], axis: int | Sequence[int] | None, ndim: int | None = None) -> tuple[int, ...]:
    """Normalise `axis` (None, int or sequence; negatives count from the end) for
    `ndim` axes (those of `shape` unless given)."""
    ndim = len(shape) if ndim is None else ndim
    if axis is None:
        return tuple(range(ndim))
    given = _axis_tuple(name, axis)
    out = []
    for a in given:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise ShapeError(f"{name}: axis {a!r} is not an integer", user_site())
        if not -ndim <= a < ndim:
            raise ShapeError(f"{name}: axis {a} is out of range for {ndim} axes of {shape}", user_site())
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{name}: repeated axis in {given} for {shape}", user_site())
    return tuple(sorted(out))


def _axis_tuple(name: str, axis: Any) -> tuple[Any, ...]:
    if isinstance(axis, (int, np.integer)):
        return (axis,)
    if isinstance(axis, (tuple, list)):
        return tuple(axis)
    raise ShapeError(f"{name}: axis {axis!r} must be an integer or a tuple of integers", user_site())


def _keepdims(out: Tensor | np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor | np.ndarray:
    return reshape(out, tuple(1 if i in axes else d for i, d in enumerate(shape)))


def sum(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Sum over `axis` (all axes if None). Bools are counted as i32."""
    x = asarray(x, _arith_dtype(x))
    axes = _axes("sum", _shape(x), axis)
    out = bind(sum_p, x, axes=axes) if axes else x
    return _keepdims(out, _shape(x), axes) if keepdims else out


def mean(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Mean over `axis` (all axes if None), in f32."""
    x = asarray(x, DType.f32)
    axes = _axes("mean", _shape(x), axis)
    count = math.prod(_shape(x)[a] for a in axes)
    return multiply(sum(x, axes, keepdims), 1.0 / count)


def max(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Maximum over `axis` (all axes if None); NaN wins; bools give bool (any)."""
    return _pick_reduce(max_p, x, axis, keepdims)


def min(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Minimum over `axis` (all axes if None); NaN wins; bools give bool (all)."""
    return _pick_reduce(min_p, x, axis, keepdims)


def _pick_reduce(op: Op, x: ArrayLike, axis: int | Sequence[int] | None, keepdims: bool) -> Tensor | np.ndarray:
    x = asarray(x)
    axes = _axes(op.name, _shape(x), axis)
    out = bind(op, x, axes=axes) if axes else x
    return _keepdims(out, _shape(x), axes) if keepdims else out


def argmax(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Index of the largest value along `axis` (of the flattened x if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy."""
    return _arg_extreme("argmax", max, x, axis, keepdims)


def argmin(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Index of the smallest value along `axis` (of the flattened x if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy."""
    return _arg_extreme("argmin", min, x, axis, keepdims)


def _arg_extreme(name: str, extreme: Callable[..., Any], x: ArrayLike, axis: int | None,
                 keepdims: bool) -> Tensor | np.ndarray:
    x = asarray(x, _arith_dtype(x))  # bools count as 0 and 1
    shape = _shape(x)
    if axis is None:
        flat = _arg_extreme(name, extreme, reshape(x, (-1,)), 0, False)
        return reshape(flat, (1,) * len(shape)) if keepdims else flat
    axis = _one_axis(name, x, axis)
    hit = equal(x, extreme(x, axis, keepdims=True))
    if _dtype(x) is DType.f32:
        hit = logical_or(hit, isnan(x))
    index = bind(iota_p, shape=shape, axis=axis, dtype=DType.i32)
    return min(where(hit, index, shape[axis]), axis, keepdims)


def _one_axis(name: str, x: Tensor | np.ndarray, axis: int) -> int:
    if not isinstance(axis, (int, np.integer)):
        raise ShapeError(f"{name}: axis must be a single integer, got {axis!r}", user_site())
    return _axes(name, _shape(x), axis)[0]


def softmax(x: ArrayLike, axis: int = -1) -> Tensor | np.ndarray:
    """exp(x) / sum(exp(x)) along `axis`, computed stably."""
    x = asarray(x, DType.f32)
    return bind(softmax_p, x, axis=_one_axis("softmax", x, axis))


def log_softmax(x: ArrayLike, axis: int = -1) -> Tensor | np.ndarray:
    """x - logsumexp(x) along `axis`, computed stably."""
    x = asarray(x, DType.f32)
    return bind(log_softmax_p, x, axis=_one_axis("log_softmax", x, axis))


def logsumexp(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """log(sum(exp(x))) over `axis`, shifted by the (gradient-free) max for stability, as
    `jax.nn.logsumexp`: -inf where every value is -inf (a fully masked row), +inf where one is
    +inf. Where every value is -inf the gradient is 0, not NaN (no value moves the result)."""
    x = asarray(x, DType.f32)
    axes = _axes("logsumexp", _shape(x), axis)
    m = max(x, axes, keepdims=True)
    m = stop_gradient(where(less(abs(m), math.inf), m, 0.0))  # a shift by -inf or inf would give inf - inf
    total = sum(exp(subtract(x, m)), axes, keepdims=True)
    empty = equal(total, 0.0)  # log(0) = -inf, but its derivative 1/0 times exp(-inf) = 0 is NaN
    out = add(where(empty, -math.inf, log(where(empty, 1.0, total))), m)
    return out if keepdims else reshape(out, tuple(d for i, d in enumerate(_shape(x)) if i not in axes))


# -- shapes ------------------------------------------------------------------


def _shape_arg(name: str, shape: Any) -> tuple[int, ...]:
    if not isinstance(shape, (int, np.integer, tuple, list, np.ndarray)):
        raise ShapeError(f"{name}: shape {shape!r} must be a tuple of integers", user_site())
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dims):
        raise ShapeError(f"{name}: shape {shape!r} must be a tuple of integers", user_site())
    return tuple(int(d) for d in dims)


def reshape(x: ArrayLike, shape: int | Sequence[int]) -> Tensor | np.ndarray:
    """Same elements, new shape; one dimension may be -1 (inferred)."""
    x = asarray(x)
    old = _shape(x)
    shape = _shape_arg("reshape", shape)
    known = math.prod(d for d in shape if d != -1)
    if shape.count(-1) == 1 and known > 0 and math.prod(old) % known == 0:
        shape = tuple(math.prod(old) // known if d == -1 else d for d in shape)
    if shape == old:
        return x
    if any(d < 1 for d in shape) or math.prod(shape) != math.prod(old):
        raise ShapeError(f"reshape: cannot reshape {old} into {shape}", user_site())
    return bind(reshape_p, x, shape=shape)


def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Tensor | np.ndarray:
    """Permute axes (reverse them if `axes` is None): out.shape[i] = x.shape[axes[i]]."""
    x = asarray(x)
    ndim = len(_shape(x))
    if axes is not None and not isinstance(axes, (tuple, list)):
        raise ShapeError(f"transpose: axes {axes!r} must be a tuple of integers for {_shape(x)}", user_site())
    perm = tuple(reversed(range(ndim))) if axes is None else tuple(axes)
    valid = all(isinstance(a, (int, np.integer)) and -ndim <= a < ndim for a in perm)
    if not valid or sorted(int(a) % ndim for a in perm) != list(range(ndim)):
        raise ShapeError(f"transpose: axes {perm} are not a permutation of 0..{ndim - 1} for {_shape(x)}", user_site())
    perm = tuple(int(a) % ndim for a in perm)
    return x if perm == tuple(range(ndim)) else bind(transpose_p, x, perm=perm)


def broadcast_to(x: ArrayLike, shape: int | Sequence[int]) -> Tensor | np.ndarray:
    """Broadcast `x` to `shape` by NumPy's rules."""
    x = asarray(x)
    shape = _shape_arg("broadcast_to", shape)
    return x if shape == _shape(x) else bind(broadcast_to_p, x, shape=shape)


def expand_dims(x: ArrayLike, axis: int | Sequence[int]) -> Tensor | np.ndarray:
    """Insert size-1 axes at the positions `axis` of the result."""
    x = asarray(x)
    old = _shape(x)
    given = _axis_tuple("expand_dims", axis)
    ndim = len(old) + len(given)
    axes = _axes("expand_dims", old, given, ndim)
    it = iter(old)
    return reshape(x, tuple(1 if i in axes else next(it) for i in range(ndim)))


def squeeze(x: ArrayLike, axis: int | Sequence[int] | None = None) -> Tensor | np.ndarray:
    """Remove size-1 axes (all of them if `axis` is None)."""
    x = asarray(x)
    old = _shape(x)
    axes = tuple(i for i, d in enumerate(old) if d == 1) if axis is None else _axes("squeeze", old, axis)
    for a in axes:
        if old[a] != 1:
            raise ShapeError(f"squeeze: cannot squeeze axis {a} of size {old[a]} in {old}", user_site())
    return reshape(x, tuple(d for i, d in enumerate(old) if i not in axes))


def concatenate(xs: Sequence[ArrayLike], axis: int = 0) -> Tensor | np.ndarray:
    """Join values along an existing axis; dtypes promote."""
    _operands("concatenate", xs)
    if len(xs) == 0:
        raise ShapeError("concatenate: needs at least one operand", user_site())
    dt = result_dtype(*xs)
    xs = [asarray(x, dt) for x in xs]
    shapes = [_shape(x) for x in xs]
    if len({len(s) for s in shapes}) > 1:
        raise ShapeError(f"concatenate: operands have different ranks: {', '.join(map(str, shapes))}", user_site())
    if len(xs) == 1:
        return xs[0]
    return bind(concatenate_p, *xs, axis=_one_axis("concatenate", xs[0], axis))


def stack(xs: Sequence[ArrayLike], axis: int = 0) -> Tensor | np.ndarray:
    """Join values of one shape along a new axis."""
    _operands("stack", xs)
    if len(xs) == 0:
        raise ShapeError("stack: needs at least one operand", user_site())
    shapes = {_shape(x) for x in xs}
    if len(shapes) > 1:
        raise ShapeError(f"stack: operands have different shapes: {', '.join(str(_shape(x)) for x in xs)}", user_site())
    return concatenate([expand_dims(x, axis) for x in xs], axis)


def _operands(name: str, xs: Any) -> None:
    if not isinstance(xs, (list, tuple)):
        raise TraceError(f"{name}: expected a list or tuple of arrays, got a {type(xs).__name__}", user_site())


def _pad_widths(pad_width: Any, shape: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    arr = np.asarray(pad_width)
    if arr.dtype.kind not in "iu" or arr.shape not in [(), (2,), (1, 2), (len(shape), 2)]:
        raise ShapeError(
            f"pad: pad_width {pad_width!r} must be an int, a (low, high) pair or {len(shape)} pairs for {shape}",
            user_site())
    widths = np.broadcast_to(arr, (len(shape), 2))
    if (widths < 0).any():
        raise ShapeError(f"pad: negative pad_width {pad_width!r} for {shape}; slice instead", user_site())
    return tuple((int(lo), int(hi), 0) for lo, hi in widths)


def pad(x: ArrayLike, pad_width: Any, constant_values: float | int | bool = 0) -> Tensor | np.ndarray:
    """Pad with a constant, NumPy style: pad_width an int, a (low, high) pair or one pair per axis."""
    x = asarray(x)
    widths = _pad_widths(pad_width, _shape(x))
    if not any(lo or hi for lo, hi, _ in widths):
        return x
    value = _static_scalar("pad", "constant_values", constant_values, _dtype(x)).array.item()
    return bind(pad_p, x, widths=widths, value=value)


def matmul(a: ArrayLike, b: ArrayLike) -> Tensor | np.ndarray:
    """Matrix product with NumPy's rules: 1-D operands are vectors, batch dims broadcast;
    bools give bool (an or of ands), as in jax.numpy."""
    if result_dtype(a, b) is DType.bool:
        return greater(matmul(astype(a, DType.i32), astype(b, DType.i32)), 0)
    dt = _arith_dtype(a, b)
    a, b = asarray(a, dt), asarray(b, dt)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        raise ShapeError(f"matmul: operands must be at least 1-D, got {sa} @ {sb}", user_site())
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    if a2[-1] != b2[-2]:
        raise ShapeError(f"matmul: inner dimensions differ: {sa} @ {sb}", user_site())
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise ShapeError(f"matmul: batch dimensions {a2[:-2]} and {b2[:-2]} do not broadcast in {sa} @ {sb}", user_site()) from None
    rank = len(batch) + 2
    a = reshape(a, (1,) * (rank - len(a2)) + a2)
    b = reshape(b, (1,) * (rank - len(b2)) + b2)
    out = bind(matmul_p, a, b)
    shape = batch + ((a2[-2],) if len(sa) > 1 else ()) + ((b2[-1],) if len(sb) > 1 else ())
    return reshape(out, shape)


def take(x: ArrayLike, indices: ArrayLike, axis: int | None = None, mode: str | None = None,
         fill_value: float | int | bool | None = None) -> Tensor | np.ndarray:
    """Gather entries along `axis` (of the flattened x if None), as `jnp.take`.

    Indices known while tracing (ints, lists, NumPy arrays) are checked: they
    must lie in [-n, n), negative ones counting from the end. Traced indices
    cannot be checked (a GPU cannot raise) and follow `mode`, as in JAX:

    - "fill" (the default): an index in [-n, 0) counts from the end; any other
      index outside [0, n) gives `fill_value`, by default NaN for f32, the
      least i32 for i32 and True for bool. Those entries get no gradient.
    - "clip": indices are clamped into [0, n - 1] (a negative one reads entry
      0, as NumPy's mode="clip"), constants too; the gradient goes to the entry read.
    """
    x = asarray(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _one_axis("take", x, axis)
    mode = "fill" if mode is None else mode
    if mode not in ("fill", "clip"):
        raise TraceError(f"take: mode {mode!r} is not supported; use 'fill' (the default) or 'clip'", user_site())
    fill = _fill_value("take", fill_value, _dtype(x)) if mode == "fill" else None
    traced = isinstance(indices, Tensor)
    indices = _indices("take", indices, axis, _shape(x), normalize=mode == "fill")
    if not traced:  # constants were checked to lie in range: nothing to fill
        mode, fill = "clip", None
    return bind(take_p, x, indices, axis=axis, mode=mode, fill_value=fill)


# What out-of-range traced indices read in take's "fill" mode, as in JAX.
_DEFAULT_FILL = {DType.f32: math.nan, DType.i32: -(2**31), DType.bool: True}


def _fill_value(name: str, value: Any, dtype: DType) -> Const:
    return _static_scalar(name, "fill_value", _DEFAULT_FILL[dtype] if value is None else value, dtype)


def _static_scalar(name: str, what: str, value: Any, dtype: DType) -> Const:
    """A number known while tracing (a fill or pad value) as a Const of `dtype`."""
    if isinstance(value, Tensor) or type(value) not in _PYTHON_DTYPE and not isinstance(value, (np.generic, np.ndarray)) \
            or np.ndim(value) != 0:
        raise TraceError(f"{name}: {what} must be a static number, got {_brief(value)}", user_site())
    _dtype(value)  # refuses strings, complex numbers and float16
    try:
        return _host_constant(value, dtype)
    except OverflowError as e:
        raise DTypeError(f"{name}: {what}: {e}", user_site()) from None


def scatter_add(updates: ArrayLike, indices: ArrayLike, size: int, axis: int = 0,
                mode: str | None = None) -> Tensor | np.ndarray:
    """The transpose of `take`: an array with `size` entries along `axis`, zero but
    for each update slice added at its index; repeated indices accumulate. In the
    default mode, `jnp.zeros(shape).at[(slice(None),) * axis + (indices,)].add(updates)`.

    `updates` has shape `out.shape[:axis] + indices.shape + out.shape[axis+1:]`.
    Indices known while tracing are checked as in `take`. Traced indices follow
    `mode`: "drop" (the default) lets an index in [-size, 0) count from the end
    and drops the updates of any other index outside [0, size); "clip" clamps
    indices into [0, size - 1], constants too.
    """
    updates = asarray(updates, _arith_dtype(updates))
    shape = _shape(updates)
    size = _count("scatter_add", "size", size)
    nd = len(_shape(indices))
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, (bool, np.bool_)):
        raise ShapeError(f"scatter_add: axis must be a single integer, got {_brief(axis)}", user_site())
    if not 0 <= axis <= len(shape) - nd:
        raise ShapeError(f"scatter_add: axis {axis} does not fit indices {_shape(indices)} in updates {shape}", user_site())
    mode = "drop" if mode is None else mode
    if mode not in ("drop", "clip"):
        raise TraceError(f"scatter_add: mode {mode!r} is not supported; use 'drop' (the default) or 'clip'",
                         user_site())
    out_shape = shape[:axis] + (int(size),) + shape[axis + nd:]
    indices = _indices("scatter_add", indices, axis, out_shape, normalize=mode == "drop")
    return bind(scatter_add_p, updates, indices, axis=axis, size=int(size), mode=mode)


def _indices(name: str, indices: ArrayLike, axis: int, shape: tuple[int, ...], normalize: bool) -> Tensor | np.ndarray:
    """Indices into axis `axis` of `shape`, as i32. With `normalize`, constants are checked
    against the axis, and negative indices (constant or traced) count from the end."""
    n = shape[axis]
    _dtype(indices)  # refuses ragged lists, strings and None, naming the function
    if isinstance(indices, Tensor):
        if indices.dtype is not DType.i32:
            raise DTypeError(f"{name}: indices must be i32, got {indices.spec}", user_site())
        return where(less(indices, 0), add(indices, n), indices) if normalize else indices
    arr = np.asarray(indices)
    if arr.dtype.kind not in "iu":
        raise DTypeError(f"{name}: indices must be integers, got {arr.dtype}", user_site())
    if normalize:
        bad = arr[(arr < -n) | (arr >= n)]
        if bad.size:
            raise ShapeError(f"{name}: index {bad.flat[0]} is out of bounds for axis {axis} with size {n} of {shape}",
                             user_site())
        arr = np.where(arr < 0, arr + n, arr)
    return asarray(arr, DType.i32)


def _count(name: str, what: str, value: Any) -> int:
    """A size argument: a positive Python or NumPy integer (not a bool, not a float)."""
    if isinstance(value, Tensor):
        raise TraceError(TRACER_INDEX.format(what=f"{name}: {what}", spec=value.spec), user_site())
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 1:
        raise ShapeError(f"{name}: {what} must be a positive integer, got {_brief(value)}", user_site())
    return int(value)


def arange(start: int | float, stop: int | float | None = None, step: int | float = 1, dtype: str | DType | None = None) -> Tensor | np.ndarray:
    """Evenly spaced values in [start, stop), as in NumPy: i32 unless a bound is a float."""
    if stop is None:
        start, stop = 0, start
    for bound in (start, stop, step):
        if isinstance(bound, Tensor):
            raise TraceError(TRACER_INDEX.format(what="arange: a bound", spec=bound.spec), user_site())
        if type(bound) not in _PYTHON_DTYPE and not isinstance(bound, (np.integer, np.floating)) \
                or not math.isfinite(bound):
            raise ShapeError(f"arange: start, stop and step must be finite static numbers, got start={start!r}, "
                             f"stop={stop!r}, step={step!r}", user_site())
    dt = _as_dtype(dtype, "arange") if dtype is not None else result_dtype(start, stop, step)
    count = math.ceil((stop - start) / step) if step else 0
    if count > I32.max:
        raise ShapeError(f"arange: {count} values (start={start}, stop={stop}, step={step}) do not fit i32 "
                         "indices", user_site())
    if count < 1:
        raise ShapeError(f"arange: empty range start={start}, stop={stop}, step={step}", user_site())
    out = bind(iota_p, shape=(count,), axis=0, dtype=DType.i32)
    if start == 0 and step == 1:
        return asarray(out, dt)
    return asarray(add(multiply(asarray(out, dt), step), start), dt)


def one_hot(x: ArrayLike, num_classes: int, dtype: str | DType = "f32") -> Tensor | np.ndarray:
    """One-hot encoding of integer labels along a new last axis, as `jax.nn.one_hot`:
    a label outside [0, num_classes), a negative one included, gives a row of zeros."""
    num_classes = _count("one_hot", "num_classes", num_classes)
    if _dtype(x) is not DType.i32:
        raise DTypeError(f"one_hot: labels must be integers, got {spec_of(asarray(x))}", user_site())
    return asarray(equal(expand_dims(x, -1), arange(num_classes)), _as_dtype(dtype, "one_hot"))


def causal_mask(n: int) -> Tensor | np.ndarray:
    """(n, n) bool mask that is True where key position j <= query position i (may attend)."""
    n = _count("causal_mask", "n", n)
    rows = bind(iota_p, shape=(n, n), axis=0, dtype=DType.i32)
    cols = bind(iota_p, shape=(n, n), axis=1, dtype=DType.i32)
    return greater_equal(rows, cols)


# -- indexing ----------------------------------------------------------------


def getitem(x: ArrayLike, key: Any) -> Tensor | np.ndarray:
    """x[key] for ints, slices (step >= 1), None, ... and one integer-array index.

    Static ints and index arrays are checked against the axis (negative ones
    count from the end), as in NumPy. A traced index array cannot be checked:
    as in JAX, an index in [-n, 0) counts from the end and any other index
    outside [0, n) is clamped into range; the gradient goes to the entry read.
    Slice bounds must be static: a window at a traced start i is x[i + fg.arange(k)].
    """
    x = asarray(x)
    shape = _shape(x)
    key = list(key) if isinstance(key, tuple) else [key]
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise ShapeError(f"getitem: more than one ... in an index of {shape}", user_site())
    used = builtins.sum(k is not None and k is not Ellipsis for k in key)
    if used > len(shape):
        raise ShapeError(f"getitem: too many indices for {shape}: {used} given", user_site())
    fill = [builtins.slice(None)] * (len(shape) - used)
    key = key[: ellipses[0]] + fill + key[ellipses[0] + 1:] if ellipses else key + fill
    starts, stops, steps, out_shape, gather = [], [], [], [], None
    advanced = []  # key positions of ints and the integer array
    dim = 0
    for position, k in enumerate(key):
        if k is None:
            out_shape.append(1)
            continue
        n = shape[dim]
        if isinstance(k, builtins.slice):
            traced = [b for b in (k.start, k.stop, k.step) if isinstance(b, Tensor)]
            if traced:
                raise TraceError(TRACER_INDEX.format(what=f"getitem: a slice bound on axis {dim} of {shape}",
                                                     spec=traced[0].spec), user_site())
            bad = [b for b in (k.start, k.stop, k.step) if b is not None and not hasattr(b, "__index__")]
            if bad:
                raise ShapeError(f"getitem: slice bound {bad[0]!r} on axis {dim} of {shape} is not an integer",
                                 user_site())
            if k.step is not None and k.step < 1:
                raise ShapeError(f"getitem: slice step must be >= 1, got {k.step} on axis {dim} of {shape}", user_site())
            a, b, s = k.indices(n)
            if len(range(a, b, s)) == 0:
                raise ShapeError(f"getitem: slice {a}:{b}:{s} of axis {dim} with size {n} is empty", user_site())
            starts.append(a), stops.append(b), steps.append(s), out_shape.append(len(range(a, b, s)))
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            if not -n <= k < n:
                raise ShapeError(f"getitem: index {k} is out of bounds for axis {dim} with size {n} of {shape}", user_site())
            starts.append(int(k) % n), stops.append(int(k) % n + 1), steps.append(1)
            advanced.append(position)
        elif isinstance(k, (Tensor, list, np.ndarray)) and _dtype(k) is not DType.bool:
            if gather is not None:
                raise ShapeError(f"getitem: only one integer-array index is supported, in an index of {shape}", user_site())
            gather = (len(out_shape), _indices("getitem", k, dim, shape, normalize=True))
            starts.append(0), stops.append(n), steps.append(1), out_shape.append(n)
            advanced.append(position)
        else:
            raise ShapeError(
                f"getitem: unsupported index {k!r} for {shape}: use ints, slices, None, ... or one integer "
                "array (a boolean mask would need a data-dependent shape; use fg.where)", user_site())
        dim += 1
    if (starts, stops, steps) != ([0] * len(shape), list(shape), [1] * len(shape)):
        x = bind(slice_p, x, starts=tuple(starts), stops=tuple(stops), steps=tuple(steps))
    x = reshape(x, tuple(out_shape))
    if gather is None:
        return x
    axis, indices = gather
    x = bind(take_p, x, indices, axis=axis, mode="clip", fill_value=None)
    if advanced[-1] - advanced[0] == len(advanced) - 1:
        return x
    # NumPy puts the indexed axes first when a slice or None separates the
    # advanced indices (ints count as advanced beside an array).
    nd = len(_shape(indices))
    moved = tuple(range(axis, axis + nd))
    return transpose(x, moved + tuple(i for i in range(len(_shape(x))) if i not in moved))


# ---------------------------------------------------------------------------
# Tensor operators and methods: thin wrappers over the functions above
# ---------------------------------------------------------------------------


def _flip(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda self, other: fn(other, self)


def _varargs_shape(args: tuple[Any, ...]) -> Any:
    return args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args


def _invert(x: Tensor) -> Tensor:
    if x.dtype is not DType.bool:
        raise DTypeError(f"invert: ~ is logical not and needs a bool value, got {x.spec}", user_site())
    return logical_not(x)


def _setitem(x: Tensor, key: Any, value: Any) -> None:
    raise TraceError(IMMUTABLE.format(what=f"a Tensor {x.spec}"), user_site())


# The operators of fgrad values, shared by Tensor (traced) and fg.Array (eager, on the device):
# `__name__` and, for the arithmetic ones, the reflected `__rname__`.
ARITHMETIC_OPERATORS = {"add": add, "sub": subtract, "mul": multiply, "truediv": divide, "pow": pow,
                        "matmul": matmul, "and": logical_and, "or": logical_or}
COMPARISON_OPERATORS = {"eq": equal, "ne": not_equal, "lt": less, "le": less_equal, "gt": greater,
                        "ge": greater_equal}  # Python reflects these itself: `1 < x` is `x > 1`
for _name, _fn in ARITHMETIC_OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _fn)
    setattr(Tensor, f"__r{_name}__", _flip(_fn))
for _name, _fn in COMPARISON_OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _fn)
del _name, _fn
Tensor.__neg__, Tensor.__pos__, Tensor.__abs__, Tensor.__invert__ = neg, lambda x: x, abs, _invert
Tensor.__getitem__, Tensor.__setitem__ = getitem, _setitem
Tensor.T = property(lambda x: transpose(x))
Tensor.reshape = lambda x, *shape: reshape(x, _varargs_shape(shape))
Tensor.transpose = lambda x, *axes: transpose(x, _varargs_shape(axes) if axes else None)
Tensor.sum, Tensor.mean, Tensor.max, Tensor.min = sum, mean, max, min
Tensor.argmax, Tensor.argmin = argmax, argmin
Tensor.astype, Tensor.squeeze = astype, squeeze

# NumPy ufuncs on Tensors (`np.exp(t)`, `ndarray + t`) map to the same functions.
_UFUNCS = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.true_divide: divide, np.power: pow,
    np.matmul: matmul, np.negative: neg, np.absolute: abs, np.exp: exp, np.log: log, np.sqrt: sqrt,
    np.tanh: tanh, np.sin: sin, np.cos: cos, np.maximum: maximum, np.minimum: minimum, np.equal: equal, np.not_equal: not_equal,
    np.less: less, np.less_equal: less_equal, np.greater: greater, np.greater_equal: greater_equal,
    np.logical_and: logical_and, np.logical_or: logical_or, np.logical_not: logical_not,
    np.isnan: isnan, np.isinf: isinf, np.isfinite: isfinite,
}


def _array_ufunc(self: Tensor, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Tensor:
    fn = _UFUNCS.get(ufunc)
    if method != "__call__" or fn is None or kwargs:
        called = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        raise TraceError(f"{called} is not supported on fgrad Tensors {self.spec}; use the fg.* functions", user_site())
    return fn(*inputs)


# Other NumPy functions (`np.sum(t)`, `np.linalg.norm(t)`) need concrete arrays:
# on a traced value they raise, naming the fgrad function to use where there is one.
_NUMPY_FUNCTIONS = {
    np.sum: "fg.sum", np.mean: "fg.mean", np.max: "fg.max", np.amax: "fg.max", np.min: "fg.min", np.amin: "fg.min",
    np.argmax: "fg.argmax", np.argmin: "fg.argmin", np.reshape: "fg.reshape", np.transpose: "fg.transpose",
    np.expand_dims: "fg.expand_dims", np.squeeze: "fg.squeeze", np.broadcast_to: "fg.broadcast_to",
    np.concatenate: "fg.concatenate", np.stack: "fg.stack", np.pad: "fg.pad", np.where: "fg.where",
    np.take: "fg.take", np.dot: "fg.matmul", np.clip: "fg.clip", np.linalg.norm: "fg.sqrt(fg.sum(x * x))",
    np.var: "fg.mean((x - fg.mean(x)) ** 2)", np.std: "fg.sqrt(fg.mean((x - fg.mean(x)) ** 2))",
}
# Shape queries read the static shape, as on a NumPy array.
_SHAPE_QUERIES = (np.shape, np.ndim, np.size)


def _array_function(self: Tensor, func: Callable[..., Any], types: Any, args: Any, kwargs: Any) -> Any:
    if func in _SHAPE_QUERIES:
        return func._implementation(*args, **kwargs)
    name = f"{func.__module__.replace('numpy', 'np', 1)}.{func.__name__}"
    fg_name = _NUMPY_FUNCTIONS.get(func)
    instead = (f"Use {fg_name} instead." if fg_name else f"fgrad has no {func.__name__}: write it with fg.* "
               "functions, or compute it outside the traced function.")
    raise TraceError(NUMPY_FUNCTION.format(function=name, spec=self.spec, instead=instead), user_site())


Tensor.__array_ufunc__ = _array_ufunc
Tensor.__array_function__ = _array_function
