"""The wgpu runtime: device choice, pipeline cache, Executable and Array.

The only module that touches the GPU. A Program from fgrad.lower becomes an
Executable: pipelines (cached per device by their WGSL text), scratch and
constant buffers, and bind groups for the kernels that use only those, all
made at compile time. A call uploads NumPy arguments (fg.Array arguments
are used in place), takes its result buffers from the device's pool (where
the buffers of dropped Arrays go), and records its dispatches into the
device's open compute pass, which light calls share and heavy ones submit
(see Device). Results stay on the device as fg.Array until the host asks for
a value; an Array's operators run there too, each through a small program
compiled once per signature.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import logging
import operator
import os
import re
import time
import warnings
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fgrad import numpy as ops
from fgrad.numpy.host import ndarray
from fgrad.numpy.operators import ARITHMETIC_OPERATORS, COMPARISON_OPERATORS, METHODS, PROPERTIES, invert
from fgrad.config import PLATFORMS, config
from fgrad.errors import IMMUTABLE, CompileError, FgradError, InputError, InvalidValueError, ShapeError
from fgrad.ir import DTYPES, PRIMITIVES, DType, Graph, HasSpec, Spec
from fgrad.interpret import interpret
from fgrad.trace import expose_captures, require_graph, special_value
from fgrad.trace import check_int_range
from fgrad.typecheck import check_args, typecheck
from fgrad.lower import Limits, Program, disk_cache, lower
from fgrad.lower.program import buffer_bytes, words
from fgrad.pytree import broadcast_prefix, flatten, register_leaf, unflatten
from fgrad.sharding import PartitionSpec, Sharding, SingleDeviceSharding, check_sharding
from fgrad.trace import Staged, Tensor, clear_staged, current_trace, spec_of, trace_function, user_call, user_site

# WebGPU's buffer usage flags (GPUBufferUsage): wgpu itself is imported when the first device
# is opened, so that `import fgrad` stays quick.
MAP_READ, COPY_SRC, COPY_DST, UNIFORM, STORAGE_USE = 0x1, 0x4, 0x8, 0x40, 0x80
STORAGE = STORAGE_USE | COPY_SRC | COPY_DST
TEXTURE_USE = 0x2 | 0x8  # GPUTextureUsage COPY_DST | STORAGE_BINDING: a texture copy of a buffer, read by a kernel
_UNIFORM = UNIFORM | COPY_DST
_native: Any = None  # wgpu-native's C entry points, once a device is open: recording through them
_ffi: Any = None  # skips ~4 µs of Python per dispatch (None under another wgpu backend)
_checked: Any = None  # the same entry points raising the errors a call reports (wgpu-py's `libf`)
_EMPTY: dict[str, Any] = {}  # descriptors without fields, made once: encoder, compute pass, command buffer
_ON_MAP: Any = None  # _on_map as wgpu-native's callback
CHUNK = 64  # dispatches recorded before a submit: a long step starts on the GPU while the rest is recorded
FIRST_CHUNK = 16  # a long heavy call's first submit: the GPU starts soon after the host does
LATENCY = 1e-3  # seconds of light calls left unsubmitted at most
POOL_BYTES = 1 << 28  # bytes of free result buffers a device keeps for the next results
PIPELINE_THREADS = 8  # pipelines a GPU's device creates at once (see _pipelines)
EARLY_BYTES = 1 << 12  # the largest result staged for the host as soon as it is computed
# A heavy call is submitted at its end (see Device): a matrix product of HEAVY_FLOPS or more, or
# HEAVY_BYTES read and written, takes longer on a GPU than a submit on the host.
HEAVY_FLOPS, HEAVY_BYTES = 1 << 26, 1 << 24
_LOG = logging.getLogger("fgrad")  # fg.config's jax_log_compiles: each trace and compile, with its time


# ---------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------


@register_leaf  # a leaf in pytrees (device_put's prefix of devices), as JAX's devices are
@dataclass(eq=False)  # one object per opened device: compared and hashed by identity
class Device:
    """A wgpu device opened with its adapter's own limits, its pipeline cache, a pool of free
    result buffers, and the work recorded for it but not yet submitted.

    Dispatches go into one open compute pass, which calls share: a submit costs tens of
    microseconds of host time, so a run of light calls (a few small kernels each) is recorded
    into one command buffer and submitted together, every CHUNK dispatches or when the host
    needs a value (`read`, `wait`) or writes a buffer (`write`). A heavy call, or one made
    LATENCY seconds or more after the last submit, is submitted at its end: what waits
    unsubmitted is at most the light calls of LATENCY seconds, until the host's next call,
    read or write.
    """

    adapter: Any
    device: Any
    limits: Limits
    pipelines: dict[str, Any] = field(default_factory=dict)  # sha256 of WGSL -> compute pipeline
    pipeline_threads: int = 1  # pipelines created at once (a CPU adapter's compiler has the CPU's cores already)
    staging: dict[int, list[Any]] = field(default_factory=dict)  # size -> free mappable readback buffers
    fence: Any = None  # the buffer wait() reads back, made on first use
    # The buffer of every live Array, by id: so that no buffer is ever garbage of a reference cycle
    # (whose collector could release it after its Array's __del__ has pooled it).
    held: dict[int, Any] = field(default_factory=dict)
    pool: dict[int, list[Any]] = field(default_factory=dict)  # size -> buffers of results no longer held
    pooled: int = 0  # bytes in the pool
    pool_limit: int = POOL_BYTES
    # The command encoder of the work not yet submitted, and its open compute pass: wgpu-native's
    # handles where they are at hand (wgpu-py's objects cost some 13 us of Python a command buffer on
    # an H200's host, 40 on a 2-core machine).
    encoder: Any = None
    compute: Any = None
    pending: int = 0  # dispatches recorded since the last submit
    submitted_at: float = 0.0  # time.perf_counter() of the last submit
    submitted: int | None = None  # the queue's index of the last submit (wgpu-native's), to wait for it

    @property
    def name(self) -> str:
        return self.adapter.summary

    @property
    def platform(self) -> str:
        """Its backend, as `fg.default_backend()` names it: "cpu" (a CPU adapter) or "gpu"."""
        return _platform(self.adapter)

    # A jax.Device's identity: fgrad computes on one device, the first (0) of its one process.
    id = process_index = host_id = 0
    device_kind = name

    def __repr__(self) -> str:
        return f"Device({self.name!r})"

    def take(self, size: int) -> Any:
        """A storage buffer of `size` bytes: a free one from the pool, else a new one."""
        free = self.pool.get(size)
        if free:
            self.pooled -= size
            return free.pop()
        return self.device.create_buffer(size=size, usage=STORAGE)

    def give(self, buffer: Any) -> None:
        """Return the buffer of an Array no longer held to the pool (beyond its limit, let it go).
        Work recorded before that still reads it first: the queue and the pass keep order."""
        self.held.pop(id(buffer), None)
        size = buffer.size
        if self.pooled + size <= self.pool_limit:
            self.pool.setdefault(size, []).append(buffer)
            self.pooled += size

    def dispatch(self, work: Sequence[tuple[Any, Any, tuple[int, int, int]]]) -> None:
        """Record (pipeline, bind group, grid) dispatches into the open compute pass."""
        if self.compute is None:
            self.compute = _begin_pass(self.commands())
        _dispatch(self.compute, work)
        self.pending += len(work)

    def copy(self, source: Any, target: Any, nbytes: int) -> None:
        """Record a copy of the first `nbytes` of `source` into `target`, after the work recorded."""
        encoder = self.commands()
        if _native is not None:
            _native.wgpuCommandEncoderCopyBufferToBuffer(encoder, source._internal, 0, target._internal, 0, nbytes)
        else:
            encoder.copy_buffer_to_buffer(source, 0, target, 0, nbytes)

    def fill(self, source: Any, texture: _Texture) -> None:
        """Record a copy of `source`'s rows into a kernel's texture (Kernel.textures), after the work recorded."""
        texture.fill(self.commands(), source)

    def commands(self) -> Any:
        """The command encoder of the work recorded, its compute pass ended: for a copy."""
        if self.compute is not None:
            _end_pass(self.compute)
            self.compute = None
        if self.encoder is None:
            self.encoder = _encoder(self.device)
        return self.encoder

    def flush(self) -> None:
        """Submit the work recorded so far."""
        if self.encoder is None:
            return
        encoder = self.commands()
        self.encoder, self.pending = None, 0
        commands = _finish(encoder)
        if _native is None:
            self.device.queue.submit([commands])
        else:
            self.submitted = _native.wgpuQueueSubmitForIndex(self.device.queue._internal, 1,
                                                             _ffi.new("WGPUCommandBuffer[1]", [commands]))
            _let_go(commands)
        self.submitted_at = time.perf_counter()

    def settle(self, heavy: bool) -> None:
        """At the end of a call: submit its work if it was heavy, if CHUNK dispatches wait, or if
        the last submit was LATENCY seconds ago; else leave it for the next call to join."""
        if heavy or self.pending >= CHUNK or time.perf_counter() - self.submitted_at > LATENCY:
            self.flush()

    def write(self, buffer: Any, data: bytes) -> None:
        """Write host bytes into a buffer, after the work recorded so far (which may read its old
        contents) is submitted."""
        self.flush()
        self.device.queue.write_buffer(buffer, 0, data)

    def wait(self) -> None:
        """Wait until the work recorded on this device so far has finished (a 4-byte readback,
        which the queue runs after that work)."""
        if self.fence is None:
            self.fence = self.device.create_buffer(size=4, usage=STORAGE)
        self.read(self.fence, 4)

    def read(self, buffer: Any, nbytes: int) -> bytes:
        """The first `nbytes` of a buffer of this device, once the work recorded before has finished
        (copied through a staging buffer, in the same submit as that work)."""
        return self.mapped(*self.stage(buffer, nbytes))

    def stage(self, buffer: Any, nbytes: int) -> tuple[Any, int | None]:
        """Copy the first `nbytes` of a buffer into a staging buffer of its own and submit the work
        recorded so far: the value can be read (`mapped`) as soon as that submit is done, while
        work recorded after runs on."""
        free = self.staging.get(nbytes)
        staging = free.pop() if free else self.device.create_buffer(size=nbytes, usage=MAP_READ | COPY_DST)
        self.copy(buffer, staging, nbytes)
        self.flush()
        return staging, self.submitted

    def mapped(self, staging: Any, index: int | None = None) -> bytes:
        """The contents of a staging buffer (from `stage`, which gets it back) once submit `index`
        has finished (without wgpu-native's submit indices: once all the work submitted has)."""
        try:
            if index is not None and _native is not None:
                return _map_read(self.device, staging, index)
            mapped = staging.map_async(1)  # GPUMapMode.READ
            mapped.sync_wait()  # wgpu-py's poll thread waits for all the work submitted
            try:
                return bytes(staging.read_mapped())
            finally:
                staging.unmap()
        finally:
            self.unstage(staging)

    def unstage(self, staging: Any) -> None:
        """Give back a staging buffer from `stage`, for the next read of its size."""
        self.staging.setdefault(staging.size, []).append(staging)


def adapters() -> list[str]:
    """Every WebGPU adapter wgpu can see, as `name (type) via backend`: what FGRAD_ADAPTER (a substring
    of a name) or `fg.config`'s jax_platforms chooses the default device among."""
    return [a.summary for a in _adapters()]


def print_environment_info(return_string: bool = False) -> str | None:
    """fgrad's version, NumPy's, wgpu's, Python's, the device, the adapters and the OS, as
    `jax.print_environment_info`: printed, or returned with `return_string`."""
    import platform
    import sys

    import wgpu

    device = default_device()
    lines = [f"fgrad:  {sys.modules['fgrad'].__version__}", f"numpy:  {np.__version__}", f"wgpu:   {wgpu.__version__}",
             f"python: {sys.version}", f"device info: {device.name} ({device.platform}), 1 local device",
             f"adapters: {'; '.join(adapters())}", "process_count: 1", f"platform: {platform.uname()}"]
    text = "\n".join(lines)
    if return_string:
        return text
    print(text)
    return None


def devices(backend: str | None = None) -> list[Device]:
    """The devices fgrad computes on, as `jax.devices()`: the default device (fgrad runs a program on
    one device). A `backend` ("cpu", "gpu") must be the default device's, as `fg.default_backend()`
    names it: the others are not computed on (choose the device with `fg.config`'s jax_platforms)."""
    device = default_device()
    if backend is not None and PLATFORMS.get(backend) != device.platform:
        known = "is not the default device's" if backend in PLATFORMS else "is not one of fgrad's ('cpu', 'gpu')"
        raise CompileError(f"{user_call()}: backend {backend!r} {known}: fgrad computes on one device, {device.name} "
                           f"({device.platform}); choose another with fg.config.update('jax_platforms', ...) before "
                           f"the first computation, or FGRAD_ADAPTER", user_site())
    return [device]


def live_arrays(platform: str | None = None) -> list[Array]:
    """The fg.Arrays alive on the device, neither deleted nor donated, as `jax.live_arrays`: what
    holds its memory. `platform` None, or the device's backend ("cpu", "gpu", as `devices`). Found
    by a walk of Python's live objects when called, so that making an Array costs nothing more."""
    devices(platform)  # refuses another backend, naming live_arrays
    return [x for x in gc.get_objects() if type(x) is Array and x.deleted is None and x.donated is None]


def local_devices(process_index: int | None = None, backend: str | None = None,
                  host_id: int | None = None) -> list[Device]:
    """The devices of this process, as `jax.local_devices()`: fgrad's one (see `devices`)."""
    for name, index in (("process_index", process_index), ("host_id", host_id)):
        if index not in (None, 0):
            raise InputError(f"local_devices: {name} {index!r}: fgrad runs in one process, 0", user_site())
    return devices(backend)


def device_count(backend: str | None = None) -> int:
    """How many devices a program may use, as `jax.device_count()` (and `jax.local_device_count()`): one."""
    return len(devices(backend))


local_device_count = device_count  # fgrad runs in one process


def process_index() -> int:
    """This process's index among the processes of a computation, as JAX's: fgrad runs in one, 0."""
    return 0


def process_count() -> int:
    """The processes of a computation, as JAX's: one."""
    return 1


def clear_caches() -> None:
    """Drop the programs and graphs fgrad keeps in memory, as `jax.clear_caches`: each jitted or
    transformed function's, per signature, and the opened devices' pipelines, so the next call
    traces, lowers and builds again. Executables already made keep working; the cache on disk
    (`FGRAD_CACHE_DIR`) stays, as JAX's persistent cache does."""
    clear_staged()
    for device in _OPENED.values():
        device.pipelines.clear()


def default_backend() -> str:
    """The kind of the default device, as `jax.default_backend()`: "gpu", or "cpu" on a CPU adapter."""
    return default_device().platform


def _platform(adapter: Any) -> str:
    return "cpu" if adapter.info.get("adapter_type", "") == "CPU" else "gpu"


# NOTE: wgpu's OpenGL backend gives every adapter object a lock of its own around one EGL
# context that all of them share, and EGL lets a context be current on one thread at a time.
# Enumerating adapters again (request_adapter does too) or releasing one makes that context
# current outside the lock of the device in use, which wgpu-py's poll thread may hold for a
# readback: eglMakeCurrent fails (BadAccess) and wgpu-native aborts the process. So adapters
# are enumerated once, kept for good, and each opens one device: every use of a context, from
# any thread, goes through the one lock that serializes it.
_ADAPTERS: tuple[Any, ...] | None = None
_OPENED: dict[int, Device] = {}  # index in _ADAPTERS -> its device
# wgpu's high-performance order of adapter types (others, e.g. "Unknown", rank between)
_PREFERENCE = {"DiscreteGPU": 0, "IntegratedGPU": 1, "CPU": 3}


def _adapters() -> tuple[Any, ...]:
    global _ADAPTERS, _native, _ffi, _checked, _ON_MAP
    if _ADAPTERS is None:
        import wgpu
        try:
            from wgpu.backends.wgpu_native._api import libf as _checked
            from wgpu.backends.wgpu_native._ffi import ffi as _ffi
            from wgpu.backends.wgpu_native._ffi import lib as _native
        except ImportError:  # another wgpu backend: the public API does the same, a little slower
            pass
        else:
            _parse_c_types(_ffi, WGPU_C_TYPES)
            _ON_MAP = _ffi.callback("void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)", _on_map)
            _EMPTY.update((kind, _ffi.new(f"WGPU{kind}Descriptor *"))
                          for kind in ("CommandEncoder", "ComputePass", "CommandBuffer"))
        _ADAPTERS = tuple(wgpu.gpu.enumerate_adapters_sync())
    return _ADAPTERS


# The C types wgpu-py (0.32) names by string as fgrad opens a device, builds pipelines and runs
# and reads a program. cffi parses each on its first use against every declaration of wgpu.h
# (some 5,000), 10-25 ms a type: 0.5-1 s of a first step, parsed one at a time.
WGPU_C_TYPES = (
    "WGPUStringView *", "WGPUInstanceDescriptor *", "WGPUAdapter[]", "WGPUAdapterInfo *", "WGPUChainedStruct *",
    "WGPUChainedStruct * ", "WGPUNativeLimits *", "WGPULimits *", "char []", "WGPUQueueDescriptor *",
    "WGPUDeviceExtras *", "void(WGPUDevice const *, WGPUDeviceLostReason, WGPUStringView, void *, void *)",
    "WGPUDeviceLostCallbackInfo *", "void(WGPUDevice const *, WGPUErrorType, WGPUStringView, void *, void *)",
    "WGPUUncapturedErrorCallbackInfo *", "WGPUFeatureName[]", "WGPUDeviceDescriptor *",
    "void(WGPURequestDeviceStatus, WGPUDevice, WGPUStringView, void *, void *)", "WGPURequestDeviceCallbackInfo *",
    "WGPUShaderSourceWGSL *", "WGPUShaderModuleDescriptor *", "WGPUComputeState *", "WGPUComputePipelineDescriptor *",
    "WGPUBufferDescriptor *", "WGPUBindGroupEntry *", "WGPUBindGroupEntry[]", "WGPUBindGroupDescriptor *",
    "intptr_t", "uint8_t []", "uintptr_t", "uint8_t *", "WGPUCommandEncoderDescriptor *",
    "WGPUComputePassDescriptor *", "WGPUCommandBufferDescriptor *", "WGPUCommandBuffer[1]", "WGPUSubmissionIndex *",
    "WGPUCommandBuffer[]", "void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)", "WGPUBufferMapCallbackInfo *",
    "WGPUTextureDescriptor *", "WGPUTextureFormat[]", "WGPUTextureViewDescriptor *", "WGPUTexelCopyBufferInfo *",
    "WGPUTexelCopyTextureInfo *", "WGPUExtent3D *", "WGPUExtent3D",
)


def _parse_c_types(ffi: Any, cdecls: Sequence[str]) -> None:
    """Parse the C types `cdecls` that `ffi` has not yet in one pass of cffi's parser, as the
    parameters of one declaration, and cache each as `ffi.typeof(cdecl)` would (its parse of one
    alone reads the same declaration with one parameter). Where cffi's internals differ, or a
    type is unknown to this wgpu, each is parsed on its first use, as without this."""
    lock, cache, parser = (getattr(ffi, name, None) for name in ("_lock", "_parsed_types", "_parser"))
    if lock is None or cache is None or parser is None:
        return
    with lock:
        todo = [c for c in cdecls if c not in cache]
        if not todo:
            return
        try:
            params = parser._parse("void __dummy(\n%s\n);" % ",\n".join(todo))[0].ext[-1].type.args.params
            kinds = [parser._get_type_and_quals(param.type)[0] for param in params]
            found = {cdecl: (ffi._get_cached_btype(kind.as_function_pointer() if kind.is_raw_function else kind),
                             kind.is_raw_function) for cdecl, kind in zip(todo, kinds, strict=True)}
        except Exception:  # noqa: BLE001 (cffi's CDefError, or another cffi's or pycparser's internals): one at a time
            return
        cache.update(found)


_DEVICE: Device | None = None


def default_device() -> Device:
    """The device fgrad runs on: the adapter named by FGRAD_ADAPTER (a substring of its
    name), else the high-performance adapter among the backends `fg.config`'s jax_platforms
    allows ("cpu", "gpu"; any by default). A CPU adapter is used, with a warning, only when
    there is no GPU and no backend was named."""
    global _DEVICE
    platforms = _platforms()
    if _DEVICE is None:
        _DEVICE = _open(os.environ.get("FGRAD_ADAPTER"), platforms)
    elif platforms and _DEVICE.platform not in platforms:
        raise CompileError(f"runtime: jax_platforms={','.join(platforms)!r} excludes the default device, "
                           f"{_DEVICE.name} ({_DEVICE.platform}), opened before it was set: set the option before "
                           f"the first computation")
    return _DEVICE


def _platforms() -> tuple[str, ...]:
    """The backends `fg.config`'s jax_platforms (else jax_platform_name) names, in order, as
    default_backend names them ("webgpu" is "gpu"); () for any."""
    named = config.jax_platforms or config.jax_platform_name
    return tuple(PLATFORMS[p] for p in named.split(",")) if named else ()


def _open(wanted: str | None, platforms: Sequence[str] = ()) -> Device:
    """The device of the first adapter whose name contains `wanted`, else of the adapter wgpu
    picks for high performance (the first of the most preferred type) of the first of
    `platforms` that has one (any adapter when none are named), opened once."""
    adapters = _adapters()
    if wanted:
        matches = [k for k, a in enumerate(adapters) if wanted.lower() in a.summary.lower()]
        if not matches:
            raise CompileError(f"runtime: no WebGPU adapter matches FGRAD_ADAPTER={wanted!r}; adapters found: "
                               f"{[a.summary for a in adapters] or 'none'}")
        k = matches[0]
    elif adapters:
        allowed = list(range(len(adapters)))
        for platform in platforms:
            allowed = [k for k in range(len(adapters)) if _platform(adapters[k]) == platform]
            if allowed:
                break
        if not allowed:
            raise CompileError(f"runtime: no WebGPU adapter of the backends jax_platforms={','.join(platforms)!r} "
                               f"names; adapters found: {[a.summary for a in adapters]}")
        k = min(allowed, key=lambda k: _PREFERENCE.get(adapters[k].info.get("adapter_type", ""), 2))
    else:
        raise CompileError("runtime: no WebGPU adapter found (looked for Vulkan, Metal, D3D12 and OpenGL "
                           "adapters, including Mesa's llvmpipe on the CPU)")
    if k not in _OPENED:
        adapter = adapters[k]
        cpu = _platform(adapter) == "cpu"
        if cpu and not wanted and not platforms:
            warnings.warn(f"fgrad: no GPU adapter found; running on the CPU adapter {adapter.summary}",
                          RuntimeWarning, stacklevel=3)
        # timestamps for fg.profile; what dtypes need (shader-f16); subgroup operations for
        # reductions; each where the adapter has it
        wanted = ["timestamp-query", "subgroup", *sorted({row.feature for row in DTYPES.values()} - {None})]
        features = [f for f in wanted if f in adapter.features]
        device = adapter.request_device_sync(required_features=features, required_limits=dict(adapter.limits))
        _OPENED[k] = Device(adapter, device, Limits.of(adapter.limits, os.cpu_count() or 1 if cpu else 192, cpu,
                                                       "subgroup" in features),
                            pipeline_threads=1 if cpu else PIPELINE_THREADS)
    return _OPENED[k]


# ---------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------


@register_leaf
class Array(HasSpec):
    """A value on the device: an immutable buffer with a Spec, used as a JAX array is.

    `.numpy()`, `np.asarray(a)`, `float(a)`, `int(a)`, `.item()` and
    `.tolist()` read it back (once). Operators (`+ - * / ** @ & | ~`,
    comparisons, unary `- + abs`), indexing `a[...]`, `.T`, `.reshape`,
    `.transpose`, `.astype`, `.squeeze`, `.sum`, `.mean`, `.max` and `.min`
    run on the device and return new Arrays, as a JAX array's do: each is the
    public fgrad function a traced Tensor's operator calls, compiled once per
    function, static arguments and operand specs. NumPy arrays and Python
    numbers beside an Array are operands of that program (a Python int or
    float is weakly typed, as in a trace: it takes the Array's dtype where
    that is of its kind or higher, so `u32 + 1` is u32 and `f16 * 0.5` f16); an integral exponent
    (`a ** 2`) stays static, exact for negative bases. A traced Tensor among
    the operands, or any use inside a trace, goes to the trace, which records
    the Array as a constant.

    With NumPy it behaves as a JAX array does: operators with an ndarray on
    either side (`ndarray + a`, `ndarray += a` too) run on the device and
    return an Array; NumPy functions and ufuncs called on it (`np.exp(a)`,
    `np.add(x, a)`) read it back and return NumPy arrays.

    `bool(a)` is the value of a one-element Array (an error for more); `len`
    and iteration (over host copies of the rows, each put back on the
    device) need at least one axis; Arrays are unhashable, as ndarrays are.

    An Array passed as a donated argument is used up: its buffer may now hold
    the call's results, and any later use is an error.
    """

    __slots__ = ("buffer", "spec", "device", "_host", "donated", "deleted", "early", "reader")
    __hash__ = None  # type: ignore[assignment]  # `==` is elementwise, as in NumPy
    __array_priority__ = 100  # an ndarray's operators defer to ours, as they do to a JAX array's

    def __init__(self, buffer: Any, spec: Spec, device: Device):
        self.buffer, self.spec, self.device, self._host = buffer, spec, device, None
        device.held[id(buffer)] = buffer
        self.early: tuple[Any, int | None] | None = None  # a staging copy made as the value was computed
        self.reader: tuple[set[int], int] | None = None  # where to note that result k of a call was read
        self.donated: str | None = None  # where it was donated, once it is
        self.deleted: str | None = None  # where `delete` freed its buffer, once it did

    def check_live(self, what: str, site: str | None = None) -> None:
        """Raise if the Array was donated (its buffer holds a later call's results), naming `site`,
        else the caller's line (found only then: a walk of the stack costs microseconds a read)."""
        if self.deleted is not None:
            raise InputError(f"{what} is an Array {self.spec} that was deleted {self.deleted} (Array.delete)",
                             site or user_site())
        if self.donated is not None:
            raise InputError(f"{what} is an Array {self.spec} that was donated {self.donated}; its buffer now holds "
                             "that call's results: use the values it returned", site or user_site())

    def numpy(self) -> np.ndarray:
        """The value on the host (read through a reusable staging buffer, then kept)."""
        self.check_live("numpy()")
        if self._host is None and not self.size:  # an empty value: nothing on the device to read
            self._host = np.empty(self.shape, self.dtype.np)
            self._host.flags.writeable = False
        if self._host is None:
            if self.reader is not None:  # the next call stages this result as soon as it is computed
                self.reader[0].add(self.reader[1])
            if self.early is not None:
                staging, index = self.early
                self.early = None
                data = self.device.mapped(staging, index)
            else:
                data = self.device.read(self.buffer, words(self.spec.nbytes))
            self._host = stored_value(data, self.spec)
            self._host.flags.writeable = False
        return self._host

    def item(self) -> bool | int | float:
        """The value of a one-element Array as a Python number."""
        return self.numpy().item()

    def tolist(self) -> Any:
        """The value as nested Python lists of numbers."""
        return self.numpy().tolist()

    def block_until_ready(self) -> Array:
        """Wait until the device has computed this value, and return it."""
        self.check_live("block_until_ready()")
        self.device.wait()
        return self

    def delete(self) -> None:
        """Free the buffer now, as `jax.Array.delete`; a later use of the Array is an error."""
        if not self.is_deleted():
            self.device.give(self.buffer)
            if self.early is not None:
                self.device.unstage(self.early[0])
                self.early = None
            self.deleted = f"at {user_site()}"

    def is_deleted(self) -> bool:
        """Whether the buffer is gone: deleted, or donated to a call (`jax.Array.is_deleted`)."""
        return self.donated is not None or self.deleted is not None

    def devices(self) -> set[Device]:
        """The devices holding the value: fgrad's one (`jax.Array.devices`)."""
        return {self.device}

    @property
    def sharding(self) -> SingleDeviceSharding:
        """Where the value lives, as `jax.Array.sharding`: whole, on its device."""
        return SingleDeviceSharding(self.device)

    def tobytes(self, order: str = "C") -> bytes:
        """The value's bytes, as NumPy's `tobytes`."""
        return self.numpy().tobytes(order)

    def copy(self) -> Array:
        """A new Array with the same value, copied on the device."""
        self.check_live("copy()")
        buffer = self.device.take(self.buffer.size)
        self.device.copy(self.buffer, buffer, self.buffer.size)
        self.device.settle(heavy=self.buffer.size >= HEAVY_BYTES)
        return Array(buffer, self.spec, self.device)

    def __del__(self) -> None:
        # The buffer is this Array's alone (a donated one's belongs to the results written into it; a
        # deleted one's was given back).
        if not self.is_deleted():
            self.device.give(self.buffer)
        if self.early is not None:  # staged, never read
            self.device.unstage(self.early[0])

    def __copy__(self) -> Array:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Array:
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its value, as a JAX array is; it is loaded onto the default device.
        return device_put, (self.numpy(),)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        out = self.numpy()
        if dtype is not None and np.dtype(dtype) != out.dtype:
            return out.astype(dtype)
        return out.copy() if copy else out

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __index__(self) -> int:
        return self.numpy().__index__()

    def __bool__(self) -> bool:
        if self.size != 1:
            which = "an empty array" if self.size == 0 else "an array with more than one element"
            raise ShapeError(f"bool() of an Array {self.spec}: the truth value of {which} is ambiguous; reduce it "
                             "first, e.g. bool((a > 0).any())", user_site())
        return bool(self.numpy())

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError(f"len() of unsized object: a 0-d Array {self.spec} has no length")
        return self.shape[0]

    def __iter__(self) -> Iterator[Array]:
        if not self.shape:
            raise TypeError(f"iteration over a 0-d Array {self.spec}")
        return (device_put(row, self.device) for row in self.numpy())

    def __repr__(self) -> str:
        if self.donated is not None:
            return f"Array(<donated>, {self.spec})"
        if self.deleted is not None:
            return f"Array(<deleted>, {self.spec})"
        return f"Array({np.array2string(self.numpy(), threshold=20, separator=', ', prefix='Array(')}, {self.spec})"

    def __str__(self) -> str:
        return str(self.numpy())

    def __format__(self, format_spec: str) -> str:
        # A 0-d Array formats as its number (f"{loss:.3f}"); others as NumPy formats an ndarray.
        return format(self.numpy()[()] if not self.shape else self.numpy(), format_spec)


# ---------------------------------------------------------------------------
# Array operators: eager, on the device
# ---------------------------------------------------------------------------

_OPERAND = (Array, Tensor, np.ndarray, np.generic, bool, int, float)  # what an operator takes beside an Array
# Each operator's program, keyed by (function, static arguments, device) beside the operand specs.
# The device is keyed by id: each Executable holds its device, so the id is not reused while it lives.
_EAGER: Staged[Executable] = Staged()


ndarray.register(Array)  # an fgrad value, as eager and traced ones are (isinstance(x, fg.numpy.ndarray))


def stored_value(data: bytes, spec: Spec) -> np.ndarray:
    """The value of `spec` a buffer's bytes hold (bools as u32, an i8 as an i32, ...: `buffer_bytes`),
    an array of its own."""
    stored = np.frombuffer(data, spec.dtype.row.stored)[:spec.size]
    # Converted while 1-d, so a 0-d result is still an array (not a NumPy scalar).
    return spec.dtype.row.values_of(stored).reshape(spec.shape)


def _on_device(fn: Callable[..., Any], *operands: Any, **static: Hashable) -> Any:
    """`fn(*operands, **static)` computed on the device of the Arrays among `operands`, as a JAX
    array's operator is: traced with the operands as arguments and compiled once per signature.
    Inside a trace, or beside a traced Tensor, `fn` is called as it is, so the trace records it."""
    device = next(x.device for x in operands if isinstance(x, Array))

    def build() -> Executable:
        return trace_and_compile(fn.__name__, lambda: (trace_function(functools.partial(fn, **static), operands)[0], ()),
                                 device)

    def refused(e: Exception) -> Exception:  # an ndarray of a dtype fgrad lacks (complex, say) beside the Array
        return type(e)(f"{fn.__name__}: {e}", user_site()) if isinstance(e, FgradError) else e

    exe = _EAGER.product(operands, (fn, tuple(sorted(static.items())), id(device)), build, refused)
    return fn(*operands, **static) if exe is None else exe(*operands)


def _binary(fn: Callable[[Any, Any], Any], reflected: bool = False) -> Callable[[Array, Any], Any]:
    def method(self: Array, other: Any) -> Any:
        if not isinstance(other, _OPERAND):
            if isinstance(other, (list, tuple)) and fn.__name__ in ("equal", "not_equal"):
                # as JAX's: Python's fallback for == would be identity, a silent False
                raise TypeError(f"unsupported operand type(s) for {'==' if fn.__name__ == 'equal' else '!='}: "
                                f"'Array' and '{type(other).__name__}' (compare with fg.numpy.asarray of it)")
            return NotImplemented  # Python then tries the other side, or names both types
        if type(other) in (int, float):  # weakly typed, as in a trace: an operand of the dtype it takes here
            other = ops.asarray(other, ops.result_dtype(self, other))
        return _on_device(fn, other, self) if reflected else _on_device(fn, self, other)

    method.__code__ = method.__code__.replace(co_name=fn.__name__)  # errors name `add`, as on a Tensor
    return method


def _power(self: Array, other: Any) -> Any:
    """a ** y; a number exponent stays static as on a Tensor (an integral one is exact)."""
    if isinstance(other, (bool, int, float, np.generic)):
        return _on_device(ops.pow, self, y=other)
    return _binary(ops.pow)(self, other)


class _Slot:
    """Where an operand stands among a call's static arguments."""


_SLOT = _Slot()


def _take_apart(value: Any, operands: list[Any]) -> Hashable:
    """`value` as a cache key can hold it: Arrays and ndarrays (but bool ones, which stay static, as a
    NumPy mask is read while tracing) go to `operands` (a slot marks their place),
    slices and tuples are taken apart (a slice's bounds that are Arrays are read back, as concrete JAX
    arrays' are), lists become tuples."""
    if isinstance(value, np.ndarray) and value.dtype == np.bool_:  # a concrete mask or condition stays concrete
        return _take_apart(value.tolist(), operands)
    if isinstance(value, (Array, np.ndarray)):
        operands.append(value)
        return _SLOT
    if isinstance(value, slice):
        return (slice, *(None if v is None else operator.index(v) for v in (value.start, value.stop, value.step)))
    if isinstance(value, (list, tuple)):
        return (tuple, *(_take_apart(v, operands) for v in value))
    return value


def _put_together(layout: Hashable, operands: Iterator[Any]) -> Any:
    """The value `_take_apart` took apart, with `operands` (Arrays, or Tensors in the trace) in their slots."""
    if layout is _SLOT:
        return next(operands)
    if isinstance(layout, tuple) and layout[:1] == (slice,):
        return slice(*layout[1:])
    if isinstance(layout, tuple) and layout[:1] == (tuple,):
        return tuple(_put_together(v, operands) for v in layout[1:])
    return layout


def _method(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The Array method that calls `fn(a, *args, **kwargs)` on the device, as a jax.Array's method runs:
    Arrays and ndarrays among the arguments are operands of the program, the rest static (compiled
    once per value). Inside a trace, or with a traced Tensor among the arguments, `fn` is called as it is."""

    def call(x: Any, *operands: Any, layout: Hashable, names: tuple[str, ...]) -> Any:
        values = _put_together(layout, iter(operands))
        positional = values[:len(values) - len(names)]
        return fn(x, *positional, **dict(zip(names, values[len(positional):])))

    def method(self: Array, *args: Any, **kwargs: Any) -> Any:
        if current_trace() is not None or any(isinstance(v, Tensor) for v in flatten((args, kwargs))[0]):
            return fn(self, *args, **kwargs)
        operands: list[Any] = []
        layout = _take_apart((*args, *kwargs.values()), operands)
        return _on_device(call, self, *operands, layout=layout, names=tuple(kwargs))

    call.__name__ = method.__name__ = fn.__name__  # errors name `sum`, as on a Tensor
    method.__qualname__, method.__doc__ = f"Array.{fn.__name__}", fn.__doc__
    return method


def _concrete_masks(key: Any, shape: tuple[int, ...]) -> Any:
    """An index with its boolean masks (ndarrays, lists, Arrays: concrete values) replaced by the index
    arrays of their True elements, as NumPy reads them; lists of integers become index arrays."""
    parts = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    static: list[Any] = []  # the key with its masks, as the parser checks them against the axes they index
    for k in parts:
        if isinstance(k, list) or (isinstance(k, (Array, np.ndarray)) and k.dtype in (DType.bool, np.bool_)):
            k = np.asarray(k)
            if k.dtype == np.bool_ and k.ndim:
                out.extend(np.nonzero(k))
                static.append(k)
                continue
        out.append(k)
        static.append(k if k is None or k is Ellipsis or isinstance(k, slice) else np.zeros(np.shape(k), np.int32))
    if len(static) != len(out):  # a mask of the wrong shape would otherwise index other positions
        ops.indexing._parse("getitem", shape, tuple(static))
    return tuple(out) if isinstance(key, tuple) or len(out) != 1 else out[0]


_GETITEM = _method(ops.getitem)


def _getitem(self: Array, key: Any) -> Any:
    """a[key]: index arrays are operands of the program; ints, slices, None and ... are static."""
    return _GETITEM(self, _concrete_masks(key, self.shape) if current_trace() is None else key)


class _ArrayIndexUpdateHelper:
    """`a.at`: JAX's indexed updates (`a.at[key].set(values)`, `.add`, `.get`, ...) run on the device."""

    __slots__ = ("array",)

    def __init__(self, array: Array):
        self.array = array

    def __getitem__(self, key: Any) -> _ArrayIndexUpdateRef:
        return _ArrayIndexUpdateRef(self.array, key)


def _indexed_update(name: str) -> Callable[..., Any]:
    def update(x: Any, key: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(ops.indexing._IndexUpdateHelper(x)[key], name)(*args, **kwargs)

    update.__name__ = f"at.{name}"
    on_device = _method(update)

    def method(self: _ArrayIndexUpdateRef, *args: Any, **kwargs: Any) -> Any:
        key = self.key if current_trace() is not None else _concrete_masks(self.key, self.array.shape)
        return on_device(self.array, key, *args, **kwargs)

    method.__name__, method.__doc__ = name, getattr(ops.indexing._IndexUpdateRef, name).__doc__
    return method


class _ArrayIndexUpdateRef:
    """`a.at[key]`: see fgrad.numpy.indexing._IndexUpdateRef, whose methods these run on the device."""

    __slots__ = ("array", "key")

    def __init__(self, array: Array, key: Any):
        self.array, self.key = array, key

    get = _indexed_update("get")
    set = _indexed_update("set")
    add = _indexed_update("add")
    subtract = _indexed_update("subtract")
    multiply = mul = _indexed_update("multiply")
    divide = _indexed_update("divide")
    power = _indexed_update("power")
    min = _indexed_update("min")
    max = _indexed_update("max")


for _name_, _fn in ARITHMETIC_OPERATORS.items():
    setattr(Array, f"__{_name_}__", _binary(_fn))
    setattr(Array, f"__r{_name_}__", _binary(_fn, reflected=True))
for _name_, _fn in COMPARISON_OPERATORS.items():
    setattr(Array, f"__{_name_}__", _binary(_fn))
Array.__pow__ = _power  # type: ignore[method-assign]
Array.__neg__ = lambda x: _on_device(ops.neg, x)  # type: ignore[method-assign]
Array.__pos__ = Array.copy  # type: ignore[method-assign]  # a new Array, so donating it leaves `a` alone
Array.__abs__ = lambda x: _on_device(ops.abs, x)  # type: ignore[method-assign]
Array.__invert__ = lambda x: _on_device(invert, x)  # type: ignore[method-assign]
Array.__getitem__ = _getitem  # type: ignore[method-assign]


def _setitem(self: Array, key: Any, value: Any) -> None:
    raise InputError(IMMUTABLE.format(what=f"an Array {self.spec}"), user_site())


Array.__setitem__ = _setitem  # type: ignore[attr-defined]
for _name_, _fn in METHODS.items():
    setattr(Array, _name_, _method(_fn))
for _name_, _fn in PROPERTIES.items():
    setattr(Array, _name_, property(_method(_fn)))
Array.at = property(_ArrayIndexUpdateHelper)  # type: ignore[attr-defined]
_NONZERO = Array.nonzero  # type: ignore[attr-defined]


def _nonzero(self: Array, *, size: int | None = None, fill_value: Any = None) -> Any:
    """a.nonzero(): without `size=` the count is the value's, read back, as a concrete JAX array's is."""
    if size is None and current_trace() is None:
        return tuple(device_put(np.asarray(i, np.int32), self.device) for i in np.nonzero(self.numpy()))
    return _NONZERO(self, size=size, fill_value=fill_value)


Array.nonzero = _nonzero  # type: ignore[attr-defined]
del _name_, _fn


# ---------------------------------------------------------------------------
# Executables
# ---------------------------------------------------------------------------


def _pipelines(device: Device, kernels: Sequence[Any]) -> list[Any]:
    """The cached pipeline of each kernel's WGSL, those not cached created (and validated) first,
    `device.pipeline_threads` at once (a driver compiles each in native code, without Python's
    lock: on an H100, a gpt step's 214 took 0.8 s eight at a time, 3-4 s one at a time, with the
    driver's shader cache cold). The first kernel in order that fails validation is the one
    reported: wgpu-py captures each thread's errors apart."""
    import wgpu  # imported already: the device is open

    keys = [None if k.host else hashlib.sha256(k.wgsl.encode()).hexdigest() for k in kernels]
    new = {key: k for key, k in zip(keys, kernels) if key is not None and key not in device.pipelines}

    def create(kernel: Any) -> Any:
        try:
            module = _shader_module(device.device, kernel.wgsl)
            return device.device.create_compute_pipeline(layout="auto", compute={"module": module,
                                                                                 "entry_point": "main"})
        except wgpu.GPUError as e:  # each thread captures the errors of its own calls
            return CompileError(_validation_message(kernel, str(e)))

    if device.pipeline_threads > 1 and len(new) > 1:
        with ThreadPoolExecutor(min(device.pipeline_threads, len(new))) as pool:
            made = list(pool.map(create, new.values()))
    else:
        made = [create(k) for k in new.values()]
    for key, pipeline in zip(new, made):
        if isinstance(pipeline, CompileError):
            raise pipeline
        device.pipelines[key] = pipeline
    return [None if key is None else device.pipelines[key] for key in keys]


def _shader_module(device: Any, wgsl: str) -> Any:
    """A shader module of `wgsl` on a wgpu device, made without naga's runtime checks where
    wgpu-native offers that (`wgpuDeviceCreateShaderModuleTrusted`). fgrad's kernels keep every
    access in range themselves: tiles that overrun a size are guarded, indices read from data
    are clamped (as jax.lax.gather clamps them), workgroup arrays are indexed within their
    extents and every loop is bounded by a size. naga's checks clamp each index of a
    workgroup array and count each loop's trips a second time: on an H200 they cost the gpt
    step 4% (`pytest bench/test_training.py --size full -k gpt`: 237.8 -> 248.5 steps/s without
    them, 244.5 without the bounds checks alone). Errors are raised as
    wgpu-py's own call raises them (validation's, with the WGSL line)."""
    import wgpu  # imported already: the device is open

    trusted = getattr(_checked, "wgpuDeviceCreateShaderModuleTrusted", None) if _native is not None else None
    if trusted is None:  # another wgpu backend, or a wgpu-native without the call
        return device.create_shader_module(code=wgsl)
    code = _ffi.new("char []", wgsl.encode())
    source = _ffi.new("WGPUShaderSourceWGSL *")
    source.chain.sType = _native.WGPUSType_ShaderSourceWGSL
    source.code.data, source.code.length = code, _native.WGPU_STRLEN  # zero-terminated
    descriptor = _ffi.new("WGPUShaderModuleDescriptor *")
    descriptor.nextInChain = _ffi.cast("WGPUChainedStruct *", source)
    handle = trusted(device._internal, descriptor, _native.WGPUShaderRuntimeChecks_None)
    if handle == _ffi.NULL:
        raise wgpu.GPUError("shader module creation failed")
    return wgpu.backends.wgpu_native.GPUShaderModule("", handle, device)


def _check_features(program: Program, device: Device) -> None:
    """Refuse, before anything runs, a program computing values of a dtype whose WGSL needs an
    adapter feature (f16: shader-f16) that the device lacks, naming the first such node."""
    graph = program.graph
    for i in sorted({j for k in program.kernels for n in k.nodes for j in (n, *graph.nodes[n].inputs)}):
        node = graph.nodes[i]
        feature = node.spec.dtype.row.feature
        if feature is not None and feature not in device.device.features:
            raise CompileError(
                f"compile: {' '.join([node.op, *([node.attrs['name']] if 'name' in node.attrs else [])])} "
                f"{node.spec} computes {node.spec.dtype} values, whose WGSL needs the adapter "
                f"feature {feature!r}, which the adapter {device.name} does not have; convert to a dtype it "
                f"has (x.astype('f32')) or choose an adapter with {feature!r} (FGRAD_ADAPTER)", node.site)


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
    Every result is a new Array with a buffer of its own (the plan copies a
    result that repeats another, or is a constant or an argument not donated),
    so no later call writes what an earlier one returned.

    A graph with symbolic dimensions (fg.dim) compiles once for all their values: each call
    reads them off the arguments' shapes (`values`), writes them to the one uniform buffer the
    kernels read them from and dispatches each kernel's grid for them (`grids`); the buffers
    are those of the symbols' maxima, so a call allocates nothing but its results, which have
    the call's shapes.
    """

    def __init__(self, program: Program, device: Device | None = None, source: Graph | None = None):
        self.program = program
        self.graph = program.graph
        self.source = source or program.graph  # the graph as given, with its captures
        self.device = device or default_device()
        self.capturing: dict[tuple[str, ...] | None, Executable] = {}
        dev = self.device.device
        _check_features(program, self.device)
        self.pipelines = _pipelines(self.device, program.kernels)
        self.resident: dict[int, Any] = {}  # scratch and constant buffers, made once
        for b, buf in enumerate(program.buffers):
            if buf.kind == "scratch":
                self.resident[b] = dev.create_buffer(size=max(buf.size, 4), usage=STORAGE)
            elif buf.kind == "constant":
                self.resident[b] = dev.create_buffer_with_data(data=buf.data, usage=STORAGE)
        self.uploads: dict[int, Any] = {}  # input buffer -> the buffer host values are written into
        # A symbolic program's kernels read the symbols' values from one uniform buffer, written
        # when a call brings new ones, with each kernel's grid for them (at the maxima until then).
        self.sizes = dev.create_buffer(size=-(-4 * len(program.symbols) // 16) * 16, usage=_UNIFORM) \
            if program.symbols else None
        self.values: dict[str, int] = {}
        self.grids = [k.grid for k in program.kernels]
        self.out_specs = [program.specs[b] for b in program.outputs]  # the results' specs at those values
        self.results = [b for b, buf in enumerate(program.buffers) if buf.kind == "output"]
        self.hosts = [k for k, kernel in enumerate(program.kernels) if kernel.host]  # calls on the host (callbacks)
        self.returned = frozenset(program.outputs)
        # Bind groups by pipeline and bound buffers (kept alive by the entry, so their ids stay
        # theirs): kernels of one pipeline on the same buffers (a loop's body) share one, and a
        # result buffer coming back from the pool finds its group again.
        self.groups: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}
        self.group_limit = 4 * len(program.kernels) + 16
        self.bindings = [(*k.reads, *k.writes) for k in program.kernels]  # buffer ids, in binding order
        # Buffers read from textures (Kernel.textures): a texture for each buffer and size, made once,
        # bound by its view (resident under an id past the plan's buffers) and filled before a kernel
        # reading it where the buffer may have changed since its last fill: at the call's first
        # reader, after a kernel writing the buffer, and before every kernel of a while loop
        # (`fills`: kernel -> (buffer, texture)).
        self.fills: dict[int, list[tuple[int, _Texture]]] = {}
        # (buffer, width, height, values a texel) -> the texture, its view's id
        self.textures: dict[tuple[int, int, int, int], tuple[_Texture, int]] = {}
        looped = {k for loop in program.repeats for k in range(loop.test, loop.end)}
        fresh: set[tuple[int, int, int, int]] = set()
        view = len(program.buffers)  # the id of the next texture's view
        for k, kernel in enumerate(program.kernels):
            bound = (*kernel.reads, *kernel.writes)
            for n, source, width, height, texel in kernel.textures:
                key = (bound[source], width, height, texel)
                if key not in self.textures:
                    self.textures[key] = (_Texture(dev, width, height, texel), view)
                    self.resident[view] = self.textures[key][0].texture.create_view()
                    view += 1
                texture, at = self.textures[key]
                if key not in fresh or k in looped:
                    self.fills.setdefault(k, []).append((bound[source], texture))
                    fresh.add(key)
                bindings = self.bindings[k]
                self.bindings[k] = (*bindings[:n], at, *bindings[n + 1:]) if n < len(bindings) else (*bindings, at)
            fresh = {key for key in fresh if key[0] not in kernel.writes}
        self.views = frozenset(range(len(program.buffers), view))
        self.bound_sets = [frozenset(b) for b in self.bindings]
        self.dynamic = [b for b, buf in enumerate(program.buffers) if buf.kind in ("input", "output")]
        self.last: tuple[dict[int, Any], list[Any]] = ({}, [])  # the previous call's buffers and groups
        work = [program.work(k, {d.name: d.max for d in program.symbols}) for k in range(len(program.kernels))]
        self.heavy = sum(f for f, _ in work) >= HEAVY_FLOPS or sum(b for _, b in work) >= HEAVY_BYTES
        for k, kernel in enumerate(program.kernels):  # the groups of kernels on scratch and constants alone
            if not kernel.host and all(b in self.resident for b in self.bindings[k]):
                self.group(k, self.resident)
        # Small results of a heavy call that the host read after the previous call (`wanted`) are
        # staged for it as soon as the kernel writing them has run (`producers`: result -> that
        # kernel), in a submit of their own, where a quarter of the call's kernels or more follow:
        # a training loop reading its loss every step reads it while the rest of the step (the
        # backward pass, the update) runs, and records the next. (A token sampled at the end of a
        # decode step gains nothing: the submit would only cost.)
        copied = {target for _, target in program.copies}
        writers = {b: k for k, kernel in enumerate(program.kernels) for b in kernel.writes}
        early = 3 * len(program.kernels) // 4
        self.producers = {r: writers[b] for r, b in enumerate(program.outputs) if b in writers and b not in copied
                          and writers[b] < early and program.specs[b].max_nbytes <= EARLY_BYTES} \
            if self.heavy and not program.repeats and not self.hosts else {}
        self.wanted: set[int] = set()

    @property
    def kernels(self) -> list[tuple[str, str]]:
        """(name, WGSL) of each kernel, in dispatch order (calls on the host, which have none, left out)."""
        return [(k.name, k.wgsl) for k in self.program.kernels if not k.host]

    @property
    def peak_bytes(self) -> int:
        return self.program.peak_bytes

    @property
    def memory(self) -> dict[str, int]:
        """Device bytes by storage class: each top-level argument's buffers, by its name (an LLM's
        `params` are its weights, its `cache` the KV cache), then `scratch` (intermediates, in
        slots shared by liveness), `constants` and `outputs` (the results' own buffers; a result
        written into a donated argument's buffer is counted with that argument), and on a CPU
        adapter `textures` (the copies its kernels read buffers from)."""
        program, graph = self.program, self.graph
        found: dict[str, int] = {}
        for name, positions in zip(graph.arg_names, graph.arg_positions):
            found[name] = found.get(name, 0) + sum(program.buffers[program.inputs[k]].size for k in positions)
        for kind, label in (("scratch", "scratch"), ("constant", "constants"), ("output", "outputs")):
            found[label] = sum(b.size for b in program.buffers if b.kind == kind)
        if self.textures:
            found["textures"] = sum(t.row * t.height for t, _ in self.textures.values())
        return found

    def __call__(self, *args: Any, captures: bool | Sequence[str] = False, **keywords: Any) -> Any:
        """Run on `args`; with `captures` (True, or a list of names) return `(outputs, {name: Array})`
        for the intermediates registered with `fg.capture` (compiled on first request)."""
        if keywords:
            raise InputError(f"compiled function: arguments are positional, in the graph's order "
                             f"({', '.join(self.graph.arg_names)}); got the keyword {next(iter(keywords))!r}",
                             user_site())
        if captures is not False:
            return self._captured(captures, args)
        try:
            buffers, leaves = self.bind(args)
        except FgradError as e:  # the caller's line is found only for a mistake: it costs microseconds
            raise type(e)(e.message, e.site or user_site()) from None
        checked = config.jax_debug_nans or config.jax_debug_infs
        if checked and self.program.donated:  # the arguments as they were, before the call writes over them
            args = unflatten(self.graph.in_tree, [np.array(leaf) for leaf in leaves])
        early, self.wanted = self.wanted, set()
        staged = self.run(buffers, early)
        if self.program.donated:
            site = user_site()
            for k in self.program.donated:
                if isinstance(leaves[k], Array):
                    leaves[k].donated = f"to a compiled call at {site}"
        # The plan gives every result a buffer of its own: each is a new Array.
        outs = [Array(buffers[b], spec, self.device) for b, spec in zip(self.program.outputs, self.out_specs)]
        for r in self.producers:
            outs[r].reader = (self.wanted, r)
            outs[r].early = staged.get(r)
        if checked:
            self._check_special_values(args, outs)
        return unflatten(self.graph.out_tree, outs)

    def _check_special_values(self, args: tuple[Any, ...], outs: list[Array]) -> None:
        """With `fg.config`'s jax_debug_nans or jax_debug_infs, a result holding a NaN (an infinity) is
        an error, as in JAX: the graph runs again on `args`, op by op in NumPy (`interpret`, which
        checks every op), to name the op that made it and its line."""
        kind = special_value([out.numpy() for out in outs if out.dtype.is_float])
        if kind is None:
            return
        site = user_site()
        _LOG.warning("fgrad: invalid value (%s) in the results of a compiled call at %s; running its graph again op "
                     "by op in NumPy to find the op that made it", kind, site)
        interpret(self.source, *args)
        raise InvalidValueError(f"invalid value ({kind}) in the results of a compiled call; its graph run again op by "
                                f"op in NumPy (fg.interpret) makes none, so the device's arithmetic made it (an "
                                f"overflow, or a function's range where the adapter's differs from NumPy's)", site)

    def _captured(self, captures: Any, args: tuple[Any, ...]) -> Any:
        """A call returning the captured intermediates too, through a program exposing them."""
        site = user_site()
        if not (isinstance(captures, bool) or (isinstance(captures, (list, tuple))
                                               and all(isinstance(n, str) for n in captures))):
            raise InputError(f"compiled function: captures must be True, False or a list of capture names, "
                             f"got {captures!r}", site)
        names = None if captures is True else tuple(captures)
        if names not in self.capturing:
            graph = expose_captures(self.source, names, site)
            program = lower(graph, self.device.limits, frozenset(self.program.donated))
            self.capturing[names] = Executable(program, self.device, graph)
        return self.capturing[names](*args)

    def bind(self, args: tuple[Any, ...], site: str | None = None) -> tuple[dict[int, Any], list[Any]]:
        """Check `args` and give every buffer of the plan a wgpu buffer: Arrays are used in place,
        host values are written into this executable's upload buffers, outputs come from the
        device's pool of free buffers."""
        who = "compiled function"
        leaves, values = check_args(self.graph, args, who, site)
        device = self.device
        if values:
            self.resize(values)
        buffers = dict(self.resident)
        donated = self.program.donated
        bound: dict[int, str] = {}  # id of each Array buffer passed -> argument name
        for k, (name, b, leaf) in enumerate(zip(self.graph.input_names, self.program.inputs, leaves)):
            if isinstance(leaf, Array):
                if leaf.is_deleted():
                    leaf.check_live(f"{who}: argument {name}", site)
                other = bound.setdefault(id(leaf.buffer), name)
                if other != name and (k in donated or self.graph.input_names.index(other) in donated):
                    raise InputError(f"{who}: arguments {other} and {name} are the same Array, and one is donated",
                                     site)
                if leaf.device is not device:
                    raise InputError(f"{who}: argument {name} lives on {leaf.device.name}, not {device.name}", site)
                buffers[b] = leaf.buffer
                continue
            data = buffer_bytes(leaf, self.program.specs[b].dtype)
            if b in self.returned:  # the caller keeps what is returned: no shared upload buffer
                buffers[b] = device.device.create_buffer_with_data(data=data, usage=STORAGE)
                continue
            if b not in self.uploads:  # planned at the symbols' maxima: a value of any size fits
                self.uploads[b] = device.device.create_buffer(size=max(self.program.buffers[b].size, 4),
                                                              usage=STORAGE)
            device.write(self.uploads[b], data)
            buffers[b] = self.uploads[b]
        for b in self.results:  # a result of the call's shape (smaller than the plan's where symbols are)
            buffers[b] = device.take(self.result_bytes(b))
        return buffers, leaves

    def resize(self, values: dict[str, int]) -> None:
        """Make the next dispatches run at these values of the symbols: write them to the uniform
        buffer the kernels read them from (nothing is allocated), and find each kernel's grid."""
        if values == self.values:
            return
        data = np.array([values[d.name] for d in self.program.symbols], np.int32).tobytes()
        self.device.write(self.sizes, data)
        self.values = values
        self.grids = [k.grid_at(values) for k in self.program.kernels]
        self.out_specs = [self.program.specs[b].resolve(values) for b in self.program.outputs]

    def result_bytes(self, b: int) -> int:
        """The size of result buffer `b` at the symbols' current values (whole words, as buffers
        and copies need), or as planned for a program without symbols."""
        if not self.values:
            return self.program.buffers[b].size
        return words(self.program.specs[b].resolve(self.values).nbytes)

    def run(self, buffers: dict[int, Any], early: Iterable[int] = ()) -> dict[int, tuple[Any, int | None]]:
        """Record the program's dispatches on `buffers` (from `bind`) and its copies, then settle
        (see Device). A while loop's test is submitted and its predicate read back before each
        run of its body (Program.repeats). The results in `early` (with a producer) are staged
        for the host as soon as they are computed: result -> (staging buffer, submit index)."""
        start = self.loops(buffers, 0, len(self.program.kernels))
        staged = self.submit(buffers, start, len(self.program.kernels), [r for r in early if r in self.producers])
        for source, target in self.program.copies:
            self.device.copy(buffers[source], buffers[target], self.result_bytes(target))
        self.device.settle(self.heavy)
        return staged

    def loops(self, buffers: dict[int, Any], start: int, stop: int) -> int:
        """Run kernels start..stop up to the end of the last while loop among them, each loop
        (outermost first, Program.repeats) its test then, while the host reads its flag true,
        its body, the loops nested in either run the same way; returns where the last loop ended."""
        for loop in self.program.repeats:
            if loop.test < start or loop.end > stop:  # before this span, after it, or nested in an earlier loop
                continue
            self.submit(buffers, start, loop.test)
            while True:
                self.submit(buffers, self.loops(buffers, loop.test, loop.body), loop.body)
                if not int.from_bytes(self.device.read(buffers[loop.flag], 4), "little"):
                    break
                self.submit(buffers, self.loops(buffers, loop.body, loop.end), loop.end)
            start = loop.end
        return start

    def submit(self, buffers: dict[int, Any], start: int, stop: int,
               early: Sequence[int] = ()) -> dict[int, tuple[Any, int | None]]:
        """Record the dispatches start..stop; a heavy call of more than CHUNK submits them in
        command buffers that double in length from FIRST_CHUNK dispatches: the GPU starts on the
        first while the rest is recorded, and a long step (a loop's iterations) pays for few
        submits. Each result in `early` is staged after the kernel that writes it (Device.stage).
        A call on the host among them (a callback) runs once the dispatches before it are done."""
        for k in self.hosts:
            if start <= k < stop:
                self.submit(buffers, start, k)
                self.call_host(k, buffers)
                start = k + 1
        work = self.work(buffers, start, stop)
        chunks: set[int] = set()
        if self.heavy and len(work) > CHUNK:
            end, size = FIRST_CHUNK, FIRST_CHUNK
            while end < len(work):
                chunks.add(end)
                size *= 2
                end += size
        cuts: dict[int, list[int]] = {}
        for r in early:
            cuts.setdefault(self.producers[r] + 1 - start, []).append(r)
        fills = {k - start for k in self.fills if start <= k < stop}
        staged = {}
        first = 0
        for end in sorted({*chunks, *cuts, *fills, len(work)}):
            if end > first:
                self.device.dispatch(work[first:end])
            for r in cuts.get(end, ()):
                b = self.program.outputs[r]
                staged[r] = self.device.stage(buffers[b], self.result_bytes(b))
            if end in chunks:
                self.device.flush()
            for source, texture in self.fills.get(start + end, ()) if end in fills else ():
                self.device.fill(buffers[source], texture)
            first = end
        return staged

    def call_host(self, k: int, buffers: dict[int, Any]) -> None:
        """Kernel k's call on the host: its operands read back (each staged, then all mapped), the
        call, its results written into their buffers before the work recorded after."""
        kernel = self.program.kernels[k]
        call = kernel.host
        specs = [spec.resolve(self.values) if self.values else spec for spec in call.operands]
        staged = [self.device.stage(buffers[b], words(spec.nbytes)) for b, spec in zip(kernel.reads, specs)]
        operands = [stored_value(self.device.mapped(*at), spec) for at, spec in zip(staged, specs)]
        try:
            with np.errstate(all="ignore"):
                results = PRIMITIVES[call.op].impl(*operands, **dict(call.params))
        except FgradError as e:  # a result unlike the declared one: named at the user's call
            raise type(e)(e.message, e.site or next(iter(kernel.sites), None)) from None
        if not PRIMITIVES[call.op].multiple_results:
            results = (results,)
        for b, r in zip(kernel.writes, call.results):
            value = results[r]
            self.device.write(buffers[b], buffer_bytes(value, DType.of(np.asarray(value).dtype)))

    def encode(self, encoder: Any, buffers: dict[int, Any], start: int = 0, stop: int | None = None,
               timestamps: Any = None) -> None:
        """Encode the dispatches of kernels start..stop (all by default) on `buffers` (from `bind`) into
        a wgpu command encoder of the caller's (fg.profile's), each kernel k in a pass of its own;
        given a timestamp query set (two entries per kernel), the pass writes timestamp 2k before
        it and 2k + 1 after. A call on the host gets an empty pass: it is not run, and times as nothing."""
        stop = len(self.program.kernels) if stop is None else stop
        groups = self.groups_for(buffers)
        for k in range(start, stop):
            for source, texture in self.fills.get(k, ()):
                texture.fill(encoder, buffers[source])
            stamps = {} if timestamps is None else {"timestamp_writes": {
                "query_set": timestamps, "beginning_of_pass_write_index": 2 * k, "end_of_pass_write_index": 2 * k + 1}}
            compute = encoder.begin_compute_pass(**stamps)
            if not self.program.kernels[k].host:
                _dispatch(compute, [(self.pipelines[k], groups[k], self.grids[k])])
            compute.end()

    def work(self, buffers: dict[int, Any], start: int, stop: int) -> list[tuple[Any, Any, tuple[int, int, int]]]:
        """(pipeline, bind group, grid) of kernels start..stop on `buffers` (from `bind`), none a call on the host."""
        return list(zip(self.pipelines[start:stop], self.groups_for(buffers)[start:stop], self.grids[start:stop]))

    def groups_for(self, buffers: dict[int, Any]) -> list[Any]:
        """Every kernel's bind group for these buffers. Only kernels bound to a buffer that
        differs from the previous call's (a fresh output, another input Array) are looked at:
        a training loop's donated parameters keep theirs, so a step looks up one or two."""
        if buffers is self.last[0]:
            return self.last[1]
        last, groups = self.last
        kernels = self.program.kernels
        if not last:  # the first call
            groups = [None if kernels[k].host else self.group(k, buffers) for k in range(len(kernels))]
        else:
            changed = {b for b in self.dynamic if buffers[b] is not last[b]}
            if changed:
                groups = [group if bound.isdisjoint(changed) or kernels[k].host else self.group(k, buffers)
                          for k, (group, bound) in enumerate(zip(groups, self.bound_sets))]
        self.last = (buffers, groups)
        return groups

    def group(self, k: int, buffers: dict[int, Any]) -> Any:
        """Kernel k's bind group for these buffers: found by its pipeline and buffers, else made
        (the oldest groups go when there are more than `group_limit`)."""
        bound = tuple(buffers[b] for b in self.bindings[k]) + ((self.sizes,) if self.program.kernels[k].sized else ())
        key = (id(self.pipelines[k]), *map(id, bound))
        found = self.groups.get(key)
        if found is None:
            ids = (*self.bindings[k], None)  # the plan's ids, then the symbols' uniform buffer where it is bound
            entries = [{"binding": n, "resource": x if b in self.views else {"buffer": x, "offset": 0, "size": x.size}}
                       for n, (b, x) in enumerate(zip(ids, bound))]
            found = (bound, self.device.device.create_bind_group(
                layout=self.pipelines[k].get_bind_group_layout(0), entries=entries))
            if len(self.groups) >= self.group_limit:
                for old in list(self.groups)[: len(self.groups) // 4]:
                    del self.groups[old]
            self.groups[key] = found
        return found[1]


_MAPS: list[int] = []  # the status of fgrad's map of a staging buffer, once wgpu-native has reported it


def _on_map(status: int, message: Any, userdata1: Any, userdata2: Any) -> None:
    _MAPS.append(status)


def _map_read(device: Any, staging: Any, index: int) -> bytes:
    """A staging buffer's bytes once submit `index` (the last to use it) has finished, mapped
    through wgpu-native's C calls: the map is asked for, then this thread's poll waits for that
    submit and runs the map's callback. (wgpu-py's map_async submits an empty command buffer
    first and wakes its poll thread, whose blocking poll waits for all the work submitted, not
    just this submit's: 110-250 us a read on an H200's host, where this takes under 30.)"""
    handle, size = staging._internal, staging.size
    _MAPS.clear()
    info = _ffi.new("WGPUBufferMapCallbackInfo *", {"mode": _native.WGPUCallbackMode_AllowProcessEvents,
                                                    "callback": _ON_MAP})
    _native.wgpuBufferMapAsync(handle, _native.WGPUMapMode_Read, 0, size, info[0])
    wait = _ffi.new("WGPUSubmissionIndex *", index)
    for _ in range(3):  # then all the work submitted, whose end resolves every map asked for before
        if _MAPS:
            break
        _native.wgpuDevicePoll(device._internal, True, wait)
        wait = _ffi.NULL
    if _MAPS != [_native.WGPUMapAsyncStatus_Success]:
        raise CompileError(f"runtime: reading a result back from the device failed (map status {_MAPS}): "
                           f"the device may be lost")
    data = bytes(_ffi.buffer(_ffi.cast("uint8_t *", _native.wgpuBufferGetConstMappedRange(handle, 0, size)), size))
    _native.wgpuBufferUnmap(handle)
    return data


class _Texture:
    """A kernel's texture of `width` x `height` texels (Kernel.textures) of `texel` f32 values each
    (rgba32float, or r32float for one), with the copy that fills it from a buffer's rows made once,
    in wgpu-native's structs where they are at hand (wgpu-py builds them again for every copy: some
    60 us of Python on the 2-core machine)."""

    def __init__(self, device: Any, width: int, height: int, texel: int):
        kind = "rgba32float" if texel == 4 else "r32float"
        self.texture = device.create_texture(size=(width, height, 1), format=kind, usage=TEXTURE_USE)
        self.width, self.height, self.row = width, height, 4 * texel * width  # a row's bytes
        if _native is not None:
            self.source = _ffi.new("WGPUTexelCopyBufferInfo *", {"layout": {
                "offset": 0, "bytesPerRow": self.row, "rowsPerImage": height}})
            self.target = _ffi.new("WGPUTexelCopyTextureInfo *", {
                "texture": self.texture._internal, "aspect": _native.WGPUTextureAspect_All})
            self.size = _ffi.new("WGPUExtent3D *", {"width": width, "height": height, "depthOrArrayLayers": 1})

    def fill(self, encoder: Any, buffer: Any) -> None:
        """Record the copy of `buffer`'s rows into the texture."""
        if _native is not None:  # a wgpu-py encoder (fg.profile's) or a handle (Device.commands())
            # NOTE: an error recorded here surfaces at finish(), which checks it (as _dispatch's).
            self.source.buffer = buffer._internal
            _native.wgpuCommandEncoderCopyBufferToTexture(getattr(encoder, "_internal", encoder), self.source,
                                                          self.target, self.size)
        else:
            encoder.copy_buffer_to_texture({"buffer": buffer, "offset": 0, "bytes_per_row": self.row,
                                            "rows_per_image": self.height}, {"texture": self.texture},
                                           (self.width, self.height, 1))


def _encoder(device: Any) -> Any:
    """A new command encoder of a wgpu device: wgpu-native's handle where it is at hand."""
    if _native is not None:
        return _native.wgpuDeviceCreateCommandEncoder(device._internal, _EMPTY["CommandEncoder"])
    return device.create_command_encoder()


def _finish(encoder: Any) -> Any:
    """The command buffer of an encoder of _encoder, which is let go. finish() validates the
    commands: an error recorded with them (a dispatch's, a copy's) is raised here."""
    if _native is None:
        return encoder.finish()
    try:
        return _checked.wgpuCommandEncoderFinish(encoder, _EMPTY["CommandBuffer"])
    finally:
        _native.wgpuCommandEncoderRelease(encoder)


def _let_go(commands: Any) -> None:
    """Let a command buffer of _finish go (once submitted, or never to be)."""
    if _native is not None:
        _native.wgpuCommandBufferRelease(commands)


def _begin_pass(encoder: Any) -> Any:
    """A compute pass begun on a command encoder of Device.commands()."""
    if _native is not None:
        return _native.wgpuCommandEncoderBeginComputePass(encoder, _EMPTY["ComputePass"])
    return encoder.begin_compute_pass()


def _end_pass(compute: Any) -> None:
    """End a compute pass of _begin_pass (and let its handle go)."""
    if _native is not None:
        _native.wgpuComputePassEncoderEnd(compute)
        _native.wgpuComputePassEncoderRelease(compute)
    else:
        compute.end()


def _dispatch(compute: Any, work: list[tuple[Any, Any, tuple[int, int, int]]]) -> None:
    """Set each (pipeline, bind group, grid) of `work` in a compute pass (wgpu-py's or a handle of
    _begin_pass) and dispatch the grid."""
    if _native is not None:
        # NOTE: errors recorded here surface at finish() and submit(), which check them.
        handle, null = getattr(compute, "_internal", compute), _ffi.NULL
        set_pipeline = _native.wgpuComputePassEncoderSetPipeline  # looked up once: cffi's are slow
        set_group = _native.wgpuComputePassEncoderSetBindGroup
        dispatch = _native.wgpuComputePassEncoderDispatchWorkgroups
        for pipeline, group, (x, y, z) in work:
            set_pipeline(handle, pipeline._internal)
            set_group(handle, 0, group._internal, 0, null)
            dispatch(handle, x, y, z)
    else:
        for pipeline, group, grid in work:
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(*grid)


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: Any = False, may_alias: Any = None) -> Any:
    """The arrays and numbers of the pytree `x` on the device, as fg.Arrays, as `jax.device_put`.

    Args:
        x: a pytree of arrays, numbers and fg.Arrays.
        device: where to put them: None, fgrad's device (`fg.local_devices()`) or a sharding of it
            (`fg.sharding`), or a pytree prefix of `x` of those, as JAX's. fgrad computes on one
            device, so an Array is already there.
        src: where they are, checked as `device`.
        donate: a bool, or a pytree prefix of `x` of bools: a donated fg.Array hands its buffer
            to the result without a copy and is used up (a later use is an error, as for a
            donated argument of a compiled call).
        may_alias: True, False or None, or a prefix of them: an fg.Array that is neither
            donated nor may alias is copied on the device; otherwise (None where not donated:
            JAX's default) the Array itself is returned. Both it and `donate` True is an error,
            as in JAX.
    NumPy arrays and numbers are always copied to the device.
    """
    site = user_site()
    leaves, tree_def = flatten(x)
    each = {}
    for name, value in (("device", device), ("src", src), ("donate", donate), ("may_alias", may_alias)):
        try:
            each[name] = broadcast_prefix(value, tree_def, f"device_put: {name}")
        except ValueError as e:
            raise InputError(str(e), site) from None
    for d in {id(d): d for d in (*each["device"], *each["src"])}.values():
        check_placement("device_put", site, device=d)
    for d, leaf in zip(each["device"], leaves):  # a sharding's spec must fit its leaf's axes
        if isinstance(d, (Sharding, PartitionSpec)):
            check_sharding("device_put", d, np.ndim(leaf))
    for d, m in zip(each["donate"], each["may_alias"]):
        if not isinstance(d, (bool, np.bool_)) or not (m is None or isinstance(m, (bool, np.bool_))):
            raise InputError(f"device_put: donate must be a bool and may_alias a bool or None (or pytree prefixes of "
                             f"x of them), got donate={donate!r} and may_alias={may_alias!r}", site)
        if d and m:
            raise InputError("device_put: may_alias and donate cannot both be True: an aliased value stays usable, "
                             "a donated one is used up", site)
    target = default_device()

    def put(leaf: Any, donated: bool, may_alias: bool | None) -> Array:
        if isinstance(leaf, Array):
            leaf.check_live("device_put: a value", site)
            if donated:  # the buffer, its staged or read value with it, changes hands; the old Array is used up
                out = Array(leaf.buffer, leaf.spec, leaf.device)
                out._host, out.early, out.reader, leaf.early = leaf._host, leaf.early, leaf.reader, None
                leaf.donated = f"to device_put at {site}"
                return out
            return leaf if may_alias is None or may_alias else leaf.copy()
        try:
            spec = spec_of(leaf)
        except FgradError as e:
            raise type(e)(f"device_put: {e}", site) from None
        check_int_range(leaf, spec, "device_put: a value", site)
        data = buffer_bytes(leaf, spec.dtype)
        return Array(target.device.create_buffer_with_data(data=data, usage=STORAGE), spec, target)

    return unflatten(tree_def, [put(*args) for args in zip(leaves, each["donate"], each["may_alias"])])


def device_get(tree: Any) -> Any:
    """`tree` with each fg.Array read back to the host as a NumPy array (other leaves as they
    are), as `jax.device_get`."""
    site = user_site()

    def get(x: Any) -> Any:
        if isinstance(x, Array):
            x.check_live("device_get: a value", site)
            return x.numpy()
        return x

    leaves, tree_def = flatten(tree)
    return unflatten(tree_def, [get(x) for x in leaves])


def block_until_ready(tree: Any) -> Any:
    """Wait until the device has computed every fg.Array of `tree`, and return `tree`, as
    `jax.block_until_ready`."""
    site = user_site()
    for x in flatten(tree)[0]:
        if isinstance(x, Array):
            x.check_live("block_until_ready: a value", site)
            x.device.wait()
    return tree


def check_placement(who: str, site: str | None, *, device: Any = None, devices: Any = None,
                    backend: Any = None) -> None:
    """Refuse a placement fgrad cannot give, naming `who` (jit, pmap, device_put, compile): JAX's
    `device` (None or one of `local_devices()`), `devices` (a list of them) and `backend` (None or
    `default_backend()`; not beside a device, as in JAX). fgrad computes on one device."""
    def ours(d: Any) -> bool:  # a value that is no Device is refused without opening the adapter
        return isinstance(d, Device) and any(d is m for m in local_devices())

    if isinstance(device, (Sharding, PartitionSpec)):  # a sharding of the one device: the whole array there
        check_sharding(who, device)
        return
    if devices is not None and (not isinstance(devices, (tuple, list)) or not all(ours(d) for d in devices)):
        raise InputError(f"{who}: devices must be a list of fg.local_devices() (fgrad computes on one device), "
                         f"got {devices!r}", site)
    if device is not None and not ours(device):
        raise InputError(f"{who}: device must be one of fg.local_devices() (fgrad computes on one device) or None, "
                         f"got {device!r}", site)
    if device is not None and backend is not None:
        raise InputError(f"{who}: give a device or a backend, not both: got device={device!r} and "
                         f"backend={backend!r}", site)
    if backend is not None and backend != default_backend():
        raise InputError(f"{who}: backend {backend!r} is not this one ({default_backend()!r}); fgrad computes on one "
                         "device", site)


def compile(graph: Graph, device: Device | None = None, donate_argnums: int | tuple[int, ...] = ()) -> Executable:
    """Lower `graph` for `device` (the default device if None) and build its Executable.

    The arguments `donate_argnums` are donated: a call may write its outputs
    into their buffers (a training step's new parameters and optimizer state
    into the old ones), and the Arrays passed there are used up.
    """
    site = user_site()
    require_graph(graph, "compile", "; use fg.jit(fn) for functions")
    nums = (donate_argnums,) if isinstance(donate_argnums, int) else donate_argnums
    children = graph.in_tree.children
    if not isinstance(nums, (tuple, list)):
        raise InputError(f"compile: donate_argnums must be an int or a tuple of ints, got {donate_argnums!r}", site)
    if any(not isinstance(a, int) or not 0 <= a < len(children) for a in nums):
        raise InputError(f"compile: donate_argnums={donate_argnums!r} is out of range for {len(children)} arguments",
                         site)
    donated = frozenset(k for a in nums for k in graph.arg_positions[a])
    check_placement("compile", site, device=device)
    device = default_device() if device is None else device
    name = disk_cache.key(graph, device.limits, donated, device.name) if disk_cache.storable(graph) else None
    cached = disk_cache.load(name, graph) if name is not None else None
    if cached is not None:
        try:
            return Executable(cached, device, graph)
        except CompileError:  # a cached kernel that fails validation: the entry is rebuilt
            pass
    program = lower(graph, device.limits, donated)
    if name is not None:
        disk_cache.store(name, program)
    return Executable(program, device, graph)


def trace_and_compile(name: str, traced: Callable[[], tuple[Graph, tuple[int, ...]]],
                      device: Device | None = None) -> Executable:
    """The Executable of the graph `traced()` gives with the arguments it donates, as `fg.jit` and an
    Array's operators build one: with `fg.config`'s jax_enable_checks the graph is type-checked
    first, and with jax_log_compiles the trace and the compile are logged (logger "fgrad", level
    WARNING, as JAX logs them) with their times."""
    start = time.perf_counter()
    graph, donated = traced()
    lowered_at = time.perf_counter()
    if config.jax_enable_checks:
        typecheck(graph)
    exe = compile(graph, device, donate_argnums=donated)
    if config.jax_log_compiles:
        shapes = ", ".join(str(graph.nodes[i].spec) for i in graph.inputs)
        _LOG.warning("Finished tracing + transforming %s in %.3f sec", name, lowered_at - start)
        _LOG.warning("Compiled %s for (%s): %d kernels in %.3f sec", name, shapes, len(exe.kernels),
                     time.perf_counter() - lowered_at)
    return exe

