"""The standard error of the mean, as `jax.scipy.stats.sem`."""

from __future__ import annotations

from fgrad.errors import InputError, name_errors_after
from fgrad.numpy import astype, divide, isnan, logical_not, nanstd, size as _size, sqrt, std, sum
from fgrad.scipy.stats._arguments import Array, ArrayLike, inexact
from fgrad.trace import user_site

__all__ = ["sem"]


def sem(a: ArrayLike, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Array:
    """std(a, ddof) / sqrt(n) along `axis` (over all of `a` if None), as `jax.scipy.stats.sem`;
    with nan_policy='omit', nanstd over the count of entries that are not NaN."""
    (b,) = inexact(a)
    if nan_policy == "propagate":
        n = _size(b) if axis is None else b.shape[axis]
        return divide(std(b, axis, ddof=ddof, keepdims=keepdims), astype(sqrt(float(n)), b.dtype))
    if nan_policy == "omit":
        count = sum(logical_not(isnan(b)), axis, keepdims=keepdims)
        return divide(nanstd(b, axis, ddof=ddof, keepdims=keepdims), astype(sqrt(count), b.dtype))
    raise InputError(f"sem: nan_policy={nan_policy!r} is not supported (as in JAX); use 'propagate' or 'omit'",
                     user_site())


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
