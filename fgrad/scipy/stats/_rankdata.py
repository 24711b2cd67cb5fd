"""Ranks of data, ties resolved by a method, as `jax.scipy.stats.rankdata`."""

from __future__ import annotations

from fgrad.errors import InputError, name_errors_after
from fgrad.lax import sort_key_val
from fgrad.numpy import (
    add, any, apply_along_axis, arange, argsort, asarray, astype, concatenate, cumsum, isnan, multiply, nonzero,
    not_equal, ones, ravel, take, where,
)
from fgrad.scipy.stats._arguments import Array, ArrayLike
from fgrad.trace import user_site

__all__ = ["rankdata"]

_METHODS = ("average", "min", "max", "dense", "ordinal")


def rankdata(a: ArrayLike, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"
             ) -> Array:
    """The ranks (from 1, as f32) of `a` flattened, or of each slice along `axis`, as
    `jax.scipy.stats.rankdata`: ties get the average, min or max of their ranks, consecutive
    ranks ('dense') or their order of appearance ('ordinal'); all NaN where a slice holds a NaN.
    Only nan_policy='propagate' (as in JAX)."""
    if nan_policy not in ("propagate", "omit", "raise"):
        raise InputError(f"rankdata: illegal nan_policy {nan_policy!r}; expected one of 'propagate', 'omit', "
                         f"'raise'", user_site())
    if nan_policy != "propagate":
        raise InputError(f"rankdata: nan_policy={nan_policy!r} is not supported (as in JAX); check for NaN "
                         f"outside rankdata", user_site())
    if method not in _METHODS:
        raise InputError(f"rankdata: unknown method {method!r}; expected one of {', '.join(_METHODS)}", user_site())
    if axis is not None:
        return apply_along_axis(_ranks, axis, asarray(a), method)
    return _ranks(ravel(asarray(a)), method)


def _ranks(a: Array, method: str) -> Array:
    """The ranks of the 1-D `a`: sorted, each entry's place in the sorted order (the inverse of the
    sorting permutation), and the starts of its runs of equal values."""
    size = a.shape[0]
    arr, sorter = sort_key_val(a, arange(size))
    inv = argsort(sorter)  # the inverse permutation
    if method == "ordinal":
        ranks = astype(add(inv, 1), "float32")
    else:
        starts = concatenate([ones(1, bool), not_equal(arr[1:], arr[:-1])])
        dense = take(cumsum(starts), inv)
        # count[k]: where run k starts in the sorted order, count[runs] = size
        count = astype(nonzero(starts, size=size + 1, fill_value=size)[0], "float32")
        ranks = {"dense": lambda: astype(dense, "float32"),
                 "max": lambda: take(count, dense),
                 "min": lambda: add(take(count, dense - 1), 1.0),
                 "average": lambda: multiply(0.5, add(add(take(count, dense), take(count, dense - 1)), 1.0)),
                 }[method]()
    return where(any(isnan(a)), float("nan"), ranks)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
