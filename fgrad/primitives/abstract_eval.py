"""Abstract-evaluation rules shared by families of primitives (elementwise, reductions, along
an axis), the dtype families they accept, and reference implementations shared by blocks."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import Dim, DType, Node, Spec, symbols_of


# ---------------------------------------------------------------------------
# Rule helpers
# ---------------------------------------------------------------------------

# Dtype families, read off the dtype table: a new dtype joins the families of its kind.
FLOAT = tuple(d for d in DType if d.is_float)
INTEGER = tuple(d for d in DType if d.is_int)
NUMERIC = FLOAT + INTEGER
ANY = tuple(DType)
BOOL = (DType.bool,)


def check_dtypes(name: str, allowed: tuple[DType, ...], *specs: Spec) -> None:
    bad = [s for s in specs if s.dtype not in allowed]
    if bad:
        kinds = "/".join(map(str, allowed))
        raise DTypeError(f"{name}: expected {kinds} operands, got {', '.join(map(str, specs))}")


def elementwise(name: str, arity: int, allowed: tuple[DType, ...], out: DType | None = None) -> Callable[..., Spec]:
    """Rule of an elementwise op of `arity` operands: one shape, one dtype among `allowed`."""

    def rule(*specs: Spec) -> Spec:
        if len(specs) != arity:
            raise TypeError(f"{name}: takes {arity} operands, got {len(specs)}")
        check_dtypes(name, allowed, *specs)
        if len({s.shape for s in specs}) > 1:
            raise ShapeError(f"{name}: operand shapes differ: {', '.join(str(s.shape) for s in specs)}")
        if len({s.dtype for s in specs}) > 1:
            raise DTypeError(f"{name}: operand dtypes differ: {', '.join(map(str, specs))}")
        return Spec(specs[0].shape, out or specs[0].dtype)

    return rule


def unary(name: str, allowed: tuple[DType, ...]) -> Callable[..., Spec]:
    return elementwise(name, 1, allowed)


def binary(name: str, allowed: tuple[DType, ...], out: DType | None = None) -> Callable[..., Spec]:
    return elementwise(name, 2, allowed, out)


def check_axes(name: str, x: Spec, axes: tuple[int, ...]) -> None:
    if list(axes) != sorted(set(axes)) or any(not 0 <= a < x.ndim for a in axes):
        raise ShapeError(f"{name}: axes {axes} must be sorted, unique and within 0..{x.ndim - 1} for {x.shape}")


def reduction(name: str, allowed: tuple[DType, ...]) -> Callable[..., Spec]:
    """Rule of a reduction over `axes` (sorted, unique, non-negative)."""

    def rule(x: Spec, *, axes: tuple[int, ...]) -> Spec:
        check_dtypes(name, allowed, x)
        check_axes(name, x, axes)
        return Spec(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)

    return rule


def along_axis(name: str) -> Callable[..., Spec]:
    """Rule of a float op normalising along one axis (softmax, log_softmax)."""

    def rule(x: Spec, *, axis: int) -> Spec:
        check_dtypes(name, FLOAT, x)
        check_axes(name, x, (axis,))
        return x

    return rule


def wide(x: np.ndarray) -> np.dtype:
    """The NumPy dtype that sums and dot products of `x` accumulate in: its dtype's `wide` one
    (float32 for float16), or x's own where that is wider (float64 in interpret's float64 mode)."""
    return np.promote_types(x.dtype, DType.of(x.dtype).wide.np)


def wide_sum(x: np.ndarray, axis: int | tuple[int, ...], keepdims: bool = False) -> np.ndarray:
    """The sum of `x` over `axis`, accumulated in its `wide` dtype and rounded back once."""
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=wide(x)).astype(x.dtype)


def computed_wide(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """The reference implementation of a special function `fn`: computed in its operands' `wide`
    dtype and rounded back once, as its WGSL lowering computes it (fgrad/lower/library.py)."""

    def impl(*xs: np.ndarray) -> np.ndarray:
        return np.asarray(fn(*(x.astype(wide(x), copy=False) for x in xs))).astype(xs[0].dtype, copy=False)

    return impl


def stable_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))  # initial: a row may be empty
    return e / wide_sum(e, axis, keepdims=True)


def stable_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    return shifted - np.log(wide_sum(np.exp(shifted), axis, keepdims=True))


def same_last_axis(node: Node, x: Spec) -> str | None:
    """A view whose last axis walks its operand's last axis (or whole runs of it)."""
    if x.ndim == 0 or node.spec.ndim == 0:
        return None
    a, b = x.shape[-1], node.spec.shape[-1]
    runs = a == b if isinstance(a, Dim) or isinstance(b, Dim) else a % b == 0
    return "same" if runs and a != 1 else None


def _runs(shape: tuple[int | Dim, ...]) -> tuple[tuple[Dim, ...], tuple[int, ...]]:
    """A shape's symbols in order, and the products of the fixed sizes before, between and after them."""
    symbols, runs, run = [], [], 1
    for d in shape:
        if isinstance(d, Dim):
            symbols.append(d)
            runs.append(run)
            run = 1
        else:
            run *= d
    return tuple(symbols), (*runs, run)


def check_reshape(old: tuple[int | Dim, ...], new: tuple[int | Dim, ...]) -> None:
    """Refuse a reshape of `old` into `new` unless it keeps the elements in row-major order for every
    value of the symbols: the sizes agree and each symbol keeps its place, the two shapes holding
    the same symbols in the same order with equal products of fixed sizes around them ((T, 64)
    into (T, 4, 16)). A product with a symbol ((T, 64) into (T*64,)) or a split of one is refused."""
    try:
        symbols_of((old, new))
    except ShapeError as e:
        raise ShapeError(f"reshape: {e}") from None
    (symbols, runs), (new_symbols, new_runs) = _runs(old), _runs(new)
    if not symbols and not new_symbols:
        if math.prod(runs) != math.prod(new_runs):
            raise ShapeError(f"reshape: cannot reshape {old} into {new}")
    elif (symbols, runs) != (new_symbols, new_runs):
        named = ", ".join(map(str, dict.fromkeys(symbols + new_symbols)))
        raise ShapeError(f"reshape: cannot reshape {old} into {new}: the symbol {named} must stay a factor of an axis "
                         "of its own, with the same sizes before and after it (fgrad forms no product or split of a "
                         "symbol)")


def squeezed(shape: tuple[int, ...]) -> list[int]:
    return [d for d in shape if d != 1]
