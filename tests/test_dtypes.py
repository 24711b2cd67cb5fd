"""The dtype table's rows beyond f32, i32 and bool: f16 and u32, end to end.

Promotion against JAX's documented table, astype between all five dtypes, exact literals,
the WGSL an f16 kernel gets, the clear error on an adapter without shader-f16, buffers of
2-byte items, gradients through f16, and the program cache. The op table (tests/op_table.py,
F16_CASES and U32_CASES) checks every primitive in both dtypes.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import fgrad as fg
from fgrad.ir import DType
from fgrad.lower import disk_cache, lower
from fgrad.lower.wgsl import literal
from fgrad.numpy import result_dtype
from op_table import EDGES, INT_EDGES, UINT_EDGES, convert_ref

pytestmark = pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")

ORDER = ("bool", "u32", "i32", "f16", "f32")
# jax.numpy's promotion table (docs.jax.dev, "Type promotion semantics") on fgrad's dtypes, with
# x64 off: u32 and i32 join at i8, which is i32 without x64. Rows and columns in ORDER, then the
# weakly typed Python int and float.
JAX_TABLE = {
    "bool": ("bool", "u32", "i32", "f16", "f32", "i32", "f32"),
    "u32": ("u32", "u32", "i32", "f16", "f32", "u32", "f32"),
    "i32": ("i32", "i32", "i32", "f16", "f32", "i32", "f32"),
    "f16": ("f16", "f16", "f16", "f16", "f32", "f16", "f16"),
    "f32": ("f32", "f32", "f32", "f32", "f32", "f32", "f32"),
}
VALUE = {name: np.ones(2, DType[name].np) for name in ORDER}


@pytest.mark.parametrize("a", ORDER)
def test_promotion_is_jax_s_table(a: str) -> None:
    got = tuple(str(result_dtype(VALUE[a], VALUE[b])) for b in ORDER)
    got += (str(result_dtype(VALUE[a], 3)), str(result_dtype(VALUE[a], 2.5)))
    assert got == JAX_TABLE[a]
    for b in ORDER:  # promotion is symmetric, and what the traced operators do
        assert result_dtype(VALUE[b], VALUE[a]) is result_dtype(VALUE[a], VALUE[b])
        if "bool" not in (a, b):
            graph = fg.trace(lambda x, y: x * y, VALUE[a], VALUE[b])
            assert str(graph.out_specs[0].dtype) == JAX_TABLE[a][ORDER.index(b)]


def test_numpy_scalars_are_strong_and_python_ints_wrap_as_jax_s_i32() -> None:
    u, h = VALUE["u32"], VALUE["f16"]
    assert result_dtype(h, np.float64(2.0)) is DType.f32  # a NumPy float64 is f32, strongly typed
    assert result_dtype(u, np.int32(2)) is DType.i32
    assert result_dtype(3, 2.5) is DType.f32 and result_dtype(3) is DType.i32
    np.testing.assert_array_equal(fg.add(u, -1), [0, 0])  # -1 is JAX's i32, converted (wrapped) to u32
    np.testing.assert_array_equal(fg.add(u, 2**32 - 2), [2**32 - 1] * 2)
    with pytest.raises(fg.DTypeError, match=r"add: the integer 4294967296 does not fit u32 "
                                            r"\(-2147483648\.\.4294967295\)"):
        fg.add(u, 2**32)


DTYPES = [DType[name] for name in ORDER]
SOURCES = {DType.f32: EDGES, DType.f16: EDGES, DType.i32: INT_EDGES, DType.u32: UINT_EDGES,
           DType.bool: np.array([True, False, True])}


@pytest.mark.parametrize("first, second", list(itertools.product(DTYPES, DTYPES)),
                         ids=lambda d: str(d))
def test_astype_round_trips(first: DType, second: DType) -> None:
    """x -> first -> second for every pair, NaN, infinities and values out of range included:
    float -> integer truncates and saturates (NaN gives 0), integer -> integer wraps (as XLA)."""
    x = SOURCES[first]
    with np.errstate(over="ignore"):
        x = x.astype(first.np)
    graph = fg.trace(lambda v: fg.astype(fg.astype(v * 1 if first is not DType.bool else v, second), first), x)
    want = convert_ref(str(first.np))(convert_ref(str(second.np))(x))
    got = fg.interpret(graph, x)
    assert got.dtype == first.np
    np.testing.assert_array_equal(got, want)
    if not {first, second} & {DType.f16}:  # f16 runs where the adapter has shader-f16 (tests/test_runtime.py)
        np.testing.assert_array_equal(fg.compile(graph)(x).numpy(), want)


def test_literals_are_exact_in_their_dtype() -> None:
    assert literal(0.1, DType.f16) == "0.0999755859375h"  # 0.1 rounded to f16, written exactly
    assert literal(0.1, DType.f32) == "0.10000000149011612f"
    assert literal(70000.0, DType.f16) == "f16(bitcast<f32>(0x7f800000u))"  # inf: past f16's range
    assert literal(-np.inf, DType.f32) == "bitcast<f32>(0xff800000u)"
    assert literal(np.nan, DType.f16) == "f16(bitcast<f32>(0x7fc00000u))"
    assert literal(-np.inf, DType.u32) == "0u" and literal(np.inf, DType.u32) == "4294967295u"
    assert literal(-np.inf, DType.i32) == "i32(-2147483648)" and literal(7, DType.u32) == "7u"
    assert literal(6e-8, DType.f16) == "5.960464477539063e-08h"  # the least subnormal


def _text(fn, *args) -> str:
    return "\n".join(k.wgsl for k in lower(fg.trace(fn, *args)).kernels)


def test_f16_kernels_enable_f16_and_compute_special_functions_in_f32() -> None:
    h = fg.spec((3, 5), "f16")
    text = _text(lambda x: fg.sum(fg.exp(x) + 0.1, axis=1), h)
    lines = text.splitlines()
    assert lines[0].startswith("// fgrad: ") and lines[1] == "enable f16;"
    assert "array<f16>" in text and "0.0999755859375h" in text
    assert re.search(r"let (v\d+) = f32\(v\d+\);\n +let v\d+ = f16\(exp_f32\(\1\)\);", text)  # exp in f32, rounded once
    assert "var a" in text and ": f32 = 0.0f;" in text  # the sum accumulates in f32
    assert "enable f16;" not in _text(lambda x: x * 2.0, fg.spec(3)) + _text(lambda x: x + 1, fg.spec(3, "u32"))


def test_f16_on_an_adapter_without_shader_f16_is_a_compile_error_naming_both() -> None:
    device = fg.default_device()
    if "shader-f16" in device.device.features:
        pytest.skip(f"{device.name} has shader-f16: the op table runs f16 there")

    def f(x):
        return fg.exp(x) * 2.0

    graph = fg.trace(f, fg.spec(3, "f16"))

    def build():
        return fg.compile(graph)

    with pytest.raises(fg.CompileError, match=r"compile: input x f16\[3\] computes f16 values, whose WGSL needs the "
                                              r"adapter feature 'shader-f16'") as e:
        build()
    assert device.name in str(e.value) and "(FGRAD_ADAPTER)" in str(e.value)
    # Storage alone needs no shader: f16 values still travel to and from the device.
    h = np.array([0.1, -2.5, 65504.0], np.float16)
    assert fg.device_put(h).numpy().tobytes() == h.tobytes()


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_buffers_of_two_byte_items_are_whole_words(size: int) -> None:
    h = (np.arange(size) * 0.5 - 1).astype(np.float16)
    program = lower(fg.trace(lambda x: x * h, h))
    assert all(b.size % 4 == 0 and b.size >= 2 * size for b in program.buffers)
    assert all(len(b.data) % 4 == 0 for b in program.buffers if b.kind == "constant")
    a = fg.device_put(h)
    assert a.dtype is fg.f16 and a.numpy().dtype == np.float16 and a.numpy().tobytes() == h.tobytes()
    np.testing.assert_array_equal(a.copy().numpy(), h)


def test_u32_runs_on_any_adapter_and_wraps() -> None:
    u = np.array([0, 1, 2**31, 2**32 - 1], np.uint32)
    a = fg.device_put(u)
    assert a.dtype is fg.u32
    np.testing.assert_array_equal((a + 1).numpy(), u + np.uint32(1))
    np.testing.assert_array_equal((-a).numpy(), -u)
    np.testing.assert_array_equal(fg.jit(lambda x: fg.sum(x * x))(a).numpy(), np.sum(u * u, dtype=np.uint32))
    with pytest.raises(fg.InputError, match="outside the u32 range"):
        fg.jit(lambda x: x + 1)(np.array([-1, 2**32], np.int64).astype(np.uint64))


def test_f16_eager_functions_keep_f16() -> None:
    h = np.array([0.5, 1.5, -2.0], np.float16)
    for out in (fg.exp(h), fg.softmax(h), fg.mean(h), h / 3, fg.where(h > 0, h, 0.25), fg.gelu(h)):
        assert out.dtype == np.float16
    assert fg.exp(np.array([1, 2], np.uint32)).dtype == np.float32  # integers compute in the default float


def test_gradients_of_f16_parameters_are_f16_and_check_against_float64() -> None:
    w = np.array([0.5, -1.25, 2.0], np.float16)

    def loss(w, x):
        return fg.sum(fg.tanh(w * x) ** 2)

    x = np.array([1.0, 0.5, -0.25], np.float32)
    grad = fg.grad(loss)(w, x)
    assert grad.dtype == np.float16
    w64, x64 = w.astype(np.float64), x.astype(np.float64)
    want = 2 * np.tanh(w64 * x64) * (1 - np.tanh(w64 * x64) ** 2) * x64
    np.testing.assert_allclose(grad, want, rtol=4e-3, atol=1e-3)
    fg.check_grads(loss, (w, x))  # finite differences in float64, where f16 values are not rounded
    fg.check_grads(lambda w: fg.sum(fg.exp(w) * w), (w,), order=2)


def test_programs_with_f16_and_u32_round_trip_through_the_disk_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FGRAD_CACHE_DIR", str(tmp_path))
    table = np.array([0.1, 2.5, -3.0], np.float16)

    def f(h, u):
        return fg.take(table, fg.minimum(u, 2)) * h, u + np.array([7, 2**32 - 1, 0], np.uint32)

    graph = fg.trace(f, fg.spec(3, "f16"), fg.spec(3, "u32"))
    program = lower(graph)
    name = disk_cache.key(graph, program_limits := fg.lower.Limits(), frozenset(), "test adapter")
    disk_cache.store(name, program)
    assert disk_cache.load(name, graph) == lower(graph, program_limits)


def test_optimizers_keep_each_parameter_s_dtype() -> None:
    """The state is f32 and the update computed in f32; an f16 parameter stays f16, so a step's
    outputs have its inputs' specs (a compiled loop donates and reuses them)."""
    params = {"w": np.array([1.0, -0.5, 2.0], np.float16), "b": np.zeros(3, np.float32)}
    x = np.array([0.5, 1.0, -1.5], np.float32)

    def loss(p, x):
        return fg.sum((p["w"] * x + p["b"]) ** 2)

    for make, init in ((fg.adam_step, fg.adam_init), (fg.sgd_step, fg.sgd_init)):
        step = make(fg.trace(loss, params, x), lr=0.1)
        state = init(params)
        new_params, new_state, _ = fg.interpret(step, params, state, x)
        assert new_params["w"].dtype == np.float16 and new_params["b"].dtype == np.float32
        assert [s.dtype for s in step.out_specs[:-1]] == [s.dtype for s in step.in_specs[:-1]]
        assert not np.array_equal(new_params["w"], params["w"])


def test_f16_mean_sums_and_divides_in_f32_rounding_once() -> None:
    """As jnp.mean: a sum of f16 values past f16's range (65504) still has a mean that fits."""
    h = np.full((2, 8), 16000.0, np.float16)
    want = np.full(2, 16000.0, np.float16)
    for out in (fg.mean(h, axis=1), fg.interpret(fg.trace(lambda x: fg.mean(x, axis=1), h), h)):
        assert out.dtype == np.float16
        np.testing.assert_array_equal(out, want)


def test_u32_abs_through_wgsl_is_the_identity_past_2_31() -> None:
    u = np.array([1, 2**31, 3_000_000_000, 2**32 - 1], np.uint32)
    np.testing.assert_array_equal(fg.jit(fg.abs)(u).numpy(), u)


@pytest.mark.parametrize("dtype, numpy", [(DType.f32, np.float32), (DType.f16, np.float16), (DType.i32, np.int32),
                                          (DType.u32, np.uint32), (DType.bool, np.bool_), (DType.i8, np.int8),
                                          (DType.u8, np.uint8), (DType.i16, np.int16), (DType.u16, np.uint16)])
def test_a_dtype_is_what_numpy_takes_as_a_jax_array_s_is(dtype, numpy):
    """`x.dtype` of a compiled result compares, converts and is taken as NumPy's, as a jax.Array's."""
    got = fg.jit(lambda x: x)(np.zeros(2, numpy)).dtype
    assert got is dtype
    assert got == numpy and numpy == got and got == np.dtype(numpy) and np.dtype(numpy) == got
    assert got == np.dtype(numpy).name and got == dtype.value
    assert np.dtype(got) == np.dtype(numpy) and np.zeros(3, got).dtype == np.dtype(numpy)
    assert got.kind == np.dtype(numpy).kind
    assert np.issubdtype(got, np.floating) == (np.dtype(numpy).kind == "f")
    assert all(got != other for other in (np.float64, np.int64, np.int8, None, "f64", 3) if other != numpy)
    assert {got: 1}[dtype] == 1 and hash(got) == hash(dtype)
    assert {np.dtype(numpy): 1}[got] == 1 and got in {np.dtype(numpy)}  # keyed by NumPy's dtype, as an eager value's
    assert fg.make_jaxpr(lambda x: {np.dtype(numpy): x}[x.dtype])(np.zeros(2, numpy)).out_specs[0].dtype is got
    assert got.itemsize == np.dtype(numpy).itemsize and got.name == np.dtype(numpy).name
    if np.dtype(numpy).kind == "f":
        assert np.finfo(got).eps == np.finfo(numpy).eps


def test_fg_dtypes_is_jax_dtypes():
    import jax

    d = fg.dtypes
    assert d.float0 == jax.dtypes.float0
    assert fg.grad(lambda x, n: x * n, argnums=1, allow_int=True)(np.float32(1), np.int32(2)).dtype == d.float0
    assert [d.issubdtype(a, b) for a, b in [(d.float0, np.floating), (d.float0, d.float0), (np.float32, d.float0),
                                             (np.float32, np.floating), (np.int32, np.floating)]] == \
        [jax.dtypes.issubdtype(a, b) for a, b in [(jax.dtypes.float0, np.floating), (jax.dtypes.float0,
                                                   jax.dtypes.float0), (np.float32, jax.dtypes.float0),
                                                  (np.float32, np.floating), (np.int32, np.floating)]]
    for dtype in (np.float64, np.float32, np.float16, "bfloat16", np.int64, np.int32, np.uint32, np.int16, np.uint16,
                  np.int8, np.uint8, np.bool_):
        assert d.canonicalize_dtype(dtype) == jax.dtypes.canonicalize_dtype(dtype)
        assert d.itemsize_bits(dtype) == jax.dtypes.itemsize_bits(jax.dtypes.canonicalize_dtype(dtype))
    assert d.canonicalize_dtype(np.int16) == jax.dtypes.canonicalize_dtype(np.int16) == np.int16
    for args in [(1, 2.0), (np.int32(1), np.float16(1)), (np.ones(2, np.uint32), 1), (True,), (np.int32(1), 2.0),
                 (True, 1), (np.float16(1), 1.0), (np.int32, 1.0)]:
        assert d.result_type(*args, return_weak_type_flag=True) == jax.dtypes.result_type(
            *args, return_weak_type_flag=True), args
    for x in (1.0, 2, True, np.float16(1), np.uint32(3), fg.device_put(np.ones(2, np.int32)), np.float32, "int32",
              np.dtype(np.bool_)):
        assert d.scalar_type_of(x) is jax.dtypes.scalar_type_of(np.asarray(x) if isinstance(x, fg.Array) else x)
    with pytest.raises(fg.DTypeError, match="canonicalize_dtype: unsupported dtype complex64"):
        d.canonicalize_dtype(np.complex64)
