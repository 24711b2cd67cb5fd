"""`jax.scipy.ndimage` as `fg.scipy.ndimage`: `map_coordinates`, interpolation of an N-d array at
given coordinates, of order 0 (nearest) and 1 (linear) as JAX supports, with JAX's five modes
('constant', 'nearest', 'wrap', 'mirror', 'reflect').

Written with fgrad's functions (one gather per corner of the interpolation), so it traces,
differentiates (in the input and, for order 1, in the coordinates), batches and compiles to WGSL.
Higher orders (spline filtering) are left out, as in JAX.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from fgrad.errors import InputError, ShapeError, TraceError, name_errors_after
from fgrad.lax import round as _round
from fgrad.numpy import (
    abs, add, astype, clip, floor, floor_divide, greater_equal, less, logical_and, multiply, ravel, remainder, subtract,
    take, where, zeros_like,
)
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _shape, asarray
from fgrad.trace import Tensor, user_site

__all__ = ["map_coordinates"]

Array = Tensor | np.ndarray


def _mirror(index: Array, size: int) -> Array:
    """A triangle wave of half-period size - 1: ... 1 0 1 2 ... size-1 size-2 ... (one point: 0)."""
    s = size - 1
    if s == 0:
        return zeros_like(index)
    return abs(subtract(remainder(add(index, s), 2 * s), s))


def _reflect(index: Array, size: int) -> Array:
    """Reflection about the edges, each edge element repeated: ... 1 0 0 1 ... size-1 size-1 ..."""
    return floor_divide(subtract(_mirror(add(multiply(index, 2), 1), 2 * size + 1), 1), 2)


# Where an index outside [0, size) reads from, per mode ('constant' reads cval there instead).
_INDEX_FIXERS: dict[str, Callable[[Array, int], Array]] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: clip(index, 0, size - 1),
    "wrap": lambda index, size: remainder(index, size),
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away(a: Array) -> Array:
    return a if _dtype(a).is_int else _round(a)


def _nearest(coordinate: Array) -> list[tuple[Array, ArrayLike]]:
    return [(astype(_round_half_away(coordinate), "int32"), np.ones((), _dtype(coordinate).np))]


def _linear(coordinate: Array) -> list[tuple[Array, ArrayLike]]:
    lower = floor(coordinate)
    upper_weight = subtract(coordinate, lower)
    index = astype(lower, "int32")
    return [(index, subtract(1, upper_weight)), (add(index, 1), upper_weight)]


def map_coordinates(input: ArrayLike, coordinates: Sequence[ArrayLike], order: int, mode: str = "constant",
                    cval: ArrayLike = 0.0) -> Array:
    """`input` interpolated at `coordinates`, as `jax.scipy.ndimage.map_coordinates` (JAX's
    boundary semantics, which SciPy calls 'grid-constant' and 'grid-wrap').

    Args:
        input: the N-d array sampled.
        coordinates: N arrays (broadcast together), the fractional index along each axis of the
            points sampled.
        order: 0 (the nearest element, halves rounded away from zero) or 1 (linear).
        mode: how points outside the array read: 'constant' (cval), 'nearest' (the edge),
            'wrap' (periodic), 'mirror' (reflected about the edge elements) or 'reflect'
            (reflected about the edges, edge elements repeated).
        cval: the value outside the array for mode 'constant' (a static number).

    Returns:
        The sampled values, of the coordinates' broadcast shape and input's dtype (integer
        inputs round the interpolated value half away from zero).
    """
    name = "map_coordinates"
    x = asarray(input)
    shape, dtype = _shape(x), _dtype(x)
    coords = [asarray(c) for c in coordinates]
    if len(coords) != len(shape) or not shape:
        raise ShapeError(f"{name}: coordinates must be a sequence of input.ndim arrays, got {len(coords)} for input "
                         f"{shape}", user_site())
    fixer = _INDEX_FIXERS.get(mode)
    if fixer is None:
        raise InputError(f"{name}: mode {mode!r} is not supported; JAX's modes are 'constant', 'nearest', 'wrap', "
                         "'mirror' and 'reflect'", user_site())
    if order not in (0, 1) or isinstance(order, bool):
        raise InputError(f"{name}: order {_brief(order)} is not supported; JAX's orders are 0 and 1", user_site())
    if isinstance(cval, Tensor) or np.ndim(cval) != 0:
        raise TraceError(f"{name}: cval must be a static number, got {_brief(cval)}", user_site())
    fill = np.asarray(cval).astype(dtype.np)
    interpolate = _nearest if order == 0 else _linear
    strides = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
    flat = ravel(x)
    per_axis = []
    for coordinate, size in zip(coords, shape):
        per_axis.append([(clip(fixer(index, size), 0, size - 1),  # clipped, so every gather reads in bounds
                          logical_and(greater_equal(index, 0), less(index, size)) if mode == "constant" else None,
                          weight) for index, weight in interpolate(coordinate)])
    outputs = []
    for corner in itertools.product(*per_axis):
        indices, valid, weights = zip(*corner)
        at = functools.reduce(add, [multiply(i, s) for i, s in zip(indices, strides)])
        value = take(flat, at)
        if mode == "constant":
            value = where(functools.reduce(logical_and, valid), value, fill)
        outputs.append(multiply(functools.reduce(multiply, weights), value))
    result = functools.reduce(add, outputs)
    if dtype.is_int:
        result = _round_half_away(result)
    return astype(result, dtype)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
