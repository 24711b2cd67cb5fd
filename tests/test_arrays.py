"""fg.Array behaves as a JAX array: reading back every dtype and rank, truth value, len,
iteration, hashing, formatting, and operators and methods that run on the device and match
the same expression traced on a Tensor and interpreted."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import fgrad as fg
from fgrad import runtime
from fgrad.numpy.operators import METHODS, PROPERTIES

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

VALUES = {
    "f32": np.array([[1.5, -2.0, 0.0], [3.25, -0.5, 7.0]], np.float32),
    "i32": np.array([[3, -4, 0], [7, 1, -2]], np.int32),
    "bool": np.array([[True, False, True], [False, False, True]]),
}


# ---------------------------------------------------------------------------
# Reading back
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("rank", [0, 1, 2])
@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_compiled_results_read_back_at_every_dtype_and_rank(dtype, rank):
    x = VALUES[dtype][(0,) * (2 - rank)]  # 0-d, a row, or the whole matrix
    got = fg.compile(fg.trace(lambda a: a == a if dtype == "bool" else a + a - a, x))(x)
    want = np.asarray(x)
    host = np.asarray(got)
    assert type(host) is np.ndarray and host.shape == want.shape and host.dtype == want.dtype
    np.testing.assert_array_equal(host, x if dtype != "bool" else np.ones_like(want))
    assert not host.flags.writeable
    np.testing.assert_array_equal(np.array(got), host)  # np.array copies: writeable
    assert np.array(got).flags.writeable
    assert got.tolist() == host.tolist()
    repr(got), str(got)


def test_zero_d_bool_result_reads_back():
    out = fg.compile(fg.trace(lambda x: fg.sum(x) > 0, fg.spec(3)))(np.ones(3, np.float32))
    assert np.asarray(out).shape == () and np.asarray(out).dtype == np.bool_ and bool(np.asarray(out))
    assert bool(out) is True and out.item() is True and repr(out) == "Array(True, bool[])"


@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_zero_d_conversions_and_format(dtype):
    x = fg.device_put(VALUES[dtype][1, 0])
    v = VALUES[dtype][1, 0].item()
    assert bool(x) == bool(v) and float(x) == float(v) and int(x) == int(v) and x.item() == v
    assert f"{x}" == str(VALUES[dtype][1, 0]) and str(x) == str(VALUES[dtype][1, 0])
    assert f"{x:>8}" == f"{VALUES[dtype][1, 0]:>8}"
    if dtype == "f32":
        assert f"{x:.3f}" == "3.250"
    if dtype == "i32":
        assert [10, 20, 30, 40, 50, 60, 70, 80][x] == 80 and f"{x:+d}" == "+7"


# ---------------------------------------------------------------------------
# Truth value, len, iteration, hashing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [[0.0], [2.0], [[0]], [[True]], [[False]]])
def test_bool_of_a_one_element_array_is_its_value(value):
    assert bool(fg.device_put(np.array(value))) is bool(np.array(value))


def test_bool_of_a_larger_array_is_ambiguous():
    with pytest.raises(ValueError, match=r"bool\(\) of an Array f32\[2\]: the truth value of an array with more "
                                         r"than one element is ambiguous.* at test_arrays.py:\d+"):
        bool(fg.device_put(np.zeros(2, np.float32)))
    with pytest.raises(ValueError, match="ambiguous"):
        if fg.device_put(np.ones(3, np.float32)) > 0:
            pass
    with pytest.raises(ValueError, match=r"bool\(\) of an Array f32\[0\]: the truth value of an empty array is"):
        bool(fg.device_put(np.zeros(0, np.float32)))


def test_len_and_iteration():
    a = fg.device_put(VALUES["f32"])
    assert len(a) == 2
    rows = list(a)
    assert all(isinstance(r, fg.Array) and r.spec == fg.spec(3) for r in rows)
    np.testing.assert_array_equal(np.stack([r.numpy() for r in rows]), VALUES["f32"])
    assert [int(v) for v in fg.device_put(np.array([4, 5], np.int32))] == [4, 5]
    scalar = fg.device_put(np.float32(1.0))
    with pytest.raises(TypeError, match="len"):
        len(scalar)
    with pytest.raises(TypeError, match="iteration over a 0-d Array"):
        iter(scalar)


def test_arrays_are_unhashable_as_ndarrays_are():
    with pytest.raises(TypeError, match="unhashable"):
        hash(fg.device_put(np.float32(1.0)))
    with pytest.raises(TypeError, match="unhashable"):
        {fg.device_put(np.zeros(2, np.float32))}


def test_a_donated_array_prints_as_donated():
    x = fg.device_put(np.ones(2, np.float32))
    fg.compile(fg.trace(lambda a: a * 2.0, x), donate_argnums=0)(x)
    assert repr(x) == "Array(<donated>, f32[2])"
    with pytest.raises(fg.InputError, match="was donated"):
        x + 1.0


# ---------------------------------------------------------------------------
# Operators and methods, on the device
# ---------------------------------------------------------------------------

F = VALUES["f32"]
G = np.array([[0.5, 4.0, -1.0], [2.0, 2.0, 3.0]], np.float32)
I = VALUES["i32"]
B = VALUES["bool"]
M = np.array([[1.0, 0.0], [-1.0, 2.0], [0.5, 3.0]], np.float32)

# (operation, its operands): each operand that is an ndarray is tried as an Array and as
# itself (beside at least one Array); numbers stay numbers.
OPERATIONS = {
    "add": (lambda a, b: a + b, (F, G)),
    "add_number": (lambda a: a + 2, (F,)),
    "radd_number": (lambda a: 2.5 + a, (I,)),
    "sub": (lambda a, b: a - b, (F, I)),
    "rsub_number": (lambda a: 1 - a, (I,)),
    "mul": (lambda a, b: a * b, (I, B)),
    "mul_number": (lambda a: a * 2, (F,)),
    "rmul_bool": (lambda a: True * a, (B,)),
    "truediv": (lambda a, b: a / b, (I, G)),
    "rtruediv_number": (lambda a: 1.0 / a, (G,)),
    "pow_integer": (lambda a: a ** 3, (F,)),
    "pow_float": (lambda a: a ** 0.5, (G * G,)),
    "pow_arrays": (lambda a, b: a ** b, (G * G, F)),
    "rpow_number": (lambda a: 2.0 ** a, (F,)),
    "matmul": (lambda a, b: a @ b, (F, M)),
    "matvec": (lambda a, b: a @ b, (F, M[:, 0])),
    "broadcast": (lambda a, b: a * b, (F, G[0])),
    "and": (lambda a, b: a & b, (B, B.T.copy().reshape(2, 3))),
    "or_number": (lambda a: a | False, (B,)),
    "eq": (lambda a, b: a == b, (F, G)),
    "ne_number": (lambda a: a != 0, (I,)),
    "lt": (lambda a, b: a < b, (F, G)),
    "le_number": (lambda a: a <= 1.5, (F,)),
    "gt_reflected": (lambda a: 0 > a, (F,)),
    "ge": (lambda a, b: a >= b, (I, F)),
    "neg": (lambda a: -a, (F,)),
    "pos": (lambda a: +a, (I,)),
    "abs": (lambda a: abs(a), (I,)),
    "invert": (lambda a: ~a, (B,)),
    "index_int": (lambda a: a[1], (F,)),
    "index_negative": (lambda a: a[-1, 1:], (F,)),
    "index_slice_step": (lambda a: a[:, ::2], (F,)),
    "index_none_ellipsis": (lambda a: a[None, ..., 1], (F,)),
    "index_list": (lambda a: a[[1, 0, 1]], (F,)),
    "index_array": (lambda a, i: a[:, i], (F, np.array([2, 0], np.int32))),
    "T": (lambda a: a.T, (F,)),
    "reshape": (lambda a: a.reshape(3, 2), (F,)),
    "reshape_tuple": (lambda a: a.reshape((6,)), (I,)),
    "reshape_minus_one": (lambda a: a.reshape(-1, 2), (F,)),
    "transpose": (lambda a: a.transpose(1, 0), (F,)),
    "astype": (lambda a: a.astype("i32"), (F,)),
    "astype_bool": (lambda a: a.astype(fg.DType.bool), (I,)),
    "squeeze": (lambda a: a[:, None].squeeze(1), (F,)),
    "sum": (lambda a: a.sum(), (F,)),
    "sum_axis": (lambda a: a.sum(axis=0), (I,)),
    "sum_bool": (lambda a: a.sum(1), (B,)),
    "mean_keepdims": (lambda a: a.mean(axis=1, keepdims=True), (F,)),
    "max": (lambda a: a.max(), (F,)),
    "max_axes": (lambda a: a.max(axis=[0, 1]), (I,)),
    "min_axis": (lambda a: a.min(0), (F,)),
    "argmax": (lambda a: a.argmax(), (F,)),
    "argmin_axis_keepdims": (lambda a: a.argmin(axis=1, keepdims=True), (I,)),
    "cumsum": (lambda a: a.cumsum(), (I,)),
    "cumsum_axis_dtype": (lambda a: a.cumsum(axis=1, dtype="f32"), (B,)),
    "cumsum_reverse": (lambda a: a.cumsum(0, reverse=True), (F,)),
    "chain": (lambda a, b: ((a * 2 - b) @ M).sum(0) > 1, (F, G)),
    # the rest of a jax.Array's operators and methods
    "floordiv": (lambda a, b: a // b, (F, G)),
    "rfloordiv_number": (lambda a: 7 // a, (I + 4,)),
    "mod": (lambda a, b: a % b, (I, I * 0 + 3)),
    "mod_number": (lambda a: a % 1.5, (F,)),
    "divmod": (lambda a, b: divmod(a, b)[1], (F, G)),
    "xor": (lambda a, b: a ^ b, (I, I.T.copy().reshape(2, 3))),
    "lshift": (lambda a: a << 2, (I,)),
    "rshift": (lambda a, b: a >> b, (I, np.abs(I))),
    "invert_int": (lambda a: ~a, (I,)),
    "mT": (lambda a: a.mT, (F,)),
    "reshape_order_F": (lambda a: a.reshape(3, 2, order="F"), (F,)),
    "flatten": (lambda a: a.flatten(), (F,)),
    "view": (lambda a: a.view(np.int32), (F,)),
    "ravel": (lambda a: a.ravel(), (I,)),
    "prod": (lambda a: a.prod(axis=1), (F,)),
    "var": (lambda a: a.var(0, ddof=1), (F,)),
    "std": (lambda a: a.std(keepdims=True), (F,)),
    "any": (lambda a: a.any(axis=0), (B,)),
    "all": (lambda a: a.all(), (I,)),
    "ptp": (lambda a: a.ptp(1), (F,)),
    "cumprod": (lambda a: a.cumprod(axis=1), (F,)),
    "sort": (lambda a: a.sort(), (F,)),
    "sort_axis_none": (lambda a: a.sort(axis=None), (I,)),
    "argsort": (lambda a: a.argsort(axis=0), (G,)),
    "round": (lambda a: a.round(1), (F * 3.3,)),
    "clip": (lambda a: a.clip(-1, 1), (F,)),
    "clip_max": (lambda a: a.clip(max=0.5), (F,)),
    "take": (lambda a, i: a.take(i, axis=1), (F, np.array([2, 0, 2], np.int32))),
    "repeat": (lambda a: a.repeat(2, axis=0), (F,)),
    "swapaxes": (lambda a: a.swapaxes(0, 1), (F,)),
    "diagonal": (lambda a: a.diagonal(), (F,)),
    "trace": (lambda a: a.trace(1), (F,)),
    "dot": (lambda a, b: a.dot(b), (F, M)),
    "index_arrays": (lambda a, i, j: a[i, j], (F, np.array([1, 0, 1], np.int32), np.array([2, 2, 0], np.int32))),
    "index_negative_step": (lambda a: a[::-1, ::-2], (F,)),
    "index_bool_mask": (lambda a: a[np.array([False, True])], (F,)),
    "at_set": (lambda a: a.at[0, 1].set(9.0), (F,)),
    "at_add_array": (lambda a, i, v: a.at[i].add(v), (F, np.array([1, 1], np.int32), G[:1].repeat(2, 0))),
    "at_get": (lambda a: a.at[:, np.array([5, -1])].get(mode="fill", fill_value=-1.0), (F,)),
    "at_max_slice": (lambda a: a.at[:, 1:].max(0.0), (F,)),
    "compress": (lambda a: a.compress(np.array([True, False, True]), axis=1), (F,)),
    "choose": (lambda a: abs(a).choose([np.zeros(3, np.int32), np.ones(3, np.int32) * 5], mode="clip"), (I,)),
    "conj": (lambda a: a.conj() + a.conjugate(), (F,)),
    "real": (lambda a: a.real - a.imag, (F,)),
    "nonzero": (lambda a: a.nonzero(size=4)[1], (I,)),
    "searchsorted": (lambda a, v: a.searchsorted(v, side="right"), (np.sort(F.ravel()), G)),
    "argpartition": (lambda a: a.argpartition(1)[:, 1], (G,)),
}


def _variants(name, operands):
    """Each way of giving the ndarray operands as Arrays or ndarrays, with at least one Array
    (the indexed one, for indexing, and the receiver of a method: `ndarray[array]` and
    `ndarray.dot(array)` are NumPy's own)."""
    n = len(operands)
    receiver = name.startswith(("index", "at_")) or name.split("_")[0] in (*METHODS, *PROPERTIES)
    for mask in range(1, 2 ** n):
        if mask & 1 or not receiver:
            yield [fg.device_put(x) if mask >> k & 1 else x for k, x in enumerate(operands)]


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_operation_on_arrays_runs_on_the_device_and_matches_the_traced_one(name):
    fn, operands = OPERATIONS[name]
    graph = fg.trace(fn, *operands)
    want = fg.interpret(graph, *operands)
    for args in _variants(name, operands):
        got = fn(*args)
        assert isinstance(got, fg.Array), f"{name}: got a {type(got).__name__}"
        assert got.shape == want.shape and got.numpy().dtype == want.dtype, f"{name}: {got.spec} vs {want.shape}"
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6, err_msg=name)


def test_every_method_and_property_of_fgrad_values_has_an_operation_row():
    bodies = " ".join(inspect.getsource(fn) for fn, _ in OPERATIONS.values())
    missing = sorted(name for name in (*METHODS, *PROPERTIES) if not re.search(rf"\.{name}\b", bodies))
    assert not missing, f"methods without a row in OPERATIONS: {', '.join(missing)}"


def test_boolean_masks_of_concrete_values_select_as_numpy():
    a = fg.device_put(F)
    np.testing.assert_array_equal(a[a > 1].numpy(), F[F > 1])
    np.testing.assert_array_equal(a[F < 0].numpy(), F[F < 0])
    np.testing.assert_array_equal(a.at[F < 0].set(0.0).numpy(), np.where(F < 0, 0.0, F))
    wrong = np.ones((1, *F.shape[1:]), bool)  # as JAX, a mask must have the shape of the axes it indexes
    with pytest.raises(fg.ShapeError, match="boolean mask of shape"):
        a[wrong]
    with pytest.raises(fg.ShapeError, match="boolean mask of shape"):
        a.at[wrong].set(0.0)


def test_nonzero_of_an_array_without_size_reads_the_count_back():
    a = fg.device_put(F)
    got = a.nonzero()
    assert all(isinstance(i, fg.Array) and i.dtype == fg.i32 for i in got)
    for g, want in zip(got, np.nonzero(F)):
        np.testing.assert_array_equal(g.numpy(), want)


def test_ndarray_on_the_left_gives_an_array():
    a = fg.device_put(F)
    for got in (G + a, G * a, G > a, G == a, np.float32(2.0) * a):
        assert isinstance(got, fg.Array)
    np.testing.assert_array_equal((G - a).numpy(), G - F)


def test_numpy_functions_read_back_and_return_ndarrays():
    a = fg.device_put(F)
    got = np.exp(a)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, np.exp(F))
    assert type(np.add(G, a)) is np.ndarray


def test_a_number_operand_does_not_compile_again():
    a = fg.device_put(F)
    a * 2.0
    count = len(runtime._EAGER)
    np.testing.assert_array_equal((a * 3.0).numpy(), F * 3)
    np.testing.assert_array_equal((a * -0.5).numpy(), F * -0.5)
    assert len(runtime._EAGER) == count


def test_negative_base_integer_power_is_exact():
    a = fg.device_put(np.array([-2.0, -3.0], np.float32))
    np.testing.assert_array_equal((a ** 2).numpy(), [4.0, 9.0])
    np.testing.assert_array_equal((a ** 3).numpy(), [-8.0, -27.0])


def test_array_slice_bounds_are_read_back():
    a = fg.device_put(np.arange(6, dtype=np.float32))
    i = fg.device_put(np.int32(2))
    np.testing.assert_array_equal(a[i:].numpy(), [2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(a[i].numpy(), 2.0)


def test_array_beside_a_tensor_goes_to_the_trace():
    a = fg.device_put(G)
    seen = []

    def f(t):
        out = a * t + t[0] * a - ((a @ M) @ (t @ M)).sum()
        seen.append(type(a + t))
        return out

    graph = fg.trace(f, F)
    assert seen == [fg.Tensor]
    want = G * F + F[0] * G - ((G @ M) @ (F @ M)).sum()
    np.testing.assert_allclose(fg.interpret(graph, F), want, rtol=1e-5)
    np.testing.assert_allclose(fg.compile(graph)(F).numpy(), want, rtol=1e-5)


def test_array_used_alone_inside_a_trace_is_a_constant_there():
    a = fg.device_put(G)
    graph = fg.trace(lambda t: t + (a * 2).sum(), F)
    assert all(n.op != "input" or i == graph.inputs[0] for i, n in enumerate(graph.nodes))
    np.testing.assert_allclose(fg.interpret(graph, F), F + (G * 2).sum(), rtol=1e-6)


def test_errors_name_the_op_and_the_users_line():
    a = fg.device_put(F)
    with pytest.raises(fg.ShapeError, match=r"add: cannot broadcast \(2, 3\) with \(4,\) at test_arrays.py:\d+"):
        a + np.zeros(4, np.float32)
    with pytest.raises(fg.DTypeError, match=r"invert \(~\): takes integer or bool operands, got f32\[2,3\]"):
        ~a
    with pytest.raises(TypeError, match="unsupported operand"):
        a + "1"
    for compare, symbol in ((lambda: a == [1.0] * 3, "=="), (lambda: a != (1.0,), "!=")):
        with pytest.raises(TypeError, match=f"unsupported operand type\\(s\\) for {symbol}: 'Array' and"):
            compare()  # as JAX's, where Python's fallback would be a silent False
    assert (a == None) is False and (a != "x") is True  # noqa: E711  (other types: Python's identity, as JAX)


def test_static_operands_equal_in_python_but_of_other_types_compile_apart():
    # 2, 2.0 and np.float32(2) are equal and hash alike; each is traced with its own type, as a
    # JAX array's `a ** 2` (int32) and `a ** 2.0` (float32) differ.
    a = fg.device_put(np.array([1, 2, 3], np.int32))
    assert (a ** 2).dtype == fg.i32 and (a ** 2).tolist() == [1, 4, 9]
    for exponent in (2.0, np.float32(2.0)):
        got = a ** exponent
        assert got.dtype == fg.f32, exponent
        np.testing.assert_array_equal(got.numpy(), np.float32([1, 4, 9]))
    b = a.reshape(3, 1)
    np.testing.assert_array_equal(b.sum(axis=1).numpy(), [1, 2, 3])
    with pytest.raises(fg.ShapeError, match="axis True is not an integer"):
        b.sum(axis=True)


def test_jit_static_arguments_of_other_types_trace_apart():
    f = fg.jit(lambda x, n: x * n, static_argnums=1)
    x = np.array([0, 1, 2], np.int32)
    assert f(x, 2).dtype == fg.i32
    got = f(x, 2.0)  # jax.jit gives float32 [0., 2., 4.]
    assert got.dtype == fg.f32
    np.testing.assert_array_equal(got.numpy(), np.float32([0, 2, 4]))
    assert f(x, True).tolist() == [0, 1, 2]


def test_numpy_reductions_call_the_methods_with_numpy_keywords():
    # np.sum(a) is a.sum(axis=None, out=None), np.mean(a) passes dtype too: as for a JAX array,
    # they run on the device and return Arrays.
    a = fg.device_put(G)
    for got, want in ((np.sum(a), G.sum()), (np.sum(a, axis=0), G.sum(0)), (np.max(a, axis=1), G.max(1)),
                      (np.min(a), G.min()), (np.mean(a, keepdims=True), G.mean(keepdims=True)),
                      (np.sum(a, dtype=np.int32), G.astype(np.int32).sum()), (a.max(0, None, True), G.max(0, None, True)),
                      (a.sum(1, None, None, True), G.sum(1, None, None, True)), (np.argmax(a), G.argmax()),
                      (np.argmin(a, axis=1), G.argmin(1)), (np.cumsum(a, axis=1), G.cumsum(1))):
        assert isinstance(got, fg.Array) and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    with pytest.raises(fg.InputError, match="sum: out= is not supported"):
        np.sum(a, out=np.zeros((), np.float32))
    with pytest.raises(fg.InputError, match="cumsum: out= is not supported"):
        np.cumsum(a, out=np.zeros(6, np.float32))


def test_copy_deepcopy_and_pickle_give_arrays_of_their_own():
    import copy
    import pickle

    a = fg.device_put(G)
    tree = {"w": a, "rest": [a, 1]}
    for got in (copy.deepcopy(tree), pickle.loads(pickle.dumps(tree))):
        assert got["rest"][1] == 1 and isinstance(got["w"], fg.Array) and got["w"].buffer is not a.buffer
        np.testing.assert_array_equal(got["w"].numpy(), G)
    b = copy.copy(a)
    assert b.buffer is not a.buffer and b.spec == a.spec
    np.testing.assert_array_equal(b.numpy(), G)


def test_item_assignment_and_integers_outside_i32_are_clear_errors():
    a = fg.device_put(np.arange(3, dtype=np.int32))
    with pytest.raises(fg.InputError, match=r"setitem: .* an Array i32\[3\]: fgrad values are immutable") as e:
        a[0] = 1
    assert "test_arrays.py" in str(e.value)
    with pytest.raises(fg.DTypeError, match=r"add: .*1099511627776 does not fit i32") as e:
        a + 2**40
    assert "test_arrays.py" in str(e.value)
    np.testing.assert_array_equal((a + (2**31 - 3)).numpy(), np.int32([2**31 - 3, 2**31 - 2, 2**31 - 1]))


def test_compiled_functions_refuse_keywords_and_bad_captures_by_name():
    exe = fg.compile(fg.trace(lambda w: w * 2.0, fg.spec(3)))
    x = np.ones(3, np.float32)
    with pytest.raises(fg.InputError, match=r"arguments are positional, in the graph's order \(w\); got the keyword 'w'"):
        exe(x, w=x)
    with pytest.raises(fg.InputError, match=r"captures must be True, False or a list of capture names, got 3"):
        exe(x, captures=3)


def test_device_get_and_block_until_ready_walk_pytrees():
    """As jax.device_get and jax.block_until_ready: fg.Arrays read back (other leaves as they
    are), or waited for, throughout a pytree."""
    tree = {"a": fg.device_put(np.float32([1, 2])), "b": [np.int32(3), 4.0, None]}
    got = fg.device_get(tree)
    assert type(got["a"]) is np.ndarray and got["a"].tolist() == [1, 2] and got["b"] == [np.int32(3), 4.0, None]
    assert fg.block_until_ready(tree) is tree
    dead = fg.device_put(np.float32([1]))
    fg.jit(lambda x: x * 2, donate_argnums=0)(dead)
    with pytest.raises(fg.InputError, match="device_get: a value"):
        fg.device_get([dead])


def test_an_array_has_jax_s_buffer_methods():
    a = fg.device_put(np.arange(4, dtype=np.float32))
    assert (a.itemsize, a.nbytes) == (4, 16) and fg.device_put(np.bool_([1, 0])).nbytes == 2
    assert a.devices() == {fg.default_device()}
    assert a.tobytes() == np.arange(4, dtype=np.float32).tobytes()
    np.testing.assert_array_equal(np.asarray(a.view(np.int32)), np.arange(4, dtype=np.float32).view(np.int32))
    np.testing.assert_array_equal(np.asarray(a.view()), np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(a.view(np.uint8)), np.arange(4, dtype=np.float32).view(np.uint8))
    u8 = fg.device_put(np.arange(12, dtype=np.uint8).reshape(2, 6))
    np.testing.assert_array_equal(np.asarray(u8.view(np.uint16)),
                                  np.arange(12, dtype=np.uint8).reshape(2, 6).view(np.uint16))
    with pytest.raises(fg.ShapeError, match=r"^view: the last axis of u8\[2, 6\] holds 6 bytes, not a multiple of"):
        u8.view(np.int32)
    np.testing.assert_array_equal(np.asarray(fg.device_put(np.bool_([1, 0])).view(np.uint8)), [1, 0])
    with pytest.raises(fg.ShapeError, match=r"^view: a 0-d f32 array takes only a dtype of its itemsize \(4\)"):
        fg.device_put(np.float32(1)).view(np.uint8)
    assert not a.is_deleted()
    a.delete()
    assert a.is_deleted() and repr(a) == "Array(<deleted>, f32[4])"
    with pytest.raises(fg.InputError, match=r"that was deleted at test_arrays.py:\d+ \(Array.delete\)"):
        a.numpy()
    with pytest.raises(fg.InputError, match="deleted"):
        fg.jit(lambda x: x + 1)(a)
    a.delete()  # again: nothing more to free


def test_a_traced_value_has_the_same_methods():
    @fg.jit
    def f(x):
        assert (x.itemsize, x.nbytes) == (4, 12)
        assert x.copy() is x and x.block_until_ready() is x
        with pytest.raises(fg.TraceError, match="item"):
            x.item()
        return x.view(np.uint32)

    x = np.float32([1, 2, 3])
    np.testing.assert_array_equal(np.asarray(f(x)), x.view(np.uint32))


def test_live_arrays_are_those_neither_deleted_nor_donated_nor_collected():
    """fg.live_arrays, as jax.live_arrays: the Arrays holding device memory now."""
    import gc

    def live(x):
        return any(y is x for y in fg.live_arrays())

    a, b = fg.device_put(np.ones(3, np.float32)), fg.device_put(np.ones(3, np.float32))
    c = fg.jit(lambda x: x * 2)(a)
    assert live(a) and live(b) and live(c) and all(isinstance(x, fg.Array) for x in fg.live_arrays())
    a.delete()
    fg.jit(lambda x: x + 1, donate_argnums=0)(b)
    assert not live(a) and not live(b) and live(c)
    gc.collect()  # earlier tests' garbage first, so that the count below moves by c alone
    count = len(fg.live_arrays())
    del c
    gc.collect()
    assert len(fg.live_arrays()) == count - 1
    assert fg.live_arrays(fg.default_backend()) == fg.live_arrays()
    with pytest.raises(fg.CompileError, match=r"^live_arrays: backend 'tpu' is not one of fgrad's"):
        fg.live_arrays("tpu")
