"""Bitwise operations and shifts on integers (and logical ones on bools)."""

from __future__ import annotations

__all__: list[str] = [  # the public functions, re-exported by fgrad.numpy and fgrad
]
