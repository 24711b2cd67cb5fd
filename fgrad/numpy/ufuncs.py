"""Universal functions, as `jax.numpy.ufunc`: an elementwise function that also reduces
(`add.reduce`), accumulates (`add.accumulate`), updates at indices (`add.at`), reduces between
indices (`add.reduceat`) and combines every pair (`add.outer`); `frompyfunc` makes one of a
scalar function.

The ufuncs of jax.numpy (add, multiply, maximum, logical_and, bitwise_or, logaddexp, ...) wrap
fgrad's elementwise functions. Each method uses fgrad's own reduction, scan or scatter where one
computes it (sum for add.reduce, cummax for maximum.accumulate, x.at[...].max for maximum.at)
and otherwise, as JAX's, folds the function along the axis with `lax.scan` or `lax.fori_loop`:
one step per entry, in order, so any function of two values works (subtract, a frompyfunc's).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fgrad.errors import DTypeError, FgradError, InputError, ShapeError, TraceError
from fgrad.ir import DType, Spec
from fgrad.trace import eval_shape, user_site
from fgrad.transforms.control_flow import fori_loop, scan
from fgrad.numpy import bitwise, elementwise, reductions
from fgrad.numpy.promotion import (
    _WEAK, ArrayLike, _as_dtype, _axes, _bool_flag, _broadcast_shapes, _brief, _dtype, _float_dtype,
    _named_errors, _one_axis, _raise_named, _shape, asarray, result_dtype,
)
from fgrad.numpy.shapes import _fixed, _no_out, broadcast_to, concatenate, moveaxis, ravel, reshape
from fgrad.numpy.creation import full
from fgrad.numpy.indexing import _IndexUpdateHelper, _parse, take
from fgrad.numpy.functional import vectorize

__all__ = [  # the public names, re-exported by fgrad.numpy and fgrad
    "ufunc", "frompyfunc",
    "add", "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "logaddexp2", "logical_and", "logical_or",
    "logical_xor", "maximum", "minimum", "multiply", "negative", "subtract",
]


def _count(what: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise TraceError(f"ufunc: {what} must be a positive int, got {_brief(value)}", user_site())
    return int(value)


def _call_signature(func: Callable[..., Any], nin: int) -> inspect.Signature | None:
    """`func`'s first `nin` parameters, positional-only, then the keywords out and where: what a
    ufunc's call takes (so traces name its arguments as func does). None where func shows fewer."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:nin]
    if len(positional) < nin:
        return None
    return inspect.Signature([
        *(p.replace(kind=p.POSITIONAL_ONLY, default=p.empty) for p in positional),
        *(inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None) for k in ("out", "where")),
    ])


class ufunc:  # noqa: N801  (jax.numpy's name)
    """A function applied elementwise to broadcast arrays, with NumPy's ufunc methods, as
    `jax.numpy.ufunc`: fgrad.numpy's add, multiply, maximum, ... are ufuncs, and `frompyfunc`
    makes one of any function of scalars.

    Args:
        func: the function of `nin` arrays (or scalars) giving `nout` values.
        nin, nout: how many inputs and outputs it has.
        name: the name errors and repr give (func's by default).
        nargs: as jnp.ufunc's, `nin` by default.
        identity: the value `reduce` starts from (and masked entries count), or None.
        call, reduce, accumulate, at, reduceat: the functions that compute a call and those
            methods, where they have a faster form than the generic one (JAX's arguments).
    """

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *, name: str | None = None,
                 nargs: int | None = None, identity: Any = None, call: Callable[..., Any] | None = None,
                 reduce: Callable[..., Any] | None = None, accumulate: Callable[..., Any] | None = None,
                 at: Callable[..., Any] | None = None, reduceat: Callable[..., Any] | None = None):
        if not callable(func):
            raise TraceError(f"ufunc: func must be a function, got {_brief(func)}", user_site())
        self.__doc__ = func.__doc__
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self._func, self._nin, self._nout = func, _count("nin", nin), _count("nout", nout)
        self._nargs = self._nin if nargs is None else _count("nargs", nargs)
        self._identity = identity
        self._call = call or vectorize(func)
        self._reduce, self._accumulate, self._at, self._reduceat = reduce, accumulate, at, reduceat
        signature = _call_signature(func, self._nin)
        if signature is not None:
            self.__signature__ = signature

    # Read-only, as jnp.ufunc's: a ufunc may be a static argument of a compiled function.
    nin = property(lambda self: self._nin, doc="How many inputs the function takes.")
    nout = property(lambda self: self._nout, doc="How many outputs the function gives.")
    nargs = property(lambda self: self._nargs, doc="As jnp.ufunc's nargs: nin unless given.")
    identity = property(lambda self: self._identity, doc="The identity of the function (reduce's start), or None.")

    def _key(self) -> tuple[Any, ...]:
        return self._func, self.__name__, self._identity, self._nin, self._nout, self._nargs

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<fgrad.numpy.ufunc '{self.__name__}'>"

    def __call__(self, *args: ArrayLike, out: None = None, where: None = None, **unknown: Any) -> Any:
        """The function of `args`, broadcast together; `out` and `where` must be None, as in JAX."""
        if out is not None or where is not None or unknown or len(args) != self._nin:
            self._refuse_call(len(args), out, where, unknown)
        try:  # not _named_errors: a with block's generator would cost every call of add, multiply, ...
            return self._call(*args)
        except FgradError as e:  # named as the user called it, as name_errors_after names a function's
            _raise_named(e, self.__name__)

    def _refuse_call(self, count: int, out: Any, where: Any, unknown: dict[str, Any]) -> None:
        if unknown:
            raise TraceError(f"{self.__name__}: unexpected keyword argument{'s' * (len(unknown) > 1)} "
                             f"{', '.join(sorted(unknown))}: a ufunc takes its {self._nin} argument"
                             f"{'s' * (self._nin > 1)}, out=None and where=None", user_site())
        _no_out(self.__name__, out)
        if where is not None:
            raise InputError(f"{self.__name__}: where= is not supported, as in JAX; compute the function and pick "
                             f"with fg.where(mask, {self.__name__}(...), other)", user_site())
        raise TraceError(f"{self.__name__}: takes {self._nin} positional argument{'s' * (self._nin > 1)}, got {count}",
                         user_site())

    def _method(self, method: str) -> str:
        """`add.reduce`, the name of a method of a binary ufunc of one output, which these methods need."""
        name = f"{self.__name__}.{method}"
        if self._nin != 2 or self._nout != 1:
            raise InputError(f"{name}: {method} is supported only for binary ufuncs of one output, as in JAX; "
                             f"{self.__name__} takes {self._nin} and gives {self._nout}", user_site())
        return name

    def _result_dtype(self, *xs: ArrayLike) -> DType:
        """The dtype the function gives on `xs`, found by tracing it on scalars of their dtypes (as
        JAX's eval_shape); Python numbers are passed as they are, so they stay weakly typed."""

        def on_scalars(*scalars: Any) -> Any:
            given = iter(scalars)
            return self._call(*(x if type(x) in _WEAK else next(given) for x in xs))

        return eval_shape(on_scalars, *(Spec((), _dtype(x)) for x in xs if type(x) not in _WEAK)).dtype

    def reduce(self, a: ArrayLike, axis: int | tuple[int, ...] | None = 0, dtype: Any = None, out: None = None,
               keepdims: bool = False, initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
        """`a` folded with the function over `axis` (all axes if None), as `jnp.ufunc.reduce`:
        `add.reduce` is `sum`, `logical_and.reduce` is `all`. `dtype` is what it computes in;
        `initial` joins the result (the identity where none is given); entries outside the bool
        `where` mask are left out, which needs an identity or an initial value. A ufunc without a
        reduction of fgrad's folds one entry at a time along one axis (a tuple of axes is refused,
        as JAX's)."""
        name = self._method("reduce")
        with _named_errors(name):
            _no_out(name, out)
            keepdims = _bool_flag(name, "keepdims", keepdims)
            if where is not None:
                if self._identity is None and initial is None:
                    raise TraceError(f"{name}: a where mask needs an initial value: {self.__name__} has no identity "
                                     "(as in JAX)", user_site())
                if _dtype(where) is not DType.bool:
                    raise DTypeError(f"{name}: where must be a bool mask, got {_dtype(where)}", user_site())
            reduce = self._reduce or self._reduce_via_scan
            return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_scan(self, a: ArrayLike, axis: int | tuple[int, ...] | None, dtype: Any, keepdims: bool,
                         initial: ArrayLike | None, where: ArrayLike | None) -> Any:
        name = f"{self.__name__}.reduce"
        x = asarray(a)
        dtype = self._result_dtype(x, x) if dtype is None else _as_dtype(dtype, name)
        initial = self._identity if initial is None else initial
        mask = None if where is None else broadcast_to(asarray(where), _shape(x))
        if isinstance(axis, (tuple, list)):
            raise ShapeError(f"{name}: a tuple of axes {tuple(axis)} is not supported for {self.__name__}, as in JAX; "
                             "reduce one axis at a time", user_site())
        if axis is None:
            kept = (1,) * len(_shape(x)) if keepdims else ()
            x, mask, axis = ravel(x), None if mask is None else ravel(mask), 0
        else:
            axis = _one_axis(name, x, axis)
            kept = tuple(1 if k == axis else d for k, d in enumerate(_shape(x)) if keepdims or k != axis)
        xs = moveaxis(asarray(x, dtype), axis, 0)
        if _fixed(name, _shape(xs), 0, "reduce") == 0:
            if initial is None:
                raise ShapeError(f"{name}: zero-size array to reduction operation {self.__name__}, which has no "
                                 "identity; give an initial value (as in NumPy and JAX)", user_site())
            return full(kept, initial, dtype)
        if initial is None:
            start, xs = xs[0], xs[1:]
        else:
            start = broadcast_to(asarray(initial, dtype), _shape(xs)[1:])
        if mask is None:
            result, _ = scan(lambda carry, v: (self(carry, v), None), start, xs)
        else:  # a mask comes with an initial value (or the identity), so xs holds every entry
            result, _ = scan(lambda carry, vm: (elementwise.where(vm[1], self(carry, vm[0]), carry), None), start,
                             (xs, moveaxis(mask, axis, 0)))
        return reshape(result, kept)

    def accumulate(self, a: ArrayLike, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """The running fold of `a` with the function along `axis`, as `jnp.ufunc.accumulate`:
        `add.accumulate` is `cumsum`, `maximum.accumulate` a running maximum; in `dtype` if
        given, else in the dtype the function gives. A ufunc without a scan of fgrad's folds one
        entry at a time."""
        name = self._method("accumulate")
        with _named_errors(name):
            _no_out(name, out)
            accumulate = self._accumulate or self._accumulate_via_scan
            return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, a: ArrayLike, axis: int, dtype: Any) -> Any:
        name = f"{self.__name__}.accumulate"
        x = asarray(a)
        dtype = self._result_dtype(x, x) if dtype is None else _as_dtype(dtype, name)
        if axis is None or isinstance(axis, (tuple, list)):
            raise ShapeError(f"{name}: accumulates along one axis, got axis={axis!r} (as JAX refuses)", user_site())
        axis = _one_axis(name, x, axis)
        xs = moveaxis(asarray(x, dtype), axis, 0)
        if _fixed(name, _shape(xs), 0, "accumulate") < 2:  # nothing to combine
            return asarray(x, dtype)

        def step(carry: Any, v: Any) -> tuple[Any, Any]:
            y = self(carry, v)
            return y, y

        _, rest = scan(step, xs[0], xs[1:])
        return moveaxis(concatenate([xs[:1], rest]), 0, axis)

    def at(self, a: ArrayLike, indices: Any, b: ArrayLike | None = None, /, *, inplace: bool = True) -> Any:
        """`a` with the function applied at `indices` (with the values `b` for a binary one), as
        `jnp.ufunc.at`, which also requires inplace=False: fgrad values are immutable, so the
        updated array is returned. Repeated indices apply the function once per occurrence, as
        NumPy's unbuffered ufunc.at (add.at adds each). A ufunc without a scatter of fgrad's
        updates one index at a time."""
        name = f"{self.__name__}.at"
        if inplace:
            raise TraceError(f"{name}: fgrad values are immutable, as JAX arrays: pass inplace=False to get the "
                             "updated array", user_site())
        operands = () if b is None else (b,)
        if 1 + len(operands) != self._nin or self._nout != 1:
            raise InputError(f"{name}: {self.__name__} takes {self._nin} inputs and gives {self._nout}: at takes the "
                             f"array{' and the values b' if self._nin == 2 else ''}, for a ufunc of one output, got "
                             f"{1 + len(operands)} operands", user_site())
        with _named_errors(name):
            at = self._at or self._at_via_scan
            return at(a, indices, *operands)

    def _at_via_scan(self, a: ArrayLike, indices: Any, *operands: ArrayLike) -> Any:
        dtype = self._result_dtype(a, *operands)
        x = asarray(a, dtype)
        operands = tuple(asarray(v, dtype) for v in operands)
        key = indices if isinstance(indices, tuple) else (indices,)
        if not key:  # as JAX's: no index updates nothing
            return x
        static = [k is None or k is Ellipsis or isinstance(k, slice) for k in key]
        if any(not s and _dtype(k) is DType.bool for k, s in zip(key, static)):
            raise TraceError(f"{self.__name__}.at: boolean masks are not supported (as in JAX); pass the indices of "
                             "their True entries, fg.nonzero(mask)", user_site())
        index_shape = _broadcast_shapes(*(_shape(k) for k, s in zip(key, static) if not s))
        if index_shape is None:
            raise ShapeError(f"{self.__name__}.at: the index arrays do not broadcast: "
                             f"{[_shape(k) for k, s in zip(key, static) if not s]}", user_site())
        if not index_shape:  # one position (or slices): one update
            ref = _IndexUpdateHelper(x)[indices]
            return ref.set(self(ref.get(), *operands))
        count = math.prod(index_shape)
        rows = [reshape(broadcast_to(asarray(k), index_shape), (count,)) for k, s in zip(key, static) if not s]
        # The values broadcast to the index arrays' shape then one position's x[...] (the axes the
        # slices keep), as JAX's (and NumPy's, where the index arrays' axes come first).
        one = _parse(f"{self.__name__}.at", _shape(x), tuple(k if s else 0 for k, s in zip(key, static)),
                     checked=False).shape
        values = [reshape(broadcast_to(v, (*index_shape, *one)), (count, *one)) for v in operands]

        def step(x: Any, row: tuple[Any, ...]) -> tuple[Any, None]:
            picked = iter(row[:len(rows)])
            ref = _IndexUpdateHelper(x)[tuple(k if s else next(picked) for k, s in zip(key, static))]
            return ref.set(self(ref.get(), *row[len(rows):])), None

        return scan(step, x, (*rows, *values))[0]

    def reduceat(self, a: ArrayLike, indices: ArrayLike, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """The folds of the slices of `a` between consecutive `indices` along `axis`, as
        `jnp.ufunc.reduceat`: result k folds a[indices[k]:indices[k + 1]] (the last one to the end
        of the axis), or is a[indices[k]] where indices[k + 1] is not greater. In `dtype` if given
        (JAX ignores it), else a's. As JAX's, one step per entry of the axis, each folding the
        entry into the results whose slices hold it."""
        name = self._method("reduceat")
        with _named_errors(name):
            _no_out(name, out)
            reduceat = self._reduceat or self._reduceat_via_loop
            return reduceat(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_loop(self, a: ArrayLike, indices: ArrayLike, axis: int, dtype: Any) -> Any:
        name = f"{self.__name__}.reduceat"
        x, idx = asarray(a, dtype), asarray(indices)
        if not _shape(x):
            raise ShapeError(f"{name}: a must have at least one axis, got shape {_shape(x)}", user_site())
        if len(_shape(idx)) != 1 or not _dtype(idx).is_int:
            raise ShapeError(f"{name}: indices must be a 1-D array of integers, got {_dtype(idx)}{list(_shape(idx))}",
                             user_site())
        if axis is None or isinstance(axis, (tuple, list)):
            raise ShapeError(f"{name}: reduces along one integer axis, got axis={axis!r}", user_site())
        axis = _one_axis(name, x, axis)
        n = _fixed(name, _shape(x), axis, "reduceat")
        along = tuple(-1 if k == axis else 1 for k in range(len(_shape(x))))
        starts = reshape(idx, along)
        stops = reshape(concatenate([idx[1:], asarray([n], _dtype(idx))]), along)

        def step(i: Any, out: Any) -> Any:
            inside = elementwise.logical_and(elementwise.greater(i, starts), elementwise.less(i, stops))
            return elementwise.where(inside, self(out, take(x, reshape(i, (1,)), axis)), out)

        return fori_loop(0, n, step, take(x, idx, axis))

    def outer(self, A: ArrayLike, B: ArrayLike, /) -> Any:
        """The function of every pair of an entry of A and one of B, of shape (*A.shape, *B.shape),
        as `jnp.ufunc.outer`."""
        name = self._method("outer")
        with _named_errors(name):
            A, B = asarray(A), asarray(B)
            return self(reshape(A, (*_shape(A), *(1,) * len(_shape(B)))), B)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """A ufunc of `func`, a function of `nin` scalars giving `nout` values written with fgrad's
    operations, as `jnp.frompyfunc`: its call maps func over the broadcast inputs with
    `fg.vectorize` (one batched program); `identity` is what `reduce` starts from, if any."""
    return ufunc(func, nin, nout, identity=identity)


# -- the faster forms of jax.numpy's ufuncs' methods -------------------------------------------------

_LN2 = math.log(2)


def _fold(fold: str, combine: Callable[[Any, Any], Any], identity: int | bool) -> Callable[..., Any]:
    """The reduce of a logical ufunc (a bool `identity`: the values read as bools) or a bitwise
    one (integers and bools), as JAX's: fgrad.lax's `fold` (reduce_and, reduce_or, reduce_xor)
    over the axes, entries outside the mask counting `identity`, `initial` joined by `combine`."""

    def reduce(a: ArrayLike, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
               initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
        from fgrad.lax import reductions as lax_reductions  # NOTE: fgrad.lax builds on fgrad.numpy; read at call time

        x = asarray(a, DType.bool if isinstance(identity, bool) else bitwise._integer_dtype("reduce", a))
        x = asarray(x, dtype)
        x = reductions._masked("reduce", x, where, asarray(identity, _dtype(x)))  # -1 is all bits set, or True
        axes = _axes("reduce", _shape(x), axis)
        out = getattr(lax_reductions, fold)(x, axes)
        if initial is not None:
            out = combine(reductions._initial("reduce", initial, _dtype(x)), out)
        return reductions._keepdims(out, _shape(x), axes) if keepdims else out

    return reduce


def _reduce_extreme(pick: Callable[..., Any]) -> Callable[..., Any]:
    """The reduce of maximum or minimum: `pick` (fg.max, fg.min) of `a` in `dtype`."""

    def reduce(a: ArrayLike, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
               initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
        return pick(asarray(a, dtype), axis, keepdims=keepdims, initial=initial, where=where)

    return reduce


def _reduce_logaddexp(a: ArrayLike, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
                      initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """logaddexp.reduce: logsumexp of `a` (in `dtype` if given: JAX ignores it), `initial` joined by
    logaddexp."""
    out = reductions.logsumexp(asarray(a, dtype), axis, keepdims=keepdims, where=where)
    return out if initial is None else elementwise.logaddexp(initial, out)


def _reduce_logaddexp2(a: ArrayLike, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
                       initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """logaddexp2.reduce: logaddexp.reduce of a ln 2, over ln 2 (as JAX's), `initial` joined by logaddexp2."""
    scaled = elementwise.multiply(asarray(a, dtype), _LN2)
    out = elementwise.divide(_reduce_logaddexp(scaled, axis, keepdims=keepdims, where=where), _LN2)
    return out if initial is None else elementwise.logaddexp2(initial, out)


def _running(scan_values: Callable[..., Any], on_bools: Callable[..., Any]) -> Callable[..., Any]:
    """The accumulate of maximum or minimum: fgrad.lax's scan `scan_values` (cummax, cummin) of `a`
    in `dtype`; on bools `on_bools` (cumsum, cumprod) as a running or / and."""

    def accumulate(a: ArrayLike, axis: int = 0, dtype: Any = None) -> Any:
        x = asarray(a, dtype)
        axis = _one_axis("accumulate", x, axis)
        return on_bools(x, axis, DType.bool) if _dtype(x) is DType.bool else scan_values(x, axis)

    return accumulate


def _accumulate_logaddexp(a: ArrayLike, axis: int = 0, dtype: Any = None) -> Any:
    """logaddexp.accumulate: the running logsumexp (fgrad.lax's cumlogsumexp) of `a` in `dtype`,
    else in its float dtype."""
    x = asarray(a, _float_dtype(_dtype(a)) if dtype is None else dtype)
    return reductions.lax_cumlogsumexp(x, _one_axis("accumulate", x, axis))


def _accumulate_logaddexp2(a: ArrayLike, axis: int = 0, dtype: Any = None) -> Any:
    """logaddexp2.accumulate: logaddexp.accumulate of a ln 2, over ln 2."""
    x = asarray(a, _float_dtype(_dtype(a)) if dtype is None else dtype)
    return elementwise.divide(_accumulate_logaddexp(elementwise.multiply(x, _LN2), axis), _LN2)


def _scatter(update: str, on_bools: str | None = None, dtype: Callable[..., DType] | None = None
             ) -> Callable[..., Any]:
    """The at of a ufunc that a scatter computes: `a.at[indices].<update>(b)` (a converted to
    `dtype(a, b)` if given), on a bool `a` `<on_bools>` of b read as bools."""

    def at(a: ArrayLike, indices: Any, b: ArrayLike) -> Any:
        x = asarray(a, None if dtype is None else dtype(a, b))
        ref = _IndexUpdateHelper(x)[indices]
        if on_bools is not None and _dtype(x) is DType.bool:
            return getattr(ref, on_bools)(asarray(b, DType.bool))
        return getattr(ref, update)(b)

    return at


def _bools(a: ArrayLike, b: ArrayLike) -> DType:
    return DType.bool


# Two bools add as or and multiply as and (JAX adds them as integers read back as bools): scatter max and min.
add = ufunc(elementwise.add, 2, 1, identity=0, call=elementwise.add, reduce=reductions.sum,
            accumulate=reductions.cumsum, at=_scatter("add", "max"))
multiply = ufunc(elementwise.multiply, 2, 1, identity=1, call=elementwise.multiply, reduce=reductions.prod,
                 accumulate=reductions.cumprod, at=_scatter("multiply", "min"))
subtract = ufunc(elementwise.subtract, 2, 1, call=elementwise.subtract, at=_scatter("subtract"))
maximum = ufunc(elementwise.maximum, 2, 1, call=elementwise.maximum, reduce=_reduce_extreme(reductions.max),
                accumulate=_running(reductions.lax_cummax, reductions.cumsum), at=_scatter("max", dtype=result_dtype))
minimum = ufunc(elementwise.minimum, 2, 1, call=elementwise.minimum, reduce=_reduce_extreme(reductions.min),
                accumulate=_running(reductions.lax_cummin, reductions.cumprod), at=_scatter("min", dtype=result_dtype))
logical_and = ufunc(elementwise.logical_and, 2, 1, identity=True, call=elementwise.logical_and,
                    reduce=_fold("reduce_and", elementwise.logical_and, True), at=_scatter("min", dtype=_bools))
logical_or = ufunc(elementwise.logical_or, 2, 1, identity=False, call=elementwise.logical_or,
                   reduce=_fold("reduce_or", elementwise.logical_or, False), at=_scatter("max", dtype=_bools))
logical_xor = ufunc(elementwise.logical_xor, 2, 1, identity=False, call=elementwise.logical_xor,
                    reduce=_fold("reduce_xor", elementwise.logical_xor, False))
bitwise_and = ufunc(bitwise.bitwise_and, 2, 1, identity=-1, call=bitwise.bitwise_and,
                    reduce=_fold("reduce_and", bitwise.bitwise_and, -1))
bitwise_or = ufunc(bitwise.bitwise_or, 2, 1, identity=0, call=bitwise.bitwise_or,
                   reduce=_fold("reduce_or", bitwise.bitwise_or, 0))
bitwise_xor = ufunc(bitwise.bitwise_xor, 2, 1, identity=0, call=bitwise.bitwise_xor,
                    reduce=_fold("reduce_xor", bitwise.bitwise_xor, 0))
logaddexp = ufunc(elementwise.logaddexp, 2, 1, identity=-math.inf, call=elementwise.logaddexp,
                  reduce=_reduce_logaddexp, accumulate=_accumulate_logaddexp)
logaddexp2 = ufunc(elementwise.logaddexp2, 2, 1, identity=-math.inf, call=elementwise.logaddexp2,
                   reduce=_reduce_logaddexp2, accumulate=_accumulate_logaddexp2)
negative = ufunc(elementwise.negative, 1, 1, name="negative", call=elementwise.negative)
