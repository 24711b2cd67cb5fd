"""Graph -> a function over JAX arrays: one rule per primitive in `jax_rules`.

A rule takes the node's operands (JAX arrays) and its params and returns its value (a tuple of
values for a multiple-results primitive), with `interpret`'s semantics: the NumPy
implementation in fgrad/primitives/ is the meaning each rule reproduces with `jax.numpy` and
`jax.lax`. Rules of primitives holding graphs (control flow, custom rules) export their bodies
with `evaluate`. The rules are in the modules imported at the end, one per family of
fgrad/primitives/.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from fgrad.errors import InputError
from fgrad.ir import PRIMITIVES, RESULT, Graph, RuleTable, call_of, call_params
from fgrad.pytree import first_difference, flatten, leaves_in, unflatten
from fgrad.trace import spec, trace, user_site

jax_rules = RuleTable("to_jax", "JAX export rule")


def evaluate(graph: Graph, leaves: Sequence[Any]) -> list[Any]:
    """The values of `graph`'s outputs (a flat list) for its input `leaves`, as JAX arrays."""
    env: list[Any] = [None] * len(graph.nodes)
    for i, leaf in zip(graph.inputs, leaves, strict=True):
        env[i] = jnp.asarray(leaf, graph.nodes[i].spec.dtype.np)
    calls: dict[tuple, Any] = {}
    for i, node in enumerate(graph.nodes):
        if env[i] is not None:
            continue
        rule = jax_rules[node.op]
        if PRIMITIVES[node.op].multiple_results:
            key = call_of(node)
            if key not in calls:
                calls[key] = rule(*(env[j] for j in node.inputs), **call_params(node))
            out = calls[key][node.attrs[RESULT]]
        else:
            out = rule(*(env[j] for j in node.inputs), **call_params(node))
        env[i] = jnp.asarray(out, node.spec.dtype.np)
    return [env[i] for i in graph.outputs]


def to_jax(graph_or_fn: Graph | Callable[..., Any]) -> Callable[..., Any]:
    """See fgrad.export.to_jax."""
    if isinstance(graph_or_fn, Graph):
        graph = graph_or_fn
        if any(graph.nodes[i].spec.symbols for i in graph.inputs):
            raise InputError("to_jax: the graph has symbolic dimensions; JAX traces concrete shapes: trace it "
                             "over concrete specs", user_site())

        def exported(*args: Any) -> Any:
            leaves = leaves_in(tuple(args), graph.in_tree)
            if leaves is None:
                path, what = first_difference(graph.in_tree, flatten(tuple(args))[1])
                raise InputError(f"to_jax: argument {path} does not match the graph's input: {what}", user_site())
            return unflatten(graph.out_tree, evaluate(graph, leaves))

        return exported
    if not callable(graph_or_fn):
        raise InputError(f"to_jax: expected an fg Graph or a function, got a {type(graph_or_fn).__name__}",
                         user_site())
    fn = graph_or_fn

    @functools.cache
    def traced(signature: tuple) -> Graph:
        tree, specs = signature
        return trace(fn, *unflatten(tree, [spec(shape, dtype) for shape, dtype in specs]))

    def exported_fn(*args: Any) -> Any:
        leaves, tree = flatten(tuple(args))
        specs = tuple((tuple(np.shape(x)), np.dtype(jnp.result_type(x))) for x in leaves)
        graph = traced((tree, specs))
        return unflatten(graph.out_tree, evaluate(graph, leaves))

    return exported_fn


# The rules, one module per family of fgrad/primitives/; each registers its own in jax_rules.
from fgrad.export import (  # noqa: E402
    jax_callbacks, jax_calls, jax_elementwise, jax_parallel, jax_reductions, jax_structure,
)

RULE_MODULES = (jax_elementwise, jax_reductions, jax_structure, jax_calls, jax_callbacks, jax_parallel)
