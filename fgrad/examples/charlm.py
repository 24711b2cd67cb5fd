"""Train a character-level GPT on the Python standard library's own source, then write some.

python -m fgrad.examples.charlm                      # 300 steps: about 35 s on a 2-core CPU (llvmpipe)
python -m fgrad.examples.charlm --steps 2000 --width 256 --layers 4 --heads 4 --context 128 --batch 32
python -m fgrad.examples.charlm --resume runs/charlm.ckpt --steps 200

The whole training step (forward, backward, Adam with a warmup-cosine
schedule) is one graph, compiled once to WGSL; parameters and optimizer
state stay on the device and are updated in place (donated buffers).
"""

from __future__ import annotations

import argparse
import math
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

import fgrad as fg
from fgrad import nn
from fgrad.examples.training import Progress, use_device


def read_corpus(max_bytes: int) -> str:
    """Source text of the standard library's modules, in a fixed order, as printable ASCII."""
    root = Path(sysconfig.get_paths()["stdlib"])
    parts, size = [], 0
    for path in sorted(root.glob("*.py")) + sorted(root.glob("*/*.py")):
        if "test" in path.parts[-2] or "site-packages" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8").replace("\t", "    ")
        except (OSError, UnicodeDecodeError):
            continue
        text = "".join(c for c in text if c == "\n" or " " <= c <= "~")
        parts.append(text)
        size += len(text)
        if size >= max_bytes:
            break
    if not parts:
        sys.exit(f"charlm: found no Python sources under {root}")
    return "".join(parts)[:max_bytes]


def batches(data: np.ndarray, batch: int, context: int, rng: np.random.Generator):
    """Endless random windows: (tokens, next tokens), each (batch, context) int32."""
    while True:
        starts = rng.integers(0, len(data) - context - 1, batch)
        windows = np.stack([data[s: s + context + 1] for s in starts])
        yield windows[:, :-1], windows[:, 1:]


def sample(forward, params, prompt: list[int], length: int, context: int, pad: int, temperature: float,
           rng: np.random.Generator) -> list[int]:
    """Generate `length` tokens after `prompt`, one forward pass of the full window each."""
    tokens = list(prompt)
    for _ in range(length):
        window = ([pad] * context + tokens)[-context:]
        logits = np.asarray(forward(params, np.array([window], np.int32)), np.float64) / temperature
        probs = np.exp(logits - logits.max())
        tokens.append(int(rng.choice(len(probs), p=probs / probs.sum())))
    return tokens[len(prompt):]


def main(argv: list[str] | None = None) -> float:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--context", type=int, default=32, help="characters per sequence")
    ap.add_argument("--width", type=int, default=64, help="model width D")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--corpus-bytes", type=int, default=2_000_000)
    ap.add_argument("--sample-length", type=int, default=200)
    ap.add_argument("--device", help="use the adapter whose name contains this (default: the fastest)")
    ap.add_argument("--checkpoint", default="runs/charlm.ckpt", help="where to save (default runs/charlm.ckpt)")
    ap.add_argument("--resume", help="continue from this checkpoint")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    use_device(args.device)
    rng = np.random.default_rng(args.seed)

    if args.resume:
        saved = fg.load(args.resume)
        config = nn.GPTConfig(**{k: int(v) for k, v in saved["config"].items()})
        vocab = "".join(map(chr, saved["vocab"]))
    text = read_corpus(args.corpus_bytes)
    if not args.resume:
        vocab = "".join(sorted(set(text)))
        config = nn.GPTConfig(vocab=len(vocab), context=args.context, width=args.width, heads=args.heads,
                              layers=args.layers)
    index = {c: i for i, c in enumerate(vocab)}
    data = np.array([index.get(c, index.get(" ", 0)) for c in text], np.int32)
    split = int(0.9 * len(data))
    train, held_out = data[:split], data[split:]
    print(f"corpus: {len(text):,} characters of standard-library source, vocabulary {len(vocab)}")
    print(f"model: {config}, device: {fg.default_device().name}")

    if args.resume:
        params, opt_state = saved["params"], saved["opt_state"]
        print(f"resumed from {args.resume} at step {int(opt_state['step'])}")
    else:
        params = nn.init_gpt(rng, config)
        opt_state = fg.adam_init(params)
    first = int(np.asarray(opt_state["step"]))
    total = first + args.steps

    def loss_fn(p, tokens, targets):
        return nn.cross_entropy(nn.gpt(p, tokens, config), targets)

    tokens_spec = fg.spec((args.batch, config.context), "i32")
    began = time.perf_counter()
    loss_graph = fg.trace(loss_fn, params, tokens_spec, tokens_spec)
    schedule = fg.optim.warmup_cosine(args.lr, max(total // 10, 1), total, end=args.lr / 10)
    step = fg.compile(fg.adam_step(loss_graph, lr=schedule, clip_norm=1.0), donate_argnums=(0, 1))
    evaluate = fg.compile(loss_graph)
    print(f"compiled: {len(step.kernels)} kernels, {step.peak_bytes / 2**20:.1f} MiB, "
          f"{time.perf_counter() - began:.1f}s")

    stream = batches(train, args.batch, config.context, rng)
    progress = Progress(args.steps, args.batch * config.context)
    loss = math.nan
    for k in range(1, args.steps + 1):
        params, opt_state, loss_value = step(params, opt_state, *next(stream))
        if k % 10 == 0 or k == args.steps:
            loss = float(loss_value)
            progress.update(k, loss)
    progress.close()

    held = batches(held_out, args.batch, config.context, np.random.default_rng(1))
    val = float(np.mean([float(evaluate(params, *next(held))) for _ in range(4)]))
    print(f"held-out loss {val:.3f} (a uniform guess: {math.log(len(vocab)):.3f})")

    forward = fg.jit(lambda p, t: nn.gpt(p, t, config)[0, -1])
    prompt = [index[c] for c in "def "]
    out = sample(forward, params, prompt, args.sample_length, config.context, index["\n"], 0.8, rng)
    print("--- sample ---\ndef " + "".join(vocab[i] for i in out) + "\n--------------")

    fg.save(args.checkpoint, {"params": params, "opt_state": opt_state, "vocab": np.array([ord(c) for c in vocab]),
                              "config": {k: np.int32(v) for k, v in vars(config).items()}})
    print(f"saved {args.checkpoint} (step {total}); total {time.perf_counter() - began:.0f}s")
    return val


if __name__ == "__main__":
    main()
