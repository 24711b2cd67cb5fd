"""Which nodes get a kernel of their own (are materialized), and what each kernel reads.

Every other node is computed inline by the kernels that use it, so chains
of elementwise ops, with their broadcasts, views and scalar constants, fuse
into their consumer. Each primitive's kernel kind (fgrad/lower/kinds.py) decides.

Graph outputs are always materialized. A reduction along the last axis
joins the elementwise kernel of its rows, or of its results (a variance's
reciprocal square root); a softmax joins the kernel of its rows that alone
reads it (its backward pass); what a max or min so joined folds is
materialized where the kernel computes it per element too, so that
comparisons with the max see the values it saw. Roots of one shape and
skeleton merge into kernels with several outputs, and so do roots of whole
rows and of one value per row that a kernel of those rows computes (a layer
norm's output and the statistics its backward pass keeps). Whole rows computed from one
value of those rows and values per row that folds give (a layer norm's centred rows) are not
written: the values per row are, and each reader centres the rows again. On a GPU, a
column sum's first pass over a tiled matmul's results joins the matmul's
kernel (a bias's gradient, a layer norm's), and products of one operand by
matrices of one shape share a kernel (a layer's q, k and v). A kernel that would bind more
storage buffers than the adapter allows materializes part of what it inlines.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from fgrad.ir import RESULT, Dim, Graph, Spec, call_of
from fgrad.lower.matmul import THREADS, column_chunk, tile, tiles
from fgrad.lower.kinds import (
    Contraction, Conversion, Elementwise, Host, Kind, Loop, Normalization, Reduction, Scan, Sort, Source, View, folds,
    kind_of,
)
from fgrad.lower.program import Extent, Limits
from fgrad.lower.wgsl import COLUMNS_FROM, COOPERATE_FROM, FEW_RESULTS, WRITTEN_OUT
from fgrad.transforms.passes import uniform_constant


def is_buffer_source(graph: Graph, i: int) -> bool:
    """Inputs, and constants with differing elements, are read from buffers."""
    return isinstance(kind_of(graph.nodes[i]), Source) and uniform_constant(graph.nodes, i) is None


Group = tuple[int, ...]  # the materialized nodes one kernel computes (its roots)


def plan_kernels(graph: Graph, limits: Limits) -> tuple[list[Group], dict[Group, list[int]]]:
    """The kernels in order, each the roots it computes, and the buffer-held nodes each reads.

    A kernel binds at most the adapter's storage buffers, its outputs counted. For a CPU
    adapter, roots of whole rows and of values per row keep kernels of their own (there a rows
    kernel walks a row per invocation, where an elementwise kernel loads vectors of adjacent
    values), and so do column sums of a matmul's results (its kernel has no tiles to sum).
    """
    max_bindings, cpu = limits.max_storage_buffers_per_shader_stage, limits.cpu
    nodes = graph.nodes
    kind = [kind_of(n) for n in nodes]
    consumers: list[list[int]] = [[] for _ in nodes]
    for i, n in enumerate(nodes):
        for j in n.inputs:
            consumers[j].append(i)
    roots = {i for i in graph.outputs if not is_buffer_source(graph, i)}
    roots |= {i for i, k in enumerate(kind) if k.materialized}
    _materialize_shared(roots, consumers, kind)
    _fuse_row_reductions(graph, roots, consumers)
    # Decide again which elementwise values are shared, now that some reductions are inlined.
    roots -= {i for i in roots if isinstance(kind[i], Elementwise) and i not in graph.outputs}
    _materialize_shared(roots, consumers, kind)
    _inline_conversions(graph, roots)
    _fuse_leading_reductions(graph, roots, consumers)
    # A loop or a host call reads its operands from buffers: what it reads is computed by kernels before it.
    roots |= {j for i, k in enumerate(kind) if k.on_buffers for j in nodes[i].inputs
              if not is_buffer_source(graph, j)}
    _materialize_selected(graph, roots)
    _recompute_rows(graph, roots, consumers)
    _fuse_epilogues(graph, roots, consumers)
    # Kernels over the binding limit materialize part of what they inline;
    # that only ever lowers what other kernels read.
    pending = sorted(r for r in roots if not kind[r].on_buffers)  # a loop binds no buffers itself
    while pending:
        root = pending.pop()
        while len(found := _reads(graph, root, roots)) + 1 > max_bindings:
            cut = _widest_inlined(graph, root, roots, len(found))
            roots.add(cut)
            pending.append(cut)
    groups = _group_siblings(graph, sorted(roots), roots, max_bindings, rows=not cpu)
    if not cpu:
        groups = _fuse_sibling_products(graph, _fuse_column_partials(graph, groups, roots, limits), roots, limits)
    return groups, {g: group_reads(graph, g, roots) for g in groups}


def skeleton(graph: Graph, group: Group, inside: Sequence[int]) -> str:
    """Which kernel skeleton computes a root: `matmul` around a matmul (fgrad/lower/matmul.py),
    `cooperative` (a workgroup per result), `rows` (per softmax row, or per row of roots whose
    rows' folds are inside) or `scan` (per cumsum row) where each result folds many contiguous
    values, `columns` (several invocations per result, results side by side) where results fold
    many values over leading axes (a column sum), `sort` (per row put in order) and
    `merge` (an invocation per result of merged runs), else `elementwise` (an invocation
    per result, loops inline)."""
    root = group[0]
    node = graph.nodes[root]
    kind = kind_of(node)
    if isinstance(kind, Loop):
        return "loop"
    if isinstance(kind, Host):
        return "host"
    if any(tiles(graph, i) for i in inside):
        return "matmul"
    if isinstance(kind, Sort):
        return "merge" if kind.merges else "sort"
    if any(isinstance(kind_of(graph.nodes[i]), Scan) for i in inside) and \
            not all(isinstance(kind_of(graph.nodes[r]), Scan) for r in group):
        return "elementwise"  # a scan beside other roots (a short cumsum's) runs in one invocation, in order
    if row_root(graph, group, inside) is not None:
        return "rows"  # roots of whole rows, with their rows' folds inside
    # Reductions over leading axes (a column sum) read contiguously with invocations side by side:
    # several per result where each folds many values, else one.
    folding = {i: n for i in inside if (n := folds(graph.nodes, i))}  # node -> values it folds per result
    leading = [i for i in folding if isinstance(kind_of(graph.nodes[i]), Reduction) and not along_rows(graph, i)]
    if leading and len(leading) == len(folding) and max(folding.values()) >= COLUMNS_FROM:
        return "columns"
    # Fewer results (rows, for a softmax) than a GPU has invocations at once share out shorter folds
    # too. A root computed from row reductions (a variance's reciprocal square root) counts theirs.
    count = folding.get(root) or max((n for i, n in folding.items() if along_rows(graph, i)), default=0)
    results = node.spec.max_size // max(count, 1) if isinstance(kind, Normalization) else node.spec.max_size
    least = COLUMNS_FROM if results < FEW_RESULTS else COOPERATE_FROM
    if count < least or root in leading:
        return "elementwise"
    if isinstance(kind, Scan):
        return "scan"
    return "rows" if isinstance(kind, Normalization) else "cooperative"


def own_fold(graph: Graph, i: int) -> bool:
    """Whether node i is a short reduction over leading axes (a split product's sum of partial
    products: at most WRITTEN_OUT values each result), which each invocation computing its results
    folds alone, in any skeleton (KernelWriter.reduce)."""
    node, kind = graph.nodes[i], kind_of(graph.nodes[i])
    return isinstance(kind, Reduction) and not along_rows(graph, i) and \
        graph.nodes[node.inputs[0]].spec.ndim - 1 not in kind.axes(node) and 0 < folds(graph.nodes, i) <= WRITTEN_OUT


def along_rows(graph: Graph, i: int) -> bool:
    """Whether node i reduces along its operand's last axis (a row at a time)."""
    node, kind = graph.nodes[i], kind_of(graph.nodes[i])
    return isinstance(kind, Reduction) and graph.nodes[node.inputs[0]].spec.ndim - 1 in kind.axes(node)


Rows = tuple[Extent, Extent, int | Dim]  # rows one at a time: how many, their values in all, how long each is


def folded_rows(graph: Graph, i: int) -> Rows | None:
    """The rows node i folds one at a time: a reduction along its operand's last axis alone, or
    a normalization (softmax, not a scan) along its own last axis."""
    node, kind = graph.nodes[i], kind_of(graph.nodes[i])
    if isinstance(kind, Reduction):
        x = graph.nodes[node.inputs[0]].spec
        if x.ndim and kind.axes(node) == (x.ndim - 1,):
            return Extent.of(node.spec.shape), Extent.of(x.shape), x.shape[-1]
    elif isinstance(kind, Normalization) and not isinstance(kind, Scan) and kind.axis(node) == node.spec.ndim - 1:
        return Extent.of(node.spec.shape[:-1]), Extent.of(node.spec.shape), node.spec.shape[-1]
    return None


def row_role(spec: Spec, rows: Rows) -> str | None:
    """`row` for a value of whole `rows` (a row along its last axis), `per-row` for one value per
    row, else None."""
    count, values, width = rows
    if spec.shape and spec.shape[-1] == width and Extent.of(spec.shape) == values:
        return "row"
    return "per-row" if Extent.of(spec.shape) == count else None


def row_root(graph: Graph, group: Group, inside: Sequence[int]) -> tuple[int, Rows] | None:
    """The first of a kernel's roots of whole rows that the kernel folds inside (a layer norm's
    output, its mean and variance folded along its rows; a softmax root's own rows do not
    count), with those rows: a rows kernel walks them, a workgroup per row."""
    found = [(i, rows) for i in inside if (rows := folded_rows(graph, i))]
    return next(((r, rows) for r in group for i, rows in found
                 if i != r and row_role(graph.nodes[r].spec, rows) == "row"), None)


def _group_siblings(graph: Graph, order: list[int], roots: set[int], max_bindings: int, rows: bool = True
                    ) -> list[Group]:
    """Merge roots of one shape and skeleton into kernels with several outputs: an Adam update
    writes the parameter and both moments in one pass, a layer norm's backward sums share
    theirs. Where `rows` holds, roots of whole rows and of one value per row join a kernel
    walking those rows (`_joins_rows`): a layer norm's output with its statistics. A root joins
    a recent kernel if the roots it reads of that kernel are elementwise (computed inline, at
    the same coordinates), the bindings fit, and the kernel can run either where the root is due
    (no kernel in between reads the kernel's roots) or where the kernel is due (every other root
    the root reads is computed before: a layer norm's gain and bias gradients' first passes, with
    the bias's second pass due between them)."""
    groups: list[list[int]] = []
    due: list[int] = []  # where each kernel runs: the position in `order` of the root it runs at
    where: dict[int, int] = {}  # each root's kernel
    kinds: list[str] = []
    walks: list[Rows | None] = []  # the rows along which every fold of each kernel's roots runs
    needs: dict[int, set[int]] = {}
    for r in order:
        inside = inlined(graph, r, roots)
        kind = skeleton(graph, (r,), inside)
        walk = _walk(graph, r, kind, inside)
        needs[r] = {j for j in _reads(graph, r, roots) if j in roots}
        for back in range(1, min(8, len(groups)) + 1):
            g = groups[-back]
            if kind == kinds[-back] and kind in ("loop", "host") and call_of(graph.nodes[g[0]]) == call_of(graph.nodes[r]) \
                    and RESULT in graph.nodes[r].attrs and all(graph.nodes[x].attrs[RESULT] != graph.nodes[r].attrs[RESULT]
                                                               for x in g):
                g.append(r)  # the results of one loop (one run of its body) or of one host call
                due[-back] = r
                where[r] = len(groups) - back
                break
            walked = walks[-back] or walk
            pair = {kind, kinds[-back]}
            if rows and walked and walk in (None, walked) and walks[-back] in (None, walked) and \
                    pair <= {"rows", "cooperative", "elementwise"} and ("rows" in pair or "cooperative" in pair and any(
                        row_role(graph.nodes[x].spec, walked) == "row" for x in (*g, r))):
                merged, fits = "rows", _joins_rows(graph, g, r, walked, roots)
            else:
                # A columns or cooperative kernel computes elementwise roots too (each result's invocations
                # alike); a cooperative one, roots of one count of results (one value per row, kept or not).
                merged = kind if kind == kinds[-back] else \
                    next((k for k in ("columns", "cooperative") if pair == {"elementwise", k}), None)
                a, b = graph.nodes[g[0]].spec.shape, graph.nodes[r].spec.shape
                fits = (merged in ("elementwise", "cooperative", "columns")
                        and (a == b or merged == "cooperative" and Extent.of(a) == Extent.of(b))
                        and all(j not in g or isinstance(kind_of(graph.nodes[j]), Elementwise) for j in needs[r]))
                # (an elementwise root, folding nothing, leaves a cooperative kernel's rows as they were)
                walked = walks[-back] if walk == walks[-back] or kind == "elementwise" else None
            if not fits or group_bindings(graph, (*g, r), roots) > max_bindings:
                continue
            # g's kernel moves to r, where nothing due in between reads g's roots; else r moves to g.
            if not any(needs[x] & set(g) for x in needs if due[-back] < x < r and x not in g):
                due[-back] = r
            elif not all(due[where[j]] < due[-back] for j in needs[r] if j not in g):
                continue
            g.append(r)
            kinds[-back], walks[-back] = merged, walked
            where[r] = len(groups) - back
            break
        else:
            where[r] = len(groups)
            groups.append([r])
            due.append(r)
            kinds.append(kind)
            walks.append(walk)
    return [tuple(g) for _, g in sorted(zip(due, groups))]


def _fuse_column_partials(graph: Graph, groups: list[Group], roots: set[int], limits: Limits) -> list[Group]:
    """A column sum's first pass (`split_long_reduction`'s fold of (G, R, n) over R) of work on a
    tiled matmul's result at its own coordinates joins the matmul's kernel, where the product's
    tiles hold whole chunks of R rows: each workgroup sums its tile's columns chunk by chunk as
    it stores them (a bias's gradient, a layer norm's gain and bias gradients: summed from
    registers where the product's result is computed, not read back by kernels of their own).
    The matmul's kernel stays where it was; the sums' other reads are computed before it."""
    nodes = graph.nodes
    position = {r: k for k, g in enumerate(groups) for r in g}
    joined: dict[int, list[int]] = {}  # the matmul kernel's position -> the partial sums joining it

    def product_of(c: int, summand: int, rows: int) -> int | None:
        """The tiled product whose kernel partial sum c (of `summand`, over chunks of `rows`) can
        join, computed after all else c reads."""
        inside = inlined(graph, c, roots)
        if not all(i in (c, nodes[c].inputs[0]) or isinstance(kind_of(nodes[i]), (Elementwise, View, Source))
                   for i in inside):
            return None
        reads = [j for j in _reads(graph, c, roots) if j in roots]
        products = [j for j in reads if len(groups[position[j]]) == 1
                    and (core := _core(graph, j, roots)) is not None
                    and nodes[core].spec.shape == nodes[j].spec.shape == nodes[summand].spec.shape]
        if not products:
            return None
        e = max(products, key=position.__getitem__)  # the last computed; the others are read from memory
        *batch, m, n = nodes[e].spec.shape
        tm, _ = tile(m, n, math.prod(batch), limits.parallel_workgroups)
        if rows % tm or (THREADS * tm) % rows or m % (THREADS * tm):
            return None  # the tiles' rows are not whole chunks
        if summand not in roots and not reads_in_place(graph, summand, e, roots):
            return None
        return e if all(position[j] < position[e] for j in reads if j != e) else None

    # A kernel of partial sums only (two that share their reads) joins whole, all to one product.
    for group in groups:
        chunks = [column_chunk(graph, c) for c in group]
        if None in chunks:
            continue
        found = {product_of(c, *chunk) for c, chunk in zip(group, chunks)}
        if len(found) != 1 or None in found:
            continue
        at = position[found.pop()]
        merged = (groups[at][0], *joined.get(at, ()), *group)
        if group_bindings(graph, merged, roots) <= limits.max_storage_buffers_per_shader_stage:
            joined.setdefault(at, []).extend(group)
    gone = {c for cs in joined.values() for c in cs}
    return [(*g, *joined.get(k, ())) for k, g in enumerate(groups) if not gone & set(g)]


def _fuse_sibling_products(graph: Graph, groups: list[Group], roots: set[int], limits: Limits) -> list[Group]:
    """Tiled products of one operand by matrices of one shape (attention's q, k and v
    projections of a normed input; not a batch of matrices, as split-k's partial products are),
    each in a kernel of its own, join one kernel, each workgroup computing a tile of the product
    its column block falls in (matmul_kernel): one dispatch of their workgroups together, with
    tiles chosen for them all. The kernel runs where the last is due: neither it (an epilogue)
    nor a kernel in between may read the others' results, and the bindings must fit."""
    nodes = graph.nodes

    def key(group: Group) -> tuple | None:
        core = _core(graph, group[0], roots) if len(group) == 1 else None
        if core is None or nodes[core].spec.shape[-2] == 1:  # none, or a vector's kernel
            return None
        a, b = nodes[core].inputs
        if any(d != 1 for d in nodes[b].spec.shape[:-2]):
            return None
        return a, nodes[b].spec.shape, nodes[core].spec.shape, nodes[group[0]].spec.dtype

    out: list[list[int]] = []
    last: dict[tuple, int] = {}  # a key -> the position in `out` of the latest kernel of its products
    for group in groups:
        k = key(group)
        at = last.get(k) if k is not None else None
        if at is not None:
            merged = (*out[at], *group)  # neither reads the other's results, nor does a kernel between
            later = {j for g in (*out[at + 1:], group) for r in g for j in _reads(graph, r, roots)}
            if not later & set(out[at]) and \
                    group_bindings(graph, merged, roots) <= limits.max_storage_buffers_per_shader_stage:
                del out[at]
                out.append(list(merged))
                last = {key_: p - (p > at) for key_, p in last.items()}
                last[k] = len(out) - 1
                continue
        out.append(list(group))
        if k is not None:
            last[k] = len(out) - 1
    return [tuple(g) for g in out]


def _core(graph: Graph, root: int, roots: set[int]) -> int | None:
    """The matmul a root's kernel is tiled around (the root itself, or its epilogue's product),
    where its kernel is the tiled matmul's: 2-D tiles over fixed sizes, not a vector's."""
    found = [i for i in inlined(graph, root, roots) if tiles(graph, i)]
    if len(found) != 1 or graph.nodes[found[0]].spec.symbols or graph.nodes[found[0]].spec.ndim < 2:
        return None
    return found[0]


def _walk(graph: Graph, r: int, kind: str, inside: Sequence[int]) -> Rows | None:
    """The rows a kernel of root r alone walks (`rows`), or folds one value per row of (a
    `cooperative` one whose every fold is along the same rows), else None."""
    if kind == "rows":
        return row[1] if (row := row_root(graph, (r,), inside)) else None
    found = {folded_rows(graph, i) for i in inside if folds(graph.nodes, i)}
    if kind == "cooperative" and len(found) == 1 and None not in found:
        (rows,) = found
        return rows if row_role(graph.nodes[r].spec, rows) == "per-row" else None
    return None


def _joins_rows(graph: Graph, group: list[int], r: int, rows: Rows, roots: set[int]) -> bool:
    """Whether root r and the roots of `group` can share a kernel walking `rows` a workgroup per
    row: each is a value of whole rows or one value per row, what each folds is folded along
    those rows (never a max or min, whose folded values a second computation could round
    apart), and r reads the group's roots within its own row: through elementwise work, views
    keeping one value per row, and folds of those rows. The group's roots are then computed
    inline where r reads them."""
    nodes = graph.nodes
    for x in (*group, r):
        if row_role(nodes[x].spec, rows) is None:
            return False
        for i in inlined(graph, x, roots):
            if folds(nodes, i) and not own_fold(graph, i) and \
                    (folded_rows(graph, i) != rows or getattr(kind_of(nodes[i]), "selects", False)):
                return False
    inside = set(inlined(graph, r, roots))
    reaches = _reaching(graph, inside, set(group))
    if not all(_within_rows(graph, i, rows, rows[2]) for i in inside if reaches(i)):
        return False
    return all(isinstance(kind_of(nodes[j]), Elementwise) or folded_rows(graph, j) == rows
               for j in _reads(graph, r, roots) if j in group)


def _within_rows(graph: Graph, i: int, rows: Rows | None, width: int | Dim) -> bool:
    """Whether node i keeps each value within its row (of `width`): elementwise work, a view that
    keeps one value per row (adding or dropping size-1 axes, broadcasting the last axis back), or
    a fold along `rows`."""
    node, kind = graph.nodes[i], kind_of(graph.nodes[i])
    if isinstance(kind, View):
        return kind.keeps_rows(node, graph.nodes[node.inputs[0]].spec, width)
    return isinstance(kind, Elementwise) or (rows is not None and folded_rows(graph, i) == rows)


def _reaching(graph: Graph, inside: set[int], targets: set[int]) -> Callable[[int], bool]:
    """Whether node i of a kernel computing `inside` reads one of `targets`, itself or through
    nodes inside."""
    known: dict[int, bool] = {}

    def reaches(i: int) -> bool:
        if i not in known:
            known[i] = any(j in targets or (j in inside and reaches(j)) for j in graph.nodes[i].inputs)
        return known[i]

    return reaches


def _roots_reached(n: int, consumers: list[list[int]], roots: set[int], passes: Callable[[int], bool]
                   ) -> tuple[set[int], set[int]] | None:
    """The roots node n's value reaches through nodes that are not roots, and every node on the
    way (those roots too); None where one of the nodes walked through fails `passes`."""
    reached, stack, seen = set(), list(consumers[n]), set()
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        if c in roots:
            reached.add(c)
            continue
        if not passes(c):
            return None
        stack.extend(consumers[c])
    return reached, seen


def group_reads(graph: Graph, group: Group, roots: set[int]) -> list[int]:
    """Buffer-held nodes a kernel computing `group` loads (its own roots are computed, not loaded)."""
    others = roots - set(group)
    return sorted({j for r in group for j in _reads(graph, r, others)} - set(group))


def group_bindings(graph: Graph, group: Group, roots: set[int]) -> int:
    """The storage buffers a kernel computing `group` binds: those it loads, and one per root."""
    return len(group_reads(graph, group, roots)) + len(group)


def group_inlined(graph: Graph, group: Group, roots: set[int]) -> list[int]:
    """Nodes a kernel computing `group` computes, in id order."""
    others = roots - set(group)
    return sorted({i for r in group for i in inlined(graph, r, others)})


def _materialize_shared(roots: set[int], consumers: list[list[int]], kind: list[Kind]) -> None:
    """Add to `roots` the elementwise nodes that several kernels would compute inline, or that
    a contraction reads (it would recompute them for every use), but conversions: what one
    converts is materialized instead (a buffer the contraction converts per load)."""
    kernels: list[set[int]] = [set() for _ in kind]  # the kernels that would compute node i inline
    contracted = [False] * len(kind)  # whether a contraction reads node i
    for i in reversed(range(len(kind))):
        for c in consumers[i]:
            kernels[i] |= {c} if c in roots else kernels[c]
            contracted[i] |= isinstance(kind[c], Contraction) or (
                isinstance(kind[c], (View, Conversion)) and c not in roots and contracted[c])
        converted = isinstance(kind[i], Conversion)  # read through by a contraction: what it converts is held
        if isinstance(kind[i], Elementwise) and i not in roots and \
                (len(kernels[i]) > 1 or contracted[i] and not converted):
            roots.add(i)


def _inline_conversions(graph: Graph, roots: set[int]) -> None:
    """A conversion of a value held in a buffer (seen through views) is as cheap as a view: each
    kernel reading it converts as it loads, rather than one kernel writing a converted copy (an
    f16 model's values going to its f16 cache from its f32 stream)."""
    nodes = graph.nodes
    for i in sorted(roots):
        if i in graph.outputs or not isinstance(kind_of(nodes[i]), Conversion):
            continue
        j = nodes[i].inputs[0]
        while j not in roots and not is_buffer_source(graph, j) and isinstance(kind_of(nodes[j]), View) and \
                nodes[j].inputs:
            j = nodes[j].inputs[0]
        if j in roots or is_buffer_source(graph, j):
            roots.discard(i)


def _fuse_epilogues(graph: Graph, roots: set[int], consumers: list[list[int]]) -> None:
    """A matmul read only by an elementwise chain of its own shape ending at a kernel's root
    joins that kernel (at most one per kernel): its bias, activation or residual add is
    applied before the single store instead of in a kernel of its own."""
    nodes = graph.nodes
    cored: set[int] = set()
    for c in sorted(i for i in roots if tiles(graph, i) and i not in graph.outputs):
        e = c
        while e == c or e not in roots:
            readers = set(consumers[e])
            if len(readers) != 1:
                break
            (e,) = readers
            if not isinstance(kind_of(nodes[e]), Elementwise) or nodes[e].spec.shape != nodes[c].spec.shape:
                break
        else:
            rows = any(isinstance(kind_of(nodes[i]), (Reduction, Normalization)) for i in inlined(graph, e, roots))
            if e not in cored and not rows:  # a kernel with rows to reduce has no matmul tiles
                roots.discard(c)
                cored.add(e)


def _fuse_row_reductions(graph: Graph, roots: set[int], consumers: list[list[int]]) -> None:
    """A reduction along the last axis whose result is only broadcast back along that axis
    into one elementwise kernel of its rows joins it: the kernel runs a workgroup per row,
    reduces first, then writes the row (a layer norm, softmax's backward: one kernel). So does a
    softmax along the last axis that one such kernel alone reads (its backward pass, which
    recomputes it), and a reduction whose last axis is folded (a row sum, a full sum) that only
    elementwise work of one value per result reads (a variance's reciprocal square root, a loss's
    negated mean): a workgroup per result folds, then applies it."""
    nodes = graph.nodes
    kind = [kind_of(n) for n in nodes]
    for n in sorted(roots, reverse=True):
        node = nodes[n]
        rows = folded_rows(graph, n)
        if n in graph.outputs or not (rows or along_rows(graph, n)):
            continue
        if nodes[node.inputs[0]].spec.max_size == 0:
            continue  # a fold of nothing stays apart (see _fuse_leading_reductions)
        per = rows[0] if rows else Extent.of(node.spec.shape)
        width = rows[2] if rows else nodes[node.inputs[0]].spec.shape[-1]
        # Between the fold and the root: work within each row, folds of the same rows already
        # joined to the root among it.
        walked = _roots_reached(n, consumers, roots, lambda c: _within_rows(graph, c, rows, width))
        if walked is None or len(walked[0]) != 1:
            continue
        (e,), seen = walked
        through = any(not isinstance(kind[c], (Elementwise, View)) for c in seen - {e})
        if not isinstance(kind[e], Elementwise):
            continue
        # (one value per result computed from a fold through another would fold in the other's loop)
        if (rows and row_role(nodes[e].spec, rows) == "row") or \
                (isinstance(kind[n], Reduction) and Extent.of(nodes[e].spec.shape) == per and not through):
            roots.discard(n)


def _fuse_leading_reductions(graph: Graph, roots: set[int], consumers: list[list[int]]) -> None:
    """A reduction over leading axes (one invocation per result, its loop inline: split-k's sum of
    partial products, a long column sum's second pass) whose result only elementwise work reads,
    ending in elementwise roots of the result's shape that reduce nothing, joins their kernel
    (roots of one shape merge into one): a residual add after a split product, an optimizer's
    update of a summed gradient (a parameter's and its moments'), in one kernel with the sum. A
    short one (`own_fold`) is also read through views and by kernels that reduce rows, later
    merged or not: a transformer's down projection summed where the next layer norm's kernel
    adds it to the residual stream."""
    nodes = graph.nodes
    kind = [kind_of(n) for n in nodes]
    for n in sorted(roots, reverse=True):
        node = nodes[n]
        if not isinstance(kind[n], Reduction) or n in graph.outputs or getattr(kind[n], "selects", False) or \
                along_rows(graph, n):
            continue
        # NOTE: a fold of nothing stays apart: inline, a compiler takes its 0 for a constant and
        # folds 0 * x to 0, where x may be infinite (a mean over an empty axis is NaN).
        if nodes[node.inputs[0]].spec.max_size == 0:
            continue

        # A short fold (a split product's partial sums) is each invocation's own wherever it is computed:
        # it is read through views that move each value to one place too, by kernels that reduce rows.
        short = own_fold(graph, n)

        def alike(c: int, shape: tuple = node.spec.shape) -> bool:  # elementwise work of the result's shape
            if short and Extent.of(nodes[c].spec.shape) == Extent.of(node.spec.shape):
                return isinstance(kind[c], (Elementwise, View))
            return isinstance(kind[c], Elementwise) and nodes[c].spec.shape == shape

        walked = _roots_reached(n, consumers, roots, alike)
        if walked is None or not walked[0]:
            continue
        ends, seen = walked
        if not all(alike(e) and isinstance(kind[e], Elementwise) for e in ends) or set(graph.outputs) & (seen - ends):
            continue
        # A kernel of its own rows to reduce loops in a workgroup: not one to loop inline in.
        if short or not any(isinstance(kind[i], Normalization) or along_rows(graph, i) for e in ends
                            for i in inlined(graph, e, roots)):
            roots.discard(n)


def _recompute_rows(graph: Graph, roots: set[int], consumers: list[list[int]]) -> None:
    """A root of whole rows that elementwise work computes from one value of whole rows and values
    of one per row that folds along those rows give (a layer norm's centred rows, x - mean(x)) is
    not written: the values per row become roots instead, and each kernel reading the root computes
    it again from them, reading x where it read the root. Its own kernel writes a value per row,
    not a row. Not where a contraction reads it (it would compute it for every load), nor a view
    (which a contraction may read in turn)."""
    nodes = graph.nodes
    for i in sorted(roots, reverse=True):
        if i in graph.outputs or not isinstance(kind_of(nodes[i]), Elementwise) or \
                any(isinstance(kind_of(nodes[c]), (Contraction, View)) for c in consumers[i]):
            continue
        inside = inlined(graph, i, roots)
        found = {folded_rows(graph, j) for j in inside if folds(nodes, j)}
        if len(found) != 1 or None in found or any(getattr(kind_of(nodes[j]), "selects", False) for j in inside):
            continue
        (rows,) = found
        if row_role(nodes[i].spec, rows) != "row":
            continue
        per_row = set()  # the values per row that whole rows inside read, seen through views
        for c in inside:
            if row_role(nodes[c].spec, rows) == "row":
                for j in nodes[c].inputs:
                    # (an iota is a view of nothing: the walk stops at it)
                    while j in inside and nodes[j].inputs and isinstance(kind_of(nodes[j]), View) and \
                            row_role(nodes[j].spec, rows):
                        j = nodes[j].inputs[0]
                    if j in inside and row_role(nodes[j].spec, rows) == "per-row":
                        per_row.add(j)
        kept = roots | per_row
        rest = inlined(graph, i, kept)
        whole = [j for j in _reads(graph, i, kept) if row_role(nodes[j].spec, rows) == "row"]
        if per_row and len(whole) == 1 and not any(folds(nodes, j) for j in rest):
            roots.discard(i)
            roots |= per_row


def _materialize_selected(graph: Graph, roots: set[int]) -> None:
    """A max (or min) fused into its rows' kernel folds values in one loop while the kernel
    computes them again per element. The compiler may round the two computations apart
    (fused multiply-adds, reassociation), yet the max's gradient and `x == max(x)` find the
    maxima by equality with them. So each value such a reduction folds that the kernel computes
    elsewhere too becomes a root: both loops read it from one buffer."""
    nodes = graph.nodes
    fused = {i for i, node in enumerate(nodes) if getattr(kind_of(node), "selects", False) and i not in roots}
    pending = sorted(roots) if fused else []
    while pending:
        root = pending.pop()
        for n in sorted(fused.intersection(inlined(graph, root, roots))):
            elsewhere = set(inlined(graph, root, roots | {n}))
            stack = [nodes[n].inputs[0]]
            while stack:
                j = stack.pop()
                if j in roots or isinstance(kind_of(nodes[j]), Source):
                    continue
                if j in elsewhere and isinstance(kind_of(nodes[j]), Elementwise):
                    roots.add(j)
                    pending.append(j)
                else:
                    stack.extend(nodes[j].inputs)


def inlined(graph: Graph, root: int, roots: set[int]) -> list[int]:
    """Nodes computed inside `root`'s kernel (root included), in id order."""
    seen, stack = set(), [root]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        for j in graph.nodes[i].inputs:
            if j not in roots and not is_buffer_source(graph, j):
                stack.append(j)
    return sorted(seen)


def _reads(graph: Graph, root: int, roots: set[int]) -> list[int]:
    """Buffer-held nodes that `root`'s kernel loads, in id order."""
    inside = inlined(graph, root, roots)
    return sorted({j for i in inside for j in graph.nodes[i].inputs
                   if j in roots or is_buffer_source(graph, j)})


def _widest_inlined(graph: Graph, root: int, roots: set[int], total: int) -> int:
    """The inlined node whose own reads are the most, yet fewer than the kernel's: materializing it
    lowers the kernel's binding count."""
    best, best_count = None, 1
    for i in inlined(graph, root, roots):
        count = len(_reads(graph, i, roots))
        if i != root and best_count < count < total:
            best, best_count = i, count
    if best is None:
        raise AssertionError(f"node {root}: cannot split a kernel reading {total} buffers")
    return best


def reads_in_place(graph: Graph, root: int, source: int, roots: set[int]) -> bool:
    """Whether `root`'s kernel reads `source` only at its own output coordinates: every
    path from the root down to `source` runs through elementwise ops alone."""
    inside = set(inlined(graph, root, roots))
    reaches = _reaching(graph, inside, {source})
    return all(isinstance(kind_of(graph.nodes[i]), Elementwise) for i in inside if i == root or reaches(i))
