"""The most common value along an axis, as `jax.scipy.stats.mode`."""

from __future__ import annotations

import math
from typing import NamedTuple

from fgrad.errors import InputError, name_errors_after
from fgrad.numpy import argmax, asarray, atleast_1d, max, moveaxis, ravel, reshape, take, unique
from fgrad.numpy.promotion import _one_axis
from fgrad.scipy.stats._arguments import Array, ArrayLike
from fgrad.trace import user_site
from fgrad.transforms.batching import vmap

__all__ = ["ModeResult", "mode"]


class ModeResult(NamedTuple):
    """mode's result: the modal values and how often each occurs."""
    mode: Array
    count: Array


def mode(a: ArrayLike, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """The most common value along `axis` (of the flattened `a` if None) and its count, the
    smallest such value on ties, as `jax.scipy.stats.mode`: the values of each slice through
    `unique(return_counts=True, size=...)`, then the first with the largest count. Only
    nan_policy='propagate' (as in JAX)."""
    if nan_policy not in ("propagate", "omit", "raise"):
        raise InputError(f"mode: illegal nan_policy {nan_policy!r}; expected one of 'propagate', 'omit', 'raise'",
                         user_site())
    if nan_policy != "propagate":
        raise InputError(f"mode: nan_policy={nan_policy!r} is not supported (as in JAX); check for NaN outside "
                         f"mode", user_site())
    x = atleast_1d(asarray(a))
    shape = tuple(x.shape)
    if axis is None:
        out_shape = tuple(1 for _ in shape) if keepdims else ()
        x = reshape(ravel(x), (-1, 1))
    else:
        axis = _one_axis("mode", x, axis)
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(shape)) if keepdims else \
            tuple(s for i, s in enumerate(shape) if i != axis)
        x = moveaxis(x, axis, 0)
        x = reshape(x, (x.shape[0], math.prod(x.shape[1:])))

    def slice_mode(column: Array) -> tuple[Array, Array]:
        values, counts = unique(column, return_counts=True, size=column.shape[0])
        return take(values, argmax(counts)), max(counts)

    values, counts = vmap(slice_mode, in_axes=1)(x)
    return ModeResult(reshape(values, out_shape), reshape(counts, out_shape))


name_errors_after(globals(), ["mode"])
del name_errors_after  # not part of the namespace
