"""Convolution primitives: conv_general_dilated (as XLA's convolution), and patches, the windows
of an array gathered into axes of their own (im2col), with its transpose.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import DType, Node, Spec, declare
from fgrad.lower.kinds import Contraction, View, register_lowering
from fgrad.lower.library import cast
from fgrad.lower.matmul import THREADS
from fgrad.lower.program import Limits
from fgrad.lower.rewrites import rewrite_rules, split_long_matmul
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import vjp_rules
from fgrad.transforms.batching import batch_rules, batch_size
from fgrad.transforms.forward import jvp_rules, linear_jvp, multilinear_jvp

from fgrad.primitives.abstract_eval import NUMERIC, check_dtypes, wide

__all__ = [  # re-exported by fgrad.primitives
    "conv_general_dilated_p", "patches_p", "patches_transpose_p",
]

Pads = tuple[tuple[int, int], ...]


def dilated(n: int, d: int) -> int:
    """The size of an axis of `n` with `d - 1` holes between neighbours (0 for none)."""
    return (n - 1) * d + 1 if n else 0


def windows(name: str, shape: Sequence[int], window: Sequence[int], strides: Sequence[int], padding: Pads,
            base_dilation: Sequence[int], window_dilation: Sequence[int]) -> tuple[int, ...]:
    """How many windows fit along each axis (XLA's window arithmetic): the axis dilated by
    `base_dilation` and padded (negative padding crops) holds windows of `window` dilated by
    `window_dilation`, one every `strides` (none where the window does not fit: an empty axis)."""
    params = dict(window=window, strides=strides, padding=padding, base_dilation=base_dilation,
                  window_dilation=window_dilation)
    if any(len(p) != len(shape) for p in params.values()):
        raise ShapeError(f"{name}: {', '.join(f'{k} {tuple(v)}' for k, v in params.items())} must each give one "
                         f"entry per axis of {tuple(shape)}")
    if any(not isinstance(n, int) for n in shape):
        raise ShapeError(f"{name}: {tuple(shape)} has a symbolic axis; fgrad slides windows over axes of fixed size")
    if min((*window, *strides, *base_dilation, *window_dilation), default=1) < 1:
        raise ShapeError(f"{name}: window sizes, strides and dilations must be positive, got "
                         f"{', '.join(f'{k} {tuple(v)}' for k, v in params.items() if k != 'padding')}")
    count = []
    for n, k, s, (lo, hi), b, d in zip(shape, window, strides, padding, base_dilation, window_dilation):
        size = dilated(n, b) + lo + hi
        if size < 0:
            raise ShapeError(f"{name}: padding {tuple(padding)} crops more than the axes {tuple(shape)} hold")
        count.append((size - dilated(k, d)) // s + 1 if size >= dilated(k, d) else 0)
    return tuple(count)


def _dilate_pad(x: np.ndarray, base_dilation: Sequence[int], padding: Pads, value: Any) -> np.ndarray:
    """x with `base_dilation - 1` holes between neighbours, padded (cropped where negative), all
    holes and padding `value`."""
    grown = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    out = np.full([dilated(n, b) + lo + hi for n, b, (lo, hi) in zip(x.shape, base_dilation, grown)], value, x.dtype)
    out[tuple(slice(lo, lo + dilated(n, b), b) for n, b, (lo, _) in zip(x.shape, base_dilation, grown))] = x
    return out[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(out.shape, padding))]


def _affine(terms: Sequence[tuple[str, int]], offset: int) -> str:
    """WGSL of sum(c * k for c, k in terms) + offset, without zero terms and unit factors."""
    parts = [(k > 0, c if abs(k) == 1 else f"{c} * {abs(k)}i") for c, k in terms if c != "0i" and k != 0]
    parts += [(offset > 0, f"{abs(offset)}i")] if offset else []
    if not parts:
        return "0i"
    (first_positive, first), rest = parts[0], parts[1:]
    return (first if first_positive else f"-{first}") + "".join(f" {'+' if up else '-'} {p}" for up, p in rest)


# patches: every window of x (XLA's reduce_window geometry: sizes, strides, padding, base and
# window dilation, one of each per axis) gathered into window axes of its own:
#   out[o..., k...] = xp[o * strides + k * window_dilation]
# where xp is x dilated by base_dilation and padded with `value` (negative padding crops). A
# view: the reader's loads compute the position, so a reduction over the window axes is one
# kernel (pooling), and a matmul reads the patches in place (the implicit GEMM of a
# convolution). Linear in x: the cotangent goes back through patches_transpose.
def _patches_rule(x: Spec, *, window_dimensions: tuple[int, ...], window_strides: tuple[int, ...], padding: Pads,
                  base_dilation: tuple[int, ...], window_dilation: tuple[int, ...], value: Hashable) -> Spec:
    out = windows("patches", x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation)
    return Spec(out + tuple(window_dimensions), x.dtype)


def _patches_impl(x: np.ndarray, *, window_dimensions, window_strides, padding, base_dilation, window_dilation,
                  value) -> np.ndarray:
    xp = _dilate_pad(x, base_dilation, padding, value)
    spans = [dilated(k, d) for k, d in zip(window_dimensions, window_dilation)]
    if any(k > n for k, n in zip(spans, xp.shape)):  # no window fits along an axis: no patches
        count = windows("patches", x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation)
        return np.zeros(count + tuple(window_dimensions), x.dtype)
    view = np.lib.stride_tricks.sliding_window_view(xp, spans)
    return np.ascontiguousarray(view[tuple(slice(None, None, s) for s in window_strides)
                                     + tuple(slice(None, None, d) for d in window_dilation)])


def _patches_vjp(g: Tensor, ans: Tensor, x: Tensor, *, value: Hashable, **window: Any) -> tuple[Tensor]:
    return (bind(patches_transpose_p, g, shape=x.shape, **window),)


# A window of one along the batch axis (moved in front of the operand's axes), no stride,
# padding or dilation: what the window params of a batched operand start with.
_BATCH_WINDOW = dict(window_dimensions=1, window_strides=1, padding=(0, 0), base_dilation=1, window_dilation=1)


def _batch_window(window: dict[str, tuple[Any, ...]]) -> dict[str, tuple[Any, ...]]:
    return {key: (_BATCH_WINDOW[key], *value) for key, value in window.items()}


def _patches_batch(args: Sequence[Tensor], batched: Sequence[bool], *, value: Hashable, **window: Any) -> Tensor:
    """The batched operand's patches with a window of one along the batch axis, that window axis
    (the first window axis, of size 1) dropped."""
    (x,) = args
    out = bind(patches_p, x, value=value, **_batch_window(window))
    return fnp.squeeze(out, x.ndim)


def _patches_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """The operand's value at each window's position, or the fill value in holes and padding
    (loads stay in range)."""
    node = w.nodes[i]
    a = node.attrs
    shape = w.spec(node.inputs[0]).shape
    inner, inside = [], []
    for axis, n in enumerate(shape):
        o, k = coords[axis], coords[len(shape) + axis]
        size, s, (lo, hi) = a["window_dimensions"][axis], a["window_strides"][axis], a["padding"][axis]
        b, d = a["base_dilation"][axis], a["window_dilation"][axis]
        if (size, s, lo, hi, b) == (1, 1, 0, 0, 1):
            inner.append(o)
            continue
        t = w.let(_affine([(o, s), (k, d)], -lo))  # the position in x dilated
        last = (node.spec.shape[axis] - 1) * s + (size - 1) * d - lo  # the largest position read
        checks = [f"{t} >= 0i"] if lo > 0 else []
        checks += [f"{t} <= {dilated(n, b) - 1}i"] if last > dilated(n, b) - 1 else []
        checks += [f"{t} % {b}i == 0i"] if b > 1 else []
        q = w.let(f"{t} / {b}i") if b > 1 else t
        inner.append(w.clamped(q, n) if checks else q)
        inside += checks
    v = w.operand(i, 0, inner)
    return f"select({w.literal(a['value'], node.spec.dtype)}, {v}, {' && '.join(inside)})" if inside else v


def _patches_last_axis(node: Node, x: Spec) -> str | None:
    """The last window axis walks the operand's last axis, by its window dilation."""
    a = node.attrs
    return "same" if (a["window_dilation"][-1], a["base_dilation"][-1]) == (1, 1) else "scattered"


patches_p = declare("patches", _patches_rule, _patches_impl)
vjp_rules.register(patches_p, _patches_vjp)
# Linear in x but for the fill value: the tangent's patches hold 0 in holes and padding.
jvp_rules.register(patches_p, lambda primals, tangents, ans, *, value, **window: bind(
    patches_p, tangents[0], value=0, **window))
batch_rules.register(patches_p, _patches_batch)
register_lowering(patches_p, View(last_axis=_patches_last_axis), _patches_wgsl)


# patches_transpose: the transpose of patches (col2im): each element of the patches goes back,
# summed, to the position of x it was read from (holes and padding drop theirs):
#   out[y] = sum over k of g[o, k] where o * strides + k * window_dilation = y * base_dilation + lo.
# Each result folds at most one value per window offset k; linear, its transpose is patches.
def _patches_transpose_rule(g: Spec, *, shape: tuple[int, ...], window_dimensions: tuple[int, ...],
                            window_strides: tuple[int, ...], padding: Pads, base_dilation: tuple[int, ...],
                            window_dilation: tuple[int, ...]) -> Spec:
    want = windows("patches_transpose", shape, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation) + tuple(window_dimensions)
    if g.shape != want:
        raise ShapeError(f"patches_transpose: cotangent {g.shape} is not the patches shape {want} of {shape}")
    return Spec(tuple(shape), g.dtype)


def _patches_transpose_impl(g: np.ndarray, *, shape, window_dimensions, window_strides, padding, base_dilation,
                            window_dilation) -> np.ndarray:
    r = len(shape)
    out_shape = g.shape[:r]
    acc = np.zeros([dilated(n, b) + lo + hi for n, b, (lo, hi) in zip(shape, base_dilation, padding)], wide(g))
    for k in np.ndindex(*window_dimensions):
        at = tuple(slice(j * d, j * d + dilated(o, s), s) for j, d, o, s in zip(k, window_dilation, out_shape,
                                                                                window_strides))
        acc[at] += g[(Ellipsis, *k)]
    # The position of each x element in the padded axis; the cropped ones (negative padding) get nothing.
    where = [lo + b * np.arange(n) for n, b, (lo, _) in zip(shape, base_dilation, padding)]
    kept = [(p >= 0) & (p < m) for p, m in zip(where, acc.shape)]
    out = np.zeros(shape, g.dtype)
    out[np.ix_(*kept)] = acc[np.ix_(*(p[k] for p, k in zip(where, kept)))]
    return out


def _patches_transpose_batch(args: Sequence[Tensor], batched: Sequence[bool], *, shape: tuple[int, ...],
                             **window: Any) -> Tensor:
    """The batched patches given the batch axis's window axis (of size 1) back, then transposed
    into the operand with the batch axis."""
    (g,) = args
    return bind(patches_transpose_p, fnp.expand_dims(g, 1 + len(shape)), shape=(g.shape[0], *shape),
                **_batch_window(window))


def _patches_transpose_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    node = w.nodes[i]
    a = node.attrs
    g = node.inputs[0]
    out = w.spec(g).shape[:len(coords)]
    window, dtype = a["window_dimensions"], node.spec.dtype

    def at(r: str) -> str:
        ks = w.unravel(r, window)
        inner, inside = [], []
        for y, m, k, n, size, s, (lo, hi), b, d in zip(coords, node.spec.shape, ks, out, window, a["window_strides"],
                                                       a["padding"], a["base_dilation"], a["window_dilation"]):
            if (size, s, lo, hi, b) == (1, 1, 0, 0, 1):
                inner.append(y)
                continue
            t = w.let(_affine([(y, b), (k, -d)], lo))  # where window k of this element starts: o * s
            q = w.let(f"{t} / {s}i") if s > 1 else t
            checks = [f"{t} >= 0i"] if lo - (size - 1) * d < 0 else []
            checks += [f"{q} < {n}i"] if (m - 1) * b + lo >= n * s else []
            checks += [f"{t} % {s}i == 0i"] if s > 1 else []
            inner.append(w.clamped(q, n) if checks else q)
            inside += checks
        v = cast(w, w.value(g, [*inner, *ks]), dtype, dtype.wide)
        return f"select({w.literal(0, dtype.wide)}, {v}, {' && '.join(inside)})" if inside else v

    total = w.reduce(math.prod(window), at, lambda acc, v: f"{acc} + {v}", w.literal(0, dtype.wide), dtype.wide)
    return cast(w, total, dtype.wide, dtype)


patches_transpose_p = declare("patches_transpose", _patches_transpose_rule, _patches_transpose_impl)
vjp_rules.register(patches_transpose_p, lambda g, ans, x, *, shape, **window: (
    bind(patches_p, g, value=0, **window),))
jvp_rules.register(patches_transpose_p, linear_jvp(patches_transpose_p))
batch_rules.register(patches_transpose_p, _patches_transpose_batch)
register_lowering(patches_transpose_p, Contraction(lambda node, g: math.prod(node.attrs["window_dimensions"])),
                  _patches_transpose_wgsl)


# conv_general_dilated: XLA's convolution, as jax.lax.conv_general_dilated_p. In the canonical
# layout (dimension_numbers give where each operand's batch, feature and spatial axes are),
# lhs (N, C, *S), rhs (O, I, *K), out (N / batch_group_count, O, *OS):
#   out[n, o, q] = sum over i, k of lhs[n', g I + i, q * strides + k * rhs_dilation] * rhs[o, i, k]
# with lhs dilated by lhs_dilation and padded (negative padding crops). Feature groups
# (feature_group_count G: C = G I) take output feature o's inputs from group g = o // (O / G);
# batch groups (B) take them from the batch entries n' = g N / B + n instead (a grouped
# convolution's kernel gradient). Both cotangents are convolutions (XLA's transposes, as
# jax's _conv_general_dilated_transpose_lhs/rhs), so second derivatives are too.
# Float convolutions that are real matrix products lower to the tiled matmul reading patches
# in place (implicit GEMM); the others (depthwise, few channels, integers) to a direct kernel:
# a dot product per result, folded by a workgroup where it is long.
def _conv_rule(lhs: Spec, rhs: Spec, *, window_strides: tuple[int, ...], padding: Pads, lhs_dilation: tuple[int, ...],
               rhs_dilation: tuple[int, ...], dimension_numbers: tuple[tuple[int, ...], ...], feature_group_count: int,
               batch_group_count: int) -> Spec:
    name = "conv_general_dilated"
    check_dtypes(name, NUMERIC, lhs, rhs)
    if lhs.dtype != rhs.dtype:
        raise DTypeError(f"{name}: operand dtypes differ: {lhs} and {rhs}")
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise ShapeError(f"{name}: lhs {lhs.shape} and rhs {rhs.shape} must have one rank, at least 2")
    ls, rs, os_ = dimension_numbers
    if any(sorted(spec) != list(range(lhs.ndim)) for spec in dimension_numbers):
        raise ShapeError(f"{name}: dimension_numbers {dimension_numbers} must each be a permutation of the "
                         f"{lhs.ndim} axes of {lhs.shape} and {rhs.shape}")
    F, B = feature_group_count, batch_group_count
    N, C, O, I = lhs.shape[ls[0]], lhs.shape[ls[1]], rhs.shape[rs[0]], rhs.shape[rs[1]]
    if F < 1 or B < 1 or (F > 1 and B > 1):
        raise ShapeError(f"{name}: feature_group_count {F} and batch_group_count {B} must be positive, at most one "
                         "of them above 1")
    if C % F or C // F != I:
        raise ShapeError(f"{name}: lhs features {C} must be feature_group_count {F} times the rhs input features "
                         f"{I} (lhs {lhs.shape}, rhs {rhs.shape})")
    if O % F or O % B:
        raise ShapeError(f"{name}: rhs output features {O} must be a multiple of feature_group_count {F} and "
                         f"batch_group_count {B} (rhs {rhs.shape})")
    if N % B:
        raise ShapeError(f"{name}: batch_group_count {B} must divide the lhs batch {N} (lhs {lhs.shape})")
    spatial = windows(name, [lhs.shape[a] for a in ls[2:]], [rhs.shape[a] for a in rs[2:]], window_strides,
                      padding, lhs_dilation, rhs_dilation)
    canonical = (N // B, O, *spatial)
    out = [0] * lhs.ndim
    for axis, size in zip(os_, canonical):
        out[axis] = size
    return Spec(tuple(out), lhs.dtype)


def _conv_impl(lhs: np.ndarray, rhs: np.ndarray, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count) -> np.ndarray:
    ls, rs, os_ = dimension_numbers
    # (N, C, *S) and (O, I, *K), laid out in C order: einsum's order of summation follows the layout.
    x, k = np.ascontiguousarray(np.transpose(lhs, ls)), np.ascontiguousarray(np.transpose(rhs, rs))
    n = x.ndim - 2
    p = _patches_impl(x, window_dimensions=(1, 1, *k.shape[2:]), window_strides=(1, 1, *window_strides),
                      padding=((0, 0), (0, 0), *padding), base_dilation=(1, 1, *lhs_dilation),
                      window_dilation=(1, 1, *rhs_dilation), value=0)
    p = p.reshape(p.shape[:n + 2] + p.shape[n + 4:])  # (N, C, *OS, *K)
    G, B = feature_group_count, batch_group_count
    N, C, O = x.shape[0], x.shape[1], k.shape[0]
    p = p.reshape(B, N // B, G, C // G, *p.shape[2:]).astype(wide(lhs), order="C")
    k = k.reshape(B * G, O // (B * G), *k.shape[1:]).astype(wide(rhs), order="C")
    # Letters of the output positions (a, b, ...) and the window (p, q, ...); g the group, z the other grouping (1).
    at, win = "".join(chr(ord("a") + j) for j in range(n)), "".join(chr(ord("p") + j) for j in range(n))
    if B > 1:  # out[n, g, o, at] = sum over i, win of p[g, n, 0, i, at, win] k[g, o, i, win]
        out = np.einsum(f"gnzi{at}{win},goi{win}->ngo{at}", p, k)
    else:
        out = np.einsum(f"zngi{at}{win},goi{win}->ngo{at}", p, k)
    out = out.reshape(N // B, O, *out.shape[3:]).astype(lhs.dtype)
    return np.transpose(out, np.argsort(os_))


def _split_axis(x: Tensor, axis: int, size: int) -> Tensor:
    """x with `axis` split into (size, rest), as jax's _reshape_axis_out_of."""
    shape = list(x.shape)
    shape[axis:axis + 1] = [size, shape[axis] // size]
    return fnp.reshape(x, tuple(shape))


def _merge_axis(x: Tensor, src: int, dst: int) -> Tensor:
    """x with axis `src` merged into axis `dst` (numbered without src) as its major part, as jax's
    _reshape_axis_into."""
    perm = [a for a in range(x.ndim) if a != src]
    perm.insert(dst, src)
    shape = [d for a, d in enumerate(x.shape) if a != src]
    shape[dst] *= x.shape[src]
    return fnp.reshape(fnp.transpose(x, tuple(perm)), tuple(shape))


def _swap(spec: tuple[int, ...]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def _conv_vjp(g: Tensor, ans: Tensor, lhs: Tensor, rhs: Tensor, *, window_strides, padding, lhs_dilation,
              rhs_dilation, dimension_numbers, feature_group_count, batch_group_count) -> tuple[Tensor, Tensor]:
    ls, rs, os_ = dimension_numbers
    S, K, OS = ([x.shape[a] for a in spec[2:]] for x, spec in ((lhs, ls), (rhs, rs), (g, os_)))
    S_d, K_d, OS_d = (list(map(dilated, sizes, d)) for sizes, d in
                      ((S, lhs_dilation), (K, rhs_dilation), (OS, window_strides)))
    F, B = feature_group_count, batch_group_count
    # d lhs: the cotangent convolved with the kernel reversed in space, its input and output
    # features exchanged (a group moving from the kernel's outputs into its inputs).
    before = [k - lo - 1 for k, (lo, _) in zip(K_d, padding)]
    pads = tuple((b, s + k - 1 - o - b) for b, s, k, o in zip(before, S_d, K_d, OS_d))
    kernel = _merge_axis(_split_axis(rhs, rs[0], max(F, B)), rs[0], rs[1]) if max(F, B) > 1 else rhs
    dlhs = bind(conv_general_dilated_p, g, fnp.flip(kernel, rs[2:]), window_strides=tuple(lhs_dilation),
                padding=pads, lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
                dimension_numbers=(os_, _swap(rs), ls), feature_group_count=max(F, B), batch_group_count=1)
    if B > 1:
        dlhs = _merge_axis(_split_axis(dlhs, ls[1], B), ls[1], ls[0])
    # d rhs: lhs convolved with the cotangent as the kernel, batch and features exchanged;
    # feature groups become batch groups and the reverse.
    pads = tuple((lo, o - s + k - lo - 1) for (lo, _), o, s, k in zip(padding, OS_d, S_d, K_d))
    drhs = bind(conv_general_dilated_p, lhs, g, window_strides=tuple(rhs_dilation), padding=pads,
                lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
                dimension_numbers=(_swap(ls), _swap(os_), _swap(rs)), feature_group_count=B, batch_group_count=F)
    return dlhs, drhs


# Batched (as jax's _conv_general_dilated_batch_rule), one convolution: a batched lhs alone has
# the batch folded into its batch axis (into each batch group, where there are groups); a
# batched rhs alone into its output features (into each feature or batch group's); both
# batched, B examples are B feature groups (B times as many batch groups, where there are
# some): lhs's batch folded into its features (batch), rhs's into its output features.
def _conv_batch(args: Sequence[Tensor], batched: Sequence[bool], **params: Any) -> Tensor:
    lhs, rhs = args
    ls, rs, os_ = params["dimension_numbers"]
    F, B = params["feature_group_count"], params["batch_group_count"]
    size = batch_size(args, batched)

    def conv(lhs: Tensor, rhs: Tensor, **groups: int) -> Tensor:
        return bind(conv_general_dilated_p, lhs, rhs, **{**params, **groups})

    if all(batched):
        if B > 1:
            out = conv(_merge_axis(lhs, 0, ls[0]), _merge_axis(rhs, 0, rs[0]), batch_group_count=B * size)
        else:
            out = conv(_merge_axis(lhs, 0, ls[1]), _merge_axis(rhs, 0, rs[0]), feature_group_count=F * size)
        return fnp.moveaxis(_split_axis(out, os_[1], size), os_[1], 0)
    if batched[0]:
        if B == 1:
            lhs = _merge_axis(lhs, 0, ls[0])
        else:  # (examples, N) -> (B, examples x N / B): each batch group gets its part of every example
            lhs = _merge_axis(_merge_axis(_split_axis(lhs, ls[0] + 1, B), 0, ls[0] + 1), ls[0], ls[0])
        return fnp.moveaxis(_split_axis(conv(lhs, rhs), os_[0], size), os_[0], 0)
    groups = max(F, B)
    if groups == 1:
        return fnp.moveaxis(_split_axis(conv(lhs, _merge_axis(rhs, 0, rs[0])), os_[1], size), os_[1], 0)
    # (examples, O) -> (G, examples x O / G), so that each group's output features hold every example's
    rhs = _merge_axis(_merge_axis(_split_axis(rhs, rs[0] + 1, groups), 0, rs[0] + 1), rs[0], rs[0])
    out = _split_axis(_split_axis(conv(lhs, rhs), os_[1], groups), os_[1] + 1, size)  # (G, examples, O / G)
    return fnp.moveaxis(_merge_axis(out, os_[1], os_[1] + 1), os_[1], 0)


def _conv_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    """One result: its dot product over the input features of its group and the window, the
    products at holes and padding left out (loads stay in range)."""
    node = w.nodes[i]
    a = node.attrs
    lhs, rhs = node.inputs
    ls, rs, os_ = a["dimension_numbers"]
    lshape, rshape, dtype = w.spec(lhs).shape, w.spec(rhs).shape, node.spec.dtype
    F, B = a["feature_group_count"], a["batch_group_count"]
    N, I, O = lshape[ls[0]], rshape[rs[1]], rshape[rs[0]]
    window = [rshape[d] for d in rs[2:]]
    n, o = coords[os_[0]], coords[os_[1]]
    group = w.let(f"{o} / {O // max(F, B)}i") if max(F, B) > 1 else "0i"
    batch = w.let(f"{group} * {N // B}i + {n}") if B > 1 else n
    acc = dtype.wide

    def at(r: str) -> str:
        c, *ks = w.unravel(r, (I, *window))
        at_lhs, at_rhs = [""] * len(coords), [""] * len(coords)
        at_lhs[ls[0]], at_lhs[ls[1]] = batch, w.let(f"{group} * {I}i + {c}") if F > 1 else c
        at_rhs[rs[0]], at_rhs[rs[1]] = o, c
        inside = []
        for j, k in enumerate(ks):
            size, q = lshape[ls[2 + j]], coords[os_[2 + j]]
            s, (lo, hi), ld, rd = a["window_strides"][j], a["padding"][j], a["lhs_dilation"][j], a["rhs_dilation"][j]
            at_rhs[rs[2 + j]] = k
            if (window[j], s, lo, hi, ld) == (1, 1, 0, 0, 1):
                at_lhs[ls[2 + j]] = q
                continue
            t = w.let(_affine([(q, s), (k, rd)], -lo))
            u = w.let(f"{t} / {ld}i") if ld > 1 else t
            inside += [f"{t} >= 0i", f"{u} < {size}i"] + ([f"{t} % {ld}i == 0i"] if ld > 1 else [])
            at_lhs[ls[2 + j]] = w.clamped(u, size)
        product = f"{cast(w, w.value(lhs, at_lhs), dtype, acc)} * {cast(w, w.value(rhs, at_rhs), dtype, acc)}"
        return f"select({w.literal(0, acc)}, {product}, {' && '.join(inside)})" if inside else product

    total = w.reduce(I * math.prod(window), at, lambda s, v: f"{s} + {v}", w.literal(0, acc), acc)
    return cast(w, total, acc, dtype)


def _conv_count(node: Node, lhs: Spec, rhs: Spec) -> int:
    """Products per result: the kernel's input features times its window."""
    rs = node.attrs["dimension_numbers"][1]
    return math.prod(rhs.shape[a] for a in rs[1:])


def _as_matmul(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> int | None:
    """A convolution that is a real matrix product becomes one over its patches (implicit GEMM):
    per group of features, (images x output positions, input features x window) @ (input
    features x window, output features), the patches read in place by the tiled matmul's loads;
    an ungrouped product's long k is split where its rows are too few to keep the adapter busy
    (split_long_matmul: a kernel gradient's shape). f16 operands are converted to f32 first
    (the tiled kernel computes f32). Left to the direct kernel: products narrower than a tile's
    edge in output or input features x window (depthwise, one input channel), and integers."""
    a = node.attrs
    lhs, rhs = node.inputs
    ls, rs, os_ = a["dimension_numbers"]
    lshape, rshape = nodes[lhs].spec.shape, nodes[rhs].spec.shape
    B = a["batch_group_count"]
    groups = max(a["feature_group_count"], B)
    N, O, I = lshape[ls[0]], rshape[rs[0]], rshape[rs[1]]
    window = [rshape[d] for d in rs[2:]]
    spatial = [node.spec.shape[d] for d in os_[2:]]
    rows, depth, features = N // B * math.prod(spatial), I * math.prod(window), O // groups
    dtype = node.spec.dtype
    if dtype.wide is not DType.f32 or features < THREADS or depth < THREADS:
        return None
    site, r = node.site, len(lshape)
    if dtype is not DType.f32:  # f16: products and sums in f32 (as the direct kernel's), rounded once
        lhs, rhs = (add("astype", [j], site, dtype=DType.f32) for j in (lhs, rhs))
    # The patches of lhs in its own layout (the window's batch and feature axes 1) ...
    per_axis = {key: [default] * r for key, default in
                (("window_dimensions", 1), ("window_strides", 1), ("padding", (0, 0)), ("base_dilation", 1),
                 ("window_dilation", 1))}
    for j, d in enumerate(ls[2:]):
        for key, value in zip(per_axis, (window[j], a["window_strides"][j], a["padding"][j], a["lhs_dilation"][j],
                                         a["rhs_dilation"][j])):
            per_axis[key][d] = value
    p = add("patches", [lhs], site, value=0, **{key: tuple(v) for key, v in per_axis.items()})
    # ... as (N, *OS, C, *K), then a matrix per group: batch groups split N, feature groups C.
    p = add("transpose", [p], site, perm=(ls[0], *ls[2:], ls[1], *(r + d for d in ls[2:]), r + ls[0], r + ls[1]))
    if B > 1:
        p = add("reshape", [p], site, shape=(groups, rows, depth))
    elif groups > 1:
        p = add("transpose", [add("reshape", [p], site, shape=(rows, groups, depth))], site, perm=(1, 0, 2))
    else:
        p = add("reshape", [p], site, shape=(rows, depth))
    k = add("transpose", [rhs], site, perm=(rs[1], *rs[2:], rs[0]))  # (I, *K, O)
    if groups > 1:
        k = add("transpose", [add("reshape", [k], site, shape=(depth, groups, features))], site, perm=(1, 0, 2))
    else:
        k = add("reshape", [k], site, shape=(depth, features))
    out = add("matmul", [p, k], site)
    if groups > 1:  # (G, rows, features) -> (rows, G x features)
        out = add("transpose", [out], site, perm=(1, 0, 2))
    else:
        out = split_long_matmul(nodes[out], nodes, add, limits) or out
    out = add("reshape", [out], site, shape=(N // B, *spatial, O))
    perm = [0] * r  # (N, *OS, O) to the output's layout
    for d, axis in zip(os_, (0, r - 1, *range(1, r - 1))):
        perm[d] = axis
    out = add("transpose", [out], site, perm=tuple(perm))
    return out if dtype is DType.f32 else add("astype", [out], site, dtype=dtype)


conv_general_dilated_p = declare("conv_general_dilated", _conv_rule, _conv_impl)
vjp_rules.register(conv_general_dilated_p, _conv_vjp)
jvp_rules.register(conv_general_dilated_p, multilinear_jvp(conv_general_dilated_p))
batch_rules.register(conv_general_dilated_p, _conv_batch)
register_lowering(conv_general_dilated_p, Contraction(_conv_count), _conv_wgsl)
rewrite_rules.register(conv_general_dilated_p, _as_matmul)
