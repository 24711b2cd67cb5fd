"""The reference semantics: evaluate a Graph with NumPy, one node at a time.

Every other way of running a graph (the WGSL runtime) must agree with this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad.errors import FgradError
from fgrad.ir import PRIMITIVES, RESULT, DType, Graph, call_of, call_params, constant_p, resolve
from fgrad.trace import check_special_values, expose_captures, require_graph
from fgrad.typecheck import check_args
from fgrad.pytree import unflatten
from fgrad.trace import user_site


def interpret(graph: Graph, *args: Any, float64: bool = False, captures: bool | Sequence[str] = False) -> Any:
    """Run `graph` on NumPy arrays (or numbers) shaped like its inputs.

    Args:
        graph: a traced Graph.
        *args: one pytree per graph argument, matching its structure, shapes and dtypes.
        float64: compute float values (f32, f16) in float64 (for finite-difference checks).
        captures: also return values registered with `fg.capture` (True for all, or a list of names).
    Returns:
        The outputs as NumPy arrays, in the graph's output pytree; with
        `captures`, the pair `(outputs, {name: value})`.
    """
    site = user_site()
    require_graph(graph, "interpret", "; use fg.interpret(fg.trace(fn, *args), *args)")
    if captures is not False:
        graph = expose_captures(graph, None if captures is True else captures, site)

    def as_computed(value: Any, dtype: DType) -> np.ndarray:
        # Each value is rounded to its dtype (f16 after every op, as JAX's), or widened to float64.
        return np.asarray(value, dtype=np.float64 if float64 and dtype.is_float else dtype.np)

    env: list[np.ndarray | None] = [None] * len(graph.nodes)
    # A symbolic graph runs at the values the arguments give its symbols: shapes in params
    # (reshape's, broadcast_to's) and specs are resolved to them.
    leaves, values = check_args(graph, args, "interpret", site, float64)
    for i, leaf in zip(graph.inputs, leaves):
        env[i] = as_computed(leaf, graph.nodes[i].spec.dtype)
    calls: dict[tuple, Any] = {}  # the results of each application of a multiple-results primitive
    for i, node in enumerate(graph.nodes):
        if env[i] is None:
            attrs = call_params(node) if not values else {k: resolve(v, values) for k, v in call_params(node).items()}
            primitive = PRIMITIVES[node.op]
            try:
                with np.errstate(all="ignore"):  # inf and NaN are results (IEEE's, the device's), not warnings
                    if primitive.multiple_results:
                        key = call_of(node)
                        if key not in calls:
                            calls[key] = primitive.apply(*(env[j] for j in node.inputs), **attrs)
                        out = calls[key][node.attrs[RESULT]]
                    else:
                        out = primitive.apply(*(env[j] for j in node.inputs), **attrs)
            except FgradError as e:  # an op refusing its values (an unbound collective): at the node's line
                if e.site is not None or node.site is None:
                    raise
                raise type(e)(e.message, node.site) from None
            env[i] = as_computed(out, node.spec.dtype)
            if node.op != constant_p.name:  # a constant's inf (a mask's fill) is the user's, made by no op
                check_special_values(node.op, (env[i],), node.site)  # fg.config's jax_debug_nans and _infs
            shape = resolve(node.spec.shape, values)
            assert env[i].shape == shape, f"{node.op}: impl gave {env[i].shape}, rule {shape}"
    return unflatten(graph.out_tree, [np.array(env[i]) for i in graph.outputs])
