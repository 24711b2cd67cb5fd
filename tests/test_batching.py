"""vmap: over the whole op table against a Python loop of the row's function (interpreted, and on
the device), its API as jax.vmap's, its nesting with grad, jvp and jit, and the per-example
gradients of an MLP as one batched program.

Every primitive having a batching rule is the completeness test's (tests/test_ops.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn
from fgrad.pytree import flatten
from op_table import API_CASES, DTYPE_CASES, OP_CASES, Case, Rand, make, seed, trace

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

RNG = np.random.default_rng(99)
BATCH = 3


def normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.normal(size=shape) * scale).astype(np.float32)


def assert_values(got: Any, want: np.ndarray, rtol: float, atol: float, what: str) -> None:
    """Same dtype and shape; floats to tolerance, the rest exactly (NaN where NaN)."""
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


# ---------------------------------------------------------------------------
# The op table: every row with array inputs, against a loop over examples
# ---------------------------------------------------------------------------

BATCH_CASES = tuple(c for c in OP_CASES + API_CASES + DTYPE_CASES if c.args)


def examples(case: Case) -> list[list[np.ndarray]]:
    """BATCH examples of the row's arguments: its own, then new draws of its makers. A fixed array
    (values the row chose) is rolled instead, which keeps its values but moves them: the
    reference is the row's own function, so any input it accepts will do."""
    first = [np.asarray(a) for a in make(case)]
    rng = np.random.default_rng(seed(case) + 1)
    out = [first]
    for k in range(1, BATCH):
        out.append([np.asarray(a(rng)) if isinstance(a, Rand) else np.roll(x.ravel(), k).reshape(x.shape)
                    for a, x in zip(case.args, first)])
    return out


def variants(case: Case) -> list[tuple[str, tuple[int | None, ...], int]]:
    """(name, in_axes, out_axes) for the row: every argument mapped over axis 0; for rows of
    several arguments, every other one unbatched (None), both ways round; and the batch on
    other axes (-1 and 1 in turn, 0 for a scalar), moved to the last axis of the result."""
    ndims = [len(a.shape) if isinstance(a, Rand) else np.ndim(a) for a in case.args]
    out = [("axis0", (0,) * len(ndims), 0)]
    if len(ndims) > 1:
        out.append(("unbatched-even", tuple(None if k % 2 == 0 else 0 for k in range(len(ndims))), 0))
        out.append(("unbatched-odd", tuple(0 if k % 2 == 0 else None for k in range(len(ndims))), 0))
    out.append(("moved", tuple(0 if d == 0 else (-1 if k % 2 == 0 else 1) for k, d in enumerate(ndims)), -1))
    return out


def _stacked_spec(spec: fg.Spec, axis: int) -> fg.Spec:
    shape = list(spec.shape)
    shape.insert(axis % (len(shape) + 1), BATCH)
    return fg.spec(tuple(shape), spec.dtype)


def _lacking_features(graph: fg.Graph) -> list[str]:
    """Adapter features the graph's dtypes need and this device lacks (shader-f16 on llvmpipe:
    tests/test_runtime.py checks that compiling then names it)."""
    device = fg.default_device()
    return sorted({n.spec.dtype.row.feature for n in graph.nodes} - {None} - set(device.device.features))


# Every row's every-axis-0 variant also runs on the device: about 10 s on 2 cores in all.
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in BATCH_CASES])
def test_vmap(case: Case) -> None:
    """Each variant's vmapped graph, type-checked and interpreted, equals the loop of the row's
    graph over the examples; every-axis-0 also runs on the device through fg.jit."""
    exs = examples(case)
    graph = trace(case, exs[0])
    for name, in_axes, out_axes in variants(case):
        what = f"{case.id} {name} in_axes={in_axes} out_axes={out_axes}"
        args = [np.stack([ex[j] for ex in exs], axis) if axis is not None else exs[0][j]
                for j, axis in enumerate(in_axes)]
        want = np.stack([fg.interpret(graph, *(ex[j] if axis is not None else exs[0][j]
                                               for j, axis in enumerate(in_axes))) for ex in exs], out_axes)
        if case.specs is not None:
            specs = [_stacked_spec(s, axis) if axis is not None else s for s, axis in zip(case.specs, in_axes)]
        else:
            specs = args
        batched = fg.vmap(case.fn, in_axes=in_axes, out_axes=out_axes)
        vmapped = fg.typecheck(fg.trace(batched, *specs))
        assert_values(fg.interpret(vmapped, *args), want, case.rtol, case.atol, f"{what}: interpret")
        if name == "axis0" and not _lacking_features(vmapped):
            assert_values(fg.jit(batched)(*args).numpy(), want, case.rtol, case.atol, f"{what}: on device")


# ---------------------------------------------------------------------------
# The API, as jax.vmap's
# ---------------------------------------------------------------------------


def loop(fn, in_axes, out_axes, *args):
    """The reference: `fn` called once per example in Python, results stacked along `out_axes`
    (every leaf of `in_axes` an int or None, given per argument)."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [fn(*(a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes))) for i in range(size)]
    return np.stack([np.asarray(o) for o in outs], out_axes)


def both_ways(batched, *args):
    """`batched` on arrays (computed at once) and traced, type-checked and interpreted: the two agree."""
    eager = batched(*args)
    traced = fg.interpret(fg.typecheck(fg.trace(batched, *args)), *args)
    assert flatten(eager)[1] == flatten(traced)[1], f"{flatten(eager)[1]} eagerly, {flatten(traced)[1]} traced"
    for e, t in zip(flatten(eager)[0], flatten(traced)[0]):
        np.testing.assert_allclose(np.asarray(e), t, rtol=1e-6, atol=1e-6)
    return traced


def affine(p, x):
    return fg.tanh(x @ p["w"] + p["b"])


def test_pytree_in_axes_are_prefixes_of_the_arguments():
    p = {"w": normal(3, 4), "b": normal(5, 4)}
    xs = normal(2, 5, 3)  # mapped over axis 1
    got = both_ways(fg.vmap(affine, in_axes=({"w": None, "b": 0}, 1)), p, xs)
    want = np.stack([np.tanh(xs[:, i] @ p["w"] + p["b"][i]) for i in range(5)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # A leaf of in_axes stands for every leaf below it: the whole dict unbatched.
    got = both_ways(fg.vmap(affine, in_axes=(None, 1)), {"w": p["w"], "b": p["b"][0]}, xs)
    np.testing.assert_allclose(got, np.stack([np.tanh(xs[:, i] @ p["w"] + p["b"][0]) for i in range(5)]), rtol=1e-5,
                               atol=1e-6)
    # Tuples nest the same way; a list of in_axes reads as a tuple, as in JAX.
    a, b, c = normal(4, 2), normal(2), normal(4)
    got = both_ways(fg.vmap(lambda ab, c: fg.sum(ab[0] * ab[1]) * c, in_axes=[(0, None), -1]), (a, b), c)
    np.testing.assert_allclose(got, (a @ b) * c, rtol=1e-5, atol=1e-6)


def test_unbatched_arguments_and_keyword_arguments():
    x, ys, s = normal(3), normal(4, 3), normal(4)

    def f(x, y, scale=1.0):
        return fg.sum(x * y) * scale

    np.testing.assert_allclose(both_ways(fg.vmap(f, in_axes=(None, 0)), x, ys), ys @ x, rtol=1e-5)
    # Keyword arguments are mapped over axis 0, whatever in_axes says of the positional ones.
    got = fg.vmap(f, in_axes=(None, 0))(x, ys, scale=s)
    np.testing.assert_allclose(got, (ys @ x) * s, rtol=1e-5)
    got = fg.vmap(f, in_axes=(None, None))(x, ys[0], scale=s)
    np.testing.assert_allclose(got, np.sum(x * ys[0]) * s, rtol=1e-5)
    got = fg.interpret(fg.trace(lambda x, ys, s: fg.vmap(f, in_axes=(None, 0))(x, ys, scale=s), x, ys, s), x, ys, s)
    np.testing.assert_allclose(got, (ys @ x) * s, rtol=1e-5)


def test_unmapped_python_numbers_reach_the_function_as_they_are():
    """As JAX's: an unmapped int, float or bool is passed through, so it can size or steer the
    traced function (a NumPy scalar is an array, traced as any other)."""
    xs = normal(4, 3)

    def f(x, n, double):
        assert type(n) is int and type(double) is bool
        return fg.tile(x, n) * (2.0 if double else 1.0)

    got = fg.vmap(f, in_axes=(0, None, None))(xs, 2, True)
    np.testing.assert_allclose(got, np.tile(xs, (1, 2)) * 2.0, rtol=1e-6)
    seen = []
    fg.vmap(lambda x, k: seen.append(type(k)) or x * k, in_axes=(0, None))(xs, np.float32(3.0))
    assert seen == [fg.Tensor]


def test_axis_size_when_nothing_is_mapped():
    x = normal(2, 3)
    got = both_ways(fg.vmap(lambda x: x * 2.0, in_axes=None, axis_size=4), x)
    np.testing.assert_array_equal(got, np.broadcast_to(x * 2.0, (4, 2, 3)))
    got = fg.vmap(lambda: fg.arange(3), axis_size=2)()
    np.testing.assert_array_equal(got, [[0, 1, 2], [0, 1, 2]])
    # Given with mapped arguments, it must agree with their size.
    np.testing.assert_allclose(fg.vmap(fg.sin, axis_size=2)(x), np.sin(x), rtol=1e-6)


def test_out_axes_pytrees_and_unbatched_outputs():
    x, c = normal(4, 3), normal(2)

    def f(x, c):
        return {"y": x[:, None] * c, "c": c * 2.0, "s": fg.sum(x)}

    got = both_ways(fg.vmap(f, in_axes=(1, None), out_axes={"y": -1, "c": None, "s": 0}), x, c)
    np.testing.assert_allclose(got["y"], x[:, None, :] * c[None, :, None], rtol=1e-6)
    np.testing.assert_allclose(got["c"], c * 2.0)  # unbatched, returned once
    np.testing.assert_allclose(got["s"], x.sum(0), rtol=1e-5)
    got = both_ways(fg.vmap(f, in_axes=(1, None), out_axes={"y": 1, "c": 1, "s": 0}), x, c)
    np.testing.assert_allclose(got["y"], np.moveaxis(x[:, None, :] * c[None, :, None], -1, 1), rtol=1e-6)
    np.testing.assert_allclose(got["c"], np.broadcast_to((c * 2.0)[:, None], (2, 3)))  # broadcast along the batch


def test_nested_vmap_both_orders_of_axes():
    xs, ys = normal(3, 2), normal(5, 2)

    def f(x, y):
        return fg.sum(fg.sin(x) * y)

    pairwise = fg.vmap(fg.vmap(f, in_axes=(0, None)), in_axes=(None, 0))
    np.testing.assert_allclose(both_ways(pairwise, xs, ys), ys @ np.sin(xs).T, rtol=1e-5, atol=1e-6)
    swapped = fg.vmap(fg.vmap(f, in_axes=(None, 0)), in_axes=(0, None))
    np.testing.assert_allclose(both_ways(swapped, xs, ys), np.sin(xs) @ ys.T, rtol=1e-5, atol=1e-6)
    # The outer map over axis 1, the inner over axis 0 of what is left, results moved.
    z = normal(4, 6, 2)
    inner_first = fg.vmap(fg.vmap(lambda v: fg.sum(v * v), in_axes=0, out_axes=0), in_axes=1, out_axes=1)
    np.testing.assert_allclose(both_ways(inner_first, z), np.sum(z * z, -1), rtol=1e-5)
    outer_last = fg.vmap(fg.vmap(lambda v: v * 2.0, in_axes=1, out_axes=0), in_axes=-1, out_axes=-1)
    np.testing.assert_allclose(both_ways(outer_last, z), np.transpose(z, (1, 0, 2)) * 2.0)


def example_loss(p, x, y):
    """One example's loss: x (d_in,), y an integer label."""
    return nn.cross_entropy(nn.mlp(p, x), y)


def mlp_data(batch: int, sizes=(6, 5, 4)):
    rng = np.random.default_rng(5)
    params = nn.init_mlp(rng, list(sizes))
    xs = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    ys = rng.integers(0, sizes[-1], batch).astype(np.int32)
    return params, xs, ys


def test_vmap_of_grad_is_a_loop_of_grads():
    params, xs, ys = mlp_data(7)
    per_example = fg.vmap(fg.grad(example_loss), in_axes=(None, 0, 0))
    got = both_ways(per_example, params, xs, ys)
    grad_graph = fg.grad(fg.trace(example_loss, params, xs[0], ys[0]))
    want = [fg.interpret(grad_graph, params, x, y) for x, y in zip(xs, ys)]
    for leaf, *rows in zip(flatten(got)[0], *(flatten(w)[0] for w in want)):
        np.testing.assert_allclose(leaf, np.stack(rows), rtol=1e-5, atol=1e-6)


def test_grad_of_vmap_is_the_sum_of_per_example_grads():
    params, xs, ys = mlp_data(7)
    total = fg.grad(lambda p, xs, ys: fg.sum(fg.vmap(example_loss, in_axes=(None, 0, 0))(p, xs, ys)))
    got = both_ways(total, params, xs, ys)
    grad_graph = fg.grad(fg.trace(example_loss, params, xs[0], ys[0]))
    want = [fg.interpret(grad_graph, params, x, y) for x, y in zip(xs, ys)]
    for leaf, *rows in zip(flatten(got)[0], *(flatten(w)[0] for w in want)):
        np.testing.assert_allclose(leaf, np.sum(rows, 0), rtol=1e-5, atol=1e-6)


def test_vmap_of_jvp_is_a_loop_of_jvps():
    x, ts = normal(3), normal(4, 3)

    def f(x):
        return fg.tanh(x) * fg.sum(x * x)

    got = both_ways(fg.vmap(lambda t: fg.jvp(f, (x,), (t,))[1]), ts)
    np.testing.assert_allclose(got, loop(lambda t: fg.jvp(f, (x,), (t,))[1], (0,), 0, ts), rtol=1e-5, atol=1e-6)
    # And the vmapped primal is the one primal, broadcast or not.
    out = fg.vmap(lambda t: fg.jvp(f, (x,), (t,)), out_axes=(None, 0))(ts)
    np.testing.assert_allclose(out[0], np.tanh(x) * np.sum(x * x), rtol=1e-6)


def test_jit_of_vmap_runs_on_the_device():
    p, xs = {"w": normal(3, 4), "b": normal(4)}, normal(6, 2, 3)
    batched = fg.vmap(affine, in_axes=(None, 0))
    got = fg.jit(batched)(p, xs).numpy()
    np.testing.assert_allclose(got, fg.interpret(fg.trace(batched, p, xs), p, xs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, loop(lambda x: np.tanh(x @ p["w"] + p["b"]), (0,), 0, xs), rtol=1e-5, atol=1e-6)
    per_example = fg.jit(fg.vmap(fg.grad(example_loss), in_axes=(None, 0, 0)))
    params, xs, ys = mlp_data(5)
    want = fg.interpret(fg.trace(fg.vmap(fg.grad(example_loss), in_axes=(None, 0, 0)), params, xs, ys), params, xs, ys)
    for g, w in zip(flatten(per_example(params, xs, ys))[0], flatten(want)[0]):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5)


def _line_of(fn, offset: int) -> str:
    return f"test_batching.py:{fn.__code__.co_firstlineno + offset}"


def test_vmap_errors_name_the_problem_and_the_line():
    x, y = normal(3, 2), normal(4, 2)
    add = lambda a, b: a + b  # noqa: E731

    def sizes():
        fg.vmap(add)(x, y)

    def axis_out_of_range():
        fg.vmap(add, in_axes=(2, 0))(x, x)

    def entries():
        fg.vmap(add, in_axes=(0,))(x, x)

    def not_a_prefix():
        fg.vmap(lambda p: p["a"], in_axes=({"b": 0},))({"a": x})

    def out_axes_none():
        fg.vmap(lambda a: a * 2.0, out_axes=None)(x)

    def nothing_mapped():
        fg.vmap(lambda a: a * 2.0, in_axes=None)(x)

    def axis_size_disagrees():
        fg.vmap(fg.sin, axis_size=5)(x)

    def out_axis_out_of_range():
        fg.vmap(fg.sum, out_axes=1)(x)

    cases = [(sizes, fg.ShapeError, "the mapped axes have different sizes: args.0 has 3, args.1 has 4"),
             (axis_out_of_range, fg.ShapeError, "in_axes 2 for args.0 of shape (3, 2), which has 2 axes"),
             (entries, fg.InputError, "in_axes has 1 entries for a call of 2 positional arguments"),
             (not_a_prefix, fg.InputError, "which is not a prefix"),
             (out_axes_none, fg.InputError, "out_axes is None for output, which depends on a mapped argument"),
             (nothing_mapped, fg.InputError, "no argument is mapped (every in_axes is None): give axis_size"),
             (axis_size_disagrees, fg.ShapeError, "axis_size=5 but the mapped axes have size 3"),
             (out_axis_out_of_range, fg.ShapeError, "out_axes 1 for output of 1 axes")]
    for fn, error, message in cases:
        with pytest.raises(error) as e:
            fn()
        assert message in str(e.value) and _line_of(fn, 1) in str(e.value), f"{fn.__name__}: {e.value}"
    # Axes of the wrong type are refused where vmap is called.
    for bad in ("a", 1.5, (0, "b")):
        with pytest.raises(fg.InputError, match="in_axes must be an int, None, or a tuple"):
            fg.vmap(add, in_axes=bad)
    with pytest.raises(fg.InputError, match="out_axes must be ints and Nones"):
        fg.vmap(add, out_axes="x")
    with pytest.raises(fg.InputError, match="axis_size must be a non-negative int"):
        fg.vmap(add, axis_size=-1)
    with pytest.raises(fg.TraceError, match="vmap: expected a function, got a int"):
        fg.vmap(3)


# ---------------------------------------------------------------------------
# The measure: per-example gradients of the MLP are one batched program
# ---------------------------------------------------------------------------


def hand_batched_grads(p, xs, ys):
    """Per-example gradients of `example_loss` written by hand for a batch: the forward over the
    batch, the backward by the chain rule, each weight's gradient x_i outer g_i as one batched
    matmul (B, d_in, 1) @ (B, 1, d_out)."""
    layers = p["layers"]
    activations, pre = [xs], []
    for k, layer in enumerate(layers):
        z = activations[-1] @ layer["w"] + layer["b"]
        pre.append(z)
        activations.append(fg.relu(z) if k < len(layers) - 1 else z)
    g = fg.softmax(activations[-1], axis=-1) - fg.one_hot(ys, layers[-1]["w"].shape[1])  # d loss / d logits
    grads = [None] * len(layers)
    for k in reversed(range(len(layers))):
        a = activations[k]
        grads[k] = {"b": g, "w": fg.expand_dims(a, -1) @ fg.expand_dims(g, 1)}
        if k:
            g = (g @ fg.transpose(layers[k]["w"])) * (pre[k - 1] > 0)
    return {"layers": grads}


def test_per_example_gradients_of_the_mlp_are_one_batched_program():
    """vmap(grad(loss), in_axes=(None, 0, 0)) over an MLP 16 -> 32 -> 32 -> 10 (ReLU): the graph
    does not grow with the batch (no per-example loop), and it lowers to no more kernels than the
    hand-batched program, with its matmuls in the same places.

    Measured at batch 64: vmap(grad) 59 nodes and 12 kernels (the same at batch 8); by hand 48
    nodes and 12 kernels, in the same order of kinds (8 with a matmul: 3 forward, 3 batched outer
    products x_i g_i^T, 2 backward through the weights); a Python loop of 64 grads gives 2,767
    nodes and 896 kernels."""
    sizes = (16, 32, 32, 10)
    per_example = fg.vmap(fg.grad(example_loss), in_axes=(None, 0, 0))
    graphs = {}
    for batch in (8, 64):
        params, xs, ys = mlp_data(batch, sizes)
        graphs[batch] = fg.simplify(fg.typecheck(fg.trace(per_example, params, xs, ys)))
    assert len(graphs[8].nodes) == len(graphs[64].nodes), "the per-example gradient graph grows with the batch"
    params, xs, ys = mlp_data(64, sizes)
    hand = fg.simplify(fg.typecheck(fg.trace(hand_batched_grads, params, xs, ys)))
    got, want = fg.interpret(graphs[64], params, xs, ys), fg.interpret(hand, params, xs, ys)
    for g, w in zip(flatten(got)[0], flatten(want)[0]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    vmapped, by_hand = fg.compile(graphs[64]), fg.compile(hand)
    for g, w in zip(flatten(vmapped(params, xs, ys))[0], flatten(want)[0]):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5)
    names = [[name for name, _ in exe.kernels] for exe in (vmapped, by_hand)]
    shown = f"vmap(grad): {names[0]}\nby hand: {names[1]}"
    assert len(names[0]) <= len(names[1]), shown
    assert [n.startswith("matmul") for n in names[0]] == [n.startswith("matmul") for n in names[1]], shown
