"""Calling Python from a traced program: `fg.pure_callback`, as `jax.pure_callback`, and
`fg.experimental.io_callback`, as JAX's. The debugging callbacks, called for their effect, are
fgrad.debug's (`fg.debug.print`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, InputError
from fgrad.ir import DType, Spec
from fgrad.numpy import asarray
from fgrad.primitives.callbacks import VMAP_METHODS, io_callback_p, pure_callback_p, split_arguments
from fgrad.pytree import flatten, unflatten
from fgrad.trace import bind, user_site

__all__ = ["effects_barrier", "io_callback", "pure_callback"]


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any, sharding: Any = None,
                  vmap_method: str | None = None, **kwargs: Any) -> Any:
    """Call `callback`, a pure Python function of arrays, from a traced or compiled program.

    It gets NumPy arrays (the pytrees `args` and `kwargs`) and must return a pytree of arrays
    matching `result_shape_dtypes` (leaves with `shape` and `dtype`: `fg.ShapeDtypeStruct`),
    which is checked; 64-bit results are taken in 32 bits, as JAX's. Compiled, the program
    reads the operands back where the call falls among its kernels, calls it and carries on
    with its results: a round trip each time.

    Being pure, it may be called more than once or not at all (when nothing reads its results).
    `vmap` calls it as `vmap_method` says: "sequential" (a loop over the batch),
    "sequential_unrolled", "expand_dims" (once, unbatched operands given a leading axis of 1),
    "broadcast_all" (once, all broadcast to the batch) or "legacy_vectorized"; without one, vmap
    raises. It has no derivative: give it one with `fg.custom_jvp` or `fg.custom_vjp`.
    `sharding` is accepted for JAX's signature: fgrad has one device.
    """
    site = user_site()
    if vmap_method not in (None, *VMAP_METHODS):
        raise InputError(f"pure_callback: vmap_method must be one of {', '.join(VMAP_METHODS)} or None, "
                         f"got {vmap_method!r}", site)
    return _bound(pure_callback_p, "pure_callback", site, callback, result_shape_dtypes, args, kwargs,
                  vmap_method=vmap_method)


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any, sharding: Any = None,
                ordered: bool = False, **kwargs: Any) -> Any:
    """Call `callback` for its effect and its results, as `jax.experimental.io_callback`: as
    `pure_callback`, but it is called wherever the program runs it, even when nothing reads its
    results, and never merged with another call; its results are checked as `pure_callback`'s.
    Under `vmap` it is called once per element, in order, unless `ordered` (an error, as in JAX);
    it has no derivative. `sharding` is accepted for JAX's signature."""
    return _bound(io_callback_p, "io_callback", user_site(), callback, result_shape_dtypes, args, kwargs,
                  ordered=bool(ordered))


def effects_barrier() -> None:
    """Wait until every callback of the programs run so far has been called, as
    `jax.effects_barrier`: fgrad calls them before the call that runs them returns, so there is
    nothing to wait for."""


def _bound(primitive: Any, who: str, site: str | None, callback: Callable[..., Any], result_shape_dtypes: Any,
           args: tuple[Any, ...], kwargs: dict[str, Any], **params: Any) -> Any:
    """A callback's primitive bound to the array leaves of `args` and `kwargs`, for results of the
    shapes and dtypes `result_shape_dtypes` declare (their pytree)."""
    if not callable(callback):
        raise InputError(f"{who}: the callback must be callable, got a {type(callback).__name__}", site)
    leaves, out_tree = flatten(result_shape_dtypes)
    results = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise InputError(f"{who}: each leaf of result_shape_dtypes needs a shape and a dtype "
                             f"(fg.ShapeDtypeStruct), got a {type(leaf).__name__}", site)
        dtype = np.dtype(leaf.dtype.np if isinstance(leaf.dtype, DType) else leaf.dtype)
        if dtype.itemsize == 8:
            raise DTypeError(f"{who}: result_shape_dtypes declare {dtype}; fgrad's values have at most 32 bits", site)
        results.append(Spec(tuple(leaf.shape), DType.of(dtype)))
    call, operands = split_arguments(callback, args, kwargs, out_tree)
    outs = bind(primitive, *(asarray(x) for x in operands), callback=call, results=tuple(results), **params)
    return unflatten(out_tree, list(outs))
