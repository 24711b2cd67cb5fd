"""jax.numpy's constants and dtype names, the questions asked of dtypes (result_type, finfo,
issubdtype, can_cast, ...), of a value's shape (shape, ndim, size, isscalar), and `array`.

The dtype names are fgrad's DTypes (`fg.float32 is fg.f32`), so they go wherever a dtype does:
`fg.zeros(3, dtype=fg.float32)`, `x.astype(fg.int32)`, `x.dtype == fg.float16`. As jax.numpy
with x64 off, `float64` and `int64` (and `double`, `float_`, `int_`, `uint64`, `uint`) name f32,
i32 and u32; `bool` (fg.numpy's, beside `bool_`) is DType.bool. `bfloat16` is ml_dtypes' (JAX's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from fgrad.errors import DTypeError, TraceError
from fgrad.ir import DType, HasSpec
from fgrad.trace import Tensor, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _axes, _axis_tuple, _copy_flag, _dtype, _placed, _shape, asarray, result_dtype,
)
from fgrad.numpy.shapes import reshape, stack

__all__ = [  # the public names, re-exported by fgrad.numpy and fgrad
    "e", "euler_gamma", "inf", "nan", "newaxis", "pi",
    "bfloat16", "bool_", "double", "float_", "float16", "float32", "float64", "int_", "int8", "int16", "int32", "int64",
    "single", "uint", "uint8", "uint16", "uint32", "uint64",
    "floating", "generic", "inexact", "integer", "number", "signedinteger", "unsignedinteger",
    "array", "can_cast", "copy", "dtype", "finfo", "iinfo", "isdtype", "isscalar", "issubdtype", "ndim",
    "promote_types", "result_type", "shape", "size",
]

pi, e, inf, nan = math.pi, math.e, math.inf, math.nan
euler_gamma = 0.5772156649015329
newaxis = None

float32, float16, bfloat16, bool_ = DType.f32, DType.f16, DType.bf16, DType.bool
int32, uint32, int16, uint16, int8, uint8 = DType.i32, DType.u32, DType.i16, DType.u16, DType.i8, DType.u8


def _scalar_type_call(self: DType, x: ArrayLike) -> Tensor | np.ndarray:
    """`fg.float32(x)`: x as an array of this dtype, as jax.numpy's scalar types make one
    (`jnp.float32(1.5)`, `jnp.int32(x)` of a traced x)."""
    return asarray(x, self)


DType.__call__ = _scalar_type_call  # type: ignore[method-assign]  # the IR's dtypes know nothing of arrays
single = float32
# NOTE: jax.numpy with x64 off (fgrad's only mode) truncates the 64-bit types to these.
float64, int64, uint64 = DType.f32, DType.i32, DType.u32
double, float_, int_, uint = float64, float64, int64, uint64
# NumPy's abstract scalar types, as jax.numpy re-exports them, for issubdtype(x.dtype, fg.floating).
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger

_DTYPE_LIKE = (str, DType, np.dtype, type)


def _named(name: str, x: Any) -> DType:
    try:
        return DType.named(x)
    except DTypeError as err:
        raise DTypeError(f"{name}: {err}", user_site()) from None


def dtype(obj: Any) -> DType:
    """The fgrad dtype `obj` names (a DType, name, NumPy dtype or scalar type), or the dtype of a
    value (Tensor, Array, NumPy array or number), as `jnp.dtype`; float64 names f32 (x64 off)."""
    return _named("dtype", obj) if isinstance(obj, _DTYPE_LIKE) else _dtype(obj)


def _operand(name: str, x: Any) -> Any:
    """What result_dtype reads for one argument of result_type: a dtype as a strongly typed scalar
    of it; Python's int and float types as weak values, as jax.numpy; a value as it is."""
    if x is int or x is float:
        return x(0)
    return np.zeros((), _named(name, x).np) if isinstance(x, _DTYPE_LIKE) else x


def result_type(*args: Any) -> DType:
    """The dtype jax.numpy (x64 off) promotes `args` (values or dtypes) to: the highest of
    bool < u32 < i32 < f16 < f32 (u32 with i32 gives i32); Python numbers, and the types `int`
    and `float`, are weak (f16 with 1.0 stays f16)."""
    if not args:
        raise TraceError("result_type: at least one array or dtype is required", user_site())
    return result_dtype(*(_operand("result_type", a) for a in args))


def promote_types(a: Any, b: Any) -> DType:
    """The dtype two dtypes promote to, as `jnp.promote_types` (both are strongly typed)."""
    return result_dtype(np.zeros((), _named("promote_types", a).np), np.zeros((), _named("promote_types", b).np))


def _dtype_of(name: str, x: Any) -> DType:
    return _named(name, x) if isinstance(x, _DTYPE_LIKE) else _dtype(x)


def finfo(dtype: Any) -> np.finfo:
    """Machine limits of a float dtype (or of a value's), as `jnp.finfo`: eps, max, tiny, bits..."""
    dt = _dtype_of("finfo", dtype)
    if not dt.is_float:
        raise DTypeError(f"finfo: {dt} is not a float dtype; iinfo gives the limits of integers", user_site())
    return ml_dtypes.finfo(dt.np)  # NumPy's finfo, which knows bfloat16 too


def iinfo(int_type: Any) -> np.iinfo:
    """Limits of an integer dtype (or of a value's), as `jnp.iinfo`: min, max, bits."""
    dt = _dtype_of("iinfo", int_type)
    if not dt.is_int:
        raise DTypeError(f"iinfo: {dt} is not an integer dtype; finfo gives the limits of floats", user_site())
    return np.iinfo(dt.np)


_ABSTRACT = (generic, number, inexact, floating, integer, signedinteger, unsignedinteger, np.complexfloating)


def _np_type(name: str, x: Any) -> Any:
    """A NumPy type for np.issubdtype: NumPy's abstract types as they are, a dtype (or a value's)
    as its fgrad dtype's scalar type (np.float64 as float32, x64 off)."""
    return x if isinstance(x, type) and x in _ABSTRACT else _dtype_of(name, x).np.type


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """Whether dtype `arg1` is `arg2` or below it in NumPy's type hierarchy, as `jnp.issubdtype`:
    issubdtype(x.dtype, fg.floating). bfloat16 sits among the floats, as in JAX's hierarchy."""
    a, b = _np_type("issubdtype", arg1), _np_type("issubdtype", arg2)
    if DType.bf16.type in (a, b):
        return a is b or b in _ABSTRACT and a is DType.bf16.type and np.issubdtype(np.float16, b)
    return bool(np.issubdtype(a, b))


_KINDS = {
    "bool": {DType.bool}, "signed integer": {d for d in DType if d.kind == "i"},
    "unsigned integer": {d for d in DType if d.kind == "u"}, "integral": {d for d in DType if d.is_int},
    "real floating": {d for d in DType if d.is_float}, "complex floating": set(),
    "numeric": {d for d in DType if d.kind != "b"},
}


def isdtype(dtype: Any, kind: str | Any | tuple[Any, ...]) -> bool:
    """Whether `dtype` is of `kind` (the array API's): a kind name ('bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric'), a dtype, or
    a tuple of these, as `jnp.isdtype`."""
    dt = _named("isdtype", dtype)
    return any(dt in _kind(k) for k in (kind if isinstance(kind, tuple) else (kind,)))


def _kind(k: Any) -> set[DType]:
    if isinstance(k, str) and k in _KINDS:
        return _KINDS[k]
    try:
        return {DType.named(k)}
    except DTypeError:
        raise DTypeError(f"isdtype: unknown kind {k!r}; expected one of {', '.join(map(repr, _KINDS))}, or a dtype",
                         user_site()) from None


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """Whether NumPy's casting rule `casting` ('no', 'equiv', 'safe', 'same_kind', 'unsafe') allows
    a cast between the two dtypes (or a value's dtype to `to`), as `jnp.can_cast`: i32 to f32 is
    not safe."""
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise DTypeError(f"can_cast: casting={casting!r} must be 'no', 'equiv', 'safe', 'same_kind' or 'unsafe'",
                         user_site())
    return bool(np.can_cast(_dtype_of("can_cast", from_).np, _named("can_cast", to).np, casting))


# -- what a value looks like -----------------------------------------------------------------------


def shape(a: ArrayLike) -> tuple[int, ...]:
    """The shape of a value (Tensor, Array, NumPy array, nested list or number), as `jnp.shape`."""
    return _shape(a)


def ndim(a: ArrayLike) -> int:
    """The number of axes of a value, as `jnp.ndim`."""
    return len(_shape(a))


def size(a: ArrayLike, axis: int | Sequence[int] | None = None) -> int:
    """The number of elements of a value, or along `axis` (an int or a tuple), as `jnp.size`."""
    dims = _shape(a)
    if axis is None:
        return math.prod(dims)
    axes = _axis_tuple("size", axis)
    for k in axes:
        if isinstance(k, (int, np.integer)) and not -len(dims) <= k < len(dims):
            raise TraceError(f"size: axis {k} is out of range for {len(dims)} axes of {dims}", user_site())
    return math.prod(dims[k] for k in _axes("size", dims, axes))  # refuses other types and repeats


def isscalar(element: Any) -> bool:
    """Whether `element` is a scalar: a Python or NumPy number, or a value with no axes (a 0-d
    Tensor or array), as `jnp.isscalar`."""
    if isinstance(element, (HasSpec, np.ndarray)):
        return len(element.shape) == 0
    return isinstance(element, (bool, int, float, complex)) or bool(np.isscalar(element))


def _leaves(obj: Any) -> list[Any]:
    return [leaf for item in obj for leaf in _leaves(item)] if isinstance(obj, (list, tuple)) else [obj]


def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = "K", ndmin: int = 0, *,
          device: Any = None, out_sharding: Any = None) -> Tensor | np.ndarray:
    """`object` as a value, as `jnp.array`: an array, number, or nested lists and tuples of these,
    traced values among them (stacked); `dtype` by default jax.numpy's promotion of the elements
    (Python numbers weak: [np.float16(1), 2.0] is f16); `ndmin` leading axes of size 1 at least.
    `copy` is accepted (fgrad values are immutable); `device` places the value, as `asarray`'s."""
    _copy_flag("array", copy)
    return _placed("array", _array(object, dtype, order, ndmin), device, out_sharding)


def _array(object: Any, dtype: Any, order: str | None, ndmin: int) -> Tensor | np.ndarray:
    if order is not None and order != "K":
        raise TraceError(f"array: only order='K' is implemented, as in jax.numpy, got {order!r}", user_site())
    if isinstance(ndmin, bool) or not isinstance(ndmin, (int, np.integer)) or not 0 <= ndmin <= 64:
        raise TraceError(f"array: ndmin must be an integer from 0 to 64 (NumPy's most axes), got {ndmin!r}",
                         user_site())
    want = None if dtype is None else _named("array", dtype)
    leaves = _leaves(object) if isinstance(object, (list, tuple)) else []
    if want is None and leaves:  # promoted as jax.numpy, not as NumPy reads the list (all float64)
        want = result_dtype(*leaves)
    if any(isinstance(leaf, Tensor) for leaf in leaves):
        out = stack([_array(item, want, "K", 0) for item in object])
    else:
        out = asarray(object, want)
    dims = _shape(out)
    return out if len(dims) >= ndmin else reshape(out, (1,) * (ndmin - len(dims)) + dims)


def copy(a: ArrayLike, order: str | None = None) -> Tensor | np.ndarray:
    """A copy of `a`, as `jnp.copy`: fgrad values are immutable, so `a` as a value."""
    return array(a, copy=True, order="K" if order is None else order)
