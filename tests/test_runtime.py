"""Graphs run as WGSL on this machine's WebGPU adapter (llvmpipe in CI) and match `interpret`."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn
from fgrad.lower import Limits, lower
from fgrad.lower.fusion import group_inlined
from fgrad.runtime import Executable, _open
from op_table import API_CASES, DTYPE_CASES, OP_CASES, make, trace
from test_autodiff import MODELS

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")


def assert_matches(got, want, rtol=1e-5, atol=1e-6, what=""):
    got_leaves, want_leaves = fg.tree_map(lambda a: a, got), want
    for g, w in zip(_leaves(got_leaves), _leaves(want_leaves)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def _leaves(tree):
    from fgrad.pytree import flatten

    return flatten(tree)[0]


def gpu_limits(**changes) -> Limits:
    """The local adapter's limits with kernels shaped for a GPU (`cpu=False`): on a CPU adapter
    `fg.compile` picks kernels without workgroup memory, and these tests pin the GPU's."""
    return dataclasses.replace(fg.default_device().limits, **{"cpu": False, **changes})


def compile_for_gpu(graph: fg.Graph, **changes) -> Executable:
    """`graph` lowered to the kernels shaped for a GPU (with `changes` to its limits, as
    `gpu_limits`), run on the local adapter."""
    return Executable(lower(graph, gpu_limits(**changes)))


def masked_row_argmax(x):  # a causal mask's iotas (views of nothing) in the walk of a row's values
    s = fg.softmax(x, axis=1)
    t = fg.tril(s) + fg.triu(s, 1) * 0.5
    return (fg.argmax(t, axis=1, keepdims=True) + 0.0) * 0.1 + fg.max(t, axis=1, keepdims=True)


def cumsum_beside_softmax(x):  # one kernel for both: a workgroup walking rows cannot scan
    return fg.softmax(x, axis=1), fg.cumsum(fg.astype(x > 0, fg.int32), axis=1)


def sum_of_gathered_means(x):  # each gathered mean folds inside the sum's loop, where a workgroup cannot fold
    t = fg.take(fg.mean(x, axis=1), np.array([1, 0, 1], np.int32))
    return fg.sum(t, keepdims=True) + t * 0.5


def logsumexp_of_257(x):  # the max folded again inside the sum's loop: 257 * 257 iterations on a CPU
    return fg.logsumexp(x, axis=0, keepdims=True)


PLANS = {"masked-row-argmax": (masked_row_argmax, (3, 7)), "cumsum-beside-softmax": (cumsum_beside_softmax, (4, 8)),
         "sum-of-gathered-means": (sum_of_gathered_means, (2, 16)), "logsumexp-of-257": (logsumexp_of_257, (257,))}


@pytest.mark.parametrize("cpu", [False, True], ids=["GPU-shaped", "CPU-shaped"])
@pytest.mark.parametrize("name", PLANS)
def test_kernel_plans_that_once_failed(name, cpu):
    """Plans that once raised or gave wrong values: a row's walk through a view of nothing; a
    scan grouped with rows (now an elementwise kernel); a fold of gathered values inside another
    fold's loop (each invocation folds alone there, a workgroup's barriers being out of uniform
    control); on a CPU adapter, loops nested past llvmpipe's 65,535 iterations an invocation
    (written cooperatively instead)."""
    fn, shape = PLANS[name]
    x = np.random.default_rng(3).normal(size=shape).astype(np.float32)
    graph = fg.trace(fn, x)
    got = Executable(lower(graph, dataclasses.replace(fg.default_device().limits, cpu=cpu)))(x)
    for g, w in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(fg.interpret(graph, x))):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in OP_CASES + API_CASES + DTYPE_CASES])
def test_op_on_device_matches_interpret(case):
    """Where the adapter lacks a feature the row's dtypes need (shader-f16 on llvmpipe), compiling
    is a CompileError naming the feature and the adapter, before anything runs."""
    args = make(case)
    graph = trace(case, args)
    device = fg.default_device()
    lacking = sorted({n.spec.dtype.row.feature for n in graph.nodes} - {None} - set(device.device.features))
    if lacking:
        with pytest.raises(fg.CompileError) as e:
            fg.compile(graph)
        assert all(repr(f) in str(e.value) for f in lacking) and device.name in str(e.value), str(e.value)
        return
    assert_matches(fg.compile(graph)(*args), fg.interpret(graph, *args), case.rtol, case.atol, case.id)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_and_its_gradient_on_device(name):
    f, make_args = MODELS[name]
    args = make_args()
    for graph in (fg.trace(f, *args), fg.value_and_grad(fg.trace(f, *args), argnums=0)):
        assert_matches(fg.compile(graph)(*args), fg.interpret(graph, *args), 1e-4, 1e-5, name)


def test_a_command_recorded_wrong_is_raised_when_submitted():
    """The device records through wgpu-native's C calls, and finish() through wgpu-py's error
    capture: a dispatch over the adapter's grid limit is raised where its commands are submitted,
    not logged and dropped, and the device records and runs the next call as before."""
    import wgpu

    x = fg.device_put(np.ones((4, 4), np.float32))
    exe = fg.compile(fg.trace(lambda a: a + 1.0, x))
    buffers, _ = exe.bind((x,))
    pipeline, group, _ = exe.work(buffers, 0, 1)[0]
    too_many = exe.device.limits.max_compute_workgroups_per_dimension + 1
    exe.device.dispatch([(pipeline, group, (too_many, 1, 1))])
    with pytest.raises(wgpu.GPUValidationError, match="dispatch group size"):
        exe.device.flush()
    np.testing.assert_array_equal(exe(x).numpy(), np.full((4, 4), 2.0, np.float32))


@pytest.mark.parametrize("shape, grid", [((64, 301), (16, 5)), ((64, 300), (16, 2))], ids=["elements", "vec4s"])
def test_2d_grid_on_device(shape, grid):
    """A grid past the per-dimension limit wraps into y (the limit lowered so the test stays small):
    256 invocations a workgroup, each computing an element, or 4 where rows are whole vec4s."""
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    program = lower(fg.trace(lambda a: a * 2.0 + 1.0, x), Limits(max_compute_workgroups_per_dimension=16))
    assert program.kernels[0].grid[:2] == grid
    np.testing.assert_allclose(Executable(program)(x).numpy(), x * 2.0 + 1.0, rtol=1e-6)


def test_streaming_kernels_take_four_elements_an_invocation_each_its_own():
    """An elementwise output of 2^20 elements or more: each invocation computes four, a quarter
    of the output apart (the size here is no multiple of 4); written in place over a donated
    input, no element is read after another invocation wrote it."""
    x = np.random.default_rng(0).normal(size=(1025, 1027)).astype(np.float32)
    exe = Executable(lower(fg.trace(lambda a: a * 2.0 + 1.0, x), gpu_limits(), frozenset({0})))
    (kernel,) = exe.program.kernels
    invocations = kernel.grid[0] * kernel.grid[1] * 256
    assert invocations * 4 >= x.size > invocations and kernel.writes == (exe.program.inputs[0],)
    np.testing.assert_allclose(exe(fg.device_put(x)).numpy(), x * 2.0 + 1.0, rtol=1e-6)


def test_fused_chain_runs_as_one_kernel():
    def f(x, y):
        return fg.tanh(x * 2.0 + y) - fg.exp(-x) * (x > 0)

    x, y = np.random.default_rng(1).normal(size=(2, 3, 5)).astype(np.float32), np.linspace(-1, 1, 5, dtype=np.float32)
    exe = fg.compile(fg.trace(f, x, y))
    assert len(exe.kernels) == 1
    assert_matches(exe(x, y), fg.interpret(fg.trace(f, x, y), x, y))


def test_narrow_storage_limit_still_gives_right_answers():
    xs = [np.full((2, 3), k, np.float32) for k in range(9)]
    graph = fg.trace(lambda *a: fg.concatenate(a, axis=1) * 2.0 + sum(a[1:], a[0]).sum(), *xs)
    program = lower(graph, Limits(max_storage_buffers_per_shader_stage=4))
    assert max(len(k.reads) + 1 for k in program.kernels) <= 4
    assert_matches(Executable(program)(*xs), fg.interpret(graph, *xs))


def test_buffer_reuse_keeps_results_right():
    def deep(x):
        h = x
        for _ in range(5):
            h = fg.softmax(h @ x.T, axis=-1) @ x + h
        return h

    x = np.random.default_rng(2).normal(size=(8, 8)).astype(np.float32)
    exe = fg.compile(fg.trace(deep, x))
    assert exe.peak_bytes < exe.program.intermediate_bytes + x.nbytes
    assert_matches(exe(x), fg.interpret(fg.trace(deep, x), x), 1e-5, 1e-5)


def test_compiling_twice_creates_no_pipelines():
    graph = fg.trace(lambda a: fg.softmax(a * 3.0), fg.spec((4, 5)))
    fg.compile(graph)
    before = len(fg.default_device().pipelines)
    fg.compile(graph)
    fg.compile(fg.trace(lambda a: fg.softmax(a * 3.0), fg.spec((4, 5))))
    assert len(fg.default_device().pipelines) == before


def test_arrays_stay_on_device_and_feed_later_calls():
    exe = fg.compile(fg.trace(lambda a, b: (a @ b, fg.sum(a)), fg.spec((2, 3)), fg.spec((3, 2))))
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    prod, total = exe(a, a.T)
    assert isinstance(prod, fg.Array) and prod.shape == (2, 2) and prod.dtype == fg.f32
    assert float(total) == 15.0
    again, _ = exe(a, a.T)
    chained = fg.compile(fg.trace(lambda p: p * 2.0, fg.spec((2, 2))))(prod)
    np.testing.assert_allclose(chained.numpy(), 2 * (a @ a.T))
    np.testing.assert_allclose(np.asarray(again), a @ a.T)


def test_bool_and_int_values_round_trip():
    exe = fg.compile(fg.trace(lambda m, n: (fg.logical_not(m), n * 3), fg.spec(4, "bool"), fg.spec(4, "i32")))
    m, n = np.array([True, False, True, False]), np.array([1, -2, 3, 2**20], np.int32)
    nm, n3 = exe(m, n)
    np.testing.assert_array_equal(nm.numpy(), ~m)
    np.testing.assert_array_equal(n3.numpy(), n * 3)


def test_jit_caches_per_signature():
    calls = []

    def f(x):
        calls.append(1)
        return fg.exp(x) + 1.0

    jf = fg.jit(f)
    for x in (np.zeros(3, np.float32), np.ones(3, np.float32), np.ones((2, 2), np.float32)):
        np.testing.assert_allclose(jf(x).numpy(), np.exp(x) + 1, rtol=1e-6)
    assert len(calls) == 2


def test_jit_of_grad():
    f, make_args = MODELS["mlp"]
    args = make_args()
    got = fg.jit(fg.grad(f))(*args)
    want = fg.grad(f)(*args)
    for k in want:
        np.testing.assert_allclose(got[k].numpy(), want[k], rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def _line(fn, offset):
    return f"test_runtime.py:{fn.__code__.co_firstlineno + offset}"


@pytest.fixture(scope="module")
def exe():
    return fg.compile(fg.trace(lambda params, x: x @ params["w"], {"w": fg.spec((3, 2))}, fg.spec((4, 3))))


@pytest.mark.parametrize("args, message", [
    (lambda: ({"w": np.ones((3, 2), np.float32)},), r"takes 2 arguments \(params, x\), got 1"),
    (lambda: ({"w": np.ones((3, 2), np.float32)}, np.ones((4, 3), np.float32), 1), r"takes 2 arguments"),
    (lambda: ({"v": np.ones((3, 2), np.float32)}, np.ones((4, 3), np.float32)), r"argument params does not match"),
    (lambda: ({"w": np.ones((3, 3), np.float32)}, np.ones((4, 3), np.float32)), r"argument params.w is float32\[3,3\], expected f32\[3,2\]"),
    (lambda: ({"w": np.ones((3, 2), np.int32)}, np.ones((4, 3), np.float32)), r"argument params.w is int32\[3,2\], expected f32\[3,2\]"),
])
def test_wrong_arguments_are_named_before_anything_runs(exe, args, message):
    def call():
        return exe(*args())

    with pytest.raises(fg.InputError, match=message) as e:
        call()
    assert _line(call, 1) in str(e.value)


def test_shader_validation_error_names_kernel_site_and_line():
    def f(x):
        return fg.exp(x) * 2.0

    program = lower(fg.trace(f, fg.spec(3)))
    kernel = program.kernels[0]
    broken = kernel.wgsl.replace("= exp_f32(", "= exq(")  # a call of a function that is not there
    bad = dataclasses.replace(program, kernels=(dataclasses.replace(kernel, wgsl=broken),))
    with pytest.raises(fg.CompileError) as e:
        Executable(bad)
    message = str(e.value)
    line = next(n for n, text in enumerate(broken.splitlines(), 1) if "exq(" in text)
    assert f"kernel {kernel.name}" in message and _line(f, 1) in message
    assert f"WGSL line {line}:" in message and "exq" in message


def test_shader_modules_are_made_without_naga_runtime_checks(monkeypatch):
    """Where wgpu-native offers it, each kernel's module is made without naga's runtime checks
    (runtime._shader_module): fgrad's kernels keep their accesses in range themselves, which
    the rest of this suite checks against interpret through such modules. Out-of-range indices
    read from data give jax's clipped and filled values."""
    from fgrad import runtime

    fg.default_device()
    if runtime._native is None or not hasattr(runtime._checked, "wgpuDeviceCreateShaderModuleTrusted"):
        pytest.skip("this wgpu has no wgpuDeviceCreateShaderModuleTrusted: modules keep naga's checks")
    made = []
    checked = runtime._checked

    class Recording:
        def __getattr__(self, name):
            return getattr(checked, name)

        def wgpuDeviceCreateShaderModuleTrusted(self, device, descriptor, checks):
            made.append(int(checks))
            return checked.wgpuDeviceCreateShaderModuleTrusted(device, descriptor, checks)

    monkeypatch.setattr(runtime, "_checked", Recording())
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5  # a shape no other test compiles
    idx = np.array([[0, 7], [-9, 2], [3, 1]], np.int32)

    def f(a, i):
        return fg.numpy.take(a, i, axis=1, mode="clip") * 3.0, fg.numpy.take(a, i, axis=1, mode="fill") * 3.0

    got, want = fg.jit(f)(x, idx), fg.interpret(fg.trace(f, x, idx), x, idx)
    assert made and set(made) == {runtime._native.WGPUShaderRuntimeChecks_None}
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_c_types_parsed_together_are_those_parsed_one_at_a_time():
    """The C types wgpu-py names by string, parsed in one pass as the device opens
    (`runtime._parse_c_types`), are cached as cffi's parse of each alone makes them; a type this
    wgpu does not know leaves the pass to cffi's own parses, caching nothing."""
    from wgpu.backends.wgpu_native._ffi import ffi

    from fgrad.runtime import WGPU_C_TYPES, _parse_c_types

    fg.default_device()
    _parse_c_types(ffi, ["uint32_t *", "WGPUNoSuchType *"])
    assert "uint32_t *" not in ffi._parsed_types and "WGPUNoSuchType *" not in ffi._parsed_types
    with ffi._lock:
        for cdecl in WGPU_C_TYPES:
            btype, raw = ffi._parsed_types[cdecl]
            alone = ffi._parser.parse_type(cdecl)
            assert raw == alone.is_raw_function, cdecl
            assert btype is ffi._get_cached_btype(alone.as_function_pointer() if raw else alone), cdecl


@pytest.mark.parametrize("threads", [1, 4])
def test_pipelines_made_on_threads_report_the_first_kernel_that_fails(threads):
    """A GPU's device creates a program's new pipelines several at once: every good one is made
    and cached in kernel order, and of several broken kernels the first in order is reported."""
    def f(x):
        h = fg.exp(x) @ x.T
        return fg.sin(h).sum(axis=0) * fg.tanh(h) @ x

    x = fg.spec((5, 5))
    program = lower(fg.trace(f, x))
    device = dataclasses.replace(fg.default_device(), pipelines={}, pipeline_threads=threads)
    exe = Executable(program, device)
    assert len({k.wgsl for k in program.kernels}) == len(device.pipelines) >= 3
    assert set(map(id, exe.pipelines)) == set(map(id, device.pipelines.values()))
    data = np.random.default_rng(0).normal(size=(5, 5)).astype(np.float32)
    assert_matches(exe(data), fg.interpret(fg.trace(f, x), data), 1e-4, 1e-5)
    broken = [dataclasses.replace(k, wgsl=k.wgsl + "\nfn broken() { let y = 1.0 + ; }\n") if n in (1, 2) else k
              for n, k in enumerate(program.kernels)]
    assert program.kernels[1].name != program.kernels[2].name
    with pytest.raises(fg.CompileError, match=f"kernel {program.kernels[1].name} "):
        Executable(dataclasses.replace(program, kernels=tuple(broken)), dataclasses.replace(device, pipelines={}))


def test_unknown_adapter_is_a_clear_error():
    with pytest.raises(fg.CompileError, match=r"no WebGPU adapter matches FGRAD_ADAPTER='no-such-gpu'; adapters found: \["):
        _open("no-such-gpu")


def test_subgroup_operations_are_used_where_the_adapter_has_them():
    device = fg.default_device()
    assert device.limits.subgroups == ("subgroup" in device.adapter.features) == ("subgroup" in device.device.features)


def test_adapters_list_the_adapter_in_use():
    assert fg.default_device().name in fg.adapters()


def test_print_environment_info(capsys):
    text = fg.print_environment_info(return_string=True)
    assert text.startswith(f"fgrad:  {fg.__version__}\nnumpy:  {np.__version__}\n")
    assert f"device info: {fg.default_device().name} ({fg.default_backend()}), 1 local device" in text
    assert fg.print_environment_info() is None and capsys.readouterr().out == text + "\n"


def test_devices_as_jax():
    """fg.devices() is jax.devices(): Device objects (fgrad's one), which device_put and jit take, and
    which have a jax.Device's platform, kind and ids; a backend other than the device's is refused."""
    device = fg.default_device()
    assert isinstance(device, fg.Device)
    assert fg.devices() == fg.local_devices() == [device] and fg.device_count() == fg.local_device_count() == 1
    assert fg.devices(device.platform) == fg.local_devices(backend=device.platform, process_index=0) == [device]
    assert (device.platform, device.device_kind, device.id, device.process_index) == \
        (fg.default_backend(), device.name, 0, 0)
    x = fg.device_put(np.arange(3, dtype=np.float32), fg.devices()[0])
    assert isinstance(x, fg.Array) and x.devices() == {device}
    assert fg.jit(lambda v: v * 2, device=fg.local_devices()[0])(x).numpy().tolist() == [0.0, 2.0, 4.0]
    other = "gpu" if device.platform == "cpu" else "cpu"
    for backend, why in ((other, "is not the default device's"), ("tpu", "is not one of fgrad's")):
        with pytest.raises(fg.CompileError, match=f"devices: backend '{backend}' {why}"):
            fg.devices(backend)
    with pytest.raises(fg.InputError, match="local_devices: process_index 1: fgrad runs in one process"):
        fg.local_devices(process_index=1)


MATMULS = {
    "t8-divisible": ((128, 96), (96, 256), lambda a, b: a @ b),
    "t8-ragged": ((130, 50), (50, 70), lambda a, b: a @ b),
    "t4-ragged": ((64, 40), (40, 100), lambda a, b: a @ b),
    "t8x4": ((256, 40), (40, 64), lambda a, b: a @ b),
    "t4x8": ((64, 40), (40, 256), lambda a, b: a @ b),
    "transposed-a": ((40, 64), (40, 100), lambda a, b: a.T @ b),
    "transposed-b": ((64, 40), (100, 40), lambda a, b: a @ b.T),
    "batched-broadcast": ((3, 64, 24), (24, 70), lambda a, b: a @ b),
    "epilogue": ((130, 50), (50, 70), lambda a, b: fg.relu(a @ b + b[0] * 2.0)),
}


@pytest.mark.parametrize("name", sorted(MATMULS))
def test_tiled_matmul_shapes(name):
    sa, sb, fn = MATMULS[name]
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=sa).astype(np.float32), rng.normal(size=sb).astype(np.float32)
    graph = fg.trace(fn, a, b)
    exe = compile_for_gpu(graph)
    assert any("var<workgroup> As" in k.wgsl for k in exe.program.kernels)
    assert len(exe.kernels) == 1  # transposes are read in place; the epilogue fuses
    assert_matches(exe(a, b), fg.interpret(graph, a, b), 1e-5, 1e-5, name)


COOPERATIVE = {
    "sum-rows": (lambda x: fg.sum(x, axis=1), (5, 300)),
    "max-all": (lambda x: fg.max(x), (20, 30)),
    "softmax-rows": (lambda x: fg.softmax(x * 2.0, axis=-1), (3, 200)),
    "log-softmax-middle-axis": (lambda x: fg.log_softmax(x, axis=1), (2, 150, 3)),
    "scatter-add": (lambda x: fg.scatter_add(x, np.arange(140) % 7, 7), (140, 3)),
    # rows a multiple of the workgroup's width: each invocation holds its values of the row
    "softmax-held-rows": (lambda x: fg.softmax(x * 2.0, axis=-1), (5, 256)),
    "log-softmax-held-long-rows": (lambda x: fg.log_softmax(x, axis=-1), (2, 4096)),
    "layer-norm-held-rows": (lambda x: fg.nn.layer_norm({"g": fg.ones(128), "b": fg.zeros(128)}, x), (6, 128)),
    "max-subtracted-held-rows": (lambda x: x - fg.max(x, axis=-1, keepdims=True), (4, 512)),
}


@pytest.mark.parametrize("name", sorted(COOPERATIVE))
def test_cooperative_reductions(name):
    fn, shape = COOPERATIVE[name]
    x = np.random.default_rng(6).normal(size=shape).astype(np.float32)
    graph = fg.trace(fn, x)
    exe = compile_for_gpu(graph)
    assert any("workgroupBarrier" in k.wgsl and "shared_f32" in k.wgsl for k in exe.program.kernels)
    assert_matches(exe(x), fg.interpret(graph, x), 1e-5, 1e-5, name)


@pytest.mark.parametrize("cpu", [False, True], ids=["gpu", "cpu"])
def test_long_column_sums_run_in_two_passes_and_siblings_share_a_kernel(cpu):
    """Kernels shaped for a GPU fold each column with several invocations side by side (the
    columns skeleton, combined in shared memory); for a CPU adapter, each in one invocation's loop."""
    def f(x):
        return fg.sum(x, axis=0), fg.sum(x * x, axis=0), fg.max(x, axis=(0, 1))

    x = np.random.default_rng(7).normal(size=(64, 40, 5)).astype(np.float32)
    graph = fg.trace(f, x)
    exe = compile_for_gpu(graph, cpu=cpu)
    ops = [[exe.program.graph.nodes[r].op for r in k.roots] for k in exe.program.kernels]
    shared = ["workgroupBarrier" in k.wgsl and "let lane = lid / 32i;" in k.wgsl for k in exe.program.kernels]
    assert not any(shared) if cpu else all(shared)
    assert any(len(roots) > 1 for roots in ops)  # the partial sums of x and x*x share a kernel
    assert sum(op == "max" for roots in ops for op in roots) == 2  # 2560 values: two passes
    assert_matches(exe(x), fg.interpret(graph, x), 1e-5, 1e-5, "column sums")


COLUMNS = {  # folds over leading axes, each result folded by several invocations side by side
    "ragged-columns-with-epilogue": (lambda x: fg.sum(x, axis=0) * 2.0 + 1.0, (300, 45)),
    "middle-axis": (lambda x: fg.mean(fg.tanh(x), axis=1), (3, 100, 7)),
    "argmax-and-min": (lambda x: (fg.argmax(x, axis=0), fg.min(x, axis=0)), (70, 33)),
    "symbolic-fold": (lambda x: fg.sum(x * x, axis=0), (fg.dim("T", 128), 40)),
    "symbolic-results": (lambda x: fg.max(x, axis=0), (50, fg.dim("T", 128))),
}


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_column_reductions(name):
    fn, shape = COLUMNS[name]
    graph = fg.trace(fn, fg.spec(shape))
    exe = compile_for_gpu(graph)
    assert any("let lane = lid / 32i;" in k.wgsl for k in exe.program.kernels)
    sizes = [(tuple(d if isinstance(d, int) else n for d in shape)) for n in ((1, 33, 128) if graph.symbols else (0,))]
    for k, size in enumerate(sizes):
        x = np.random.default_rng(k).normal(size=size).astype(np.float32)
        assert_matches(exe(x), fg.interpret(graph, x), 1e-5, 1e-5, f"{name} at {size}")


def _long_rows(kind: str, n: int) -> np.ndarray:
    """Two rows of n values with the extreme twice in row 0 (the first must win) and last in row 1."""
    rng = np.random.default_rng(n)
    if kind == "bool":
        x = np.zeros((2, n), bool)
        x[0, [n // 3, n // 2]] = x[1, n - 1] = True
        return x
    x = (rng.normal(size=(2, n)) * 100).astype(np.int32 if kind == "int" else np.float32)
    x[0, [n // 3, n // 2]] = 1000
    x[1, n - 1] = 2000
    if kind == "nan":
        x[0, [n // 4, n - 2]] = np.nan
    if kind == "-inf":
        x[:] = -np.inf
    return x


@pytest.mark.parametrize("kind", ["float", "nan", "-inf", "int", "bool"])
@pytest.mark.parametrize("n", [8192, 50257])  # a power of two; a length none divides (padded)
@pytest.mark.parametrize("fn", [fg.argmax, fg.argmin], ids=["argmax", "argmin"])
def test_argmax_over_a_few_long_rows_runs_in_chunks_and_keeps_the_first(fn, n, kind):
    x = _long_rows(kind, n)
    if fn is fg.argmin and kind not in ("nan", "-inf"):
        x = ~x if kind == "bool" else -x
    graph = fg.trace(lambda x: fn(x, axis=-1), x)
    exe = compile_for_gpu(graph)
    assert len(exe.program.kernels) > 1 and exe.program.kernels[0].grid[0] >= 32  # chunks, a workgroup each
    want = (np.argmax if fn is fg.argmax else np.argmin)(x, axis=-1)
    np.testing.assert_array_equal(fg.interpret(graph, x), want)
    np.testing.assert_array_equal(exe(x).numpy(), want)


def test_a_sum_over_leading_axes_joins_the_elementwise_kernel_that_reads_it():
    """split-k's sum of partial products and a residual add: one kernel, looping over the partials;
    a sum a row-normalizing kernel reads keeps a kernel of its own."""
    rng = np.random.default_rng(11)
    parts, r = rng.normal(size=(8, 5, 40)).astype(np.float32), rng.normal(size=(5, 40)).astype(np.float32)
    graph = fg.trace(lambda p, r: fg.tanh(fg.sum(p, axis=0)) + r, parts, r)
    exe = fg.compile(graph)
    assert [k.name for k in exe.program.kernels] == ["sum_tanh_add"]
    assert_matches(exe(parts, r), fg.interpret(graph, parts, r), 1e-5, 1e-5, "sum joined")
    normed = fg.trace(lambda p: fg.softmax(fg.sum(p, axis=0) * 2.0, axis=-1), parts)
    exe = fg.compile(normed)
    assert len(exe.program.kernels) == 2
    assert_matches(exe(parts), fg.interpret(normed, parts), 1e-5, 1e-5, "sum apart")


def test_a_short_sum_over_leading_axes_joins_a_kernel_of_rows_through_a_reshape():
    """split-k's sum of 2 partial products, reshaped, added to a residual stream and normalized
    along rows (a transformer's down projection, residual add and next layer norm): each
    invocation of the kernel walking the rows folds its elements' partials, no kernel of its own."""
    rng = np.random.default_rng(12)
    parts, r = rng.normal(size=(2, 128, 256)).astype(np.float32), rng.normal(size=(4, 32, 256)).astype(np.float32)

    def residual_and_norm(p, r):
        x = fg.sum(p, axis=0).reshape(4, 32, 256) + r
        c = x - x.mean(axis=-1, keepdims=True)
        return x, c * fg.rsqrt((c * c).mean(axis=-1, keepdims=True) + 1e-5)

    graph = fg.trace(residual_and_norm, parts, r)
    exe = compile_for_gpu(graph)
    assert len(exe.program.kernels) == 1, [k.name for k in exe.program.kernels]
    assert_matches(exe(parts, r), fg.interpret(graph, parts, r), 1e-5, 1e-5, "sum in the rows kernel")


def test_a_split_weight_gradient_is_summed_in_the_kernel_of_its_optimizer_update():
    """An Adam step on a weight whose gradient split-k sums: the sum of the partial products
    joins the one kernel that updates the weight and both its moments (three roots), and the
    step matches interpret's."""
    rng = np.random.default_rng(14)
    params = {"w": rng.normal(size=(64, 64)).astype(np.float32)}
    x, y = rng.normal(size=(2048, 64)).astype(np.float32), rng.normal(size=(2048, 64)).astype(np.float32)
    step = fg.adam_step(fg.trace(lambda p, x, y: ((x @ p["w"] - y) ** 2).mean(), params, x, y), lr=1e-2)
    state = fg.adam_init(params)
    program = lower(step, gpu_limits(parallel_workgroups=8))
    nodes = program.graph.nodes
    assert [nodes[r].spec.shape for r in program.kernels[-1].roots] == [(64, 64)] * 3  # the weight, its moments
    assert any(nodes[i].op == "sum" and nodes[nodes[i].inputs[0]].spec.shape == (8, 64, 64)
               for i in group_inlined(program.graph, program.kernels[-1].roots, {r for k in program.kernels
                                                                                 for r in k.roots}))
    assert_matches(Executable(program)(params, state, x, y), fg.interpret(step, params, state, x, y), 1e-4, 1e-5,
                   "adam of a split gradient")


def _projections(x, wq, wk, wv):
    """Attention's q, k and v of one input."""
    return x @ wq, x @ wk, x @ wv


def _projections_read_between(x, wq, wk, wv):
    """The same, with q's result read (by its rows' sums, a result) before k's and v's products."""
    q = x @ wq
    rows = fg.sum(fg.exp(q), axis=-1, keepdims=True)
    return q, x @ wk, x @ wv, rows


def _projections_read_by_an_epilogue(x, wq, wk, wv):
    """The same, with q's product's epilogue reading k's and v's results."""
    k, v = x @ wk, x @ wv
    return fg.tanh(x @ wq) * k + v, k, v


@pytest.mark.parametrize("parallel", [2, 192])
@pytest.mark.parametrize("fn, merged", [(_projections, [3]), (_projections_read_between, [2]),
                                        (_projections_read_by_an_epilogue, [2])])
def test_products_of_one_operand_by_matrices_of_one_shape_share_a_kernel(fn, merged, parallel):
    """Sibling products (one operand by matrices of one shape) in one kernel, each workgroup
    computing a tile of the product its column block falls in, where no kernel between reads
    them; results equal to interpret's, forward and backward (whose split-k partial products,
    a batch of matrices, keep kernels of their own)."""
    rng = np.random.default_rng(15)  # scaled so that the products are of order one
    args = [rng.normal(scale=0.125, size=s).astype(np.float32) for s in [(2, 256, 64), (64, 64), (64, 64), (64, 64)]]
    graph = fg.trace(fn, *args)
    exe = compile_for_gpu(graph, parallel_workgroups=parallel)
    assert [len(k.roots) for k in exe.program.kernels if "let product = " in k.wgsl] == merged
    assert_matches(exe(*args), fg.interpret(graph, *args), 1e-4, 1e-5, "siblings")
    grads = fg.trace(fg.grad(lambda *a: (lambda q, k, v, *_: (q * k + v).sum())(*fn(*a)), argnums=(1, 2, 3)), *args)
    exe = compile_for_gpu(grads, parallel_workgroups=parallel)
    nodes = exe.program.graph.nodes
    assert all(nodes[r].spec.ndim == 3 and nodes[r].spec.shape[0] == 2 for k in exe.program.kernels
               if "let product = " in k.wgsl for r in k.roots)  # the forward's (2, 256, 64) products only
    assert_matches(exe(*args), fg.interpret(grads, *args), 1e-4, 1e-5, "siblings' gradients")


def test_a_conversion_of_a_buffer_is_made_by_each_kernel_that_reads_it():
    """An astype of an input that two kernels read: each converts as it loads; no kernel writes a copy."""
    x = np.random.default_rng(12).integers(-50, 50, size=(6, 300)).astype(np.int32)
    graph = fg.trace(lambda x: (fg.softmax(x.astype("f32") / 10.0, axis=-1), fg.sum(x.astype("f32") * 2.0, axis=0)), x)
    exe = fg.compile(graph)
    assert len(exe.program.kernels) == 2 and all(k.name.startswith("astype_") for k in exe.program.kernels)
    assert_matches(exe(x), fg.interpret(graph, x), 1e-5, 1e-5, "converted per load")


def test_split_k_for_small_products_over_long_k():
    """With a GPU's parallelism, a 64x64 product over k = 2048 runs as 8 partial products and a sum."""
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=(2048, 64)).astype(np.float32), rng.normal(size=(2048, 64)).astype(np.float32)
    graph = fg.trace(lambda x, y: x.T @ y, a, b)
    program = lower(graph, gpu_limits(parallel_workgroups=8))
    ops = [program.graph.nodes[i].op for k in program.kernels for i in k.roots]
    assert ops == ["matmul", "sum"]
    assert program.graph.nodes[program.kernels[0].roots[0]].spec.shape == (8, 64, 64)
    assert_matches(Executable(program)(a, b), fg.interpret(graph, a, b), 1e-5, 1e-4, "split-k")


def test_split_k_goes_on_while_the_partial_products_tiles_stay_small():
    """Split-k goes on where the partial products' tiles would stay under 32 outputs an invocation
    and k pays for the partial sums: 4096 x 1024 @ 1024 x 256 on a GPU's 192 workgroups in 2 (its
    tiles 8 x 4, not 4 x 4); 128 x 2048 @ 2048 x 64 over 4 workgroups in 4, not 2; never where k
    is short (4096 x 256 @ 256 x 256) or on a CPU adapter."""
    def product_shapes(sa, sb, limits):
        program = lower(fg.trace(lambda x, w: x @ w, fg.spec(sa), fg.spec(sb)), limits)
        return [program.graph.nodes[r].spec.shape for k in program.kernels for r in k.roots
                if program.graph.nodes[r].op == "matmul"]

    assert product_shapes((4096, 1024), (1024, 256), Limits(parallel_workgroups=192)) == [(2, 4096, 256)]
    assert product_shapes((4096, 256), (256, 256), Limits(parallel_workgroups=192)) == [(4096, 256)]
    assert product_shapes((128, 2048), (2048, 64), Limits(parallel_workgroups=4, cpu=True)) == [(2, 128, 64)]
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=(128, 2048)).astype(np.float32), rng.normal(size=(2048, 64)).astype(np.float32)
    graph = fg.trace(lambda x, w: x @ w, a, b)
    program = lower(graph, gpu_limits(parallel_workgroups=4))
    assert [program.graph.nodes[r].spec.shape for r in program.kernels[0].roots] == [(4, 128, 64)]
    assert_matches(Executable(program)(a, b), fg.interpret(graph, a, b), 1e-5, 1e-4, "split-k, 4 parts")


def test_layer_norm_runs_as_one_kernel_and_its_gradient_matches():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(6, 200)).astype(np.float32)
    p = {"g": (1 + 0.1 * rng.normal(size=200)).astype(np.float32), "b": rng.normal(size=200).astype(np.float32)}
    forward = fg.trace(lambda p, x: fg.nn.layer_norm(p, x), p, x)
    exe = compile_for_gpu(forward)
    assert len(exe.kernels) == 1 and "workgroupBarrier" in exe.kernels[0][1]
    assert_matches(exe(p, x), fg.interpret(forward, p, x), 1e-5, 1e-5, "layer norm")
    backward = fg.value_and_grad(fg.trace(lambda p, x: fg.sum(fg.tanh(fg.nn.layer_norm(p, x)) ** 2), p, x),
                                 argnums=(0, 1))
    assert_matches(compile_for_gpu(backward)(p, x), fg.interpret(backward, p, x), 1e-4, 1e-5, "layer norm gradient")


def _statistics(x):
    mu = fg.mean(x, axis=-1, keepdims=True)
    centred = x - mu
    rstd = fg.rsqrt(fg.mean(centred * centred, axis=-1) + 1e-5)
    return centred * rstd[..., None] * 2.0 + 1.0, mu, rstd


def _layer_norm_backward(g, b, x, c):
    return fg.grad(lambda g, b, x: (nn.layer_norm({"g": g, "b": b}, x) * c).sum(), argnums=(0, 1, 2))(g, b, x)


# name: (function, operand shapes, the kernels' roots' shapes for a GPU, and for a CPU adapter where
# they differ: there roots of whole rows and of values per row keep kernels of their own)
ROWS_AND_VALUES = {
    # whole rows and one value per row: a layer norm with the statistics its backward pass keeps
    "statistics-held-rows": (_statistics, [(6, 128)], [[(6, 1), (6, 128), (6,)]],
                             [[(6, 1)], [(6, 128)], [(6,)], [(6, 128)]]),
    "statistics-strided-rows": (_statistics, [(5, 200)], [[(5, 1), (5, 200), (5,)]],
                                [[(5, 1)], [(5, 200)], [(5,)], [(5, 200)]]),
    "statistics-batched-rows": (_statistics, [(3, 4, 96)], [[(3, 4, 1), (3, 4, 96), (3, 4)]],
                                [[(3, 4, 1)], [(3, 4, 96)], [(3, 4)], [(3, 4, 96)]]),
    # a row sum kept, and the rows divided by it
    "row-sum-and-shares": (lambda x: (x.sum(-1), x / x.sum(-1, keepdims=True)), [(7, 300)], [[(7,), (7, 300)]],
                           [[(7,)], [(7, 300)]]),
    # folds of one count of results, their shapes not alike, share a kernel
    "row-sum-and-kept-max": (lambda x: (x.sum(-1), x.max(-1, keepdims=True) * 2.0), [(7, 300)], [[(7,), (7, 1)]],
                             None),
    # a row reduction's per-row epilogue, and a full sum's, join the reduction
    "rms-epilogue": (lambda x: fg.rsqrt(fg.mean(x * x, axis=-1) + 1e-6), [(7, 300)], [[(7,)]], None),
    "negated-mean": (lambda x: -fg.mean(x), [(7, 300)], [[()]], None),
    # the softmax recomputed in its backward pass's kernel
    "softmax-backward": (fg.grad(lambda x, c: (fg.softmax(x, -1) * c).sum()), [(7, 300), (7, 300)], [[(7, 300)]],
                         None),
    "log-softmax-backward": (fg.grad(lambda x, c: (fg.log_softmax(x, -1) * c).sum()), [(5, 256), (5, 256)],
                             [[(5, 256)]], None),
    # a layer norm's backward pass: the statistics and the input's gradient in one rows kernel, the
    # gain's and bias's first passes (due on either side of the bias's second) in one kernel, which
    # centres x again from its mean (the rows kernel writes no centred rows)
    "layer-norm-backward": (_layer_norm_backward, [(32,), (32,), (512, 32), (512, 32)],
                            [[(512, 32), (512, 1)], [(32, 32)], [(32,)]],
                            [[(512, 1)], [(32, 32)], [(32,)], [(512, 32)]]),
    # a variance's mean stays a kernel of its own: folded inside the variance's loop, it would be
    # folded again for every value
    "variance": (lambda x: fg.var(x, axis=-1), [(7, 300)], [[(7,)], [(7,)]], None),
}


@pytest.mark.parametrize("cpu", [False, True], ids=["gpu", "cpu"])
@pytest.mark.parametrize("name", sorted(ROWS_AND_VALUES))
def test_rows_kernels_write_whole_rows_and_values_per_row(name, cpu):
    fn, shapes, gpu_kernels, cpu_kernels = ROWS_AND_VALUES[name]
    rng = np.random.default_rng(11)
    args = [rng.normal(size=s).astype(np.float32) for s in shapes]
    graph = fg.trace(fn, *args)
    exe = compile_for_gpu(graph, cpu=cpu)
    program = exe.program
    kernels = cpu_kernels if cpu and cpu_kernels else gpu_kernels
    assert [sorted(set(program.graph.nodes[r].spec.shape for r in k.roots), key=len) for k in program.kernels] == \
        [sorted(set(k), key=len) for k in kernels]
    assert_matches(exe(*args), fg.interpret(graph, *args), 1e-5, 1e-5, name)


def _bias_after_product(x, w1, b1, w2):
    return (fg.tanh(x @ w1 + b1) @ w2).sum()


def _norm_after_product(x, w, p, w2):
    return (nn.layer_norm(p, x @ w) @ w2).sum()


# name: (function, argnums differentiated, operand shapes, the column sums' partial sums (shapes)
# that the matmul kernel producing what they sum writes; `parallel`: the adapter's workgroups at
# once, which pick the tiles: 8 x 4 or 8 x 8 (a tile of 128 rows, eight chunks of 16) or 2 x 2 (32 rows)
COLUMN_PARTIALS = {
    "bias-gradient": (_bias_after_product, (2,), [(256, 32), (32, 64), (64,), (64, 16)], [(16, 64)]),
    "bias-gradient-batched": (_bias_after_product, (2,), [(4, 64, 32), (32, 64), (64,), (64, 16)], [(16, 64)]),
    "bias-gradient-ragged-columns": (_bias_after_product, (2,), [(256, 32), (32, 40), (40,), (40, 16)], [(16, 40)]),
    "bias-gradient-wide": (_bias_after_product, (2,), [(256, 32), (32, 128), (128,), (128, 16)], [(16, 128)]),
    "layer-norm-gradients": (_norm_after_product, (2,), [(256, 32), (32, 64), "norm", (64, 16)],
                             [(16, 64), (16, 64)]),
}


@pytest.mark.parametrize("parallel", [2, 192])
@pytest.mark.parametrize("name", sorted(COLUMN_PARTIALS))
def test_column_sums_of_a_product_are_summed_where_it_is_computed(name, parallel):
    """A bias's or a layer norm's gradient sums over rows computed by a product: their first pass
    joins the product's kernel, summing its tiles' columns as it stores them, and the gradients
    match interpret's."""
    fn, argnums, shapes, partials = COLUMN_PARTIALS[name]
    rng = np.random.default_rng(12)
    args = [nn.init_layer_norm(64) if s == "norm" else rng.normal(size=s).astype(np.float32) for s in shapes]
    graph = fg.trace(fg.grad(fn, argnums=argnums), *args)
    exe = compile_for_gpu(graph, parallel_workgroups=parallel)
    program = exe.program
    fused = [[program.graph.nodes[r].spec.shape for r in k.roots[1:]] for k in program.kernels
             if "var<workgroup> Cs" in k.wgsl]
    assert fused == [partials]
    assert all(workgroup_bytes(k.wgsl) <= WEBGPU_WORKGROUP_BYTES for k in program.kernels)
    assert_matches(exe(*args), fg.interpret(graph, *args), 1e-4, 1e-5, name)


WEBGPU_WORKGROUP_BYTES = 16384  # the least maxComputeWorkgroupStorageSize an adapter has


def workgroup_bytes(wgsl: str) -> int:
    """The workgroup memory a kernel declares (its f32 and vector-of-f32 arrays)."""
    arrays = re.findall(r"var<workgroup> \w+: array<(?:vec(\d)<f32>|f32), (\d+)>;", wgsl)
    assert len(arrays) == wgsl.count("var<workgroup>")
    return sum(int(width or 1) * int(count) * 4 for width, count in arrays)


def _heads(x, h=4):
    """(batch, tokens, h * d) -> (batch, h, tokens, d): attention's heads, a view."""
    b, t, width = x.shape
    return fg.transpose(x.reshape(b, t, h, width // h), (0, 2, 1, 3))


# name: (function, operand shapes, the operands the tiled kernel loads as vec4s: B where its rows
# run along n, A where they run along m (a transposed buffer), through reshapes, transposes and
# broadcasts; never an operand read along k, a ragged one, or one read twice)
PRODUCT_LAYOUTS = {
    "plain": (lambda x, y: x @ y, [(64, 32), (32, 64)], "b"),
    "batched-rows": (lambda x, y: x @ y, [(3, 64, 32), (32, 64)], "b"),
    "batched-both": (lambda x, y: x @ y, [(3, 64, 32), (3, 32, 64)], "b"),
    "ragged-rows": (lambda x, y: x @ y, [(65, 32), (32, 64)], "b"),
    "ragged-k": (lambda x, y: x @ y, [(64, 36), (36, 64)], ""),
    "transposed-a": (lambda xt, y: xt.T @ y, [(32, 64), (32, 64)], "ab"),
    "transposed-a-batched": (lambda xt, y: fg.swapaxes(xt, -1, -2) @ y, [(2, 32, 128), (2, 32, 64)], "ab"),
    "transposed-b": (lambda x, yt: x @ yt.T, [(64, 32), (64, 32)], ""),
    "transposed-both": (lambda xt, yt: xt.T @ yt.T, [(32, 256), (128, 32)], "a"),
    "one-buffer-twice": (lambda x, y: x.T @ x + y, [(32, 64), (64, 64)], ""),
    "weight-gradient-split": (lambda x, dy: x.T @ dy, [(256, 64), (256, 64)], "ab"),
    "attention-values": (lambda p, v: p @ _heads(v), [(2, 4, 16, 16), (2, 16, 128)], "b"),
    "merged-heads-gradient": (lambda x, h: x.T @ fg.transpose(h, (0, 2, 1, 3)).reshape(32, 128),
                              [(32, 64), (2, 4, 16, 32)], "ab"),
    "attention-scores": (lambda q, k: _heads(q) @ fg.swapaxes(_heads(k), -1, -2), [(2, 16, 128), (2, 16, 128)], ""),
    "broadcast-a": (lambda x, y: fg.broadcast_to(x, (3, 64, 32)) @ y, [(64, 32), (3, 32, 64)], "b"),
    "epilogue": (lambda x, y: fg.tanh(x @ y) + 1.0, [(128, 64), (64, 128)], "b"),
}


@pytest.mark.parametrize("parallel", [2, 192])
@pytest.mark.parametrize("name", sorted(PRODUCT_LAYOUTS))
def test_tiled_products_of_every_operand_layout_match_interpret(name, parallel):
    """The GPU's tiled matmul on the local adapter, over operands read in place through views:
    which operands load their blocks as vec4s, and results equal to interpret's."""
    fn, shapes, vectored = PRODUCT_LAYOUTS[name]
    rng = np.random.default_rng(13)
    args = [rng.normal(size=s).astype(np.float32) for s in shapes]
    graph = fg.trace(fn, *args)
    exe = compile_for_gpu(graph, parallel_workgroups=parallel)
    (kernel,) = [k for k in exe.program.kernels if "var<workgroup> As" in k.wgsl]
    # the arguments whose buffers the kernel binds as vec4s (binding n is kernel.reads[n])
    loads = ["ab"[exe.program.inputs.index(b)] for n, b in enumerate(kernel.reads)
             if f"b{n}: array<vec4<f32>>" in kernel.wgsl]
    assert "".join(sorted(loads)) == vectored
    assert workgroup_bytes(kernel.wgsl) <= WEBGPU_WORKGROUP_BYTES
    assert_matches(exe(*args), fg.interpret(graph, *args), 1e-4, 1e-5, name)


def test_programs_are_cached_on_disk_and_damaged_entries_rebuilt(tmp_path, monkeypatch):
    from fgrad.lower import disk_cache

    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    graph = fg.trace(lambda a: fg.softmax(a @ a.T) * 2.0, fg.spec((5, 3)))
    x = np.random.default_rng(10).normal(size=(5, 3)).astype(np.float32)
    first = fg.compile(graph)
    (entry,) = tmp_path.glob("*.program")
    loads = []
    monkeypatch.setattr(disk_cache, "load",
                        lambda name, graph, real=disk_cache.load: loads.append(real(name, graph)) or loads[-1])
    second = fg.compile(graph)
    assert loads[-1] is not None and loads[-1] == first.program  # read back from disk, equal
    assert_matches(second(x), fg.interpret(graph, x))
    entry.write_bytes(entry.read_bytes()[:-7] + b"garbage")  # damaged: ignored, rebuilt, rewritten
    third = fg.compile(graph)
    assert loads[-1] is None and third.program == first.program
    assert disk_cache.load(entry.stem, graph) == first.program
    monkeypatch.setenv("FGRAD_CACHE_DIR", "")  # an empty value turns the cache off
    fg.compile(graph)
    assert loads[-1] is None


def _cache_entry(folder, graph):
    """Lower `graph` (no device needed), store it in `folder`; its key, program and file."""
    from fgrad.lower import disk_cache

    name = disk_cache.key(graph, Limits(), frozenset(), "test adapter")
    program = lower(graph)
    disk_cache.store(name, program)
    return name, program, folder / f"{name}.program"


def _rewrite_entry(entry, payload: bytes) -> None:
    """Replace an entry's payload, keeping its magic line and giving it a matching checksum."""
    from fgrad.lower import disk_cache

    magic = entry.read_bytes().split(b"\n", 1)[0] + b"\n"
    entry.write_bytes(magic + disk_cache._digest(entry.name.removesuffix(".program"), payload) + payload)


class _Tripwire:
    """Unpickling this creates the file `path`: a stand-in for code an attacker's cache entry would run."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


def test_cache_entries_are_data_and_pickles_are_never_loaded(tmp_path, monkeypatch):
    import json
    import pickle

    from fgrad.lower import disk_cache

    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    graph = fg.trace(lambda a: fg.exp(a) * 2.0 + 1.5, fg.spec((4, 3)))
    name, program, entry = _cache_entry(tmp_path, graph)
    body = json.loads(entry.read_bytes().split(b"\n", 1)[1][64:])  # after the magic line and checksum
    assert body["fields"]["kernels"][0]["fields"]["wgsl"] == program.kernels[0].wgsl  # WGSL is stored as text
    marker = tmp_path / "code-ran"
    _rewrite_entry(entry, pickle.dumps(_Tripwire(marker)))
    assert disk_cache.load(name, graph) is None
    assert not marker.exists()
    exe = fg.compile(graph)  # the entry for this device is rebuilt too, and runs
    x = np.random.default_rng(3).normal(size=(4, 3)).astype(np.float32)
    assert_matches(exe(x), fg.interpret(graph, x))
    assert not marker.exists()


def _kernel_read(body, value):
    body["fields"]["kernels"][0]["fields"]["reads"][0] = value
    return body


MALFORMED_ENTRIES = [
    pytest.param(lambda body: b"{not json", id="not-json"),
    pytest.param(lambda body: [], id="not-a-program"),
    pytest.param(lambda body: {"dataclass": "builtins:eval", "fields": {}}, id="foreign-module"),
    pytest.param(lambda body: {"dataclass": "fgrad.ir:np", "fields": {}}, id="not-a-class"),
    pytest.param(lambda body: {"dataclass": "fgrad.ir:DType", "fields": {}}, id="not-a-dataclass"),
    pytest.param(lambda body: {"enum": "fgrad.ir:Spec", "value": "f32"}, id="not-an-enum"),
    pytest.param(lambda body: {**body, "fields": {**body["fields"], "extra": 1}}, id="unknown-field"),
    pytest.param(lambda body: {**body, "dataclass": "fgrad.lower.program:Kernel"}, id="wrong-class"),
    pytest.param(lambda body: _kernel_read(body, 999), id="buffer-out-of-range"),
    pytest.param(lambda body: _kernel_read(body, "0"), id="buffer-not-an-int"),
    pytest.param(lambda body: _kernel_read(body, {"tree": "sideways"}), id="unknown-tree"),
    pytest.param(lambda body: _kernel_read(body, {"bytes": "!!"}), id="bad-base64"),
    pytest.param(lambda body: _kernel_read(body, True), id="buffer-a-bool"),
    pytest.param(lambda body: _set(body, "kernels", 0, "reads", [0]), id="bindings-differ-from-the-wgsl"),
    pytest.param(lambda body: _set(body, "kernels", 0, "grid", [0, 1, 1]), id="empty-grid"),
    pytest.param(lambda body: _set(body, "kernels", 0, "grid", [1, 1]), id="grid-of-two"),
    pytest.param(lambda body: _set(body, "buffers", 0, "size", "48"), id="size-not-an-int"),
    pytest.param(lambda body: _set(body, "buffers", 0, "size", 4), id="buffer-smaller-than-its-value"),
    pytest.param(lambda body: _set(body, "buffers", 0, "kind", "secret"), id="unknown-buffer-kind"),
    pytest.param(lambda body: _set(body, "copies", [[0, 99]]), id="copy-out-of-range"),
    pytest.param(lambda body: _set(body, "donated", [5]), id="donated-out-of-range"),
    pytest.param(lambda body: _set(body, "outputs", [0]), id="result-in-an-input-buffer"),
    pytest.param(lambda body: _set(body, "graph", "nodes", 0, "params", 0, 1, "z"), id="input-renamed"),
    pytest.param(lambda body: _set(body, "graph", "nodes", 0, "spec", "shape", [3, 4]), id="node-spec-wrong"),
    pytest.param(lambda body: _set(body, "specs", -1, "shape", [5]), id="result-spec-wrong"),
]


def _set(body, *where_and_value):
    """`body` with the value at a path of fields and indices replaced (dataclasses' fields stepped into)."""
    *where, value = where_and_value
    node = body
    for step in where[:-1]:
        node = node["fields"][step] if isinstance(node, dict) and "fields" in node else node[step]
    holder = node["fields"] if isinstance(node, dict) and "fields" in node else node
    holder[where[-1]] = value
    return body


@pytest.mark.parametrize("damage", MALFORMED_ENTRIES)
def test_malformed_cache_entries_are_ignored(tmp_path, monkeypatch, damage):
    import json

    from fgrad.lower import disk_cache

    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    graph = fg.trace(lambda a, b: fg.sum(a * b, axis=1), fg.spec((4, 3)), fg.spec((4, 3)))
    name, program, entry = _cache_entry(tmp_path, graph)
    assert disk_cache.load(name, graph) == program
    bad = damage(json.loads(entry.read_bytes().split(b"\n", 1)[1][64:]))
    _rewrite_entry(entry, bad if isinstance(bad, bytes) else json.dumps(bad).encode())
    assert disk_cache.load(name, graph) is None


def test_a_cache_entry_under_another_graphs_name_is_not_used(tmp_path, monkeypatch):
    # Both programs are well formed and of the same signature: only the name tells them apart.
    import shutil

    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    times, plus = fg.trace(lambda a: a * 2.0, fg.spec(3)), fg.trace(lambda a: a + 100.0, fg.spec(3))
    _, _, entry = _cache_entry(tmp_path, times)
    name, _, _ = _cache_entry(tmp_path, plus)
    shutil.copy(entry, tmp_path / f"{name}.program")
    from fgrad.lower import disk_cache

    assert disk_cache.load(name, plus) is None
    device = fg.default_device()
    times_entry = tmp_path / f"{disk_cache.key(times, device.limits, frozenset(), device.name)}.program"
    fg.compile(times)
    shutil.copy(times_entry, tmp_path / f"{disk_cache.key(plus, device.limits, frozenset(), device.name)}.program")
    np.testing.assert_array_equal(fg.compile(plus)(np.ones(3, np.float32)).numpy(), [101.0] * 3)


def test_a_cached_kernel_that_fails_validation_is_rebuilt(tmp_path, monkeypatch):
    import json

    from fgrad.lower import disk_cache

    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    graph = fg.trace(lambda a: fg.exp(a) * 2.0, fg.spec(3))
    device = fg.default_device()
    fg.compile(graph)
    entry = tmp_path / f"{disk_cache.key(graph, device.limits, frozenset(), device.name)}.program"
    body = json.loads(entry.read_bytes().split(b"\n", 1)[1][64:])
    wgsl = body["fields"]["kernels"][0]["fields"]["wgsl"]
    _rewrite_entry(entry, json.dumps(_set(body, "kernels", 0, "wgsl", wgsl.replace("fn main", "fn main("))).encode())
    x = np.array([0.0, 1.0, -1.0], np.float32)
    np.testing.assert_allclose(fg.compile(graph)(x).numpy(), np.exp(x) * 2.0, rtol=1e-6)


def test_cache_format_follows_the_dataclass_fields(tmp_path, monkeypatch):
    """A field added to Kernel (or Program, Buffer, ...) is stored and read back without touching the format."""
    from fgrad.lower import disk_cache
    from fgrad.lower import program as program_module

    @dataclasses.dataclass(frozen=True, slots=True)
    class Kernel(program_module.Kernel):
        workgroup: tuple[int, ...] = (64, 1, 1)
        note: str = ""

    Kernel.__module__, Kernel.__qualname__ = program_module.__name__, "Kernel"
    monkeypatch.setattr(program_module, "Kernel", Kernel)
    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    graph = fg.trace(lambda a: fg.tanh(a) @ a.T, fg.spec((4, 3)))
    name, program, _ = _cache_entry(tmp_path, graph)
    fields = [f.name for f in dataclasses.fields(program_module.Kernel.__mro__[1])]
    grown = dataclasses.replace(program, kernels=tuple(
        Kernel(**{f: getattr(k, f) for f in fields}, workgroup=(8, 8, 1), note=f"kernel {i}")
        for i, k in enumerate(program.kernels)))
    disk_cache.store(name, grown)
    back = disk_cache.load(name, graph)
    assert back == grown and back.kernels[1].note == "kernel 1" and back.kernels[0].workgroup == (8, 8, 1)


def test_cache_writes_leave_no_temporary_files(tmp_path, monkeypatch):
    import fcntl
    import os

    from fgrad.lower import disk_cache

    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    stale = tmp_path / ".0123abcd.program.k1ll3d.tmp"  # a store killed mid-write left it
    live = tmp_path / ".4567cdef.program.wr1t1ng.tmp"  # another process's store, under way: locked
    stale.write_bytes(b"partial")
    live.write_bytes(b"partial")
    writer = open(live, "rb")
    fcntl.flock(writer, fcntl.LOCK_EX)
    graph = fg.trace(lambda a: a * 3.0, fg.spec(5))
    name, program, entry = _cache_entry(tmp_path, graph)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, entry.name])

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    other = fg.trace(lambda a: a * 4.0, fg.spec(5))
    disk_cache.store(disk_cache.key(other, Limits(), frozenset(), "test adapter"), lower(other))  # skipped
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, entry.name])
    writer.close()


def test_cache_key_covers_the_format_and_fgrads_source(monkeypatch):
    from fgrad.lower import disk_cache

    graph = fg.trace(lambda a: a * 3.0, fg.spec(5))
    base = disk_cache.key(graph, Limits(), frozenset(), "test adapter")
    monkeypatch.setattr(disk_cache, "MAGIC", b"FGRAD-PROGRAM 999\n")
    assert disk_cache.key(graph, Limits(), frozenset(), "test adapter") != base
    monkeypatch.undo()
    monkeypatch.setattr(disk_cache, "_source_digest", lambda: "edited")
    assert disk_cache.key(graph, Limits(), frozenset(), "test adapter") != base


def test_integers_outside_i32_are_refused_before_anything_runs():
    graph = fg.trace(lambda n: n * 2, fg.spec(2, "i32"))
    fits, too_big = np.array([-(2**31), 5], np.int64), np.array([1, 2**40], np.int64)
    np.testing.assert_array_equal(fg.interpret(graph, fits), fits.astype(np.int32) * 2)
    for run in (lambda v: fg.interpret(graph, v), fg.compile(graph), fg.device_put):
        with pytest.raises(fg.InputError, match=r"has values outside the i32 range"):
            run(too_big)


def test_memory_by_storage_class():
    """Bytes per argument (weights, a donated cache written in place), scratch, constants, results."""
    def step(params, cache, x):
        return fg.tanh(x @ params["w"]) + cache[:2].sum(), fg.lax.dynamic_update_slice(cache, x[:1], (0, 0))

    args = ({"w": np.ones((4, 4), np.float32)}, np.zeros((8, 4), np.float32), np.ones((2, 4), np.float32))
    exe = fg.jit(step, donate_argnums=1).lower(*args).compile()
    memory = exe.memory
    assert (memory["params"], memory["cache"], memory["x"]) == (64, 128, 32)
    assert memory["outputs"] == 32  # the new cache is the donated one: only the other result has a buffer
    assert memory["constants"] == 0 and memory["scratch"] >= 0
    assert sum(v for k, v in memory.items() if k not in ("params", "cache", "x")) == exe.peak_bytes
