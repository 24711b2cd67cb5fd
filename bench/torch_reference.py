"""PyTorch's figures that bench/RESULTS.md sets beside fgrad's, measured on the same card:
cuBLAS f32 matmul (TF32 off) at 4096^3, and peak allocated memory of one gpt training step.
Steps per second come from the project's peer script (its path is the argument).

python bench/torch_reference.py ../shared/peers/torch_peer.py
"""

from __future__ import annotations

import importlib.util
import sys
import time

import torch


def main() -> None:
    spec = importlib.util.spec_from_file_location("torch_peer", sys.argv[1])
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    g = peer.SIZES["full"]["gpt"]
    params = peer.gpt_params(g["V"], g["T"], g["D"], g["H"], g["L"], "cuda")
    opt = torch.optim.Adam(list(params.values()), lr=3e-4)
    tok = torch.randint(0, g["V"], (g["B"], g["T"]), device="cuda")
    tgt = torch.randint(0, g["V"], (g["B"], g["T"]), device="cuda")

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        peer.gpt_loss(params, tok, tgt, g["H"], g["L"]).backward()
        opt.step()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    step()
    torch.cuda.synchronize()
    print(f"gpt training step peak allocated: {torch.cuda.max_memory_allocated()} bytes")

    torch.backends.cuda.matmul.allow_tf32 = False
    a, b = torch.randn(4096, 4096, device="cuda"), torch.randn(4096, 4096, device="cuda")
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(10):
        a @ b
    torch.cuda.synchronize()
    print(f"cublas f32 matmul 4096: {2 * 4096**3 / ((time.perf_counter() - start) / 10) / 1e12:.1f} TFLOP/s")


if __name__ == "__main__":
    main()
