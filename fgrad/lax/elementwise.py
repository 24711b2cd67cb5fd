"""jax.lax's elementwise functions, with lax's strictness: the operands of an op share one dtype
(no promotion: lax.add(f32, i32) is an error), each op takes only the dtypes lax's does (lax.exp
of an integer is an error), and operands broadcast only as lax's do (one rank, sizes equal or 1,
or rank-0 operands beside any). A Python number takes the dtype of the arrays beside it where it
is of their kind (1.0 beside f16 is f16, 1 beside u32 is u32), else its own (i32, f32, bool), so
lax.add(f32, 1) is refused as in JAX. Each validates, then calls the fgrad.numpy function or
binds the primitive, so everything traces, differentiates and compiles."""

from __future__ import annotations

import builtins
import enum
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, InputError, ShapeError, TraceError
from fgrad.ir import DType
from fgrad.primitives import add_p, digamma_p, div_p, integer_pow_p, lgamma_p, mul_p, round_p, sub_p
from fgrad.pytree import tree_map
from fgrad.trace import Tensor, bind, spec_of, user_site
from fgrad.numpy.promotion import ArrayLike, _as_dtype, _brief, _dtype, _shape, asarray
from fgrad.numpy.bitwise import bitcast_convert_type
from fgrad.numpy.shapes import broadcast_to
from fgrad.transforms.custom import custom_jvp

__all__ = [
    "AccuracyMode", "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "clamp",
    "convert_element_type",
    "cos", "cosh", "digamma", "div", "eq", "erf", "erfc", "exp", "exp2", "expm1", "floor", "ge", "gt", "integer_pow",
    "is_finite", "le", "lgamma", "log", "log1p", "logistic", "lt", "max", "min", "mul", "mulhi", "ne", "neg", "nextafter", "pow",
    "reciprocal", "reduce_precision", "round", "RoundingMethod", "rsqrt", "select", "select_n", "sign", "sin", "sinh",
    "sqrt", "square", "stop_gradient", "sub", "tan", "tanh",
]

_PYTHON = (bool, int, float)
_KIND = {"b": "b", "i": "i", "u": "i", "f": "f"}  # a Python int fits i32 and u32 alike
_TAKES = {"f": "floats", "if": "floats and signed integers", "iuf": "integers and floats",
          "biuf": "bools, integers and floats", "biu": "bools and integers", "iu": "integers"}
_NUMPY_NAME = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "max": "maximum",
               "min": "minimum", "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
               "gt": "greater", "ge": "greater_equal", "clamp": "clip", "pow": "power", "select_n": "where"}


def _one_dtype(name: str, xs: tuple[ArrayLike, ...], kinds: str) -> DType:
    """The one dtype of `xs` (Python numbers weakly typed, as the module says), which must be of `kinds`."""
    typed = [_dtype(x) for x in xs if type(x) not in _PYTHON]
    dtypes = []
    for x in xs:
        if type(x) in _PYTHON:
            own = DType.of(x)
            dtypes.append(next((d for d in typed if _KIND[d.kind] == _KIND[own.kind]), own))
        else:
            dtypes.append(_dtype(x))
    if len(set(dtypes)) > 1:
        numpy_name = _NUMPY_NAME.get(name)
        tip = f", or fg.numpy.{numpy_name}, which promotes" if numpy_name else ""
        raise DTypeError(f"{name}: operands must have one dtype (jax.lax does not promote), got "
                         f"{', '.join(map(str, dtypes))}; convert with lax.convert_element_type{tip}", user_site())
    dt = dtypes[0]
    if dt.kind not in kinds:
        raise DTypeError(f"{name}: does not accept dtype {dt}; it takes {_TAKES[kinds]}, as jax.lax.{name}",
                         user_site())
    return dt


def _lax_shape(name: str, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The shape lax broadcasts `shapes` to: rank-0 ones join any; the rest share a rank and have
    equal sizes or 1s."""
    ranked = [s for s in shapes if s]
    if not ranked:
        return ()
    if len({len(s) for s in ranked}) > 1:
        raise ShapeError(f"{name}: operands must have one rank or be scalars (jax.lax broadcasts no ranks), got "
                         f"{', '.join(map(str, shapes))}", user_site())
    out = []
    for sizes in zip(*ranked):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ShapeError(f"{name}: incompatible shapes {', '.join(map(str, shapes))}", user_site())
        out.append(big.pop() if big else 1)
    return tuple(out)


def _operands(name: str, *xs: ArrayLike, kinds: str = "iuf") -> list[Tensor | np.ndarray]:
    """`xs` of one dtype of `kinds`, broadcast as lax broadcasts them."""
    dt = _one_dtype(name, xs, kinds)
    values = [asarray(x, dt) for x in xs]
    shape = _lax_shape(name, [_shape(v) for v in values])
    return [v if _shape(v) == shape else broadcast_to(v, shape) for v in values]


def _unary(name: str, kinds: str, fn: Callable[[Any], Any], doc: str) -> Callable[[ArrayLike], Tensor | np.ndarray]:
    def op(x: ArrayLike) -> Tensor | np.ndarray:
        (x,) = _operands(name, x, kinds=kinds)
        return fn(x)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def _binary(name: str, kinds: str, fn: Callable[[Any, Any], Any], doc: str
            ) -> Callable[[ArrayLike, ArrayLike], Tensor | np.ndarray]:
    def op(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
        return fn(*_operands(name, x, y, kinds=kinds))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


class AccuracyMode(enum.Enum):
    """The implementation JAX's transcendental functions choose (`accuracy=`), as
    `jax.lax.AccuracyMode`. fgrad has one implementation of each, which either mode gets (JAX does
    so where a backend has one)."""

    HIGHEST = 1
    DEFAULT = 2


def _accurate(op: Callable[[ArrayLike], Tensor | np.ndarray]) -> Callable[..., Tensor | np.ndarray]:
    """`op` taking JAX's `accuracy=`: None or an `AccuracyMode`. A `jax.lax.Tolerance` asks the compiler to
    check the implementation's error, which fgrad cannot: it is refused."""
    name = op.__name__

    def with_accuracy(x: ArrayLike, *, accuracy: AccuracyMode | None = None) -> Tensor | np.ndarray:
        if accuracy is not None and not isinstance(accuracy, AccuracyMode):
            raise InputError(f"{name}: accuracy={accuracy!r}: fgrad has one implementation of {name} and cannot check "
                             "a tolerance; give None or a fg.lax.AccuracyMode", user_site())
        return op(x)

    with_accuracy.__name__ = with_accuracy.__qualname__ = name
    with_accuracy.__doc__ = f"{op.__doc__} `accuracy`: None or an `AccuracyMode` (fgrad has one implementation)."
    return with_accuracy


# -- functions of floats ----------------------------------------------------------------------------

acos = _unary("acos", "f", fnp.arccos, "Elementwise arc cosine of a float value, as `jax.lax.acos`.")
acosh = _unary("acosh", "f", fnp.arccosh, "Elementwise inverse hyperbolic cosine of a float value.")
asin = _unary("asin", "f", fnp.arcsin, "Elementwise arc sine of a float value, as `jax.lax.asin`.")
asinh = _unary("asinh", "f", fnp.arcsinh, "Elementwise inverse hyperbolic sine of a float value.")
atan = _unary("atan", "f", fnp.arctan, "Elementwise arc tangent of a float value, as `jax.lax.atan`.")
atanh = _unary("atanh", "f", fnp.arctanh, "Elementwise inverse hyperbolic tangent of a float value.")
cbrt = _accurate(_unary("cbrt", "f", fnp.cbrt, "Elementwise real cube root of a float value, as `jax.lax.cbrt`."))
ceil = _unary("ceil", "f", fnp.ceil, "Elementwise smallest integer >= x of a float value, as `jax.lax.ceil`.")
cos = _accurate(_unary("cos", "f", fnp.cos, "Elementwise cosine of a float value, as `jax.lax.cos`."))
cosh = _unary("cosh", "f", fnp.cosh, "Elementwise hyperbolic cosine of a float value, as `jax.lax.cosh`.")
digamma = _unary("digamma", "f", lambda x: bind(digamma_p, x),
                 "Elementwise digamma function Gamma'(x) / Gamma(x) of a float value, as `jax.lax.digamma`: NaN at 0, "
                 "at the negative integers and at -inf.")
erf = _unary("erf", "f", fnp.erf, "Elementwise error function of a float value, as `jax.lax.erf`.")
erfc = _unary("erfc", "f", fnp.erfc, "Elementwise 1 - erf(x) of a float value, to full precision, as `jax.lax.erfc`.")
exp = _accurate(_unary("exp", "f", fnp.exp, "Elementwise e^x of a float value, as `jax.lax.exp`."))
exp2 = _accurate(_unary("exp2", "f", fnp.exp2, "Elementwise 2^x of a float value, as `jax.lax.exp2`."))
expm1 = _accurate(_unary("expm1", "f", fnp.expm1,
                         "Elementwise e^x - 1 of a float value, to full precision near 0."))
floor = _unary("floor", "f", fnp.floor, "Elementwise largest integer <= x of a float value, as `jax.lax.floor`.")
is_finite = _unary("is_finite", "f", fnp.isfinite, "Whether each entry of a float value is neither inf nor NaN.")
lgamma = _unary("lgamma", "f", lambda x: bind(lgamma_p, x),
                "Elementwise log|Gamma(x)| of a float value, as `jax.lax.lgamma`: +inf at 0, at the negative "
                "integers and at +-inf.")
log = _accurate(_unary("log", "f", fnp.log, "Elementwise natural logarithm of a float value, as `jax.lax.log`."))
log1p = _accurate(_unary("log1p", "f", fnp.log1p,
                         "Elementwise log(1 + x) of a float value, to full precision near 0."))
logistic = _accurate(_unary("logistic", "f", fnp.sigmoid,
                            "Elementwise 1 / (1 + e^-x) of a float value, as `jax.lax.logistic`."))
rsqrt = _accurate(_unary("rsqrt", "f", fnp.rsqrt, "Elementwise 1 / sqrt(x) of a float value, as `jax.lax.rsqrt`."))
sin = _accurate(_unary("sin", "f", fnp.sin, "Elementwise sine of a float value, as `jax.lax.sin`."))
sinh = _unary("sinh", "f", fnp.sinh, "Elementwise hyperbolic sine of a float value, as `jax.lax.sinh`.")
sqrt = _accurate(_unary("sqrt", "f", fnp.sqrt, "Elementwise square root of a float value, as `jax.lax.sqrt`."))
tan = _accurate(_unary("tan", "f", fnp.tan, "Elementwise tangent of a float value, as `jax.lax.tan`."))
tanh = _accurate(_unary("tanh", "f", fnp.tanh,
                        "Elementwise hyperbolic tangent of a float value, as `jax.lax.tanh`."))

# -- functions of numbers ---------------------------------------------------------------------------

abs = _unary("abs", "if", fnp.abs, "Elementwise |x| of a float or signed integer value (u32 is refused, as in "
                                   "jax.lax; |INT_MIN| wraps to INT_MIN).")
neg = _unary("neg", "iuf", fnp.neg, "Elementwise -x of an integer or float value (u32 wraps), as `jax.lax.neg`.")
sign = _unary("sign", "iuf", fnp.sign, "Elementwise -1, 0 or 1 by the sign of x (NaN for NaN), as `jax.lax.sign`.")
square = _unary("square", "iuf", fnp.square, "Elementwise x * x of an integer or float value, as `jax.lax.square`.")


def integer_pow(x: ArrayLike, y: int) -> Tensor | np.ndarray:
    """x ** y for a static integer y, by repeated multiplication, as `jax.lax.integer_pow`; an
    integer x takes no negative y."""
    if isinstance(y, (bool, np.bool_, Tensor)) or not isinstance(y, (int, np.integer)):
        raise TraceError(f"integer_pow: y must be a static integer, got {_brief(y)}", user_site())
    (x,) = _operands("integer_pow", x)
    if y < 0 and not _dtype(x).is_float:
        raise DTypeError(f"integer_pow: integers cannot be raised to negative powers, got {spec_of(x)} ** {int(y)}",
                         user_site())
    return bind(integer_pow_p, x, n=int(y))


def reciprocal(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise 1 / x of a float value, as `jax.lax.reciprocal` (integer_pow(x, -1))."""
    (x,) = _operands("reciprocal", x, kinds="f")
    return bind(integer_pow_p, x, n=-1)


# -- arithmetic and comparisons of two operands -----------------------------------------------------

add = _binary("add", "iuf", lambda x, y: bind(add_p, x, y), "x + y of one integer or float dtype, as `jax.lax.add`.")
sub = _binary("sub", "iuf", lambda x, y: bind(sub_p, x, y), "x - y of one integer or float dtype, as `jax.lax.sub`.")
div = _binary("div", "iuf", lambda x, y: bind(div_p, x, y),
              "x / y of one integer or float dtype, as `jax.lax.div`: integers truncate toward zero (C's, not "
              "Python's, division), and x / 0 is -1 for signed integers, the largest value for u32 (XLA's).")
max = _binary("max", "biuf", fnp.maximum, "Elementwise maximum of one dtype, as `jax.lax.max`: NaN wins.")  # noqa: A001
min = _binary("min", "biuf", fnp.minimum, "Elementwise minimum of one dtype, as `jax.lax.min`: NaN wins.")  # noqa: A001
eq = _binary("eq", "biuf", fnp.equal, "x == y, elementwise, of one dtype, as bool (`jax.lax.eq`).")
ne = _binary("ne", "biuf", fnp.not_equal, "x != y, elementwise, of one dtype, as bool (`jax.lax.ne`).")
lt = _binary("lt", "biuf", fnp.less, "x < y, elementwise, of one dtype, as bool (`jax.lax.lt`).")
le = _binary("le", "biuf", fnp.less_equal, "x <= y, elementwise, of one dtype, as bool (`jax.lax.le`).")
gt = _binary("gt", "biuf", fnp.greater, "x > y, elementwise, of one dtype, as bool (`jax.lax.gt`).")
nextafter = _binary("nextafter", "f", lambda x, y: fnp.nextafter(x, y),
                    "The float of x's dtype next to x in the direction of y, elementwise, as `jax.lax.nextafter`.")
ge = _binary("ge", "biuf", fnp.greater_equal, "x >= y, elementwise, of one dtype, as bool (`jax.lax.ge`).")


def mul(x: ArrayLike, y: ArrayLike, *, out_dtype: Any = None) -> Tensor | np.ndarray:
    """x * y of one integer or float dtype, as `jax.lax.mul`; with `out_dtype`, both operands are
    converted to it first and the product is of that dtype."""
    x, y = _operands("mul", x, y)
    if out_dtype is not None:
        dt = _as_dtype(out_dtype, "mul")
        x, y = asarray(x, dt), asarray(y, dt)
    return bind(mul_p, x, y)


def mulhi(x: ArrayLike, y: ArrayLike, /) -> Tensor | np.ndarray:
    """The upper 32 bits of the 64-bit product of two i32 or two u32 values, elementwise, as
    `jax.lax.mulhi`. WGSL has no 64-bit integers: the product is summed from 16-bit halves in u32,
    and a signed operand's high word is corrected by the other operand where it is negative."""
    x, y = _operands("mulhi", x, y, kinds="iu")
    signed = _dtype(x) is DType.i32
    a, b = (bitcast_convert_type(v, DType.u32) for v in (x, y)) if signed else (x, y)
    mask, half = np.uint32(0xFFFF), np.uint32(16)
    a_lo, a_hi, b_lo, b_hi = a & mask, a >> half, b & mask, b >> half
    hi_lo = a_hi * b_lo
    cross = ((a_lo * b_lo) >> half) + (hi_lo & mask) + a_lo * b_hi  # at most 2^32 - 1
    high = a_hi * b_hi + (hi_lo >> half) + (cross >> half)
    if not signed:
        return high
    zero = np.uint32(0)  # (x + 2^32 [x < 0]) (y + 2^32 [y < 0]) = x y + 2^32 (x [y < 0] + y [x < 0]) mod 2^64
    high = high - fnp.where(x < 0, b, zero) - fnp.where(y < 0, a, zero)
    return bitcast_convert_type(high, DType.i32)


def pow(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:  # noqa: A001
    """x ** y, as `jax.lax.pow`: x a float value; y of x's dtype, or of any integer dtype (a
    Python int is i32), broadcast as lax's operands are."""
    (base,) = _operands("pow", x, kinds="f")
    if type(y) is int or type(y) not in _PYTHON and not _dtype(y).is_float and _dtype(y) is not DType.bool:
        exponent = asarray(y)
    else:
        base, exponent = _operands("pow", base, y, kinds="f")
    shape = _lax_shape("pow", [_shape(base), _shape(exponent)])
    if type(y) is int:
        return fnp.pow(broadcast_to(base, shape), y)
    base, exponent = (v if _shape(v) == shape else broadcast_to(v, shape) for v in (base, exponent))
    return fnp.pow(base, exponent)


def clamp(min: ArrayLike, x: ArrayLike, max: ArrayLike) -> Tensor | np.ndarray:  # noqa: A002
    """x clipped into [min, max], elementwise, as `jax.lax.clamp`: one dtype, min and max scalars
    or of x's shape; NaN stays NaN; where min > max the result is max."""
    lo, x_, hi = (asarray(v, _one_dtype("clamp", (min, x, max), "biuf")) for v in (min, x, max))
    for what, bound in (("min", lo), ("max", hi)):
        if _shape(bound) and _shape(bound) != _shape(x_):
            raise ShapeError(f"clamp: {what} must be a scalar or of x's shape {_shape(x_)}, got {_shape(bound)}",
                             user_site())
    return fnp.minimum(fnp.maximum(x_, lo), hi)


# -- choosing ---------------------------------------------------------------------------------------


def select_n(which: ArrayLike, *cases: ArrayLike) -> Tensor | np.ndarray:
    """cases[which], elementwise, as `jax.lax.select_n`: the cases share one shape and dtype;
    `which` is a bool (two cases at most: False picks cases[0]) or an integer value, a scalar or
    of the cases' shape. An integer out of range picks the nearest case (JAX leaves it undefined)."""
    if not cases:
        raise ShapeError("select_n: needs at least one case", user_site())
    dt = _one_dtype("select_n", cases, "biuf")
    values = [asarray(c, dt) for c in cases]
    shape = _shape(values[0])
    if any(_shape(v) != shape for v in values):
        raise ShapeError(f"select_n: cases must have one shape, got {', '.join(str(_shape(v)) for v in values)}",
                         user_site())
    which = asarray(which)
    kind = _dtype(which)
    if kind is not DType.bool and not kind.is_int:
        raise DTypeError(f"select_n: which must be bool or an integer, got {spec_of(which)}", user_site())
    if kind is DType.bool and len(values) > 2:
        raise DTypeError(f"select_n: a bool which chooses between 2 cases, got {len(values)}", user_site())
    if _shape(which) and _shape(which) != shape:
        raise ShapeError(f"select_n: which must be a scalar or of the cases' shape {shape}, got {_shape(which)}",
                         user_site())
    which = broadcast_to(which, shape)
    if kind is DType.bool:
        return values[0] if len(values) == 1 else fnp.where(which, values[1], values[0])
    out = values[0]
    for k, case in enumerate(values[1:], 1):
        out = fnp.where(fnp.greater_equal(which, asarray(k, kind)), case, out)
    return out


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Tensor | np.ndarray:
    """on_true where pred holds, else on_false, as `jax.lax.select`: pred a bool scalar or of the
    cases' shape; the cases share one shape and dtype."""
    if _dtype(pred) is not DType.bool:
        raise DTypeError(f"select: pred must be bool, got {spec_of(asarray(pred))}", user_site())
    return select_n(pred, on_false, on_true)


# -- rounding and conversions -----------------------------------------------------------------------


class RoundingMethod(enum.IntEnum):
    """How `round` breaks ties, as `jax.lax.RoundingMethod`."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x: ArrayLike, rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO  # noqa: A001
          ) -> Tensor | np.ndarray:
    """x rounded to the nearest integer, elementwise, as `jax.lax.round`: halves away from zero
    (AWAY_FROM_ZERO, the default) or to the even neighbour (TO_NEAREST_EVEN); floats only."""
    try:
        method = RoundingMethod(rounding_method)
    except ValueError:
        raise TraceError(f"round: rounding_method must be a lax.RoundingMethod, got {_brief(rounding_method)}",
                         user_site()) from None
    (x,) = _operands("round", x, kinds="f")
    if method is RoundingMethod.TO_NEAREST_EVEN:
        return bind(round_p, x)
    whole = fnp.trunc(x)
    # NOTE: not floor(|x| + 0.5), which rounds 0.49999997 up: the sum is rounded to 1.0 first
    return fnp.where(fnp.greater_equal(fnp.abs(fnp.subtract(x, whole)), 0.5), fnp.add(whole, fnp.sign(x)), whole)


def reduce_precision(operand: ArrayLike, exponent_bits: int, mantissa_bits: int) -> Tensor | np.ndarray:
    """`operand` rounded to a float of `exponent_bits` and `mantissa_bits` (bfloat16: 8 and 7)
    and back, as `jax.lax.reduce_precision` (XLA's ReducePrecision): the mantissa rounded to the
    nearest, ties to even; values past the exponent's range become infinities, those at or below
    its least normal exponent signed zeros; NaN stays NaN (f16 and bfloat16 are rounded through
    f32). Forward mode rounds the tangent the same way, as JAX's; reverse
    mode passes the cotangent back unrounded, where JAX rounds it too."""
    (x,) = _operands("reduce_precision", operand, kinds="f")
    bits = {}
    for name, value, least in (("exponent_bits", exponent_bits, 1), ("mantissa_bits", mantissa_bits, 0)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < least:
            raise TraceError(f"reduce_precision: {name} must be an integer of at least {least}, got {_brief(value)}",
                             user_site())
        bits[name] = int(value)
    if _dtype(x) is DType.bf16:  # exactly an f32 with bfloat16's widths (8 and 7)
        exponent, mantissa = (builtins.min(bits[k], most) for k, most in (("exponent_bits", 8), ("mantissa_bits", 7)))
        return fnp.astype(_reduced(fnp.astype(x, DType.f32), exponent, mantissa), DType.bf16)
    if _dtype(x) is not DType.f16:
        return _reduced(x, bits["exponent_bits"], bits["mantissa_bits"])
    # f16 in f32, f16's own widths leaving its values as they are; a subnormal f16 (its exponent
    # not narrowed) keeps the top bits of its own mantissa: a multiple of 2^-24 * 2^(10 - mantissa_bits)
    exponent, mantissa = bits["exponent_bits"], bits["mantissa_bits"]  # (min and max are lax's here)
    wide = fnp.astype(x, DType.f32)
    out = _reduced(wide, exponent if exponent < 5 else 8, mantissa if mantissa < 10 else 23)
    mantissa = mantissa if mantissa < 10 else 10
    if exponent >= 5:
        step = np.float32(2.0 ** (-14 - mantissa))
        kept = fnp.copysign(fnp.multiply(fnp.round(fnp.divide(fnp.abs(wide), step)), step), wide)
        out = fnp.where(fnp.less(fnp.abs(wide), np.float32(2.0 ** -14)), kept, out)
    return fnp.astype(out, DType.f16)


@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
def _reduced(x: Tensor | np.ndarray, exponent_bits: int, mantissa_bits: int) -> Tensor | np.ndarray:
    """reduce_precision of an f32 `x`, on its bits (XLA's ReducePrecision)."""
    bits = bitcast_convert_type(x, DType.u32)
    if mantissa_bits < 23:  # add half an ulp of the new width less one, plus the kept last bit (ties to even)
        shift = 23 - mantissa_bits
        last = fnp.bitwise_and(fnp.right_shift(bits, np.uint32(shift)), np.uint32(1))
        bits = fnp.add(bits, fnp.add(last, np.uint32((1 << (shift - 1)) - 1)))
        bits = fnp.bitwise_and(bits, np.uint32(~((1 << shift) - 1) & 0xFFFFFFFF))
    if exponent_bits < 8:
        exponent, sign = fnp.bitwise_and(bits, np.uint32(0x7F800000)), fnp.bitwise_and(bits, np.uint32(0x80000000))
        bias = (1 << (exponent_bits - 1)) - 1
        over = fnp.greater(exponent, np.uint32((127 + bias) << 23))
        under = fnp.less_equal(exponent, np.uint32((127 - bias) << 23))
        bits = fnp.where(over, fnp.bitwise_or(sign, np.uint32(0x7F800000)), fnp.where(under, sign, bits))
    return fnp.where(fnp.isnan(x), x, bitcast_convert_type(bits, DType.f32))


@_reduced.defjvp
def _reduced_jvp(exponent_bits: int, mantissa_bits: int, primals: tuple, tangents: tuple) -> tuple:
    # JAX takes it for linear: the tangent is rounded alike. Written t + (rounded t - t), the
    # rounding's share held constant (exact: the two are within a factor of two), so reverse
    # mode transposes the identity: the cotangent comes back unrounded.
    (t,) = tangents
    return _reduced(primals[0], exponent_bits, mantissa_bits), \
        fnp.add(t, fnp.stop_gradient(fnp.subtract(_reduced(t, exponent_bits, mantissa_bits), t)))


def convert_element_type(operand: ArrayLike, new_dtype: Any) -> Tensor | np.ndarray:
    """`operand` converted to `new_dtype`, as `jax.lax.convert_element_type`: float to integer
    truncates toward zero and saturates (NaN gives 0), integers wrap, anything to bool is x != 0."""
    return fnp.astype(operand, _as_dtype(new_dtype, "convert_element_type"))


def stop_gradient(x: Any) -> Any:
    """Each leaf of the pytree `x` as it is, with a zero gradient, as `jax.lax.stop_gradient`
    (integer and bool leaves have none to stop)."""
    return tree_map(lambda leaf: fnp.stop_gradient(leaf) if _dtype(leaf).is_float else asarray(leaf), x)
