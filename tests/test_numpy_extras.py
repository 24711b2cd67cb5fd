"""The rest of the jax.numpy surface against jax.numpy itself: constants and dtype questions,
fg.numpy.linalg, and the elementwise, shape, reduction, index and searching functions beyond the
first hour. Each function runs eagerly and traced (through interpret) on many inputs, and must
give JAX's values, dtypes and shapes; the forms fgrad refuses name the function and the user's line."""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, leaves, over_arrays, same, table_params

L = fg.numpy.linalg
nan, inf = np.nan, np.inf
draws = Draws(7)
rng, f32, i32 = draws.rng, draws.f32, draws.i32


# ---------------------------------------------------------------------------
# Constants, dtypes and what describes a value
# ---------------------------------------------------------------------------


def test_constants_are_jax_numpy_s():
    for name in ("pi", "e", "inf", "euler_gamma"):
        assert getattr(fg, name) == getattr(jnp, name), name
    assert math.isnan(fg.nan) and fg.newaxis is None and jnp.newaxis is None


@pytest.mark.parametrize("name, dtype", [
    ("float32", fg.f32), ("float16", fg.f16), ("int32", fg.i32), ("uint32", fg.u32), ("bool_", fg.DType.bool),
    ("bool", fg.DType.bool), ("single", fg.f32),
    ("float64", fg.f32), ("int64", fg.i32), ("uint64", fg.u32),  # x64 off, as jax.numpy's default
    ("double", fg.f32), ("float_", fg.f32), ("int_", fg.i32), ("uint", fg.u32),
])
def test_dtype_names_are_fgrad_dtypes(name, dtype):
    named = getattr(fg, name)
    assert named is dtype
    assert fg.zeros(3, dtype=named).dtype == jnp.zeros(3, dtype=getattr(jnp, name)).dtype
    counted = [fg.arange(3, dtype=named)] if named is not fg.DType.bool else []  # iota counts in numbers only
    for made in (*counted, fg.ones((2,), named), fg.full(2, 1, named), fg.eye(2, dtype=named),
                 fg.astype(np.ones(2), named), fg.asarray([1, 0], named), fg.zeros_like(np.ones(2), named),
                 fg.sum(np.ones(2), dtype=named), fg.cumsum(np.ones(2), dtype=named), fg.array([1, 2], named),
                 fg.one_hot(np.int32([1]), 2, dtype=named), fg.tri(2, dtype=named), fg.identity(2, named)):
        assert made.dtype == dtype.np, name
    traced = fg.trace(lambda x: fg.astype(x, named), np.ones(2, np.float32))
    assert traced.out_specs[0].dtype is dtype


JAX_DTYPE = {fg.f32: jnp.float32, fg.f16: jnp.float16, fg.i32: jnp.int32, fg.u32: jnp.uint32,
             fg.DType.bool: jnp.bool_}


def test_dtype_questions_are_jax_numpy_s():
    names = ["float32", "float16", "int32", "uint32", "bool_"]
    for a in names:
        assert fg.dtype(a if a != "bool_" else "bool") is getattr(fg, a)
        for b in names:
            fa, fb, ja, jb = getattr(fg, a), getattr(fg, b), getattr(jnp, a), getattr(jnp, b)
            assert fg.promote_types(fa, fb).np == jnp.promote_types(ja, jb), (a, b)
            assert fg.result_type(fa, fb).np == jnp.result_type(ja, jb), (a, b)
            for casting in ("no", "safe", "same_kind", "unsafe"):
                assert fg.can_cast(fa, fb, casting) == jnp.can_cast(ja, jb, casting), (a, b, casting)
            assert fg.issubdtype(fa, fb) == jnp.issubdtype(ja, jb), (a, b)
        for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating",
                     "numeric", ("bool", jnp.int32)):
            fkind = tuple(fg.int32 if k is jnp.int32 else k for k in kind) if isinstance(kind, tuple) else kind
            assert fg.isdtype(getattr(fg, a), fkind) == jnp.isdtype(getattr(jnp, a), kind), (a, kind)
        for abstract in ("floating", "integer", "signedinteger", "unsignedinteger", "inexact", "number", "generic"):
            assert fg.issubdtype(getattr(fg, a), getattr(fg, abstract)) == \
                jnp.issubdtype(getattr(jnp, a), getattr(jnp, abstract)), (a, abstract)
    # Python numbers and the types int and float are weak, as in JAX
    for args in [(1.0,), (1,), (fg.float16, 1.0), (fg.uint32, 1), (fg.float16, float), (fg.int32, fg.uint32),
                 (np.float16(1), 2), (True,), (np.ones(2, np.uint32), 3), ("float16", 2)]:
        jargs = tuple(JAX_DTYPE[a] if isinstance(a, fg.DType) else a for a in args)
        assert fg.result_type(*args).np == jnp.result_type(*jargs), args
    assert fg.finfo(fg.float16).eps == jnp.finfo(jnp.float16).eps
    assert fg.finfo(np.ones(2, np.float32)).max == jnp.finfo(jnp.float32).max
    assert fg.iinfo(fg.uint32).max == jnp.iinfo(jnp.uint32).max and fg.iinfo(fg.int32).min == jnp.iinfo(jnp.int32).min


def test_shapes_and_scalars_are_jax_numpy_s():
    x = np.ones((2, 3, 4), np.float32)
    assert fg.shape(x) == jnp.shape(x) and fg.ndim(x) == jnp.ndim(x) and fg.size(x) == jnp.size(x)
    assert fg.size(x, 1) == jnp.size(x, 1) and fg.size(x, (0, 2)) == jnp.size(x, (0, 2))
    for value in (1, 2.5, True, np.float32(1), np.array(1), np.ones(2), [1], np.ones(()), "a"):
        assert fg.isscalar(value) == jnp.isscalar(value), value
    graph = fg.trace(lambda t: fg.asarray(fg.isscalar(t) and fg.ndim(t) == 0), np.float32(1))
    assert graph.out_specs[0].dtype is fg.DType.bool


@pytest.mark.parametrize("obj", [
    [1, 2.5], [True, 2], [np.float16(1), 2.0], [[1, 2], [3, 4]], 3, 2.5, np.ones((2, 2)), (1, 2), [np.uint32(3), 4],
])
def test_array_promotes_as_jax_numpy(obj):
    same(fg.array(obj), jax_call(jnp.array, obj), f"array({obj!r})")
    same(fg.array(obj, ndmin=3), jax_call(lambda o: jnp.array(o, ndmin=3), obj), "array ndmin")
    same(fg.copy(np.asarray(obj)), jax_call(jnp.copy, np.asarray(obj)), "copy")


def test_array_stacks_traced_values():
    def f(a, b):
        return fg.array([[a, 2.0], [b, a]])
    a, b = np.float32(1.5), np.float32(-2.0)
    np.testing.assert_array_equal(fg.interpret(fg.trace(f, a, b), a, b), [[1.5, 2.0], [-2.0, 1.5]])
    g = fg.grad(lambda a, b: fg.sum(f(a, b)))(a, b)
    assert float(g) == 2.0


# ---------------------------------------------------------------------------
# The comparison table: (name, fgrad function, jax.numpy function, argument sets)
# ---------------------------------------------------------------------------

X34, X234, V4 = f32(3, 4), f32(2, 3, 4), f32(4)
SQ = f32(2, 3, 3, lo=-1, hi=1)
WITH_NAN = np.array([[1.0, nan, 3.0, -1.0], [nan, nan, nan, nan], [2.0, -5.0, 0.5, 4.0]], np.float32)
OTHER_NAN = np.array([[nan, 2.0, 3.0, -2.0], [1.0, nan, nan, 0.0], [2.0, -6.0, nan, 4.0]], np.float32)
SPECIAL = np.array([-inf, -2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, inf, nan], np.float32)
SORTED = np.array([-1.0, 0.0, 0.0, 1.5, 2.0, nan], np.float32)
PROBES = np.array([nan, -2.0, -1.0, 0.0, -0.0, 0.7, 1.5, 2.0, 3.0, inf, -inf], np.float32)
REPEATS = np.array([3.0, 1.0, nan, 1.0, 2.0, nan, 3.0, -0.0, 0.0], np.float32)
INTS = np.array([[0, 3, 1], [1, 7, 0], [2, -1, 3]], np.int32)

TABLE = [
    # linalg
    ("linalg.norm", L.norm, jnp.linalg.norm, [(X34,), (X234,), (V4,), (i32(5),), (np.zeros(3, np.float32),)]),
    *[(f"linalg.norm-{o}-{ax}", (lambda o, ax: lambda x: L.norm(x, o, axis=ax))(o, ax),
       (lambda o, ax: lambda x: jnp.linalg.norm(x, o, axis=ax))(o, ax), [(X234,), (WITH_NAN[None],)])
      for o in (None, 1, 2, -1, -2, 0, 3, 0.5, inf, -inf) for ax in (0, -1, 2)],
    *[(f"linalg.norm-matrix-{o}-{ax}", (lambda o, ax: lambda x: L.norm(x, o, axis=ax, keepdims=True))(o, ax),
       (lambda o, ax: lambda x: jnp.linalg.norm(x, o, axis=ax, keepdims=True))(o, ax), [(X234,), (i32(2, 2, 3),)])
      for o in (None, "fro", "nuc", 1, -1, 2, -2, inf, -inf) for ax in ((0, 1), (2, 0), (-1, -2))],
    ("linalg.norm-2d-ord", lambda x: [L.norm(x, o) for o in ("fro", "nuc", 1, -1, 2, -2, inf, -inf)],
     lambda x: [jnp.linalg.norm(x, o) for o in ("fro", "nuc", 1, -1, 2, -2, inf, -inf)], [(X34,), (i32(3, 3),)]),
    ("linalg.vector_norm", lambda x: [L.vector_norm(x, ord=o) for o in (2, 1, 0, inf, -inf, 3)],
     lambda x: [jnp.linalg.vector_norm(x, ord=o) for o in (2, 1, 0, inf, -inf, 3)], [(X234,), (V4,)]),
    ("linalg.vector_norm-ints", lambda x: [L.vector_norm(x, ord=o, axis=1) for o in (2, 1, inf, -inf)],
     lambda x: [jnp.linalg.vector_norm(x, ord=o, axis=1) for o in (2, 1, inf, -inf)], [(INTS,)]),
    ("linalg.matrix_norm", lambda x: [L.matrix_norm(x, ord=o, keepdims=k) for o in ("fro", "nuc", 1, -1, 2, -2, inf,
                                                                                     -inf) for k in (False, True)],
     lambda x: [jnp.linalg.matrix_norm(x, ord=o, keepdims=k) for o in ("fro", "nuc", 1, -1, 2, -2, inf, -inf)
                for k in (False, True)], [(X234,), (SQ,)]),
    ("linalg.matrix_power", lambda x: [L.matrix_power(x, n) for n in (0, 1, 2, 3, 6, 7)],
     lambda x: [jnp.linalg.matrix_power(x, n) for n in (0, 1, 2, 3, 6, 7)], [(SQ,), (i32(3, 3, lo=-1, hi=1),)]),
    ("linalg.matrix_power-negative", lambda x: [L.matrix_power(x, n) for n in (-1, -2, -3)],
     lambda x: [jnp.linalg.matrix_power(x, n) for n in (-1, -2, -3)], [(SQ + 4 * np.eye(3, dtype=np.float32),)]),
    ("linalg.multi_dot", lambda *xs: L.multi_dot(xs), lambda *xs: jnp.linalg.multi_dot(xs),
     [(f32(3), f32(3, 4), f32(4, 2)), (f32(2, 3), f32(3, 4), f32(4)), (f32(3), f32(3)), (f32(2, 2), f32(2, 3))]),
    ("linalg.trace", lambda x: [L.trace(x), L.trace(x, offset=1), L.trace(x, offset=-1, dtype=fg.float32)],
     lambda x: [jnp.linalg.trace(x), jnp.linalg.trace(x, offset=1), jnp.linalg.trace(x, offset=-1, dtype=jnp.float32)],
     [(X234,), (i32(2, 3, 3),)]),
    ("linalg.diagonal", lambda x: [L.diagonal(x), L.diagonal(x, offset=2)],
     lambda x: [jnp.linalg.diagonal(x), jnp.linalg.diagonal(x, offset=2)], [(X234,)]),
    ("linalg.products", lambda a, b: [L.matmul(a, b.T), L.outer(a[0], b[1]), L.tensordot(a, b.T, axes=1),
                                      L.vecdot(a, b), L.cross(a[:, :3], b[:, 1:]), L.matrix_transpose(a)],
     lambda a, b: [jnp.linalg.matmul(a, b.T), jnp.linalg.outer(a[0], b[1]), jnp.linalg.tensordot(a, b.T, axes=1),
                   jnp.linalg.vecdot(a, b), jnp.linalg.cross(a[:, :3], b[:, 1:]), jnp.linalg.matrix_transpose(a)],
     [(X34, f32(3, 4)), (i32(2, 4), i32(2, 4))]),
    # products
    ("vecdot", fg.vecdot, jnp.vecdot, [(X234, V4), (i32(2, 3), i32(3)), (np.ones((2, 1), bool), np.ones(1, bool))]),
    ("vecdot-axis", lambda a, b: fg.vecdot(a, b, axis=0), lambda a, b: jnp.vecdot(a, b, axis=0),
     [(f32(3, 2), f32(3, 1))]),
    ("matvec-vecmat", lambda m, v, w: [fg.matvec(m, v), fg.vecmat(w, m)],
     lambda m, v, w: [jnp.matvec(m, v), jnp.vecmat(w, m)], [(X234, V4, f32(3)), (i32(3, 2), i32(2), i32(2, 3))]),
    ("kron", fg.kron, jnp.kron, [(f32(2, 3), f32(2)), (i32(2), i32(3, 2)), (f32(), f32(2)), (i32(2, 1, 2), f32(3))]),
    ("cross", lambda a, b: [fg.cross(a, b), fg.cross(a[..., :2], b), fg.cross(a, b[..., :2]),
                            fg.cross(a[..., :2], b[..., :2])],
     lambda a, b: [jnp.cross(a, b), jnp.cross(a[..., :2], b), jnp.cross(a, b[..., :2]),
                   jnp.cross(a[..., :2], b[..., :2])], [(f32(4, 3), f32(3)), (i32(2, 3), i32(2, 3))]),
    ("cross-axes", lambda a, b: [fg.cross(a, b, axisa=0, axisb=1, axisc=0), fg.cross(a, b.T, axis=0)],
     lambda a, b: [jnp.cross(a, b, axisa=0, axisb=1, axisc=0), jnp.cross(a, b.T, axis=0)], [(f32(3, 2), f32(2, 3))]),
    ("cov", lambda m: [fg.cov(m), fg.cov(m, bias=True), fg.cov(m, ddof=2), fg.cov(m.T, rowvar=False),
                       fg.cov(m, fweights=np.int32([1, 2, 1, 3, 1, 1])),
                       fg.cov(m, aweights=np.float32([0.5, 1, 2, 1, 1, 0.25]), ddof=1),
                       fg.cov(m, fweights=np.int32([1, 2, 1, 3, 1, 1]), aweights=np.float32([0.5, 1, 2, 1, 1, 3]))],
     lambda m: [jnp.cov(m), jnp.cov(m, bias=True), jnp.cov(m, ddof=2), jnp.cov(m.T, rowvar=False),
                jnp.cov(m, fweights=jnp.array([1, 2, 1, 3, 1, 1])),
                jnp.cov(m, aweights=jnp.array([0.5, 1, 2, 1, 1, 0.25]), ddof=1),
                jnp.cov(m, fweights=jnp.array([1, 2, 1, 3, 1, 1]), aweights=jnp.array([0.5, 1, 2, 1, 1, 3.]))],
     [(f32(3, 6),), (i32(2, 6),), (f32(6),)]),
    ("cov-y", lambda m, y: [fg.cov(m, y), fg.corrcoef(m, y), fg.corrcoef(m)],
     lambda m, y: [jnp.cov(m, y), jnp.corrcoef(m, y), jnp.corrcoef(m)], [(f32(3, 6), f32(6)), (f32(6), f32(6))]),
    # elementwise
    ("fmax-fmin", lambda a, b: [fg.fmax(a, b), fg.fmin(a, b), fg.fmax(b, 1.0), fg.fmin(2, a)],
     lambda a, b: [jnp.fmax(a, b), jnp.fmin(a, b), jnp.fmax(b, 1.0), jnp.fmin(2, a)],
     [(WITH_NAN, OTHER_NAN), (X34, V4), (i32(3), i32(3)), (np.array([True, False]), np.array([True, True]))]),
    ("rint", fg.rint, jnp.rint, [(SPECIAL,), (i32(4),), (np.array([True, False]),), (SPECIAL.astype(np.float16),)]),
    ("float_power", fg.float_power, jnp.float_power,
     [(f32(4, lo=0.1, hi=3), f32(4)), (i32(3, lo=1, hi=3), i32(3, lo=-2, hi=3)), (SPECIAL[5:], 0.5),
      (np.float16([2, 3]), np.float16([0.5, 2]))]),
    ("heaviside", fg.heaviside, jnp.heaviside, [(SPECIAL, 0.5), (i32(5, lo=-1, hi=1), i32(5)), (SPECIAL, SPECIAL)]),
    ("ldexp", fg.ldexp, jnp.ldexp,
     [(f32(6), i32(6, lo=-5, hi=5)), (np.float32([1.5, 1e-30, 1e30, 0, -0.0, inf, -inf, nan, 0.75]),
                                      np.int32([3, 120, -120, 5, 5, 2, 1, 3, 128])),
      (i32(3), i32(3)), (np.float16([1.5, 2]), np.int32([3, -2]))]),
    ("complex-names", lambda x: [fg.conj(x), fg.conjugate(x), fg.real(x), fg.imag(x), fg.isreal(x), fg.iscomplex(x)],
     lambda x: [jnp.conj(x), jnp.conjugate(x), jnp.real(x), jnp.imag(x), jnp.isreal(x), jnp.iscomplex(x)],
     [(X34,), (i32(3),), (np.array([True]),), (np.float16([1, 2]),)]),
    ("around", lambda x: [fg.around(x), fg.around(x, 1), fg.around(x, 2)],
     lambda x: [jnp.around(x), jnp.around(x, 1), jnp.around(x, 2)], [(X34 * 10,), (SPECIAL,)]),
    ("polyval", fg.polyval, jnp.polyval, [(f32(4), X34), (i32(3), i32(2)), (f32(3, 2), f32(2)), (f32(1), 3.0)]),
    # shapes
    ("append", lambda a, b: [fg.append(a, b), fg.append(a, b[:1], axis=0), fg.append(a, 5)],
     lambda a, b: [jnp.append(a, b), jnp.append(a, b[:1], axis=0), jnp.append(a, 5)], [(X34, X34), (INTS, INTS)]),
    # a Python number stays weak when flattened: it takes the array's dtype
    ("append-outer-weak", lambda a: [fg.append(a, 2), fg.append(a, 2.0), fg.outer(a, 2), fg.outer(1.5, a)],
     lambda a: [jnp.append(a, 2), jnp.append(a, 2.0), jnp.outer(a, 2), jnp.outer(1.5, a)],
     [(np.uint32([1, 2]),), (np.float16([1, 2]),), (INTS,)]),
    ("insert", lambda x: [fg.insert(x, 1, 9), fg.insert(x, -1, 9, axis=1), fg.insert(x, [0, 2, 2, -1], 7, axis=1),
                          fg.insert(x, slice(0, 3), np.arange(3), axis=1), fg.insert(x, [5, -9], 1),
                          fg.insert(x, 2, np.ones((2, x.shape[1])), axis=0)],
     lambda x: [jnp.insert(x, 1, 9), jnp.insert(x, -1, 9, axis=1), jnp.insert(x, jnp.array([0, 2, 2, -1]), 7, axis=1),
                jnp.insert(x, slice(0, 3), jnp.arange(3), axis=1), jnp.insert(x, jnp.array([5, -9]), 1),
                jnp.insert(x, 2, jnp.ones((2, x.shape[1])), axis=0)], [(X34,), (INTS,)]),
    ("delete", lambda x: [fg.delete(x, 1), fg.delete(x, -1, axis=1), fg.delete(x, [0, 2, 2], axis=1),
                          fg.delete(x, slice(None, None, 2), axis=0), fg.delete(x, np.array([True, False, True]),
                                                                                  axis=1)],
     lambda x: [jnp.delete(x, 1), jnp.delete(x, -1, axis=1), jnp.delete(x, np.array([0, 2, 2]), axis=1),
                jnp.delete(x, slice(None, None, 2), axis=0), jnp.delete(x, np.array([True, False, True]), axis=1)],
     [(INTS,), (X34[:, :3],)]),
    ("flips", lambda x: [fg.fliplr(x), fg.flipud(x)], lambda x: [jnp.fliplr(x), jnp.flipud(x)], [(X234,), (INTS,)]),
    ("resize", lambda x: [fg.resize(x, (5, 7)), fg.resize(x, 5), fg.resize(x, (2, 1, 2))],
     lambda x: [jnp.resize(x, (5, 7)), jnp.resize(x, 5), jnp.resize(x, (2, 1, 2))], [(X34,), (INTS,), (f32(),)]),
    ("block", lambda a, b: [fg.block([[a, b], [b, a]]), fg.block([a, b]), fg.block([[a], [b]]), fg.block(a)],
     lambda a, b: [jnp.block([[a, b], [b, a]]), jnp.block([a, b]), jnp.block([[a], [b]]), jnp.block(a)],
     [(X34, f32(3, 4)), (f32(2), i32(2)), (f32(), f32())]),
    ("broadcast_arrays", lambda a, b: fg.broadcast_arrays(a, b, 1.0), lambda a, b: jnp.broadcast_arrays(a, b, 1.0),
     [(X34, V4), (i32(2, 1), f32(3))]),
    ("array-api-names", lambda x: [fg.matrix_transpose(x), fg.permute_dims(x, (1, 2, 0)), fg.concat([x, x], axis=1),
                                   fg.concat([x, x[0]], axis=None)],
     lambda x: [jnp.matrix_transpose(x), jnp.permute_dims(x, (1, 2, 0)), jnp.concat([x, x], axis=1),
                jnp.concat([x, x[0]], axis=None)], [(X234,)]),
    # an array where a list of arrays goes: its entries along axis 0, as jax.numpy takes it
    ("arrays-as-lists", lambda x: [fg.stack(x), fg.stack(x, axis=-1), fg.concatenate(x, axis=-1), fg.concat(x),
                                   fg.concat(x, axis=None), fg.vstack(x), fg.hstack(x), fg.column_stack(x)],
     lambda x: [jnp.stack(x), jnp.stack(x, axis=-1), jnp.concatenate(x, axis=-1), jnp.concat(x),
                jnp.concat(x, axis=None), jnp.vstack(x), jnp.hstack(x), jnp.column_stack(x)], [(X234,), (INTS,)]),
    ("join-flattened-or-converted", lambda x: [fg.concatenate([x, x[0]], axis=None), fg.concatenate([x], axis=None),
                                               fg.concatenate([x, x], dtype="float16"), fg.stack([x, x], 1, dtype="int32")],
     lambda x: [jnp.concatenate([x, x[0]], axis=None), jnp.concatenate([x], axis=None),
                jnp.concatenate([x, x], dtype="float16"), jnp.stack([x, x], 1, dtype="int32")], [(X234,), (INTS,)]),
    # reductions
    ("amax-amin", lambda x: [fg.amax(x), fg.amin(x, axis=1), fg.amax(x, 0, keepdims=True)],
     lambda x: [jnp.amax(x), jnp.amin(x, axis=1), jnp.amax(x, 0, keepdims=True)], [(X34,), (INTS,)]),
    ("nanargmax-nanargmin", lambda x: [f(x, ax, keepdims=k) for f in (fg.nanargmax, fg.nanargmin)
                                       for ax in (None, 0, 1) for k in (False, True)],
     lambda x: [f(x, ax, keepdims=k) for f in (jnp.nanargmax, jnp.nanargmin) for ax in (None, 0, 1)
                for k in (False, True)], [(WITH_NAN,), (OTHER_NAN,), (INTS,)]),
    ("diff", lambda x: [fg.diff(x), fg.diff(x, 2), fg.diff(x, axis=0), fg.diff(x, 0), fg.diff(x, prepend=1),
                        fg.diff(x, 3, prepend=x[:, :1], append=-1)],
     lambda x: [jnp.diff(x), jnp.diff(x, 2), jnp.diff(x, axis=0), jnp.diff(x, 0), jnp.diff(x, prepend=1),
                jnp.diff(x, 3, prepend=x[:, :1], append=-1)],
     [(X34,), (INTS,), (np.array([[True, False, False], [True, True, False]]),)]),
    ("ediff1d", lambda x: [fg.ediff1d(x), fg.ediff1d(x, to_end=[1, 2], to_begin=-1)],
     lambda x: [jnp.ediff1d(x), jnp.ediff1d(x, to_end=jnp.array([1, 2]), to_begin=-1)], [(X34,), (INTS,)]),
    ("comparisons", lambda a, b: [fg.allclose(a, b), fg.allclose(a, a + 1e-7), fg.allclose(a, b, equal_nan=True),
                                  fg.array_equal(a, a), fg.array_equal(a, a, equal_nan=True), fg.array_equal(a, b),
                                  fg.array_equal(a, a[:1]), fg.array_equiv(a, a[:1]), fg.array_equiv(a[:2], a[:1, :1])],
     lambda a, b: [jnp.allclose(a, b), jnp.allclose(a, a + 1e-7), jnp.allclose(a, b, equal_nan=True),
                   jnp.array_equal(a, a), jnp.array_equal(a, a, equal_nan=True), jnp.array_equal(a, b),
                   jnp.array_equal(a, a[:1]), jnp.array_equiv(a, a[:1]), jnp.array_equiv(a[:2], a[:1, :1])],
     [(WITH_NAN, OTHER_NAN), (X34, X34), (np.ones((2, 3), np.int32), np.ones((2, 3), np.int32))]),
    # searching
    ("searchsorted", lambda a, v: [fg.searchsorted(a, v), fg.searchsorted(a, v, "right"),
                                   fg.searchsorted(a, v, method="compare_all")],
     lambda a, v: [jnp.searchsorted(a, v), jnp.searchsorted(a, v, "right"), jnp.searchsorted(a, v,
                                                                                            method="compare_all")],
     [(SORTED, PROBES), (np.int32([1, 2, 2, 5]), np.float32([[2.5, 2], [0, 9]])), (np.int32([1, 3]), 2)]),
    ("searchsorted-sorter", lambda a, v: fg.searchsorted(a, v, sorter=fg.argsort(a)),
     lambda a, v: jnp.searchsorted(a, v, sorter=jnp.argsort(a)), [(f32(6), f32(4)), (i32(5), i32(3))]),
    ("digitize", lambda x, b: [fg.digitize(x, b), fg.digitize(x, b, right=True), fg.digitize(x, b[::-1]),
                               fg.digitize(x, b[::-1], True)],
     lambda x, b: [jnp.digitize(x, b), jnp.digitize(x, b, right=True), jnp.digitize(x, b[::-1]),
                   jnp.digitize(x, b[::-1], True)],
     [(PROBES, np.float32([-1, 0, 0, 1.5, 2])), (i32(6), np.int32([0, 2]))]),
    ("nonzero", lambda x: [*fg.nonzero(x, size=5), *fg.nonzero(x, size=2, fill_value=-1),
                           *fg.nonzero(x, size=9, fill_value=(7, 8)), fg.argwhere(x, size=4),
                           fg.argwhere(x, size=8, fill_value=-2), fg.flatnonzero(x, size=6, fill_value=99),
                           *fg.where(x, size=3)],
     lambda x: [*jnp.nonzero(x, size=5), *jnp.nonzero(x, size=2, fill_value=-1),
                *jnp.nonzero(x, size=9, fill_value=(7, 8)), jnp.argwhere(x, size=4),
                jnp.argwhere(x, size=8, fill_value=-2), jnp.flatnonzero(x, size=6, fill_value=99),
                *jnp.where(x, size=3)], [(INTS,), (WITH_NAN,), (np.zeros((2, 2), bool),), (np.ones((2, 3), bool),)]),
    ("argwhere-0d", lambda x: [fg.argwhere(x, size=2), fg.argwhere(x, size=0)],
     lambda x: [jnp.argwhere(x, size=2), jnp.argwhere(x, size=0)], [(np.float32(0.7),), (np.int32(0),)]),
    ("size-0", lambda x: [*fg.nonzero(x, size=0), fg.argwhere(x, size=0), fg.flatnonzero(x, size=0),
                          *fg.unique(x, size=0, return_index=True, return_inverse=True, return_counts=True),
                          fg.bincount(fg.abs(x), length=0)],
     lambda x: [*jnp.nonzero(x, size=0), jnp.argwhere(x, size=0), jnp.flatnonzero(x, size=0),
                *jnp.unique(x, size=0, return_index=True, return_inverse=True, return_counts=True),
                jnp.bincount(jnp.abs(x), length=0)], [(np.int32([0, 3, 0, 2, 2]),)]),
    ("nonzero-1d-3d", lambda x: [*fg.nonzero(x, size=4), fg.argwhere(x, size=3)],
     lambda x: [*jnp.nonzero(x, size=4), jnp.argwhere(x, size=3)],
     [(i32(6, lo=0, hi=1),), (i32(2, 2, 3, lo=0, hi=1),)]),
    ("unique", lambda x: [fg.unique(x, size=s, return_index=True, return_inverse=True, return_counts=True,
                                    equal_nan=q) for s in (1, 3, 12) for q in (True, False)]
     + [fg.unique(x, size=5, fill_value=-7)],
     lambda x: [jnp.unique(x, size=s, return_index=True, return_inverse=True, return_counts=True, equal_nan=q)
                for s in (1, 3, 12) for q in (True, False)] + [jnp.unique(x, size=5, fill_value=-7)],
     [(REPEATS,), (INTS,), (f32(2, 3),), (np.array([True, False, True]),), (np.float32([2.0]),)]),
    ("isin", lambda a, b: [fg.isin(a, b), fg.isin(a, b, invert=True)],
     lambda a, b: [jnp.isin(a, b), jnp.isin(a, b, invert=True)],
     [(INTS, np.int32([[1, 3]])), (REPEATS, np.float32([nan, 1, 0])), (i32(4), f32(2))]),
    ("bincount", lambda x, w: [fg.bincount(x, length=4), fg.bincount(x, w, length=9), fg.bincount(x, minlength=2,
                                                                                                   length=3)],
     lambda x, w: [jnp.bincount(x, length=4), jnp.bincount(x, w, length=9), jnp.bincount(x, minlength=2, length=3)],
     [(np.int32([0, 1, 1, 5, -1, 3]), f32(6)), (np.array([True, False, True]), i32(3)), (np.uint32([2, 0]), f32(2))]),
    ("histogram", lambda x: [*fg.histogram(x), *fg.histogram(x, 3, range=(-1, 1)), *fg.histogram(x, 4, weights=x,
                                                                                                   density=True),
                             *fg.histogram(x, np.float32([-2, 0, 0.5, 2])), fg.histogram_bin_edges(x, 5)],
     lambda x: [*jnp.histogram(x), *jnp.histogram(x, 3, range=(-1, 1)), *jnp.histogram(x, 4, weights=x, density=True),
                *jnp.histogram(x, jnp.array([-2, 0, 0.5, 2.])), jnp.histogram_bin_edges(x, 5)],
     [(f32(20),), (np.float32([1, 1, 1]),), (i32(8),)]),
    ("partition", lambda x: [f(x, k, axis=ax) for f in (fg.partition, fg.argpartition) for k in (0, 1, -1)
                             for ax in (0, -1)],
     lambda x: [f(x, k, axis=ax) for f in (jnp.partition, jnp.argpartition) for k in (0, 1, -1) for ax in (0, -1)],
     [(X34,), (INTS,), (np.uint32([[3, 0, 2], [0, 1, 1], [5, 5, 0]]),)]),
    ("interp", lambda x, xp, fp: [fg.interp(x, xp, fp), fg.interp(x, xp, fp, left=-9, right=9),
                                  fg.interp(x, xp, fp, "extrapolate", "extrapolate"), fg.interp(x, xp, fp, period=2.5)],
     lambda x, xp, fp: [jnp.interp(x, xp, fp), jnp.interp(x, xp, fp, left=-9, right=9),
                        jnp.interp(x, xp, fp, "extrapolate", "extrapolate"), jnp.interp(x, xp, fp, period=2.5)],
     [(PROBES, np.float32([-1.5, -0.5, 0, 0, 1, 2.5]), np.float32([1, -2, 0.5, 3, 2, -1])),
      (f32(3, 4, lo=-3, hi=3), np.float32([-1, 0, 2]), np.int32([4, 0, 1]))]),
    # indices and choices
    ("unravel_index", lambda i: [*fg.unravel_index(i, (3, 4)), *fg.unravel_index(i, 5)],
     lambda i: [*jnp.unravel_index(i, (3, 4)), *jnp.unravel_index(i, 5)], [(np.int32([-1, 100, 5, 0, -13, 11]),),
                                                                           (np.uint32([0, 3, 99]),)]),
    ("ravel_multi_index", lambda i, j: [fg.ravel_multi_index((i, j), (3, 4), mode=m, order=o)
                                        for m in ("wrap", "clip") for o in "CF"],
     lambda i, j: [jnp.ravel_multi_index((i, j), (3, 4), mode=m, order=o) for m in ("wrap", "clip") for o in "CF"],
     [(i32(6, lo=-5, hi=6), i32(6, lo=-5, hi=6))]),
    ("ravel_multi_index-raise", lambda i, j: fg.ravel_multi_index((i, j), (3, 4)),
     lambda i, j: jnp.ravel_multi_index((i, j), (3, 4)), [(np.int32([0, 2, 1]), np.int32([3, 0, 1]))]),
    ("index-sets", lambda x: [*fg.triu_indices(3), *fg.triu_indices(3, 1, 4), *fg.tril_indices(4, -1),
                              *fg.tril_indices(2, 0, 3), *fg.diag_indices(3, 3), *fg.triu_indices_from(x, 1),
                              *fg.tril_indices_from(x), *fg.diag_indices_from(x[:3, :3])],
     lambda x: [*jnp.triu_indices(3), *jnp.triu_indices(3, 1, 4), *jnp.tril_indices(4, -1), *jnp.tril_indices(2, 0, 3),
                *jnp.diag_indices(3, 3), *jnp.triu_indices_from(x, 1), *jnp.tril_indices_from(x),
                *jnp.diag_indices_from(x[:3, :3])], [(X34,)]),
    ("select", lambda x: [fg.select([fg.less(x, -1), fg.greater(x, 1)], [fg.neg(x), x], 0.5),
                          fg.select([fg.greater(x, 0)], [1]), fg.select([fg.less(x, 0), fg.less(x, 1)], [x, 2 * x]),
                          fg.select(x, 2 * x, -1), fg.select(fg.greater(x, 0), x)],
     lambda x: [jnp.select([x < -1, x > 1], [-x, x], 0.5), jnp.select([x > 0], [1]),
                jnp.select([x < 0, x < 1], [x, 2 * x]), jnp.select(x, 2 * x, -1), jnp.select(x > 0, x)],
     [(X34,), (INTS,)]),
    ("choose", lambda i, a, b: [fg.choose(i, [a, b, 7], mode="wrap"), fg.choose(i, [a, b], mode="clip"),
                                fg.choose(fg.clip(i, 0, 1), [a, b], mode="clip")],
     lambda i, a, b: [jnp.choose(i, [a, b, 7], mode="wrap"), jnp.choose(i, [a, b], mode="clip"),
                      jnp.choose(jnp.clip(i, 0, 1), [a, b], mode="clip")],
     [(i32(3, 4), X34, V4), (i32(3), i32(3), f32(1))]),
    ("compress", lambda c, x: [fg.compress(c, x, axis=1), fg.compress(c, x), fg.compress(c, x, axis=1, size=2),
                               fg.compress(c[:2], x, axis=0, size=1, fill_value=-5)],
     lambda c, x: [jnp.compress(c, x, axis=1), jnp.compress(c, x), jnp.compress(c, x, axis=1, size=2),
                   jnp.compress(c[:2], x, axis=0, size=1, fill_value=-5)],
     [(np.array([True, False, True, True]), X34), (np.array([False, False, True, False]), INTS[:, :3].T)]),
    ("compress-extract-size", lambda c, x: [fg.compress(c[0], x, axis=1, size=2), fg.extract(c, x, size=5),
                                            fg.extract(c, x, size=9, fill_value=-1)],
     lambda c, x: [jnp.compress(c[0], x, axis=1, size=2), jnp.extract(c, x, size=5),
                   jnp.extract(c, x, size=9, fill_value=-1)], [(X34 > 0, X34), (INTS > 0, INTS)]),
    ("extract", lambda c, x: [fg.extract(c, x), fg.extract(c, x, size=4), fg.extract(c, x, size=9, fill_value=-1)],
     lambda c, x: [jnp.extract(c, x), jnp.extract(c, x, size=4), jnp.extract(c, x, size=9, fill_value=-1)],
     [(X34 > 0, X34), (INTS > 0, INTS)]),
    # a Python number is weakly typed: it takes the array's dtype
    ("kron-numbers", lambda x: [fg.kron(x, 2.5), fg.kron(3, x)], lambda x: [jnp.kron(x, 2.5), jnp.kron(3, x)],
     [(X34.astype(np.float16),), (np.uint32([[1, 2], [0, 5]]),)]),
    ("logical-numbers", lambda x, y: [fg.logical_and(x, y), fg.logical_or(x, 0.0), fg.logical_not(x)],
     lambda x, y: [jnp.logical_and(x, y), jnp.logical_or(x, 0.0), jnp.logical_not(x)], [(WITH_NAN, i32(3, 4, lo=-1, hi=1))]),
    # NumPy's in-place updates as jax.numpy's functional ones (inplace=False), histograms of points, angle
    ("put", lambda x, i, v: [fg.put(x, i, v, inplace=False), fg.put(x, i, v, mode="clip", inplace=False),
                             fg.put(x, i, v, mode="wrap", inplace=False)],
     lambda x, i, v: [jnp.put(x, i, v, inplace=False), jnp.put(x, i, v, mode="clip", inplace=False),
                      jnp.put(x, i, v, mode="wrap", inplace=False)],
     [(X34, np.int32([0, 13, -1, -13, 5]), np.float32([7, 8])), (INTS, np.int32([[2], [3]]), np.int32(9)),
      (X34, np.int32([], ), np.float32([1]))]),
    ("place", lambda x, m, v: fg.place(x, m, v, inplace=False), lambda x, m, v: jnp.place(x, m, v, inplace=False),
     [(X34, X34 > 0, np.float32([1, 2, 3])), (INTS, INTS > 1, np.int32([[5]]))]),
    ("fill_diagonal", lambda x, v: fg.fill_diagonal(x, v, inplace=False),
     lambda x, v: jnp.fill_diagonal(x, v, inplace=False),
     [(X34, np.float32(5)), (X34, np.float32([1, 2])), (X34.T, np.float32([[1, 2, 3, 4]])),
      (np.zeros((3, 3, 3), np.float32), np.float32([4, 5, 6]))]),
    ("histogramdd", lambda s, w: [fg.histogramdd(s, 3), fg.histogramdd(s, [2, np.float32([-2, 0, 1, 2])], weights=w),
                                  fg.histogramdd(s, 2, range=[(-1, 1), None], density=True)],
     lambda s, w: [jnp.histogramdd(s, 3), jnp.histogramdd(s, [2, np.float32([-2, 0, 1, 2])], weights=w),
                   jnp.histogramdd(s, 2, range=[(-1, 1), None], density=True)], [(f32(20, 2), f32(20))]),
    ("histogram2d", lambda x, y: [fg.histogram2d(x, y), fg.histogram2d(x, y, [3, 2], density=True),
                                  fg.histogram2d(x, y, np.float32([-2, 0, 0.5, 2]))],
     lambda x, y: [jnp.histogram2d(x, y), jnp.histogram2d(x, y, [3, 2], density=True),
                   jnp.histogram2d(x, y, np.float32([-2, 0, 0.5, 2]))], [(f32(30), f32(30))]),
    ("angle", lambda x: [fg.angle(x), fg.angle(x, deg=True)], lambda x: [jnp.angle(x), jnp.angle(x, deg=True)],
     [(WITH_NAN,), (np.float32([-1.0, -0.0, 0.0, 2.0, -inf]),), (INTS,), (np.float32(-3.0),)]),
    ("trim_zeros", lambda x: [fg.trim_zeros(x), fg.trim_zeros(x, "f"), fg.trim_zeros(x, "B", axis=0)],
     lambda x: [jnp.trim_zeros(x), jnp.trim_zeros(x, "f"), jnp.trim_zeros(x, "B", axis=0)],
     [(np.float32([0, 0, 1, 0, 2, 0]),), (np.float32([[0, 0, 0], [0, 1, 0], [0, 0, 0]]),), (np.float32([0, 0]),)]),
    ("softmax-axes", lambda x: [fg.softmax(x, axis=(0, 2)), fg.log_softmax(x, axis=None), fg.softmax(x, axis=(-1,))],
     lambda x: [jax.nn.softmax(x, axis=(0, 2)), jax.nn.log_softmax(x, axis=None), jax.nn.softmax(x, axis=(-1,))],
     [(X234,)]),
    ("mask_indices", lambda n: [fg.mask_indices(n, fg.triu), fg.mask_indices(n, fg.tril, -1),
                                fg.mask_indices(n, fg.triu, 1, size=8)],
     lambda n: [jnp.mask_indices(n, jnp.triu), jnp.mask_indices(n, jnp.tril, -1), jnp.mask_indices(n, jnp.triu, 1, size=8)],
     [(3,), (4,)]),
]

# concrete checks, static index sets, and lengths set by a concrete condition (traced: the size= rows)
EAGER_ONLY = {"ravel_multi_index-raise", "index-sets", "compress", "extract", "trim_zeros", "mask_indices"}


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_matches_jax_numpy(ours, theirs, args, name):
    want = jax_call(theirs, *args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's eager warnings on NaN, as JAX computes them
        same(ours(*args), want, f"{name} eager")
        if name in EAGER_ONLY:
            return
        traced, arrays = over_arrays(ours, args)

        same(fg.interpret(fg.trace(traced, *arrays), *arrays), want, f"{name} traced")


# ---------------------------------------------------------------------------
# Values without size= (concrete), gradients, and refusals
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("x", [INTS, WITH_NAN, np.array([True, False, True]), REPEATS, i32(2, 2, 3, lo=0, hi=1)])
def test_concrete_values_need_no_size(x):
    same(fg.nonzero(x), jnp.nonzero(x), "nonzero")
    same(fg.argwhere(x), jnp.argwhere(x), "argwhere")
    same(fg.flatnonzero(x), jnp.flatnonzero(x), "flatnonzero")
    same(fg.where(x), jnp.where(x), "where")
    for kw in ({}, dict(return_index=True, return_inverse=True, return_counts=True), dict(equal_nan=False)):
        same(fg.unique(x, **kw), jnp.unique(x, **kw), f"unique {kw}")
    same(fg.compress(np.ravel(x) > 0, np.ravel(x)), jnp.compress(np.ravel(x) > 0, np.ravel(x)), "compress")
    same(fg.extract(x, x), jnp.extract(x, x), "extract")


@pytest.mark.parametrize("x", [np.float32(0.5), np.int32(0), np.bool_(True)])
def test_argwhere_of_a_scalar_is_rows_of_no_indices(x):
    same(fg.argwhere(x), jnp.argwhere(x), "argwhere")


def test_unique_along_an_axis_and_bincount_of_concrete_values():
    x = np.int32([[1, 2], [0, 5], [1, 2]])
    same(fg.unique(x, axis=0, return_counts=True), jnp.unique(x, axis=0, return_counts=True), "unique axis")
    for args in [(np.int32([0, 1, 1, 3]),), (np.int32([0, 1, 1, 3]), np.float32([0.5, 1, 2, 3]), 7),
                 (np.int32([2, -1]), None, 1)]:
        same(fg.bincount(*args), jnp.bincount(*args), f"bincount{args}")


def test_gradients_are_jax_s():
    def both(f, jf, *args, argnums=0):
        got = fg.grad(f, argnums=argnums)(*args)
        want = jax.grad(jf, argnums=argnums)(*args)
        for g, w in zip(leaves(got), leaves(want)):
            np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-5, atol=1e-6)

    z, x, m = np.zeros(3, np.float32), np.float32([0.0, 1.0, -2.0]), np.float32([[1, -2], [3, 0]])
    both(L.norm, jnp.linalg.norm, z)  # NaN at 0, as JAX's
    both(lambda v: L.norm(v, 1), lambda v: jnp.linalg.norm(v, 1), x)
    both(lambda v: L.norm(v, inf), lambda v: jnp.linalg.norm(v, inf), np.float32([0, 2, -2]))
    both(lambda v: L.norm(v, 0), lambda v: jnp.linalg.norm(v, 0), x)
    both(lambda v: L.norm(v, 0.5), lambda v: jnp.linalg.norm(v, 0.5), np.float32([1, 2]))
    both(lambda v: L.norm(v, 1), lambda v: jnp.linalg.norm(v, 1), m)
    both(lambda v: L.norm(v, -inf), lambda v: jnp.linalg.norm(v, -inf), m)
    both(lambda a: fg.fmax(a, 1.0), lambda a: jnp.fmax(a, 1.0), np.float32(1.0))
    both(lambda a: fg.fmin(a, 1.0), lambda a: jnp.fmin(a, 1.0), np.float32(1.0))
    both(lambda a: fg.heaviside(a, 0.5), lambda a: jnp.heaviside(a, 0.5), np.float32(0.0))
    xp, fp = np.float32([0, 1, 1, 3]), np.float32([1, 2, 5, -1])
    for at in (0.5, 1.0, 2.0, 3.0, 4.0):
        both(lambda a, p, q: fg.interp(a, p, q), lambda a, p, q: jnp.interp(a, p, q), np.float32(at), xp, fp,
             argnums=(0, 1, 2))
    both(lambda a: fg.sum(fg.cov(a)), lambda a: jnp.sum(jnp.cov(a)), f32(2, 4))
    both(lambda a: fg.sum(fg.partition(a, 1)[:2] * np.float32([1, 2])),
         lambda a: jnp.sum(jnp.partition(a, 1)[:2] * jnp.float32([1, 2])), f32(5))
    both(lambda a: fg.sum(fg.cross(a, a[::-1])), lambda a: jnp.sum(jnp.cross(a, a[::-1])), f32(3))


def test_no_value_is_complex():
    assert fg.iscomplexobj(X34) is False and fg.iscomplexobj(3) is False and jnp.iscomplexobj(X34) is False


def test_where_with_one_argument_is_nonzero():
    c = np.array([[True, False], [False, True]])
    same(fg.where(c), jnp.where(c), "eager")
    g = fg.trace(lambda c: fg.where(c, size=3, fill_value=-1), c)
    same(fg.interpret(g, c), jnp.where(c, size=3, fill_value=-1), "traced")


@pytest.mark.parametrize("call, error, match", [
    (lambda: fg.trace(lambda x: fg.nonzero(x), INTS), fg.TraceError, r"nonzero: .* traced i32\[3,3\].*size="),
    (lambda: fg.trace(lambda x: fg.argwhere(x), INTS), fg.TraceError, r"nonzero: .*size="),
    (lambda: fg.trace(lambda x: fg.where(x), INTS), fg.TraceError, r"where: .*fg.nonzero\(condition, size=8\)"),
    (lambda: fg.trace(lambda x: fg.unique(x), INTS), fg.TraceError, r"unique: .*size=.*fg.unique"),
    (lambda: fg.trace(lambda x: fg.bincount(x), INTS[0]), fg.TraceError, r"bincount: .*length="),
    (lambda: fg.trace(lambda c: fg.compress(c, INTS), INTS[0] > 0), fg.TraceError, r"compress: .*size="),
    (lambda: fg.trace(lambda x: fg.unique(x, size=2, axis=0), INTS), fg.ShapeError, r"unique: axis="),
    (lambda: fg.nonzero(np.float32(1)), fg.ShapeError, r"nonzero: a 0-d value"),
    (lambda: fg.nonzero(INTS, size=-1), fg.ShapeError, r"nonzero: size must be a static non-negative integer"),
    (lambda: fg.nonzero(INTS, size=2, fill_value=(1, 2, 3)), fg.ShapeError, r"fill_value has 3 entries for 2 axes"),
    (lambda: fg.bincount(np.float32([1])), fg.DTypeError, r"bincount: x must be integers, got f32"),
    (lambda: fg.bincount(INTS), fg.ShapeError, r"bincount: x must be 1-D, got \(3, 3\)"),
    (lambda: fg.searchsorted(INTS, 1), fg.ShapeError, r"searchsorted: a must be 1-D, got \(3, 3\)"),
    (lambda: fg.searchsorted(SORTED, 1, side="middle"), fg.ShapeError, r"side must be 'left' or 'right'"),
    (lambda: fg.searchsorted(SORTED, 1, method="binary"), fg.ShapeError, r"method must be one of"),
    (lambda: fg.partition(X34, 4), fg.ShapeError, r"partition: kth must be a static int in \[-4, 4\)"),
    (lambda: fg.interp(V4, V4, V4[:3]), fg.ShapeError, r"interp: xp and fp must be 1-D of one size"),
    (lambda: fg.interp(V4, V4, V4, left="edge"), fg.ShapeError, r"interp: the only string left takes"),
    (lambda: fg.histogram(V4, "auto"), fg.ShapeError, r"histogram_bin_edges: string bins"),
    (lambda: L.norm(X34, "nuc", axis=0), fg.ShapeError, r"vector_norm: invalid ord 'nuc' for a vector norm"),
    (lambda: L.svd(V4), fg.ShapeError, r"svd: a needs matrices in its last two axes"),
    (lambda: L.norm(X34, 3), fg.ShapeError, r"norm: invalid ord 3 for a matrix norm"),
    (lambda: L.norm(V4, "fro"), fg.ShapeError, r"vector_norm: invalid ord 'fro'"),
    (lambda: L.norm(X234, axis=(0, 1, 2)), fg.ShapeError, r"norm: 3 axes .* one axis for a vector norm"),
    (lambda: L.norm(X34, axis=(0, 0)), fg.ShapeError, r"norm: repeated axis"),
    (lambda: L.matrix_power(X34, 2), fg.ShapeError, r"matrix_power: needs square matrices .* \(3, 4\)"),
    (lambda: L.outer(X34, V4), fg.ShapeError, r"outer: the operands must be 1-D"),
    (lambda: L.cross(V4, V4), fg.ShapeError, r"cross: both operands must hold 3-vectors"),
    (lambda: L.multi_dot([V4]), fg.ShapeError, r"multi_dot: needs a sequence of at least two"),
    (lambda: fg.cross(V4, V4), fg.ShapeError, r"cross: the vectors must have 2 or 3 components, got 4"),
    (lambda: fg.cross(np.ones(3, bool), np.ones(3, bool)), fg.DTypeError, r"cross: bool"),
    (lambda: fg.kron(np.ones(3, bool), np.ones(3, bool)), fg.DTypeError, r"kron: bool"),
    (lambda: fg.vecdot(X34, V4[:3]), fg.ShapeError, r"vecdot: axis -1 of \(3, 4\) and of \(3,\) differ"),
    (lambda: fg.matvec(X34, V4[:3]), fg.ShapeError, r"matvec: needs a matrix .* \(3, 4\) and \(3,\)"),
    (lambda: fg.ldexp(V4, V4), fg.DTypeError, r"ldexp: the exponent x2 must be integers"),
    (lambda: fg.insert(X34, np.float32([1.5]), 1), fg.ShapeError, r"insert: obj must be an int, a slice"),
    (lambda: fg.trace(lambda i: fg.insert(X34, i, 1), np.int32(1)), fg.TraceError, r"insert: obj"),
    (lambda: fg.insert(X34, [0, 1], np.ones(3), axis=1), fg.ShapeError, r"insert: values of shape \(3,\)"),
    (lambda: fg.delete(X34, 7, axis=1), fg.ShapeError, r"delete: index 7 is out of bounds for axis 1 with size 4"),
    (lambda: fg.delete(X34, np.array([True]), axis=1), fg.ShapeError, r"delete: a bool obj must be 1-D of length 4"),
    (lambda: fg.fliplr(V4), fg.ShapeError, r"fliplr: needs at least 2 axes"),
    (lambda: fg.matrix_transpose(V4), fg.ShapeError, r"matrix_transpose: needs at least 2 axes"),
    (lambda: fg.block([(X34,)]), fg.ShapeError, r"block: nests lists, not tuples"),
    (lambda: fg.block([[X34], X34]), fg.ShapeError, r"block: the lists are nested to different depths"),
    (lambda: fg.broadcast_shapes((2, 3), (4,)), fg.ShapeError, r"broadcast_shapes: cannot broadcast \(2, 3\) with"),
    (lambda: fg.diff(X34, -1), fg.ShapeError, r"diff: n must be a static non-negative integer"),
    (lambda: fg.select([X34 > 0], [X34, X34]), fg.ShapeError, r"select: needs as many conditions as choices"),
    (lambda: fg.stack(np.float32(2)), fg.ShapeError, r"stack: expected a list or tuple of arrays, or an array of at"),
    (lambda: fg.concatenate(7), fg.TraceError, r"concatenate: expected a list or tuple of arrays, got a int"),
    (lambda: fg.choose(np.int32([0, 3]), [V4, V4]), fg.ShapeError, r"choose: an entry of a is outside 0..1"),
    (lambda: fg.trace(lambda i: fg.choose(i, [V4, V4]), np.int32([0])), fg.TraceError, r"choose: .*mode='wrap'"),
    (lambda: fg.choose(np.int32([0, 1, 0]), [V4, V4], mode="clip"), fg.ShapeError, r"choose: cannot broadcast"),
    (lambda: fg.ravel_multi_index((np.int32([3]), np.int32([0])), (3, 4)), fg.ShapeError,
     r"ravel_multi_index: an index of \[3\] is out of range"),
    (lambda: fg.unravel_index(np.float32([1]), (2, 2)), fg.DTypeError, r"unravel_index: indices must be integers"),
    (lambda: fg.compress(np.array([True, False, False, False, True]), V4), fg.ShapeError,
     r"compress: condition holds past the 4 entries"),
    (lambda: fg.finfo(fg.int32), fg.DTypeError, r"finfo: i32 is not a float dtype"),
    (lambda: fg.iinfo(fg.float32), fg.DTypeError, r"iinfo: f32 is not an integer dtype"),
    (lambda: fg.isdtype(fg.float32, "real"), fg.DTypeError, r"isdtype: unknown kind 'real'"),
    (lambda: fg.can_cast(fg.float32, fg.int32, "sometimes"), fg.DTypeError, r"can_cast: casting='sometimes'"),
    (lambda: fg.result_type(), fg.TraceError, r"result_type: at least one"),
    (lambda: fg.dtype("complex64"), fg.DTypeError, r"dtype: unsupported dtype complex64"),
    (lambda: fg.array([1, 2], order="F"), fg.TraceError, r"array: only order='K'"),
    (lambda: fg.size(X34, 2), fg.TraceError, r"size: axis 2 is out of range"),
    (lambda: fg.put(X34, np.int32([0]), 1.0), fg.InputError, r"put: fgrad arrays are immutable.*inplace=False"),
    (lambda: fg.put(X34, np.int32([0]), 1.0, mode="raise", inplace=False), fg.ShapeError, r"put: mode must be"),
    (lambda: fg.put(X34, np.float32([0]), 1.0, inplace=False), fg.DTypeError, r"put: ind must be integers"),
    (lambda: fg.place(X34, X34 > 0, 1.0), fg.InputError, r"place: .*inplace=False"),
    (lambda: fg.place(X34, V4 > 0, 1.0, inplace=False), fg.ShapeError, r"place: arr \(3, 4\) and mask \(4,\)"),
    (lambda: fg.place(X34, X34 > 0, np.float32([]), inplace=False), fg.ShapeError, r"place: vals is empty"),
    (lambda: fg.fill_diagonal(V4, 1.0, inplace=False), fg.ShapeError, r"fill_diagonal: needs a 2-D array"),
    (lambda: fg.fill_diagonal(X34, 1.0, wrap=True, inplace=False), fg.InputError, r"fill_diagonal: wrap=True"),
    (lambda: fg.histogramdd(V4), fg.ShapeError, r"histogramdd: sample must be 2-D"),
    (lambda: fg.histogramdd(X34, [2, 3]), fg.ShapeError, r"histogramdd: bins must give one entry per axis \(4\)"),
    (lambda: fg.trace(lambda x: fg.trim_zeros(x), V4), fg.TraceError, r"trim_zeros: the result's shape depends"),
    (lambda: fg.mask_indices(3, 1), fg.TraceError, r"mask_indices: mask_func must be a function"),
])
def test_refused_forms_name_the_function_and_the_line(call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert "test_numpy_extras.py:" in str(info.value)


def test_host_names_as_jax_s():
    """jax.numpy's names for values on the host: the type of every fgrad value, bytes and text,
    printing."""
    x = fg.ones(3) / 3
    assert isinstance(x, fg.numpy.ndarray) and isinstance(fg.device_put(x), fg.numpy.ndarray)
    assert not isinstance(np.ones(2), fg.numpy.ndarray) and not isinstance(np.ones(2), jnp.ndarray)
    assert fg.jit(lambda v: v * 2.0 if isinstance(v, fg.numpy.ndarray) else v)(x).numpy().tolist() == \
        (np.ones(3, np.float32) / 3 * 2).tolist()
    with np.printoptions(precision=2), fg.printoptions(precision=3):
        assert fg.array_str(x) == jnp.array_str(jnp.asarray(x)) == "[0.333 0.333 0.333]"
    assert fg.array_repr(x) == "array([0.33333334, 0.33333334, 0.33333334], dtype=float32)"
    assert fg.get_printoptions() == np.get_printoptions()
    assert fg.iterable(x) and not fg.iterable(fg.asarray(2.0)) and fg.iterable(3) is jnp.iterable(3) is False
    data = np.float64([1.5, -2.0, 3.0]).tobytes()
    for args in ((data,), (data, float, 2), (data, float, -1, 8), (data[:8], np.float32)):
        want = jnp.frombuffer(*args)
        got = fg.frombuffer(*args)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    assert np.array_equal(fg.frombuffer(np.int32([7, -1]).tobytes(), np.int32), [7, -1])
    got, want = fg.fromstring("1 2 3", dtype=int, sep=" "), jnp.fromstring("1 2 3", dtype=int, sep=" ")
    assert got.dtype == want.dtype and np.array_equal(got, want)
    with pytest.raises(fg.InputError, match="frombuffer: buffer size must be a multiple of element size"):
        fg.frombuffer(b"abc", np.float32)
    with pytest.raises(fg.InputError, match="fromiter: is not supported, as in JAX"):
        fg.fromiter(range(3), float)
    with pytest.raises(fg.TraceError, match="array_str: the value of a traced Tensor"):
        fg.jit(lambda v: fg.asarray(len(fg.array_str(v))))(x)
