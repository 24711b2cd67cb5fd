"""Single kernels: matmul (GFLOP/s, error against float64), an elementwise chain and
softmax / layer norm (GB/s of the bytes read and written), a convolution, a sort, the special
functions that loop until each element converges and a linear recurrence (these two beside
JAX, where it is installed)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn
from conftest import SQUARE
from workloads import measure

CALLS = 10  # calls per timed round, synced once at the end


def _timed(benchmark, exe, args, smoke):
    """Seconds per call (median over rounds of CALLS calls), and one output."""
    out = exe(*args)  # warm up
    exe.device.wait()

    def calls():
        for _ in range(CALLS):
            exe(*args)
        exe.device.wait()

    _, seconds = measure(benchmark, calls, rounds=1 if smoke else 5)
    return out, seconds / CALLS


def _matmul(benchmark, a_shape, b_shape, smoke, dtype=np.float32):
    """GFLOP/s of a product, from the host's clock and from GPU timestamps (fg.profile), and its
    error against float64 (f16 or bfloat16 operands and result: rounding to them bounds it)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(a_shape).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype)
    exe = fg.compile(fg.trace(lambda x, y: x @ y, a, b))
    on_device = fg.device_put((a, b))
    out, seconds = _timed(benchmark, exe, on_device, smoke)
    want = a.astype(np.float64) @ b.astype(np.float64)
    error = float(np.abs(out.numpy() - want).max() / np.abs(want).max())
    assert error < {np.dtype(np.float32): 1e-5, np.dtype(np.float16): 2e-3}.get(np.dtype(dtype), 4e-3)
    flops = 2 * np.prod(want.shape) * a_shape[-1]
    gpu = fg.profile(exe, *on_device).total
    benchmark.extra_info.update(gflops=round(flops / seconds / 1e9, 1), gpu_gflops=round(flops / gpu / 1e9, 1),
                                relative_error=error, kernels=len(exe.kernels), adapter=exe.device.name)


def test_matmul_square(benchmark, square_n, size, smoke):
    benchmark.group = f"matmul-square-{size}"
    _matmul(benchmark, (square_n, square_n), (square_n, square_n), smoke)


def test_matmul_square_f16(benchmark, size, smoke):
    """The largest square product with f16 operands and result (summed in f32), where the adapter
    has shader-f16: its rate beside the f32 one's."""
    if "shader-f16" not in fg.default_device().device.features:
        pytest.skip(f"{fg.default_device().name} has no shader-f16")
    n = SQUARE[size][-1]
    benchmark.group = f"matmul-square-{size}"
    _matmul(benchmark, (n, n), (n, n), smoke, np.float16)


def test_matmul_square_bf16(benchmark, size, smoke):
    """The largest square product with bfloat16 operands and result: held in f32s, summed in f32
    and rounded once, so at the f32 rate less the rounding."""
    n = SQUARE[size][-1]
    benchmark.group = f"matmul-square-{size}"
    _matmul(benchmark, (n, n), (n, n), smoke, fg.bfloat16.np)


def test_matmul_gpt_shapes(benchmark, gpt_shapes, size, smoke):
    benchmark.group = f"matmul-gpt-{size}"
    _matmul(benchmark, *gpt_shapes, smoke)


ROWS = {"small": (256, 256), "full": (4096, 4096)}
MEMORY_BOUND = {
    "negation": lambda p, a: -a,  # one read and one write per element: the kernels' own streaming bound
    "elementwise-chain": lambda p, a: fg.tanh(a * 1.5 + 0.5) * fg.sigmoid(a) - a,
    "softmax": lambda p, a: fg.softmax(a, axis=-1),
    "layer-norm": lambda p, a: nn.layer_norm(p, a),
}


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("kind", list(MEMORY_BOUND))
def test_memory_bound(benchmark, kind, direction, size, smoke):
    """GB/s of the bytes the step's kernels read and write at least once (x, and for the backward
    the output's cotangent and the gradients: x and its gradient, plus the layer norm's gain and
    bias), from GPU timestamps (fg.profile) and from the host's clock."""
    rows, width = ROWS[size]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, width)).astype(np.float32)
    ln = nn.init_layer_norm(width)
    fn = MEMORY_BOUND[kind]
    if direction == "forward":
        step, args, moved = fn, (ln, x), 2 * x.nbytes
    else:  # the gradients of <fn(p, x), g> with respect to p and x: the backward pass on a cotangent g
        g = rng.standard_normal((rows, width)).astype(np.float32)
        step = fg.grad(lambda p, a, c: (fn(p, a) * c).sum(), argnums=(0, 1))
        args, moved = (ln, x, g), 4 * x.nbytes
    exe = fg.compile(fg.trace(step, *args))
    on_device = fg.device_put(args)
    _, seconds = _timed(benchmark, exe, on_device, smoke)
    gpu = fg.profile(exe, *on_device).total
    benchmark.group = f"memory-bound-{size}"
    benchmark.extra_info.update(gb_per_s=round(moved / seconds / 1e9, 1), gpu_gb_per_s=round(moved / gpu / 1e9, 1),
                                kernels=len(exe.kernels), adapter=exe.device.name)


def test_one_kernel_call(benchmark, smoke):
    """Host time of a call of a one-kernel program on a small value already on the device, its
    result dropped (its buffer goes back to the pool): what a call costs beside its kernel."""
    x = fg.device_put(np.ones((64, 64), np.float32))
    exe = fg.compile(fg.trace(lambda a: a * 2.0 + 1.0, x))
    np.testing.assert_array_equal(exe(x).numpy(), np.full((64, 64), 3.0, np.float32))
    calls = 10 if smoke else 1000

    def run() -> None:
        for _ in range(calls):
            exe(x)

    _, seconds = measure(benchmark, run, rounds=1 if smoke else 5)
    exe.device.wait()
    benchmark.group = "host"
    benchmark.extra_info.update(us_per_call=round(seconds / calls * 1e6, 1), adapter=exe.device.name)


def test_copy_bandwidth(benchmark, size, smoke):
    """The device's own buffer copy of the memory-bound benchmarks' x, CALLS copies in one submit:
    GB/s read and written, the bound those kernels are measured against."""
    rows, width = ROWS[size]
    x, y = fg.device_put((np.ones((rows, width), np.float32), np.zeros((rows, width), np.float32)))
    device, nbytes = x.device, x.buffer.size

    def copies():
        for _ in range(CALLS):
            device.copy(x.buffer, y.buffer, nbytes)
        device.wait()

    copies()
    _, seconds = measure(benchmark, copies, rounds=1 if smoke else 5)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    benchmark.group = f"memory-bound-{size}"
    benchmark.extra_info.update(gb_per_s=round(2 * nbytes * CALLS / seconds / 1e9, 1), adapter=device.name)


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


def _beside_jax(benchmark, seconds, out, make, args, smoke, rtol):
    """Time `make(jax, jax's namespaces)`, jitted, on `args` where JAX is installed, check its value
    against fgrad's `out`, and put its ms a call and the ratio in the benchmark's extra_info."""
    try:
        import jax
        import jax.scipy.special  # noqa: F401
    except ImportError:
        return
    f = jax.jit(make(jax))
    on_jax = [jax.numpy.asarray(v) for v in args]
    for got, want in zip(fg.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(f(*on_jax))):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=1e-5)
    times = []
    for _ in range(1 if smoke else 5):
        start = time.perf_counter()
        for _ in range(CALLS):
            result = f(*on_jax)
        jax.block_until_ready(result)
        times.append((time.perf_counter() - start) / CALLS)
    jax_seconds = float(np.median(times))
    benchmark.extra_info.update(jax_ms=round(jax_seconds * 1e3, 3), jax_over_fgrad=round(jax_seconds / seconds, 2),
                                jax_device=str(jax.devices()[0]))


# Special functions computed by a loop until each element converges (XLA's series and continued
# fractions): fgrad runs the loop inside one kernel; JAX, where installed, is timed beside it.
SPECIAL_SIZE = {"small": 4096, "full": 1 << 20}


@pytest.mark.parametrize("name", ["gammainc", "betainc"])
def test_special_function_loops(benchmark, name, size, smoke):
    n = SPECIAL_SIZE[size]
    rng = np.random.default_rng(0)
    a, x, u = rng.uniform(0.2, 12, n), rng.uniform(0, 15, n), rng.uniform(0.01, 0.99, n)
    args = [v.astype(np.float32) for v in ((a, x) if name == "gammainc" else (a, a[::-1], u))]
    exe = fg.compile(fg.trace(getattr(fg.scipy.special, name), *args))
    out, seconds = _timed(benchmark, exe, fg.device_put(tuple(args)), smoke)
    benchmark.group = f"special-{size}"
    benchmark.extra_info.update(ms=round(seconds * 1e3, 3), kernels=len(exe.kernels), adapter=exe.device.name)
    _beside_jax(benchmark, seconds, out, lambda jax: getattr(jax.scipy.special, name), args, smoke, 2e-4)


# A linear recurrence h = a * h + x over T steps of N channels (a diagonal state-space layer, an
# exponential moving average), its states stacked, and its gradient (a loop forward, one back).
RECURRENCE = {"small": (64, 256), "full": (1024, 4096)}


def _recurrence(np_):
    def states(a, h0, xs):
        return np_.lax.scan(lambda h, x: (h * a + x, h), h0, xs)[1]

    def loss(a, h0, xs):
        return np_.numpy.sum(states(a, h0, xs) ** 2) / xs.shape[0]

    return {"forward": states, "gradient": np_.grad(loss, argnums=(0, 2))}


@pytest.mark.parametrize("which", ["forward", "gradient"])
def test_elementwise_scan(benchmark, which, size, smoke):
    t, n = RECURRENCE[size]
    rng = np.random.default_rng(0)
    args = [rng.uniform(0.5, 0.99, n).astype(np.float32), rng.standard_normal(n).astype(np.float32),
            rng.standard_normal((t, n)).astype(np.float32)]
    exe = fg.compile(fg.trace(_recurrence(fg)[which], *args))
    out, seconds = _timed(benchmark, exe, fg.device_put(tuple(args)), smoke)
    benchmark.group = f"elementwise-scan-{size}"
    benchmark.extra_info.update(ms=round(seconds * 1e3, 3), kernels=len(exe.kernels), adapter=exe.device.name)
    _beside_jax(benchmark, seconds, out, lambda jax: _recurrence(jax)[which], args, smoke, 1e-4)
