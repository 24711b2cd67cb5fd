"""Windowed pooling over channels-last inputs, as `flax.linen`: pool, max_pool, min_pool, avg_pool.

Inputs are (*batch, *spatial, features), or (*spatial, features) without a batch; the window
slides over the spatial axes only. Each is one `fg.lax.reduce_window`, whose window is read in
place from the input (one kernel for a sum; an index and a sum for a max or min, whose
cotangent goes to the first extreme of each window, as XLA's select-and-scatter).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import ShapeError
from fgrad.trace import Tensor, user_site
from fgrad.numpy.convolution import _padtype_to_pads, reduce_window
from fgrad.numpy.elementwise import add, divide, maximum, minimum
from fgrad.numpy.promotion import ArrayLike, _shape, asarray

__all__ = [  # re-exported by fgrad.nn
    "avg_pool", "max_pool", "min_pool", "pool",
]

Padding = str | Sequence[tuple[int, int]]


def pool(inputs: ArrayLike, init: float | int, reduce_fn: Callable[..., Any], window_shape: Sequence[int],
         strides: Sequence[int] | None, padding: Padding) -> Tensor | np.ndarray:
    """Reduce each window of the spatial axes with `reduce_fn` (fg.lax.add, max or min) from
    `init`, as `flax.linen.pool`: `inputs` (*batch, *spatial, features) with one spatial axis
    per entry of `window_shape`; `strides` (default 1) and `padding` ('SAME', 'VALID' or
    (low, high) pairs) per spatial axis."""
    x = asarray(inputs)
    shape = _shape(x)
    if not isinstance(window_shape, (tuple, list)):
        raise ShapeError(f"pool: window_shape must be a tuple of integers, got {window_shape!r}", user_site())
    window = tuple(window_shape)
    n = len(window)
    if len(shape) < n + 1:
        raise ShapeError(f"pool: window {window} needs inputs of at least {n + 1} axes (spatial, features), got "
                         f"{shape}", user_site())
    strides = tuple(strides) if strides is not None else (1,) * n
    if len(strides) != n:
        raise ShapeError(f"pool: strides {strides} must have one entry per window axis {window}", user_site())
    lead = len(shape) - n - 1
    if not isinstance(padding, str):
        padding = tuple(map(tuple, padding))
        if len(padding) != n or any(len(p) != 2 for p in padding):
            raise ShapeError(f"pool: padding {padding} must be one (low, high) pair per window axis {window}",
                             user_site())
        padding = ((0, 0),) * lead + padding + ((0, 0),)
    return reduce_window(x, init, reduce_fn, (1,) * lead + window + (1,), (1,) * lead + strides + (1,), padding)


def max_pool(inputs: ArrayLike, window_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: Padding = "VALID") -> Tensor | np.ndarray:
    """The largest value of each window (padding never wins), as `flax.linen.max_pool`."""
    return pool(inputs, -math.inf, maximum, window_shape, strides, padding)


def min_pool(inputs: ArrayLike, window_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: Padding = "VALID") -> Tensor | np.ndarray:
    """The smallest value of each window (padding never wins), as `flax.linen.min_pool`."""
    return pool(inputs, math.inf, minimum, window_shape, strides, padding)


def avg_pool(inputs: ArrayLike, window_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: Padding = "VALID", count_include_pad: bool = True) -> Tensor | np.ndarray:
    """The mean of each window, as `flax.linen.avg_pool`: over the whole window, padding
    included, or with `count_include_pad=False` over the elements it covers."""
    total = pool(inputs, 0.0, add, window_shape, strides, padding)
    if count_include_pad:
        return divide(total, math.prod(window_shape))
    return divide(total, _covered(_shape(inputs), tuple(window_shape), strides, padding))


def _covered(shape: tuple[int, ...], window: tuple[int, ...], strides: Sequence[int] | None,
             padding: Padding) -> np.ndarray:
    """How many input elements each window covers, (*spatial, 1): a product over the spatial
    axes, counted on the host (it depends on shapes alone)."""
    spatial = shape[-len(window) - 1:-1]
    strides = tuple(strides) if strides is not None else (1,) * len(window)
    pads = _padtype_to_pads("avg_pool", spatial, window, strides, padding) if isinstance(padding, str) else padding
    counts = np.ones((), np.float32)
    for n, k, s, (lo, hi) in zip(spatial, window, strides, pads):
        starts = np.arange((n + lo + hi - k) // s + 1) * s - lo
        counts = np.multiply.outer(counts, np.minimum(starts + k, n) - np.maximum(starts, 0))
    return counts[..., None].astype(np.float32)
