"""`jax.scipy.signal` as `fg.scipy.signal`, for real inputs: N-d convolution and cross-correlation
(`convolve`, `correlate`, their 2-d forms, `fftconvolve`), `detrend`, and `welch`'s power
spectral density.

Every convolution is one `fg.lax.conv_general_dilated`, so it traces, differentiates, batches and
compiles to WGSL. fgrad has no FFT: `method='fft'` and `fftconvolve` compute the same sums
directly (the values of an exact convolution, where JAX's FFT rounds differently), and `welch`
takes each segment's power at each frequency from products with cosines and sines (real, as
a power spectrum is). Left out: the spectral functions with complex results (`stft`, `istft`,
`csd`), and complex inputs, which fgrad has no dtype for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fgrad.errors import InputError, ShapeError, name_errors_after
from fgrad.numpy import (
    add, concatenate, divide, flip, matmul, mean, median, moveaxis, multiply, reshape, square, subtract, sum, take,
    transpose,
)
from fgrad.numpy.convolution import conv_general_dilated
from fgrad.numpy.promotion import (
    ArrayLike, _axes, _brief, _dtype, _inexact, _one_axis, _shape, asarray,
)
from fgrad.trace import Tensor, user_site

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "detrend", "fftconvolve", "welch"]

Array = Tensor | np.ndarray
MODES = ("full", "same", "valid")


def _mode(name: str, mode: str) -> None:
    if mode not in MODES:
        raise ShapeError(f"{name}: mode {mode!r} must be one of 'full', 'same', 'valid'", user_site())


def _convolve_axes(in1: Array, in2: Array, mode: str, axes: tuple[int, ...], precision: Any = None) -> Array:
    """The convolution of in1 and in2 along `axes`, elementwise along the others (which have one
    size in both): a grouped `conv_general_dilated`, one group per position of the other axes.
    'full' pads by the kernel less one, 'same' keeps in1's shape centred as SciPy does, and
    'valid' takes the larger operand as the input (the caller has checked that one is)."""
    s1, s2 = _shape(in1), _shape(in2)
    if mode == "valid" and all(s1[a] <= s2[a] for a in axes):
        in1, in2, s1, s2 = in2, in1, s2, s1
    if not axes:
        return multiply(in1, in2)
    batch = tuple(a for a in range(len(s1)) if a not in axes)
    groups = math.prod(s1[a] for a in batch)
    lhs = reshape(transpose(in1, batch + axes), (1, groups, *(s1[a] for a in axes)))
    rhs = reshape(transpose(in2, batch + axes), (groups, 1, *(s2[a] for a in axes)))
    rhs = flip(rhs, tuple(range(2, 2 + len(axes))))  # conv_general_dilated correlates: flip to convolve
    kernel = [s2[a] for a in axes]
    pads = {"full": [(k - 1, k - 1) for k in kernel], "same": [(k - 1 - (k - 1) // 2, (k - 1) // 2) for k in kernel],
            "valid": [(0, 0)] * len(axes)}[mode]
    out = conv_general_dilated(lhs, rhs, (1,) * len(axes), pads, feature_group_count=groups, precision=precision)
    out = reshape(out, tuple(s1[a] for a in batch) + _shape(out)[2:])
    return transpose(out, tuple(np.argsort(batch + axes)))


def _convolve_nd(name: str, in1: ArrayLike, in2: ArrayLike, mode: str, precision: Any) -> Array:
    """The direct N-d convolution of JAX's convolve: one rank, no empty operand, and one operand
    at least as large as the other along every axis, whatever the mode."""
    _mode(name, mode)
    in1, in2 = _inexact(in1, in2)
    s1, s2 = _shape(in1), _shape(in2)
    if len(s1) != len(s2):
        raise ShapeError(f"{name}: in1 {s1} and in2 {s2} must have the same number of dimensions", user_site())
    if 0 in s1 or 0 in s2:
        raise ShapeError(f"{name}: zero-size arrays are not supported, got in1 {s1} and in2 {s2}", user_site())
    if not (all(a >= b for a, b in zip(s1, s2)) or all(a <= b for a, b in zip(s1, s2))):
        raise ShapeError(f"{name}: one of in1 {s1} and in2 {s2} must be smaller than the other in every dimension",
                         user_site())
    return _convolve_axes(in1, in2, mode, tuple(range(len(s1))), precision)


def fftconvolve(in1: ArrayLike, in2: ArrayLike, mode: str = "full", axes: int | Sequence[int] | None = None) -> Array:
    """The N-d convolution of in1 and in2 along `axes` (default all), as
    `jax.scipy.signal.fftconvolve`, elementwise along the other axes (where the two must have one
    size). NOTE: fgrad has no FFT, so the sums are computed directly: the values of the exact
    convolution, which JAX's FFT reaches to within its rounding.

    Args:
        in1, in2: operands of one rank (integers compute in f32).
        mode: 'full' (every overlap, size n1 + n2 - 1), 'same' (in1's shape, centred) or 'valid'
            (full overlaps only; one operand must be the larger along every convolved axis).
        axes: the axes convolved.
    """
    return _fftconvolve("fftconvolve", in1, in2, mode, axes)


def _fftconvolve(name: str, in1: ArrayLike, in2: ArrayLike, mode: str, axes: int | Sequence[int] | None) -> Array:
    in1, in2 = _inexact(in1, in2)
    s1, s2 = _shape(in1), _shape(in2)
    if len(s1) != len(s2):
        raise ShapeError(f"{name}: in1 {s1} and in2 {s2} must have the same number of dimensions", user_site())
    _mode(name, mode)
    axes = _axes(name, s1, axes)
    if len(set(axes)) != len(axes):
        raise ShapeError(f"{name}: axes {axes} repeat an axis", user_site())
    if any(s1[a] != s2[a] for a in range(len(s1)) if a not in axes):
        raise ShapeError(f"{name}: in1 {s1} and in2 {s2} must have the same size along the axes not convolved "
                         f"(axes={axes})", user_site())
    if mode == "valid" and not (all(s1[a] >= s2[a] for a in axes) or all(s1[a] <= s2[a] for a in axes)):
        raise ShapeError(f"{name}: for 'valid' mode one of in1 {s1} and in2 {s2} must be at least as large as the "
                         "other in every dimension", user_site())
    return _convolve_axes(in1, in2, mode, tuple(sorted(axes)))


def convolve(in1: ArrayLike, in2: ArrayLike, mode: str = "full", method: str = "auto", precision: Any = None) -> Array:
    """The N-d convolution of in1 and in2, as `jax.scipy.signal.convolve`.

    Args:
        in1, in2: operands of one rank, neither empty; for 'auto' and 'direct' one must be at
            least as large as the other along every axis. Integers compute in f32.
        mode: 'full' (size n1 + n2 - 1 per axis), 'same' (in1's shape, centred) or 'valid'.
        method: 'auto' and 'direct' sum directly; 'fft' is `fftconvolve`, whose sums fgrad also
            computes directly (it has no FFT): the same values.
        precision: accepted and ignored, as fg.lax.conv_general_dilated does.
    """
    return _convolve("convolve", in1, in2, mode, method, precision)


def _convolve(name: str, in1: ArrayLike, in2: ArrayLike, mode: str, method: str, precision: Any) -> Array:
    if method not in ("auto", "direct", "fft"):
        raise InputError(f"{name}: method {method!r} must be 'auto', 'direct' or 'fft'", user_site())
    if method == "fft":
        return _fftconvolve(name, in1, in2, mode, None)
    return _convolve_nd(name, in1, in2, mode, precision)


def correlate(in1: ArrayLike, in2: ArrayLike, mode: str = "full", method: str = "auto", precision: Any = None) -> Array:
    """The N-d cross-correlation of in1 and in2, as `jax.scipy.signal.correlate`: `convolve` of
    in1 with in2 reversed along every axis (the same modes and methods; 'fft' too is summed
    directly)."""
    return _convolve("correlate", in1, flip(asarray(in2)), mode, method, precision)


def _two_d(name: str, in1: ArrayLike, in2: ArrayLike, boundary: str, fillvalue: Any) -> None:
    if boundary != "fill" or not (isinstance(fillvalue, (int, float, np.number)) and fillvalue == 0):
        raise InputError(f"{name}: only boundary='fill' with fillvalue=0 is supported, as in jax.scipy.signal; got "
                         f"boundary={boundary!r}, fillvalue={_brief(fillvalue)}", user_site())
    if len(_shape(in1)) != 2 or len(_shape(in2)) != 2:
        raise ShapeError(f"{name}: takes 2-d inputs, got in1 {_shape(in1)} and in2 {_shape(in2)}", user_site())


def convolve2d(in1: ArrayLike, in2: ArrayLike, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0,
               precision: Any = None) -> Array:
    """The 2-d convolution of in1 and in2, as `jax.scipy.signal.convolve2d`: `convolve` of two
    2-d arrays. Only boundary='fill' with fillvalue=0 (zeros beyond the edges) is supported, as
    in JAX."""
    _two_d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd("convolve2d", in1, in2, mode, precision)


def correlate2d(in1: ArrayLike, in2: ArrayLike, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0,
                precision: Any = None) -> Array:
    """The 2-d cross-correlation of in1 and in2, as `jax.scipy.signal.correlate2d` (SciPy's
    centring of 'same' and SciPy's choice of operand for 'valid' and 'full'). Only
    boundary='fill' with fillvalue=0 is supported, as in JAX."""
    name = "correlate2d"
    _two_d(name, in1, in2, boundary, fillvalue)
    in1, in2 = asarray(in1), asarray(in2)
    s1, s2 = _shape(in1), _shape(in2)
    swap = all(a <= b for a, b in zip(s1, s2))
    if mode == "valid" and swap and s1 != s2 or mode not in ("same", "valid") and swap:
        return _convolve_nd(name, flip(in2), in1, mode, precision)
    return flip(_convolve_nd(name, flip(in1), in2, mode, precision))


def _remove_line(segment: Array) -> Array:
    """`segment` (n, m) less, in each column, its least-squares line over the rows (n = 1: zero,
    the line through the one point)."""
    n = _shape(segment)[0]
    if n == 1:
        return subtract(segment, segment)
    t = np.arange(1, n + 1) / n
    t = (t - t.mean())[:, None]
    # The residual of a fit on span{1, t}: centre, then remove the part along the centred t.
    dtype = _dtype(segment)
    centred = subtract(segment, mean(segment, 0, keepdims=True))
    slope = sum(multiply(centred, asarray(t / (t * t).sum(), dtype)), 0, keepdims=True)
    return subtract(centred, multiply(asarray(t, dtype), slope))


def detrend(data: ArrayLike, axis: int = -1, type: str = "linear", bp: int | Sequence[int] | np.ndarray = 0,
            overwrite_data: None = None) -> Array:
    """`data` less its trend along `axis`, as `jax.scipy.signal.detrend`.

    Args:
        data: the array (integers compute in f32).
        axis: the axis along which the trend is fitted.
        type: 'linear' (each segment less its least-squares line) or 'constant' (less its mean).
        bp: for 'linear', static breakpoints in [0, n] splitting the axis into segments fitted
            separately.
        overwrite_data: must be None (JAX does not implement it).
    """
    name = "detrend"
    if overwrite_data is not None:
        raise InputError(f"{name}: overwrite_data is not supported, as in jax.scipy.signal; got "
                         f"{_brief(overwrite_data)}", user_site())
    if type not in ("constant", "linear"):
        raise InputError(f"{name}: type {type!r} must be 'linear' or 'constant'", user_site())
    (x,) = _inexact(data)
    axis = _one_axis(name, x, axis)
    if type == "constant":
        return subtract(x, mean(x, axis, keepdims=True))
    if isinstance(bp, Tensor):
        raise InputError(f"{name}: bp must be static integers, got a traced {_brief(bp)}", user_site())
    n = _shape(x)[axis]
    edges = np.unique(np.r_[0, np.asarray(bp).ravel(), n])
    if edges.dtype.kind not in "iu" or edges[0] < 0 or edges[-1] > n:
        raise InputError(f"{name}: breakpoints bp={_brief(bp)} must be integers in [0, {n}], the length of "
                         f"{_shape(x)} along axis {axis}", user_site())
    if n == 0:
        return x
    rows = moveaxis(x, axis, 0)
    flat = reshape(rows, (n, -1))
    parts = [_remove_line(flat[int(lo):int(hi)]) for lo, hi in zip(edges[:-1], edges[1:])]
    out = parts[0] if len(parts) == 1 else concatenate(parts, 0)
    return moveaxis(reshape(out, _shape(rows)), 0, axis)


_detrend = detrend  # (welch's argument of that name hides it)


def welch(x: ArrayLike, fs: float = 1.0, window: str | tuple | ArrayLike = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, detrend: Any = "constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1,
          average: str = "mean") -> tuple[np.ndarray, Array]:
    """The power spectral density of `x` along `axis` by Welch's method, as
    `jax.scipy.signal.welch`: the average of the periodograms of overlapping segments, each
    detrended and windowed.

    Args:
        x: the signal (integers compute in f32).
        fs: its sampling frequency.
        window: "hann", another name or tuple of `scipy.signal.get_window` (which needs SciPy,
            as in JAX), or a 1-d array of the segment's length.
        nperseg: the segment's length (by default the signal's; a window name caps it there).
        noverlap: the points segments share (by default nperseg // 2).
        nfft: the transform's length, at least nperseg (segments are padded with zeros).
        detrend: "constant", "linear", False, or a function of the segments (along the last axis).
        return_onesided: the frequencies [0, nfft / 2] (the others' power folded in), or all nfft.
        scaling: "density" (per unit of frequency) or "spectrum".
        axis: the time axis.
        average: "mean" or "median" (corrected for its bias) of the periodograms.
    Returns:
        `(f, Pxx)`: the frequencies, and the density with `axis` running over them.
    """
    name = "welch"
    (x,) = _inexact(x)
    axis = _one_axis(name, x, axis)
    shape, dt = _shape(x), _dtype(x)
    if scaling not in ("density", "spectrum"):
        raise InputError(f"{name}: scaling {scaling!r} must be 'density' or 'spectrum'", user_site())
    if average not in ("mean", "median"):
        raise InputError(f"{name}: average {average!r} must be 'mean' or 'median'", user_site())
    if math.prod(shape) == 0:
        return np.zeros(shape, dt.np), asarray(np.zeros(shape, dt.np))
    win, nperseg = _segment_window(name, window, nperseg, shape[axis])
    noverlap = nperseg // 2 if noverlap is None else _static_count(name, "noverlap", noverlap, 0)
    nfft = nperseg if nfft is None else _static_count(name, "nfft", nfft, 1)
    if nfft < nperseg:
        raise InputError(f"{name}: nfft={nfft} must be at least nperseg={nperseg}", user_site())
    if noverlap >= nperseg:
        raise InputError(f"{name}: noverlap={noverlap} must be less than nperseg={nperseg}", user_site())
    onesided = bool(return_onesided)
    freqs = (np.arange(nfft // 2 + 1) if onesided else np.fft.fftfreq(nfft) * nfft) * (float(fs) / nfft)

    # the segments along a last axis, (..., segment, nperseg), each detrended and windowed
    x = moveaxis(x, axis, -1)
    n = shape[axis]
    starts = np.arange(0, n - nperseg + 1, nperseg - noverlap)
    segments = take(x, (starts[:, None] + np.arange(nperseg)).ravel(), axis=-1)
    segments = reshape(segments, (*_shape(x)[:-1], len(starts), nperseg))
    if isinstance(detrend, str):
        segments = _detrend(segments, axis=-1, type=detrend)
    elif callable(detrend):
        segments = detrend(segments)
    elif detrend:
        raise InputError(f"{name}: detrend {_brief(detrend)} must be 'constant', 'linear', False or a function",
                         user_site())
    segments = multiply(segments, win.astype(dt.np))

    # |X_k|^2 of each segment's transform (zero-padded to nfft), from its cosine and sine sums
    k = np.arange(nfft // 2 + 1 if onesided else nfft)[None, :]
    phase = 2.0 * np.pi * ((np.arange(nperseg)[:, None] * k) % nfft) / nfft
    power = add(square(matmul(segments, np.cos(phase).astype(dt.np))),
                square(matmul(segments, np.sin(phase).astype(dt.np))))
    scale = 1.0 / (float(fs) * np.sum(win * win)) if scaling == "density" else 1.0 / np.sum(win) ** 2
    if onesided:  # the negative frequencies' power, but for 0 and nfft / 2
        scale = np.full(k.shape[1], scale)
        scale[1:None if nfft % 2 else -1] *= 2.0
    power = multiply(power, np.asarray(scale, dt.np))
    if len(starts) > 1 and average == "median":
        bias = 1.0 + np.sum(1.0 / (np.arange(2.0, len(starts), 2) + 1.0) - 1.0 / np.arange(2.0, len(starts), 2))
        density = divide(median(power, axis=-2), np.asarray(bias, dt.np))
    else:
        density = mean(power, axis=-2)
    return freqs.astype(dt.np), moveaxis(density, -1, axis)


def _static_count(name: str, what: str, value: Any, least: int) -> int:
    if isinstance(value, Tensor) or not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) \
            or value < least:
        raise InputError(f"{name}: {what} must be an integer of at least {least}, got {_brief(value)}", user_site())
    return int(value)


def _segment_window(name: str, window: Any, nperseg: Any, length: int) -> tuple[np.ndarray, int]:
    """The window (float64, NumPy) and the segment's length, as JAX's `_triage_segments`: a
    window by name or tuple is made for nperseg points (the signal's length by default, and at
    most); an array gives the length."""
    if isinstance(window, (str, tuple)):
        count = length if nperseg is None else _static_count(name, "nperseg", nperseg, 1)
        count = count if count <= length else length  # (min is fgrad's here)
        if window == "hann":
            return (np.ones(1) if count == 1 else np.sin(np.linspace(0, np.pi, count, endpoint=False)) ** 2), count
        try:
            from scipy.signal import get_window
        except ImportError:
            raise InputError(f"{name}: window {window!r} needs SciPy's get_window, as in JAX: install scipy, or pass "
                             "'hann' or the window's values", user_site()) from None
        return np.asarray(get_window(window, count), np.float64), count
    if isinstance(window, Tensor):
        raise InputError(f"{name}: the window must be known while tracing, got a traced {_brief(window)}", user_site())
    win = np.asarray(window, np.float64)
    if win.ndim != 1 or win.size > length:
        raise InputError(f"{name}: the window must be 1-d and no longer than the signal ({length}), got shape "
                         f"{win.shape}", user_site())
    if nperseg is not None and _static_count(name, "nperseg", nperseg, 1) != win.size:
        raise InputError(f"{name}: nperseg={nperseg} differs from the window's length {win.size}", user_site())
    return win, win.size


name_errors_after(globals(), __all__)
del name_errors_after  # not part of the namespace
