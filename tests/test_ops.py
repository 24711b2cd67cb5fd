"""The op table checked against NumPy through trace, typecheck and interpret, and its VJP column
against finite differences in float64. The rows live in tests/op_table.py.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import fgrad as fg
from fgrad.testing import check_grads
from fgrad.ir import PRIMITIVES, TABLES
from fgrad.transforms.autodiff import nondiff, vjp_rules
from op_table import (
    API_CASES, DTYPE_CASES, F16_CASES, OP_CASES, U32_CASES, B, Case, F, Fi, I, Rand, f64, make as _make, trace,
)


def _semantic(dtype: np.dtype) -> np.dtype:
    """The dtype fgrad gives where NumPy gives `dtype`: float16 and the integers narrower than 64 bits
    but int32 as they are, other floats f32, other integers i32 (NumPy's int64 results), bool."""
    if dtype in (np.float16, np.uint32, np.uint16, np.int16, np.uint8, np.int8):
        return np.dtype(dtype)
    return {"f": np.dtype(np.float32), "i": np.dtype(np.int32), "u": np.dtype(np.int32), "b": np.dtype(np.bool_)}[dtype.kind]


def _check_values(case: Case, out: Any, want: np.ndarray, what: str) -> None:
    assert isinstance(out, np.ndarray), f"{what}: got a {type(out).__name__}"
    dtype = _semantic(want.dtype)
    assert out.dtype == dtype, f"{what}: dtype {out.dtype}, NumPy semantics give {dtype}"
    assert out.shape == want.shape, f"{what}: shape {out.shape}, NumPy gives {want.shape}"
    if dtype.kind == "f":
        np.testing.assert_allclose(out, want, rtol=case.rtol, atol=case.atol, err_msg=what)
    else:
        np.testing.assert_array_equal(out, want, err_msg=what)


def check_case(case: Case) -> tuple[fg.Graph, np.ndarray]:
    """Trace, typecheck and interpret one row against NumPy; run it eagerly too."""
    args = _make(case)
    want = np.asarray(case.ref(*(f64(a) for a in args)))
    graph = fg.typecheck(trace(case, args))
    ops = {node.op for node in graph.nodes}
    assert case.prim in ops, f"{case.id}: no {case.prim} node in the graph:\n{graph}"
    assert len(graph.out_specs) == 1
    assert graph.out_specs[0].dtype.np == _semantic(want.dtype), f"graph output {graph.out_specs[0]}"
    out = fg.interpret(graph, *args)
    _check_values(case, out, want, f"{case.id}: interpret")
    if case.eager:
        eager = case.fn(*args)
        _check_values(case, eager, want, f"{case.id}: eager")
        if out.dtype.kind == "f":  # NumPy's BLAS may split a product differently from one call to the next
            np.testing.assert_allclose(eager, out, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id}: eager and interpret differ")
        else:
            np.testing.assert_array_equal(eager, out, err_msg=f"{case.id}: eager and interpret differ")
    return graph, out


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in OP_CASES])
def test_op(case: Case) -> None:
    check_case(case)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in API_CASES])
def test_public_api(case: Case) -> None:
    check_case(case)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in DTYPE_CASES])
def test_dtype_row(case: Case) -> None:
    check_case(case)


def _kinds_of(cases: tuple[Case, ...]) -> dict[str, set[str]]:
    """For each primitive, the dtypes its nodes in the rows' graphs compute or read."""
    found: dict[str, set[str]] = {}
    for case in cases:
        graph = trace(case, _make(case))
        for node in graph.nodes:
            if node.op == case.prim:
                found.setdefault(node.op, set()).update(str(graph.nodes[j].spec.dtype) for j in (*node.inputs,))
                found[node.op].add(str(node.spec.dtype))
    return found


def test_every_float_primitive_has_an_f16_row_and_every_integer_one_a_u32_row() -> None:
    table, f16, u32 = _kinds_of(OP_CASES + API_CASES), _kinds_of(F16_CASES), _kinds_of(U32_CASES)
    given = {"input", "dim_size"}  # a graph argument and a symbol's value: their dtypes are not the op's choice
    floats = sorted(p for p, kinds in table.items()
                    if "f32" in kinds and "f16" not in f16.get(p, ()) and p not in given)
    ints = sorted(p for p, kinds in table.items() if "i32" in kinds and "u32" not in u32.get(p, ()) and p not in given)
    assert not floats, f"float primitives without an f16 row: {', '.join(floats)}"
    assert not ints, f"integer primitives without a u32 row: {', '.join(ints)}"


def test_every_op_has_a_row() -> None:
    covered = {c.prim for c in OP_CASES}
    # The collectives over a named axis never stand in a graph outside the vmap naming it: tests/test_named_axes.py.
    named = {"psum", "pmax", "pmin", "all_gather", "psum_scatter", "all_to_all", "ppermute", "axis_index"}
    missing = sorted(set(PRIMITIVES) - covered - {"input"} - named)
    assert not missing, f"registered ops without a row in the op table: {', '.join(missing)}"
    unknown = sorted({c.prim for c in OP_CASES + API_CASES + DTYPE_CASES} - set(PRIMITIVES))
    assert not unknown, f"rows name ops that are not registered: {', '.join(unknown)}"
    ids = [c.id for c in OP_CASES + API_CASES + DTYPE_CASES]
    assert len(ids) == len(set(ids)), f"duplicate row ids: {sorted({i for i in ids if ids.count(i) > 1})}"


def test_table_covers_shapes_and_dtypes() -> None:
    """The table keeps scalars, size-1 dims, broadcasting, i32 and bool inputs."""
    makers = [a for c in OP_CASES for a in c.args if isinstance(a, Rand)]
    assert any(m.shape == () for m in makers)
    assert any(1 in m.shape for m in makers)
    assert {m.kind for m in makers} >= {"f32", "i32", "bool"}
    assert {a.kind for c in DTYPE_CASES for a in c.args if isinstance(a, Rand)} >= {"f16", "u32"}
    assert any(
        len({m.shape for m in c.args if isinstance(m, Rand)}) > 1 for c in OP_CASES if c.prim in ("add", "where")
    )


# ---------------------------------------------------------------------------
# The VJP column: every differentiable row against finite differences
# ---------------------------------------------------------------------------


def _differentiable(case: Case) -> bool:
    """Rows with a float input and a float output. Rows fed integer-valued f32
    (Fi) sit on ties and kinks, where derivatives are one-sided, rows marked
    not smooth on jumps or values that are not finite, and stop_gradient is
    zero by definition (tests/test_autodiff.py): left out."""
    if case.prim == "stop_gradient" or not case.smooth or any(isinstance(a, Rand) and a.kind == "f32int"
                                                              for a in case.args):
        return False
    args = _make(case)
    if not any(a.dtype == np.float32 for a in args):
        return False
    return fg.trace(case.fn, *args).out_specs[0].dtype is fg.f32


GRAD_CASES = tuple(c for c in OP_CASES + API_CASES + DTYPE_CASES if _differentiable(c))


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in GRAD_CASES])
def test_vjp(case: Case, order: int) -> None:
    """First and second derivatives through the VJP rules, in float64."""
    check_grads(case.fn, _make(case), order=order)


def test_every_differentiable_op_has_a_vjp_row() -> None:
    has_rule = {name for name, rule in vjp_rules.rules.items() if rule is not nondiff}
    # Their rules refuse reverse mode, as JAX's (tests/test_control_flow.py, test_callbacks.py and
    # test_named_axes.py check the errors); psum and all_gather are differentiated against JAX's in test_named_axes.py.
    has_rule -= {"while", "pure_callback", "io_callback", "pmax", "pmin", "psum", "all_gather", "psum_scatter",
                 "all_to_all", "ppermute"}
    missing = sorted(has_rule - {c.prim for c in GRAD_CASES})
    assert not missing, f"ops with a VJP rule but no differentiable row: {', '.join(missing)}"


def test_every_table_has_a_rule_for_every_primitive() -> None:
    """Per interpretation, the primitives it has no rule for; optional tables (simplify) say
    only what they know and are listed for reading, not checked."""
    assert {t.interpretation for t in TABLES} >= {"vjp", "simplify", "lower", "rewrite"}
    missing = {t.interpretation: t.missing() for t in TABLES if not t.optional and t.missing()}
    assert not missing, "primitives without a rule: " + "; ".join(
        f"{name}: {', '.join(prims)}" for name, prims in missing.items())


def test_a_missing_rule_is_a_named_error() -> None:
    table = fg.ir.RuleTable("vmap", "batching rule")
    fg.ir.TABLES.remove(table)
    with pytest.raises(fg.MissingRule, match="vmap: no batching rule for cumsum"):
        table["cumsum"]


# ---------------------------------------------------------------------------
# Specific behaviour through the public API
# ---------------------------------------------------------------------------


def test_square_of_negative_is_exact_integer_pow() -> None:
    x = np.array([-3.0, -1.5, -0.1, -7.25, 0.0, 2.0], dtype=np.float32)
    graph = fg.trace(lambda x: x**2, x)
    ops = [n.op for n in graph.nodes]
    assert "integer_pow" in ops and "pow" not in ops, ops
    out = fg.interpret(graph, x)
    np.testing.assert_array_equal(out, x * x)  # f32 x*x: one correctly rounded product, no exp/log
    np.testing.assert_array_equal(fg.pow(x, 2), x * x)


def test_two_to_the_x_uses_pow() -> None:
    x = np.array([-1.0, 0.0, 0.5, 3.0], dtype=np.float32)
    graph = fg.trace(lambda x: 2**x, x)
    assert "pow" in [n.op for n in graph.nodes]
    np.testing.assert_allclose(fg.interpret(graph, x), 2.0 ** x.astype(np.float64), rtol=1e-6)


@dataclass(frozen=True)
class Promotion:
    name: str
    fn: Callable[..., Any]
    args: tuple[Rand, ...]
    dtype: str  # the fgrad dtype the result must have


PROMOTIONS = (
    Promotion("i32+f32", lambda x, y: x + y, (I(3), F(3)), "f32"),
    Promotion("f32+i32", lambda x, y: x + y, (F(3), I(3)), "f32"),
    Promotion("i32+int", lambda x: x + 2, (I(3),), "i32"),
    Promotion("int+i32", lambda x: 2 * x, (I(3),), "i32"),
    Promotion("f32+int", lambda x: x + 2, (F(3),), "f32"),
    Promotion("i32+float", lambda x: x + 2.5, (I(3),), "f32"),
    Promotion("bool+bool", lambda x, y: x + y, (B(3), B(3)), "bool"),  # or, as NumPy and jax.numpy
    Promotion("bool@bool", lambda x, y: x @ y, (B(3, 2), B(2, 4)), "bool"),
    Promotion("bool+True", lambda x: x + True, (B(3),), "bool"),
    Promotion("bool+1", lambda x: x + 1, (B(3),), "i32"),
    Promotion("abs-bool", lambda x: abs(x), (B(3),), "bool"),
    Promotion("sum-bool", lambda x: x.sum(), (B(3),), "i32"),
    Promotion("bool*i32", lambda x, y: x * y, (B(3), I(3)), "i32"),
    Promotion("i32/i32", lambda x, y: x / y, (I(3), I(3, lo=1, hi=3)), "f32"),
    Promotion("i32/int", lambda x: x / 2, (I(3),), "f32"),
    Promotion("f32<f32", lambda x, y: x < y, (F(3), F(3)), "bool"),
    Promotion("i32==f32", lambda x, y: x == y, (I(3), Fi(3)), "bool"),
    Promotion("bool==bool", lambda x, y: x == y, (B(3), B(3)), "bool"),
    Promotion("i32>=int", lambda x: x >= 1, (I(3),), "bool"),
    Promotion("i32**2", lambda x: x**2, (I(3),), "i32"),
    Promotion("f32**2", lambda x: x**2, (F(3),), "f32"),
    Promotion("i32**2.0", lambda x: x**2.0, (I(3),), "f32"),
    Promotion("2**f32", lambda x: 2**x, (F(3),), "f32"),
    Promotion("exp(i32)", fg.exp, (I(3),), "f32"),
    Promotion("sum(i32)", fg.sum, (I(3),), "i32"),
    Promotion("sum(bool)", fg.sum, (B(3),), "i32"),
    Promotion("mean(i32)", fg.mean, (I(3),), "f32"),
    Promotion("max(i32)", fg.max, (I(3),), "i32"),
    Promotion("maximum(i32,f32)", fg.maximum, (I(3), F(3)), "f32"),
    Promotion("where(bool,i32,i32)", fg.where, (B(3), I(3), I(3)), "i32"),
    Promotion("where(bool,i32,f32)", fg.where, (B(3), I(3), F(3)), "f32"),
    Promotion("concatenate(i32,f32)", lambda x, y: fg.concatenate([x, y]), (I(2), F(3)), "f32"),
    Promotion("matmul(i32,f32)", lambda x, y: x @ y, (I(2, 3), F(3, 2)), "f32"),
    Promotion("astype-f32-i32", lambda x: x.astype("i32"), (F(3),), "i32"),
)


@pytest.mark.parametrize("p", [pytest.param(p, id=p.name) for p in PROMOTIONS])
def test_dtype_promotion(p: Promotion) -> None:
    rng = np.random.default_rng(zlib.crc32(p.name.encode()))
    args = [a(rng) for a in p.args]
    graph = fg.typecheck(fg.trace(p.fn, *args))
    assert graph.out_specs[0].dtype is fg.DType(p.dtype), f"{p.name}: {graph.out_specs[0]}"
    assert fg.interpret(graph, *args).dtype == fg.DType(p.dtype).np


def test_astype_truncates_toward_zero_and_bool_is_nonzero() -> None:
    x = np.array([-2.5, -0.9, -0.0, 0.9, 2.5], dtype=np.float32)
    graph = fg.trace(lambda x: (fg.astype(x, "i32"), fg.astype(x, "bool")), x)
    ints, bools = fg.interpret(graph, x)
    np.testing.assert_array_equal(ints, np.trunc(x).astype(np.int32))
    assert ints.dtype == np.int32
    np.testing.assert_array_equal(bools, x != 0)
    assert bools.dtype == np.bool_


# ---------------------------------------------------------------------------
# interpret(float64=True)
# ---------------------------------------------------------------------------


def test_interpret_float64_computes_in_float64() -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, 100_000).astype(np.float32)
    graph = fg.trace(lambda x: fg.sum(fg.exp(x) * x), x)
    lo = fg.interpret(graph, x)
    hi = fg.interpret(graph, x, float64=True)
    assert lo.dtype == np.float32 and hi.dtype == np.float64
    x64 = x.astype(np.float64)
    exact = np.sum(np.exp(x64) * x64)
    np.testing.assert_allclose(hi, exact, rtol=1e-12)
    assert lo != hi  # the f32 run rounds every exp, product and partial sum
    np.testing.assert_allclose(lo, hi, rtol=1e-4)
    assert abs(float(hi) - exact) < abs(float(lo) - exact)


def test_interpret_float64_keeps_int_and_bool() -> None:
    x = np.array([1.5, -2.0, 0.0], dtype=np.float32)
    graph = fg.trace(lambda x: (fg.astype(x, "i32"), x > 0, x * 0.1), x)
    ints, bools, floats = fg.interpret(graph, x, float64=True)
    assert ints.dtype == np.int32 and bools.dtype == np.bool_ and floats.dtype == np.float64
    np.testing.assert_array_equal(ints, np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(bools, x > 0)
