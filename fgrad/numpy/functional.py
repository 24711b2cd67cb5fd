"""Functions that apply functions: vectorize, apply_along_axis, apply_over_axes, piecewise.

As in jax.numpy, none of them loops over the values: `vectorize` and `apply_along_axis` call the
function once inside `fg.vmap` (one batched program), `apply_over_axes` once per axis, and
`piecewise` calls every function on the whole of x and picks among the results with `where`.
So the functions must be written with fgrad's operations, and each traces, differentiates and
compiles as the operations it is made of.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from fgrad.errors import ShapeError, TraceError
from fgrad.ir import DType
from fgrad.transforms.batching import vmap
from fgrad.trace import Tensor, user_site
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _one_axis, _shape, asarray
from fgrad.numpy.shapes import _operands, broadcast_shapes, broadcast_to, expand_dims, squeeze
from fgrad.numpy.elementwise import astype, where

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise", "vectorize"]  # re-exported by fgrad.numpy and fgrad

# NumPy's generalized-ufunc signatures, e.g. "(m,n),(n)->(m)": core dimensions by name.
_DIMENSION = r"\w+"
_ARGUMENT = rf"\((?:{_DIMENSION}(?:,{_DIMENSION})*)?\)"
_ARGUMENTS = rf"{_ARGUMENT}(?:,{_ARGUMENT})*"
_SIGNATURE = rf"^{_ARGUMENTS}->{_ARGUMENTS}$"

CoreDims = tuple[str, ...]


def _parse_signature(signature: str) -> tuple[list[CoreDims], list[CoreDims]]:
    """The core dimensions of each input and each output of a gufunc signature."""
    if not isinstance(signature, str) or not re.match(_SIGNATURE, signature):
        raise ShapeError(f"vectorize: not a valid gufunc signature: {signature!r}; write one as NumPy does, e.g. "
                         "'(m,n),(n)->(m)' (no spaces)", user_site())
    ins, outs = ([tuple(re.findall(_DIMENSION, arg)) for arg in re.findall(_ARGUMENT, side)]
                 for side in signature.split("->"))
    return ins, outs


def _core_sizes(sizes: dict[str, Any], shape: tuple, core: CoreDims, what: str, context: str) -> None:
    """Check `shape`'s trailing core dimensions against the sizes seen so far, and record new ones."""
    core_shape = shape[len(shape) - len(core):] if core else ()
    for dim, size in zip(core, core_shape):
        if sizes.setdefault(dim, size) != size:
            raise ShapeError(f"vectorize: inconsistent size for core dimension {dim!r}: {size} in {what} of shape "
                             f"{shape}, {sizes[dim]} before ({context})", user_site())


def _checking_outputs(func: Callable[..., Any], sizes: dict[str, Any], outs: list[CoreDims],
                      context: str) -> Callable[..., Any]:
    """`func`, checking that it returns one array per output of the signature, with its core shape."""
    def checked(*args: Any) -> Any:
        out = func(*args)
        if len(outs) > 1 and not isinstance(out, tuple):
            raise TraceError(f"vectorize: the function must return a tuple of {len(outs)} arrays, got "
                             f"{_brief(out)} ({context})", user_site())
        shapes = [_shape(o) for o in (out if isinstance(out, tuple) else (out,))]
        if len(shapes) != len(outs):
            raise TraceError(f"vectorize: the function returned {len(shapes)} outputs for the signature's "
                             f"{len(outs)} ({context})", user_site())
        seen = dict(sizes)
        for k, (shape, core) in enumerate(zip(shapes, outs)):
            if len(shape) != len(core):
                raise ShapeError(f"vectorize: output {k} of shape {shape} does not match the core dimensions "
                                 f"{core} ({context})", user_site())
            _core_sizes(seen, shape, core, f"output {k}", context)
        return out
    return checked


def _without_excluded(func: Callable[..., Any], excluded: Collection[int | str], args: Sequence[Any],
                      kwargs: dict[str, Any]) -> tuple[Callable[..., Any], list[Any], dict[str, Any]]:
    """`func` with the excluded positional and keyword arguments given, and the arguments left."""
    static = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int)) if i < len(args)]
    static_kwargs = {k: v for k, v in kwargs.items() if k in excluded}
    if not static and not static_kwargs:
        return func, list(args), kwargs

    def given(*rest: Any, **more: Any) -> Any:
        full = list(rest)
        for i, arg in static:
            full.insert(i, arg)
        return func(*full, **more, **static_kwargs)

    return (given, [a for i, a in enumerate(args) if i not in excluded],
            {k: v for k, v in kwargs.items() if k not in excluded})


def vectorize(pyfunc: Callable[..., Any], *, excluded: Collection[int | str] = frozenset(),
              signature: str | None = None) -> Callable[..., Any]:
    """`pyfunc`, written for one example, made to broadcast over leading axes, as `jnp.vectorize`:
    through `fg.vmap` (one batched program), not a Python loop.

    Args:
        pyfunc: the function of one example: of scalars, or of arrays with the core shapes of
            `signature`.
        excluded: the positions (ints) and keywords (strs) of the arguments passed to pyfunc as
            they are, not vectorized.
        signature: a NumPy gufunc signature, e.g. '(m,n),(n)->(m)': the trailing core axes of
            each input pyfunc sees, and of each output it must return (a tuple for several).
            Without it every input is mapped down to scalars and the outputs may have any shape.
    Returns:
        The vectorized function. The leading (non-core) axes of its arguments broadcast as in
        NumPy; a None positional argument is passed through as None. Keyword arguments not in
        `excluded` are refused (jax.numpy silently drops them).
    """
    if any(not isinstance(e, (int, str)) or isinstance(e, bool) for e in excluded):
        raise TraceError(f"vectorize: excluded holds only ints (positions) and strs (keywords), got {excluded!r}",
                         user_site())
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise TraceError(f"vectorize: excluded={excluded!r} holds a negative position", user_site())
    parsed = None if signature is None else _parse_signature(signature)
    context = f"vectorized function with excluded={excluded!r} and signature={signature!r}"

    @functools.wraps(pyfunc)
    def vectorized(*args: Any, **kwargs: Any) -> Any:
        func, args, kwargs = _without_excluded(pyfunc, excluded, args, kwargs)
        if kwargs:
            raise TraceError(f"vectorize: keyword argument {next(iter(kwargs))!r} is not in excluded; pass it "
                             "positionally to map it, or name it in excluded to pass it as it is", user_site())
        ins, outs = parsed if parsed is not None else ([()] * len(args), None)
        if len(args) != len(ins):
            raise TraceError(f"vectorize: the signature {signature!r} takes {len(ins)} positional arguments, got "
                             f"{len(args)}", user_site())
        nones = [i for i, a in enumerate(args) if a is None]
        if nones:
            if any(ins[i] for i in nones):
                raise ShapeError(f"vectorize: cannot pass None at positions {nones} with signature={signature!r}",
                                 user_site())
            func, args, _ = _without_excluded(func, set(nones), args, {})
            ins = [core for i, core in enumerate(ins) if i not in nones]
        args = [asarray(a) for a in args]
        sizes: dict[str, Any] = {}
        loop_shapes = []
        for k, (arg, core) in enumerate(zip(args, ins)):
            shape = _shape(arg)
            if len(shape) < len(core):
                raise ShapeError(f"vectorize: input {k} of shape {shape} does not have enough axes for the core "
                                 f"dimensions {core} ({context})", user_site())
            _core_sizes(sizes, shape, core, f"input {k}", context)
            loop_shapes.append(shape[:len(shape) - len(core)])
        batch = broadcast_shapes(*loop_shapes)
        fn = func if outs is None else _checking_outputs(func, sizes, outs, context)
        # Each argument's axes of size 1 are dropped, not broadcast: vmap maps only the arguments
        # that have the axis, and an axis no argument has is added to the result at the end.
        reversed_shapes, squeezed = [], []
        for arg, loop in zip(args, loop_shapes):
            reversed_shapes.append(((1,) * (len(batch) - len(loop)) + loop)[::-1])
            ones = tuple(i for i, d in enumerate(loop) if d == 1)
            squeezed.append(squeeze(arg, ones) if ones else arg)
        added = []
        for back, sizes_here in enumerate(zip(*reversed_shapes)):
            in_axes = tuple(None if d == 1 else 0 for d in sizes_here)
            if all(a is None for a in in_axes):
                added.append(len(batch) - 1 - back)
            else:
                fn = vmap(fn, in_axes)
        result = fn(*squeezed)
        if not added:
            return result
        if isinstance(result, tuple):
            return tuple(expand_dims(r, added) for r in result)
        return expand_dims(result, added)

    return vectorized


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: ArrayLike, *args: Any, **kwargs: Any
                     ) -> Tensor | np.ndarray:
    """`func1d(slice, *args, **kwargs)` of each 1-D slice of `arr` along `axis`, as
    `jnp.apply_along_axis`: through `fg.vmap` over every other axis. The result's axes of one
    call take the place of `axis` (none for a scalar result)."""
    x = asarray(arr)
    ndim = len(_shape(x))
    axis = _one_axis("apply_along_axis", x, axis)

    def func(a: Any) -> Any:
        return func1d(a, *args, **kwargs)

    for i in range(1, ndim - axis):  # the axes after `axis`, mapped to the result's last
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):  # the axes before it, mapped to the result's first
        func = vmap(func, in_axes=0, out_axes=0)
    return func(x)


def apply_over_axes(func: Callable[[Any, int], Any], a: ArrayLike, axes: int | Sequence[int]
                    ) -> Tensor | np.ndarray:
    """`func(a, axis)` for each of `axes` in turn, each on the last one's result, as
    `jnp.apply_over_axes`: func keeps the axis or drops it (then it is put back with size 1),
    so a reduction gives what it gives with keepdims=True."""
    x = asarray(a)
    for axis in (axes,) if isinstance(axes, (int, np.integer)) else axes:
        out = asarray(func(x, axis))
        ndim, got = len(_shape(x)), len(_shape(out))
        if got == ndim - 1:
            out = expand_dims(out, axis)
        elif got != ndim:
            raise ShapeError(f"apply_over_axes: func(a, {axis}) of a of shape {_shape(x)} gave shape {_shape(out)}; "
                             f"it must keep {ndim} axes or drop one", user_site())
        x = out
    return x


def piecewise(x: ArrayLike, condlist: ArrayLike | Sequence[ArrayLike], funclist: Sequence[Any], *args: Any,
              **kw: Any) -> Tensor | np.ndarray:
    """A function defined piece by piece, as `jnp.piecewise`: where condlist[k] holds,
    funclist[k](x, *args, **kw) (or the constant funclist[k]); the last condition that holds
    wins; where none does, funclist[len(condlist)] if given, else 0. In x's dtype, of the shape
    of x and the conditions broadcast. Each function is called once on the whole of x (so it
    must be elementwise, as jax.numpy calls it on each value) and the pieces picked with `where`;
    condlist is a sequence of conditions, or an array of them along axis 0."""
    x = asarray(x)
    dt = _dtype(x)
    conds = [astype(asarray(c), DType.bool) for c in _operands("piecewise", condlist)]
    if not isinstance(funclist, (list, tuple)):
        raise TraceError(f"piecewise: funclist must be a list of functions and constants, got {_brief(funclist)}",
                         user_site())
    nc, nf = len(conds), len(funclist)
    if nf == nc + 1:
        default, pieces = funclist[-1], list(funclist[:-1])
    elif nf == nc:
        default, pieces = 0, list(funclist)
    else:
        raise ShapeError(f"piecewise: with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got "
                         f"{nf}", user_site())

    def value(f: Any) -> Tensor | np.ndarray:
        return astype(asarray(f(x, *args, **kw)), dt) if callable(f) else asarray(f, dt)

    out = value(default)
    for cond, f in zip(conds, pieces):
        out = where(cond, value(f), out)
    return broadcast_to(out, broadcast_shapes(_shape(x), *(_shape(c) for c in conds)))
