"""Op-table rows: callbacks, Python functions a program calls on the host (pure_callback,
io_callback, debug_callback). Through WGSL each runs where the program reads its operands back and writes its
results. A pure callback has no derivative: its rows return integers, or are marked not smooth."""

from __future__ import annotations

import numpy as np
import fgrad as fg
from op_case import F, F16, H, U, Case, rounded


def _argsort(a: np.ndarray) -> np.ndarray:
    return np.argsort(a, axis=-1, kind="stable").astype(np.int32)


def argsort(x):
    """A vectorized callback: under vmap, called once on the whole batch (`expand_dims`)."""
    return fg.pure_callback(_argsort, fg.ShapeDtypeStruct(x.shape, np.int32), x, vmap_method="expand_dims")


def sin_then_add(x, y):
    """A callback of two operands, its result computed on further."""
    s = fg.pure_callback(lambda a, b: np.sin(a) + b, fg.ShapeDtypeStruct(x.shape, x.dtype), x, y,
                         vmap_method="broadcast_all")
    return s * 2.0


def running_sum(x):
    """A callback with an effect too: called wherever the program runs it."""
    return fg.experimental.io_callback(lambda a: np.cumsum(a, -1, dtype=a.dtype), fg.ShapeDtypeStruct(x.shape, x.dtype),
                                       x)


def doubled(x):
    """A debug callback's node beside the work: the result does not read it."""
    fg.debug.callback(lambda a: None, x)
    return x * 2.0


OP_ROWS: tuple[Case, ...] = (  # every new primitive's rows (value, WGSL, VJP)
    Case("pure_callback", "argsort", argsort, (F(2, 5),), lambda x: np.argsort(x, axis=-1, kind="stable")),
    Case("pure_callback", "sin-add", sin_then_add, (F(2, 3), F(2, 3)), lambda x, y: (np.sin(x) + y) * 2.0,
         smooth=False),  # no derivative: a callback's is refused (tests/test_callbacks.py)
    Case("debug_callback", "doubled", doubled, (F(2, 3),), lambda x: x * 2.0),
    Case("io_callback", "cumsum", running_sum, (F(2, 3),), lambda x: np.cumsum(x, -1), smooth=False),
)
API_ROWS: tuple[Case, ...] = ()
F16_ROWS: tuple[Case, ...] = (  # f16 rows of float primitives
    Case("pure_callback", "f16", argsort, (H(2, 5),), lambda x: np.argsort(x, axis=-1, kind="stable")),
    Case("debug_callback", "f16", doubled, (H(2, 3),), rounded(lambda x: x * 2.0), **F16),
    Case("io_callback", "f16", running_sum, (H(2, 3),), rounded(lambda x: np.cumsum(x, -1)), **F16),
)
U32_ROWS: tuple[Case, ...] = (
    Case("pure_callback", "u32", lambda x: fg.pure_callback(lambda a: a * np.uint32(3), fg.ShapeDtypeStruct(
        x.shape, np.uint32), x, vmap_method="sequential"), (U(2, 3),), lambda x: x * np.uint32(3)),
)
