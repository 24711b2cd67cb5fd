"""Kernel kinds and the lowering table.

Every primitive registers, next to its declaration (fgrad/primitives.py), a
`Lowering`: its kernel kind and its WGSL rule. The kind says how fusion
(fgrad/lower/fusion.py) groups its nodes into kernels and which kernel
skeleton computes it, and declares the static params it reads, checked
against the primitive's abstract evaluation when registered:

- `Source`: read from a buffer (inputs; constants unless all elements are equal);
- `View`: index remapping, always inlined (reshape, transpose, slice, take, ...);
- `Elementwise`: inlined into its one reading kernel; materialized when several
  kernels read it, or a contraction does (which would recompute it per use);
  a `Conversion` (astype) of a buffer a contraction reads is converted per load;
- `Host`: a call of Python on the host between kernels (a callback);
- `Reduction` (over `axes`: sum, max, argmax), `Normalization` (along `axis`,
  softmax), `Scan` (along `axis`, from the end where `reverse`: cumsum), `Sort`
  (rows along the last axis put in order: argsort) and `Contraction`: a kernel of
  their own, except that a matmul joins the kernel of its elementwise epilogue.

A WGSL rule gives the node's value at output coordinates (WGSL i32
expressions, one per axis): a template over the operands' values there, or
a function `wgsl(w, i, coords)` of the kernel writer w (fgrad/lower/wgsl.py).
A `Sort` node's rule gives instead the order key of its operand's entry at
the coordinates; the sort and merge skeletons do the rest.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fgrad.ir import Node, Primitive, RuleTable, Spec

WGSLRule = str | Callable[..., str] | None


@dataclass(frozen=True)
class Kind:
    """How lowering treats a primitive's nodes. `params` are the static params it reads."""

    params = ()
    materialized = False  # always the root of a kernel of its own
    works = True  # does work of its own (named in kernel names), unlike views and sources
    on_buffers = False  # reads its operands from buffers, binding none itself (a loop, a host call)

    def folds(self, node: Node, *inputs: Spec) -> int:
        """How many values the node combines into each of its results (0 for none)."""
        return 0


@dataclass(frozen=True)
class Source(Kind):
    works = False


@dataclass(frozen=True)
class Elementwise(Kind):
    pass


@dataclass(frozen=True)
class Conversion(Elementwise):
    """A value converted element by element (astype): a contraction reads it through, converting
    each load, rather than have a converted copy made (an f16 weight in an f32 product)."""


Factor = tuple[int, int]  # (size, stride): a digit of an axis's coordinate, and the elements it steps


@dataclass(frozen=True)
class Layout:
    """Where the elements of a view of a buffer (static shapes) sit in it. Each axis's
    coordinate is a number in mixed radix: its digits over the (size, stride) factors of
    `axes[k]`, outermost first, each stepping `stride` elements. The element at coordinates c
    sits at `offset` plus each digit times its stride. A buffer's axes are a factor each
    (row-major); a reshape joining axes that are not adjacent in memory (attention's heads put
    back side by side) makes an axis of several."""

    axes: tuple[tuple[Factor, ...], ...]
    offset: int = 0

    @staticmethod
    def of(shape: tuple[int, ...]) -> Layout:
        """A buffer's own, row-major."""
        return Layout(tuple(((n, math.prod(shape[k + 1:])),) for k, n in enumerate(shape)))


def _no_relation(node: Node, x: Spec) -> str | None:
    return None


def _no_layout(node: Node, x: Spec, at: Layout) -> Layout | None:
    return None


def _never(node: Node, x: Spec, width: int) -> bool:
    return False


@dataclass(frozen=True)
class View(Kind):
    """Index remapping. `last_axis(node, x)` tells how the view's last axis walks its
    operand's: "same" (consecutive along the operand's last axis, so probably adjacent in
    memory), "swapped" (the last two axes exchanged), or None. `keeps_rows(node, x, width)`:
    whether a value per row of `width` stays one value per row seen through the view (a
    row reduction may then join the kernel of its rows). `layout(node, x, at)`: the view's
    Layout, its operand's being `at`, where strides express it (static shapes), else None.
    `broadcasts`: each result reads its operand at its own coordinates, NumPy's broadcasting
    aligning them (leading axes dropped, size-1 axes at 0), so an invocation computing a value at
    some coordinates needs its operand at no others (a loop run in one kernel: loops.py)."""

    last_axis: Callable[[Node, Spec], str | None] = _no_relation
    keeps_rows: Callable[[Node, Spec, int], bool] = _never
    layout: Callable[[Node, Spec, Layout], Layout | None] = _no_layout
    broadcasts: bool = False
    works = False


@dataclass(frozen=True)
class Reduction(Kind):
    """Folds its operand over `axes`. `selects`: the result is one of the values folded, bit
    for bit (max, min): fusion keeps one computation of what it folds."""

    selects: bool = False
    params = ("axes",)
    materialized = True

    def axes(self, node: Node) -> tuple[int, ...]:
        return node.attrs["axes"]

    def folds(self, node: Node, *inputs: Spec) -> int:
        return math.prod(inputs[0].shape[a] for a in self.axes(node))


@dataclass(frozen=True)
class Normalization(Kind):
    """Each result reads its whole row along `axis` (softmax)."""

    params = ("axis",)
    materialized = True

    def axis(self, node: Node) -> int:
        return node.attrs["axis"]

    def folds(self, node: Node, *inputs: Spec) -> int:
        return inputs[0].shape[self.axis(node)]


@dataclass(frozen=True)
class Scan(Normalization):
    """Each result folds the prefix of its row along `axis` (cumsum), or the suffix where
    `reverse` holds."""

    params = ("axis", "reverse")

    def reverse(self, node: Node) -> bool:
        return node.attrs["reverse"]


@dataclass(frozen=True)
class Sort(Kind):
    """Puts rows along the last axis in order (argsort, sort). The WGSL rule gives the order
    key of the operand's element at given coordinates (a u32: smaller keys first, equal ones in
    order of their index); a workgroup per row sorts the keys with their indices in shared
    memory and stores the indices in that order, or, with `values`, the operand's values, from
    the row's end where `descending` holds. A node with `run` sorts each run of that many
    entries of its rows on its own (indices stay the row's), the first pass of a row too long
    for the shared memory. `merges`: the node merges sorted runs instead (`merge_runs`), each
    result searching its place in one invocation."""

    values: bool = False
    merges: bool = False
    params = ("descending",)
    materialized = True

    def run(self, node: Node) -> int | None:
        return node.attrs.get("run")

    def folds(self, node: Node, *inputs: Spec) -> int:
        return inputs[0].shape[-1]


@dataclass(frozen=True)
class Window(Elementwise):
    """The operand with a window replaced (dynamic_update_slice). Updating a donated operand in
    place, its kernel writes the window alone, an invocation per element of the update."""


@dataclass(frozen=True)
class Loop(Kind):
    """Runs a body graph a static number of times (scan), or, not `counted`, while a predicate
    graph holds (while). Its operands are read from buffers and its results written to buffers
    of their own; lowering gives it no kernel but the body's kernels, once per iteration
    (fgrad/lower/loops.py)."""

    counted: bool = True
    materialized = True
    on_buffers = True

    def inits(self, node: Node) -> dict[int, int]:
        """For each carried result, the operand holding its initial value (read once, first)."""
        p = node.attrs
        if self.counted:
            return {k: p["num_consts"] + k for k in range(p["num_carry"])}
        first = p["num_cond_consts"] + p["num_body_consts"]
        return {k: first + k for k in range(len(node.inputs) - first)}


@dataclass(frozen=True)
class Host(Kind):
    """Called on the host (a Python callback): lowering gives it no kernel but its place among
    them; the runtime reads its operands back from their buffers there, calls it, and writes
    its results into buffers of their own (Kernel.host)."""

    materialized = True
    on_buffers = True


@dataclass(frozen=True)
class Contraction(Kind):
    """Sums products or updates into each result; `count(node, *inputs)` of them."""

    count: Callable[..., int] = lambda node, *inputs: 0
    tiled: bool = False  # the tiled matrix-product skeleton computes it (fgrad/lower/matmul.py)
    materialized = True

    def folds(self, node: Node, *inputs: Spec) -> int:
        return self.count(node, *inputs)


SOURCE, ELEMENTWISE, CONVERSION, VIEW = Source(), Elementwise(), Conversion(), View()
REDUCTION, NORMALIZATION, SCAN = Reduction(), Normalization(), Scan()
WINDOW, LOOP, WHILE, HOST = Window(), Loop(), Loop(counted=False), Host()


@dataclass(frozen=True)
class Lowering:
    kind: Kind
    wgsl: WGSLRule


lowerings = RuleTable("lower", "WGSL lowering")


def register_lowering(primitive: Primitive, kind: Kind, wgsl: WGSLRule) -> None:
    """Register `primitive`'s kernel kind and WGSL rule; the params the kind reads must be
    params of the primitive."""
    taken = inspect.signature(primitive.abstract_eval).parameters
    missing = [p for p in kind.params if p not in taken]
    assert not missing, f"{primitive}: kind {type(kind).__name__} reads params {missing} it does not have"
    lowerings.register(primitive, Lowering(kind, wgsl))


def kind_of(node: Node) -> Kind:
    return lowerings[node.op].kind


def folds(nodes: Any, i: int) -> int:
    """How many values node `i` of `nodes` combines into each of its results (0 for none); with
    symbols, at their maxima (what kernels are planned for)."""
    node = nodes[i]
    specs = (nodes[j].spec for j in node.inputs)
    return kind_of(node).folds(node, *(Spec(s.max_shape, s.dtype) if s.symbols else s for s in specs))
