"""jax.lax's map and associative_scan, over fgrad's scan and slicing, so that both trace,
differentiate and compile as any other fgrad function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import ShapeError, TraceError
from fgrad.ir import Dim
from fgrad.pytree import flatten, unflatten
from fgrad.trace import Tensor, user_site
from fgrad.transforms.control_flow import scan
from fgrad.numpy.promotion import _brief, _shape, asarray
from fgrad.lax.shapes import _axis, concatenate, rev, slice_in_dim

__all__ = ["associative_scan", "map"]


def map(f: Callable[[Any], Any], xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001
    """f applied to each slice of the pytree `xs` along its leading axis, the results stacked, as
    `jax.lax.map` (a `scan` with no carry). `batch_size` is validated; the result does not depend
    on it, so the slices are always mapped one at a time."""
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer))
                                   or batch_size < 0):
        raise TraceError(f"map: batch_size must be a non-negative integer or None, got {_brief(batch_size)}",
                         user_site())
    return scan(lambda carry, x: (carry, f(x)), (), xs)[1]


def _interleave(a: Tensor | np.ndarray, b: Tensor | np.ndarray, axis: int) -> Tensor | np.ndarray:
    """a[0], b[0], a[1], b[1], ... along `axis`, where a has as many entries as b or one more."""
    n = _shape(a)[axis] + _shape(b)[axis]
    if _shape(a)[axis] > _shape(b)[axis]:  # b padded with any one entry, cut off again below
        b = concatenate([b, slice_in_dim(a, 0, 1, 1, axis)], axis)
    pairs = concatenate([fnp.expand_dims(a, axis + 1), fnp.expand_dims(b, axis + 1)], axis + 1)
    shape = _shape(pairs)
    merged = fnp.reshape(pairs, shape[:axis] + (2 * shape[axis],) + shape[axis + 2:])
    return slice_in_dim(merged, 0, n, 1, axis)


def associative_scan(fn: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """The running combination fn(...fn(fn(e[0], e[1]), e[2])..., e[i]) along `axis` of the
    pytree `elems`, for an associative `fn` of two pytrees of slices, as
    `jax.lax.associative_scan`: JAX's work-efficient odd/even recursion, O(log n) levels of
    calls to fn on whole slices. With `reverse`, running from the end."""
    leaves, tree = flatten(elems)
    if not leaves:
        raise ShapeError("associative_scan: elems has no arrays", user_site())
    leaves = [asarray(leaf) for leaf in leaves]
    axis = _axis("associative_scan", axis, len(_shape(leaves[0])))
    n = _shape(leaves[0])[axis]
    if isinstance(n, Dim) or any(len(_shape(x)) <= axis or _shape(x)[axis] != n for x in leaves):
        raise ShapeError(f"associative_scan: the arrays of elems must share a fixed size along axis {axis}, got "
                         f"{[_shape(x) for x in leaves]}", user_site())
    if not isinstance(reverse, (bool, np.bool_)):
        raise TraceError(f"associative_scan: reverse must be True or False, got {_brief(reverse)}", user_site())

    def combine(a: list[Any], b: list[Any]) -> list[Any]:
        out, got = flatten(fn(unflatten(tree, a), unflatten(tree, b)))
        if got != tree:
            raise TraceError(f"associative_scan: fn must return the structure of elems, {tree}, got {got}",
                             user_site())
        return [asarray(x) for x in out]

    def run(elems: list[Any]) -> list[Any]:
        count = _shape(elems[0])[axis]
        if count < 2:
            return elems
        odd = run(combine([slice_in_dim(e, 0, count - 1, 2, axis) for e in elems],
                          [slice_in_dim(e, 1, count, 2, axis) for e in elems]))
        later = [slice_in_dim(e, 2, count, 2, axis) for e in elems]
        if _shape(later[0])[axis] == 0:  # two entries: the first is its own running value
            even = [slice_in_dim(e, 0, 1, 1, axis) for e in elems]
        else:
            left = [slice_in_dim(o, 0, _shape(o)[axis] - 1, 1, axis) for o in odd] if count % 2 == 0 else odd
            even = [concatenate([slice_in_dim(e, 0, 1, 1, axis), r], axis) for e, r in zip(elems, combine(left, later))]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    if reverse:
        leaves = [rev(x, (axis,)) for x in leaves]
    out = run(leaves)
    if reverse:
        out = [rev(x, (axis,)) for x in out]
    return unflatten(tree, out)
