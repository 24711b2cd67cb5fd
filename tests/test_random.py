"""fg.random: the Threefry-2x32 generator against Random123's known answers, the same bits eagerly,
in interpret and on the device, keys traced inside compiled graphs, the samplers' distributions
(tolerances from the sample size), and, where jax is installed, JAX's own bits."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

import fgrad as fg
from op_rows.random import bits_ref, threefry_ref

KEY = fg.random.PRNGKey(42)


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

# Random123's known-answer vectors for threefry2x32 with 20 rounds (kat_vectors):
# key words, counter words, output words.
KNOWN_ANSWERS = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize("key, counter, expected", KNOWN_ANSWERS)
def test_threefry2x32_known_answers(key, counter, expected):
    key = np.array(key, np.uint32)
    x0, x1 = (np.uint32(c) for c in counter)
    assert tuple(int(v) for v in fg.random.threefry2x32(key, x0, x1)) == expected  # eagerly
    on_device = fg.jit(fg.random.threefry2x32)(key, x0, x1)
    assert tuple(int(v) for v in on_device) == expected
    assert threefry_ref(key, *counter) == expected  # the op table's reference


def test_threefry2x32_broadcasts_its_counters_and_fuses_into_one_kernel():
    counters = np.arange(6, dtype=np.uint32).reshape(2, 3)
    graph = fg.trace(lambda k, c: fg.bitwise_xor(*fg.random.threefry2x32(k, 0, c)), KEY, counters)
    exe = fg.compile(graph)
    assert len(exe.kernels) == 1, [name for name, _ in exe.kernels]
    want = np.array([np.bitwise_xor(*np.uint32(threefry_ref(KEY, 0, int(c)))) for c in counters.ravel()]).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(exe(KEY, counters)), want)


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed, data", [
    (0, [0, 0]), (42, [0, 42]), (-1, [0, 2**32 - 1]), (2**31, [0, 2**31]), (2**32 + 7, [0, 7]),
    (-2**40, [0, 0]), (2**63 - 1, [0, 2**32 - 1]), (np.uint32(4_000_000_000), [0, 4_000_000_000]),
    (np.int64(2**40 + 3), [0, 3]),
])
def test_seeds_give_jax_keys(seed, data):
    """As jax.random.PRNGKey with x64 off: the seed's low 32 bits, behind a zero word."""
    for make in (fg.random.PRNGKey, fg.random.key):
        key = make(seed)
        assert key.dtype == np.uint32 and key.shape == (2,)
        np.testing.assert_array_equal(key, np.array(data, np.uint32))


def test_traced_seed_gives_a_traced_key():
    sample = fg.jit(lambda seed: fg.random.uniform(fg.random.PRNGKey(seed), (5,)))
    for seed in (np.int32(-3), np.int32(7)):
        np.testing.assert_array_equal(sample(seed), fg.random.uniform(fg.random.PRNGKey(int(seed)), (5,)))
    np.testing.assert_array_equal(fg.jit(fg.random.PRNGKey)(np.uint32(4_000_000_000)), [0, 4_000_000_000])


def test_key_data_and_wrap_key_data_are_the_key():
    keys = fg.random.split(KEY, 3)
    np.testing.assert_array_equal(fg.random.key_data(keys), keys)
    np.testing.assert_array_equal(fg.random.wrap_key_data(keys), keys)


def test_split_keys_are_distinct_and_fold_in_is_split_by_counter():
    keys = fg.random.split(KEY, 200)
    assert keys.shape == (200, 2) and len({tuple(k) for k in keys.tolist()}) == 200
    assert fg.random.split(KEY, (4, 5)).shape == (4, 5, 2)
    np.testing.assert_array_equal(fg.random.split(KEY, (4, 5)).reshape(20, 2), fg.random.split(KEY, 20))
    # Under JAX's partitionable threefry, folding in d hashes the counter d as split's key d does.
    folded = np.stack([fg.random.fold_in(KEY, d) for d in range(10)])
    np.testing.assert_array_equal(folded, keys[:10])
    assert len({tuple(fg.random.fold_in(k, 0).tolist()) for k in keys[:50]}) == 50


def test_samples_from_split_keys_are_uncorrelated():
    n = 20_000
    a, b = (fg.random.uniform(k, (n,)) for k in fg.random.split(KEY))
    c = fg.random.uniform(fg.random.fold_in(KEY, 1), (n,))
    for x, y in ((a, b), (a, c)):
        r = np.corrcoef(x, y)[0, 1]
        assert abs(r) < 5 / math.sqrt(n), r  # the correlation of independent samples: standard error 1/sqrt(n)
    assert not np.array_equal(a, fg.random.uniform(KEY, (n,)))


# ---------------------------------------------------------------------------
# The same bits eagerly, in interpret and on the device
# ---------------------------------------------------------------------------

LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))

# name: (sample from a key, whether the device must give interpret's bits exactly; the others go
# through log or erfinv, whose WGSL and NumPy results may differ in the last place)
SAMPLERS: dict[str, tuple[Callable, bool]] = {
    "split": (lambda k: fg.random.split(k, 4), True),
    "fold_in": (lambda k: fg.random.fold_in(k, 12345), True),
    "bits": (lambda k: fg.random.bits(k, (3, 70)), True),
    "uniform": (lambda k: fg.random.uniform(k, (5, 40)), True),
    # x * (hi - lo) + lo: a GPU may contract it into one fused multiply-add (the H100 does), rounding once
    "uniform-bounds": (lambda k: fg.random.uniform(k, (5, 2), minval=np.float32([-3, 1]), maxval=4.0), False),
    "bernoulli": (lambda k: fg.random.bernoulli(k, 0.3, (300,)), True),
    "bernoulli-high": (lambda k: fg.random.bernoulli(k, np.float32([0.2, 0.7]), (50, 2), mode="high"), True),
    "randint": (lambda k: fg.random.randint(k, (200,), -5, 17), True),
    "randint-u32": (lambda k: fg.random.randint(k, (200,), 3, np.uint32(4_000_000_000), dtype="u32"), True),
    "categorical": (lambda k: fg.random.categorical(k, LOGITS, shape=(100, 2)), True),
    "permutation": (lambda k: fg.random.permutation(k, 50), True),
    "permutation-rows": (lambda k: fg.random.permutation(k, np.arange(12.0, dtype=np.float32).reshape(4, 3)), True),
    "choice": (lambda k: fg.random.choice(k, 10, (6,), replace=False), True),
    "normal": (lambda k: fg.random.normal(k, (4, 50)), False),
    "truncated_normal": (lambda k: fg.random.truncated_normal(k, -1.0, 2.0, (100,)), False),
    "gumbel": (lambda k: fg.random.gumbel(k, (100,)), False),
    "exponential": (lambda k: fg.random.exponential(k, (100,)), False),
    "laplace": (lambda k: fg.random.laplace(k, (100,)), False),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_eager_interpret_and_device_give_the_same_bits(name):
    sample, exact = SAMPLERS[name]
    eager = sample(KEY)
    graph = fg.trace(sample, KEY)
    assert sum(n.op == "input" for n in graph.nodes) == 1  # the key is an argument, traced
    interpreted = fg.interpret(graph, KEY)
    np.testing.assert_array_equal(eager, interpreted)
    on_device = np.asarray(fg.jit(sample)(KEY))
    assert on_device.dtype == interpreted.dtype and on_device.shape == interpreted.shape
    if exact:
        np.testing.assert_array_equal(on_device, interpreted)
    else:
        np.testing.assert_allclose(on_device, interpreted, rtol=4e-6, atol=4e-6)
    other = fg.jit(sample)(fg.random.PRNGKey(43))  # the same program: a new key, other samples
    assert not np.array_equal(np.asarray(other), on_device)


def test_one_program_samples_over_a_symbolic_axis():
    """Counters over a symbolic shape: element (i, j) is counter 3 i + j at every value of T."""
    exe = fg.compile(fg.trace(lambda x, k: fg.random.bits(k, x.shape), fg.spec((fg.dim("T", 8), 3)), KEY))
    for n in (1, 5, 8):
        np.testing.assert_array_equal(np.asarray(exe(np.zeros((n, 3), np.float32), KEY)), bits_ref(KEY, (n, 3)))


# ---------------------------------------------------------------------------
# Dropout inside a compiled training step
# ---------------------------------------------------------------------------

def _dropout(x, key, rate):
    keep = fg.random.bernoulli(key, 1.0 - rate, x.shape)
    return fg.where(keep, x / (1.0 - rate), 0.0)


def _loss(params, x, y, key):
    h = _dropout(fg.tanh(x @ params["w"]), key, 0.5)
    return fg.mean((h @ params["v"] - y) ** 2)


def test_dropout_inside_a_jitted_training_step():
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(4, 16)).astype(np.float32) * 0.5,
              "v": rng.normal(size=(16, 1)).astype(np.float32) * 0.5}
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = np.sin(x.sum(1, keepdims=True)).astype(np.float32)
    step = fg.jit(fg.value_and_grad(_loss))
    graph = fg.trace(fg.value_and_grad(_loss), params, x, y, KEY)
    # the step's key is an argument: each call draws its own mask, as the interpreted graph does
    (loss_a, grads_a), (loss_b, _) = step(params, x, y, KEY), step(params, x, y, fg.random.PRNGKey(1))
    want_loss, want_grads = fg.interpret(graph, params, x, y, KEY)
    np.testing.assert_allclose(float(loss_a), want_loss, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grads_a["w"]), want_grads["w"], rtol=1e-4, atol=1e-6)
    assert float(loss_a) != float(loss_b)
    assert float(step(params, x, y, KEY)[0]) == float(loss_a)
    # Units dropped in the forward pass get no gradient.
    mask = fg.random.bernoulli(KEY, 0.5, (32, 16))
    dropped_everywhere = ~mask.any(0)
    np.testing.assert_array_equal(np.asarray(grads_a["v"])[dropped_everywhere], 0.0)
    # Training with a fresh key per step (folded in from the step count) lowers the loss.
    first = float(loss_a)
    for t in range(60):
        loss, grads = step(params, x, y, fg.random.fold_in(KEY, t))
        params = {k: params[k] - 0.2 * np.asarray(grads[k]) for k in params}
    assert float(step(params, x, y, KEY)[0]) < 0.5 * first


# ---------------------------------------------------------------------------
# Distributions: means and variances within five standard errors of the sample size's
# ---------------------------------------------------------------------------

N = 40_000


def _check_moments(x: np.ndarray, mean: float, var: float, fourth: float) -> None:
    """Sample mean within 5 standard errors (sqrt(var / n)), sample variance within 5 of its own
    (sqrt((mu4 - var^2) / n), mu4 the fourth central moment)."""
    x = x.astype(np.float64)
    n = x.size
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / n), (x.mean(), mean)
    assert abs(x.var() - var) < 5 * math.sqrt((fourth - var**2) / n), (x.var(), var)


def test_uniform_distribution():
    x = fg.random.uniform(KEY, (N,))
    assert x.dtype == np.float32 and 0.0 <= x.min() and x.max() < 1.0
    _check_moments(x, 0.5, 1 / 12, 1 / 80)
    y = fg.random.uniform(KEY, (N,), minval=-3.0, maxval=5.0)
    assert -3.0 <= y.min() and y.max() < 5.0
    _check_moments(y, 1.0, 64 / 12, 8**4 / 80)
    h = fg.random.uniform(KEY, (N,), "f16")
    assert h.dtype == np.float16 and 0.0 <= h.min() and h.max() < 1.0
    _check_moments(h, 0.5, 1 / 12, 1 / 80)
    # the mantissa's low bits are random too: the fractions' last bits are balanced
    low_bits = (x * 2**23).astype(np.int64) & 1
    assert abs(low_bits.mean() - 0.5) < 5 * math.sqrt(0.25 / N)


def test_normal_distribution():
    x = fg.random.normal(KEY, (N,))
    assert np.isfinite(x).all()
    _check_moments(x, 0.0, 1.0, 3.0)
    within_one = np.mean(np.abs(x) < 1.0)
    p = math.erf(1 / math.sqrt(2))
    assert abs(within_one - p) < 5 * math.sqrt(p * (1 - p) / N)


def test_truncated_normal_distribution():
    lower, upper = -1.0, 2.0
    x = fg.random.truncated_normal(KEY, lower, upper, (N,))
    assert lower < x.min() and x.max() < upper
    pdf = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda t: (1 + math.erf(t / math.sqrt(2))) / 2  # noqa: E731
    z = cdf(upper) - cdf(lower)
    mean = (pdf(lower) - pdf(upper)) / z
    var = 1 + (lower * pdf(lower) - upper * pdf(upper)) / z - mean**2
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / N), (x.mean(), mean)
    assert abs(x.var() - var) < 0.05 * var
    # bounds given as arrays broadcast into the shape; traced bounds are clipped the same way
    rows = fg.random.truncated_normal(KEY, np.float32([[0.0], [-3.0]]), np.float32([0.5, 1.0, 3.0]))
    assert rows.shape == (2, 3) and (rows > [[0.0], [-3.0]]).all() and (rows < [0.5, 1.0, 3.0]).all()
    sample = fg.jit(lambda k, lo, hi: fg.random.truncated_normal(k, lo, hi, (N,)))
    traced = sample(KEY, np.float32(0.0), np.float32(0.1))
    assert 0.0 < np.asarray(traced).min() and np.asarray(traced).max() < 0.1


@pytest.mark.parametrize("up", [True, False])
def test_traced_bounds_step_to_the_next_float_as_nextafter(up):
    """truncated_normal clips its samples strictly inside traced bounds, one float in from each,
    found on the bits: zeros step to the least subnormal, infinities and NaN stay."""
    x = np.float32([0.0, -0.0, 1.0, -1.0, -np.inf, np.inf, np.nan, 3.4028235e38, -1.4e-45, 1e-40, -2.5])
    with np.errstate(over="ignore"):  # the largest float steps to inf
        want = np.nextafter(x, np.float32(np.inf if up else -np.inf))
    graph = fg.trace(lambda v: fg.random._next_float("truncated_normal", v, fg.f32, up), x)
    np.testing.assert_array_equal(fg.interpret(graph, x).view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(np.asarray(fg.compile(graph)(x)).view(np.uint32), want.view(np.uint32))


def test_bernoulli_frequencies():
    p = np.float32([0.05, 0.5, 0.9])
    x = fg.random.bernoulli(KEY, p, (N // 3, 3))
    assert x.dtype == np.bool_
    for mode in ("low", "high"):
        freq = fg.random.bernoulli(KEY, p, (N // 3, 3), mode=mode).mean(0)
        assert (np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / (N // 3))).all(), (mode, freq)
    assert not fg.random.bernoulli(KEY, 0.0, (100,)).any() and fg.random.bernoulli(KEY, 1.0, (100,)).all()


def test_categorical_frequencies():
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    draws = fg.random.categorical(KEY, np.log(probs).astype(np.float32), shape=(N // 2, 2))
    assert draws.dtype == np.int32 and draws.shape == (N // 2, 2)
    for row in range(2):
        freq = np.bincount(draws[:, row], minlength=3) / (N // 2)
        assert (np.abs(freq - probs[row]) < 5 * np.sqrt(probs[row] * (1 - probs[row]) / (N // 2))).all(), freq
    # along axis 0, and with the batch shape as the default shape
    assert fg.random.categorical(KEY, np.zeros((3, 2), np.float32), axis=0).shape == (2,)
    # a very unlikely category is (almost) never drawn; a certain one always is
    certain = fg.random.categorical(KEY, np.float32([-1e9, 0.0, -1e9]), shape=(1000,))
    assert (certain == 1).all()


def test_randint_is_uniform_over_its_range():
    x = fg.random.randint(KEY, (N,), -3, 7)
    assert x.dtype == np.int32 and x.min() == -3 and x.max() == 6
    freq = np.bincount(x + 3) / N
    assert (np.abs(freq - 0.1) < 5 * math.sqrt(0.1 * 0.9 / N)).all(), freq
    big = fg.random.randint(KEY, (N,), -2**31, 2**31 - 1)
    _check_moments(big / 2.0**31, 0.0, 1 / 3, 1 / 5)
    u = fg.random.randint(KEY, (N,), 0, np.uint32(4_000_000_000), dtype="u32")
    assert u.dtype == np.uint32 and u.max() >= 3_900_000_000
    # maxval <= minval gives minval; bounds broadcast
    np.testing.assert_array_equal(fg.random.randint(KEY, (5,), 4, 2), 4)
    rows = fg.random.randint(KEY, (1000, 2), np.int32([0, 100]), np.int32([[2, 103]]))
    assert set(rows[:, 0].tolist()) == {0, 1} and set(rows[:, 1].tolist()) == {100, 101, 102}


def test_permutation_permutes():
    p = fg.random.permutation(KEY, 1000)
    np.testing.assert_array_equal(np.sort(p), np.arange(1000))
    assert not np.array_equal(p, np.arange(1000))
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    rows = fg.random.permutation(KEY, x)  # whole rows move
    np.testing.assert_array_equal(np.sort(rows[:, 0]), x[:, 0])
    np.testing.assert_array_equal(rows - rows[:, :1], x - x[:, :1])
    columns = fg.random.permutation(KEY, x, axis=1, independent=True)  # each row on its own
    np.testing.assert_array_equal(np.sort(columns, 1), x)
    # each of the 6 orders of 3 elements is equally likely (rows permuted independently)
    n = 6000
    orders = fg.random.permutation(KEY, np.tile(np.arange(3), (n, 1)), axis=1, independent=True)
    counts = np.bincount(orders @ np.array([9, 3, 1]), minlength=27)[[5, 7, 11, 15, 19, 21]]
    freq = counts / n
    assert counts.sum() == n and (np.abs(freq - 1 / 6) < 5 * math.sqrt(5 / 36 / n)).all(), freq


def test_choice():
    without = fg.random.choice(KEY, 10, (8,), replace=False)
    assert len(set(without.tolist())) == 8 and without.max() < 10
    a = np.arange(30, dtype=np.float32).reshape(10, 3)
    assert fg.random.choice(KEY, a, (4, 2)).shape == (4, 2, 3)
    p = np.float32([0.1, 0.0, 0.6, 0.3])
    draws = fg.random.choice(KEY, 4, (N,), p=p)
    freq = np.bincount(draws, minlength=4) / N
    assert (np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / N) + 1e-12).all(), freq


def test_gumbel_exponential_laplace_moments():
    euler = 0.5772156649015329
    var = math.pi**2 / 6
    for mode in ("low", "high"):
        _check_moments(fg.random.gumbel(KEY, (N,), mode=mode), euler, var, 5.4 * var**2)  # excess kurtosis 12/5
    e = fg.random.exponential(KEY, (N,))
    assert e.min() >= 0
    _check_moments(e, 1.0, 1.0, 9.0)
    _check_moments(fg.random.laplace(KEY, (N,)), 0.0, 2.0, 24.0)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: fg.random.uniform(np.zeros(2, np.int32)), fg.DTypeError, ["uniform", "u32[2]", "i32[2]"]),
    (lambda: fg.random.normal(fg.random.split(KEY), (3,)), fg.ShapeError, ["normal", "one key", "u32[2,2]"]),
    (lambda: fg.random.uniform(KEY, (3,), dtype="i32"), fg.DTypeError, ["uniform", "f32", "i32"]),
    (lambda: fg.random.randint(KEY, (3,), 0, 5, dtype="f32"), fg.DTypeError, ["randint", "i32", "f32"]),
    (lambda: fg.random.uniform(KEY, (2, 3), minval=np.zeros(4, np.float32)), fg.ShapeError, ["uniform", "(4,)"]),
    (lambda: fg.random.PRNGKey(1.5), fg.DTypeError, ["PRNGKey", "integer", "f32"]),
    (lambda: fg.random.PRNGKey(np.arange(2)), fg.ShapeError, ["PRNGKey", "scalar"]),
    (lambda: fg.random.PRNGKey(2**64), fg.DTypeError, ["PRNGKey", "64 bits"]),
    (lambda: fg.random.fold_in(KEY, -1), fg.DTypeError, ["fold_in", "-1", "u32"]),
    (lambda: fg.random.bernoulli(KEY, 1), fg.DTypeError, ["bernoulli", "float"]),
    (lambda: fg.random.split(KEY, -1), fg.ShapeError, ["split", "negative"]),
])
def test_errors_name_the_function_and_the_values(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert all(w in str(e.value) for w in words), str(e.value)
    assert "test_random.py:" in str(e.value)


# ---------------------------------------------------------------------------
# JAX's own bits (jax is not a dependency: this runs where it is installed)
# ---------------------------------------------------------------------------

def test_bits_equal_jax():
    jax = pytest.importorskip("jax")
    jr = jax.random
    logits = LOGITS
    for seed in (0, 42, -1, 2**32 + 7):
        k, jk = fg.random.PRNGKey(seed), jr.PRNGKey(seed)
        exact = {
            "key": (k, jk),
            "split": (fg.random.split(k, 5), jr.split(jk, 5)),
            "split-shape": (fg.random.split(k, (2, 3)), jr.split(jk, (2, 3))),
            "fold_in": (fg.random.fold_in(k, 123), jr.fold_in(jk, 123)),
            "bits": (fg.random.bits(k, (3, 7)), jr.bits(jk, (3, 7))),
            "uniform": (fg.random.uniform(k, (4, 9)), jr.uniform(jk, (4, 9))),
            "uniform-f16": (fg.random.uniform(k, (30,), "f16"), jr.uniform(jk, (30,), "float16")),
            "randint": (fg.random.randint(k, (50,), -7, 1000), jr.randint(jk, (50,), -7, 1000)),
            "randint-u32": (fg.random.randint(k, (50,), 5, np.uint32(4_000_000_000), "u32"),
                            jr.randint(jk, (50,), 5, np.uint32(4_000_000_000), "uint32")),
            "randint-wide": (fg.random.randint(k, (50,), -2**31, np.uint32(2**31)),
                             jr.randint(jk, (50,), -2**31, np.uint32(2**31))),
            "bernoulli": (fg.random.bernoulli(k, 0.3, (100,)), jr.bernoulli(jk, 0.3, (100,))),
            "bernoulli-high": (fg.random.bernoulli(k, 0.3, (100,), mode="high"),
                               jr.bernoulli(jk, 0.3, (100,), mode="high")),
            "categorical": (fg.random.categorical(k, logits, shape=(50, 2)), jr.categorical(jk, logits, shape=(50, 2))),
            "categorical-axis0": (fg.random.categorical(k, logits, axis=0), jr.categorical(jk, logits, axis=0)),
            "permutation": (fg.random.permutation(k, 100), jr.permutation(jk, 100)),
            "permutation-rows": (fg.random.permutation(k, np.arange(15).reshape(5, 3)),
                                 jr.permutation(jk, np.arange(15).reshape(5, 3))),
            "choice": (fg.random.choice(k, 20, (5,), replace=False), jr.choice(jk, 20, (5,), replace=False)),
        }
        for name, (ours, theirs) in exact.items():
            theirs = np.asarray(theirs)
            assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{name} seed {seed}")
        # Floats through special functions and through an FMA that XLA forms (x * (hi - lo) + lo
        # rounds once there, twice in fgrad): equal to the last place or two.
        close = {
            "uniform-bounds": (fg.random.uniform(k, (50,), minval=-2.0, maxval=3.0),
                               jr.uniform(jk, (50,), minval=-2.0, maxval=3.0)),
            "normal": (fg.random.normal(k, (100,)), jr.normal(jk, (100,))),
            "truncated_normal": (fg.random.truncated_normal(k, -1.0, 2.0, (100,)),
                                 jr.truncated_normal(jk, -1.0, 2.0, (100,))),
            "gumbel": (fg.random.gumbel(k, (100,)), jr.gumbel(jk, (100,))),
            "exponential": (fg.random.exponential(k, (100,)), jr.exponential(jk, (100,))),
            "laplace": (fg.random.laplace(k, (100,)), jr.laplace(jk, (100,))),
        }
        for name, (ours, theirs) in close.items():
            np.testing.assert_allclose(ours, np.asarray(theirs), rtol=2e-6, atol=2e-6, err_msg=f"{name} seed {seed}")
