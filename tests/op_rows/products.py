"""Op-table rows: products (dot, vdot, inner, outer, tensordot, einsum).

Each contraction is transposes and reshapes around one batched matmul (a broadcast product where
nothing is summed): the rows name matmul, and check that the einsum strings of NumPy's and JAX's
test suites give NumPy's values and gradients."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, rounded  # noqa: F401


def M(*shape: int):
    """f32 in [-1, 1): products of a few stay small."""
    return F(*shape, lo=-1, hi=1)


def einsum_row(subscripts: str, *args, prim: str = "matmul", name: str | None = None, **kwargs) -> Case:
    """A row of einsum(subscripts) on `args`, against NumPy's einsum."""
    return Case(prim, name or "einsum-" + subscripts.replace("->", "-to-").replace("...", "etc").replace(",", "_"),
                lambda *xs: fg.einsum(subscripts, *xs, **kwargs), args, lambda *xs: np.einsum(subscripts, *xs))


OP_ROWS: tuple[Case, ...] = ()  # every new primitive's rows (value, WGSL, VJP)
API_ROWS: tuple[Case, ...] = (
    # dot: NumPy's N-d rules
    Case("matmul", "dot-vectors", fg.dot, (M(4), M(4)), np.dot),
    Case("matmul", "dot-matrices", fg.dot, (M(2, 3), M(3, 4)), np.dot),
    Case("matmul", "dot-nd-1d", fg.dot, (M(2, 3, 4), M(4)), np.dot),
    Case("matmul", "dot-1d-nd", fg.dot, (M(4), M(2, 4, 3)), np.dot),
    Case("matmul", "dot-nd-nd", fg.dot, (M(2, 3, 4), M(2, 4, 3)), np.dot),
    Case("mul", "dot-scalar", fg.dot, (F(), F(3)), np.dot),
    Case("matmul", "dot-i32", fg.dot, (I(3, 2), I(2)), np.dot),
    Case("gt", "dot-bool", fg.dot, (B(2, 3), B(3)), np.dot),
    Case("matmul", "dot-preferred-f32", lambda a, b: fg.dot(a, b, preferred_element_type="float32"), (I(2, 3), I(3)),
         lambda a, b: np.dot(a, b).astype(np.float64)),
    Case("matmul", "vdot", fg.vdot, (M(2, 3), M(3, 2)), lambda a, b: np.vdot(a, b)),
    Case("matmul", "inner", fg.inner, (M(2, 3), M(4, 3)), np.inner),
    Case("matmul", "inner-3d", fg.inner, (M(2, 2, 3), M(3)), np.inner),
    Case("mul", "inner-scalar", fg.inner, (F(2), F()), np.inner),
    Case("mul", "outer", fg.outer, (F(2, 2), F(3)), np.outer),
    Case("logical_and", "outer-bool", fg.outer, (B(3), B(2)), np.outer),
    Case("matmul", "tensordot-default", fg.tensordot, (M(2, 3, 4), M(3, 4, 2)), np.tensordot),
    Case("matmul", "tensordot-axes-pairs", lambda a, b: fg.tensordot(a, b, axes=([1, 2], [1, 0])),
         (M(2, 3, 4), M(4, 3, 2)), lambda a, b: np.tensordot(a, b, axes=([1, 2], [1, 0]))),
    Case("matmul", "tensordot-axes-ints", lambda a, b: fg.tensordot(a, b, axes=(0, 1)), (M(3, 2), M(4, 3)),
         lambda a, b: np.tensordot(a, b, axes=(0, 1))),
    Case("mul", "tensordot-outer", lambda a, b: fg.tensordot(a, b, 0), (F(2, 3), F(2)),
         lambda a, b: np.tensordot(a, b, 0)),
    # einsum: two operands
    einsum_row("ij,jk->ik", M(2, 3), M(3, 4)),
    einsum_row("ij,jk", M(2, 3), M(3, 4)),
    einsum_row("ij,kj->ik", M(2, 3), M(4, 3)),
    einsum_row("ji,jk->ik", M(3, 2), M(3, 4)),
    einsum_row("bij,bjk->bik", M(2, 3, 4), M(2, 4, 2)),
    einsum_row("ijk,ikl->ijl", M(2, 3, 4), M(2, 4, 2)),
    einsum_row("abc,cd->abd", M(2, 3, 4), M(4, 2)),
    einsum_row("bhqd,bhkd->bhqk", M(2, 2, 3, 4), M(2, 2, 5, 4)),
    einsum_row("...ij,...jk->...ik", M(2, 1, 3, 4), M(5, 4, 2), name="einsum-ellipsis-broadcast"),
    einsum_row("...ij,...jk", M(3, 2, 4), M(4, 3), name="einsum-ellipsis-implicit"),
    einsum_row("...i,i", M(2, 3), M(3), name="einsum-ellipsis-vector"),
    einsum_row("...i,...i->...", M(2, 3, 4), M(3, 4), name="einsum-ellipsis-dot"),
    einsum_row("i,i", M(4), M(4)),
    einsum_row("i,i->", M(4), M(4)),
    einsum_row("i,j->ij", F(2), F(3), prim="mul"),
    einsum_row("i,j", F(2), F(3), prim="mul"),
    einsum_row("ij,ij->i", F(2, 1), F(2, 4), name="einsum-size-1-broadcast", prim="mul"),
    einsum_row("ij,jk->ik", M(2, 1), M(3, 4), name="einsum-size-1-summed", prim="mul"),
    einsum_row("ij,ij->ij", F(2, 3), F(2, 3), prim="mul"),
    einsum_row("ijk,jk->i", M(2, 3, 4), M(3, 4)),
    einsum_row("i,ij->j", M(3), M(3, 4)),
    einsum_row("ijk,k->ij", M(2, 3, 4), M(4)),
    einsum_row("ab,cd->", M(2, 3), M(2, 2), prim="sum"),
    einsum_row("ij,jk", I(2, 3), I(3, 2), name="einsum-i32"),
    einsum_row("i,i", B(3), B(3), name="einsum-bool", prim="gt"),
    einsum_row(",", F(), F(), name="einsum-scalars", prim="mul"),
    einsum_row("i,", F(2), F(), name="einsum-vector-scalar", prim="mul"),
    einsum_row("Ab,bC", M(2, 3), M(3, 4), name="einsum-upper-case"),
    einsum_row("i j, j k -> i k", M(2, 3), M(3, 4), name="einsum-spaces"),
    # einsum: one operand (transposes, diagonals, traces, sums)
    einsum_row("ij->ji", F(2, 3), prim="transpose"),
    einsum_row("ji", F(2, 3), prim="transpose"),
    einsum_row("...ji", F(4, 2, 3), prim="transpose", name="einsum-ellipsis-transpose"),
    einsum_row("ii->i", F(3, 3), prim="slice"),
    einsum_row("ii", F(3, 3), prim="sum"),
    einsum_row("iij->j", F(2, 2, 3), prim="sum"),
    einsum_row("iii->i", F(2, 2, 2), prim="slice"),
    einsum_row("...ii->...i", F(2, 3, 3), prim="slice", name="einsum-batched-diagonal"),
    einsum_row("ij->", F(2, 3), prim="sum"),
    einsum_row("i...->...", F(2, 3), prim="sum", name="einsum-sum-leading"),
    einsum_row("ijk->kji", F(2, 3, 4), prim="transpose"),
    einsum_row("aab,bc->ac", M(3, 3, 2), M(2, 4)),
    # einsum: three and four operands, in greedy order or along a path
    einsum_row("ab,bc,cd->ad", M(2, 3), M(3, 4), M(4, 2)),
    einsum_row("i,i,i", M(3), M(3), M(3), name="einsum-three-vectors"),
    einsum_row("ij,jk,kl,lm->im", M(2, 3), M(3, 2), M(2, 4), M(4, 2)),
    einsum_row("ab,bc,ca->", M(2, 3), M(3, 4), M(4, 2)),
    einsum_row("bi,bj,ij->b", M(2, 3), M(2, 4), M(3, 4)),
    Case("matmul", "einsum-path", lambda a, b, c: fg.einsum("ab,bc,cd->ad", a, b, c, optimize=[(1, 2), (0, 1)]),
         (M(2, 3), M(3, 4), M(4, 2)), lambda a, b, c: a @ b @ c),
    Case("matmul", "einsum-numpy-path", lambda a, b, c: fg.einsum("ab,bc,cd->ad", a, b, c,
                                                                    optimize=["einsum_path", (0, 1), (0, 1)]),
         (M(2, 3), M(3, 4), M(4, 2)), lambda a, b, c: a @ b @ c),
    Case("matmul", "einsum-sublists", lambda a, b: fg.einsum(a, [0, 1], b, [1], [0]), (M(2, 3), M(3)),
         lambda a, b: np.einsum(a, [0, 1], b, [1], [0])),
    Case("matmul", "einsum-sublists-ellipsis", lambda a, b: fg.einsum(a, [Ellipsis, 1], b, [1]), (M(2, 2, 3), M(3)),
         lambda a, b: np.einsum(a, [Ellipsis, 1], b, [1])),
    Case("matmul", "einsum-preferred-f32", lambda a, b: fg.einsum("ij,j", a, b, preferred_element_type="f32"),
         (I(2, 3), I(3)), lambda a, b: (a @ b).astype(np.float64)),
    # symbolic dims: kept as batch or m/n axes of their own
    Case("matmul", "einsum-symbolic-rows", lambda a, b: fg.einsum("tj,jk->tk", a, b), (M(5, 4), M(4, 3)),
         lambda a, b: a @ b, specs=(S(T, 4), S(4, 3))),
    Case("matmul", "einsum-symbolic-summed", lambda a, b: fg.einsum("ti,tj->ij", a, b), (M(5, 4), M(5, 3)),
         lambda a, b: a.T @ b, specs=(S(T, 4), S(T, 3))),
    Case("matmul", "einsum-symbolic-batch", lambda a, b: fg.einsum("tqd,tkd->tqk", a, b), (M(5, 2, 4), M(5, 3, 4)),
         lambda a, b: np.einsum("tqd,tkd->tqk", a, b), specs=(S(T, 2, 4), S(T, 3, 4))),
)
F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("matmul", "einsum-f16", lambda a, b: fg.einsum("bij,bjk->bik", a, b),
         (H(2, 3, 4, lo=-1, hi=1), H(2, 4, 2, lo=-1, hi=1)),
         rounded(lambda a, b: np.einsum("bij,bjk->bik", a, b)), **F16),
    Case("matmul", "einsum-f16-preferred-f32", lambda a, b: fg.einsum("ij,jk", a, b, preferred_element_type="float32"),
         (H(2, 3, lo=-1, hi=1), H(3, 2, lo=-1, hi=1)), lambda a, b: a.astype(np.float64) @ b.astype(np.float64)),
    Case("matmul", "tensordot-f16", fg.tensordot, (H(2, 3, 2, lo=-1, hi=1), H(3, 2, lo=-1, hi=1)),
         rounded(np.tensordot), **F16),
)
U32_ROWS: tuple[Case, ...] = (  # u32 rows of integer primitives
    Case("matmul", "einsum-u32", lambda a, b: fg.einsum("ij,jk", a, b), (U(2, 3), U(3, 2)), np.matmul),
    Case("matmul", "dot-u32", fg.dot, (U(3), U(3, 2)), np.dot),
)
