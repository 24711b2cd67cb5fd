"""Testing helpers: derivatives checked against finite differences in float64."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import InputError
from fgrad.interpret import interpret
from fgrad.ir import Graph
from fgrad.typecheck import check_args
from fgrad.pytree import flatten, unflatten
from fgrad.trace import Tensor, spec_of, trace_function, user_site
from fgrad.transforms.autodiff import inline, vjp
from fgrad.transforms.passes import simplify
from fgrad.numpy import add

def check_grads(f: Graph | Callable[..., Any], args: Sequence[Any], order: int = 1, eps: float = 1e-5,
                rtol: float = 1e-5, atol: float = 1e-6, samples: int = 64, seed: int = 0) -> None:
    """Check reverse-mode derivatives of `f` against central finite differences, in float64.

    The outputs are projected on a random cotangent (zero where an output is not finite); every element of every
    float argument leaf (or `samples` random elements of a larger leaf) is
    perturbed by +-eps through `interpret(..., float64=True)`. With `order=2`
    the check is repeated on the VJP itself (projected on a random direction),
    which checks second derivatives. Raises AssertionError naming the leaf,
    the worst element, both values and the tolerance.
    """
    site = user_site()
    if order not in (1, 2) or isinstance(order, bool):
        raise InputError(f"check_grads: order must be 1 or 2, got {order!r}", site)
    if not eps > 0 or not isinstance(samples, int) or samples < 1:
        raise InputError(f"check_grads: eps must be positive and samples a positive int, got eps={eps!r}, "
                         f"samples={samples!r}", site)
    if not isinstance(args, (tuple, list)):
        raise InputError(f"check_grads: args must be a tuple of the arguments, got a {type(args).__name__}", site)
    args = tuple(args)
    graph = f if isinstance(f, Graph) else trace_function(f, args)[0]
    check_args(graph, args, "check_grads", site)
    rng = np.random.default_rng(seed)
    # An output that is not finite at `args` (a gather's NaN fill, an empty logsumexp's -inf) has
    # no derivative to check: its cotangent is zero. Any other NaN is a mismatch.
    base = flatten(interpret(graph, *args, float64=True))[0]
    ct = unflatten(graph.out_tree, [np.where(np.isfinite(b), rng.normal(size=s.shape), 0.0) if s.dtype.is_float
                                    else np.zeros(s.shape, s.dtype.np) for b, s in zip(base, graph.out_specs)])
    _compare(graph, args, ct, order, eps, rtol, atol, samples, rng)
    if order == 2:
        directions = [rng.normal(size=np.shape(x)) if spec_of(x).dtype.is_float else None for x in flatten(args)[0]]
        pullback = vjp(graph)

        def projected(*a: Any) -> Tensor:
            grads = flatten(inline(pullback, *a, ct)[1])[0]
            return functools.reduce(add, [(g * d).sum() for g, d in zip(grads, (d for d in directions if d is not None))])

        # Folded as the VJP's graph is: both sides then hold the same constants (a cotangent
        # converted to f16 is rounded once folded, while interpret's float64 mode keeps it).
        second = simplify(trace_function(projected, args, graph.arg_names)[0])
        _compare(second, args, np.float64(1.0), 2, eps, rtol, atol, samples, rng)


def _compare(graph: Graph, args: tuple[Any, ...], ct: Any, order: int, eps: float, rtol: float, atol: float,
             samples: int, rng: np.random.Generator) -> None:
    leaves, tree = flatten(args)
    leaves = [np.asarray(x, np.float64) if spec_of(x).dtype.is_float else np.asarray(x) for x in leaves]
    ct_leaves = flatten(ct)[0]

    def projected(values: list[np.ndarray]) -> float:
        outs = flatten(interpret(graph, *unflatten(tree, values), float64=True))[0]
        # A zero of the cotangent masks its output, NaN or not (see check_grads).
        return float(np.sum([np.vdot(np.where(c == 0, 0.0, o), c) for o, c, s in zip(outs, ct_leaves, graph.out_specs)
                             if s.dtype.is_float]))

    grads = flatten(interpret(vjp(graph), *unflatten(tree, leaves), ct, float64=True)[1])[0]
    float_ids = [k for k, x in enumerate(leaves) if x.dtype == np.float64]
    assert len(grads) == len(float_ids)
    for k, analytic in zip(float_ids, grads):
        leaf = leaves[k]
        flat = np.arange(leaf.size) if leaf.size <= samples else rng.choice(leaf.size, samples, replace=False)
        worst = None
        for e in flat:
            idx = np.unravel_index(e, leaf.shape)
            moved = []
            for step in (eps, -eps):
                x = leaf.copy()
                x[idx] += step
                moved.append(projected(leaves[:k] + [x] + leaves[k + 1:]))
            numeric = (moved[0] - moved[1]) / (2 * eps)
            excess = abs(analytic[idx] - numeric) - (atol + rtol * abs(numeric))
            if np.isnan(excess):  # a NaN on one side only is a mismatch; on both, agreement
                excess = 0.0 if np.isnan(analytic[idx]) and np.isnan(numeric) else np.inf
            if worst is None or excess > worst[0]:
                worst = (excess, idx, analytic[idx], numeric)
        if worst is not None and worst[0] > 0:  # None: an empty leaf, nothing to check
            _, idx, a, n = worst
            where = f"[{', '.join(map(str, idx))}]" if idx else ""
            raise AssertionError(
                f"check_grads (order {order}): d/d {graph.input_names[k]}{where}: reverse mode gives {a:.9g}, "
                f"finite differences {n:.9g}; |difference| {abs(a - n):.3g} exceeds atol {atol} + rtol {rtol} * {abs(n):.3g}")
