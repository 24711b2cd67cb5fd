"""`jax.scipy.integrate` as `fg.scipy.integrate`: `trapezoid`, the one function JAX has there.

It is `fg.numpy.trapezoid` (as JAX's is `jnp.trapezoid`), written with fgrad's functions, so it
traces, differentiates, batches and compiles to WGSL.
"""

from __future__ import annotations

import numpy as np

from fgrad.errors import name_errors_after
from fgrad.numpy import trapezoid as _trapezoid
from fgrad.numpy.promotion import ArrayLike
from fgrad.trace import Tensor

__all__ = ["trapezoid"]


def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1) -> Tensor | np.ndarray:
    """The integral of `y` along `axis` by the trapezoidal rule, as
    `jax.scipy.integrate.trapezoid`.

    Args:
        y: the samples (integers compute in f32).
        x: their coordinates, 1-d along `axis` or of y's shape; None spaces them `dx` apart.
        dx: the spacing where `x` is None.
        axis: the axis integrated over.
    """
    return _trapezoid(y, x, dx, axis)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
