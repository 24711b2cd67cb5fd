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
from fgrad.ir import DType, Spec, declare
from fgrad.lower.kinds import NORMALIZATION, REDUCTION, SCAN, Reduction, register_lowering
from fgrad.lower.rewrites import rewrite_rules, split_long_reduction
from fgrad.lower.library import IS_NAN, cast, pick
from fgrad.trace import Tensor
from fgrad.transforms.autodiff import nondiff, vjp_rules

from fgrad.primitives.abstract_eval import (
    ANY, NUMERIC, along_axis, check_axes, check_dtypes, reduction, stable_log_softmax,
    stable_softmax, wide, wide_sum,
)

__all__ = [  # re-exported by fgrad.primitives
    "argmax_p", "argmin_p", "cumsum_p", "log_softmax_p", "max_p", "min_p", "softmax_p", "sum_p",
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

        total = w.reduce(w.extent(reduced), at, combine(w, acc), w.literal(init(acc), acc), acc)
        return cast(w, total, acc, x.dtype)

    return wgsl


# NOTE: a sum accumulates in its dtype's `wide` one (f16 in f32), as jax.numpy's sum does.
sum_p = declare("sum", reduction("sum", NUMERIC), lambda x, *, axes: wide_sum(x, axes))
vjp_rules.register(sum_p, lambda g, ans, x, *, axes: (_unreduce(g, x.shape, axes),))
register_lowering(sum_p, REDUCTION, _reduce_wgsl(lambda w, dtype: lambda acc, v: f"{acc} + {v}", lambda dtype: 0,
                                                 wide=True))
rewrite_rules.register(sum_p, split_long_reduction)


# max / min over axes: NaN wins, as in NumPy; on bools they are any / all. The cotangent
# goes to the elements equal to the result; ties share it evenly. That equality needs the
# very values the reduction folded (`selects`: fgrad/lower/fusion.py keeps one computation).
def _pick_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axes: tuple[int, ...]) -> tuple[Tensor]:
    hit = fnp.astype(fnp.equal(x, _unreduce(ans, x.shape, axes)), x.dtype)
    count = fnp.sum(hit, axes)
    return (hit * _unreduce(g / count, x.shape, axes),)


def _pick_reduce_wgsl(which: str) -> Callable[..., str]:
    start = -math.inf if which == "max" else math.inf  # a literal clamps it to the i32 range
    return _reduce_wgsl(lambda w, dtype: pick(w, which, dtype), lambda dtype: which == "min" if dtype is DType.bool else start)


max_p = declare("max", reduction("max", ANY), lambda x, *, axes: np.max(x, axis=axes))
vjp_rules.register(max_p, _pick_vjp)
register_lowering(max_p, Reduction(selects=True), _pick_reduce_wgsl("max"))
rewrite_rules.register(max_p, split_long_reduction)
min_p = declare("min", reduction("min", ANY), lambda x, *, axes: np.min(x, axis=axes))
vjp_rules.register(min_p, _pick_vjp)
register_lowering(min_p, Reduction(selects=True), _pick_reduce_wgsl("min"))
rewrite_rules.register(min_p, split_long_reduction)


# argmax / argmin over one axis (`axes`, as jax.lax.argmax): the index of the first largest
# (smallest) value, NaN beating every number, as NumPy's; i32, no derivative. One pass keeps
# each value's index beside it (w.argreduce), so no value is compared with a recomputed copy.
# Not split into two passes as sum is: the second would have to fold (value, index) pairs.
def _arg_rule(name: str) -> Callable[..., Spec]:
    def rule(x: Spec, *, axes: tuple[int, ...]) -> Spec:
        check_dtypes(name, NUMERIC, x)
        check_axes(name, x, axes)
        if len(axes) != 1:
            raise ShapeError(f"{name}: reduces one axis, got axes {axes} for {x.shape}")
        return Spec(x.shape[:axes[0]] + x.shape[axes[0] + 1:], DType.i32)

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


argmax_p = declare("argmax", _arg_rule("argmax"), lambda x, *, axes: np.argmax(x, axis=axes[0]))
vjp_rules.register(argmax_p, nondiff)
register_lowering(argmax_p, REDUCTION, _arg_reduce_wgsl("max"))
argmin_p = declare("argmin", _arg_rule("argmin"), lambda x, *, axes: np.argmin(x, axis=axes[0]))
vjp_rules.register(argmin_p, nondiff)
register_lowering(argmin_p, REDUCTION, _arg_reduce_wgsl("min"))

# softmax along one axis, computed stably; d = s (g - sum(g s)). As jax.nn.softmax: the
# exponentials are of x's dtype, their sum accumulates in its `wide` one, rounded back once.
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
            return cast(w, f"{f}({cast(w, v, dtype, wide)})", wide, dtype)

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
register_lowering(softmax_p, NORMALIZATION, _softmax_wgsl(log=False))

# log_softmax along one axis; d = g - softmax(x) sum(g) = g - exp(ans) sum(g).
log_softmax_p = declare("log_softmax", along_axis("log_softmax"), stable_log_softmax)
vjp_rules.register(log_softmax_p, lambda g, ans, x, *, axis: (g - fnp.exp(ans) * fnp.sum(g, axis, keepdims=True),))
register_lowering(log_softmax_p, NORMALIZATION, _softmax_wgsl(log=True))


# cumsum along one axis: out[i] = x[0] + ... + x[i], or x[i] + ... + x[n-1] where `reverse`
# (jax.lax.cumsum); d out[j] / d x[i] = 1 for j >= i, so the cotangent is g's cumsum the
# other way. Rows shorter than a workgroup loop over their prefix per result; longer ones
# are scanned by a workgroup each (the scan skeleton, fgrad/lower/wgsl.py). As sum, it
# accumulates in the dtype's `wide` one (f16 in f32), as jnp.cumsum does.
def _cumsum_rule(x: Spec, *, axis: int, reverse: bool) -> Spec:
    check_dtypes("cumsum", NUMERIC, x)
    check_axes("cumsum", x, (axis,))
    return x


def _cumsum_impl(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis, dtype=wide(x)), axis).astype(x.dtype)
    return np.cumsum(x, axis, dtype=wide(x)).astype(x.dtype)


def _cumsum_wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
    node = w.nodes[i]
    x, axis, dtype = node.inputs[0], node.attrs["axis"], node.spec.dtype
    acc = dtype.wide

    def at(r: str) -> str:
        return cast(w, w.value(x, [*coords[:axis], r, *coords[axis + 1:]]), dtype, acc)

    zero = -0.0 if dtype.is_float else 0  # -0.0 + x is x for every x, -0.0 too
    total = w.scan(w.spec(x).shape[axis], at, lambda a, v: f"{a} + {v}", w.literal(zero, acc), acc,
                   coords[axis], node.attrs["reverse"])
    return cast(w, total, acc, dtype)


cumsum_p = declare("cumsum", _cumsum_rule, _cumsum_impl)
vjp_rules.register(cumsum_p, lambda g, ans, x, *, axis, reverse: (fnp.cumsum(g, axis, reverse=not reverse),))
register_lowering(cumsum_p, SCAN, _cumsum_wgsl)
