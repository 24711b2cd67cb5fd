"""Comparison with JAX as the oracle, shared by the tests of fgrad's jax.numpy, jax.lax and jax.nn
names: seeded inputs, table rows as pytest params, a check of results (count, tuple fields, shapes,
dtypes, values), and calls into JAX."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest


class Draws:
    """Inputs drawn from one seeded generator: f32s uniform in [lo, hi), i32s in [lo, hi]."""

    def __init__(self, seed: int, ints: int = 3) -> None:
        self.rng = np.random.default_rng(seed)
        self.ints = ints

    def f32(self, *shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
        return self.rng.uniform(lo, hi, shape).astype(np.float32)

    def i32(self, *shape: int, lo: int | None = None, hi: int | None = None) -> np.ndarray:
        lo, hi = -self.ints if lo is None else lo, self.ints if hi is None else hi
        return self.rng.integers(lo, hi, shape, endpoint=True).astype(np.int32)

    def spd(self, *shape: int) -> np.ndarray:
        """Symmetric positive-definite matrices: x x^T + n I."""
        x = self.f32(*shape)
        return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=np.float32)).astype(np.float32)

    def general(self, *shape: int) -> np.ndarray:
        """Square matrices that need row swaps (uniform entries), kept away from singular."""
        return (self.f32(*shape) + 1.5 * np.eye(shape[-1], dtype=np.float32)).astype(np.float32)

    def triangular(self, *shape: int) -> np.ndarray:
        """Matrices whose diagonal is far from zero (either triangle solvable), garbage off it."""
        return (self.f32(*shape) + 3.0 * np.eye(shape[-1], dtype=np.float32)).astype(np.float32)


def table_params(table: list) -> list:
    """One pytest param (ours, theirs, args, name) per argument set of each (name, ours, theirs,
    argument sets) row, with the id name-k."""
    return [pytest.param(ours, theirs, args, name, id=f"{name}-{k}")
            for name, ours, theirs, arg_sets in table for k, args in enumerate(arg_sets)]


def leaves(out: Any) -> list:
    """The arrays of a result, nested lists and tuples flattened in order."""
    return [leaf for item in out for leaf in leaves(item)] if isinstance(out, (list, tuple)) else [out]


def same(got: Any, want: Any, what: str, rtol: float = 2e-5, atol: float = 1e-6, *, oracle: str = "jax.numpy",
         signed_zeros: bool = False) -> None:
    """`got` is `want`: as many results, a named tuple's fields, each result's shape and dtype, floats
    within rtol and atol (NaN where `want` has NaN; with `signed_zeros`, zeros of `want`'s sign), and
    everything else equal."""
    if isinstance(want, tuple) and hasattr(want, "_fields"):
        assert getattr(got, "_fields", None) == want._fields, f"{what}: fields {getattr(got, '_fields', None)}"
    got, want = leaves(got), leaves(want)
    assert len(got) == len(want), f"{what}: {len(got)} results, {oracle} gives {len(want)}"
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{what}: shape {g.shape}, {oracle} gives {w.shape}"
        assert g.dtype == w.dtype, f"{what}: dtype {g.dtype}, {oracle} gives {w.dtype}"
        if w.dtype.kind != "f":
            np.testing.assert_array_equal(g, w, err_msg=what)
            continue
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol, err_msg=what)
        if signed_zeros:
            zeros = (w == 0) & (g == 0)
            np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(w[zeros]), err_msg=f"{what}: signed zeros")


def over_arrays(fn: Callable, args: tuple) -> tuple[Callable, list]:
    """`fn` as a function of the NumPy arrays among `args` (the other arguments fixed), and those
    arrays: what a trace or a jit of a table row takes."""
    positions = [k for k, a in enumerate(args) if isinstance(a, (np.ndarray, jax.Array))]

    def over(*arrays: Any) -> Any:
        full = list(args)
        for k, a in zip(positions, arrays):
            full[k] = a
        return fn(*full)

    return over, [args[k] for k in positions]


def jax_call(fn: Callable, *args: Any, jit: bool = True, **kwargs: Any) -> Any:
    """fn on `args`, NumPy arrays passed as JAX's, with JAX's warnings silenced: under jax.jit, over
    the arrays (one XLA program a call, far quicker than jax.numpy's op-by-op dispatch, which
    compiles each function it calls), eagerly where JAX needs concrete values (nonzero without
    size=, a boolean mask's indexing) or with `jit` False."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        if not jit:
            return fn(*args, **kwargs)
        over, arrays = over_arrays(lambda *full: fn(*full, **kwargs), args)
        try:
            return jax.jit(over)(*arrays)
        except (jax.errors.ConcretizationTypeError, jax.errors.NonConcreteBooleanIndexError,
                jax.errors.TracerIntegerConversionError, jax.errors.TracerArrayConversionError):
            return fn(*args, **kwargs)
