"""JAX export rules of the callbacks (fgrad/primitives/callbacks.py): JAX's own, calling the same
Python function with the same checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.experimental
import jax.numpy as jnp
import numpy as np

from fgrad.export.jax import jax_rules
from fgrad.ir import Spec
from fgrad.primitives import debug_callback_p, io_callback_p, pure_callback_p
from fgrad.primitives.callbacks import Callback


def _exported(primitive: Any, jax_callback: Callable[..., Any]) -> Callable[..., tuple]:
    """The rule of a callback with results: JAX's `jax_callback` calling the primitive's own NumPy
    implementation (the user's function, its results checked); its other param (vmap_method,
    ordered) is JAX's keyword of the same name."""
    def rule(*operands: Any, callback: Callback, results: tuple[Spec, ...], **params: Any) -> tuple:
        def call(*leaves: Any) -> tuple:
            return primitive.impl(*(np.asarray(x) for x in leaves), callback=callback, results=results, **params)

        shapes = [jax.ShapeDtypeStruct(s.shape, s.dtype.np) for s in results]
        return tuple(jax_callback(call, shapes, *operands, **params))

    return rule


jax_rules.register(pure_callback_p, _exported(pure_callback_p, jax.pure_callback))
jax_rules.register(io_callback_p, _exported(io_callback_p, jax.experimental.io_callback))


def _debug(*operands: Any, callback: Callback) -> Any:
    jax.debug.callback(lambda *leaves: callback(*(np.asarray(x) for x in leaves)), *operands)
    return jnp.zeros((), bool)


jax_rules.register(debug_callback_p, _debug)
