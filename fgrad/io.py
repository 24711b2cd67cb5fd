"""Checkpoints: pytrees of arrays (parameters, optimizer state) on disk, without pickle.

A file is a magic line, the header's length, a SHA-256 of that length, the
header and the leaves, then the JSON header (the pytree's structure, and each
leaf's dtype, shape and place) and the leaves' raw little-endian bytes: a truncated or
damaged file is refused, whether the damage is in the values or in the
header (a key, a shape); files of versions 1 and 2 had the leaves' bytes
checked only. `save` writes a temporary file beside the target and renames it
over the target, so an interrupted save leaves the previous checkpoint
whole; temporary files that killed saves left behind are removed by a later
save of the same file. Missing parent folders are created, as orbax does.

Containers: every pytree kind (dict with str or int keys, list, tuple,
None, namedtuple, dataclass). A namedtuple or dataclass is stored as its
class name and fields, never as code, so `load` gives it back as a dict from
field name to value; `load(path, like=model)` rebuilds the containers of
`like`, its own classes included. Leaves: arrays, `fg.Array`s and numbers,
stored as fgrad computes them, in the NumPy dtype of their fgrad dtype
(float32, float16, bfloat16, 32-, 16- and 8-bit integers, or bool): float64 is
rounded to float32 (as JAX does by default), 64-bit integers become int32 or
uint32, and integers or finite floats that the stored type cannot hold are
refused, naming the leaf.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

try:
    import fcntl
except ImportError:  # Windows: temporary files are judged by their age (STALE_AFTER)
    fcntl = None  # type: ignore[assignment]

import numpy as np

from fgrad.errors import DTypeError, FgradError
from fgrad.ir import DTYPES, DType, fits
from fgrad.pytree import LEAF, TreeDef, first_difference, flatten, join_path, leaf_paths, unflatten
from fgrad.trace import user_site

MAGIC = b"FGRAD-CHECKPOINT 3\n"
# Version 2 kept the leaves' SHA-256 in the header, which nothing checked; version 1 also wrote a
# dict as a JSON object, which allows string keys only.
_UNCHECKED_HEADER = (b"FGRAD-CHECKPOINT 2\n", b"FGRAD-CHECKPOINT 1\n")
_READABLE = (MAGIC, *_UNCHECKED_HEADER)
# What a leaf of each stored dtype name holds: each fgrad dtype's NumPy dtype, little-endian.
_DTYPES = {row.np.name: row.np.newbyteorder("<") for row in DTYPES.values()}
_HELD = ", ".join(_DTYPES)
_RECORDS = ("namedtuple", "dataclass")
# A writer holds an advisory lock on its temporary file until it renames it: one that nobody
# locks was left by a killed writer (the system drops a dead process's locks). Without locks
# (Windows), a temporary file untouched this long (seconds) is taken for a killed writer's: a
# live one writes to it continuously, and renames it within moments of finishing.
STALE_AFTER = 600.0


class CheckpointError(FgradError, ValueError):
    """A checkpoint that cannot be written or read back as asked."""


def save(path: str | os.PathLike, tree: Any) -> None:
    """Write `tree` (params, optimizer state, ...) to `path` atomically, creating missing folders."""
    site = user_site()
    target = _path(path, "save", site)
    leaves, treedef = flatten(tree)
    try:
        structure = _describe(treedef, "")
        arrays = [_stored(leaf, p) for p, leaf in zip(leaf_paths(treedef), leaves)]
    except CheckpointError as e:
        raise CheckpointError(str(e), site) from None
    offsets = np.cumsum([0] + [a.nbytes for a in arrays]).tolist()
    header = json.dumps({
        "structure": structure,
        "leaves": [{"dtype": a.dtype.name, "shape": list(a.shape), "offset": o} for a, o in zip(arrays, offsets)],
        "nbytes": offsets[-1],
    }).encode()
    length = len(header).to_bytes(8, "little")
    digest = hashlib.sha256(length + header)
    for a in arrays:
        digest.update(a.tobytes())

    def write(f: BinaryIO) -> None:
        f.write(MAGIC + length + digest.digest() + header)
        _write_payload(f, arrays)

    try:
        write_atomically(target, write)
    except OSError as e:
        # Name the folder that could not be made; a failure on the temporary file is the target's.
        folder = f"{e.filename}: " if e.filename and Path(e.filename) in Path(target).parents else ""
        raise CheckpointError(f"save: cannot write {target}: {folder}{e.strerror or e}", site) from None


def _path(path: Any, who: str, site: str | None) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise CheckpointError(f"{who}: the path must be a str or os.PathLike, got a {type(path).__name__} "
                              f"(fg.{who}(path, ...) takes the path first)", site)
    return os.fspath(path)


def _describe(td: TreeDef, path: str) -> Any:
    """The JSON form of a structure: each container with its keys, "leaf" for each leaf."""
    kids = [_describe(c, join_path(path, k)) for k, c in zip(td.keys(), td.children)]
    if td.kind == "leaf":
        return "leaf"
    if td.kind == "none":
        return {"none": None}
    if td.kind in ("list", "tuple"):
        return {td.kind: kids}
    if td.kind == "dict":
        bad = next((k for k in td.meta if type(k) not in (str, int)), None)
        if bad is not None:
            raise CheckpointError(f"save: the dict at {path or 'the top level'} has the key {bad!r} "
                                  f"({type(bad).__name__}); checkpoints store str and int keys")
        return {"dict": [[k, s] for k, s in zip(td.meta, kids)]}
    cls, fields = td.meta
    return {td.kind: {"type": cls.__name__, "fields": [[f, s] for f, s in zip(fields, kids)]}}


def _stored(leaf: Any, path: str) -> np.ndarray:
    """`leaf` as the checkpoint holds it (the NumPy dtype of its fgrad dtype), refusing values
    that would change."""
    where = path or "the top level"
    arr = np.asarray(leaf)
    try:
        dtype = DType.of(arr.dtype)
    except DTypeError:
        raise CheckpointError(f"save: the leaf at {where} has dtype {arr.dtype}; checkpoints hold {_HELD} "
                              "arrays") from None
    with np.errstate(over="ignore"):
        stored = arr.astype(_DTYPES[dtype.np.name], order="C")
    if not fits(arr, dtype):
        info = np.iinfo(dtype.np)
        raise CheckpointError(f"save: the leaf at {where} ({arr.dtype}) holds values from {arr.min()} to "
                              f"{arr.max()}, outside {dtype.np} ({info.min}..{info.max}), fgrad's {dtype}")
    if dtype.is_float and np.any(np.isfinite(arr) & ~np.isfinite(stored)):
        raise CheckpointError(f"save: the leaf at {where} ({arr.dtype}) holds finite values too large for "
                              f"{dtype.np}, fgrad's {dtype}")
    return stored


def _write_payload(f: BinaryIO, arrays: list[np.ndarray]) -> None:
    f.writelines(a.tobytes() for a in arrays)


def write_atomically(target: str | os.PathLike, write: Callable[[BinaryIO], None], stale: str | None = None) -> None:
    """Write `target` through a temporary file beside it, renamed over it once complete.

    A reader finds the old file or the new one, never part of one. The
    temporary file is removed when `write` fails; those that killed writers
    left (named by the glob `stale` in the folder, default this target's own)
    are removed: those no writer locks (see STALE_AFTER). Missing folders are created.
    """
    target = Path(target)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    prefix = f".{target.name}."
    _remove_stale(folder, stale or f"{glob.escape(prefix)}*.tmp")
    fd, tmp = _locked_temporary(folder, prefix)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
            os.replace(tmp, target)  # still locked: no other writer takes it for a killed one's
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _locked_temporary(folder: Path, prefix: str) -> tuple[int, str]:
    """A new temporary file in `folder`, open and locked (where the system has locks)."""
    while True:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
        if fcntl is None:
            return fd, tmp
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(OSError):
            if os.path.samestat(os.stat(tmp), os.fstat(fd)):
                return fd, tmp
        os.close(fd)  # another writer removed it between its creation and our lock: make another


def _remove_stale(folder: Path, pattern: str) -> None:
    cutoff = time.time() - STALE_AFTER
    for path in folder.glob(pattern):
        with contextlib.suppress(OSError):  # gone already, locked by a live writer, or not ours to remove
            if fcntl is None:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                continue
            with open(path, "rb") as f:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                path.unlink()


def load(path: str | os.PathLike, like: Any = None) -> Any:
    """Read a checkpoint written by `save` as NumPy arrays.

    Without `like`, containers come back as saved, except namedtuples and
    dataclasses, which come back as dicts of their fields. With `like` (a
    pytree of arrays, Arrays, Specs or numbers, e.g. the freshly initialised
    model), the checkpoint must have its structure (the same container
    kinds, keys and class names) and each leaf its shape and dtype (float64
    and int64 in `like` count as float32 and int32); the first difference is
    named. The result then has `like`'s containers.
    """
    site = user_site()
    target = _path(path, "load", site)
    try:
        with open(target, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CheckpointError(f"load: cannot read {target}: {e.strerror}", site) from None
    magic = next((m for m in _READABLE if data.startswith(m)), None)
    if magic is None or len(data) < len(magic) + 8:
        raise CheckpointError(f"load: {target} is not an fgrad checkpoint", site)
    try:
        stored, leaves = _read(data[len(magic):], checked=magic not in _UNCHECKED_HEADER)
    except _Damaged as e:
        raise CheckpointError(f"load: {target} is truncated or damaged: {e}", site) from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as e:
        raise CheckpointError(f"load: {target} has a damaged or malformed header ({type(e).__name__}: {e})",
                              site) from None
    if like is None:
        return unflatten(_records_as_dicts(stored), leaves)
    want_leaves, want = flatten(like)
    found = first_difference(_by_class_name(want), stored)
    if found:
        where, what = found
        raise CheckpointError(f"load: {target} does not match the model at {where or 'the top level'} (expected: "
                              f"the model, got: the checkpoint): {what}", site)
    for p, got, model in zip(leaf_paths(want), leaves, want_leaves):
        shape, dtype = _expected(model, p, target, site)
        if got.shape != shape:
            raise CheckpointError(f"load: {target} does not match at {p}: shape {got.shape} in the checkpoint, "
                                  f"{shape} in the model", site)
        if got.dtype != dtype:
            raise CheckpointError(f"load: {target} does not match at {p}: dtype {got.dtype} in the checkpoint, "
                                  f"{dtype} in the model", site)
    return unflatten(want, leaves)


class _Damaged(Exception):
    """A payload whose size or checksum disagrees with its header."""


def _read(data: bytes, checked: bool) -> tuple[TreeDef, list[np.ndarray]]:
    """The structure and leaves of a checkpoint's bytes after the magic line; damaged or malformed parts
    raise. `checked`: the SHA-256 after the header's length covers that length, the header and the payload
    (version 3)."""
    size, data = int.from_bytes(data[:8], "little"), data[8:]
    if checked:
        digest, data = data[:32], data[32:]
        if hashlib.sha256(size.to_bytes(8, "little") + data).digest() != digest:
            raise _Damaged("checksum mismatch")
    header = json.loads(data[:size])
    payload, nbytes = data[size:], header["nbytes"]
    if type(nbytes) is not int:
        raise ValueError(f"nbytes {nbytes!r}")
    if len(payload) != nbytes:
        raise _Damaged(f"{len(payload)} of {nbytes} bytes")
    if not checked:
        sha256 = header["sha256"]
        if type(sha256) is not str:
            raise ValueError(f"sha256 {sha256!r}")
        if hashlib.sha256(payload).hexdigest() != sha256:
            raise _Damaged("checksum mismatch")
    stored = _parse(header["structure"])
    leaves = [_leaf(payload, **m) for m in header["leaves"]]
    if len(leaves) != stored.num_leaves:
        raise ValueError(f"{len(leaves)} leaves for a structure of {stored.num_leaves}")
    return stored, leaves


def _leaf(payload: bytes, dtype: str, shape: list[int], offset: int) -> np.ndarray:
    if any(type(n) is not int or n < 0 for n in (*shape, offset)):
        raise ValueError(f"shape {shape!r} at offset {offset!r}")
    count = int(np.prod(shape, dtype=np.int64))
    return np.frombuffer(payload, _DTYPES[dtype], count, offset).reshape(shape).copy()


def _parse(s: Any) -> TreeDef:
    """The structure `_describe` wrote, with classes by name."""
    if s == "leaf":
        return LEAF
    (kind, body), = s.items()
    if kind == "none" and body is None:
        return TreeDef("none")
    if kind in ("list", "tuple"):
        return TreeDef(kind, None, tuple(_parse(c) for c in body))
    if kind == "dict":
        items = body.items() if isinstance(body, dict) else body
        keys, kids = zip(*items) if items else ((), ())
        if any(type(k) not in (str, int) for k in keys) or len(set(keys)) != len(keys):
            raise ValueError(f"bad dict keys {keys!r}")
        return TreeDef("dict", tuple(keys), tuple(_parse(c) for c in kids))
    if kind in _RECORDS:
        fields, kids = zip(*body["fields"]) if body["fields"] else ((), ())
        if not isinstance(body["type"], str) or any(not isinstance(f, str) for f in fields):
            raise ValueError(f"bad {kind} {body['type']!r}")
        return TreeDef(kind, (body["type"], tuple(fields)), tuple(_parse(c) for c in kids))
    raise ValueError(f"unknown container {kind!r}")


def _records_as_dicts(td: TreeDef) -> TreeDef:
    kind, meta = ("dict", td.meta[1]) if td.kind in _RECORDS else (td.kind, td.meta)
    return TreeDef(kind, meta, tuple(_records_as_dicts(c) for c in td.children))


def _by_class_name(td: TreeDef) -> TreeDef:
    """`td` with each record's class replaced by its name, as a checkpoint holds it."""
    meta = (td.meta[0].__name__, td.meta[1]) if td.kind in _RECORDS else td.meta
    return TreeDef(td.kind, meta, tuple(_by_class_name(c) for c in td.children))


def _expected(leaf: Any, path: str, target: str, site: str | None) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and stored dtype of a leaf of `like`: an array, Array, Spec or number, stored as `save`
    would store it (float64 as float32, int64 as int32, uint64 as uint32)."""
    dtype = getattr(leaf, "dtype", None)
    if isinstance(dtype, DType):  # a Spec or an fg.Array
        return tuple(leaf.shape), dtype.np
    try:
        held = DType.of(np.dtype(dtype) if dtype is not None else np.asarray(leaf).dtype).np
    except (TypeError, DTypeError):  # a dtype NumPy or fgrad does not know
        raise CheckpointError(f"load: the model's leaf at {path or 'the top level'} is a {type(leaf).__name__}"
                              f"{f' of dtype {dtype}' if dtype is not None else ''}, not an array, Array, Spec or "
                              f"number of a type checkpoints hold (loading {target})", site) from None
    return tuple(np.shape(leaf)), held
