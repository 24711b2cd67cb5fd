"""The set functions of 1-D arrays (intersect1d, union1d, setdiff1d, setxor1d), lexsort, the array
API's unique_all/unique_counts/unique_inverse/unique_values, and the functions that apply functions
(vectorize, apply_along_axis, apply_over_axes, piecewise), against jax.numpy itself: eagerly, traced
(through interpret) and, for a few, compiled to WGSL; gradients against jax.grad; and the refused
forms, which name the function and the user's line."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, leaves, over_arrays, same, table_params

nan = np.nan
draws = Draws(11)
rng, f32, i32 = draws.rng, draws.f32, draws.i32


# ---------------------------------------------------------------------------
# Inputs: duplicates, NaNs (several, and in both operands), -0.0 beside 0.0, ints, empties
# ---------------------------------------------------------------------------

A = np.float32([3, 1, nan, 1, -2, 3, nan, -0.0])
B = np.float32([nan, 1, 3, 5, 0, 5, 7])
# Of A's and B's shapes and dtype, so that jax.numpy compiles each sized form once for all three pairs
POS, POS_B = np.float32([5, 2, 2, 8, 9, 9, 5, 4]), np.float32([8, 2, 1, 4, 4, 3, 1])  # the smallest result is not 0
FAR = np.float32([10, 11, 10, 12, 13, 14, 15])  # meets none of A
UA, UB = np.float32([4, -1, 2.5, 0]), np.float32([2.5, 9, 4, -3])  # no duplicates (for assume_unique)
IA, IB = i32(8), i32(7)
I2 = i32(3, 4)
EMPTY = np.float32([])
SAME_SHAPES = [(A, B), (POS, POS_B), (A, FAR), (IA, IB)]
PAIRS = [*SAME_SHAPES, (I2, IB), (IA, B), (EMPTY, B), (B, EMPTY)]


def _set_rows(name, ours, theirs, kws, pairs=PAIRS):
    return [(f"{name}-{kw}", (lambda kw: lambda a, b: ours(a, b, **kw))(kw),
             (lambda kw: lambda a, b: theirs(a, b, **kw))(kw), pairs) for kw in kws]


TABLE = [
    *_set_rows("intersect1d", fg.intersect1d, jnp.intersect1d, [{}, dict(return_indices=True)]),
    *_set_rows("intersect1d", fg.intersect1d, jnp.intersect1d, [dict(size=9), dict(size=2, fill_value=-7)],
               [*SAME_SHAPES, (EMPTY, B)]),
    # JAX's sized return_indices fails on an empty operand
    *_set_rows("intersect1d", fg.intersect1d, jnp.intersect1d, [dict(size=9, return_indices=True)], SAME_SHAPES),
    *_set_rows("intersect1d-unique", fg.intersect1d, jnp.intersect1d,
               [dict(assume_unique=True), dict(assume_unique=True, return_indices=True, size=5)], [(UA, UB)]),
    *_set_rows("union1d", fg.union1d, jnp.union1d, [{}], PAIRS[:-2]),
    *_set_rows("union1d", fg.union1d, jnp.union1d, [dict(size=16), dict(size=3, fill_value=-7)], SAME_SHAPES),
    *_set_rows("union1d-empty", fg.union1d, jnp.union1d, [dict(size=3, fill_value=-7)], [(EMPTY, EMPTY)]),
    *_set_rows("setdiff1d", fg.setdiff1d, jnp.setdiff1d, [{}]),
    *_set_rows("setdiff1d", fg.setdiff1d, jnp.setdiff1d, [dict(size=9), dict(size=2, fill_value=-7)],
               [*SAME_SHAPES, (EMPTY, B), (B, EMPTY)]),
    *_set_rows("setdiff1d-unique", fg.setdiff1d, jnp.setdiff1d,
               [dict(assume_unique=True), dict(assume_unique=True, size=6)], [(UA, UB), (UB, UA)]),
    *_set_rows("setxor1d", fg.setxor1d, jnp.setxor1d, [{}]),
    *_set_rows("setxor1d", fg.setxor1d, jnp.setxor1d, [dict(size=16), dict(size=3, fill_value=-7)],
               [*SAME_SHAPES, (EMPTY, B)]),
    *_set_rows("setxor1d-unique", fg.setxor1d, jnp.setxor1d, [dict(assume_unique=True, size=9)], [(UA, UB)]),
]

UNIQUE_INPUTS = [(A,), (IA,), (I2,), (np.float32([nan, nan, 2, nan, -0.0, 0.0, 1, nan]),)]
for fn in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
    ours_fn, theirs_fn = getattr(fg, fn), getattr(jnp, fn)
    TABLE += [
        (fn, ours_fn, theirs_fn, UNIQUE_INPUTS),
        (f"{fn}-size", (lambda f: lambda x: f(x, size=10))(ours_fn), (lambda f: lambda x: f(x, size=10))(theirs_fn),
         UNIQUE_INPUTS),
        (f"{fn}-size-fill", (lambda f: lambda x: f(x, size=3, fill_value=9))(ours_fn),
         (lambda f: lambda x: f(x, size=3, fill_value=9))(theirs_fn), [*UNIQUE_INPUTS, (EMPTY,)]),
    ]

KEY_F = np.float32([[nan, 0, -0.0, 1, 1, nan], [2, 2, 1, 1, -1, 0]])
KEY_I = np.int32([[1, 2, 1, 2, 1, 2], [0, 0, 1, 1, 0, 0]])
TABLE += [
    ("lexsort", lambda a, b: fg.lexsort((a, b)), lambda a, b: jnp.lexsort((a, b)),
     [(KEY_I, KEY_F), (KEY_F, KEY_I), (i32(4, 5, lo=0, hi=1), i32(4, 5, lo=0, hi=1))]),
    ("lexsort-axis0", lambda a, b, c: fg.lexsort([a, b, c], axis=0),
     lambda a, b, c: jnp.lexsort([a, b, c], axis=0), [(KEY_I, KEY_F, KEY_I[::-1]), (I2, I2 * 0, -I2)]),
    ("lexsort-one", fg.lexsort, jnp.lexsort, [(KEY_I,), (KEY_F,), (np.int32([[3, 1, 2]]),)]),
    ("lexsort-0d", lambda a: fg.lexsort([a, a]), lambda a: jnp.lexsort([a, a]), [(np.float32(2),)]),
]

X234, V4 = f32(2, 3, 4), f32(4)
XS = np.float32([-2, -0.5, 0, 0.5, 1, 3, nan])
XI = np.int32([-3, 0, 1, 2, 5])


def _matvec(m, v):
    return m @ v


TABLE += [
    ("vectorize-scalars", lambda a, b: fg.vectorize(lambda p, q: p * q + fg.sin(p))(a, b),
     lambda a, b: jnp.vectorize(lambda p, q: p * q + jnp.sin(p))(a, b), [(X234, V4), (X234[:, :1], V4[None, None])]),
    ("vectorize-signature", lambda m, v: fg.vectorize(_matvec, signature="(n,k),(k)->(n)")(m, v),
     lambda m, v: jnp.vectorize(_matvec, signature="(n,k),(k)->(n)")(m, v),
     [(X234, V4), (X234, f32(5, 1, 4)), (X234[0], V4), (i32(3, 2), i32(4, 1, 2))]),
    ("vectorize-reduce", lambda x: fg.vectorize(lambda r: fg.max(r) - fg.min(r), signature="(n)->()")(x),
     lambda x: jnp.vectorize(lambda r: jnp.max(r) - jnp.min(r), signature="(n)->()")(x), [(X234,), (I2,)]),
    ("vectorize-outputs",
     lambda x, y: fg.vectorize(lambda p, q: (p + q, fg.outer(p, q)), signature="(n),(n)->(n),(n,n)")(x, y),
     lambda x, y: jnp.vectorize(lambda p, q: (p + q, jnp.outer(p, q)), signature="(n),(n)->(n),(n,n)")(x, y),
     [(X234, V4), (V4, V4)]),
    ("vectorize-excluded", lambda x: fg.vectorize(lambda p, k, s: p[k] * s, excluded={1, "s"}, signature="(n)->()")(
        x, 2, s=3.0), lambda x: jnp.vectorize(lambda p, k, s: p[k] * s, excluded={1, "s"}, signature="(n)->()")(
        x, 2, s=3.0), [(X234,)]),
    ("vectorize-none", lambda x: fg.vectorize(lambda p, q: p * 2 if q is None else p)(x, None),
     lambda x: jnp.vectorize(lambda p, q: p * 2 if q is None else p)(x, None), [(V4,)]),
    ("apply_along_axis", lambda x: [fg.apply_along_axis(lambda r: r[:2] * r[-1], ax, x) for ax in (0, 1, -1)],
     lambda x: [jnp.apply_along_axis(lambda r: r[:2] * r[-1], ax, x) for ax in (0, 1, -1)], [(X234,), (I2[None],)]),
    ("apply_along_axis-shapes", lambda x: [fg.apply_along_axis(fg.sum, 1, x),
                                           fg.apply_along_axis(lambda r: fg.outer(r, r), 1, x),
                                           fg.apply_along_axis(lambda r, p, c: fg.sum(r ** p) + c, 2, x, 2, c=1.0)],
     lambda x: [jnp.apply_along_axis(jnp.sum, 1, x), jnp.apply_along_axis(lambda r: jnp.outer(r, r), 1, x),
                jnp.apply_along_axis(lambda r, p, c: jnp.sum(r ** p) + c, 2, x, 2, c=1.0)], [(X234,)]),
    ("apply_over_axes", lambda x: [fg.apply_over_axes(fg.sum, x, [0, 2]), fg.apply_over_axes(fg.max, x, (1, -1)),
                                   fg.apply_over_axes(lambda a, ax: fg.cumsum(a, ax), x, [2, 0])],
     lambda x: [jnp.apply_over_axes(jnp.sum, x, [0, 2]), jnp.apply_over_axes(jnp.max, x, (1, -1)),
                jnp.apply_over_axes(lambda a, ax: jnp.cumsum(a, ax), x, [2, 0])], [(X234,), (I2[:, None],)]),
    ("piecewise", lambda x: fg.piecewise(x, [x < 0, x > 0.7], [lambda t: -t, lambda t: t * t, 0.5]),
     lambda x: jnp.piecewise(x, [x < 0, x > 0.7], [lambda t: -t, lambda t: t * t, 0.5]), [(XS,), (XI,)]),
    ("piecewise-overlap", lambda x: fg.piecewise(x, [x > -1, x > 1], [lambda t, k: t * k, 7.5], 3),
     lambda x: jnp.piecewise(x, [x > -1, x > 1], [lambda t, k: t * k, 7.5], 3), [(XS,), (XI,)]),
    ("piecewise-scalar-conds", lambda x: fg.piecewise(x, np.array([False, True]), [lambda t: t + 1, fg.exp]),
     lambda x: jnp.piecewise(x, jnp.array([False, True]), [lambda t: t + 1, jnp.exp]), [(XS,), (X234,)]),
    ("piecewise-broadcast", lambda x, c: fg.piecewise(x, [c], [lambda t: t * 2, 7.5]),
     lambda x, c: jnp.piecewise(x, [c], [lambda t: t * 2, 7.5]),
     [(f32(2, 2), np.array([True, False])), (XI[:2], np.array([True, False]))]),
]

# the lengths of these rows' results are set by the values (no size=): traced, they are refused
LENGTH_FROM_VALUES = ("intersect1d", "union1d", "setdiff1d", "setxor1d", "unique_all", "unique_counts",
                      "unique_inverse", "unique_values")
EAGER_ONLY = {name for name, *_ in TABLE if "size" not in name and name.split("-")[0] in LENGTH_FROM_VALUES}


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_matches_jax_numpy(ours, theirs, args, name):
    want = jax_call(theirs, *args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(ours(*args), want, f"{name} eager")
        traced, arrays = over_arrays(ours, args)

        if name in EAGER_ONLY:
            with pytest.raises(fg.TraceError, match=r"size="):
                fg.trace(traced, *arrays)
            return
        same(fg.interpret(fg.trace(traced, *arrays), *arrays), want, f"{name} traced")


def test_every_new_function_has_rows():
    names = {"intersect1d", "union1d", "setdiff1d", "setxor1d", "lexsort", "unique_all", "unique_counts",
             "unique_inverse", "unique_values", "vectorize", "apply_along_axis", "apply_over_axes", "piecewise"}
    assert names <= set(fg.numpy.__all__) and names <= set(fg.__all__)
    covered = {name.split("-")[0] for name, *_ in TABLE}
    assert names <= covered, names - covered


def test_set_results_sized_zero_and_one_empty_operand():
    for f in (fg.intersect1d, fg.setdiff1d, fg.setxor1d):
        for a, b in ((A, B), (EMPTY, EMPTY), (EMPTY, B)):
            out = f(a, b, size=0)
            assert out.shape == (0,) and out.dtype == np.float32, f
    values, i1, i2 = fg.intersect1d(EMPTY, B, size=2, return_indices=True)
    same((values, i1, i2), (np.float32([0, 0]), np.int32([0, 0]), np.int32([7, 7])), "intersect1d of an empty")


def test_concrete_inputs_inside_a_trace_need_no_size():
    def f(x):
        return (fg.intersect1d(A, B, return_indices=True), fg.union1d(A, IB) * x, fg.setdiff1d(B, A) * x,
                fg.setxor1d(IA, B) * x, fg.unique_counts(A))

    x = np.float32(2)
    want = (jnp.intersect1d(A, B, return_indices=True), jnp.union1d(A, IB) * x, jnp.setdiff1d(B, A) * x,
            jnp.setxor1d(IA, B) * x, jnp.unique_counts(A))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(fg.interpret(fg.trace(f, x), x), want, "concrete inside a trace")


# ---------------------------------------------------------------------------
# Compiled to WGSL (llvmpipe on a machine without a GPU): tiny shapes, one program each
# ---------------------------------------------------------------------------


def test_set_functions_compile():
    def sets(a, b):
        return (fg.intersect1d(a, b, size=4, return_indices=True), fg.union1d(a, b, size=9),
                fg.setdiff1d(a, b, size=3, fill_value=-1), fg.setxor1d(a, b, size=6))

    def jsets(a, b):
        return (jnp.intersect1d(a, b, size=4, return_indices=True), jnp.union1d(a, b, size=9),
                jnp.setdiff1d(a, b, size=3, fill_value=-1), jnp.setxor1d(a, b, size=6))

    a, b = np.float32([3, 1, nan, 1, -0.0]), np.float32([nan, 1, 3, 5, 0])
    compiled = fg.jit(sets)
    for x, y in ((a, b), (b, a)):
        same(fg.tree_map(np.asarray, compiled(x, y)), jax_call(jsets, x, y), "compiled sets")


def test_unique_and_lexsort_compile():
    def ours(x, k):
        return fg.unique_all(x, size=5), fg.unique_counts(x, size=3, fill_value=9), fg.lexsort((x, k))

    def theirs(x, k):
        return jnp.unique_all(x, size=5), jnp.unique_counts(x, size=3, fill_value=9), jnp.lexsort((x, k))

    x, k = np.float32([2, nan, -1, 2, nan, 0]), np.int32([1, 0, 1, 0, 0, 1])
    same(fg.tree_map(np.asarray, fg.jit(ours)(x, k)), jax_call(theirs, x, k), "compiled unique and lexsort")


def test_mapping_functions_compile():
    def ours(m, v, x):
        return (fg.vectorize(lambda a, b: fg.sum(a * b), signature="(n),(n)->()")(m, v),
                fg.apply_along_axis(lambda r: r * fg.sum(r), 0, m), fg.apply_over_axes(fg.sum, m, [1]),
                fg.piecewise(x, [x < 0, x > 1], [lambda t: -t, lambda t: t * t, 0.25]))

    def theirs(m, v, x):
        return (jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")(m, v),
                jnp.apply_along_axis(lambda r: r * jnp.sum(r), 0, m), jnp.apply_over_axes(jnp.sum, m, [1]),
                jnp.piecewise(x, [x < 0, x > 1], [lambda t: -t, lambda t: t * t, 0.25]))

    args = (f32(2, 3), f32(3), np.float32([-1.5, 0.5, 2, nan]))
    same(fg.tree_map(np.asarray, fg.jit(ours)(*args)), jax_call(theirs, *args), "compiled mapping functions")


# ---------------------------------------------------------------------------
# Gradients through vectorize, apply_along_axis and piecewise, against jax.grad
# ---------------------------------------------------------------------------


def test_gradients_are_jax_s():
    def both(f, jf, *args, argnums=0):
        got = fg.grad(f, argnums=argnums)(*args)
        want = jax.grad(jf, argnums=argnums)(*args)
        for g, w in zip(leaves(got), leaves(want)):
            np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-5, atol=1e-6)

    m, v = f32(2, 3, 4), f32(4)
    both(lambda a, b: fg.sum(fg.vectorize(lambda p, q: fg.sum(p * q) * p, signature="(n),(n)->(n)")(a, b) ** 2),
         lambda a, b: jnp.sum(jnp.vectorize(lambda p, q: jnp.sum(p * q) * p, signature="(n),(n)->(n)")(a, b) ** 2),
         m, v, argnums=(0, 1))
    both(lambda a: fg.sum(fg.vectorize(lambda p: fg.tanh(p) * p)(a)),
         lambda a: jnp.sum(jnp.vectorize(lambda p: jnp.tanh(p) * p)(a)), m)
    both(lambda a: fg.sum(fg.apply_along_axis(lambda r: fg.softmax(r) * r, 1, a)),
         lambda a: jnp.sum(jnp.apply_along_axis(lambda r: jax.nn.softmax(r) * r, 1, a)), m)
    x = np.float32([-2, -0.5, 0.25, 0.7, 1.5, 3])
    both(lambda t: fg.sum(fg.piecewise(t, [t < 0, t > 1], [fg.sin, lambda u: u ** 3, 2.0])),
         lambda t: jnp.sum(jnp.piecewise(t, [t < 0, t > 1], [jnp.sin, lambda u: u ** 3, 2.0])), x)
    both(lambda t, k: fg.sum(fg.piecewise(t, [t > 0], [lambda u: u * k, lambda u: u * u])),
         lambda t, k: jnp.sum(jnp.piecewise(t, [t > 0], [lambda u: u * k, lambda u: u * u])),
         x, np.float32(1.5), argnums=(0, 1))


# ---------------------------------------------------------------------------
# Refusals: the function's name, what was wrong, and the user's line
# ---------------------------------------------------------------------------


def _bad_output(p):
    return p[:2]


@pytest.mark.parametrize("call, error, match", [
    (lambda: fg.trace(lambda a, b: fg.intersect1d(a, b), A, B), fg.TraceError,
     r"intersect1d: .*traced f32\[8\].*size=.*fg.intersect1d\(a, b, size=8\)"),
    (lambda: fg.trace(lambda b: fg.union1d(A, b), B), fg.TraceError, r"union1d: .*traced f32\[7\].*size="),
    (lambda: fg.trace(lambda b: fg.setdiff1d(A, b), B), fg.TraceError, r"setdiff1d: .*traced f32\[7\].*size="),
    (lambda: fg.trace(lambda a: fg.setxor1d(a, B), IA), fg.TraceError, r"setxor1d: .*traced i32\[8\].*size="),
    (lambda: fg.trace(lambda x: fg.unique_all(x), I2), fg.TraceError, r"unique_all: .*traced i32\[3,4\].*size="),
    (lambda: fg.trace(lambda x: fg.unique_values(x), A), fg.TraceError, r"unique_values: .*fg.unique_values\(x"),
    (lambda: fg.intersect1d(A, B, size=-1), fg.ShapeError, r"intersect1d: size must be a static non-negative"),
    (lambda: fg.setxor1d(A, B, size=2.5), fg.ShapeError, r"setxor1d: size must be a static non-negative integer"),
    (lambda: fg.union1d(EMPTY, EMPTY, size=2), fg.ShapeError, r"union1d: an empty input with size=2 needs fill_value"),
    (lambda: fg.unique_counts(EMPTY, size=1), fg.ShapeError, r"unique_counts: an empty input with size=1"),
    (lambda: fg.lexsort([]), fg.ShapeError, r"lexsort: needs at least one key"),
    (lambda: fg.lexsort([V4, I2]), fg.ShapeError, r"lexsort: all keys must have one shape, got \[\(4,\), \(3, 4\)\]"),
    (lambda: fg.lexsort([I2], axis=2), fg.ShapeError, r"lexsort: axis 2"),
    (lambda: fg.vectorize(abs, signature="(n) -> ()"), fg.ShapeError, r"vectorize: not a valid gufunc signature"),
    (lambda: fg.vectorize(abs, excluded={1.5}), fg.TraceError, r"vectorize: excluded holds only ints"),
    (lambda: fg.vectorize(abs, excluded={-1}), fg.TraceError, r"vectorize: excluded=\{-1\} holds a negative"),
    (lambda: fg.vectorize(_matvec, signature="(n,k),(k)->(n)")(V4, V4), fg.ShapeError,
     r"vectorize: input 0 of shape \(4,\) does not have enough axes for the core dimensions \('n', 'k'\)"),
    (lambda: fg.vectorize(_matvec, signature="(n,k),(k)->(n)")(X234, V4[:3]), fg.ShapeError,
     r"vectorize: inconsistent size for core dimension 'k': 3 in input 1"),
    (lambda: fg.vectorize(_bad_output, signature="(n)->(n)")(X234), fg.ShapeError,
     r"vectorize: inconsistent size for core dimension 'n': 2 in output 0"),
    (lambda: fg.vectorize(_bad_output, signature="(n)->()")(X234), fg.ShapeError,
     r"vectorize: output 0 of shape \(2,\) does not match the core dimensions \(\)"),
    (lambda: fg.vectorize(_bad_output, signature="(n)->(),()")(X234), fg.TraceError,
     r"vectorize: the function must return a tuple of 2 arrays"),
    (lambda: fg.vectorize(_bad_output, signature="(n)->(m)")(X234, V4), fg.TraceError,
     r"vectorize: the signature '\(n\)->\(m\)' takes 1 positional arguments, got 2"),
    (lambda: fg.vectorize(lambda p, y=1.0: p + y)(V4, y=V4), fg.TraceError,
     r"vectorize: keyword argument 'y' is not in excluded"),
    (lambda: fg.vectorize(lambda p, q: p, signature="(),(n)->()")(V4, None), fg.ShapeError,
     r"vectorize: cannot pass None at positions \[1\]"),
    (lambda: fg.vectorize(lambda p, q: p + q)(X234, f32(3)), fg.ShapeError, r"broadcast_shapes: cannot broadcast"),
    (lambda: fg.apply_along_axis(fg.sum, 3, X234), fg.ShapeError, r"apply_along_axis: axis 3"),
    (lambda: fg.apply_over_axes(lambda a, ax: fg.sum(a), X234, [1]), fg.ShapeError,
     r"apply_over_axes: func\(a, 1\) of a of shape \(2, 3, 4\) gave shape \(\); it must keep 3 axes or drop one"),
    (lambda: fg.piecewise(XS, [XS > 0, XS > 1], [fg.sin]), fg.ShapeError,
     r"piecewise: with 2 condition\(s\), either 2 or 3 functions are expected; got 1"),
    (lambda: fg.piecewise(XS, [XS > 0], fg.sin), fg.TraceError, r"piecewise: funclist must be a list"),
])
def test_refused_forms_name_the_function_and_the_line(call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert "test_numpy_sets_and_mapping.py:" in str(info.value)
