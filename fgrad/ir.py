"""The immutable IR: DType (a table of rows), Dim (symbolic), Spec, Const, Node, Primitive and rule tables, Graph.

A Graph is a tuple of Nodes in topological order; each Node names its op,
the ids (positions) of its input nodes, its static params and its output
Spec. Everything is a frozen dataclass with structural equality and hash,
so two traces of one function give equal graphs and share every cache. The
user's `file:line` rides along on each node but is never compared.
"""

from __future__ import annotations

import enum
import hashlib
import math
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import ml_dtypes  # NumPy's bfloat16, as JAX's
import numpy as np

from fgrad.errors import SYMBOL_AS_NUMBER, DTypeError, MissingRule, ShapeError, SymbolError
from fgrad.pytree import TreeDef, register_leaf, split_path


class DType(enum.Enum):
    """Element types, each a row of `DTYPES`. Python floats become f32 and ints i32, as in JAX.

    A DType is also what NumPy takes for its dtype, as a jax.Array's `dtype` is one: it equals
    NumPy's (`x.dtype == np.float32`), `np.dtype(x.dtype)` reads it, and NumPy's functions take
    it (`np.zeros(3, x.dtype)`, `np.issubdtype(x.dtype, np.floating)`, `np.finfo(x.dtype)`).
    """

    # Each member's name is NumPy's (`x.dtype.name == "float32"`, as JAX's); fgrad's short names,
    # which print (`f32[3]`), are aliases.
    float32 = "f32"
    float16 = "f16"
    bfloat16 = "bf16"
    int32 = "i32"
    uint32 = "u32"
    int16 = "i16"
    uint16 = "u16"
    int8 = "i8"
    uint8 = "u8"
    bool = "bool"
    f32 = "f32"
    f16 = "f16"
    bf16 = "bf16"
    i32 = "i32"
    u32 = "u32"
    i16 = "i16"
    u16 = "u16"
    i8 = "i8"
    u8 = "u8"

    def __str__(self) -> str:
        return self.value

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, DType):
            return self is other
        if isinstance(other, str) and other in DType.__members__:  # fgrad's own names and NumPy's
            return DType[other] is self
        try:
            return bool(np.dtype(other) == self.np)  # NumPy's dtypes, scalar types and names
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self) -> int:  # NumPy's dtype's: a DType finds the entry a NumPy dtype keys ({np.float32: ...})
        return _NUMPY_HASH[self._value_]

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype, through which NumPy reads a DType (`np.dtype(DType.f32)` is float32)."""
        return self.row.np

    @property
    def kind(self) -> str:
        """NumPy's kind code: "f", "i", "u" or "b" (a bfloat16's is "f", where NumPy's says "V")."""
        return self.row.kind

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
        return self.row.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.row.kind in "iu"

    @property
    def finfo(self) -> np.finfo:
        """Machine limits of a float dtype (eps, max, nmant, ...), NumPy's finfo (ml_dtypes' for bfloat16)."""
        return ml_dtypes.finfo(self.np)

    @property
    def itemsize(self) -> int:
        """Bytes per element, as NumPy's (a bool: 1)."""
        return self.row.np.itemsize

    @property
    def device_itemsize(self) -> int:
        """Bytes per element in a device buffer (a bool or an i8: 4, WGSL's smallest storage type)."""
        return self.row.stored.itemsize

    @property
    def wide(self) -> DType:
        """The dtype its sums, dot products and special functions are computed in (see DTypeRow.wide)."""
        return self.row.wide or self

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
        if dt in _EXACT:
            return _EXACT[dt]
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

    np: np.dtype  # the NumPy dtype of its host values (and of interpret's)
    kind: str  # NumPy's kind code, "f", "i", "u" or "b" (bfloat16's NumPy dtype says "V")
    stored: np.dtype  # the NumPy dtype of the elements of its device buffers
    storage: str  # WGSL type of its storage buffer elements
    compute: str  # WGSL type of its values inside a kernel
    suffix: str = ""  # the suffix of its WGSL literals (`1.5f`, `1.5h`, `3i`, `3u`)
    feature: str | None = None  # the adapter feature its WGSL needs
    extension: str | None = None  # the WGSL extension a module using it enables (`enable f16;`)
    # The dtype its sums, dot products and special functions (erf, pow, tanh) are computed in, the
    # result rounded back once: f16 in f32, as XLA computes it on GPUs. None: the dtype itself.
    wide: DType | None = None
    # A dtype WGSL lacks is held in a wider one (`compute`, stored as `stored`), each op's result
    # brought back into the narrow one's values by this WGSL template: an i8 wraps as an i8 does
    # (XLA's integer arithmetic is modular), a bfloat16 rounds to nearest even, as XLA computes
    # bfloat16 ops in f32 and rounds each result. Its host values, and interpret's, are NumPy's
    # (ml_dtypes' bfloat16), interpret computing a bfloat16 op in f32 as a kernel does.
    narrow: str | None = None

    @property
    def upper_half(self) -> bool:
        """Whether its values are the upper half of a wider float's bits (a bfloat16's of an f32's):
        a kernel, and interpret, compute them in that float."""
        return self.kind == "f" and self.stored.itemsize > self.np.itemsize

    def stored_values(self, values: Any) -> np.ndarray:
        """`values` as a device buffer holds them: in `stored`. A float held in a wider one (a
        bfloat16 in an f32) is its upper half, bit for bit (a NaN's payload too)."""
        values = np.asarray(values)
        if not self.upper_half:
            return values.astype(self.stored)
        half = np.asarray(values, self.np).view(f"u{self.np.itemsize}").astype(f"u{self.stored.itemsize}")
        return (half << np.uint8(8 * self.np.itemsize)).view(self.stored)

    def values_of(self, stored: np.ndarray) -> np.ndarray:
        """The values a device buffer's `stored` elements hold (`stored_values`' inverse)."""
        if not self.upper_half:
            return stored.astype(self.np)
        bits = stored.view(f"u{self.stored.itemsize}") >> np.uint8(8 * self.np.itemsize)
        return bits.astype(f"u{self.np.itemsize}").view(self.np)


# Each member is named as NumPy's dtype (bfloat16 as ml_dtypes'), whose hash it takes.
_NUMPY_HASH = {dtype.value: hash(np.dtype(getattr(ml_dtypes, dtype.name, dtype.name))) for dtype in DType}
_BF16 = np.dtype(ml_dtypes.bfloat16)  # bfloat16 is ml_dtypes', as JAX's
# The bits of an f32 rounded to the nearest bfloat16 (ties to even), a NaN kept a NaN; an integer
# test, which a shader compiler's fast math cannot fold away as it may `x != x`.
_ROUND_BF16 = ("bitcast<f32>(select((bitcast<u32>({0}) + 0x7fffu + ((bitcast<u32>({0}) >> 16u) & 1u)) & 0xffff0000u, "
               "(bitcast<u32>({0}) | 0x400000u) & 0xffff0000u, (bitcast<u32>({0}) & 0x7fffffffu) > 0x7f800000u))")
_I32, _U32, _F32 = np.dtype(np.int32), np.dtype(np.uint32), np.dtype(np.float32)

DTYPES = {
    DType.f32: DTypeRow(_F32, "f", _F32, "f32", "f32", "f"),
    DType.f16: DTypeRow(np.dtype(np.float16), "f", np.dtype(np.float16), "f16", "f16", "h", feature="shader-f16",
                        extension="f16", wide=DType.f32),
    DType.bf16: DTypeRow(_BF16, "f", _F32, "f32", "f32", "f", wide=DType.f32, narrow=_ROUND_BF16),
    DType.i32: DTypeRow(_I32, "i", _I32, "i32", "i32", "i"),
    DType.u32: DTypeRow(_U32, "u", _U32, "u32", "u32", "u"),
    # A signed one's low bits sign-extended by shifts (an arithmetic shift right of an i32), an
    # unsigned one's masked.
    DType.i16: DTypeRow(np.dtype(np.int16), "i", _I32, "i32", "i32", "i", narrow="(({0} << 16u) >> 16u)"),
    DType.u16: DTypeRow(np.dtype(np.uint16), "u", _U32, "u32", "u32", "u", narrow="({0} & 0xffffu)"),
    DType.i8: DTypeRow(np.dtype(np.int8), "i", _I32, "i32", "i32", "i", narrow="(({0} << 24u) >> 24u)"),
    DType.u8: DTypeRow(np.dtype(np.uint8), "u", _U32, "u32", "u32", "u", narrow="({0} & 0xffu)"),
    # NOTE: bool is stored as 4 bytes: WGSL storage buffers have no 1-byte type.
    DType.bool: DTypeRow(np.dtype(np.bool_), "b", _U32, "u32", "bool"),
}
_NAMES = ", ".join(map(str, DTYPES))
_HELD_IN = {row.np: row.stored for row in DTYPES.values() if row.upper_half}  # bfloat16: float32


def computed(x: Any) -> Any:
    """A host value as a kernel computes it: a float held in a wider one (a bfloat16) as that one,
    exactly; any other as it is."""
    wider = _HELD_IN.get(getattr(x, "dtype", None))
    return x if wider is None else x.astype(wider)


_EXACT = {row.np: dtype for dtype, row in DTYPES.items()}
# float64 inputs become f32 and int64 i32, as with JAX's default x64-off mode (uint64 becomes u32);
# float128 and complex are refused.
_FROM_NUMPY = {("f", 8): DType.f32, ("i", 8): DType.i32, ("u", 8): DType.u32}
_FROM_PYTHON = {float: DType.f32, int: DType.i32, bool: DType.bool}


_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _number_operator(symbol: str, reflected: bool = False) -> Callable[[Dim, Any], Any]:
    """A Dim's operator `symbol`: refused on a number or a Dim (`as_number`), left to the other
    operand otherwise."""
    def method(self: Dim, other: Any) -> Any:
        if not isinstance(other, (int, float, np.number, Dim)):
            return NotImplemented
        self.as_number(f"{other} {symbol} {self}" if reflected else f"{self} {symbol} {other}")
    return method


@dataclass(frozen=True, slots=True)
class Dim:
    """A symbolic dimension, `fg.dim("T", max=2048)`: any size from 1 to `max`.

    It stands in a Spec's shape where a size is known only at call time (the tokens of a
    prompt). One trace and one compiled program serve every value: buffers are planned at
    `max`, kernels read the value from a uniform buffer, and a call takes it from the
    arguments' shapes. Two Dims are one symbol when name and max agree; a graph may not hold
    two of one name with different maxima. It prints as its name: `f32[T,64]`. An operand of
    fgrad's functions and Tensor operators (`x / T`, `fg.arange(T)`) is its value at call time.
    """

    name: str
    max: int

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _IDENTIFIER.fullmatch(self.name):
            raise ShapeError(f"dim: the name {self.name!r} must be an identifier: letters, digits and _, a letter first")
        if not isinstance(self.max, (int, np.integer)) or isinstance(self.max, (bool, np.bool_)) \
                or not 1 <= self.max < 2**31:
            raise ShapeError(f"dim: the max of {self.name}, {self.max!r}, must be an integer from 1 to {2**31 - 1}")
        object.__setattr__(self, "max", int(self.max))

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def as_number(self, how: str) -> NoReturn:
        """Refuse a use of the symbol as a Python number (`how`: `int(T)`, `T + 1`), naming it."""
        raise SymbolError(SYMBOL_AS_NUMBER.format(how=how, name=self.name, max=self.max))

    def __int__(self) -> int:
        self.as_number(f"int({self})")

    def __index__(self) -> int:  # range(T), np.zeros((T, 8)), a list index
        self.as_number(f"{self} as an integer")

    def __float__(self) -> float:
        self.as_number(f"float({self})")

    # Arithmetic and ordering with numbers are refused; with anything else (a Tensor, an array)
    # Python asks the other operand, whose operators take the symbol's run-time value.
    __add__, __radd__ = _number_operator("+"), _number_operator("+", reflected=True)
    __sub__, __rsub__ = _number_operator("-"), _number_operator("-", reflected=True)
    __mul__, __rmul__ = _number_operator("*"), _number_operator("*", reflected=True)
    __truediv__, __rtruediv__ = _number_operator("/"), _number_operator("/", reflected=True)
    __floordiv__, __rfloordiv__ = _number_operator("//"), _number_operator("//", reflected=True)
    __mod__, __rmod__ = _number_operator("%"), _number_operator("%", reflected=True)
    __pow__, __rpow__ = _number_operator("**"), _number_operator("**", reflected=True)
    __lt__, __le__ = _number_operator("<"), _number_operator("<=")
    __gt__, __ge__ = _number_operator(">"), _number_operator(">=")

    def __neg__(self) -> Any:
        self.as_number(f"-{self}")


MAX_ELEMENTS = 2**31 - 1  # elements of one value: kernels index them with i32


def _is_size(d: Any) -> bool:
    return isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)) and d >= 0


def dims_in(value: Any) -> Iterator[Dim]:
    """The Dims in a static value: a Dim, a Spec's shape, or tuples of them (node params)."""
    if isinstance(value, Dim):
        yield value
    elif isinstance(value, Spec):
        yield from (d for d in value.shape if isinstance(d, Dim))
    elif type(value) is tuple:
        for v in value:
            yield from dims_in(v)


def at_max(shape: Sequence[int | Dim]) -> tuple[int, ...]:
    """`shape` with each symbol at its maximum."""
    return tuple(d.max if isinstance(d, Dim) else d for d in shape)


def resolve(value: Any, values: Mapping[str, int]) -> Any:
    """A static value (a shape, a Spec, node params) with each Dim replaced by its value in `values`."""
    if isinstance(value, Dim):
        return values[value.name]
    if isinstance(value, Spec):
        return value.resolve(values)
    if type(value) is tuple:
        return tuple(resolve(v, values) for v in value)
    return value


def symbols_of(values: Iterable[Any]) -> tuple[Dim, ...]:
    """The Dims in `values` (specs, shapes, params), each once, in order of first appearance.
    Two of one name with different maxima are a ShapeError."""
    found: dict[str, Dim] = {}
    for d in dims_in(tuple(values)):
        if found.setdefault(d.name, d) != d:
            raise ShapeError(f"the symbol {d.name} is given two maxima, {found[d.name].max} and {d.max}: one name, "
                             "one symbol")
    return tuple(found.values())


@register_leaf
@dataclass(frozen=True, slots=True)
class Spec:
    """Static shape and dtype of a value. A size may be a symbol (Dim): the spec then stands for
    every shape the symbol's values give, and has no fixed `size` (`max_size` plans buffers)."""

    shape: tuple[int | Dim, ...]
    dtype: DType

    def __post_init__(self) -> None:
        shape = tuple(self.shape)
        if not all(isinstance(d, Dim) or _is_size(d) for d in shape):
            raise ShapeError(f"invalid shape {shape}: dimensions must be integers >= 0 or symbols (fg.dim)")
        object.__setattr__(self, "shape", tuple(d if isinstance(d, Dim) else int(d) for d in shape))
        object.__setattr__(self, "dtype", DType.named(self.dtype))
        if any(isinstance(d, Dim) for d in shape):
            symbols_of(shape)
        count = math.prod(at_max(self.shape))
        if count > MAX_ELEMENTS:  # before NumPy tries to allocate it
            raise ShapeError(f"invalid shape {shape}: {count} elements; fgrad indexes elements with 32-bit "
                             f"integers, at most {MAX_ELEMENTS}")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def symbols(self) -> tuple[Dim, ...]:
        """The symbolic dimensions of the shape, each once, in order."""
        return tuple(dict.fromkeys(d for d in self.shape if isinstance(d, Dim)))

    @property
    def max_shape(self) -> tuple[int, ...]:
        """The shape with each symbol at its maximum: what a buffer holding the value is planned for."""
        return at_max(self.shape)

    @property
    def size(self) -> int:
        """The number of elements. A symbolic spec has no fixed number (a ShapeError): see `max_size`."""
        if self.symbols:
            raise ShapeError(f"{self} has no fixed size: it follows the symbol {self.symbols[0]} "
                             f"(at most {self.max_size} elements)")
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """Bytes in a device buffer. A symbolic spec has no fixed number (a ShapeError): see `max_nbytes`."""
        return self.size * self.dtype.device_itemsize

    @property
    def max_size(self) -> int:
        """The number of elements with each symbol at its maximum (`size` for a spec without symbols)."""
        return math.prod(self.max_shape)

    @property
    def max_nbytes(self) -> int:
        """Bytes of a device buffer for the value with each symbol at its maximum."""
        return self.max_size * self.dtype.device_itemsize

    def resolve(self, values: Mapping[str, int]) -> Spec:
        """The concrete spec with each symbol at its value in `values` (by name)."""
        if not self.symbols:
            return self
        return Spec(resolve(self.shape, values), self.dtype)

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

    @property
    def itemsize(self) -> int:
        """Bytes per element, as NumPy's (a bool is 1, though a device buffer stores it in 4)."""
        return self.spec.dtype.np.itemsize

    @property
    def nbytes(self) -> int:
        """size * itemsize, as a jax.Array's."""
        return self.spec.size * self.itemsize


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
        if arr.size > 1 and (not any(arr.strides) or (arr == arr.flat[0]).all()  # -0.0 == 0.0: the sign bits too
                             and (arr.dtype.kind != "f" or (np.signbit(arr) == np.signbit(arr.flat[0])).all())):
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


RESULT = "result"  # the param that says which result of a multiple-results primitive a node is


@dataclass(frozen=True, eq=False)
class Primitive:
    """A primitive op, declared once (fgrad/primitives/): its name, its abstract evaluation
    (input specs and static params -> output spec, raising ShapeError / DTypeError) and its
    NumPy implementation, the reference semantics that `interpret` runs. Everything else an
    interpretation knows of it sits in that interpretation's `RuleTable`.

    A primitive with `multiple_results` (control flow, custom rules: calls of a graph) has
    rules that give a tuple of specs and a tuple of arrays. Its application is one node per
    result, each with the same inputs and params plus `result=k`, recorded one after another
    (`call_of` finds a node's siblings); every interpretation takes the siblings together.

    A `host` primitive calls Python on the host (a callback): its nodes are never evaluated
    while a graph is simplified, and a compiled program reads their operands back and calls it
    between kernels. An `effectful` one (a debug callback) is called for its effect: its nodes,
    and those holding a body with such nodes (a loop printing), stay though nothing reads their
    results, and two of them are never merged (`has_effects`)."""

    name: str
    abstract_eval: Callable[..., Any]
    impl: Callable[..., Any]
    multiple_results: bool = False
    host: bool = False
    effectful: bool = False
    # Works on bits (a bit cast): `apply` gives it values held wider (DTypeRow.narrow) as they are,
    # and a kernel takes its result as it is, never narrowed.
    bits: bool = False

    def __str__(self) -> str:
        return self.name

    def apply(self, *arrays: np.ndarray, **params: Any) -> Any:
        """`impl` on `arrays`, as a kernel computes it: a value of a dtype held in a wider one (a
        bfloat16: DTypeRow.narrow) is given in that one, the result rounded back by the caller. A
        host call, and an op reading bits, are given the values as they are."""
        if not (self.host or self.bits):
            arrays = tuple(map(computed, arrays))
        return self.impl(*arrays, **params)

    def node_spec(self, *specs: Spec, **params: Any) -> Spec:
        """The spec of a node of this primitive (of its result `params["result"]` where it has several)."""
        if not self.multiple_results:
            return self.abstract_eval(*specs, **params)
        k = params.pop(RESULT)
        return self.abstract_eval(*specs, **params)[k]

    def node_value(self, *arrays: np.ndarray, **params: Any) -> np.ndarray:
        """The value of a node of this primitive, as `node_spec` its spec."""
        with np.errstate(all="ignore"):  # inf and NaN are results (IEEE's, the device's), not warnings
            if not self.multiple_results:
                return self.apply(*arrays, **params)
            k = params.pop(RESULT)
            return self.apply(*arrays, **params)[k]


PRIMITIVES: dict[str, Primitive] = {}  # every declared primitive, by the name nodes carry


def declare(name: str, abstract_eval: Callable[..., Any], impl: Callable[..., Any],
            multiple_results: bool = False, host: bool = False, effectful: bool = False,
            bits: bool = False) -> Primitive:
    """Declare a primitive; its name must be new."""
    assert name not in PRIMITIVES, f"primitive {name} declared twice"
    assert host or not effectful, f"primitive {name}: only a host call has effects"
    PRIMITIVES[name] = Primitive(name, abstract_eval, impl, multiple_results, host, effectful, bits)
    return PRIMITIVES[name]


def bodies(params: tuple[tuple[str, Hashable], ...]) -> list[Graph]:
    """The graphs a node's params hold: a loop's or a call's bodies, a cond's branches."""
    return [b for _, v in params for b in (v if isinstance(v, tuple) else (v,)) if isinstance(b, Graph)]


def has_effects(op: str, params: tuple[tuple[str, Hashable], ...]) -> bool:
    """Whether a node of `op` with `params` has an effect (a debug callback, or a body holding
    one): it is computed though nothing reads it, and never merged with another (an op not
    declared has none: typecheck names it)."""
    primitive = PRIMITIVES.get(op)
    return primitive is not None and primitive.effectful or any(b.effectful for b in bodies(params))


def call_of(node: Node) -> tuple[str, tuple[int, ...], tuple[tuple[str, Hashable], ...]]:
    """What identifies the application a node is a result of: op, inputs and params without `result`
    (a node of a single-result primitive is an application of its own)."""
    return node.op, node.inputs, tuple(p for p in node.params if p[0] != RESULT)


def results_of(graph: Graph) -> dict[tuple, list[int | None]]:
    """For each application of a multiple-results primitive in `graph` (by `call_of`), the node of
    each of its results, None for one no node holds (dropped as dead)."""
    found: dict[tuple, list[int | None]] = {}
    for i, node in enumerate(graph.nodes):
        primitive = PRIMITIVES[node.op]
        if primitive.multiple_results:
            key = call_of(node)
            if key not in found:
                specs = primitive.abstract_eval(*(graph.nodes[j].spec for j in node.inputs), **call_params(node))
                found[key] = [None] * len(specs)
            found[key][node.attrs[RESULT]] = i
    return found


def call_params(node: Node) -> dict[str, Hashable]:
    """A node's params without `result`: what the rules of its primitive take."""
    return {k: v for k, v in node.params if k != RESULT}


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
    with `fg.capture`, returned only when asked for. `effectful`: some node has effects
    (`has_effects`), found when the graph is made.
    """

    nodes: tuple[Node, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    in_tree: TreeDef
    out_tree: TreeDef
    captures: tuple[tuple[str, int], ...] = ()
    _hash: int = field(init=False, repr=False, compare=False)
    _input_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    effectful: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Graphs are cache keys; hash the node tuple once, not on every lookup. The input
        # names are read on every call of a compiled graph: found once too.
        object.__setattr__(self, "_hash", hash((self.nodes, self.inputs, self.outputs, self.in_tree, self.out_tree,
                                                self.captures)))
        object.__setattr__(self, "_input_names", tuple(dict(self.nodes[i].params).get("name", "") for i in self.inputs))
        object.__setattr__(self, "effectful", any(has_effects(n.op, n.params) for n in self.nodes))

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

    @property
    def symbols(self) -> tuple[Dim, ...]:
        """The symbolic dimensions of the inputs' shapes, each once, in input order: those a call
        takes the values of from its arguments (`check_symbols`: no node has another)."""
        return symbols_of(self.in_specs)

    def __str__(self) -> str:
        return format_graph(self)


def check_symbols(graph: Graph) -> None:
    """Refuse, naming the node, a graph that uses a symbol no input's shape has (no call could
    give its value) or one name with two maxima."""
    known = {d.name: d for d in graph.symbols}
    for node in graph.nodes:
        for d in (*dims_in(node.spec), *dims_in(node.params)):
            if known.get(d.name, d) != d:
                raise ShapeError(f"{node.op}: the symbol {d.name} is given two maxima, {known[d.name].max} and "
                                 f"{d.max}: one name, one symbol", node.site)
            if d.name not in known:
                raise ShapeError(f"{node.op}: the symbol {d.name} is in no argument's shape, so no call can give its "
                                 "value; give an argument an axis of that size", node.site)


def _format_param(value: Any) -> str:
    if isinstance(value, (Spec, DType)):
        return str(value)
    if isinstance(value, Graph):  # a body (control flow, custom rules): its signature, its listing apart
        ins = ", ".join(str(s) for s in value.in_specs)
        outs = ", ".join(str(s) for s in value.out_specs)
        return f"{{({ins}) -> ({outs}): {len(value.nodes)} nodes}}"
    if isinstance(value, tuple) and value and all(isinstance(v, Graph) for v in value):
        return "(" + ", ".join(_format_param(v) for v in value) + ")"
    return repr(value)


def format_graph(graph: Graph) -> str:
    """A listing in the spirit of a jaxpr: one node a line, `%id` names."""
    args = ", ".join(f"%{i}: {graph.nodes[i].spec} {graph.nodes[i].attrs['name']}" for i in graph.inputs)
    bounds = ", ".join(f"{d} <= {d.max}" for d in graph.symbols)
    lines = [f"graph({args}) {{" + (f"  # {bounds}" if bounds else "")]
    for i, node in enumerate(graph.nodes):
        if node.op == input_p.name:
            continue
        shown = "[" + ", ".join(f"{k}={_format_param(v)}" for k, v in node.params) + "]" if node.params else ""
        operands = " ".join(f"%{j}" for j in node.inputs)
        lines.append(f"  %{i}: {node.spec} = {node.op}{shown}{' ' if operands else ''}{operands}")
        if node.attrs.get(RESULT, 0) == 0:  # a body is listed once, under the first result
            for name, value in node.params:
                for k, body in enumerate(value if isinstance(value, tuple) else (value,)):
                    if isinstance(body, Graph):
                        label = name if not isinstance(value, tuple) else f"{name}[{k}]"
                        lines.extend(f"    {line}" for line in f"{label} = {format_graph(body)}".splitlines())
    lines.extend(f"  capture {name!r} = %{i}" for name, i in graph.captures)
    outs = ", ".join(f"%{i}" for i in graph.outputs)
    lines.append(f"  return {outs}  # {graph.out_tree}")
    lines.append("}")
    return "\n".join(lines)


I32 = np.iinfo(np.int32)  # the range of fgrad's default integer type


def fits(values: Any, dtype: DType) -> bool:
    """Whether the numbers `values` (a number or an array) all lie in the range of `dtype`, an
    integer dtype (any value fits a float or bool dtype: conversion rounds or tests it)."""
    if not dtype.is_int:
        return True
    values = np.asarray(values)
    if not values.size:
        return True
    info = np.iinfo(dtype.np)
    return bool(info.min <= values.min() and values.max() <= info.max)




# The IR's own primitives: a graph argument (interpret and the runtime supply its value)
# and an array baked into the graph (numbers and arrays closed over).
def _argument_value(**_: Any) -> np.ndarray:
    raise AssertionError("input nodes take their value from the arguments")


input_p = declare("input", lambda *, name, spec: spec, _argument_value)
constant_p = declare("constant", lambda *, value: Spec(value.shape, value.dtype), lambda *, value: value.array)
