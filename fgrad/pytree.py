"""Pytrees: nested containers of leaves, flattened in a stable order.

Containers are dict (keys sorted), list, tuple, namedtuple, None and
dataclass instances, and classes registered with `register_node` (JAX's
`register_pytree_node`: the user's own containers); anything else is a leaf,
as are classes registered with `register_leaf` (fgrad's own frozen
dataclasses such as `Spec`). Leaf
paths are dotted names (`layers.0.w`) and name a graph's inputs; a dict key
that would read ambiguously there is written as its repr in brackets
(`params['a.b']`, `x['1']` beside the integer key `x.1`), so that
different leaves have different paths.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from fgrad.errors import InputError

_LEAF_TYPES: set[type] = set()
# Containers registered by their users: class -> (flatten, unflatten), as jax.tree_util's.
_NODE_TYPES: dict[type, tuple[Callable[[Any], tuple[Any, Hashable]], Callable[[Hashable, Any], Any]]] = {}


def register_leaf(cls: type) -> type:
    """Treat instances of `cls` (a dataclass, typically) as leaves, not containers."""
    _LEAF_TYPES.add(cls)
    return cls


def register_node(cls: type, flatten_fn: Callable[[Any], tuple[Any, Hashable]],
                  unflatten_fn: Callable[[Hashable, Any], Any]) -> type:
    """Make instances of `cls` containers: `flatten_fn(x)` gives (children, aux data), the aux data
    hashable and static; `unflatten_fn(aux, children)` rebuilds one (jax.tree_util's contract)."""
    from fgrad.trace import user_site  # NOTE: here because trace.py builds on this module

    if not isinstance(cls, type) or not callable(flatten_fn) or not callable(unflatten_fn):
        raise InputError(f"register_pytree_node: expected a class and two functions, got {cls!r}, "
                         f"{flatten_fn!r}, {unflatten_fn!r}", user_site())
    _NODE_TYPES[cls] = (flatten_fn, unflatten_fn)
    return cls


@dataclass(frozen=True, slots=True)
class TreeDef:
    """The structure of a pytree with its leaves taken out.

    `kind` is one of leaf, none, tuple, list, dict, namedtuple, dataclass, node;
    `meta` holds what rebuilding needs (dict keys, the class and its field
    names; a registered node's class, child indices and aux data; a structure
    read from a file names the class instead); `children` the sub-structures
    in leaf order.
    """

    kind: str
    meta: Hashable = None
    children: tuple[TreeDef, ...] = ()

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind == "leaf" else sum(c.num_leaves for c in self.children)

    def keys(self) -> tuple[str, ...]:
        """The path component of each child: index, field name or dict key (see `_key_text`)."""
        if self.kind == "dict":
            return tuple(_key_text(k) for k in self.meta)
        if self.kind in ("namedtuple", "dataclass", "node"):
            return self.meta[1]
        return tuple(str(i) for i in range(len(self.children)))

    def __str__(self) -> str:
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = [str(c) for c in self.children]
        if self.kind == "list":
            return "[" + ", ".join(inner) + "]"
        if self.kind == "tuple":
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {s}" for k, s in zip(self.meta, inner)) + "}"
        fields = ", ".join(f"{k}={s}" for k, s in zip(self.meta[1], inner))
        cls = self.meta[0]
        return f"{cls if isinstance(cls, str) else cls.__name__}({fields})"


LEAF = TreeDef("leaf")

# A string key reads as itself in a path unless it could be mistaken for a path's
# punctuation, for an integer key or index, or be empty.
_PLAIN_KEY = re.compile(r"(?!-?[0-9]+$)[\w-]+")


def _key_text(key: Any) -> str:
    """A dict key as a path component: `w`, `0` for the integer 0, else the repr in brackets: `['a.b']`, `['1']`."""
    if type(key) is int or (type(key) is str and _PLAIN_KEY.fullmatch(key)):
        return str(key)
    return f"[{key!r}]"


def join_path(path: str, key: str) -> str:
    """`path` extended by the component `key`: `layers.0`, `params['a.b']`."""
    if not path:
        return key
    return path + key if key.startswith("[") else f"{path}.{key}"


def split_path(path: str) -> tuple[str, str]:
    """The first component of `path` and the rest: `params.w` -> (`params`, `.w`), `x['a.b']` -> (`x`, `['a.b']`)."""
    head = re.match(r"[^.\[]*", path).group()
    return head, path[len(head):]


def _children(tree: Any) -> tuple[str, Hashable, list[Any]] | None:
    """(kind, meta, children) of a container, or None for a leaf."""
    if tree is None:
        return "none", None, []
    cls = type(tree)
    if cls in _LEAF_TYPES:
        return None
    if cls in _NODE_TYPES:
        kids, aux = _NODE_TYPES[cls][0](tree)
        kids = list(kids)
        try:
            hash(aux)
        except TypeError:
            from fgrad.trace import user_site  # NOTE: here because trace.py builds on this module

            raise InputError(f"pytree node {cls.__name__}: its flatten function's aux data must be hashable "
                             f"(it is static, part of the structure), got a {type(aux).__name__}", user_site()) from None
        return "node", (cls, tuple(str(i) for i in range(len(kids))), aux), kids
    if cls is dict:
        keys = tuple(sorted(tree, key=_sort_key))
        return "dict", keys, [tree[k] for k in keys]
    if cls is list:
        return "list", None, list(tree)
    if isinstance(tree, tuple) and hasattr(cls, "_fields"):
        return "namedtuple", (cls, tuple(cls._fields)), list(tree)
    if cls is tuple:
        return "tuple", None, list(tree)
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        names = tuple(f.name for f in dataclasses.fields(tree) if f.init)
        return "dataclass", (cls, names), [getattr(tree, n) for n in names]
    return None


def _sort_key(key: Any) -> tuple[str, Any]:
    # Keys of one type sort naturally; mixed types sort by type name first.
    return type(key).__name__, key


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], TreeDef]:
    """Leaves of `tree` in a stable order, and its structure; a subtree for which `is_leaf` is
    true is one leaf, as jax.tree_util's."""
    leaves: list[Any] = []
    return leaves, _structure(tree, leaves, is_leaf)


def _structure(node: Any, leaves: list[Any], is_leaf: Callable[[Any], bool] | None) -> TreeDef:
    """The structure of `node`, appending its leaves (see _walk's note)."""
    found = None if is_leaf is not None and is_leaf(node) else _children(node)
    if found is None:
        leaves.append(node)
        return LEAF
    kind, meta, kids = found
    return TreeDef(kind, meta, tuple(_structure(k, leaves, is_leaf) for k in kids))


def flatten_up_to(treedef: TreeDef, tree: Any) -> list[Any] | None:
    """The subtrees of `tree` at the leaves of `treedef`, in flatten order, where `tree` has that
    structure down to them (jax's `PyTreeDef.flatten_up_to`); else None."""
    out: list[Any] = []
    return out if _walk(tree, treedef, out, up_to=True) else None


def leaves_in(tree: Any, treedef: TreeDef) -> list[Any] | None:
    """The leaves of `tree` in flatten order if it has the structure `treedef`, else None: a
    compiled call's check of its arguments, walking the expected structure and building none."""
    leaves: list[Any] = []
    return leaves if _walk(tree, treedef, leaves) else None


# NOTE: module-level recursion, not closures: a recursive closure is a reference cycle, which
# would keep the leaves it saw (a call's result Arrays, their device buffers) until the garbage
# collector ran.
def _walk(node: Any, td: TreeDef, leaves: list[Any], up_to: bool = False) -> bool:
    """Whether `node` has the structure `td`, appending its leaves on the way; with `up_to`, what
    stands at a leaf of `td` may be any subtree."""
    kind, cls = td.kind, type(node)
    if kind == "leaf":
        leaves.append(node)
        return up_to or cls in _LEAF_TYPES or _children(node) is None
    if kind == "dict":
        if cls is not dict or len(node) != len(td.meta):
            return False
        for key, child in zip(td.meta, td.children):  # as many keys, each found: the same keys, in sorted order
            if key not in node or not _walk(node[key], child, leaves, up_to):
                return False
        return True
    if kind in ("list", "tuple") and cls is (list if kind == "list" else tuple):
        kids = node
    else:
        found = _children(node)
        if found is None or found[:2] != (kind, td.meta):
            return False
        kids = found[2]
    if len(kids) != len(td.children):
        return False
    for kid, child in zip(kids, td.children):
        if not _walk(kid, child, leaves, up_to):
            return False
    return True


def unflatten(treedef: TreeDef, leaves: list[Any] | tuple[Any, ...]) -> Any:
    """Rebuild a pytree of structure `treedef` from `leaves` (in flatten order)."""
    it = iter(leaves)
    try:  # the leaves counted as they are used: a count of the structure's walks it once more
        tree = _build(treedef, it)
        fits = next(it, _END) is _END
    except StopIteration:
        fits = False
    if not fits:
        raise ValueError(f"structure {treedef} has {treedef.num_leaves} leaves, got {len(leaves)}")
    return tree


_END = object()  # what an iterator of leaves gives once used up


def _build(td: TreeDef, it: Iterator[Any]) -> Any:
    """The pytree of structure `td` whose leaves come next from `it`."""
    if td.kind == "leaf":
        return next(it)
    kids = [_build(c, it) for c in td.children]
    if td.kind == "none":
        return None
    if td.kind == "list":
        return kids
    if td.kind == "tuple":
        return tuple(kids)
    if td.kind == "dict":
        return dict(zip(td.meta, kids))
    if td.kind == "namedtuple":
        return td.meta[0](*kids)
    if td.kind == "node":
        return _NODE_TYPES[td.meta[0]][1](td.meta[2], kids)
    return td.meta[0](**dict(zip(td.meta[1], kids)))


def broadcast_prefix(prefix: Any, treedef: TreeDef, what: str) -> list[Any]:
    """One value per leaf of `treedef`, from `prefix`, a pytree whose structure is a prefix of it
    (as `jax.vmap`'s `in_axes`): a leaf of `prefix` (None counts as one) stands for every leaf
    below its place. Raises ValueError naming `what` where the structures part."""
    out: list[Any] = []

    def walk(p: Any, td: TreeDef, path: str) -> None:
        found = None if p is None else _children(p)
        if found is None:
            out.extend([p] * td.num_leaves)
            return
        kind, meta, kids = found
        if td.kind == "leaf" or kind != td.kind or meta != td.meta or len(kids) != len(td.children):
            raise ValueError(f"{what}{' at ' + path if path else ''} has structure "
                             f"{TreeDef(kind, meta, tuple(LEAF for _ in kids))}, which is not a prefix of the "
                             f"argument's {td}")
        for key, k, c in zip(td.keys(), kids, td.children):
            walk(k, c, join_path(path, key))

    walk(prefix, treedef, "")
    return out


def leaf_paths(treedef: TreeDef, prefix: str = "") -> list[str]:
    """Dotted path of every leaf, in flatten order: `layers.0.w`."""

    def walk(td: TreeDef, path: str) -> Iterator[str]:
        if td.kind == "leaf":
            yield path
            return
        for key, child in zip(td.keys(), td.children):
            yield from walk(child, join_path(path, key))

    return list(walk(treedef, prefix))


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply `fn` leaf-wise over `tree` and the trees `rest`, as `jax.tree.map`: each of `rest`
    has tree's structure, or tree's as a prefix (fn then gets its subtrees at tree's leaves); a
    subtree of `tree` for which `is_leaf` is true is one leaf."""
    # NOTE: imported here because trace.py builds on this module.
    from fgrad.trace import user_site

    if not callable(fn):
        raise InputError(f"tree_map: expected a function, got a {type(fn).__name__}", user_site())
    leaves, td = flatten(tree, is_leaf)
    others = []
    for other in rest:
        other_leaves = flatten_up_to(td, other)
        if other_leaves is None:
            path, what = first_difference(td, flatten(other)[1])
            raise InputError(f"tree_map: structures differ at {path or 'the top level'}: {what}", user_site())
        others.append(other_leaves)
    return unflatten(td, [fn(*xs) for xs in zip(leaves, *others)])


def first_difference(expected: TreeDef, got: TreeDef, path: str = "") -> tuple[str, str] | None:
    """(path, what differs) at the first place two structures differ, or None if equal."""
    if expected.kind != got.kind or expected.meta != got.meta:
        return path, f"expected {expected}, got {got}"
    if len(expected.children) != len(got.children):
        return path, f"expected {len(expected.children)} entries, got {len(got.children)}"
    for key, a, b in zip(expected.keys(), expected.children, got.children):
        found = first_difference(a, b, join_path(path, key))
        if found:
            return found
    return None
