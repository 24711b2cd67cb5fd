"""Control flow: lax.scan, fori_loop, while_loop, cond and switch against Python loops and
branches in NumPy; their derivatives (against finite differences and the unrolled loop's),
forward mode and batching (against the loop of the transformed body); nesting; an RNN trained
with scan; a greedy decoding loop with fori_loop; the errors. The per-primitive rows (value,
VJP, WGSL) live in tests/op_rows/control_flow.py.

Each function is checked three ways: eagerly on arrays, and traced (typechecked) through
`interpret`. Programs on the device go through `fg.jit` in the `test_*_on_device` functions.
"""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
from fgrad.lower import Limits, lower
from fgrad.runtime import Executable
from fgrad.testing import check_grads

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")
lax = fg.lax
RNG = np.random.default_rng(2024)


def normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.normal(size=shape) * scale).astype(np.float32)


def leaves(tree):
    return fg.tree_util.tree_leaves(tree)


def assert_trees(got, want, rtol=1e-5, atol=1e-6, what=""):
    """Same structure, and each leaf equal in shape, dtype and value."""
    assert fg.tree_util.tree_structure(got) == fg.tree_util.tree_structure(want), what
    for g, w in zip(leaves(got), leaves(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def both_ways(f, *args):
    """`f(*args)` eagerly and through its typechecked trace with `interpret`; they must agree."""
    eager = f(*args)
    graph = fg.typecheck(fg.trace(f, *args))
    traced = fg.interpret(graph, *args)
    assert_trees(traced, eager, what="interpret vs eager")
    return traced


def ops_of(graph: fg.Graph) -> list[str]:
    return [n.op for n in graph.nodes]


# ---------------------------------------------------------------------------
# scan against Python loops
# ---------------------------------------------------------------------------


def test_scan_matches_a_python_loop_with_pytrees():
    """A dict carry and a tuple of xs; ys a pytree with a dict of two leaves."""
    init = {"h": normal(3), "n": np.int32(0)}
    xs = (normal(5, 3), normal(5, 2, 3))

    def f(init, xs):
        def step(c, x):
            a, b = x
            h = fg.tanh(c["h"] * 0.5 + a + b.sum(0))
            return {"h": h, "n": c["n"] + 1}, {"h": h, "prod": (a * c["h"], b * 2.0)}
        return lax.scan(step, init, xs)

    h, n, ys_h, ys_a, ys_b = init["h"].astype(np.float64), 0, [], [], []
    for a, b in zip(*xs):
        new = np.tanh(h * 0.5 + a + b.sum(0))
        ys_h.append(new), ys_a.append(a * h), ys_b.append(b * 2.0)
        h, n = new, n + 1
    want = ({"h": h.astype(np.float32), "n": np.int32(n)},
            {"h": np.stack(ys_h).astype(np.float32), "prod": (np.stack(ys_a).astype(np.float32),
                                                             np.stack(ys_b).astype(np.float32))})
    assert_trees(both_ways(f, init, xs), want)


def test_reverse_scan_runs_from_the_end_and_stacks_in_order():
    xs = normal(6, 2)

    def f(xs):
        return lax.scan(lambda c, x: (c * 0.5 + x, c), np.zeros(2, np.float32), xs, reverse=True)

    c, ys = np.zeros(2), [None] * 6
    for i in reversed(range(6)):
        ys[i] = c
        c = c * 0.5 + xs[i]
    assert_trees(both_ways(f, xs), (c.astype(np.float32), np.stack(ys).astype(np.float32)))


def test_scan_without_xs_takes_length_and_y_none_gives_no_ys():
    def f(c):
        return lax.scan(lambda c, _: (c * 2.0 + 1.0, None), c, None, length=4)

    carry, ys = both_ways(f, np.float32(0.5))
    assert ys is None
    assert float(carry) == ((((0.5 * 2 + 1) * 2 + 1) * 2 + 1) * 2 + 1)


def test_zero_length_scan_returns_the_init_and_empty_ys():
    def f(c, xs):
        return lax.scan(lambda c, x: (c + x, c * x), c, xs)

    c = normal(3)
    carry, ys = both_ways(f, c, np.zeros((0, 3), np.float32))
    np.testing.assert_array_equal(carry, c)
    assert ys.shape == (0, 3) and ys.dtype == np.float32
    g = fg.grad(lambda c, xs: f(c, xs)[0].sum(), argnums=(0, 1))(c, np.zeros((0, 3), np.float32))
    np.testing.assert_array_equal(g[0], np.ones(3, np.float32))
    assert g[1].shape == (0, 3)


def test_scan_body_closes_over_tensors_as_consts():
    """Traced values the body closes over become operands of the scan (consts), not constants."""
    w, xs = normal(3, 3, scale=0.5), normal(4, 3)

    def f(w, xs):
        return lax.scan(lambda h, x: (fg.tanh(h @ w + x), None), fg.zeros(3), xs)[0]

    graph = fg.trace(f, w, xs)
    scan = next(n for n in graph.nodes if n.op == "scan")
    assert scan.attrs["num_consts"] == 1 and graph.nodes[scan.inputs[0]].op == "input"
    h = np.zeros(3)
    for x in xs:
        h = np.tanh(h @ w + x)
    np.testing.assert_allclose(both_ways(f, w, xs), h, rtol=1e-5, atol=1e-6)


def test_scan_graph_lists_its_body_and_is_deterministic():
    def f(xs):
        return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)

    a, b = fg.trace(f, fg.spec(5)), fg.trace(f, fg.spec(5))
    assert a == b and hash(a) == hash(b)
    text = str(a)
    assert "scan[body={(f32[], f32[]) -> (f32[], f32[]): 4 nodes}" in text and "body = graph(" in text


# ---------------------------------------------------------------------------
# fori_loop, while_loop
# ---------------------------------------------------------------------------


def test_fori_loop_with_static_bounds_is_a_scan():
    def f(v):
        return lax.fori_loop(2, 7, lambda i, v: (v[0] * 0.5 + i, v[1] + v[0].sum()), v)

    v = (normal(3), np.float32(1.0))
    a, b = v[0].astype(np.float64), np.float64(v[1])
    for i in range(2, 7):
        a, b = a * 0.5 + i, b + a.sum()
    assert_trees(both_ways(f, v), (a.astype(np.float32), np.float32(b)))
    assert "scan" in ops_of(fg.trace(f, v)) and "while" not in ops_of(fg.trace(f, v))
    assert_trees(both_ways(lambda v: lax.fori_loop(5, 2, lambda i, v: v + 1, v), np.int32(3)), np.int32(3))


def test_fori_loop_with_traced_bounds_is_a_while():
    def f(lo, hi, v):
        return lax.fori_loop(lo, hi, lambda i, v: v * 2 + i, v)

    graph = fg.typecheck(fg.trace(f, np.int32(0), np.int32(0), np.int32(0)))
    assert "while" in ops_of(graph) and "scan" not in ops_of(graph)
    for lo, hi in ((0, 5), (3, 4), (4, 1), (-2, 2)):
        v = 1
        for i in range(lo, hi):
            v = v * 2 + i
        assert int(fg.interpret(graph, np.int32(lo), np.int32(hi), np.int32(1))) == v


def test_fori_loop_counter_takes_the_bounds_dtype():
    out = lax.fori_loop(np.uint32(0), np.uint32(3), lambda i, v: v + i, np.uint32(10))
    assert out.dtype == np.uint32 and int(out) == 13


def test_while_loop_matches_a_python_loop():
    def f(x, limit):
        return lax.while_loop(lambda c: c[1] < limit, lambda c: (c[0] * 1.5 + 1.0, c[1] + 1), (x, 0))

    x = normal(2, 2)
    for limit in (0, 1, 5):
        want, k = x.astype(np.float64), 0
        while k < limit:
            want, k = want * 1.5 + 1.0, k + 1
        assert_trees(both_ways(f, x, np.int32(limit)), (want.astype(np.float32), np.int32(limit)))


def test_while_loop_predicate_of_the_values():
    """Newton's iteration for sqrt(a) until the step is small: the trip count depends on the data."""
    def f(a):
        def body(c):
            x, _ = c
            new = 0.5 * (x + a / x)
            return new, fg.abs(new - x)
        return lax.while_loop(lambda c: c[1] > 1e-6, body, (a, fg.asarray(1.0)))[0]

    for a in (2.0, 9.0, 1e4):
        np.testing.assert_allclose(both_ways(f, np.float32(a)), np.sqrt(a), rtol=1e-6)


# ---------------------------------------------------------------------------
# cond and switch
# ---------------------------------------------------------------------------


def test_cond_matches_python_branches_with_pytrees_and_operands():
    def f(p, x, y):
        return lax.cond(p, lambda x, y: {"a": x * y, "b": (y, x.sum())},
                        lambda x, y: {"a": x - y, "b": (y * 2.0, x.max())}, x, y)

    x, y = normal(3), normal(3)
    for p in (True, False):
        want = ({"a": x * y, "b": (y, x.sum())} if p else {"a": x - y, "b": (y * 2.0, x.max())})
        assert_trees(both_ways(f, np.bool_(p), x, y), want)


def test_cond_takes_an_integer_pred_and_branches_with_no_operands():
    x, w = normal(2), normal(2)

    def f(p, x, w):
        return lax.cond(p, lambda: x * w, lambda: fg.exp(w))  # each closes over different values

    graph = fg.trace(f, np.int32(0), x, w)
    branches = next(n for n in graph.nodes if n.op == "cond").attrs["branches"]
    assert len(branches) == 2 and branches[0].in_specs == branches[1].in_specs
    for p in (-3, 0, 2):
        assert_trees(both_ways(f, np.int32(p), x, w), x * w if p else np.exp(w))


def test_switch_clamps_its_index():
    fns = [lambda x: x + 1.0, lambda x: x * 3.0, lambda x: -x]

    def f(i, x):
        return lax.switch(i, fns, x)

    x = normal(4)
    for i in (-5, 0, 1, 2, 3, 100):
        assert_trees(both_ways(f, np.int32(i), x), fns[min(max(i, 0), 2)](x))
    assert_trees(lax.switch(7, [lambda x: x * 2], x), x * 2)  # one branch is simply called


def test_cond_with_a_constant_pred_keeps_its_branch_alone():
    graph = fg.simplify(fg.trace(lambda x: lax.cond(True, fg.sin, fg.cos, x), fg.spec(3)))
    assert [len(n.attrs["branches"]) for n in graph.nodes if n.op == "cond"] == [1]
    assert ["cos_f32" not in k.wgsl and "sin_f32(" in k.wgsl for k in lower(graph).kernels] == [True]
    np.testing.assert_allclose(fg.interpret(graph, np.ones(3, np.float32)), np.sin(np.ones(3)), rtol=1e-6)


# ---------------------------------------------------------------------------
# Reverse mode
# ---------------------------------------------------------------------------


def rnn_step(params, h, x):
    return fg.tanh(h @ params["wh"] + x @ params["wx"] + params["b"])


def rnn_loss(params, h0, xs, targets):
    def step(h, x):
        h = rnn_step(params, h, x)
        return h, h @ params["wo"]
    h, preds = lax.scan(step, h0, xs)
    return fg.mean((preds - targets) ** 2) + 0.1 * fg.sum(h * h)


def rnn_loss_unrolled(params, h0, xs, targets):
    h, preds = h0, []
    for t in range(xs.shape[0]):
        h = rnn_step(params, h, xs[t])
        preds.append(h @ params["wo"])
    return fg.mean((fg.stack(preds) - targets) ** 2) + 0.1 * fg.sum(h * h)


def rnn_args(hidden=4, inputs=3, steps=5):
    params = {"wh": normal(hidden, hidden, scale=0.4), "wx": normal(inputs, hidden, scale=0.5),
              "b": normal(hidden, scale=0.1), "wo": normal(hidden, 2, scale=0.5)}
    return params, normal(hidden, scale=0.1), normal(steps, inputs), normal(steps, 2)


def test_grad_through_scan_matches_the_unrolled_loop_and_finite_differences():
    args = rnn_args()
    got = fg.grad(rnn_loss, argnums=(0, 1, 2))(*args)
    want = fg.grad(rnn_loss_unrolled, argnums=(0, 1, 2))(*args)
    assert_trees(got, want, rtol=1e-5, atol=1e-6)
    check_grads(rnn_loss, args, order=2)


def test_vjp_of_scan_with_ys_cotangents_and_integer_carry():
    """Cotangents on the final carry and on ys; an integer counter in the carry gets none."""
    w, xs = normal(3, scale=0.7), normal(4, 3)

    def f(w, xs):
        def step(c, x):
            h, k = c
            h = fg.sin(h * w + x) + k
            return (h, k + 1), (h * h, k)
        return lax.scan(step, (fg.zeros(3), 0), xs, reverse=True)

    check_grads(f, (w, xs), order=2)
    out, pullback = fg.vjp(f, w, xs)
    ct = ((normal(3), np.int32(0)), (normal(4, 3), np.zeros(4, np.int32)))
    gw, gx = pullback(ct)
    assert gw.shape == (3,) and gx.shape == (4, 3)


def test_reverse_mode_stacks_residuals_and_hoists_what_depends_on_consts_alone():
    """The backward scan reads the stacked residuals of the forward scan, and what depends on
    the consts alone (the weight's transpose) is computed once, outside both loops."""
    params, h0, xs, targets = rnn_args()
    graph = fg.grad(fg.trace(rnn_loss, params, h0, xs, targets))
    scans = [n for n in graph.nodes if n.op == "scan" and n.attrs["result"] == 0]
    backward = [n for n in scans if n.attrs["reverse"]]
    assert len(backward) == 1
    hoisted = [graph.nodes[j].op for j in backward[0].inputs[:backward[0].attrs["num_consts"]]]
    assert "transpose" in hoisted
    fg.typecheck(graph)


def test_grad_through_cond_and_switch():
    x, w = normal(3), normal(3)

    def f(i, x, w):
        return lax.switch(i, [lambda x: fg.sin(x) * w, lambda x: x * x, lambda x: fg.exp(w) + 0 * x], x)

    for i in range(3):
        check_grads(lambda x, w: f(np.int32(i), x, w), (x, w), order=2)
    g = fg.grad(lambda x, w: f(np.int32(1), x, w).sum(), argnums=(0, 1))(x, w)
    assert_trees(g, (2 * x, np.zeros(3, np.float32)))


def test_grad_of_while_loop_is_a_clear_error():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1].sum()

    with pytest.raises(fg.TraceError, match=r"while_loop: reverse-mode differentiation .* not supported, as in JAX"
                                            r".*fg\.lax\.scan.*fori_loop with Python int bounds.*test_control_flow"):
        fg.grad(f)(normal(3))
    with pytest.raises(fg.TraceError, match="reverse-mode"):  # a traced trip count is a while too
        fg.grad(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 2.0, x).sum())(normal(2), np.int32(3))
    # the static trip count is a scan, which differentiates
    check_grads(lambda x: lax.fori_loop(0, 3, lambda i, v: fg.sin(v) * i, x), (normal(2),))


# ---------------------------------------------------------------------------
# Forward mode
# ---------------------------------------------------------------------------


def test_jvp_of_scan_matches_the_unrolled_loop():
    params, h0, xs, targets = rnn_args()
    tangents = fg.tree_util.tree_map(lambda a: normal(*a.shape), (params, h0, xs, targets))
    got = fg.jvp(rnn_loss, (params, h0, xs, targets), tangents)
    want = fg.jvp(rnn_loss_unrolled, (params, h0, xs, targets), tangents)
    assert_trees(got, want, rtol=1e-5, atol=1e-6)


def test_jvp_of_scan_carries_a_tangent_only_where_one_reaches():
    """A tangent of the weight alone reaches the carry through the body: the carry's tangent is
    carried (a fixed point); the integer counter never has one, and ys of it get none."""
    w, xs = normal(3, 3, scale=0.5), normal(4, 3)

    def f(w):
        def step(c, x):
            h, k = c
            return (fg.tanh(h @ w + x), k + 1), (h.sum(), k)
        return lax.scan(step, (fg.zeros(3), 0), xs)

    def unrolled(w):
        h, k, ys, ks = np.zeros(3, np.float32), 0, [], []
        for x in xs:
            ys.append(fg.sum(h)), ks.append(k)
            h, k = fg.tanh(h @ w + x), k + 1
        return (h, np.int32(k)), (fg.stack(ys), np.array(ks, np.int32))

    t = normal(3, 3)
    assert_trees(fg.jvp(f, (w,), (t,)), fg.jvp(unrolled, (w,), (t,)), rtol=1e-5, atol=1e-6)
    graph = fg.trace(lambda w: fg.jvp(f, (w,), (t,)), w)
    jvp_scan = [n for n in graph.nodes if n.op == "scan" and n.attrs["num_consts"] == 2]
    assert jvp_scan and jvp_scan[0].attrs["num_carry"] == 3  # h, k and h's tangent


def test_jvp_and_linearize_of_cond_and_while():
    x, w = normal(3), normal(3)

    def c(p, x):
        return lax.cond(p, lambda x: fg.sin(x) * w, lambda x: x * 2.0, x)

    t = normal(3)
    for p in (True, False):
        out, tan = fg.jvp(lambda x: c(p, x), (x,), (t,))
        np.testing.assert_allclose(tan, np.cos(x) * w * t if p else 2 * t, rtol=1e-6, atol=1e-7)
        out2, f_jvp = fg.linearize(lambda x: c(p, x), x)
        np.testing.assert_allclose(f_jvp(t), tan, rtol=1e-6, atol=1e-7)

    def loop(x):
        return lax.while_loop(lambda s: s[1] < 4, lambda s: (fg.sin(s[0]) * 1.5, s[1] + 1), (x, 0))[0]

    def unrolled(x):
        for _ in range(4):
            x = fg.sin(x) * 1.5
        return x

    assert_trees(fg.jvp(loop, (x,), (t,)), fg.jvp(unrolled, (x,), (t,)), rtol=1e-6, atol=1e-7)
    assert_trees(fg.jacfwd(loop)(x), fg.jacfwd(unrolled)(x), rtol=1e-5, atol=1e-6)

    def scaled(w):  # a tangent of a value the body closes over reaches the carry: carried from then on
        return lax.while_loop(lambda s: s[1] < 3, lambda s: (fg.sin(s[0] * w), s[1] + 1), (x, 0))[0]

    def scaled_unrolled(w):
        y = x
        for _ in range(3):
            y = fg.sin(y * w)
        return y

    assert_trees(fg.jvp(scaled, (w,), (t,)), fg.jvp(scaled_unrolled, (w,), (t,)), rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------------------
# Batching
# ---------------------------------------------------------------------------


def test_vmap_of_scan_matches_a_loop_over_the_batch():
    params, _, _, _ = rnn_args()
    h0s, xss, targets = normal(6, 4), normal(6, 5, 3), normal(6, 5, 2)
    loss = lambda h0, xs, tg: rnn_loss(params, h0, xs, tg)  # noqa: E731
    batched = fg.vmap(loss)(h0s, xss, targets)
    np.testing.assert_allclose(batched, [loss(*a) for a in zip(h0s, xss, targets)], rtol=1e-5, atol=1e-6)
    # an unbatched init whose carry becomes batched through the batched xs
    shared = fg.vmap(loss, in_axes=(None, 0, 0))(h0s[0], xss, targets)
    np.testing.assert_allclose(shared, [loss(h0s[0], x, t) for x, t in zip(xss, targets)], rtol=1e-5, atol=1e-6)
    # per-example gradients through the scan
    grads = fg.vmap(fg.grad(rnn_loss), in_axes=(None, 0, 0, 0))(params, h0s, xss, targets)
    for b in range(6):
        one = fg.grad(rnn_loss)(params, h0s[b], xss[b], targets[b])
        assert_trees(fg.tree_util.tree_map(lambda g: g[b], grads), one, rtol=1e-5, atol=1e-6)


def test_vmap_of_scan_with_batched_consts_only_batches_the_carry():
    ws, xs = normal(3, 2, 2, scale=0.5), normal(4, 2)

    def f(w):
        return lax.scan(lambda h, x: (fg.tanh(h @ w + x), h.sum()), fg.zeros(2), xs)

    assert_trees(fg.vmap(f)(ws), tuple(np.stack(a) for a in zip(*[f(w) for w in ws])), rtol=1e-6, atol=1e-7)


def test_vmap_of_cond_with_a_batched_pred_selects_and_with_an_unbatched_one_stays_a_cond():
    xs, w = normal(5, 3), normal(3)
    preds = np.array([True, False, False, True, True])

    def f(p, x):
        return lax.cond(p, lambda x: (fg.sin(x) * w, x.sum()), lambda x: (x * 2.0, -x.max()), x)

    assert_trees(fg.vmap(f)(preds, xs), tuple(np.stack(a) for a in zip(*[f(p, x) for p, x in zip(preds, xs)])))
    graph = fg.trace(fg.vmap(f), preds, xs)
    assert "cond" not in ops_of(graph) and "where" in ops_of(graph)
    graph = fg.trace(fg.vmap(f, in_axes=(None, 0)), np.bool_(True), xs)
    assert "cond" in ops_of(graph)
    for p in (True, False):
        assert_trees(fg.vmap(f, in_axes=(None, 0))(np.bool_(p), xs),
                     tuple(np.stack(a) for a in zip(*[f(p, x) for x in xs])))
    index = np.array([-1, 0, 1, 2, 9], np.int32)
    fns = [lambda x: x + 1.0, lambda x: x * w, lambda x: fg.exp(x)]
    assert_trees(fg.vmap(lambda i, x: lax.switch(i, fns, x))(index, xs),
                 np.stack([lax.switch(i, fns, x) for i, x in zip(index, xs)]), rtol=1e-6)


def test_vmap_of_while_with_a_batched_predicate_runs_every_lane_to_its_end():
    def f(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0), (0, x))

    ns, xs = np.array([0, 3, 1, 5], np.int32), normal(4, 2)
    assert_trees(fg.vmap(f)(ns, xs), tuple(np.stack(a) for a in zip(*[f(n, x) for n, x in zip(ns, xs)])),
                 rtol=1e-6)
    # an unbatched predicate: the body alone is batched (the counter is returned once per example, as in JAX)
    assert_trees(fg.vmap(f, in_axes=(None, 0))(np.int32(3), xs),
                 tuple(np.stack(a) for a in zip(*[f(3, x) for x in xs])), rtol=1e-6)
    # a batched value the body closes over makes the unbatched init's carry batched
    ws = normal(4, 2)
    g = lambda w: lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * w + 1.0, c[1] + 1), (xs[0], 0))  # noqa: E731
    assert_trees(fg.vmap(g)(ws), tuple(np.stack(a) for a in zip(*[g(w) for w in ws])), rtol=1e-6)
    jac = fg.jacfwd(lambda x: f(np.int32(3), x)[1])(xs[0])
    np.testing.assert_allclose(jac, np.eye(2) * 1.5**3, rtol=1e-6)


# ---------------------------------------------------------------------------
# Nesting
# ---------------------------------------------------------------------------


def nested(w, xss):
    """A scan over rows whose body scans over columns, with a cond inside the inner body."""
    def outer(h, xs):
        def inner(c, x):
            c = lax.cond(x.sum() > 0, lambda c: fg.tanh(c * w + x), lambda c: c * 0.5 - x, c)
            return c, c.sum()
        c, ys = lax.scan(inner, h, xs)
        return c * 0.9, ys
    return lax.scan(outer, fg.zeros(2), xss)


def nested_unrolled(w, xss):
    h, rows = np.zeros(2, np.float32), []
    for xs in xss:
        c, ys = h, []
        for x in xs:
            c = fg.tanh(c * w + x) if float(np.sum(x)) > 0 else c * 0.5 - x
            ys.append(fg.sum(c))
        h = c * 0.9
        rows.append(fg.stack(ys))
    return h, fg.stack(rows)


def test_nested_scan_with_cond_matches_python_and_differentiates():
    w, xss = normal(2), normal(3, 4, 2)
    assert_trees(both_ways(nested, w, xss), nested_unrolled(w, xss), rtol=1e-5, atol=1e-6)
    loss = lambda f: lambda w: fg.sum(f(w, xss)[1] ** 2) + fg.sum(f(w, xss)[0])  # noqa: E731
    np.testing.assert_allclose(fg.grad(loss(nested))(w), fg.grad(loss(nested_unrolled))(w), rtol=1e-5, atol=1e-6)
    check_grads(nested, (w, xss))
    t = normal(2)
    assert_trees(fg.jvp(lambda w: nested(w, xss), (w,), (t,)), fg.jvp(lambda w: nested_unrolled(w, xss), (w,), (t,)),
                 rtol=1e-5, atol=1e-6)
    batched = fg.vmap(nested, in_axes=(None, 0))(w, np.stack([xss, -xss]))
    assert_trees(batched, tuple(np.stack(a) for a in zip(nested(w, xss), nested(w, -xss))), rtol=1e-6, atol=1e-7)


def test_scan_inside_grad_inside_scan():
    """A gradient taken inside a scan body (a per-step gradient descent on a quadratic)."""
    targets = normal(4, 3)

    def f(x0):
        def step(x, t):
            g = fg.grad(lambda x: fg.sum(fg.sin(x - t) ** 2))(x)
            return x - 0.1 * g, fg.sum(g)
        return lax.scan(step, x0, targets)

    def unrolled(x0):
        x, ys = x0, []
        for t in targets:
            g = fg.grad(lambda x: fg.sum(fg.sin(x - t) ** 2))(x)
            x, ys = x - 0.1 * g, ys + [fg.sum(g)]
        return x, fg.stack(ys)

    x0 = normal(3)
    assert_trees(both_ways(f, x0), unrolled(x0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fg.grad(lambda x: f(x)[0].sum())(x0), fg.grad(lambda x: unrolled(x)[0].sum())(x0),
                               rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Models: an RNN trained with scan, a decoding loop with fori_loop
# ---------------------------------------------------------------------------


def test_rnn_trained_with_scan():
    params, h0, xs, targets = rnn_args(hidden=8, inputs=3, steps=12)
    loss = lambda p: rnn_loss(p, h0, xs, targets)  # noqa: E731
    assert_trees(fg.grad(loss)(params), fg.grad(lambda p: rnn_loss_unrolled(p, h0, xs, targets))(params),
                 rtol=1e-5, atol=1e-6)
    step = fg.adam_step(rnn_loss, lr=0.05)
    state, losses = fg.adam_init(params), []
    for _ in range(8):
        params, state, value = step(params, state, h0, xs, targets)
        losses.append(float(value))
    assert losses[-1] < 0.7 * losses[0], losses
    assert all(b < a for a, b in zip(losses, losses[1:])), losses


VOCAB, WIDTH, STEPS = 11, 6, 8


def decoder_args():
    """Weights from a generator of their own: drawn from RNG, they would depend on which tests ran
    before in the worker, and some draws decode one token over and over."""
    rng = np.random.default_rng(2)
    embed, mix, out = (rng.normal(size=s).astype(np.float32) for s in ((VOCAB, WIDTH), (WIDTH, WIDTH), (WIDTH, VOCAB)))
    return {"embed": embed, "mix": mix * np.float32(0.5), "out": out}, np.int32(3)


def greedy_decode(params, first):
    """Greedy argmax decoding for STEPS tokens, each written into the buffer in place."""
    buffer = fg.concatenate([fg.reshape(first, (1,)), fg.zeros(STEPS, "i32")])

    def step(i, state):
        tokens, h = state
        token = lax.dynamic_slice(tokens, (i,), (1,))
        h = fg.tanh(fg.take(params["embed"], token[0], axis=0) + h @ params["mix"])
        following = fg.argmax(h @ params["out"]).astype("i32")
        return lax.dynamic_update_slice(tokens, following[None], (i + 1,)), h

    return lax.fori_loop(0, STEPS, step, (buffer, fg.zeros(WIDTH)))[0]


def greedy_decode_ref(params, first):
    tokens, h = [int(first)], np.zeros(WIDTH, np.float32)
    for _ in range(STEPS):
        h = np.tanh(params["embed"][tokens[-1]] + h @ params["mix"]).astype(np.float32)
        tokens.append(int(np.argmax(h @ params["out"])))
    return np.array(tokens, np.int32)


def test_greedy_decoding_with_fori_loop_matches_a_python_loop():
    params, first = decoder_args()
    want = greedy_decode_ref(params, first)
    assert len(set(want.tolist())) > 2  # the model does not just repeat one token
    got = both_ways(greedy_decode, params, first)
    np.testing.assert_array_equal(got, want)
    graph = fg.trace(greedy_decode, params, first)
    loops = {fg.ir.call_of(n) for n in graph.nodes if n.op == "scan"}  # one loop of static trip count STEPS
    assert len(loops) == 1 and dict(loops.pop()[2])["length"] == STEPS


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def test_scan_refuses_a_carry_that_changes():
    xs = normal(3, 2)
    with pytest.raises(fg.ShapeError, match=r"scan: the carry f returns changes the shape of carry.1 from f32\[2\] "
                                            r"to f32\[1,2\].*test_control_flow.py:\d+"):
        lax.scan(lambda c, x: ((c[0], c[1][None]), None), (0.0, np.zeros(2, np.float32)), xs)
    with pytest.raises(fg.DTypeError, match=r"changes the dtype of carry from i32\[\] to f32\[\].*astype\(i32\)"):
        lax.scan(lambda c, x: (c + x.sum(), None), 0, xs)
    with pytest.raises(fg.TraceError, match=r"scan: the carry f returns has a different structure from carry"):
        lax.scan(lambda c, x: ({"a": c["a"], "b": c["a"]}, None), {"a": 0.0}, xs)
    with pytest.raises(fg.TraceError, match=r"scan: f must return a pair \(carry, y\), got a Tensor"):
        lax.scan(lambda c, x: c + x, np.zeros(2, np.float32), xs)


def test_scan_refuses_inconsistent_lengths():
    with pytest.raises(fg.ShapeError, match=r"scan: the leaves of xs have different leading axes: xs.0 has 3, "
                                            r"xs.1 has 4"):
        lax.scan(lambda c, x: (c, None), 0.0, (np.zeros(3), np.zeros(4)))
    with pytest.raises(fg.ShapeError, match=r"scan: length=5 but the leading axis of xs is 3"):
        lax.scan(lambda c, x: (c, None), 0.0, np.zeros(3), length=5)
    with pytest.raises(fg.InputError, match=r"scan: xs has no leaves \(None\), so give the trip count as length="):
        lax.scan(lambda c, x: (c, None), 0.0, None)
    with pytest.raises(fg.ShapeError, match=r"scan: xs is a scalar f32\[\]"):
        lax.scan(lambda c, x: (c, None), 0.0, np.float32(1))


def test_branches_must_agree():
    x = normal(3)
    with pytest.raises(fg.ShapeError, match=r"cond: output is f32\[3\] from false_fun but f32\[\] from true_fun"):
        lax.cond(True, lambda x: x.sum(), lambda x: x, x)
    with pytest.raises(fg.DTypeError, match=r"switch: output is f32\[3\] from branches\[0\] but i32\[3\] from "
                                            r"branches\[1\]"):
        lax.switch(0, [lambda x: x, lambda x: x.astype("i32")], x)
    with pytest.raises(fg.TraceError, match=r"cond: false_fun and true_fun return different structures"):
        lax.cond(False, lambda x: (x, x), lambda x: x, x)
    with pytest.raises(fg.ShapeError, match=r"cond: pred must be a scalar, got bool\[3\]"):
        lax.cond(np.array([True, False, True]), lambda x: x, lambda x: x, x)
    with pytest.raises(fg.DTypeError, match=r"cond: pred must be a bool or integer scalar, got f32\[\]"):
        lax.cond(1.0, lambda x: x, lambda x: x, x)
    with pytest.raises(fg.DTypeError, match=r"switch: index must be an integer scalar, got f32\[\]"):
        lax.switch(0.5, [lambda x: x, lambda x: x], x)


def test_while_loop_errors():
    with pytest.raises(fg.DTypeError, match=r"while_loop: cond_fun must return a bool scalar, got i32\[\]"):
        lax.while_loop(lambda c: c, lambda c: c - 1, 3)
    with pytest.raises(fg.ShapeError, match=r"while_loop: the value body_fun returns changes the shape of val"):
        lax.while_loop(lambda c: c.sum() < 3, lambda c: fg.concatenate([c, c]), np.ones(2, np.float32))
    with pytest.raises(fg.DTypeError, match=r"fori_loop: the value body_fun returns changes the dtype of val"):
        lax.fori_loop(0, 3, lambda i, v: v * 0.5, 1)
    with pytest.raises(fg.DTypeError, match=r"fori_loop: upper must be an integer scalar, got f32\[\]"):
        lax.fori_loop(0, 3.0, lambda i, v: v, 1)


# ---------------------------------------------------------------------------
# Simplification, and programs on the device
# ---------------------------------------------------------------------------


def test_carries_the_body_passes_through_are_their_init():
    def f(x, w):
        return lax.scan(lambda c, xi: ((c[0] + xi * c[1], c[1]), None), (fg.zeros(3), w), x)[0][1]

    graph = fg.simplify(fg.trace(f, fg.spec((4, 3)), fg.spec(3)))
    assert "scan" not in ops_of(graph), graph
    cond = fg.simplify(fg.trace(lambda x, y: lax.cond(x.sum() > 0, lambda x, y: (y, x), lambda x, y: (y, -x), x, y)[0],
                                fg.spec(3), fg.spec(2)))
    assert "cond" not in ops_of(cond), cond


def test_cond_on_device():
    x, w = normal(2, 3), normal(3)

    def f(p, i, x):
        a = lax.cond(p, lambda x: fg.sin(x) * w, lambda x: x * 2.0, x)
        return a, lax.switch(i, [lambda x: x.sum(0), lambda x: x.max(0), lambda x: x[0] * w], x)

    compiled = fg.jit(f)
    for p, i in ((True, 0), (False, 1), (True, 2), (False, -4), (True, 9)):
        assert_trees(compiled(np.bool_(p), np.int32(i), x), f(np.bool_(p), np.int32(i), x), rtol=1e-5, atol=1e-6)
    grad = fg.jit(fg.grad(lambda x, p: f(p, np.int32(2), x)[1].sum()))
    for p in (True, False):
        assert_trees(grad(x, np.bool_(p)), fg.grad(lambda x, p: f(p, np.int32(2), x)[1].sum())(x, np.bool_(p)),
                     rtol=1e-5, atol=1e-6)


def test_scan_on_device():
    args = rnn_args()
    value_and_grad = fg.value_and_grad(rnn_loss)
    assert_trees(fg.jit(value_and_grad)(*args), value_and_grad(*args), rtol=1e-4, atol=1e-5)
    xs = normal(6, 2)

    def reverse(xs):
        return lax.scan(lambda c, x: (c * 0.5 + x, c), np.zeros(2, np.float32), xs, reverse=True)

    assert_trees(fg.jit(reverse)(xs), reverse(xs), rtol=1e-5, atol=1e-6)
    params = rnn_args()[0]
    h0s, xss, targets = normal(3, 4), normal(3, 5, 3), normal(3, 5, 2)
    batched = fg.vmap(fg.grad(rnn_loss), in_axes=(None, 0, 0, 0))
    assert_trees(fg.jit(batched)(params, h0s, xss, targets), batched(params, h0s, xss, targets), rtol=1e-4, atol=1e-5)
    w, xss = normal(2), normal(3, 4, 2)
    assert_trees(fg.jit(nested)(w, xss), nested(w, xss), rtol=1e-5, atol=1e-6)


def test_scan_body_of_products_of_two_sizes_on_device():
    """A body whose products differ in size (a recurrence 6 -> 6, an output projection 6 -> 11):
    each result keeps all of its elements."""
    w, m, xs = normal(6, 11), normal(6, 6, scale=0.5), normal(4, 6)

    def f(w, m, xs):
        def step(h, x):
            h = fg.tanh(x + h @ m)
            return h, h @ w
        return lax.scan(step, fg.zeros(6), xs)

    assert_trees(fg.jit(f)(w, m, xs), f(w, m, xs), rtol=1e-5, atol=1e-5)


def test_decoding_loop_on_device():
    params, first = decoder_args()
    np.testing.assert_array_equal(fg.jit(greedy_decode)(params, first).numpy(), greedy_decode_ref(params, first))


def test_while_on_device():
    def f(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0), (0, x))

    compiled, x = fg.jit(f), normal(3)
    for n in (0, 1, 6):
        assert_trees(compiled(np.int32(n), x), f(np.int32(n), x), rtol=1e-5, atol=1e-6)
    ns, xs = np.array([0, 3, 1, 5], np.int32), normal(4, 2)
    assert_trees(fg.jit(fg.vmap(f))(ns, xs), fg.vmap(f)(ns, xs), rtol=1e-5, atol=1e-6)


def nested_whiles(n, x):
    """While loops inside a while loop's body and its predicate, and inside a scan's body, their
    trip counts depending on the outer loops' values."""
    def halvings(x):  # how many halvings bring max|x| under 1: a while loop in the predicate
        return lax.while_loop(lambda c: fg.max(fg.abs(c[1])) >= 1.0, lambda c: (c[0] + 1, c[1] * 0.5), (0, x))[0]

    def body(c):
        i, x, total = c
        inner = lax.while_loop(lambda d: d[0] < i + 1, lambda d: (d[0] + 1, fg.sin(d[1]) + x), (0, x))[1]
        return i + 1, inner * 1.5, total + i

    def step(x, k):
        return lax.while_loop(lambda c: c[0] < k, lambda c: (c[0] + 1, c[1] * 1.25), (0, x))[1], k

    outer = lax.while_loop(lambda c: (c[0] < n) & (halvings(c[1]) < 3), body, (0, x, 0))
    return outer, lax.scan(step, x, np.array([2, 0, 3], np.int32))


def test_nested_while_loops_on_device():
    compiled, x = fg.jit(nested_whiles), normal(3)
    for n in (0, 1, 4):
        assert_trees(compiled(np.int32(n), x), nested_whiles(np.int32(n), x), rtol=1e-5, atol=1e-6)
    program = lower(fg.trace(nested_whiles, np.int32(0), x))
    assert len(program.repeats) == 1 + 2 + 3  # the outer loop, one in its predicate and one in its body, one per scan step


def test_reverse_mode_runs_the_loop_forward_once():
    """Under grad the forward pass binds the scan that also stacks the residuals (the scan's rule
    in vjp_forward_rules): two loops in all, forward and backward, not a primal loop besides."""
    w = RNG.normal(size=(4, 4)).astype(np.float32) * 0.5
    h0, xs = RNG.normal(size=(2, 4)).astype(np.float32), RNG.normal(size=(5, 2, 4)).astype(np.float32)

    def loss(w, h0, xs):
        def step(h, x):
            h = fg.tanh(h @ w + x)
            return h, fg.sum(h)
        return fg.sum(fg.lax.scan(step, h0, xs)[1] ** 2)

    graph = fg.simplify(fg.trace(fg.value_and_grad(loss), w, h0, xs))
    assert len({(n.inputs, n.attrs["body"]) for n in graph.nodes if n.op == "scan"}) == 2
    check_grads(loss, (w, h0, xs), order=2)


def test_a_donated_carry_stays_in_its_buffer_on_the_device():
    """A loop carries a donated argument in the argument's own buffer (a decode loop's KV cache):
    no copy in, no result buffer of its size."""
    def f(cache, x):
        def body(i, c):
            cache, acc = c
            cache = fg.lax.dynamic_update_slice(cache, (x * i)[None], (i, 0))
            return cache, acc + cache.sum()
        return fg.lax.fori_loop(0, 4, body, (cache, fg.zeros((), "f32")))

    cache, x = np.zeros((6, 3), np.float32), np.arange(3, dtype=np.float32)
    want = fg.interpret(fg.trace(f, cache, x), cache, x)
    step = fg.jit(f, donate_argnums=0)
    assert step.lower(cache, x).compile().memory["outputs"] == 4  # the sum alone
    got = step(fg.device_put(cache), x)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(np.asarray(a), b)


def _loop_kernels(program):
    return [k.name for k in program.kernels if k.name.startswith("scan")]


def jit_with(program):
    """The executable of a lowered program, on the default device."""
    return Executable(program)


@pytest.mark.parametrize("buffers", [16, 7])
def test_an_elementwise_fori_loop_is_one_kernel_on_the_device(buffers):
    """A fori_loop without xs or ys whose body is elementwise runs in one kernel, an invocation per
    element doing every iteration: carries of the largest shape, one broadcast into it ((1, 4)
    into (3, 4)), the counter read by the body, a bool, an int, a constant array of the body.
    The initial x is read where it is, or, with no binding left for it, copied into the loop's
    state first."""
    x, row = normal(3, 4), normal(1, 4)
    steps = np.float32([0.5, -1.0, 2.0, 0.25])

    def f(x, row):
        def body(i, c):
            x, row, on, n = c
            x = fg.where(on, x * 0.9 + fg.sin(row) + steps * fg.astype(i, "f32") * 0.01, x)
            return x, row * 0.99 + 0.1, on & (fg.abs(x) < 3.0), n + fg.astype(on, "i32")
        return lax.fori_loop(0, 37, body, (x, row, fg.full((3, 4), True), fg.zeros((3, 4), "i32")))

    program = lower(fg.trace(f, x, row), Limits(max_storage_buffers_per_shader_stage=buffers))
    # The flags, counts and counter start from their constants; 5 outputs, the row and the steps read.
    copied = ["scan_init"] if buffers < 8 else []
    assert _loop_kernels(program) == [*copied, "scan.add_mul_sin_logical_and"], [k.name for k in program.kernels]
    assert_trees(jit_with(program)(x, row), f(x, row), rtol=1e-5, atol=1e-6)
    donated = fg.jit(f, donate_argnums=0)
    assert_trees(donated(fg.device_put(x), row), f(x, row), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_an_elementwise_scan_over_xs_is_one_kernel_on_the_device(reverse):
    """A linear recurrence over xs, stacking ys, with a slice of its own shape and one broadcast
    into it (a gain per step): one kernel reads each iteration's slices and writes its ys."""
    h0, xs, gains, a = normal(3, 4), normal(6, 3, 4), normal(6), normal(4)

    def f(h0, xs, gains):
        def step(h, x):
            g, x = x
            h = h * a + x * g
            return h, (h, fg.tanh(h) + 1.0)
        return lax.scan(step, h0, (gains, xs), reverse=reverse)

    program = lower(fg.trace(f, h0, xs, gains), Limits(max_storage_buffers_per_shader_stage=16))
    assert _loop_kernels(program) == ["scan.mul_add_tanh"], [k.name for k in program.kernels]
    assert_trees(fg.jit(f)(h0, xs, gains), f(h0, xs, gains), rtol=1e-5, atol=1e-6)


def test_the_gradient_of_an_elementwise_loop_is_two_kernels_on_the_device():
    """Reverse mode through an elementwise fori_loop: the forward loop stacking its residuals and
    the backward loop reading them are one kernel each."""
    x = normal(2, 5)

    def loss(x):
        return fg.sum(lax.fori_loop(0, 12, lambda i, c: c * 0.9 + fg.sin(c) * 0.3, x) ** 2)

    grad = fg.grad(loss)
    program = lower(fg.trace(grad, x), Limits(max_storage_buffers_per_shader_stage=16))
    assert len([k for k in program.kernels if k.name.startswith("scan.")]) == 2, [k.name for k in program.kernels]
    assert_trees(fg.jit(grad)(x), grad(x), rtol=1e-5, atol=1e-6)
    check_grads(loss, (x,), order=1)


@pytest.mark.parametrize("why", ["folds", "reads across elements", "too many buffers"])
def test_other_loops_keep_their_kernels_per_iteration(why):
    """A body that folds (a sum), that reads a slice at other elements than its own (reversed),
    or a loop whose one kernel would bind more buffers than the adapter allows, runs its step's
    kernels once per iteration."""
    x, xs = normal(3), normal(5, 3)
    limits = Limits(max_storage_buffers_per_shader_stage=4 if why == "too many buffers" else 16)

    def f(x, xs):
        if why == "folds":
            return lax.fori_loop(0, 5, lambda i, c: c * 0.5 + fg.sum(c), x)
        if why == "reads across elements":
            return lax.scan(lambda c, xi: (c * 0.5 + xi[::-1], None), x, xs)[0]
        return lax.fori_loop(0, 5, lambda i, c: tuple(v * 0.5 + c[0] for v in c), (x, x + 1, x + 2, x + 3))

    program = lower(fg.trace(f, x, xs), limits)
    assert len(_loop_kernels(program)) >= 5, [k.name for k in program.kernels]
    assert_trees(fg.jit(f)(x, xs), f(x, xs), rtol=1e-5, atol=1e-6)


def test_a_while_loop_of_a_counter_is_one_kernel_on_the_device():
    """A fori_loop with traced bounds (a while loop whose predicate reads only its counter) and an
    elementwise body: the predicate's kernel, then one kernel that tests it before each iteration
    and stops where it fails. Past 65,535 iterations (where llvmpipe ends a loop) the host finds
    the predicate still true and the kernel runs on."""
    x = normal(2, 3)

    def f(n, x):
        return lax.fori_loop(0, n, lambda i, c: (c[0] * 0.5 + fg.astype(i % 7, "f32"), c[1] + 1), (x, fg.zeros(3, "i32")))

    program = lower(fg.trace(f, np.int32(3), x), Limits(max_storage_buffers_per_shader_stage=16))
    assert [k.name for k in program.kernels if k.name.startswith("while.")] == ["while.lt", "while.lt_add_mul_astype"]
    def reference(n, x):
        v = x.copy()
        for i in range(n):
            v = v * np.float32(0.5) + np.float32(i % 7)
        return v, np.full(3, n, np.int32)

    compiled = jit_with(program)
    for n in (0, 1, 6, 70_000):
        assert_trees(compiled(np.int32(n), x), reference(n, x), rtol=1e-5, atol=1e-5, what=f"n = {n}")
    assert_trees(compiled(np.int32(6), x), f(np.int32(6), x), rtol=1e-5, atol=1e-6)


def test_a_while_loop_whose_predicate_folds_keeps_its_kernels():
    """A predicate that reads the whole carry (its sum) is every element's: the body's kernels run
    once per test."""
    def f(x):
        return lax.while_loop(lambda v: v.sum() < 100.0, lambda v: v * 2.0 + 1.0, x)

    x = np.abs(normal(3)) + 0.1
    program = lower(fg.trace(f, x), Limits(max_storage_buffers_per_shader_stage=16))
    assert [k.name for k in program.kernels] == ["while_init", "while.sum_lt", "while.mul_add"]
    assert_trees(jit_with(program)(x), f(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("how", ["products", "swapped"])
def test_carries_whose_new_values_take_each_others_buffers_on_the_device(how):
    """A step's new carry may be planned in the buffer of another carry's state (the old value
    died): the copies back into the state run in an order that reads each value before it is
    overwritten, through a scratch buffer where they form a cycle (carries swapped)."""
    a, c0, js = normal(3, 3), normal(3, 3), normal(4, 3, 3)

    def f(a, c0, js):
        def step(c, j):
            b, v, s = c
            return ((b @ j, v @ j, s) if how == "products" else (v, b, s + fg.sum(b * j))), None
        return lax.scan(step, (a, c0, fg.zeros(())), js)[0]

    program = lower(fg.trace(f, a, c0, js))
    if how == "swapped":  # one state kept aside while the other takes its place
        names = [k.name for k in program.kernels]
        assert names[names.index("scan.mul_sum_add") + 1:names.index("scan_next")] == ["scan_state"] * 3, names
    assert_trees(jit_with(program)(a, c0, js), fg.interpret(fg.trace(f, a, c0, js), a, c0, js), rtol=1e-5, atol=1e-5)
