"""`jax.lax`'s collectives over a named vmap axis: `psum`, `pmean`, `pmax`, `pmin`, `all_gather`,
`psum_scatter`, `all_to_all`, `ppermute`, `axis_index` and `axis_size`, inside `fg.vmap(f, axis_name=...)` (fgrad/primitives/parallel.py).
fgrad maps over one device, so these combine the examples of a vmap: a batch norm's statistics
over the batch, a mean gradient beside per-example ones."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import math

from fgrad.errors import InputError
from fgrad.ir import DType
from fgrad.numpy import asarray, astype, true_divide
from fgrad.primitives import (
    all_gather_p, all_to_all_p, axis_index_p, pmax_p, pmin_p, ppermute_p, psum_p, psum_scatter_p,
)
from fgrad.pytree import tree_map
from fgrad.trace import bind, spec_of, user_site
from fgrad.transforms.batching import named_axis_size

__all__ = [
    "all_gather", "all_to_all", "axis_index", "axis_size", "pmax", "pmean", "pmin", "ppermute", "psum", "psum_scatter",
]


def _axes(axis_name: Any, who: str, site: str | None, groups: Any = None) -> tuple[Hashable, ...]:
    """The axis names (one, or a tuple of them), each bound by an enclosing vmap."""
    if groups is not None:
        raise InputError(f"{who}: axis_index_groups is not supported: fgrad maps over one device", site)
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    for name in names:
        named_axis_size(name, who, site)
    return names


def _one_axis(axis_name: Any, who: str, site: str | None, groups: Any = None) -> tuple[tuple[Hashable], int]:
    """The one named axis a collective takes (bound by an enclosing vmap), and its size."""
    axes = _axes(axis_name, who, site, groups)
    if len(axes) != 1:
        raise InputError(f"{who}: takes one named axis, got {axes}", site)
    return axes, named_axis_size(axes[0], who, site)


def _axis_args(who: str, site: str | None, **axes: Any) -> None:
    """Refuse an axis argument that is not an int."""
    for what, value in axes.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{who}: {what} must be an int, got {value!r}", site)


def _from_end(axis: int, ndim: int) -> int:
    """An axis of `ndim` axes, counted from the end where negative."""
    return axis + ndim if axis < 0 else axis


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The sum of `x` (a pytree) over the examples of the named axis (or axes), the same in each;
    bools count as i32, as JAX's."""
    axes = _axes(axis_name, "psum", user_site(), axis_index_groups)

    def one(v: Any) -> Any:
        v = asarray(v)
        return bind(psum_p, astype(v, DType.i32) if spec_of(v).dtype is DType.bool else v, axis_names=axes)

    return tree_map(one, x)


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The mean of `x` (a pytree) over the examples of the named axis (or axes): integers give floats."""
    site = user_site()
    axes = _axes(axis_name, "pmean", site, axis_index_groups)
    n = math.prod(named_axis_size(a, "pmean", site) for a in axes)
    return tree_map(lambda v: true_divide(psum(v, axes), n), x)


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The largest `x` (a pytree) over the examples of the named axis (or axes). No derivative, as JAX's."""
    axes = _axes(axis_name, "pmax", user_site(), axis_index_groups)
    return tree_map(lambda v: bind(pmax_p, asarray(v), axis_names=axes), x)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The smallest `x` (a pytree) over the examples of the named axis (or axes). No derivative, as JAX's."""
    axes = _axes(axis_name, "pmin", user_site(), axis_index_groups)
    return tree_map(lambda v: bind(pmin_p, asarray(v), axis_names=axes), x)


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0, tiled: bool = False,
               to: str = "varying") -> Any:
    """Every example's `x` (a pytree), stacked along a new axis `axis` (joined along `axis` where
    `tiled`), the same in each example. `to` is "varying" only: JAX's "invarying" and "reduced"
    type the result in jax.shard_map, which fgrad has not (JAX's vmap refuses them too)."""
    site = user_site()
    if to != "varying":
        known = to in ("invarying", "reduced")
        raise InputError(f"all_gather: to={to!r}" + (" types the result for jax.shard_map, which fgrad has not; "
                         if known else " is none of JAX's ('varying', 'invarying', 'reduced'); ") +
                         "under fg.vmap leave it 'varying'", site)
    axes, size = _one_axis(axis_name, "all_gather", site, axis_index_groups)
    _axis_args("all_gather", site, axis=axis)

    def one(v: Any) -> Any:
        v = asarray(v)
        ndim = spec_of(v).ndim  # a stacked gather has one axis more to place its new axis among
        where = _from_end(axis, ndim if tiled else ndim + 1)
        return bind(all_gather_p, v, axis_names=axes, axis=where, tiled=bool(tiled), size=size)

    return tree_map(one, x)


def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0, axis_index_groups: Any = None,
                 tiled: bool = False) -> Any:
    """The sum of `x` (a pytree) over the examples of the named axis, each example keeping its own
    slice along `scatter_dimension` (which must have the axis's size, and is dropped), or, where
    `tiled`, its own chunk of it: a reduce-scatter."""
    site = user_site()
    axes, size = _one_axis(axis_name, "psum_scatter", site, axis_index_groups)
    _axis_args("psum_scatter", site, scatter_dimension=scatter_dimension)

    def one(v: Any) -> Any:
        v = asarray(v)
        where = _from_end(scatter_dimension, spec_of(v).ndim)
        return bind(psum_scatter_p, v, axis_names=axes, axis=where, tiled=bool(tiled), size=size)

    return tree_map(one, x)


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *, axis_index_groups: Any = None,
               tiled: bool = False) -> Any:
    """Each example's `x` (a pytree) split along `split_axis` into one part per example (its
    slices, which must be as many, or where `tiled` equal chunks), part j sent to example j, which
    stacks what it receives along a new `concat_axis` (tiled: joins it along that axis)."""
    site = user_site()
    axes, size = _one_axis(axis_name, "all_to_all", site, axis_index_groups)
    _axis_args("all_to_all", site, split_axis=split_axis, concat_axis=concat_axis)

    def one(v: Any) -> Any:
        v = asarray(v)
        ndim = spec_of(v).ndim
        split, concat = _from_end(split_axis, ndim), _from_end(concat_axis, ndim)
        return bind(all_to_all_p, v, axis_names=axes, split=split, concat=concat, tiled=bool(tiled), size=size)

    return tree_map(one, x)


def ppermute(x: Any, axis_name: Any, perm: Any) -> Any:
    """`x` (a pytree) sent between the examples of the named axis: for each (source, destination)
    pair of `perm`, the destination gets the source's value; an example no pair sends to gets
    zeros."""
    site = user_site()
    axes, size = _one_axis(axis_name, "ppermute", site)
    try:
        pairs = tuple((int(s), int(d)) for s, d in perm)
    except (TypeError, ValueError):
        raise InputError(f"ppermute: perm must be (source, destination) pairs of ints, got {perm!r}", site) from None
    sources, destinations = [s for s, _ in pairs], [d for _, d in pairs]
    if any(not 0 <= i < size for i in (*sources, *destinations)) or len(set(sources)) < len(sources) \
            or len(set(destinations)) < len(destinations):
        raise InputError(f"ppermute: perm {pairs} must pair distinct sources with distinct destinations, each in "
                         f"[0, {size})", site)
    return tree_map(lambda v: bind(ppermute_p, asarray(v), axis_names=axes, perm=pairs), x)


def axis_index(axis_name: Any) -> Any:
    """The example's index along the named axis, an i32."""
    axes, _ = _one_axis(axis_name, "axis_index", user_site())
    return bind(axis_index_p, axis_names=axes)


def axis_size(axis_name: Any) -> int:
    """The number of examples along the named axis (or the product over several), a Python int."""
    site = user_site()
    return math.prod(named_axis_size(a, "axis_size", site) for a in _axes(axis_name, "axis_size", site))
