"""Functions that move elements: reshape, transpose, broadcast_to, expand_dims, squeeze,
concatenate, stack, split, tile, repeat, diagonals and triangles, pad."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: the composites (tril, trace, pad's modes) call other families at call time
from fgrad.errors import TRACER_INDEX, DTypeError, InputError, ShapeError, TraceError
from fgrad.ir import Dim, DType
from fgrad.primitives import broadcast_to_p, concatenate_p, pad_p, reshape_p, rev_p, slice_p, transpose_p
from fgrad.primitives.abstract_eval import check_reshape
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _as_dtype, _axes, _axis_tuple, _brief, _broadcast_shapes, _copy_flag, _dtype, _no_sharding,
    _one_axis, _shape, _static_scalar, asarray, result_dtype,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "broadcast_to", "concatenate", "expand_dims", "flip", "pad", "reshape", "rot90", "squeeze", "stack",
    "transpose",
    "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "diag", "diagonal", "dsplit",
    "dstack", "hsplit", "hstack", "meshgrid", "moveaxis", "ravel", "repeat", "split", "swapaxes", "tile",
    "trace", "tril", "triu", "vsplit", "vstack",
    "append", "block", "broadcast_arrays", "broadcast_shapes", "concat", "delete", "fliplr", "flipud", "insert",
    "matrix_transpose", "permute_dims", "resize",
    "diagflat", "ix_", "rollaxis", "unstack", "trim_zeros",
]


def _shape_arg(name: str, shape: Any) -> tuple[int | Dim, ...]:
    if isinstance(shape, np.ndarray) and shape.ndim == 0:
        shape = shape[()]  # a 0-d array is the one size it holds
    if not isinstance(shape, (int, np.integer, Dim, tuple, list, np.ndarray)):
        raise ShapeError(f"{name}: shape {shape!r} must be a tuple of integers", user_site())
    dims = (shape,) if isinstance(shape, (int, np.integer, Dim)) else tuple(shape)
    if not all(isinstance(d, Dim) or isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dims):
        raise ShapeError(f"{name}: shape {shape!r} must be a tuple of integers", user_site())
    return tuple(d if isinstance(d, Dim) else int(d) for d in dims)


def _inferred(old: tuple[int | Dim, ...], shape: tuple[int | Dim, ...]) -> int | Dim | None:
    """The size the one -1 of `shape` stands for in a reshape of `old` (None if there is none):
    what is left of old's elements, an integer or, where a symbol is left over alone, the symbol."""
    fixed = math.prod(d for d in shape if not isinstance(d, Dim) and d != -1)
    total = math.prod(d for d in old if not isinstance(d, Dim))
    left = [d for d in old if isinstance(d, Dim)]  # the symbols of `old` that `shape` does not name
    for d in shape:
        if isinstance(d, Dim):
            if d not in left:
                return None
            left.remove(d)
    if fixed < 1 or total % fixed:
        return None
    if not left:
        return total // fixed
    if len(left) == 1 and total == fixed:
        return left[0]
    raise ShapeError(f"reshape: cannot reshape {old} into {shape}: -1 would be a product with the symbol "
                     f"{left[0]} (fgrad forms no product or split of a symbol)", user_site())


def reshape(a: ArrayLike, shape: int | Dim | Sequence[int | Dim], order: str = "C", *, copy: bool | None = None,
            out_sharding: Any = None) -> Tensor | np.ndarray:
    """Same elements, new shape; one dimension may be -1 (inferred). A symbolic dimension stays a
    factor of an axis of its own: (T, 64) reshapes into (T, 4, 16) or (-1, 4, 16), not (T*64,).

    As `jnp.reshape`: the elements are read and written in row-major order ("C"), or with
    order="F" in column-major order, the first axis fastest ("A" is refused, as JAX refuses it);
    `copy` is accepted (fgrad values are immutable) and `out_sharding` must be None.
    """
    if order != "C" or copy is not None or out_sharding is not None:
        _copy_flag("reshape", copy)
        _no_sharding("reshape", out_sharding)
        if order not in ("C", "F"):
            raise TraceError(f"reshape: order {order!r} is not supported, as in jax.numpy; use 'C' or 'F'",
                             user_site())
        if order == "F":  # the C-order reshape of the axes reversed, reversed back
            return transpose(reshape(transpose(a), _shape_arg("reshape", shape)[::-1]))
    x = asarray(a)
    old = _shape(x)
    shape = _shape_arg("reshape", shape)
    if shape.count(-1) == 1:
        size = _inferred(old, shape)
        if size is not None:
            shape = tuple(size if d == -1 else d for d in shape)
    if shape == old:
        return x
    if any(not isinstance(d, Dim) and d < 0 for d in shape):
        raise ShapeError(f"reshape: cannot reshape {old} into {shape}", user_site())
    try:
        check_reshape(old, shape)
    except ShapeError as e:
        raise ShapeError(str(e), user_site()) from None
    return bind(reshape_p, x, shape=shape)


def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Tensor | np.ndarray:
    """Permute axes (reverse them if `axes` is None): out.shape[i] = x.shape[axes[i]]."""
    x = asarray(x)
    ndim = len(_shape(x))
    if axes is not None and not isinstance(axes, (tuple, list)):
        raise ShapeError(f"transpose: axes {axes!r} must be a tuple of integers for {_shape(x)}", user_site())
    perm = tuple(reversed(range(ndim))) if axes is None else tuple(axes)
    valid = all(isinstance(a, (int, np.integer)) and -ndim <= a < ndim for a in perm)
    if not valid or sorted(int(a) % ndim for a in perm) != list(range(ndim)):
        raise ShapeError(f"transpose: axes {perm} are not a permutation of 0..{ndim - 1} for {_shape(x)}", user_site())
    perm = tuple(int(a) % ndim for a in perm)
    return x if perm == tuple(range(ndim)) else bind(transpose_p, x, perm=perm)


def broadcast_to(array: ArrayLike, shape: int | Sequence[int], *, out_sharding: Any = None) -> Tensor | np.ndarray:
    """Broadcast `array` to `shape` by NumPy's rules; `out_sharding` must be None."""
    _no_sharding("broadcast_to", out_sharding)
    x = asarray(array)
    shape = _shape_arg("broadcast_to", shape)
    return x if shape == _shape(x) else bind(broadcast_to_p, x, shape=shape)


def expand_dims(x: ArrayLike, axis: int | Sequence[int]) -> Tensor | np.ndarray:
    """Insert size-1 axes at the positions `axis` of the result."""
    x = asarray(x)
    old = _shape(x)
    given = _axis_tuple("expand_dims", axis)
    ndim = len(old) + len(given)
    axes = _axes("expand_dims", old, given, ndim)
    it = iter(old)
    return reshape(x, tuple(1 if i in axes else next(it) for i in range(ndim)))


def squeeze(x: ArrayLike, axis: int | Sequence[int] | None = None) -> Tensor | np.ndarray:
    """Remove size-1 axes (all of them if `axis` is None)."""
    x = asarray(x)
    old = _shape(x)
    axes = tuple(i for i, d in enumerate(old) if d == 1) if axis is None else _axes("squeeze", old, axis)
    for a in axes:
        if old[a] != 1:
            raise ShapeError(f"squeeze: cannot squeeze axis {a} of size {old[a]} in {old}", user_site())
    return reshape(x, tuple(d for i, d in enumerate(old) if i not in axes))


def concatenate(xs: Sequence[ArrayLike], axis: int | None = 0, dtype: str | DType | None = None
                ) -> Tensor | np.ndarray:
    """Join values along an existing axis (axis=None: joined flattened); dtypes promote, or
    convert to `dtype`."""
    xs = _operands("concatenate", xs)
    if len(xs) == 0:
        raise ShapeError("concatenate: needs at least one operand", user_site())
    dt = result_dtype(*xs) if dtype is None else _as_dtype(dtype, "concatenate")
    xs = [asarray(x, dt) for x in xs]
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    shapes = [_shape(x) for x in xs]
    if len({len(s) for s in shapes}) > 1:
        raise ShapeError(f"concatenate: operands have different ranks: {', '.join(map(str, shapes))}", user_site())
    axis = _one_axis("concatenate", xs[0], axis)
    if len(xs) == 1:
        return xs[0]
    return bind(concatenate_p, *xs, axis=axis)


def stack(xs: Sequence[ArrayLike], axis: int = 0, out: None = None, dtype: str | DType | None = None
          ) -> Tensor | np.ndarray:
    """Join values of one shape along a new axis; dtypes promote, or convert to `dtype`."""
    _no_out("stack", out)
    xs = _operands("stack", xs)
    if len(xs) == 0:
        raise ShapeError("stack: needs at least one operand", user_site())
    shapes = {_shape(x) for x in xs}
    if len(shapes) > 1:
        raise ShapeError(f"stack: operands have different shapes: {', '.join(str(_shape(x)) for x in xs)}", user_site())
    return concatenate([expand_dims(x, axis) for x in xs], axis, dtype)


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Tensor | np.ndarray, ...]:
    """The entries of `x` along `axis`, each without that axis, as `jnp.unstack` (stack's inverse)."""
    x = asarray(x)
    shape = _shape(x)
    if not shape:
        raise ShapeError("unstack: needs at least 1 axis, got a 0-d value", user_site())
    axis = _one_axis("unstack", x, axis)
    n = _fixed("unstack", shape, axis, "one value per entry")
    rest = shape[:axis] + shape[axis + 1:]
    return tuple(reshape(_slice_axis(x, axis, i, i + 1), rest) for i in range(n))


def _operands(name: str, xs: Any) -> list:
    """The arrays of an argument that holds several: a list or tuple, or (as jax.numpy takes one)
    the entries along axis 0 of an array."""
    if isinstance(xs, (list, tuple)):
        return list(xs)
    if not isinstance(xs, Tensor) and hasattr(xs, "__array__"):  # a NumPy or device array
        xs = np.asarray(xs)
    if not isinstance(xs, (Tensor, np.ndarray)):
        raise TraceError(f"{name}: expected a list or tuple of arrays, got a {type(xs).__name__}", user_site())
    if not _shape(xs):
        raise ShapeError(f"{name}: expected a list or tuple of arrays, or an array of at least one axis, got a "
                         f"scalar array", user_site())
    return list(xs)


def _static_int(name: str, what: str, value: Any, low: int | None = None) -> int:
    """A static integer argument (a Python or NumPy integer, not a bool), at least `low` if given."""
    if isinstance(value, Tensor):
        raise TraceError(TRACER_INDEX.format(what=f"{name}: {what}", spec=value.spec), user_site())
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise ShapeError(f"{name}: {what} must be an integer, got {_brief(value)}", user_site())
    if low is not None and value < low:
        raise ShapeError(f"{name}: {what} must be at least {low}, got {value}", user_site())
    return int(value)


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise InputError(f"{name}: out= is not supported: fgrad values are immutable; use the result", user_site())


def _fixed(name: str, shape: tuple[int | Dim, ...], axis: int, what: str) -> int:
    """The size of `axis`, which `what` needs fixed: a symbol there is a ShapeError."""
    n = shape[axis]
    if isinstance(n, Dim):
        raise ShapeError(f"{name}: the symbolic axis {n} (axis {axis} of {shape}) has a size known only at call "
                         f"time: {what} needs an axis of fixed size", user_site())
    return n


def _slice_axis(x: Tensor | np.ndarray, axis: int, start: int, stop: int, step: int = 1) -> Tensor | np.ndarray:
    """x[start:stop:step] along `axis`, the other axes whole."""
    shape = _shape(x)
    if (start, stop, step) == (0, shape[axis], 1):
        return x
    return bind(slice_p, x, starts=tuple(start if i == axis else 0 for i in range(len(shape))),
                stops=tuple(stop if i == axis else d for i, d in enumerate(shape)),
                steps=tuple(step if i == axis else 1 for i in range(len(shape))))


def _along(x: Tensor | np.ndarray, axis: int, shape: tuple[int | Dim, ...]) -> tuple[int | Dim, ...]:
    """`x`'s shape with axis `axis` replaced by the axes `shape`."""
    old = _shape(x)
    return old[:axis] + tuple(shape) + old[axis + 1:]


# -- split -------------------------------------------------------------------------------


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0) -> list[Tensor | np.ndarray]:
    """Pieces along `axis`, as `jnp.split`: `indices_or_sections` an int N (N equal pieces) or
    the static, increasing indices where pieces begin (indices [0, 2] or a repeated index give
    empty pieces, as in NumPy)."""
    return _split("split", ary, indices_or_sections, axis, even=True)


def array_split(ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0) -> list[Tensor | np.ndarray]:
    """As `split`, but N sections need not divide the axis: the first n % N pieces get one more."""
    return _split("array_split", ary, indices_or_sections, axis, even=False)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor | np.ndarray]:
    """`split` along axis 1 (axis 0 of a 1-D array)."""
    return _split("hsplit", ary, indices_or_sections, 1 if len(_shape(ary)) > 1 else 0, even=True, ndim=1)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor | np.ndarray]:
    """`split` along axis 0 of an array of at least 2 axes."""
    return _split("vsplit", ary, indices_or_sections, 0, even=True, ndim=2)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor | np.ndarray]:
    """`split` along axis 2 of an array of at least 3 axes."""
    return _split("dsplit", ary, indices_or_sections, 2, even=True, ndim=3)


def _split(name: str, ary: ArrayLike, sections: Any, axis: int, even: bool, ndim: int = 0) -> list[Tensor | np.ndarray]:
    x = asarray(ary)
    shape = _shape(x)
    if len(shape) < max(ndim, 1):
        raise ShapeError(f"{name}: needs at least {max(ndim, 1)} axes, got {shape}", user_site())
    axis = _one_axis(name, x, axis)
    if isinstance(sections, Tensor):
        raise TraceError(TRACER_INDEX.format(what=f"{name}: indices_or_sections", spec=sections.spec), user_site())
    given = np.asarray(sections)
    if given.dtype.kind not in "iu" or given.ndim > 1:
        raise ShapeError(f"{name}: indices_or_sections must be an int or a sequence of ints, got {_brief(sections)}",
                         user_site())
    if given.ndim == 0 and given == 1:
        return [x]
    n = _fixed(name, shape, axis, "a split")
    if given.ndim == 0:
        count = _static_int(name, "the number of sections", int(given), low=1)
        if even and n % count:
            raise ShapeError(f"{name}: axis {axis} of {shape} (size {n}) does not split into {count} equal pieces; "
                             "array_split allows unequal ones", user_site())
        bounds = [0] + np.cumsum([n // count + (k < n % count) for k in range(count)]).tolist()
    else:
        bounds = [0, *given.tolist(), n]
    if any(b < a for a, b in zip(bounds, bounds[1:])):
        raise ShapeError(f"{name}: split indices {given.tolist()} must increase within 0..{n} along axis {axis} of "
                         f"{shape}", user_site())
    return [_slice_axis(x, axis, a, b) for a, b in zip(bounds, bounds[1:])]


# -- triangles, diagonals, trace ---------------------------------------------------------


def tril(m: ArrayLike, k: int = 0) -> Tensor | np.ndarray:
    """The lower triangle of the last two axes: entries above diagonal k (k > 0: above the main
    one) become zero."""
    return _triangle("tril", m, k, lower=True)


def triu(m: ArrayLike, k: int = 0) -> Tensor | np.ndarray:
    """The upper triangle of the last two axes: entries below diagonal k become zero."""
    return _triangle("triu", m, k, lower=False)


def _triangle(name: str, m: ArrayLike, k: int, lower: bool) -> Tensor | np.ndarray:
    x = asarray(m)
    shape = _shape(x)
    if len(shape) < 2:
        raise ShapeError(f"{name}: needs at least 2 axes, got {shape}", user_site())
    k = _static_int(name, "k", k)
    zero = asarray(0, _dtype(x))
    if lower:
        return fnp.where(fnp.tri(*shape[-2:], k, dtype=DType.bool), x, zero)
    return fnp.where(fnp.tri(*shape[-2:], k - 1, dtype=DType.bool), zero, x)


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor | np.ndarray:
    """Diagonal `offset` of the planes of axes (axis1, axis2), as a last axis after the others:
    out[..., i] = a[..., i, i + offset] (offset > 0 above the main diagonal). A view: the plane
    is read with a stride of one row and one column."""
    return _diagonal("diagonal", asarray(a), _static_int("diagonal", "offset", offset), axis1, axis2)


def _diagonal(name: str, x: Tensor | np.ndarray, offset: int, axis1: int, axis2: int) -> Tensor | np.ndarray:
    shape = _shape(x)
    if len(shape) < 2:
        raise ShapeError(f"{name}: needs at least 2 axes, got {shape}", user_site())
    i, j = _one_axis(name, x, axis1), _one_axis(name, x, axis2)
    if i == j:
        raise ShapeError(f"{name}: axis1 and axis2 are both axis {i} of {shape}", user_site())
    n, m = _fixed(name, shape, i, "a diagonal"), _fixed(name, shape, j, "a diagonal")
    length = max(min(n, m - offset) if offset >= 0 else min(n + offset, m), 0)  # empty outside the planes
    rest = [d for d in range(len(shape)) if d not in (i, j)]
    flat = reshape(transpose(x, (*rest, i, j)), (*(shape[d] for d in rest), n * m))
    if not length:
        return _slice_axis(flat, len(rest), 0, 0)
    start = offset if offset >= 0 else -offset * m
    return _slice_axis(flat, len(rest), start, start + (length - 1) * (m + 1) + 1, m + 1)


def diag(v: ArrayLike, k: int = 0) -> Tensor | np.ndarray:
    """A 1-D v as the square matrix with v on diagonal k (zeros elsewhere); a 2-D v's diagonal k.
    The matrix is v padded with a row's worth of zeros between its entries: a view."""
    x = asarray(v)
    shape = _shape(x)
    k = _static_int("diag", "k", k)
    if len(shape) == 2:
        return _diagonal("diag", x, k, 0, 1)
    if len(shape) != 1:
        raise ShapeError(f"diag: v must be 1-D or 2-D, got {shape}", user_site())
    n = _fixed("diag", shape, 0, "a diagonal matrix")
    size = n + abs(k)
    low = k if k >= 0 else -k * size
    high = size * size - low - n - max(n - 1, 0) * size
    zero = _static_scalar("diag", "zero", 0, _dtype(x)).array.item()
    return reshape(bind(pad_p, x, widths=((low, high, size),), value=zero), (size, size))


def diagflat(v: ArrayLike, k: int = 0) -> Tensor | np.ndarray:
    """The square matrix with v's entries (flattened) on diagonal k, zeros elsewhere, as
    `jnp.diagflat` (a 0-d v gives a matrix too)."""
    return diag(ravel(v), _static_int("diagflat", "k", k))


def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: None = None) -> Tensor | np.ndarray:
    """The sum of diagonal `offset` of the planes of (axis1, axis2), in `dtype` if given (bools
    count as i32)."""
    _no_out("trace", out)
    d = _diagonal("trace", asarray(a), _static_int("trace", "offset", offset), axis1, axis2)
    return fnp.sum(d if dtype is None else asarray(d, _as_dtype(dtype, "trace")), -1)


# -- tile, repeat ------------------------------------------------------------------------


def tile(A: ArrayLike, reps: int | Sequence[int]) -> Tensor | np.ndarray:
    """A repeated `reps` times along each axis, as `jnp.tile` (reps and A's rank aligned on the
    right, the shorter one padded with 1s): a broadcast view."""
    x = asarray(A)
    given = (reps,) if isinstance(reps, (int, np.integer)) else reps
    if not isinstance(given, (tuple, list)):
        raise ShapeError(f"tile: reps must be an int or a sequence of ints, got {_brief(reps)}", user_site())
    reps = tuple(_static_int("tile", "reps", r, low=0) for r in given)
    shape = _shape(x)
    ndim = max(len(reps), len(shape))
    reps, shape = (1,) * (ndim - len(reps)) + reps, (1,) * (ndim - len(shape)) + shape
    apart, stretched, merged = [], [], []  # each repeated axis (d,) becomes (1, d), then (r, d), then (r * d,)
    for axis, (r, d) in enumerate(zip(reps, shape)):
        if r != 1:
            _fixed("tile", shape, axis, f"repeating it {r} times")
        apart += [1, d] if r != 1 else [d]
        stretched += [r, d] if r != 1 else [d]
        merged.append(r * d if r != 1 else d)
    return reshape(broadcast_to(reshape(x, tuple(apart)), tuple(stretched)), tuple(merged))


def repeat(a: ArrayLike, repeats: ArrayLike, axis: int | None = None, *,
           total_repeat_length: int | None = None, out_sharding: Any = None) -> Tensor | np.ndarray:
    """Each entry along `axis` (of the flattened a if None) repeated, as `jnp.repeat`: `repeats`
    an int (a broadcast view) or one count per entry (a gather), static, or traced where the
    result's length `total_repeat_length` is given. With total_repeat_length the result is cut
    to it, or extended with the axis's last entry, as JAX. `out_sharding` must be None."""
    _no_sharding("repeat", out_sharding)
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    axis = _one_axis("repeat", x, axis)
    shape = _shape(x)
    total = None if total_repeat_length is None else _static_int("repeat", "total_repeat_length",
                                                                 total_repeat_length, low=0)
    if isinstance(repeats, Tensor):
        if total is None:
            raise TraceError(f"repeat: repeats is a traced Tensor {repeats.spec}: the result's length must be known "
                             "while tracing, so give total_repeat_length, as in JAX", user_site())
        return _repeat_traced(x, repeats, axis, total)
    _dtype(repeats)  # refuses None, strings and ragged lists
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        raise DTypeError(f"repeat: repeats must be an int or a 1-D sequence of ints, got {_brief(repeats)}",
                         user_site())
    if (counts < 0).any():
        raise ShapeError(f"repeat: repeats must not be negative, got {_brief(repeats)}", user_site())
    if counts.size == 1 and total is None:  # one count: each entry stretched into a run, a view
        r = int(counts.reshape(()))
        if r == 1:
            return x
        n = _fixed("repeat", shape, axis, f"repeating it {r} times")
        stretched = broadcast_to(reshape(x, _along(x, axis, (n, 1))), _along(x, axis, (n, r)))
        return reshape(stretched, _along(x, axis, (n * r,)))
    n = _fixed("repeat", shape, axis, "repeats per entry")
    if counts.ndim == 1 and counts.size not in (1, n):
        raise ShapeError(f"repeat: {counts.size} repeats for the {n} entries of axis {axis} of {shape}", user_site())
    counts = np.broadcast_to(counts.reshape(-1), (n,))
    total = int(counts.sum()) if total is None else total
    # JAX's rule: result j reads the last entry whose run starts at or before j.
    starts = np.cumsum(counts) - counts
    return fnp.take(x, np.searchsorted(starts, np.arange(total), side="right") - 1, axis=axis)


def _repeat_traced(x: Tensor | np.ndarray, repeats: Tensor, axis: int, total: int) -> Tensor | np.ndarray:
    """JAX's repeat for traced counts: a 1 added where each entry's run starts (runs starting
    at or past `total` dropped), summed up, read as the entry index."""
    if not repeats.dtype.is_int or repeats.ndim > 1:
        raise DTypeError(f"repeat: repeats must be integers of at most 1 axis, got a Tensor {repeats.spec}",
                         user_site())
    n = _fixed("repeat", _shape(x), axis, "repeats per entry")
    counts = broadcast_to(reshape(asarray(repeats, DType.i32), (-1,)), (n,))
    starts = fnp.subtract(fnp.cumsum(counts), counts)
    marks = fnp.scatter_add(fnp.ones(n, DType.i32), starts, total)
    return fnp.take(x, fnp.subtract(fnp.cumsum(marks), 1), axis=axis)


# -- axes --------------------------------------------------------------------------------


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Tensor | np.ndarray:
    """a with axes axis1 and axis2 exchanged."""
    x = asarray(a)
    i, j = _one_axis("swapaxes", x, axis1), _one_axis("swapaxes", x, axis2)
    perm = list(range(len(_shape(x))))
    perm[i], perm[j] = j, i
    return transpose(x, tuple(perm))


def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor | np.ndarray:
    """a with the axes `source` moved to the positions `destination`, the others in order."""
    x = asarray(a)
    shape = _shape(x)
    src, dst = _axes_in_order("moveaxis", shape, source), _axes_in_order("moveaxis", shape, destination)
    if len(src) != len(dst):
        raise ShapeError(f"moveaxis: source {source} and destination {destination} must name as many axes", user_site())
    order = [i for i in range(len(shape)) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, tuple(order))


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Tensor | np.ndarray:
    """a with axis `axis` moved to position `start`, as `jnp.rollaxis`: to just before the axis
    that was at `start` where start > axis (start may be ndim: the end)."""
    x = asarray(a)
    ndim = len(_shape(x))
    axis = _one_axis("rollaxis", x, axis)
    start = _static_int("rollaxis", "start", start)
    if not -ndim <= start <= ndim:
        raise ShapeError(f"rollaxis: start {start} must be in [{-ndim}, {ndim}] for {_shape(x)}", user_site())
    if start < 0:
        start += ndim
    return moveaxis(x, axis, start - 1 if start > axis else start)


def _axes_in_order(name: str, shape: tuple[int | Dim, ...], axis: int | Sequence[int]) -> tuple[int, ...]:
    """`axis` (an int or a sequence) checked and made non-negative, in the order given."""
    given = _axis_tuple(name, axis)
    _axes(name, shape, given)  # range, type and repeats
    return tuple(int(a) % len(shape) for a in given)


def ravel(a: ArrayLike, order: str = "C", *, out_sharding: Any = None) -> Tensor | np.ndarray:
    """The elements in one axis, in row-major order (column-major for order="F"), as `jnp.ravel`."""
    return reshape(a, (-1,), order, out_sharding=out_sharding)


def _at_least(x: Tensor | np.ndarray, ndim: int) -> Tensor | np.ndarray:
    """x with size-1 axes added up to `ndim` axes, where NumPy's atleast_{ndim}d adds them: a
    vector becomes a row, (1, n, 1) in 3-D, a matrix (m, n, 1)."""
    shape = _shape(x)
    if len(shape) >= ndim:
        return x
    if not shape:
        return reshape(x, (1,) * ndim)
    if ndim == 2:
        return reshape(x, (1, *shape))
    return reshape(x, (1, *shape, 1) if len(shape) == 1 else (*shape, 1))  # ndim 3


def atleast_1d(*arys: ArrayLike) -> Tensor | np.ndarray | list[Tensor | np.ndarray]:
    """Each array with at least 1 axis (a scalar becomes (1,)); one array, or a list of them."""
    out = [_at_least(asarray(a), 1) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys: ArrayLike) -> Tensor | np.ndarray | list[Tensor | np.ndarray]:
    """Each array with at least 2 axes (a vector becomes a row (1, n)); one array, or a list."""
    out = [_at_least(asarray(a), 2) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys: ArrayLike) -> Tensor | np.ndarray | list[Tensor | np.ndarray]:
    """Each array with at least 3 axes: (n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)."""
    out = [_at_least(asarray(a), 3) for a in arys]
    return out[0] if len(out) == 1 else out


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> list[Tensor | np.ndarray]:
    """Coordinate grids of 1-D arrays, as `jnp.meshgrid`: grid k holds xi[k] along its own axis.
    indexing="xy" (Cartesian) swaps the first two axes, "ij" (matrix) keeps them; with
    `sparse` the grids keep size 1 off their own axis. (`copy` is accepted: values are
    immutable.)"""
    if indexing not in ("xy", "ij"):
        raise TraceError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}", user_site())
    xs = [asarray(x) for x in xi]
    shapes = [_shape(x) for x in xs]
    if any(len(s) != 1 for s in shapes):
        raise ShapeError(f"meshgrid: arguments must be 1-D, got shapes {', '.join(map(str, shapes))}", user_site())
    axes = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        axes[0], axes[1] = 1, 0
    full = [1] * len(xs)
    for s, axis in zip(shapes, axes):
        full[axis] = s[0]
    grids = [reshape(x, tuple(s[0] if d == axis else 1 for d in range(len(xs))))
             for x, s, axis in zip(xs, shapes, axes)]
    return grids if sparse else [broadcast_to(g, tuple(full)) for g in grids]


def ix_(*args: ArrayLike) -> tuple[Tensor | np.ndarray, ...]:
    """An open mesh of 1-D index arrays, as `jnp.ix_`: argument k reshaped to lie along axis k
    of len(args) axes (size 1 elsewhere), so `x[ix_(rows, cols)]` picks a cross product. An
    empty argument is i32, as NumPy's empty index; bools are refused, as in JAX."""
    xs = [asarray(a) for a in args]
    out = []
    for k, x in enumerate(xs):
        shape = _shape(x)
        if len(shape) != 1:
            raise ShapeError(f"ix_: arguments must be 1-D, got shape {shape} for argument {k}", user_site())
        if _dtype(x) is DType.bool:
            raise DTypeError(f"ix_: argument {k} is bool; boolean arguments are not supported, as in jax.numpy: "
                             "pass fg.nonzero(mask, size=...)[0]", user_site())
        if shape[0] == 0:
            x = asarray(x, DType.i32)
        out.append(reshape(x, tuple(shape[0] if d == k else 1 for d in range(len(xs)))))
    return tuple(out)


# -- stacks ------------------------------------------------------------------------------


def _arrays(name: str, tup: Any, dtype: Any) -> list[Tensor | np.ndarray]:
    """The arrays of a stack: a list or tuple, or the entries along axis 0 of an array."""
    tup = _operands(name, tup)
    if not tup:
        raise ShapeError(f"{name}: needs at least one array", user_site())
    dt = result_dtype(*tup) if dtype is None else _as_dtype(dtype, name)
    return [asarray(x, dt) for x in tup]


def hstack(tup: Sequence[ArrayLike], dtype: Any = None) -> Tensor | np.ndarray:
    """Join along axis 1 (axis 0 for 1-D arrays); scalars count as 1-D."""
    xs = [_at_least(x, 1) for x in _arrays("hstack", tup, dtype)]
    return concatenate(xs, axis=0 if len(_shape(xs[0])) == 1 else 1)


def vstack(tup: Sequence[ArrayLike], dtype: Any = None) -> Tensor | np.ndarray:
    """Join along axis 0, 1-D arrays as rows."""
    return concatenate([_at_least(x, 2) for x in _arrays("vstack", tup, dtype)], axis=0)


def dstack(tup: Sequence[ArrayLike], dtype: Any = None) -> Tensor | np.ndarray:
    """Join along axis 2, after atleast_3d."""
    return concatenate([_at_least(x, 3) for x in _arrays("dstack", tup, dtype)], axis=2)


def column_stack(tup: Sequence[ArrayLike]) -> Tensor | np.ndarray:
    """Join 1-D arrays as columns (and arrays of 2 or more axes along axis 1)."""
    xs = _arrays("column_stack", tup, None)
    return concatenate([x if len(_shape(x)) >= 2 else reshape(x, (-1, 1)) for x in xs], axis=1)


def _pairs(what: str, value: Any, shape: tuple[int | Dim, ...]) -> np.ndarray:
    """A per-axis (before, after) argument of pad as jnp.pad reads it: a number, a pair, one
    pair, or one pair per axis; as an (ndim, 2) array."""
    if isinstance(value, Tensor):
        raise TraceError(f"pad: {what} must be static, got a Tensor {value.spec}", user_site())
    _dtype(value)  # refuses None, strings and ragged lists
    arr = np.asarray(value)
    if arr.shape not in [(), (1,), (2,), (1, 2), (len(shape), 2)]:
        raise ShapeError(f"pad: {what} {value!r} must be a number, a (before, after) pair or {len(shape)} pairs for "
                         f"{shape}", user_site())
    return np.broadcast_to(arr, (len(shape), 2))


def _pad_widths(pad_width: Any, shape: tuple[int | Dim, ...]) -> np.ndarray:
    widths = _pairs("pad_width", pad_width, shape)
    if widths.dtype.kind not in "iu":
        raise ShapeError(f"pad: pad_width {pad_width!r} must hold integers, for {shape}", user_site())
    if (widths < 0).any():
        raise ShapeError(f"pad: negative pad_width {pad_width!r} for {shape}: jnp.pad refuses them too; crop by "
                         "slicing, or with fg.lax.pad, whose low and high may be negative", user_site())
    return widths


def _padded(name: str, x: Tensor | np.ndarray, widths: tuple[tuple[int, int, int], ...], value: Any
            ) -> Tensor | np.ndarray:
    """x padded by `widths` ((low, high, interior) per axis) with `value`: a static number (pad_p's
    own fill), or a traced scalar of x's dtype, set where a pad of x's places leaves False."""
    if not isinstance(value, Tensor):
        return bind(pad_p, x, widths=widths, value=_static_scalar(name, "padding value", value, _dtype(x)).array.item())
    if _shape(value) != () or value.dtype is not _dtype(x):
        raise DTypeError(f"{name}: a traced padding value must be a scalar of the operand's dtype {_dtype(x)}, got "
                         f"{value.spec}", user_site())
    placed = bind(pad_p, fnp.ones_like(x, dtype=DType.bool), widths=widths, value=False)
    return fnp.where(placed, bind(pad_p, x, widths=widths, value=False if _dtype(x) is DType.bool else 0), value)


def _pad_constant(x: Tensor | np.ndarray, widths: np.ndarray, constant_values: Any = 0) -> Tensor | np.ndarray:
    """One pad where a single value fills every side, else one per side that has its own (as jnp.pad);
    a single traced value is cast to x's dtype, as jnp.pad's."""
    if isinstance(constant_values, Tensor) and _shape(constant_values) == ():
        return _padded("pad", x, tuple((lo, hi, 0) for lo, hi in widths.tolist()), asarray(constant_values, _dtype(x)))

    def item(value: Any) -> Any:
        return _static_scalar("pad", "constant_values", value, _dtype(x)).array.item()

    # A single number is read as given, so that an error shows it as the user wrote it.
    values = (np.full(widths.shape, item(constant_values), dtype=object) if np.ndim(constant_values) == 0
              else np.vectorize(item, otypes=[object])(_pairs("constant_values", constant_values, _shape(x))))
    if len(set(values.flat)) == 1:
        return bind(pad_p, x, widths=tuple((lo, hi, 0) for lo, hi in widths.tolist()), value=values.flat[0])
    for axis, side in np.ndindex(*widths.shape):
        if widths[axis, side]:
            one_side = [(0, 0, 0)] * len(widths)
            one_side[axis] = (int(widths[axis, 0]), 0, 0) if side == 0 else (0, int(widths[axis, 1]), 0)
            x = bind(pad_p, x, widths=tuple(one_side), value=values[axis, side])
    return x


def _pad_edge(x: Tensor | np.ndarray, axis: int, low: int, high: int) -> Tensor | np.ndarray:
    n = _shape(x)[axis]
    first = [broadcast_to(_slice_axis(x, axis, 0, 1), _along(x, axis, (low,)))] if low else []
    last = [broadcast_to(_slice_axis(x, axis, n - 1, n), _along(x, axis, (high,)))] if high else []
    return concatenate(first + [x] + last, axis)


def _pad_wrap(x: Tensor | np.ndarray, axis: int, low: int, high: int) -> Tensor | np.ndarray:
    n = _shape(x)[axis]
    whole = low // n + high // n + 1
    first = [_slice_axis(x, axis, n - low % n, n)] if low % n else []
    last = [_slice_axis(x, axis, 0, high % n)] if high % n else []
    return concatenate(first + [x] * whole + last, axis)


def _pad_reflect(x: Tensor | np.ndarray, axis: int, low: int, high: int, symmetric: bool,
                 reflect_type: str = "even") -> Tensor | np.ndarray:
    """JAX's reflection, one mirror image at a time (so widths past the axis reflect again);
    reflect_type="odd" mirrors through the edge value: 2 * edge - x."""
    if reflect_type not in ("even", "odd"):
        raise TraceError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}", user_site())
    n = _shape(x)[axis]
    offset = 0 if symmetric or n == 1 else 1  # reflect leaves the edge out of its mirror image
    for before, left in ((True, low), (False, high)):
        size = _shape(x)[axis]
        edge = _slice_axis(x, axis, 0, 1) if before else _slice_axis(x, axis, size - 1, size)
        while left > 0:
            count = min(left, n - offset)
            left -= count
            size = _shape(x)[axis]
            start = offset if before else size - count - offset
            image = flip(_slice_axis(x, axis, start, start + count), axis)
            if reflect_type == "odd":
                image = fnp.subtract(fnp.multiply(2, edge), image)
                if n > 1:
                    edge = _slice_axis(image, axis, 0, 1) if before else _slice_axis(image, axis, count - 1, count)
            x = concatenate([image, x] if before else [x, image], axis)
    return x


def _pad_linear_ramp(x: Tensor | np.ndarray, axis: int, low: int, high: int, end_values: Any) -> Tensor | np.ndarray:
    """Ramps from each end value to the edge (left out), as jnp.pad: linspace in x's dtype."""
    n, dt = _shape(x)[axis], _dtype(x)
    parts = [x]
    for before, width, end in ((True, low, end_values[0]), (False, high, end_values[1])):
        if width:
            edge = reshape(_slice_axis(x, axis, 0 if before else n - 1, 1 if before else n), _along(x, axis, ()))
            ramp = fnp.linspace(end, edge, width, endpoint=False, dtype=dt, axis=axis)
            parts = [ramp] + parts if before else parts + [flip(ramp, axis)]
    return concatenate(parts, axis)


def _pad_statistic(x: Tensor | np.ndarray, axis: int, low: int, high: int, statistic: Any,
                   stat_length: Any = None) -> Tensor | np.ndarray:
    """`statistic` (max, min, mean) of the whole axis, or of `stat_length` entries at each end,
    repeated; a mean of integers is rounded, as jnp.pad."""
    n, dt = _shape(x)[axis], _dtype(x)
    lengths = (n, n) if stat_length is None else [min(int(k), n) for k in stat_length]
    if 0 in lengths:
        raise ShapeError(f"pad: stat_length {_brief(stat_length)} of 0 gives no value to pad with", user_site())
    parts = [x]
    for before, width, length in ((True, low, lengths[0]), (False, high, lengths[1])):
        if width:
            value = statistic(_slice_axis(x, axis, 0, length) if before else _slice_axis(x, axis, n - length, n),
                              axis, keepdims=True)
            if dt.is_int and _dtype(value).is_float:
                value = fnp.round(value)
            value = broadcast_to(asarray(value, dt), _along(x, axis, (width,)))
            parts = [value] + parts if before else parts + [value]
    return concatenate(parts, axis)


def _reflection(symmetric: bool) -> Any:
    return lambda x, axis, low, high, **options: _pad_reflect(x, axis, low, high, symmetric, **options)


def _statistic(name: str) -> Any:
    # fnp's reductions are read at call time: fgrad.numpy imports this module before them.
    return lambda x, axis, low, high, **options: _pad_statistic(x, axis, low, high, getattr(fnp, name), **options)


# pad's modes: how each pads one axis, and the keyword arguments it takes, with their defaults.
_PAD_MODES = {
    "edge": (_pad_edge, {}),
    "wrap": (_pad_wrap, {}),
    "reflect": (_reflection(symmetric=False), {"reflect_type": "even"}),
    "symmetric": (_reflection(symmetric=True), {"reflect_type": "even"}),
    "linear_ramp": (_pad_linear_ramp, {"end_values": 0}),
    "maximum": (_statistic("max"), {"stat_length": None}),
    "minimum": (_statistic("min"), {"stat_length": None}),
    "mean": (_statistic("mean"), {"stat_length": None}),
}
_PER_AXIS = ("end_values", "stat_length")  # keyword arguments given as (before, after) pairs


def pad(array: ArrayLike, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Tensor | np.ndarray:
    """Pad as `jnp.pad`: pad_width an int, a (before, after) pair or one pair per axis, and
    `mode` one of "constant" (constant_values: a number, a pair or one pair per axis), "empty"
    (zeros, as jnp), "edge", "wrap", "reflect" and "symmetric" (reflect_type "even" or
    "odd"), "linear_ramp" (end_values), "maximum", "minimum" and "mean" (stat_length). The
    modes are slices, reversals, broadcasts and concatenations (views), with arithmetic for
    ramps, odd reflections and statistics. Negative widths are refused, as in jnp.pad;
    fg.lax.pad crops with them."""
    x = asarray(array)
    shape = _shape(x)
    known = ("constant", "empty", *_PAD_MODES)
    if not isinstance(mode, str) or mode not in known:
        raise TraceError(f"pad: mode {mode!r} is not supported; fgrad pads in the modes {', '.join(known)}",
                         user_site())
    takes = ("constant_values",) if mode == "constant" else tuple(_PAD_MODES.get(mode, (None, {}))[1])
    unexpected = sorted(set(kwargs) - set(takes))
    if unexpected:
        raise TraceError(f"pad: unexpected keyword argument {unexpected[0]!r} for mode {mode!r}", user_site())
    widths = _pad_widths(pad_width, shape)
    if not widths.any():
        return x
    for axis in range(len(shape)):
        if widths[axis].any():
            _fixed("pad", shape, axis, "padding")
            if shape[axis] == 0 and mode not in ("constant", "empty"):  # as jnp.pad (whose mean mode pads NaN)
                raise ShapeError(f"pad: cannot apply {mode!r} padding to the empty axis {axis} of {shape}: it has no "
                                 "entries to take values from", user_site())
    if mode in ("constant", "empty"):
        return _pad_constant(x, widths, **kwargs)
    pad_axis, defaults = _PAD_MODES[mode]
    options = {**defaults, **kwargs}
    for k in _PER_AXIS:
        if options.get(k) is not None:
            options[k] = _pairs(k, options[k], shape)
    for axis, (low, high) in enumerate(widths.tolist()):
        if low or high:
            x = pad_axis(x, axis, low, high, **{k: v[axis] if k in _PER_AXIS and v is not None else v
                                                for k, v in options.items()})
    return x


def lax_pad(operand: ArrayLike, padding_value: ArrayLike,
            padding_config: Sequence[tuple[int, int, int]]) -> Tensor | np.ndarray:
    """`jax.lax.pad` (as fg.lax.pad): `padding_value` (a number, or a traced scalar of operand's
    dtype) added (low, high) at each axis's ends and `interior` between its neighbours; a negative
    low or high crops that many entries instead."""
    x = asarray(operand)
    shape = _shape(x)
    _dtype(padding_config)  # refuses None, strings and ragged lists
    config = np.asarray(padding_config) if not isinstance(padding_config, Tensor) else None
    if config is None or config.dtype.kind not in "iu" or config.shape != (len(shape), 3):
        raise ShapeError(f"lax.pad: padding_config {_brief(padding_config)} must be one (low, high, interior) triple "
                         f"of ints per axis of {shape}", user_site())
    if (config[:, 2] < 0).any():
        raise ShapeError(f"lax.pad: interior padding must not be negative, got {config.tolist()} for {shape}",
                         user_site())
    if not isinstance(padding_value, Tensor):
        _static_scalar("lax.pad", "padding_value", padding_value, _dtype(x))  # refused here, before any crop
    grown = tuple((max(int(lo), 0), max(int(hi), 0), int(mid)) for lo, hi, mid in config)
    if any(any(w) for w in grown):
        x = _padded("lax.pad", x, grown, padding_value)
    for axis, (lo, hi, _) in enumerate(config.tolist()):
        if lo < 0 or hi < 0:
            n = _fixed("lax.pad", shape, axis, "cropping")
            size = _shape(x)[axis]
            start, stop = max(-lo, 0), size - max(-hi, 0)
            if stop - start < 0:  # JAX's shape rule refuses a negative size; zero is an empty axis
                raise ShapeError(f"lax.pad: padding_config {config.tolist()} crops more than axis {axis} of {shape} "
                                 f"(size {n}) holds", user_site())
            x = _slice_axis(x, axis, start, stop)
    return x


def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> Tensor | np.ndarray:
    """The elements of `m` in reverse order along `axis` (an int, a tuple, or None for every
    axis), as `jnp.flip`."""
    m = asarray(m)
    axes = _axes("flip", _shape(m), axis)
    return bind(rev_p, m, axes=axes) if axes else m


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Tensor | np.ndarray:
    """`m` rotated by 90 degrees `k` times in the plane of `axes`, from the first axis towards
    the second, as `jnp.rot90`."""
    m = asarray(m)
    shape = _shape(m)
    if len(shape) < 2:
        raise ShapeError(f"rot90: needs at least two axes, got {shape}", user_site())
    if isinstance(k, Tensor) or not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)):
        raise TraceError(f"rot90: k must be a static integer, got {k!r}", user_site())
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise ShapeError(f"rot90: axes must be a pair of axes, got {axes!r}", user_site())
    first, second = (_one_axis("rot90", m, a) for a in axes)
    if first == second:
        raise ShapeError(f"rot90: axes {tuple(axes)} of {shape} must differ", user_site())
    perm = list(range(len(shape)))
    perm[first], perm[second] = second, first
    k = int(k) % 4
    if k == 2:
        return flip(m, (first, second))
    if k == 1:
        return transpose(flip(m, second), perm)
    return flip(transpose(m, perm), second) if k == 3 else m


# -- the array API's names, and NumPy's editing functions (static positions) ----------------------


def matrix_transpose(x: ArrayLike, /) -> Tensor | np.ndarray:
    """The matrices in the last two axes transposed, as `jnp.matrix_transpose`."""
    x = asarray(x)
    if len(_shape(x)) < 2:
        raise ShapeError(f"matrix_transpose: needs at least 2 axes, got {_shape(x)}", user_site())
    return swapaxes(x, -1, -2)


def permute_dims(a: ArrayLike, /, axes: Sequence[int]) -> Tensor | np.ndarray:
    """`transpose(a, axes)`, as `jnp.permute_dims` (the array API's name)."""
    if axes is None:  # transpose's None (reverse the axes) is no permutation here, as in JAX
        raise ShapeError(f"permute_dims: axes must be a tuple of integers for {_shape(a)}, got None", user_site())
    return transpose(a, axes)


def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> Tensor | np.ndarray:
    """`concatenate(arrays, axis)`, as `jnp.concat` (the array API's name); axis=None joins them flattened."""
    return concatenate(_operands("concat", arrays), axis)


def fliplr(m: ArrayLike) -> Tensor | np.ndarray:
    """`m` with axis 1 (its columns) reversed, as `jnp.fliplr` (at least 2-D)."""
    m = asarray(m)
    if len(_shape(m)) < 2:
        raise ShapeError(f"fliplr: needs at least 2 axes, got {_shape(m)}", user_site())
    return flip(m, 1)


def flipud(m: ArrayLike) -> Tensor | np.ndarray:
    """`m` with axis 0 (its rows) reversed, as `jnp.flipud` (at least 1-D)."""
    m = asarray(m)
    if not _shape(m):
        raise ShapeError("flipud: needs at least 1 axis, got a 0-d value", user_site())
    return flip(m, 0)


def broadcast_shapes(*shapes: int | Sequence[int]) -> tuple[int, ...]:
    """The shape `shapes` broadcast to, with NumPy's rules, as `jnp.broadcast_shapes`."""
    given = [_shape_arg("broadcast_shapes", s) for s in shapes]
    out = _broadcast_shapes(*given)
    if out is None:
        raise ShapeError(f"broadcast_shapes: cannot broadcast {' with '.join(map(str, given))}", user_site())
    return out


def broadcast_arrays(*args: ArrayLike) -> list[Tensor | np.ndarray]:
    """The arguments broadcast to one shape (each keeps its dtype), as `jnp.broadcast_arrays`."""
    xs = [asarray(a) for a in args]
    shape = broadcast_shapes(*(_shape(x) for x in xs))
    return [x if _shape(x) == shape else broadcast_to(x, shape) for x in xs]


def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> Tensor | np.ndarray:
    """`values` joined after `arr` along `axis` (both flattened if None), as `jnp.append`."""
    return concatenate([arr, values], axis)  # axis None joins them flattened, promoting first


def _static_positions(name: str, obj: Any, n: int) -> np.ndarray:
    """`obj` (an int, a slice or a 1-D sequence of ints, known while tracing) as NumPy indices."""
    if isinstance(obj, Tensor):
        raise TraceError(TRACER_INDEX.format(what=f"{name}: obj", spec=obj.spec), user_site())
    if isinstance(obj, slice):
        return np.arange(n)[obj]
    _dtype(obj)  # refuses None, strings and ragged lists, naming the function
    positions = np.asarray(obj)
    if positions.ndim > 1 or positions.size and positions.dtype.kind not in "iu":
        raise ShapeError(f"{name}: obj must be an int, a slice or a 1-D sequence of ints, got {_brief(obj)}",
                         user_site())
    return positions.astype(np.int64)


def insert(arr: ArrayLike, obj: Any, values: ArrayLike, axis: int | None = None) -> Tensor | np.ndarray:
    """`arr` with `values` inserted before the positions `obj` (static: an int, a slice or a 1-D
    sequence of ints) along `axis` (of arr flattened if None), as `jnp.insert`: arr and values
    joined, then put in order by one gather of static indices."""
    x = asarray(arr)
    if axis is None:
        x, axis = ravel(x), 0
    axis = _one_axis("insert", x, axis)
    n = _fixed("insert", _shape(x), axis, "an insert")
    positions = _static_positions("insert", obj, n)
    v = asarray(values, _dtype(x))
    v = reshape(v, (1,) * (len(_shape(x)) - len(_shape(v))) + _shape(v)) if len(_shape(v)) < len(_shape(x)) else v
    if positions.size == 1:
        if positions.ndim == 0:
            v = moveaxis(v, 0, axis)
        positions = np.full(_shape(v)[axis], positions.reshape(-1)[0])
    given = _shape(v)[axis]
    count = positions.size if given in (1, positions.size) else given if positions.size == 1 else None
    if count is None:
        raise ShapeError(f"insert: values of shape {_shape(values)} do not fit {positions.size} insertions along "
                         f"axis {axis} of {_shape(x)}", user_site())
    positions = np.clip(np.where(positions < 0, positions + n, positions), 0, n)
    placed = positions.copy()
    placed[np.argsort(positions, kind="stable")] += np.arange(count)  # each value's place in the result
    order = np.empty(n + count, np.int32)
    order[placed] = n + np.arange(count)
    order[np.setdiff1d(np.arange(n + count), placed)] = np.arange(n)
    target = tuple(count if k == axis else d for k, d in enumerate(_shape(x)))
    try:
        v = broadcast_to(v, target)
    except ShapeError:
        raise ShapeError(f"insert: values of shape {_shape(values)} do not fit {count} insertions along axis "
                         f"{axis} of {_shape(x)}", user_site()) from None
    return fnp.take(concatenate([x, v], axis), order, axis=axis)


def delete(arr: ArrayLike, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False
           ) -> Tensor | np.ndarray:
    """`arr` without the entries at positions `obj` (static: an int, a slice, a sequence of ints
    or a bool mask) along `axis` (of arr flattened if None), as `jnp.delete`: one gather of the
    static indices kept."""
    x = asarray(arr)
    if axis is None:
        x, axis = ravel(x), 0
    axis = _one_axis("delete", x, axis)
    n = _fixed("delete", _shape(x), axis, "a delete")
    if isinstance(obj, Tensor):
        raise TraceError(TRACER_INDEX.format(what="delete: obj", spec=obj.spec), user_site())
    keep = np.ones(n, bool)
    if not isinstance(obj, slice) and _dtype(obj) is DType.bool:
        if np.shape(obj) != (n,):
            raise ShapeError(f"delete: a bool obj must be 1-D of length {n} (axis {axis} of {_shape(x)}), got "
                             f"{np.shape(obj)}", user_site())
        keep = ~np.asarray(obj)
    else:
        positions = _static_positions("delete", obj, n)
        if positions.size and not (-n <= positions.min() and positions.max() < n):
            raise ShapeError(f"delete: index {positions.max() if positions.max() >= n else positions.min()} is out "
                             f"of bounds for axis {axis} with size {n}", user_site())
        keep[positions] = False
    return fnp.take(x, np.flatnonzero(keep).astype(np.int32), axis=axis)


def resize(a: ArrayLike, new_shape: int | Sequence[int]) -> Tensor | np.ndarray:
    """`a` flattened, repeated as often as needed and cut to fill `new_shape`, as `jnp.resize`."""
    shape = _shape_arg("resize", new_shape)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise ShapeError(f"resize: all elements of new_shape must be non-negative, got {shape}", user_site())
    x = ravel(a)
    size = math.prod(shape)
    if not _shape(x)[0]:  # nothing to repeat: zeros, as jnp.resize
        return fnp.zeros(shape, _dtype(x))
    repeats = -(-size // _shape(x)[0])
    return reshape(tile(x, repeats)[:size], shape)


def _block(name: str, xs: Any) -> tuple[Tensor | np.ndarray, int]:
    if isinstance(xs, tuple):
        raise ShapeError(f"{name}: nests lists, not tuples, as jax.numpy", user_site())
    if not isinstance(xs, list):
        return asarray(xs), 1
    if not xs:
        raise ShapeError(f"{name}: empty lists are not allowed", user_site())
    parts = [_block(name, x) for x in xs]
    depth = parts[0][1]
    if any(d != depth for _, d in parts):
        raise ShapeError(f"{name}: the lists are nested to different depths", user_site())
    rank = max(depth, *(len(_shape(p)) for p, _ in parts))
    padded = [reshape(p, (1,) * (rank - len(_shape(p))) + _shape(p)) for p, _ in parts]
    return concatenate(padded, -depth), depth + 1


def block(arrays: Any) -> Tensor | np.ndarray:
    """One array from nested lists of blocks, as `jnp.block`: the innermost lists are joined
    along the last axis, the next along the one before, ... (blocks padded to rank with leading 1s)."""
    return _block("block", arrays)[0]


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Tensor | np.ndarray:
    """`filt` without its leading ("f" in `trim`) and trailing ("b") zeros along each axis in
    `axis` (all by default), a slice along an axis ending where an entry off it is nonzero, as
    `jnp.trim_zeros`. `filt` must be concrete: its values decide the result's shape."""
    if isinstance(filt, Tensor):
        raise TraceError(f"trim_zeros: the result's shape depends on the values of the traced {filt.spec}; fgrad's "
                         "shapes are static, so filt must be concrete (as in jax.numpy)", user_site())
    if not isinstance(trim, str):
        raise ShapeError(f"trim_zeros: trim must be a string of 'f' and 'b', got {_brief(trim)}", user_site())
    x = asarray(filt)
    values = np.asarray(x)
    axes = set(_axes("trim_zeros", values.shape, axis)) if values.ndim else set()
    trim = trim.lower()
    if not axes or ("f" not in trim and "b" not in trim):
        return x
    cuts = []
    for ax in range(values.ndim):
        if ax not in axes:
            cuts.append(slice(None))
            continue
        nonzero = values.any(axis=tuple(k for k in range(values.ndim) if k != ax))
        if not nonzero.any():
            cuts.append(slice(0, 0))
            continue
        start = int(nonzero.argmax()) if "f" in trim else None
        stop = values.shape[ax] - int(nonzero[::-1].argmax()) if "b" in trim else None
        cuts.append(slice(start, stop))
    return x[tuple(cuts)]
