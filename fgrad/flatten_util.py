"""`jax.flatten_util`: `ravel_pytree`, a pytree of arrays as one vector and back (an optimizer
over a model's parameters as one vector, a Hessian of a pytree as one matrix)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import DType
from fgrad.numpy.promotion import _dtype, _shape
from fgrad.pytree import flatten, unflatten
from fgrad.trace import user_site

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """The leaves of `pytree` raveled and joined into one vector of their promoted dtype (an
    empty f32 vector for no leaves), and the function that splits such a vector back into the
    pytree, each leaf in its shape and dtype, as `jax.flatten_util.ravel_pytree`. Works on traced
    values too, so it differentiates and compiles."""
    leaves, tree = flatten(pytree)
    if not leaves:
        return fnp.zeros((0,), DType.f32), lambda flat: unflatten(tree, [])
    dtypes = [_dtype(x) for x in leaves]
    to = fnp.result_type(*dtypes)
    shapes = [_shape(x) for x in leaves]
    sizes = [math.prod(s) for s in shapes]
    flat = fnp.concatenate([fnp.reshape(fnp.astype(fnp.asarray(x), to), (n,)) for x, n in zip(leaves, sizes)])
    one = all(d == to for d in dtypes)  # a single dtype: unravel takes a vector of any dtype, as JAX's

    def unravel(vector: Any) -> Any:
        site = user_site()
        if _shape(vector) != (sum(sizes),):
            raise ShapeError(f"unravel_pytree: expected a vector of {sum(sizes)} values, got shape {_shape(vector)}",
                             site)
        if not one and _dtype(vector) != to:
            raise DTypeError(f"unravel_pytree: expected a vector of {to}, the dtype it was raveled to, got "
                             f"{_dtype(vector)}", site)
        ends = list(itertools.accumulate(sizes))[:-1]
        parts = fnp.split(vector, ends) if ends else [vector]
        return unflatten(tree, [fnp.reshape(p, s) if one else fnp.astype(fnp.reshape(p, s), d)
                                for p, s, d in zip(parts, shapes, dtypes)])

    return flat, unravel
