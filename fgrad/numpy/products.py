"""Products: matmul, dot, vdot, inner, outer, tensordot and einsum.

Every contraction is written as transposes and reshapes around one batched matmul: the shared
labels that stay are batch dims, the summed ones are merged into k, each operand's own ones
into m and n. einsum contracts its operands pairwise, greedily: first the pair that costs the
fewest multiplications.
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import Dim, DType
from fgrad.primitives import matmul_p
from fgrad.trace import Tensor, bind, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _as_dtype, _broadcast_shapes, _brief, _dtype, _float_dtype, _no_sharding, _shape, asarray,
    result_dtype,
)
from fgrad.numpy.shapes import (
    _axes_in_order, _diagonal, _no_out, _static_int, atleast_2d, concatenate, moveaxis, ravel, reshape, squeeze, stack,
    transpose,
)
from fgrad.numpy.elementwise import abs as _abs, astype, clip, divide, greater, multiply, sqrt, subtract
from fgrad.numpy.reductions import average, sum as _sum

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "dot", "einsum", "einsum_path", "inner", "matmul", "outer", "tensordot", "vdot",
    "corrcoef", "cov", "cross", "kron", "matvec", "vecdot", "vecmat",
]

Labels = tuple[str, ...]


def matmul(a: ArrayLike, b: ArrayLike, *, precision: Any = None, preferred_element_type: Any = None,
           out_sharding: Any = None) -> Tensor | np.ndarray:
    """Matrix product with NumPy's rules: 1-D operands are vectors, batch dims broadcast;
    bools give bool (an or of ands), as in jax.numpy. `preferred_element_type` and `precision`
    as `dot`'s; `out_sharding` must be None."""
    _no_sharding("matmul", out_sharding)
    a, b, is_bool = _product_operands("matmul", a, b, preferred_element_type)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        raise ShapeError(f"matmul: operands must be at least 1-D, got {sa} @ {sb}", user_site())
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    if a2[-1] != b2[-2]:
        raise ShapeError(f"matmul: inner dimensions differ: {sa} @ {sb}", user_site())
    batch = _broadcast_shapes(a2[:-2], b2[:-2])
    if batch is None:
        raise ShapeError(f"matmul: batch dimensions {a2[:-2]} and {b2[:-2]} do not broadcast in {sa} @ {sb}",
                         user_site())
    rank = len(batch) + 2
    a = reshape(a, (1,) * (rank - len(a2)) + a2)
    b = reshape(b, (1,) * (rank - len(b2)) + b2)
    out = bind(matmul_p, a, b)
    shape = batch + ((a2[-2],) if len(sa) > 1 else ()) + ((b2[-1],) if len(sb) > 1 else ())
    return _finish(reshape(out, shape), is_bool)


# -- the contraction engine: operands with a label per axis ------------------------------


def _compute_dtype(name: str, operands: Sequence[ArrayLike], preferred: Any) -> tuple[DType, bool]:
    """The dtype products are computed in, and whether the result is bool: bools are counted
    in i32 and the result is `count > 0` (an or of ands), as jax.numpy's bool products."""
    dt = result_dtype(*operands) if preferred is None else _as_dtype(preferred, name)
    return (DType.i32, True) if dt is DType.bool else (dt, False)


def _finish(out: Tensor | np.ndarray, is_bool: bool) -> Tensor | np.ndarray:
    return greater(out, 0) if is_bool else out


def _merged(name: str, sizes: Sequence[int | Dim]) -> int | Dim:
    """The size of axes merged into one: a symbol only alone (fgrad forms no product with one)."""
    if len(sizes) == 1:
        return sizes[0]
    symbol = next((d for d in sizes if isinstance(d, Dim)), None)
    if symbol is not None:
        raise ShapeError(f"{name}: merging the axes of sizes {tuple(sizes)} for a matrix product would form a product "
                         f"with the symbol {symbol}; fgrad forms none", user_site())
    return math.prod(sizes)


def _sizes(x: Tensor | np.ndarray, labels: Labels) -> dict[str, int | Dim]:
    return dict(zip(labels, _shape(x)))


def _sum_out(x: Tensor | np.ndarray, labels: Labels, keep: set[str]) -> tuple[Tensor | np.ndarray, Labels]:
    """Sum the axes whose labels are not in `keep`."""
    axes = tuple(k for k, label in enumerate(labels) if label not in keep)
    if not axes:
        return x, labels
    return _sum(x, axes), tuple(label for label in labels if label in keep)


def _diagonals(x: Tensor | np.ndarray, labels: Labels) -> tuple[Tensor | np.ndarray, Labels]:
    """The diagonal of each label repeated in one operand (einsum's 'ii->i'), one repeat at a time."""
    for label in labels:
        if labels.count(label) > 1:
            i = labels.index(label)
            j = labels.index(label, i + 1)
            rest = tuple(lab for k, lab in enumerate(labels) if k not in (i, j))
            return _diagonals(_diagonal("einsum", x, 0, i, j), rest + (label,))
    return x, labels


def _order(x: Tensor | np.ndarray, labels: Labels, order: Labels) -> Tensor | np.ndarray:
    return transpose(x, tuple(labels.index(label) for label in order))


def _pair(name: str, a: Tensor | np.ndarray, la: Labels, b: Tensor | np.ndarray, lb: Labels,
          keep: set[str]) -> tuple[Tensor | np.ndarray, Labels]:
    """Contract a with b over their shared labels that `keep` does not hold; the shared ones it
    holds are batch dims. One batched matmul (batch, m, k) @ (batch, k, n); where nothing is
    summed, a broadcast product instead."""
    a, la = _sum_out(a, la, keep | set(lb))
    b, lb = _sum_out(b, lb, keep | set(la))
    sa, sb = _sizes(a, la), _sizes(b, lb)
    summed = [label for label in la if label in lb and label not in keep]
    # A summed label of size 1 on one side and n on the other (einsum broadcasts size-1 axes):
    # sum_k a_0 b_k = a_0 sum_k b_k, so the longer side is summed alone and the label drops out.
    for label in [label for label in summed if sa[label] != sb[label]]:
        summed.remove(label)
        a, la = _sum_out(a, la, set(la) - {label})
        b, lb = _sum_out(b, lb, set(lb) - {label})
    batch = [label for label in la if label in lb and label not in summed]
    own_a = [label for label in la if label not in lb]
    own_b = [label for label in lb if label not in la]
    out_labels = tuple(batch + own_a + own_b)
    shape_a = [sa[label] for label in batch]
    shape_b = [sb[label] for label in batch]
    if not summed:
        a = reshape(_order(a, la, tuple(batch + own_a)), (*shape_a, *(sa[x] for x in own_a), *(1 for _ in own_b)))
        b = reshape(_order(b, lb, tuple(batch + own_b)), (*shape_b, *(1 for _ in own_a), *(sb[x] for x in own_b)))
        return multiply(a, b), out_labels
    m = _merged(name, [sa[x] for x in own_a] or [1])
    n = _merged(name, [sb[x] for x in own_b] or [1])
    k = _merged(name, [sa[x] for x in summed])
    a = reshape(_order(a, la, tuple(batch + own_a + summed)), (*shape_a, m, k))
    b = reshape(_order(b, lb, tuple(batch + summed + own_b)), (*shape_b, k, n))
    out = bind(matmul_p, a, b)
    return reshape(out, (*_shape(out)[:len(batch)], *(sa[x] for x in own_a), *(sb[x] for x in own_b))), out_labels


def _contract(name: str, operands: list[tuple[Tensor | np.ndarray, Labels]], out: Labels,
              path: Sequence[Sequence[int]] | None,
              taken: list[tuple[tuple[int, ...], list[Labels], Labels]] | None = None) -> Tensor | np.ndarray:
    """Contract labelled operands into the labels `out`: diagonals first, then pairs (along
    `path`, or greedily), then the sums and the transpose that remain. Each step is appended to
    `taken`: the positions contracted, their labels and the result's."""
    operands = [_diagonals(x, labels) for x, labels in operands]
    steps = iter(path) if path is not None else None
    while len(operands) > 1:
        chosen = next(steps, None) if steps is not None else _greedy(operands, out)
        if chosen is None:  # a path shorter than the operands: the rest in order
            chosen = (0, 1)
        chosen = sorted(chosen, reverse=True)
        group = [operands.pop(i) for i in chosen][::-1]
        rest = {label for _, labels in operands for label in labels} | set(out)
        x, labels = group[0]
        for g, (y, ly) in enumerate(group[1:], 1):
            later = rest | {label for _, lz in group[g + 1:] for label in lz}
            x, labels = _pair(name, x, labels, y, ly, later)
        if len(group) == 1:
            x, labels = _sum_out(x, labels, rest)
        if taken is not None:
            taken.append((tuple(sorted(chosen)), [ls for _, ls in group], labels))
        operands.append((x, labels))
    x, labels = _sum_out(*operands[0], set(out))
    return _order(x, labels, out)


def _greedy(operands: list[tuple[Tensor | np.ndarray, Labels]], out: Labels) -> tuple[int, int]:
    """The next pair: one that shares a label (outer products last), with the fewest
    multiplications (the product of the sizes of all its labels), then the smallest result."""
    def size(sizes: dict[str, int | Dim], labels: set[str]) -> int:
        return math.prod(d.max if isinstance(d, Dim) else d for label, d in sizes.items() if label in labels)

    best = None
    for i, j in itertools.combinations(range(len(operands)), 2):
        (x, lx), (y, ly) = operands[i], operands[j]
        sizes = {**_sizes(y, ly), **_sizes(x, lx)}
        rest = {label for k, (_, lz) in enumerate(operands) if k not in (i, j) for label in lz} | set(out)
        key = (not set(lx) & set(ly), size(sizes, set(lx) | set(ly)), size(sizes, (set(lx) | set(ly)) & rest), i, j)
        best = key if best is None or key < best else best
    return best[-2], best[-1]


# -- the public products ----------------------------------------------------------------


def _product_operands(name: str, a: ArrayLike, b: ArrayLike,
                      preferred: Any) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray, bool]:
    dt, is_bool = _compute_dtype(name, (a, b), preferred)
    return asarray(a, dt), asarray(b, dt), is_bool


def _tensordot(name: str, a: Tensor | np.ndarray, b: Tensor | np.ndarray, axes_a: Sequence[int],
               axes_b: Sequence[int]) -> Tensor | np.ndarray:
    """Sum over the pairs of axes (axes_a[i], axes_b[i]) (checked), the rest of a's axes then b's."""
    sa, sb = _shape(a), _shape(b)
    for i, j in zip(axes_a, axes_b):
        if sa[i] != sb[j]:
            raise ShapeError(f"{name}: axis {i} of {sa} (size {sa[i]}) and axis {j} of {sb} (size {sb[j]}) differ",
                             user_site())
    la = tuple(f"a{i}" for i in range(len(sa)))
    lb = tuple(la[axes_a[list(axes_b).index(j)]] if j in axes_b else f"b{j}" for j in range(len(sb)))
    out = tuple(label for label in la + lb if label not in set(la) & set(lb))
    return _contract(name, [(a, la), (b, lb)], out, None)


def dot(a: ArrayLike, b: ArrayLike, *, precision: Any = None, preferred_element_type: Any = None,
        out_sharding: Any = None) -> Tensor | np.ndarray:
    """NumPy's dot: with a scalar, a product; otherwise the sum over a's last axis and b's
    second to last (its only one if 1-D): dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m]).
    Bools give bool. `preferred_element_type` sets the dtype products are computed and returned
    in; `precision` is accepted for JAX's signature: fgrad's f32 products are f32 throughout.
    `out_sharding` must be None (fgrad runs on one device)."""
    _no_sharding("dot", out_sharding)
    a, b, is_bool = _product_operands("dot", a, b, preferred_element_type)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return _finish(multiply(a, b), is_bool)
    return _finish(_tensordot("dot", a, b, (len(sa) - 1,), (max(len(sb) - 2, 0),)), is_bool)


def vdot(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
         preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """The dot product of a and b flattened (of equal sizes)."""
    a, b, is_bool = _product_operands("vdot", a, b, preferred_element_type)
    a, b = ravel(a), ravel(b)
    return _finish(_tensordot("vdot", a, b, (0,), (0,)), is_bool)


def inner(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
          preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """The sum over the last axes of a and b: inner(a, b)[i, j] = sum(a[i, :] * b[j, :]); with
    a scalar, a product."""
    a, b, is_bool = _product_operands("inner", a, b, preferred_element_type)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return _finish(multiply(a, b), is_bool)
    return _finish(_tensordot("inner", a, b, (len(sa) - 1,), (len(sb) - 1,)), is_bool)


def outer(a: ArrayLike, b: ArrayLike, out: None = None) -> Tensor | np.ndarray:
    """out[i, j] = a.ravel()[i] * b.ravel()[j]."""
    _no_out("outer", out)
    dt = result_dtype(a, b)  # before the reshapes, so a Python number stays weak
    return multiply(reshape(asarray(a, dt), (-1, 1)), reshape(asarray(b, dt), (1, -1)))


def tensordot(a: ArrayLike, b: ArrayLike, axes: int | Sequence[int] | Sequence[Sequence[int]] = 2, *,
              precision: Any = None, preferred_element_type: Any = None, out_sharding: Any = None
              ) -> Tensor | np.ndarray:
    """Sum over pairs of axes: `axes` an int N (a's last N with b's first N) or a pair of axis
    sequences (or of ints); the result has a's other axes, then b's. `precision`,
    `preferred_element_type` and `out_sharding` as `dot`'s."""
    _no_sharding("tensordot", out_sharding)
    a, b, is_bool = _product_operands("tensordot", a, b, preferred_element_type)
    sa, sb = _shape(a), _shape(b)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, (bool, np.bool_)):
        if not 0 <= axes <= min(len(sa), len(sb)):
            raise ShapeError(f"tensordot: axes={axes} does not fit the ranks of {sa} and {sb}", user_site())
        pairs = (tuple(range(len(sa) - axes, len(sa))), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        pairs = tuple(_axes_in_order("tensordot", shape, side) for side, shape in zip(axes, (sa, sb)))
        if len(pairs[0]) != len(pairs[1]):
            raise ShapeError(f"tensordot: axes {axes} pair {len(pairs[0])} axes of {sa} with {len(pairs[1])} of {sb}",
                             user_site())
    else:
        raise ShapeError(f"tensordot: axes must be an int or a pair of axis sequences, got {_brief(axes)}", user_site())
    return _finish(_tensordot("tensordot", a, b, *pairs), is_bool)


def _vectors(name: str, x: ArrayLike, axis: int, what: str = "x") -> Tensor | np.ndarray:
    """x with its vector axis `axis` moved last (x at least 1-D)."""
    x = asarray(x)
    shape = _shape(x)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise ShapeError(f"{name}: axis must be a single integer, got {_brief(axis)}", user_site())
    if not shape or not -len(shape) <= axis < len(shape):
        raise ShapeError(f"{name}: axis {axis} is out of range for {what} of shape {shape}", user_site())
    return moveaxis(x, axis, -1)


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """The dot products of the vectors along `axis` of x1 and of x2, the other axes broadcast,
    as `jnp.vecdot`: one batched matmul."""
    a, b = _vectors("vecdot", x1, axis, "x1"), _vectors("vecdot", x2, axis, "x2")
    if _shape(a)[-1] != _shape(b)[-1]:
        raise ShapeError(f"vecdot: axis {axis} of {_shape(x1)} and of {_shape(x2)} differ", user_site())
    return einsum("...i,...i->...", a, b, preferred_element_type=preferred_element_type)


def matvec(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """Matrices (..., m, n) times vectors (..., n), batch axes broadcast, as `jnp.matvec`."""
    return _matrix_vector("matvec", x1, x2, "...ij,...j->...i")


def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> Tensor | np.ndarray:
    """Vectors (..., m) times matrices (..., m, n), batch axes broadcast, as `jnp.vecmat`."""
    return _matrix_vector("vecmat", x1, x2, "...i,...ij->...j")


def _matrix_vector(name: str, x1: ArrayLike, x2: ArrayLike, subscripts: str) -> Tensor | np.ndarray:
    s1, s2 = _shape(x1), _shape(x2)
    matrix, vector = (s1, s2) if name == "matvec" else (s2, s1)
    if len(matrix) < 2 or not vector or vector[-1] != matrix[-1 if name == "matvec" else -2]:
        raise ShapeError(f"{name}: needs a matrix (..., m, n) and a vector of its inner size, got {s1} and {s2}",
                         user_site())
    return einsum(subscripts, x1, x2)


def kron(a: ArrayLike, b: ArrayLike) -> Tensor | np.ndarray:
    """The Kronecker product, as `jnp.kron`: every entry of a times all of b, in blocks (the
    ranks aligned on the right): a broadcast product, reshaped. Bools are refused, as in jax.numpy."""
    if result_dtype(a, b) is DType.bool:
        raise DTypeError("kron: bool operands are not supported, as in jax.numpy; astype('i32') first", user_site())
    dtype = result_dtype(a, b)  # a Python number takes the other operand's dtype (weakly typed)
    a, b = asarray(a, dtype), asarray(b, dtype)
    sa, sb = _shape(a), _shape(b)
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    spread_a = reshape(a, tuple(d for n in sa for d in (n, 1)))
    spread_b = reshape(b, tuple(d for n in sb for d in (1, n)))
    return reshape(multiply(spread_a, spread_b), tuple(i * j for i, j in zip(sa, sb)))


def cross(a: ArrayLike, b: ArrayLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Tensor | np.ndarray:
    """The cross product of the 2- or 3-vectors along axisa of a and axisb of b (`axis` sets all
    three), the other axes broadcast, as `jnp.cross`: 3-vectors along axisc; two 2-vectors give
    the z component alone (a 2-vector's z is 0). Bools are refused, as in jax.numpy."""
    if axis is not None:
        axisa = axisb = axisc = axis
    if result_dtype(a, b) is DType.bool:
        raise DTypeError("cross: bool operands are not supported, as in jax.numpy; astype('i32') first", user_site())
    dt = result_dtype(a, b)
    u, v = _vectors("cross", asarray(a, dt), axisa, "a"), _vectors("cross", asarray(b, dt), axisb, "b")
    nu, nv = _shape(u)[-1], _shape(v)[-1]
    if nu not in (2, 3) or nv not in (2, 3):
        raise ShapeError(f"cross: the vectors must have 2 or 3 components, got {nu} (axis {axisa} of {_shape(a)}) "
                         f"and {nv} (axis {axisb} of {_shape(b)})", user_site())
    u0, u1, v0, v1 = u[..., 0], u[..., 1], v[..., 0], v[..., 1]
    z = subtract(multiply(u0, v1), multiply(u1, v0))
    if nu == nv == 2:
        return z
    if nu == 2:
        x, y = multiply(u1, v[..., 2]), multiply(-1, multiply(u0, v[..., 2]))
    elif nv == 2:
        x, y = multiply(-1, multiply(u[..., 2], v1)), multiply(u[..., 2], v0)
    else:
        x = subtract(multiply(u1, v[..., 2]), multiply(u[..., 2], v1))
        y = subtract(multiply(u[..., 2], v0), multiply(u0, v[..., 2]))
    out = stack([x, y, z], axis=-1)
    if not -len(_shape(out)) <= axisc < len(_shape(out)):
        raise ShapeError(f"cross: axisc {axisc} is out of range for the result's {len(_shape(out))} axes", user_site())
    return moveaxis(out, -1, axisc)


def cov(m: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: ArrayLike | None = None, aweights: ArrayLike | None = None, dtype: Any = None
        ) -> Tensor | np.ndarray:
    """The covariance matrix of the variables in m's rows (columns unless `rowvar`), y's joined
    after them, as `jnp.cov`: the centred rows times their transpose, over the count of
    observations less `ddof` (1, or 0 with `bias`), weighted by `fweights` (integer repeats) and
    `aweights`; in f32 (or `dtype`), a scalar for one variable."""
    dt = _as_dtype(dtype, "cov") if dtype is not None else None
    if dt is not None and not dt.is_float:
        raise ShapeError(f"cov: dtype must be a float dtype, got {dt}", user_site())
    work = dt or _float_dtype(result_dtype(m) if y is None else result_dtype(m, y))
    for what, v in (("m", m), ("y", y)):
        if v is not None and len(_shape(v)) > 2:
            raise ShapeError(f"cov: {what} has more than 2 axes: {_shape(v)}", user_site())
    x = atleast_2d(asarray(m, work))
    if not rowvar and len(_shape(m)) != 1:
        x = transpose(x)
    if y is not None:
        y2 = atleast_2d(asarray(y, work))
        x = concatenate([x, transpose(y2) if not rowvar and _shape(y2)[0] != 1 else y2], axis=0)
    n = _shape(x)[1]
    ddof = (0 if bias else 1) if ddof is None else _static_int("cov", "ddof", ddof)
    w = None
    for what, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is not None and _shape(weights) != (n,):
            raise ShapeError(f"cov: {what} must be 1-D with one weight per observation ({n}), got {_shape(weights)}",
                             user_site())
    if fweights is not None:
        if not _dtype(fweights).is_int:
            raise ShapeError(f"cov: fweights must be integers, got {_dtype(fweights)}", user_site())
        w = astype(_abs(fweights), work)
    if aweights is not None:
        a = astype(_abs(aweights), work)
        w = a if w is None else multiply(w, a)
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    if w is None:
        fact: Any = n - ddof
    elif ddof == 0:
        fact = w_sum[0]
    elif aweights is None:
        fact = subtract(w_sum[0], ddof)
    else:
        fact = subtract(w_sum[0], divide(multiply(ddof, _sum(multiply(w, astype(_abs(aweights), work)))), w_sum[0]))
    centred = subtract(x, reshape(avg, (-1, 1)))
    weighted = centred if w is None else multiply(centred, reshape(w, (1, -1)))
    return squeeze(divide(matmul(centred, transpose(weighted)), fact))


def corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, dtype: Any = None
             ) -> Tensor | np.ndarray:
    """Pearson correlation coefficients of the variables (`cov`'s arguments), as `jnp.corrcoef`:
    cov(i, j) / sqrt(cov(i, i) cov(j, j)), clipped to [-1, 1]; for one variable, c / c."""
    c = cov(x, y, rowvar, dtype=dtype)
    if not _shape(c):
        return divide(c, c)
    n = _shape(c)[0]
    stddev = sqrt(_diagonal("corrcoef", c, 0, 0, 1))
    return clip(divide(divide(c, reshape(stddev, (n, 1))), reshape(stddev, (1, n))), -1, 1)


# -- einsum ------------------------------------------------------------------------------


_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # sublist integer k is _LETTERS[k], as in NumPy


def einsum(subscripts: Any, *operands: Any, out: None = None, optimize: Any = "auto", precision: Any = None,
           preferred_element_type: Any = None, out_sharding: Any = None) -> Tensor | np.ndarray:
    """Einstein summation, as `jnp.einsum`: 'ij,jk->ik', implicit outputs ('ij,jk': the labels
    seen once, sorted), '...' for broadcast leading axes, repeated labels in one operand
    (diagonals: 'ii->i', traces: 'ii'), labels summed away; also NumPy's sublist form
    `einsum(a, [0, 1], b, [1, 2], [0, 2])`. Axes of size 1 broadcast against their label's size.
    Contractions are pairwise, each one batched matmul, in a greedy order (or the one given as
    an opt_einsum path in `optimize`); `precision` is accepted for JAX's signature, and
    `out_sharding` must be None."""
    _no_out("einsum", out)
    _no_sharding("einsum", out_sharding)
    return _einsum(subscripts, operands, optimize, preferred_element_type)


def _einsum(subscripts: Any, operands: tuple[Any, ...], optimize: Any, preferred_element_type: Any = None,
            taken: list[tuple[tuple[int, ...], list[Labels], Labels]] | None = None) -> Tensor | np.ndarray:
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists(subscripts, operands)
    terms, output = _parse(subscripts, operands)
    path = _path(optimize, len(operands))
    dt, is_bool = _compute_dtype("einsum", operands, preferred_element_type)
    xs = [asarray(x, dt) for x in operands]
    labelled = [(x, _labels(term, _shape(x), k, subscripts)) for k, (x, term) in enumerate(zip(xs, terms))]
    ellipsis = max((sum(label.startswith(".") for label in labels) for _, labels in labelled), default=0)
    out_labels = _output(output, labelled, ellipsis, subscripts)
    _check_sizes(labelled, subscripts)
    return _finish(_contract("einsum", labelled, out_labels, path, taken), is_bool)


def einsum_path(subscripts: Any, /, *operands: Any, optimize: Any = "auto") -> tuple[list[tuple[int, ...]], str]:
    """The order in which `einsum` contracts `operands`, as `jnp.einsum_path`: (path, description).
    The path is opt_einsum's (each step names positions in the list of operands left, the result
    joining its end), which `einsum(..., optimize=path)` takes; the description lists each step's
    contraction. A strategy name in `optimize` gives fgrad's one order (greedy: pairs sharing a
    label, fewest multiplications first); a path is checked and followed. Only the operands'
    shapes and dtypes are read (arrays, or `fg.ShapeDtypeStruct`s)."""
    from fgrad.trace import eval_shape  # NOTE: tracing needs the operands only as shapes

    taken: list[tuple[tuple[int, ...], list[Labels], Labels]] = []
    eval_shape(lambda *xs: _einsum(subscripts, xs, optimize, taken=taken), *operands)

    def shown(labels: Labels) -> str:  # a broadcast axis's label is "." and its position: "..." for them all
        return "".join(dict.fromkeys(label if len(label) == 1 else "..." for label in labels))

    lines = [f"  Complete contraction:  {subscripts}", "  fgrad's order:"]
    lines += [f"  {k}. {step}: {','.join(map(shown, before))}->{shown(after)}"
              for k, (step, before, after) in enumerate(taken, 1)]
    if not taken and len(operands) == 1:  # one operand (its diagonals and sums): opt_einsum's step (0,)
        taken.append(((0,), [], ()))
        lines.append(f"  1. (0,): {subscripts}")
    return [step for step, _, _ in taken], "\n".join(lines)


def _from_sublists(first: Any, rest: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """NumPy's form einsum(a, [0, 1], b, [1, 2], [0, 2]) as a subscripts string and operands."""
    args = (first, *rest)
    output, pairs = (args[-1], args[:-1]) if len(args) % 2 else (None, args)  # an odd count ends with the output
    operands, terms = pairs[0::2], pairs[1::2]

    def letters(sublist: Any) -> str:
        if not isinstance(sublist, (list, tuple)):
            raise ShapeError(f"einsum: expected a subscripts string or sublists of ints, got {_brief(sublist)}",
                             user_site())
        text = ""
        for s in sublist:
            if s is Ellipsis:
                text += "..."
            elif isinstance(s, (int, np.integer)) and 0 <= s < len(_LETTERS):
                text += _LETTERS[s]
            else:
                raise ShapeError(f"einsum: sublist entry {s!r} must be an int in 0..{len(_LETTERS) - 1} or ...",
                                 user_site())
        return text

    subscripts = ",".join(letters(t) for t in terms) + ("" if output is None else "->" + letters(output))
    return subscripts, tuple(operands)


def _parse(subscripts: str, operands: tuple[Any, ...]) -> tuple[list[str], str | None]:
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ShapeError(f"einsum: {subscripts!r} names {len(terms)} operand{'s' * (len(terms) != 1)} but "
                         f"{len(operands)} {'were' if len(operands) != 1 else 'was'} given", user_site())
    for term in terms + ([output] if arrow else []):
        bad = next((c for c in term.replace("...", "") if c not in _LETTERS), None)
        if bad is not None or term.count("...") > 1:
            raise ShapeError(f"einsum: invalid subscript {bad or '...'!r} in {subscripts!r}: labels are letters, with "
                             "at most one ... per term", user_site())
    return terms, output if arrow else None


def _labels(term: str, shape: tuple[int | Dim, ...], k: int, subscripts: str) -> Labels:
    """One label per axis: the letters, and '...' as labels '.0', '.1', ... numbered from the
    end, so that the ellipses of operands of different ranks line up on the right."""
    before, dots, after = term.partition("...")
    extra = len(shape) - len(before) - len(after)
    if (extra < 0) or (not dots and extra):
        raise ShapeError(f"einsum: subscript {term!r} of {subscripts!r} has {len(before) + len(after)} labels for "
                         f"operand {k} of shape {shape}", user_site())
    return tuple(before) + tuple(f".{extra - 1 - i}" for i in range(extra)) + tuple(after)


def _output(output: str | None, labelled: list[tuple[Any, Labels]], ellipsis: int, subscripts: str) -> Labels:
    """The output labels: as given, or (implicit) the ellipsis then the letters seen exactly once, sorted."""
    dots = tuple(f".{ellipsis - 1 - i}" for i in range(ellipsis))
    seen = [label for _, labels in labelled for label in labels if not label.startswith(".")]
    if output is None:
        return dots + tuple(sorted(label for label in set(seen) if seen.count(label) == 1))
    before, _, after = output.partition("...")
    labels = tuple(before) + (dots if "..." in output else ()) + tuple(after)
    for label in labels:
        if labels.count(label) > 1:
            raise ShapeError(f"einsum: output label {label!r} appears more than once in {subscripts!r}", user_site())
        if not label.startswith(".") and label not in seen:
            raise ShapeError(f"einsum: output label {label!r} of {subscripts!r} is in no operand", user_site())
    return labels  # without '...', the ellipsis axes are summed away, as in JAX


def _check_sizes(labelled: list[tuple[Any, Labels]], subscripts: str) -> None:
    """Each label has one size across the operands, but for axes of size 1, which broadcast."""
    sizes: dict[str, tuple[int | Dim, int]] = {}
    for k, (x, labels) in enumerate(labelled):
        for label in dict.fromkeys(labels):
            axes = tuple(d for lab, d in zip(labels, _shape(x)) if lab == label)
            if len(set(axes)) > 1:
                raise ShapeError(f"einsum: label {label!r} repeats in operand {k} of {subscripts!r} over axes of "
                                 f"different sizes {axes} in {_shape(x)}", user_site())
        for label, d in zip(labels, _shape(x)):
            seen = sizes.setdefault(label, (d, k))
            if d != seen[0] and 1 not in (d, seen[0]):
                what = "the ellipsis" if label.startswith(".") else f"label {label!r}"
                raise ShapeError(f"einsum: {what} of {subscripts!r} has size {d} in operand {k} "
                                 f"{_shape(x)} but {seen[0]} in operand {seen[1]}", user_site())
            if seen[0] == 1:
                sizes[label] = (d, k)


def _path(optimize: Any, count: int) -> list[tuple[int, ...]] | None:
    """An explicit contraction path (opt_einsum's: each step names positions in the current
    list of operands; the result goes to its end), or None for the greedy order."""
    if isinstance(optimize, (bool, str)) or optimize is None:  # a strategy: fgrad's is greedy
        return None
    steps = list(optimize)
    if steps and steps[0] == "einsum_path":  # np.einsum_path's output
        steps = steps[1:]
    if not all(isinstance(s, (tuple, list)) and s and all(isinstance(i, (int, np.integer)) for i in s) for s in steps):
        raise TraceError(f"einsum: optimize={_brief(optimize)} must be a strategy name or a contraction path, a list "
                         "of tuples of operand positions", user_site())
    left = count
    for s in steps:
        if len(set(s)) != len(s) or not all(0 <= i < left for i in s):
            raise ShapeError(f"einsum: path step {tuple(s)} names operands outside 0..{left - 1}", user_site())
        left -= len(s) - 1
    return [tuple(int(i) for i in s) for s in steps]
