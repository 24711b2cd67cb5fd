"""The wgpu runtime: device choice, pipeline cache, Executable and Array.

The only module that touches the GPU. A Program from fgrad.lower becomes an
Executable: pipelines (cached per device by their WGSL text), scratch and
constant buffers, and bind groups for the kernels that use only those, all
made at compile time. A call uploads NumPy arguments (fg.Array arguments
are used in place), makes the output buffers, and records the dispatches
into command buffers of CHUNK dispatches each, submitting each as soon as it
is recorded (one for most programs). Results stay on the device as
fg.Array until the host asks for a value.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import wgpu

from fgrad.errors import CompileError, InputError, TraceError
from fgrad.ir import DType, Graph, HasSpec, Spec, check_args, check_i32_range, expose_captures
from fgrad.lower import Limits, Program, disk_cache, lower
from fgrad.pytree import flatten, register_leaf, unflatten
from fgrad.trace import Tensor, current_trace, spec_of, trace_function, user_site

try:  # wgpu-native's C entry points: recording through them skips ~4 µs of Python per dispatch
    from wgpu.backends.wgpu_native._ffi import ffi as _ffi
    from wgpu.backends.wgpu_native._ffi import lib as _native
except ImportError:  # another wgpu backend: the public API does the same, a little slower
    _native = None

STORAGE = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
CHUNK = 64  # dispatches per submitted command buffer: a long step starts on the GPU while it is recorded


# ---------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------


@dataclass
class Device:
    """A wgpu device opened with its adapter's own limits, and its pipeline cache."""

    adapter: Any
    device: Any
    limits: Limits
    pipelines: dict[str, Any] = field(default_factory=dict)  # sha256 of WGSL -> compute pipeline
    staging: dict[int, Any] = field(default_factory=dict)  # size -> mappable readback buffer

    @property
    def name(self) -> str:
        return self.adapter.summary

    def __repr__(self) -> str:
        return f"Device({self.name!r})"


def devices() -> list[str]:
    """Every WebGPU adapter wgpu can see, as `name (type) via backend`."""
    return [a.summary for a in wgpu.gpu.enumerate_adapters_sync()]


_DEVICE: Device | None = None


def default_device() -> Device:
    """The device fgrad runs on: the adapter named by FGRAD_ADAPTER (a substring of its
    name), else the high-performance adapter. A CPU adapter is used, with a warning,
    only when there is no GPU."""
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = _open(os.environ.get("FGRAD_ADAPTER"))
    return _DEVICE


def _open(wanted: str | None) -> Device:
    adapters = wgpu.gpu.enumerate_adapters_sync()
    names = [a.summary for a in adapters]
    if wanted:
        matches = [a for a in adapters if wanted.lower() in a.summary.lower()]
        if not matches:
            raise CompileError(f"runtime: no WebGPU adapter matches FGRAD_ADAPTER={wanted!r}; adapters found: "
                               f"{names or 'none'}")
        adapter = matches[0]
    else:
        reason = "wgpu returned none"
        try:
            adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        except Exception as e:  # noqa: BLE001 - wgpu reports a missing adapter in several ways
            adapter, reason = None, str(e)
        if adapter is None:
            raise CompileError("runtime: no WebGPU adapter found (looked for Vulkan, Metal, D3D12 and OpenGL "
                               f"adapters, including Mesa's llvmpipe on the CPU): {reason}")
    if adapter.info.get("adapter_type", "") == "CPU" and not wanted:
        warnings.warn(f"fgrad: no GPU adapter found; running on the CPU adapter {adapter.summary}", RuntimeWarning,
                      stacklevel=3)
    features = [f for f in ("timestamp-query",) if f in adapter.features]  # for fg.profile
    device = adapter.request_device_sync(required_features=features, required_limits=dict(adapter.limits))
    cpu = adapter.info.get("adapter_type", "") == "CPU"
    return Device(adapter, device, Limits.of(adapter.limits, os.cpu_count() or 1 if cpu else 192))


# ---------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------


@register_leaf
class Array(HasSpec):
    """A value on the device: an immutable buffer with a Spec.

    `.numpy()`, `np.asarray(a)`, `float(a)` and `int(a)` read it back (once).
    An Array passed as a donated argument is used up: its buffer may now hold
    the call's results, and any later use is an error.
    """

    __slots__ = ("buffer", "spec", "device", "_host", "donated")

    def __init__(self, buffer: Any, spec: Spec, device: Device):
        self.buffer, self.spec, self.device, self._host = buffer, spec, device, None
        self.donated: str | None = None  # where it was donated, once it is

    def check_live(self, what: str, site: str | None) -> None:
        if self.donated is not None:
            raise InputError(f"{what} is an Array {self.spec} that was donated {self.donated}; its buffer now holds "
                             "that call's results: use the values it returned", site)

    def numpy(self) -> np.ndarray:
        """The value on the host (read through a reusable staging buffer, then kept)."""
        self.check_live("numpy()", user_site())
        if self._host is None:
            raw = _read(self.device, self.buffer, self.spec.nbytes)
            if self.spec.dtype is DType.bool:
                self._host = np.frombuffer(raw, np.uint32).reshape(self.shape) != 0
            else:
                self._host = np.frombuffer(raw, self.spec.dtype.np).reshape(self.shape).copy()
            self._host.flags.writeable = False
        return self._host

    def block_until_ready(self) -> Array:
        """Wait until the device has computed this value (a 4-byte readback), and return it."""
        self.check_live("block_until_ready()", user_site())
        _read(self.device, self.buffer, 4)
        return self

    def copy(self) -> Array:
        """A new Array with the same value, copied on the device."""
        self.check_live("copy()", user_site())
        dev = self.device.device
        buffer = dev.create_buffer(size=self.buffer.size, usage=STORAGE)
        encoder = dev.create_command_encoder()
        encoder.copy_buffer_to_buffer(self.buffer, 0, buffer, 0, self.buffer.size)
        dev.queue.submit([encoder.finish()])
        return Array(buffer, self.spec, self.device)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Array({np.array2string(self.numpy(), threshold=20)}, {self.spec})"


def _read(device: Device, buffer: Any, nbytes: int) -> bytes:
    staging = device.staging.get(nbytes)
    if staging is None:
        staging = device.device.create_buffer(size=nbytes, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)
        device.staging[nbytes] = staging
    encoder = device.device.create_command_encoder()
    encoder.copy_buffer_to_buffer(buffer, 0, staging, 0, nbytes)
    device.device.queue.submit([encoder.finish()])
    staging.map_sync(wgpu.MapMode.READ)
    try:
        return bytes(staging.read_mapped())
    finally:
        staging.unmap()


def _host_bytes(value: Any, spec: Spec) -> bytes:
    """Bytes of a host value (already checked against `spec`) for its buffer (bools as u32)."""
    storage = np.uint32 if spec.dtype is DType.bool else spec.dtype.np
    return np.asarray(value).astype(storage).tobytes()


# ---------------------------------------------------------------------------
# Executables
# ---------------------------------------------------------------------------


def _pipeline(device: Device, kernel: Any) -> Any:
    """The cached pipeline for a kernel's WGSL, created (and validated) on first use."""
    key = hashlib.sha256(kernel.wgsl.encode()).hexdigest()
    if key not in device.pipelines:
        try:
            module = device.device.create_shader_module(code=kernel.wgsl)
            device.pipelines[key] = device.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"})
        except wgpu.GPUError as e:
            raise CompileError(_validation_message(kernel, str(e))) from None
    return device.pipelines[key]


def _validation_message(kernel: Any, error: str) -> str:
    lines = kernel.wgsl.splitlines()
    found = re.search(r"wgsl:(\d+):(\d+)", error)
    reason = next((ln.strip() for ln in error.splitlines() if "error" in ln.lower() and ln.strip()), error.strip())
    where = ""
    if found:
        n = int(found.group(1))
        where = f" at WGSL line {n}: {lines[n - 1].strip() if 0 < n <= len(lines) else ''}"
    sites = ", ".join(kernel.sites) or "no user site"
    return f"kernel {kernel.name} (from {sites}) failed shader validation{where}\n{reason}"


class Executable:
    """A compiled graph: call it with arguments shaped like the graph's inputs.

    Arguments in `program.donated` are used up by a call: outputs may be
    written into their buffers, so a training step allocates nothing for them.
    """

    def __init__(self, program: Program, device: Device | None = None, source: Graph | None = None):
        self.program = program
        self.graph = program.graph
        self.source = source or program.graph  # the graph as given, with its captures
        self.device = device or default_device()
        self.capturing: dict[tuple[str, ...] | None, Executable] = {}
        dev = self.device.device
        self.pipelines = [_pipeline(self.device, k) for k in program.kernels]
        self.resident: dict[int, Any] = {}  # scratch and constant buffers, made once
        for b, buf in enumerate(program.buffers):
            if buf.kind == "scratch":
                self.resident[b] = dev.create_buffer(size=max(buf.size, 4), usage=STORAGE)
            elif buf.kind == "constant":
                self.resident[b] = dev.create_buffer_with_data(data=buf.data, usage=STORAGE)
        self.uploads: dict[int, Any] = {}  # input buffer -> the buffer host values are written into
        self.groups: dict[int, tuple[tuple[Any, ...], Any]] = {}  # kernel -> (its buffers, bind group)
        self.bindings = [(*k.reads, *k.writes) for k in program.kernels]  # buffer ids, in binding order
        self.bound_sets = [frozenset(b) for b in self.bindings]
        self.dynamic = [b for b, buf in enumerate(program.buffers) if buf.kind in ("input", "output")]
        self.last: tuple[dict[int, Any], list[Any]] = ({}, [])  # the previous call's buffers and groups
        for k, kernel in enumerate(program.kernels):
            if all(b in self.resident for b in (*kernel.reads, *kernel.writes)):
                self.group(k, self.resident)

    @property
    def kernels(self) -> list[tuple[str, str]]:
        """(name, WGSL) of each kernel, in dispatch order."""
        return [(k.name, k.wgsl) for k in self.program.kernels]

    @property
    def peak_bytes(self) -> int:
        return self.program.peak_bytes

    def _bind_group(self, k: int, buffers: dict[int, Any]) -> Any:
        kernel = self.program.kernels[k]
        entries = [{"binding": n, "resource": {"buffer": buffers[b], "offset": 0, "size": buffers[b].size}}
                   for n, b in enumerate((*kernel.reads, *kernel.writes))]
        return self.device.device.create_bind_group(layout=self.pipelines[k].get_bind_group_layout(0), entries=entries)

    def __call__(self, *args: Any, captures: bool | Sequence[str] = False) -> Any:
        """Run on `args`; with `captures` (True, or a list of names) return `(outputs, {name: Array})`
        for the intermediates registered with `fg.capture` (compiled on first request)."""
        site = user_site()
        if captures is not False:
            names = None if captures is True else tuple(captures)
            if names not in self.capturing:
                graph = expose_captures(self.source, names, site)
                program = lower(graph, self.device.limits, frozenset(self.program.donated))
                self.capturing[names] = Executable(program, self.device, graph)
            return self.capturing[names](*args)
        buffers, leaves = self.bind(args, site)
        for start in range(0, len(self.program.kernels), CHUNK):  # the GPU starts while the rest is recorded
            self.device.device.queue.submit([self.record(buffers, start, start + CHUNK)])
        donated = set(self.program.donated)
        kept = {b: leaf for k, (b, leaf) in enumerate(zip(self.program.inputs, leaves))
                if isinstance(leaf, Array) and k not in donated}
        for k, leaf in enumerate(leaves):
            if k in donated and isinstance(leaf, Array):
                leaf.donated = f"to a compiled call at {site}"
        outs = [kept[b] if b in kept else Array(buffers[b], self.program.specs[b], self.device)
                for b in self.program.outputs]
        return unflatten(self.graph.out_tree, outs)

    def bind(self, args: tuple[Any, ...], site: str | None = None) -> tuple[dict[int, Any], list[Any]]:
        """Check `args` and give every buffer of the plan a wgpu buffer: Arrays are used in place,
        host values are written into this executable's upload buffers, outputs are made fresh."""
        who = "compiled function"
        leaves = check_args(self.graph, args, who, site)
        dev = self.device.device
        buffers = dict(self.resident)
        donated = set(self.program.donated)
        returned = set(self.program.outputs)
        bound: dict[int, str] = {}  # id of each Array buffer passed -> argument name
        for k, (name, b, leaf) in enumerate(zip(self.graph.input_names, self.program.inputs, leaves)):
            spec = self.program.specs[b]
            if isinstance(leaf, Array):
                leaf.check_live(f"{who}: argument {name}", site)
                other = bound.setdefault(id(leaf.buffer), name)
                if other != name and (k in donated or self.graph.input_names.index(other) in donated):
                    raise InputError(f"{who}: arguments {other} and {name} are the same Array, and one is donated",
                                     site)
                if leaf.device is not self.device:
                    raise InputError(f"{who}: argument {name} lives on {leaf.device.name}, not {self.device.name}", site)
                buffers[b] = leaf.buffer
                continue
            data = _host_bytes(leaf, spec)
            if b in returned:  # the caller keeps what is returned: no shared upload buffer
                buffers[b] = dev.create_buffer_with_data(data=data, usage=STORAGE)
                continue
            if b not in self.uploads:
                self.uploads[b] = dev.create_buffer(size=max(len(data), 4), usage=STORAGE)
            dev.queue.write_buffer(self.uploads[b], 0, data)
            buffers[b] = self.uploads[b]
        for b, buf in enumerate(self.program.buffers):
            if buf.kind == "output":
                buffers[b] = dev.create_buffer(size=buf.size, usage=STORAGE)
        return buffers, leaves

    def record(self, buffers: dict[int, Any], start: int = 0, stop: int | None = None) -> Any:
        """Dispatches start..stop (all by default) in one compute pass of one command buffer."""
        encoder = self.device.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        stop = len(self.program.kernels) if stop is None else min(stop, len(self.program.kernels))
        groups = self.groups_for(buffers)[start:stop]
        work = list(zip(self.pipelines[start:stop], groups, self.program.kernels[start:stop]))
        if _native is not None and hasattr(compute, "_internal"):
            # NOTE: errors recorded here surface at finish() and submit(), which check them.
            handle = compute._internal
            for pipeline, group, kernel in work:
                _native.wgpuComputePassEncoderSetPipeline(handle, pipeline._internal)
                _native.wgpuComputePassEncoderSetBindGroup(handle, 0, group._internal, 0, _ffi.NULL)
                _native.wgpuComputePassEncoderDispatchWorkgroups(handle, *kernel.grid)
        else:
            for pipeline, group, kernel in work:
                compute.set_pipeline(pipeline)
                compute.set_bind_group(0, group)
                compute.dispatch_workgroups(*kernel.grid)
        compute.end()
        return encoder.finish()

    def groups_for(self, buffers: dict[int, Any]) -> list[Any]:
        """Every kernel's bind group for these buffers. Only kernels bound to a buffer that
        differs from the previous call's (a fresh output, another input Array) are looked at:
        a training loop's donated parameters keep theirs, so a step rebuilds one or two."""
        if buffers is self.last[0]:
            return self.last[1]
        changed = {b for b in self.dynamic if buffers[b] is not self.last[0].get(b)}
        groups = [self.groups[k][1] if k in self.groups and bound.isdisjoint(changed) else self.group(k, buffers)
                  for k, bound in enumerate(self.bound_sets)]
        self.last = (buffers, groups)
        return groups

    def group(self, k: int, buffers: dict[int, Any]) -> Any:
        """Kernel k's bind group for these buffers, reused while they stay the same (donated
        parameters, upload buffers), rebuilt when one changes."""
        cached = self.groups.get(k)
        if cached is not None and all(buffers[b] is x for b, x in zip(self.bindings[k], cached[0])):
            return cached[1]
        bound = tuple(buffers[b] for b in self.bindings[k])
        self.groups[k] = (bound, self._bind_group(k, buffers))
        return self.groups[k][1]


def device_put(tree: Any, device: Device | None = None) -> Any:
    """Copy the arrays and numbers of `tree` to the device, as fg.Arrays (Arrays stay as they are)."""
    device = device or default_device()
    site = user_site()

    def put(x: Any) -> Array:
        if isinstance(x, Array):
            return x
        spec = spec_of(x)
        check_i32_range(x, spec, "device_put: a value", site)
        data = _host_bytes(x, spec)
        return Array(device.device.create_buffer_with_data(data=data, usage=STORAGE), spec, device)

    leaves, tree_def = flatten(tree)
    return unflatten(tree_def, [put(x) for x in leaves])


def compile(graph: Graph, device: Device | None = None, donate_argnums: int | tuple[int, ...] = ()) -> Executable:
    """Lower `graph` for `device` (the default device if None) and build its Executable.

    The arguments `donate_argnums` are donated: a call may write its outputs
    into their buffers (a training step's new parameters and optimizer state
    into the old ones), and the Arrays passed there are used up.
    """
    site = user_site()
    if not isinstance(graph, Graph):
        raise TraceError(f"compile: expected a Graph, got a {type(graph).__name__}; use fg.jit(fn) for functions", site)
    nums = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)
    children = graph.in_tree.children
    if any(not isinstance(a, int) or not 0 <= a < len(children) for a in nums):
        raise InputError(f"compile: donate_argnums={donate_argnums!r} is out of range for {len(children)} arguments",
                         site)
    donated = frozenset(k for a in nums for k in graph.arg_positions[a])
    device = device or default_device()
    name = disk_cache.key(graph, device.limits, donated, device.name)
    program = disk_cache.load(name)
    if program is None:
        program = lower(graph, device.limits, donated)
        disk_cache.store(name, program)
    return Executable(program, device, graph)


def jit(fn: Callable[..., Any], donate_argnums: int | tuple[int, ...] = ()) -> Callable[..., Any]:
    """Trace `fn` on the first call per argument signature, compile it, and run it on the device.

    `donate_argnums` as in `compile`. Inside another trace, the function is simply traced in place.
    """
    cache: dict[Any, Executable] = {}

    def run(*args: Any) -> Any:
        leaves, tree = flatten(tuple(args))
        if current_trace() is not None or any(isinstance(x, Tensor) for x in leaves):
            return fn(*args)
        key = (tree, tuple(spec_of(x) for x in leaves))
        if key not in cache:
            cache[key] = compile(trace_function(fn, args)[0], donate_argnums=donate_argnums)
        return cache[key](*args)

    run.__wrapped__ = fn  # type: ignore[attr-defined]
    run.__name__ = getattr(fn, "__name__", "jitted")
    run.__doc__ = fn.__doc__
    return run
