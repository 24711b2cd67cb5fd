"""Creating arrays: zeros, ones, full, eye, arange, linspace, ... (`jax.numpy`'s creation functions)."""

from __future__ import annotations

__all__: list[str] = [  # the public functions, re-exported by fgrad.numpy and fgrad
]
