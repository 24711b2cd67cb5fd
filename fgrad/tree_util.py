"""`jax.tree_util`'s names for fgrad's pytrees (fgrad/pytree.py): flatten, unflatten, map, reduce,
transpose and broadcast, key paths (`tree_flatten_with_path`, `keystr`), structures, and the
registration of the user's own containers (classes, dataclasses, keyed nodes, static values,
`Partial`)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from fgrad.errors import InputError
from fgrad.pytree import (
    LEAF, TreeDef, _children, broadcast_prefix, first_difference, flatten, flatten_up_to, register_node, tree_map,
    unflatten,
)
from fgrad.trace import user_site

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial", "PyTreeDef", "SequenceKey",
    "all_leaves", "flatten_one_level", "flatten_one_level_with_keys", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast", "tree_flatten",
    "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path", "tree_map", "tree_map_with_path", "tree_reduce",
    "tree_reduce_associative", "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children",
    "treedef_is_leaf", "treedef_tuple",
]

IsLeaf = Callable[[Any], bool] | None
PyTreeDef = TreeDef  # jax.tree_util's name for a structure


def tree_flatten(tree: Any, is_leaf: IsLeaf = None) -> tuple[list[Any], TreeDef]:
    """The leaves of `tree`, in a stable order, and its structure; a subtree for which `is_leaf`
    is true counts as one leaf."""
    return flatten(tree, is_leaf)


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


def tree_leaves(tree: Any, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of `tree`, in `tree_flatten`'s order."""
    return flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: IsLeaf = None) -> TreeDef:
    """The structure of `tree` with its leaves taken out (equal structures compare equal)."""
    return flatten(tree, is_leaf)[1]


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = ..., is_leaf: IsLeaf = None) -> Any:
    """`functools.reduce` over the leaves of `tree`."""
    leaves = flatten(tree, is_leaf)[0]
    if initializer is ... and not leaves:
        raise InputError("tree_reduce: the tree has no leaves; give an initializer", user_site())
    return functools.reduce(function, leaves) if initializer is ... else functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *, identity: Any = ...,
                            is_leaf: IsLeaf = None) -> Any:
    """The leaves of `tree` combined by the associative `operation`; `identity` for a tree
    without leaves."""
    leaves = flatten(tree, is_leaf)[0]
    if not leaves:
        if identity is ...:
            raise InputError("tree_reduce_associative: the tree has no leaves; give an identity", user_site())
        return identity
    while len(leaves) > 1:  # pairwise, as JAX's: a tree of operations of depth log n
        leaves = [operation(*leaves[k:k + 2]) if k + 1 < len(leaves) else leaves[k] for k in range(0, len(leaves), 2)]
    return leaves[0]


def tree_all(tree: Any, *, is_leaf: IsLeaf = None) -> bool:
    """Whether every leaf of `tree` is true."""
    return all(flatten(tree, is_leaf)[0])


def all_leaves(iterable: Any, is_leaf: IsLeaf = None) -> bool:
    """Whether each item of `iterable` is a leaf (None and empty containers are not)."""
    return all(flatten(x, is_leaf)[1] == LEAF for x in iterable)


def tree_transpose(outer_treedef: TreeDef, inner_treedef: TreeDef | None, pytree_to_transpose: Any) -> Any:
    """A tree of structure outer(inner) as one of structure inner(outer), as jax.tree_util's: a
    list of pairs as a pair of lists. `inner_treedef` None: the structure of the first inner tree."""
    for what, td in (("outer_treedef", outer_treedef), ("inner_treedef", inner_treedef)):
        if not isinstance(td, TreeDef) and not (td is None and what == "inner_treedef"):
            raise InputError(f"tree_transpose: {what} must be a structure (tree_structure), got a "
                             f"{type(td).__name__}", user_site())
    inners = flatten_up_to(outer_treedef, pytree_to_transpose)
    if inners is None:
        raise InputError(f"tree_transpose: the tree does not have the outer structure {outer_treedef}", user_site())
    if inner_treedef is None:
        inner_treedef = flatten(inners[0])[1] if inners else LEAF
    columns = []
    for inner in inners:
        leaves = flatten_up_to(inner_treedef, inner)
        if leaves is None:
            raise InputError(f"tree_transpose: an inner tree {flatten(inner)[1]} does not have the structure "
                             f"{inner_treedef}", user_site())
        columns.append(leaves)
    rows = [unflatten(outer_treedef, [column[k] for column in columns]) for k in range(inner_treedef.num_leaves)]
    return unflatten(inner_treedef, rows)


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: IsLeaf = None) -> Any:
    """`prefix_tree` repeated into the structure of `full_tree`: each of its leaves stands for
    every leaf below its place in `full_tree` (as `vmap`'s in_axes do)."""
    treedef = flatten(full_tree, is_leaf)[1]
    try:
        return unflatten(treedef, broadcast_prefix(prefix_tree, treedef, "tree_broadcast: the prefix tree"))
    except ValueError as e:
        raise InputError(str(e), user_site()) from None


# --- structures -------------------------------------------------------------------------------------------


def treedef_is_leaf(treedef: TreeDef) -> bool:
    """Whether the structure is one node without children: a leaf (also None, an empty container)."""
    return not treedef.children


def treedef_children(treedef: TreeDef) -> list[TreeDef]:
    """The structures of the children of the structure's root."""
    return list(treedef.children)


def treedef_tuple(treedefs: Any) -> TreeDef:
    """The structure of a tuple of trees of the structures `treedefs`."""
    return TreeDef("tuple", None, tuple(treedefs))


def _one_level(name: str, tree: Any) -> tuple[str, Hashable, list[Any]]:
    """(kind, meta, children) of the root of `tree`; a leaf has no level to flatten."""
    found = _children(tree)
    if found is None:
        raise InputError(f"{name}: a {type(tree).__name__} is a leaf, not a container", user_site())
    return found


def flatten_one_level(tree: Any) -> tuple[list[Any], Hashable]:
    """The children of the root of `tree` and what rebuilding it needs besides them (its keys,
    its class, its aux data)."""
    _, meta, children = _one_level("flatten_one_level", tree)
    return children, meta


def flatten_one_level_with_keys(tree: Any) -> tuple[tuple[tuple[Any, Any], ...], Hashable]:
    """flatten_one_level's children, each with its key entry (DictKey, SequenceKey, ...)."""
    kind, meta, children = _one_level("flatten_one_level_with_keys", tree)
    return tuple(zip(_key_entries(tree, kind, meta, len(children)), children)), meta


# --- key paths --------------------------------------------------------------------------------------------


class _Key:
    """A key entry of a key path: one field, written as `_text` formats it."""

    _text = "{}"

    @property
    def value(self) -> Any:
        return getattr(self, dataclasses.fields(self)[0].name)

    def __str__(self) -> str:
        return self._text.format(self.value)


@dataclasses.dataclass(frozen=True)
class DictKey(_Key):
    """A dict entry's key in a key path."""
    key: Hashable
    _text = "[{!r}]"


@dataclasses.dataclass(frozen=True)
class SequenceKey(_Key):
    """A list or tuple entry's index in a key path."""
    idx: int
    _text = "[{}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey(_Key):
    """A named tuple's or a dataclass's field in a key path."""
    name: str
    _text = ".{}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey(_Key):
    """A child's position among those of a node registered without keys."""
    key: int
    _text = "[<flat index {}>]"


KeyEntry = Any  # one of the key classes above, or a registered node's own keys
KeyPath = tuple[KeyEntry, ...]
# Nodes registered with keys (register_pytree_with_keys): class -> the function giving (key, child) pairs.
_KEYED: dict[type, Callable[[Any], tuple[Any, Hashable]]] = {}


def _key_entries(node: Any, kind: str, meta: Hashable, count: int) -> list[Any]:
    """The key entry of each of `node`'s `count` children, in flatten order (kind and meta as
    `_children` gives them)."""
    if kind == "dict":
        return [DictKey(k) for k in meta]
    if kind in ("list", "tuple"):
        return [SequenceKey(i) for i in range(count)]
    if kind in ("namedtuple", "dataclass"):
        return [GetAttrKey(name) for name in meta[1]]
    if kind == "node" and type(node) in _KEYED:
        return [key for key, _ in _KEYED[type(node)](node)[0]]
    return [FlattenedIndexKey(i) for i in range(count)]


def tree_flatten_with_path(tree: Any, is_leaf: IsLeaf = None,
                           is_leaf_takes_path: bool = False) -> tuple[list[tuple[KeyPath, Any]], TreeDef]:
    """tree_flatten's leaves, each with its key path (a tuple of key entries), and the structure;
    with `is_leaf_takes_path`, `is_leaf` is called as is_leaf(path, node)."""
    pairs: list[tuple[KeyPath, Any]] = []

    def leaf(node: Any, path: KeyPath) -> bool:
        return is_leaf is not None and bool(is_leaf(path, node) if is_leaf_takes_path else is_leaf(node))

    def walk(node: Any, path: KeyPath) -> TreeDef:  # pytree._structure's walk, keeping each leaf's path
        found = None if leaf(node, path) else _children(node)
        if found is None:
            pairs.append((path, node))
            return LEAF
        kind, meta, kids = found
        keys = _key_entries(node, kind, meta, len(kids))
        return TreeDef(kind, meta, tuple(walk(child, (*path, key)) for key, child in zip(keys, kids)))

    return pairs, walk(tree, ())


def tree_leaves_with_path(tree: Any, is_leaf: IsLeaf = None, is_leaf_takes_path: bool = False
                          ) -> list[tuple[KeyPath, Any]]:
    """The (key path, leaf) pairs of `tree`, in tree_flatten's order."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """tree_map whose function also gets each leaf's key path: f(path, leaf, *others); with
    `is_leaf_takes_path`, `is_leaf` is called as is_leaf(path, node)."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = []
    for other in rest:
        leaves = flatten_up_to(treedef, other)
        if leaves is None:
            path, what = first_difference(treedef, tree_structure(other))
            raise InputError(f"tree_map_with_path: structures differ at {path or 'the top level'}: {what}",
                             user_site())
        others.append(leaves)
    return tree_unflatten(treedef, [f(path, x, *xs) for (path, x), *xs in zip(pairs, *others)])


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: `['layers'][0].w`; with `simple`, the bare keys joined by `separator`
    (`layers/0/w` with "/")."""
    return separator.join(str(k.value) if simple and isinstance(k, _Key) else str(k) for k in keys)


def register_pytree_node(nodetype: type, flatten_func: Callable[[Any], tuple[Any, Hashable]],
                         unflatten_func: Callable[[Hashable, Any], Any],
                         flatten_with_keys_func: Callable[[Any], tuple[Any, Hashable]] | None = None) -> None:
    """Make instances of `nodetype` pytree containers, as jax.tree_util's: `flatten_func(x)` gives
    (children, aux_data), the aux data hashable and static; `unflatten_func(aux_data, children)`
    rebuilds one. Traced functions, transforms, `fg.jit` and `tree_map` then see through them.
    `flatten_with_keys_func(x)`, if given, gives ((key, child) pairs, aux_data): the keys of the
    children in key paths, as `register_pytree_with_keys`."""
    if flatten_with_keys_func is not None:
        register_pytree_with_keys(nodetype, flatten_with_keys_func, unflatten_func, flatten_func)
        return
    register_node(nodetype, flatten_func, unflatten_func)


def register_pytree_node_class(cls: type) -> type:
    """A class decorator: instances are pytree nodes through the class's own
    `tree_flatten(self) -> (children, aux_data)` and classmethod `tree_unflatten(aux_data, children)`."""
    if not isinstance(cls, type) or not hasattr(cls, "tree_flatten") or not hasattr(cls, "tree_unflatten"):
        raise InputError(f"register_pytree_node_class: expected a class with tree_flatten and tree_unflatten, got "
                         f"{cls!r}", user_site())
    register_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable[[Any], tuple[Any, Hashable]],
                              unflatten_func: Callable[[Hashable, Any], Any],
                              flatten_func: Callable[[Any], tuple[Any, Hashable]] | None = None) -> None:
    """register_pytree_node whose flatten function gives ((key, child) pairs, aux_data): the keys
    name the children in key paths (`tree_flatten_with_path`)."""
    if not callable(flatten_with_keys):
        raise InputError(f"register_pytree_with_keys: flatten_with_keys must be a function, got {flatten_with_keys!r}",
                         user_site())

    def keyed(x: Any) -> tuple[list[tuple[Any, Any]], Hashable]:
        pairs, aux = flatten_with_keys(x)
        return list(pairs), aux

    def plain(x: Any) -> tuple[list[Any], Hashable]:
        pairs, aux = keyed(x)
        return [child for _, child in pairs], aux

    register_node(nodetype, flatten_func or plain, unflatten_func)
    _KEYED[nodetype] = keyed


def register_pytree_with_keys_class(cls: type) -> type:
    """A class decorator: register_pytree_with_keys through the class's `tree_flatten_with_keys`,
    `tree_unflatten` (and `tree_flatten`, where it has one)."""
    if not isinstance(cls, type) or not hasattr(cls, "tree_flatten_with_keys") or not hasattr(cls, "tree_unflatten"):
        raise InputError(f"register_pytree_with_keys_class: expected a class with tree_flatten_with_keys and "
                         f"tree_unflatten, got {cls!r}", user_site())
    plain = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten, plain)
    return cls


def register_static(cls: type) -> type:
    """A class decorator: instances are nodes without children, the instance itself static (part
    of the structure, so hashable), as jax.tree_util's."""
    if not isinstance(cls, type):
        raise InputError(f"register_static: expected a class, got {cls!r}", user_site())
    register_node(cls, lambda x: ((), x), lambda aux, _: aux)
    return cls


class Partial(functools.partial):
    """functools.partial as a pytree, as jax.tree_util's: the bound arguments are its children (so
    a Partial passes through `fg.jit` and transforms as an argument), the function is static."""


register_node(Partial, lambda p: ((p.args, p.keywords), p.func),
              lambda func, children: Partial(func, *children[0], **children[1]))


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

    def with_keys(x: Any) -> tuple[list[tuple[GetAttrKey, Any]], tuple[Any, ...]]:
        children, aux = flatten_fn(x)
        return [(GetAttrKey(name), child) for name, child in zip(data, children)], aux

    register_pytree_with_keys(nodetype, with_keys, unflatten_fn, flatten_fn)
    return nodetype
