"""Lowering: Graph -> Program (kernels of WGSL text and a buffer plan). No wgpu here.

`lower(graph, limits)` simplifies the graph and rewrites what maps badly onto
kernels (rewrites.py: wide concatenates, long reductions, thin long matmuls),
decides which nodes get kernels (fusion.py), plans buffers by liveness
(buffers.py) and writes one WGSL module per kernel (wgsl.py, matmul.py; matmul_cpu.py on a CPU adapter).
"""

from __future__ import annotations

import dataclasses

from fgrad.errors import AxisNameError, CompileError
from fgrad.ir import RESULT, Graph, Node, bodies, call_params, symbols_of
from fgrad.lower.buffers import plan_buffers
from fgrad.lower.fusion import group_inlined, inlined, plan_kernels, row_root, skeleton
from fgrad.lower.loops import loop_kernels, while_kernels
from fgrad.lower.kinds import Host, Loop, Normalization, Window, folds, kind_of
from fgrad.lower.rewrites import rewrite
from fgrad.lower.program import Buffer, HostCall, Kernel, Limits, Program, Repeat
from fgrad.lower.matmul import matmul_kernel, tiles
from fgrad.lower.matmul_cpu import matmul_cpu_kernel
from fgrad.lower.wgsl import (
    LOOP_LIMIT, Written, columns_kernel, cooperative_kernel, elementwise_kernel, merge_kernel, output_name, row_kernel,
    scan_kernel, sort_kernel, window_kernel,
)
from fgrad.transforms.passes import simplify

__all__ = ["Buffer", "Kernel", "Limits", "Program", "lower"]


def _collective(graph: Graph) -> Node | None:
    """The first node of `graph` (or of a body it holds) that is a collective over a named axis."""
    for node in graph.nodes:
        if "axis_names" in node.attrs:
            return node
        found = next((n for body in bodies(node.params) if (n := _collective(body)) is not None), None)
        if found is not None:
            return found
    return None


def lower(graph: Graph, limits: Limits = Limits(), donated: frozenset[int] = frozenset()) -> Program:
    """Lower `graph` to a Program that respects the adapter `limits`.

    `donated` holds positions of graph inputs whose buffers outputs may take over.
    """
    unbound = _collective(graph)
    if unbound is not None:  # a graph traced with make_jaxpr(axis_env=...): no vmap computes it
        names = unbound.attrs["axis_names"]
        raise AxisNameError(f"{unbound.op}: unbound axis name {names[0]!r}: a collective is computed by the "
                            f"fg.vmap(..., axis_name={names[0]!r}) around it, so a graph holding one does not "
                            "compile on its own", unbound.site)
    # Captured intermediates are not outputs: a program computes them only if exposed as outputs.
    graph = dataclasses.replace(graph, captures=())
    graph = simplify(rewrite(graph, limits))
    groups, reads = plan_kernels(graph, limits)
    buffers, specs, where, in_place, outputs, copies = plan_buffers(graph, groups, reads, donated)
    for i, b in where.items():
        if buffers[b].size > limits.max_storage_buffer_binding_size:
            node = graph.nodes[i]
            what = " ".join([node.op] + ([node.attrs["name"]] if "name" in node.attrs else []))
            raise CompileError(
                f"lower: tensor {node.spec} ({what}, {node.spec.max_nbytes} bytes) is larger than the adapter's "
                f"maximum storage buffer binding size of {limits.max_storage_buffer_binding_size} bytes",
                node.site)
    kernels: list[Kernel] = []
    repeats: list[Repeat] = []
    roots = {r for g in groups for r in g}
    for group in groups:
        node = graph.nodes[group[0]]
        if node.spec.max_size == 0:  # an empty result (of a symbolic shape): nothing to compute, no kernel
            continue
        loop = kind_of(node)
        if isinstance(loop, Host):  # its place among the kernels, where the runtime calls it; no WGSL, a line saying so
            made = ", ".join(str(graph.nodes[r].spec) for r in group)
            read = " ".join(str(graph.nodes[j].spec) for j in node.inputs)
            text = f"// fgrad: {node.op} {call_params(node)['callback']!r} on the host {made}" + (f" <- {read}" if read else "")
            kernels.append(Kernel(node.op, text, tuple(where[j] for j in node.inputs), tuple(where[r] for r in group),
                                  (0, 0, 0), group, group, (node.site,) if node.site else (), host=HostCall(
                                      node.op, tuple(call_params(node).items()),
                                      tuple(graph.nodes[j].spec for j in node.inputs),
                                      tuple(graph.nodes[r].attrs.get(RESULT, 0) for r in group))))
            continue
        if isinstance(loop, Loop):
            found, inner = (loop_kernels if loop.counted else while_kernels)(graph, group, where, buffers, specs,
                                                                             limits)
            repeats += [r.moved(len(kernels)) for r in inner]
            kernels.extend(found)
            continue
        inside = group_inlined(graph, group, roots)
        name = _kernel_name(graph, inside)
        updated = {in_place[r]: k for k, r in enumerate(group) if r in in_place}  # donor -> output it becomes
        bound = [j for j in reads[group] if j not in updated]
        try:
            written = _write(name, graph, group, inside, bound, updated, limits)
        except TypeError as e:  # a WGSL rule doing arithmetic on a size it takes for an int
            symbols = symbols_of(graph.nodes[i].spec for i in inside)
            if not symbols:
                raise
            raise CompileError(f"lower: kernel {name} over {node.spec} does not support the symbol {symbols[0]} "
                               f"in its sizes ({e})", node.site) from None
        if max(written.grid) > limits.max_compute_workgroups_per_dimension:
            raise CompileError(f"lower: {node.op} output {node.spec} needs more workgroups than the adapter allows",
                               node.site)
        kernels.append(Kernel(
            name=name,
            wgsl=written.wgsl,
            reads=tuple(where[j] for j in bound),
            writes=tuple(where[r] for r in group),
            grid=written.grid,
            nodes=tuple(inside),
            roots=group,
            sites=tuple(dict.fromkeys(s for s in (graph.nodes[i].site for i in inside) if s)),
            groups=written.groups,
            sized=written.sized,
            textures=written.textures,
        ))
    return Program(graph, tuple(kernels), tuple(buffers), tuple(where[i] for i in graph.inputs), tuple(outputs),
                   tuple(specs), tuple(sorted(donated)), tuple(copies), tuple(repeats))


def _write(name: str, graph: Graph, group: tuple[int, ...], inside: list[int], reads: list[int],
           updated: dict[int, int], limits: Limits) -> Written:
    """The WGSL of the kernel computing `group` and its workgroup grid, in the skeleton that
    fits: the tiled matmul around a matmul (on a CPU adapter, the register-tiled one of
    matmul_cpu.py), a cooperative one for big reductions, one walking rows (a softmax's, a
    layer norm's with the values it keeps per row), a scan for long cumsum rows, a sort per row
    and a merge per result of a sort's passes, else one invocation per element. The
    elementwise, cooperative, columns and rows skeletons write several outputs.
    `updated` maps each donated input the kernel reads from its own output buffers to that
    output's position."""
    # On a CPU adapter an invocation folds each of its values in a loop of its own, where llvmpipe's loops allow:
    # it ends an invocation's loops after LOOP_LIMIT - 1 iterations in all, nested or one after another (a
    # fold recomputed inside another's loop: a log-sum-exp's max).
    serial = limits.cpu and max(folds(graph.nodes, i) for i in inside) < LOOP_LIMIT
    written = _written(name, graph, group, inside, reads, updated, limits, serial)
    if limits.cpu and written.iterations >= LOOP_LIMIT and serial:  # the row's reductions computed once, together
        written = _written(name, graph, group, inside, reads, updated, limits, False)
    if limits.cpu and written.iterations >= LOOP_LIMIT:
        raise CompileError(f"lower: kernel {name} would run {written.iterations} loop iterations an invocation, and "
                           f"the CPU adapter ends a shader's loops after {LOOP_LIMIT - 1}", graph.nodes[group[0]].site)
    return written


def _written(name: str, graph: Graph, group: tuple[int, ...], inside: list[int], reads: list[int],
             updated: dict[int, int], limits: Limits, serial: bool) -> Written:
    """`_write`'s kernel, in the skeletons for one invocation folding alone where `serial`."""
    sources = {j: f"b{k}" for k, j in enumerate(reads)}
    sources.update({j: output_name(k, len(group)) for j, k in updated.items()})
    kind = skeleton(graph, group, inside)
    most = limits.max_compute_workgroups_per_dimension
    node = graph.nodes[group[0]]
    if len(group) == 1 and isinstance(kind_of(node), Window) and node.inputs[0] in updated and \
            not node.spec.symbols:  # an update in place: the window alone is written
        return window_kernel(name, graph, group[0], reads, sources, most)
    if kind == "matmul":
        cores = [i for i in inside if tiles(graph, i)]
        if serial:
            return matmul_cpu_kernel(name, graph, group[0], cores[0], inside, reads, sources,
                                     limits.parallel_workgroups, limits.max_texture_dimension_2d)
        if len(cores) > 1:  # sibling products (fusion._fuse_sibling_products): each root's own, in their order
            stop = set(group) | set(reads)
            cores = [next(i for i in inlined(graph, r, stop - {r}) if tiles(graph, i)) for r in group]
        return matmul_kernel(name, graph, group, cores, inside, reads, sources, limits.parallel_workgroups)
    if kind in ("cooperative", "columns"):
        if serial:  # with no barriers, which a CPU adapter runs as switches between coroutines
            return elementwise_kernel(name, graph, group, reads, sources, most, streams=False,
                                      texels=limits.max_texture_dimension_2d)
        if kind == "columns":
            return columns_kernel(name, graph, group, reads, sources, most)
        span = max(folds(graph.nodes, i) for i in inside)
        return cooperative_kernel(name, graph, group, reads, sources, most, span, subgroups=limits.subgroups)
    short_rows = serial and kind == "elementwise" and len(group) == 1 and isinstance(kind_of(node), Normalization)
    if kind == "rows" or short_rows:  # a CPU adapter's short softmax rows too: each value would fold its row again
        walked = row[0] if (row := row_root(graph, group, inside)) else group[0]
        normalizes = kind_of(graph.nodes[walked])
        axis = normalizes.axis(graph.nodes[walked]) if isinstance(normalizes, Normalization) else \
            graph.nodes[walked].spec.ndim - 1
        if serial:
            return row_kernel(name, graph, group, walked, reads, sources, most, axis, limits.max_texture_dimension_2d)
        span = graph.nodes[walked].spec.max_shape[axis]
        return cooperative_kernel(name, graph, group, reads, sources, most, span, axis, walked, limits.subgroups)
    if kind == "sort":
        return sort_kernel(name, graph, group[0], reads, sources, most)
    if kind == "merge":
        return merge_kernel(name, graph, group[0], reads, sources, most)
    if kind == "scan":
        scan = kind_of(node)
        return scan_kernel(name, graph, group[0], reads, sources, most, scan.axis(node), scan.reverse(node))
    # Where nothing folds (a fold's loop, once per element of a vec4, would load each vec4 four times),
    # buffers read along the rows are bound as vec4s: a CPU adapter loads a storage buffer lane by
    # lane, a vec4 as cheaply as an f32; a GPU streams 16-byte loads faster (on an H200, negation at
    # 4096x4096 53 -> 37 us, a gelu 14.2 -> 11.0). Only a CPU adapter reads them from texture copies.
    vectors = not any(folds(graph.nodes, i) for i in inside)
    return elementwise_kernel(name, graph, group, reads, sources, most, vectors, streams=not limits.cpu,
                              texels=limits.max_texture_dimension_2d if limits.cpu else 0)


def _kernel_name(graph: Graph, inside: list[int]) -> str:
    """The kernel's ops that do work (not views or constants), in order, at most four."""
    ops = list(dict.fromkeys(graph.nodes[i].op for i in inside if kind_of(graph.nodes[i]).works))
    ops = ops or [graph.nodes[inside[-1]].op]
    return "_".join(ops[:3] + ([ops[-1]] if len(ops) > 3 else []))
