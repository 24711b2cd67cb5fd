"""`jax.tree_util`'s names for fgrad's pytrees (fgrad/pytree.py): flatten, unflatten, map, and the
registration of the user's own containers."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from fgrad.errors import InputError
from fgrad.pytree import TreeDef, flatten, register_node, tree_map, unflatten
from fgrad.trace import user_site

__all__ = ["register_dataclass", "register_pytree_node", "tree_all", "tree_flatten", "tree_leaves", "tree_map",
           "tree_reduce", "tree_structure", "tree_unflatten"]


def tree_flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    """The leaves of `tree`, in a stable order, and its structure."""
    return flatten(tree)


def tree_unflatten(treedef: TreeDef, leaves: Sequence[Any]) -> Any:
    """The pytree of structure `treedef` holding `leaves` (in `tree_flatten`'s order)."""
    if not isinstance(treedef, TreeDef):
        raise InputError(f"tree_unflatten: expected a structure from tree_structure or tree_flatten, got a "
                         f"{type(treedef).__name__}", user_site())
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise InputError(f"tree_unflatten: the structure {treedef} has {treedef.num_leaves} leaves, got "
                         f"{len(leaves)}", user_site())
    return unflatten(treedef, leaves)


def tree_leaves(tree: Any) -> list[Any]:
    """The leaves of `tree`, in `tree_flatten`'s order."""
    return flatten(tree)[0]


def tree_structure(tree: Any) -> TreeDef:
    """The structure of `tree` with its leaves taken out (equal structures compare equal)."""
    return flatten(tree)[1]


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = ...) -> Any:
    """`functools.reduce` over the leaves of `tree`."""
    leaves = flatten(tree)[0]
    return functools.reduce(function, leaves) if initializer is ... else functools.reduce(function, leaves, initializer)


def tree_all(tree: Any) -> bool:
    """Whether every leaf of `tree` is true."""
    return all(flatten(tree)[0])


def register_pytree_node(nodetype: type, flatten_func: Callable[[Any], tuple[Any, Hashable]],
                         unflatten_func: Callable[[Hashable, Any], Any]) -> None:
    """Make instances of `nodetype` pytree containers, as jax.tree_util's: `flatten_func(x)` gives
    (children, aux_data), the aux data hashable and static; `unflatten_func(aux_data, children)`
    rebuilds one. Traced functions, transforms, `fg.jit` and `tree_map` then see through them."""
    register_node(nodetype, flatten_func, unflatten_func)


def register_dataclass(nodetype: type, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()) -> type:
    """Make the dataclass `nodetype` a pytree whose `data_fields` are children and `meta_fields`
    static (hashable, part of the structure), as jax.tree_util's; without them, fields marked
    `field(metadata=dict(static=True))` are static and the others data. Usable as a decorator."""
    if not (isinstance(nodetype, type) and dataclasses.is_dataclass(nodetype)):
        raise InputError(f"register_dataclass: expected a dataclass, got {nodetype!r}", user_site())
    fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
    if data_fields is None and meta_fields is None:
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    data, meta = tuple(data_fields or ()), tuple(meta_fields or ())
    missing = sorted({f.name for f in fields} - set(data) - set(meta))
    unknown = sorted((set(data) | set(meta)) - {f.name for f in fields})
    if missing or unknown:
        raise InputError(f"register_dataclass: {nodetype.__name__}'s init fields must each be in data_fields or "
                         f"meta_fields: missing {missing}, unknown {unknown}", user_site())

    def flatten_fn(x: Any) -> tuple[list[Any], tuple[Any, ...]]:
        return [getattr(x, name) for name in data], tuple(getattr(x, name) for name in meta)

    def unflatten_fn(aux: tuple[Any, ...], children: Sequence[Any]) -> Any:
        return nodetype(**dict(zip(data, children)), **dict(zip(meta, aux)))

    register_node(nodetype, flatten_fn, unflatten_fn)
    return nodetype
