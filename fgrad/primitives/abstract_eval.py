"""Abstract-evaluation rules shared by families of primitives (elementwise, reductions, along
an axis), the dtype families they accept, and reference implementations shared by blocks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fgrad.errors import DTypeError, ShapeError
from fgrad.ir import DType, Node, Spec


# ---------------------------------------------------------------------------
# Rule helpers
# ---------------------------------------------------------------------------

FLOAT = (DType.f32,)
NUMERIC = (DType.f32, DType.i32)
ANY = (DType.f32, DType.i32, DType.bool)
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


def stable_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def stable_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def same_last_axis(node: Node, x: Spec) -> str | None:
    """A view whose last axis walks its operand's last axis (or whole runs of it)."""
    keeps = x.ndim > 0 and node.spec.ndim > 0 and x.shape[-1] % node.spec.shape[-1] == 0 and x.shape[-1] != 1
    return "same" if keeps else None


def squeezed(shape: tuple[int, ...]) -> list[int]:
    return [d for d in shape if d != 1]

