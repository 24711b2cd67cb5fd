"""NaN, infinities, signed zeros, integer extremes and bools: compiled WGSL against `interpret`
(NumPy's semantics) and against values jax.numpy gives, worked out by hand.

Shader compilers may reassociate float arithmetic, contract multiply-adds and assume
no NaN, so each case runs through fused chains and through the kernel skeletons that
fold rows: one invocation per result, a workgroup per result (rows of 128 values and
more), rows fused with their elementwise consumers, and two-pass column reductions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fgrad as fg
from fgrad.lower import lower
from fgrad.runtime import default_device

NAN, INF = np.float32(np.nan), np.float32(np.inf)
RNG = np.random.default_rng(99)
I32_MIN, I32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def both(graph: fg.Graph, *args: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The single output of `graph` by `interpret` and compiled."""
    return np.asarray(fg.interpret(graph, *args)), np.asarray(fg.compile(graph)(*args))


def check(fn, *args: np.ndarray, want=None, rtol: float = 0.0, atol: float = 0.0) -> np.ndarray:
    """`fn` traced on `args`: compiled equals interpret (NaN where NaN; bit for bit unless
    `rtol` or `atol` allow rounding), and both equal `want` where given. Returns the compiled value."""
    expected, got = both(fg.trace(fn, *args), *args)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    if want is not None:
        np.testing.assert_array_equal(expected, np.asarray(want, expected.dtype))
    return got


def normal(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape).astype(np.float32)


def with_nans(x: np.ndarray, *where: tuple[int, ...]) -> np.ndarray:
    x = x.copy()
    for k in where:
        x[k] = NAN
    return x


# ---------------------------------------------------------------------------
# A value compared with its own max must be the value the max folded
# ---------------------------------------------------------------------------

# A kernel that computes a value twice, once for a max and once to compare with it, may
# round the copies apart: llvmpipe folds x + y - x into y in one of them. Rows of one
# value do it (the copy the max folds sits outside the kernel's loops); the other shapes
# keep every kind of kernel honest.
def _recomputed(x, y):
    return x + y - x - 0.237


def _pair(*shape: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    return (rng.normal(size=shape) * 3).astype(np.float32), rng.normal(size=shape).astype(np.float32)


ROWS = [(5, 1), (2, 3, 1), (3, 5), (2, 200), (300,)]
ROW_IDS = ["rows-of-one", "3d-rows-of-one", "rows", "cooperative-rows", "one-row"]


def test_gradient_of_max_of_a_recomputed_value():
    a, b = np.float32([1.9408394]), np.float32([0.50314617])
    graph = fg.grad(fg.trace(lambda x, y: fg.max(_recomputed(x, y)), fg.spec(1), fg.spec(1)), argnums=1)
    want, got = both(graph, a, b)
    np.testing.assert_array_equal(want, [1.0])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", ROWS, ids=ROW_IDS)
@pytest.mark.parametrize("which", ["max", "min"])
def test_gradient_of_row_extremes_of_recomputed_values(shape, which):
    x, y = _pair(*shape)
    reduce = getattr(fg, which)
    graph = fg.grad(fg.trace(lambda x, y: fg.sum(reduce(_recomputed(x, y), axis=-1) * 2.0), x, y), argnums=1)
    want, got = both(graph, x, y)
    np.testing.assert_array_equal(np.sum(want, axis=-1), np.full(shape[:-1], 2.0, np.float32))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(5, 1), (3, 5), (2, 200)], ids=["rows-of-one", "rows", "cooperative-rows"])
def test_a_row_max_and_its_comparisons_read_one_computation(shape):
    """Whatever the compiler does: the max's operand gets a kernel of its own."""
    graph = fg.grad(fg.trace(lambda x, y: fg.sum(fg.max(_recomputed(x, y), axis=-1)), fg.spec(shape), fg.spec(shape)),
                    argnums=1)
    program = lower(graph)
    (m,) = [i for i, n in enumerate(program.graph.nodes) if n.op == "max"]
    v = program.graph.nodes[m].inputs[0]
    computing = [k for k in program.kernels if v in k.nodes]
    assert len(computing) == 1 and v in computing[0].roots, [(k.name, k.nodes, k.roots) for k in program.kernels]


@pytest.mark.parametrize("width", [1, 6, 160])
def test_mask_of_row_maxima_of_a_recomputed_value(width):
    x, y = _pair(4, width)

    def mask(x, y):
        v = _recomputed(x, y)
        return fg.where(v == fg.max(v, axis=-1, keepdims=True), 1.0, 0.0) + 0.0 * v

    got = check(mask, x, y)
    np.testing.assert_array_equal(got.sum(-1), np.ones(4))


@pytest.mark.parametrize("width", [1, 5, 130])
def test_shift_by_the_row_max_of_a_recomputed_value_is_zero_at_the_max(width):
    x, y = _pair(3, width)

    def shifted(x, y):
        v = _recomputed(x, y) * 1.5
        return v - fg.max(v, axis=-1, keepdims=True)

    # Elsewhere the compiler may round v apart by an ulp or two, and v - max cancels: the
    # difference is off by ulps of v, not of itself.
    v = (x + y - x - np.float32(0.237)) * np.float32(1.5)
    got = check(shifted, x, y, atol=4 * float(np.spacing(np.abs(v).max())))
    np.testing.assert_array_equal(got.max(-1), np.zeros(3, np.float32))


def test_argmax_of_a_recomputed_value():
    x, y = _pair(5, 7)
    check(lambda x, y: fg.argmax(_recomputed(x, y), axis=-1), x, y, want=np.argmax(x + y - x - np.float32(0.237), -1))


@pytest.mark.parametrize("width", [1, 6])
def test_maximum_against_its_own_row_max_splits_ties(width):
    x, y = _pair(3, width)

    def loss(x, y):
        v = _recomputed(x, y)
        return fg.sum(fg.maximum(v, fg.max(v, axis=-1, keepdims=True)) * 3.0)

    graph = fg.grad(fg.trace(loss, x, y), argnums=1)
    want, got = both(graph, x, y)
    # every element of a row is the max; all of the row's gradient reaches its max element
    # (half a share through maximum's tie there, the rest back through the max)
    np.testing.assert_array_equal(np.sort(want, -1)[:, -1], np.full(3, 3.0 * width, np.float32))
    np.testing.assert_array_equal(np.count_nonzero(want, -1), np.ones(3))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("pick", ["maximum", "minimum"])
def test_maximum_and_minimum_gradients_split_ties_evenly(pick):
    x = np.float32([1.0, 2.0, -3.0, 0.5])
    y = np.float32([1.0, 1.0, -3.0, 4.0])
    graph = fg.grad(fg.trace(lambda x, y: fg.sum(getattr(fg, pick)(x, y)), x, y), argnums=(0, 1))
    gx, gy = fg.interpret(graph, x, y)
    cx, cy = (np.asarray(a) for a in fg.compile(graph)(x, y))
    larger = x > y if pick == "maximum" else x < y
    np.testing.assert_array_equal(gx, np.where(x == y, 0.5, np.where(larger, 1.0, 0.0)))
    np.testing.assert_array_equal(gx + gy, np.ones(4, np.float32))
    np.testing.assert_array_equal(cx, gx)
    np.testing.assert_array_equal(cy, gy)


@pytest.mark.parametrize("pick", ["maximum", "minimum"])
def test_maximum_and_minimum_give_no_gradient_where_the_result_is_nan(pick):
    # jax.grad of jnp.maximum: each operand's share is where it equals the result, and
    # nothing equals NaN, so both get 0 there
    x = np.float32([NAN, 1.0, NAN, 2.0])
    y = np.float32([1.0, NAN, NAN, 2.0])
    graph = fg.grad(fg.trace(lambda x, y: fg.sum(getattr(fg, pick)(x, y) * 3.0), x, y), argnums=(0, 1))
    gx, gy = fg.interpret(graph, x, y)
    np.testing.assert_array_equal(gx, [0.0, 0.0, 0.0, 1.5])
    np.testing.assert_array_equal(gy, [0.0, 0.0, 0.0, 1.5])
    cx, cy = (np.asarray(a) for a in fg.compile(graph)(x, y))
    np.testing.assert_array_equal(cx, gx)
    np.testing.assert_array_equal(cy, gy)


# ---------------------------------------------------------------------------
# NaN propagates through max, min, maximum, minimum, relu, clip and tanh
# ---------------------------------------------------------------------------


def test_nan_through_tanh_and_the_float_tests():
    x = np.float32([NAN, -INF, INF, -100.0, 0.25, 100.0])
    got = check(fg.tanh, x, rtol=1e-6)  # tanh's clamp must not turn NaN into -1
    np.testing.assert_array_equal(got[[0, 1, 2, 3, 5]], [NAN, -1.0, 1.0, -1.0, 1.0])
    check(lambda x: fg.tanh(x * 0.5 + 1.0), x, rtol=1e-6)
    check(fg.isnan, x, want=np.isnan(x))
    check(fg.isinf, x, want=np.isinf(x))
    check(fg.isfinite, x, want=np.isfinite(x))
    check(lambda x: fg.isnan(x * 2.0 - 1.0), x, want=np.isnan(x))
    ints = np.int32([0, -1, I32_MAX])
    check(fg.isnan, ints, want=[False] * 3)
    check(fg.isfinite, ints, want=[True] * 3)


def test_max_and_min_of_a_nan_are_nan():
    x = np.float32([1.0, NAN, 3.0])
    check(fg.max, x, want=NAN)  # jnp.max([1, nan, 3]) is nan
    check(fg.min, x, want=NAN)
    check(lambda x: fg.max(x * 2.0 + 1.0), x, want=NAN)


@pytest.mark.parametrize("shape, nans", [
    ((4, 7), [(0, 0), (1, 6), (2, 3)]),  # one invocation per row
    ((3, 300), [(0, 0), (0, 299), (2, 150)]),  # a workgroup per row
    ((512, 3), [(0, 0), (511, 1), (200, 1)]),  # over leading axes: two passes
], ids=["rows", "cooperative", "two-pass-columns"])
@pytest.mark.parametrize("which", ["max", "min"])
def test_nan_in_reductions(shape, nans, which):
    x = with_nans(normal(*shape), *nans)
    axis = 0 if shape[0] == 512 else -1
    got = check(lambda x: getattr(fg, which)(x * 0.5 - 1.0, axis=axis), x)
    rows_with_nan = np.isnan(x).any(axis=axis)
    np.testing.assert_array_equal(np.isnan(got), rows_with_nan)
    assert rows_with_nan.any() and not rows_with_nan.all()


def test_nan_in_a_row_max_fused_with_its_row():
    x = with_nans(normal(3, 200), (0, 5), (2, 199))
    got = check(lambda x: x * 2.0 - fg.max(x * 2.0, axis=-1, keepdims=True), x)
    np.testing.assert_array_equal(np.isnan(got).all(-1), [True, False, True])


@pytest.mark.parametrize("pick", ["maximum", "minimum"])
def test_nan_in_maximum_and_minimum(pick):
    x = np.float32([NAN, 1.0, NAN, -INF, 2.0, INF, 0.0])
    y = np.float32([1.0, NAN, NAN, NAN, -1.0, NAN, -0.0])
    got = check(getattr(fg, pick), x, y)
    np.testing.assert_array_equal(np.isnan(got), [True] * 4 + [False, True, False])
    # in a fused chain, with a broadcast scalar
    check(lambda x, y: getattr(fg, pick)(x * 3.0 + 1.0, y - 2.0) * 0.5, x, y)
    check(lambda x: getattr(fg, pick)(x, 0.5), x)


def test_nan_in_a_matmul_epilogue():
    x, w = np.ones((64, 64), np.float32), np.full((64, 64), -1.0, np.float32)
    x[3, 5] = NAN
    got = check(lambda x, w: fg.relu(x @ w + 1.0), x, w)
    np.testing.assert_array_equal(np.isnan(got).any(-1), np.arange(64) == 3)


def test_nan_in_relu_and_clip():
    x = np.float32([NAN, -1.0, 2.0, -INF, INF, 0.5])
    check(fg.relu, x, want=[NAN, 0.0, 2.0, 0.0, INF, 0.5])  # jax.nn.relu(nan) is nan
    check(lambda x: fg.relu(x * 2.0 - 1.0), x)
    check(lambda x: fg.clip(x, -0.5, 1.0), x, want=[NAN, -0.5, 1.0, -0.5, 1.0, 0.5])
    check(lambda x: fg.clip(x, None, 0.0), x, want=[NAN, -1.0, 0.0, -INF, 0.0, 0.0])
    check(lambda x: fg.clip(x, 0.0), x, want=[NAN, 0.0, 2.0, 0.0, INF, 0.5])
    # a NaN bound gives NaN too, as np.clip / jnp.clip
    check(lambda x: fg.clip(x, np.float32(NAN), 1.0), x, want=[NAN] * 6)


def test_clip_with_a_none_bound_is_one_sided():
    x = np.float32([-2.0, 0.5, 3.0])
    np.testing.assert_array_equal(fg.clip(x, None, 1.0), [-2.0, 0.5, 1.0])
    np.testing.assert_array_equal(fg.clip(x, max=1.0), [-2.0, 0.5, 1.0])
    np.testing.assert_array_equal(fg.clip(x, 0.0, None), [0.0, 0.5, 3.0])
    check(lambda x: fg.clip(x, None, 1), x, want=[-2.0, 0.5, 1.0])
    # jnp.clip with neither bound returns its input
    np.testing.assert_array_equal(fg.interpret(fg.trace(lambda x: fg.clip(x), x), x), x)
    grad = fg.grad(fg.trace(lambda x: fg.sum(fg.clip(x, None, 1.0)), x))
    np.testing.assert_array_equal(np.asarray(fg.compile(grad)(x)), [1.0, 1.0, 0.0])


# ---------------------------------------------------------------------------
# A 0 the shader compiler sees, and one value on both sides
# ---------------------------------------------------------------------------

# Shader compilers may fold x * 0, 0 / x, x / inf, x - x and x + -x to 0, x / x to 1 and 0 - x to
# -x, merge a select between the literals +0 and -0 or make a select of -0 and 1 a bool-to-float
# conversion, and take x / 0 as undefined, leaving the output's buffer as it was: each case runs after a
# kernel that filled the pool's buffers with 7s, and must give IEEE's NaN, infinities and signed
# zeros.
SEEN = {
    "x*0": lambda x: x * 0.0, "0*x": lambda x: 0.0 * x, "x*-0": lambda x: x * -0.0,
    "zeros_like*x": lambda x: fg.zeros_like(x) * x, "x/0": lambda x: x / 0.0, "x/-0": lambda x: x / -0.0,
    "0/x": lambda x: 0.0 / x, "-0/x": lambda x: -0.0 / x, "x-x": lambda x: x - x, "x+-x": lambda x: x + -x,
    "-x+x": lambda x: -x + x, "2x-2x": lambda x: 2.0 * x - 2.0 * x, "rows/0": lambda x: fg.sum(x * x, -1) / 0.0,
    "x/inf": lambda x: x / INF, "x/-inf": lambda x: x / -INF, "x/x": lambda x: x / x, "0-x": lambda x: 0.0 - x,
    "copysign(0,x)": lambda x: fg.numpy.copysign(0.0, x), "copysign(-0,x)": lambda x: fg.numpy.copysign(-0.0, x),
    "where(0,-0)": lambda x: fg.where(x > 0, 0.0, -0.0), "where(1,-0)": lambda x: fg.where(x > 0, 1.0, -0.0),
    "where(-0,x)": lambda x: fg.where(x > 0, -0.0, x),
}


# NOTE: NVIDIA's compiler takes a module's float constants +0 and -0 as one (WGSL cannot ask SPIR-V
# for SignedZeroInfNanPreserve), even where a select between them is written on their bits.
ON_NVIDIA = "NVIDIA" in default_device().name
SIGN_OF_A_CONSTANT_ZERO = pytest.mark.xfail(ON_NVIDIA, reason="NVIDIA's compiler merges the constants +0 and -0",
                                            strict=True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", [pytest.param(c, marks=SIGN_OF_A_CONSTANT_ZERO) if c in ("where(0,-0)", "where(1,-0)")
                                  else c for c in SEEN])
@pytest.mark.parametrize("shape", [(24,), (3, 8)], ids=["vector", "matrix"])
def test_a_zero_or_one_value_the_compiler_sees_keeps_ieee_results(case, shape):
    x = np.resize(SPECIAL, shape)
    fg.jit(lambda v: v * 1.5 + 7.0)(x)  # the pool's buffers now hold 7s
    graph = fg.trace(SEEN[case], x)
    want, got = both(graph, x)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(want, SEEN[case](x))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)])
    np.testing.assert_array_equal(np.signbit(got)[~np.isnan(want)], np.signbit(want)[~np.isnan(want)])


# ---------------------------------------------------------------------------
# pow: C's special cases, as NumPy and JAX
# ---------------------------------------------------------------------------

# interpret runs np.power, which warns where C's pow divides by zero or overflows
pow_warnings = pytest.mark.filterwarnings("ignore:.*encountered in power:RuntimeWarning")

SPECIAL = np.float32([NAN, -INF, INF, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 0.3, -0.3, 1e30,
                      -1e30, 1e-30, 2.0**25, 2.0**25 + 2, 1 / 3, 10.0, 4.5, -7.0])


@pow_warnings
def test_pow_on_every_pair_of_special_values():
    x, y = (a.ravel() for a in np.meshgrid(SPECIAL, SPECIAL, indexing="ij"))
    graph = fg.trace(fg.pow, x, y)
    assert [n.op for n in graph.nodes if n.op not in ("input",)] == ["pow"]
    want, got = both(graph, x, y)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(want, np.power(x, y))
    tiny = np.abs(want) < np.finfo(np.float32).tiny  # subnormal results: an adapter may flush them to zero
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.signbit(got)[~np.isnan(want) & ~tiny], np.signbit(want)[~np.isnan(want) & ~tiny])
    # pow_positive_f32's accuracy: exp2's 3 ulp, and log(m)'s 2.6 ulp scaled by |y log2(m)| <= |y| / 2.
    with np.errstate(all="ignore"):
        rtol = (4 + 1.5 * np.abs(y.astype(np.float64))) * 2.0**-23
        close = (got == want) | (np.abs(got - want) <= rtol * np.abs(want))  # exact where the bound is NaN (NaN ** 0)
    finite = ~tiny & np.isfinite(want) & (want != 0)
    assert close[finite].all(), list(zip(x[finite & ~close], y[finite & ~close], got[finite & ~close]))
    np.testing.assert_array_equal(got[~finite & ~tiny], want[~finite & ~tiny])  # infinities and zeros exact


@pow_warnings
@pytest.mark.parametrize("exponent", [0.5, -0.5, 2.5, -1.5])
def test_pow_of_negative_zero_and_infinity_by_one_exponent_is_cs(exponent):
    # NumPy's float32 loops take another route for a single exponent (sqrt's for 0.5): C's pow
    # (JAX's) keeps the sign of -0.0 and -inf only for odd integral exponents.
    x = np.float32([-INF, -0.0, INF, 0.0, 4.0])
    want = np.float32([math.pow(float(v), exponent) if v != 0 or exponent > 0 else math.inf for v in x])
    for y in (np.float32(exponent), np.full(5, exponent, np.float32)):
        got = both(fg.trace(fg.pow, x, y), x, y)
        for out in got:
            np.testing.assert_array_equal(out, want)
            np.testing.assert_array_equal(np.signbit(out), np.signbit(want))


@pow_warnings
def test_pow_special_cases_as_jax():
    x = np.float32([-2.0, -2.0, INF, -INF, NAN, -INF, 0.0, 0.0, -0.0, -0.0, 1.0, -1.0, -2.0, 0.0])
    y = np.float32([3.0, 2.0, 0.0, 0.0, 0.0, 0.3, -1.0, 0.0, -3.0, 3.0, NAN, INF, 0.5, 0.3])
    check(lambda x, y: fg.pow(x, y), x, y,
          want=[-8.0, 4.0, 1.0, 1.0, 1.0, INF, INF, 1.0, -INF, -0.0, 1.0, 1.0, NAN, 0.0])
    check(lambda x, y: fg.pow(x * 2.0, y) - 1.0, x, y,  # fused
          want=[-65.0, 15.0, 0.0, 0.0, 0.0, INF, INF, 0.0, -INF, -1.0, NAN, INF, NAN, -1.0])
    # a static exponent: integer_pow, where x ** 0 is 1 for every x
    check(lambda x: x**0 + x**0.0, x, want=np.full(14, 2.0))


def test_traced_integral_exponent_of_a_negative_base():
    n = np.float32([0.0, 1.0, 2.0, 3.0, -1.0, -2.0])
    check(lambda n: (-2.0) ** n, n, want=[1.0, -2.0, 4.0, -8.0, -0.5, 0.25])


@pow_warnings
def test_pow_gradient_at_zero_follows_jax():
    # d/dx x^0.3 = 0.3 x^-0.7: inf at 0, as jax.grad(lambda x: x ** 0.3)(0.) is; d/dy 0^y = 0
    x = np.float32([0.0, 1.0, 4.0])
    y = np.float32([0.3, 0.3, 0.0])
    graph = fg.grad(fg.trace(lambda x, y: fg.sum(fg.pow(x, y)), x, y), argnums=(0, 1))
    dx, dy = fg.interpret(graph, x, y)
    np.testing.assert_allclose(dx, [INF, 0.3, 0.0], rtol=1e-6)
    np.testing.assert_allclose(dy, [0.0, 0.0, np.log(4.0)], rtol=1e-6)
    cx, cy = (np.asarray(a) for a in fg.compile(graph)(x, y))
    np.testing.assert_allclose(cx, dx, rtol=1e-6)
    np.testing.assert_allclose(cy, dy, rtol=1e-6)


# ---------------------------------------------------------------------------
# logsumexp of masked rows
# ---------------------------------------------------------------------------


def test_logsumexp_of_rows_of_infinities_and_nan():
    x = np.float32([[-INF, -INF, -INF], [0.0, -INF, 1.0], [INF, 0.0, 1.0], [1.0, NAN, 2.0]])
    want = [-INF, np.log(1 + np.e), INF, NAN]  # jax.nn.logsumexp
    got = check(lambda x: fg.logsumexp(x, axis=-1), x, rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got = check(lambda x: fg.logsumexp(x[:, :, None] * 2.0, axis=(1, 2)), x, rtol=1e-6)  # several axes, fused
    np.testing.assert_allclose(got, [-INF, np.log(1 + np.e**2), INF, NAN], rtol=1e-6)


@pytest.mark.parametrize("width", [3, 200])
def test_logsumexp_gradient_of_a_fully_masked_row_is_zero(width):
    x = normal(3, width)
    x[1] = -INF
    graph = fg.grad(fg.trace(lambda x: fg.sum(fg.logsumexp(x, axis=-1)), x))
    want, got = both(graph, x)
    e = np.exp(x.astype(np.float64))
    with np.errstate(invalid="ignore"):
        softmax = e / e.sum(-1, keepdims=True)
    softmax[1] = 0.0  # jax.grad gives NaN here (jax-ml/jax#6811); no value moves the result
    np.testing.assert_allclose(want, softmax, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------
# Integer and bool extremes
# ---------------------------------------------------------------------------


def test_integer_min_and_max_reach_the_extremes():
    x = np.int32([0, I32_MIN])
    check(fg.min, x, want=I32_MIN)
    check(fg.max, x, want=0)
    x = np.int32([[5, I32_MAX, -3], [I32_MIN, 7, I32_MIN + 1]])
    check(lambda x: fg.min(x, axis=1), x, want=[-3, I32_MIN])
    check(lambda x: fg.max(x, axis=1), x, want=[I32_MAX, 7])
    check(lambda x: fg.min(x, axis=0), x, want=[I32_MIN, 7, I32_MIN + 1])


@pytest.mark.parametrize("which", ["min", "max"])
def test_integer_extremes_of_long_rows_and_columns(which):
    x = RNG.integers(-1000, 1000, (2, 300)).astype(np.int32)
    x[0, 17], x[1, 299] = I32_MIN, I32_MAX
    ref = getattr(np, which)
    check(lambda x: getattr(fg, which)(x, axis=-1), x, want=ref(x, -1))
    check(lambda x: getattr(fg, which)(x, axis=0), x.T.copy(), want=ref(x, -1))
    columns = np.tile(x, (2, 1)).T.copy()  # (300, 4): over leading axes, in two passes
    check(lambda x: getattr(fg, which)(x, axis=0), columns, want=ref(columns, 0))


def test_bool_maximum_minimum_max_min_are_bool():
    p = np.array([True, False, True, False])
    q = np.array([True, True, False, False])
    assert fg.trace(fg.maximum, p, q).out_specs[0].dtype is fg.DType.bool
    check(fg.maximum, p, q, want=p | q)
    check(fg.minimum, p, q, want=p & q)
    m = np.array([[True, False, False], [False, False, False], [True, True, True]])
    check(lambda m: fg.max(m, axis=1), m, want=[True, False, True])
    check(lambda m: fg.min(m, axis=1), m, want=[False, False, True])
    check(lambda m: fg.max(m, axis=0), m, want=[True, True, True])
    # integers and bools promote to integers, as NumPy
    check(lambda p, i: fg.maximum(p, i), p, np.int32([0, 2, -1, 0]), want=[1, 2, 1, 0])


def test_bool_reductions_of_long_rows():
    m = np.zeros((3, 300), bool)
    m[0, 299] = True
    m[2] = True
    check(lambda m: fg.max(m, axis=1), m, want=[True, False, True])
    check(lambda m: fg.min(m, axis=1), m, want=[False, False, True])
    check(lambda m: fg.max(m, axis=0), m.T.copy(), want=[True, False, True])


# ---------------------------------------------------------------------------
# Float to integer conversion saturates, as XLA's convert
# ---------------------------------------------------------------------------

# jnp.asarray(x).astype(jnp.int32): truncation toward zero, clamped to the i32 range, NaN 0.
TO_I32 = np.float32([NAN, INF, -INF, 3e9, -3e9, 2.0**31, -(2.0**31), 2147483520.0, 1e30, -2.7, 2.7, -0.0])
TO_I32_WANT = [0, I32_MAX, I32_MIN, I32_MAX, I32_MIN, I32_MAX, I32_MIN, 2147483520, I32_MAX, -2, 2, 0]


def test_float_to_int_saturates_and_maps_nan_to_zero():
    check(lambda x: fg.astype(x, "i32"), TO_I32, want=TO_I32_WANT)
    # fused: a compiler must not fold the round trip into trunc(x), which keeps NaN and inf
    # (every converted value is finite, so subtracting inf gives -inf everywhere)
    check(lambda x: fg.astype(fg.astype(x * 2.0, "i32"), "f32") - INF, TO_I32, want=np.full(12, -INF))
    check(lambda x: fg.astype(fg.astype(x * 2.0, "i32"), "f32"), TO_I32,
          want=[0, 2.0**31, -(2.0**31), 2.0**31, -(2.0**31), 2.0**31, -(2.0**31), 2.0**31, 2.0**31, -5, 5, 0])
    # constants and eager values convert the same way
    check(lambda x: x + fg.astype(TO_I32, "i32"), np.int32(0), want=TO_I32_WANT)
    np.testing.assert_array_equal(fg.astype(TO_I32, "i32"), TO_I32_WANT)


# ---------------------------------------------------------------------------
# Gradients at kinks and with non-finite cotangents, as jax.grad
# ---------------------------------------------------------------------------


def test_abs_gradient_at_zero_and_nan_follows_jax():
    # jax's rule is select(x >= 0, g, -g): +1 at 0 and -0, -1 at NaN
    x = np.float32([0.0, -0.0, NAN, 2.0, -3.0, INF, -INF])
    graph = fg.grad(fg.trace(lambda x: fg.sum(fg.abs(x) * 2.0), x))
    want, got = both(graph, x)
    np.testing.assert_array_equal(want, [2.0, 2.0, -2.0, 2.0, -2.0, 2.0, -2.0])
    np.testing.assert_array_equal(got, want)


@pytest.mark.filterwarnings("ignore:invalid value encountered in multiply:RuntimeWarning")
@pytest.mark.parametrize("pick", ["maximum", "minimum"])
def test_maximum_and_minimum_scale_the_cotangent_by_their_share(pick):
    # jax: g * share, share 1, 1/2 or 0; an infinite or NaN cotangent times a share of 0 is NaN
    x = np.float32([2.0, -2.0, 1.0, NAN])
    y = np.float32([0.0, 0.0, 1.0, 0.0])
    g = np.float32([INF, NAN, INF, 1.0])
    graph = fg.vjp(fg.trace(getattr(fg, pick), x, y))
    _, (gx, gy) = fg.interpret(graph, x, y, g)
    chosen = [0, 1] if pick == "maximum" else [1, 0]  # which of x, y each of the first two picks
    want_x = [INF if chosen[0] == 0 else NAN, NAN, INF, 0.0]
    want_y = [NAN if chosen[0] == 0 else INF, NAN, INF, 0.0]
    np.testing.assert_array_equal(gx, want_x)
    np.testing.assert_array_equal(gy, want_y)


# ---------------------------------------------------------------------------
# argmax, argmin and cumsum: NaN, infinities, signed zeros and i32 extremes in every skeleton
# ---------------------------------------------------------------------------

# As np.argmax / jnp.argmax: the first extreme; a NaN beats every number (the first NaN wins);
# 0.0 and -0.0 tie; a row of the start value (-inf for argmax) gives its first index.
ARG_ROWS = np.float32([[1, NAN, 3, NAN], [-INF, -INF, -INF, -INF], [INF, 2, INF, NAN], [-0.0, 0.0, -1, -1],
                       [INF, INF, -INF, -INF], [NAN, NAN, 1, 2]])
FIRST = {"argmax": [1, 0, 3, 0, 0, 0], "argmin": [1, 0, 3, 2, 2, 0]}
# Each value repeated: rows longer than a workgroup, ties spread over its invocations.
LAYOUTS = {"rows": 1, "long-rows": 75}


@pytest.mark.parametrize("repeat", LAYOUTS.values(), ids=LAYOUTS.keys())
@pytest.mark.parametrize("which", ["argmax", "argmin"])
def test_arg_extremes_of_special_values(which, repeat):
    x = np.repeat(ARG_ROWS, repeat, axis=1)
    want = np.asarray(FIRST[which]) * repeat
    check(lambda x: getattr(fg, which)(x, -1), x, want=want)
    check(lambda x: getattr(fg, which)(x, 0), np.ascontiguousarray(x.T), want=want)  # along the leading axis
    check(lambda x: getattr(fg, which)(x * 1.0, -1, keepdims=True), x, want=want[:, None])
    ints = np.int32([[I32_MIN, I32_MIN, I32_MIN], [I32_MAX, I32_MAX, I32_MIN], [5, I32_MAX, I32_MAX]])
    ints = np.repeat(ints, repeat, axis=1)
    check(lambda x: getattr(fg, which)(x, -1), ints,
          want=np.asarray({"argmax": [0, 0, 1], "argmin": [0, 2, 0]}[which]) * repeat)


def test_argmax_fused_into_the_kernel_of_its_rows():
    graph = fg.trace(lambda x: fg.one_hot(fg.argmax(x, -1), 4), ARG_ROWS)
    assert len(lower(graph).kernels) == 1  # the rows skeleton: the argmax folds cooperatively, then the row is written
    check(lambda x: fg.one_hot(fg.argmax(x, -1), 4), ARG_ROWS, want=np.eye(4, dtype=np.float32)[FIRST["argmax"]])


@pytest.mark.filterwarnings("ignore:invalid value encountered in accumulate:RuntimeWarning")
@pytest.mark.parametrize("width", [8, 300], ids=["rows", "scan"])
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_cumsum_of_special_values(width, reverse):
    """-0.0 sums stay -0.0 (as NumPy's, which start from the first value; jnp.cumsum's start
    from +0.0), inf - inf is NaN and NaN stays; an i32 sum wraps as NumPy's and XLA's do."""
    x = np.full((2, width), -0.0, np.float32)
    x[0, [width // 2, width - 2]] = [INF, -INF]
    x[1, width // 3] = NAN
    x = x[:, ::-1].copy() if reverse else x
    got = check(lambda x: fg.cumsum(x, -1, reverse=reverse), x,
                want=np.flip(np.cumsum(np.flip(x, -1), -1), -1) if reverse else np.cumsum(x, -1))
    quiet = got[:, width - width // 3:] if reverse else got[:, :width // 3]
    assert np.signbit(quiet).all() and (quiet == 0).all()
    ints = np.zeros((1, width), np.int32)
    ints[0, [1, width - 1]] = [I32_MAX, 1]
    ints = ints[:, ::-1].copy() if reverse else ints
    got = check(lambda x: fg.cumsum(x, -1, reverse=reverse), ints)
    assert I32_MIN in got and I32_MAX in got
