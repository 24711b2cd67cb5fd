"""Dtype promotion as `jax.numpy` (x64 off), host values as constants, broadcasting, and the
machinery every public function shares before it binds a primitive."""

from __future__ import annotations

import builtins
import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import numpy as np

from fgrad import primitives as P
from fgrad.config import config
from fgrad.errors import DTypeError, FgradError, ShapeError, TraceError, TypePromotionError
from fgrad.ir import I32, Const, Dim, DType, HasSpec, Primitive, constant_p
from fgrad.sharding import check_sharding
from fgrad.primitives import astype_p, broadcast_to_p, dim_size_p
from fgrad.trace import (
    Tensor, bind, called_by_user, check_live, current_trace, spec_of, user_call, user_site, user_stacklevel,
)

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "asarray", "result_dtype",
]


ArrayLike = Any  # Tensor, NumPy array, or Python number


# JAX's promotion lattice: each dtype's immediate successors. "i64" stands for JAX's int64 (the join
# of u32 with a signed integer), which x64 off makes i32; the integers' join with a float is the float.
_ABOVE: dict[DType | str, tuple[DType | str, ...]] = {
    DType.bool: (DType.u8, DType.i8), DType.u8: (DType.u16, DType.i16), DType.u16: (DType.u32, DType.i32),
    DType.u32: ("i64",), DType.i8: (DType.i16,), DType.i16: (DType.i32,), DType.i32: ("i64",),
    "i64": (DType.bf16, DType.f16), DType.bf16: (DType.f32,), DType.f16: (DType.f32,), DType.f32: (),
}


def _bounds(dt: DType | str) -> frozenset[DType | str]:
    """`dt` and every dtype above it in the lattice."""
    return frozenset((dt,)).union(*(_bounds(up) for up in _ABOVE[dt]))


_UPPER = {dt: _bounds(dt) for dt in _ABOVE}
# The join of two dtypes: the least of their common upper bounds (the one whose bounds hold them all).
_JOIN = {(a, b): next(DType.i32 if c == "i64" else c
                      for c in _UPPER[a] & _UPPER[b] if _UPPER[c] >= _UPPER[a] & _UPPER[b])
         for a in DType for b in DType}
_PYTHON_DTYPE = {bool: DType.bool, int: DType.i32, float: DType.f32}
# Python ints and floats are weakly typed, as in JAX: they take the dtype of the operands beside
# them when those are of their kind or higher (bool < integer < float), else i32 / f32.
_WEAK = {int: DType.i32, float: DType.f32, Dim: DType.i32}  # a symbol's value is an int
_KIND = {"b": 0, "i": 1, "u": 1, "f": 2}


def _dtype(x: ArrayLike) -> DType:
    """fgrad dtype of a Tensor, array or Python number (float64 -> f32, int64 -> i32).

    Every public function reads its operands' dtypes here first, so a value fgrad
    has no dtype for (None, a string, a ragged list, complex) is refused,
    naming the function called, even where the operand is converted to a given dtype.
    """
    if isinstance(x, HasSpec):
        return x.dtype
    if type(x) in _PYTHON_DTYPE:
        return _PYTHON_DTYPE[type(x)]
    if isinstance(x, Dim):
        return DType.i32
    try:
        dtype = np.asarray(x).dtype
    except (TypeError, ValueError) as e:
        raise DTypeError(f"{user_call()}: cannot make an array from a {type(x).__name__}: {e}", user_site()) from None
    if dtype.kind in "OUS" or dtype.kind == "V" and dtype != DType.bf16:  # objects, strings, records: not numbers
        raise DTypeError(f"{user_call()}: got a {type(x).__name__} ({_brief(x)}), expected an array or a number",
                         user_site())
    try:
        return DType.of(dtype)
    except DTypeError as e:
        raise DTypeError(f"{user_call()}: {e}", user_site()) from None


def _brief(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def result_dtype(*xs: ArrayLike) -> DType:
    """The dtype operands promote to, as in jax.numpy (x64 off): bool < u32 < i32 < f16 < f32
    (u32 with i32 gives i32). Python numbers are weak: an int takes the integer or float dtype
    beside it and a float the float dtype (u32 + 3 is u32, f16 + 0.5 is f16); alone, or beside
    lower kinds, they are i32 and f32.

    With `fg.config`'s jax_numpy_dtype_promotion 'strict', as JAX's, operands of two dtypes are
    a TypePromotionError, save Python numbers of the others' kind (an int beside integers or
    floats, a float beside floats)."""
    strong = [_dtype(x) for x in xs if type(x) not in _WEAK]
    dt = functools.reduce(lambda a, b: _JOIN[a, b], strong, DType.bool)
    if config.jax_numpy_dtype_promotion == "strict" and len(xs) > 1 and called_by_user(2):
        _strictly(xs, strong, dt)
    for x in xs:
        weak = _WEAK.get(type(x))
        if weak is not None and _KIND[dt.kind] < _KIND[weak.kind]:
            dt = weak
    return dt


def _strictly(xs: Sequence[ArrayLike], strong: list[DType], dt: DType) -> None:
    """JAX's strict promotion: one dtype `dt` among the operands that are not Python numbers, and
    Python numbers only of a kind it takes (an int for integers and floats, a float for floats)."""
    weak_kinds = {_KIND[_WEAK[type(x)].kind] for x in xs if type(x) in _WEAK}
    if len(set(strong)) > 1 or \
            (strong and weak_kinds and (dt.kind == "b" or builtins.max(weak_kinds) > _KIND[dt.kind])):
        names = tuple(dict.fromkeys(str(type(x)) if type(x) in _WEAK else _dtype(x).name for x in xs))
        raise TypePromotionError(
            f"{user_call()}: input dtypes {names} have no available implicit dtype "
            f"promotion path when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
            f"output type, or set jax_numpy_dtype_promotion=standard", user_site())


def _float_dtype(dt: DType) -> DType:
    """The dtype a float function of a `dt` value computes in: `dt` itself if a float, else
    f32, as jax.numpy's (integers and bools convert to the default float)."""
    return dt if dt.is_float else DType.f32


def argument_values(leaves: Sequence[Any], paths: Sequence[str], who: str, site: str | None) -> list[Any]:
    """The leaves of a transform's arguments as fgrad values (`asarray`), each checked to be an
    array, a number or a Tensor first: an error names `who` and the leaf's path."""
    values = []
    for leaf, path in zip(leaves, paths):
        try:
            spec_of(leaf, path)
        except FgradError as e:
            raise type(e)(f"{who}: {e.message.removeprefix('trace: ')}", site) from None
        values.append(asarray(leaf))
    return values


def asarray(a: ArrayLike, dtype: str | DType | None = None, order: str | None = None, *, copy: bool | None = None,
            device: Any = None, out_sharding: Any = None) -> Tensor | np.ndarray:
    """`a` as an fgrad value: Tensors pass through (cast if `dtype` differs),
    numbers and arrays become constants (eagerly, arrays of fgrad's dtypes).

    As `jnp.asarray`: `order` may only be None or "K"; `copy` is accepted (fgrad values are
    immutable, so a copy is never needed and never seen); `device` places the value (see
    `_placed`) and `out_sharding` must be None.
    """
    if order is not None or copy is not None or device is not None or out_sharding is not None:
        if order is not None and order != "K":
            raise TraceError(f"asarray: only order='K' is implemented, as in jax.numpy, got {order!r}", user_site())
        _copy_flag("asarray", copy)
        return _placed("asarray", asarray(a, dtype), device, out_sharding)
    have = _dtype(a)
    want = have if dtype is None else _as_dtype(dtype)
    if isinstance(a, Tensor):
        check_live(a)
        return a if a.dtype is want else bind(astype_p, a, dtype=want)
    if isinstance(a, Dim):  # a symbol as a number: its value at call time
        if current_trace() is None:
            raise ShapeError(f"{user_call()}: the symbol {a} has a value only inside a traced function", user_site())
        return asarray(bind(dim_size_p, dim=a), want)
    try:
        value = _host_constant(a, want)
    except OverflowError as e:
        raise DTypeError(f"{user_call()}: {e}; use a float, or values that fit", user_site()) from None
    return bind(constant_p, value=value)


def _bool_flag(name: str, what: str, flag: Any) -> bool:
    """A flag argument (keepdims, reverse, ...), which must be True or False."""
    if not isinstance(flag, (bool, np.bool_)):
        raise TraceError(f"{name}: {what} must be True or False, got {_brief(flag)}", user_site())
    return bool(flag)


def _copy_flag(name: str, copy: Any) -> None:
    """JAX's `copy` argument: None, True or False. fgrad values are immutable, so whether a function
    copies cannot be seen, and any of them is honoured."""
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise TraceError(f"{name}: copy must be True, False or None, got {_brief(copy)}", user_site())


def _no_sharding(name: str, out_sharding: Any) -> None:
    """JAX's `out_sharding` argument: None, or a sharding of fgrad's one device (a NamedSharding
    over one of its meshes, a SingleDeviceSharding, a PartitionSpec under an entered mesh), which
    places the whole array there."""
    if out_sharding is not None:
        check_sharding(name, out_sharding)


def _placed(name: str, x: Any, device: Any, out_sharding: Any = None) -> Any:
    """`x` (a value or a tuple of them) on `device`, JAX's placement argument of the functions that
    make arrays: None leaves x where fgrad computes it (on the host eagerly, on the device in a
    compiled function); one of `fg.local_devices()` copies an eager value there, as an fg.Array
    (a traced value is on it already). `out_sharding` must be None (`_no_sharding`)."""
    _no_sharding(name, out_sharding)
    if device is None:
        return x
    from fgrad.runtime import check_placement, device_put  # NOTE: the runtime builds on fgrad.numpy

    check_placement(name, user_site(), device=device)
    return x if current_trace() is not None else device_put(x, device)


def _inexact(*xs: ArrayLike) -> list[Tensor | np.ndarray]:
    """The arguments in the float dtype they promote to (integers and bools: f32), as JAX's
    promote_args_inexact."""
    dtype = _float_dtype(result_dtype(*xs))
    return [asarray(x, dtype) for x in xs]


def _host_constant(x: Any, dtype: DType) -> Const:
    """A number or array of the user's as a Const of `dtype`, converted by astype's rules.
    Integers that do not fit raise OverflowError, as in JAX, instead of wrapping silently: an
    array's integers must fit the dtype fgrad reads the array as (int64 as i32, uint64 as u32);
    a Python int must fit an integer `dtype` or, as JAX's Python ints are i32, i32 (so
    `u32 + -1` wraps, as in JAX)."""
    arr = np.asarray(x)
    own = dtype if type(x) is int else DType.of(arr.dtype) if arr.dtype.kind in "iu" else None
    if own is not None and own.is_int and dtype.is_int:
        ranges = [np.iinfo(own.np)] + ([I32] if type(x) is int else [])
        lo, hi = builtins.min(int(r.min) for r in ranges), builtins.max(int(r.max) for r in ranges)
        if arr.size and not (lo <= arr.min() and arr.max() <= hi):
            bad = arr.max() if arr.max() > hi else arr.min()
            raise OverflowError(f"the integer {bad} does not fit {own} ({lo}..{hi})")
    return Const.of(P.convert(arr, dtype), dtype)


def _as_dtype(dtype: str | DType, name: str = "asarray") -> DType:
    try:
        return DType.named(dtype)
    except DTypeError as e:
        raise DTypeError(f"{name}: {e}", user_site()) from None


def _shape(x: ArrayLike) -> tuple[int, ...]:
    if isinstance(x, Tensor):
        return x.shape
    try:
        return tuple(np.shape(x))
    except ValueError:  # a ragged list: refused as _dtype refuses it, naming the function called
        _dtype(x)
        raise


def _broadcast_shapes(*shapes: tuple[int | Dim, ...]) -> tuple[int | Dim, ...] | None:
    """NumPy's broadcast of `shapes` (None where they do not broadcast). A symbol broadcasts with
    itself and with 1 only: its values are unknown while tracing."""
    ndim = builtins.max(map(len, shapes), default=0)
    out = []
    for k in range(ndim):
        sizes = {s[k - ndim + len(s)] for s in shapes if k - ndim + len(s) >= 0} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _broadcast(name: str, *xs: Tensor | np.ndarray, ranks: bool = True) -> list[Tensor | np.ndarray]:
    """`xs` broadcast to one shape. Operands of two ranks (scalars aside) follow `fg.config`'s
    jax_numpy_rank_promotion ('allow', 'warn', 'raise'), as JAX's functions do (`ranks`)."""
    shapes = [_shape(x) for x in xs]
    if ranks and config.jax_numpy_rank_promotion != "allow" and len({len(s) for s in shapes if s}) > 1 \
            and called_by_user():
        _rank_promotion(name, shapes)
    shape = _broadcast_shapes(*shapes)
    if shape is None:
        raise ShapeError(f"{name}: cannot broadcast {' with '.join(map(str, shapes))}", user_site())
    return [x if _shape(x) == shape else bind(broadcast_to_p, x, shape=shape) for x in xs]


def _rank_promotion(name: str, shapes: Sequence[tuple[int | Dim, ...]]) -> None:
    shown = " ".join(map(str, shapes))
    if config.jax_numpy_rank_promotion == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion for {name} on shapes {shown}. Set the "
                      f"jax_numpy_rank_promotion config option to 'allow' to disable this warning",
                      stacklevel=user_stacklevel())
    else:
        raise ShapeError(f"{name}: operands could not be broadcast together on shapes {shown} with the config "
                         f"option jax_numpy_rank_promotion='raise'; expand their ranks to match (x[None], "
                         f"fg.numpy.expand_dims) or set it to 'allow'", user_site())


def _elementwise(op: Primitive, *args: ArrayLike, dtype: DType | None = None) -> Tensor | np.ndarray:
    """Promote `args` to one dtype (`dtype` if given), broadcast them, bind `op`."""
    dt = dtype or result_dtype(*args)
    return bind(op, *_broadcast(op.name, *(asarray(a, dt) for a in args)))


def _arith_dtype(*args: ArrayLike) -> DType:
    # Arithmetic that has no bool form (sum, pow, relu) counts bools as integers, as jax.numpy.
    dt = result_dtype(*args)
    return DType.i32 if dt is DType.bool else dt


def _no_bool(name: str, *args: ArrayLike) -> None:
    """jax.numpy refuses bools where NumPy's bool arithmetic would be a trap (-b, b - c)."""
    if result_dtype(*args) is DType.bool:
        raise DTypeError(f"{name}: bool operands are not supported "
                         f"({', '.join(str(spec_of(asarray(a))) for a in args)}); use fg.logical_not / "
                         "fg.not_equal for logic, or astype('i32') for arithmetic", user_site())


def _no_keywords(name: str, keywords: dict[str, Any], takes: str = "only the value x") -> None:
    if keywords:
        raise TraceError(f"{name}: unexpected keyword argument {next(iter(keywords))!r}; "
                         f"fg.{name} takes {takes}", user_site())


def _named_error(e: FgradError, name: str) -> FgradError:
    """`e` as an error of `name`, the public function or method the user called: as it is where its
    message names `name` already, else with `name` in front ("add.outer: add: cannot broadcast ..."),
    in place of a method's bare name, which `user_call()` gives inside it ("reduce: ..." in `add.reduce`)."""
    if e.message.startswith((f"{name}:", f"{name} ")):
        return e
    method = name.rpartition(".")[2]
    message = e.message.removeprefix(f"{method}: ") if method != name else e.message
    return type(e)(f"{name}: {message}", e.site)


def _raise_named(e: FgradError, name: str) -> NoReturn:
    """Raise `e`, which is being handled, as an error of `name` (`_named_error`)."""
    named = _named_error(e, name)
    if named is e:
        raise  # as it was, with its traceback
    raise named from None


@contextlib.contextmanager
def _named_errors(name: str) -> Iterator[None]:
    """The fgrad errors raised inside named after `name` (`_named_error`), as `name_errors_after`
    names a public function's: for public objects that are not functions (r_, a ufunc's methods)."""
    try:
        yield
    except FgradError as e:
        _raise_named(e, name)


def _unary(op: Primitive, dtype: Callable[[ArrayLike], DType], doc: str) -> Callable[..., Tensor | np.ndarray]:
    """The public function of an elementwise primitive: `op` on x converted to `dtype(x)`."""

    def fn(x: ArrayLike, **keywords: Any) -> Tensor | np.ndarray:
        _no_keywords(op.name, keywords)
        return bind(op, asarray(x, dtype(x)))

    fn.__name__ = fn.__qualname__ = op.name
    fn.__code__ = fn.__code__.replace(co_name=op.name)  # tracebacks and user_call() say `exp`, not `fn`
    fn.__doc__ = doc.format(op.name)
    return fn


def _axes(name: str, shape: tuple[int, ...], axis: int | Sequence[int] | None, ndim: int | None = None) -> tuple[int, ...]:
    """Normalise `axis` (None, int or sequence; negatives count from the end) for
    `ndim` axes (those of `shape` unless given)."""
    ndim = len(shape) if ndim is None else ndim
    if axis is None:
        return tuple(range(ndim))
    given = _axis_tuple(name, axis)
    out = []
    for a in given:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise ShapeError(f"{name}: axis {a!r} is not an integer", user_site())
        if not -ndim <= a < ndim:
            raise ShapeError(f"{name}: axis {a} is out of range for {ndim} axes of {shape}", user_site())
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{name}: repeated axis in {given} for {shape}", user_site())
    return tuple(sorted(out))


def _axis_tuple(name: str, axis: Any) -> tuple[Any, ...]:
    if isinstance(axis, (int, np.integer)):
        return (axis,)
    if isinstance(axis, (tuple, list)):
        return tuple(axis)
    raise ShapeError(f"{name}: axis {axis!r} must be an integer or a tuple of integers", user_site())


def _one_axis(name: str, x: Tensor | np.ndarray, axis: int) -> int:
    if not isinstance(axis, (int, np.integer)):
        raise ShapeError(f"{name}: axis must be a single integer, got {axis!r}", user_site())
    return _axes(name, _shape(x), axis)[0]


def _static_scalar(name: str, what: str, value: Any, dtype: DType) -> Const:
    """A number known while tracing (a fill or pad value) as a Const of `dtype`."""
    if isinstance(value, Tensor) or type(value) not in _PYTHON_DTYPE and not isinstance(value, (np.generic, np.ndarray)) \
            or np.ndim(value) != 0:
        raise TraceError(f"{name}: {what} must be a static number, got {_brief(value)}", user_site())
    _dtype(value)  # refuses strings and complex numbers
    try:
        return _host_constant(value, dtype)
    except OverflowError as e:
        raise DTypeError(f"{name}: {what}: {e}", user_site()) from None
