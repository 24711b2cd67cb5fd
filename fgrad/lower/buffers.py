"""The buffer plan: one buffer per input, array constant and output, and
scratch slots for intermediates, reused by liveness. Buffers of symbolic values are
planned at the symbols' maxima, so one plan serves every value.

Kernels run in order; an intermediate is live from the kernel that writes it
to the last kernel that reads it. A slot whose value is dead is given to the
next value that needs one (the closest in size, grown if it is smaller), so
memory follows the widest point of the program rather than its length. A
kernel never writes a slot it reads: a value dies only after its last reader.

Donated inputs give their buffers to outputs of the same spec: an output
takes a donated buffer once nothing later reads the input, writing it in
place when its own kernel is the last reader and reads it only at the
output's coordinates (an elementwise update such as `p - lr * g`). A donated
input that is itself returned keeps its buffer as that result, so no other
output takes it.

Every result gets a buffer of its own, so no returned Array shares storage
with another or with the executable: a value returned twice, an input
returned as it is (unless donated) and an array constant are copied, after
the last kernel, into an output buffer of their own.
"""

from __future__ import annotations

from fgrad.ir import Graph, Spec
from fgrad.lower.fusion import Group, is_buffer_source, reads_in_place
from fgrad.lower.program import Buffer, buffer_bytes


def plan_buffers(graph: Graph, groups: list[Group], reads: dict[Group, list[int]], donated: frozenset[int] = frozenset()
                 ) -> tuple[list[Buffer], list[Spec], dict[int, int], dict[int, int], list[int], list[tuple[int, int]]]:
    """Buffers, the spec each was planned for, the buffer of every buffer-held node,
    for each root written in place the donated input it reads from its own buffer, the
    buffer of each result (all different), and the (source, result) buffer pairs to copy."""
    buffers: list[Buffer] = []
    specs: list[Spec] = []
    where: dict[int, int] = {}

    def new(i: int, kind: str, index: int = 0, data: bytes = b"") -> int:
        spec = graph.nodes[i].spec
        buffers.append(Buffer(kind, spec.max_nbytes, index, data))
        specs.append(spec)
        return len(buffers) - 1

    for k, i in enumerate(graph.inputs):
        where[i] = new(i, "input", k)
    for i in sorted({j for g in groups for j in reads[g]} | set(graph.outputs)):
        if i not in where and is_buffer_source(graph, i):
            value = graph.nodes[i].attrs["value"]
            where[i] = new(i, "constant", data=buffer_bytes(value.array, value.dtype))
    last_read = {j: step for step, g in enumerate(groups) for j in reads[g]}
    roots = {r for g in groups for r in g}
    donors = [graph.inputs[k] for k in sorted(donated) if graph.inputs[k] not in graph.outputs]
    # As in JAX, outputs pair with donated inputs of their spec in order (new parameters with
    # the old ones), so a training loop keeps each value in the same buffer from step to step.
    preferred: dict[int, int] = {}
    unpaired = list(donors)
    for r in graph.outputs:
        match = next((p for p in unpaired if graph.nodes[p].spec == graph.nodes[r].spec), None)
        if match is not None and r not in preferred and r not in where:  # inputs and constants are not computed
            preferred[r] = match
            unpaired.remove(match)
    in_place: dict[int, int] = {}
    free: list[int] = []  # scratch buffers whose value is dead
    for step, group in enumerate(groups):
        others = roots - set(group)
        for r in group:
            if r in where:
                continue
            spec = graph.nodes[r].spec
            if r in graph.outputs:
                # A donor read by this very kernel is overwritten in place: every root of the
                # kernel must read it only at its own coordinates.
                ranked = sorted(donors, key=lambda p: p != preferred.get(r))
                donor = next((p for p in ranked if graph.nodes[p].spec == spec and (
                    last_read.get(p, -1) < step or (last_read[p] == step and all(
                        reads_in_place(graph, m, p, others) for m in group)))), None)
                if donor is None:
                    where[r] = new(r, "output", graph.outputs.index(r))
                    continue
                donors.remove(donor)
                where[r] = where[donor]
                if last_read.get(donor) == step:
                    in_place[r] = donor
                continue
            fits = [b for b in free if buffers[b].size >= spec.max_nbytes]
            pick = min(fits, key=lambda b: buffers[b].size) if fits else max(free, key=lambda b: buffers[b].size, default=None)
            if pick is None:
                where[r] = new(r, "scratch", sum(b.kind == "scratch" for b in buffers))
            else:
                free.remove(pick)
                buffers[pick] = Buffer("scratch", max(buffers[pick].size, spec.max_nbytes), buffers[pick].index)
                where[r] = pick
        for j in reads[group]:
            if last_read[j] == step and buffers[where[j]].kind == "scratch":
                free.append(where[j])
        for r in group:
            if r not in last_read and buffers[where[r]].kind == "scratch":
                free.append(where[r])  # written but never read: nothing keeps it
    outputs: list[int] = []
    copies: list[tuple[int, int]] = []
    for i in graph.outputs:
        b = where[i]
        held = buffers[b].kind == "output" or (buffers[b].kind == "input" and buffers[b].index in donated)
        if b in outputs or not held:
            copies.append((b, new(i, "output", len(outputs))))
            b = copies[-1][1]
        outputs.append(b)
    return buffers, specs, where, in_place, outputs, copies
