"""jax.numpy's names for values on the host: the abstract type of fgrad values (`fg.Array`, which
`ndarray` is, for isinstance), arrays from bytes and text, printing and its options. They work on
concrete values and follow JAX's (which follows NumPy's)."""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from fgrad.errors import InputError, TraceError
from fgrad.numpy.promotion import ArrayLike, asarray
from fgrad.trace import HostArray, Tensor, user_site

__all__ = [
    "array_repr", "array_str", "frombuffer", "fromiter", "fromstring", "get_printoptions", "iterable", "load",
    "ndarray", "printoptions", "save", "savez", "set_printoptions",
]


class Array(abc.ABC):
    """The type of every fgrad value, as `jax.Array` (which `jnp.ndarray` is): an eager value
    (fg.HostArray), a traced one (fg.Tensor) and an array on the device (`fgrad.runtime.Array`,
    which `fg.device_put` and compiled calls return); not a plain NumPy array. For
    `isinstance(x, fg.Array)`, as JAX code tests `isinstance(x, jax.Array)`, inside a trace too."""


ndarray = Array  # jax.numpy's name for it
Array.register(HostArray)
Array.register(Tensor)

# NumPy's files, as jax.numpy's: an fgrad value is saved through its NumPy value (a traced one refuses,
# naming the file call), and `load` gives fgrad values.
save, savez = np.save, np.savez


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """`np.load`, an array read as an fgrad value (float64 as f32, x64 off), as `jnp.load`; an .npz
    file's archive is returned as NumPy's."""
    out = np.load(file, *args, **kwargs)
    return asarray(out) if isinstance(out, np.ndarray) else out


# NumPy's print options: fgrad values print as NumPy arrays.
get_printoptions, printoptions, set_printoptions = np.get_printoptions, np.printoptions, np.set_printoptions


def _concrete(x: ArrayLike, who: str) -> np.ndarray:
    if isinstance(x, Tensor):
        raise TraceError(f"{who}: the value of a traced Tensor {x.spec} is known only at call time; use "
                         "fg.debug.print to print it as the program runs", user_site())
    return np.asarray(x)


def array_str(a: ArrayLike, max_line_width: int | None = None, precision: int | None = None,
              suppress_small: bool | None = None) -> str:
    """The value's text, as `str` prints it (`jnp.array_str`)."""
    return np.array_str(_concrete(a, "array_str"), max_line_width, precision, suppress_small)


def array_repr(arr: ArrayLike, max_line_width: int | None = None, precision: int | None = None,
               suppress_small: bool | None = None) -> str:
    """The value's repr, NumPy's (`jnp.array_repr`)."""
    return np.array_repr(_concrete(arr, "array_repr"), max_line_width, precision, suppress_small)


def iterable(y: Any) -> bool:
    """Whether `y` can be iterated over (`jnp.iterable`, NumPy's): a 0-d value cannot."""
    return np.iterable(y)


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """The values `buffer`'s bytes hold as `dtype` (NumPy's: float reads 8-byte floats), as an
    fgrad value (f32), as `jnp.frombuffer`."""
    if isinstance(buffer, Tensor):
        raise TraceError("frombuffer: takes bytes, not a traced Tensor", user_site())
    try:
        values = np.frombuffer(buffer, _numpy_dtype(dtype, "frombuffer"), count, offset)
    except (TypeError, ValueError) as e:
        raise InputError(f"frombuffer: {e}", user_site()) from None
    return asarray(values)


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """The values in `string`, separated by `sep`, as an fgrad value (`jnp.fromstring`)."""
    try:
        values = np.fromstring(string, _numpy_dtype(dtype, "fromstring"), count, sep=sep)
    except (TypeError, ValueError) as e:
        raise InputError(f"fromstring: {e}", user_site()) from None
    return asarray(values)


def _numpy_dtype(dtype: Any, who: str) -> np.dtype:
    try:
        return np.dtype(dtype.np if hasattr(dtype, "np") else dtype)
    except TypeError:
        raise InputError(f"{who}: {dtype!r} is not a dtype", user_site()) from None


def fromiter(*args: Any, **kwargs: Any) -> Any:
    """An error, as `jnp.fromiter`: consuming an iterator is an effect a traced function cannot repeat."""
    raise InputError("fromiter: is not supported, as in JAX: consuming an iterable is not pure; use "
                     "fg.asarray(np.fromiter(...))", user_site())
