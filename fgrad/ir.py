"""The immutable IR: DType, Spec, Const, Node, Graph.

A Graph is a tuple of Nodes in topological order; each Node names its op,
the ids (positions) of its input nodes, its static params and its output
Spec. Everything is a frozen dataclass with structural equality and hash,
so two traces of one function give equal graphs and share every cache. The
user's `file:line` rides along on each node but is never compared.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, GraphError, InputError, ShapeError, TraceError
from fgrad.pytree import TreeDef, first_difference, flatten, register_leaf, split_path, unflatten


class DType(str, enum.Enum):
    """Element types. Python floats become f32 and ints i32, as in JAX."""

    f32 = "f32"
    i32 = "i32"
    bool = "bool"

    def __str__(self) -> str:
        return self.value

    @property
    def np(self) -> np.dtype:
        return _TO_NUMPY[self]

    @property
    def type(self) -> type:
        """NumPy's scalar type (`np.float32`, ...), as on a NumPy dtype; jaxtyping reads it."""
        return self.np.type

    @property
    def is_float(self) -> bool:
        return self is DType.f32

    @property
    def itemsize(self) -> int:
        # NOTE: bool is stored as 4 bytes: WGSL storage buffers have no 1-byte type.
        return 4

    @staticmethod
    def of(x: Any) -> DType:
        """The fgrad dtype for a dtype name, DType, NumPy dtype or NumPy/Python value."""
        if isinstance(x, DType):
            return x
        if isinstance(x, str) and x in DType.__members__:
            return DType[x]
        if type(x) in _FROM_PYTHON:  # a Python value
            return _FROM_PYTHON[type(x)]
        if isinstance(x, type) and x in _FROM_PYTHON:  # a Python type
            return _FROM_PYTHON[x]
        try:
            dt = np.dtype(x)
        except TypeError:
            raise DTypeError(f"unsupported dtype {x!r}: fgrad has f32, i32 and bool") from None
        if (dt.kind, dt.itemsize) in _FROM_NUMPY or (dt.kind in "iu" and dt.itemsize <= 8):
            return _FROM_NUMPY.get((dt.kind, dt.itemsize), DType.i32)
        raise DTypeError(f"unsupported dtype {dt}: fgrad has f32, i32 and bool")

    @staticmethod
    def named(x: Any) -> DType:
        """The fgrad dtype a dtype argument names (a name, DType, NumPy dtype or scalar type);
        unlike `of`, a value such as 3 or 1.0 is refused rather than read as its own type."""
        if not isinstance(x, (str, DType, np.dtype, type)) and x is not None:
            raise DTypeError(f"{x!r} is not a dtype: fgrad has f32, i32 and bool")
        return DType.of(x)


_TO_NUMPY = {DType.f32: np.dtype(np.float32), DType.i32: np.dtype(np.int32), DType.bool: np.dtype(np.bool_)}
# float64 inputs become f32 and int64 become i32, as with JAX's default x64-off mode;
# other float widths (float16, float128) are refused rather than silently changed.
_FROM_NUMPY = {("f", 4): DType.f32, ("f", 8): DType.f32, ("b", 1): DType.bool}
_FROM_PYTHON = {float: DType.f32, int: DType.i32, bool: DType.bool}


@register_leaf
@dataclass(frozen=True, slots=True)
class Spec:
    """Static shape and dtype of a value."""

    shape: tuple[int, ...]
    dtype: DType

    def __post_init__(self) -> None:
        shape = tuple(self.shape)
        if not all(isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)) and d >= 1 for d in shape):
            raise ShapeError(f"invalid shape {shape}: dimensions must be integers >= 1 (fgrad tensors are non-empty)")
        object.__setattr__(self, "shape", tuple(int(d) for d in shape))
        object.__setattr__(self, "dtype", DType.named(self.dtype))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __str__(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"


class HasSpec:
    """Shape properties read off `self.spec`, for values that carry one (Tensor, Array)."""

    __slots__ = ()
    spec: Spec

    @property
    def shape(self) -> tuple[int, ...]:
        return self.spec.shape

    @property
    def dtype(self) -> DType:
        return self.spec.dtype

    @property
    def ndim(self) -> int:
        return self.spec.ndim

    @property
    def size(self) -> int:
        return self.spec.size


def spec(shape: int | tuple[int, ...] | list[int], dtype: str | DType = "f32") -> Spec:
    """The Spec of an argument: `fg.spec((32, 784))`, `fg.spec(10, "i32")`."""
    try:
        if isinstance(shape, np.ndarray):  # an array of sizes: a 0-d one is one size
            shape = shape.tolist()
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
            return Spec((int(shape),), DType.named(dtype))
        if isinstance(shape, (str, dict)) or not isinstance(shape, Iterable):
            raise ShapeError(f"invalid shape {shape!r}: expected an integer or a tuple of integers")
        return Spec(tuple(shape), DType.named(dtype))
    except (ShapeError, DTypeError) as e:
        # NOTE: imported here because trace.py builds on this module.
        from fgrad.trace import user_site

        raise type(e)(f"spec: {e}", user_site()) from None


@dataclass(frozen=True, slots=True)
class Const:
    """A constant array held in a node's params: hashable by its bytes."""

    data: bytes
    shape: tuple[int, ...]
    dtype: DType

    @staticmethod
    def of(value: Any, dtype: DType) -> Const:
        arr = np.array(value).astype(dtype.np, order="C")
        return Const(arr.tobytes(), arr.shape, dtype)

    @property
    def array(self) -> np.ndarray:
        return np.frombuffer(self.data, dtype=self.dtype.np).reshape(self.shape)

    def __repr__(self) -> str:
        arr = self.array
        if arr.ndim == 0:
            return repr(arr.item())
        if arr.size <= 6:
            return np.array2string(arr, separator=",", threshold=6).replace("\n", "")
        digest = hashlib.blake2b(self.data, digest_size=4).hexdigest()
        return f"<{Spec(self.shape, self.dtype)} {digest}>"


@dataclass(frozen=True, slots=True)
class Node:
    """One primitive application: `op` on the nodes `inputs` with static `params`."""

    op: str
    inputs: tuple[int, ...]
    params: tuple[tuple[str, Hashable], ...]
    spec: Spec
    site: str | None = field(default=None, compare=False)

    @property
    def attrs(self) -> dict[str, Hashable]:
        return dict(self.params)


@dataclass(frozen=True, slots=True)
class Graph:
    """A traced function: nodes in topological order, inputs, outputs, structures.

    `inputs` are ids of `input` nodes in argument order, `outputs` ids of the
    result leaves; `in_tree` is the structure of the argument tuple and
    `out_tree` that of the result. `captures` names intermediates registered
    with `fg.capture`, returned only when asked for.
    """

    nodes: tuple[Node, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    in_tree: TreeDef
    out_tree: TreeDef
    captures: tuple[tuple[str, int], ...] = ()
    _hash: int = field(init=False, repr=False, compare=False)
    _input_names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Graphs are cache keys; hash the node tuple once, not on every lookup. The input
        # names are read on every call of a compiled graph: found once too.
        object.__setattr__(self, "_hash", hash((self.nodes, self.inputs, self.outputs, self.in_tree, self.out_tree,
                                                self.captures)))
        object.__setattr__(self, "_input_names", tuple(dict(self.nodes[i].params).get("name", "") for i in self.inputs))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt through the constructor: the cached hash is only valid in the process that made it.
        return Graph, (self.nodes, self.inputs, self.outputs, self.in_tree, self.out_tree, self.captures)

    @property
    def input_names(self) -> tuple[str, ...]:
        return self._input_names

    @property
    def arg_positions(self) -> tuple[range, ...]:
        """For each top-level argument, the positions of its leaves among the inputs."""
        out, k = [], 0
        for child in self.in_tree.children:
            out.append(range(k, k + child.num_leaves))
            k += child.num_leaves
        return tuple(out)

    @property
    def arg_names(self) -> tuple[str, ...]:
        """Top-level argument names, read off the input names (`params.w` -> `params`)."""
        return tuple(split_path(self.input_names[r.start])[0] if r else f"arg{i}"
                     for i, r in enumerate(self.arg_positions))

    @property
    def in_specs(self) -> tuple[Spec, ...]:
        return tuple(self.nodes[i].spec for i in self.inputs)

    @property
    def out_specs(self) -> tuple[Spec, ...]:
        return tuple(self.nodes[i].spec for i in self.outputs)

    def __str__(self) -> str:
        return format_graph(self)


def _format_param(value: Any) -> str:
    if isinstance(value, (Spec, DType)):
        return str(value)
    return repr(value)


def format_graph(graph: Graph) -> str:
    """A listing in the spirit of a jaxpr: one node a line, `%id` names."""
    args = ", ".join(f"%{i}: {graph.nodes[i].spec} {graph.nodes[i].attrs['name']}" for i in graph.inputs)
    lines = [f"graph({args}) {{"]
    for i, node in enumerate(graph.nodes):
        if node.op == "input":
            continue
        shown = "[" + ", ".join(f"{k}={_format_param(v)}" for k, v in node.params) + "]" if node.params else ""
        operands = " ".join(f"%{j}" for j in node.inputs)
        lines.append(f"  %{i}: {node.spec} = {node.op}{shown}{' ' if operands else ''}{operands}")
    lines.extend(f"  capture {name!r} = %{i}" for name, i in graph.captures)
    outs = ", ".join(f"%{i}" for i in graph.outputs)
    lines.append(f"  return {outs}  # {graph.out_tree}")
    lines.append("}")
    return "\n".join(lines)


def require_graph(value: Any, who: str, hint: str | None = None) -> None:
    """Refuse anything but a Graph where `who` (a graph pass, say) takes one, ending the
    message with `hint` (by default, for a function, to trace it first)."""
    if not isinstance(value, Graph):
        # NOTE: imported here because trace.py builds on this module.
        from fgrad.trace import user_site

        if hint is None:
            hint = "; trace the function first: fg.trace(fn, *specs)" if callable(value) else ""
        raise TraceError(f"{who}: expected a Graph, got a {type(value).__name__}{hint}", user_site())


def typecheck(graph: Graph) -> Graph:
    """Re-derive every node's spec from its op's rule; raise GraphError on any mismatch.

    Returns the graph, so that it can wrap a transform's result.
    """
    # NOTE: imported here because ops.py builds on this module.
    from fgrad.ops import OPS

    require_graph(graph, "typecheck")

    def fail(i: int, why: str) -> GraphError:
        node = graph.nodes[i]
        return GraphError(f"typecheck: node %{i} ({node.op}) {why}", node.site)

    for i, node in enumerate(graph.nodes):
        if node.op not in OPS:
            raise fail(i, "has an unknown op")
        if any(not 0 <= j < i for j in node.inputs):
            raise fail(i, f"reads {node.inputs}, which are not earlier nodes")
        try:
            want = OPS[node.op].rule(*(graph.nodes[j].spec for j in node.inputs), **node.attrs)
        except Exception as e:  # noqa: BLE001 - any failure of the rule means a malformed node
            raise fail(i, f"breaks its op's rule: {type(e).__name__}: {e}") from None
        if want != node.spec:
            raise fail(i, f"declares {node.spec} but its rule gives {want}")
    if sorted(graph.inputs) != [i for i, n in enumerate(graph.nodes) if n.op == "input"]:
        raise GraphError(f"typecheck: graph inputs {graph.inputs} are not exactly the input nodes")
    if len(graph.inputs) != graph.in_tree.num_leaves:
        raise GraphError(f"typecheck: {len(graph.inputs)} inputs for an argument structure of {graph.in_tree.num_leaves} leaves")
    if any(not 0 <= i < len(graph.nodes) for i in graph.outputs) or len(graph.outputs) != graph.out_tree.num_leaves:
        raise GraphError(f"typecheck: outputs {graph.outputs} do not fit {len(graph.nodes)} nodes and structure {graph.out_tree}")
    names = graph.input_names
    if len(set(names)) != len(names):
        raise GraphError(f"typecheck: input names are not unique: {names}")
    captured = [name for name, _ in graph.captures]
    if len(set(captured)) != len(captured) or any(not 0 <= i < len(graph.nodes) for _, i in graph.captures):
        raise GraphError(f"typecheck: captures {graph.captures} are not unique names of nodes")
    return graph


def expose_captures(graph: Graph, names: Sequence[str] | None = None, site: str | None = None) -> Graph:
    """The graph returning `(outputs, {name: captured value})` for `names` (all if None)."""
    available = dict(graph.captures)
    if names is not None and (not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names)):
        raise InputError(f"captures: expected True or a list of capture names, got {names!r}", site)
    names = list(available) if names is None else list(names)
    unknown = [n for n in names if n not in available]
    if unknown:
        raise InputError(f"captures: no capture named {', '.join(map(repr, unknown))}; the graph has "
                         f"{', '.join(map(repr, available)) or 'none'}", site)
    picked = {n: available[n] for n in names}
    leaves, tree = flatten((unflatten(graph.out_tree, list(graph.outputs)), picked))
    return Graph(graph.nodes, graph.inputs, tuple(leaves), graph.in_tree, tree, graph.captures)


def _arg_label(graph: Graph, path: str) -> str:
    """Turn a structure path `1.layers.0` into `params.layers.0` using the input names."""
    head, rest = split_path(path)
    if not head.isdigit():
        return path
    return graph.arg_names[int(head)] + rest


I32 = np.iinfo(np.int32)  # the range of fgrad's integer type
# Python numbers are weakly typed: an int may feed an f32 input, as in JAX.
_WEAK_OK = {DType.f32: (bool, int, float), DType.i32: (bool, int), DType.bool: (bool,)}


def check_args(graph: Graph, args: tuple[Any, ...], who: str, site: str | None) -> list[Any]:
    """Check call arguments against the graph's inputs; return the leaves in input order.

    Raises InputError naming the first argument whose structure, shape or dtype
    differs, and the caller's `site`.
    """
    if len(args) != len(graph.in_tree.children):
        names = ", ".join(graph.arg_names)
        raise InputError(f"{who}: the graph takes {len(graph.in_tree.children)} arguments ({names}), got {len(args)}", site)
    leaves, tree = flatten(tuple(args))
    if tree != graph.in_tree:
        path, what = first_difference(graph.in_tree, tree)
        raise InputError(f"{who}: argument {_arg_label(graph, path)} does not match the graph's input: {what}", site)
    for name, want, leaf in zip(graph.input_names, graph.in_specs, leaves):
        if getattr(leaf, "spec", None) == want:  # an fg.Array of the right spec
            continue
        if type(leaf) in (bool, int, float):
            ok = want.shape == () and type(leaf) in _WEAK_OK[want.dtype]
            got = f"a Python {type(leaf).__name__}"
        else:
            shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
            if shape is None or dtype is None:
                raise InputError(f"{who}: argument {name} is a {type(leaf).__name__}, expected an array {want}", site)
            try:
                ok = tuple(shape) == want.shape and DType.of(dtype) is want.dtype
            except DTypeError:
                ok = False
            got = f"{dtype}{list(shape)}".replace(" ", "")
        if not ok:
            raise InputError(f"{who}: argument {name} is {got}, expected {want}", site)
        check_i32_range(leaf, want, f"{who}: argument {name}", site)
    return leaves


def fits_i32(values: Any) -> bool:
    """Whether the integers `values` (a number or an array) all lie in i32's range."""
    values = np.asarray(values)
    return not values.size or bool(I32.min <= values.min() and values.max() <= I32.max)


def check_i32_range(value: Any, spec: Spec, what: str, site: str | None) -> None:
    """Refuse host integers (int64, say) that do not fit the i32 they are for."""
    if spec.dtype is DType.i32 and not fits_i32(value):
        raise InputError(f"{what} has values outside the i32 range", site)
