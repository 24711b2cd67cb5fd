"""Bodies: the graphs that loops, branches and calls hold in their params, and what their rules do
with them: trace a function into one, rearrange its inputs, evaluate part of one in the current
trace, run one with NumPy, and trace its vjp, jvp or batched replay into a new body.

A body is a frozen Graph over flat tuples of leaves. The primitives that hold bodies
(fgrad/primitives/control_flow.py: scan, while, cond; fgrad/primitives/calls.py: the custom
rules' calls, checkpoint) write every rule as a transform of their bodies with these."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import ShapeError
from fgrad.interpret import interpret
from fgrad.ir import PRIMITIVES, RESULT, Dim, Graph, Node, Spec, call_of, call_params, input_p
from fgrad.pytree import flatten
from fgrad.trace import bind, sites_from, trace_function
from fgrad.transforms.autodiff import backward, replay
from fgrad.transforms.batching import batch_replay, with_batch
from fgrad.transforms.forward import jvp_replay, zeros_like
from fgrad.transforms.passes import simplify


# ---------------------------------------------------------------------------
# Bodies: tracing, arranging, evaluating part of one
# ---------------------------------------------------------------------------


def body_graph(fn: Callable[..., Sequence[Any]], specs: Sequence[Spec], names: Sequence[str]) -> Graph:
    """`fn`, a function of leaves returning a sequence of leaves, traced over `specs` into a
    simplified body (inputs named `names`). It closes over no Tensor of another trace."""
    return simplify(trace_function(lambda *leaves: tuple(fn(*leaves)), list(specs), list(names))[0])


def arranged(graph: Graph, order: Sequence[int | Spec], names: Sequence[str]) -> Graph:
    """`graph` taking its inputs in `order`, named `names`: each entry is the position of one of
    its inputs, or a Spec for a new input it does not read (a const another branch reads).
    Input nodes come first; captures are dropped (a body's intermediates are not the program's)."""
    assert sorted(k for k in order if isinstance(k, int)) == list(range(len(graph.inputs)))
    nodes: list[Node] = []
    new_id: dict[int, int] = {}
    for k, name in zip(order, names):
        spec = graph.in_specs[k] if isinstance(k, int) else k
        site = graph.nodes[graph.inputs[k]].site if isinstance(k, int) else None
        if isinstance(k, int):
            new_id[graph.inputs[k]] = len(nodes)
        nodes.append(Node(input_p.name, (), (("name", name), ("spec", spec)), spec, site))
    for i, node in enumerate(graph.nodes):
        if node.op != input_p.name:
            new_id[i] = len(nodes)
            nodes.append(dataclasses.replace(node, inputs=tuple(new_id[j] for j in node.inputs)))
    specs = tuple(n.spec for n in nodes[:len(order)])
    return Graph(tuple(nodes), tuple(range(len(order))), tuple(new_id[i] for i in graph.outputs),
                 flatten(specs)[1], graph.out_tree)


def evaluate(graph: Graph, env: dict[int, Any], targets: Sequence[int]) -> list[Any]:
    """The values of the nodes `targets` of `graph`, binding in the current trace the nodes they
    need that `env` (values by node id) does not hold. A node of several results is bound once."""
    needed: set[int] = set()
    stack = list(targets)
    while stack:
        i = stack.pop()
        if i not in env and i not in needed:
            needed.add(i)
            stack.extend(graph.nodes[i].inputs)
    values, calls = dict(env), {}
    for i in sorted(needed):
        node = graph.nodes[i]
        assert node.op != input_p.name, f"evaluate: input %{i} has no value"
        primitive = PRIMITIVES[node.op]
        with sites_from(node.site):
            if primitive.multiple_results:
                key = call_of(node)
                if key not in calls:
                    calls[key] = bind(primitive, *(values[j] for j in node.inputs), **call_params(node))
                values[i] = calls[key][node.attrs[RESULT]]
            else:
                values[i] = bind(primitive, *(values[j] for j in node.inputs), **node.attrs)
    return [values[t] for t in targets]


def split(values: Sequence[Any], *sizes: int) -> list[list[Any]]:
    """`values` cut into consecutive groups of `sizes`, the rest last."""
    out, start = [], 0
    for n in sizes:
        out.append(list(values[start:start + n]))
        start += n
    return [*out, list(values[start:])]


def run(body: Graph, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """`body` run by `interpret` on arrays. Where every float operand is float64 (interpret's
    float64 mode, or float64 arrays given eagerly) the body computes in float64 too."""
    floats = [a for a, s in zip(operands, body.in_specs) if s.dtype.is_float]
    wide = bool(floats) and all(a.dtype == np.float64 for a in floats)
    held = [np.asarray(a, np.float64 if wide and s.dtype.is_float else s.dtype.np)
            for a, s in zip(operands, body.in_specs)]
    return tuple(interpret(body, *held, float64=wide))


def differs(who: str, what: str, got: Sequence[Spec], want: Sequence[Spec]) -> ShapeError:
    """The error of a body whose specs are not those its operands give (a malformed node)."""
    return ShapeError(f"{who}: {what} ({', '.join(map(str, got))}), expected ({', '.join(map(str, want))})")


# ---------------------------------------------------------------------------
# Bodies transformed: vjp, jvp and batched replays traced into new bodies
# ---------------------------------------------------------------------------


def vjp_body(body: Graph, seeded: Sequence[int], wrt: Sequence[int], instantiate: Sequence[int] = (),
             primal: bool = True) -> tuple[Graph, list[int]]:
    """The body `(*inputs, *cotangents of the outputs at positions seeded) -> (*outputs if primal,
    *cotangents of the inputs at positions wrt)`, with the positions it gives a cotangent for:
    those of `wrt` a cotangent reaches, and those of `instantiate` (zeros where none reaches)."""
    n, have = len(body.inputs), []

    def joint(*leaves: Any) -> list[Any]:
        env = replay(body, leaves[:n])
        seeds: dict[int, Any] = {}
        for k, ct in zip(seeded, leaves[n:]):
            o = body.outputs[k]
            seeds[o] = seeds[o] + ct if o in seeds else ct
        found = backward(body, env, [body.inputs[i] for i in wrt], seeds)
        have[:] = [i for i in wrt if body.inputs[i] in found or i in instantiate]
        cts = [found[body.inputs[i]] if body.inputs[i] in found else zeros_like(env[body.inputs[i]]) for i in have]
        return [*(env[o] for o in body.outputs if primal), *cts]

    specs = [*body.in_specs, *(body.out_specs[k] for k in seeded)]
    names = [*body.input_names, *(f"cotangent.{k}" for k in seeded)]
    return body_graph(joint, specs, names), have


def jvp_body(body: Graph, in_groups: Sequence[int], out_groups: Sequence[int], nonzero: Sequence[bool],
             instantiate: Sequence[bool]) -> tuple[Graph, list[bool]]:
    """The body of primals and tangents together: the inputs cut into consecutive groups of sizes
    `in_groups`, each group's primals followed by the tangents of those that have one
    (`nonzero`); the outputs likewise in `out_groups`, a tangent after each group for the float
    outputs whose tangent is not structurally zero, or is to be `instantiate`d as zeros.
    Returns the body and, per output, whether it gives that output's tangent."""
    layout: list[tuple[bool, int]] = []  # per input of the new body: (is a tangent, position in body)
    start = 0
    for size in in_groups:
        group = range(start, start + size)
        layout += [(False, i) for i in group] + [(True, i) for i in group if nonzero[i]]
        start += size
    gives = [False] * len(body.outputs)

    def joint(*leaves: Any) -> list[Any]:
        primals, tangents = [None] * len(body.inputs), [None] * len(body.inputs)
        for (is_tangent, i), leaf in zip(layout, leaves):
            (tangents if is_tangent else primals)[i] = leaf
        env, tan = jvp_replay(body, primals, tangents)
        outs, start = [], 0
        for size in out_groups:
            group = range(start, start + size)
            outs += [env[body.outputs[k]] for k in group]
            for k in group:
                o = body.outputs[k]
                t = zeros_like(env[o]) if tan[o] is None and instantiate[k] and body.out_specs[k].dtype.is_float \
                    else tan[o]
                gives[k] = t is not None
                outs += [t] if t is not None else []
            start += size
        return outs

    specs = [body.in_specs[i] for _, i in layout]
    names = [body.input_names[i] + (".tangent" if is_tangent else "") for is_tangent, i in layout]
    return body_graph(joint, specs, names), gives


def batched_body(body: Graph, batched: Sequence[bool], size: int | Dim,
                 force: Sequence[bool]) -> tuple[Graph, list[bool]]:
    """The body on inputs of which those `batched` carry a batch axis of `size` in front; an
    output is batched where the replay makes it so, or where `force`d (broadcast). Returns the
    body and which outputs are batched."""
    out = [False] * len(body.outputs)

    def joint(*leaves: Any) -> list[Any]:
        env, flags = batch_replay(body, leaves, batched)
        for k, o in enumerate(body.outputs):
            out[k] = flags[o] or force[k]
        return [with_batch(env[o], flags[o], size) if force[k] else env[o] for k, o in enumerate(body.outputs)]

    specs = [Spec((size, *s.shape), s.dtype) if b else s for s, b in zip(body.in_specs, batched)]
    return body_graph(joint, specs, body.input_names), out
