"""Random graphs, lowered both ways (kernels shaped for a GPU and for a CPU adapter) and run on
this machine's adapter, match `interpret`: forward, reverse (the gradients of a weighted sum) and
forward mode (a tangent's image), over shapes on both sides of the skeletons' thresholds (rows of
at least COOPERATE_FROM values fold cooperatively, columns of COLUMNS_FROM in the columns skeleton,
rows a multiple of 4 in vec4s). Each case is one seed: a failure names it, and `case(seed)`
rebuilds its function."""

from __future__ import annotations

import math
import random
import sys

import numpy as np
import pytest

import fgrad as fg
import fgrad.numpy as jnp
from fgrad.pytree import flatten
from test_runtime import compile_for_gpu

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

UNARY = [jnp.exp, jnp.tanh, jnp.sin, jnp.abs, jnp.relu, jnp.sigmoid, lambda x: x * x, lambda x: -x,
         lambda x: x * 0.5 + 1.0]
BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, jnp.maximum,
          lambda a, b: jnp.where(a > b, a, b * 2.0)]
FOLDS = [jnp.sum, jnp.mean, jnp.max, jnp.min]


def expression(rng: random.Random, leaves: list, depth: int, rows: int, cols: int):
    """A random expression of `depth` over `leaves` (each rows x cols), of that shape too."""
    if depth == 0:
        return rng.choice(leaves)
    a = expression(rng, leaves, depth - 1, rows, cols)
    k = rng.randrange(13)
    if k < 3:
        return rng.choice(UNARY)(a)
    if k < 5:
        return rng.choice(BINARY)(a, expression(rng, leaves, depth - 1, rows, cols))
    if k == 5:  # a fold along either axis, broadcast back
        return a - rng.choice(FOLDS)(a, axis=rng.choice([0, 1]), keepdims=True)
    if k == 6:
        return jnp.softmax(a, axis=rng.choice([0, 1]))
    if k == 7:  # a layer norm's centring and scaling
        c = a - jnp.mean(a, axis=-1, keepdims=True)
        return c / jnp.sqrt(jnp.mean(c * c, axis=-1, keepdims=True) + 1e-5)
    if k == 8:  # two folds over the same rows (one loop in a cooperative kernel)
        return a * jnp.sum(a, axis=-1, keepdims=True) * 0.01 + jnp.sum(a * a, axis=-1, keepdims=True) * 0.001
    if k == 9:  # two folds over the same columns
        return a + jnp.sum(a, axis=0, keepdims=True) * 0.1 - jnp.max(jnp.abs(a), axis=0, keepdims=True) * 0.1
    if k == 10:
        return jnp.logsumexp(a, axis=-1, keepdims=True) + a
    if k == 11:
        # (small integers times a power of two: exact, where a GPU's sin of large arguments is not)
        w = (jnp.arange(cols * cols, dtype=jnp.float32).reshape(cols, cols) % 7.0 - 3.0) * 0.0625
        return a @ w
    return jnp.cumsum(a, axis=rng.choice([0, 1]))


def case(seed: int):
    """Seed's function, its arguments, and what it computes ('forward', 'grad', 'jvp' or 'sums')."""
    rng = random.Random(seed)
    rows, cols = rng.choice([1, 3, 8, 33, 130]), rng.choice([4, 12, 64, 132, 256])
    depth, shape_seed, mode = rng.choice([1, 2, 3]), rng.randrange(1 << 30), rng.choice(["forward", "grad", "jvp", "sums"])
    axis = rng.choice([0, 1])

    def f(x, y):
        return expression(random.Random(shape_seed), [x, y], depth, rows, cols)

    data = np.random.default_rng(seed)
    x, y, c = (data.standard_normal((rows, cols)).astype(np.float32) for _ in range(3))
    if mode == "forward":
        return f, (x, y), mode
    if mode == "sums":
        return (lambda a, b: jnp.sum(f(a, b), axis=axis)), (x, y), mode
    if mode == "jvp":
        return (lambda a, b: fg.jvp(lambda u: f(u, b), (a,), (b * 0.5,))[1]), (x, y), mode
    return fg.grad(lambda a, b, t: jnp.sum(f(a, b) * t), argnums=(0, 1)), (x, y, c), mode


def assert_lowered_both_ways_match(fn, args, what: str, atol: float) -> None:
    """fn's graph, lowered to kernels shaped for a GPU and for a CPU, gives interpret's values:
    infinities and NaNs where it has them, finite values within `atol` of the largest (values
    are O(1) to O(100), sums of exps: errors are measured against the largest)."""
    graph = fg.trace(fn, *args)
    want = flatten(fg.interpret(graph, *args))[0]
    for adapter, exe in (("GPU-shaped", compile_for_gpu(graph)), ("CPU-shaped", fg.compile(graph))):
        got = flatten(exe(*args))[0]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g)
            assert g.shape == w.shape and g.dtype == w.dtype, f"{what} ({adapter})"
            finite = np.isfinite(w)
            scale = max(1.0, float(np.abs(w[finite]).max(initial=0.0)))
            np.testing.assert_array_equal(np.isfinite(g), finite, err_msg=f"{what} ({adapter})")
            np.testing.assert_allclose(g[finite] / scale, w[finite] / scale, rtol=0, atol=atol,
                                       err_msg=f"{what} ({adapter})")


@pytest.mark.parametrize("seed", range(64))
def test_random_graph_matches_interpret(seed):
    fn, args, mode = case(seed)
    assert_lowered_both_ways_match(fn, args, f"seed {seed} ({mode})", 2e-5)


# Graphs of any rank whose values move: transposes, reshapes, slices (strided, reversed), joins,
# pads, gathers, scatters, flips, rolls, broadcasts, a sort, with folds over any axis, products
# and scans among them. Only continuous functions of the inputs, so that rounding apart from
# `interpret` moves values, not branches, and no sine of a large argument (which a GPU's sin
# computes to its own accuracy).
SMOOTH = [lambda x: jnp.exp(jnp.clip(x, -8.0, 8.0)), jnp.tanh, lambda x: jnp.sin(jnp.tanh(x)), jnp.abs, jnp.sigmoid,
          lambda x: x * x, lambda x: jnp.log(jnp.abs(x) + 1.0), lambda x: 1.0 / (jnp.abs(x) + 0.5), jnp.arctan,
          lambda x: jnp.clip(x, -0.5, 0.7)]
PAIRS = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, jnp.maximum, jnp.minimum,
         lambda a, b: a / (jnp.abs(b) + 1.0)]


def moved(rng: random.Random, leaves: list, depth: int):
    """A random expression of `depth` over `leaves` whose shape changes along the way."""
    if depth == 0:
        return rng.choice(leaves)
    a = moved(rng, leaves, depth - 1)
    s, k = a.shape, rng.randrange(20)
    axis = rng.randrange(len(s)) if s else None
    if k < 3 or not s:
        return rng.choice(SMOOTH)(a)
    if k < 5:  # with another expression, reduced to a's last axis or to a scalar
        b = moved(rng, leaves, depth - 1)
        b = jnp.sum(b, axis=tuple(range(b.ndim - 1))) if b.ndim and b.shape[-1] == s[-1] else jnp.sum(b)
        return rng.choice(PAIRS)(a, b)
    if k == 5 and len(s) >= 2:
        return jnp.transpose(a, rng.sample(range(len(s)), len(s)))
    if k == 6:
        n = a.size
        d = rng.choice([d for d in range(1, n + 1) if n % d == 0])
        return jnp.reshape(a, (d, n // d) if rng.random() < 0.7 else (n,))
    if k == 7:
        start = rng.randrange(s[axis])
        cut = [slice(None)] * len(s)
        cut[axis] = rng.choice([slice(start, None), slice(start, None, 2), slice(None, None, -1)])
        return a[tuple(cut)]
    if k == 8:
        return jnp.concatenate([a, jnp.tanh(a)], axis=axis)
    if k == 9:
        return rng.choice([jnp.sum, jnp.max, jnp.min, jnp.mean])(a, axis=axis, keepdims=rng.random() < 0.5)
    if k == 10:
        return jnp.pad(a, [(rng.randrange(3), rng.randrange(3)) for _ in s],
                       mode=rng.choice(["constant", "edge"] + (["reflect"] if min(s) > 3 else [])))
    if k == 11:
        return rng.choice([jnp.softmax, jnp.log_softmax])(a, axis=axis)
    if k == 12:
        w = (jnp.arange(s[-1] * 5, dtype=jnp.float32).reshape(s[-1], 5) % 7.0 - 3.0) * 0.0625
        return a @ w
    if k == 13:
        return jnp.cumsum(a, axis=axis) * 0.25
    if k == 14:
        if rng.random() < 0.5:
            return jnp.take(a, np.array([rng.randrange(-s[axis], s[axis]) for _ in range(rng.randrange(1, 6))]),
                            axis=axis)
        at = np.array([rng.randrange(-s[0], s[0]) for _ in range(rng.randrange(1, 6))], np.int32)
        return a.at[at].add(jnp.tanh(a[at]))
    if k == 15:
        return jnp.broadcast_to(a, (3,) + s) * jnp.arange(1, 4, dtype=jnp.float32).reshape((3,) + (1,) * len(s))
    if k == 16:
        return rng.choice([jnp.flip, lambda a, axis: jnp.roll(a, rng.randrange(-3, 4), axis=axis)])(a, axis=axis)
    if k == 17:
        return jnp.sort(a, axis=axis)
    if k == 18:
        return jnp.logsumexp(a, axis=axis, keepdims=True) - a * 0.5
    if k == 19 and len(s) >= 2:
        return jnp.einsum("...ij,...kj->...ik", a, jnp.tanh(a)) * 0.1
    return jnp.var(a, axis=axis, keepdims=True) + a


def moving_case(seed: int):
    """Seed's function of moved values (its value and its inputs' gradients) and its arguments."""
    rng = random.Random(seed)
    shape = tuple(rng.choice([1, 2, 3, 5, 8, 33, 64, 130, 257]) for _ in range(rng.choice([1, 2, 2, 3])))
    while math.prod(shape) > 20000:
        shape = shape[1:]
    data = np.random.default_rng(seed)
    args = [data.standard_normal(shape).astype(np.float32) for _ in range(rng.randrange(1, 4))]
    depth, shape_seed = rng.randrange(2, 7), rng.randrange(1 << 30)

    def f(*xs):
        return moved(random.Random(shape_seed), list(xs), depth)

    def value_and_grads(*xs):
        out = f(*xs)
        weights = np.cos(np.arange(out.size, dtype=np.float32)).reshape(out.shape)
        return out, fg.grad(lambda *ys: jnp.sum(f(*ys) * weights), argnums=tuple(range(len(xs))))(*xs)

    return value_and_grads, args


@pytest.mark.parametrize("seed", range(40))
def test_graph_of_moving_values_matches_interpret(seed):
    fn, args = moving_case(seed)
    assert_lowered_both_ways_match(fn, args, f"seed {seed}", 1e-4)


# The same random graphs with calls on the host among their ops: an identity through a pure
# callback (with a custom_jvp, so gradients pass) and a debug callback beside the work. Each is a
# place among the kernels where the program reads values back and writes them again.
@fg.custom_jvp
def host_identity(x):
    return fg.pure_callback(lambda v: np.asarray(v), fg.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")


@host_identity.defjvp
def _host_identity_jvp(primals, tangents):
    return host_identity(primals[0]), tangents[0]


def noted(x):
    fg.debug.callback(lambda v: None, x)
    return x


@pytest.mark.parametrize("seed", range(40))
def test_random_graph_calling_the_host_matches_interpret(seed, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "UNARY", [host_identity, noted, lambda x: host_identity(x) * 2.0,
                                                        jnp.tanh, jnp.exp])
    fn, args, mode = case(seed)
    assert_lowered_both_ways_match(fn, args, f"seed {seed} ({mode}), with host calls", 2e-5)
