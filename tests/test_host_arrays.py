"""Eager values (fg.HostArray) against jax.Array: operators, in-place operators and methods follow
JAX's promotion and results (dtype and values), NumPy's functions and ufuncs see the NumPy array as
they see a jax.Array's values, np.testing compares them as NumPy does, and an operand of another type
(an fg.Array, pytest.approx) gets its own turn. One difference: a NumPy scalar on the left
(`np.float64(2.5) * x`) is NumPy's operation, as on any NumPy array."""

from __future__ import annotations

import operator
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, same

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")
fnp = fg.numpy
D = Draws(3)
OPERANDS = {"f32": D.f32(2, 3), "i32": D.i32(2, 3, lo=1, hi=4), "u32": np.uint32([[1, 2, 3], [4, 5, 6]]),
            "bool": np.array([[True, False, True], [False, True, True]]), "row": D.f32(3)}
OTHERS = [("int", 2), ("float", 1.5), ("np float64", np.float64(2.5)), ("np int64 array", np.int64([1, 2, 3])),
          ("f32", "f32"), ("i32", "i32"), ("row", "row")]
BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
          operator.pow, operator.eq, operator.lt, operator.ge, operator.and_, operator.or_]


def _outcome(fn):
    """The result as a NumPy array, or the builtin error class it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn())
    except (TypeError, ValueError, ZeroDivisionError) as e:
        return TypeError if isinstance(e, TypeError) else ValueError


@pytest.mark.parametrize("left", ["f32", "i32", "u32", "bool"])
@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
def test_operators_as_jax(op, left):
    for name, other in OTHERS:
        other = OPERANDS.get(other, other) if isinstance(other, str) else other
        for swapped in (False, True):
            def run(m, x=OPERANDS[left], y=other):
                x = m.asarray(x)
                y = m.asarray(y) if isinstance(y, np.ndarray) and y.dtype != np.int64 else y
                return op(y, x) if swapped else op(x, y)
            what = f"{op.__name__}({left}, {name}){' swapped' if swapped else ''}"
            want = _outcome(lambda: run(jnp))
            got = _outcome(lambda: run(fnp))
            if swapped and isinstance(other, np.generic):
                # NOTE: a NumPy scalar's operator runs first and calls NumPy's ufunc, which a HostArray
                # (a NumPy array) answers as NumPy does, where a jax.Array is asked in turn
                want = _outcome(lambda: run(np))
            if isinstance(want, type):  # JAX refuses these operands: so does fgrad
                assert isinstance(got, type), f"{what}: JAX raises {want.__name__}, fgrad gives {got!r}"
                continue
            assert not isinstance(got, type), f"{what}: fgrad raises {got.__name__}, JAX gives {want.dtype}"
            same(got, want, what, rtol=1e-6)


@pytest.mark.parametrize("method, args", [("sum", ()), ("mean", ()), ("prod", (1,)), ("max", (0,)), ("std", ()),
                                          ("var", (1,)), ("cumsum", (1,)), ("argmax", ()), ("astype", (np.float16,)),
                                          ("reshape", (3, 2)), ("all", ()), ("clip", (0, 2))])
@pytest.mark.parametrize("dtype", ["f32", "i32", "bool"])
def test_methods_as_jax(method, args, dtype):
    want = _outcome(lambda: getattr(jnp.asarray(OPERANDS[dtype]), method)(*args))
    got = _outcome(lambda: getattr(fnp.asarray(OPERANDS[dtype]), method)(*args))
    if isinstance(want, type):
        assert isinstance(got, type), f"{method}: JAX raises, fgrad gives {got!r}"
        return
    same(got, want, f"{dtype}.{method}{args}", rtol=2e-6)


def test_in_place_operators_make_new_values():
    x = fnp.arange(3)
    y = x
    y += 1
    y /= 2
    assert np.asarray(x).tolist() == [0, 1, 2], "the value y named before is unchanged, as a jax.Array"
    same(y, np.asarray((jnp.arange(3) + 1) / 2), "in place")


@pytest.mark.parametrize("fn", [np.sum, np.mean, np.exp, lambda v: np.add(v, 1.5), np.cumsum, np.transpose,
                                lambda v: np.concatenate([v, v]), lambda v: np.reshape(v, -1), np.max, np.linalg.norm,
                                np.unique, lambda v: np.where(v > 1, v, 0)])
def test_numpy_functions_as_on_a_jax_array(fn):
    """NumPy's functions see a NumPy array, save those that call the array's own method (np.sum(x) is
    x.sum()), which gives fgrad's result as it gives JAX's: the same results, dtypes and kinds."""
    x = fnp.asarray(OPERANDS["i32"])
    got, want = fn(x), fn(jnp.asarray(OPERANDS["i32"]))
    assert isinstance(got, fg.HostArray) == isinstance(want, jax.Array), (type(got), type(want))
    same(got, np.asarray(want), "a NumPy function", rtol=1e-12)


def test_numpy_testing_compares_as_numpy():
    u = fnp.asarray(np.uint32([4294967294, 1]))
    np.testing.assert_array_equal(u + 1, [4294967295, 2])  # np.testing compares as NumPy does
    np.testing.assert_allclose(fnp.ones(3) * 0.1, np.full(3, 0.1), rtol=1e-7)


def test_other_operand_types_get_their_turn():
    x = fnp.ones(2)
    assert x == pytest.approx(np.ones(2))
    on_device = x + fg.device_put(np.ones(2, np.float32))
    assert isinstance(on_device, fg.Array) and on_device.numpy().tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"


def test_numpy_sorts_in_place_where_it_does():
    x = fnp.asarray(np.int32([3, 1, 2]))
    same(np.sort(x), np.int32([1, 2, 3]), "np.sort")
    same(x.sort(), np.int32([1, 2, 3]), "x.sort(), a jax.Array's: a new value")
    assert np.asarray(x).tolist() == [3, 1, 2]
    np.testing.assert_array_equal(np.argsort(x), [1, 2, 0])  # x.argsort(), with NumPy's stable=None
    assert (x > [2, 0, 2]).tolist() == [True, True, False]  # lists beside a HostArray, as NumPy took them


def test_every_fgrad_value_is_an_fg_array_as_every_jax_value_is_a_jax_array():
    """fg.Array is jax.Array's counterpart (and jnp.ndarray's, fg.numpy.ndarray): an eager value,
    a traced one and an array on the device are all instances; a NumPy array and a number are not."""
    import jax
    import jax.numpy as jnp

    seen = []
    fg.jit(lambda t: seen.append(isinstance(t, fg.Array)) or t)(np.float32(1))
    jax.jit(lambda t: seen.append(isinstance(t, jax.Array)) or t)(np.float32(1))
    assert seen == [True, True]
    assert isinstance(fg.numpy.arange(3), fg.Array) and isinstance(jnp.arange(3), jax.Array)
    assert isinstance(fg.device_put(np.ones(2)), fg.Array)
    assert not isinstance(np.ones(2), fg.Array) and not isinstance(np.ones(2), jax.Array)
    assert not isinstance(1.5, fg.Array) and not isinstance(1.5, jax.Array)
    assert fg.numpy.ndarray is fg.Array and jnp.ndarray is jax.Array and fg.Array.__name__ == "Array"


def test_an_eager_value_views_its_bits_as_a_jax_array_does():
    """x.view(dtype) is jax.Array's, however NumPy holds the value (a broadcast constant, here), and
    a dtype fgrad lacks is an fgrad error."""
    import jax.numpy as jnp

    x = fg.numpy.ones((2, 3))
    for dtype in ("int8", "uint16", "int32"):
        got, want = x.view(dtype), jnp.ones((2, 3)).view(dtype)
        assert isinstance(got, fg.HostArray) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, np.asarray(want))
    with pytest.raises(fg.DTypeError, match="^view: unsupported dtype complex64"):
        x.view("complex64")
    # as another array type, as code written for NumPy arrays asks: NumPy's view
    assert type(x.view(np.ndarray)) is np.ndarray and type(x.view(type=np.ndarray)) is np.ndarray
    assert repr(x) == "array([[1., 1., 1.],\n       [1., 1., 1.]], dtype=float32)"
