"""Functional layers over parameter pytrees, and their initialisers.

Each layer is an `init_*(rng, ...) -> params` (a dict of NumPy f32 arrays,
seeded by a NumPy Generator) and an apply function `layer(params, x, ...)`
written with fgrad ops, to be traced (through `fg.jit`, `fg.grad`,
`fg.adam_step`, ...). Apply functions carry jaxtyping shape annotations
(`Float[Tensor, "batch seq d"]`) that are checked when traced, so a shape
mistake names the dimension. Static settings (head counts, a GPTConfig)
are plain Python values passed alongside, or closed over: never traced.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from fgrad.errors import InputError, ShapeError
from fgrad.numpy import (
    causal_mask,
    gelu,
    log_softmax,
    mean,
    one_hot,
    relu,
    rsqrt,
    softmax,
    sum,
    take,
    transpose,
    where,
)
from fgrad.trace import Tensor, user_site
from fgrad.transforms.remat import checkpoint

if TYPE_CHECKING:  # at run time the checker brings them, on a layer's first call (see shape_checked)
    from jaxtyping import Float, Int

F = TypeVar("F", bound=Callable[..., Any])
Params = dict[str, Any]


def shape_checked(fn: F) -> F:
    """Check `fn`'s jaxtyping annotations on every call; a violation is an fg.ShapeError.

    The checker is built on the first call, so that `import fgrad` imports neither jaxtyping nor
    beartype (a tenth of a second each)."""
    checked: Callable[..., Any] | None = None

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal checked
        if checked is None:
            checked = _checker(fn)
        import jaxtyping  # imported by _checker: a dictionary lookup

        try:
            return checked(*args, **kwargs)
        except KeyError as e:  # the layers read their parameters by name
            raise InputError(f"{fn.__name__}: the parameters have no entry {e.args[0]!r}; pass the pytree its "
                             f"init_{fn.__name__} gave", user_site()) from None
        except jaxtyping.TypeCheckError as e:
            lines = [ln.strip() for ln in str(e).splitlines()]
            keep = [ln for ln in lines if ln.startswith(("The problem", "Actual value", "Expected type"))]
            dims = [ln for ln in lines if "=" in ln and ln.replace(" ", "").split("=")[0].isidentifier()]
            detail = " ".join(keep + (["Dimensions so far: " + ", ".join(dims)] if dims else []))
            raise ShapeError(f"{fn.__name__}: {detail}", user_site()) from None

    return wrapper  # type: ignore[return-value]


def _checker(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` wrapped by jaxtyping's checker (beartype checking each annotation), its module given
    the annotations' names (`Float`, `Int`: strings until beartype reads them)."""
    import jaxtyping
    from beartype import beartype

    for name in ("Float", "Int"):
        fn.__globals__.setdefault(name, getattr(jaxtyping, name))
    # NOTE: jaxtyped() imports JAX, where it is installed, to hide its own frames from JAX's
    # tracebacks: a second of start-up for nothing fgrad uses. A None entry makes that import
    # fail, which jaxtyping allows for; the entry goes once the checker is built.
    blocked = "jax._src.traceback_util"
    hide = "jax" not in sys.modules and blocked not in sys.modules
    if hide:
        sys.modules[blocked] = None  # type: ignore[assignment]
    try:
        return jaxtyping.jaxtyped(typechecker=beartype)(fn)
    finally:
        if hide:
            del sys.modules[blocked]


# ---------------------------------------------------------------------------
# Initialisers (NumPy, seeded)
# ---------------------------------------------------------------------------


def _param_shape(shape: int | tuple[int, ...]) -> tuple[int, ...]:
    """A parameter's shape: positive integer sizes (a layer width of 0 or 2.5 is a mistake)."""
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 1 for d in dims):
        raise ShapeError(f"init: parameter sizes must be positive integers, got {shape!r}", user_site())
    return dims


def normal(rng: np.random.Generator, shape: tuple[int, ...], std: float = 1.0) -> np.ndarray:
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"init: rng must be a NumPy Generator (np.random.default_rng(seed)), got "
                         f"{type(rng).__name__}", user_site())
    return (rng.standard_normal(_param_shape(shape)) * std).astype(np.float32)


def he_normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Normal with std sqrt(2 / fan_in), fan_in = shape[0] (for ReLU layers)."""
    return normal(rng, shape, math.sqrt(2.0 / _param_shape(shape)[0]))


def zeros(shape: int | tuple[int, ...]) -> np.ndarray:
    return np.zeros(_param_shape(shape), np.float32)


def ones(shape: int | tuple[int, ...]) -> np.ndarray:
    return np.ones(_param_shape(shape), np.float32)


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------


def init_linear(rng: np.random.Generator, d_in: int, d_out: int, bias: bool = True, std: float | None = None) -> Params:
    """`w` (d_in, d_out), He-normal unless `std` is given; `b` zeros."""
    w = he_normal(rng, (d_in, d_out)) if std is None else normal(rng, (d_in, d_out), std)
    return {"w": w, "b": zeros(d_out)} if bias else {"w": w}


@shape_checked
def linear(p: Params, x: Float[Tensor, "*batch d_in"]) -> Float[Tensor, "*batch d_out"]:
    """x @ w + b."""
    y = x @ p["w"]
    return y + p["b"] if "b" in p else y


def init_embedding(rng: np.random.Generator, vocab: int, d: int, std: float = 0.02) -> Params:
    return {"w": normal(rng, (vocab, d), std)}


@shape_checked
def embedding(p: Params, ids: Int[Tensor, "*batch"]) -> Float[Tensor, "*batch d"]:
    """Rows of `w` picked by integer ids."""
    return take(p["w"], ids, axis=0)


def init_layer_norm(d: int) -> Params:
    return {"g": ones(d), "b": zeros(d)}


@shape_checked
def layer_norm(p: Params, x: Float[Tensor, "*batch d"], eps: float = 1e-5) -> Float[Tensor, "*batch d"]:
    """(x - mean) / sqrt(var + eps) * g + b over the last axis."""
    mu = mean(x, axis=-1, keepdims=True)
    centred = x - mu
    var = mean(centred * centred, axis=-1, keepdims=True)
    return centred * rsqrt(var + eps) * p["g"] + p["b"]


def init_rms_norm(d: int) -> Params:
    return {"g": ones(d)}


@shape_checked
def rms_norm(p: Params, x: Float[Tensor, "*batch d"], eps: float = 1e-6) -> Float[Tensor, "*batch d"]:
    """x / sqrt(mean(x^2) + eps) * g over the last axis."""
    return x * rsqrt(mean(x * x, axis=-1, keepdims=True) + eps) * p["g"]


def init_mlp(rng: np.random.Generator, sizes: list[int]) -> Params:
    """Linear layers between consecutive `sizes` (He-normal weights, zero biases)."""
    return {"layers": [init_linear(rng, a, b) for a, b in zip(sizes, sizes[1:])]}


@shape_checked
def mlp(p: Params, x: Float[Tensor, "*batch d_in"], activation: Callable[[Any], Any] = relu
        ) -> Float[Tensor, "*batch d_out"]:
    """Linear layers with `activation` between them (not after the last)."""
    layers = p["layers"]
    for layer in layers[:-1]:
        x = activation(linear(layer, x))
    return linear(layers[-1], x)


def init_attention(rng: np.random.Generator, d: int, std: float = 0.02) -> Params:
    """Separate `wq wk wv wo` (d, d), no biases."""
    return {name: normal(rng, (d, d), std) for name in ("wq", "wk", "wv", "wo")}


@shape_checked
def causal_self_attention(p: Params, x: Float[Tensor, "batch seq d"], heads: int) -> Float[Tensor, "batch seq d"]:
    """Multi-head attention where each position sees itself and earlier ones:
    softmax(q k^T / sqrt(head_dim)) v per head, then wo."""
    batch, seq, d = x.shape
    if heads < 1 or d % heads:
        raise ShapeError(f"causal_self_attention: width {d} is not divisible by {heads} heads", user_site())
    head_dim = d // heads

    def split(t: Tensor) -> Tensor:  # (batch, seq, d) -> (batch, heads, seq, head_dim)
        return transpose(t.reshape(batch, seq, heads, head_dim), (0, 2, 1, 3))

    q, k, v = split(x @ p["wq"]), split(x @ p["wk"]), split(x @ p["wv"])
    scores = (q @ transpose(k, (0, 1, 3, 2))) * (1.0 / math.sqrt(head_dim))
    weights = softmax(where(causal_mask(seq), scores, -math.inf), axis=-1)
    out = transpose(weights @ v, (0, 2, 1, 3)).reshape(batch, seq, d)
    return out @ p["wo"]


def init_block(rng: np.random.Generator, d: int, hidden: int | None = None, std: float = 0.02) -> Params:
    """A pre-norm transformer block: layer norms, attention, and an MLP of `hidden` (4 d) units."""
    hidden = hidden or 4 * d
    return {"ln1": init_layer_norm(d), "attn": init_attention(rng, d, std), "ln2": init_layer_norm(d),
            "mlp": {"w1": normal(rng, (d, hidden), std), "b1": zeros(hidden),
                    "w2": normal(rng, (hidden, d), std), "b2": zeros(d)}}


@shape_checked
def transformer_block(p: Params, x: Float[Tensor, "batch seq d"], heads: int) -> Float[Tensor, "batch seq d"]:
    """x += attn(LN1(x)); x += W2 gelu(W1 LN2(x) + b1) + b2."""
    x = x + causal_self_attention(p["attn"], layer_norm(p["ln1"], x), heads)
    m = p["mlp"]
    return x + gelu(layer_norm(p["ln2"], x) @ m["w1"] + m["b1"]) @ m["w2"] + m["b2"]


@dataclass(frozen=True)
class GPTConfig:
    """A decoder-only character model (the gpt workload's defaults)."""

    vocab: int = 65
    context: int = 128
    width: int = 256
    heads: int = 4
    layers: int = 4


def init_gpt(rng: np.random.Generator, config: GPTConfig) -> Params:
    """Token and position embeddings (std 0.02), blocks, a final layer norm and an untied head."""
    if not isinstance(config, GPTConfig):
        raise InputError(f"init_gpt: config must be an fg.nn.GPTConfig, got a {type(config).__name__}", user_site())
    c = config
    return {"wte": normal(rng, (c.vocab, c.width), 0.02), "wpe": normal(rng, (c.context, c.width), 0.02),
            "blocks": [init_block(rng, c.width) for _ in range(c.layers)],
            "ln_f": init_layer_norm(c.width), "head": normal(rng, (c.width, c.vocab), 0.02)}


@shape_checked
def gpt(p: Params, tokens: Int[Tensor, "batch seq"], config: GPTConfig,
        remat: bool | Callable[..., bool] = False) -> Float[Tensor, "batch seq vocab"]:
    """Logits for the next token at every position (seq <= config.context).

    `remat`: True wraps each block in `fg.checkpoint`, so training keeps only the blocks' inputs
    between the forward and backward passes and computes the rest again; a checkpoint policy
    (`fg.checkpoint_policies.dots_saveable`) keeps what it names too. Values and gradients are
    unchanged."""
    seq = tokens.shape[1]
    if seq > config.context:
        raise ShapeError(f"gpt: {seq} tokens exceed the context of {config.context}", user_site())
    block_fn = transformer_block
    if remat is not False:
        block_fn = checkpoint(transformer_block, policy=None if remat is True else remat, static_argnums=(2,))
    x = take(p["wte"], tokens, axis=0) + p["wpe"][:seq]
    for block in p["blocks"]:
        x = block_fn(block, x, config.heads)
    return layer_norm(p["ln_f"], x) @ p["head"]


@shape_checked
def cross_entropy(logits: Float[Tensor, "*batch classes"], labels: Int[Tensor, "*batch"]) -> Float[Tensor, ""]:
    """Mean softmax cross-entropy with integer labels."""
    return -mean(sum(log_softmax(logits, axis=-1) * one_hot(labels, logits.shape[-1]), axis=-1))
