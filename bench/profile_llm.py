"""Print fg.profile's per-kernel table for one decode step (T = 1) or a prefill of the llm workload.

python bench/profile_llm.py --size full --dtype f32 [--prefill]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import fgrad as fg
from fgrad.models import llama
from test_inference import LLM


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(LLM), default="small")
    ap.add_argument("--dtype", choices=["f32", "f16"], default="f32")
    ap.add_argument("--prefill", action="store_true", help="profile a prefill of the prompt instead")
    ap.add_argument("--top", type=int, default=25, help="rows to print")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message="fgrad: no GPU adapter found")
    w = LLM[args.size]
    config = w["config"]
    params = fg.device_put(llama.init(np.random.default_rng(0), config, args.dtype))
    cache = llama.init_cache(config, 1, w["prompt"] + w["new"], args.dtype)
    t = w["prompt"] if args.prefill else 1
    tokens = np.zeros((1, t), np.int32)
    positions = np.arange(t, dtype=np.int32)[None] + (0 if args.prefill else w["prompt"])
    graph = fg.trace(lambda p, tok, c, pos: llama.forward(p, tok, c, pos, config), params, tokens, cache, positions)
    exe = fg.compile(graph, donate_argnums=(2,))
    for _ in range(10):  # GPU clocks rise
        exe(params, tokens, fg.device_put(cache), positions)
    profile = fg.profile(exe, params, tokens, fg.device_put(cache), positions)
    print("\n".join(str(profile).splitlines()[: args.top + 2]))
    by_name: dict[str, list[float]] = {}
    for k in profile.kernels:
        entry = by_name.setdefault(k.name, [0.0, 0])
        entry[0] += k.seconds
        entry[1] += 1
    print("by kernel name (time, count):")
    for name, (s, n) in sorted(by_name.items(), key=lambda x: -x[1][0])[: args.top]:
        print(f"  {name:<40} {s * 1e3:8.3f} ms {n:4d}")


if __name__ == "__main__":
    main()
