"""The matmul kernel shaped for CPU adapters (llvmpipe): register tiles, no shared memory, no barriers.

A CPU adapter runs each workgroup on one thread, its invocations side by side in the lanes
of a SIMD vector (8 f32 on a 256-bit unit); a barrier is a switch between coroutines, and
every load from a storage buffer walks the lanes one by one, unless every lane reads the
same address, which is one load. So here a workgroup is one vector of LANES invocations
along n, with no workgroup memory: each invocation sums a tm x tn block of the output in
named scalar accumulators, its tn columns adjacent, over rows the whole workgroup shares.
Each k then costs tm loads of A that every lane makes at one address (m from the workgroup,
k from the loop), tn lane-by-lane loads of B, and tm * tn fused multiply-adds, each over all
lanes; the k loop is unrolled by UNROLL. Operands are read through the writer (transposes,
broadcast batch dims and reshapes in place), f16 widened to f32, and the epilogue is applied
before the one store, as in the tiled kernel of fgrad/lower/matmul.py.

An operand that is an f32 buffer read by nothing else, its rows a multiple of 4 long, is bound
as array<vec4<f32>>: a lane loads a vec4 of B (its adjacent columns) as cheaply as one f32,
summed in vec4 accumulators, and A's rows give 4 steps of k per load. Over a long k, each
BLOCK of steps is summed from zero and then added to a total, so the rounding error grows with
BLOCK + k / BLOCK rather than k.

An f32 operand whose last axis (else its second last) runs through adjacent values of its buffer
4 at a time, every other step of it whole texels, is read from an rgba32float texture the
runtime copies the buffer into before the kernel runs (`Written.textures`), bound as a read-only
storage texture: llvmpipe (Mesa 22) loads from a storage buffer one lane and one component at a
time, through the stack, where it loads a texel for all lanes at once (a storage texture's load
skips a sampled one's mip-level arithmetic). The operand is the buffer or a chain of views of it
whose strides (kinds.Layout) say where each value sits (`strided`): a weight swapped, attention's
heads split from rows or put back side by side, a slice, a broadcast. A texel holds 4 adjacent
values: B's columns (or, swapped, 4 steps of k of one column) and A's steps of k (swapped: 4
rows at one k). The texture's rows are the buffer's where they are a copy's whole 256 bytes,
else the buffer's texels in order, wrapped at a width that divides them. On a 2-core EPYC
(AVX2), 512^3 runs at 16 GFLOP/s from storage textures, 9 from sampled ones, 2.5 from storage
buffers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from fgrad.ir import Dim, DType, Graph
from fgrad.lower.kinds import Factor, Layout, View, kind_of
from fgrad.lower.matmul import ragged, summed, wide
from fgrad.lower.program import Extent
from fgrad.lower.wgsl import TEXTURE, VEC, KernelWriter, Written, module, store, texture_width

LANES = 8  # invocations per workgroup: one vector of a 256-bit SIMD unit's f32 lanes
# Rows and columns per invocation, most work first. On llvmpipe (2-core EPYC), 512^3 runs at
# 24.5 GFLOP/s with 8 x 16, 21.3 with 8 x 8; 16 x 8, 16 x 16 and 8 x 32 were slower.
ROWS, COLUMNS = (8, 4, 2, 1), (16, 8, 4, 2, 1)
UNROLL = 2  # k steps per loop iteration (VEC where A's rows are loaded as vec4s)
BLOCK = 128  # k steps summed apart before they join the total: a long k keeps the error of a short one


def cpu_tile(m: int, n: int, batch: int, parallel: int) -> tuple[int, int]:
    """Rows and columns per invocation: the largest that the matrix fills (rows up to m, a
    workgroup's columns up to n), halved, columns first, while there are fewer than two
    workgroups per core (`parallel`) to share out."""
    tm = next(s for s in ROWS if s <= m or s == 1)
    tn = next(s for s in COLUMNS if LANES * s <= n or s == 1)
    while math.ceil(m / tm) * math.ceil(n / (LANES * tn)) * batch < 2 * parallel and tm * tn > 1:
        if tn >= tm:
            tn //= 2
        else:
            tm //= 2
    return tm, tn


def _vectors(graph: Graph, x: int, inside: Sequence[int], reads: Sequence[int], width: int | Dim) -> bool:
    """Whether operand x can be bound as vec4s loaded along its rows of `width`: an f32 buffer
    (not a view of one, nor empty: a vec4 binding holds 16 bytes at least) that nothing else in
    the kernel reads, its rows a multiple of VEC long."""
    spec = graph.nodes[x].spec
    return (x in reads and spec.dtype is DType.f32 and spec.max_size > 0 and isinstance(width, int)
            and width % VEC == 0 and _read_once(graph, x, inside))


def _read_once(graph: Graph, x: int, inside: Sequence[int]) -> bool:
    """Whether one input of one node of the kernel (`inside`) is node x."""
    return sum(graph.nodes[i].inputs.count(x) for i in inside) == 1


@dataclass(frozen=True)
class _Texels:
    """How a matmul operand is read from a texture holding the texels of the buffer `bound`: the
    texels run along the operand's last axis, or, `swapped`, its second last, whose factors
    (kinds.Layout) are `run`, in texels (the innermost of stride 1); `others` are the other
    axes' factors, strides in texels; `offset` is the first texel. The texture is `width`
    texels wide, `height` high."""

    bound: int
    swapped: bool
    run: tuple[Factor, ...]
    others: tuple[tuple[Factor, ...], ...]
    offset: int
    width: int
    height: int


def _texture(graph: Graph, x: int, inside: Sequence[int], reads: Sequence[int], limit: int) -> _Texels | None:
    """Where matmul operand x can be read from a texture (of at most `limit` texels a side; 0: an
    adapter without textures): x is an f32 buffer of fixed shape, or views of one (`strided`),
    that nothing else in the kernel reads, whose last axis (else its second last) runs through
    adjacent values a multiple of VEC at a time, every other step of it and of the other axes
    whole texels, and a texture holds the buffer's texels (`texture_width`)."""
    found = strided(graph, x, inside, reads)
    spec = graph.nodes[x].spec
    if found is None or spec.ndim < 2 or spec.size == 0 or graph.nodes[found[0]].spec.dtype is not DType.f32:
        return None
    bound, at = found
    size = graph.nodes[bound].spec.size
    runs = [k for k in (spec.ndim - 1, spec.ndim - 2) if at.axes[k] and at.axes[k][-1][1] == 1 and
            at.axes[k][-1][0] % VEC == 0]
    if not runs or size % VEC or at.offset % VEC:
        return None
    axis = runs[0]
    *outer, (inner, _) = at.axes[axis]
    others = [f for k, factors in enumerate(at.axes) if k != axis for f in factors]
    if any(stride % VEC for size_, stride in (*outer, *others) if size_ != 1):
        return None
    last = graph.nodes[bound].spec.shape[-1]
    width = texture_width(last // VEC if last % VEC == 0 else 0, size // VEC, limit)
    if width is None:
        return None

    def texels(factors: Sequence[Factor]) -> tuple[Factor, ...]:
        return tuple((n, 0 if n == 1 else s // VEC) for n, s in factors)

    return _Texels(bound, axis != spec.ndim - 1, (*texels(outer), (inner // VEC, 1)),
                   tuple(texels(factors) for k, factors in enumerate(at.axes) if k != axis), at.offset // VEC,
                   width, size // VEC // width)


def strided(graph: Graph, x: int, inside: Sequence[int], reads: Sequence[int]) -> tuple[int, Layout] | None:
    """The buffer of `reads` that node x is, or a chain of views of that the kernel (`inside`)
    computes inline, each read once, with the Layout of x's elements in it; None where a view
    has no strides (kinds.View.layout) or the shapes are not fixed."""
    chain = []
    while x not in reads:
        node = graph.nodes[x]
        if x not in inside or not isinstance(kind_of(node), View) or len(node.inputs) != 1 or node.spec.symbols:
            return None
        chain.append(x)
        x = node.inputs[0]
    spec = graph.nodes[x].spec
    if spec.symbols or not all(_read_once(graph, j, inside) for j in (x, *chain)):
        return None
    at: Layout | None = Layout.of(spec.shape)
    for j in reversed(chain):
        node = graph.nodes[j]
        at = kind_of(node).layout(node, graph.nodes[node.inputs[0]].spec, at)
        if at is None:
            return None
    return x, at


def _sum(terms: Sequence[str], constant: int) -> str:
    """WGSL adding i32 `terms` and `constant` (`c * 1i` written `c`)."""
    terms = [t.removesuffix(" * 1i") for t in terms] + ([f"{constant}i"] if constant or not terms else [])
    return " + ".join(terms)


def matmul_cpu_kernel(name: str, graph: Graph, root: int, core: int, inside: Sequence[int], reads: Sequence[int],
                      sources: dict[int, str], parallel: int, texels: int = 0) -> Written:
    """The kernel computing `root`, an epilogue of (or) the matmul `core`, on a CPU adapter.
    Where an operand allows (`_texture`, given textures of `texels` a side; else `_vectors`), its
    vec4s are fetched from a texture or loaded from a buffer bound as vec4s: B's columns summed in
    vec4 accumulators, A's rows VEC steps of k at a time."""
    node, mm = graph.nodes[root], graph.nodes[core]
    a, b = mm.inputs
    sa, sb, out = graph.nodes[a].spec.shape, graph.nodes[b].spec.shape, mm.spec.shape
    M, N, K = out[-2], out[-1], sa[-1]
    batch = out[:-2]
    *batch_max, M_max, N_max = mm.spec.max_shape  # the grid covers the symbols' maxima
    tm, tn = cpu_tile(M_max, N_max, math.prod(batch_max), parallel)
    bn = LANES * tn
    grid = (math.ceil(N_max / bn), math.ceil(M_max / tm), math.prod(batch_max))
    groups = (Extent.of([N], bn), Extent.of([M], tm), Extent.of(batch)) if mm.spec.symbols else ()
    w = KernelWriter(graph, sources)
    # Textures: A swapped needs whole texels of an invocation's rows, B not swapped of its columns.
    tex_a = _texture(graph, a, inside, reads, texels)
    tex_a = tex_a if tex_a and (not tex_a.swapped or tm % VEC == 0) else None
    tex_b = _texture(graph, b, inside, reads, texels)
    tex_b = tex_b if tex_b and (tex_b.swapped or tn % VEC == 0) else None
    vec_a = not tex_a and _vectors(graph, a, inside, reads, K)
    vec_b = not tex_b and tn % VEC == 0 and _vectors(graph, b, inside, reads, N)
    textures = []
    for x, vec in ((a, vec_a), (b, vec_b)):
        if vec:
            w.elements[sources[x]] = "vec4<f32>"
    for found in (tex_a, tex_b):
        if found:
            w.elements[sources[found.bound]] = TEXTURE
            n = reads.index(found.bound)
            textures.append((n, n, found.width, found.height, VEC))
    a_fours = vec_a or (tex_a is not None and not tex_a.swapped)  # one load gives VEC steps of k of a row of A
    b_fours = tex_b is not None and tex_b.swapped  # one fetch gives VEC steps of k of a column of B
    vec_acc = tn % VEC == 0 and (vec_b or tex_b is not None)  # B's columns summed as vec4s
    unroll = VEC if a_fours or b_fours else UNROLL
    prelude = ["let lid = i32(local.x);", f"let m0 = i32(group.y) * {tm}i;",
               f"let n0 = (i32(group.x) * {LANES}i + lid) * {tn}i;"]
    bc = w.unravel("i32(group.z)", batch) if batch else []
    ba = [c if d != 1 else "0i" for c, d in zip(bc, sa[:-2])]
    bb = [c if d != 1 else "0i" for c, d in zip(bc, sb[:-2])]
    rows = [w.let(f"m0 + {i}i") for i in range(tm)]
    cols = [w.let(f"n0 + {j}i") for j in range(tn)]
    # Loads read in range: rows and columns past the end repeat the last, and are never stored.
    at_rows = [w.let(f"min({r}, {w.last(M)})") for r in rows] if ragged(M, tm) else rows
    fetched_cols = vec_b or (tex_b is not None and not tex_b.swapped)  # B's columns in vec4s, whole in a row of N
    if fetched_cols:  # the invocation's vec4s of columns (N a multiple of VEC: a clamped one stays whole)
        fours = [w.let(f"n0 / {VEC}i + {q}i") for q in range(tn // VEC)]
        at_cols = [w.let(f"min({c}, {N // VEC - 1}i)") for c in fours] if ragged(N, bn) else fours
    else:
        at_cols = [w.let(f"min({c}, {w.last(N)})") for c in cols] if ragged(N, bn) else cols
    zero = "vec4<f32>()" if vec_acc else "0.0f"
    width = tn // VEC if vec_acc else tn
    accs = [[f"acc_{i}_{j}" for j in range(width)] for i in range(tm)]
    blocked = K > BLOCK if isinstance(K, int) else K.max > BLOCK
    totals = [[f"total_{i}_{j}" for j in range(width)] for i in range(tm)] if blocked else accs
    for row in (*accs, *(totals if blocked else [])):
        for acc in row:
            w.line(f"var {acc} = {zero};")

    def four(x: int, found: _Texels | None, texel: str, row: Sequence[str]) -> str:
        """The vec4 `texel` of operand x's row at coordinates `row`: from its texture (`found`), else
        from its buffer bound as vec4s."""
        if found is None:
            shape = graph.nodes[x].spec.shape
            return w.let(f"{sources[x]}[{w.ravel([*row, texel], (*shape[:-1], shape[-1] // VEC))}]")
        return fetch(found, texel, row)

    def fetch(found: _Texels, texel: str, others: Sequence[str]) -> str:
        """Texel `texel` of the run of the operand's texels at coordinates `others` (along its
        other axes), from its texture (`_texture`): texel t of the buffer at column t % width,
        row t / width. Where the run, with the factors that do not step whole rows of the
        texture, keeps within a row, the column and the row are summed apart."""
        terms = []  # (a coordinate's digit, its stride in texels)
        for c, factors in zip((texel, *others), (found.run, *found.others)):
            digits = w.unravel(c, [n for n, _ in factors]) if len(factors) > 1 else [c] * len(factors)
            terms += [(d, s) for d, (_, s) in zip(digits, factors) if s and d != "0i"]
        width, offset = found.width, found.offset
        reach = offset % width + sum((n - 1) * s for factors in (found.run, *found.others) for n, s in factors
                                     if s % width)
        if reach < width:
            x = _sum([f"{d} * {s}i" for d, s in terms if s % width], offset % width)
            y = _sum([f"{d} * {s // width}i" for d, s in terms if s % width == 0], offset // width)
        else:
            t = w.let(_sum([f"{d} * {s}i" for d, s in terms], offset))
            x, y = w.let(f"{t} % {width}i"), w.let(f"{t} / {width}i")
        return w.let(f"textureLoad({sources[found.bound]}, vec2<i32>({x}, {y}))")

    def a_values(ks: list[str]) -> list[list[str]]:
        """A's values at the steps `ks` of k (the first a multiple of VEC where A gives VEC at once), per row."""
        if tex_a and tex_a.swapped:  # 4 rows of one k a texel
            texels = [[fetch(tex_a, f"m0 / {VEC}i + {g}i", [*ba, k]) for g in range(tm // VEC)] for k in ks]
            return [[f"{t[i // VEC]}.{'xyzw'[i % VEC]}" for i in range(tm)] for t in texels]
        if a_fours:
            k4 = w.let(f"{ks[0]} / {VEC}i")
            fours_ = [four(a, tex_a, k4, [*ba, r]) for r in at_rows]
            return [[f"{v}.{'xyzw'[u]}" for v in fours_] for u in range(len(ks))]
        return [[wide(graph, a, w.value(a, [*ba, r, k])) for r in at_rows] for k in ks]

    def b_values(ks: list[str]) -> Iterator[list[str]]:
        """B's values at each step of `ks` in turn, per accumulator column (a vec4 of columns, or
        one), loaded as the step's products are written (a texel of 4 steps, at the first)."""
        if b_fours:  # 4 steps of k of one column a texel
            k4 = w.let(f"{ks[0]} / {VEC}i")
            texels = [fetch(tex_b, k4, [*bb, c]) for c in at_cols]
            for u in range(len(ks)):
                part = [f"{t}.{'xyzw'[u]}" for t in texels]
                yield [w.let(f"vec4<f32>({', '.join(part[q * VEC:(q + 1) * VEC])})") for q in range(width)] \
                    if vec_acc else part
            return
        for k in ks:
            if fetched_cols:
                yield [four(b, tex_b, c, [*bb, k]) for c in at_cols]
            else:
                yield [wide(graph, b, w.value(b, [*bb, k, c])) for c in at_cols]

    def steps(k0: str, count: int, into: list[list[str]]) -> None:
        """Add the products at k0, k0 + 1, ..., k0 + count - 1 to the accumulators `into` (k0 a
        multiple of VEC where an operand gives VEC steps at once)."""
        ks = [k0] + [w.let(f"{k0} + {u}i") for u in range(1, count)]
        for arow, bvals in zip(a_values(ks), b_values(ks)):
            if vec_acc:
                arow = [f"vec4<f32>({av})" for av in arow]
            for i, av in enumerate(arow):
                for j, bv in enumerate(bvals):
                    w.line(f"{into[i][j]} = fma({av}, {bv}, {into[i][j]});")

    def loop(start: str, end: int | Dim | str) -> None:
        """Steps over k in [start, end), `unroll` at a time (end - start a multiple of it)."""
        with w.loop(end, start=start, step=unroll) as k0:  # also where it runs no step: the operands stay bound
            steps(k0, unroll, accs)

    # k in whole steps of `unroll`, a long k in blocks of BLOCK, each summed from zero and then
    # added to the totals, then the rest one at a time, into the totals: k goes up, as in every
    # matmul kernel, so a product over a symbol's k rounds as one over a fixed k does.
    whole = w.let(f"{w.size(K)} / {unroll}i * {unroll}i") if isinstance(K, Dim) else f"{K - K % unroll}i"
    if blocked:
        with w.loop(whole, step=BLOCK) as kb:
            loop(kb, w.let(f"min({kb} + {BLOCK}i, {whole})"))
            for row, total in zip(accs, totals):
                for acc, t in zip(row, total):
                    w.line(f"{t} = {t} + {acc}; {acc} = {zero};")
    else:
        loop("0i", whole)
    if isinstance(K, Dim):
        with w.loop(K, start=whole) as k:
            steps(k, 1, totals)
    else:
        for k in range(K - K % unroll, K):
            with w.scope("{"):
                steps(f"{k}i", 1, totals)

    for i, m in enumerate(rows):
        for j, n in enumerate(cols):
            conds = [f"{x} < {w.size(size)}" for x, size, step in ((m, M, tm), (n, N, bn)) if ragged(size, step)]
            with w.scope(f"if ({' && '.join(conds)}) {{" if conds else "{"):
                coords = [*bc, m, n]
                acc = f"{totals[i][j // VEC]}.{'xyzw'[j % VEC]}" if vec_acc else totals[i][j]
                w.scopes[-1][(core, tuple(coords))] = summed(w, acc, mm.spec.dtype)
                w.line(store(node, w.ravel(coords, node.spec.shape), w.value(root, coords)))
    return Written.of(w, module(name, graph, root, reads, LANES, prelude, w, []), grid, groups,
                      tuple(sorted(textures)))
