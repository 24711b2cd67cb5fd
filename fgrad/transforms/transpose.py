"""linear_transpose: the transpose of a linear function, as `jax.linear_transpose`.

A linear function's Jacobian is the same at every point, so its transpose is
its vjp anywhere: fgrad takes it at zeros. What must be checked first is that
the function is linear, as JAX's transposition finds out rule by rule: every op
reading a value that depends on the arguments must be linear in it. fgrad
walks the traced graph (and the bodies of calls, branches and loops, with each
body input depending where its operand does) and allows, on such values:

- the ops linear in their float operands together (the jvp rule `linear_jvp`:
  add, reshape, sum, slice, concatenate, cumsum, ..., and take, scatter, pad);
- products (`multilinear_jvp`: mul, matmul, convolution) with one such operand,
  and div with it as the numerator;
- nothing else: `sin`, `x * x`, `abs`, `maximum`, `sort` or a comparison (the
  kink of `where(x > 0, x, 0)`) make the function non-linear, at their line.

Constant terms are dropped, as JAX's are: the transpose of `x + 1` is the
identity.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, InputError, ShapeError, TraceError
from fgrad.ir import RESULT, Graph, Node, call_of, input_p
from fgrad.pytree import flatten, leaf_paths, unflatten
from fgrad.trace import spec_of, trace_function, user_site
from fgrad.transforms.autodiff import inline, vjp
from fgrad.transforms.forward import jvp_rules

NAME = "linear_transpose"

# Primitives linear in their operands whose jvp rules are their own: "all" (in their float operands
# together), "first" (in the first alone).
_ALSO_LINEAR = {"take": "all", "scatter": "all", "pad": "all", "patches": "all", "div": "first"}


def _linear_in(node: Node, depends: Sequence[bool]) -> bool:
    """Whether `node` is linear in its operands marked as depending on the arguments."""
    kind = getattr(jvp_rules.get(node.op), "linear_in", None) or _ALSO_LINEAR.get(node.op)
    if not node.spec.dtype.is_float:
        return False
    if kind == "one":
        return sum(depends) == 1
    if kind == "first":
        return not any(depends[1:])
    return kind == "all"


def _scan_flow(node: Node, depends: list[bool]) -> tuple[Node | None, list[bool]]:
    """A scan's body walked with its carries depending where any iteration makes them (a fixed point)."""
    p = node.attrs
    nc, nk, body = p["num_consts"], p["num_carry"], p["body"]
    while True:
        found, outs = _nonlinear(body, depends)
        grown = [d or o for d, o in zip(depends[nc:nc + nk], outs[:nk])]
        if found is not None or grown == depends[nc:nc + nk]:
            return found, [*grown, *outs[nk:]]
        depends = [*depends[:nc], *grown, *depends[nc + nk:]]


def _branches_flow(node: Node, depends: list[bool]) -> tuple[Node | None, list[bool]]:
    """A cond's branches, each on the operands after the index."""
    outs: list[bool] = []
    for branch in node.attrs["branches"]:
        found, mine = _nonlinear(branch, depends[1:])
        if found is not None:
            return found, mine
        outs = [a or b for a, b in zip(outs, mine)] if outs else mine
    return None, outs


def _call_flow(key: str) -> Callable[[Node, list[bool]], tuple[Node | None, list[bool]]]:
    """A call whose body `key` takes the first of its operands (a checkpoint's, a custom rule's function)."""
    def flow(node: Node, depends: list[bool]) -> tuple[Node | None, list[bool]]:
        body = node.attrs[key]
        return _nonlinear(body, depends[:len(body.inputs)])

    return flow


def _unchecked(node: Node, depends: list[bool]) -> tuple[Node | None, list[bool]]:
    """A while loop: its vjp refuses it, naming why (its trip count is known only as it runs)."""
    return None, [True] * len(node.attrs["body"].outputs)


# Primitives holding bodies: how values depending on the arguments flow through them.
_BODY_FLOWS = {"scan": _scan_flow, "cond": _branches_flow, "checkpoint": _call_flow("body"),
               "custom_jvp_call": _call_flow("fun"), "custom_vjp_call": _call_flow("fun"),
               "custom_vmap_call": _call_flow("fun"), "while": _unchecked}


def _nonlinear(graph: Graph, depends: Sequence[bool]) -> tuple[Node | None, list[bool]]:
    """The first node of `graph` that is not linear in the values depending on the inputs marked in
    `depends` (None if every one is), and whether each output depends on them."""
    dep = [False] * len(graph.nodes)
    for i, d in zip(graph.inputs, depends):
        dep[i] = d
    flows: dict[tuple, list[bool]] = {}
    for i, node in enumerate(graph.nodes):
        ins = [dep[j] for j in node.inputs]
        if node.op == input_p.name or not any(ins):
            continue
        flow = _BODY_FLOWS.get(node.op)
        if flow is None:
            if not _linear_in(node, ins):
                return node, []
            dep[i] = True
            continue
        key = call_of(node)
        if key not in flows:
            found, flows[key] = flow(node, ins)
            if found is not None:
                return found, []
        dep[i] = flows[key][node.attrs.get(RESULT, 0)]
    return None, [dep[i] for i in graph.outputs]


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
    graph, closed_over = trace_function(fun, unflatten(tree, specs), closures=True)
    ins = [graph.nodes[i].spec for i in graph.inputs[:len(specs)]]
    outs = list(graph.out_specs)
    if not all(s.dtype.is_float for s in (*ins, *outs)):
        raise DTypeError(f"{NAME}: fgrad transposes float -> float functions, got "
                         f"[{', '.join(str(s.dtype) for s in ins)}] -> [{', '.join(str(s.dtype) for s in outs)}]",
                         site)
    found, _ = _nonlinear(graph, [k < len(specs) for k in range(len(graph.inputs))])
    if found is not None:
        raise TraceError(f"{NAME}: the function is not linear in its arguments: {found.op} reads a value that "
                         f"depends on them, and {found.op} is not linear there (it has no transpose)",
                         found.site or site)
    zeros = [np.zeros(s.shape, s.dtype.np) for s in specs]
    # The traced graph, not `fun` again: the user's Python runs once.
    _, pullback = vjp(lambda *args: inline(graph, *args, closed_over), *unflatten(tree, zeros))

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
