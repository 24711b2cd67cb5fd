"""Forward mode: jvp over the whole op table (against finite differences, the vjp-derived product
and the device), and linearize, jacfwd, jacrev and hessian against the compositions they replace.

Every primitive having a jvp rule is the completeness test's (tests/test_ops.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn
from fgrad.pytree import flatten, unflatten
from op_table import Case, make, seed, trace
from test_ops import GRAD_CASES

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

RNG = np.random.default_rng(2024)


def normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.normal(size=shape) * scale).astype(np.float32)


def interpret64(fn: Any, *args: Any) -> Any:
    """`fn` traced on `args`, type-checked, and run by `interpret` in float64."""
    return fg.interpret(fg.typecheck(fg.trace(fn, *args)), *args, float64=True)


def tree_close(got: Any, want: Any, rtol: float = 1e-10, atol: float = 1e-12, what: str = "") -> None:
    """Two pytrees of one structure whose leaves agree (float64 results: only rounding apart)."""
    got_leaves, got_tree = flatten(got)
    want_leaves, want_tree = flatten(want)
    assert got_tree == want_tree, f"{what}: structure {got_tree}, expected {want_tree}"
    for g, w in zip(got_leaves, want_leaves):
        assert np.shape(g) == np.shape(w), f"{what}: shape {np.shape(g)}, expected {np.shape(w)}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)


def vdot(a: Any, b: Any) -> Any:
    """The inner product of two pytrees of one structure, in fgrad ops."""
    return sum(fg.sum(x * y) for x, y in zip(flatten(a)[0], flatten(b)[0]))


# ---------------------------------------------------------------------------
# The op table: every differentiable row
# ---------------------------------------------------------------------------


def _tangent(rng: np.random.Generator, x: Any) -> np.ndarray:
    """A random tangent of a float primal's dtype; zeros for an integer primal (JAX's float0, whose
    values are not read)."""
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return rng.normal(size=x.shape).astype(x.dtype)
    return np.zeros(x.shape, x.dtype)


def _lacking_features(graph: fg.Graph) -> list[str]:
    """The adapter features the graph's dtypes need and this device lacks (shader-f16 on llvmpipe:
    tests/test_runtime.py checks that compiling then names it)."""
    device = fg.default_device()
    return sorted({n.spec.dtype.row.feature for n in graph.nodes} - {None} - set(device.device.features))


def _on_device(graph: fg.Graph, args: list[Any], rtol: float, atol: float, what: str) -> None:
    """`graph` compiled and run on the adapter matches `interpret` to f32 tolerance."""
    if _lacking_features(graph):
        return
    got = flatten(fg.compile(graph)(*args))[0]
    want = flatten(fg.interpret(graph, *args))[0]
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape, f"{what}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)


EPS = 1e-5  # central differences in float64: truncation ~eps^2, rounding ~1e-16/eps


def _wide(x: Any) -> Any:
    """A float array (f32 or f16) in float64, as `interpret(..., float64=True)` computes it."""
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype.kind == "f" else x


def _differentiable_along(graph: fg.Graph, x64: list[Any], t64: list[Any],
                          out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Central differences of `graph` at `x64` along `t64`, and the output elements where they
    measure a derivative: finite, with one-sided differences that agree (no kink, no near-tie the
    step crosses) and a central difference that does not change with the step (no jump).
    Elsewhere the derivative is one-sided or undefined, and the rule's choice there is JAX's
    convention, not a number finite differences can check."""
    def at(step: float) -> np.ndarray:
        return fg.interpret(graph, *[x + step * t if x.dtype == np.float64 else x for x, t in zip(x64, t64)],
                            float64=True)

    plus, minus, half_plus, half_minus = at(EPS), at(-EPS), at(EPS / 2), at(-EPS / 2)
    with np.errstate(invalid="ignore", over="ignore"):
        central, half = (plus - minus) / (2 * EPS), (half_plus - half_minus) / EPS
        ahead, behind = (plus - out) / EPS, (out - minus) / EPS
        bound = 1e-2 * (1 + np.abs(central))
        smooth = (np.abs(ahead - behind) <= bound) & (np.abs(central - half) <= bound)
    return central, np.isfinite(out) & np.isfinite(plus) & np.isfinite(minus) & smooth


# Primitives whose derivative is reverse mode only, as in JAX: their rows' jvp is this error.
REVERSE_ONLY = {"custom_vjp_call": (fg.TraceError, "custom_vjp: forward-mode differentiation")}


# Every row also runs on the device, which adds about 10 s to the column on 2 cores.
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in GRAD_CASES])
def test_jvp(case: Case) -> None:
    """The row's JVP against central differences along the tangent (float64), against the vjp
    by <ct, J t> = <J^T ct, t> (float64), and on the device against interpret (f32)."""
    args = make(case)
    n = len(args)
    rng = np.random.default_rng(seed(case) + 1)
    tangents = [_tangent(rng, a) for a in args]
    specs = list(case.specs) if case.specs is not None else args
    if case.prim in REVERSE_ONLY:
        error, message = REVERSE_ONLY[case.prim]
        with pytest.raises(error, match=message):
            fg.trace(lambda *a: fg.jvp(case.fn, a[:n], a[n:]), *specs, *specs)
        return
    jvp_graph = fg.typecheck(fg.trace(lambda *a: fg.jvp(case.fn, a[:n], a[n:]), *specs, *specs))
    assert len(jvp_graph.out_specs) == 2, f"{case.id}: {jvp_graph.out_tree}"
    x64, t64 = [_wide(a) for a in args], [_wide(t) for t in tangents]
    out, tangent_out = fg.interpret(jvp_graph, *x64, *t64, float64=True)

    graph = trace(case, args)
    np.testing.assert_allclose(out, fg.interpret(graph, *x64, float64=True), rtol=1e-12, atol=0,
                               err_msg=f"{case.id}: jvp's primal output")
    central, checked = _differentiable_along(graph, x64, t64, out)
    finite = np.isfinite(out)
    # Some elements may sit on a jump or a near-tie (rows placed there on purpose: heaviside's
    # steps, one_hot's float labels); at least half must be checked, or the row checks nothing.
    assert 2 * checked.sum() >= finite.sum(), \
        f"{case.id}: only {checked.sum()} of {finite.sum()} finite outputs are differentiable along the tangent"
    np.testing.assert_allclose(tangent_out[checked], central[checked], rtol=1e-5, atol=1e-6,
                               err_msg=f"{case.id}: jvp against finite differences")

    # Outputs that are NaN or infinite get a zero cotangent: no inner product sees them.
    ct = np.where(finite, rng.normal(size=np.shape(out)), 0.0)
    ct_spec = graph.out_specs[0] if case.specs is not None else ct.astype(np.float32)
    vjp_graph = fg.typecheck(fg.trace(lambda *a: fg.vjp(case.fn, *a[:n])[1](a[n]), *specs, ct_spec))
    grads = fg.interpret(vjp_graph, *x64, ct, float64=True)
    # A zero cotangent on a NaN output may still give NaN cotangents (0 * inf, as in JAX) to the
    # inputs that feed only it: those drop out of both sides.
    pairs = [(ct, np.where(finite, tangent_out, 0.0))] + [(np.where(np.isfinite(g), g, 0.0), t)
                                                          for g, t in zip(grads, t64) if g is not None]
    lhs, rhs = np.vdot(*pairs[0]), sum(np.vdot(g, t) for g, t in pairs[1:])
    scale = sum(np.vdot(np.abs(a), np.abs(b)) for a, b in pairs)
    assert abs(lhs - rhs) <= 1e-10 * scale + 1e-12, f"{case.id}: <ct, J t> = {lhs!r} but <J^T ct, t> = {rhs!r}"

    _on_device(jvp_graph, [*args, *tangents], max(case.rtol, 1e-4), max(case.atol, 1e-5), f"{case.id}: jvp on device")


# ---------------------------------------------------------------------------
# linearize, jacfwd, jacrev, hessian against the compositions they replace
# ---------------------------------------------------------------------------


def layer(x, w):
    """A function of two arguments with two outputs, one of them a pytree."""
    h = fg.tanh(x @ w)
    return {"h": h, "stats": (fg.sum(h * h, axis=-1), fg.exp(x[0] * 0.5))}


def test_linearize_agrees_with_jvp_and_is_linear():
    x, w = normal(2, 3), normal(3, 4)
    tx, tw, sx, sw = normal(2, 3), normal(3, 4), normal(2, 3), normal(3, 4)
    y, f_jvp = fg.linearize(layer, x, w)
    want_y, want_t = fg.jvp(layer, (x, w), (tx, tw))
    tree_close(y, want_y, rtol=1e-6, atol=1e-7, what="linearize's primal output")
    tree_close(f_jvp(tx, tw), want_t, rtol=1e-5, atol=1e-6, what="linearize's tangent")
    # The tangent program is kept and runs again for new tangents; it is linear in them.
    both = flatten(f_jvp(tx + sx, tw + sw))[0]
    parts = [a + b for a, b in zip(flatten(f_jvp(tx, tw))[0], flatten(f_jvp(sx, sw))[0])]
    tree_close(both, parts, rtol=1e-5, atol=1e-6, what="f_jvp(t + s) = f_jvp(t) + f_jvp(s)")
    tree_close(flatten(f_jvp(2 * tx, 2 * tw))[0], [2 * a for a in flatten(f_jvp(tx, tw))[0]], rtol=1e-6, atol=1e-7,
               what="f_jvp(2 t) = 2 f_jvp(t)")
    # In float64 through a trace, the two agree to rounding.
    lin = interpret64(lambda tx, tw: fg.linearize(layer, x, w)[1](tx, tw), tx, tw)
    tree_close(lin, interpret64(lambda tx, tw: fg.jvp(layer, (x, w), (tx, tw))[1], tx, tw), rtol=1e-6, atol=1e-7,
               what="traced linearize")


def test_linearize_does_not_run_the_forward_again():
    x, w = normal(2, 3), normal(3, 4)
    _, f_jvp = fg.linearize(layer, x, w)
    graph = fg.trace(f_jvp, normal(2, 3), normal(3, 4))
    ops = {n.op for n in graph.nodes}
    assert "tanh" not in ops and "exp" not in ops, f"the tangent program recomputes the forward:\n{graph}"


def _jacobian_from_vjp_rows(fn, args):
    """The Jacobian of `fn` at `args` built from one vjp per output element, in float64: the
    output's structure holding, per leaf, a tuple over `args` of arrays shaped out + in."""
    out_leaves, out_tree = flatten(fg.eval_shape(fn, *args))
    zeros = unflatten(out_tree, [np.zeros(s.shape, np.float32) for s in out_leaves])
    pull = fg.typecheck(fg.trace(lambda *a: fg.vjp(fn, *a[:-1])[1](a[-1]), *args, zeros))
    jac = []
    for k, spec in enumerate(out_leaves):
        rows = []
        for e in range(int(np.prod(spec.shape, dtype=int))):
            basis = [np.zeros(s.shape) for s in out_leaves]
            basis[k].flat[e] = 1.0
            rows.append(fg.interpret(pull, *args, unflatten(out_tree, basis), float64=True))
        jac.append(tuple(np.stack([r[a] for r in rows]).reshape(spec.shape + np.shape(args[a]))
                         for a in range(len(args))))
    return out_tree, jac


def test_jacfwd_jacrev_and_vjp_rows_agree():
    x, w = normal(2, 3), normal(3, 4)
    out_tree, rows = _jacobian_from_vjp_rows(layer, (x, w))
    want = unflatten(out_tree, rows)
    assert np.shape(want["h"][1]) == (2, 4, 3, 4)
    tree_close(interpret64(fg.jacfwd(layer, argnums=(0, 1)), x, w), want, what="jacfwd")
    tree_close(interpret64(fg.jacrev(layer, argnums=(0, 1)), x, w), want, what="jacrev")
    # An int argnums gives that argument's Jacobian, not a tuple; a negative one counts from the end.
    tree_close(interpret64(fg.jacfwd(layer), x, w), unflatten(out_tree, [j[0] for j in rows]), what="jacfwd argnums=0")
    tree_close(interpret64(fg.jacrev(layer, argnums=-1), x, w), unflatten(out_tree, [j[1] for j in rows]),
               what="jacrev argnums=-1")
    # Eagerly, on arrays, to f32 accuracy.
    tree_close(fg.jacfwd(layer, argnums=(0, 1))(x, w), want, rtol=1e-5, atol=1e-6, what="eager jacfwd")
    tree_close(fg.jacrev(layer, argnums=(0, 1))(x, w), want, rtol=1e-5, atol=1e-6, what="eager jacrev")


def test_jacobians_of_scalars_and_pytree_arguments():
    """Shapes as JAX's: out.shape + in.shape; the input's pytree under each output leaf."""
    p = {"a": normal(3), "b": (normal(), normal(2, 2))}

    def f(p, s):
        return fg.sum(p["a"] * s) + p["b"][0] * fg.sum(p["b"][1])

    def g(s):
        return fg.stack([fg.sin(s), s * s])

    s = np.float32(0.7)
    for jac in (fg.jacfwd, fg.jacrev):
        jp = interpret64(jac(f), p, s)
        assert flatten(jp)[1] == flatten(p)[1] and [np.shape(v) for v in flatten(jp)[0]] == [(3,), (), (2, 2)]
        np.testing.assert_allclose(jp["a"], np.full(3, np.float64(s)), rtol=1e-12)
        np.testing.assert_allclose(jp["b"][0], np.sum(p["b"][1], dtype=np.float64), rtol=1e-12)
        np.testing.assert_allclose(jp["b"][1], np.full((2, 2), p["b"][0], np.float64), rtol=1e-12)
        np.testing.assert_allclose(interpret64(jac(f, argnums=1), p, s), np.sum(p["a"], dtype=np.float64),
                                   rtol=1e-12)
        np.testing.assert_allclose(interpret64(jac(g), s), [np.cos(np.float64(s)), 2 * np.float64(s)], rtol=1e-12)


def mlp_loss(p, x, labels):
    """A small MLP's loss, smooth (tanh) so that second derivatives exist everywhere."""
    h = fg.tanh(x @ p["w1"] + p["b1"])
    return nn.cross_entropy(h @ p["w2"], labels)


def mlp_args():
    params = {"w1": normal(4, 3), "b1": normal(3, scale=0.1), "w2": normal(3, 2)}
    return params, normal(5, 4), np.array([0, 1, 1, 0, 1], np.int32)


def _hvp_nested_grad(fn, argnums, args, v):
    """H v by reverse over reverse: the gradient of <grad f, v>."""
    return fg.grad(lambda *a: vdot(fg.grad(fn, argnums)(*a), v), argnums)(*args)


def test_hessian_of_an_mlp_loss_against_jacobians_of_the_gradient_and_nested_grad():
    p, x, labels = mlp_args()
    h = interpret64(fg.hessian(mlp_loss), p, x, labels)
    assert flatten(h)[1] == flatten({k: p for k in p})[1]
    assert np.shape(h["w1"]["w2"]) == (4, 3, 3, 2)
    tree_close(interpret64(fg.jacfwd(fg.grad(mlp_loss)), p, x, labels), h, what="jacfwd(grad)")
    tree_close(interpret64(fg.jacrev(fg.grad(mlp_loss)), p, x, labels), h, what="jacrev(grad)")
    # Symmetric, and H v agrees with reverse over reverse along random directions.
    for a in p:
        for b in p:
            nb = np.ndim(p[b])
            np.testing.assert_allclose(h[a][b], np.moveaxis(h[b][a], tuple(range(nb)), tuple(range(-nb, 0))),
                                       rtol=1e-10, atol=1e-12, err_msg=f"H[{a}][{b}] against H[{b}][{a}]^T")
    for _ in range(2):
        v = {k: normal(*np.shape(w)) for k, w in p.items()}
        want = interpret64(lambda p, x, labels, v: _hvp_nested_grad(mlp_loss, 0, (p, x, labels), v), p, x, labels, v)
        got = {a: sum(np.tensordot(h[a][b], v[b], axes=np.ndim(v[b])) for b in p) for a in p}
        tree_close(got, want, what="hessian @ v against grad of <grad, v>")


def two_args(a, b):
    """A scalar function of two pytree arguments, coupled so that the cross blocks are not zero."""
    u = fg.tanh(a["u"] @ b[1]) * b[0]
    return fg.sum(u * u) + fg.sum(fg.sin(a["v"]) * fg.sum(b[1], axis=0)) + b[0] * fg.sum(a["v"] ** 3)


def two_args_values():
    return {"u": normal(2), "v": normal(3)}, (normal(), normal(2, 3))


def test_hessian_over_argnums_tuple_of_pytree_arguments():
    """H[i][j] holds argument i's pytree of argument j's pytrees, blocks shaped leaf_i + leaf_j:
    against reverse over reverse along random directions, and symmetric."""
    a, b = two_args_values()
    h = interpret64(fg.hessian(two_args, argnums=(0, 1)), a, b)
    assert np.shape(h[0]["u"][1][1]) == (2, 2, 3) and np.shape(h[1][0][0]["v"]) == (3,)
    tree_close(interpret64(fg.jacfwd(fg.jacrev(two_args, argnums=(0, 1)), argnums=(0, 1)), a, b), h,
               what="hessian is jacfwd(jacrev)")
    tree_close(interpret64(fg.jacrev(fg.jacrev(two_args, argnums=(0, 1)), argnums=(0, 1)), a, b), h,
               what="jacrev(jacrev)")
    # Flattened, H[i] lists per leaf of argument i its blocks against every leaf of (a, b).
    sizes = [len(flatten(a)[0]), len(flatten(b)[0])]
    per = sum(sizes)
    rows = [[flatten(h[i])[0][k * per:(k + 1) * per] for k in range(sizes[i])] for i in range(2)]
    for _ in range(2):
        v = (fg.tree_map(lambda w: normal(*np.shape(w)), a), fg.tree_map(lambda w: normal(*np.shape(w)), b))
        want = interpret64(lambda a, b, v: _hvp_nested_grad(two_args, (0, 1), (a, b), v), a, b, v)
        v_leaves = flatten(v)[0]
        got = [[sum(np.tensordot(block, vl, axes=np.ndim(vl)) for block, vl in zip(row, v_leaves)) for row in rows[i]]
               for i in range(2)]
        tree_close(got, [flatten(w)[0] for w in want], what="hessian @ v against grad of <grad, v>")
    # One argument alone gives its diagonal blocks.
    diagonal = interpret64(fg.hessian(two_args, argnums=1), a, b)
    assert flatten(diagonal)[1] == flatten(fg.tree_map(lambda _: b, b))[1]
    tree_close(flatten(diagonal)[0], [block for row in rows[1] for block in row[sizes[0]:]], what="hessian argnums=1")


def test_hessian_with_aux():
    x = normal(4)

    def f(x):
        y = fg.sum(fg.exp(x) * x)
        return y, {"y": y, "n": fg.sum(x > 0)}

    h, aux = fg.hessian(f, has_aux=True)(x)
    np.testing.assert_allclose(h, fg.hessian(lambda x: f(x)[0])(x), rtol=1e-6)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(h, np.diag(np.exp(x64) * (x64 + 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(aux["y"], np.sum(np.exp(x64) * x64), rtol=1e-6)
    assert int(aux["n"]) == int(np.sum(x > 0))


def test_forward_over_reverse_and_reverse_over_forward_agree_with_reverse_over_reverse():
    """Four ways to H v for a pytree argument: jvp of grad, grad of jvp, grad of <grad, v>, and
    the Hessian contracted with v."""
    p, x, labels = mlp_args()
    v = {k: normal(*np.shape(w)) for k, w in p.items()}
    # x and labels are traced too, so that the inner functions close over Tensors of the outer trace.
    fwd_rev = interpret64(lambda p, v, x, labels: fg.jvp(lambda q: fg.grad(mlp_loss)(q, x, labels), (p,), (v,))[1],
                          p, v, x, labels)
    rev_fwd = interpret64(lambda p, v, x, labels: fg.grad(
        lambda q: fg.jvp(lambda r: mlp_loss(r, x, labels), (q,), (v,))[1])(p), p, v, x, labels)
    rev_rev = interpret64(lambda p, v, x, labels: _hvp_nested_grad(mlp_loss, 0, (p, x, labels), v), p, v, x, labels)
    h = interpret64(fg.hessian(mlp_loss), p, x, labels)
    contracted = {a: sum(np.tensordot(h[a][b], v[b], axes=np.ndim(v[b])) for b in p) for a in p}
    tree_close(fwd_rev, rev_rev, what="jvp of grad")
    tree_close(rev_fwd, rev_rev, what="grad of jvp")
    tree_close(contracted, rev_rev, what="hessian @ v")
    # And against finite differences of the gradient along v, in float64.
    grad_graph = fg.trace(fg.grad(mlp_loss), p, x, labels)
    eps = 1e-5
    plus, minus = (fg.interpret(grad_graph, {k: p[k].astype(np.float64) + s * v[k] for k in p}, x, labels,
                                float64=True) for s in (eps, -eps))
    tree_close(fwd_rev, {k: (plus[k] - minus[k]) / (2 * eps) for k in p}, rtol=1e-5, atol=1e-7,
               what="jvp of grad against finite differences")


def test_jvp_of_pytree_primals_and_outputs():
    a, b = two_args_values()
    ta, tb = two_args_values()

    def f(a, b):
        return {"first": fg.tanh(a["u"] @ b[1]) * b[0], "second": (fg.sum(a["v"] ** 2), a["v"] * b[0])}

    out, tangent = fg.jvp(f, (a, b), (ta, tb))
    assert flatten(tangent)[1] == flatten(out)[1] == flatten(fg.eval_shape(f, a, b))[1]
    graph = fg.trace(f, a, b)
    eps = 1e-5
    wide = lambda tree: fg.tree_map(lambda w: np.asarray(w, np.float64), tree)  # noqa: E731
    moved = lambda x, t, s: fg.tree_map(lambda u, v: u + s * v, wide(x), wide(t))  # noqa: E731
    plus, minus = (fg.interpret(graph, moved(a, ta, s), moved(b, tb, s), float64=True) for s in (eps, -eps))
    numeric = fg.tree_map(lambda u, w: (u - w) / (2 * eps), plus, minus)
    tree_close(interpret64(lambda *z: fg.jvp(f, z[:2], z[2:])[1], a, b, ta, tb), numeric, rtol=1e-5, atol=1e-7,
               what="jvp of pytrees against finite differences")
    tree_close(tangent, numeric, rtol=1e-4, atol=1e-5, what="eager jvp of pytrees")
    # has_aux: the aux output comes back as it is, with no tangent.
    out2, tangent2, aux = fg.jvp(lambda a, b: (f(a, b), {"n": fg.sum(a["v"] > 0)}), (a, b), (ta, tb), has_aux=True)
    tree_close(out2, out, rtol=1e-6, atol=1e-7, what="jvp's output with has_aux")
    tree_close(tangent2, tangent, rtol=1e-6, atol=1e-7, what="jvp's tangent with has_aux")
    assert int(aux["n"]) == int(np.sum(a["v"] > 0))


def test_jvp_of_integer_inputs_and_outputs():
    """An integer primal's tangent is not read; an integer output's tangent is integer zeros."""
    x, i = normal(4), np.array([2, 0], np.int32)
    out, tangent = fg.jvp(lambda x, i: (x[i] * 2.0, i + 1), (x, i), (np.ones(4, np.float32), np.zeros(2, np.int32)))
    np.testing.assert_allclose(tangent[0], [2.0, 2.0])
    assert tangent[1].dtype == np.int32 and not tangent[1].any()


def _line_of(fn, offset: int) -> str:
    return f"test_forward.py:{fn.__code__.co_firstlineno + offset}"


def test_jvp_errors_name_the_mismatch_and_the_line():
    f = lambda x, y: x * y  # noqa: E731
    x = normal(3)

    def structure():
        fg.jvp(f, (x, x), (x, {"a": x}))

    def shape():
        fg.jvp(f, (x, x), (x, normal(4)))

    def dtype():
        fg.jvp(f, (x, x), (x.astype(np.float16), x))

    def count():
        fg.jvp(f, (x, x), (x,))

    def not_a_tuple():
        fg.jvp(f, x, (x,))

    def not_an_array():
        fg.jvp(f, (x, x), (x, "t"))

    cases = [(structure, fg.InputError, "the tangents have structure"),
             (shape, fg.ShapeError, "the tangent for primals.1 has shape (4,), the primal (3,)"),
             (dtype, fg.DTypeError, "the tangent for primals.0 is f16[3], the primal f32[3]"),
             (count, fg.InputError, "2 primals and 1 tangents"),
             (not_a_tuple, fg.InputError, "primals must be a tuple"),
             (not_an_array, fg.InputError, "the tangent for primals.1 is a str")]
    for fn, error, message in cases:
        with pytest.raises(error) as e:
            fn()
        assert message in str(e.value) and _line_of(fn, 1) in str(e.value), f"{fn.__name__}: {e.value}"


def test_jacobian_errors():
    x = normal(3)
    with pytest.raises(fg.DTypeError, match="differentiation needs float inputs"):
        fg.jacfwd(lambda i: i * 2)(np.arange(3, dtype=np.int32))
    with pytest.raises(fg.InputError, match="argnums=2 is out of range for a function of 1 arguments"):
        fg.jacrev(fg.sin, argnums=2)(x)
    with pytest.raises(fg.ShapeError, match="has_aux=True needs the function to return a pair"):
        fg.jacfwd(fg.sin, has_aux=True)(x)


# ---------------------------------------------------------------------------
# The measure: the JVP of the MLP forward stays within twice the forward
# ---------------------------------------------------------------------------


def test_jvp_graph_of_the_mlp_forward_is_at_most_twice_the_forward():
    """The mlp workload's forward (at a small size: batch 8, 16 -> 32 -> 32 -> 10, ReLU), both
    graphs simplified. Measured: forward 18 nodes (7 inputs, 11 ops); its JVP along the input x
    28 nodes (1.56x); along every argument (params and x) 46 nodes (2.56x).

    Along the input the issue's bound holds. Along every argument no graph can meet it: the
    product rule gives each linear layer (3 nodes: matmul, bias broadcast, add) 5 tangent nodes
    (tx @ w, x @ tw, their sum, tb's broadcast, the add) and every input a tangent input. There
    the graph must sit exactly at that floor: the tangent inputs, 5 nodes per layer, 2 per ReLU
    (the mask x > 0 and the select) and one zero shared by both ReLUs (a scalar and its broadcast).
    """
    rng = np.random.default_rng(0)
    params = nn.init_mlp(rng, [16, 32, 32, 10])
    x = rng.standard_normal((8, 16)).astype(np.float32)
    forward = fg.simplify(fg.trace(nn.mlp, params, x))
    along_x = fg.simplify(fg.trace(lambda p, x, tx: fg.jvp(lambda z: nn.mlp(p, z), (x,), (tx,)), params, x, x))
    along_all = fg.simplify(fg.trace(lambda p, x, tp, tx: fg.jvp(nn.mlp, (p, x), (tp, tx)), params, x, params, x))
    for graph in (along_x, along_all):
        fg.typecheck(graph)
    assert len(along_x.nodes) <= 2 * len(forward.nodes), f"forward:\n{forward}\njvp along x:\n{along_x}"
    layers, relus = 3, 2
    floor = len(forward.nodes) + len(forward.inputs) + 5 * layers + 2 * relus + 2
    assert len(along_all.nodes) <= floor, f"forward:\n{forward}\njvp along every argument:\n{along_all}"


def test_jacobian_is_jacrev():
    x = np.float32([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(fg.jacobian(lambda x: x * x)(x), np.diag(2 * x))
    assert fg.jacobian is fg.jacrev
