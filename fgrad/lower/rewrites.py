"""Graph rewrites lowering applies before deciding kernels: a node rewritten into several
that map better onto kernels and adapter limits (wide concatenates, long reductions, thin
long matmuls). The rules are looked up by primitive in `rewrite_rules`, registered with the
primitives (fgrad/primitives.py); `rewrite` applies them in one walk, Graph -> Graph, and
makes every empty value a constant."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.ir import PRIMITIVES, RESULT, Const, DType, Graph, Node, RuleTable, call_of, constant_p
from fgrad.lower.matmul import SHORT_ROWS, tile
from fgrad.lower.program import Limits
from fgrad.transforms.passes import rebuild

# (node with renumbered inputs, nodes so far, add, limits) -> the id of its replacement, or None;
# `add(op, inputs, site, **params)` appends a node (its spec from the primitive's abstract
# evaluation) and gives its id. A multiple-results primitive's rule gives the ids of all its
# results, once per application (a call's body is inlined once, its effects called once).
Rewrite = Callable[[Node, list[Node], Callable[..., int], Limits], "int | Sequence[int] | None"]

rewrite_rules = RuleTable("rewrite", "lowering rewrite", optional=True)


def rewrite(graph: Graph, limits: Limits) -> Graph:
    """Apply each node's rewrite rule, if its primitive has one; an empty value (a size 0)
    becomes a constant."""
    applied: dict[tuple, Sequence[int] | None] = {}  # each application of a multiple-results primitive rewritten

    def expand(node: Node, nodes: list[Node]) -> int | Node | None:
        if node.spec.max_size == 0 and node.op != constant_p.name and not node.spec.symbols:
            # An empty value has nothing to compute: a constant, so no kernel is planned for it
            # and what only it read is dropped.
            empty = Const.of(np.zeros(node.spec.shape, node.spec.dtype.np), node.spec.dtype)
            return Node(constant_p.name, (), (("value", empty),), node.spec, node.site)
        rule = rewrite_rules.get(node.op)
        if rule is None:
            return None

        def add(op: str, inputs: Sequence[int], site: str | None, *, rewritten: bool = False, **params: Any) -> int:
            """Append a node; `rewritten`: after its own rewrite (a node of an inlined body)."""
            spec = PRIMITIVES[op].node_spec(*(nodes[j].spec for j in inputs), **params)
            new = Node(op, tuple(inputs), tuple(sorted(params.items())), spec, site)
            result = expand(new, nodes) if rewritten else None
            while isinstance(result, Node):
                new, result = result, expand(result, nodes)
            if isinstance(result, int):
                return result
            nodes.append(new)
            return len(nodes) - 1

        if not PRIMITIVES[node.op].multiple_results:
            return rule(node, nodes, add, limits)
        key = call_of(node)
        if key not in applied:
            applied[key] = rule(node, nodes, add, limits)
        results = applied[key]
        return None if results is None else results[node.attrs[RESULT]]

    return rebuild(graph, expand)


def inline_body(body: Graph, operands: Sequence[int], add: Callable[..., int]) -> list[int]:
    """Add the nodes of `body` (a graph param: a branch, a custom rule's function) reading the node
    ids `operands` for its inputs; the ids of its outputs. Every result of a call is inlined
    whole, so its siblings' copies merge when the graph is simplified."""
    ids: dict[int, int] = dict(zip(body.inputs, operands))
    for i, node in enumerate(body.nodes):
        if i not in ids:
            ids[i] = add(node.op, [ids[j] for j in node.inputs], node.site, rewritten=True, **node.attrs)
    return [ids[i] for i in body.outputs]


def split_wide_concatenate(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> int | None:
    """A concatenate of more operands than a kernel may bind becomes a tree of narrower ones."""
    ins, most = list(node.inputs), limits.max_storage_buffers_per_shader_stage - 1
    if len(ins) <= most:
        return None
    axis = node.attrs["axis"]
    while len(ins) > most:
        groups = [ins[k: k + most] for k in range(0, len(ins), most)]
        ins = [g[0] if len(g) == 1 else add(node.op, g, node.site, axis=axis) for g in groups]
    return add(node.op, ins, node.site, axis=axis)


def split_long_reduction(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits,
                         longest: int = 64, enough: int = 1 << 16) -> int | None:
    """Reduce over leading axes in two passes when each result folds more than `longest`
    values and there are fewer than `enough` results to keep the GPU busy: (R, *rest) ->
    (R/c, c, *rest) reduced over c, then over R/c. Each pass runs one invocation per result,
    reading along the contiguous rest, with R/c times the parallelism. For associative
    reductions (sum, max, min). Both passes run in the dtype's `wide` one (an f16 sum's partial
    sums stay f32), rounded back once."""
    axes = node.attrs["axes"]
    shape = nodes[node.inputs[0]].spec.shape
    if nodes[node.inputs[0]].spec.symbols:  # a symbol's axis cannot be split into fixed chunks
        return None
    count = math.prod(shape[a] for a in axes)
    if axes != tuple(range(len(axes))) or len(shape) - 1 in axes or count <= longest or node.spec.size >= enough:
        return None
    chunk = 1 << (int(math.log2(count)) // 2)
    while count % chunk:
        chunk //= 2
    if chunk < 8:
        return None
    split = add("reshape", list(node.inputs), node.site, shape=(count // chunk, chunk, *shape[len(axes):]))
    dtype = node.spec.dtype
    if dtype.wide is not dtype:
        split = add("astype", [split], node.site, dtype=dtype.wide)
    partial = add(node.op, [split], node.site, axes=(1,))
    total = add(node.op, [partial], node.site, axes=(0,))
    return total if dtype.wide is dtype else add("astype", [total], node.site, dtype=dtype)


SPLIT_BYTES = 1 << 26  # the most bytes of partial products split-k makes of a symbol's rows (at its maximum)


def split_long_matmul(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> int | None:
    """Split the k axis of a matrix product too small in m and n to keep the adapter's parallel
    workgroups busy (a weight gradient: 256 x 256 outputs over k = 4096): S partial products
    run as a batch, then sum (split-k). A product of a weight matrix (2-D, or with batch axes of
    size 1) by rows with leading axes is one product of all the rows, of a symbol's count too (a
    prefill's (1, T, d) @ (d, n), sized for T's maximum). One row (a decode step's) is not split:
    the vector kernel keeps its epilogue fused. f16 operands are converted as the partial
    products load them: partial sums stay f32, and the result is rounded once, as unsplit."""
    a, b = node.inputs
    if node.spec.ndim < 2 or not node.spec.dtype.is_float or nodes[b].spec.symbols \
            or nodes[a].spec.shape[-1] != nodes[b].spec.shape[-2] or any(d != 1 for d in nodes[b].spec.shape[:-2]):
        return None  # a symbol's k cannot be split into fixed chunks
    *lead, n = node.spec.max_shape
    m, k = math.prod(lead), nodes[b].spec.shape[-2]
    if m == 1:
        return None  # one row: the vector kernel's small workgroups already fill the adapter
    # A symbol's rows are planned for a short prompt's (SHORT_ROWS), the partial products kept
    # within SPLIT_BYTES at the symbol's maximum.
    rows = min(m, SHORT_ROWS) if node.spec.symbols else m
    tiles_now = math.ceil(rows / 64) * math.ceil(n / 64)
    split = 1

    def halves() -> bool:  # whether k splits in twice as many chunks, each of 64 or more
        return k % (2 * split) == 0 and k // (2 * split) >= 64 and \
            not (node.spec.symbols and 2 * split * m * n * 4 > SPLIT_BYTES)

    while tiles_now * split < limits.parallel_workgroups and halves():
        split *= 2
    # On a GPU, on while the partial products' tiles stay small (under 32 outputs an invocation)
    # and k pays for the partial sums' traffic (50 multiply-adds a byte written and read back):
    # 4096 x 1024 @ 1024 x 256 in 2 (8 x 4 tiles, not 4 x 4), a weight gradient of 1024 x 256 over
    # 4096 rows in 8, not 4 (on an H100: 105 -> 101 and 107 -> 96 us).
    while not limits.cpu and math.prod(tile(rows, n, split, limits.parallel_workgroups)) < 32 and \
            k >= 100 * (4 * split + 1) and halves():
        split *= 2
    if split == 1:
        return None
    if node.spec.dtype is not DType.f32:  # f16 and bfloat16: partial sums in f32
        a, b = (add("astype", [x], node.site, dtype=DType.f32) for x in (a, b))
    if node.spec.symbols:  # rows keep their axes: (*lead, k) -> (S, *lead, k / S) @ (S, 1.., k / S, n)
        axes = nodes[a].spec.ndim - 1
        a = add("reshape", [a], node.site, shape=(*nodes[a].spec.shape[:-1], split, k // split))
        a = add("transpose", [a], node.site, perm=(axes, *range(axes), axes + 1))
        b = add("reshape", [b], node.site, shape=(split, *[1] * (axes - 1), k // split, n))
    else:  # all rows as one: (m, k) -> (S, m, k / S) @ (S, k / S, n)
        a = add("transpose", [add("reshape", [a], node.site, shape=(m, split, k // split))], node.site, perm=(1, 0, 2))
        b = add("reshape", [b], node.site, shape=(split, k // split, n))
    out = add("sum", [add(node.op, [a, b], node.site)], node.site, axes=(0,))
    if nodes[out].spec.shape != node.spec.shape:
        out = add("reshape", [out], node.site, shape=node.spec.shape)
    return out if node.spec.dtype is DType.f32 else add("astype", [out], node.site, dtype=node.spec.dtype)
