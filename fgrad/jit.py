"""`fg.jit`: trace and compile a Python function once per argument signature, as `jax.jit`; and
`fg.pmap`, jit of a vmap naming its axis (fgrad's one device runs every example).

Static arguments (configs, flags, sizes) are passed to the function as Python
values and keyed by value; the others are traced. Each signature's Executable
is kept by a `Staged` cache (fgrad/trace.py), which also runs a call made
inside another trace in place.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from fgrad.errors import FgradError, InputError, TraceError
from fgrad.ir import Graph
from fgrad.lower import Program, lower as lower_graph
from fgrad.pytree import flatten, leaf_paths
from fgrad.config import config
from fgrad.runtime import Executable, check_placement, compile, trace_and_compile
from fgrad.sharding import check_sharding
from fgrad.trace import Staged, _arg_names, positions_of, spec_of, trace_function, user_site, with_fixed
from fgrad.transforms.batching import vmap


def disable_jit(disable: bool = True) -> contextlib.AbstractContextManager[None]:
    """Within the block, `fg.jit`-ed functions run their Python as it is, eagerly (each op on
    NumPy arrays, or on the arguments' fg.Arrays), instead of compiling, as `jax.disable_jit`:
    for print and pdb inside them. Nothing is donated then. (The option `jax_disable_jit` of
    `fg.config` does the same for the whole process.)"""
    return config.local("jax_disable_jit", disable)


_NO_FUNCTION = object()  # jit's function not given: jit(static_argnums=1) is a decorator


def jit(fn: Any = _NO_FUNCTION, /, *, in_shardings: Any = None, out_shardings: Any = None,
        static_argnums: int | Sequence[int] | None = None, static_argnames: str | Sequence[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None, donate_argnames: str | Sequence[str] | None = None,
        keep_unused: bool = False, device: Any = None, backend: str | None = None, inline: bool = False,
        compiler_options: dict[str, Any] | None = None) -> Callable[..., Any]:
    """Trace `fn` on the first call per argument signature, compile it, and run it on the device, as `jax.jit`.

    Arguments, positional or keyword, are pytrees of arrays and numbers, traced, except the static ones:
    `static_argnums` (positions) and `static_argnames` (keywords) are passed to `fn` as Python values
    (configs, flags, sizes); they must be hashable, and each new value traces and compiles again.
    `donate_argnums` and `donate_argnames` donate arguments as `compile` does. As in JAX, when only the
    numbers or only the names are given, the other is found through `fn`'s signature. Inside another
    trace, `fn` is simply traced in place. Without `fn`, `jit(static_argnums=1)` returns a decorator
    taking it, as JAX's.

    JAX's other keywords, as far as one device gives them a meaning: `device` None or one of
    `fg.local_devices()` (the program runs there), `backend` None or `fg.default_backend()`;
    `in_shardings` and `out_shardings` None or pytrees (prefixes) of shardings of the one device
    (`fg.sharding`: whole arrays there; shard across devices through `fg.export.to_jax`); `keep_unused` and `inline` bools, with no effect (every argument stays an
    input of the program, and a jit called inside another trace is inlined there already);
    `compiler_options` None or an empty dict (fgrad's compiler takes no options).
    """
    site = user_site()
    options = dict(in_shardings=in_shardings, out_shardings=out_shardings, static_argnums=static_argnums,
                   static_argnames=static_argnames, donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                   keep_unused=keep_unused, device=device, backend=backend, inline=inline,
                   compiler_options=compiler_options)
    if fn is _NO_FUNCTION:
        return functools.partial(jit, **options)
    if not callable(fn):
        raise TraceError(f"jit: expected a function, got a {type(fn).__name__}", site)
    for name in ("in_shardings", "out_shardings"):
        for sharding in flatten(options[name])[0]:
            if sharding is not None:
                check_sharding(f"jit: {name}", sharding)
    for name in ("keep_unused", "inline"):
        if not isinstance(options[name], (bool, np.bool_)):
            raise InputError(f"jit: {name} must be a bool, got {options[name]!r}", site)
    if compiler_options is not None and (not isinstance(compiler_options, dict) or compiler_options):
        raise InputError(f"jit: compiler_options={compiler_options!r}: fgrad's compiler takes no options; leave it "
                         "None or {}", site)
    check_placement("jit", site, device=device, backend=backend)
    static = _argnums_and_argnames(fn, static_argnums, static_argnames, "static", site)
    donate = _argnums_and_argnames(fn, donate_argnums, donate_argnames, "donate", site)
    both = [*sorted(set(static[0]) & set(donate[0])), *sorted(set(static[1]) & set(donate[1]))]
    if both:
        raise InputError(f"jit: arguments {both} are both static and donated; a static argument has no buffer", site)
    staged: Staged[Executable] = Staged(_name(fn))

    def split(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """The call's traced values, its key beside their signature, the static values, how to trace
        it, how to name a refused argument and the values' names: (values, key, fixed, graph, refused, names)."""
        static_at = positions_of(static[0], len(args))
        positions = [i for i in range(len(args)) if i not in static_at]
        keywords = sorted(k for k in kwargs if k not in static[1])
        fixed = tuple((i, args[i]) for i in sorted(static_at)) + tuple(
            (k, kwargs[k]) for k in sorted(kwargs) if k in static[1])
        values = tuple([args[i] for i in positions] + [kwargs[k] for k in keywords])

        def names() -> list[str]:  # of the traced values: read off the signature when tracing (or explaining)
            arg_names = _arg_names(fn, len(args))
            return [arg_names[i] for i in positions] + keywords

        def graph() -> tuple[Graph, tuple[int, ...]]:
            donated_at = positions_of(donate[0], len(args))

            def traced(*dynamic: Any) -> Any:
                full, named = list(args), dict(kwargs)
                for i, value in zip(positions, dynamic):
                    full[i] = value
                named.update(zip(keywords, dynamic[len(positions):]))
                return fn(*full, **named)

            donated = [k for k, i in enumerate(positions) if i in donated_at]
            donated += [len(positions) + k for k, name in enumerate(keywords) if name in donate[1]]
            return trace_function(traced, values, names())[0], tuple(donated)

        refused = lambda e: _refused(fn, len(args), positions, keywords, fixed, values, user_site())  # noqa: E731
        return values, (tuple(positions), tuple(keywords), fixed), fixed, graph, refused, names

    def run(*args: Any, **kwargs: Any) -> Any:
        if config.jax_disable_jit:
            return fn(*args, **kwargs)
        values, key, fixed, graph, refused, names = split(args, kwargs)

        def build() -> Executable:
            return trace_and_compile(run.__name__, graph, device)

        exe = staged.product(values, key, build, also=fixed, refused=refused, names=names)
        return fn(*args, **kwargs) if exe is None else exe(*values)

    def lower(*args: Any, **kwargs: Any) -> Lowered:
        """The traced and lowered program for these arguments, as `jax.jit(f).lower(...)`."""
        traced, donated = split(args, kwargs)[3]()
        return Lowered(traced, donated, device)

    run.__wrapped__ = fn  # type: ignore[attr-defined]
    run.lower = lower  # type: ignore[attr-defined]
    run.__name__ = _name(fn)
    run.__doc__ = fn.__doc__
    return run


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", "fn")


def _refused(fn: Callable[..., Any], nargs: int, positions: list[int], keywords: list[str],
             fixed: tuple[tuple[Any, Any], ...], values: tuple[Any, ...], site: str | None) -> Exception:
    """The error for a `jit` call whose static arguments cannot be hashed or whose traced leaves are not arrays
    (the argument names are read off the signature only here and on a cache miss: calls stay cheap)."""
    positional_names = _arg_names(fn, nargs)
    names = [positional_names[i] for i in positions] + keywords
    for where, value in fixed:
        try:
            hash(value)
        except TypeError:
            name = positional_names[where] if isinstance(where, int) else where
            return InputError(f"jit: static argument {name} is a {type(value).__name__}, which is not hashable; "
                              "static values are part of the compile cache key: pass a hashable value (a tuple, "
                              "a frozen dataclass)", site)
    leaves, tree = flatten(values)
    paths = [(k, path) for k, sub in enumerate(tree.children) for path in leaf_paths(sub, prefix=names[k])]
    for (k, path), leaf in zip(paths, leaves):
        try:
            spec_of(leaf, path)
        except TraceError:  # not an array or a number
            where = f"static_argnums={positions[k]}" if k < len(positions) else f"static_argnames={names[k]!r}"
            return InputError(f"jit: argument {path} is a {type(leaf).__name__}, not an array; a Python value such "
                              f"as a config or a flag must be static: fg.jit({_name(fn)}, {where})", site)
        except FgradError as e:  # an array of a dtype fgrad lacks
            return type(e)(f"jit: {e}", site)
    raise AssertionError("jit: a call was refused for no reason found")


def _argnums_and_argnames(fn: Callable[..., Any], argnums: int | Sequence[int] | None,
                          argnames: str | Sequence[str] | None, what: str,
                          site: str | None) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """`jit`'s {what}_argnums and {what}_argnames, checked against `fn`'s signature; when only one is given,
    the other names the same positional-or-keyword parameters, as in JAX."""
    nums = () if argnums is None else (argnums,) if isinstance(argnums, int) else argnums
    names = () if argnames is None else (argnames,) if isinstance(argnames, str) else argnames
    if not (isinstance(nums, (tuple, list)) and all(isinstance(n, int) for n in nums)
            and isinstance(names, (tuple, list)) and all(isinstance(n, str) for n in names)):
        raise InputError(f"jit: {what}_argnums must be ints and {what}_argnames strings, got {argnums!r} and "
                         f"{argnames!r}", site)
    nums, names = tuple(nums), tuple(names)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: take the numbers and names as given
        return nums, names
    kinds = {p.kind for p in params}
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keyword = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    shown = f"{_name(fn)}{inspect.signature(fn)}"
    if inspect.Parameter.VAR_POSITIONAL not in kinds and any(not -len(positional) <= n < len(positional) for n in nums):
        raise InputError(f"jit: {what}_argnums={argnums!r} is out of range for {shown}", site)
    if inspect.Parameter.VAR_KEYWORD not in kinds and any(n not in keyword for n in names):
        raise InputError(f"jit: {what}_argnames={argnames!r} names no keyword parameter of {shown}", site)
    if argnames is None:
        names = tuple(p.name for i, p in enumerate(params) if p.kind is p.POSITIONAL_OR_KEYWORD and i in nums)
    elif argnums is None:
        nums = tuple(i for i, p in enumerate(params) if p.kind is p.POSITIONAL_OR_KEYWORD and p.name in names)
    return nums, names


def pmap(fun: Callable[..., Any], axis_name: Hashable | None = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: int | Sequence[int] = (), devices: Sequence[Any] | None = None,
         backend: str | None = None, axis_size: int | None = None,
         donate_argnums: int | Sequence[int] = ()) -> Callable[..., Any]:
    """Map `fun` over an axis of its arguments, one example per device, as `jax.pmap`.

    fgrad computes on one device, so every example runs there, in one program:
    `pmap(f, "i")` is `jit(vmap(f, in_axes, out_axes, axis_name="i"))`, and `f` combines its
    examples with `fg.lax.psum` and the other collectives over "i". Where JAX needs as many
    devices as examples, fgrad takes any number. `static_broadcasted_argnums` are passed to `fun`
    as Python values (hashable; each new value compiles again), as jit's `static_argnums`; a tuple
    `in_axes` has an entry for every positional argument, static ones too (ignored there).
    `devices` may name only fgrad's own devices and `backend` only `default_backend()`.
    """
    site = user_site()
    if not callable(fun):
        raise TraceError(f"pmap: expected a function, got a {type(fun).__name__}", site)
    static = (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int) \
        else static_broadcasted_argnums
    if not (isinstance(static, (tuple, list)) and all(type(n) is int for n in static)):
        raise InputError(f"pmap: static_broadcasted_argnums must be ints, got {static_broadcasted_argnums!r}", site)
    check_placement("pmap", site, devices=devices, backend=backend)
    name = _name(fun)

    def mapped(*args: Any, **kwargs: Any) -> Any:
        fixed = positions_of(static, len(args))
        dynamic = [k for k in range(len(args)) if k not in fixed]
        axes = tuple(in_axes[k] for k in dynamic) if isinstance(in_axes, (tuple, list)) and \
            len(in_axes) == len(args) else in_axes

        example = with_fixed(fun, {k: args[k] for k in fixed}, len(args))
        example.__name__ = name
        return vmap(example, axes, out_axes, axis_name, axis_size)(*(args[k] for k in dynamic), **kwargs)

    mapped.__name__ = name
    return jit(mapped, static_argnums=tuple(static), donate_argnums=donate_argnums)


class Lowered:
    """A jitted function's program for one signature: `.graph` (`.as_text()` prints it), `.kernels`
    (each kernel's name and WGSL, lowered without a device), `.compile()` the Executable."""

    def __init__(self, graph: Graph, donate_argnums: tuple[int, ...], device: Any = None):
        self.graph, self.donate_argnums, self.device = graph, donate_argnums, device
        self._program: Program | None = None

    def as_text(self) -> str:
        """The graph, one node a line, as `jax.jit(f).lower(...).as_text()` shows its module."""
        return str(self.graph)

    @property
    def kernels(self) -> list[Any]:
        if self._program is None:
            self._program = lower_graph(self.graph)
        return list(self._program.kernels)

    def compile(self) -> Executable:
        """The Executable on jit's device (`.peak_bytes`, `.kernels`; `fg.profile` takes it)."""
        return compile(self.graph, self.device, donate_argnums=self.donate_argnums)
