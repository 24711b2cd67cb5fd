"""fg.lax.gather and the scatters against jax.lax: XLA's dimension numbers (windows, collapsed and
inserted axes, batching axes), out-of-bounds windows under each mode, repeated indices, gradients,
compiled runs, and the refusals."""

from __future__ import annotations

import jax
import jax.lax as jl
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

d = Draws(41)
X5, X45, X245 = d.f32(5), d.f32(4, 5), d.f32(2, 4, 5)


def gdn(module, *args, **kw):
    return module.GatherDimensionNumbers(*args, **kw)


def sdn(module, *args, **kw):
    return module.ScatterDimensionNumbers(*args, **kw)


# (name, operand, start indices, dimension-number arguments, slice sizes)
GATHERS = [
    ("take", X5, np.int32([[0], [4], [2], [2], [-1], [7]]), ((), (0,), (0,)), (1,)),
    ("windows", X45, np.int32([[0, 0], [2, 3], [3, 4], [-1, 1]]), ((1, 2), (), (0, 1)), (2, 3)),
    ("rows", X45, np.int32([[3], [0], [5]]), ((1,), (0,), (0,)), (1, 5)),
    ("columns", X45, np.int32([[[1], [4]], [[0], [2]]]), ((0,), (1,), (1,)), (4, 1)),
    ("batched", X245, np.int32([[[1], [3], [0]], [[2], [2], [9]]]), ((2,), (1,), (1,), (0,), (0,)), (1, 1, 5)),
    ("whole", X45, np.zeros((2, 0), np.int32), ((1, 2), (), ()), (4, 5)),
]


@pytest.mark.parametrize("mode", [None, "clip", "fill", "promise_in_bounds"])
@pytest.mark.parametrize("name, x, idx, dn, sizes", GATHERS, ids=[g[0] for g in GATHERS])
def test_gather_matches_jax(name, x, idx, dn, sizes, mode):
    if name == "whole":
        x, idx = X45, np.zeros((2, 0), np.int32)
    got = fg.lax.gather(x, idx, gdn(fg.lax, *dn), sizes, mode=mode)
    want = jax_call(lambda a, i: jl.gather(a, i, gdn(jl, *dn), sizes, mode=mode), x, idx)
    same(got, want, f"gather {name} {mode}", 0, 0, oracle="jax.lax")


def test_gather_fill_value_and_integer_fill():
    idx = np.int32([[0, 0], [3, 4]])
    dn = ((1, 2), (), (0, 1))
    for x, fill in [(X45, -7.5), (np.arange(20, dtype=np.int32).reshape(4, 5), None)]:
        got = fg.lax.gather(x, idx, gdn(fg.lax, *dn), (2, 3), mode="fill", fill_value=fill)
        want = jax_call(lambda a, i: jl.gather(a, i, gdn(jl, *dn), (2, 3), mode="fill", fill_value=fill), x, idx)
        same(got, want, f"gather fill {fill}", 0, 0, oracle="jax.lax")


# (name, operand, indices, update shape, dimension-number arguments)
SCATTERS = [
    ("points", X5, np.int32([[0], [4], [2], [2], [-1], [7]]), (6,), ((), (0,), (0,))),
    ("windows", X45, np.int32([[0, 0], [2, 2], [3, 4], [1, 1]]), (4, 2, 3), ((1, 2), (), (0, 1))),
    ("rows", X45, np.int32([[3], [0], [5], [3]]), (4, 5), ((1,), (0,), (0,))),
    ("batched", X245, np.int32([[[1], [3], [1]], [[2], [2], [9]]]), (2, 3, 5), ((2,), (1,), (1,), (0,), (0,))),
]
KINDS = [("scatter", fg.lax.scatter, jl.scatter), ("scatter_add", fg.lax.scatter_add, jl.scatter_add),
         ("scatter_sub", fg.lax.scatter_sub, jl.scatter_sub), ("scatter_mul", fg.lax.scatter_mul, jl.scatter_mul),
         ("scatter_min", fg.lax.scatter_min, jl.scatter_min), ("scatter_max", fg.lax.scatter_max, jl.scatter_max)]


@pytest.mark.parametrize("mode", [None, "clip", "promise_in_bounds"])
@pytest.mark.parametrize("kind, ours, theirs", KINDS, ids=[k[0] for k in KINDS])
@pytest.mark.parametrize("name, x, idx, ushape, dn", SCATTERS, ids=[s[0] for s in SCATTERS])
def test_scatters_match_jax(name, x, idx, ushape, dn, kind, ours, theirs, mode):
    # Repeated indices: `scatter` leaves which update wins unspecified in XLA, so its rows repeat none.
    if kind == "scatter" and name in ("points", "rows", "batched"):
        idx = {"points": np.int32([[0], [4], [2], [3], [-1], [7]]), "rows": np.int32([[3], [0], [5], [1]]),
               "batched": np.int32([[[1], [3], [0]], [[2], [1], [9]]])}[name]
    updates = d.f32(*ushape)
    got = ours(x, idx, updates, sdn(fg.lax, *dn), mode=mode)
    want = jax_call(lambda a, i, u: theirs(a, i, u, sdn(jl, *dn), mode=mode), x, idx, updates)
    same(got, want, f"{kind} {name} {mode}", 1e-6, 1e-6, oracle="jax.lax")


def test_scatter_apply_and_index_take():
    idx = np.int32([[1], [3], [3]])
    dn = ((), (0,), (0,))
    got = fg.lax.scatter_apply(X5, idx, fg.exp, sdn(fg.lax, *dn), update_shape=(3,))
    want = jax_call(lambda a, i: jl.scatter_apply(a, i, jax.numpy.exp, sdn(jl, *dn), update_shape=(2,)), X5,
                    np.int32([[1], [3]]))  # JAX applies func once per cover: compare without the repeat
    same(got, want, "scatter_apply", 1e-6, 0, oracle="jax.lax")
    i0, i1 = np.int32([0, 3, -1]), np.int32([4, 0, 6])
    same(fg.lax.index_take(X245, (i0, i1), (1, 2)), jax_call(lambda a: jl.index_take(a, (i0, i1), (1, 2)), X245),
         "index_take", 0, 0, oracle="jax.lax")


def test_gradients_match_jax():
    idx = np.int32([[0, 0], [2, 3], [2, 3], [-1, 1]])
    dn = ((1, 2), (), (0, 1))
    gather = lambda m, a: lambda x: (m.gather(x, idx, m.GatherDimensionNumbers(*dn), (2, 2), mode="clip") ** 2).sum()
    same(fg.grad(gather(fg.lax, fg))(X45), jax_call(jax.grad(gather(jl, jax.numpy)), X45), "grad gather", 1e-6, 1e-6,
         oracle="jax.grad")
    sidx, updates = np.int32([[1], [3], [1]]), d.f32(3, 5)
    scatter = lambda m: lambda x, u: (m.scatter_add(x, sidx, u, m.ScatterDimensionNumbers((1,), (0,), (0,))) ** 2).sum()
    got = fg.grad(scatter(fg.lax), argnums=(0, 1))(X45, updates)
    want = jax_call(jax.grad(scatter(jl), argnums=(0, 1)), X45, updates)
    same(got, want, "grad scatter_add", 1e-5, 1e-6, oracle="jax.grad")


def test_compiled_gather_and_scatter_add_match_the_eager_ones():
    idx = np.int32([[0, 0], [2, 3], [3, 4], [-1, 1]])
    g = lambda x, i: fg.lax.gather(x, i, gdn(fg.lax, (1, 2), (), (0, 1)), (2, 3), mode="fill")
    same(fg.jit(g)(X45, idx), g(X45, idx), "gather compiled", 0, 0)
    sidx, updates = np.int32([[3], [0], [5], [3]]), d.f32(4, 5)
    s = lambda x, i, u: fg.lax.scatter_add(x, i, u, sdn(fg.lax, (1,), (0,), (0,)))
    same(fg.jit(s)(X45, sidx, updates), s(X45, sidx, updates), "scatter_add compiled", 1e-6, 1e-6)


@pytest.mark.parametrize("call, error, words", [
    (lambda: fg.lax.gather(X45, np.float32([[0.0]]), gdn(fg.lax, (1,), (0,), (0,)), (1, 5)), fg.DTypeError,
     "gather: indices must be integers"),
    (lambda: fg.lax.gather(X45, np.int32([[0]]), gdn(fg.lax, (1,), (0,), (0,)), (1, 6)), fg.ShapeError, "slice_sizes"),
    (lambda: fg.lax.gather(X45, np.int32([[0]]), gdn(fg.lax, (1,), (0,), (0, 1)), (1, 5)), fg.ShapeError,
     "start_index_map"),
    (lambda: fg.lax.gather(X45, np.int32([[0]]), gdn(fg.lax, (1,), (0,), (0,)), (2, 5)), fg.ShapeError,
     "collapsed and batching axes"),
    (lambda: fg.lax.gather(X45, np.int32([[0]]), gdn(fg.lax, (1,), (0,), (0,)), (1, 5), mode="wrap"), fg.ShapeError,
     "unknown gather or scatter mode"),
    (lambda: fg.lax.scatter_add(X45, np.int32([[0]]), d.f32(2, 5), sdn(fg.lax, (1,), (0,), (0,))), fg.ShapeError,
     "scatter axes"),
    (lambda: fg.lax.index_take(X45, (np.int32([0]),), (0, 1)), fg.ShapeError, "one index array per axis"),
])
def test_refusals_name_the_function_and_the_user_s_line(call, error, words):
    with pytest.raises(error, match=words) as info:
        call()
    assert "test_lax_indexing.py" in str(info.value)
