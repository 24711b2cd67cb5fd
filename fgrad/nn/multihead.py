"""`jax.nn.dot_product_attention`: multi-head, grouped-query and multi-query attention in JAX's layout.

Queries are (batch, q_len, heads, head_dim), keys and values (batch, kv_len, kv_heads, head_dim),
or the same without the batch axis; query head n reads kv head n // (heads // kv_heads), as
JAX's grouping (a reshape of the heads into (kv_heads, group)) pairs them. The grouping is a
reshape of the queries, so keys and values are read once per group, never repeated. Logits and
softmax are f32 whatever the inputs' dtype (f16 products are exact in f32); the probabilities
meet the values in their dtype. Every mask (a bool `mask`, `is_causal`, a local window, the
sequence lengths) keeps a logit or replaces it by JAX's large finite negative, -0.7 * the f32
maximum, so a row with nothing visible averages all its values, as JAX's does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import DType
from fgrad.numpy import (
    add, arange, asarray, astype, expand_dims, greater_equal, less, less_equal, logical_and, logsumexp, matmul,
    multiply, reshape, softmax, stop_gradient, transpose, where,
)
from fgrad.numpy.promotion import ArrayLike, _dtype, _shape
from fgrad.trace import Tensor, spec_of, user_site

__all__ = ["dot_product_attention"]  # re-exported by fgrad.nn

Array = Tensor | np.ndarray
f32 = DType.f32
# JAX's stand-in for -inf in masked logits: finite, so a row with every key masked stays a number.
LARGE_NEGATIVE = -0.7 * np.finfo(np.float32).max


def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike, bias: ArrayLike | None = None,
                          mask: ArrayLike | None = None, *, scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: ArrayLike | None = None, key_value_seq_lengths: ArrayLike | None = None,
                          local_window_size: int | tuple[int, int] | None = None, implementation: str | None = None,
                          return_residual: bool = False) -> Array | tuple[Array, Array]:
    """softmax(q k^T scale + bias, masked) v per head, as `jax.nn.dot_product_attention`.

    Args:
      query: (B, T, N, H) or (T, N, H); key, value: (B, S, K, H) or (S, K, H), N a multiple of K.
      bias: added to the logits; broadcasts to (B, N, T, S) (fewer axes are leading ones).
      mask: bool, True where a logit takes part; broadcasts to (B, N, T, S) as bias.
      scale: of the logits, 1 / sqrt(H) where None.
      is_causal: query t sees keys s <= t.
      query_seq_lengths, key_value_seq_lengths: i32 (B,): queries and keys at or past a row's
        length are masked, and the outputs of such queries are zero.
      local_window_size: (left, right), or one int for both: query t sees keys t - left ..= t + right.
      implementation: None or 'xla' (the one fgrad has); 'cudnn' is refused.
      return_residual: also return the logsumexp of each query's masked logits, (B, T, N), with no gradient.

    Returns:
      The attention output, query's shape, in value's dtype; with `return_residual`, (output, residual).
    """
    if implementation == "cudnn":
        raise TraceError("dot_product_attention: implementation='cudnn' (cuDNN flash attention) needs an NVIDIA GPU "
                         "and XLA; fgrad compiles to WebGPU and has the 'xla' implementation only: pass None or 'xla'",
                         user_site())
    if implementation not in (None, "xla"):
        raise TraceError(f"dot_product_attention: unknown implementation {implementation!r}; expected None or 'xla'",
                         user_site())
    out_shape = _shape(query)
    q, k, v = _four_axes("query", query), _four_axes("key", key), _four_axes("value", value)
    B, S, K, H = _shape(k)
    dtype = _dtype(k)
    if not dtype.is_float:
        raise DTypeError(f"dot_product_attention: key must be f32 or f16, got {spec_of(k)}", user_site())
    if _shape(v) != _shape(k) or _dtype(v) is not dtype:
        raise ShapeError(f"dot_product_attention: value {spec_of(v)} must have key's shape and dtype, "
                         f"{spec_of(k)}", user_site())
    _, T, N, Hq = _shape(q)
    if _shape(q)[0] != B or Hq != H or _dtype(q) is not dtype:
        raise ShapeError(f"dot_product_attention: query {spec_of(q)} must have key's batch {B}, head_dim {H} and "
                         f"dtype {dtype} (key {spec_of(k)})", user_site())
    if N % K:
        raise ShapeError(f"dot_product_attention: {N} query heads are not a multiple of {K} key/value heads",
                         user_site())
    G = N // K
    full = (B, N, T, S)

    # (B, K, G, T, H) @ (B, K, 1, H, S): each query head against its group's kv head.
    grouped = transpose(reshape(astype(q, f32), (B, T, K, G, H)), (0, 2, 3, 1, 4))
    keys_t = expand_dims(transpose(astype(k, f32), (0, 2, 3, 1)), 2)
    logits = multiply(matmul(grouped, keys_t), asarray(1.0 / math.sqrt(H) if scale is None else scale, f32))
    if bias is not None:
        logits = astype(add(logits, _grouped("bias", _four_axes("bias", bias), full, G)), f32)

    keep = None if mask is None else _grouped("mask", _bool_mask(mask), full, G)
    t, s = arange(T)[:, None], arange(S)[None, :]
    if is_causal:
        keep = _and(keep, less_equal(s, t))
    if local_window_size is not None:
        left, right = _window(local_window_size)
        keep = _and(keep, logical_and(less_equal(t, add(s, left)), greater_equal(t, add(s, -right))))
    q_len = _lengths("query_seq_lengths", query_seq_lengths, B)
    kv_len = _lengths("key_value_seq_lengths", key_value_seq_lengths, B)
    if q_len is not None:  # (B, 1, 1, T, 1)
        keep = _and(keep, less(arange(T)[None, None, None, :, None], q_len[:, None, None, None, None]))
    if kv_len is not None:  # (B, 1, 1, 1, S)
        keep = _and(keep, less(arange(S)[None, None, None, None, :], kv_len[:, None, None, None, None]))
    if keep is not None:
        logits = where(keep, logits, asarray(LARGE_NEGATIVE, f32))

    probs = astype(softmax(logits, axis=-1), dtype)
    out = matmul(probs, expand_dims(transpose(v, (0, 2, 1, 3)), 2))  # (B, K, G, T, H)
    out = reshape(transpose(out, (0, 3, 1, 2, 4)), (B, T, N, H))
    if q_len is not None:  # the queries past a row's length give zeros
        out = multiply(out, astype(less(arange(T)[None, :], q_len[:, None]), dtype)[:, :, None, None])
    out = reshape(out, out_shape)
    if not return_residual:
        return out
    lse = astype(logsumexp(logits, axis=-1), dtype)  # (B, K, G, T)
    residual = reshape(transpose(lse, (0, 3, 1, 2)), out_shape[:-1])
    return out, stop_gradient(residual)


def _four_axes(name: str, x: ArrayLike) -> Array:
    """x with leading axes of 1 added up to four, as JAX's: (T, N, H) is one batch row."""
    x = asarray(x)
    ndim = len(_shape(x))
    if ndim > 4:
        raise ShapeError(f"dot_product_attention: {name} {spec_of(x)} has {ndim} axes; it takes at most 4",
                         user_site())
    return reshape(x, (1,) * (4 - ndim) + _shape(x))


def _grouped(name: str, x: Array, full: tuple[int, int, int, int], group: int) -> Array:
    """A bias or mask broadcasting to (B, N, T, S), its heads split as the queries': (B, K, G, T, S)."""
    shape = _shape(x)
    if any(d not in (1, f) for d, f in zip(shape, full)):
        raise ShapeError(f"dot_product_attention: {name} {spec_of(x)} does not broadcast to (batch, heads, "
                         f"q_len, kv_len) = {full}", user_site())
    b, n, t, s = shape
    return reshape(x, (b, 1, 1, t, s) if n == 1 else (b, n // group, group, t, s))


def _bool_mask(mask: ArrayLike) -> Array:
    m = _four_axes("mask", mask)
    if _dtype(m) is not DType.bool:
        raise DTypeError(f"dot_product_attention: mask must be bool (True where a logit takes part), got "
                         f"{spec_of(m)}; pass an additive mask as bias", user_site())
    return m


def _and(keep: Array | None, more: Array) -> Array:
    return more if keep is None else logical_and(keep, more)


def _window(size: Any) -> tuple[int, int]:
    pair = (size, size) if isinstance(size, (int, np.integer)) else size
    if (not isinstance(pair, (tuple, list)) or len(pair) != 2
            or not all(isinstance(w, (int, np.integer)) and not isinstance(w, bool) for w in pair)):
        raise TraceError(f"dot_product_attention: local_window_size must be an int or a (left, right) pair of ints, "
                         f"got {size!r}", user_site())
    return int(pair[0]), int(pair[1])


def _lengths(name: str, lengths: ArrayLike | None, batch: int) -> Array | None:
    if lengths is None:
        return None
    x = asarray(lengths)
    if _dtype(x) is not DType.i32 or _shape(x) != (batch,):
        raise ShapeError(f"dot_product_attention: {name} must be i32[{batch}] (one length per batch row), got "
                         f"{spec_of(x)}", user_site())
    return x
