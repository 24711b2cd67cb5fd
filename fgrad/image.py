"""`jax.image` as `fg.image`: `resize` and `scale_and_translate`, as JAX's.

Each spatial axis is resampled by a matrix (input size, output size) of kernel weights, one
output pixel a column: the kernel (triangle for linear, Keys' cubic, OpenCV's cubic, Lanczos 3 or
5, or the overlap of pixels for area) evaluated at the distances between the output pixel's
centre, mapped back into the input, and the input pixels, widened by the scale when
downsampling with `antialias`, each column normalized to sum to 1 and zeroed where the sample
falls outside the input. The image is contracted with each axis's matrix (an einsum), so
everything traces, differentiates and compiles to WGSL; `nearest` is a gather.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fgrad import numpy as fnp
from fgrad.errors import InputError, ShapeError, name_errors_after
from fgrad.ir import DType
from fgrad.numpy.promotion import ArrayLike, _brief, _dtype, _inexact, _shape, asarray
from fgrad.trace import Tensor, user_site

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]

Array = Tensor | np.ndarray
EPS = float(np.finfo(np.float32).eps)


class ResizeMethod(enum.Enum):
    """The resampling kernels, as `jax.image.ResizeMethod`."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method a name gives, as JAX's names ('bilinear' is LINEAR, 'bicubic' CUBIC, ...)."""
        for method, names in _NAMES.items():
            if s in names:
                return method
        raise InputError(f"resize: unknown method {_brief(s)}: use one of "
                         f"{', '.join(n for names in _NAMES.values() for n in names)}", user_site())


_NAMES = {
    ResizeMethod.NEAREST: ("nearest",), ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
    ResizeMethod.LANCZOS3: ("lanczos3",), ResizeMethod.LANCZOS5: ("lanczos5",),
    ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
    ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"), ResizeMethod.AREA: ("area",),
}


def _lanczos(radius: float) -> Callable[[Array], Array]:
    def kernel(x: Array) -> Array:
        y = radius * fnp.sin(np.pi * x) * fnp.sin(np.pi * x / radius)
        out = fnp.where(x > 1e-3, y / fnp.where(x != 0, np.pi ** 2 * x ** 2, 1.0), 1.0)
        return fnp.where(x > radius, 0.0, out)
    return kernel


def _keys_cubic(x: Array) -> Array:  # Keys (1981), a = -0.5: Pillow's, TensorFlow's, PyTorch's with antialiasing
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = fnp.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return fnp.where(x >= 2.0, 0.0, out)


def _opencv_cubic(x: Array) -> Array:  # a = -0.75: OpenCV's, PyTorch's without antialiasing
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = fnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return fnp.where(x >= 2.0, 0.0, out)


def _triangle(x: Array) -> Array:
    return fnp.maximum(0.0, 1.0 - fnp.abs(x))


_AREA = None  # the area method has no kernel: its weights are overlaps of pixels
_KERNELS = {  # method: (radius, kernel)
    ResizeMethod.LINEAR: (1, _triangle), ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)), ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic), ResizeMethod.AREA: (1, _AREA),
}


def _weights(input_size: int, output_size: int, scale: Any, translation: Any, kernel: Any, antialias: bool,
             radius: int | None, dtype: DType) -> Array:
    """The (input_size, output_size) resampling matrix of one axis (JAX's compute_weight_mat);
    with `radius` (OpenCV's cubic without antialiasing), `radius` pixels past each edge are
    evaluated too and their weight moved onto the edge pixel."""
    scale, translation = asarray(scale, dtype), asarray(translation, dtype)
    inv_scale = 1.0 / scale
    kernel_scale = fnp.maximum(inv_scale, 1.0) if antialias else 1.0
    sample = (fnp.arange(output_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    k = radius or 0
    expanded = fnp.arange(-k, input_size + k, dtype=dtype)
    if kernel is _AREA:
        left = fnp.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        right = left + inv_scale
        lefts = fnp.arange(input_size, dtype=dtype)
        weights = fnp.maximum(0.0, fnp.minimum(right[None, :], lefts[:, None] + 1.0) -
                              fnp.maximum(left[None, :], lefts[:, None]))
    else:
        weights = kernel(fnp.abs(sample[None, :] - expanded[:, None]) / kernel_scale)
    if k:  # each pixel past an edge adds its weight to the edge's: a static 0/1 matrix
        onto = (np.clip(np.arange(-k, input_size + k), 0, input_size - 1)[None, :] ==
                np.arange(input_size)[:, None]).astype(dtype.np)
        weights = fnp.matmul(onto, weights)
    total = fnp.sum(weights, axis=0, keepdims=True)
    weights = fnp.where(fnp.abs(total) > 1000.0 * EPS, weights / fnp.where(total != 0, total, 1.0), 0.0)
    if k:
        return weights
    inside = (sample >= -0.5) & (sample <= input_size - 0.5)
    return fnp.where(inside[None, :], weights, 0.0)


def _resampled(image: Array, shape: tuple[int, ...], axes: Sequence[int], scale: Sequence[Any],
               translation: Sequence[Any], method: ResizeMethod, antialias: bool) -> Array:
    """The image with each of `axes` contracted with its resampling matrix."""
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge = method is ResizeMethod.CUBIC_PYTORCH  # (without antialiasing): the edges padded
    for axis, s, t in zip(axes, scale, translation):
        w = _weights(_shape(image)[axis], shape[axis], s, t, kernel, antialias, radius if edge else None, DType.f32)
        w = fnp.astype(w, _dtype(image))  # computed in f32, then in the image's dtype, as JAX's
        image = fnp.moveaxis(fnp.tensordot(image, w, axes=([axis], [0])), -1, axis)
    return image


def _method(method: Any) -> ResizeMethod:
    return method if isinstance(method, ResizeMethod) else ResizeMethod.from_string(method)


def _target(name: str, image: Array, shape: Any) -> tuple[int, ...]:
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if len(shape) != len(_shape(image)) or any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0
                                                for d in shape):
        raise ShapeError(f"{name}: shape {shape} must be one non-negative size per axis of the image "
                         f"{_shape(image)}", user_site())
    return tuple(int(d) for d in shape)


def resize(image: ArrayLike, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
           precision: Any = None) -> Array:
    """The image resampled to `shape` (one size per axis; the axes whose size changes are
    resampled), as `jax.image.resize`: method 'nearest', 'linear' (also 'bilinear',
    'trilinear'), 'cubic', 'cubic-pytorch', 'lanczos3', 'lanczos5' or 'area'; with `antialias`,
    downsampling widens the kernel (a low-pass filter). Integers are converted to f32."""
    image = asarray(image)
    shape = _target("resize", image, shape)
    method = _method(method)
    if method is ResizeMethod.NEAREST:
        for axis, (m, n) in enumerate(zip(_shape(image), shape)):
            if m != n:
                offsets = np.floor((np.arange(n, dtype=np.float32) + 0.5) * np.float32(m) / np.float32(n))
                image = fnp.take(image, offsets.astype(np.int32), axis=axis)
        return image
    (image,) = _inexact(image)
    axes = [k for k, (m, n) in enumerate(zip(_shape(image), shape)) if m != n]
    scale = [1.0 if shape[k] == 0 else shape[k] / _shape(image)[k] for k in axes]
    return _resampled(image, shape, axes, scale, [0.0] * len(axes), method, bool(antialias))


def scale_and_translate(image: ArrayLike, shape: Sequence[int], spatial_dims: Sequence[int], scale: ArrayLike,
                        translation: ArrayLike, method: str | ResizeMethod, antialias: bool = True,
                        precision: Any = None) -> Array:
    """The image resampled to `shape` along `spatial_dims`, each output pixel's centre mapped to
    (x - translation) / scale in the input, as `jax.image.scale_and_translate`; scale and
    translation (one per spatial axis) may be traced. 'nearest' is not supported, as in JAX."""
    image = asarray(image)
    shape = _target("scale_and_translate", image, shape)
    method = _method(method)
    if method is ResizeMethod.NEAREST:
        raise InputError("scale_and_translate: the 'nearest' method is not supported (as in JAX); use resize",
                         user_site())
    dims = [int(d) % len(shape) for d in spatial_dims]
    if any(_shape(image)[k] != shape[k] for k in range(len(shape)) if k not in dims):
        raise ShapeError(f"scale_and_translate: shape {shape} differs from the image {_shape(image)} off the "
                         f"spatial_dims {tuple(dims)}", user_site())
    (image,) = _inexact(image)
    scale, translation = (fnp.atleast_1d(asarray(v, DType.f32)) for v in (scale, translation))
    if _shape(scale) != (len(dims),) or _shape(translation) != (len(dims),):
        raise ShapeError(f"scale_and_translate: scale {_shape(scale)} and translation {_shape(translation)} need "
                         f"one entry per spatial axis ({len(dims)})", user_site())
    return _resampled(image, shape, dims, [scale[k] for k in range(len(dims))],
                      [translation[k] for k in range(len(dims))], method, bool(antialias))


name_errors_after(globals(), ["resize", "scale_and_translate"])
del name_errors_after  # not part of the namespace
