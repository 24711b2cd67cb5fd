"""Graph passes that keep graphs lean; each is a pure function Graph -> Graph.

- `fold_constants`: evaluates nodes whose inputs are all constants (when the
  result is no larger than its inputs) and applies each op's algebraic
  identities (its rule in `simplify_rules`, registered in fgrad/primitives.py:
  x*1, x+0, double transpose, reshape of reshape, ...).
- `eliminate_common_subexpressions`: merges nodes with the same op, inputs
  and params.
- `eliminate_dead_code`: drops nodes no output depends on (inputs stay).
- `simplify`: all three until nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from fgrad.ir import PRIMITIVES, Const, Graph, Node, RuleTable, bodies, constant_p, has_effects, input_p
from fgrad.trace import require_graph

# (node with inputs already renumbered, nodes kept so far) -> an existing id, a new node, or None.
Rewrite = Callable[[Node, list[Node]], "int | Node | None"]

simplify_rules = RuleTable("simplify", "simplify rule", optional=True)
# Primitives through which a constant keeps every element's value, so that a uniform one
# stays uniform (broadcasts, reshapes); registered with them.
uniform_through: set[str] = set()

FOLD_LIMIT = 1 << 16  # largest constant (in elements) that folding may create


def rebuild(graph: Graph, rewrite: Rewrite | None = None, keep: Sequence[bool] | None = None) -> Graph:
    """Walk `graph` in order, renumbering: `rewrite` may alias each non-input node to an
    existing id, replace it by a new node, or append nodes of its own to `nodes` and return
    the id of the last; nodes whose `keep` is False are dropped (no kept node may read them)."""
    nodes: list[Node] = []
    new_id: dict[int, int] = {}
    for i, node in enumerate(graph.nodes):
        if keep is not None and not keep[i]:
            continue
        inputs = tuple(new_id[j] for j in node.inputs)
        if inputs != node.inputs:
            node = Node(node.op, inputs, node.params, node.spec, node.site)
        result = rewrite(node, nodes) if rewrite is not None and node.op != input_p.name else None
        while isinstance(result, Node):  # a replacement may simplify further
            node, result = result, rewrite(result, nodes)
        if isinstance(result, int):
            new_id[i] = result
        else:
            nodes.append(node)
            new_id[i] = len(nodes) - 1
    return Graph(tuple(nodes), tuple(new_id[i] for i in graph.inputs), tuple(new_id[i] for i in graph.outputs),
                 graph.in_tree, graph.out_tree, tuple((name, new_id[i]) for name, i in graph.captures))


def uniform_constant(nodes: Sequence[Node], i: int) -> float | int | bool | None:
    """The value of node `i` if it is a constant with all elements equal (seen through
    broadcasts and reshapes), else None."""
    while nodes[i].op in uniform_through:
        i = nodes[i].inputs[0]
    if nodes[i].op != constant_p.name:
        return None
    const = nodes[i].attrs["value"]
    if len(const.data) == np.dtype(const.dtype.np).itemsize:  # held as one element (Const.of)
        return np.frombuffer(const.data, const.dtype.np)[0].item()
    arr = const.array
    return arr.flat[0].item() if arr.size and (arr == arr.flat[0]).all() else None  # an empty one has no value


def _constant_value(nodes: list[Node], i: int) -> tuple[np.ndarray, int] | None:
    """Value of node `i` if it is a constant, or a broadcast or reshape of one (to a shape
    without symbols: one with them has no value until a call), with the size of that
    underlying constant."""
    node = nodes[i]
    if node.spec.symbols:
        return None
    if node.op == constant_p.name:
        return node.attrs["value"].array, node.spec.size
    if node.op in uniform_through:
        inner = _constant_value(nodes, node.inputs[0])
        if inner is not None:
            return PRIMITIVES[node.op].node_value(inner[0], **node.attrs), inner[1]
    return None


def _fold(node: Node, nodes: list[Node]) -> int | Node | None:
    values = [_constant_value(nodes, j) for j in node.inputs]
    # Fold only what does not grow: a broadcast of a scalar stays a broadcast. A node holding a body
    # (a loop, a call) is not folded: evaluating it may be a whole program's work; nor a host
    # call: the program calls it.
    if values and None not in values and not node.spec.symbols and not PRIMITIVES[node.op].host and \
            node.spec.size <= min(FOLD_LIMIT, max(size for _, size in values)) and \
            not bodies(node.params):
        value = PRIMITIVES[node.op].node_value(*(v for v, _ in values), **node.attrs)
        return Node(constant_p.name, (), (("value", Const.of(value, node.spec.dtype)),), node.spec, node.site)
    rule = simplify_rules.get(node.op)
    return rule(node, nodes) if rule is not None else None


def fold_constants(graph: Graph) -> Graph:
    """Evaluate all-constant nodes and apply each op's algebraic identities."""
    require_graph(graph, "fold_constants")
    return rebuild(graph, _fold)


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Merge nodes that apply the same op with the same params to the same inputs (not two
    effects: each is called)."""
    require_graph(graph, "eliminate_common_subexpressions")
    seen: dict[tuple[str, tuple[int, ...], tuple], int] = {}

    def merge(node: Node, nodes: list[Node]) -> int | None:
        if has_effects(node.op, node.params):
            return None
        key = (node.op, node.inputs, node.params)
        if key in seen:
            return seen[key]
        seen[key] = len(nodes)  # the id this node gets when appended
        return None

    return rebuild(graph, merge)


def eliminate_dead_code(graph: Graph) -> Graph:
    """Drop nodes that no output, capture or effect depends on; graph inputs always stay."""
    require_graph(graph, "eliminate_dead_code")
    live = [False] * len(graph.nodes)
    effects = (i for i, node in enumerate(graph.nodes) if has_effects(node.op, node.params)) if graph.effectful else ()
    for i in (*graph.outputs, *graph.inputs, *(i for _, i in graph.captures), *effects):
        live[i] = True
    for i in reversed(range(len(graph.nodes))):
        if live[i]:
            for j in graph.nodes[i].inputs:
                live[j] = True
    return rebuild(graph, keep=live)


def simplify(graph: Graph) -> Graph:
    """Fold, merge and prune until the graph stops changing."""
    require_graph(graph, "simplify")
    while True:
        out = eliminate_dead_code(eliminate_common_subexpressions(fold_constants(graph)))
        if out == graph:
            return out
        graph = out
