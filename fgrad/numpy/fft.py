"""`jax.numpy.fft`'s real-valued helpers: the sample frequencies (`fftfreq`, `rfftfreq`) and the
shifts that put the zero frequency in the middle (`fftshift`, `ifftshift`), traced like every
fgrad function. The transforms themselves give complex values, a dtype fgrad does not have: each
is an error that says so (a power spectrum is real: `fg.scipy.signal.welch` computes one)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fgrad.errors import DTypeError, InputError, ShapeError
from fgrad.ir import DType
from fgrad.numpy.creation import arange
from fgrad.numpy.elementwise import astype, divide, where
from fgrad.numpy.indexing import roll
from fgrad.numpy.promotion import ArrayLike, _as_dtype, _placed, _shape
from fgrad.trace import Tensor, user_site

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "irfft",
    "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]


def _length(n: Any, who: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"{who}: n must be a positive int (the window length), got {n!r}", user_site())
    return n


def fftfreq(n: int, d: ArrayLike = 1.0, *, dtype: Any = None, device: Any = None) -> Tensor | Any:
    """The sample frequencies of an n-point transform with sample spacing `d`: [0, 1, ...,
    (n - 1) // 2, -(n // 2), ..., -1] / (d n), as `jnp.fft.fftfreq`; `device` places them, as
    `fg.asarray`'s."""
    n = _length(n, "fftfreq")
    k = arange(n, dtype=DType.i32)
    k = where(k < (n + 1) // 2, k, k - n)
    return _placed("fftfreq", astype(divide(k, d * n), _as_dtype(dtype) if dtype is not None else DType.f32), device)


def rfftfreq(n: int, d: ArrayLike = 1.0, *, dtype: Any = None, device: Any = None) -> Tensor | Any:
    """The sample frequencies of an n-point real transform: [0, 1, ..., n // 2] / (d n), as
    `jnp.fft.rfftfreq`; `device` places them, as `fg.asarray`'s."""
    n = _length(n, "rfftfreq")
    out = divide(arange(n // 2 + 1, dtype=DType.i32), d * n)
    return _placed("rfftfreq", astype(out, _as_dtype(dtype) if dtype is not None else DType.f32), device)


def _shifted(name: str, x: ArrayLike, axes: int | Sequence[int] | None, sign: int) -> Tensor | Any:
    shape = _shape(x)
    axes = tuple(range(len(shape))) if axes is None else (axes,) if isinstance(axes, int) else tuple(axes)
    if not all(isinstance(a, int) and not isinstance(a, bool) and -len(shape) <= a < len(shape) for a in axes):
        raise ShapeError(f"{name}: axes must be axes of the value's shape {shape}, got {axes}", user_site())
    return roll(x, tuple(sign * (shape[a] // 2) for a in axes), axes)


def fftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Tensor | Any:
    """`x` with the zero frequency moved to the middle of `axes` (all by default), as `jnp.fft.fftshift`."""
    return _shifted("fftshift", x, axes, 1)


def ifftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Tensor | Any:
    """The inverse of `fftshift`, as `jnp.fft.ifftshift`."""
    return _shifted("ifftshift", x, axes, -1)


def _complex(name: str) -> Callable[..., Any]:
    def transform(*args: Any, **kwargs: Any) -> Any:
        raise DTypeError(f"fft.{name}: gives complex values, and fgrad has no complex dtype; for a power spectrum, "
                         "fg.scipy.signal.welch is real throughout", user_site())

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"`jnp.fft.{name}`: an error (complex results; fgrad has no complex dtype)."
    return transform


fft, ifft, fft2, ifft2, fftn, ifftn = (_complex(n) for n in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"))
rfft, irfft, rfft2, irfft2, rfftn, irfftn = (_complex(n) for n in ("rfft", "irfft", "rfft2", "irfft2", "rfftn",
                                                                   "irfftn"))
hfft, ihfft = _complex("hfft"), _complex("ihfft")
