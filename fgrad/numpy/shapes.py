"""Functions that move elements: reshape, transpose, broadcast_to, expand_dims, squeeze,
concatenate, stack, pad."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad.errors import ShapeError, TraceError
from fgrad.ir import Dim
from fgrad.primitives import broadcast_to_p, concatenate_p, pad_p, reshape_p, transpose_p
from fgrad.primitives.abstract_eval import check_reshape
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _axes, _axis_tuple, _dtype, _one_axis, _shape, _static_scalar, asarray,
    result_dtype,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "broadcast_to", "concatenate", "expand_dims", "pad", "reshape", "squeeze", "stack", "transpose",
]


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
