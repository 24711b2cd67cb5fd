"""`jax.debug`'s callbacks: `fg.debug.print` and `fg.debug.callback` call Python for its
effect from a traced or compiled program, with the values the program computes.

Compiled, the program reads the operands back where the call falls among its kernels and
calls the function there: in a loop, every iteration. Under `vmap` the function is called
once per element of the batch, under `grad` with the primal values, as in JAX. Unlike a pure
callback, a debug callback is never dropped because nothing reads it, nor merged with another.
"""

from __future__ import annotations

import functools
import string
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fgrad.errors import InputError
from fgrad.numpy import asarray
from fgrad.primitives.callbacks import debug_callback_p, split_arguments
from fgrad.trace import bind, user_site

__all__ = ["callback", "print"]


def callback(callback: Callable[..., Any] | None = None, *args: Any, ordered: bool = False,
             partitioned: bool = False, **kwargs: Any) -> Any:
    """Call `callback(*args, **kwargs)` for its effect, with NumPy arrays for the traced values
    (leaves that are not arrays, such as strings, are passed as they are); returns None. As
    JAX's, it may also be called in two steps: `fg.debug.callback(ordered=True)(fn, x)`.
    `ordered` and `partitioned` are accepted for JAX's signature: a program's callbacks are
    called in the order of its kernels, on its one device."""
    if callback is None:
        if args or kwargs:
            raise InputError(f"debug.callback: the two-step form takes options first, then the callback; got "
                             f"arguments {args} {kwargs}", user_site())
        return functools.partial(_callback, ordered=ordered, partitioned=partitioned)
    return _callback(callback, *args, ordered=ordered, partitioned=partitioned, **kwargs)


def _callback(fn: Callable[..., Any], *args: Any, ordered: bool = False, partitioned: bool = False,
              **kwargs: Any) -> None:
    if not callable(fn):
        raise InputError(f"debug.callback: the callback must be callable, got a {type(fn).__name__}", user_site())
    call, operands = split_arguments(fn, args, kwargs)
    bind(debug_callback_p, *(asarray(x) for x in operands), callback=call)


@dataclass(frozen=True)
class _Printer:
    """What `print` calls: the format and NumPy's print options when it was traced."""

    fmt: str
    options: tuple[tuple[str, Any], ...]
    placeholders: bool

    def __repr__(self) -> str:
        return f"print({self.fmt!r})"

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if self.placeholders:
            with np.printoptions(**dict(self.options)):
                message = self.fmt.format(*args, **kwargs)
        else:
            message = " ".join((self.fmt, *(str(a) for a in args)))
        sys.stdout.write(message + "\n")


class _FormatCheck(string.Formatter):
    """Formats nothing: finds the arguments a format leaves unused, as JAX's check does."""

    def __init__(self, site: str | None):
        self.site = site

    def format_field(self, value: Any, format_spec: str) -> str:
        return ""

    def check_unused_args(self, used_args: Any, args: Any, kwargs: Any) -> None:
        unused = [a for k, a in enumerate(args) if k not in used_args]
        unused_names = [k for k in kwargs if k not in used_args]
        if unused:
            raise InputError(f"debug.print: positional arguments the format does not use: {unused}", self.site)
        if unused_names:
            raise InputError(f"debug.print: keyword arguments the format does not use: {unused_names}; an f-string "
                             "is formatted before tracing: pass a plain format string (\"{x}\", x=x)", self.site)


def print(fmt: str | None = None, *args: Any, ordered: bool = False, partitioned: bool = False,  # noqa: A001
          skip_format_check: bool = False, **kwargs: Any) -> Any:
    """Print `fmt.format(*args, **kwargs)` with the values the program computes, as
    `jax.debug.print`: `fg.debug.print("loss {l}", l=loss)`. A format without placeholders
    prints the arguments after it, separated by spaces. Arguments the format leaves unused are
    an error (an f-string is formatted too early), unless `skip_format_check`. Arrays print
    with NumPy's print options of the moment it is traced. Two steps work as in JAX:
    `fg.debug.print(ordered=True)("{x}", x=x)`."""
    if fmt is None:
        if args or kwargs:
            raise InputError(f"debug.print: the two-step form takes options first, then the format; got "
                             f"arguments {args} {kwargs}", user_site())
        return functools.partial(print, ordered=ordered, partitioned=partitioned, skip_format_check=skip_format_check)
    if not isinstance(fmt, str):
        raise InputError(f"debug.print: the format must be a str, got a {type(fmt).__name__}", user_site())
    if not skip_format_check:
        site = user_site()
        try:
            _FormatCheck(site).format(fmt, *args, **kwargs)
        except InputError:  # arguments the format leaves unused
            raise
        except (IndexError, KeyError, ValueError) as e:  # a field the arguments lack, a malformed format
            raise InputError(f"debug.print: the format {fmt!r} does not fit its arguments: {type(e).__name__}: {e}",
                             site) from None
    placeholders = bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None
    printer = _Printer(fmt, tuple(np.get_printoptions().items()), placeholders)
    _callback(printer, *args, **kwargs)
    return None
