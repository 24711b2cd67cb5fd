"""jax.lax's reductions over explicit axes, arg-extremes, dot products by dimension numbers, and
sorting and top-k by lax's names."""

from __future__ import annotations

import enum
import string
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import Dim, DType
from fgrad.trace import Tensor, user_site
from fgrad.numpy.bitwise import bitwise_and, bitwise_or, bitwise_xor
from fgrad.numpy.promotion import ArrayLike, _as_dtype, _brief, _dtype, _shape, asarray, result_dtype
from fgrad.numpy.reductions import lax_sort, top_k
from fgrad.lax.elementwise import _operands
from fgrad.lax.shapes import _dims, _ints, _static, slice_in_dim

__all__ = [
    "Precision", "approx_max_k", "approx_min_k", "argmax", "argmin", "batch_matmul", "dot", "dot_general",
    "ragged_dot", "reduce",
    "reduce_and", "reduce_max", "reduce_min", "reduce_or", "reduce_prod", "reduce_sum", "reduce_xor", "sort_key_val",
]


# -- reductions over explicit axes ------------------------------------------------------------------


def _reduced(name: str, operand: ArrayLike, axes: Sequence[int], kinds: str) -> tuple[Tensor | np.ndarray, tuple]:
    (x,) = _operands(name, operand, kinds=kinds)
    return x, _dims(name, "axes", axes, len(_shape(x)))


def _empty(x: Tensor | np.ndarray, axes: tuple[int, ...]) -> bool:
    return any(_shape(x)[a] == 0 for a in axes)


def reduce_sum(operand: ArrayLike, axes: Sequence[int]) -> Tensor | np.ndarray:
    """The sum over `axes` (a tuple of axes), in operand's dtype, as `jax.lax.reduce_sum`."""
    x, axes = _reduced("reduce_sum", operand, axes, "iuf")
    return fnp.sum(x, axes, dtype=_dtype(x)) if axes else x


def reduce_prod(operand: ArrayLike, axes: Sequence[int]) -> Tensor | np.ndarray:
    """The product over `axes`, in operand's dtype, as `jax.lax.reduce_prod`."""
    x, axes = _reduced("reduce_prod", operand, axes, "iuf")
    return fnp.prod(x, axes, dtype=_dtype(x)) if axes else x


def _lowest(dt: DType, top: bool) -> float | int | bool:
    """The identity of max (top=False: the lowest value) or min (top=True) in `dt`."""
    if dt is DType.bool:
        return top
    if dt.is_float:
        return np.inf if top else -np.inf
    info = np.iinfo(dt.np)
    return int(info.max if top else info.min)


def reduce_max(operand: ArrayLike, axes: Sequence[int]) -> Tensor | np.ndarray:
    """The maximum over `axes`, as `jax.lax.reduce_max`: NaN wins; of no entries, the lowest value (-inf)."""
    x, axes = _reduced("reduce_max", operand, axes, "biuf")
    if not axes:
        return x
    return fnp.max(x, axes, initial=_lowest(_dtype(x), False) if _empty(x, axes) else None)


def reduce_min(operand: ArrayLike, axes: Sequence[int]) -> Tensor | np.ndarray:
    """The minimum over `axes`, as `jax.lax.reduce_min`: NaN wins; of no entries, the highest value (inf)."""
    x, axes = _reduced("reduce_min", operand, axes, "biuf")
    if not axes:
        return x
    return fnp.min(x, axes, initial=_lowest(_dtype(x), True) if _empty(x, axes) else None)


def _bitwise_fold(x: Tensor | np.ndarray, axes: tuple[int, ...], op: Callable[[Any, Any], Any],
                  identity: int) -> Tensor | np.ndarray:
    """`op` folded over `axes` of integers: the axes moved last and merged, then halved in pairs."""
    shape = _shape(x)
    kept = [k for k in range(len(shape)) if k not in axes]
    rest = tuple(shape[k] for k in kept)
    n = int(np.prod([shape[a] for a in axes]))
    x = fnp.reshape(fnp.transpose(x, kept + list(axes)), rest + (n,))
    if n == 0:
        return fnp.full(rest, identity, _dtype(x))
    while n > 1:
        half = n // 2
        folded = op(slice_in_dim(x, 0, half, 1, -1), slice_in_dim(x, half, 2 * half, 1, -1))
        x = fnp.concatenate([folded, slice_in_dim(x, 2 * half, n, 1, -1)], -1) if n % 2 else folded
        n = half + n % 2
    return fnp.reshape(x, rest)


def _logical(name: str, operand: ArrayLike, axes: Sequence[int], on_bools: Callable[..., Any],
             op: Callable[[Any, Any], Any], identity: int) -> Tensor | np.ndarray:
    x, axes = _reduced(name, operand, axes, "biu")
    if not axes:
        return x
    if _dtype(x) is DType.bool:
        return on_bools(x, axes)
    return _bitwise_fold(x, axes, op, identity)


def reduce_and(operand: ArrayLike, axes: Sequence[int]) -> Tensor | np.ndarray:
    """The and over `axes` of bools, or the bitwise and of integers, as `jax.lax.reduce_and`."""
    return _logical("reduce_and", operand, axes, fnp.all, bitwise_and, -1)


def reduce_or(operand: ArrayLike, axes: Sequence[int]) -> Tensor | np.ndarray:
    """The or over `axes` of bools, or the bitwise or of integers, as `jax.lax.reduce_or`."""
    return _logical("reduce_or", operand, axes, fnp.any, bitwise_or, 0)


def reduce_xor(operand: ArrayLike, axes: Sequence[int]) -> Tensor | np.ndarray:
    """The xor over `axes` of bools (an odd count of True), or the bitwise xor of integers, as
    `jax.lax.reduce_xor`."""
    def odd(x: Any, axes: tuple[int, ...]) -> Any:
        return fnp.not_equal(fnp.remainder(fnp.sum(x, axes, dtype=DType.i32), 2), 0)

    return _logical("reduce_xor", operand, axes, odd, bitwise_xor, 0)


# The computations `reduce` recognizes, by the primitive its traced body is: the reduction each
# stands for (JAX's monoid reducers; any other body is refused).
_MONOIDS: dict[str, Callable[[Any, tuple[int, ...]], Any]] = {
    "add": reduce_sum, "mul": reduce_prod, "maximum": reduce_max, "minimum": reduce_min,
    "logical_and": reduce_and, "bitwise_and": reduce_and, "logical_or": reduce_or, "bitwise_or": reduce_or,
    "bitwise_xor": reduce_xor, "ne": reduce_xor,
}


def reduce(operands: Any, init_values: Any, computation: Callable[[Any, Any], Any], dimensions: Sequence[int],
           out_sharding: Any = None) -> Any:
    """`operands` folded over `dimensions` with `computation` from `init_values`, as
    `jax.lax.reduce`, for a computation that is one of add, mul, max, min, and, or and xor (as
    JAX's monoid reductions): that reduction, combined once with the initial value."""
    from fgrad.trace import trace  # NOTE: here, as the tracer builds on lax's neighbours

    name = "reduce"
    if out_sharding is not None:
        raise TraceError(f"{name}: out_sharding is not supported (fgrad runs on one device); pass None", user_site())
    if isinstance(operands, (tuple, list)) or isinstance(init_values, (tuple, list)):
        raise TraceError(f"{name}: several operands reduced together (a variadic reduce) are not supported; "
                         "reduce each operand, or use argmax / argmin", user_site())
    (x,) = _operands(name, operands, kinds="biuf")
    init = asarray(init_values, _dtype(x))
    if _shape(init):
        raise ShapeError(f"{name}: init_values must be a scalar, got shape {_shape(init)}", user_site())
    if not callable(computation):
        raise TraceError(f"{name}: computation must be a function of two scalars, got {_brief(computation)}",
                         user_site())
    scalar = np.zeros((), _dtype(x).np)
    graph = trace(computation, scalar, scalar)
    node = graph.nodes[graph.outputs[0]] if len(graph.outputs) == 1 else None
    monoid = _MONOIDS.get(node.op) if node is not None and sorted(node.inputs) == sorted(graph.inputs) else None
    if monoid is None or node.spec.dtype is not _dtype(x) or node.spec.shape != ():
        body = " ".join(n.op for n in graph.nodes[2:]) or "none"
        raise TraceError(f"{name}: the computation must be one of add, mul, max, min, and, or, xor of its two "
                         f"arguments (JAX's monoid reductions); got {body}", user_site())
    return computation(monoid(x, dimensions), init)


def _arg_extreme(name: str, pick: Callable[..., Any], operand: ArrayLike, axis: int, index_dtype: Any
                 ) -> Tensor | np.ndarray:
    (x,) = _operands(name, operand, kinds="biuf")
    (axis,) = _dims(name, "axis", (_static(name, "axis", axis),), len(_shape(x)))
    dt = _as_dtype(index_dtype, name)
    if not dt.is_int:
        raise DTypeError(f"{name}: index_dtype must be an integer dtype, got {dt}", user_site())
    return fnp.astype(pick(x, axis), dt)


def argmax(operand: ArrayLike, axis: int, index_dtype: Any) -> Tensor | np.ndarray:
    """The index of the largest entry along `axis` (the first of ties, the first NaN if any), of
    `index_dtype`, as `jax.lax.argmax`."""
    return _arg_extreme("argmax", fnp.argmax, operand, axis, index_dtype)


def argmin(operand: ArrayLike, axis: int, index_dtype: Any) -> Tensor | np.ndarray:
    """The index of the smallest entry along `axis` (the first of ties, the first NaN if any), of
    `index_dtype`, as `jax.lax.argmin`."""
    return _arg_extreme("argmin", fnp.argmin, operand, axis, index_dtype)


# -- products ---------------------------------------------------------------------------------------


class Precision(enum.Enum):
    """The precision of a matrix product on accelerators, as `jax.lax.Precision`. fgrad computes
    f32 products in f32 at every precision, so it is validated and otherwise ignored."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        return _PRECISION_NAMES.get(value) if isinstance(value, str) else None

    def __str__(self) -> str:
        return self.name


_PRECISION_NAMES = {"default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
                    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
                    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST}


def _check_precision(name: str, precision: Any) -> None:
    """`precision` as JAX takes it: None, a Precision, one of its names, or a pair of Precisions."""
    if precision is None or isinstance(precision, Precision) or precision in _PRECISION_NAMES:
        return
    if isinstance(precision, (tuple, list)) and len(precision) == 2 and all(isinstance(p, Precision)
                                                                              for p in precision):
        return
    raise TraceError(f"{name}: precision must be None, a lax.Precision, one of {sorted(_PRECISION_NAMES)} or a pair "
                     f"of lax.Precision, got {_brief(precision)}", user_site())


def _dimension_numbers(dimension_numbers: Any) -> tuple[tuple[tuple[int, ...], ...], ...]:
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise ShapeError("dot_general: dimension_numbers must be ((lhs_contracting, rhs_contracting), "
                         f"(lhs_batch, rhs_batch)), got {_brief(dimension_numbers)}", user_site()) from None
    return tuple(tuple(_ints("dot_general", what, dims) for what, dims in pair)
                 for pair in ((("lhs_contracting", lc), ("rhs_contracting", rc)),
                              (("lhs_batch", lb), ("rhs_batch", rb))))


def dot_general(lhs: ArrayLike, rhs: ArrayLike, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """The product of lhs and rhs summed over paired contracting axes and batched over paired
    batch axes, as `jax.lax.dot_general`: `dimension_numbers` is ((lhs_contracting,
    rhs_contracting), (lhs_batch, rhs_batch)); the result has the batch axes, then lhs's other
    axes, then rhs's. Operands of two dtypes are promoted, as JAX's; `preferred_element_type`
    sets the dtype the products are computed and returned in; bools give bool."""
    _check_precision("dot_general", precision)
    (lc, rc), (lb, rb) = _dimension_numbers(dimension_numbers)
    a, b = asarray(lhs), asarray(rhs)
    sa, sb = _shape(a), _shape(b)
    for side, shape, dims in (("lhs", sa, lc + lb), ("rhs", sb, rc + rb)):
        if not all(0 <= d < len(shape) for d in dims) or len(set(dims)) != len(dims):
            raise ShapeError(f"dot_general: {side} dimension numbers {dims} must be distinct axes of {shape} "
                             f"(0..{len(shape) - 1})", user_site())
    for what, left, right in (("contracting", lc, rc), ("batch", lb, rb)):
        if len(left) != len(right) or any(sa[i] != sb[j] for i, j in zip(left, right)):
            raise ShapeError(f"dot_general: {what} dimensions {left} of {sa} and {right} of {sb} must pair axes "
                             "of equal sizes", user_site())
    letters = iter(string.ascii_letters)
    la = [next(letters) for _ in sa]
    lb_ = [next(letters) for _ in sb]
    for i, j in zip(lc + lb, rc + rb):
        lb_[j] = la[i]
    out = [la[i] for i in lb] + [la[i] for i in range(len(sa)) if i not in lc + lb] + \
          [lb_[j] for j in range(len(sb)) if j not in rc + rb]
    dt = result_dtype(a, b) if preferred_element_type is None else _as_dtype(preferred_element_type, "dot_general")
    return fnp.einsum(f"{''.join(la)},{''.join(lb_)}->{''.join(out)}", a, b, preferred_element_type=dt)


def dot(lhs: ArrayLike, rhs: ArrayLike, precision: Any = None, preferred_element_type: Any = None, *,
        dimension_numbers: Any = None) -> Tensor | np.ndarray:
    """The vector-vector, matrix-vector or matrix-matrix product, as `jax.lax.dot` (operands of
    1 or 2 axes: lhs's last axis with rhs's first); with `dimension_numbers`, `dot_general`."""
    if dimension_numbers is not None:
        return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)
    sa, sb = _shape(lhs), _shape(rhs)
    if len(sa) not in (1, 2) or len(sb) not in (1, 2) or sa[-1] != sb[0]:
        raise ShapeError(f"dot: takes vector-vector, matrix-vector and matrix-matrix products of matching sizes, "
                         f"got {sa} and {sb}; give dimension_numbers for others", user_site())
    return dot_general(lhs, rhs, (((len(sa) - 1,), (0,)), ((), ())), precision, preferred_element_type)


def batch_matmul(lhs: ArrayLike, rhs: ArrayLike, precision: Any = None) -> Tensor | np.ndarray:
    """Matrix products of lhs (..., m, k) and rhs (..., k, n) over equal leading batch axes, as
    `jax.lax.batch_matmul`."""
    sa, sb = _shape(lhs), _shape(rhs)
    if len(sa) != len(sb) or len(sa) < 2 or sa[:-2] != sb[:-2]:
        raise ShapeError(f"batch_matmul: operands must have one rank >= 2 and equal batch axes, got {sa} and {sb}",
                         user_site())
    batch = tuple(range(len(sa) - 2))
    return dot_general(lhs, rhs, (((len(sa) - 1,), (len(sb) - 2,)), (batch, batch)), precision)


def ragged_dot(lhs: ArrayLike, rhs: ArrayLike, group_sizes: ArrayLike, precision: Any = None,
               preferred_element_type: Any = None, group_offset: Any = None) -> Tensor | np.ndarray:
    """Products of consecutive groups of lhs's rows (m, k) with their own matrices of rhs (g, k, n),
    as `jax.lax.ragged_dot` (a mixture of experts' tokens sorted by expert): the first
    group_sizes[0] rows with rhs[0], the next group_sizes[1] with rhs[1], ...; rows past the
    groups give zeros. Each group's product is masked out of a product of every row with every
    matrix (g times the work of the rows' own products), so it traces, differentiates and
    batches as matmuls do."""
    _check_precision("ragged_dot", precision)
    if group_offset is not None:
        raise ShapeError("ragged_dot: group_offset is not supported (a sharded group dimension)", user_site())
    a, b, sizes = asarray(lhs), asarray(rhs), asarray(group_sizes)
    sa, sb, sg = _shape(a), _shape(b), _shape(sizes)
    if len(sa) != 2 or len(sb) != 3 or sa[1] != sb[1] or sg != (sb[0],):
        raise ShapeError(f"ragged_dot: takes lhs (m, k), rhs (g, k, n) and group_sizes (g,), got {sa}, {sb} and {sg}",
                         user_site())
    if not _dtype(sizes).is_int:
        raise DTypeError(f"ragged_dot: group_sizes must be integers, got {_dtype(sizes)}", user_site())
    dt = result_dtype(a, b) if preferred_element_type is None else _as_dtype(preferred_element_type, "ragged_dot")
    sizes = fnp.astype(sizes, DType.i32)
    ends = fnp.cumsum(sizes)
    rows = fnp.arange(sa[0], dtype=DType.i32)
    member = (rows[None, :] < ends[:, None]) & (rows[None, :] >= (ends - sizes)[:, None])
    products = fnp.einsum("mk,gkn->gmn", a, b, preferred_element_type=dt)
    return fnp.sum(fnp.where(member[:, :, None], products, fnp.zeros((), dt)), axis=0, dtype=dt)


# -- ordering ---------------------------------------------------------------------------------------


def sort_key_val(keys: ArrayLike, values: ArrayLike, dimension: int = -1, is_stable: bool = True
                 ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """`keys` sorted along `dimension` and `values` (of keys' shape) in the same order, as
    `jax.lax.sort_key_val`; always stable."""
    return lax_sort((keys, values), dimension, is_stable, num_keys=1)


def _approx_k(name: str, operand: ArrayLike, k: int, reduction_dimension: int, aggregate_to_topk: bool,
              smallest: bool) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    (x,) = _operands(name, operand, kinds="f")
    axis = _dims(name, "reduction_dimension", (_static(name, "reduction_dimension", reduction_dimension),),
                 len(_shape(x)), negative=True)[0]
    if not isinstance(aggregate_to_topk, (bool, np.bool_)):
        raise TraceError(f"{name}: aggregate_to_topk must be True or False, got {_brief(aggregate_to_topk)}",
                         user_site())
    n = _shape(x)[axis]
    if isinstance(n, Dim):
        raise ShapeError(f"{name}: axis {axis} of {_shape(x)} is the symbol {n}; this takes a fixed size", user_site())
    k = _static(name, "k", k) if aggregate_to_topk else n
    if not smallest:
        return top_k(x, k, axis=axis)
    values, indices = top_k(fnp.negative(x), k, axis=axis)  # the k largest of -x
    return fnp.negative(values), indices


def approx_max_k(operand: ArrayLike, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True
                 ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """The k largest values of a float operand along `reduction_dimension` and their i32 indices,
    largest first, as `jax.lax.approx_max_k` on a CPU: exactly (recall 1; `recall_target` and the
    size override are accepted and unused); without `aggregate_to_topk`, the whole axis in
    order, as JAX on a CPU."""
    del recall_target, reduction_input_size_override
    return _approx_k("approx_max_k", operand, k, reduction_dimension, aggregate_to_topk, smallest=False)


def approx_min_k(operand: ArrayLike, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True
                 ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """The k smallest values along `reduction_dimension` and their i32 indices, smallest first
    (ties in order of index), as `jax.lax.approx_min_k` on a CPU: exactly."""
    del recall_target, reduction_input_size_override
    return _approx_k("approx_min_k", operand, k, reduction_dimension, aggregate_to_topk, smallest=True)
