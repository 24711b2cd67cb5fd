"""A tiny transformer learns to sort digit sequences.

python -m fgrad.examples.sort                 # under a minute on a 2-core CPU (llvmpipe)
python -m fgrad.examples.sort --length 8 --width 64 --batch 64 --steps 1500

Each example is `d1 ... dn SEP s1 ... sn` with s the sorted digits; the
model is trained on the sorted half only (a masked cross-entropy). Accuracy
is measured on sequences never trained on: a sequence counts only if every
output digit is right (teacher-forced, which equals greedy decoding when
all are right).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import fgrad as fg
from fgrad import nn
from fgrad.examples.training import Progress, use_device

SEP = 10  # digits are 0..9


def make_batch(rng: np.random.Generator, batch: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    digits = rng.integers(0, 10, (batch, length))
    seq = np.concatenate([digits, np.full((batch, 1), SEP), np.sort(digits, axis=1)], axis=1).astype(np.int32)
    return seq[:, :-1], seq[:, 1:]


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--length", type=int, default=5, help="digits per sequence")
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--device", help="use the adapter whose name contains this")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    use_device(args.device)
    n = args.length
    config = nn.GPTConfig(vocab=11, context=2 * n, width=args.width, heads=args.heads, layers=args.layers)
    mask = np.concatenate([np.zeros(n), np.ones(n)]).astype(np.float32)  # score the sorted half only

    def loss_fn(p, tokens, targets):
        logp = fg.log_softmax(nn.gpt(p, tokens, config), axis=-1)
        picked = fg.sum(logp * fg.one_hot(targets, config.vocab), axis=-1)
        return -fg.sum(picked * mask) / float(tokens.shape[0] * n)

    def predict(p, tokens):
        return fg.argmax(nn.gpt(p, tokens, config)[:, n:], axis=-1)

    rng = np.random.default_rng(args.seed)
    params = nn.init_gpt(rng, config)
    spec = fg.spec((args.batch, 2 * n), "i32")
    began = time.perf_counter()
    schedule = fg.optim.warmup_cosine(args.lr, args.steps // 10, args.steps, end=args.lr / 20)
    step = fg.compile(fg.adam_step(fg.trace(loss_fn, params, spec, spec), lr=schedule), donate_argnums=(0, 1))
    print(f"model: {config}; {len(step.kernels)} kernels, compiled in {time.perf_counter() - began:.1f}s "
          f"on {fg.default_device().name}")

    opt_state = fg.adam_init(params)
    progress = Progress(args.steps, args.batch * 2 * n)
    for k in range(1, args.steps + 1):
        params, opt_state, loss = step(params, opt_state, *make_batch(rng, args.batch, n))
        if k % 25 == 0 or k == args.steps:
            progress.update(k, float(loss))
    progress.close()

    held_out = np.random.default_rng(10_000 + args.seed)
    guess = fg.jit(predict)
    right_digits = right_sequences = total = 0
    for _ in range(8):
        tokens, targets = make_batch(held_out, args.batch, n)
        hits = np.asarray(guess(params, tokens)) == targets[:, n:]
        right_digits += hits.sum()
        right_sequences += hits.all(axis=1).sum()
        total += len(tokens)
    result = {"digit_accuracy": right_digits / (total * n), "sequence_accuracy": right_sequences / total}
    print(f"held-out accuracy: {result['sequence_accuracy']:.1%} of {total} sequences sorted entirely right, "
          f"{result['digit_accuracy']:.1%} of digits; {time.perf_counter() - began:.0f}s")
    tokens, _ = make_batch(held_out, 1, n)
    print(f"example: {tokens[0, :n].tolist()} -> {np.asarray(guess(params, np.repeat(tokens, args.batch, 0)))[0].tolist()}")
    return result


if __name__ == "__main__":
    main()
