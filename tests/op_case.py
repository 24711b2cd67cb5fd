"""The op table's machinery: seeded input makers, the row type `Case`, and how a row is traced and fed.

Row files (tests/op_table.py, tests/op_rows/*.py) build their rows from these; tests read
the rows through tests/op_table.py.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import fgrad as fg

# ---------------------------------------------------------------------------
# Input makers
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rand:
    """A seeded random input of `shape`: f32 uniform in [lo, hi), i32 in [lo, hi], bool.

    kind "f32int" gives f32 small integers (ties for eq/max, zeros for where);
    "nonzero" gives f32 of magnitude in [lo, hi) with a random sign.
    """

    shape: tuple[int, ...]
    kind: str = "f32"
    lo: float = -2.0
    hi: float = 2.0

    def __call__(self, rng: np.random.Generator) -> np.ndarray:
        if self.kind == "f32":
            return np.asarray(rng.uniform(self.lo, self.hi, self.shape), dtype=np.float32)
        if self.kind == "nonzero":
            sign = np.where(rng.random(self.shape) < 0.5, -1.0, 1.0)
            return np.asarray(sign * rng.uniform(self.lo, self.hi, self.shape), dtype=np.float32)
        if self.kind == "f32int":
            return np.asarray(rng.integers(int(self.lo), int(self.hi), self.shape, endpoint=True), dtype=np.float32)
        if self.kind == "i32":
            return np.asarray(rng.integers(int(self.lo), int(self.hi), self.shape, endpoint=True), dtype=np.int32)
        if self.kind == "bool":
            return np.asarray(rng.random(self.shape) < 0.5)
        if self.kind == "f16":
            return np.asarray(rng.uniform(self.lo, self.hi, self.shape), dtype=np.float16)
        if self.kind == "f16int":
            return np.asarray(rng.integers(int(self.lo), int(self.hi), self.shape, endpoint=True), dtype=np.float16)
        if self.kind == "u32":
            return np.asarray(rng.integers(int(self.lo), int(self.hi), self.shape, endpoint=True), dtype=np.uint32)
        raise ValueError(self.kind)

    def __repr__(self) -> str:
        return f"{self.kind}{list(self.shape)}"


def F(*shape: int, lo: float = -2.0, hi: float = 2.0) -> Rand:
    return Rand(shape, "f32", lo, hi)


def P(*shape: int) -> Rand:
    """Positive f32, for log, sqrt, rsqrt and the base of pow."""
    return Rand(shape, "f32", 0.25, 3.0)


def NZ(*shape: int) -> Rand:
    """f32 bounded away from zero, for divisors and negative integer powers."""
    return Rand(shape, "nonzero", 0.5, 2.0)


def Fi(*shape: int, lo: int = -2, hi: int = 2) -> Rand:
    return Rand(shape, "f32int", lo, hi)


def I(*shape: int, lo: int = -3, hi: int = 3) -> Rand:  # noqa: E743
    return Rand(shape, "i32", lo, hi)


def B(*shape: int) -> Rand:
    return Rand(shape, "bool")


T = fg.dim("T", 8)  # the symbol of symbolic rows: inputs of 5 along it, one program for 1..8


def S(*shape: int | fg.Dim, dtype: str = "f32") -> fg.Spec:
    return fg.spec(shape, dtype)


@dataclass(frozen=True)
class Case:
    """One row: `fn` must bind primitive `prim`; `ref` is its NumPy meaning.

    eager: `fn` uses only fg.* functions, so it also runs eagerly on NumPy arrays
    (with operators it would run NumPy's own). smooth: False leaves the row out of the
    derivative columns (its inputs sit on a jump, or it has no finite value). rtol/atol: f32 tolerance. specs: where given,
    the row is traced over them (symbolic dimensions) and run on the inputs.
    """

    prim: str
    name: str
    fn: Callable[..., Any]
    args: tuple[Rand | np.ndarray, ...]
    ref: Callable[..., Any]
    eager: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    specs: tuple[fg.Spec, ...] | None = None
    smooth: bool = True  # False: the inputs sit where there is no derivative (a jump, no finite value)

    @property
    def id(self) -> str:
        return f"{self.prim}-{self.name}"


def f64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64) if a.dtype == np.float32 else a


def H(*shape: int, lo: float = -2.0, hi: float = 2.0) -> Rand:
    return Rand(shape, "f16", lo, hi)


def PH(*shape: int) -> Rand:
    """Positive f16, for log, sqrt, rsqrt and the base of pow."""
    return Rand(shape, "f16", 0.25, 3.0)


def Hi(*shape: int, lo: int = -2, hi: int = 2) -> Rand:
    return Rand(shape, "f16int", lo, hi)


def U(*shape: int, lo: int = 0, hi: int = 6) -> Rand:
    return Rand(shape, "u32", lo, hi)


F16 = dict(rtol=4e-3, atol=1e-3)  # a few units in the last place of f16 (2^-10 relative)


def rounded(ref: Callable[..., Any]) -> Callable[..., Any]:
    """`ref` computed in float64 on float16 inputs, its float results rounded once to float16."""

    def f(*xs: Any) -> Any:
        out = np.asarray(ref(*(x.astype(np.float64) if x.dtype == np.float16 else x for x in xs)))
        return out.astype(np.float16) if out.dtype.kind == "f" else out

    return f


def trace(case: Case, args: list[np.ndarray]) -> fg.Graph:
    """The row's graph: traced over its specs where it has them, else over its inputs `args`."""
    return fg.trace(case.fn, *(case.specs if case.specs is not None else args))


def seed(case: Case) -> int:
    return zlib.crc32(case.id.encode())


def make(case: Case) -> list[np.ndarray]:
    rng = np.random.default_rng(seed(case))
    return [a(rng) if isinstance(a, Rand) else a for a in case.args]
