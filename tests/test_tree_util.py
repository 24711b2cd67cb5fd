"""fg.tree_util: JAX's names for pytrees, and the user's own containers as pytree nodes; key paths,
is_leaf, prefixes, transposes and broadcasts against jax.tree_util."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pytest

import fgrad as fg
from fgrad import tree_util


class Pair:
    """A container of the user's own: two arrays and a static scale."""

    def __init__(self, a, b, scale):
        self.a, self.b, self.scale = a, b, scale


tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), p.scale), lambda scale, kids: Pair(*kids, scale))


@dataclasses.dataclass
class Layer:
    w: object
    b: object
    act: str = dataclasses.field(default="tanh", metadata=dict(static=True))


tree_util.register_dataclass(Layer)

X = np.array([1.0, -2.0, 0.5], np.float32)
Y = np.array([[0.5, 1.0], [2.0, -1.0]], np.float32)


def test_flatten_unflatten_leaves_and_structure():
    tree = {"p": Pair(X, Y, 3.0), "l": [Layer(X, 2.0), None]}
    leaves, treedef = tree_util.tree_flatten(tree)
    assert len(leaves) == 4 and treedef == tree_util.tree_structure(tree)
    assert [np.shape(x) for x in tree_util.tree_leaves(tree)] == [np.shape(x) for x in leaves]
    rebuilt = tree_util.tree_unflatten(treedef, leaves)
    assert isinstance(rebuilt["p"], Pair) and rebuilt["p"].scale == 3.0 and rebuilt["l"][1] is None
    assert isinstance(rebuilt["l"][0], Layer) and rebuilt["l"][0].act == "tanh"
    # the static parts belong to the structure
    assert tree_util.tree_structure(Pair(X, Y, 2.0)) != tree_util.tree_structure(Pair(X, Y, 3.0))
    assert tree_util.tree_structure(Layer(X, X, "relu")) != tree_util.tree_structure(Layer(X, X))


def test_tree_map_reduce_and_all_see_through_nodes():
    doubled = tree_util.tree_map(lambda x: x * 2, Pair(X, Y, 1.0))
    np.testing.assert_array_equal(doubled.b, Y * 2)
    assert tree_util.tree_reduce(lambda s, x: s + float(np.sum(x)), Pair(X, Y, 1.0), 0.0) == pytest.approx(
        float(X.sum() + Y.sum()))
    assert tree_util.tree_all(Pair(True, 1, 0)) and not tree_util.tree_all([True, 0])


def loss(p: Pair, layer: Layer):
    return fg.sum(fg.tanh(p.a * layer.w + layer.b) * p.scale) + fg.sum(p.b ** 2)


def test_grad_and_jit_take_registered_nodes():
    p, layer = Pair(X, Y, 2.0), Layer(X[::-1].copy(), np.float32(0.5))
    g = fg.grad(loss, argnums=(0, 1))(p, layer)
    assert isinstance(g[0], Pair) and isinstance(g[1], Layer) and g[0].scale == 2.0
    want = 2.0 * (1 - np.tanh(X * layer.w + 0.5) ** 2)
    np.testing.assert_allclose(np.asarray(g[0].a), want * layer.w, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(g[0].b), 2 * Y, rtol=1e-6)
    np.testing.assert_allclose(float(np.asarray(g[1].b)), want.sum(), rtol=1e-5)
    np.testing.assert_allclose(float(fg.jit(loss)(p, layer)), float(fg.interpret(fg.trace(loss, p, layer), p, layer)),
                               rtol=1e-6)
    assert "p.0" in str(fg.trace(loss, p, layer))  # inputs named by path: the node's children by index


def test_mistakes_are_clear_errors():
    class Bad:
        pass

    tree_util.register_pytree_node(Bad, lambda b: ((), [1]), lambda aux, kids: Bad())
    with pytest.raises(fg.InputError, match=r"pytree node Bad: its flatten function's aux data must be hashable"):
        tree_util.tree_flatten(Bad())
    with pytest.raises(fg.InputError, match=r"register_dataclass: expected a dataclass"):
        tree_util.register_dataclass(Pair)
    with pytest.raises(fg.InputError, match=r"missing \['b'\]"):
        tree_util.register_dataclass(Layer, data_fields=["w"], meta_fields=["act"])
    with pytest.raises(fg.InputError, match=r"tree_unflatten: the structure .* has 2 leaves, got 3"):
        tree_util.tree_unflatten(tree_util.tree_structure(Pair(X, Y, 1.0)), [X, X, X])


# --- key paths, is_leaf, prefixes, transposes: jax.tree_util as the oracle -------------------------------

jtu = pytest.importorskip("jax").tree_util
Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass
class Plain:  # a dataclass fgrad sees through unregistered; JAX after register_dataclass
    u: object
    v: object


jtu.register_dataclass(Plain, data_fields=["u", "v"], meta_fields=[])
jtu.register_dataclass(Layer, data_fields=["w", "b"], meta_fields=["act"])
TREE = {"b": [1.0, (2.0, None)], "a": Point(3.0, 4.0), "c": Plain(5.0, [6.0, 7.0]), "d": Layer(8.0, 9.0)}


def test_key_paths_and_their_text_are_jax_s():
    ours, _ = tree_util.tree_flatten_with_path(TREE)
    theirs, _ = jtu.tree_flatten_with_path(TREE)
    assert [(tree_util.keystr(p), v) for p, v in ours] == [(jtu.keystr(p), v) for p, v in theirs]
    assert [tree_util.keystr(p, simple=True, separator="/") for p, _ in ours] == \
        [jtu.keystr(p, simple=True, separator="/") for p, _ in theirs]
    assert [str(k) for k, _ in tree_util.flatten_one_level_with_keys({"a": 1, "b": 2})[0]] == ["['a']", "['b']"]
    depth = tree_util.tree_map_with_path(lambda path, x: (len(path), x), TREE)
    assert depth == jtu.tree_map_with_path(lambda path, x: (len(path), x), TREE)
    assert [v for _, v in tree_util.tree_leaves_with_path(TREE)] == tree_util.tree_leaves(TREE)


def test_a_node_registered_with_keys_names_its_children():
    class Box:
        def __init__(self, inside, label):
            self.inside, self.label = inside, label

    tree_util.register_pytree_with_keys(Box, lambda b: ([(tree_util.GetAttrKey("inside"), b.inside)], b.label),
                                        lambda label, kids: Box(kids[0], label))
    ((path, leaf),), treedef = tree_util.tree_flatten_with_path({"k": Box(X, "tag")})
    assert tree_util.keystr(path) == "['k'].inside" and leaf is X
    assert tree_util.tree_unflatten(treedef, [Y]).get("k").inside is Y
    assert tree_util.keystr(tree_util.tree_leaves_with_path(Pair(X, Y, 1.0))[1][0]) == "[<flat index 1>]"


def test_is_leaf_prefixes_transpose_and_broadcast_are_jax_s():
    def is_pair(x):
        return isinstance(x, tuple) and len(x) == 2

    tree = [(1, 2), [3, (4, 5)], None]
    for ours, theirs in [(tree_util.tree_leaves(tree, is_leaf=is_pair), jtu.tree_leaves(tree, is_leaf=is_pair)),
                         (fg.tree_map(lambda a, b: (a, b), {"x": 1, "y": 2}, {"x": [1, 2], "y": 3}),
                          jtu.tree_map(lambda a, b: (a, b), {"x": 1, "y": 2}, {"x": [1, 2], "y": 3})),
                         (tree_util.tree_map(str, tree, is_leaf=is_pair), jtu.tree_map(str, tree, is_leaf=is_pair)),
                         (tree_util.tree_transpose(tree_util.tree_structure([0, 0, 0]),
                                                   tree_util.tree_structure((0, 0)), [(1, 2), (3, 4), (5, 6)]),
                          jtu.tree_transpose(jtu.tree_structure([0, 0, 0]), jtu.tree_structure((0, 0)),
                                             [(1, 2), (3, 4), (5, 6)])),
                         (tree_util.tree_broadcast({"a": 0, "b": 1}, {"a": [1, 2], "b": 3}),
                          jtu.tree_broadcast({"a": 0, "b": 1}, {"a": [1, 2], "b": 3})),
                         (tree_util.all_leaves([1, X, None]), jtu.all_leaves([1, X, None])),
                         (tree_util.all_leaves([1, X]), jtu.all_leaves([1, X])),
                         ([tree_util.treedef_is_leaf(tree_util.tree_structure(t)) for t in (None, 1, [1], ())],
                          [jtu.treedef_is_leaf(jtu.tree_structure(t)) for t in (None, 1, [1], ())]),
                         (tree_util.tree_reduce_associative(lambda a, b: a + b, [1, [2, 3], 4]),
                          jtu.tree_reduce_associative(lambda a, b: a + b, [1, [2, 3], 4]))]:
        assert ours == theirs
    pair = tree_util.treedef_tuple([tree_util.tree_structure([0]), tree_util.tree_structure(0)])
    assert tree_util.tree_unflatten(pair, [1, 2]) == ([1], 2)
    with pytest.raises(fg.InputError, match=r"tree_map: structures differ at y: expected \[\*, \*\], got \*"):
        fg.tree_map(lambda a, b: a, {"x": 1, "y": [2, 3]}, {"x": 1, "y": 2})
    with pytest.raises(fg.InputError, match=r"tree_transpose: the tree does not have the outer structure"):
        tree_util.tree_transpose(tree_util.tree_structure([0, 0]), None, [(1, 2)])


def test_partial_classes_and_static_values_pass_through_jit_and_grad():
    scaled = tree_util.Partial(lambda a, b, c=0.0: a * b + c, np.float32(2.0), c=np.float32(1.0))
    assert tree_util.tree_leaves(scaled) == [np.float32(2.0), np.float32(1.0)]
    assert float(fg.jit(lambda p, x: p(x))(scaled, np.float32(3.0))) == 7.0
    assert float(fg.grad(lambda p, x: p(x))(scaled, np.float32(3.0)).args[0]) == 3.0  # d/da (a b + c) = b

    @tree_util.register_pytree_node_class
    class Scaled:
        def __init__(self, w, scale):
            self.w, self.scale = w, scale

        def tree_flatten(self):
            return (self.w,), self.scale

        @classmethod
        def tree_unflatten(cls, scale, children):
            return cls(children[0], scale)

    g = fg.grad(lambda s: fg.sum(s.w * s.w) * s.scale)(Scaled(X, 3.0))
    assert isinstance(g, Scaled) and g.scale == 3.0
    np.testing.assert_allclose(np.asarray(g.w), 6.0 * X, rtol=1e-6)

    @tree_util.register_static
    @dataclasses.dataclass(frozen=True)
    class Config:
        power: int

    assert tree_util.tree_leaves([Config(2), X]) == [X]
    np.testing.assert_allclose(np.asarray(fg.jit(lambda c, x: x ** c.power)(Config(3), X)), X ** 3, rtol=1e-6)
    with pytest.raises(fg.InputError, match=r"register_pytree_node_class: expected a class with tree_flatten"):
        tree_util.register_pytree_node_class(Pair)
    with pytest.raises(fg.InputError, match=r"flatten_one_level: a int is a leaf"):
        tree_util.flatten_one_level(3)


def test_jax_tree_names():
    """fg.tree is jax.tree: each name there, and what it does, against jax.tree's."""
    import jax

    assert sorted(fg.tree.__all__) == sorted(n for n in dir(jax.tree) if not n.startswith("_"))
    a, b = {"w": np.float32([1, 2]), "b": (3, None)}, {"w": np.float32([10, 20]), "b": (30, None)}
    np.testing.assert_array_equal(fg.tree.map(lambda x, y: x + y, a, b)["w"], [11, 22])
    assert fg.tree.leaves(a, is_leaf=lambda x: isinstance(x, tuple))[0] == (3, None)  # keys in order: b, w
    leaves, structure = fg.tree.flatten(a)
    assert fg.tree.unflatten(structure, leaves)["b"] == (3, None) and fg.tree.structure(a) == structure
    assert fg.tree.reduce(lambda x, y: x + y, [1, 2, 3], 10) == jax.tree.reduce(lambda x, y: x + y, [1, 2, 3], 10)
    assert fg.tree.all([True, 1]) and not fg.tree.all([True, 0])
    assert [tree_util.keystr(p) for p, _ in fg.tree.leaves_with_path(a)] == \
        [jax.tree_util.keystr(p) for p, _ in jax.tree.leaves_with_path(a)]
    assert fg.tree.map_with_path(lambda p, x: len(p), {"a": [1, 2]}) == {"a": [2, 2]}

    @dataclasses.dataclass
    class Layer:
        w: np.ndarray
        width: int = fg.tree.static(default=4)

    tree_util.register_dataclass(Layer)
    assert dataclasses.fields(Layer)[1].metadata["static"] is True
    layer = Layer(np.ones(2), 8)
    assert fg.tree.leaves(layer) == [layer.w] and fg.tree.map(lambda w: w * 2, layer).width == 8


def test_ravel_pytree_as_jax_s():
    import jax
    from jax.flatten_util import ravel_pytree as jax_ravel

    from fgrad.flatten_util import ravel_pytree

    trees = [
        {"a": np.arange(2, dtype=np.int32), "b": (np.zeros((2, 2), np.float16) + 0.5, 3.0)},
        [np.ones((2, 3), np.float32), np.float32(2), {"u": np.uint32([7, 8])}],
        {"only": np.arange(3, dtype=np.int32)},
        [],
    ]
    for tree in trees:
        flat, unravel = ravel_pytree(tree)
        want, jax_unravel = jax_ravel(tree)
        assert flat.dtype == want.dtype and np.array_equal(flat, want)
        back = unravel(flat)
        assert fg.tree_util.tree_structure(back) == fg.tree_util.tree_structure(tree)
        for got, was in zip(fg.tree_util.tree_leaves(back), jax.tree_util.tree_leaves(jax_unravel(want))):
            assert got.dtype == was.dtype and np.array_equal(got, was)
    # Traced: differentiated through and compiled.
    params = {"w": np.arange(4, dtype=np.float32).reshape(2, 2), "b": np.ones(3, np.float32)}
    grads = fg.grad(lambda p: fg.sum(ravel_pytree(p)[0] ** 2))(params)
    assert np.array_equal(grads["w"], 2 * params["w"]) and np.array_equal(grads["b"], 2 * params["b"])
    doubled = fg.jit(lambda p: ravel_pytree(p)[1](ravel_pytree(p)[0] * 2.0))(params)
    assert np.array_equal(doubled["w"].numpy(), params["w"] * 2)
    flat, unravel = ravel_pytree(trees[0])
    with pytest.raises(fg.ShapeError, match=r"unravel_pytree: expected a vector of 7 values, got shape \(6,\)"):
        unravel(flat[:6])
    with pytest.raises(fg.DTypeError, match="unravel_pytree: expected a vector of f32"):
        unravel(flat.astype(np.int32))


def test_is_leaf_takes_path_and_keys_given_to_register_pytree_node_are_jax_s():
    jax = pytest.importorskip("jax")
    tree = {"a": [1, 2], "b": (3, {"c": 4})}
    by_path = lambda path, node: len(path) == 1 and isinstance(node, list)  # noqa: E731
    for ours, theirs in ((fg.tree_util.tree_leaves_with_path, jax.tree_util.tree_leaves_with_path),
                         (fg.tree.leaves_with_path, jax.tree.leaves_with_path)):
        assert [(fg.tree_util.keystr(p), x) for p, x in ours(tree, is_leaf=by_path, is_leaf_takes_path=True)] == \
            [(jax.tree_util.keystr(p), x) for p, x in theirs(tree, is_leaf=by_path, is_leaf_takes_path=True)]
    f = lambda path, x, y: (len(path), x, y)  # noqa: E731
    tuples = lambda path, node: isinstance(node, tuple)  # noqa: E731
    assert fg.tree_util.tree_map_with_path(f, tree, tree, is_leaf=tuples, is_leaf_takes_path=True) == \
        jax.tree_util.tree_map_with_path(f, tree, tree, is_leaf=tuples, is_leaf_takes_path=True)
    with pytest.raises(fg.InputError, match="tree_map_with_path: structures differ"):
        fg.tree_util.tree_map_with_path(lambda p, x, y: x, [1, 2], [1])

    paths = []
    for lib in (fg.tree_util, jax.tree_util):
        class Pair:
            def __init__(self, a, b):
                self.a, self.b = a, b

        lib.register_pytree_node(Pair, lambda q: ((q.a, q.b), None), lambda aux, children: Pair(*children),
                                 flatten_with_keys_func=lambda q, lib=lib: (((lib.GetAttrKey("a"), q.a),
                                                                             (lib.GetAttrKey("b"), q.b)), None))
        paths.append([lib.keystr(p) for p, _ in lib.tree_leaves_with_path(Pair(1, [2, 3]))])
    assert paths[0] == paths[1] == [".a", ".b[0]", ".b[1]"]
