"""JAX export rules of reductions, scans, sorts and pad (fgrad/primitives/reductions.py), matmul
(linalg.py) and the bitwise primitives (bitwise.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from fgrad.export.jax import jax_rules
from fgrad.ir import DType
from fgrad.primitives import (
    argmax_p, argmin_p, argsort_p, bitcast_convert_type_p, bitwise_and_p, bitwise_not_p, bitwise_or_p,
    bitwise_xor_p, clz_p, cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p, linear_recurrence_p,
    log_softmax_p, matmul_p, max_p, merge_runs_p, min_p, pad_p, population_count_p, prod_p,
    shift_left_p, shift_right_arithmetic_p, shift_right_logical_p, softmax_p, sort_p, sum_p,
)


def _wide(x: jax.Array) -> jax.Array:
    """x in the dtype its sums, products and dot products accumulate in (f16 in f32)."""
    return x.astype(DType.of(x.dtype).wide.np)


def _wide_sum(x: jax.Array, axis: int) -> jax.Array:
    return jnp.sum(_wide(x), axis=axis, keepdims=True).astype(x.dtype)


jax_rules.register(pad_p, lambda x, *, widths, value: lax.pad(x, jnp.asarray(value, x.dtype), widths))

jax_rules.register(sum_p, lambda x, *, axes: jnp.sum(_wide(x), axis=axes))
jax_rules.register(prod_p, lambda x, *, axes: jnp.prod(_wide(x), axis=axes))


def _float_jvp(fn, jvp):
    """`fn` (of one operand) with the tangent `jvp(x, ans, t)`, fgrad's, where x is a float."""

    def rule(x: jax.Array) -> jax.Array:
        if not jnp.issubdtype(x.dtype, jnp.floating):
            return fn(x)
        f = jax.custom_jvp(fn)

        @f.defjvp
        def f_jvp(primals: tuple, tangents: tuple) -> tuple:
            ans = f(*primals)
            return ans, jvp(*primals, ans, *tangents)

        return f(x)

    return rule


# Of no values, the dtype's least (largest) value: -inf (inf), iinfo's bound, False (True). The
# tangent is the mean of t over the entries equal to the result, 0 where none is (a NaN result).
def _pick(reduce):
    def rule(x: jax.Array, *, axes: tuple[int, ...]) -> jax.Array:
        def jvp(x: jax.Array, ans: jax.Array, t: jax.Array) -> jax.Array:
            hit = (x == jnp.expand_dims(ans, axes)).astype(x.dtype)
            return jnp.sum(hit * t, axis=axes) / jnp.maximum(jnp.sum(hit, axis=axes), 1)

        return _float_jvp(lambda v: reduce(v, axes), jvp)(x)

    return rule


jax_rules.register(max_p, _pick(lax.reduce_max))
jax_rules.register(min_p, _pick(lax.reduce_min))

# The first largest (smallest), a NaN beating every number, as NumPy's and jnp's.
jax_rules.register(argmax_p, lambda x, *, axes: jnp.argmax(x, axis=axes[0]))
jax_rules.register(argmin_p, lambda x, *, axes: jnp.argmin(x, axis=axes[0]))


# The exponentials in x's dtype, their sum accumulated wide and rounded back once.
def _softmax(x: jax.Array, *, axis: int) -> jax.Array:
    e = jnp.exp(x - jnp.max(x, axis=axis, keepdims=True, initial=-jnp.inf))
    return e / _wide_sum(e, axis)


def _log_softmax(x: jax.Array, *, axis: int) -> jax.Array:
    shifted = x - jnp.max(x, axis=axis, keepdims=True, initial=-jnp.inf)
    return shifted - jnp.log(_wide_sum(jnp.exp(shifted), axis))


jax_rules.register(softmax_p, _softmax)
jax_rules.register(log_softmax_p, _log_softmax)



# out[i] = a[i] out[i-1] + b[i]: the scan of (a, b) pairs under (A, B)(a, b) = (A a, B a + b).
def _linear_recurrence(a: jax.Array, b: jax.Array, *, axis: int, reverse: bool) -> jax.Array:
    def combine(before: tuple, then: tuple) -> tuple:
        return before[0] * then[0], before[1] * then[0] + then[1]

    return lax.associative_scan(combine, (_wide(a), _wide(b)), reverse=reverse, axis=axis)[1].astype(a.dtype)


jax_rules.register(linear_recurrence_p, _linear_recurrence)


def _previous(x: jax.Array, axis: int, reverse: bool, fill: float) -> jax.Array:
    """x moved one place along `axis` (back where `reverse`), `fill` moving in."""
    n = x.shape[axis]
    if n <= 1:
        return jnp.full_like(x, fill)
    kept = lax.slice_in_dim(x, int(reverse), n - 1 + int(reverse), axis=axis)
    widths = [(0, 0, 0)] * x.ndim
    widths[axis] = (0, 1, 0) if reverse else (1, 0, 0)
    return lax.pad(kept, jnp.asarray(fill, x.dtype), widths)


jax_rules.register(cumsum_p, lambda x, *, axis, reverse: lax.cumsum(_wide(x), axis, reverse))
jax_rules.register(cumprod_p, lambda x, *, axis, reverse: lax.cumprod(_wide(x), axis, reverse))


# The tangent of out[j] is the mean of t over the entries of the prefix equal to it (fgrad's even
# share of ties, none for a NaN): the sums along runs of equal results are linear recurrences.
def _pick_scan(scan):
    def rule(x: jax.Array, *, axis: int, reverse: bool) -> jax.Array:
        def jvp(x: jax.Array, ans: jax.Array, t: jax.Array) -> jax.Array:
            eq = (x == ans).astype(x.dtype)
            run = (ans == _previous(ans, axis, reverse, 0.0)).astype(x.dtype)
            count = jnp.maximum(_linear_recurrence(run, eq, axis=axis, reverse=reverse), 1)
            return _linear_recurrence(run, eq * t, axis=axis, reverse=reverse) / count

        return _float_jvp(lambda v: scan(v, axis, reverse), jvp)(x)

    return rule


jax_rules.register(cummax_p, _pick_scan(lax.cummax))
jax_rules.register(cummin_p, _pick_scan(lax.cummin))


# fgrad's tangent, stable and exact at infinities: d out[j] = exp(out[j-1] - out[j]) d out[j-1]
# + exp(x[j] - out[j]) t[j], each exp(a - b) 1 where a and b are the same infinity.
def _cumlogsumexp(x: jax.Array, *, axis: int, reverse: bool) -> jax.Array:
    def ratio(a: jax.Array, b: jax.Array) -> jax.Array:
        return jnp.exp(jnp.where(a == b, 0.0, a - b))

    def jvp(x: jax.Array, ans: jax.Array, t: jax.Array) -> jax.Array:
        earlier = _previous(ans, axis, reverse, -jnp.inf)
        return _linear_recurrence(ratio(earlier, ans), ratio(x, ans) * t, axis=axis, reverse=reverse)

    return _float_jvp(lambda v: lax.cumlogsumexp(_wide(v), axis, reverse).astype(v.dtype), jvp)(x)


jax_rules.register(cumlogsumexp_p, _cumlogsumexp)


# Order keys, as fgrad's (reductions._order_keys): each value as a u32 whose unsigned order is the
# sort's. Floats in NumPy's order (-0 equals 0, every NaN last) or IEEE's total one (an f16 NaN
# is one NaN, the largest, in both); descending flips every bit, so equal keys keep index order.
def _order_keys(x: jax.Array, descending: bool, total: bool) -> jax.Array:
    if jnp.issubdtype(x.dtype, jnp.floating):
        width = 8 * x.dtype.itemsize
        sign, mask = jnp.uint32(1 << (width - 1)), jnp.uint32((1 << width) - 1)
        bits = lax.bitcast_convert_type(x, jnp.dtype(f"uint{width}")).astype(jnp.uint32)
        keys = jnp.where(bits & sign, ~bits & mask, bits | sign)
        if not total or x.dtype == jnp.float16:
            keys = jnp.where(jnp.isnan(x), mask, keys)
        if not total:
            keys = jnp.where(x == 0, sign, keys)
    elif jnp.issubdtype(x.dtype, jnp.signedinteger):
        keys = lax.bitcast_convert_type(x.astype(jnp.int32), jnp.uint32) ^ jnp.uint32(1 << 31)
    else:
        keys = x.astype(jnp.uint32)
    return ~keys if descending else keys


def _sorted_by(group: int | None, keys: jax.Array, values: jax.Array) -> jax.Array:
    """`values` put in the stable order of `keys` along the last axis, within each group of
    `group` consecutive entries (the whole row where None)."""
    if group is None:
        return lax.sort((keys, values), dimension=keys.ndim - 1, is_stable=True, num_keys=1)[1]
    groups = lax.broadcasted_iota(jnp.int32, keys.shape, keys.ndim - 1) // group
    return lax.sort((groups, keys, values), dimension=keys.ndim - 1, is_stable=True, num_keys=2)[2]


def _argsort(x: jax.Array, *, descending: bool, total: bool, run: int | None) -> jax.Array:
    return _sorted_by(run, _order_keys(x, descending, total), lax.broadcasted_iota(jnp.int32, x.shape, x.ndim - 1))


# Each pair of runs of `run` entries put in order of x's keys there, equal keys keeping their places.
def _merge_runs(x: jax.Array, perm: jax.Array, *, run: int, descending: bool, total: bool) -> jax.Array:
    return _sorted_by(2 * run, _order_keys(jnp.take_along_axis(x, perm, -1), descending, total), perm)


# NumPy's order; descending is the ascending order reversed, as JAX's.
def _sort(x: jax.Array, *, descending: bool) -> jax.Array:
    out = jnp.take_along_axis(x, _argsort(x, descending=False, total=False, run=None), -1)
    return jnp.flip(out, -1) if descending else out


jax_rules.register(argsort_p, _argsort)
jax_rules.register(merge_runs_p, _merge_runs)
jax_rules.register(sort_p, _sort)

# f32 products at full precision (no TF32); f16 ones accumulate in f32.
jax_rules.register(matmul_p, lambda a, b: jnp.matmul(a, b, precision=lax.Precision.HIGHEST,
                                                     preferred_element_type=DType.of(a.dtype).wide.np))

jax_rules.register(bitwise_and_p, jnp.bitwise_and)
jax_rules.register(bitwise_or_p, jnp.bitwise_or)
jax_rules.register(bitwise_xor_p, jnp.bitwise_xor)
jax_rules.register(bitwise_not_p, jnp.invert)


# Shifts as XLA's: the count read as u32; from 32 up the left and logical right shifts give 0 and
# the arithmetic one fills with the sign. The bits are shifted as `on` (u32, or i32 for the
# arithmetic shift), whatever x's dtype; a narrower integer's by lax's shift of its own width.
def _shift(shift, on: jnp.dtype, zero_past: bool):
    def rule(x: jax.Array, s: jax.Array) -> jax.Array:
        if x.dtype.itemsize < 4:
            return shift(x, s)
        count = lax.bitcast_convert_type(s, jnp.uint32) if s.dtype == jnp.int32 else s.astype(jnp.uint32)
        bits = lax.bitcast_convert_type(x, on) if x.dtype != on else x
        out = shift(bits, jnp.minimum(count, jnp.uint32(31)).astype(on))
        if zero_past:
            out = jnp.where(count >= 32, jnp.zeros((), on), out)
        return lax.bitcast_convert_type(out, x.dtype) if x.dtype != on else out

    return rule


jax_rules.register(shift_left_p, _shift(lax.shift_left, jnp.uint32, zero_past=True))
jax_rules.register(shift_right_logical_p, _shift(lax.shift_right_logical, jnp.uint32, zero_past=True))
jax_rules.register(shift_right_arithmetic_p, _shift(lax.shift_right_arithmetic, jnp.int32, zero_past=False))
jax_rules.register(population_count_p, lax.population_count)
jax_rules.register(clz_p, lax.clz)
jax_rules.register(bitcast_convert_type_p, lambda x, *, new_dtype: lax.bitcast_convert_type(x, new_dtype.np))
