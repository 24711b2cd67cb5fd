"""Op-table rows: convolution (fg.lax.conv_general_dilated and its wrappers, jnp.convolve /
correlate) and windows (fg.lax.reduce_window, fg.nn's pools).

The references are direct loops in float64 over output positions, written from XLA's
definitions (dilate, pad or crop, slide a window), independent of fgrad's implementation.
Rows named "gemm" are f32 convolutions wide enough (16+ output features per group, 16+ input
features x window) to lower to the tiled matmul over patches; the others to the direct kernel.
"""

from __future__ import annotations

import math

import numpy as np
import fgrad as fg
from op_case import F, F16, H, I, U, Case, Fi, rounded

NCHW = ((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))


def _spec(ndim: int) -> tuple[tuple[int, ...], ...]:
    iota = tuple(range(ndim))
    return iota, iota, iota


def dilate_pad(x, dilation, pads, fill, lead=0):
    """x (float64) with `dilation - 1` holes between neighbours along the axes from `lead` on,
    then padded (negative pads crop); holes and padding hold `fill`."""
    axes = range(lead, x.ndim)
    shape = list(x.shape)
    for a, d in zip(axes, dilation):
        shape[a] = (x.shape[a] - 1) * d + 1
    out = np.full(shape, fill, np.float64)
    out[(slice(None),) * lead + tuple(slice(None, None, d) for d in dilation)] = x
    for a, (lo, hi) in zip(axes, pads):
        out = np.moveaxis(out, a, 0)
        grow = [np.full((max(lo, 0),) + out.shape[1:], fill), out, np.full((max(hi, 0),) + out.shape[1:], fill)]
        out = np.concatenate(grow)
        out = np.moveaxis(out[max(-lo, 0): out.shape[0] - max(-hi, 0)], 0, a)
    return out


def same_pads(shape, window, strides, lower=False):
    """jax.lax.padtype_to_pads for 'SAME' ('SAME_LOWER')."""
    pads = []
    for n, k, s in zip(shape, window, strides):
        p = max((-(-n // s) - 1) * s + k - n, 0)
        pads.append((p - p // 2, p // 2) if lower else (p // 2, p - p // 2))
    return tuple(pads)


def conv_ref(lhs, rhs, strides, pads, lhs_dilation=None, rhs_dilation=None, dn=None, groups=1, batch_groups=1):
    """XLA's convolution, one output position at a time: lhs dilated and padded, each window
    contracted with the kernel over its input features and window, group by group."""
    ls, rs, os_ = dn or _spec(lhs.ndim)
    x, k = np.transpose(lhs, ls).astype(np.float64), np.transpose(rhs, rs).astype(np.float64)
    n = x.ndim - 2
    x = dilate_pad(x, lhs_dilation or (1,) * n, pads, 0.0, lead=2)
    rd = rhs_dilation or (1,) * n
    spans = [(kk - 1) * d + 1 for kk, d in zip(k.shape[2:], rd)]
    out_space = [(m - e) // s + 1 for m, e, s in zip(x.shape[2:], spans, strides)]
    N, O, I_ = x.shape[0], k.shape[0], k.shape[1]
    G = max(groups, batch_groups)
    out = np.zeros((N // batch_groups, O, *out_space))
    for q in np.ndindex(*out_space):
        at = (slice(p * s, p * s + e, d) for p, s, e, d in zip(q, strides, spans, rd))
        window = x[(slice(None), slice(None), *at)]
        for g in range(G):
            part = window[g * (N // G): (g + 1) * (N // G)] if batch_groups > 1 else window[:, g * I_: (g + 1) * I_]
            kg = k[g * (O // G): (g + 1) * (O // G)]
            out[(slice(None), slice(g * (O // G), (g + 1) * (O // G)), *q)] = np.tensordot(
                part, kg, axes=(list(range(1, n + 2)), list(range(1, n + 2))))
    return np.transpose(out, np.argsort(os_))


def window_ref(x, op, init, window, strides, pads, base=None, spread=None):
    """XLA's reduce_window: `op` ("add", "max", "min") over each window of x dilated by `base`
    and padded (padding and holes fold nothing), started from `init`."""
    r = x.ndim
    identity = {"add": 0.0, "max": -np.inf, "min": np.inf}[op]
    fold = {"add": np.sum, "max": np.max, "min": np.min}[op]
    combine = {"add": np.add, "max": np.maximum, "min": np.minimum}[op]
    xp = dilate_pad(x, base or (1,) * r, pads, identity)
    spread = spread or (1,) * r
    spans = [(k - 1) * d + 1 for k, d in zip(window, spread)]
    out_shape = [(m - e) // s + 1 for m, e, s in zip(xp.shape, spans, strides)]
    out = np.zeros(out_shape)
    for o in np.ndindex(*out_shape):
        at = tuple(slice(p * s, p * s + e, d) for p, s, e, d in zip(o, strides, spans, spread))
        out[o] = combine(init, fold(xp[at]))
    return out


def pool_ref(x, op, window, strides=None, padding="VALID", count_include_pad=True):
    """flax.linen's pools: reduce_window over the spatial axes of (*batch, *spatial, features)."""
    n = len(window)
    lead = x.ndim - n - 1
    strides = strides or (1,) * n
    pads = same_pads(x.shape[lead:-1], window, strides) if padding == "SAME" else \
        ((0, 0),) * n if padding == "VALID" else tuple(padding)
    full = ((1,) * lead + tuple(window) + (1,), (1,) * lead + tuple(strides) + (1,),
            ((0, 0),) * lead + pads + ((0, 0),))
    if op != "avg":
        return window_ref(x, op, {"max": -np.inf, "min": np.inf}[op], *full)
    total = window_ref(x, "add", 0.0, *full)
    if count_include_pad:
        return total / math.prod(window)
    return total / window_ref(np.ones(x.shape[:-1] + (1,)), "add", 0.0, *full)


def unpatch_ref(g, shape, window, strides, pads, base=None, spread=None):
    """The transpose of gathering windows: each window's cotangent added back where it was read."""
    r = len(shape)
    base, spread = base or (1,) * r, spread or (1,) * r
    padded = [(n - 1) * b + 1 + lo + hi for n, b, (lo, hi) in zip(shape, base, pads)]
    acc = np.zeros(padded)
    spans = [(k - 1) * d + 1 for k, d in zip(window, spread)]
    for o in np.ndindex(*g.shape):
        acc[tuple(slice(p * s, p * s + e, d) for p, s, e, d in zip(o, strides, spans, spread))] += g[o]
    out = np.zeros(shape)
    for y in np.ndindex(*shape):
        at = tuple(lo + b * i for i, b, (lo, _) in zip(y, base, pads))
        if all(0 <= a < m for a, m in zip(at, padded)):
            out[y] = acc[at]
    return out


def conv(**kw):
    """The row function: fg.lax.conv_general_dilated with these keywords."""
    return lambda x, w: fg.lax.conv_general_dilated(x, w, **kw)


NHWC = ("NHWC", "HWIO", "NHWC")
NHWC_DN = ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
# A layout of each operand its own: lhs (W, C, N), kernel (I, W, O), result (C, N, W).
MIXED = ("WCN", "IWO", "CNW")
MIXED_DN = ((2, 1, 0), (2, 0, 1), (1, 0, 2))
SUM_2X3 = dict(window_dimensions=(1, 2, 3), window_strides=(1, 2, 1), padding=((0, 0), (1, 0), (2, -1)))


def _sum_windows(x):
    return fg.lax.reduce_window(x, 0.0, fg.lax.add, **SUM_2X3)


def _unpatch(x, g):
    return fg.vjp(_sum_windows, x)[1](g)[0]


def _unpatch_row_ref(x, g):
    return unpatch_ref(g, x.shape, SUM_2X3["window_dimensions"], SUM_2X3["window_strides"], SUM_2X3["padding"])


OP_ROWS: tuple[Case, ...] = (
    # conv_general_dilated: the direct kernel (a dot product per result) ...
    Case("conv_general_dilated", "2d-same-strided", conv(window_strides=(2, 1), padding="SAME"),
         (F(2, 3, 5, 5), F(4, 3, 3, 3)), lambda x, w: conv_ref(x, w, (2, 1), same_pads((5, 5), (3, 3), (2, 1)))),
    Case("conv_general_dilated", "1d-valid", conv(window_strides=(1,), padding="VALID"), (F(2, 2, 7), F(3, 2, 3)),
         lambda x, w: conv_ref(x, w, (1,), ((0, 0),))),
    Case("conv_general_dilated", "3d-padded", conv(window_strides=(1, 2, 1), padding=((1, 0), (0, 1), (1, 1))),
         (F(1, 2, 4, 3, 4), F(2, 2, 2, 1, 3)), lambda x, w: conv_ref(x, w, (1, 2, 1), ((1, 0), (0, 1), (1, 1)))),
    Case("conv_general_dilated", "stride-past-kernel", conv(window_strides=(3, 4), padding="VALID"),
         (F(1, 2, 7, 8), F(3, 2, 2, 2)), lambda x, w: conv_ref(x, w, (3, 4), ((0, 0), (0, 0)))),
    Case("conv_general_dilated", "rhs-dilation", conv(window_strides=(1, 1), padding="SAME", rhs_dilation=(2, 3)),
         (F(1, 2, 6, 7), F(2, 2, 2, 2)),
         lambda x, w: conv_ref(x, w, (1, 1), same_pads((6, 7), (3, 4), (1, 1)), rhs_dilation=(2, 3))),
    Case("conv_general_dilated", "lhs-dilation", conv(window_strides=(1, 2), padding=((1, 1), (2, 0)),
                                                       lhs_dilation=(2, 3)),
         (F(1, 2, 3, 4), F(2, 2, 2, 3)),
         lambda x, w: conv_ref(x, w, (1, 2), ((1, 1), (2, 0)), lhs_dilation=(2, 3))),
    Case("conv_general_dilated", "negative-asymmetric-padding", conv(window_strides=(1, 1), padding=((2, -1), (-1, 1))),
         (F(1, 2, 5, 6), F(3, 2, 2, 3)), lambda x, w: conv_ref(x, w, (1, 1), ((2, -1), (-1, 1)))),
    Case("conv_general_dilated", "same-lower", conv(window_strides=(2, 2), padding="SAME_LOWER"),
         (F(1, 1, 6, 5), F(2, 1, 4, 2)),
         lambda x, w: conv_ref(x, w, (2, 2), same_pads((6, 5), (4, 2), (2, 2), lower=True))),
    Case("conv_general_dilated", "feature-groups", conv(window_strides=(1, 1), padding="VALID", feature_group_count=2),
         (F(2, 4, 4, 4), F(6, 2, 2, 2)), lambda x, w: conv_ref(x, w, (1, 1), ((0, 0),) * 2, groups=2)),
    Case("conv_general_dilated", "depthwise-multiplier", conv(window_strides=(1, 1), padding="SAME",
                                                               feature_group_count=3),
         (F(1, 3, 5, 4), F(6, 1, 3, 3)),
         lambda x, w: conv_ref(x, w, (1, 1), same_pads((5, 4), (3, 3), (1, 1)), groups=3)),
    Case("conv_general_dilated", "batch-groups", conv(window_strides=(1, 1), padding="VALID", batch_group_count=2),
         (F(4, 2, 4, 3), F(4, 2, 2, 2)), lambda x, w: conv_ref(x, w, (1, 1), ((0, 0),) * 2, batch_groups=2)),
    Case("conv_general_dilated", "nhwc-hwio", conv(window_strides=(1, 2), padding="SAME", dimension_numbers=NHWC),
         (F(2, 5, 6, 3), F(3, 3, 3, 4)),
         lambda x, w: conv_ref(x, w, (1, 2), same_pads((5, 6), (3, 3), (1, 2)), dn=NHWC_DN)),
    Case("conv_general_dilated", "mixed-layouts", conv(window_strides=(2,), padding=((1, 1),), dimension_numbers=MIXED),
         (F(6, 3, 2), F(3, 2, 4)), lambda x, w: conv_ref(x, w, (2,), ((1, 1),), dn=MIXED_DN)),
    Case("conv_general_dilated", "dimension-numbers-object",
         conv(window_strides=(1,), padding="VALID", dimension_numbers=fg.lax.ConvDimensionNumbers(*MIXED_DN)),
         (F(5, 2, 1), F(2, 2, 3)), lambda x, w: conv_ref(x, w, (1,), ((0, 0),), dn=MIXED_DN)),
    Case("conv_general_dilated", "i32", conv(window_strides=(1, 1), padding="SAME"), (I(1, 2, 4, 3), I(2, 2, 3, 2)),
         lambda x, w: conv_ref(x, w, (1, 1), same_pads((4, 3), (3, 2), (1, 1))).astype(np.int64)),
    # ... and the tiled matmul over patches (implicit GEMM).
    Case("conv_general_dilated", "gemm-same", conv(window_strides=(1, 1), padding="SAME"),
         (F(2, 4, 5, 5, lo=-1, hi=1), F(16, 4, 3, 3, lo=-1, hi=1)),
         lambda x, w: conv_ref(x, w, (1, 1), same_pads((5, 5), (3, 3), (1, 1)))),
    Case("conv_general_dilated", "gemm-strided-dilated", conv(window_strides=(2, 1), padding=((1, 2), (-1, 2)),
                                                               lhs_dilation=(1, 2), rhs_dilation=(2, 1)),
         (F(1, 4, 6, 4, lo=-1, hi=1), F(16, 4, 2, 3, lo=-1, hi=1)),
         lambda x, w: conv_ref(x, w, (2, 1), ((1, 2), (-1, 2)), lhs_dilation=(1, 2), rhs_dilation=(2, 1))),
    Case("conv_general_dilated", "gemm-feature-groups", conv(window_strides=(1, 1), padding="VALID",
                                                              feature_group_count=2),
         (F(2, 8, 4, 4, lo=-1, hi=1), F(32, 4, 2, 2, lo=-1, hi=1)),
         lambda x, w: conv_ref(x, w, (1, 1), ((0, 0),) * 2, groups=2)),
    Case("conv_general_dilated", "gemm-batch-groups", conv(window_strides=(1, 1), padding="SAME", batch_group_count=2),
         (F(4, 2, 3, 4, lo=-1, hi=1), F(32, 2, 3, 3, lo=-1, hi=1)),
         lambda x, w: conv_ref(x, w, (1, 1), same_pads((3, 4), (3, 3), (1, 1)), batch_groups=2)),
    Case("conv_general_dilated", "gemm-nhwc", conv(window_strides=(1, 1), padding="SAME", dimension_numbers=NHWC),
         (F(2, 4, 3, 8, lo=-1, hi=1), F(2, 2, 8, 16, lo=-1, hi=1)),
         lambda x, w: conv_ref(x, w, (1, 1), same_pads((4, 3), (2, 2), (1, 1)), dn=NHWC_DN)),
    # patches: windows gathered in place (here summed: fg.lax.reduce_window with add)
    Case("patches", "window-sum", _sum_windows, (F(2, 5, 6),),
         lambda x: window_ref(x, "add", 0.0, *SUM_2X3.values())),
    Case("patches", "dilated-window-sum", lambda x: fg.lax.reduce_window(
        x, 0.0, fg.lax.add, (2, 2), (1, 2), ((1, 1), (0, 1)), base_dilation=(2, 1), window_dilation=(1, 2)),
         (F(3, 5),), lambda x: window_ref(x, "add", 0.0, (2, 2), (1, 2), ((1, 1), (0, 1)), (2, 1), (1, 2))),
    Case("patches", "max-pool", lambda x: fg.nn.max_pool(x, (2, 3), (2, 1), "SAME"), (F(2, 5, 6, 3),),
         lambda x: pool_ref(x, "max", (2, 3), (2, 1), "SAME")),
    Case("patches", "max-pool-ties", lambda x: fg.nn.max_pool(x, (2, 2)), (Fi(1, 4, 5, 2),),
         lambda x: pool_ref(x, "max", (2, 2))),
    Case("patches", "max-pool-i32", lambda x: fg.nn.max_pool(x, (3, 2), (1, 2), ((1, 1), (0, 1))), (I(1, 4, 5, 2),),
         lambda x: pool_ref(x, "max", (3, 2), (1, 2), ((1, 1), (0, 1))).astype(np.int64)),
    Case("patches", "min-pool-unbatched", lambda x: fg.nn.min_pool(x, (3,), (2,), "SAME"), (F(7, 2),),
         lambda x: pool_ref(x, "min", (3,), (2,), "SAME")),
    Case("patches", "avg-pool", lambda x: fg.nn.avg_pool(x, (2, 2), (2, 2), ((1, 0), (0, 1))), (F(2, 4, 5, 3),),
         lambda x: pool_ref(x, "avg", (2, 2), (2, 2), ((1, 0), (0, 1)))),
    # patches_transpose: the patches' cotangent added back (the VJP of a window sum)
    Case("patches_transpose", "window-sum-vjp", _unpatch, (F(2, 5, 6), F(2, 3, 5)), _unpatch_row_ref),
    Case("patches_transpose", "pool-vjp-dilated", lambda x, g: fg.vjp(lambda x: fg.lax.reduce_window(
        x, 0.0, fg.lax.add, (2, 3), (2, 1), ((0, 1), (1, -1)), base_dilation=(1, 2), window_dilation=(2, 1)),
        x)[1](g)[0],
         (F(4, 4), F(2, 5)),
         lambda x, g: unpatch_ref(g, x.shape, (2, 3), (2, 1), ((0, 1), (1, -1)), (1, 2), (2, 1))),
)

# jnp.convolve / correlate: the longer operand slides, modes full / same / valid.
A7, V3 = F(7), F(3)

API_ROWS: tuple[Case, ...] = (
    Case("conv_general_dilated", "lax-conv", lambda x, w: fg.lax.conv(x, w, (1, 2), "VALID"),
         (F(1, 2, 4, 5), F(3, 2, 2, 2)), lambda x, w: conv_ref(x, w, (1, 2), ((0, 0),) * 2)),
    Case("conv_general_dilated", "lax-conv-with-general-padding", lambda x, w: fg.lax.conv_with_general_padding(
        x, w, (1, 1), ((1, 0), (0, 2)), (2, 1), (1, 2)), (F(1, 2, 3, 3), F(2, 2, 2, 2)),
         lambda x, w: conv_ref(x, w, (1, 1), ((1, 0), (0, 2)), lhs_dilation=(2, 1), rhs_dilation=(1, 2))),
    # conv_transpose: the padding of the forward convolution ('SAME': (k - 1 + ...)), NHWC / HWIO by default
    Case("conv_general_dilated", "conv-transpose-same", lambda x, w: fg.lax.conv_transpose(x, w, (2, 2), "SAME"),
         (F(1, 3, 4, 2), F(3, 3, 2, 3)),
         lambda x, w: conv_ref(x, w, (1, 1), ((2, 1), (2, 1)), lhs_dilation=(2, 2), dn=NHWC_DN)),
    Case("conv_general_dilated", "conv-transpose-valid-kernel", lambda x, w: fg.lax.conv_transpose(
        x, w, (2, 1), "VALID", transpose_kernel=True), (F(1, 3, 2, 2), F(2, 3, 3, 2)),
         lambda x, w: conv_ref(x, np.swapaxes(w[::-1, ::-1], 2, 3), (1, 1), ((1, 1), (2, 2)), lhs_dilation=(2, 1),
                               dn=NHWC_DN)),
    Case("conv_general_dilated", "conv-transpose-pairs", lambda x, w: fg.lax.conv_transpose(
        x, w, (2,), ((1, 0),), dimension_numbers=("NCH", "OIH", "NCH")), (F(1, 2, 3), F(2, 2, 3)),
         lambda x, w: conv_ref(x, w, (1,), ((1, 0),), lhs_dilation=(2,))),
    Case("conv_general_dilated", "conv-transpose-consistent-padding", lambda x, w: fg.lax.conv_transpose(
        x, w, (2,), ((1, 0),), rhs_dilation=(2,), dimension_numbers=("NCH", "OIH", "NCH"),
        use_consistent_padding=True), (F(1, 2, 3), F(2, 2, 2)),
         lambda x, w: conv_ref(x, w, (1,), ((1, 2),), lhs_dilation=(2,), rhs_dilation=(2,))),
    Case("conv_general_dilated", "preferred-element-type", lambda x, w: fg.lax.conv_general_dilated(
        x, w, (1,), "SAME", preferred_element_type="f32"), (H(1, 2, 5), H(2, 2, 3)),
         lambda x, w: conv_ref(x, w, (1,), ((1, 1),))),
    Case("conv_general_dilated", "convolve-full", fg.convolve, (A7, V3), lambda a, v: np.convolve(a, v, "full")),
    Case("conv_general_dilated", "convolve-same-short-first", lambda a, v: fg.convolve(a, v, "same"), (V3, A7),
         lambda a, v: np.convolve(a, v, "same")),
    Case("conv_general_dilated", "convolve-valid-i32", lambda a, v: fg.convolve(a, v, "valid"), (I(6), I(4)),
         lambda a, v: np.convolve(a, v, "valid").astype(np.float64)),
    Case("conv_general_dilated", "correlate-valid", fg.correlate, (A7, V3), lambda a, v: np.correlate(a, v, "valid")),
    Case("conv_general_dilated", "correlate-full-short-first", lambda a, v: fg.correlate(a, v, "full"), (V3, A7),
         lambda a, v: np.correlate(a, v, "full")),
    Case("conv_general_dilated", "correlate-same-even", lambda a, v: fg.correlate(a, v, "same"), (F(6), F(4)),
         lambda a, v: np.correlate(a, v, "same")),
    # windows: a sum started from a value that is not 0 (padding still adds nothing); a max from 0.5
    Case("patches", "reduce-window-init", lambda x: fg.lax.reduce_window(x, 1.0, fg.lax.add, (2, 2), (1, 1),
                                                                          ((1, 0), (0, 1))),
         (F(3, 4),), lambda x: window_ref(x, "add", 1.0, (2, 2), (1, 1), ((1, 0), (0, 1)))),
    Case("patches", "reduce-window-max-init", lambda x: fg.lax.reduce_window(x, 0.5, fg.lax.max, (3,), (2,), "SAME"),
         (F(7),), lambda x: window_ref(x, "max", 0.5, (3,), (2,), same_pads((7,), (3,), (2,)))),
    Case("patches", "avg-pool-count-exclude-pad", lambda x: fg.nn.avg_pool(x, (3, 3), (2, 1), "SAME",
                                                                          count_include_pad=False),
         (F(1, 5, 4, 2),), lambda x: pool_ref(x, "avg", (3, 3), (2, 1), "SAME", count_include_pad=False)),
    Case("patches", "pool-3d", lambda x: fg.nn.max_pool(x, (2, 1, 2), (1, 1, 2)), (F(1, 3, 2, 4, 2),),
         lambda x: pool_ref(x, "max", (2, 1, 2), (1, 1, 2))),
    Case("patches", "pool-generic", lambda x: fg.nn.pool(x, 0.0, fg.lax.add, (2,), None, "VALID"), (F(2, 4, 3),),
         lambda x: window_ref(x, "add", 0.0, (1, 2, 1), (1, 1, 1), ((0, 0),) * 3)),
)

F16_ROWS: tuple[Case, ...] = (
    Case("conv_general_dilated", "f16", conv(window_strides=(1, 1), padding="SAME"), (H(1, 2, 4, 5), H(3, 2, 3, 3)),
         rounded(lambda x, w: conv_ref(x, w, (1, 1), same_pads((4, 5), (3, 3), (1, 1)))), **F16),
    Case("conv_general_dilated", "f16-wide", conv(window_strides=(1, 1), padding="SAME", dimension_numbers=NHWC),
         (H(1, 3, 3, 8), H(3, 3, 8, 16)),
         rounded(lambda x, w: conv_ref(x, w, (1, 1), ((1, 1), (1, 1)), dn=NHWC_DN)), **F16),
    Case("patches", "f16-max-pool", lambda x: fg.nn.max_pool(x, (2, 2), (1, 2)), (H(1, 3, 4, 2),),
         lambda x: pool_ref(x, "max", (2, 2), (1, 2)).astype(np.float16)),
    Case("patches", "f16-window-sum", _sum_windows, (H(2, 5, 6),),
         rounded(lambda x: window_ref(x, "add", 0.0, *SUM_2X3.values())), **F16),
    Case("patches_transpose", "f16", _unpatch, (H(2, 5, 6), H(2, 3, 5)), rounded(_unpatch_row_ref), **F16),
)

U32_ROWS: tuple[Case, ...] = (
    Case("conv_general_dilated", "u32", conv(window_strides=(1, 1), padding="VALID"), (U(1, 2, 4, 3), U(2, 2, 2, 2)),
         lambda x, w: conv_ref(x, w, (1, 1), ((0, 0),) * 2).astype(np.uint32)),
    Case("patches", "u32-max-pool", lambda x: fg.nn.max_pool(x, (2, 2), padding="SAME"), (U(1, 3, 3, 2),),
         lambda x: pool_ref(x, "max", (2, 2), None, "SAME").astype(np.uint32)),
)
