"""The immutable IR: DType (a table of rows), Spec, Const, Node, Primitive and rule tables, Graph.

A Graph is a tuple of Nodes in topological order; each Node names its op,
the ids (positions) of its input nodes, its static params and its output
Spec. Everything is a frozen dataclass with structural equality and hash,
so two traces of one function give equal graphs and share every cache. The
user's `file:line` rides along on each node but is never compared.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, FgradError, ShapeError
from fgrad.pytree import TreeDef, register_leaf, split_path


class DType(str, enum.Enum):
    """Element types, each a row of `DTYPES`. Python floats become f32 and ints i32, as in JAX."""

    f32 = "f32"
    f16 = "f16"
    i32 = "i32"
    u32 = "u32"
    bool = "bool"

    def __str__(self) -> str:
        return self.value

    @property
    def row(self) -> DTypeRow:
        return DTYPES[self]

    @property
    def np(self) -> np.dtype:
        return self.row.np

    @property
    def type(self) -> type:
        """NumPy's scalar type (`np.float32`, ...), as on a NumPy dtype; jaxtyping reads it."""
        return self.np.type

    @property
    def is_float(self) -> bool:
        return self.row.np.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.row.np.kind in "iu"

    @property
    def itemsize(self) -> int:
        return self.row.itemsize

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
            raise DTypeError(f"unsupported dtype {x!r}: fgrad has {_NAMES}") from None
        if (dt.kind, dt.itemsize) in _FROM_NUMPY:
            return _FROM_NUMPY[dt.kind, dt.itemsize]
        raise DTypeError(f"unsupported dtype {dt}: fgrad has {_NAMES}")

    @staticmethod
    def named(x: Any) -> DType:
        """The fgrad dtype a dtype argument names (a name, DType, NumPy dtype or scalar type);
        unlike `of`, a value such as 3 or 1.0 is refused rather than read as its own type."""
        if not isinstance(x, (str, DType, np.dtype, type)) and x is not None:
            raise DTypeError(f"{x!r} is not a dtype: fgrad has {_NAMES}")
        return DType.of(x)


@dataclass(frozen=True, slots=True)
class DTypeRow:
    """What fgrad knows of one dtype: a new dtype is one row of `DTYPES`."""

    np: np.dtype  # the NumPy dtype of its host values
    itemsize: int  # bytes per element in a device buffer
    storage: str  # WGSL type of its storage buffer elements
    compute: str  # WGSL type of its values inside a kernel
    feature: str | None = None  # the adapter feature its WGSL needs


DTYPES = {
    DType.f32: DTypeRow(np.dtype(np.float32), 4, "f32", "f32"),
    DType.f16: DTypeRow(np.dtype(np.float16), 2, "f16", "f16", feature="shader-f16"),
    DType.i32: DTypeRow(np.dtype(np.int32), 4, "i32", "i32"),
    DType.u32: DTypeRow(np.dtype(np.uint32), 4, "u32", "u32"),
    # NOTE: bool is stored as 4 bytes: WGSL storage buffers have no 1-byte type.
    DType.bool: DTypeRow(np.dtype(np.bool_), 4, "u32", "bool"),
}
_NAMES = ", ".join(map(str, DTYPES))
# float64 inputs become f32 and int64 i32, as with JAX's default x64-off mode (uint64 becomes u32);
# other integer widths widen or narrow to them, as jnp.asarray does; float128 is refused.
_FROM_NUMPY = {("f", 4): DType.f32, ("f", 8): DType.f32, ("f", 2): DType.f16, ("b", 1): DType.bool,
               ("i", 1): DType.i32, ("i", 2): DType.i32, ("i", 4): DType.i32, ("i", 8): DType.i32,
               ("u", 1): DType.u32, ("u", 2): DType.u32, ("u", 4): DType.u32, ("u", 8): DType.u32}
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


@dataclass(frozen=True, slots=True)
class Const:
    """A constant array held in a node's params: hashable by its bytes."""

    data: bytes
    shape: tuple[int, ...]
    dtype: DType

    @staticmethod
    def of(value: Any, dtype: DType) -> Const:
        """`value` as a constant of `dtype`; an array whose elements are all equal is held as
        one element (a broadcast view of one is never copied out)."""
        arr = np.asarray(value)
        if arr.size > 1 and (not any(arr.strides) or (arr == arr.flat[0]).all()):
            return Const(np.asarray(arr.flat[0]).astype(dtype.np).tobytes(), arr.shape, dtype)
        arr = arr.astype(dtype.np, order="C")
        return Const(arr.tobytes(), arr.shape, dtype)

    @property
    def array(self) -> np.ndarray:
        """The value, read-only (a broadcast view where all elements are equal)."""
        flat = np.frombuffer(self.data, dtype=self.dtype.np)
        return flat.reshape(self.shape) if flat.size != 1 else np.broadcast_to(flat[0], self.shape)

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


@dataclass(frozen=True, eq=False)
class Primitive:
    """A primitive op, declared once (fgrad/primitives.py): its name, its abstract evaluation
    (input specs and static params -> output spec, raising ShapeError / DTypeError) and its
    NumPy implementation, the reference semantics that `interpret` runs. Everything else an
    interpretation knows of it sits in that interpretation's `RuleTable`."""

    name: str
    abstract_eval: Callable[..., Spec]
    impl: Callable[..., np.ndarray]

    def __str__(self) -> str:
        return self.name


PRIMITIVES: dict[str, Primitive] = {}  # every declared primitive, by the name nodes carry


def declare(name: str, abstract_eval: Callable[..., Spec], impl: Callable[..., np.ndarray]) -> Primitive:
    """Declare a primitive; its name must be new."""
    assert name not in PRIMITIVES, f"primitive {name} declared twice"
    PRIMITIVES[name] = Primitive(name, abstract_eval, impl)
    return PRIMITIVES[name]


class MissingRule(FgradError, NotImplementedError):
    """An interpretation met a primitive it has no rule for."""


class RuleTable:
    """The rules one interpretation (vjp, simplify, the WGSL lowering, ...) has, by primitive.

    A primitive's rules are registered next to its declaration; an interpretation looks its
    rule up, and a missing one is a `MissingRule` error naming both ("vjp: no vjp rule for
    cumsum"). `optional` tables (simplify) hold rules only where there is something to say.
    """

    def __init__(self, interpretation: str, what: str, optional: bool = False):
        self.interpretation, self.what, self.optional = interpretation, what, optional
        self.rules: dict[str, Any] = {}
        TABLES.append(self)

    def register(self, primitive: Primitive, rule: Any) -> None:
        assert primitive.name not in self.rules, f"{self.interpretation}: {primitive} registered twice"
        self.rules[primitive.name] = rule

    def __getitem__(self, name: str) -> Any:
        try:
            return self.rules[name]
        except KeyError:
            raise MissingRule(f"{self.interpretation}: no {self.what} for {name}") from None

    def get(self, name: str) -> Any:
        return self.rules.get(name)

    def missing(self) -> list[str]:
        """The declared primitives without a rule here, in declaration order."""
        return [name for name in PRIMITIVES if name not in self.rules]

    def __repr__(self) -> str:
        return f"<{self.interpretation} rules: {len(self.rules)} of {len(PRIMITIVES)} primitives>"


TABLES: list[RuleTable] = []  # every interpretation's table, for the completeness test


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
        if node.op == input_p.name:
            continue
        shown = "[" + ", ".join(f"{k}={_format_param(v)}" for k, v in node.params) + "]" if node.params else ""
        operands = " ".join(f"%{j}" for j in node.inputs)
        lines.append(f"  %{i}: {node.spec} = {node.op}{shown}{' ' if operands else ''}{operands}")
    lines.extend(f"  capture {name!r} = %{i}" for name, i in graph.captures)
    outs = ", ".join(f"%{i}" for i in graph.outputs)
    lines.append(f"  return {outs}  # {graph.out_tree}")
    lines.append("}")
    return "\n".join(lines)


I32 = np.iinfo(np.int32)  # the range of fgrad's integer type


def fits_i32(values: Any) -> bool:
    """Whether the integers `values` (a number or an array) all lie in i32's range."""
    values = np.asarray(values)
    return not values.size or bool(I32.min <= values.min() and values.max() <= I32.max)




# The IR's own primitives: a graph argument (interpret and the runtime supply its value)
# and an array baked into the graph (numbers and arrays closed over).
def _argument_value(**_: Any) -> np.ndarray:
    raise AssertionError("input nodes take their value from the arguments")


input_p = declare("input", lambda *, name, spec: spec, _argument_value)
constant_p = declare("constant", lambda *, value: Spec(value.shape, value.dtype), lambda *, value: value.array)
