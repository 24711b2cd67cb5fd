"""Elementwise functions: arithmetic, functions, comparisons and logic, where, clip, astype."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.errors import TraceError
from fgrad.ir import DType, Primitive
from fgrad.primitives import (
    abs_p, add_p, cos_p, div_p, eq_p, erf_p, exp_p, ge_p, gelu_p, gt_p, integer_pow_p, isinf_p,
    isnan_p, le_p, log_p, logical_and_p, logical_not_p, logical_or_p, lt_p, maximum_p, minimum_p,
    mul_p, ne_p, neg_p, pow_p, relu_p, rsqrt_p, sigmoid_p, silu_p, sin_p, sqrt_p, stop_gradient_p,
    sub_p, tanh_p, where_p,
)
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _arith_dtype, _as_dtype, _broadcast, _dtype, _elementwise, _float_dtype, _no_bool,
    _no_keywords, _shape, _unary, asarray, result_dtype,
)
from fgrad.numpy.shapes import broadcast_to

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "abs", "add", "astype", "clip", "cos", "divide", "equal", "erf", "exp", "gelu", "greater",
    "greater_equal", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "logical_and",
    "logical_not", "logical_or", "maximum", "minimum", "multiply", "neg", "not_equal", "pow", "relu",
    "rsqrt", "sigmoid", "silu", "sin", "sqrt", "stop_gradient", "subtract", "tanh", "where",
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


def _float_test_public(op: Primitive, x: ArrayLike) -> Tensor | np.ndarray:
    x = asarray(x)
    if not _dtype(x).is_float:  # integers and bools are never NaN or inf
        return broadcast_to(asarray(False), _shape(x))
    return bind(op, x)


def logical_not(x: ArrayLike) -> Tensor | np.ndarray:
    """Elementwise not of a bool value."""
    return bind(logical_not_p, asarray(x))


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
    """x ** y. A static integral exponent becomes `integer_pow` (repeated multiplication);
    otherwise both operands are floats (integers become f32) and the result is C's (NumPy's,
    JAX's) pow for every x and y: a negative base takes integral exponents, NaN for others."""
    n = _static_int(y)
    if n is not None:
        dt = _float_dtype(result_dtype(x, y)) if isinstance(y, (float, np.floating)) else _arith_dtype(x)
        return bind(integer_pow_p, asarray(x, dt), n=n)
    return _elementwise(pow_p, x, y, dtype=_float_dtype(result_dtype(x, y)))


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
    """Convert to `dtype`: float -> integer truncates toward zero and saturates (NaN gives 0),
    integer -> integer wraps, anything -> bool is x != 0 (XLA's convert, so jax.numpy's)."""
    return asarray(x, _as_dtype(dtype, "astype"))


def stop_gradient(x: ArrayLike) -> Tensor | np.ndarray:
    """Identity whose gradient is zero."""
    return bind(stop_gradient_p, asarray(x))


# -- reductions --------------------------------------------------------------
