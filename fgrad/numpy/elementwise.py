"""Elementwise functions: arithmetic, functions, comparisons and logic, where, clip, astype; rounding,
signs, special functions, and integer division with NumPy's and jax.numpy's signs."""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: one-argument where is searching's nonzero, found at call time
from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import DType, Primitive
from fgrad.primitives import (
    abs_p, acosh_p, add_p, asinh_p, atan2_p, atanh_p, bitcast_convert_type_p, bitwise_and_p, bitwise_or_p, cbrt_p,
    ceil_p, clz_p, copysign_p, cos_p, cosh_p, div_p, eq_p, erf_inv_p, erf_p, erfc_p, exp2_p, exp_p, expm1_p,
    floor_p, ge_p, gelu_p, gt_p, integer_pow_p, isinf_p, isnan_p, le_p, log1p_p, log2_p, log_p, logaddexp_p,
    logical_and_p, logical_not_p, logical_or_p, lt_p, maximum_p, minimum_p, mul_p, ne_p, neg_p, pow_p, relu_p,
    rem_p, round_p, rsqrt_p, sigmoid_p, sign_p, signbit_p, silu_p, sin_p, sinh_p, sqrt_p, stop_gradient_p, sub_p,
    tan_p, tanh_p, where_p,
)
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _arith_dtype, _as_dtype, _broadcast, _copy_flag, _dtype, _elementwise, _float_dtype, _no_bool,
    _no_keywords, _placed, _shape, _unary, asarray, result_dtype,
)
from fgrad.numpy.shapes import _no_out, broadcast_to

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "abs", "absolute", "acos", "acosh", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "asin", "asinh", "astype", "atan", "atan2", "atanh", "cbrt", "ceil", "clip", "copysign", "cos",
    "cosh", "deg2rad", "degrees", "divide", "divmod", "equal", "erf", "erfc", "erfinv", "exp", "exp2", "expm1",
    "floor", "floor_divide", "fmod", "gelu", "greater", "greater_equal", "hypot", "isclose", "isfinite", "isinf",
    "isnan", "isneginf", "isposinf", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp",
    "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod",
    "multiply", "nan_to_num", "neg", "negative", "not_equal", "positive", "pow", "power", "rad2deg", "radians",
    "reciprocal", "relu", "remainder", "round", "rsqrt", "sigmoid", "sign", "signbit", "silu", "sin", "sinc",
    "sinh", "sqrt", "square", "stop_gradient", "subtract", "tan", "tanh", "true_divide", "trunc", "where",
    "conj", "conjugate", "float_power", "fmax", "fmin", "heaviside", "imag", "iscomplex", "isreal", "isrealobj",
    "ldexp", "real", "rint", "around", "polyval", "fabs", "modf", "frexp", "nextafter", "spacing", "i0", "kaiser",
    "poly", "polyadd", "polysub", "polymul", "polyder", "polyint", "polydiv", "polyfit", "angle", "iscomplexobj",
]


def _float_unary(op: Primitive) -> Callable[..., Tensor | np.ndarray]:
    return _unary(op, lambda x: _float_dtype(_dtype(x)),
                  "Elementwise {} of a float value; integer and bool inputs are converted to f32.")


def _numeric_unary(op: Primitive) -> Callable[..., Tensor | np.ndarray]:
    return _unary(op, _arith_dtype, "Elementwise {} of a float or integer value (bools count as i32).")


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
    """Elementwise -x of a float or integer value (u32 wraps; bools are refused, as in jax.numpy)."""
    _no_bool("neg", x)
    return _neg(x, **keywords)


def abs(x: ArrayLike, **keywords: Any) -> Tensor | np.ndarray:
    """Elementwise |x| of a float or integer value; a bool stays as it is, as in jax.numpy."""
    _no_keywords("abs", keywords)
    return asarray(x) if result_dtype(x) is DType.bool else _abs(x)


def gelu(x: ArrayLike, approximate: bool = True, **keywords: Any) -> Tensor | np.ndarray:
    """GELU, x P(X <= x) for a standard normal X, as `jax.nn.gelu`: with `approximate`
    (the default) the tanh form, else the exact x/2 (1 + erf(x / sqrt(2)))."""
    _no_keywords("gelu", keywords, takes="x and approximate")
    if not isinstance(approximate, (bool, np.bool_)):
        raise TraceError(f"gelu: approximate must be True or False, got {approximate!r}", user_site())
    x = asarray(x, _float_dtype(_dtype(x)))
    # NOTE: erfc(-x / sqrt(2)), not 1 + erf(x / sqrt(2)), which cancels to 0 in the negative tail (as jax.nn)
    return bind(gelu_p, x) if approximate else multiply(multiply(x, 0.5), erfc(multiply(x, -math.sqrt(0.5))))


def isnan(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise test for NaN, as bool (False for integers and bools)."""
    return _float_test_public(isnan_p, x)


def isinf(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise test for +inf or -inf, as bool (False for integers and bools)."""
    return _float_test_public(isinf_p, x)


def isfinite(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise test for a value that is neither inf nor NaN, as bool."""
    return logical_not(logical_or(isnan(x), isinf(x)))


def _float_test_public(op: Primitive, x: ArrayLike) -> Tensor | np.ndarray:
    x = asarray(x)
    if not _dtype(x).is_float:  # integers and bools are never NaN or inf
        return broadcast_to(asarray(False), _shape(x))
    return bind(op, x)


def logical_not(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise not of x != 0 (a bool value as it is), as bool."""
    return bind(logical_not_p, asarray(x, DType.bool))


def add(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x + y with NumPy broadcasting and jax.numpy's promotion (`result_dtype`); two bools give
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
    return _elementwise(div_p, x, y, dtype=_float_dtype(result_dtype(x, y)))


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
    """x ** y. A static integral exponent becomes `integer_pow` (repeated multiplication); an
    integer base and traced integer exponent give an integer (see `_integer_power`); otherwise
    both operands are floats (integers become f32) and the result is C's (NumPy's, JAX's) pow
    for every x and y: a negative base takes integral exponents, NaN for others."""
    n = _static_int(y)
    if n is not None:
        dt = _float_dtype(result_dtype(x, y)) if isinstance(y, (float, np.floating)) else _arith_dtype(x)
        return bind(integer_pow_p, asarray(x, dt), n=n)
    dt = _arith_dtype(x, y)
    if not dt.is_float:
        return _integer_power(*_broadcast("pow", asarray(x, dt), asarray(y, dt)))
    return _elementwise(pow_p, x, y, dtype=_float_dtype(result_dtype(x, y)))


def _integer_power(x: Tensor | np.ndarray, y: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """x ** y on integers as jax.numpy's: binary exponentiation over the low 6 bits of y's two's
    complement (any larger power of a base past 1 overflows), wrapping; 0 ** 0 is 1."""
    dt = _dtype(x)
    bits = astype(y, DType.u32)  # the bits a logical shift reads
    power = where(logical_and(equal(x, 0), not_equal(y, 0)), asarray(0, dt), asarray(1, dt))
    for _ in range(6):
        power = where(not_equal(rem(bits, 2), 0), multiply(power, x), power)
        x, bits = multiply(x, x), floor_divide(bits, 2)
    return power


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
    """x and y, elementwise, of x != 0 and y != 0, as bool."""
    return _elementwise(logical_and_p, asarray(x, DType.bool), asarray(y, DType.bool))


def logical_or(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """x or y, elementwise, of x != 0 and y != 0, as bool."""
    return _elementwise(logical_or_p, asarray(x, DType.bool), asarray(y, DType.bool))


WHERE_ONE_ARGUMENT = (
    "where: where(condition) with one argument is nonzero(condition), whose length is the number of true "
    "elements of a traced {spec}: a value, where fgrad's shapes are static. Give size= (the first `size` "
    "indices, padded with fill_value), as jax.numpy requires under jit: fg.nonzero(condition, size=8); or select "
    "with where(condition, x, y), count with sum(condition), find the first true element with argmax(condition)"
)


def where(condition: ArrayLike, x: ArrayLike | None = None, y: ArrayLike | None = None, /, *,
          size: int | None = None, fill_value: ArrayLike | None = None) -> Any:
    """x where condition holds, else y; all three broadcast. A non-bool condition means condition != 0.
    With condition only, `nonzero(condition, size=size, fill_value=fill_value)`, as `jnp.where`
    (a traced condition needs size=)."""
    if x is None and y is None:
        if size is None and isinstance(condition, Tensor):
            raise TraceError(WHERE_ONE_ARGUMENT.format(spec=condition.spec), user_site())
        return fnp.nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise TraceError(f"where: x and y must both be given, got {'y' if x is None else 'x'} only", user_site())
    if size is not None or fill_value is not None:
        raise TraceError("where: size and fill_value belong to the one-argument form (nonzero); "
                         "where(condition, x, y) takes neither", user_site())
    dt = result_dtype(x, y)
    return bind(where_p, *_broadcast("where", asarray(condition, DType.bool), asarray(x, dt), asarray(y, dt),
                                     ranks=False))  # as JAX's where


def clip(arr: ArrayLike, /, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor | np.ndarray:
    """minimum(maximum(arr, min), max), as `jnp.clip`: a None bound is no bound (both None: arr
    as it is); NaN stays NaN; where min > max the result is max."""
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)


def astype(x: ArrayLike, dtype: str | DType | None, /, *, copy: bool = False, device: Any = None
           ) -> Tensor | np.ndarray:
    """Convert to `dtype` (None: the default float, f32, as jnp.astype): float -> integer
    truncates toward zero and saturates (NaN gives 0), integer -> integer wraps, anything ->
    bool is x != 0 (XLA's convert, so jax.numpy's). `copy` is accepted (fgrad values are
    immutable); `device` places the result, as `asarray`'s."""
    out = asarray(x, DType.f32 if dtype is None else _as_dtype(dtype, "astype"))
    if copy is not False or device is not None:
        _copy_flag("astype", copy)
        return _placed("astype", out, device)
    return out


def stop_gradient(x: ArrayLike) -> Tensor | np.ndarray:
    """Identity whose gradient is zero."""
    return bind(stop_gradient_p, asarray(x))


# -- NumPy's other names ---------------------------------------------------------------------------

negative, power, true_divide, absolute = neg, pow, divide, abs


def positive(x: ArrayLike, /) -> Tensor | np.ndarray:
    """+x: x itself (bools stay bool, as in jax.numpy)."""
    return asarray(x)


def square(x: ArrayLike, /) -> Tensor | np.ndarray:
    """x * x, exactly (an integer power); bools count as i32, as in jax.numpy."""
    return bind(integer_pow_p, asarray(x, _arith_dtype(x)), n=2)


def reciprocal(x: ArrayLike, /) -> Tensor | np.ndarray:
    """1 / x; integers and bools give f32, as in jax.numpy."""
    return bind(integer_pow_p, _as_float(x), n=-1)


# -- rounding and signs ----------------------------------------------------------------------------


def _as_float(x: ArrayLike) -> Tensor | np.ndarray:
    """x as the float dtype a float function of it computes in (integers and bools: f32)."""
    return asarray(x, _float_dtype(_dtype(x)))


def _float_pair(name: str, x1: ArrayLike, x2: ArrayLike) -> list[Tensor | np.ndarray]:
    """x1 and x2 promoted to one float dtype (integers and bools: f32) and broadcast."""
    dt = _float_dtype(result_dtype(x1, x2))
    return _broadcast(name, asarray(x1, dt), asarray(x2, dt))


def _rounding(op: Primitive, doc: str) -> Callable[..., Tensor | np.ndarray]:
    def fn(x: ArrayLike, /) -> Tensor | np.ndarray:
        x = asarray(x)
        return bind(op, x) if _dtype(x).is_float else x  # integers and bools are whole already

    fn.__name__ = fn.__qualname__ = op.name
    fn.__code__ = fn.__code__.replace(co_name=op.name)  # user_call() says `floor`, not `fn`
    fn.__doc__ = doc
    return fn


floor = _rounding(floor_p, "The largest integer <= x, elementwise; integers and bools are returned as they are.")
ceil = _rounding(ceil_p, "The smallest integer >= x, elementwise; integers and bools are returned as they are.")


def round(a: ArrayLike, decimals: int = 0, out: None = None) -> Tensor | np.ndarray:  # noqa: A001
    """x rounded to `decimals` decimal places, halves to even, as `jnp.round`: for decimals != 0,
    round(x * 10^decimals) / 10^decimals, computed in f32 (so not always the nearest decimal);
    integers are returned as they are (negative decimals refused, as in jax.numpy)."""
    if out is not None:
        raise TraceError("round: out= is not supported (fgrad values are immutable, as JAX's)", user_site())
    if isinstance(decimals, (bool, np.bool_)) or not isinstance(decimals, (int, np.integer)):
        raise TraceError(f"round: decimals must be a static integer, got {decimals!r}", user_site())
    a, decimals = asarray(a), int(decimals)
    dtype = _dtype(a)
    if dtype is DType.bool:
        raise DTypeError("round: bool operands are not supported, as in jax.numpy; astype('i32') first", user_site())
    if not dtype.is_float:
        if decimals < 0:
            raise DTypeError(f"round: decimals={decimals} of an integer operand is not supported, as in jax.numpy",
                             user_site())
        return a
    if decimals == 0:
        return bind(round_p, a)
    if decimals > math.log10(dtype.finfo.max):  # past the dtype's precision: nothing to round
        return a
    factor = 10.0**decimals
    wide = asarray(a, DType.f32)  # f16 scaled in f32, as in jax.numpy
    return astype(divide(bind(round_p, multiply(wide, factor)), factor), dtype)


def trunc(x: ArrayLike) -> Tensor | np.ndarray:
    """x rounded toward zero, elementwise (ceil below 0, floor above); integers and bools as they are."""
    x = asarray(x)
    if not _dtype(x).is_float:
        return x
    return where(less(x, 0), ceil(x), floor(x))


def sign(x: ArrayLike, /) -> Tensor | np.ndarray:
    """-1, 0 or 1 by the sign of x; NaN for NaN and -0.0 for -0.0, as `jnp.sign`; 0 or 1 for u32.
    Bools are refused, as in jax.numpy."""
    if result_dtype(x) is DType.bool:
        raise DTypeError("sign: bool operands are not supported, as in jax.numpy; astype('i32') first", user_site())
    return bind(sign_p, asarray(x))


def signbit(x: ArrayLike, /) -> Tensor | np.ndarray:
    """Whether the sign bit is set, as bool: True for -0.0 and negative NaNs; x < 0 for integers."""
    x = asarray(x)
    dtype = _dtype(x)
    if dtype.is_float:
        return bind(signbit_p, x)
    if dtype.kind == "i":
        return less(x, 0)
    return broadcast_to(asarray(False), _shape(x))  # unsigned and bool: never negative


def copysign(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """|x1| with the sign bit of x2 (so x2 = -0.0 gives a negative result); integers give f32."""
    return bind(copysign_p, *_float_pair("copysign", x1, x2))


def isposinf(x: ArrayLike, /, out: None = None) -> Tensor | np.ndarray:
    """Whether x is +inf, as bool (False for integers and bools)."""
    _no_out("isposinf", out)
    return logical_and(isinf(x), logical_not(signbit(x))) if _dtype(x).is_float else isinf(x)


def isneginf(x: ArrayLike, /, out: None = None) -> Tensor | np.ndarray:
    """Whether x is -inf, as bool (False for integers and bools)."""
    _no_out("isneginf", out)
    return logical_and(isinf(x), signbit(x)) if _dtype(x).is_float else isinf(x)


def nan_to_num(x: ArrayLike, copy: bool = True, nan: ArrayLike = 0.0, posinf: ArrayLike | None = None,
               neginf: ArrayLike | None = None) -> Tensor | np.ndarray:
    """x with NaN replaced by `nan`, +inf by `posinf` (default: the dtype's largest value) and -inf
    by `neginf` (its most negative), as `jnp.nan_to_num`; integers and bools as they are. `copy`
    is accepted and ignored (fgrad values are immutable)."""
    del copy
    x = asarray(x)
    dtype = _dtype(x)
    if not dtype.is_float:
        return x
    info = dtype.finfo
    x = where(isnan(x), asarray(nan, dtype), x)
    x = where(isposinf(x), asarray(float(info.max) if posinf is None else posinf, dtype), x)
    return where(isneginf(x), asarray(float(info.min) if neginf is None else neginf, dtype), x)


def isclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
            equal_nan: bool = False) -> Tensor | np.ndarray:
    """|a - b| <= atol + rtol |b| elementwise, as bool, as `jnp.isclose`: infinities are close only
    to themselves, NaN to nothing (to NaN with `equal_nan`); integers compare as f32."""
    a, b = _float_pair("isclose", a, b)
    dtype = _dtype(a)
    within = less_equal(abs(subtract(a, b)), add(asarray(atol, dtype), multiply(asarray(rtol, dtype), abs(b))))
    out = logical_or(equal(a, b), logical_and(isfinite(b), within))
    return logical_or(out, logical_and(isnan(a), isnan(b))) if equal_nan else out


def logical_xor(x: ArrayLike, y: ArrayLike, /) -> Tensor | np.ndarray:
    """x xor y, elementwise, of x != 0 and y != 0, as bool."""
    return not_equal(asarray(x, DType.bool), asarray(y, DType.bool))


# -- exponentials and logarithms -------------------------------------------------------------------


def log1p(x: ArrayLike, /) -> Tensor | np.ndarray:
    """log(1 + x), to full precision where x is small; integers give f32."""
    return bind(log1p_p, _as_float(x))


def expm1(x: ArrayLike, /) -> Tensor | np.ndarray:
    """e^x - 1, to full precision where x is small; integers give f32."""
    return bind(expm1_p, _as_float(x))


def exp2(x: ArrayLike, /) -> Tensor | np.ndarray:
    """2^x, elementwise; integers give f32."""
    return bind(exp2_p, _as_float(x))


def log2(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The base-2 logarithm, exact at powers of two (as NumPy's; jax.numpy's log(x) / log(2) is
    not, at 2^13); integers give f32."""
    return bind(log2_p, _as_float(x))


def log10(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The base-10 logarithm, log(x) / log(10) (jax.numpy's formula); integers give f32."""
    return multiply(log(x), 1 / math.log(10))


def logaddexp(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """log(e^x1 + e^x2) without overflow or loss of the smaller term; integers give f32."""
    return bind(logaddexp_p, *_float_pair("logaddexp", x1, x2))


def logaddexp2(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """log2(2^x1 + 2^x2): logaddexp of x1 log(2) and x2 log(2), over log(2)."""
    x1, x2 = _float_pair("logaddexp2", x1, x2)
    return divide(logaddexp(multiply(x1, math.log(2)), multiply(x2, math.log(2))), math.log(2))


# -- trigonometric and hyperbolic ------------------------------------------------------------------


def tan(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The tangent (to full relative precision near its poles); integers give f32."""
    return bind(tan_p, _as_float(x))


def arctan2(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """The angle of the point (x2, x1) in (-pi, pi], as C's atan2 (signed zeros and infinities
    included); integers give f32."""
    return bind(atan2_p, *_float_pair("arctan2", x1, x2))


def arctan(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The inverse tangent, in (-pi/2, pi/2): arctan2(x, 1)."""
    return arctan2(x, 1.0)


def _cosine_of_arcsine(x: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """sqrt(1 - x^2) from the factors 1 - x and 1 + x, which lose nothing near |x| = 1."""
    return sqrt(multiply(subtract(1.0, x), add(1.0, x)))


def arcsin(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The inverse sine, in [-pi/2, pi/2]: arctan2(x, sqrt(1 - x^2)); NaN outside [-1, 1]."""
    x = _as_float(x)
    return arctan2(x, _cosine_of_arcsine(x))


def arccos(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The inverse cosine, in [0, pi]: arctan2(sqrt(1 - x^2), x); NaN outside [-1, 1]."""
    x = _as_float(x)
    return arctan2(_cosine_of_arcsine(x), x)


def sinh(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The hyperbolic sine; integers give f32."""
    return bind(sinh_p, _as_float(x))


def cosh(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The hyperbolic cosine; integers give f32."""
    return bind(cosh_p, _as_float(x))


def arcsinh(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The inverse hyperbolic sine; integers give f32."""
    return bind(asinh_p, _as_float(x))


def arccosh(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The inverse hyperbolic cosine, NaN below 1; integers give f32."""
    return bind(acosh_p, _as_float(x))


def arctanh(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The inverse hyperbolic tangent: +-inf at +-1, NaN beyond; integers give f32."""
    return bind(atanh_p, _as_float(x))


asin, acos, atan, atan2, asinh, acosh, atanh = arcsin, arccos, arctan, arctan2, arcsinh, arccosh, arctanh


def deg2rad(x: ArrayLike, /) -> Tensor | np.ndarray:
    """Degrees to radians, x pi / 180; integers give f32."""
    return multiply(_as_float(x), math.pi / 180)


def rad2deg(x: ArrayLike, /) -> Tensor | np.ndarray:
    """Radians to degrees, x 180 / pi; integers give f32."""
    return multiply(_as_float(x), 180 / math.pi)


radians, degrees = deg2rad, rad2deg


def hypot(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """sqrt(x1^2 + x2^2) without overflow or underflow (jax.numpy's formula: the larger magnitude
    times sqrt(1 + (smaller / larger)^2)); inf wherever either is infinite, NaN or not."""
    x1, x2 = _float_pair("hypot", x1, x2)
    x1, x2 = abs(x1), abs(x2)
    infinite = logical_or(isinf(x1), isinf(x2))
    hi, lo = maximum(x1, x2), minimum(x1, x2)
    zero = equal(hi, 0.0)
    out = where(zero, hi, multiply(hi, sqrt(add(1.0, square(divide(lo, where(zero, 1.0, hi)))))))
    return where(infinite, math.inf, out)


def cbrt(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The real cube root (negative for negative x); integers give f32."""
    return bind(cbrt_p, _as_float(x))


def sinc(x: ArrayLike, /) -> Tensor | np.ndarray:
    """sin(pi x) / (pi x), and 1 at 0, as `jnp.sinc`. Near 0 (|pi x| < 1/4) the Taylor
    polynomial 1 - z^2/6 + z^4/120, so that its derivatives at 0 are right too."""
    z = multiply(_as_float(x), math.pi)
    near = less(abs(z), 0.25)
    zz = multiply(z, z)
    safe = where(near, 1.0, z)
    return where(near, subtract(1.0, multiply(zz, subtract(1 / 6, multiply(zz, 1 / 120)))), divide(sin(safe), safe))


# -- special functions -----------------------------------------------------------------------------


def erfc(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The complementary error function 1 - erf(x), to full precision where it is small;
    integers give f32."""
    return bind(erfc_p, _as_float(x))


def erfinv(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The inverse error function on (-1, 1), +-inf at +-1, NaN beyond (`jax.scipy.special.erfinv`,
    `jax.lax.erf_inv`); integers give f32."""
    return bind(erf_inv_p, _as_float(x))


# -- integer division and remainders ---------------------------------------------------------------


def _numeric_pair(name: str, x1: ArrayLike, x2: ArrayLike) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray, DType]:
    """x1 and x2 promoted to one dtype (bools count as i32) and broadcast, with that dtype."""
    dt = _arith_dtype(x1, x2)
    a, b = _broadcast(name, asarray(x1, dt), asarray(x2, dt))
    return a, b, dt


def rem(x: ArrayLike, y: ArrayLike) -> Tensor | np.ndarray:
    """The remainder of x / y truncated toward zero, with x's sign (`jax.lax.rem`): C's fmod on
    floats (NaN where y = 0), on integers x where y = 0."""
    a, b, _ = _numeric_pair("rem", x, y)
    return bind(rem_p, a, b)


def _float_divmod(x1: Tensor | np.ndarray, x2: Tensor | np.ndarray) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """floor(x1 / x2) and x1 - floor(x1 / x2) x2 for floats, as jax.numpy (CPython's float_divmod):
    from the exact fmod, the quotient of x1 - fmod (a multiple of x2), one down where fmod's sign
    is not x2's."""
    mod = bind(rem_p, x1, x2)
    div = divide(where(equal(x2, 0.0), x1, subtract(x1, mod)), x2)
    fix = logical_and(not_equal(mod, 0.0), not_equal(sign(x2), sign(mod)))
    return bind(round_p, where(fix, subtract(div, 1.0), div)), where(fix, add(mod, x2), mod)


def floor_divide(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """x1 // x2: the quotient rounded toward -inf, as Python's and jax.numpy's (bools count as
    i32). Integers: x // 0 is -1 where x is 0 and -2 elsewhere (XLA's quotient -1, moved down
    as x's remainder is not 0), the largest u32 for u32; INT_MIN // -1 wraps to INT_MIN. Floats:
    x // 0 is +-inf (NaN for 0 // 0), inf // y is NaN."""
    a, b, dt = _numeric_pair("floor_divide", x1, x2)
    if dt.is_float:
        return _float_divmod(a, b)[0]
    quotient = bind(div_p, a, b)
    if dt.kind == "u":
        return quotient
    down = logical_and(not_equal(sign(a), sign(b)), not_equal(bind(rem_p, a, b), 0))
    return where(down, subtract(quotient, 1), quotient)


def remainder(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """x1 % x2, with the sign of x2, as Python's and jax.numpy's (bools count as i32): integers
    give 0 where x2 = 0, floats NaN."""
    a, b, dt = _numeric_pair("remainder", x1, x2)
    if not dt.is_float:
        b = where(equal(b, 0), asarray(1, dt), b)
    r = bind(rem_p, a, b)
    fix = logical_and(not_equal(less(r, 0), less(b, 0)), not_equal(r, 0))
    return where(fix, add(r, b), r)


mod = remainder


def fmod(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """The remainder with the sign of x1 (C's fmod), as `jnp.fmod`: integers give 0 where x2 = 0,
    floats NaN."""
    a, b, dt = _numeric_pair("fmod", x1, x2)
    if result_dtype(x1, x2).is_int:  # NOTE: as jax.numpy, not for two bools: True fmod False is 1
        b = where(equal(b, 0), asarray(1, dt), b)
    return bind(rem_p, a, b)


def divmod(x1: ArrayLike, x2: ArrayLike, /) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:  # noqa: A001
    """(floor_divide(x1, x2), remainder(x1, x2)), computed together for floats as jax.numpy."""
    a, b, dt = _numeric_pair("divmod", x1, x2)
    return _float_divmod(a, b) if dt.is_float else (floor_divide(a, b), remainder(a, b))


# -- NaN-ignoring extremes, steps, and the complex-number names of real values ------------------------


def fmax(x1: ArrayLike, x2: ArrayLike) -> Tensor | np.ndarray:
    """The larger of x1 and x2, elementwise, a NaN giving way to the other value (NaN only where
    both are), as `jnp.fmax`: where(x1 > x2 or isnan(x2), x1, x2), so a tie takes x2."""
    a, b = _broadcast("fmax", *(asarray(x, result_dtype(x1, x2)) for x in (x1, x2)))
    return where(logical_or(greater(a, b), isnan(b)), a, b)


def fmin(x1: ArrayLike, x2: ArrayLike) -> Tensor | np.ndarray:
    """The smaller of x1 and x2, elementwise, a NaN giving way to the other value, as `jnp.fmin`."""
    a, b = _broadcast("fmin", *(asarray(x, result_dtype(x1, x2)) for x in (x1, x2)))
    return where(logical_or(less(a, b), isnan(b)), a, b)


def rint(x: ArrayLike, /) -> Tensor | np.ndarray:
    """x rounded to the nearest integer, halves to even, as `jnp.rint`; integers and bools give f32."""
    return bind(round_p, _as_float(x))


def float_power(x: ArrayLike, y: ArrayLike, /) -> Tensor | np.ndarray:
    """x ** y in the float dtype of x and y (integers give f32), as `jnp.float_power` (x64 off)."""
    a, b = _float_pair("float_power", x, y)
    return pow(a, b)


def heaviside(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """The step function: 0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0 (NaN where x1 is NaN),
    in the float dtype of x1 and x2, as `jnp.heaviside`."""
    a, b = _float_pair("heaviside", x1, x2)
    zero = asarray(0, _dtype(a))
    return where(less(a, zero), zero, where(greater(a, zero), asarray(1, _dtype(a)), where(isnan(a), a, b)))


def ldexp(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """x1 * 2 ** x2 for integer x2, in x1's float dtype (integers give f32), as `jnp.ldexp`: the
    power split in two halves, so that 2 ** x2 overflowing or underflowing alone does not."""
    if _dtype(x2).is_float:
        raise DTypeError(f"ldexp: the exponent x2 must be integers, got {_dtype(x2)}", user_site())
    a = _as_float(x1)
    e = astype(x2, DType.i32)
    half = floor_divide(e, 2)
    scaled = multiply(multiply(a, exp2(astype(half, _dtype(a)))), exp2(astype(subtract(e, half), _dtype(a))))
    return where(logical_or(isinf(a), equal(a, 0)), a, scaled)


def conj(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The complex conjugate, as `jnp.conj`: fgrad's values are real, so x itself."""
    return asarray(x)


conjugate = conj


def real(val: ArrayLike, /) -> Tensor | np.ndarray:
    """The real part, as `jnp.real`: fgrad's values are real, so val itself."""
    return asarray(val)


def imag(val: ArrayLike, /) -> Tensor | np.ndarray:
    """The imaginary part, as `jnp.imag`: fgrad's values are real, so zeros of val's shape and dtype."""
    val = asarray(val)
    return broadcast_to(asarray(0, _dtype(val)), _shape(val))


def isreal(x: ArrayLike) -> Tensor | np.ndarray:
    """Whether each entry has no imaginary part, as `jnp.isreal`: True throughout (fgrad's values are real)."""
    x = asarray(x)
    return broadcast_to(asarray(True), _shape(x))


def iscomplex(x: ArrayLike) -> Tensor | np.ndarray:
    """Whether each entry has an imaginary part, as `jnp.iscomplex`: False throughout."""
    x = asarray(x)
    return broadcast_to(asarray(False), _shape(x))


def isrealobj(x: Any) -> bool:
    """Whether x is of a real (not complex) dtype, as `jnp.isrealobj`: fgrad has no complex dtype."""
    _dtype(x)
    return True


def iscomplexobj(x: Any) -> bool:
    """Whether x is of a complex dtype, as `jnp.iscomplexobj`: fgrad has none, so False."""
    _dtype(x)
    return False


def angle(z: ArrayLike, deg: bool = False) -> Tensor | np.ndarray:
    """The argument of each entry as a complex number, as `jnp.angle` of real values: atan2(0, z),
    0 for z >= +0 and pi for z <= -0 (NaN for NaN), in degrees with `deg`; integers give f32."""
    x = _as_float(z)
    if not _shape(x):  # a 0-d float is computed in f32, as jax.numpy's
        x = astype(x, DType.f32)
    out = arctan2(broadcast_to(asarray(0.0, _dtype(x)), _shape(x)), x)
    return rad2deg(out) if deg else out


around = round


def polyval(p: ArrayLike, x: ArrayLike, *, unroll: int = 16) -> Tensor | np.ndarray:
    """The polynomial with coefficients `p` (highest power first, along p's first axis) at x,
    by Horner's rule, as `jnp.polyval`; `unroll` is accepted (the loop is always unrolled)."""
    del unroll
    dt = result_dtype(p, x)
    p, x = asarray(p, dt), asarray(x, dt)
    if not _shape(p):
        raise DTypeError(f"polyval: p must hold coefficients along its first axis, got a 0-d {_dtype(p)}",
                         user_site())
    y = multiply(x, asarray(0, dt))
    for k in range(_shape(p)[0]):
        y = add(multiply(y, x), p[k])
    return y


# -- parts of floats: magnitudes, fractions, exponents, neighbours -----------------------------------


def fabs(x: ArrayLike, /) -> Tensor | np.ndarray:
    """|x| as a float, as `jnp.fabs`: integers and bools give f32."""
    return abs(_as_float(x))


def modf(x: ArrayLike, /, out: None = None) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """(x - whole, whole), whole being x rounded toward zero, as `jnp.modf`: an infinity's
    fractional part is NaN (inf - inf, as jax.numpy's; NumPy's is 0); integers give f32."""
    if out is not None:
        raise TraceError("modf: out= is not supported (fgrad values are immutable, as JAX's)", user_site())
    x = _as_float(x)
    whole = where(greater_equal(x, 0), floor(x), ceil(x))
    return subtract(x, whole), whole


def _bits(x: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """The bits of an f32 value as an i32."""
    return bind(bitcast_convert_type_p, x, new_dtype=DType.i32)


def frexp(x: ArrayLike, /) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """(mantissa, exponent) with x = mantissa 2^exponent, |mantissa| in [1/2, 1), as `jnp.frexp`:
    the mantissa in x's float dtype (integers give f32), the exponent i32; zeros, infinities and
    NaN give (x, 0). The exponent is read off the bits (a subnormal's by counting its leading zero
    bits), so subnormals split exactly, as NumPy's and JAX's formula (XLA on CPU flushes them to
    zero first: (+-0.5, -149)). The mantissa's derivative is 2^-exponent, as JAX's."""
    x = _as_float(x)
    wide = astype(x, DType.f32)  # an f16 is exact in f32, and its parts are f16 values
    bits = _elementwise(bitwise_and_p, _bits(wide), 0x7FFFFFFF)
    biased = floor_divide(bits, 1 << 23)
    subnormal = subtract(-117, bind(clz_p, bits))  # 2^(31 - clz) <= bits < 2^(32 - clz), times 2^-149
    special = logical_or(logical_not(isfinite(wide)), equal(bits, 0))
    exponent = where(special, 0, where(equal(biased, 0), subnormal, subtract(biased, 126)))
    mantissa = where(special, wide, ldexp(wide, neg(exponent)))
    return astype(mantissa, _dtype(x)), exponent


# f16 in the bits of its f32 value: an f16 normal's 15 magnitude bits are those of the f32 shifted
# right 13, less the exponents' bias difference (127 - 15) << 10; its subnormals are k 2^-24.
_F16_BIAS_SHIFT, _F16_INF = 112 << 10, 0x7C00


def _magnitude_bits(x: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """|x| as the integer its magnitude bits spell in x's own float format (f32 or f16, as an i32),
    so that adding 1 steps to the next float away from zero. Not for NaN."""
    bits = _elementwise(bitwise_and_p, _bits(astype(x, DType.f32)), 0x7FFFFFFF)
    if _dtype(x) is DType.f32:
        return bits
    normal = subtract(floor_divide(bits, 1 << 13), _F16_BIAS_SHIFT)
    tiny = astype(multiply(abs(astype(x, DType.f32)), 2.0**24), DType.i32)
    return minimum(where(greater_equal(bits, 113 << 23), normal, tiny), _F16_INF)  # inf's f32 bits go past


def _from_magnitude_bits(negative: Tensor | np.ndarray, magnitude: Tensor | np.ndarray,
                         dtype: DType) -> Tensor | np.ndarray:
    """The float of `dtype` with these magnitude bits (as `_magnitude_bits` gives), negative where asked."""
    if dtype is DType.f32:
        bits = where(negative, _elementwise(bitwise_or_p, magnitude, -(1 << 31)), magnitude)
        return bind(bitcast_convert_type_p, bits, new_dtype=DType.f32)
    shifted = multiply(add(magnitude, _F16_BIAS_SHIFT), 1 << 13)
    wide = where(less(magnitude, 1 << 10), multiply(astype(magnitude, DType.f32), 2.0**-24),
                 bind(bitcast_convert_type_p, shifted, new_dtype=DType.f32))
    return astype(where(negative, neg(wide), wide), dtype)  # 2^16 (past inf's bits) rounds to inf


def nextafter(x: ArrayLike, y: ArrayLike, /) -> Tensor | np.ndarray:
    """The float next to x in the direction of y, as `jnp.nextafter` (C's): y where x == y (so
    nextafter(0.0, -0.0) is -0.0), NaN where either is NaN, the least subnormal (signed as the
    step) from a zero. Computed on the bits, so subnormals step exactly; integers give f32."""
    x, y = _float_pair("nextafter", x, y)
    dtype = _dtype(x)
    nx, ny = signbit(x), signbit(y)
    mx, my = _magnitude_bits(x), _magnitude_bits(y)
    kx, ky = where(nx, neg(mx), mx), where(ny, neg(my), my)  # the floats' order, as integers
    up, zero = less(kx, ky), equal(mx, 0)
    away = not_equal(up, nx)  # toward +inf from a positive x, toward -inf from a negative one
    magnitude = where(zero, 1, where(away, add(mx, 1), subtract(mx, 1)))
    out = where(equal(kx, ky), y, _from_magnitude_bits(where(zero, logical_not(up), nx), magnitude, dtype))
    return where(logical_or(isnan(x), isnan(y)), add(x, y), out)


def spacing(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The distance from x to the next float away from zero, signed as x, as `jnp.spacing`: so
    -0.0 gives minus the least subnormal (NumPy's gives plus), infinities NaN; for f16 the step
    toward +inf (jax.numpy's, NumPy's rule for f16). Integers give f32."""
    x = _as_float(x)
    dtype = _dtype(x)
    if dtype is DType.f16:
        return subtract(nextafter(x, math.inf), x)
    step = subtract(nextafter(x, copysign(math.inf, x)), x)
    least = float(dtype.finfo.smallest_subnormal)
    step = where(equal(step, 0), copysign(least, x), step)  # a device flushing subnormals gives 0
    return where(isfinite(x), step, math.nan)  # not inf - inf: a GPU compiler may assume no infinities


# -- Bessel's i0 and the Kaiser window ---------------------------------------------------------------

# i0(x) = sum_k (x^2 / 4)^k / (k!)^2 for |x| <= 4: positive terms, Horner in x^2, 12 of them (the
# 13th is below 1e-11 of the sum). Past 4, i0(x) = e^x g(4 / x) / sqrt(x), g a degree-11 fit (error
# 9e-10) of sqrt(x) e^-x i0(x) in u = 4 / x on (0, 1], g(0) = 1 / sqrt(2 pi); here 4 g, computed as
# e^r (4 g) (8 / sqrt(x)) 2^(n - 5) with x = n ln2 + r, every factor but 2^(n - 5) near 1 or more, so
# that neither the value nor its derivative overflows before i0 itself does.
_I0_SERIES = tuple(1.0 / (4.0**k * math.factorial(k) ** 2) for k in range(11, -1, -1))
_I0_TAIL = tuple(4.0 * c for c in (
    -0.006061201449483633, 0.03140057623386383, -0.06696297228336334, 0.07575948536396027, -0.0497000552713871,
    0.01982467621564865, -0.004669900517910719, 0.0008424145053140819, 0.00040684486157260835,
    0.0017547581810504198, 0.012466934509575367, 0.3989422917366028))
_I0_SPLIT, _I0_OVERFLOW = 4.0, 100.0  # i0 passes f32's largest value at 91.9
_LN2_HI, _LN2_LO = 0.693145751953125, math.log(2) - 0.693145751953125  # n ln2_hi exact for |n| < 2^8


# i1(x) = (x / 2) sum_k (x^2 / 4)^k / (k! (k + 1)!) for |x| <= 4, and past 4 e^x h(4 / x) / sqrt(x), h a
# degree-11 least-squares fit on Chebyshev nodes (float64, against SciPy's i1e; 9e-8 relative evaluated in
# f32), here 4 h, as i0's.
_I1_SERIES = tuple(0.5 / (4.0**k * math.factorial(k) * math.factorial(k + 1)) for k in range(11, -1, -1))
_I1_TAIL = (0.026545474422273847, -0.1387759806328533, 0.2992457558169348, -0.3432755620830393,
            0.22923525977894704, -0.0936289815822442, 0.022796622302027284, -0.00432379923144116,
            -0.0022797139387334218, -0.011698252555715768, -0.1496032245523961, 1.5957691214456124)


def bessel_i(x: ArrayLike, order: int, scaled: bool) -> Tensor | np.ndarray:
    """The modified Bessel function of the first kind I_order(x), order 0 or 1, times e^-|x| where
    `scaled` (i0, i0e, i1, i1e): NaN at +-inf unscaled, +-0 scaled, as JAX's. Integers give f32;
    f16 computes in f32 and rounds once."""
    x = _as_float(x)
    ax = abs(astype(x, DType.f32))
    series, tail = (_I0_SERIES, _I0_TAIL) if order == 0 else (_I1_SERIES, _I1_TAIL)
    is_near = less_equal(ax, _I0_SPLIT)
    # each branch on its own range, so that neither's inf reaches the other's gradient (`where`, not
    # `clip`: the whole gradient at the split, which `minimum` would share between its operands)
    at = where(is_near, ax, _I0_SPLIT)
    near = polyval(series, square(at))
    near = multiply(near, at) if order else near
    near = multiply(near, exp(negative(at))) if scaled else near
    far = where(is_near, _I0_SPLIT, ax)
    if scaled:
        tail_value = multiply(polyval(tail, divide(_I0_SPLIT, far)), divide(0.25, sqrt(far)))
    else:
        far = minimum(far, _I0_OVERFLOW)
        n = floor(multiply(far, 1 / math.log(2)))
        r = subtract(subtract(far, multiply(n, _LN2_HI)), multiply(n, _LN2_LO))  # in [0, ln 2), exact to f32
        tail_value = multiply(exp(r), multiply(polyval(tail, divide(_I0_SPLIT, far)), divide(8.0, sqrt(far))))
        tail_value = ldexp(tail_value, subtract(astype(n, DType.i32), 5))
    out = where(isfinite(ax), where(is_near, near, tail_value), 0.0 if scaled else math.nan)
    out = where(signbit(x), negative(out), out) if order else out  # I1 is odd
    return astype(where(isnan(x), math.nan, out), _dtype(x))  # NOTE: a device's NaN < 4 may hold


def i0(x: ArrayLike) -> Tensor | np.ndarray:
    """The modified Bessel function of the first kind of order 0, as `jnp.i0`, to a few ulps in f32
    up to where it overflows (jax.numpy's e^|x| i0e(|x|) overflows from 88.7, fgrad's from 91.9);
    NaN at +-inf, as jax.numpy's and NumPy's. Its derivative is i1(x) (0 at 0, as JAX's). Integers
    give f32; f16 computes in f32 and rounds once."""
    return bessel_i(x, 0, scaled=False)


def _static_count(name: str, what: str, value: Any, convert: Callable[[Any], int] = operator.index) -> int:
    """A count argument known while tracing, as a Python int (`convert` reads it, as JAX's
    `concrete_or_error`), else a TraceError naming the function."""
    if isinstance(value, Tensor):
        raise TraceError(f"{name}: {what} must be a static integer (a Python int), got the traced {value.spec}; "
                         "shapes depend on it", user_site())
    try:
        return convert(value)
    except (TypeError, ValueError):
        raise TraceError(f"{name}: {what} must be an integer, got {value!r}", user_site()) from None


def kaiser(M: int, beta: ArrayLike) -> Tensor | np.ndarray:
    """The Kaiser window of M points, as `jnp.kaiser`: i0(beta sqrt(1 - ((n - a) / a)^2)) / i0(beta),
    a = (M - 1) / 2, in f32; M (read as int(M), as JAX) static, beta may be traced; ones for M <= 1."""
    M = _static_count("kaiser", "M", M, int)
    if M < 0:
        raise ShapeError(f"kaiser: M must be non-negative, got {M}", user_site())
    if M <= 1:
        return fnp.ones((M,), DType.f32)
    n = fnp.arange(M, dtype=DType.f32)
    alpha = 0.5 * (M - 1)
    return divide(i0(multiply(beta, sqrt(subtract(1.0, square(divide(subtract(n, alpha), alpha)))))), i0(beta))


# -- polynomials: coefficient arrays, highest power first --------------------------------------------


def _coefficients(name: str, *ps: ArrayLike, inexact: bool = True) -> list[Tensor | np.ndarray]:
    """`ps` promoted to one dtype (a float one where `inexact`, integers and bools giving f32), each
    holding coefficients along its first axis."""
    dt = result_dtype(*ps)
    ps = [asarray(p, _float_dtype(dt) if inexact else dt) for p in ps]
    for p in ps:
        if not _shape(p):
            raise ShapeError(f"{name}: coefficients must lie along a first axis, got a 0-d {_dtype(p)}", user_site())
    return ps


TRIM_NEEDS_VALUES = (
    "{name}: trim_leading_zeros=True needs concrete coefficients, the result's length depending on their values; "
    "got the traced {spec} (jax.numpy refuses it under jit too). Call {name} outside the trace, or keep the "
    "leading zeros"
)


def _trim_leading(name: str, p: ArrayLike, dtype: DType, tol: float = 0.0) -> np.ndarray:
    """The concrete coefficients `p` in `dtype` without their leading entries of magnitude at most
    `tol` (all of them: none left); a traced p is refused."""
    if isinstance(p, Tensor):
        raise TraceError(TRIM_NEEDS_VALUES.format(name=name, spec=p.spec), user_site())
    p = np.asarray(p, dtype.np)
    small = np.abs(p) < tol if tol else p == 0
    return p[int(np.argmin(small)):] if not small.all() else p[:0]


def poly(seq_of_zeros: ArrayLike) -> Tensor | np.ndarray:
    """The coefficients of the monic polynomial with these roots, as `jnp.poly`: a 0-d 1 for no
    roots; integers give f32. jax.numpy also takes a square matrix (the roots being its
    eigenvalues, complex in general), which fgrad, without eigenvalues or complex dtypes, refuses."""
    (z,) = _coefficients("poly", fnp.atleast_1d(seq_of_zeros))
    dt, shape = _dtype(z), _shape(z)
    if len(shape) == 2 and shape[0] == shape[1] != 0:
        raise ShapeError(f"poly: the roots of a square matrix {shape} are its eigenvalues, which fgrad does not "
                         "compute; pass the roots as a 1-d array", user_site())
    if len(shape) != 1:
        raise ShapeError(f"poly: the roots must be 1-d (or a non-empty square matrix), got {shape}", user_site())
    if shape[0] == 0:
        return fnp.ones((), dt)
    a = fnp.ones((1,), dt)
    for k in range(shape[0]):  # times (x - z_k): a_i - z_k a_(i-1), the convolution with (1, -z_k)
        a = subtract(fnp.concatenate([a, fnp.zeros((1,), dt)]), multiply(fnp.concatenate([fnp.zeros((1,), dt), a]),
                                                                          z[k]))
    return a


def polyadd(a1: ArrayLike, a2: ArrayLike) -> Tensor | np.ndarray:
    """The sum of two polynomials, as `jnp.polyadd`: the shorter one added into the last entries
    of the longer along the first axis (broadcasting into them); dtypes promote as `add`'s."""
    a1, a2 = _coefficients("polyadd", a1, a2, inexact=False)
    longer, shorter = (a1, a2) if _shape(a2)[0] <= _shape(a1)[0] else (a2, a1)
    n = _shape(longer)[0] - _shape(shorter)[0]
    tail = add(longer[n:], shorter)
    if _shape(tail) != _shape(longer[n:]):
        raise ShapeError(f"polyadd: cannot add coefficients of shape {_shape(shorter)} into the last entries of "
                         f"shape {_shape(longer)}", user_site())
    return fnp.concatenate([longer[:n], tail]) if n else tail


def polysub(a1: ArrayLike, a2: ArrayLike) -> Tensor | np.ndarray:
    """The difference of two polynomials, polyadd(a1, -a2), as `jnp.polysub` (bools refused)."""
    _no_bool("polysub", a1, a2)
    a1, a2 = _coefficients("polysub", a1, a2, inexact=False)
    return polyadd(a1, neg(a2))


def polymul(a1: ArrayLike, a2: ArrayLike, *, trim_leading_zeros: bool = False) -> Tensor | np.ndarray:
    """The product of two polynomials, their full convolution, as `jnp.polymul`; integers give f32.
    With `trim_leading_zeros` (concrete coefficients only) their leading zeros are dropped first."""
    raw = a1, a2
    a1, a2 = _coefficients("polymul", a1, a2)
    dt = _dtype(a1)
    if trim_leading_zeros and (_shape(a1)[0] > 1 or _shape(a2)[0] > 1):
        a1, a2 = (asarray(_trim_leading("polymul", p, dt)) for p in raw)
    a1 = a1 if _shape(a1)[0] else fnp.zeros(1, dt)
    a2 = a2 if _shape(a2)[0] else fnp.zeros(1, dt)
    return fnp.convolve(a1, a2, mode="full")


def polydiv(u: ArrayLike, v: ArrayLike, *, trim_leading_zeros: bool = False
            ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """(quotient, remainder) of polynomial long division, as `jnp.polydiv`: the remainder keeps u's
    length (its leading entries 0); with `trim_leading_zeros` (outside a trace only) the entries
    below sqrt(eps) in magnitude are dropped from its front, as NumPy's. Integers give f32."""
    u, v = _coefficients("polydiv", u, v)
    if not _shape(v)[0]:  # as jnp.polydiv, which fails to index its leading coefficient
        raise ShapeError("polydiv: the divisor v has no coefficients", user_site())
    m, n = _shape(u)[0] - 1, _shape(v)[0] - 1
    scale = divide(1.0, v[0])
    quotient = []
    for k in range(m - n + 1):
        d = multiply(scale, u[k])
        quotient.append(d)
        u = fnp.concatenate([u[:k], add(u[k:k + n + 1], multiply(neg(d), v)), u[k + n + 1:]])
    q = fnp.stack(quotient) if quotient else fnp.zeros(1, _dtype(u))
    if trim_leading_zeros:
        u = _trim_leading("polydiv", u, _dtype(u), float(np.sqrt(_dtype(u).finfo.eps)))
    return q, u


def polyfit(x: ArrayLike, y: ArrayLike, deg: int, rcond: float | None = None, full: bool = False,
            w: ArrayLike | None = None, cov: bool | str = False) -> Any:
    """The least-squares polynomial of degree `deg` through the points (x, y), highest power
    first, as `jnp.polyfit`: y (n,) or (n, k) for k fits at once; `w` weights each point; with
    `full`, also (residuals, rank, singular values, rcond); with `cov`, also the coefficients'
    covariance (scaled by the residuals unless cov='unscaled'). Solved by `linalg.lstsq` of
    the Vandermonde matrix, its columns scaled to unit norm."""
    linalg = fnp.linalg  # NOTE: found at call time, as linalg builds on this module
    name = "polyfit"
    if isinstance(deg, bool) or not isinstance(deg, (int, np.integer)) or deg < 0:
        raise ShapeError(f"{name}: deg must be a non-negative integer, got {deg!r}", user_site())
    x, y = _as_float(x), _as_float(y)
    n, order = (_shape(x) or (0,))[0], int(deg) + 1
    if len(_shape(x)) != 1 or n == 0:
        raise ShapeError(f"{name}: x must be a non-empty 1-d array, got shape {_shape(x)}", user_site())
    if len(_shape(y)) not in (1, 2) or _shape(y)[0] != n:
        raise ShapeError(f"{name}: y must be (n,) or (n, k) with n = {n}, the length of x; got {_shape(y)}",
                         user_site())
    rcond = n * float(_dtype(x).finfo.eps) if rcond is None else float(rcond)
    lhs, rhs = fnp.vander(x, order), y
    if w is not None:
        w = _as_float(w)
        if _shape(w) != (n,):
            raise ShapeError(f"{name}: w must be 1-d with the length {n} of x and y, got {_shape(w)}", user_site())
        lhs = multiply(lhs, w[:, None])
        rhs = multiply(rhs, w[:, None] if len(_shape(y)) == 2 else w)
    scale = sqrt(fnp.sum(multiply(lhs, lhs), axis=0))
    lhs = divide(lhs, scale[None, :])
    c, residuals, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = divide(c, scale[:, None] if len(_shape(c)) > 1 else scale)
    if full:
        return c, residuals, rank, s, fnp.asarray(rcond, _dtype(x))
    if not cov:
        return c
    base = divide(linalg.inv(fnp.matmul(fnp.matrix_transpose(lhs), lhs)), fnp.outer(scale, scale))
    if cov == "unscaled":
        factor = fnp.ones((1,), _dtype(base))
    else:
        if n <= order:
            raise ShapeError(f"{name}: scaling the covariance needs more points ({n}) than coefficients ({order}); "
                             "use cov='unscaled'", user_site())
        factor = fnp.atleast_1d(divide(residuals, n - order))
    if len(_shape(y)) == 1:
        return c, multiply(base, factor[None])
    return c, multiply(base[:, :, None], factor[None, None, :])


def polyder(p: ArrayLike, m: int = 1) -> Tensor | np.ndarray:
    """The m-th derivative of a polynomial, as `jnp.polyder` (m static); integers give f32."""
    m = _static_count("polyder", "m", m)
    (p,) = _coefficients("polyder", p)
    if m < 0:
        raise ShapeError(f"polyder: the order m must be non-negative, got {m}", user_site())
    if m == 0:
        return p
    length = _shape(p)[0]
    factors = (np.arange(m, length)[None] - np.arange(m)[:, None]).astype(_dtype(p).np).prod(0)
    return multiply(p[:length - m] if m < length else p[:0], factors[::-1].copy())


def polyint(p: ArrayLike, m: int = 1, k: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The m-th antiderivative of a polynomial, as `jnp.polyint` (m static): `k` holds the m
    integration constants (a scalar or one value: repeated), lowest order last; p and k promote to
    a float dtype."""
    m = _static_count("polyint", "m", m)
    p, k = _coefficients("polyint", p, fnp.atleast_1d(0 if k is None else k))
    if m < 0:
        raise ShapeError(f"polyint: the order m must be non-negative, got {m} (see polyder)", user_site())
    if _shape(k) == (1,):
        k = fnp.broadcast_to(k, (m,))
    if _shape(k) != (m,):
        raise ShapeError(f"polyint: k must be a scalar or 1-d of length 1 or m={m}, got {_shape(k)}", user_site())
    if m == 0:
        return p
    grid = np.arange(_shape(p)[0] + m)[None] - np.arange(m)[:, None]
    factors = np.maximum(1, grid).astype(_dtype(p).np).prod(0)[::-1].copy()
    return divide(fnp.concatenate([p, k]), factors)
