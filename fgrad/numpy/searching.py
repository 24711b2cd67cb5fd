"""Searching and counting: searchsorted, digitize, nonzero (argwhere, flatnonzero, one-argument
where), unique (and the array API's unique_all, unique_counts, unique_inverse, unique_values), isin,
the sets of 1-D arrays (intersect1d, union1d, setdiff1d, setxor1d), lexsort, bincount, histogram,
partition.

A result whose length is a count of the values (nonzero's, unique's) has a static length only where
the caller gives one: as in jax.numpy, `size=` makes it traceable (the first `size` results, padded
with `fill_value`); without it, a concrete value (a NumPy array, an fg.Array) is searched on the
host, and a traced one is refused naming `size=`. Inside a trace everything is a composite of
fgrad's primitives: comparisons counted (searchsorted), a cumulative sum ranking the hits and
a scatter placing them (nonzero), a sort (unique).
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from fgrad import numpy as fnp  # NOTE: ravel_multi_index and ix_ are called at call time
from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import Dim, DType
from fgrad.trace import Tensor, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _brief, _dtype, _float_dtype, _no_sharding, _one_axis, _shape, asarray, result_dtype,
)
from fgrad.numpy.shapes import _operands, broadcast_to, concatenate, flip, ravel, reshape, stack, swapaxes
from fgrad.numpy.creation import arange, full, linspace, ones_like, zeros_like
from fgrad.numpy.elementwise import (
    abs as abs_, add, astype, clip, divide, equal, floor_divide, isnan, less, less_equal, logical_and, logical_not,
    logical_or, minimum, multiply, not_equal, remainder, subtract, where,
)
from fgrad.numpy.reductions import (
    any as _any, argmax, argsort, cumsum, lax_sort, max as _max, min as _min, sum as _sum, top_k,
)
from fgrad.numpy.indexing import one_hot, scatter_add, take

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "argpartition", "argwhere", "bincount", "digitize", "flatnonzero", "histogram", "histogram2d", "histogram_bin_edges",
    "histogramdd", "isin",
    "interp", "nonzero", "partition", "searchsorted", "unique",
    "intersect1d", "lexsort", "setdiff1d", "setxor1d", "union1d", "unique_all", "unique_counts", "unique_inverse",
    "unique_values",
]

SIZE_NEEDED = ("{name}: the number of results depends on the values of a traced {spec}, and fgrad's shapes are "
               "static: pass size= (the first `size` results, padded with fill_value), as jax.numpy requires "
               "under jit, e.g. fg.{name}({args}, size=8)")


def _is_traced(*xs: Any) -> bool:
    return builtins.any(isinstance(x, Tensor) for x in xs)


def _host(x: ArrayLike) -> np.ndarray:
    """A concrete value as a NumPy array of its fgrad dtype (float64 as float32, ...)."""
    return np.asarray(x, _dtype(x).np)


def _size(name: str, size: Any, what: str = "size", low: int = 0) -> int:
    """A static count of results, at least `low` (a size of 0 gives empty results, as in JAX)."""
    if isinstance(size, Tensor) or isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)) \
            or size < low:
        kind = "positive" if low else "non-negative"
        raise ShapeError(f"{name}: {what} must be a static {kind} integer, got {_brief(size)}", user_site())
    return int(size)


def _fixed_size(name: str, x: Tensor | np.ndarray) -> int:
    n = _shape(x)[0]
    if isinstance(n, Dim):
        raise ShapeError(f"{name}: the symbol {n} in {_shape(x)} is not supported; give a fixed size", user_site())
    return n


# -- searchsorted, digitize ------------------------------------------------------------------------


_SEARCH_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


def _before(a: Tensor | np.ndarray, v: Tensor | np.ndarray, side: str) -> Tensor | np.ndarray:
    """Whether a sorts before v (side 'left') or not after it ('right'), NaN last as jnp.sort puts it."""
    if side == "left":
        below = less(a, v)
        return logical_or(below, logical_and(isnan(v), logical_not(isnan(a)))) if _dtype(a).is_float else below
    below = less_equal(a, v)
    return logical_or(below, isnan(v)) if _dtype(a).is_float else below


def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left", sorter: ArrayLike | None = None, *,
                 method: str = "scan") -> Tensor | np.ndarray:
    """Where each of `v` would go in the sorted 1-D `a` to keep it sorted, as `jnp.searchsorted`
    (i32, v's shape): the count of entries below v ('left') or not above it ('right'), NaN sorting
    last; `sorter` the permutation sorting `a`. Computed as comparisons of every v with every a,
    summed: one fused reduction, whichever `method` is named."""
    if side not in ("left", "right"):
        raise ShapeError(f"searchsorted: side must be 'left' or 'right', got {side!r}", user_site())
    if method not in _SEARCH_METHODS:
        raise ShapeError(f"searchsorted: method must be one of {', '.join(map(repr, _SEARCH_METHODS))}, got "
                         f"{method!r}", user_site())
    dt = result_dtype(a, v)
    a, v = asarray(a, dt), asarray(v, dt)
    if len(_shape(a)) != 1:
        raise ShapeError(f"searchsorted: a must be 1-D, got {_shape(a)}", user_site())
    if sorter is not None:
        a = take(a, sorter)
    vshape = _shape(v)
    rows = reshape(a, (1,) * len(vshape) + _shape(a))
    return _sum(_before(rows, reshape(v, (*vshape, 1)), side), axis=-1, dtype=DType.i32)


def digitize(x: ArrayLike, bins: ArrayLike, right: bool = False, *, method: str | None = None
             ) -> Tensor | np.ndarray:
    """The index of the bin each x falls in, as `jnp.digitize`: `bins` 1-D and monotonic (rising
    or falling); bins[i-1] <= x < bins[i] gives i (with `right`, bins[i-1] < x <= bins[i])."""
    bins = asarray(bins)
    if len(_shape(bins)) != 1:
        raise ShapeError(f"digitize: bins must be 1-D, got {_shape(bins)}", user_site())
    side, method = ("left" if right else "right"), "scan" if method is None else method
    n = _fixed_size("digitize", bins)
    if n == 0:  # no edges: every x is in bin 0, as JAX's
        return zeros_like(asarray(x), DType.i32)
    rising = searchsorted(bins, x, side, method=method)
    falling = subtract(n, searchsorted(flip(bins), x, side, method=method))
    return where(logical_not(less(bins[-1], bins[0])), rising, falling)  # bins rise: bins[-1] >= bins[0]


def interp(x: ArrayLike, xp: ArrayLike, fp: ArrayLike, left: ArrayLike | str | None = None,
           right: ArrayLike | str | None = None, period: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The piecewise-linear interpolant through the points (xp, fp) at x, as `jnp.interp`: xp
    rising; below xp[0] `left` (fp[0] by default), above xp[-1] `right` (fp[-1]); 'extrapolate'
    continues the end segment; with `period`, x and xp are taken modulo it. The segment is found
    with searchsorted."""
    xp_shape, fp_shape = _shape(xp), _shape(fp)
    if xp_shape != fp_shape or len(xp_shape) != 1:
        raise ShapeError(f"interp: xp and fp must be 1-D of one size, got {xp_shape} and {fp_shape}", user_site())
    for what, end in (("left", left), ("right", right)):
        if isinstance(end, str) and end != "extrapolate":
            raise ShapeError(f"interp: the only string {what} takes is 'extrapolate', got {end!r}", user_site())
    dt = _float_dtype(result_dtype(x, xp))
    x, xp, fp = asarray(x, dt), asarray(xp, dt), asarray(fp, _float_dtype(_dtype(fp)))
    if period is not None:
        if np.ndim(period) != 0:
            raise ShapeError(f"interp: period must be a scalar, got {_shape(period)}", user_site())
        period = abs_(asarray(period, dt))
        x, xp = remainder(x, period), remainder(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = _fixed_size("interp", xp)
    i = clip(searchsorted(xp, x, side="right"), 1, n - 1)
    x0, x1, f0, f1 = take(xp, subtract(i, 1)), take(xp, i), take(fp, subtract(i, 1)), take(fp, i)
    dx = subtract(x1, x0)
    flat = less_equal(abs_(dx), float(np.spacing(dt.finfo.eps)))  # a zero-width segment: no NaN gradient
    f = where(flat, f0, add(f0, multiply(divide(subtract(x, x0), where(flat, 1, dx)), subtract(f1, f0))))
    if period is None and not isinstance(left, str):
        f = where(less(x, xp[0]), fp[0] if left is None else asarray(left, _dtype(f)), f)
    if period is None and not isinstance(right, str):
        f = where(less(xp[-1], x), fp[-1] if right is None else asarray(right, _dtype(f)), f)
    return f


# -- nonzero and its kin ---------------------------------------------------------------------------


def _compacted(mask: Tensor | np.ndarray, size: int) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """The flat indices of the first `size` true entries of 1-D `mask` (0 past the last) and which
    of the `size` slots hold one: each true entry's rank among them (a cumulative sum) is its slot,
    a scatter puts it there, and the false entries' updates, and those ranked past `size`, go to
    one more slot, cut off."""
    n = _fixed_size("nonzero", mask)
    counts = astype(mask, DType.i32)
    slot = where(mask, minimum(subtract(cumsum(counts), 1), size), size)
    flat = scatter_add(where(mask, arange(n), 0), slot, size + 1)[:size]
    return flat, less(arange(size), _sum(counts))


def _fills(name: str, fill_value: Any, ndim: int) -> list[Any]:
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != ndim:
            raise ShapeError(f"{name}: fill_value has {len(fill_value)} entries for {ndim} axes", user_site())
        return list(fill_value)
    return [0 if fill_value is None else fill_value] * ndim


def nonzero(a: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | Sequence[ArrayLike] | None = None
            ) -> tuple[Tensor | np.ndarray, ...]:
    """The indices of the nonzero entries of `a`, one i32 array per axis, in row-major order, as
    `jnp.nonzero`. With `size`, the first `size` of them, padded with `fill_value` (0 by default;
    a tuple gives one per axis): traceable. Without it `a` must be concrete (its values decide
    the length); a traced `a` is refused naming size=."""
    shape = _shape(a)
    if not shape:
        raise ShapeError("nonzero: a 0-d value has no axes to index; use fg.atleast_1d(a) first, as jax.numpy "
                         "asks", user_site())
    if size is None:
        if _is_traced(a):
            raise TraceError(SIZE_NEEDED.format(name="nonzero", spec=a.spec, args="x"), user_site())
        if fill_value is not None:
            raise ShapeError("nonzero: fill_value pads the result to size=; give size too", user_site())
        return tuple(i.astype(np.int32) for i in np.nonzero(_host(a)))
    size = _size("nonzero", size)
    fills = _fills("nonzero", fill_value, len(shape))
    x = asarray(a)
    flat, valid = _compacted(ravel(not_equal(x, 0) if _dtype(x) is not DType.bool else x), size)
    out, stride = [], 1
    for d, fill in zip(reversed(shape), reversed(fills)):
        out.append(where(valid, remainder(floor_divide(flat, stride), d) if stride > 1 or len(shape) > 1 else flat,
                         asarray(fill, DType.i32)))
        stride *= d
    return tuple(reversed(out))


def argwhere(a: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The indices of the nonzero entries of `a` as rows of an (n, a.ndim) i32 array, as
    `jnp.argwhere`; `size` and `fill_value` as in `nonzero`."""
    if not _shape(a):  # rows of no indices: one where a is nonzero (NumPy's and JAX's rule for 0-d)
        return argwhere(reshape(a, (1,)), size=size, fill_value=fill_value)[:, :0]
    if size is None and not _is_traced(a):
        return np.argwhere(_host(a)).astype(np.int32)
    return stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


def flatnonzero(a: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None
                ) -> Tensor | np.ndarray:
    """The indices of the nonzero entries of `a` flattened, as `jnp.flatnonzero`; `size` and
    `fill_value` as in `nonzero`."""
    return nonzero(ravel(a) if _is_traced(a) else _host(a).ravel(), size=size, fill_value=fill_value)[0]


# -- unique, isin ----------------------------------------------------------------------------------


def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None,
           fill_value: ArrayLike | None = None, sorted: bool = True) -> Any:
    """The sorted unique values of `ar` flattened, as `jnp.unique`; with `return_index` the index
    of each one's first occurrence, `return_inverse` each entry's place among them, and
    `return_counts` how often each occurs (all i32). NaNs count as one value (`equal_nan`). With
    `size` (traceable): the first `size` values, padded with `fill_value` (by default the
    smallest value; the indices pad with its index, the counts with 0). Without `size`, `ar`
    must be concrete. `axis` (unique slices) works on concrete values only."""
    del sorted  # always sorted, as jax.numpy's
    return _unique("unique", ar, return_index, return_inverse, return_counts, axis, equal_nan, size, fill_value)


def _unique(name: str, ar: ArrayLike, return_index: bool, return_inverse: bool, return_counts: bool,
            axis: int | None, equal_nan: bool, size: int | None, fill_value: ArrayLike | None) -> Any:
    if size is None:
        if _is_traced(ar):
            raise TraceError(SIZE_NEEDED.format(name=name, spec=ar.spec, args="x"), user_site())
        axis = None if axis is None else _one_axis(name, ar, axis)
        return _host_unique(_host(ar), return_index, return_inverse, return_counts, axis, equal_nan)
    size = _size(name, size)
    if axis is not None:
        raise ShapeError(f"{name}: axis= with size= is not supported (it needs a sort of slices); flatten, or call "
                         "it on a concrete value", user_site())
    x = ravel(asarray(ar))
    n = _fixed_size(name, x)
    if n == 0:  # nothing to sort: the values are all padding, the rest empty (as jax.numpy's)
        if size and fill_value is None:
            raise ShapeError(f"{name}: an empty input with size={size} needs fill_value (there is no smallest "
                             "value to pad with), as in jax.numpy", user_site())
        empty = zeros_like(x, DType.i32)
        results: list[Any] = [full(size, 0 if fill_value is None else fill_value, _dtype(x))]
        results += [*([empty] if return_index else []), *([reshape(empty, _shape(ar))] if return_inverse else []),
                    *([empty] if return_counts else [])]
        return results[0] if len(results) == 1 else tuple(results)
    aux, perm, mask = _sorted_runs(x, equal_nan)
    ind, valid = _compacted(mask, size)
    out = take(aux, ind)
    if fill_value is not None:
        out = where(valid, out, asarray(fill_value, _dtype(x)))
    results = [out]
    if return_index:
        results.append(take(perm, ind))
    if return_inverse:  # each entry's rank among the unique values, put back in the entries' order
        rank = subtract(cumsum(astype(mask, DType.i32)), 1)
        results.append(reshape(take(rank, argsort(perm)), _shape(ar)))
    if return_counts:  # the gaps between the starts of the runs (slots past the last: n, so 0)
        starts = _compacted(mask, size + 1)[0]
        ends = where(not_equal(starts[1:], 0), starts[1:], n)
        results.append(subtract(ends, concatenate([starts[:1], ends[:-1]])) if size > 1 else ends)
    return results[0] if len(results) == 1 else tuple(results)


def _sorted_runs(x: Tensor | np.ndarray, equal_nan: bool = True
                 ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray, Tensor | np.ndarray]:
    """The non-empty 1-D `x` sorted (stable, NaN last), the permutation that sorts it, and where
    each run of equal values starts (the NaNs one run with `equal_nan`, each its own without)."""
    perm = argsort(x)
    aux = take(x, perm)
    first = asarray(np.ones(1, bool))
    if _fixed_size("unique", x) == 1:
        return aux, perm, first
    differs = not_equal(aux[1:], aux[:-1])
    if _dtype(x).is_float and equal_nan:
        differs = logical_and(differs, logical_not(logical_and(isnan(aux[1:]), isnan(aux[:-1]))))
    return aux, perm, concatenate([first, differs])


def _host_unique(x: np.ndarray, return_index: bool, return_inverse: bool, return_counts: bool, axis: int | None,
                 equal_nan: bool) -> Any:
    out = np.unique(x, return_index=return_index, return_inverse=return_inverse, return_counts=return_counts,
                    axis=axis, equal_nan=equal_nan)
    if not isinstance(out, tuple):
        return out
    return (out[0], *(np.asarray(o, np.int32) for o in out[1:]))


class UniqueAllResult(NamedTuple):
    """What `unique_all` returns, as jax.numpy's."""
    values: Tensor | np.ndarray
    indices: Tensor | np.ndarray
    inverse_indices: Tensor | np.ndarray
    counts: Tensor | np.ndarray


class UniqueCountsResult(NamedTuple):
    """What `unique_counts` returns, as jax.numpy's."""
    values: Tensor | np.ndarray
    counts: Tensor | np.ndarray


class UniqueInverseResult(NamedTuple):
    """What `unique_inverse` returns, as jax.numpy's."""
    values: Tensor | np.ndarray
    inverse_indices: Tensor | np.ndarray


def unique_all(x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
               ) -> UniqueAllResult:
    """The array API's `unique` with everything, as `jnp.unique_all`: the sorted unique values,
    each one's first index, each entry's place among them and each one's count. Every NaN is a
    value of its own (as jax.numpy's, equal_nan=False); `size` and `fill_value` as in `unique`."""
    return UniqueAllResult(*_unique("unique_all", x, True, True, True, None, False, size, fill_value))


def unique_counts(x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
                  ) -> UniqueCountsResult:
    """The sorted unique values of `x` and how often each occurs, as `jnp.unique_counts` (every
    NaN a value of its own); `size` and `fill_value` as in `unique`."""
    return UniqueCountsResult(*_unique("unique_counts", x, False, False, True, None, False, size, fill_value))


def unique_inverse(x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
                   ) -> UniqueInverseResult:
    """The sorted unique values of `x` and each entry's place among them (x's shape), as
    `jnp.unique_inverse` (every NaN a value of its own); `size` and `fill_value` as in `unique`."""
    return UniqueInverseResult(*_unique("unique_inverse", x, False, True, False, None, False, size, fill_value))


def unique_values(x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
                  ) -> Tensor | np.ndarray:
    """The sorted unique values of `x`, as `jnp.unique_values` (every NaN a value of its own);
    `size` and `fill_value` as in `unique`."""
    return _unique("unique_values", x, False, False, False, None, False, size, fill_value)


def isin(element: ArrayLike, test_elements: ArrayLike, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto") -> Tensor | np.ndarray:
    """Whether each entry of `element` equals some entry of `test_elements`, as `jnp.isin` (bool,
    element's shape; NaN is in nothing): every pair compared, in one fused reduction."""
    del assume_unique
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ShapeError(f"isin: method must be 'auto', 'compare_all', 'binary_search' or 'sort', got {method!r}",
                         user_site())
    element = asarray(element)
    tests = ravel(test_elements)
    shape = _shape(element)
    found = _any(equal(reshape(element, (*shape, 1)), reshape(tests, (1,) * len(shape) + _shape(tests))), axis=-1)
    return logical_not(found) if invert else found


# -- sets of 1-D arrays, lexsort --------------------------------------------------------------------
#
# Without size=, the inputs must be concrete and NumPy's set functions (the algorithms jax.numpy's
# follow) run on the host, in the promoted fgrad dtype. With it, a static count of results is
# computed from fgrad's primitives: each input's runs of equal values found by a sort, each run
# looked up in the other input by comparing every pair (as `isin`), and the first `size` kept
# compacted (as `nonzero`).


def _on_host(name: str, size: int | None, *arrays: ArrayLike) -> bool:
    """Whether the result is computed on the host: no `size`, which a traced input refuses."""
    if size is not None:
        return False
    traced = [a for a in arrays if isinstance(a, Tensor)]
    if traced:
        raise TraceError(SIZE_NEEDED.format(name=name, spec=traced[0].spec, args="a, b"), user_site())
    return True


def _set_operands(name: str, ar1: ArrayLike, ar2: ArrayLike, dtype: DType | None, host: bool
                  ) -> list[Tensor | np.ndarray]:
    """The two inputs flattened, each in `dtype` (or its own), as NumPy arrays for the host."""
    flat = []
    for a in (ar1, ar2):
        dt = _dtype(a) if dtype is None else dtype
        flat.append(_host(a).astype(dt.np).ravel() if host else ravel(asarray(a, dt)))
        _fixed_size(name, flat[-1])
    return flat


def _first_kept(values: Tensor | np.ndarray, keep: Tensor | np.ndarray, size: int
                ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray, Tensor | np.ndarray]:
    """The first `size` of `values` where `keep` holds (values[0] past the last), which of the slots
    hold one, and their indices in `values`."""
    ind, valid = _compacted(keep, size)
    return take(values, ind), valid, ind


def _padded(values: Tensor | np.ndarray, valid: Tensor | np.ndarray, fill_value: ArrayLike | None
            ) -> Tensor | np.ndarray:
    """The empty slots of `values` given `fill_value`, or by default the smallest result, as
    jax.numpy's intersect1d and setxor1d pad them: the min of the results and of the max of
    them and 0 (so 0 for no results, and NaN where a result is NaN)."""
    if fill_value is not None:
        return where(valid, values, asarray(fill_value, _dtype(values)))
    if not _shape(values)[0]:
        return values
    largest = _max(where(valid, values, 0))
    return where(valid, values, _min(where(valid, values, largest)))


def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value: ArrayLike | None = None) -> Any:
    """The sorted values found in both `ar1` and `ar2` (flattened; NaN is in neither), as
    `jnp.intersect1d`, in their promoted dtype. With `return_indices`, also the index of each
    one's first occurrence in each (i32). With `size` (traceable): the first `size`, padded with
    `fill_value` (by default the smallest, 0 when there is none; the indices with the lengths of
    ar1 and ar2). `assume_unique` changes nothing: duplicates are dropped either way."""
    del assume_unique
    dt = result_dtype(ar1, ar2)
    host = _on_host("intersect1d", size, ar1, ar2)
    a1, a2 = _set_operands("intersect1d", ar1, ar2, dt, host)
    if host:
        out = np.intersect1d(a1, a2, return_indices=True)  # stable: the first occurrences, as jax.numpy's
        return (out[0], *(np.asarray(i, np.int32) for i in out[1:])) if return_indices else out[0]
    size = _size("intersect1d", size)
    n1, n2 = _shape(a1)[0], _shape(a2)[0]
    if not (n1 and n2):
        found, valid = full(size, 0, dt), full(size, False)
        values = _padded(found, valid, fill_value)
        return (values, full(size, n1, DType.i32), full(size, n2, DType.i32)) if return_indices else values
    aux, perm, starts = _sorted_runs(a1)
    found, valid, ind = _first_kept(aux, logical_and(starts, isin(aux, a2)), size)
    values = _padded(found, valid, fill_value)
    if not return_indices:
        return values
    first2 = argmax(equal(reshape(found, (size, 1)), reshape(a2, (1, n2))), axis=-1)  # its first index in ar2
    return values, where(valid, take(perm, ind), n1), where(valid, first2, n2)


def union1d(ar1: ArrayLike, ar2: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None
            ) -> Tensor | np.ndarray:
    """The sorted unique values of `ar1` and `ar2` together (flattened; NaNs as one), as
    `jnp.union1d`: `unique` of the two joined, `size` and `fill_value` as there."""
    dt = result_dtype(ar1, ar2)
    host = _on_host("union1d", size, ar1, ar2)
    a1, a2 = _set_operands("union1d", ar1, ar2, dt, host)
    joined = np.concatenate([a1, a2]) if host else concatenate([a1, a2])
    return _unique("union1d", joined, False, False, False, None, True, size, fill_value)


def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *, size: int | None = None,
              fill_value: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The values of `ar1` not in `ar2` (flattened), in ar1's dtype, as `jnp.setdiff1d`: sorted and
    unique (NaNs as one, kept: NaN is in nothing), or with `assume_unique` in ar1's order, as given.
    With `size` (traceable): the first `size`, padded with `fill_value` (0 by default)."""
    host = _on_host("setdiff1d", size, ar1, ar2)
    a1, a2 = _set_operands("setdiff1d", ar1, ar2, None, host)
    if host:
        return np.setdiff1d(a1, a2, assume_unique=assume_unique)
    size = _size("setdiff1d", size)
    dt, n1, n2 = _dtype(a1), _shape(a1)[0], _shape(a2)[0]
    fill = asarray(0 if fill_value is None else fill_value, dt)
    if not n1:
        return full(size, fill, dt)
    values, keep = (a1, ones_like(a1, DType.bool)) if assume_unique else _sorted_runs(a1)[::2]
    if n2:
        keep = logical_and(keep, isin(values, a2, invert=True))
    found, valid, _ = _first_kept(values, keep, size)
    return where(valid, found, fill)


def setxor1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *, size: int | None = None,
             fill_value: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The sorted values found in exactly one of `ar1` and `ar2` (flattened), in their promoted
    dtype, as `jnp.setxor1d`: the unique values of each (NaNs as one) not in the other (so a NaN
    in both gives two). With `size` (traceable): the first `size`, padded with `fill_value` (by
    default as intersect1d's). `assume_unique` changes nothing: duplicates are dropped either way."""
    del assume_unique
    dt = result_dtype(ar1, ar2)
    host = _on_host("setxor1d", size, ar1, ar2)
    a1, a2 = _set_operands("setxor1d", ar1, ar2, dt, host)
    if host:
        return np.setxor1d(a1, a2)
    size = _size("setxor1d", size)
    values, keeps = [], []
    for a, other in ((a1, a2), (a2, a1)):
        if _shape(a)[0]:
            aux, _, starts = _sorted_runs(a)
            values.append(aux)
            keeps.append(logical_and(starts, isin(aux, other, invert=True)) if _shape(other)[0] else starts)
    if not values:
        return _padded(full(size, 0, dt), full(size, False), fill_value)
    joined, keep = concatenate(values), concatenate(keeps)
    order = argsort(joined)
    found, valid, _ = _first_kept(take(joined, order), take(keep, order), size)
    return _padded(found, valid, fill_value)


def lexsort(keys: ArrayLike | Sequence[ArrayLike], axis: int = -1) -> Tensor | np.ndarray:
    """The indices that sort by several keys along `axis`, the last key first, ties broken by the
    ones before it, as `jnp.lexsort` (i32; NaN last, -0.0 equal to 0.0, stable): keys a sequence
    of arrays of one shape, or an array's entries along axis 0. Computed as one stable sort per
    key, the least significant first (`lax_sort` of the keys and an iota)."""
    keys = [asarray(k) for k in _operands("lexsort", keys)]
    if not keys:
        raise ShapeError("lexsort: needs at least one key", user_site())
    shapes = {_shape(k) for k in keys}
    if len(shapes) > 1:
        raise ShapeError(f"lexsort: all keys must have one shape, got {[_shape(k) for k in keys]}", user_site())
    shape = _shape(keys[0])
    if not shape:
        return asarray(np.zeros((), np.int32))
    axis = _one_axis("lexsort", keys[0], axis)
    iota = broadcast_to(reshape(arange(shape[axis]), tuple(d if a == axis else 1 for a, d in enumerate(shape))), shape)
    return lax_sort([*reversed(keys), iota], dimension=axis, num_keys=len(keys))[-1]


# -- bincount, histogram ---------------------------------------------------------------------------


def bincount(x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *, length: int | None = None,
             out_sharding: Any = None) -> Tensor | np.ndarray:
    """How often each value 0, 1, ... occurs in the 1-D integer `x` (or the sum of its `weights`),
    as `jnp.bincount`: `length` bins (values past them dropped, negative values counted as 0);
    without `length`, max(minlength, max(x) + 1), which needs a concrete `x`. i32 counts, or
    weights' dtype. `out_sharding` must be None."""
    _no_sharding("bincount", out_sharding)
    dt = _dtype(x)
    if not (dt.is_int or dt is DType.bool):
        raise DTypeError(f"bincount: x must be integers, got {dt}", user_site())
    if len(_shape(x)) != 1:
        raise ShapeError(f"bincount: x must be 1-D, got {_shape(x)}", user_site())
    if isinstance(minlength, Tensor) or isinstance(minlength, bool) or not isinstance(minlength, (int, np.integer)) \
            or minlength < 0:
        raise ShapeError(f"bincount: minlength must be a static non-negative integer, got {_brief(minlength)}",
                         user_site())
    if length is None:
        if _is_traced(x):
            raise TraceError(f"bincount: the number of bins depends on the values of a traced {x.spec}: pass "
                             "length= (values past it are dropped), as jax.numpy requires under jit", user_site())
        values = _host(x)
        length = builtins.max(int(minlength), int(builtins.max(0, values.max())) + 1)
    length = _size("bincount", length, "length")
    x = asarray(x, DType.i32)
    if weights is not None and _shape(weights) != _shape(x):
        raise ShapeError(f"bincount: weights {_shape(weights)} must have x's shape {_shape(x)}", user_site())
    updates = ones_like(x) if weights is None else asarray(weights)
    # values past the bins go to one more, cut off (a scatter checks concrete indices)
    return scatter_add(updates, clip(x, 0, length), length + 1)[:length]


def histogram_bin_edges(a: ArrayLike, bins: int | ArrayLike = 10, range: Sequence[ArrayLike] | None = None,
                        weights: ArrayLike | None = None) -> Tensor | np.ndarray:
    """The edges of `histogram`'s bins, as `jnp.histogram_bin_edges`: `bins` edges as given, or
    an int count of equal bins over `range` (by default a's smallest to largest value; a range of
    one value widened by 0.5 on each side)."""
    del weights
    dt = _float_dtype(_dtype(a))
    if isinstance(bins, str):
        raise ShapeError(f"histogram_bin_edges: string bins ({bins!r}) are not supported, as in jax.numpy",
                         user_site())
    if np.ndim(bins) == 1 or isinstance(bins, Tensor) and len(_shape(bins)) == 1:
        return asarray(bins, dt)
    try:
        count = operator.index(bins)
    except TypeError:
        raise ShapeError(f"histogram_bin_edges: bins must be a static int or a 1-D array of edges, got "
                         f"{_brief(bins)}", user_site()) from None
    count = _size("histogram_bin_edges", count, "bins", low=1)
    x = asarray(a, dt)
    if range is None:
        lo, hi = _min(x), _max(x)
    else:
        if not isinstance(range, (tuple, list, np.ndarray)) or len(range) != 2:
            raise ShapeError(f"histogram_bin_edges: range must be a pair (low, high), got {_brief(range)}",
                             user_site())
        lo, hi = asarray(range[0], dt), asarray(range[1], dt)
    same = equal(lo, hi)
    return linspace(where(same, subtract(lo, 0.5), lo), where(same, add(hi, 0.5), hi), count + 1, dtype=dt)


def histogram(a: ArrayLike, bins: int | ArrayLike = 10, range: Sequence[ArrayLike] | None = None,
              weights: ArrayLike | None = None, density: bool | None = None
              ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """Counts of the values of `a` in each bin, and the bins' edges, as `jnp.histogram`: bins
    hold [edge_i, edge_i+1), the last one its right edge too; values outside are not counted.
    `weights` sum instead of counting; `density` divides by the total and the bins' widths."""
    x = asarray(a, _float_dtype(result_dtype(a) if weights is None else result_dtype(a, weights)))
    dt = _dtype(x)
    if weights is not None and _shape(weights) != _shape(x):
        raise ShapeError(f"histogram: weights {_shape(weights)} must have a's shape {_shape(x)}", user_site())
    edges = histogram_bin_edges(x, bins, range)
    n = _fixed_size("histogram", edges)
    index = ravel(searchsorted(edges, x, side="right"))
    index = where(equal(ravel(x), edges[-1]), n - 1, index)
    w = ravel(ones_like(x) if weights is None else asarray(weights, dt))
    counts = scatter_add(w, index, n + 1)[1:n]  # bin 0 and bin n are outside the edges
    if density:
        counts = divide(divide(counts, subtract(edges[1:], edges[:-1])), _sum(counts))
    return counts, edges


def histogramdd(sample: ArrayLike, bins: Any = 10, range: Sequence[Any] | None = None, weights: ArrayLike | None = None,
                density: bool | None = None) -> tuple[Tensor | np.ndarray, list[Tensor | np.ndarray]]:
    """Counts of the N points of `sample` (N, D) in each cell of a D-dimensional grid of bins, and
    each axis's edges, as `jnp.histogramdd`: `bins` an int for every axis or one entry (count or
    edges) per axis, `range` one (low, high) or None per axis; cells as `histogram`'s bins. Counts
    are i32 (`weights`, one per point, sum instead, in the sample's float dtype); `density`
    divides by the total and the cells' volumes."""
    x = asarray(sample, _float_dtype(result_dtype(sample) if weights is None else result_dtype(sample, weights)))
    shape = _shape(x)
    if len(shape) != 2:
        raise ShapeError(f"histogramdd: sample must be 2-D (N points, D coordinates), got {shape}", user_site())
    n, dims = shape
    if weights is not None and _shape(weights) != (n,):
        raise ShapeError(f"histogramdd: weights {_shape(weights)} must hold one weight per point, ({n},)",
                         user_site())
    if range is not None and (len(range) != dims or builtins.any(r is not None and np.shape(r)[:1] != (2,)
                                                                 for r in range)):
        raise ShapeError(f"histogramdd: range must hold {dims} pairs or Nones for sample {shape}, got {_brief(range)}",
                         user_site())
    per_axis = [bins] * dims if isinstance(bins, (int, np.integer)) else list(bins)
    if len(per_axis) != dims:
        raise ShapeError(f"histogramdd: bins must give one entry per axis ({dims}), got {len(per_axis)}", user_site())
    edges, cells = [], []
    for k in builtins.range(dims):
        column = x[:, k]
        e = histogram_bin_edges(column, per_axis[k], None if range is None else range[k])
        at = searchsorted(e, column, side="right")
        edges.append(e)
        cells.append(where(equal(column, e[-1]), subtract(at, 1), at))  # the last edge is in the last bin
    counts = tuple(_fixed_size("histogramdd", e) + 1 for e in edges)  # bins below and above the edges too
    flat = fnp.ravel_multi_index(tuple(cells), counts, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(counts)), counts)[(slice(1, -1),) * dims]
    if density:
        hist = divide(astype(hist, _dtype(x)), _sum(hist))
        for width in fnp.ix_(*(subtract(e[1:], e[:-1]) for e in edges)):
            hist = divide(hist, width)
    return hist, edges


def histogram2d(x: ArrayLike, y: ArrayLike, bins: Any = 10, range: Sequence[Any] | None = None,
                weights: ArrayLike | None = None, density: bool | None = None
                ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray, Tensor | np.ndarray]:
    """`histogramdd` of the points (x, y): the counts and the two axes' edges, as `jnp.histogram2d`
    (`bins` an int, a pair, or one array of edges for both)."""
    try:
        pair = len(bins) in (1, 2)
    except TypeError:
        pair = True
    if not pair:
        bins = [bins, bins]
    hist, edges = histogramdd(stack([asarray(x), asarray(y)], axis=1), bins, range, weights, density)
    return hist, edges[0], edges[1]


# -- partition -------------------------------------------------------------------------------------


def _partition_args(name: str, a: ArrayLike, kth: int, axis: int) -> tuple[Tensor | np.ndarray, int, int]:
    x = asarray(a)
    axis = _one_axis(name, x, axis)
    n = _shape(x)[axis]
    if isinstance(kth, bool) or not isinstance(kth, (int, np.integer)) or not -n <= kth < n:
        raise ShapeError(f"{name}: kth must be a static int in [-{n}, {n}) for axis {axis} of {_shape(x)}, got "
                         f"{_brief(kth)}", user_site())
    return swapaxes(x, axis, -1), int(kth) % n, axis


def _negated(x: Tensor | np.ndarray) -> Tensor | np.ndarray:
    # NOTE: as jax.numpy, u32 is negated as -(x + 1), which keeps 0 in order
    return subtract(-1, x) if _dtype(x) is DType.u32 else multiply(x, -1)


def partition(a: ArrayLike, kth: int, axis: int = -1) -> Tensor | np.ndarray:
    """`a` with its kth smallest value along `axis` in place kth, the kth + 1 smallest (ascending)
    before it and the rest (descending) after, as `jnp.partition` (which computes it with top_k,
    as here)."""
    x, kth, axis = _partition_args("partition", a, kth, axis)
    n = _shape(x)[-1]
    bottom = _negated(top_k(_negated(x), kth + 1)[0])
    out = bottom if kth + 1 == n else concatenate([bottom, top_k(x, n - kth - 1)[0]], axis=-1)
    return swapaxes(out, axis, -1)


def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> Tensor | np.ndarray:
    """The indices `partition` takes its values from (i32), as `jnp.argpartition`."""
    x, kth, axis = _partition_args("argpartition", a, kth, axis)
    n = _shape(x)[-1]
    bottom = top_k(_negated(x), kth + 1)[1]
    if kth + 1 == n:
        return swapaxes(bottom, axis, -1)
    # The rest are the entries not among the bottom ones, in order of index (as jax.numpy's proxy).
    rest = astype(logical_not(_any(astype(one_hot(bottom, n), DType.bool), axis=-2)), DType.f32)
    return swapaxes(concatenate([bottom, top_k(rest, n - kth - 1)[1]], axis=-1), axis, -1)
