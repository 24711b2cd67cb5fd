"""A persistent cache of lowered programs, so a fresh process skips lowering a graph it has seen.

Entries live in `FGRAD_CACHE_DIR` (default: `$XDG_CACHE_HOME/fgrad` or
`~/.cache/fgrad`; an empty value turns the cache off), one file per program,
named by a SHA-256 of everything the program depends on: the graph (its
nodes, constants' bytes, structures), the adapter's name and limits, the
donated inputs and fgrad's version. A file holds a checksum of its payload;
an entry that is unreadable, damaged or from another version is ignored and
rewritten, never trusted. The payload is a pickle of fgrad's own frozen
dataclasses, written and read only by fgrad in the user's cache folder.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from fgrad.ir import Const, Graph
from fgrad.lower.program import Limits, Program

MAGIC = b"FGRAD-PROGRAM 1\n"


def directory() -> Path | None:
    """The cache folder, or None when FGRAD_CACHE_DIR is set empty."""
    configured = os.environ.get("FGRAD_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fgrad"


def _param(value: Any) -> str:
    if isinstance(value, Const):
        return f"Const({hashlib.sha256(value.data).hexdigest()},{value.shape},{value.dtype})"
    return repr(value)


def key(graph: Graph, limits: Limits, donated: frozenset[int], adapter: str) -> str:
    """A digest of everything a lowered program depends on."""
    from fgrad import __version__

    h = hashlib.sha256()
    for part in (__version__, adapter, repr(limits), repr(sorted(donated)), str(graph.in_tree), str(graph.out_tree),
                 repr(graph.inputs), repr(graph.outputs), repr(graph.captures)):
        h.update(part.encode() + b"\0")
    for node in graph.nodes:
        params = ",".join(f"{k}={_param(v)}" for k, v in node.params)
        h.update(f"{node.op}|{node.inputs}|{params}|{node.spec}\n".encode())
    return h.hexdigest()


def load(name: str) -> Program | None:
    """The cached program under `name`, or None (a missing or untrustworthy entry)."""
    folder = directory()
    if folder is None:
        return None
    path = folder / f"{name}.program"
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, payload = data[len(MAGIC): len(MAGIC) + 64], data[len(MAGIC) + 64:]
    if not data.startswith(MAGIC) or hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    try:
        program = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - a stale or damaged entry is simply rebuilt
        return None
    return program if isinstance(program, Program) else None


def store(name: str, program: Program) -> None:
    """Write `program` under `name`, atomically; a cache that cannot be written is skipped."""
    folder = directory()
    if folder is None:
        return
    try:
        payload = pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - e.g. a pytree class defined inside a function: not cached
        return
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + hashlib.sha256(payload).hexdigest().encode() + payload)
        os.replace(tmp, folder / f"{name}.program")
    except OSError:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
