"""Single kernels: matmul (GFLOP/s, error against float64), an elementwise chain and
softmax / layer norm (GB/s of the bytes read and written)."""

from __future__ import annotations

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn
from workloads import measure

CALLS = 10  # calls per timed round, synced once at the end


def _timed(benchmark, exe, args, smoke):
    """Seconds per call (median over rounds of CALLS calls), and one output."""
    out = exe(*args).block_until_ready()  # warm up

    def calls():
        for _ in range(CALLS - 1):
            exe(*args)
        return exe(*args).block_until_ready()

    _, seconds = measure(benchmark, calls, rounds=1 if smoke else 5)
    return out, seconds / CALLS


def _matmul(benchmark, a_shape, b_shape, smoke):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    exe = fg.compile(fg.trace(lambda x, y: x @ y, a, b))
    out, seconds = _timed(benchmark, exe, fg.device_put((a, b)), smoke)
    want = a.astype(np.float64) @ b.astype(np.float64)
    error = float(np.abs(out.numpy() - want).max() / np.abs(want).max())
    assert error < 1e-5
    flops = 2 * np.prod(want.shape) * a_shape[-1]
    benchmark.extra_info.update(gflops=round(flops / seconds / 1e9, 1), relative_error=error,
                                kernels=len(exe.kernels), adapter=exe.device.name)


def test_matmul_square(benchmark, square_n, size, smoke):
    benchmark.group = f"matmul-square-{size}"
    _matmul(benchmark, (square_n, square_n), (square_n, square_n), smoke)


def test_matmul_gpt_shapes(benchmark, gpt_shapes, size, smoke):
    benchmark.group = f"matmul-gpt-{size}"
    _matmul(benchmark, *gpt_shapes, smoke)


ROWS = {"small": (256, 256), "full": (4096, 1024)}


@pytest.mark.parametrize("kind", ["elementwise-chain", "softmax", "layer-norm"])
def test_memory_bound(benchmark, kind, size, smoke):
    rows, width = ROWS[size]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, width)).astype(np.float32)
    ln = nn.init_layer_norm(width)
    fns = {
        "elementwise-chain": (lambda a: fg.tanh(a * 1.5 + 0.5) * fg.sigmoid(a) - a, (x,)),
        "softmax": (lambda a: fg.softmax(a, axis=-1), (x,)),
        "layer-norm": (lambda p, a: nn.layer_norm(p, a), (ln, x)),
    }
    fn, args = fns[kind]
    exe = fg.compile(fg.trace(fn, *args))
    _, seconds = _timed(benchmark, exe, fg.device_put(args), smoke)
    benchmark.group = f"memory-bound-{size}"
    benchmark.extra_info.update(gb_per_s=round(2 * x.nbytes / seconds / 1e9, 1), kernels=len(exe.kernels),
                                adapter=exe.device.name)


# A 3x3 convolution of a ResNet stage, channels last (NHWC, HWIO), SAME padding.
CONV = {"small": (4, 16, 16, 16, 16), "full": (32, 56, 56, 64, 64)}  # batch, height, width, c_in, c_out


def test_conv2d(benchmark, size, smoke):
    n, h, w, c_in, c_out = CONV[size]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, h, w, c_in)).astype(np.float32)
    k = (rng.standard_normal((3, 3, c_in, c_out)) / np.sqrt(9 * c_in)).astype(np.float32)
    exe = fg.compile(fg.trace(lambda a, b: fg.lax.conv_general_dilated(
        a, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), x, k))
    _, seconds = _timed(benchmark, exe, fg.device_put((x, k)), smoke)
    benchmark.group = f"conv2d-{size}"
    flops = 2 * n * h * w * c_out * 9 * c_in
    benchmark.extra_info.update(gflops=round(flops / seconds / 1e9, 1), kernels=len(exe.kernels),
                                adapter=exe.device.name)


SORT_ROWS = {"small": (256, 256), "full": (4096, 1024)}


def test_argsort_rows(benchmark, size, smoke):
    rows, width = SORT_ROWS[size]
    x = np.random.default_rng(0).standard_normal((rows, width)).astype(np.float32)
    exe = fg.compile(fg.trace(lambda a: fg.argsort(a, axis=-1), x))
    out, seconds = _timed(benchmark, exe, fg.device_put((x,)), smoke)
    np.testing.assert_array_equal(out.numpy(), np.argsort(x, axis=-1, kind="stable"))
    benchmark.group = f"argsort-{size}"
    benchmark.extra_info.update(mkeys_per_s=round(x.size / seconds / 1e6, 1), kernels=len(exe.kernels),
                                adapter=exe.device.name)
