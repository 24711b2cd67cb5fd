"""Op-table rows: creation (zeros, ones, full, eye, tri, arange, linspace, logspace, geomspace, indices).

Uniform fills are one constant node, eye/tri/arange/linspace are iota arithmetic; none is a new
primitive, so every row is an API row of the primitive it builds on."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, rounded  # noqa: F401


def linspace_int_ref(start, stop, num):
    """jnp.linspace with an integer dtype: the float values' floor."""
    return np.floor(np.linspace(start, stop, num)).astype(np.int32)


OP_ROWS: tuple[Case, ...] = ()  # every new primitive's rows (value, WGSL, VJP)
API_ROWS: tuple[Case, ...] = (
    # zeros, ones, full, empty and their _like forms: one uniform constant (or a broadcast value)
    Case("constant", "zeros", lambda: fg.zeros((2, 3)), (), lambda: np.zeros((2, 3))),
    Case("constant", "zeros-int-shape-i32", lambda: fg.zeros(4, dtype="i32"), (), lambda: np.zeros(4, np.int32)),
    Case("constant", "ones-plus-input", lambda x: fg.add(x, fg.ones((3, 1))), (F(3, 4),), lambda x: x + 1),
    Case("constant", "ones-bool-numpy-dtype", lambda: fg.ones((2, 2), np.bool_), (), lambda: np.ones((2, 2), bool)),
    Case("constant", "empty-is-zeros", lambda: fg.empty((3,), float), (), lambda: np.zeros(3)),
    Case("constant", "full-weak-int", lambda: fg.full((2, 3), 7), (), lambda: np.full((2, 3), 7)),
    Case("constant", "full-float64-dtype", lambda: fg.full((3,), 2.5, "float64"), (), lambda: np.full(3, 2.5)),
    Case("constant", "full-truncates-to-int", lambda: fg.full((2,), -3.7, "int32"), (), lambda: np.full(2, -3)),
    Case("broadcast_to", "full-array-fill", lambda x: fg.full((2, 3), x), (F(3),), lambda x: np.full((2, 3), x)),
    Case("broadcast_to", "full-traced-scalar-fill", lambda x: fg.full((2, 2), x), (F(),), lambda x: np.full((2, 2), x)),
    Case("constant", "zeros_like", lambda x: fg.zeros_like(x), (I(2, 3),), np.zeros_like),
    Case("constant", "ones_like-dtype-shape", lambda x: fg.ones_like(x, dtype="f32", shape=(4,)), (I(2, 3),),
         lambda x: np.ones(4)),
    Case("constant", "full_like", lambda x: fg.full_like(x, 7.5), (I(3),), lambda x: np.full(3, 7)),
    Case("broadcast_to", "full_like-traced-fill", lambda x, v: fg.full_like(x, v), (F(2, 3), F(3)),
         lambda x, v: np.broadcast_to(v, (2, 3))),
    Case("broadcast_to", "zeros-symbolic-shape", lambda x: fg.add(x, fg.zeros(x.shape)), (F(5, 4),), lambda x: x,
         eager=False, specs=(S(T, 4),)),
    Case("broadcast_to", "ones_like-symbolic", lambda x: fg.multiply(x, fg.ones_like(x)), (F(5, 2),), lambda x: x,
         eager=False, specs=(S(T, 2),)),
    # eye, identity, tri: iota compared, converted
    Case("iota", "eye", lambda: fg.eye(3), (), lambda: np.eye(3)),
    Case("iota", "eye-rect-k", lambda: fg.eye(3, 4, k=1), (), lambda: np.eye(3, 4, k=1)),
    Case("iota", "eye-negative-k-i32", lambda: fg.eye(4, 3, -2, dtype=int), (), lambda: np.eye(4, 3, -2, dtype=int)),
    Case("iota", "eye-k-past-the-matrix", lambda: fg.eye(2, 3, k=5), (), lambda: np.eye(2, 3, k=5)),
    Case("iota", "eye-k-far-below", lambda: fg.eye(2, k=-(2**40)), (), lambda: np.zeros((2, 2))),
    Case("iota", "eye-traced-k", lambda k: fg.eye(3, 4, k), (I(lo=-2, hi=3),), lambda k: np.eye(3, 4, k=int(k))),
    Case("iota", "eye-times-input", lambda x: fg.multiply(x, fg.eye(3)), (F(2, 3, 3),), lambda x: x * np.eye(3)),
    Case("iota", "eye-symbolic", lambda x: fg.multiply(x, fg.eye(x.shape[0])), (F(5, 5),), lambda x: x * np.eye(5),
         eager=False, specs=(S(T, T),)),
    Case("iota", "identity-bool", lambda: fg.identity(3, bool), (), lambda: np.identity(3, bool)),
    Case("iota", "tri", lambda: fg.tri(3), (), lambda: np.tri(3)),
    Case("iota", "tri-rect-k", lambda: fg.tri(3, 5, k=1), (), lambda: np.tri(3, 5, k=1)),
    Case("iota", "tri-k-below-all", lambda: fg.tri(3, 2, k=-5, dtype="i32"), (), lambda: np.tri(3, 2, k=-5, dtype=int)),
    Case("iota", "tri-bool", lambda: fg.tri(2, 4, -1, bool), (), lambda: np.tri(2, 4, -1, bool)),
    # arange: JAX's start + step * iota
    Case("iota", "arange-tenths", lambda: fg.arange(0, 1, 0.1), (), lambda: np.arange(0, 1, 0.1)),
    Case("iota", "arange-float-start-int-dtype", lambda: fg.arange(0.5, 3, dtype=int), (),
         lambda: np.arange(0, 3)),
    Case("iota", "arange-float-stop", lambda: fg.arange(2.5), (), lambda: np.arange(2.5)),
    Case("iota", "arange-start-float-dtype", lambda: fg.arange(3, 7, dtype=float), (), lambda: np.arange(3.0, 7.0)),
    Case("iota", "arange-down-by-3", lambda: fg.arange(10, 0, -3), (), lambda: np.arange(10, 0, -3)),
    Case("iota", "arange-numpy-int", lambda: fg.arange(np.int64(3)), (), lambda: np.arange(3)),
    # linspace: start * (1 - t) + stop * t, along a new axis; start and stop may be traced arrays
    Case("iota", "linspace", lambda: fg.linspace(0, 1, 5), (), lambda: np.linspace(0, 1, 5)),
    Case("iota", "linspace-no-endpoint", lambda: fg.linspace(-2, 3, 4, endpoint=False), (),
         lambda: np.linspace(-2, 3, 4, endpoint=False)),
    Case("iota", "linspace-retstep", lambda: fg.linspace(2, 3, 5, retstep=True)[1], (),
         lambda: np.linspace(2, 3, 5, retstep=True)[1]),
    Case("iota", "linspace-retstep-no-endpoint", lambda: fg.linspace(0, 1, 4, endpoint=False, retstep=True)[1], (),
         lambda: np.float64(0.25)),
    Case("constant", "linspace-one", lambda: fg.linspace(3, 7, 1), (), lambda: np.linspace(3, 7, 1)),
    Case("iota", "linspace-traced-bounds", lambda a, b: fg.linspace(a, b, 4, axis=-1), (F(2, 3), F(2, 3)),
         lambda a, b: np.linspace(a, b, 4, axis=-1)),
    Case("iota", "linspace-broadcast-bounds", lambda a, b: fg.linspace(a, b, 3, axis=1), (F(2, 1), F(3)),
         lambda a, b: np.linspace(a, b, 3, axis=1)),
    Case("iota", "linspace-int", lambda: fg.linspace(-1, 2, 5, dtype="int32"), (), lambda: linspace_int_ref(-1, 2, 5)),
    Case("iota", "linspace-bool", lambda: fg.linspace(0, 1, 3, dtype=bool), (), lambda: np.array([False, True, True])),
    # logspace, geomspace, indices
    Case("pow", "logspace", lambda: fg.logspace(0, 2, 3), (), lambda: np.logspace(0, 2, 3), rtol=1e-6),
    Case("pow", "logspace-base-2-traced", lambda a: fg.logspace(a, 2, 4, base=2.0), (F(3),),
         lambda a: np.logspace(a, 2, 4, base=2.0, axis=0)),
    Case("pow", "geomspace", lambda: fg.geomspace(1, 1000, 4), (), lambda: np.geomspace(1, 1000, 4), rtol=1e-5),
    Case("pow", "geomspace-negative", lambda: fg.geomspace(-1, -100, 3), (), lambda: np.geomspace(-1, -100, 3)),
    Case("pow", "geomspace-traced-axis-1", lambda a, b: fg.geomspace(a, b, 3, axis=1), (P(2), P(2)),
         lambda a, b: np.geomspace(a, b, 3, axis=1)),
    Case("iota", "indices", lambda: fg.indices((2, 3)), (), lambda: np.indices((2, 3))),
    Case("iota", "indices-sparse-f32", lambda: fg.indices((2, 3), dtype="f32", sparse=True)[1], (),
         lambda: np.indices((2, 3), sparse=True)[1].astype(np.float64)),
)
F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("iota", "arange-f16-step", lambda: fg.arange(1, 2, 0.1, dtype="f16"), (),
         lambda: np.arange(1, 2, 0.1).astype(np.float16), **F16),
    Case("iota", "linspace-f16", lambda: fg.linspace(1, 2, 3, dtype="float16"), (),
         lambda: np.linspace(1, 2, 3).astype(np.float16)),
    Case("constant", "full-f16-fill", lambda: fg.full((2,), np.float16(0.1)), (), lambda: np.full(2, np.float16(0.1))),
)
U32_ROWS: tuple[Case, ...] = (  # u32 rows of integer primitives
    Case("iota", "eye-u32", lambda: fg.eye(2, 3, dtype="uint32"), (), lambda: np.eye(2, 3, dtype=np.uint32)),
    Case("constant", "zeros_like-u32", lambda x: fg.zeros_like(x), (U(3),), np.zeros_like),
)
