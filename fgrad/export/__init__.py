"""Exports of fgrad graphs to engines that span machines.

`to_jax(graph_or_fn)` gives a pure function over JAX arrays computing what `fg.interpret`
computes, one rule per primitive (fgrad/export/jax.py): it composes with `jax.jit`,
`jax.grad`, `jax.vmap` and shardings over a `jax.sharding.Mesh`. `to_onnx(graph, path)` writes an
ONNX model for serving (fgrad/export/onnx.py). JAX and onnx are the optional extras `jax` and
`onnx`, imported only when an export asks for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["to_jax", "to_onnx"]


def to_jax(graph_or_fn: Any) -> Callable[..., Any]:
    """A function over JAX arrays (pytrees like the graph's arguments) that computes what
    `fg.interpret(graph, ...)` computes. Given a Python function instead of a graph, it is
    traced on each call's shapes and dtypes (once per signature)."""
    from fgrad.export.jax import to_jax as export  # NOTE: JAX is optional: imported when used

    return export(graph_or_fn)


def to_onnx(graph: Any, path: Any = None) -> Any:
    """The ONNX model (opset 18, an `onnx.ModelProto`) computing `graph`, written to `path` where
    given; a primitive without an ONNX rule is an InputError naming it. Needs the extra `onnx`."""
    from fgrad.export.onnx import to_onnx as export  # NOTE: onnx is optional: imported when used

    return export(graph, path)
