"""The IR: frozen types, structural equality and hashing, printing, typecheck, Const, DType, Spec."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad.ir import Const, DType, Graph, Node, Spec


def mlp(params, x):
    return fg.relu(x @ params["w"] + 1.0).sum(axis=1)


def mlp_args() -> tuple[Any, ...]:
    return {"w": fg.spec((3, 4))}, fg.spec((2, 3))


def replace_node(graph: Graph, i: int, **changes: Any) -> Graph:
    """The graph with node `i` changed by dataclasses.replace (a hand-corrupted copy)."""
    node = dataclasses.replace(graph.nodes[i], **changes)
    return dataclasses.replace(graph, nodes=graph.nodes[:i] + (node,) + graph.nodes[i + 1:])


def index_of(graph: Graph, op: str) -> int:
    return next(i for i, n in enumerate(graph.nodes) if n.op == op)


# -- frozen ----------------------------------------------------------------------


def test_spec_node_graph_const_are_frozen() -> None:
    g = fg.trace(mlp, *mlp_args())
    s = fg.spec((2, 3))
    c = Const.of([1.0, 2.0], DType.f32)
    cases = [(s, "shape", (4,)), (s, "dtype", DType.i32), (g.nodes[2], "op", "add"), (g.nodes[2], "site", None),
             (g, "nodes", ()), (g, "outputs", (0,)), (c, "data", b"")]
    for obj, name, value in cases:
        before = getattr(obj, name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, name, value)
        assert getattr(obj, name) == before


def test_replace_returns_a_new_graph_and_leaves_the_old_one() -> None:
    g = fg.trace(mlp, *mlp_args())
    text = str(g)
    i = index_of(g, "relu")
    g2 = replace_node(g, i, op="tanh")
    assert g.nodes[i].op == "relu" and g2.nodes[i].op == "tanh"
    assert str(g) == text
    assert g2 != g


# -- structural equality and hashing ---------------------------------------------------


def test_two_traces_of_one_function_are_equal() -> None:
    g1 = fg.trace(mlp, *mlp_args())
    g2 = fg.trace(mlp, *mlp_args())
    assert g1 is not g2
    assert g1 == g2
    assert hash(g1) == hash(g2)
    assert {g1: "cached"}[g2] == "cached"


def test_site_differs_between_lines_but_not_equality() -> None:
    def f(x):
        return fg.exp(x) * 2.0

    def g(x):
        return fg.exp(x) * 2.0

    a = fg.trace(f, fg.spec((2, 3)))
    b = fg.trace(g, fg.spec((2, 3)))
    exp_a, exp_b = a.nodes[index_of(a, "exp")], b.nodes[index_of(b, "exp")]
    assert exp_a.site == f"test_ir.py:{f.__code__.co_firstlineno + 1}"
    assert exp_b.site == f"test_ir.py:{g.__code__.co_firstlineno + 1}"
    assert exp_a.site != exp_b.site
    assert a.nodes[0].site != b.nodes[0].site  # the two trace calls are on different lines
    assert exp_a == exp_b and hash(exp_a) == hash(exp_b)
    assert a == b and hash(a) == hash(b)


def test_node_equality_ignores_site_only() -> None:
    s = fg.spec(3)
    n1 = Node("exp", (0,), (), s, site="a.py:1")
    n2 = Node("exp", (0,), (), s, site="b.py:99")
    assert n1 == n2 and hash(n1) == hash(n2)
    assert n1 != Node("log", (0,), (), s, site="a.py:1")
    assert n1 != Node("exp", (1,), (), s, site="a.py:1")
    assert n1 != Node("exp", (0,), (), fg.spec(4), site="a.py:1")
    assert Node("sum", (0,), (("axes", (0,)),), s) != Node("sum", (0,), (("axes", (1,)),), s)


def test_arrays_and_specs_give_the_same_graph() -> None:
    g1 = fg.trace(mlp, {"w": np.zeros((3, 4))}, np.ones((2, 3), np.float32))
    g2 = fg.trace(mlp, *mlp_args())
    assert g1 == g2 and hash(g1) == hash(g2)


def sq(x):
    return x * x


@pytest.mark.parametrize(
    "fn, args",
    [
        pytest.param(lambda x: fg.exp(x), (fg.spec((2, 3)),), id="other-op"),
        pytest.param(sq, (fg.spec((3, 3)),), id="other-shape"),
        pytest.param(sq, (fg.spec((2, 3), "i32"),), id="other-dtype"),
        pytest.param(lambda x: x * x + 1.0, (fg.spec((2, 3)),), id="extra-node"),
        pytest.param(lambda x: (x * x,), (fg.spec((2, 3)),), id="other-output-structure"),
        pytest.param(lambda x: x[0] * x[0], ([fg.spec((2, 3))],), id="other-input-structure"),
        pytest.param(lambda y: y * y, (fg.spec((2, 3)),), id="other-input-name"),
    ],
)
def test_different_functions_or_shapes_give_unequal_graphs(fn: Any, args: tuple[Any, ...]) -> None:
    base = fg.trace(sq, fg.spec((2, 3)))
    other = fg.trace(fn, *args)
    assert other != base
    assert hash(other) != hash(base)


def test_closed_over_constants_compare_by_value() -> None:
    def make(value: np.ndarray):
        return lambda x: x + value

    a = fg.trace(make(np.array([1.0, 2.0, 3.0])), fg.spec(3))
    b = fg.trace(make(np.array([1.0, 2.0, 3.0])), fg.spec(3))
    c = fg.trace(make(np.array([1.0, 2.0, 4.0])), fg.spec(3))
    assert a == b and hash(a) == hash(b)
    assert a != c


# -- printing --------------------------------------------------------------------


def test_str_graph_exact_listing() -> None:
    g = fg.trace(mlp, *mlp_args())
    assert str(g) == "\n".join([
        "graph(%0: f32[3,4] params.w, %1: f32[2,3] x) {",
        "  %2: f32[2,4] = matmul %1 %0",
        "  %3: f32[] = constant[value=1.0]",
        "  %4: f32[2,4] = broadcast_to[shape=(2, 4)] %3",
        "  %5: f32[2,4] = add %2 %4",
        "  %6: f32[2,4] = relu %5",
        "  %7: f32[2] = sum[axes=(1,)] %6",
        "  return %7  # *",
        "}",
    ])


def test_str_graph_shows_output_structure_and_dtypes() -> None:
    def f(x, n):
        return {"y": x.astype("i32") * n, "m": x > 0.5}, [x.T]

    text = str(fg.trace(f, fg.spec((2, 3)), fg.spec((), "i32")))
    assert text.startswith("graph(%0: f32[2,3] x, %1: i32[] n) {\n")
    assert "  %2: i32[2,3] = astype[dtype=i32] %0\n" in text
    assert "bool[2,3] = gt %0 %6\n" in text
    assert "  %8: f32[3,2] = transpose[perm=(1, 0)] %0\n" in text
    assert text.endswith("  return %7, %4, %8  # ({'m': *, 'y': *}, [*])\n}")


def test_str_graph_is_deterministic() -> None:
    def f(params, x):
        h = fg.tanh(x @ params["layers"][0]["w"])
        return fg.softmax(h @ params["layers"][1]["w"] + np.arange(5.0), axis=-1).mean()

    params = {"layers": [{"w": fg.spec((4, 8))}, {"w": fg.spec((8, 5))}]}
    t1 = str(fg.trace(f, params, fg.spec((2, 4))))
    t2 = str(fg.trace(f, params, fg.spec((2, 4))))
    assert t1 == t2
    assert "params.layers.0.w" in t1 and "params.layers.1.w" in t1
    assert "softmax[axis=1]" in t1 and "constant[value=[0.,1.,2.,3.,4.]]" in t1
    assert "0x" not in t1  # no id()-based names


def test_large_constant_prints_as_spec_and_digest() -> None:
    big = np.arange(100.0).reshape(10, 10)
    text = str(fg.trace(lambda x: x + big, fg.spec((10, 10))))
    line = next(l for l in text.splitlines() if "constant" in l)
    assert line.startswith("  %1: f32[10,10] = constant[value=<f32[10,10] ")
    assert str(fg.trace(lambda x: x + big, fg.spec((10, 10)))) == text


# -- graph properties ----------------------------------------------------------------------


def test_graph_inputs_outputs_and_names() -> None:
    g = fg.trace(mlp, *mlp_args())
    assert g.input_names == ("params.w", "x")
    assert g.in_specs == (fg.spec((3, 4)), fg.spec((2, 3)))
    assert g.out_specs == (fg.spec(2),)
    assert all(g.nodes[i].op == "input" for i in g.inputs)
    assert g.in_tree.num_leaves == 2 and g.out_tree.num_leaves == 1


# -- typecheck -------------------------------------------------------------------------


def test_typecheck_passes_on_traced_graphs() -> None:
    def many(x, idx):
        y = fg.concatenate([x, x[::2]], axis=0).T
        z = fg.take(x, idx, axis=0) @ y
        return {"z": fg.where(z > 0, z, -z).max(axis=0), "p": fg.pad(x, 1), "s": fg.log_softmax(x)}

    for g in [fg.trace(mlp, *mlp_args()), fg.trace(many, fg.spec((4, 3)), fg.spec(2, "i32"))]:
        assert fg.typecheck(g) is g


def test_typecheck_rejects_wrong_spec() -> None:
    g = fg.trace(mlp, *mlp_args())
    i = index_of(g, "matmul")
    bad = replace_node(g, i, spec=fg.spec((4, 2)))
    with pytest.raises(fg.GraphError, match=r"node %2 \(matmul\) declares f32\[4,2\] but its rule gives f32\[2,4\]"):
        fg.typecheck(bad)


def test_typecheck_rejects_wrong_dtype() -> None:
    g = fg.trace(mlp, *mlp_args())
    bad = replace_node(g, index_of(g, "relu"), spec=fg.spec((2, 4), "i32"))
    with pytest.raises(fg.GraphError, match="relu"):
        fg.typecheck(bad)


def test_typecheck_rejects_input_from_a_later_node() -> None:
    g = fg.trace(mlp, *mlp_args())
    i = index_of(g, "relu")
    bad = replace_node(g, i, inputs=(i + 1,))
    with pytest.raises(fg.GraphError, match="not earlier nodes") as e:
        fg.typecheck(bad)
    assert f"%{i} (relu)" in str(e.value)


def test_typecheck_rejects_self_reference_and_out_of_range_input() -> None:
    g = fg.trace(mlp, *mlp_args())
    i = index_of(g, "relu")
    for inputs in [(i,), (len(g.nodes) + 3,), (-1,)]:
        with pytest.raises(fg.GraphError, match="not earlier nodes"):
            fg.typecheck(replace_node(g, i, inputs=inputs))


def test_typecheck_rejects_unknown_op() -> None:
    g = fg.trace(mlp, *mlp_args())
    bad = replace_node(g, index_of(g, "relu"), op="frobnicate")
    with pytest.raises(fg.GraphError, match=r"\(frobnicate\) has an unknown op"):
        fg.typecheck(bad)


def test_typecheck_error_points_at_the_node_site() -> None:
    g = fg.trace(mlp, *mlp_args())
    bad = replace_node(g, index_of(g, "relu"), op="frobnicate")
    with pytest.raises(fg.GraphError) as e:
        fg.typecheck(bad)
    assert str(e.value).endswith(f"at test_ir.py:{mlp.__code__.co_firstlineno + 1}")


@pytest.mark.parametrize(
    "corrupt",
    [
        pytest.param(lambda g: replace_node(g, index_of(g, "sum"), params=(("axes", (0, 5)),)), id="bad-param"),
        pytest.param(lambda g: replace_node(g, index_of(g, "sum"), params=()), id="missing-param"),
        pytest.param(lambda g: replace_node(g, index_of(g, "sum"), params=(("axes", (1,)), ("k", 1))),
                     id="extra-param"),
        pytest.param(lambda g: replace_node(g, index_of(g, "matmul"), inputs=(1,)), id="missing-operand"),
        pytest.param(lambda g: replace_node(g, index_of(g, "relu"), inputs=(2, 2)), id="extra-operand"),
        pytest.param(lambda g: replace_node(g, index_of(g, "matmul"), inputs=(0, 1)), id="operands-swapped"),
        pytest.param(
            lambda g: replace_node(g, index_of(g, "relu"), op="concatenate", inputs=(), params=(("axis", 0),)),
            id="concatenate-without-operands",
        ),
        pytest.param(lambda g: dataclasses.replace(g, inputs=(0, 2)), id="graph-input-not-an-input-node"),
        pytest.param(lambda g: dataclasses.replace(g, inputs=(0, 0)), id="graph-input-twice"),
        pytest.param(lambda g: dataclasses.replace(g, outputs=(len(g.nodes),)), id="output-out-of-range"),
        pytest.param(lambda g: dataclasses.replace(g, outputs=(2, 3)), id="outputs-vs-structure"),
        pytest.param(
            lambda g: dataclasses.replace(g, inputs=(0,), in_tree=fg.trace(lambda x: x, 1.0).in_tree),
            id="input-node-not-a-graph-input",
        ),
    ],
)
def test_typecheck_rejects_corrupted_graphs(corrupt: Any) -> None:
    g = fg.trace(mlp, *mlp_args())
    assert fg.typecheck(g) is g
    with pytest.raises(fg.GraphError, match="typecheck"):
        fg.typecheck(corrupt(g))


# -- Const -------------------------------------------------------------------------------


def test_const_equality_and_hash_by_bytes() -> None:
    a = Const.of([1, 2, 3], DType.f32)
    b = Const.of(np.array([1.0, 2.0, 3.0], np.float64), DType.f32)
    assert a == b and hash(a) == hash(b)
    assert a.data == np.array([1, 2, 3], np.float32).tobytes()
    assert a != Const.of([1, 2, 4], DType.f32)
    assert a != Const.of([1, 2, 3], DType.i32)
    assert Const.of([[1, 2], [3, 4]], DType.f32) != Const.of([1, 2, 3, 4], DType.f32)


def test_const_nan_equals_itself_and_signed_zeros_differ() -> None:
    # Bytes, not values: NaN constants share a cache entry; -0.0 is a different constant.
    assert Const.of(np.nan, DType.f32) == Const.of(float("nan"), DType.f32)
    assert hash(Const.of(np.nan, DType.f32)) == hash(Const.of(float("nan"), DType.f32))
    assert Const.of(0.0, DType.f32) != Const.of(-0.0, DType.f32)


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (2.5, DType.f32, np.float32(2.5)),
        ([1.7, -1.7], DType.i32, np.array([1, -1], np.int32)),
        ([0, 2, 0], DType.bool, np.array([False, True, False])),
        (np.arange(6).reshape(2, 3), DType.f32, np.arange(6, dtype=np.float32).reshape(2, 3)),
    ],
)
def test_const_array_round_trip(value: Any, dtype: DType, expected: np.ndarray) -> None:
    c = Const.of(value, dtype)
    arr = c.array
    assert arr.dtype == dtype.np
    assert arr.shape == np.shape(expected) == c.shape
    np.testing.assert_array_equal(arr, expected)


def test_const_repr() -> None:
    assert repr(Const.of(2.5, DType.f32)) == "2.5"
    assert repr(Const.of([1, 2], DType.i32)) == "[1,2]"
    big = repr(Const.of(np.zeros(10), DType.f32))
    assert big.startswith("<f32[10] ") and big.endswith(">")
    assert big == repr(Const.of(np.zeros(10), DType.f32))
    assert big != repr(Const.of(np.ones(10), DType.f32))


# -- DType -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, expected",
    [
        (np.float64, DType.f32), (np.dtype("float64"), DType.f32), ("float64", DType.f32),
        (np.float32, DType.f32), ("float32", DType.f32), ("f32", DType.f32), (float, DType.f32),
        (np.int64, DType.i32), (np.dtype("int64"), DType.i32), (np.int32, DType.i32), (np.int8, DType.i8),
        ("i32", DType.i32), (int, DType.i32),
        (np.float16, DType.f16), ("float16", DType.f16), ("f16", DType.f16), (np.dtype("<f2"), DType.f16),
        (np.uint32, DType.u32), ("uint32", DType.u32), ("u32", DType.u32), (np.uint8, DType.u8),
        (np.uint64, DType.u32), (np.int16, DType.i16), ("uint16", DType.u16), ("u8", DType.u8),
        ("bfloat16", DType.bf16), (np.dtype("bfloat16"), DType.bf16), ("bf16", DType.bf16),
        (np.bool_, DType.bool), ("bool", DType.bool), (bool, DType.bool),
        (DType.f32, DType.f32), (DType.i32, DType.i32), (DType.f16, DType.f16), (DType.u32, DType.u32),
    ],
)
def test_dtype_of_conversions(x: Any, expected: DType) -> None:
    assert DType.of(x) is expected


@pytest.mark.parametrize(
    "value, expected",
    [(1.5, DType.f32), (3, DType.i32), (True, DType.bool), (np.float64(1.0), DType.f32), (np.int64(2), DType.i32)],
)
def test_dtype_of_values(value: Any, expected: DType) -> None:
    # DType.of's docstring promises "NumPy/Python value" as well as dtypes.
    assert DType.of(value) is expected


@pytest.mark.parametrize(
    "x", ["int4", "float8_e4m3fn", np.complex64, "complex64", np.complex128, "datetime64[s]", "nope", object, np.str_,
          [1]]
)
def test_dtype_of_unsupported_raises(x: Any) -> None:
    with pytest.raises(fg.DTypeError, match="unsupported dtype"):
        DType.of(x)


def test_dtype_properties() -> None:
    assert DType.f32.np == np.float32 and DType.i32.np == np.int32 and DType.bool.np == np.bool_
    assert DType.f16.np == np.float16 and DType.u32.np == np.uint32
    assert DType.f32.is_float and DType.f16.is_float and not DType.i32.is_float and not DType.bool.is_float
    assert DType.u32.is_int and DType.i32.is_int and not DType.f16.is_int and not DType.bool.is_int
    # bools, and the dtypes WGSL lacks, are held in 32 bits
    assert [d.device_itemsize for d in DType] == [4, 2, 4, 4, 4, 4, 4, 4, 4, 4]
    assert [d.itemsize for d in DType] == [4, 2, 2, 4, 4, 2, 2, 1, 1, 1]  # NumPy's
    assert DType.f16.wide is DType.f32 and DType.f32.wide is DType.f32 and DType.u32.wide is DType.u32
    assert DType.bf16.wide is DType.f32 and DType.bf16.is_float and DType.bf16.kind == "f" and DType.i8.is_int
    assert [d.row.feature for d in DType] == [None, "shader-f16", None, None, None, None, None, None, None, None]
    assert [str(d) for d in DType] == ["f32", "f16", "bf16", "i32", "u32", "i16", "u16", "i8", "u8", "bool"]
    assert fg.f32 is DType.f32 and fg.i32 is DType.i32


# -- Spec and fg.spec ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, shape, dtype",
    [
        (((32, 784),), (32, 784), DType.f32),
        ((10, "i32"), (10,), DType.i32),
        (([2, 3], "bool"), (2, 3), DType.bool),
        (((), DType.f32), (), DType.f32),
        (((np.int64(2), 3), np.float64), (2, 3), DType.f32),
    ],
)
def test_spec_constructor(args: tuple[Any, ...], shape: tuple[int, ...], dtype: DType) -> None:
    s = fg.spec(*args)
    assert s == Spec(shape, dtype)
    assert s.shape == shape and type(s.shape) is tuple and all(type(d) is int for d in s.shape)
    assert s.dtype is dtype
    assert hash(s) == hash(Spec(shape, dtype))


def test_spec_properties_and_str() -> None:
    s = fg.spec((2, 3, 4), "i32")
    assert (s.ndim, s.size, s.nbytes) == (3, 24, 96)
    assert str(s) == "i32[2,3,4]"
    assert str(fg.spec(())) == "f32[]" and fg.spec(()).size == 1
    assert str(fg.spec((5,), "bool")) == "bool[5]"
    assert fg.spec((2, 3)) != fg.spec((3, 2)) and fg.spec(3) != fg.spec(3, "i32")


@pytest.mark.parametrize("shape", [(3, -2), (-1, 3), (2.0, 3), ("2", 3), (True, 3), 3.5, "ab", None, True])
def test_spec_rejects_bad_dims_at_the_users_line(shape: Any) -> None:
    def make():
        return fg.spec(shape)

    with pytest.raises(fg.ShapeError, match=rf"^spec: invalid shape {re.escape(repr(shape))}") as e:
        make()
    assert str(e.value).endswith(f" at test_ir.py:{make.__code__.co_firstlineno + 1}")


@pytest.mark.parametrize("dtype", ["float8_e5m2", "complex64", "int4"])
def test_spec_rejects_unsupported_dtype_at_the_users_line(dtype: str) -> None:
    def make():
        return fg.spec((2, 3), dtype)

    with pytest.raises(fg.DTypeError, match=r"^spec: unsupported dtype") as e:
        make()
    assert str(e.value).endswith(f" at test_ir.py:{make.__code__.co_firstlineno + 1}")


def test_spec_takes_any_sequence_of_integers() -> None:
    assert fg.spec(np.array([2, 3])) == fg.spec([2, 3]) == fg.spec((np.int64(2), 3)) == Spec((2, 3), "f32")
    assert fg.spec(np.int32(4), "i32") == Spec((4,), "i32")
