"""PyTorch's figures that bench/RESULTS.md sets beside fgrad's, measured on the same card:
cuBLAS f32 matmul (TF32 off) at 4096^3, peak allocated memory of one gpt training step, and
the kernels of bench/test_kernels.py that have a counterpart: a cuDNN 3x3 convolution (TF32 off)
and a row argsort.
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

    torch.backends.cudnn.allow_tf32 = False
    x = torch.randn(32, 64, 56, 56, device="cuda").to(memory_format=torch.channels_last)
    w = torch.randn(64, 64, 3, 3, device="cuda").to(memory_format=torch.channels_last)
    conv = lambda: torch.nn.functional.conv2d(x, w, padding=1)  # noqa: E731
    print(f"cudnn f32 conv2d 32x56x56x64->64 3x3: {2 * 32 * 56 * 56 * 64 * 9 * 64 / _seconds(conv) / 1e12:.2f} TFLOP/s")
    rows = torch.randn(4096, 1024, device="cuda")
    sort = lambda: torch.argsort(rows, dim=-1, stable=True)  # noqa: E731
    print(f"argsort 4096x1024 rows: {rows.numel() / _seconds(sort) / 1e6:.0f} Mkeys/s")


def _seconds(fn) -> float:
    """Seconds per call, over 10 calls after 3 to warm up."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / 10


if __name__ == "__main__":
    main()
