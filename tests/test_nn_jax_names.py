"""The jax.nn names beyond the activations: dot_product_attention, logmeanexp and jax.nn.initializers,
against JAX itself. Attention runs eagerly, traced (through interpret) and compiled (fg.jit, tiny
shapes), with its gradient; the initializers draw with fg.random from JAX's keys, so the uniform
families must give JAX's values exactly, the normal ones to erf_inv's rounding, and their samples
the statistics variance_scaling promises."""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import jax_call, same

I = fg.nn.initializers
rng = np.random.default_rng(11)
same = functools.partial(same, oracle="jax", atol=2e-6)


def normal(*shape: int, dtype=np.float32) -> np.ndarray:
    return rng.normal(size=shape).astype(dtype)


# ---------------------------------------------------------------------------
# dot_product_attention
# ---------------------------------------------------------------------------

B, T, S, H = 2, 3, 4, 4
lengths = {"query_seq_lengths": np.array([3, 1], np.int32), "key_value_seq_lengths": np.array([2, 4], np.int32)}
some_keys = rng.random((B, 1, T, S)) < 0.6
some_keys[1, 0, 2] = False  # a query that sees no key: JAX averages all its values

# name: (query shape, key/value shape, bias, mask, keyword arguments)
CASES = {
    "mha": ((B, T, 2, H), (B, S, 2, H), None, None, {}),
    "gqa_causal": ((B, T, 4, H), (B, S, 2, H), None, None, {"is_causal": True}),
    "mqa_mask_bias": ((B, T, 3, H), (B, S, 1, H), normal(1, 3, T, S), some_keys, {"scale": 0.7}),
    "per_head_mask": ((B, T, 4, H), (B, S, 2, H), None, rng.random((B, 4, T, S)) < 0.5, {}),
    "seq_lengths": ((B, T, 4, H), (B, S, 2, H), normal(B, 1, 1, S), None, lengths),
    "kv_length_zero": ((B, T, 2, H), (B, S, 2, H), None, None, {"key_value_seq_lengths": np.array([0, 3], np.int32)}),
    "window": ((B, T, 2, H), (B, S, 2, H), None, None, {"local_window_size": (1, 0)}),
    "window_int_causal": ((B, 5, 2, H), (B, 5, 1, H), None, None, {"local_window_size": 1, "is_causal": True}),
    "unbatched": ((T, 4, H), (S, 2, H), normal(T, S), np.tril(np.ones((T, S), bool)), {"scale": 0.25}),
    "everything": ((B, T, 4, H), (B, S, 2, H), normal(B, 4, T, S), some_keys,
                   {"is_causal": True, "local_window_size": (2, 1), **lengths}),
}
COMPILED = ("gqa_causal", "mqa_mask_bias", "everything")


def attention_args(name: str, dtype=np.float32):
    q_shape, kv_shape, bias, mask, kwargs = CASES[name]
    q, k, v = normal(*q_shape, dtype=dtype), normal(*kv_shape, dtype=dtype), normal(*kv_shape, dtype=dtype)
    return (q, k, v, bias, mask), kwargs


def fgrad_attention(kwargs):
    def f(q, k, v, bias, mask):
        return fg.nn.dot_product_attention(q, k, v, bias, mask, **kwargs)
    return f


def traced(fn, args):
    """fn traced on the non-None args (None stays a Python None) and run through interpret."""
    given = [a for a in args if a is not None]

    def on_given(*xs):
        it = iter(xs)
        return fn(*(None if a is None else next(it) for a in args))

    return fg.interpret(fg.trace(on_given, *given), *given)


@pytest.mark.parametrize("name", CASES)
def test_dot_product_attention_is_jax_s_eagerly_and_traced(name):
    args, kwargs = attention_args(name)
    want = jax_call(jax.nn.dot_product_attention, *args, **kwargs)
    same(fg.nn.dot_product_attention(*args, **kwargs), want, f"{name} eager")
    same(traced(fgrad_attention(kwargs), args), want, f"{name} traced")


@pytest.mark.parametrize("name", COMPILED)
def test_dot_product_attention_compiles_to_jax_s_values(name):
    args, kwargs = attention_args(name)
    given = [a for a in args if a is not None]

    def f(*xs):
        it = iter(xs)
        return fg.nn.dot_product_attention(*(None if a is None else next(it) for a in args), **kwargs)

    want = jax_call(jax.nn.dot_product_attention, *args, **kwargs)
    same(fg.jit(f)(*given), want, f"{name} compiled", rtol=1e-4, atol=1e-5)


def test_dot_product_attention_residual_is_the_masked_logsumexp():
    args, kwargs = attention_args("everything")
    want_out, want_res = jax_call(jax.nn.dot_product_attention, *args, **kwargs, return_residual=True)
    out, res = fg.nn.dot_product_attention(*args, **kwargs, return_residual=True)
    assert res.shape == (B, T, 4)
    same(out, want_out, "output")
    same(res, want_res, "residual")
    unbatched, _ = attention_args("unbatched")
    got = fg.nn.dot_product_attention(*unbatched[:3], return_residual=True)[1]
    same(got, jax_call(jax.nn.dot_product_attention, *unbatched[:3], return_residual=True)[1], "unbatched residual")


@pytest.mark.parametrize("name", ["gqa_causal", "mqa_mask_bias", "everything"])
def test_dot_product_attention_gradient_is_jax_s(name):
    (q, k, v, bias, mask), kwargs = attention_args(name)
    weights = normal(*q.shape)
    diff = (0, 1, 2, 3) if bias is not None else (0, 1, 2)

    def fgrad_loss(q, k, v, bias):
        return fg.sum(fg.nn.dot_product_attention(q, k, v, bias, mask, **kwargs) * weights)

    def jax_loss(q, k, v, bias):
        return jnp.sum(jax.nn.dot_product_attention(q, k, v, bias, None if mask is None else jnp.asarray(mask),
                                                    **kwargs) * weights)

    want = jax.grad(jax_loss, argnums=diff)(q, k, v, bias)
    got = fg.grad(fgrad_loss, argnums=diff)(q, k, v, bias)
    for g, w, what in zip(got, want, ("query", "key", "value", "bias")):
        same(g, w, f"{name} d/d{what}", rtol=1e-4, atol=1e-5)
    if name == "everything":  # the backward pass compiled too
        compiled = fg.jit(lambda *xs: fg.grad(fgrad_loss, argnums=diff)(*xs))(q, k, v, bias)
        for g, w, what in zip(compiled, want, ("query", "key", "value", "bias")):
            same(g, w, f"{name} compiled d/d{what}", rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["gqa_causal", "mqa_mask_bias", "seq_lengths"])
def test_dot_product_attention_f16_takes_softmax_in_f32(name):
    """f16 inputs give f16 outputs as JAX's; eagerly and traced through interpret (llvmpipe has no
    shader-f16, so nothing f16 is compiled here)."""
    args, kwargs = attention_args(name, np.float16)
    want = jax_call(jax.nn.dot_product_attention, *args, jit=False, **kwargs)  # XLA on a CPU jits no f16 products
    assert want.dtype == jnp.float16
    same(fg.nn.dot_product_attention(*args, **kwargs), want, f"{name} f16 eager", rtol=5e-3, atol=2e-3)
    same(traced(fgrad_attention(kwargs), args), want, f"{name} f16 traced", rtol=5e-3, atol=2e-3)
    device = fg.default_device()
    if "shader-f16" in device.device.features:
        bias, mask = args[3:]
        compiled = fg.jit(lambda q, k, v: fg.nn.dot_product_attention(q, k, v, bias, mask, **kwargs))(*args[:3])
        same(compiled, want, f"{name} f16 compiled", rtol=5e-3, atol=2e-3)
    # huge logits that overflow f16 must not, as the softmax is f32
    q, k, v = args[0] * 20, args[1] * 20, args[2]
    want = jax_call(jax.nn.dot_product_attention, q, k, v, jit=False, **kwargs)
    same(fg.nn.dot_product_attention(q, k, v, **kwargs), want, f"{name} f16 large logits", rtol=5e-3, atol=0.1)


def test_dot_product_attention_implementations():
    (q, k, v, *_), _ = attention_args("mha")
    want = jax_call(jax.nn.dot_product_attention, q, k, v)
    same(fg.nn.dot_product_attention(q, k, v, implementation="xla"), want, "xla")
    same(fg.nn.dot_product_attention(q, k, v, implementation=None), want, "None")
    with pytest.raises(fg.FgradError, match=r"^dot_product_attention: implementation='cudnn'.*pass None or 'xla'"):
        fg.nn.dot_product_attention(q, k, v, implementation="cudnn")
    with pytest.raises(fg.FgradError, match=r"^dot_product_attention: unknown implementation 'flash'"):
        fg.nn.dot_product_attention(q, k, v, implementation="flash")


def test_dot_product_attention_refuses_what_jax_refuses():
    q, k, v = normal(B, T, 3, H), normal(B, S, 2, H), normal(B, S, 2, H)
    attend = fg.nn.dot_product_attention
    cases = [
        (fg.ShapeError, r"3 query heads are not a multiple of 2", (q, k, v), {}),
        (fg.ShapeError, r"value f32\[2,5,2,4\] must have key's shape", (normal(B, T, 2, H), k, normal(B, 5, 2, H)),
         {}),
        (fg.ShapeError, r"query f16\[2,3,2,4\] must have key's batch 2, head_dim 4 and dtype f32",
         (normal(B, T, 2, H, dtype=np.float16), k, v), {}),
        (fg.ShapeError, r"query f32\[2,3,2,8\]", (normal(B, T, 2, 8), k, v), {}),
        (fg.DTypeError, r"key must be f32 or f16", (q.astype(np.int32), k.astype(np.int32), v.astype(np.int32)),
         {}),
        (fg.DTypeError, r"mask must be bool", (normal(B, T, 2, H), k, v), {"mask": np.ones((T, S), np.int32)}),
        (fg.ShapeError, r"bias f32\[1,3,3,4\] does not broadcast to \(batch, heads, q_len, kv_len\) = \(2, 2, 3, 4\)",
         (normal(B, T, 2, H), k, v), {"bias": normal(3, T, S)}),
        (fg.ShapeError, r"mask bool\[2,1,3,5\] does not broadcast", (normal(B, T, 2, H), k, v),
         {"mask": np.ones((B, 1, T, 5), bool)}),
        (fg.ShapeError, r"key_value_seq_lengths must be i32\[2\]", (normal(B, T, 2, H), k, v),
         {"key_value_seq_lengths": np.array([1, 2, 3], np.int32)}),
        (fg.ShapeError, r"query_seq_lengths must be i32\[2\]", (normal(B, T, 2, H), k, v),
         {"query_seq_lengths": np.array([1.0, 2.0], np.float32)}),
        (fg.ShapeError, r"key f32\[1,2,3,4,5\] has 5 axes", (q, normal(1, 2, 3, 4, 5), v), {}),
        (fg.TraceError, r"local_window_size must be an int or a \(left, right\) pair", (normal(B, T, 2, H), k, v),
         {"local_window_size": (1, 2, 3)}),
    ]
    for error, message, args, kwargs in cases:
        with pytest.raises(error, match=rf"^dot_product_attention: {message}.* at .*test_nn_jax_names.py:\d+"):
            attend(*args, **kwargs)
    with pytest.raises(fg.ShapeError, match=r"^dot_product_attention: 3 query heads"):
        fg.trace(lambda q, k, v: attend(q, k, v), fg.spec(q.shape), fg.spec(k.shape), fg.spec(v.shape))


# ---------------------------------------------------------------------------
# logmeanexp
# ---------------------------------------------------------------------------

LOGMEANEXP = [
    ({}, normal(3, 4)),
    ({"axis": 1}, normal(3, 4)),
    ({"axis": (0, 2), "keepdims": True}, normal(2, 3, 4)),
    ({"axis": -1, "where": rng.random((3, 4)) < 0.6}, normal(3, 4)),
    ({"axis": 0, "where": np.array([[True, False, True, False]] * 2 + [[False] * 4])}, normal(3, 4)),
    ({"axis": 1}, np.arange(12, dtype=np.int32).reshape(3, 4)),
    ({"axis": 1}, normal(3, 4, dtype=np.float16)),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # log(0) where `where` holds for no term: NaN, as JAX's
@pytest.mark.parametrize("kwargs, x", LOGMEANEXP)
def test_logmeanexp_is_jax_s(kwargs, x):
    want = jax_call(jax.nn.logmeanexp, x, **{k: jnp.asarray(v) if k == "where" else v for k, v in kwargs.items()})
    tol = {"rtol": 2e-3, "atol": 2e-3} if x.dtype == np.float16 else {}
    same(fg.nn.logmeanexp(x, **kwargs), want, "eager", **tol)
    same(fg.interpret(fg.trace(lambda y: fg.nn.logmeanexp(y, **kwargs), x), x), want, "traced", **tol)
    if x.dtype == np.float32:
        g = fg.grad(lambda y: fg.sum(fg.nn.logmeanexp(y, **kwargs)))(x)
        wherever = {k: jnp.asarray(v) if k == "where" else v for k, v in kwargs.items()}
        same(g, jax.grad(lambda y: jnp.sum(jax.nn.logmeanexp(y, **wherever)))(x), "grad", atol=1e-6)


# ---------------------------------------------------------------------------
# softmax and log_softmax under a `where` mask
# ---------------------------------------------------------------------------

MASK = rng.random((3, 4)) < 0.6
MASK[1] = False  # a row with no entry: softmax's zeros, log_softmax's -inf
MASKED = [(1, MASK), (0, MASK), (None, MASK), ((0, 1), MASK), (-1, MASK[:, :1])]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis, where", MASKED, ids=[f"axis={a}-{w.shape}" for a, w in MASKED])
def test_softmax_where_is_jax_s(name, axis, where):
    x = normal(3, 4)
    ours, theirs = getattr(fg.nn, name), getattr(jax.nn, name)
    want = jax_call(lambda y, w: theirs(y, axis=axis, where=w), x, where)
    same(ours(x, axis=axis, where=where), want, "eager")
    same(fg.jit(lambda y, w: ours(y, axis=axis, where=w))(x, where), want, "compiled")
    full = np.broadcast_to(where, x.shape)  # log_softmax's -inf entries are kept out of the sum
    g = fg.grad(lambda y: fg.sum(fg.where(full, ours(y, axis=axis, where=where), 0.0) * x))(x)
    want_g = jax.grad(lambda y: jnp.sum(jnp.where(full, theirs(y, axis=axis, where=where), 0.0) * x))(x)
    same(g, want_g, "grad", atol=1e-6)


# ---------------------------------------------------------------------------
# jax.nn.initializers
# ---------------------------------------------------------------------------

# label: (factory arguments, shape[, (JAX's arguments, the shape JAX draws)]). JAX compiles a sample
# of 3 or more axes slowly (seconds per shape), so a kernel's reference is drawn as a 2-axis shape
# of the same size and the same fan its mode reads: element i of a sample comes from counter i
# whatever the shape.
EXACT = {
    "uniform": ((), (8, 16)),
    "uniform(3.5)": ((3.5,), (5, 7)),
    "variance_scaling(0.5, fan_geo_avg, uniform)": ((0.5, "fan_geo_avg", "uniform"), (6, 9)),
    "variance_scaling(2, fan_out, uniform, conv)": ((2.0, "fan_out", "uniform"), (3, 3, 4, 8),
                                                    ((2.0, "fan_out", "uniform"), (4, 72))),
    "variance_scaling(1, fan_in, uniform, batch_axis=0)": ((1.0, "fan_in", "uniform", -2, -1, 0), (4, 6, 10),
                                                           ((1.0, "fan_in", "uniform"), (6, 40))),
    "glorot_uniform": ((), (16, 32)),
    "xavier_uniform": ((), (10, 3)),
    "he_uniform": ((), (3, 3, 8, 16), ((), (72, 16))),
    "kaiming_uniform": ((), (10, 3)),
    "lecun_uniform": ((), (7, 11)),
    "he_uniform(in_axis=(0, 1))": (((0, 1), -1), (3, 4, 5), ((), (12, 5))),
}
ROUNDED = {
    "normal": ((), (8, 16)),
    "normal(2.0)": ((2.0,), (5, 7)),
    "truncated_normal": ((), (8, 16)),
    "truncated_normal(1.5, lower=-1, upper=3)": ((1.5, None, -1.0, 3.0), (9, 5)),
    "variance_scaling(1, fan_avg, normal)": ((1.0, "fan_avg", "normal"), (6, 9)),
    "variance_scaling(3, fan_in, truncated_normal)": ((3.0, "fan_in", "truncated_normal"), (6, 9)),
    "glorot_normal": ((), (16, 32)),
    "xavier_normal": ((), (16, 32)),
    "he_normal": ((), (3, 3, 8, 16), ((), (72, 16))),
    "kaiming_normal": ((), (10, 3)),
    "lecun_normal": ((), (7, 11)),
}


def factory(label: str):
    return label.split("(")[0]


def both_inits(label: str, table: dict):
    """fgrad's init, JAX's reference values as a function of (key, dtype), and the shape."""
    row = table[label]
    args, shape = row[0], row[1]
    jax_args, jax_shape = row[2] if len(row) > 2 else (args, shape)
    name = factory(label)
    jax_init = getattr(jax.nn.initializers, name)(*jax_args)

    def reference(seed: int, dtype=jnp.float32) -> np.ndarray:
        return np.asarray(jax_init(jax.random.PRNGKey(seed), jax_shape, dtype)).reshape(shape)

    return getattr(I, name)(*args), reference, shape


@pytest.mark.parametrize("label", EXACT)
def test_uniform_initializers_are_jax_s_bit_for_bit(label):
    init, reference, shape = both_inits(label, EXACT)
    for seed in (0, 1234):
        key = fg.random.PRNGKey(seed)
        want = reference(seed)
        got = init(key, shape)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got, want, err_msg=f"{label} seed {seed}")
        np.testing.assert_array_equal(fg.interpret(fg.trace(lambda k: init(k, shape), key), key), want,
                                      err_msg=f"{label} seed {seed} traced")
    want16 = reference(seed, jnp.float16)
    got16 = init(key, shape, fg.f16)
    assert got16.dtype == np.float16
    np.testing.assert_array_equal(got16, want16, err_msg=f"{label} f16")


@pytest.mark.parametrize("label", ROUNDED)
def test_normal_initializers_are_jax_s_to_erfinv_rounding(label):
    init, reference, shape = both_inits(label, ROUNDED)
    key = fg.random.PRNGKey(7)
    want = reference(7)
    scale = float(np.abs(want).max())
    same(init(key, shape), want, label, rtol=1e-5, atol=1e-5 * scale)
    same(fg.interpret(fg.trace(lambda k: init(k, shape), key), key), want, f"{label} traced", rtol=1e-5,
         atol=1e-5 * scale)
    want16 = reference(7, jnp.float16)
    same(init(key, shape, "float16"), want16, f"{label} f16", rtol=2e-3, atol=2e-3 * scale)


def test_an_initializer_compiles_with_a_traced_key():
    init = I.he_uniform()
    shape = (4, 8)
    key = fg.random.PRNGKey(3)
    want = np.asarray(jax.nn.initializers.he_uniform()(jax.random.PRNGKey(3), shape))
    np.testing.assert_allclose(fg.jit(lambda k: init(k, shape))(key), want, rtol=1e-6, atol=0)


# name: (factory arguments, the variance it promises given the shape's fans, distribution bound in stds)
N_SAMPLE = (256, 512)
STATS = {
    "glorot_normal": ((), lambda i, o: 2 / (i + o), 2 / 0.87962566103423978),
    "he_normal": ((), lambda i, o: 2 / i, 2 / 0.87962566103423978),
    "lecun_normal": ((), lambda i, o: 1 / i, 2 / 0.87962566103423978),
    "glorot_uniform": ((), lambda i, o: 2 / (i + o), math.sqrt(3)),
    "he_uniform": ((), lambda i, o: 2 / i, math.sqrt(3)),
    "variance_scaling": ((4.0, "fan_out", "normal"), lambda i, o: 4 / o, None),
}


@pytest.mark.parametrize("name", STATS)
def test_variance_scaling_samples_have_the_promised_statistics(name):
    args, variance, bound = STATS[name]
    x = np.asarray(getattr(I, name)(*args)(fg.random.PRNGKey(5), N_SAMPLE), np.float64)
    std = math.sqrt(variance(*N_SAMPLE))
    n = x.size
    # mean within 5 standard errors; the sample std within 5 of its standard errors (kurtosis <= 3)
    assert abs(x.mean()) < 5 * std / math.sqrt(n), f"{name}: mean {x.mean()}"
    assert abs(x.std() / std - 1) < 5 * math.sqrt(0.5 / n), f"{name}: std {x.std()} for {std}"
    if bound is not None:
        assert np.abs(x).max() < bound * std, f"{name}: |x| reaches {np.abs(x).max()}, past {bound * std}"
        assert np.abs(x).max() > 0.95 * bound * std, f"{name}: |x| stays below {np.abs(x).max()}"


def test_truncated_normal_initializer_is_not_corrected():
    x = np.asarray(I.truncated_normal(2.0)(fg.random.PRNGKey(1), N_SAMPLE), np.float64)
    assert np.abs(x).max() < 4.0
    assert abs(x.std() / (2.0 * 0.87962566103423978) - 1) < 5 * math.sqrt(0.5 / x.size)


@pytest.mark.parametrize("dtype", [None, jnp.float32, jnp.int32, jnp.float16])
def test_constant_initializers_are_jax_s(dtype):
    key, jkey = fg.random.PRNGKey(0), jax.random.PRNGKey(0)
    fdtype = None if dtype is None else np.dtype(dtype).name
    for name, fn, jfn in (("zeros", I.zeros, jax.nn.initializers.zeros), ("ones", I.ones, jax.nn.initializers.ones),
                          ("constant(-7)", I.constant(-7), jax.nn.initializers.constant(-7))):
        want = np.asarray(jfn(jkey, (2, 3), dtype))
        got = fn(key, (2, 3), fdtype)
        assert got.dtype == want.dtype, f"{name}: {got.dtype}, jax gives {want.dtype}"
        np.testing.assert_array_equal(got, want, err_msg=name)
    got = I.constant(2.5, dtype=fg.f16)(key, (4,))
    np.testing.assert_array_equal(got, jax.nn.initializers.constant(2.5, jnp.float16)(jkey, (4,)))


def test_initializers_refuse_what_jax_refuses():
    key = fg.random.PRNGKey(0)
    cases = [
        (fg.ShapeError, "glorot_normal", lambda: I.glorot_normal()(key, (5,)), r"1-axis shape \(5,\)"),
        (fg.ShapeError, "he_uniform", lambda: I.he_uniform(in_axis=3)(key, (2, 3)), r"axes 3 are not axes"),
        (fg.DTypeError, "lecun_normal", lambda: I.lecun_normal()(key, (2, 3), fg.i32), r"initializes floats"),
        (fg.DTypeError, "uniform", lambda: I.uniform()(key, (2, 3), "int32"), r"initializes floats"),
        (fg.ShapeError, "normal", lambda: I.normal()(key, (2, -3)), r"must be non-negative"),
        (fg.TraceError, "variance_scaling", lambda: I.variance_scaling(1.0, "fan_max", "normal"),
         r"invalid mode 'fan_max'"),
        (fg.TraceError, "variance_scaling", lambda: I.variance_scaling(1.0, "fan_in", "cauchy"),
         r"invalid distribution 'cauchy'"),
        (fg.TraceError, "zeros", lambda: I.zeros(key, (2,), out_sharding="x"), r"out_sharding"),
        (fg.DTypeError, "he_normal", lambda: I.he_normal()(np.zeros(3, np.float32), (2, 3)), r"normal: a key"),
        (fg.ShapeError, "glorot_uniform", lambda: I.xavier_uniform()(key, (0, 3)), r"no elements"),  # an alias
        (fg.ShapeError, "orthogonal", lambda: I.orthogonal()(key, (4,)), r"at least 2 axes"),
        (fg.ShapeError, "orthogonal", lambda: I.orthogonal(column_axis=2)(key, (2, 3)), r"column_axis 2"),
        (fg.ShapeError, "delta_orthogonal", lambda: I.delta_orthogonal()(key, (3, 3)), r"3, 4 or 5 axes"),
        (fg.ShapeError, "delta_orthogonal", lambda: I.delta_orthogonal()(key, (3, 4, 2)), r"fan_in 4 must be at most"),
    ]
    for error, name, call, message in cases:
        with pytest.raises(error, match=rf"^{name}: .*{message}"):
            call()


@pytest.mark.parametrize("name, args, shape", [
    ("orthogonal", (), (4, 4)), ("orthogonal", (1.5,), (3, 5)), ("orthogonal", (), (5, 3)),
    ("orthogonal", (1.0, 0), (2, 3, 4)), ("orthogonal", (), (0, 3)),
    ("delta_orthogonal", (), (3, 3, 3)), ("delta_orthogonal", (0.5,), (3, 3, 2, 4)),
    ("delta_orthogonal", (), (2, 3, 1, 2, 2)),
])
def test_orthogonal_initializers_are_jax_s_to_the_factorization_s_rounding(name, args, shape):
    key = fg.random.PRNGKey(3)
    want = np.asarray(getattr(jax.nn.initializers, name)(*args)(jax.random.PRNGKey(3), shape, jnp.float32))
    got = getattr(I, name)(*args)(key, shape)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)
    np.testing.assert_allclose(np.asarray(fg.jit(lambda k: getattr(I, name)(*args)(k, shape))(key)), got, atol=2e-6)


def test_fgrad_nn_has_jax_nn_s_names():
    left_out = {"scaled_matmul", "scaled_dot_general", "get_scaled_dot_general_config"}  # block-scaled fp8/fp4
    wanted = {n for n in dir(jax.nn) if not n.startswith("_")} - left_out
    assert wanted <= set(fg.nn.__all__), sorted(wanted - set(fg.nn.__all__))
    initializers = {n for n in dir(jax.nn.initializers) if not n.startswith("_")}
    assert initializers == set(I.__all__), sorted(initializers ^ set(I.__all__))
    for name in I.__all__:
        make = getattr(I, name)
        if name in ("Initializer", "zeros", "ones"):
            continue
        init = make(1.0, "fan_in", "normal") if name == "variance_scaling" else make(0.5) if name == "constant" \
            else make()
        assert isinstance(init, I.Initializer), name
