"""Forward mode: jvp, linearize, jacfwd, jacrev, hessian.

`jvp` replays a graph, binding every node again and, beside it, the node's
tangent by its primitive's rule in `jvp_rules`:

    rule(primals, tangents, ans, **params) -> tangent, or None for a zero one

`primals` are the node's inputs, `tangents` theirs (None where the tangent is
zero: an integer input, or one no differentiated argument reaches), `ans` the
node's own value (a tuple of every result's, for a multiple-results
primitive, whose rule returns a tuple of tangents). A rule is called only when
some tangent is not None and the result is a float. Rules are written with
fgrad's functions, so the tangent program is a traced graph that every other
transform (grad, vmap, jit) takes. Most rules are one of the generic ones
below, shared by families: `linear_jvp` (reshapes, sums, slices: the tangent
goes through the primitive itself), `multilinear_jvp` (products: one term per
operand), `diagonal_jvp` (elementwise functions, whose Jacobian is diagonal
and so its own transpose: the tangent is the vjp rule applied to the tangent)
and `nondiff_jvp` (integer and boolean results, stop_gradient).

`jacfwd`, `jacrev` and `hessian` are `vmap` over `jvp` and `vjp`, as in JAX:
one batched program, not a loop of calls.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: Jacobians are cut and shaped with the public functions, read at call time
from fgrad.errors import DTypeError, FgradError, InputError, ShapeError, TraceError
from fgrad.ir import PRIMITIVES, RESULT, DType, Graph, Primitive, RuleTable, call_of, call_params, input_p, results_of
from fgrad.pytree import flatten, leaf_paths, unflatten
from fgrad.interpret import interpret
from fgrad.trace import Tensor, bind, constant, current_trace, float0_for, sites_from, spec_of, trace_function, user_site
from fgrad.transforms.autodiff import check_aux, check_keywords, replay, vjp
from fgrad.transforms.batching import vmap
from fgrad.transforms.passes import simplify

# primitive -> jvp(primals, tangents, ans, **params) -> the tangent of the result (None: zero).
jvp_rules = RuleTable("jvp", "jvp rule")


def nondiff_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, **params: Any) -> None:
    """JVP of a primitive with no derivative: its tangent is zero."""
    return None


def zeros_like(x: Any) -> Tensor | np.ndarray:
    """Zeros of `x`'s spec (a broadcast scalar, so symbolic shapes work too)."""
    spec = spec_of(x)
    zero = constant(np.zeros((), spec.dtype.np), spec.dtype)
    return bind(PRIMITIVES["broadcast_to"], zero, shape=spec.shape) if spec.shape else zero


def _or_zeros(primal: Any, tangent: Any) -> Any:
    """The tangent of a float operand (zeros where it has none); an integer operand (an index, a
    count) as it is, since a linear primitive is linear in its float operands only."""
    if not spec_of(primal).dtype.is_float:
        return primal
    return zeros_like(primal) if tangent is None else tangent


def linear_jvp(primitive: Primitive) -> Callable[..., Any]:
    """The rule of a primitive linear in its float operands together (reshape, sum, slice, add,
    concatenate, ...): its tangent is the primitive applied to the tangents."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, **params: Any) -> Any:
        return bind(primitive, *(_or_zeros(x, t) for x, t in zip(primals, tangents)), **params)

    rule.linear_in = "all"  # type: ignore[attr-defined]  # what linear_transpose reads
    return rule


def multilinear_jvp(primitive: Primitive) -> Callable[..., Any]:
    """The rule of a primitive linear in each float operand apart (mul, matmul, convolution): the
    product rule, one term per operand with a tangent."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, **params: Any) -> Any:
        out = None
        for k, t in enumerate(tangents):
            if t is None:
                continue
            term = bind(primitive, *(t if j == k else x for j, x in enumerate(primals)), **params)
            out = term if out is None else out + term
        return out

    rule.linear_in = "one"  # type: ignore[attr-defined]  # what linear_transpose reads
    return rule


def diagonal_jvp(vjp_rule: Callable[..., Any]) -> Callable[..., Any]:
    """The rule of an elementwise primitive from its vjp rule: each operand's Jacobian is diagonal,
    hence its own transpose, so the tangent is the sum over operands of the vjp rule's
    cotangent for that operand, given the operand's tangent."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, **params: Any) -> Any:
        out = None
        for k, t in enumerate(tangents):
            if t is None:
                continue
            term = vjp_rule(t, ans, *primals, **params)[k]
            if term is not None:
                out = term if out is None else out + term
        return out

    return rule


# ---------------------------------------------------------------------------
# The forward pass with tangents
# ---------------------------------------------------------------------------


def jvp_replay(graph: Graph, primals: Sequence[Any], tangents: Sequence[Any],
               values: Sequence[Any] | None = None) -> tuple[list[Any], list[Any]]:
    """Bind `graph` again on the input leaves `primals`, with their `tangents` (None: zero).

    Given `values` (every node's, from an earlier forward pass), the nodes are not bound again
    and only tangents are computed: what `linearize` keeps. Returns the value and the tangent
    (None: zero) of every node, by node id.
    """
    def held(x: Any, dtype: DType) -> Any:
        return x if isinstance(x, Tensor) else constant(x, dtype)

    env: list[Any] = [None] * len(graph.nodes)
    if values is not None:
        env = [held(v, n.spec.dtype) for v, n in zip(values, graph.nodes)]
    tan: list[Any] = [None] * len(graph.nodes)
    for i, x, t in zip(graph.inputs, primals, tangents):
        env[i] = held(x, graph.nodes[i].spec.dtype)
        tan[i] = t if graph.nodes[i].spec.dtype.is_float else None
    calls: dict[tuple, tuple[Any, Any]] = {}
    results = results_of(graph) if values is not None else {}  # each application's result nodes
    for i, node in enumerate(graph.nodes):
        if node.op == input_p.name:
            continue
        primitive = PRIMITIVES[node.op]
        xs, ts = [env[j] for j in node.inputs], [tan[j] for j in node.inputs]
        params = call_params(node)
        differentiated = any(t is not None for t in ts)
        with sites_from(node.site):
            if primitive.multiple_results:
                key = call_of(node)
                if key not in calls:
                    ans = bind(primitive, *xs, **params) if values is None else \
                        tuple(None if r is None else env[r] for r in results[key])
                    calls[key] = ans, (jvp_rules[node.op](xs, ts, ans, **params) if differentiated else None)
                ans, outs = calls[key]
                k = node.attrs[RESULT]
                env[i], tan[i] = ans[k], (None if outs is None or not node.spec.dtype.is_float else outs[k])
            else:
                if values is None:
                    env[i] = bind(primitive, *xs, **params)
                if node.spec.dtype.is_float and differentiated:
                    tan[i] = jvp_rules[node.op](xs, ts, env[i], **params)
        if tan[i] is not None:
            assert spec_of(tan[i]) == node.spec, f"{node.op}: jvp gave {spec_of(tan[i])} for {node.spec}"
    return env, tan


def _check_tangents(primals: Sequence[Any], tangents: Any, site: str | None) -> list[Any]:
    """The tangent leaves for `primals`, as `jax.jvp` checks them: one structure, every shape
    equal, a float tangent of the primal's dtype for a float primal (an integer primal's
    tangent, JAX's float0 or any dtype, is ignored)."""
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise InputError(f"jvp: primals and tangents must be tuples of one length, got {len(primals)} primals and "
                         f"{'a ' + type(tangents).__name__ if not isinstance(tangents, (tuple, list)) else len(tangents)}"
                         f"{' tangents' if isinstance(tangents, (tuple, list)) else ''}", site)
    p_leaves, p_tree = flatten(tuple(primals))
    t_leaves, t_tree = flatten(tuple(tangents))
    if p_tree != t_tree:
        raise InputError(f"jvp: the tangents have structure {t_tree}, the primals {p_tree}", site)
    out = []
    for path, p, t in zip(leaf_paths(p_tree, prefix="primals"), p_leaves, t_leaves):
        want = spec_of(p, path)
        if float0_for(t, want):  # JAX's tangent of an integer
            out.append(None)
            continue
        try:
            got = spec_of(t, path.replace("primals", "tangents", 1))
        except FgradError:
            raise InputError(f"jvp: the tangent for {path} is a {type(t).__name__}, expected an array shaped "
                             f"{want.shape}", site) from None
        if got.shape != want.shape:
            raise ShapeError(f"jvp: the tangent for {path} has shape {got.shape}, the primal {want.shape}", site)
        if want.dtype.is_float and got.dtype is not want.dtype and not (want.dtype is DType.f32 and
                                                                       np.asarray(t).dtype == np.float64):
            raise DTypeError(f"jvp: the tangent for {path} is {got}, the primal {want}: a tangent has its primal's "
                             "dtype", site)
        if not want.dtype.is_float:
            out.append(None)
        elif isinstance(t, Tensor):
            out.append(t)
        else:
            out.append(constant(np.asarray(t, want.dtype.np), want.dtype))
    return out


def output_tangents(graph: Graph, env: list[Any], tan: list[Any]) -> list[Any]:
    """The output tangents, zeros where none arrived (an integer output's tangent, JAX's float0,
    is integer zeros)."""
    return [tan[i] if tan[i] is not None else zeros_like(env[i]) for i in graph.outputs]


def _traced(fun: Callable[..., Any], primals: Sequence[Any], name: str, site: str | None) -> tuple[Graph, list[Any]]:
    if not callable(fun):
        raise TraceError(f"{name}: expected a function, got a {type(fun).__name__}", site)
    graph, closed_over = trace_function(fun, primals, closures=True)
    return graph, closed_over


def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> tuple[Any, ...]:
    """Forward mode, as `jax.jvp`: `(fun(*primals), the Jacobian of fun at primals times tangents)`.

    `primals` and `tangents` are tuples of pytrees of one structure and shapes.
    With `has_aux`, `fun` returns `(out, aux)` and jvp returns `(out, tangent_out, aux)`. On arrays
    it computes at once; inside a trace it records, so it nests in every transform.
    """
    site = user_site()
    if not isinstance(primals, (tuple, list)):
        raise InputError(f"jvp: primals must be a tuple of arguments, got a {type(primals).__name__}", site)
    t_leaves = _check_tangents(primals, tangents, site)
    graph, closed_over = _traced(fun, primals, "jvp", site)
    if has_aux:
        check_aux(graph, "jvp", site)
    env, tan = jvp_replay(graph, [*flatten(tuple(primals))[0], *closed_over],
                          [*t_leaves, *(None for _ in closed_over)])
    outs = unflatten(graph.out_tree, [env[i] for i in graph.outputs])
    tangents_out = unflatten(graph.out_tree, output_tangents(graph, env, tan))
    if has_aux:
        return outs[0], tangents_out[0], outs[1]
    return outs, tangents_out


def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """`(fun(*primals), f_jvp)`, as `jax.linearize`: `f_jvp(*tangents)` is the Jacobian-vector
    product at `primals`, computed from values the forward pass kept (it does not run it again).
    With `has_aux`, `fun` returns `(out, aux)` and linearize returns `(out, f_jvp, aux)`, `f_jvp`
    giving the tangent of `out` alone."""
    site = user_site()
    graph, closed_over = _traced(fun, primals, "linearize", site)
    if has_aux:
        check_aux(graph, "linearize", site)
    leaves = [*flatten(tuple(primals))[0], *closed_over]
    env = replay(graph, leaves)
    outs = unflatten(graph.out_tree, [env[i] for i in graph.outputs])
    arg_specs = [unflatten(flatten(p)[1], [spec_of(x) for x in flatten(p)[0]]) for p in primals]
    tree = graph.out_tree.children[0] if has_aux else graph.out_tree

    def tangent_part(*tangents: Any) -> Any:
        t_leaves = flatten(tuple(tangents))[0]
        held, tan = jvp_replay(graph, [env[i] for i in graph.inputs], [*t_leaves, *(None for _ in closed_over)],
                               values=env)
        return unflatten(tree, output_tangents(graph, held, tan)[:tree.num_leaves])

    @functools.cache
    def linear() -> Graph:  # the tangent program, traced on the first call on arrays
        return simplify(trace_function(tangent_part, arg_specs, [f"tangent{k}" for k in range(len(primals))])[0])

    def f_jvp(*tangents: Any) -> Any:
        checked = _check_tangents(primals, tangents, user_site())
        # an integer primal's tangent is ignored: the primal stands in for it (JAX's float0 has no spec)
        p_leaves, p_tree = flatten(tuple(primals))
        tangents = unflatten(p_tree, [p if t is None else t for p, t in zip(p_leaves, checked)])
        if current_trace() is not None or any(isinstance(x, Tensor) for x in checked):
            return tangent_part(*tangents)
        return interpret(linear(), *tangents)

    f_jvp.__qualname__ = "f_jvp"
    return (outs[0], f_jvp, outs[1]) if has_aux else (outs, f_jvp)


# ---------------------------------------------------------------------------
# Jacobians and the Hessian: vmap over basis tangents or cotangents
# ---------------------------------------------------------------------------


def _argnums(argnums: int | Sequence[int], nargs: int, name: str, site: str | None) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -nargs <= a < nargs:
            raise InputError(f"{name}: argnums={argnums!r} is out of range for a function of {nargs} arguments", site)
    return tuple(a % nargs for a in nums)


def _basis(specs: Sequence[Any], name: str, what: str, site: str | None) -> tuple[list[Any], int]:
    """Rows of the identity over every element of `specs` (float ones: the function's `what`,
    inputs or outputs), cut into one pytree of leaves per spec: leaf k has shape (n, *specs[k].shape)."""
    for s in specs:
        if not s.dtype.is_float:
            raise DTypeError(f"{name}: differentiation needs float {what}, got {s}", site)
        if s.symbols:
            raise ShapeError(f"{name}: Jacobians need static shapes, got {s}", site)
    n = sum(s.size for s in specs)
    eye = np.eye(n, dtype=np.float64)
    out, offset = [], 0
    for s in specs:
        out.append(eye[:, offset:offset + s.size].reshape((n, *s.shape)).astype(s.dtype.np))
        offset += s.size
    return out, n


def _out_first(block: Any, in_specs: Sequence[Any], out_spec: Any) -> list[Any]:
    """Cut the basis axis of a jvp's batched tangent `block`, shaped (n, *out), into one Jacobian
    per input spec, each shaped out + in."""
    pieces, offset = [], 0
    for s in in_specs:
        part = fnp.reshape(block[offset:offset + s.size], (*s.shape, *out_spec.shape))
        if s.shape and out_spec.shape:
            part = fnp.moveaxis(part, tuple(range(len(s.shape))), tuple(range(-len(s.shape), 0)))
        pieces.append(part)
        offset += s.size
    return pieces


def _of_argnums(fun: Callable[..., Any], args: Sequence[Any], nums: Sequence[int]) -> Callable[..., Any]:
    """`fun` as a function of its arguments `nums` alone, the others fixed to `args`."""

    def partial(*xs: Any) -> Any:
        full = list(args)
        for a, x in zip(nums, xs):
            full[a] = x
        return fun(*full)

    return partial


def jacfwd(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """The Jacobian of `fun` by forward mode, as `jax.jacfwd`: one `jvp` per input element,
    batched by `vmap`. Each output leaf's Jacobian has shape `out.shape + in.shape`; the result
    has the output's structure, holding the input's (a tuple over `argnums` if it is one).
    `holomorphic` must be False: fgrad has no complex dtype."""
    check_keywords("jacfwd", user_site(), holomorphic)

    def jac(*args: Any) -> Any:
        site = user_site()
        nums = _argnums(argnums, len(args), "jacfwd", site)
        wrt = [args[a] for a in nums]
        leaves, tree = flatten(tuple(wrt))
        specs = [spec_of(x) for x in leaves]
        basis, n = _basis(specs, "jacfwd", "inputs", site)

        partial = _of_argnums(fun, args, nums)

        def push(*t_leaves: Any) -> Any:
            tangents = unflatten(tree, list(t_leaves))
            return jvp(partial, tuple(wrt), tuple(tangents), has_aux=has_aux)

        res = vmap(push, in_axes=0, out_axes=(None, 0))(*basis) if not has_aux else \
            vmap(push, in_axes=0, out_axes=(None, 0, None))(*basis)
        outs, tans = (res[0], res[1])
        aux = res[2] if has_aux else None
        out_leaves, out_tree = flatten(outs)
        tan_leaves = flatten(tans)[0]
        per_out = []
        for o, t in zip(out_leaves, tan_leaves):
            pieces = _out_first(t, specs, spec_of(o))
            per_arg = unflatten(tree, pieces)
            per_out.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
        result = unflatten(out_tree, per_out)
        return (result, aux) if has_aux else result

    return jac


def jacrev(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable[..., Any]:
    """The Jacobian of `fun` by reverse mode, as `jax.jacrev`: one vjp per output element, batched
    by `vmap`; shapes and structure as `jacfwd`. Integer and bool inputs are refused unless
    `allow_int`, which gives them zero Jacobians of their own dtype, as JAX's. `holomorphic`
    must be False: fgrad has no complex dtype."""
    check_keywords("jacrev", user_site(), holomorphic)

    def jac(*args: Any) -> Any:
        site = user_site()
        nums = _argnums(argnums, len(args), "jacrev", site)
        wrt = [args[a] for a in nums]
        w_leaves, w_tree = flatten(tuple(wrt))
        in_specs = [spec_of(x) for x in w_leaves]
        integer = next((s for s in in_specs if not s.dtype.is_float), None)
        if integer is not None and not allow_int:
            raise DTypeError(f"jacrev: differentiation needs float inputs, got {integer}; allow_int=True gives "
                             "integer inputs zero Jacobians", site)

        partial = _of_argnums(fun, args, nums)
        res = vjp(partial, *wrt, has_aux=has_aux)
        outs, pullback = res[0], res[1]
        aux = res[2] if has_aux else None
        out_leaves, out_tree = flatten(outs)
        out_specs = [spec_of(o) for o in out_leaves]
        basis, m = _basis(out_specs, "jacrev", "outputs", site)

        def pull(*ct_leaves: Any) -> Any:
            return pullback(unflatten(out_tree, list(ct_leaves)))

        grads = vmap(pull)(*basis)  # a tuple over wrt, each (m, *in); None at an integer input
        g_leaves = flatten(tuple(grads), is_leaf=lambda g: g is None)[0]
        per_out, offset = [], 0
        for s in out_specs:
            rows = [fnp.zeros((*s.shape, *spec.shape), spec.dtype) if g is None else
                    fnp.reshape(g[offset:offset + s.size], (*s.shape, *spec.shape))
                    for g, spec in zip(g_leaves, in_specs)]
            per_arg = unflatten(w_tree, rows)
            per_out.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
            offset += s.size
        result = unflatten(out_tree, per_out)
        return (result, aux) if has_aux else result

    return jac


def hessian(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[..., Any]:
    """The Hessian of a scalar `fun`, as `jax.hessian`: `jacfwd(jacrev(fun))`. `holomorphic` must be
    False: fgrad has no complex dtype."""
    check_keywords("hessian", user_site(), holomorphic)
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux), argnums, has_aux=has_aux)
