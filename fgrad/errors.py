"""fgrad's error classes and the longer message texts they carry.

Every user mistake raises a subclass of `FgradError` whose message names the
op, shows the shapes or dtypes involved and ends with the user's `file:line`.
Each class also derives from the builtin exception a Python user would
expect (`ShapeError` is a `ValueError`, `DTypeError` a `TypeError`), so
existing `except` clauses keep working.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any


class FgradError(Exception):
    """Base class of every error fgrad raises on purpose."""

    def __init__(self, message: str, site: str | None = None):
        self.message, self.site = message, site
        super().__init__(f"{message} at {site}" if site else message)


class ShapeError(FgradError, ValueError):
    """Shapes that do not fit an op: broadcasting, reshape, matmul, axes."""


class DTypeError(FgradError, TypeError):
    """A dtype an op does not accept, or one fgrad does not support."""


class TypePromotionError(DTypeError, ValueError):
    """Operands of different dtypes where `fg.config`'s jax_numpy_dtype_promotion is 'strict', as
    `jax.dtypes.TypePromotionError` (a ValueError there, a DTypeError and a ValueError here)."""


class TraceError(FgradError, RuntimeError):
    """Misuse of tracing: leaked tracers, Python control flow on values, bad returns."""


class MissingRule(FgradError, NotImplementedError):
    """An interpretation (a transform, the lowering, an exporter) met a primitive it has no
    rule for: "vjp: no vjp rule for cumsum"."""


class SymbolError(TraceError, TypeError):
    """A symbolic dimension (fg.dim) used as a Python number: `int(T)`, `T + 1`, `range(T)`. A
    TypeError too, as Python's own for an operand that is not a number."""


class AxisNameError(TraceError, NameError):
    """A named axis (`fg.lax.psum(x, "batch")`) that no enclosing `vmap(axis_name=...)` binds."""


class InputError(FgradError, ValueError):
    """Arguments that do not match a graph's inputs (structure, shape or dtype)."""


class InvalidValueError(FgradError, FloatingPointError):
    """A NaN or an infinity computed where `fg.config`'s `jax_debug_nans` or `jax_debug_infs` asks
    for an error, as JAX's FloatingPointError: "invalid value (nan) encountered in log"."""


class CompileError(FgradError):
    """A graph that cannot be lowered or run on the adapter: limits, shader validation."""


class GraphError(FgradError):
    """A malformed graph: a node whose stored spec disagrees with its op's rule."""


TRACER_CONVERSION = (
    "{what} of a traced Tensor {spec} is unknown while tracing: fgrad traces "
    "a function once, so Python control flow cannot depend on tensor values. "
    "Use fg.where(cond, x, y) to choose between values, or compute the value "
    "outside the traced function; a setting such as a flag in a config passed to "
    "fg.jit can be marked static (static_argnums / static_argnames)"
)

SYMBOL_AS_NUMBER = (
    "{how}: the symbol {name} (1..{max}) is a size known only when the compiled function runs, "
    "so Python cannot use it as a number. Use it as an operand of fgrad's functions, which read "
    "its value at run time: x / {name}, fg.asarray({name}) + 1, fg.arange({name}), "
    "fg.where(fg.arange({name}) < k, x, y)"
)

TRACER_LEAKED = (
    "{op}: got a Tensor {spec} from a trace that has already ended. A Tensor "
    "lives only inside the function being traced; storing one in a global or "
    "returning it through a side channel leaks it. Pass values in as "
    "arguments instead"
)

TRACER_FOREIGN = (
    "{op}: got a Tensor {spec} that belongs to another, enclosing trace. Pass "
    "it to the inner function as an argument"
)

TRACER_INDEX = (
    "{what} is a traced Tensor {spec}, whose value is unknown while tracing: fgrad "
    "traces a function once, so Python indices and slice bounds must be static. To read "
    "at a traced position i, gather: fg.take(x, i, axis=...) for single entries, "
    "fg.take(x, i + fg.arange(k), axis=...) for a window of k entries starting at i "
    "(on a traced x also x[i] and x[i + fg.arange(k)]), or fg.dynamic_slice(x, starts, sizes) "
    "for a window clamped into range, as jax.lax.dynamic_slice"
)

NUMPY_FUNCTION = (
    "{function} is not supported on traced values (got a Tensor {spec}): NumPy "
    "functions need concrete arrays, and a traced value has none until the "
    "compiled function runs. {instead}"
)

IMMUTABLE = (
    "setitem: x[...] = value on {what}: fgrad values are immutable, as JAX arrays are; "
    "build the new value instead with JAX's indexed update: x.at[...].set(value) (or "
    ".add, .multiply, .min, .max)"
)


def name_errors_after(namespace: dict[str, Any], names: Iterable[str], qualifier: str = "") -> None:
    """Make each function `namespace[name]` name its errors as the user called it: an fgrad error
    raised inside it by another function it uses (`std` calling `var`) is prefixed with the name
    the user called ("std: var: ddof must be an integer ..."). Calls between fgrad's own modules
    use the functions themselves, so only the user's call is labelled. A `qualifier` ("norm.")
    goes before each name, in the function's own errors too ("norm.logpdf: ...")."""
    for name in names:
        fn = namespace[name]
        if inspect.isfunction(fn) and not hasattr(fn, "__wrapped__"):
            namespace[name] = _named(fn, qualifier + name, requalify=bool(qualifier))


def _named(fn: Callable[..., Any], name: str, requalify: bool = False) -> Callable[..., Any]:
    own = (f"{fn.__name__}:", f"{fn.__name__} ")

    @functools.wraps(fn)
    def _public(*args: Any, **kwargs: Any) -> Any:  # private: `user_call` names the function it wraps
        try:
            return fn(*args, **kwargs)
        except FgradError as e:
            if e.message.startswith((f"{name}:", f"{name} ")):
                raise
            if e.message.startswith(own):
                if not requalify:
                    raise
                raise type(e)(name + e.message[len(fn.__name__):], e.site) from None
            raise type(e)(f"{name}: {e.message}", e.site) from None

    return _public
