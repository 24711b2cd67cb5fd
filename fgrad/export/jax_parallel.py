"""JAX export rules of the collectives over a named axis (fgrad/primitives/parallel.py): JAX's own,
which a graph meets only inside the jax.vmap naming the axis, as fgrad's inside fg.vmap."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import jax

from fgrad.export.jax import jax_rules
from fgrad.primitives import (
    all_gather_p, all_to_all_p, axis_index_p, pmax_p, pmin_p, ppermute_p, psum_p, psum_scatter_p,
)

jax_rules.register(psum_p, lambda x, *, axis_names: jax.lax.psum(x, axis_names))
jax_rules.register(pmax_p, lambda x, *, axis_names: jax.lax.pmax(x, axis_names))
jax_rules.register(pmin_p, lambda x, *, axis_names: jax.lax.pmin(x, axis_names))
jax_rules.register(axis_index_p, lambda *, axis_names: jax.lax.axis_index(axis_names[0]))


def _all_gather(x: Any, *, axis_names: tuple[Hashable, ...], axis: int, tiled: bool, size: int) -> Any:
    return jax.lax.all_gather(x, axis_names[0], axis=axis, tiled=tiled)


jax_rules.register(all_gather_p, _all_gather)


jax_rules.register(ppermute_p, lambda x, *, axis_names, perm: jax.lax.ppermute(x, axis_names[0], perm))


def _psum_scatter(x: Any, *, axis_names: tuple[Hashable, ...], axis: int, tiled: bool, size: int) -> Any:
    return jax.lax.psum_scatter(x, axis_names[0], scatter_dimension=axis, tiled=tiled)


jax_rules.register(psum_scatter_p, _psum_scatter)


def _all_to_all(x: Any, *, axis_names: tuple[Hashable, ...], split: int, concat: int, tiled: bool, size: int) -> Any:
    return jax.lax.all_to_all(x, axis_names[0], split, concat, tiled=tiled)


jax_rules.register(all_to_all_p, _all_to_all)
