"""Reverse-mode differentiation as graph transforms: vjp, grad, value_and_grad.

Each transform turns a graph into a *body*: a Python function over Tensors
that replays the forward nodes and then walks them backwards, calling each
op's VJP rule (fgrad/ops.py). The rules are written with fgrad ops, so the
backward pass is itself a traced graph that can be differentiated again.

A transform applied to a Graph traces its body into a new, simplified
Graph. Applied to a Python function it returns a function that, inside a
trace, runs the body in place (so transforms nest, as in JAX) and, on
arrays, traces once per argument signature and evaluates with `interpret`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, InputError, ShapeError
from fgrad.interpret import interpret
from fgrad.ir import DType, Graph, Spec
from fgrad.ops import OPS, add, asarray, broadcast_to
from fgrad.passes import simplify
from fgrad.pytree import flatten, unflatten
from fgrad.trace import Tensor, bind, current_trace, recapture, sites_from, spec_of, trace_function, user_site

Body = Callable[..., Any]


# ---------------------------------------------------------------------------
# Replay and the backward pass
# ---------------------------------------------------------------------------


def replay(graph: Graph, leaves: Sequence[Tensor | np.ndarray]) -> list[Tensor | np.ndarray]:
    """Bind every node of `graph` again in the current trace, inputs taken from `leaves`.

    Returns the value of every node, by node id; each keeps its original site.
    """
    env: list[Any] = [None] * len(graph.nodes)
    for i, leaf in zip(graph.inputs, leaves):
        env[i] = asarray(leaf, graph.nodes[i].spec.dtype)
    for i, node in enumerate(graph.nodes):
        if env[i] is None:
            with sites_from(node.site):
                env[i] = bind(OPS[node.op], *(env[j] for j in node.inputs), **node.attrs)
    for name, i in graph.captures:
        recapture(name, env[i])
    return env


def inline(graph: Graph, *args: Any) -> Any:
    """The outputs of `graph` on `args`, bound into the current trace."""
    env = replay(graph, flatten(tuple(args))[0])
    return unflatten(graph.out_tree, [env[i] for i in graph.outputs])


def backward(graph: Graph, env: list[Any], wrt: Sequence[int], cotangents: dict[int, Tensor]) -> dict[int, Tensor]:
    """Cotangents of the nodes `wrt`, given cotangents of some later nodes.

    Only nodes on a float path from `wrt` are differentiated; a node whose
    cotangent never arrives is absent from the result.
    """
    active = [False] * len(graph.nodes)
    for i in wrt:
        active[i] = True
    for i, node in enumerate(graph.nodes):
        if node.inputs and node.spec.dtype.is_float and any(active[j] for j in node.inputs):
            active[i] = True
    cts = {i: ct for i, ct in cotangents.items() if active[i]}
    for i in reversed(range(len(graph.nodes))):
        node = graph.nodes[i]
        if i not in cts or not node.inputs:
            continue
        op = OPS[node.op]
        if op.vjp is None:
            raise NotImplementedError(f"{op.name}: no vjp rule")
        with sites_from(node.site):
            in_cts = op.vjp(cts.pop(i), env[i], *(env[j] for j in node.inputs), **node.attrs)
            for j, ct in zip(node.inputs, in_cts, strict=True):
                if ct is None or not active[j]:
                    continue
                assert ct.spec == graph.nodes[j].spec, f"{op.name}: vjp gave {ct.spec} for {graph.nodes[j].spec}"
                cts[j] = add(cts[j], ct) if j in cts else ct
    return {i: cts[i] for i in wrt if i in cts}


def _zeros(spec: Spec) -> Tensor | np.ndarray:
    return broadcast_to(asarray(0.0, spec.dtype), spec.shape)


# ---------------------------------------------------------------------------
# Bodies: what each transform computes, as a function over Tensors
# ---------------------------------------------------------------------------


def _arg_leaf_ids(graph: Graph) -> list[list[int]]:
    """Input node ids of each top-level argument."""
    return [[graph.inputs[k] for k in positions] for positions in graph.arg_positions]


def _grads_of(graph: Graph, env: list[Any], argnums: Sequence[int], cts: dict[int, Tensor]) -> list[Any]:
    """Gradient pytrees of the arguments `argnums` (None for non-float leaves)."""
    arg_ids = _arg_leaf_ids(graph)
    wrt = [i for a in argnums for i in arg_ids[a] if graph.nodes[i].spec.dtype.is_float]
    found = backward(graph, env, wrt, cts)
    return [
        unflatten(graph.in_tree.children[a], [
            found.get(i, _zeros(graph.nodes[i].spec)) if graph.nodes[i].spec.dtype.is_float else None
            for i in arg_ids[a]
        ])
        for a in argnums
    ]


def vjp_body(graph: Graph, argnums: Sequence[int]) -> Body:
    """`(*args, cotangent) -> (outputs, grads)`; grads is a tuple over `argnums`."""

    def body(*args_and_ct: Any) -> Any:
        *args, ct = args_and_ct
        env = replay(graph, flatten(tuple(args))[0])
        ct_leaves, ct_tree = flatten(ct)
        if ct_tree != graph.out_tree:
            raise InputError(f"vjp: the cotangent has structure {ct_tree}, the outputs {graph.out_tree}", user_site())
        cts: dict[int, Tensor] = {}
        for i, c in zip(graph.outputs, ct_leaves):
            if graph.nodes[i].spec.dtype.is_float:
                c = asarray(c, DType.f32)
                cts[i] = add(cts[i], c) if i in cts else c
        outs = unflatten(graph.out_tree, [env[i] for i in graph.outputs])
        return outs, tuple(_grads_of(graph, env, argnums, cts))

    return body


def grad_body(graph: Graph, argnums: int | Sequence[int], has_aux: bool, with_value: bool) -> Body:
    """`(*args) -> grads` (or `((value, aux), grads)` ...) of a scalar-valued graph."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def body(*args: Any) -> Any:
        env = replay(graph, flatten(tuple(args))[0])
        outs = unflatten(graph.out_tree, [env[i] for i in graph.outputs])
        loss_id = graph.outputs[0]
        grads = _grads_of(graph, env, nums, {loss_id: asarray(1.0)})
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        return (outs, grads) if with_value else ((grads, outs[1]) if has_aux else grads)

    return body


def _check_grad(graph: Graph, nargs: int, argnums: int | Sequence[int], has_aux: bool, name: str,
                site: str | None) -> None:
    """The errors `grad` owes its user before any work: output kind, argnums, input dtypes."""
    if has_aux and not (graph.out_tree.kind in ("tuple", "list") and len(graph.out_tree.children) == 2):
        raise ShapeError(f"{name}: has_aux=True needs the function to return a pair (loss, aux), got {graph.out_tree}", site)
    first = graph.out_tree.children[0] if has_aux else graph.out_tree
    if first.kind != "leaf":
        raise ShapeError(f"{name}: the function must return a scalar, got a pytree {first}", site)
    out = graph.nodes[graph.outputs[0]].spec
    if out.shape != ():
        raise ShapeError(f"{name}: the function must return a scalar, got {out}; use fg.vjp for non-scalar outputs", site)
    if out.dtype is not DType.f32:
        raise DTypeError(f"{name}: the function must return a float scalar, got {out}", site)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not 0 <= a < nargs:
            raise InputError(f"{name}: argnums={argnums!r} is out of range for a function of {nargs} arguments", site)
    arg_ids = _arg_leaf_ids(graph)
    for a in nums:
        for i in arg_ids[a]:
            node = graph.nodes[i]
            if not node.spec.dtype.is_float:
                raise DTypeError(
                    f"{name}: argument {node.attrs['name']} is {node.spec}; gradients need f32 inputs "
                    f"(argnums={argnums!r})", site)


# ---------------------------------------------------------------------------
# Public transforms: Graph -> Graph, or function -> function
# ---------------------------------------------------------------------------

MakeBody = Callable[[Graph, int], Body]  # (graph, number of user arguments) -> body
Check = Callable[[Graph, int, "str | None"], None]


def _trace_body(body: Body, args: Sequence[Any], names: Sequence[str]) -> Graph:
    return simplify(trace_function(body, args, names)[0])


class Transformed:
    """A transform applied to a Python function, as `fg.grad(f)` returns.

    Its last `n_extra` call arguments feed the transform (vjp's cotangent),
    the others `fn`. Inside a trace it traces `fn` (closures over outer
    Tensors become extra inputs) and runs the transform's body in place;
    on arrays it builds the transformed graph once per argument signature
    and evaluates it with `interpret`.
    """

    def __init__(self, fn: Callable[..., Any], name: str, make_body: MakeBody, check: Check, extra: Sequence[str] = ()):
        functools.update_wrapper(self, fn)
        self.fn, self.name, self.make_body, self.check, self.extra = fn, name, make_body, check, tuple(extra)
        self.cache: dict[Any, Graph] = {}

    def __repr__(self) -> str:
        return f"<fg.{self.name} of {getattr(self.fn, '__name__', self.fn)}>"

    def __call__(self, *args: Any) -> Any:
        site = user_site()
        split = len(args) - len(self.extra)
        primal, extra = args[:split], args[split:]
        leaves, tree = flatten(tuple(args))
        if current_trace() is not None or any(isinstance(x, Tensor) for x in leaves):
            graph, closed_over = trace_function(self.fn, primal, closures=True)
            self.check(graph, len(primal), site)
            return self.make_body(graph, len(primal))(*primal, tuple(closed_over), *extra)
        key = (tree, tuple(spec_of(x) for x in leaves))
        if key not in self.cache:
            graph = trace_function(self.fn, primal)[0]
            self.check(graph, len(primal), site)
            names = [*graph.arg_names, *self.extra]
            self.cache[key] = _trace_body(self.make_body(graph, len(primal)), args, names)
        return interpret(self.cache[key], *args)


def _apply(f: Graph | Callable[..., Any], name: str, make_body: MakeBody, check: Check,
           extra: Sequence[str] = (), extra_specs: Sequence[Any] = ()) -> Any:
    if not isinstance(f, Graph):
        return Transformed(f, name, make_body, check, extra)
    nargs = len(f.in_tree.children)
    check(f, nargs, user_site())
    arg_specs = list(unflatten(f.in_tree, list(f.in_specs)))
    return _trace_body(make_body(f, nargs), [*arg_specs, *extra_specs], [*f.arg_names, *extra])


def vjp(f: Graph | Callable[..., Any]) -> Graph | Callable[..., Any]:
    """Reverse mode with respect to every argument.

    Given a Graph `(*args) -> out`, returns the Graph `(*args, cotangent) ->
    (out, grads)`, where `cotangent` has the structure of `out` and `grads`
    is a tuple with one pytree per argument (None at non-float leaves).
    Given a function, returns the function `(*args, cotangent) -> (out, grads)`.
    """
    out_specs = [unflatten(f.out_tree, list(f.out_specs))] if isinstance(f, Graph) else []
    return _apply(f, "vjp", lambda graph, n: vjp_body(graph, range(n)), lambda graph, n, site: None,
                  ["cotangent"], out_specs)


def grad(f: Graph | Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Graph | Callable[..., Any]:
    """Gradient of a scalar f32 function with respect to the arguments `argnums`.

    Given a Graph, returns the gradient Graph (same arguments; the gradient
    has the structure of argument `argnums`, or is a tuple of them if
    `argnums` is a tuple; with `has_aux`, `(grads, aux)`). Given a function,
    returns a function, as `jax.grad` does. `grad(grad(f))` works.
    """
    return _reverse(f, argnums, has_aux, False, "grad")


def value_and_grad(f: Graph | Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Graph | Callable[..., Any]:
    """Like `grad`, but returns `(value, grads)` (`((value, aux), grads)` with `has_aux`)."""
    return _reverse(f, argnums, has_aux, True, "value_and_grad")


def _reverse(f: Graph | Callable[..., Any], argnums: int | Sequence[int], has_aux: bool, with_value: bool, name: str) -> Any:
    return _apply(
        f, name,
        lambda graph, n: grad_body(graph, argnums, has_aux, with_value),
        lambda graph, n, site: _check_grad(graph, n, argnums, has_aux, name, site),
    )


# ---------------------------------------------------------------------------
# Checking gradients against finite differences
# ---------------------------------------------------------------------------


def check_grads(f: Graph | Callable[..., Any], args: Sequence[Any], order: int = 1, eps: float = 1e-5,
                rtol: float = 1e-5, atol: float = 1e-6, samples: int = 64, seed: int = 0) -> None:
    """Check reverse-mode derivatives of `f` against central finite differences, in float64.

    The outputs are projected on a random cotangent; every element of every
    float argument leaf (or `samples` random elements of a larger leaf) is
    perturbed by +-eps through `interpret(..., float64=True)`. With `order=2`
    the check is repeated on the VJP itself (projected on a random direction),
    which checks second derivatives. Raises AssertionError naming the leaf,
    the worst element, both values and the tolerance.
    """
    if order not in (1, 2):
        raise ValueError(f"check_grads: order must be 1 or 2, got {order}")
    args = tuple(args)
    graph = f if isinstance(f, Graph) else trace_function(f, args)[0]
    rng = np.random.default_rng(seed)
    ct = unflatten(graph.out_tree, [rng.normal(size=s.shape) if s.dtype.is_float else np.zeros(s.shape, s.dtype.np)
                                    for s in graph.out_specs])
    _compare(graph, args, ct, order, eps, rtol, atol, samples, rng)
    if order == 2:
        directions = [rng.normal(size=np.shape(x)) if spec_of(x).dtype.is_float else None for x in flatten(args)[0]]
        pullback = vjp(graph)

        def projected(*a: Any) -> Tensor:
            grads = flatten(inline(pullback, *a, ct)[1])[0]
            return functools.reduce(add, [(g * d).sum() for g, d in zip(grads, (d for d in directions if d is not None))])

        second = trace_function(projected, args, graph.arg_names)[0]
        _compare(second, args, np.float64(1.0), 2, eps, rtol, atol, samples, rng)


def _compare(graph: Graph, args: tuple[Any, ...], ct: Any, order: int, eps: float, rtol: float, atol: float,
             samples: int, rng: np.random.Generator) -> None:
    leaves, tree = flatten(args)
    leaves = [np.asarray(x, np.float64) if spec_of(x).dtype.is_float else np.asarray(x) for x in leaves]
    ct_leaves = flatten(ct)[0]

    def projected(values: list[np.ndarray]) -> float:
        outs = flatten(interpret(graph, *unflatten(tree, values), float64=True))[0]
        return float(np.sum([np.vdot(o, c) for o, c, s in zip(outs, ct_leaves, graph.out_specs) if s.dtype.is_float]))

    grads = flatten(interpret(vjp(graph), *unflatten(tree, leaves), ct, float64=True)[1])[0]
    float_ids = [k for k, x in enumerate(leaves) if x.dtype == np.float64]
    assert len(grads) == len(float_ids)
    for k, analytic in zip(float_ids, grads):
        leaf = leaves[k]
        flat = np.arange(leaf.size) if leaf.size <= samples else rng.choice(leaf.size, samples, replace=False)
        worst = None
        for e in flat:
            idx = np.unravel_index(e, leaf.shape)
            moved = []
            for step in (eps, -eps):
                x = leaf.copy()
                x[idx] += step
                moved.append(projected(leaves[:k] + [x] + leaves[k + 1:]))
            numeric = (moved[0] - moved[1]) / (2 * eps)
            excess = abs(analytic[idx] - numeric) - (atol + rtol * abs(numeric))
            if worst is None or excess > worst[0]:
                worst = (excess, idx, analytic[idx], numeric)
        if worst[0] > 0:
            _, idx, a, n = worst
            where = f"[{', '.join(map(str, idx))}]" if idx else ""
            raise AssertionError(
                f"check_grads (order {order}): d/d {graph.input_names[k]}{where}: reverse mode gives {a:.9g}, "
                f"finite differences {n:.9g}; |difference| {abs(a - n):.3g} exceeds atol {atol} + rtol {rtol} * {abs(n):.3g}")
