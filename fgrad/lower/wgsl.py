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
in shared memory), `columns` (a workgroup per run of adjacent results that
fold many values over leading axes, several invocations per result, their
shares combined as the cooperative one's), `scan` (a workgroup per row of a long cumsum, scanning
it block by block in shared memory: `w.scan`), `sort` (a workgroup per row
put in order in shared memory) and `merge` (an invocation per result of a
merge of sorted runs, for rows longer than shared memory holds), and the
tiled matmul of fgrad/lower/matmul.py for kernels built around a matmul
(its epilogue fuses), and `loop` (an invocation per element running every iteration of an
elementwise loop body, fgrad/lower/loops.py). Where nothing folds, `lanes` (an invocation per 4
elements of a row) binds the buffers it reads along rows as vec4s. On a CPU
adapter, where barriers are costly, `row` (an invocation per softmax row) and
the elementwise skeleton take the cooperative one's roots, and
fgrad/lower/matmul_cpu.py the matmuls. There, buffers read only along rows are read from
texture copies where a texture holds their texels (a CPU adapter loads a
texel for all lanes at once, a storage buffer lane by lane), the row and
elementwise skeletons' loops stepping 4 values along a row at a time; those
skeletons read their other f32 buffers from copies of a value a texel.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from fgrad.errors import CompileError
from fgrad.ir import PRIMITIVES, Dim, DType, Graph, Node, Spec, at_max
from fgrad.lower.kinds import kind_of, lowerings
from fgrad.lower.program import Extent

Folded = str | tuple[str, ...]  # a value a scan folds: WGSL, or a tuple of parts (a linear recurrence's pairs)

WORKGROUP = 256  # invocations per workgroup in the elementwise skeleton
PER, STREAMING = 4, 1 << 20  # output elements per invocation of the elementwise skeleton, from this size
COOPERATIVE = 128  # most invocations per workgroup in the cooperative skeleton (fewer for short rows)
COOPERATE_FROM = 128  # reductions over at least this many values use the cooperative skeleton
FEW_RESULTS = 1 << 15  # ... and over COLUMNS_FROM or more where they have fewer results than this
COLUMNS, FOLDERS = 32, 8  # a columns workgroup's adjacent results, and its invocations folding each
COLUMNS_FROM = 32  # folds over leading axes of at least this many values use the columns skeleton
UNROLL = 4  # accumulators of each invocation of a cooperative reduction
WRITTEN_OUT = 16  # an invocation's fold over at most this many values (a split product's partial sums) is unrolled
SHUFFLED = (DType.f32, DType.i32, DType.u32)  # what subgroup operations exchange (f16 needs a feature of its own)
HELD = 32  # most values of a row each invocation of a rows kernel keeps, read once for its folds and store
SORT_BLOCK = 1024  # most entries a workgroup sorts in shared memory (a u32 key and an i32 index each: 8 KiB)
SORTING = 256  # most invocations of a workgroup sorting a row
ROW_LANES = 8  # invocations per workgroup of the row skeleton for CPU adapters: one 256-bit vector of lanes
LOOP_LIMIT = 1 << 16  # llvmpipe ends a loop after 65535 iterations: longer folds stay cooperative
VEC = 4  # f32s in a vec4<f32>: on a CPU adapter, buffers read along their rows are bound as vec4s
# A binding's type where a kernel reads a texture copy of the buffer (Written.textures): a texel of
# 4 adjacent values, or (SCALARS) of one value.
TEXTURE, SCALARS = "texture_storage_2d<rgba32float, read>", "texture_storage_2d<r32float, read>"
COPY_BYTES = 256  # a texture copy's rows are a multiple of 256 bytes


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


def texture_width(row: int, count: int, limit: int, texel: int = VEC) -> int | None:
    """Texels per row of a texture holding `count` texels of `texel` f32 values, `row` a row of its
    buffer (0: rows that are not whole texels): `row` where a copy takes such rows (whole multiples
    of COPY_BYTES), else the widest multiple of that that divides `count`; None where neither fits
    in `limit` texels a side."""
    step = COPY_BYTES // (4 * texel)
    if row and row % step == 0 and row <= limit and count // row <= limit:
        return row
    for width in range(min(limit, count) // step * step, 0, -step):
        if count % width == 0 and count // width <= limit:
            return width
    return None


def _factor(n: int | str) -> str:
    """A count (an int, or a WGSL i32 of symbols) as a u32 operand of `/` or `%`."""
    return f"{n}u" if isinstance(n, int) else f"u32({n})"


_DEFINED = re.compile(r"\b(?:let|var)\s+(\w+)")  # a name a line of WGSL defines
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


class _Nested(Exception):
    """A fold asked for while a fold joins an earlier loop (KernelWriter._join)."""


@dataclass
class _Loop:
    """A strided fold loop in a kernel's lines: where it starts (its `for`) and where its body
    ends (its closing brace), the scope of the block it is written in (held, so that no later
    block's scope takes its id, which keys the loop) and its body's, its body's depth, and each
    accumulator's place of the stride."""

    start: int
    end: int
    block: dict[tuple, str]
    scope: dict[tuple, str]
    depth: int
    ats: list[str]

    def shift(self, at: int, by: int) -> None:
        """Move past lines inserted at line `at`."""
        self.start += by if self.start >= at else 0
        self.end += by if self.end >= at else 0


def _literal_int(count: int | str) -> int | None:
    """A loop count as an int where it is one (an int, or a WGSL i32 literal such as "7i")."""
    if isinstance(count, int):
        return count
    return int(count[:-1]) if count.endswith("i") and count[:-1].isdigit() else None


class KernelWriter:
    """Writes the body of one kernel: `let` bindings, loops and loads.

    `sources` maps each node read from a buffer to its binding's variable
    name; every other node reached is computed inline. Sizes that are
    symbols (fg.dim) are read from the uniform `dims` wherever index
    arithmetic, loop counts or guards need them (`size`, `extent`).
    """

    def __init__(self, graph: Graph, sources: dict[int, str], cooperative: int = 0, columns: int = 1,
                 subgroups: bool = False):
        self.graph = graph
        self.nodes = graph.nodes
        self.sources = sources
        self.cooperative = cooperative  # the invocations computing each value together (0: one invocation)
        # Values a workgroup computes side by side, `cooperative` invocations each: invocation
        # `lid` is lane `lid / columns` of value `col` (`lid % columns`).
        self.columns = columns
        self.lane = "lid" if columns == 1 else "lane"
        # In a rows kernel, the length of a row each invocation keeps its values of (`held`), else 0.
        self.row = 0
        # Whether `across` may combine 32-bit values with subgroup operations (the adapter has them),
        # and whether it did (the entry point then takes the subgroup builtins).
        self.subgroups = subgroups and columns == 1
        self.subgrouped = False
        self.shared: set[tuple[DType, int]] = set()  # dtypes and slots of the shared scratch the kernel uses
        self.dtypes: set[DType] = set()  # dtypes of the values it computes (f16 asks for `enable f16;`)
        self.block: str | None = None  # in a scan kernel: where the row's current block starts (uniform)
        self.functions: dict[str, str] = {}  # module-scope WGSL functions the kernel calls, by name
        self.sized = False  # whether it reads symbols' values (the module then binds `dims`)
        # The most iterations an invocation's loops run, all together (llvmpipe ends them at
        # LOOP_LIMIT), and the trip counts of the loops open where the writer is.
        self.iterations = 0
        self.open: list[int] = []
        # Bindings whose WGSL element type is not their dtype's storage type (`vec4<f32>`), by name.
        self.elements: dict[str, str] = {}
        # Bindings read from a texture copy of their buffer, by name: the texture's binding (the same
        # name, or, for an output read in place, a binding of its own, `copies`) and its width.
        self.texels: dict[str, tuple[str, int]] = {}
        self.copies: list[str] = []
        self.scalars: dict[str, int] = {}  # bindings read from a texture copy of a value a texel, by name: its width
        # Coordinates that are lane c of a vec4's VEC (its index along the row, c): a binding read
        # at them alone (`vec4<f32>`) loads the whole vec4 once. `scattered`: bindings read elsewhere.
        self.lanes: dict[str, tuple[str, int]] = {}
        self.scattered: set[str] = set()
        self.fetched: set[str] = set()  # bindings read at a lane of a vec4
        # Whether loops along a row step VEC values at a time, each one's place a lane (`quad`), so
        # that a binding read only along rows can be read a texel at a time (a CPU adapter's loops).
        self.fours = False
        self.addressing, self.addressed = False, ""  # see address()
        self.lines: list[str] = []
        self.depth = 1
        self.scopes: list[dict[tuple, str]] = [{}]
        self.count = 0
        # A cooperative kernel's strided fold loops, by (count, stride, block): later folds over the
        # same places join them (`_join`); `merging` while one does.
        self.folding: dict[tuple, _Loop] = {}
        self.merging = False

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
    def loop(self, count: int | Dim | str, start: str = "0i", step: int = 1, most: int | None = None
             ) -> Iterator[str]:
        """`for (r = start; r < count; r += step) { ... }`; values computed inside stay inside.
        `most`: the largest `count` can be, where it is a WGSL expression (a start counts as 0)."""
        r = self.fresh("r")
        bound = self.size(count)
        advance = f"{r}++" if step == 1 else f"{r} += {step}i"
        if most is None:
            most = count.max if isinstance(count, Dim) else _literal_int(count)
        # NOTE: a count that is an expression of symbols' values (an extent) counts one trip
        trips = 1 if most is None else max(1, -(-most // step))
        self.iterations += math.prod(self.open) * trips
        self.open.append(trips)
        try:
            with self.scope(f"for (var {r} = {start}; {r} < {bound}; {advance}) {{"):
                yield r
        finally:
            self.open.pop()

    @contextlib.contextmanager
    def scope(self, header: str) -> Iterator[None]:
        """A block opened by `header` (a loop or an `if`, ending in `{`); values computed inside
        stay inside."""
        self.line(header)
        self.depth += 1
        self.scopes.append(dict(self.scopes[-1]))
        try:
            yield
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
               init: str, dtype: DType, leading: bool = False) -> str:
        """Fold `value_at(r)` for r in [0, count): a loop in one invocation (written out where
        short), or, in a cooperative kernel, strided over the workgroup and combined in shared
        memory. A short fold over leading axes (`leading`: a split product's partial sums, at most
        WRITTEN_OUT values of each element) is each invocation's own in a cooperative kernel too."""
        # NOTE: inside a loop (another fold's, its trip count each invocation's own) a workgroup
        # cannot fold together, its barriers out of uniform control flow: each invocation folds
        # alone (a fold of values gathered at the loop's index, which the top could not compute).
        shared = self.cooperative and not self.open and \
            not (leading and isinstance(count, int) and count <= WRITTEN_OUT)
        if shared:
            value_at("0i")  # computes, here at the top, any reduction the loop body needs (barriers must be uniform)
        if not shared:
            acc = self.var(init, dtype)
            if self.fours and isinstance(count, int) and count % VEC == 0 < count:  # in the order of one loop
                with self.loop(count // VEC) as r4:
                    for r in self.quad(r4):
                        self.line(f"{acc} = {combine(acc, value_at(r))};")
                return acc
            if isinstance(count, int) and 0 < count <= WRITTEN_OUT:
                # Written out, its values' loads are in flight together (a loop waits on each in
                # turn), folded in the loop's order.
                for r in range(count):
                    self.line(f"{acc} = {combine(acc, value_at(f'{r}i'))};")
                return acc
            with self.loop(count) as r:
                self.line(f"{acc} = {combine(acc, value_at(r))};")
            return acc
        if self.merging:  # a fold inside a fold joining an earlier loop (`_join`): it cannot join
            raise _Nested
        # UNROLL accumulators, each folding every UNROLL-th stride of the row: their loads are
        # in flight together, where one accumulator would wait on each load in turn.
        if count == self.row:  # the row's values this invocation holds, each folded in turn
            accs = [self.var(init, dtype) for _ in range(UNROLL)]
            for j, at in enumerate(self.held()):
                self.line(f"{accs[j % UNROLL]} = {combine(accs[j % UNROLL], value_at(at))};")
        else:
            stride = self.cooperative * UNROLL
            ragged = isinstance(count, (Dim, str)) or count % stride != 0
            block = self.scopes[-1]
            key = (self.size(count), stride, id(block))
            accs = self._join(key, init, dtype, value_at, combine, count, ragged)
            if accs is None:
                accs = [self.var(init, dtype) for _ in range(UNROLL)]
                start = len(self.lines)
                with self.loop(count, start=self.lane, step=stride) as r:
                    ats = [self.let(f"{r} + {u * self.cooperative}i") if u else r for u in range(UNROLL)]
                    self._fold_body(accs, ats, value_at, combine, count, ragged)
                    fold = _Loop(start, len(self.lines), block, self.scopes[-1], self.depth, ats)
                self.folding[key] = fold
        while len(accs) > 1:  # combined pairwise (UNROLL is a power of two)
            accs = [combine(a, b) for a, b in zip(accs[::2], accs[1::2])]
        return self.across(self.let(accs[0]), combine, dtype)

    def _fold_body(self, accs: list[str], ats: list[str], value_at: Callable[[str], str],
                   combine: Callable[[str, str], str], count: int | Dim | str, ragged: bool) -> None:
        """A strided fold's step: each accumulator folds the value at its place of the stride."""
        for u, (acc, at) in enumerate(zip(accs, ats)):
            if ragged and u:
                with self.scope(f"if ({at} < {self.size(count)}) {{"):
                    self.line(f"{acc} = {combine(acc, value_at(at))};")
            else:
                self.line(f"{acc} = {combine(acc, value_at(at))};")

    def _join(self, key: tuple, init: str, dtype: DType, value_at: Callable[[str], str],
              combine: Callable[[str, str], str], count: int | Dim | str, ragged: bool) -> list[str] | None:
        """Fold in the loop of an earlier fold over the same places, written in the same block
        (sibling roots' sums): the values the loop loaded are found again, and the loads of both
        are in flight together, where a loop of its own would load them after the first loop's.
        Returns the accumulators, declared before that loop; None where there is no such loop
        or the fold's values need a fold of their own (which runs before it, in uniform control)."""
        fold = self.folding.get(key)
        if fold is None:
            return None
        saved = self.lines, self.scopes, self.depth, self.count
        scope = dict(fold.scope)  # (kept only where the fold joins)
        self.merging = True
        try:
            self.lines, self.depth = [], fold.depth - 1
            accs = [self.var(init, dtype) for _ in range(UNROLL)]
            declared = self.lines
            self.lines, self.scopes, self.depth = [], [scope], fold.depth
            self._fold_body(accs, fold.ats, value_at, combine, count, ragged)
            body = self.lines
        except _Nested:
            self.lines, self.scopes, self.depth, self.count = saved
            return None
        finally:
            self.merging = False
        self.lines, self.scopes, self.depth = saved[:3]
        # A value named after the loop (a fold's result the rule read first: a softmax's max) is
        # not there yet where the loop runs.
        later = {m for line in self.lines[fold.end:] for m in _DEFINED.findall(line)}
        if later & {m for line in body for m in _NAME.findall(line)}:
            self.count = saved[3]
            return None
        fold.scope.update(scope)
        for at, lines in ((fold.end, body), (fold.start, declared)):  # the step's lines, then the declarations
            self.lines[at:at] = lines
            for loop in self.folding.values():
                loop.shift(at, len(lines))
        return accs

    def quad(self, four: str) -> list[str]:
        """The VEC places along a row that its vec4 `four` holds, each the lane of it (`lanes`)."""
        first = self.let(f"{four} * {VEC}i")
        at = [first, *(self.let(f"{first} + {c}i") for c in range(1, VEC))]
        self.lanes.update({e: (four, c) for c, e in enumerate(at)})
        return at

    def held(self) -> list[str]:
        """Where along a row (of `row` values) the values this invocation holds are: the same
        names each time, so that what is computed at them once (a load, a product) is found
        again by every fold of the row and by its store."""
        return [self.once(("held", j), lambda j=j: f"lid + {j * self.cooperative}i")
                for j in range(self.row // self.cooperative)]

    def across(self, value: str, combine: Callable[[str, str], str], dtype: DType) -> str:
        """Combine the `value` of every invocation computing one value, halving in shared memory;
        each invocation gets the result."""
        load, store = self.scratch(dtype)
        if self.subgroups and dtype in SHUFFLED:
            return self._across_subgroups(value, combine, dtype, load, store)
        self.line(store("lid", value))
        self.line("workgroupBarrier();")
        half = self.cooperative // 2
        while half:
            self.line(f"if ({self.lane} < {half}i) {{ "
                      f"{store('lid', combine(load('lid'), load(f'lid + {half * self.columns}i')))} }}")
            self.line("workgroupBarrier();")
            half //= 2
        result = self.let(load("0" if self.columns == 1 else "col"))
        self.line("workgroupBarrier();")  # the scratch may be reused by the next reduction
        return result

    def _across_subgroups(self, value: str, combine: Callable[[str, str], str], dtype: DType,
                          load: Callable[[str], str], store: Callable[[str, str], str]) -> str:
        """`across` by subgroup operations: each subgroup combines its invocations' values by
        exchanging them (a butterfly, the same order in every subgroup), its first invocation
        stores the result, and every invocation combines the subgroups' in order: one barrier,
        where halving in shared memory takes one per halving. Subgroups are taken to be runs of
        `sg_size` consecutive invocations (as Vulkan's drivers lay out a 1-D workgroup)."""
        self.subgrouped = True
        width = self.cooperative
        t = self.var(value, dtype)
        with self.scope(f"for (var m = 1u; m < min(sg_size, {width}u); m = m << 1u) {{"):
            self.line(f"{t} = {combine(t, self.let(f'subgroupShuffleXor({t}, m)'))};")
        self.line(f"if (sg_id == 0u) {{ {store('lid / i32(sg_size)', t)} }}")
        self.line("workgroupBarrier();")
        total = self.var(load("0"), dtype)
        with self.scope(f"for (var q = 1i; q < {width}i / min(i32(sg_size), {width}i); q++) {{"):
            self.line(f"{total} = {combine(total, self.let(load('q')))};")
        result = self.let(total)
        self.line("workgroupBarrier();")  # the scratch may be reused by the next reduction
        return result

    def scratch(self, dtype: DType, slot: int = 0) -> tuple[Callable[[str], str], Callable[[str, str], str]]:
        """`load(k)` and `store(k, value)`: WGSL reading and writing entry k of the workgroup's
        shared scratch of `dtype` (the `slot`-th one, where a fold needs several)."""
        # NOTE: bools are shared as u32, as in storage: a bool array in workgroup memory
        # lost values on an NVIDIA Vulkan driver.
        scratch = f"shared_{dtype.row.storage}" + (f"_{slot}" if slot else "")
        self.shared.add((dtype, slot))

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
        together = self.cooperative and not self.open  # (see reduce)
        start = self.lane if together else "0i"
        if together:
            value_at("0i")  # computes, here at the top, any reduction the loop body needs (barriers must be uniform)
        best, at = self.var(init, dtype), self.var(start, DType.i32)
        with self.loop(count, start=start, step=self.cooperative if together else 1) as r:
            v = value_at(r)
            self.line(f"if ({beats(v, best)}) {{ {best} = {v}; {at} = {r}; }}")
        if not together:
            return at
        top = self.across(best, lambda a, b: f"select({a}, {b}, {beats(b, a)})", dtype)
        # An invocation that folded nothing holds `init` at an index past the end: it loses ties.
        held = f"select({self.size(count)}, {at}, !({beats(top, best)}))"
        return self.across(held, lambda a, b: f"min({a}, {b})", DType.i32)

    def scan(self, count: int | Dim, value_at: Callable[[str], Folded], combine: Callable[[Folded, Folded], Folded],
             init: Folded, dtype: DType, at: str, reverse: bool) -> Folded:
        """Fold `value_at(r)` over r in [0, at], in order (over [at, count) from the end where
        `reverse`): a loop in one invocation, or, in a scan kernel, the workgroup's block of
        the row scanned together in shared memory (Hillis-Steele; `at` is this invocation's
        place in the block, lanes in the order of the scan), its first value joined to the
        total of the blocks before, which the block's last invocation held. The values may be
        tuples of WGSL values of `dtype` (as `init` is: a linear recurrence folds (a, b)
        pairs), which `combine` folds as tuples, each part in a scratch of its own."""
        single = isinstance(init, str)

        def parts(v: Folded) -> tuple[str, ...]:
            return (v,) if single else tuple(v)

        def fold(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
            return parts(combine(a[0], b[0]) if single else combine(a, b))

        def result(v: tuple[str, ...]) -> Folded:
            return v[0] if single else v

        if not self.cooperative:
            acc = tuple(self.var(v, dtype) for v in parts(init))
            most = count.max if isinstance(count, Dim) else count
            with self.loop(f"{self.size(count)} - {at}" if reverse else f"{at} + 1i", most=most) as r:
                new = fold(acc, parts(value_at(self.let(f'{self.last(count)} - {r}') if reverse else r)))
                new = new if single else tuple(self.let(v) for v in new)  # every part from the old ones
                self.line(" ".join(f"{a} = {v};" for a, v in zip(acc, new)))
            return result(acc)
        assert self.block is not None, "a cooperative scan runs in the scan skeleton"
        scratches = [self.scratch(dtype, slot) for slot in range(len(parts(init)))]
        before = tuple(self.let(load(f"{self.cooperative - 1}i")) for load, _ in scratches)
        self.line("workgroupBarrier();")
        v = parts(value_at(at))
        for (_, store), vk, joined in zip(scratches, v, fold(before, v)):
            self.line(store("lid", f"select({vk}, {joined}, lid == 0i && {self.block} > 0i)"))
        self.line("workgroupBarrier();")
        step = 1
        while step < self.cooperative:
            here = tuple(load("lid") for load, _ in scratches)
            new = fold(tuple(load(f"max(lid - {step}i, 0i)") for load, _ in scratches), here)
            t = [self.let(f"select({h}, {n}, lid >= {step}i)") for h, n in zip(here, new)]
            self.line("workgroupBarrier();")
            for (_, store), tk in zip(scratches, t):
                self.line(store("lid", tk))
            self.line("workgroupBarrier();")
            step *= 2
        return result(tuple(self.let(load("lid")) for load, _ in scratches))

    # -- values --------------------------------------------------------------

    def value(self, i: int, coords: Sequence[str]) -> str:
        """The value of node `i` at `coords` (one WGSL i32 expression per axis)."""
        coords = tuple(coords)
        key = (i, coords)
        known = None if self.addressing else self.recall(key)
        if known is not None:
            return known
        node = self.nodes[i]
        self.dtypes.add(node.spec.dtype)
        if i in self.sources and self.addressing:
            self.addressed = self.sources[i]
            self.scattered.add(self.addressed)
            expr = self.ravel(coords, node.spec.shape)
        elif i in self.sources:
            source = self.sources[i]
            lane = self.lanes.get(coords[-1]) if coords and not any(c in self.lanes for c in coords[:-1]) else None
            (self.scattered if lane is None else self.fetched).add(source)
            if source in self.scalars:
                expr = self.scalar(source, coords, node.spec.shape)
            elif source in self.elements or source in self.texels:
                bound = self.elements.get(source, TEXTURE)
                assert lane is not None, f"{source}, bound as {bound}, is read across lanes"
                row, shape = list(coords[:-1]), node.spec.shape
                at = self.ravel([*row, lane[0]], (*shape[:-1], shape[-1] // VEC))
                four = self.once(("vec4", source, at), lambda: self.texel(source, row, lane[0], shape) if
                                 source in self.texels else f"{source}[{at}]")
                expr = f"{four}.{'xyzw'[lane[1]]}"
            else:
                expr = loaded(f"{source}[{self.ravel(coords, node.spec.shape)}]", node.spec.dtype)
        else:
            lowering = lowerings[node.op]
            if isinstance(lowering.wgsl, str):
                expr = lowering.wgsl.format(*(self.value(j, coords) for j in node.inputs))
            else:
                expr = lowering.wgsl(self, i, coords)
            if lowering.kind.works and not PRIMITIVES[node.op].bits:  # a bit cast's result is exact
                expr = self.narrowed(expr, node.spec.dtype)
        name = self.let(expr)
        self.scopes[-1][key] = name
        return name

    def narrowed(self, expr: str, dtype: DType) -> str:
        """`expr`, an op's result computed in the WGSL type holding `dtype`'s values, brought back
        to a value of `dtype` (an i8 wrapped, a bfloat16 rounded: DTypeRow.narrow)."""
        narrow = dtype.row.narrow
        return expr if narrow is None else narrow.format(self.let(expr))

    def texel(self, source: str, row: Sequence[str], four: str, shape: Sequence[int]) -> str:
        """WGSL loading the vec4 `four` of the row at `row` of the buffer bound as `source`, from
        its texture copy (`texels`)."""
        texture, width = self.texels[source]
        x, y = self.placed([*row, four], (*shape[:-1], shape[-1] // VEC), width)
        return f"textureLoad({texture}, vec2<i32>({x}, {y}))"

    def scalar(self, source: str, coords: Sequence[str], shape: Sequence[int]) -> str:
        """WGSL loading the value at `coords` of the buffer bound as `source` from its texture copy of
        a value a texel (`scalars`)."""
        x, y = self.placed(coords, shape, self.scalars[source])
        return f"textureLoad({source}, vec2<i32>({x}, {y})).x"

    def placed(self, coords: Sequence[str], shape: Sequence[int], width: int) -> tuple[str, str]:
        """The column and row of the texel at `coords` of `shape` (a buffer's texels) in a texture
        holding them in order, `width` a row: the buffer's own rows where they are the texture's."""
        if shape and width == shape[-1]:
            return coords[-1], self.ravel(coords[:-1], shape[:-1])
        t = self.let(self.ravel(coords, shape))
        return self.let(f"{t} % {width}i"), self.let(f"{t} / {width}i")

    def address(self, i: int, coords: Sequence[str]) -> tuple[str, str]:
        """The binding, and the index in it, of node i's element at `coords`, where i is a buffer
        or a view moving one's elements (a reshape, a transpose, a broadcast): the views' index
        arithmetic without the load."""
        self.addressing = True  # a buffer's value is its index here, forgotten after
        self.scopes.append({})
        try:
            index = self.value(i, coords)
        finally:
            self.scopes.pop()
            self.addressing = False
        return self.addressed, index

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

    def clamped(self, index: str, n: int | Dim) -> str:
        """`index` (a WGSL i32) clamped into an axis of size `n`. Along an empty axis, 0: the one
        word of an empty value's buffer, read where the reader discards it (naga refuses a clamp
        whose bounds cross)."""
        return "0i" if n == 0 else self.let(f"clamp({index}, 0i, {self.last(n)})")

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
        that values computed at them are found again through reshapes). The index is never
        negative (kernels clamp coordinates before they read at them), so its digits are taken
        in u32, where a division or remainder by a power of two is a shift or a mask, not i32's
        rounding toward zero: on an H200 the gpt step went 250.5 -> 253.4 steps/s, its products
        reading operands through views in their loops."""
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
            if stride == 1 and outermost:
                out.append(linear)
            else:
                q = f"u32({linear})" if stride == 1 else f"u32({linear}) / {_factor(stride)}"
                size = _factor(d if isinstance(d, int) else self.size(d))
                out.append(self.let(f"i32({q})" if outermost else f"i32({q} % {size})"))
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
    outputs, each an array of its dtype's storage type, or of the type `w.elements` gives it;
    then the texture copies of outputs read in place, `w.copies`; then the symbols' values),
    shared memory, entry point."""
    roots = (roots,) if isinstance(roots, int) else tuple(roots)
    made = " ".join(str(graph.nodes[r].spec) for r in roots)
    header = " ".join([made, "<-"] + [str(graph.nodes[j].spec) for j in reads]) if reads else made
    dtypes = w.dtypes | {t for t, _ in w.shared} | {graph.nodes[j].spec.dtype for j in (*reads, *roots)}
    enables = [f"enable {e};" for e in sorted({d.row.extension for d in dtypes} - {None})]
    names = [*(f"b{k}" for k in range(len(reads))), *(output_name(k, len(roots)) for k in range(len(roots))),
             *w.copies]
    elements = [w.elements.get(n, graph.nodes[j].spec.dtype.row.storage) for n, j in zip(names, (*reads, *roots))]
    elements += [TEXTURE] * len(w.copies)
    decls = [f"@group(0) @binding({k}) var {n}: {e};" if e in (TEXTURE, SCALARS) else
             f"@group(0) @binding({k}) var<storage, {'read' if k < len(reads) else 'read_write'}> {n}: array<{e}>;"
             for k, (n, e) in enumerate(zip(names, elements))]
    # The symbols' values, one i32 each, in the program's order (Program.symbols); a member's name
    # is prefixed, as a symbol may be named like a WGSL keyword (`loop`, `fn`).
    if w.sized:
        decls += [f"struct Dims {{ {', '.join(f'size_{d.name}: i32' for d in graph.symbols)} }}",
                  f"@group(0) @binding({len(names)}) var<uniform> dims: Dims;"]
    decls += sorted({f"var<workgroup> shared_{t.row.storage}{f'_{slot}' if slot else ''}: array<{t.row.storage}, "
                     f"{workgroup}>;" for t, slot in w.shared})
    decls += list(shared)
    decls += list(w.functions.values())
    return "\n".join([
        f"// fgrad: {name} {header}",
        *enables,
        *decls,
        "",
        f"@compute @workgroup_size({workgroup})",
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,",
        "        @builtin(workgroup_id) group: vec3<u32>" + (
            ",\n        @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_invocation_id) sg_id: u32) {"
            if w.subgrouped else ") {"),
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
    textures: tuple[tuple[int, int, int, int, int], ...] = ()  # see Kernel.textures
    iterations: int = 0  # the most loop iterations an invocation runs, all its loops counted (see LOOP_LIMIT)

    @classmethod
    def of(cls, w: KernelWriter, wgsl: str, grid: tuple[int, int, int], groups: tuple[Extent, ...] = (),
           textures: tuple[tuple[int, int, int, int, int], ...] = ()) -> Written:
        """The kernel `w` wrote, with what the writer knows of it: whether it reads the symbols'
        values, and how many iterations its loops run."""
        return cls(wgsl, grid, groups, w.sized, textures, w.iterations)


def store(node: Node, index: str, value: str, out: str = "out") -> str:
    return f"{out}[{index}] = {stored(value, node.spec.dtype)};"


def grid(groups: int, max_per_dimension: int) -> tuple[int, int, int]:
    """Workgroup counts (x, y, 1) covering `groups`, in 2-D past the per-dimension limit."""
    x = min(groups, max_per_dimension)
    return x, math.ceil(groups / x), 1


def invocation(name: str, across: int, bound: str | None = None) -> list[str]:
    """Prelude lines binding `name` to the invocation's index in a grid `across` invocations wide
    (wrapping into y past the per-dimension limit: `grid`), returning where it reaches `bound`."""
    lines = [f"let {name} = i32(gid.x + gid.y * {across}u);"]
    return lines + ([f"if ({name} >= {bound}) {{", "    return;", "}"] if bound is not None else [])


def elementwise_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                       max_groups: int, vectors: bool = False, streams: bool = True, texels: int = 0) -> Written:
    """One invocation per output element, or, where it `streams` (a GPU), for outputs of
    STREAMING elements or more, PER a quarter of the output apart (so that each of the
    invocation's loads and stores is coalesced with its neighbours'): on an H100, four elements
    an invocation stream at twice the bandwidth of one, while smaller outputs (a column sum's
    partial sums, each a loop) need every invocation they can have. Several roots of one count
    of elements (their shapes alike, or `(n,)` and `(n, 1)`) are all computed before any is
    stored (an output may overwrite a donated input that another reads). With `vectors` (nothing
    folds), an invocation per VEC elements along rows of a multiple of VEC, where that binds a
    buffer as vec4s or reads it from a texture copy (of at most `texels` a side, 0 for none:
    `lanes_kernel`). Where it does not stream (a CPU adapter) and values fold, its loops along
    rows step VEC values at a time, and the buffers read only along rows are read from texture
    copies (`_textured`)."""
    node = graph.nodes[roots[0]]
    shape = node.spec.shape
    if vectors and not node.spec.symbols and shape and shape[-1] % VEC == 0 < shape[-1]:
        # Written once to learn which bindings are read along the rows alone, then with those as vec4s.
        specs: dict[str, list[Spec]] = {}  # of the values each binding holds
        for j, n in sources.items():
            specs.setdefault(n, []).append(graph.nodes[j].spec)
        for k, r in enumerate(roots):
            specs.setdefault(output_name(k, len(roots)), []).append(graph.nodes[r].spec)
        _, scattered = lanes_kernel(name, graph, roots, reads, sources, max_groups, set())
        chosen = {n for n, held in specs.items() if n not in scattered and all(  # (a vec4 binding holds 16 bytes)
            s.dtype is DType.f32 and s.max_size > 0 and isinstance(s.shape[-1], int) and s.shape[-1] % VEC == 0
            for s in held)}
        if chosen:
            return lanes_kernel(name, graph, roots, reads, sources, max_groups, chosen,
                                _copyable(graph, sources, chosen, texels))[0]
    per = PER if streams and node.spec.max_size >= STREAMING else 1
    g = grid(math.ceil(node.spec.max_size / (per * WORKGROUP)), max_groups)
    groups = (Extent.of(node.spec.shape, per * WORKGROUP),) if node.spec.symbols else ()

    def write(copied: dict[str, int], scalars: dict[str, int]) -> tuple[Written, KernelWriter]:
        w = KernelWriter(graph, sources)
        w.fours = not streams
        textures = _bind_textures(w, reads, roots, copied, scalars)
        size = w.size(w.extent(node.spec.shape))

        def element(i: str) -> None:
            values = [w.value(r, at) for r, at in zip(roots, _coordinates(w, roots, i))]
            for k, (r, v) in enumerate(zip(roots, values)):
                w.line(store(graph.nodes[r], i, v, output_name(k, len(roots))))

        if per == 1:
            prelude = invocation("i", g[0] * WORKGROUP, size)
            element("i")
        else:
            prelude = invocation("first", g[0] * WORKGROUP)
            span = f"{-(-node.spec.max_size // per)}i" if not node.spec.symbols else \
                w.let(f"({size} + {per - 1}i) / {per}i")
            w.line(f"if (first >= {span}) {{ return; }}")  # an element is one invocation's alone
            with w.loop(per) as u:
                i = w.let(f"first + {u} * {span}")
                with w.scope(f"if ({i} < {size}) {{"):
                    element(i)
        return Written.of(w, module(name, graph, roots, reads, WORKGROUP, prelude, w, []), g, groups,
                          textures), w

    return write({}, {})[0] if streams else _textured(graph, sources, reads, texels, write)


def loop_kernel(name: str, graph: Graph, full: tuple[int, ...], inits: Sequence[int], starts: Sequence[str | None],
                news: Sequence[int], sliced: Sequence[int], predicate: int | None, reads: Sequence[int],
                sources: dict[int, str], hoisted: Sequence[int], length: int, reverse: bool,
                max_groups: int) -> Written:
    """A scan of `length` iterations (from the last where `reverse`) of an elementwise body
    `graph`, run whole by each invocation on its element of `full`, the largest shape of its
    carries and slices, the carries held in registers (fgrad/lower/loops.py). Carry k enters the
    body at input node `inits[k]` and leaves it at node `news[k]`, and is written to output k; its
    initial value is `starts[k]` (WGSL: a constant's), or read from its binding in `sources`, or,
    where it has none, from output k itself (which holds it: each invocation reads and writes only
    its own element there). The nodes of `news` past the carries are the ys: each iteration
    writes its slice of output k. The nodes `sliced` are the iterations' slices of the xs, read
    from their bindings in `sources`. A value of a smaller shape (it broadcasts into `full`) is
    computed alike by every invocation at its elements, and stored by the first of them.
    `hoisted`: loop-invariant values the body reads, computed once, before the loop. With a
    `predicate` (a bool node of shape ()), an iteration runs only while it holds (a while loop
    of at most `length` iterations)."""
    size = math.prod(full)
    g = grid(math.ceil(size / WORKGROUP), max_groups)
    w = KernelWriter(graph, sources)
    coords = w.unravel("i", full) if full else []

    def at(shape: tuple[int, ...]) -> list[str]:  # NumPy's broadcasting, as broadcast_to reads its operand
        lead = len(full) - len(shape)
        return [coords[lead + d] if n != 1 else "0i" for d, n in enumerate(shape)]

    def put(k: int, r: int, value: str, step: str | None = None) -> None:
        """Store `value` of node r into output k (at its slice `step` of a y), by the first
        invocation computing it."""
        shape = graph.nodes[r].spec.shape
        index = w.ravel(at(shape), shape)
        line = store(graph.nodes[r], index if step is None else f"{step} * {math.prod(shape)}i + {index}", value,
                     output_name(k, len(news)))
        lead = len(full) - len(shape)
        stretched = [c for d, c in enumerate(coords) if c != "0i" and (d < lead or shape[d - lead] == 1)]
        w.line(f"if ({' && '.join(f'{x} == 0i' for x in stretched)}) {{ {line} }}" if stretched else line)

    carries = []
    for k, j in enumerate(inits):
        spec = graph.nodes[j].spec
        c = at(spec.shape)
        first = starts[k] or (w.value(j, c) if j in sources else
                              loaded(f"{output_name(k, len(news))}[{w.ravel(c, spec.shape)}]", spec.dtype))
        carries.append(w.var(first, spec.dtype))
        w.scopes[-1][(j, tuple(c))] = carries[-1]
    for j in hoisted:
        w.value(j, at(graph.nodes[j].spec.shape))
    with w.loop(length) as it:
        step = w.let(f"{length - 1}i - {it}") if reverse else it
        if predicate is not None:
            w.line(f"if (!{w.value(predicate, [])}) {{ break; }}")
        for j in sliced:
            shape = graph.nodes[j].spec.shape
            c = at(shape)
            w.scopes[-1][(j, tuple(c))] = w.let(loaded(
                f"{sources[j]}[{step} * {math.prod(shape)}i + {w.ravel(c, shape)}]", graph.nodes[j].spec.dtype))
        new = [w.value(r, at(graph.nodes[r].spec.shape)) for r in news]
        for k, (r, v) in enumerate(zip(news[len(inits):], new[len(inits):])):
            put(len(inits) + k, r, v, step)
        for a, v in zip(carries, new):
            w.line(f"{a} = {v};")
    for k, (r, a) in enumerate(zip(news, carries)):
        put(k, r, a)
    prelude = invocation("i", g[0] * WORKGROUP, f"{size}i")
    return Written.of(w, module(name, graph, news, reads, WORKGROUP, prelude, w, []), g)


def _coordinates(w: KernelWriter, roots: Sequence[int], index: str,
                 known: dict[tuple, list[str]] | None = None) -> list[list[str]]:
    """Each root's coordinates at element `index` of its own shape, for roots of one count of
    elements whose shapes differ or not (`(n,)` and `(n, 1)`), each shape unravelled once (or
    found in `known`)."""
    at = dict(known or {})
    for r in roots:
        if (shape := w.spec(r).shape) not in at:
            at[shape] = w.unravel(index, shape) if shape else []
    return [at[w.spec(r).shape] for r in roots]


def lanes_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                 max_groups: int, vec4: set[str], copied: dict[str, int] | None = None) -> tuple[Written, set[str]]:
    """The elementwise skeleton for roots of a static shape whose rows are a multiple of VEC long
    and that fold nothing: an invocation per VEC adjacent elements, computed lane by lane. The
    bindings named in `vec4` are arrays of vec4<f32>, loaded (or stored) a vec4 at once: a CPU
    adapter loads a storage buffer lane by lane, a vec4 as cheaply as an f32, and a GPU streams
    16-byte loads faster than 4-byte ones. Those of them
    `copied` (name -> the texture's width) are read from a texture copy of their buffer, which
    the adapter loads for all lanes at once (matmul_cpu.py): a read in place of its buffer, an
    output read in place from a binding of its own. Returns the WGSL and the bindings read other
    than along the rows (which stay arrays of their dtype)."""
    node = graph.nodes[roots[0]]
    shape = node.spec.shape
    w = KernelWriter(graph, sources)
    w.elements = dict.fromkeys(sorted(vec4), "vec4<f32>")
    outs = [output_name(k, len(roots)) for k in range(len(roots))]
    textures = _bind_textures(w, reads, roots, copied or {})
    count = node.spec.size // VEC
    g = grid(math.ceil(count / WORKGROUP), max_groups)
    prelude = invocation("q", g[0] * WORKGROUP, f"{count}i")
    *outer, four = w.unravel("q", (*shape[:-1], shape[-1] // VEC))
    places = w.quad(four)  # one set of names for every root, so that what roots share is computed once
    values = [[w.value(r, [*outer, e]) for e in places] for r in roots]
    stores = []
    for k, (r, lanes) in enumerate(zip(roots, values)):
        out = outs[k]
        if out in vec4:
            stores.append(f"{out}[q] = vec4<f32>({', '.join(lanes)});")
        else:
            stores += [store(graph.nodes[r], f"q * {VEC}i + {c}i", v, out) for c, v in enumerate(lanes)]
    return Written.of(w, module(name, graph, roots, reads, WORKGROUP, prelude, w, stores), g, (),
                      textures), w.scattered


def _bind_textures(w: KernelWriter, reads: Sequence[int], roots: Sequence[int], copied: dict[str, int],
                   scalars: dict[str, int] | None = None) -> tuple[tuple[int, int, int, int, int], ...]:
    """Have `w` read the bindings `copied` (name -> the texture's width) from texture copies of
    their buffers, 4 values a texel: a read in place of its buffer's binding, an output read in
    place (a donated operand's buffer) from a binding of its own past the outputs; and the reads
    `scalars` from copies of a value a texel. Returns the kernel's Written.textures."""
    textures = []
    names = [*(f"b{k}" for k in range(len(reads))), *(output_name(k, len(roots)) for k in range(len(roots)))]
    for k, n in enumerate(names):
        spec = next((w.nodes[j].spec for j, m in w.sources.items() if m == n), None)
        if n in (scalars or {}):
            w.elements[n], w.scalars[n] = SCALARS, scalars[n]
            textures.append((k, k, scalars[n], spec.size // scalars[n], 1))
        if n not in copied:
            continue
        if k < len(reads):
            w.elements[n], w.texels[n] = TEXTURE, (n, copied[n])
            binding = k
        else:
            w.texels[n] = (f"copy_{n}", copied[n])
            w.copies.append(f"copy_{n}")
            binding = len(names) + len(w.copies) - 1
        textures.append((binding, k, copied[n], spec.size // VEC // copied[n], VEC))
    return tuple(textures)


def _textured(graph: Graph, sources: dict[int, str], reads: Sequence[int], texels: int,
              write: Callable[[dict[str, int], dict[str, int]], tuple[Written, KernelWriter]]) -> Written:
    """A CPU kernel whose loops along rows step VEC values at a time (KernelWriter.fours), written
    by `write(copied, scalars)` twice: first to learn which bindings it reads only along rows, then
    with those a texture holds (of at most `texels` a side) read from texture copies 4 values a
    texel, and its other f32 reads from copies of a value a texel (`_bind_textures`): a CPU
    adapter loads a texel for all lanes at once, a storage buffer lane by lane."""
    written, w = write({}, {})
    copied = _copyable(graph, sources, w.fetched - w.scattered, texels)
    scalars = _copyable(graph, sources, w.scattered & {f"b{k}" for k in range(len(reads))}, texels, 1)
    return write(copied, scalars)[0] if copied or scalars else written


def _copyable(graph: Graph, sources: dict[int, str], names: set[str], texels: int, texel: int = VEC) -> dict[str, int]:
    """Of the bindings `names`, those read from f32 buffers of fixed shapes whose texels (of `texel`
    values: rows a multiple of it long) a texture of at most `texels` a side holds: name -> the
    texture's width."""
    widths = {}
    for j, n in sources.items():
        spec = graph.nodes[j].spec
        if n in names and spec.dtype is DType.f32 and not spec.symbols and spec.shape and spec.shape[-1] % texel == 0:
            widths[n] = texture_width(spec.shape[-1] // texel, spec.size // texel, texels, texel)
    return {n: width for n, width in sorted(widths.items()) if width}


def window_kernel(name: str, graph: Graph, root: int, reads: Sequence[int], sources: dict[int, str],
                  max_groups: int) -> Written:
    """A window update written in place (its operand's buffer is its output): one invocation per
    element of the update, stored at the window's clamped starts; the rest of the buffer is left
    as it is. The starts are clamped so that the window fits, as dynamic_update_slice's are."""
    node = graph.nodes[root]
    _, update, *starts = node.inputs
    w = KernelWriter(graph, sources)
    shape = graph.nodes[update].spec.shape
    g = grid(math.ceil(max(math.prod(shape), 1) / WORKGROUP), max_groups)
    coords = w.unravel("i", shape) if shape else []
    at = [w.let(f"clamp({w.value(j, [])}, 0i, {n - k}i)") for j, n, k in zip(starts, node.spec.shape, shape)]
    value = w.value(update, coords)
    index = w.ravel([w.let(f"{a} + {c}") for a, c in zip(at, coords)], node.spec.shape) if shape else "0i"
    prelude = invocation("i", g[0] * WORKGROUP, f"{math.prod(shape)}i")
    return Written.of(w, module(name, graph, root, reads, WORKGROUP, prelude, w, [store(node, index, value)]), g)


def cooperative_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                       max_groups: int, span: int, axis: int | None = None, walked: int | None = None,
                       subgroups: bool = False) -> Written:
    """A workgroup per output element (for several roots of one shape, each folded in turn), or
    per row of the root `walked` (the first) along `axis`: a softmax's, or that of roots whose
    row reductions are inside (a layer norm); `span`: the most values one result folds, or the
    row's length. The row's
    reductions are computed once at the top (uniform control flow, as barriers need), then the
    workgroup writes the row of each root of whole rows (rows along their last axis, but the
    walked root's), and its first invocation the value of each root of one value per row."""
    root = roots[0] if walked is None else walked
    node = graph.nodes[root]
    # UNROLL values an invocation: folded at once, and fewer invocations combine their shares in
    # fewer halvings
    width = _width(span, UNROLL)
    w = KernelWriter(graph, sources, cooperative=width, subgroups=subgroups)
    row = node.spec.shape[axis] if axis is not None else 1
    outer = [d for k, d in enumerate(node.spec.shape) if k != axis]
    g, groups, prelude = _workgroups(w, outer, max_groups)
    coords = w.unravel("o", outer) if outer else []
    if axis is None:  # roots of one count of results: of one shape, or a value per row kept or not
        values = [w.value(r, at) for r, at in zip(roots, _coordinates(w, roots, "o", {node.spec.shape: coords}))]
        index = w.ravel(coords, node.spec.shape)
        tail = ["if (lid == 0i) {",
                *("    " + store(graph.nodes[r], index, v, output_name(k, len(roots))) for k, (r, v) in
                  enumerate(zip(roots, values))), "}"]
        return Written.of(w, module(name, graph, roots, reads, width, prelude, w, tail), g, groups)
    if isinstance(row, int) and row % width == 0 and row // width <= HELD:
        w.row = row  # each invocation keeps its values of the row: read once, for every fold and the store
    put, per_row = _rows(w, roots, root, axis, coords)
    if w.row:
        for e in w.held():
            put(e)
    else:
        with w.loop(row, start="lid", step=width) as e:
            put(e)
    tail = ["if (lid == 0i) {", *("    " + line for line in per_row), "}"] if per_row else []
    return Written.of(w, module(name, graph, roots, reads, width, prelude, w, tail), g, groups)


def _rows(w: KernelWriter, roots: Sequence[int], walked: int, axis: int, coords: Sequence[str]
          ) -> tuple[Callable[[str], None], list[str]]:
    """For a kernel walking the rows of root `walked` along `axis` (row `o`, whose other
    coordinates are `coords`), with the row's reductions computed here, at the top: `put(e)`,
    writing the row's element e of each root of whole rows (the others' rows are along their last
    axis), every root's value computed before any is stored (an output may overwrite a donated
    input another reads); and the stores of each root of one value per row, its value computed
    here."""
    spec = w.spec(walked)
    whole: dict[int, Callable[[str], list[str]]] = {}
    for r in roots:
        shape = w.spec(r).shape
        if r == walked:
            whole[r] = lambda e: [*coords[:axis], e, *coords[axis:]]
        elif shape and shape[-1] == spec.shape[axis] and w.spec(r).max_size == spec.max_size:
            lead = w.unravel("o", shape[:-1]) if len(shape) > 1 else []
            whole[r] = lambda e, lead=lead: [*lead, e]
    per_row = [r for r in roots if r not in whole]
    at_row = _coordinates(w, per_row, "o")
    first = w.quad("0i")[0] if w.fours else "0i"  # (in a kernel of fours, a lane: no binding is read across them)
    for r, at in whole.items():  # hoists the row's reductions out of the loop (before folds that use them)
        w.value(r, at(first))
    values = {r: w.value(r, at) for r, at in zip(per_row, at_row)}
    out = [output_name(k, len(roots)) for k in range(len(roots))]

    def put(e: str) -> None:
        found = [(k, r, w.ravel(at(e), w.spec(r).shape), w.value(r, at(e))) for k, r in enumerate(roots)
                 if (at := whole.get(r))]
        for k, r, index, v in found:
            w.line(store(w.nodes[r], index, v, out[k]))

    return put, [store(w.nodes[r], "o", v, out[roots.index(r)]) for r, v in values.items()]


def columns_kernel(name: str, graph: Graph, roots: Sequence[int], reads: Sequence[int], sources: dict[int, str],
                   max_groups: int) -> Written:
    """Roots of one shape that fold values over leading axes (a column sum, its second pass with
    an optimizer's update): a workgroup per COLUMNS adjacent results, each folded by FOLDERS
    invocations together (strided along the fold, combined in shared memory). Adjacent results
    fold adjacent values, so neighbouring invocations read neighbouring memory, and each result
    has FOLDERS invocations' loads in flight where one invocation would wait on each in turn.
    Invocations past the last result fold it again (barriers need them all) and store nothing."""
    node = graph.nodes[roots[0]]
    w = KernelWriter(graph, sources, cooperative=FOLDERS, columns=COLUMNS)
    size = w.size(w.extent(node.spec.shape))
    g = grid(math.ceil(node.spec.max_size / COLUMNS), max_groups)
    last = f"{size} - 1i" if node.spec.symbols else f"{node.spec.size - 1}i"
    prelude = ["let lid = i32(local.x);", f"let col = lid % {COLUMNS}i;", f"let lane = lid / {COLUMNS}i;",
               f"let first = i32(group.x + group.y * {g[0]}u) * {COLUMNS}i;",
               # (a whole workgroup past a symbol's results returns: a uniform branch)
               *([f"if (first >= {size}) {{", "    return;", "}"] if node.spec.symbols else []),
               "let at = first + col;", f"let i = min(at, {last});"]
    coords = w.unravel("i", node.spec.shape) if node.spec.shape else []
    values = [w.value(r, coords) for r in roots]
    tail = [f"if (lane == 0i && at < {size}) {{",
            *("    " + store(graph.nodes[r], "i", v, output_name(k, len(roots))) for k, (r, v) in
              enumerate(zip(roots, values))), "}"]
    groups = (Extent.of(node.spec.shape, COLUMNS),) if node.spec.symbols else ()
    return Written.of(w, module(name, graph, roots, reads, COLUMNS * FOLDERS, prelude, w, tail), g, groups)


def row_kernel(name: str, graph: Graph, roots: Sequence[int], walked: int, reads: Sequence[int],
               sources: dict[int, str], max_groups: int, axis: int, texels: int = 0) -> Written:
    """On a CPU adapter, the rows of root `walked` along `axis` (a softmax's, a layer norm's), with
    the group's other roots of whole rows or of one value per row (`_rows`), in place of the
    cooperative skeleton: an invocation per row, its reductions loops of its own, computed once
    at the top, then the rows written. A CPU adapter runs a workgroup's invocations in the lanes
    of one thread, and a barrier as a switch between coroutines: here there are none, and
    ROW_LANES rows run side by side. Loops step VEC values along a row at a time, and the
    buffers read only along rows are read a texel at a time from texture copies (`_textured`)."""
    node = graph.nodes[walked]
    outer = [d for k, d in enumerate(node.spec.shape) if k != axis]
    n = node.spec.shape[axis]
    g = grid(math.ceil(math.prod(at_max(outer)) / ROW_LANES), max_groups)
    groups = (Extent.of(outer, ROW_LANES),) if any(isinstance(d, Dim) for d in outer) else ()

    def write(copied: dict[str, int], scalars: dict[str, int]) -> tuple[Written, KernelWriter]:
        w = KernelWriter(graph, sources)
        w.fours = True
        textures = _bind_textures(w, reads, roots, copied, scalars)
        prelude = invocation("o", g[0] * ROW_LANES, w.size(w.extent(outer)))
        coords = w.unravel("o", outer) if outer else []
        put, per_row = _rows(w, roots, walked, axis, coords)
        if isinstance(n, int) and n % VEC == 0:
            with w.loop(n // VEC) as e4:
                for e in w.quad(e4):
                    put(e)
        else:
            with w.loop(n) as e:
                put(e)
        return Written.of(w, module(name, graph, roots, reads, ROW_LANES, prelude, w, per_row), g, groups,
                          textures), w

    return _textured(graph, sources, reads, texels, write)


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
    return Written.of(w, module(name, graph, root, reads, width, prelude, w, []), g, groups)


def sort_kernel(name: str, graph: Graph, root: int, reads: Sequence[int], sources: dict[int, str],
                max_groups: int) -> Written:
    """A workgroup per row of a Sort node (per run of a row where the node has a `run`): each
    entry's order key (the node's WGSL rule) and index go to shared memory, a bitonic network
    sorts the pairs, and the indices are stored in order, or the operand's values at them. In
    the network every compare-exchange puts the smaller pair first (the form whose first step
    in each stage compares mirrored entries), so entries past the row's end count as largest
    and never move: none is stored, the row needs no padding."""
    node = graph.nodes[root]
    kind = kind_of(node)
    x, n, run = node.inputs[0], node.spec.shape[-1], kind.run(node)
    span = run or node.spec.max_shape[-1]
    if span > SORT_BLOCK:  # longer rows of fixed sizes were rewritten into runs and merges
        raise CompileError(f"lower: {node.op} of {node.spec}: rows of the symbol {n}, up to {span} entries, are longer "
                           f"than a workgroup sorts ({SORT_BLOCK}); give the axis a maximum up to {SORT_BLOCK}, or a "
                           "fixed size", node.site)
    count2 = 1 << (span - 1).bit_length()  # the network's width: a power of two
    width = min(SORTING, max(32, count2 // 2))
    w = KernelWriter(graph, sources, cooperative=width)
    outer = [*node.spec.shape[:-1], *([-(-n // run)] if run else [])]
    g, groups, prelude = _workgroups(w, outer, max_groups)
    coords = w.unravel("o", outer) if outer else []
    row = coords[:-1] if run else coords
    base = w.let(f"{coords[-1]} * {run}i") if run else None
    count = w.let(f"min({run}i, {n}i - {base})") if run else w.size(n)

    def along(e: str) -> list[str]:  # the row's coordinates of entry e of the workgroup's share
        return [*row, w.let(f"{base} + {e}") if base else e]

    keys, index = "sort_key", "sort_index"
    shared = [f"var<workgroup> {keys}: array<u32, {span}>;", f"var<workgroup> {index}: array<i32, {span}>;"]
    with w.loop(count, start="lid", step=width) as e:
        w.line(f"{keys}[{e}] = {lowerings[node.op].wgsl(w, root, along(e))};")
        w.line(f"{index}[{e}] = {e};")
    w.line("workgroupBarrier();")
    k, j, t = w.fresh("k"), w.fresh("j"), w.fresh("t")
    with w.scope(f"for (var {k} = 2i; {k} <= {count2}i; {k} = {k} * 2i) {{"):
        with w.scope(f"for (var {j} = {k} / 2i; {j} > 0i; {j} = {j} / 2i) {{"):
            with w.scope(f"for (var {t} = lid; {t} < {count2 // 2}i; {t} += {width}i) {{"):
                r = w.let(f"{t} % {j}")
                a = w.let(f"({t} - {r}) * 2i + {r}")
                b = w.let(f"select({a} + {j}, {a} + 2i * ({j} - {r}) - 1i, {j} == {k} / 2i)")
                with w.scope(f"if ({b} < {count}) {{"):
                    ka, kb, ia, ib = (w.let(f"{keys}[{a}]"), w.let(f"{keys}[{b}]"), w.let(f"{index}[{a}]"),
                                      w.let(f"{index}[{b}]"))
                    with w.scope(f"if ({kb} < {ka} || ({kb} == {ka} && {ib} < {ia})) {{"):
                        w.line(f"{keys}[{a}] = {kb}; {keys}[{b}] = {ka}; {index}[{a}] = {ib}; {index}[{b}] = {ia};")
            w.line("workgroupBarrier();")
    reverse = kind.values and node.attrs["descending"]  # sort's descending order: the ascending one reversed
    with w.loop(count, start="lid", step=width) as e:
        r = w.let(f"{index}[{f'{count} - 1i - {e}' if reverse else e}]")
        value = w.value(x, along(r)) if kind.values else (f"{base} + {r}" if base else r)
        w.line(store(node, w.ravel(along(e), node.spec.shape), value))
    return Written.of(w, module(name, graph, root, reads, width, prelude, w, [], shared), g, groups)


def merge_kernel(name: str, graph: Graph, root: int, reads: Sequence[int], sources: dict[int, str],
                 max_groups: int) -> Written:
    """An invocation per result of a merging Sort node (`merge_runs`): the runs of `run`
    indices of its second operand are in order of their entries' keys (the node's WGSL rule
    over the first operand); each pair of runs, A then B, merges into one. The result at place
    k of a merged pair is the smaller of A[i] and B[k - i], where i, the number of A's entries
    among the pair's first k, is found by binary search (merge path); equal keys take A's
    first, so a merge of sorted runs of consecutive indices is stable."""
    node = graph.nodes[root]
    x, perm = node.inputs
    run, n = node.attrs["run"], node.spec.shape[-1]
    w = KernelWriter(graph, sources)
    g = grid(math.ceil(node.spec.max_size / WORKGROUP), max_groups)
    coords = w.unravel("i", node.spec.shape)
    row, p = coords[:-1], coords[-1]
    base = w.let(f"{p} - {p} % {2 * run}i")
    k = w.let(f"{p} - {base}")
    la = w.let(f"min({run}i, {n}i - {base})")
    lb = w.let(f"clamp({n}i - {base} - {run}i, 0i, {run}i)")

    def entry(q: str) -> tuple[str, str]:  # the index at row place q, and its key
        at = w.value(perm, [*row, q])
        return at, w.let(lowerings[node.op].wgsl(w, root, [*row, at]))

    lo, hi = w.var(f"max(0i, {k} - {lb})", DType.i32), w.var(f"min({k}, {la})", DType.i32)
    with w.scope(f"while ({lo} < {hi}) {{"):
        mid = w.let(f"({lo} + {hi}) / 2i")
        (_, ka), (_, kb) = entry(w.let(f"{base} + {mid}")), entry(w.let(f"{base} + {run}i + {k} - {mid} - 1i"))
        w.line(f"if ({ka} <= {kb}) {{ {lo} = {mid} + 1i; }} else {{ {hi} = {mid}; }}")
    j = w.let(f"{k} - {lo}")
    # The candidates, their places clamped into the runs (an exhausted run's is never taken).
    (a, ka) = entry(w.let(f"{base} + min({lo}, {la} - 1i)"))
    (b, kb) = entry(w.let(f"{base} + {run}i + min({j}, {lb} - 1i)"))
    value = f"select({b}, {a}, {lo} < {la} && ({j} >= {lb} || {ka} <= {kb}))"
    prelude = invocation("i", g[0] * WORKGROUP, w.size(w.extent(node.spec.shape)))
    return Written.of(w, module(name, graph, root, reads, WORKGROUP, prelude, w, [store(node, "i", w.let(value))]), g)


def _width(span: int, each: int = 1) -> int:
    """Invocations of a workgroup that handles rows of `span` values, `each` values an invocation:
    a power of two, about the row over `each`, from a warp to COOPERATIVE."""
    return min(COOPERATIVE, max(32, (1 << (span - 1).bit_length()) // each))


def _workgroups(w: KernelWriter, outer: Sequence[int | Dim], max_groups: int
                ) -> tuple[tuple[int, int, int], tuple[Extent, ...], list[str]]:
    """The grid of a workgroup per result (or row), one per element of `outer`, with its groups
    where that follows the symbols (Kernel.groups), and the prelude naming the workgroup's one
    (`o`) and the invocation's place in it (`lid`)."""
    g = grid(math.prod(at_max(outer)), max_groups)
    groups = (Extent.of(outer),) if any(isinstance(d, Dim) for d in outer) else ()
    return g, groups, [f"let o = i32(group.x + group.y * {g[0]}u);", f"if (o >= {w.size(w.extent(outer))}) {{",
                       "    return;", "}", "let lid = i32(local.x);"]
