"""Windowed pooling over channels-last inputs, as `flax.linen`: max_pool, avg_pool."""

from __future__ import annotations

__all__: list[str] = [  # re-exported by fgrad.nn
]
