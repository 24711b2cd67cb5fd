"""Checkpoints: parameters and optimizer state on disk, without pickle.

A file is a magic line, a JSON header (the pytree's structure, and each
leaf's dtype, shape and place) and the leaves' raw little-endian bytes,
with a SHA-256 of those bytes so that a truncated or damaged file is
refused. `save` writes a temporary file beside the target and renames it
over the target, so an interrupted save leaves the previous checkpoint whole.
Containers: dict (string keys), list, tuple and None; leaves: arrays,
`fg.Array`s and numbers, stored as float32, int32 or bool.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any

import numpy as np

from fgrad.errors import FgradError
from fgrad.pytree import first_difference, flatten, leaf_paths
from fgrad.trace import user_site

MAGIC = b"FGRAD-CHECKPOINT 1\n"
_DTYPES = {"float32": np.dtype("<f4"), "int32": np.dtype("<i4"), "bool": np.dtype("|b1")}
_KINDS = {"f": "float32", "i": "int32", "u": "int32", "b": "bool"}


class CheckpointError(FgradError, ValueError):
    """A checkpoint that cannot be written or read back as asked."""


def _structure(tree: Any, path: str = "") -> Any:
    """The JSON form of a pytree's containers, with leaves as None placeholders."""
    where = path or "the top level"
    if isinstance(tree, dict):
        if not all(isinstance(k, str) for k in tree):
            raise CheckpointError(f"save: dict keys at {where} must be strings")
        return {"dict": {k: _structure(tree[k], f"{path}.{k}" if path else k) for k in sorted(tree)}}
    if type(tree) in (list, tuple):
        kind = "list" if isinstance(tree, list) else "tuple"
        return {kind: [_structure(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(tree)]}
    if tree is None:
        return {"none": None}
    if isinstance(tree, tuple) or (hasattr(tree, "__dataclass_fields__") and not hasattr(tree, "shape")):
        raise CheckpointError(f"save: cannot store the {type(tree).__name__} at {where}; use dicts, lists and tuples")
    return "leaf"


def _build(structure: Any, leaves: list[np.ndarray]) -> Any:
    if structure == "leaf":
        return leaves.pop(0)
    (kind, body), = structure.items()
    if kind == "dict":
        return {k: _build(v, leaves) for k, v in body.items()}
    if kind in ("list", "tuple"):
        items = [_build(v, leaves) for v in body]
        return items if kind == "list" else tuple(items)
    return None


def save(path: str | os.PathLike, tree: Any) -> None:
    """Write `tree` (params, optimizer state, ...) to `path` atomically."""
    site = user_site()
    try:
        structure = _structure(tree)
    except CheckpointError as e:
        raise CheckpointError(str(e), site) from None
    leaves, treedef = flatten(tree)
    arrays = []
    for p, leaf in zip(leaf_paths(treedef), leaves):
        arr = np.asarray(leaf)
        if arr.dtype.kind not in _KINDS:
            raise CheckpointError(f"save: the leaf {p or 'at the top level'} has dtype {arr.dtype}", site)
        arrays.append(arr.astype(_DTYPES[_KINDS[arr.dtype.kind]], order="C"))
    offsets = np.cumsum([0] + [a.nbytes for a in arrays]).tolist()
    digest = hashlib.sha256()
    for a in arrays:
        digest.update(a.tobytes())
    header = json.dumps({
        "structure": structure,
        "leaves": [{"dtype": a.dtype.name, "shape": list(a.shape), "offset": o} for a, o in zip(arrays, offsets)],
        "nbytes": offsets[-1],
        "sha256": digest.hexdigest(),
    }).encode()
    target = os.fspath(path)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(target) + ".", suffix=".tmp", dir=os.path.dirname(target) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + len(header).to_bytes(8, "little") + header)
            _write_payload(f, arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_payload(f: Any, arrays: list[np.ndarray]) -> None:
    for a in arrays:
        f.write(a.tobytes())


def load(path: str | os.PathLike, like: Any = None) -> Any:
    """Read a checkpoint written by `save` as NumPy arrays in the saved structure.

    With `like` (a pytree of arrays, Arrays or Specs), the checkpoint must have
    the same structure, shapes and dtypes; the first difference is named.
    """
    site = user_site()
    target = os.fspath(path)
    try:
        with open(target, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CheckpointError(f"load: cannot read {target}: {e.strerror}", site) from None
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        raise CheckpointError(f"load: {target} is not an fgrad checkpoint", site)
    start = len(MAGIC) + 8
    size = int.from_bytes(data[len(MAGIC):start], "little")
    try:
        header = json.loads(data[start: start + size])
    except ValueError:
        raise CheckpointError(f"load: {target} has a damaged header (truncated?)", site) from None
    payload = data[start + size:]
    if len(payload) != header["nbytes"] or hashlib.sha256(payload).hexdigest() != header["sha256"]:
        raise CheckpointError(f"load: {target} is truncated or damaged: {len(payload)} of {header['nbytes']} bytes, "
                              "checksum mismatch", site)
    leaves = [np.frombuffer(payload, _DTYPES[m["dtype"]], int(np.prod(m["shape"], dtype=np.int64)), m["offset"])
              .reshape(m["shape"]).copy() for m in header["leaves"]]
    tree = _build(header["structure"], leaves)
    if like is not None:
        _check_like(tree, like, target, site)
    return tree


def _check_like(tree: Any, like: Any, target: str, site: str | None) -> None:
    got, got_tree = flatten(tree)
    want, want_tree = flatten(like)
    if got_tree != want_tree:
        where, what = first_difference(want_tree, got_tree)
        raise CheckpointError(f"load: {target} does not match the model at {where or 'the top level'} (expected: "
                              f"the model, got: the checkpoint): {what}", site)
    for p, a, b in zip(leaf_paths(want_tree), got, want):
        shape = tuple(np.shape(b)) if not hasattr(b, "shape") else tuple(b.shape)
        if a.shape != shape:
            raise CheckpointError(f"load: {target} does not match at {p}: shape {a.shape} in the checkpoint, "
                                  f"{shape} in the model", site)
