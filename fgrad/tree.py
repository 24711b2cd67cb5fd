"""`jax.tree`'s names for fgrad's pytree functions: `fg.tree.map(f, params)`, the shorter
spelling of `fg.tree_util.tree_map`, with the same arguments (`is_leaf`, several trees, a
prefix first)."""

from __future__ import annotations

import dataclasses
from typing import Any

from fgrad.tree_util import (
    tree_all as all, tree_broadcast as broadcast, tree_flatten as flatten,  # noqa: A004
    tree_flatten_with_path as flatten_with_path, tree_leaves as leaves, tree_leaves_with_path as leaves_with_path,
    tree_map as map, tree_map_with_path as map_with_path, tree_reduce as reduce,  # noqa: A004
    tree_reduce_associative as reduce_associative, tree_structure as structure, tree_transpose as transpose,
    tree_unflatten as unflatten,
)

__all__ = [
    "all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map", "map_with_path",
    "reduce", "reduce_associative", "static", "structure", "transpose", "unflatten",
]


def static(**kwargs: Any) -> Any:
    """A dataclass field that `fg.tree_util.register_dataclass` keeps static (part of the tree's
    structure, not a leaf), as `jax.tree.static`: `dataclasses.field` with `static` in its metadata."""
    metadata = dict(kwargs.pop("metadata", None) or {})
    return dataclasses.field(**kwargs, metadata={**metadata, "static": True})
