"""JAX export rules of the primitives that move elements: shapes (fgrad/primitives/shapes.py), gathers and
scatters (indexing.py) and convolutions and patches (convolution.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from fgrad.errors import InputError
from fgrad.export.jax import jax_rules
from fgrad.ir import DType
from fgrad.primitives import (
    broadcast_to_p, concatenate_p, conv_general_dilated_p, dim_size_p, dynamic_slice_p, dynamic_update_slice_p,
    patches_p, patches_transpose_p, reshape_p, rev_p, scatter_add_p, scatter_p, slice_p, take_p, transpose_p,
)
from fgrad.primitives.convolution import dilated, windows
from fgrad.trace import user_site


def _wide(x: jax.Array) -> jax.Array:
    """x in the dtype its sums and dot products accumulate in (f16 in f32)."""
    return x.astype(DType.of(x.dtype).wide.np)


jax_rules.register(reshape_p, lambda x, *, shape: jnp.reshape(x, shape))
jax_rules.register(transpose_p, lambda x, *, perm: jnp.transpose(x, perm))
jax_rules.register(broadcast_to_p, lambda x, *, shape: jnp.broadcast_to(x, shape))
jax_rules.register(slice_p, lambda x, *, starts, stops, steps: lax.slice(x, starts, stops, steps))
jax_rules.register(concatenate_p, lambda *xs, axis: jnp.concatenate(xs, axis=axis))
jax_rules.register(rev_p, lambda x, *, axes: lax.rev(x, axes))


def _dim_size(*, dim):
    raise InputError(f"to_jax: dim_size of the symbolic dimension {dim}: JAX traces concrete shapes: trace the "
                     "graph over concrete specs", user_site())


jax_rules.register(dim_size_p, _dim_size)


# Indices are compared and clipped in their own dtype (u32 ones above i32's range stay large), narrow
# ones widened to i32 first so that the axis size fits.
def _index(indices: jax.Array) -> jax.Array:
    return indices if indices.dtype.itemsize >= 4 else indices.astype(jnp.int32)


def _take(x, indices, *, axis, mode, fill_value):
    n = x.shape[axis]
    if n == 0:
        shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        return jnp.full(shape, 0 if fill_value is None else fill_value.array, x.dtype)
    i = _index(indices)
    out = jnp.take(x, jnp.clip(i, 0, n - 1).astype(jnp.int32), axis=axis, mode="clip")
    if mode == "clip":
        return out
    inside = ((i >= 0) & (i < n)).reshape(indices.shape + (1,) * (x.ndim - axis - 1))
    return jnp.where(inside, out, jnp.asarray(fill_value.array, x.dtype))


jax_rules.register(take_p, _take)


def _rows(indices: jax.Array, n: int, mode: str) -> jax.Array:
    """The row of each update slice (flattened indices), n for a dropped one."""
    i = _index(indices).reshape(-1)
    if mode == "clip":
        return jnp.clip(i, 0, n - 1).astype(jnp.int32)
    return jnp.where((i >= 0) & (i < n), i, n).astype(jnp.int32)


# Rows combine in index order: with "set" only each row's last update is written; "mul" takes each
# row's product of its updates (a mask over rows x updates: scatter_mul has no gradient for repeated rows).
def _scatter(x, updates, indices, *, axis, mode, combine):
    n = x.shape[axis]
    rows = _rows(indices, n, mode)
    u = updates.reshape(x.shape[:axis] + (rows.size,) + x.shape[axis + 1:])
    if combine == "set":
        order = jnp.arange(rows.size, dtype=jnp.int32)
        last = jnp.full((n + 1,), -1, jnp.int32).at[rows].max(order)
        return x.at[(slice(None),) * axis + (jnp.where(last[rows] == order, rows, n),)].set(u, mode="drop")
    if combine == "mul":
        hits = (rows == jnp.arange(n)[:, None]).reshape((n, rows.size) + (1,) * (x.ndim - axis - 1))
        return x * jnp.prod(jnp.where(hits, jnp.expand_dims(u, axis), jnp.ones((), x.dtype)), axis=axis + 1)
    at = x.at[(slice(None),) * axis + (rows,)]
    return {"add": at.add, "min": at.min, "max": at.max}[combine](u, mode="drop")


def _scatter_add(updates, indices, *, axis, size, mode):
    zeros = jnp.zeros(updates.shape[:axis] + (size,) + updates.shape[axis + indices.ndim:], updates.dtype)
    return _scatter(zeros, updates, indices, axis=axis, mode=mode, combine="add")


jax_rules.register(scatter_p, _scatter)
jax_rules.register(scatter_add_p, _scatter_add)


# Starts are clamped here so that the window fits: lax's own would first count negative ones from the end.
def _clamped(starts, shape, sizes):
    return [jnp.clip(s, 0, n - k) for s, n, k in zip(starts, shape, sizes)]


jax_rules.register(dynamic_slice_p, lambda x, *starts, slice_sizes: lax.dynamic_slice(
    x, _clamped(starts, x.shape, slice_sizes), slice_sizes))
jax_rules.register(dynamic_update_slice_p, lambda x, update, *starts: lax.dynamic_update_slice(
    x, update, _clamped(starts, x.shape, update.shape)))


def _conv(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count,
          batch_group_count):
    return lax.conv_general_dilated(
        _wide(lhs), _wide(rhs), window_strides, padding, lhs_dilation, rhs_dilation,
        lax.ConvDimensionNumbers(*dimension_numbers), feature_group_count, batch_group_count,
        precision=lax.Precision.HIGHEST).astype(lhs.dtype)


jax_rules.register(conv_general_dilated_p, _conv)


def _positions(counts, window_dimensions, window_strides, window_dilation):
    """Index arrays, one per axis, of the patches' elements in the dilated, padded operand:
    o * stride + k * dilation, broadcasting to (*counts, *window_dimensions)."""
    r = len(counts)
    out = []
    for a, (o, k, s, d) in enumerate(zip(counts, window_dimensions, window_strides, window_dilation)):
        shape = [1] * 2 * r
        shape[a], shape[r + a] = o, k
        out.append((np.arange(o)[:, None] * s + np.arange(k) * d).reshape(shape).astype(np.int32))
    return tuple(out)


def _patches(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation, value):
    counts = windows("patches", x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation)
    xp = lax.pad(x, jnp.asarray(value, x.dtype), [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation)])
    return xp[_positions(counts, window_dimensions, window_strides, window_dilation)]


# Summed in the wide dtype into the dilated, padded operand, then cropped back to x's elements.
def _patches_transpose(g, *, shape, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    r = len(shape)
    size = [dilated(n, b) + lo + hi for n, b, (lo, hi) in zip(shape, base_dilation, padding)]
    acc = jnp.zeros(size, _wide(g).dtype).at[_positions(g.shape[:r], window_dimensions, window_strides,
                                                        window_dilation)].add(_wide(g))
    acc = lax.pad(acc, jnp.zeros((), acc.dtype), [(-lo, -hi, 0) for lo, hi in padding])
    return lax.slice(acc, (0,) * r, acc.shape, base_dilation).astype(g.dtype)


jax_rules.register(patches_p, _patches)
jax_rules.register(patches_transpose_p, _patches_transpose)
