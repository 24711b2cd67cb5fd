"""`jax.scipy.interpolate` as `fg.scipy.interpolate`: `RegularGridInterpolator`, linear or nearest
interpolation of values on a rectilinear grid, as JAX's (SciPy's algorithm without its checks of
the grid): each point's cell found by `searchsorted` along each axis, then the cell's corners
weighted. It is a pytree (grid, values and fill value its leaves), so it passes through `fg.jit`
and `fg.grad` as an argument; values and points differentiate, and everything compiles to WGSL.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import InputError, ShapeError
from fgrad.ir import DType
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _inexact, _shape, asarray
from fgrad.pytree import register_node
from fgrad.trace import Tensor, user_site

__all__ = ["RegularGridInterpolator"]

Array = Tensor | np.ndarray
METHODS = ("linear", "nearest")


def _method(method: Any) -> str:
    if method not in METHODS:
        raise InputError(f"RegularGridInterpolator: method {_brief(method)} is not defined: use 'linear' or "
                         "'nearest'", user_site())
    return method


class RegularGridInterpolator:
    """Interpolation on the rectilinear grid `points` (one increasing 1-d array per axis) of
    `values` (its first len(points) axes the grid's; further axes are carried along), as
    `jax.scipy.interpolate.RegularGridInterpolator`. Points outside the grid give `fill_value`
    (NaN by default); with fill_value None they are extrapolated from the nearest cell.
    `bounds_error=True` is refused, as JAX refuses it (a compiled program cannot raise)."""

    def __init__(self, points: Sequence[ArrayLike], values: ArrayLike, method: str = "linear",
                 bounds_error: bool = False, fill_value: ArrayLike | None = np.nan) -> None:
        self.method = _method(method)
        if bounds_error:
            raise InputError("RegularGridInterpolator: bounds_error=True is not supported (as in JAX: a compiled "
                             "program cannot raise); out-of-bounds points give fill_value", user_site())
        self.bounds_error = False
        (values,) = _inexact(values)
        if len(points) > len(_shape(values)):
            raise ShapeError(f"RegularGridInterpolator: {len(points)} point arrays, but values has only "
                             f"{len(_shape(values))} axes ({_shape(values)})", user_site())
        grid = tuple(asarray(p, _dtype(values)) for p in points)
        for k, g in enumerate(grid):
            if len(_shape(g)) != 1 or _shape(g)[0] != _shape(values)[k] or _shape(g)[0] < 2:
                raise ShapeError(f"RegularGridInterpolator: points[{k}] {_shape(g)} must be 1-d with at least 2 "
                                 f"entries, as many as axis {k} of values {_shape(values)}", user_site())
        fill_value = None if fill_value is None else asarray(fill_value)
        if fill_value is not None and _shape(fill_value):
            raise ShapeError(f"RegularGridInterpolator: fill_value must be a scalar or None, got shape "
                             f"{_shape(fill_value)}", user_site())
        self.grid, self.values, self.fill_value = grid, values, fill_value

    def __call__(self, xi: Any, method: str | None = None) -> Array:
        """The interpolated values at the points xi (..., ndim), or a tuple of ndim coordinate
        arrays that broadcast, with `method` overriding the interpolator's."""
        method = self.method if method is None else _method(method)
        ndim = len(self.grid)
        xi = self._points(xi, ndim)
        shape = _shape(xi)
        xi = fnp.reshape(xi, (-1, shape[-1]))
        indices, distances, outside = self._cells(fnp.matrix_transpose(xi))
        result = self._linear(indices, distances) if method == "linear" else self._nearest(indices, distances)
        if self.fill_value is not None:
            outside = fnp.reshape(outside, _shape(result)[:1] + (1,) * (len(_shape(result)) - 1))
            result = fnp.where(outside, asarray(self.fill_value, _dtype(result)), result)
        return fnp.reshape(result, shape[:-1] + _shape(self.values)[ndim:])

    def _points(self, xi: Any, ndim: int) -> Array:
        """xi as an array (..., ndim): a tuple of coordinate arrays stacked last, a 1-d array as
        points of ndim coordinates each."""
        if isinstance(xi, tuple) and len(xi) == 1 and isinstance(xi[0], tuple):
            xi = xi[0]
        if isinstance(xi, tuple):
            xi = fnp.stack(fnp.broadcast_arrays(*(asarray(c, _dtype(self.values)) for c in xi)), axis=-1)
        else:
            xi = asarray(xi, _dtype(self.values))
            if len(_shape(xi)) <= 1:
                xi = fnp.reshape(xi, (-1, ndim))
        if _shape(xi)[-1] != ndim:
            raise ShapeError(f"RegularGridInterpolator: the points have {_shape(xi)[-1]} coordinates, the grid "
                             f"{ndim} axes", user_site())
        return xi

    def _cells(self, xi: Array) -> tuple[list[Array], list[Array], Array]:
        """Per axis, each point's cell (its lower corner's index, in 0..n - 2) and its distance from
        that corner in cell widths; and whether the point lies outside the grid."""
        indices, distances = [], []
        outside = fnp.zeros(_shape(xi)[1:], DType.bool)
        for x, g in zip(xi, self.grid):
            i = fnp.clip(fnp.searchsorted(g, x) - 1, 0, _shape(g)[0] - 2)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, distances, outside

    def _linear(self, indices: list[Array], distances: list[Array]) -> Array:
        trailing = (slice(None),) + (None,) * (len(_shape(self.values)) - len(indices))
        total = None
        for corner in itertools.product(*[(i, i + 1) for i in indices]):  # the cell's 2^ndim corners
            weight = None
            for at, i, y in zip(corner, indices, distances):
                w = 1 - y if at is i else y
                weight = w if weight is None else weight * w
            term = self.values[corner] * weight[trailing]
            total = term if total is None else total + term
        return total

    def _nearest(self, indices: list[Array], distances: list[Array]) -> Array:
        return self.values[tuple(fnp.where(y <= 0.5, i, i + 1) for i, y in zip(indices, distances))]


register_node(RegularGridInterpolator, lambda r: ((r.grid, r.values, r.fill_value), r.method),
              lambda method, children: _rebuilt(method, *children))


def _rebuilt(method: str, grid: tuple[Array, ...], values: Array,
             fill_value: Array | None) -> RegularGridInterpolator:
    """An interpolator of these leaves (traced ones too), without __init__'s checks."""
    out = RegularGridInterpolator.__new__(RegularGridInterpolator)
    out.method, out.bounds_error, out.grid, out.values, out.fill_value = method, False, tuple(grid), values, fill_value
    return out

