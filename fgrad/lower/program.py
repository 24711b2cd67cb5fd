"""What lowering produces: a Program of WGSL kernels over a plan of buffers.

Plain frozen data, independent of wgpu: the runtime turns a Program into
pipelines, buffers and bind groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad.ir import DType, Graph, Spec


@dataclass(frozen=True, slots=True)
class Limits:
    """What shapes a Program on an adapter: its limits (WebGPU's names, in snake case),
    and how many workgroups it should have at once (a GPU: a couple per multiprocessor, measured
    best on an H200; a CPU: one per core),
    which sizes the matmul tiles."""

    max_storage_buffers_per_shader_stage: int = 8
    max_storage_buffer_binding_size: int = 1 << 27
    max_compute_workgroups_per_dimension: int = 65535
    parallel_workgroups: int = 192

    @staticmethod
    def of(adapter_limits: dict[str, int], parallel_workgroups: int = 192) -> Limits:
        """From a wgpu limits dict (`max-storage-buffers-per-shader-stage`, ...)."""
        names = [f for f in Limits.__dataclass_fields__ if f != "parallel_workgroups"]
        return Limits(**{f: int(adapter_limits[f.replace("_", "-")]) for f in names},
                      parallel_workgroups=parallel_workgroups)


@dataclass(frozen=True, slots=True)
class Buffer:
    """One device buffer of the plan.

    kind: `input` (bound from the call's argument `index`), `output` (made per
    call for result `index`), `constant` (uploaded once: `data`), or
    `scratch` (an intermediate slot shared by values whose lifetimes do not
    overlap). Elements are 4 bytes; bools are stored as u32.
    """

    kind: str
    size: int  # bytes
    index: int = 0
    data: bytes = b""


def buffer_bytes(value: Any, dtype: DType) -> bytes:
    """The bytes of `value` as a buffer of `dtype` holds them: 4 per element, bools as u32 0 or 1."""
    return np.asarray(value).astype(np.uint32 if dtype is DType.bool else dtype.np).tobytes()


@dataclass(frozen=True, slots=True)
class Kernel:
    """One compute shader: reads `reads` (bindings 0..n-1), writes `writes` (the bindings after)."""

    name: str
    wgsl: str
    reads: tuple[int, ...]
    writes: tuple[int, ...]
    grid: tuple[int, int, int]  # workgroups in x, y and z
    nodes: tuple[int, ...]  # the graph nodes this kernel computes
    roots: tuple[int, ...]  # the ones it stores, one per write
    sites: tuple[str, ...]  # their users' file:line, in node order, without repeats


@dataclass(frozen=True, slots=True)
class Program:
    """A graph lowered to kernels run in order over planned buffers."""

    graph: Graph
    kernels: tuple[Kernel, ...]
    buffers: tuple[Buffer, ...]
    inputs: tuple[int, ...]  # buffer of each graph input
    outputs: tuple[int, ...]  # buffer of each graph output, all different (see copies)
    specs: tuple[Spec, ...]  # the value spec each buffer was planned for (scratch: the first value)
    donated: tuple[int, ...] = ()  # graph inputs whose buffers outputs may have taken over
    # (source, destination) buffers copied after the last kernel: an output that repeats
    # another, or is a constant or an input that is not donated, gets a buffer of its own.
    copies: tuple[tuple[int, int], ...] = ()

    @property
    def peak_bytes(self) -> int:
        """Device memory the plan allocates: scratch slots, constants and outputs (inputs are the caller's)."""
        return sum(b.size for b in self.buffers if b.kind != "input")

    @property
    def intermediate_bytes(self) -> int:
        """What the intermediates would take with a buffer each (no reuse): for comparison with the plan."""
        return sum(self.graph.nodes[r].spec.nbytes for k in self.kernels for r, b in zip(k.roots, k.writes)
                   if self.buffers[b].kind == "scratch")
