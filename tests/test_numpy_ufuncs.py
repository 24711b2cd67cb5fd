"""fgrad.numpy's ufuncs against jax.numpy's: the same names are ufuncs, with the same nin, nout and
identity; every method (call, reduce, accumulate, at, reduceat, outer) of every ufunc runs eagerly
and traced (through interpret) over several axes, keepdims, initial values and where masks, and
must give JAX's values, dtypes and shapes; a few also compiled by fg.jit; reduce and accumulate
differentiate as JAX's; frompyfunc makes ufuncs of functions; misuses name the method and the
user's line."""

from __future__ import annotations

import functools
import inspect
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, over_arrays, same, table_params

fnp = fg.numpy
draws = Draws(23)
F, F3, F8 = draws.f32(3, 4), draws.f32(2, 3, 4), draws.f32(8)
I, I3 = draws.i32(3, 4), draws.i32(2, 3, 4)
B = draws.i32(3, 4) > 0
MASK, ROW_MASK = draws.i32(3, 4) > 0, np.array([True, False, True, True])

JAX_UFUNCS = sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc))
BINARY = [n for n in JAX_UFUNCS if getattr(jnp, n).nin == 2]
# The inputs each ufunc is checked on: its dtypes (floats are read as bools by the logical ones).
INPUTS = {
    **dict.fromkeys(["add", "multiply", "maximum", "minimum"], [F, I, B]),
    **dict.fromkeys(["subtract", "logaddexp", "logaddexp2"], [F, I]),
    **dict.fromkeys(["logical_and", "logical_or", "logical_xor"], [B, F]),
    **dict.fromkeys(["bitwise_and", "bitwise_or", "bitwise_xor"], [I, B]),
}


def test_the_ufuncs_of_jax_numpy_are_fgrad_ufuncs():
    assert set(INPUTS) == set(BINARY), "a binary ufunc of jax.numpy has no row here"
    for name in fnp.__all__:
        theirs = getattr(jnp, name, None)
        assert isinstance(getattr(fnp, name), fnp.ufunc) == isinstance(theirs, jnp.ufunc), name
    for name in JAX_UFUNCS:
        ours, theirs = getattr(fnp, name), getattr(jnp, name)
        assert getattr(fg, name) is ours and ours.__name__ == theirs.__name__ == name
        assert (ours.nin, ours.nout, ours.nargs) == (theirs.nin, theirs.nout, theirs.nargs), name
        assert ours.identity == theirs.identity and type(ours.identity) is type(theirs.identity), name
        assert ours.__doc__ and repr(ours) == f"<fgrad.numpy.ufunc '{name}'>"
    assert fnp.ufunc is fg.ufunc and fnp.frompyfunc is fg.frompyfunc


def test_a_ufunc_is_read_only_hashable_and_named_in_its_signature():
    assert inspect.signature(fnp.add) == inspect.Signature([
        inspect.Parameter("x", inspect.Parameter.POSITIONAL_ONLY, annotation="ArrayLike"),
        inspect.Parameter("y", inspect.Parameter.POSITIONAL_ONLY, annotation="ArrayLike"),
        inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("where", inspect.Parameter.KEYWORD_ONLY, default=None)])
    with pytest.raises(AttributeError):
        fnp.add.identity = 1
    double = lambda x, y: x + 2 * y  # noqa: E731
    assert fnp.frompyfunc(double, 2, 1) == fnp.frompyfunc(double, 2, 1) != fnp.frompyfunc(double, 2, 1, identity=0)
    assert len({fnp.frompyfunc(double, 2, 1), fnp.frompyfunc(double, 2, 1), fnp.add}) == 2
    graph = fg.trace(fnp.add, F, F)
    assert str(graph).startswith("graph(%0: f32[3,4] x, %1: f32[3,4] y)"), graph  # named as add names them


# ---------------------------------------------------------------------------
# Every method of every ufunc against jax.numpy
# ---------------------------------------------------------------------------


def _initial(x: np.ndarray, name: str):
    """An initial value for reduce of x's kind (logaddexp2's above the values, so that it shows)."""
    return {"b": True, "i": 2, "f": 0.5}[x.dtype.kind] if name != "logaddexp2" else 1.5


def _rows(name: str, method: str, labelled: dict[str, dict], floats_only: bool = False) -> list:
    """One table row per set of keywords of `method` of ufunc `name`, over the ufunc's inputs."""
    ours, theirs = getattr(getattr(fnp, name), method), getattr(getattr(jnp, name), method)
    inputs = [x for x in INPUTS[name] if x.dtype.kind == "f" or not floats_only]
    return [(f"{name}.{method}-{label}", functools.partial(ours, **kw), functools.partial(theirs, **kw),
             [(x,) for x in inputs]) for label, kw in labelled.items()]


def _reduce_rows(name: str) -> list:
    initial = _initial(INPUTS[name][0], name)
    masked = {} if getattr(jnp, name).identity is not None else {"initial": initial}  # needed without identity
    sets = {"axis0": {}, "axis1": dict(axis=1), "last-keepdims": dict(axis=-1, keepdims=True),
            "all": dict(axis=None), "all-keepdims": dict(axis=None, keepdims=True),
            "initial": dict(axis=1, initial=initial), "where": dict(axis=1, where=MASK, **masked),
            "where-row": dict(axis=0, where=ROW_MASK, keepdims=True, **masked)}
    if name != "subtract":  # JAX's generic reduce takes one axis; the others take several
        sets["axes"] = dict(axis=(0, 1))
    return _rows(name, "reduce", sets)


def _at_rows(name: str) -> list:
    u, ju = getattr(fnp, name), getattr(jnp, name)
    x = INPUTS[name][0]
    b = x[0, :3] if x.dtype.kind != "b" else ~x[0, :3]
    cases = [
        ("repeated", (x.ravel()[:6], np.int32([0, 2, 2, 5, -1]), np.resize(b, 5))),
        ("scalar-index", (x, 1, x[2])),
        ("rows", (x, np.int32([0, 2, 0]), x[:3])),
        ("pairs", (x, (np.int32([0, 2, 2]), np.int32([1, 3, 3])), b)),
        ("broadcast-value", (x, np.int32([[1, 1], [0, 2]]), x.ravel()[0])),
    ]
    return [(f"{name}.at-{label}", lambda *a, u=u: u.at(*a, inplace=False),
             lambda *a, ju=ju: ju.at(*a, inplace=False), [args]) for label, args in cases]


def _weak_updates(m, x, i):
    """at with Python numbers as the values: weakly typed, they take x's dtype where it is of their kind."""
    return [m.bitwise_or.at(x, i, 4, inplace=False), m.logaddexp.at(x, i, 2.5, inplace=False),
            m.maximum.at(x, i, 2.5, inplace=False), m.add.at(x, i, 7, inplace=False)]


TABLE = [
    *(row for name in BINARY for row in _reduce_rows(name)),
    *(row for name in BINARY for row in _rows(name, "accumulate", {"axis0": {}, "axis1": dict(axis=1),
                                                                  "last": dict(axis=-1)})),
    *(row for name in BINARY for row in _at_rows(name)),
    # reduceat's loop keeps a's dtype, so logaddexp's of integers is refused (by JAX too): floats only
    *(row for name in BINARY for row in _rows(name, "reduceat", {
        "axis0": dict(indices=np.int32([0, 2])), "axis1": dict(indices=np.int32([0, 3, 1, 1]), axis=1),
        "one": dict(indices=np.int32([2]), axis=-1)}, floats_only=name.startswith("logaddexp"))),
    *((f"{name}.outer", getattr(fnp, name).outer, getattr(jnp, name).outer,
       [(x[0], x[1, :2]), (x[:2, :2], x[2]), (x[0, 0], x[1])]) for name in BINARY for x in INPUTS[name][:1]),
    *((f"{name}-call", getattr(fnp, name), getattr(jnp, name), [(x, x[1]) for x in INPUTS[name]])
      for name in BINARY),
    ("negative-call", fnp.negative, jnp.negative, [(F,), (I,)]),
    ("negative.at", lambda x, i: fnp.negative.at(x, i, inplace=False),
     lambda x, i: jnp.negative.at(x, i, inplace=False), [(F8, np.int32([0, 0, 3])), (I, 2)]),
    ("at-weak-scalars", lambda x, i: _weak_updates(fnp, x, i), lambda x, i: _weak_updates(jnp, x, i),
     [(np.uint32([1, 2, 3]), np.int32([0, 0, 2])), (I[0], np.int32([1]))]),
    ("add.reduce-3d", lambda x: fnp.add.reduce(x, axis=(0, 2), keepdims=True),
     lambda x: jnp.add.reduce(x, axis=(0, 2), keepdims=True), [(F3,), (I3,)]),
    ("maximum.reduce-3d", lambda x: fnp.maximum.reduce(x, axis=2), lambda x: jnp.maximum.reduce(x, axis=2), [(F3,)]),
    ("subtract.accumulate-3d", lambda x: fnp.subtract.accumulate(x, axis=1),
     lambda x: jnp.subtract.accumulate(x, axis=1), [(F3,)]),
    ("add.reduce-dtype", lambda x: fnp.add.reduce(x, dtype=np.float32), lambda x: jnp.add.reduce(x, dtype=np.float32),
     [(I,), (B,)]),
    ("add.accumulate-dtype", lambda x: fnp.add.accumulate(x, 1, np.float32),
     lambda x: jnp.add.accumulate(x, 1, np.float32), [(I,)]),
    ("maximum.accumulate-dtype", lambda x: fnp.maximum.accumulate(x, 1, np.float32),
     lambda x: jnp.maximum.accumulate(x, 1, np.float32), [(I,)]),
    ("bitwise_or.reduce-dtype", lambda x: fnp.bitwise_or.reduce(x, dtype=np.uint32),
     lambda x: jnp.bitwise_or.reduce(x, dtype=np.uint32), [(I,)]),
    ("reduce-empty", lambda x: [fnp.add.reduce(x), fnp.multiply.reduce(x, axis=1), fnp.bitwise_and.reduce(x > 0),
                                fnp.maximum.reduce(x, initial=-1.0), fnp.subtract.reduce(x, initial=2.0)],
     lambda x: [jnp.add.reduce(x), jnp.multiply.reduce(x, axis=1), jnp.bitwise_and.reduce(x > 0),
                jnp.maximum.reduce(x, initial=-1.0), jnp.subtract.reduce(x, initial=2.0)],
     [(np.zeros((0, 3), np.float32),)]),
    ("accumulate-empty", lambda x: [fnp.add.accumulate(x), fnp.subtract.accumulate(x), fnp.maximum.accumulate(x)],
     lambda x: [jnp.add.accumulate(x), jnp.subtract.accumulate(x), jnp.maximum.accumulate(x)],
     [(np.zeros((0, 3), np.float32),), (np.ones((1, 3), np.float32),)]),
    ("nan", lambda x: [fnp.maximum.reduce(x, axis=1), fnp.minimum.accumulate(x, axis=1), fnp.add.reduce(x, axis=1),
                       fnp.logaddexp.reduce(x, axis=1)],
     lambda x: [jnp.maximum.reduce(x, axis=1), jnp.minimum.accumulate(x, axis=1), jnp.add.reduce(x, axis=1),
                jnp.logaddexp.reduce(x, axis=1)],
     [(np.float32([[1.0, np.nan, 3.0], [-np.inf, -np.inf, -np.inf], [np.inf, 2.0, -1.0]]),)]),
]


@pytest.mark.parametrize("ours, theirs, args, name", table_params(TABLE))
def test_matches_jax_numpy(ours, theirs, args, name):
    want = jax_call(theirs, *args)
    rtol = 1e-4 if "logaddexp" in name or "multiply" in name else 2e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's eager warnings on inf and NaN, as JAX computes them
        same(ours(*args), want, f"{name} eager", rtol)
        traced, arrays = over_arrays(ours, args)

        same(fg.interpret(fg.trace(traced, *arrays), *arrays), want, f"{name} traced", rtol)


# Compiled to WGSL (slow on llvmpipe: a few), each form of method: a reduction, a fold by lax.scan,
# a scatter, an update one index at a time, a fori_loop.
COMPILED = [
    ("add.reduce", lambda x: fnp.add.reduce(x, axis=1, where=MASK), lambda x: jnp.add.reduce(x, axis=1, where=MASK), F),
    ("bitwise_xor.reduce", lambda x: fnp.bitwise_xor.reduce(x, axis=0), lambda x: jnp.bitwise_xor.reduce(x, axis=0), I),
    ("subtract.accumulate", lambda x: fnp.subtract.accumulate(x, axis=1),
     lambda x: jnp.subtract.accumulate(x, axis=1), F),
    ("maximum.accumulate", lambda x: fnp.maximum.accumulate(x), lambda x: jnp.maximum.accumulate(x), F),
    ("add.at", lambda x: fnp.add.at(x, np.int32([0, 0, 2]), 1.5, inplace=False),
     lambda x: jnp.add.at(x, np.int32([0, 0, 2]), 1.5, inplace=False), F),
    ("logaddexp.at", lambda x: fnp.logaddexp.at(x, np.int32([1, 1]), x[:2], inplace=False),
     lambda x: jnp.logaddexp.at(x, np.int32([1, 1]), x[:2], inplace=False), F),
    ("multiply.reduceat", lambda x: fnp.multiply.reduceat(x, np.int32([0, 2, 3]), axis=1),
     lambda x: jnp.multiply.reduceat(x, np.int32([0, 2, 3]), axis=1), F),
]


@pytest.mark.parametrize("ours, theirs, x", [pytest.param(*row[1:], id=row[0]) for row in COMPILED])
def test_compiled_matches_jax_numpy(ours, theirs, x):
    same(fg.jit(ours)(x), jax_call(theirs, x), "compiled", 1e-5)


def test_at_broadcasts_the_values_as_numpy_s_unbuffered_at():
    """Where JAX's broadcasting of the values stops (values shaped as one position's entries,
    slices among the indices), fgrad's goes on as NumPy's: one update per index, in order."""
    for name, key, b in [("logaddexp", np.int32([1, 1]), F[0]),
                         ("subtract", (np.int32([2, 0, 2]), slice(1, 3)), F[0, :2]),
                         ("maximum", (slice(None), np.int32([3, 3])), np.float32(0.25))]:
        want = F.copy()
        getattr(np, name).at(want, key, b)
        same(getattr(fnp, name).at(F, key, b, inplace=False), want, f"{name}.at", oracle="NumPy")


# ---------------------------------------------------------------------------
# Gradients, transforms of code calling ufuncs
# ---------------------------------------------------------------------------

W = draws.f32(3, 4)  # weights, so that each output's cotangent differs
GRADIENTS = [
    ("add.reduce", lambda m, x: m.add.reduce(x, axis=1)),
    ("add.reduce-where", lambda m, x: m.add.reduce(x, axis=None, where=MASK, initial=0.5)),
    ("multiply.reduce", lambda m, x: m.multiply.reduce(x, axis=0, keepdims=True)),
    ("maximum.reduce", lambda m, x: m.maximum.reduce(x, axis=1)),
    ("maximum.reduce-initial", lambda m, x: m.maximum.reduce(x, axis=0, initial=0.0)),
    ("add.accumulate", lambda m, x: m.add.accumulate(x, axis=1)),
    ("multiply.accumulate", lambda m, x: m.multiply.accumulate(x, axis=0)),
    ("maximum.accumulate", lambda m, x: m.maximum.accumulate(x, axis=1)),
    ("subtract.reduce", lambda m, x: m.subtract.reduce(x, axis=1)),
    ("subtract.accumulate", lambda m, x: m.subtract.accumulate(x, axis=0)),
    ("logaddexp.reduce", lambda m, x: m.logaddexp.reduce(x, axis=1)),
    ("logaddexp.accumulate", lambda m, x: m.logaddexp.accumulate(x, axis=1)),
    # JAX differentiates a scatter of products only if told that its indices are unique
    ("multiply.at", lambda m, x: m.multiply.at(x, np.int32([0, 2]), x[1], inplace=False) if m is fnp
     else x.at[np.int32([0, 2])].multiply(x[1], unique_indices=True)),
    ("maximum.at", lambda m, x: m.maximum.at(x, np.int32([1, 2]), 0.25, inplace=False)),
    ("add.reduceat", lambda m, x: m.add.reduceat(x, np.int32([0, 2]), axis=1)),
    ("add.outer", lambda m, x: m.add.outer(x[0], x[1])),
]


@pytest.mark.parametrize("f", [pytest.param(f, id=name) for name, f in GRADIENTS])
def test_gradients_are_jax_s(f):
    def loss(m, x):
        out = f(m, x)
        return m.sum(out * m.resize(W, out.shape)) if m is jnp else m.sum(m.multiply(out, m.resize(W, out.shape)))

    got = fg.grad(functools.partial(loss, fnp))(F)
    want = jax.grad(functools.partial(loss, jnp))(F)
    same(got, want, "grad", 1e-4, 1e-5)


def test_code_calling_ufuncs_traces_jits_vmaps_and_differentiates():
    x, y = F[0], F[1]
    same(fg.jit(fnp.add)(x, y), jnp.add(x, y), "jit")
    same(fg.vmap(fnp.maximum, in_axes=(0, None))(F, y), jax.vmap(jnp.maximum, in_axes=(0, None))(F, y), "vmap")
    same(fg.grad(fnp.multiply, argnums=(0, 1))(np.float32(2.0), np.float32(3.0)),
         jax.grad(jnp.multiply, argnums=(0, 1))(np.float32(2.0), np.float32(3.0)), "grad")
    same(fg.vmap(lambda r: fnp.add.reduce(r))(F), jax.vmap(lambda r: jnp.add.reduce(r))(F), "vmap of reduce")
    same(fg.vmap(lambda r: fnp.subtract.accumulate(r))(F), jax.vmap(lambda r: jnp.subtract.accumulate(r))(F),
         "vmap of a scan")
    pick = fg.jit(lambda u, a, b: u(a, b), static_argnums=0)  # a ufunc is a static argument, as in JAX
    same(pick(fnp.minimum, x, y), jnp.minimum(x, y), "static ufunc")
    same(pick(fnp.add, x, y), jnp.add(x, y), "static ufunc")
    same(fg.jit(lambda a: a + a * a)(x), x + x * x, "operators")


# ---------------------------------------------------------------------------
# frompyfunc
# ---------------------------------------------------------------------------


def _affine(m):
    return lambda x, y: m.add(m.multiply(x, 0.5), y)


def test_frompyfunc_makes_a_ufunc_of_a_function():
    ours, theirs = fnp.frompyfunc(_affine(fnp), 2, 1), jnp.frompyfunc(_affine(jnp), 2, 1)
    with_identity = fnp.frompyfunc(_affine(fnp), 2, 1, identity=0.0), jnp.frompyfunc(_affine(jnp), 2, 1, identity=0.0)
    assert (ours.nin, ours.nout, ours.identity, ours.__name__) == (2, 1, None, "<lambda>")
    cases = [
        ("call", lambda u, x: u(x, x[0])),
        ("reduce", lambda u, x: u.reduce(x, axis=1)),
        ("reduce-all", lambda u, x: u.reduce(x, axis=None, keepdims=True)),
        ("reduce-where", lambda u, x: u.reduce(x, axis=0, where=MASK, initial=1.0)),
        ("accumulate", lambda u, x: u.accumulate(x, axis=-1)),
        ("at", lambda u, x: u.at(x, np.int32([0, 0, 2]), x, inplace=False)),
        ("reduceat", lambda u, x: u.reduceat(x, np.int32([0, 1, 3]), axis=1)),
        ("outer", lambda u, x: u.outer(x[0], x[1])),
    ]
    for label, call in cases:
        same(call(ours, F), jax_call(functools.partial(call, theirs), F), f"frompyfunc {label}")
        traced = fg.trace(functools.partial(call, ours), F)
        same(fg.interpret(traced, F), jax_call(functools.partial(call, theirs), F), f"frompyfunc {label} traced")
    same(with_identity[0].reduce(F, axis=1), jax_call(lambda x: with_identity[1].reduce(x, axis=1), F), "identity")
    same(fg.grad(lambda x: fnp.sum(ours.accumulate(x)))(F), jax.grad(lambda x: jnp.sum(theirs.accumulate(x)))(F),
         "frompyfunc grad")
    pair = fnp.frompyfunc(lambda x: (x, fnp.negative(x)), 1, 2)
    same(pair(F), jnp.frompyfunc(lambda x: (x, -x), 1, 2)(F), "two outputs")


# ---------------------------------------------------------------------------
# Misuses: an fgrad error naming the function and the user's line
# ---------------------------------------------------------------------------

pair = fnp.frompyfunc(lambda x: (x, x), 1, 2)
MISUSES = [
    (lambda: fnp.add(F, F, out=F), fg.InputError, "add: out= is not supported"),
    (lambda: fnp.add(F, F, where=MASK), fg.InputError, "add: where= is not supported"),
    (lambda: fnp.add(F), fg.TraceError, "add: takes 2 positional arguments, got 1"),
    (lambda: fnp.negative(F, F), fg.TraceError, "negative: takes 1 positional argument, got 2"),
    (lambda: fnp.negative(F, dtype=np.float32), fg.TraceError, "negative: unexpected keyword argument dtype"),
    (lambda: fnp.add(F, F[:2]), fg.ShapeError, "add: cannot broadcast"),
    (lambda: fnp.logaddexp(F, "x"), fg.DTypeError, "logaddexp: got a str"),
    (lambda: fnp.add.reduce(F, axis=2), fg.ShapeError, r"add.reduce: sum: axis 2 is out of range"),
    (lambda: fnp.add.reduce(F, out=F), fg.InputError, "add.reduce: out= is not supported"),
    (lambda: fnp.add.reduce(F, keepdims=1), fg.TraceError, "add.reduce: keepdims must be True or False"),
    (lambda: fnp.maximum.reduce(F, where=MASK), fg.TraceError, "maximum.reduce: a where mask needs an initial"),
    (lambda: fnp.add.reduce(F, where=I), fg.DTypeError, "add.reduce: where must be a bool mask"),
    (lambda: fnp.subtract.reduce(F, axis=(0, 1)), fg.ShapeError, r"subtract.reduce: a tuple of axes \(0, 1\)"),
    (lambda: fnp.subtract.reduce(F[:0]), fg.ShapeError, "subtract.reduce: zero-size array"),
    (lambda: fnp.maximum.reduce(F[:0]), fg.ShapeError, "maximum.reduce: max: zero-size array"),
    (lambda: fnp.subtract.reduce("ab"), fg.DTypeError, r"subtract.reduce: got a str \('ab'\)"),
    (lambda: fnp.bitwise_and.reduce(F), fg.DTypeError, "bitwise_and.reduce: takes integer or bool operands"),
    (lambda: fnp.negative.reduce(F), fg.InputError, "negative.reduce: reduce is supported only for binary"),
    (lambda: fnp.subtract.accumulate(F, axis=None), fg.ShapeError, "subtract.accumulate: accumulates along one"),
    (lambda: fnp.maximum.accumulate(F, axis=(0, 1)), fg.ShapeError, "maximum.accumulate: axis must be a single"),
    (lambda: fnp.add.accumulate(F, out=F), fg.InputError, "add.accumulate: out= is not supported"),
    (lambda: fnp.add.at(F, 0, 1.0), fg.TraceError, "add.at: fgrad values are immutable"),
    (lambda: fnp.add.at(F, 0, inplace=False), fg.InputError, "add.at: add takes 2 inputs"),
    (lambda: fnp.negative.at(F, 0, 1.0, inplace=False), fg.InputError, "negative.at: negative takes 1 input"),
    (lambda: fnp.logaddexp.at(F, (np.int32([0, 1]), np.int32([0, 1, 2])), 1.0, inplace=False), fg.ShapeError,
     "logaddexp.at: the index arrays do not broadcast"),
    (lambda: fnp.logaddexp.at(F, MASK, 1.0, inplace=False), fg.TraceError, "logaddexp.at: boolean masks are not"),
    (lambda: fnp.add.reduceat(F, np.int32([[0]])), fg.ShapeError, "add.reduceat: indices must be a 1-D array"),
    (lambda: fnp.add.reduceat(np.float32(1), np.int32([0])), fg.ShapeError, "add.reduceat: a must have at least"),
    (lambda: fnp.add.reduceat(F, np.int32([0]), axis=None), fg.ShapeError, "add.reduceat: reduces along one"),
    (lambda: fnp.add.reduceat(F, np.int32([0]), out=F), fg.InputError, "add.reduceat: out= is not supported"),
    (lambda: fnp.add.outer(F, "s"), fg.DTypeError, "add.outer: got a str"),
    (lambda: pair.outer(F, F), fg.InputError, "<lambda>.outer: outer is supported only for binary"),
    (lambda: fnp.logaddexp.reduceat(I, np.int32([0])), fg.DTypeError, "logaddexp.reduceat: fori_loop: the value"),
    (lambda: fnp.frompyfunc(3, 2, 1), fg.TraceError, "frompyfunc: ufunc: func must be a function"),
    (lambda: fnp.frompyfunc(abs, 0, 1), fg.TraceError, "frompyfunc: ufunc: nin must be a positive int"),
    (lambda: fnp.ufunc(abs, 1, 1, nargs="2"), fg.TraceError, "ufunc: nargs must be a positive int"),
]


@pytest.mark.parametrize("bad, error, message", [pytest.param(*row, id=row[2][:40]) for row in MISUSES])
def test_misuses_name_the_method_and_the_line(bad, error, message):
    with pytest.raises(error, match=f"^{message}") as e:
        bad()
    assert e.value.site == f"test_numpy_ufuncs.py:{bad.__code__.co_firstlineno}", e.value


def test_a_traced_misuse_names_the_line_too():
    with pytest.raises(fg.ShapeError, match="^add.reduce: sum: axis 3") as e:
        fg.trace(lambda x: fnp.add.reduce(x, axis=3), F)
    assert e.value.site == f"test_numpy_ufuncs.py:{inspect.currentframe().f_lineno - 1}"
