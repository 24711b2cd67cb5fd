"""Primitives that move elements: reshape, transpose, broadcast_to, slice, pad, concatenate, rev;
and dim_size, the value of a symbolic dimension.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import builtins
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import ShapeError
from fgrad.ir import Dim, DType, Node, Spec, declare
from fgrad.lower.kinds import VIEW, Layout, View, register_lowering
from fgrad.lower.rewrites import rewrite_rules, split_wide_concatenate
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import nondiff, vjp_rules
from fgrad.transforms.batching import axis_batching, batch_rules, batch_size, no_operands, with_batch
from fgrad.transforms.forward import jvp_rules, linear_jvp, nondiff_jvp
from fgrad.transforms.passes import simplify_rules, uniform_through

from fgrad.primitives.abstract_eval import check_axes, check_dtypes, check_reshape, same_last_axis, squeezed

__all__ = [  # re-exported by fgrad.primitives
    "broadcast_to_p", "concatenate_p", "dim_size_p", "pad_p", "reshape_p", "rev_p", "slice_p", "transpose_p",
]


# reshape: same elements in row-major order, new shape; reshape of a reshape is one reshape.
def _reshape_rule(x: Spec, *, shape: tuple[int | Dim, ...]) -> Spec:
    check_reshape(x.shape, shape)
    return Spec(shape, x.dtype)


def _reshape_simplify(node: Node, nodes: Sequence[Node]) -> int | Node | None:
    x = nodes[node.inputs[0]]
    if x.spec == node.spec:
        return node.inputs[0]
    if x.op == "reshape":
        return Node("reshape", x.inputs, node.params, node.spec, node.site)
    return None


def _reshape_layout(node: Node, x: Spec, at: Layout) -> Layout | None:
    """The old axes' factors in a row (adjacent ones that are contiguous joined), taken from the
    last by the new axes, each as many as its size needs: a factor is split where the size left
    divides it, and strides do not express the view where it neither divides nor is divided."""
    if node.spec.size == 0:
        return None
    factors: list[tuple[int, int]] = []
    for size, stride in (f for axis in at.axes for f in axis if f[0] != 1):
        if factors and factors[-1][1] == size * stride:
            factors[-1] = (factors[-1][0] * size, stride)
        else:
            factors.append((size, stride))
    axes = []
    for n in reversed(node.spec.shape):
        taken = []
        while n > 1:
            size, stride = factors.pop()
            if n % size == 0:
                taken.append((size, stride))
                n //= size
            elif size % n == 0:
                taken.append((n, stride))
                factors.append((size // n, stride * n))
                n = 1
            else:
                return None
        axes.append(tuple(reversed(taken)))
    return Layout(tuple(reversed(axes)), at.offset)


reshape_p = declare("reshape", _reshape_rule, lambda x, *, shape: np.reshape(x, shape))
vjp_rules.register(reshape_p, lambda g, ans, x, *, shape: (fnp.reshape(g, x.shape),))
jvp_rules.register(reshape_p, linear_jvp(reshape_p))
batch_rules.register(reshape_p, lambda args, batched, *, shape: bind(reshape_p, args[0],
                                                                    shape=(args[0].shape[0], *shape)))
simplify_rules.register(reshape_p, _reshape_simplify)
uniform_through.add(reshape_p.name)
register_lowering(reshape_p, View(last_axis=same_last_axis, keeps_rows=lambda node, x, width: squeezed(node.spec.shape) == squeezed(x.shape),
                                  layout=_reshape_layout),
                  lambda w, i, c: w.operand(i, 0, w.unravel(w.ravel(c, w.spec(i).shape), w.spec(w.nodes[i].inputs[0]).shape)))


# transpose: out.shape[i] = x.shape[perm[i]]; the cotangent goes back by the
# inverse permutation; a transpose of a transpose is one (or none).
def _transpose_rule(x: Spec, *, perm: tuple[int, ...]) -> Spec:
    if sorted(perm) != list(range(x.ndim)):
        raise ShapeError(f"transpose: axes {perm} are not a permutation of 0..{x.ndim - 1} for {x.shape}")
    return Spec(tuple(x.shape[p] for p in perm), x.dtype)


def _transpose_simplify(node: Node, nodes: Sequence[Node]) -> int | Node | None:
    x, perm = nodes[node.inputs[0]], node.attrs["perm"]
    if perm == tuple(range(len(perm))):
        return node.inputs[0]
    if x.op == "transpose":
        inner = x.attrs["perm"]
        return Node("transpose", x.inputs, (("perm", tuple(inner[p] for p in perm)),), node.spec, node.site)
    return None


def _transpose_last_axis(node: Node, x: Spec) -> str:
    perm = node.attrs["perm"]
    if perm[-1] == x.ndim - 1:
        return "same"
    return "swapped" if x.ndim >= 2 and perm[-2:] == (x.ndim - 1, x.ndim - 2) else "scattered"


def _transpose_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    inner = [""] * len(coords)
    for d, p in enumerate(w.nodes[i].attrs["perm"]):
        inner[p] = coords[d]
    return w.operand(i, 0, inner)


transpose_p = declare("transpose", _transpose_rule, lambda x, *, perm: np.transpose(x, perm))
vjp_rules.register(transpose_p, lambda g, ans, x, *, perm: (fnp.transpose(g, tuple(np.argsort(perm).tolist())),))
jvp_rules.register(transpose_p, linear_jvp(transpose_p))
batch_rules.register(transpose_p, lambda args, batched, *, perm: bind(transpose_p, args[0],
                                                                      perm=(0, *(p + 1 for p in perm))))
simplify_rules.register(transpose_p, _transpose_simplify)
register_lowering(transpose_p, View(last_axis=_transpose_last_axis, layout=lambda node, x, at: Layout(
    tuple(at.axes[p] for p in node.attrs["perm"]), at.offset)), _transpose_wgsl)


# broadcast_to: NumPy broadcasting to `shape` (leading dims added, size-1 dims
# stretched); the cotangent is summed over every stretched or added dim.
def _broadcast_to_rule(x: Spec, *, shape: tuple[int, ...]) -> Spec:
    lead = len(shape) - x.ndim
    if lead < 0 or any(d not in (1, s) for d, s in zip(x.shape, shape[lead:])):
        raise ShapeError(f"broadcast_to: cannot broadcast {x.shape} to {shape}")
    return Spec(shape, x.dtype)


def _broadcast_to_vjp(g: Tensor, ans: Tensor, x: Tensor, *, shape: tuple[int, ...]) -> tuple[Tensor]:
    lead = len(shape) - x.ndim
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(x.shape) if d == 1 and shape[lead + i] != 1)
    return (fnp.reshape(fnp.sum(g, axes), x.shape),)


def _broadcast_to_batch(args: Sequence[Any], batched: Sequence[bool], *, shape: tuple[int, ...]) -> Any:
    """The batch axis stays in front: the leading axes broadcasting adds go after it, as size-1 axes."""
    (x,) = args
    lead = len(shape) - (x.ndim - 1)
    if lead:
        x = bind(reshape_p, x, shape=(x.shape[0], *(1,) * lead, *x.shape[1:]))
    return bind(broadcast_to_p, x, shape=(x.shape[0], *shape))


def _broadcast_keeps_rows(node: Node, x: Spec, width: int) -> bool:
    """Broadcasting one value per row back along the row's last axis."""
    shape = node.spec.shape
    return bool(shape) and shape[-1] == width and x.shape == (*shape[:-1], 1)


def _broadcast_to_layout(node: Node, x: Spec, at: Layout) -> Layout:
    """Added and stretched axes step nowhere."""
    shape = node.spec.shape
    lead = len(shape) - x.ndim
    return Layout(tuple(((n, 0),) for n in shape[:lead]) + tuple(
        ((m, 0),) if n == 1 != m else axis for n, m, axis in zip(x.shape, shape[lead:], at.axes)), at.offset)


def _broadcast_to_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    x = w.spec(w.nodes[i].inputs[0])
    lead = len(coords) - x.ndim
    return w.operand(i, 0, [coords[lead + d] if n != 1 else "0i" for d, n in enumerate(x.shape)])


broadcast_to_p = declare("broadcast_to", _broadcast_to_rule, lambda x, *, shape: np.broadcast_to(x, shape))
vjp_rules.register(broadcast_to_p, _broadcast_to_vjp)
jvp_rules.register(broadcast_to_p, linear_jvp(broadcast_to_p))
batch_rules.register(broadcast_to_p, _broadcast_to_batch)
simplify_rules.register(broadcast_to_p, lambda node, nodes: node.inputs[0] if nodes[node.inputs[0]].spec == node.spec else None)
register_lowering(broadcast_to_p, View(last_axis=same_last_axis, keeps_rows=_broadcast_keeps_rows,
                                       layout=_broadcast_to_layout, broadcasts=True), _broadcast_to_wgsl)
uniform_through.add(broadcast_to_p.name)


# slice: x[start:stop:step] on every axis; steps >= 1 (an empty result where start = stop).
# Its VJP pads the cotangent back: low = start, interior = step - 1.
def _slice_rule(x: Spec, *, starts: tuple[int, ...], stops: tuple[int | Dim, ...], steps: tuple[int, ...]) -> Spec:
    if not len(starts) == len(stops) == len(steps) == x.ndim:
        raise ShapeError(f"slice: {len(starts)} starts for {x.shape}")
    out = []
    for n, a, b, s in zip(x.shape, starts, stops, steps):
        if isinstance(n, Dim) or isinstance(b, Dim):  # a symbolic axis is kept whole
            if (a, b, s) != (0, n, 1):
                raise ShapeError(f"slice: [{a}:{b}:{s}] of the symbolic axis {n} in {x.shape}: a symbolic axis is "
                                 "sliced only whole; pick entries of it with fg.take (traced indices)")
            out.append(n)
            continue
        if not (s >= 1 and 0 <= a <= b <= n):
            raise ShapeError(f"slice: [{a}:{b}:{s}] is not a forward slice of a dimension of size {n} in {x.shape}")
        out.append(len(range(a, b, s)))
    return Spec(tuple(out), x.dtype)


def _slice_impl(x: np.ndarray, *, starts: tuple[int, ...], stops: tuple[int, ...], steps: tuple[int, ...]) -> np.ndarray:
    return x[tuple(builtins.slice(a, b, s) for a, b, s in zip(starts, stops, steps))]


def _slice_vjp(g: Tensor, ans: Tensor, x: Tensor, *, starts, stops, steps) -> tuple[Tensor]:
    widths = tuple((0, 0, 0) if isinstance(n, Dim) else (a, n - 1 - (a + (m - 1) * s), s - 1) if m else (a, n - a, 0)
                   for n, m, a, s in zip(x.shape, g.shape, starts, steps))
    return (bind(pad_p, g, widths=widths, value=0.0),)


def _slice_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    attrs = w.nodes[i].attrs
    inner = []
    for c, a, s in zip(coords, attrs["starts"], attrs["steps"]):
        scaled = c if s == 1 else f"{c} * {s}i"
        inner.append(c if (a, s) == (0, 1) else w.let(f"{a}i + {scaled}" if a else scaled))
    return w.operand(i, 0, inner)


def _slice_layout(node: Node, x: Spec, at: Layout) -> Layout | None:
    """An axis of one factor starts further in and steps further; one of several is kept whole."""
    axes, offset = [], at.offset
    for n, axis, a, b, step in zip(x.shape, at.axes, *(node.attrs[k] for k in ("starts", "stops", "steps"))):
        if (a, b, step) == (0, n, 1):
            axes.append(axis)
        elif len(axis) == 1:
            axes.append(((len(range(a, b, step)), axis[0][1] * step),))
            offset += a * axis[0][1]
        else:
            return None
    return Layout(tuple(axes), offset)


slice_p = declare("slice", _slice_rule, _slice_impl)
vjp_rules.register(slice_p, _slice_vjp)
jvp_rules.register(slice_p, linear_jvp(slice_p))
batch_rules.register(slice_p, lambda args, batched, *, starts, stops, steps: bind(
    slice_p, args[0], starts=(0, *starts), stops=(args[0].shape[0], *stops), steps=(1, *steps)))
register_lowering(slice_p, View(last_axis=same_last_axis, layout=_slice_layout), _slice_wgsl)


# pad: constant padding by (low, high, interior) >= 0 on every axis; `interior`
# values go between neighbours, so pad undoes a strided slice. Its VJP slices
# the cotangent back out.
def _pad_rule(x: Spec, *, widths: tuple[tuple[int, int, int], ...], value: Hashable) -> Spec:
    if len(widths) != x.ndim or any(len(w) != 3 or builtins.min(w) < 0 for w in widths):
        raise ShapeError(f"pad: widths {widths} must be one non-negative (low, high, interior) triple per axis of {x.shape}")
    symbolic = next((n for n, w in zip(x.shape, widths) if isinstance(n, Dim) and any(w)), None)
    if symbolic is not None:
        raise ShapeError(f"pad: widths {widths} pad the symbolic axis {symbolic} of {x.shape}; a symbolic axis is not "
                         "padded")
    return Spec(tuple(n if not any(w) else lo + n + builtins.max(n - 1, 0) * mid + hi
                      for n, w, (lo, hi, mid) in zip(x.shape, widths, widths)), x.dtype)


def _padded_region(shape: tuple[int | Dim, ...], widths: tuple[tuple[int, int, int], ...]) -> dict[str, tuple[int | Dim, ...]]:
    """Slice params picking the original elements out of a padded array."""
    return dict(starts=tuple(lo for lo, _, _ in widths),
                stops=tuple(n if not any(w) else lo + (n - 1) * (mid + 1) + 1 if n else lo
                            for n, w, (lo, _, mid) in zip(shape, widths, widths)),
                steps=tuple(mid + 1 for _, _, mid in widths))


def _pad_impl(x: np.ndarray, *, widths: tuple[tuple[int, int, int], ...], value: Hashable) -> np.ndarray:
    out = np.full(_pad_rule(Spec(x.shape, DType.of(x.dtype)), widths=widths, value=value).shape, value, x.dtype)
    region = _padded_region(x.shape, widths)
    out[tuple(builtins.slice(*k) for k in zip(region["starts"], region["stops"], region["steps"]))] = x
    return out


def _pad_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The fill value unless the coordinates land on an original element (loads stay in range)."""
    node = w.nodes[i]
    shape, inside, inner = w.spec(node.inputs[0]).shape, [], []
    for c, n, (lo, hi, mid) in zip(coords, shape, node.attrs["widths"]):
        if lo == hi == mid == 0:
            inner.append(c)
            continue
        t = w.let(f"{c} - {lo}i") if lo else c
        q = w.let(f"{t} / {mid + 1}i") if mid else t
        inside += [f"{t} >= 0i", f"{q} < {n}i"] + ([f"{t} % {mid + 1}i == 0i"] if mid else [])
        inner.append(w.clamped(q, n))
    v = w.operand(i, 0, inner)
    return f"select({w.literal(node.attrs['value'], node.spec.dtype)}, {v}, {' && '.join(inside)})"


pad_p = declare("pad", _pad_rule, _pad_impl)
vjp_rules.register(pad_p, lambda g, ans, x, *, widths, value: (bind(slice_p, g, **_padded_region(x.shape, widths)),))
# The padding is a constant: its tangent is zero, whatever the value.
jvp_rules.register(pad_p, lambda primals, tangents, ans, *, widths, value: bind(pad_p, tangents[0], widths=widths,
                                                                                 value=0.0))
batch_rules.register(pad_p, lambda args, batched, *, widths, value: bind(pad_p, args[0], widths=((0, 0, 0), *widths),
                                                                         value=value))
register_lowering(pad_p, VIEW, _pad_wgsl)


# concatenate: join operands of one rank and dtype along `axis`; the VJP slices
# each operand's part out of the cotangent.
def _concatenate_rule(*xs: Spec, axis: int) -> Spec:
    check_dtypes("concatenate", (xs[0].dtype,), *xs)
    check_axes("concatenate", xs[0], (axis,))
    rest = {x.shape[:axis] + x.shape[axis + 1:] for x in xs}
    if len({x.ndim for x in xs}) > 1 or len(rest) > 1:
        raise ShapeError(f"concatenate: shapes {', '.join(str(x.shape) for x in xs)} differ outside axis {axis}")
    symbolic = next((x.shape[axis] for x in xs if isinstance(x.shape[axis], Dim)), None)
    if symbolic is not None:
        raise ShapeError(f"concatenate: shapes {', '.join(str(x.shape) for x in xs)} along axis {axis}, which is the "
                         f"symbol {symbolic} in one: fgrad joins along axes of fixed size only")
    shape = list(xs[0].shape)
    shape[axis] = builtins.sum(x.shape[axis] for x in xs)
    return Spec(tuple(shape), xs[0].dtype)


def _concatenate_vjp(g: Tensor, ans: Tensor, *xs: Tensor, axis: int) -> tuple[Tensor, ...]:
    offsets = np.cumsum([0] + [x.shape[axis] for x in xs]).tolist()
    return tuple(
        bind(slice_p, g, starts=tuple(a if i == axis else 0 for i in range(g.ndim)),
             stops=tuple(b if i == axis else d for i, d in enumerate(g.shape)), steps=(1,) * g.ndim)
        for a, b in zip(offsets, offsets[1:]))


def _concatenate_batch(args: Sequence[Any], batched: Sequence[bool], *, axis: int) -> Any:
    size = batch_size(args, batched)
    return bind(concatenate_p, *(with_batch(x, b, size) for x, b in zip(args, batched)), axis=axis + 1)


def _concatenate_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """Each operand's value (at clamped coordinates), chosen by where the axis coordinate falls."""
    node = w.nodes[i]
    axis = node.attrs["axis"]
    c, result, start = coords[axis], None, 0
    for j in node.inputs:
        n = w.spec(j).shape[axis]
        inner = list(coords)
        inner[axis] = w.clamped(f"{c} - {start}i", n)
        v = w.value(j, inner)
        result = v if result is None else f"select({result}, {v}, {c} >= {start}i)"
        start += n
    return result


concatenate_p = declare("concatenate", _concatenate_rule, lambda *xs, axis: np.concatenate(xs, axis=axis))
vjp_rules.register(concatenate_p, _concatenate_vjp)
jvp_rules.register(concatenate_p, linear_jvp(concatenate_p))
batch_rules.register(concatenate_p, _concatenate_batch)
register_lowering(concatenate_p, VIEW, _concatenate_wgsl)
rewrite_rules.register(concatenate_p, split_wide_concatenate)


# dim_size: the value of a symbolic dimension (fg.dim) at call time, as an i32 scalar. A Dim
# used as a number binds it (`x / T`; a mean over a symbolic axis divides by it). Kernels
# read it from the program's uniform buffer of symbol values.
def _dim_size_rule(*, dim: Dim) -> Spec:
    if not isinstance(dim, Dim):
        raise ShapeError(f"dim_size: {dim!r} is not a symbol (fg.dim)")
    return Spec((), DType.i32)


dim_size_p = declare("dim_size", _dim_size_rule, lambda *, dim: np.asarray(dim, np.int32))
vjp_rules.register(dim_size_p, nondiff)
jvp_rules.register(dim_size_p, nondiff_jvp)
batch_rules.register(dim_size_p, no_operands)
register_lowering(dim_size_p, VIEW, lambda w, i, c: w.size(w.nodes[i].attrs["dim"]))


# rev: the elements along `axes` in reverse order, as jax.lax.rev (flip, negative slice
# steps): out[..., i, ...] = x[..., n - 1 - i, ...]. Its VJP reverses the cotangent back; a
# rev of a rev along the same axes is none.
def _rev_rule(x: Spec, *, axes: tuple[int, ...]) -> Spec:
    check_axes("rev", x, axes)
    return x


def _rev_simplify(node: Node, nodes: Sequence[Node]) -> int | None:
    x = nodes[node.inputs[0]]
    return x.inputs[0] if x.op == "rev" and x.attrs["axes"] == node.attrs["axes"] else None


def _rev_last_axis(node: Node, x: Spec) -> str | None:
    return None if x.ndim - 1 in node.attrs["axes"] else same_last_axis(node, x)


def _rev_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    axes, shape = w.nodes[i].attrs["axes"], w.spec(i).shape
    return w.operand(i, 0, [w.let(f"{w.last(n)} - {c}") if k in axes else c
                            for k, (c, n) in enumerate(zip(coords, shape))])


rev_p = declare("rev", _rev_rule, lambda x, *, axes: np.flip(x, axes))
vjp_rules.register(rev_p, lambda g, ans, x, *, axes: (bind(rev_p, g, axes=axes),))
jvp_rules.register(rev_p, linear_jvp(rev_p))
batch_rules.register(rev_p, axis_batching(rev_p, "axes"))
simplify_rules.register(rev_p, _rev_simplify)
register_lowering(rev_p, View(last_axis=_rev_last_axis), _rev_wgsl)
