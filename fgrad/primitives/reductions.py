"""Reductions and normalizations: sum, max, min over axes; argmax and argmin; softmax and
log_softmax along one axis; cumsum, a scan along one axis.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import ShapeError
from fgrad.ir import Const, Dim, DType, Node, Spec, declare
from fgrad.lower.kinds import NORMALIZATION, REDUCTION, SCAN, Reduction, Sort, register_lowering
from fgrad.lower.program import Limits
from fgrad.lower.rewrites import rewrite_rules, split_long_reduction
from fgrad.lower.library import IS_NAN, cast, function, pick
from fgrad.lower.wgsl import SORT_BLOCK, Folded
from fgrad.trace import Tensor, bind
from fgrad.transforms.autodiff import nondiff, vjp_rules
from fgrad.transforms.batching import axis_batching, batch_rules, batch_size, elementwise_batching, with_batch
from fgrad.transforms.forward import jvp_rules, linear_jvp, nondiff_jvp

from fgrad.primitives.abstract_eval import (
    ANY, FLOAT, NUMERIC, along_axis, check_axes, check_dtypes, elementwise, reduction, stable_log_softmax,
    stable_softmax, wide, wide_sum,
)
from fgrad.primitives.shapes import pad_p, slice_p

__all__ = [  # re-exported by fgrad.primitives
    "argmax_p", "argmin_p", "argsort_p", "cumlogsumexp_p", "cummax_p", "cummin_p", "cumprod_p", "cumsum_p",
    "linear_recurrence_p", "log_softmax_p", "max_p", "merge_runs_p", "min_p", "prod_p", "softmax_p", "sort_p",
    "sum_p",
]


# sum over sorted, unique axes (keepdims is a reshape in the public function);
# the cotangent is broadcast back over the summed axes.
def _unreduce(g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    return fnp.broadcast_to(fnp.reshape(g, tuple(1 if i in axes else d for i, d in enumerate(shape))), shape)


def _reduce_wgsl(combine: Callable[[Any, DType], Callable[[str, str], str]],
                 init: Callable[[DType], float | int | bool], wide: bool = False) -> Callable[..., str]:
    """A fold over the reduced axes (a loop, or a workgroup's shared effort: w.reduce decides),
    combining two values of the dtype by `combine(w, dtype)`, from `init(dtype)`; with `wide`,
    in the dtype's `wide` one, rounded back once (sums of f16 accumulate in f32)."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        node = w.nodes[i]
        x, axes = w.spec(node.inputs[0]), node.attrs["axes"]
        reduced = [x.shape[a] for a in axes]
        acc = x.dtype.wide if wide else x.dtype

        def at(r: str) -> str:
            inner, outer = iter(w.unravel(r, reduced)), iter(coords)
            value = w.value(node.inputs[0], [next(inner) if d in axes else next(outer) for d in range(x.ndim)])
            return cast(w, value, x.dtype, acc)

        total = w.reduce(w.extent(reduced), at, combine(w, acc), w.literal(init(acc), acc), acc,
                         leading=x.ndim - 1 not in axes)
        return cast(w, total, acc, x.dtype)

    return wgsl


# NOTE: a sum accumulates in its dtype's `wide` one (f16 in f32), as jax.numpy's sum does.
sum_p = declare("sum", reduction("sum", NUMERIC), lambda x, *, axes: wide_sum(x, axes))
vjp_rules.register(sum_p, lambda g, ans, x, *, axes: (_unreduce(g, x.shape, axes),))
jvp_rules.register(sum_p, linear_jvp(sum_p))
batch_rules.register(sum_p, axis_batching(sum_p, "axes"))
register_lowering(sum_p, REDUCTION, _reduce_wgsl(lambda w, dtype: lambda acc, v: f"{acc} + {v}", lambda dtype: 0,
                                                 wide=True))
rewrite_rules.register(sum_p, split_long_reduction)


# prod over sorted, unique axes, accumulated as sum is (f16 in f32). The cotangent of an entry
# is g times the product of the others: the products before it times those after it along the
# reduced axes (flattened), no division, so zeros in x are exact, at every order (cumprod's
# VJP is exact too), as JAX's. The tangent is the sum of t times the same products.
def _others(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    """Each entry's product of the other entries it is reduced with."""
    kept = [d for d in range(x.ndim) if d not in axes]
    order = kept + list(axes)
    moved = fnp.transpose(x, order)
    rows = fnp.reshape(moved, (*(x.shape[d] for d in kept), -1))
    last = rows.ndim - 1
    before = _previous(bind(cumprod_p, rows, axis=last, reverse=False), last, False, 1.0)
    after = _previous(bind(cumprod_p, rows, axis=last, reverse=True), last, True, 1.0)
    return fnp.transpose(fnp.reshape(before * after, moved.shape), [order.index(d) for d in range(x.ndim)])


def _prod_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axes: tuple[int, ...]) -> tuple[Tensor]:
    return (_unreduce(g, x.shape, axes) * _others(x, axes),)


def _prod_jvp(primals: Sequence[Tensor], tangents: Sequence[Tensor], ans: Tensor, *, axes: tuple[int, ...]) -> Tensor:
    (x,), (t,) = primals, tangents
    return bind(sum_p, t * _others(x, axes), axes=axes)


prod_p = declare("prod", reduction("prod", NUMERIC),
                 lambda x, *, axes: np.prod(x, axis=axes, dtype=wide(x)).astype(x.dtype))
vjp_rules.register(prod_p, _prod_vjp)
jvp_rules.register(prod_p, _prod_jvp)
batch_rules.register(prod_p, axis_batching(prod_p, "axes"))
register_lowering(prod_p, REDUCTION, _reduce_wgsl(lambda w, dtype: lambda acc, v: f"{acc} * {v}", lambda dtype: 1,
                                                  wide=True))
rewrite_rules.register(prod_p, split_long_reduction)


# max / min over axes: NaN wins, as in NumPy; on bools they are any / all. The cotangent
# goes to the elements equal to the result; ties share it evenly. That equality needs the
# very values the reduction folded (`selects`: fgrad/lower/fusion.py keeps one computation).
# The tangent is the mean of t over those elements, sum(hit t) / sum(hit), so jvp and vjp agree.
def _hits(x: Tensor, ans: Tensor, axes: tuple[int, ...]) -> Tensor:
    """1 where x equals its reduction's result, else 0 (in x's dtype)."""
    return fnp.astype(fnp.equal(x, _unreduce(ans, x.shape, axes)), x.dtype)


def _count(hit: Tensor, axes: tuple[int, ...]) -> Tensor:
    """How many entries hit, at least 1: with none (an empty axis, a NaN result) the derivative is
    0, not 0 / 0, which would reach the derivatives of the derivative too."""
    return fnp.maximum(bind(sum_p, hit, axes=axes), 1.0)


def _pick_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axes: tuple[int, ...]) -> tuple[Tensor]:
    hit = _hits(x, ans, axes)
    return (hit * _unreduce(g / _count(hit, axes), x.shape, axes),)


def _pick_jvp(primals: Sequence[Tensor], tangents: Sequence[Tensor], ans: Tensor, *, axes: tuple[int, ...]) -> Tensor:
    (x,), (t,) = primals, tangents
    hit = _hits(x, ans, axes)
    return bind(sum_p, hit * t, axes=axes) / _count(hit, axes)


def _pick_reduce_wgsl(which: str) -> Callable[..., str]:
    start = -math.inf if which == "max" else math.inf  # a literal clamps it to the i32 range
    return _reduce_wgsl(lambda w, dtype: pick(w, which, dtype), lambda dtype: which == "min" if dtype is DType.bool else start)


def _pick_impl(which: str) -> Callable[..., np.ndarray]:
    """NumPy's max (min) over `axes`; of no values, as jax.lax.reduce_max's, the least (largest)
    value of the dtype: -inf (inf) for floats, False (True) for bools."""
    fold = np.max if which == "max" else np.min

    def impl(x: np.ndarray, *, axes: tuple[int, ...]) -> np.ndarray:
        if x.dtype.kind == "b":
            identity = which == "min"
        elif x.dtype.kind in "iu":
            identity = np.iinfo(x.dtype).min if which == "max" else np.iinfo(x.dtype).max
        else:
            identity = -np.inf if which == "max" else np.inf
        return fold(x, axis=axes, initial=identity)

    return impl


max_p = declare("max", reduction("max", ANY), _pick_impl("max"))
vjp_rules.register(max_p, _pick_vjp)
jvp_rules.register(max_p, _pick_jvp)
batch_rules.register(max_p, axis_batching(max_p, "axes"))
register_lowering(max_p, Reduction(selects=True), _pick_reduce_wgsl("max"))
rewrite_rules.register(max_p, split_long_reduction)
min_p = declare("min", reduction("min", ANY), _pick_impl("min"))
vjp_rules.register(min_p, _pick_vjp)
jvp_rules.register(min_p, _pick_jvp)
batch_rules.register(min_p, axis_batching(min_p, "axes"))
register_lowering(min_p, Reduction(selects=True), _pick_reduce_wgsl("min"))
rewrite_rules.register(min_p, split_long_reduction)


# argmax / argmin over one axis (`axes`, as jax.lax.argmax): the index of the first largest
# (smallest) value, NaN beating every number, as NumPy's; i32, no derivative. One pass keeps
# each value's index beside it (w.argreduce), so no value is compared with a recomputed copy.
# A few long rows (a sampler's argmax over a vocabulary) are split in chunks (_split_long_arg).
def _arg_rule(name: str) -> Callable[..., Spec]:
    def rule(x: Spec, *, axes: tuple[int, ...]) -> Spec:
        check_dtypes(name, NUMERIC, x)
        check_axes(name, x, axes)
        if len(axes) != 1:
            raise ShapeError(f"{name}: reduces one axis, got axes {axes} for {x.shape}")
        out = x.shape[:axes[0]] + x.shape[axes[0] + 1:]
        if x.shape[axes[0]] == 0 and 0 not in out:  # as NumPy's and JAX's error
            raise ShapeError(f"{name}: attempt to get {name} of an empty sequence (axis {axes[0]} of {x.shape})")
        return Spec(out, DType.i32)

    return rule


def _beats(w: Any, which: str, dtype: DType) -> Callable[[str, str], str]:
    """WGSL true where a is larger (`which` = "max") or smaller than b, a NaN beating every
    number and nothing beating a NaN; the NaN tests read bits, which no float rewrite touches."""
    op = ">" if which == "max" else "<"
    if not dtype.is_float:
        return lambda a, b: f"({a} {op} {b})"
    w.function("is_nan", IS_NAN)
    nan = (lambda v: f"is_nan({v})") if dtype is DType.f32 else (lambda v: f"is_nan(f32({v}))")
    return lambda a, b: f"(!{nan(b)} && ({nan(a)} || {a} {op} {b}))"


def _arg_reduce_wgsl(which: str) -> Callable[..., str]:
    start = -math.inf if which == "max" else math.inf  # beaten or tied by all (a literal clamps it to i32's range)

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        node = w.nodes[i]
        x, (axis,) = node.inputs[0], node.attrs["axes"]
        spec = w.spec(x)

        def at(r: str) -> str:
            return w.value(x, [*coords[:axis], r, *coords[axis:]])

        return w.argreduce(spec.shape[axis], at, _beats(w, which, spec.dtype), w.literal(start, spec.dtype), spec.dtype)

    return wgsl


LONG_ARG_ROW, FEW_ARG_ROWS = 4096, 64  # rows at least this long, fewer than this many, are split


def _split_long_arg(which: str) -> Callable[..., int | None]:
    """The first largest (smallest) of a few long last-axis rows, in chunks: each chunk's index of
    it and value (two reductions over many rows, a workgroup each), then the first best chunk. A
    first best's chunk is the first chunk holding the best (ties keep order, a NaN beats all),
    and within it that chunk's first. A row no power of two divides is padded with what every
    value beats or ties (the pad is after the row: a tie goes to the row)."""

    def split(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> int | None:
        spec, (axis,) = nodes[node.inputs[0]].spec, node.attrs["axes"]
        *rows, n = spec.shape
        if spec.symbols or axis != spec.ndim - 1 or n < LONG_ARG_ROW or math.prod(rows) >= FEW_ARG_ROWS:
            return None
        chunk = max(1 << (math.ceil(math.log2(n)) // 2), 256)  # about sqrt(n) chunks, each a workgroup's
        chunks = -(-n // chunk)
        x = node.inputs[0]
        if chunks * chunk != n:
            x = add("pad", [x], node.site, widths=(*[(0, 0, 0)] * len(rows), (0, chunks * chunk - n, 0)),
                    value=_worst(spec.dtype, which))
        parts = add("reshape", [x], node.site, shape=(*rows, chunks, chunk))
        within = add(node.op, [parts], node.site, axes=(len(rows) + 1,))  # (*rows, chunks): index in its chunk
        best = add(which, [parts], node.site, axes=(len(rows) + 1,))
        first = add("broadcast_to", [add("reshape", [add(node.op, [best], node.site, axes=(len(rows),))], node.site,
                                         shape=(*rows, 1))], node.site, shape=(*rows, chunks))
        at = add("iota", [], node.site, shape=(*rows, chunks), axis=len(rows), dtype=DType.i32)
        index = add("add", [within, add("mul", [at, _const(add, node, chunk, (*rows, chunks))], node.site)], node.site)
        hit = add("eq", [at, first], node.site)
        picked = add("where", [hit, index, _const(add, node, 0, (*rows, chunks))], node.site)
        return add("sum", [picked], node.site, axes=(len(rows),))

    return split


def _worst(dtype: DType, which: str) -> Any:
    """A value of `dtype` that every value beats or ties in `which`'s order."""
    if dtype.is_float:
        return -math.inf if which == "max" else math.inf
    if dtype is DType.bool:
        return which != "max"
    info = np.iinfo(dtype.np)
    return int(info.min if which == "max" else info.max)


def _const(add: Callable[..., int], node: Node, value: int, shape: tuple[int, ...]) -> int:
    return add("constant", [], node.site, value=Const.of(np.full(shape, value, np.int32), DType.i32))


argmax_p = declare("argmax", _arg_rule("argmax"), lambda x, *, axes: np.argmax(x, axis=axes[0]))
vjp_rules.register(argmax_p, nondiff)
jvp_rules.register(argmax_p, nondiff_jvp)
batch_rules.register(argmax_p, axis_batching(argmax_p, "axes"))
register_lowering(argmax_p, REDUCTION, _arg_reduce_wgsl("max"))
rewrite_rules.register(argmax_p, _split_long_arg("max"))
argmin_p = declare("argmin", _arg_rule("argmin"), lambda x, *, axes: np.argmin(x, axis=axes[0]))
vjp_rules.register(argmin_p, nondiff)
jvp_rules.register(argmin_p, nondiff_jvp)
batch_rules.register(argmin_p, axis_batching(argmin_p, "axes"))
register_lowering(argmin_p, REDUCTION, _arg_reduce_wgsl("min"))
rewrite_rules.register(argmin_p, _split_long_arg("min"))

# softmax along one axis, computed stably; d = s (g - sum(g s)), and the tangent s (t - sum(s t))
# (the Jacobian diag(s) - s s^T is symmetric). As jax.nn.softmax: the exponentials are of x's
# dtype, their sum accumulates in its `wide` one, rounded back once.
def _softmax_wgsl(log: bool) -> Callable[..., str]:
    """Max and sum of exponentials along the axis (once per row), then this element's share."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        x, axis = w.nodes[i].inputs[0], w.nodes[i].attrs["axis"]
        n, row = w.spec(x).shape[axis], tuple(c for d, c in enumerate(coords) if d != axis)
        dtype = w.spec(x).dtype
        wide = dtype.wide

        def at(r: str) -> str:
            return w.value(x, [r if d == axis else c for d, c in enumerate(coords)])

        def special(f: str, v: str) -> str:  # exp or log of a value of the dtype, computed wide (as the primitives)
            return cast(w, f"{function(w, f + '_f32')}({cast(w, v, dtype, wide)})", wide, dtype)

        m = w.once(("row max", i, row), lambda: w.reduce(
            n, at, lambda a, v: f"max({a}, {v})", w.literal(-math.inf, dtype), dtype))
        total = w.once(("row sum", i, row), lambda: cast(w, w.reduce(
            n, lambda r: cast(w, special("exp", f"{at(r)} - {m}"), dtype, wide), lambda a, v: f"{a} + {v}",
            w.literal(0, wide), wide), wide, dtype))
        v = w.value(x, coords)
        return f"{v} - {m} - {special('log', total)}" if log else f"{special('exp', f'{v} - {m}')} / {total}"

    return wgsl


softmax_p = declare("softmax", along_axis("softmax"), stable_softmax)
vjp_rules.register(softmax_p, lambda g, ans, x, *, axis: (ans * (g - fnp.sum(g * ans, axis, keepdims=True)),))
jvp_rules.register(softmax_p, lambda primals, tangents, ans, *, axis: ans * (
    tangents[0] - fnp.sum(ans * tangents[0], axis, keepdims=True)))
batch_rules.register(softmax_p, axis_batching(softmax_p, "axis"))
register_lowering(softmax_p, NORMALIZATION, _softmax_wgsl(log=False))

# log_softmax along one axis; d = g - softmax(x) sum(g) = g - exp(ans) sum(g); the tangent
# t - sum(softmax(x) t) = t - sum(exp(ans) t).
log_softmax_p = declare("log_softmax", along_axis("log_softmax"), stable_log_softmax)
vjp_rules.register(log_softmax_p, lambda g, ans, x, *, axis: (g - fnp.exp(ans) * fnp.sum(g, axis, keepdims=True),))
jvp_rules.register(log_softmax_p, lambda primals, tangents, ans, *, axis: tangents[0] - fnp.sum(
    fnp.exp(ans) * tangents[0], axis, keepdims=True))
batch_rules.register(log_softmax_p, axis_batching(log_softmax_p, "axis"))
register_lowering(log_softmax_p, NORMALIZATION, _softmax_wgsl(log=True))


# Scans along one axis (as jax.lax.cumsum and its siblings): out[i] folds x[0], ..., x[i] in
# order, or x[i], ..., x[n-1] from the end where `reverse`. Rows shorter than a workgroup loop
# over their prefix per result; longer ones are scanned by a workgroup each (the scan skeleton,
# fgrad/lower/wgsl.py). Sums and products accumulate in the dtype's `wide` one (f16 in f32),
# as jnp.cumsum does, as do the log-sum-exps.
def _scan_rule(name: str, allowed: tuple[DType, ...]) -> Callable[..., Spec]:
    def rule(x: Spec, *, axis: int, reverse: bool) -> Spec:
        check_dtypes(name, allowed, x)
        check_axes(name, x, (axis,))
        return x

    return rule


def _scan_impl(fold: np.ufunc, widens: bool) -> Callable[..., np.ndarray]:
    def impl(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
        y = np.flip(x, axis) if reverse else x
        out = fold.accumulate(y.astype(wide(x) if widens else x.dtype), axis=axis)
        return (np.flip(out, axis) if reverse else out).astype(x.dtype)

    return impl


def _scan_wgsl(combine: Callable[[Any, DType], Callable[[str, str], str]], identity: Callable[[DType], float | int],
               widens: bool) -> Callable[..., str]:
    """A scan combining two values of the dtype by `combine(w, dtype)` from `identity(dtype)`;
    with `widens`, in the dtype's `wide` one, rounded back once."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        node = w.nodes[i]
        x, axis, dtype = node.inputs[0], node.attrs["axis"], node.spec.dtype
        acc = dtype.wide if widens else dtype

        def at(r: str) -> str:
            return cast(w, w.value(x, [*coords[:axis], r, *coords[axis + 1:]]), dtype, acc)

        total = w.scan(w.spec(x).shape[axis], at, combine(w, acc), w.literal(identity(acc), acc), acc, coords[axis],
                       node.attrs["reverse"])
        return cast(w, total, acc, dtype)

    return wgsl


def _previous(x: Tensor, axis: int, reverse: bool, fill: float) -> Tensor:
    """x moved one place along `axis`: entry i holds x[i - 1] (x[i + 1] where `reverse`), the
    first (last) holds `fill`. What a scan folded just before each entry."""
    n, dtype = x.shape[axis], x.dtype
    if n in (0, 1):  # nothing moves in: only the fill, if anything
        return fnp.broadcast_to(fnp.asarray(fill, dtype), x.shape)
    kept = bind(slice_p, x, starts=tuple(int(reverse) if d == axis else 0 for d in range(x.ndim)),
                stops=tuple(n - 1 + int(reverse) if d == axis else x.shape[d] for d in range(x.ndim)),
                steps=(1,) * x.ndim)
    widths = tuple(((0, 1, 0) if reverse else (1, 0, 0)) if d == axis else (0, 0, 0) for d in range(x.ndim))
    return bind(pad_p, kept, widths=widths, value=fill)


def _recurrence(a: Tensor, b: Tensor, axis: int, reverse: bool) -> Tensor:
    return bind(linear_recurrence_p, a, b, axis=axis, reverse=reverse)


# cumsum: d out[j] / d x[i] = 1 for j >= i, so the cotangent is g's cumsum the other way.
cumsum_p = declare("cumsum", _scan_rule("cumsum", NUMERIC), _scan_impl(np.add, widens=True))
vjp_rules.register(cumsum_p, lambda g, ans, x, *, axis, reverse: (fnp.cumsum(g, axis, reverse=not reverse),))
jvp_rules.register(cumsum_p, linear_jvp(cumsum_p))
batch_rules.register(cumsum_p, axis_batching(cumsum_p, "axis"))
register_lowering(cumsum_p, SCAN, _scan_wgsl(lambda w, dtype: lambda a, v: f"{a} + {v}",
                                             lambda dtype: -0.0 if dtype.is_float else 0, widens=True))  # -0 + x is x


# cumprod: d out[j] / d x[i] = prod of x[k], k <= j, k != i, so the cotangent of x[i] is
# (x[0] ... x[i-1]) * S[i], with S[i] = g[i] + x[i+1] S[i+1] (the other way where reversed):
# a linear recurrence, no division, so zeros in x are exact at every order (as JAX's). So is
# the tangent: d out[j] = x[j] d out[j-1] + out[j-1] t[j].
def _cumprod_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axis: int, reverse: bool) -> tuple[Tensor]:
    later = _recurrence(_previous(x, axis, not reverse, 0.0), g, axis, not reverse)
    return (_previous(ans, axis, reverse, 1.0) * later,)


def _cumprod_jvp(primals: Sequence[Tensor], tangents: Sequence[Tensor], ans: Tensor, *, axis: int, reverse: bool
                 ) -> Tensor:
    (x,), (t,) = primals, tangents
    return _recurrence(x, _previous(ans, axis, reverse, 1.0) * t, axis, reverse)


cumprod_p = declare("cumprod", _scan_rule("cumprod", NUMERIC), _scan_impl(np.multiply, widens=True))
vjp_rules.register(cumprod_p, _cumprod_vjp)
jvp_rules.register(cumprod_p, _cumprod_jvp)
batch_rules.register(cumprod_p, axis_batching(cumprod_p, "axis"))
register_lowering(cumprod_p, SCAN, _scan_wgsl(lambda w, dtype: lambda a, v: f"{a} * {v}", lambda dtype: 1, widens=True))


# cummax / cummin (jax.lax's): NaN wins, as in max. The cotangent of out[j] goes to the
# entries of the prefix equal to it, ties sharing it evenly (JAX splits a two-way tie so). Runs
# of equal results are counted and summed by linear recurrences: count[j] = eq[j] + (same run)
# count[j-1], and entry i takes the sum of g / count over the rest of its run. The tangent of
# out[j] is the mean of t over the same entries: (eq t summed along the run) / count.
def _runs(x: Tensor, ans: Tensor, axis: int, reverse: bool) -> tuple[Tensor, Tensor, Tensor]:
    """eq (x equals the result), run (the result equals the one before) and count (the entries
    equal to the result so far), in x's dtype."""
    eq = fnp.astype(fnp.equal(x, ans), x.dtype)
    run = fnp.astype(fnp.equal(ans, _previous(ans, axis, reverse, 0.0)), x.dtype)  # the first entry's is unused
    count = fnp.maximum(_recurrence(run, eq, axis, reverse), 1.0)  # no entry equals a NaN result: its count is 0
    return eq, run, count


def _pick_scan_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axis: int, reverse: bool) -> tuple[Tensor]:
    eq, _, count = _runs(x, ans, axis, reverse)
    rest = fnp.astype(fnp.equal(ans, _previous(ans, axis, not reverse, 0.0)), g.dtype)
    return (eq * _recurrence(rest, g / count, axis, not reverse),)


def _pick_scan_jvp(primals: Sequence[Tensor], tangents: Sequence[Tensor], ans: Tensor, *, axis: int, reverse: bool
                   ) -> Tensor:
    (x,), (t,) = primals, tangents
    eq, run, count = _runs(x, ans, axis, reverse)
    return _recurrence(run, eq * t, axis, reverse) / count


def _pick_scan_wgsl(which: str) -> Callable[..., str]:
    return _scan_wgsl(lambda w, dtype: pick(w, which, dtype), lambda dtype: -math.inf if which == "max" else math.inf,
                      widens=False)  # a literal clamps an infinite start to the integer range


cummax_p = declare("cummax", _scan_rule("cummax", NUMERIC), _scan_impl(np.maximum, widens=False))
vjp_rules.register(cummax_p, _pick_scan_vjp)
jvp_rules.register(cummax_p, _pick_scan_jvp)
batch_rules.register(cummax_p, axis_batching(cummax_p, "axis"))
register_lowering(cummax_p, SCAN, _pick_scan_wgsl("max"))
cummin_p = declare("cummin", _scan_rule("cummin", NUMERIC), _scan_impl(np.minimum, widens=False))
vjp_rules.register(cummin_p, _pick_scan_vjp)
jvp_rules.register(cummin_p, _pick_scan_jvp)
batch_rules.register(cummin_p, axis_batching(cummin_p, "axis"))
register_lowering(cummin_p, SCAN, _pick_scan_wgsl("min"))


# cumlogsumexp (jax.lax's): out[j] = log(exp(x[0]) + ... + exp(x[j])), each step the library's
# `log_add_exp_f32` (-inf with -inf is -inf, inf with inf inf). d out[j] / d x[i] =
# exp(x[i] - out[j]), so the cotangent of x[i] is exp(x[i] - out[i]) T[i], T[i] = g[i] +
# exp(out[i] - out[i+1]) T[i+1]: factors at most 1, stable for any range of values. The tangent
# runs the same recurrence forward: d out[j] = exp(out[j-1] - out[j]) d out[j-1] + exp(x[j] - out[j]) t[j].
def _log_add_exp(w: Any, dtype: DType) -> Callable[[str, str], str]:
    name = function(w, "log_add_exp_f32")
    return lambda a, v: f"{name}({a}, {v})"


def _ratio(a: Tensor, b: Tensor) -> Tensor:
    """exp(a - b), at most 1 (a is a term of b's log-sum-exp); 1 where a and b are the same
    infinity (a -inf entry of a -inf prefix, an inf one of an inf prefix), not exp(NaN). The
    difference is replaced before the exp, so no NaN reaches a derivative of it either."""
    return fnp.exp(fnp.where(fnp.equal(a, b), 0.0, a - b))


def _cumlogsumexp_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axis: int, reverse: bool) -> tuple[Tensor]:
    later = _previous(ans, axis, not reverse, math.inf)  # past the end: a factor exp(-inf) = 0
    return (_ratio(x, ans) * _recurrence(_ratio(ans, later), g, axis, not reverse),)


def _cumlogsumexp_jvp(primals: Sequence[Tensor], tangents: Sequence[Tensor], ans: Tensor, *, axis: int,
                      reverse: bool) -> Tensor:
    (x,), (t,) = primals, tangents
    earlier = _previous(ans, axis, reverse, -math.inf)  # before the start: a factor exp(-inf) = 0
    return _recurrence(_ratio(earlier, ans), _ratio(x, ans) * t, axis, reverse)


cumlogsumexp_p = declare("cumlogsumexp", _scan_rule("cumlogsumexp", FLOAT), _scan_impl(np.logaddexp, widens=True))
vjp_rules.register(cumlogsumexp_p, _cumlogsumexp_vjp)
jvp_rules.register(cumlogsumexp_p, _cumlogsumexp_jvp)
batch_rules.register(cumlogsumexp_p, axis_batching(cumlogsumexp_p, "axis"))
register_lowering(cumlogsumexp_p, SCAN, _scan_wgsl(_log_add_exp, lambda dtype: -math.inf, widens=True))


# linear_recurrence: out[i] = a[i] out[i-1] + b[i] from out[-1] = 0 (out[i] = a[i] out[i+1]
# + b[i] from the end where `reverse`), the scan of (a, b) pairs under (A, B)(a, b) = (A a,
# B a + b). The VJPs of the scans above are made of it, and so is its own: the cotangent
# l[i] = g[i] + a[i+1] l[i+1] runs the other way; b's is l and a's is l[i] out[i-1]. The
# tangent is the same recurrence: d out[i] = a[i] d out[i-1] + (da[i] out[i-1] + db[i]).
def _linear_recurrence_rule(a: Spec, b: Spec, *, axis: int, reverse: bool) -> Spec:
    elementwise("linear_recurrence", 2, NUMERIC)(a, b)
    check_axes("linear_recurrence", a, (axis,))
    return a


def _linear_recurrence_impl(a: np.ndarray, b: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
    at, bt = (np.moveaxis(v.astype(wide(v)), axis, 0) for v in (a, b))
    out, acc = np.empty_like(bt), np.zeros(bt.shape[1:], bt.dtype)
    for k in (reversed(range(len(at))) if reverse else range(len(at))):
        acc = out[k] = at[k] * acc + bt[k]
    return np.moveaxis(out, 0, axis).astype(a.dtype)


def _linear_recurrence_vjp(g: Tensor, ans: Tensor, a: Tensor, b: Tensor, *, axis: int, reverse: bool
                           ) -> tuple[Tensor, Tensor]:
    later = _recurrence(_previous(a, axis, not reverse, 0.0), g, axis, not reverse)
    return later * _previous(ans, axis, reverse, 0.0), later


def _linear_recurrence_jvp(primals: Sequence[Tensor], tangents: Sequence[Tensor | None], ans: Tensor, *, axis: int,
                           reverse: bool) -> Tensor:
    (a, _), (ta, tb) = primals, tangents
    pushed = tb
    if ta is not None:
        carried = ta * _previous(ans, axis, reverse, 0.0)
        pushed = carried if tb is None else carried + tb
    return _recurrence(a, pushed, axis, reverse)


def _linear_recurrence_batch(args: Sequence[Tensor], batched: Sequence[bool], *, axis: int, reverse: bool) -> Tensor:
    """Both operands batched (one broadcast where it was not), the recurrence past the batch axis."""
    size = batch_size(args, batched)
    a, b = (with_batch(x, f, size) for x, f in zip(args, batched))
    return _recurrence(a, b, axis + 1, reverse)


def _linear_recurrence_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    node = w.nodes[i]
    (a, b), axis, dtype = node.inputs, node.attrs["axis"], node.spec.dtype
    acc = dtype.wide

    def at(r: str) -> tuple[str, str]:
        where = [*coords[:axis], r, *coords[axis + 1:]]
        return cast(w, w.value(a, where), dtype, acc), cast(w, w.value(b, where), dtype, acc)

    def combine(before: Folded, then: Folded) -> tuple[str, str]:
        return f"{before[0]} * {then[0]}", f"{before[1]} * {then[0]} + {then[1]}"

    _, total = w.scan(w.spec(a).shape[axis], at, combine, (w.literal(1, acc), w.literal(0, acc)), acc, coords[axis],
                      node.attrs["reverse"])
    return cast(w, total, acc, dtype)


linear_recurrence_p = declare("linear_recurrence", _linear_recurrence_rule, _linear_recurrence_impl)
vjp_rules.register(linear_recurrence_p, _linear_recurrence_vjp)
jvp_rules.register(linear_recurrence_p, _linear_recurrence_jvp)
batch_rules.register(linear_recurrence_p, _linear_recurrence_batch)
register_lowering(linear_recurrence_p, SCAN, _linear_recurrence_wgsl)


# -- putting rows in order ---------------------------------------------------
# Sorting compares order keys: each value's bits mapped to a u32 (a wider unsigned integer
# in NumPy, for float64) whose unsigned order is the sort's, equal keys kept in order of
# their index (stable). Floats in NumPy's order (jnp.sort, jnp.argsort): -0 equals 0 and
# every NaN goes last; in IEEE's total order (lax.top_k): -NaN < -inf < ... < -0 < 0 < ... <
# inf < NaN. A descending order flips every bit of the key, so equal keys keep index order.
def _order_keys(x: np.ndarray, descending: bool, total: bool) -> np.ndarray:
    """The unsigned (uint64) order keys of x's values, as the WGSL ones order them."""
    if x.dtype.kind == "f":
        width = 8 * x.itemsize
        sign, mask = np.uint64(1 << (width - 1)), np.uint64((1 << width) - 1)
        bits = x.view(f"u{x.itemsize}").astype(np.uint64)
        keys = np.where(bits & sign, ~bits & mask, bits | sign)
        if not total or x.dtype == np.float16:  # NaNs are one NaN (f16's in both orders: TOTAL_KEY_F16)
            keys = np.where(np.isnan(x), mask, keys)
        if not total:
            keys = np.where(x == 0, sign, keys)
    else:  # integers shifted to start at 0; bools are 0 and 1
        keys = (x.astype(np.int64) - (np.iinfo(x.dtype).min if x.dtype.kind == "i" else 0)).astype(np.uint64)
    return ~keys if descending else keys


TOTAL_KEY = """fn total_key(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, b >= 0x80000000u);
}"""
# NOTE: f16 values widen to f32 exactly, but for NaNs: an NVIDIA GPU made every one the
# canonical NaN, dropping its sign and payload. So every f16 NaN is one NaN in both orders:
# the largest (lax.top_k puts an f16 -NaN first, where JAX puts it last).
TOTAL_KEY_F16 = """fn total_key_f16(x: f32) -> u32 {
    return select(total_key(x), 0xffffffffu, is_nan(x));
}"""
NUMPY_KEY = """fn numpy_key(x: f32) -> u32 {
    return select(select(total_key(x), 0x80000000u, (bitcast<u32>(x) << 1u) == 0u), 0xffffffffu, is_nan(x));
}"""

# The order keys of floats (widened to f32), by (total order?, dtype). A bfloat16 is held in an f32, NaNs too.
FLOAT_KEYS = {(False, DType.f32): ("numpy_key", NUMPY_KEY), (False, DType.f16): ("numpy_key", NUMPY_KEY),
              (False, DType.bf16): ("numpy_key", NUMPY_KEY), (True, DType.f32): ("total_key", TOTAL_KEY),
              (True, DType.f16): ("total_key_f16", TOTAL_KEY_F16), (True, DType.bf16): ("total_key", TOTAL_KEY)}


def _key_wgsl(flips: bool) -> Callable[..., str]:
    """The WGSL rule of a Sort node: the order key of its first operand at `coords`, under the
    node's `total` (IEEE's order, else NumPy's) and, where `flips`, its `descending`."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        node = w.nodes[i]
        v, dtype = w.operand(i, 0, coords), w.spec(node.inputs[0]).dtype
        if dtype.is_float:
            name, text = FLOAT_KEYS[node.attrs.get("total", False), dtype]
            w.function("total_key", TOTAL_KEY)
            if name != "total_key":
                w.function("is_nan", IS_NAN)
            key = f"{w.function(name, text)}({cast(w, v, dtype, DType.f32)})"
        elif dtype.kind == "i":  # held sign-extended in an i32
            key = f"(bitcast<u32>({v}) ^ 0x80000000u)"
        else:
            key = cast(w, v, dtype, DType.u32)
        return f"(~{key})" if flips and node.attrs["descending"] else key

    return wgsl


def _check_rows(name: str, x: Spec) -> None:
    check_dtypes(name, ANY, x)
    if x.ndim == 0:
        raise ShapeError(f"{name}: sorts along the last axis, got a scalar {x}")


# argsort along the last axis: the indices that put each row in order, stable (equal keys in
# order of index), as jnp.argsort(stable=True); `descending` keeps equal keys in index order
# too, as JAX's. `total` orders floats by IEEE's total order (lax.top_k's). With `run`, each
# run of that many entries is put in order on its own (a long row's first pass). Rows longer
# than a workgroup's memory (SORT_BLOCK) are rewritten: runs, then merge_runs passes. Batched,
# the batch axis is one more leading axis of rows: the rule is the primitive itself, as an
# elementwise one's (here and for merge_runs and sort).
def _argsort_rule(x: Spec, *, descending: bool, total: bool, run: int | None) -> Spec:
    _check_rows("argsort", x)
    if run is not None and not (isinstance(run, int) and run >= 1 and not isinstance(x.shape[-1], Dim)):
        raise ShapeError(f"argsort: runs of {run} entries of rows of {x.shape}")
    return Spec(x.shape, DType.i32)


def _argsort_impl(x: np.ndarray, *, descending: bool, total: bool, run: int | None) -> np.ndarray:
    keys, out = _order_keys(x, descending, total), np.empty(x.shape, np.int32)
    step = run or max(x.shape[-1], 1)  # an empty row takes no step
    for start in range(0, x.shape[-1], step):
        out[..., start: start + step] = start + np.argsort(keys[..., start: start + step], axis=-1, kind="stable")
    return out


def _split_long_sort(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> int | None:
    """A row longer than SORT_BLOCK is sorted in runs of SORT_BLOCK entries, then pairs of runs
    are merged, doubling their length, until one run holds the row."""
    n = nodes[node.inputs[0]].spec.shape[-1]
    if node.attrs["run"] is not None or isinstance(n, Dim) or n <= SORT_BLOCK:
        return None
    order = dict(descending=node.attrs["descending"], total=node.attrs["total"])
    perm, run = add("argsort", node.inputs, node.site, run=SORT_BLOCK, **order), SORT_BLOCK
    while run < n:
        perm = add("merge_runs", [node.inputs[0], perm], node.site, run=run, **order)
        run *= 2
    return perm


argsort_p = declare("argsort", _argsort_rule, _argsort_impl)
vjp_rules.register(argsort_p, nondiff)
jvp_rules.register(argsort_p, nondiff_jvp)
batch_rules.register(argsort_p, elementwise_batching(argsort_p))
register_lowering(argsort_p, Sort(), _key_wgsl(flips=True))
rewrite_rules.register(argsort_p, _split_long_sort)


# merge_runs: `perm` (i32 indices into x's rows, as argsort gives) with each pair of runs of
# `run` entries put in order of x's keys there, equal keys keeping their places (the merge
# of sorted runs of consecutive indices is stable). Only lowering makes it (_split_long_sort).
def _merge_runs_rule(x: Spec, perm: Spec, *, run: int, descending: bool, total: bool) -> Spec:
    check_dtypes("merge_runs", (DType.i32,), perm)
    if x.shape != perm.shape or x.ndim == 0 or not (isinstance(run, int) and run >= 1):
        raise ShapeError(f"merge_runs: runs of {run} indices {perm} into {x}")
    return perm


def _merge_runs_impl(x: np.ndarray, perm: np.ndarray, *, run: int, descending: bool, total: bool) -> np.ndarray:
    keys, out = _order_keys(np.take_along_axis(x, perm, -1), descending, total), perm.copy()
    for start in range(0, x.shape[-1], 2 * run):
        pair = slice(start, start + 2 * run)
        out[..., pair] = np.take_along_axis(perm[..., pair], np.argsort(keys[..., pair], axis=-1, kind="stable"), -1)
    return out


merge_runs_p = declare("merge_runs", _merge_runs_rule, _merge_runs_impl)
vjp_rules.register(merge_runs_p, nondiff)
jvp_rules.register(merge_runs_p, nondiff_jvp)
batch_rules.register(merge_runs_p, elementwise_batching(merge_runs_p))
register_lowering(merge_runs_p, Sort(merges=True), _key_wgsl(flips=True))


def take_along_last(x: Tensor | np.ndarray, idx: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """x's entries at `idx` (non-negative, in range) along the last axis, row by row, as
    jnp.take_along_axis(x, idx, -1): a gather from the flattened x."""
    *lead, n = x.shape
    rows = math.prod(lead)
    if rows == 1:
        return fnp.reshape(fnp.take(fnp.reshape(x, (n,)), fnp.reshape(idx, (-1,)), mode="clip"), idx.shape)
    offsets = fnp.reshape(fnp.arange(rows) * n, (rows, 1))
    flat = fnp.take(fnp.reshape(x, (-1,)), fnp.reshape(idx, (rows, idx.shape[-1])) + offsets, mode="clip")
    return fnp.reshape(flat, idx.shape)


# sort along the last axis: the values in NumPy's order (-0 equals 0, NaN last), as jnp.sort;
# `descending` is the ascending order reversed, as JAX's. Each value's cotangent is the one
# of its place: g at the ranks, argsort's inverse permutation (an argsort of it); the tangent
# is permuted as the values are: t at the argsort (reversed where descending).
def _sort_impl(x: np.ndarray, *, descending: bool) -> np.ndarray:
    out = np.take_along_axis(x, _argsort_impl(x, descending=False, total=False, run=None), -1)
    return np.flip(out, -1) if descending else out


def _sort_vjp(g: Tensor, ans: Tensor, x: Tensor, *, descending: bool) -> tuple[Tensor]:
    ranks = fnp.argsort(fnp.argsort(x, axis=-1), axis=-1)
    return (take_along_last(g, x.shape[-1] - 1 - ranks if descending else ranks),)


def _sort_jvp(primals: Sequence[Tensor], tangents: Sequence[Tensor], ans: Tensor, *, descending: bool) -> Tensor:
    (x,), (t,) = primals, tangents
    moved = take_along_last(t, fnp.argsort(x, axis=-1))
    return fnp.flip(moved, -1) if descending else moved


def _split_long_values_sort(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> int | None:
    """Rows longer than SORT_BLOCK: their argsort (in runs, merged), then a gather of the values
    there from the flattened operand; descending reads the places from the end."""
    x, spec = node.inputs[0], nodes[node.inputs[0]].spec
    *lead, n = spec.shape
    if isinstance(n, Dim) or n <= SORT_BLOCK or spec.symbols:
        return None
    order = (("descending", False), ("run", None), ("total", False))
    perm = _split_long_sort(Node("argsort", (x,), order, Spec(spec.shape, DType.i32), node.site), nodes, add, limits)
    rows, site = math.prod(lead), node.site

    def const(value: int, shape: tuple[int, ...]) -> int:
        return add("constant", [], site, value=Const.of(np.full(shape, value), DType.i32))

    perm = add("reshape", [perm], site, shape=(rows, n))
    if node.attrs["descending"]:
        places = add("sub", [const(n - 1, (n,)), add("iota", [], site, shape=(n,), axis=0, dtype=DType.i32)], site)
        perm = add("take", [perm, places], site, axis=1, mode="clip", fill_value=None)
    starts = add("iota", [], site, shape=(rows, n), axis=0, dtype=DType.i32)
    at = add("add", [add("mul", [starts, const(n, (rows, n))], site), perm], site)
    flat = add("reshape", [x], site, shape=(rows * n,))
    return add("reshape", [add("take", [flat, at], site, axis=0, mode="clip", fill_value=None)], site, shape=spec.shape)


def _sort_rule(x: Spec, *, descending: bool) -> Spec:
    _check_rows("sort", x)
    return x


sort_p = declare("sort", _sort_rule, _sort_impl)
vjp_rules.register(sort_p, _sort_vjp)
jvp_rules.register(sort_p, _sort_jvp)
batch_rules.register(sort_p, elementwise_batching(sort_p))
register_lowering(sort_p, Sort(values=True), _key_wgsl(flips=False))
rewrite_rules.register(sort_p, _split_long_values_sort)
