"""Text generation with a decoder LLM: a prefill program, a decode program, and the token stream.

`fg.generate(model, prompt_ids, max_new_tokens)` streams token ids. Two
programs serve every call for one model shape, context and way of sampling,
each compiled once:

- prefill over the prompt, its length a symbol `T` (any length up to the
  context), writing the KV cache from position 0 and choosing the first token;
- decode from one token at a traced position, writing its keys and values
  into the cache and choosing the next token; with `tokens_per_submit=n` a
  `fori_loop` on the device runs it n times per call, writing the n tokens
  into a small buffer, with no host round trip between them.

The cache is donated to both, so each call writes its new entries into the
cache buffers in place. The next token is chosen on the device (greedy, or
drawn with `fg.random` under a key folded from the seed and the token's
position), so the host reads back nothing but token ids.

    python -m fgrad.generate MODEL_DIR --prompt "Once upon a time" --max-new-tokens 64

prints the text as it streams, then prefill and decode tokens/s and the
memory of the programs by storage class.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import time
import warnings
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fgrad import lax, random
from fgrad import numpy as fnp
from fgrad.errors import FgradError, InputError
from fgrad.ir import DType
from fgrad.models import llama
from fgrad.pytree import flatten, leaves_in, unflatten
from fgrad.runtime import Array, Device, Executable, compile, default_device, device_put
from fgrad.trace import Tensor, dim, spec, spec_of, trace, user_site

# NOTE: `python -m fgrad.generate` runs this module as __main__ after the package, which exports
# `generate`, has imported it; runpy warns that the module is already loaded, which is harmless here.
warnings.filterwarnings("ignore", r"'fgrad\.generate' found in sys\.modules", RuntimeWarning)


@dataclass(frozen=True)
class Sampling:
    """How the next token is chosen from its logits, as Hugging Face's and JAX's samplers do.

    temperature 0 is greedy (the argmax). Otherwise the logits are divided by
    `temperature`; `top_k` keeps the k largest; `top_p` keeps the smallest set
    of the largest whose probability reaches p; the token is drawn from the
    softmax of what is kept. Ties at the top-k or top-p boundary are all kept.
    """

    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None

    def check(self, site: str | None) -> None:
        """Refuse values no sampler takes, naming them."""
        if isinstance(self.temperature, bool) or not isinstance(self.temperature, (int, float)) \
                or not self.temperature >= 0 or math.isinf(self.temperature):
            raise InputError(f"generate: temperature must be a finite number >= 0 (0 is greedy), got "
                             f"{self.temperature!r}", site)
        if self.top_k is not None and (isinstance(self.top_k, bool) or not isinstance(self.top_k, int)
                                       or self.top_k < 1):
            raise InputError(f"generate: top_k must be a positive int or None, got {self.top_k!r}", site)
        if self.top_p is not None and (isinstance(self.top_p, bool) or not isinstance(self.top_p, (int, float))
                                       or not 0 < self.top_p <= 1):
            raise InputError(f"generate: top_p must be a number in (0, 1] or None, got {self.top_p!r}", site)

    def choose(self, logits: Tensor, key: Tensor) -> Tensor:
        """The next token of each row of f32[B, vocab] logits, i32[B], drawn under the u32[2] `key`."""
        if self.temperature == 0:
            return fnp.argmax(logits, axis=-1)
        logits = logits / self.temperature
        vocab = logits.shape[-1]
        top_k = None if self.top_k is None else min(self.top_k, vocab)
        if top_k is not None:  # keep the logits >= the k-th largest
            kth = lax.top_k(logits, top_k)[0][:, -1:]
            logits = fnp.where(logits < kth, -math.inf, logits)
        if self.top_p is not None and self.top_p < 1:
            # In descending order, a token is kept while the mass ranked above it is below p
            # (the first always is); everything below the last kept value is dropped.
            ranked = lax.top_k(logits, top_k or vocab)[0]
            mass = fnp.cumsum(fnp.softmax(ranked, axis=-1), axis=-1)
            above = fnp.concatenate([fnp.zeros_like(mass[:, :1]), mass[:, :-1]], axis=-1)
            kept = fnp.sum((above < self.top_p).astype("i32"), axis=-1, keepdims=True)
            cutoff = fnp.take_along_axis(ranked, kept - 1, axis=-1)
            logits = fnp.where(logits < cutoff, -math.inf, logits)
        return random.categorical(key, logits, axis=-1)


class Generator:
    """The compiled prefill and decode programs of one model shape, context and sampling; calling
    it streams the tokens that follow a prompt.

    Args:
        config: the model's `llama.Config`.
        param_specs: the parameters' pytree of Specs (or of arrays: only shapes and dtypes are read).
        context: the cache length: prompt and generated tokens together fit in it.
        sampling: how each token is chosen.
        tokens_per_submit: tokens decoded per call (a `fori_loop` on the device when more than one).
        device: where the programs run (the default device if None).
    """

    def __init__(self, config: llama.Config, param_specs: Any, context: int, sampling: Sampling = Sampling(),
                 tokens_per_submit: int = 1, device: Device | None = None):
        site = user_site()
        sampling.check(site)
        if isinstance(context, bool) or not isinstance(context, int) or context < 1:
            raise InputError(f"generate: context must be a positive int, got {context!r}", site)
        if isinstance(tokens_per_submit, bool) or not isinstance(tokens_per_submit, int) or tokens_per_submit < 1:
            raise InputError(f"generate: tokens_per_submit must be a positive int, got {tokens_per_submit!r}", site)
        self.config, self.context, self.sampling, self.n = config, context, sampling, tokens_per_submit
        self.device = device or default_device()
        leaves, self.param_tree = flatten(param_specs)
        # The cache takes the weights' precision: f16 where they are f16.
        self.cache_dtype = "f16" if any(spec_of(x).dtype is DType.f16 for x in leaves) else "f32"
        cache_specs = _specs(llama.init_cache(config, 1, context, self.cache_dtype))
        key = spec((2,), "u32")
        tokens = spec((1, dim("T", context)), "i32")
        self.prefill: Executable = compile(trace(self._prefill, param_specs, cache_specs, tokens, key),
                                           self.device, donate_argnums=1)
        self.decode: Executable = compile(trace(self._decode, param_specs, cache_specs,
                                                spec((1, self.n), "i32"), spec((), "i32"), key),
                                          self.device, donate_argnums=(1, 2))
        self._spare: Any = None  # a cache a finished stream gave back, for the next one

    def _prefill(self, params: Any, cache: Any, tokens: Tensor, key: Tensor) -> tuple[Tensor, Any]:
        """Run the prompt i32[1, T] from position 0 and choose the token after it; that token is
        returned n times over, as i32[1, n]: the shape decode takes, which reads the last column."""
        positions = fnp.broadcast_to(fnp.arange(tokens.shape[1], dtype="i32")[None, :], tokens.shape)
        logits, cache = llama.forward(params, tokens, cache, positions, self.config, last_only=True, from_start=True)
        after = positions[:, -1] + 1
        chosen = self.sampling.choose(logits[:, -1], random.fold_in(key, after[0]))
        return fnp.broadcast_to(chosen[:, None], (1, self.n)), cache

    def _decode(self, params: Any, cache: Any, tokens: Tensor, position: Tensor, key: Tensor) -> tuple[Tensor, Any]:
        """From the token in the last column of `tokens` i32[1, n], at `position`, choose the next n
        tokens, one forward each, and return them in place of `tokens` (donated). A call may run
        past the context where the stream needs fewer than n more tokens: those it discards, and
        the cache entries they clobber (clamped to the last) are rewritten before any query reads them."""

        def step(i: Any, carry: tuple[Tensor, Any, Tensor]) -> tuple[Tensor, Any, Tensor]:
            token, cache, out = carry
            at = position + i
            logits, cache = llama.forward(params, token, cache, fnp.reshape(at, (1, 1)), self.config)
            chosen = self.sampling.choose(logits[:, -1], random.fold_in(key, at + 1))[:, None]
            return chosen, cache, lax.dynamic_update_slice(out, chosen, (0, i))

        carry = (tokens[:, -1:], cache, tokens)
        _, cache, out = step(0, carry) if self.n == 1 else lax.fori_loop(0, self.n, step, carry)
        return out, cache

    def __call__(self, params: Any, prompt_ids: Sequence[int] | np.ndarray, max_new_tokens: int, seed: int = 0,
                 stop: Sequence[int] = ()) -> Iterator[int]:
        """Stream up to `max_new_tokens` token ids after `prompt_ids`, ending early after one of `stop`.

        `params` are the model's weights, best already on the device (`fg.device_put`): host
        arrays are uploaded on every call. Arguments are checked here, before the stream starts.
        """
        site = user_site()
        prompt = np.asarray(prompt_ids)
        if prompt.ndim != 1 or not (prompt.size and (np.issubdtype(prompt.dtype, np.integer))):
            raise InputError(f"generate: prompt_ids must be a non-empty sequence of token ids, got "
                             f"{prompt.dtype}{list(prompt.shape)}", site)
        if prompt.min() < 0 or prompt.max() >= self.config.vocab:
            raise InputError(f"generate: prompt_ids must be token ids in 0..{self.config.vocab - 1} (the vocabulary), "
                             f"got {int(prompt.min())}..{int(prompt.max())}", site)
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
            raise InputError(f"generate: max_new_tokens must be an int >= 0, got {max_new_tokens!r}", site)
        # The last token is chosen, never run: the cache holds the prompt and max_new_tokens - 1 more.
        if len(prompt) + max(max_new_tokens - 1, 0) > self.context:
            raise InputError(f"generate: a prompt of {len(prompt)} tokens and {max_new_tokens} new ones do not fit "
                             f"the context of {self.context}; pass a larger context= or fewer tokens", site)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise InputError(f"generate: seed must be an int, got {seed!r}", site)
        held = leaves_in(params, self.param_tree)  # weights already here (the usual case) are not walked again
        if held is None or not all(isinstance(x, Array) and x.device is self.device for x in held):
            params = device_put(params, self.device)
        key = device_put(np.array([0, int(seed) % 2**32], np.uint32), self.device)  # random.PRNGKey(seed)
        return self._stream(params, prompt.astype(np.int32)[None, :], max_new_tokens, key, frozenset(stop))

    def _stream(self, params: Any, prompt: np.ndarray, max_new_tokens: int, key: Array,
                stop: frozenset[int]) -> Iterator[int]:
        if max_new_tokens == 0:
            return
        cache, self._spare = self._spare, None
        if cache is None:  # stale entries are harmless: a query sees keys at positions <= its own only
            cache = device_put(llama.init_cache(self.config, 1, self.context, self.cache_dtype), self.device)
        tokens, cache = self.prefill(params, cache, prompt, key)
        chosen, position, done = tokens.numpy()[0, -1:], prompt.shape[1], 0
        try:
            while True:
                for token in chosen[:max_new_tokens - done].tolist():
                    yield token
                    done += 1
                    if token in stop:
                        return
                if done == max_new_tokens:
                    return
                tokens, cache = self.decode(params, cache, tokens, np.int32(position), key)
                chosen, position = tokens.numpy()[0], position + self.n
        finally:
            if all(not x.donated for x in flatten(cache)[0]):
                self._spare = cache

    def memory(self) -> dict[str, int]:
        """Bytes on the device by storage class: the weights, the KV cache, and each program's
        activations and scratch (each program keeps its own)."""
        prefill, decode = self.prefill.memory, self.decode.memory
        return {"weights": prefill["params"], "kv_cache": prefill["cache"],
                "prefill_scratch": prefill["scratch"], "decode_scratch": decode["scratch"]}


def _specs(tree: Any) -> Any:
    """A pytree of arrays as the Specs of its leaves."""
    leaves, treedef = flatten(tree)
    return unflatten(treedef, [spec_of(x) for x in leaves])


DEFAULT_CONTEXT = 2048  # the cache length where a model's own is longer: memory and decode's attention grow with it
_GENERATORS: dict[Hashable, Generator] = {}  # the programs of recent calls, newest last
_KEEP = 4  # how many; each holds its programs' scratch buffers on the device


def generator_for(model: llama.Model, context: int | None = None, sampling: Sampling = Sampling(),
                  tokens_per_submit: int = 1, device: Device | None = None) -> Generator:
    """The Generator of `model`'s shape (config and parameter specs) for these settings, compiled on the
    first request and kept for the next ones. `context` defaults to the model's `max_position`, at most
    DEFAULT_CONTEXT."""
    context = min(model.config.max_position, DEFAULT_CONTEXT) if context is None else context
    device = device or default_device()
    leaves, treedef = flatten(model.params)
    # The device by id: each Generator holds its device, so the id is not reused while it is kept.
    key = (model.config, treedef, tuple(spec_of(x) for x in leaves), context, sampling, tokens_per_submit, id(device))
    generator = _GENERATORS.pop(key, None)
    if generator is None:
        generator = Generator(model.config, unflatten(treedef, list(key[2])), context, sampling, tokens_per_submit,
                              device)
    _GENERATORS[key] = generator
    while len(_GENERATORS) > _KEEP:
        del _GENERATORS[next(iter(_GENERATORS))]
    return generator


def generate(model: llama.Model, prompt_ids: Sequence[int] | np.ndarray, max_new_tokens: int,
             temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None, seed: int = 0, *,
             tokens_per_submit: int = 1, context: int | None = None, stop: Sequence[int] = (),
             device: Device | None = None) -> Iterator[int]:
    """Stream the token ids that `model` generates after `prompt_ids`, as an iterator.

    The prompt is run by one prefill program (compiled once for any prompt length up to the
    context), then the tokens by one decode program (compiled once), the KV cache updated in
    place on the device. Tokens are chosen on the device, greedily when `temperature` is 0,
    else drawn from the softmax of the logits over `temperature` after `top_k` and `top_p`
    filtering, under a key from `seed` and the token's position: the same seed gives the same
    tokens, whatever `tokens_per_submit`. The programs are kept per model shape, context and
    sampling (`generator_for`), so later calls compile nothing.

    Args:
        model: a `fgrad.models.llama.Model` (its params best already on the device).
        prompt_ids: the prompt's token ids (batch 1).
        max_new_tokens: how many tokens to generate at most.
        temperature, top_k, top_p: how each token is chosen (see `Sampling`).
        seed: the random seed.
        tokens_per_submit: tokens decoded per submit, in a loop on the device (the iterator still
            yields them one by one).
        context: the KV cache's length, prompt and new tokens together; by default the model's
            `max_position`, at most DEFAULT_CONTEXT.
        stop: token ids that end the stream (the stop token is yielded).
        device: where to run (the default device if None).
    """
    sampling = Sampling(temperature, top_k, top_p)
    sampling.check(user_site())
    generator = generator_for(model, context, sampling, tokens_per_submit, device)
    return generator(model.params, prompt_ids, max_new_tokens, seed, stop)


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


def _eos_ids(model_dir: Path) -> tuple[int, ...]:
    """The end-of-sequence ids of a Hugging Face snapshot (generation_config.json, else config.json)."""
    for name in ("generation_config.json", "config.json"):
        path = model_dir / name
        if path.exists():
            eos = json.loads(path.read_text()).get("eos_token_id")
            if eos is not None:
                return tuple(eos) if isinstance(eos, list) else (eos,)
    return ()


def _size(n: int) -> str:
    """Bytes in the largest binary unit that leaves at least 1 of it."""
    unit = next((u for u in range(3, 0, -1) if n >= 1024**u), 0)
    return f"{n / 1024**unit:,.1f} {('bytes', 'KiB', 'MiB', 'GiB')[unit]}" if unit else f"{n} bytes"


def _rate(tokens: int, seconds: float) -> str:
    return f"{tokens} tokens in {seconds:.3f} s, " + (f"{tokens / seconds:,.1f} tokens/s" if seconds > 0 else "-")


def main(argv: Sequence[str] | None = None) -> None:
    """Stream text from a Hugging Face snapshot, then print prefill and decode tokens/s and memory."""
    parser = argparse.ArgumentParser(prog="python -m fgrad.generate", description=main.__doc__)
    parser.add_argument("model_dir", type=Path, help="a Hugging Face snapshot: config.json, tokenizer.json, "
                                                     "*.safetensors")
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--dtype", choices=("f32", "f16"), default="f32", help="weights and KV cache (default f32)")
    parser.add_argument("--device", help="the adapter whose name contains this (default: the fastest)")
    parser.add_argument("--temperature", type=float, default=1.0, help="0 is greedy (default 1)")
    parser.add_argument("--top-k", type=int)
    parser.add_argument("--top-p", type=float)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--context", type=int, help="the KV cache's length (default: the model's, at most "
                                                    f"{DEFAULT_CONTEXT})")
    parser.add_argument("--tokens-per-submit", type=int, default=1, help="tokens decoded per submit (default 1)")
    args = parser.parse_args(argv)
    if args.device:  # before anything opens a device
        os.environ["FGRAD_ADAPTER"] = args.device
    from tokenizers import Tokenizer  # NOTE: the optional extra `llm`, needed here only

    if not (args.model_dir / "tokenizer.json").is_file():
        parser.error(f"{args.model_dir} has no tokenizer.json: a Hugging Face snapshot's folder is expected")
    try:
        tokenizer = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
        model = llama.from_pretrained(args.model_dir, dtype=args.dtype)
        model = dataclasses.replace(model, params=device_put(model.params))  # on the device once
        prompt = tokenizer.encode(args.prompt).ids
        start = time.perf_counter()
        generator = generator_for(model, args.context, Sampling(args.temperature, args.top_k, args.top_p),
                                  args.tokens_per_submit)
        for _ in generator(model.params, prompt, 2):  # a first run sets up what the timed one reuses
            pass
        compiled = time.perf_counter() - start
        stream = generator(model.params, prompt, args.max_new_tokens, args.seed, _eos_ids(args.model_dir))
    except (FgradError, OSError, ValueError) as e:  # a path, a checkpoint or an argument that does not fit
        parser.exit(2, f"{parser.prog}: error: {e}\n")
    print(args.prompt, end="", flush=True)
    ids: list[int] = []
    shown = ""
    start = first = time.perf_counter()
    for token in stream:
        if not ids:
            first = time.perf_counter()
        ids.append(token)
        text = tokenizer.decode(ids)
        if not text.endswith("\ufffd"):  # a character's bytes may span tokens: wait for the rest
            print(text[len(shown):], end="", flush=True)
            shown = text
    end = time.perf_counter()
    print(tokenizer.decode(ids)[len(shown):])  # what waited for bytes that never came
    print(f"prefill: {_rate(len(prompt), first - start)}")
    print(f"decode: {_rate(len(ids) - 1, end - first)} ({args.tokens_per_submit} per submit)")
    memory = generator.memory()
    print(f"compiled and run once in {compiled:.1f} s on {generator.device.name}; context {generator.context}")
    print("memory: " + ", ".join(f"{name.replace('_', ' ')} {_size(n)}" for name, n in memory.items()))


if __name__ == "__main__":
    main()
