"""The elementwise surface beyond the op table: derivatives where jax.numpy and jax.nn define them
at kinks and infinities, result dtypes, and the forms fgrad refuses. Expected values are
jax.numpy's (JAX 0.10), written out."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fgrad as fg


def grad_at(fn, x: float) -> float:
    return float(fg.grad(fn)(np.float32(x)))


# (function, point, jax.grad's value there)
KINKS = [
    (fg.nn.relu, 0.0, 0.0),
    (fg.nn.relu6, 0.0, 0.0), (fg.nn.relu6, 6.0, 0.0), (fg.nn.relu6, 3.0, 1.0),
    (fg.nn.leaky_relu, 0.0, 1.0),
    (fg.nn.elu, 0.0, 1.0), (fg.nn.celu, 0.0, 1.0), (fg.nn.selu, 0.0, 1.7580993175506592),
    (fg.nn.hard_tanh, 1.0, 1.0), (fg.nn.hard_tanh, -1.0, 1.0),
    (fg.nn.hard_sigmoid, -3.0, 0.0), (fg.nn.hard_sigmoid, 3.0, 0.0),
    (fg.nn.hard_silu, -3.0, 0.0), (fg.nn.hard_silu, 3.0, 1.0),
    (fg.nn.softplus, 0.0, 0.5), (fg.nn.log_sigmoid, 0.0, 0.5),
    (fg.nn.sparse_plus, -1.0, 0.0), (fg.nn.sparse_plus, 1.0, 1.0),
    (fg.nn.sparse_sigmoid, -1.0, 0.25), (fg.nn.sparse_sigmoid, 1.0, 0.25),
    (fg.nn.soft_sign, 0.0, 1.0), (fg.nn.mish, 0.0, 0.6), (fg.nn.squareplus, 0.0, 0.5),
    (fg.sign, 0.0, 0.0), (fg.floor, 0.5, 0.0), (fg.ceil, 0.5, 0.0), (fg.round, 0.5, 0.0), (fg.trunc, 0.5, 0.0),
    (fg.sinc, 0.0, 0.0), (fg.cbrt, 0.0, math.inf),
    (lambda x: fg.clip(x, 0.0, 1.0), 0.0, 0.5), (lambda x: fg.clip(x, 0.0, 1.0), 1.0, 0.5),
    (fg.erfinv, 0.0, math.sqrt(math.pi) / 2),
]


@pytest.mark.parametrize("fn, x, want", KINKS, ids=[f"{i}" for i in range(len(KINKS))])
def test_derivatives_at_kinks_are_jax_s(fn, x, want):
    assert grad_at(fn, x) == pytest.approx(want, rel=1e-6)


def test_sinc_second_derivative_at_zero():
    assert grad_at(fg.grad(fg.sinc), 0.0) == pytest.approx(-math.pi**2 / 3, rel=1e-6)


@pytest.mark.parametrize("x, y, want", [
    (0.0, 0.0, (0.5, 0.5)), (3.0, 3.0, (0.5, 0.5)), (math.inf, math.inf, (1.0, 1.0)),
    (math.inf, 0.0, (1.0, 1.0)), (-math.inf, 0.0, (0.0, 1.0)), (-math.inf, -math.inf, (math.nan, math.nan)),
])
def test_logaddexp_derivatives_at_ties_and_infinities(x, y, want):
    got = fg.grad(fg.logaddexp, argnums=(0, 1))(np.float32(x), np.float32(y))
    np.testing.assert_allclose(np.array(got, np.float64), want, rtol=1e-6)


@pytest.mark.parametrize("fn, args, want", [
    (fg.remainder, (7.5, 2.0), (1.0, -3.0)), (fg.fmod, (-7.5, 2.0), (1.0, 3.0)),
    (fg.floor_divide, (7.5, 2.0), (0.0, 0.0)), (fg.copysign, (-2.0, 1.0), (-1.0, 0.0)),
    (fg.hypot, (0.0, 0.0), (0.5, 0.5)),
])
def test_binary_derivatives_are_jax_s(fn, args, want):
    got = fg.grad(fn, argnums=(0, 1))(*map(np.float32, args))
    np.testing.assert_allclose(np.array(got, np.float64), want, rtol=1e-6)


@pytest.mark.parametrize("fn, args, dtype", [
    (fg.floor, (np.int32([1, -2]),), "int32"), (fg.ceil, (np.uint32([3]),), "uint32"),
    (fg.floor, (np.array([True]),), "bool"), (fg.trunc, (np.int32([5]),), "int32"),
    (fg.round, (np.int32([5]),), "int32"), (fg.sign, (np.uint32([0, 4]),), "uint32"),
    (fg.log1p, (np.int32([1]),), "float32"), (fg.erfinv, (np.array([False]),), "float32"),
    (fg.arctan2, (np.int32([1]), np.int32([2])), "float32"), (fg.copysign, (np.int32([1]), np.int32([-2])), "float32"),
    (fg.floor_divide, (np.int32([7]), 2.0), "float32"),
    (fg.floor_divide, (np.array([True]), np.array([True])), "int32"),
    (fg.remainder, (np.uint32([7]), 3), "uint32"), (fg.fmod, (np.int32([7]), 2.5), "float32"),
    (fg.power, (np.int32([3]), np.int32([2])), "int32"), (fg.square, (np.array([True]),), "int32"),
    (fg.reciprocal, (np.int32([4]),), "float32"), (fg.positive, (np.array([True]),), "bool"),
    (fg.nan_to_num, (np.int32([3]),), "int32"), (fg.isclose, (np.int32([1]), np.int32([1])), "bool"),
    (fg.logical_xor, (np.int32([0, 2]), np.float32([1, 0])), "bool"), (fg.signbit, (np.int32([-1]),), "bool"),
    (fg.nn.relu6, (np.int32([7]),), "float32"), (fg.nn.hard_tanh, (np.int32([7]),), "int32"),
])
def test_result_dtypes_are_jax_numpy_s(fn, args, dtype):
    assert np.asarray(fn(*args)).dtype == np.dtype(dtype)


def test_integer_power_wraps_as_jax_numpy():
    x, y = np.int32([2, -3, 0, 0, 5, 2, 7]), np.int32([3, 3, 0, 2, -1, 40, 70])
    np.testing.assert_array_equal(fg.power(x, y), [8, -27, 1, 0, 1501274061, 0, 117649])


def test_where_with_one_argument_is_refused_naming_nonzero():
    c = np.array([True, False])
    with pytest.raises(fg.TraceError, match=r"where\(condition\) with one argument is nonzero.*size="):
        fg.trace(lambda c: fg.where(c), c)
    with pytest.raises(fg.TraceError, match="x and y must both be given"):
        fg.where(c, 1.0)
    with pytest.raises(fg.TraceError, match="size and fill_value"):
        fg.where(c, 1.0, 2.0, size=2)


def test_clip_takes_keyword_bounds_and_none():
    x = np.float32([-2, 0.5, 3])
    np.testing.assert_array_equal(fg.clip(x, min=0), [0, 0.5, 3])
    np.testing.assert_array_equal(fg.clip(x, max=1), [-2, 0.5, 1])
    np.testing.assert_array_equal(fg.clip(x), x)
    np.testing.assert_array_equal(fg.clip(x, 1, 0), [0, 0, 0])  # min > max: max, as jax.numpy
    with pytest.raises(TypeError):
        fg.clip(arr=x, min=0)  # positional-only, as jax.numpy's


@pytest.mark.parametrize("call, error, match", [
    (lambda: fg.round(np.array([True])), fg.DTypeError, "round: bool"),
    (lambda: fg.round(np.int32([5]), -1), fg.DTypeError, "decimals=-1"),
    (lambda: fg.round(np.float32([5]), 1.5), fg.TraceError, "decimals must be a static integer"),
    (lambda: fg.sign(np.array([True])), fg.DTypeError, "sign: bool"),
    (lambda: fg.nn.glu(np.zeros((2, 3), np.float32)), fg.ShapeError, "glu: axis -1 of \\(2, 3\\) has odd length 3"),
    (lambda: fg.nn.standardize(np.ones(3, np.float32), where=np.ones(3, bool)), fg.TraceError, "where= is not"),
    (lambda: fg.nn.standardize(np.ones(3, np.float32), algorithm="slow"), fg.TraceError, "unknown algorithm"),
])
def test_refused_forms_name_the_function(call, error, match):
    with pytest.raises(error, match=match):
        call()
