"""Reductions over axes (sum, prod, mean, var, std, max, min, any, all, argmax, argmin,
logsumexp and their NaN-ignoring forms), softmax, scans (cumsum, cumprod and jax.lax's
cummax, cummin, cumlogsumexp), sorting (sort, argsort, lax.top_k) and what sorting gives
(median, quantile, percentile and their NaN-ignoring forms), and differences and integrals
(diff, ediff1d, gradient, trapezoid, unwrap)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import Dim, DType, Primitive
from fgrad.primitives import (
    argmax_p, argmin_p, argsort_p, cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p, log_softmax_p, max_p,
    min_p, prod_p, softmax_p, sort_p, sum_p,
)
from fgrad.primitives.reductions import take_along_last
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _arith_dtype, _as_dtype, _axes, _bool_flag, _brief, _broadcast_shapes, _dtype, _float_dtype,
    _no_sharding, _one_axis, _shape, asarray, result_dtype,
)
from fgrad.numpy.shapes import (
    _axes_in_order, _fixed, _no_out, _slice_axis, broadcast_to, concatenate, moveaxis, reshape, transpose,
)
from fgrad.numpy.elementwise import (
    abs, add, astype, ceil, divide, equal, exp, floor, floor_divide, greater, isclose, isnan, less, less_equal, log,
    logical_and, logical_not, logical_or, maximum, minimum, multiply, negative, not_equal, remainder, sqrt,
    stop_gradient, subtract,
)
from fgrad.numpy.elementwise import where as _where  # `where` is the name of the reductions' mask argument

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "all", "any", "argmax", "argmin", "argsort", "average", "count_nonzero", "cumprod", "cumsum", "cumulative_prod",
    "cumulative_sum", "log_softmax", "logsumexp", "max", "mean", "median", "min", "nancumprod", "nancumsum",
    "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "prod", "ptp", "softmax", "sort",
    "std", "sum", "var",
    "allclose", "amax", "amin", "array_equal", "array_equiv", "diff", "ediff1d", "nanargmax", "nanargmin",
    "gradient", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile", "trapezoid", "unwrap",
]

Axis = int | Sequence[int] | None


def _keepdims(out: Tensor | np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor | np.ndarray:
    return reshape(out, tuple(1 if i in axes else d for i, d in enumerate(shape)))


def _reduce(op: Primitive, x: Tensor | np.ndarray, axes: tuple[int, ...], keepdims: bool) -> Tensor | np.ndarray:
    """`op` over `axes` of x (x itself over none), the reduced axes kept with size 1 where `keepdims`."""
    out = bind(op, x, axes=axes) if axes else x
    return _keepdims(out, _shape(x), axes) if keepdims else out


def _masked(name: str, x: Tensor | np.ndarray, where_: ArrayLike | None, identity: ArrayLike) -> Tensor | np.ndarray:
    """x with the entries outside the `where` mask (broadcast to x's shape) replaced by `identity`."""
    if where_ is None:
        return x
    mask = asarray(where_)
    if _dtype(mask) is not DType.bool:
        raise DTypeError(f"{name}: where must be a bool mask, got {_dtype(mask)}", user_site())
    return _where(broadcast_to(mask, _shape(x)), x, identity)


def _sum_dtype(name: str, a: ArrayLike, dtype: str | DType | None, promote_integers: bool = False) -> DType:
    """What a sum or product computes in: `dtype`, else a's, bools counted as i32 (jax.numpy's
    default integer); with `promote_integers`, narrower integers as i32 (signed) or u32."""
    if dtype is not None:
        return _as_dtype(dtype, name)
    dt = _arith_dtype(a)
    return (DType.i32 if dt.kind == "i" else DType.u32) if promote_integers and dt.is_int else dt


def sum(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None, keepdims: bool = False,
        initial: ArrayLike | None = None, where: ArrayLike | None = None, promote_integers: bool = True
        ) -> Tensor | np.ndarray:
    """Sum over `axis` (all axes if None), as `jnp.sum`: bools count as i32, `dtype` converts
    `a` first (a sum of bools is then their or), entries outside the `where` mask count 0 and
    `initial` is added. f16 and bfloat16 sums accumulate in f32, rounded once. With
    `promote_integers` (the default), integers narrower than 32 bits sum as i32 (signed) or u32."""
    return _fold("sum", sum_p, a, axis, dtype, out, keepdims, initial, where, 0, promote_integers)


def prod(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None, keepdims: bool = False,
         initial: ArrayLike | None = None, where: ArrayLike | None = None, promote_integers: bool = True
         ) -> Tensor | np.ndarray:
    """Product over `axis` (all axes if None), as `jnp.prod`: bools count as i32, `dtype`
    converts `a` first (a product of bools is then their and), entries outside the `where`
    mask count 1 and `initial` multiplies in. Its gradient is right with zeros in `a`: each
    entry's is the product of the others, made of prefix and suffix products (no division).
    `promote_integers` widens narrow integers, as in `sum`."""
    return _fold("prod", prod_p, a, axis, dtype, out, keepdims, initial, where, 1, promote_integers)


def _fold(name: str, op: Primitive, a: ArrayLike, axis: Axis, dtype: str | DType | None, out: None, keepdims: bool,
          initial: ArrayLike | None, where_: ArrayLike | None, identity: int, promote_integers: bool
          ) -> Tensor | np.ndarray:
    _no_out(name, out)
    _bool_flag(name, "promote_integers", promote_integers)
    x = asarray(a, _sum_dtype(name, a, dtype, promote_integers))
    if _dtype(x) is DType.bool:  # bools add as or and multiply as and, as in NumPy
        op, identity = (max_p, False) if op is sum_p else (min_p, True)
    x = _masked(name, x, where_, identity)
    result = _reduce(op, x, _axes(name, _shape(x), axis), keepdims)
    if initial is None:
        return result
    start = _initial(name, initial, _dtype(x))
    combine = {sum_p: add, prod_p: multiply, max_p: logical_or, min_p: logical_and}[op]
    return combine(result, start)


def _initial(name: str, initial: ArrayLike, dtype: DType) -> Tensor | np.ndarray:
    start = asarray(initial, dtype)
    if _shape(start) != ():  # as JAX's: an array would broadcast the result to its shape
        raise ShapeError(f"{name}: initial value must be a scalar, got shape {_shape(start)}", user_site())
    return start


def mean(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None, keepdims: bool = False,
         *, where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """Mean over `axis` (all axes if None), as `jnp.mean`: in `dtype` if given, else a's float
    dtype (f32 for integers and bools), over the entries in the `where` mask (NaN where it
    holds none). It sums and divides in the dtype's `wide` one and rounds once (the mean of
    f16 values whose sum passes 65504 is still finite). fgrad refuses an integer `dtype`
    (jnp.mean would divide with truncation)."""
    _no_out("mean", out)
    result, _ = _mean_count("mean", a, axis, _float_result("mean", a, dtype), keepdims, where)
    return result


def _float_result(name: str, a: ArrayLike, dtype: str | DType | None) -> DType:
    if dtype is None:
        return _float_dtype(_dtype(a))
    want = _as_dtype(dtype, name)
    if not want.is_float:
        raise DTypeError(f"{name}: dtype {want} is not a float dtype; fgrad computes {name} in floats only (jnp."
                         f"{name} with an integer dtype would round its division)", user_site())
    return want


def _count(shape: tuple[int | Dim, ...], axes: tuple[int, ...], dtype: DType) -> float | Tensor:
    """How many entries `axes` of `shape` hold, as a number of `dtype` (a symbol's value is known at call time)."""
    sizes = [shape[a] for a in axes]
    count: float | Tensor = float(math.prod(d for d in sizes if not isinstance(d, Dim)))
    for d in sizes:
        if isinstance(d, Dim):
            count = multiply(count, astype(d, dtype))
    return count


def _mean_count(name: str, a: ArrayLike, axis: Axis, dtype: DType, keepdims: bool, where_: ArrayLike | None
                ) -> tuple[Tensor | np.ndarray, float | Tensor | np.ndarray]:
    """The mean over `axis` in `dtype` (computed in its `wide` one), and how many entries it averaged."""
    x = asarray(a, dtype.wide)
    axes = _axes(name, _shape(x), axis)
    if where_ is None:
        count = _count(_shape(x), axes, dtype.wide)
        if isinstance(count, float):  # a mean of no entries is NaN, as JAX's 0 / 0
            scale = 1.0 / count if count else math.nan
        else:
            scale = astype(divide(1.0, count), dtype.wide)
        return astype(multiply(sum(x, axes, keepdims=keepdims), scale), dtype), count
    count = sum(astype(broadcast_to(asarray(where_), _shape(x)), dtype.wide), axes, keepdims=keepdims)
    return astype(divide(sum(x, axes, keepdims=keepdims, where=where_), count), dtype), count


def var(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: ArrayLike | None = None, mean: ArrayLike | None = None,
        correction: int | float | None = None) -> Tensor | np.ndarray:
    """Variance over `axis` (all axes if None), as `jnp.var`: the mean of squared deviations
    from the mean (or the given `mean`), divided by N - ddof (`correction` is its other name;
    NaN where that is not positive), in `dtype` or a's float dtype, over the `where` mask."""
    _no_out("var", out)
    if correction is None:
        correction = ddof
    elif ddof != 0:
        raise TraceError("var: ddof and correction can't be provided simultaneously (as in JAX)", user_site())
    _dtype(correction)  # refuses None and strings, naming the function called
    if _shape(correction) != ():
        raise ShapeError(f"var: ddof / correction must be a number, got {_brief(correction)}", user_site())
    dtype = _float_result("var", a, dtype)
    x = asarray(a, dtype.wide)
    axes = _axes("var", _shape(x), axis)
    center = (_mean_count("var", x, axes, dtype.wide, True, where)[0] if mean is None
              else broadcast_to(asarray(mean, dtype.wide), _shape(x)))
    deviation = subtract(x, center)
    squares = sum(multiply(deviation, deviation), axes, keepdims=keepdims, where=where)
    count = (_count(_shape(x), axes, dtype.wide) if where is None
             else sum(astype(broadcast_to(asarray(where), _shape(x)), dtype.wide), axes, keepdims=keepdims))
    normalizer = subtract(count, correction)
    result = divide(squares, normalizer)
    if not (isinstance(normalizer, float) and normalizer > 0):  # no degrees of freedom left: NaN, as JAX's
        result = _where(greater(normalizer, 0), result, math.nan)
    return astype(result, dtype)


def std(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: ArrayLike | None = None, mean: ArrayLike | None = None,
        correction: int | float | None = None) -> Tensor | np.ndarray:
    """Standard deviation over `axis`: the square root of `var` (same arguments), as `jnp.std`."""
    return sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction))


def max(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, initial: ArrayLike | None = None,
        where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """Maximum over `axis` (all axes if None), as `jnp.max`: NaN wins; bools give bool (any);
    `initial` joins every result; entries outside the `where` mask are left out, which needs
    an `initial` (a maximum of nothing has no value)."""
    return _pick_reduce("max", max_p, maximum, a, axis, out, keepdims, initial, where)


def min(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, initial: ArrayLike | None = None,
        where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """Minimum over `axis` (all axes if None), as `jnp.min`: NaN wins; bools give bool (all);
    `initial` joins every result; entries outside the `where` mask are left out, which needs
    an `initial` (a minimum of nothing has no value)."""
    return _pick_reduce("min", min_p, minimum, a, axis, out, keepdims, initial, where)


def _pick_reduce(name: str, op: Primitive, pick: Callable[..., Any], a: ArrayLike, axis: Axis, out: None,
                 keepdims: bool, initial: ArrayLike | None, where_: ArrayLike | None) -> Tensor | np.ndarray:
    _no_out(name, out)
    x = asarray(a)
    if initial is None:
        if where_ is not None:
            raise TraceError(f"{name}: a where mask needs an initial value: a {name}imum of no entries has none "
                             "(as in JAX)", user_site())
        shape, axes = _shape(x), _axes(name, _shape(x), axis)
        if 0 in (shape[k] for k in axes) and 0 not in (d for k, d in enumerate(shape) if k not in axes):
            raise ShapeError(f"{name}: zero-size array to reduction operation {name} which has no identity (axes "
                             f"{axes} of {shape}); give an initial value (as in NumPy and JAX)", user_site())
        return _reduce(op, x, axes, keepdims)
    start = _initial(name, initial, _dtype(x))
    x = _masked(name, x, where_, start)  # entries left out become the initial value, which joins the result anyway
    return pick(_reduce(op, x, _axes(name, _shape(x), axis), keepdims), start)


def any(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,
        where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """Whether any entry over `axis` (all axes if None) is nonzero (NaN is), as `jnp.any`;
    entries outside the `where` mask count False."""
    _no_out("any", out)
    x = _masked("any", asarray(a, DType.bool), where, False)
    return _reduce(max_p, x, _axes("any", _shape(x), axis), keepdims)


def all(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,
        where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """Whether every entry over `axis` (all axes if None) is nonzero (NaN is), as `jnp.all`;
    entries outside the `where` mask count True."""
    _no_out("all", out)
    x = _masked("all", asarray(a, DType.bool), where, True)
    return _reduce(min_p, x, _axes("all", _shape(x), axis), keepdims)


def argmax(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
           ) -> Tensor | np.ndarray:
    """Index of the largest value along `axis` (of the flattened `a` if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy; bools count as 0 and 1."""
    _no_out("argmax", out)
    return _arg_extreme(argmax_p, a, axis, bool(keepdims))


def argmin(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
           ) -> Tensor | np.ndarray:
    """Index of the smallest value along `axis` (of the flattened `a` if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy; bools count as 0 and 1."""
    _no_out("argmin", out)
    return _arg_extreme(argmin_p, a, axis, bool(keepdims))


def _flattened(name: str, x: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """x as one axis, for `axis=None`; a symbolic size cannot join others in one axis."""
    shape = _shape(x)
    symbols = [d for d in shape if isinstance(d, Dim)]
    if symbols and len(shape) > 1:
        raise ShapeError(f"{name}: axis=None flattens {shape}, which would need a product of the symbol "
                         f"{symbols[0]}; give an axis", user_site())
    return reshape(x, (-1,))


def _arg_extreme(op: Primitive, x: ArrayLike, axis: int | None, keepdims: bool) -> Tensor | np.ndarray:
    x = asarray(x, _arith_dtype(x))  # bools count as 0 and 1
    shape = _shape(x)
    if axis is None:
        flat = bind(op, _flattened(op.name, x), axes=(0,))
        return reshape(flat, (1,) * len(shape)) if keepdims else flat
    axes = (_one_axis(op.name, x, axis),)
    out = bind(op, x, axes=axes)
    return _keepdims(out, shape, axes) if keepdims else out


def ptp(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Range (maximum - minimum) over `axis`, as `jnp.ptp`; bools are refused, as in JAX."""
    _no_out("ptp", out)
    if _dtype(a) is DType.bool:
        raise DTypeError("ptp: bools have no difference (as in JAX); convert them with astype first", user_site())
    x = asarray(a)
    return subtract(max(x, axis, keepdims=keepdims), min(x, axis, keepdims=keepdims))


def count_nonzero(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """How many entries over `axis` are nonzero (NaN is), as i32, as `jnp.count_nonzero`."""
    return sum(asarray(a, DType.bool), axis, DType.i32, keepdims=keepdims)


def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, returned: bool = False,
            keepdims: bool = False) -> Tensor | np.ndarray | tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """Weighted mean over `axis`, as `jnp.average`: `weights` of a's shape, or 1-D along a
    single `axis`; with `returned`, also the sum of the weights (the count without weights)."""
    _bool_flag("average", "returned", returned)
    if weights is None:
        dtype = _float_dtype(_dtype(a))
        result, count = _mean_count("average", a, axis, dtype, keepdims, None)
        total = count if isinstance(count, Tensor) else asarray(count, dtype)
        return (result, broadcast_to(total, _shape(result))) if returned else result
    x, w = asarray(a), asarray(weights)
    dtype = _float_dtype(result_dtype(x, w))
    x, w = asarray(x, dtype), asarray(w, dtype)
    axes = _axes("average", _shape(x), axis)
    if _shape(w) != _shape(x):
        if len(axes) != 1 or len(_shape(w)) != 1 or _shape(w)[0] != _shape(x)[axes[0]]:
            raise ShapeError(f"average: weights of shape {_shape(w)} must have a's shape {_shape(x)}, or be 1-D "
                             "along a single axis", user_site())
        w = broadcast_to(reshape(w, tuple(-1 if i == axes[0] else 1 for i in range(len(_shape(x))))), _shape(x))
    total = sum(w, axes, keepdims=keepdims)
    result = divide(sum(multiply(x, w), axes, keepdims=keepdims), total)
    return (result, total) if returned else result


def median(a: ArrayLike, axis: int | Sequence[int] | None = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Tensor | np.ndarray:
    """The middle value over `axis` (the mean of the two middle ones for an even count), as
    `jnp.median` (its quantile 0.5, method "midpoint"): in a's float dtype, NaN if any entry is
    NaN; the gradient goes to the middle entries."""
    return _quantile("median", a, 0.5, axis, out, overwrite_input, "midpoint", keepdims, None, skip_nan=False)


def nanmedian(a: ArrayLike, axis: int | Sequence[int] | None = None, out: None = None,
              overwrite_input: bool = False, keepdims: bool = False) -> Tensor | np.ndarray:
    """`median` of the entries that are not NaN (NaN where all are), as `jnp.nanmedian`."""
    return _quantile("nanmedian", a, 0.5, axis, out, overwrite_input, "midpoint", keepdims, None, skip_nan=True)


def quantile(a: ArrayLike, q: ArrayLike, axis: int | Sequence[int] | None = None, out: None = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: bool = False, *,
             weights: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The q-th quantiles over `axis` (all axes if None), as `jnp.quantile`: q is a float or a
    1-D array of them in [0, 1] (its axis leads the result); the entry at q (n - 1) of the
    sorted values, between two entries interpolated by `method` ("linear", "lower", "higher",
    "midpoint", "nearest", which takes the lower on a tie). In a's float dtype (linear
    interpolates in q's), NaN where a reduced slice holds a NaN. The gradient goes to the
    entries read, as JAX's, and to q."""
    return _quantile("quantile", a, q, axis, out, overwrite_input, method, keepdims, weights, skip_nan=False)


def nanquantile(a: ArrayLike, q: ArrayLike, axis: int | Sequence[int] | None = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear", keepdims: bool = False, *,
                weights: ArrayLike | None = None) -> Tensor | np.ndarray:
    """`quantile` of the entries that are not NaN (NaN where all are), as `jnp.nanquantile`."""
    return _quantile("nanquantile", a, q, axis, out, overwrite_input, method, keepdims, weights, skip_nan=True)


def percentile(a: ArrayLike, q: ArrayLike, axis: int | Sequence[int] | None = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: bool = False, *,
               weights: ArrayLike | None = None, out_sharding: Any = None) -> Tensor | np.ndarray:
    """`quantile` at q / 100, q in [0, 100] (integers become floats), as `jnp.percentile`;
    `out_sharding` must be None."""
    _no_sharding("percentile", out_sharding)
    return _quantile("percentile", a, q, axis, out, overwrite_input, method, keepdims, weights, skip_nan=False)


def nanpercentile(a: ArrayLike, q: ArrayLike, axis: int | Sequence[int] | None = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear", keepdims: bool = False, *,
                  weights: ArrayLike | None = None) -> Tensor | np.ndarray:
    """`nanquantile` at q / 100, q in [0, 100] (integers become floats), as `jnp.nanpercentile`."""
    return _quantile("nanpercentile", a, q, axis, out, overwrite_input, method, keepdims, weights, skip_nan=True)


# How a quantile between the sorted entries `low` and `high` is read, `weight` of the way from
# low to high: as JAX's methods (linear in q's dtype `dt`; nearest takes low on a tie).
_INTERPOLATIONS: dict[str, Callable[..., Any]] = {
    "linear": lambda low, high, weight, dt: add(multiply(astype(low, dt), subtract(1, weight)),
                                                multiply(astype(high, dt), weight)),
    "lower": lambda low, high, weight, dt: low,
    "higher": lambda low, high, weight, dt: high,
    "midpoint": lambda low, high, weight, dt: multiply(add(low, high), 0.5),
    "nearest": lambda low, high, weight, dt: _where(less_equal(weight, 0.5), low, high),
}


def _quantile(name: str, a: ArrayLike, q: ArrayLike, axis: Axis, out: None, overwrite_input: bool, method: str,
              keepdims: bool, weights: ArrayLike | None, *, skip_nan: bool) -> Tensor | np.ndarray:
    """The quantiles of the sorted reduced axes, as JAX's `_quantile` computes them: the entries
    at floor and ceil of q (count - 1), count being the entries that are not NaN where `skip_nan`
    (NaN sorts last)."""
    _no_out(name, out)
    if _bool_flag(name, "overwrite_input", overwrite_input):
        raise TraceError(f"{name}: overwrite_input=True is not supported (as in JAX): fgrad values are immutable",
                         user_site())
    if weights is not None:
        raise TraceError(f"{name}: weights need method='inverted_cdf', which fgrad does not implement", user_site())
    if not isinstance(method, str) or method not in _INTERPOLATIONS:
        raise ShapeError(f"{name}: method must be one of {', '.join(map(repr, _INTERPOLATIONS))}, got "
                         f"{_brief(method)}", user_site())
    top = 100 if "percentile" in name else 1
    q_dtype = _dtype(q)
    if top == 1 and not q_dtype.is_float:  # JAX's floor of q takes floats only
        raise DTypeError(f"{name}: q must be floats (as in JAX), got {q_dtype}; write e.g. 0.5 or q.astype(float)",
                         user_site())
    q_shape = _shape(q)
    if len(q_shape) > 1:
        raise ShapeError(f"{name}: q must be a scalar or 1-D, got shape {q_shape}", user_site())
    known = None if isinstance(q, Tensor) else np.asarray(q, np.float64)  # a traced q is clamped, as in JAX
    if known is not None and not np.all((known >= 0) & (known <= top)):
        raise ShapeError(f"{name}: q must lie in [0, {top}], got {_brief(q)}", user_site())
    q_dtype = _float_dtype(q_dtype)
    fractions = reshape(asarray(q, q_dtype), (-1,))
    if top != 1:
        fractions = divide(fractions, top)

    x = asarray(a, _float_dtype(_dtype(a)))
    shape = _shape(x)
    axes = _axes(name, shape, axis)
    symbols = [shape[i] for i in axes if isinstance(shape[i], Dim)]
    if symbols:
        raise ShapeError(f"{name}: the reduced axes of {shape} hold the symbol {symbols[0]}; {name} takes fixed "
                         "sizes", user_site())
    kept = [i for i in range(len(shape)) if i not in axes]
    lead = tuple(shape[i] for i in kept)
    n = math.prod(shape[i] for i in axes)
    if n == 0:
        raise ShapeError(f"{name}: the axes {axes} of {shape} hold no entries, so no {name} (as JAX refuses)",
                         user_site())
    rows = reshape(transpose(x, kept + list(axes)), (*lead, n))
    ordered = sort(rows, -1)
    last = subtract(sum(logical_not(isnan(ordered)), -1, q_dtype, keepdims=True), 1) if skip_nan else n - 1.0
    position = multiply(fractions, last)  # (Q,), or (*lead, Q) where the count differs by row
    low, high = floor(position), ceil(position)
    places = (*lead, _shape(fractions)[0])

    def at(index: Tensor | np.ndarray) -> Tensor | np.ndarray:
        index = broadcast_to(astype(maximum(0, minimum(index, last)), DType.i32), places)
        if 0 in places:  # nothing to read
            return broadcast_to(ordered[..., :1], places)
        return take_along_last(ordered, index)

    result = _INTERPOLATIONS[method](at(low), at(high), subtract(position, low), q_dtype)
    if not skip_nan:
        result = _where(any(isnan(rows), -1, keepdims=True), math.nan, result)
    result = astype(result, _dtype(x))
    result = transpose(result, (len(lead), *range(len(lead)))) if q_shape else reshape(result, lead)
    if keepdims:
        result = reshape(result, (*q_shape, *(1 if i in axes else d for i, d in enumerate(shape))))
    return result


# -- ignoring NaN ----------------------------------------------------------------


def nansum(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None,
           keepdims: bool = False, initial: ArrayLike | None = None, where: ArrayLike | None = None
           ) -> Tensor | np.ndarray:
    """`sum` with NaN entries counted as 0, as `jnp.nansum`."""
    return sum(_nan_as(a, 0), axis, dtype, out, keepdims, initial, where)


def nanprod(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None,
            keepdims: bool = False, initial: ArrayLike | None = None, where: ArrayLike | None = None
            ) -> Tensor | np.ndarray:
    """`prod` with NaN entries counted as 1, as `jnp.nanprod`."""
    return prod(_nan_as(a, 1), axis, dtype, out, keepdims, initial, where)


def nanmax(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """`max` leaving NaN entries out (NaN where all are NaN), as `jnp.nanmax`."""
    return _nan_pick("nanmax", max, -math.inf, a, axis, out, keepdims, initial, where)


def nanmin(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """`min` leaving NaN entries out (NaN where all are NaN), as `jnp.nanmin`."""
    return _nan_pick("nanmin", min, math.inf, a, axis, out, keepdims, initial, where)


def _nan_pick(name: str, pick: Callable[..., Any], identity: float, a: ArrayLike, axis: Axis, out: None,
              keepdims: bool, initial: ArrayLike | None, where_: ArrayLike | None) -> Tensor | np.ndarray:
    x = asarray(a)
    if not _dtype(x).is_float:
        return pick(x, axis, out, keepdims, initial, where_)
    nan = isnan(x)
    result = pick(_where(nan, identity, x), axis, out, keepdims, initial, where_)
    return _where(all(nan, axis, keepdims=keepdims, where=where_), math.nan, result) if initial is None else result


def nanmean(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None,
            keepdims: bool = False, where: ArrayLike | None = None) -> Tensor | np.ndarray:
    """`mean` of the entries that are not NaN (NaN where none is), as `jnp.nanmean`."""
    _no_out("nanmean", out)
    return mean(_nan_as(a, 0), axis, dtype, keepdims=keepdims, where=_not_nan(a, where))


def nanvar(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: ArrayLike | None = None, mean: ArrayLike | None = None,
           correction: int | float | None = None) -> Tensor | np.ndarray:
    """`var` of the entries that are not NaN, as `jnp.nanvar`."""
    return var(_nan_as(a, 0), axis, dtype, out, ddof, keepdims, where=_not_nan(a, where), mean=mean,
               correction=correction)


def nanstd(a: ArrayLike, axis: Axis = None, dtype: str | DType | None = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: ArrayLike | None = None, mean: ArrayLike | None = None,
           correction: int | float | None = None) -> Tensor | np.ndarray:
    """`std` of the entries that are not NaN, as `jnp.nanstd`."""
    return sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where, mean, correction))


def _nan_as(a: ArrayLike, value: int) -> Tensor | np.ndarray:
    x = asarray(a)
    return _where(isnan(x), value, x) if _dtype(x).is_float else x


def _not_nan(a: ArrayLike, where_: ArrayLike | None) -> Tensor | np.ndarray | None:
    """The entries of a that are not NaN (and in the `where` mask): None where that is all."""
    x = asarray(a)
    if not _dtype(x).is_float:
        return where_
    keep = logical_not(isnan(x))
    return keep if where_ is None else logical_and(keep, where_)


# -- along one axis --------------------------------------------------------------


def softmax(x: ArrayLike, axis: int | Sequence[int] | None = -1, where: ArrayLike | None = None
            ) -> Tensor | np.ndarray:
    """exp(x) / sum(exp(x)) over `axis` (an int, a tuple, or None for all of x), computed stably
    (the sum in x's `wide` dtype), as `jax.nn.softmax`. With a bool `where` mask (broadcast to x),
    only its entries take part and the others are 0 (a row with none is all 0)."""
    if where is None:
        return _along_axes("softmax", softmax_p, x, axis)
    x = asarray(x, _float_dtype(_dtype(x)))
    mask = broadcast_to(asarray(where), _shape(x))
    return _where(mask, _along_axes("softmax", softmax_p, _masked("softmax", x, mask, -math.inf), axis), 0.0)


def log_softmax(x: ArrayLike, axis: int | Sequence[int] | None = -1, where: ArrayLike | None = None
                ) -> Tensor | np.ndarray:
    """x - logsumexp(x) over `axis` (an int, a tuple, or None for all of x), computed stably (the
    sum in x's `wide` dtype), as `jax.nn.log_softmax`. With a bool `where` mask (broadcast to x),
    only its entries take part and the others are -inf."""
    if where is None:
        return _along_axes("log_softmax", log_softmax_p, x, axis)
    x = asarray(x, _float_dtype(_dtype(x)))
    mask = broadcast_to(asarray(where), _shape(x))
    masked = _masked("log_softmax", x, mask, -math.inf)
    return _where(mask, _along_axes("log_softmax", log_softmax_p, masked, axis), -math.inf)


def _along_axes(name: str, op: Primitive, x: ArrayLike, axis: int | Sequence[int] | None) -> Tensor | np.ndarray:
    """A normalization primitive over `axis`: one axis as it is; several moved last and merged
    into one (their sizes fixed), normalized along it, and put back."""
    x = asarray(x, _float_dtype(_dtype(x)))
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return bind(op, x, axis=_one_axis(name, x, axis))
    shape = _shape(x)
    axes = _axes(name, shape, axis)
    if len(axes) == 1:
        return bind(op, x, axis=axes[0])
    if builtins.any(isinstance(shape[a], Dim) for a in axes):
        raise ShapeError(f"{name}: axes {axes} of {shape} take a symbol's size; normalize over one such axis at a "
                         "time", user_site())
    rest = [k for k in range(len(shape)) if k not in axes]
    moved = transpose(x, (*rest, *axes))
    merged = reshape(moved, (*(shape[k] for k in rest), math.prod(shape[a] for a in axes)))
    out = reshape(bind(op, merged, axis=len(rest)), tuple(moved.shape))
    return transpose(out, tuple(int(k) for k in np.argsort((*rest, *axes))))


def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False,
              return_sign: bool = False, where: ArrayLike | None = None
              ) -> Tensor | np.ndarray | tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """log(sum(b * exp(a))) over `axis`, as `jax.nn.logsumexp`, shifted by the (gradient-free)
    max for stability: -inf where every term is 0 (a fully masked row: entries with b == 0 or
    outside the `where` mask are left out), +inf where one is +inf. With `return_sign`, the
    pair (log|sum|, sign of the sum); without, NaN where the sum is negative. Where the sum is
    0 the gradient is 0, not NaN (no entry moves the result)."""
    _bool_flag("logsumexp", "return_sign", return_sign)
    x = asarray(a, _float_dtype(_dtype(a) if b is None else result_dtype(a, b)))
    dtype = _dtype(x)
    if b is not None:
        scale = broadcast_to(asarray(b, dtype), _shape(x))
        x = _where(not_equal(scale, 0), x, -math.inf)
    x = _masked("logsumexp", x, where, -math.inf)
    axes = _axes("logsumexp", _shape(x), axis)
    m = max(x, axes, keepdims=True, initial=-math.inf if 0 in (_shape(x)[k] for k in axes) else None)  # of none: -inf
    m = stop_gradient(_where(less(abs(m), math.inf), m, 0.0))  # a shift by -inf or inf would give inf - inf
    terms = exp(subtract(x, m))
    total = sum(terms if b is None else multiply(terms, scale), axes, keepdims=True)
    empty = equal(total, 0.0)  # log(0) = -inf, but its derivative 1/0 times exp(-inf) = 0 is NaN
    out = add(_where(empty, -math.inf, log(_where(empty, 1.0, abs(total)))), m)
    sign = _where(greater(total, 0), 1.0, _where(less(total, 0), -1.0, _where(isnan(total), total, 0.0)))
    if not keepdims:
        kept = tuple(d for i, d in enumerate(_shape(x)) if i not in axes)
        out, sign = reshape(out, kept), reshape(sign, kept)
    if return_sign:
        return out, astype(sign, dtype)
    return out if b is None else _where(less(sign, 0), math.nan, out)


# -- scans -----------------------------------------------------------------------


def cumsum(a: ArrayLike, axis: int | None = None, dtype: str | DType | None = None, out: None = None, *,
           reverse: bool = False) -> Tensor | np.ndarray:
    """Cumulative sum along `axis` (of the flattened `a` if None), as `jnp.cumsum`: bools count
    as i32, and `dtype` converts `a` first (with dtype bool, a running or, as bools add in
    NumPy and jax.numpy). With `reverse`, each entry sums from itself to the end of the axis,
    as `jax.lax.cumsum(..., reverse=True)`."""
    return _cumulative("cumsum", cumsum_p, a, axis, dtype, out, reverse)


def cumprod(a: ArrayLike, axis: int | None = None, dtype: str | DType | None = None, out: None = None, *,
            reverse: bool = False) -> Tensor | np.ndarray:
    """Cumulative product along `axis` (of the flattened `a` if None), as `jnp.cumprod`: bools
    count as i32, and `dtype` converts `a` first (with dtype bool, a running and). With
    `reverse`, from the end of the axis. Its gradient is right with zeros in `a` (a linear
    recurrence, no division), at every order."""
    return _cumulative("cumprod", cumprod_p, a, axis, dtype, out, reverse)


def _cumulative(name: str, op: Primitive, a: ArrayLike, axis: int | None, dtype: str | DType | None, out: None,
                reverse: bool) -> Tensor | np.ndarray:
    _no_out(name, out)
    reverse = _bool_flag(name, "reverse", reverse)
    x = asarray(a, _sum_dtype(name, a, dtype))
    if _dtype(x) is DType.bool:  # sum: some entry so far is True (a count not 0); product: every one is
        counts = _cumulative(name, cumsum_p, logical_not(x) if op is cumprod_p else x, axis, DType.i32, None, reverse)
        return equal(counts, 0) if op is cumprod_p else not_equal(counts, 0)
    if axis is None:
        x, axis = _flattened(name, x), 0
    return bind(op, x, axis=_one_axis(name, x, axis), reverse=reverse)


def cumulative_sum(x: ArrayLike, /, *, axis: int | None = None, dtype: str | DType | None = None,
                   include_initial: bool = False) -> Tensor | np.ndarray:
    """The array API's cumulative sum, as `jnp.cumulative_sum`: `axis` may be left out only for
    1-D x; with `include_initial`, the sums start with 0."""
    return _cumulative_api("cumulative_sum", cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(x: ArrayLike, /, *, axis: int | None = None, dtype: str | DType | None = None,
                    include_initial: bool = False) -> Tensor | np.ndarray:
    """The array API's cumulative product, as `jnp.cumulative_prod`: `axis` may be left out only
    for 1-D x; with `include_initial`, the products start with 1."""
    return _cumulative_api("cumulative_prod", cumprod, 1, x, axis, dtype, include_initial)


def _cumulative_api(name: str, scan: Callable[..., Any], initial: int, x: ArrayLike, axis: int | None,
                    dtype: str | DType | None, include_initial: bool) -> Tensor | np.ndarray:
    x = asarray(x)
    if axis is None:
        if len(_shape(x)) != 1:
            raise ShapeError(f"{name}: x has shape {_shape(x)}; axis may be left out only for 1-D arrays (as in "
                             "the array API)", user_site())
        axis = 0
    axis = _one_axis(name, x, axis)
    out = scan(x, axis, dtype)
    if not _bool_flag(name, "include_initial", include_initial):
        return out
    start = broadcast_to(asarray(initial, _dtype(out)), tuple(1 if i == axis else d for i, d in enumerate(_shape(out))))
    return concatenate([start, out], axis)


def nancumsum(a: ArrayLike, axis: int | None = None, dtype: str | DType | None = None, out: None = None
              ) -> Tensor | np.ndarray:
    """`cumsum` with NaN entries counted as 0, as `jnp.nancumsum`."""
    return cumsum(_nan_as(a, 0), axis, dtype, out)


def nancumprod(a: ArrayLike, axis: int | None = None, dtype: str | DType | None = None, out: None = None
               ) -> Tensor | np.ndarray:
    """`cumprod` with NaN entries counted as 1, as `jnp.nancumprod`."""
    return cumprod(_nan_as(a, 1), axis, dtype, out)


def _lax_scan(op: Primitive, doc: str) -> Callable[..., Tensor | np.ndarray]:
    """jax.lax's form of a scan: `(operand, axis=0, reverse=False)`, no conversions (bools are
    refused, as in JAX)."""

    def scan(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Tensor | np.ndarray:
        x = asarray(operand)
        if _dtype(x) is DType.bool:
            raise DTypeError(f"{op.name}: bool operands are not supported (as in JAX); convert with astype",
                             user_site())
        return bind(op, x, axis=_one_axis(op.name, x, axis), reverse=_bool_flag(op.name, "reverse", reverse))

    scan.__name__ = scan.__qualname__ = op.name
    scan.__doc__ = doc
    return scan


lax_cumsum = _lax_scan(cumsum_p, "Cumulative sum along `axis` (from its end where `reverse`), as `jax.lax.cumsum`.")
lax_cumprod = _lax_scan(cumprod_p, "Cumulative product along `axis` (from its end where `reverse`), as "
                                   "`jax.lax.cumprod`; its gradient is right with zeros.")
lax_cummax = _lax_scan(cummax_p, "Running maximum along `axis` (from its end where `reverse`), as `jax.lax.cummax`: "
                                 "NaN wins; the gradient goes to the entries equal to each result, ties sharing it.")
lax_cummin = _lax_scan(cummin_p, "Running minimum along `axis` (from its end where `reverse`), as `jax.lax.cummin`: "
                                 "NaN wins; the gradient goes to the entries equal to each result, ties sharing it.")
lax_cumlogsumexp = _lax_scan(cumlogsumexp_p, "Running log(sum(exp(x))) along `axis` (from its end where `reverse`), "
                                             "as `jax.lax.cumlogsumexp`, stable for any range of values; floats only.")

# -- putting rows in order -----------------------------------------------------


def _move_last(x: Tensor | np.ndarray, axis: int) -> tuple[Tensor | np.ndarray, Callable[[ArrayLike], ArrayLike]]:
    """x with `axis` moved last (for functions along the last axis), and the function moving
    it back in a result of that shape."""
    last = len(_shape(x)) - 1
    if axis == last:
        return x, lambda out: out
    perm = [*range(axis), *range(axis + 1, last + 1), axis]
    return transpose(x, perm), lambda out: transpose(out, [perm.index(k) for k in range(last + 1)])


def _sort_args(name: str, kind: Any, order: Any, stable: Any, descending: Any) -> bool:
    """Check jnp.sort's arguments; the `descending` flag. Sorting is always stable (a stable
    order is an order stable=False allows)."""
    if kind is not None:
        raise TraceError(f"{name}: the 'kind' argument is not supported (as in JAX); use stable=True or "
                         f"stable=False to choose stability", user_site())
    if order is not None:
        raise TraceError(f"{name}: the 'order' argument is not supported (as in JAX)", user_site())
    if stable is not None:  # None: NumPy's default, as np.sort(x) passes it on to x.sort()
        _bool_flag(name, "stable", stable)
    return _bool_flag(name, "descending", descending)


def sort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None, stable: bool = True,
         descending: bool = False) -> Tensor | np.ndarray:
    """The values of `a` in order along `axis` (of the flattened `a` if None), as `jnp.sort`:
    NaN last, -0.0 equal to 0.0 (equal values keep their order); `descending` is the ascending
    order reversed. Sorting is always stable. Its gradient goes to each value's place."""
    descending = _sort_args("sort", kind, order, stable, descending)
    x = asarray(a)
    if axis is None:
        x, axis = _flattened("sort", x), 0
    rows, back = _move_last(x, _one_axis("sort", x, axis))
    return back(bind(sort_p, rows, descending=descending))


def argsort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None, stable: bool = True,
            descending: bool = False, dtype: str | DType | None = None) -> Tensor | np.ndarray:
    """The indices that sort `a` along `axis` (of the flattened `a` if None), as `jnp.argsort`:
    stable (equal values in order of index, in a descending sort too), NaN last, -0.0 equal to
    0.0; i32, or `dtype`."""
    descending = _sort_args("argsort", kind, order, stable, descending)
    x = asarray(a)
    if axis is None:
        x, axis = _flattened("argsort", x), 0
    rows, back = _move_last(x, _one_axis("argsort", x, axis))
    out = back(bind(argsort_p, rows, descending=descending, total=False, run=None))
    return out if dtype is None else astype(out, _as_dtype(dtype, "argsort"))


def top_k(operand: ArrayLike, k: int, *, axis: int = -1) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """The `k` largest values along `axis` and their indices (i32), largest first, as
    `jax.lax.top_k`: floats in IEEE's total order (NaN largest, -NaN smallest, -0.0 below
    0.0), equal values in order of index. The gradient of a value goes to the entry it came
    from. Unlike JAX, every f16 NaN counts as NaN, the largest: a GPU's f16 to f32 conversion
    may drop a NaN's sign."""
    x = asarray(operand)
    axis = _one_axis("top_k", x, axis)
    n = _shape(x)[axis]
    if isinstance(n, Dim):
        raise ShapeError(f"top_k: the axis {axis} of {_shape(x)} is the symbol {n}; top_k takes a fixed size",
                         user_site())
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= n:
        raise ShapeError(f"top_k: k must be an int in 0..{n} (the size of axis {axis} of {_shape(x)}), got "
                         f"{_brief(k)}", user_site())

    rows, back = _move_last(x, axis)
    order = bind(argsort_p, rows, descending=True, total=True, run=None)
    indices = order if k == n else order[..., :int(k)]
    return back(take_along_last(rows, indices)), back(indices)


def lax_sort(operand: ArrayLike | Sequence[ArrayLike], dimension: int = -1, is_stable: bool = True,
             num_keys: int = 1) -> Tensor | np.ndarray | tuple[Tensor | np.ndarray, ...]:
    """`jax.lax.sort`: the operand put in order along `dimension` (NaN last, -0.0 equal to 0.0),
    or, given a sequence of operands of one shape, all of them put in the order of the first
    `num_keys` (compared in turn), returned as a tuple. Always stable."""
    _bool_flag("sort", "is_stable", is_stable)
    n = len(operand) if isinstance(operand, (list, tuple)) else 1
    if isinstance(num_keys, bool) or not isinstance(num_keys, (int, np.integer)) or not 1 <= num_keys <= n:
        raise ShapeError(f"sort: num_keys must be an int in 1..{n} (the operands), got {_brief(num_keys)}",
                         user_site())
    if not isinstance(operand, (list, tuple)):
        return sort(operand, dimension)
    xs = [asarray(o) for o in operand]
    if not xs or len({_shape(x) for x in xs}) != 1:
        raise ShapeError(f"sort: operands must share one shape, got {[_shape(x) for x in xs]}", user_site())
    moved = [_move_last(x, _one_axis("sort", x, dimension)) for x in xs]
    rows = [m[0] for m in moved]
    # Stable sorts by the keys from the last to the first: equal earlier keys keep the later keys' order.
    perm = bind(argsort_p, rows[num_keys - 1], descending=False, total=False, run=None)
    for key in reversed(rows[:num_keys - 1]):
        perm = take_along_last(perm, bind(argsort_p, take_along_last(key, perm), descending=False, total=False,
                                          run=None))
    return tuple(back(take_along_last(r, perm)) for r, (_, back) in zip(rows, moved))


# -- NumPy's other names, NaN-skipping arg-extremes, differences, whole-array comparisons ---------

amax, amin = max, min


def nanargmax(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
              ) -> Tensor | np.ndarray:
    """Index of the largest non-NaN value along `axis`, as `jnp.nanargmax`: -1 where all are NaN."""
    return _nan_arg("nanargmax", argmax, -math.inf, a, axis, out, keepdims)


def nanargmin(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
              ) -> Tensor | np.ndarray:
    """Index of the smallest non-NaN value along `axis`, as `jnp.nanargmin`: -1 where all are NaN."""
    return _nan_arg("nanargmin", argmin, math.inf, a, axis, out, keepdims)


def _nan_arg(name: str, arg: Callable[..., Any], skip: float, a: ArrayLike, axis: int | None, out: None,
             keepdims: bool | None) -> Tensor | np.ndarray:
    _no_out(name, out)
    x = asarray(a)
    if not _dtype(x).is_float:
        return arg(x, axis, keepdims=keepdims)
    nan = isnan(x)
    found = arg(_where(nan, asarray(skip, _dtype(x)), x), axis, keepdims=keepdims)
    return _where(all(nan, axis=axis, keepdims=bool(keepdims)), -1, found)


def diff(a: ArrayLike, n: int = 1, axis: int = -1, prepend: ArrayLike | None = None,
         append: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The n-th differences along `axis`, as `jnp.diff`: out[i] = a[i + 1] - a[i], n times
    (bools: a[i + 1] != a[i]); `prepend` and `append` (scalars broadcast) are joined first."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ShapeError(f"diff: n must be a static non-negative integer, got {_brief(n)}", user_site())
    x = asarray(a)
    if not _shape(x):
        raise ShapeError("diff: needs at least 1 axis, got a 0-d value", user_site())
    if n == 0:
        return x
    axis = _one_axis("diff", x, axis)
    edge = tuple(1 if k == axis else d for k, d in enumerate(_shape(x)))
    parts = [broadcast_to(p, edge) if not _shape(p) else asarray(p) for p in (prepend, x, append) if p is not None]
    x = concatenate(parts, axis) if len(parts) > 1 else x
    step = not_equal if _dtype(x) is DType.bool else subtract
    for _ in range(n):
        size = _shape(x)[axis]
        later = x[(slice(None),) * axis + (slice(1, size),)]
        earlier = x[(slice(None),) * axis + (slice(0, size - 1),)]
        x = step(later, earlier)
    return x


def ediff1d(ary: ArrayLike, to_end: ArrayLike | None = None, to_begin: ArrayLike | None = None
            ) -> Tensor | np.ndarray:
    """The differences of consecutive entries of `ary` flattened, with `to_begin` before and
    `to_end` after them (flattened, in ary's dtype), as `jnp.ediff1d`."""
    x = reshape(asarray(ary), (-1,))
    dt = _dtype(x)
    parts = [] if to_begin is None else [reshape(asarray(to_begin, dt), (-1,))]
    parts.append(subtract(x[1:], x[:-1]))  # none for fewer than two entries
    parts += [] if to_end is None else [reshape(asarray(to_end, dt), (-1,))]
    return concatenate(parts)


def gradient(f: ArrayLike, *varargs: ArrayLike, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Tensor | np.ndarray | list[Tensor | np.ndarray]:
    """The numerical gradient of sampled values `f` along each of `axis` (all axes if None), as
    `jnp.gradient`: central differences inside, one-sided ones at the two edges. `varargs` are
    the spacings: none (1), one for every axis, or one per axis, each a scalar step or the 1-D
    coordinates of the samples along its axis. In the float dtype f and the spacings promote
    to. One axis gives one array, several a list. edge_order may be None or 1 (JAX's edges are
    first order)."""
    if edge_order not in (None, 1):
        raise TraceError(f"gradient: edge_order={_brief(edge_order)} is not supported; JAX's and fgrad's edges "
                         "are first order (edge_order=None or 1)", user_site())
    dtype = _float_dtype(result_dtype(f, *varargs))
    x = asarray(f, dtype)
    shape = _shape(x)
    axes = _axes_in_order("gradient", shape, axis) if axis is not None else tuple(range(len(shape)))
    if not axes:
        return []
    if len(varargs) not in (0, 1, len(axes)):
        raise TraceError(f"gradient: {len(varargs)} spacing arguments for the {len(axes)} axes {axes}; give none, "
                         f"one, or one per axis", user_site())
    steps = list(varargs) * len(axes) if len(varargs) == 1 else list(varargs) or [1.0] * len(axes)
    sizes = [_fixed("gradient", shape, k, "a numerical gradient") for k in axes]
    if builtins.min(sizes) < 2:
        raise ShapeError(f"gradient: axis {axes[sizes.index(builtins.min(sizes))]} of {shape} has fewer than 2 "
                         "entries; a numerical gradient needs at least 2", user_site())
    grads = [_gradient_along(x, h, k, n) for h, k, n in zip(steps, axes, sizes)]
    return grads[0] if len(grads) == 1 else grads


def _gradient_along(x: Tensor | np.ndarray, h: ArrayLike, axis: int, n: int) -> Tensor | np.ndarray:
    """jnp.gradient along one axis of size n >= 2, with step or coordinates h, as JAX's formulas."""
    def part(v: Tensor | np.ndarray, start: int, stop: int) -> Tensor | np.ndarray:
        return _slice_axis(v, axis, start, stop)

    first = subtract(part(x, 1, 2), part(x, 0, 1))
    final = subtract(part(x, n - 1, n), part(x, n - 2, n - 1))
    if not _shape(h):
        h = h if type(h) in (int, float) else asarray(h, _dtype(x))
        inner = divide(multiply(subtract(part(x, 2, n), part(x, 0, n - 2)), 0.5), h)
        return concatenate([divide(first, h), inner, divide(final, h)], axis)
    if len(_shape(h)) != 1 or _shape(h)[0] != n:
        raise ShapeError(f"gradient: coordinates must be 1-D with the {n} entries of axis {axis} of {_shape(x)}, "
                         f"got shape {_shape(h)}", user_site())
    h = reshape(asarray(h, _dtype(x)), tuple(n if k == axis else 1 for k in range(len(_shape(x)))))
    dx1 = subtract(part(h, 1, n - 1), part(h, 0, n - 2))
    dx2 = subtract(part(h, 2, n), part(h, 1, n - 1))
    a = divide(negative(dx2), multiply(dx1, add(dx1, dx2)))
    b = divide(subtract(dx2, dx1), multiply(dx1, dx2))
    c = divide(dx1, multiply(dx2, add(dx1, dx2)))
    inner = add(add(multiply(a, part(x, 0, n - 2)), multiply(b, part(x, 1, n - 1))), multiply(c, part(x, 2, n)))
    first = divide(first, subtract(part(h, 1, 2), part(h, 0, 1)))
    final = divide(final, subtract(part(h, n - 1, n), part(h, n - 2, n - 1)))
    return concatenate([first, inner, final], axis)


def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1) -> Tensor | np.ndarray:
    """The integral of `y` along `axis` by the trapezoidal rule, as `jnp.trapezoid`: samples at
    the coordinates `x` (1-D along the axis, or of y's shape), else `dx` apart. In y's float
    dtype (promoted with x's)."""
    if x is None:
        values = asarray(y, _float_dtype(_dtype(y)))
        axis = _one_axis("trapezoid", values, axis)
        step = dx
        if _shape(dx):
            step = asarray(dx)
            step = moveaxis(reshape(step, (1,) * (len(_shape(values)) - len(_shape(step))) + _shape(step)), axis, -1)
    else:
        dtype = _float_dtype(result_dtype(y, x))
        values, coords = asarray(y, dtype), asarray(x, dtype)
        axis = _one_axis("trapezoid", values, axis)
        step = diff(coords) if len(_shape(coords)) == 1 else moveaxis(diff(coords, axis=axis), axis, -1)
    if _shape(values)[axis] == 0:  # as jnp.trapezoid, which fails to index its ends
        raise ShapeError(f"trapezoid: y {_shape(values)} has no samples along axis {axis}", user_site())
    values = moveaxis(values, axis, -1)
    if not _shape(step) or _shape(step)[-1] == 1:  # one step along the axis: step * (the sum less half the ends)
        step = step[..., 0] if _shape(step) else step
        ends = multiply(0.5, add(values[..., 0], values[..., -1]))
        return multiply(step, subtract(sum(values, -1), ends))
    return multiply(0.5, sum(multiply(step, add(values[..., 1:], values[..., :-1])), -1))


def unwrap(p: ArrayLike, discont: ArrayLike | None = None, axis: int = -1, period: ArrayLike = 2 * math.pi
           ) -> Tensor | np.ndarray:
    """p along `axis` with each jump larger than `discont` (default period / 2) between neighbours
    made smaller by whole periods, as `jnp.unwrap`: in the dtype p and period promote to
    (integers stay integers for an integer period)."""
    dtype = result_dtype(p, period)
    x, period = asarray(p, dtype), asarray(period, dtype)
    axis = _one_axis("unwrap", x, axis)
    if _shape(x)[axis] == 0:
        return x
    if discont is None:
        discont = divide(period, 2)
    interval = divide(period, 2) if dtype.is_float else floor_divide(period, 2)
    step = diff(x, axis=axis)
    wrapped = subtract(remainder(add(step, interval), period), interval)
    wrapped = _where(logical_and(equal(wrapped, negative(interval)), greater(step, 0)), interval, wrapped)
    correction = _where(less(abs(step), discont), 0, subtract(wrapped, step))
    n = _shape(x)[axis]
    return concatenate([_slice_axis(x, axis, 0, 1), add(_slice_axis(x, axis, 1, n), cumsum(correction, axis))], axis)

def allclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
             equal_nan: bool = False) -> Tensor | np.ndarray:
    """Whether every pair of entries is close (`isclose`), as `jnp.allclose`: a bool value."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> Tensor | np.ndarray:
    """Whether a1 and a2 have one shape and equal entries (NaNs equal where `equal_nan`), as
    `jnp.array_equal`: a bool value (False, as a constant, for different shapes)."""
    a1, a2 = asarray(a1), asarray(a2)
    if _shape(a1) != _shape(a2):
        return asarray(False)
    same = equal(a1, a2)
    if equal_nan and result_dtype(a1, a2).is_float:
        same = logical_or(same, logical_and(isnan(a1), isnan(a2)))
    return all(same)


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> Tensor | np.ndarray:
    """Whether a1 and a2 broadcast together and are equal throughout, as `jnp.array_equiv`."""
    a1, a2 = asarray(a1), asarray(a2)
    if _broadcast_shapes(_shape(a1), _shape(a2)) is None:
        return asarray(False)
    return all(equal(a1, a2))
