"""The tiled matmul kernel: register tiles, shared-memory staging, a fused epilogue.

A workgroup of 16x16 invocations computes a (16 t)x(16 t) tile of the
output, each invocation a t x t block held in named vector accumulators
(`acc_i_j`, no arrays: naga bounds-checks indexed local arrays). Each step
of 8 along k stages A and B tiles in workgroup memory; the unrolled inner
loop reads t scalars of A and t/4 vec4s of B per k. Operands are read
through the writer, so transposes, broadcast batch dims and reshapes of a
buffer are read in place (with loads ordered along whichever axis is
contiguous); the kernel's root may be an elementwise epilogue of the matmul
(bias, activation, residual), applied before the one store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fgrad.ir import DType, Graph
from fgrad.lower.wgsl import KernelWriter, module, store
from fgrad.ops import OPS

THREADS = 16  # a workgroup is THREADS x THREADS invocations
BK = 8  # the k extent of a staged tile


def inner_is_last(graph: Graph, i: int, sources: dict[int, str]) -> bool:
    """Whether consecutive values along node i's last axis are (probably) adjacent in memory."""
    node = graph.nodes[i]
    if i in sources or OPS[node.op].fusion != "view" or not node.inputs:
        return True
    x = graph.nodes[node.inputs[0]].spec
    if node.op == "transpose":
        perm = node.attrs["perm"]
        if perm[-1] == x.ndim - 1:
            return inner_is_last(graph, node.inputs[0], sources)
        return x.ndim >= 2 and perm[-2:] == (x.ndim - 1, x.ndim - 2) and not inner_is_last(graph, node.inputs[0], sources)
    if node.op in ("reshape", "broadcast_to", "slice"):
        keeps = x.ndim > 0 and node.spec.ndim > 0 and x.shape[-1] % node.spec.shape[-1] == 0 and x.shape[-1] != 1
        return inner_is_last(graph, node.inputs[0], sources) if keeps else True
    return True


def tile(m: int, n: int, batch: int) -> int:
    """Outputs per invocation along each axis: the biggest tile that still gives the GPU
    enough workgroups (about a hundred) to keep busy."""
    for t in (8, 4):
        if math.ceil(m / (THREADS * t)) * math.ceil(n / (THREADS * t)) * batch >= 96:
            return t
    return 2


def matmul_kernel(name: str, graph: Graph, root: int, core: int, reads: Sequence[int],
                  sources: dict[int, str]) -> tuple[str, tuple[int, int, int]]:
    node, mm = graph.nodes[root], graph.nodes[core]
    a, b = mm.inputs
    sa, sb, out = graph.nodes[a].spec.shape, graph.nodes[b].spec.shape, mm.spec.shape
    M, N, K = out[-2], out[-1], sa[-1]
    t = tile(M, N, math.prod(out[:-2]))
    v = min(t, 4)  # vector width of B loads and accumulators
    vec = f"vec{v}<f32>"
    bm = bn = THREADS * t
    batch = out[:-2]
    grid = (math.ceil(N / bn), math.ceil(M / bm), math.prod(batch))
    w = KernelWriter(graph, sources)
    prelude = ["let lid = i32(local.x);", f"let tx = lid % {THREADS}i;", f"let ty = lid / {THREADS}i;",
               f"let m0 = i32(group.y) * {bm}i;", f"let n0 = i32(group.x) * {bn}i;"]
    bc = w.unravel("i32(group.z)", batch) if batch else []
    ba = [c if d != 1 else "0i" for c, d in zip(bc, sa[:-2])]
    bb = [c if d != 1 else "0i" for c, d in zip(bc, sb[:-2])]
    accs = [[f"acc_{i}_{j}" for j in range(t // v)] for i in range(t)]
    for row in accs:
        for acc in row:
            w.line(f"var {acc} = {vec}();")

    with w.loop(K, step=BK) as k0:
        threads = THREADS * THREADS
        k_fast = inner_is_last(graph, a, sources)
        for q in range(bm * BK // threads):  # stage A[m0 : m0 + bm, k0 : k0 + BK] as As[k][m]
            e = f"(lid + {q * threads}i)"
            ml, kl = (f"{e} / {BK}i", f"{e} % {BK}i") if k_fast else (f"{e} % {bm}i", f"{e} / {bm}i")
            ml, kl = w.let(ml), w.let(kl)
            m, k = w.let(f"m0 + {ml}"), w.let(f"{k0} + {kl}")
            value = w.value(a, [*ba, w.let(f"min({m}, {M - 1}i)"), w.let(f"min({k}, {K - 1}i)")])
            w.line(f"As[{kl} * {bm}i + {ml}] = select(0.0f, {value}, {m} < {M}i && {k} < {K}i);")
        n_fast = inner_is_last(graph, b, sources)
        for q in range(bn * BK // threads):  # stage B[k0 : k0 + BK, n0 : n0 + bn] as Bs[k][n]
            e = f"(lid + {q * threads}i)"
            kl, nl = (f"{e} / {bn}i", f"{e} % {bn}i") if n_fast else (f"{e} % {BK}i", f"{e} / {BK}i")
            kl, nl = w.let(kl), w.let(nl)
            k, n = w.let(f"{k0} + {kl}"), w.let(f"n0 + {nl}")
            value = w.value(b, [*bb, w.let(f"min({k}, {K - 1}i)"), w.let(f"min({n}, {N - 1}i)")])
            w.line(f"Bs[{kl} * {bn // v}i + {nl} / {v}i][{nl} % {v}i] = select(0.0f, {value}, {k} < {K}i && {n} < {N}i);")
        w.line("workgroupBarrier();")
        for kk in range(BK):
            avals = [w.let(f"As[{kk * bm}i + ty * {t}i + {i}i]") for i in range(t)]
            bvals = [w.let(f"Bs[{kk * bn // v}i + tx * {t // v}i + {j}i]") for j in range(t // v)]
            for i, av in enumerate(avals):
                for j, bv in enumerate(bvals):
                    w.line(f"{accs[i][j]} = fma({vec}({av}), {bv}, {accs[i][j]});")
        w.line("workgroupBarrier();")

    for i in range(t):
        m = w.let(f"m0 + ty * {t}i + {i}i")
        for j in range(t // v):
            for c in range(v):
                n = w.let(f"n0 + tx * {t}i + {j * v + c}i")
                w.line(f"if ({m} < {M}i && {n} < {N}i) {{")
                w.depth += 1
                w.scopes.append({})
                coords = [*bc, m, n]
                w.scopes[-1][(core, tuple(coords))] = f"{accs[i][j]}[{c}]"
                w.line(store(node, w.ravel(coords, node.spec.shape), w.value(root, coords)))
                w.scopes.pop()
                w.depth -= 1
                w.line("}")
    shared = [f"var<workgroup> As: array<f32, {bm * BK}>;", f"var<workgroup> Bs: array<{vec}, {bn * BK // v}>;"]
    return module(name, graph, root, reads, THREADS * THREADS, prelude, w, [], shared), grid


def tiles(graph: Graph, i: int) -> bool:
    """Whether node i is a matmul this kernel can build around (f32)."""
    node = graph.nodes[i]
    return node.op == "matmul" and node.spec.dtype is DType.f32
