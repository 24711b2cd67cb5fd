"""WGSL text for one kernel: the skeletons, each written once, and a writer that ops use.

A kernel computes one materialized node (its root). Every primitive's WGSL
rule (its `Lowering`, fgrad/lower/kinds.py, registered with it in
fgrad/primitives/) says how to compute its value at given coordinates: a
template over its operands' values for elementwise ops, or a function that
remaps coordinates (views), reduces (`w.reduce`), declares module-scope WGSL
functions to call (`w.function`) and asks the writer for operand values.
Operands that live in buffers are loaded; the others are computed inline,
so chains fuse. Names come from counters, so the text is deterministic.

Skeletons: `elementwise` (one invocation per output element), `cooperative`
(a workgroup per output element or softmax row, for roots that reduce many
values: `w.reduce` then splits the work across the workgroup and combines
in shared memory), `scan` (a workgroup per row of a long cumsum, scanning
it block by block in shared memory: `w.scan`), and the tiled matmul of
fgrad/lower/matmul.py for kernels built around a matmul (its epilogue fuses).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from fgrad.ir import Dim, DType, Graph, Node, Spec, at_max
from fgrad.lower.kinds import folds, lowerings
from fgrad.lower.program import Extent

WORKGROUP = 256  # invocations per workgroup in the elementwise skeleton
COOPERATIVE = 128  # most invocations per workgroup in the cooperative skeleton (fewer for short rows)
COOPERATE_FROM = 128  # reductions over at least this many values use the cooperative skeleton


def literal(value: float | int | bool, dtype: DType) -> str:
    """An exact WGSL literal of `dtype`: `value` rounded to the dtype first, an integer clamped
    into its range (so -inf, a max's start, is the least value)."""
    t = dtype.row.compute
    if dtype.is_int:
        info = np.iinfo(dtype.np)
        value = int(min(max(value, info.min), info.max))
        return f"{value}{dtype.row.suffix}" if value >= 0 else f"{t}({value})"
    if not dtype.is_float:
        return "true" if value else "false"
    with np.errstate(over="ignore"):
        rounded = np.asarray(value, dtype.np)
    if np.isfinite(rounded):
        return f"{float(rounded)!r}{dtype.row.suffix}"  # the shortest decimal that is exactly this value
    if dtype.itemsize == 4:  # infinities and NaN are no literals: a bitcast of their bits
        return f"bitcast<{t}>({int(rounded.view(np.uint32)):#010x}u)"
    # NOTE: a narrower float's converts from f32's (naga refused `bitcast<vec2<f16>>(...).x`).
    return f"{t}({literal(float(rounded), DType.f32)})"


# Bools live in storage (and shared memory) as u32: converted on every load and store.
def loaded(element: str, dtype: DType) -> str:
    """The value of a stored `element` of `dtype`."""
    return f"({element} != 0u)" if dtype is DType.bool else element


def stored(value: str, dtype: DType) -> str:
    """`value` of `dtype` as it is stored."""
    return f"select(0u, 1u, {value})" if dtype is DType.bool else value


def _factor(n: int | str) -> str:
    """A count (an int, or a WGSL product of symbols) as an operand of `/` or `%`."""
    return f"{n}i" if isinstance(n, int) else f"({n})" if " " in n else n


class KernelWriter:
    """Writes the body of one kernel: `let` bindings, loops and loads.

    `sources` maps each node read from a buffer to its binding's variable
    name; every other node reached is computed inline. Sizes that are
    symbols (fg.dim) are read from the uniform `dims` wherever index
    arithmetic, loop counts or guards need them (`size`, `extent`).
    """

    def __init__(self, graph: Graph, sources: dict[int, str], cooperative: int = 0):
        self.graph = graph
        self.nodes = graph.nodes
        self.sources = sources
        self.cooperative = cooperative  # the workgroup width computing each value together (0: one invocation)
        self.shared: set[DType] = set()  # dtypes of the shared reduction scratch the kernel uses
        self.dtypes: set[DType] = set()  # dtypes of the values it computes (f16 asks for `enable f16;`)
        self.block: str | None = None  # in a scan kernel: where the row's current block starts (uniform)
        self.functions: dict[str, str] = {}  # module-scope WGSL functions the kernel calls, by name
        self.sized = False  # whether it reads symbols' values (the module then binds `dims`)
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
        self.dtypes.add(dtype)
        self.line(f"var {name}: {dtype.row.compute} = {init};")
        return name

    @contextlib.contextmanager
    def loop(self, count: int | Dim | str, start: str = "0i", step: int = 1) -> Iterator[str]:
        """`for (r = start; r < count; r += step) { ... }`; values computed inside stay inside."""
        r = self.fresh("r")
        bound = self.size(count)
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

    def reduce(self, count: int | Dim | str, value_at: Callable[[str], str], combine: Callable[[str, str], str],
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
        return self.across(acc, combine, dtype)

    def across(self, value: str, combine: Callable[[str, str], str], dtype: DType) -> str:
        """Combine every invocation's `value` over the workgroup, halving in shared memory;
        each invocation gets the result."""
        load, store = self.scratch(dtype)
        self.line(store("lid", value))
        self.line("workgroupBarrier();")
        half = self.cooperative // 2
        while half:
            self.line(f"if (lid < {half}i) {{ {store('lid', combine(load('lid'), load(f'lid + {half}i')))} }}")
            self.line("workgroupBarrier();")
            half //= 2
        result = self.let(load("0"))
        self.line("workgroupBarrier();")  # the scratch may be reused by the next reduction
        return result

    def scratch(self, dtype: DType) -> tuple[Callable[[str], str], Callable[[str, str], str]]:
        """`load(k)` and `store(k, value)`: WGSL reading and writing entry k of the workgroup's
        shared scratch of `dtype`."""
        # NOTE: bools are shared as u32, as in storage: a bool array in workgroup memory
        # lost values on an NVIDIA Vulkan driver.
        scratch = f"shared_{dtype.row.storage}"
        self.shared.add(dtype)

        def load(k: str) -> str:
            return loaded(f"{scratch}[{k}]", dtype)

        def store(k: str, value: str) -> str:
            return f"{scratch}[{k}] = {stored(value, dtype)};"

        return load, store

    def argreduce(self, count: int | Dim | str, value_at: Callable[[str], str], beats: Callable[[str, str], str],
                  init: str, dtype: DType) -> str:
        """The first r in [0, count) whose `value_at(r)` no other value beats (`beats(a, b)`:
        WGSL true where a beats b; every value beats or ties `init`). Each value is computed
        once, so the winner is compared with itself, not a copy the compiler rounded apart. A
        loop in one invocation, or strided over the workgroup: then the best of the
        invocations' winners, and the least index among the invocations holding it."""
        start = "lid" if self.cooperative else "0i"
        if self.cooperative:
            value_at("0i")  # computes, here at the top, any reduction the loop body needs (barriers must be uniform)
        best, at = self.var(init, dtype), self.var(start, DType.i32)
        with self.loop(count, start=start, step=self.cooperative or 1) as r:
            v = value_at(r)
            self.line(f"if ({beats(v, best)}) {{ {best} = {v}; {at} = {r}; }}")
        if not self.cooperative:
            return at
        top = self.across(best, lambda a, b: f"select({a}, {b}, {beats(b, a)})", dtype)
        # An invocation that folded nothing holds `init` at an index past the end: it loses ties.
        held = f"select({self.size(count)}, {at}, !({beats(top, best)}))"
        return self.across(held, lambda a, b: f"min({a}, {b})", DType.i32)

    def scan(self, count: int | Dim, value_at: Callable[[str], str], combine: Callable[[str, str], str], init: str,
             dtype: DType, at: str, reverse: bool) -> str:
        """Fold `value_at(r)` over r in [0, at], in order (over [at, count) from the end where
        `reverse`): a loop in one invocation, or, in a scan kernel, the workgroup's block of
        the row scanned together in shared memory (Hillis-Steele; `at` is this invocation's
        place in the block, lanes in the order of the scan), its first value joined to the
        total of the blocks before, which the block's last invocation held."""
        if not self.cooperative:
            acc = self.var(init, dtype)
            with self.loop(f"{self.size(count)} - {at}" if reverse else f"{at} + 1i") as r:
                self.line(f"{acc} = {combine(acc, value_at(self.let(f'{self.last(count)} - {r}') if reverse else r))};")
            return acc
        assert self.block is not None, "a cooperative scan runs in the scan skeleton"
        load, store = self.scratch(dtype)
        before = self.let(load(f"{self.cooperative - 1}i"))
        self.line("workgroupBarrier();")
        v = value_at(at)
        self.line(store("lid", f"select({v}, {combine(before, v)}, lid == 0i && {self.block} > 0i)"))
        self.line("workgroupBarrier();")
        step = 1
        while step < self.cooperative:
            t = self.let(f"select({load('lid')}, {combine(load(f'max(lid - {step}i, 0i)'), load('lid'))}, "
                         f"lid >= {step}i)")
            self.line("workgroupBarrier();")
            self.line(store("lid", t))
            self.line("workgroupBarrier();")
            step *= 2
        return self.let(load("lid"))

    # -- values --------------------------------------------------------------

    def value(self, i: int, coords: Sequence[str]) -> str:
        """The value of node `i` at `coords` (one WGSL i32 expression per axis)."""
        coords = tuple(coords)
        key = (i, coords)
        known = self.recall(key)
        if known is not None:
            return known
        node = self.nodes[i]
        self.dtypes.add(node.spec.dtype)
        if i in self.sources:
            expr = loaded(f"{self.sources[i]}[{self.ravel(coords, node.spec.shape)}]", node.spec.dtype)
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
        self.dtypes.add(dtype)
        return literal(value, dtype)

    def recall(self, key: tuple) -> str | list[str] | None:
        """What the innermost enclosing scope holds under `key` (values, coordinates), or None."""
        for scope in reversed(self.scopes):
            if key in scope:
                return scope[key]
        return None

    # -- index arithmetic ------------------------------------------------------

    def size(self, d: int | Dim | str) -> str:
        """A size as a WGSL i32: a literal, a symbol's value read from the uniform `dims`, or
        (already WGSL, an `extent`) as it is."""
        if isinstance(d, Dim):
            self.sized = True
            return f"dims.size_{d.name}"
        return d if isinstance(d, str) else f"{d}i"

    def last(self, d: int | Dim) -> str:
        """The last index along an axis of size `d`, as a WGSL i32."""
        return f"{d - 1}i" if isinstance(d, int) else f"{self.size(d)} - 1i"

    def extent(self, shape: Sequence[int | Dim]) -> int | str:
        """The number of elements of `shape`: an int, or with symbols a WGSL i32 product that
        reads their values."""
        factor = math.prod(d for d in shape if not isinstance(d, Dim))
        symbols = [self.size(d) for d in shape if isinstance(d, Dim)]
        return " * ".join(([f"{factor}i"] if factor != 1 else []) + symbols) if symbols else factor

    def ravel(self, coords: Sequence[str], shape: Sequence[int | Dim]) -> str:
        """Row-major linear index of `coords` in `shape` (the index they came from, when they
        were unraveled from one: size-1 axes do not matter)."""
        known = self.recall(("ravel", tuple((c, d) for c, d in zip(coords, shape) if d != 1)))
        if known is not None:
            return known
        terms, later = [], []
        for c, d in reversed(list(zip(coords, shape))):
            if d != 1 and c != "0i":
                stride = self.extent(later)
                terms.append(c if stride == 1 else f"{c} * {self.size(stride)}")
            later.append(d)
        return " + ".join(reversed(terms)) if terms else "0i"

    def unravel(self, linear: str, shape: Sequence[int | Dim]) -> list[str]:
        """Coordinates in `shape` of a row-major linear index (the same names each time, so
        that values computed at them are found again through reshapes)."""
        linear = self.let(linear)
        squeezed = tuple(d for d in shape if d != 1)
        known = self.recall(("unravel", linear, squeezed))
        if known is not None:
            it = iter(known)
            return [next(it) if d != 1 else "0i" for d in shape]
        out, outermost = [], True
        coords = out
        for k, d in enumerate(shape):
            if d == 1:
                out.append("0i")
                continue
            stride = self.extent(shape[k + 1:])
            q = linear if stride == 1 else f"{linear} / {_factor(stride)}"
            out.append(self.let(q if outermost else f"({q}) % {_factor(self.size(d))}"))
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
    """A whole WGSL module: header line, the extensions its dtypes need, bindings (reads, then
    outputs), shared memory, entry point."""
    roots = (roots,) if isinstance(roots, int) else tuple(roots)
    made = " ".join(str(graph.nodes[r].spec) for r in roots)
    header = " ".join([made, "<-"] + [str(graph.nodes[j].spec) for j in reads]) if reads else made
    dtypes = w.dtypes | w.shared | {graph.nodes[j].spec.dtype for j in (*reads, *roots)}
    enables = [f"enable {e};" for e in sorted({d.row.extension for d in dtypes} - {None})]
    decls = [f"@group(0) @binding({k}) var<storage, read> b{k}: array<{graph.nodes[j].spec.dtype.row.storage}>;"
             for k, j in enumerate(reads)]
    decls += [f"@group(0) @binding({len(reads) + k}) var<storage, read_write> {output_name(k, len(roots))}: "
              f"array<{graph.nodes[r].spec.dtype.row.storage}>;" for k, r in enumerate(roots)]
    # The symbols' values, one i32 each, in the program's order (Program.symbols); a member's name
    # is prefixed, as a symbol may be named like a WGSL keyword (`loop`, `fn`).
    if w.sized:
        decls += [f"struct Dims {{ {', '.join(f'size_{d.name}: i32' for d in graph.symbols)} }}",
                  f"@group(0) @binding({len(reads) + len(roots)}) var<uniform> dims: Dims;"]
    decls += sorted({f"var<workgroup> shared_{t.row.storage}: array<{t.row.storage}, {workgroup}>;"
                     for t in w.shared})
    decls += list(shared)
    decls += list(w.functions.values())
    return "\n".join([
        f"// fgrad: {name} {header}",
        *enables,
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


@dataclass(frozen=True)
class Written:
    """A kernel's WGSL and its dispatch: `grid` (at the symbols' maxima) and, where the grid
    follows the symbols, `groups` (see Kernel.groups); `sized`: it binds the symbols' values."""

    wgsl: str
    grid: tuple[int, int, int]
    groups: tuple[Extent, ...] = ()
    sized: bool = False


def store(node: Node, index: str, value: str, out: str = "out") -> str:
    return f"{out}[{index}] = {stored(value, node.spec.dtype)};"


def grid(groups: int, max_per_dimension: int) -> tuple[int, int, int]:
    """Workgroup counts (x, y, 1) covering `groups`, in 2-D past the per-dimension limit."""
    x = min(groups, max_per_dimension)
    return x, math.ceil(groups / x), 1


def elementwise_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                       max_groups: int) -> Written:
    """One invocation per output element; several roots of one shape are all computed before
    any is stored (an output may overwrite a donated input that another reads)."""
    node = graph.nodes[roots[0]]
    w = KernelWriter(graph, sources)
    g = grid(math.ceil(node.spec.max_size / WORKGROUP), max_groups)
    coords = w.unravel("i", node.spec.shape) if node.spec.shape else []
    values = [w.value(r, coords) for r in roots]
    stores = [store(graph.nodes[r], "i", v, output_name(k, len(roots))) for k, (r, v) in enumerate(zip(roots, values))]
    prelude = [f"let i = i32(gid.x + gid.y * {g[0] * WORKGROUP}u);",
               f"if (i >= {w.size(w.extent(node.spec.shape))}) {{", "    return;", "}"]
    groups = (Extent.of(node.spec.shape, WORKGROUP),) if node.spec.symbols else ()
    return Written(module(name, graph, roots, reads, WORKGROUP, prelude, w, stores), g, groups, w.sized)


def cooperative_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                       max_groups: int, axis: int | None = None) -> Written:
    """A workgroup per output element (for several roots of one shape, each folded in turn),
    or per row for one root that normalizes along an axis (softmax): its reductions are
    computed once at the top (uniform control flow, as barriers need), then the workgroup
    writes the row."""
    root = roots[0]
    node = graph.nodes[root]
    span = node.spec.max_shape[axis] if axis is not None else max(folds(graph.nodes, r) for r in roots)
    width = _width(span)
    w = KernelWriter(graph, sources, cooperative=width)
    row = node.spec.shape[axis] if axis is not None else 1
    outer = [d for k, d in enumerate(node.spec.shape) if k != axis]
    g, groups, prelude = _workgroups(w, outer, max_groups)
    coords = w.unravel("o", outer) if outer else []
    if axis is None:
        values = [w.value(r, coords) for r in roots]
        index = w.ravel(coords, node.spec.shape)
        tail = ["if (lid == 0i) {",
                *("    " + store(graph.nodes[r], index, v, output_name(k, len(roots))) for k, (r, v) in
                  enumerate(zip(roots, values))), "}"]
        return Written(module(name, graph, roots, reads, width, prelude, w, tail), g, groups, w.sized)
    w.value(root, [*coords[:axis], "0i", *coords[axis:]])  # hoists the row's reductions out of the loop
    with w.loop(row, start="lid", step=width) as e:
        at = [*coords[:axis], e, *coords[axis:]]
        w.line(store(node, w.ravel(at, node.spec.shape), w.value(root, at)))
    return Written(module(name, graph, root, reads, width, prelude, w, []), g, groups, w.sized)


def scan_kernel(name: str, graph: Graph, root: int, reads: Sequence[int], sources: dict[int, str],
                max_groups: int, axis: int, reverse: bool) -> Written:
    """A workgroup per row of a scan along `axis` (cumsum): the row in blocks of the
    workgroup's width, in the order of the scan (from the end where `reverse`), each block
    scanned together (`w.scan`). Invocations past the row's end repeat its last value (so the
    others' results stand) and store nothing."""
    node = graph.nodes[root]
    n = node.spec.shape[axis]
    width = _width(node.spec.max_shape[axis])
    w = KernelWriter(graph, sources, cooperative=width)
    outer = [d for k, d in enumerate(node.spec.shape) if k != axis]
    g, groups, prelude = _workgroups(w, outer, max_groups)
    coords = w.unravel("o", outer) if outer else []
    with w.loop(n, step=width) as block:  # every invocation runs every block: barriers need uniform control flow
        w.block = block
        k = w.let(f"{block} + lid")
        e = w.let(f"{w.last(n)} - min({k}, {w.last(n)})" if reverse else f"min({k}, {w.last(n)})")
        at = [*coords[:axis], e, *coords[axis:]]
        value = w.value(root, at)
        w.line(f"if ({k} < {w.size(n)}) {{ {store(node, w.ravel(at, node.spec.shape), value)} }}")
    return Written(module(name, graph, root, reads, width, prelude, w, []), g, groups, w.sized)


def _width(span: int) -> int:
    """Invocations of a workgroup that folds rows of `span` values: a power of two, about the row."""
    return min(COOPERATIVE, max(32, 1 << (span - 1).bit_length()))


def _workgroups(w: KernelWriter, outer: Sequence[int | Dim], max_groups: int
                ) -> tuple[tuple[int, int, int], tuple[Extent, ...], list[str]]:
    """The grid of a workgroup per result (or row), one per element of `outer`, with its groups
    where that follows the symbols (Kernel.groups), and the prelude naming the workgroup's one
    (`o`) and the invocation's place in it (`lid`)."""
    g = grid(math.prod(at_max(outer)), max_groups)
    groups = (Extent.of(outer),) if any(isinstance(d, Dim) for d in outer) else ()
    return g, groups, [f"let o = i32(group.x + group.y * {g[0]}u);", f"if (o >= {w.size(w.extent(outer))}) {{",
                       "    return;", "}", "let lid = i32(local.x);"]
