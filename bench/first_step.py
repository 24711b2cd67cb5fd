"""Time to first step of the gpt workload in this (fresh) process, by phase; prints one JSON line.

python bench/first_step.py --size full      # run it twice: the second run finds the program cache warm
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

start = time.perf_counter()

import numpy as np  # noqa: E402

import fgrad as fg  # noqa: E402
from fgrad import nn  # noqa: E402
from fgrad.lower import disk_cache, lower  # noqa: E402
from fgrad.lower.program import Program  # noqa: E402
from fgrad.runtime import Executable  # noqa: E402

GPT = {"small": dict(B=8, T=32, V=65, D=64, H=2, L=2), "full": dict(B=32, T=128, V=65, D=256, H=4, L=4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=["small", "full"], default="small")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="fgrad: no GPU adapter found")
    c = GPT[args.size]
    config = nn.GPTConfig(vocab=c["V"], context=c["T"], width=c["D"], heads=c["H"], layers=c["L"])
    rng = np.random.default_rng(0)
    params = nn.init_gpt(rng, config)
    tokens = rng.integers(0, c["V"], (c["B"], c["T"])).astype(np.int32)
    times = {"import": time.perf_counter() - start}

    def phase(name: str, fn):
        t = time.perf_counter()
        out = fn()
        times[name] = time.perf_counter() - t
        return out

    device = phase("device", fg.default_device)
    loss = phase("trace", lambda: fg.trace(lambda p, t, y: nn.cross_entropy(nn.gpt(p, t, config), y),
                                            params, tokens, tokens))
    step = phase("adam_step", lambda: fg.adam_step(loss, lr=3e-4))  # its gradient, the update
    donated = frozenset(range(len(step.inputs) - 2))

    def program() -> tuple[Program, bool]:  # as fg.compile finds it: from the program cache, else lowered and stored
        name = disk_cache.key(step, device.limits, donated, device.name)
        cached = disk_cache.load(name, step)
        if cached is None:
            cached = lower(step, device.limits, donated)
            disk_cache.store(name, cached)
            return cached, False
        return cached, True

    program, warm = phase("lower", program)
    exe = phase("pipelines", lambda: Executable(program, device, step))
    phase("first_step", lambda: float(exe(params, fg.adam_init(params), tokens, tokens)[2]))
    times["total"] = time.perf_counter() - start
    print(json.dumps({"size": args.size, "program_cache": "warm" if warm else "cold", "kernels": len(exe.kernels),
                      "adapter": device.name, **{k: round(v, 3) for k, v in times.items()}}))


if __name__ == "__main__":
    main()
