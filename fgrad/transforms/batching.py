"""Batching: vmap.

`vmap(f)` traces `f` on one example's shapes, then replays the graph on the
batched arguments, binding for each node its primitive's rule in
`batch_rules`:

    rule(args, batched, **params) -> the result, batched along axis 0

`args` are the node's inputs, `batched` says which of them carry the batch
axis (always axis 0: arguments are moved there on the way in, results moved to
`out_axes` on the way out); a rule is called only when some input is batched.
A multiple-results primitive's rule returns a tuple of results, each batched.
A node whose inputs are all unbatched is bound as it is, so what does not
depend on the mapped arguments is computed once. The rules are written with
fgrad's functions: the batched program is a graph like any other, so
`vmap(grad(loss))` lowers to the batched products a hand-written batch would
(no per-example loop). Generic rules serve families: `elementwise_batching`
(every elementwise primitive) and `axis_batching` (primitives of one operand
whose params are axes, moved past the batch axis).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: arguments are moved to the batch axis with the public functions, read at call time
from fgrad.errors import AxisNameError, InputError, ShapeError, TraceError
from fgrad.ir import PRIMITIVES, RESULT, Graph, Primitive, RuleTable, Spec, call_of, call_params, input_p
from fgrad.pytree import broadcast_prefix, flatten, leaf_paths, unflatten
from fgrad.trace import (
    FLOAT0, Tensor, bind, constant, is_float0, python_number, sites_from, spec_of, trace_function, user_site,
    with_fixed,
)

# primitive -> batch(args, batched, **params) -> the result with the batch along axis 0.
batch_rules = RuleTable("batching", "batching rule")

# The axes of the vmaps being traced or replayed, innermost last: (name or None, size) each. A
# collective over a named axis (fg.lax.psum) is bound only inside a vmap of that name, and its
# node, which names the axis in its param `axis_names`, is rebound by its batching rule when that vmap
# replays it, even where no operand is batched (`axis_index`).
_frames = threading.local()


def axis_frames() -> list[tuple[str | None, int]]:
    return _frames.__dict__.setdefault("stack", [])


@contextlib.contextmanager
def named_axis(name: Hashable | None, size: int) -> Iterator[None]:
    """Within the block, the axis `name` (None: unnamed) of `size` is bound, innermost, as a vmap binds its own."""
    stack = axis_frames()
    stack.append((name, size))
    try:
        yield
    finally:
        stack.pop()


def named_axis_size(name: Any, who: str, site: str | None) -> int:
    """The size of the innermost vmap axis called `name`; an AxisNameError where none is."""
    for bound, size in reversed(axis_frames()):
        if bound is not None and bound == name:
            return size
    raise AxisNameError(f"{who}: unbound axis name {name!r}: no enclosing fg.vmap(..., axis_name={name!r})", site)


def replayed_axis() -> tuple[str | None, int]:
    """The axis of the vmap whose replay is binding batching rules now: (name or None, size)."""
    return axis_frames()[-1]


def batch_size(args: Sequence[Any], batched: Sequence[bool]) -> int:
    """The batch size: the leading axis of a batched operand."""
    return next(spec_of(x).shape[0] for x, b in zip(args, batched) if b)


def with_batch(x: Any, batched: bool, size: int) -> Any:
    """`x` batched along axis 0: as it is, or broadcast to `size` copies (a view, no copy in a kernel)."""
    if batched:
        return x
    return bind(PRIMITIVES["broadcast_to"], x, shape=(size, *spec_of(x).shape))


def sequentially(fn: Callable[..., Any], leaves: Sequence[Any], batched: Sequence[bool]) -> Any:
    """fn(*leaves) once per example, in a loop (a scan): the `batched` leaves sliced along their
    leading axis, the others passed whole; the results stacked. What batches a function that
    cannot take a batch axis (a callback, a custom_vmap's sequential rule)."""
    from fgrad.transforms.control_flow import scan  # NOTE: control flow is built on batching

    def one(sliced: Sequence[Any]) -> Any:
        it = iter(sliced)
        return fn(*(next(it) if b else x for x, b in zip(leaves, batched)))

    return scan(lambda carry, xs: (carry, one(xs)), (), [x for x, b in zip(leaves, batched) if b])[1]


def no_operands(args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
    """The rule of a primitive without operands (input, constant, iota): nothing of it is ever
    batched, so the replay binds it as it is and never calls this."""
    raise AssertionError("a primitive without operands has nothing to batch")


def elementwise_batching(primitive: Primitive) -> Callable[..., Any]:
    """The rule of an elementwise primitive: operands of one shape, so the unbatched ones are
    broadcast along the batch axis."""

    def rule(args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
        size = batch_size(args, batched)
        return bind(primitive, *(with_batch(x, b, size) for x, b in zip(args, batched)), **params)

    return rule


def shift_axes(value: Any) -> Any:
    """An axis param (an int, or a tuple of them) for the operand with the batch axis in front.
    Negative axes count from the end, which the batch axis does not move."""
    if isinstance(value, tuple):
        return tuple(shift_axes(a) for a in value)
    return value + 1 if value >= 0 else value


def axis_batching(primitive: Primitive, *names: str) -> Callable[..., Any]:
    """The rule of a primitive of one operand whose params `names` are axes of it (reductions,
    scans, sorts): the same primitive with the axes moved past the batch axis."""

    def rule(args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
        moved = {k: shift_axes(v) if k in names else v for k, v in params.items()}
        return bind(primitive, *args, **moved)

    return rule


# ---------------------------------------------------------------------------
# The batched replay
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Unmapped:
    """What a batching rule returns for a result the same in every example (a psum over the axis
    replayed): the value without the batch axis, so an `out_axes=None` output may be it, as in JAX."""

    value: Any


def batch_replay(graph: Graph, leaves: Sequence[Any], batched: Sequence[bool]) -> tuple[list[Any], list[bool]]:
    """Bind `graph` again on the input `leaves`, the `batched` ones carrying a batch axis in front.

    Returns the value of every node, and whether it carries the batch axis.
    """
    env: list[Any] = [None] * len(graph.nodes)
    flags = [False] * len(graph.nodes)
    replaying = replayed_axis()[0] if axis_frames() else None
    for i, x, b in zip(graph.inputs, leaves, batched):
        env[i] = x if isinstance(x, Tensor) else constant(x, graph.nodes[i].spec.dtype)
        flags[i] = b
    calls: dict[tuple, tuple[Any, bool]] = {}
    for i, node in enumerate(graph.nodes):
        if node.op == input_p.name:
            continue
        primitive = PRIMITIVES[node.op]
        xs, bs = [env[j] for j in node.inputs], [flags[j] for j in node.inputs]
        params = call_params(node)
        # A collective over the axis replayed: its rule computes it, batched operands or not (see axis_frames).
        named = replaying is not None and replaying in params.get("axis_names", ())
        with sites_from(node.site):
            if primitive.multiple_results:
                key = call_of(node)
                if key not in calls:
                    calls[key] = (batch_rules[node.op](xs, bs, **params), True) if any(bs) else \
                        (bind(primitive, *xs, **params), False)
                outs, b = calls[key]
                env[i], flags[i] = outs[node.attrs[RESULT]], b
            elif any(bs) or named:
                out = batch_rules[node.op](xs, bs, **params)
                env[i], flags[i] = (out.value, False) if isinstance(out, Unmapped) else (out, True)
            else:
                env[i] = bind(primitive, *xs, **params)
        if flags[i]:
            got, want = spec_of(env[i]), node.spec
            assert got.dtype is want.dtype and got.shape[1:] == want.shape, \
                f"{node.op}: batching gave {got} for {want}"
    return env, flags


# ---------------------------------------------------------------------------
# vmap
# ---------------------------------------------------------------------------


def _axes_type_ok(value: Any) -> bool:
    return all(a is None or type(a) is int for a in flatten(value)[0]) if value is not None else True


def vmap(fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0, axis_name: Hashable | None = None,
         axis_size: int | None = None, spmd_axis_name: Any = None, sum_match: bool = False) -> Callable[..., Any]:
    """Vectorize `fun` over an axis of its arguments, as `jax.vmap`.

    Args:
        fun: the function of one example.
        in_axes: an int, None, or a tuple with one entry per positional argument, each a pytree
            prefix of that argument of ints and Nones: the axis each leaf is mapped over (None: not
            mapped, every example sees the same value). Keyword arguments are mapped over axis 0.
        out_axes: as `in_axes`, for the result (None: an output that does not depend on a mapped
            argument, returned once). Float0 zeros (`grad`'s with `allow_int`) take the axis too.
        axis_name: a name for the mapped axis, over which `fun` may combine its examples with
            `fg.lax.psum`, `pmean`, `pmax`, `pmin`, `all_gather` and `axis_index`, as JAX's.
        axis_size: the batch size, needed only when no argument is mapped.
        spmd_axis_name: accepted for JAX's signature: fgrad has one device to map over.
        sum_match: as JAX's: an output that depends on a mapped argument but whose out_axes is
            None is summed over the mapped axis (an error without it).
    Returns:
        The batched function. It nests in every transform (`vmap(grad(loss))` gives per-example
        gradients as one batched program) and in itself.
    """
    site = user_site()
    if not callable(fun):
        raise TraceError(f"vmap: expected a function, got a {type(fun).__name__}", site)
    if not _axes_type_ok(in_axes):
        raise InputError(f"vmap: in_axes must be an int, None, or a tuple of them (pytrees for pytree arguments), "
                         f"got {in_axes!r}", site)
    if isinstance(in_axes, list):  # JAX reads a list as a tuple here
        in_axes = tuple(in_axes)
    if not _axes_type_ok(out_axes):
        raise InputError(f"vmap: out_axes must be ints and Nones, got {out_axes!r}", site)
    if axis_size is not None and (type(axis_size) is not int or axis_size < 0):
        raise InputError(f"vmap: axis_size must be a non-negative int, got {axis_size!r}", site)
    try:
        hash(axis_name)
    except TypeError:
        raise InputError(f"vmap: axis_name must be hashable (a str), got {axis_name!r}", site) from None
    if not isinstance(sum_match, (bool, np.bool_)):
        raise InputError(f"vmap: sum_match must be a bool, got {sum_match!r}", site)

    @functools.wraps(fun)
    def batched_fun(*args: Any, **kwargs: Any) -> Any:
        call_site = user_site()
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise InputError(f"vmap: in_axes has {len(in_axes)} entries for a call of {len(args)} positional "
                             f"arguments; give one per argument, or an int for all", call_site)
        all_args = (*args, kwargs) if kwargs else args
        prefix = (*(in_axes if isinstance(in_axes, tuple) else [in_axes] * len(args)), *([0] if kwargs else []))
        leaves, tree = flatten(all_args)
        try:
            axes = broadcast_prefix(tuple(prefix), tree, "vmap: in_axes")
        except ValueError as e:
            raise InputError(str(e), call_site) from None
        paths = leaf_paths(tree, prefix="args")
        moved, flags, sizes = [], [], {}
        for path, x, axis in zip(paths, leaves, axes):
            if axis is None:
                moved.append(x)
                flags.append(False)
                continue
            spec = spec_of(x, path)
            if not -spec.ndim <= axis < spec.ndim:
                raise ShapeError(f"vmap: in_axes {axis} for {path} of shape {spec.shape}, which has "
                                 f"{spec.ndim} axes", call_site)
            size = spec.shape[axis]
            sizes.setdefault(size, path)
            moved.append(fnp.moveaxis(x, axis, 0) if axis % spec.ndim else x)
            flags.append(True)
        if len(sizes) > 1:
            shown = ", ".join(f"{p} has {n}" for n, p in sizes.items())
            raise ShapeError(f"vmap: the mapped axes have different sizes: {shown}", call_site)
        size = next(iter(sizes), None)
        if size is None:
            if axis_size is None:
                raise InputError("vmap: no argument is mapped (every in_axes is None): give axis_size", call_site)
            size = axis_size
        elif axis_size is not None and axis_size != size:
            raise ShapeError(f"vmap: axis_size={axis_size} but the mapped axes have size {size}", call_site)
        # As JAX's, an unmapped Python number reaches `fun` as it is (a static count, a flag), not traced.
        static = {k: x for k, (x, b) in enumerate(zip(moved, flags)) if not b and python_number(x)}
        traced = [k for k in range(len(moved)) if k not in static]

        def call(*leaves: Any) -> Any:
            called = unflatten(tree, list(leaves))
            return fun(*called[:-1], **called[-1]) if kwargs else fun(*called)

        fn = with_fixed(call, static, len(moved))
        example = [Spec(spec_of(moved[k]).shape[1:], spec_of(moved[k]).dtype) if flags[k] else moved[k] for k in traced]
        with named_axis(axis_name, size):
            graph, closed_over = trace_function(fn, tuple(example), closures=True)
            env, out_flags = batch_replay(graph, [*(moved[k] for k in traced), *closed_over],
                                          [*(flags[k] for k in traced), *(False for _ in closed_over)])
        try:
            out_axes_leaves = broadcast_prefix(out_axes, graph.out_tree, "vmap: out_axes")
        except ValueError as e:
            raise InputError(str(e), call_site) from None
        outs = []
        for path, i, axis in zip(leaf_paths(graph.out_tree, prefix="output"), graph.outputs, out_axes_leaves):
            x, b = env[i], out_flags[i]
            if axis is None:
                if b and not sum_match:
                    raise InputError(f"vmap: out_axes is None for {path}, which depends on a mapped argument "
                                     "(sum_match=True sums it over the mapped axis)", call_site)
                outs.append(fnp.sum(x, axis=0) if b else x)
                continue
            x = with_batch(x, b, size)
            ndim = spec_of(x).ndim
            if not -ndim <= axis < ndim:
                raise ShapeError(f"vmap: out_axes {axis} for {path} of {ndim} axes with the batch", call_site)
            outs.append(fnp.moveaxis(x, 0, axis) if axis % ndim else x)
        return _float0_batched(unflatten(graph.out_tree, outs), out_axes, size)

    return batched_fun


def _float0_batched(out: Any, out_axes: Any, size: int) -> Any:
    """`out` with each float0 array (no node of the graph: see fgrad.trace.Float0Zeros) given the
    mapped axis at its out_axes, as JAX's vmap gives it."""
    leaves, tree = flatten(out)
    if not any(is_float0(x) for x in leaves):
        return out
    axes = broadcast_prefix(out_axes, tree, "vmap: out_axes")

    def batched(x: Any, axis: int | None) -> Any:
        if not is_float0(x) or axis is None:
            return x
        shape = list(x.shape)
        shape.insert(axis % (x.ndim + 1), size)
        return np.zeros(tuple(shape), FLOAT0)

    return unflatten(tree, [batched(x, a) for x, a in zip(leaves, axes)])
