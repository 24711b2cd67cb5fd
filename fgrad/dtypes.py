"""`jax.dtypes`' names over fgrad's dtypes: float0 (the gradient dtype of integer inputs), the
dtype a value or dtype becomes in fgrad, promotion, and NumPy's facts about them."""

from __future__ import annotations

from typing import Any

import numpy as np

from fgrad.errors import DTypeError, FgradError, TypePromotionError
from fgrad.ir import DType
from fgrad.numpy import constants
from fgrad.numpy.constants import finfo, iinfo
from fgrad.numpy.promotion import _WEAK
from fgrad.trace import FLOAT0, user_site

__all__ = ["TypePromotionError", "canonicalize_dtype", "finfo", "float0", "iinfo", "issubdtype", "itemsize_bits",
           "result_type", "scalar_type_of"]

float0 = FLOAT0  # the dtype of `grad(f, allow_int=True)`'s gradients of integer inputs: no data


def issubdtype(a: Any, b: Any) -> bool:
    """Whether dtype `a` is `b` or below it in NumPy's hierarchy, as `jax.dtypes.issubdtype`
    (`fg.numpy.issubdtype`); float0 is a subtype of itself only."""
    def is_float0(x: Any) -> bool:
        return isinstance(x, np.dtype) and x == FLOAT0

    if is_float0(a) or is_float0(b):
        return is_float0(a) and is_float0(b)
    return constants.issubdtype(a, b)


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> np.dtype:
    """The NumPy dtype of the values of `dtype` in fgrad, as `jax.dtypes.canonicalize_dtype` with
    x64 off: float64 is float32, int64 int32 and uint64 uint32; the others are themselves."""
    try:
        return DType.of(dtype).np
    except FgradError as e:
        raise DTypeError(f"canonicalize_dtype: {e}", user_site()) from None


def result_type(*args: Any, return_weak_type_flag: bool = False) -> np.dtype | tuple[np.dtype, bool]:
    """The NumPy dtype `args` promote to, as `jax.dtypes.result_type` (`fg.numpy.result_type`'s);
    with `return_weak_type_flag`, also whether it is weak: whether it comes of a Python number,
    no other argument being of its kind or a higher one (bool < integer < float)."""
    dtype = constants.result_type(*args)
    if not return_weak_type_flag:
        return dtype.np
    rank = {"b": 0, "i": 1, "u": 1, "f": 2}
    strong = [constants.result_type(a) for a in args if type(a) not in _WEAK]
    return dtype.np, all(rank[d.kind] < rank[dtype.kind] for d in strong)


def itemsize_bits(dtype: Any) -> int:
    """Bits per element of the dtype fgrad holds `dtype`'s values in (`canonicalize_dtype`), as NumPy
    counts them (a bool: 8), as `jax.dtypes.itemsize_bits`."""
    return canonicalize_dtype(dtype).itemsize * 8


def scalar_type_of(x: Any) -> type:
    """The Python scalar type of `x` (a value or a dtype): bool, int or float, as
    `jax.dtypes.scalar_type_of`."""
    if isinstance(x, (bool, int, float)):
        kind = np.dtype(type(x)).kind
    else:
        kind = canonicalize_dtype(x.dtype if hasattr(x, "dtype") and not isinstance(x, type) else x).kind
    return {"b": bool, "i": int, "u": int, "f": float}[kind]
