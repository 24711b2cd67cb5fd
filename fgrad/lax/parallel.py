"""`jax.lax`'s collectives over a named vmap axis: `psum`, `pmean`, `pmax`, `pmin`, `all_gather`,
`axis_index` and `axis_size`, inside `fg.vmap(f, axis_name=...)` (fgrad/primitives/parallel.py).
fgrad maps over one device, so these combine the examples of a vmap: a batch norm's statistics
over the batch, a mean gradient beside per-example ones."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import math

from fgrad.errors import InputError
from fgrad.ir import DType
from fgrad.numpy import asarray, astype, true_divide
from fgrad.primitives import all_gather_p, axis_index_p, pmax_p, pmin_p, psum_p
from fgrad.pytree import tree_map
from fgrad.trace import bind, spec_of, user_site
from fgrad.transforms.batching import named_axis_size

__all__ = ["all_gather", "axis_index", "axis_size", "pmax", "pmean", "pmin", "psum"]


def _axes(axis_name: Any, who: str, site: str | None, groups: Any = None) -> tuple[Hashable, ...]:
    """The axis names (one, or a tuple of them), each bound by an enclosing vmap."""
    if groups is not None:
        raise InputError(f"{who}: axis_index_groups is not supported: fgrad maps over one device", site)
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    for name in names:
        named_axis_size(name, who, site)
    return names


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The sum of `x` (a pytree) over the examples of the named axis (or axes), the same in each;
    bools count as i32, as JAX's."""
    axes = _axes(axis_name, "psum", user_site(), axis_index_groups)

    def one(v: Any) -> Any:
        v = asarray(v)
        return bind(psum_p, astype(v, DType.i32) if spec_of(v).dtype is DType.bool else v, axes=axes)

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
    return tree_map(lambda v: bind(pmax_p, asarray(v), axes=axes), x)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The smallest `x` (a pytree) over the examples of the named axis (or axes). No derivative, as JAX's."""
    axes = _axes(axis_name, "pmin", user_site(), axis_index_groups)
    return tree_map(lambda v: bind(pmin_p, asarray(v), axes=axes), x)


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0, tiled: bool = False) -> Any:
    """Every example's `x` (a pytree), stacked along a new axis `axis` (joined along `axis` where
    `tiled`), the same in each example."""
    site = user_site()
    axes = _axes(axis_name, "all_gather", site, axis_index_groups)
    if len(axes) != 1:
        raise InputError(f"all_gather: gathers over one named axis, got {axes}", site)
    size = named_axis_size(axes[0], "all_gather", site)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise InputError(f"all_gather: axis must be an int, got {axis!r}", site)

    def one(v: Any) -> Any:
        v = asarray(v)
        ndim = spec_of(v).ndim
        where = axis + (ndim if tiled else ndim + 1) if isinstance(axis, int) and axis < 0 else axis
        return bind(all_gather_p, v, axes=axes, axis=where, tiled=bool(tiled), size=size)

    return tree_map(one, x)


def axis_index(axis_name: Any) -> Any:
    """The example's index along the named axis, an i32."""
    axes = _axes(axis_name, "axis_index", user_site())
    if len(axes) != 1:
        raise InputError(f"axis_index: takes one named axis, got {axes}", user_site())
    return bind(axis_index_p, axes=axes)


def axis_size(axis_name: Any) -> int:
    """The number of examples along the named axis (or the product over several), a Python int."""
    site = user_site()
    return math.prod(named_axis_size(a, "axis_size", site) for a in _axes(axis_name, "axis_size", site))
