"""JAX export rules of the callbacks (fgrad/primitives/callbacks.py): JAX's own, calling the same
Python function with the same checks."""

from __future__ import annotations

from typing import Any

import jax
import jax.experimental
import jax.numpy as jnp
import numpy as np

from fgrad.export.jax import jax_rules
from fgrad.ir import Spec
from fgrad.primitives import debug_callback_p, io_callback_p, pure_callback_p
from fgrad.primitives.callbacks import Callback


def _pure(*operands: Any, callback: Callback, results: tuple[Spec, ...], vmap_method: str | None) -> tuple:
    def call(*leaves: Any) -> tuple:
        return pure_callback_p.impl(*(np.asarray(x) for x in leaves), callback=callback, results=results,
                                    vmap_method=vmap_method)

    shapes = [jax.ShapeDtypeStruct(s.shape, s.dtype.np) for s in results]
    return tuple(jax.pure_callback(call, shapes, *operands, vmap_method=vmap_method))


jax_rules.register(pure_callback_p, _pure)


def _io(*operands: Any, callback: Callback, results: tuple[Spec, ...], ordered: bool) -> tuple:
    def call(*leaves: Any) -> tuple:
        return io_callback_p.impl(*(np.asarray(x) for x in leaves), callback=callback, results=results,
                                  ordered=ordered)

    shapes = [jax.ShapeDtypeStruct(s.shape, s.dtype.np) for s in results]
    return tuple(jax.experimental.io_callback(call, shapes, *operands, ordered=ordered))


jax_rules.register(io_callback_p, _io)


def _debug(*operands: Any, callback: Callback) -> Any:
    jax.debug.callback(lambda *leaves: callback(*(np.asarray(x) for x in leaves)), *operands)
    return jnp.zeros((), bool)


jax_rules.register(debug_callback_p, _debug)
