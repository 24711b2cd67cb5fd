"""Tracing: run a Python function on Tensors and record the Graph it builds.

A `Tensor` is a symbolic value inside a trace: it knows its Spec and the id
of the node that makes it. Public op functions (fgrad/numpy.py) call `bind`,
which checks the op's shape rule, records the user's `file:line` and appends
a Node. Outside any trace, `bind` on concrete arrays evaluates the op with
its NumPy implementation, so `fg.softmax(np_array)` works eagerly.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import importlib.util
import inspect
import logging
import os
import sys
import threading
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from fgrad.errors import (
    TRACER_CONVERSION,
    TRACER_FOREIGN,
    TRACER_INDEX,
    TRACER_LEAKED,
    DTypeError,
    FgradError,
    InputError,
    InvalidValueError,
    ShapeError,
    SymbolError,
    TraceError,
)
from fgrad.ir import (
    Const, Dim, DType, Graph, HasSpec, Node, Spec, check_symbols, constant_p, dims_in, has_effects, symbols_of, fits, input_p,
    RESULT,
)
from fgrad.config import config
from fgrad.pytree import flatten, leaf_paths, register_leaf, register_node, tree_map, unflatten

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_EXAMPLES_DIR = os.path.join(_PACKAGE_DIR, "examples") + os.sep


def _package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)
    return os.path.dirname(os.path.abspath(spec.origin)) + os.sep if spec and spec.origin else _PACKAGE_DIR


# Frames that are not the user's: fgrad itself, the shape checkers that wrap fgrad.nn, and
# NumPy (a NumPy function handed a Tensor fails inside NumPy; the user's line called it).
_LOG = logging.getLogger("fgrad")
_NUMPY_DIR = _package_dir("numpy")
_NOT_USER = (_PACKAGE_DIR, _package_dir("jaxtyping"), _package_dir("beartype"), _NUMPY_DIR)


_state = threading.local()


def user_site() -> str | None:
    """`file:line` of the innermost caller outside the fgrad package (examples count as user code).

    While a transform replays or differentiates a node, that node's own site is used instead.
    """
    override = getattr(_state, "site", None)
    if override is not None:
        return override
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        name = _USER_CODE.get(code)
        if name is None:
            if len(_USER_CODE) >= 4096:  # code made at run time (exec, wrappers) comes and goes
                _USER_CODE.clear()
            name = _USER_CODE[code] = os.path.basename(code.co_filename) if _is_user(frame) else ""
        if name:
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return None


# Each code object's file name where it is the user's code, else "" (looked up per code object: a
# compiled call's donation asks for its caller's line every step).
_USER_CODE: dict[Any, str] = {}


def _innermost_user_site(tb: Any) -> str | None:
    """`file:line` of the innermost user frame of a traceback."""
    site = None
    while tb is not None:
        if _is_user(tb.tb_frame):
            site = f"{os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return site


def _frames_inside(frame: Any) -> Iterator[Any]:
    """`frame` and those it was called from, out to the user's code (not included): fgrad's, and the
    libraries' it runs through."""
    while frame is not None and not _is_user(frame):
        yield frame
        frame = frame.f_back


def _public(frame: Any) -> bool:
    """Whether the frame runs a public function (not a private helper or a lambda)."""
    return not frame.f_code.co_name.startswith(("_", "<"))


def user_call() -> str:
    """The name of the public fgrad function that the user's line called (`add` for `x + 1`),
    for errors raised deep inside it; private helpers and lambdas on the way are skipped."""
    return next((f.f_code.co_name for f in reversed(list(_frames_inside(sys._getframe(1)))) if _public(f)), "asarray")


def called_from_numpy(depth: int = 1, wrappers: bool = False) -> bool:
    """Whether the code `depth` frames above the caller is NumPy's own (np.testing comparing arrays),
    not one of its wrappers that hand an array-like's own method the call (`np.sum(x)` calls
    `x.sum()`, as it does a jax.Array's), unless `wrappers`."""
    name = sys._getframe(depth + 1).f_code.co_filename
    return name.startswith(_NUMPY_DIR) and (wrappers or not name.endswith(ARRAY_LIKE_WRAPPERS))


ARRAY_LIKE_WRAPPERS = "fromnumeric.py"  # NumPy's module of np.sum, np.reshape, ...: they call x.sum, x.reshape


def user_stacklevel() -> int:
    """The `stacklevel` that makes a warning raised by the caller show the user's line."""
    return 1 + sum(1 for _ in _frames_inside(sys._getframe(1)))


def called_by_user(depth: int = 1) -> bool:
    """Whether the public fgrad function running now (below the caller's `depth` - 1 frames) is the
    one the user's line called, not one that another fgrad function calls (`subtract` inside `var`):
    checks JAX makes of the user's own call (rank and strict dtype promotion) are made of the user's
    calls only, as JAX's own functions are written to pass them."""
    return sum(map(_public, _frames_inside(sys._getframe(depth)))) <= 1


def _is_user(frame: Any) -> bool:
    return _is_user_file(frame.f_code.co_filename)


@functools.lru_cache(maxsize=4096)
def _is_user_file(name: str) -> bool:
    """Whether code of the file `name` is the user's (asked once per file: a trace asks per node)."""
    path = os.path.abspath(name)
    return path.startswith(_EXAMPLES_DIR) or not (path.startswith(_NOT_USER) or name.startswith("<@beartype"))


@contextlib.contextmanager
def sites_from(site: str | None) -> Iterator[None]:
    """Attribute the nodes bound inside to `site` (a transform replaying a user's node)."""
    previous = getattr(_state, "site", None)
    _state.site = site
    try:
        yield
    finally:
        _state.site = previous


class Trace:
    """The nodes recorded so far by one call of `trace`.

    A trace that takes `closures` turns Tensors of enclosing live traces into
    extra inputs of its own (closures in functions given to `fg.grad` and
    friends); `closed_over` lists those outer Tensors in input order.
    `captures` holds the intermediates registered with `fg.capture`.
    """

    def __init__(self, closures: bool = False) -> None:
        self.nodes: list[Node] = []
        self.live = True
        self.closures = closures
        self.closed_over: list[Tensor] = []
        self._lifted: dict[tuple[int, int], Tensor] = {}
        self.captures: dict[str, int] = {}
        self.calls: dict[tuple, tuple[Tensor, ...]] = {}  # applications of multiple-results primitives

    def add(self, node: Node) -> Tensor:
        self.nodes.append(node)
        return Tensor(self, len(self.nodes) - 1, node.spec)

    def lift(self, t: Tensor) -> Tensor:
        """This trace's input standing for `t`, a Tensor of an enclosing trace."""
        key = (id(t.owner), t.id)
        if key not in self._lifted:
            name = f"closure.{len(self.closed_over)}"
            self._lifted[key] = self.add(Node(input_p.name, (), (("name", name), ("spec", t.spec)), t.spec, None))
            self.closed_over.append(t)
        return self._lifted[key]


def _stack() -> list[Trace]:
    return _state.__dict__.setdefault("stack", [])


def current_trace() -> Trace | None:
    stack = _stack()
    return stack[-1] if stack else None


class HostArray(np.ndarray):
    """An fgrad value computed eagerly, outside any trace (`fg.exp(np.ones(3))`): a NumPy array with
    a jax.Array's operators, methods and promotion (`fg.arange(3) / 2` is float32), indexed updates
    (`x.at[i].set(v)`), indexing by a traced index (a loop's counter closing over it) and
    `block_until_ready()`, installed by fgrad/numpy/operators.py. NumPy's own functions and ufuncs
    see the NumPy array it holds, as they see a jax.Array's values."""

    def __repr__(self) -> str:
        return repr(np.ndarray.view(self, np.ndarray))


def host_array(value: Any, dtype: Any) -> HostArray:
    """`value` as an eager fgrad value of the NumPy `dtype`."""
    return np.asarray(value, dtype).view(HostArray)


def special_value(values: Sequence[Any]) -> str | None:
    """'nan' or 'inf' where a float array of `values` holds one that `fg.config` asks to be an error
    (`jax_debug_nans`, `jax_debug_infs`), else None."""
    nans, infs = config.jax_debug_nans, config.jax_debug_infs
    if nans or infs:
        for value in values:
            a = np.asarray(value)
            if a.dtype.kind == "f":
                if nans and np.isnan(a).any():
                    return "nan"
                if infs and np.isinf(a).any():
                    return "inf"
    return None


def check_special_values(op: str, values: Sequence[Any], site: str | None) -> None:
    """Raise InvalidValueError, as JAX's FloatingPointError, where op's results `values` hold a NaN or
    an infinity that `fg.config` asks to be an error."""
    kind = special_value(values)
    if kind is not None:
        raise InvalidValueError(f"invalid value ({kind}) encountered in {op}", site)


@register_leaf
class Tensor(HasSpec):
    """A traced value: the output of node `id` in `trace`, with static `spec`.

    Operators, methods (`+`, `@`, `[]`, `.sum()`, ...) and NumPy ufunc and
    function dispatch are attached by fgrad/numpy.py, next to the ops they call.
    """

    __slots__ = ("owner", "id", "spec")  # owner: the Trace that recorded it
    __hash__ = None  # type: ignore[assignment]  # `==` builds a node, as in NumPy

    def __init__(self, trace: Trace, id: int, spec: Spec):
        self.owner = trace
        self.id = id
        self.spec = spec

    def __len__(self) -> int:
        if not self.shape:
            raise TraceError(f"len() of a 0-d Tensor {self.spec}", user_site())
        if isinstance(self.shape[0], Dim):
            raise TraceError(f"len() of a Tensor {self.spec}: its first axis is the symbol {self.shape[0]}, whose "
                             "value is known only at call time; read x.shape[0] for the symbol itself", user_site())
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def size(self) -> int:
        try:
            return self.spec.size
        except ShapeError as e:  # a symbolic shape: no fixed number
            raise ShapeError(str(e), user_site()) from None

    def __repr__(self) -> str:
        return f"Tensor({self.spec}, %{self.id})"

    def _concrete(self, what: str) -> TraceError:
        return TraceError(TRACER_CONVERSION.format(what=what, spec=self.spec), user_site())

    def __bool__(self) -> bool:
        raise self._concrete("the truth value")

    def __float__(self) -> float:
        raise self._concrete("float()")

    def __int__(self) -> int:
        raise self._concrete("int()")

    def __index__(self) -> int:
        what = "An integer Python needs (an index, a slice bound, a size)"
        raise TraceError(TRACER_INDEX.format(what=what, spec=self.spec), user_site())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise self._concrete("the NumPy value")

    def item(self, *args: Any) -> Any:
        raise self._concrete("item()")

    def tolist(self) -> Any:
        raise self._concrete("tolist()")

    def copy(self) -> Tensor:
        """The value itself, as a traced jax.Array's copy: fgrad values are immutable."""
        return self

    def block_until_ready(self) -> Tensor:
        """The value itself, as a traced jax.Array's: there is nothing to wait for while tracing."""
        return self


# Set within `ensure_compile_time_eval`: values known while tracing are computed at once.
_AT_TRACE_TIME: contextvars.ContextVar[bool] = contextvars.ContextVar("fgrad_at_trace_time", default=False)


def _context_free(op: Any, params: dict[str, Hashable]) -> bool:
    """Whether `op` with `params` means the same wherever it is bound, so that ensure_compile_time_eval
    may compute it: not a collective (its value comes from the vmap naming its axis), not a shape of a
    symbol (known at call time), not a call of the host or an effect."""
    return "axis_names" not in params and next(dims_in(tuple(params.values())), None) is None and not op.host \
        and not op.effectful


def constant(value: Any, dtype: DType) -> Tensor | np.ndarray:
    """A host value (a number or array, already checked to fit `dtype`) as a constant node of
    the current trace, or as a NumPy array outside any trace (or within ensure_compile_time_eval)."""
    if current_trace() is None or _AT_TRACE_TIME.get():
        return host_array(value, dtype.np)
    return bind(constant_p, value=Const.of(value, dtype))


def check_live(t: Tensor, op: str | None = None, site: str | None = None) -> None:
    """Refuse a Tensor whose trace has ended (one leaked through a global, say), naming `op`
    (by default the public function the user called, found only then: this runs per operand)."""
    if not t.owner.live:
        raise TraceError(TRACER_LEAKED.format(op=op or user_call(), spec=t.spec), site or user_site())


def bind(op: Any, *args: Tensor | np.ndarray, **params: Hashable) -> Tensor | np.ndarray:
    """Apply primitive `op` (an ir.Primitive) to `args` with static `params`.

    Inside a trace the args are Tensors of that trace and a node is recorded;
    outside any trace they are NumPy arrays and the op runs eagerly.
    """
    site = user_site()
    trace = current_trace()
    if trace is not None and _AT_TRACE_TIME.get():  # ensure_compile_time_eval
        if not any(isinstance(a, Tensor) for a in args) and _context_free(op, params):
            trace = None  # every operand is known: computed now
        else:  # the known operands of an op on traced ones become constants of the trace
            args = tuple(a if isinstance(a, Tensor) else trace.add(Node(
                constant_p.name, (), (("value", Const.of(a, DType.of(a.dtype))),), Spec(a.shape, DType.of(a.dtype)),
                site)) for a in (x if isinstance(x, Tensor) else np.asarray(x) for x in args))
    tensors = [a for a in args if isinstance(a, Tensor)]
    for k, t in enumerate(tensors):
        check_live(t, op.name, site)
        if t.owner is not trace:
            if not trace.closures:
                raise TraceError(TRACER_FOREIGN.format(op=op.name, spec=t.spec), site)
            tensors[k] = trace.lift(t)
    if trace is not None and len(tensors) != len(args):
        raise TypeError(f"{op.name}: bind takes Tensors inside a trace; lift constants first")
    try:
        if trace is None:
            arrays = [np.asarray(a) for a in args]
            spec = op.abstract_eval(*(Spec(a.shape, DType.of(a.dtype)) for a in arrays), **params)
            with np.errstate(all="ignore"):  # inf and NaN are results (IEEE's, the device's), not warnings
                out = tuple(host_array(v, s.dtype.np) for v, s in zip(op.apply(*arrays, **params), spec)) \
                    if op.multiple_results else (host_array(op.apply(*arrays, **params), spec.dtype.np),)
        else:
            spec = op.abstract_eval(*(t.spec for t in tensors), **params)
    except FgradError as e:
        # Rules name their op; an invalid Spec (a shape the caller built) is named after the public function.
        message = str(e) if str(e).startswith(f"{op.name}:") else f"{user_call()}: {e}"
        if trace is not None:  # one name with two maxima shows in a rule as shapes that differ: say why
            try:
                symbols_of((*(t.spec for t in tensors), *params.values()))
            except ShapeError as conflict:
                message = f"{op.name}: {conflict}"
        raise type(e)(message, site) from None
    except TypeError as e:  # a rule doing arithmetic on a size it takes for an int
        symbol = next(dims_in((*(t.spec for t in tensors), *params.values())), None)
        if symbol is None:
            raise
        if trace is None:
            raise ShapeError(f"{op.name}: the symbol {symbol} has a value only inside a traced function", site) from None
        shown = ", ".join(str(t.spec) for t in tensors)
        raise ShapeError(f"{op.name}: does not support the symbol {symbol} in {shown or params} ({e})", site) from None
    if trace is None:
        check_special_values(op.name, out, site)  # fg.config's jax_debug_nans and jax_debug_infs
        return out if op.multiple_results else out[0]
    inputs = tuple(t.id for t in tensors)
    if op.multiple_results:  # one node per result, recorded together (see ir.Primitive)
        # An application repeated in one trace is the first (it is pure), so `ir.call_of` names one
        # application of a traced graph and transforms take its results together.
        key = (op.name, inputs, tuple(sorted(params.items())))
        if key not in trace.calls or has_effects(op.name, key[2]):  # an effect: each application is called
            trace.calls[key] = tuple(trace.add(Node(op.name, inputs, tuple(sorted({**params, RESULT: k}.items())), s,
                                                    site)) for k, s in enumerate(spec))
        return trace.calls[key]
    return trace.add(Node(op.name, inputs, tuple(sorted(params.items())), spec, site))


def _arg_names(fn: Callable[..., Any], count: int) -> list[str]:
    """Names of the positional arguments from `fn`'s signature, else `arg0`, `arg1`, ..."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
    names = [
        positional[i] if i < len(positional) else f"{rest}.{i - len(positional)}" if rest else f"arg{i}"
        for i in range(count)
    ]
    return names if len(set(names)) == count else [f"arg{i}" for i in range(count)]


def typeof(value: Any) -> Spec:
    """The Spec (shape and dtype) of a value: a Tensor, an array, an Array or a number, as
    `jax.typeof` gives an abstract value."""
    try:
        return spec_of(value)
    except FgradError:
        raise InputError(f"typeof: expected an array, a traced value or a number, got a {type(value).__name__}",
                         user_site()) from None


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """A name for the ops traced inside, as `jax.named_scope`: accepted for JAX's code (a model's
    layers). fgrad's graphs and errors name a node by its user's line (`Node.site`), not by scopes."""
    if not isinstance(name, str):
        raise InputError(f"named_scope: the name must be a str, got a {type(name).__name__}", user_site())
    yield


def named_call(fun: Callable[..., Any], *, name: str | None = None) -> Callable[..., Any]:
    """`fun`, as `jax.named_call` gives it a name in the staged program: fgrad's graphs name nodes
    by their user's line, so the function is returned as it is."""
    if not callable(fun):
        raise InputError(f"named_call: expected a function, got a {type(fun).__name__}", user_site())
    return fun


def spec_of(value: Any, name: str = "value") -> Spec:
    """The Spec of an argument leaf: a Spec, an array-like with shape and dtype, or a number."""
    if isinstance(value, Spec):
        return value
    if isinstance(value, Tensor):
        return value.spec
    if type(value) is int and not -2**31 <= value < 2**31:  # a Python int is an i32, as in JAX: no wrap
        raise DTypeError(f"argument {name}: the integer {value} does not fit i32")
    if is_float0(value):
        raise DTypeError(f"argument {name} is a float0 array{list(value.shape)}, the gradient of an integer input "
                         "(fg.grad's allow_int=True): it holds no data, so it cannot be traced; leave it out of the "
                         "arguments")
    if isinstance(value, (bool, int, float, np.generic, np.ndarray)) or (
        hasattr(value, "shape") and hasattr(value, "dtype")
    ):
        try:
            return Spec(tuple(np.shape(value)), DType.of(getattr(value, "dtype", type(value))))
        except FgradError as e:
            raise type(e)(f"argument {name}: {e}") from None
    raise TraceError(
        f"trace: argument {name} is a {type(value).__name__}; arguments must be pytrees of "
        "fg.spec(...), arrays or numbers"
    )


# JAX's float0 (`jax.dtypes.float0`): the dtype of the gradient of an integer input, which holds no data.
FLOAT0 = np.dtype([("float0", np.void, 0)])


def is_float0(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == FLOAT0


def float0_for(x: Any, spec: Spec) -> bool:
    """Whether `x` is JAX's float0 zeros for a value of `spec`: an integer or bool one's tangent or
    cotangent, of its shape."""
    return is_float0(x) and not spec.dtype.is_float and x.shape == spec.shape


def float0_zeros(spec: Spec) -> np.ndarray:
    """The float0 gradient of an input of `spec` (JAX's, with `allow_int=True`): zeros of its fixed shape."""
    assert not spec.symbols, f"float0 zeros of the symbolic {spec}"
    return np.zeros(spec.shape, FLOAT0)


@dataclasses.dataclass(frozen=True)
class Float0Zeros:
    """float0 zeros of `shape` as part of a pytree's structure, not a leaf: how a traced function returns
    them (a graph holds no float0 values, and they carry no data). Rebuilt, it is the NumPy array."""

    shape: tuple[int, ...]


register_node(Float0Zeros, lambda z: ((), z.shape), lambda shape, children: np.zeros(shape, FLOAT0))


def float0_as_structure(tree: Any) -> Any:
    """`tree` with each float0 array held as a `Float0Zeros`."""
    return tree_map(lambda x: Float0Zeros(x.shape) if is_float0(x) else x, tree)


def capture(name: str, x: Any) -> Any:
    """Register the traced intermediate `x` under `name` and return `x`.

    Compiled functions return captured values only when asked
    (`exe(*args, captures=True)`), so capturing costs nothing otherwise.
    Outside a trace the value is at hand and this does nothing.
    """
    trace = current_trace()
    if trace is None or not isinstance(x, Tensor):
        return x
    site = user_site()
    if not isinstance(name, str) or not name:
        raise TraceError(f"capture: the name must be a non-empty string, got {name!r}", site)
    if x.owner is not trace:
        raise TraceError(TRACER_FOREIGN.format(op="capture", spec=x.spec), site)
    if name in trace.captures:
        raise TraceError(f"capture: the name {name!r} is already captured in this function", site)
    trace.captures[name] = x.id
    return x


def recapture(name: str, x: Any) -> None:
    """A transform replaying a captured node registers it again (once) in the current trace."""
    trace = current_trace()
    if trace is not None and isinstance(x, Tensor) and x.owner is trace:
        trace.captures.setdefault(name, x.id)


T = TypeVar("T")
_STAGED: "weakref.WeakSet[Staged[Any]]" = weakref.WeakSet()  # every Staged, for clear_caches


def clear_staged() -> None:
    """Forget every product every `Staged` holds: each function traces and compiles again on its next call."""
    for staged in list(_STAGED):
        staged.products.clear()


class Staged(Generic[T]):
    """The products (a Graph, an Executable) of a function staged out once per argument signature, as
    `fg.jit` and the function transforms (`fg.grad(f)`) stage theirs.

    A call made inside a trace, or given a trace's Tensors, has no product: it runs in place, so the
    trace records it (transforms nest, as in JAX). A call on arrays finds its product by signature: the
    arguments' pytree structure, each leaf's Spec, and a key of the static values that shape the product.
    Static values compare with their types, since Python's 2, 2.0, True and np.float32(2) are equal and
    hash alike but trace to different programs (as in `jax.jit`).
    """

    def __init__(self, name: str | None = None) -> None:
        self.products: dict[Hashable, T] = {}
        self.name = name  # the function staged, named where `fg.config`'s jax_explain_cache_misses explains a miss
        _STAGED.add(self)

    def __len__(self) -> int:
        return len(self.products)

    def product(self, args: tuple[Any, ...], static: Hashable, build: Callable[[], T],
                refused: Callable[[Exception], Exception] | None = None, also: Any = (),
                names: Callable[[], Sequence[str]] | None = None) -> T | None:
        """The product for a call on `args` (a tuple of pytrees) with the static key `static`, made by
        `build()` on the first call with this signature; None where the call belongs to a trace (made
        inside one, or given Tensors in `args` or in `also`, the static values) and runs in place.

        A signature that can be no key (a leaf that is not an array, an unhashable static value) raises
        `refused(error)`; without `refused`, `build()` runs uncached, and its tracing names the argument.
        A miss explained (`fg.config`'s jax_explain_cache_misses) names the arguments by `names()`.
        """
        leaves, tree = flatten(args)
        if current_trace() is not None or any(isinstance(x, Tensor) for x in (*leaves, *flatten(also)[0])):
            return None
        try:
            key = (_strict(static), tree, tuple(spec_of(x) for x in leaves))
            hash(key)
        except (FgradError, TypeError) as e:
            if refused is None:
                return build()
            raise refused(e) from None
        product = self.products.get(key)
        if product is None:
            if self.products and self.name is not None and config.jax_explain_cache_misses:
                self.explain(key, names() if names is not None else None)
            product = self.products[key] = build()
        return product

    def explain(self, key: tuple[Any, ...], names: Sequence[str] | None) -> None:
        """Log (logger "fgrad", level WARNING, as JAX does) why a call of signature `key` (its arguments
        named `names`) traces again: how it differs from the closest one seen, argument by argument."""
        static, tree, specs = key
        paths = [] if names is None or len(names) != len(tree.children) else \
            [path for name, child in zip(names, tree.children) for path in leaf_paths(child, name)]

        def differences(seen: tuple[Any, ...]) -> list[str]:
            seen_static, seen_tree, seen_specs = seen
            if seen_tree != tree:
                return [f"the arguments' structure: seen {seen_tree}, but now given {tree}"]
            found = [f"at {path or 'the argument'}, seen {old}, but now given {new}"
                     for path, old, new in zip(paths or [""] * len(specs), seen_specs, specs) if old != new]
            if seen_static != static:
                found.append(f"the static arguments: seen {_unstrict(seen_static)!r}, but now given "
                             f"{_unstrict(static)!r}")
            return found

        closest = min((differences(seen) for seen in self.products), key=len)
        _LOG.warning("TRACING CACHE MISS at %s for %s, traced %d time(s) before, because its closest seen signature "
                     "has %d mismatch(es):\n  * %s", user_site(), self.name, len(self.products), len(closest),
                     "\n  * ".join(closest))


def _strict(value: Any) -> Hashable:
    """A static value as a key: tagged with its type, through tuples."""
    if type(value) is tuple:
        return tuple, tuple(_strict(v) for v in value)
    return type(value), value


def _unstrict(key: Hashable) -> Any:
    """The static value a key of _strict was made from."""
    kind, value = key
    return tuple(_unstrict(v) for v in value) if kind is tuple else value


def trace(fn: Callable[..., Any], *args: Any) -> Graph:
    """Trace `fn` on arguments given as pytrees of Specs, arrays or numbers.

    Only shapes and dtypes of the arguments are read. Arrays and numbers that
    `fn` closes over become constant nodes. Returns the immutable Graph.
    """
    return trace_function(fn, args)[0]


def python_number(x: Any) -> bool:
    """Whether x is a Python bool, int or float (not a NumPy scalar, an array of its own)."""
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def positions_of(nums: Iterable[int], nargs: int) -> set[int]:
    """The argument positions among `nargs` that `nums` name (static_argnums and the like: negative
    ones count from the end; ones out of range name none, as JAX ignores them for a shorter call)."""
    return {n % nargs for n in nums if -nargs <= n < nargs}


def with_fixed(fn: Callable[..., Any], fixed: dict[int, Any], nargs: int) -> Callable[..., Any]:
    """`fn` of `nargs` positional arguments as a function of those not in `fixed` (position ->
    value), in order, the fixed ones passed as they are (keyword arguments pass through)."""
    def call(*values: Any, **named: Any) -> Any:
        it = iter(values)
        return fn(*(fixed[i] if i in fixed else next(it) for i in range(nargs)), **named)

    return call


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Within the block, what can be computed while tracing is, as `jax.ensure_compile_time_eval`:
    a function of NumPy values and numbers gives a NumPy value (an `fg.HostArray`) even inside a
    traced function, which Python can then read (`int(n)`, an `if`). Values derived from the traced
    arguments stay traced, and take the known ones as constants."""
    token = _AT_TRACE_TIME.set(True)
    try:
        yield
    finally:
        _AT_TRACE_TIME.reset(token)


def make_graph(fn: Callable[..., Any], static_argnums: int | Sequence[int] = (),
               axis_env: Sequence[tuple[Hashable, int]] | None = None,
               return_shape: bool = False) -> Callable[..., Any]:
    """`make_graph(f)(*args)` is the Graph of `f` on `args`, as `jax.make_jaxpr`.

    Args:
        static_argnums: the arguments passed as they are (Python values, not traced).
        axis_env: (name, size) pairs binding axis names, outermost first, as enclosing
            `vmap(..., axis_name=name)`s would: `f` may call the collectives (`fg.lax.psum`) over
            them, which the Graph records (it then runs only inside such vmaps).
        return_shape: also return the output's shapes and dtypes, a pytree of Specs
            (`ShapeDtypeStruct`s), as `(graph, shapes)`.
    """
    from fgrad.transforms.batching import named_axis  # NOTE: here because the transforms build on this module

    site = user_site()
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    axes = () if axis_env is None else axis_env
    if not isinstance(axes, (tuple, list)) or not all(
            isinstance(a, (tuple, list)) and len(a) == 2 and type(a[1]) is int and a[1] >= 0 for a in axes):
        raise InputError(f"make_jaxpr: axis_env must be a sequence of (name, size) pairs, got {axis_env!r}", site)

    def graph_of(*args: Any) -> Any:
        fixed = {i: args[i] for i in positions_of(static, len(args))}
        traced = [a for i, a in enumerate(args) if i not in fixed]
        names = [name for i, name in enumerate(_arg_names(fn, len(args))) if i not in fixed]
        with contextlib.ExitStack() as bound:
            for name, size in axes:
                bound.enter_context(named_axis(name, size))
            graph = trace_function(with_fixed(fn, fixed, len(args)), traced, names)[0]
        return (graph, unflatten(graph.out_tree, list(graph.out_specs))) if return_shape else graph

    return graph_of


def eval_shape(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of `fn(*args, **kwargs)`, as a pytree of Specs, found by tracing
    without computing anything (`jax.eval_shape`; arguments as for `trace`)."""
    graph = trace_function(functools.partial(fn, **kwargs) if kwargs else fn, args)[0]
    return unflatten(graph.out_tree, list(graph.out_specs))


def trace_function(
    fn: Callable[..., Any], args: Sequence[Any], names: Sequence[str] | None = None, closures: bool = False
) -> tuple[Graph, list[Tensor]]:
    """Trace `fn(*args)`; `names` name the arguments (default: from `fn`'s signature).

    With `closures`, Tensors of enclosing traces that `fn` closes over become
    extra inputs, passed as one more argument after `args` (a tuple named
    `closure`); they are returned beside the graph, in that order.
    """
    site = user_site()
    if not callable(fn):
        raise TraceError(f"trace: expected a function, got a {type(fn).__name__}", site)
    leaves, arg_tree = flatten(tuple(args))
    names = list(names) if names is not None else _arg_names(fn, len(args))
    paths = [path for name, sub in zip(names, arg_tree.children) for path in leaf_paths(sub, prefix=name)]
    try:
        specs = [spec_of(leaf, path) for leaf, path in zip(leaves, paths)]
    except FgradError as e:
        raise type(e)(str(e), site) from None
    try:
        symbols_of(specs)
    except ShapeError as e:  # two arguments give one name two maxima
        raise ShapeError(f"trace: the arguments' shapes: {e}", site) from None
    t = Trace(closures)
    stack = _stack()
    stack.append(t)
    try:
        inputs = [t.add(Node(input_p.name, (), (("name", p), ("spec", s)), s, site)) for p, s in zip(paths, specs)]
        try:
            out = fn(*unflatten(arg_tree, inputs))
        except SymbolError as e:  # raised by a Dim, which cannot see the user's line: the traceback has it
            if e.site is not None:
                raise
            raise SymbolError(str(e), _innermost_user_site(e.__traceback__)) from None
        out_leaves, out_tree = flatten(out)
        if any(is_float0(leaf) for leaf in out_leaves):  # float0 zeros return as structure
            out_leaves, out_tree = flatten(float0_as_structure(out))
        outputs = []
        for path, leaf in zip(leaf_paths(out_tree, prefix="output"), out_leaves):
            if not isinstance(leaf, (Tensor, bool, int, float, np.generic, np.ndarray)):
                raise TraceError(
                    f"trace: {getattr(fn, '__name__', 'the function')} returned a "
                    f"{type(leaf).__name__} at {path}; return a Tensor or a pytree of Tensors",
                    site,
                )
            if isinstance(leaf, Tensor) and leaf.owner is not t:
                if not (closures and leaf.owner.live):
                    text = TRACER_LEAKED if not leaf.owner.live else TRACER_FOREIGN
                    raise TraceError(text.format(op="trace", spec=leaf.spec) + f" (returned at {path})", site)
                leaf = t.lift(leaf)
            if not isinstance(leaf, Tensor):  # a number or array returned as it is: a constant
                spec = spec_of(leaf, path)
                check_int_range(leaf, spec, f"trace: the value returned at {path}", site)
                leaf = constant(leaf, spec.dtype)
            outputs.append(leaf.id)
    finally:
        stack.pop()
        t.live = False
    input_ids = [x.id for x in inputs]
    if closures:
        arg_tree = flatten((*args, tuple(c.spec for c in t.closed_over)))[1]
        input_ids += [t.lift(c).id for c in t.closed_over]
    nodes = _with_unique_names(t.nodes, input_ids)
    graph = Graph(nodes, tuple(input_ids), tuple(outputs), arg_tree, out_tree, tuple(t.captures.items()))
    check_symbols(graph)
    return graph, t.closed_over


def _with_unique_names(nodes: list[Node], inputs: list[int]) -> tuple[Node, ...]:
    """`nodes` with each input name that repeats an earlier one suffixed (`closure.0~2`).

    Names identify the arguments of calls and errors. Leaf paths differ already
    (see fgrad.pytree); a repeat is left only where an argument and a closed-over
    value, or two dict keys with one repr, print alike.
    """
    names = [nodes[i].attrs["name"] for i in inputs]
    taken, seen = set(names), set()
    out = list(nodes)
    for i, name in zip(inputs, names):
        if name in seen:
            n = 2
            while f"{name}~{n}" in taken:
                n += 1
            taken.add(f"{name}~{n}")
            params = {**nodes[i].attrs, "name": f"{name}~{n}"}
            out[i] = dataclasses.replace(nodes[i], params=tuple(sorted(params.items())))
        seen.add(name)
    return tuple(out)


def ShapeDtypeStruct(shape: Sequence[int | Dim], dtype: Any, *, sharding: None = None, weak_type: bool = False) -> Spec:  # noqa: N802
    """The Spec of an argument of `shape` and `dtype`, as `jax.ShapeDtypeStruct` (for `fg.trace`,
    `fg.eval_shape`, `fg.make_jaxpr`): fgrad has one device, so no sharding, and no weakly typed
    specs (`weak_type` is accepted and has no effect)."""
    if sharding is not None:
        raise TraceError(f"ShapeDtypeStruct: fgrad runs on one device and takes no sharding, got {sharding!r}; "
                         "shard through fg.export.to_jax", user_site())
    return spec(shape, dtype)


def spec(shape: int | Dim | tuple[int | Dim, ...] | list[int | Dim], dtype: str | DType = "f32") -> Spec:
    """The Spec of an argument: `fg.spec((32, 784))`, `fg.spec(10, "i32")`; a size may be a
    symbol: `fg.spec((fg.dim("T", 2048), 64))`."""
    try:
        if isinstance(shape, np.ndarray):  # an array of sizes: a 0-d one is one size
            shape = shape.tolist()
        if isinstance(shape, Dim) or isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
            return Spec((shape,), DType.named(dtype))
        if isinstance(shape, (str, dict)) or not isinstance(shape, Iterable):
            raise ShapeError(f"invalid shape {shape!r}: expected an integer or a tuple of integers")
        return Spec(tuple(shape), DType.named(dtype))
    except (ShapeError, DTypeError) as e:
        raise type(e)(f"spec: {e}", user_site()) from None


def dim(name: str, max: int) -> Dim:
    """A symbolic dimension for a Spec's shape: `fg.spec((fg.dim("T", max=2048), 64))` traces and
    compiles once for every size of that axis from 1 to `max` (see `Dim`)."""
    try:
        return Dim(name, max)
    except ShapeError as e:
        raise ShapeError(str(e), user_site()) from None


def require_graph(value: Any, who: str, hint: str | None = None) -> None:
    """Refuse anything but a Graph where `who` (a graph pass, say) takes one, ending the
    message with `hint` (by default, for a function, to trace it first)."""
    if not isinstance(value, Graph):
        if hint is None:
            hint = "; trace the function first: fg.trace(fn, *specs)" if callable(value) else ""
        raise TraceError(f"{who}: expected a Graph, got a {type(value).__name__}{hint}", user_site())


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


def check_int_range(value: Any, spec: Spec, what: str, site: str | None) -> None:
    """Refuse host integers (int64, uint64, a negative int for u32, say) that do not fit the
    integer dtype they are for."""
    if not fits(value, spec.dtype):
        raise InputError(f"{what} has values outside the {spec.dtype} range", site)
