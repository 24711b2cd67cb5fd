"""The operators and methods of traced values, and NumPy's ufunc and function dispatch on them:
thin wrappers over the public functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.errors import IMMUTABLE, NUMPY_FUNCTION, DTypeError, TraceError
from fgrad.ir import DType
from fgrad.trace import Tensor, user_site
from fgrad.numpy.shapes import reshape, squeeze, transpose
from fgrad.numpy.elementwise import (
    abs, add, astype, cos, divide, equal, exp, greater, greater_equal, isfinite, isinf, isnan,
    less, less_equal, log, logical_and, logical_not, logical_or, maximum, minimum, multiply, neg,
    not_equal, pow, sin, sqrt, subtract, tanh,
)
from fgrad.numpy.reductions import argmax, argmin, cumsum, max, mean, min, sum
from fgrad.numpy.linalg import matmul
from fgrad.numpy.indexing import getitem


# ---------------------------------------------------------------------------
# Tensor operators and methods: thin wrappers over the functions above
# ---------------------------------------------------------------------------


def _flip(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda self, other: fn(other, self)


def varargs_shape(args: tuple[Any, ...]) -> Any:
    """A shape given as `x.reshape(2, 3)` or `x.reshape((2, 3))`."""
    return args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args


def invert(x: Tensor) -> Tensor:
    """`~x`: logical not of a bool value (fgrad has no bitwise operations)."""
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
Tensor.__neg__, Tensor.__pos__, Tensor.__abs__, Tensor.__invert__ = neg, lambda x: x, abs, invert
Tensor.__getitem__, Tensor.__setitem__ = getitem, _setitem
Tensor.T = property(lambda x: transpose(x))
Tensor.reshape = lambda x, *shape: reshape(x, varargs_shape(shape))
Tensor.transpose = lambda x, *axes: transpose(x, varargs_shape(axes) if axes else None)
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
