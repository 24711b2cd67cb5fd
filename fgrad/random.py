"""`fg.random`: JAX's functional pseudo-random numbers (`jax.random`), with JAX's bits.

A key is a raw u32[2] array, as `jax.random.PRNGKey` gives (fgrad has no typed key arrays:
`key(seed)` gives the same array, and `key_data` / `wrap_key_data` return it as it is). Every
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
where XLA fuses x * (maxval - minval) + minval into one rounding. Keys may be traced values: a
jitted training step draws its dropout masks from a key argument.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad import lax
from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError, TraceError, name_errors_after
from fgrad.ir import Dim, DType
from fgrad.primitives import iota_p
from fgrad.trace import Tensor, bind, spec_of, user_site
from fgrad.numpy.promotion import ArrayLike, _as_dtype, _broadcast_shapes, _dtype, _one_axis, _shape, asarray
from fgrad.numpy.shapes import _shape_arg

__all__ = [
    "PRNGKey", "bernoulli", "bits", "categorical", "choice", "exponential", "fold_in", "gumbel", "key", "key_data",
    "laplace", "normal", "permutation", "randint", "split", "threefry2x32", "truncated_normal", "uniform",
    "wrap_key_data",
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


FLOATS = (DType.f32, DType.f16)
INTEGERS = (DType.i32, DType.u32)


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------


def PRNGKey(seed: ArrayLike) -> Value:
    """A key, u32[2], from an integer seed: as jax.random.PRNGKey with 32-bit integers (x64 off),
    (0, seed mod 2^32). A Python int seed may be any 64-bit integer (its low 32 bits count, as
    in JAX); a traced i32 or u32 scalar seed gives a traced key."""
    if len(_shape(seed)) != 0:
        raise ShapeError(f"PRNGKey: takes a scalar seed, got {spec_of(asarray(seed))}", user_site())
    if not _dtype(seed).is_int:
        raise DTypeError(f"PRNGKey: the seed must be an integer, got {spec_of(asarray(seed))}", user_site())
    if isinstance(seed, Tensor):
        return fnp.stack([asarray(0, U32), asarray(seed, U32)])
    if type(seed) is int and not -2**63 <= seed < 2**63:  # JAX reads a Python int seed as an int64
        raise DTypeError(f"PRNGKey: the seed {seed} does not fit 64 bits, as JAX's seeds must", user_site())
    return asarray(np.array([0, int(np.asarray(seed)) % 2**32], np.uint32))


def key(seed: ArrayLike) -> Value:
    """A key from an integer seed (jax.random.key): fgrad's keys are the raw u32[2] arrays of
    `PRNGKey`, so this is `PRNGKey(seed)`."""
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


def wrap_key_data(key_bits_array: ArrayLike) -> Value:
    """Keys from their u32[..., 2] data: fgrad's keys are their data, returned as they are."""
    return _keys("wrap_key_data", key_bits_array)


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
    """Uniformly random u32 bits of `shape` (fgrad's only unsigned dtype)."""
    _dtype_arg("bits", dtype, U32, (U32,))
    return _bits(_key("bits", key), _sample_shape("bits", shape))


def _uniform(k: Value, shape: tuple[int | Dim, ...], dtype: DType, minval: ArrayLike, maxval: ArrayLike) -> Value:
    # JAX draws as many bits as the dtype has (the low 16 for f16), keeps the top `nmant` of them
    # as the mantissa of a float in [1, 2) and subtracts 1: exactly the mantissa bits times
    # 2^-nmant, computed so here (fgrad bit casts no f16).
    nbits, nmant = 8 * dtype.itemsize, int(np.finfo(dtype.np).nmant)
    mantissa = fnp.right_shift(_bits(k, shape), nbits - nmant)
    if nbits < 32:
        mantissa = fnp.bitwise_and(mantissa, 2**nmant - 1)
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
    low = np.nextafter(np.array(-1.0, dtype.np), np.array(0.0, dtype.np))
    u = _uniform(_key("normal", key), _sample_shape("normal", shape), dtype, float(low), 1.0)
    return fnp.multiply(fnp.erfinv(u), math.sqrt(2))


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
    if shape is None:
        shape = _broadcast_shapes(_shape(lower), _shape(upper))
        if shape is None:
            raise ShapeError(f"truncated_normal: bounds of shapes {_shape(lower)} and {_shape(upper)} do not "
                             "broadcast", user_site())
    shape = _sample_shape("truncated_normal", shape, lower, upper)
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
    return fnp.less(fnp.multiply(u[1], 2.0 ** -int(np.finfo(dtype.np).nmant)), fnp.subtract(p, u[0]))


def gumbel(key: ArrayLike, shape: int | Sequence[int] = (), dtype: Any = None, mode: str | None = None) -> Value:
    """Gumbel floats of `shape`: -log(-log(u)) for u uniform in [tiny, 1). mode "high" draws twice
    the bits, reaching further into the tail (about 32 instead of 16 for f32)."""
    dtype = _dtype_arg("gumbel", dtype, DType.f32, FLOATS)
    return _gumbel("gumbel", _key("gumbel", key), _sample_shape("gumbel", shape), dtype, mode)


def _gumbel(name: str, k: Value, shape: tuple[int | Dim, ...], dtype: DType, mode: str | None) -> Value:
    info = np.finfo(dtype.np)
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
    low = -1.0 + float(np.finfo(dtype.np).epsneg)
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
    reduced modulo the span, biased by at most span^2 / 2^64."""
    dtype = _dtype_arg("randint", dtype, DType.i32, INTEGERS)
    k = _key("randint", key)
    shape = _sample_shape("randint", shape, minval, maxval)
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


name_errors_after(globals(), __all__)
