"""Convolutions and windowed reductions: `jax.lax.conv_general_dilated` with its wrappers
(`conv`, `conv_with_general_padding`, `conv_transpose`), `jax.lax.reduce_window`, and
`jax.numpy`'s `convolve` / `correlate`.

The lax functions are reached as `fg.lax.*` (as in JAX, they are not `jax.numpy` names);
`convolve` and `correlate` are in `__all__`.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import DType, Spec
from fgrad.primitives import conv_general_dilated_p, patches_p
from fgrad.primitives.convolution import dilated
from fgrad.trace import Tensor, bind, eval_shape, user_site
from fgrad.numpy.promotion import (
    ArrayLike, _as_dtype, _dtype, _float_dtype, _shape, _static_scalar, asarray, result_dtype,
)
from fgrad.numpy.shapes import _shape_arg, expand_dims, flip, reshape, transpose
from fgrad.numpy.elementwise import add, equal, maximum, minimum, where
from fgrad.numpy.reductions import argmax, argmin, sum
from fgrad.numpy.indexing import arange

__all__ = [  # the public functions, re-exported by fgrad.numpy and fgrad
    "convolve", "correlate",
]


class ConvDimensionNumbers(NamedTuple):
    """Where each operand's axes are, as `jax.lax.ConvDimensionNumbers`: `lhs_spec` and `out_spec`
    are (batch axis, feature axis, spatial axes...), `rhs_spec` (output feature axis, input
    feature axis, spatial axes...), spatial axes in the same order in all three."""

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                           dimension_numbers: Any) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, three strings such as ('NHWC', 'HWIO', 'NHWC'), or a
    ConvDimensionNumbers) as a ConvDimensionNumbers, as `jax.lax.conv_dimension_numbers`.
    None is ('NCHW', 'OIHW', 'NCHW') for any number of spatial axes."""
    name = "conv_dimension_numbers"
    lhs_shape, rhs_shape = _shape_arg(name, lhs_shape), _shape_arg(name, rhs_shape)
    if len(lhs_shape) != len(rhs_shape):
        raise ShapeError(f"{name}: lhs {tuple(lhs_shape)} and rhs {tuple(rhs_shape)} must have one rank", user_site())
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(int(a) for a in spec) for spec in dimension_numbers))
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (tuple, list)) or len(dimension_numbers) != 3 or \
            not all(isinstance(s, str) for s in dimension_numbers):
        raise ShapeError(f"{name}: dimension_numbers must be None, a ConvDimensionNumbers or three strings such as "
                         f"('NCHW', 'OIHW', 'NCHW'), got {dimension_numbers!r}", user_site())
    if any(len(s) != len(lhs_shape) for s in dimension_numbers):
        raise ShapeError(f"{name}: dimension_numbers {tuple(dimension_numbers)} must each have {len(lhs_shape)} "
                         f"letters, one per axis of lhs {tuple(lhs_shape)} and rhs {tuple(rhs_shape)}", user_site())
    lhs, rhs, out = dimension_numbers
    for spec, pair in zip(dimension_numbers, ("NC", "OI", "NC")):
        if any(spec.count(c) != 1 for c in pair) or len(set(spec)) != len(spec):
            raise ShapeError(f"{name}: {spec!r} must hold '{pair[0]}' and '{pair[1]}' once each and no letter "
                             f"twice (dimension_numbers {tuple(dimension_numbers)})", user_site())
    if not set(lhs) - set("NC") == set(rhs) - set("OI") == set(out) - set("NC"):
        raise ShapeError(f"{name}: dimension_numbers {tuple(dimension_numbers)} must name the same spatial axes in "
                         "all three", user_site())

    def perm(spec: str, pair: str) -> tuple[int, ...]:
        spatial = sorted((i for i, c in enumerate(spec) if c not in pair), key=lambda i: rhs.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return ConvDimensionNumbers(perm(lhs, "NC"), perm(rhs, "OI"), perm(out, "NC"))


def _ints(name: str, what: str, values: Any, n: int, default: int | None = None) -> tuple[int, ...]:
    """`values`: n integers (None gives `default` n times)."""
    if values is None and default is not None:
        return (default,) * n
    try:
        out, given = tuple(int(v) for v in values if not isinstance(v, bool) and int(v) == v), len(values)
    except (TypeError, ValueError):
        out, given = (), -1
    if len(out) != n or (values is not None and len(out) != given):
        raise ShapeError(f"{name}: {what} {values!r} must be {n} integers", user_site())
    return out


def _pairs(name: str, padding: Any, n: int) -> tuple[tuple[int, int], ...]:
    try:
        pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        pads = ()
    if len(pads) != n:
        raise ShapeError(f"{name}: padding {padding!r} must be 'SAME', 'SAME_LOWER', 'VALID' or {n} (low, high) "
                         "pairs of integers", user_site())
    return pads


def _padtype_to_pads(name: str, shape: Sequence[int], window: Sequence[int], strides: Sequence[int],
                     padding: str) -> tuple[tuple[int, int], ...]:
    """'VALID': none. 'SAME' / 'SAME_LOWER': enough for ceil(n / stride) windows, split evenly,
    the odd one high (low for SAME_LOWER), as jax.lax.padtype_to_pads."""
    kind = padding.upper()
    if kind == "VALID":
        return ((0, 0),) * len(shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise ShapeError(f"{name}: padding {padding!r} must be 'SAME', 'SAME_LOWER', 'VALID' or (low, high) pairs",
                         user_site())
    sizes = [max((-(-n // s) - 1) * s + k - n, 0) for n, k, s in zip(shape, window, strides)]
    return tuple((p // 2, p - p // 2) if kind == "SAME" else (p - p // 2, p // 2) for p in sizes)


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int], window_strides: Sequence[int],
                    padding: str) -> list[tuple[int, int]]:
    """The (low, high) padding of each axis that `padding` ('SAME', 'SAME_LOWER' or 'VALID')
    means for windows of `window_shape` stepping `window_strides` over `in_shape`, as
    `jax.lax.padtype_to_pads`."""
    name = "padtype_to_pads"
    if not isinstance(padding, str):
        raise ShapeError(f"{name}: padding must be 'SAME', 'SAME_LOWER' or 'VALID', got {padding!r}", user_site())
    if not isinstance(in_shape, (Sequence, np.ndarray)):
        raise ShapeError(f"{name}: in_shape {in_shape!r} must be a sequence of integers", user_site())
    n = len(in_shape)
    shape, window = _ints(name, "in_shape", in_shape, n), _ints(name, "window_shape", window_shape, n)
    return list(_padtype_to_pads(name, shape, window, _ints(name, "window_strides", window_strides, n), padding))


def _operands(name: str, lhs: ArrayLike, rhs: ArrayLike, preferred_element_type: Any
              ) -> tuple[Tensor | np.ndarray, Tensor | np.ndarray]:
    """lhs and rhs of one dtype, as lax requires, converted to `preferred_element_type` where
    given (which must be as wide: the products are then exact in it)."""
    dt = result_dtype(lhs, rhs)
    if _dtype(lhs) != _dtype(rhs):
        raise DTypeError(f"{name}: lhs and rhs dtypes differ ({_dtype(lhs)} and {_dtype(rhs)}); lax requires one "
                         "dtype: convert one with astype", user_site())
    if preferred_element_type is not None:
        want = _as_dtype(preferred_element_type, name)
        if want != dt and not (want.is_float and (dt.is_int or dt.itemsize <= want.itemsize)):
            raise DTypeError(f"{name}: preferred_element_type {want} is narrower than, or of another kind from, the "
                             f"operands' {dt}", user_site())
        dt = want
    return asarray(lhs, dt), asarray(rhs, dt)


def conv_general_dilated(lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
                         padding: str | Sequence[tuple[int, int]], lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                         feature_group_count: int = 1, batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """General N-d convolution, as `jax.lax.conv_general_dilated` (XLA's Conv).

    Args:
        lhs, rhs: input and kernel, rank n + 2, one dtype.
        window_strides: n strides.
        padding: 'SAME', 'SAME_LOWER', 'VALID', or n (low, high) pairs (negative ones crop).
        lhs_dilation: n input dilations (a transposed convolution); string padding is then refused.
        rhs_dilation: n kernel dilations (atrous convolution).
        dimension_numbers: None (NCHW, OIHW, NCHW), three strings such as ('NHWC', 'HWIO', 'NHWC'),
            or a ConvDimensionNumbers.
        feature_group_count: input feature groups (depthwise where it is the feature count).
        batch_group_count: batch groups (what a grouped convolution's kernel gradient uses).
        precision: accepted and ignored: fgrad computes f32 products in f32 (JAX's HIGHEST).
        preferred_element_type: the result dtype, as wide as the operands' (they are converted).
    """
    name = "conv_general_dilated"
    lhs, rhs = _operands(name, lhs, rhs, preferred_element_type)
    lshape, rshape = _shape(lhs), _shape(rhs)
    dn = conv_dimension_numbers(lshape, rshape, dimension_numbers)
    n = len(lshape) - 2
    strides = _ints(name, "window_strides", window_strides, n)
    lhs_dilation = _ints(name, "lhs_dilation", lhs_dilation, n, 1)
    rhs_dilation = _ints(name, "rhs_dilation", rhs_dilation, n, 1)
    if isinstance(padding, str):
        if lhs_dilation != (1,) * n:
            raise ShapeError(f"{name}: string padding {padding!r} with lhs_dilation {lhs_dilation}: give (low, high) "
                             "pairs or use fg.lax.conv_transpose, as jax.lax requires", user_site())
        window = [dilated(rshape[a], d) for a, d in zip(dn.rhs_spec[2:], rhs_dilation)]
        pads = _padtype_to_pads(name, [lshape[a] for a in dn.lhs_spec[2:]], window, strides, padding)
    else:
        pads = _pairs(name, padding, n)
    for what, count in (("feature_group_count", feature_group_count), ("batch_group_count", batch_group_count)):
        if not isinstance(count, (int, np.integer)) or isinstance(count, bool):
            raise ShapeError(f"{name}: {what} {count!r} must be an integer", user_site())
    return bind(conv_general_dilated_p, lhs, rhs, window_strides=strides, padding=pads, lhs_dilation=lhs_dilation,
                rhs_dilation=rhs_dilation, dimension_numbers=tuple(dn), feature_group_count=int(feature_group_count),
                batch_group_count=int(batch_group_count))


def conv(lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int], padding: str, precision: Any = None,
         preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """`conv_general_dilated` in NCHW / OIHW with no dilation, as `jax.lax.conv`."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
                              padding: str | Sequence[tuple[int, int]], lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision: Any = None,
                              preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """`conv_general_dilated` in NCHW / OIHW, as `jax.lax.conv_with_general_padding`."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: str | tuple[int, int]) -> tuple[int, int]:
    """Padding of the fractionally strided convolution that undoes a forward one padded `padding`."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        before = k - 1
    else:
        pads = tuple(k - p - 1 for p in padding)
        before, total = pads[0], builtins.sum(pads)
    return before, total - before


_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                      5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_general_dilated_patches(lhs: ArrayLike, filter_shape: Sequence[int], window_strides: Sequence[int],
                                 padding: str | Sequence[tuple[int, int]], lhs_dilation: Sequence[int] | None = None,
                                 rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                                 precision: Any = None, preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """The patches `conv_general_dilated` multiplies a kernel of `filter_shape` with, as
    `jax.lax.conv_general_dilated_patches`: where the convolution's result has its features,
    each input feature's window of values (in the row-major order of `filter_shape`), so
    C * prod(filter_shape) features. One grouped convolution with one-hot kernels, as JAX's."""
    name = "conv_general_dilated_patches"
    x = asarray(lhs)
    shape = _shape(x)
    window = _ints(name, "filter_shape", filter_shape, len(shape) - 2)
    dn = conv_dimension_numbers(shape, (1, 1, *window), dimension_numbers)
    size, channels = math.prod(window), shape[dn.lhs_spec[1]]
    # kernel (channels * size, 1, *window): output feature k * size + s picks place s of feature k's window
    kernel = np.tile(np.eye(size), (channels, 1)).reshape(channels * size, 1, *window)
    kernel = np.moveaxis(kernel, (0, 1), (dn.rhs_spec[0], dn.rhs_spec[1])).astype(_dtype(x).np)
    return conv_general_dilated(x, kernel, window_strides, padding, lhs_dilation, rhs_dilation, dn,
                                feature_group_count=channels, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_transpose(lhs: ArrayLike, rhs: ArrayLike, strides: Sequence[int], padding: str | Sequence[tuple[int, int]],
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None, preferred_element_type: Any = None,
                   use_consistent_padding: bool = False) -> Tensor | np.ndarray:
    """The fractionally strided convolution, as `jax.lax.conv_transpose` (layouts default to
    TensorFlow's: NHWC, HWIO). `transpose_kernel` flips the kernel in space and exchanges its
    input and output features (Keras' Conv2DTranspose); 'SAME' / 'VALID' (and, with
    `use_consistent_padding`, pairs) name the padding of the forward convolution."""
    name = "conv_transpose"
    lhs, rhs = asarray(lhs), asarray(rhs)
    ndim = len(_shape(lhs))
    if ndim != len(_shape(rhs)) or ndim not in _TRANSPOSE_LAYOUTS and dimension_numbers is None:
        raise ShapeError(f"{name}: lhs {_shape(lhs)} and rhs {_shape(rhs)} must have one rank, 2 to 5 without "
                         "dimension_numbers", user_site())
    dn = conv_dimension_numbers(_shape(lhs), _shape(rhs),
                                _TRANSPOSE_LAYOUTS[ndim] if dimension_numbers is None else dimension_numbers)
    sizes = [_shape(rhs)[a] for a in dn.rhs_spec[2:]]
    n = len(sizes)
    strides = _ints(name, "strides", strides, n)
    rhs_dilation = _ints(name, "rhs_dilation", rhs_dilation, n, 1)
    if use_consistent_padding or padding in ("SAME", "VALID"):
        each = [padding] * n if isinstance(padding, str) else [tuple(p) for p in _pairs(name, padding, n)]
        pads: Any = tuple(_conv_transpose_padding(dilated(k, d), s, p)
                          for k, d, s, p in zip(sizes, rhs_dilation, strides, each))
    else:
        pads = padding
    if transpose_kernel:
        rhs = flip(rhs, dn.rhs_spec[2:])
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * n, pads, strides, rhs_dilation, dn, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv1d(name: str, a: ArrayLike, v: ArrayLike, mode: str, precision: Any, preferred_element_type: Any,
            correlate: bool) -> Tensor | np.ndarray:
    """jnp.convolve / jnp.correlate as one 1-d convolution, the longer operand as the input."""
    if len(_shape(a)) != 1 or len(_shape(v)) != 1:
        raise ShapeError(f"{name}: takes 1-d operands, got {_shape(a)} and {_shape(v)}", user_site())
    dt = result_dtype(a, v)
    if preferred_element_type is None:
        dt = _float_dtype(dt)  # NumPy's convolutions promote to inexact
    a, v = asarray(a, dt), asarray(v, dt)
    flip_out = correlate and _shape(a)[0] < _shape(v)[0]
    if _shape(a)[0] < _shape(v)[0]:
        a, v = v, a
    if not correlate:
        v = flip(v)
    k = _shape(v)[0]
    pads = {"valid": (0, 0), "same": (k // 2, k - k // 2 - 1), "full": (k - 1, k - 1)}
    if mode not in pads:
        raise ShapeError(f"{name}: mode {mode!r} must be one of 'full', 'same', 'valid'", user_site())
    out = conv_general_dilated(reshape(a, (1, 1, -1)), reshape(v, (1, 1, -1)), (1,), [pads[mode]],
                               precision=precision, preferred_element_type=preferred_element_type)
    out = reshape(out, (-1,))
    return flip(out) if flip_out else out


def convolve(a: ArrayLike, v: ArrayLike, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """Discrete convolution of two 1-d arrays, as `jnp.convolve`: modes 'full' (length
    n + m - 1), 'same' (max(n, m)), 'valid' (max(n, m) - min(n, m) + 1); integers give floats."""
    return _conv1d("convolve", a, v, mode, precision, preferred_element_type, correlate=False)


def correlate(a: ArrayLike, v: ArrayLike, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Tensor | np.ndarray:
    """Cross-correlation of two 1-d arrays, as `jnp.correlate` (default mode 'valid')."""
    return _conv1d("correlate", a, v, mode, precision, preferred_element_type, correlate=True)


def _monoid(computation: Callable[..., Any]) -> str:
    """Which of the monoids fgrad reduces windows with `computation` is."""
    from fgrad import lax  # NOTE: fgrad.lax re-exports these functions; read at call time

    known = {add: "add", maximum: "max", minimum: "min", lax.add: "add", lax.max: "max", lax.min: "min"}
    if computation not in known:
        raise ShapeError(f"reduce_window: computation {computation!r} is not fg.lax.add, fg.lax.max or fg.lax.min, "
                         "the reductions fgrad computes over windows", user_site())
    return known[computation]


def _identity(monoid: str, dtype: DType) -> float | int | bool:
    """The value that leaves every fold of `monoid` over `dtype` unchanged."""
    if monoid == "add":
        return 0
    if dtype.is_int:
        info = np.iinfo(dtype.np)
        return int(info.min if monoid == "max" else info.max)
    if not dtype.is_float:
        return monoid == "min"
    return -math.inf if monoid == "max" else math.inf


def reduce_window(operand: ArrayLike, init_value: float | int | bool, computation: Callable[..., Any],
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  padding: str | Sequence[tuple[int, int]] = "VALID", base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Tensor | np.ndarray:
    """Reduce each window of `operand` with `computation` (fg.lax.add, max or min), as
    `jax.lax.reduce_window`: `init_value` starts each fold (padding and holes add nothing).

    The cotangent of a max (min) goes to the first largest (smallest) element of each window,
    as XLA's select-and-scatter does, except in a window holding a NaN: fgrad's goes to its
    first NaN (as argmax picks), XLA's to wherever its comparisons with the NaN stop. NOTE: a
    window whose maximum is -0.0 gives +0.0 (the element picked is summed with zeros).
    """
    name = "reduce_window"
    x = asarray(operand)
    shape, dtype = _shape(x), _dtype(x)
    r = len(shape)
    monoid = _monoid(computation)
    # An infinite start is a max's (min's) identity over any dtype (flax's pools pass -inf for integers too).
    infinite = isinstance(init_value, (float, np.floating)) and np.isinf(init_value) and (init_value < 0) == (
        monoid == "max")
    init = _identity(monoid, dtype) if infinite else _static_scalar(name, "init_value", init_value, dtype).array.item()
    window = _ints(name, "window_dimensions", window_dimensions, r)
    strides = _ints(name, "window_strides", window_strides, r, 1)
    base = _ints(name, "base_dilation", base_dilation, r, 1)
    spread = _ints(name, "window_dilation", window_dilation, r, 1)
    if isinstance(padding, str):
        pads = _padtype_to_pads(name, shape, list(map(dilated, window, spread)), strides, padding)
    else:
        pads = _pairs(name, padding, r)
    p = bind(patches_p, x, window_dimensions=window, window_strides=strides, padding=pads, base_dilation=base,
             window_dilation=spread, value=_identity(monoid, dtype))
    neutral = init == _identity(monoid, dtype)
    axes = tuple(range(r, 2 * r))
    if monoid == "add":
        out = sum(p, axes)
        return out if neutral else add(out, init)
    # The first extreme of each window, picked by its index: the cotangent goes to it alone.
    flat = reshape(p, (*_shape(p)[:r], math.prod(window)))
    at = (argmax if monoid == "max" else argmin)(flat, axis=-1)
    out = sum(where(equal(arange(math.prod(window)), expand_dims(at, -1)), flat, 0), -1)
    return out if neutral else (maximum if monoid == "max" else minimum)(out, init)


# -- shapes, as jax.lax's helpers: each the shape its operation gives, found by tracing it ----------


def _shape_of(fn: Callable[..., Any], *shapes: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(d) for d in eval_shape(fn, *(Spec(tuple(int(n) for n in s), DType.f32) for s in shapes)).shape)


def conv_general_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
                             padding: str | Sequence[tuple[int, int]], dimension_numbers: Any) -> tuple[int, ...]:
    """The shape `conv_general_dilated` gives operands of these shapes, as `jax.lax.conv_general_shape_tuple`."""
    return _shape_of(lambda a, b: conv_general_dilated(a, b, window_strides, padding,
                                                       dimension_numbers=dimension_numbers), lhs_shape, rhs_shape)


def conv_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], strides: Sequence[int],
                     pads: str | Sequence[tuple[int, int]], batch_group_count: int = 1) -> tuple[int, ...]:
    """The shape of a convolution in NCHW / OIHW, as `jax.lax.conv_shape_tuple`."""
    return _shape_of(lambda a, b: conv_general_dilated(a, b, strides, pads, batch_group_count=batch_group_count),
                     lhs_shape, rhs_shape)


def conv_transpose_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
                               padding: str | Sequence[tuple[int, int]], dimension_numbers: Any) -> tuple[int, ...]:
    """The shape `conv_transpose` gives operands of these shapes, as `jax.lax.conv_transpose_shape_tuple`."""
    return _shape_of(lambda a, b: conv_transpose(a, b, window_strides, padding, dimension_numbers=dimension_numbers),
                     lhs_shape, rhs_shape)


def reduce_window_shape_tuple(operand_shape: Sequence[int], window_dimensions: Sequence[int],
                              window_strides: Sequence[int], padding: str | Sequence[tuple[int, int]],
                              base_dilation: Sequence[int] | None = None,
                              window_dilation: Sequence[int] | None = None) -> tuple[int, ...]:
    """The shape `reduce_window` gives, as `jax.lax.reduce_window_shape_tuple`."""
    return _shape_of(lambda x: reduce_window(x, 0.0, add, window_dimensions, window_strides, padding, base_dilation,
                                             window_dilation), operand_shape)


def conv_general_permutations(dimension_numbers: Any) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The axis permutations three layout strings name (batch and feature axes first, then the
    spatial ones in order), as `jax.lax.conv_general_permutations`."""
    if not (isinstance(dimension_numbers, (tuple, list)) and len(dimension_numbers) == 3
            and builtins.all(isinstance(s, str) for s in dimension_numbers)):
        raise ShapeError(f"conv_general_permutations: takes three layout strings such as ('NHWC', 'HWIO', 'NHWC'), "
                         f"got {dimension_numbers!r}", user_site())
    rank = len(dimension_numbers[0])
    found = conv_dimension_numbers((1,) * rank, (1,) * rank, tuple(dimension_numbers))
    return found.lhs_spec, found.rhs_spec, found.out_spec
