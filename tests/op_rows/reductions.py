"""Op-table rows: reductions (prod; var, std, any, all and the dtype, where and initial forms of
sum, mean, max, min; NaN-ignoring forms), scans (cumprod, cummax, cummin, cumlogsumexp and the
linear recurrence their gradients use) and sorting (sort, argsort, the merge passes of long
rows, lax.top_k, lax.sort, median)."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from fgrad.primitives import argsort_p, linear_recurrence_p, merge_runs_p
from fgrad.trace import bind
from op_case import B, F, F16, H, I, NZ, P, PH, S, T, U, Case, Fi, Hi, rounded  # noqa: F401

nan, inf = np.nan, np.inf
# Zeros of both signs, NaNs of both signs, infinities and ties: the orders sort and top_k keep.
SPECIAL = np.array([3.0, nan, -0.0, 0.0, -nan, 1.0, -inf, inf, 0.0, -0.0, 1.0], np.float32)
# lax.top_k(SPECIAL, 11) in JAX (IEEE's total order: NaN first, -NaN last, 0.0 above -0.0).
TOP_SPECIAL = np.array([1, 7, 0, 5, 10, 3, 8, 2, 9, 6, 4], np.int32)
# cumprod / prod with zeros: the gradient at a zero, and past a second one, as JAX's.
ZEROS = np.array([[2.0, 0.0, 3.0, 0.0, 1.5], [0.5, -1.0, 0.0, 2.0, -3.0]], np.float32)
WITH_NAN = np.array([[1.0, nan, 3.0, -1.0], [nan, nan, nan, nan], [2.0, -5.0, 0.5, 4.0]], np.float32)
# Values 0.01 apart in a random order: finite differences of a sort's values move no value past another.
SPREAD = np.random.default_rng(0).permutation(3000).astype(np.float32) * 0.01
LSE_EDGES = np.array([[1.0, -inf, 2.0, inf, 0.0], [-inf, -inf, 0.5, -50.0, 30.0]], np.float32)


def stable_argsort(x: np.ndarray, descending: bool = False) -> np.ndarray:
    """jnp.argsort(x, stable=True, descending=...) along the last axis: NaN last (first in a
    descending sort, which keeps equal values in index order too), -0.0 equal to 0.0."""

    def row(v: np.ndarray) -> np.ndarray:
        index = np.arange(v.size)
        if descending:
            return np.lexsort((index, -np.nan_to_num(v, nan=0.0), ~np.isnan(v)))
        return np.lexsort((index, np.nan_to_num(v, nan=0.0), np.isnan(v)))

    return np.apply_along_axis(row, -1, x)


def sort_ref(x: np.ndarray, descending: bool = False) -> np.ndarray:
    out = np.take_along_axis(x, stable_argsort(x), -1)
    return np.flip(out, -1) if descending else out


def top_k_ref(x: np.ndarray, k: int) -> np.ndarray:
    """lax.top_k's indices for values without NaN or signed zeros: the largest first, ties in index order."""
    return np.argsort(-x, axis=-1, kind="stable")[..., :k]


def runs_ref(x: np.ndarray, run: int) -> np.ndarray:
    """The stable argsort of each run of `run` entries of x's rows, as indices into the row."""
    out = np.empty(x.shape, np.int64)
    for start in range(0, x.shape[-1], run):
        out[..., start: start + run] = start + stable_argsort(x[..., start: start + run])
    return out


def runs(x: fg.Tensor, run: int) -> fg.Tensor:
    """argsort's first pass over a long row: each run of `run` entries sorted on its own."""
    return bind(argsort_p, x, descending=False, total=False, run=run)


def merged(x: fg.Tensor, run: int) -> fg.Tensor:
    """Runs of `run` sorted, then merged in pairs (runs of 2 * run)."""
    return bind(merge_runs_p, x, runs(x, run), run=run, descending=False, total=False)


def recurrence(a: np.ndarray, b: np.ndarray, axis: int = -1, reverse: bool = False) -> np.ndarray:
    at, bt = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    out, acc = np.empty(np.broadcast_shapes(at.shape, bt.shape), np.result_type(a, b)), 0
    for k in (reversed(range(len(at))) if reverse else range(len(at))):
        acc = out[k] = at[k] * acc + bt[k]
    return np.moveaxis(out, 0, axis)


def linear(axis: int = -1, reverse: bool = False):
    return lambda a, b: bind(linear_recurrence_p, a, b, axis=axis % a.ndim, reverse=reverse)


def accumulate(fold: np.ufunc, axis: int = -1, reverse: bool = False):
    def ref(x: np.ndarray) -> np.ndarray:
        y = np.flip(x, axis) if reverse else x
        out = fold.accumulate(y, axis=axis)
        return np.flip(out, axis) if reverse else out

    return ref


def median_ref(x: np.ndarray, axis=None) -> np.ndarray:
    return np.median(x, axis=axis)


OP_ROWS: tuple[Case, ...] = (
    # prod: a fold like sum's; its gradient is right with zeros (one, and past a second one)
    Case("prod", "axis", lambda x: fg.prod(x, 1), (F(3, 4),), lambda x: np.prod(x, 1)),
    Case("prod", "all", fg.prod, (F(2, 3, lo=0.5, hi=1.5),), np.prod),
    Case("prod", "zeros", lambda x: fg.prod(x, -1), (ZEROS,), lambda x: np.prod(x, -1)),
    Case("prod", "tuple-keepdims", lambda x: fg.prod(x, (0, 2), keepdims=True), (F(2, 3, 2),),
         lambda x: np.prod(x, (0, 2), keepdims=True)),
    Case("prod", "i32", lambda x: fg.prod(x, 0), (I(3, 4),), lambda x: np.prod(x, 0)),
    Case("prod", "long-leading-axis", lambda x: fg.prod(x, 0), (F(300, 3, lo=0.9, hi=1.1),), lambda x: np.prod(x, 0),
         rtol=1e-4),
    # cumprod, cummax, cummin, cumlogsumexp: scans like cumsum's; long rows scanned by a workgroup
    Case("cumprod", "axis", lambda x: fg.cumprod(x, 1), (F(3, 5),), lambda x: np.cumprod(x, 1)),
    Case("cumprod", "flattened", fg.cumprod, (F(2, 3),), np.cumprod),
    Case("cumprod", "zeros", lambda x: fg.cumprod(x, -1), (ZEROS,), lambda x: np.cumprod(x, -1)),
    Case("cumprod", "reverse-zeros", lambda x: fg.lax.cumprod(x, 1, reverse=True), (ZEROS,),
         accumulate(np.multiply, 1, reverse=True)),
    Case("cumprod", "i32", lambda x: fg.cumprod(x, 0), (I(4, 3),), lambda x: np.cumprod(x, 0)),
    Case("cumprod", "long-rows", lambda x: fg.cumprod(x, -1), (F(2, 300, lo=0.95, hi=1.05),),
         lambda x: np.cumprod(x, -1), rtol=1e-4),
    Case("cummax", "axis", lambda x: fg.lax.cummax(x, 1), (F(3, 6),), accumulate(np.maximum, 1)),
    Case("cummax", "reverse", lambda x: fg.lax.cummax(x, 0, reverse=True), (F(5, 2),),
         accumulate(np.maximum, 0, reverse=True)),
    Case("cummax", "ties", lambda x: fg.lax.cummax(x, 1), (Fi(3, 7),), accumulate(np.maximum, 1)),
    Case("cummax", "nan-wins", lambda x: fg.lax.cummax(x, 1), (WITH_NAN,), accumulate(np.maximum, 1)),
    Case("cummax", "i32-long-rows", lambda x: fg.lax.cummax(x, 1), (I(2, 300, lo=-1000, hi=1000),),
         accumulate(np.maximum, 1)),
    Case("cummin", "axis", lambda x: fg.lax.cummin(x, 1), (F(3, 6),), accumulate(np.minimum, 1)),
    Case("cummin", "long-rows-reverse", lambda x: fg.lax.cummin(x, -1, reverse=True), (F(2, 300),),
         accumulate(np.minimum, -1, reverse=True)),
    Case("cummin", "i32", lambda x: fg.lax.cummin(x, 0), (I(5, 2),), accumulate(np.minimum, 0)),
    Case("cumlogsumexp", "axis", lambda x: fg.lax.cumlogsumexp(x, 1), (F(3, 6),), accumulate(np.logaddexp, 1)),
    Case("cumlogsumexp", "reverse-wide-range", lambda x: fg.lax.cumlogsumexp(x, 1, reverse=True),
         (F(2, 5, lo=-60, hi=60),), accumulate(np.logaddexp, 1, reverse=True)),
    Case("cumlogsumexp", "infinities", lambda x: fg.lax.cumlogsumexp(x, 1), (LSE_EDGES,),
         accumulate(np.logaddexp, 1)),
    Case("cumlogsumexp", "long-rows", lambda x: fg.lax.cumlogsumexp(x, -1), (F(2, 300),),
         accumulate(np.logaddexp, -1)),
    # linear_recurrence: out[i] = a[i] out[i-1] + b[i], the gradients of the scans above
    Case("linear_recurrence", "axis", linear(1), (F(3, 6), F(3, 6)), lambda a, b: recurrence(a, b, 1)),
    Case("linear_recurrence", "reverse-axis-0", linear(0, reverse=True), (F(5, 2), F(5, 2)),
         lambda a, b: recurrence(a, b, 0, reverse=True)),
    Case("linear_recurrence", "long-rows", linear(-1), (F(2, 300, lo=-1, hi=1), F(2, 300)),
         lambda a, b: recurrence(a, b, -1), rtol=1e-4, atol=1e-5),
    Case("linear_recurrence", "long-rows-reverse", linear(-1, reverse=True), (F(2, 260, lo=-1, hi=1), F(2, 260)),
         lambda a, b: recurrence(a, b, -1, reverse=True), rtol=1e-4, atol=1e-5),
    Case("linear_recurrence", "i32", linear(0), (I(4, 3), I(4, 3)), lambda a, b: recurrence(a, b, 0)),
    # argsort: stable, NaN last, -0.0 equal to 0.0; a workgroup sorts a row in shared memory
    Case("argsort", "rows", fg.argsort, (F(3, 7),), stable_argsort),
    Case("argsort", "special", fg.argsort, (SPECIAL,), stable_argsort),
    Case("argsort", "descending-special", lambda x: fg.argsort(x, descending=True), (SPECIAL,),
         lambda x: stable_argsort(x, descending=True)),
    Case("argsort", "ties", lambda x: fg.argsort(x, axis=0), (Fi(6, 3),), lambda x: stable_argsort(x.T).T),
    Case("argsort", "flattened", lambda x: fg.argsort(x, axis=None), (I(3, 4),), lambda x: stable_argsort(x.ravel())),
    Case("argsort", "i32-descending", lambda x: fg.argsort(x, descending=True), (I(2, 9, lo=-3, hi=3),),
         lambda x: stable_argsort(x, descending=True)),
    Case("argsort", "bool", fg.argsort, (B(2, 6),), stable_argsort),
    Case("argsort", "dtype-u32", lambda x: fg.argsort(x, dtype="u32"), (F(2, 5),),
         lambda x: stable_argsort(x).astype(np.uint32)),
    Case("argsort", "one-entry", fg.argsort, (F(4, 1),), stable_argsort),
    # Rows past a workgroup's 256 invocations, and past its shared memory (runs merged)
    Case("argsort", "rows-past-a-workgroup", fg.argsort, (Fi(2, 700, lo=-50, hi=50),), stable_argsort),
    Case("argsort", "long-rows", fg.argsort, (Fi(2, 2100, lo=-300, hi=300),), stable_argsort),
    Case("argsort", "long-rows-descending", lambda x: fg.argsort(x, descending=True), (Fi(1, 3000, lo=-9, hi=9),),
         lambda x: stable_argsort(x, descending=True)),
    Case("argsort", "long-row-runs", lambda x: runs(x, 5), (Fi(2, 13),), lambda x: runs_ref(x, 5)),
    # merge_runs: pairs of sorted runs merged (the last pair short, or a run alone)
    Case("merge_runs", "pairs", lambda x: merged(x, 4), (Fi(2, 13),), lambda x: runs_ref(x, 8)),
    Case("merge_runs", "descending-total", lambda x: bind(
        merge_runs_p, x, bind(argsort_p, x, descending=True, total=True, run=3), run=3, descending=True, total=True),
         (F(3, 6),), lambda x: np.argsort(-x, axis=-1, kind="stable")),
    Case("merge_runs", "i32", lambda x: merged(x, 2), (I(2, 7),), lambda x: runs_ref(x, 4)),
    # sort: the values in order (descending: the ascending order reversed); the gradient goes to each place
    Case("sort", "rows", fg.sort, (F(3, 7),), sort_ref),
    Case("sort", "special", lambda m: fg.sort(fg.where(m, SPECIAL, SPECIAL[::-1])), (B(11),),
         lambda m: sort_ref(np.where(m, SPECIAL, SPECIAL[::-1]))),
    Case("sort", "descending", lambda x: fg.sort(x, descending=True), (F(2, 6),), lambda x: sort_ref(x, True)),
    Case("sort", "axis-0", lambda x: fg.sort(x, 0), (F(5, 3),), lambda x: np.sort(x, 0)),
    Case("sort", "flattened", lambda x: fg.sort(x, None), (F(2, 3),), lambda x: np.sort(x, None)),
    Case("sort", "i32", fg.sort, (I(3, 5),), np.sort),
    Case("sort", "bool", fg.sort, (B(7),), np.sort),
    Case("sort", "rows-past-a-workgroup", fg.sort, (F(2, 600),), np.sort),
    Case("sort", "long-rows", fg.sort, (SPREAD.reshape(2, 1500),), np.sort),
    Case("sort", "long-rows-descending", lambda x: fg.sort(x, descending=True), (SPREAD[:1100].reshape(1, 1100),),
         lambda x: np.sort(x)[..., ::-1]),
)

API_ROWS: tuple[Case, ...] = (
    # var and std: ddof (correction), keepdims, the where mask, the given mean; NaN without degrees of freedom
    Case("sum", "var", lambda x: fg.var(x, 1), (F(3, 5),), lambda x: np.var(x, 1)),
    Case("sum", "var-ddof-keepdims", lambda x: fg.var(x, 0, ddof=1, keepdims=True), (F(4, 3),),
         lambda x: np.var(x, 0, ddof=1, keepdims=True)),
    Case("sum", "var-correction", lambda x: fg.var(x, correction=1.5), (F(2, 4),), lambda x: np.var(x, ddof=1.5)),
    Case("sum", "var-no-degrees-of-freedom", lambda x: fg.var(x, -1, ddof=3), (F(2, 3),),
         lambda x: np.full(2, np.nan), smooth=False),
    Case("sum", "var-i32", lambda x: fg.var(x, 0), (I(4, 2),), lambda x: np.var(x, 0)),
    Case("sum", "var-where", lambda x, m: fg.var(x, 1, where=m),
         (F(2, 5), np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], bool)),
         lambda x, m: np.var(x, 1, where=m)),
    Case("sum", "var-given-mean", lambda x: fg.var(x, 1, mean=fg.mean(x, 1, keepdims=True)), (F(3, 4),),
         lambda x: np.var(x, 1)),
    Case("sum", "std", lambda x: fg.std(x, (0, 2), ddof=1), (F(2, 3, 4),), lambda x: np.std(x, (0, 2), ddof=1)),
    # any / all: max / min of bools; nonzero entries (NaN among them) count True
    Case("max", "any", lambda x: fg.any(x, 1), (Fi(3, 4, lo=0, hi=1),), lambda x: np.any(x, 1)),
    Case("max", "any-nan-and-negative-zero", lambda x: fg.any(x, -1),
         (np.array([[0.0, nan], [-0.0, 0.0]], np.float32),), lambda x: np.any(x, -1)),
    Case("max", "any-where", lambda x, m: fg.any(x, where=m), (B(3, 4), B(3, 4)), lambda x, m: np.any(x, where=m)),
    Case("min", "all", lambda x: fg.all(x, 0, keepdims=True), (I(3, 4, lo=0, hi=2),),
         lambda x: np.all(x, 0, keepdims=True)),
    Case("min", "all-where", lambda x, m: fg.all(x, 1, where=m), (B(3, 4), B(3, 4)),
         lambda x, m: np.all(x, 1, where=m)),
    # sum / prod / mean dtype, where and initial; max / min initial and where
    Case("sum", "dtype-f16-of-bools", lambda x: fg.sum(x, 1, dtype="f16"), (B(3, 4),),
         lambda x: np.sum(x, 1, dtype=np.float16)),
    Case("sum", "dtype-i32-truncates-first", lambda x: fg.sum(x, dtype="i32"), (F(6),),
         lambda x: np.sum(x.astype(np.int32))),
    Case("max", "sum-dtype-bool-is-any", lambda x: fg.sum(x, 0, dtype=bool), (I(3, 4, lo=0, hi=1),),
         lambda x: np.any(x, 0)),
    Case("sum", "where-initial", lambda x, m: fg.sum(x, 1, where=m, initial=10.0), (F(3, 4), B(3, 4)),
         lambda x, m: np.sum(x, 1, where=m, initial=10.0)),
    Case("prod", "where-initial", lambda x, m: fg.prod(x, 0, where=m, initial=2.0), (F(3, 4), B(4)),
         lambda x, m: np.prod(x, 0, where=m, initial=2.0)),
    Case("prod", "bool-counts", fg.prod, (B(4),), lambda x: np.prod(x)),
    Case("sum", "mean-where", lambda x, m: fg.mean(x, 1, where=m),
         (F(2, 4), np.array([[1, 0, 1, 1], [0, 0, 1, 0]], bool)), lambda x, m: np.mean(x, 1, where=m)),
    Case("sum", "mean-where-none-is-nan", lambda x: fg.mean(x, 1, where=np.array([[1, 0], [0, 0]], bool)), (F(2, 2),),
         lambda x: np.array([x[0, 0], nan])),
    Case("max", "initial", lambda x: fg.max(x, 1, initial=0.5), (F(3, 4),), lambda x: np.max(x, 1, initial=0.5)),
    Case("max", "where-initial", lambda x, m: fg.max(x, 1, where=m, initial=-1.0), (F(3, 4), B(3, 4)),
         lambda x, m: np.max(x, 1, where=m, initial=-1.0)),
    Case("min", "i32-initial", lambda x: fg.min(x, initial=-1), (I(3, 4, lo=0, hi=5),),
         lambda x: np.min(x, initial=-1)),
    Case("argmax", "bool-flattened-keepdims", lambda x: fg.argmax(x, keepdims=True), (B(3, 4),),
         lambda x: np.argmax(x, keepdims=True)),
    Case("argmin", "keepdims", lambda x: fg.argmin(x, 1, keepdims=True), (F(3, 4),),
         lambda x: np.argmin(x, 1, keepdims=True)),
    Case("max", "bool", lambda x: fg.max(x, 0), (B(3, 4),), lambda x: np.max(x, 0)),
    # NaN-ignoring reductions
    Case("sum", "nansum", lambda x: fg.nansum(x, 1), (WITH_NAN,), lambda x: np.nansum(x, 1)),
    Case("max", "nanmax-all-nan-row", lambda x: fg.nanmax(x, 1), (WITH_NAN,), lambda x: np.array([3.0, nan, 4.0])),
    Case("min", "nanmin", lambda x: fg.nanmin(x, 0), (WITH_NAN[[0, 2]],), lambda x: np.nanmin(x, 0)),
    Case("sum", "nanmean", lambda x: fg.nanmean(x, 1), (WITH_NAN[[0, 2]],), lambda x: np.nanmean(x, 1)),
    Case("sum", "nanmean-all-nan-row", lambda x: fg.nanmean(x, 1), (WITH_NAN,), lambda x: np.array([1.0, nan, 0.375])),
    Case("sum", "nanvar", lambda x: fg.nanvar(x, 1), (WITH_NAN[[0, 2]],), lambda x: np.nanvar(x, 1)),
    Case("prod", "nanprod", lambda x: fg.nanprod(x, 1), (WITH_NAN,), lambda x: np.nanprod(x, 1)),
    Case("max", "ptp", lambda x: fg.ptp(x, 0), (F(3, 4),), lambda x: np.ptp(x, 0)),
    Case("sum", "count_nonzero", lambda x: fg.count_nonzero(x, 1), (WITH_NAN,), lambda x: np.count_nonzero(x, 1)),
    Case("sum", "average-weights", lambda x, w: fg.average(x, 1, weights=w), (F(2, 4), P(4)),
         lambda x, w: np.average(x, 1, weights=w)),
    Case("sum", "average-returned", lambda x: fg.average(x, 0, returned=True)[1], (F(3, 2),),
         lambda x: np.full(2, 3.0)),
    # scans' argument forms
    Case("cumprod", "bool-counts", lambda x: fg.cumprod(x, 1), (B(2, 5),), lambda x: np.cumprod(x, 1)),
    Case("cumsum", "dtype-bool-is-a-running-and", lambda x: fg.cumprod(x, 1, dtype=bool), (B(2, 5),),
         lambda x: np.logical_and.accumulate(x, 1)),
    Case("cumsum", "nancumsum", lambda x: fg.nancumsum(x, 1), (WITH_NAN,), lambda x: np.nancumsum(x, 1)),
    Case("cumprod", "nancumprod", lambda x: fg.nancumprod(x, 1), (WITH_NAN,), lambda x: np.nancumprod(x, 1)),
    Case("cumsum", "cumulative_sum-include-initial", lambda x: fg.cumulative_sum(x, axis=1, include_initial=True),
         (I(2, 3),), lambda x: np.concatenate([np.zeros((2, 1), np.int64), np.cumsum(x, 1)], 1)),
    Case("cumprod", "cumulative_prod", lambda x: fg.cumulative_prod(x), (F(5),), np.cumprod),
    Case("cumsum", "lax", lambda x: fg.lax.cumsum(x, 1, reverse=True), (F(2, 4),),
         accumulate(np.add, 1, reverse=True)),
    # logsumexp's weights and sign; masked entries
    Case("sum", "logsumexp-b", lambda x, b: fg.logsumexp(x, 1, b=b), (F(2, 4), P(2, 4)),
         lambda x, b: np.log(np.sum(b * np.exp(x), 1))),
    Case("sum", "logsumexp-b-negative-sum-is-nan", lambda x: fg.logsumexp(x, b=np.float32([1.0, -2.0])),
         (np.float32([1.0, 2.0]),), lambda x: np.float64(nan)),
    Case("sum", "logsumexp-return_sign-value", lambda x, b: fg.logsumexp(x, 1, b=b, return_sign=True)[0],
         (F(3, 4), F(3, 4)), lambda x, b: np.log(np.abs(np.sum(b * np.exp(x), 1)))),
    Case("sum", "logsumexp-return_sign-sign", lambda x, b: fg.logsumexp(x, 1, b=b, keepdims=True, return_sign=True)[1],
         (F(3, 4), F(3, 4)), lambda x, b: np.sign(np.sum(b * np.exp(x), 1, keepdims=True))),
    Case("sum", "logsumexp-zero-weights", lambda x: fg.logsumexp(x, 1, b=np.float32([[0, 1], [0, 0]])),
         (F(2, 2),), lambda x: np.log(np.sum(np.float32([[0, 1], [0, 0]]) * np.exp(x), 1))),
    Case("sum", "logsumexp-where", lambda x, m: fg.logsumexp(x, 0, where=m),
         (F(3, 2), np.array([[1, 0], [1, 0], [0, 0]], bool)),
         lambda x, m: np.log(np.sum(np.exp(x) * m, 0))),
    # top_k: lax.top_k's values and indices (largest first, ties in index order; IEEE's total order)
    Case("argsort", "top_k-indices", lambda x: fg.lax.top_k(x, 3)[1], (Fi(3, 6),), lambda x: top_k_ref(x, 3)),
    Case("argsort", "top_k-values", lambda x: fg.lax.top_k(x, 2)[0], (F(3, 5),),
         lambda x: np.take_along_axis(x, top_k_ref(x, 2), -1)),
    Case("argsort", "top_k-special-indices", lambda x: fg.lax.top_k(x, 11)[1], (SPECIAL,), lambda x: TOP_SPECIAL),
    Case("argsort", "top_k-special-values", lambda m: fg.lax.top_k(fg.where(m, SPECIAL, SPECIAL), 11)[0], (B(11),),
         lambda m: SPECIAL[TOP_SPECIAL]),
    Case("argsort", "top_k-axis-0", lambda x: fg.lax.top_k(x, 2, axis=0)[0], (F(4, 3),),
         lambda x: np.take_along_axis(x, top_k_ref(x.T, 2).T, 0)),
    Case("argsort", "top_k-i32-long-rows", lambda x: fg.lax.top_k(x, 4)[1], (I(2, 1500, lo=-400, hi=400),),
         lambda x: top_k_ref(x, 4)),
    # lax.sort of several operands by their first num_keys; median (the middle of the sorted entries)
    Case("argsort", "lax-sort-by-key", lambda k, v: fg.lax.sort((k, v), num_keys=1)[1], (Fi(2, 6), F(2, 6)),
         lambda k, v: np.take_along_axis(v, stable_argsort(k), -1)),
    Case("argsort", "lax-sort-two-keys", lambda a, b: fg.lax.sort([a, b], num_keys=2)[1], (I(8, lo=0, hi=2), I(8)),
         lambda a, b: b[np.lexsort((np.arange(8), b, a))]),
    Case("sort", "lax", lambda x: fg.lax.sort(x, 0), (F(4, 3),), lambda x: np.sort(x, 0)),
    Case("sort", "median", lambda x: fg.median(x, 1), (F(3, 5),), lambda x: np.median(x, 1)),
    Case("sort", "median-even-keepdims", lambda x: fg.median(x, keepdims=True), (F(2, 3),),
         lambda x: np.median(x, keepdims=True)),
    Case("sort", "median-nan", lambda x: fg.median(x, -1), (WITH_NAN,), lambda x: np.median(x, -1)),
    Case("sort", "median-i32", lambda x: fg.median(x, 0), (I(4, 3),), lambda x: np.median(x, 0)),
)

F16_ROWS: tuple[Case, ...] = (
    Case("prod", "f16", lambda x: fg.prod(x, 1), (H(3, 4, lo=0.5, hi=1.5),), rounded(lambda x: np.prod(x, 1)), **F16),
    Case("cumprod", "f16", lambda x: fg.cumprod(x, 1), (H(2, 6, lo=0.5, hi=1.5),), rounded(lambda x: np.cumprod(x, 1)),
         **F16),
    Case("cummax", "f16", lambda x: fg.lax.cummax(x, 1), (H(2, 6),), accumulate(np.maximum, 1)),
    Case("cummin", "f16-nan", lambda x: fg.lax.cummin(x, 1), (WITH_NAN.astype(np.float16),),
         accumulate(np.minimum, 1)),
    Case("cumlogsumexp", "f16", lambda x: fg.lax.cumlogsumexp(x, 1), (H(2, 6),),
         rounded(accumulate(np.logaddexp, 1)), **F16),
    Case("linear_recurrence", "f16", linear(1), (H(2, 6, lo=-1, hi=1), H(2, 6)),
         rounded(lambda a, b: recurrence(a, b, 1)), **F16),
    Case("argsort", "f16-special", fg.argsort, (SPECIAL.astype(np.float16),), stable_argsort),
    # f16 NaNs are one NaN, the largest (a GPU's widening to f32 dropped a NaN's sign): -NaN comes second
    Case("argsort", "f16-top_k-special", lambda x: fg.lax.top_k(x, 11)[1], (SPECIAL.astype(np.float16),),
         lambda x: TOP_SPECIAL[[0, 10, *range(1, 10)]]),
    Case("merge_runs", "f16", lambda x: merged(x, 3), (Hi(2, 7),), lambda x: runs_ref(x, 6)),
    Case("sort", "f16", lambda x: fg.sort(x, descending=True), (H(2, 7),), lambda x: sort_ref(x, True)),
)

U32_ROWS: tuple[Case, ...] = (
    Case("prod", "u32-wraps", lambda x: fg.prod(x, 1), (U(2, 9, hi=40),), lambda x: np.prod(x, 1, dtype=np.uint32)),
    Case("cumprod", "u32", lambda x: fg.cumprod(x, 1), (U(2, 5),), lambda x: np.cumprod(x, 1, dtype=np.uint32)),
    Case("cummax", "u32", lambda x: fg.lax.cummax(x, 1),
         (np.array([[1, 2**32 - 1, 5], [2**31, 3, 2**31 + 1]], np.uint32),),
         accumulate(np.maximum, 1)),
    Case("cummin", "u32", lambda x: fg.lax.cummin(x, 1, reverse=True), (U(2, 5),),
         accumulate(np.minimum, 1, reverse=True)),
    Case("linear_recurrence", "u32", linear(1), (U(2, 5), U(2, 5)),
         lambda a, b: recurrence(a, b, 1).astype(np.uint32)),
    Case("argsort", "u32-large", fg.argsort, (np.array([[2**32 - 1, 0, 2**31, 7, 2**31 - 1, 0]], np.uint32),),
         stable_argsort),
    Case("merge_runs", "u32", lambda x: merged(x, 2), (U(2, 7),), lambda x: runs_ref(x, 4)),
    Case("sort", "u32", fg.sort, (np.array([[2**32 - 1, 0, 2**31, 7, 2**31 - 1, 0]], np.uint32),), np.sort),
)
