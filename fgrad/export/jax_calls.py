"""JAX export rules of the primitives holding graphs: scan, while, cond (fgrad/primitives/control_flow.py),
the custom rules' calls, checkpoint and optimization_barrier (fgrad/primitives/calls.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from fgrad.export.jax import evaluate, jax_rules
from fgrad.ir import Graph
from fgrad.primitives import (
    checkpoint_p, cond_p, custom_jvp_call_p, custom_vjp_call_p, custom_vmap_call_p, optimization_barrier_p, scan_p,
    while_p,
)
from fgrad.transforms.bodies import split


def _is_float(x: Any) -> bool:
    return jnp.issubdtype(x.dtype, jnp.floating)


def _tangent(primal: Any, t: Any) -> Any:
    """A tangent JAX gives (float0 for an integer primal) as fgrad's: zeros of the primal's spec there."""
    return t if _is_float(primal) else jnp.zeros_like(primal)


def _jax_tangent(value: Any, t: Any) -> Any:
    """fgrad's tangent (or cotangent) of `value` as JAX takes it: float0 zeros for an integer value."""
    return t if _is_float(value) else np.zeros(np.shape(value), jax.dtypes.float0)


# scan: operands (*consts, *init carry, *xs); the body maps (*consts, *carry, *x slices) to (*carry, *y slices).
def _scan(*operands: Any, body: Graph, length: int, reverse: bool, num_consts: int, num_carry: int) -> tuple:
    consts, init, xs = split(operands, num_consts, num_carry)

    def step(carry: list[Any], x: list[Any]) -> tuple[list[Any], list[Any]]:
        outs = evaluate(body, [*consts, *carry, *x])
        return outs[:num_carry], outs[num_carry:]

    carry, ys = jax.lax.scan(step, list(init), list(xs), length=length, reverse=reverse)
    return (*carry, *ys)


jax_rules.register(scan_p, _scan)


# while: operands (*cond consts, *body consts, *init carry).
def _while(*operands: Any, cond: Graph, body: Graph, num_cond_consts: int, num_body_consts: int) -> tuple:
    cond_consts, body_consts, init = split(operands, num_cond_consts, num_body_consts)
    return tuple(jax.lax.while_loop(lambda carry: evaluate(cond, [*cond_consts, *carry])[0],
                                    lambda carry: evaluate(body, [*body_consts, *carry]), list(init)))


jax_rules.register(while_p, _while)


# cond: switch clamps the index into range, as the NumPy implementation does.
def _cond(index: Any, *operands: Any, branches: tuple[Graph, ...]) -> tuple:
    fns = [lambda *xs, b=b: evaluate(b, xs) for b in branches]
    return tuple(jax.lax.switch(index, fns, *operands))


jax_rules.register(cond_p, _cond)

jax_rules.register(optimization_barrier_p, jax.lax.optimization_barrier)


# checkpoint: the body rematerialized in the backward pass (fgrad's policy names fgrad primitives, so
# it is not passed to JAX; the saved values are results either way).
def _checkpoint(*operands: Any, body: Graph, saved: int, policy: Any, prevent_cse: bool) -> tuple:
    return tuple(jax.checkpoint(lambda *xs: evaluate(body, xs), prevent_cse=prevent_cse)(*operands))


jax_rules.register(checkpoint_p, _checkpoint)

# custom_vmap_call: the function (its batching rule is fgrad code, which JAX values cannot run; JAX's
# own batching of the function gives the same values).
jax_rules.register(custom_vmap_call_p, lambda *operands, fun, rule, num_args: tuple(evaluate(fun, operands)))


# custom_jvp_call: operands (*args, *fun's closures, *jvp's closures). The user's rule gives the
# arguments' part of the tangent, fun's graph the closures'; the jvp rule's closures have none.
def _custom_jvp(*operands: Any, fun: Graph, jvp: Graph, num_args: int) -> tuple:
    n, nf, m = num_args, len(fun.inputs), len(fun.outputs)

    @jax.custom_jvp
    def call(*xs: Any) -> list[Any]:
        return evaluate(fun, xs[:nf])

    @call.defjvp
    def call_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        args, closures, jvp_closures = split(primals, n, nf - n)
        arg_tangents = [_tangent(x, t) for x, t in zip(args, tangents[:n])]
        of_args = evaluate(jvp, [*args, *arg_tangents, *jvp_closures])[m:]
        outs, of_closures = jax.jvp(lambda *c: evaluate(fun, [*args, *c]), closures, list(tangents[n:nf]))
        return outs, [t + c if s.dtype.is_float else _jax_tangent(y, t)
                      for y, t, c, s in zip(outs, of_args, of_closures, fun.out_specs)]

    return tuple(call(*operands))


jax_rules.register(custom_jvp_call_p, _custom_jvp)


# custom_vjp_call: operands (*args, *fun's closures, *fwd's closures, *bwd's closures). bwd gives the
# arguments' cotangents, fun's graph the closures'; fwd's and bwd's closures have none.
def _custom_vjp(*operands: Any, fun: Graph, fwd: Graph, bwd: Graph, num_args: int) -> tuple:
    n, nf, nw, m = num_args, len(fun.inputs), len(fwd.inputs) - num_args, len(fun.outputs)

    @jax.custom_vjp
    def call(*xs: Any) -> list[Any]:
        return evaluate(fun, xs[:nf])

    def call_fwd(*xs: Any) -> tuple[list[Any], tuple]:
        args, _, fwd_closures, _ = split(xs, n, nf - n, nw)
        residuals = evaluate(fwd, [*args, *fwd_closures])[m:]
        return evaluate(fun, xs[:nf]), (residuals, xs)

    def call_bwd(saved: tuple, g: Sequence[Any]) -> tuple:
        residuals, xs = saved
        args, closures, fwd_closures, bwd_closures = split(xs, n, nf - n, nw)
        cts = [ct if s.dtype.is_float else jnp.zeros(s.shape, s.dtype.np) for ct, s in zip(g, fun.out_specs)]
        arg_cts = evaluate(bwd, [*residuals, *cts, *bwd_closures])
        closure_cts = jax.vjp(lambda *c: evaluate(fun, [*args, *c]), *closures)[1](
            [_jax_tangent(y, ct) for y, ct in zip(cts, g)]) if closures else ()
        zeros = [jnp.zeros_like(x) for x in (*fwd_closures, *bwd_closures)]
        return tuple(_jax_tangent(x, ct) for x, ct in zip(xs, [*arg_cts, *closure_cts, *zeros]))

    call.defvjp(call_fwd, call_bwd)
    return tuple(call(*operands))


jax_rules.register(custom_vjp_call_p, _custom_vjp)
