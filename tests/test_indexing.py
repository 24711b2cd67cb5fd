"""Traced indices follow JAX's documented semantics, compiled and interpreted alike.

- `x[i]`: an index in [-n, 0) counts from the end; any other index outside
  [0, n) is clamped into range (JAX's indexing, "promise_in_bounds" for gathers).
- `fg.take` (as `jnp.take`): mode "fill" by default, negative indices in
  [-n, 0) count from the end and any other out-of-range index reads the fill
  value (NaN for f32, the least i32, True); mode "clip" clamps, negatives too.
- `fg.scatter_add` (as `.at[...].add`): negatives in [-size, 0) count from the
  end, other out-of-range updates are dropped; mode "clip" clamps.
- `fg.one_hot` (as `jax.nn.one_hot`): out-of-range labels, negatives included, give zeros.
- `fg.dynamic_slice` / `fg.dynamic_update_slice` (as `jax.lax`'s): a negative start counts
  from the end, then each start is clamped into [0, n - size] so that the window fits.

Expected values are written out by hand from those rules.
"""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
import fgrad.primitives.indexing
from fgrad.lower import lower

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

S = fg.spec
TABLE = np.arange(12, dtype=np.float32).reshape(4, 3)  # row r is [3r, 3r + 1, 3r + 2]
ROWS = np.array([-1, 0, 5, -5, 3, -4, 4], np.int32)  # in range, negative in [-4, 0), out of range both ways
NAN = np.nan


def run_both(fn, *args):
    """`fn` traced on `args`, run by interpret and compiled; both must agree exactly (NaN included)."""
    graph = fg.trace(fn, *args)
    want = fg.interpret(graph, *args)
    got = np.asarray(fg.compile(graph)(*args))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    return want


def test_traced_negative_index_counts_from_the_end():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    out = run_both(lambda x, i: x[i], x, np.array([-1, 0], np.int32))
    np.testing.assert_array_equal(out, [[3.0, 4.0], [1.0, 2.0]])
    out = run_both(lambda x, i: x[i], x, np.array(-2, np.int32))  # a 0-d index drops the axis
    np.testing.assert_array_equal(out, [1.0, 2.0])


def test_getitem_clamps_traced_indices_out_of_range():
    out = run_both(lambda x, i: x[i], TABLE, ROWS)
    # -1 -> 3; 0; 5 -> 3; -5 -> -1 -> 0; 3; -4 -> 0; 4 -> 3
    np.testing.assert_array_equal(out[:, 0], [9, 0, 9, 0, 9, 0, 9])
    out = run_both(lambda x, i: x[:, i], TABLE.T, ROWS)  # along axis 1
    np.testing.assert_array_equal(out[0], [9, 0, 9, 0, 9, 0, 9])


def test_take_fills_out_of_range_traced_indices():
    out = run_both(lambda x, i: fg.take(x, i, axis=0), TABLE, ROWS)
    np.testing.assert_array_equal(out[:, 1], [10, 1, NAN, NAN, 10, 1, NAN])
    ints = run_both(lambda x, i: fg.take(x, i), np.array([10, 20, 30, 40], np.int32), ROWS)
    np.testing.assert_array_equal(ints, [40, 10, -2**31, -2**31, 40, 10, -2**31])
    bools = run_both(lambda x, i: fg.take(x, i), np.array([False, False, False, False]), ROWS)
    np.testing.assert_array_equal(bools, [False, False, True, True, False, False, True])
    chosen = run_both(lambda x, i: fg.take(x, i, fill_value=-1), np.array([10, 20, 30, 40], np.int32), ROWS)
    np.testing.assert_array_equal(chosen, [40, 10, -1, -1, 40, 10, -1])


def test_take_clip_clamps_without_counting_from_the_end():
    out = run_both(lambda x, i: fg.take(x, i, axis=0, mode="clip"), TABLE, ROWS)
    # as NumPy's mode="clip": -1 -> 0, 5 -> 3, -5 -> 0, -4 -> 0, 4 -> 3
    np.testing.assert_array_equal(out[:, 2], [2, 2, 11, 2, 11, 2, 11])
    np.testing.assert_array_equal(fg.take(TABLE, [-1, 9], axis=0, mode="clip")[:, 0], [0, 9])  # constants too


def test_scatter_add_drops_or_clamps_traced_indices_out_of_range():
    updates = np.array([1, 2, 4, 8, 16, 32, 64], np.float32)
    dropped = run_both(lambda u, i: fg.scatter_add(u, i, 4), updates, ROWS)
    # -1 -> 3 gets 1; 0 gets 2; 5 and -5 are dropped; 3 gets 16; -4 -> 0 gets 32; 4 is dropped
    np.testing.assert_array_equal(dropped, [34, 0, 0, 17])
    clipped = run_both(lambda u, i: fg.scatter_add(u, i, 4, mode="clip"), updates, ROWS)
    # -1, 0, -5, -4 -> 0; 5, 3, 4 -> 3
    np.testing.assert_array_equal(clipped, [1 + 2 + 8 + 32, 0, 0, 4 + 16 + 64])


def test_one_hot_of_out_of_range_labels_is_zero():
    out = run_both(lambda y: fg.one_hot(y, 4), ROWS)
    np.testing.assert_array_equal(out.argmax(-1), [0, 0, 0, 0, 3, 0, 0])
    np.testing.assert_array_equal(out.sum(-1), [0, 1, 0, 0, 1, 0, 0])


@pytest.mark.parametrize("limit", [fgrad.primitives.indexing.ONE_HOT_GRADIENT_LIMIT, 0], ids=["one-hot-matmul", "scatter"])
def test_gradients_through_traced_indices(limit, monkeypatch):
    """x[i] sends the cotangent to the row read (clamped); take's filled entries and
    scatter_add's dropped updates get none, even when their cotangent is NaN."""
    monkeypatch.setattr(fgrad.primitives.indexing, "ONE_HOT_GRADIENT_LIMIT", limit)
    weights = np.array([1, 2, 4, 8, 16, 32, 64], np.float32)

    def loss_getitem(x, i):
        return fg.sum(x[i][:, 0] * weights)

    g = run_both(fg.grad(loss_getitem), TABLE, ROWS)
    np.testing.assert_array_equal(g[:, 0], [2 + 8 + 32, 0, 0, 1 + 4 + 16 + 64])
    np.testing.assert_array_equal(g[:, 1:], 0)

    def loss_take(x, i):  # the filled entries are NaN: so is the loss, but not the gradient
        picked = fg.take(x, i, axis=0)[:, 0]
        return fg.sum(picked * picked * weights)

    g = run_both(fg.grad(loss_take), TABLE, ROWS)
    # d/dx[r] of x[r]^2 w: row 3 (x = 9) read by -1 (w 1) and 3 (w 16); row 0 (x = 0) by 0 and -4
    np.testing.assert_array_equal(g[:, 0], [0, 0, 0, 2 * 9 * (1 + 16)])

    def loss_scatter(u, i):
        return fg.sum(fg.scatter_add(u, i, 4) * np.array([1, 10, 100, 1000], np.float32))

    g = run_both(fg.grad(loss_scatter), weights, ROWS)
    np.testing.assert_array_equal(g, [1000, 1, 0, 0, 1000, 1, 0])


def test_constant_indices_are_checked_and_need_no_fill():
    graph = fg.trace(lambda x: fg.take(x, [-1, 0], axis=0), S((4, 3)))
    (take,) = [n for n in graph.nodes if n.op == "take"]
    assert take.attrs["mode"] == "clip"  # checked to be in range while tracing
    np.testing.assert_array_equal(fg.interpret(graph, TABLE)[:, 0], [9, 0])
    with pytest.raises(fg.ShapeError, match="index 4 is out of bounds"):
        fg.take(TABLE, [4], axis=0)  # eagerly the indices are known, so they are checked too


# ---------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice (jax.lax's): starts may be traced
# ---------------------------------------------------------------------------

TEN = np.arange(10, dtype=np.float32)


@pytest.mark.parametrize("start, window", [(0, [0, 1, 2]), (4, [4, 5, 6]), (8, [7, 8, 9]), (100, [7, 8, 9]),
                                           (-1, [7, 8, 9]), (-4, [6, 7, 8]), (-10, [0, 1, 2]), (-30, [0, 1, 2])])
def test_dynamic_slice_counts_negative_starts_from_the_end_then_clamps(start, window):
    # jax.lax.dynamic_slice: -4 is 6; then each start is clamped into [0, n - size] = [0, 7]
    out = run_both(lambda x, i: fg.dynamic_slice(x, (i,), (3,)), TEN, np.int32(start))
    np.testing.assert_array_equal(out, window)
    np.testing.assert_array_equal(fg.dynamic_slice(TEN, (start,), (3,)), window)  # a static start, eagerly


def test_dynamic_update_slice_clamps_its_window_the_same_way():
    update = np.float32([-1, -2, -3])
    out = run_both(lambda x, u, i: fg.dynamic_update_slice(x, u, (i,)), TEN, update, np.int32(9))
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 4, 5, 6, -1, -2, -3])
    out = run_both(lambda x, u, i: fg.dynamic_update_slice(x, u, (i,)), TEN, update, np.int32(-9))
    np.testing.assert_array_equal(out, [0, -1, -2, -3, 4, 5, 6, 7, 8, 9])  # -9 is 1


def test_dynamic_slice_starts_from_one_traced_array():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    out = run_both(lambda x, s: fg.dynamic_slice(x, s, (1, 2, 2)), x, np.int32([1, -1, 1]))
    np.testing.assert_array_equal(out, x[1:2, 1:3, 1:3])  # -1 is 2, clamped to 1
    np.testing.assert_array_equal(fg.lax.dynamic_slice(x, [1, -1, 1], [1, 2, 2]), out)


def test_dynamic_slice_starts_from_a_device_array_or_a_huge_int():
    # one 1-D fg.Array of starts, as a NumPy array; a Python int past i64 clamps as any other
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    starts = fg.device_put(np.int32([1, -1, 1]))
    np.testing.assert_array_equal(fg.dynamic_slice(x, starts, (1, 2, 2)), x[1:2, 1:3, 1:3])
    np.testing.assert_array_equal(fg.dynamic_slice(TEN, (2**70,), (3,)), [7, 8, 9])
    np.testing.assert_array_equal(fg.dynamic_update_slice(TEN, np.float32([-1]), (-2**70,))[:2], [-1, 1])


def test_gradients_through_dynamic_slices_go_to_the_clamped_window():
    def loss(x, i):
        return fg.sum(fg.dynamic_slice(x, (i,), (3,)) * np.float32([1, 10, 100]))

    g = run_both(fg.grad(loss), TEN, np.int32(9))  # clamped to 7
    np.testing.assert_array_equal(g, [0, 0, 0, 0, 0, 0, 0, 1, 10, 100])

    def written(x, u, i):
        return fg.sum(fg.dynamic_update_slice(x, u, (i,)) * np.arange(10, dtype=np.float32))

    args = TEN, np.float32([5, 5]), np.int32(-1)  # -1 is 9, clamped to 8
    np.testing.assert_array_equal(run_both(fg.grad(written, argnums=0), *args), [0, 1, 2, 3, 4, 5, 6, 7, 0, 0])
    np.testing.assert_array_equal(run_both(fg.grad(written, argnums=1), *args), [8, 9])


def test_dynamic_update_slice_writes_a_donated_cache_in_place():
    """A KV cache written at a traced position: the result takes the donated cache's buffer."""
    cache = np.zeros((2, 6, 3), np.float32)
    step = fg.trace(lambda cache, new, pos: fg.dynamic_update_slice(cache, new, (0, pos, 0)), cache,
                    np.ones((2, 1, 3), np.float32), np.int32(0))
    program = lower(step, donated=frozenset({0}))
    assert program.outputs == (program.inputs[0],)
    exe = fg.compile(step, donate_argnums=0)
    state = fg.device_put(cache)
    for pos in range(6):
        state = exe(state, np.full((2, 1, 3), pos + 1, np.float32), np.int32(pos))
    np.testing.assert_array_equal(state.numpy()[0, :, 0], [1, 2, 3, 4, 5, 6])
