"""Kernels shaped for CPU adapters (`Limits.cpu`: the register-tiled matmul, an invocation per
result or row for reductions) and for GPUs, both lowered explicitly and run on the local
adapter against `interpret`, so each shape keeps running wherever the tests do."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn
from fgrad.lower import Limits, disk_cache, lower
from fgrad.lower.matmul_cpu import strided
from fgrad.runtime import Executable, default_device

RNG = np.random.default_rng(0)


def _normal(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


T = fg.dim("T", max=40)

# name -> (function, arguments, spec of each argument where it differs (a symbolic one)).
MATMULS = {
    "square": (lambda a, b: a @ b, (_normal(64, 64), _normal(64, 64))),
    "ragged": (lambda a, b: a @ b, (_normal(37, 19), _normal(19, 23))),
    "one_row": (lambda a, b: a @ b, (_normal(1, 70), _normal(70, 30))),
    "k_of_one": (lambda a, b: a @ b, (_normal(10, 1), _normal(1, 30))),
    "odd_k": (lambda a, b: a @ b, (_normal(12, 7), _normal(7, 40))),
    "empty_k": (lambda a, b: fg.relu(a @ b + 1.0), (_normal(5, 0), _normal(0, 7))),
    "batched": (lambda a, b: a @ b, (_normal(3, 9, 5), _normal(3, 5, 17))),
    "broadcast_batch": (lambda a, b: a @ b, (_normal(2, 1, 9, 5), _normal(3, 5, 17))),
    "weight_shared": (lambda a, b: a @ b, (_normal(4, 6, 8), _normal(8, 12))),
    "a_transposed": (lambda a, b: a.T @ b, (_normal(5, 9), _normal(5, 17))),
    "b_transposed": (lambda a, b: a @ b.T, (_normal(9, 5), _normal(17, 5))),
    "both_transposed": (lambda a, b: fg.swapaxes(a, -1, -2) @ fg.swapaxes(b, -1, -2),
                        (_normal(2, 6, 11), _normal(2, 13, 6))),
    "bias_relu": (lambda a, b, c: fg.relu(a @ b + c), (_normal(33, 16), _normal(16, 70), _normal(70))),
    "residual": (lambda a, b, r: fg.tanh(a @ b) * 0.5 + r, (_normal(20, 24), _normal(24, 36), _normal(20, 36))),
    "same_operand": (lambda a: a @ a.T, (_normal(14, 9),)),
    # Operands bound as vec4s (rows a multiple of 4 long): A along k, B along its columns.
    "vec4_operands": (lambda a, b: a @ b, (_normal(9, 28), _normal(28, 44))),
    "vec4_ragged_columns": (lambda a, b: a @ b, (_normal(37, 24), _normal(24, 36))),
    "vec4_b_read_twice": (lambda a, b: fg.relu(a @ b + b[0] * 2.0), (_normal(16, 32), _normal(32, 64))),
    "vec4_long_k": (lambda a, b: a @ b, (_normal(16, 260), _normal(260, 32))),  # summed in blocks
    "odd_long_k": (lambda a, b: a @ b, (_normal(9, 133), _normal(133, 10))),
    # Operands read from texture copies (f32 buffers, or their last two axes swapped, rows of 64k values).
    "texture_operands": (lambda a, b: a @ b, (_normal(16, 64), _normal(64, 128))),
    "texture_a_transposed": (lambda a, b: a.T @ b, (_normal(32, 64), _normal(32, 64))),
    "texture_b_transposed": (lambda a, b: a @ b.T, (_normal(40, 128), _normal(128, 128))),
    "texture_batched_ragged": (lambda a, b: fg.swapaxes(a, -1, -2) @ b, (_normal(2, 64, 9), _normal(2, 64, 192))),
    "texture_broadcast_batch": (lambda a, b: a @ fg.swapaxes(b, -1, -2), (_normal(3, 2, 8, 64), _normal(2, 16, 64))),
    "texture_long_k": (lambda a, b: fg.relu(a @ b + 1.0), (_normal(40, 320), _normal(320, 128))),  # summed in blocks
    "texture_split_k": (lambda a, b: a @ b, (_normal(16, 256), _normal(256, 64))),  # A's split rows, B's kept whole
    "texture_b_read_twice": (lambda a, b: a @ b + b[0] * 2.0, (_normal(16, 64), _normal(64, 64))),
    # Rows of a copy's 256 bytes or not: the buffer's texels wrapped at a width dividing them.
    "texture_wrapped": (lambda a, b: a @ b, (_normal(32, 36), _normal(36, 40))),
    "texture_wrapped_transposed": (lambda a, b: a.T @ b, (_normal(36, 32), _normal(36, 40))),
    # A swapped, its 36 rows ragged in tiles of 8: the last tile's texels run past the rows (never stored).
    "texture_wrapped_ragged_rows": (lambda a, b: a.T @ b, (_normal(64, 36), _normal(64, 32))),
    # Chains of views with strides (kinds.View.layout): a weight reshaped then swapped, attention's heads
    # split from rows (a run starting inside a texture row; B's steps of k adjacent), slices starting at
    # whole texels, a broadcast, and a slice of a swapped buffer's merged rows that strides cannot express.
    "texture_weight_swapped": (lambda x, w: x @ w.T, (_normal(2, 8, 64), _normal(32, 64))),
    "texture_heads": (lambda q, k: fg.transpose(q.reshape(2, 8, 2, 32), (0, 2, 1, 3)) @
                      fg.transpose(k.reshape(2, 8, 2, 32), (0, 2, 3, 1)), (_normal(2, 8, 64), _normal(2, 8, 64))),
    "texture_heads_values": (lambda p, v: p @ fg.transpose(v.reshape(2, 12, 2, 32), (0, 2, 1, 3)),
                             (_normal(2, 2, 12, 12), _normal(2, 12, 64))),
    "texture_sliced": (lambda a, b: a[2:34, 4:68] @ b[:, 8:], (_normal(40, 72), _normal(64, 40))),
    "texture_broadcast_rows": (lambda a, b: fg.broadcast_to(a, (3, 8, 64)) @ b, (_normal(8, 64), _normal(3, 64, 32))),
    # Heads put back side by side: a run of texels in two factors (kinds.Layout), as A's k and as B's columns.
    "texture_heads_merged": (lambda o, w: fg.transpose(o, (0, 2, 1, 3)).reshape(2, 8, 64) @ w,
                             (_normal(2, 2, 8, 32), _normal(64, 32))),
    "texture_heads_merged_columns": (lambda x, o: x.reshape(16, 64).T @ fg.transpose(o, (0, 2, 1, 3)).reshape(16, 64),
                                     (_normal(2, 8, 64), _normal(2, 2, 8, 32))),
    # Rows starting inside the texture's rows: texel t at column t % width, row t / width.
    "texture_rows_across": (lambda a, b: a.reshape(1024)[16:976].reshape(15, 64) @ b,
                            (_normal(16, 64), _normal(64, 32))),
    "texture_unstrided_reshape": (lambda a, b: a.T.reshape(32, 32)[1:] @ b, (_normal(64, 16), _normal(32, 32))),
}
TEXTURES = {"square": 2, "weight_shared": 1, "vec4_b_read_twice": 1, "vec4_long_k": 1, "texture_operands": 2,
            "texture_a_transposed": 2, "texture_b_transposed": 2, "texture_batched_ragged": 1,
            "texture_broadcast_batch": 2, "texture_long_k": 2, "texture_b_read_twice": 1, "texture_split_k": 2,
            "texture_wrapped": 1, "texture_wrapped_transposed": 1, "texture_wrapped_ragged_rows": 2,
            "texture_weight_swapped": 2, "texture_heads": 2, "texture_heads_values": 2, "texture_sliced": 2,
            "texture_broadcast_rows": 2, "texture_heads_merged": 2, "texture_heads_merged_columns": 2,
            "texture_rows_across": 2, "texture_unstrided_reshape": 1}


def _limits(cpu: bool) -> Limits:
    """The local adapter's limits, with kernels shaped for a CPU (of 2 cores, so that the tiles,
    which the cores' count sizes, are the same on any machine) or for a GPU."""
    limits = dataclasses.replace(default_device().limits, cpu=cpu)
    return dataclasses.replace(limits, parallel_workgroups=2) if cpu else limits


def _run(graph: fg.Graph, args: tuple, cpu: bool, rtol: float = 1e-4, atol: float = 1e-4) -> Executable:
    """Lower `graph` for a CPU or a GPU, run it on the local adapter and compare with interpret."""
    exe = Executable(lower(graph, _limits(cpu)))
    got = fg.tree_util.tree_leaves(exe(*args))
    want = fg.tree_util.tree_leaves(fg.interpret(graph, *args))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=rtol, atol=atol)
    return exe


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
@pytest.mark.parametrize("name", list(MATMULS))
def test_matmul(name, cpu):
    fn, args = MATMULS[name]
    exe = _run(fg.trace(fn, *args), args, cpu)
    if cpu and name in ("vec4_operands", "vec4_ragged_columns"):
        assert exe.kernels[0][1].count("array<vec4<f32>>") == 2
    if cpu:  # every matmul operand of an f32 buffer read once, its texels a multiple of 16, from a texture
        assert sum(t[4] == 4 for k in exe.program.kernels for t in k.textures) == TEXTURES.get(name, 0)
        declared = sum(k.wgsl.count("texture_storage_2d<rgba32float, read>") for k in exe.program.kernels)
        assert declared == TEXTURES.get(name, 0)


# name -> (views of a buffer, its shape, whether strides express them, digits of mixed radix in an axis).
VIEWS = {
    "split": (lambda x: x.reshape(4, 2, 8), (8, 8), True),
    "ones": (lambda x: x.reshape(1, 8, 1, 8), (8, 8), True),
    "swapped_then_split": (lambda x: x.T.reshape(2, 4, 8), (8, 8), True),
    "swapped_then_merged": (lambda x: x.T.reshape(64), (8, 8), True),
    "swapped_then_regrouped": (lambda x: x.T.reshape(4, 16), (8, 8), True),
    "heads": (lambda x: fg.transpose(x.reshape(2, 4, 2, 4), (0, 2, 3, 1)), (2, 4, 8), True),
    "heads_merged": (lambda x: fg.transpose(x.reshape(2, 4, 2, 4), (0, 2, 1, 3)).reshape(4, 16), (2, 4, 8), True),
    "merged_then_sliced": (lambda x: x.T.reshape(64)[3:40], (8, 8), False),
    "strided_slice": (lambda x: x[1:7:2, 2::3], (8, 9), True),
    "slice_then_split": (lambda x: x[:, 2:6].reshape(8, 2, 2), (8, 8), True),
    "slice_then_merged": (lambda x: x[:, 2:6].reshape(32), (8, 8), True),
    "slice_then_regrouped": (lambda x: x[:, 1:4].reshape(4, 6), (8, 6), True),
    "slice_across_digits": (lambda x: x[:, 1:4].reshape(3, 8), (8, 6), False),
    "broadcast": (lambda x: fg.broadcast_to(x[:, None, 1:], (4, 3, 5)), (4, 6), True),
    "broadcast_then_merged": (lambda x: fg.broadcast_to(x[:, None], (4, 3, 6)).reshape(12, 6), (4, 6), True),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_view_layouts(name):
    """Where strides express a chain of views (kinds.View.layout), they give each element's place
    in the buffer: checked on a buffer of its own indices. An axis's coordinate is a number in
    mixed radix over its factors' sizes, each digit stepping its factor's stride."""
    fn, shape, expressible = VIEWS[name]
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    graph = fg.trace(lambda x: -fn(x), x)  # (a view is read inside a kernel)
    found = strided(graph, graph.nodes[graph.outputs[0]].inputs[0], range(len(graph.nodes)), graph.inputs)
    assert (found is not None) == expressible
    if found:
        bound, at = found
        assert bound == graph.inputs[0]
        want = -np.asarray(fg.interpret(graph, x))
        places = np.full(want.shape, at.offset)
        for n, c, factors in zip(want.shape, np.indices(want.shape), at.axes):
            sizes = [size for size, _ in factors]
            assert math.prod(sizes) == n
            for digit, (_, stride) in zip(np.unravel_index(c, sizes) if sizes else (), factors):
                places += digit * stride
        np.testing.assert_array_equal(places, want)


def test_cpu_matmul_sums_a_long_k_as_accurately_as_the_vector_kernel():
    """A row times a matrix over k = 576 in one invocation: summed in blocks, it keeps to 1e-5 of
    the float64 product (as the GPU's matrix-vector kernel, test_lower.py, does)."""
    rng = np.random.default_rng(576)
    x, w, b = (rng.normal(size=s).astype(np.float32) for s in ((1, 576), (576, 130), (130,)))
    graph = fg.trace(lambda x, w, b: fg.tanh(x @ w + b), x, w, b)
    program = lower(graph, _limits(True))
    assert "total_" in program.kernels[0].wgsl
    np.testing.assert_allclose(np.asarray(Executable(program)(x, w, b)), np.tanh(x.astype(np.float64) @ w + b),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
def test_matmul_gradient(cpu):
    """The backward pass: products of transposed operands, and epilogues of the forward's."""
    x, w, b = _normal(12, 20), _normal(20, 16), _normal(16)
    graph = fg.value_and_grad(fg.trace(lambda p, x: fg.tanh(x @ p["w"] + p["b"]).sum(), {"w": w, "b": b}, x))
    _run(graph, ({"w": w, "b": b}, x), cpu)


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
def test_matmul_symbolic_rows(cpu):
    """A symbol's rows: one program, run at several values of T."""
    w = _normal(24, 18)
    graph = fg.trace(lambda x, w: fg.relu(x @ w), fg.spec((T, 24)), w)
    exe = Executable(lower(graph, _limits(cpu)))
    for t in (1, 7, 40):
        x = _normal(t, 24)
        np.testing.assert_allclose(exe(x, w).numpy(), fg.interpret(graph, x, w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
@pytest.mark.parametrize("k, lengths", [(T, (1, 5, 40)), (fg.dim("U", max=300), (1, 130, 300))],
                         ids=["short", "past_a_block"])
def test_matmul_symbolic_k(cpu, k, lengths):
    """A symbol along k (attention's scores times values): the loop runs to its value; where its
    maximum is past a block, whole blocks, a short one and the odd steps."""
    graph = fg.trace(lambda p, v: p @ v, fg.spec((2, 8, k)), fg.spec((2, k, 12)))
    exe = Executable(lower(graph, _limits(cpu)))
    for t in lengths:
        p, v = _normal(2, 8, t), _normal(2, t, 12)
        np.testing.assert_allclose(exe(p, v).numpy(), fg.interpret(graph, p, v), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
def test_matmul_f16(cpu):
    """f16 operands are summed in f32 and rounded once."""
    if "shader-f16" not in default_device().device.features:
        pytest.skip("the adapter has no shader-f16")
    a, b = _normal(19, 33, dtype=np.float16), _normal(33, 21, dtype=np.float16)
    _run(fg.trace(lambda a, b: a @ b, a, b), (a, b), cpu, rtol=2e-3, atol=2e-3)


LN, LN64 = nn.init_layer_norm(300), nn.init_layer_norm(64)

ROWS = {
    "softmax": (lambda a: fg.softmax(a, axis=-1), (_normal(37, 300),)),
    "softmax_leading_axis": (lambda a: fg.softmax(a, axis=0), (_normal(300, 7),)),
    "log_softmax": (lambda a: fg.log_softmax(a, axis=-1), (_normal(5, 200),)),
    # rows too short for the cooperative skeleton: on a CPU a row an invocation, not each value folding its row
    "masked_softmax_short_rows": (lambda a: fg.softmax(fg.where(fg.causal_mask(33), a, -1e9), axis=-1),
                                  (_normal(2, 33, 33),)),
    "layer_norm": (lambda p, a: nn.layer_norm(p, a), (LN, _normal(9, 300))),
    "layer_norm_grad": (fg.grad(lambda p, a: nn.layer_norm(p, a).sum()), (LN, _normal(9, 300))),
    "row_sums": (lambda a: a.sum(-1), (_normal(9, 3000),)),
    "sum_past_a_loop": (lambda a: a.sum(), (_normal(90, 1000),)),  # folds more than llvmpipe's loops run
    "elementwise_chain": (lambda a, b: fg.tanh(a * 1.5 + b) * fg.sigmoid(a) - a, (_normal(257, 33), _normal(33))),
    # On a CPU, buffers read only along rows whose texels a texture holds are read from texture copies.
    "softmax_texture_rows": (lambda a: fg.softmax(a, axis=-1), (_normal(16, 64),)),
    "layer_norm_texture_rows": (lambda p, a: nn.layer_norm(p, a), (LN64, _normal(32, 64))),
    "layer_norm_grad_texture_rows": (fg.grad(lambda p, a: nn.layer_norm(p, a).sum()), (LN64, _normal(32, 64))),
    "row_sums_texture": (lambda a: (a * a).sum(-1), (_normal(32, 64),)),
    "softmax_plus_transpose": (lambda a: fg.softmax(a, axis=-1) + a.T, (_normal(32, 32),)),  # read across rows too
    # Read across rows: from a texture copy of a value a texel, where its rows are a copy's whole 256 bytes
    # or a texture's width divides its values.
    "column_sums": (lambda a: (a * 2.0).sum(0), (_normal(96, 64),)),
    "column_sums_ragged": (lambda a: (a * 2.0).sum(0), (_normal(9, 7),)),
}
ROW_TEXTURES = {"softmax_texture_rows": 1, "layer_norm_texture_rows": 3, "layer_norm_grad_texture_rows": 2,
                "row_sums_texture": 1, "softmax_plus_transpose": 1, "column_sums": 2, "column_sums_ragged": 0}


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
@pytest.mark.parametrize("name", list(ROWS))
def test_reductions_and_rows(name, cpu):
    fn, args = ROWS[name]
    exe = _run(fg.trace(fn, *args), args, cpu, rtol=1e-4, atol=2e-3 if name == "sum_past_a_loop" else 1e-4)
    assert sum(len(k.textures) for k in exe.program.kernels) == (ROW_TEXTURES.get(name, 0) if cpu else 0)


# Elementwise kernels over rows of a multiple of 4: an invocation per 4 elements, each buffer read
# along the rows alone bound as vec4s (on a CPU adapter, read from a texture copy where one holds
# its texels), the others (a transpose, an offset slice, a scalar, bools) as they are.
LANES = {
    "broadcast_and_two_outputs": (lambda a, b, c: (fg.tanh(a * 1.5 + b) * fg.sigmoid(a) - a, a * c[0]),
                                  (_normal(16, 32), _normal(32), _normal(3))),
    "transposed_read": (lambda a: a.T * 2.0 + a, (_normal(8, 8),)),
    "offset_slice": (lambda a: a[:, 4:12] * 2.0 + a[:, :8], (_normal(16, 16),)),
    "bool_and_f32_outputs": (lambda a: (a > 0.0, fg.where(a > 0.0, a, 0.1 * a)), (_normal(12, 8),)),
    "one_vector_per_row": (lambda a, b: a * b + 1.0, (_normal(5, 4), _normal(5, 4))),
    "row_of_one_column": (lambda a, b: a * b, (_normal(6, 1), _normal(6, 4))),
    # Read from texture copies where a texture holds the buffer's texels (a multiple of 16 of them).
    "texture_reads": (lambda a, b: fg.tanh(a) * b + a, (_normal(16, 64), _normal(16, 64))),
    "texture_wrapped_rows": (lambda a, b: a * 2.0 + b, (_normal(8, 32), _normal(32))),
    "texture_broadcast": (lambda a, b: a - b, (_normal(4, 16, 64), _normal(16, 64))),
}
LANE_TEXTURES = {"broadcast_and_two_outputs": 1, "texture_reads": 2, "texture_wrapped_rows": 1, "texture_broadcast": 2}


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
@pytest.mark.parametrize("name", list(LANES))
def test_elementwise_in_lanes(name, cpu):
    fn, args = LANES[name]
    exe = _run(fg.trace(fn, *args), args, cpu, rtol=1e-6, atol=1e-6)
    assert any("array<vec4<f32>>" in wgsl or "texture" in wgsl for _, wgsl in exe.kernels)
    textures = [t for k in exe.program.kernels for t in k.textures]
    assert len(textures) == (LANE_TEXTURES.get(name, 0) if cpu else 0)


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
@pytest.mark.parametrize("shape", [(8, 12), (8, 64)], ids=["vec4s", "texture"])
def test_elementwise_in_lanes_in_place(cpu, shape):
    """A donated operand updated in place: its buffer, the output's, read and written as vec4s;
    where a texture holds its texels, read from a texture copy bound past the outputs."""
    graph = fg.trace(lambda p, g: (p - 0.1 * g, g * 2.0), _normal(*shape), _normal(*shape))
    p, g = _normal(*shape), _normal(*shape)
    want = fg.interpret(graph, p, g)
    program = lower(graph, _limits(cpu), frozenset({0}))
    got = Executable(program)(fg.device_put(p), g)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-6, atol=1e-6)
    (kernel,) = program.kernels
    copied = [source for binding, source, *_ in kernel.textures if binding >= len(kernel.reads) + len(kernel.writes)]
    assert (len(kernel.textures), copied) == ((2, [1]) if cpu and shape == (8, 64) else (0, []))


def _fills(exe: Executable) -> list[int]:
    """The buffers a call copies into textures, in order."""
    return [source for k in sorted(exe.fills) for source, _ in exe.fills[k]]


def test_texture_copies_are_shared_until_written():
    """Kernels reading one buffer from textures (of one kind) share a copy, filled again only after
    a kernel writes the buffer: x, read by two products, is copied once a call, as every other
    texture here (none's buffer is written after it is read); w is updated in place, and the next
    call's copies are of its new values."""
    graph = fg.trace(lambda w, x: (w - 0.1 * (x.T @ fg.tanh(x @ w)), (x @ w).sum()), _normal(64, 64), _normal(16, 64))
    program = lower(graph, _limits(True), frozenset({0}))
    exe = Executable(program)
    w, x = _normal(64, 64), _normal(16, 64)
    held = fg.device_put(w)
    for _ in range(2):
        want = fg.interpret(graph, w, x)
        held, total = exe(held, x)
        np.testing.assert_allclose(held.numpy(), want[0], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(float(total), want[1], rtol=1e-4)
        w = want[0]
    readers = [(*k.reads, *k.writes)[source] for k in program.kernels for _, source, *_ in k.textures]
    assert len(_fills(exe)) == len(exe.textures) and readers.count(program.inputs[1]) == 2


def test_texture_copies_refilled_after_a_write():
    """A scratch buffer that holds one layer's activations, then (once they are dead) the next
    but one's, is copied into its texture again for its second reader."""
    def f(x, w1, w2, w3, w4):
        h1 = fg.tanh(x @ w1)
        h2 = fg.tanh(h1 @ w2)
        return fg.tanh(h2 @ w3) @ w4

    args = (_normal(16, 64), *(_normal(64, 64) * 0.3 for _ in range(4)))
    exe = _run(fg.trace(f, *args), args, True)
    fills = _fills(exe)
    assert len(fills) > len(set(fills))  # a buffer copied twice in a call


def test_cpu_programs_round_trip_through_the_disk_cache(tmp_path, monkeypatch):
    """A program whose kernels read from textures (a product's operands, B's binding before A's;
    rows; an update's copy of the buffer it writes in place) is stored and read back whole."""
    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    graph = fg.trace(lambda x, w, y: (x * 0.9 + fg.tanh(x) * 0.1, fg.softmax(y @ w.T, axis=-1),
                                      nn.layer_norm(LN64, y @ w)), _normal(16, 64), _normal(64, 64), _normal(16, 64))
    limits = _limits(True)
    program = lower(graph, limits, frozenset({0}))
    textures = [k.textures for k in program.kernels]
    assert any(n != source for t in textures for n, source, *_ in t)  # the update's copy
    assert sum(map(len, textures)) >= 7
    name = disk_cache.key(graph, limits, frozenset({0}), "test adapter")
    disk_cache.store(name, program)
    assert disk_cache.load(name, graph) == program


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
def test_softmax_symbolic_rows(cpu):
    graph = fg.trace(lambda x: fg.softmax(x * 2.0, axis=-1), fg.spec((T, 50)))
    exe = Executable(lower(graph, _limits(cpu)))
    for t in (1, 13):
        x = _normal(t, 50)
        np.testing.assert_allclose(exe(x).numpy(), fg.interpret(graph, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cpu", [True, False], ids=["cpu", "gpu"])
def test_training_step(cpu):
    """An Adam step of a small MLP: every kernel kind of a training step at once."""
    rng = np.random.default_rng(1)
    params = nn.init_mlp(rng, [20, 32, 5])
    x, y = _normal(16, 20), rng.integers(0, 5, 16).astype(np.int32)
    graph = fg.adam_step(fg.trace(lambda p, x, y: nn.cross_entropy(nn.mlp(p, x), y), params, x, y), lr=1e-2)
    _run(graph, (params, fg.adam_init(params), x, y), cpu, rtol=1e-4, atol=1e-5)


def test_cpu_matmul_has_no_barriers(golden):
    """The CPU matmul uses no workgroup memory: its WGSL, bias and activation fused, is pinned."""
    graph = fg.trace(lambda a, b, c: fg.relu(a @ b + c), fg.spec((30, 16)), fg.spec((16, 20)), fg.spec((20,)))
    program = lower(graph, Limits(cpu=True, parallel_workgroups=2))
    (kernel,) = program.kernels
    assert "workgroupBarrier" not in kernel.wgsl and "var<workgroup>" not in kernel.wgsl
    golden("cpu_matmul_bias_relu", kernel.wgsl)
