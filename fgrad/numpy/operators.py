"""The operators and methods of traced values, and NumPy's ufunc and function dispatch on them:
thin wrappers over the public functions."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.errors import IMMUTABLE, NUMPY_FUNCTION, FgradError, ShapeError, TraceError
from fgrad.ir import DType
from fgrad.trace import ARRAY_LIKE_WRAPPERS, HostArray, Tensor, called_from_numpy, user_site
from fgrad.numpy import bitwise, elementwise, products
from fgrad.numpy.shapes import diagonal, ravel, repeat, reshape, squeeze, swapaxes, trace, transpose
from fgrad.numpy.elementwise import (
    abs, add, astype, clip, conj, conjugate, divide, divmod, equal, floor_divide, greater, greater_equal, less, less_equal,
    imag, multiply, neg, not_equal, pow, real, remainder, round, subtract,
)
from fgrad.numpy.reductions import (
    all, any, argmax, argmin, argsort, cumprod, cumsum, max, mean, min, prod, ptp, sort, std, sum, var,
)
from fgrad.numpy.products import dot, matmul
from fgrad.numpy.bitwise import bitcast_convert_type, bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift
from fgrad.numpy.indexing import _IndexUpdateHelper, choose, compress, getitem, take
from fgrad.numpy.searching import argpartition, nonzero, searchsorted
from fgrad.numpy.promotion import _raise_named


# ---------------------------------------------------------------------------
# Tensor operators and methods: thin wrappers over the functions above
# ---------------------------------------------------------------------------


def _flip(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda self, other: fn(other, self)


def varargs_shape(args: tuple[Any, ...]) -> Any:
    """A shape given as `x.reshape(2, 3)` or `x.reshape((2, 3))`."""
    return args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args


def _setitem(x: Tensor, key: Any, value: Any) -> None:
    raise TraceError(IMMUTABLE.format(what=f"a Tensor {x.spec}"), user_site())


# The operators of fgrad values, shared by Tensor (traced) and fg.Array (eager, on the device):
# `__name__` and, for the arithmetic ones, the reflected `__rname__`.
ARITHMETIC_OPERATORS = {"add": add, "sub": subtract, "mul": multiply, "truediv": divide, "pow": pow,
                        "floordiv": floor_divide, "mod": remainder, "divmod": divmod, "matmul": matmul, "and": bitwise_and, "or": bitwise_or, "xor": bitwise_xor,
                        "lshift": left_shift, "rshift": right_shift}
COMPARISON_OPERATORS = {"eq": equal, "ne": not_equal, "lt": less, "le": less_equal, "gt": greater,
                        "ge": greater_equal}  # Python reflects these itself: `1 < x` is `x > 1`
for _name, _fn in ARITHMETIC_OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _fn)
    setattr(Tensor, f"__r{_name}__", _flip(_fn))
for _name, _fn in COMPARISON_OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _fn)
del _name, _fn
Tensor.__neg__, Tensor.__pos__, Tensor.__abs__, Tensor.__invert__ = neg, lambda x: x, abs, invert
Tensor.__getitem__, Tensor.__setitem__ = getitem, _setitem
Tensor.at = property(_IndexUpdateHelper)  # x.at[key].set(values): JAX's indexed updates


def _host_getitem(x: HostArray, key: Any) -> Any:
    """An eager value indexed: by NumPy, unless by a traced index (a loop's counter), which the
    trace records as it would for a Tensor."""
    if isinstance(key, Tensor) or isinstance(key, tuple) and builtins.any(isinstance(k, Tensor) for k in key):
        return getitem(x, key)
    return np.ndarray.__getitem__(x, key)


HostArray.at = property(_IndexUpdateHelper)
HostArray.__getitem__ = _host_getitem
HostArray.block_until_ready = lambda x: x  # computed already


def _reshape(x: Any, *shape: Any, order: str = "C", out_sharding: Any = None) -> Any:
    """x.reshape(2, 3) or x.reshape((2, 3)), as `reshape` (order "F" fills the new shape first axis fastest)."""
    return reshape(x, varargs_shape(shape), order, out_sharding=out_sharding)


def _transpose(x: Any, *axes: Any) -> Any:
    """x.transpose(1, 0) or x.transpose((1, 0)); no axes reverses them."""
    return transpose(x, varargs_shape(axes) if axes else None)


def _flatten(x: Any, order: str = "C") -> Any:
    """x.flatten(): the values in one axis (a new value, as every fgrad value is)."""
    return ravel(x, order)


def _compress(x: Any, condition: Any, axis: int | None = None) -> Any:
    """x.compress(condition, axis): the slices of x where condition holds (`compress(condition, x)`)."""
    return compress(condition, x, axis)


def _view(x: Any, dtype: Any = None, type: None = None) -> Any:  # noqa: A002  (jax.Array.view's name)
    """x's bits read as `dtype` (None: x's own), as `jax.Array.view` (NumPy's): between widths the
    last axis holds as many bytes as before (an f32[4] viewed as u8 is u8[16]). An eager value, a
    NumPy array, also takes NumPy's view as another array type (`x.view(np.ndarray)`, `type=`),
    which code written for NumPy arrays asks of it."""
    wants_type = isinstance(dtype, builtins.type) and issubclass(dtype, np.ndarray)
    if isinstance(x, np.ndarray) and (type is not None or wants_type):
        return np.ndarray.view(x, dtype) if type is None else \
            np.ndarray.view(x, *([] if dtype is None else [dtype]), type=type)
    if type is not None:
        raise TraceError(f"view: type={type!r} is not supported, as in JAX", user_site())
    if dtype is None:
        return x
    try:
        if DType.named(dtype) is DType.bool:  # as JAX's: the bytes as u8s, each not 0 True
            return astype(_view(x, DType.u8), DType.bool)
        if DType.of(x.dtype) is DType.bool:
            x = astype(x, DType.u8)
        have, want = x.dtype.itemsize, DType.named(dtype).itemsize
        shape = tuple(x.shape)
        if have != want and not shape:
            raise ShapeError(f"view: a 0-d {x.dtype} array takes only a dtype of its itemsize ({have}), not {dtype}",
                             user_site())
        if have > want:  # each value's parts along the last axis
            return reshape(bitcast_convert_type(x, dtype), (*shape[:-1], shape[-1] * (have // want)))
        if have < want:
            if shape[-1] * have % want:
                raise ShapeError(f"view: the last axis of {x.dtype}{list(shape)} holds {shape[-1] * have} bytes, not a "
                                 f"multiple of {dtype}'s {want}", user_site())
            x = reshape(x, (*shape[:-1], shape[-1] * have // want, want // have))
        return bitcast_convert_type(x, dtype)
    except FgradError as e:
        _raise_named(e, "view")


# The methods of fgrad values, shared by Tensor (traced) and fg.Array (eager, on the device), as a
# jax.Array's: each is the public function of its name with the value first (`x.sum(0)` is `sum(x, 0)`).
METHODS: dict[str, Callable[..., Any]] = {
    "reshape": _reshape, "transpose": _transpose, "flatten": _flatten, "compress": _compress, "conjugate": conjugate,
    "view": _view,
    **{fn.__name__: fn for fn in (
        all, any, argmax, argmin, argpartition, argsort, astype, choose, clip, conj, conjugate, cumprod, cumsum,
        diagonal, dot, max, mean, min, nonzero, prod, ptp, ravel, repeat, round, searchsorted, sort, squeeze, std,
        sum, swapaxes, take, trace, var)},
}
# Properties computed from the value: `x.T` reverses the axes, `x.mT` swaps the last two; `real` and
# `imag` of real values (fgrad has no complex dtype) are the value and zeros.
PROPERTIES: dict[str, Callable[[Any], Any]] = {"T": transpose, "mT": lambda x: swapaxes(x, -1, -2), "real": real,
                                               "imag": imag}
for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
for _name, _fn in PROPERTIES.items():
    setattr(Tensor, _name, property(_fn))
del _name, _fn

# NumPy ufuncs on Tensors (`np.exp(t)`, `ndarray + t`) map to the fgrad functions of their names.
_UFUNCS = {ufunc: getattr(module, name) for module in (elementwise, bitwise, products) for name in module.__all__
           if isinstance(ufunc := getattr(np, name, None), np.ufunc)}


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
    np.take: "fg.take", np.dot: "fg.dot", np.clip: "fg.clip", np.linalg.norm: "fg.sqrt(fg.sum(x * x))",
    np.var: "fg.var", np.std: "fg.std", np.prod: "fg.prod", np.any: "fg.any", np.all: "fg.all",
    np.sort: "fg.sort", np.argsort: "fg.argsort", np.cumprod: "fg.cumprod", np.flip: "fg.flip", np.roll: "fg.roll",
    np.einsum: "fg.einsum", np.tensordot: "fg.tensordot", np.round: "fg.round", np.tile: "fg.tile",
    np.repeat: "fg.repeat", np.split: "fg.split", np.tril: "fg.tril", np.triu: "fg.triu",
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


# Eager values (HostArray) have a jax.Array's operators and methods, as Tensor and fg.Array do
# (`fg.arange(3) / 2` is float32, `x.sum()` of int32s int32), in place too (`x += 1` makes a new
# value); NumPy's own functions and ufuncs see them as the NumPy arrays they hold, as they see a
# jax.Array's values (`np.sum(x)` is NumPy's), and return NumPy arrays.
def _numpy_values(value: Any) -> Any:
    """`value` with every HostArray in it (through lists, tuples and dicts) as the NumPy array it holds."""
    if isinstance(value, HostArray):
        return np.ndarray.view(value, np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy_values(v) for v in value)
    if isinstance(value, dict):
        return {k: _numpy_values(v) for k, v in value.items()}
    return value


def _host_array_ufunc(self: HostArray, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    return getattr(ufunc, method)(*_numpy_values(inputs), **_numpy_values(kwargs))


def _host_array_function(self: HostArray, func: Callable[..., Any], types: Any, args: Any, kwargs: Any) -> Any:
    implementation = getattr(func, "_implementation", None)
    code = getattr(implementation, "__code__", None)  # None for NumPy's functions written in C
    if code is not None and code.co_filename.endswith(ARRAY_LIKE_WRAPPERS):
        return implementation(*args, **kwargs)  # np.sum(x) calls x.sum(), as it does a jax.Array's
    return func(*_numpy_values(args), **_numpy_values(kwargs))


# Beside a HostArray (lists too, which NumPy's took, where JAX's refuse them); others are asked in turn.
_OPERANDS = (Tensor, np.ndarray, np.generic, bool, int, float, list, tuple)


def _host(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """HostArray's method `name`: `fn`, as a jax.Array's, where the user's code (or fgrad's) calls it;
    NumPy's own, where NumPy's code calls it on an array it was handed (np.testing's `x == y`). An
    operator leaves an operand of another type (an fg.Array, pytest.approx) to that type's operator."""
    numpy_method = getattr(np.ndarray, name, None)  # NumPy 2 has no ndarray.ptp: NumPy never calls it
    binary = name.startswith("__") and name not in ("__neg__", "__pos__", "__abs__", "__invert__")
    in_place = name == "sort"  # NumPy's sorts in place: np.sort(x) sorts a copy so, even in its wrappers

    def method(self: HostArray, *args: Any, **kwargs: Any) -> Any:
        if numpy_method is not None and called_from_numpy(wrappers=in_place):
            return numpy_method(np.ndarray.view(self, np.ndarray), *args, **kwargs)
        if binary and not isinstance(args[0], _OPERANDS):
            return NotImplemented
        return fn(self, *args, **kwargs)
    method.__name__ = name
    return method


_HOST = {**{f"__{name}__": fn for name, fn in ARITHMETIC_OPERATORS.items()},
         **{f"__r{name}__": _flip(fn) for name, fn in ARITHMETIC_OPERATORS.items()},
         **{f"__i{name}__": fn for name, fn in ARITHMETIC_OPERATORS.items() if name != "divmod"},
         **{f"__{name}__": fn for name, fn in COMPARISON_OPERATORS.items()},
         **METHODS,  # view too: jax.Array's, which bit casts a value however NumPy holds it (a broadcast)
         "__neg__": neg, "__pos__": lambda x: x, "__abs__": abs, "__invert__": invert}
for _name, _fn in _HOST.items():
    setattr(HostArray, _name, _host(_name, _fn))
del _name, _fn
HostArray.__array_ufunc__ = _host_array_ufunc
HostArray.__array_function__ = _host_array_function
