"""Control-flow primitives: scan, while and cond, whose bodies are graphs held in their params.

A body is a frozen Graph over flat tuples of leaves: fgrad/transforms/control_flow.py traces
the user's functions into bodies (`body_graph`, fgrad/transforms/bodies.py), the values they
close over becoming leading operands (consts). Every rule of a primitive is a transform of its bodies: reverse mode,
forward mode and batching trace the body's vjp, jvp or batched replay into a new body and bind
the primitive again, so the derived programs loop on the device as the original does.

One block per primitive: declaration, then its rules registered in each interpretation's
table (see fgrad/primitives/__init__.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp  # NOTE: rules are written with the public functions, read at call time
from fgrad.errors import DTypeError, ShapeError, TraceError
from fgrad.ir import RESULT, Const, Dim, DType, Graph, Node, Spec, declare
from fgrad.lower.kinds import ELEMENTWISE, LOOP, WHILE, register_lowering
from fgrad.lower.program import Limits
from fgrad.lower.rewrites import inline_body, rewrite_rules
from fgrad.trace import bind, user_site
from fgrad.transforms.autodiff import replay, vjp_forward_rules, vjp_rules
from fgrad.transforms.batching import batch_replay, batch_rules, batch_size, with_batch
from fgrad.transforms.forward import jvp_rules, zeros_like
from fgrad.transforms.passes import simplify_rules, uniform_constant

from fgrad.transforms.bodies import (
    batched_body, body_graph, differs, evaluate, jvp_body, run, split, vjp_body,
)

__all__ = ["cond_p", "scan_p", "while_p"]  # re-exported by fgrad.primitives


def _grown(flags: Sequence[bool], more: Sequence[bool]) -> list[bool]:
    return [a or b for a, b in zip(flags, more)]


def _lanes(mask: Any, x: Any) -> Any:
    """A batch of bools (B,) shaped to select along the batch axis of `x` (B, ...)."""
    return fnp.expand_dims(mask, tuple(range(1, fnp.ndim(x)))) if fnp.ndim(x) > 1 else mask


# ---------------------------------------------------------------------------
# scan: operands (*consts, *init carry, *xs); the body (*consts, *carry, *x slices) -> (*new carry,
# *y slices) runs `length` times, over xs along their leading axis (from the end where `reverse`);
# the results are the final carry and the ys stacked along a new leading axis.
# ---------------------------------------------------------------------------


def _scan_rule(*operands: Spec, body: Graph, length: int | Dim, reverse: bool, num_consts: int,
               num_carry: int) -> tuple[Spec, ...]:
    if not isinstance(length, Dim) and (not isinstance(length, int) or length < 0):
        raise ShapeError(f"scan: the length must be an integer >= 0, got {length!r}")
    consts, carry, xs = split(operands, num_consts, num_carry)
    for k, x in enumerate(xs):
        if not x.shape or x.shape[0] != length:
            raise ShapeError(f"scan: xs leaf {k} is {x}; each needs a leading axis of the length {length}")
    slices = [Spec(x.shape[1:], x.dtype) for x in xs]
    if body.in_specs != (*consts, *carry, *slices):
        raise differs("scan", "the body takes", body.in_specs, (*consts, *carry, *slices))
    outs = body.out_specs
    if outs[:num_carry] != tuple(carry):
        raise differs("scan", "the body returns the carry", outs[:num_carry], carry)
    return (*carry, *(Spec((length, *y.shape), y.dtype) for y in outs[num_carry:]))


def _scan_impl(*operands: np.ndarray, body: Graph, length: int, reverse: bool, num_consts: int,
               num_carry: int) -> tuple[np.ndarray, ...]:
    consts, carry, xs = split(operands, num_consts, num_carry)
    ys: list[tuple[np.ndarray, ...]] = []
    for i in reversed(range(length)) if reverse else range(length):
        outs = run(body, [*consts, *carry, *(x[i] for x in xs)])
        carry, y = outs[:num_carry], outs[num_carry:]
        ys.append(y)
    if reverse:  # ys[i] is the slice of iteration i, whichever way the loop ran
        ys.reverse()
    empty = [np.zeros((0, *s.shape), s.dtype.np) for s in body.out_specs[num_carry:]]
    return (*carry, *(np.stack([y[k] for y in ys]) if ys else e for k, e in enumerate(empty)))


# Reverse mode, as JAX's: a forward scan that also stacks the values the body's backward pass
# reads (its residuals), then a scan of the body's vjp the other way, carrying the carry's
# cotangent and summing the consts'. The joint body (primal and backward together) is split by
# what each node depends on: nodes of consts alone are computed once, outside both loops; nodes
# of the carry or x go in the forward body (those the backward reads are stacked, an x slice is
# read from xs again); nodes of the cotangents make the backward body.
def _scan_plan(body: Graph, num_consts: int, num_carry: int, n_in: int, y_ct: Sequence[int]) -> dict[str, Any]:
    """What the reverse mode of a scan over `body` needs, for cotangents of the float carries and
    of the ys `y_ct`: the joint graph (the body and its vjp), and which of its values the
    backward scan reads: invariants (of the consts alone, computed once), slices of xs, and values
    stacked by a forward scan."""
    nc, nk = num_consts, num_carry
    specs = body.in_specs
    carry_ct = [k for k in range(nk) if specs[nc + k].dtype.is_float]
    wrt = [i for i in range(n_in) if specs[i].dtype.is_float]
    joint, have = vjp_body(body, [*carry_ct, *(nk + k for k in y_ct)], wrt)
    consts, carry, xs, cts = split(joint.inputs, nc, nk, n_in - nc - nk)
    primal_out, ct_of = joint.outputs[:len(body.outputs)], dict(zip(have, joint.outputs[len(body.outputs):]))
    level = [0] * len(joint.nodes)  # bits: 1 consts, 2 carry or x, 4 cotangents; 0: constants alone
    for ids, bit in ((consts, 1), (carry, 2), (xs, 2), (cts, 4)):
        for i in ids:
            level[i] = bit
    for i, node in enumerate(joint.nodes):
        for j in node.inputs:
            level[i] |= level[j]
    read = {j for i, node in enumerate(joint.nodes) if level[i] & 4 for j in node.inputs}
    residuals = sorted(j for j in read | set(ct_of.values()) if 0 < level[j] < 4)
    return dict(joint=joint, have=have, consts=consts, xs=xs, cts=cts, primal_out=primal_out, ct_of=ct_of,
                carry_ct=carry_ct, invariant=[r for r in residuals if level[r] == 1],
                x_read=[r for r in residuals if r in xs], stacked=[r for r in residuals if level[r] & 2 and r not in xs])


def _residual_scan(operands: Sequence[Any], plan: dict[str, Any], body: Graph, length: int | Dim, reverse: bool,
                   num_consts: int, num_carry: int, ys: bool) -> tuple[Any, ...]:
    """The forward scan that stacks the residuals: its results are the carry, the ys where `ys`,
    then the stacks."""
    joint, nk = plan["joint"], num_carry
    outputs = [*plan["primal_out"][:nk], *(plan["primal_out"][nk:] if ys else []), *plan["stacked"]]

    def forward(*leaves: Any) -> list[Any]:
        return evaluate(joint, dict(zip(joint.inputs[:len(operands)], leaves)), outputs)

    fwd = body_graph(forward, body.in_specs, body.input_names)
    return bind(scan_p, *operands, body=fwd, length=length, reverse=reverse, num_consts=num_consts, num_carry=nk)


def _float_ys(body: Graph, num_carry: int) -> list[int]:
    return [k for k in range(len(body.outputs) - num_carry) if body.out_specs[num_carry + k].dtype.is_float]


# The forward pass under reverse mode: one scan giving the results and the stacked residuals,
# so a training step runs the loop forward once (the backward pass reads the stacks).
def _scan_forward(*operands: Any, body: Graph, length: int | Dim, reverse: bool, num_consts: int,
                  num_carry: int) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    plan = _scan_plan(body, num_consts, num_carry, len(operands), _float_ys(body, num_carry))
    outs = _residual_scan(operands, plan, body, length, reverse, num_consts, num_carry, ys=True)
    return tuple(outs[:len(body.outputs)]), tuple(outs[len(body.outputs):])


# Reverse mode, as JAX's: a forward scan stacks what the body's vjp reads (unless the forward pass
# kept it: `residuals`, from `_scan_forward`), then a reverse scan runs the body's vjp, carrying
# the carry's cotangent and summing the consts'.
def _scan_vjp(g: tuple[Any, ...], ans: tuple[Any, ...], *operands: Any, body: Graph, length: int | Dim,
              reverse: bool, num_consts: int, num_carry: int, residuals: tuple[Any, ...] | None = None) -> list[Any]:
    nc, nk, n_in = num_consts, num_carry, len(operands)
    specs = body.in_specs
    y_ct = _float_ys(body, nk) if residuals is not None else \
        [k for k in range(len(body.outputs) - nk) if g[nk + k] is not None]
    plan = _scan_plan(body, nc, nk, n_in, y_ct)
    joint, have, consts, xs, cts, ct_of, carry_ct, invariant, x_read, stacked = (plan[k] for k in (
        "joint", "have", "consts", "xs", "cts", "ct_of", "carry_ct", "invariant", "x_read", "stacked"))
    stacks = residuals if residuals is not None else \
        _residual_scan(operands, plan, body, length, reverse, nc, nk, ys=False)[nk:]
    invariants = evaluate(joint, dict(zip(consts, operands[:nc])), invariant)

    const_ct = [i for i in have if i < nc]
    x_ct = [i for i in have if i >= nc + nk]

    def backward_step(*leaves: Any) -> list[Any]:
        inv, acc, ct_carry, res, x, ct_y = split(leaves, len(invariant), len(const_ct), len(carry_ct), len(stacked),
                                                  len(x_read))
        env = dict(zip([*invariant, *stacked, *x_read, *cts], [*inv, *res, *x, *ct_carry, *ct_y]))
        carried = [nc + k for k in carry_ct if nc + k in ct_of]
        values = evaluate(joint, env, [ct_of[i] for i in (*const_ct, *carried, *x_ct)])
        summed, new_ct, ct_x = split(values, len(const_ct), len(carried))
        new_ct_carry = iter(new_ct)
        return [*(a + v for a, v in zip(acc, summed)),
                *(next(new_ct_carry) if nc + k in ct_of else zeros_like(c) for k, c in zip(carry_ct, ct_carry)),
                *ct_x]

    back_specs = [*(joint.nodes[r].spec for r in (*invariant,)), *(specs[i] for i in const_ct),
                  *(specs[nc + k] for k in carry_ct), *(joint.nodes[r].spec for r in (*stacked, *x_read)),
                  *(body.out_specs[nk + k] for k in y_ct)]
    back_names = [*(f"residual.{k}" for k in range(len(invariant))), *(f"cotangent.const.{i}" for i in const_ct),
                  *(f"cotangent.carry.{k}" for k in carry_ct),
                  *(f"residual.{len(invariant) + k}" for k in range(len(stacked) + len(x_read))),
                  *(f"cotangent.y.{k}" for k in y_ct)]
    bwd = body_graph(backward_step, back_specs, back_names)
    init = [*(zeros_like(operands[i]) for i in const_ct),
            *(g[k] if g[k] is not None else zeros_like(operands[nc + k]) for k in carry_ct)]
    x_operands = [operands[nc + nk + xs.index(r)] for r in x_read]
    y_cts = [g[nk + k] if g[nk + k] is not None else
             zeros_like(Spec((length, *body.out_specs[nk + k].shape), body.out_specs[nk + k].dtype)) for k in y_ct]
    outs = bind(scan_p, *invariants, *init, *stacks, *x_operands, *y_cts, body=bwd,
                length=length, reverse=not reverse, num_consts=len(invariant), num_carry=len(init))
    found = dict(zip([*const_ct, *(nc + k for k in carry_ct), *x_ct], outs))
    return [found.get(i) for i in range(n_in)]


# Forward mode: a scan of the body's jvp, each tangent beside its primal. A carry's tangent is
# carried where the init's is not zero or the body makes it not zero, to a fixed point.
def _scan_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, body: Graph, length: int | Dim,
              reverse: bool, num_consts: int, num_carry: int) -> list[Any]:
    nc, nk = num_consts, num_carry
    groups, ny = (nc, nk, len(primals) - nc - nk), len(body.outputs) - nk
    nonzero = [t is not None for t in tangents]
    while True:
        graph, gives = jvp_body(body, groups, (nk, ny), nonzero, [*nonzero[nc:nc + nk], *[False] * ny])
        carried = _grown(nonzero[nc:nc + nk], gives[:nk])
        if carried == nonzero[nc:nc + nk]:
            break
        nonzero[nc:nc + nk] = carried
    operands = []
    for group in split(range(len(primals)), nc, nk):
        operands += [primals[i] for i in group]
        operands += [zeros_like(primals[i]) if tangents[i] is None else tangents[i] for i in group if nonzero[i]]
    outs = bind(scan_p, *operands, body=graph, length=length, reverse=reverse, num_consts=nc + sum(nonzero[:nc]),
                num_carry=nk + sum(carried))
    carry, carry_t, ys, ys_t = split(outs, nk, sum(carried), ny)
    carry_t, ys_t = iter(carry_t), iter(ys_t)
    return [next(carry_t) if c else None for c in carried] + [next(ys_t) if y else None for y in gives[nk:]]


# Batching: the batched body, the carry batched where any part of the loop makes it so (to a
# fixed point, as JAX's); batched xs are scanned along their second axis.
def _scan_batch(args: Sequence[Any], batched: Sequence[bool], *, body: Graph, length: int | Dim, reverse: bool,
                num_consts: int, num_carry: int) -> tuple[Any, ...]:
    nc, nk, ny = num_consts, num_carry, len(body.outputs) - num_carry
    size, flags = batch_size(args, batched), list(batched)
    while True:
        graph, out = batched_body(body, flags, size, [*flags[nc:nc + nk], *[True] * ny])
        if _grown(flags[nc:nc + nk], out[:nk]) == flags[nc:nc + nk]:
            break
        flags[nc:nc + nk] = _grown(flags[nc:nc + nk], out[:nk])
    consts, init, xs = split(args, nc, nk)
    init = [with_batch(x, b, size) if f else x for x, b, f in zip(init, batched[nc:], flags[nc:nc + nk])]
    xs = [fnp.swapaxes(x, 0, 1) if b else x for x, b in zip(xs, batched[nc + nk:])]
    outs = bind(scan_p, *consts, *init, *xs, body=graph, length=length, reverse=reverse, num_consts=nc, num_carry=nk)
    return (*(with_batch(c, f, size) for c, f in zip(outs[:nk], flags[nc:nc + nk])),
            *(fnp.swapaxes(y, 0, 1) for y in outs[nk:]))


def _scan_simplify(node: Node, nodes: list[Node]) -> int | None:
    """A carry the body passes through unchanged (or a loop of no iterations) ends as its init."""
    p = node.attrs
    k, nc, body = p[RESULT], p["num_consts"], p["body"]
    if k < p["num_carry"] and (p["length"] == 0 or body.outputs[k] == body.inputs[nc + k]):
        return node.inputs[nc + k]
    return None


scan_p = declare("scan", _scan_rule, _scan_impl, multiple_results=True)
vjp_rules.register(scan_p, _scan_vjp)
vjp_forward_rules.register(scan_p, _scan_forward)
jvp_rules.register(scan_p, _scan_jvp)
batch_rules.register(scan_p, _scan_batch)
simplify_rules.register(scan_p, _scan_simplify)
register_lowering(scan_p, LOOP, None)  # the body's kernels once per iteration (fgrad/lower/loops.py)


# ---------------------------------------------------------------------------
# while: operands (*cond consts, *body consts, *init carry); while cond(*cond consts, *carry)
# holds, carry = body(*body consts, *carry). The result is the final carry.
# ---------------------------------------------------------------------------


def _while_rule(*operands: Spec, cond: Graph, body: Graph, num_cond_consts: int,
                num_body_consts: int) -> tuple[Spec, ...]:
    cond_consts, body_consts, carry = split(operands, num_cond_consts, num_body_consts)
    if cond.in_specs != (*cond_consts, *carry):
        raise differs("while", "the predicate takes", cond.in_specs, (*cond_consts, *carry))
    if cond.out_specs != (Spec((), DType.bool),):
        raise differs("while", "the predicate returns", cond.out_specs, (Spec((), DType.bool),))
    if body.in_specs != (*body_consts, *carry):
        raise differs("while", "the body takes", body.in_specs, (*body_consts, *carry))
    if body.out_specs != tuple(carry):
        raise differs("while", "the body returns", body.out_specs, carry)
    return tuple(carry)


def _while_impl(*operands: np.ndarray, cond: Graph, body: Graph, num_cond_consts: int,
                num_body_consts: int) -> tuple[np.ndarray, ...]:
    cond_consts, body_consts, carry = split(operands, num_cond_consts, num_body_consts)
    while run(cond, [*cond_consts, *carry])[0]:
        carry = run(body, [*body_consts, *carry])
    return tuple(carry)


WHILE_REVERSE_MODE = (
    "while_loop: reverse-mode differentiation (grad, vjp) of a while_loop is not supported, as in JAX: its "
    "trip count is known only when it runs, so no pass can keep each iteration's values for the backward "
    "pass. Use fg.lax.scan, or fg.lax.fori_loop with Python int bounds (a scan of a static trip count); "
    "forward mode (fg.jvp) works"
)


def _while_vjp(g: tuple[Any, ...], ans: tuple[Any, ...], *operands: Any, **params: Any) -> list[Any]:
    raise TraceError(WHILE_REVERSE_MODE, user_site())


# Forward mode: a while of the body's jvp; the predicate reads the primal carry alone.
def _while_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, cond: Graph, body: Graph,
               num_cond_consts: int, num_body_consts: int) -> list[Any]:
    ncc, nbc, nk = num_cond_consts, num_body_consts, len(primals) - num_cond_consts - num_body_consts
    nonzero = [t is not None for t in tangents[ncc:]]  # per body input: body consts, then carry
    while True:
        graph, gives = jvp_body(body, (nbc, nk), (nk,), nonzero, nonzero[nbc:])
        if _grown(nonzero[nbc:], gives) == nonzero[nbc:]:
            break
        nonzero[nbc:] = _grown(nonzero[nbc:], gives)
    carried = nonzero[nbc:]
    carry_specs = [s for s, c in zip(body.out_specs, carried) if c]

    def predicate(*leaves: Any) -> list[Any]:
        return [replay(cond, leaves[:ncc + nk])[cond.outputs[0]]]

    new_cond = body_graph(predicate, [*cond.in_specs, *carry_specs],
                          [*cond.input_names, *(f"tangent.{k}" for k in range(len(carry_specs)))])
    cond_consts, body_consts, carry = split(primals, ncc, nbc)
    body_tangents = [t for t, n in zip(tangents[ncc:ncc + nbc], nonzero) if n]
    carry_tangents = [zeros_like(x) if t is None else t for x, t, c in zip(carry, tangents[ncc + nbc:], carried) if c]
    outs = bind(while_p, *cond_consts, *body_consts, *body_tangents, *carry, *carry_tangents, cond=new_cond, body=graph,
                num_cond_consts=ncc, num_body_consts=nbc + len(body_tangents))
    found = iter(outs[nk:])
    return [next(found) if c else None for c in carried]


# Batching. With an unbatched predicate, a while of the batched body. With a batched one, every
# lane runs until its own predicate fails: the loop runs while any lane's holds, and a lane whose
# predicate fails keeps its carry (JAX's masking).
def _while_batch(args: Sequence[Any], batched: Sequence[bool], *, cond: Graph, body: Graph, num_cond_consts: int,
                 num_body_consts: int) -> tuple[Any, ...]:
    ncc, nbc = num_cond_consts, num_body_consts
    size = batch_size(args, batched)
    cond_flags, body_flags, carry = split(batched, ncc, nbc)
    while True:
        graph, out = batched_body(body, body_flags + carry, size, carry)
        if _grown(carry, out) == carry:
            break
        carry = _grown(carry, out)
    cond_consts, body_consts, init = split(args, ncc, nbc)
    pred, (pred_batched,) = batched_body(cond, cond_flags + carry, size, [False])
    if not pred_batched:
        init = [with_batch(x, b, size) if c else x for x, b, c in zip(init, batched[ncc + nbc:], carry)]
        outs = bind(while_p, *cond_consts, *body_consts, *init, cond=pred, body=graph, num_cond_consts=ncc,
                    num_body_consts=nbc)
        return tuple(with_batch(x, c, size) for x, c in zip(outs, carry))
    every = [True] * len(carry)
    graph = batched_body(body, body_flags + every, size, every)[0]
    pred = batched_body(cond, cond_flags + every, size, [True])[0]
    nk = len(carry)

    def any_lane(*leaves: Any) -> list[Any]:
        return [fnp.any(replay(pred, leaves)[pred.outputs[0]])]

    def masked(*leaves: Any) -> list[Any]:
        cc, bc, old = split(leaves, ncc, nbc)
        lanes = replay(pred, [*cc, *old])[pred.outputs[0]]
        env = replay(graph, [*bc, *old])
        return [fnp.where(_lanes(lanes, x), env[o], x) for o, x in zip(graph.outputs, old)]

    new_cond = body_graph(any_lane, pred.in_specs, pred.input_names)
    new_body = body_graph(masked, [*pred.in_specs[:ncc], *graph.in_specs],
                          [*pred.input_names[:ncc], *graph.input_names])
    init = [with_batch(x, b, size) for x, b in zip(init, batched[ncc + nbc:])]
    assert len(init) == nk
    return tuple(bind(while_p, *cond_consts, *cond_consts, *body_consts, *init, cond=new_cond, body=new_body,
                      num_cond_consts=ncc, num_body_consts=ncc + nbc))


def _while_simplify(node: Node, nodes: list[Node]) -> int | None:
    """A carry the body passes through unchanged ends as its init."""
    p = node.attrs
    k, body = p[RESULT], p["body"]
    if body.outputs[k] == body.inputs[p["num_body_consts"] + k]:
        return node.inputs[p["num_cond_consts"] + p["num_body_consts"] + k]
    return None


while_p = declare("while", _while_rule, _while_impl, multiple_results=True)
vjp_rules.register(while_p, _while_vjp)
jvp_rules.register(while_p, _while_jvp)
batch_rules.register(while_p, _while_batch)
simplify_rules.register(while_p, _while_simplify)
register_lowering(while_p, WHILE, None)  # the host reads the predicate per iteration (fgrad/lower/loops.py)


# ---------------------------------------------------------------------------
# cond: operands (index i32[], *operands); the results are those of branches[index] on the
# operands, the index clamped into range. switch binds it with its index clamped, cond(pred)
# with the index pred (0: false_fun, 1: true_fun).
# ---------------------------------------------------------------------------


def _cond_rule(index: Spec, *operands: Spec, branches: tuple[Graph, ...]) -> tuple[Spec, ...]:
    if index != Spec((), DType.i32):
        raise DTypeError(f"cond: the index must be i32[], got {index}")
    if not branches:
        raise ShapeError("cond: no branches")
    for k, branch in enumerate(branches):
        if branch.in_specs != operands:
            raise differs("cond", f"branch {k} takes", branch.in_specs, operands)
        if branch.out_specs != branches[0].out_specs:
            raise differs("cond", f"branch {k} returns", branch.out_specs, branches[0].out_specs)
    return branches[0].out_specs


def _cond_impl(index: np.ndarray, *operands: np.ndarray, branches: tuple[Graph, ...]) -> tuple[np.ndarray, ...]:
    return run(branches[int(np.clip(index, 0, len(branches) - 1))], operands)


# Reverse mode: a cond of the branches' vjps, on the operands and the cotangents; an operand's
# cotangent is zeros in a branch that gives it none, and None where no branch does.
def _cond_vjp(g: tuple[Any, ...], ans: tuple[Any, ...], index: Any, *operands: Any,
              branches: tuple[Graph, ...]) -> list[Any]:
    seeded = [k for k, ct in enumerate(g) if ct is not None]
    wrt = [i for i, s in enumerate(branches[0].in_specs) if s.dtype.is_float]
    reached = sorted({i for b in branches for i in vjp_body(b, seeded, wrt, primal=False)[1]})
    if not reached:
        return [None] * (1 + len(operands))
    graphs = tuple(vjp_body(b, seeded, wrt, reached, primal=False)[0] for b in branches)
    found = dict(zip(reached, bind(cond_p, index, *operands, *(g[k] for k in seeded), branches=graphs)))
    return [None, *(found.get(i) for i in range(len(operands)))]


# Forward mode: a cond of the branches' jvps; an output's tangent is zeros in a branch that gives
# it none, and None where no branch does.
def _cond_jvp(primals: Sequence[Any], tangents: Sequence[Any], ans: Any, *, branches: tuple[Graph, ...]) -> list[Any]:
    index, operands = primals[0], primals[1:]
    nonzero, n = [t is not None for t in tangents[1:]], len(branches[0].outputs)
    gives = [False] * n
    for b in branches:
        gives = _grown(gives, jvp_body(b, (len(operands),), (n,), nonzero, [False] * n)[1])
    if not any(gives):
        return [None] * n
    graphs = tuple(jvp_body(b, (len(operands),), (n,), nonzero, gives)[0] for b in branches)
    outs = bind(cond_p, index, *operands, *(t for t in tangents[1:] if t is not None), branches=graphs)
    found = iter(outs[n:])
    return [next(found) if gv else None for gv in gives]


# Batching. With an unbatched index, a cond of the batched branches. With a batched one, every
# branch is computed and each lane's result selected by its index (JAX's select_n).
def _cond_batch(args: Sequence[Any], batched: Sequence[bool], *, branches: tuple[Graph, ...]) -> tuple[Any, ...]:
    size, index, operands = batch_size(args, batched), args[0], args[1:]
    every = [True] * len(branches[0].outputs)
    if not batched[0]:
        graphs = tuple(batched_body(b, batched[1:], size, every)[0] for b in branches)
        return tuple(bind(cond_p, index, *operands, branches=graphs))
    results = []
    for b in branches:
        env, flags = batch_replay(b, operands, batched[1:])
        results.append([with_batch(env[o], flags[o], size) for o in b.outputs])
    index = fnp.clip(index, 0, len(branches) - 1)
    chosen = results[-1]
    for k in reversed(range(len(branches) - 1)):
        chosen = [fnp.where(_lanes(index == k, x), x, y) for x, y in zip(results[k], chosen)]
    return tuple(chosen)


def _cond_simplify(node: Node, nodes: list[Node]) -> int | Node | None:
    """A constant index keeps its branch alone (the index clamps into one branch's range); a
    result every branch passes through from one operand is that operand."""
    k, branches = node.attrs[RESULT], node.attrs["branches"]
    index = uniform_constant(nodes, node.inputs[0])
    if index is not None and len(branches) > 1:
        chosen = (branches[int(np.clip(index, 0, len(branches) - 1))],)
        return dataclasses.replace(node, params=tuple((p, chosen if p == "branches" else v) for p, v in node.params))
    through = {b.inputs.index(b.outputs[k]) if b.outputs[k] in b.inputs else None for b in branches}
    if len(through) == 1 and None not in through:
        return node.inputs[1 + through.pop()]
    return None


# Lowering: every branch inlined, the results selected by the index (both computed, as JAX's
# select_n under vmap). A constant index inlines its branch alone. Branches with effects (a debug
# print) run only when taken: each in a while loop that runs it at most once (`_once`).
def _inline_cond(node: Node, nodes: list[Node], add: Callable[..., int], limits: Limits) -> list[int]:
    index, operands, branches = node.inputs[0], list(node.inputs[1:]), node.attrs["branches"]
    known = uniform_constant(nodes, index)
    if known is not None:
        return inline_body(branches[int(np.clip(known, 0, len(branches) - 1))], operands, add)
    if any(b.effectful for b in branches):
        results = _once(index, operands, branches, add, node.site)
    else:
        results = [inline_body(b, operands, add) for b in branches]
    found = []
    for k, spec in enumerate(branches[0].out_specs):
        chosen = results[-1][k]
        for j in reversed(range(len(branches) - 1)):  # index <= j picks branch j: clamped, as the index is
            bound = add("constant", [], node.site, value=Const.of(j, DType.i32))
            pick = add("le", [index, bound], node.site)
            if spec.shape:
                pick = add("broadcast_to", [pick], node.site, shape=spec.shape)
            chosen = add("where", [pick, results[j][k], chosen], node.site)
        found.append(chosen)
    return found


def _once(index: int, operands: Sequence[int], branches: Sequence[Graph], add: Callable[..., int],
          site: str | None) -> list[list[int]]:
    """Each branch's results from a while loop over (run, *results) that runs the branch once
    where the clamped index picks it, else never (its results zeros): the results of each."""
    specs = (Spec((), DType.bool), *branches[0].out_specs)
    names = [f"carry.{k}" for k in range(len(specs))]
    test = body_graph(lambda run, *_: (run,), specs, names)
    low = add("maximum", [index, add("constant", [], site, value=Const.of(0, DType.i32))], site)
    clamped = add("minimum", [low, add("constant", [], site, value=Const.of(len(branches) - 1, DType.i32))], site)
    zeros = [add("broadcast_to", [add("constant", [], site, value=Const.of(0, s.dtype))], site, shape=s.shape)
             for s in specs[1:]]
    found = []
    for j, branch in enumerate(branches):
        m = len(branch.inputs)

        def once(*leaves: Any, branch: Graph = branch, m: int = m) -> list[Any]:
            env = replay(branch, leaves[:m])
            return [fnp.asarray(False), *(env[i] for i in branch.outputs)]

        body = body_graph(once, (*branch.in_specs, *specs), [*branch.input_names, *names])
        run = add("eq", [clamped, add("constant", [], site, value=Const.of(j, DType.i32))], site)
        inputs = [*operands, run, *zeros]
        found.append([add("while", inputs, site, cond=test, body=body, num_cond_consts=0, num_body_consts=m,
                          result=k) for k in range(len(specs))][1:])
    return found


cond_p = declare("cond", _cond_rule, _cond_impl, multiple_results=True)
vjp_rules.register(cond_p, _cond_vjp)
jvp_rules.register(cond_p, _cond_jvp)
batch_rules.register(cond_p, _cond_batch)
simplify_rules.register(cond_p, _cond_simplify)
rewrite_rules.register(cond_p, _inline_cond)
register_lowering(cond_p, ELEMENTWISE, None)  # never reached: the rewrite above replaces every cond node
