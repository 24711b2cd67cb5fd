"""The benchmark workloads (mlp, gpt) as fgrad training steps, and how they are timed."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

import fgrad as fg
from fgrad import nn, runtime

MLP = {"small": (64, 784, 256, 10), "full": (256, 784, 1024, 10)}  # batch, in, hidden, classes
GPT = {"small": dict(B=8, T=32, V=65, D=64, H=2, L=2), "full": dict(B=32, T=128, V=65, D=256, H=4, L=4)}


@dataclass
class Workload:
    """A compiled, donated training step and its data; `run(n, read_each)` takes n steps."""

    step: fg.Executable
    params: Any
    state: Any
    data: tuple[Any, ...]
    tokens_per_step: int

    def run(self, steps: int, read_each: bool) -> float:
        """Take `steps` steps; read the loss every step or once at the end. Returns the last loss."""
        loss = None
        for _ in range(steps):
            self.params, self.state, loss = self.step(self.params, self.state, *self.data)
            if read_each:
                float(loss)
        return float(loss)  # the end's sync: the last step's loss is read


def mlp(size: str) -> Workload:
    batch, d_in, hidden, classes = MLP[size]
    rng = np.random.default_rng(0)
    params = nn.init_mlp(rng, [d_in, hidden, hidden, classes])
    x = rng.standard_normal((batch, d_in)).astype(np.float32)
    y = rng.integers(0, classes, batch).astype(np.int32)

    def loss(p, xb, yb):
        return nn.cross_entropy(nn.mlp(p, xb), yb)

    step = fg.compile(fg.adam_step(fg.trace(loss, params, x, y), lr=1e-3), donate_argnums=(0, 1))
    return Workload(step, params, fg.adam_init(params), fg.device_put((x, y)), batch)  # data on the device, as PyTorch's


def gpt(size: str) -> Workload:
    c = GPT[size]
    config = nn.GPTConfig(vocab=c["V"], context=c["T"], width=c["D"], heads=c["H"], layers=c["L"])
    rng = np.random.default_rng(0)
    params = nn.init_gpt(rng, config)
    tokens = rng.integers(0, c["V"], (c["B"], c["T"])).astype(np.int32)
    targets = rng.integers(0, c["V"], (c["B"], c["T"])).astype(np.int32)

    def loss(p, tok, tgt):
        return nn.cross_entropy(nn.gpt(p, tok, config), tgt)

    step = fg.compile(fg.adam_step(fg.trace(loss, params, tokens, targets), lr=3e-4), donate_argnums=(0, 1))
    return Workload(step, params, fg.adam_init(params), fg.device_put((tokens, targets)), c["B"] * c["T"])


# Seconds of work before a timing: a GPU left idle for a second or two (as it is while a benchmark
# makes its data and compiles) runs its first 0.1-0.3 s of work at low clocks. On an H200, a layer
# norm's backward pass at 4096x4096 took 490 us a call there, 140 us after.
SPIN_UP = 0.5


def spin_up(fn: Any, *args: Any, seconds: float = SPIN_UP) -> None:
    """Call `fn(*args)` (which waits for the device) until `seconds` have passed."""
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn(*args)


def measure(benchmark: Any, fn: Any, *args: Any, rounds: int) -> tuple[Any, float]:
    """Run `fn(*args)` under pytest-benchmark, after SPIN_UP seconds of it (none for a smoke run's
    single round); return its result and the median seconds per round (timed here too, so that
    figures exist under --benchmark-disable)."""
    if rounds > 1:
        spin_up(fn, *args)
    times: list[float] = []

    def timed() -> Any:
        start = time.perf_counter()
        out = fn(*args)
        times.append(time.perf_counter() - start)
        return out

    result = benchmark.pedantic(timed, rounds=rounds, iterations=1)
    return result, float(np.median(times))


def host_us_per_dispatch(work: Workload, repeat: int = 20, rounds: int = 5) -> float:
    """Host time to record one step's dispatches into a command buffer (bind groups reused, as a
    step's call finds them), per dispatch, in µs: the median of `rounds` rounds of `repeat`
    recordings (one round moves by 2x with the host's clocks)."""
    step = work.step
    buffers, _ = step.bind((work.params, work.state, *work.data))
    device = step.device.device

    def record() -> None:  # as Device records a call's dispatches and finishes them, not submitted
        encoder = runtime._encoder(device)
        compute = runtime._begin_pass(encoder)
        runtime._dispatch(compute, step.work(buffers, 0, len(step.program.kernels)))
        runtime._end_pass(compute)
        runtime._let_go(runtime._finish(encoder))

    record()  # builds any missing bind group
    seconds = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            record()
        seconds.append((time.perf_counter() - start) / repeat)
    return float(np.median(seconds)) / len(step.program.kernels) * 1e6


def figures(work: Workload, seconds_per_round: float, steps: int) -> dict[str, Any]:
    """The derived figures a training benchmark reports in extra_info."""
    program = work.step.program
    steps_per_second = steps / seconds_per_round if seconds_per_round else math.nan
    return {
        "steps_per_s": round(steps_per_second, 2),
        "tokens_per_s": round(steps_per_second * work.tokens_per_step),
        "kernels_per_step": len(program.kernels),
        "dispatches_per_step": len(program.kernels),
        "peak_bytes": program.peak_bytes,
        "host_us_per_dispatch": round(host_us_per_dispatch(work), 2),
        "adapter": work.step.device.name,
    }
