"""fg.lax against jax.lax: each row runs eagerly, traced (through interpret) and, for a subset,
compiled with fg.jit, and must give jax.lax's values, dtypes and shapes; gradients of a few
against jax.grad; lax's strictness (one dtype, explicit dimensions) refused with fgrad's errors
naming the function."""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fgrad as fg
from jax_oracle import Draws, jax_call, same

L = fg.lax
draws = Draws(11, ints=5)
rng, f32, i32 = draws.rng, draws.f32, draws.i32
same = functools.partial(same, oracle="jax.lax")


X, Y, P = f32(2, 3), f32(2, 3), f32(2, 3, lo=0.1, hi=3.0)
U = f32(2, 3, lo=-0.9, hi=0.9)
I, J = i32(2, 3), i32(2, 3, lo=1, hi=4) * np.int32([[1, -1, 1], [-1, 1, -1]])
B, C = rng.random((2, 3)) < 0.5, rng.random((2, 3)) < 0.5
T = f32(2, 3, 4)
HALVES = np.float32([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.2, -0.2])
BITS = rng.integers(0, 2**31 - 1, (3, 5)).astype(np.int32)
# lgamma and digamma at their poles (0, the negative integers: every f32 below -2^23), infinities, NaN, at the
# roots of lgamma, where lgamma overflows (4.1e36) and at tiny, huge and half-integer arguments
GAMMA_EDGES = np.float32([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 2.0, -1.0, -2.0, -1e30, 1e30, 3e38, -0.5, 0.5, 1e-30,
                          -1e-30, -3.5, -100.5, 4e36, 1e37, -4.5e6, -8388607.5, -16777216.0])


class Row:
    """One call: fg.lax.<name>(*args, **kw) against jax.lax.<name> (or `theirs`)."""

    def __init__(self, name, *args, theirs=None, ours=None, id=None, rtol=2e-5, **kw):
        self.name, self.args, self.kw, self.rtol = name, args, kw, rtol
        self.ours = ours or (lambda *a: getattr(L, name)(*a, **kw))
        self.theirs = theirs or (lambda *a: getattr(jax.lax, name)(*a, **kw))
        self.id = id or name


ROWS = [
    *(Row(n, U) for n in ("acos", "asin", "atan", "atanh", "cbrt", "ceil", "cos", "cosh", "erf", "erfc", "exp",
                          "exp2", "expm1", "floor", "is_finite", "logistic", "sin", "sinh", "tan", "tanh",
                          "abs", "neg", "sign", "square", "asinh")),
    *(Row(n, P) for n in ("acosh", "log", "log1p", "rsqrt", "sqrt", "reciprocal")),
    Row("acosh", P + 1, id="acosh-above-1"),
    *(Row(n, P) for n in ("lgamma", "digamma")),
    *(Row(n, X, id=f"{n}-negative") for n in ("lgamma", "digamma")),
    Row("lgamma", GAMMA_EDGES, id="lgamma-edges"),
    Row("digamma", GAMMA_EDGES[GAMMA_EDGES != 0], id="digamma-edges"),  # +-0: test_digamma_of_zero
    *(Row(n, I, id=f"{n}-i32") for n in ("abs", "neg", "sign", "square")),
    *(Row(n, X, Y) for n in ("add", "sub", "mul", "max", "min", "eq", "ne", "lt", "le", "gt", "ge")),
    *(Row(n, I, J, id=f"{n}-i32") for n in ("add", "sub", "mul", "div", "max", "min", "lt", "ge")),
    *(Row(n, B, C, id=f"{n}-bool") for n in ("max", "min", "eq", "ne", "lt")),
    Row("nextafter", X, Y),
    Row("mulhi", np.int32([-2**31, 2**31 - 1, -3, 7, 0, -1, 65536, -65537]), np.int32(
        [-2**31, 2**31 - 1, 5, -2**31, 9, -1, 65536, 2**31 - 1]), id="mulhi-i32"),
    Row("mulhi", BITS, np.int32(-1_000_003), id="mulhi-i32-broadcast"),
    Row("mulhi", np.uint32([2**32 - 1, 2**31 + 5, 65535, 0, 123456789]), np.uint32(
        [2**32 - 1, 2**31 + 7, 65537, 4, 987654321]), id="mulhi-u32"),
    Row("nextafter", np.float32([0, 1, -1, 0]), np.float32([1, 2, -2, -1]), id="nextafter-edges"),
    Row("div", X, P), Row("div", np.int32([-7, 7, -7, 7, 0]), np.int32([2, -2, -2, 2, 3]), id="div-truncates"),
    Row("add", X, 1.5, id="add-python-float"), Row("mul", I, 3, id="mul-python-int"),
    Row("add", X, np.float32(2.0), id="add-rank0"), Row("add", T, f32(2, 1, 4), id="add-size1"),
    Row("mul", I, J, out_dtype=np.float32, id="mul-out-dtype"),
    Row("pow", P, Y), Row("pow", P, I, id="pow-int-exponent"), Row("pow", P, 3, id="pow-python-int"),
    Row("integer_pow", X, 3), Row("integer_pow", X, -2), Row("integer_pow", I, 3, id="integer_pow-i32"),
    Row("round", HALVES), Row("round", HALVES, L.RoundingMethod.TO_NEAREST_EVEN,
                              theirs=lambda x, m: jax.lax.round(x, jax.lax.RoundingMethod.TO_NEAREST_EVEN),
                              id="round-even"),
    Row("round", HALVES, 1, id="round-even-int"),
    Row("clamp", -0.5, X, 0.5), Row("clamp", f32(2, 3, hi=0), X, f32(2, 3, lo=0), id="clamp-arrays"),
    Row("clamp", np.int32(-1), I, 2, id="clamp-i32"),
    Row("select", B, X, Y), Row("select", np.bool_(True), X, Y, id="select-scalar"),
    Row("select_n", B, X, Y, id="select_n-bool"),
    Row("select_n", np.int32([[0, 1, 2], [2, 1, 0]]), X, Y, P, id="select_n-int"),
    Row("select_n", np.int32(1), I, J, id="select_n-scalar"),
    Row("convert_element_type", np.float32([1.7, -1.7, 0.0, 3e9]), np.int32, id="convert-f32-i32"),
    Row("convert_element_type", X, np.bool_, id="convert-bool"), Row("convert_element_type", I, np.float16),
    Row("stop_gradient", X),
    # shapes
    Row("broadcast", X, (4,)), Row("broadcast_in_dim", f32(3, 1), (2, 3, 4), (1, 2)),
    Row("broadcast_in_dim", X, (3, 4, 2), (2, 0), id="broadcast_in_dim-unsorted"),
    Row("broadcast_to_rank", f32(3), 3), Row("collapse", T, 1), Row("collapse", T, -3, -1, id="collapse-negative"),
    Row("concatenate", [X, Y, X[:, :1]], 1), Row("expand_dims", X, (-1, 0)),
    Row("full", (2, 3), 1.5), Row("full", (2,), 3, np.int32, id="full-dtype"), Row("full_like", T, 2),
    Row("full_like", T, 2, np.int32, (3,), id="full_like-shape"),
    Row("iota", np.int32, 5), Row("iota", np.float32, 4, id="iota-f32"),
    Row("broadcasted_iota", np.int32, (2, 3), 1),
    Row("index_in_dim", T, -1, 1, False), Row("index_in_dim", T, 0, id="index_in_dim-keepdims"),
    Row("slice", T, (0, 1, 1), (2, 3, 4), (1, 1, 2)), Row("slice_in_dim", T, -3, None, 2, -1),
    Row("dynamic_slice_in_dim", T, np.int32(-1), 2, 2),
    Row("dynamic_slice_in_dim", T, np.int32(7), 2, 1, id="dsid-clamped"),
    Row("dynamic_index_in_dim", T, np.int32(1), 1, False),
    Row("dynamic_update_slice_in_dim", T, f32(2, 3, 2), np.int32(1), 2),
    Row("dynamic_update_index_in_dim", T, f32(2, 4), np.int32(2), 1),
    Row("reshape", T, (4, 6)), Row("reshape", T, (4, 6), (2, 0, 1), id="reshape-dimensions"),
    Row("rev", T, (0, 2)), Row("squeeze", f32(1, 3, 1), (-1, 0)), Row("transpose", T, (2, 0, 1)),
    Row("split", T, (1, 3), -1), Row("tile", X, (2, 1)),
    # reductions and products
    Row("reduce_sum", T, (0, 2)), Row("reduce_sum", I, (1,), id="reduce_sum-i32"), Row("reduce_prod", X, (1,)),
    Row("reduce_max", T, (1,)), Row("reduce_min", I, (0, 1)), Row("reduce_max", B, (1,), id="reduce_max-bool"),
    Row("reduce_max", f32(2, 0), (1,), id="reduce_max-empty"),
    Row("reduce_and", B, (1,)), Row("reduce_or", B, (0,)), Row("reduce_xor", B, (1,)),
    Row("reduce_and", BITS, (1,), id="reduce_and-i32"), Row("reduce_or", BITS, (0, 1), id="reduce_or-i32"),
    Row("reduce_xor", BITS, (1,), id="reduce_xor-i32"),
    Row("argmax", T, 2, np.int32), Row("argmin", X, 0, np.int32), Row("argmax", I, 1, np.uint32, id="argmax-u32"),
    Row("dot", X, f32(3, 4)), Row("dot", f32(3), f32(3), id="dot-vectors"), Row("dot", X, f32(3), id="dot-mv"),
    Row("dot", I, i32(3), preferred_element_type=np.float32, id="dot-preferred"),
    Row("dot", X, f32(3, 4), precision=L.Precision.HIGHEST, theirs=lambda a, b: jax.lax.dot(
        a, b, precision=jax.lax.Precision.HIGHEST), id="dot-precision"),
    Row("dot_general", T, f32(2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    Row("dot_general", T, f32(4, 3), (((1, 2), (1, 0)), ((), ())), id="dot_general-two-contracting"),
    Row("dot_general", f32(3, 2), f32(2, 5, 3), (((1,), (0,)), ((0,), (2,))), id="dot_general-batch-last"),
    Row("batch_matmul", T, f32(2, 4, 5)),
    Row("ragged_dot", f32(7, 3), f32(3, 3, 2), np.int32([2, 4, 1])),
    Row("ragged_dot", f32(7, 3), f32(3, 3, 2), np.int32([0, 3, 2]), id="ragged_dot-short-and-empty-groups"),
    Row("ragged_dot", i32(5, 3), i32(2, 3, 2), np.int32([1, 4]), id="ragged_dot-i32"),
    Row("sort_key_val", np.int32([3, 1, 2, 1]), np.float32([0, 1, 2, 3])),
    Row("approx_max_k", f32(3, 6), 2), Row("approx_min_k", np.float32([3, 1, 2, 5, 1]), 2),
    # control
    Row("map", T, ours=lambda x: L.map(lambda r: L.mul(r, r), x),
        theirs=jax.jit(lambda x: jax.lax.map(lambda r: r * r, x))),
    Row("associative_scan", f32(7), ours=lambda x: L.associative_scan(L.add, x),
        theirs=jax.jit(lambda x: jax.lax.associative_scan(jax.lax.add, x)), rtol=1e-5),
    Row("associative_scan", T, ours=lambda x: L.associative_scan(L.max, x, reverse=True, axis=1),
        theirs=jax.jit(lambda x: jax.lax.associative_scan(jax.lax.max, x, reverse=True, axis=1)),
        id="associative_scan-rev"),
    Row("associative_scan", f32(6, 2), f32(6, 2), id="associative_scan-pytree-affine",
        ours=lambda a, b: L.associative_scan(lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), (a, b)),
        theirs=jax.jit(lambda a, b: jax.lax.associative_scan(lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), (a, b))),
        rtol=1e-5),
    # reduce with a monoid's computation, from an initial value that is not its identity too
    Row("reduce", T, ours=lambda x: L.reduce(x, np.float32(2.0), L.add, (1,)),
        theirs=lambda x: jax.lax.reduce(x, np.float32(2.0), jax.lax.add, (1,))),
    Row("reduce", T, ours=lambda x: L.reduce(x, np.float32(-np.inf), L.max, (0, 1)),
        theirs=lambda x: jax.lax.reduce(x, np.float32(-np.inf), jax.lax.max, (0, 1)), id="reduce-max"),
    Row("reduce", I, ours=lambda x: L.reduce(x, np.int32(3), L.mul, (0,)),
        theirs=lambda x: jax.lax.reduce(x, np.int32(3), jax.lax.mul, (0,)), id="reduce-mul-i32"),
    Row("stack", X, Y, ours=lambda a, b: L.stack([a, b], 1), theirs=lambda a, b: jax.lax.stack([a, b], 1)),
    Row("unstack", T, ours=lambda x: L.unstack(x, 1), theirs=lambda x: jax.lax.unstack(x, 1)),
    Row("broadcast_like", X[0], X),
]
ROWS_BY_ID = {}
for _row in ROWS:
    _row.id = _row.id if _row.id not in ROWS_BY_ID else f"{_row.id}-{sum(k.startswith(_row.id) for k in ROWS_BY_ID)}"
    ROWS_BY_ID[_row.id] = _row
JITTED = ["add", "div-truncates", "round", "select_n-int", "clamp-arrays", "broadcast_in_dim-unsorted", "slice",
          "dynamic_update_index_in_dim", "reduce_xor-i32", "dot_general", "argmax", "associative_scan",
          "lgamma-negative", "digamma-negative", "lgamma-edges", "digamma-edges", "reduce", "unstack", "mulhi-i32", "mulhi-u32"]


def _with_arrays(row):
    positions = [k for k, a in enumerate(row.args) if isinstance(a, np.ndarray) and a.ndim]

    def fn(*xs):
        args = list(row.args)
        for k, x in zip(positions, xs):
            args[k] = x
        return row.ours(*args)

    return fn, [row.args[k] for k in positions]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_matches_jax_lax(row):
    want = jax_call(row.theirs, *row.args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(row.ours(*row.args), want, f"{row.id} eager", rtol=row.rtol)
        fn, arrays = _with_arrays(row)
        same(fg.interpret(fg.trace(fn, *arrays), *arrays), want, f"{row.id} traced", rtol=row.rtol)


@pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")
@pytest.mark.parametrize("row_id", JITTED)
def test_compiled_matches_jax_lax(row_id):
    row = ROWS_BY_ID[row_id]
    fn, arrays = _with_arrays(row)
    same(fg.jit(fn)(*arrays), jax_call(row.theirs, *row.args), f"{row_id} jit", rtol=1e-5, atol=1e-5)


def test_digamma_of_zero_is_minus_infinity():
    """lax.digamma(+-0) is -inf from jax 0.11 on (jax 0.10 gave NaN): eagerly, traced and compiled."""
    zeros = np.float32([0.0, -0.0])
    for got in (L.digamma(zeros), fg.interpret(fg.trace(L.digamma, zeros), zeros), fg.jit(L.digamma)(zeros)):
        np.testing.assert_array_equal(np.asarray(got), [-np.inf, -np.inf])


def test_composite_computes_its_decomposition_as_jax():
    def make(lax):
        return lax.composite(lambda x, *, scale: lax.tanh(x) * scale, name="my.scaled_tanh", version=1)

    ours, theirs = make(L), make(jax.lax)
    same(fg.jit(lambda x: ours(x, scale=2.0))(X).numpy(), np.asarray(theirs(X, scale=2.0)), "composite", rtol=1e-6)
    # JAX's composite has no derivative; fgrad's differentiates its decomposition.
    same(fg.grad(lambda x: fg.sum(ours(x, scale=2.0)))(X), 2.0 / np.cosh(X) ** 2, "composite grad", rtol=1e-5)
    with pytest.raises(fg.TraceError, match="composite: name must be a str"):
        L.composite(L.tanh, 3)


def test_every_jax_lax_name_here_exists_in_jax():
    missing = [n for n in L.__all__ if not hasattr(jax.lax, n)]
    assert not missing, f"fg.lax names jax.lax lacks: {missing}"


# -- gradients --------------------------------------------------------------------------------------

GRADS = [
    ("dot_general", lambda a, b: L.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
     lambda a, b: jax.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), (T, f32(2, 4, 5))),
    ("broadcast_in_dim", lambda a: L.broadcast_in_dim(a, (2, 3, 4), (1, 2)),
     lambda a: jax.lax.broadcast_in_dim(a, (2, 3, 4), (1, 2)), (f32(3, 1),)),
    ("select_n", lambda a, b, c: L.select_n(np.int32([[0, 1, 2], [2, 1, 0]]), a, b, c),
     lambda a, b, c: jax.lax.select_n(jnp.int32([[0, 1, 2], [2, 1, 0]]), a, b, c), (X, Y, P)),
    ("associative_scan", lambda a: L.associative_scan(L.add, a, axis=1),
     lambda a: jax.lax.associative_scan(jax.lax.add, a, axis=1), (f32(2, 5),)),
    ("associative_scan-mul", lambda a: L.associative_scan(L.mul, a),
     lambda a: jax.lax.associative_scan(jax.lax.mul, a), (f32(6),)),
    ("integer_pow", lambda a: L.integer_pow(a, 3), lambda a: jax.lax.integer_pow(a, 3), (X,)),
    ("round-clamp", lambda a: L.clamp(-1.0, a, 1.0) * L.round(a),
     lambda a: jax.lax.clamp(-1.0, a, 1.0) * jax.lax.round(a), (X,)),
    ("ragged_dot", lambda a, b: L.ragged_dot(a, b, np.int32([2, 3, 1])),
     lambda a, b: jax.lax.ragged_dot(a, b, jnp.int32([2, 3, 1])), (f32(7, 3), f32(3, 3, 2))),
    ("lgamma", L.lgamma, jax.lax.lgamma, (X,)),
    # above 0 only: JAX's derivative of digamma, lax.polygamma(1, x), is far off below 0
    ("digamma", L.digamma, jax.lax.digamma, (P,)),
    ("lgamma-second", lambda a: fg.grad(lambda v: fg.sum(L.lgamma(v)))(a),
     lambda a: jax.grad(lambda v: jnp.sum(jax.lax.lgamma(v)))(a), (P,)),
]


@pytest.mark.parametrize("name, ours, theirs, args", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_jax(name, ours, theirs, args):
    weights = f32(*np.shape(jax_call(theirs, *args)))
    argnums = tuple(range(len(args)))
    # jitted: JAX runs the scans' many small ops one by one, slowly, otherwise
    want = jax.jit(jax.grad(lambda *a: (theirs(*a) * weights).sum(), argnums))(*map(jnp.asarray, args))
    got = fg.grad(lambda *a: fg.sum(ours(*a) * weights), argnums=argnums)(*args)
    same(got, want, f"{name} grad", rtol=1e-5, atol=1e-5)


# -- refusals ---------------------------------------------------------------------------------------

REFUSALS = [
    (lambda: L.add(X, I), fg.DTypeError, r"^add: operands must have one dtype .*f32, i32"),
    (lambda: L.add(X, 1), fg.DTypeError, r"^add: operands must have one dtype"),
    (lambda: L.eq(X, I), fg.DTypeError, r"^eq: operands must have one dtype"),
    (lambda: L.exp(I), fg.DTypeError, r"^exp: does not accept dtype i32"),
    (lambda: L.nextafter(I, J), fg.DTypeError, r"^nextafter: does not accept dtype i32"),
    (lambda: L.mulhi(X, Y), fg.DTypeError, r"^mulhi: does not accept dtype f32; it takes integers"),
    (lambda: L.mulhi(I, I.astype(np.uint32)), fg.DTypeError, r"^mulhi: operands must have one dtype"),
    (lambda: L.add(B, C), fg.DTypeError, r"^add: does not accept dtype bool"),
    (lambda: L.abs(I.astype(np.uint32)), fg.DTypeError, r"^abs: does not accept dtype u32"),
    (lambda: L.round(I), fg.DTypeError, r"^round: does not accept dtype i32"),
    (lambda: L.round(X, "up"), fg.TraceError, r"^round: rounding_method"),
    (lambda: L.integer_pow(I, -1), fg.DTypeError, r"^integer_pow: integers cannot be raised to negative powers"),
    (lambda: L.pow(I, I), fg.DTypeError, r"^pow: does not accept dtype i32"),
    (lambda: L.add(T, X), fg.ShapeError, r"^add: operands must have one rank"),
    (lambda: L.add(X, f32(3, 2)), fg.ShapeError, r"^add: incompatible shapes"),
    (lambda: L.clamp(0.0, X, f32(3)), fg.ShapeError, r"^clamp: max must be a scalar or of x's shape"),
    (lambda: L.select(I, X, Y), fg.DTypeError, r"^select: pred must be bool"),
    (lambda: L.select_n(B, X, Y, P), fg.DTypeError, r"^select_n: a bool which chooses between 2 cases"),
    (lambda: L.select_n(B, X, 1.0), fg.ShapeError, r"^select_n: cases must have one shape"),
    (lambda: L.concatenate([X, I], 0), fg.DTypeError, r"^concatenate: operands must have one dtype"),
    (lambda: L.concatenate([X, X], -1), fg.ShapeError, r"^concatenate: dimension \(-1,\) must be in 0..1"),
    (lambda: L.reduce_sum(T, 1), fg.ShapeError, r"^reduce_sum: axes must be a tuple of integers"),
    (lambda: L.reduce_sum(T, (-1,)), fg.ShapeError, r"^reduce_sum: axes \(-1,\) must be in 0..2"),
    (lambda: L.reduce_sum(T, (0, 0)), fg.ShapeError, r"^reduce_sum: axes \(0, 0\) repeat an axis"),
    (lambda: L.reduce_sum(B, (0,)), fg.DTypeError, r"^reduce_sum: does not accept dtype bool"),
    (lambda: L.reduce_or(X, (0,)), fg.DTypeError, r"^reduce_or: does not accept dtype f32"),
    (lambda: L.transpose(T, (-1, 0, 1)), fg.ShapeError, r"^transpose: permutation \(-1, 0, 1\) is not a permutation"),
    (lambda: L.rev(T, (-1,)), fg.ShapeError, r"^rev: dimensions"),
    (lambda: L.reshape(T, (-1, 4)), fg.ShapeError, r"^reshape: new_sizes must not be negative"),
    (lambda: L.reshape(T, (5, 5)), fg.ShapeError, r"^reshape"),
    (lambda: L.broadcast_in_dim(X, (2, 4), (0, 1)), fg.ShapeError, r"^broadcast_in_dim: operand axis of size 3"),
    (lambda: L.broadcast_in_dim(X, (2, 3), (0,)), fg.ShapeError, r"^broadcast_in_dim: broadcast_dimensions \(0,\)"),
    (lambda: L.squeeze(X, (0,)), fg.ShapeError, r"^squeeze: axis 0 of \(2, 3\) has size 2"),
    (lambda: L.slice(T, (0, 0, 0), (2, 3, 5)), fg.ShapeError, r"^slice: axis 2"),
    (lambda: L.index_in_dim(T, 3, 1), fg.ShapeError, r"^index_in_dim: index 3 is out of bounds"),
    (lambda: L.split(T, (1, 2), 2), fg.ShapeError, r"^split: sizes \(1, 2\) must .* add up to axis 2"),
    (lambda: L.tile(T, (2, 1)), fg.ShapeError, r"^tile: reps \(2, 1\)"),
    (lambda: L.iota(np.bool_, 3), fg.DTypeError, r"^iota: does not accept dtype bool"),
    (lambda: L.full((2,), X), fg.ShapeError, r"^full: fill_value must be a scalar"),
    (lambda: L.argmax(T, -1, np.int32), fg.ShapeError, r"^argmax: axis"),
    (lambda: L.argmax(T, 0, np.float32), fg.DTypeError, r"^argmax: index_dtype must be an integer dtype"),
    (lambda: L.dot(T, f32(4)), fg.ShapeError, r"^dot: takes vector-vector"),
    (lambda: L.dot(X, f32(3), precision="fast"), fg.TraceError, r"^dot: .*precision must be None"),
    (lambda: L.dot_general(T, T, (((-1,), (-1,)), ((), ()))), fg.ShapeError, r"^dot_general: lhs dimension numbers"),
    (lambda: L.dot_general(T, T, (((1,), (2,)), ((), ()))), fg.ShapeError,
     r"^dot_general: contracting dimensions \(1,\)"),
    (lambda: L.dot_general(X, X, ((1,), (1,))), fg.ShapeError, r"^dot_general: dimension_numbers must be"),
    (lambda: L.batch_matmul(f32(1, 3, 4), f32(2, 4, 5)), fg.ShapeError, r"^batch_matmul: operands must have"),
    (lambda: L.ragged_dot(f32(7, 3), f32(3, 4, 2), np.int32([2, 4, 1])), fg.ShapeError, r"^ragged_dot: takes lhs"),
    (lambda: L.ragged_dot(f32(7, 3), f32(3, 3, 2), np.float32([2, 4, 1])), fg.DTypeError,
     r"^ragged_dot: group_sizes must be integers"),
    (lambda: L.associative_scan(L.add, (f32(3), f32(4))), fg.ShapeError, r"^associative_scan: the arrays of elems"),
    (lambda: L.approx_min_k(I, 2), fg.DTypeError, r"^approx_min_k: does not accept dtype i32"),
    (lambda: L.map(L.neg, X, batch_size=-1), fg.TraceError, r"^map: batch_size"),
]


@pytest.mark.parametrize("call, error, match", REFUSALS, ids=[m.split(":")[0].strip("^") + f"-{k}"
                                                              for k, (_, _, m) in enumerate(REFUSALS)])
def test_refusals_name_the_function(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_refusals_while_tracing_point_at_the_user():
    with pytest.raises(fg.DTypeError, match=r"^add: operands must have one dtype.* at test_lax\.py:\d+$"):
        fg.trace(lambda x, i: L.add(x, i), X, I)


def test_python_numbers_take_the_dtype_of_their_kind():
    half = np.ones(2, np.float16)
    assert L.add(half, 1.5).dtype == np.float16
    assert L.add(np.ones(2, np.uint32), 1).dtype == np.uint32
    assert L.add(1, 2).dtype == np.int32
    with pytest.raises(fg.DTypeError, match="^max: operands must have one dtype"):
        L.max(half, np.float32(1))


def test_shape_and_dtype_helpers_are_jax_s():
    assert L.broadcast_shapes((2, 1), (3,), ()) == jax.lax.broadcast_shapes((2, 1), (3,), ())
    assert L.dtype(np.float64) is fg.f32 and L.dtype(I) is fg.i32
    empty = L.empty((2, 3), np.int32)
    assert empty.shape == (2, 3) and empty.dtype == np.int32
    with pytest.raises(fg.TraceError, match=r"reduce: the computation must be one of add, mul"):
        L.reduce(X, np.float32(0), lambda a, b: a * b + 1.0, (0,))
    with pytest.raises(fg.TraceError, match=r"reduce: several operands reduced together"):
        L.reduce((X, Y), (np.float32(0), np.float32(0)), lambda a, b: a, (0,))
    with pytest.raises(fg.ShapeError, match=r"stack: operands must share one shape"):
        L.stack([X, X[:1]])


def test_existing_names_keep_working():
    assert L.reduce_window(np.ones((4,), np.float32), 0.0, L.add, (2,), (2,), "VALID").tolist() == [2.0, 2.0]
    np.testing.assert_array_equal(L.rem(np.int32([7, -7]), 3), [1, -1])
    np.testing.assert_array_equal(L.stop_gradient({"a": I})["a"], I)
    assert fg.grad(lambda x: fg.sum(L.stop_gradient(x) * x))(X).tolist() == X.tolist()


# custom_linear_solve: implicit differentiation, checked against JAX's
SYSTEM = (draws.general(4, 4) + 3.0 * np.eye(4, dtype=np.float32)).astype(np.float32)
RHS = f32(4)


def _jacobi(a):
    """A solver that iterates: its steps must not be differentiated, only the solution."""
    def solve(mv, b):
        d = fg.diagonal(a)
        x = b / d
        for _ in range(60):
            x = x + (b - mv(x)) / d
        return x
    return solve


def _loss(lax, linalg, a, b, solve, transpose_solve):
    x = lax.custom_linear_solve(lambda v: a @ v, b, solve, transpose_solve)
    return (x * x).sum()


def _theirs(a, b):
    return _loss(jax.lax, jnp.linalg, a, b, lambda mv, c: jnp.linalg.solve(a, c),
                 lambda vm, c: jnp.linalg.solve(a.T, c))


@pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")
@pytest.mark.parametrize("solver", ["direct", "iterative", "direct-no-transpose", "compiled"])
def test_custom_linear_solve_differentiates_implicitly_as_jax(solver):
    want = jax.grad(_theirs, argnums=(0, 1))(SYSTEM, RHS)

    def ours(a, b):
        solve = _jacobi(a) if solver == "iterative" else (lambda mv, c: fg.numpy.linalg.solve(a, c))
        transpose = None if solver == "direct-no-transpose" else (lambda vm, c: fg.numpy.linalg.solve(a.T, c))
        return _loss(L, fg.numpy.linalg, a, b, solve, transpose)

    grad = fg.grad(ours, argnums=(0, 1))
    got = (fg.jit(grad) if solver == "compiled" else grad)(SYSTEM, RHS)
    same(got, want, f"{solver} grad", rtol=1e-4, atol=1e-5)


def test_custom_linear_solve_of_pytrees_symmetric_with_aux():
    spd = (SYSTEM @ SYSTEM.T).astype(np.float32)

    def loss(lax, linalg, s, u, v):
        def solve(mv, rhs):
            return {"u": linalg.solve(s, rhs["u"]), "v": rhs["v"] / 2.0}, rhs["u"].sum()

        x, aux = lax.custom_linear_solve(lambda t: {"u": s @ t["u"], "v": 2.0 * t["v"]}, {"u": u, "v": v}, solve,
                                         symmetric=True, has_aux=True)
        return (x["u"] ** 2).sum() + x["v"].sum() + 0.0 * aux

    args = (spd, RHS, RHS[:2].copy())
    want = jax.grad(functools.partial(loss, jax.lax, jnp.linalg), argnums=(0, 1, 2))(*args)
    same(fg.grad(functools.partial(loss, L, fg.numpy.linalg), argnums=(0, 1, 2))(*args), want, "pytree grad",
         rtol=1e-4, atol=1e-5)
    batch = np.random.default_rng(5).uniform(-2, 2, (3, 4)).astype(np.float32)
    solved = fg.vmap(lambda c: L.custom_linear_solve(lambda v: SYSTEM @ v, c,
                                                     lambda mv, r: fg.numpy.linalg.solve(SYSTEM, r)))(batch)
    np.testing.assert_allclose(solved, np.linalg.solve(SYSTEM, batch.T).T, rtol=1e-4, atol=1e-5)
    with pytest.raises(fg.ShapeError, match=r"custom_linear_solve: the function must map its argument's structure"):
        L.custom_linear_solve(lambda v: v[:2], RHS, lambda mv, c: c)
    with pytest.raises(fg.TraceError, match=r"custom_linear_solve: solve must be a function"):
        L.custom_linear_solve(lambda v: v, RHS, None)


def _newton(f, x0):
    x = x0
    for _ in range(30):
        x = x - f(x) / (2.0 * x)
    return x


@pytest.mark.filterwarnings("ignore:fgrad. no GPU adapter found")
def test_custom_root_differentiates_by_the_implicit_function_theorem_as_jax():
    """sqrt(a) as the root of x^2 - a by Newton's steps (never differentiated), and a linear
    system's solution as the root of A x - b with a tangent solve through the Jacobian."""
    def root(lax, a):
        return lax.custom_root(lambda x: x * x - a, np.float32(1.0), _newton, lambda g, y: y / g(1.0))

    a = np.float32(2.0)
    want = jax.grad(functools.partial(root, jax.lax))(a)
    for grad in (fg.grad(functools.partial(root, L)), fg.jit(fg.grad(functools.partial(root, L)))):
        same(grad(a), want, "sqrt's derivative", rtol=1e-6, atol=0)

    def system(lax, linalg, jacfwd, a, b):
        x = lax.custom_root(lambda x: a @ x - b, np.zeros(4, np.float32), lambda f, x0: x0 - linalg.solve(a, f(x0)),
                            lambda g, y: linalg.solve(jacfwd(g)(y), y))
        return (x * x).sum()

    want = jax.grad(functools.partial(system, jax.lax, jnp.linalg, jax.jacfwd), argnums=(0, 1))(SYSTEM, RHS)
    got = fg.grad(functools.partial(system, L, fg.numpy.linalg, fg.jacfwd), argnums=(0, 1))(SYSTEM, RHS)
    same(got, want, "linear system's root", rtol=1e-4, atol=1e-5)
    with pytest.raises(fg.TraceError, match=r"custom_root: tangent_solve must be a function"):
        L.custom_root(lambda x: x, np.float32(1.0), _newton, None)


REDUCED = np.concatenate([
    np.random.default_rng(5).normal(size=600).astype(np.float32)
    * np.float32(10.0) ** np.random.default_rng(6).integers(-44, 38, 600).astype(np.float32),
    np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1.00390625, 1.01171875, 65504, 65520, 3.4e38, 1e-40])])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("bits", [(8, 7), (5, 10), (4, 3), (5, 2), (8, 0), (1, 0), (11, 52), (3, 23)])
def test_reduce_precision_is_xla_s_to_the_bit(bits, dtype):
    """Mantissas rounded to even, exponents past the range infinite or flushed to signed zero,
    NaN kept: bit for bit as JAX's (f16 subnormals keep their own mantissa's top bits)."""
    with np.errstate(over="ignore"):  # f32 values past f16's range become infinities, as meant
        x = REDUCED.astype(dtype)
    want = np.asarray(jax_call(lambda x: jax.lax.reduce_precision(x, *bits), x))
    results = [fg.lax.reduce_precision(x, *bits)]
    if dtype is np.float32 or "shader-f16" in fg.default_device().device.features:  # compiled where f16 runs
        results.append(fg.jit(lambda x: fg.lax.reduce_precision(x, *bits))(x).numpy())
    for got in results:
        got = np.asarray(got)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}")[~np.isnan(want)],
                                      want.view(f"u{want.itemsize}")[~np.isnan(want)])
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


def test_reduce_precision_differentiates():
    """Forward mode rounds the tangent, as JAX's; reverse mode passes the cotangent back."""
    x, t = np.float32([1.0101, 2.0, -3.3]), np.float32([0.33333, -1.23456, 7.77777])
    same(fg.jvp(lambda x: fg.lax.reduce_precision(x, 8, 7), (x,), (t,)),
         jax_call(lambda x, t: jax.jvp(lambda x: jax.lax.reduce_precision(x, 8, 7), (x,), (t,)), x, t), "jvp",
         0, 0, oracle="jax.lax")
    np.testing.assert_array_equal(fg.grad(lambda x: fg.sum(fg.lax.reduce_precision(x, 8, 7) * t))(x), t)
    with pytest.raises(fg.TraceError, match="reduce_precision: exponent_bits must be an integer of at least 1, got 0"):
        fg.lax.reduce_precision(x, 0, 7)
    with pytest.raises(fg.DTypeError, match="reduce_precision"):
        fg.lax.reduce_precision(np.int32([1, 2]), 8, 7)


def test_platform_dependent_takes_this_adapter_s_branch():
    platform = "cpu" if fg.default_backend() == "cpu" else "webgpu"
    other = "webgpu" if platform == "cpu" else "cpu"
    branches = {platform: lambda x: x + 1.0, other: lambda x: x - 1.0, "cuda": lambda x: x * 0.0}
    x = np.float32([1.0, 2.0])
    np.testing.assert_allclose(np.asarray(L.platform_dependent(x, **branches)), x + 1)
    np.testing.assert_allclose(np.asarray(fg.jit(lambda v: L.platform_dependent(v, **branches))(x)), x + 1)
    np.testing.assert_allclose(np.asarray(L.platform_dependent(x, tpu=lambda v: v, default=lambda v: -v)), -x)
    with pytest.raises(fg.TraceError, match="use 'webgpu'"):
        L.platform_dependent(x, gpu=lambda v: v)
    with pytest.raises(fg.TraceError, match=f"no branch for this platform, '{platform}', and no default"):
        L.platform_dependent(x, tpu=lambda v: v)
    with pytest.raises(fg.TraceError, match="the 'cpu' branch must be a function"):
        L.platform_dependent(x, cpu=3)


@pytest.mark.parametrize("config", [[(1, 2, 0), (0, 1, 1)], [(2, -1, 1), (-1, 2, 0)]])
def test_a_traced_padding_value_pads_as_jax_s(config):
    """lax.pad and jnp.pad take a traced padding value, as JAX's do: x padded with zeros, the new
    places then set to it; its gradient counts those places."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = fg.jit(lambda a, v: fg.lax.pad(a, v, config))(x, np.float32(-7))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jax.lax.pad(x, np.float32(-7), config)))
    grown = np.asarray(jax.lax.pad(np.zeros_like(x), np.float32(1), config))
    assert float(fg.grad(lambda v: fg.lax.pad(x, v, config).sum())(np.float32(2))) == grown.sum()
    got = fg.jit(lambda a, v: fg.numpy.pad(a, ((1, 0), (2, 1)), constant_values=v))(x, np.int32(5))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jnp.pad(x, ((1, 0), (2, 1)), constant_values=5)))
    with pytest.raises(fg.DTypeError, match=r"a traced padding value must be a scalar of the operand's dtype f32, got "
                                            r"i32\[\]"):
        fg.jit(lambda a, v: fg.lax.pad(a, v, config))(x, np.int32(2))
