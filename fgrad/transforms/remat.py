"""Rematerialisation: checkpoint (remat), its policies, and optimization_barrier, as JAX's.

`fg.checkpoint(f)` marks `f` as a region whose intermediates the backward pass computes again
instead of keeping from the forward pass: only the region's inputs (and what its `policy` saves)
stay alive between the two passes, so a deep network's activation memory falls from one set per
layer to about one layer's. The region is one `checkpoint` primitive holding `f`'s graph
(fgrad/primitives/calls.py); the recomputation reads the region's inputs through
`optimization_barrier`, so that graph simplification, which merges equal nodes, cannot merge it
back into the forward pass. Lowering keeps node order, so it runs in the backward pass.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fgrad import numpy as fnp
from fgrad.numpy.promotion import argument_values
from fgrad.errors import InputError, TraceError
from fgrad.ir import Primitive, Spec
from fgrad.primitives.calls import bind_checkpoint, optimization_barrier_p, traced_body
from fgrad.primitives.convolution import conv_general_dilated_p
from fgrad.primitives.linalg import matmul_p
from fgrad.pytree import flatten, leaf_paths, tree_map, unflatten
from fgrad.trace import Tensor, bind, current_trace, spec_of, user_site

Policy = Callable[..., bool]  # policy(primitive, *operand specs, **params) -> whether its results are saved


# ---------------------------------------------------------------------------
# Policies: JAX's names. A policy sees each primitive application of the region.
# ---------------------------------------------------------------------------


def everything_saveable(prim: Primitive, *specs: Spec, **params: Any) -> bool:
    """Save every value: no recomputation (as without checkpoint)."""
    return True


def nothing_saveable(prim: Primitive, *specs: Spec, **params: Any) -> bool:
    """Save nothing: the backward pass computes the whole region again (the default)."""
    return False


def dots_saveable(prim: Primitive, *specs: Spec, **params: Any) -> bool:
    """Save the results of matrix products and convolutions; recompute the cheap rest."""
    return prim in (matmul_p, conv_general_dilated_p)


def dots_with_no_batch_dims_saveable(prim: Primitive, *specs: Spec, **params: Any) -> bool:
    """Save the products with no batch dimension: those by a weight matrix (x @ w, whose batch
    dims fold into rows), not attention's per-head q @ k^T; as JAX's, a transformer's choice."""
    return prim is matmul_p and any(all(d == 1 for d in s.shape[:-2]) for s in specs)


def save_from_both_policies(policy_1: Policy, policy_2: Policy) -> Policy:
    """Save what either policy saves."""

    def policy(prim: Primitive, *specs: Spec, **params: Any) -> bool:
        return policy_1(prim, *specs, **params) or policy_2(prim, *specs, **params)

    policy.__qualname__ = f"save_from_both_policies({_name(policy_1)}, {_name(policy_2)})"
    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    save_from_both_policies=save_from_both_policies,
)


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


@dataclass(frozen=True)
class _Named:
    """A policy held in a node's params: compared as the function it wraps, printed by its name
    (so a graph's listing is the same from run to run)."""

    fn: Policy

    def __call__(self, prim: Primitive, *specs: Spec, **params: Any) -> bool:
        return bool(self.fn(prim, *specs, **params))

    def __repr__(self) -> str:
        return _name(self.fn)


# ---------------------------------------------------------------------------
# checkpoint
# ---------------------------------------------------------------------------


def checkpoint(fun: Callable[..., Any], *, prevent_cse: bool = True, policy: Policy | None = None,
               static_argnums: int | tuple[int, ...] = (), static_argnames: str | Iterable[str] = (),
               concrete: bool = False) -> Callable[..., Any]:
    """`fun`, with its intermediates recomputed in the backward pass instead of stored, as
    `jax.checkpoint` (alias `fg.remat`).

    Args:
        fun: the region, a function of pytrees of arrays returning one.
        prevent_cse: read the recomputation's inputs through `optimization_barrier`, so that graph
            simplification cannot merge it with the forward pass (which would keep the values after
            all). False only where something else keeps them apart.
        policy: which values to keep rather than recompute: a function
            `(primitive, *operand specs, **params) -> bool`, as JAX's policies, such as those in
            `fg.checkpoint_policies` (`dots_saveable` keeps the matrix products' results). None:
            nothing is kept.
        static_argnums: positional arguments passed to `fun` as they are (Python values), not traced.
        static_argnames: keyword arguments passed so, by name.
        concrete: False only: JAX removed concrete=True (in 0.10, where it refuses the keyword
            altogether); mark the arguments Python reads static instead.
    Returns:
        The function, with `fun`'s values and derivatives; it nests in every transform.
    """
    site = user_site()
    if not callable(fun):
        raise TraceError(f"checkpoint: expected a function, got a {type(fun).__name__}", site)
    if concrete is not False:
        raise InputError(f"checkpoint: concrete={concrete!r}: JAX removed concrete=True; pass the values Python "
                         "reads as static_argnums or static_argnames", site)
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if not all(type(i) is int for i in static):
        raise InputError(f"checkpoint: static_argnums must be ints, got {static_argnums!r}", site)
    names = (static_argnames,) if isinstance(static_argnames, str) else \
        tuple(static_argnames) if isinstance(static_argnames, Iterable) else None
    if names is None or not all(isinstance(n, str) for n in names):
        raise InputError(f"checkpoint: static_argnames must be a str or strs, got {static_argnames!r}", site)
    if policy is not None and not callable(policy):
        raise InputError(f"checkpoint: policy must be a function (fg.checkpoint_policies has JAX's), got "
                         f"{policy!r}", site)
    held = None if policy is None else _Named(policy)

    @functools.wraps(fun)
    def checkpointed(*args: Any, **kwargs: Any) -> Any:
        call_site = user_site()
        bad = [i for i in static if not -len(args) <= i < len(args)]
        if bad:
            raise InputError(f"checkpoint: static_argnums {bad} out of range for a call of {len(args)} positional "
                             "arguments", call_site)
        fixed = {i % len(args) for i in static}
        named = {k: v for k, v in kwargs.items() if k in names}
        traced = (tuple(a for i, a in enumerate(args) if i not in fixed),
                  {k: v for k, v in kwargs.items() if k not in names})
        leaves, tree = flatten(traced)
        if current_trace() is None and not any(isinstance(x, Tensor) for x in leaves):
            return fun(*args, **kwargs)  # on arrays: nothing is differentiated, so nothing to recompute
        paths = leaf_paths(tree, prefix="args")
        values = argument_values(leaves, paths, "checkpoint", call_site)

        def region(*xs: Any) -> Any:
            positional, keywords = unflatten(tree, list(xs))
            it = iter(positional)
            return fun(*(args[i] if i in fixed else next(it) for i in range(len(args))), **keywords, **named)

        body, closed, out_tree = traced_body(region, [spec_of(v) for v in values], paths)
        return unflatten(out_tree, list(bind_checkpoint(body, [*values, *closed], held, bool(prevent_cse))))

    return checkpointed


remat = checkpoint


def optimization_barrier(operand: Any) -> Any:
    """`operand` (a pytree of arrays) unchanged, as `jax.lax.optimization_barrier`: graph passes
    neither merge what is computed from the result with what is computed from the operand, nor
    fold or look through it. It costs nothing on the device."""
    return tree_map(lambda x: bind(optimization_barrier_p, fnp.asarray(x)), operand)
