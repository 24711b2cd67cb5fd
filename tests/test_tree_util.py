"""fg.tree_util: JAX's names for pytrees, and the user's own containers as pytree nodes."""

from __future__ import annotations

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
