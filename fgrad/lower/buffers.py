"""The buffer plan: one buffer per input, array constant and output, and
scratch slots for intermediates, reused by liveness.

Kernels run in order; an intermediate is live from the kernel that writes it
to the last kernel that reads it. A slot whose value is dead is given to the
next value that needs one (the closest in size, grown if it is smaller), so
memory follows the widest point of the program rather than its length. A
kernel never writes a slot it reads: a value dies only after its last reader.

Donated inputs give their buffers to outputs of the same spec: an output
takes a donated buffer once nothing later reads the input, writing it in
place when its own kernel is the last reader and reads it only at the
output's coordinates (an elementwise update such as `p - lr * g`).
"""

from __future__ import annotations

from fgrad.ir import Graph, Spec
from fgrad.lower.fusion import is_buffer_source, reads_in_place
from fgrad.lower.program import Buffer


def plan_buffers(graph: Graph, order: list[int], reads: dict[int, list[int]], donated: frozenset[int] = frozenset()
                 ) -> tuple[list[Buffer], list[Spec], dict[int, int], dict[int, int]]:
    """Buffers, the spec each was planned for, the buffer of every buffer-held node,
    and the donated input each in-place kernel reads from its own output buffer."""
    buffers: list[Buffer] = []
    specs: list[Spec] = []
    where: dict[int, int] = {}

    def new(i: int, kind: str, index: int = 0, data: bytes = b"") -> int:
        spec = graph.nodes[i].spec
        buffers.append(Buffer(kind, spec.nbytes, index, data))
        specs.append(spec)
        return len(buffers) - 1

    for k, i in enumerate(graph.inputs):
        where[i] = new(i, "input", k)
    for i in sorted({j for r in order for j in reads[r]} | set(graph.outputs)):
        if i not in where and is_buffer_source(graph, i):
            where[i] = new(i, "constant", data=graph.nodes[i].attrs["value"].data)
    last_read = {j: step for step, r in enumerate(order) for j in reads[r]}
    roots = set(order)
    donors = [graph.inputs[k] for k in sorted(donated)]
    in_place: dict[int, int] = {}
    free: list[int] = []  # scratch buffers whose value is dead
    for step, r in enumerate(order):
        if r in graph.outputs and r not in where:
            spec = graph.nodes[r].spec
            donor = next((p for p in donors if graph.nodes[p].spec == spec and (
                last_read.get(p, -1) < step or (last_read[p] == step and reads_in_place(graph, r, p, roots)))), None)
            if donor is None:
                where[r] = new(r, "output", graph.outputs.index(r))
            else:
                donors.remove(donor)
                where[r] = where[donor]
                if last_read.get(donor) == step:
                    in_place[r] = donor
        elif r not in where:
            need = graph.nodes[r].spec.nbytes
            fits = [b for b in free if buffers[b].size >= need]
            pick = min(fits, key=lambda b: buffers[b].size) if fits else max(free, key=lambda b: buffers[b].size, default=None)
            if pick is None:
                where[r] = new(r, "scratch", len([b for b in buffers if b.kind == "scratch"]))
            else:
                free.remove(pick)
                old = buffers[pick]
                buffers[pick] = Buffer("scratch", max(old.size, need), old.index)
                where[r] = pick
        for j in reads[r]:
            if last_read[j] == step and buffers[where[j]].kind == "scratch":
                free.append(where[j])
        if r not in last_read and buffers[where[r]].kind == "scratch":
            free.append(where[r])  # written but never read: nothing keeps it
    return buffers, specs, where, in_place
