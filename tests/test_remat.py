"""fg.checkpoint (fg.remat): values and gradients identical to the function's; the recomputation kept
apart from the forward pass by optimization_barrier, so it runs in the backward pass; the lowered
plan's peak_bytes lower; JAX's policies; every transform through it; nn.gpt's remat option."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn
from fgrad.lower import lower
from fgrad.lower.program import Limits
from fgrad.lower.rewrites import rewrite
from fgrad.pytree import flatten

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

RNG = np.random.default_rng(7)
D, B, L = 64, 512, 8
WS = [(RNG.normal(size=(D, D)) / math.sqrt(D)).astype(np.float32) for _ in range(L)]
X = RNG.normal(size=(B, D)).astype(np.float32)
policies = fg.checkpoint_policies


def layer(w, h):
    return fg.tanh(h @ w) * 0.5 + h


def mlp_loss(remat=False, **options):
    """A deep MLP's loss; with `remat`, each layer a checkpoint with `options`."""
    step = fg.checkpoint(layer, **options) if remat else layer

    def loss(ws, x):
        h = x
        for w in ws:
            h = step(w, h)
        return fg.mean(h * h)

    return loss


VARIANTS = {
    "nothing_saveable": dict(remat=True),
    "dots_saveable": dict(remat=True, policy=policies.dots_saveable),
    "dots_with_no_batch_dims_saveable": dict(remat=True, policy=policies.dots_with_no_batch_dims_saveable),
    "everything_saveable": dict(remat=True, policy=policies.everything_saveable),
    "no_prevent_cse": dict(remat=True, prevent_cse=False),
}


def same(got, want):
    """Bit for bit: the recomputation runs the very same operations."""
    got_leaves, got_tree = flatten(got)
    want_leaves, want_tree = flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def lowered_counts(graph):
    """The op counts of the graph as lowering sees it: calls inlined, then simplified (merged)."""
    flat = fg.simplify(rewrite(dataclasses.replace(graph, captures=()), Limits()))
    return Counter(node.op for node in flat.nodes)


# ---------------------------------------------------------------------------
# Values, gradients, memory
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_values_and_gradients_are_identical(variant):
    plain = fg.value_and_grad(mlp_loss())
    remat = fg.value_and_grad(mlp_loss(**VARIANTS[variant]))
    same(remat(WS, X), plain(WS, X))
    graph = fg.typecheck(fg.trace(remat, WS, X))
    got = fg.compile(graph)(WS, X)  # on the device, against interpret
    want = fg.interpret(graph, WS, X)
    for g, w in zip(flatten(got)[0], flatten(want)[0]):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-6)


def test_the_recomputation_is_not_merged_with_the_forward_pass():
    """Simplification merges equal nodes: the barrier keeps the backward pass's recomputation apart
    (one more matmul per layer); without it (prevent_cse=False) the recomputation merges away."""
    plain = lowered_counts(fg.trace(fg.grad(mlp_loss()), WS, X))
    remat = lowered_counts(fg.trace(fg.grad(mlp_loss(remat=True)), WS, X))
    merged = lowered_counts(fg.trace(fg.grad(mlp_loss(remat=True, prevent_cse=False)), WS, X))
    assert remat["matmul"] == plain["matmul"] + L and remat["tanh"] == plain["tanh"] + L
    assert remat["optimization_barrier"] == 2 * L  # each layer reads w and h through one
    assert merged["matmul"] == plain["matmul"] and "optimization_barrier" not in merged
    assert "checkpoint" not in remat  # inlined


def peak(loss):
    return lower(fg.trace(fg.grad(loss), WS, X)).peak_bytes


def test_remat_lowers_peak_bytes():
    plain = peak(mlp_loss())
    activation = B * D * 4
    nothing = peak(mlp_loss(remat=True))
    # Kept between the passes: each layer's input, instead of its input and tanh's result.
    assert nothing <= plain - (L - 2) * activation, (plain, nothing)
    assert peak(mlp_loss(remat=True, policy=policies.everything_saveable)) == plain
    dots = peak(mlp_loss(remat=True, policy=policies.dots_saveable))  # the products' results kept too
    assert nothing < dots < plain + activation
    assert peak(mlp_loss(remat=True, prevent_cse=False)) == plain
    # The same through jit's lowering for the device (its limits shape the kernels), as a user reads it.
    compiled = [fg.jit(fg.grad(loss)).lower(WS, X).compile().peak_bytes for loss in (mlp_loss(remat=True), mlp_loss())]
    assert compiled[0] <= compiled[1] - (L - 2) * activation, compiled


def _saved(graph):
    return sorted({n.attrs["saved"] for n in graph.nodes if n.op == "checkpoint"})


def test_policies_choose_what_is_kept():
    def attention(x, w):
        q = x @ w  # a product by a weight: no batch dimension
        s = fg.einsum("bqd,bkd->bqk", q, q)  # per example: a batch dimension
        return fg.softmax(s, axis=-1) @ q

    x, w = RNG.normal(size=(2, 4, 3)).astype(np.float32), RNG.normal(size=(3, 3)).astype(np.float32)

    def saved(policy):
        return _saved(fg.trace(fg.checkpoint(attention, policy=policy), x, w))

    assert saved(None) == [0]
    assert saved(policies.nothing_saveable) == [0]
    assert saved(policies.dots_saveable) == [2]  # q and the scores; the last product is not read by the backward
    assert saved(policies.dots_with_no_batch_dims_saveable) == [1]  # q alone
    assert saved(policies.save_from_both_policies(policies.dots_with_no_batch_dims_saveable,
                                                  lambda prim, *specs, **params: prim.name == "softmax")) == [2]
    assert saved(policies.everything_saveable)[0] > 2
    for policy in (None, policies.dots_saveable, policies.dots_with_no_batch_dims_saveable):
        f = fg.checkpoint(attention, policy=policy)
        same(fg.grad(lambda x, w: fg.sum(f(x, w) ** 2), argnums=(0, 1))(x, w),
             fg.grad(lambda x, w: fg.sum(attention(x, w) ** 2), argnums=(0, 1))(x, w))


def test_a_policy_is_named_in_the_listing_and_graphs_stay_equal():
    f = fg.checkpoint(layer, policy=policies.dots_saveable)
    first, second = fg.trace(f, WS[0], X), fg.trace(f, WS[0], X)
    assert first == second and hash(first) == hash(second)
    assert "policy=dots_saveable" in str(first) and "prevent_cse=True" in str(first)


# ---------------------------------------------------------------------------
# Every transform through a checkpoint
# ---------------------------------------------------------------------------

w0, x0 = WS[0][:4, :4].copy(), X[:3, :4].copy()


def small(w, x):
    return fg.sum(fg.tanh(x @ w) * x)


@pytest.mark.parametrize("policy", [None, policies.dots_saveable])
def test_transforms_nest_through_a_checkpoint(policy):
    ck = fg.checkpoint(lambda w, x: fg.tanh(x @ w) * x, policy=policy)

    def remat(w, x):
        return fg.sum(ck(w, x))

    def second(f):
        return fg.grad(lambda w, x: fg.sum(fg.grad(f)(w, x) ** 2), argnums=(0, 1))(w0, x0)

    same(second(remat), second(small))
    same(fg.hessian(remat)(w0, x0), fg.hessian(small)(w0, x0))
    tangents = (np.ones_like(w0), x0)
    same(fg.jvp(remat, (w0, x0), tangents), fg.jvp(small, (w0, x0), tangents))
    same(fg.grad(lambda w: fg.jvp(remat, (w, x0), tangents)[1])(w0),
         fg.grad(lambda w: fg.jvp(small, (w, x0), tangents)[1])(w0))
    xs = np.stack([x0, x0 * 2, -x0])
    same(fg.vmap(fg.grad(remat), in_axes=(None, 0))(w0, xs), fg.vmap(fg.grad(small), in_axes=(None, 0))(w0, xs))
    same(fg.grad(lambda w, xs: fg.sum(fg.vmap(remat, in_axes=(None, 0))(w, xs)))(w0, xs),
         fg.grad(lambda w, xs: fg.sum(fg.vmap(small, in_axes=(None, 0))(w, xs)))(w0, xs))
    np.testing.assert_allclose(np.asarray(fg.jit(fg.grad(remat))(w0, x0)), fg.grad(small)(w0, x0), rtol=1e-5)


def test_nested_checkpoints_closures_and_static_arguments():
    inner = fg.checkpoint(lambda x, w: fg.tanh(x @ w))

    def outer(w, x, scale):
        return inner(x, w) * scale + fg.sin(x)  # closes over nothing; scale is static

    ck = fg.checkpoint(outer, static_argnums=(2,))
    same(fg.grad(lambda w, x: fg.sum(ck(w, x, 3.0)), argnums=(0, 1))(w0, x0),
         fg.grad(lambda w, x: fg.sum(outer(w, x, 3.0)), argnums=(0, 1))(w0, x0))

    def closing(w, x):
        f = fg.checkpoint(lambda x: fg.tanh(x @ w))  # w: a Tensor of the enclosing trace
        return fg.sum(f(x) * f(x * 2.0))

    same(fg.grad(closing, argnums=(0, 1))(w0, x0),
         fg.grad(lambda w, x: fg.sum(fg.tanh(x @ w) * fg.tanh((x * 2.0) @ w)), argnums=(0, 1))(w0, x0))
    # On arrays, outside any transform, the function runs as it is.
    same(fg.checkpoint(small)(w0, x0), small(w0, x0))
    assert fg.remat is fg.checkpoint


# ---------------------------------------------------------------------------
# optimization_barrier
# ---------------------------------------------------------------------------


def test_optimization_barrier_is_the_identity_that_nothing_merges_through():
    def f(x):
        return fg.sin(x) + fg.sin(fg.lax.optimization_barrier(x))

    graph = fg.simplify(fg.trace(f, x0))
    assert Counter(n.op for n in graph.nodes)["sin"] == 2
    assert Counter(n.op for n in fg.simplify(fg.trace(lambda x: fg.sin(x) + fg.sin(x), x0)).nodes)["sin"] == 1
    np.testing.assert_allclose(fg.jit(f)(x0), 2 * np.sin(x0), rtol=1e-5, atol=1e-6)  # the op table's f32 tolerance: GPUs' sin is accurate in absolute terms
    np.testing.assert_allclose(fg.grad(lambda x: fg.sum(f(x)))(x0), 2 * np.cos(x0), rtol=1e-6)
    np.testing.assert_allclose(fg.jvp(f, (x0,), (np.ones_like(x0),))[1], 2 * np.cos(x0), rtol=1e-6)
    out = fg.lax.optimization_barrier({"a": x0, "b": (w0, 3)})
    same(out, {"a": x0, "b": (w0, np.int32(3))})
    # A view in the kernel that reads it: no kernel of its own.
    assert len(fg.jit(lambda x: fg.lax.optimization_barrier(x) * 2.0).lower(x0).kernels) == 1


# ---------------------------------------------------------------------------
# nn.gpt's remat option
# ---------------------------------------------------------------------------

CONFIG = nn.GPTConfig(vocab=65, context=32, width=64, heads=2, layers=2)  # the gpt workload's small variant
PARAMS = nn.init_gpt(np.random.default_rng(0), CONFIG)
TOKENS = np.random.default_rng(1).integers(0, 65, (8, 32)).astype(np.int32)
TARGETS = np.random.default_rng(2).integers(0, 65, (8, 32)).astype(np.int32)


def gpt_loss(remat):
    def loss(p, tokens, targets):
        return nn.cross_entropy(nn.gpt(p, tokens, CONFIG, remat=remat), targets)

    return loss


@pytest.mark.parametrize("remat", [True, policies.dots_with_no_batch_dims_saveable])
def test_gpt_remat_keeps_loss_and_gradients_and_lowers_the_training_steps_peak(remat):
    plain = fg.value_and_grad(gpt_loss(False))(PARAMS, TOKENS, TARGETS)
    same(fg.value_and_grad(gpt_loss(remat))(PARAMS, TOKENS, TARGETS), plain)

    def training_step_peak(loss):
        step = fg.adam_step(fg.trace(loss, PARAMS, TOKENS, TARGETS), lr=3e-4)
        donated = frozenset(k for a in (0, 1) for k in step.arg_positions[a])  # as bench/workloads.py's
        return lower(step, donated=donated).peak_bytes

    assert training_step_peak(gpt_loss(remat)) < 0.85 * training_step_peak(gpt_loss(False))


def test_gpt_remat_training_step_on_the_device():
    def run(remat):
        step = fg.jit(fg.adam_step(gpt_loss(remat), lr=3e-4))
        params, state = PARAMS, fg.adam_init(PARAMS)
        losses = []
        for _ in range(2):
            params, state, loss = step(params, state, TOKENS, TARGETS)
            losses.append(float(loss))
        return losses

    np.testing.assert_allclose(run(True), run(False), rtol=1e-5)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def test_errors_name_the_mistake():
    with pytest.raises(fg.TraceError, match="checkpoint: expected a function, got a int.*test_remat.py"):
        fg.checkpoint(3)
    with pytest.raises(fg.InputError, match="checkpoint: policy must be a function .*got 'dots'.*test_remat.py"):
        fg.checkpoint(layer, policy="dots")
    with pytest.raises(fg.InputError, match=r"checkpoint: static_argnums \[2\] out of range for a call of 2 "):
        fg.grad(lambda w, x: fg.sum(fg.checkpoint(layer, static_argnums=2)(w, x)))(w0, x0)
