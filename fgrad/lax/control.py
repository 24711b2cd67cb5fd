"""jax.lax's map and associative_scan, over fgrad's scan and slicing, so that both trace,
differentiate and compile as any other fgrad function; custom_linear_solve and custom_root, solves
differentiated implicitly through a custom_vjp."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import ShapeError, TraceError
from fgrad.ir import Dim, Spec
from fgrad.pytree import flatten, tree_map, unflatten
from fgrad.trace import Tensor, user_site
from fgrad.transforms.control_flow import scan
from fgrad.numpy.promotion import _brief, _dtype, _shape, asarray
from fgrad.lax.shapes import _axis, concatenate, rev, slice_in_dim

__all__ = ["associative_scan", "composite", "custom_linear_solve", "custom_root", "map", "platform_dependent"]


def map(f: Callable[[Any], Any], xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001
    """f applied to each slice of the pytree `xs` along its leading axis, the results stacked, as
    `jax.lax.map` (a `scan` with no carry). `batch_size` is validated; the result does not depend
    on it, so the slices are always mapped one at a time."""
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer))
                                   or batch_size < 0):
        raise TraceError(f"map: batch_size must be a non-negative integer or None, got {_brief(batch_size)}",
                         user_site())
    return scan(lambda carry, x: (carry, f(x)), (), xs)[1]


def platform_dependent(*args: Any, default: Callable[..., Any] | None = None, **per_platform: Callable[..., Any]) -> Any:
    """`per_platform[platform](*args)`, else `default(*args)`, as `jax.lax.platform_dependent`.

    fgrad's platforms are "cpu" (a CPU adapter: llvmpipe, lavapipe, SwiftShader) and "webgpu" (a
    GPU). fgrad lowers for its one device when it traces, so only the branch chosen is traced: a
    "cuda", "rocm" or "tpu" branch, written for JAX's own backends, is never taken. As in JAX,
    "gpu" is refused (name "webgpu" here), and a platform with no branch and no default is an error.
    """
    from fgrad.runtime import default_backend  # NOTE: the runtime is opened only when a branch is chosen

    site = user_site()
    if "gpu" in per_platform:
        raise TraceError("platform_dependent: use 'webgpu' (fgrad's GPUs), 'cpu', or JAX's 'cuda' and 'rocm', not "
                         "'gpu'", site)
    for name, branch in (*per_platform.items(), *((("default", default),) if default is not None else ())):
        if not callable(branch):
            raise TraceError(f"platform_dependent: the {name!r} branch must be a function, got {_brief(branch)}", site)
    platform = "cpu" if default_backend() == "cpu" else "webgpu"
    branch = per_platform.get(platform, default)
    if branch is None:
        raise TraceError(f"platform_dependent: no branch for this platform, {platform!r}, and no default (branches: "
                         f"{sorted(per_platform)})", site)
    return branch(*args)


def _interleave(a: Tensor | np.ndarray, b: Tensor | np.ndarray, axis: int) -> Tensor | np.ndarray:
    """a[0], b[0], a[1], b[1], ... along `axis`, where a has as many entries as b or one more."""
    n = _shape(a)[axis] + _shape(b)[axis]
    if _shape(a)[axis] > _shape(b)[axis]:  # b padded with any one entry, cut off again below
        b = concatenate([b, slice_in_dim(a, 0, 1, 1, axis)], axis)
    pairs = concatenate([fnp.expand_dims(a, axis + 1), fnp.expand_dims(b, axis + 1)], axis + 1)
    shape = _shape(pairs)
    merged = fnp.reshape(pairs, shape[:axis] + (2 * shape[axis],) + shape[axis + 2:])
    return slice_in_dim(merged, 0, n, 1, axis)


def associative_scan(fn: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """The running combination fn(...fn(fn(e[0], e[1]), e[2])..., e[i]) along `axis` of the
    pytree `elems`, for an associative `fn` of two pytrees of slices, as
    `jax.lax.associative_scan`: JAX's work-efficient odd/even recursion, O(log n) levels of
    calls to fn on whole slices. With `reverse`, running from the end."""
    leaves, tree = flatten(elems)
    if not leaves:
        raise ShapeError("associative_scan: elems has no arrays", user_site())
    leaves = [asarray(leaf) for leaf in leaves]
    axis = _axis("associative_scan", axis, len(_shape(leaves[0])))
    n = _shape(leaves[0])[axis]
    if isinstance(n, Dim) or any(len(_shape(x)) <= axis or _shape(x)[axis] != n for x in leaves):
        raise ShapeError(f"associative_scan: the arrays of elems must share a fixed size along axis {axis}, got "
                         f"{[_shape(x) for x in leaves]}", user_site())
    if not isinstance(reverse, (bool, np.bool_)):
        raise TraceError(f"associative_scan: reverse must be True or False, got {_brief(reverse)}", user_site())

    def combine(a: list[Any], b: list[Any]) -> list[Any]:
        out, got = flatten(fn(unflatten(tree, a), unflatten(tree, b)))
        if got != tree:
            raise TraceError(f"associative_scan: fn must return the structure of elems, {tree}, got {got}",
                             user_site())
        return [asarray(x) for x in out]

    def run(elems: list[Any]) -> list[Any]:
        count = _shape(elems[0])[axis]
        if count < 2:
            return elems
        odd = run(combine([slice_in_dim(e, 0, count - 1, 2, axis) for e in elems],
                          [slice_in_dim(e, 1, count, 2, axis) for e in elems]))
        later = [slice_in_dim(e, 2, count, 2, axis) for e in elems]
        if _shape(later[0])[axis] == 0:  # two entries: the first is its own running value
            even = [slice_in_dim(e, 0, 1, 1, axis) for e in elems]
        else:
            left = [slice_in_dim(o, 0, _shape(o)[axis] - 1, 1, axis) for o in odd] if count % 2 == 0 else odd
            even = [concatenate([slice_in_dim(e, 0, 1, 1, axis), r], axis) for e, r in zip(elems, combine(left, later))]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    if reverse:
        leaves = [rev(x, (axis,)) for x in leaves]
    out = run(leaves)
    if reverse:
        out = [rev(x, (axis,)) for x in out]
    return unflatten(tree, out)


def _closed(name: str, fn: Callable[[Any], Any], like: Any) -> tuple[Callable[..., Any], list[Any]]:
    """`fn`, a function of one pytree shaped like `like` to a pytree shaped like it, with the
    Tensors it closes over made explicit: `(apply(closures, x), closures)`, JAX's closure
    conversion, so that a rule can differentiate with respect to them."""
    from fgrad.transforms.custom import closure_converted

    leaves, tree = flatten(like)
    specs = [Spec(_shape(v), _dtype(v)) for v in leaves]
    apply, closures, out_tree, got = closure_converted(fn, like)
    if out_tree != tree or got != specs:
        raise ShapeError(f"{name}: the function must map its argument's structure and specs "
                         f"{[str(s) for s in specs]} to themselves, got {out_tree} of {[str(s) for s in got]}",
                         user_site())
    return apply, closures


def _implicit(name: str, fn: Callable[[Any], Any], like: Any, solve: Callable[..., Any],
              adjoint: Callable[[Callable[[Any], Any], Any, Any], Any], to_like: bool) -> Any:
    """solve(fn, like) differentiated implicitly, the part custom_linear_solve and custom_root
    share: a custom_vjp over like's leaves and the tensors fn and solve close over (both made
    explicit). Its backward pass takes w = adjoint(fn at the tensors, x, cotangent of x) and gives
    fn's tensors -(d fn(x) / d tensors)^T w, like w itself where `to_like` (else none), and solve's
    tensors none: the solver's steps are never differentiated."""
    from fgrad.primitives.calls import traced_body
    from fgrad.transforms.autodiff import vjp
    from fgrad.transforms.bodies import evaluate
    from fgrad.transforms.custom import custom_vjp

    for what, f in (("the function", fn), ("solve", solve)):
        if not callable(f):
            raise TraceError(f"{name}: {what} must be a function, got {_brief(f)}", user_site())
    apply, closures = _closed(name, fn, like)
    leaves, tree = flatten(like)
    n, m = len(leaves), len(closures)
    specs = [Spec(_shape(v), _dtype(v)) for v in (*leaves, *closures)]
    solve_graph, solve_closures, out_tree = traced_body(
        lambda *ls: solve(lambda x: apply(ls[n:], x), unflatten(tree, list(ls[:n]))), specs,
        [f"arg.{k}" for k in range(n + m)])

    def solved(*args: Any) -> tuple[Any, ...]:
        return tuple(evaluate(solve_graph, dict(zip(solve_graph.inputs, args)), solve_graph.outputs))

    def forward(*args: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        out = solved(*args)
        return out, (out[:n], args[n:n + m])

    def backward(residuals: tuple[Any, ...], cotangents: tuple[Any, ...]) -> tuple[Any, ...]:
        x, values = residuals
        x = unflatten(tree, list(x))
        w = adjoint(lambda v: apply(values, v), x, unflatten(tree, list(cotangents[:n])))
        floats = [k for k, v in enumerate(values) if _dtype(v).is_float]
        ct_values: list[Any] = [None] * m
        if floats:
            def at(*vs: Any) -> Any:
                chosen = list(values)
                for k, v in zip(floats, vs):
                    chosen[k] = v
                return apply(chosen, x)

            for k, g in zip(floats, vjp(at, *(values[k] for k in floats))[1](tree_map(fnp.negative, w))):
                ct_values[k] = g
        return (*(flatten(w)[0] if to_like else [None] * n), *ct_values, *([None] * len(solve_closures)))

    call = custom_vjp(solved)
    call.defvjp(forward, backward)
    return unflatten(out_tree, list(call(*leaves, *closures, *solve_closures)))


def _first(has_aux: bool, out: Any) -> Any:
    return out[0] if has_aux else out


def custom_linear_solve(matvec: Callable[[Any], Any], b: Any, solve: Callable[[Callable[[Any], Any], Any], Any],
                        transpose_solve: Callable[[Callable[[Any], Any], Any], Any] | None = None,
                        symmetric: bool = False, has_aux: bool = False) -> Any:
    """x = solve(matvec, b) for the linear map `matvec`, differentiated implicitly, as
    `jax.lax.custom_linear_solve`: the cotangent of b is transpose_solve(vecmat, ct) (solve itself
    where `symmetric`), that of what matvec closes over -(d matvec(x))^T of it; what solve closes
    over gets none. Without transpose_solve, b's cotangent is the transpose of the solver's own
    linear map (reverse mode through its steps), where JAX raises. b is a pytree; matvec maps b's
    structure to itself.

    Args:
        matvec: the linear map A (a function of one pytree).
        b: the right-hand side.
        solve: solve(matvec, b) -> x with matvec(x) = b (its method is free: direct, iterative).
        transpose_solve: transpose_solve(vecmat, b) -> x with vecmat(x) = b, vecmat A's transpose.
        has_aux: solve and transpose_solve return (x, aux); aux goes along, not differentiated.
    """
    from fgrad.transforms.autodiff import vjp

    def adjoint(mv: Callable[[Any], Any], x: Any, ct: Any) -> Any:
        if symmetric:
            return _first(has_aux, solve(mv, ct))
        if transpose_solve is None:  # the transpose of the solver's own map b -> x, through its steps
            return vjp(lambda rhs: _first(has_aux, solve(mv, rhs)), x)[1](ct)[0]
        pull = vjp(mv, x)[1]
        return _first(has_aux, transpose_solve(lambda v: pull(v)[0], ct))

    return _implicit("custom_linear_solve", matvec, b, solve, adjoint, to_like=True)


def custom_root(f: Callable[[Any], Any], initial_guess: Any, solve: Callable[[Callable[[Any], Any], Any], Any],
                tangent_solve: Callable[[Callable[[Any], Any], Any], Any], has_aux: bool = False) -> Any:
    """x = solve(f, initial_guess) with f(x) = 0, differentiated by the implicit function theorem,
    as `jax.lax.custom_root`: the tensors f closes over get -(df/dtensors)^T (df/dx)^-T ct, the
    transposed system solved by transposing tangent_solve (linear in its right-hand side);
    initial_guess and what solve closes over get none.

    Args:
        f: a function of one pytree to one of the same structure.
        initial_guess: where solve starts.
        solve: solve(f, initial_guess) -> x with f(x) = 0.
        tangent_solve: tangent_solve(g, y) -> x with g(x) = y, for g f linearized at its root
            (for a scalar, `lambda g, y: y / g(1.0)`).
        has_aux: solve returns (x, aux); aux goes along, not differentiated.
    """
    from fgrad.transforms.autodiff import vjp
    from fgrad.transforms.forward import jvp

    if not callable(tangent_solve):
        raise TraceError(f"custom_root: tangent_solve must be a function, got {_brief(tangent_solve)}", user_site())

    def adjoint(fx: Callable[[Any], Any], x: Any, ct: Any) -> Any:
        def linear(t: Any) -> Any:  # f linearized at the root
            return jvp(fx, (x,), (t,))[1]

        return vjp(lambda rhs: tangent_solve(linear, rhs), x)[1](ct)[0]

    return _implicit("custom_root", f, initial_guess, solve, adjoint, to_like=False)


def composite(decomposition: Callable[..., Any], name: str, version: int = 0) -> Callable[..., Any]:
    """`decomposition` as one named operation, as `jax.lax.composite` (which XLA may lower as a
    unit, its keyword arguments the operation's attributes): fgrad computes the decomposition,
    which every transform sees through."""
    site = user_site()
    if not callable(decomposition):
        raise TraceError(f"composite: expected a function, got a {type(decomposition).__name__}", site)
    if not isinstance(name, str) or isinstance(version, bool) or not isinstance(version, int):
        raise TraceError(f"composite: name must be a str and version an int, got {name!r} and {version!r}", site)

    @functools.wraps(decomposition)
    def composed(*args: Any, **kwargs: Any) -> Any:
        return decomposition(*args, **kwargs)

    return composed
