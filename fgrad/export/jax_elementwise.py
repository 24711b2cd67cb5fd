"""JAX export rules of the elementwise primitives (fgrad/primitives/elementwise.py), iota, and the
IR's input and constant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from fgrad.errors import InputError
from fgrad.export.jax import jax_rules
from fgrad.ir import Const, DType, constant_p, input_p
from fgrad.lower.library import cot_derivative
from fgrad.primitives import (
    abs_p, acosh_p, add_p, asinh_p, astype_p, atan2_p, atanh_p, cbrt_p, ceil_p, copysign_p, cos_p, cosh_p, digamma_p,
    div_p, eq_p, erf_inv_p, erf_p, erfc_p, exp2_p, exp_p, expm1_p, floor_p, ge_p, gelu_p, gt_p, integer_pow_p, iota_p,
    isinf_p, isnan_p, le_p, lgamma_p, log1p_p, log2_p, log_p, logaddexp_p, logical_and_p, logical_not_p, logical_or_p,
    lt_p, maximum_p, minimum_p, mul_p, ne_p, neg_p, polygamma_p, pow_p, relu_p, rem_p, round_p, rsqrt_p, sigmoid_p,
    sign_p, signbit_p, silu_p, sin_p, sinh_p, sqrt_p, stop_gradient_p, sub_p, tan_p, tanh_p, where_p,
)
from fgrad.primitives.elementwise import GELU_A, GELU_C


def _wide(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` computed in the operands' wide dtype (f16 in f32), as `computed_wide`; the evaluator
    rounds the result back to the node's dtype once."""
    return lambda *xs: fn(*(x.astype(jnp.float32) if x.dtype == jnp.float16 else x for x in xs))


def _input_rule(**params: Any) -> Any:
    raise InputError("to_jax: an input node has no value: the graph's inputs are bound before evaluation")


def _constant_rule(*, value: Const) -> jax.Array:
    arr = value.array
    if arr.size and not any(arr.strides):  # all elements equal: broadcast the one held
        return jnp.broadcast_to(jnp.asarray(arr.flat[0], arr.dtype), arr.shape)
    return jnp.asarray(arr)


def _log2(x: jax.Array) -> jax.Array:
    """log2, exact at powers of two as NumPy's (XLA's is 1 ulp off at 2^13): the exponent
    corrects the value only, under stop_gradient. Normal x only: XLA flushes subnormals."""
    y = jnp.log2(x)
    m, e = jnp.frexp(x)
    power_of_two = (m == 0.5) & (x >= jnp.finfo(x.dtype).tiny)
    return y + lax.stop_gradient(jnp.where(power_of_two, e - 1 - y, 0))


def _exp2(x: jax.Array) -> jax.Array:
    """2^x as 2^n e^(f log 2), x = n + f, |f| <= 1/2 (XLA's exp2 is ulps off, 0 at 2^-126): 2^n
    exactly from its bits, as two factors so that subnormal and infinite results round once."""
    x = jnp.clip(x, -160.0, 160.0)
    n = jnp.round(x)
    half = (n * 0.5).astype(jnp.int32)
    rest = n.astype(jnp.int32) - half

    def power(k: jax.Array) -> jax.Array:
        return lax.bitcast_convert_type((k + 127) << 23, jnp.float32)

    return jnp.exp((x - n) * np.float32(np.log(2))) * power(half) * power(rest)


def _erf_inv(x: jax.Array) -> jax.Array:
    """lax.erf_inv (ulps off in the tails) refined by two Newton steps on erf(y) = |x|, or on
    erfc(y) = 1 - |x| (exact) from 1/2 up, as the reference; the derivative is lax.erf_inv's."""
    y = lax.erf_inv(x)
    a, b = jnp.abs(x), jnp.abs(y)
    for _ in range(2):
        miss = jnp.where(a < 0.5, a - lax.erf(b), lax.erfc(b) - (1 - a))
        b = b + miss * np.float32(np.sqrt(np.pi) / 2) * jnp.exp(b * b)
    return y - lax.stop_gradient(jnp.where(jnp.isfinite(y), y - jnp.copysign(b, x), 0))  # y - 0 keeps -0


def _polygamma(x: jax.Array, *, m: int) -> jax.Array:
    """polygamma(m, x) for a static order m >= 1, as fgrad's: lax.polygamma from 0 up, and below the
    reflection (-1)^m polygamma(m, 1 - x) - pi^(m+1) Q(cot(pi x)) (d^m/du^m cot(u) = Q(cot(u)), as
    `cot_derivative`), which lax.polygamma lacks (it is far off below 0); +inf or NaN at the poles
    (odd or even m), 0 at +inf (lax's NaN). Each branch gets operands where it is finite, so that the
    one not taken puts no NaN into gradients."""
    negative = x < 0
    psi = lax.polygamma(jnp.asarray(m, x.dtype), jnp.where(negative, 1 - x, x))
    r = x - jnp.round(x)
    pole = (x <= 0) & (r == 0)
    r = jnp.where(negative & ~pole, r, 0.5)
    cot = jnp.cos(np.pi * r) / jnp.sin(np.pi * r)
    q = sum(c * cot**k for k, c in enumerate(cot_derivative(m)) if c)
    out = jnp.where(pole, np.inf if m % 2 else np.nan, jnp.where(negative, (-1) ** m * psi - np.pi ** (m + 1) * q, psi))
    return jnp.where(jnp.isinf(x), jnp.where(x > 0, 0.0, np.nan), out).astype(x.dtype)


# lgamma and digamma: lax's values; their derivatives, digamma and polygamma, as _digamma and _polygamma,
# for JAX's derivative of lax.digamma, lax.polygamma(1, x), is far off below 0.
@jax.custom_jvp
def _digamma(x: jax.Array) -> jax.Array:
    return jnp.where(x == 0, -np.inf, lax.digamma(x))  # jax 0.10 gives NaN at +-0, 0.11 -inf (fgrad's)


@jax.custom_jvp
def _lgamma(x: jax.Array) -> jax.Array:
    return lax.lgamma(x)


_digamma.defjvp(lambda primals, tangents: (_digamma(primals[0]), _polygamma(primals[0], m=1) * tangents[0]))
_lgamma.defjvp(lambda primals, tangents: (_lgamma(primals[0]), _digamma(primals[0]) * tangents[0]))

jax_rules.register(input_p, _input_rule)
jax_rules.register(constant_p, _constant_rule)
jax_rules.register(iota_p, lambda *, shape, axis, dtype: lax.broadcasted_iota(dtype.np, shape, axis))

# Functions of one operand; special functions compute in the wide dtype.
jax_rules.register(neg_p, jnp.negative)
jax_rules.register(abs_p, jnp.abs)
# Functions computed in the wide dtype (f16 in f32), as the NumPy implementations' computed_wide.
for primitive, fn in (
        (exp_p, jnp.exp),
        (log_p, jnp.log),
        (log2_p, _log2),
        (log1p_p, jnp.log1p),
        (expm1_p, jnp.expm1),
        (exp2_p, _exp2),
        (sqrt_p, jnp.sqrt),
        (rsqrt_p, lax.rsqrt),
        (cbrt_p, jnp.cbrt),
        (sin_p, jnp.sin),
        (cos_p, jnp.cos),
        (tan_p, jnp.tan),
        (atan2_p, jnp.arctan2),  # atan2(x, y) is the angle of (y, x), as np.arctan2(x, y)
        (sinh_p, jnp.sinh),
        (cosh_p, jnp.cosh),
        (asinh_p, jnp.arcsinh),
        (acosh_p, jnp.arccosh),
        (atanh_p, jnp.arctanh),
        (tanh_p, jnp.tanh),
        (sigmoid_p, jax.nn.sigmoid),
        (silu_p, lambda x: x * jax.nn.sigmoid(x)),
):
    jax_rules.register(primitive, _wide(fn))
# gelu: the tanh approximation.
jax_rules.register(gelu_p, _wide(lambda x: 0.5 * x * (1 + jnp.tanh(GELU_C * (x + GELU_A * x**3)))))
jax_rules.register(erf_p, _wide(lax.erf))
jax_rules.register(erfc_p, _wide(lax.erfc))
jax_rules.register(erf_inv_p, _wide(_erf_inv))
jax_rules.register(lgamma_p, _wide(_lgamma))
jax_rules.register(digamma_p, _wide(_digamma))
jax_rules.register(polygamma_p, lambda x, *, m: _wide(lambda v: _polygamma(v, m=m))(x))
# relu: max(x, 0), NaN staying NaN; jax.nn.relu's derivative is 0 at 0, as fgrad's.
jax_rules.register(relu_p, jax.nn.relu)
jax_rules.register(floor_p, jnp.floor)
jax_rules.register(ceil_p, jnp.ceil)
jax_rules.register(round_p, jnp.round)  # half to even
jax_rules.register(sign_p, lambda x: jnp.where(x == 0, x, jnp.sign(x)))  # -0 stays -0, NaN stays NaN
jax_rules.register(logical_not_p, jnp.logical_not)
jax_rules.register(isnan_p, jnp.isnan)
jax_rules.register(isinf_p, jnp.isinf)
jax_rules.register(signbit_p, jnp.signbit)
jax_rules.register(copysign_p, jnp.copysign)
jax_rules.register(integer_pow_p, lambda x, *, n: lax.integer_pow(x, n))
jax_rules.register(stop_gradient_p, lax.stop_gradient)

# Arithmetic of two operands (integers wrap).
jax_rules.register(add_p, jnp.add)
jax_rules.register(sub_p, jnp.subtract)
jax_rules.register(mul_p, jnp.multiply)


# div and rem of integers truncate toward zero, spelled out where XLA leaves them undefined:
# x / 0 is -1 (all bits set), x rem 0 is x; INT_MIN / -1 wraps to INT_MIN, INT_MIN rem -1 is 0.
def _safe_divisor(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    """A divisor that is neither 0 nor (for signed integers) -1, and where y is -1."""
    minus_one = (y == -1) if jnp.issubdtype(x.dtype, jnp.signedinteger) else jnp.zeros_like(y, bool)
    return jnp.where((y == 0) | minus_one, jnp.ones_like(y), y), minus_one


def _div_rule(x: jax.Array, y: jax.Array) -> jax.Array:
    if jnp.issubdtype(x.dtype, jnp.floating):
        return x / y
    safe, minus_one = _safe_divisor(x, y)
    q = jnp.where(minus_one, -x, lax.div(x, safe))
    return jnp.where(y == 0, jnp.array(-1).astype(x.dtype), q)


def _rem_rule(x: jax.Array, y: jax.Array) -> jax.Array:
    if jnp.issubdtype(x.dtype, jnp.floating):
        return _wide(lax.rem)(x, y)  # C's fmod: the sign of x, NaN for y = 0
    safe, minus_one = _safe_divisor(x, y)
    return jnp.where(y == 0, x, jnp.where(minus_one, jnp.zeros_like(x), lax.rem(x, safe)))


jax_rules.register(div_p, _div_rule)
jax_rules.register(rem_p, _rem_rule)
jax_rules.register(pow_p, _wide(lax.pow))  # C's pow
jax_rules.register(logaddexp_p, _wide(jnp.logaddexp))
jax_rules.register(maximum_p, jnp.maximum)  # NaN wins
jax_rules.register(minimum_p, jnp.minimum)

# Comparisons and logic.
jax_rules.register(eq_p, jnp.equal)
jax_rules.register(ne_p, jnp.not_equal)
jax_rules.register(lt_p, jnp.less)
jax_rules.register(le_p, jnp.less_equal)
jax_rules.register(gt_p, jnp.greater)
jax_rules.register(ge_p, jnp.greater_equal)
jax_rules.register(logical_and_p, jnp.logical_and)
jax_rules.register(logical_or_p, jnp.logical_or)
jax_rules.register(where_p, jnp.where)


# astype: float -> int saturates, NaN giving 0 (`convert`); int -> int wraps; -> bool is x != 0.
def _astype_rule(x: jax.Array, *, dtype: DType) -> jax.Array:
    if dtype.is_int and jnp.issubdtype(x.dtype, jnp.floating):
        info = np.iinfo(dtype.np)
        x = jnp.where(jnp.isnan(x), 0, jnp.clip(x, float(info.min), float(info.max)))
    return lax.convert_element_type(x, dtype.np)


jax_rules.register(astype_p, _astype_rule)
