"""Matrix products: matmul with batch broadcasting.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import Dim, Spec, declare
from fgrad.lower.kinds import Contraction, register_lowering
from fgrad.lower.library import cast
from fgrad.lower.rewrites import rewrite_rules, split_long_matmul
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import vjp_rules
from fgrad.transforms.batching import batch_rules
from fgrad.transforms.forward import jvp_rules, multilinear_jvp

from fgrad.primitives.abstract_eval import NUMERIC, check_dtypes, wide

__all__ = [  # re-exported by fgrad.primitives
    "matmul_p",
]


# matmul: (*batch, m, k) @ (*batch, k, n); operands of equal rank >= 2 whose
# batch dims are equal or 1 (a size-1 batch dim broadcasts without a copy).
# d(a @ b) = g @ b^T for a and a^T @ g for b, summed over the batch dims
# that the operand broadcast.
def _matmul_rule(a: Spec, b: Spec) -> Spec:
    check_dtypes("matmul", NUMERIC, a, b)
    if a.dtype != b.dtype:
        raise DTypeError(f"matmul: operand dtypes differ: {a} @ {b}")
    if a.ndim != b.ndim or a.ndim < 2:
        raise ShapeError(f"matmul: operands must have equal rank >= 2, got {a.shape} @ {b.shape}")
    if a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"matmul: inner dimensions differ: {a.shape} @ {b.shape}")
    if any(x != y and 1 not in (x, y) for x, y in zip(a.shape[:-2], b.shape[:-2])):
        raise ShapeError(f"matmul: batch dimensions {a.shape[:-2]} and {b.shape[:-2]} do not broadcast")
    batch = tuple(y if x == 1 else x for x, y in zip(a.shape[:-2], b.shape[:-2]))
    return Spec(batch + (a.shape[-2], b.shape[-1]), a.dtype)


def _matrix_transpose(x: Tensor) -> Tensor:
    return fnp.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _sum_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum the batch dims that `shape` has as 1 but `x` does not."""
    axes = tuple(i for i, (d, s) in enumerate(zip(x.shape[:-2], shape[:-2])) if d != s)
    return fnp.reshape(fnp.sum(x, axes), shape) if axes else x


def _matmul_vjp(g: Tensor, ans: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    # A weight b (batch dims all 1) against a batch of a: db = a^T g over all rows at once.
    # (Rows of a symbol T are merged only where T is their one axis: fgrad forms no product with T.)
    shared_b = b.ndim > 2 and all(d == 1 for d in b.shape[:-2]) and (
        not a.spec.symbols or all(d == 1 for d in a.shape[:-2]))
    db = (fnp.reshape(bind(matmul_p, _matrix_transpose(fnp.reshape(a, (-1, a.shape[-1]))), fnp.reshape(g, (-1, g.shape[-1]))),
                  b.shape) if shared_b else _sum_to(bind(matmul_p, _matrix_transpose(a), g), b.shape))
    return _sum_to(bind(matmul_p, g, _matrix_transpose(b)), a.shape), db


# Batched: one matmul. An operand batched against an unbatched one whose batch dims are all 1
# (a weight) has the batch folded into its rows (b's through a @ b = (b^T a^T)^T): one 2-D
# product, as a hand-batched program's (B, k) @ (k, n). Otherwise the batch axis is one more
# batch dim, 1 on an unbatched operand (broadcast without a copy). Rows holding a symbol are not
# folded: fgrad forms no product with one.
def _matmul_batch(args: Sequence[Tensor], batched: Sequence[bool]) -> Tensor:
    a, b = args
    if batched[0] != batched[1]:
        x, w = (a, b) if batched[0] else (_matrix_transpose(b), _matrix_transpose(a))
        if all(d == 1 for d in w.shape[:-2]) and not any(isinstance(d, Dim) for d in x.shape[:-1]):
            rows = bind(matmul_p, fnp.reshape(x, (math.prod(x.shape[:-1]), x.shape[-1])), fnp.reshape(w, w.shape[-2:]))
            out = fnp.reshape(rows, (*x.shape[:-1], w.shape[-1]))
            return out if batched[0] else _matrix_transpose(out)
    return bind(matmul_p, *(x if f else fnp.reshape(x, (1, *x.shape)) for x, f in zip(args, batched)))


def _matmul_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """One output element: a dot product over k (an operand's size-1 batch dims read index 0)."""
    a, b = w.nodes[i].inputs
    sa, sb, dtype = w.spec(a).shape, w.spec(b).shape, w.spec(i).dtype
    batch, wide = coords[:-2], dtype.wide
    acc = w.var(w.literal(0, wide), wide)
    with w.loop(sa[-1]) as k:
        va = w.value(a, [c if d != 1 else "0i" for c, d in zip(batch, sa[:-2])] + [coords[-2], k])
        vb = w.value(b, [c if d != 1 else "0i" for c, d in zip(batch, sb[:-2])] + [k, coords[-1]])
        w.line(f"{acc} = {acc} + {cast(w, va, dtype, wide)} * {cast(w, vb, dtype, wide)};")
    return cast(w, acc, wide, dtype)


# NOTE: products accumulate in the dtype's `wide` one (f16 in f32), as JAX's on GPUs.
matmul_p = declare("matmul", _matmul_rule, lambda a, b: np.matmul(a.astype(wide(a)), b.astype(wide(b))).astype(a.dtype))
vjp_rules.register(matmul_p, _matmul_vjp)
jvp_rules.register(matmul_p, multilinear_jvp(matmul_p))
batch_rules.register(matmul_p, _matmul_batch)
register_lowering(matmul_p, Contraction(lambda node, a, b: a.shape[-1], tiled=True), _matmul_wgsl)
rewrite_rules.register(matmul_p, split_long_matmul)
