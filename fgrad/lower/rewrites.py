"""Graph rewrites lowering applies before deciding kernels: each node rewritten into
several that map better onto kernels and adapter limits. Each is Graph -> Graph."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from fgrad.ir import DType, Graph, Node
from fgrad.ops import OPS

Expand = Callable[[Node, list[int], Callable[..., int]], "int | None"]


def _expand(graph: Graph, rewrite: Expand) -> Graph:
    """Copy `graph`, letting `rewrite(node, new input ids, add)` replace a node by several:
    `add(op, inputs, site, **params)` appends a node (its spec from the op's rule) and gives its id."""
    nodes: list[Node] = []
    new_id: dict[int, int] = {}

    def add(op: str, inputs: Sequence[int], site: str | None, **params: Any) -> int:
        spec = OPS[op].rule(*(nodes[j].spec for j in inputs), **params)
        nodes.append(Node(op, tuple(inputs), tuple(sorted(params.items())), spec, site))
        return len(nodes) - 1

    for i, node in enumerate(graph.nodes):
        ins = [new_id[j] for j in node.inputs]
        found = rewrite(node, ins, add)
        if found is None:
            nodes.append(Node(node.op, tuple(ins), node.params, node.spec, node.site))
            found = len(nodes) - 1
        new_id[i] = found
    return Graph(tuple(nodes), tuple(new_id[i] for i in graph.inputs), tuple(new_id[i] for i in graph.outputs),
                 graph.in_tree, graph.out_tree)


def split_wide_concatenates(graph: Graph, max_operands: int) -> Graph:
    """Rewrite each concatenate of more than `max_operands` operands as a tree of narrower ones."""

    def rewrite(node: Node, ins: list[int], add: Callable[..., int]) -> int | None:
        if node.op != "concatenate" or len(ins) <= max_operands:
            return None
        axis = node.attrs["axis"]
        while len(ins) > max_operands:
            groups = [ins[k: k + max_operands] for k in range(0, len(ins), max_operands)]
            ins = [g[0] if len(g) == 1 else add("concatenate", g, node.site, axis=axis) for g in groups]
        return add("concatenate", ins, node.site, axis=axis)

    return _expand(graph, rewrite)


def split_long_reductions(graph: Graph, longest: int = 64, enough: int = 1 << 16) -> Graph:
    """Reduce over leading axes in two passes when each result folds more than `longest`
    values and there are fewer than `enough` results to keep the GPU busy: (R, *rest) ->
    (R/c, c, *rest) summed over c, then over R/c. Each pass runs one invocation per result,
    reading along the contiguous rest, with R/c times the parallelism."""

    def rewrite(node: Node, ins: list[int], add: Callable[..., int]) -> int | None:
        if OPS[node.op].fusion != "reduction" or OPS[node.op].folds is None:
            return None
        axes = node.attrs["axes"]
        shape = graph.nodes[node.inputs[0]].spec.shape
        count = math.prod(shape[a] for a in axes)
        if axes != tuple(range(len(axes))) or len(shape) - 1 in axes or count <= longest or node.spec.size >= enough:
            return None
        chunk = 1 << (int(math.log2(count)) // 2)
        while count % chunk:
            chunk //= 2
        if chunk < 8:
            return None
        split = add("reshape", ins, node.site, shape=(count // chunk, chunk, *shape[len(axes):]))
        partial = add(node.op, [split], node.site, axes=(1,))
        return add(node.op, [partial], node.site, axes=(0,))

    return _expand(graph, rewrite)


def split_long_matmuls(graph: Graph, parallel: int) -> Graph:
    """Split the k axis of a matrix product too small in m and n to keep `parallel` workgroups
    busy (a weight gradient: 256 x 256 outputs over k = 4096): S partial products run as a
    batch, then sum (split-k)."""

    def rewrite(node: Node, ins: list[int], add: Callable[..., int]) -> int | None:
        if node.op != "matmul" or node.spec.ndim != 2 or node.spec.dtype is not DType.f32:
            return None
        (m, n), k = node.spec.shape, graph.nodes[node.inputs[0]].spec.shape[-1]
        tiles_now = math.ceil(m / 64) * math.ceil(n / 64)
        split = 1
        while tiles_now * split < parallel and k % (2 * split) == 0 and k // (2 * split) >= 64:
            split *= 2
        if split == 1:
            return None
        a = add("transpose", [add("reshape", [ins[0]], node.site, shape=(m, split, k // split))], node.site, perm=(1, 0, 2))
        b = add("reshape", [ins[1]], node.site, shape=(split, k // split, n))
        return add("sum", [add("matmul", [a, b], node.site)], node.site, axes=(0,))

    return _expand(graph, rewrite)
