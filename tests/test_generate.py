"""Generation: prefill and decode programs compiled once, tokens chosen on the device, the stream
of fg.generate against a plain loop of full forward passes run by `interpret`, and the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fgrad as fg
from fgrad.generate import Generator, Sampling, generator_for, main
from fgrad.models import llama

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

CONFIG = llama.Config(vocab=64, hidden=32, layers=2, heads=4, kv_heads=2, head_dim=8, intermediate=48,
                      max_position=64)
CONTEXT = 40
FIXTURE = Path(__file__).parent / "fixtures" / "llm" / "llama"


@pytest.fixture(scope="module")
def model() -> llama.Model:
    """A small random model whose weights (std 0.3) make attention, and so the cache, matter."""
    params = fg.tree_map(lambda w: w * 15 if w.ndim == 2 else w, llama.init(np.random.default_rng(0), CONFIG))
    return llama.Model(CONFIG, fg.device_put(params))


@pytest.fixture(scope="module")
def greedy(model: llama.Model) -> Generator:
    return generator_for(model, CONTEXT, Sampling(0.0))


def reference_greedy(model: llama.Model, prompt: list[int], count: int) -> list[int]:
    """The argmax after each prefix, each a full forward pass over the whole sequence from an
    empty cache, run by `interpret`."""
    params = fg.tree_map(np.asarray, model.params)
    ids = list(prompt)
    for _ in range(count):
        tokens = np.array([ids], np.int32)
        positions = np.arange(len(ids), dtype=np.int32)[None]
        cache = llama.init_cache(CONFIG, 1, CONTEXT)
        graph = fg.trace(lambda p, t, c, q: llama.forward(p, t, c, q, CONFIG)[0], params, tokens, cache, positions)
        logits = fg.interpret(graph, params, tokens, cache, positions)
        ids.append(int(np.argmax(logits[0, -1])))
    return ids[len(prompt):]


def prompt_of(length: int, seed: int = 0) -> list[int]:
    return np.random.default_rng(seed).integers(0, CONFIG.vocab, length).tolist()


def test_greedy_equals_full_forward_passes_and_each_phase_compiles_once(model, monkeypatch):
    """Prompts of several lengths (the longest first, so later ones meet a cache holding its
    entries) through one Generator: two programs lowered, each token the argmax of a full pass."""
    import fgrad.runtime
    from fgrad.lower import lower

    monkeypatch.setenv("FGRAD_CACHE_DIR", "")  # every compile lowers: the count is of lowerings
    lowered = []
    monkeypatch.setattr(fgrad.runtime, "lower", lambda *a, **k: lowered.append(1) or lower(*a, **k))
    generator = Generator(CONFIG, model.params, CONTEXT, Sampling(0.0))
    assert len(lowered) == 2
    assert [d.name for d in generator.prefill.program.symbols] == ["T"] and not generator.decode.program.symbols
    # The cache is written in place: neither program makes a buffer for it (prefill's result is its token).
    assert generator.prefill.memory["outputs"] == 4 and generator.decode.memory["outputs"] == 0
    assert generator.memory()["kv_cache"] == 2 * CONFIG.layers * CONFIG.kv_heads * CONTEXT * CONFIG.head_dim * 4
    for length in (17, 1, 6):
        prompt = prompt_of(length, seed=length)
        got = list(generator(model.params, prompt, 8))
        assert got == reference_greedy(model, prompt, 8), length
    assert len(lowered) == 2


def test_generate_streams_and_keeps_its_programs(model, greedy):
    prompt = prompt_of(5)
    stream = fg.generate(model, prompt, 6, temperature=0, context=CONTEXT)
    first = next(stream)
    assert isinstance(first, int) and [first, *stream] == list(greedy(model.params, prompt, 6))
    assert generator_for(model, CONTEXT, Sampling(0.0)) is greedy


def test_top_k_of_one_and_a_vanishing_temperature_are_greedy(model, greedy):
    prompt = prompt_of(7, seed=1)
    want = list(greedy(model.params, prompt, 10))
    assert list(fg.generate(model, prompt, 10, temperature=1.5, top_k=1, seed=3, context=CONTEXT)) == want
    for seed in (0, 1):
        assert list(fg.generate(model, prompt, 10, temperature=1e-5, seed=seed, context=CONTEXT)) == want


def test_sampling_is_deterministic_per_seed(model):
    prompt = prompt_of(4, seed=2)

    def draw(seed: int) -> list[int]:
        return list(fg.generate(model, prompt, 12, temperature=2.0, top_p=0.95, seed=seed, context=CONTEXT))

    first = draw(7)
    assert draw(7) == first and draw(8) != first
    assert all(0 <= t < CONFIG.vocab for t in first)


@pytest.mark.parametrize("sampling", [Sampling(0.0), Sampling(1.0, top_k=8, top_p=0.9)], ids=["greedy", "sampled"])
def test_n_tokens_per_submit_equal_one_per_submit(model, sampling):
    prompt = prompt_of(5, seed=4)
    one = generator_for(model, CONTEXT, sampling)
    want = list(one(model.params, prompt, 11, seed=5))
    looped = generator_for(model, CONTEXT, sampling, tokens_per_submit=4)
    assert looped.decode.program.kernels != one.decode.program.kernels
    assert list(looped(model.params, prompt, 11, seed=5)) == want  # 1 from prefill, then 4, 4 and 2 of 4
    stop = want[5]
    ended = want[:want.index(stop) + 1]
    assert list(one(model.params, prompt, 11, seed=5, stop=[stop])) == ended
    assert list(looped(model.params, prompt, 11, seed=5, stop=[stop])) == ended
    # To the end of the context: the last call runs past it, and its extra tokens are dropped.
    full = CONTEXT - len(prompt) + 1
    assert list(looped(model.params, prompt, full, seed=5)) == list(one(model.params, prompt, full, seed=5))


def _kept_by_warpers(logits: np.ndarray, temperature: float, top_k: int | None, top_p: float | None) -> set[int]:
    """The tokens Hugging Face's warpers leave, in its order: temperature, top-k, then top-p
    (sorted ascending, the tokens whose cumulative probability is <= 1 - top_p removed, the
    largest always kept)."""
    scores = logits / temperature
    if top_k is not None:
        scores = np.where(scores < np.sort(scores)[-top_k], -np.inf, scores)
    if top_p is not None:
        order = np.argsort(scores)
        probs = np.exp(scores[order] - scores.max())
        removed = np.cumsum(probs / probs.sum()) <= 1 - top_p
        removed[-1] = False
        scores = scores.copy()
        scores[order[removed]] = -np.inf
    return set(np.flatnonzero(np.isfinite(scores)).tolist())


@pytest.mark.parametrize("temperature, top_k, top_p", [(1.0, 2, None), (1.0, None, 0.7), (1.0, 4, 0.5),
                                                       (2.0, None, 0.7), (0.5, 5, 0.95)])
def test_top_k_and_top_p_keep_what_hugging_face_keeps(temperature, top_k, top_p):
    """Many draws from one distribution: the tokens drawn are those the warpers keep, at their
    renormalised probabilities."""
    probs = np.array([0.06, 0.4, 0.1, 0.25, 0.04, 0.15])
    logits = np.log(probs).astype(np.float32)
    kept = _kept_by_warpers(logits, temperature, top_k, top_p)
    draws = 4000
    sampling = Sampling(temperature, top_k, top_p)
    chosen = fg.jit(sampling.choose)(np.broadcast_to(logits, (draws, len(probs))).copy(), fg.random.PRNGKey(0))
    counts = np.bincount(np.asarray(chosen), minlength=len(probs))
    assert set(np.flatnonzero(counts).tolist()) == kept
    want = np.where(np.isin(np.arange(len(probs)), list(kept)), probs ** (1 / temperature), 0)
    np.testing.assert_allclose(counts / draws, want / want.sum(), atol=0.03)


def test_arguments_are_checked_when_generate_is_called(model):
    with pytest.raises(fg.InputError, match="do not fit the context of 40"):
        fg.generate(model, prompt_of(30), 12, context=CONTEXT)
    with pytest.raises(fg.InputError, match="temperature must be"):
        fg.generate(model, [1, 2], 3, temperature=-1.0, context=CONTEXT)
    with pytest.raises(fg.InputError, match="top_p must be"):
        fg.generate(model, [1, 2], 3, top_p=0.0, context=CONTEXT)
    with pytest.raises(fg.InputError, match="token ids in 0..63"):
        fg.generate(model, [1, 64], 3, context=CONTEXT)
    with pytest.raises(fg.InputError, match="non-empty"):
        fg.generate(model, [], 3, context=CONTEXT)
    assert list(fg.generate(model, [1, 2], 0, context=CONTEXT)) == []


def test_cli_streams_text_and_reports_speed_and_memory(capsys):
    expected = np.load(FIXTURE / "expected.npz")
    prompt = bytes(expected["prompt_0"].tolist()).decode()
    main([str(FIXTURE), "--prompt", prompt, "--max-new-tokens", "8", "--temperature", "0", "--context", "64"])
    out = capsys.readouterr().out
    from tokenizers import Tokenizer

    text = Tokenizer.from_file(str(FIXTURE / "tokenizer.json")).decode(expected["tokens_0"][:8].tolist())
    assert out.startswith(prompt + text)  # transformers' greedy tokens
    assert "prefill: " in out and "decode: 7 tokens" in out and "tokens/s" in out
    assert "weights" in out and "kv cache" in out


def test_cli_runs_as_a_module():
    env = {**os.environ, "PYTHONWARNINGS": "ignore::RuntimeWarning:fgrad.runtime"}
    done = subprocess.run([sys.executable, "-m", "fgrad.generate", str(FIXTURE), "--prompt", "Hi",
                           "--max-new-tokens", "4", "--top-k", "5", "--tokens-per-submit", "2", "--context", "16"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Hi") and "tokens/s" in done.stdout and "(2 per submit)" in done.stdout
    assert "RuntimeWarning" not in done.stderr, done.stderr
