"""Exports of fgrad graphs to engines that span machines.

`to_jax(graph_or_fn)` gives a pure function over JAX arrays computing what `fg.interpret`
computes, one rule per primitive (fgrad/export/jax.py): it composes with `jax.jit`,
`jax.grad`, `jax.vmap` and shardings over a `jax.sharding.Mesh`. JAX is the optional extra
`jax` and is imported only when an export asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["to_jax"]


def to_jax(graph_or_fn: Any) -> Callable[..., Any]:
    """A function over JAX arrays (pytrees like the graph's arguments) that computes what
    `fg.interpret(graph, ...)` computes. Given a Python function instead of a graph, it is
    traced on each call's shapes and dtypes (once per signature)."""
    from fgrad.export.jax import to_jax as export  # NOTE: JAX is optional: imported when used

    return export(graph_or_fn)
