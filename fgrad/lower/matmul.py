"""The tiled matmul kernel: register tiles, shared-memory staging, a fused epilogue.

A workgroup of 16x16 invocations computes a (16 tm)x(16 tn) tile of the
output, each invocation a tm x tn block held in named vector accumulators
(`acc_i_j`, no arrays: naga bounds-checks indexed local arrays). Each step
of 4, 8 or 16 along k (`depth`) multiplies A and B tiles staged in workgroup
memory (each k's row padded against bank conflicts: `pitch`) while the next
step's tiles load into registers (stored between the step's two barriers);
the unrolled inner loop reads tm/4 and tn/4 vec4s of them per k.
An operand whose staged axis runs along a buffer's rows (B along n; A along
m: a transposed one) loads its blocks as vec4s, and each invocation stores
its columns as one vec4 where they are whole vec4s of the result's rows.
Bounds checks are emitted only along axes the tiles do not divide. Operands
are read through the writer, so transposes, broadcast batch dims and
reshapes of a buffer are read in place (with loads ordered along whichever
axis is contiguous); the kernel's root may be an elementwise epilogue of the
matmul (bias, activation, residual), applied before the one store, and it
may sum columns of work on its results over chunks of rows its tiles hold
whole (a column sum's first pass: a bias's gradient). Products of one operand
by matrices of one shape may share a kernel, each workgroup computing a tile
of the product its column block falls in.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence

from fgrad.ir import Dim, DType, Graph
from fgrad.lower.program import Extent
from fgrad.lower.wgsl import VEC, KernelWriter, Written, module, output_name, store
from fgrad.lower.kinds import Contraction, Conversion, View, kind_of

THREADS = 16  # a workgroup is THREADS x THREADS invocations
BK, SHORT_BK, LONG_BK = 8, 4, 16  # the k extents of staged tiles (see `depth`)
BANKS = 32  # workgroup memory's banks, a word each (NVIDIA's, AMD's, Apple's)
WORKGROUP_BYTES = 16384  # WebGPU's least maxComputeWorkgroupStorageSize: the kernels run on every adapter


def inner_is_last(graph: Graph, i: int, sources: dict[int, str]) -> bool:
    """Whether consecutive values along node i's last axis are (probably) adjacent in memory."""
    node = graph.nodes[i]
    kind = kind_of(node)
    if i not in sources and isinstance(kind, Conversion):  # converted per load, read in its operand's order
        return inner_is_last(graph, node.inputs[0], sources)
    if i in sources or not isinstance(kind, View) or not node.inputs:
        return True
    relation = kind.last_axis(node, graph.nodes[node.inputs[0]].spec)
    if relation == "same":
        return inner_is_last(graph, node.inputs[0], sources)
    if relation == "swapped":
        return not inner_is_last(graph, node.inputs[0], sources)
    return relation is None


TILES = [(8, 8), (8, 4), (4, 8), (4, 4), (4, 2), (2, 4), (2, 2)]  # most work per invocation first
SHORT_ROWS = 128  # a symbol's rows are tiled for this many: a prompt's, far fewer than a generator's context


def tile(m: int, n: int, batch: int, parallel: int) -> tuple[int, int]:
    """Outputs per invocation along rows and columns: the biggest tile that fits the matrix
    and still gives the adapter `parallel` workgroups to run at once."""
    for tm, tn in TILES[:-1]:
        if THREADS * tm <= m and THREADS * tn <= n and \
                math.ceil(m / (THREADS * tm)) * math.ceil(n / (THREADS * tn)) * batch >= parallel:
            return tm, tn
    return TILES[-1]


def depth(graph: Graph, a: int, b: int, sources: dict[int, str], bm: int, bn: int, spare: int) -> int:
    """The k extent of the staged tiles of A (bm rows) and B (bn columns): SHORT_BK where A's rows
    are read along k and the tile is the biggest, LONG_BK where B is read along k (a product by a
    transposed weight, as backward passes take), else BK; or the next shorter whose staged tiles
    fit in `spare` bytes of workgroup memory. On an H100, with the staged rows padded (`pitch`):
    4096^3 at 36.5 TFLOP/s with 4, 31.9 with 8; the gpt step's GPU time 5.16 ms with 4 also where
    B is read along k (the rule before the padding), 5.06 with 8 there, 5.01 with 16."""
    if inner_is_last(graph, a, sources) and bm * bn >= (8 * THREADS) ** 2:
        best = SHORT_BK
    else:
        best = BK if inner_is_last(graph, b, sources) else LONG_BK
    fits = [bk for bk in (LONG_BK, BK) if bk <= best and staged_bytes(bm, bn, bk) <= spare]
    return fits[0] if fits else SHORT_BK


def pitch(extent: int, bk: int, width: int) -> int:
    """The vectors (of `width` f32s) from one k of a staged block to the next, for a block of
    `extent` along m or n: padded by BANKS // bk words (a vector at least), so that a warp storing
    bk values along k for each of BANKS // bk neighbours (an operand read along k) hits every bank
    once, not one bank bk times."""
    return (extent + max(BANKS // bk, width)) // width


def staged_bytes(bm: int, bn: int, bk: int) -> int:
    """The workgroup memory of A's and B's staged blocks (`As`, `Bs`): bk padded rows of each."""
    return sum(bk * pitch(extent, bk, width) * width * 4 for extent, width in ((bm, min(bm // THREADS, VEC)),
                                                                               (bn, min(bn // THREADS, VEC))))


def wide(graph: Graph, x: int, value: str) -> str:
    """An operand's value as the f32 the products are summed in (f16 operands are widened; the
    sum is rounded once, at the store)."""
    return f"f32({value})" if graph.nodes[x].spec.dtype is DType.f16 else value


def summed(w: KernelWriter, total: str, dtype: DType) -> str:
    """The value of a product of `dtype` whose f32 sum is `total`: rounded to the dtype once (an
    f16 converted, a bfloat16 held in an f32 rounded: DTypeRow.narrow)."""
    return total if dtype is DType.f32 else w.narrowed(f"{dtype.row.compute}({total})", dtype)


def ragged(n: int | Dim, step: int) -> bool:
    """Whether tiles of `step` may overrun a size: one they do not divide, or a symbol's."""
    return isinstance(n, Dim) or n % step != 0


def column_chunk(graph: Graph, i: int) -> tuple[int, int] | None:
    """Where node i is the first pass of a column sum (`split_long_reduction`'s), an f32 sum over
    axis 1 of a (G, R, n) reshape of a value of n columns: that value and R."""
    node = graph.nodes[i]
    if node.op != "sum" or node.attrs["axes"] != (1,) or node.spec.dtype is not DType.f32:
        return None
    split = graph.nodes[node.inputs[0]]
    if split.op != "reshape" or split.spec.ndim != 3 or split.spec.symbols:
        return None
    value = graph.nodes[split.inputs[0]].spec
    if value.dtype is not DType.f32 or not value.ndim or value.shape[-1] != split.spec.shape[-1]:
        return None
    return split.inputs[0], split.spec.shape[1]


def matmul_kernel(name: str, graph: Graph, group: Sequence[int], cores: Sequence[int], inside: Sequence[int],
                  reads: Sequence[int], sources: dict[int, str], parallel: int) -> Written:
    """The tiled products `cores`, each with its epilogue stored as its root (the first roots of
    `group`). Several share a kernel where products of one operand by matrices of one shape do
    (fusion._fuse_sibling_products): each workgroup computes a tile of the product its column
    block falls in. Each other root of `group` is a column sum's first pass (`column_chunk`) of
    work on the one product at its own coordinates, whose chunks of rows the tiles hold whole
    (fusion._fuse_column_partials)."""
    products, partials = group[:len(cores)], group[len(cores):]
    mm = graph.nodes[cores[0]]
    out = mm.spec.shape
    M, N, batch = out[-2], out[-1], out[:-2]
    if M == 1 and not mm.spec.symbols and len(cores) == 1:
        return vector_kernel(name, graph, products[0], cores[0], reads, sources)
    *batch_max, M_max, N_max = mm.spec.max_shape  # the grid covers the symbols' maxima
    tm, tn = tile(min(M_max, SHORT_ROWS) if isinstance(M, Dim) else M_max, N_max,
                  math.prod(batch_max) * len(cores), parallel)  # sibling products' workgroups count together
    va, vb = min(tm, 4), min(tn, 4)  # vector widths of shared A and B loads (B's is the accumulators')
    veca, vecb = f"vec{va}<f32>", f"vec{vb}<f32>"
    bm, bn = THREADS * tm, THREADS * tn
    sums_bytes = THREADS * bn * 4 if partials else 0  # `Cs`, where column sums meet
    depths = [depth(graph, *graph.nodes[c].inputs, sources, bm, bn, WORKGROUP_BYTES - sums_bytes) for c in cores]
    assert max(staged_bytes(bm, bn, bk) for bk in depths) + sums_bytes <= WORKGROUP_BYTES, \
        f"{bm}x{bn}x{max(depths)} tiles overflow workgroup memory"
    blocks = math.ceil(N_max / bn)  # each product's column blocks; workgroup x picks a product's, in turn
    grid = (blocks * len(cores), math.ceil(M_max / bm), math.prod(batch_max))
    groups = (Extent.of([N], bn), Extent.of([M], bm), Extent.of(batch)) if mm.spec.symbols else ()
    w = KernelWriter(graph, sources)
    column = f"i32(group.x) % {blocks}i" if len(cores) > 1 else "i32(group.x)"
    prelude = ["let lid = i32(local.x);", f"let tx = lid % {THREADS}i;", f"let ty = lid / {THREADS}i;",
               f"let m0 = i32(group.y) * {bm}i;", f"let n0 = {column} * {bn}i;"]
    if len(cores) > 1:
        prelude.append(f"let product = i32(group.x) / {blocks}i;")
    bc = w.unravel("i32(group.z)", batch) if batch else []

    def product(root: int, core: int, bk: int, result: str) -> None:
        """The lines computing product `core` (staged bk along k) and storing its root as `result`,
        with the column sums joining it."""
        node, mm = graph.nodes[root], graph.nodes[core]
        a, b = mm.inputs
        sa, sb = graph.nodes[a].spec.shape, graph.nodes[b].spec.shape
        K = sa[-1]
        ba = [c if d != 1 else "0i" for c, d in zip(bc, sa[:-2])]
        bb = [c if d != 1 else "0i" for c, d in zip(bc, sb[:-2])]
        accs = [[f"acc_{i}_{j}" for j in range(tn // vb)] for i in range(tm)]
        for row in accs:
            for acc in row:
                w.line(f"var {acc} = {vecb}();")

        def guarded(value_of, pairs: list[tuple[str, int, int]]) -> str:
            """Load at indices clamped into range, zero outside; no checks where tiles divide the sizes."""
            clamped = [w.let(f"min({x}, {w.last(n)})") if ragged(n, step) else x for x, n, step in pairs]
            conds = [f"{x} < {w.size(n)}" for x, n, step in pairs if ragged(n, step)]
            value = value_of(clamped)
            return f"select(0.0f, {value}, {' && '.join(conds)})" if conds else value

        threads = THREADS * THREADS

        def slots(x: int, tile: tuple[int, int], k_is_row: bool, shared: str, width: int) -> list[tuple[str, str, str]]:
            """Where each invocation stages its share of operand x's (tile) block: (row, column) in the
            block, and the element of `shared` (laid out [k][other]) it goes to, each invocation
            loading along x's contiguous axis."""
            fast = inner_is_last(graph, x, sources)
            assert tile[0] * tile[1] % threads == 0, f"a {tile} block is not staged evenly by {threads} invocations"
            out = []
            for q in range(tile[0] * tile[1] // threads):
                e = f"(lid + {q * threads}i)"
                rl, cl = (f"{e} / {tile[1]}i", f"{e} % {tile[1]}i") if fast else \
                    (f"{e} % {tile[0]}i", f"{e} / {tile[0]}i")
                rl, cl = w.let(rl), w.let(cl)
                kl, ol, other = (rl, cl, tile[1]) if k_is_row else (cl, rl, tile[0])
                out.append((rl, cl, f"{shared}[{kl} * {pitch(other, bk, width)}i + {ol} / {width}i][{ol} % {width}i]"))
            return out

        def load(x: int, batch_at: list[str], size: tuple[int, int], tile: tuple[int, int], start: tuple[str, str],
                 rl: str, cl: str) -> str:
            """The value (f32) of operand x's (tile) block at `start` + (rl, cl) an invocation stages."""
            r, c = w.let(f"{start[0]} + {rl}"), w.let(f"{start[1]} + {cl}")
            return guarded(lambda rc: wide(graph, x, w.value(x, [*batch_at, *rc])),
                           [(r, size[0], tile[0]), (c, size[1], tile[1])])

        def held_in(x: int, axis: int) -> int | None:
            """The buffer whose rows operand x's `axis` runs along (n for B, m for A: its blocks then
            load as vec4s along it), seen through reshapes, transposes and broadcasts that keep that
            axis whole: f32, not empty (a vec4 binding holds 16 bytes at least), its rows a multiple
            of VEC long, and read by nothing else in the kernel, nor are the views (its binding is
            vec4s); else None."""
            chain = []
            while x not in reads:
                node = graph.nodes[x]
                if not node.inputs or node.op not in ("reshape", "transpose", "broadcast_to"):
                    return None
                x_shape, shape = graph.nodes[node.inputs[0]].spec.shape, node.spec.shape
                if node.op == "transpose":
                    axis = node.attrs["perm"][axis]
                elif node.op == "broadcast_to":
                    axis -= len(shape) - len(x_shape)
                    if axis < 0 or x_shape[axis] != shape[axis + len(shape) - len(x_shape)]:
                        return None
                elif axis == len(shape) - 1 and x_shape and x_shape[-1] % VEC == 0 and shape[-1] % VEC == 0:
                    axis = len(x_shape) - 1  # a reshape's last axis: its vec4s are vec4s of its operand's rows
                    # (a head's columns of a row, or heads' columns merged into one)
                else:  # the axis passes a reshape whole: its size, with the same count of values before it
                    before = math.prod(shape[:axis])
                    axis = next((b for b in range(len(x_shape)) if x_shape[b] == shape[axis]
                                 and math.prod(x_shape[:b]) == before), -1)
                    if axis < 0:
                        return None
                chain.append(x)
                x = node.inputs[0]
            spec = graph.nodes[x].spec
            uses = sum(graph.nodes[i].inputs.count(j) for i in inside for j in (x, *chain))
            if axis == spec.ndim - 1 and spec.dtype is DType.f32 and not spec.symbols and spec.shape[-1] % VEC == 0 \
                    and spec.size and uses == len(chain) + 1:
                return x
            return None

        # Each staged item: (its guard, the WGSL type it is held in, its load at k, the stores of a value).
        Item = tuple[str | None, str, Callable[[str], str], Callable[[str], list[str]]]

        def items(x: int, batch_at: list[str], size: tuple[int | Dim, int | Dim], tile: tuple[int, int],
                  k_is_row: bool, shared: str, width: int) -> list[Item]:
            """Operand x's block at k: as vec4s along B's columns or A's rows where the operand runs
            along a buffer's rows (`held_in`), else an f32 per item. The vec4s go to the first
            invocations for A, the last for B, where there are fewer than invocations."""
            start = (lambda k: (k, "n0")) if k_is_row else (lambda k: ("m0", k))
            axis = graph.nodes[x].spec.ndim - (1 if k_is_row else 2)
            count = tile[0] * tile[1] // VEC
            if ragged(size[0], tile[0]) or ragged(size[1], tile[1]) or (count % threads and count > threads) or \
                    held_in(x, axis) is None:
                return [(None, "f32", lambda k, rl=rl, cl=cl: load(x, batch_at, size, tile, start(k), rl, cl),
                         lambda v, place=place: [f"{place} = {v};"])
                        for rl, cl, place in slots(x, tile, k_is_row, shared, width)]
            other = tile[1] if k_is_row else tile[0]  # the block's extent along the vec4s (n, or m)
            first = threads - count if k_is_row and count < threads else 0
            out = []
            for q in range(max(count // threads, 1)):
                e = f"(lid - {first}i)" if first else f"(lid + {q * threads}i)"
                kl, ol = w.let(f"{e} / {other // VEC}i"), w.let(f"{e} % {other // VEC}i * {VEC}i")
                guard = f"lid >= {first}i" if first else f"lid < {count}i" if count < threads else None

                def vec_load(k: str, kl: str = kl, ol: str = ol) -> str:
                    r, c = (w.let(f"{k} + {kl}"), w.let(f"n0 + {ol}")) if k_is_row else (w.let(f"m0 + {ol}"),
                                                                                      w.let(f"{k} + {kl}"))
                    binding, index = w.address(x, [*batch_at, r, c])
                    w.elements[binding] = "vec4<f32>"
                    return f"{binding}[({index}) / {VEC}i]"

                def stores(v: str, kl: str = kl, ol: str = ol) -> list[str]:  # [k][other] in vectors of `width`
                    row = f"{kl} * {pitch(other, bk, width)}i"
                    if width == VEC:
                        return [f"{shared}[{row} + {ol} / {VEC}i] = {v};"]
                    return [f"{shared}[{row} + ({ol} + {u}i) / {width}i] = {v}.{'xyzw'[u:u + width]};"
                            for u in range(0, VEC, width)]

                out.append((guard, "vec4<f32>", vec_load, stores))
            return out

        staging = [*items(a, ba, (M, K), (bm, bk), False, "As", va),  # A[m0 : m0 + bm, k : k + bk]
                   *items(b, bb, (K, N), (bk, bn), True, "Bs", vb)]  # B[k : k + bk, n0 : n0 + bn]

        def guarded_by(item: Item) -> contextlib.AbstractContextManager:
            """The scope of the invocations an item is staged by: all, or its guard's."""
            return w.scope(f"if ({item[0]}) {{") if item[0] is not None else contextlib.nullcontext()

        def stage(k: str, put: Callable[[Item, str], None]) -> None:
            """Load each item at k (those without a guard first, as a block of loads) and `put` it."""
            plain = [(item, item[2](k)) for item in staging if item[0] is None]
            for item, value in plain:
                put(item, value)
            for item in staging:
                if item[0] is not None:
                    with guarded_by(item):
                        put(item, item[2](k))

        def put_staged(item: Item, value: str) -> None:
            """Stage a loaded item into workgroup memory (a vec4 named first: its stores take parts)."""
            for line in item[3](value if item[1] == "f32" else w.let(value)):
                w.line(line)

        # The first blocks are staged before the loop; each step then loads the next blocks into
        # registers (`next_*`) before it multiplies the staged ones, so their reads are in flight
        # while it computes, and stores them for the next step between its two barriers.
        with w.scope("{"):
            stage("0i", put_staged)
        w.line("workgroupBarrier();")
        held = {id(item): f"next_{q}" for q, item in enumerate(staging)}
        for item in staging:
            w.line(f"var {held[id(item)]} = {'0.0f' if item[1] == 'f32' else item[1] + '()'};")
        with w.loop(K, step=bk) as k0:
            more = f"{k0} + {bk}i < {w.size(K)}"
            with w.scope(f"if ({more}) {{"):
                stage(f"{k0} + {bk}i", lambda item, value: w.line(f"{held[id(item)]} = {value};"))
            for kk in range(bk):
                avecs = [w.let(f"As[{kk * pitch(bm, bk, va)}i + ty * {tm // va}i + {q}i]") for q in range(tm // va)]
                # Invocation tx takes B's vectors tx, tx + 16, ...: neighbours read neighbouring vectors.
                bvecs = [w.let(f"Bs[{kk * pitch(bn, bk, vb)}i + tx + {j * THREADS}i]") for j in range(tn // vb)]
                for i in range(tm):
                    a_i = f"{avecs[i // va]}[{i % va}]"
                    for j, bv in enumerate(bvecs):
                        w.line(f"{accs[i][j]} = fma({vecb}({a_i}), {bv}, {accs[i][j]});")
            w.line("workgroupBarrier();")
            with w.scope(f"if ({more}) {{"):
                for item in staging:
                    with guarded_by(item):
                        for line in item[3](held[id(item)]):
                            w.line(line)
            w.line("workgroupBarrier();")

        # Each column sum's share of the invocation's columns, over its rows, of the value it sums.
        summands = [column_chunk(graph, r)[0] for r in partials]
        sums = [[[f"sum{p}_{j}_{c}" for c in range(vb)] for j in range(tn // vb)] for p in range(len(partials))]
        for name_p in (x for p in sums for j in p for x in j):
            w.line(f"var {name_p} = 0.0f;")
        # Where each invocation's vb columns are whole vec4s of the output's rows (f32, the tiles dividing
        # n, no read through the output's own binding), each is stored as one vec4: a warp writes whole
        # 32-byte sectors, not a quarter of each four times.
        whole = vb == VEC and node.spec.dtype is DType.f32 and isinstance(N, int) and not ragged(N, bn) and \
            result not in sources.values()
        if whole:
            w.elements[result] = "vec4<f32>"
        for i in range(tm):
            m = w.let(f"m0 + ty * {tm}i + {i}i")
            for j in range(tn // vb):
                for c in range(1 if whole else vb):
                    ns = [w.let(f"n0 + tx * {vb}i + {j * THREADS * vb + c + u}i") for u in range(VEC if whole else 1)]
                    conds = [f"{x} < {w.size(size)}" for x, size, step in ((m, M, bm), (ns[0], N, bn))
                             if ragged(size, step)]
                    if conds:
                        w.line(f"if ({' && '.join(conds)}) {{")
                        w.depth += 1
                    w.scopes.append({})
                    at = [[*bc, m, n] for n in ns]
                    for u, coords in enumerate(at):
                        acc = f"{accs[i][j]}[{c + u}]"
                        w.scopes[-1][(core, tuple(coords))] = summed(w, acc, mm.spec.dtype)
                    index, values = w.ravel(at[0], node.spec.shape), [w.value(root, coords) for coords in at]
                    for p, summand in enumerate(summands):  # read before the store: the root may take a read's buffer
                        for u, coords in enumerate(at):
                            w.line(f"{sums[p][j][c + u]} += {w.value(summand, coords)};")
                    if whole:
                        w.line(f"{result}[({index}) / {VEC}i] = vec4<f32>({', '.join(values)});")
                    else:
                        w.line(store(node, index, values[0], result))
                    w.scopes.pop()
                    if conds:
                        w.depth -= 1
                        w.line("}")

        if partials:
            _column_sums(w, graph, group, sums, batch, M, N, tm, bm, bn, vb)

    for k, (root, core, bk) in enumerate(zip(products, cores, depths)):
        with w.scope(f"if (product == {k}i) {{") if len(cores) > 1 else contextlib.nullcontext():
            product(root, core, bk, output_name(k, len(group)))
    shared = [f"var<workgroup> As: array<{veca}, {max(d * pitch(bm, d, va) for d in depths)}>;",
              f"var<workgroup> Bs: array<{vecb}, {max(d * pitch(bn, d, vb) for d in depths)}>;"]
    if partials:
        shared.append(f"var<workgroup> Cs: array<f32, {sums_bytes // 4}>;")
    return Written.of(w, module(name, graph, group, reads, THREADS * THREADS, prelude, w, [], shared), grid, groups)


def _column_sums(w: KernelWriter, graph: Graph, group: Sequence[int], sums: list[list[list[str]]],
                 batch: Sequence[int | Dim], M: int, N: int | Dim, tm: int, bm: int, bn: int, vb: int) -> None:
    """Store each column sum's partial sums of the workgroup's tile: the invocations' sums meet
    in workgroup memory (a row of the tile's columns per row of invocations), and an invocation
    per chunk and column adds up the chunk's rows of invocations. Chunk g of the flattened rows
    (batch entries, then rows) is partial sum g."""
    for p, r in enumerate(group[1:]):
        rows = column_chunk(graph, r)[1]
        w.line("workgroupBarrier();")
        for j, names in enumerate(sums[p]):
            for c, total in enumerate(names):
                w.line(f"Cs[ty * {bn}i + tx * {vb}i + {j * THREADS * vb + c}i] = {total};")
        w.line("workgroupBarrier();")
        chunks, per = bm // rows, rows // tm  # chunks in the tile; rows of invocations in a chunk
        with w.loop(chunks * bn, start="lid", step=THREADS * THREADS) as q:
            col, chunk = w.let(f"{q} % {bn}i"), w.let(f"{q} / {bn}i")
            n = w.let(f"n0 + {col}")
            terms = " + ".join(f"Cs[({chunk} * {per}i + {t}i) * {bn}i + {col}]" for t in range(per))
            guard = f"if ({n} < {w.size(N)}) {{" if ragged(N, bn) else "{"
            with w.scope(guard):
                g = w.let(f"(i32(group.z) * {M}i + m0) / {rows}i + {chunk}" if batch else f"m0 / {rows}i + {chunk}")
                w.line(store(graph.nodes[r], f"{g} * {w.size(N)} + {n}", terms, output_name(p + 1, len(group))))


VECTOR_THREADS, UNROLL = 256, 4  # a vector-matrix workgroup's invocations; loads each keeps in flight


def vector_kernel(name: str, graph: Graph, root: int, core: int, reads: Sequence[int],
                  sources: dict[int, str]) -> Written:
    """A row vector times a matrix (a decode step's products): a workgroup per few columns (and
    per batch entry), its invocations in slices along k, each summing every slice-th k of its
    column with four loads in flight. Neighbouring invocations read neighbouring memory: across
    columns, a 32-byte run of a row, where the matrix's rows are contiguous; along k, where its
    columns are (a transposed weight, a tied embedding). Many small workgroups keep the whole
    card reading without splitting k across workgroups, so the epilogue stays fused; the slices'
    sums meet in workgroup memory, and slice 0 applies the epilogue and stores."""
    node, mm = graph.nodes[root], graph.nodes[core]
    a, b = mm.inputs
    sa, sb, out = graph.nodes[a].spec.shape, graph.nodes[b].spec.shape, mm.spec.shape
    N, K, batch = out[-1], sa[-1], out[:-2]
    rows_contiguous = inner_is_last(graph, b, sources)
    columns = 32 // graph.nodes[b].spec.dtype.itemsize if rows_contiguous else 8
    slices = VECTOR_THREADS // columns
    w = KernelWriter(graph, sources)
    place = (f"let col = lid % {columns}i;", f"let slice = lid / {columns}i;") if rows_contiguous else \
        (f"let col = lid / {slices}i;", f"let slice = lid % {slices}i;")
    prelude = ["let lid = i32(local.x);", *place, f"let n = i32(group.x) * {columns}i + col;"]
    bc = w.unravel("i32(group.y)", batch) if batch else []
    ba = [c if d != 1 else "0i" for c, d in zip(bc, sa[:-2])]
    bb = [c if d != 1 else "0i" for c, d in zip(bc, sb[:-2])]
    accs = [f"acc{u}" for u in range(UNROLL)]
    for acc in accs:
        w.line(f"var {acc} = 0.0f;")
    column = w.let(f"min(n, {N - 1}i)")  # read in range; the column past N is never stored
    uneven = ragged(K, slices * UNROLL)
    with w.loop(K, start="slice", step=slices * UNROLL) as k0:
        for u, acc in enumerate(accs):
            k = w.let(f"{k0} + {u * slices}i") if u else k0
            at = w.let(f"min({k}, {w.last(K)})") if uneven and u else k
            product = f"{wide(graph, a, w.value(a, [*ba, '0i', at]))} * {wide(graph, b, w.value(b, [*bb, at, column]))}"
            w.line(f"{acc} += select(0.0f, {product}, {k} < {w.size(K)});" if uneven and u else f"{acc} += {product};")
    w.line(f"part[lid] = {' + '.join(accs)};")
    w.line("workgroupBarrier();")
    step = slices // 2
    while step:  # a tree over the slices; the barriers stay in uniform control flow
        w.line(f"if (slice < {step}i) {{ part[lid] += part[lid + {step * (columns if rows_contiguous else 1)}i]; }}")
        w.line("workgroupBarrier();")
        step //= 2
    w.line(f"if (slice == 0i && n < {N}i) {{")
    w.depth += 1
    total = "part[lid]"
    w.scopes.append(dict(w.scopes[-1]))
    coords = [*bc, "0i", "n"]
    w.scopes[-1][(core, tuple(coords))] = summed(w, total, mm.spec.dtype)
    w.line(store(node, w.ravel(coords, node.spec.shape), w.value(root, coords)))
    w.scopes.pop()
    w.depth -= 1
    w.line("}")
    grid = (math.ceil(N / columns), math.prod(batch), 1)
    shared = [f"var<workgroup> part: array<f32, {VECTOR_THREADS}>;"]
    return Written.of(w, module(name, graph, root, reads, VECTOR_THREADS, prelude, w, [], shared), grid)


def tiles(graph: Graph, i: int) -> bool:
    """Whether node i is a matmul this kernel can build around (f32, or f16 and bfloat16 accumulated
    in f32)."""
    node = graph.nodes[i]
    kind = kind_of(node)
    return isinstance(kind, Contraction) and kind.tiled and node.spec.dtype.is_float
