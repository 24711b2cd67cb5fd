"""Reverse mode as graph transforms: whole models, nesting, purity, lean graphs, errors.

Per-primitive VJP checks live with the op table (tests/test_ops.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
from fgrad.testing import check_grads

RNG = np.random.default_rng(1234)


def normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.normal(size=shape) * scale).astype(np.float32)


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


def mlp_loss(params, x, labels):
    h = fg.relu(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return -fg.mean(fg.sum(fg.log_softmax(logits) * fg.one_hot(labels, logits.shape[-1]), axis=-1))


def mlp_args():
    params = {"w1": normal(6, 5), "b1": normal(5, scale=0.1), "w2": normal(5, 4), "b2": normal(4, scale=0.1)}
    return params, normal(3, 6), np.array([0, 3, 1], np.int32)


def layer_norm(x, g, b, eps=1e-5):
    mu = fg.mean(x, axis=-1, keepdims=True)
    var = fg.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) * fg.rsqrt(var + eps) * g + b


def layer_norm_loss(x, g, b):
    return fg.sum(fg.tanh(layer_norm(x, g, b)) * np.linspace(-1, 1, x.shape[-1]).astype(np.float32))


def attention_loss(params, tokens):
    """One causal self-attention head over an embedding gather, with a softmax cross-entropy on top."""
    T = tokens.shape[-1]
    x = params["wte"][tokens] + params["wpe"][:T]
    q, k, v = x @ params["wq"], x @ params["wk"], x @ params["wv"]
    scores = (q @ k.transpose(0, 2, 1)) / np.sqrt(q.shape[-1])
    scores = fg.where(fg.causal_mask(T), scores, -1e9)
    y = fg.softmax(scores, axis=-1) @ v
    logits = layer_norm(y, params["g"], params["b"]) @ params["wte"].T
    targets = fg.one_hot(tokens[:, 1:], params["wte"].shape[0])
    return -fg.mean(fg.sum(fg.log_softmax(logits[:, :-1]) * targets, axis=-1))


def attention_args():
    V, T, D = 5, 4, 3
    params = {"wte": normal(V, D), "wpe": normal(T, D, scale=0.5), "wq": normal(D, D), "wk": normal(D, D),
              "wv": normal(D, D), "g": 1 + normal(D, scale=0.1), "b": normal(D, scale=0.1)}
    return params, np.array([[0, 3, 1, 4], [2, 2, 0, 1]], np.int32)


def transformer_loss(params, tokens):
    """A 2-layer, 2-head pre-norm decoder (the gpt workload's shape, tiny)."""
    B, T = tokens.shape
    D, H = params["wte"].shape[1], 2
    x = params["wte"][tokens] + params["wpe"][:T]
    mask = fg.causal_mask(T)
    for layer in params["layers"]:
        h = layer_norm(x, layer["ln1_g"], layer["ln1_b"])
        q, k, v = (fg.transpose((h @ layer[w]).reshape(B, T, H, D // H), (0, 2, 1, 3)) for w in ("wq", "wk", "wv"))
        a = fg.softmax(fg.where(mask, q @ fg.transpose(k, (0, 1, 3, 2)) / np.sqrt(D // H), -1e9), axis=-1)
        x = x + fg.transpose(a @ v, (0, 2, 1, 3)).reshape(B, T, D) @ layer["wo"]
        h = layer_norm(x, layer["ln2_g"], layer["ln2_b"])
        x = x + fg.gelu(h @ layer["w1"] + layer["b1"]) @ layer["w2"] + layer["b2"]
    logits = layer_norm(x, params["lnf_g"], params["lnf_b"]) @ params["head"]
    return -fg.mean(fg.sum(fg.log_softmax(logits) * fg.one_hot(tokens, logits.shape[-1]), axis=-1))


def transformer_args(V=5, T=3, D=4):
    def layer():
        return {"ln1_g": 1 + normal(D, scale=0.1), "ln1_b": normal(D, scale=0.1), "wq": normal(D, D), "wk": normal(D, D),
                "wv": normal(D, D), "wo": normal(D, D, scale=0.5), "ln2_g": 1 + normal(D, scale=0.1),
                "ln2_b": normal(D, scale=0.1), "w1": normal(D, 2 * D), "b1": normal(2 * D, scale=0.1),
                "w2": normal(2 * D, D, scale=0.5), "b2": normal(D, scale=0.1)}

    params = {"wte": normal(V, D), "wpe": normal(T, D, scale=0.5), "layers": [layer(), layer()],
              "lnf_g": 1 + normal(D, scale=0.1), "lnf_b": normal(D, scale=0.1), "head": normal(D, V)}
    return params, np.array([[0, 3, 1], [4, 2, 2]], np.int32)


MODELS = {
    "mlp": (mlp_loss, mlp_args),
    "layer_norm": (layer_norm_loss, lambda: (normal(2, 5), 1 + normal(5, scale=0.2), normal(5, scale=0.2))),
    "attention": (attention_loss, attention_args),
    "transformer": (transformer_loss, transformer_args),
}


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("order", [1, 2])
def test_model_gradients_match_finite_differences(name, order):
    f, make_args = MODELS[name]
    check_grads(f, make_args(), order=order)


@pytest.mark.parametrize("name", MODELS)
def test_model_gradient_graphs_typecheck_and_leave_input_untouched(name):
    f, make_args = MODELS[name]
    args = make_args()
    graph = fg.trace(f, *args)
    before = (graph.nodes, graph.inputs, graph.outputs)
    for transformed in (fg.grad(graph), fg.value_and_grad(graph), fg.vjp(graph)):
        fg.typecheck(transformed)
    assert (graph.nodes, graph.inputs, graph.outputs) == before
    assert graph == fg.trace(f, *args)


def test_hessian_vector_product_of_mlp():
    params, x, labels = mlp_args()
    v = {k: normal(*np.shape(p)) for k, p in params.items()}

    def hvp(p):
        return fg.grad(lambda q: sum(fg.sum(fg.grad(mlp_loss)(q, x, labels)[k] * v[k]) for k in v))(p)

    hvp_graph = fg.trace(hvp, params)
    fg.typecheck(hvp_graph)
    got = fg.interpret(hvp_graph, params, float64=True)
    # Finite differences of the gradient along v, in float64.
    grad_graph = fg.grad(fg.trace(mlp_loss, params, x, labels))
    eps = 1e-5
    p64 = {k: params[k].astype(np.float64) for k in params}  # perturb in float64, not f32
    plus = fg.interpret(grad_graph, {k: p64[k] + eps * v[k] for k in v}, x, labels, float64=True)
    minus = fg.interpret(grad_graph, {k: p64[k] - eps * v[k] for k in v}, x, labels, float64=True)
    for k in params:
        np.testing.assert_allclose(got[k], (plus[k] - minus[k]) / (2 * eps), rtol=1e-5, atol=1e-7)
    # The eager form (f32 throughout) agrees to f32 accuracy.
    eager = hvp(params)
    for k in params:
        np.testing.assert_allclose(eager[k], got[k], rtol=1e-5, atol=1e-6)


def test_hvp_closing_over_an_outer_tensor():
    """`v` is a Tensor of the enclosing trace, closed over by the inner function."""

    def f(x):
        return fg.sum(fg.tanh(x) ** 3)

    def hvp(x, v):
        return fg.grad(lambda y: fg.sum(fg.grad(f)(y) * v))(x)

    x, v = normal(4), normal(4)
    got = fg.interpret(fg.trace(hvp, x, v), x, v)
    t = np.tanh(x.astype(np.float64))
    second = 6 * t * (1 - t**2) ** 2 - 6 * t**3 * (1 - t**2)  # d2/dx2 tanh(x)^3
    np.testing.assert_allclose(got, second * v, rtol=1e-5, atol=1e-6)


def test_grad_of_grad_and_third_order():
    x = np.array([0.3, -1.2, 2.0], np.float32)
    d2 = fg.grad(lambda y: fg.sum(fg.grad(lambda z: fg.sum(z ** 3))(y)))(x)
    np.testing.assert_allclose(d2, 6 * x, rtol=1e-6)
    d3 = fg.grad(lambda y: fg.sum(fg.grad(lambda z: fg.sum(fg.grad(lambda w: fg.sum(w ** 4))(z)))(y)))(x)
    np.testing.assert_allclose(d3, 24 * x, rtol=1e-5)


def test_argnums_tuple_and_pytrees():
    params, x, labels = mlp_args()
    gp, gx = fg.grad(mlp_loss, argnums=(0, 1))(params, x, labels)
    assert set(gp) == set(params) and gx.shape == x.shape
    assert all(gp[k].shape == params[k].shape for k in params)
    only_p = fg.grad(mlp_loss)(params, x, labels)
    for k in params:
        np.testing.assert_allclose(gp[k], only_p[k], rtol=1e-6)
    value, g = fg.value_and_grad(mlp_loss)(params, x, labels)
    np.testing.assert_allclose(value, fg.interpret(fg.trace(mlp_loss, params, x, labels), params, x, labels))


def test_python_numbers_not_differentiated_reach_the_function_as_they_are():
    """As jax.grad: an int, float or bool argument outside argnums is passed through (it may
    size or steer what is traced), each value its own trace; a NumPy scalar stays traced."""
    x = np.float32([1.0, 2.0])
    seen = []

    def f(n, x, scale):
        seen.append((type(n), type(scale)))
        return fg.sum(fg.tile(x, n) ** 2) * scale

    np.testing.assert_allclose(fg.grad(f, argnums=1)(2, x, 0.5), 2 * x, rtol=1e-6)
    np.testing.assert_allclose(fg.grad(f, argnums=1)(3, x, 0.5), 3 * x, rtol=1e-6)
    value, (dx, dscale) = fg.value_and_grad(f, argnums=(1, -1))(3, x, 0.5)
    np.testing.assert_allclose([value, dscale], [7.5, 15.0], rtol=1e-6)
    assert {t for t, _ in seen} == {int}
    np.testing.assert_allclose(fg.jit(lambda x: fg.grad(f, argnums=1)(2, x, 0.5))(x).numpy(), 2 * x, rtol=1e-6)
    kinds = []
    fg.grad(lambda k, x: kinds.append(type(k)) or fg.sum(x * k), argnums=1)(np.float32(2.0), x)
    assert kinds == [fg.Tensor]


def test_has_aux():
    def f(w):
        y = fg.tanh(w)
        return fg.sum(y), {"y": y}

    w = normal(3)
    g, aux = fg.grad(f, has_aux=True)(w)
    np.testing.assert_allclose(g, 1 - np.tanh(w) ** 2, rtol=1e-6)
    np.testing.assert_allclose(aux["y"], np.tanh(w), rtol=1e-6)
    (value, aux2), g2 = fg.value_and_grad(f, has_aux=True)(w)
    np.testing.assert_allclose(value, np.tanh(w).sum(), rtol=1e-6)


def test_vjp_graph_and_function():
    def f(x, w):
        return {"y": fg.tanh(x @ w), "n": fg.sum(x)}

    x, w = normal(2, 3), normal(3, 4)
    ct = {"y": normal(2, 4), "n": np.float32(0.5)}
    out, vjp_fn = fg.vjp(f, x, w)
    y = np.tanh(x @ w)
    np.testing.assert_allclose(out["y"], y, rtol=1e-6)
    gx, gw = vjp_fn(ct)
    dy = ct["y"] * (1 - y**2)
    np.testing.assert_allclose(gw, x.T @ dy, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx, dy @ w.T + 0.5, rtol=1e-5, atol=1e-6)
    twice = vjp_fn({"y": 2 * ct["y"], "n": 1.0})  # the pullback can be called again
    np.testing.assert_allclose(twice[1], 2 * gw, rtol=1e-5, atol=1e-6)
    graph = fg.vjp(fg.trace(f, x, w))
    assert graph.input_names == ("x", "w", "cotangent.n", "cotangent.y")
    out2, grads2 = fg.interpret(graph, x, w, ct)
    np.testing.assert_allclose(grads2[1], gw, rtol=1e-6)


def test_vjp_function_form_is_jaxs():
    """`vjp(fn, *primals, has_aux)` -> `(out, vjp_fn[, aux])`; one cotangent per primal, None at integer leaves."""

    def f(p, n):
        y = p["w"] * n.astype("f32")
        return (y, fg.sum(y)), {"n2": n * 2}

    p, n = {"w": normal(3)}, np.arange(3, dtype=np.int32)
    out, vjp_fn, aux = fg.vjp(f, p, n, has_aux=True)
    np.testing.assert_allclose(out[0], p["w"] * n, rtol=1e-6)
    np.testing.assert_array_equal(aux["n2"], n * 2)
    gp, gn = vjp_fn((np.ones(3), 2.0))  # float64 and Python float cotangents are accepted
    np.testing.assert_allclose(gp["w"], 3.0 * n, rtol=1e-6)
    assert gn is None
    with pytest.raises(fg.ShapeError, match=r"vjp: has_aux=True needs the function to return a pair"):
        fg.vjp(lambda x: x * 2, normal(3), has_aux=True)


def test_vjp_function_form_nests_in_grad_and_jit():
    x, v = normal(3), normal(3)

    def inner(x, v):  # sum of the vjp of y -> tanh(y) * v at x, pulled back along v
        _, vjp_fn = fg.vjp(lambda y: fg.tanh(y) * v, x)
        return fg.sum(vjp_fn(v)[0])

    got = fg.grad(inner)(x, v)
    t = np.tanh(x.astype(np.float64))
    np.testing.assert_allclose(got, -2 * t * (1 - t**2) * v * v, rtol=1e-5, atol=1e-6)
    compiled = fg.jit(lambda x, v, ct: fg.vjp(lambda y: fg.tanh(y) * v, x)[1](ct)[0])(x, v, v)
    np.testing.assert_allclose(compiled.numpy(), (1 - t**2) * v * v, rtol=1e-5, atol=1e-6)


def _out3(x):
    return {"y": x * 2.0, "k": fg.argmax(x, axis=0)}


@pytest.mark.parametrize("ct, message", [
    ({"y": np.ones(1, np.float32), "k": np.int32(0)}, r"cotangent\.y has shape \(1,\), expected \(3,\)"),
    ({"y": np.ones(4, np.float32), "k": np.int32(0)}, r"cotangent\.y has shape \(4,\), expected \(3,\)"),
    ({"y": np.ones(3, np.int32), "k": np.int32(0)}, r"cotangent\.y is i32\[3\], expected a float32 or float64"),
    ({"y": np.ones(3, np.float16), "k": np.int32(0)}, r"cotangent\.y is f16\[3\], expected a float32 or float64 array"),
    ({"y": "ones", "k": np.int32(0)}, r"cotangent\.y is a str"),
    ({"y": np.ones(3, np.float32), "k": np.float32(0)}, r"cotangent\.k is f32\[\], expected i32\[\]"),
    ({"y": np.ones(3, np.float32)}, r"the cotangent has structure \{'y': \*\}, the output"),
])
def test_vjp_checks_the_cotangent(ct, message):
    """Broadcasting a cotangent would silently give the wrong vjp: every shape must match, as in JAX."""
    _, vjp_fn = fg.vjp(_out3, normal(3))

    def call():
        return vjp_fn(ct)

    with pytest.raises(fg.InputError, match=r"^vjp: " + message) as e:
        call()
    assert _line(call, 1) in str(e.value)


def test_vjp_graph_form_checks_the_cotangent_by_its_inputs():
    graph = fg.vjp(fg.trace(lambda x: x * 2.0, fg.spec(3)))
    x = normal(3)
    for run in (lambda *a: fg.interpret(graph, *a), fg.compile(graph)):
        for ct in (np.ones(1, np.float32), np.ones(4, np.float32)):
            with pytest.raises(fg.InputError, match=r"argument cotangent is float32\[\d\], expected f32\[3\]"):
                run(x, ct)
    with pytest.raises(fg.InputError, match=r"vjp: fg.vjp\(graph\) takes only the Graph"):
        fg.vjp(fg.trace(lambda x: x * 2.0, fg.spec(3)), x)


def test_stop_gradient_and_integer_paths_give_no_gradient():
    def f(x, n):
        return fg.sum(fg.stop_gradient(x) * x + n.astype("f32") * (x > 0))

    x, n = normal(4), np.arange(4, dtype=np.int32)
    g = fg.grad(f)(x, n)
    np.testing.assert_allclose(g, x, rtol=1e-6)  # only the second factor of x*x counts


def test_max_reduction_splits_ties_evenly():
    x = np.array([1.0, 3.0, 3.0, 2.0], np.float32)
    np.testing.assert_allclose(fg.grad(lambda y: fg.max(y))(x), [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(fg.grad(lambda y: fg.sum(fg.maximum(y, 2.0)))(x), [0, 1, 1, 0.5])


# ---------------------------------------------------------------------------
# Lean graphs
# ---------------------------------------------------------------------------


def _duplicates(graph):
    seen, dups = set(), []
    for i, n in enumerate(graph.nodes):
        key = (n.op, n.inputs, n.params)
        if n.op != "input" and key in seen:
            dups.append(i)
        seen.add(key)
    return dups


def _dead(graph):
    live = set(graph.outputs) | set(graph.inputs)
    for i in reversed(range(len(graph.nodes))):
        if i in live:
            live.update(graph.nodes[i].inputs)
    return [i for i in range(len(graph.nodes)) if i not in live]


@pytest.mark.parametrize("name", ["mlp", "transformer"])
def test_gradient_graph_is_lean(name):
    f, make_args = MODELS[name]
    graph = fg.grad(fg.trace(f, *make_args()))
    assert _dead(graph) == []
    assert _duplicates(graph) == []
    assert fg.simplify(graph) == graph
    # No multiplication by one and no addition of zero survive.
    from fgrad.transforms.passes import uniform_constant

    for n in graph.nodes:
        if n.op in ("mul", "div"):
            assert all(uniform_constant(graph.nodes, j) != 1 for j in n.inputs[1:] if n.op == "div")
            assert all(uniform_constant(graph.nodes, j) != 1 for j in n.inputs if n.op == "mul")
        if n.op in ("add", "sub"):
            assert uniform_constant(graph.nodes, n.inputs[1]) != 0


def test_passes_each_do_their_part():
    def f(x):
        a = fg.exp(x)
        b = fg.exp(x)  # duplicate
        unused = fg.log(x)  # dead
        t = x.T.T  # double transpose
        r = fg.reshape(fg.reshape(x, (6,)), (3, 2))  # reshape of reshape
        c = (a + b) * 1.0 + 0.0
        return c + t, r

    graph = fg.trace(f, fg.spec((2, 3)))
    cse = fg.eliminate_common_subexpressions(graph)
    assert sum(n.op == "exp" for n in cse.nodes) == 1
    dce = fg.eliminate_dead_code(graph)
    assert all(n.op != "log" for n in dce.nodes)
    folded = fg.simplify(graph)
    ops = [n.op for n in folded.nodes]
    assert "transpose" not in ops and ops.count("reshape") == 1 and "mul" not in ops
    x = np.abs(normal(2, 3)) + 0.5
    for a, b in zip(fg.interpret(folded, x), fg.interpret(graph, x)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    for g in (cse, dce, folded):
        fg.typecheck(g)


def test_constant_folding_evaluates_constant_subgraphs():
    def f(x):
        k = fg.exp(fg.asarray(np.array([0.0, 1.0], np.float32))) * 2.0
        return x * k

    graph = fg.simplify(fg.trace(f, fg.spec(2)))
    assert [n.op for n in graph.nodes] == ["input", "constant", "mul"]
    np.testing.assert_allclose(fg.interpret(graph, np.ones(2, np.float32)), 2 * np.exp([0.0, 1.0]), rtol=1e-6)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def _line(fn, offset):
    return f"test_autodiff.py:{fn.__code__.co_firstlineno + offset}"


def test_grad_of_non_scalar_is_a_shape_error():
    def call():
        return fg.grad(lambda x: x * 2)(np.ones(3, np.float32))

    with pytest.raises(fg.ShapeError, match=r"grad: .*scalar.*f32\[3\]") as e:
        call()
    assert _line(call, 1) in str(e.value)


def test_grad_of_integer_output_is_a_dtype_error():
    def call():
        return fg.grad(lambda x: fg.sum(x.astype("i32")))(np.ones(3, np.float32))

    with pytest.raises(fg.DTypeError, match=r"grad: .*float scalar.*i32\[\]") as e:
        call()
    assert _line(call, 1) in str(e.value)


def test_argnums_out_of_range():
    def call():
        return fg.grad(mlp_loss, argnums=3)(*mlp_args())

    with pytest.raises(fg.InputError, match=r"grad: argnums=3 is out of range for a function of 3 arguments") as e:
        call()
    assert _line(call, 1) in str(e.value)


def test_grad_with_respect_to_integer_input():
    def call():
        return fg.grad(mlp_loss, argnums=2)(*mlp_args())

    with pytest.raises(fg.DTypeError, match=r"grad: argument labels is i32\[3\]") as e:
        call()
    assert _line(call, 1) in str(e.value)


def test_grad_graph_form_errors_point_at_the_call():
    graph = fg.trace(lambda x: x * 2, fg.spec(3))

    def call():
        return fg.grad(graph)

    with pytest.raises(fg.ShapeError) as e:
        call()
    assert _line(call, 1) in str(e.value)


def test_check_grads_reports_the_worst_element():
    def wrong(x):
        return fg.sum(fg.stop_gradient(x) * x)  # true gradient is 2x; reverse mode gives x

    with pytest.raises(AssertionError, match=r"d/d x\[\d\]: reverse mode gives .* finite differences .* atol"):
        check_grads(wrong, (np.array([1.0, 2.0, -3.0], np.float32),))


@pytest.mark.parametrize("limit", [0, 1 << 24])
def test_gather_gradient_by_scatter_and_by_one_hot_matmul(limit, monkeypatch):
    """Small tables differentiate through a one-hot matmul, large ones through scatter_add."""
    import fgrad.primitives.indexing

    monkeypatch.setattr(fgrad.primitives.indexing, "ONE_HOT_GRADIENT_LIMIT", limit)
    table, idx = normal(6, 3), np.array([[0, 5, 5], [2, 0, 1]], np.int32)

    def f(t):
        return fg.sum(fg.tanh(fg.take(t, idx, axis=0)) * np.arange(9.0).reshape(3, 3)[None])

    graph = fg.grad(fg.trace(f, table))
    assert ("scatter_add" in [n.op for n in graph.nodes]) == (limit == 0)
    check_grads(f, (table,), order=2)
    check_grads(lambda t: fg.sum(fg.take(t, idx, axis=1) ** 2), (normal(2, 6),), order=1)


def test_negative_argnums_count_from_the_last_argument_as_in_jax():
    x, y = np.float32([1.0, 2.0]), np.float32([3.0, 4.0])

    def f(x, y):
        return fg.sum(x * y * y)

    np.testing.assert_array_equal(fg.grad(f, argnums=-1)(x, y), 2 * x * y)
    gx, gy = fg.grad(f, argnums=(0, -1))(x, y)
    np.testing.assert_array_equal(gx, y * y)
    np.testing.assert_array_equal(gy, 2 * x * y)
    np.testing.assert_array_equal(fg.interpret(fg.grad(fg.trace(f, x, y), argnums=-1), x, y), 2 * x * y)
    # inside another transform the closure argument added at the end does not shift -1
    np.testing.assert_array_equal(fg.grad(lambda a: fg.sum(fg.grad(f, argnums=-1)(a, y)))(x), 2 * y)
    with pytest.raises(fg.InputError, match="argnums=-3 is out of range for a function of 2 arguments"):
        fg.grad(f, argnums=-3)(x, y)
