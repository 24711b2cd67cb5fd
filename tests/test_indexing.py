"""Traced indices follow JAX's documented semantics, compiled and interpreted alike.

- `x[i]`: an index in [-n, 0) counts from the end; any other index outside
  [0, n) is clamped into range (JAX's indexing, "promise_in_bounds" for gathers).
- `fg.take` (as `jnp.take`): mode "fill" by default, negative indices in
  [-n, 0) count from the end and any other out-of-range index reads the fill
  value (NaN for f32, the least i32, True); mode "clip" clamps, negatives too.
- `fg.scatter_add` (as `.at[...].add`): negatives in [-size, 0) count from the
  end, other out-of-range updates are dropped; mode "clip" clamps.
- `x[i, j]`: each traced index counted from the end and clamped into its own axis, then all
  gathered at once.
- `x.at[i].set/add/...` (JAX's indexed updates): negatives in [-n, 0) count from the end, other
  out-of-range updates are dropped ("clip" clamps); repeated indices combine, the last one
  setting; `.get` clamps, or reads the fill value with mode "fill".
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


def test_take_fills_constant_indices_where_fill_is_asked_for():
    """mode="fill" given: constant indices out of range fill too, as jnp.take's (the default mode
    refuses them: test_index_mistakes_are_named)."""
    import jax.numpy as jnp
    from jax_oracle import jax_call

    x = np.array([10, 20, 30, 40], np.float32)
    want = np.asarray(jax_call(lambda x, i: jnp.take(x, i, mode="fill"), x, ROWS))
    np.testing.assert_array_equal(fg.take(x, ROWS, mode="fill"), want)
    np.testing.assert_array_equal(fg.jit(lambda x: fg.take(x, ROWS, mode="fill"))(x).numpy(), want)
    np.testing.assert_array_equal(fg.take(x, ROWS, mode="fill", fill_value=-1),
                                  jax_call(lambda x, i: jnp.take(x, i, mode="fill", fill_value=-1), x, ROWS))
    grad = fg.grad(lambda x: fg.sum(fg.take(x, ROWS, mode="fill", fill_value=0.0)))(x)
    np.testing.assert_array_equal(grad, np.bincount(np.where(ROWS < 0, ROWS + 4, ROWS)[(ROWS >= -4) & (ROWS < 4)],
                                                    minlength=4))


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


# ---------------------------------------------------------------------------
# NumPy's indexing: several index arrays, their placement, masks, negative steps
# ---------------------------------------------------------------------------

CUBE = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
KEYS = {
    "arrays-separated": (np.array([[0, 1]]), slice(None), np.array([1, 2])),
    "arrays-adjacent": (slice(None), np.array([[0, 1]]), np.array([1, 2])),
    "arrays-and-slice-between": (slice(None), np.array([[0, 1]]), slice(None), np.array([1, 2])),
    "int-and-array-separated": (slice(None), 1, slice(None), np.array([1, 2])),
    "none-int-none-array": (None, 1, None, np.array([1, 2])),
    "ellipsis-int-array": (Ellipsis, 0, [0, -1]),
    "int-ellipsis-array": (0, Ellipsis, [0]),
    "int-array-none": (0, [0], None),
    "three-arrays-broadcast": ([0, 1], [[2], [0]], [1, -1]),
    "tuple-in-key": (1, (0, 2)),
    "reversed": (slice(None, None, -1),),
    "negative-steps": (slice(None), slice(3, None, -2), slice(None, None, -3)),
    "negative-step-and-arrays": (np.array([1, 0]), slice(None, None, -1), None, np.array([[2], [0]]), 1),
    "mask": (np.array([True, False]),),
    "mask-2d-after-slice": (slice(None), np.array([[True, False, True, True]] * 3)),
    "mask-and-array": (np.array([False, True]), slice(None), [3, 0]),
}


@pytest.mark.parametrize("key", KEYS.values(), ids=KEYS.keys())
def test_getitem_follows_numpy(key):
    want = CUBE[key]
    np.testing.assert_array_equal(run_both(lambda x: x[key], CUBE), want)
    np.testing.assert_array_equal(fg.getitem(CUBE, key), want)  # eagerly too


def test_two_traced_index_arrays_gather_in_one_kernel_and_scatter_their_gradient():
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    rows, labels = np.array([0, 4, -1, 0], np.int32), np.array([2, 0, 1, 2], np.int32)
    graph = fg.trace(lambda x, r, y: x[r, y] * 2.0, x, rows, labels)
    assert len(lower(graph).kernels) == 1
    np.testing.assert_array_equal(run_both(lambda x, r, y: x[r, y], x, rows, labels), [2, 12, 13, 2])
    g = run_both(fg.grad(lambda x, r, y: fg.sum(x[r, y] * np.float32([1, 10, 100, 1000]))), x, rows, labels)
    np.testing.assert_array_equal(g, [[0, 0, 1001], [0] * 3, [0] * 3, [0] * 3, [10, 100, 0]])


def test_traced_index_pairs_clamp_each_index_into_its_axis():
    # JAX's x[i, j]: each index counted from the end, then clamped into its own axis (not the
    # merged one: (0, 9) must not read row 1)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = run_both(lambda x, i, j: x[i, j], x, np.int32([0, -1, 5, -9]), np.int32([9, -1, 0, 1]))
    np.testing.assert_array_equal(out, [3, 11, 8, 1])


INDEX_MISTAKES = {
    "traced-mask": (lambda x: x[x > 0], fg.ShapeError, ["getitem", "bool[3,4]", "NonConcreteBooleanIndexError",
                                                        "fg.where"]),
    "mask-shape": (lambda x: x[:, np.array([True, False])], fg.ShapeError, ["mask of shape (2,)", "(3, 4)"]),
    "empty-axis": (lambda x: x[:0][np.int32([0])], fg.ShapeError, ["index 0", "size 0", "(0, 4)"]),
    "no-broadcast": (lambda x: x[[0, 1], [0, 1, 2]], fg.ShapeError, ["(2,) (3,)", "broadcast"]),
    "float-array": (lambda x: x[np.array([0.5])], fg.DTypeError, ["integers", "float64"]),
    "bool-scalar": (lambda x: x[True], fg.ShapeError, ["bool index", "None"]),
    "float-tensor": (lambda x: x[x[0]], fg.DTypeError, ["integers", "f32[4]"]),
}


@pytest.mark.parametrize("name", INDEX_MISTAKES)
def test_index_mistakes_are_named(name):
    fn, error, parts = INDEX_MISTAKES[name]
    with pytest.raises(error) as e:
        fg.trace(fn, S((3, 4)))
    assert all(p in str(e.value) for p in parts), str(e.value)
    assert "test_indexing.py" in str(e.value)


def test_several_index_arrays_on_a_symbolic_axis_are_refused_one_is_gathered():
    T = fg.dim("T", 8)
    graph = fg.trace(lambda x, i: x[i, ::-1], S((T, 3)), S(2, "i32"))
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    np.testing.assert_array_equal(fg.interpret(graph, x, np.int32([-1, 0])), [[14, 13, 12], [2, 1, 0]])
    with pytest.raises(fg.ShapeError, match="symbol T"):
        fg.trace(lambda x, i: x[i, i], S((T, 3)), S(2, "i32"))


# ---------------------------------------------------------------------------
# x.at[...]: JAX's indexed updates
# ---------------------------------------------------------------------------

SEVEN = np.array([1, 2, 4, 8, 16, 32, 64], np.float32)  # one update per entry of ROWS


def at(x, key):
    return fgrad.numpy.indexing._IndexUpdateHelper(x)[key]  # x.at on a NumPy array, eagerly


def test_at_updates_drop_out_of_range_indices_and_combine_repeated_ones():
    # ROWS into 4 rows: -1 -> 3 (1), 0 (2), 3 (16), -4 -> 0 (32); 5, -5 and 4 are dropped
    zero = np.zeros(4, np.float32)
    cases = {"set": [32, 0, 0, 16], "add": [34, 0, 0, 17], "min": [0, 0, 0, 0], "max": [32, 0, 0, 16],
             "multiply": [0, 0, 0, 0], "subtract": [-34, 0, 0, -17]}
    for method, want in cases.items():
        out = run_both(lambda x, i, v: getattr(x.at[i], method)(v), zero, ROWS, SEVEN)
        np.testing.assert_array_equal(out, want, err_msg=method)
        np.testing.assert_array_equal(getattr(at(zero, ROWS), method)(SEVEN), want, err_msg=method)
    ones = np.ones(4, np.float32)
    np.testing.assert_array_equal(run_both(lambda x, i, v: x.at[i].mul(v), ones, ROWS, SEVEN), [64, 1, 1, 16])
    np.testing.assert_array_equal(run_both(lambda x, i, v: x.at[i].divide(v), ones, ROWS, SEVEN),
                                  [1 / 64, 1, 1, 1 / 16])


def test_eager_values_have_at_and_take_traced_indices():
    """An eagerly computed value is a NumPy array with a jax.Array's `.at`, indexable by a traced
    index (a loop's counter closing over it), as `jnp.zeros(3).at[0].set(1)` in JAX."""
    x = fg.zeros(4)
    assert isinstance(x, np.ndarray) and isinstance(x, fg.HostArray)
    y = x.at[1].set(2.0).at[np.int32([0, 3])].add(np.float32([1, 5]))
    assert isinstance(y, fg.HostArray) and y.dtype == np.float32
    np.testing.assert_array_equal(y, [1, 2, 0, 5])
    np.testing.assert_array_equal(x, 0)  # a new value: x is as it was
    xs = fg.asarray([1.0, 2.0, 4.0])
    for loop in (lambda: fg.lax.fori_loop(0, 3, lambda i, a: a + xs[i] * i, 0.0),
                 fg.jit(lambda: fg.lax.fori_loop(0, 3, lambda i, a: a + xs[i] * i, 0.0))):
        assert float(loop()) == 10.0
    np.testing.assert_array_equal(fg.jit(lambda i: fg.arange(5)[i, None] * 2)(np.int32(3)), [6])
    assert fg.exp(np.zeros(2)).block_until_ready().tolist() == [1.0, 1.0]
    assert repr(fg.ones(2)) == "array([1., 1.], dtype=float32)"


def test_at_set_lets_the_last_repeated_index_win():
    x = np.zeros((3, 2), np.float32)
    out = run_both(lambda x, i: x.at[i].set(np.float32([[1, 1], [2, 2], [3, 3], [4, 4]])), x, np.int32([2, 0, 2, 0]))
    np.testing.assert_array_equal(out, [[4, 4], [0, 0], [3, 3]])


def test_at_modes_clip_fill_and_unwrapped_negative_indices():
    zero = np.zeros(4, np.float32)
    clipped = run_both(lambda x, i, v: x.at[i].add(v, mode="clip"), zero, ROWS, SEVEN)
    # -1 -> 3, 0, 5 -> 3, -5 -> -1 -> 0, 3, -4 -> 0, 4 -> 3
    np.testing.assert_array_equal(clipped, [2 + 8 + 32, 0, 0, 1 + 4 + 16 + 64])
    unwrapped = run_both(lambda x, i, v: x.at[i].set(v, wrap_negative_indices=False), zero, ROWS, SEVEN)
    np.testing.assert_array_equal(unwrapped, [2, 0, 0, 16])  # every negative index is out of range
    filled = run_both(lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0), TABLE, ROWS)
    np.testing.assert_array_equal(filled[:, 0], [9, 0, -1, -1, 9, 0, -1])
    hints = run_both(lambda x, i: x.at[i].get(indices_are_sorted=True, unique_indices=True), TABLE, ROWS)
    np.testing.assert_array_equal(hints[:, 0], [9, 0, 9, 0, 9, 0, 9])  # clamped, as x[i]
    np.testing.assert_array_equal(at(TABLE, 7).get()[0], 9)  # constants are clamped too
    np.testing.assert_array_equal(at(np.arange(4), 9).set(5), [0, 1, 2, 3])  # and dropped


def test_at_updates_of_slices_are_one_elementwise_kernel():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    graph = fg.trace(lambda x: x.at[1:, ::-2].add(100.0), x)
    assert [n.op for n in graph.nodes if n.op in ("scatter", "take")] == []
    assert len(lower(graph).kernels) == 1
    want = x.copy()
    want[1:, ::-2] += 100
    np.testing.assert_array_equal(run_both(lambda x: x.at[1:, ::-2].add(100.0), x), want)


def test_at_min_and_max_let_nan_win():
    x = np.float32([1, np.nan, 3])
    out = run_both(lambda x, v: x.at[np.array([0, 1, 0, 2])].min(v), x, np.float32([np.nan, 0, 0.5, 2]))
    np.testing.assert_array_equal(out, [np.nan, np.nan, 2])
    out = run_both(lambda x, v: x.at[np.array([2, 2])].max(v), x, np.float32([5, np.nan]))
    np.testing.assert_array_equal(out, [1, np.nan, np.nan])


def test_at_gradients_go_to_the_winning_and_selected_updates():
    x = np.float32([1, 5, 3])
    i, v = np.int32([0, 2, 0, 9]), np.float32([7, 3, 8, 9])
    w = np.float32([1, 10, 100])

    def loss(method):
        return lambda x, v: fg.sum(getattr(x.at[i], method)(v) * w)

    np.testing.assert_array_equal(run_both(fg.grad(loss("set"), argnums=0), x, v), [0, 10, 0])
    np.testing.assert_array_equal(run_both(fg.grad(loss("set"), argnums=1), x, v), [0, 100, 1, 0])  # the last 0 wins
    # max: row 2 ties x (3) with an update (3): each gets half; row 0's update 8 wins
    np.testing.assert_array_equal(run_both(fg.grad(loss("max"), argnums=0), x, v), [0, 10, 50])
    np.testing.assert_array_equal(run_both(fg.grad(loss("max"), argnums=1), x, v), [0, 50, 1, 0])
    # mul: row 0 is 1 * 7 * 8, so d/dv0 = 8, d/dv2 = 7, d/dx0 = 56
    np.testing.assert_array_equal(run_both(fg.grad(loss("mul"), argnums=0), x, v), [56, 10, 300])
    np.testing.assert_array_equal(run_both(fg.grad(loss("mul"), argnums=1), x, v), [8, 300, 7, 0])


def test_at_mistakes_are_named():
    with pytest.raises(fg.TraceError, match="mode 'wrap'"):
        fg.trace(lambda x: x.at[0].set(1.0, mode="wrap"), S(3))
    with pytest.raises(fg.ShapeError, match=r"values of shape \(2,\) do not broadcast to the shape \(\)"):
        fg.trace(lambda x: x.at[0].set(np.float32([1, 2])), S(3))
    with pytest.raises(fg.DTypeError, match="bool arrays"):
        fg.trace(lambda x: x.at[0].add(True), S(3, "bool"))
    with pytest.raises(fg.TraceError, match="inplace=False"):
        fg.put_along_axis(TABLE, np.zeros((4, 1), np.int32), 0.0, axis=1)


# ---------------------------------------------------------------------------
# flip, rot90, roll, one_hot, take_along_axis
# ---------------------------------------------------------------------------


def test_flip_rot90_and_roll_follow_numpy():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    np.testing.assert_array_equal(fg.flip(x), np.flip(x))
    np.testing.assert_array_equal(fg.flip(x, (0, 2)), np.flip(x, (0, 2)))
    for k in range(-2, 6):
        np.testing.assert_array_equal(fg.rot90(x, k, axes=(1, 2)), np.rot90(x, k, axes=(1, 2)))
    for shift, axis in [(1, None), (-25, None), ((1, 2), (0, 2)), (2, (1, 1)), ((5, -3), 1)]:
        np.testing.assert_array_equal(fg.roll(x, shift, axis), np.roll(x, shift, axis))
        traced = run_both(lambda x, s: fg.roll(x, s, axis), x, np.int32(shift))
        np.testing.assert_array_equal(traced, np.roll(x, shift, axis))
    with pytest.raises(fg.ShapeError, match="rot90: axes"):
        fg.rot90(x, axes=(1, -2))


def test_one_hot_places_its_axis_and_compares_float_labels():
    labels = np.float32([[0, 1.5], [2, -1]])
    out = run_both(lambda y: fg.nn.one_hot(y, 3, axis=1, dtype="i32"), labels)
    assert out.shape == (2, 3, 2) and out.dtype == np.int32
    np.testing.assert_array_equal(out[:, :, 0], [[1, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(out[:, :, 1], 0)  # 1.5 and -1 are no class


def test_take_along_axis_and_put_along_axis():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    i = np.int32([[0, -1], [5, 2], [-5, 1]])
    picked = run_both(lambda x, i: fg.take_along_axis(x, i, axis=1), x, i)
    np.testing.assert_array_equal(picked, [[0, 3], [NAN, 6], [NAN, 9]])  # 5 and -5 read the fill
    put = run_both(lambda x, i: fg.put_along_axis(x, i, -1.0, axis=1, inplace=False), x, i)
    want = x.copy()
    want[[0, 0, 1, 2], [0, 3, 2, 1]] = -1  # out of range: dropped
    np.testing.assert_array_equal(put, want)
    with pytest.raises(fg.ShapeError, match="same number of axes"):
        fg.take_along_axis(x, np.int32([0, 1]), axis=1)
    with pytest.raises(fg.DTypeError, match="integers"):
        fg.take_along_axis(x, np.float32([[0.0]]), axis=1)
