"""int8, uint8, int16, uint16 and bfloat16, against JAX as the oracle.

A kernel holds these in 32-bit WGSL types and brings each op's result back into the narrow
dtype (an integer wrapped, a bfloat16 rounded to nearest even); interpret computes them as
NumPy does (ml_dtypes' bfloat16 in f32, rounded after each op). Every row runs three ways —
eagerly on host values, compiled on the device, and through `fg.interpret` — and each must
give JAX's dtype, shape and values: bit for bit, but for a bfloat16 transcendental, which may
differ from JAX's by one bfloat16 step where the f32 results of two libraries round apart.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import fgrad as fg
from fgrad.runtime import default_device

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

NARROW = ("int8", "uint8", "int16", "uint16", "bfloat16")
INTEGERS = ("int8", "uint8", "int16", "uint16", "int32", "uint32")
ALL = ("bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "bfloat16", "float16", "float32")
BF16 = np.dtype(ml_dtypes.bfloat16)


def draw(dtype: str, shape: tuple[int, ...] = (8,), seed: int = 0, small: bool = False) -> np.ndarray:
    """Seeded values of `dtype`: integers over the whole range (or -9..9 where `small`), bfloat16s
    from a normal of scale 3 with a zero, an infinity and a NaN among them."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu" and dtype != "bfloat16":
        info = np.iinfo(dtype)
        lo, hi = (max(info.min, -9), 9) if small else (info.min, info.max)
        return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)
    values = (rng.standard_normal(shape) * 3).astype(np.float32)
    if not small and values.size >= 8:
        values.reshape(-1)[:3] = [0.0, np.inf, np.nan]
    return values.astype(dtype)


def same(got: Any, want: Any, steps: int = 0) -> None:
    """`got` is `want` in dtype and shape, and in value bit for bit (NaNs as NaNs), or, for floats,
    within `steps` steps of their dtype (units in its last place)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want)
        return
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(g[~np.isfinite(w)], w[~np.isfinite(w)])  # NaNs and infinities as they are
    finite = np.isfinite(w)
    if steps == 0:
        np.testing.assert_array_equal(g[finite], w[finite])
    else:
        wide = np.float32 if want.dtype == BF16 else want.dtype  # a bfloat16's step is 2^16 f32 steps
        step = np.asarray(np.spacing(np.abs(w[finite]).astype(wide)), np.float64)
        step *= 2 ** 16 if wide != want.dtype else 1
        assert np.all(np.abs(g[finite] - w[finite]) <= steps * np.maximum(step, 2.0 ** -133)), (g, w)


def three_ways(fn: Callable[..., Any], *args: np.ndarray) -> dict[str, Any]:
    """`fn(*args)` eagerly on host values, compiled on the device and through interpret."""
    return {"eager": fn(*map(fg.numpy.asarray, args)), "jit": fg.jit(fn)(*args),
            "interpret": fg.interpret(fg.trace(fn, *args), *args)}


def check(fg_fn: Callable[..., Any], jax_fn: Callable[..., Any], *args: np.ndarray, steps: int = 0) -> None:
    want = jax_fn(*(jnp.asarray(a) for a in args))
    for way, got in three_ways(fg_fn, *args).items():
        try:
            if isinstance(want, (tuple, list)):
                assert len(got) == len(want)
                for g, w in zip(got, want):
                    same(g, w, steps)
            else:
                same(got, want, steps)
        except AssertionError as e:
            raise AssertionError(f"{way}: {e}") from None


# -- the dtypes themselves --------------------------------------------------------------------------


@pytest.mark.parametrize("a", ALL)
def test_promotion_is_jax_s_lattice(a: str) -> None:
    for b in ALL:
        assert fg.numpy.promote_types(a, b) == jnp.promote_types(a, b), (a, b)
        x, y = np.zeros(2, a), np.zeros(2, b)
        assert fg.eval_shape(lambda u, v: u + v, x, y).dtype == (jnp.asarray(x) + jnp.asarray(y)).dtype
    for weak in (3, 2.5, True):  # Python numbers are weakly typed
        assert fg.numpy.result_type(np.zeros(2, a), weak) == jnp.result_type(jnp.zeros(2, a), weak), (a, weak)


@pytest.mark.parametrize("name", NARROW)
def test_a_narrow_dtype_is_numpy_s_and_jax_s(name: str) -> None:
    dtype = getattr(fg.numpy, name)
    assert dtype == getattr(jnp, name) and dtype == np.dtype(name) and np.dtype(dtype) == np.dtype(name)
    assert dtype.name == name and dtype.itemsize == np.dtype(name).itemsize and hash(dtype) == hash(np.dtype(name))
    assert fg.dtypes.canonicalize_dtype(name) == jax.dtypes.canonicalize_dtype(name)
    assert fg.jit(lambda x: x)(np.zeros(3, name)).dtype is dtype
    assert fg.numpy.zeros(3, name).dtype == np.dtype(name) and fg.numpy.arange(4, dtype=name).dtype == np.dtype(name)
    for kind in (np.floating, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.number, "float16",
                 "bfloat16", "int8", "int16"):
        assert fg.numpy.issubdtype(dtype, kind) == jnp.issubdtype(getattr(jnp, name), kind), kind
    for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating", "numeric"):
        assert fg.numpy.isdtype(dtype, kind) == jnp.isdtype(getattr(jnp, name), kind), kind
    for other, casting in itertools.product(ALL, ("safe", "same_kind")):
        assert fg.numpy.can_cast(dtype, other, casting) == jnp.can_cast(name, other, casting), (other, casting)
    if name == "bfloat16":
        info, want = fg.numpy.finfo(dtype), jnp.finfo(jnp.bfloat16)
        assert (info.eps, info.max, info.tiny, info.bits, info.nmant) == (want.eps, want.max, want.tiny, want.bits,
                                                                          want.nmant)
    else:
        assert (fg.numpy.iinfo(dtype).min, fg.numpy.iinfo(dtype).max) == (jnp.iinfo(name).min, jnp.iinfo(name).max)


@pytest.mark.parametrize("name", NARROW)
def test_values_reach_the_device_and_come_back_bit_for_bit(name: str) -> None:
    x = draw(name, (3, 5))
    if name == "bfloat16":  # NaNs with payloads, signalling ones too, and both zeros
        x.reshape(-1)[3:7] = np.array([0x7F81, 0xFFC1, 0x8000, 0x0001], np.uint16).view(BF16)
    a = fg.device_put(x)
    assert a.dtype == np.dtype(name)
    back = np.asarray(a)
    assert back.dtype == x.dtype
    np.testing.assert_array_equal(back.view(f"u{x.itemsize}"), x.view(f"u{x.itemsize}"))
    # through a kernel that only moves values (a transpose), and one that reads their bits
    np.testing.assert_array_equal(np.asarray(fg.jit(lambda v: v.T)(x)).view(f"u{x.itemsize}"),
                                  x.T.view(f"u{x.itemsize}"))


# -- elementwise arithmetic, comparisons, reductions, products ------------------------------------------

INTEGER_OPS: dict[str, Callable[..., Any]] = {
    "add": lambda m, x, y: x + y,
    "subtract": lambda m, x, y: x - y,
    "multiply": lambda m, x, y: x * y,
    "negative": lambda m, x, y: -x,
    "abs": lambda m, x, y: m.abs(x),
    "sign": lambda m, x, y: m.sign(x),
    "square": lambda m, x, y: m.square(x),
    "power": lambda m, x, y: x ** 3,
    "floor_divide": lambda m, x, y: x // m.where(y == 0, m.ones_like(y), y),
    "remainder": lambda m, x, y: x % m.where(y == 0, m.ones_like(y), y),
    "maximum": lambda m, x, y: m.maximum(x, y),
    "minimum": lambda m, x, y: m.minimum(x, y),
    "less": lambda m, x, y: x < y,
    "equal": lambda m, x, y: x == y,
    "where": lambda m, x, y: m.where(x > y, x, y),
    "python-int": lambda m, x, y: x * 3 + 100,
    "clip": lambda m, x, y: m.clip(x, 5, 90),
    "true_divide": lambda m, x, y: x / m.where(y == 0, m.ones_like(y), y),
    "sqrt": lambda m, x, y: m.sqrt(m.abs(x.astype(m.float32))),
    "sum": lambda m, x, y: m.sum(x),
    "sum-narrow": lambda m, x, y: m.sum(x, promote_integers=False),
    "sum-axis": lambda m, x, y: m.sum(x.reshape(2, 4), axis=0, dtype=x.dtype),
    "prod": lambda m, x, y: m.prod(x),
    "cumsum": lambda m, x, y: m.cumsum(x),
    "cumprod": lambda m, x, y: m.cumprod(x),
    "max": lambda m, x, y: m.max(x),
    "argmax": lambda m, x, y: m.argmax(x),
    "mean": lambda m, x, y: m.mean(x),
    "sort": lambda m, x, y: m.sort(x),
    "argsort": lambda m, x, y: m.argsort(x, stable=True),
    "dot": lambda m, x, y: m.dot(x, y),
    "matmul": lambda m, x, y: x.reshape(2, 4) @ y.reshape(4, 2),
    "outer": lambda m, x, y: m.outer(x, y),
    "concatenate": lambda m, x, y: m.concatenate([x, y]),
    "roll": lambda m, x, y: m.roll(x, 3),
    "take": lambda m, x, y: m.take(x, m.asarray([5, 0, 7])),
    "astype-f32": lambda m, x, y: x.astype(m.float32),
    "astype-i32": lambda m, x, y: x.astype(m.int32),
    "astype-bool": lambda m, x, y: x.astype(m.bool_),
}


@pytest.mark.parametrize("name, op", INTEGER_OPS.items(), ids=list(INTEGER_OPS))
@pytest.mark.parametrize("dtype", ("int8", "uint8", "int16", "uint16"))
def test_integer_ops_are_jax_s(dtype: str, name: str, op: Callable[..., Any]) -> None:
    """Over the whole range: sums, products and powers wrap as JAX's. An f32 result (a quotient, a
    root) may be an f32 step from JAX's CPU one: a GPU's division and square root are not
    correctly rounded."""
    x, y = draw(dtype, seed=1), draw(dtype, seed=2)
    check(lambda a, b: op(fg.numpy, a, b), lambda a, b: op(jnp, a, b), x, y, steps=2)


FLOAT_OPS: dict[str, tuple[Callable[..., Any], int]] = {  # and how many bfloat16 steps from JAX's it may be
    "add": (lambda m, x, y: x + y, 0),
    "subtract": (lambda m, x, y: x - y, 0),
    "multiply": (lambda m, x, y: x * y, 0),
    "divide": (lambda m, x, y: x / y, 0),
    "negative": (lambda m, x, y: -x, 0),
    "abs": (lambda m, x, y: m.abs(x), 0),
    "python-float": (lambda m, x, y: x * 0.1 + 1.7, 0),
    "maximum": (lambda m, x, y: m.maximum(x, y), 0),
    "where": (lambda m, x, y: m.where(x > y, x, y), 0),
    "floor": (lambda m, x, y: m.floor(x), 0),
    "round": (lambda m, x, y: m.round(x), 0),
    "sqrt": (lambda m, x, y: m.sqrt(m.abs(x)), 0),
    "exp": (lambda m, x, y: m.exp(x), 1),
    "log": (lambda m, x, y: m.log(m.abs(x)), 1),
    "tanh": (lambda m, x, y: m.tanh(x), 1),
    "sin": (lambda m, x, y: m.sin(x), 1),
    "erf": (lambda m, x, y: jax.scipy.special.erf(x) if m is jnp else fg.scipy.special.erf(x), 1),
    "sigmoid": (lambda m, x, y: jax.nn.sigmoid(x) if m is jnp else fg.nn.sigmoid(x), 1),
    "isnan": (lambda m, x, y: m.isnan(x), 0),
    "isinf": (lambda m, x, y: m.isinf(x), 0),
    "less": (lambda m, x, y: x < y, 0),
    "sum": (lambda m, x, y: m.sum(m.nan_to_num(x, posinf=2.0)), 1),
    "mean": (lambda m, x, y: m.mean(m.nan_to_num(x, posinf=2.0)), 1),
    "max": (lambda m, x, y: m.max(x), 0),
    "cumsum": (lambda m, x, y: m.cumsum(m.nan_to_num(x, posinf=2.0)), 1),
    "sort": (lambda m, x, y: m.sort(x), 0),
    "argsort": (lambda m, x, y: m.argsort(x, stable=True), 0),
    "dot": (lambda m, x, y: m.dot(m.nan_to_num(x, posinf=2.0), m.nan_to_num(y, posinf=2.0)), 1),
    "matmul": (lambda m, x, y: m.nan_to_num(x, posinf=2.0).reshape(2, 4) @ m.nan_to_num(y, posinf=2.0).reshape(4, 2),
               1),
    "softmax": (lambda m, x, y: (jax.nn.softmax if m is jnp else fg.nn.softmax)(m.nan_to_num(x, posinf=2.0)), 1),
    "astype-f32": (lambda m, x, y: x.astype(m.float32), 0),
    "astype-i8": (lambda m, x, y: x.astype(m.int8), 0),
    "astype-u16": (lambda m, x, y: x.astype(m.uint16), 0),
    "f32-to-bf16": (lambda m, x, y: (x.astype(m.float32) * 1.001).astype(m.bfloat16), 0),
    "with-f16": (lambda m, x, y: x + y.astype(m.float16), 0),  # bfloat16 with f16 is f32
}


@pytest.mark.parametrize("name, row", FLOAT_OPS.items(), ids=list(FLOAT_OPS))
def test_bfloat16_ops_are_jax_s(name: str, row: tuple[Callable[..., Any], int]) -> None:
    """Each op computed in f32 and rounded to nearest even, sums accumulated in f32, as JAX's."""
    op, steps = row
    if name == "with-f16" and "shader-f16" not in default_device().device.features:
        pytest.skip("the adapter has no shader-f16")
    x, y = draw("bfloat16", seed=3), draw("bfloat16", seed=4, small=True)
    check(lambda a, b: op(fg.numpy, a, b), lambda a, b: op(jnp, a, b), x, y, steps=steps)


def test_bfloat16_rounds_each_op_to_nearest_even() -> None:
    # 1 + 2^-8 is a tie between 1 and 1 + 2^-7: it rounds to 1 (even); 1 + 3 * 2^-8, a tie between
    # 1 + 2^-7 and 1 + 2^-6, to 1 + 2^-6.
    x = np.array([1.0, 1.0, 3.0e38, -3.0e38], BF16)
    y = np.array([2.0 ** -8, 3 * 2.0 ** -8, 3.0e38, -3.0e38], BF16)
    check(lambda a, b: a + b, lambda a, b: a + b, x, y)
    assert np.asarray(fg.jit(lambda a, b: a + b)(x, y)).tolist()[:2] == [1.0, 1.015625]


def test_a_narrow_integer_wraps_in_every_op_of_a_fused_kernel() -> None:
    x = np.array([100, -100, 127, -128], np.int8)
    fn = lambda a: (a * 3 + 7) * (a - 1)  # noqa: E731 -- each op wraps before the next reads it
    assert len(fg.compile(fg.trace(fn, x)).kernels) == 1
    check(fn, fn, x)


# -- bits -------------------------------------------------------------------------------------------

SHIFTS = {
    "shift_left": (fg.lax.shift_left, jax.lax.shift_left),
    "shift_right_logical": (fg.lax.shift_right_logical, jax.lax.shift_right_logical),
    "shift_right_arithmetic": (fg.lax.shift_right_arithmetic, jax.lax.shift_right_arithmetic),
}


@pytest.mark.parametrize("shift", SHIFTS)
@pytest.mark.parametrize("dtype", INTEGERS)
def test_shifts_are_jax_s_at_every_width(dtype: str, shift: str) -> None:
    """Counts past the width give 0 or the sign, negative ones too; a known count is a literal."""
    ours, theirs = SHIFTS[shift]
    x = draw(dtype, seed=5)
    counts = np.array([0, 1, 3, 7, 8, 9, 15, 16], dtype)
    if dtype[0] == "i":
        counts[0] = -1
    check(ours, theirs, x, counts)
    check(lambda v: ours(v, np.array(9, dtype)), lambda v: theirs(v, np.array(9, dtype)), x)
    check(lambda v: ours(v, np.array(3, dtype)), lambda v: theirs(v, np.array(3, dtype)), x)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_bit_counts_and_inversion_are_jax_s_at_every_width(dtype: str) -> None:
    x = draw(dtype, seed=6)
    x[:2] = [0, -1 if dtype[0] == "i" else np.iinfo(dtype).max]
    check(fg.lax.population_count, jax.lax.population_count, x)
    check(fg.lax.clz, jax.lax.clz, x)
    check(fg.numpy.invert, jnp.invert, x)
    check(fg.numpy.bitwise_count, jnp.bitwise_count, x)
    check(lambda a: a >> 3, lambda a: a >> 3, x)
    check(lambda a: (a & 0x5A) | (a ^ 0x0F), lambda a: (a & 0x5A) | (a ^ 0x0F), x)


BIT_CASTS = [(a, b) for a, b in itertools.product(("int8", "uint8", "int16", "uint16", "bfloat16", "int32", "uint32",
                                                   "float32"), repeat=2) if a != b]


@pytest.mark.parametrize("have, want", BIT_CASTS)
def test_bit_casts_are_jax_s_within_and_between_widths(have: str, want: str) -> None:
    """Between widths a wider value gives its parts along a new last axis, least significant
    first, and a last axis of parts gives one wider value; NaN payloads pass unchanged."""
    ratio = np.dtype(want).itemsize // np.dtype(have).itemsize
    x = draw(have, (6, ratio) if ratio > 1 else (6,), seed=7)
    if have == "bfloat16":
        x.reshape(-1)[3] = np.array(0x7F81, np.uint16).view(BF16)  # a signalling NaN
    want_bits = np.asarray(jax.lax.bitcast_convert_type(jnp.asarray(x), want))
    for way, got in three_ways(lambda v: fg.lax.bitcast_convert_type(v, want), x).items():
        got = np.asarray(got)
        assert got.dtype == want_bits.dtype and got.shape == want_bits.shape, way
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want_bits.view(f"u{got.itemsize}"), err_msg=way)


def test_a_bit_cast_between_widths_needs_the_parts_axis() -> None:
    with pytest.raises(fg.ShapeError, match=r"bitcast_convert_type: i8\[6, 3\] to i32 needs a last axis of 4"):
        fg.lax.bitcast_convert_type(np.zeros((6, 3), np.int8), "int32")
    with pytest.raises(fg.DTypeError, match=r"cannot read the bits of bool\[4\] as u8"):  # as JAX's lax
        fg.lax.bitcast_convert_type(np.zeros(4, bool), "uint8")


# -- conversions --------------------------------------------------------------------------------------

EDGES = np.array([np.nan, np.inf, -np.inf, 300.0, -300.0, 127.6, -128.7, 255.5, 65535.5, -0.9, 3e9, 1e-30, 0.0,
                  -0.0, 40000.0, -40000.0], np.float32)


@pytest.mark.parametrize("have, want", [(a, b) for a, b in itertools.product(ALL, repeat=2) if a != b and
                                        "float16" not in (a, b)])
def test_conversions_are_jax_s(have: str, want: str) -> None:
    """Floats to integers saturate (NaN is 0), integers to narrower ones wrap, floats round to
    nearest even."""
    x = EDGES.astype(have) if have in ("float32", "bfloat16") else draw(have, (16,), seed=8)
    check(lambda v: v.astype(want), lambda v: v.astype(want), x)


# -- random, gradients, checkpoints --------------------------------------------------------------------


def test_random_draws_of_narrow_dtypes_are_jax_s_bits() -> None:
    key, jkey = fg.random.key(11), jax.random.key(11)
    for dtype in ("uint8", "uint16"):
        same(fg.random.bits(key, (9,), dtype), jax.random.bits(jkey, (9,), dtype))
    bounds = {"int8": (-100, 100), "uint8": (0, 250), "int16": (-1000, 3000), "uint16": (5, 60000)}
    for dtype, (lo, hi) in bounds.items():
        same(fg.random.randint(key, (9,), lo, hi, dtype), jax.random.randint(jkey, (9,), lo, hi, dtype))
        same(fg.jit(lambda k: fg.random.randint(k, (9,), lo, hi, dtype))(key),
             jax.random.randint(jkey, (9,), lo, hi, dtype))
    same(fg.random.uniform(key, (9,), "bfloat16"), jax.random.uniform(jkey, (9,), jnp.bfloat16))
    same(fg.jit(lambda k: fg.random.normal(k, (9,), "bfloat16"))(key), jax.random.normal(jkey, (9,), jnp.bfloat16),
         steps=1)


def test_gradients_through_bfloat16_are_bfloat16_and_jax_s() -> None:
    x = draw("bfloat16", (6,), seed=9, small=True)
    w = draw("bfloat16", (6,), seed=10, small=True)

    def loss(m: Any, sigmoid: Callable[..., Any]) -> Callable[..., Any]:
        return lambda v, u: m.sum(sigmoid(v * u) * v)

    got = fg.grad(loss(fg.numpy, fg.nn.sigmoid), argnums=(0, 1))(x, w)
    want = jax.grad(loss(jnp, jax.nn.sigmoid), argnums=(0, 1))(jnp.asarray(x), jnp.asarray(w))
    # Each of the backward pass's bfloat16 ops rounds, in an order of its own: a few steps apart.
    for g, j in zip(got, want):
        same(g, j, steps=4)
    compiled = fg.jit(fg.grad(loss(fg.numpy, fg.nn.sigmoid)))(x, w)
    same(compiled, want[0], steps=4)


def test_checkpoints_hold_narrow_dtypes_as_they_are(tmp_path) -> None:
    tree = {name: draw(name, (2, 3), seed=12) for name in NARROW}
    fg.save(tmp_path / "narrow.ckpt", tree)
    back = fg.load(tmp_path / "narrow.ckpt", like=tree)
    for name in NARROW:
        assert back[name].dtype == np.dtype(name)
        np.testing.assert_array_equal(np.asarray(back[name]).view(f"u{back[name].itemsize}"),
                                      tree[name].view(f"u{tree[name].itemsize}"))


def test_host_values_of_narrow_dtypes_have_jax_s_operators() -> None:
    x = fg.numpy.asarray(np.array([100, -100, 5], np.int8))
    assert x.dtype == np.int8 and isinstance(x, fg.HostArray)
    same(x * 2, jnp.asarray(np.array([100, -100, 5], np.int8)) * 2)
    same(x.sum(), jnp.asarray(np.array([100, -100, 5], np.int8)).sum())
    b = fg.numpy.asarray(np.array([1.5, 2.25], BF16))
    same(b / 3, jnp.asarray(np.array([1.5, 2.25], BF16)) / 3)


def test_a_narrow_kernel_says_how_it_narrows() -> None:
    """The WGSL holds an i8 in an i32 and wraps each result by shifts; a bfloat16 in an f32, rounded
    by its bits."""
    i8 = fg.compile(fg.trace(lambda a, b: a * b, np.zeros(4, np.int8), np.zeros(4, np.int8)))
    text = "\n".join(wgsl for _, wgsl in i8.kernels)
    assert "array<i32>" in text and "<< 24u) >> 24u)" in text
    bf = fg.compile(fg.trace(lambda a: a * 3.0, np.zeros(4, BF16)))
    text = "\n".join(wgsl for _, wgsl in bf.kernels)
    assert "array<f32>" in text and "0xffff0000u" in text


@pytest.mark.parametrize("dtype", NARROW)
def test_dtype_errors_name_the_narrow_dtypes(dtype: str) -> None:
    with pytest.raises(fg.DTypeError, match=r"bitwise_and \(&\): takes integer or bool operands, got bf16\[3\]"):
        fg.numpy.bitwise_and(np.zeros(3, BF16), np.zeros(3, BF16))
    with pytest.raises(fg.DTypeError, match=r"unsupported dtype float8_e4m3fn: fgrad has f32, f16, bf16, i32, u32, "
                                            r"i16, u16, i8, u8, bool"):
        fg.numpy.zeros(3, "float8_e4m3fn")
    assert fg.numpy.zeros(2, dtype).dtype == np.dtype(dtype)


def _exported(a: Any, c: Any, sort: bool = True) -> tuple[Any, ...]:
    c = c.astype("bfloat16")
    return ((a * 3) >> 1, (fg.numpy.exp(c) * 2 + c).astype("float32"), a.sum(), c.sum().astype("float32"),
            fg.numpy.cumsum(a), (fg.numpy.arange(4, dtype="bfloat16") * c).astype("float32"),
            a.astype("uint8") + 200, fg.numpy.max(a),
            *([fg.numpy.sort(a)] if sort else []))


EXPORTED_ARGS = (np.array([100, -100, 5, 7], np.int8), np.array([1.5, -2.25, 3.0, 0.1], np.float32))


def test_graphs_of_narrow_dtypes_export_to_jax() -> None:
    """Op by op, JAX rounds each bfloat16 result as fgrad does; under jax.jit, XLA may keep a fused
    chain's in f32 (its excess precision), within two bfloat16 steps (2^-7 relative)."""
    graph = fg.trace(_exported, *EXPORTED_ARGS)
    exported = fg.export.to_jax(graph)
    for got, jitted, want in zip(exported(*EXPORTED_ARGS), jax.jit(exported)(*EXPORTED_ARGS),
                                 fg.interpret(graph, *EXPORTED_ARGS)):
        same(got, want)
        if np.asarray(want).dtype.kind == "f":
            np.testing.assert_allclose(np.asarray(jitted), want, rtol=2.0 ** -7)
        else:
            same(jitted, want)


def test_graphs_of_narrow_dtypes_export_to_onnx() -> None:
    """onnxruntime has few bfloat16 kernels: the model holds a bfloat16 in an f32, rounded after
    each op, as a kernel does."""
    ort = pytest.importorskip("onnxruntime")
    graph = fg.trace(lambda a, c: _exported(a, c, sort=False), *EXPORTED_ARGS)  # fgrad's sort has no ONNX rule
    session = ort.InferenceSession(fg.export.to_onnx(graph).SerializeToString())
    got = session.run(None, {i.name: v for i, v in zip(session.get_inputs(), EXPORTED_ARGS)})
    for g, want in zip(got, fg.interpret(graph, *EXPORTED_ARGS)):
        same(g, want)


@pytest.mark.parametrize("m, k, n", [(1, 96, 40), (64, 96, 80), (48, 2048, 48)])
def test_bfloat16_products_are_summed_in_f32_and_rounded_once(m: int, k: int, n: int) -> None:
    """The tiled product kernels (one row's, tiles', a long k split into partial sums) take
    bfloat16 operands as the f32s holding them, and round each sum once, as JAX's."""
    a = (np.random.default_rng(13).standard_normal((m, k)) * 2).astype(BF16)
    b = np.random.default_rng(14).standard_normal((k, n)).astype(BF16)
    compiled = fg.compile(fg.trace(lambda x, y: (x @ y) * 2, a, b))
    assert any("matmul" in name for name, _ in compiled.kernels)
    got = np.asarray(compiled(a, b)).astype(np.float64)
    want = np.asarray((jnp.asarray(a) @ jnp.asarray(b)) * 2).astype(np.float64)
    exact = (a.astype(np.float64) @ b.astype(np.float64)) * 2
    assert np.asarray(compiled(a, b)).dtype == BF16
    # Both round the f32 sum once: each is within a bfloat16 step of the exact product.
    step = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64) * 2 ** 16
    assert np.all(np.abs(got - exact) <= step + 1e-3) and np.all(np.abs(want - exact) <= step + 1e-3)
    assert np.mean(got != want) <= 0.05  # apart only where two f32 sums round to neighbouring bfloat16s


LAX_OPS: dict[str, Callable[..., Any]] = {  # jax.lax's forms: operands of one dtype, no promotion
    "add": lambda lax, a, b: lax.add(a, b),
    "mul": lambda lax, a, b: lax.mul(a, b),
    "div": lambda lax, a, b: lax.div(a, lax.max(b, lax.full_like(b, 1))),
    "rem": lambda lax, a, b: lax.rem(a, lax.max(b, lax.full_like(b, 1))),
    "sign": lambda lax, a, b: lax.sign(a),
    "integer_pow": lambda lax, a, b: lax.integer_pow(a, 3),
    "clamp": lambda lax, a, b: lax.clamp(lax.full_like(a, 3), a, lax.full_like(a, 50)),
    "select": lambda lax, a, b: lax.select(lax.lt(a, b), a, b),
    "cummax": lambda lax, a, b: lax.cummax(a),
    "sort-two": lambda lax, a, b: lax.sort((a, b), num_keys=1),
    "top_k": lambda lax, a, b: lax.top_k(a, 3),
    "argmax": lambda lax, a, b: lax.argmax(a, 0, np.int32),
    "reduce_max": lambda lax, a, b: lax.reduce_max(a, (0,)),
    "rev": lambda lax, a, b: lax.rev(a, (0,)),
    "dynamic_update_slice": lambda lax, a, b: lax.dynamic_update_slice(a, b[:3], (5,)),
    "concatenate": lambda lax, a, b: lax.concatenate([a, b], 0),
    "dot": lambda lax, a, b: lax.dot(a, b),
    "dot-f32": lambda lax, a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ())), preferred_element_type=np.float32),
}


@pytest.mark.parametrize("name, op", LAX_OPS.items(), ids=list(LAX_OPS))
@pytest.mark.parametrize("dtype", NARROW)
def test_lax_ops_take_the_narrow_dtypes(dtype: str, name: str, op: Callable[..., Any]) -> None:
    x, y = draw(dtype, (12,), seed=15, small=True), draw(dtype, (12,), seed=16, small=True)
    check(lambda a, b: op(fg.lax, a, b), lambda a, b: op(jax.lax, a, b), x, y, steps=1)


@pytest.mark.parametrize("dtype", NARROW)
def test_lax_sums_of_narrow_dtypes(dtype: str) -> None:
    """An integer sum wraps as JAX's. A bfloat16 one is summed in f32 and rounded once, as jnp.sum
    does: lax.reduce_sum's on XLA's CPU adds in bfloat16, rounding each partial sum, so it may
    differ from it (and from the exact sum) by more."""
    if dtype != "bfloat16":
        x = draw(dtype, (4, 16), seed=18)
        check(lambda a: fg.lax.reduce_sum(a, (1,)), lambda a: jax.lax.reduce_sum(a, (1,)), x)
        return
    # Eighths up to 255/8: each f32 sum of 16 is exact, and rounds to a bfloat16 once.
    x = (np.random.default_rng(18).integers(-255, 255, (4, 16)) / 8).astype(BF16)
    want = x.astype(np.float32).sum(1).astype(BF16)
    for way, got in three_ways(lambda a: fg.lax.reduce_sum(a, (1,)), x).items():
        same(got, want)


@pytest.mark.parametrize("exponent, mantissa", [(4, 3), (5, 2), (8, 7), (11, 10), (8, 3), (3, 7)])
def test_reduce_precision_of_bfloat16_is_jax_s(exponent: int, mantissa: int) -> None:
    x = draw("bfloat16", (64,), seed=17)
    x[3] = np.float32(1e-39).astype(BF16)  # a subnormal
    check(lambda a: fg.lax.reduce_precision(a, exponent, mantissa),
          lambda a: jax.lax.reduce_precision(a, exponent, mantissa), x)
