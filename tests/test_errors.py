"""User mistakes: each raises the right fgrad error, naming the op, the shapes or dtypes, and the user's line.

Every expected `file:line` is computed from `fn.__code__.co_firstlineno` plus
the offset of the offending line inside `fn`, so editing this file never
breaks the tests. Unless a case says otherwise the offending line is the
first line of the body (offset 1).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

import fgrad as fg

S = fg.spec


def site_of(fn: Callable[..., Any], offset: int = 1) -> str:
    return f"test_errors.py:{fn.__code__.co_firstlineno + offset}"


def check_message(err: fg.FgradError, site: str, parts: list[str]) -> None:
    msg = str(err)
    assert msg.endswith(f" at {site}"), msg
    assert err.site == site
    for part in parts:
        assert part in msg, f"{part!r} not in {msg!r}"


# -- the error classes -----------------------------------------------------------------


@pytest.mark.parametrize(
    "cls, builtin",
    [
        (fg.ShapeError, ValueError),
        (fg.DTypeError, TypeError),
        (fg.TraceError, RuntimeError),
        (fg.InputError, ValueError),
        (fg.GraphError, Exception),
    ],
)
def test_error_classes(cls: type, builtin: type) -> None:
    assert issubclass(cls, fg.FgradError)
    assert issubclass(cls, builtin)
    assert issubclass(fg.FgradError, Exception)
    err = cls("op: something is wrong", "model.py:14")
    assert str(err) == "op: something is wrong at model.py:14"
    assert err.site == "model.py:14"
    assert str(cls("no site")) == "no site" and cls("no site").site is None


def test_shape_error_is_caught_by_except_value_error() -> None:
    def f(x, w):
        return x @ w

    with pytest.raises(ValueError):
        fg.trace(f, S((2, 3)), S((4, 5)))


def test_dtype_error_is_caught_by_except_type_error() -> None:
    def f(x, y):
        return fg.bitwise_and(x, y)

    with pytest.raises(TypeError):
        fg.trace(f, S(3), S(3))


# -- mistakes inside a traced function -------------------------------------------------------
# One function per mistake; its first body line is the offending one.


def matmul_mismatch(x, w):
    return x @ w


def matmul_scalar(x, w):
    return fg.matmul(x, w)


def reshape_impossible(x):
    return x.reshape(5, 5)


def reshape_infer_impossible(x):
    return x.reshape(-1, 5)


def sum_bad_axis(x):
    return x.sum(axis=2)


def softmax_bad_axis(x):
    return fg.softmax(x, axis=-3)


def log_softmax_bad_axis(x):
    return fg.log_softmax(x, axis=2)


def mean_bad_axis(x):
    return x.mean(axis=5)


def max_bad_axis(x):
    return x.max(axis=(0, 3))


def sum_repeated_axis(x):
    return x.sum(axis=(0, -2))


def mean_repeated_axis(x):
    return fg.mean(x, axis=[1, 1])


def transpose_repeated(x):
    return x.transpose(0, 0)


def transpose_too_long(x):
    return fg.transpose(x, (0, 1, 2))


def transpose_out_of_range(x):
    return x.transpose(1, 2)


def add_broadcast(x, y):
    return x + y


def mul_broadcast(x, y):
    return y * x


def where_broadcast(x, y):
    return fg.where(x > 0, x, y)


def squeeze_non_one(x):
    return x.squeeze(0)


def index_too_many(x):
    return x[0, 0, 0]


def index_out_of_bounds(x):
    return x[3]


def index_negative_out_of_bounds(x):
    return x[:, -5]


def index_step_zero(x):
    return x[::0]


def index_bool_mask(x):
    return x[x > 0]


def index_numpy_bool_mask(x):
    return x[np.array([True, False])]


def take_out_of_range(x):
    return fg.take(x, np.array([0, 7]), axis=0)


def take_float_indices(x):
    return fg.take(x, np.array([0.0, 1.0]), axis=0)


def take_traced_float_indices(x, idx):
    return fg.take(x, idx, axis=1)


def concatenate_mismatch(x, y):
    return fg.concatenate([x, y], axis=0)


def concatenate_ranks(x, y):
    return fg.concatenate([x, y], axis=0)


def pad_negative(x):
    return fg.pad(x, -1)


def pad_negative_pair(x):
    return fg.pad(x, ((1, -2), (0, 0)))


def bitwise_and_float(x, y):
    return fg.bitwise_and(x, y)  # fg.logical_and reads floats as x != 0, as jax.numpy


def logical_or_operator_float(x, y):
    return (x > 0) | y


def invert_float(x):
    return ~x


def astype_float8(x):
    return x.astype("float8_e4m3fn")


def u32_plus_two_to_the_32(x):
    return x.astype("u32") + 2**32


def astype_complex64(x):
    return x.astype("complex64")


def astype_numpy_complex(x):
    return fg.astype(x, np.complex128)


def int_pow_negative(n):
    return n ** -1


def one_hot_bool(x):
    return fg.one_hot(x, 10)


def if_on_tensor(x):
    if x > 0:
        return x
    return -x


def float_of_tensor(x):
    return float(x) * 2.0


def int_of_tensor(x):
    return int(x)


def numpy_of_tensor(x):
    return np.asarray(x)


def len_of_scalar(x):
    return len(x)


@dataclass
class Case:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    error: type
    parts: list[str] = field(default_factory=list)
    offset: int = 1


X34 = (S((3, 4)),)
TRACE_CASES = {
    "matmul": Case(matmul_mismatch, (S((32, 784)), S((512, 10))), fg.ShapeError,
                   ["matmul: inner dimensions differ: (32, 784) @ (512, 10)"]),
    "matmul-0d": Case(matmul_scalar, (S(()), S((3, 4))), fg.ShapeError, ["matmul", "()", "(3, 4)"]),
    "reshape": Case(reshape_impossible, X34, fg.ShapeError, ["reshape: cannot reshape (3, 4) into (5, 5)"]),
    "reshape-infer": Case(reshape_infer_impossible, X34, fg.ShapeError, ["reshape", "(3, 4)", "5"]),
    "sum-axis": Case(sum_bad_axis, X34, fg.ShapeError, ["sum", "axis 2", "(3, 4)"]),
    "softmax-axis": Case(softmax_bad_axis, X34, fg.ShapeError, ["softmax", "-3", "(3, 4)"]),
    "log_softmax-axis": Case(log_softmax_bad_axis, X34, fg.ShapeError, ["log_softmax", "2", "(3, 4)"]),
    "mean-axis": Case(mean_bad_axis, X34, fg.ShapeError, ["mean", "5", "(3, 4)"]),
    "max-axis": Case(max_bad_axis, X34, fg.ShapeError, ["max", "3", "(3, 4)"]),
    "sum-repeated-axis": Case(sum_repeated_axis, X34, fg.ShapeError, ["sum", "repeated", "(0, -2)", "(3, 4)"]),
    "mean-repeated-axis": Case(mean_repeated_axis, X34, fg.ShapeError, ["mean", "repeated", "(3, 4)"]),
    "transpose-repeated": Case(transpose_repeated, X34, fg.ShapeError, ["transpose", "(0, 0)", "(3, 4)"]),
    "transpose-too-long": Case(transpose_too_long, X34, fg.ShapeError, ["transpose", "(0, 1, 2)", "(3, 4)"]),
    "transpose-out-of-range": Case(transpose_out_of_range, X34, fg.ShapeError, ["transpose", "(1, 2)", "(3, 4)"]),
    "add-broadcast": Case(add_broadcast, (S((3, 4)), S(5)), fg.ShapeError, ["add", "(3, 4)", "(5,)"]),
    "mul-broadcast": Case(mul_broadcast, (S((3, 4)), S((2, 4))), fg.ShapeError, ["mul", "(2, 4)", "(3, 4)"]),
    "where-broadcast": Case(where_broadcast, (S((3, 4)), S(3)), fg.ShapeError, ["where", "(3, 4)", "(3,)"]),
    "squeeze": Case(squeeze_non_one, X34, fg.ShapeError, ["squeeze", "size 3", "(3, 4)"]),
    "index-too-many": Case(index_too_many, X34, fg.ShapeError, ["getitem", "too many indices", "(3, 4)"]),
    "index-out-of-bounds": Case(index_out_of_bounds, X34, fg.ShapeError, ["getitem", "index 3", "size 3", "(3, 4)"]),
    "index-negative": Case(index_negative_out_of_bounds, X34, fg.ShapeError, ["getitem", "-5", "size 4", "(3, 4)"]),
    "index-step-zero": Case(index_step_zero, X34, fg.ShapeError, ["getitem", "step", "0", "(3, 4)"]),
    "index-bool-mask": Case(index_bool_mask, X34, fg.ShapeError, ["getitem", "mask", "(3, 4)", "fg.where"]),
    "index-numpy-bool-mask": Case(index_numpy_bool_mask, X34, fg.ShapeError, ["getitem", "mask", "(3, 4)"]),
    "take-out-of-range": Case(take_out_of_range, X34, fg.ShapeError, ["take", "index 7", "size 3", "(3, 4)"]),
    "take-float-indices": Case(take_float_indices, X34, fg.DTypeError, ["take", "indices", "float"]),
    "take-traced-float-indices": Case(take_traced_float_indices, (S((3, 4)), S(2)), fg.DTypeError,
                                      ["take", "indices", "f32[2]"]),
    "concatenate": Case(concatenate_mismatch, (S((3, 4)), S((3, 5))), fg.ShapeError,
                        ["concatenate", "(3, 4)", "(3, 5)"]),
    "concatenate-ranks": Case(concatenate_ranks, (S((3, 4)), S(4)), fg.ShapeError, ["concatenate", "(3, 4)", "(4,)"]),
    "pad-negative": Case(pad_negative, X34, fg.ShapeError, ["pad", "-1", "(3, 4)"]),
    "pad-negative-pair": Case(pad_negative_pair, X34, fg.ShapeError, ["pad", "-2", "(3, 4)"]),
    "bitwise_and-f32": Case(bitwise_and_float, (S((3, 4)), S((3, 4))), fg.DTypeError,
                            ["bitwise_and", "integer or bool", "f32[3,4]"]),
    "or-operator-f32": Case(logical_or_operator_float, (S(3), S(3)), fg.DTypeError, ["bitwise_or", "|", "f32[3]"]),
    "invert-f32": Case(invert_float, X34, fg.DTypeError, ["~", "bool", "f32[3,4]"]),
    "astype-float8": Case(astype_float8, X34, fg.DTypeError, ["astype", "float8_e4m3fn"]),
    "u32-int-too-large": Case(u32_plus_two_to_the_32, X34, fg.DTypeError, ["add", "4294967296", "does not fit u32"]),
    "astype-complex64": Case(astype_complex64, X34, fg.DTypeError, ["astype", "complex64"]),
    "astype-numpy-complex": Case(astype_numpy_complex, X34, fg.DTypeError, ["astype", "complex128"]),
    "i32-pow-negative": Case(int_pow_negative, (S((3, 4), "i32"),), fg.DTypeError, ["pow", "-1", "i32[3,4]"]),
    "one_hot-bool": Case(one_hot_bool, (S(3, "bool"),), fg.DTypeError, ["one_hot", "bool[3]"]),
    "if": Case(if_on_tensor, (S(()),), fg.TraceError, ["truth value", "bool[]", "fg.where"]),
    "float()": Case(float_of_tensor, (S(()),), fg.TraceError, ["float()", "f32[]"]),
    "int()": Case(int_of_tensor, (S((), "i32"),), fg.TraceError, ["int()", "i32[]"]),
    "np.asarray": Case(numpy_of_tensor, (S(3),), fg.TraceError, ["NumPy value", "f32[3]"]),
    "len-0d": Case(len_of_scalar, (S(()),), fg.TraceError, ["len()", "f32[]"]),
}


@pytest.mark.parametrize("case", TRACE_CASES.values(), ids=TRACE_CASES.keys())
def test_mistake_inside_traced_function(case: Case) -> None:
    with pytest.raises(case.error) as e:
        fg.trace(case.fn, *case.args)
    check_message(e.value, site_of(case.fn, case.offset), case.parts)


def test_error_site_is_the_offending_line_not_the_first() -> None:
    def f(x, w):
        h = fg.relu(x)
        h = h * 2.0
        return h @ w

    with pytest.raises(fg.ShapeError) as e:
        fg.trace(f, S((2, 3)), S((4, 5)))
    check_message(e.value, site_of(f, 3), ["matmul", "(2, 3) @ (4, 5)"])


def test_error_from_a_helper_points_at_the_helper_line() -> None:
    def helper(a):
        return a.reshape(7)

    def f(x):
        return helper(x) + 1.0

    with pytest.raises(fg.ShapeError) as e:
        fg.trace(f, S((2, 3)))
    check_message(e.value, site_of(helper, 1), ["reshape", "(2, 3)", "(7,)"])


def test_log_of_bool_is_fine() -> None:
    g = fg.trace(lambda m: fg.log(m), S(2, "bool"))
    assert g.out_specs == (S(2, "f32"),)
    with np.errstate(divide="ignore"):  # log(0) = -inf is the expected value here
        out = fg.interpret(g, np.array([True, False]))
    assert out[0] == 0.0 and out[1] == -np.inf


def test_eager_mistakes_point_at_the_caller_too() -> None:
    def f():
        return fg.reshape(np.ones((3, 4)), (5, 5))

    with pytest.raises(fg.ShapeError) as e:
        f()
    check_message(e.value, site_of(f), ["reshape", "(3, 4)", "(5, 5)"])


# -- leaked and foreign tracers ------------------------------------------------------------


def test_tracer_used_after_its_trace_ended() -> None:
    leaked = []

    def keep(x):
        leaked.append(x)
        return x * 2.0

    fg.trace(keep, S(3))

    def use(y):
        return y + leaked[0]

    with pytest.raises(fg.TraceError) as e:
        fg.trace(use, S(3))
    check_message(e.value, site_of(use), ["add", "f32[3]", "already ended"])

    def use_unary(y):
        return fg.exp(leaked[0])

    with pytest.raises(fg.TraceError) as e:
        fg.trace(use_unary, S(3))
    check_message(e.value, site_of(use_unary), ["exp", "f32[3]", "already ended"])


def test_leaked_tracer_used_eagerly() -> None:
    leaked = []
    fg.trace(lambda x: leaked.append(x) or x, S((2, 2)))

    def use():
        return fg.sum(leaked[0])

    with pytest.raises(fg.TraceError) as e:
        use()
    check_message(e.value, site_of(use), ["sum", "f32[2,2]", "already ended"])


def test_returning_a_leaked_tracer() -> None:
    leaked = []
    fg.trace(lambda x: leaked.append(x) or x, S(3))

    def call():
        return fg.trace(lambda y: leaked[0], S(3))

    with pytest.raises(fg.TraceError) as e:
        call()
    check_message(e.value, site_of(call), ["trace", "f32[3]", "already ended"])


def test_tracer_of_an_enclosing_trace() -> None:
    def outer(x):
        def inner(y):
            return y * x

        fg.trace(inner, S(3))
        return x

    with pytest.raises(fg.TraceError) as e:
        fg.trace(outer, S(3))
    check_message(e.value, site_of(outer, 2), ["mul", "f32[3]", "enclosing trace"])


# -- bad functions and arguments for trace ---------------------------------------------------


@pytest.mark.parametrize(
    "result, type_name",
    [("a string", "str"), (object(), "object"), ({"loss": "bad"}, "str"), ([1.0, print], "builtin_function_or_method")],
)
def test_function_returning_a_non_tensor(result: Any, type_name: str) -> None:
    def returns_junk(x):
        return result

    def call():
        return fg.trace(returns_junk, S(3))

    with pytest.raises(fg.TraceError) as e:
        call()
    check_message(e.value, site_of(call), ["trace", "returns_junk", type_name])


@pytest.mark.parametrize("fn, type_name", [(3, "int"), ("fn", "str"), (None, "NoneType"), (np.ones(3), "ndarray")])
def test_trace_of_a_non_callable(fn: Any, type_name: str) -> None:
    def call():
        return fg.trace(fn, S(3))

    with pytest.raises(fg.TraceError) as e:
        call()
    check_message(e.value, site_of(call), ["trace", "function", type_name])


@pytest.mark.parametrize(
    "arg, error, parts",
    [
        ("hello", fg.TraceError, ["trace", "argument x", "str"]),
        (object(), fg.TraceError, ["trace", "argument x", "object"]),
        (np.ones(3, np.complex64), fg.DTypeError, ["argument x", "complex64"]),
        (np.ones(3, "datetime64[s]"), fg.DTypeError, ["argument x", "datetime64"]),
    ],
    ids=["str", "object", "complex64", "datetime64"],
)
def test_trace_argument_of_unsupported_type(arg: Any, error: type, parts: list[str]) -> None:
    def call():
        return fg.trace(lambda x: x, arg)

    with pytest.raises(error) as e:
        call()
    check_message(e.value, site_of(call), parts)


def test_trace_argument_error_names_the_pytree_path() -> None:
    def loss(params, x):
        return x

    def call():
        return fg.trace(loss, {"layers": [{"w": S(3)}, {"w": "oops"}]}, S(3))

    with pytest.raises(fg.TraceError) as e:
        call()
    check_message(e.value, site_of(call), ["argument params.layers.1.w", "str"])


# -- interpret: arguments that do not match the graph ---------------------------------------


def affine(params, x):
    return params["w"] * x + params["b"]


def affine_graph() -> fg.Graph:
    return fg.trace(affine, {"w": S(3), "b": S(3)}, S(3))


ONES = np.ones(3, np.float32)
PARAMS = {"w": ONES, "b": ONES}


def test_interpret_accepts_matching_arguments() -> None:
    out = fg.interpret(affine_graph(), {"w": ONES * 2, "b": ONES}, ONES * 3)
    np.testing.assert_array_equal(out, [7.0, 7.0, 7.0])


@pytest.mark.parametrize(
    "args, parts",
    [
        pytest.param((PARAMS,), ["interpret", "2 arguments", "params, x", "got 1"], id="too-few"),
        pytest.param((PARAMS, ONES, ONES), ["interpret", "2 arguments", "params, x", "got 3"], id="too-many"),
        pytest.param(({"w": ONES, "b": [ONES]}, ONES), ["interpret", "argument params.b"], id="nested-structure"),
        pytest.param(({"w": ONES}, ONES), ["interpret", "argument params", "'b'"], id="missing-key"),
        pytest.param(({"w": ONES, "b": ONES, "c": ONES}, ONES), ["interpret", "argument params", "'c'"],
                     id="extra-key"),
        pytest.param(([ONES, ONES], ONES), ["interpret", "argument params", "{'b': *, 'w': *}"], id="list-for-dict"),
        pytest.param((PARAMS, np.ones(4, np.float32)), ["interpret", "argument x", "float32[4]", "f32[3]"],
                     id="wrong-shape"),
        pytest.param(({"w": ONES, "b": np.ones((3, 1), np.float32)}, ONES),
                     ["interpret", "argument params.b", "float32[3,1]", "f32[3]"], id="wrong-shape-in-pytree"),
        pytest.param((PARAMS, np.ones(3, np.int64)), ["interpret", "argument x", "int64[3]", "f32[3]"],
                     id="int-array-for-f32"),
        pytest.param((PARAMS, np.ones(3, bool)), ["interpret", "argument x", "bool[3]", "f32[3]"],
                     id="bool-array-for-f32"),
        pytest.param((PARAMS, "abc"), ["interpret", "argument x", "str", "f32[3]"], id="string"),
        pytest.param((PARAMS, 1.0), ["interpret", "argument x", "float", "f32[3]"], id="number-for-array"),
    ],
)
def test_interpret_wrong_arguments(args: tuple[Any, ...], parts: list[str]) -> None:
    g = affine_graph()

    def call():
        return fg.interpret(g, *args)

    with pytest.raises(fg.InputError) as e:
        call()
    check_message(e.value, site_of(call), parts)


@pytest.mark.parametrize(
    "spec, value, parts",
    [
        (S((), "i32"), 2.5, ["argument n", "float", "i32[]"]),
        (S((), "bool"), 1, ["argument n", "int", "bool[]"]),
        (S(2, "i32"), np.array([1.0, 2.0]), ["argument n", "float64[2]", "i32[2]"]),
    ],
)
def test_interpret_wrong_dtype_for_int_and_bool_inputs(spec: fg.Spec, value: Any, parts: list[str]) -> None:
    g = fg.trace(lambda n: n, spec)

    def call():
        return fg.interpret(g, value)

    with pytest.raises(fg.InputError) as e:
        call()
    check_message(e.value, site_of(call), ["interpret", *parts])


def test_interpret_of_a_function_instead_of_a_graph() -> None:
    def call():
        return fg.interpret(affine, PARAMS, ONES)

    with pytest.raises(fg.TraceError) as e:
        call()
    check_message(e.value, site_of(call), ["interpret", "Graph", "function", "fg.trace"])


# -- integers that do not fit i32, bad axes and keywords, NumPy on traced values, traced indices ------


def int_add_too_large(i):
    return i + 2**41


def int_where_numpy_too_large(i):
    return fg.where(i > 0, i, np.array([1, 2**40], np.int64))


def int_numpy_scalar_too_large(i):
    return np.int64(-(2**35)) - i


def sum_float_axis(x):
    return fg.sum(x, axis=1.0)


def expand_dims_float_axis(x):
    return fg.expand_dims(x, 0.5)


def unary_unknown_keyword(x):
    return fg.exp(x, approximate=False)


def gelu_unknown_keyword(x):
    return fg.gelu(x, approx=False)


def numpy_cumsum(x):
    return np.cumsum(x)


def numpy_norm(x):
    return np.linalg.norm(x) + 1.0


def numpy_sum(x):
    return np.sum(x, axis=0)


def traced_slice_bound(x, i):
    return x[i:i + 2]


def traced_python_index(x, i):
    return [x, x][i]


def take_unknown_mode(x, i):
    return fg.take(x, i, mode="wrap")


def pad_value_too_large(i):
    return fg.pad(i, 1, constant_values=2**40)


def neg_of_bool(m):
    return -m


def subtract_bools(m):
    return fg.subtract(m, m)


NEW_CASES = {
    "i32-python-int": Case(int_add_too_large, (S(3, "i32"),), fg.DTypeError, ["add", "2199023255552", "i32"]),
    "i32-numpy-array": Case(int_where_numpy_too_large, (S(2, "i32"),), fg.DTypeError,
                            ["where", "1099511627776", "i32"]),
    "i32-numpy-scalar": Case(int_numpy_scalar_too_large, (S(2, "i32"),), fg.DTypeError, ["subtract", "-34359738368"]),
    "sum-float-axis": Case(sum_float_axis, X34, fg.ShapeError, ["sum", "axis 1.0", "integer"]),
    "expand_dims-float-axis": Case(expand_dims_float_axis, X34, fg.ShapeError, ["expand_dims", "axis 0.5"]),
    "unary-keyword": Case(unary_unknown_keyword, X34, fg.TraceError, ["exp", "'approximate'"]),
    "gelu-keyword": Case(gelu_unknown_keyword, X34, fg.TraceError, ["gelu", "'approx'", "approximate"]),
    "np.cumsum": Case(numpy_cumsum, (S(3),), fg.TraceError, ["np.cumsum", "not supported on traced values", "f32[3]",
                                                         "fg.cumsum"]),
    "np.linalg.norm": Case(numpy_norm, (S(3),), fg.TraceError, ["np.linalg.norm", "fg.sqrt(fg.sum(x * x))"]),
    "np.sum": Case(numpy_sum, X34, fg.TraceError, ["np.sum", "fg.sum", "f32[3,4]"]),
    "slice-bound": Case(traced_slice_bound, (S(5), S((), "i32")), fg.TraceError,
                        ["getitem", "slice bound", "axis 0", "i32[]", "x[i + fg.arange(k)]",
                         "fg.take(x, i + fg.arange(k)", "fg.dynamic_slice(x, starts, sizes)"]),
    "python-index": Case(traced_python_index, (S(5), S((), "i32")), fg.TraceError,
                         ["index", "i32[]", "x[i + fg.arange(k)]"]),
    "take-mode": Case(take_unknown_mode, (S(5), S(2, "i32")), fg.TraceError, ["take", "'wrap'", "'clip'"]),
    "i32-pad-value": Case(pad_value_too_large, (S(3, "i32"),), fg.DTypeError, ["pad", "1099511627776", "i32"]),
    "neg-bool": Case(neg_of_bool, (S(3, "bool"),), fg.DTypeError, ["neg", "bool", "logical_not"]),
    "subtract-bool": Case(subtract_bools, (S(3, "bool"),), fg.DTypeError, ["subtract", "bool[3]", "not_equal"]),
}


@pytest.mark.parametrize("case", NEW_CASES.values(), ids=NEW_CASES.keys())
def test_more_mistakes_inside_traced_functions(case: Case) -> None:
    with pytest.raises(case.error) as e:
        fg.trace(case.fn, *case.args)
    check_message(e.value, site_of(case.fn, case.offset), case.parts)
    assert "fg.where" not in str(e.value)  # these are not about control flow
    assert "_float_unary" not in str(e.value) and "<locals>" not in str(e.value)


def test_integer_constants_that_fit_i32_still_work() -> None:
    g = fg.trace(lambda i: (i + (2**31 - 1), i - np.int64(2**31 - 1)), S(2, "i32"))
    high, low = fg.interpret(g, np.array([0, -1], np.int32))
    np.testing.assert_array_equal(high, [2**31 - 1, 2**31 - 2])
    np.testing.assert_array_equal(low, [-(2**31) + 1, -(2**31)])
    g = fg.trace(lambda x: x + 2**41, S(2))  # an f32 operand makes the int a float, as in JAX
    np.testing.assert_array_equal(fg.interpret(g, np.zeros(2, np.float32)), [2.0**41] * 2)


def test_numpy_shape_queries_on_traced_values_still_work() -> None:
    g = fg.trace(lambda x: x * np.ndim(x) + np.shape(x)[1] + np.size(x), S((3, 4)))
    np.testing.assert_array_equal(fg.interpret(g, np.zeros((3, 4), np.float32)), np.full((3, 4), 16.0))


# -- misuse of public calls: values that are not arrays, bad sizes, shapes and dtype arguments -----


def datetime_operand(x):
    return x + np.ones(3, "datetime64[s]")


def complex_operand(x):
    return x / 1j


def ragged_operand(x):
    return fg.add(x, [[1.0], [2.0, 3.0]])


def string_condition(x):
    return fg.where("abc", x, 0.0)


def empty_operand(x):
    return x + np.zeros((0,), np.float32)


def float_slice_bound(x):
    return x[0.5:2]


def setitem_on_tensor(x):
    x[0] = 1.0
    return x


def shape_none(x):
    return fg.reshape(x, None)


def transpose_int_axes(x):
    return fg.transpose(x, 0)


def negative_broadcast_shape(x):
    return fg.broadcast_to(x, (-1, 3))


def pad_string_value(x):
    return fg.pad(x, 1, constant_values="a")


def take_ragged_indices(x):
    return fg.take(x, [[0], [0, 1]])


def scatter_add_float_axis(x):
    return fg.scatter_add(x, np.array([0, 1, 2]), 4, axis=0.0)


def one_hot_float_classes(i):
    return fg.one_hot(i, 3.5)


def astype_int_dtype(x):
    return x.astype(3)


TRACED_MISUSE = {
    "datetime": Case(datetime_operand, (S(3),), fg.DTypeError, ["add", "datetime64"]),
    "complex": Case(complex_operand, (S(3),), fg.DTypeError, ["divide", "complex"]),
    "ragged-list": Case(ragged_operand, (S(3),), fg.DTypeError, ["add", "list"]),
    "string-condition": Case(string_condition, (S(3),), fg.DTypeError, ["where", "str", "'abc'"]),
    "empty-array": Case(empty_operand, (S(3),), fg.ShapeError, ["add", "broadcast", "(0,)"]),
    "float-slice-bound": Case(float_slice_bound, (S(3),), fg.ShapeError, ["getitem", "0.5", "axis 0"]),
    "setitem": Case(setitem_on_tensor, (S(3),), fg.TraceError, ["setitem", "immutable", "f32[3]"]),
    "reshape-None": Case(shape_none, (S(3),), fg.ShapeError, ["reshape", "None"]),
    "transpose-int": Case(transpose_int_axes, (S((2, 3)),), fg.ShapeError, ["transpose", "0", "(2, 3)"]),
    "broadcast-negative": Case(negative_broadcast_shape, (S(3),), fg.ShapeError, ["broadcast_to", "(-1, 3)"]),
    "pad-string": Case(pad_string_value, (S(3),), fg.TraceError, ["pad", "constant_values", "'a'"]),
    "take-ragged": Case(take_ragged_indices, (S(3),), fg.DTypeError, ["take", "list"]),
    "scatter_add-axis": Case(scatter_add_float_axis, (S(3),), fg.ShapeError, ["scatter_add", "axis", "0.0"]),
    "one_hot-float": Case(one_hot_float_classes, (S(2, "i32"),), fg.ShapeError, ["one_hot", "num_classes", "3.5"]),
    "astype-int": Case(astype_int_dtype, (S(3),), fg.DTypeError, ["astype", "3 is not a dtype"]),
}


@pytest.mark.parametrize("case", TRACED_MISUSE.values(), ids=TRACED_MISUSE.keys())
def test_misuse_inside_traced_functions(case: Case) -> None:
    with pytest.raises(case.error) as e:
        fg.trace(case.fn, *case.args)
    check_message(e.value, site_of(case.fn, case.offset), case.parts)
    assert "<locals>" not in str(e.value)


def loss3(w, x):
    return fg.sum(w * x)


X3 = np.ones(3, np.float32)
GRAPH3 = fg.trace(loss3, S(3), S(3))


def eager_u32_below_i32():
    return fg.add(np.ones(3, np.uint32), -2**31 - 1)


def eager_none():
    return fg.exp(None)


def spec_float_dtype():
    return fg.spec(3, 1.0)


def arange_nan():
    return fg.arange(float("nan"))


def arange_too_long():
    return fg.arange(2**40)


def causal_mask_float():
    return fg.causal_mask(3.0)


def concatenate_none():
    return fg.concatenate(None)


def pass_of_a_function():
    return fg.simplify(loss3)


def typecheck_none():
    return fg.typecheck(None)


def tree_map_non_callable():
    return fg.tree_map(3, [1.0])


def tree_map_mismatch():
    return fg.tree_map(lambda a, b: a, [1.0, 2.0], [1.0])


def grad_of_a_number():
    return fg.grad(3)


def grad_float_argnums():
    return fg.grad(loss3, argnums=1.0)


def grad_keyword_call():
    return fg.grad(loss3)(X3, x=X3)


def grad_u32_argument():
    return fg.grad(loss3)(np.ones(3, np.uint32), X3)


def check_grads_order():
    return fg.check_grads(GRAPH3, (X3, X3), order=3)


def check_grads_eps():
    return fg.check_grads(GRAPH3, (X3, X3), eps=0.0)


def check_grads_float16():
    return fg.check_grads(GRAPH3, (np.ones(3, np.float16), X3))


def interpret_captures_int():
    return fg.interpret(GRAPH3, X3, X3, captures=3)


def device_put_uint64_too_large():
    return fg.device_put(np.array([2**33], np.uint64))


def device_put_device_name():
    return fg.device_put(X3, "gpu")


def compile_float_donate():
    return fg.compile(GRAPH3, donate_argnums=0.0)


def compile_device_name():
    return fg.compile(GRAPH3, device="gpu")


def jit_of_a_number():
    return fg.jit(3)


def jit_float_static_argnums():
    return fg.jit(loss3, static_argnums=0.0)


def profile_of_a_graph():
    return fg.profile(GRAPH3, X3, X3)


def save_path_last():
    return fg.save({"w": X3}, "model.ckpt")


def load_path_none():
    return fg.load(None)


def adam_string_lr():
    return fg.adam_step(loss3, lr="fast")


def adam_init_string():
    return fg.adam_init({"w": "abc"})


def sgd_with_adam_state():
    return fg.sgd_step(loss3)(X3, fg.adam_init(X3), X3)


def init_with_seed_not_rng():
    return fg.nn.init_linear(0, 3, 2)


def init_width_zero():
    return fg.nn.init_linear(np.random.default_rng(0), 0, 2)


CALL_MISUSE = {
    "u32-int-eager": Case(eager_u32_below_i32, (), fg.DTypeError, ["add", "-2147483649", "does not fit u32"]),
    "None-eager": Case(eager_none, (), fg.DTypeError, ["exp", "NoneType"]),
    "spec-dtype-value": Case(spec_float_dtype, (), fg.DTypeError, ["spec", "1.0 is not a dtype"]),
    "arange-nan": Case(arange_nan, (), fg.ShapeError, ["arange", "nan"]),
    "arange-too-long": Case(arange_too_long, (), fg.ShapeError, ["arange", "1099511627776", "i32"]),
    "causal_mask-float": Case(causal_mask_float, (), fg.ShapeError, ["causal_mask", "3.0"]),
    "concatenate-None": Case(concatenate_none, (), fg.TraceError, ["concatenate", "list or tuple", "NoneType"]),
    "pass-of-function": Case(pass_of_a_function, (), fg.TraceError, ["simplify", "Graph", "function", "fg.trace"]),
    "typecheck-None": Case(typecheck_none, (), fg.TraceError, ["typecheck", "Graph", "NoneType"]),
    "tree_map-non-callable": Case(tree_map_non_callable, (), fg.InputError, ["tree_map", "function", "int"]),
    "tree_map-mismatch": Case(tree_map_mismatch, (), fg.InputError, ["tree_map", "2 entries", "got 1"]),
    "grad-of-number": Case(grad_of_a_number, (), fg.TraceError, ["grad", "function", "int"]),
    "grad-float-argnums": Case(grad_float_argnums, (), fg.InputError, ["grad", "argnums", "1.0"]),
    "grad-keyword": Case(grad_keyword_call, (), fg.TraceError, ["grad", "'x'", "positionally"]),
    "grad-u32": Case(grad_u32_argument, (), fg.DTypeError, ["argument w", "u32[3]", "float inputs"]),
    "check_grads-order": Case(check_grads_order, (), fg.InputError, ["check_grads", "order", "3"]),
    "check_grads-eps": Case(check_grads_eps, (), fg.InputError, ["check_grads", "eps=0.0"]),
    "check_grads-float16": Case(check_grads_float16, (), fg.InputError, ["check_grads", "argument w", "float16"]),
    "interpret-captures": Case(interpret_captures_int, (), fg.InputError, ["captures", "3"]),
    "device_put-uint64": Case(device_put_uint64_too_large, (), fg.InputError, ["device_put", "u32 range"]),
    "device_put-device": Case(device_put_device_name, (), fg.InputError, ["device_put", "device", "'gpu'"]),
    "compile-donate": Case(compile_float_donate, (), fg.InputError, ["compile", "donate_argnums", "0.0"]),
    "compile-device": Case(compile_device_name, (), fg.InputError, ["compile", "device", "'gpu'"]),
    "jit-of-number": Case(jit_of_a_number, (), fg.TraceError, ["jit", "function", "int"]),
    "jit-static-float": Case(jit_float_static_argnums, (), fg.InputError, ["jit", "static_argnums", "0.0"]),
    "profile-graph": Case(profile_of_a_graph, (), fg.TraceError, ["profile", "Executable", "Graph"]),
    "save-path-last": Case(save_path_last, (), fg.CheckpointError, ["save", "path", "dict"]),
    "load-None": Case(load_path_none, (), fg.CheckpointError, ["load", "path", "NoneType"]),
    "adam-lr": Case(adam_string_lr, (), fg.InputError, ["adam_step", "lr='fast'"]),
    "adam_init-string": Case(adam_init_string, (), fg.TraceError, ["adam_init", "params.w", "str"]),
    "sgd-adam-state": Case(sgd_with_adam_state, (), fg.InputError, ["sgd_step", "opt_state", "sgd_init"]),
    "init-seed": Case(init_with_seed_not_rng, (), fg.InputError, ["init", "rng", "int"]),
    "init-width-zero": Case(init_width_zero, (), fg.ShapeError, ["init", "(0, 2)"]),
}


@pytest.mark.parametrize("case", CALL_MISUSE.values(), ids=CALL_MISUSE.keys())
def test_misuse_of_public_calls(case: Case) -> None:
    with pytest.raises(case.error) as e:
        case.fn(*case.args)
    check_message(e.value, site_of(case.fn, case.offset), case.parts)
    assert "<locals>" not in str(e.value)


def test_leaked_tracer_is_refused_by_calls_that_change_nothing() -> None:
    leaked = []
    fg.trace(lambda x: leaked.append(x) or x, S(3))

    def use():
        return fg.reshape(leaked[0], (3,))

    with pytest.raises(fg.TraceError) as e:
        use()
    check_message(e.value, site_of(use), ["reshape", "f32[3]", "already ended"])


def test_donated_array_is_refused_by_device_put() -> None:
    exe = fg.compile(fg.trace(lambda w: w * 2.0, S(3)), donate_argnums=0)
    a = fg.device_put(X3)
    exe(a)

    def use():
        return fg.device_put(a)

    with pytest.raises(fg.InputError) as e:
        use()
    check_message(e.value, site_of(use), ["device_put", "donated"])


def test_wrong_call_of_returned_functions_names_no_internals() -> None:
    _, vjp_fn = fg.vjp(lambda x: x * 2.0, X3)
    with pytest.raises(TypeError, match=r"^vjp_fn\(\) takes 1 positional argument") as e:
        vjp_fn(X3, X3)
    assert "<locals>" not in str(e.value)
    with pytest.raises(TypeError, match=r"^mean\(\) got an unexpected keyword argument 'weights'"):
        fg.device_put(X3).mean(weights=X3)


def test_python_int_arguments_outside_i32_are_refused() -> None:
    # as in JAX, a Python int argument is an i32: one that does not fit is an error, not a wrap
    with pytest.raises(fg.DTypeError, match=r"argument n: the integer 1099511627776 does not fit i32") as e:
        fg.trace(lambda n: n + 1, 2**40)
    assert f"test_errors.py:{sys._getframe().f_lineno - 1}" in str(e.value)
    with pytest.raises(fg.DTypeError, match=r"does not fit i32"):
        fg.jit(lambda x, n: x + n)(np.ones(2, np.int32), -(2**31) - 1)


def test_layers_schedules_and_specs_name_the_mistake() -> None:
    from fgrad import nn

    cases = [
        (lambda: fg.trace(lambda x: nn.layer_norm({}, x), S((2, 3))), fg.InputError,
         "layer_norm: the parameters have no entry 'g'"),
        (lambda: nn.init_gpt(np.random.default_rng(0), {"vocab": 3}), fg.InputError,
         "init_gpt: config must be an fg.nn.GPTConfig, got a dict"),
        (lambda: fg.optim.warmup_cosine("a", 1, 1), fg.InputError, "warmup_cosine: peak='a'"),
        (lambda: fg.optim.linear_warmup(1e-3, 2.5), fg.InputError, "linear_warmup: warmup_steps=2.5"),
        (lambda: fg.optim.cosine_decay(1e-3, 0), fg.InputError, "cosine_decay: decay_steps=0 must be positive"),
        (lambda: fg.spec(np.array(2.5)), fg.ShapeError, "spec: invalid shape 2.5"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=re.escape(message)) as e:
            call()
        assert "test_errors.py" in str(e.value), str(e.value)
    assert fg.spec(np.array(3)) == fg.spec(3) and fg.spec(np.array([2, 3]), "i32") == fg.spec((2, 3), "i32")


# -- cumsum, argmax / argmin, dynamic slices -----------------------------------------------------


def cumsum_two_axes(x):
    return fg.cumsum(x, (0, 1))


def cumsum_bad_axis(x):
    return fg.cumsum(x, 2)


def cumsum_reverse_string(x):
    return x.cumsum(0, reverse="yes")


def argmax_two_axes(x):
    return fg.argmax(x, axis=(0, 1))


def dynamic_slice_too_few_starts(x):
    return fg.dynamic_slice(x, (1,), (2, 2))


def dynamic_slice_too_large(x):
    return fg.dynamic_slice(x, (0, 0), (2, 5))


def dynamic_slice_float_start(x, i):
    return fg.dynamic_slice(x, (i, 0), (2, 2))


def dynamic_slice_vector_start(x, i):
    return fg.dynamic_slice(x, (i, 0), (2, 2))


def dynamic_slice_static_float_start(x):
    return fg.lax.dynamic_slice(x, (1.5, 0), (2, 2))


def dynamic_slice_int_sizes(x):
    return fg.dynamic_slice(x, (0, 0), 2)


def dynamic_update_slice_dtypes(x, u):
    return fg.dynamic_update_slice(x, u, (0, 0))


def dynamic_update_slice_too_large(x, u):
    return fg.dynamic_update_slice(x, u, (0, 0))


def dynamic_update_slice_symbolic(x):
    return fg.dynamic_update_slice(x, x[:, :2], (0, 1))


SCAN_AND_SLICE_CASES = {
    "cumsum-two-axes": Case(cumsum_two_axes, X34, fg.ShapeError, ["cumsum", "single integer", "(0, 1)"]),
    "cumsum-axis": Case(cumsum_bad_axis, X34, fg.ShapeError, ["cumsum", "axis 2", "(3, 4)"]),
    "cumsum-reverse": Case(cumsum_reverse_string, X34, fg.TraceError, ["cumsum", "reverse", "'yes'"]),
    "argmax-two-axes": Case(argmax_two_axes, X34, fg.ShapeError, ["argmax", "single integer", "(0, 1)"]),
    "dynamic_slice-starts": Case(dynamic_slice_too_few_starts, X34, fg.ShapeError,
                                 ["dynamic_slice", "1 start indices", "2 axes", "(3, 4)"]),
    "dynamic_slice-sizes": Case(dynamic_slice_too_large, X34, fg.ShapeError,
                                ["dynamic_slice", "slice_sizes (2, 5)", "(3, 4)"]),
    "dynamic_slice-float-start": Case(dynamic_slice_float_start, (S((3, 4)), S(())), fg.DTypeError,
                                      ["dynamic_slice", "integer scalar", "f32[]"]),
    "dynamic_slice-vector-start": Case(dynamic_slice_vector_start, (S((3, 4)), S(2, "i32")), fg.DTypeError,
                                       ["dynamic_slice", "integer scalar", "i32[2]"]),
    "dynamic_slice-static-float-start": Case(dynamic_slice_static_float_start, X34, fg.DTypeError,
                                             ["dynamic_slice", "start index 1.5"]),
    "dynamic_slice-int-sizes": Case(dynamic_slice_int_sizes, X34, fg.ShapeError,
                                    ["dynamic_slice", "slice_sizes", "tuple of integers"]),
    "dynamic_update_slice-dtypes": Case(dynamic_update_slice_dtypes, (S((3, 4)), S((2, 2), "i32")), fg.DTypeError,
                                        ["dynamic_update_slice", "i32[2,2]", "f32[3,4]", "astype"]),
    "dynamic_update_slice-shape": Case(dynamic_update_slice_too_large, (S((3, 4)), S((4, 4))), fg.ShapeError,
                                       ["dynamic_update_slice", "(4, 4)", "(3, 4)"]),
    "dynamic_update_slice-symbolic": Case(dynamic_update_slice_symbolic, (S((fg.dim("T", 8), 4)),), fg.ShapeError,
                                          ["dynamic_update_slice", "(T, 2)", "(T, 4)", "symbol T", "fg.take"]),
}


@pytest.mark.parametrize("case", SCAN_AND_SLICE_CASES.values(), ids=SCAN_AND_SLICE_CASES.keys())
def test_scan_arg_extreme_and_dynamic_slice_mistakes(case: Case) -> None:
    with pytest.raises(case.error) as e:
        fg.trace(case.fn, *case.args)
    check_message(e.value, site_of(case.fn, case.offset), case.parts)
    assert "<locals>" not in str(e.value)


# -- misuse of the NumPy / jax.numpy surface: each a clear fgrad error, never a raw one from inside --------------

M34 = np.arange(12, dtype=np.float32).reshape(3, 4)
RAGGED = [[1, 2], [3]]
KEY0 = np.array([0, 42], np.uint32)


def zeros_like_ragged():
    return fg.zeros_like(RAGGED)


def full_like_ragged_fill():
    return fg.full_like(M34, RAGGED)


def size_float_axis():
    return fg.size(M34, 1.5)


def size_repeated_axis():
    return fg.size(M34, (0, 0))


def sum_array_initial():
    return fg.sum(M34, initial=np.ones((3, 4), np.float32))


def max_array_initial():
    return fg.max(M34, initial=np.zeros(4, np.float32))


def var_tuple_ddof():
    return fg.var(M34, ddof=(0, 0))


def cov_string_ddof():
    return fg.cov(M34, ddof="a")


def vecdot_tuple_axis():
    return fg.vecdot(M34, M34, axis=(0, 0))


def linalg_cross_float_axis():
    return fg.numpy.linalg.cross(X3, X3, axis=1.5)


def arange_none():
    return fg.arange(None)


def array_ndmin_too_many():
    return fg.array(M34, ndmin=99)


def tril_indices_negative():
    return fg.tril_indices(-1)


def triu_indices_float_k():
    return fg.triu_indices(3, 2.5)


def diag_indices_string():
    return fg.diag_indices("a")


def unravel_index_none_shape():
    return fg.unravel_index(np.arange(3), None)


def ravel_multi_index_none():
    return fg.ravel_multi_index(None, (3,))


def select_none():
    return fg.select(None, [M34])


def one_hot_list_axis():
    return fg.one_hot(np.arange(3), 3, axis=[0, 1])


def glu_list_axis():
    return fg.nn.glu(M34, axis=[0, 1])


def max_pool_int_window():
    return fg.nn.max_pool(M34.reshape(1, 3, 4, 1), 2)


def conv_int_strides():
    return fg.lax.conv_general_dilated(np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 2, 2), np.float32), 2,
                                       "VALID")


def conv_dimension_numbers_none():
    return fg.lax.conv_dimension_numbers(None, (1, 1, 2, 2), None)


def histogram_int_range():
    return fg.histogram(X3, range=3)


def unique_bad_axis():
    return fg.unique(M34, axis=5)


def choice_string():
    return fg.random.choice(KEY0, "abc")


def permutation_ragged():
    return fg.random.permutation(KEY0, RAGGED)


def fold_in_ragged():
    return fg.random.fold_in(KEY0, RAGGED)


def delete_ragged():
    return fg.delete(M34, RAGGED)


def pad_ragged():
    return fg.pad(M34, RAGGED)


def repeat_ragged():
    return fg.repeat(M34, RAGGED)


def vector_norm_tuple_ord():
    return fg.numpy.linalg.vector_norm(M34, ord=(0, 0))


def broadcast_shapes_float():
    return fg.broadcast_shapes(np.array(1.0))


def resize_negative():
    return fg.resize(M34, (-1, 3))


def permute_dims_none():
    return fg.permute_dims(M34, None)


def bitcast_no_dtype():
    return fg.lax.bitcast_convert_type(M34, None)


def lax_sort_num_keys():
    return fg.lax.sort(M34, num_keys=2)


SURFACE_CASES = {
    "zeros_like-ragged": Case(zeros_like_ragged, (), fg.DTypeError, ["zeros_like", "list"]),
    "full_like-ragged-fill": Case(full_like_ragged_fill, (), fg.DTypeError, ["full_like", "list"]),
    "size-float-axis": Case(size_float_axis, (), fg.ShapeError, ["size", "1.5"]),
    "size-repeated-axis": Case(size_repeated_axis, (), fg.ShapeError, ["size", "repeated", "(3, 4)"]),
    "sum-array-initial": Case(sum_array_initial, (), fg.ShapeError, ["sum", "initial", "scalar", "(3, 4)"]),
    "max-array-initial": Case(max_array_initial, (), fg.ShapeError, ["max", "initial", "scalar", "(4,)"]),
    "var-tuple-ddof": Case(var_tuple_ddof, (), fg.ShapeError, ["var", "ddof", "(0, 0)"]),
    "cov-string-ddof": Case(cov_string_ddof, (), fg.ShapeError, ["cov", "ddof", "'a'"]),
    "vecdot-tuple-axis": Case(vecdot_tuple_axis, (), fg.ShapeError, ["vecdot", "single integer", "(0, 0)"]),
    "linalg.cross-float-axis": Case(linalg_cross_float_axis, (), fg.ShapeError, ["cross", "single integer", "1.5"]),
    "arange-None": Case(arange_none, (), fg.ShapeError, ["arange", "start", "None"]),
    "array-ndmin": Case(array_ndmin_too_many, (), fg.TraceError, ["array", "ndmin", "99"]),
    "tril_indices-negative": Case(tril_indices_negative, (), fg.ShapeError, ["tril_indices", "n", "-1"]),
    "triu_indices-float-k": Case(triu_indices_float_k, (), fg.ShapeError, ["triu_indices", "k", "2.5"]),
    "diag_indices-string": Case(diag_indices_string, (), fg.ShapeError, ["diag_indices", "n", "'a'"]),
    "unravel_index-None": Case(unravel_index_none_shape, (), fg.ShapeError, ["unravel_index", "shape", "None"]),
    "ravel_multi_index-None": Case(ravel_multi_index_none, (), fg.TraceError, ["ravel_multi_index", "NoneType"]),
    "select-None": Case(select_none, (), fg.TraceError, ["select", "list or tuple", "NoneType"]),
    "one_hot-list-axis": Case(one_hot_list_axis, (), fg.ShapeError, ["one_hot", "single integer", "[0, 1]"]),
    "glu-list-axis": Case(glu_list_axis, (), fg.ShapeError, ["glu", "single integer", "[0, 1]"]),
    "max_pool-int-window": Case(max_pool_int_window, (), fg.ShapeError, ["pool", "window_shape", "2"]),
    "conv-int-strides": Case(conv_int_strides, (), fg.ShapeError, ["conv_general_dilated", "window_strides", "2"]),
    "conv_dimension_numbers-None": Case(conv_dimension_numbers_none, (), fg.ShapeError,
                                        ["conv_dimension_numbers", "None"]),
    "histogram-int-range": Case(histogram_int_range, (), fg.ShapeError, ["histogram", "range", "3"]),
    "unique-axis": Case(unique_bad_axis, (), fg.ShapeError, ["unique", "axis 5", "(3, 4)"]),
    "choice-string": Case(choice_string, (), fg.DTypeError, ["choice", "'abc'"]),
    "permutation-ragged": Case(permutation_ragged, (), fg.DTypeError, ["permutation", "list"]),
    "fold_in-ragged": Case(fold_in_ragged, (), fg.DTypeError, ["fold_in", "list"]),
    "delete-ragged": Case(delete_ragged, (), fg.DTypeError, ["delete", "list"]),
    "pad-ragged": Case(pad_ragged, (), fg.DTypeError, ["pad", "list"]),
    "repeat-ragged": Case(repeat_ragged, (), fg.DTypeError, ["repeat", "list"]),
    "vector_norm-tuple-ord": Case(vector_norm_tuple_ord, (), fg.ShapeError, ["vector_norm", "ord", "(0, 0)"]),
    "broadcast_shapes-float": Case(broadcast_shapes_float, (), fg.ShapeError, ["broadcast_shapes", "1.0"]),
    "resize-negative": Case(resize_negative, (), fg.ShapeError, ["resize", "non-negative", "(-1, 3)"]),
    "permute_dims-None": Case(permute_dims_none, (), fg.ShapeError, ["permute_dims", "None", "(3, 4)"]),
    "bitcast-no-dtype": Case(bitcast_no_dtype, (), fg.DTypeError, ["bitcast_convert_type", "new_dtype"]),
    "lax.sort-num_keys": Case(lax_sort_num_keys, (), fg.ShapeError, ["sort", "num_keys", "1..1", "2"]),
}


@pytest.mark.parametrize("case", SURFACE_CASES.values(), ids=SURFACE_CASES.keys())
def test_misuse_of_the_numpy_surface(case: Case) -> None:
    with pytest.raises(case.error) as e:
        case.fn(*case.args)
    check_message(e.value, site_of(case.fn, case.offset), case.parts)


def test_digitize_with_no_bins_gives_bin_zero_as_jax() -> None:
    out = fg.digitize(np.array([-1.0, 0.5, 2.0], np.float32), np.zeros(0, np.float32))
    assert out.dtype == np.int32 and out.tolist() == [0, 0, 0]


# A function written with other public functions names the one the user called first.
COMPOSITE_CASES = {
    "std-calls-var": (lambda: fg.std(np.ones(3, np.float32), ddof="a"), r"^std: "),
    "vstack-calls-concatenate": (lambda: fg.vstack([np.ones((2, 3)), np.ones((2, 4))]), r"^vstack: concatenate: "),
    "count_nonzero-calls-sum": (lambda: fg.count_nonzero(np.ones(3), axis=4), r"^count_nonzero: sum: axis 4"),
    "lax-cumsum": (lambda: fg.lax.cumsum(np.ones(3), axis=5), r"^cumsum: axis 5"),
    "nn-max_pool-calls-pool": (lambda: fg.nn.max_pool(np.ones((2, 4, 4, 1)), 3), r"^max_pool: pool: "),
    "random-normal": (lambda: fg.random.normal(fg.random.key(0), (-1,)), r"^normal: "),
}


@pytest.mark.parametrize("case", COMPOSITE_CASES.values(), ids=COMPOSITE_CASES.keys())
def test_errors_of_composites_name_the_function_the_user_called(case):
    fn, pattern = case
    with pytest.raises(fg.FgradError, match=pattern) as e:
        fn()
    assert f"test_errors.py:{fn.__code__.co_firstlineno}" in str(e.value)


@pytest.mark.parametrize("make", [lambda: fg.zeros((2**20, 2**20)), lambda: fg.eye(2**40), lambda: fg.spec((2**16, 2**16)),
                                  lambda: fg.full((3, 2**31), 1.0)], ids=["zeros", "eye", "spec", "full"])
def test_sizes_past_32_bit_indexing_are_refused_before_anything_is_allocated(make):
    with pytest.raises(fg.ShapeError, match=r"elements; fgrad indexes elements with 32-bit integers, at most 2147483647"):
        make()
