"""Reverse-mode differentiation as graph transforms: vjp, grad, value_and_grad.

Each transform turns a graph into a *body*: a Python function over Tensors
that replays the forward nodes and then walks them backwards, calling each
primitive's rule in `vjp_rules` (registered in fgrad/primitives.py). The rules
are written with fgrad ops, so the backward pass is itself a traced graph that
can be differentiated again.

A transform applied to a Graph traces its body into a new, simplified
Graph. Applied to a Python function it returns a function that, inside a
trace, runs the body in place (so transforms nest, as in JAX) and, on
arrays, traces once per argument signature and evaluates with `interpret`.
`vjp` on a function is `jax.vjp`: it runs the forward pass at once and
returns the outputs with a pullback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, FgradError, InputError, ShapeError, TraceError
from fgrad.interpret import interpret
from fgrad.ir import PRIMITIVES, RESULT, DType, Graph, RuleTable, Spec, call_of, call_params, results_of, symbols_of
from fgrad.transforms.passes import simplify
from fgrad.pytree import flatten, leaf_paths, unflatten
from fgrad.trace import (
    Staged, Tensor, bind, constant, current_trace, float0_for, float0_zeros, python_number, recapture, sites_from,
    spec_of, trace_function, user_site, with_fixed,
)

Body = Callable[..., Any]

# primitive -> vjp(g, ans, *inputs, **params) -> one cotangent (or None) per input.
vjp_rules = RuleTable("vjp", "vjp rule")


# primitive -> fwd(*inputs, **params) -> (results, residuals): the forward pass of a primitive whose
# reverse mode needs values from inside its own computation (a loop's iterations). Where it has
# one, the replay that precedes a backward pass binds it instead of the primitive, and the vjp
# rule takes the residuals (`residuals=`), so the computation runs once, not again in the rule.
vjp_forward_rules = RuleTable("vjp forward", "forward rule with residuals", optional=True)


def nondiff(g: Any, ans: Any, *xs: Any, **params: Any) -> tuple[None, ...]:
    """VJP of a primitive with no derivative (bool or integer results, stop_gradient)."""
    return (None,) * len(xs)


# ---------------------------------------------------------------------------
# Replay and the backward pass
# ---------------------------------------------------------------------------


def replay(graph: Graph, leaves: Sequence[Tensor | np.ndarray],
           residuals: dict[tuple, Any] | None = None) -> list[Tensor | np.ndarray]:
    """Bind every node of `graph` again in the current trace, inputs taken from `leaves`.

    Returns the value of every node, by node id; each keeps its original site. Given a
    `residuals` dict (a backward pass follows), a multiple-results primitive with a rule in
    `vjp_forward_rules` is bound by it, its residuals kept under the application's `call_of`.
    """
    env: list[Any] = [None] * len(graph.nodes)
    for i, leaf in zip(graph.inputs, leaves):
        env[i] = leaf if isinstance(leaf, Tensor) else constant(leaf, graph.nodes[i].spec.dtype)
    calls: dict[tuple, Any] = {}
    for i, node in enumerate(graph.nodes):
        if env[i] is None:
            primitive = PRIMITIVES[node.op]
            if not primitive.multiple_results:
                with sites_from(node.site):
                    env[i] = bind(primitive, *(env[j] for j in node.inputs), **node.attrs)
                continue
            key = call_of(node)
            if key not in calls:
                forward = vjp_forward_rules.get(node.op) if residuals is not None else None
                with sites_from(node.site):
                    if forward is None:
                        calls[key] = bind(primitive, *(env[j] for j in node.inputs), **call_params(node))
                    else:
                        calls[key], residuals[key] = forward(*(env[j] for j in node.inputs), **call_params(node))
            env[i] = calls[key][node.attrs[RESULT]]
    for name, i in graph.captures:
        recapture(name, env[i])
    return env


def inline(graph: Graph, *args: Any) -> Any:
    """The outputs of `graph` on `args`, bound into the current trace."""
    env = replay(graph, flatten(tuple(args))[0])
    return unflatten(graph.out_tree, [env[i] for i in graph.outputs])


def backward(graph: Graph, env: list[Any], wrt: Sequence[int], cotangents: dict[int, Tensor],
             residuals: dict[tuple, Any] | None = None) -> dict[int, Tensor]:
    """Cotangents of the nodes `wrt`, given cotangents of some later nodes.

    Only nodes on a float path from `wrt` are differentiated; a node whose
    cotangent never arrives is absent from the result. `residuals`: those `replay` kept.
    """
    active = [False] * len(graph.nodes)
    for i in wrt:
        active[i] = True
    for i, node in enumerate(graph.nodes):
        if node.inputs and node.spec.dtype.is_float and any(active[j] for j in node.inputs):
            active[i] = True
    cts = {i: ct for i, ct in cotangents.items() if active[i]}
    siblings = results_of(graph)
    for i in reversed(range(len(graph.nodes))):
        node = graph.nodes[i]
        if not node.inputs:
            continue
        rule = vjp_rules[node.op]
        kept = {}
        if PRIMITIVES[node.op].multiple_results:
            # The siblings are recorded together, so at the last of them every cotangent is complete:
            # the rule takes them all at once (None for a result none reached), with every result.
            group = siblings[call_of(node)]
            if i != max(r for r in group if r is not None) or not any(r in cts for r in group):
                continue
            g = tuple(cts.pop(r, None) for r in group)
            ans = tuple(None if r is None else env[r] for r in group)
            if residuals is not None and call_of(node) in residuals:
                kept = {"residuals": residuals[call_of(node)]}
        elif i in cts:
            g, ans = cts.pop(i), env[i]
        else:
            continue
        with sites_from(node.site):
            try:
                in_cts = rule(g, ans, *(env[j] for j in node.inputs), **kept, **call_params(node))
            except TypeError as e:  # a rule doing arithmetic on a size it takes for an int
                symbols = symbols_of(graph.nodes[j].spec for j in (i, *node.inputs))
                if not symbols:
                    raise
                raise ShapeError(f"{node.op}: its vjp does not support the symbol {symbols[0]} in "
                                 f"{', '.join(str(graph.nodes[j].spec) for j in node.inputs)} ({e})", node.site) from None
            for j, ct in zip(node.inputs, in_cts, strict=True):
                if ct is None or not active[j]:
                    continue
                want = graph.nodes[j].spec
                assert spec_of(ct) == want, f"{node.op}: vjp gave {spec_of(ct)} for {want}"
                cts[j] = cts[j] + ct if j in cts else ct
    return {i: cts[i] for i in wrt if i in cts}


def _zeros(spec: Spec) -> Tensor | np.ndarray:
    if spec.symbols:  # a constant holds a fixed shape: zeros of a symbolic one are a broadcast scalar
        return bind(PRIMITIVES["broadcast_to"], constant(np.zeros((), spec.dtype.np), spec.dtype), shape=spec.shape)
    return constant(np.broadcast_to(np.zeros((), spec.dtype.np), spec.shape), spec.dtype)


# ---------------------------------------------------------------------------
# Bodies: what each transform computes, as a function over Tensors
# ---------------------------------------------------------------------------


def _arg_leaf_ids(graph: Graph) -> list[list[int]]:
    """Input node ids of each top-level argument."""
    return [[graph.inputs[k] for k in positions] for positions in graph.arg_positions]


def _grads_of(graph: Graph, env: list[Any], argnums: Sequence[int], cts: dict[int, Tensor],
              residuals: dict[tuple, Any] | None = None, allow_int: bool = False) -> list[Any]:
    """Gradient pytrees of the arguments `argnums`: None for non-float leaves, or with `allow_int`
    float0 zeros (JAX's `allow_int=True`)."""
    arg_ids = _arg_leaf_ids(graph)
    wrt = [i for a in argnums for i in arg_ids[a] if graph.nodes[i].spec.dtype.is_float]
    found = backward(graph, env, wrt, cts, residuals)

    def grad_of(i: int) -> Any:
        spec = graph.nodes[i].spec
        if spec.dtype.is_float:
            return found.get(i, _zeros(spec))
        return float0_zeros(spec) if allow_int else None

    return [unflatten(graph.in_tree.children[a], [grad_of(i) for i in arg_ids[a]]) for a in argnums]


def seed_cotangents(graph: Graph, outputs: Sequence[int], tree: Any, cotangent: Any,
                    site: str | None) -> dict[int, Tensor]:
    """Check `cotangent` against the outputs it is for and give each float output node its cotangent.

    As in `jax.vjp`: the structure and every shape must match; a float output
    takes any float cotangent; an integer or bool output takes float0 zeros (JAX's)
    or one of its own dtype, which is ignored.
    """
    ct_leaves, ct_tree = flatten(cotangent)
    if ct_tree != tree:
        raise InputError(f"vjp: the cotangent has structure {ct_tree}, the output {tree}", site)
    cts: dict[int, Tensor] = {}
    paths = zip(leaf_paths(tree, prefix="cotangent"), leaf_paths(tree, prefix="output"))
    for (path, out_path), i, c in zip(paths, outputs, ct_leaves):
        want = graph.nodes[i].spec
        need = (f"a {want.dtype.np}{' or float64' if want.dtype is DType.f32 else ''} array" if want.dtype.is_float
                else f"{want} (the value is ignored)")
        if float0_for(c, want):
            continue
        try:
            got = spec_of(c, path)
        except FgradError:  # not an array, or a dtype fgrad lacks
            what = f"{c.dtype}{list(np.shape(c))}" if hasattr(c, "dtype") else f"a {type(c).__name__}"
            raise InputError(f"vjp: {path} is {what}, expected {need} for {out_path} {want}", site) from None
        if got.shape != want.shape:
            raise InputError(f"vjp: {path} has shape {got.shape}, expected {want.shape}, the shape of {out_path} "
                             f"{want}", site)
        if got.dtype is not want.dtype:
            raise InputError(f"vjp: {path} is {got}, expected {need} for {out_path} {want}", site)
        if want.dtype.is_float:
            c = c.astype(want.dtype) if isinstance(c, Tensor) else constant(c, want.dtype)
            cts[i] = cts[i] + c if i in cts else c
    return cts


def vjp_body(graph: Graph, argnums: Sequence[int]) -> Body:
    """`(*args, cotangent) -> (outputs, grads)`; grads is a tuple over `argnums`."""

    def body(*args_and_ct: Any) -> Any:
        *args, ct = args_and_ct
        residuals: dict[tuple, Any] = {}
        env = replay(graph, flatten(tuple(args))[0], residuals)
        cts = seed_cotangents(graph, graph.outputs, graph.out_tree, ct, user_site())
        outs = unflatten(graph.out_tree, [env[i] for i in graph.outputs])
        return outs, tuple(_grads_of(graph, env, argnums, cts, residuals))

    return body


def grad_body(graph: Graph, argnums: int | Sequence[int], has_aux: bool, with_value: bool, nargs: int,
              allow_int: bool = False) -> Body:
    """`(*args) -> grads` (or `((value, aux), grads)` ...) of a scalar-valued graph of `nargs`
    arguments (a negative argnum counts from the last); integer leaves' gradients float0 zeros
    where `allow_int`."""
    nums = tuple(a % nargs for a in ((argnums,) if isinstance(argnums, int) else argnums))

    def body(*args: Any) -> Any:
        residuals: dict[tuple, Any] = {}
        env = replay(graph, flatten(tuple(args))[0], residuals)
        outs = unflatten(graph.out_tree, [env[i] for i in graph.outputs])
        loss_id = graph.outputs[0]
        grads = _grads_of(graph, env, nums, {loss_id: constant(1.0, graph.nodes[loss_id].spec.dtype)}, residuals,
                          allow_int)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        return (outs, grads) if with_value else ((grads, outs[1]) if has_aux else grads)

    return body


def _check_grad(graph: Graph, nargs: int, argnums: int | Sequence[int], has_aux: bool, name: str,
                site: str | None, allow_int: bool = False) -> None:
    """The errors `grad` owes its user before any work: output kind, argnums, input dtypes (integer
    and bool ones too, unless `allow_int`)."""
    if has_aux:
        check_aux(graph, name, site)
    first = graph.out_tree.children[0] if has_aux else graph.out_tree
    if first.kind != "leaf":
        raise ShapeError(f"{name}: the function must return a scalar, got a pytree {first}", site)
    out = graph.nodes[graph.outputs[0]].spec
    if out.shape != ():
        raise ShapeError(f"{name}: the function must return a scalar, got {out}; use fg.vjp for non-scalar outputs", site)
    if not out.dtype.is_float:
        raise DTypeError(f"{name}: the function must return a float scalar, got {out}", site)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -nargs <= a < nargs:
            raise InputError(f"{name}: argnums={argnums!r} is out of range for a function of {nargs} arguments", site)
    arg_ids = _arg_leaf_ids(graph)
    for a in (a % nargs for a in nums):
        for i in arg_ids[a]:
            node = graph.nodes[i]
            if node.spec.dtype.is_float:
                continue
            if not allow_int:
                raise DTypeError(
                    f"{name}: argument {node.attrs['name']} is {node.spec}; gradients need float inputs "
                    f"(argnums={argnums!r}), or allow_int=True for float0 zeros", site)
            if node.spec.symbols:
                raise ShapeError(f"{name}: allow_int=True gives argument {node.attrs['name']} {node.spec} float0 "
                                 "zeros in its shape, which must be fixed, not symbolic", site)


def check_aux(graph: Graph, name: str, site: str | None) -> None:
    """Refuse a function given `has_aux=True` that returns no pair (out, aux)."""
    if not (graph.out_tree.kind in ("tuple", "list") and len(graph.out_tree.children) == 2):
        raise ShapeError(f"{name}: has_aux=True needs the function to return a pair (out, aux), got {graph.out_tree}",
                         site)


# ---------------------------------------------------------------------------
# Public transforms: Graph -> Graph, or function -> function
# ---------------------------------------------------------------------------

MakeBody = Callable[[Graph, int], Body]  # (graph, number of user arguments) -> body
Check = Callable[[Graph, int, "str | None"], None]


def _trace_body(body: Body, args: Sequence[Any], names: Sequence[str]) -> Graph:
    return simplify(trace_function(body, args, names)[0])


PARTIALS = 32  # the most sets of fixed Python numbers a transformed function keeps a transform for


class Transformed:
    """A transform applied to a Python function, as `fg.grad(f)` returns.

    Inside a trace it traces `fn` (closures over outer Tensors become extra
    inputs) and runs the transform's body in place; on arrays it builds the
    transformed graph once per argument signature and evaluates it with
    `interpret`.
    """

    def __init__(self, fn: Callable[..., Any], name: str, make_body: MakeBody, check: Check):
        functools.update_wrapper(self, fn)
        self.fn, self.name, self.make_body, self.check = fn, name, make_body, check
        self.staged: Staged[Graph] = Staged()
        # As JAX's grad: a Python number among the arguments not differentiated (`argnums`, set by
        # grad and value_and_grad) reaches fn as it is (a count, a flag), fixed in a transform of
        # fn over the others (`remake`, with the argnums among them), one per set of such values.
        self.argnums: int | Sequence[int] | None = None
        self.remake: Callable[[Callable[..., Any], Any], Transformed] | None = None
        self.partials: dict[tuple, Transformed] = {}

    def _fixed(self, args: tuple[Any, ...]) -> dict[int, Any]:
        """The positions and values of the Python numbers among the arguments not differentiated."""
        if self.argnums is None or not args:
            return {}
        nums = {a % len(args) for a in ((self.argnums,) if isinstance(self.argnums, int) else self.argnums)}
        return {i: a for i, a in enumerate(args) if i not in nums and python_number(a)}

    def _partial(self, fixed: dict[int, Any], nargs: int) -> Transformed:
        key = tuple((i, type(v).__name__, v) for i, v in fixed.items())
        if key not in self.partials:
            kept = [i for i in range(nargs) if i not in fixed]
            nums = self.argnums
            nums = kept.index(nums % nargs) if isinstance(nums, int) else tuple(kept.index(a % nargs) for a in nums)
            assert self.remake is not None
            if len(self.partials) >= PARTIALS:  # a number that changes every call (a step size) retraces, as in JAX
                self.partials.pop(next(iter(self.partials)))
            self.partials[key] = self.remake(functools.wraps(self.fn)(with_fixed(self.fn, fixed, nargs)), nums)
        return self.partials[key]

    def __repr__(self) -> str:
        return f"<fg.{self.name} of {getattr(self.fn, '__name__', self.fn)}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        site = user_site()
        if kwargs:
            raise TraceError(f"{self.name}: keyword argument {next(iter(kwargs))!r}: fg.{self.name}(fn) takes "
                             "the arguments of fn positionally", site)
        fixed = self._fixed(args)
        if fixed:
            return self._partial(fixed, len(args))(*(a for i, a in enumerate(args) if i not in fixed))

        def build() -> Graph:  # tracing names an argument that is not an array
            graph = trace_function(self.fn, args)[0]
            self.check(graph, len(args), site)
            return _trace_body(self.make_body(graph, len(args)), args, graph.arg_names)

        transformed = self.staged.product(args, (), build)
        if transformed is None:  # inside a trace: closures over outer Tensors become extra inputs
            graph, closed_over = trace_function(self.fn, args, closures=True)
            self.check(graph, len(args), site)
            return self.make_body(graph, len(args))(*args, tuple(closed_over))
        return interpret(transformed, *args)


def _apply(f: Graph | Callable[..., Any], name: str, make_body: MakeBody, check: Check,
           extra: Sequence[str] = (), extra_specs: Sequence[Any] = ()) -> Any:
    if not isinstance(f, Graph):
        if not callable(f):
            raise TraceError(f"{name}: expected a function or a Graph, got a {type(f).__name__}", user_site())
        return Transformed(f, name, make_body, check)
    nargs = len(f.in_tree.children)
    check(f, nargs, user_site())
    arg_specs = list(unflatten(f.in_tree, list(f.in_specs)))
    return _trace_body(make_body(f, nargs), [*arg_specs, *extra_specs], [*f.arg_names, *extra])


def check_keywords(name: str, site: str | None, holomorphic: Any = False, reduce_axes: Any = ()) -> None:
    """Refuse the keywords of JAX's differentiation fgrad cannot honour: `holomorphic=True` (fgrad has
    no complex dtype) and any `reduce_axes` (deprecated by JAX, which refuses it too)."""
    if holomorphic:
        raise DTypeError(f"{name}: holomorphic=True differentiates complex functions, and fgrad has no complex "
                         "dtype; leave it False", site)
    if reduce_axes:
        raise InputError(f"{name}: reduce_axes={reduce_axes!r}: JAX deprecated reduce_axes and refuses it; leave it "
                         "(); sum over a named axis with fg.lax.psum", site)


def vjp(f: Graph | Callable[..., Any], *primals: Any, has_aux: bool = False, reduce_axes: Any = ()) -> Any:
    """Reverse mode with respect to every argument, as `jax.vjp`.

    `fg.vjp(fn, *primals)` returns `(primals_out, vjp_fn)`, where
    `primals_out = fn(*primals)` and `vjp_fn(cotangent)` takes one cotangent
    with the structure and shapes of `primals_out` (an integer output's: JAX's
    float0 zeros, or any of its dtype, ignored) and returns a tuple with
    one cotangent pytree per primal (None at non-float leaves, where JAX gives float0). With
    `has_aux`, `fn` returns `(out, aux)` and `vjp` returns
    `(out, vjp_fn, aux)`. On arrays the forward pass runs once, eagerly;
    inside a trace it binds Tensors, so `vjp` nests in other transforms.

    `fg.vjp(graph)` on a Graph `(*args) -> out` returns the Graph
    `(*args, cotangent) -> (out, grads)`, `grads` as above. `reduce_axes` must be () (JAX
    deprecated it).
    """
    site = user_site()
    check_keywords("vjp", site, reduce_axes=reduce_axes)
    if isinstance(f, Graph):
        if primals or has_aux:
            raise InputError("vjp: fg.vjp(graph) takes only the Graph and returns the Graph (*args, cotangent) -> "
                             "(out, grads); for values, use fg.vjp(fn, *primals) with a function", site)
        out_specs = [unflatten(f.out_tree, list(f.out_specs))]
        return _apply(f, "vjp", lambda graph, n: vjp_body(graph, range(n)), lambda graph, n, site: None,
                      ["cotangent"], out_specs)
    graph, closed_over = trace_function(f, primals, closures=True)
    if has_aux:
        check_aux(graph, "vjp", site)
    residuals: dict[tuple, Any] = {}
    env = replay(graph, [*flatten(tuple(primals))[0], *closed_over], residuals)
    outs = unflatten(graph.out_tree, [env[i] for i in graph.outputs])
    tree = graph.out_tree.children[0] if has_aux else graph.out_tree
    differentiated = graph.outputs[:tree.num_leaves]

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        values, kept = env, residuals
        if current_trace() is not None:  # called in a trace (vmap of it: jacrev) after an eager forward pass
            values = [v if isinstance(v, Tensor) or v is None else constant(v, node.spec.dtype)
                      for v, node in zip(env, graph.nodes)]
            kept = {k: tuple(v if isinstance(v, Tensor) else constant(v, spec_of(v).dtype) for v in vs)
                    for k, vs in residuals.items()}
        cts = seed_cotangents(graph, differentiated, tree, cotangent, user_site())
        return tuple(_grads_of(graph, values, range(len(primals)), cts, kept))

    vjp_fn.__qualname__ = "vjp_fn"  # a call with the wrong arguments names it, not its enclosing function
    return (outs[0], vjp_fn, outs[1]) if has_aux else (outs, vjp_fn)


def grad(f: Graph | Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes: Any = ()) -> Graph | Callable[..., Any]:
    """Gradient of a scalar float function with respect to the arguments `argnums`.

    Given a Graph, returns the gradient Graph (same arguments; the gradient
    has the structure of argument `argnums`, or is a tuple of them if
    `argnums` is a tuple; with `has_aux`, `(grads, aux)`). Given a function,
    returns a function, as `jax.grad` does. `grad(grad(f))` works.

    Integer and bool inputs are refused unless `allow_int`, which gives them JAX's gradient:
    zeros of dtype float0 (`np.dtype([("float0", np.void, 0)])`, JAX's `jax.dtypes.float0`) in
    their shape, NumPy arrays eagerly, inside traces and from `fg.jit` alike (a float0 array holds
    no data: it cannot be an argument of a traced function). `holomorphic` must be False (fgrad has
    no complex dtype) and `reduce_axes` () (JAX deprecated it).
    """
    return _reverse(f, argnums, has_aux, False, "grad", holomorphic, allow_int, reduce_axes)


def value_and_grad(f: Graph | Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes: Any = ()
                   ) -> Graph | Callable[..., Any]:
    """Like `grad`, but returns `(value, grads)` (`((value, aux), grads)` with `has_aux`)."""
    return _reverse(f, argnums, has_aux, True, "value_and_grad", holomorphic, allow_int, reduce_axes)


def _reverse(f: Graph | Callable[..., Any], argnums: int | Sequence[int], has_aux: bool, with_value: bool, name: str,
             holomorphic: Any, allow_int: bool, reduce_axes: Any) -> Any:
    site = user_site()
    check_keywords(name, site, holomorphic, reduce_axes)
    if not isinstance(argnums, int) and not (isinstance(argnums, (tuple, list)) and
                                             all(isinstance(a, int) for a in argnums)):
        raise InputError(f"{name}: argnums must be an int or a tuple of ints, got {argnums!r}", site)
    allow_int = bool(allow_int)
    transformed = _apply(
        f, name,
        lambda graph, n: grad_body(graph, argnums, has_aux, with_value, n, allow_int),
        lambda graph, n, site: _check_grad(graph, n, argnums, has_aux, name, site, allow_int),
    )
    if isinstance(transformed, Transformed):
        transformed.argnums = argnums
        transformed.remake = lambda fn, nums: _reverse(fn, nums, has_aux, with_value, name, False, allow_int, ())
    return transformed
