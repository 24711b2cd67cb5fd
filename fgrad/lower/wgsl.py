"""WGSL text for one kernel: the skeletons, each written once, and a writer that ops use.

A kernel computes one materialized node (its root). Every op's `wgsl` rule
(fgrad/ops.py) says how to compute its value at given coordinates: a
template over its operands' values for elementwise ops, or a function that
remaps coordinates (views), reduces (`w.reduce`), declares module-scope WGSL
functions to call (`w.function`) and asks the writer for operand values.
Operands that live in buffers are loaded; the others are computed inline,
so chains fuse. Names come from counters, so the text is deterministic.

Skeletons: `elementwise` (one invocation per output element), `cooperative`
(a workgroup per output element or softmax row, for roots that reduce many
values: `w.reduce` then splits the work across the workgroup and combines
in shared memory), and the tiled matmul of fgrad/lower/matmul.py for
kernels built around a matmul (its epilogue fuses).
"""

from __future__ import annotations

import contextlib
import math
import struct
from collections.abc import Callable, Iterator, Sequence

from fgrad.ir import DType, Graph, Node, Spec
from fgrad.lower.kinds import folds, lowerings

WORKGROUP = 256  # invocations per workgroup in the elementwise skeleton
COOPERATIVE = 128  # most invocations per workgroup in the cooperative skeleton (fewer for short rows)
COOPERATE_FROM = 128  # reductions over at least this many values use the cooperative skeleton
WGSL_TYPE = {DType.f32: "f32", DType.i32: "i32", DType.bool: "bool"}
STORAGE_TYPE = {DType.f32: "f32", DType.i32: "i32", DType.bool: "u32"}  # WGSL storage has no bool


def literal(value: float | int | bool, dtype: DType) -> str:
    """An exact WGSL literal of `dtype`."""
    if dtype is DType.bool:
        return "true" if value else "false"
    if dtype is DType.i32:
        value = int(min(max(value, -(2**31)), 2**31 - 1))  # -inf (a max's start) is the least i32
        return f"{value}i" if value >= 0 else f"i32({value})"
    value = float(struct.unpack("<f", struct.pack("<f", value))[0])  # round to f32 first
    if not math.isfinite(value):
        return f"bitcast<f32>({struct.unpack('<I', struct.pack('<f', value))[0]:#010x}u)"
    return f"{value!r}f"  # the shortest decimal that is exactly this f32


class KernelWriter:
    """Writes the body of one kernel: `let` bindings, loops and loads.

    `sources` maps each node read from a buffer to its binding's variable
    name; every other node reached is computed inline.
    """

    def __init__(self, graph: Graph, sources: dict[int, str], cooperative: int = 0):
        self.graph = graph
        self.nodes = graph.nodes
        self.sources = sources
        self.cooperative = cooperative  # the workgroup width computing each value together (0: one invocation)
        self.shared: set[DType] = set()  # dtypes of the shared reduction scratch the kernel uses
        self.functions: dict[str, str] = {}  # module-scope WGSL functions the kernel calls, by name
        self.lines: list[str] = []
        self.depth = 1
        self.scopes: list[dict[tuple, str]] = [{}]
        self.count = 0

    # -- statements ----------------------------------------------------------

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def fresh(self, prefix: str = "v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def let(self, expr: str) -> str:
        """Bind `expr` to a new name (a plain name is returned as it is)."""
        if expr.isidentifier():
            return expr
        name = self.fresh()
        self.line(f"let {name} = {expr};")
        return name

    def var(self, init: str, dtype: DType) -> str:
        name = self.fresh("a")
        self.line(f"var {name}: {WGSL_TYPE[dtype]} = {init};")
        return name

    @contextlib.contextmanager
    def loop(self, count: int | str, start: str = "0i", step: int = 1) -> Iterator[str]:
        """`for (r = start; r < count; r += step) { ... }`; values computed inside stay inside."""
        r = self.fresh("r")
        bound = f"{count}i" if isinstance(count, int) else count
        advance = f"{r}++" if step == 1 else f"{r} += {step}i"
        self.line(f"for (var {r} = {start}; {r} < {bound}; {advance}) {{")
        self.depth += 1
        self.scopes.append(dict(self.scopes[-1]))
        try:
            yield r
        finally:
            self.scopes.pop()
            self.depth -= 1
            self.line("}")

    def once(self, key: tuple, compute: Callable[[], str]) -> str:
        """The value computed by `compute()` under `key`, computed once per scope."""
        known = self.recall(key)
        if known is not None:
            return known
        self.scopes[-1][key] = name = self.let(compute())
        return name

    def function(self, name: str, text: str) -> str:
        """Declare the module-scope WGSL function `name`, whose whole text is `text`, once per
        kernel; returns the name to call it by."""
        assert self.functions.setdefault(name, text) == text, f"two WGSL functions named {name}"
        return name

    def reduce(self, count: int, value_at: Callable[[str], str], combine: Callable[[str, str], str],
               init: str, dtype: DType) -> str:
        """Fold `value_at(r)` for r in [0, count): a loop in one invocation, or, in a
        cooperative kernel, strided over the workgroup and combined in shared memory."""
        if self.cooperative:
            value_at("0i")  # computes, here at the top, any reduction the loop body needs (barriers must be uniform)
        acc = self.var(init, dtype)
        if not self.cooperative:
            with self.loop(count) as r:
                self.line(f"{acc} = {combine(acc, value_at(r))};")
            return acc
        with self.loop(count, start="lid", step=self.cooperative) as r:
            self.line(f"{acc} = {combine(acc, value_at(r))};")
        # NOTE: bools are shared as u32, as in storage: a bool array in workgroup memory
        # lost values on an NVIDIA Vulkan driver.
        scratch = f"shared_{STORAGE_TYPE[dtype]}"
        self.shared.add(dtype)

        def load(k: str) -> str:
            return f"({scratch}[{k}] != 0u)" if dtype is DType.bool else f"{scratch}[{k}]"

        def store(value: str) -> str:
            return f"select(0u, 1u, {value})" if dtype is DType.bool else value

        self.line(f"{scratch}[lid] = {store(acc)};")
        self.line("workgroupBarrier();")
        half = self.cooperative // 2
        while half:
            self.line(f"if (lid < {half}i) {{ {scratch}[lid] = {store(combine(load('lid'), load(f'lid + {half}i')))}; }}")
            self.line("workgroupBarrier();")
            half //= 2
        result = self.let(load("0"))
        self.line("workgroupBarrier();")  # the scratch may be reused by the next reduction
        return result

    # -- values --------------------------------------------------------------

    def value(self, i: int, coords: Sequence[str]) -> str:
        """The value of node `i` at `coords` (one WGSL i32 expression per axis)."""
        coords = tuple(coords)
        key = (i, coords)
        known = self.recall(key)
        if known is not None:
            return known
        node = self.nodes[i]
        if i in self.sources:
            expr = f"{self.sources[i]}[{self.ravel(coords, node.spec.shape)}]"
            expr = f"({expr} != 0u)" if node.spec.dtype is DType.bool else expr
        else:
            rule = lowerings[node.op].wgsl
            if isinstance(rule, str):
                expr = rule.format(*(self.value(j, coords) for j in node.inputs))
            else:
                expr = rule(self, i, coords)
        name = self.let(expr)
        self.scopes[-1][key] = name
        return name

    def operand(self, i: int, k: int, coords: Sequence[str]) -> str:
        """The value of node `i`'s operand `k` at `coords`."""
        return self.value(self.nodes[i].inputs[k], coords)

    def spec(self, i: int) -> Spec:
        return self.nodes[i].spec

    def literal(self, value: float | int | bool, dtype: DType) -> str:
        return literal(value, dtype)

    def recall(self, key: tuple) -> str | list[str] | None:
        """What the innermost enclosing scope holds under `key` (values, coordinates), or None."""
        for scope in reversed(self.scopes):
            if key in scope:
                return scope[key]
        return None

    # -- index arithmetic ------------------------------------------------------

    def ravel(self, coords: Sequence[str], shape: Sequence[int]) -> str:
        """Row-major linear index of `coords` in `shape` (the index they came from, when they
        were unraveled from one: size-1 axes do not matter)."""
        known = self.recall(("ravel", tuple((c, d) for c, d in zip(coords, shape) if d != 1)))
        if known is not None:
            return known
        terms, stride = [], 1
        for c, d in reversed(list(zip(coords, shape))):
            if d != 1 and c != "0i":
                terms.append(c if stride == 1 else f"{c} * {stride}i")
            stride *= d
        return " + ".join(reversed(terms)) if terms else "0i"

    def unravel(self, linear: str, shape: Sequence[int]) -> list[str]:
        """Coordinates in `shape` of a row-major linear index (the same names each time, so
        that values computed at them are found again through reshapes)."""
        linear = self.let(linear)
        squeezed = tuple(d for d in shape if d != 1)
        known = self.recall(("unravel", linear, squeezed))
        if known is not None:
            it = iter(known)
            return [next(it) if d != 1 else "0i" for d in shape]
        out, stride, outermost = [], math.prod(shape), True
        coords = out
        for d in shape:
            stride //= d
            if d == 1:
                out.append("0i")
                continue
            q = linear if stride == 1 else f"{linear} / {stride}i"
            out.append(self.let(q if outermost else f"({q}) % {d}i"))
            outermost = False
        kept = [c for c, d in zip(coords, shape) if d != 1]
        self.scopes[-1][("unravel", linear, squeezed)] = kept
        self.scopes[-1][("ravel", tuple(zip(kept, squeezed)))] = linear  # raveling them back gives the index
        return coords


def output_name(k: int, count: int) -> str:
    """The WGSL name of a kernel's k-th output buffer: `out`, or `out0`, `out1`, ... for several."""
    return "out" if count == 1 else f"out{k}"


def module(name: str, graph: Graph, roots: int | Sequence[int], reads: Sequence[int], workgroup: int,
           prelude: Sequence[str], w: KernelWriter, tail: Sequence[str], shared: Sequence[str] = ()) -> str:
    """A whole WGSL module: header line, bindings (reads, then outputs), shared memory, entry point."""
    roots = (roots,) if isinstance(roots, int) else tuple(roots)
    made = " ".join(str(graph.nodes[r].spec) for r in roots)
    header = " ".join([made, "<-"] + [str(graph.nodes[j].spec) for j in reads]) if reads else made
    decls = [f"@group(0) @binding({k}) var<storage, read> b{k}: array<{STORAGE_TYPE[graph.nodes[j].spec.dtype]}>;"
             for k, j in enumerate(reads)]
    decls += [f"@group(0) @binding({len(reads) + k}) var<storage, read_write> {output_name(k, len(roots))}: "
              f"array<{STORAGE_TYPE[graph.nodes[r].spec.dtype]}>;" for k, r in enumerate(roots)]
    decls += sorted({f"var<workgroup> shared_{STORAGE_TYPE[t]}: array<{STORAGE_TYPE[t]}, {workgroup}>;"
                     for t in w.shared})
    decls += list(shared)
    decls += list(w.functions.values())
    return "\n".join([
        f"// fgrad: {name} {header}",
        *decls,
        "",
        f"@compute @workgroup_size({workgroup})",
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,",
        "        @builtin(workgroup_id) group: vec3<u32>) {",
        *("    " + ln for ln in prelude),
        *w.lines,
        *("    " + ln for ln in tail),
        "}",
        "",
    ])


def store(node: Node, index: str, value: str, out: str = "out") -> str:
    return f"{out}[{index}] = {f'select(0u, 1u, {value})' if node.spec.dtype is DType.bool else value};"


def grid(groups: int, max_per_dimension: int) -> tuple[int, int, int]:
    """Workgroup counts (x, y, 1) covering `groups`, in 2-D past the per-dimension limit."""
    x = min(groups, max_per_dimension)
    return x, math.ceil(groups / x), 1


def elementwise_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                       max_groups: int) -> tuple[str, tuple[int, int, int]]:
    """One invocation per output element; several roots of one shape are all computed before
    any is stored (an output may overwrite a donated input that another reads)."""
    node = graph.nodes[roots[0]]
    w = KernelWriter(graph, sources)
    g = grid(math.ceil(node.spec.size / WORKGROUP), max_groups)
    coords = w.unravel("i", node.spec.shape) if node.spec.shape else []
    values = [w.value(r, coords) for r in roots]
    stores = [store(graph.nodes[r], "i", v, output_name(k, len(roots))) for k, (r, v) in enumerate(zip(roots, values))]
    prelude = [f"let i = i32(gid.x + gid.y * {g[0] * WORKGROUP}u);", f"if (i >= {node.spec.size}i) {{", "    return;", "}"]
    return module(name, graph, roots, reads, WORKGROUP, prelude, w, stores), g


def cooperative_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                       max_groups: int, axis: int | None = None) -> tuple[str, tuple[int, int, int]]:
    """A workgroup per output element (for several roots of one shape, each folded in turn),
    or per row for one root that normalizes along an axis (softmax): its reductions are
    computed once at the top (uniform control flow, as barriers need), then the workgroup
    writes the row."""
    root = roots[0]
    node = graph.nodes[root]
    span = node.spec.shape[axis] if axis is not None else max(folds(graph.nodes, r) for r in roots)
    width = min(COOPERATIVE, max(32, 1 << (span - 1).bit_length()))  # a power of two, about the row
    w = KernelWriter(graph, sources, cooperative=width)
    row = node.spec.shape[axis] if axis is not None else 1
    count = node.spec.size // row
    g = grid(count, max_groups)
    outer = [d for k, d in enumerate(node.spec.shape) if k != axis]
    coords = w.unravel("o", outer) if outer else []
    prelude = [f"let o = i32(group.x + group.y * {g[0]}u);", f"if (o >= {count}i) {{", "    return;", "}",
               "let lid = i32(local.x);"]
    if axis is None:
        values = [w.value(r, coords) for r in roots]
        index = w.ravel(coords, node.spec.shape)
        tail = ["if (lid == 0i) {",
                *("    " + store(graph.nodes[r], index, v, output_name(k, len(roots))) for k, (r, v) in
                  enumerate(zip(roots, values))), "}"]
        return module(name, graph, roots, reads, width, prelude, w, tail), g
    w.value(root, [*coords[:axis], "0i", *coords[axis:]])  # hoists the row's reductions out of the loop
    with w.loop(row, start="lid", step=width) as e:
        at = [*coords[:axis], e, *coords[axis:]]
        w.line(store(node, w.ravel(at, node.spec.shape), w.value(root, at)))
    return module(name, graph, root, reads, width, prelude, w, []), g
