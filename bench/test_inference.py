"""LLM inference (the llm workload): prefill and decode tokens/s of a Llama-shaped model with random
weights, f32 and f16 weights and cache, one token per submit and n per submit (a loop on the device).

Prefill is timed from the prompt on the host to the first token read back; decode from there to
the last token read back, every token's id read as it comes (what a streaming caller sees).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad.generate import Generator, Sampling, generator_for
from fgrad.models import llama

# The shape of SmolLM-135M; the small variant for CPU-only machines.
LLM = {
    "small": dict(config=llama.Config(vocab=256, hidden=64, layers=2, heads=4, kv_heads=2, head_dim=16,
                                      intermediate=176, rms_eps=1e-5, rope_theta=10000.0, tie_embeddings=True),
                  prompt=16, new=32, per_submit=8),
    "full": dict(config=llama.Config(vocab=49152, hidden=576, layers=30, heads=9, kv_heads=3, head_dim=64,
                                     intermediate=1536, rms_eps=1e-5, rope_theta=10000.0, tie_embeddings=True),
                 prompt=128, new=128, per_submit=32),
}
ROUNDS = {"prefill": {"small": 5, "full": 20}, "decode": {"small": 5, "full": 5}}  # a prefill takes ~10 ms on a GPU


@pytest.fixture(scope="module", params=["f32", "f16"])
def model(request: pytest.FixtureRequest, size: str) -> llama.Model:
    """The workload's model, its weights (normal, std 0.02) on the device, in f32 or f16."""
    if request.param == "f16" and "shader-f16" not in fg.default_device().device.features:
        pytest.skip(f"the adapter {fg.default_device().name} has no shader-f16")
    config = LLM[size]["config"]
    return llama.Model(config, fg.device_put(llama.init(np.random.default_rng(0), config, request.param)))


def _generator(model: llama.Model, size: str, per_submit: int) -> Generator:
    """The workload's compiled programs, run once through so that timing starts warm."""
    w = LLM[size]
    generator = generator_for(model, w["prompt"] + w["new"], Sampling(0.0), per_submit)
    assert len(list(generator(model.params, _prompt(size), w["new"]))) == w["new"]
    return generator


def _prompt(size: str) -> list[int]:
    w = LLM[size]
    return np.random.default_rng(1).integers(0, w["config"].vocab, w["prompt"]).tolist()


def _timed(benchmark: Any, setup: Any, target: Any, rounds: int) -> tuple[Any, float]:
    """Run `target(*setup())` under pytest-benchmark; its last result and the median seconds of
    `target` alone (timed here too, so that figures exist under --benchmark-disable)."""
    times: list[float] = []

    def timed(*args: Any) -> Any:
        start = time.perf_counter()
        out = target(*args)
        times.append(time.perf_counter() - start)
        return out

    result = benchmark.pedantic(timed, setup=lambda: (setup(), {}), rounds=rounds, iterations=1)
    return result, float(np.median(times))


def _figures(generator: Generator, tokens_per_s: float, phase: str) -> dict[str, Any]:
    """What a benchmark reports beside its time: the rate, dispatches, and memory by storage class."""
    memory = generator.memory()
    program = (generator.prefill if phase == "prefill" else generator.decode).program
    figures = {f"{phase}_tokens_per_s": round(tokens_per_s, 1), "adapter": generator.device.name,
               "dispatches_per_call": len(program.kernels), **{f"{k}_bytes": v for k, v in memory.items()}}
    if phase == "decode":  # each token reads every weight and the whole cache once: the bandwidth it needs
        read = memory["weights"] + memory["kv_cache"]
        figures.update(tokens_per_submit=generator.n, bytes_read_per_token=read,
                       read_gb_per_s=round(read * tokens_per_s / 1e9, 2))
    return figures


def test_llm_prefill(benchmark, model, size, smoke):
    generator = _generator(model, size, 1)
    prompt, new = _prompt(size), LLM[size]["new"]

    def first_token() -> None:
        stream = generator(model.params, prompt, new)
        next(stream)  # the prefill's token, read back
        stream.close()

    seconds = _timed(benchmark, tuple, first_token, 1 if smoke else ROUNDS["prefill"][size])[1]
    benchmark.group = f"llm-prefill-{size}"
    benchmark.extra_info.update(_figures(generator, len(prompt) / seconds, "prefill"))


@pytest.mark.parametrize("per_submit", ["1", "n"])
def test_llm_decode(benchmark, model, size, smoke, per_submit):
    w = LLM[size]
    generator = _generator(model, size, 1 if per_submit == "1" else w["per_submit"])
    prompt = _prompt(size)

    def prefilled() -> tuple[Any]:
        stream = generator(model.params, prompt, w["new"])
        next(stream)
        return (stream,)

    def rest(stream: Any) -> int:
        return sum(1 for _ in stream)

    decoded, seconds = _timed(benchmark, prefilled, rest, 1 if smoke else ROUNDS["decode"][size])
    assert decoded == w["new"] - 1
    benchmark.group = f"llm-decode-{size}"
    benchmark.extra_info.update(_figures(generator, (w["new"] - 1) / seconds, "decode"))
