"""Loops on the device: a scan's body lowered once, its kernels dispatched once per iteration.

A `Loop` node (scan; fori_loop with static bounds is one) gets no kernel of its
own. Its body becomes a step program over the loop's state:

    step(counter, consts, carry, xs, ys) -> (new carry, ys with this iteration's slice written)

where the iteration's slices of `xs` are windows at the counter (views, read in
place) and its `y`s are written into the stacked results in place (the step
donates its state, so a window update writes the window alone). The step is
lowered like any graph, once. The loop's kernels are then, in order: set the
counter to 0, copy the initial carry into the loop's state buffers, and per
iteration the step's kernels on those buffers, a copy of each new carry the
step could not write in place, and a one-invocation kernel that advances the
counter. Every iteration runs the same pipelines on the same bind groups; all of
it is recorded into the program's command buffers, so no iteration waits on
the host. The state buffers are the loop's result buffers in the outer plan;
the step's own scratch and constants get buffers of their own.

A scan whose body is elementwise over its carries and its slices of `xs` (a fori_loop of
XLA's series and continued fractions, as in the incomplete gamma and beta functions; the
residual-stacking forward loop and the backward loop of its gradient; a linear recurrence)
lowers instead to one kernel, an invocation per element running every iteration with its
carries in registers (`loop_kernel` in wgsl.py): one dispatch, not a few per iteration
(gammainc of 12 values on llvmpipe: 2,159 dispatches, 82 ms a call, before).

A while loop (not `counted`) has no trip count to record ahead: its
predicate's program writes one bool, which the host reads back before each
run of the body (`Program.repeats`, run by the Executable): one round trip
per iteration, the price of a data-dependent loop on WebGPU. While loops nest: one in a while
loop's predicate or body runs, its own round trips included, each time the outer loop reaches
it; one in a scan's body is laid out once per iteration. Where its predicate reads only
carries of shape () (a fori_loop with traced bounds: its counter) and its body is elementwise,
the body is one kernel that tests the predicate itself before each iteration: one round trip
for the whole loop (two past 65,535 iterations).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fgrad.errors import CompileError
from fgrad.ir import PRIMITIVES, RESULT, DType, Graph, Node, Spec, call_params
from fgrad.lower.fusion import is_buffer_source
from fgrad.lower.kinds import Elementwise, View, Window, kind_of
from fgrad.lower.program import Buffer, Kernel, Limits, Program, Repeat, buffer_bytes, words
from fgrad.lower.rewrites import rewrite
from fgrad.lower.wgsl import LOOP_LIMIT, WORKGROUP, literal, loop_kernel
from fgrad.trace import bind, constant, trace_function
from fgrad.transforms.autodiff import replay
from fgrad.transforms.passes import simplify, uniform_constant


def step_graph(body: Graph, length: int, reverse: bool, num_consts: int, num_carry: int,
               operand_specs: Sequence[Spec], result_specs: Sequence[Spec]) -> tuple[Graph, frozenset[int]]:
    """The step program of a scan over `body`, and the positions of its inputs it donates (the state)."""
    from fgrad.primitives import dynamic_slice_p, dynamic_update_slice_p, reshape_p  # NOTE: they import lowering

    consts = tuple(operand_specs[:num_consts])
    carry = tuple(operand_specs[num_consts:num_consts + num_carry])
    xs = tuple(operand_specs[num_consts + num_carry:])
    ys = tuple(result_specs[num_carry:])

    def step(counter: Any, consts: Any, carry: Any, xs: Any, ys: Any) -> Any:
        # The counter is in range: the windows' starts need no wrapping of negative values.
        index = constant(length - 1, DType.i32) - counter if reverse else counter
        zero = constant(0, DType.i32)
        slices = [bind(reshape_p, bind(dynamic_slice_p, x, index, *[zero] * (x.ndim - 1), slice_sizes=(1, *x.shape[1:])),
                       shape=x.shape[1:]) for x in xs]
        env = replay(body, [*consts, *carry, *slices])
        outs = [env[i] for i in body.outputs]
        stacked = [bind(dynamic_update_slice_p, y_all, bind(reshape_p, y, shape=(1, *y.spec.shape)), index,
                        *[zero] * y.ndim) for y_all, y in zip(ys, outs[num_carry:])]
        return (*outs[:num_carry], *stacked)

    graph = simplify(trace_function(step, [Spec((), DType.i32), consts, carry, xs, ys],
                                    ["counter", "consts", "carry", "xs", "ys"])[0])
    first = 1 + len(consts)
    state = [*range(first, first + len(carry)), *range(first + len(carry) + len(xs), len(graph.inputs))]
    return graph, frozenset(state)


def _copy(name: str, source: int, target: int, nbytes: int, nodes: tuple[int, ...], limits: Limits) -> Kernel:
    """A kernel copying the words of buffer `source` into `target`."""
    n = words(nbytes) // 4
    x = min(-(-n // WORKGROUP), limits.max_compute_workgroups_per_dimension)
    y = -(-n // (x * WORKGROUP))
    wgsl = "\n".join([
        f"// fgrad: {name} {n} words",
        "@group(0) @binding(0) var<storage, read> b0: array<u32>;",
        "@group(0) @binding(1) var<storage, read_write> out: array<u32>;",
        "",
        f"@compute @workgroup_size({WORKGROUP})",
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {",
        f"    let i = gid.x + gid.y * {x * WORKGROUP}u;",
        f"    if (i < {n}u) {{",
        "        out[i] = b0[i];",
        "    }",
        "}",
        "",
    ])
    return Kernel(name, wgsl, (source,), (target,), (x, y, 1), nodes, (), ())


def _moves(name: str, moves: Sequence[tuple[int, int, Spec]], new: Callable[..., int], nodes: tuple[int, ...],
           limits: Limits) -> list[Kernel]:
    """Copies that move each (source, target, spec) at once, as a parallel assignment: a copy
    runs only once no other pending copy reads its target (a step's new carry may have been
    planned in the buffer of another carry's state: copying that carry first would overwrite
    it), and a cycle of them goes through a scratch buffer."""
    pending = [(s, t, spec) for s, t, spec in moves if s != t]
    kernels = []
    while pending:
        free = next((m for m in pending if all(o[0] != m[1] for o in pending if o is not m)), None)
        if free is None:  # every target is still to be read: keep one source aside
            s, t, spec = pending[0]
            aside = new("scratch", spec)
            kernels.append(_copy(name, s, aside, spec.max_nbytes, nodes, limits))
            pending[0] = (aside, t, spec)
            continue
        kernels.append(_copy(name, free[0], free[1], free[2].max_nbytes, nodes, limits))
        pending.remove(free)
    return kernels


def _counter(name: str, statement: str, counter: int, nodes: tuple[int, ...]) -> Kernel:
    """A one-invocation kernel on the loop's counter (an i32 buffer of one element)."""
    wgsl = "\n".join([
        f"// fgrad: {name} i32[]",
        "@group(0) @binding(0) var<storage, read_write> out: array<i32>;",
        "",
        "@compute @workgroup_size(1)",
        "fn main() {",
        f"    {statement}",
        "}",
        "",
    ])
    return Kernel(name, wgsl, (), (counter,), (1, 1, 1), nodes, (), ())


def _splice(name: str, program: Program, outer: Sequence[int], new: Callable[..., int], nodes: tuple[int, ...],
            limits: Limits) -> tuple[list[Kernel], dict[int, int], list[Repeat]]:
    """A sub-program's kernels (and its closing copies) on the outer plan: its inputs are the outer
    buffers `outer`, its other buffers get buffers of their own (`new`). Returns the kernels, where
    each of its buffers went, and its while loops among those kernels."""
    mapped: dict[int, int] = dict(zip(program.inputs, outer))
    for b, buf in enumerate(program.buffers):
        if b not in mapped:
            mapped[b] = new("constant" if buf.kind == "constant" else "scratch", program.specs[b], buf.data, buf.size)
    kernels = [dataclasses.replace(k, name=f"{name}.{k.name}", reads=tuple(mapped[b] for b in k.reads),
                                   writes=tuple(mapped[b] for b in k.writes), nodes=nodes, roots=())
               for k in program.kernels]
    kernels += [_copy(f"{name}_result", mapped[s], mapped[t], program.specs[t].max_nbytes, nodes, limits)
                for s, t in program.copies]
    return kernels, mapped, [loop.moved(0, mapped) for loop in program.repeats]


class _Plan:
    """The outer plan's buffers, to which a loop adds its own."""

    def __init__(self, buffers: list[Buffer], specs: list[Spec]):
        self.buffers, self.specs = buffers, specs

    def __call__(self, kind: str, spec: Spec, data: bytes = b"", size: int = 0) -> int:
        """A new buffer for `spec` (`size` bytes where more: a scratch slot grown for later values)."""
        size = max(size, spec.max_nbytes)
        self.buffers.append(Buffer(kind, size, sum(b.kind == kind for b in self.buffers), data))
        self.specs.append(spec)
        return len(self.buffers) - 1


def _state(graph: Graph, group: tuple[int, ...], where: dict[int, int], result_specs: Sequence[Spec],
           new: _Plan) -> list[int]:
    """The buffer of each result of a loop: its result node's, or one of its own for a result no node holds."""
    held = {graph.nodes[r].attrs[RESULT]: where[r] for r in group}
    return [held[k] if k in held else new("scratch", s) for k, s in enumerate(result_specs)]


def _inits(name: str, operands: Sequence[int], where: dict[int, int], state: Sequence[int],
           result_specs: Sequence[Spec], nodes: tuple[int, ...], limits: Limits) -> list[Kernel]:
    """Copies of the initial carry into the loop's state, but for a carry the plan keeps in its
    initial value's own buffer (a donated one: a KV cache updated in place)."""
    return [_copy(f"{name}_init", where[j], state[k], result_specs[k].max_nbytes, nodes, limits)
            for k, j in enumerate(operands) if where[j] != state[k]]


def _specs(graph: Graph, node: Node) -> tuple[list[Spec], tuple[Spec, ...]]:
    operand_specs = [graph.nodes[j].spec for j in node.inputs]
    result_specs = PRIMITIVES[node.op].abstract_eval(*operand_specs, **call_params(node))
    if any(s.symbols for s in (*operand_specs, *result_specs)):
        raise CompileError(f"lower: {node.op} over symbolic shapes ({', '.join(map(str, operand_specs))}) does not "
                           "lower to the device yet; give its operands static shapes", node.site)
    return operand_specs, result_specs


@dataclass(frozen=True)
class _ByElement:
    """What a loop's body graph computes element by element: `full`, the largest shape of its
    carries, slices and results (each broadcasts into it), the carries each node reads, and the
    nodes that vary with the carries or the slices."""

    full: tuple[int, ...]
    reads_carries: list[set[int]]
    varies: set[int]


def _by_element(body: Graph, carried: Sequence[int], sliced: Sequence[int]) -> _ByElement | None:
    """The body's `_ByElement` where every node that reads its carries or its slices (input nodes
    `carried` and `sliced`) is elementwise on operands of its own shape, or a broadcast, and every
    value broadcasts into the largest; else None (also where it calls the host: a kernel cannot)."""
    nodes = body.nodes
    if any(PRIMITIVES[n.op].host for n in nodes):
        return None
    full = max((nodes[j].spec.shape for j in (*carried, *sliced, *body.outputs)),
               key=lambda s: (math.prod(s), len(s)))

    def fits(shape: tuple[int, ...]) -> bool:  # broadcasts into `full`
        lead = len(full) - len(shape)
        return lead >= 0 and all(n in (1, full[lead + d]) for d, n in enumerate(shape))

    reads_carries: list[set[int]] = []
    varies: set[int] = set(sliced)
    for i, n in enumerate(nodes):
        reads_carries.append({carried.index(i)} if i in carried else set().union(*(reads_carries[j] for j in n.inputs)))
        if i in carried or any(j in varies for j in n.inputs):
            varies.add(i)
        kind = kind_of(n)
        if i not in varies or i in carried or i in sliced:
            continue
        by_element = isinstance(kind, Elementwise) and not isinstance(kind, Window) and \
            all(nodes[j].spec.shape == n.spec.shape for j in n.inputs)
        if not fits(n.spec.shape) or not (by_element or isinstance(kind, View) and kind.broadcasts):
            return None
    if not all(fits(nodes[j].spec.shape) for j in (*carried, *sliced, *body.outputs)):
        return None
    return _ByElement(full, reads_carries, varies)


def _live(found: _ByElement, new: Sequence[int], carries: set[int]) -> list[int]:
    """The carries that `carries` read through the body (carry k's new value is node `new[k]`),
    with those, in order."""
    while len(grown := carries.union(*(found.reads_carries[new[k]] for k in carries))) > len(carries):
        carries = grown
    return sorted(carries)


def _reached(body: Graph, roots: Sequence[int]) -> list[int]:
    """The nodes `roots` read through the body, with them, in order."""
    reached: set[int] = set()
    stack = list(roots)
    while stack:
        if (i := stack.pop()) not in reached:
            reached.add(i)
            stack.extend(body.nodes[i].inputs)
    return sorted(reached)


def _one_kernel(graph: Graph, group: tuple[int, ...], where: dict[int, int], state: Sequence[int], new: _Plan,
                limits: Limits) -> list[Kernel] | None:
    """The kernels of the scan whose result nodes are `group` where its body is elementwise over
    its carries and its slices of xs: copies of the initial carries of the largest shape into
    their state buffers where the kernel has no binding left to read them where they are, then
    the loop in one kernel (`loop_kernel`), which reads each iteration's slices from the xs and
    writes its slices of the ys in place. Carries and ys no result reads, and that none read,
    are left out. None where the loop is not of this form, its kernel would bind more buffers
    than the adapter allows, or it would read a buffer it writes other than in place."""
    from fgrad.lower import _kernel_name  # NOTE: a kernel is named as the planned ones are

    node = graph.nodes[group[0]]
    params = call_params(node)
    num_consts, num_carry, length = params["num_consts"], params["num_carry"], params["length"]
    if not 0 < length < LOOP_LIMIT:
        return None
    body = simplify(rewrite(params["body"], limits))
    nodes = body.nodes
    carried, sliced = body.inputs[num_consts:num_consts + num_carry], body.inputs[num_consts + num_carry:]
    found = _by_element(body, carried, sliced)
    if found is None:
        return None
    full = found.full
    held = {graph.nodes[r].attrs[RESULT] for r in group}
    live = _live(found, body.outputs, {k for k in held if k < num_carry}.union(
        *(found.reads_carries[body.outputs[k]] for k in held)))
    outs = live + sorted(k for k in held if k >= num_carry)  # results written: carries, then ys
    reached = _reached(body, [body.outputs[k] for k in outs])
    inits = [carried[k] for k in live]
    # Where the initial carry is a constant of equal elements (zeros, a flag), the kernel starts from it.
    starts = [uniform_constant(graph.nodes, node.inputs[num_consts + k]) for k in live]
    read = [j for j, v in zip(inits, starts) if v is None]
    smaller = [j for j in read if nodes[j].spec.shape != full]
    bound = [i for i in reached if is_buffer_source(body, i) and (i not in carried or i in smaller)]
    outer = {j: where[o] for j, o in zip(body.inputs, node.inputs)}  # the loop's operands' buffers
    writes = [state[k] for k in outs]
    spare = limits.max_storage_buffers_per_shader_stage - len(bound) - len(writes)
    if spare < 0 or {outer[j] for j in bound if j in outer} & set(writes):
        return None
    # The other initial carries are read where they are, while bindings are left (on a GPU's
    # limits, all of them), the rest copied into their state buffers first.
    elsewhere = [j for k, j in zip(live, inits) if j in read and j not in smaller and
                 outer[j] != state[k] and outer[j] not in writes]
    bound = sorted([*bound, *elsewhere[:spare]])
    _bind_constants(body, bound, outer, new)
    name = f"{node.op}.{_kernel_name(body, reached)}"
    written = loop_kernel(name, body, full, inits,
                          [None if v is None else literal(v, nodes[j].spec.dtype) for j, v in zip(inits, starts)],
                          [body.outputs[k] for k in outs], [j for j in sliced if j in reached], None, bound,
                          {j: f"b{k}" for k, j in enumerate(bound)}, _hoisted(body, found, reached), length,
                          params["reverse"], limits.max_compute_workgroups_per_dimension)
    kernels = [_copy(f"{node.op}_init", outer[j], state[k], nodes[j].spec.max_nbytes, group, limits)
               for k, j in zip(live, inits) if j in read and j not in bound and outer[j] != state[k]]
    return kernels + [_loop_kernel(name, written, body, reached, [outer[j] for j in bound], writes, group)]


def _bind_constants(body: Graph, bound: Sequence[int], outer: dict[int, int], new: _Plan) -> None:
    """A buffer of its own for each array constant of the body among `bound`."""
    for j in bound:
        if j not in outer:
            value = body.nodes[j].attrs["value"]
            outer[j] = new("constant", body.nodes[j].spec, buffer_bytes(value.array, value.dtype))


def _hoisted(body: Graph, found: _ByElement, reached: Sequence[int]) -> list[int]:
    """The loop-invariant values that varying nodes read: computed once, before the loop."""
    return sorted({j for i in reached if i in found.varies for j in body.nodes[i].inputs if j not in found.varies})


def _loop_kernel(name: str, written: Any, body: Graph, reached: Sequence[int], reads: Sequence[int],
                 writes: Sequence[int], group: tuple[int, ...]) -> Kernel:
    """The Kernel of a loop's one kernel on the outer plan's buffers, with the sites of the body's
    nodes it computes."""
    sites = tuple(dict.fromkeys(s for s in (body.nodes[i].site for i in reached) if s))
    return Kernel(name, written.wgsl, tuple(reads), tuple(writes), written.grid, group, (), sites)


def _one_while_body(graph: Graph, group: tuple[int, ...], where: dict[int, int], state: Sequence[int],
                    new: _Plan, limits: Limits) -> list[Kernel] | None:
    """The body's kernels of the while loop whose result nodes are `group` where its predicate
    reads only carries of shape () (a fori_loop with traced bounds: its counter) and its body is
    elementwise over its carries: one kernel, which tests the predicate before each iteration
    (every invocation alike) and stops where it fails, or after LOOP_LIMIT - 1 iterations
    (llvmpipe ends longer loops; the host's test then finds the predicate true and the kernel
    runs on). Carries of the largest shape are updated in place; the others are written to
    buffers of their own and copied back after the kernel, as every invocation reads them. None
    where the loop is not of this form or its kernel would bind more buffers than the adapter
    allows."""
    from fgrad.lower import _kernel_name  # NOTE: a kernel is named as the planned ones are

    node = graph.nodes[group[0]]
    params = call_params(node)
    n_cond, n_body = params["num_cond_consts"], params["num_body_consts"]
    cond, step = params["cond"], params["body"]
    specs = [graph.nodes[j].spec for j in node.inputs]

    def test_and_step(cond_consts: Any, body_consts: Any, carry: Any) -> Any:
        test = replay(cond, [*cond_consts, *carry])[cond.outputs[0]]
        env = replay(step, [*body_consts, *carry])
        return (test, *(env[i] for i in step.outputs))

    body = simplify(rewrite(trace_function(test_and_step, [specs[:n_cond], specs[n_cond:n_cond + n_body],
                                                         specs[n_cond + n_body:]],
                                           ["cond_consts", "body_consts", "carry"])[0], limits))
    nodes, carried = body.nodes, body.inputs[n_cond + n_body:]
    found = _by_element(body, carried, ())
    if found is None:
        return None
    full, predicate, outputs = found.full, body.outputs[0], body.outputs[1:]
    held = {graph.nodes[r].attrs[RESULT] for r in group}
    live = _live(found, outputs, held | found.reads_carries[predicate])
    inits = [carried[k] for k in live]
    smaller = [j for j in inits if nodes[j].spec.shape != full]
    reached = _reached(body, [predicate, *(outputs[k] for k in live)])
    bound = [i for i in reached if is_buffer_source(body, i) and (i not in carried or i in smaller)]
    outer = {j: where[o] for j, o in zip(body.inputs, node.inputs)}
    outer.update({carried[k]: state[k] for k in live})  # the carries live in the loop's state
    in_place = {state[k] for k, j in zip(live, inits) if j not in smaller}
    if len(bound) + len(inits) > limits.max_storage_buffers_per_shader_stage or \
            {outer[j] for j in bound if j in outer} & in_place:
        return None
    returned = {j: new("scratch", nodes[j].spec) for j in smaller}  # written apart, copied back
    writes = [returned.get(carried[k], state[k]) for k in live]
    _bind_constants(body, bound, outer, new)
    name = f"{node.op}.{_kernel_name(body, reached)}"
    written = loop_kernel(name, body, full, inits, [None] * len(inits), [outputs[k] for k in live], [], predicate,
                          bound, {j: f"b{k}" for k, j in enumerate(bound)}, _hoisted(body, found, reached),
                          LOOP_LIMIT - 1, False, limits.max_compute_workgroups_per_dimension)
    return [_loop_kernel(name, written, body, reached, [outer[j] for j in bound], writes, group),
            *(_copy(f"{node.op}_state", b, outer[j], nodes[j].spec.max_nbytes, group, limits)
              for j, b in returned.items())]


def loop_kernels(graph: Graph, group: tuple[int, ...], where: dict[int, int], buffers: list[Buffer],
                 specs: list[Spec], limits: Limits) -> tuple[list[Kernel], list[Repeat]]:
    """The kernels of the scan whose result nodes are `group`, on the outer plan's buffers (`where`),
    and the while loops among them (each iteration's copy of those in its body); the buffers the
    loop needs of its own are appended to `buffers` and `specs`."""
    from fgrad.lower import lower  # NOTE: the step is a program of its own

    node = graph.nodes[group[0]]
    params = call_params(node)
    operand_specs, result_specs = _specs(graph, node)
    num_consts, num_carry, length = params["num_consts"], params["num_carry"], params["length"]
    new = _Plan(buffers, specs)
    state = _state(graph, group, where, result_specs, new)
    fused = _one_kernel(graph, group, where, state, new, limits)
    if fused is not None:
        return fused, []
    counter = new("scratch", Spec((), DType.i32))
    kernels = [_counter(f"{node.op}_start", "out[0] = 0i;", counter, group)]
    kernels += _inits(node.op, node.inputs[num_consts:num_consts + num_carry], where, state, result_specs, group, limits)
    if length == 0:
        return kernels, []
    step, donated = step_graph(params["body"], length, params["reverse"], num_consts, num_carry, operand_specs,
                               result_specs)
    program = lower(step, limits, donated)
    outer = [counter, *(where[j] for j in node.inputs[:num_consts]), *state[:num_carry],
             *(where[j] for j in node.inputs[num_consts + num_carry:]), *state[num_carry:]]
    body, mapped, inner = _splice(node.op, program, outer, new, group, limits)
    body += _moves(f"{node.op}_state", [(mapped[b], state[k], result_specs[k]) for k, b in enumerate(program.outputs)],
                   new, group, limits)
    body.append(_counter(f"{node.op}_next", "out[0] = out[0] + 1i;", counter, group))
    repeats = []
    for _ in range(length):
        repeats += [loop.moved(len(kernels)) for loop in inner]
        kernels.extend(body)
    return kernels, repeats


def while_kernels(graph: Graph, group: tuple[int, ...], where: dict[int, int], buffers: list[Buffer],
                  specs: list[Spec], limits: Limits) -> tuple[list[Kernel], list[Repeat]]:
    """The kernels of the while loop whose result nodes are `group`: the initial copy of the carry,
    the predicate's program, then the body's (one kernel where `_one_while_body` makes it, else
    the body's program and the copies of the new carry it could not write in place); with the
    loop (where the predicate and the body start and end among them, and the buffer of the
    predicate, which the host reads after each test: Program.repeats) and the loops nested in it."""
    from fgrad.lower import lower  # NOTE: the predicate and the body are programs of their own

    node = graph.nodes[group[0]]
    params = call_params(node)
    _, result_specs = _specs(graph, node)
    n_cond, n_body = params["num_cond_consts"], params["num_body_consts"]
    cond_consts, body_consts = node.inputs[:n_cond], node.inputs[n_cond:n_cond + n_body]
    new = _Plan(buffers, specs)
    state = _state(graph, group, where, result_specs, new)
    kernels = _inits(node.op, node.inputs[n_cond + n_body:], where, state, result_specs, group, limits)
    test = len(kernels)
    predicate = lower(params["cond"], limits)
    found, mapped, inner = _splice(node.op, predicate, [*(where[j] for j in cond_consts), *state], new, group, limits)
    inner = [loop.moved(test) for loop in inner]
    kernels += found
    flag = mapped[predicate.outputs[0]]
    start = len(kernels)
    fused = _one_while_body(graph, group, where, state, new, limits)
    if fused is not None:
        return kernels + fused, [Repeat(test, start, start + len(fused), flag), *inner]
    carried = frozenset(range(n_body, n_body + len(state)))
    program = lower(params["body"], limits, carried)
    found, mapped, nested = _splice(node.op, program, [*(where[j] for j in body_consts), *state], new, group, limits)
    inner += [loop.moved(start) for loop in nested]
    kernels += found
    kernels += _moves(f"{node.op}_state", [(mapped[b], state[k], result_specs[k])
                                           for k, b in enumerate(program.outputs)], new, group, limits)
    return kernels, [Repeat(test, start, len(kernels), flag), *inner]
