"""The layers of a Llama-shaped decoder: rotary position embeddings, grouped-query attention
over a KV cache, the SwiGLU MLP and the pre-norm block joining them (Llama, Qwen2, Mistral).

Queries, keys and values are laid out (batch, heads, seq, head_dim). A KV cache is one
(batch, kv_heads, max_len, head_dim) array for the keys and one for the values, entry j holding
the token at position j; a pass over new tokens writes theirs at their positions and each query
attends to the entries at positions up to its own: the cached prefix, then the new tokens
causally. Positions are traced i32 arrays, so one compiled program serves every step. Weights
and cache may be f16: each matmul reads its operands in the weight's (or the cache's) dtype,
while the residual stream, norms, rotations and softmax stay in f32, as transformers keeps them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fgrad.errors import ShapeError
from fgrad.ir import Dim, DType
from fgrad.numpy import (
    arange,
    asarray,
    concatenate,
    cos,
    dynamic_update_slice,
    silu,
    sin,
    softmax,
    stack,
    swapaxes,
    take,
    transpose,
    where,
)
from fgrad.nn.layers import Params, init_linear, init_rms_norm, linear, normal, rms_norm, shape_checked
from fgrad.trace import Tensor, user_site

if TYPE_CHECKING:  # brought by fgrad.nn.shape_checked at run time
    from jaxtyping import Float, Int

f32 = DType.f32


@dataclass(frozen=True)
class RopeScaling:
    """Llama 3's rotary scaling (`rope_scaling` with rope_type "llama3" in a Hugging Face config):
    wavelengths longer than `original_max_position / low_freq_factor` are stretched `factor`
    times, those shorter than `original_max_position / high_freq_factor` kept, those between
    blended."""

    factor: float
    low_freq_factor: float
    high_freq_factor: float
    original_max_position: int


def rope_frequencies(rotary_dim: int, theta: float, scaling: RopeScaling | None = None) -> np.ndarray:
    """The rotary inverse frequencies, f32[rotary_dim // 2], as transformers computes them:
    theta ** (-2i / rotary_dim), then Llama 3's scaling where given."""
    if rotary_dim < 2 or rotary_dim % 2:
        raise ShapeError(f"rope: the rotary dimension must be a positive even number, got {rotary_dim}", user_site())
    inv_freq = 1.0 / np.float32(theta) ** (np.arange(0, rotary_dim, 2, dtype=np.float32) / np.float32(rotary_dim))
    if scaling is None:
        return inv_freq.astype(np.float32)
    s = scaling
    wavelen = 2 * math.pi / inv_freq.astype(np.float64)
    long_wavelen = s.original_max_position / s.low_freq_factor
    short_wavelen = s.original_max_position / s.high_freq_factor
    stretched = np.where(wavelen > long_wavelen, inv_freq / s.factor, inv_freq)
    smooth = (s.original_max_position / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
    blended = (1 - smooth) * stretched / s.factor + smooth * stretched
    medium = (wavelen >= short_wavelen) & (wavelen <= long_wavelen)
    return np.where(medium, blended, stretched).astype(np.float32)


@shape_checked
def rope(x: Float[Tensor, "batch heads seq head_dim"], positions: Int[Tensor, "batch seq"], theta: float,
         rotary_dim: int | None = None, scaling: RopeScaling | None = None
         ) -> Float[Tensor, "batch heads seq head_dim"]:
    """Rotary position embedding in Hugging Face's layout (rotate_half): the first `rotary_dim`
    features (all by default) are two halves (a, b) rotated pairwise by the angle
    position * frequency, to (a cos - b sin, b cos + a sin); the rest pass through. Computed in
    f32, returned in x's dtype."""
    head_dim = x.shape[-1]
    rotary_dim = head_dim if rotary_dim is None else rotary_dim
    if not 0 < rotary_dim <= head_dim:
        raise ShapeError(f"rope: rotary_dim {rotary_dim} is not within the head dimension {head_dim}", user_site())
    half = rotary_dim // 2
    angles = positions.astype(f32)[:, None, :, None] * rope_frequencies(rotary_dim, theta, scaling)
    c, s = cos(angles), sin(angles)
    a, b = x[..., :half].astype(f32), x[..., half:rotary_dim].astype(f32)
    parts = [a * c - b * s, b * c + a * s]
    if rotary_dim < head_dim:
        parts.append(x[..., rotary_dim:].astype(f32))
    return concatenate(parts, axis=-1).astype(x.dtype)


@shape_checked
def update_cache(cache: Float[Tensor, "batch kv_heads max_len head_dim"],
                 new: Float[Tensor, "batch kv_heads seq head_dim"], positions: Int[Tensor, "batch seq"]
                 ) -> Float[Tensor, "batch kv_heads max_len head_dim"]:
    """`cache` with each row's new keys (or values) written from its position positions[:, 0]
    on (the positions of a row are contiguous). A window of a fixed number of tokens is a
    `dynamic_update_slice`, which a donated cache takes in place; a symbolic number (a prefill
    over fg.dim("T")) has no fixed window, so each cache entry selects the new token written at
    its position, or keeps its own. Positions past the cache are clamped, as the GPU cannot raise:
    keep positions[:, -1] < max_len."""
    new = new.astype(cache.dtype)
    batch, seq, length = new.shape[0], new.shape[2], cache.shape[2]
    if not isinstance(seq, Dim):
        for row in range(batch):
            cache = dynamic_update_slice(cache, new[row:row + 1], (row, 0, positions[row, 0], 0))
        return cache
    at = arange(length)[None, :] - positions[:, 0][:, None]  # (batch, max_len): each entry's index among the new tokens
    taken = stack([take(new[row], at[row], axis=1, mode="clip") for row in range(batch)])
    return where(((at >= 0) & (at < asarray(seq)))[:, None, :, None], taken, cache)


@shape_checked
def attention(q: Float[Tensor, "batch heads seq head_dim"], k: Float[Tensor, "batch kv_heads keys head_dim"],
              v: Float[Tensor, "batch kv_heads keys head_dim"], positions: Int[Tensor, "batch seq"]
              ) -> Float[Tensor, "batch heads seq head_dim"]:
    """Grouped-query attention of new queries over a KV cache: the query at positions[b, t]
    attends to the keys at positions 0..positions[b, t] (key j is at position j), with
    softmax(q k^T / sqrt(head_dim)) in f32. Query head h reads kv head h // (heads // kv_heads),
    as transformers' repeat_kv pairs them; the grouping is a reshape of the queries, so keys and
    values are read once per group, never repeated."""
    batch, heads, seq, head_dim = q.shape
    kv_heads, keys = k.shape[1], k.shape[2]
    if heads % kv_heads:
        raise ShapeError(f"attention: {heads} query heads do not split into groups over {kv_heads} kv heads",
                         user_site())
    group = heads // kv_heads
    grouped = q.astype(k.dtype).reshape(batch, kv_heads, group, seq, head_dim)
    scores = (grouped @ swapaxes(k, -1, -2)[:, :, None]).astype(f32) * (1.0 / math.sqrt(head_dim))
    visible = arange(keys) <= positions[:, None, None, :, None]  # (batch, 1, 1, seq, keys)
    weights = softmax(where(visible, scores, -math.inf), axis=-1)
    out = weights.astype(v.dtype) @ v[:, :, None]  # (batch, kv_heads, group, seq, head_dim)
    return out.reshape(batch, heads, seq, head_dim).astype(q.dtype)


def _dense(p: Params, x: Tensor) -> Tensor:
    """`linear` reading x in the weight's dtype, its result in f32 (for the residual stream)."""
    return linear(p, x.astype(p["w"].dtype)).astype(f32)


@shape_checked
def swiglu_mlp(p: Params, x: Float[Tensor, "*batch d"]) -> Float[Tensor, "*batch d"]:
    """down(silu(gate(x)) * up(x)), Llama's MLP; params `gate`, `up` (d, hidden), `down` (hidden, d)."""
    return _dense(p["down"], silu(_dense(p["gate"], x)) * _dense(p["up"], x))


def init_decoder_block(rng: np.random.Generator, hidden: int, heads: int, kv_heads: int, head_dim: int,
                       intermediate: int, qkv_bias: bool = False, std: float = 0.02) -> Params:
    """A block's params: norms of ones, weights normal(0, std) laid out (d_in, d_out), zero q/k/v
    biases where `qkv_bias` (Qwen2). The q, k and v projections are one `qkv` weight, their
    columns side by side: one product reads x once for all three."""
    def dense(d_in: int, d_out: int, bias: bool = False) -> Params:
        return init_linear(rng, d_in, d_out, bias=bias, std=std)

    return {"attn_norm": init_rms_norm(hidden),
            "attn": {"qkv": dense(hidden, (heads + 2 * kv_heads) * head_dim, qkv_bias),
                     "o": dense(heads * head_dim, hidden)},
            "mlp_norm": init_rms_norm(hidden),
            "mlp": {"gate": dense(hidden, intermediate), "up": dense(hidden, intermediate),
                    "down": {"w": normal(rng, (intermediate, hidden), std)}}}


@shape_checked
def decoder_block(p: Params, x: Float[Tensor, "batch seq hidden"], cache: Params, positions: Int[Tensor, "batch seq"],
                  heads: int, kv_heads: int, theta: float = 10000.0, rotary_dim: int | None = None,
                  scaling: RopeScaling | None = None, eps: float = 1e-6, from_start: bool = False
                  ) -> tuple[Float[Tensor, "batch seq hidden"], Params]:
    """A pre-norm decoder block of Llama, Qwen2 (q/k/v biases: `b` in their params) and Mistral:
    x += o(attention(rope(q), rope(k), v)) over the cache with the new keys and values written at
    `positions`; x += swiglu_mlp(rms_norm(x)). q, k and v are the columns of one `qkv` product
    (heads, kv_heads and kv_heads heads' worth). `cache` is {"k", "v"} of
    (batch, kv_heads, max_len, head_dim); returns the new x and cache. With `from_start`, the
    tokens are each row's first (positions 0, 1, ...): they attend to their own keys and values
    (as the cache holds them), not to all max_len entries of the cache."""
    batch, seq, _ = x.shape
    attn = p["attn"]
    columns = attn["qkv"]["w"].shape[-1]
    if heads < 1 or kv_heads < 1 or columns % (heads + 2 * kv_heads) or heads % kv_heads:
        raise ShapeError(f"decoder_block: qkv width {columns} does not split into {heads} query heads and twice "
                         f"{kv_heads} kv heads of one size, the query heads in groups over the kv heads", user_site())
    head_dim = columns // (heads + 2 * kv_heads)
    width, kv_width = heads * head_dim, kv_heads * head_dim

    def split(t: Tensor, n: int) -> Tensor:  # (batch, seq, n * head_dim) -> (batch, n, seq, head_dim)
        return transpose(t.reshape(batch, seq, n, head_dim), (0, 2, 1, 3))

    h = rms_norm(p["attn_norm"], x, eps)
    qkv = _dense(attn["qkv"], h)
    q = rope(split(qkv[..., :width], heads), positions, theta, rotary_dim, scaling)
    k = rope(split(qkv[..., width:width + kv_width], kv_heads), positions, theta, rotary_dim, scaling)
    v = split(qkv[..., width + kv_width:], kv_heads)
    written = {"k": update_cache(cache["k"], k, positions), "v": update_cache(cache["v"], v, positions)}
    keys, values = (k.astype(cache["k"].dtype), v.astype(cache["v"].dtype)) if from_start else \
        (written["k"], written["v"])
    out = attention(q, keys, values, positions)
    x = x + _dense(attn["o"], transpose(out, (0, 2, 1, 3)).reshape(batch, seq, width))
    return x + swiglu_mlp(p["mlp"], rms_norm(p["mlp_norm"], x, eps)), written
