"""Tracing: arguments, input names, output structure, Tensor methods and operators, constants, sites."""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad.ir import DType, Graph

Pair = namedtuple("Pair", "a b")


@dataclasses.dataclass
class Linear:
    w: Any
    b: Any


def ops_of(graph: Graph) -> list[str]:
    return [n.op for n in graph.nodes]


def run(fn: Any, *args: Any) -> Any:
    """Trace `fn` on `args`, type-check the graph and interpret it on the same args."""
    g = fg.typecheck(fg.trace(fn, *args))
    return fg.interpret(g, *args)


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# -- arguments ---------------------------------------------------------------------


def test_trace_with_specs() -> None:
    g = fg.trace(lambda x, y: x + y, fg.spec((2, 3)), fg.spec((2, 3)))
    assert g.in_specs == (fg.spec((2, 3)), fg.spec((2, 3)))
    assert g.out_specs == (fg.spec((2, 3)),)
    assert ops_of(g) == ["input", "input", "add"]


def test_trace_with_numpy_arrays_reads_only_shape_and_dtype() -> None:
    g = fg.trace(lambda x, n: x * 2.0 + n, np.zeros((4, 5)), np.arange(5))
    assert g.in_specs == (fg.spec((4, 5), "f32"), fg.spec(5, "i32"))  # float64 -> f32, int64 -> i32
    assert g == fg.trace(lambda x, n: x * 2.0 + n, fg.spec((4, 5)), fg.spec(5, "i32"))
    consts = [n.attrs["value"].array.tolist() for n in g.nodes if n.op == "constant"]
    assert consts == [2.0]  # only the literal; argument values are not baked in


@pytest.mark.parametrize(
    "value, spec",
    [(2.5, fg.spec((), "f32")), (3, fg.spec((), "i32")), (True, fg.spec((), "bool")),
     (np.float32(1.0), fg.spec((), "f32")), (np.int64(4), fg.spec((), "i32")), (np.bool_(False), fg.spec((), "bool"))],
)
def test_trace_with_python_and_numpy_scalars(value: Any, spec: fg.Spec) -> None:
    g = fg.trace(lambda x: x, value)
    assert g.in_specs == (spec,)


def test_trace_with_bool_array() -> None:
    g = fg.trace(lambda m: fg.logical_not(m), np.array([True, False]))
    assert g.in_specs == (fg.spec(2, "bool"),)
    np.testing.assert_array_equal(fg.interpret(g, np.array([True, False])), [False, True])


def test_trace_with_dict_list_namedtuple_dataclass() -> None:
    def f(params, pair, xs):
        h = xs[0] @ params["layers"][0].w + params["layers"][0].b
        return h * pair.a + pair.b + xs[1]

    params = {"layers": [Linear(fg.spec((3, 4)), fg.spec(4))]}
    g = fg.trace(f, params, Pair(fg.spec(()), fg.spec(4)), [fg.spec((2, 3)), fg.spec((2, 4))])
    assert g.input_names == ("params.layers.0.w", "params.layers.0.b", "pair.a", "pair.b", "xs.0", "xs.1")
    assert g.in_specs == (fg.spec((3, 4)), fg.spec(4), fg.spec(()), fg.spec(4), fg.spec((2, 3)), fg.spec((2, 4)))

    w, b, x, y = f32(3, 4, seed=1), f32(4, seed=2), f32(2, 3, seed=3), f32(2, 4, seed=4)
    out = fg.interpret(g, {"layers": [Linear(w, b)]}, Pair(np.float32(2.0), b), [x, y])
    np.testing.assert_allclose(out, (x @ w + b) * 2.0 + b + y, rtol=1e-6)


def test_input_names_from_parameters_and_paths() -> None:
    def loss(params, batch, lr):
        return params["layers"][1]["w"].sum() + batch["x"].sum() + lr

    params = {"layers": [{"w": fg.spec(2), "b": fg.spec(2)}, {"w": fg.spec(3), "b": fg.spec(3)}]}
    g = fg.trace(loss, params, {"x": fg.spec(5), "y": fg.spec(5, "i32")}, 0.1)
    assert g.input_names == (
        "params.layers.0.b", "params.layers.0.w", "params.layers.1.b", "params.layers.1.w",
        "batch.x", "batch.y", "lr",
    )
    assert str(g).startswith("graph(%0: f32[2] params.layers.0.b, %1: f32[2] params.layers.0.w,")


def test_input_names_for_varargs_and_lambdas() -> None:
    assert fg.trace(lambda a, b: a + b, 1.0, 2.0).input_names == ("a", "b")
    assert fg.trace(lambda *xs: xs[0] + xs[1][0], 1.0, [2.0]).input_names == ("xs.0", "xs.1.0")
    assert fg.trace(lambda x, *rest: x + rest[0], 1.0, 2.0).input_names == ("x", "rest.0")
    assert fg.trace(lambda arg1, *more: arg1 + more[0], 1.0, 2.0).input_names == ("arg1", "more.0")


def test_trace_with_none_and_empty_containers_in_arguments() -> None:
    g = fg.trace(lambda x, opt, extra: x * 2.0, fg.spec(3), None, {"skip": []})
    assert g.input_names == ("x",)
    out = fg.interpret(g, np.ones(3, np.float32), None, {"skip": []})
    np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])


# -- outputs ----------------------------------------------------------------------------


def test_output_structure_preserved_by_interpret() -> None:
    def f(x, y):
        return {"sum": x + y, "parts": [x, (y, None)]}, Pair(x * y, Linear(x - y, 3.0))

    x, y = f32(2, 3, seed=1), f32(2, 3, seed=2)
    out = run(f, x, y)
    assert isinstance(out, tuple) and len(out) == 2
    first, second = out
    assert type(first) is dict and sorted(first) == ["parts", "sum"]
    assert type(first["parts"]) is list and type(first["parts"][1]) is tuple and first["parts"][1][1] is None
    assert type(second) is Pair and type(second.b) is Linear
    np.testing.assert_allclose(first["sum"], x + y, rtol=1e-6)
    np.testing.assert_array_equal(first["parts"][0], x)
    np.testing.assert_array_equal(first["parts"][1][0], y)
    np.testing.assert_allclose(second.a, x * y, rtol=1e-6)
    np.testing.assert_allclose(second.b.w, x - y, rtol=1e-6)
    assert second.b.b.dtype == np.float32 and second.b.b.shape == () and second.b.b == 3.0


def test_returning_an_input_unchanged() -> None:
    g = fg.trace(lambda x, y: y, fg.spec(3), fg.spec((2, 2), "i32"))
    assert g.outputs == (g.inputs[1],)
    assert ops_of(g) == ["input", "input"]
    y = np.array([[1, 2], [3, 4]], np.int32)
    out = fg.interpret(g, np.zeros(3, np.float32), y)
    np.testing.assert_array_equal(out, y)
    assert out.dtype == np.int32
    assert out is not y  # the caller's array is not handed back


@pytest.mark.parametrize(
    "value, dtype", [(3, np.int32), (2.5, np.float32), (True, np.bool_), (np.float64(1.5), np.float32)]
)
def test_returning_a_constant_number(value: Any, dtype: type) -> None:
    g = fg.trace(lambda x: value, fg.spec(3))
    assert ops_of(g) == ["input", "constant"]
    out = fg.interpret(g, np.zeros(3, np.float32))
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == dtype
    assert out == value


def test_returning_none_and_shared_outputs() -> None:
    g = fg.trace(lambda x: None, fg.spec(2))
    assert g.outputs == () and fg.interpret(g, np.ones(2)) is None
    g2 = fg.trace(lambda x: (fg.exp(x), fg.exp(x)), fg.spec(2))
    a, b = fg.interpret(g2, np.zeros(2, np.float32))
    np.testing.assert_array_equal(a, [1.0, 1.0])
    np.testing.assert_array_equal(b, [1.0, 1.0])


# -- Tensor properties and methods -------------------------------------------------


def test_tensor_properties() -> None:
    seen = {}

    def f(x, n):
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, size=x.size, spec=x.spec, len=len(x),
                    nshape=n.shape, ndtype=n.dtype, nndim=n.ndim, nsize=n.size, tshape=x.T.shape)
        assert isinstance(x, fg.Tensor)
        return x

    fg.trace(f, fg.spec((2, 3, 4)), fg.spec((), "i32"))
    assert seen == dict(shape=(2, 3, 4), dtype=fg.f32, ndim=3, size=24, spec=fg.spec((2, 3, 4)), len=2,
                        nshape=(), ndtype=fg.i32, nndim=0, nsize=1, tshape=(4, 3, 2))


METHODS = [
    pytest.param(lambda x: x.T, lambda x: x.T, id="T"),
    pytest.param(lambda x: x.reshape(3, 4), lambda x: x.reshape(3, 4), id="reshape-varargs"),
    pytest.param(lambda x: x.reshape((3, 4)), lambda x: x.reshape((3, 4)), id="reshape-tuple"),
    pytest.param(lambda x: x.reshape([2, 6]), lambda x: x.reshape([2, 6]), id="reshape-list"),
    pytest.param(lambda x: x.reshape(-1), lambda x: x.reshape(-1), id="reshape-minus-one"),
    pytest.param(lambda x: x.reshape(4, -1), lambda x: x.reshape(4, -1), id="reshape-infer"),
    pytest.param(lambda x: x.transpose(), lambda x: x.transpose(), id="transpose-none"),
    pytest.param(lambda x: x.transpose(1, 0), lambda x: x.transpose(1, 0), id="transpose-varargs"),
    pytest.param(lambda x: x.transpose((1, 0)), lambda x: x.transpose((1, 0)), id="transpose-tuple"),
    pytest.param(lambda x: x.sum(), lambda x: x.sum(), id="sum"),
    pytest.param(lambda x: x.sum(0), lambda x: x.sum(0), id="sum-axis"),
    pytest.param(lambda x: x.sum(axis=-1, keepdims=True), lambda x: x.sum(axis=-1, keepdims=True), id="sum-keepdims"),
    pytest.param(lambda x: x.mean(), lambda x: x.mean(), id="mean"),
    pytest.param(lambda x: x.mean(axis=1), lambda x: x.mean(axis=1), id="mean-axis"),
    pytest.param(lambda x: x.max(), lambda x: x.max(), id="max"),
    pytest.param(lambda x: x.max(axis=0, keepdims=True), lambda x: x.max(axis=0, keepdims=True), id="max-keepdims"),
    pytest.param(lambda x: x.min(), lambda x: x.min(), id="min"),
    pytest.param(lambda x: x.min(axis=1), lambda x: x.min(axis=1), id="min-axis"),
    pytest.param(lambda x: x.astype("i32"), lambda x: x.astype(np.int32), id="astype-i32"),
    pytest.param(lambda x: x.astype(fg.i32), lambda x: x.astype(np.int32), id="astype-DType"),
    pytest.param(lambda x: x.astype("bool"), lambda x: x.astype(bool), id="astype-bool"),
    pytest.param(lambda x: x.reshape(1, 3, 1, 4).squeeze(), lambda x: x.reshape(1, 3, 1, 4).squeeze(), id="squeeze"),
    pytest.param(lambda x: x.reshape(1, 3, 1, 4).squeeze(2), lambda x: x.reshape(1, 3, 1, 4).squeeze(2),
                 id="squeeze-axis"),
    pytest.param(lambda x: x[1], lambda x: x[1], id="getitem-int"),
    pytest.param(lambda x: x[-1, 1:3], lambda x: x[-1, 1:3], id="getitem-slice"),
    pytest.param(lambda x: x[:, None, ::2], lambda x: x[:, None, ::2], id="getitem-newaxis-step"),
    pytest.param(lambda x: x[..., 0], lambda x: x[..., 0], id="getitem-ellipsis"),
    pytest.param(lambda x: x[np.array([2, 0])], lambda x: x[np.array([2, 0])], id="getitem-int-array"),
]


@pytest.mark.parametrize("method, reference", METHODS)
def test_tensor_methods_match_numpy(method: Any, reference: Any) -> None:
    x = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) * 0.7
    out = run(method, x)
    want = np.asarray(reference(x))
    assert out.shape == want.shape
    assert out.dtype == (np.float32 if want.dtype == np.float64 else want.dtype)
    np.testing.assert_allclose(out, want, rtol=1e-6)


OPERATORS = [
    pytest.param(lambda x, y: x + y, id="add"),
    pytest.param(lambda x, y: x - y, id="sub"),
    pytest.param(lambda x, y: x * y, id="mul"),
    pytest.param(lambda x, y: x / y, id="div"),
    pytest.param(lambda x, y: x ** 2, id="pow-int"),
    pytest.param(lambda x, y: abs(x) ** y, id="pow-tensor"),
    pytest.param(lambda x, y: x @ y.T, id="matmul"),
    pytest.param(lambda x, y: -x, id="neg"),
    pytest.param(lambda x, y: +x, id="pos"),
    pytest.param(lambda x, y: abs(x), id="abs"),
    pytest.param(lambda x, y: x < y, id="lt"),
    pytest.param(lambda x, y: x <= y, id="le"),
    pytest.param(lambda x, y: x > y, id="gt"),
    pytest.param(lambda x, y: x >= y, id="ge"),
    pytest.param(lambda x, y: x == y, id="eq"),
    pytest.param(lambda x, y: x != y, id="ne"),
    pytest.param(lambda x, y: (x > 0) & (y > 0), id="and"),
    pytest.param(lambda x, y: (x > 0) | (y > 0), id="or"),
    pytest.param(lambda x, y: ~(x > 0), id="invert"),
    # reflected operators: the left operand is a number or a NumPy array
    pytest.param(lambda x, y: 2 - x, id="rsub"),
    pytest.param(lambda x, y: 1 / y, id="rtruediv"),
    pytest.param(lambda x, y: 3.0 + x, id="radd"),
    pytest.param(lambda x, y: 0.5 * x, id="rmul"),
    pytest.param(lambda x, y: 2.0 ** x, id="rpow"),
    pytest.param(lambda x, y: np.arange(4.0) + x, id="ndarray-radd"),
    pytest.param(lambda x, y: np.full((3, 4), 10.0) - x, id="ndarray-rsub"),
    pytest.param(lambda x, y: np.ones((2, 3)) @ x, id="ndarray-rmatmul"),
    pytest.param(lambda x, y: np.arange(4.0) > x, id="ndarray-rcompare"),
    pytest.param(lambda x, y: 1 < x, id="number-rcompare"),
]


@pytest.mark.parametrize("op", OPERATORS)
def test_operators_match_numpy(op: Any) -> None:
    x = f32(3, 4, seed=5)
    y = np.abs(f32(3, 4, seed=6)) + 0.5
    out = run(op, x, y)
    want = np.asarray(op(x, y))
    assert out.shape == want.shape
    assert out.dtype == (np.float32 if want.dtype == np.float64 else want.dtype)
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_reflected_operators_keep_operand_order() -> None:
    g = fg.trace(lambda x: 2 - x, fg.spec(3))
    sub = g.nodes[-1]
    assert sub.op == "sub"
    assert g.nodes[sub.inputs[1]].op == "input"  # x is the right operand
    np.testing.assert_array_equal(fg.interpret(g, np.array([1.0, 2.0, 5.0])), [1.0, 0.0, -3.0])
    g2 = fg.trace(lambda x: 1 / x, fg.spec(2))
    np.testing.assert_array_equal(fg.interpret(g2, np.array([2.0, 4.0])), [0.5, 0.25])


def test_len_and_iteration() -> None:
    def f(x):
        assert len(x) == 3
        rows = list(x)
        assert len(rows) == 3 and all(isinstance(r, fg.Tensor) and r.shape == (4,) for r in rows)
        return [r * float(i) for i, r in enumerate(x)]

    x = f32(3, 4, seed=7)
    out = run(f, x)
    assert isinstance(out, list) and len(out) == 3
    for i, row in enumerate(out):
        np.testing.assert_allclose(row, x[i] * i, rtol=1e-6)


def test_iteration_unpacks_like_numpy() -> None:
    def f(pair):
        a, b = pair
        return a - b

    x = f32(2, 5, seed=8)
    np.testing.assert_allclose(run(f, x), x[0] - x[1], rtol=1e-6)


# -- constants -------------------------------------------------------------------------


def test_closed_over_numpy_array_becomes_a_constant_node() -> None:
    table = np.array([[1.5, -2.0, 3.25], [0.0, 4.0, -1.0]])

    def f(x):
        return x + table

    g = fg.trace(f, fg.spec((2, 3)))
    consts = [n for n in g.nodes if n.op == "constant"]
    assert len(consts) == 1
    value = consts[0].attrs["value"]
    assert consts[0].spec == fg.spec((2, 3), "f32")
    assert value.dtype is DType.f32 and value.shape == (2, 3)
    np.testing.assert_array_equal(value.array, table.astype(np.float32))
    x = f32(2, 3, seed=9)
    np.testing.assert_allclose(fg.interpret(g, x), x + table, rtol=1e-6)


def test_closed_over_integer_array_keeps_its_dtype() -> None:
    idx = np.array([2, 0, 1])

    def f(n):
        return n * idx

    g = fg.trace(f, fg.spec((), "i32"))
    (const,) = [n for n in g.nodes if n.op == "constant"]
    assert const.spec == fg.spec(3, "i32")
    np.testing.assert_array_equal(const.attrs["value"].array, idx)
    np.testing.assert_array_equal(fg.interpret(g, 2), idx * 2)


@pytest.mark.parametrize(
    "scale, x_dtype, const_dtype",
    [(0.25, "f32", DType.f32), (3, "f32", DType.f32), (3, "i32", DType.i32), (2.5, "i32", DType.f32)],
)
def test_closed_over_python_scalar_becomes_a_constant_node(scale: Any, x_dtype: str, const_dtype: DType) -> None:
    def f(x):
        return x * scale

    g = fg.trace(f, fg.spec(4, x_dtype))
    (const,) = [n for n in g.nodes if n.op == "constant"]
    value = const.attrs["value"]
    assert const.spec == fg.spec((), const_dtype)
    assert value.array.item() == scale
    x = np.arange(4).astype(x_dtype.replace("f32", "float32").replace("i32", "int32"))
    out = fg.interpret(g, x)
    np.testing.assert_array_equal(out, x * scale)
    assert out.dtype == const_dtype.np


def test_constants_are_not_inputs() -> None:
    w = np.ones((3, 2))
    g = fg.trace(lambda x: x @ w, fg.spec((4, 3)))
    assert g.input_names == ("x",)
    assert len(g.inputs) == 1


# -- call sites ---------------------------------------------------------------------------


def test_each_node_records_the_user_line() -> None:
    def f(x, w):
        h = x @ w
        h = h + 1.0
        return fg.relu(h).sum()

    g = fg.trace(f, fg.spec((2, 3)), fg.spec((3, 4)))
    line = f.__code__.co_firstlineno
    by_op = {n.op: n.site for n in g.nodes if n.op != "input"}
    assert by_op == {
        "matmul": f"test_trace.py:{line + 1}",
        "constant": f"test_trace.py:{line + 2}",
        "broadcast_to": f"test_trace.py:{line + 2}",
        "add": f"test_trace.py:{line + 2}",
        "relu": f"test_trace.py:{line + 3}",
        "sum": f"test_trace.py:{line + 3}",
    }


def test_sites_of_methods_operators_and_iteration_are_user_lines() -> None:
    def f(x):
        a = x.reshape(4, 3)
        b = a.T.sum(axis=0)
        c = [r for r in x]
        return 2 - b, c

    g = fg.trace(f, fg.spec((3, 4)))
    line = f.__code__.co_firstlineno
    sites = {n.site for n in g.nodes if n.op != "input"}
    assert sites == {f"test_trace.py:{line + k}" for k in (1, 2, 3, 4)}
    assert {n.site for n in g.nodes if n.op == "reshape"} == {f"test_trace.py:{line + 1}", f"test_trace.py:{line + 3}"}
    assert [n.site for n in g.nodes if n.op == "slice"] == [f"test_trace.py:{line + 3}"] * 3
    assert [n.site for n in g.nodes if n.op == "sub"] == [f"test_trace.py:{line + 4}"]


def test_input_nodes_record_the_trace_call_line() -> None:
    def call():
        return fg.trace(lambda x, y: x + y, fg.spec(2), fg.spec(2))

    g = call()
    assert [g.nodes[i].site for i in g.inputs] == [f"test_trace.py:{call.__code__.co_firstlineno + 1}"] * 2


# -- trace state -----------------------------------------------------------------------


def test_nested_traces_are_independent() -> None:
    inner_graphs = []

    def outer(x):
        inner_graphs.append(fg.trace(lambda y: fg.exp(y), fg.spec(5)))
        return x * 3.0

    g = fg.trace(outer, fg.spec(2))
    assert ops_of(inner_graphs[0]) == ["input", "exp"]
    assert "exp" not in ops_of(g)
    np.testing.assert_array_equal(fg.interpret(g, np.ones(2)), [3.0, 3.0])


def test_failed_trace_leaves_no_active_trace() -> None:
    def boom(x):
        y = x * 2.0
        raise KeyError("user bug")

    with pytest.raises(KeyError, match="user bug"):
        fg.trace(boom, fg.spec(3))
    # outside any trace, ops run eagerly on NumPy arrays again
    out = fg.exp(np.zeros(3))
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, [1.0, 1.0, 1.0])
    g = fg.trace(lambda x: x + 1.0, fg.spec(3))
    assert ops_of(g) == ["input", "constant", "broadcast_to", "add"]


def test_tracing_twice_gives_equal_graphs_and_does_not_call_twice_per_trace() -> None:
    calls = []

    def f(x):
        calls.append(x.shape)
        return fg.tanh(x)

    g1 = fg.trace(f, fg.spec((2, 2)))
    g2 = fg.trace(f, np.zeros((2, 2)))
    assert calls == [(2, 2), (2, 2)]
    assert g1 == g2


def test_numpy_ufuncs_dispatch_to_fgrad_ops() -> None:
    def f(x):
        return np.exp(x) + np.arange(3.0), np.maximum(x, 0.5), np.ones(3) * x

    graph = fg.trace(f, fg.spec(3))
    ops = [n.op for n in graph.nodes]
    assert {"exp", "add", "maximum", "mul"} <= set(ops)
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    want = (np.exp(x) + np.arange(3.0), np.maximum(x, 0.5), np.ones(3) * x)
    for got, ref in zip(fg.interpret(graph, x), want):
        np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_unsupported_numpy_ufunc_is_a_trace_error() -> None:
    def f(x):
        return np.isnat(x)

    with pytest.raises(fg.TraceError, match=r"np\.isnat is not supported on fgrad Tensors f32\[3\]") as e:
        fg.trace(f, fg.spec(3))
    assert f"test_trace.py:{f.__code__.co_firstlineno + 1}" in str(e.value)


def test_eval_shape_gives_the_result_specs_without_computing():
    got = fg.eval_shape(lambda x, y: {"s": x @ y, "n": fg.sum(x, axis=1)}, fg.spec((3, 4)), np.ones((4, 2), np.float32))
    assert got == {"s": fg.spec((3, 2)), "n": fg.spec(3)}
    assert fg.eval_shape(lambda x, axis: fg.argmax(x, axis), fg.spec((2, 5)), axis=1) == fg.spec(2, "i32")


def test_make_graph_traces_with_static_arguments_as_given():
    graph = fg.make_graph(lambda x, n: x ** n, static_argnums=1)(np.ones(3, np.float32), 3)
    assert isinstance(graph, fg.Graph) and [n.op for n in graph.nodes] == ["input", "integer_pow"]
    assert graph == fg.trace(lambda x: x ** 3, np.ones(3, np.float32))
    assert fg.make_graph(fg.exp)(fg.spec(2)) == fg.trace(fg.exp, fg.spec(2))


def test_jax_s_names_for_specs_and_graphs():
    """fg.ShapeDtypeStruct is a Spec (no sharding: one device); fg.make_jaxpr is fg.make_graph."""
    s = fg.ShapeDtypeStruct((3, 4), np.float32)
    assert s == fg.spec((3, 4), "f32") and fg.eval_shape(lambda x: x.sum(0), s) == fg.spec(4)
    assert str(fg.make_jaxpr(lambda x, n: x * n, static_argnums=1)(s, 3)) == \
        str(fg.make_graph(lambda x, n: x * n, static_argnums=1)(s, 3))
    with pytest.raises(fg.TraceError, match="ShapeDtypeStruct: fgrad runs on one device and takes no sharding"):
        fg.ShapeDtypeStruct((3,), np.float32, sharding="x")


def test_jax_s_names_for_devices_scopes_and_closures():
    """JAX's top-level names an fgrad program meets: one device, scopes that name nothing, the
    abstract value of a value, and closure conversion for custom rules."""
    assert fg.device_count() == fg.local_device_count() == fg.process_count() == 1 and fg.process_index() == 0
    assert fg.local_devices() == [fg.default_device()]
    assert fg.default_backend() == ("cpu" if fg.default_device().limits.cpu else "gpu")
    assert fg.typeof(np.ones((2, 3), np.float32)) == fg.spec((2, 3)) and fg.typeof(2) == fg.spec((), "i32")
    assert fg.jit(lambda x: fg.asarray(fg.typeof(x).shape[0]))(np.ones(4, np.float32)).item() == 4
    with pytest.raises(fg.InputError, match="typeof: expected an array"):
        fg.typeof("x")
    with fg.named_scope("block"):
        assert fg.named_call(fg.exp, name="e")(0.0) == 1.0
    with pytest.raises(fg.InputError, match="named_scope: the name must be a str"), fg.named_scope(3):
        pass

    def outer(w):
        converted, consts = fg.closure_convert(lambda y: y * w + 1.0, np.float32(0))
        return converted(np.float32(3), *consts), len(consts)

    assert outer(np.float32(2)) == (7.0, 0)  # eagerly w is a number: nothing to convert
    assert fg.jit(lambda w: outer(w)[0])(np.float32(2)).item() == 7.0
    assert fg.grad(lambda w: outer(w)[0])(np.float32(2)) == 3.0  # w is a const, differentiated through
    with pytest.raises(fg.InputError, match="closure_convert: the converted function takes 1 arguments and 1"):
        fg.jit(lambda w: fg.closure_convert(lambda y: y * w, 0.0)[0](1.0))(np.float32(2))


def test_ensure_compile_time_eval_computes_known_values_while_tracing():
    seen = {}

    @fg.jit
    def f(x):
        with fg.ensure_compile_time_eval():
            n = fg.numpy.sum(np.arange(4))  # known: computed now, readable by Python
            loop = fg.lax.fori_loop(0, 3, lambda i, c: c + i, np.float32(0))
            mixed = x * n  # traced: takes n as a constant
            seen.update(n=type(n), loop=type(loop), mixed=type(mixed))
        return mixed * int(n) + loop

    np.testing.assert_allclose(np.asarray(f(np.float32([1, 2]))), [39.0, 75.0])
    assert issubclass(seen["n"], np.ndarray) and issubclass(seen["loop"], np.ndarray)
    assert seen["mixed"] is fg.Tensor
    g = fg.jit(lambda x: fg.numpy.sum(np.arange(4)) * x)  # outside the block a known value is a constant node
    assert "constant" in str(fg.make_jaxpr(lambda x: fg.numpy.sum(np.arange(4)) * x)(np.float32(1)))
    np.testing.assert_allclose(np.asarray(g(np.float32(1))), 6.0)


def test_ensure_compile_time_eval_leaves_collectives_and_symbols_to_their_context():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with fg.ensure_compile_time_eval():
        np.testing.assert_allclose(np.asarray(fg.vmap(lambda b: b + fg.lax.psum(1.0, "i"), axis_name="i")(x)), x + 2)
        np.testing.assert_allclose(np.asarray(fg.vmap(lambda b: b + fg.lax.axis_index("i"), axis_name="i")(x)),
                                   x + np.float32([[0], [1]]))

    def f(a):
        with fg.ensure_compile_time_eval():
            return a + fg.numpy.arange(a.shape[0])

    g = fg.trace(f, fg.spec((fg.dim("T", max=8),)))
    np.testing.assert_allclose(fg.interpret(g, np.ones(3, np.float32)), [1.0, 2.0, 3.0])
