"""Control flow on the device: lax.scan, fori_loop, while_loop, cond and switch, as JAX's.

Each traces the user's functions once into body graphs (fgrad/primitives/control_flow.py) over
the leaves of their pytree arguments; Tensors a function closes over become leading operands of
the primitive (its consts), so bodies are closed graphs that every transform can rewrite. Outside
any trace the primitive runs at once on NumPy arrays, as every fgrad function does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.numpy.promotion import argument_values
from fgrad.errors import DTypeError, FgradError, InputError, ShapeError, TraceError
from fgrad.ir import Dim, DType, Graph, Spec
from fgrad.primitives.control_flow import cond_p, scan_p, while_p
from fgrad.transforms.bodies import arranged
from fgrad.pytree import TreeDef, first_difference, flatten, leaf_paths, unflatten
from fgrad.trace import Tensor, bind, is_float0, spec_of, trace_function, user_site
from fgrad.transforms.passes import simplify


def _operands(tree: Any, prefix: str, who: str, site: str | None) -> tuple[list[Any], TreeDef, list[str], list[Spec]]:
    """The leaves of an argument pytree as fgrad values (constants inside a trace, arrays outside),
    with its structure, the leaves' paths and their specs."""
    leaves, treedef = flatten(tree)
    paths = leaf_paths(treedef, prefix=prefix)
    values = argument_values(leaves, paths, who, site)
    return values, treedef, paths, [spec_of(v) for v in values]


def _closed_body(fn: Callable[..., Sequence[Any]], specs: Sequence[Spec],
                 names: Sequence[str]) -> tuple[Graph, list[Tensor]]:
    """`fn` over leaves of `specs` traced into a body taking `(*consts, *leaves)`: the consts are the
    Tensors of enclosing traces it closes over, returned beside it."""
    graph, closed = trace_function(lambda *leaves: tuple(fn(*leaves)), list(specs), list(names), closures=True)
    n = len(specs)
    order = [*range(n, len(graph.inputs)), *range(n)]
    return simplify(arranged(graph, order, [*(f"const.{k}" for k in range(len(closed))), *names])), closed


def _same_as(who: str, returned: str, given: str, value: Any, tree: TreeDef, specs: Sequence[Spec],
             site: str | None) -> list[Any]:
    """The leaves of `value`, which a function returns where it must keep the structure, shapes and
    dtypes of `given` (a loop's carry): `tree` and `specs`. The error names the first that differs."""
    leaves, got = flatten(value)
    if got != tree:
        path, what = first_difference(tree, got)
        raise TraceError(f"{who}: {returned} has a different structure from {given} at {path or 'the top level'}: "
                         f"{what}; the carry keeps its structure through the loop", site)
    for path, leaf, want in zip(leaf_paths(tree, prefix=given), leaves, specs):
        try:
            spec = spec_of(leaf, path)
        except FgradError:
            raise TraceError(f"{who}: {returned} holds a {type(leaf).__name__} at {path}, where {given} holds {want}",
                             site) from None
        if spec.shape != want.shape:
            raise ShapeError(f"{who}: {returned} changes the shape of {path} from {want} to {spec}; the carry keeps "
                             "its shapes and dtypes through the loop", site)
        if spec.dtype is not want.dtype:
            raise DTypeError(f"{who}: {returned} changes the dtype of {path} from {want} to {spec}; the carry keeps "
                             f"its shapes and dtypes through the loop (cast it: .astype({want.dtype}))", site)
    return leaves


def _returned(who: str, returned: str, value: Any, prefix: str, site: str | None) -> tuple[list[Any], TreeDef]:
    """The leaves and structure of `value`, which a function returns (a y, a branch's result):
    each must be an array, a Tensor or a number."""
    leaves, tree = flatten(value)
    for path, leaf in zip(leaf_paths(tree, prefix=prefix), leaves):
        if is_float0(leaf):
            raise TraceError(f"{who}: {returned} holds float0 zeros at {path} (the gradient of an integer input, "
                             "grad's allow_int=True), which a loop or a branch cannot return: take that gradient "
                             "outside it, or differentiate only float inputs", site)
        try:
            spec_of(leaf, path)
        except FgradError:
            raise TraceError(f"{who}: {returned} holds a {type(leaf).__name__} at {path}; return arrays (a pytree "
                             "of them)", site) from None
    return leaves, tree


def _check_function(who: str, site: str | None, **functions: Any) -> None:
    for name, fn in functions.items():
        if not callable(fn):
            raise TraceError(f"{who}: {name} must be a function, got a {type(fn).__name__}", site)


def _check_unroll(who: str, unroll: Any, site: str | None) -> None:
    """`unroll` is accepted as JAX takes it (a positive int or a bool); the loop is not unrolled:
    its body runs once per iteration on the device either way."""
    if unroll is not None and not (isinstance(unroll, (bool, np.bool_)) or
                                   isinstance(unroll, (int, np.integer)) and unroll >= 1):
        raise InputError(f"{who}: unroll must be a positive int or a bool, got {unroll!r}", site)


# ---------------------------------------------------------------------------
# scan and fori_loop
# ---------------------------------------------------------------------------


def scan(f: Callable[[Any, Any], tuple[Any, Any]], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1) -> tuple[Any, Any]:
    """Loop `f` over the leading axis of `xs`, carrying state, as `jax.lax.scan`.

    In Python terms::

        def scan(f, init, xs, length=None):
            carry, ys = init, []
            for x in xs:              # or reversed(xs) with reverse=True
                carry, y = f(carry, x)
                ys.append(y)
            return carry, stack(ys)   # ys[i] is the y of xs[i], either way

    Args:
        f: `(carry, x) -> (carry, y)`; the carry keeps its pytree structure, shapes and dtypes;
            `y` is any pytree (None for no ys).
        init: the initial carry, a pytree of arrays.
        xs: a pytree of arrays sharing a leading axis (None: iterate `length` times, x = None).
        length: the trip count; needed when xs is None, else it must equal xs' leading axis.
        reverse: run from the last slice to the first.
        unroll: accepted, as JAX's; the body runs once per iteration.
    Returns:
        `(final carry, ys)`, ys with a new leading axis of size `length`.
    """
    site = user_site()
    _check_function("scan", site, f=f)
    _check_unroll("scan", unroll, site)
    carry, carry_tree, carry_paths, carry_specs = _operands(init, "carry", "scan", site)
    xs_values, x_tree, x_paths, x_specs = _operands(xs, "xs", "scan", site)
    n = _length(x_paths, x_specs, length, site)
    nk, trees = len(carry), {}

    def step(*leaves: Any) -> list[Any]:
        out = f(unflatten(carry_tree, list(leaves[:nk])), unflatten(x_tree, list(leaves[nk:])))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            got = f"a {type(out).__name__}" + (f" of {len(out)}" if isinstance(out, (tuple, list)) else "")
            raise TraceError(f"scan: f must return a pair (carry, y), got {got}", site)
        new = _same_as("scan", "the carry f returns", "carry", out[0], carry_tree, carry_specs, site)
        ys, trees["y"] = _returned("scan", "the y f returns", out[1], "y", site)
        return [*new, *ys]

    slices = [Spec(s.shape[1:], s.dtype) for s in x_specs]
    names = [*carry_paths, *(p.replace("xs", "x", 1) for p in x_paths)]
    body, consts = _closed_body(step, [*carry_specs, *slices], names)
    outs = bind(scan_p, *consts, *carry, *xs_values, body=body, length=n, reverse=bool(reverse),
                num_consts=len(consts), num_carry=nk)
    return unflatten(carry_tree, list(outs[:nk])), unflatten(trees["y"], list(outs[nk:]))


def _length(paths: Sequence[str], specs: Sequence[Spec], length: Any, site: str | None) -> int | Dim:
    """The trip count of a scan: the leading axis of every xs leaf, and `length` if given."""
    if length is not None and (isinstance(length, (bool, np.bool_)) or not isinstance(length, (int, np.integer))
                               or length < 0):
        raise InputError(f"scan: length must be a non-negative int, got {length!r}", site)
    for path, spec in zip(paths, specs):
        if not spec.shape:
            raise ShapeError(f"scan: {path} is a scalar {spec}; every leaf of xs needs a leading axis to scan over",
                             site)
    sizes = {spec.shape[0]: path for path, spec in zip(paths, specs)}
    if len(sizes) > 1:
        shown = ", ".join(f"{p} has {n}" for n, p in sizes.items())
        raise ShapeError(f"scan: the leaves of xs have different leading axes: {shown}", site)
    if not sizes:
        if length is None:
            raise InputError("scan: xs has no leaves (None), so give the trip count as length=", site)
        return int(length)
    (n, path), = sizes.items()
    if length is not None and n != length:
        raise ShapeError(f"scan: length={length} but the leading axis of xs is {n} ({path})", site)
    return n


def _concrete_int(x: Any) -> int | None:
    """The value of a loop bound known while tracing (a Python or NumPy integer), else None."""
    if isinstance(x, Tensor) or isinstance(x, (bool, np.bool_)):
        return None
    a = np.asarray(x) if isinstance(x, (int, np.integer, np.ndarray)) else None
    return int(a) if a is not None and a.ndim == 0 and a.dtype.kind in "iu" else None


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any, *,
              unroll: int | bool | None = None) -> Any:
    """`val = body_fun(i, val)` for i from `lower` to `upper` (excluded), as `jax.lax.fori_loop`.

    With bounds known while tracing (Python or NumPy integers) it is a scan of `upper - lower`
    iterations with the counter in its carry (a static trip count, differentiable in reverse mode,
    as JAX's); with traced bounds, a while_loop (forward mode only).

    Args:
        lower, upper: integer scalars; the counter `i` has their dtype.
        body_fun: `(i, val) -> val`, keeping val's structure, shapes and dtypes.
        init_val: the initial value, a pytree of arrays.
        unroll: accepted, as JAX's.
    Returns:
        The final value.
    """
    site = user_site()
    _check_function("fori_loop", site, body_fun=body_fun)
    _check_unroll("fori_loop", unroll, site)
    bounds = [fnp.asarray(lower), fnp.asarray(upper)]
    for name, b in zip(("lower", "upper"), bounds):
        spec = spec_of(b)
        if spec.shape != () or not spec.dtype.is_int:
            raise DTypeError(f"fori_loop: {name} must be an integer scalar, got {spec}", site)
    dtype = fnp.result_type(*bounds)
    _, tree, _, specs = _operands(init_val, "val", "fori_loop", site)

    def step(i: Any, val: Any) -> Any:
        out = body_fun(i, val)
        return unflatten(tree, _same_as("fori_loop", "the value body_fun returns", "val", out, tree, specs, site))

    lo, hi = _concrete_int(lower), _concrete_int(upper)
    if lo is not None and hi is not None:
        def counted(carry: Any, _: Any) -> tuple[Any, None]:
            i, val = carry
            return (i + 1, step(i, val)), None

        return scan(counted, (fnp.asarray(lo, dtype), init_val), None, length=max(hi - lo, 0))[0][1]
    start, stop = (fnp.astype(b, dtype) for b in bounds)
    return while_loop(lambda carry: carry[0] < stop, lambda carry: (carry[0] + 1, step(*carry)), (start, init_val))[1]


# ---------------------------------------------------------------------------
# while_loop
# ---------------------------------------------------------------------------


def while_loop(cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any) -> Any:
    """`val = body_fun(val)` while `cond_fun(val)` holds, as `jax.lax.while_loop`.

    Args:
        cond_fun: `val -> bool scalar`.
        body_fun: `val -> val`, keeping val's structure, shapes and dtypes.
        init_val: the initial value, a pytree of arrays.
    Returns:
        The final value. Forward mode (jvp) and vmap go through it; reverse mode does not, as in
        JAX (use scan, or fori_loop with Python int bounds).
    """
    site = user_site()
    _check_function("while_loop", site, cond_fun=cond_fun, body_fun=body_fun)
    carry, tree, paths, specs = _operands(init_val, "val", "while_loop", site)

    def predicate(*leaves: Any) -> list[Any]:
        out = cond_fun(unflatten(tree, list(leaves)))
        try:
            got = spec_of(out)
        except FgradError:  # not an array: a pytree, a string
            got = f"a {type(out).__name__}"
        if got != Spec((), DType.bool):
            raise DTypeError(f"while_loop: cond_fun must return a bool scalar, got {got}", site)
        return [out]

    def step(*leaves: Any) -> list[Any]:
        out = body_fun(unflatten(tree, list(leaves)))
        return _same_as("while_loop", "the value body_fun returns", "val", out, tree, specs, site)

    cond, cond_consts = _closed_body(predicate, specs, paths)
    body, body_consts = _closed_body(step, specs, paths)
    outs = bind(while_p, *cond_consts, *body_consts, *carry, cond=cond, body=body, num_cond_consts=len(cond_consts),
                num_body_consts=len(body_consts))
    return unflatten(tree, list(outs))


# ---------------------------------------------------------------------------
# cond and switch
# ---------------------------------------------------------------------------


_NO_OPERAND = object()  # cond's and switch's `operand` not given


def _one_operand(who: str, operands: tuple[Any, ...], operand: Any, site: str | None) -> tuple[Any, ...]:
    """The operands of a cond or switch given either way JAX takes them: positionally, or as the
    one `operand=` of its older form (not both)."""
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise InputError(f"{who}: operand= given beside {len(operands)} positional operands; pass the operands "
                         "one way only (operand= is the older form of one operand)", site)
    return (operand,)


def cond(pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any], *operands: Any,
         operand: Any = _NO_OPERAND) -> Any:
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, as `jax.lax.cond`.

    Both branches are traced and must return the same structure, shapes and dtypes; `pred` is a
    bool or integer scalar (an integer means pred != 0). Under vmap with a batched `pred` both
    branches run and each lane's result is selected, as in JAX. `operand=x`, JAX's older form,
    is the one operand x (given instead of positional ones).
    """
    site = user_site()
    operands = _one_operand("cond", operands, operand, site)
    _check_function("cond", site, true_fun=true_fun, false_fun=false_fun)
    p = fnp.asarray(pred)
    spec = spec_of(p)
    if spec.shape != ():
        raise ShapeError(f"cond: pred must be a scalar, got {spec}", site)
    if spec.dtype is not DType.bool and not spec.dtype.is_int:
        raise DTypeError(f"cond: pred must be a bool or integer scalar, got {spec}", site)
    index = fnp.astype(p if spec.dtype is DType.bool else p != 0, DType.i32)
    return _branch("cond", index, (false_fun, true_fun), ("false_fun", "true_fun"), operands, site)


def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any, operand: Any = _NO_OPERAND) -> Any:
    """`branches[index](*operands)`, as `jax.lax.switch`: the index is clamped into range.

    Every branch is traced and must return the same structure, shapes and dtypes. `operand=x`
    is the one operand x, as in `cond`.
    """
    site = user_site()
    operands = _one_operand("switch", operands, operand, site)
    if not isinstance(branches, (tuple, list)) or not branches:
        raise InputError(f"switch: branches must be a non-empty sequence of functions, got {branches!r}", site)
    _check_function("switch", site, **{f"branches[{k}]": b for k, b in enumerate(branches)})
    i = fnp.asarray(index)
    spec = spec_of(i)
    if spec.shape != () or not spec.dtype.is_int:
        raise DTypeError(f"switch: index must be an integer scalar, got {spec}", site)
    if len(branches) == 1:  # as JAX: one branch is simply called
        return branches[0](*operands)
    i = fnp.clip(fnp.astype(i, DType.i32), 0, len(branches) - 1)
    return _branch("switch", i, tuple(branches), tuple(f"branches[{k}]" for k in range(len(branches))), operands, site)


def _branch(who: str, index: Any, functions: Sequence[Callable[..., Any]], labels: Sequence[str],
            operands: Sequence[Any], site: str | None) -> Any:
    """Bind cond on `index`: each function traced over the operands' leaves, the Tensors any of
    them closes over made consts that every branch takes."""
    values, tree, paths, specs = _operands(tuple(operands), "operands", who, site)
    traced, out_trees = [], []
    for fn, label in zip(functions, labels):
        def flat(*leaves: Any, fn: Callable[..., Any] = fn, label: str = label) -> tuple[Any, ...]:
            out_leaves, out_tree = _returned(who, f"the value {label} returns", fn(*unflatten(tree, list(leaves))),
                                             "output", site)
            out_trees.append(out_tree)
            return tuple(out_leaves)

        traced.append(trace_function(flat, specs, paths, closures=True))
    for label, (graph, _), out_tree in zip(labels, traced, out_trees):
        if out_tree != out_trees[0]:
            path, what = first_difference(out_trees[0], out_tree)
            raise TraceError(f"{who}: {labels[0]} and {label} return different structures at "
                             f"{path or 'the top level'}: {what}; every branch returns the same structure, shapes "
                             "and dtypes", site)
        for path, want, got in zip(leaf_paths(out_tree, prefix="output"), traced[0][0].out_specs, graph.out_specs):
            if want != got:
                error = ShapeError if want.shape != got.shape else DTypeError
                raise error(f"{who}: {path} is {want} from {labels[0]} but {got} from {label}; every branch returns "
                            "the same structure, shapes and dtypes", site)
    consts: dict[tuple[int, int], Tensor] = {}  # every closed-over Tensor, once
    for _, closed in traced:
        for t in closed:
            consts.setdefault((id(t.owner), t.id), t)
    keys, n = list(consts), len(specs)
    graphs = []
    for graph, closed in traced:
        own = {(id(t.owner), t.id): n + k for k, t in enumerate(closed)}
        order = [own.get(key, consts[key].spec) for key in keys] + list(range(n))
        graphs.append(simplify(arranged(graph, order, [*(f"const.{k}" for k in range(len(keys))), *paths])))
    outs = bind(cond_p, index, *consts.values(), *values, branches=tuple(graphs))
    return unflatten(out_trees[0], list(outs))
