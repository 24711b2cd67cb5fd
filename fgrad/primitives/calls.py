"""Primitives that call a graph: custom_jvp_call, custom_vjp_call and checkpoint; and
optimization_barrier, which keeps a checkpoint's recomputation apart from its forward pass.

Each call holds the user's function as a Graph param over flat leaves, traced when the function is
called (fgrad/transforms/custom.py, fgrad/transforms/remat.py); Tensors it closes over are operands
after the arguments' leaves. `interpret` runs the function's graph; lowering inlines it (a rewrite),
so a call costs nothing on the device. What differs is how each is differentiated:

- custom_jvp_call: forward mode runs the user's jvp rule; reverse mode takes the vjp of that rule
  with respect to its tangents, in which it is linear (JAX linearizes and transposes it);
- custom_vjp_call: reverse mode runs the user's fwd for residuals and bwd for the cotangents; forward
  mode is an error, as in JAX;
- checkpoint: reverse mode computes the function again in the backward pass, reading its operands
  through optimization_barrier so that graph passes cannot merge the recomputation with the forward
  pass; the values its policy saves are extra results, read instead of recomputed.

Tensors a function closes over are differentiated through the function's own graph: a custom rule
speaks for the explicit arguments only.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import FgradError, TraceError
from fgrad.ir import (
    PRIMITIVES, Graph, Node, Spec, call_of, call_params, constant_p, declare, input_p, results_of,
)
from fgrad.lower.kinds import ELEMENTWISE, View, register_lowering
from fgrad.lower.program import Limits
from fgrad.lower.rewrites import inline_body, rewrite_rules
from fgrad.pytree import TreeDef, flatten, unflatten
from fgrad.trace import Tensor, bind, spec_of, trace_function, user_site
from fgrad.transforms.autodiff import backward, replay, vjp_rules
from fgrad.transforms.batching import batch_replay, batch_rules, batch_size, elementwise_batching, with_batch
from fgrad.transforms.forward import jvp_replay, jvp_rules, linear_jvp, zeros_like
from fgrad.transforms.passes import simplify

from fgrad.primitives.abstract_eval import same_last_axis
from fgrad.transforms.bodies import arranged, batched_body, body_graph, differs, evaluate, jvp_body, run

__all__ = [
    "checkpoint_p", "custom_jvp_call_p", "custom_vjp_call_p", "custom_vmap_call_p", "optimization_barrier_p",
]  # re-exported


# ---------------------------------------------------------------------------
# Functions as graphs
# ---------------------------------------------------------------------------


def traced_body(fn: Callable[..., Any], specs: Sequence[Spec], names: Sequence[str]
                ) -> tuple[Graph, list[Tensor], TreeDef]:
    """`fn`, a function of leaves returning any pytree, traced over `specs` into a simplified graph
    over flat leaves: inputs the leaves (named `names`), then the Tensors of enclosing traces it
    closes over; outputs the leaves of what it returns. Returns the graph, those Tensors, and the
    structure of the result."""
    found: dict[str, TreeDef] = {}

    def flat(*leaves: Any) -> tuple[Any, ...]:
        out, found["tree"] = flatten(fn(*leaves))
        return tuple(out)

    graph, closed = trace_function(flat, list(specs), list(names), closures=True)
    names = [*names, *(f"closure.{k}" for k in range(len(closed)))]
    return simplify(arranged(graph, range(len(graph.inputs)), names)), closed, found["tree"]


def _flat_tree(n: int) -> TreeDef:
    return flatten((0,) * n)[1]


def _seeds(outputs: Sequence[int], cotangents: Sequence[Any]) -> dict[int, Any]:
    """Cotangents by output node (None: zero), summed where one node is returned twice."""
    seeds: dict[int, Any] = {}
    for o, ct in zip(outputs, cotangents):
        if ct is not None:
            seeds[o] = seeds[o] + ct if o in seeds else ct
    return seeds


def _pullback(graph: Graph, leaves: Sequence[Any], wrt: Sequence[int], cotangents: Sequence[Any]) -> list[Any]:
    """The cotangents (None: zero) of the inputs at positions `wrt` of `graph`, replayed on `leaves`,
    given one cotangent (or None) per output: ordinary reverse mode through the graph."""
    ids = [graph.inputs[k] for k in wrt if graph.in_specs[k].dtype.is_float]
    seeds = _seeds(graph.outputs, cotangents)
    if not ids or not seeds:
        return [None] * len(wrt)
    found = backward(graph, replay(graph, leaves), ids, seeds)
    return [found.get(graph.inputs[k]) for k in wrt]


def _inline(graph_param: str, operands: Callable[[Node], Sequence[int]]) -> Callable[..., int]:
    """The lowering rewrite of a call: the graph in param `graph_param` inlined on the node's
    `operands`; its results become the outputs they are."""

    def rule(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> list[int]:
        return inline_body(node.attrs[graph_param], operands(node), add)

    return rule


# ---------------------------------------------------------------------------
# optimization_barrier: the identity, opaque to graph passes: no simplify rule sees through it, so
# values computed from its result never merge with the same values computed from its operand (what
# keeps a checkpoint's recomputation in the backward pass). A view in a kernel: it costs nothing
# on the device.
# ---------------------------------------------------------------------------

optimization_barrier_p = declare("optimization_barrier", lambda x: x, lambda x: x)
vjp_rules.register(optimization_barrier_p, lambda g, ans, x: (g,))
jvp_rules.register(optimization_barrier_p, linear_jvp(optimization_barrier_p))
batch_rules.register(optimization_barrier_p, elementwise_batching(optimization_barrier_p))
register_lowering(optimization_barrier_p, View(last_axis=same_last_axis, keeps_rows=lambda node, x, width: True,
                                                layout=lambda node, x, at: at),
                  lambda w, i, c: w.operand(i, 0, c))


# ---------------------------------------------------------------------------
# custom_jvp_call: operands (*args, *fun's closures, *jvp's closures); the results are those of
# `fun` on (*args, *fun's closures). `jvp` takes (*args, *their tangents, *its closures) and gives
# (*results, *their tangents); a tangent has its primal's spec (an integer one is zeros).
# ---------------------------------------------------------------------------


def _custom_jvp_split(operands: Sequence[Any], fun: Graph, num_args: int) -> tuple[list[Any], list[Any], list[Any]]:
    """The operands cut into the arguments, fun's closures and the jvp rule's closures."""
    n, nf = num_args, len(fun.inputs)
    return list(operands[:n]), list(operands[n:nf]), list(operands[nf:])


def _custom_jvp_rule(*operands: Spec, fun: Graph, jvp: Graph, num_args: int) -> tuple[Spec, ...]:
    args, fun_closures, jvp_closures = _custom_jvp_split(operands, fun, num_args)
    if fun.in_specs != (*args, *fun_closures):
        raise differs("custom_jvp_call", "the function takes", fun.in_specs, (*args, *fun_closures))
    if jvp.in_specs != (*args, *args, *jvp_closures) or jvp.out_specs != fun.out_specs * 2:
        raise differs("custom_jvp_call", "the jvp rule maps", (*jvp.in_specs, *jvp.out_specs),
                       (*args, *args, *jvp_closures, *fun.out_specs * 2))
    return fun.out_specs


# Forward mode: the user's rule gives the arguments' part of the tangent; closed-over Tensors add
# theirs through the function's own graph.
def _custom_jvp_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, fun: Graph, jvp: Graph,
                    num_args: int) -> tuple[Any, ...]:
    n, m = num_args, len(fun.outputs)
    args, fun_closures, jvp_closures = _custom_jvp_split(primals, fun, n)
    arg_tangents = [zeros_like(x) if t is None else t for x, t in zip(args, tangents[:n])]
    out = [None] * m
    if any(t is not None for t in tangents[:n]):
        out = evaluate(jvp, dict(zip(jvp.inputs, [*args, *arg_tangents, *jvp_closures])), jvp.outputs[m:])
    closure_tangents = tangents[n:len(fun.inputs)]
    if any(t is not None for t in closure_tangents):
        env, tan = jvp_replay(fun, [*args, *fun_closures], [*(None for _ in args), *closure_tangents])
        out = [t if c is None else c if t is None else t + c for t, c in zip(out, (tan[o] for o in fun.outputs))]
    return tuple(t if s.dtype.is_float else None for t, s in zip(out, fun.out_specs))


# Reverse mode: the rule is linear in the tangents, so the arguments' cotangents are its vjp with
# respect to them (at zero tangents: any point gives the same).
def _custom_jvp_vjp(g: tuple[Any, ...], ans: tuple[Any, ...], *operands: Any, fun: Graph, jvp: Graph,
                    num_args: int) -> list[Any]:
    n, m = num_args, len(fun.outputs)
    args, fun_closures, jvp_closures = _custom_jvp_split(operands, fun, n)
    leaves = [*args, *(zeros_like(x) for x in args), *jvp_closures]
    arg_cts = _pullback(jvp, leaves, range(n, 2 * n), [*(None for _ in range(m)), *g])
    closure_cts = _pullback(fun, [*args, *fun_closures], range(n, len(fun.inputs)), g)
    return [*arg_cts, *closure_cts, *(None for _ in jvp_closures)]


def _custom_jvp_batch(args: Sequence[Any], batched: Sequence[bool], *, fun: Graph, jvp: Graph,
                      num_args: int) -> tuple[Any, ...]:
    size, n, m = batch_size(args, batched), num_args, len(fun.outputs)
    arg_flags, fun_flags, jvp_flags = _custom_jvp_split(batched, fun, n)
    # A tangent is batched where its primal is: it has the primal's spec.
    fun = batched_body(fun, [*arg_flags, *fun_flags], size, [True] * m)[0]
    jvp = batched_body(jvp, [*arg_flags, *arg_flags, *jvp_flags], size, [True] * 2 * m)[0]
    return tuple(bind(custom_jvp_call_p, *args, fun=fun, jvp=jvp, num_args=n))


custom_jvp_call_p = declare("custom_jvp_call", _custom_jvp_rule,
                            lambda *operands, fun, jvp, num_args: run(fun, operands[:len(fun.inputs)]),
                            multiple_results=True)
vjp_rules.register(custom_jvp_call_p, _custom_jvp_vjp)
jvp_rules.register(custom_jvp_call_p, _custom_jvp_jvp)
batch_rules.register(custom_jvp_call_p, _custom_jvp_batch)
rewrite_rules.register(custom_jvp_call_p, _inline("fun", lambda node: node.inputs[:len(node.attrs["fun"].inputs)]))
register_lowering(custom_jvp_call_p, ELEMENTWISE, None)  # never reached: the rewrite above inlines every call


# ---------------------------------------------------------------------------
# custom_vjp_call: operands (*args, *fun's closures, *fwd's closures, *bwd's closures); the
# results are those of `fun` on (*args, *fun's closures). `fwd` takes (*args, *its closures) and
# gives (*results, *residuals); `bwd` takes (*residuals, *the results' cotangents, *its closures)
# and gives one cotangent per argument (zeros where the user's bwd gave None).
# ---------------------------------------------------------------------------


def _custom_vjp_split(operands: Sequence[Any], fun: Graph, fwd: Graph, num_args: int) -> list[list[Any]]:
    """The operands cut into the arguments and the closures of fun, fwd and bwd."""
    n, nf, nw = num_args, len(fun.inputs) - num_args, len(fwd.inputs) - num_args
    return [list(operands[:n]), list(operands[n:n + nf]), list(operands[n + nf:n + nf + nw]),
            list(operands[n + nf + nw:])]


def _custom_vjp_rule(*operands: Spec, fun: Graph, fwd: Graph, bwd: Graph, num_args: int) -> tuple[Spec, ...]:
    args, fun_closures, fwd_closures, bwd_closures = _custom_vjp_split(operands, fun, fwd, num_args)
    m = len(fun.outputs)
    if fun.in_specs != (*args, *fun_closures):
        raise differs("custom_vjp_call", "the function takes", fun.in_specs, (*args, *fun_closures))
    if fwd.in_specs != (*args, *fwd_closures) or fwd.out_specs[:m] != fun.out_specs:
        raise differs("custom_vjp_call", "fwd maps", (*fwd.in_specs, *fwd.out_specs[:m]),
                       (*args, *fwd_closures, *fun.out_specs))
    residuals = fwd.out_specs[m:]
    if bwd.in_specs != (*residuals, *fun.out_specs, *bwd_closures) or bwd.out_specs != tuple(args):
        raise differs("custom_vjp_call", "bwd maps", (*bwd.in_specs, *bwd.out_specs),
                       (*residuals, *fun.out_specs, *bwd_closures, *args))
    return fun.out_specs


CUSTOM_VJP_FORWARD_MODE = (
    "custom_vjp: forward-mode differentiation (jvp, linearize, jacfwd, hessian) of a custom_vjp function is "
    "not supported, as in JAX: its rule gives only the vjp. Define the derivative with fg.custom_jvp instead; "
    "reverse mode then comes from it too"
)


def _custom_vjp_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, **params: Any) -> None:
    raise TraceError(CUSTOM_VJP_FORWARD_MODE, user_site())


# Reverse mode: fwd's residuals (bound here: graph passes merge what fwd shares with the forward
# pass), then bwd on them and the cotangents (zeros where none arrived).
def _custom_vjp_vjp(g: tuple[Any, ...], ans: tuple[Any, ...], *operands: Any, fun: Graph, fwd: Graph, bwd: Graph,
                    num_args: int) -> list[Any]:
    args, fun_closures, fwd_closures, bwd_closures = _custom_vjp_split(operands, fun, fwd, num_args)
    m = len(fun.outputs)
    residuals = evaluate(fwd, dict(zip(fwd.inputs, [*args, *fwd_closures])), fwd.outputs[m:])
    cts = [zeros_like(s) if ct is None else ct for ct, s in zip(g, fun.out_specs)]
    arg_cts = evaluate(bwd, dict(zip(bwd.inputs, [*residuals, *cts, *bwd_closures])), bwd.outputs)
    closure_cts = _pullback(fun, [*args, *fun_closures], range(num_args, len(fun.inputs)), g)
    return [*(ct if s.dtype.is_float else None for ct, s in zip(arg_cts, bwd.out_specs)), *closure_cts,
            *(None for _ in (*fwd_closures, *bwd_closures))]


# Batching: fun and fwd batched as their operands are, every result and residual batched; bwd
# then takes batched residuals and cotangents, and an unbatched argument's cotangent is the sum
# of its examples' (as broadcasting it would give).
def _custom_vjp_batch(args: Sequence[Any], batched: Sequence[bool], *, fun: Graph, fwd: Graph, bwd: Graph,
                      num_args: int) -> tuple[Any, ...]:
    size, n, m = batch_size(args, batched), num_args, len(fun.outputs)
    arg_flags, fun_flags, fwd_flags, bwd_flags = _custom_vjp_split(batched, fun, fwd, n)
    new_fun = batched_body(fun, [*arg_flags, *fun_flags], size, [True] * m)[0]
    new_fwd = batched_body(fwd, [*arg_flags, *fwd_flags], size, [True] * len(fwd.outputs))[0]
    inner = [True] * len(fwd.outputs)  # bwd's residuals and cotangents: as many as fwd's results

    def pull(*leaves: Any) -> list[Any]:
        env, flags = batch_replay(bwd, leaves, [*inner, *bwd_flags])
        return [with_batch(env[o], flags[o], size) if b else fnp.sum(env[o], axis=0) if flags[o] else env[o]
                for o, b in zip(bwd.outputs, arg_flags)]

    specs = [Spec((size, *s.shape), s.dtype) if b else s for s, b in zip(bwd.in_specs, [*inner, *bwd_flags])]
    new_bwd = body_graph(pull, specs, bwd.input_names)
    return tuple(bind(custom_vjp_call_p, *args, fun=new_fun, fwd=new_fwd, bwd=new_bwd, num_args=n))


custom_vjp_call_p = declare("custom_vjp_call", _custom_vjp_rule,
                            lambda *operands, fun, fwd, bwd, num_args: run(fun, operands[:len(fun.inputs)]),
                            multiple_results=True)
vjp_rules.register(custom_vjp_call_p, _custom_vjp_vjp)
jvp_rules.register(custom_vjp_call_p, _custom_vjp_jvp)
batch_rules.register(custom_vjp_call_p, _custom_vjp_batch)
rewrite_rules.register(custom_vjp_call_p, _inline("fun", lambda node: node.inputs[:len(node.attrs["fun"].inputs)]))
register_lowering(custom_vjp_call_p, ELEMENTWISE, None)  # never reached: the rewrite above inlines every call


# ---------------------------------------------------------------------------
# custom_vmap_call: operands (*args, *fun's closures); the results are those of `fun` on them.
# Under vmap, `rule` (a VmapRule: the user's function with the arguments' and results' structures)
# computes the batched results from the batched arguments; derivatives go through `fun`.
# ---------------------------------------------------------------------------


class VmapRule:
    """A custom_vmap function's batching rule as a node's param: `owner` (the custom_vmap, whose
    `rule` is the user's function, read when vmap runs it) and the structures of its arguments and
    results. Equal for one function on arguments of one structure."""

    def __init__(self, owner: Any, in_tree: TreeDef, out_tree: TreeDef):
        self.owner, self.in_tree, self.out_tree = owner, in_tree, out_tree

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VmapRule) and (self.owner, self.in_tree, self.out_tree) == \
            (other.owner, other.in_tree, other.out_tree)

    def __hash__(self) -> int:
        return hash((id(self.owner), self.in_tree, self.out_tree))

    def __repr__(self) -> str:
        return getattr(self.owner.rule, "__qualname__", "rule")


def _custom_vmap_rule(*operands: Spec, fun: Graph, rule: VmapRule, num_args: int) -> tuple[Spec, ...]:
    if fun.in_specs != operands:
        raise differs("custom_vmap_call", "the function takes", fun.in_specs, operands)
    return fun.out_specs


def _custom_vmap_vjp(g: tuple[Any, ...], ans: tuple[Any, ...], *operands: Any, fun: Graph, rule: VmapRule,
                     num_args: int) -> list[Any]:
    return _pullback(fun, operands, range(len(operands)), g)


def _custom_vmap_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, fun: Graph, rule: VmapRule,
                     num_args: int) -> tuple[Any, ...]:
    _, tan = jvp_replay(fun, primals, tangents)
    return tuple(tan[o] for o in fun.outputs)


def _custom_vmap_batch(args: Sequence[Any], batched: Sequence[bool], *, fun: Graph, rule: VmapRule,
                       num_args: int) -> tuple[Any, ...]:
    """The user's rule on the batched arguments, `rule(axis_size, in_batched, *args) -> (out,
    out_batched)`, its results checked and those it left unbatched broadcast; where a value the
    function closes over is batched, which the rule cannot see, the function's own batching."""
    from fgrad.transforms.custom import tracing_rules  # NOTE: the transforms bind this primitive

    size, n, site = batch_size(args, batched), num_args, user_site()
    if any(batched[n:]):
        env, flags = batch_replay(fun, args, batched)
        return tuple(with_batch(env[o], flags[o], size) for o in fun.outputs)
    name = getattr(rule.owner, "__name__", "the function")
    with tracing_rules(rule.owner):
        found = rule.owner.rule(size, list(unflatten(rule.in_tree, list(batched[:n]))),
                                *unflatten(rule.in_tree, list(args[:n])))
    if not (isinstance(found, (tuple, list)) and len(found) == 2):
        raise TraceError(f"custom_vmap: the batching rule of {name} must return a pair (out, out_batched)", site)
    out, flags = flatten(found[0])
    out_flags, flags_tree = flatten(found[1])
    if flags != rule.out_tree or flags_tree != rule.out_tree:
        raise TraceError(f"custom_vmap: the batching rule of {name} returned outputs of structure {flags} and "
                         f"out_batched of structure {flags_tree}; the function returns {rule.out_tree}", site)
    results = []
    for k, (x, b, spec) in enumerate(zip(out, out_flags, fun.out_specs)):
        x = fnp.asarray(x)
        want = Spec((size, *spec.shape), spec.dtype) if b else spec
        if spec_of(x) != want:
            raise TraceError(f"custom_vmap: the batching rule of {name} returned output {k} as {spec_of(x)}, where "
                             f"{'batched' if b else 'unbatched'} it is {want}", site)
        results.append(with_batch(x, bool(b), size))
    return tuple(results)


custom_vmap_call_p = declare("custom_vmap_call", _custom_vmap_rule,
                             lambda *operands, fun, rule, num_args: run(fun, operands), multiple_results=True)
vjp_rules.register(custom_vmap_call_p, _custom_vmap_vjp)
jvp_rules.register(custom_vmap_call_p, _custom_vmap_jvp)
batch_rules.register(custom_vmap_call_p, _custom_vmap_batch)
rewrite_rules.register(custom_vmap_call_p, _inline("fun", lambda node: node.inputs))
register_lowering(custom_vmap_call_p, ELEMENTWISE, None)  # never reached: the rewrite above inlines every call


# ---------------------------------------------------------------------------
# checkpoint: the results of `body` on the operands: the function's outputs, then the `saved` values
# its `policy` keeps (the results of the applications it names saveable that the backward pass
# needs; an output may be one of them again), which the backward pass reads instead of
# recomputing. `prevent_cse` puts the recomputation behind optimization_barrier.
# ---------------------------------------------------------------------------


def _read_by_backward(graph: Graph) -> set[int]:
    """The nodes of `graph` whose values its backward pass reads (its residuals): found by tracing
    that pass and keeping the forward values that a node it needs reads."""
    n = len(graph.inputs)
    wrt = [i for i in graph.inputs if graph.nodes[i].spec.dtype.is_float]
    seeded = [k for k, s in enumerate(graph.out_specs) if s.dtype.is_float]
    forward: dict[int, int] = {}  # node id in the traced pass -> node of graph

    def joint(*leaves: Any) -> list[Any]:
        env = replay(graph, leaves[:n])
        forward.update({x.id: i for i, x in enumerate(env) if isinstance(x, Tensor)})
        found = backward(graph, env, wrt, _seeds([graph.outputs[k] for k in seeded], leaves[n:]))
        return list(found.values())

    if not wrt or not seeded:
        return set()
    traced = trace_function(joint, [*graph.in_specs, *(graph.out_specs[k] for k in seeded)])[0]
    end = max(forward) + 1
    live = [False] * len(traced.nodes)
    for i in traced.outputs:
        live[i] = True
    read: set[int] = set()
    for i in reversed(range(end, len(traced.nodes))):
        if live[i]:
            for j in traced.nodes[i].inputs:
                live[j] = True
                if j in forward:
                    read.add(forward[j])
    return read


def _saveable(graph: Graph, policy: Callable[..., bool] | None) -> list[int]:
    """The values of `graph` that a checkpoint of it keeps for its backward pass, as JAX's partial
    evaluation chooses them: of the residuals, and of what recomputing the others needs, those the
    results of an application that `policy(primitive, *operand specs, **params)` names saveable."""
    if policy is None:
        return []
    try:
        needed = _read_by_backward(graph)
    except FgradError:  # a region reverse mode cannot go through (a while_loop) keeps nothing for it
        return []
    groups = results_of(graph)
    saved: set[int] = set()
    stack, seen = sorted(needed), set()
    while stack:
        i = stack.pop()
        node = graph.nodes[i]
        if i in seen or node.op in (input_p.name, constant_p.name):
            continue
        seen.add(i)
        primitive = PRIMITIVES[node.op]
        if policy(primitive, *(graph.nodes[j].spec for j in node.inputs), **call_params(node)):
            saved.update(r for r in (groups[call_of(node)] if primitive.multiple_results else [i]) if r is not None)
        else:
            stack.extend(node.inputs)  # recomputed: what it reads is needed in turn
    return sorted(saved)


def bind_checkpoint(graph: Graph, operands: Sequence[Any], policy: Callable[..., bool] | None,
                    prevent_cse: bool) -> tuple[Any, ...]:
    """The outputs of `graph` (over flat leaves: the operands) on `operands`, as a checkpoint whose
    backward pass recomputes what `policy` does not save."""
    saved = _saveable(graph, policy)
    outputs = (*graph.outputs, *saved)
    body = dataclasses.replace(graph, outputs=outputs, out_tree=_flat_tree(len(outputs)))
    results = bind(checkpoint_p, *operands, body=body, saved=len(saved), policy=policy, prevent_cse=prevent_cse)
    return tuple(results[:len(graph.outputs)])


def _checkpoint_rule(*operands: Spec, body: Graph, saved: int, policy: Any, prevent_cse: bool) -> tuple[Spec, ...]:
    if body.in_specs != operands:
        raise differs("checkpoint", "the function takes", body.in_specs, operands)
    return body.out_specs


# Reverse mode: the function computed again from its operands (behind the barrier), the saved
# values read from this call's results, then its backward pass.
def _checkpoint_vjp(g: tuple[Any, ...], ans: tuple[Any, ...], *operands: Any, body: Graph, saved: int,
                    policy: Any, prevent_cse: bool) -> list[Any]:
    kept = zip(body.outputs[len(body.outputs) - saved:], ans[len(ans) - saved:])
    known = {**dict(zip(body.inputs, operands)), **{o: x for o, x in kept if x is not None}}
    if prevent_cse:
        known = {i: bind(optimization_barrier_p, x) for i, x in known.items()}
    env = evaluate(body, known, range(len(body.nodes)))
    found = backward(body, env, [i for i in body.inputs if body.nodes[i].spec.dtype.is_float], _seeds(body.outputs, g))
    return [found.get(i) for i in body.inputs]


# Forward mode: a checkpoint of the function's jvp (so reverse mode over it recomputes too).
def _checkpoint_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, body: Graph, saved: int,
                    policy: Any, prevent_cse: bool) -> tuple[Any, ...]:
    m = len(body.outputs)
    graph, gives = jvp_body(body, (len(primals),), (m,), [t is not None for t in tangents], [False] * m)
    outs = bind_checkpoint(graph, [*primals, *(t for t in tangents if t is not None)], policy, prevent_cse)
    found = iter(outs[m:])
    return tuple(next(found) if given else None for given in gives)


def _checkpoint_batch(args: Sequence[Any], batched: Sequence[bool], *, body: Graph, saved: int, policy: Any,
                      prevent_cse: bool) -> tuple[Any, ...]:
    graph = batched_body(body, batched, batch_size(args, batched), [True] * len(body.outputs))[0]
    return bind_checkpoint(graph, args, policy, prevent_cse)


checkpoint_p = declare("checkpoint", _checkpoint_rule,
                       lambda *operands, body, saved, policy, prevent_cse: run(body, operands),
                       multiple_results=True)
vjp_rules.register(checkpoint_p, _checkpoint_vjp)
jvp_rules.register(checkpoint_p, _checkpoint_jvp)
batch_rules.register(checkpoint_p, _checkpoint_batch)
rewrite_rules.register(checkpoint_p, _inline("body", lambda node: node.inputs))
register_lowering(checkpoint_p, ELEMENTWISE, None)  # never reached: the rewrite above inlines every call
