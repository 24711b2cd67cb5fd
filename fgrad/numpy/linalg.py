"""Matrix products."""

from __future__ import annotations


import numpy as np

from fgrad.errors import ShapeError
from fgrad.ir import DType
from fgrad.primitives import matmul_p
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import ArrayLike, _arith_dtype, _broadcast_shapes, _shape, asarray, result_dtype
from fgrad.numpy.shapes import reshape
from fgrad.numpy.elementwise import astype, greater

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "matmul",
]


def matmul(a: ArrayLike, b: ArrayLike) -> Tensor | np.ndarray:
    """Matrix product with NumPy's rules: 1-D operands are vectors, batch dims broadcast;
    bools give bool (an or of ands), as in jax.numpy."""
    if result_dtype(a, b) is DType.bool:
        return greater(matmul(astype(a, DType.i32), astype(b, DType.i32)), 0)
    dt = _arith_dtype(a, b)
    a, b = asarray(a, dt), asarray(b, dt)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        raise ShapeError(f"matmul: operands must be at least 1-D, got {sa} @ {sb}", user_site())
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    if a2[-1] != b2[-2]:
        raise ShapeError(f"matmul: inner dimensions differ: {sa} @ {sb}", user_site())
    batch = _broadcast_shapes(a2[:-2], b2[:-2])
    if batch is None:
        raise ShapeError(f"matmul: batch dimensions {a2[:-2]} and {b2[:-2]} do not broadcast in {sa} @ {sb}", user_site())
    rank = len(batch) + 2
    a = reshape(a, (1,) * (rank - len(a2)) + a2)
    b = reshape(b, (1,) * (rank - len(b2)) + b2)
    out = bind(matmul_p, a, b)
    shape = batch + ((a2[-2],) if len(sa) > 1 else ()) + ((b2[-1],) if len(sb) > 1 else ())
    return reshape(out, shape)
