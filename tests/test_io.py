"""Checkpoints (fgrad/io.py): bit-exact round trips of every pytree kind, values refused rather than changed,
`like` checked leaf by leaf, damaged and malformed files refused, atomic saves, no leftover temporary files."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import time
from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad import nn, optim
from fgrad.pytree import flatten, tree_map

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

Moments = namedtuple("Moments", "mu nu")


@dataclasses.dataclass
class Layer:
    w: Any
    b: Any = None


def _state():
    params = nn.init_gpt(np.random.default_rng(0), nn.GPTConfig(vocab=7, context=4, width=8, heads=2, layers=2))
    return {"params": params, "opt_state": optim.adam_init(params), "mask": np.array([True, False])}


def _same(a: Any, b: Any) -> None:
    """Equal structures (container types included) and bit-equal leaves of equal dtype."""
    (la, ta), (lb, tb) = flatten(a), flatten(b)
    assert ta == tb, (ta, tb)
    for u, v in zip(la, lb):
        assert u.dtype == v.dtype and u.shape == v.shape and u.tobytes() == v.tobytes()


def test_checkpoint_round_trip_is_bit_exact(tmp_path):
    state = _state()
    path = tmp_path / "model.ckpt"
    fg.save(path, state)
    _same(fg.load(path, like=state), state)


def test_checkpoint_of_device_arrays(tmp_path):
    exe = fg.compile(fg.trace(lambda a: {"double": a * 2.0, "n": fg.sum(a > 0)}, fg.spec((2, 3))))
    out = exe(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
    fg.save(tmp_path / "out.ckpt", out)
    back = fg.load(tmp_path / "out.ckpt")
    np.testing.assert_array_equal(back["double"], out["double"].numpy())
    assert back["n"].dtype == np.int32 and int(back["n"]) == 3
    _same(fg.load(tmp_path / "out.ckpt", like=out), {"double": out["double"].numpy(), "n": np.int32(3)})


# -- every pytree kind -----------------------------------------------------------------

def _kinds():
    f = np.arange(6, dtype=np.float32).reshape(2, 3)
    return {
        "moments": Moments(mu=f, nu=[np.int32(-4), np.array([True, False])]),
        "layer": Layer(w=f + 1, b=None),
        "nothing": None,
        "tuple": (f[0], (f[1],), ()),
        "empty": {"list": [], "dict": {}},
        "by_index": {0: f * 2, 1: f * 3, "1": f * 4, "a.b": f * 5},
    }


def test_every_pytree_kind_round_trips_with_like(tmp_path):
    tree = _kinds()
    fg.save(tmp_path / "kinds.ckpt", tree)
    back = fg.load(tmp_path / "kinds.ckpt", like=tree)
    _same(back, tree)
    assert type(back["moments"]) is Moments and type(back["layer"]) is Layer and back["nothing"] is None


def test_records_load_as_dicts_without_like(tmp_path):
    tree = _kinds()
    fg.save(tmp_path / "kinds.ckpt", tree)
    back = fg.load(tmp_path / "kinds.ckpt")
    as_dicts = {**tree, "moments": tree["moments"]._asdict(), "layer": dataclasses.asdict(tree["layer"])}
    _same(back, as_dicts)
    assert back["moments"]["nu"][0] == -4 and back["layer"]["b"] is None


@pytest.mark.parametrize("model, where, what", [
    pytest.param(lambda t: {**t, "moments": namedtuple("Other", "mu nu")(*t["moments"])}, "moments",
                 "expected Other(mu=*, nu=[*, *]), got Moments(mu=*, nu=[*, *])", id="record-class"),
    pytest.param(lambda t: {**t, "moments": dict(t["moments"]._asdict())}, "moments", "expected {'mu'", id="dict"),
    pytest.param(lambda t: {**t, "layer": (t["layer"].w, None)}, "layer", "expected (*, None), got Layer", id="tuple"),
    pytest.param(lambda t: {**t, "by_index": {**t["by_index"], 2: t["by_index"][0]}}, "by_index",
                 "expected {0: *, 1: *, 2: *, '1': *, 'a.b': *}", id="int-key"),
])
def test_like_with_other_containers_names_the_first_difference(tmp_path, model, where, what):
    tree = _kinds()
    fg.save(tmp_path / "kinds.ckpt", tree)
    with pytest.raises(fg.CheckpointError, match=rf"does not match the model at {where} \(") as e:
        fg.load(tmp_path / "kinds.ckpt", like=model(tree))
    assert what in str(e.value)


def test_dict_keys_that_json_cannot_hold_exactly_are_refused(tmp_path):
    with pytest.raises(fg.CheckpointError, match=r"save: the dict at params.layers has the key \(1, 2\) \(tuple\); "
                                                 r"checkpoints store str and int keys at test_io.py:\d+"):
        fg.save(tmp_path / "m.ckpt", {"params": {"layers": {(1, 2): np.ones(2)}}})
    assert list(tmp_path.iterdir()) == []


# -- values are stored as fgrad computes them, or refused ---------------------------------------

@pytest.mark.parametrize("value, stored", [
    pytest.param(np.array([2**40 + 5]), "int32", id="int64-large"),
    pytest.param(np.array([0, -2**31 - 1]), "int32", id="int64-below"),
    pytest.param(np.array([2**32], np.uint64), "uint32", id="uint64"),
    pytest.param(2**40, "int32", id="python-int"),
])
def test_integers_outside_their_stored_type_are_refused_naming_the_leaf(tmp_path, value, stored):
    def save():
        fg.save(tmp_path / "m.ckpt", {"opt": {"step": value}, "w": np.ones(2, np.float32)})

    with pytest.raises(fg.CheckpointError, match=r"save: the leaf at opt.step \((int|uint)\d+\) holds values from "
                                                 rf"-?\d+ to \d+, outside {stored}") as e:
        save()
    assert f"test_io.py:{save.__code__.co_firstlineno + 1}" in str(e.value)
    assert list(tmp_path.iterdir()) == []  # nothing written, not even a temporary file


def test_integers_inside_their_stored_type_are_stored_exactly(tmp_path):
    values = np.array([-2**31, -1, 0, 2**31 - 1], np.int64)
    fg.save(tmp_path / "m.ckpt", {"i": values, "u": np.array([0, 2**32 - 1], np.uint64),
                                  "u32": np.array([2**31, 7], np.uint32)})
    back = fg.load(tmp_path / "m.ckpt")
    assert back["i"].dtype == np.int32 and back["i"].tolist() == values.tolist()
    assert back["u"].dtype == np.uint32 and back["u"].tolist() == [0, 2**32 - 1]
    assert back["u32"].dtype == np.uint32 and back["u32"].tolist() == [2**31, 7]


def test_float16_is_stored_as_float16(tmp_path):
    h = np.array([0.1, -65504.0, np.inf, np.nan, 6e-8], np.float16)  # a subnormal, the largest finite value
    fg.save(tmp_path / "m.ckpt", {"h": h, "a": fg.device_put(h)})
    back = fg.load(tmp_path / "m.ckpt", like={"h": h, "a": fg.spec(5, "f16")})
    for leaf in back.values():
        assert leaf.dtype == np.float16 and leaf.tobytes() == h.tobytes()


def test_float64_is_rounded_to_float32_but_never_overflows(tmp_path):
    x = np.array([0.1, -np.inf, np.nan, 3.4e38, 1e-50])
    fg.save(tmp_path / "m.ckpt", {"x": x})
    back = fg.load(tmp_path / "m.ckpt")["x"]
    assert back.dtype == np.float32 and back.tobytes() == x.astype(np.float32).tobytes()
    with pytest.raises(fg.CheckpointError, match=r"the leaf at y.0 \(float64\) holds finite values too large for "
                                                 r"float32"):
        fg.save(tmp_path / "m.ckpt", {"y": [np.array([1.0, 1e300])]})
    with pytest.raises(fg.CheckpointError, match=r"the leaf at z has dtype complex128"):
        fg.save(tmp_path / "m.ckpt", {"z": np.ones(2, np.complex128)})


# -- like: every leaf's shape and dtype ---------------------------------------------------------

@pytest.mark.parametrize("model, message", [
    pytest.param(fg.spec((2, 3), "i32"), "dtype float32 in the checkpoint, int32 in the model", id="i32-spec"),
    pytest.param(np.zeros((2, 3), np.int64), "dtype float32 in the checkpoint, int32 in the model", id="int64"),
    pytest.param(np.zeros((2, 3), bool), "dtype float32 in the checkpoint, bool in the model", id="bool"),
    pytest.param(fg.spec((3, 2)), r"shape \(2, 3\) in the checkpoint, \(3, 2\) in the model", id="shape"),
    pytest.param(1.0, r"shape \(2, 3\) in the checkpoint, \(\) in the model", id="number"),
    pytest.param("w", r"the model's leaf at layers.0.w is a str, not an array", id="not-an-array"),
])
def test_like_checks_every_leaf_dtype_and_shape(tmp_path, model, message):
    path = tmp_path / "m.ckpt"
    fg.save(path, {"layers": [{"w": np.ones((2, 3), np.float32), "b": np.zeros(3, np.int32)}]})
    with pytest.raises(fg.CheckpointError, match=rf"load: .*{message}") as e:
        fg.load(path, like={"layers": [{"w": model, "b": fg.spec(3, "i32")}]})
    assert str(path) in str(e.value) and "test_io.py:" in str(e.value)


@pytest.mark.parametrize("model", [
    pytest.param(fg.spec((2, 3)), id="spec"),
    pytest.param(np.zeros((2, 3)), id="float64"),
    pytest.param(np.zeros((2, 3), np.float32), id="float32"),
])
def test_like_accepts_arrays_specs_and_wider_numpy_types(tmp_path, model):
    path = tmp_path / "m.ckpt"
    fg.save(path, {"w": np.ones((2, 3)), "step": 7})
    back = fg.load(path, like={"w": model, "step": 0})
    assert back["w"].dtype == np.float32 and back["step"].dtype == np.int32 and int(back["step"]) == 7


def test_like_takes_every_dtype_save_takes(tmp_path):
    # save stores float64 as float32 and uint64 as uint32; the same tree is a valid `like`.
    tree = {"h": np.array([0.5, 2.0], np.float16), "u": np.array([1, 2], np.uint64), "b": np.bool_(True),
            "d": np.array([1.5]), "s": np.array([-3], np.int16)}
    fg.save(tmp_path / "m.ckpt", tree)
    back = fg.load(tmp_path / "m.ckpt", like=tree)
    assert [back[k].dtype for k in tree] == [np.float16, np.uint32, np.bool_, np.float32, np.int16]
    np.testing.assert_array_equal(back["h"], [0.5, 2.0])
    np.testing.assert_array_equal(back["u"], [1, 2])
    with pytest.raises(fg.CheckpointError, match=r"at h: dtype float16 in the checkpoint, uint16 in the model"):
        fg.load(tmp_path / "m.ckpt", like={**tree, "h": np.array([1, 2], np.uint16)})
    with pytest.raises(fg.CheckpointError, match=r"leaf at u is a ndarray of dtype complex64, not an array"):
        fg.load(tmp_path / "m.ckpt", like={**tree, "u": np.zeros(2, np.complex64)})


# -- damaged, malformed and foreign files ---------------------------------------------------------

def test_truncated_or_foreign_checkpoints_are_refused(tmp_path):
    path = tmp_path / "model.ckpt"
    fg.save(path, _state())
    data = path.read_bytes()
    (tmp_path / "short.ckpt").write_bytes(data[:-100])
    with pytest.raises(fg.CheckpointError, match=r"truncated or damaged"):
        fg.load(tmp_path / "short.ckpt")
    (tmp_path / "junk.ckpt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(fg.CheckpointError, match=r"is not an fgrad checkpoint"):
        fg.load(tmp_path / "junk.ckpt")


def test_every_flipped_bit_is_refused_naming_the_file(tmp_path):
    # The checksum covers the header too: a flip there could rename a key ('w' to 'v') or reshape
    # a leaf ([2, 3] to [3, 2]) and still parse.
    path, bad = tmp_path / "model.ckpt", tmp_path / "bad.ckpt"
    model = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "s": np.int32(3), "ok": np.array(True)}
    fg.save(path, model)
    data = path.read_bytes()
    for at in range(len(data)):
        for bit in (0, 1, 4):
            damaged = bytearray(data)
            damaged[at] ^= 1 << bit
            bad.write_bytes(bytes(damaged))
            for like in (None, model):
                with pytest.raises(fg.CheckpointError, match=str(bad)):
                    fg.load(bad, like=like)


def _with_header(header: Any, payload: bytes = b"\0" * 8) -> bytes:
    """A file with the right magic and a payload that matches its checksum, around `header`."""
    if isinstance(header, dict):
        header = {"nbytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest(), **header}
    text = json.dumps(header).encode()
    return b"FGRAD-CHECKPOINT 2\n" + len(text).to_bytes(8, "little") + text + payload


LEAF = {"dtype": "float32", "shape": [2], "offset": 0}
MALFORMED = [
    pytest.param(["a", "list"], id="header-is-a-list"),
    pytest.param({"leaves": [LEAF]}, id="no-structure"),
    pytest.param({"structure": "leaf"}, id="no-leaves"),
    pytest.param({"structure": "leaf", "leaves": [LEAF], "nbytes": "eight"}, id="nbytes-not-a-number"),
    pytest.param({"structure": "leaf", "leaves": [{**LEAF, "dtype": "float64"}]}, id="unknown-dtype"),
    pytest.param({"structure": "leaf", "leaves": [{**LEAF, "shape": [-2]}]}, id="negative-shape"),
    pytest.param({"structure": "leaf", "leaves": [{**LEAF, "shape": ["two"]}]}, id="shape-not-numbers"),
    pytest.param({"structure": "leaf", "leaves": [{**LEAF, "shape": [3]}]}, id="leaf-past-the-payload"),
    pytest.param({"structure": "leaf", "leaves": [{**LEAF, "offset": 99}]}, id="offset-past-the-payload"),
    pytest.param({"structure": {"list": ["leaf"]}, "leaves": [LEAF, LEAF]}, id="more-leaves-than-slots"),
    pytest.param({"structure": {"list": ["leaf", "leaf"]}, "leaves": [LEAF]}, id="fewer-leaves-than-slots"),
    pytest.param({"structure": {"set": ["leaf"]}, "leaves": [LEAF]}, id="unknown-container"),
    pytest.param({"structure": {"dict": [[["k"], "leaf"]]}, "leaves": [LEAF]}, id="unhashable-key"),
    pytest.param({"structure": {"dict": [["k", "leaf"], ["k", "leaf"]]}, "leaves": [LEAF, LEAF]}, id="repeated-key"),
    pytest.param({"structure": {"namedtuple": {"type": 3, "fields": [["x", "leaf"]]}}, "leaves": [LEAF]},
                 id="record-without-a-name"),
    pytest.param({"structure": {"list": "leaf", "tuple": "leaf"}, "leaves": [LEAF]}, id="two-kinds"),
    pytest.param({"structure": 5, "leaves": [LEAF]}, id="structure-is-a-number"),
]


@pytest.mark.parametrize("header", MALFORMED)
def test_malformed_headers_are_refused_naming_the_file(tmp_path, header):
    path = tmp_path / "odd.ckpt"
    path.write_bytes(_with_header(header))

    def load():
        return fg.load(path)

    with pytest.raises(fg.CheckpointError, match=r"has a damaged or malformed header") as e:
        load()
    assert str(path) in str(e.value) and f"test_io.py:{load.__code__.co_firstlineno + 1}" in str(e.value)


def test_a_well_formed_handmade_header_loads(tmp_path):
    """The malformed cases above differ from this one by one field each."""
    path = tmp_path / "ok.ckpt"
    path.write_bytes(_with_header({"structure": {"dict": [["k", "leaf"]]}, "leaves": [LEAF]}))
    _same(fg.load(path), {"k": np.zeros(2, np.float32)})


def test_version_1_checkpoints_still_load(tmp_path):
    payload = np.arange(2, dtype=np.float32).tobytes() + np.int32(5).tobytes()
    header = json.dumps({
        "structure": {"dict": {"w": "leaf", "opt": {"tuple": ["leaf", {"none": None}]}}},
        "leaves": [{"dtype": "float32", "shape": [2], "offset": 0}, {"dtype": "int32", "shape": [], "offset": 8}],
        "nbytes": 12, "sha256": hashlib.sha256(payload).hexdigest(),
    }).encode()
    path = tmp_path / "v1.ckpt"
    path.write_bytes(b"FGRAD-CHECKPOINT 1\n" + len(header).to_bytes(8, "little") + header + payload)
    _same(fg.load(path), {"w": np.arange(2, dtype=np.float32), "opt": (np.int32(5), None)})


def test_loading_into_another_model_names_the_first_difference(tmp_path):
    path = tmp_path / "model.ckpt"
    fg.save(path, _state())
    other = _state()
    other["params"]["blocks"] = other["params"]["blocks"][:1]

    def load():
        return fg.load(path, like=other)

    with pytest.raises(fg.CheckpointError, match=r"does not match the model at params.blocks") as e:
        load()
    assert f"test_io.py:{load.__code__.co_firstlineno + 1}" in str(e.value)
    wider = _state()
    wider["params"]["head"] = np.zeros((9, 7), np.float32)
    with pytest.raises(fg.CheckpointError,
                       match=r"at params.head: shape \(8, 7\) in the checkpoint, \(9, 7\) in the model"):
        fg.load(path, like=wider)


# -- where and how files are written ---------------------------------------------------------------

def test_interrupted_save_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "model.ckpt"
    old = _state()
    fg.save(path, old)
    import fgrad.io

    def dies_midway(f, arrays):
        f.write(arrays[0].tobytes()[:10])
        raise KeyboardInterrupt

    monkeypatch.setattr(fgrad.io, "_write_payload", dies_midway)
    new = tree_map(lambda a: a + 1, _state())
    with pytest.raises(KeyboardInterrupt):
        fg.save(path, new)
    _same(fg.load(path, like=old), old)
    assert [p.name for p in tmp_path.iterdir()] == ["model.ckpt"]  # no temporary file left


def test_save_creates_missing_folders(tmp_path):
    path = tmp_path / "runs" / "7" / "model.ckpt"
    fg.save(path, {"w": np.ones(2, np.float32)})
    _same(fg.load(path), {"w": np.ones(2, np.float32)})


@pytest.mark.parametrize("where, why", [
    pytest.param("a-file/model.ckpt", "a-file: File exists", id="folder-is-a-file"),
    pytest.param("a-file/deeper/model.ckpt", "a-file/deeper: Not a directory", id="deeper-under-a-file"),
    pytest.param("a-folder", "Is a directory", id="target-is-a-folder"),
])
def test_save_that_cannot_write_names_the_users_path(tmp_path, where, why):
    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "a-folder").mkdir()

    def save():
        fg.save(tmp_path / where, {"w": np.ones(2, np.float32)})

    with pytest.raises(fg.CheckpointError, match=rf"save: cannot write {tmp_path / where}: ") as e:
        save()
    assert why in str(e.value) and ".tmp" not in str(e.value)
    assert str(e.value).endswith(f"test_io.py:{save.__code__.co_firstlineno + 1}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "a-folder"]


def test_temporary_files_of_killed_saves_are_removed_by_the_next_save(tmp_path):
    import fcntl

    stale = tmp_path / ".model.ckpt.k1ll3d.tmp"  # as a save killed mid-write a moment ago leaves it
    live = tmp_path / ".model.ckpt.wr1t1ng.tmp"  # another save, under way: its writer holds the lock
    other = tmp_path / ".other.ckpt.k1ll3d.tmp"  # another checkpoint's: that one's next save removes it
    mine = tmp_path / "notes.tmp"  # not fgrad's
    for p in (stale, live, other, mine):
        p.write_bytes(b"partial")
    with open(live, "rb") as writer:
        fcntl.flock(writer, fcntl.LOCK_EX)
        fg.save(tmp_path / "model.ckpt", {"w": np.ones(2, np.float32)})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name, mine.name, "model.ckpt"])
    fg.save(tmp_path / "model.ckpt", {"w": np.ones(2, np.float32)})  # its writer is gone now
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([other.name, mine.name, "model.ckpt"])


def test_a_save_killed_mid_write_leaves_the_old_file_and_the_next_save_cleans_up(tmp_path):
    import signal
    import subprocess
    import sys

    path = tmp_path / "model.ckpt"
    big = np.full((1000, 1000), 1.0, np.float32)
    fg.save(path, {"w": big})
    writer = subprocess.Popen([sys.executable, "-c", "import fgrad, numpy as np, sys\n"
                               "while True: fgrad.save(sys.argv[1], {'w': np.full((1000, 1000), 2.0, np.float32)})",
                               str(path)])
    deadline = time.time() + 60
    while not list(tmp_path.glob(".model.ckpt.*.tmp")) and time.time() < deadline:
        time.sleep(0.01)
    writer.send_signal(signal.SIGKILL)
    assert time.time() < deadline, "the writer never started a save"
    writer.wait()
    assert float(fg.load(path)["w"][0, 0]) in (1.0, 2.0)
    fg.save(path, {"w": np.zeros(2, np.float32)})
    assert [p.name for p in tmp_path.iterdir()] == ["model.ckpt"]


def test_checkpoint_name_is_the_remat_transform():
    assert fg.checkpoint is fg.remat  # jax.checkpoint's name; saving to disk is fg.save
    assert importlib.util.find_spec("fgrad.checkpoint") is None
    import fgrad.io

    assert fg.save is fgrad.io.save and fg.load is fgrad.io.load and fg.CheckpointError is fgrad.io.CheckpointError


def test_numpy_files_are_jax_numpy_s(tmp_path):
    """fg.numpy.save and savez are NumPy's (an Array is saved by its value); load gives fgrad values,
    float64 as f32; fg.save and fg.load stay fgrad's checkpoints."""
    path = tmp_path / "x.npy"
    fg.numpy.save(path, fg.jit(lambda x: x * 2)(np.arange(3, dtype=np.float32)))
    got = fg.numpy.load(path)
    assert isinstance(got, fg.HostArray) and got.dtype == np.float32 and got.tolist() == [0.0, 2.0, 4.0]
    np.save(tmp_path / "y.npy", np.arange(3.0))
    assert fg.numpy.load(tmp_path / "y.npy").dtype == np.float32
    fg.numpy.savez(tmp_path / "z.npz", a=np.ones(2))
    assert fg.numpy.load(tmp_path / "z.npz")["a"].tolist() == [1.0, 1.0]
    assert fg.save is not fg.numpy.save and fg.save.__module__ == "fgrad.io"
