"""A persistent cache of lowered programs, so a fresh process skips lowering a graph it has seen.

Entries live in `FGRAD_CACHE_DIR` (default: `$XDG_CACHE_HOME/fgrad` or
`~/.cache/fgrad`; an empty value turns the cache off), one file per program,
named by a SHA-256 of everything the program depends on: the graph (its
nodes, constants' bytes, structures), the adapter's name and limits, the
donated inputs, this file format and fgrad's own source.

An entry is data only, never code: a magic line, the SHA-256 of its name
and the rest (so an entry copied under another name is not taken for that
graph's), and JSON. The JSON is written from the dataclasses' fields (whatever fields
`Program`, `Kernel`, `Buffer` and the IR have), with WGSL as text and
constant bytes as base64; reading it builds only dataclasses and enums of
fgrad's IR and program modules, each field of the type it is declared with,
and the program must fit the caller's graph (its inputs, results and every
reference within it). The argument and result structures are not
stored (their classes are code): they are the caller's graph's, which
lowering keeps. An entry that is unreadable, damaged, malformed or of
another format is ignored and rewritten, never trusted. Entries are written
through temporary files; those that killed processes left are removed by a
later store.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import functools
import hashlib
import json
import os
import re
import types
import typing
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, BinaryIO

from fgrad import ir
from fgrad.config import config
from fgrad.io import write_atomically
from fgrad.ir import Const, Graph
from fgrad.typecheck import typecheck
from fgrad.lower import program as program_module
from fgrad.lower.program import Kernel, Limits, Program
from fgrad.pytree import TreeDef

MAGIC = b"FGRAD-PROGRAM 2\n"
# The only modules whose dataclasses and enums an entry may name.
_MODULES = {m.__name__: m for m in (ir, program_module)}


def directory() -> Path | None:
    """The cache folder: `fg.config`'s jax_compilation_cache_dir where set, else FGRAD_CACHE_DIR's
    (None, no cache, when either is set empty), else the user's cache folder."""
    configured = config.jax_compilation_cache_dir
    if configured is None:
        configured = os.environ.get("FGRAD_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fgrad"


@functools.cache
def _source_digest() -> str:
    """A digest of fgrad's source: other lowering code may make another program of the same graph."""
    package = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _param(value: Any) -> str:
    if isinstance(value, Const):
        return f"Const({hashlib.sha256(value.data).hexdigest()},{value.shape},{value.dtype})"
    return repr(value)


def key(graph: Graph, limits: Limits, donated: frozenset[int], adapter: str) -> str:
    """A digest of everything a lowered program depends on."""
    h = hashlib.sha256()
    # Specs and params print a symbol by its name: its maximum, which sizes the buffers, is a part of its own.
    symbols = repr([(d.name, d.max) for d in graph.symbols])
    for part in (MAGIC.decode(), _source_digest(), adapter, repr(limits), repr(sorted(donated)), str(graph.in_tree),
                 str(graph.out_tree), repr(graph.inputs), repr(graph.outputs), repr(graph.captures), symbols):
        h.update(part.encode() + b"\0")
    for node in graph.nodes:
        params = ",".join(f"{k}={_param(v)}" for k, v in node.params)
        h.update(f"{node.op}|{node.inputs}|{params}|{node.spec}\n".encode())
    return h.hexdigest()


def storable(graph: Graph) -> bool:
    """Whether a program of `graph` may be stored: not one calling Python on the host (a
    callback is code), in its bodies either."""
    return not any(ir.PRIMITIVES[node.op].host or not all(map(storable, ir.bodies(node.params)))
                   for node in graph.nodes)


def load(name: str, graph: Graph) -> Program | None:
    """The cached program under `name` (a `key` of `graph`), or None (a missing or untrustworthy entry)."""
    folder = directory()
    if folder is None:
        return None
    try:
        data = (folder / f"{name}.program").read_bytes()
    except OSError:
        return None
    digest, payload = data[len(MAGIC): len(MAGIC) + 64], data[len(MAGIC) + 64:]
    if not data.startswith(MAGIC) or _digest(name, payload) != digest:
        return None
    try:
        program = _decode(json.loads(payload), graph)
        return program if _well_formed(program, graph) else None
    except Exception:  # noqa: BLE001 - whatever a malformed entry breaks (JSON, a constructor's checks), it is rebuilt
        return None


def _digest(name: str, payload: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\0" + payload).hexdigest().encode()


def store(name: str, program: Program) -> None:
    """Write `program` under `name`, atomically; a cache that cannot be written is skipped."""
    folder = directory()
    if folder is None:
        return
    try:
        payload = json.dumps(_encode(program, program.graph), separators=(",", ":")).encode()
    except TypeError:  # a value the format has no place for: the program is not cached
        return

    def write(f: BinaryIO) -> None:
        f.write(MAGIC + _digest(name, payload) + payload)

    try:
        write_atomically(folder / f"{name}.program", write, stale=".*.program.*.tmp")
    except OSError:
        pass


def _tag(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _encode(value: Any, graph: Graph) -> Any:
    """`value` as JSON; `graph`'s structures (`in_tree`, `out_tree`) are referred to, not written."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) is tuple:
        return [_encode(v, graph) for v in value]
    if type(value) is bytes:
        return {"bytes": base64.b64encode(value).decode()}
    if isinstance(value, TreeDef) and value in (graph.in_tree, graph.out_tree):
        return {"tree": "in" if value == graph.in_tree else "out"}
    if type(value).__module__ in _MODULES:
        if isinstance(value, enum.Enum):
            return {"enum": _tag(type(value)), "value": value.value}
        if dataclasses.is_dataclass(value):
            fields = {f.name: _encode(getattr(value, f.name), graph) for f in dataclasses.fields(value) if f.init}
            return {"dataclass": _tag(type(value)), "fields": fields}
    raise TypeError(f"a {type(value).__name__} cannot be cached")


def _decode(value: Any, graph: Graph) -> Any:
    """The value `_encode` wrote; structures are `graph`'s. Malformed input raises."""
    if isinstance(value, list):
        return tuple(_decode(v, graph) for v in value)
    if not isinstance(value, dict):
        return value
    if value.keys() == {"bytes"}:
        return base64.b64decode(value["bytes"], validate=True)
    if value.keys() == {"tree"}:
        return {"in": graph.in_tree, "out": graph.out_tree}[value["tree"]]
    if value.keys() == {"enum", "value"}:
        return _named(value["enum"], enum.Enum)(value["value"])
    if value.keys() == {"dataclass", "fields"}:
        cls = _named(value["dataclass"], object)
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{value['dataclass']} is not a dataclass")
        fields = {k: _decode(v, graph) for k, v in value["fields"].items()}
        hints = _hints(cls)
        wrong = next((k for k, v in fields.items() if not _conforms(hints[k])(v)), None)
        if wrong is not None:
            raise TypeError(f"{cls.__name__}.{wrong} is not a {hints[wrong]}")
        return cls(**fields)
    raise ValueError(f"unknown value {sorted(value)}")


_hints = functools.cache(typing.get_type_hints)  # each class's field types, as declared


@functools.cache
def _conforms(hint: Any) -> Callable[[Any], bool]:
    """A test of whether a value is of the declared type `hint` (the forms the IR and program
    modules use), made once per hint: an entry's thousands of fields are tested with a few."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in (Any, Hashable):
        return lambda value: True
    if origin in (typing.Union, types.UnionType):
        tests = [_conforms(a) for a in args]
        return lambda value: any(test(value) for test in tests)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            each = _conforms(args[0])
            return lambda value: type(value) is tuple and all(map(each, value))
        tests = [_conforms(a) for a in args]
        return lambda value: type(value) is tuple and len(value) == len(tests) and \
            all(test(v) for test, v in zip(tests, value))
    if hint in (int, str, bytes, bool, type(None)):
        return lambda value: type(value) is hint
    cls = origin or hint
    return lambda value: isinstance(value, cls)


def _named(tag: str, base: type) -> type:
    """The class `module:name` of one of fgrad's IR or program modules, a subclass of `base`."""
    module, _, name = tag.partition(":")
    cls = getattr(_MODULES[module], name)
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise TypeError(f"{tag} is not a {base.__name__}")
    return cls


def _well_formed(p: Any, graph: Graph) -> bool:
    """Whether a decoded value is a Program for `graph` whose references stay within it (the runtime relies on
    them): its graph type-checks and has `graph`'s inputs and result specs, every buffer index and node index is
    in range, each kernel binds as many buffers as its WGSL declares (its textures among its reads), and results have
    buffers of their own."""
    if not isinstance(p, Program):
        return False
    g, n = p.graph, len(p.buffers)
    typecheck(g)
    nodes = [*g.inputs, *g.outputs, *(i for k in p.kernels for i in (*k.nodes, *k.roots))]
    buffers = [*p.inputs, *p.outputs, *(b for k in p.kernels for b in (*k.reads, *k.writes)),
               *(b for pair in p.copies for b in pair)]
    if not (all(0 <= i < len(g.nodes) for i in nodes) and all(0 <= b < n for b in buffers) and len(p.specs) == n):
        return False
    node = [graph.nodes[i] for i in (*graph.inputs, *graph.outputs)]
    return ([g.nodes[i] for i in g.inputs] == node[:len(graph.inputs)]
            and [g.nodes[i].spec for i in g.outputs] == [x.spec for x in node[len(graph.inputs):]]
            and [p.specs[b] for b in (*p.inputs, *p.outputs)] == [x.spec for x in node]
            and all(b.kind in ("input", "output", "constant", "scratch") and b.size >= 0 for b in p.buffers)
            and all(p.buffers[b].size >= p.specs[b].max_nbytes for b in range(n))
            and {s for k in p.kernels for e in k.groups for s in e.symbols} <= {d.name for d in p.symbols}
            and all(p.buffers[b].kind == "input" and p.buffers[b].index == k for k, b in enumerate(p.inputs))
            and len(set(p.outputs)) == len(p.outputs) and set(p.donated) <= set(range(len(g.inputs)))
            and all(_textures_bound(k) for k in p.kernels)
            and all(len(k.roots) == len(k.writes) and min(k.grid) >= 1 and len(k.groups) in (0, 1, 3)
                    for k in p.kernels))


def _textures_bound(k: Kernel) -> bool:
    """Whether kernel k's textures (Kernel.textures) each copy one of its buffers, in order of their bindings:
    in place of a read, or past the outputs for an output; and it binds as many buffers and textures as its
    WGSL declares."""
    bound, copies = len(k.reads) + len(k.writes), 0
    for n, source, width, height, texel in k.textures:
        extra = n == bound + copies and len(k.reads) <= source < bound
        if not ((n == source < len(k.reads) or extra) and min(width, height) >= 1 and texel in (1, 4)):
            return False
        copies += extra
    bindings = [int(b) for b in re.findall(r"@binding\((\d+)\)", k.wgsl)]
    return list(k.textures) == sorted(k.textures) and sorted(bindings) == list(range(bound + copies + k.sized))

