"""Op-table rows: random.

fg.random is written with fgrad's u32 operations, so its rows are API rows. Their references
compute Threefry-2x32 and the samplers here in NumPy, on Python integers and float64
(tests/test_random.py checks the generator against Random123's known answers and JAX)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import fgrad as fg
from op_case import F, Case

MASK = 2**32 - 1
KEY = np.array([0, 42], np.uint32)  # fg.random.PRNGKey(42)
OTHER_KEY = np.array([1797259609, 2579123966], np.uint32)


def threefry_ref(key: np.ndarray, x0: int, x1: int) -> tuple[int, int]:
    """Threefry-2x32 with 20 rounds, as Random123 specifies it, on Python integers."""
    k0, k1 = int(key[0]), int(key[1])
    ks = (k0, k1, k0 ^ k1 ^ 0x1BD11BDA)
    x0, x1 = (x0 + ks[0]) & MASK, (x1 + ks[1]) & MASK
    for block in range(5):
        for r in ((13, 15, 26, 6), (17, 29, 16, 24))[block % 2]:
            x0 = (x0 + x1) & MASK
            x1 = (((x1 << r) | (x1 >> (32 - r))) & MASK) ^ x0
        x0 = (x0 + ks[(block + 1) % 3]) & MASK
        x1 = (x1 + ks[(block + 2) % 3] + block + 1) & MASK
    return x0, x1


def bits_ref(key: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Element i (row-major) is threefry(key, (0, i)), its words xored: JAX's partitionable bits."""
    words = [threefry_ref(key, 0, i) for i in range(math.prod(shape))]
    return np.array([a ^ b for a, b in words], np.uint32).reshape(shape)


def split_ref(key: np.ndarray, num: int) -> np.ndarray:
    return np.array([threefry_ref(key, 0, i) for i in range(num)], np.uint32)


def fold_in_ref(key: np.ndarray, data: int) -> np.ndarray:
    return np.array(threefry_ref(key, 0, data), np.uint32)


def unit_ref(key: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform in [0, 1): the top 23 bits as a fraction."""
    return (bits_ref(key, shape) >> 9) * 2.0**-23


def uniform_ref(key: np.ndarray, shape: tuple[int, ...], lo, hi) -> np.ndarray:
    return np.maximum(lo, unit_ref(key, shape) * (hi - lo) + lo)


def normal_ref(key: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """sqrt(2) erfinv(u) for u uniform in (-1, 1): the standard normal quantile of (u + 1) / 2."""
    u = uniform_ref(key, shape, float(np.nextafter(np.float32(-1), np.float32(0))), 1.0).astype(np.float32)
    quantile = np.vectorize(statistics.NormalDist().inv_cdf, otypes=[np.float64])
    return quantile((u.astype(np.float64) + 1) / 2)


def truncated_normal_ref(key: np.ndarray, lower: np.ndarray, upper: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The normal quantile of a uniform between the bounds' CDFs (erf's, as fractions of (-1, 1))."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    u = uniform_ref(key, shape, erf(lower / math.sqrt(2)), erf(upper / math.sqrt(2)))
    return np.vectorize(statistics.NormalDist().inv_cdf, otypes=[np.float64])((u + 1) / 2)


def categorical_ref(key: np.ndarray, logits: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The Gumbel-max trick along the last axis."""
    tiny = float(np.finfo(np.float32).tiny)
    u = np.float32(uniform_ref(key, (*shape, logits.shape[-1]), tiny, 1.0))
    return np.argmax(-np.log(-np.log(u.astype(np.float64))) + logits, axis=-1)


def dropout(x, key, rate=0.25):
    keep = fg.random.bernoulli(key, 1.0 - rate, x.shape)
    return fg.where(keep, x / (1.0 - rate), 0.0)


OP_ROWS: tuple[Case, ...] = ()  # every new primitive's rows (value, WGSL, VJP)
API_ROWS: tuple[Case, ...] = (  # composites and argument forms of the public functions
    Case("shift_left", "random-bits", lambda k: fg.random.bits(k, (3, 4)), (KEY,), lambda k: bits_ref(k, (3, 4))),
    Case("shift_left", "random-bits-scalar", lambda k: fg.random.bits(k), (OTHER_KEY,), lambda k: bits_ref(k, ())),
    Case("concatenate", "random-split", lambda k: fg.random.split(k, 3), (KEY,), lambda k: split_ref(k, 3)),
    Case("concatenate", "random-fold_in-traced-data", fg.random.fold_in, (KEY, np.int32(-3)),
         lambda k, d: fold_in_ref(k, int(d) % 2**32)),
    Case("concatenate", "random-key-traced-seed", fg.random.PRNGKey, (np.int32(-7),),
         lambda s: np.array([0, int(s) % 2**32], np.uint32)),
    Case("maximum", "random-uniform", lambda k: fg.random.uniform(k, (2, 5)), (KEY,),
         lambda k: uniform_ref(k, (2, 5), 0.0, 1.0)),
    # Bounds that broadcast, traced: the VJP column differentiates the sample in them.
    Case("maximum", "random-uniform-traced-bounds",
         lambda k, lo, hi: fg.random.uniform(k, (2, 3), minval=lo, maxval=hi),
         (OTHER_KEY, F(3, lo=-2, hi=-1), F(2, 1, lo=1, hi=2)), lambda k, lo, hi: uniform_ref(k, (2, 3), lo, hi)),
    Case("erf_inv", "random-normal", lambda k: fg.random.normal(k, (3, 4)), (KEY,), lambda k: normal_ref(k, (3, 4)),
         rtol=1e-5, atol=1e-5),
    # Traced bounds: the VJP column differentiates the samples in them.
    Case("erf_inv", "random-truncated_normal-traced-bounds",
         lambda k, lo, hi: fg.random.truncated_normal(k, lo, hi, (2, 3)),
         (OTHER_KEY, F(3, lo=-2, hi=-1), F(2, 1, lo=0.5, hi=2)),
         lambda k, lo, hi: truncated_normal_ref(k, lo, hi, (2, 3)), rtol=1e-4, atol=1e-5),
    Case("lt", "random-bernoulli", lambda k: fg.random.bernoulli(k, 0.3, (7,)), (KEY,),
         lambda k: unit_ref(k, (7,)) < np.float32(0.3)),
    Case("lt", "random-bernoulli-traced-p", fg.random.bernoulli, (OTHER_KEY, F(2, 3, lo=0, hi=1)),
         lambda k, p: unit_ref(k, (2, 3)) < p.astype(np.float32)),
    Case("argmax", "random-categorical", lambda k, logits: fg.random.categorical(k, logits, shape=(4, 2)),
         (KEY, F(2, 5)), lambda k, logits: categorical_ref(k, logits, (4, 2))),
    # Dropout: the mask is drawn from a traced key; the VJP column differentiates through it.
    Case("where", "random-dropout", dropout, (F(3, 4), KEY),
         lambda x, k: np.where(unit_ref(k, (3, 4)) < np.float32(0.75), x / 0.75, 0.0)),
)
F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("maximum", "random-uniform-f16", lambda k: fg.random.uniform(k, (6,), "f16"), (KEY,),
         lambda k: (((bits_ref(k, (6,)) & 0xFFFF) >> 6) * 2.0**-10).astype(np.float16)),
)
U32_ROWS: tuple[Case, ...] = ()  # u32 rows of integer primitives
