"""Reductions and normalizations: sum, max, min over axes; softmax and log_softmax along one axis.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.ir import DType, Node, Spec, declare
from fgrad.lower.kinds import NORMALIZATION, REDUCTION, Reduction, register_lowering
from fgrad.lower.rewrites import rewrite_rules, split_long_reduction
from fgrad.lower.library import pick
from fgrad.trace import Tensor
from fgrad.transforms.autodiff import vjp_rules

from fgrad.primitives.abstract_eval import ANY, NUMERIC, stable_log_softmax, stable_softmax, along_axis, reduction


# sum over sorted, unique axes (keepdims is a reshape in the public function);
# the cotangent is broadcast back over the summed axes.
def _unreduce(g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    return fnp.broadcast_to(fnp.reshape(g, tuple(1 if i in axes else d for i, d in enumerate(shape))), shape)


def _folds_axes(node: Node, x: Spec) -> int:
    return math.prod(x.shape[a] for a in node.attrs["axes"])


def _folds_axis(node: Node, x: Spec) -> int:
    return x.shape[node.attrs["axis"]]


def _reduce_wgsl(combine: Callable[[Any, DType], Callable[[str, str], str]],
                 init: Callable[[DType], float | int | bool]) -> Callable[..., str]:
    """A fold over the reduced axes (a loop, or a workgroup's shared effort: w.reduce decides),
    combining two values of the dtype by `combine(w, dtype)`, from `init(dtype)`."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        node = w.nodes[i]
        x, axes = w.spec(node.inputs[0]), node.attrs["axes"]
        reduced = [x.shape[a] for a in axes]

        def at(r: str) -> str:
            inner, outer = iter(w.unravel(r, reduced)), iter(coords)
            return w.value(node.inputs[0], [next(inner) if d in axes else next(outer) for d in range(x.ndim)])

        return w.reduce(math.prod(reduced), at, combine(w, x.dtype), w.literal(init(x.dtype), x.dtype), x.dtype)

    return wgsl


sum_p = declare("sum", reduction("sum", NUMERIC), lambda x, *, axes: np.sum(x, axis=axes))
vjp_rules.register(sum_p, lambda g, ans, x, *, axes: (_unreduce(g, x.shape, axes),))
register_lowering(sum_p, REDUCTION, _reduce_wgsl(lambda w, dtype: lambda acc, v: f"{acc} + {v}", lambda dtype: 0))
rewrite_rules.register(sum_p, split_long_reduction)


# max / min over axes: NaN wins, as in NumPy; on bools they are any / all. The cotangent
# goes to the elements equal to the result; ties share it evenly. That equality needs the
# very values the reduction folded (`selects`: fgrad/lower/fusion.py keeps one computation).
def _pick_vjp(g: Tensor, ans: Tensor, x: Tensor, *, axes: tuple[int, ...]) -> tuple[Tensor]:
    hit = fnp.astype(fnp.equal(x, _unreduce(ans, x.shape, axes)), DType.f32)
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

# softmax along one axis, computed stably; d = s (g - sum(g s)).
def _softmax_wgsl(log: bool) -> Callable[..., str]:
    """Max and sum of exponentials along the axis (once per row), then this element's share."""

    def wgsl(w: Any, i: int, coords: Sequence[str]) -> str:
        x, axis = w.nodes[i].inputs[0], w.nodes[i].attrs["axis"]
        n, row = w.spec(x).shape[axis], tuple(c for d, c in enumerate(coords) if d != axis)

        def at(r: str) -> str:
            return w.value(x, [r if d == axis else c for d, c in enumerate(coords)])

        m = w.once(("row max", i, row), lambda: w.reduce(
            n, at, lambda a, v: f"max({a}, {v})", w.literal(-math.inf, DType.f32), DType.f32))
        total = w.once(("row sum", i, row), lambda: w.reduce(
            n, lambda r: f"exp({at(r)} - {m})", lambda a, v: f"{a} + {v}", "0.0f", DType.f32))
        v = w.value(x, coords)
        return f"{v} - {m} - log({total})" if log else f"exp({v} - {m}) / {total}"

    return wgsl


softmax_p = declare("softmax", along_axis("softmax"), stable_softmax)
vjp_rules.register(softmax_p, lambda g, ans, x, *, axis: (ans * (g - fnp.sum(g * ans, axis, keepdims=True)),))
register_lowering(softmax_p, NORMALIZATION, _softmax_wgsl(log=False))

# log_softmax along one axis; d = g - softmax(x) sum(g) = g - exp(ans) sum(g).
log_softmax_p = declare("log_softmax", along_axis("log_softmax"), stable_log_softmax)
vjp_rules.register(log_softmax_p, lambda g, ans, x, *, axis: (g - fnp.exp(ans) * fnp.sum(g, axis, keepdims=True),))
register_lowering(log_softmax_p, NORMALIZATION, _softmax_wgsl(log=True))
