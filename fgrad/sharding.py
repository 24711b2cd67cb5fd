"""`jax.sharding`'s names over fgrad's one device: meshes, partition specs and shardings.

fgrad computes on one device (`fg.devices()`), so every mesh is of that one device, each axis of
size 1, and every sharding places a whole array on it. JAX code written for a mesh runs unchanged
on such a mesh: `fg.device_put(x, NamedSharding(mesh, P("data")))`, `jit(in_shardings=...,
out_shardings=...)`, `lax.with_sharding_constraint` and `fg.shard_map` (whose mesh axis names
its collectives may use, each of size 1) take them. To run across machines, export the graph
(`fg.export.to_jax`) and shard it with JAX.
"""

from __future__ import annotations

import abc
import contextlib
import math
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

import numpy as np

from fgrad.errors import InputError
from fgrad.pytree import broadcast_prefix, flatten, register_leaf, tree_map
from fgrad.trace import user_site

__all__ = ["Mesh", "NamedSharding", "PartitionSpec", "Sharding", "SingleDeviceSharding", "use_mesh"]


class PartitionSpec(tuple):
    """How an array's axes split over a mesh's axes, as `jax.sharding.PartitionSpec` (`P`): one
    entry per leading axis of the array, each None (not split), a mesh axis name, or a tuple of
    names."""

    def __new__(cls, *partitions: Any) -> PartitionSpec:
        for part in partitions:
            names = part if isinstance(part, tuple) else (part,)
            if not all(n is None or isinstance(n, Hashable) and not isinstance(n, (list, dict)) for n in names):
                raise InputError(f"PartitionSpec: each entry must be None, a mesh axis name or a tuple of names, got "
                                 f"{part!r}", user_site())
        return super().__new__(cls, partitions)

    def __repr__(self) -> str:  # as JAX's
        return f"P({', '.join(map(repr, self))})"

    def names(self) -> list[Hashable]:
        """The mesh axis names it splits over, in order."""
        return [n for part in self for n in (part if isinstance(part, tuple) else (part,)) if n is not None]


register_leaf(PartitionSpec)  # a leaf of in_specs and out_specs, as JAX's, though a tuple


class Mesh:
    """Devices laid out along named axes, as `jax.sharding.Mesh(devices, axis_names)`. fgrad's
    meshes hold its one device: `devices` is an array of it of shape (1, ..., 1), one axis per name.
    `with mesh:` makes it the mesh that `fg.shard_map` and a bare PartitionSpec use."""

    def __init__(self, devices: Any, axis_names: str | Sequence[Hashable], *, axis_types: Any = None) -> None:
        from fgrad.runtime import check_placement  # NOTE: the runtime takes shardings, so imports this module

        if not isinstance(axis_names, (str, Sequence)):
            raise InputError(f"Mesh: axis_names must be a name or a sequence of names, got {axis_names!r}", user_site())
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        grid = np.array(devices, dtype=object)
        if grid.ndim != len(names):
            raise InputError(f"Mesh: {len(names)} axis names {names} for devices of shape {grid.shape}", user_site())
        if len(set(names)) != len(names):
            raise InputError(f"Mesh: axis names {names} repeat a name", user_site())
        check_placement("Mesh", user_site(), devices=list(grid.flat))
        if grid.size != 1:
            raise InputError(f"Mesh: devices of shape {grid.shape} hold {grid.size} devices; fgrad computes on one "
                             "(fg.devices()), so each mesh axis has size 1: export with fg.export.to_jax to shard "
                             "across devices", user_site())
        self.devices, self.axis_names, self.axis_types = grid, names, axis_types

    @property
    def shape(self) -> dict[Hashable, int]:
        """Each axis name's size (all 1)."""
        return dict(zip(self.axis_names, self.devices.shape))

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def empty(self) -> bool:
        return self.size == 0

    def __repr__(self) -> str:
        return f"Mesh({', '.join(f'{n!r}: {s}' for n, s in self.shape.items())})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Mesh) and self.axis_names == other.axis_names and \
            self.devices.shape == other.devices.shape and all(a is b for a, b in zip(self.devices.flat, other.devices.flat))

    def __hash__(self) -> int:
        return hash((self.axis_names, self.devices.shape))

    def __enter__(self) -> Mesh:
        _AMBIENT.meshes = [*getattr(_AMBIENT, "meshes", []), self]
        return self

    def __exit__(self, *exc: Any) -> None:
        _AMBIENT.meshes = _AMBIENT.meshes[:-1]


_AMBIENT = threading.local()  # the meshes entered (`with mesh:`), innermost last


def ambient_mesh() -> Mesh | None:
    """The mesh of the innermost `with mesh:` block of this thread, if any."""
    meshes = getattr(_AMBIENT, "meshes", [])
    return meshes[-1] if meshes else None


@contextlib.contextmanager
def use_mesh(mesh: Mesh) -> Iterator[Mesh]:
    """`with fg.sharding.use_mesh(mesh):` as JAX's: the mesh a bare PartitionSpec refers to."""
    with mesh:
        yield mesh


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[Hashable], *, devices: Any = None,
              axis_types: Any = None) -> Mesh:
    """A mesh of `axis_shapes` over `devices` (fgrad's, by default), as `jax.make_mesh`: the
    shapes' product must be the number of devices (fgrad's one)."""
    from fgrad.runtime import devices as all_devices

    shape = tuple(axis_shapes)
    chosen = list(all_devices() if devices is None else devices)
    if not all(isinstance(n, (int, np.integer)) and n >= 1 for n in shape) or math.prod(shape) != len(chosen):
        raise InputError(f"make_mesh: axis_shapes {shape} must multiply to the number of devices, {len(chosen)} "
                         "(fgrad computes on one device)", user_site())
    return Mesh(np.array(chosen, dtype=object).reshape(shape), axis_names, axis_types=axis_types)


class Sharding(abc.ABC):
    """Where an array's pieces live, as `jax.sharding.Sharding`: here, whole, on fgrad's device."""

    @property
    @abc.abstractmethod
    def device_set(self) -> set[Any]: ...

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def is_fully_addressable(self) -> bool:
        return True

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    @property
    def addressable_devices(self) -> set[Any]:
        return self.device_set

    @property
    def memory_kind(self) -> None:
        return None

    def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
        """The shape of each device's piece of an array of `global_shape`: the whole array."""
        return tuple(global_shape)


class SingleDeviceSharding(Sharding):
    """An array whole on one device, as `jax.sharding.SingleDeviceSharding` (an fg.Array's `sharding`)."""

    def __init__(self, device: Any, *, memory_kind: Any = None) -> None:
        from fgrad.runtime import check_placement

        check_placement("SingleDeviceSharding", user_site(), device=device)
        self.device = device

    @property
    def device_set(self) -> set[Any]:
        return {self.device}

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self.device!r})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SingleDeviceSharding) and other.device is self.device

    def __hash__(self) -> int:
        return id(self.device)


class NamedSharding(Sharding):
    """An array split over `mesh`'s axes as `spec` says, as `jax.sharding.NamedSharding`: with
    fgrad's one-device meshes, whole on the device. The spec's names must be the mesh's, each
    once."""

    def __init__(self, mesh: Mesh, spec: PartitionSpec | None = None, *, memory_kind: Any = None) -> None:
        if not isinstance(mesh, Mesh):
            raise InputError(f"NamedSharding: mesh must be an fg.sharding.Mesh, got {type(mesh).__name__}", user_site())
        spec = PartitionSpec() if spec is None else spec
        check_spec("NamedSharding", spec, mesh)
        self.mesh, self.spec = mesh, spec

    @property
    def device_set(self) -> set[Any]:
        return set(self.mesh.devices.flat)

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, NamedSharding) and self.mesh == other.mesh and self.spec == other.spec

    def __hash__(self) -> int:
        return hash((self.mesh, self.spec))


def check_spec(who: str, spec: Any, mesh: Mesh | None, ndim: int | None = None) -> None:
    """Refuse a PartitionSpec that is none, names an axis `mesh` lacks (or any, with no mesh),
    names one twice, or has more entries than an array of `ndim` axes."""
    if not isinstance(spec, PartitionSpec):
        raise InputError(f"{who}: expected a PartitionSpec (fg.sharding.PartitionSpec, P), got {spec!r}", user_site())
    names = spec.names()
    if names and mesh is None:
        raise InputError(f"{who}: {spec!r} names mesh axes, but no mesh is given or entered (with mesh:)", user_site())
    missing = [n for n in names if n not in mesh.axis_names] if mesh is not None else []
    if missing:
        raise InputError(f"{who}: {spec!r} names {missing}, which {mesh!r} lacks", user_site())
    if len(set(names)) != len(names):
        raise InputError(f"{who}: {spec!r} names a mesh axis twice", user_site())
    if ndim is not None and len(spec) > ndim:
        raise InputError(f"{who}: {spec!r} has {len(spec)} entries for an array of {ndim} axes", user_site())


def check_sharding(who: str, sharding: Any, ndim: int | None = None) -> None:
    """Refuse what is not a sharding of fgrad's device: a Sharding, or a PartitionSpec under an
    entered mesh (as JAX's `out_sharding` takes)."""
    if isinstance(sharding, PartitionSpec):
        check_spec(who, sharding, ambient_mesh(), ndim)
    elif isinstance(sharding, NamedSharding):
        check_spec(who, sharding.spec, sharding.mesh, ndim)
    elif not isinstance(sharding, Sharding):
        raise InputError(f"{who}: expected a sharding (fg.sharding.NamedSharding, SingleDeviceSharding or a "
                         f"PartitionSpec), got {sharding!r}", user_site())


def _check_each(who: str, prefix: Any, tree: Any, check: Callable[[str, Any, int], None]) -> None:
    """`check(who, p, ndim)` for each leaf of `tree` and its entry p of `prefix`, a pytree prefix
    of it (as `jax.vmap`'s in_axes), of specs or shardings."""
    leaves, tree_def = flatten(tree)
    try:
        each = broadcast_prefix(prefix, tree_def, who)
    except ValueError as e:
        raise InputError(str(e), user_site()) from None
    for entry, leaf in zip(each, leaves):
        check(who, entry, np.ndim(leaf))


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """`x` as it is, as `jax.lax.with_sharding_constraint` on fgrad's one device: `shardings` (a
    pytree prefix of x of shardings) is checked, and every array stays whole there."""
    _check_each("with_sharding_constraint", shardings, x, check_sharding)
    return x


def shard_map(f: Any = None, /, mesh: Mesh | None = None, in_specs: Any = None, out_specs: Any = None, *,
              axis_names: Any = frozenset(), check_vma: bool = True, check_rep: bool | None = None,
              auto: Any = frozenset()) -> Any:
    """`f` mapped over the shards of its arguments on `mesh`, as `jax.shard_map` (and the older
    `jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs)`): fgrad's meshes are of
    its one device, so each shard is the whole array, and `f` runs once on it. Inside, each mesh
    axis name is bound, of size 1, for collectives (`lax.psum(x, "data")` is x, `lax.axis_index`
    0). `in_specs` and `out_specs` are pytree prefixes of the arguments and results of
    PartitionSpecs, checked against the mesh (the entered one where `mesh` is None). `check_vma`
    (`check_rep`) is taken but checks nothing: on one device every value is replicated over every
    mesh axis, where JAX's would refuse an out_spec that its types cannot prove replicated. Without
    `f`, a decorator taking it."""
    if f is None:
        return lambda fn: shard_map(fn, mesh, in_specs, out_specs, axis_names=axis_names, check_vma=check_vma,
                                    check_rep=check_rep, auto=auto)
    if out_specs is None:
        raise InputError("shard_map: out_specs must be given (a PartitionSpec, or a pytree of them)", user_site())
    if not callable(f):
        raise InputError(f"shard_map: expected a function, got a {type(f).__name__}", user_site())

    def mapped(*args: Any) -> Any:
        from fgrad import numpy as fnp
        from fgrad.transforms.batching import vmap

        on = mesh if mesh is not None else ambient_mesh()
        if not isinstance(on, Mesh):
            raise InputError("shard_map: no mesh: pass mesh=, or call it inside `with mesh:`", user_site())
        _check_each("shard_map: in_specs", PartitionSpec() if in_specs is None else in_specs, args,
                    lambda who, spec, ndim: check_spec(who, spec, on, ndim))
        names = on.axis_names
        body = f
        for name in reversed(names):  # each mesh axis a batch axis of size 1, so its name is bound
            body = vmap(body, axis_name=name)
        lead = tuple(range(len(names)))
        out = body(*(tree_map(lambda a: fnp.expand_dims(fnp.asarray(a), lead), arg) for arg in args))
        out = tree_map(lambda a: fnp.squeeze(a, lead), out)
        _check_each("shard_map: out_specs", out_specs, out, lambda who, spec, ndim: check_spec(who, spec, on, ndim))
        return out

    mapped.__name__ = getattr(f, "__name__", "shard_map")
    return mapped
