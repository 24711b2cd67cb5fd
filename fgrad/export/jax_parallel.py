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

jax_rules.register(psum_p, lambda x, *, axes: jax.lax.psum(x, axes))
jax_rules.register(pmax_p, lambda x, *, axes: jax.lax.pmax(x, axes))
jax_rules.register(pmin_p, lambda x, *, axes: jax.lax.pmin(x, axes))
jax_rules.register(axis_index_p, lambda *, axes: jax.lax.axis_index(axes[0]))


def _all_gather(x: Any, *, axes: tuple[Hashable, ...], axis: int, tiled: bool, size: int) -> Any:
    return jax.lax.all_gather(x, axes[0], axis=axis, tiled=tiled)


jax_rules.register(all_gather_p, _all_gather)


jax_rules.register(ppermute_p, lambda x, *, axes, perm: jax.lax.ppermute(x, axes[0], perm))


def _psum_scatter(x: Any, *, axes: tuple[Hashable, ...], axis: int, tiled: bool, size: int) -> Any:
    return jax.lax.psum_scatter(x, axes[0], scatter_dimension=axis, tiled=tiled)


jax_rules.register(psum_scatter_p, _psum_scatter)


def _all_to_all(x: Any, *, axes: tuple[Hashable, ...], split: int, concat: int, tiled: bool, size: int) -> Any:
    return jax.lax.all_to_all(x, axes[0], split, concat, tiled=tiled)


jax_rules.register(all_to_all_p, _all_to_all)
