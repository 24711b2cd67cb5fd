"""The NumPy / `jax.numpy`-style public functions, and the Tensor operators.

They follow NumPy's names and semantics: they promote dtypes, broadcast,
normalise axes and validate, then `bind` primitives (fgrad/primitives.py), so
every broadcast and cast is a visible node in the graph. Each also runs
eagerly on NumPy arrays outside a trace.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import primitives as P
from fgrad.errors import IMMUTABLE, NUMPY_FUNCTION, TRACER_INDEX, DTypeError, ShapeError, TraceError
from fgrad.ir import I32, Const, Dim, DType, HasSpec, Primitive, constant_p
from fgrad.primitives import (
    abs_p, add_p, argmax_p, argmin_p, astype_p, broadcast_to_p, concatenate_p, cos_p, cumsum_p, dim_size_p, div_p,
    dynamic_slice_p, dynamic_update_slice_p, eq_p, erf_p, exp_p, ge_p,
    gelu_p, gt_p, integer_pow_p, iota_p, isinf_p, isnan_p, le_p, log_p, log_softmax_p,
    logical_and_p, logical_not_p, logical_or_p, lt_p, matmul_p, max_p, maximum_p, min_p, minimum_p,
    mul_p, ne_p, neg_p, pad_p, pow_p, relu_p, reshape_p, rsqrt_p, scatter_add_p, sigmoid_p, silu_p,
    sin_p, slice_p, softmax_p, sqrt_p, stop_gradient_p, sub_p, sum_p, take_p, tanh_p, transpose_p,
    where_p,
)
from fgrad.primitives.abstract_eval import check_reshape
from fgrad.trace import Tensor, bind, check_live, current_trace, spec_of, user_call, user_site

ArrayLike = Any  # Tensor, NumPy array, or Python number


# JAX's promotion lattice (jax.numpy with x64 off) restricted to fgrad's dtypes is a chain, so the
# join of two dtypes is the higher one: u32 and i32 join at JAX's int64, which x64-off makes i32.
_RANK = {DType.bool: 0, DType.u32: 1, DType.i32: 2, DType.f16: 3, DType.f32: 4}
_PYTHON_DTYPE = {bool: DType.bool, int: DType.i32, float: DType.f32}
# Python ints and floats are weakly typed, as in JAX: they take the dtype of the operands beside
# them when those are of their kind or higher (bool < integer < float), else i32 / f32.
_WEAK = {int: DType.i32, float: DType.f32, Dim: DType.i32}  # a symbol's value is an int
_KIND = {"b": 0, "i": 1, "u": 1, "f": 2}


def _dtype(x: ArrayLike) -> DType:
    """fgrad dtype of a Tensor, array or Python number (float64 -> f32, int64 -> i32).

    Every public function reads its operands' dtypes here first, so a value fgrad
    has no dtype for (None, a string, a ragged list, complex) is refused,
    naming the function called, even where the operand is converted to a given dtype.
    """
    if isinstance(x, HasSpec):
        return x.dtype
    if type(x) in _PYTHON_DTYPE:
        return _PYTHON_DTYPE[type(x)]
    if isinstance(x, Dim):
        return DType.i32
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
    """The dtype operands promote to, as in jax.numpy (x64 off): bool < u32 < i32 < f16 < f32
    (u32 with i32 gives i32). Python numbers are weak: an int takes the integer or float dtype
    beside it and a float the float dtype (u32 + 3 is u32, f16 + 0.5 is f16); alone, or beside
    lower kinds, they are i32 and f32."""
    dt = builtins.max((_dtype(x) for x in xs if type(x) not in _WEAK), key=_RANK.__getitem__, default=DType.bool)
    for x in xs:
        weak = _WEAK.get(type(x))
        if weak is not None and _KIND[dt.np.kind] < _KIND[weak.np.kind]:
            dt = weak
    return dt


def _float_dtype(dt: DType) -> DType:
    """The dtype a float function of a `dt` value computes in: `dt` itself if a float, else
    f32, as jax.numpy's (integers and bools convert to the default float)."""
    return dt if dt.is_float else DType.f32


def asarray(x: ArrayLike, dtype: str | DType | None = None) -> Tensor | np.ndarray:
    """`x` as an fgrad value: Tensors pass through (cast if `dtype` differs),
    numbers and arrays become constants (eagerly, arrays of fgrad's dtypes)."""
    have = _dtype(x)
    want = have if dtype is None else _as_dtype(dtype)
    if isinstance(x, Tensor):
        check_live(x)
        return x if x.dtype is want else bind(astype_p, x, dtype=want)
    if isinstance(x, Dim):  # a symbol as a number: its value at call time
        if current_trace() is None:
            raise ShapeError(f"{user_call()}: the symbol {x} has a value only inside a traced function", user_site())
        return asarray(bind(dim_size_p, dim=x), want)
    if 0 in _shape(x):
        raise ShapeError(f"{user_call()}: got an empty array of shape {_shape(x)}; fgrad values have at least "
                         "one element", user_site())
    try:
        value = _host_constant(x, want)
    except OverflowError as e:
        raise DTypeError(f"{user_call()}: {e}; use a float, or values that fit", user_site()) from None
    return bind(constant_p, value=value)


def _host_constant(x: Any, dtype: DType) -> Const:
    """A number or array of the user's as a Const of `dtype`, converted by astype's rules.
    Integers that do not fit raise OverflowError, as in JAX, instead of wrapping silently: an
    array's integers must fit the dtype fgrad reads the array as (int64 as i32, uint64 as u32);
    a Python int must fit an integer `dtype` or, as JAX's Python ints are i32, i32 (so
    `u32 + -1` wraps, as in JAX)."""
    arr = np.asarray(x)
    own = dtype if type(x) is int else DType.of(arr.dtype) if arr.dtype.kind in "iu" else None
    if own is not None and own.is_int and dtype.is_int:
        ranges = [np.iinfo(own.np)] + ([I32] if type(x) is int else [])
        lo, hi = builtins.min(int(r.min) for r in ranges), builtins.max(int(r.max) for r in ranges)
        if arr.size and not (lo <= arr.min() and arr.max() <= hi):
            bad = arr.max() if arr.max() > hi else arr.min()
            raise OverflowError(f"the integer {bad} does not fit {own} ({lo}..{hi})")
    return Const.of(P.convert(arr, dtype), dtype)


def _as_dtype(dtype: str | DType, name: str = "asarray") -> DType:
    try:
        return DType.named(dtype)
    except DTypeError as e:
        raise DTypeError(f"{name}: {e}", user_site()) from None


def _shape(x: ArrayLike) -> tuple[int, ...]:
    return tuple(np.shape(x)) if not isinstance(x, Tensor) else x.shape


def _broadcast_shapes(*shapes: tuple[int | Dim, ...]) -> tuple[int | Dim, ...] | None:
    """NumPy's broadcast of `shapes` (None where they do not broadcast). A symbol broadcasts with
    itself and with 1 only: its values are unknown while tracing."""
    ndim = builtins.max(map(len, shapes), default=0)
    out = []
    for k in range(ndim):
        sizes = {s[k - ndim + len(s)] for s in shapes if k - ndim + len(s) >= 0} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _broadcast(name: str, *xs: Tensor | np.ndarray) -> list[Tensor | np.ndarray]:
    shapes = [_shape(x) for x in xs]
    shape = _broadcast_shapes(*shapes)
    if shape is None:
        raise ShapeError(f"{name}: cannot broadcast {' with '.join(map(str, shapes))}", user_site())
    return [broadcast_to(x, shape) for x in xs]


def _elementwise(op: Primitive, *args: ArrayLike, dtype: DType | None = None) -> Tensor | np.ndarray:
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


def _unary(op: Primitive, dtype: Callable[[ArrayLike], DType], doc: str) -> Callable[..., Tensor | np.ndarray]:
    """The public function of an elementwise primitive: `op` on x converted to `dtype(x)`."""

    def fn(x: ArrayLike, **keywords: Any) -> Tensor | np.ndarray:
        _no_keywords(op.name, keywords)
        return bind(op, asarray(x, dtype(x)))

    fn.__name__ = fn.__qualname__ = op.name
    fn.__code__ = fn.__code__.replace(co_name=op.name)  # tracebacks and user_call() say `exp`, not `fn`
    fn.__doc__ = doc.format(op.name)
    return fn


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
    """Mean over `axis` (all axes if None), in x's float dtype (f32 for integers and bools)."""
    x = asarray(x, _float_dtype(_dtype(x)))
    axes = _axes("mean", _shape(x), axis)
    sizes = [_shape(x)[a] for a in axes]
    scale = 1.0 / math.prod(d for d in sizes if not isinstance(d, Dim))
    symbols = [d for d in sizes if isinstance(d, Dim)]
    if symbols:  # their values are known at call time: the scale divides by them there
        for d in symbols:
            scale = divide(scale, d)
        scale = astype(scale, _dtype(x))
    return multiply(sum(x, axes, keepdims), scale)


def max(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Maximum over `axis` (all axes if None); NaN wins; bools give bool (any)."""
    return _pick_reduce(max_p, x, axis, keepdims)


def min(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Minimum over `axis` (all axes if None); NaN wins; bools give bool (all)."""
    return _pick_reduce(min_p, x, axis, keepdims)


def _pick_reduce(op: Primitive, x: ArrayLike, axis: int | Sequence[int] | None, keepdims: bool) -> Tensor | np.ndarray:
    x = asarray(x)
    axes = _axes(op.name, _shape(x), axis)
    out = bind(op, x, axes=axes) if axes else x
    return _keepdims(out, _shape(x), axes) if keepdims else out


def argmax(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Index of the largest value along `axis` (of the flattened x if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy."""
    return _arg_extreme(argmax_p, x, axis, keepdims)


def argmin(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """Index of the smallest value along `axis` (of the flattened x if None), as i32:
    the first one on ties, the first NaN if there is one, as in NumPy."""
    return _arg_extreme(argmin_p, x, axis, keepdims)


def _arg_extreme(op: Primitive, x: ArrayLike, axis: int | None, keepdims: bool) -> Tensor | np.ndarray:
    x = asarray(x, _arith_dtype(x))  # bools count as 0 and 1
    shape = _shape(x)
    if axis is None:
        flat = bind(op, reshape(x, (-1,)), axes=(0,))
        return reshape(flat, (1,) * len(shape)) if keepdims else flat
    axes = (_one_axis(op.name, x, axis),)
    out = bind(op, x, axes=axes)
    return _keepdims(out, shape, axes) if keepdims else out


def _one_axis(name: str, x: Tensor | np.ndarray, axis: int) -> int:
    if not isinstance(axis, (int, np.integer)):
        raise ShapeError(f"{name}: axis must be a single integer, got {axis!r}", user_site())
    return _axes(name, _shape(x), axis)[0]


def softmax(x: ArrayLike, axis: int = -1) -> Tensor | np.ndarray:
    """exp(x) / sum(exp(x)) along `axis`, computed stably (the sum in x's `wide` dtype)."""
    x = asarray(x, _float_dtype(_dtype(x)))
    return bind(softmax_p, x, axis=_one_axis("softmax", x, axis))


def log_softmax(x: ArrayLike, axis: int = -1) -> Tensor | np.ndarray:
    """x - logsumexp(x) along `axis`, computed stably (the sum in x's `wide` dtype)."""
    x = asarray(x, _float_dtype(_dtype(x)))
    return bind(log_softmax_p, x, axis=_one_axis("log_softmax", x, axis))


def logsumexp(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor | np.ndarray:
    """log(sum(exp(x))) over `axis`, shifted by the (gradient-free) max for stability, as
    `jax.nn.logsumexp`: -inf where every value is -inf (a fully masked row), +inf where one is
    +inf. Where every value is -inf the gradient is 0, not NaN (no value moves the result)."""
    x = asarray(x, _float_dtype(_dtype(x)))
    axes = _axes("logsumexp", _shape(x), axis)
    m = max(x, axes, keepdims=True)
    m = stop_gradient(where(less(abs(m), math.inf), m, 0.0))  # a shift by -inf or inf would give inf - inf
    total = sum(exp(subtract(x, m)), axes, keepdims=True)
    empty = equal(total, 0.0)  # log(0) = -inf, but its derivative 1/0 times exp(-inf) = 0 is NaN
    out = add(where(empty, -math.inf, log(where(empty, 1.0, total))), m)
    return out if keepdims else reshape(out, tuple(d for i, d in enumerate(_shape(x)) if i not in axes))


def cumsum(x: ArrayLike, axis: int | None = None, dtype: str | DType | None = None,
           reverse: bool = False) -> Tensor | np.ndarray:
    """Cumulative sum along `axis` (of the flattened x if None), as `jnp.cumsum`: bools count
    as i32, and `dtype` converts x first (with dtype bool, a running or, as bools add in
    NumPy and jax.numpy). With `reverse`, each entry sums from itself to the end of the axis,
    as `jax.lax.cumsum(..., reverse=True)`."""
    x = asarray(x, _arith_dtype(x) if dtype is None else _as_dtype(dtype, "cumsum"))
    if _dtype(x) is DType.bool:  # some value so far is True: the count so far is not 0
        return not_equal(cumsum(x, axis, DType.i32, reverse), 0)
    if not isinstance(reverse, (bool, np.bool_)):
        raise TraceError(f"cumsum: reverse must be True or False, got {_brief(reverse)}", user_site())
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    return bind(cumsum_p, x, axis=_one_axis("cumsum", x, axis), reverse=bool(reverse))


# -- shapes ------------------------------------------------------------------


def _shape_arg(name: str, shape: Any) -> tuple[int | Dim, ...]:
    if not isinstance(shape, (int, np.integer, Dim, tuple, list, np.ndarray)):
        raise ShapeError(f"{name}: shape {shape!r} must be a tuple of integers", user_site())
    dims = (shape,) if isinstance(shape, (int, np.integer, Dim)) else tuple(shape)
    if not all(isinstance(d, Dim) or isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dims):
        raise ShapeError(f"{name}: shape {shape!r} must be a tuple of integers", user_site())
    return tuple(d if isinstance(d, Dim) else int(d) for d in dims)


def _inferred(old: tuple[int | Dim, ...], shape: tuple[int | Dim, ...]) -> int | Dim | None:
    """The size the one -1 of `shape` stands for in a reshape of `old` (None if there is none):
    what is left of old's elements, an integer or, where a symbol is left over alone, the symbol."""
    fixed = math.prod(d for d in shape if not isinstance(d, Dim) and d != -1)
    total = math.prod(d for d in old if not isinstance(d, Dim))
    left = [d for d in old if isinstance(d, Dim)]  # the symbols of `old` that `shape` does not name
    for d in shape:
        if isinstance(d, Dim):
            if d not in left:
                return None
            left.remove(d)
    if fixed < 1 or total % fixed:
        return None
    if not left:
        return total // fixed
    if len(left) == 1 and total == fixed:
        return left[0]
    raise ShapeError(f"reshape: cannot reshape {old} into {shape}: -1 would be a product with the symbol "
                     f"{left[0]} (fgrad forms no product or split of a symbol)", user_site())


def reshape(x: ArrayLike, shape: int | Dim | Sequence[int | Dim]) -> Tensor | np.ndarray:
    """Same elements, new shape; one dimension may be -1 (inferred). A symbolic dimension stays a
    factor of an axis of its own: (T, 64) reshapes into (T, 4, 16) or (-1, 4, 16), not (T*64,)."""
    x = asarray(x)
    old = _shape(x)
    shape = _shape_arg("reshape", shape)
    if shape.count(-1) == 1:
        size = _inferred(old, shape)
        if size is not None:
            shape = tuple(size if d == -1 else d for d in shape)
    if shape == old:
        return x
    if any(not isinstance(d, Dim) and d < 1 for d in shape):
        raise ShapeError(f"reshape: cannot reshape {old} into {shape}", user_site())
    try:
        check_reshape(old, shape)
    except ShapeError as e:
        raise ShapeError(str(e), user_site()) from None
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
    batch = _broadcast_shapes(a2[:-2], b2[:-2])
    if batch is None:
        raise ShapeError(f"matmul: batch dimensions {a2[:-2]} and {b2[:-2]} do not broadcast in {sa} @ {sb}", user_site())
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
      index outside [0, n) gives `fill_value`, by default NaN for floats, the
      least i32 for i32, the largest u32 for u32 and True for bool. Those
      entries get no gradient.
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
    traced = isinstance(indices, Tensor) or isinstance(_shape(x)[axis], Dim)
    indices = _indices("take", indices, axis, _shape(x), normalize=mode == "fill")
    if not traced:  # constants were checked to lie in range: nothing to fill
        mode, fill = "clip", None
    return bind(take_p, x, indices, axis=axis, mode=mode, fill_value=fill)


def _default_fill(dtype: DType) -> float | int | bool:
    """What out-of-range traced indices read in take's "fill" mode, as in JAX: NaN for floats,
    the least value of a signed integer dtype and the largest of an unsigned one, True for bool."""
    if dtype.is_float:
        return math.nan
    if dtype.is_int:
        info = np.iinfo(dtype.np)
        return int(info.min if info.min < 0 else info.max)
    return True


def _fill_value(name: str, value: Any, dtype: DType) -> Const:
    return _static_scalar(name, "fill_value", _default_fill(dtype) if value is None else value, dtype)


def _static_scalar(name: str, what: str, value: Any, dtype: DType) -> Const:
    """A number known while tracing (a fill or pad value) as a Const of `dtype`."""
    if isinstance(value, Tensor) or type(value) not in _PYTHON_DTYPE and not isinstance(value, (np.generic, np.ndarray)) \
            or np.ndim(value) != 0:
        raise TraceError(f"{name}: {what} must be a static number, got {_brief(value)}", user_site())
    _dtype(value)  # refuses strings and complex numbers
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
    """Indices into axis `axis` of `shape`: traced ones as they are (i32 or u32), constants as
    i32. With `normalize`, constants are checked against the axis, and negative indices
    (constant or traced) count from the end."""
    n = shape[axis]
    _dtype(indices)  # refuses ragged lists, strings and None, naming the function
    if isinstance(n, Dim) and not isinstance(indices, Tensor):  # no check against a symbol: as if traced
        if np.asarray(indices).dtype.kind not in "iu":
            raise DTypeError(f"{name}: indices must be integers, got {np.asarray(indices).dtype}", user_site())
        indices = asarray(indices, DType.i32)
    if isinstance(indices, Tensor):
        if not indices.dtype.is_int:
            raise DTypeError(f"{name}: indices must be integers (i32 or u32), got {indices.spec}", user_site())
        signed = indices.dtype.np.kind == "i"  # u32 indices are never negative
        return where(less(indices, 0), add(indices, n), indices) if normalize and signed else indices
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


def dynamic_slice(operand: ArrayLike, start_indices: Any, slice_sizes: Sequence[int]) -> Tensor | np.ndarray:
    """The window of `slice_sizes` whose first corner is at `start_indices`, as
    `jax.lax.dynamic_slice`.

    `start_indices` holds one index per axis: ints, or i32 scalars that may be traced (as a
    sequence, or one 1-D i32 array). As in JAX, a negative start counts from the end, and
    then each start is clamped into [0, n - size], so that the window lies inside `operand`
    (a GPU cannot raise). The gradient goes to the window read.
    """
    x = asarray(operand)
    shape = _shape(x)
    sizes = _sizes("dynamic_slice", "slice_sizes", slice_sizes, shape)
    return bind(dynamic_slice_p, x, *_starts("dynamic_slice", start_indices, shape), slice_sizes=sizes)


def dynamic_update_slice(operand: ArrayLike, update: ArrayLike, start_indices: Any) -> Tensor | np.ndarray:
    """`operand` with the window of `update`'s shape at `start_indices` replaced by `update`,
    as `jax.lax.dynamic_update_slice`.

    `update` has operand's rank and dtype (a Python number takes operand's dtype, as JAX's
    weakly typed ones) and fits inside it. Start indices are read as in `dynamic_slice`: a
    negative one counts from the end, then each is clamped so that the window fits. The
    gradient goes to `update` through the window and to `operand` everywhere else.
    """
    x = asarray(operand)
    u = asarray(update, _dtype(x) if type(update) in _PYTHON_DTYPE else None)
    if _dtype(u) is not _dtype(x):
        raise DTypeError(f"dynamic_update_slice: update {spec_of(u)} and operand {spec_of(x)} dtypes differ; "
                         "convert one with astype", user_site())
    shape = _shape(x)
    _sizes("dynamic_update_slice", "update's shape", _shape(u), shape)
    return bind(dynamic_update_slice_p, x, u, *_starts("dynamic_update_slice", start_indices, shape))


def _sizes(name: str, what: str, sizes: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A window's shape in `shape`: one size in 1..n per axis."""
    if not isinstance(sizes, (tuple, list)) or not all(isinstance(k, (int, np.integer)) and not isinstance(
            k, (bool, np.bool_)) for k in sizes):
        raise ShapeError(f"{name}: {what} must be a tuple of integers, got {_brief(sizes)}", user_site())
    sizes = tuple(int(k) for k in sizes)
    symbolic = next((n for n in shape if isinstance(n, Dim)), None)
    if symbolic is not None:
        raise ShapeError(f"{name}: a window of {shape}, whose axis is the symbol {symbolic}: windows are taken of "
                         "fixed sizes only; gather rows of a symbolic axis with fg.take", user_site())
    if len(sizes) != len(shape) or not all(1 <= k <= n for k, n in zip(sizes, shape)):
        raise ShapeError(f"{name}: {what} {sizes} does not fit in {shape}: one size in 1..n per axis", user_site())
    return sizes


def _starts(name: str, start_indices: Any, shape: tuple[int, ...]) -> list[Tensor | np.ndarray]:
    """One i32 scalar start per axis of `shape`, a negative one counting from the end (JAX's
    dynamic slicing): from a sequence of ints and integer scalars, or a 1-D integer array.
    A u32 start is never negative."""
    if isinstance(start_indices, Tensor) and start_indices.ndim == 1:
        start_indices = [getitem(start_indices, k) for k in range(start_indices.shape[0])]
    elif isinstance(start_indices, np.ndarray) and start_indices.ndim == 1:
        start_indices = list(start_indices)
    if not isinstance(start_indices, (tuple, list)):
        raise ShapeError(f"{name}: start_indices must be a sequence of one index per axis of {shape}, got "
                         f"{_brief(start_indices)}", user_site())
    if len(start_indices) != len(shape):
        raise ShapeError(f"{name}: {len(start_indices)} start indices for the {len(shape)} axes of {shape}",
                         user_site())
    starts = []
    for i, n in zip(start_indices, shape):
        if isinstance(i, Tensor):
            if i.shape or not i.dtype.is_int:
                raise DTypeError(f"{name}: a start index must be an integer scalar, got a Tensor {i.spec}",
                                 user_site())
            signed = i.dtype.np.kind == "i"  # an unsigned start past n clamps as n does, which fits i32
            starts.append(where(less(i, 0), add(i, n), i) if signed else astype(minimum(i, n), DType.i32))
        elif np.ndim(i) == 0 and np.asarray(i).dtype.kind in "iu":  # held within [0, n], where it clamps alike
            starts.append(asarray(builtins.min(builtins.max(int(i) + n if i < 0 else int(i), 0), n), DType.i32))
        else:
            raise DTypeError(f"{name}: start index {_brief(i)} is not an integer scalar", user_site())
    return starts


def _count(name: str, what: str, value: Any) -> int:
    """A size argument: a positive Python or NumPy integer (not a bool, not a float)."""
    if isinstance(value, Tensor):
        raise TraceError(TRACER_INDEX.format(what=f"{name}: {what}", spec=value.spec), user_site())
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 1:
        raise ShapeError(f"{name}: {what} must be a positive integer, got {_brief(value)}", user_site())
    return int(value)


def arange(start: int | float, stop: int | float | None = None, step: int | float = 1, dtype: str | DType | None = None) -> Tensor | np.ndarray:
    """Evenly spaced values in [start, stop), as in NumPy: i32 unless a bound is a float.
    `arange(T)` of a symbol T counts up to its value at call time."""
    if stop is None and isinstance(start, Dim):
        return asarray(bind(iota_p, shape=(start,), axis=0, dtype=DType.i32),
                       DType.i32 if dtype is None else _as_dtype(dtype, "arange"))
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
    # The count is of the result's dtype where iota has it (every numeric one), else i32.
    out = bind(iota_p, shape=(count,), axis=0, dtype=dt if dt.is_int or dt.is_float else DType.i32)
    if start == 0 and step == 1:
        return asarray(out, dt)
    return asarray(add(multiply(asarray(out, dt), step), start), dt)


def one_hot(x: ArrayLike, num_classes: int, dtype: str | DType = "f32") -> Tensor | np.ndarray:
    """One-hot encoding of integer labels along a new last axis, as `jax.nn.one_hot`:
    a label outside [0, num_classes), a negative one included, gives a row of zeros."""
    num_classes = _count("one_hot", "num_classes", num_classes)
    if not _dtype(x).is_int:
        raise DTypeError(f"one_hot: labels must be integers, got {spec_of(asarray(x))}", user_site())
    return asarray(equal(expand_dims(x, -1), arange(num_classes)), _as_dtype(dtype, "one_hot"))


def causal_mask(n: int | Dim) -> Tensor | np.ndarray:
    """(n, n) bool mask that is True where key position j <= query position i (may attend);
    n may be a symbol."""
    n = n if isinstance(n, Dim) else _count("causal_mask", "n", n)
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
    Slice bounds must be static: a window at a traced start i is x[i + fg.arange(k)], or
    `dynamic_slice`, which clamps it into range.
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
        if isinstance(n, Dim) and isinstance(k, builtins.slice):  # a symbolic axis is kept whole
            if (k.start, k.stop, k.step) not in ((None, None, None), (0, None, None), (None, None, 1), (0, None, 1)):
                raise ShapeError(f"getitem: slice {k.start}:{k.stop}:{k.step} of the symbolic axis {n} of {shape}: a "
                                 "symbolic axis is sliced only whole; pick entries of it with an int or fg.take",
                                 user_site())
            starts.append(0), stops.append(n), steps.append(1), out_shape.append(n)
        elif isinstance(k, builtins.slice):
            traced = [b for b in (k.start, k.stop, k.step) if isinstance(b, Tensor)]
            if traced:
                raise TraceError(TRACER_INDEX.format(what=f"getitem: a slice bound on axis {dim} of {shape}",
                                                     spec=traced[0].spec), user_site())
            bad = [b for b in (k.start, k.stop, k.step) if b is not None and not hasattr(b, "__index__")]
            if any(isinstance(b, Dim) for b in bad):
                raise ShapeError(f"getitem: slice bound {bad[0]} on axis {dim} of {shape} is a symbol: a slice has a "
                                 f"fixed size; take the first {bad[0]} entries with fg.take(x, fg.arange({bad[0]}), "
                                 f"axis={dim})", user_site())
            if bad:
                raise ShapeError(f"getitem: slice bound {bad[0]!r} on axis {dim} of {shape} is not an integer",
                                 user_site())
            if k.step is not None and k.step < 1:
                raise ShapeError(f"getitem: slice step must be >= 1, got {k.step} on axis {dim} of {shape}", user_site())
            a, b, s = k.indices(n)
            if len(range(a, b, s)) == 0:
                raise ShapeError(f"getitem: slice {a}:{b}:{s} of axis {dim} with size {n} is empty", user_site())
            starts.append(a), stops.append(b), steps.append(s), out_shape.append(len(range(a, b, s)))
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) and not isinstance(n, Dim):
            if not -n <= k < n:
                raise ShapeError(f"getitem: index {k} is out of bounds for axis {dim} with size {n} of {shape}", user_site())
            starts.append(int(k) % n), stops.append(int(k) % n + 1), steps.append(1)
            advanced.append(position)
        elif isinstance(k, (Tensor, list, np.ndarray)) and _dtype(k) is not DType.bool or isinstance(n, Dim) \
                and isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            # An int on a symbolic axis cannot be checked while tracing: it is gathered as a traced index is.
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
Tensor.argmax, Tensor.argmin, Tensor.cumsum = argmax, argmin, cumsum
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
    np.argmax: "fg.argmax", np.argmin: "fg.argmin", np.cumsum: "fg.cumsum", np.reshape: "fg.reshape",
    np.transpose: "fg.transpose", np.expand_dims: "fg.expand_dims", np.squeeze: "fg.squeeze",
    np.broadcast_to: "fg.broadcast_to",
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
