"""Per-kernel GPU times of a compiled function, from timestamp queries.

`fg.profile(exe, *args)` runs the executable once more with each kernel in a
compute pass of its own, bracketed by GPU timestamps, and returns a table:
kernel name, time, share of the step, and GFLOP/s (matmuls) or GB/s (the
bytes a kernel reads and writes). Adapters without timestamp queries are
timed from the host, one submit and wait per kernel, and the table says so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad.errors import InputError, TraceError
from fgrad.pytree import flatten, unflatten
from fgrad.runtime import Array, Executable
from fgrad.trace import user_site


@dataclass(frozen=True)
class KernelTime:
    name: str
    seconds: float
    share: float
    flops: int
    bytes: int

    @property
    def rate(self) -> str:
        if self.flops:
            return f"{self.flops / self.seconds / 1e9:9.1f} GFLOP/s" if self.seconds else "-"
        return f"{self.bytes / self.seconds / 1e9:9.1f} GB/s   " if self.seconds else "-"


@dataclass(frozen=True)
class Profile:
    kernels: tuple[KernelTime, ...]
    source: str  # "timestamps" or "host timing"

    @property
    def total(self) -> float:
        return sum(k.seconds for k in self.kernels)

    def __str__(self) -> str:
        lines = [f"{len(self.kernels)} kernels, {self.total * 1e3:.3f} ms ({self.source})",
                 f"{'kernel':<40} {'time':>10} {'share':>7}  rate"]
        for k in sorted(self.kernels, key=lambda k: -k.seconds):
            lines.append(f"{k.name[:40]:<40} {k.seconds * 1e6:8.1f}us {k.share:6.1%}  {k.rate}")
        return "\n".join(lines)


def profile(exe: Executable, *args: Any, repeat: int = 3) -> Profile:
    """Time each kernel of `exe` on `args` (the median of `repeat` runs). Donated arguments
    are not used up: the runs work on copies of them."""
    site = user_site()
    if not isinstance(exe, Executable):
        raise TraceError(f"profile: expected an Executable (fg.compile(graph)), got a {type(exe).__name__}", site)
    if not isinstance(repeat, int) or repeat < 1:
        raise InputError(f"profile: repeat must be a positive int, got {repeat!r}", site)
    leaves, tree = flatten(tuple(args))
    donated = set(exe.program.donated)
    leaves = [x.copy() if k in donated and isinstance(x, Array) else x for k, x in enumerate(leaves)]
    buffers, _ = exe.bind(tuple(unflatten(tree, leaves)), site)
    exe.device.flush()  # the copies above, and any other work recorded: the timed runs submit their own
    timestamps = "timestamp-query" in exe.device.device.features
    timed = _timed_on_gpu if timestamps else _timed_on_host
    seconds = np.median(np.array([timed(exe, buffers) for _ in range(repeat)]), axis=0)
    total = float(seconds.sum()) or math.inf
    rows = []
    for n, (k, t) in enumerate(zip(exe.program.kernels, seconds)):
        flops, nbytes = exe.program.work(n, exe.values)
        rows.append(KernelTime(k.name, float(t), float(t) / total, flops, nbytes))
    return Profile(tuple(rows), "timestamps" if timestamps else "host timing")


def _timed_on_gpu(exe: Executable, buffers: dict[int, Any]) -> list[float]:
    """Each kernel's time from the timestamps around its compute pass, all in one submit."""
    import wgpu  # imported already: the device is open

    dev = exe.device.device
    n = len(exe.program.kernels)
    queries = dev.create_query_set(type=wgpu.QueryType.timestamp, count=2 * n)
    resolved = dev.create_buffer(size=16 * n, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
    encoder = dev.create_command_encoder()
    exe.encode(encoder, buffers, timestamps=queries)
    encoder.resolve_query_set(queries, 0, 2 * n, resolved, 0)
    dev.queue.submit([encoder.finish()])
    stamps = np.frombuffer(exe.device.read(resolved, 16 * n), np.uint64).astype(np.int64)
    return list((stamps[1::2] - stamps[0::2]) * 1e-9)


def _timed_on_host(exe: Executable, buffers: dict[int, Any]) -> list[float]:
    """Each kernel's time from the host: a submit of it alone, and a wait until the device is done."""
    dev = exe.device.device
    out = []
    for k in range(len(exe.program.kernels)):
        start = time.perf_counter()
        encoder = dev.create_command_encoder()
        exe.encode(encoder, buffers, k, k + 1)
        dev.queue.submit([encoder.finish()])
        exe.device.wait()
        out.append(time.perf_counter() - start)
    return out
