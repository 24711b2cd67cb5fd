"""Activation functions and the other functions of `jax.nn`."""

from __future__ import annotations

__all__: list[str] = [  # re-exported by fgrad.nn
]
