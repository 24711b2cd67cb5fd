"""fgrad.models.llama against transformers, on the tiny random-weight checkpoints of Llama, Qwen2
and Mistral in tests/fixtures/llm (written by tests/fixtures/make_llm_fixtures.py, with
transformers' f32 logits and greedy tokens for two prompts).

Prefill runs one program compiled over a symbolic token count T, decode one compiled at a single
token, the KV cache donated from call to call; the layers of fg.nn.decoder are checked against
NumPy transcriptions of transformers' rotate_half and repeat_kv.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from safetensors import safe_open

import fgrad as fg
from fgrad.models import llama
from fgrad.pytree import flatten

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

FIXTURES = Path(__file__).parent / "fixtures" / "llm"
FAMILIES = ("llama", "qwen2", "mistral")
MAX_LEN = 48  # the cache: every fixture sequence (at most 27 + 19 tokens) fits
T = fg.dim("T", MAX_LEN)
FORWARD = fg.jit(llama.forward, static_argnums=4, donate_argnums=2)


def expected(family: str, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Prompt i's ids, transformers' 20 greedy tokens, and its logits over the prompt and the first 19."""
    with np.load(FIXTURES / family / "expected.npz") as e:
        return e[f"prompt_{i}"], e[f"tokens_{i}"], e[f"logits_{i}"]


@functools.cache
def model(family: str, batch: int) -> tuple[llama.Config, object, fg.Executable]:
    """The family's config, its params on the device, and its prefill program over (batch, T) tokens."""
    config = llama.from_hf_config(FIXTURES / family)
    params = fg.device_put(llama.load(FIXTURES / family))
    tokens = fg.spec((batch, T), "i32")
    prefill = FORWARD.lower(params, tokens, llama.init_cache(config, batch, MAX_LEN), tokens, config).compile()
    return config, params, prefill


def run(family: str, tokens: np.ndarray, cache: object, start: np.ndarray | int = 0) -> tuple[np.ndarray, object]:
    """Logits of `tokens` (batch, t) at positions start.. of each row, and the new cache: through the
    symbolic prefill program, or at one token through the jitted decode step."""
    tokens = np.asarray(tokens, np.int32)
    config, params, prefill = model(family, tokens.shape[0])
    positions = (np.asarray(start, np.int32).reshape(-1, 1) + np.arange(tokens.shape[1], dtype=np.int32))
    positions = np.broadcast_to(positions, tokens.shape).copy()
    if tokens.shape[1] == 1:
        logits, cache = FORWARD(params, tokens, cache, positions, config)
    else:
        logits, cache = prefill(params, tokens, cache, positions)
    return np.asarray(logits), cache


def empty_cache(family: str, batch: int = 1) -> list:
    return llama.init_cache(model(family, batch)[0], batch, MAX_LEN)


def assert_logits(got: np.ndarray, want: np.ndarray, rtol: float = 1e-4) -> None:
    """Equal to `rtol` of each value, and of the largest logit near zero (random logits cross it)."""
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want).max())


# ---------------------------------------------------------------------------
# Against transformers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_logits_match_transformers(family):
    for i in range(2):
        prompt, tokens, want = expected(family, i)
        sequence = np.concatenate([prompt, tokens[:-1]])[None]
        logits, _ = run(family, sequence, empty_cache(family))
        assert logits.shape == (1, len(sequence[0]), 256) and logits.dtype == np.float32
        assert_logits(logits[0], want)


@pytest.mark.parametrize("family", FAMILIES)
def test_greedy_decode_matches_transformers(family):
    """Prefill the prompt, then 19 one-token steps on the cache: transformers' 20 tokens, and its
    logits at every step."""
    for i in range(2):
        prompt, tokens, want = expected(family, i)
        logits, cache = run(family, prompt[None], empty_cache(family))
        assert_logits(logits[0], want[:len(prompt)])
        picked = [int(logits[0, -1].argmax())]
        for step in range(len(tokens) - 1):
            position = len(prompt) + step
            logits, cache = run(family, [[picked[-1]]], cache, position)
            assert_logits(logits[0, 0], want[position])
            picked.append(int(logits[0, 0].argmax()))
        assert picked == tokens.tolist()


@pytest.mark.parametrize("family", FAMILIES)
def test_decode_with_cache_equals_full_recompute(family):
    """A prefill of 10 tokens, one of 7 more on the cached prefix, then one-token steps: the logits
    and the cache of one pass over the whole sequence."""
    prompt, tokens, _ = expected(family, 1)
    sequence = np.concatenate([prompt, tokens])[None]
    full, full_cache = run(family, sequence, empty_cache(family))
    pieces, cache = [], empty_cache(family)
    for start, stop in [(0, 10), (10, 17), *((t, t + 1) for t in range(17, sequence.shape[1]))]:
        logits, cache = run(family, sequence[:, start:stop], cache, start)
        pieces.append(logits)
    assert_logits(np.concatenate(pieces, axis=1), full, rtol=1e-5)
    # A one-token pass's products run in the matrix-vector kernel, which sums k in another order than
    # the tiled kernel of longer passes: keys and values (sums of 64 terms of order 1) differ by a
    # few f32 roundings of those terms.
    for got, want in zip(flatten(cache)[0], flatten(full_cache)[0], strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_rows_of_a_batch_write_and_read_at_their_own_positions():
    """Two rows whose second and third passes start at different positions (row 1 rewrites its
    entries 8..11): each row's logits are those of its own sequence computed alone."""
    (a, a_tail, _), (b, _, _) = expected("llama", 1), expected("llama", 0)
    a = np.concatenate([a, a_tail])
    c = np.array([7, 99, 3, 250, 42], np.int32)
    cache = empty_cache("llama", batch=2)
    _, cache = run("llama", np.stack([a[:12], b[:12]]), cache, [0, 0])
    second, cache = run("llama", np.stack([a[12:16], c[:4]]), cache, [12, 8])
    third, _ = run("llama", np.stack([a[16:17], c[4:5]]), cache, [16, 12])
    alone_a, _ = run("llama", a[None, :17], empty_cache("llama"))
    alone_b, _ = run("llama", np.concatenate([b[:8], c])[None], empty_cache("llama"))
    assert_logits(np.concatenate([second[0], third[0]]), alone_a[0, 12:17], rtol=1e-5)
    assert_logits(np.concatenate([second[1], third[1]]), alone_b[0, 8:13], rtol=1e-5)


def test_prefill_compiles_once_and_decode_once(monkeypatch):
    """One lowering serves prompts of 1, 5, 12 and 27 tokens, another every decode step; a decode
    step writes its cache window with dynamic_update_slice."""
    import fgrad.runtime
    from fgrad.lower import lower

    config, params, _ = model("mistral", 1)
    monkeypatch.setenv("FGRAD_CACHE_DIR", "")  # every compile lowers: the count is of lowerings
    lowered = []
    monkeypatch.setattr(fgrad.runtime, "lower", lambda *a, **k: lowered.append(1) or lower(*a, **k))
    forward = fg.jit(llama.forward, static_argnums=4, donate_argnums=2)
    tokens = fg.spec((1, T), "i32")
    prefill = forward.lower(params, tokens, empty_cache("mistral"), tokens, config).compile()
    assert len(lowered) == 1
    prompt, picked, want = expected("mistral", 1)
    for t in (1, 5, 12, 27):
        logits, cache = prefill(params, prompt[None, :t], empty_cache("mistral"), np.arange(t, dtype=np.int32)[None])
        assert_logits(np.asarray(logits)[0], want[:t])
    for step, token in enumerate(picked[:4]):
        position = np.array([[27 + step]], np.int32)
        logits, cache = forward(params, np.array([[token]], np.int32), cache, position, config)
        assert_logits(np.asarray(logits)[0, 0], want[27 + step])
    assert len(lowered) == 2
    one = fg.spec((1, 1), "i32")
    decode = forward.lower(params, one, empty_cache("mistral"), one, config).graph
    assert sum(n.op == "dynamic_update_slice" for n in decode.nodes) == 2 * config.layers


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def test_bf16_on_disk_is_widened_exactly_and_tied_embeddings_have_no_head():
    path = FIXTURES / "qwen2"
    with safe_open(str(path / "model.safetensors"), framework="numpy") as f:
        assert {f.get_slice(name).get_dtype() for name in f.keys()} == {"BF16"}
        assert "lm_head.weight" not in f.keys()
    params = llama.load(path)
    leaves = flatten(params)[0]
    assert all(leaf.dtype == np.float32 for leaf in leaves)
    assert all(not (leaf.view(np.uint32) & 0xFFFF).any() for leaf in leaves)  # bf16 values, widened
    assert "lm_head" not in params and set(params["layers"][0]["attn"]["qkv"]) == {"w", "b"}
    assert all(flatten(llama.load(path, "f16"))[0][k].dtype == np.float16 for k in range(len(leaves)))


def test_sharded_checkpoint_loads_as_one():
    path = FIXTURES / "mistral"
    shards = set(json.loads((path / "model.safetensors.index.json").read_text())["weight_map"].values())
    assert len(shards) > 1
    by_dir, by_index = llama.load(path), llama.load(path / "model.safetensors.index.json")
    for x, y in zip(flatten(by_dir)[0], flatten(by_index)[0], strict=True):
        np.testing.assert_array_equal(x, y)
    assert by_dir["layers"][0]["attn"]["qkv"]["w"].shape == (64, (4 + 2 * 2) * 32)  # head_dim 32 > hidden / heads
    assert llama.load(FIXTURES / "llama" / "model.safetensors")["lm_head"]["w"].shape == (64, 256)


def test_from_pretrained_and_init_give_the_loaded_structure():
    for family in FAMILIES:
        m = llama.from_pretrained(FIXTURES / family)
        assert m.config == llama.from_hf_config(FIXTURES / family / "config.json")
        loaded, tree = flatten(m.params)
        made, made_tree = flatten(llama.init(np.random.default_rng(0), m.config))
        assert made_tree == tree and [x.shape for x in made] == [x.shape for x in loaded]
        assert all(x.dtype == np.float32 for x in made)
        assert all(x.dtype == np.float16 for x in flatten(llama.init(np.random.default_rng(0), m.config, "f16"))[0])


def test_load_errors_name_the_tensor_or_file(tmp_path):
    config = llama.from_hf_config(FIXTURES / "llama")
    with pytest.raises(fg.ShapeError, match=r"mlp.gate_proj.weight is \[128, 64\], expected \[96, 64\]"):
        llama.load(FIXTURES / "llama", config=dataclasses.replace(config, intermediate=96))
    with pytest.raises(fg.InputError, match=r"tensors the config does not use: model.layers.0.self_attn.k_proj.bias"):
        llama.load(FIXTURES / "qwen2", config=dataclasses.replace(llama.from_hf_config(FIXTURES / "qwen2"),
                                                                  qkv_bias=False))
    with pytest.raises(fg.InputError, match=r"no tensor 'lm_head.weight'"):
        llama.load(FIXTURES / "qwen2", config=dataclasses.replace(llama.from_hf_config(FIXTURES / "qwen2"),
                                                                  tie_embeddings=False))
    broken = tmp_path / "mistral"
    shutil.copytree(FIXTURES / "mistral", broken)
    next(broken.glob("model-00002-*.safetensors")).unlink()
    with pytest.raises(fg.InputError, match=r"the shard .*model-00002-of-00003.safetensors named by .* is missing"):
        llama.load(broken)
    (tmp_path / "empty").mkdir()
    with pytest.raises(fg.InputError, match=r"no model.safetensors or model.safetensors.index.json"):
        llama.load(tmp_path / "empty", config=config)
    with pytest.raises(fg.InputError, match=r"dtype must be 'f32' or 'f16', got 'bf16'"):
        llama.load(FIXTURES / "llama", "bf16")
    with pytest.raises(fg.InputError, match=r"max_len 129 is outside 1..128"):
        llama.init_cache(config, 1, 129)


# ---------------------------------------------------------------------------
# config.json
# ---------------------------------------------------------------------------


def _config(family: str) -> dict:
    return json.loads((FIXTURES / family / "config.json").read_text())


def test_from_hf_config_reads_each_family():
    c = llama.from_hf_config(FIXTURES / "llama")
    assert (c.family, c.heads, c.kv_heads, c.head_dim, c.tie_embeddings, c.qkv_bias) == ("llama", 4, 2, 16, False,
                                                                                          False)
    assert c.rope_scaling == fg.nn.RopeScaling(8.0, 1.0, 4.0, 32) and c.rms_eps == 1e-5 and c.max_position == 128
    q = llama.from_hf_config(FIXTURES / "qwen2" / "config.json")
    assert (q.tie_embeddings, q.qkv_bias, q.rope_theta, q.rope_scaling, q.max_position) == (True, True, 1e6, None, 128)
    m = llama.from_hf_config(_config("mistral"))
    assert m.head_dim == 32 and m.max_position == 64  # the context is capped at the sliding window
    hash(c), hash(q), hash(m)  # static arguments of fg.jit


def test_from_hf_config_reads_transformers_4_rope_keys():
    """Before transformers 5, theta and scaling were `rope_theta` and `rope_scaling` (with `type`)."""
    new = _config("llama")
    old = {k: v for k, v in new.items() if k != "rope_parameters"}
    scaling = {k: v for k, v in new["rope_parameters"].items() if k not in ("rope_theta", "rope_type")}
    old.update(rope_theta=10000.0, rope_scaling={**scaling, "type": "llama3"})
    assert llama.from_hf_config(old) == llama.from_hf_config(new)
    assert llama.from_hf_config({**old, "rope_scaling": None, "partial_rotary_factor": 0.5}).rotary_dim == 8


@pytest.mark.parametrize("change, message", [
    ({"model_type": "gpt2"}, r"model_type 'gpt2' \(supported: llama, qwen2, mistral\)"),
    ({"hidden_act": "gelu"}, r"hidden_act 'gelu'"),
    ({"rope_parameters": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 1e4}}, r"rope scaling 'yarn'"),
    ({"rope_parameters": {"rope_type": "llama3", "factor": 4.0}}, r"llama3 rope scaling without 'low_freq_factor'"),
    ({"attention_bias": True}, r"attention_bias: true"),
    ({"mlp_bias": True}, r"mlp_bias: true"),
    ({"hidden_size": None}, r"has no 'hidden_size'"),
    ({"num_key_value_heads": 3}, r"from_hf_config: 4 heads do not split into groups over 3 kv heads"),
    ({"partial_rotary_factor": 0.1}, r"rotates 1 features; an even number is needed"),
])
def test_from_hf_config_refuses_what_it_does_not_implement(change, message):
    cfg = {**_config("llama"), **{k: v for k, v in change.items() if v is not None}}
    for k in [k for k, v in change.items() if v is None]:
        del cfg[k]
    with pytest.raises(fg.InputError, match=message) as e:
        llama.from_hf_config(cfg)
    assert e.value.site and "test_llm_models.py" in e.value.site


def test_from_hf_config_of_a_missing_file_names_it(tmp_path):
    with pytest.raises(fg.InputError, match=r"from_hf_config: cannot read .*config.json"):
        llama.from_hf_config(tmp_path)


# ---------------------------------------------------------------------------
# The layers, against NumPy transcriptions of transformers
# ---------------------------------------------------------------------------


def _rotate_half_reference(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray, rotary_dim: int) -> np.ndarray:
    """transformers' apply_rotary_pos_emb on the first rotary_dim features (as its partial-rotary models)."""
    freqs = positions[:, None, :, None].astype(np.float64) * inv_freq  # (batch, 1, seq, rotary_dim / 2)
    emb = np.concatenate([freqs, freqs], axis=-1)
    rot, keep = x[..., :rotary_dim], x[..., rotary_dim:]
    half = rotary_dim // 2
    rotated = np.concatenate([-rot[..., half:], rot[..., :half]], axis=-1)
    return np.concatenate([rot * np.cos(emb) + rotated * np.sin(emb), keep], axis=-1)


def test_rope_partial_rotary_and_llama3_frequencies():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 5, 12)).astype(np.float32)
    positions = np.array([[0, 1, 2, 3, 4], [30, 31, 32, 33, 34]], np.int32)
    scaling = fg.nn.RopeScaling(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position=64)
    got = fg.jit(lambda x, p: fg.nn.rope(x, p, 500.0, rotary_dim=8, scaling=scaling))(x, positions)
    inv_freq = fg.nn.rope_frequencies(8, 500.0, scaling)
    np.testing.assert_allclose(np.asarray(got), _rotate_half_reference(x, positions, inv_freq, 8), rtol=1e-5,
                               atol=1e-5)
    # Llama 3: the shortest wavelength kept, the longest stretched 8 times, one between blended.
    plain = fg.nn.rope_frequencies(8, 500.0)
    wavelengths = 2 * np.pi / plain
    assert wavelengths[0] < 64 / 4 < wavelengths[1] < 64 < wavelengths[2]
    np.testing.assert_allclose(inv_freq[[0, 2, 3]], [plain[0], plain[2] / 8, plain[3] / 8], rtol=1e-6)
    assert plain[1] / 8 < inv_freq[1] < plain[1]


def test_grouped_query_attention_sees_the_cached_prefix_by_position():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(2, 6, 3, 8)).astype(np.float32)  # 6 query heads over 2 kv heads
    k, v = (rng.normal(size=(2, 2, 10, 8)).astype(np.float32) for _ in range(2))
    positions = np.array([[4, 5, 6], [0, 1, 2]], np.int32)
    got = np.asarray(fg.jit(fg.nn.attention)(q, k, v, positions))
    keys, values = np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1)  # transformers' repeat_kv
    scores = q @ keys.swapaxes(-1, -2) / np.sqrt(8)
    scores = np.where(np.arange(10) <= positions[:, None, :, None], scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    want = (weights / weights.sum(-1, keepdims=True)) @ values
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_attention_refuses_heads_that_do_not_group():
    q, kv = fg.spec((1, 5, 2, 8)), fg.spec((1, 2, 4, 8))
    with pytest.raises(fg.ShapeError, match=r"attention: 5 query heads do not split into groups over 2 kv heads"):
        fg.trace(fg.nn.attention, q, kv, kv, fg.spec((1, 2), "i32"))


# ---------------------------------------------------------------------------
# f16
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_f16_weights_and_cache_within_f16_tolerance(family):
    """f16 weights and cache (norms, rotations and softmax in f32) through the reference
    interpreter, which runs anywhere: transformers' f32 logits to f16's precision."""
    config = llama.from_hf_config(FIXTURES / family)
    params = llama.load(FIXTURES / family, "f16")
    prompt, tokens, want = expected(family, 1)
    sequence = np.concatenate([prompt, tokens[:-1]])[None].astype(np.int32)
    positions = np.arange(sequence.shape[1], dtype=np.int32)[None]
    cache = llama.init_cache(config, 1, MAX_LEN, "f16")
    graph = fg.make_graph(llama.forward, static_argnums=4)(params, sequence, cache, positions, config)
    logits, cache = fg.interpret(graph, params, sequence, cache, positions)
    assert logits.dtype == np.float32 and cache[0]["k"].dtype == np.float16
    assert_logits(logits[0], want, rtol=1e-2)


def test_f16_on_the_device():
    device = fg.default_device()
    if "shader-f16" not in device.device.features:
        pytest.skip(f"{device.name} has no shader-f16 (f16 runs through the interpreter above)")
    config = llama.from_hf_config(FIXTURES / "llama")
    params = fg.device_put(llama.load(FIXTURES / "llama", "f16"))
    prompt, tokens, want = expected("llama", 1)
    logits, cache = FORWARD(params, prompt[None].astype(np.int32), llama.init_cache(config, 1, MAX_LEN, "f16"),
                            np.arange(len(prompt), dtype=np.int32)[None], config)
    assert_logits(np.asarray(logits)[0], want[:len(prompt)], rtol=1e-2)
    logits, _ = FORWARD(params, np.array([[tokens[0]]], np.int32), cache, np.array([[len(prompt)]], np.int32), config)
    assert_logits(np.asarray(logits)[0, 0], want[len(prompt)], rtol=1e-2)


def test_last_only_gives_the_last_rows_logits_over_a_symbolic_prompt():
    """forward(..., last_only=True), as a prefill over a symbolic T runs it: each row's last logits."""
    config = llama.from_hf_config(FIXTURES / "llama")
    params = llama.load(FIXTURES / "llama")
    tokens = np.arange(2 * 7, dtype=np.int32).reshape(2, 7) % config.vocab
    positions = np.broadcast_to(np.arange(7, dtype=np.int32), (2, 7))
    cache = llama.init_cache(config, 2, MAX_LEN)

    def run(last_only):
        graph = fg.trace(lambda p, t, c, q: llama.forward(p, t, c, q, config, last_only)[0], params,
                         fg.spec((2, T), "i32"), cache, fg.spec((2, T), "i32"))
        return fg.compile(graph)(params, tokens, cache, positions).numpy()

    full, last = run(False), run(True)
    assert last.shape == (2, 1, config.vocab)
    np.testing.assert_allclose(last, full[:, -1:], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_prefill_from_the_start_attends_to_its_own_tokens_as_to_the_cache(family):
    """forward(..., from_start=True) over a symbolic prompt from position 0: the logits and the
    cache that attending over the whole cache gives, at two prompt lengths of one program."""
    config = llama.from_hf_config(FIXTURES / family)
    params = fg.device_put(llama.load(FIXTURES / family))
    cache = llama.init_cache(config, 1, MAX_LEN)

    def program(from_start):
        return fg.compile(fg.trace(lambda p, t, c, q: llama.forward(p, t, c, q, config, from_start=from_start),
                                   params, fg.spec((1, T), "i32"), cache, fg.spec((1, T), "i32")))

    whole, own = program(False), program(True)
    for t in (3, 11):
        tokens = (np.arange(t, dtype=np.int32)[None] * 7) % config.vocab
        positions = np.arange(t, dtype=np.int32)[None]
        want, got = whole(params, tokens, cache, positions), own(params, tokens, cache, positions)
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-5, atol=1e-5)
        for a, b in zip(flatten(got[1])[0], flatten(want[1])[0], strict=True):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
