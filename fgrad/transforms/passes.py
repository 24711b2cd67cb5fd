"""Graph passes that keep graphs lean; each is a pure function Graph -> Graph.

- `fold_constants`: evaluates nodes whose inputs are all constants (when the
  result is no larger than its inputs) and applies each op's algebraic
  identities (its `simplify` rule in fgrad/ops.py: x*1, x+0, double
  transpose, reshape of reshape, ...).
- `eliminate_common_subexpressions`: merges nodes with the same op, inputs
  and params.
- `eliminate_dead_code`: drops nodes no output depends on (inputs stay).
- `simplify`: all three until nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fgrad.ir import Const, Graph, Node, require_graph
from fgrad.ops import OPS

# (node with inputs already renumbered, nodes kept so far) -> an existing id, a new node, or None.
Rewrite = Callable[[Node, list[Node]], "int | Node | None"]

FOLD_LIMIT = 1 << 16  # largest constant (in elements) that folding may create


def _rebuild(graph: Graph, rewrite: Rewrite) -> Graph:
    """Walk `graph` in order, letting `rewrite` alias or replace each non-input node."""
    nodes: list[Node] = []
    new_id: dict[int, int] = {}
    for i, node in enumerate(graph.nodes):
        node = Node(node.op, tuple(new_id[j] for j in node.inputs), node.params, node.spec, node.site)
        result = rewrite(node, nodes) if node.op != "input" else None
        while isinstance(result, Node):  # a replacement may simplify further
            node, result = result, rewrite(result, nodes)
        if isinstance(result, int):
            new_id[i] = result
        else:
            nodes.append(node)
            new_id[i] = len(nodes) - 1
    return _renumbered(graph, nodes, new_id)


def _renumbered(graph: Graph, nodes: list[Node] | tuple[Node, ...], new_id: dict[int, int]) -> Graph:
    """`graph` with new nodes, its inputs, outputs and captures mapped through `new_id`."""
    return Graph(tuple(nodes), tuple(new_id[i] for i in graph.inputs), tuple(new_id[i] for i in graph.outputs),
                 graph.in_tree, graph.out_tree, tuple((name, new_id[i]) for name, i in graph.captures))


def _constant_value(nodes: list[Node], i: int) -> tuple[np.ndarray, int] | None:
    """Value of node `i` if it is a constant, or a broadcast or reshape of one,
    with the size of that underlying constant."""
    node = nodes[i]
    if node.op == "constant":
        return node.attrs["value"].array, node.spec.size
    if node.op in ("broadcast_to", "reshape"):
        inner = _constant_value(nodes, node.inputs[0])
        if inner is not None:
            return OPS[node.op].impl(inner[0], **node.attrs), inner[1]
    return None


def _fold(node: Node, nodes: list[Node]) -> int | Node | None:
    values = [_constant_value(nodes, j) for j in node.inputs]
    # Fold only what does not grow: a broadcast of a scalar stays a broadcast.
    if values and None not in values and node.spec.size <= min(FOLD_LIMIT, max(size for _, size in values)):
        value = OPS[node.op].impl(*(v for v, _ in values), **node.attrs)
        return Node("constant", (), (("value", Const.of(value, node.spec.dtype)),), node.spec, node.site)
    rule = OPS[node.op].simplify
    return rule(node, nodes) if rule is not None else None


def fold_constants(graph: Graph) -> Graph:
    """Evaluate all-constant nodes and apply each op's algebraic identities."""
    require_graph(graph, "fold_constants")
    return _rebuild(graph, _fold)


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Merge nodes that apply the same op with the same params to the same inputs."""
    require_graph(graph, "eliminate_common_subexpressions")
    seen: dict[tuple[str, tuple[int, ...], tuple], int] = {}

    def merge(node: Node, nodes: list[Node]) -> int | None:
        key = (node.op, node.inputs, node.params)
        if key in seen:
            return seen[key]
        seen[key] = len(nodes)  # the id this node gets when appended
        return None

    return _rebuild(graph, merge)


def eliminate_dead_code(graph: Graph) -> Graph:
    """Drop nodes that no output or capture depends on; graph inputs always stay."""
    require_graph(graph, "eliminate_dead_code")
    live = [False] * len(graph.nodes)
    for i in (*graph.outputs, *graph.inputs, *(i for _, i in graph.captures)):
        live[i] = True
    for i in reversed(range(len(graph.nodes))):
        if live[i]:
            for j in graph.nodes[i].inputs:
                live[j] = True
    kept = [i for i in range(len(graph.nodes)) if live[i]]
    new_id = {old: new for new, old in enumerate(kept)}
    nodes = [Node(n.op, tuple(new_id[j] for j in n.inputs), n.params, n.spec, n.site) for n in (graph.nodes[i] for i in kept)]
    return _renumbered(graph, nodes, new_id)


def simplify(graph: Graph) -> Graph:
    """Fold, merge and prune until the graph stops changing."""
    require_graph(graph, "simplify")
    while True:
        out = eliminate_dead_code(eliminate_common_subexpressions(fold_constants(graph)))
        if out == graph:
            return out
        graph = out
