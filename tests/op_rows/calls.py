"""Op-table rows: calls of a graph (custom_jvp, custom_vjp, custom_vmap, checkpoint) and optimization_barrier.

Each custom rule here gives the function's true derivative, so the VJP column's finite
differences check that reverse mode runs the rule (its transpose, for custom_jvp). Forward mode of
a custom_vjp function is refused, as in JAX (tests/test_custom_rules.py checks the error)."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import F, F16, H, Case, rounded


@fg.custom_jvp
def log1pexp(x):
    """log(1 + e^x), whose rule stays finite where e^x overflows (JAX's documentation's example)."""
    return fg.log(1.0 + fg.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + fg.exp(x)))


@fg.custom_vjp
def sin_times(x, y):
    """sin(x) y, its cotangents from residuals cos(x), sin(x) and y (JAX's documentation's example)."""
    return fg.sin(x) * y


def _sin_times_fwd(x, y):
    return sin_times(x, y), (fg.cos(x), fg.sin(x), y)


def _sin_times_bwd(residuals, g):
    cos_x, sin_x, y = residuals
    return cos_x * g * y, sin_x * g


sin_times.defvjp(_sin_times_fwd, _sin_times_bwd)


@fg.custom_batching.custom_vmap
def scaled_sum(x, w):
    """x w summed over its last axis; batched, one product of the batch with w (a matrix-vector row)."""
    return fg.sum(x * w, -1)


@scaled_sum.def_vmap
def _scaled_sum_vmap(axis_size, in_batched, xs, w):
    _, w_batched = in_batched
    return fg.sum(xs * (w[:, None, :] if w_batched else w), -1), True


def _block(x, w):
    return fg.tanh(x @ w) * x


block = fg.checkpoint(_block)


def block_ref(x, w):
    return np.tanh(x @ w) * x


OP_ROWS: tuple[Case, ...] = (  # every new primitive's rows (value, WGSL, VJP)
    Case("custom_jvp_call", "log1pexp", log1pexp, (F(2, 3),), lambda x: np.log1p(np.exp(x))),
    Case("custom_vjp_call", "sin-times", sin_times, (F(2, 3), F(2, 3)), lambda x, y: np.sin(x) * y),
    Case("checkpoint", "tanh-matmul", block, (F(3, 3, lo=-1, hi=1), F(3, 3, lo=-1, hi=1)), block_ref),
    Case("custom_vmap_call", "scaled-sum", scaled_sum, (F(2, 3), F(3)), lambda x, w: np.sum(x * w, -1)),
    Case("optimization_barrier", "identity", lambda x: fg.lax.optimization_barrier(x) * 2.0, (F(2, 3),),
         lambda x: x * 2.0),
)
API_ROWS: tuple[Case, ...] = (
    Case("checkpoint", "dots-saveable", fg.checkpoint(_block, policy=fg.checkpoint_policies.dots_saveable),
         (F(3, 3, lo=-1, hi=1), F(3, 3, lo=-1, hi=1)), block_ref),
    Case("optimization_barrier", "pytree", lambda x, y: sum(fg.lax.optimization_barrier((x, {"y": y}))[1].values()),
         (F(2), F(2)), lambda x, y: y),
)
F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("custom_jvp_call", "f16", log1pexp, (H(2, 3),), rounded(lambda x: np.log1p(np.exp(x))), **F16),
    Case("custom_vjp_call", "f16", sin_times, (H(2, 3), H(2, 3)), rounded(lambda x, y: np.sin(x) * y), **F16),
    Case("custom_vmap_call", "f16", scaled_sum, (H(2, 3), H(3)), rounded(lambda x, w: np.sum(x * w, -1)), **F16),
    Case("checkpoint", "f16", block, (H(3, 3, lo=-1, hi=1), H(3, 3, lo=-1, hi=1)), rounded(block_ref), **F16),
    Case("optimization_barrier", "f16", fg.lax.optimization_barrier, (H(2, 3),), lambda x: x, **F16),
)
U32_ROWS: tuple[Case, ...] = ()
