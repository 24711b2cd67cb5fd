"""Callbacks: Python functions a traced program calls on the host.

`pure_callback` calls a pure function of arrays for arrays of declared shapes and dtypes, as
`jax.pure_callback`; `debug_callback` calls one for its effect (printing), as
`jax.debug.callback` does; `io_callback` does both, as `jax.experimental.io_callback`. Eagerly each is a plain call. In a compiled program a callback keeps
its place among the kernels (lowering kind `Host`): the runtime reads its operands back once
the kernels before it are done, calls it, and writes its results into their buffers before the
kernels after it run (fgrad/runtime.py, `Executable.call_host`). That costs a round trip
each time, as in JAX on an accelerator. Callbacks inside loops are called every iteration.

A debug callback is effectful (fgrad/ir.py, `has_effects`): it stays in the graph though
nothing reads its result (a token), two are never merged, and so do the loops and calls
holding one in their bodies. Under `vmap` it is called once per element of the batch; under
differentiation it sees the primal values. A pure callback has no derivative: differentiating
through one is an error, as in JAX (wrap it in `custom_jvp` or `custom_vjp`).

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError, MissingRule, ShapeError, TraceError
from fgrad.ir import DType, Spec, declare
from fgrad.lower.kinds import HOST, register_lowering
from fgrad.pytree import TreeDef, flatten, unflatten
from fgrad.trace import bind, user_site
from fgrad.transforms.autodiff import nondiff, vjp_rules
from fgrad.transforms.batching import batch_rules, batch_size, sequentially, with_batch
from fgrad.transforms.forward import jvp_rules, nondiff_jvp

__all__ = ["debug_callback_p", "io_callback_p", "pure_callback_p"]  # re-exported by fgrad.primitives

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized")


class Callback:
    """A user's function as a node's param: called on the flat leaves of its arguments, it
    puts back `in_tree`, the structure of `(args, kwargs)`, with the leaves that are not arrays
    (`static`, by position: strings, options) in their places. Equal for the same function
    on arguments of the same structure, so two traces of one program give equal graphs."""

    def __init__(self, fn: Callable[..., Any], in_tree: TreeDef, static: Sequence[tuple[int, Any]] = (),
                 out_tree: TreeDef | None = None):
        self.fn, self.in_tree, self.static, self.out_tree = fn, in_tree, tuple(static), out_tree
        self._key = (fn, in_tree, tuple((k, _hashable(v)) for k, v in self.static), out_tree)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Callback) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return getattr(self.fn, "__qualname__", None) or repr(self.fn)

    def __call__(self, *leaves: np.ndarray) -> Any:
        values, dynamic = [], iter(leaves)
        static = dict(self.static)
        for k in range(len(self.static) + len(leaves)):
            values.append(static[k] if k in static else next(dynamic))
        args, kwargs = unflatten(self.in_tree, values)
        return self.fn(*args, **kwargs)


def _hashable(value: Any) -> Hashable:
    """`value` where it hashes, else its identity: a static argument compares as itself."""
    try:
        hash(value)
        return value
    except TypeError:
        return ("id", id(value))


def split_arguments(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                    out_tree: TreeDef | None = None) -> tuple[Callback, list[Any]]:
    """The Callback calling `fn` on `(args, kwargs)`, and its array leaves (Tensors, arrays,
    numbers) in order: the operands to bind it to."""
    from fgrad.trace import Tensor

    leaves, tree = flatten((args, kwargs))
    static, dynamic = [], []
    for k, leaf in enumerate(leaves):
        if isinstance(leaf, (Tensor, np.ndarray, np.generic, bool, int, float)) or hasattr(leaf, "__array__"):
            dynamic.append(leaf)
        else:
            static.append((k, leaf))
    return Callback(fn, tree, static, out_tree), dynamic


def _canonical(value: Any) -> np.ndarray:
    """A callback's result as fgrad holds it: 64-bit values in 32 bits (as JAX without x64)."""
    value = np.asarray(value)
    wide = {"f": np.float32, "i": np.int32, "u": np.uint32}
    return value.astype(wide[value.dtype.kind]) if value.dtype.itemsize == 8 and value.dtype.kind in wide else value


# ---------------------------------------------------------------------------
# pure_callback: operands (the array leaves of the arguments); results of the specs `results`.
# ---------------------------------------------------------------------------


def _declared(*operands: Spec, callback: Callback, results: tuple[Spec, ...], **params: Any) -> tuple[Spec, ...]:
    """A callback's abstract evaluation: the results its caller declared."""
    return results


def _calling(who: str) -> Callable[..., tuple[np.ndarray, ...]]:
    """A callback's NumPy implementation: its results, checked against the declared `results`
    (structure, shapes, dtypes)."""
    return lambda *operands, callback, results, **params: _called(who, callback, operands, results)


def _called(who: str, callback: Callback, operands: Sequence[np.ndarray], results: tuple[Spec, ...]
            ) -> tuple[np.ndarray, ...]:
    leaves, tree = flatten(callback(*operands))
    if tree != callback.out_tree:
        raise ShapeError(f"{who}: {callback!r} returned the structure {tree}, where result_shape_dtypes "
                         f"declare {callback.out_tree}")
    found = []
    for k, (leaf, spec) in enumerate(zip(leaves, results)):
        value = _canonical(leaf)
        if value.shape != spec.shape:
            raise ShapeError(f"{who}: {callback!r} returned result {k} of shape {value.shape}, where "
                             f"result_shape_dtypes declare {spec}")
        if value.dtype != spec.dtype.np:
            raise DTypeError(f"{who}: {callback!r} returned result {k} of dtype {value.dtype}, where "
                             f"result_shape_dtypes declare {spec}")
        found.append(value)
    return tuple(found)


def _no_derivative(who: str) -> Callable[..., None]:
    """The vjp and jvp rules of a callback: an error, as JAX's."""
    def rule(*args: Any, **params: Any) -> None:
        raise TraceError(f"{who}: a callback has no derivative; to differentiate through one, give it a rule with "
                         "fg.custom_vjp or fg.custom_jvp", user_site())

    return rule


def _pure_batch(args: Sequence[Any], batched: Sequence[bool], *, callback: Callback, results: tuple[Spec, ...],
                vmap_method: str | None) -> tuple[Any, ...]:
    """As JAX's: `sequential` maps the callback over the batch in a loop (`sequential_unrolled`:
    unrolled), `expand_dims` calls it once with the unbatched operands given a leading axis of
    1, `broadcast_all` with them broadcast to the batch, `legacy_vectorized` with them as they
    are; the callback then returns the batch of results."""
    size = batch_size(args, batched)
    batched_results = tuple(Spec((size, *r.shape), r.dtype) for r in results)
    if vmap_method is None:
        raise MissingRule("pure_callback: vmap needs the callback's vmap_method: one of 'sequential', "
                          "'sequential_unrolled', 'expand_dims', 'broadcast_all' or 'legacy_vectorized'", user_site())
    if vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        if vmap_method == "expand_dims":
            args = [x if b else fnp.expand_dims(x, 0) for x, b in zip(args, batched)]
        elif vmap_method == "broadcast_all":
            args = [with_batch(x, b, size) for x, b in zip(args, batched)]
        return bind(pure_callback_p, *args, callback=callback, results=batched_results, vmap_method=vmap_method)

    if vmap_method == "sequential_unrolled":
        return _each_example(pure_callback_p, args, batched, callback=callback, results=results,
                             vmap_method=vmap_method)

    def one(*operands: Any) -> tuple[Any, ...]:
        return bind(pure_callback_p, *map(fnp.asarray, operands), callback=callback, results=results,
                    vmap_method=vmap_method)

    return tuple(sequentially(one, args, batched))


def _each_example(primitive: Any, args: Sequence[Any], batched: Sequence[bool], *, results: tuple[Spec, ...],
                  **params: Any) -> tuple[Any, ...]:
    """A callback with results bound once per example of the batch, in order, its results stacked."""
    size = batch_size(args, batched)
    outs = [bind(primitive, *(fnp.asarray(x[i] if b else x) for x, b in zip(args, batched)), results=results, **params)
            for i in range(size)]
    return tuple(fnp.stack([o[k] for o in outs]) if outs else fnp.zeros((0, *r.shape), r.dtype)
                 for k, r in enumerate(results))


pure_callback_p = declare("pure_callback", _declared, _calling("pure_callback"), multiple_results=True, host=True)
vjp_rules.register(pure_callback_p, _no_derivative("pure_callback"))
jvp_rules.register(pure_callback_p, _no_derivative("pure_callback"))
batch_rules.register(pure_callback_p, _pure_batch)
register_lowering(pure_callback_p, HOST, None)


# ---------------------------------------------------------------------------
# io_callback: as pure_callback, but called for its effect too (reading or writing the world): never
# dropped nor merged, called in order; `ordered` ones cannot be vmapped, as JAX's.
# ---------------------------------------------------------------------------


def _io_batch(args: Sequence[Any], batched: Sequence[bool], *, callback: Callback, results: tuple[Spec, ...],
              ordered: bool) -> tuple[Any, ...]:
    """Called once per element of the batch, in order (JAX's `sequential`); not where `ordered`."""
    if ordered:
        raise TraceError("io_callback: an ordered callback cannot be vmapped, as in JAX", user_site())
    return _each_example(io_callback_p, args, batched, callback=callback, results=results, ordered=ordered)


io_callback_p = declare("io_callback", _declared, _calling("io_callback"), multiple_results=True, host=True,
                        effectful=True)
vjp_rules.register(io_callback_p, _no_derivative("io_callback"))
jvp_rules.register(io_callback_p, _no_derivative("io_callback"))
batch_rules.register(io_callback_p, _io_batch)
register_lowering(io_callback_p, HOST, None)


# ---------------------------------------------------------------------------
# debug_callback: operands (the array leaves of the arguments); one result, a bool token of
# shape () that nothing reads: the node's effect is the call.
# ---------------------------------------------------------------------------

TOKEN = Spec((), DType.bool)


def _debug_rule(*operands: Spec, callback: Callback) -> Spec:
    return TOKEN


def _debug_impl(*operands: np.ndarray, callback: Callback) -> np.ndarray:
    callback(*operands)
    return np.zeros((), np.bool_)


def _debug_batch(args: Sequence[Any], batched: Sequence[bool], *, callback: Callback) -> Any:
    """Called once per element of the batch, in order, as JAX's."""
    size = batch_size(args, batched)
    for i in range(size):
        bind(debug_callback_p, *(x[i] if b else x for x, b in zip(args, batched)), callback=callback)
    return fnp.zeros((size,), dtype=bool)


debug_callback_p = declare("debug_callback", _debug_rule, _debug_impl, host=True, effectful=True)
vjp_rules.register(debug_callback_p, nondiff)
jvp_rules.register(debug_callback_p, nondiff_jvp)
batch_rules.register(debug_callback_p, _debug_batch)
register_lowering(debug_callback_p, HOST, None)
