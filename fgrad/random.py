"""`fg.random`: JAX's functional pseudo-random numbers (`jax.random`), with JAX's bits.

A key is a raw u32[2] array, as `jax.random.PRNGKey` gives (fgrad has no typed key arrays:
`key(seed)` gives the same array, `key_data` / `wrap_key_data` / `clone` return it as it is, and
`key_impl` names threefry2x32; JAX's `key_dtype`, a typed key's dtype, has no counterpart). Every
function is written with fgrad's u32 operations: the Threefry-2x32 block cipher (Salmon et
al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011; Random123's threefry2x32 with 20
rounds) hashes one counter per element, so sampling is elementwise, fuses into the kernels
that use it, and gives the same bits eagerly, in `interpret` and on the device. The bits are
JAX's under its defaults (`jax_threefry_partitionable`): element i (row-major) of a sample of
any shape comes from threefry2x32(key, (0, i)), its two words xored; `split` gives as key i
both words of threefry2x32(key, (0, i)), and `fold_in(key, d)` those of threefry2x32(key, (0, d)).
The samplers then turn bits into values as jax.random's do: keys, bits, integers, bools,
permutations and uniform floats in [0, 1) equal JAX's; what passes through log or erf_inv
(normal, gumbel, ...) agrees to their rounding, and so do uniform floats between other bounds,
where XLA fuses x * (maxval - minval) + minval into one rounding. The other distributions (cauchy
to multinomial) are JAX's transforms of the same draws under the same splits of the key, the
rejection loops of gamma, poisson and binomial included, so they give JAX's values to the same
rounding. Keys may be traced values: a jitted training step draws its dropout masks from a key
argument.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import lax
from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError, TraceError, name_errors_after
from fgrad.ir import Dim, DType
from fgrad.primitives import iota_p
from fgrad.trace import Tensor, bind, spec_of, user_site
from fgrad.numpy.promotion import (ArrayLike, _as_dtype, _broadcast_shapes, _dtype, _float_dtype, _no_sharding,
                                   _one_axis, _shape, asarray, result_dtype)
from fgrad.numpy.shapes import _shape_arg

__all__ = [
    "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare", "choice",
    "clone", "dirichlet", "double_sided_maxwell", "exponential", "f", "fold_in", "gamma", "generalized_normal",
    "geometric", "gumbel", "key", "key_data", "key_impl", "laplace", "loggamma", "logistic", "lognormal", "maxwell",
    "multinomial", "multivariate_normal", "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher",
    "randint", "rayleigh", "split", "t", "threefry2x32", "triangular", "truncated_normal", "uniform", "wald",
    "weibull_min", "wrap_key_data",
]

Value = Tensor | np.ndarray
U32 = DType.u32
# Threefry-2x32's rotation distances, alternating by groups of four rounds, and the constant its
# third key word adds (Random123's SKEIN_KS_PARITY32).
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
KS_PARITY = 0x1BD11BDA


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------


def _rotate_left(x: Value, r: int) -> Value:
    return fnp.bitwise_or(fnp.left_shift(x, r), fnp.right_shift(x, 32 - r))


def _threefry(k0: Value, k1: Value, x0: Value, x1: Value) -> tuple[Value, Value]:
    """Threefry-2x32, 20 rounds, on u32 values that broadcast together."""
    ks = (k0, k1, fnp.bitwise_xor(fnp.bitwise_xor(k0, k1), KS_PARITY))
    x0, x1 = fnp.add(x0, ks[0]), fnp.add(x1, ks[1])
    for block in range(5):  # four rounds, then a key injection numbered block + 1
        for r in ROTATIONS[block % 2]:
            x0 = fnp.add(x0, x1)
            x1 = fnp.bitwise_xor(x0, _rotate_left(x1, r))
        x0 = fnp.add(x0, ks[(block + 1) % 3])
        x1 = fnp.add(fnp.add(x1, ks[(block + 2) % 3]), block + 1)
    return x0, x1


def threefry2x32(key: ArrayLike, x0: ArrayLike, x1: ArrayLike) -> tuple[Value, Value]:
    """The Threefry-2x32 block function (20 rounds) of the counter words `x0`, `x1` (u32 values
    that broadcast together) under `key`: the two words of its output, elementwise."""
    k = _key("threefry2x32", key)
    return _threefry(k[0], k[1], _u32("threefry2x32", x0), _u32("threefry2x32", x1))


def _u32(name: str, x: ArrayLike) -> Value:
    if type(x) is not int and _dtype(x) is not U32:
        raise DTypeError(f"{name}: counters are u32 values, got {spec_of(asarray(x))}", user_site())
    return asarray(x, U32)


def _counters(shape: tuple[int | Dim, ...]) -> Value:
    """Each element's row-major index in `shape`, as u32 (the low word of JAX's 64-bit counter;
    the high word is 0 below 2^32 elements): the sum of each axis's index times its stride."""
    index: Value = asarray(0, U32)
    for axis, size in enumerate(shape):
        term = bind(iota_p, shape=shape, axis=axis, dtype=U32)
        for later in shape[axis + 1:]:
            term = fnp.multiply(term, asarray(later, U32) if isinstance(later, Dim) else later)
        index = fnp.add(index, term)
    return index


def _words(key: Value, x1: Value) -> tuple[Value, Value]:
    """Both output words of Threefry-2x32 under the u32[2] `key`, at the counters (0, x1)."""
    return _threefry(key[0], key[1], 0, x1)


def _bits(key: Value, shape: tuple[int | Dim, ...]) -> Value:
    return fnp.bitwise_xor(*_words(key, _counters(shape)))


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


def _key(name: str, key: Any) -> Value:
    """`key` as a u32[2] value, or an error saying what a key is."""
    k = asarray(key)
    dtype, shape = _dtype(k), _shape(k)
    if dtype is U32 and shape == (2,):
        return k
    if dtype is U32 and shape[-1:] == (2,):
        raise ShapeError(f"{name}: takes one key, u32[2], got {spec_of(k)}: index the keys that split gave "
                         "(keys[0]); a function of many keys is a loop (or, later, vmap)", user_site())
    raise DTypeError(f"{name}: a key is a u32[2] array (from fg.random.key(seed), PRNGKey, split or fold_in), "
                     f"got {spec_of(k)}", user_site())


def _sample_shape(name: str, shape: Any, *params: ArrayLike) -> tuple[int | Dim, ...]:
    """A sample's shape argument; the shapes of `params` must broadcast to it."""
    return _broadcasts_to(name, _shape_arg(name, shape), *(_shape(p) for p in params))


def _param_shape(name: str, shape: Any, *params: ArrayLike) -> tuple[int | Dim, ...]:
    """A sample's shape argument, which `params` must broadcast to; their broadcast shape where None."""
    if shape is not None:
        return _sample_shape(name, shape, *params)
    shapes = [_shape(p) for p in params]
    out = _broadcast_shapes(*shapes)
    if out is None:
        raise ShapeError(f"{name}: parameter shapes {', '.join(map(str, shapes))} do not broadcast", user_site())
    return out


def _broadcasts_to(name: str, shape: tuple[int | Dim, ...], *shapes: tuple[int | Dim, ...]) -> tuple[int | Dim, ...]:
    if any(not isinstance(d, Dim) and d < 0 for d in shape):
        raise ShapeError(f"{name}: shape {shape} has a negative axis", user_site())
    if shapes and _broadcast_shapes(shape, *shapes) != shape:
        raise ShapeError(f"{name}: parameter shapes {', '.join(map(str, shapes))} must broadcast to the shape "
                         f"argument {shape}", user_site())
    return shape


def _dtype_arg(name: str, dtype: Any, default: DType, allowed: tuple[DType, ...]) -> DType:
    dt = default if dtype is None else _as_dtype(dtype, name)
    if dt not in allowed:
        raise DTypeError(f"{name}: dtype must be one of {', '.join(map(str, allowed))}, got {dt}", user_site())
    return dt


# The dtypes samplers draw, from the dtype table: f32, f16, bf16; i32, u32, i16, u16, i8, u8; the unsigned ones.
FLOATS = tuple(d for d in DType if d.is_float)
INTEGERS = tuple(d for d in DType if d.is_int)
UNSIGNED = tuple(d for d in DType if d.kind == "u")


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------


def _impl(name: str, impl: Any) -> None:
    if impl not in (None, "threefry2x32"):
        raise TraceError(f"{name}: impl must be 'threefry2x32' (fgrad's only PRNG) or None, got {impl!r}", user_site())


def PRNGKey(seed: ArrayLike, *, impl: str | None = None) -> Value:
    """A key, u32[2], from an integer seed: as jax.random.PRNGKey with 32-bit integers (x64 off),
    (0, seed mod 2^32). A Python int seed may be any 64-bit integer (its low 32 bits count, as
    in JAX); a traced i32 or u32 scalar seed gives a traced key. `impl` may name threefry2x32."""
    _impl("PRNGKey", impl)
    if len(_shape(seed)) != 0:
        raise ShapeError(f"PRNGKey: takes a scalar seed, got {spec_of(asarray(seed))}", user_site())
    if not _dtype(seed).is_int:
        raise DTypeError(f"PRNGKey: the seed must be an integer, got {spec_of(asarray(seed))}", user_site())
    if isinstance(seed, Tensor):
        return fnp.stack([asarray(0, U32), asarray(seed, U32)])
    if type(seed) is int and not -2**63 <= seed < 2**63:  # JAX reads a Python int seed as an int64
        raise DTypeError(f"PRNGKey: the seed {seed} does not fit 64 bits, as JAX's seeds must", user_site())
    return asarray(np.array([0, int(np.asarray(seed)) % 2**32], np.uint32))


def key(seed: ArrayLike, *, impl: str | None = None) -> Value:
    """A key from an integer seed (jax.random.key): fgrad's keys are the raw u32[2] arrays of
    `PRNGKey`, so this is `PRNGKey(seed)`."""
    _impl("key", impl)
    return PRNGKey(seed)


def _keys(name: str, keys: ArrayLike) -> Value:
    """`keys` as a u32[..., 2] value (any number of keys), or an error saying what keys are."""
    k = asarray(keys)
    if _dtype(k) is not U32 or _shape(k)[-1:] != (2,):
        raise DTypeError(f"{name}: keys are u32[..., 2] arrays, got {spec_of(k)}", user_site())
    return k


def key_data(keys: ArrayLike) -> Value:
    """The u32[..., 2] data of keys: fgrad's keys are their data, returned as they are."""
    return _keys("key_data", keys)


def wrap_key_data(key_bits_array: ArrayLike, *, impl: str | None = None) -> Value:
    """Keys from their u32[..., 2] data: fgrad's keys are their data, returned as they are."""
    _impl("wrap_key_data", impl)
    return _keys("wrap_key_data", key_bits_array)


def key_impl(keys: ArrayLike) -> str:
    """The name of the PRNG that made `keys`: "threefry2x32", which jax.random.key_impl gives for
    raw keys too."""
    _keys("key_impl", keys)
    return "threefry2x32"


def clone(key: ArrayLike) -> Value:
    """A key to use again (jax.random.clone): with no key-reuse checking to tell, the key itself."""
    return _keys("clone", key)


def split(key: ArrayLike, num: int | Sequence[int] = 2) -> Value:
    """`num` new keys (a shape, where a tuple) from `key`, stacked along a leading axis: u32[num, 2]."""
    k = _key("split", key)
    shape = _sample_shape("split", num)
    return fnp.stack(_words(k, _counters(shape)), axis=-1)


def fold_in(key: ArrayLike, data: ArrayLike) -> Value:
    """A new key from `key` and the integer `data` (a Python int in 0..2^32-1, or an integer or
    bool scalar, possibly traced, read as u32)."""
    k = _key("fold_in", key)
    shape = _shape(data)
    if shape != () or not (_dtype(data).is_int or _dtype(data) is DType.bool):
        raise DTypeError(f"fold_in: data must be an integer scalar, got {spec_of(asarray(data))}", user_site())
    if type(data) is int and not 0 <= data < 2**32:
        raise DTypeError(f"fold_in: data {data} does not fit u32 (0..4294967295), as jax.random.fold_in requires",
                         user_site())
    return fnp.stack(_words(k, asarray(data, U32)))


# ---------------------------------------------------------------------------
# Samplers
# ---------------------------------------------------------------------------


def bits(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Uniformly random bits of `shape`, of an unsigned `dtype` (u32 unless given), as JAX's: an u8's
    and a u16's are the low bits of the u32 drawn in their place."""
    dtype = _dtype_arg("bits", dtype, U32, UNSIGNED)
    return fnp.astype(_bits(_key("bits", key), _sample_shape("bits", shape)), dtype)


def _uniform(k: Value, shape: tuple[int | Dim, ...], dtype: DType, minval: ArrayLike, maxval: ArrayLike) -> Value:
    return _floats(_bits(k, shape), dtype, minval, maxval)


def _floats(bits: Value, dtype: DType, minval: ArrayLike = 0.0, maxval: ArrayLike = 1.0) -> Value:
    """Uniform floats of `dtype` in [minval, maxval) from u32 `bits`, as JAX's uniform makes them."""
    # JAX draws as many bits as the dtype has (the low 16 for f16), at least 8 (the low 8 for
    # bfloat16), keeps the top `nmant` of them as the mantissa of a float in [1, 2) and subtracts
    # 1: exactly the mantissa bits times 2^-nmant, computed so here.
    nmant = int(dtype.finfo.nmant)
    nbits = max(8 * dtype.itemsize, 8) if nmant >= 8 else 8
    mantissa = fnp.right_shift(bits if nbits == 32 else fnp.bitwise_and(bits, 2**nbits - 1), nbits - nmant)
    floats = fnp.multiply(fnp.astype(mantissa, dtype), 2.0**-nmant)
    minval, maxval = asarray(minval, dtype), asarray(maxval, dtype)
    return fnp.maximum(minval, fnp.add(fnp.multiply(floats, fnp.subtract(maxval, minval)), minval))


def uniform(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None, minval: ArrayLike = 0.0,
            maxval: ArrayLike = 1.0) -> Value:
    """Uniform floats in [minval, maxval) of `shape` (f32 unless `dtype`); the bounds broadcast to it."""
    dtype = _dtype_arg("uniform", dtype, DType.f32, FLOATS)
    return _uniform(_key("uniform", key), _sample_shape("uniform", shape, minval, maxval), dtype, minval, maxval)


def normal(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Standard normal floats of `shape`: sqrt(2) erfinv(u) for u uniform in (-1, 1), as JAX's."""
    dtype = _dtype_arg("normal", dtype, DType.f32, FLOATS)
    return _normals(_bits(_key("normal", key), _sample_shape("normal", shape)), dtype)


def _normals(bits: Value, dtype: DType) -> Value:
    low = np.nextafter(np.array(-1.0, dtype.np), np.array(0.0, dtype.np))
    return fnp.multiply(fnp.erfinv(_floats(bits, dtype, float(low), 1.0)), math.sqrt(2))


def _next_float(name: str, x: ArrayLike, dtype: DType, up: bool) -> Value:
    """The float of `dtype` next to x toward +inf (`up`) or -inf, as lax.nextafter, with no gradient:
    on the host for a known value, else on the bits of an f32 (a zero steps to the least subnormal)."""
    if not isinstance(x, Tensor):
        with np.errstate(over="ignore"):  # the largest float steps to inf
            return asarray(np.nextafter(np.asarray(x, dtype.np), np.array(np.inf if up else -np.inf, dtype.np)))
    if dtype is not DType.f32:
        raise DTypeError(f"{name}: traced {dtype} bounds are not supported (fgrad bit casts f32 only); pass them "
                         "as numbers or arrays, or use f32", user_site())
    x = fnp.stop_gradient(asarray(x, dtype))
    bits = lax.bitcast_convert_type(x, DType.i32)
    step = fnp.where(fnp.greater_equal(bits, 0) if up else fnp.less(bits, 0), 1, -1)
    # zero tested on the bits: a GPU that flushes subnormals would take one for zero
    zero = fnp.equal(fnp.bitwise_and(bits, 0x7FFFFFFF), 0)
    moved = fnp.where(zero, 1 if up else -2**31 + 1, fnp.add(bits, step))
    fixed = fnp.logical_or(fnp.isnan(x), fnp.equal(x, np.inf if up else -np.inf))
    return fnp.where(fixed, x, lax.bitcast_convert_type(moved, dtype))


def truncated_normal(key: ArrayLike, lower: ArrayLike, upper: ArrayLike, shape: int | Sequence[int] | None = None,
                     dtype: Any = None) -> Value:
    """Normal floats truncated to the open interval (lower, upper), of `shape` (the bounds'
    broadcast shape where None): the inverse normal CDF of a uniform between the bounds', clipped
    strictly inside them, as JAX's."""
    dtype = _dtype_arg("truncated_normal", dtype, DType.f32, FLOATS)
    shape = _param_shape("truncated_normal", shape, lower, upper)
    low, high = asarray(lower, dtype), asarray(upper, dtype)
    a = fnp.erf(fnp.divide(low, math.sqrt(2)))
    b = fnp.erf(fnp.divide(high, math.sqrt(2)))
    out = fnp.multiply(fnp.erfinv(_uniform(_key("truncated_normal", key), shape, dtype, a, b)), math.sqrt(2))
    above = _next_float("truncated_normal", lower, dtype, up=True)
    below = _next_float("truncated_normal", upper, dtype, up=False)
    return fnp.clip(out, above, below)  # rounding (or u = a) must not reach a bound


def bernoulli(key: ArrayLike, p: ArrayLike = 0.5, shape: int | Sequence[int] | None = None,
              mode: str = "low") -> Value:
    """Bools that are True with probability `p` (a float, broadcast to `shape`; `shape` is p's
    where None). mode "high" draws twice the bits, for p below about 1e-7."""
    if mode not in ("high", "low"):
        raise TraceError(f"bernoulli: mode must be 'high' or 'low', got {mode!r}", user_site())
    dtype = _dtype(p)
    if not dtype.is_float:
        raise DTypeError(f"bernoulli: the probability p must be a float, got {spec_of(asarray(p))}", user_site())
    p = asarray(p)
    shape = _sample_shape("bernoulli", _shape(p) if shape is None else shape, p)
    k = _key("bernoulli", key)
    if mode == "low":
        return fnp.less(_uniform(k, shape, dtype, 0.0, 1.0), p)
    u = _uniform(k, (2, *shape), dtype, 0.0, 1.0)
    # the second draw refines the first below its resolution, 2^-nmant
    return fnp.less(fnp.multiply(u[1], 2.0 ** -int(dtype.finfo.nmant)), fnp.subtract(p, u[0]))


def gumbel(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None, mode: str | None = None) -> Value:
    """Gumbel floats of `shape`: -log(-log(u)) for u uniform in [tiny, 1). mode "high" draws twice
    the bits, reaching further into the tail (about 32 instead of 16 for f32)."""
    dtype = _dtype_arg("gumbel", dtype, DType.f32, FLOATS)
    return _gumbel("gumbel", _key("gumbel", key), _sample_shape("gumbel", shape), dtype, mode)


def _gumbel(name: str, k: Value, shape: tuple[int | Dim, ...], dtype: DType, mode: str | None) -> Value:
    info = dtype.finfo
    if mode in (None, "low"):
        u = _uniform(k, shape, dtype, float(info.tiny), 1.0)
        return fnp.neg(fnp.log(fnp.neg(fnp.log(u))))
    if mode != "high":
        raise TraceError(f"{name}: mode must be 'low' or 'high', got {mode!r}", user_site())
    u = _uniform(k, (2, *shape), dtype, 0.0, 1.0)
    high, low = u[0], u[1]
    x = fnp.where(fnp.greater_equal(high, 0.5), high,
                  fnp.add(fnp.add(high, fnp.multiply(low, 2.0 ** -int(info.nmant))), float(info.tiny)))
    return fnp.neg(fnp.log(fnp.neg(fnp.log1p(fnp.neg(x)))))


def categorical(key: ArrayLike, logits: ArrayLike, axis: int = -1, shape: int | Sequence[int] | None = None,
                replace: bool = True, mode: str | None = None) -> Value:
    """Indices (i32) drawn from the categorical distributions softmax(logits) along `axis`, by the
    Gumbel-max trick, as JAX's. `shape` must end with the batch shape (logits' without `axis`)
    after broadcasting; by default it is the batch shape."""
    k, logits = _key("categorical", key), asarray(logits)
    dtype = _dtype(logits)
    if not dtype.is_float:
        raise DTypeError(f"categorical: logits must be floats, got {spec_of(logits)}", user_site())
    full = _shape(logits)
    axis = _one_axis("categorical", logits, axis)
    batch = full[:axis] + full[axis + 1:]
    shape = batch if shape is None else _broadcasts_to("categorical", _shape_arg("categorical", shape), batch)
    prefix = shape[:len(shape) - len(batch)]
    if replace:  # the Gumbel-max trick, a draw of noise per sample
        drawn = list(shape[len(prefix):])
        drawn.insert(axis, full[axis])
        noise = _gumbel("categorical", k, (*prefix, *drawn), dtype, mode)
        return fnp.argmax(fnp.add(noise, fnp.reshape(logits, (1,) * len(prefix) + full)), axis=len(prefix) + axis)
    # The Gumbel top-k trick: one draw of noise, the samples the k largest of logits + noise.
    count = math.prod(prefix)
    if count > full[axis]:
        raise ShapeError(f"categorical: cannot take {count} samples without replacement from {full[axis]} "
                         f"categories (logits {spec_of(logits)}, axis {axis})", user_site())
    noisy = fnp.add(logits, _gumbel("categorical", k, full, dtype, mode))
    last = len(full) - 1
    _, indices = lax.top_k(fnp.transpose(noisy, [*range(axis), *range(axis + 1, len(full)), axis]), count)
    return fnp.reshape(fnp.transpose(indices, [last, *range(last)]), shape)


def exponential(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Exponential floats of `shape` (rate 1): -log1p(-u) for u uniform in [0, 1)."""
    dtype = _dtype_arg("exponential", dtype, DType.f32, FLOATS)
    u = _uniform(_key("exponential", key), _sample_shape("exponential", shape), dtype, 0.0, 1.0)
    return fnp.neg(fnp.log1p(fnp.neg(u)))


def laplace(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Laplace floats of `shape` (density exp(-|x|)/2): sign(u) log1p(-|u|) for u uniform in (-1, 1)."""
    dtype = _dtype_arg("laplace", dtype, DType.f32, FLOATS)
    low = -1.0 + float(dtype.finfo.epsneg)
    u = _uniform(_key("laplace", key), _sample_shape("laplace", shape), dtype, low, 1.0)
    return fnp.multiply(fnp.sign(u), fnp.log1p(fnp.neg(fnp.abs(u))))


def _clipped(x: Value, dtype: DType) -> Value:
    """An integer value converted to `dtype`, clipped into its range instead of wrapping."""
    if _dtype(x) is dtype:
        return x
    have, want = np.iinfo(_dtype(x).np), np.iinfo(dtype.np)
    return fnp.astype(fnp.clip(x, max(int(have.min), int(want.min)), min(int(have.max), int(want.max))), dtype)


def randint(key: ArrayLike, shape: int | Sequence[int], minval: ArrayLike, maxval: ArrayLike,
            dtype: Any = None) -> Value:
    """Integers uniform in [minval, maxval) of `shape` (i32 unless `dtype`); the bounds broadcast to
    it, and where maxval <= minval the result is minval. As JAX's: two 32-bit draws per value
    reduced modulo the span, biased by at most span^2 / 2^64. A narrower dtype is drawn as i32s in
    its range (maxval up to one past its largest), converted, as JAX's."""
    dtype = _dtype_arg("randint", dtype, DType.i32, INTEGERS)
    k = _key("randint", key)
    shape = _sample_shape("randint", shape, minval, maxval)
    if dtype.itemsize < 4:
        info = np.iinfo(dtype.np)
        low, high = (fnp.clip(fnp.astype(asarray(v), DType.i32), int(info.min), int(info.max) + extra)
                     for v, extra in ((minval, 0), (maxval, 1)))
        return fnp.astype(randint(k, shape, low, high, DType.i32), dtype)
    minval, maxval = (asarray(v, _dtype(v) if _dtype(v).is_int else DType.i32) for v in (minval, maxval))
    # A maxval past dtype's range (a u32 beyond i32's) makes the span one larger.
    limit = min(int(np.iinfo(dtype.np).max), int(np.iinfo(_dtype(maxval).np).max))
    beyond = fnp.greater(maxval, limit)
    minval, maxval = _clipped(minval, dtype), _clipped(maxval, dtype)
    keys = split(k)
    higher, lower = _bits(keys[0], shape), _bits(keys[1], shape)
    span = fnp.astype(fnp.subtract(maxval, minval), U32)
    span = fnp.where(fnp.less_equal(maxval, minval), asarray(1, U32), span)
    span = fnp.where(fnp.logical_and(beyond, fnp.greater(maxval, minval)), fnp.add(span, 1), span)
    # (higher 2^32 + lower) mod span, with 2^32 mod span as (2^16 mod span)^2 mod span
    multiplier = lax.rem(asarray(2**16, U32), span)
    multiplier = lax.rem(fnp.multiply(multiplier, multiplier), span)
    offset = fnp.add(fnp.multiply(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    return fnp.add(minval, fnp.astype(lax.rem(offset, span), dtype))


def _shuffle(k: Value, x: Value, axis: int) -> Value:
    """x reordered along `axis` by sorting on random u32 keys, as JAX's: rounds of fresh keys,
    a stable sort each, enough that ties among n keys are unlikely (3 log n / log(2^32 - 1))."""
    size = math.prod(_shape(x))
    for _ in range(math.ceil(3 * math.log(max(1, size)) / math.log(2**32 - 1))):
        keys = split(k)
        k = keys[0]
        order = fnp.argsort(_bits(keys[1], _shape(x)), axis=axis, stable=True)
        x = fnp.take_along_axis(x, order, axis=axis)
    return x


def permutation(key: ArrayLike, x: ArrayLike, axis: int = 0, independent: bool = False) -> Value:
    """A random permutation of x along `axis`, or of arange(x) for an integer x; with
    `independent`, each slice along `axis` is permuted on its own."""
    k = _key("permutation", key)
    if isinstance(x, Tensor) and x.ndim == 0:
        raise TraceError(f"permutation: x is a traced scalar {x.spec}; the length of arange(x) must be a "
                         "Python integer", user_site())
    if not isinstance(x, Tensor) and len(_shape(x)) == 0:
        if not _dtype(x).is_int:
            raise DTypeError(f"permutation: x must be an integer or an array, got {x!r}", user_site())
        return _shuffle(k, fnp.arange(int(x)), 0)
    x = asarray(x)
    axis = _one_axis("permutation", x, axis)
    if independent or len(_shape(x)) == 1:
        return _shuffle(k, x, axis)
    return fnp.take(x, _shuffle(k, fnp.arange(_shape(x)[axis]), 0), axis=axis)


def choice(key: ArrayLike, a: ArrayLike, shape: Sequence[int] = (), replace: bool = True,
           p: ArrayLike | None = None, axis: int = 0, mode: str | None = None) -> Value:
    """Samples of `shape` from the elements of `a` along `axis` (of arange(a) for an integer a),
    uniformly (p None) or with probabilities `p`; without `replace`, distinct ones, as JAX's
    (`mode` is gumbel's, for p without `replace`)."""
    k = _key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise ShapeError(f"choice: shape must be a sequence, got {shape!r}", user_site())
    if isinstance(a, Tensor) and a.ndim == 0:
        raise TraceError(f"choice: a is a traced scalar {a.spec}; the number of choices must be a Python integer",
                         user_site())
    scalar = not isinstance(a, Tensor) and len(_shape(a)) == 0
    if scalar and not _dtype(a).is_int:
        raise DTypeError(f"choice: a must be an integer or an array, got {a!r}", user_site())
    arr = None if scalar else asarray(a)
    n = int(a) if scalar else _shape(arr)[_one_axis("choice", arr, axis)]
    axis = 0 if scalar else _one_axis("choice", arr, axis)
    draws = math.prod(shape)
    if not replace and draws > n:
        raise ShapeError(f"choice: cannot take {draws} distinct samples from {n} without replacement", user_site())
    if p is None and replace:
        index = randint(k, shape, 0, n)
    elif p is None:
        index = fnp.reshape(permutation(k, n)[:draws], shape)
    elif replace:
        cumulative = fnp.cumsum(asarray(p))
        r = fnp.multiply(cumulative[-1], fnp.subtract(1.0, uniform(k, shape, _dtype(cumulative))))
        index = fnp.sum(fnp.less(cumulative, fnp.expand_dims(r, -1)), axis=-1)  # searchsorted, side="left"
    else:  # the Gumbel top-k trick
        p = asarray(p)
        noisy = fnp.add(_gumbel("choice", k, (n,), _dtype(p), mode), fnp.log(p))
        index = lax.top_k(noisy, draws)[1]
    if scalar:
        return index
    out = fnp.take(arr, fnp.reshape(index, (-1,)), axis=axis)
    full = _shape(arr)
    return fnp.reshape(out, full[:axis] + tuple(shape) + full[axis + 1:])


# ---------------------------------------------------------------------------
# Distributions: JAX's transforms of the draws above, with JAX's keys
# ---------------------------------------------------------------------------


def _real(name: str, what: str, x: ArrayLike, dtype: DType) -> Value:
    """A distribution's parameter as a `dtype` value, or an error if it is not a real number."""
    if not (_dtype(x).is_float or _dtype(x).is_int):
        raise DTypeError(f"{name}: {what} must be real numbers, got {spec_of(asarray(x))}", user_site())
    return asarray(x, dtype)


def _float_args(name: str, key: ArrayLike, dtype: Any) -> tuple[Value, DType]:
    return _key(name, key), _dtype_arg(name, dtype, DType.f32, FLOATS)


def cauchy(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Cauchy floats of `shape` (density 1 / (pi (1 + x^2))): tan(pi (u - 1/2)) for u uniform in [eps, 1)."""
    k, dtype = _float_args("cauchy", key, dtype)
    u = _uniform(k, _sample_shape("cauchy", shape), dtype, float(dtype.finfo.eps), 1.0)
    return fnp.tan(fnp.multiply(math.pi, fnp.subtract(u, 0.5)))


def logistic(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Logistic floats of `shape`: log(u) - log1p(-u) for u uniform in [tiny, 1)."""
    k, dtype = _float_args("logistic", key, dtype)
    x = _uniform(k, _sample_shape("logistic", shape), dtype, float(dtype.finfo.tiny), 1.0)
    return fnp.subtract(fnp.log(x), fnp.log1p(fnp.neg(x)))


def lognormal(key: ArrayLike, sigma: ArrayLike = 1.0, shape: int | Sequence[int] | None = None,
              dtype: Any = None) -> Value:
    """Log-normal floats, exp(sigma z) for z standard normal, of `shape` (sigma's where None)."""
    k, dtype = _float_args("lognormal", key, dtype)
    shape = _param_shape("lognormal", shape, sigma)
    return fnp.exp(fnp.multiply(_normals(_bits(k, shape), dtype), _real("lognormal", "sigma", sigma, dtype)))


def _exponentials(k: Value, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    return fnp.neg(fnp.log1p(fnp.neg(_uniform(k, shape, dtype, 0.0, 1.0))))


def pareto(key: ArrayLike, b: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Pareto floats (density b / x^(b + 1) on x >= 1): exp(e / b) for e exponential."""
    k, dtype = _float_args("pareto", key, dtype)
    shape = _param_shape("pareto", shape, b)
    return fnp.exp(fnp.divide(_exponentials(k, shape, dtype), _real("pareto", "b", b, dtype)))


def weibull_min(key: ArrayLike, scale: ArrayLike, concentration: ArrayLike, shape: int | Sequence[int] = (),
                dtype: Any = None) -> Value:
    """Weibull floats, scale (-log1p(-u))^(1 / concentration) for u uniform in [0, 1) of `shape`;
    the parameters broadcast with it, as in JAX."""
    k, dtype = _float_args("weibull_min", key, dtype)
    u = _uniform(k, _sample_shape("weibull_min", shape), dtype, 0.0, 1.0)
    scale = _real("weibull_min", "scale", scale, dtype)
    power = fnp.divide(1.0, _real("weibull_min", "concentration", concentration, dtype))
    if _broadcast_shapes(_shape(u), _shape(scale), _shape(power)) is None:
        raise ShapeError(f"weibull_min: shape {_shape(u)}, scale {_shape(scale)} and concentration "
                         f"{_shape(power)} do not broadcast", user_site())
    return fnp.multiply(fnp.power(fnp.neg(fnp.log1p(fnp.neg(u))), power), scale)


def rayleigh(key: ArrayLike, scale: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Rayleigh floats, scale sqrt(-2 log u) for u uniform in [0, 1), of `shape` (scale's where None)."""
    k, dtype = _float_args("rayleigh", key, dtype)
    shape = _param_shape("rayleigh", shape, scale)
    u = _uniform(k, shape, dtype, 0.0, 1.0)
    scale = fnp.broadcast_to(_real("rayleigh", "scale", scale, dtype), shape)
    return fnp.multiply(scale, fnp.sqrt(fnp.multiply(fnp.log(u), -2.0)))


def maxwell(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """One-sided Maxwell floats of `shape`: the length of a standard normal 3-vector."""
    k, dtype = _float_args("maxwell", key, dtype)
    return _maxwells(k, _sample_shape("maxwell", shape), dtype)


def _maxwells(k: Value, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    z = _normals(_bits(k, (*shape, 3)), dtype)
    return fnp.sqrt(fnp.sum(fnp.multiply(z, z), axis=-1))


def double_sided_maxwell(key: ArrayLike, loc: ArrayLike, scale: ArrayLike, shape: int | Sequence[int] = (),
                         dtype: Any = None) -> Value:
    """Maxwell floats with a random sign, times scale, plus loc. As in JAX the sample's shape is
    `shape` followed by the parameters' broadcast shape (that alone where `shape` is empty)."""
    k, dtype = _float_args("double_sided_maxwell", key, dtype)
    loc = _real("double_sided_maxwell", "loc", loc, dtype)
    scale = _real("double_sided_maxwell", "scale", scale, dtype)
    params = _param_shape("double_sided_maxwell", None, loc, scale)
    shape = _sample_shape("double_sided_maxwell", shape)
    shape = (*(shape or params), *params)
    maxwell_key, sign_key = _split2(k)
    signs = _rademachers(sign_key, shape, dtype)
    return fnp.add(fnp.multiply(fnp.multiply(signs, _maxwells(maxwell_key, shape, dtype)), scale), loc)


def rademacher(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """-1 or 1 with equal probability, of `shape` (i32 unless `dtype`): 2 b - 1 for b bernoulli(1/2)."""
    k = _key("rademacher", key)
    dtype = _dtype_arg("rademacher", dtype, DType.i32, INTEGERS + FLOATS)
    return _rademachers(k, _sample_shape("rademacher", shape), dtype)


def _rademachers(k: Value, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    b = fnp.astype(fnp.less(_uniform(k, shape, DType.f32, 0.0, 1.0), 0.5), dtype)
    return fnp.subtract(fnp.multiply(b, 2), 1)


def wald(key: ArrayLike, mean: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Wald (inverse Gaussian, scale 1) floats of `shape` (mean's where None), by Michael, Schucany
    and Haas's transform of a normal and a uniform draw, as JAX's."""
    k, dtype = _float_args("wald", key, dtype)
    shape = _param_shape("wald", shape, mean)
    k1, k2 = _split2(k)
    mean = fnp.broadcast_to(_real("wald", "mean", mean, dtype), shape)
    v, z = _normals(_bits(k1, shape), dtype), _uniform(k2, shape, dtype, 0.0, 1.0)
    y = fnp.multiply(v, v)
    mean_sq = fnp.multiply(mean, mean)
    root = fnp.sqrt(fnp.add(fnp.multiply(fnp.multiply(mean, 4.0), y), fnp.multiply(mean_sq, fnp.multiply(y, y))))
    x = fnp.subtract(fnp.add(mean, fnp.divide(fnp.multiply(mean_sq, y), 2.0)),
                     fnp.multiply(fnp.divide(mean, 2.0), root))
    return fnp.where(fnp.less_equal(z, fnp.divide(mean, fnp.add(mean, x))), x, fnp.divide(mean_sq, x))


def geometric(key: ArrayLike, p: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...), of `shape` (p's where
    None), i32 unless `dtype`: floor(log u / log1p(-p)) + 1 for u uniform in (0, 1]."""
    k = _key("geometric", key)
    dtype = _dtype_arg("geometric", dtype, DType.i32, INTEGERS)
    shape = _param_shape("geometric", shape, p)
    p = _real("geometric", "p", p, _dtype(p) if _dtype(p).is_float else DType.f32)
    u = _uniform(k, shape, _dtype(p), 0.0, 1.0)
    log_u = fnp.log(fnp.where(fnp.equal(u, 0.0), asarray(1.0, _dtype(p)), u))  # u = 0 read as 1, as JAX does
    ratio = fnp.divide(log_u, fnp.broadcast_to(fnp.log1p(fnp.neg(p)), shape))
    return fnp.astype(fnp.add(fnp.floor(ratio), 1.0), dtype)


def triangular(key: ArrayLike, left: ArrayLike, mode: ArrayLike, right: ArrayLike,
               shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Triangular floats on [left, right] peaking at `mode`, of `shape` (the parameters' broadcast
    shape where None), by inverting the CDF of a uniform draw."""
    k, dtype = _float_args("triangular", key, dtype)
    shape = _param_shape("triangular", shape, left, mode, right)
    left, mode, right = (fnp.broadcast_to(_real("triangular", what, x, dtype), shape)
                         for what, x in (("left", left), ("mode", mode), ("right", right)))
    width = fnp.subtract(right, left)
    u = _uniform(k, shape, dtype, 0.0, 1.0)
    below = fnp.add(left, fnp.sqrt(fnp.multiply(fnp.multiply(u, width), fnp.subtract(mode, left))))
    above = fnp.subtract(right, fnp.sqrt(fnp.multiply(fnp.multiply(fnp.subtract(1.0, u), width),
                                                      fnp.subtract(right, mode))))
    return fnp.where(fnp.less(u, fnp.divide(fnp.subtract(mode, left), width)), below, above)


def _split2(k: Value) -> tuple[Value, Value]:
    """split(k) as two keys."""
    w0, w1 = _words(k, _counters((2,)))
    return fnp.stack([w0[0], w1[0]]), fnp.stack([w0[1], w1[1]])


# Gamma: Marsaglia and Tsang's rejection sampler ("A simple method for generating gamma
# variables", ACM TOMS 2000), as JAX's: element i of the sample runs the sampler on its own key,
# split(key, n)[i], and each key's sequence of splits and draws is JAX's. JAX's per-element loops
# (a loop for v = 1 + c x > 0 inside the accept/reject loop) become one while loop over the
# whole sample: each round, every element not yet accepted takes its next normal draw.


def _split_each(k0: Value, k1: Value, num: int) -> list[tuple[Value, Value]]:
    """split(key, num) of each key (k0, k1), elementwise: key j is both words at counter j (one
    Threefry over a trailing axis of the counters, which traces a fraction of `num` calls)."""
    w0, w1 = _threefry(fnp.expand_dims(k0, -1), fnp.expand_dims(k1, -1), 0, np.arange(num, dtype=np.uint32))
    return [(w0[..., j], w1[..., j]) for j in range(num)]


def _bits_each(*keys: tuple[Value, Value]) -> list[Value]:
    """bits(key, ()) of each key (k0, k1) of each of `keys`, elementwise, in one Threefry."""
    bits = fnp.bitwise_xor(*_threefry(fnp.stack([k[0] for k in keys]), fnp.stack([k[1] for k in keys]), 0, 0))
    return [bits[i] for i in range(len(keys))]


def _gammas(k: Value, a: Value, shape: tuple[int | Dim, ...], dtype: DType, log_space: bool) -> Value:
    alpha_orig = fnp.broadcast_to(a, shape)
    loop_key, boost_key = _split_each(*_words(k, _counters(shape)), 2)
    boosted = fnp.greater_equal(alpha_orig, 1.0)  # Gamma(a) = Gamma(a + 1) u^(1 / a) for a < 1
    alpha = fnp.where(boosted, alpha_orig, fnp.add(alpha_orig, 1.0))
    d = fnp.subtract(alpha, 1 / 3)
    c = fnp.divide(1 / 3, fnp.sqrt(d))

    def rejected(xx: Value, v: Value, u: Value) -> Value:
        squeeze = fnp.greater_equal(u, fnp.subtract(1.0, fnp.multiply(0.0331, fnp.multiply(xx, xx))))
        bound = fnp.add(fnp.multiply(xx, 0.5), fnp.multiply(d, fnp.add(fnp.subtract(1.0, v), fnp.log(v))))
        return fnp.logical_and(squeeze, fnp.greater_equal(fnp.log(u), bound))

    def full(x: ArrayLike, dt: DType) -> Value:
        return fnp.broadcast_to(asarray(x, dt), shape)

    # JAX's loop starts from X = 0, V = 1, U = 2, rejected unless d is NaN
    done = fnp.logical_not(rejected(full(0.0, dtype), full(1.0, dtype), full(2.0, dtype)))
    (key0, key1), (x0, x1), (u0, u1) = _split_each(*loop_key, 3)

    def round_(carry: tuple[Value, ...]) -> tuple[Value, ...]:
        key0, key1, x0, x1, u0, u1, v_accepted, done = carry
        next_x, draw = _split_each(x0, x1, 2)
        x_bits, u_bits = _bits_each(draw, (u0, u1))
        x = _normals(x_bits, dtype)
        v = fnp.add(1.0, fnp.multiply(x, c))
        drawn = fnp.logical_and(fnp.logical_not(done), fnp.logical_not(fnp.less_equal(v, 0.0)))
        cube = fnp.multiply(fnp.multiply(v, v), v)
        cube = fnp.where(drawn, cube, 1.0)  # the others' v may be negative: keep them out of the log
        again = fnp.logical_and(drawn, rejected(fnp.multiply(x, x), cube, _floats(u_bits, dtype)))
        accept = fnp.logical_and(drawn, fnp.logical_not(again))
        (new0, new1), (nx0, nx1), (nu0, nu1) = _split_each(key0, key1, 3)
        x0, x1 = (fnp.where(again, n, fnp.where(done, old, m)) for n, old, m in ((nx0, x0, next_x[0]),
                                                                                  (nx1, x1, next_x[1])))
        key0, key1, u0, u1 = (fnp.where(again, n, old) for n, old in ((new0, key0), (new1, key1), (nu0, u0),
                                                                       (nu1, u1)))
        return key0, key1, x0, x1, u0, u1, fnp.where(accept, cube, v_accepted), fnp.logical_or(done, accept)

    carry = (key0, key1, x0, x1, u0, u1, full(1.0, dtype), done)
    v = lax.while_loop(lambda c: fnp.any(fnp.logical_not(c[-1])), round_, carry)[-2]
    u = _floats(_bits_each(boost_key)[0], dtype)
    if log_space:
        log_u = fnp.neg(fnp.neg(fnp.log1p(fnp.neg(u))))  # minus an exponential draw, as JAX's
        keep = fnp.logical_or(boosted, fnp.equal(log_u, 0.0))
        log_boost = fnp.where(keep, asarray(0.0, dtype), fnp.multiply(log_u, fnp.divide(1.0, alpha_orig)))
        return fnp.add(fnp.add(fnp.log(d), fnp.log(v)), log_boost)
    boost = fnp.where(boosted, asarray(1.0, dtype), fnp.power(fnp.subtract(1.0, u), fnp.divide(1.0, alpha_orig)))
    return fnp.multiply(fnp.multiply(d, v), boost)


# Poisson: as JAX's (and TensorFlow's and NumPy's), Knuth's product of uniforms for lam < 10 and
# Hormann's transformed rejection ("The transformed rejection method for generating Poisson random
# variables", 1993) from 10 up. Both loops draw a whole sample a round from one key, and run over
# the whole sample; JAX also stops them at the dtype's largest integer of rounds, never reached.


def _poisson_knuth(k: Value, lam: Value, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    def round_(carry: tuple[Value, ...]) -> tuple[Value, ...]:
        count, key, log_prod = carry
        key, draw = _split2(key)
        count = fnp.where(fnp.greater(log_prod, fnp.neg(lam)), fnp.add(count, asarray(1, dtype)), count)
        return count, key, fnp.add(log_prod, fnp.log(_uniform(draw, shape, DType.f32, 0.0, 1.0)))

    carry = (fnp.zeros(shape, dtype.np), k, fnp.zeros(shape, np.float32))
    count = lax.while_loop(lambda c: fnp.any(fnp.greater(c[2], fnp.neg(lam))), round_, carry)[0]
    return fnp.subtract(count, asarray(1, dtype))


def _poisson_rejection(k: Value, lam: Value, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    log_lam = fnp.log(lam)
    b = fnp.add(0.931, fnp.multiply(2.53, fnp.sqrt(lam)))
    a = fnp.add(-0.059, fnp.multiply(0.02483, b))
    inv_alpha = fnp.add(1.1239, fnp.divide(1.1328, fnp.subtract(b, 3.4)))
    v_r = fnp.subtract(0.9277, fnp.divide(3.6224, fnp.subtract(b, 2.0)))

    def round_(carry: tuple[Value, ...]) -> tuple[Value, ...]:
        k_out, accepted, key = carry
        keys = split(key, 3)
        u = fnp.subtract(_uniform(keys[1], shape, DType.f32, 0.0, 1.0), 0.5)
        v = _uniform(keys[2], shape, DType.f32, 0.0, 1.0)
        u_shifted = fnp.subtract(0.5, fnp.abs(u))
        drawn = fnp.floor(fnp.add(fnp.add(fnp.multiply(fnp.add(fnp.divide(fnp.multiply(2.0, a), u_shifted), b), u),
                                          lam), 0.43))
        s = fnp.log(fnp.divide(fnp.multiply(v, inv_alpha),
                               fnp.add(fnp.divide(a, fnp.multiply(u_shifted, u_shifted)), b)))
        t = fnp.subtract(fnp.add(fnp.neg(lam), fnp.multiply(drawn, log_lam)), lax.lgamma(fnp.add(drawn, 1.0)))
        accept1 = fnp.logical_and(fnp.greater_equal(u_shifted, 0.07), fnp.less_equal(v, v_r))
        reject = fnp.logical_or(fnp.less(drawn, 0.0),
                                fnp.logical_and(fnp.less(u_shifted, 0.013), fnp.greater(v, u_shifted)))
        accept = fnp.logical_or(accept1, fnp.logical_and(fnp.logical_not(reject), fnp.less_equal(s, t)))
        return fnp.where(accept, drawn, k_out), fnp.logical_or(accepted, accept), keys[0]

    carry = (fnp.full(shape, -1.0, np.float32), fnp.zeros(shape, bool), k)
    k_out = lax.while_loop(lambda c: fnp.any(fnp.logical_not(c[1])), round_, carry)[0]
    return fnp.astype(k_out, dtype)


def poisson(key: ArrayLike, lam: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Poisson(lam) integers of `shape` (lam's where None), i32 unless `dtype`: Knuth's method below
    lam = 10 and Hormann's transformed rejection from 10 up, as JAX's; 0 for lam = 0, -1 for a
    negative or NaN lam."""
    k = _key("poisson", key)
    dtype = _dtype_arg("poisson", dtype, DType.i32, INTEGERS)
    shape = _param_shape("poisson", shape, lam)
    lam = fnp.broadcast_to(_real("poisson", "lam", lam, DType.f32), shape)
    knuth = fnp.logical_or(fnp.isnan(lam), fnp.less(lam, 10.0))
    small = _poisson_knuth(k, fnp.where(knuth, lam, 0.0), shape, dtype)
    large = _poisson_rejection(k, fnp.where(knuth, 1e5, lam), shape, dtype)
    return fnp.where(fnp.equal(lam, 0.0), asarray(0, dtype), fnp.where(knuth, small, large))


# Binomial: as JAX's (and TensorFlow's), with q = min(p, 1 - p): inversion (counting geometric
# waiting times until they pass n) where n q <= 10, and Hormann's BTRS transformed rejection ("The
# generation of binomial random variates", 1993) above; for p > 1/2 the sample is n minus one with
# q. Both loops draw a whole sample a round from one key and run over the whole sample (an element
# of the rejection loop takes each proposal it accepts while the loop runs, the last one staying, as
# in JAX); JAX also stops them at the dtype's largest float of rounds, never reached.

# log k! - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2), Stirling's error, for k = 0..9
STIRLING_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k: Value) -> Value:
    """Stirling's error at k: the table up to 9, else its series 1/(12 (k+1)) - 1/(360 (k+1)^3)
    + 1/(1260 (k+1)^5)."""
    # NOTE: JAX evaluates the series at k clamped to [0, 9], so every k above 9 gets its value
    # at 9; kept, for JAX's samples.
    k9 = fnp.clip(k, 0.0, 9.0)
    kp1sq = fnp.multiply(fnp.add(k9, 1.0), fnp.add(k9, 1.0))
    series = fnp.divide(fnp.subtract(1.0 / 12, fnp.divide(fnp.subtract(1.0 / 360, fnp.divide(1.0 / 1260, kp1sq)),
                                                           kp1sq)), fnp.add(k9, 1.0))
    table = fnp.take(asarray(np.array(STIRLING_TAILS, _dtype(k).np)), fnp.astype(fnp.floor(k9), DType.i32))
    return fnp.where(fnp.less_equal(k, 9.0), table, series)


def _binomial_inversion(k: Value, count: Value, q: Value, shape: tuple[int | Dim, ...]) -> Value:
    log1mq = fnp.log1p(fnp.neg(q))

    def round_(carry: tuple[Value, ...]) -> tuple[Value, ...]:
        num_geom, geom_sum, key = carry
        draw, key = _split2(key)
        num_geom = fnp.where(fnp.less_equal(geom_sum, count), fnp.add(num_geom, 1.0), num_geom)
        geom = fnp.ceil(fnp.divide(fnp.log(_uniform(draw, shape, _dtype(q), 0.0, 1.0)), log1mq))
        return num_geom, fnp.add(geom_sum, geom), key

    zeros = fnp.zeros(shape, _dtype(q).np)
    num_geom = lax.while_loop(lambda c: fnp.any(fnp.less_equal(c[1], count)), round_, (zeros, zeros, k))[0]
    return fnp.subtract(num_geom, 1.0)


def _binomial_rejection(k: Value, count: Value, q: Value, shape: tuple[int | Dim, ...]) -> Value:
    dtype = _dtype(q)
    stddev = fnp.sqrt(fnp.multiply(fnp.multiply(count, q), fnp.subtract(1.0, q)))
    b = fnp.add(1.15, fnp.multiply(2.53, stddev))
    a = fnp.add(fnp.add(-0.0873, fnp.multiply(0.0248, b)), fnp.multiply(0.01, q))
    c = fnp.add(fnp.multiply(count, q), 0.5)
    v_r = fnp.subtract(0.92, fnp.divide(4.2, b))
    r = fnp.divide(q, fnp.subtract(1.0, q))
    alpha = fnp.multiply(fnp.add(2.83, fnp.divide(5.1, b)), stddev)
    m = fnp.floor(fnp.multiply(fnp.add(count, 1.0), q))
    m_left = fnp.add(fnp.subtract(count, m), 1.0)
    at_mode = fnp.multiply(fnp.add(m, 0.5), fnp.log(fnp.divide(fnp.add(m, 1.0), fnp.multiply(r, m_left))))
    tail_m, tail_rest = _stirling_tail(m), _stirling_tail(fnp.subtract(count, m))

    def round_(carry: tuple[Value, ...]) -> tuple[Value, ...]:
        k_out, accepted, key = carry
        keys = split(key, 3)
        u = fnp.subtract(_uniform(keys[1], shape, dtype, 0.0, 1.0), 0.5)
        v = _uniform(keys[2], shape, dtype, 0.0, 1.0)
        us = fnp.subtract(0.5, fnp.abs(u))
        accept1 = fnp.logical_and(fnp.greater_equal(us, 0.07), fnp.less_equal(v, v_r))
        drawn = fnp.floor(fnp.add(fnp.multiply(fnp.add(fnp.divide(fnp.multiply(2.0, a), us), b), u), c))
        reject = fnp.logical_or(fnp.less(drawn, 0.0), fnp.greater(drawn, count))
        log_v = fnp.log(fnp.divide(fnp.multiply(v, alpha), fnp.add(fnp.divide(a, fnp.multiply(us, us)), b)))
        k_left = fnp.add(fnp.subtract(count, drawn), 1.0)
        bound = fnp.add(fnp.add(at_mode, fnp.multiply(fnp.add(count, 1.0), fnp.log(fnp.divide(m_left, k_left)))),
                        fnp.multiply(fnp.add(drawn, 0.5), fnp.log(fnp.divide(fnp.multiply(r, k_left),
                                                                             fnp.add(drawn, 1.0)))))
        bound = fnp.add(fnp.add(bound, tail_m), tail_rest)
        bound = fnp.subtract(fnp.subtract(bound, _stirling_tail(drawn)), _stirling_tail(fnp.subtract(count, drawn)))
        accept = fnp.logical_or(accept1, fnp.logical_and(fnp.logical_not(reject), fnp.less_equal(log_v, bound)))
        return fnp.where(accept, drawn, k_out), fnp.logical_or(accepted, accept), keys[0]

    carry = (fnp.full(shape, -1.0, dtype.np), fnp.zeros(shape, bool), k)
    return lax.while_loop(lambda c: fnp.any(fnp.logical_not(c[1])), round_, carry)[0]


def _binomials(k: Value, n: Value, p: Value, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    """Binomial(n, p) samples of `shape` as floats of `dtype`, computed in p's float dtype; n and
    p broadcast to `shape`."""
    count = fnp.broadcast_to(asarray(n, _dtype(p)), shape)
    p = fnp.broadcast_to(p, shape)
    below_half = fnp.less(p, 0.5)
    q = fnp.where(below_half, p, fnp.subtract(1.0, p))
    count_nan_or_neg = fnp.logical_or(fnp.isnan(count), fnp.less(count, 0.0))
    count_inf, q_nan, q_negative = fnp.isinf(count), fnp.isnan(q), fnp.less(q, 0.0)
    invalid = fnp.logical_or(fnp.logical_or(q_negative, q_nan), count_nan_or_neg)
    q = fnp.where(fnp.logical_or(q_nan, q_negative), 0.01, q)
    inversion = fnp.logical_or(count_nan_or_neg, fnp.less_equal(fnp.multiply(count, q), 10.0))
    count = fnp.floor(count)  # a fractional n counts whole trials, as NumPy's
    # NOTE: JAX's rejection loop never ends for an infinite n with q = 0 (its bounds are NaN). An
    # infinite n's sample is inf whatever the loop gives, so it runs the loop on the stand-in
    # parameters that the inversion's elements get, and accepts.
    stand_in = fnp.logical_or(inversion, count_inf)
    small = _binomial_inversion(k, fnp.where(inversion, count, 0.0), q, shape)
    large = _binomial_rejection(k, fnp.where(stand_in, 1e4, count), fnp.where(stand_in, 0.5, q), shape)
    samples = fnp.astype(fnp.where(inversion, small, large), dtype)
    samples = fnp.where(invalid, asarray(np.nan, dtype), samples)
    samples = fnp.where(fnp.logical_and(count_inf, fnp.logical_not(invalid)), asarray(np.inf, dtype), samples)
    keep = fnp.logical_or(fnp.logical_or(below_half, count_nan_or_neg), fnp.logical_or(q_nan, count_inf))
    return fnp.where(keep, samples, fnp.subtract(fnp.astype(count, dtype), samples))


def binomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, shape: int | Sequence[int] | None = None,
             dtype: Any = None) -> Value:
    """Binomial(n, p) counts as floats (f32 unless `dtype`) of `shape` (n's and p's broadcast shape
    where None), as JAX's: inversion where n min(p, 1 - p) <= 10, Hormann's BTRS rejection
    above. A fractional n counts its whole part; the count is 0 for n = 0 or p = 0, n for p = 1,
    NaN for a negative or NaN n and for p NaN or outside [0, 1], else inf for n = inf (also at p
    = 0 or 1, where JAX's loop never ends)."""
    k = _key("binomial", key)
    dtype = _dtype_arg("binomial", dtype, DType.f32, FLOATS)
    shape = _param_shape("binomial", shape, n, p)
    p = _real("binomial", "p", p, _float_dtype(_dtype(p)))
    return _binomials(k, _real("binomial", "n", n, _dtype(p)), p, shape, dtype)


def multinomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, *, shape: Sequence[int] | None = None,
                dtype: Any = None, unroll: int | bool = 1) -> Value:
    """Counts of `n` trials among the categories of p's last axis, as JAX's: along that axis, the
    binomial count of category i among the trials left, at p_i over the probability left, each on
    key i of split(key, categories). The result, floats of `dtype` (f32 unless given), has `shape`
    (p's where None), which p must broadcast to and n to without its last axis: the whole shape,
    as JAX's code reads it (its docstring calls it the batch shape). `unroll` is taken for JAX's
    signature only: the loop over the categories is unrolled as it is traced."""
    k = _key("multinomial", key)
    dtype = _dtype_arg("multinomial", dtype, DType.f32, FLOATS + INTEGERS)
    if not (isinstance(unroll, (bool, int, np.integer)) and (isinstance(unroll, bool) or unroll >= 1)):
        raise TraceError(f"multinomial: unroll must be a bool or a positive int, got {unroll!r}", user_site())
    work = _float_dtype(result_dtype(n, p))
    full = _shape(p) if shape is None else _broadcasts_to("multinomial", _shape_arg("multinomial", shape))
    if len(full) < 1 or isinstance(full[-1], Dim):
        raise ShapeError(f"multinomial: p needs an axis of categories of known size, got p {spec_of(asarray(p))} "
                         f"and shape {full}", user_site())
    batch = full[:-1]
    for what, x, to in (("p", p, full), ("n", n, batch)):
        if _broadcast_shapes(to, _shape(x)) != to:
            raise ShapeError(f"multinomial: {what} {_shape(x)} must broadcast to {to} (the shape {full}, without "
                             f"its last axis for n)", user_site())
    p = fnp.broadcast_to(_real("multinomial", "p", p, work), full)
    remainder = fnp.broadcast_to(_real("multinomial", "n", n, work), batch)
    if full[-1] == 0:
        return fnp.zeros(full, dtype.np)
    left = [p[..., -1]]  # the probability of category i and those after it, summed from the last
    for i in range(full[-1] - 2, -1, -1):
        left.insert(0, fnp.add(left[0], p[..., i]))
    keys, counts = split(k, full[-1]), []
    for i, remaining in enumerate(left):
        ratio = fnp.divide(p[..., i], fnp.where(fnp.equal(remaining, 0.0), asarray(1.0, work), remaining))
        counts.append(_binomials(keys[i], remainder, fnp.clip(ratio, 0.0, 1.0), batch, work))
        remainder = fnp.subtract(remainder, counts[-1])
    return fnp.astype(fnp.stack(counts, axis=-1), dtype)


def _gamma_args(name: str, key: ArrayLike, a: ArrayLike, shape: Any, dtype: Any,
                what: str = "a") -> tuple[Value, Value, tuple[int | Dim, ...], DType]:
    k, dtype = _float_args(name, key, dtype)
    return k, _real(name, what, a, dtype), _param_shape(name, shape, a), dtype


def gamma(key: ArrayLike, a: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Gamma(a, 1) floats of `shape` (a's where None), by Marsaglia and Tsang's rejection sampler
    (boosted through Gamma(a + 1) for a < 1), as JAX's."""
    return _gammas(*_gamma_args("gamma", key, a, shape, dtype), log_space=False)


def loggamma(key: ArrayLike, a: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """The logs of gamma(key, a, shape, dtype)'s samples, computed in log space: accurate where
    small `a` puts the samples below the floats' range."""
    return _gammas(*_gamma_args("loggamma", key, a, shape, dtype), log_space=True)


def beta(key: ArrayLike, a: ArrayLike, b: ArrayLike, shape: int | Sequence[int] | None = None,
         dtype: Any = None) -> Value:
    """Beta(a, b) floats of `shape` (a's and b's broadcast shape where None): G_a / (G_a + G_b) of
    two log-gamma draws, scaled by their larger one."""
    k, dtype = _float_args("beta", key, dtype)
    shape = _param_shape("beta", shape, a, b)
    key_a, key_b = _split2(k)
    log_a = _gammas(key_a, _real("beta", "a", a, dtype), shape, dtype, log_space=True)
    log_b = _gammas(key_b, _real("beta", "b", b, dtype), shape, dtype, log_space=True)
    top = fnp.maximum(log_a, log_b)
    scaled_a, scaled_b = fnp.exp(fnp.subtract(log_a, top)), fnp.exp(fnp.subtract(log_b, top))
    return fnp.divide(scaled_a, fnp.add(scaled_a, scaled_b))


def dirichlet(key: ArrayLike, alpha: ArrayLike, shape: int | Sequence[int] | None = None,
              dtype: Any = None) -> Value:
    """Dirichlet(alpha) floats along alpha's last axis, of `shape` + (n,) (alpha's shape where
    None): the softmax of n log-gamma draws."""
    k, dtype = _float_args("dirichlet", key, dtype)
    full = _shape(alpha)
    if len(full) < 1:
        raise ShapeError(f"dirichlet: alpha must have at least one axis (..., n), got {spec_of(asarray(alpha))}",
                         user_site())
    batch = full[:-1] if shape is None else _broadcasts_to("dirichlet", _shape_arg("dirichlet", shape), full[:-1])
    logs = _gammas(k, _real("dirichlet", "alpha", alpha, dtype), (*batch, full[-1]), dtype, log_space=True)
    e = fnp.exp(fnp.subtract(logs, fnp.max(logs, axis=-1, keepdims=True)))
    return fnp.divide(e, fnp.sum(e, axis=-1, keepdims=True))


def _chisquares(k: Value, df: Value, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    return fnp.multiply(fnp.exp(_gammas(k, fnp.divide(df, 2.0), shape, dtype, log_space=True)), 2.0)


def chisquare(key: ArrayLike, df: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Chi-squared floats with `df` degrees of freedom, of `shape` (df's where None): 2 Gamma(df / 2)."""
    return _chisquares(*_gamma_args("chisquare", key, df, shape, dtype, "df"))


def f(key: ArrayLike, dfnum: ArrayLike, dfden: ArrayLike, shape: int | Sequence[int] | None = None,
      dtype: Any = None) -> Value:
    """F-distributed floats, (X / dfnum) / (Y / dfden) for chi-squared X, Y, of `shape` (the
    degrees of freedom's broadcast shape where None)."""
    k, dtype = _float_args("f", key, dtype)
    shape = _param_shape("f", shape, dfnum, dfden)
    dfnum, dfden = _real("f", "dfnum", dfnum, dtype), _real("f", "dfden", dfden, dtype)
    key_den, key_num = _split2(k)
    num = fnp.divide(_chisquares(key_num, dfnum, shape, dtype), dfnum)
    return fnp.divide(num, fnp.divide(_chisquares(key_den, dfden, shape, dtype), dfden))


def t(key: ArrayLike, df: ArrayLike, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Value:
    """Student's t floats with `df` degrees of freedom, of `shape` (df's where None):
    z sqrt((df / 2) / G) for z standard normal and G Gamma(df / 2)."""
    k, df, shape, dtype = _gamma_args("t", key, df, shape, dtype, "df")
    key_n, key_g = _split2(k)
    half = fnp.divide(df, 2.0)
    g = _gammas(key_g, half, shape, dtype, log_space=False)
    return fnp.multiply(_normals(_bits(key_n, shape), dtype), fnp.sqrt(fnp.divide(half, g)))


def generalized_normal(key: ArrayLike, p: float, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Generalized normal floats (density proportional to exp(-|x|^p)) of `shape`: a random sign
    times G^(1 / p) for G Gamma(1 / p)."""
    k, dtype = _float_args("generalized_normal", key, dtype)
    return _generalized_normals("generalized_normal", k, p, _sample_shape("generalized_normal", shape), dtype)


def _generalized_normals(name: str, k: Value, p: float, shape: tuple[int | Dim, ...], dtype: DType) -> Value:
    if isinstance(p, Tensor) or not isinstance(p, (int, float, np.number)) or not p > 0:
        raise TraceError(f"{name}: p must be a positive Python number, got {p!r}", user_site())
    key_g, key_r = _split2(k)
    g = _gammas(key_g, asarray(1 / p, dtype), shape, dtype, log_space=False)
    return fnp.multiply(_rademachers(key_r, shape, dtype), fnp.power(g, 1 / p))


def ball(key: ArrayLike, d: int, p: float = 2, shape: int | Sequence[int] = (), dtype: Any = None) -> Value:
    """Points uniform in the unit Lp ball of dimension `d`, of `shape` + (d,) (Barthe, Guedon,
    Mendelson and Naor): g / (sum |g|^p + e)^(1 / p) for generalized normal g and exponential e."""
    k, dtype = _float_args("ball", key, dtype)
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 0:
        raise TraceError(f"ball: d must be a non-negative Python integer, got {d!r}", user_site())
    shape = _sample_shape("ball", shape)
    k1, k2 = _split2(k)
    g = _generalized_normals("ball", k1, p, (*shape, int(d)), dtype)
    e = _exponentials(k2, shape, dtype)
    norm = fnp.power(fnp.add(fnp.sum(fnp.power(fnp.abs(g), p), axis=-1), e), 1 / p)
    return fnp.divide(g, fnp.expand_dims(norm, -1))


def multivariate_normal(key: ArrayLike, mean: ArrayLike, cov: ArrayLike, shape: Sequence[int] | None = None,
                        dtype: Any = None, method: str = "cholesky") -> Value:
    """Normal vectors of mean `mean` (..., n) and covariance `cov` (..., n, n), of `shape` + (n,)
    (mean's and cov's batch shapes broadcast where None), as JAX's: mean + F z for standard
    normal z and a factor F F^T = cov, `method` "cholesky" (the lower Cholesky factor), "eigh"
    (V sqrt(w)) or "svd" (U sqrt(s))."""
    name = "multivariate_normal"
    k = _key(name, key)
    if method not in ("svd", "eigh", "cholesky"):
        raise ShapeError(f"{name}: method must be one of 'svd', 'eigh', 'cholesky', got {method!r}", user_site())
    work = _float_dtype(result_dtype(mean, cov))
    mean, cov = asarray(mean, work), asarray(cov, work)
    dtype = _dtype_arg(name, dtype, work, FLOATS)
    mean_shape, cov_shape = _shape(mean), _shape(cov)
    if len(mean_shape) < 1 or len(cov_shape) < 2 or cov_shape[-2:] != (mean_shape[-1], mean_shape[-1]):
        raise ShapeError(f"{name}: needs mean (..., n) and cov (..., n, n), got mean {mean_shape} and cov "
                         f"{cov_shape}", user_site())
    shape = _param_shape(name, shape, fnp.zeros(mean_shape[:-1]), fnp.zeros(cov_shape[:-2]))
    if method == "cholesky":
        factor = fnp.linalg.cholesky(cov)
    elif method == "eigh":
        w, v = fnp.linalg.eigh(cov)
        factor = fnp.multiply(v, fnp.sqrt(w)[..., None, :])
    else:
        u, s, _ = fnp.linalg.svd(cov)
        factor = fnp.multiply(u, fnp.sqrt(s)[..., None, :])
    z = normal(k, (*shape, mean_shape[-1]), dtype)
    return fnp.add(mean, fnp.einsum("...ij,...j->...i", factor, z))


def orthogonal(key: ArrayLike, n: int, shape: Sequence[int] = (), dtype: Any = None, m: int | None = None) -> Value:
    """Matrices (n, m) (m = n unless given) with orthonormal columns (or rows, for n < m), Haar
    distributed, of `shape` + (n, m), as JAX's: Q of the QR factorization of a normal matrix, its
    columns signed by R's diagonal."""
    name = "orthogonal"
    k, dtype = _float_args(name, key, dtype)
    sizes = []
    for what, value in (("n", n), ("m", n if m is None else m)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
            raise TraceError(f"{name}: {what} must be a non-negative Python integer, got {value!r}", user_site())
        sizes.append(int(value))
    rows, cols = sizes
    z = normal(k, (*_sample_shape(name, shape), max(rows, cols), min(rows, cols)), dtype)
    q, r = fnp.linalg.qr(z)
    x = fnp.multiply(q, fnp.expand_dims(fnp.sign(fnp.diagonal(r, 0, -2, -1)), -2))
    return fnp.swapaxes(x, -1, -2) if rows < cols else x


# jax.random's samplers that take `out_sharding` (keyword only): None, or a sharding of fgrad's one
# device (fg.sharding), where the whole sample is.
SHARDED = ("ball", "bernoulli", "beta", "bits", "categorical", "cauchy", "chisquare", "dirichlet", "exponential", "f",
           "gamma", "generalized_normal", "geometric", "gumbel", "laplace", "loggamma", "logistic", "lognormal",
           "maxwell", "multivariate_normal", "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher",
           "randint", "rayleigh", "t", "triangular", "truncated_normal", "uniform", "wald")


def _taking_out_sharding(fn: Callable[..., Value]) -> Callable[..., Value]:
    def sampler(*args: Any, out_sharding: Any = None, **kwargs: Any) -> Value:
        _no_sharding(fn.__name__, out_sharding)
        return fn(*args, **kwargs)

    signature = inspect.signature(fn)
    sampler.__signature__ = signature.replace(parameters=[  # type: ignore[attr-defined]
        *signature.parameters.values(), inspect.Parameter("out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None)])
    sampler.__name__ = sampler.__qualname__ = fn.__name__
    sampler.__code__ = sampler.__code__.replace(co_name=fn.__name__)  # errors and user_call() name the sampler
    sampler.__doc__, sampler.__module__ = fn.__doc__, fn.__module__
    return sampler


for _name in SHARDED:
    globals()[_name] = _taking_out_sharding(globals()[_name])
del _name
name_errors_after(globals(), __all__)
