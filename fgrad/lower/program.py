"""What lowering produces: a Program of WGSL kernels over a plan of buffers.

Plain frozen data, independent of wgpu: the runtime turns a Program into
pipelines, buffers and bind groups.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fgrad.ir import Dim, DType, Graph, Spec
from fgrad.lower.kinds import Contraction, kind_of


@dataclass(frozen=True, slots=True)
class Limits:
    """What shapes a Program on an adapter: its limits (WebGPU's names, in snake case),
    and how many workgroups it should have at once (a GPU: a couple per multiprocessor, measured
    best on an H200; a CPU: one per core),
    which sizes the matmul tiles; and whether the adapter is a CPU (llvmpipe, lavapipe,
    SwiftShader), whose kernels are shaped for a CPU's cores and vector units; and whether it has
    subgroup operations (wgpu's `subgroup` feature), with which a workgroup's invocations combine
    their shares of a reduction."""

    max_storage_buffers_per_shader_stage: int = 8
    max_storage_buffer_binding_size: int = 1 << 27
    max_compute_workgroups_per_dimension: int = 65535
    max_texture_dimension_2d: int = 8192
    parallel_workgroups: int = 192
    cpu: bool = False
    subgroups: bool = False

    @staticmethod
    def of(adapter_limits: dict[str, int], parallel_workgroups: int = 192, cpu: bool = False,
           subgroups: bool = False) -> Limits:
        """From a wgpu limits dict (`max-storage-buffers-per-shader-stage`, ...)."""
        names = [f for f in Limits.__dataclass_fields__ if f not in ("parallel_workgroups", "cpu", "subgroups")]
        return Limits(**{f: int(adapter_limits[f.replace("_", "-")]) for f in names},
                      parallel_workgroups=parallel_workgroups, cpu=cpu, subgroups=subgroups)


WORD = 4  # WebGPU writes, copies and maps buffers in whole 4-byte words


def words(nbytes: int) -> int:
    """`nbytes` rounded up to whole words, at least one: the size of a buffer holding them (an
    empty value's buffer too, which no kernel reads or writes: a binding is never empty)."""
    return max(-(-nbytes // WORD), 1) * WORD


@dataclass(frozen=True, slots=True)
class Buffer:
    """One device buffer of the plan.

    kind: `input` (bound from the call's argument `index`), `output` (made per
    call for result `index`), `constant` (uploaded once: `data`), or
    `scratch` (an intermediate slot shared by values whose lifetimes do not
    overlap). Elements take their dtype's item size (bools are stored as u32);
    the size is rounded up to whole words (an odd number of f16 values leaves
    two bytes over).
    """

    kind: str
    size: int  # bytes; with symbols, at their maxima (a value of actual shape is a prefix)
    index: int = 0
    data: bytes = b""

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", words(self.size))


def buffer_bytes(value: Any, dtype: DType) -> bytes:
    """The bytes of `value` as a buffer of `dtype` holds them (bools as u32 0 or 1, an i8 as an i32,
    a bfloat16 as an f32), padded with zeros to whole words (one for an empty value)."""
    data = dtype.row.stored_values(value).tobytes()
    return data + bytes(words(len(data)) - len(data))


@dataclass(frozen=True, slots=True)
class Extent:
    """A count that follows symbolic dimensions: `factor` times the values of the named symbols,
    divided by `per` and rounded up (workgroups of `per` invocations over that many elements)."""

    factor: int
    symbols: tuple[str, ...] = ()
    per: int = 1

    @staticmethod
    def of(shape: Sequence[int | Dim], per: int = 1) -> Extent:
        """The elements of `shape` (symbols sorted by name: equal counts compare equal), `per` at a time."""
        return Extent(math.prod(d for d in shape if not isinstance(d, Dim)),
                      tuple(sorted(d.name for d in shape if isinstance(d, Dim))), per)

    def at(self, values: Mapping[str, int]) -> int:
        """The count when each symbol has its value in `values`."""
        return -(-math.prod((self.factor, *(values[s] for s in self.symbols))) // self.per)


@dataclass(frozen=True, slots=True)
class HostCall:
    """A call of Python on the host in a kernel's place (Kind `Host`: a callback): the runtime
    reads the kernel's `reads` back as values of `operands`, calls primitive `op` with `params`
    on them (its NumPy implementation, which calls the user's function), and writes its results
    `results` (positions among those it returns) into the kernel's `writes`."""

    op: str
    params: tuple[tuple[str, Any], ...]
    operands: tuple[Spec, ...]
    results: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Kernel:
    """One compute shader: reads `reads` (bindings 0..n-1), writes `writes` (the bindings after),
    and, where `sized`, reads the symbols' values from the program's uniform buffer (the binding
    after those)."""

    name: str
    wgsl: str
    reads: tuple[int, ...]
    writes: tuple[int, ...]
    grid: tuple[int, int, int]  # workgroups in x, y and z; with symbols, at their maxima
    nodes: tuple[int, ...]  # the graph nodes this kernel computes
    roots: tuple[int, ...]  # the ones it stores, one per write
    sites: tuple[str, ...]  # their users' file:line, in node order, without repeats
    # A grid that follows the symbols: one Extent (workgroups along x, wrapping into y past grid[0],
    # which the WGSL's index arithmetic assumes), or three (x, y and z); none: the grid is fixed.
    groups: tuple[Extent, ...] = ()
    sized: bool = False
    # Buffers read from read-only storage textures (a CPU adapter's loads: see matmul_cpu.py), (binding,
    # source, width, height, values a texel: 4, rgba32float, or 1, r32float) each, by binding: the runtime
    # copies buffer `source` of the kernel's (*reads, *writes), rows of `width` texels, into a texture
    # before the kernel runs, bound at `binding`: in place of that read (binding = source), or, for an
    # output read in place, past the outputs (and before the symbols' values).
    textures: tuple[tuple[int, int, int, int, int], ...] = ()
    host: HostCall | None = None  # a call on the host in this kernel's place: no WGSL, no dispatch

    def grid_at(self, values: Mapping[str, int]) -> tuple[int, int, int]:
        """The workgroups to dispatch when the symbols have the values `values`."""
        if not self.groups:
            return self.grid
        if len(self.groups) == 1:
            n = self.groups[0].at(values)
            x = min(n, self.grid[0])
            return x, -(-n // x), 1
        x, y, z = (e.at(values) for e in self.groups)
        return x, y, z


@dataclass(frozen=True, slots=True)
class Repeat:
    """A while loop of a program: kernels `test`..`body` compute its predicate into the bool
    buffer `flag`; while the host reads it true, kernels `body`..`end` run and the test again.
    Loops nest: an inner loop's kernels lie inside its outer loop's test or body."""

    test: int
    body: int
    end: int
    flag: int

    def moved(self, offset: int, buffers: Mapping[int, int] | None = None) -> Repeat:
        """This loop with its kernels `offset` later and its flag the buffer `buffers` maps it to."""
        flag = self.flag if buffers is None else buffers[self.flag]
        return Repeat(self.test + offset, self.body + offset, self.end + offset, flag)


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
    repeats: tuple[Repeat, ...] = ()  # while loops, outer before inner, in kernel order

    @property
    def symbols(self) -> tuple[Dim, ...]:
        """The graph's symbolic dimensions, in the order of the i32s in the uniform buffer of their values."""
        return self.graph.symbols

    def work(self, k: int, values: Mapping[str, int]) -> tuple[int, int]:
        """(FLOPs of the matrix products in kernel k, bytes it reads and writes) when the symbols
        have `values`."""
        kernel, graph = self.kernels[k], self.graph
        flops = 0
        for i in kernel.nodes:
            node = graph.nodes[i]
            kind = kind_of(node)
            if isinstance(kind, Contraction) and kind.tiled:  # a multiply and an add per value folded
                inputs = (graph.nodes[j].spec.resolve(values) for j in node.inputs)
                flops += 2 * node.spec.resolve(values).size * kind.folds(node, *inputs)
        nbytes = sum(self.specs[b].resolve(values).nbytes for b in (*kernel.reads, *kernel.writes))
        return flops, nbytes

    @property
    def peak_bytes(self) -> int:
        """Device memory the plan allocates: scratch slots, constants and outputs (inputs are the caller's)."""
        return sum(b.size for b in self.buffers if b.kind != "input")

    @property
    def intermediate_bytes(self) -> int:
        """What the intermediates would take with a buffer each (no reuse): for comparison with the plan."""
        return sum(self.graph.nodes[r].spec.max_nbytes for k in self.kernels for r, b in zip(k.roots, k.writes)
                   if self.buffers[b].kind == "scratch")
