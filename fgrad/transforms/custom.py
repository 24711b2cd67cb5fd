"""Custom differentiation rules: custom_jvp and custom_vjp, as JAX's.

`fg.custom_jvp(f)` gives `f` a forward-mode rule (`f.defjvp(jvp)`); reverse mode then takes its
vjp with respect to the tangents, in which the rule is linear, as JAX transposes it. `fg.custom_vjp(f)`
gives `f` a reverse-mode rule (`f.defvjp(fwd, bwd)`), with residuals passed from fwd to bwd; forward
mode of such a function is an error, as in JAX. Both compose with grad (grad of grad too), vmap, jit
and each other: a call traces `f` and its rules into graphs held by one primitive
(fgrad/primitives/calls.py), which `interpret` runs and lowering inlines.

Gradient clipping, the example of JAX's documentation: the identity going forward, its cotangent
clipped going back::

    >>> import functools
    >>> import fgrad as fg
    >>> @functools.partial(fg.custom_vjp, nondiff_argnums=(0, 1))
    ... def clip_gradient(lo, hi, x):
    ...     return x  # the identity
    >>> def clip_gradient_fwd(lo, hi, x):
    ...     return x, None  # no residuals
    >>> def clip_gradient_bwd(lo, hi, residuals, g):
    ...     return (fg.clip(g, lo, hi),)  # a cotangent for each argument not in nondiff_argnums
    >>> clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
    >>> def clip_sin(x):
    ...     return fg.sin(clip_gradient(-0.75, 0.75, x))
    >>> xs = fg.asarray([0.1, 2.0, 3.0])
    >>> [round(float(v), 4) for v in fg.vmap(fg.grad(fg.sin))(xs)]  # cos(x)
    [0.995, -0.4161, -0.99]
    >>> [round(float(v), 4) for v in fg.vmap(fg.grad(clip_sin))(xs)]  # cos(x), clipped to [-0.75, 0.75]
    [0.75, -0.4161, -0.75]
    >>> [round(float(v), 4) for v in fg.jit(fg.vmap(fg.grad(clip_sin)))(xs)]  # compiled, on the device
    [0.75, -0.4161, -0.75]

The rules are traced when the function is called: inside its own rules, a call of the function is
its plain function (JAX's rules often call it for the primal output). Tensors the function closes
over are differentiated through its own graph; the rule speaks for the explicit arguments.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from fgrad import numpy as fnp
from fgrad.numpy.promotion import argument_values
from fgrad.errors import DTypeError, FgradError, InputError, ShapeError, TraceError
from fgrad.ir import Spec
from fgrad.primitives.calls import VmapRule, custom_jvp_call_p, custom_vjp_call_p, custom_vmap_call_p, traced_body
from fgrad.pytree import TreeDef, broadcast_prefix, first_difference, flatten, leaf_paths, tree_map, unflatten
from fgrad.trace import Tensor, bind, current_trace, spec_of, user_site
from fgrad.transforms.batching import sequentially
from fgrad.transforms.forward import zeros_like

_state = threading.local()


@contextmanager
def tracing_rules(fn: Any) -> Iterator[None]:
    """While `fn`'s rules are traced, a call of `fn` is its plain function: a rule that calls it
    (for the primal output) would otherwise trace itself again, without end."""
    busy = _state.__dict__.setdefault("busy", set())
    busy.add(id(fn))
    try:
        yield
    finally:
        busy.discard(id(fn))


def _in_own_rule(fn: Any) -> bool:
    return id(fn) in getattr(_state, "busy", ())


class _Custom:
    """What custom_jvp and custom_vjp share: the wrapped function, `nondiff_argnums`, calls."""

    kind = ""

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()):
        site = user_site()
        if not callable(fun):
            raise TraceError(f"{self.kind}: expected a function, got a {type(fun).__name__}", site)
        if not all(type(i) is int for i in nondiff_argnums):
            raise InputError(f"{self.kind}: nondiff_argnums must be ints, got {nondiff_argnums!r}", site)
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)

    @property
    def _name(self) -> str:
        return getattr(self.fun, "__name__", "the function")

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # a method: bound as functions are
        return self if obj is None else functools.partial(self, obj)

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any], site: str | None) -> tuple[Any, ...]:
        """The call's arguments, all positional (keyword arguments placed by the signature, as JAX's
        resolve_kwargs), after checking `nondiff_argnums` against their number."""
        if kwargs:
            try:
                bound = inspect.signature(self.fun).bind(*args, **kwargs)
            except TypeError as e:
                raise TraceError(f"{self.kind}: {self._name}: {e}", site) from None
            bound.apply_defaults()
            if bound.kwargs:
                raise TraceError(f"{self.kind}: {self._name}: keyword-only arguments "
                                 f"({', '.join(bound.kwargs)}) cannot be placed by position", site)
            args = bound.args
        bad = [i for i in self.nondiff_argnums if not -len(args) <= i < len(args)]
        if bad:
            raise InputError(f"{self.kind}: nondiff_argnums {bad} out of range for {self._name} called with "
                             f"{len(args)} arguments", site)
        return tuple(args)

    def _diff(self, args: tuple[Any, ...]) -> list[int]:
        """Positions of the differentiable arguments."""
        nondiff = {i % len(args) for i in self.nondiff_argnums}
        return [i for i in range(len(args)) if i not in nondiff]

    def _plain(self, args: tuple[Any, ...]) -> bool:
        """Whether the call runs the plain function: outside any trace on arrays (nothing is
        differentiated), or inside the function's own rules."""
        return _in_own_rule(self) or (current_trace() is None and
                                      not any(isinstance(x, Tensor) for x in flatten(args)[0]))

    def _leaves(self, args: tuple[Any, ...], diff: list[int], site: str | None
                ) -> tuple[list[Any], TreeDef, list[Spec], list[str]]:
        """The differentiable arguments' leaves as fgrad values, their structure, specs and paths."""
        leaves, tree = flatten(tuple(args[i] for i in diff))
        names = [p for i, sub in zip(diff, tree.children) for p in leaf_paths(sub, prefix=f"arg{i}")]
        values = argument_values(leaves, names, f"{self.kind}: {self._name}", site)
        return values, tree, [spec_of(v) for v in values], names

    def _with(self, args: tuple[Any, ...], diff: list[int], tree: TreeDef, leaves: Sequence[Any]) -> list[Any]:
        """The arguments with the differentiable ones rebuilt from `leaves`."""
        full = list(args)
        for i, value in zip(diff, unflatten(tree, list(leaves))):
            full[i] = value
        return full


def _check_pair(value: Any, who: str, pair: str, site: str | None) -> None:
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        got = f"a {type(value).__name__}" + (f" of {len(value)}" if isinstance(value, (tuple, list)) else "")
        raise TraceError(f"{who} must return a pair {pair}, got {got}", site)


def _check_leaves(who: str, what: str, value: Any, tree: TreeDef, specs: Sequence[Spec], site: str | None,
                  tangent: bool = False) -> list[Any]:
    """The leaves of `value`, which must have structure `tree` and the shapes and dtypes `specs`
    (a tangent: its primal's shape, and its dtype where the primal is a float)."""
    leaves, got = flatten(value)
    if got != tree:
        path, diff = first_difference(tree, got)
        raise TraceError(f"{who}: {what} has a different structure from the function's output at "
                         f"{path or 'the top level'}: {diff}", site)
    for path, leaf, want in zip(leaf_paths(tree, prefix="output"), leaves, specs):
        try:
            spec = spec_of(leaf, path)
        except FgradError:
            raise TraceError(f"{who}: {what} holds a {type(leaf).__name__} at {path}, where the function's output "
                             f"is {want}", site) from None
        if spec.shape != want.shape:
            raise ShapeError(f"{who}: {what} has shape {spec} at {path}, where the function's output is {want}", site)
        if spec.dtype is not want.dtype and (want.dtype.is_float or not tangent):
            raise DTypeError(f"{who}: {what} has dtype {spec} at {path}, where the function's output is {want}", site)
    return leaves


class custom_jvp(_Custom):
    """A function with a custom forward-mode rule, as `jax.custom_jvp`.

    ::

        @fg.custom_jvp
        def log1pexp(x):
            return fg.log(1.0 + fg.exp(x))

        @log1pexp.defjvp
        def log1pexp_jvp(primals, tangents):
            x, = primals
            t, = tangents
            return log1pexp(x), t * (1.0 - 1.0 / (1.0 + fg.exp(x)))  # finite where exp(x) overflows

    `jvp(primals, tangents) -> (primal_out, tangent_out)` takes tuples of the differentiable
    arguments and their tangents (an integer argument's tangent is zeros); `tangent_out` has the
    output's structure and shapes. Arguments at `nondiff_argnums` are passed first to the rule,
    `jvp(*nondiff_args, primals, tangents)`, and have no derivative (JAX stops their gradient).
    Reverse mode (grad, vjp) transposes the rule, which must be linear in the tangents.
    """

    kind = "custom_jvp"

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None

    def defjvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]:
        """Set the rule `jvp(primals, tangents) -> (primal_out, tangent_out)`; returns it, so it
        decorates: `@f.defjvp`."""
        if not callable(jvp):
            raise TraceError(f"custom_jvp: defjvp takes a function, got a {type(jvp).__name__}", user_site())
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """Set the rule from one function per argument, `jvp_k(tangent_k, primal_out, *primals)`
        giving that argument's part of the output tangent (None: it has none), as JAX's."""
        site = user_site()
        if self.nondiff_argnums:
            raise TraceError("custom_jvp: defjvps cannot be used with nondiff_argnums, as in JAX; use defjvp", site)

        def jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
            out = self(*primals)
            parts = [rule(t, out, *primals) for rule, t in zip(jvps, tangents) if rule is not None]
            leaves, tree = flatten(out)
            sums = [functools.reduce(lambda a, b: a + b, column) for column in zip(*(flatten(p)[0] for p in parts))]
            return out, unflatten(tree, sums or [zeros_like(x) for x in leaves])

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        site = user_site()
        if self.jvp is None:
            raise TraceError(f"custom_jvp: no JVP rule defined for {self._name}: define one with "
                             f"@{self._name}.defjvp before calling it", site)
        args = self._arguments(args, kwargs, site)
        if self._plain(args):
            return self.fun(*args)
        diff = self._diff(args)
        nondiff = [i for i in range(len(args)) if i not in diff]
        # As JAX's: the arguments at nondiff_argnums have no derivative.
        fixed = list(args)
        for i in nondiff:
            leaves, structure = flatten(args[i])
            fixed[i] = unflatten(structure, [fnp.stop_gradient(x) if isinstance(x, Tensor) else x for x in leaves])
        values, tree, specs, names = self._leaves(tuple(fixed), diff, site)
        n = len(values)
        with tracing_rules(self):
            fun, fun_closures, out_tree = traced_body(lambda *ls: self.fun(*self._with(tuple(fixed), diff, tree, ls)),
                                                      specs, names)
            out_specs = fun.out_specs

            def rule(*leaves: Any) -> list[Any]:
                primals = tuple(unflatten(tree, list(leaves[:n])))
                tangents = tuple(unflatten(tree, list(leaves[n:])))
                out = self.jvp(*(fixed[i] for i in nondiff), primals, tangents)
                _check_pair(out, f"custom_jvp: the jvp rule of {self._name}", "(primal_out, tangent_out)", site)
                primal = _check_leaves("custom_jvp", f"the primal output of {self._name}'s jvp rule", out[0],
                                       out_tree, out_specs, site)
                tangent = _check_leaves("custom_jvp", f"the tangent output of {self._name}'s jvp rule", out[1],
                                        out_tree, out_specs, site, tangent=True)
                # An integer output's tangent is not read (JAX's float0): zeros of its spec.
                return [*primal, *(t if s.dtype.is_float else zeros_like(s) for t, s in zip(tangent, out_specs))]

            jvp, jvp_closures, _ = traced_body(rule, [*specs, *specs], [*names, *(f"{p}.tangent" for p in names)])
        outs = bind(custom_jvp_call_p, *values, *fun_closures, *jvp_closures, fun=fun, jvp=jvp, num_args=n)
        return unflatten(out_tree, list(outs))


class custom_vjp(_Custom):
    """A function with a custom reverse-mode rule, as `jax.custom_vjp`.

    `f.defvjp(fwd, bwd)`: `fwd(*args) -> (out, residuals)` computes the output and what the
    backward pass needs (any pytree of arrays); `bwd(residuals, g) -> one cotangent per argument`,
    a tuple whose entries have the arguments' structures and shapes, None for a zero one (a whole
    argument or any part of it). Arguments at `nondiff_argnums` (Python values, functions: not
    Tensors, as in JAX) are passed to fwd as they are and first to bwd,
    `bwd(*nondiff_args, residuals, g)`, which gives cotangents for the other arguments only.
    Forward mode (jvp) of such a function is an error, as in JAX.
    """

    kind = "custom_vjp"

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        """Set the rule: `fwd(*args) -> (out, residuals)`, `bwd(residuals, g) -> cotangents`."""
        site = user_site()
        for name, fn in (("fwd", fwd), ("bwd", bwd)):
            if not callable(fn):
                raise TraceError(f"custom_vjp: defvjp takes functions, got a {type(fn).__name__} as {name}", site)
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        site = user_site()
        if self.fwd is None or self.bwd is None:
            raise TraceError(f"custom_vjp: no VJP rule defined for {self._name}: define one with "
                             f"{self._name}.defvjp(fwd, bwd) before calling it", site)
        args = self._arguments(args, kwargs, site)
        diff = self._diff(args)
        nondiff = [i for i in range(len(args)) if i not in diff]
        for i in nondiff:
            if any(isinstance(x, Tensor) for x in flatten(args[i])[0]):
                raise TraceError(f"custom_vjp: argument {i} of {self._name} is in nondiff_argnums but holds a traced "
                                 "Tensor; as in JAX, nondiff_argnums are for values that are not arrays (functions, "
                                 "settings): pass arrays as ordinary arguments (bwd may return None for them)", site)
        if self._plain(args):
            return self.fun(*args)
        values, tree, specs, names = self._leaves(args, diff, site)
        n = len(values)
        found: dict[str, TreeDef] = {}
        with tracing_rules(self):
            fun, fun_closures, out_tree = traced_body(lambda *ls: self.fun(*self._with(args, diff, tree, ls)),
                                                      specs, names)
            out_specs = fun.out_specs

            def forward(*leaves: Any) -> list[Any]:
                out = self.fwd(*self._with(args, diff, tree, leaves))
                _check_pair(out, f"custom_vjp: the fwd rule of {self._name}", "(output, residuals)", site)
                primal = _check_leaves("custom_vjp", f"the output of {self._name}'s fwd rule", out[0], out_tree,
                                       out_specs, site)
                residuals, found["residuals"] = flatten(out[1])
                return [*primal, *residuals]

            fwd, fwd_closures, _ = traced_body(forward, specs, names)
            residual_specs = fwd.out_specs[len(out_specs):]
            nr = len(residual_specs)

            def backward(*leaves: Any) -> list[Any]:
                residuals = unflatten(found["residuals"], list(leaves[:nr]))
                g = unflatten(out_tree, list(leaves[nr:]))
                cts = self.bwd(*(args[i] for i in nondiff), residuals, g)
                return self._cotangents(cts, tree, specs, site)

            bwd, bwd_closures, _ = traced_body(backward, [*residual_specs, *out_specs],
                                               [*(f"residual.{k}" for k in range(nr)),
                                                *leaf_paths(out_tree, prefix="cotangent")])
        outs = bind(custom_vjp_call_p, *values, *fun_closures, *fwd_closures, *bwd_closures, fun=fun, fwd=fwd, bwd=bwd,
                    num_args=n)
        return unflatten(out_tree, list(outs))

    def _cotangents(self, cts: Any, tree: TreeDef, specs: Sequence[Spec], site: str | None) -> list[Any]:
        """The leaves of bwd's result: one cotangent per differentiable argument, each with its
        argument's structure, shapes and dtypes, None standing for zeros of any part."""
        who = f"custom_vjp: the bwd rule of {self._name}"
        if not isinstance(cts, (tuple, list)):
            raise TraceError(f"{who} must return a tuple with one cotangent per argument, got a "
                             f"{type(cts).__name__}", site)
        if len(cts) != len(tree.children):
            raise TraceError(f"{who} must return a tuple of length {len(tree.children)}, one cotangent per "
                             f"argument{' not in nondiff_argnums' if self.nondiff_argnums else ''}, got length "
                             f"{len(cts)}", site)
        try:
            leaves = broadcast_prefix(tuple(cts), tree, "its result")
        except ValueError as e:
            raise TraceError(f"{who}: {e}", site) from None
        if sum(x is not None for x in leaves) != len(flatten(tuple(cts))[0]):
            raise TraceError(f"{who} returned an array where the argument holds a pytree: give a cotangent per "
                             "leaf, or None for zeros", site)
        out = []
        for path, ct, want in zip(leaf_paths(tree, prefix="output"), leaves, specs):
            if ct is None or not want.dtype.is_float:  # an integer argument's cotangent is not read
                out.append(zeros_like(want))
                continue
            try:
                spec = spec_of(ct, path)
            except FgradError:
                raise TraceError(f"{who} returned a {type(ct).__name__} at {path}, where the argument is {want}",
                                 site) from None
            if spec != want:
                error = ShapeError if spec.shape != want.shape else DTypeError
                raise error(f"{who} must produce an output with the shapes and dtypes of the arguments, but at "
                            f"{path} it produced {spec} for an argument {want}", site)
            out.append(ct)
        return out


def closure_converted(fn: Callable[[Any], Any], like: Any) -> tuple[Callable[[Sequence[Any], Any], Any], list[Tensor],
                                                                   TreeDef, list[Spec]]:
    """`fn`, a function of one pytree shaped like `like`, with the Tensors of enclosing traces it
    closes over made explicit (JAX's closure conversion): `apply(closures, x)` computes fn(x)
    from its trace; also returned: those Tensors, and the structure and specs of fn's result."""
    from fgrad.transforms.bodies import evaluate  # NOTE: bodies imports the transforms

    leaves, tree = flatten(like)
    graph, closures, out_tree = traced_body(lambda *ls: fn(unflatten(tree, list(ls))), [spec_of(v) for v in leaves],
                                            leaf_paths(tree, prefix="x"))

    def apply(values: Sequence[Any], x: Any) -> Any:
        env = dict(zip(graph.inputs, [*(fnp.asarray(v) for v in flatten(x)[0]), *values]))  # numbers: the trace's
        return unflatten(out_tree, evaluate(graph, env, graph.outputs))

    return apply, list(closures), out_tree, [graph.nodes[o].spec for o in graph.outputs]


class custom_vmap(_Custom):
    """A function with a custom batching rule, as `jax.custom_batching.custom_vmap`.

    `@f.def_vmap` sets `rule(axis_size, in_batched, *args) -> (out, out_batched)`: under `vmap`,
    `rule` gets the arguments with the batch along axis 0 where `in_batched` (a list with one
    pytree of bools per argument) says so, and returns the batched output and a pytree of bools
    saying which of its leaves carry the batch (the others are broadcast). Called inside its rule,
    `f` is its plain function. Elsewhere `f` computes as its function does; its derivatives are
    the function's (JAX's refuse reverse mode), and a vmap over a value `f` closes over batches the
    function itself, which the rule cannot see.
    """

    kind = "custom_vmap"

    def __init__(self, fun: Callable[..., Any]):
        super().__init__(fun)
        self.rule: Callable[..., Any] | None = None

    def def_vmap(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        """Set the batching rule; returns it, so it decorates: `@f.def_vmap`."""
        if not callable(rule):
            raise TraceError(f"custom_vmap: def_vmap takes a function, got a {type(rule).__name__}", user_site())
        self.rule = rule
        return rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        site = user_site()
        if self.rule is None:
            raise TraceError(f"custom_vmap: no batching rule defined for {self._name}: define one with "
                             f"@{self._name}.def_vmap before calling it", site)
        args = self._arguments(args, kwargs, site)
        if self._plain(args):
            return self.fun(*args)
        values, tree, specs, names = self._leaves(args, list(range(len(args))), site)
        fun, closures, out_tree = traced_body(lambda *ls: self.fun(*unflatten(tree, list(ls))), specs, names)
        outs = bind(custom_vmap_call_p, *values, *closures, fun=fun, rule=VmapRule(self, tree, out_tree),
                    num_args=len(values))
        return unflatten(out_tree, list(outs))


def sequential_vmap(fun: Callable[..., Any]) -> custom_vmap:
    """`fun` batched by a loop over the batch (a scan), each example computed on its own, as
    `jax.custom_batching.sequential_vmap`: for a function that cannot take a batch axis."""
    f = custom_vmap(fun)

    @f.def_vmap
    def rule(axis_size: int, in_batched: list[Any], *args: Any) -> tuple[Any, Any]:
        leaves, tree = flatten(list(args))
        out = sequentially(lambda *ls: f(*unflatten(tree, list(ls))), leaves, flatten(in_batched)[0])
        return out, tree_map(lambda _: True, out)

    return f


def closure_convert(fun: Callable[..., Any], *example_args: Any) -> tuple[Callable[..., Any], list[Any]]:
    """`fun` with the traced values it closes over made arguments, as `jax.closure_convert`:
    returns `(converted, consts)` where `converted(*args, *consts)` is `fun(*args)` for arguments
    shaped like `example_args`, and `consts` are the Tensors of enclosing traces `fun` reads (none
    outside a trace), for a custom rule that must not close over them."""
    if not callable(fun):
        raise TraceError(f"closure_convert: expected a function, got a {type(fun).__name__}", user_site())
    apply, consts, _, _ = closure_converted(lambda args: fun(*args), tuple(example_args))
    n = len(example_args)

    def converted(*args_and_consts: Any) -> Any:
        if len(args_and_consts) != n + len(consts):
            raise InputError(f"closure_convert: the converted function takes {n} arguments and {len(consts)} "
                             f"consts, got {len(args_and_consts)} values", user_site())
        return apply(args_and_consts[n:], tuple(args_and_consts[:n]))

    return converted, consts


def custom_gradient(fun: Callable[..., Any]) -> Callable[..., Any]:
    """`fun(*args) -> (out, rule)` as a function of its output alone, whose reverse mode is
    `rule(cotangent) -> one cotangent per argument`, as `jax.custom_gradient` (TensorFlow's
    API): `rule` may close over the forward pass's values.

    It is a custom_vjp whose fwd traces `rule` over the output's specs, the values it closes
    over becoming the residuals (JAX's closure conversion), and whose bwd evaluates that trace;
    so `rule` cannot branch on values, and forward mode is an error, as in JAX.
    """
    if not callable(fun):
        raise TraceError(f"custom_gradient: expected a function, got a {type(fun).__name__}", user_site())
    rules: dict[str, Any] = {}  # fwd's trace of the rule, which bwd (traced right after it) evaluates

    def primal(*args: Any) -> Any:
        return _pair(fun(*args))[0]

    def fwd(*args: Any) -> tuple[Any, tuple[Any, ...]]:
        out, rule = _pair(fun(*args))
        rules["rule"], closed, _, _ = closure_converted(rule, out)
        return out, tuple(closed)

    def bwd(closed: tuple[Any, ...], g: Any) -> Any:
        return rules["rule"](closed, g)

    def _pair(value: Any) -> tuple[Any, Callable[..., Any]]:
        if not (isinstance(value, tuple) and len(value) == 2 and callable(value[1])):
            raise TraceError(f"custom_gradient: {getattr(fun, '__name__', 'fun')} must return (output, rule), the "
                             f"rule a function of the output's cotangent, got {type(value).__name__}", user_site())
        return value

    wrapped = custom_vjp(functools.wraps(fun)(primal))
    wrapped.defvjp(fwd, bwd)
    return wrapped
