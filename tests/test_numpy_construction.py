"""Building arrays against jax.numpy itself: unstack, rollaxis, diagflat, ix_, empty_like,
fromfunction, vander, the windows, and the index objects mgrid, ogrid, r_, c_, s_, index_exp.
Each runs eagerly and traced (through interpret), a few compiled to WGSL, and must give JAX's
values, dtypes and shapes; the forms fgrad refuses name the function and the user's line."""

from __future__ import annotations

import dataclasses
import functools

import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, over_arrays, same, table_params

draws = Draws(11)
rng, f32, i32 = draws.rng, draws.f32, draws.i32


X34, X2345, V4, V3 = f32(3, 4), f32(2, 3, 4, 5), f32(4), f32(3)
BOOLS = np.array([[True, False, True], [False, False, True]])
ROLLS = [(2, 0), (1, 4), (-1, -3), (0, 2), (3, 1), (0, 0), (3, 4), (1, -4), (2, 3)]
WINDOWS = ("hanning", "hamming", "bartlett", "blackman")
SIZES = (0, 1, 2, 7, 8)

TABLE = [
    # (name, fgrad function, jax.numpy function, argument sets): array arguments are traced
    ("unstack", lambda x: [fg.unstack(x), fg.unstack(x, axis=1), fg.unstack(x, axis=-1)],
     lambda x: [jnp.unstack(x), jnp.unstack(x, axis=1), jnp.unstack(x, axis=-1)],
     [(X34,), (i32(2, 3, 1),), (BOOLS,), (np.zeros((2, 0), np.float32),)]),
    ("unstack-1d", lambda x: fg.unstack(x), lambda x: jnp.unstack(x), [(V4,), (np.uint32([3, 0]),)]),
    ("rollaxis", lambda x: [fg.rollaxis(x, a, s) for a, s in ROLLS] + [fg.rollaxis(x, 2)],
     lambda x: [jnp.rollaxis(x, a, s) for a, s in ROLLS] + [jnp.rollaxis(x, 2)], [(X2345,), (i32(1, 2, 3, 2),)]),
    ("diagflat", lambda v: [fg.diagflat(v, k) for k in (0, 1, -2, 3)] + [fg.diagflat(v)],
     lambda v: [jnp.diagflat(v, k) for k in (0, 1, -2, 3)] + [jnp.diagflat(v)],
     [(V4,), (i32(2, 2),), (np.float32(2.5),), (np.zeros(0, np.int32),), (BOOLS,), (np.uint32([[7]]),)]),
    ("ix_", lambda a, b: [fg.ix_(a, b), fg.ix_(b), fg.ix_(a, b, a)],
     lambda a, b: [jnp.ix_(a, b), jnp.ix_(b), jnp.ix_(a, b, a)],
     [(i32(2), f32(3)), (np.zeros(0, np.float32), np.uint32([4, 1])), (np.int32([5]), np.zeros(0, np.int32))]),
    ("ix_-none", lambda: fg.ix_(), lambda: jnp.ix_(), [()]),
    ("ix_-gather", lambda x, r, c: x[fg.ix_(r, c)], lambda x, r, c: x[jnp.ix_(r, c)],
     [(X34, np.int32([0, 2]), np.int32([3, 1, 1])), (i32(4, 4), np.int32([1]), np.int32([0, 3]))]),
    ("empty_like", lambda x: [fg.empty_like(x), fg.empty_like(x, dtype=bool), fg.empty_like(x, shape=(2, 3)),
                              fg.empty_like(x, fg.float16, 4), fg.empty_like(x, shape=())],
     lambda x: [jnp.empty_like(x), jnp.empty_like(x, dtype=bool), jnp.empty_like(x, shape=(2, 3)),
                jnp.empty_like(x, jnp.float16, 4), jnp.empty_like(x, shape=())],
     [(X34,), (np.uint32([1, 2]),), (BOOLS,), (np.int32(3),)]),
    ("fromfunction", lambda a: [fg.fromfunction(lambda i, j: i * a + j, (2, 3)),
                                fg.fromfunction(lambda i: (i + 1) * a, (3,), dtype=int),
                                fg.fromfunction(lambda i, j, k: i - j * k + a, (2, 1, 3), dtype=fg.int32),
                                fg.fromfunction(lambda i, j: (i + j, i * j), (3, 2))],
     lambda a: [jnp.fromfunction(lambda i, j: i * a + j, (2, 3)),
                jnp.fromfunction(lambda i: (i + 1) * a, (3,), dtype=int),
                jnp.fromfunction(lambda i, j, k: i - j * k + a, (2, 1, 3), dtype=jnp.int32),
                jnp.fromfunction(lambda i, j: (i + j, i * j), (3, 2))],
     [(np.float32(1.5),), (np.int32(-2),), (V3,)]),
    # keywords go to the function unmapped, as jnp.fromfunction's documentation says (its vmap maps them)
    ("fromfunction-kwargs", lambda v: [fg.fromfunction(lambda i, j, v, c: fg.take(v, j) * c + i, (2, 3), v=v, c=2,
                                                       dtype=int),
                                       fg.fromfunction(lambda i: i * v, (2,), dtype=None)],
     lambda v: [jnp.fromfunction(functools.partial(lambda i, j, v, c: v[j] * c + i, v=v, c=2), (2, 3), dtype=int),
                jnp.fromfunction(lambda i: i * v, (2,), dtype=None)], [(V3,), (np.int32([1, -4, 2]),)]),
    ("vander", lambda x: [fg.vander(x), fg.vander(x, 2), fg.vander(x, 0), fg.vander(x, 5, increasing=True),
                          fg.vander(x, increasing=True), fg.vander(x, N=np.int32(3))],
     lambda x: [jnp.vander(x), jnp.vander(x, 2), jnp.vander(x, 0), jnp.vander(x, 5, increasing=True),
                jnp.vander(x, increasing=True), jnp.vander(x, N=np.int32(3))],
     [(V4,), (i32(3),), (np.float16([0.5, -1.5, 2]),), (np.zeros(0, np.float32),)]),
    ("vander-u32", lambda x: [fg.vander(x), fg.vander(x, 4, increasing=True)],
     lambda x: [jnp.vander(x), jnp.vander(x, 4, increasing=True)], [(np.uint32([2, 0, 5]),)]),
    ("windows", lambda: [getattr(fg, w)(m) for w in WINDOWS for m in SIZES] + [fg.hanning(np.int32(5))],
     lambda: [getattr(jnp, w)(m) for w in WINDOWS for m in SIZES] + [jnp.hanning(np.int32(5))], [()]),
    ("mgrid", lambda: [fg.mgrid[0:5, 0:3], fg.mgrid[0:4:1], fg.mgrid[0:1:4j], fg.mgrid[:2, :3], fg.mgrid[0:1:5j, 0:2],
                       fg.mgrid[-1:5:2.5], fg.mgrid[5:0:-1], fg.mgrid[1:3:3j, 1.5:3], fg.mgrid[5:], fg.mgrid[:0],
                       fg.mgrid[()], fg.mgrid[0:3,], fg.mgrid[0:2, 1:3, -1:1:3j], fg.mgrid[0:2:0]],
     lambda: [jnp.mgrid[0:5, 0:3], jnp.mgrid[0:4:1], jnp.mgrid[0:1:4j], jnp.mgrid[:2, :3], jnp.mgrid[0:1:5j, 0:2],
              jnp.mgrid[-1:5:2.5], jnp.mgrid[5:0:-1], jnp.mgrid[1:3:3j, 1.5:3], jnp.mgrid[5:], jnp.mgrid[:0],
              jnp.mgrid[()], jnp.mgrid[0:3,], jnp.mgrid[0:2, 1:3, -1:1:3j], jnp.mgrid[0:2:0]], [()]),
    ("ogrid", lambda: [fg.ogrid[0:4:1], fg.ogrid[0:1:4j], fg.ogrid[:2, :3], fg.ogrid[0:1:5j, 0:3], fg.ogrid[()],
                       fg.ogrid[2:-2:-1, 0:2, 0:3:2]],
     lambda: [jnp.ogrid[0:4:1], jnp.ogrid[0:1:4j], jnp.ogrid[:2, :3], jnp.ogrid[0:1:5j, 0:3], jnp.ogrid[()],
              jnp.ogrid[2:-2:-1, 0:2, 0:3:2]], [()]),
    ("r_", lambda a, b: [fg.r_[-1:5:1, 0, 0, a], fg.r_[-1:1:6j, 0, b], fg.r_["0,2", a, b], fg.r_["0,2,0", a, b],
                         fg.r_["0,2,-2", a, b], fg.r_["r", a, b], fg.r_["c", a, b], fg.r_[a], fg.r_[a, 2.5],
                         fg.r_["1,2", a, b], fg.r_["-1,3,1", a, b], fg.r_["0,2,0,7", a], fg.r_[3, 0:2]],
     lambda a, b: [jnp.r_[-1:5:1, 0, 0, a], jnp.r_[-1:1:6j, 0, b], jnp.r_["0,2", a, b], jnp.r_["0,2,0", a, b],
                   jnp.r_["0,2,-2", a, b], jnp.r_["r", a, b], jnp.r_["c", a, b], jnp.r_[a], jnp.r_[a, 2.5],
                   jnp.r_["1,2", a, b], jnp.r_["-1,3,1", a, b], jnp.r_["0,2,0,7", a], jnp.r_[3, 0:2]],
     [(i32(3), i32(3)), (V3, np.float16([1, 2, 3])), (np.uint32([1, 2, 3]), np.array([True, False, True]))]),
    ("r_-numbers", lambda: [fg.r_[1.5, 2], fg.r_[np.float16(1), 2], fg.r_[[1, 2], np.float16([3])], fg.r_[0:3, 1.5],
                            fg.r_[True, 2], fg.r_[[[1, 2]], [[3, 4]]], fg.r_["0,2", 1, 2]],
     lambda: [jnp.r_[1.5, 2], jnp.r_[np.float16(1), 2], jnp.r_[[1, 2], np.float16([3])], jnp.r_[0:3, 1.5],
              jnp.r_[True, 2], jnp.r_[[[1, 2]], [[3, 4]]], jnp.r_["0,2", 1, 2]], [()]),
    ("r_-matrices", lambda m, n: [fg.r_[m, n], fg.r_["1", m, n], fg.r_["r", m, n], fg.r_["0,3", m, n],
                                  fg.r_["2,3,0", m, n]],
     lambda m, n: [jnp.r_[m, n], jnp.r_["1", m, n], jnp.r_["r", m, n], jnp.r_["0,3", m, n], jnp.r_["2,3,0", m, n]],
     [(X34, f32(3, 4)), (i32(2, 2), np.uint32([[1, 2], [3, 4]]))]),
    ("c_", lambda m, a, b: [fg.c_[m, m], fg.c_[a, b], fg.c_["0,2", a, b], fg.c_["0,2,-1", a, b], fg.c_["r", a, b],
                            fg.c_["1,3,-2", a], fg.c_[m, a[:2], 0:2], fg.c_[a, 1:2:3j]],
     lambda m, a, b: [jnp.c_[m, m], jnp.c_[a, b], jnp.c_["0,2", a, b], jnp.c_["0,2,-1", a, b], jnp.c_["r", a, b],
                      jnp.c_["1,3,-2", a], jnp.c_[m, a[:2], 0:2], jnp.c_[a, 1:2:3j]],
     [(f32(2, 3), V3, f32(3)), (i32(2, 2), i32(3), np.uint32([0, 1, 2]))]),
]


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_matches_jax_numpy(ours, theirs, args, name):
    want = jax_call(theirs, *args, jit=True)
    same(ours(*args), want, f"{name} eager")
    traced, arrays = over_arrays(ours, args)

    same(fg.interpret(fg.trace(traced, *arrays), *arrays), want, f"{name} traced")


def test_compiled_to_wgsl_matches_jax_numpy():
    def build(np_):
        def f(x, v, r, c):
            return [np_.mgrid[0:2, 0:3], np_.ogrid[0:1:3j, 0:2], np_.hanning(7) * v[0], np_.blackman(4),
                    np_.r_["0,2", v, v], np_.r_[0:2, v, 2.5], np_.c_[x, x], np_.c_[v, v], np_.vander(v, 3),
                    np_.diagflat(v, 1), *np_.unstack(x, axis=1), np_.rollaxis(x, 1), x[np_.ix_(r, c)],
                    np_.fromfunction(lambda i, j: i * v[j] + j, (2, 3), dtype=int), np_.empty_like(x, shape=(2,))]
        return f

    args = (f32(2, 3), V3, np.int32([1, 0]), np.int32([2, 0, 1]))
    want = jax_call(build(jnp), *args, jit=True)
    same(fg.tree_map(np.asarray, fg.jit(build(fg))(*args)), want, "compiled", rtol=1e-5, atol=1e-5)


def test_index_expressions_are_numpy_s():
    for key in (np.s_[1:3, ::2], np.s_[3], np.s_[..., None, 1:], np.s_[()], np.s_[::-1]):
        assert fg.s_[key] == jnp.s_[key] == np.s_[key], key
        assert fg.index_exp[key] == jnp.index_exp[key] == np.index_exp[key], key
    same(fg.asarray(X34)[fg.s_[1:, ::2]], jnp.asarray(X34)[jnp.s_[1:, ::2]], "indexed with s_")
    same(fg.asarray(X34)[fg.index_exp[2]], jnp.asarray(X34)[jnp.index_exp[2]], "indexed with index_exp")


def test_index_objects_are_frozen_and_exported():
    for name in ("mgrid", "ogrid", "r_", "c_", "s_", "index_exp"):
        obj = getattr(fg, name)
        assert obj is getattr(fg.numpy, name) and name in fg.numpy.__all__
        field = dataclasses.fields(obj)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, None)
    assert len(fg.r_) == len(jnp.r_) == 0 and len(fg.c_) == len(jnp.c_) == 0


@pytest.mark.parametrize("call, error, match", [
    (lambda: fg.unstack(np.float32(1)), fg.ShapeError, r"unstack: needs at least 1 axis"),
    (lambda: fg.unstack(X34, axis=2), fg.ShapeError, r"unstack: axis 2 is out of range"),
    (lambda: fg.rollaxis(X2345, 0, 5), fg.ShapeError, r"rollaxis: start 5 must be in \[-4, 4\]"),
    (lambda: fg.rollaxis(X2345, 4), fg.ShapeError, r"rollaxis: axis 4 is out of range"),
    (lambda: fg.rollaxis(X34, 0, 1.0), fg.ShapeError, r"rollaxis: start must be an integer"),
    (lambda: fg.diagflat(V4, 1.5), fg.ShapeError, r"diagflat: k must be an integer"),
    (lambda: fg.ix_(X34), fg.ShapeError, r"ix_: arguments must be 1-D, got shape \(3, 4\)"),
    (lambda: fg.ix_(V4, np.array([True])), fg.DTypeError, r"ix_: argument 1 is bool"),
    (lambda: fg.empty_like(X34, dtype="complex64"), fg.DTypeError, r"empty_like: "),
    (lambda: fg.empty_like(X34, shape=(-1,)), fg.ShapeError, r"empty_like: negative dimensions"),
    (lambda: fg.fromfunction(3, (2,)), fg.TraceError, r"fromfunction: function must be callable"),
    (lambda: fg.fromfunction(lambda i: i, (-1,)), fg.ShapeError, r"fromfunction: negative dimensions"),
    (lambda: fg.fromfunction(lambda i: i, (2,), dtype="complex64"), fg.DTypeError, r"fromfunction: "),
    (lambda: fg.vander(X34), fg.ShapeError, r"vander: x must be 1-D, got \(3, 4\)"),
    (lambda: fg.vander(np.array([True])), fg.DTypeError, r"vander: x is bool"),
    (lambda: fg.vander(V4, -1), fg.ShapeError, r"vander: N must be at least 0, got -1"),
    (lambda: fg.trace(lambda n: fg.vander(V4, n), np.int32(2)), fg.TraceError, r"vander: N is a traced"),
    (lambda: fg.hanning(-1), fg.ShapeError, r"hanning: M must be at least 0, got -1"),
    (lambda: fg.blackman(2.5), fg.ShapeError, r"blackman: M must be an integer, got 2.5"),
    (lambda: fg.trace(lambda m: fg.hamming(m), np.int32(3)), fg.TraceError, r"hamming: M is a traced"),
    (lambda: fg.bartlett(None), fg.ShapeError, r"bartlett: M must be an integer"),
    (lambda: fg.mgrid[3], fg.ShapeError, r"mgrid: expected slices .* got 3"),
    (lambda: fg.ogrid[0:3, 4], fg.ShapeError, r"ogrid: expected slices"),
    (lambda: fg.trace(lambda n: fg.mgrid[0:n], np.int32(3)), fg.TraceError, r"mgrid: the slice stop is a traced"),
    (lambda: fg.trace(lambda n: fg.r_[n:4], np.int32(3)), fg.TraceError, r"r_: the slice start is a traced"),
    (lambda: fg.mgrid[0::3j], fg.ShapeError, r"mgrid: a complex step .* needs a stop"),
    (lambda: fg.ogrid[0:"a"], fg.ShapeError, r"ogrid: arange: start, stop and step must be finite"),
    (lambda: fg.r_["a,b", V4], fg.ShapeError, r"r_: could not understand the directive 'a,b'"),
    (lambda: fg.c_["0,", V4], fg.ShapeError, r"c_: could not understand the directive '0,'"),
    (lambda: fg.r_[V4, "r"], fg.ShapeError, r"r_: the string directive 'r' must come first"),
    (lambda: fg.r_[()], fg.ShapeError, r"r_: needs at least one value to join"),
    (lambda: fg.c_["r"], fg.ShapeError, r"c_: needs at least one value to join"),
    (lambda: fg.r_["2", V4], fg.ShapeError, r"r_: concatenate: axis 2 is out of range"),
    (lambda: fg.r_[V4, X34], fg.ShapeError, r"r_: concatenate: operands have different ranks"),
    (lambda: fg.r_[V4, None], fg.DTypeError, r"r_: .*NoneType"),
])
def test_refused_forms_name_the_function_and_the_line(call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert "test_numpy_construction.py:" in str(info.value)
