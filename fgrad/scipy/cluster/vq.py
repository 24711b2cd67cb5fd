"""`jax.scipy.cluster.vq` as `fg.scipy.cluster.vq`: `vq`, the nearest code of each observation.

Written with fgrad's functions, so it traces, differentiates (the distances), batches and
compiles to WGSL. SciPy's k-means functions are left out, as in JAX.
"""

from __future__ import annotations

import numpy as np

from fgrad.errors import ShapeError, name_errors_after
from fgrad.numpy import argmin, expand_dims, sqrt, square, squeeze, subtract, sum, take_along_axis
from fgrad.numpy.promotion import ArrayLike, _float_dtype, _shape, asarray, result_dtype
from fgrad.trace import Tensor, user_site

__all__ = ["vq"]

Array = Tensor | np.ndarray


def vq(obs: ArrayLike, code_book: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """Assign each observation the nearest code of `code_book` by Euclidean distance, as
    `jax.scipy.cluster.vq.vq`.

    Args:
        obs: observations (M, N), one a row; 1-d obs are M observations of length 1.
        code_book: codes (K, N) of obs' rank (1-d: K codes of length 1).
        check_finite: accepted and ignored, as in JAX.

    Returns:
        (codes, distances): the i32 index (M,) of each observation's nearest code (the first of
        equally near ones) and the distance (M,) to it, in the float dtype the two promote to.
    """
    del check_finite  # unused, as in JAX
    dtype = _float_dtype(result_dtype(obs, code_book))
    obs, code_book = asarray(obs, dtype), asarray(code_book, dtype)
    o, c = _shape(obs), _shape(code_book)
    if len(o) != len(c):
        raise ShapeError(f"vq: obs {o} and code_book {c} must have the same rank", user_site())
    if len(o) == 1:
        obs, code_book = expand_dims(obs, -1), expand_dims(code_book, -1)
    elif len(o) != 2:
        raise ShapeError(f"vq: obs {o} and code_book {c} must be 1-d or 2-d", user_site())
    elif o[1] != c[1]:
        raise ShapeError(f"vq: obs {o} and code_book {c} must have the same number of features", user_site())
    dist = sqrt(sum(square(subtract(expand_dims(obs, 1), expand_dims(code_book, 0))), -1))  # (M, K)
    code = argmin(dist, axis=-1)
    return code, squeeze(take_along_axis(dist, expand_dims(code, -1), axis=-1), -1)


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
