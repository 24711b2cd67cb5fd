"""linear_transpose: the transpose of a linear function, as `jax.linear_transpose`.

A linear function's Jacobian is the same at every point, so its transpose is
its vjp anywhere: fgrad takes it at zeros. What must be checked is that the
function is linear, as JAX's transposition finds out rule by rule. fgrad
checks it once, when the transpose is made, in two steps over the traced graph:

- the tangent program (jvp) must not depend on the point: its own jvp with
  respect to the primals gives no tangent (structurally: None everywhere), which
  catches every smooth non-linearity, in loops and calls too (`sin`, `x * x`,
  `1 / x`);
- no op without a derivative (a comparison, a rounding, `stop_gradient`) reads
  a value that depends on the arguments, as none has a transpose in JAX: the
  kinks of `where(x > 0, x, 0)` have no derivative to find them.

Constant terms are dropped, as JAX's are: the transpose of `x + 1` is the
identity.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, InputError, ShapeError, TraceError
from fgrad.ir import Graph, input_p
from fgrad.pytree import flatten, leaf_paths, unflatten
from fgrad.trace import Tensor, spec_of, trace_function, user_site
from fgrad.transforms.autodiff import vjp
from fgrad.transforms.passes import simplify
from fgrad.transforms.forward import output_tangents, jvp_replay, jvp_rules, nondiff_jvp

NAME = "linear_transpose"


def _kink(graph: Graph, m: int) -> int | None:
    """The first node of `graph` without a derivative that reads a value depending on its first `m`
    inputs (the arguments; closed-over values follow them)."""
    depends = [False] * len(graph.nodes)
    for i in graph.inputs[:m]:
        depends[i] = True
    for i, node in enumerate(graph.nodes):
        if node.op != input_p.name and any(depends[j] for j in node.inputs):
            if jvp_rules.get(node.op) is nondiff_jvp:
                return i
            depends[i] = True
    return None


def _curved(graph: Graph, m: int) -> tuple[bool, str | None]:
    """Whether the tangent program of `graph` in its first `m` inputs depends on the point, and
    where: the site of its first node reading the tangents with a nonzero derivative in the point."""
    c = len(graph.inputs) - m
    specs = [graph.nodes[i].spec for i in graph.inputs]

    def tangent_map(*leaves: Tensor) -> list[Tensor]:
        env, tan = jvp_replay(graph, leaves[:m + c], [*leaves[m + c:], *(None for _ in range(c))])
        return output_tangents(graph, env, tan)

    names = [*(f"x{k}" for k in range(m + c)), *(f"t{k}" for k in range(m))]
    tangents = simplify(trace_function(tangent_map, [*specs, *specs[:m]], names)[0])
    found: list[str | None] = []

    def second(*leaves: Tensor) -> list[Tensor]:
        _, tan = jvp_replay(tangents, leaves[:m + c + m], [*leaves[m + c + m:], *(None for _ in range(c + m))])
        if any(tan[i] is not None for i in tangents.outputs):
            reads_t = [False] * len(tangents.nodes)
            for i in tangents.inputs[m + c:]:
                reads_t[i] = True
            for i, node in enumerate(tangents.nodes):
                reads_t[i] = reads_t[i] or any(reads_t[j] for j in node.inputs)
            found.extend(node.site for i, node in enumerate(tangents.nodes)
                         if reads_t[i] and tan[i] is not None and node.op != input_p.name)
            found.append(None)
        return []

    trace_function(second, [*specs, *specs[:m], *specs[:m]])
    return bool(found), (found[0] if found else None)


def linear_transpose(fun: Callable[..., Any], *primals: Any, reduce_axes: tuple = ()) -> Callable[[Any], tuple]:
    """The transpose of the linear function `fun`, as `jax.linear_transpose`.

    `primals` give the arguments' structure, shapes and dtypes (arrays or `fg.ShapeDtypeStruct`;
    their values are not read). Returns `transpose_fun(out_cotangent)`, which takes a cotangent of
    `fun`'s output's structure, shapes and dtypes and returns a tuple with one cotangent per
    primal. `fun` must be linear in its arguments (constant terms are dropped, as JAX's): a
    non-linear one is a TraceError naming the line. Arguments and results are float: JAX also
    transposes integer-to-integer functions, fgrad refuses them.
    """
    site = user_site()
    if not callable(fun):
        raise TraceError(f"{NAME}: expected a function, got a {type(fun).__name__}", site)
    if reduce_axes != ():
        raise InputError(f"{NAME}: reduce_axes is not supported (JAX deprecated it), got {reduce_axes!r}", site)
    leaves, tree = flatten(tuple(primals))
    specs = [spec_of(leaf, path) for leaf, path in zip(leaves, leaf_paths(tree, prefix="primals"))]
    graph, closed_over = trace_function(fun, [unflatten(tree, specs)[k] for k in range(len(primals))],
                                        closures=True)
    ins = [graph.nodes[i].spec for i in graph.inputs[:len(specs)]]
    outs = list(graph.out_specs)
    if not all(s.dtype.is_float for s in (*ins, *outs)):
        raise DTypeError(f"{NAME}: fgrad transposes float -> float functions, got "
                         f"[{', '.join(str(s.dtype) for s in ins)}] -> [{', '.join(str(s.dtype) for s in outs)}]",
                         site)
    kink = _kink(graph, len(specs))
    if kink is not None:
        node = graph.nodes[kink]
        raise TraceError(f"{NAME}: the function is not linear: {node.op} reads a value that depends on the "
                         f"arguments, and has no transpose", node.site or site)
    curved, where = _curved(graph, len(specs))
    if curved:
        raise TraceError(f"{NAME}: the function is not linear: its derivative depends on the arguments' values",
                         where or site)
    zeros = [np.zeros(s.shape, s.dtype.np) for s in specs]
    _, pullback = vjp(fun, *unflatten(tree, zeros))

    def transpose_fun(out_cotangent: Any) -> tuple:
        call_site = user_site()
        ct_leaves, ct_tree = flatten(out_cotangent)
        if ct_tree != graph.out_tree:
            raise InputError(f"{NAME}: the cotangent has structure {ct_tree}, the function's output "
                             f"{graph.out_tree}", call_site)
        for path, leaf, want in zip(leaf_paths(ct_tree, prefix="cotangent"), ct_leaves, outs):
            python_scalar = isinstance(leaf, (int, float)) and not isinstance(leaf, bool) and want.shape == ()
            got = spec_of(leaf, path)
            if got.shape != want.shape:
                raise ShapeError(f"{NAME}: {path} is {got}, the function's output there is {want}", call_site)
            if got.dtype is not want.dtype and not python_scalar:
                raise DTypeError(f"{NAME}: {path} is {got}, the function's output there is {want}", call_site)
        return tuple(pullback(out_cotangent))

    transpose_fun.__qualname__ = "transpose_fun"
    return transpose_fun
