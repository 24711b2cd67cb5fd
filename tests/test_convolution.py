"""Convolutions and pools: JAX as the oracle over many configurations (values and gradients,
where jax is installed), the kernels a convolution lowers to, gradients on the device, errors.

The op-table rows (tests/op_rows/convolution.py) check every primitive against NumPy
references and finite differences; here the same functions meet jax.lax itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
from fgrad.lower import lower
from test_runtime import assert_matches

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

RNG = np.random.default_rng(7)


def normal(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape).astype(np.float32)


# (lhs shape, rhs shape, keyword arguments of conv_general_dilated)
CONVS = [
    ((2, 4, 7, 6), (6, 4, 3, 2), dict(window_strides=(1, 1), padding="VALID")),
    ((2, 4, 7, 6), (6, 4, 3, 2), dict(window_strides=(2, 1), padding="SAME")),
    ((2, 4, 7, 6), (6, 4, 3, 2), dict(window_strides=(1, 2), padding="SAME_LOWER", rhs_dilation=(2, 2))),
    ((2, 4, 7, 6), (6, 2, 3, 2), dict(window_strides=(2, 3), padding=((1, 2), (-1, 3)), lhs_dilation=(2, 1),
                                      rhs_dilation=(1, 2), feature_group_count=2)),
    ((2, 4, 7, 6), (8, 1, 3, 3), dict(window_strides=(1, 1), padding="SAME", feature_group_count=4)),
    ((1, 3, 8, 8), (4, 3, 2, 2), dict(window_strides=(3, 3), padding="VALID")),  # stride past the window
    ((4, 3, 5, 4), (6, 3, 2, 3), dict(window_strides=(1, 1), padding=((0, 1), (2, 0)), batch_group_count=2)),
    ((2, 8, 6, 5), (32, 8, 3, 3), dict(window_strides=(1, 1), padding="SAME")),  # implicit GEMM from here on
    ((2, 8, 9, 10), (32, 4, 3, 3), dict(window_strides=(2, 1), padding=((1, 2), (-1, 3)), lhs_dilation=(1, 2),
                                        rhs_dilation=(1, 2), feature_group_count=2)),
    ((4, 8, 5, 6), (32, 8, 2, 2), dict(window_strides=(1, 2), padding="SAME", batch_group_count=2)),
    ((2, 6, 5, 8), (3, 2, 8, 16), dict(window_strides=(1, 1), padding="SAME",
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    ((5, 2, 3), (2, 3, 4), dict(window_strides=(2,), padding=((1, 1),), dimension_numbers=("WCN", "IWO", "CNW"))),
    ((1, 2, 4, 3, 5), (3, 2, 2, 1, 3), dict(window_strides=(1, 2, 1), padding="SAME", rhs_dilation=(1, 1, 2))),
    ((2, 2, 9), (3, 2, 4), dict(window_strides=(2,), padding=((3, -2),), lhs_dilation=(3,))),
]


def _conv_id(config) -> str:
    lhs, rhs, kw = config
    return f"{lhs}x{rhs}-" + "-".join(f"{k}={v}" for k, v in kw.items()).replace(" ", "")


@pytest.mark.parametrize("config", CONVS, ids=[_conv_id(c) for c in CONVS])
def test_conv_general_dilated_and_its_gradients_equal_jax(config):
    jax = pytest.importorskip("jax")
    lhs_shape, rhs_shape, kw = config
    x, w = normal(*lhs_shape), normal(*rhs_shape)
    # NOTE: JAX's products in true f32, as fgrad's always are (it takes `precision` for JAX's
    # signature): on an NVIDIA GPU, JAX's default is TF32's, off by 1e-3 over a 72-term contraction.
    kw = dict(kw, precision=jax.lax.Precision.HIGHEST)
    out = jax.lax.conv_general_dilated(x, w, **kw)
    g = normal(*out.shape)
    want = [out, *jax.vjp(lambda x, w: jax.lax.conv_general_dilated(x, w, **kw), x, w)[1](g)]
    got = [fg.lax.conv_general_dilated(x, w, **kw),
           *fg.grad(lambda x, w: fg.sum(fg.lax.conv_general_dilated(x, w, **kw) * g), argnums=(0, 1))(x, w)]
    for a, b, what in zip(got, want, ("value", "d lhs", "d rhs")):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-4, atol=1e-4, err_msg=what)


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 0), (2, 1))])
@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose_equals_jax(padding, transpose_kernel):
    jax = pytest.importorskip("jax")
    x, w = normal(2, 5, 4, 3), normal(3, 2, 3, 3)
    for consistent in (False, True):
        kw = dict(rhs_dilation=(1, 2), transpose_kernel=transpose_kernel, use_consistent_padding=consistent)
        np.testing.assert_allclose(fg.lax.conv_transpose(x, w, (2, 3), padding, **kw),
                                   jax.lax.conv_transpose(x, w, (2, 3), padding, **kw), rtol=1e-5, atol=1e-5)


def test_convolve_and_correlate_equal_jax():
    jnp = pytest.importorskip("jax.numpy")
    for n, m in ((7, 3), (3, 7), (6, 4), (1, 5), (5, 5)):
        a, v = normal(n), normal(m)
        for mode in ("full", "same", "valid"):
            for fn, jfn in ((fg.convolve, jnp.convolve), (fg.correlate, jnp.correlate)):
                np.testing.assert_allclose(fn(a, v, mode), jfn(a, v, mode), rtol=1e-5, atol=1e-5,
                                           err_msg=f"{fn.__name__} {n} {m} {mode}")
    assert fg.convolve(np.arange(4), np.arange(3)).dtype == np.float32  # integers give floats, as jnp


WINDOWS = [  # (shape, init, monoid, window, strides, padding, base dilation, window dilation)
    ((3, 7, 5), 0.0, "add", (1, 2, 2), (1, 1, 2), "VALID", None, None),
    ((3, 7, 5), -np.inf, "max", (1, 3, 3), (1, 2, 2), "SAME", None, None),
    ((3, 7, 5), np.inf, "min", (2, 2, 1), (1, 1, 1), ((1, 0), (2, 1), (0, 0)), (1, 2, 1), (1, 1, 1)),
    ((7, 5), 0.0, "add", (2, 3), (2, 1), ((0, 1), (1, -1)), (1, 2), (2, 1)),
    ((6, 4), 1.5, "add", (3, 2), (1, 1), "SAME", None, None),
]


@pytest.mark.parametrize("config", WINDOWS, ids=[f"{c[2]}-{c[3]}-{c[5]}" for c in WINDOWS])
def test_reduce_window_and_its_gradient_equal_jax(config):
    jax = pytest.importorskip("jax")
    shape, init, monoid, *window = config
    x = RNG.integers(-3, 4, shape).astype(np.float32)  # ties: the gradient goes to each window's first extreme
    ours = {"add": fg.lax.add, "max": fg.lax.max, "min": fg.lax.min}[monoid]
    theirs = {"add": jax.lax.add, "max": jax.lax.max, "min": jax.lax.min}[monoid]
    out = jax.lax.reduce_window(x, init, theirs, *window)
    np.testing.assert_allclose(fg.lax.reduce_window(x, init, ours, *window), out)
    if init in (0.0, -np.inf, np.inf):  # jax differentiates the monoids' identities only
        g = normal(*out.shape)
        want = jax.vjp(lambda x: jax.lax.reduce_window(x, init, theirs, *window), x)[1](g)[0]
        got = fg.vjp(lambda x: fg.lax.reduce_window(x, init, ours, *window), x)[1](g)[0]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _flax_pool(jax, x, init, fn, window, strides, padding):
    """flax.linen.pool, as written there, on jax.lax."""
    lead = x.ndim - len(window) - 1
    strides = strides or (1,) * len(window)
    if not isinstance(padding, str):
        padding = ((0, 0),) * lead + tuple(padding) + ((0, 0),)
    return jax.lax.reduce_window(x, init, fn, (1,) * lead + window + (1,), (1,) * lead + strides + (1,), padding)


@pytest.mark.parametrize("padding", ["VALID", "SAME", ((1, 1), (0, 1))])
def test_pools_equal_flax(padding):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = RNG.integers(-2, 3, (2, 5, 6, 3)).astype(np.float32)
    for window, strides in (((2, 2), None), ((3, 2), (2, 1))):
        for ours, init, fn in ((fg.nn.max_pool, -jnp.inf, jax.lax.max), (fg.nn.min_pool, jnp.inf, jax.lax.min)):
            out = _flax_pool(jax, x, init, fn, window, strides, padding)
            g = normal(*out.shape)
            np.testing.assert_array_equal(ours(x, window, strides, padding), out)
            want = jax.vjp(lambda x: _flax_pool(jax, x, init, fn, window, strides, padding), x)[1](g)[0]
            np.testing.assert_allclose(fg.vjp(lambda x: ours(x, window, strides, padding), x)[1](g)[0], want,
                                       rtol=1e-6, atol=1e-6)
        total = _flax_pool(jax, x, 0.0, jax.lax.add, window, strides, padding)
        counts = _flax_pool(jax, jnp.ones((1, 5, 6, 1)), 0.0, jax.lax.add, window, strides, padding)
        np.testing.assert_allclose(fg.nn.avg_pool(x, window, strides, padding), total / np.prod(window), rtol=1e-6)
        np.testing.assert_allclose(fg.nn.avg_pool(x, window, strides, padding, count_include_pad=False),
                                   total / counts, rtol=1e-6)
        np.testing.assert_allclose(fg.nn.max_pool(x[0], window, strides, padding),
                                   _flax_pool(jax, x[0][None], -jnp.inf, jax.lax.max, window, strides, padding)[0])


# ---------------------------------------------------------------------------
# Kernels: the implicit GEMM, the direct kernel, both on the device with their gradients
# ---------------------------------------------------------------------------


def _conv(x, w):
    return fg.lax.conv_general_dilated(x, w, (1, 1), "SAME")


def test_a_typical_convolution_is_one_tiled_matmul_over_patches(golden):
    """(8, 32, 32, 32) * (64, 32, 3, 3): its patches are read in place by the tiled matmul's loads
    (k split in two, as for any matmul of too few tiles, then summed); the result, (images x
    positions, features) row-major, is then laid out as NCHW."""
    x, w = fg.spec((8, 32, 32, 32)), fg.spec((64, 32, 3, 3))
    program = lower(fg.trace(_conv, x, w))
    assert [k.name for k in program.kernels] == ["matmul", "sum", "transpose"]
    golden("conv_implicit_gemm", "\n".join(k.wgsl for k in program.kernels))
    # In NHWC with a bias and an activation, the sum joins the kernel computing them: no layout change.
    nhwc = lower(fg.trace(lambda x, w, b: fg.relu(fg.lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) + b), x, fg.spec((3, 3, 32, 64)),
        fg.spec(64)))
    assert [k.name for k in nhwc.kernels] == ["matmul", "sum_add_relu"]
    # The gradient: the input's is a convolution too (a tiled matmul); the kernel's a matmul over a
    # long k, split in parts and summed, then laid out as OIHW.
    step = lower(fg.grad(fg.trace(lambda x, w: fg.sum(_conv(x, w) ** 2), x, w), argnums=(0, 1)))
    assert [k.name for k in step.kernels].count("matmul") == 3
    assert not any(k.name.startswith("conv") for k in step.kernels)


def test_narrow_and_integer_convolutions_use_the_direct_kernel():
    """Depthwise (one input feature per group) and integer convolutions: a dot product per
    result. f16 ones are f32 matrix products converting the operands as they load them."""
    depthwise = lower(fg.trace(lambda x, w: fg.lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=64),
                               fg.spec((8, 64, 32, 32)), fg.spec((64, 1, 3, 3))))
    assert [k.name for k in depthwise.kernels] == ["conv_general_dilated"]
    ints = lower(fg.trace(_conv, fg.spec((8, 32, 32, 32), "i32"), fg.spec((64, 32, 3, 3), "i32")))
    assert [k.name for k in ints.kernels] == ["conv_general_dilated"]
    half = lower(fg.trace(_conv, fg.spec((8, 32, 32, 32), "f16"), fg.spec((64, 32, 3, 3), "f16")))
    assert [k.name for k in half.kernels] == ["astype_matmul", "sum_astype"]


DEVICE_CONVS = [c for c in CONVS if c[0] != (1, 2, 4, 3, 5)]


@pytest.mark.parametrize("config", DEVICE_CONVS, ids=[_conv_id(c) for c in DEVICE_CONVS])
def test_convolution_and_its_gradients_on_device(config):
    lhs_shape, rhs_shape, kw = config
    x, w = normal(*lhs_shape), normal(*rhs_shape)
    graph = fg.trace(fg.value_and_grad(lambda x, w: fg.sum(fg.tanh(fg.lax.conv_general_dilated(x, w, **kw))),
                                       argnums=(0, 1)), x, w)
    assert_matches(fg.compile(graph)(x, w), fg.interpret(graph, x, w), 1e-4, 1e-4, _conv_id(config))


def test_pools_and_their_gradients_on_device():
    x = normal(2, 7, 6, 3)

    def loss(x):
        a = fg.nn.max_pool(x, (3, 3), (2, 2), "SAME")
        b = fg.nn.avg_pool(x, (2, 3), (1, 2), ((1, 0), (0, 1)), count_include_pad=False)
        return fg.sum(a * a) + fg.sum(fg.tanh(b)) + fg.sum(fg.nn.min_pool(x, (2,), (1,)))

    graph = fg.trace(fg.value_and_grad(loss), x)
    assert_matches(fg.compile(graph)(x), fg.interpret(graph, x), 1e-5, 1e-5, "pools")


def test_max_pool_gradient_goes_to_the_first_maximum_of_each_window():
    x = np.array([[1, 3, 3, 0], [3, 2, 1, 1]], np.float32)[None, :, :, None]
    grad = fg.grad(lambda x: fg.sum(fg.nn.max_pool(x, (2, 2), (1, 1))))(x)[0, :, :, 0]
    np.testing.assert_array_equal(grad, [[0, 2, 1, 0], [0, 0, 0, 0]])  # as XLA's select-and-scatter


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def test_conv_errors_name_the_function_the_shapes_and_the_line():
    x, w = np.zeros((1, 4, 5, 5), np.float32), np.zeros((6, 3, 3, 3), np.float32)
    with pytest.raises(fg.ShapeError, match=r"conv_general_dilated: lhs features 4 must be feature_group_count 1 "
                                            r"times the rhs input features 3 .*test_convolution.py:\d+"):
        fg.lax.conv_general_dilated(x, w, (1, 1), "SAME")
    # Windows that do not fit give an empty result, as in JAX.
    assert fg.lax.conv_general_dilated(np.zeros((1, 3, 2, 2), np.float32), np.zeros((1, 3, 4, 4), np.float32), (1, 1),
                                       "VALID").shape == (1, 1, 0, 0)
    with pytest.raises(fg.ShapeError, match="string padding 'SAME' with lhs_dilation"):
        fg.lax.conv_general_dilated(x, np.zeros((6, 4, 3, 3), np.float32), (1, 1), "SAME", lhs_dilation=(2, 2))
    with pytest.raises(fg.ShapeError, match="must hold 'O' and 'I' once each"):
        fg.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OOHW", "NCHW"))
    with pytest.raises(fg.ShapeError, match=r"window_strides \(1,\) must be 2 integers"):
        fg.lax.conv_general_dilated(x, w, (1,), "SAME")
    with pytest.raises(fg.DTypeError, match="lhs and rhs dtypes differ"):
        fg.lax.conv_general_dilated(x, np.zeros((6, 4, 3, 3), np.int32), (1, 1), "SAME")
    with pytest.raises(fg.ShapeError, match="reduce_window: computation .* is not fg.lax.add"):
        fg.lax.reduce_window(x, 1.0, fg.multiply, (1, 1, 2, 2), (1, 1, 1, 1), "VALID")
    with pytest.raises(fg.ShapeError, match="convolve: takes 1-d operands"):
        fg.convolve(x, x)


PATCHES = [((2, 3, 7, 6), (2, 3), (1, 1), "VALID", None, None, None),
           ((2, 3, 7, 6), (3, 2), (2, 1), "SAME", None, (1, 2), None),
           ((1, 7, 6, 4), (2, 2), (1, 2), [(1, 0), (0, 2)], (1, 2), None, ("NHWC", "HWIO", "NHWC")),
           ((2, 9, 4), (2,), (2,), "VALID", None, (2,), ("NWC", "WIO", "NCW"))]


@pytest.mark.parametrize("case", [pytest.param(c, id=str(k)) for k, c in enumerate(PATCHES)])
def test_conv_general_dilated_patches_are_jax_s(case):
    """Each input feature's window of values where the convolution puts its features: JAX's
    values over strides, paddings, dilations and layouts; compiled; its gradient sums back."""
    import jax
    from jax_oracle import jax_call

    shape, window, strides, padding, lhs_dilation, rhs_dilation, dn = case
    x = np.random.default_rng(4).normal(size=shape).astype(np.float32)

    def ours(x):
        return fg.lax.conv_general_dilated_patches(x, window, strides, padding, lhs_dilation, rhs_dilation, dn)

    want = np.asarray(jax_call(lambda x: jax.lax.conv_general_dilated_patches(
        x, window, strides, padding, lhs_dilation, rhs_dilation, dn), x))
    np.testing.assert_array_equal(ours(x), want)
    np.testing.assert_allclose(fg.jit(ours)(x).numpy(), want, rtol=1e-6, atol=1e-6)
    w = np.random.default_rng(5).normal(size=want.shape).astype(np.float32)
    np.testing.assert_allclose(fg.grad(lambda x: fg.sum(ours(x) * w))(x),
                               jax_call(jax.grad(lambda x: (jax.lax.conv_general_dilated_patches(
                                   x, window, strides, padding, lhs_dilation, rhs_dilation, dn) * w).sum()), x),
                               rtol=1e-5, atol=1e-5)


def test_padtype_to_pads_is_jax_s():
    import jax

    for args in (((5,), (3,), (2,), "SAME"), ((7, 6), (3, 2), (2, 3), "SAME_LOWER"), ((4, 4), (2, 2), (1, 1), "VALID"),
                 ((9,), (4,), (3,), "same"), ((1, 8), (5, 9), (1, 2), "SAME")):
        assert fg.lax.padtype_to_pads(*args) == [tuple(p) for p in jax.lax.padtype_to_pads(*args)], args
    with pytest.raises(fg.ShapeError, match=r"padtype_to_pads: window_shape \(3, 1\) must be 1 integers"):
        fg.lax.padtype_to_pads((5,), (3, 1), (2,), "SAME")
    with pytest.raises(fg.ShapeError, match="padtype_to_pads: in_shape 5 must be a sequence of integers"):
        fg.lax.padtype_to_pads(5, (3,), (2,), "SAME")


SHAPE_TUPLES = [
    ("conv_general_shape_tuple", ((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), "SAME", ("NCHW", "OIHW", "NCHW"))),
    ("conv_general_shape_tuple", ((2, 9, 9, 3), (3, 3, 3, 5), (2, 2), "VALID", ("NHWC", "HWIO", "NHWC"))),
    ("conv_general_shape_tuple", ((2, 7, 3), (2, 3, 4), (3,), [(2, 1)], ("NWC", "WIO", "NCW"))),
    ("conv_shape_tuple", ((1, 3, 8, 8), (4, 3, 3, 3), (2, 2), [(1, 1), (0, 0)])),
    ("conv_shape_tuple", ((4, 3, 8, 8), (4, 3, 3, 3), (1, 1), [(0, 0), (1, 1)], 2)),
    ("conv_transpose_shape_tuple", ((1, 3, 8, 8), (4, 3, 3, 3), (2, 2), "SAME", ("NCHW", "OIHW", "NCHW"))),
    ("conv_transpose_shape_tuple", ((1, 8, 8, 3), (3, 3, 3, 4), (2, 2), "VALID", ("NHWC", "HWIO", "NHWC"))),
    ("reduce_window_shape_tuple", ((4, 6), (2, 2), (2, 1), [(0, 0), (1, 1)])),
    ("reduce_window_shape_tuple", ((4, 6), (2, 2), (1, 1), [(1, 0), (0, 1)], (2, 1), (1, 2))),
    ("conv_general_permutations", (("NHWC", "HWIO", "NHWC"),)),
    ("conv_general_permutations", (("NCH", "OIH", "HNC"),)),
]


@pytest.mark.parametrize("name, args", SHAPE_TUPLES, ids=[f"{n}-{k}" for k, (n, _) in enumerate(SHAPE_TUPLES)])
def test_shape_helpers_are_jax_s(name, args):
    import jax

    want = getattr(jax.lax, name)(*args)
    want = tuple(tuple(map(int, w)) for w in want) if name == "conv_general_permutations" else tuple(map(int, want))
    assert getattr(fg.lax, name)(*args) == want
