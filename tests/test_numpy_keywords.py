"""The keyword parameters of fgrad.numpy's functions against jax.numpy's signatures: matmul's
precision and preferred_element_type, take's positional order, reshape's and ravel's order,
asarray's and astype's copy and device, the creation functions' device, take_along_axis's
wrap_negative_indices. Each form runs eagerly and traced (through interpret) and must give JAX's
values, dtypes and shapes; a device places eager values on it; the forms JAX refuses, and values
no parameter takes, raise fgrad errors naming the function and the user's line."""

from __future__ import annotations

import inspect
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, same, table_params

fnp = fg.numpy
draws = Draws(5)
F, F6, H = draws.f32(2, 3), draws.f32(6), draws.f32(2, 3).astype(np.float16)
I = draws.i32(2, 3)
IDX = np.int32([2, -1, 0, 7])  # one out of range: the modes differ there
ALONG = np.int32([[0, -1, 2], [-3, 1, 5]])

SIGNED = ["matmul", "take", "reshape", "ravel", "asarray", "astype", "zeros", "ones", "empty", "full", "zeros_like",
          "ones_like", "empty_like", "full_like", "arange", "linspace", "eye", "take_along_axis", "dot", "tensordot",
          "broadcast_to", "repeat", "bincount", "percentile", "isposinf", "isneginf"]


@pytest.mark.parametrize("name", SIGNED)
def test_signatures_are_jax_numpy_s(name):
    """Every parameter of jax.numpy's function is fgrad's, at the same position and of the same kind,
    so any call JAX takes binds the same way."""
    ours = list(inspect.signature(getattr(fnp, name)).parameters.values())
    theirs = list(inspect.signature(getattr(jnp, name)).parameters.values())
    assert [(p.name, p.kind) for p in ours] == [(p.name, p.kind) for p in theirs], name
    for p, q in zip(ours, theirs):
        assert p.default == q.default or (name, p.name, q.default) in NEWER_DEFAULTS, f"{name}: {p.name}"


# Defaults JAX changed between versions, with the one before: fgrad's are the newer ones.
NEWER_DEFAULTS = {("take_along_axis", "wrap_negative_indices", None)}  # JAX 0.10's None, True from 0.11


def test_take_along_axis_none_is_jax_0_10_s_default():
    """None wraps negative indices unless the mode promises them in bounds, as JAX 0.10's default."""
    a = np.float32([[1, 2, 3]])
    assert fnp.take_along_axis(a, np.int32([[-1]]), 1, "clip", wrap_negative_indices=None).tolist() == [[3.0]]
    assert fnp.take_along_axis(a, np.int32([[-1]]), 1, "promise_in_bounds",
                               wrap_negative_indices=None).tolist() == [[1.0]]


def test_array_and_einsum_take_jax_numpy_s_keywords():
    ours = inspect.signature(fnp.array).parameters
    assert {"copy", "order", "ndmin", "device", "out_sharding"} <= set(ours)
    assert ours["device"].kind is ours["out_sharding"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "out_sharding" in inspect.signature(fnp.einsum).parameters
    ours, theirs = (inspect.signature(m.linalg.tensordot).parameters for m in (fnp, jnp))
    assert list(ours) == list(theirs)


def _wraps(m, a, i):
    """take_along_axis of negative and out-of-range indices, with each mode and wrap_negative_indices."""
    return [m.take_along_axis(a, i, 1, wrap_negative_indices=True),
            m.take_along_axis(a, i, 1, wrap_negative_indices=False),
            m.take_along_axis(a, i, 1, "clip", wrap_negative_indices=False),
            m.take_along_axis(a, i, 1, "fill", -5, wrap_negative_indices=False),
            m.take_along_axis(a, i, 1, "clip")]


TABLE = [
    ("matmul-keywords", lambda a, b: fnp.matmul(a, b, precision=None, preferred_element_type=None, out_sharding=None),
     lambda a, b: jnp.matmul(a, b, precision=None, preferred_element_type=None, out_sharding=None), [(F, F.T)]),
    ("matmul-precision", lambda a, b: fnp.matmul(a, b, precision="highest"),
     lambda a, b: jnp.matmul(a, b, precision="highest"), [(F, F.T), (F[0], F.T)]),
    ("matmul-preferred", lambda a, b: fnp.matmul(a, b, preferred_element_type=np.float32),
     lambda a, b: jnp.matmul(a, b, preferred_element_type=np.float32), [(H, H.T), (I, I.T), (F[0], F.T)]),
    ("matmul-bool", lambda a, b: [fnp.matmul(a, b), fnp.matmul(a, b, preferred_element_type=np.int32)],
     lambda a, b: [jnp.matmul(a, b), jnp.matmul(a, b, preferred_element_type=np.int32)], [(I > 0, (I > 0).T)]),
    ("take-positional",
     lambda a, i: [fnp.take(a, i, 1, None, "clip"), fnp.take(a, i, None, None, "fill", True, True, -2.0)],
     lambda a, i: [jnp.take(a, i, 1, None, "clip"), jnp.take(a, i, None, None, "fill", True, True, -2.0)],
     [(F, IDX)]),
    ("take-keywords", lambda a, i: fnp.take(a, i, axis=0, out=None, mode="fill", unique_indices=False,
                                            indices_are_sorted=False, fill_value=9),
     lambda a, i: jnp.take(a, i, axis=0, out=None, mode="fill", unique_indices=False, indices_are_sorted=False,
                           fill_value=9), [(I, IDX[:2])]),
    ("reshape-order", lambda a: [fnp.reshape(a, (3, 2), "F"), fnp.reshape(a, (-1, 2), order="F"),
                                 fnp.reshape(a, 6, order="F"), fnp.reshape(a, (3, 1, 2), order="C", copy=True),
                                 fnp.reshape(a, (2, 3), order="F", copy=False, out_sharding=None)],
     lambda a: [jnp.reshape(a, (3, 2), "F"), jnp.reshape(a, (-1, 2), order="F"), jnp.reshape(a, 6, order="F"),
                jnp.reshape(a, (3, 1, 2), order="C", copy=True),
                jnp.reshape(a, (2, 3), order="F", copy=False, out_sharding=None)],
     [(F,), (F6,), (I,)]),
    ("reshape-order-3d", lambda a: fnp.reshape(a, (4, 3, 2), order="F"),
     lambda a: jnp.reshape(a, (4, 3, 2), order="F"), [(draws.f32(2, 3, 4),)]),
    ("ravel-order", lambda a: [fnp.ravel(a, "F"), fnp.ravel(a, order="C", out_sharding=None)],
     lambda a: [jnp.ravel(a, "F"), jnp.ravel(a, order="C", out_sharding=None)], [(F,), (I,)]),
    ("method-reshape-order",  # traced, the Tensor method; eager, NumPy's
     lambda a: [fnp.asarray(a).reshape(3, 2, order="F"), fnp.asarray(a).reshape((6,), order="F")],
     lambda a: [a.reshape(3, 2, order="F"), a.reshape((6,), order="F")], [(F,)]),
    ("asarray-keywords", lambda a: [fnp.asarray(a, None, "K", copy=True), fnp.asarray(a, np.int32, None, copy=False),
                                    fnp.asarray(a, order=None, copy=None, device=None, out_sharding=None)],
     lambda a: [jnp.asarray(a, None, "K", copy=True), jnp.asarray(a, np.int32, None, copy=False),
                jnp.asarray(a, order=None, copy=None, device=None, out_sharding=None)], [(F,)]),
    ("astype-keywords",
     lambda a: [fnp.astype(a, np.int32, copy=True), fnp.astype(a, None), fnp.astype(a, "float16", copy=False)],
     lambda a: [jnp.astype(a, np.int32, copy=True), jnp.astype(a, None), jnp.astype(a, "float16", copy=False)],
     [(F,), (I,)]),
    ("creation-device-none", lambda a: [
        fnp.zeros(3, device=None, out_sharding=None), fnp.ones((2, 1), np.int32, device=None),
        fnp.empty(2, device=None), fnp.full(2, 7, device=None, out_sharding=None),
        fnp.zeros_like(a, device=None), fnp.ones_like(a, device=None, out_sharding=None),
        fnp.empty_like(a, device=None), fnp.full_like(a, 3, device=None), fnp.arange(4, device=None),
        fnp.linspace(0, 1, 5, device=None), fnp.eye(3, 2, 1, device=None),
        fnp.array([1, 2], device=None, out_sharding=None)],
     lambda a: [
         jnp.zeros(3, device=None, out_sharding=None), jnp.ones((2, 1), np.int32, device=None),
         jnp.empty(2, device=None), jnp.full(2, 7, device=None, out_sharding=None),
         jnp.zeros_like(a, device=None), jnp.ones_like(a, device=None, out_sharding=None),
         jnp.empty_like(a, device=None), jnp.full_like(a, 3, device=None), jnp.arange(4, device=None),
         jnp.linspace(0, 1, 5, device=None), jnp.eye(3, 2, 1, device=None),
         jnp.array([1, 2], device=None, out_sharding=None)], [(F,)]),
    ("take_along_axis-wrap", lambda a, i: _wraps(fnp, a, i), lambda a, i: _wraps(jnp, a, i), [(F, ALONG), (I, ALONG)]),
    ("out_sharding-none", lambda a, i: [
        fnp.dot(a, a.T, out_sharding=None), fnp.tensordot(a, a, 2, out_sharding=None),
        fnp.einsum("ij,kj->ik", a, a, out_sharding=None), fnp.broadcast_to(a[0], (2, 3), out_sharding=None),
        fnp.repeat(a, 2, 1, out_sharding=None), fnp.bincount(i, length=3, out_sharding=None),
        fnp.percentile(a, 30.0, 1, out_sharding=None), fnp.isposinf(a, None), fnp.isneginf(a, out=None),
        fnp.linalg.tensordot(a, a.T, axes=1, out_sharding=None)],
     lambda a, i: [
         jnp.dot(a, a.T, out_sharding=None), jnp.tensordot(a, a, 2, out_sharding=None),
         jnp.einsum("ij,kj->ik", a, a, out_sharding=None), jnp.broadcast_to(a[0], (2, 3), out_sharding=None),
         jnp.repeat(a, 2, 1, out_sharding=None), jnp.bincount(i, length=3, out_sharding=None),
         jnp.percentile(a, 30.0, 1, out_sharding=None), jnp.isposinf(a, None), jnp.isneginf(a, out=None),
         jnp.linalg.tensordot(a, a.T, axes=1, out_sharding=None)], [(F, np.int32([0, 2, 2, 1]))]),
    ("take_along_axis-flat", lambda a, i: fnp.take_along_axis(a, i, None, wrap_negative_indices=False),
     lambda a, i: jnp.take_along_axis(a, i, None, wrap_negative_indices=False), [(F, IDX)]),
]


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_matches_jax_numpy(ours, theirs, args, name):
    want = jax_call(theirs, *args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(ours(*args), want, f"{name} eager")
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        same(fg.interpret(fg.trace(ours, *arrays), *arrays), want, f"{name} traced")


def test_compiled_reshape_and_take_keywords():
    def ours(a, i):
        return fnp.reshape(a, (3, 2), order="F"), fnp.take(a, i, 1, None, "clip"), fnp.ravel(a, "F")

    def theirs(a, i):
        return jnp.reshape(a, (3, 2), order="F"), jnp.take(a, i, 1, None, "clip"), jnp.ravel(a, "F")

    same(fg.jit(ours)(F, IDX), jax_call(theirs, F, IDX), "compiled")


# ---------------------------------------------------------------------------
# device: eager values placed on it; traced ones where their program runs
# ---------------------------------------------------------------------------


def test_device_places_eager_values_on_it():
    device = fg.local_devices()[0]
    jdevice = jax.devices()[0]
    made = {
        "zeros": (fnp.zeros((2, 3), device=device), jnp.zeros((2, 3), device=jdevice)),
        "ones": (fnp.ones(3, np.int32, device=device), jnp.ones(3, np.int32, device=jdevice)),
        "empty": (fnp.empty(2, device=device), jnp.empty(2, device=jdevice)),
        "full": (fnp.full(2, 1.5, device=device), jnp.full(2, 1.5, device=jdevice)),
        "zeros_like": (fnp.zeros_like(I, device=device), jnp.zeros_like(I, device=jdevice)),
        "ones_like": (fnp.ones_like(F, device=device), jnp.ones_like(F, device=jdevice)),
        "empty_like": (fnp.empty_like(F, device=device), jnp.empty_like(F, device=jdevice)),
        "full_like": (fnp.full_like(I, 4, device=device), jnp.full_like(I, 4, device=jdevice)),
        "arange": (fnp.arange(1, 7, 2, device=device), jnp.arange(1, 7, 2, device=jdevice)),
        "linspace": (fnp.linspace(0, 1, 4, retstep=True, device=device),
                     jnp.linspace(0, 1, 4, retstep=True, device=jdevice)),
        "eye": (fnp.eye(3, k=-1, device=device), jnp.eye(3, k=-1, device=jdevice)),
        "array": (fnp.array([[1.0, 2.0]], device=device), jnp.array([[1.0, 2.0]], device=jdevice)),
        "asarray": (fnp.asarray(F, np.float16, device=device), jnp.asarray(F, np.float16, device=jdevice)),
        "astype": (fnp.astype(F, np.int32, device=device), jnp.astype(F, np.int32, device=jdevice)),
        "fftfreq": (fnp.fft.fftfreq(5, 0.5, device=device), jnp.fft.fftfreq(5, 0.5, device=jdevice)),
        "rfftfreq": (fnp.fft.rfftfreq(6, device=device), jnp.fft.rfftfreq(6, device=jdevice)),
    }
    for name, (ours, theirs) in made.items():
        for leaf in ours if isinstance(ours, tuple) else (ours,):
            assert isinstance(leaf, fg.Array) and leaf.device is device, f"{name}: {type(leaf).__name__}"
        same(ours, theirs, f"{name} on the device")
    traced = fg.trace(lambda a: fnp.add(fnp.zeros_like(a, device=device), fnp.asarray(a, device=device)), F)
    same(fg.interpret(traced, F), F, "traced with a device")
    same(fg.jit(lambda a: fnp.ones(3, device=device) + fnp.astype(a, np.float32, device=device))(F[0]), F[0] + 1,
         "compiled with a device")


# ---------------------------------------------------------------------------
# Refusals: an fgrad error naming the function and the user's line
# ---------------------------------------------------------------------------

REFUSALS = [
    (lambda: fnp.reshape(F, (3, 2), order="A"), fg.TraceError, "reshape: order 'A' is not supported"),
    (lambda: fnp.reshape(F, (3, 2), order="K"), fg.TraceError, "reshape: order 'K' is not supported"),
    (lambda: fnp.ravel(F, "K"), fg.TraceError, "ravel: reshape: order 'K' is not supported"),
    (lambda: fg.trace(lambda a: a.reshape(6, order="A"), F), fg.TraceError, "reshape: order 'A' is not supported"),
    (lambda: fnp.reshape(F, 6, copy="yes"), fg.TraceError, "reshape: copy must be True, False or None"),
    (lambda: fnp.reshape(F, 6, out_sharding="x"), fg.InputError, "reshape: expected a sharding"),
    (lambda: fnp.ravel(F, out_sharding="x"), fg.InputError, "ravel: reshape: expected a sharding"),
    (lambda: fnp.asarray(F, order="F"), fg.TraceError, "asarray: only order='K' is implemented"),
    (lambda: fnp.asarray(F, order="C"), fg.TraceError, "asarray: only order='K' is implemented"),
    (lambda: fnp.asarray(F, copy=1), fg.TraceError, "asarray: copy must be True, False or None"),
    (lambda: fnp.asarray(F, device="cpu"), fg.InputError, "asarray: device must be one of fg.local_devices"),
    (lambda: fnp.asarray(F, out_sharding="x"), fg.InputError, "asarray: expected a sharding"),
    (lambda: fnp.astype(F, np.int32, copy="x"), fg.TraceError, "astype: copy must be True, False or None"),
    (lambda: fnp.astype(F, "complex64"), fg.DTypeError, "astype: "),
    (lambda: fnp.astype(F, np.int32, device=jax.devices()[0]), fg.InputError, "astype: device must be one of fg.local_devices"),
    (lambda: fnp.zeros(3, device="gpu"), fg.InputError, "zeros: device must be one of fg.local_devices"),
    (lambda: fnp.ones(3, out_sharding=1), fg.InputError, "ones: expected a sharding"),
    (lambda: fnp.empty(3, device=0), fg.InputError, "empty: device must be one of fg.local_devices"),
    (lambda: fnp.full(3, 1.0, device=0), fg.InputError, "full: device must be one of fg.local_devices"),
    (lambda: fnp.zeros_like(F, device=0), fg.InputError, "zeros_like: device must be one of fg.local_devices"),
    (lambda: fnp.ones_like(F, out_sharding=0), fg.InputError, "ones_like: expected a sharding"),
    (lambda: fnp.empty_like(F, device=0), fg.InputError, "empty_like: device must be one of fg.local_devices"),
    (lambda: fnp.full_like(F, 1, device=0), fg.InputError, "full_like: device must be one of fg.local_devices"),
    (lambda: fnp.arange(3, device=0), fg.InputError, "arange: device must be one of fg.local_devices"),
    (lambda: fnp.arange(3, out_sharding=0), fg.InputError, "arange: expected a sharding"),
    (lambda: fnp.linspace(0, 1, 3, device=0), fg.InputError, "linspace: device must be one of fg.local_devices"),
    (lambda: fnp.eye(3, device=0), fg.InputError, "eye: device must be one of fg.local_devices"),
    (lambda: fnp.array([1], device=0), fg.InputError, "array: device must be one of fg.local_devices"),
    (lambda: fnp.fft.fftfreq(4, device=0), fg.InputError, "fftfreq: device must be one of fg.local_devices"),
    (lambda: fnp.array([1], out_sharding=0), fg.InputError, "array: expected a sharding"),
    (lambda: fnp.array([1], copy="no"), fg.TraceError, "array: copy must be True, False or None"),
    (lambda: fnp.matmul(F, F.T, out_sharding="x"), fg.InputError, "matmul: expected a sharding"),
    (lambda: fnp.matmul(F, F.T, preferred_element_type="complex64"), fg.DTypeError, "matmul: "),
    (lambda: fnp.matmul(F, F), fg.ShapeError, r"matmul: inner dimensions differ: \(2, 3\) @ \(2, 3\)"),
    (lambda: fnp.take(F, IDX, 0, F), fg.InputError, "take: out= is not supported"),
    (lambda: fnp.dot(F, F.T, out_sharding="x"), fg.InputError, "dot: expected a sharding"),
    (lambda: fnp.tensordot(F, F, out_sharding="x"), fg.InputError, "tensordot: expected a sharding"),
    (lambda: fnp.einsum("ij->", F, out_sharding="x"), fg.InputError, "einsum: expected a sharding"),
    (lambda: fnp.broadcast_to(F, (2, 3), out_sharding="x"), fg.InputError, "broadcast_to: expected a sharding"),
    (lambda: fnp.repeat(F, 2, out_sharding="x"), fg.InputError, "repeat: expected a sharding"),
    (lambda: fnp.bincount(I, length=3, out_sharding="x"), fg.InputError, "bincount: expected a sharding"),
    (lambda: fnp.percentile(F, 5.0, out_sharding="x"), fg.InputError, "percentile: expected a sharding"),
    (lambda: fnp.isposinf(F, F), fg.InputError, "isposinf: out= is not supported"),
    (lambda: fnp.isneginf(F, out=F), fg.InputError, "isneginf: out= is not supported"),
    (lambda: fnp.take(F, IDX, 0, None, "wrap"), fg.TraceError, "take: mode 'wrap' is not supported"),
    (lambda: fnp.take_along_axis(F, ALONG, 1, wrap_negative_indices="no"), fg.TraceError,
     "take_along_axis: wrap_negative_indices must be True or False"),
]


@pytest.mark.parametrize("bad, error, message", [pytest.param(*row, id=f"{k}-{row[2][:30]}")
                                                 for k, row in enumerate(REFUSALS)])
def test_refusals_name_the_function_and_the_line(bad, error, message):
    with pytest.raises(error, match=f"^{message}") as e:
        bad()
    assert e.value.site == f"test_numpy_keywords.py:{bad.__code__.co_firstlineno}", e.value
