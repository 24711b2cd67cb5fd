"""WGSL text for one kernel: the skeleton, written once, and a writer that ops use.

A kernel computes one materialized node, one invocation per output element.
Every op's `wgsl` rule (fgrad/ops.py) says how to compute its value at given
coordinates: a template over its operands' values for elementwise ops, or a
function that remaps coordinates (views), loops (reductions, matmul) and
asks the writer for operand values. Operands that live in buffers are
loaded; the others are computed inline, so chains fuse. Names come from
counters, so the text is deterministic.
"""

from __future__ import annotations

import contextlib
import math
import struct
from collections.abc import Iterator, Sequence

from fgrad.ir import DType, Graph, Node, Spec
from fgrad.ops import OPS

WORKGROUP = 64
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

    def __init__(self, graph: Graph, sources: dict[int, str]):
        self.graph = graph
        self.nodes = graph.nodes
        self.sources = sources
        self.lines: list[str] = []
        self.depth = 1
        self.scopes: list[dict[tuple[int, tuple[str, ...]], str]] = [{}]
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
    def loop(self, count: int) -> Iterator[str]:
        """`for (r = 0; r < count; r++) { ... }`; values computed inside stay inside."""
        r = self.fresh("r")
        self.line(f"for (var {r} = 0i; {r} < {count}i; {r}++) {{")
        self.depth += 1
        self.scopes.append(dict(self.scopes[-1]))
        try:
            yield r
        finally:
            self.scopes.pop()
            self.depth -= 1
            self.line("}")

    # -- values --------------------------------------------------------------

    def value(self, i: int, coords: Sequence[str]) -> str:
        """The value of node `i` at `coords` (one WGSL i32 expression per axis)."""
        coords = tuple(coords)
        key = (i, coords)
        for scope in reversed(self.scopes):
            if key in scope:
                return scope[key]
        node = self.nodes[i]
        if i in self.sources:
            expr = f"{self.sources[i]}[{self.ravel(coords, node.spec.shape)}]"
            expr = f"({expr} != 0u)" if node.spec.dtype is DType.bool else expr
        else:
            rule = OPS[node.op].wgsl
            if rule is None:
                raise NotImplementedError(f"{node.op}: no wgsl rule")
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

    # -- index arithmetic ------------------------------------------------------

    def ravel(self, coords: Sequence[str], shape: Sequence[int]) -> str:
        """Row-major linear index of `coords` in `shape`."""
        terms, stride = [], 1
        for c, d in reversed(list(zip(coords, shape))):
            if d != 1 and c != "0i":
                terms.append(c if stride == 1 else f"{c} * {stride}i")
            stride *= d
        return " + ".join(reversed(terms)) if terms else "0i"

    def unravel(self, linear: str, shape: Sequence[int]) -> list[str]:
        """Coordinates in `shape` of a row-major linear index."""
        linear = self.let(linear)
        out, stride, outermost = [], math.prod(shape), True
        for d in shape:
            stride //= d
            if d == 1:
                out.append("0i")
                continue
            q = linear if stride == 1 else f"{linear} / {stride}i"
            out.append(self.let(q if outermost else f"({q}) % {d}i"))
            outermost = False
        return out


def kernel_text(name: str, graph: Graph, root: int, reads: Sequence[int], grid_x: int,
                in_place: int | None = None) -> str:
    """The whole WGSL module computing node `root` from the nodes `reads` (in binding order).

    `in_place` is a node read from the output buffer itself (a donated input updated in place).
    """
    node: Node = graph.nodes[root]
    sources = {j: f"b{k}" for k, j in enumerate(reads)}
    if in_place is not None:
        sources[in_place] = "out"
    w = KernelWriter(graph, sources)
    total = node.spec.size
    coords = w.unravel("i", node.spec.shape) if node.spec.shape else []
    out = w.value(root, coords)
    store = f"select(0u, 1u, {out})" if node.spec.dtype is DType.bool else out
    header = " ".join([str(node.spec), "<-"] + [str(graph.nodes[j].spec) for j in reads]) if reads else str(node.spec)
    decls = [f"@group(0) @binding({k}) var<storage, read> b{k}: array<{STORAGE_TYPE[graph.nodes[j].spec.dtype]}>;"
             for k, j in enumerate(reads)]
    decls.append(f"@group(0) @binding({len(reads)}) var<storage, read_write> out: array<{STORAGE_TYPE[node.spec.dtype]}>;")
    return "\n".join([
        f"// fgrad: {name} {header}",
        *decls,
        "",
        f"@compute @workgroup_size({WORKGROUP})",
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {",
        f"    let i = i32(gid.x + gid.y * {grid_x * WORKGROUP}u);",
        f"    if (i >= {total}i) {{",
        "        return;",
        "    }",
        *w.lines,
        f"    out[i] = {store};",
        "}",
        "",
    ])
