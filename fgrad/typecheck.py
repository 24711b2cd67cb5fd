"""Type checking: of a graph against its primitives' abstract evaluation, and of call
arguments against a graph's inputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, GraphError, InputError, ShapeError
from fgrad.ir import PRIMITIVES, Dim, DType, Graph, Spec, check_symbols, input_p
from fgrad.pytree import first_difference, flatten, leaves_in, split_path
from fgrad.trace import check_int_range, require_graph


def typecheck(graph: Graph) -> Graph:
    """Re-derive every node's spec from its op's rule; raise GraphError on any mismatch.

    Returns the graph, so that it can wrap a transform's result.
    """
    require_graph(graph, "typecheck")

    def fail(i: int, why: str) -> GraphError:
        node = graph.nodes[i]
        return GraphError(f"typecheck: node %{i} ({node.op}) {why}", node.site)

    try:
        check_symbols(graph)
    except ShapeError as e:
        raise GraphError(f"typecheck: {e}") from None
    for i, node in enumerate(graph.nodes):
        if node.op not in PRIMITIVES:
            raise fail(i, "has an unknown op")
        if any(not 0 <= j < i for j in node.inputs):
            raise fail(i, f"reads {node.inputs}, which are not earlier nodes")
        try:
            want = PRIMITIVES[node.op].node_spec(*(graph.nodes[j].spec for j in node.inputs), **node.attrs)
        except Exception as e:  # noqa: BLE001 - any failure of the rule means a malformed node
            raise fail(i, f"breaks its op's rule: {type(e).__name__}: {e}") from None
        if want != node.spec:
            raise fail(i, f"declares {node.spec} but its rule gives {want}")
    if sorted(graph.inputs) != [i for i, n in enumerate(graph.nodes) if n.op == input_p.name]:
        raise GraphError(f"typecheck: graph inputs {graph.inputs} are not exactly the input nodes")
    if len(graph.inputs) != graph.in_tree.num_leaves:
        raise GraphError(f"typecheck: {len(graph.inputs)} inputs for an argument structure of {graph.in_tree.num_leaves} leaves")
    if any(not 0 <= i < len(graph.nodes) for i in graph.outputs) or len(graph.outputs) != graph.out_tree.num_leaves:
        raise GraphError(f"typecheck: outputs {graph.outputs} do not fit {len(graph.nodes)} nodes and structure {graph.out_tree}")
    names = graph.input_names
    if len(set(names)) != len(names):
        raise GraphError(f"typecheck: input names are not unique: {names}")
    captured = [name for name, _ in graph.captures]
    if len(set(captured)) != len(captured) or any(not 0 <= i < len(graph.nodes) for _, i in graph.captures):
        raise GraphError(f"typecheck: captures {graph.captures} are not unique names of nodes")
    return graph


def _arg_label(graph: Graph, path: str) -> str:
    """Turn a structure path `1.layers.0` into `params.layers.0` using the input names."""
    head, rest = split_path(path)
    if not head.isdigit():
        return path
    return graph.arg_names[int(head)] + rest


# Python numbers are weakly typed: an int may feed a float input, as in JAX (a bool any input).
_WEAK_OK = {"f": (bool, int, float), "i": (bool, int), "u": (bool, int), "b": (bool,)}


def check_args(graph: Graph, args: tuple[Any, ...], who: str, site: str | None,
               float64: bool = False) -> tuple[list[Any], dict[str, int]]:
    """Check call arguments against the graph's inputs; return the leaves in input order and
    the value each symbol of a symbolic graph takes from them (`symbol_values`; empty without).

    Raises InputError naming the first argument whose structure, shape or dtype
    differs, and the caller's `site`. With `float64` (interpret's float64 mode), a
    float64 array fits any float input.
    """
    if len(args) != len(graph.in_tree.children):
        names = ", ".join(graph.arg_names)
        raise InputError(f"{who}: the graph takes {len(graph.in_tree.children)} arguments ({names}), got {len(args)}", site)
    leaves = leaves_in(tuple(args), graph.in_tree)
    if leaves is None:
        path, what = first_difference(graph.in_tree, flatten(tuple(args))[1])
        raise InputError(f"{who}: argument {_arg_label(graph, path)} does not match the graph's input: {what}", site)
    symbolic = False  # found while checking, so a call of a graph without symbols pays nothing for them
    for name, want, leaf in zip(graph.input_names, graph.in_specs, leaves):
        if getattr(leaf, "spec", None) == want:  # an fg.Array of the right spec
            continue
        if isinstance(leaf, Spec):  # shape and dtype alone: a call needs values
            raise InputError(f"{who}: argument {name} is a Spec {leaf}, expected an array {want}: a call takes "
                             "values (arrays, fg.Array, numbers); specs are for fg.trace", site)
        if type(leaf) in (bool, int, float):
            ok = want.shape == () and type(leaf) in _WEAK_OK[want.dtype.kind]
            got = f"a Python {type(leaf).__name__}"
        else:
            shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
            if shape is None or dtype is None:
                raise InputError(f"{who}: argument {name} is a {type(leaf).__name__}, expected an array {want}", site)
            try:
                wide = float64 and want.dtype.is_float and np.dtype(dtype) == np.float64
                ok = _fits(tuple(shape), want.shape) and (DType.of(dtype) is want.dtype or wide)
            except DTypeError:
                ok = False
            got = f"{dtype}{list(shape)}".replace(" ", "")
            symbolic = symbolic or len(want.symbols) > 0
        if not ok:
            raise InputError(f"{who}: argument {name} is {got}, expected {want}", site)
        check_int_range(leaf, want, f"{who}: argument {name}", site)
    return leaves, symbol_values(graph, leaves, who, site) if symbolic else {}


def _fits(shape: tuple[int, ...], want: tuple[int | Dim, ...]) -> bool:
    """Whether a concrete shape has `want`'s rank and fixed sizes (a symbol's value is checked apart)."""
    return len(shape) == len(want) and all(isinstance(w, Dim) or s == w for s, w in zip(shape, want))


def symbol_values(graph: Graph, leaves: Sequence[Any], who: str, site: str | None) -> dict[str, int]:
    """The value of each symbol of the graph's inputs, read off the shapes of the argument leaves
    (in input order, already checked by `check_args`). Raises InputError naming the symbol, its
    values and the arguments where a value is above the symbol's maximum or two disagree."""
    values: dict[str, tuple[int, str]] = {}
    for name, want, leaf in zip(graph.input_names, graph.in_specs, leaves):
        for axis, d in enumerate(want.shape):
            if not isinstance(d, Dim):
                continue
            got, at = int(np.shape(leaf)[axis]), f"{name} (axis {axis})"
            if not 1 <= got <= d.max:
                raise InputError(f"{who}: argument {at} gives the symbol {d} the value {got}, outside 1..{d.max}", site)
            seen = values.setdefault(d.name, (got, at))
            if seen[0] != got:
                raise InputError(f"{who}: arguments disagree on the symbol {d}: {seen[1]} gives {seen[0]}, {at} gives "
                                 f"{got}", site)
    return {name: value for name, (value, _) in values.items()}
