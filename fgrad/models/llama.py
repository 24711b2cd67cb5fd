"""Llama-shaped decoders: Llama (1 to 3), Qwen2 (q/k/v biases) and Mistral, from Hugging Face
checkpoints.

`config = from_hf_config(path)` reads config.json, `params = load(path, dtype)` the safetensors
weights (one file or shards under an index; f32, f16 or bf16 on disk), `init_cache` makes the
KV cache and `forward(params, tokens, cache, positions, config) -> (logits, cache)` runs a pass
over new tokens, to be compiled with `fg.jit(forward, static_argnums=4, donate_argnums=2)`:
prefill once over a symbolic token count (`fg.spec((1, fg.dim("T", max=...)), "i32")` through
`.lower(...).compile()`), decode once at one token.

Params (weights laid out (d_in, d_out), as `fg.nn.linear` reads them):
`{"embed": {"w": (vocab, hidden)}, "layers": [block params of fg.nn.init_decoder_block],
"norm": {"g"}, "lm_head": {"w": (hidden, vocab)}}`, without `lm_head` where the embeddings are
tied. Mistral's sliding window is not applied: the context is capped at the window instead, so
that every query sees all its keys, as the window would let it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fgrad.errors import InputError, ShapeError
from fgrad.ir import DType
from fgrad.nn.decoder import RopeScaling, decoder_block, init_decoder_block
from fgrad.nn.layers import Params, embedding, normal, ones, rms_norm, shape_checked
from fgrad.numpy import asarray, reshape, take, transpose
from fgrad.pytree import tree_map
from fgrad.trace import Tensor, user_site

if TYPE_CHECKING:  # brought by fgrad.nn.shape_checked at run time
    from jaxtyping import Float, Int

FAMILIES = ("llama", "qwen2", "mistral")
_DTYPES = {"f32": np.float32, "f16": np.float16}


@dataclass(frozen=True)
class Config:
    """A Llama-shaped decoder's sizes and settings (hashable: a static argument of `fg.jit`)."""

    vocab: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    rms_eps: float = 1e-5
    rope_theta: float = 10000.0
    rope_scaling: RopeScaling | None = None
    partial_rotary_factor: float = 1.0
    tie_embeddings: bool = False
    qkv_bias: bool = False
    max_position: int = 2048
    family: str = "llama"

    def checked(self, who: str) -> Config:
        """This config, its sizes checked (raising an fg.InputError that names `who` and the user's line)."""
        sizes = {name: getattr(self, name) for name in ("vocab", "hidden", "layers", "heads", "kv_heads", "head_dim",
                                                        "intermediate", "max_position")}
        bad = {k: v for k, v in sizes.items() if not isinstance(v, int) or isinstance(v, bool) or v < 1}
        if bad:
            raise InputError(f"{who}: sizes must be positive integers, got {bad}", user_site())
        if self.heads % self.kv_heads:
            raise InputError(f"{who}: {self.heads} heads do not split into groups over {self.kv_heads} kv heads",
                             user_site())
        if self.rotary_dim < 2 or self.rotary_dim % 2:
            raise InputError(f"{who}: partial_rotary_factor {self.partial_rotary_factor} of head_dim {self.head_dim} "
                             f"rotates {self.rotary_dim} features; an even number is needed", user_site())
        if self.family not in FAMILIES:
            raise InputError(f"{who}: family {self.family!r} is not one of {FAMILIES}", user_site())
        return self

    @property
    def rotary_dim(self) -> int:
        """The features of a head that rope rotates."""
        return int(self.head_dim * self.partial_rotary_factor)


# ---------------------------------------------------------------------------
# config.json
# ---------------------------------------------------------------------------


def from_hf_config(path_or_dict: str | Path | dict[str, Any]) -> Config:
    """The Config of a Hugging Face config.json (its path, its directory or its parsed dict) of
    model_type llama, qwen2 or mistral. Settings fgrad does not implement (another activation,
    another rope scaling, Llama's o_proj or MLP biases) raise an fg.InputError naming them."""
    site = user_site()
    if isinstance(path_or_dict, dict):
        cfg, where = path_or_dict, "the config"
    else:
        file = Path(path_or_dict)
        file = file / "config.json" if file.is_dir() else file
        try:
            cfg = json.loads(file.read_text())
        except (OSError, ValueError) as e:
            raise InputError(f"from_hf_config: cannot read {file}: {e}", site) from None
        where = str(file)

    def need(key: str) -> Any:
        if key not in cfg:
            raise InputError(f"from_hf_config: {where} has no {key!r}", site)
        return cfg[key]

    def refuse(what: str) -> InputError:
        return InputError(f"from_hf_config: {where}: {what} is not supported by fgrad.models.llama", site)

    family = cfg.get("model_type")
    if family not in FAMILIES:
        raise refuse(f"model_type {family!r} (supported: {', '.join(FAMILIES)})")
    if cfg.get("hidden_act", "silu") != "silu":
        raise refuse(f"hidden_act {cfg['hidden_act']!r} (the MLP is SwiGLU: silu)")
    for flag in ("attention_bias", "mlp_bias"):
        if family == "llama" and cfg.get(flag):
            raise refuse(f"{flag}: true")
    heads, hidden = need("num_attention_heads"), need("hidden_size")
    rope = cfg.get("rope_parameters") or {}  # transformers 5 keeps theta and scaling in one dict
    theta = cfg.get("rope_theta", rope.get("rope_theta", 10000.0))
    max_position = cfg.get("max_position_embeddings", 2048)
    window = cfg.get("sliding_window") if family == "mistral" or cfg.get("use_sliding_window") else None
    return Config(
        vocab=need("vocab_size"), hidden=hidden, layers=need("num_hidden_layers"), heads=heads,
        kv_heads=cfg.get("num_key_value_heads") or heads, head_dim=cfg.get("head_dim") or hidden // max(heads, 1),
        intermediate=need("intermediate_size"), rms_eps=float(cfg.get("rms_norm_eps", 1e-6)),
        rope_theta=float(theta), rope_scaling=_rope_scaling(cfg.get("rope_scaling") or rope, refuse),
        partial_rotary_factor=float(cfg.get("partial_rotary_factor", rope.get("partial_rotary_factor", 1.0))),
        tie_embeddings=bool(cfg.get("tie_word_embeddings", False)), qkv_bias=family == "qwen2",
        max_position=min(max_position, window) if window else max_position, family=family).checked("from_hf_config")


def _rope_scaling(scaling: dict[str, Any], refuse: Any) -> RopeScaling | None:
    """Llama 3's scaling from a config's rope_scaling (or rope_parameters); None for plain rope."""
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "default":
        return None
    if kind != "llama3":
        raise refuse(f"rope scaling {kind!r} (supported: default, llama3)")
    try:
        return RopeScaling(float(scaling["factor"]), float(scaling["low_freq_factor"]),
                           float(scaling["high_freq_factor"]), int(scaling["original_max_position_embeddings"]))
    except KeyError as e:
        raise refuse(f"llama3 rope scaling without {e.args[0]!r}") from None


# ---------------------------------------------------------------------------
# Params: random or from safetensors
# ---------------------------------------------------------------------------


def _config(config: Any, who: str) -> Config:
    if not isinstance(config, Config):
        raise InputError(f"{who}: config must be a llama.Config (from_hf_config gives one), got a "
                         f"{type(config).__name__}", user_site())
    return config.checked(who)


def _np_dtype(dtype: Any, who: str) -> type:
    name = str(dtype)
    if name not in _DTYPES:
        raise InputError(f"{who}: dtype must be 'f32' or 'f16', got {dtype!r}", user_site())
    return _DTYPES[name]


def init(rng: np.random.Generator, config: Config, dtype: str | DType = "f32") -> Params:
    """Random params: normal(0, 0.02) weights, norms of ones, zero biases (the benchmark's model)."""
    np_dtype = _np_dtype(dtype, "llama.init")
    c = _config(config, "llama.init")
    params: Params = {
        "embed": {"w": normal(rng, (c.vocab, c.hidden), 0.02)},
        "layers": [init_decoder_block(rng, c.hidden, c.heads, c.kv_heads, c.head_dim, c.intermediate, c.qkv_bias)
                   for _ in range(c.layers)],
        "norm": {"g": ones(c.hidden)}}
    if not c.tie_embeddings:
        params["lm_head"] = {"w": normal(rng, (c.hidden, c.vocab), 0.02)}
    return tree_map(lambda a: a.astype(np_dtype), params)


def load(path: str | Path, dtype: str | DType = "f32", config: Config | None = None) -> Params:
    """The params of a Hugging Face checkpoint directory (or its model.safetensors, or its
    model.safetensors.index.json naming shards), converted to `dtype` ("f32" or "f16"); bf16
    tensors are widened exactly. Weights are laid out (d_in, d_out); q_proj, k_proj and v_proj
    become one `qkv` weight, their columns side by side. Tied embeddings (no lm_head.weight) give
    params without `lm_head`. Tensors missing, of the wrong shape or left unused raise fgrad errors."""
    site = user_site()
    np_dtype = _np_dtype(dtype, "llama.load")
    path = Path(path)
    c = from_hf_config(path if path.is_dir() else path.parent) if config is None else _config(config, "llama.load")
    tensors = {name: t.astype(np_dtype) for name, t in _read_checkpoint(path, site)}
    head = c.heads * c.head_dim
    kv = c.kv_heads * c.head_dim

    def take(name: str, shape: tuple[int, ...], transposed: bool = False) -> np.ndarray:
        if name not in tensors:
            raise InputError(f"llama.load: {path} has no tensor {name!r}", site)
        t = tensors.pop(name)
        if t.shape != shape:
            raise ShapeError(f"llama.load: {name} is {list(t.shape)}, expected {list(shape)} for the config", site)
        return np.ascontiguousarray(t.T) if transposed else t

    def dense(name: str, d_in: int, d_out: int, bias: bool = False) -> Params:
        p = {"w": take(f"{name}.weight", (d_out, d_in), transposed=True)}  # torch's Linear is (out, in)
        return {**p, "b": take(f"{name}.bias", (d_out,))} if bias else p

    def side_by_side(denses: list[Params]) -> Params:  # q, k and v: one product (decoder_block's `qkv`)
        return {name: np.concatenate([d[name] for d in denses], axis=-1) for name in denses[0]}

    layers = []
    for i in range(c.layers):
        at = f"model.layers.{i}"
        layers.append({
            "attn_norm": {"g": take(f"{at}.input_layernorm.weight", (c.hidden,))},
            "attn": {"qkv": side_by_side([dense(f"{at}.self_attn.{x}_proj", c.hidden, d, c.qkv_bias)
                                          for x, d in (("q", head), ("k", kv), ("v", kv))]),
                     "o": dense(f"{at}.self_attn.o_proj", head, c.hidden)},
            "mlp_norm": {"g": take(f"{at}.post_attention_layernorm.weight", (c.hidden,))},
            "mlp": {"gate": dense(f"{at}.mlp.gate_proj", c.hidden, c.intermediate),
                    "up": dense(f"{at}.mlp.up_proj", c.hidden, c.intermediate),
                    "down": dense(f"{at}.mlp.down_proj", c.intermediate, c.hidden)}})
    params: Params = {"embed": {"w": take("model.embed_tokens.weight", (c.vocab, c.hidden))}, "layers": layers,
                      "norm": {"g": take("model.norm.weight", (c.hidden,))}}
    if c.tie_embeddings:
        tensors.pop("lm_head.weight", None)  # a copy of the embeddings, where a checkpoint keeps one
    else:
        params["lm_head"] = dense("lm_head", c.hidden, c.vocab)
    unused = sorted(n for n in tensors if not n.endswith("rotary_emb.inv_freq"))  # old checkpoints keep rope's table
    if unused:
        raise InputError(f"llama.load: {path} has tensors the config does not use: {', '.join(unused[:5])}"
                         f"{' ...' if len(unused) > 5 else ''}", site)
    return params


def _read_checkpoint(path: Path, site: str | None) -> Iterator[tuple[str, np.ndarray]]:
    """Each (name, array) of a checkpoint: a directory's model.safetensors.index.json shards or its
    model.safetensors, or such a file itself."""
    if path.is_dir():
        index, single = path / "model.safetensors.index.json", path / "model.safetensors"
        path = index if index.exists() else single
    if not path.exists():
        raise InputError(f"llama.load: no model.safetensors or model.safetensors.index.json at {path.parent}", site)
    if path.name.endswith(".index.json"):
        try:
            shards = sorted(set(json.loads(path.read_text())["weight_map"].values()))
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"llama.load: cannot read the shard index {path}: {e!r}", site) from None
        files = [path.parent / shard for shard in shards]
    else:
        files = [path]
    for file in files:
        if not file.exists():
            raise InputError(f"llama.load: the shard {file} named by {path} is missing", site)
        yield from _read_safetensors(file)


# safetensors' dtype names -> NumPy, for the files read as raw bytes
_SAFETENSORS_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def _read_safetensors(file: Path) -> Iterator[tuple[str, np.ndarray]]:
    """The tensors of one safetensors file through the `safetensors` package: its NumPy API, or,
    for a file holding bf16 (which NumPy has no dtype for), its `deserialize` of the raw bytes,
    each bf16 value widened to f32 exactly (its 16 bits are an f32's high half)."""
    try:
        import safetensors
        from safetensors.numpy import load_file
    except ImportError:
        raise InputError("llama.load: reading safetensors needs the optional extra: pip install 'fgrad[llm]'",
                         user_site()) from None
    with safetensors.safe_open(str(file), framework="numpy") as f:
        bf16 = any(f.get_slice(name).get_dtype() == "BF16" for name in f.keys())
    if not bf16:
        yield from load_file(str(file)).items()
        return
    for name, entry in safetensors.deserialize(file.read_bytes()):
        shape, kind, data = tuple(entry["shape"]), entry["dtype"], entry["data"]
        if kind == "BF16":
            bits = np.frombuffer(data, np.uint16).astype(np.uint32) << 16
            yield name, bits.view(np.float32).reshape(shape)
        elif kind in _SAFETENSORS_DTYPES:
            yield name, np.frombuffer(data, _SAFETENSORS_DTYPES[kind]).reshape(shape)
        else:
            raise InputError(f"llama.load: {file} holds {name} of dtype {kind}, which fgrad cannot read", user_site())


# ---------------------------------------------------------------------------
# Cache and forward pass
# ---------------------------------------------------------------------------


def init_cache(config: Config, batch: int, max_len: int, dtype: str | DType = "f32") -> list[Params]:
    """An empty KV cache: per layer {"k", "v"} of zeros (batch, kv_heads, max_len, head_dim)."""
    np_dtype = _np_dtype(dtype, "llama.init_cache")
    config = _config(config, "llama.init_cache")
    if not 1 <= max_len <= config.max_position:
        raise InputError(f"llama.init_cache: max_len {max_len} is outside 1..{config.max_position}, the model's "
                         "context", user_site())
    shape = (batch, config.kv_heads, max_len, config.head_dim)
    return [{"k": np.zeros(shape, np_dtype), "v": np.zeros(shape, np_dtype)} for _ in range(config.layers)]


@shape_checked
def forward(params: Params, tokens: Int[Tensor, "batch seq"], cache: list[Params], positions: Int[Tensor, "batch seq"],
            config: Config, last_only: bool = False, from_start: bool = False
            ) -> tuple[Float[Tensor, "batch _ vocab"], list[Params]]:
    """Logits f32[batch, seq, vocab] for the new `tokens` at `positions` (contiguous in each row),
    and the cache with their keys and values written from positions[:, 0] on. Each token attends
    to the cached tokens before it and to the new ones up to itself; positions[:, -1] must be
    below the cache's length. With `last_only`, the logits of each row's last token alone,
    f32[batch, 1, vocab]: what generation reads after a prefill (the head's product for one row,
    not for the whole prompt). With `from_start`, the tokens are each row's first (positions
    0, 1, ...: a prompt's prefill): they attend to each other alone, so attention costs seq x seq,
    not seq x the cache's length."""
    config = _config(config, "llama.forward")
    if len(params["layers"]) != config.layers or len(cache) != config.layers:
        raise InputError(f"llama.forward: {len(params['layers'])} layers of params and {len(cache)} of cache for a "
                         f"config of {config.layers}", user_site())
    x = embedding(params["embed"], tokens).astype(DType.f32)
    new_cache = []
    for block, layer_cache in zip(params["layers"], cache):
        x, layer_cache = decoder_block(block, x, layer_cache, positions, config.heads, config.kv_heads,
                                       config.rope_theta, config.rotary_dim, config.rope_scaling, config.rms_eps,
                                       from_start)
        new_cache.append(layer_cache)
    if last_only:  # the last row at a traced start: the prompt's length may be a symbol
        x = take(x, reshape(asarray(x.shape[1]) - 1, (1,)), axis=1)
    x = rms_norm(params["norm"], x, config.rms_eps)
    head = transpose(params["embed"]["w"]) if config.tie_embeddings else params["lm_head"]["w"]
    return (x.astype(head.dtype) @ head).astype(DType.f32), new_cache


@dataclass(frozen=True)
class Model:
    """A loaded model for the generation API: its config and params."""

    config: Config
    params: Params


def from_pretrained(path: str | Path, dtype: str | DType = "f32") -> Model:
    """The Model of a Hugging Face checkpoint directory (config.json and safetensors)."""
    config = from_hf_config(path)
    return Model(config, load(path, dtype, config))
