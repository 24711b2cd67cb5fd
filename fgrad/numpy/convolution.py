"""Convolutions: `jax.lax.conv_general_dilated` and `jax.numpy`'s convolve/correlate."""

from __future__ import annotations

__all__: list[str] = [  # the public functions, re-exported by fgrad.numpy and fgrad
]
