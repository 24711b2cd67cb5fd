"""Collectives over a named vmap axis: psum, pmax, pmin, all_gather, psum_scatter, all_to_all,
ppermute and axis_index, as `jax.lax`'s under `jax.vmap(..., axis_name=...)`.

Inside `vmap(f, axis_name="b")`, `f` sees one example; a collective combines the examples: it is
bound only there (fgrad/lax/parallel.py checks the name), as a node naming the axis in its param
`axis_names`. When that vmap replays `f`'s graph on the batch, each such node's batching rule computes
it from the batch (fgrad/transforms/batching.py, `axis_frames`): psum sums the batch axis, and
its result is the same for every example; a collective over the axis of an enclosing vmap is
bound again, batched, for that vmap's replay. So no collective outlives the vmap that names its
axis: the lowering and the interpreter never meet one.

Reverse mode is JAX's: psum's transpose is psum, all_gather's a psum of the cotangent read at the
example's own index, psum_scatter's an all_gather, all_to_all's an all_to_all back, ppermute's the
permutation reversed; pmax and
pmin have no derivative.

One block per primitive: declaration, then its rules registered in each interpretation's table
(see fgrad/primitives/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import AxisNameError, MissingRule, ShapeError
from fgrad.ir import DType, Primitive, Spec, declare
from fgrad.lower.kinds import ELEMENTWISE, register_lowering
from fgrad.trace import bind, user_site
from fgrad.transforms.autodiff import nondiff, vjp_rules
from fgrad.transforms.batching import Unmapped, batch_rules, replayed_axis, with_batch
from fgrad.transforms.forward import jvp_rules, linear_jvp, nondiff_jvp

__all__ = [
    "all_gather_p", "all_to_all_p", "axis_index_p", "pmax_p", "pmin_p", "ppermute_p", "psum_p", "psum_scatter_p",
]  # re-exported by fgrad.primitives


def _unbound(name: str) -> Callable[..., Any]:
    """The NumPy implementation of a collective: it has no meaning outside the vmap naming its
    axis, whose replay replaces it."""

    def impl(*operands: np.ndarray, axis_names: tuple[Hashable, ...], **params: Any) -> np.ndarray:
        raise AxisNameError(f"{name}: unbound axis name {axis_names[0]!r}: a collective is computed by the "
                            f"fg.vmap(..., axis_name={axis_names[0]!r}) around it")

    return impl


def _no_derivative(name: str) -> Callable[..., Any]:
    def rule(*args: Any, **params: Any) -> None:
        raise MissingRule(f"{name}: no derivative, as in JAX", user_site())

    return rule


def _never_lowered(primitive: Primitive) -> None:
    # Never reached: the vmap naming the axis replaces every collective node before a graph is lowered.
    register_lowering(primitive, ELEMENTWISE, None)


# ---------------------------------------------------------------------------
# psum, pmax, pmin: operand x; the sum (largest, smallest) of x over the examples of the named
# axes, the same for each. A collective over several axes folds the replayed one and is bound
# again over the others.
# ---------------------------------------------------------------------------


def _reduction_rule(x: Spec, *, axis_names: tuple[Hashable, ...]) -> Spec:
    return x


def _reduction_batching(primitive: Primitive, fold: Callable[[Any], Any],
                        unbatched: Callable[[Any, int], Any]) -> Callable[..., Any]:
    """`fold` the batch axis of a batched operand; `unbatched(x, size)` for an operand the same in
    every example."""

    def rule(args: Sequence[Any], batched: Sequence[bool], *, axis_names: tuple[Hashable, ...]) -> Any:
        name, size = replayed_axis()
        (x,), (b,) = args, batched
        if name not in axis_names:  # an enclosing vmap's axis: the same collective for each example of this one
            return bind(primitive, x, axis_names=axis_names)
        out = fold(x) if b else unbatched(x, size)
        rest = tuple(a for a in axis_names if a != name)
        if rest:
            out = bind(primitive, out, axis_names=rest)
        return Unmapped(out)

    return rule


psum_p = declare("psum", _reduction_rule, _unbound("psum"))
vjp_rules.register(psum_p, lambda g, ans, x, *, axis_names: (bind(psum_p, g, axis_names=axis_names),))  # psum's transpose is psum
jvp_rules.register(psum_p, linear_jvp(psum_p))
batch_rules.register(psum_p, _reduction_batching(psum_p, lambda x: fnp.sum(x, 0), lambda x, n: x * n))
_never_lowered(psum_p)

pmax_p = declare("pmax", _reduction_rule, _unbound("pmax"))
vjp_rules.register(pmax_p, _no_derivative("pmax"))
jvp_rules.register(pmax_p, _no_derivative("pmax"))
batch_rules.register(pmax_p, _reduction_batching(pmax_p, lambda x: fnp.max(x, 0), lambda x, n: x))
_never_lowered(pmax_p)

pmin_p = declare("pmin", _reduction_rule, _unbound("pmin"))
vjp_rules.register(pmin_p, _no_derivative("pmin"))
jvp_rules.register(pmin_p, _no_derivative("pmin"))
batch_rules.register(pmin_p, _reduction_batching(pmin_p, lambda x: fnp.min(x, 0), lambda x, n: x))
_never_lowered(pmin_p)


# ---------------------------------------------------------------------------
# all_gather: operand x; every example's x, stacked along a new axis `axis` of `size` (the named
# axis's), or joined along `axis` where `tiled`.
# ---------------------------------------------------------------------------


def _all_gather_rule(x: Spec, *, axis_names: tuple[Hashable, ...], axis: int, tiled: bool, size: int) -> Spec:
    if tiled:
        if not 0 <= axis < x.ndim:
            raise ShapeError(f"all_gather: axis {axis} is out of range for a tiled gather of {x}")
        return Spec((*x.shape[:axis], size * x.shape[axis], *x.shape[axis + 1:]), x.dtype)
    if not 0 <= axis <= x.ndim:
        raise ShapeError(f"all_gather: axis {axis} is out of range for {x}")
    return Spec((*x.shape[:axis], size, *x.shape[axis:]), x.dtype)


def _all_gather_vjp(g: Any, ans: Any, x: Any, *, axis_names: tuple[Hashable, ...], axis: int, tiled: bool,
                    size: int) -> tuple[Any]:
    """Every example's cotangents summed, read at the example's own index."""
    total, index = bind(psum_p, g, axis_names=axis_names), bind(axis_index_p, axis_names=axis_names)
    if not tiled:
        return (fnp.take(total, index, axis=axis),)
    n = x.shape[axis]
    starts = [0] * total.ndim
    starts[axis] = index * n
    return (fnp.dynamic_slice(total, starts, x.shape),)


def _all_gather_batch(args: Sequence[Any], batched: Sequence[bool], *, axis_names: tuple[Hashable, ...], axis: int,
                      tiled: bool, size: int) -> Any:
    name, n = replayed_axis()
    (x,), (b,) = args, batched
    if name not in axis_names:
        return bind(all_gather_p, x, axis_names=axis_names, axis=axis + 1, tiled=tiled, size=size)
    out = fnp.moveaxis(x if b else with_batch(x, False, n), 0, axis)
    if tiled:
        shape = out.shape
        out = fnp.reshape(out, (*shape[:axis], shape[axis] * shape[axis + 1], *shape[axis + 2:]))
    return Unmapped(out)


all_gather_p = declare("all_gather", _all_gather_rule, _unbound("all_gather"))
vjp_rules.register(all_gather_p, _all_gather_vjp)
jvp_rules.register(all_gather_p, linear_jvp(all_gather_p))
batch_rules.register(all_gather_p, _all_gather_batch)
_never_lowered(all_gather_p)


# ---------------------------------------------------------------------------
# psum_scatter: operand x; the sum over the examples, each example keeping its own slice along
# `axis` (of `size`, the named axis's, which is dropped), or, `tiled`, its own chunk of it.
# ---------------------------------------------------------------------------


def _psum_scatter_rule(x: Spec, *, axis_names: tuple[Hashable, ...], axis: int, tiled: bool, size: int) -> Spec:
    if not 0 <= axis < x.ndim:
        raise ShapeError(f"psum_scatter: scatter_dimension {axis} is out of range for {x}")
    n = x.shape[axis]
    if tiled:
        if n % size:
            raise ShapeError(f"psum_scatter: axis {axis} of {x} must divide among the {size} examples")
        return Spec((*x.shape[:axis], n // size, *x.shape[axis + 1:]), x.dtype)
    if n != size:
        raise ShapeError(f"psum_scatter: axis {axis} of {x} must have the axis's size, {size}")
    return Spec((*x.shape[:axis], *x.shape[axis + 1:]), x.dtype)


def _psum_scatter_batch(args: Sequence[Any], batched: Sequence[bool], *, axis_names: tuple[Hashable, ...], axis: int,
                        tiled: bool, size: int) -> Any:
    name, n = replayed_axis()
    (x,), (b,) = args, batched
    if name not in axis_names:
        return bind(psum_scatter_p, x, axis_names=axis_names, axis=axis + 1, tiled=tiled, size=size)
    total = fnp.sum(x, 0) if b else x * n
    if tiled:
        shape = total.shape
        total = fnp.reshape(total, (*shape[:axis], n, shape[axis] // n, *shape[axis + 1:]))
    return fnp.moveaxis(total, axis, 0)  # example k's slice (chunk) first: batched


psum_scatter_p = declare("psum_scatter", _psum_scatter_rule, _unbound("psum_scatter"))
# psum_scatter's transpose is all_gather, as JAX's.
vjp_rules.register(psum_scatter_p, lambda g, ans, x, *, axis_names, axis, tiled, size: (
    bind(all_gather_p, g, axis_names=axis_names, axis=axis, tiled=tiled, size=size),))
jvp_rules.register(psum_scatter_p, linear_jvp(psum_scatter_p))
batch_rules.register(psum_scatter_p, _psum_scatter_batch)
_never_lowered(psum_scatter_p)


# ---------------------------------------------------------------------------
# all_to_all: operand x; each example's x split along `split` into `size` chunks (its slices, or
# where `tiled` its chunks), chunk j sent to example j, which puts what it receives along
# `concat` (a new axis, or, tiled, joined along an existing one).
# ---------------------------------------------------------------------------


def _all_to_all_rule(x: Spec, *, axis_names: tuple[Hashable, ...], split: int, concat: int, tiled: bool, size: int
                     ) -> Spec:
    shape = list(x.shape)
    if not (0 <= split < x.ndim and 0 <= concat < x.ndim):
        raise ShapeError(f"all_to_all: split_axis {split} and concat_axis {concat} must be axes of {x}")
    if tiled:
        if shape[split] % size:
            raise ShapeError(f"all_to_all: axis {split} of {x} must divide among the {size} examples")
        shape[split] //= size
        shape[concat] *= size
        return Spec(tuple(shape), x.dtype)
    if shape[split] != size:
        raise ShapeError(f"all_to_all: axis {split} of {x} must have the axis's size, {size}")
    del shape[split]
    shape.insert(concat, size)
    return Spec(tuple(shape), x.dtype)


def _all_to_all_batch(args: Sequence[Any], batched: Sequence[bool], *, axis_names: tuple[Hashable, ...], split: int,
                      concat: int, tiled: bool, size: int) -> Any:
    name, n = replayed_axis()
    (x,), (b,) = args, batched
    if name not in axis_names:
        return bind(all_to_all_p, x, axis_names=axis_names, split=split + 1, concat=concat + 1, tiled=tiled, size=size)
    x = x if b else with_batch(x, False, n)
    if tiled:  # the split axis as (example, chunk)
        shape = x.shape
        x = fnp.reshape(x, (*shape[:split + 1], n, shape[split + 1] // n, *shape[split + 2:]))
    received = fnp.moveaxis(fnp.swapaxes(x, 0, split + 1), split + 1, concat + 1)  # [to, ..., from at concat]
    if not tiled:
        return received
    shape = received.shape
    return fnp.reshape(received, (*shape[:concat + 1], n * shape[concat + 2], *shape[concat + 3:]))


all_to_all_p = declare("all_to_all", _all_to_all_rule, _unbound("all_to_all"))
# all_to_all's transpose sends each chunk back: split and concat axes exchanged.
vjp_rules.register(all_to_all_p, lambda g, ans, x, *, axis_names, split, concat, tiled, size: (
    bind(all_to_all_p, g, axis_names=axis_names, split=concat, concat=split, tiled=tiled, size=size),))
jvp_rules.register(all_to_all_p, linear_jvp(all_to_all_p))
batch_rules.register(all_to_all_p, _all_to_all_batch)
_never_lowered(all_to_all_p)


# ---------------------------------------------------------------------------
# ppermute: operand x; example dst gets example src's x for each (src, dst) of `perm`, zeros where
# no pair sends to it.
# ---------------------------------------------------------------------------


def _ppermute_batch(args: Sequence[Any], batched: Sequence[bool], *, axis_names: tuple[Hashable, ...],
                    perm: tuple[tuple[int, int], ...]) -> Any:
    name, n = replayed_axis()
    (x,), (b,) = args, batched
    if name not in axis_names:
        return bind(ppermute_p, x, axis_names=axis_names, perm=perm)
    x = x if b else with_batch(x, False, n)
    sources = np.zeros(n, np.int32)
    received = np.zeros(n, bool)
    for src, dst in perm:
        sources[dst], received[dst] = src, True
    moved = fnp.take(x, sources, axis=0)
    if received.all():
        return moved
    mask = fnp.reshape(received, (n, *[1] * (len(x.shape) - 1)))
    return fnp.where(mask, moved, fnp.zeros((), x.dtype))


ppermute_p = declare("ppermute", lambda x, *, axis_names, perm: x, _unbound("ppermute"))
# ppermute's transpose sends each cotangent back: the pairs reversed.
vjp_rules.register(ppermute_p, lambda g, ans, x, *, axis_names, perm: (
    bind(ppermute_p, g, axis_names=axis_names, perm=tuple((dst, src) for src, dst in perm)),))
jvp_rules.register(ppermute_p, linear_jvp(ppermute_p))
batch_rules.register(ppermute_p, _ppermute_batch)
_never_lowered(ppermute_p)


# ---------------------------------------------------------------------------
# axis_index: no operands; the example's index along the named axis, an i32.
# ---------------------------------------------------------------------------


def _axis_index_batch(args: Sequence[Any], batched: Sequence[bool], *, axis_names: tuple[Hashable, ...]) -> Any:
    return fnp.arange(replayed_axis()[1], dtype=DType.i32)


axis_index_p = declare("axis_index", lambda *, axis_names: Spec((), DType.i32), _unbound("axis_index"))
vjp_rules.register(axis_index_p, nondiff)
jvp_rules.register(axis_index_p, nondiff_jvp)
batch_rules.register(axis_index_p, _axis_index_batch)
_never_lowered(axis_index_p)
