"""Pytrees: flatten / unflatten round trips, leaf order, paths, tree_map, leaf registration."""

from __future__ import annotations

import dataclasses
import re
from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad.pytree import (
    LEAF, TreeDef, first_difference, flatten, leaf_paths, leaves_in, register_leaf, tree_map, unflatten,
)

Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Layer:
    w: Any
    b: Any = None


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: Any
    b: Any


@dataclasses.dataclass
class WithDerived:
    """A field with init=False is recomputed by __init__, not carried as a child."""

    x: Any
    n: int = dataclasses.field(default=0, init=False)

    def __post_init__(self) -> None:
        self.n = 7


def same(a: Any, b: Any) -> bool:
    """Equality that also checks container types (a list is not a tuple here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


# -- round trips ---------------------------------------------------------------

ROUND_TRIPS = [
    pytest.param({"b": 1, "a": 2, "c": 3}, [2, 1, 3], id="dict-sorted-keys"),
    pytest.param([1, 2, 3], [1, 2, 3], id="list"),
    pytest.param((1, 2, 3), [1, 2, 3], id="tuple"),
    pytest.param((1,), [1], id="1-tuple"),
    pytest.param(Point(1, 2), [1, 2], id="namedtuple"),
    pytest.param(None, [], id="None"),
    pytest.param(Layer(1, 2), [1, 2], id="dataclass"),
    pytest.param(Frozen(1, 2), [1, 2], id="frozen-dataclass"),
    pytest.param(5, [5], id="bare-leaf"),
    pytest.param("text", ["text"], id="string-is-a-leaf"),
    pytest.param([], [], id="empty-list"),
    pytest.param((), [], id="empty-tuple"),
    pytest.param({}, [], id="empty-dict"),
    pytest.param(
        {"layers": [Layer(1, (2, 3)), Layer(4, None)], "head": Point(x={"z": 5, "y": 6}, y=[7])},
        [6, 5, 7, 1, 2, 3, 4],  # head.x.y, head.x.z, head.y.0, layers...
        id="nested",
    ),
]


@pytest.mark.parametrize("tree, leaves", ROUND_TRIPS)
def test_flatten_leaves_and_round_trip(tree: Any, leaves: list[Any]) -> None:
    got, td = flatten(tree)
    assert got == leaves
    assert td.num_leaves == len(leaves)
    back = unflatten(td, got)
    assert same(back, tree), (back, tree)


@pytest.mark.parametrize("tree, leaves", ROUND_TRIPS)
def test_unflatten_puts_new_leaves_in_flatten_order(tree: Any, leaves: list[Any]) -> None:
    _, td = flatten(tree)
    new = [f"leaf{i}" for i in range(len(leaves))]
    rebuilt = unflatten(td, new)
    assert flatten(rebuilt) == (new, td)


def test_containers_are_rebuilt_with_their_own_types() -> None:
    tree = {"p": Point(1, 2), "l": [3], "t": (4,), "d": Layer(5, 6), "n": None}
    back = unflatten(*reversed(flatten(tree)))
    assert type(back) is dict
    assert type(back["p"]) is Point and back["p"] == Point(1, 2)
    assert type(back["l"]) is list and type(back["t"]) is tuple
    assert type(back["d"]) is Layer and back["d"] == Layer(5, 6)
    assert back["n"] is None


def test_namedtuple_and_tuple_have_different_structures() -> None:
    assert flatten(Point(1, 2))[1] != flatten((1, 2))[1]
    assert flatten([1, 2])[1] != flatten((1, 2))[1]


def test_dataclass_init_false_fields_are_not_children() -> None:
    leaves, td = flatten(WithDerived(3))
    assert leaves == [3]
    back = unflatten(td, [9])
    assert back.x == 9 and back.n == 7


def test_dict_leaf_order_ignores_insertion_order() -> None:
    a = {"w": 1, "b": 2, "a": {"y": 3, "x": 4}}
    b = {"a": {"x": 4, "y": 3}, "b": 2, "w": 1}
    assert flatten(a) == flatten(b)
    assert flatten(a)[0] == [4, 3, 2, 1]


def test_dict_with_mixed_key_types_is_stable() -> None:
    leaves1, td1 = flatten({1: "one", "x": "ex", 0: "zero"})
    leaves2, td2 = flatten({"x": "ex", 0: "zero", 1: "one"})
    assert leaves1 == leaves2 == ["zero", "one", "ex"]
    assert td1 == td2


def test_flatten_is_deterministic_and_hashable() -> None:
    tree = {"layers": [Layer(np.ones(2), np.zeros(2))], "scale": 1.0}
    td1, td2 = flatten(tree)[1], flatten(tree)[1]
    assert td1 == td2 and hash(td1) == hash(td2)


def test_unflatten_wrong_leaf_count_raises() -> None:
    _, td = flatten({"a": 1, "b": [2, 3]})
    with pytest.raises(ValueError, match="3 leaves, got 2"):
        unflatten(td, [1, 2])


def test_treedef_str() -> None:
    _, td = flatten({"b": [1, (2,)], "a": Point(3, None), "c": Layer(4)})
    assert str(td) == "{'a': Point(x=*, y=None), 'b': [*, (*,)], 'c': Layer(w=*, b=None)}"


# -- leaf paths ------------------------------------------------------------------


def test_leaf_paths_dotted_names() -> None:
    params = {"layers": [{"w": 1, "b": 2}, {"w": 3, "b": 4}], "head": Point(5, Layer(6, 7))}
    _, td = flatten(params)
    assert leaf_paths(td) == [
        "head.x", "head.y.w", "head.y.b", "layers.0.b", "layers.0.w", "layers.1.b", "layers.1.w",
    ]
    assert leaf_paths(td, "params")[-1] == "params.layers.1.w"
    assert "params.layers.0.w" in leaf_paths(td, "params")


def test_leaf_paths_match_flatten_order() -> None:
    tree = {"b": [10, 20], "a": {"z": 30, "y": 40}}
    leaves, td = flatten(tree)
    by_path = dict(zip(leaf_paths(td), leaves))
    assert by_path == {"a.y": 40, "a.z": 30, "b.0": 10, "b.1": 20}


def test_leaf_paths_of_a_bare_leaf_is_the_prefix() -> None:
    assert leaf_paths(LEAF, "x") == ["x"]
    assert leaf_paths(flatten(None)[1], "x") == []


# -- tree_map --------------------------------------------------------------------


def test_tree_map_one_tree() -> None:
    out = tree_map(lambda v: v * 10, {"a": [1, 2], "b": Point(3, 4)})
    assert same(out, {"a": [10, 20], "b": Point(30, 40)})


def test_tree_map_several_trees() -> None:
    a = {"w": [1, 2], "b": Layer(3, 4)}
    b = {"b": Layer(30, 40), "w": [10, 20]}  # insertion order does not matter
    c = {"w": [100, 200], "b": Layer(300, 400)}
    out = tree_map(lambda x, y, z: x + y + z, a, b, c)
    assert same(out, {"w": [111, 222], "b": Layer(333, 444)})


def test_tree_map_is_exported_by_fgrad() -> None:
    assert fg.tree_map(lambda x: -x, [1, (2,)]) == [-1, (-2,)]


@pytest.mark.parametrize(
    "other, where",
    [
        pytest.param({"a": 1, "b": [2, 3, 4]}, "b", id="list-length"),
        pytest.param({"a": 1, "b": (2, 3)}, "b", id="list-vs-tuple"),
        pytest.param({"a": 1, "b": 5}, "b", id="list-vs-leaf"),
        pytest.param(5, "the top level", id="leaf-vs-dict"),
        pytest.param({"a": 1, "c": [2, 3]}, "the top level", id="dict-keys"),
    ],
)
def test_tree_map_mismatched_structures(other: Any, where: str) -> None:
    with pytest.raises(ValueError, match="tree_map: structures differ") as e:
        tree_map(lambda x, y: x + y, {"a": 1, "b": [2, 3]}, other)
    assert f"at {where}:" in str(e.value)


def test_tree_map_takes_trees_of_which_the_first_is_a_prefix():
    """As jax.tree.map: where the first tree has a leaf, the others may have subtrees."""
    assert tree_map(lambda x, y: (x, y), {"a": 1, "b": [2, 3]}, {"a": [1], "b": [2, 3]}) == \
        {"a": (1, [1]), "b": [(2, 2), (3, 3)]}


# -- first_difference --------------------------------------------------------------


@pytest.mark.parametrize("tree, leaves", ROUND_TRIPS)
def test_leaves_in_a_tree_of_the_same_structure_are_flattens(tree: Any, leaves: list[Any]) -> None:
    assert leaves_in(tree, flatten(tree)[1]) == leaves


@pytest.mark.parametrize("expected, got", [
    ({"a": 1, "b": 2}, {"a": 1, "c": 2}),  # as many keys, one of them another
    ({"a": 1, "b": 2}, {"a": 1}),
    ([1, 2], (1, 2)),
    ([1, 2], [1, 2, 3]),
    ([1, [2]], [1, 2]),
    ([1, 2], [1, [2]]),  # a container where a leaf is expected
    (Point(1, 2), (1, 2)),
    (Layer(1, 2), Frozen(1, 2)),
    (None, 1),
    ({"a": {"b": 1}}, {"a": [1]}),
])
def test_leaves_in_a_tree_of_another_structure_is_none(expected: Any, got: Any) -> None:
    assert first_difference(flatten(expected)[1], flatten(got)[1]) is not None
    assert leaves_in(got, flatten(expected)[1]) is None


def test_first_difference_equal_structures_is_none() -> None:
    td = flatten({"a": [1, Point(2, 3)]})[1]
    assert first_difference(td, flatten({"a": [9, Point(8, 7)]})[1]) is None


@pytest.mark.parametrize(
    "expected, got, path, needle",
    [
        pytest.param({"a": [1, 2]}, {"a": (1, 2)}, "a", "expected [*, *], got (*, *)", id="kind"),
        pytest.param({"a": [1, [2]]}, {"a": [1, 2]}, "a.1", "expected [*], got *", id="leaf-vs-list"),
        pytest.param([1, 2], [1, 2, 3], "", "expected 2 entries, got 3", id="length"),
        pytest.param({"a": 1, "b": 2}, {"a": 1}, "", "{'a': *, 'b': *}", id="dict-keys"),
        pytest.param(
            {"p": [Layer(1, 2)]}, {"p": [Layer(1, (2, 3))]}, "p.0.b", "expected *, got (*, *)", id="deep-dataclass"
        ),
        pytest.param(Point(1, 2), (1, 2), "", "Point", id="namedtuple-vs-tuple"),
    ],
)
def test_first_difference_reports_path_and_what(expected: Any, got: Any, path: str, needle: str) -> None:
    found = first_difference(flatten(expected)[1], flatten(got)[1])
    assert found is not None
    assert found[0] == path
    assert needle in found[1]


# -- leaf registration ---------------------------------------------------------------


def test_spec_is_a_leaf_not_a_dataclass_container() -> None:
    s = fg.spec((2, 3))
    assert dataclasses.is_dataclass(s)
    leaves, td = flatten({"w": s, "b": [s]})
    assert leaves == [s, s]
    assert all(leaf is s for leaf in leaves)
    assert td.keys() == ("b", "w")
    assert td.children[0].children[0] == LEAF and td.children[1] == LEAF
    assert flatten(s) == ([s], LEAF)


def test_register_leaf_makes_a_dataclass_a_leaf() -> None:
    @dataclasses.dataclass
    class Opaque:
        a: int
        b: int

    assert flatten(Opaque(1, 2))[0] == [1, 2]
    assert register_leaf(Opaque) is Opaque
    thing = Opaque(1, 2)
    leaves, td = flatten([thing])
    assert leaves == [thing] and td == TreeDef("list", None, (LEAF,))
    assert unflatten(td, leaves)[0] is thing


def test_tensor_is_a_leaf_inside_a_trace() -> None:
    seen = []

    def f(x):
        leaves, td = flatten({"x": x, "pair": (x, x)})
        seen.append((len(leaves), td.num_leaves, all(isinstance(v, fg.Tensor) for v in leaves)))
        return x

    fg.trace(f, fg.spec(3))
    assert seen == [(3, 3, True)]


# -- leaf paths are unique, and so are the input names made of them ------------------------------


class Tag:
    """A dict key whose repr does not tell its instances apart."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return "Tag"

    def __lt__(self, other: Tag) -> bool:
        return self.n < other.n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tag) and other.n == self.n

    def __hash__(self) -> int:
        return self.n


@pytest.mark.parametrize("tree, paths", [
    pytest.param({"a.b": 1, "a": {"b": 2}}, ["a.b", "['a.b']"], id="dotted-key"),
    pytest.param({1: 1, "1": 2}, ["1", "['1']"], id="int-and-digit-string"),
    pytest.param({-1: 1, "-1": 2}, ["-1", "['-1']"], id="negative"),
    pytest.param({True: 1, "True": 2}, ["[True]", "True"], id="bool-and-its-name"),
    pytest.param({"": 1, "x y": 2, "[0]": 3}, ["['']", "['[0]']", "['x y']"], id="empty-space-bracket"),
    pytest.param({"layer-1": {"w_0": 1}, "gewicht": [2]}, ["gewicht.0", "layer-1.w_0"], id="plain-keys-unchanged"),
    pytest.param({(0, 1): 1, None: 2}, ["[None]", "[(0, 1)]"], id="other-keys"),
    pytest.param([{"a.b": {"c": 1}}], ["0['a.b'].c"], id="quoted-inside"),
])
def test_leaf_paths_quote_keys_that_would_read_ambiguously(tree: Any, paths: list[str]) -> None:
    td = flatten(tree)[1]
    assert leaf_paths(td) == paths
    assert leaf_paths(td, "p") == [f"p{p}" if p.startswith("[") else f"p.{p}" for p in paths]
    assert len(set(paths)) == len(paths)


def _ramp(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.float32)


@pytest.mark.parametrize("params, fn, names", [
    pytest.param({"a.b": 2, "a": {"b": 3}}, lambda p: p["a.b"] * 2.0 + p["a"]["b"], ("p.a.b", "p['a.b']"),
                 id="dotted-key"),
    pytest.param({1: 2, "1": 3}, lambda p: p[1] * 2.0 + p["1"], ("p.1", "p['1']"), id="int-and-digit-string"),
    pytest.param({Tag(1): 2, Tag(2): 3}, lambda p: p[Tag(1)] * 2.0 + p[Tag(2)], ("p[Tag]", "p[Tag]~2"),
                 id="same-repr"),
])
def test_keys_that_print_alike_give_distinct_input_names(params: Any, fn: Any, names: tuple[str, ...]) -> None:
    specs = tree_map(lambda _: fg.spec(4), params)
    values = tree_map(lambda k: _ramp(4) * k, params)
    graph = fg.trace(fn, specs)
    assert graph.input_names == names and graph.arg_names == ("p",)
    fg.typecheck(graph)
    want = fn(values)
    np.testing.assert_array_equal(fg.interpret(graph, values), want)
    np.testing.assert_array_equal(np.asarray(fg.compile(graph)(values)), want)
    grads = fg.interpret(fg.grad(fg.trace(lambda p: fg.sum(fn(p)), specs)), values)
    assert tree_map(lambda g: g.tolist(), grads) == tree_map(lambda k: [2.0 if k == 2 else 1.0] * 4, params)
    leaves, td = flatten(values)
    wrong = unflatten(td, [leaves[0], _ramp(3)])
    with pytest.raises(fg.InputError, match=rf"argument {re.escape(names[1])} is float32\[3\], expected f32\[4\]"):
        fg.compile(graph)(wrong)


def test_a_closed_over_value_and_an_argument_path_that_print_alike_get_distinct_names() -> None:
    from fgrad.trace import trace_function

    inner = []

    def outer(y):
        graph, _ = trace_function(lambda closure: fg.sum(closure[0] * y), [(y,)], closures=True)
        inner.append(graph)
        return y

    fg.trace(outer, fg.spec(2))
    (graph,) = inner
    assert graph.input_names == ("closure.0", "closure.0~2")
    fg.typecheck(graph)
    np.testing.assert_array_equal(fg.interpret(graph, (_ramp(2),), (_ramp(2) + 1,)), np.float32(2.0))
