"""ONNX export rules of the primitives that move elements, reduce and normalize: matmul, shapes,
gathers, scatters and windows at traced starts, reductions, arg-reductions, softmaxes and scans."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from fgrad.export.onnx import dtype_of, onnx_rules
from fgrad.primitives import (
    argmax_p, argmin_p, broadcast_to_p, concatenate_p, conv_general_dilated_p, cummax_p, cummin_p, cumprod_p,
    cumsum_p, dynamic_slice_p, dynamic_update_slice_p, log_softmax_p, matmul_p, max_p, min_p, pad_p, prod_p,
    reshape_p, rev_p, scatter_add_p, scatter_p, slice_p, softmax_p, sum_p, take_p, transpose_p,
)

F32, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


def _ints(emit, values) -> str:
    """An i64 constant: a scalar for an int, else a vector."""
    return emit.const(values if isinstance(values, int) else list(values), np.int64)


def _wide(emit, name: str, node_dtype: np.dtype) -> tuple[str, int | None]:
    """The value in the type its sums, products and scans run in: f16 in f32; i32 and u32 in i64 (cast
    back, their results wrap as interpret's); the ONNX type it is in."""
    if node_dtype == np.float16:
        return emit.op("Cast", [name], to=F32), F32
    if node_dtype.kind in "iu":
        return emit.op("Cast", [name], to=I64), I64
    return name, None


def _back(emit, name: str, wide: int | None, node) -> str:
    return name if wide is None else emit.op("Cast", [name], to=dtype_of(node))


# matmul: batch dims broadcast as ONNX's MatMul does; f16 accumulates in f32, i32 and u32 in i64.
def _matmul(emit, node, inputs):
    dtype = node.spec.dtype.np
    (a, wide), (b, _) = _wide(emit, inputs[0], dtype), _wide(emit, inputs[1], dtype)
    return _back(emit, emit.op("MatMul", [a, b]), wide, node)


onnx_rules.register(matmul_p, _matmul)
onnx_rules.register(reshape_p, lambda emit, node, inputs, *, shape: emit.op(
    "Reshape", [inputs[0], _ints(emit, shape)], allowzero=1))
onnx_rules.register(transpose_p, lambda emit, node, inputs, *, perm: emit.op("Transpose", inputs, perm=list(perm)))
onnx_rules.register(broadcast_to_p, lambda emit, node, inputs, *, shape: emit.op(
    "Expand", [inputs[0], _ints(emit, shape)]))
onnx_rules.register(slice_p, lambda emit, node, inputs, *, starts, stops, steps: emit.op(
    "Slice", [inputs[0], _ints(emit, starts), _ints(emit, stops), _ints(emit, range(len(starts))), _ints(emit, steps)]))
onnx_rules.register(concatenate_p, lambda emit, node, inputs, *, axis: emit.op("Concat", inputs, axis=axis))


# rev: a slice of step -1 from the last element past the first.
def _rev(emit, node, inputs, *, axes):
    if not axes:
        return emit.op("Identity", inputs)
    return emit.op("Slice", [inputs[0], _ints(emit, [-1] * len(axes)), _ints(emit, [np.iinfo(np.int64).min] * len(axes)),
                             _ints(emit, axes), _ints(emit, [-1] * len(axes))])


onnx_rules.register(rev_p, _rev)


# pad: interior padding first, axis by axis (each element followed by `interior` fill values along a new
# axis, merged back, the trailing fill sliced off), then the low and high padding.
def _pad(emit, node, inputs, *, widths, value):
    shape = [(s - lo - hi + mid) // (mid + 1) for s, (lo, hi, mid) in zip(node.spec.shape, widths)]  # the operand's
    return _padded(emit, inputs[0], shape, widths, emit.const(np.asarray(value, node.spec.dtype.np)))


def _padded(emit, x: str, shape: list[int], widths, fill: str) -> str:
    """`x` (of `shape`) padded by `widths` (low, high, interior per axis; negative crops) with `fill`."""
    shape = list(shape)
    for axis, (_, _, mid) in enumerate(widths):
        n = shape[axis]
        if mid == 0 or n == 0:
            continue
        x = emit.op("Reshape", [x, _ints(emit, shape[:axis + 1] + [1] + shape[axis + 1:])], allowzero=1)
        pads = [0] * (len(shape) + 1) * 2
        pads[len(shape) + 1 + axis + 1] = mid
        x = emit.op("Pad", [x, _ints(emit, pads), fill], mode="constant")
        x = emit.op("Reshape", [x, _ints(emit, shape[:axis] + [n * (mid + 1)] + shape[axis + 1:])], allowzero=1)
        x = emit.op("Slice", [x, _ints(emit, [0]), _ints(emit, [n * (mid + 1) - mid]), _ints(emit, [axis])])
        shape[axis] = n * (mid + 1) - mid
    if not any(lo or hi for lo, hi, _ in widths):
        return emit.op("Identity", [x])
    return emit.op("Pad", [x, _ints(emit, [lo for lo, _, _ in widths] + [hi for _, hi, _ in widths]), fill],
                   mode="constant")


onnx_rules.register(pad_p, _pad)


def _size(emit, x: str, axis: int) -> str:
    """The size of axis `axis` of the value `x`, an i64 scalar (rules see their operands' names only)."""
    return emit.op("Reshape", [emit.op("Shape", [x], start=axis, end=axis + 1), _ints(emit, [])])


# take: a Gather at indices (in i64) clipped into [0, n); with "fill", from x with a row of fill_value
# appended along the axis, which the indices outside [0, n) read.
def _take(emit, node, inputs, *, axis, mode, fill_value):
    x, idx = inputs
    i, n = emit.op("Cast", [idx], to=I64), _size(emit, x, axis)
    if mode == "clip":
        return emit.op("Gather", [x, emit.op("Clip", [i, _ints(emit, 0), emit.op("Sub", [n, _ints(emit, 1)])])],
                       axis=axis)
    x = emit.op("Pad", [x, _ints(emit, [0, 1]), emit.const(fill_value.array, node.spec.dtype.np), _ints(emit, [axis])],
                mode="constant")
    inside = emit.op("And", [emit.op("GreaterOrEqual", [i, _ints(emit, 0)]), emit.op("Less", [i, n])])
    return emit.op("Gather", [x, emit.op("Where", [inside, i, n])], axis=axis)


onnx_rules.register(take_p, _take)


# dynamic_slice / dynamic_update_slice: starts clamped into [0, n - size], as the impls clamp them.
def _starts(emit, x: str, starts, sizes: str) -> str:
    at = emit.op("Concat", [emit.op("Reshape", [emit.op("Cast", [s], to=I64), _ints(emit, [1])]) for s in starts], axis=0)
    return emit.op("Max", [emit.op("Min", [at, emit.op("Sub", [emit.op("Shape", [x]), sizes])]), _ints(emit, [0])])


def _dynamic_slice(emit, node, inputs, *, slice_sizes):
    x, *starts = inputs
    if not starts:
        return emit.op("Identity", [x])
    sizes = _ints(emit, slice_sizes)
    at = _starts(emit, x, starts, sizes)
    return emit.op("Slice", [x, at, emit.op("Add", [at, sizes]), _ints(emit, range(len(starts)))])


# dynamic_update_slice: the update and a mask of ones padded to x's shape at the window; Where picks.
def _dynamic_update_slice(emit, node, inputs):
    x, update, *starts = inputs
    if not starts:
        return emit.op("Identity", [update])
    sizes = emit.op("Shape", [update])
    at = _starts(emit, x, starts, sizes)
    pads = emit.op("Concat", [at, emit.op("Sub", [emit.op("Sub", [emit.op("Shape", [x]), sizes]), at])], axis=0)
    ones = emit.op("ConstantOfShape", [sizes], value=helper.make_tensor("one", TensorProto.UINT8, [1], [1]))
    mask = emit.op("Cast", [emit.op("Pad", [ones, pads], mode="constant")], to=TensorProto.BOOL)
    if node.spec.dtype.kind == "b":  # onnxruntime's Where takes no bools: Or the padded update in x's place
        return emit.op("Or", [emit.op("And", [emit.op("Not", [mask]), x]), emit.op("Pad", [update, pads], mode="constant")])
    return emit.op("Where", [mask, emit.op("Pad", [update, pads], mode="constant"), x])


onnx_rules.register(dynamic_slice_p, _dynamic_slice)
onnx_rules.register(dynamic_update_slice_p, _dynamic_update_slice)


# sum and prod: in the wide type (f16 in f32; i32 and u32 in i64, wrapping once cast back).
def _fold(op: str):
    def rule(emit, node, inputs, *, axes):
        if not axes:
            return emit.op("Identity", inputs)
        x, wide = _wide(emit, inputs[0], node.spec.dtype.np)
        return _back(emit, emit.op(op, [x, _ints(emit, axes)], keepdims=0), wide, node)

    return rule


onnx_rules.register(sum_p, _fold("ReduceSum"))
onnx_rules.register(prod_p, _fold("ReduceProd"))


# max and min: each reduced axis padded with the identity (so that an empty one gives it, as the
# impl's `initial`), bools as u8, f16 in f32 and u32 in i64 (exact); NaN wins.
def _pick(which: str):
    def rule(emit, node, inputs, *, axes):
        if not axes:
            return emit.op("Identity", inputs)
        dtype = node.spec.dtype.np
        x, wide = inputs[0], {np.dtype(np.float16): F32, np.dtype(bool): TensorProto.UINT8, np.dtype(np.uint32): I64}.get(dtype)
        if wide is not None:
            x = emit.op("Cast", [x], to=wide)
        if dtype.kind == "b":
            identity = np.uint8(which == "min")
        elif dtype.kind in "iu":
            identity = np.asarray(np.iinfo(dtype).min if which == "max" else np.iinfo(dtype).max,
                                  np.int64 if wide == I64 else dtype)
        else:
            identity = np.float32(-np.inf if which == "max" else np.inf)
        x = emit.op("Pad", [x, _ints(emit, [0] * len(axes) + [1] * len(axes)), emit.const(identity), _ints(emit, axes)],
                    mode="constant")
        out = emit.op("ReduceMax" if which == "max" else "ReduceMin", [x, _ints(emit, axes)], keepdims=0)
        if dtype.kind == "f":
            nan = emit.op("ReduceMax", [emit.op("Cast", [emit.op("IsNaN", [x])], to=TensorProto.UINT8),
                                        _ints(emit, axes)], keepdims=0)
            out = emit.op("Where", [emit.op("Cast", [nan], to=TensorProto.BOOL), emit.const(np.float32(np.nan)), out])
        return _back(emit, out, wide, node)

    return rule


onnx_rules.register(max_p, _pick("max"))
onnx_rules.register(min_p, _pick("min"))


# argmax / argmin: in f64 (exact for every numeric dtype); the first best (select_last_index=0), in i32;
# where a row holds a NaN, its first NaN.
def _arg(op: str):
    def rule(emit, node, inputs, *, axes):
        (axis,) = axes
        x = emit.op("Cast", inputs, to=TensorProto.DOUBLE)
        nan = emit.op("Cast", [emit.op("IsNaN", [x])], to=I32)
        first_nan = emit.op("ArgMax", [nan], axis=axis, keepdims=0)
        has_nan = emit.op("Cast", [emit.op("ReduceMax", [nan, _ints(emit, [axis])], keepdims=0)], to=TensorProto.BOOL)
        out = emit.op("Where", [has_nan, first_nan, emit.op(op, [x], axis=axis, keepdims=0)])
        return emit.op("Cast", [out], to=I32)

    return rule


onnx_rules.register(argmax_p, _arg("ArgMax"))
onnx_rules.register(argmin_p, _arg("ArgMin"))


# softmax / log_softmax, stably, step by step as the impls: f16 computed in f32, each step rounded to
# f16 where the impl's is, the sum of exponentials accumulated in f32.
def _softmax(log: bool):
    def rule(emit, node, inputs, *, axis):
        half = node.spec.dtype.np == np.float16

        def rounded(v: str) -> str:
            return emit.op("Cast", [emit.op("Cast", [v], to=TensorProto.FLOAT16)], to=F32) if half else v

        x = emit.op("Cast", inputs, to=F32) if half else inputs[0]
        axes = _ints(emit, [axis])
        shifted = rounded(emit.op("Sub", [x, emit.op("ReduceMax", [x, axes], keepdims=1)]))
        total = rounded(emit.op("ReduceSum", [rounded(emit.op("Exp", [shifted])), axes], keepdims=1))
        out = (emit.op("Sub", [shifted, rounded(emit.op("Log", [total]))]) if log
               else emit.op("Div", [rounded(emit.op("Exp", [shifted])), total]))
        return emit.op("Cast", [out], to=TensorProto.FLOAT16) if half else out

    return rule


onnx_rules.register(softmax_p, _softmax(log=False))
onnx_rules.register(log_softmax_p, _softmax(log=True))


def _cumsum(emit, node, inputs, *, axis, reverse):
    x, wide = _wide(emit, inputs[0], node.spec.dtype.np)
    return _back(emit, emit.op("CumSum", [x, emit.const(axis, np.int64)], reverse=int(reverse)), wide, node)


onnx_rules.register(cumsum_p, _cumsum)


# scatter / scatter_add: one ScatterElements along `axis` (updates in index order, so "set" keeps the
# last), the indices flattened and broadcast across the updates' other axes; "clip" clamps them, "drop"
# sends those outside [0, n) to a dummy row appended to x and sliced off after. Bools combine as u8;
# f16 in f32, rounded once (a row's several updates are rounded once, not after each as interpret's).
# onnxruntime's min and max let a NaN in x lose, so a scatter of the NaN flags puts it back.
_REDUCTIONS = {"set": "none", "add": "add", "mul": "mul", "min": "min", "max": "max"}


def _scatter_into(emit, node, x: str, updates: str, idx: str, axis: int, mode: str, combine: str) -> str:
    shape, ishape = list(node.spec.shape), emit.specs[idx].shape
    n, count, rest = shape[axis], int(np.prod(ishape, dtype=np.int64)), shape[axis + 1:]
    i = emit.op("Reshape", [emit.op("Cast", [idx], to=I64), _ints(emit, [count])], allowzero=1)
    if mode == "clip":
        i = emit.op("Clip", [i, _ints(emit, 0), _ints(emit, n - 1)])
    else:
        inside = emit.op("And", [emit.op("GreaterOrEqual", [i, _ints(emit, 0)]), emit.op("Less", [i, _ints(emit, n)])])
        i = emit.op("Where", [inside, i, _ints(emit, n)])
        x = emit.op("Pad", [x, _ints(emit, [0, 1]), emit.const(np.zeros((), node.spec.dtype.np)),
                            _ints(emit, [axis])], mode="constant")
    u_shape = shape[:axis] + [count] + rest
    u = emit.op("Reshape", [updates, _ints(emit, u_shape)], allowzero=1)
    i = emit.op("Expand", [emit.op("Reshape", [i, _ints(emit, [1] * axis + [count] + [1] * len(rest))], allowzero=1),
                           _ints(emit, u_shape)])
    wide = {np.dtype(bool): TensorProto.UINT8, np.dtype(np.float16): F32}.get(node.spec.dtype.np)
    if wide is not None:
        x, u = emit.op("Cast", [x], to=wide), emit.op("Cast", [u], to=wide)
    out = emit.op("ScatterElements", [x, i, u], axis=axis, reduction=_REDUCTIONS[combine])
    if combine in ("min", "max") and node.spec.dtype.kind == "f":  # NaN wins: where either side held one
        nan = [emit.op("Cast", [emit.op("IsNaN", [v])], to=TensorProto.UINT8) for v in (x, u)]
        nan = emit.op("Cast", [emit.op("ScatterElements", [nan[0], i, nan[1]], axis=axis, reduction="max")],
                      to=TensorProto.BOOL)
        out = emit.op("Where", [nan, emit.const(np.float32(np.nan) if wide else np.asarray(np.nan, node.spec.dtype.np)),
                                out])
    out = _back(emit, out, wide, node)
    if mode != "clip":
        out = emit.op("Slice", [out, _ints(emit, [0]), _ints(emit, [n]), _ints(emit, [axis])])
    return out


onnx_rules.register(scatter_p, lambda emit, node, inputs, *, axis, mode, combine: _scatter_into(
    emit, node, inputs[0], inputs[1], inputs[2], axis, mode, combine))
onnx_rules.register(scatter_add_p, lambda emit, node, inputs, *, axis, size, mode: _scatter_into(
    emit, node, emit.op("Expand", [emit.const(np.zeros((), node.spec.dtype.np)), _ints(emit, node.spec.shape)]),
    inputs[0], inputs[1], axis, mode, "add"))


# cumprod / cummax / cummin: a log-depth scan, each step combining the running values with themselves
# shifted by 1, 2, 4, ... along the axis (the identity shifted in); products in the wide type (f16 in
# f32, i32 and u32 in i64, wrapping as interpret's), max and min with f16 in f32 and u32 in i64 (exact),
# a NaN winning from where it stands on.
def _scan(op: str):
    def rule(emit, node, inputs, *, axis, reverse):
        dtype, n = node.spec.dtype.np, node.spec.shape[axis]
        if op == "Mul":
            x, wide = _wide(emit, inputs[0], dtype)
        else:
            x, wide = inputs[0], {np.dtype(np.float16): F32, np.dtype(np.uint32): I64}.get(dtype)
            x = x if wide is None else emit.op("Cast", [x], to=wide)
        kind = {F32: np.float32, I64: np.int64}.get(wide, dtype)
        if op == "Mul":
            identity = np.ones((), kind)
        elif dtype.kind == "f":
            identity = np.asarray(-np.inf if op == "Max" else np.inf, kind)
        else:
            identity = np.asarray(np.iinfo(dtype).min if op == "Max" else np.iinfo(dtype).max, kind)
        y, shift, axes = x, 1, _ints(emit, [axis])
        while shift < n:
            kept = (emit.op("Slice", [y, _ints(emit, [shift]), _ints(emit, [n]), axes]) if reverse
                    else emit.op("Slice", [y, _ints(emit, [0]), _ints(emit, [n - shift]), axes]))
            pads = [0, shift] if reverse else [shift, 0]
            y = emit.op(op, [y, emit.op("Pad", [kept, _ints(emit, pads), emit.const(identity), axes], mode="constant")])
            shift *= 2
        if op != "Mul" and dtype.kind == "f":
            seen = emit.op("CumSum", [emit.op("Cast", [emit.op("IsNaN", [x])], to=I32), emit.const(axis, np.int64)],
                           reverse=int(reverse))
            nan = emit.const(np.asarray(np.nan, kind))
            y = emit.op("Where", [emit.op("Greater", [seen, emit.const(0, np.int32)]), nan, y])
        return _back(emit, y, wide, node)

    return rule


onnx_rules.register(cumprod_p, _scan("Mul"))
onnx_rules.register(cummax_p, _scan("Max"))
onnx_rules.register(cummin_p, _scan("Min"))


# conv_general_dilated: as the impl, in the canonical layouts (N, C, *S) and (O, I, *K): the lhs dilated
# and padded, one strided Slice per window position stacked into the patches (N, C, *OS, K), then one
# Einsum per the groups, in the wide type (f16 in f32; i32 and u32 in i64, wrapping as interpret's).
def _conv(emit, node, inputs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
          feature_group_count, batch_group_count):
    ls, rs, os_ = dimension_numbers
    lshape, rshape = emit.specs[inputs[0]].shape, emit.specs[inputs[1]].shape
    (x, wide), (k, _) = _wide(emit, inputs[0], node.spec.dtype.np), _wide(emit, inputs[1], node.spec.dtype.np)
    x, k = emit.op("Transpose", [x], perm=list(ls)), emit.op("Transpose", [k], perm=list(rs))
    (N, C, *S), (O, I, *K) = [lshape[a] for a in ls], [rshape[a] for a in rs]
    n, out = len(S), [node.spec.shape[a] for a in os_]
    fill = emit.const(np.zeros((), {F32: np.float32, I64: np.int64}.get(wide, node.spec.dtype.np)))
    x = _padded(emit, x, [N, C, *S], [(0, 0, 0), (0, 0, 0), *((lo, hi, b - 1) for (lo, hi), b in
                                                               zip(padding, lhs_dilation))], fill)
    axes, taken = _ints(emit, range(2, n + 2)), []
    for offset in np.ndindex(*K):
        starts = [j * d for j, d in zip(offset, rhs_dilation)]
        stops = [a + (m - 1) * s + 1 for a, m, s in zip(starts, out[2:], window_strides)]
        piece = emit.op("Slice", [x, _ints(emit, starts), _ints(emit, stops), axes, _ints(emit, window_strides)])
        taken.append(emit.op("Unsqueeze", [piece, _ints(emit, [n + 2])]))
    p = emit.op("Concat", taken, axis=n + 2) if len(taken) > 1 else taken[0]
    G, B, window = feature_group_count, batch_group_count, int(np.prod(K, dtype=np.int64))
    p = emit.op("Reshape", [p, _ints(emit, [B, N // B, G, C // G, *out[2:], window])], allowzero=1)
    k = emit.op("Reshape", [k, _ints(emit, [B * G, O // (B * G), I, window])], allowzero=1)
    at = "abcdefhjklmpqrstuvxy"[:n]  # the output positions' letters, none of g, i, n, o, w, z
    equation = f"gnzi{at}w,goiw->ngo{at}" if B > 1 else f"zngi{at}w,goiw->ngo{at}"
    y = emit.op("Reshape", [emit.op("Einsum", [p, k], equation=equation), _ints(emit, out)], allowzero=1)
    return _back(emit, emit.op("Transpose", [y], perm=[int(a) for a in np.argsort(os_)]), wide, node)


onnx_rules.register(conv_general_dilated_p, _conv)
