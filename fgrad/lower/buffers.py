"""The buffer plan: one buffer per input, array constant and output, and
scratch slots for intermediates, reused by liveness. Buffers of symbolic values are
planned at the symbols' maxima, so one plan serves every value.

Kernels run in order; an intermediate is live from the kernel that writes it
to the last kernel that reads it. Slots are shared by values whose lives do not
overlap: the largest values are placed first, each in the smallest slot free for
its whole life, else in a new slot of its size (greedy by size, as TFLite's arena
planner), so memory follows the widest point of the program rather than its
length, and a long-lived small value (a checkpoint's input kept for the backward
pass) never holds a slot grown for a large one. A kernel never writes a slot it
reads: a value dies only after its last reader.

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

import bisect

from fgrad.ir import RESULT, Graph, Spec
from fgrad.lower.fusion import Group, is_buffer_source, reads_in_place
from fgrad.lower.kinds import Loop, kind_of
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
    lives = {r: (step, max(step, last_read.get(r, step))) for step, group in enumerate(groups) for r in group
             if r not in where and r not in graph.outputs}
    slot_of, slot_sizes = _share_slots(lives, {r: graph.nodes[r].spec.max_nbytes for r in lives})
    slot_buffer: dict[int, int] = {}
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
                    last_read.get(p, -1) < step or (last_read[p] == step and (all(
                        reads_in_place(graph, m, p, others) for m in group) or _carried(graph, r, p))))), None)
                if donor is None:
                    where[r] = new(r, "output", graph.outputs.index(r))
                    continue
                donors.remove(donor)
                where[r] = where[donor]
                if last_read.get(donor) == step:
                    in_place[r] = donor
                continue
            slot = slot_of[r]
            if slot not in slot_buffer:  # created when first written, so buffers keep the kernels' order
                slot_buffer[slot] = len(buffers)
                buffers.append(Buffer("scratch", slot_sizes[slot], sum(b.kind == "scratch" for b in buffers)))
                specs.append(spec)
            where[r] = slot_buffer[slot]
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


def _share_slots(lives: dict[int, tuple[int, int]], sizes: dict[int, int]) -> tuple[dict[int, int], list[int]]:
    """Slots for values live over the kernel steps `lives[r] = (first, last)` (inclusive), of
    `sizes[r]` bytes: largest first, each into the smallest slot free over its whole life, else
    into a new one; a slot's size is its first value's. Returns each value's slot and the sizes."""
    slot_of: dict[int, int] = {}
    sizes_of: list[int] = []
    held: list[tuple[list[int], list[int]]] = []  # per slot, the lives it holds: firsts and lasts, in order
    for r in sorted(lives, key=lambda r: (-sizes[r], lives[r], r)):
        first, last = lives[r]
        free = []
        for k, (firsts, lasts) in enumerate(held):
            at = bisect.bisect_left(firsts, first)
            if (at == 0 or lasts[at - 1] < first) and (at == len(firsts) or firsts[at] > last):
                free.append(k)
        if free:
            slot = min(free, key=lambda k: (sizes_of[k], k))
        else:
            slot = len(sizes_of)
            sizes_of.append(sizes[r])
            held.append(([], []))
        firsts, lasts = held[slot]
        at = bisect.bisect_left(firsts, first)
        firsts.insert(at, first)
        lasts.insert(at, last)
        slot_of[r] = slot
    return slot_of, sizes_of


def _carried(graph: Graph, r: int, p: int) -> bool:
    """Whether `r` is a loop's carried result whose initial value is `p` and the loop reads `p` for
    nothing else: the loop may carry it in `p`'s buffer (a decode loop's KV cache, in place)."""
    node = graph.nodes[r]
    kind = kind_of(node)
    if not isinstance(kind, Loop):
        return False
    operand = kind.inits(node).get(node.attrs[RESULT])
    return operand is not None and node.inputs[operand] == p and node.inputs.count(p) == 1
